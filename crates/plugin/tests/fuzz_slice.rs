//! A slice of the C-level differential fuzzer (crates/fuzz, issue 14)
//! through the pass plugin: seeds [`SEEDS`] built by stock `clang-22 -O2
//! -fopenmp-simd -ffp-contract=off -march=M -fpass-plugin=...` at three
//! targets (SSE4.2, AVX-512 with 256-bit tuning, the host), compared byte
//! for byte with clang's scalar build, in batches of 8 programs per file.
//! Every failure fails the test (failing programs are saved under the
//! test's scratch directory; `lanewise-fuzz --print SEED` prints one).

use lanewise_fuzz::campaign::{run_campaign, CampaignConfig, SeedReport, Summary};
use lanewise_fuzz::gen::GenConfig;
use lanewise_fuzz::oracle::OracleConfig;
use std::path::Path;
use std::time::Duration;

const SEEDS: std::ops::Range<u64> = 600_000..600_048;
const MARCHES: [&str; 3] = ["x86-64-v2", "x86-64-v4", "native"];

#[test]
fn fuzz_slice_through_the_plugin_matches_clang() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>/deps");
    let plugin = profile_dir.join("liblanewise_plugin.so");
    assert!(plugin.exists(), "{} is missing (cargo build -p lanewise-plugin)", plugin.display());
    let mut oracle = OracleConfig::new("lanewise".into());
    oracle.plugin = Some(plugin);
    let work_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-slice-plugin");
    let _ = std::fs::remove_dir_all(&work_dir);
    let config = CampaignConfig {
        seeds: SEEDS,
        generator: GenConfig::default(),
        marches: MARCHES.iter().map(|march| march.to_string()).collect(),
        jobs: 2,
        batch: 8,
        oracle,
        work_dir: work_dir.clone(),
        out_dir: Some(work_dir.join("failures")),
        should_reduce: &|_, _| false,
        reduce_checks: 0,
        reduce_time: Duration::from_secs(0),
    };
    let mut summary = Summary::default();
    let reports: Vec<SeedReport> = run_campaign(&config, &mut |report| summary.add(report));
    println!("fuzz slice through the plugin: {}", summary.line());
    let problems: Vec<String> = reports
        .iter()
        .flat_map(|report| {
            let reference = report.reference_error.iter().map(move |error| {
                format!("seed {}: the scalar reference failed: {error}", report.seed)
            });
            let failures = report.failures.iter().map(move |(march, failure)| {
                format!(
                    "seed {} -march={march}: {}: {}",
                    report.seed,
                    failure.kind.label(),
                    failure.detail
                )
            });
            reference.chain(failures)
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{}\n(failing programs saved under {})",
        problems.join("\n"),
        work_dir.join("failures").display()
    );
    assert_eq!(reports.len(), SEEDS.count(), "every seed ran");
    assert!(summary.kernels > 0 && summary.builds == reports.len() * MARCHES.len());
}
