//! A fixed slice of the C-level differential fuzzer (crates/fuzz, issue
//! 14): seeds [`SEEDS`] built by `lanewise cc -O2 -fopenmp-simd
//! -ffp-contract=off -march=M` for every M of
//! `lanewise_fuzz::oracle::DEFAULT_MARCHES`, compared byte for byte with
//! clang-22's scalar build, on two worker threads, in batches of 8
//! programs per C file (a failing batch is checked program by program).
//!
//! Failures of open bugs are listed in [`KNOWN_FAILURES`] with their bug
//! class: printed as "known failure" (visible with `--nocapture`), they do
//! not fail the test. Any other failure does, printed with the first new
//! failure's reproducer reduced (at most 5 minutes); so does a known
//! failure that passes or fails differently (the bug is fixed: remove it
//! from the list), so the list stays honest. Time: about 40 s of wall time
//! on two cores. Smaller slices run with the basic-block vectorizer on and
//! at `-O3` and `-Os`.

use lanewise_fuzz::campaign::{run_campaign, CampaignConfig, SeedReport, Summary};
use lanewise_fuzz::gen::GenConfig;
use lanewise_fuzz::oracle::{FailureKind, OptLevel, OracleConfig, DEFAULT_MARCHES};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SEEDS: std::ops::Range<u64> = 0..48;

/// A failure of the slice caused by an open Lanewise bug: remove it when
/// the bug is fixed (the test fails when it passes).
struct KnownFailure {
    seed: u64,
    marches: &'static [&'static str],
    kind: FailureKind,
    class: &'static str,
}

/// Empty: the slice's failures of the first fuzzing runs (the narrowing
/// back-end crash of a `d` variant, the AVX-512 caller ABI with 256-bit
/// tuning, private arrays hoisted out of simd loops) are fixed, each with
/// its own regression test.
const KNOWN_FAILURES: &[KnownFailure] = &[];

/// The known failure of (seed, march), if any.
fn known(seed: u64, march: &str) -> Option<&'static KnownFailure> {
    KNOWN_FAILURES.iter().find(|known| known.seed == seed && known.marches.contains(&march))
}

#[test]
fn fuzz_slice_matches_clang() {
    let oracle = OracleConfig::new(env!("CARGO_BIN_EXE_lanewise").into());
    // Only the first new failure is reduced (the others are printed as
    // they are): a reduction takes minutes.
    let reducing = AtomicBool::new(false);
    let should_reduce = |seed: u64, march: &str| {
        known(seed, march).is_none() && !reducing.swap(true, Ordering::SeqCst)
    };
    let work_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-slice");
    let _ = std::fs::remove_dir_all(&work_dir);
    let config = CampaignConfig {
        seeds: SEEDS,
        generator: GenConfig::default(),
        marches: DEFAULT_MARCHES.iter().map(|march| march.to_string()).collect(),
        jobs: 2,
        batch: 8,
        oracle,
        work_dir: work_dir.clone(),
        out_dir: Some(work_dir.join("failures")),
        should_reduce: &should_reduce,
        reduce_checks: 400,
        reduce_time: Duration::from_secs(300),
    };
    let start = Instant::now();
    let mut summary = Summary::default();
    let reports: Vec<SeedReport> = run_campaign(&config, &mut |report| summary.add(report));
    summary.elapsed = start.elapsed();
    println!("fuzz slice: {}", summary.line());

    let mut problems = Vec::new();
    let mut failing = BTreeSet::new();
    for report in &reports {
        if let Some(error) = &report.reference_error {
            problems.push(format!(
                "seed {}: the scalar reference failed (a generator bug): {error}\n{}",
                report.seed, report.source
            ));
        }
        for (march, failure) in &report.failures {
            if known(report.seed, march).is_some_and(|known| known.kind == failure.kind) {
                failing.insert((report.seed, march.clone()));
            }
            match known(report.seed, march) {
                Some(known) if known.kind == failure.kind => println!(
                    "known failure: seed {} -march={march}: {}: {} ({})",
                    report.seed,
                    failure.kind.label(),
                    failure.detail,
                    known.class
                ),
                _ => {
                    problems.push(format!(
                        "NEW failure: seed {} -march={march}: {}: {}",
                        report.seed,
                        failure.kind.label(),
                        failure.detail
                    ));
                }
            }
        }
        if let Some((march, source, failure)) = &report.reduced {
            problems.push(format!(
                "reduced reproducer of seed {} (-march={march}, {}: {}):\n{source}",
                report.seed,
                failure.kind.label(),
                failure.detail
            ));
        }
    }
    for known in KNOWN_FAILURES {
        for march in known.marches {
            if !failing.contains(&(known.seed, march.to_string())) {
                problems.push(format!(
                    "known failure seed {} -march={march} ({}) now passes: remove it from KNOWN_FAILURES",
                    known.seed, known.class
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n(all programs: `lanewise-fuzz --print SEED`; failures saved under {})",
        problems.join("\n\n"),
        work_dir.join("failures").display()
    );
}

/// A slice of the fuzzer with Lanewise's basic-block (SLP) vectorizer on
/// every function (`LANEWISE_SLP=lanewise`, the fuzzer's `--env`), at two
/// targets: seeds from the SLP campaign's range, every failure a failure.
#[test]
fn fuzz_slice_with_basic_block_vectorization_matches_clang() {
    let mut oracle = OracleConfig::new(env!("CARGO_BIN_EXE_lanewise").into());
    oracle.lanewise_env.push(("LANEWISE_SLP".to_owned(), "lanewise".to_owned()));
    check_small_slice("with SLP", "fuzz-slice-slp", oracle, 500_000..500_024);
}

/// Slices of the fuzzer whose vectorized builds run clang's pipeline at
/// `-O3` and at `-Os` (the fuzzer's `--opt-level`): the IR Lanewise sees
/// differs from -O2's (unrolled and unswitched loops at -O3, less
/// simplified loops at -Os), as it does in users' builds. Seeds from the
/// -O3 campaign's range, at two targets, every failure a failure.
#[test]
fn fuzz_slices_at_other_optimization_levels_match_clang() {
    for (level, name, seeds) in [
        (OptLevel::O3, "fuzz-slice-o3", 250_000..250_016),
        (OptLevel::Os, "fuzz-slice-os", 260_000..260_016),
    ] {
        let mut oracle = OracleConfig::new(env!("CARGO_BIN_EXE_lanewise").into());
        oracle.opt_level = level;
        check_small_slice(level.flag(), name, oracle, seeds);
    }
}

/// Runs `seeds` on the first and the last of the default -march values
/// with `oracle` (two workers, batches of 8, no reduction) and fails on any
/// failure or reference error.
fn check_small_slice(
    label: &str,
    work_dir_name: &str,
    oracle: OracleConfig,
    seeds: std::ops::Range<u64>,
) {
    let work_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(work_dir_name);
    let _ = std::fs::remove_dir_all(&work_dir);
    let marches = [DEFAULT_MARCHES[0], DEFAULT_MARCHES[DEFAULT_MARCHES.len() - 1]];
    let seed_count = seeds.end - seeds.start;
    let config = CampaignConfig {
        seeds,
        generator: GenConfig::default(),
        marches: marches.iter().map(|march| march.to_string()).collect(),
        jobs: 2,
        batch: 8,
        oracle,
        work_dir: work_dir.clone(),
        out_dir: Some(work_dir.join("failures")),
        should_reduce: &|_, _| false,
        reduce_checks: 0,
        reduce_time: Duration::from_secs(0),
    };
    let start = Instant::now();
    let mut summary = Summary::default();
    let reports: Vec<SeedReport> = run_campaign(&config, &mut |report| summary.add(report));
    summary.elapsed = start.elapsed();
    println!("fuzz slice {label}: {}", summary.line());
    let problems: Vec<String> = reports
        .iter()
        .flat_map(|report| {
            let reference = report.reference_error.iter().map(move |error| {
                format!("seed {}: the scalar reference failed: {error}", report.seed)
            });
            let failures = report.failures.iter().map(move |(march, failure)| {
                format!(
                    "seed {} -march={march} ({label}): {}: {}",
                    report.seed,
                    failure.kind.label(),
                    failure.detail
                )
            });
            reference.chain(failures)
        })
        .collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(reports.len() as u64, seed_count, "every seed ran");
}
