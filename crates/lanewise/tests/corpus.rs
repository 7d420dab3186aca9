//! Differential tests of the C kernel corpus (tests/corpus/*.c, conventions in
//! tests/corpus/README.md): each kernel is compiled by clang-22 with
//! `-fopenmp-simd`, vectorized by the `lanewise` binary, and every vector
//! variant it defines is run against the scalar function lane by lane on many
//! random inputs, by a generated C driver. Two more tests keep the harness
//! honest and the ABI compatible: the same drivers against GCC's own simd
//! clones, and GCC-compiled callers of lanewise's variants.

mod support;

use std::fmt::Write as _;

use support::pipeline::{
    discover_kernels, run_gcc_clone_case, run_in_parallel, run_lanewise_case, CaseReport, Kernel,
    LanewiseCase,
};

/// Every kernel runs at each of these clang optimization levels.
const OPTIMIZATION_LEVELS: &[&str] = &["-O0", "-O1", "-O2", "-O3"];

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

#[test]
fn corpus_has_enough_kernels() {
    let kernels = discover_kernels();
    assert!(kernels.len() >= 28, "tests/corpus has only {} kernels", kernels.len());
    for kernel in &kernels {
        let source = std::fs::read_to_string(&kernel.path).unwrap();
        assert!(
            source.starts_with("//") || source.starts_with("/*"),
            "{} must start with a comment saying what it covers",
            kernel.name
        );
        assert!(source.contains("declare simd"), "{} declares no simd function", kernel.name);
    }
}

#[test]
fn every_kernel_agrees_with_its_scalar_function_lane_by_lane() {
    let kernels = discover_kernels();
    let cases: Vec<(Kernel, &str)> = kernels
        .iter()
        .flat_map(|kernel| OPTIMIZATION_LEVELS.iter().map(move |level| (kernel.clone(), *level)))
        .collect();
    let reports = run_in_parallel(&cases, |(kernel, optimization)| {
        run_lanewise_case(&LanewiseCase { kernel, optimization, gcc_caller: false })
    });
    let failures = summarize("lanewise corpus", &reports);
    let untested: Vec<&str> = reports
        .iter()
        .filter(|report| report.passed.is_empty())
        .map(|report| report.label.as_str())
        .collect();
    assert!(failures.is_empty(), "corpus failures (details above):\n{failures}");
    assert!(untested.is_empty(), "cases with no variant executed: {untested:?}");
}

#[test]
fn the_harness_agrees_with_gcc_simd_clones() {
    // GCC's clones are scalar loops over the lanes but follow the vector
    // function ABI: this checks the driver generator, not lanewise.
    let kernels = discover_kernels();
    let reports = run_in_parallel(&kernels, run_gcc_clone_case);
    let failures = summarize("gcc clones", &reports);
    assert!(
        failures.is_empty(),
        "the harness disagrees with GCC's simd clones (details above):\n{failures}"
    );
    let tested = reports.iter().filter(|report| !report.passed.is_empty()).count();
    assert!(
        tested * 4 >= kernels.len() * 3,
        "only {tested} of {} kernels had GCC clones to test",
        kernels.len()
    );
}

#[test]
fn gcc_compiled_callers_agree_with_lanewise_variants() {
    let kernels: Vec<Kernel> =
        discover_kernels().into_iter().filter(|kernel| kernel.gcc_caller).collect();
    assert!(kernels.len() >= 4, "mark at least 4 kernels with `lanewise-test: gcc-caller`");
    let reports = run_in_parallel(&kernels, |kernel| {
        run_lanewise_case(&LanewiseCase { kernel, optimization: "-O2", gcc_caller: true })
    });
    let failures = summarize("gcc callers", &reports);
    let untested: Vec<&str> = reports
        .iter()
        .filter(|report| report.passed.is_empty())
        .map(|report| report.label.as_str())
        .collect();
    assert!(
        failures.is_empty(),
        "GCC-compiled callers disagree with lanewise (details above):\n{failures}"
    );
    assert!(untested.is_empty(), "cases with no variant executed: {untested:?}");
}
