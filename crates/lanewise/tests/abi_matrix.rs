//! The x86 Vector Function ABI across the whole x86 matrix (issue 14,
//! class 2): `omp simd` loops (tests/abi_matrix/main.c) call the
//! `declare simd` functions of tests/abi_matrix/kernels.h, at 16 lanes (the
//! 512-bit `e` variants on AVX-512), at the loop's own width (in parts), a
//! masked variant, an 8-lane `double` one; the 16-lane variants of `kc`
//! (128-bit vectors, chain.c) call `kf`'s (512-bit on AVX-512), and `kw`
//! has the pragma only on its declaration, so `lanewise cc` gives its
//! callers weak fallback variants; `kn` and a loop body hold divergent loops
//! over 1024-bit values, which narrowing compacts with zmm compresses on
//! AVX-512 (issue 14, class 10: the code generator must accept them); a loop without the pragma over bytes
//! (plain_loop.c) calls `kg`'s 16-lane variants through clang's own loop
//! vectorizer, which Lanewise tells about them.
//!
//! For every `-march` of x86-64-v2, x86-64-v3, x86-64-v4, skylake-avx512 and
//! znver4, with the CPU's own tuning and with `-mprefer-vector-width=512`,
//! the callees (kernels.c, chain.c) and the callers (main.c, fallback.c,
//! plain_loop.c) are built by `lanewise cc` and by `gcc -fopenmp-simd`
//! (GCC's simd clones follow the same ABI; GCC 12 does not know znver4,
//! which is znver3 with AVX-512 there), the four pairs are linked and run,
//! and their output must equal that of a scalar clang-22 build bit for bit. The Intel AVX-512
//! tunings (and x86-64-v4) prefer 256-bit vectors, and LLVM then passes a
//! 512-bit vector in two ymm registers unless the function's
//! `min-legal-vector-width` is at least 512: the case that failed.
//!
//! The AVX-512 `-march`s need an AVX-512 host to run (they are skipped, with
//! a note, on others). `LANEWISE_CORPUS_BINARY` names another lanewise
//! binary to test (as for tests/corpus.rs and tests/programs.rs).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const MARCHES: &[&str] = &["x86-64-v2", "x86-64-v3", "x86-64-v4", "skylake-avx512", "znver4"];
const AVX512_MARCHES: &[&str] = &["x86-64-v4", "skylake-avx512", "znver4"];
const FLAGS: &[&str] = &["-O2", "-fopenmp-simd", "-ffp-contract=off"];
const CALLEES: &[&str] = &["kernels", "chain"];
const CALLERS: &[&str] = &["main", "fallback", "plain_loop"];
/// The `e` variants that lanewise-built callers must call on AVX-512 (so
/// that the matrix tests what it means to), per source.
const LANEWISE_E_CALLS: &[(&str, &[&str])] = &[
    (
        "main",
        &[
            "_ZGVeN16vu_kf",
            "_ZGVeN16v_ki",
            "_ZGVeM16v_km",
            "_ZGVeN8vv_kd",
            "_ZGVeN16v_kc",
            "_ZGVeN16v_kw",
            "_ZGVeN32v_kn",
        ],
    ),
    // chain.c calls none of kc's variants itself, but kf has no masked
    // variant for a shared (masked) body of kc to call: kc's variants get
    // bodies of their own under `--variants shared`, the default.
    ("chain", &["_ZGVeN16vu_kf"]),
    ("plain_loop", &["_ZGVeN16v_kg"]),
];
/// The `e` variants that GCC-built callers call on AVX-512 (GCC 12 leaves
/// the loops with masked calls, `kc` and `kw` scalar).
const GCC_E_CALLS: &[&str] = &["_ZGVeN16vu_kf", "_ZGVeN16v_ki", "_ZGVeN8vv_kd"];

fn lanewise_binary() -> String {
    std::env::var("LANEWISE_CORPUS_BINARY")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_lanewise").to_owned())
}

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/abi_matrix")
}

fn run(command: &mut Command) -> Result<Output, String> {
    let description = format!("{command:?}");
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|error| format!("cannot run {description}: {error}"))?;
    if output.status.success() {
        Ok(output)
    } else {
        Err(format!(
            "{description} failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn host_has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512cd")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
}

/// GCC's flags for `march`: GCC 12 has no znver4.
fn gcc_march(march: &str) -> Vec<String> {
    let known = || {
        Command::new("gcc")
            .args([&format!("-march={march}"), "-E", "-x", "c", "/dev/null", "-o", "/dev/null"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success())
    };
    if march != "znver4" || known() {
        return vec![format!("-march={march}")];
    }
    ["-march=znver3", "-mavx512f", "-mavx512vl", "-mavx512bw", "-mavx512dq", "-mavx512cd"]
        .iter()
        .map(|flag| flag.to_string())
        .collect()
}

/// The symbols of `object`'s relocations (the functions it calls).
fn relocated_symbols(object: &Path) -> Result<String, String> {
    let output = run(Command::new("readelf").args(["-rW"]).arg(object))?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Builds and runs the four caller x callee pairs of one configuration;
/// returns one line per pair, or the first failure.
fn check_configuration(
    march: &str,
    prefer_512: bool,
    scratch: &Path,
    expected: &str,
) -> Result<Vec<String>, String> {
    let name = format!("{march}{}", if prefer_512 { "-prefer512" } else { "" });
    let directory = scratch.join(&name);
    std::fs::create_dir_all(&directory).map_err(|error| error.to_string())?;
    let prefer: &[&str] = if prefer_512 { &["-mprefer-vector-width=512"] } else { &[] };
    let object = |compiler: &str, source: &str| directory.join(format!("{compiler}_{source}.o"));
    for source in CALLEES.iter().chain(CALLERS) {
        let input = sources().join(format!("{source}.c"));
        run(Command::new(lanewise_binary())
            .arg("cc")
            .args(FLAGS)
            .arg(format!("-march={march}"))
            .args(prefer)
            .arg("-c")
            .arg(&input)
            .arg("-o")
            .arg(object("lanewise", source)))?;
        run(Command::new("gcc")
            .args(FLAGS)
            .args(gcc_march(march))
            .args(prefer)
            .arg("-c")
            .arg(&input)
            .arg("-o")
            .arg(object("gcc", source)))?;
    }
    if AVX512_MARCHES.contains(&march) {
        for (source, variants) in LANEWISE_E_CALLS {
            let symbols = relocated_symbols(&object("lanewise", source))?;
            for variant in *variants {
                if !symbols.contains(variant) {
                    return Err(format!("{name}: lanewise's {source}.o does not call {variant}"));
                }
            }
        }
        let symbols = relocated_symbols(&object("gcc", "main"))?;
        for variant in GCC_E_CALLS {
            if !symbols.contains(variant) {
                return Err(format!("{name}: GCC's main.o does not call {variant}"));
            }
        }
    }
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    for callee in ["lanewise", "gcc"] {
        for caller in ["lanewise", "gcc"] {
            let executable = directory.join(format!("callee_{callee}_caller_{caller}"));
            run(Command::new("clang-22")
                .args(CALLEES.iter().map(|source| object(callee, source)))
                .args(CALLERS.iter().map(|source| object(caller, source)))
                .arg("-o")
                .arg(&executable))?;
            let output = run(&mut Command::new(&executable))?;
            let actual = String::from_utf8_lossy(&output.stdout);
            if actual == expected {
                lines.push(format!("{name}: callees {callee}, callers {caller}: ok"));
            } else {
                failures.push(format!(
                    "{name}, callees built by {callee}, callers by {caller}: output differs \
                     from the scalar build\nexpected:\n{expected}actual:\n{actual}"
                ));
            }
        }
    }
    if failures.is_empty() {
        Ok(lines)
    } else {
        Err(failures.join("\n"))
    }
}

#[test]
fn x86_matrix_of_callers_and_callees_agrees_with_scalar() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("abi_matrix");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let reference = scratch.join("reference");
    let all_sources: Vec<PathBuf> =
        CALLEES.iter().chain(CALLERS).map(|source| sources().join(format!("{source}.c"))).collect();
    run(Command::new("clang-22")
        .args(["-O2", "-ffp-contract=off"])
        .args(&all_sources)
        .arg("-o")
        .arg(&reference))
    .unwrap_or_else(|error| panic!("{error}"));
    let expected = run(&mut Command::new(&reference)).unwrap_or_else(|error| panic!("{error}"));
    let expected = String::from_utf8_lossy(&expected.stdout).into_owned();

    let avx512 = host_has_avx512();
    let configurations: Vec<(&str, bool)> = MARCHES
        .iter()
        .filter(|march| avx512 || !AVX512_MARCHES.contains(march))
        .flat_map(|march| [(*march, false), (*march, true)])
        .collect();
    if !avx512 {
        println!("note: no AVX-512 on this host: {AVX512_MARCHES:?} not run");
    }
    // Two workers: the machine is shared.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<Result<Vec<String>, String>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    let mut results = Vec::new();
                    loop {
                        let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some((march, prefer_512)) = configurations.get(index) else { break };
                        results.push(check_configuration(march, *prefer_512, &scratch, &expected));
                    }
                    results
                })
            })
            .collect();
        workers.into_iter().flat_map(|worker| worker.join().unwrap()).collect()
    });
    let mut failures = Vec::new();
    for result in results {
        match result {
            Ok(lines) => lines.iter().for_each(|line| println!("{line}")),
            Err(failure) => failures.push(failure),
        }
    }
    assert!(failures.is_empty(), "configurations failed:\n{}", failures.join("\n"));
}
