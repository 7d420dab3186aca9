// The C++ side of the Lanewise pass plugin: LLVM's plugin interface is C++,
// so this shim registers one module pass with the new pass manager and
// hands each module to the Rust library through the C ABI
// (lanewise_plugin_run_module in crates/llvm/src/plugin.rs). All the logic
// is in Rust.
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Plugins/PassPlugin.h"

extern "C" int lanewise_plugin_run_module(
    LLVMModuleRef module, void (*emit_remark)(LLVMModuleRef, const char *, int, const char *),
    int stage);

// The `stage` argument (lanewise_llvm::plugin::PluginStage).
constexpr int STAGE_EXPLICIT = 0;
constexpr int STAGE_OPTIMIZER_EARLY = 1;
constexpr int STAGE_PIPELINE_START = 2;
constexpr int STAGE_OPTIMIZER_LAST = 3;

namespace {

// One Lanewise remark through LLVM's remark machinery, which clang prints
// for -Rpass=lanewise / -Rpass-missed=lanewise (and -fsave-optimization-record).
void emitRemark(LLVMModuleRef moduleRef, const char *function, int passed, const char *message) {
  llvm::Function *scalar = llvm::unwrap(moduleRef)->getFunction(function);
  if (!scalar)
    return;
  llvm::OptimizationRemarkEmitter emitter(scalar);
  if (passed)
    emitter.emit(llvm::OptimizationRemark("lanewise", "Vectorized", scalar) << message);
  else
    emitter.emit(llvm::OptimizationRemarkMissed("lanewise", "NotVectorized", scalar) << message);
}

struct LanewisePass : llvm::PassInfoMixin<LanewisePass> {
  int stage;
  explicit LanewisePass(int stage) : stage(stage) {}
  llvm::PreservedAnalyses run(llvm::Module &module, llvm::ModuleAnalysisManager &) {
    int changed = lanewise_plugin_run_module(llvm::wrap(&module), emitRemark, stage);
    return changed > 0 ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
  }
  // Also at -O0 (clang marks functions optnone there; Lanewise lifts copies).
  static bool isRequired() { return true; }
};

} // namespace

// The plugin's entry point, llvmGetPassPluginInfo, is defined in Rust
// (src/lib.rs): a cdylib exports only Rust's symbols. It returns this
// function as the callback that registers the pass.
static_assert(LLVM_PLUGIN_API_VERSION == 2, "update PLUGIN_API_VERSION in src/lib.rs");
// src/lib.rs returns llvm::PassPluginLibraryInfo by value from a struct of
// its own: their layouts must agree (LLVM 22.1 added PreCodeGenCallback).
static_assert(sizeof(llvm::PassPluginLibraryInfo) == 40,
              "update PassPluginLibraryInfo and PASS_PLUGIN_INFO_BYTES in src/lib.rs");

extern "C" void lanewise_register_pass_builder_callbacks(llvm::PassBuilder &builder) {
  // Before the simplification passes: the `omp simd` loops are kept from
  // being unrolled until the pass below has seen them.
  builder.registerPipelineStartEPCallback(
      [](llvm::ModulePassManager &passes, llvm::OptimizationLevel) {
        passes.addPass(LanewisePass(STAGE_PIPELINE_START));
      });
  // At the start of the module optimization pipeline: after inlining and
  // the function simplification passes, before LLVM's loop vectorizer and
  // unroller; the rest of the pipeline cleans up after Lanewise.
  builder.registerOptimizerEarlyEPCallback(
      [](llvm::ModulePassManager &passes, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
        passes.addPass(LanewisePass(STAGE_OPTIMIZER_EARLY));
      });
  // At the end of the module optimization pipeline, after LLVM's
  // vectorizers: Lanewise's basic-block vectorizer (LANEWISE_SLP=lanewise;
  // the pass does nothing otherwise).
  builder.registerOptimizerLastEPCallback(
      [](llvm::ModulePassManager &passes, llvm::OptimizationLevel, llvm::ThinOrFullLTOPhase) {
        passes.addPass(LanewisePass(STAGE_OPTIMIZER_LAST));
      });
  // `opt -load-pass-plugin=... -passes=lanewise`.
  builder.registerPipelineParsingCallback(
      [](llvm::StringRef name, llvm::ModulePassManager &passes,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name != "lanewise")
          return false;
        passes.addPass(LanewisePass(STAGE_EXPLICIT));
        return true;
      });
}
