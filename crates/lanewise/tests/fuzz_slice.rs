//! A fixed slice of the C-level differential fuzzer (crates/fuzz, issue
//! 14): seeds [`SEEDS`] built by `lanewise cc -O2 -fopenmp-simd
//! -ffp-contract=off -march=M` for every M of
//! `lanewise_fuzz::oracle::DEFAULT_MARCHES`, compared byte for byte with
//! clang-22's scalar build, on two worker threads.
//!
//! Failures of open bugs are listed in [`KNOWN_FAILURES`] with their bug
//! class: printed as "known failure", they do not fail the test. Any other
//! failure does, with its reproducer reduced and printed; so does a known
//! failure that passes (the bug is fixed: remove it from the list), so the
//! list stays honest.

use lanewise_fuzz::campaign::{run_campaign, CampaignConfig, SeedReport, Summary};
use lanewise_fuzz::oracle::{OracleConfig, DEFAULT_MARCHES};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

const SEEDS: std::ops::Range<u64> = 0..24;

/// (seed, -march, why): failures of open Lanewise bugs, to be removed
/// when the bug is fixed.
const KNOWN_FAILURES: &[(u64, &str, &str)] = &[];

fn is_known(seed: u64, march: &str) -> bool {
    KNOWN_FAILURES
        .iter()
        .any(|&(known_seed, known_march, _)| known_seed == seed && known_march == march)
}

#[test]
fn fuzz_slice_matches_clang() {
    let oracle = OracleConfig::new(env!("CARGO_BIN_EXE_lanewise").into());
    // Only the first new failure is reduced (the others are printed as
    // they are): a reduction takes minutes.
    let reducing = AtomicBool::new(false);
    let should_reduce =
        |seed: u64, march: &str| !is_known(seed, march) && !reducing.swap(true, Ordering::SeqCst);
    let work_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-slice");
    let _ = std::fs::remove_dir_all(&work_dir);
    let config = CampaignConfig {
        seeds: SEEDS,
        marches: DEFAULT_MARCHES.iter().map(|march| march.to_string()).collect(),
        jobs: 2,
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
            failing.insert((report.seed, march.clone()));
            if let Some(&(_, _, why)) = KNOWN_FAILURES
                .iter()
                .find(|&&(seed, known, _)| seed == report.seed && known == march)
            {
                println!(
                    "known failure: seed {} -march={march}: {} ({why})",
                    report.seed,
                    failure.kind.label()
                );
            } else {
                problems.push(format!(
                    "NEW failure: seed {} -march={march}: {}: {}",
                    report.seed,
                    failure.kind.label(),
                    failure.detail
                ));
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
    for &(seed, march, why) in KNOWN_FAILURES {
        if !failing.contains(&(seed, march.to_owned())) {
            problems.push(format!(
                "known failure seed {seed} -march={march} ({why}) now passes: remove it from KNOWN_FAILURES"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}\n(all programs: `lanewise-fuzz --print SEED`; failures saved under {})",
        problems.join("\n\n"),
        work_dir.join("failures").display()
    );
}
