//! Differential tests of the C kernel corpus (tests/corpus/*.c, conventions in
//! tests/corpus/README.md): each kernel is compiled by clang-22 with
//! `-fopenmp-simd`, vectorized by the `lanewise` binary, and every vector
//! variant it defines is run against the scalar function lane by lane on many
//! random inputs, by a generated C driver. Two more tests keep the harness
//! honest and the ABI compatible: the same drivers against GCC's own simd
//! clones, and GCC-compiled callers of lanewise's variants. One more
//! compiles every kernel for each x86 `-march` of [`X86_MARCHES`] and the
//! output with llc-22: every variant must compile on its own ISA.

mod support;

use std::fmt::Write as _;

use support::pipeline::{
    discover_kernels, run_codegen_case, run_gcc_clone_case, run_in_parallel, run_lanewise_case,
    selected_kernels, CaseReport, Kernel, LanewiseCase,
};

/// Every kernel with uniform control flow runs at each of these clang optimization levels.
const OPTIMIZATION_LEVELS: &[&str] = &["-O0", "-O1", "-O2", "-O3"];
/// The divergent kernels (`div_*`) run at these levels only, to keep the test
/// within a few minutes on two cores; `LANEWISE_CORPUS_ALL_LEVELS=1` runs them
/// at every level of [`OPTIMIZATION_LEVELS`].
const DIVERGENT_OPTIMIZATION_LEVELS: &[&str] = &["-O0", "-O2"];

fn optimization_levels_of(kernel: &Kernel) -> &'static [&'static str] {
    if kernel.name.starts_with("div_") && std::env::var("LANEWISE_CORPUS_ALL_LEVELS").is_err() {
        DIVERGENT_OPTIMIZATION_LEVELS
    } else {
        OPTIMIZATION_LEVELS
    }
}

/// Prints the summaries, saves them under the target directory, and returns the failure text.
fn summarize(title: &str, reports: &[CaseReport]) -> String {
    let mut summary = format!("{title}\n");
    for report in reports {
        writeln!(summary, "{}", report.summary_line()).unwrap();
    }
    let failures: String = reports.iter().map(CaseReport::failure_text).collect();
    let total_trials: u64 = reports.iter().map(|report| report.trials).sum();
    let total_variants: usize = reports.iter().map(|report| report.passed.len()).sum();
    let failed_cases = reports.iter().filter(|report| !report.failures.is_empty()).count();
    writeln!(
        summary,
        "{title}: {} cases, {total_variants} variant runs passed, {total_trials} trials, {failed_cases} cases failed",
        reports.len()
    )
    .unwrap();
    println!("{summary}");
    if !failures.is_empty() {
        println!("{failures}");
    }
    let file_name = title.replace(' ', "-");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("corpus")
        .join(format!("{file_name}.txt"));
    let _ = std::fs::create_dir_all(path.parent().unwrap());
    let _ = std::fs::write(&path, format!("{summary}\n{failures}"));
    failures
}

fn failure_message(title: &str, reports: &[CaseReport]) -> String {
    let failed: Vec<&str> = reports
        .iter()
        .filter(|report| !report.failures.is_empty())
        .map(|report| report.label.as_str())
        .collect();
    let file_name = title.replace(' ', "-");
    format!(
        "{} of {} cases failed (details printed above, and in {}/corpus/{file_name}.txt): {failed:?}",
        failed.len(),
        reports.len(),
        env!("CARGO_TARGET_TMPDIR")
    )
}

/// The `-march` values whose lanewise output must compile (issue 14, class
/// 10): AVX-512 with 256-bit tuning (x86-64-v4, skylake-avx512) and with
/// 512-bit tuning (znver4), AVX2, SSE4.2.
const X86_MARCHES: &[&str] = &["x86-64-v2", "x86-64-v3", "x86-64-v4", "skylake-avx512", "znver4"];

#[test]
fn corpus_has_enough_kernels() {
    let kernels = discover_kernels();
    assert!(kernels.len() >= 28, "tests/corpus has only {} kernels", kernels.len());
    let divergent = kernels.iter().filter(|kernel| kernel.name.starts_with("div_")).count();
    assert!(divergent >= 30, "tests/corpus has only {divergent} divergent (div_*) kernels");
    for kernel in &kernels {
        let source = std::fs::read_to_string(&kernel.path).unwrap();
        assert!(
            source.starts_with("//") || source.starts_with("/*"),
            "{} must start with a comment saying what it covers",
            kernel.name
        );
        // A kernel may be another one compiled differently (`#include "x.c"`).
        let included: String = source
            .lines()
            .filter_map(|line| line.strip_prefix("#include \"")?.strip_suffix(".c\""))
            .map(|name| {
                let path = kernel.path.with_file_name(format!("{name}.c"));
                std::fs::read_to_string(path).unwrap()
            })
            .collect();
        assert!(
            source.contains("declare simd") || included.contains("declare simd"),
            "{} declares no simd function",
            kernel.name
        );
    }
}

#[test]
fn every_kernel_agrees_with_its_scalar_function_lane_by_lane() {
    let kernels = selected_kernels();
    let cases: Vec<(Kernel, &str)> = kernels
        .iter()
        .flat_map(|kernel| {
            optimization_levels_of(kernel).iter().map(move |level| (kernel.clone(), *level))
        })
        .collect();
    let reports = run_in_parallel(&cases, |(kernel, optimization)| {
        run_lanewise_case(&LanewiseCase {
            kernel,
            optimization,
            gcc_caller: false,
            lanewise_flags: &[],
            clang_flags: &[],
        })
    });
    let failures = summarize("lanewise corpus", &reports);
    let untested: Vec<&str> = reports
        .iter()
        .filter(|report| report.passed.is_empty())
        .map(|report| report.label.as_str())
        .collect();
    assert!(failures.is_empty(), "{}", failure_message("lanewise corpus", &reports));
    assert!(untested.is_empty(), "cases with no variant executed: {untested:?}");
}

/// The run-time safety net's two forms, each forced, on the divergent
/// kernels at -O2 (the default, `adaptive`, runs each for 16 of its first
/// 32 calls, so the test above runs both already, and then whichever was
/// faster): per-lane calls of the scalar function, and the vector body
/// alone.
#[test]
fn divergent_kernels_agree_in_each_form_of_the_safety_net() {
    const FORMS: [&[&str]; 2] = [&["--safety-net", "per-lane"], &["--safety-net", "off"]];
    let cases: Vec<(Kernel, &[&str])> = selected_kernels()
        .into_iter()
        .filter(|kernel| kernel.name.starts_with("div_"))
        .flat_map(|kernel| FORMS.iter().map(move |flags| (kernel.clone(), *flags)))
        .collect();
    let reports = run_in_parallel(&cases, |(kernel, flags)| {
        run_lanewise_case(&LanewiseCase {
            kernel,
            optimization: "-O2",
            gcc_caller: false,
            lanewise_flags: flags,
            clang_flags: &[],
        })
    });
    let failures = summarize("safety net forms", &reports);
    assert!(failures.is_empty(), "{}", failure_message("safety net forms", &reports));
    let per_lane_nets: usize = reports
        .iter()
        .filter(|report| report.label.ends_with("per-lane"))
        .map(|report| report.safety_nets)
        .sum();
    let vector_nets: usize = reports
        .iter()
        .filter(|report| report.label.ends_with("off"))
        .map(|report| report.safety_nets)
        .sum();
    assert!(per_lane_nets >= 10, "only {per_lane_nets} variants ran per lane");
    assert_eq!(vector_nets, 0, "`--safety-net off` produced nets");
}

/// `--variants shared` (the default of `lanewise cc` and the plugin): the
/// driver, another file, calls every variant, so each is an adapter over
/// the function's shared body (the masked variant at the widest ISA the
/// kernel's target enables), and all of them must agree with the scalar
/// function as full bodies do. For the default target (SSE2) the shared
/// body is the `b` one and wider adapters call it in parts; at x86-64-v4
/// (where the host runs AVX-512) it is the `e` one and narrower adapters
/// call it padded with inactive lanes.
#[test]
fn every_kernel_agrees_through_shared_variant_adapters() {
    let mut targets: Vec<&[&str]> = vec![&[]];
    if std::arch::is_x86_feature_detected!("avx512f") {
        targets.push(&["-march=x86-64-v4"]);
    }
    let cases: Vec<(Kernel, &[&str])> = selected_kernels()
        .into_iter()
        .flat_map(|kernel| targets.iter().map(move |flags| (kernel.clone(), *flags)))
        .collect();
    let reports = run_in_parallel(&cases, |(kernel, clang_flags)| {
        run_lanewise_case(&LanewiseCase {
            kernel,
            optimization: "-O2",
            gcc_caller: false,
            lanewise_flags: &["--variants", "shared"],
            clang_flags,
        })
    });
    let failures = summarize("shared variants", &reports);
    assert!(failures.is_empty(), "{}", failure_message("shared variants", &reports));
    for flags in &targets {
        let label = flags.join(" ");
        let adapters: usize = reports
            .iter()
            .filter(|report| flags.iter().all(|flag| report.label.contains(flag)))
            .map(|report| report.adapters)
            .sum();
        assert!(adapters >= 100, "only {adapters} variants were adapters ({label})");
    }
}

/// Every kernel at -O2 for each of [`X86_MARCHES`], through lanewise and
/// `llc-22 -O1` (run_codegen_case): LLVM's code generator must accept every
/// variant (it aborted on 512-bit compresses in `b` variants and in
/// functions whose tuning prefers 256-bit vectors). Nothing runs: the
/// differential test above runs the variants.
#[test]
fn every_kernel_compiles_for_every_x86_march() {
    let cases: Vec<(Kernel, &str)> = selected_kernels()
        .into_iter()
        .flat_map(|kernel| X86_MARCHES.iter().map(move |march| (kernel.clone(), *march)))
        .collect();
    let reports = run_in_parallel(&cases, |(kernel, march)| run_codegen_case(kernel, march));
    let compiled: usize = reports.iter().map(|report| report.passed.len()).sum();
    let failures: Vec<String> = reports.iter().map(CaseReport::failure_text).collect();
    let failures = failures.concat();
    println!("codegen: {} cases, {compiled} variants compiled", reports.len());
    assert!(failures.is_empty(), "{failures}");
}

#[test]
fn the_harness_agrees_with_gcc_simd_clones() {
    // GCC's clones are scalar loops over the lanes but follow the vector
    // function ABI: this checks the driver generator, not lanewise.
    let kernels = selected_kernels();
    let reports = run_in_parallel(&kernels, run_gcc_clone_case);
    let failures = summarize("gcc clones", &reports);
    assert!(
        failures.is_empty(),
        "the harness disagrees with GCC's simd clones: {}",
        failure_message("gcc clones", &reports)
    );
    let tested = reports.iter().filter(|report| !report.passed.is_empty()).count();
    assert!(
        std::env::var("LANEWISE_CORPUS_FILTER").is_ok() || tested * 4 >= kernels.len() * 3,
        "only {tested} of {} kernels had GCC clones to test",
        kernels.len()
    );
}

#[test]
fn gcc_compiled_callers_agree_with_lanewise_variants() {
    let kernels: Vec<Kernel> =
        selected_kernels().into_iter().filter(|kernel| kernel.gcc_caller).collect();
    let filtered = std::env::var("LANEWISE_CORPUS_FILTER").is_ok();
    assert!(
        filtered || kernels.len() >= 4,
        "mark at least 4 kernels with `lanewise-test: gcc-caller`"
    );
    let reports = run_in_parallel(&kernels, |kernel| {
        run_lanewise_case(&LanewiseCase {
            kernel,
            optimization: "-O2",
            gcc_caller: true,
            lanewise_flags: &[],
            clang_flags: &[],
        })
    });
    let failures = summarize("gcc callers", &reports);
    let untested: Vec<&str> = reports
        .iter()
        .filter(|report| report.passed.is_empty())
        .map(|report| report.label.as_str())
        .collect();
    assert!(
        failures.is_empty(),
        "GCC-compiled callers disagree with lanewise: {}",
        failure_message("gcc callers", &reports)
    );
    assert!(untested.is_empty(), "cases with no variant executed: {untested:?}");
}

#[test]
fn the_harness_catches_wrong_variants() {
    use support::pipeline::{run_mutant_case, Mutant};
    let header = "typedef float v4f __attribute__((ext_vector_type(4)));\n\
                  typedef int v4i __attribute__((ext_vector_type(4)));\n\
                  void lw_record(int site, long value);\n";
    let wrong_lane = format!(
        "{header}float twice(float x) {{ return x * 2.0f; }}\n\
         v4f _ZGVbN4v_twice(v4f x) {{ v4f r = x * 2.0f; r[2] += 1.0f; return r; }}\n"
    );
    let wrong_store = format!(
        "{header}void store_twice(float *p, float v) {{ *p = v * 2.0f; }}\n\
         void _ZGVbN4l4v_store_twice(float *p, v4f v) {{ for (int i = 0; i < 4; i++) p[i] = v[i] * (i == 1 ? 3.0f : 2.0f); }}\n"
    );
    let wrong_order = format!(
        "{header}int record(int x) {{ lw_record(1, x); return x; }}\n\
         v4i _ZGVbN4v_record(v4i x) {{ for (int i = 3; i >= 0; i--) lw_record(1, x[i]); return x; }}\n"
    );
    let mutants = [
        Mutant {
            name: "wrong_lane",
            kernel: "#pragma omp declare simd notinbranch\nfloat twice(float x) { return x * 2.0f; }\n",
            implementation: &wrong_lane,
            variants: &["_ZGVbN4v_twice"],
        },
        Mutant {
            name: "wrong_store",
            kernel: "#pragma omp declare simd linear(p:1) notinbranch\nvoid store_twice(float *p, float v) { *p = v * 2.0f; }\n",
            implementation: &wrong_store,
            variants: &["_ZGVbN4l4v_store_twice"],
        },
        Mutant {
            name: "wrong_side_effect_order",
            kernel: "void lw_record(int site, long value);\n#pragma omp declare simd notinbranch\nint record(int x) { lw_record(1, x); return x; }\n",
            implementation: &wrong_order,
            variants: &["_ZGVbN4v_record"],
        },
    ];
    let expected =
        ["lane 2: return value differs", "memory of param 0 differs", "lw_record site 1"];
    for (mutant, expected) in mutants.iter().zip(expected) {
        let report = run_mutant_case(mutant);
        let text = report.failures.join("\n");
        assert!(!text.contains("SETUP"), "mutant {} could not be built: {text}", mutant.name);
        assert!(
            text.contains(expected),
            "mutant {} not caught as `{expected}`; failures: {text:?}",
            mutant.name
        );
    }
}
