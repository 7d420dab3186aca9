//! `lanewise-fuzz`: the differential fuzzer's command line.
//!
//! ```sh
//! lanewise-fuzz --count 500 --seed 1000 --jobs 2 --out fuzz-out --reduce
//! lanewise-fuzz --print 1042            # the C program of seed 1042
//! ```

use clap::Parser;
use lanewise_fuzz::batch::print_batch;
use lanewise_fuzz::campaign::{run_campaign, CampaignConfig, Summary};
use lanewise_fuzz::gen::{generate_with, GenConfig};
use lanewise_fuzz::oracle::{check_program, OptLevel, OracleConfig, DEFAULT_MARCHES};
use lanewise_fuzz::print_program;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(
    name = "lanewise-fuzz",
    about = "Differential fuzzer: random declare-simd / omp simd C programs, lanewise cc against clang's scalar build"
)]
struct Cli {
    /// Programs to run (seeds SEED..SEED+COUNT).
    #[arg(long, default_value_t = 100)]
    count: u64,
    /// The first seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Comma-separated -march values of the lanewise builds.
    #[arg(long, value_delimiter = ',', default_values_t = DEFAULT_MARCHES.map(String::from))]
    march: Vec<String>,
    /// Worker threads (each builds and runs one batch at a time).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Programs per C file: a batch pays clang's and the linker's fixed
    /// costs once; a failing batch is checked again program by program.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=64))]
    batch: u64,
    /// The lanewise binary (default: the one next to this binary, else `lanewise` on PATH).
    #[arg(long)]
    lanewise: Option<PathBuf>,
    /// Build the vectorized programs with stock clang and this pass plugin
    /// (liblanewise_plugin.so) instead of `lanewise cc`, and with the
    /// frontend plugin liblanewise_frontend.so when it sits next to it.
    #[arg(long, value_name = "PLUGIN")]
    plugin: Option<PathBuf>,
    /// The optimization level of the vectorized builds (the scalar
    /// reference is built at -O2).
    #[arg(long, value_enum, default_value = "O2")]
    opt_level: OptLevel,
    /// Build the vectorized programs with `-g` (debug information through
    /// Lanewise's lifting and lowering).
    #[arg(long)]
    debug_info: bool,
    /// Compile the programs as C++ (`clang++-22 -x c++`, `lanewise c++ -x
    /// c++`): mangled names in the `_ZGV` variants.
    #[arg(long)]
    cxx: bool,
    /// Where failing programs, notes and reduced reproducers are saved.
    #[arg(long, default_value = "fuzz-out")]
    out: PathBuf,
    /// Reduce each failing program (on its first failing -march).
    #[arg(long)]
    reduce: bool,
    /// Seconds one reduction may take.
    #[arg(long, default_value_t = 600)]
    reduce_time: u64,
    /// Seconds one program may run.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// Extra environment for the lanewise builds (e.g. LANEWISE_NARROW_LOOPS=off); repeatable.
    #[arg(long = "env", value_name = "KEY=VALUE")]
    env: Vec<String>,
    /// Generate no private arrays (to look past a bug they trigger).
    #[arg(long)]
    no_private_arrays: bool,
    /// Generate no rv_any/rv_all guards.
    #[arg(long)]
    no_rv: bool,
    /// Generate no `reduction(inscan, ...)` loops with `#pragma omp scan`.
    #[arg(long)]
    no_scans: bool,
    /// Generate no `__atomic_fetch_*` statements.
    #[arg(long)]
    no_atomics: bool,
    /// Generate no divisions through trapping helpers.
    #[arg(long)]
    no_guarded_divisions: bool,
    /// Generate no `long`, `short` and `unsigned char` values.
    #[arg(long)]
    no_mixed_widths: bool,
    /// Generate no `linear(j:step)` variables in omp simd loops.
    #[arg(long)]
    no_linear_vars: bool,
    /// Generate no private arrays of structs.
    #[arg(long)]
    no_record_arrays: bool,
    /// Generate no `while` loops entered in the middle (irreducible control flow).
    #[arg(long)]
    no_midway_entries: bool,
    /// Generate no variables assigned and read under one condition.
    #[arg(long)]
    no_cond_inits: bool,
    /// Generate no four-lane vector code (GCC vector extensions).
    #[arg(long)]
    no_short_vectors: bool,
    /// Generate no `lastprivate(conditional:)` variables.
    #[arg(long)]
    no_cond_lastprivates: bool,
    /// Generate no `safelen(k)` loops reading their own earlier output.
    #[arg(long)]
    no_carried_reads: bool,
    /// Generate no `omp simd` loops that count down or step by two.
    #[arg(long)]
    no_loop_directions: bool,
    /// Generate no `omp ordered simd` regions in `omp simd` loops.
    #[arg(long)]
    no_ordered_regions: bool,
    /// Generate no inline assembly (empty `asm volatile` hiding a value).
    #[arg(long)]
    no_inline_asm: bool,
    /// Generate no `reduction(&&: r)` or `reduction(||: r)`.
    #[arg(long)]
    no_logical_reductions: bool,
    /// Generate no declare-simd functions with a struct parameter passed by value.
    #[arg(long)]
    no_record_params: bool,
    /// Generate no `static` declare-simd functions.
    #[arg(long)]
    no_static_functions: bool,
    /// Mark no declare-simd function lanes-independent.
    #[arg(long)]
    no_lanes_independent: bool,
    /// Print the C program of this seed and exit.
    #[arg(long, value_name = "SEED")]
    print: Option<u64>,
    /// Print the C file of the batch of `--batch` programs from this seed and exit.
    #[arg(long, value_name = "SEED")]
    print_batch: Option<u64>,
    /// Check this C file (a saved reproducer) on the -march list and exit.
    #[arg(long, value_name = "FILE")]
    check: Option<PathBuf>,
}

fn default_lanewise() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("lanewise")))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("lanewise"))
}

/// `--check FILE`: one line per -march.
fn check_file(file: &Path, marches: &[String], oracle: &OracleConfig, work_dir: &Path) -> ExitCode {
    let source = match std::fs::read_to_string(file) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("lanewise-fuzz: {}: {error}", file.display());
            return ExitCode::from(2);
        }
    };
    let outcome = check_program(work_dir, &source, marches, oracle);
    let _ = std::fs::remove_dir_all(work_dir);
    if let Err(error) = outcome.reference {
        println!("{}: reference failed: {}", file.display(), error.0);
        return ExitCode::from(2);
    }
    let mut failed = false;
    for (march, result) in &outcome.results {
        match result {
            Ok(()) => println!("{} -march={march}: ok", file.display()),
            Err(failure) => {
                failed = true;
                println!(
                    "{} -march={march}: {}: {}",
                    file.display(),
                    failure.kind.label(),
                    failure.detail
                )
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let generator = GenConfig {
        private_arrays: !cli.no_private_arrays,
        rv_guards: !cli.no_rv,
        scans: !cli.no_scans,
        atomics: !cli.no_atomics,
        guarded_divisions: !cli.no_guarded_divisions,
        mixed_widths: !cli.no_mixed_widths,
        linear_vars: !cli.no_linear_vars,
        record_arrays: !cli.no_record_arrays,
        midway_entries: !cli.no_midway_entries,
        cond_inits: !cli.no_cond_inits,
        short_vectors: !cli.no_short_vectors,
        cond_lastprivates: !cli.no_cond_lastprivates,
        carried_reads: !cli.no_carried_reads,
        loop_directions: !cli.no_loop_directions,
        ordered_regions: !cli.no_ordered_regions,
        inline_asm: !cli.no_inline_asm,
        logical_reductions: !cli.no_logical_reductions,
        record_params: !cli.no_record_params,
        static_functions: !cli.no_static_functions,
        lanes_independent: !cli.no_lanes_independent,
        ..GenConfig::default()
    };
    if let Some(seed) = cli.print {
        print!("{}", print_program(&generate_with(seed, &generator)));
        return ExitCode::SUCCESS;
    }
    if let Some(first) = cli.print_batch {
        let programs: Vec<_> =
            (first..first + cli.batch).map(|seed| generate_with(seed, &generator)).collect();
        print!("{}", print_batch(&programs));
        return ExitCode::SUCCESS;
    }
    let mut oracle = OracleConfig::new(cli.lanewise.clone().unwrap_or_else(default_lanewise));
    oracle.run_timeout = Duration::from_secs(cli.timeout);
    oracle.plugin = cli.plugin.clone();
    oracle.opt_level = cli.opt_level;
    oracle.debug_info = cli.debug_info;
    oracle.cxx = cli.cxx;
    for pair in &cli.env {
        let Some((key, value)) = pair.split_once('=') else {
            eprintln!("lanewise-fuzz: --env {pair}: expected KEY=VALUE");
            return ExitCode::from(2);
        };
        oracle.lanewise_env.push((key.to_owned(), value.to_owned()));
    }
    let work_dir = std::env::temp_dir().join(format!("lanewise-fuzz-{}", std::process::id()));
    if let Some(file) = &cli.check {
        return check_file(file, &cli.march, &oracle, &work_dir);
    }
    let reduce = cli.reduce;
    let should_reduce = move |_: u64, _: &str| reduce;
    let config = CampaignConfig {
        seeds: cli.seed..cli.seed + cli.count,
        generator,
        marches: cli.march.clone(),
        jobs: cli.jobs,
        batch: cli.batch as usize,
        oracle,
        work_dir: work_dir.clone(),
        out_dir: Some(cli.out.clone()),
        should_reduce: &should_reduce,
        reduce_checks: 5000,
        reduce_time: Duration::from_secs(cli.reduce_time),
    };
    let builder = match &config.oracle.plugin {
        Some(plugin) => format!("clang with the plugin {}", plugin.display()),
        None => format!(
            "lanewise {} of {}",
            if cli.cxx { "c++" } else { "cc" },
            config.oracle.lanewise.display()
        ),
    };
    let debug_info = if cli.debug_info { " -g" } else { "" };
    let language = if cli.cxx { " -x c++" } else { "" };
    eprintln!(
        "lanewise-fuzz: seeds {}..{}, -march {}, {}{debug_info}{language}, {} jobs, batches of {}, {builder}",
        cli.seed,
        cli.seed + cli.count,
        cli.march.join(","),
        cli.opt_level.flag(),
        cli.jobs,
        cli.batch,
    );
    let start = Instant::now();
    let mut summary = Summary::default();
    run_campaign(&config, &mut |report| {
        summary.add(report);
        summary.elapsed = start.elapsed();
        let mut status = String::from("ok");
        if let Some(error) = &report.reference_error {
            status = format!("GENERATOR BUG (reference failed): {error}");
        } else if !report.failures.is_empty() {
            let failing: Vec<String> = report
                .failures
                .iter()
                .map(|(march, failure)| format!("{march}: {}", failure.kind.label()))
                .collect();
            status = format!("FAIL [{}] {}", failing.join(", "), report.failures[0].1.detail);
        }
        println!(
            "[{}/{}] seed {} ({} kernels): {status}   ({:.2} kernels/s)",
            summary.programs,
            cli.count,
            report.seed,
            report.kernels,
            summary.kernels as f64 / summary.elapsed.as_secs_f64().max(1e-9)
        );
        if let Some((march, source, failure)) = &report.reduced {
            println!(
                "reduced seed {} on -march={march} ({}: {}):\n{source}",
                report.seed,
                failure.kind.label(),
                failure.detail
            );
        }
    });
    let _ = std::fs::remove_dir_all(&work_dir);
    summary.elapsed = start.elapsed();
    println!("summary: {}", summary.line());
    if summary.failures() > 0 {
        println!("failing programs saved under {}", cli.out.display());
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
