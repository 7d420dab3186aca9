// liblanewise_frontend.so: a clang frontend plugin (`-fplugin=`) that fills
// one gap of clang-22's OpenMP support, so that the pass plugin sees what
// the program declares.
//
// OpenMP applies a `#pragma omp declare simd` written on a function's
// declaration to the function, wherever it is defined. clang-22 attaches the
// directive to that declaration only, and emits the `_ZGV...` attributes
// Lanewise reads from the declaration it generates code for: a definition
// that follows a prototype with the pragma (the usual layout, the prototype
// in a header) gets none, so the file that defines the function offers no
// vector variants while the files that call it expect them. (clang emits
// them when the function is used between the prototype and the definition.)
//
// The plugin runs before clang's code generation and gives each function
// definition without a `declare simd` of its own the clauses of its earlier
// declarations, with their parameter references moved to the definition's
// parameters, and the annotation `lanewise.declared-elsewhere`: other files
// that include the prototype call the variants, so the pass plugin builds
// each of them in full (as `lanewise cc` does for a function another file of
// its command declares) rather than as adapters over one shared body. It works on clang's C++ AST, which has no C interface, so it is
// C++; it is a separate library because opt and the pass plugin must load
// without clang's frontend symbols.
#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/Attr.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

namespace {

using namespace clang;

// `expr` with a reference to a parameter of `from` replaced by a reference
// to the parameter of `to` at the same position (clauses name parameters:
// uniform(n), linear(i:step), aligned(p:64)).
Expr *moveToParameters(ASTContext &context, Expr *expr, const FunctionDecl *from,
                       FunctionDecl *to) {
  auto *reference = expr ? dyn_cast<DeclRefExpr>(expr->IgnoreParenImpCasts()) : nullptr;
  auto *parameter = reference ? dyn_cast<ParmVarDecl>(reference->getDecl()) : nullptr;
  if (!parameter)
    return expr;
  for (unsigned position = 0; position < from->getNumParams(); ++position) {
    if (from->getParamDecl(position) != parameter || position >= to->getNumParams())
      continue;
    ParmVarDecl *target = to->getParamDecl(position);
    return DeclRefExpr::Create(context, NestedNameSpecifierLoc(), SourceLocation(), target,
                               false, reference->getLocation(), target->getType(), VK_LValue);
  }
  return expr;
}

// A copy of `attribute` (on `from`) for the definition `to`.
OMPDeclareSimdDeclAttr *copyFor(ASTContext &context, const OMPDeclareSimdDeclAttr *attribute,
                                const FunctionDecl *from, FunctionDecl *to) {
  auto moved = [&](auto expressions) {
    SmallVector<Expr *, 4> result;
    for (Expr *expression : expressions)
      result.push_back(moveToParameters(context, expression, from, to));
    return result;
  };
  SmallVector<Expr *, 4> uniforms = moved(attribute->uniforms());
  SmallVector<Expr *, 4> aligneds = moved(attribute->aligneds());
  SmallVector<Expr *, 4> alignments = moved(attribute->alignments());
  SmallVector<Expr *, 4> linears = moved(attribute->linears());
  SmallVector<Expr *, 4> steps = moved(attribute->steps());
  SmallVector<unsigned, 4> modifiers(attribute->modifiers_begin(), attribute->modifiers_end());
  return OMPDeclareSimdDeclAttr::CreateImplicit(
      context, attribute->getBranchState(), attribute->getSimdlen(), uniforms.data(),
      uniforms.size(), aligneds.data(), aligneds.size(), alignments.data(), alignments.size(),
      linears.data(), linears.size(), modifiers.data(), modifiers.size(), steps.data(),
      steps.size(), attribute->getRange());
}

class DeclareSimdOnDefinitions : public ASTConsumer {
public:
  explicit DeclareSimdOnDefinitions(ASTContext &context) : context(context) {}

  bool HandleTopLevelDecl(DeclGroupRef group) override {
    for (Decl *decl : group)
      visit(decl);
    return true;
  }

private:
  ASTContext &context;

  void visit(Decl *decl) {
    if (auto *linkage = dyn_cast<LinkageSpecDecl>(decl)) {
      for (Decl *inner : linkage->decls())
        visit(inner);
      return;
    }
    if (auto *space = dyn_cast<NamespaceDecl>(decl)) {
      for (Decl *inner : space->decls())
        visit(inner);
      return;
    }
    auto *definition = dyn_cast<FunctionDecl>(decl);
    if (!definition || !definition->doesThisDeclarationHaveABody() ||
        definition->hasAttr<OMPDeclareSimdDeclAttr>())
      return;
    for (const FunctionDecl *earlier = definition->getPreviousDecl(); earlier;
         earlier = earlier->getPreviousDecl())
      for (const auto *attribute : earlier->specific_attrs<OMPDeclareSimdDeclAttr>())
        definition->addAttr(copyFor(context, attribute, earlier, definition));
    if (definition->hasAttr<OMPDeclareSimdDeclAttr>())
      definition->addAttr(AnnotateAttr::CreateImplicit(context, "lanewise.declared-elsewhere",
                                                        nullptr, 0));
  }
};

class Action : public PluginASTAction {
protected:
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &compiler,
                                                 llvm::StringRef) override {
    return std::make_unique<DeclareSimdOnDefinitions>(compiler.getASTContext());
  }
  bool ParseArgs(const CompilerInstance &, const std::vector<std::string> &) override {
    return true;
  }
  // Runs with every compilation that loads the plugin, before code generation.
  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static clang::FrontendPluginRegistry::Add<Action>
    registration("lanewise-declare-simd",
                 "give function definitions the declare simd clauses of their prototypes");
