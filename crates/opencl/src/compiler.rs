//! The OpenCL C compiler: `clBuildProgram`'s pipeline.
//!
//! 1. clang-22 compiles the program's source (`-x cl -cl-std=CL1.2` and the
//!    application's build options) to LLVM IR; llvm-link-22 adds the
//!    builtins it calls (builtins/*.cl, compiled once per process) and opt-22 `-O2` inlines them.
//! 2. For each kernel `k`, clang's implementation function
//!    `__clang_ocl_kern_imp_k` gets a vector variant with every parameter
//!    uniform (`_ZGV<isa>N<W>u...u`): the lanes differ only by
//!    `rv_lane_id()`, which the builtins add to the first work-item's
//!    `get_local_id(0)`. Lanewise builds it in declare-simd mode (a kernel
//!    it cannot vectorize keeps only its scalar form, and the build log
//!    says why).
//! 3. Trampolines `__lw_scalar_k(void **args, size_t count)` and `__lw_vector_k(void
//!    **args)` (LLVM IR written here from the kernel's signature) call the
//!    kernel with arguments read from an array of pointers, so the
//!    executor can call any kernel through one C signature.
//! 4. llvm-link-22 joins the kernels, the trampolines and builtins/
//!    runtime.c into one module, which clang-22 compiles into a shared
//!    object, loaded with every symbol resolved (an undefined
//!    builtin is a build error naming it).
//!
//! `barrier` calls the runtime's `__lw_barrier`, which Lanewise treats as
//! a group function (`Options::group_functions`): the vector variant calls
//! it once for its W work-items, and the runtime switches fibers there.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use lanewise::{Mode, Options, VectorMath};
use lanewise_ir::vfabi::Isa;
use lanewise_ir::{DataLayout, Type};
use lanewise_llvm::{with_module_from_bytes, OutputFormat};

use crate::continuations::{self, BARRIER};

/// The builtin library's sources (each compiled to bitcode on its own, in
/// parallel, then linked into one module).
const BUILTIN_SOURCES: [(&str, &str); 6] = [
    ("workitem", include_str!("../builtins/workitem.cl")),
    ("math", include_str!("../builtins/math.cl")),
    ("integer", include_str!("../builtins/integer.cl")),
    ("relational", include_str!("../builtins/relational.cl")),
    ("vector_data", include_str!("../builtins/vector_data.cl")),
    ("convert", include_str!("../builtins/convert.cl")),
];
const RUNTIME: &str = include_str!("../builtins/runtime.c");
const KERNEL_PREFIX: &str = "__clang_ocl_kern_imp_";
/// clang-22's data layout for x86_64-unknown-linux-gnu (the trampolines'
/// module must agree with the kernels' to be linked without warnings).
const X86_64_DATA_LAYOUT: &str =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

/// A kernel parameter: its LLVM type and the bytes `clSetKernelArg` gives.
#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub ty: Type,
    pub size: usize,
    /// A struct passed by value: the kernel takes a pointer (`byval`) to
    /// its own copy, `size` is the struct's, and the trampolines pass a
    /// pointer to the argument's bytes.
    pub by_value: bool,
}

impl ParamInfo {
    /// A buffer or `__local` pointer (not a struct passed by value).
    pub fn is_pointer(&self) -> bool {
        self.ty.is_ptr() && !self.by_value
    }
}

/// A kernel of a built program.
#[derive(Clone, Debug)]
pub struct KernelInfo {
    pub name: String,
    pub params: Vec<ParamInfo>,
    /// The widths of the vector variants built (`__lw_vector<W>_<name>`),
    /// widest first; empty if Lanewise kept the kernel scalar.
    pub widths: Vec<u32>,
    /// The widths of the masked variants built (`__lw_masked<W>_<name>`),
    /// which run a row's last `local_size % W` work-items in one call.
    pub masked_widths: Vec<u32>,
    /// How the kernel's work-groups pass their barriers.
    pub barriers: Barriers,
}

/// How the work-items of a work-group wait for each other at barriers
/// (builtins/runtime.c runs each way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Barriers {
    /// The kernel calls no barrier: each SIMD group runs to its end.
    None,
    /// Each SIMD group (or work-item) is a fiber that `barrier` suspends.
    Fibers,
    /// The kernel is in continuation form (`continuations`): it runs once
    /// per region for every SIMD group, with `spill_bytes` per work-item
    /// for the values live across a barrier.
    Continuations { spill_bytes: u64 },
}

/// The result of a successful build: the shared object's path, the SIMD
/// width, the kernels, and the log.
pub struct BuiltProgram {
    pub library: PathBuf,
    pub width: u32,
    pub kernels: Vec<KernelInfo>,
    pub log: String,
}

/// The SIMD widths kernels are built for, widest first, each with the x86
/// ISA whose registers hold that many 32-bit lanes: the widest this CPU
/// has, and half of it, for work-groups narrower than the widest (an 8x8
/// tile on an AVX-512 machine).
fn host_widths() -> Vec<(Isa, u32)> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            return vec![(Isa::Avx512, 16), (Isa::Avx2, 8)];
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            return vec![(Isa::Avx2, 8), (Isa::Sse, 4)];
        }
    }
    vec![(Isa::Sse, 4)]
}

/// A fresh directory for one build's files.
fn work_directory() -> std::io::Result<PathBuf> {
    static SERIAL: AtomicU64 = AtomicU64::new(0);
    let serial = SERIAL.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("lanewise-opencl-{}-{serial}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

/// The builtins library (builtins/*.cl) as one bitcode module, compiled
/// once per process, or read from the cache of an earlier process
/// ([`builtins_cache_path`]); each program links the functions it calls.
fn builtins_bitcode() -> Result<&'static [u8], String> {
    static BUILTINS: OnceLock<Result<Vec<u8>, String>> = OnceLock::new();
    let compiled = BUILTINS.get_or_init(|| {
        let cache = builtins_cache_path();
        if let Some(bytes) = cache.as_ref().and_then(|path| std::fs::read(path).ok()) {
            return Ok(bytes);
        }
        let dir = work_directory().map_err(|error| format!("lanewise: {error}"))?;
        let flags = clang_opencl_flags(&[]);
        let logs: Vec<(bool, String)> = std::thread::scope(|scope| {
            let jobs: Vec<_> = BUILTIN_SOURCES
                .iter()
                .map(|&(name, text)| {
                    let (dir, flags) = (&dir, &flags);
                    scope.spawn(move || {
                        let mut log = String::new();
                        let source = format!("{name}.cl");
                        let output = format!("{name}.bc");
                        let written = std::fs::write(dir.join(&source), text).is_ok();
                        let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
                        args.extend([source.as_str(), "-o", output.as_str()]);
                        let ok = written && run("clang-22", &args, dir, &mut log).is_ok();
                        (ok, log)
                    })
                })
                .collect();
            jobs.into_iter().map(|job| job.join().unwrap_or((false, String::new()))).collect()
        });
        let mut ok = logs.iter().all(|(ok, _)| *ok);
        let mut log: String = logs.into_iter().map(|(_, log)| log).collect();
        let mut link: Vec<String> =
            BUILTIN_SOURCES.iter().map(|(name, _)| format!("{name}.bc")).collect();
        link.extend(["-o".to_owned(), "builtins.bc".to_owned()]);
        let link: Vec<&str> = link.iter().map(String::as_str).collect();
        ok = ok && run("llvm-link-22", &link, &dir, &mut log).is_ok();
        let bytes = std::fs::read(dir.join("builtins.bc"));
        let _ = std::fs::remove_dir_all(&dir);
        match bytes {
            Ok(bytes) if ok => {
                if let Some(path) = &cache {
                    store_in_cache(path, &bytes);
                }
                Ok(bytes)
            }
            _ => Err(format!("lanewise: the OpenCL builtins did not compile:\n{log}")),
        }
    });
    compiled.as_ref().map(Vec::as_slice).map_err(Clone::clone)
}

/// Where the compiled builtins are kept between processes (compiling them
/// takes seconds): `$XDG_CACHE_HOME/lanewise` (or `~/.cache/lanewise`),
/// under a name holding a hash of the sources and the compiler flags.
/// `None` without a home directory.
fn builtins_cache_path() -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))?;
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    BUILTIN_SOURCES.hash(&mut hasher);
    clang_opencl_flags(&[]).hash(&mut hasher);
    Some(base.join("lanewise").join(format!("opencl-builtins-{:016x}.bc", hasher.finish())))
}

/// Writes `bytes` to `path` through a temporary file and a rename, so that
/// a concurrent reader never sees half a file; failures are ignored (the
/// cache is only an optimization).
fn store_in_cache(path: &Path, bytes: &[u8]) {
    let Some(dir) = path.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let temporary = dir.join(format!(".builtins-{}.tmp", std::process::id()));
    if std::fs::write(&temporary, bytes).is_ok() && std::fs::rename(&temporary, path).is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
}

/// Deletes the build's files once its shared object is loaded (or failed
/// to load), unless `LANEWISE_OPENCL_KEEP=1` asks to keep them for
/// inspection.
pub fn remove_work_directory(library: &Path) {
    if std::env::var_os("LANEWISE_OPENCL_KEEP").is_some() {
        return;
    }
    if let Some(dir) = library.parent() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// Runs a tool; its stderr is appended to `log`; `Err` if it failed.
fn run(tool: &str, args: &[&str], dir: &Path, log: &mut String) -> Result<(), ()> {
    let output = Command::new(tool).args(args).current_dir(dir).output();
    match output {
        Ok(output) => {
            log.push_str(&String::from_utf8_lossy(&output.stderr));
            if output.status.success() {
                Ok(())
            } else {
                Err(())
            }
        }
        Err(error) => {
            let _ = writeln!(log, "lanewise: cannot run {tool}: {error}");
            Err(())
        }
    }
}

fn clang_opencl_flags(options: &[String]) -> Vec<String> {
    let mut flags = vec!["-x".into(), "cl".into()];
    if !options.iter().any(|option| option.starts_with("-cl-std=")) {
        flags.push("-cl-std=CL1.2".into());
    }
    flags.extend(
        [
            "-O2",
            "-emit-llvm",
            "-c",
            "-target",
            "x86_64-unknown-linux-gnu",
            "-Xclang",
            "-finclude-default-header",
            "-fno-discard-value-names",
            // The program is linked into a shared object with runtime.c,
            // whose thread-local record then needs the general TLS model.
            "-fPIC",
        ]
        .map(String::from),
    );
    flags.extend(options.iter().cloned());
    flags
}

/// Builds `source` with the application's `options` (split at white space).
pub fn build(source: &str, options: &str) -> Result<BuiltProgram, String> {
    let mut log = String::new();
    let dir = work_directory().map_err(|error| format!("lanewise: {error}"))?;
    let write = |name: &str, text: &str| {
        std::fs::write(dir.join(name), text).map_err(|error| format!("lanewise: {name}: {error}"))
    };
    write("program.cl", source)?;
    write("runtime.c", RUNTIME)?;
    std::fs::write(dir.join("builtins.bc"), builtins_bitcode()?)
        .map_err(|error| format!("lanewise: builtins.bc: {error}"))?;
    let options: Vec<String> = options.split_whitespace().map(String::from).collect();
    let flags = clang_opencl_flags(&options);
    let compile = |input: &str, output: &str, log: &mut String| {
        let mut args: Vec<&str> = flags.iter().map(String::as_str).collect();
        args.extend([input, "-o", output]);
        run("clang-22", &args, &dir, log)
    };
    let failed = |log: String| {
        remove_work_directory(&dir.join("program.so"));
        Err(log)
    };
    if compile("program.cl", "program.bc", &mut log).is_err() {
        return failed(log);
    }
    let link = ["program.bc", "--only-needed", "builtins.bc", "-o", "linked.bc"];
    if run("llvm-link-22", &link, &dir, &mut log).is_err()
        || run(
            "opt-22",
            &[
                "-passes=default<O2>",
                // Kernels call helpers (`trace` in AOBench) that a vector
                // variant would otherwise call once per lane: inline them,
                // as OpenCL compilers do.
                "-inline-threshold=2000",
                "linked.bc",
                "-o",
                "optimized.bc",
            ],
            &dir,
            &mut log,
        )
        .is_err()
    {
        return failed(log);
    }
    if let Err(missing) = check_builtins(&dir, &mut log) {
        return failed(missing);
    }
    let widths = host_widths();
    let optimized = std::fs::read(dir.join("optimized.bc")).map_err(|error| error.to_string())?;
    let kernels = vectorize(&optimized, &dir.join("vectorized.bc"), &widths, &mut log)?;
    std::fs::write(dir.join("trampolines.ll"), trampolines(&kernels, &widths))
        .map_err(|error| error.to_string())?;
    // One module, so the trampolines' loops can inline the variants and
    // the runtime's record accesses.
    let runtime = [
        "-O2",
        "-fPIC",
        "-target",
        "x86_64-unknown-linux-gnu",
        "-emit-llvm",
        "-c",
        "runtime.c",
        "-o",
        "runtime.bc",
    ];
    let link = ["vectorized.bc", "trampolines.ll", "runtime.bc", "-o", "all.bc"];
    let shared = [
        "-O2",
        "-shared",
        "-fPIC",
        "-march=native",
        "-Wno-override-module",
        "all.bc",
        "-lmvec",
        "-lm",
        "-o",
        "program.so",
    ];
    if run("clang-22", &runtime, &dir, &mut log).is_err()
        || run("llvm-link-22", &link, &dir, &mut log).is_err()
        || run("clang-22", &shared, &dir, &mut log).is_err()
    {
        return failed(log);
    }
    let width = widths[0].1;
    Ok(BuiltProgram { library: dir.join("program.so"), width, kernels, log })
}

/// The OpenCL C builtins the program calls and the platform does not
/// define (clang's `opencl-c.h` declares them all; their mangled names
/// stay undefined): a build error naming each one, in C++ syntax.
fn check_builtins(dir: &Path, log: &mut String) -> Result<(), String> {
    let output = Command::new("llvm-nm-22")
        .args(["--undefined-only", "--format=just-symbols", "optimized.bc"])
        .current_dir(dir)
        .output()
        .map_err(|error| format!("{log}lanewise: cannot run llvm-nm-22: {error}\n"))?;
    let undefined = String::from_utf8_lossy(&output.stdout);
    let missing: Vec<&str> = undefined
        .lines()
        .filter(|symbol| {
            symbol
                .strip_prefix("_Z")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let demangled = Command::new("llvm-cxxfilt-22")
        .args(&missing)
        .output()
        .map(|output| String::from_utf8_lossy(&output.stdout).lines().map(String::from).collect())
        .unwrap_or_else(|_| missing.iter().map(|symbol| symbol.to_string()).collect::<Vec<_>>());
    for (symbol, name) in missing.iter().zip(&demangled) {
        let _ = writeln!(
            log,
            "lanewise: the program calls `{name}` ({symbol}): this OpenCL C builtin is not \
             provided yet"
        );
    }
    Err(log.clone())
}

/// Step 2: adds the vector variant of every kernel whose parameters can be
/// passed; returns the kernels.
fn vectorize(
    input: &[u8],
    output: &Path,
    widths: &[(Isa, u32)],
    log: &mut String,
) -> Result<Vec<KernelInfo>, String> {
    let result = with_module_from_bytes(input, "program", |module| {
        // A kernel's `__local` variables (the only writable globals of an
        // OpenCL 1.2 program): one copy per thread, so per work-group.
        module.make_writable_globals_thread_local();
        let data_layout: DataLayout = module.data_layout();
        let mut kernels = Vec::new();
        for name in module.defined_function_names() {
            let Some(kernel) = name.strip_prefix(KERNEL_PREFIX) else { continue };
            let (params, _) = module.function_signature(&name)?;
            let byval_sizes = module.byval_param_sizes(&name)?;
            let mut infos = Vec::new();
            let mut passable = true;
            for (ty, byval_size) in params.into_iter().zip(byval_sizes) {
                passable &= ty.is_int() || ty.is_float() || ty.is_ptr() || ty.is_vector();
                let size = byval_size.unwrap_or_else(|| data_layout.alloc_size(&ty)) as usize;
                infos.push(ParamInfo { ty, size, by_value: byval_size.is_some() });
            }
            if !passable {
                let _ = writeln!(
                    log,
                    "lanewise: kernel `{kernel}`: a parameter of aggregate type (a struct passed \
                     by value) is not supported yet"
                );
                return Ok(None);
            }
            if vectorization_enabled() {
                let variants: Vec<String> = widths
                    .iter()
                    .flat_map(|&(isa, width)| {
                        [
                            variant_name(&name, infos.len(), isa, width),
                            masked_variant_name(&name, infos.len(), isa, width),
                        ]
                    })
                    .collect();
                module.add_variant_attributes(&name, &variants);
            }
            kernels.push(KernelInfo {
                name: kernel.to_owned(),
                params: infos,
                widths: Vec::new(),
                masked_widths: Vec::new(),
                barriers: Barriers::None,
            });
        }
        for kernel in &mut kernels {
            kernel.barriers = barrier_execution(module, &kernel.name, log);
        }
        let options = Options {
            mode: Mode::DeclareSimd,
            // OpenCL allows 3 ulp and more for exp, log, sin, ... (OpenCL
            // 1.2, 7.4); glibc's libmvec stays within 4 ulp and mostly 1.
            vector_math: VectorMath::Libmvec,
            keep_going: true,
            cleanup: true,
            group_functions: vec![BARRIER.to_owned()],
            // Work-items read their ids through the SPMD builtins, and the
            // executor chooses between vector and scalar code itself
            // (`adaptive`).
            safety_net: lanewise::SafetyNetMode::Off,
            // The SIMD utilization of the vector variants, printed at exit
            // (scripts/bench-opencl.sh; counters shared by the threads, so
            // measured with LANEWISE_OPENCL_THREADS=1).
            instrument_utilization: std::env::var_os("LANEWISE_OPENCL_UTILIZATION").is_some(),
            ..Options::default()
        };
        let report = lanewise::vectorize_module(module, &options);
        match report {
            Ok(report) => {
                for skipped in &report.skipped {
                    let _ = writeln!(log, "lanewise: kept scalar: {skipped}");
                }
            }
            Err(error) => {
                let _ = writeln!(log, "lanewise: kernels kept scalar: {error}");
            }
        }
        for kernel in &mut kernels {
            let implementation = format!("{KERNEL_PREFIX}{}", kernel.name);
            let params = kernel.params.len();
            let built = |name: fn(&str, usize, Isa, u32) -> String| -> Vec<u32> {
                widths
                    .iter()
                    .filter(|&&(isa, width)| {
                        module.defines_function(&name(&implementation, params, isa, width))
                    })
                    .map(|&(_, width)| width)
                    .collect()
            };
            kernel.widths = built(variant_name);
            kernel.masked_widths = built(masked_variant_name);
        }
        module.write(output, OutputFormat::Bitcode)?;
        Ok(Some(kernels))
    });
    match result {
        Ok(Some(kernels)) => Ok(kernels),
        Ok(None) => Err(log.clone()),
        Err(error) => Err(format!("{log}lanewise: {error}\n")),
    }
}

/// How kernel `name`'s barriers run: as continuations when the kernel's
/// body can be put in that form (it then replaces the body), as fibers
/// otherwise (the log says why) or with `LANEWISE_OPENCL_BARRIERS=fibers`.
fn barrier_execution(
    module: &mut lanewise_llvm::LlvmModule<'_>,
    name: &str,
    log: &mut String,
) -> Barriers {
    let implementation = format!("{KERNEL_PREFIX}{name}");
    if !calls_transitively(module, &implementation, BARRIER) {
        return Barriers::None;
    }
    if std::env::var("LANEWISE_OPENCL_BARRIERS").is_ok_and(|value| value == "fibers") {
        return Barriers::Fibers;
    }
    let split = (|| {
        let lifted = module.lift(&implementation).map_err(|error| error.to_string())?;
        for inst in lifted.layout.insts() {
            let Some(callee) = lifted.dfg.callee_name(inst) else { continue };
            if callee != BARRIER
                && module.defines_function(callee)
                && calls_transitively(module, callee, BARRIER)
            {
                return Err(format!("`{callee}`, which it calls, reaches a barrier"));
            }
        }
        let form = continuations::split_at_barriers(&lifted, &module.data_layout())?;
        module.replace_function_body(&form.function).map_err(|error| error.to_string())?;
        module
            .run_function_pipeline(&implementation, CONTINUATION_CLEANUP)
            .map_err(|error| error.to_string())?;
        Ok(form.spill_bytes)
    })();
    match split {
        Ok(spill_bytes) => Barriers::Continuations { spill_bytes },
        Err(reason) => {
            let _ = writeln!(
                log,
                "lanewise: kernel `{name}`: its work-groups pass barriers as fibers: {reason}"
            );
            Barriers::Fibers
        }
    }
}

/// Turns the continuation form's stack slots back into SSA values. LLVM's
/// `instcombine` verifies by default that one run reaches its fixed point
/// and aborts the process (an LLVM ERROR) when it does not, as it did on
/// tests/barrier_shapes.c: `no-verify-fixpoint`, as the bridge's pipelines.
const CONTINUATION_CLEANUP: &str = "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg";

/// Whether `function` calls `target`, directly or through functions the
/// module defines. A function that cannot be lifted counts as calling it
/// (the answer only chooses the slower, always correct fiber execution).
fn calls_transitively(
    module: &lanewise_llvm::LlvmModule<'_>,
    function: &str,
    target: &str,
) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut pending = vec![function.to_owned()];
    while let Some(name) = pending.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let Ok(lifted) = module.lift(&name) else { return true };
        for inst in lifted.layout.insts() {
            let Some(callee) = lifted.dfg.callee_name(inst) else { continue };
            if callee == target {
                return true;
            }
            if module.defines_function(callee) {
                pending.push(callee.to_owned());
            }
        }
    }
    false
}

/// `LANEWISE_OPENCL_VECTORIZE=off` builds every kernel scalar (work-item
/// by work-item), for measuring what vectorization brings.
fn vectorization_enabled() -> bool {
    std::env::var("LANEWISE_OPENCL_VECTORIZE").map_or(true, |value| value != "off")
}

fn variant_name(function: &str, params: usize, isa: Isa, width: u32) -> String {
    format!("_ZGV{}N{width}{}_{function}", isa.letter(), "u".repeat(params))
}

/// The masked variant: the same with `M`, and a mask parameter last (an
/// `iW` bit mask for AVX-512, a `<W x i32>` vector otherwise).
fn masked_variant_name(function: &str, params: usize, isa: Isa, width: u32) -> String {
    format!("_ZGV{}M{width}{}_{function}", isa.letter(), "u".repeat(params))
}

/// Step 3: the trampolines' LLVM IR. `__lw_scalar_k(args, count)` runs
/// `count` consecutive work-items of a row; `__lw_vector<W>_k(args, count)` runs `count` consecutive SIMD
/// groups of a row, advancing the work-group record's first local id by W
/// after each (`__lw_next_simd_group`, builtins/runtime.c), so the
/// arguments are read once per row rather than once per SIMD group.
fn trampolines(kernels: &[KernelInfo], widths: &[(Isa, u32)]) -> String {
    let mut text = format!(
        "target datalayout = \"{X86_64_DATA_LAYOUT}\"\ntarget triple = \"x86_64-unknown-linux-gnu\"\n\n\
         declare void @__lw_next_simd_group(i64)\n\n"
    );
    for kernel in kernels {
        let implementation = format!("{KERNEL_PREFIX}{}", kernel.name);
        let types: Vec<String> = kernel.params.iter().map(|param| param.ty.to_string()).collect();
        let load_args = |text: &mut String| {
            let mut args = Vec::new();
            for (index, (ty, param)) in types.iter().zip(&kernel.params).enumerate() {
                let _ =
                    writeln!(text, "  %slot{index} = getelementptr ptr, ptr %args, i64 {index}");
                let _ = writeln!(text, "  %pointer{index} = load ptr, ptr %slot{index}");
                if param.by_value {
                    // The kernel (`byval`) or its variant (which copies
                    // first) takes the address of the struct's bytes.
                    args.push(format!("ptr %pointer{index}"));
                    continue;
                }
                let _ = writeln!(text, "  %arg{index} = load {ty}, ptr %pointer{index}, align 1");
                args.push(format!("{ty} %arg{index}"));
            }
            args.join(", ")
        };
        let _ = writeln!(text, "declare void @{implementation}({})", types.join(", "));
        let _ =
            writeln!(text, "define void @__lw_scalar_{}(ptr %args, i64 %count) {{", kernel.name);
        let _ = writeln!(text, "entry:");
        let args = load_args(&mut text);
        let _ = writeln!(text, "  %empty = icmp eq i64 %count, 0");
        let _ = writeln!(text, "  br i1 %empty, label %exit, label %loop");
        let _ = writeln!(text, "loop:");
        let _ = writeln!(text, "  %done = phi i64 [ 0, %entry ], [ %next, %loop ]");
        let _ = writeln!(text, "  call void @{implementation}({args})");
        let _ = writeln!(text, "  call void @__lw_next_simd_group(i64 1)");
        let _ = writeln!(text, "  %next = add i64 %done, 1");
        let _ = writeln!(text, "  %more = icmp ult i64 %next, %count");
        let _ = writeln!(text, "  br i1 %more, label %loop, label %exit");
        let _ = writeln!(text, "exit:\n  ret void\n}}\n");
        for &(isa, width) in widths {
            if !kernel.widths.contains(&width) {
                continue;
            }
            let variant = variant_name(&implementation, kernel.params.len(), isa, width);
            let _ = writeln!(text, "declare void @{variant}({})", types.join(", "));
            let _ = writeln!(
                text,
                "define void @__lw_vector{width}_{}(ptr %args, i64 %count) {{",
                kernel.name
            );
            let _ = writeln!(text, "entry:");
            let args = load_args(&mut text);
            let _ = writeln!(text, "  %empty = icmp eq i64 %count, 0");
            let _ = writeln!(text, "  br i1 %empty, label %exit, label %loop");
            let _ = writeln!(text, "loop:");
            let _ = writeln!(text, "  %done = phi i64 [ 0, %entry ], [ %next, %loop ]");
            let _ = writeln!(text, "  call void @{variant}({args})");
            let _ = writeln!(text, "  call void @__lw_next_simd_group(i64 {width})");
            let _ = writeln!(text, "  %next = add i64 %done, 1");
            let _ = writeln!(text, "  %more = icmp ult i64 %next, %count");
            let _ = writeln!(text, "  br i1 %more, label %loop, label %exit");
            let _ = writeln!(text, "exit:\n  ret void\n}}\n");
        }
        for &(isa, width) in widths {
            if !kernel.masked_widths.contains(&width) {
                continue;
            }
            let variant = masked_variant_name(&implementation, kernel.params.len(), isa, width);
            let (mask_ty, mask_code) = if isa == Isa::Avx512 {
                (
                    format!("i{width}"),
                    format!(
                        "  %bit = shl i64 1, %active\n  %bits = sub i64 %bit, 1\n  \
                         %mask = trunc i64 %bits to i{width}\n"
                    ),
                )
            } else {
                let lanes: Vec<String> = (0..width).map(|lane| format!("i64 {lane}")).collect();
                (
                    format!("<{width} x i32>"),
                    format!(
                        "  %one = insertelement <{width} x i64> poison, i64 %active, i64 0\n  \
                         %splat = shufflevector <{width} x i64> %one, <{width} x i64> poison, \
                         <{width} x i32> zeroinitializer\n  \
                         %on = icmp ult <{width} x i64> <{}>, %splat\n  \
                         %mask = sext <{width} x i1> %on to <{width} x i32>\n",
                        lanes.join(", ")
                    ),
                )
            };
            let mut params = types.clone();
            params.push(mask_ty.clone());
            let _ = writeln!(text, "declare void @{variant}({})", params.join(", "));
            let _ = writeln!(
                text,
                "define void @__lw_masked{width}_{}(ptr %args, i64 %active) {{",
                kernel.name
            );
            let args = load_args(&mut text);
            text.push_str(&mask_code);
            let separator = if args.is_empty() { "" } else { ", " };
            let _ = writeln!(text, "  call void @{variant}({args}{separator}{mask_ty} %mask)");
            let _ = writeln!(text, "  ret void\n}}\n");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names_follow_the_vector_function_abi() {
        assert_eq!(
            variant_name("__clang_ocl_kern_imp_saxpy", 3, Isa::Avx2, 8),
            "_ZGVdN8uuu___clang_ocl_kern_imp_saxpy"
        );
    }

    #[test]
    fn missing_builtins_are_named_in_the_log() {
        // 64-bit atomics (cl_khr_int64_base_atomics, which the device does
        // not offer) are not in the library.
        let source = "__kernel void k(__global float *p, __global long *q) { p[0] = sqrt(p[1]); \
                      atom_add((volatile __global long *)q, 1L); barrier(CLK_LOCAL_MEM_FENCE); }";
        let Err(log) = build(source, "") else { panic!("a kernel calling atom_add(long) builds") };
        assert!(
            log.contains("`atom_add(long volatile CLglobal*, long)` (_Z8atom_addPU8CLglobalVll)"),
            "{log}"
        );
        assert!(!log.contains("sqrt") && !log.contains("barrier"), "both are provided: {log}");
    }

    #[test]
    fn the_build_log_holds_clangs_diagnostics() {
        let Err(log) = build("__kernel void k(__global int *p) { p[0] = undeclared; }", "") else {
            panic!("an undeclared identifier builds");
        };
        assert!(log.contains("undeclared"), "{log}");
    }

    #[test]
    fn divergent_and_multidimensional_kernels_are_vectorized() {
        let source = "__kernel void collatz(__global int *steps, int base) { \
                      int v = base + (int)get_global_id(0), s = 0; \
                      while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; s++; } \
                      steps[get_global_id(0)] = s; } \
                      __kernel void grid(__global int *out) { \
                      out[get_global_id(1) * get_global_size(0) + get_global_id(0)] = 1; }";
        let built = build(source, "").unwrap_or_else(|log| panic!("{log}"));
        assert_eq!(built.kernels.len(), 2);
        assert!(built.kernels.iter().all(|kernel| !kernel.widths.is_empty()), "{}", built.log);
        assert!(built.kernels.iter().all(|kernel| kernel.barriers == Barriers::None));
        remove_work_directory(&built.library);
    }

    #[test]
    fn kernels_with_barriers_run_as_continuations_unless_a_helper_has_one() {
        let source = "void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); } \
                      __attribute__((noinline)) void helper(__local int *t) { t[0] = 1; sync(); } \
                      __kernel void direct(__global int *p, __local int *t) { \
                      t[get_local_id(0)] = p[0]; barrier(CLK_LOCAL_MEM_FENCE); p[1] = t[0]; } \
                      __kernel void indirect(__local int *t) { helper(t); } \
                      __kernel void none(__global int *p) { p[get_global_id(0)] = 1; }";
        let built = build(source, "").unwrap_or_else(|log| panic!("{log}"));
        let barriers = |name: &str| built.kernels.iter().find(|k| k.name == name).unwrap().barriers;
        // `direct` keeps nothing but its local id across the barrier, which
        // it computes again: no spill area.
        assert_eq!(barriers("direct"), Barriers::Continuations { spill_bytes: 0 }, "{}", built.log);
        assert_eq!(barriers("indirect"), Barriers::Fibers);
        assert!(built.log.contains("kernel `indirect`: its work-groups pass barriers as fibers"));
        assert_eq!(barriers("none"), Barriers::None);
        remove_work_directory(&built.library);
    }

    #[test]
    fn a_kernel_builds_vectorized_with_build_options() {
        let source = "__kernel void scale(__global float *p, float s) { \
                      p[get_global_id(0)] *= s * FACTOR; }";
        let built = build(source, "-D FACTOR=2.0f").unwrap_or_else(|log| panic!("{log}"));
        assert_eq!(built.kernels.len(), 1, "{}", built.log);
        assert_eq!(built.kernels[0].name, "scale");
        assert_eq!(built.kernels[0].widths.len(), 2, "{}", built.log);
        assert!(built.library.exists());
        remove_work_directory(&built.library);
    }
}
