//! A fuzzing campaign: seeds `S..S+N` generated, checked on every -march
//! by worker threads (a batch of programs in one file at a time, see
//! batch.rs), failures reduced (in the workers) and saved.

use crate::ast::Program;
use crate::batch::print_batch;
use crate::gen::{generate_with, GenConfig};
use crate::oracle::{check_program, fails_as, Failure, FailureKind, OptLevel, OracleConfig};
use crate::print::print_program;
use crate::reduce::{reduce, ReduceLimits};
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub struct CampaignConfig<'a> {
    pub seeds: Range<u64>,
    pub generator: GenConfig,
    pub marches: Vec<String>,
    pub jobs: usize,
    /// Programs per C file (1: each program alone). A batch that fails is
    /// checked again program by program.
    pub batch: usize,
    pub oracle: OracleConfig,
    /// Scratch space (one directory per worker).
    pub work_dir: PathBuf,
    /// Where failing programs, reduced ones and notes are saved.
    pub out_dir: Option<PathBuf>,
    /// Reduce a seed's first failure (on its -march only) when this says so.
    pub should_reduce: &'a (dyn Fn(u64, &str) -> bool + Sync),
    /// Limits of one reduction.
    pub reduce_checks: usize,
    pub reduce_time: Duration,
}

/// The result of one seed.
#[derive(Clone, Debug)]
pub struct SeedReport {
    pub seed: u64,
    /// Declare-simd functions plus omp simd loops.
    pub kernels: usize,
    /// `lanewise cc` builds attempted.
    pub builds: usize,
    /// The scalar reference failed: a generator bug.
    pub reference_error: Option<String>,
    pub failures: Vec<(String, Failure)>,
    /// The reduced reproducer of the first failure reduced: (-march, C
    /// text, the failure it still shows).
    pub reduced: Option<(String, String, Failure)>,
    pub source: String,
}

/// Totals of a campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub programs: usize,
    pub kernels: usize,
    pub builds: usize,
    pub reference_errors: usize,
    pub mismatches: usize,
    pub build_failures: usize,
    pub internal_errors: usize,
    pub crashes: usize,
    pub timeouts: usize,
    pub elapsed: Duration,
}

impl Summary {
    pub fn add(&mut self, report: &SeedReport) {
        self.programs += 1;
        self.kernels += report.kernels;
        self.builds += report.builds;
        self.reference_errors += usize::from(report.reference_error.is_some());
        for (_, failure) in &report.failures {
            match failure.kind {
                FailureKind::Mismatch => self.mismatches += 1,
                FailureKind::BuildFailure => self.build_failures += 1,
                FailureKind::InternalError => self.internal_errors += 1,
                FailureKind::Crash => self.crashes += 1,
                FailureKind::Timeout => self.timeouts += 1,
            }
        }
    }

    pub fn failures(&self) -> usize {
        self.reference_errors
            + self.mismatches
            + self.build_failures
            + self.internal_errors
            + self.crashes
            + self.timeouts
    }

    pub fn line(&self) -> String {
        let seconds = self.elapsed.as_secs_f64().max(1e-9);
        format!(
            "{} programs ({} kernels, {:.2} kernels/s, {:.2} programs/s), {} builds: {} mismatches, {} crashes, \
             {} timeouts, {} build failures, {} internal errors, {} generator bugs (reference failed)",
            self.programs,
            self.kernels,
            self.kernels as f64 / seconds,
            self.programs as f64 / seconds,
            self.builds,
            self.mismatches,
            self.crashes,
            self.timeouts,
            self.build_failures,
            self.internal_errors,
            self.reference_errors
        )
    }
}

/// Checks one seed in `dir` (and reduces its first failure if asked).
pub fn check_seed(seed: u64, dir: &Path, config: &CampaignConfig) -> SeedReport {
    let program = generate_with(seed, &config.generator);
    let source = print_program(&program);
    let outcome = check_program(dir, &source, &config.marches, &config.oracle);
    let mut report = SeedReport {
        seed,
        kernels: program.kernel_count(),
        builds: outcome.results.len(),
        reference_error: outcome.reference.err().map(|error| error.0),
        failures: outcome
            .results
            .into_iter()
            .filter_map(|(march, result)| result.err().map(|failure| (march, failure)))
            .collect(),
        reduced: None,
        source,
    };
    if let Some((march, failure)) =
        report.failures.iter().find(|(march, _)| (config.should_reduce)(seed, march)).cloned()
    {
        report.reduced = Some(reduce_failure(&program, &march, failure.kind, dir, config));
    }
    report
}

/// Checks the programs of `seeds` as one batch in `dir`; when the batch
/// fails, program by program, each with [`check_seed`]. If then no program
/// fails alone, the batch's failure goes to the first seed's report, with
/// the batch's text as its source.
pub fn check_batch(seeds: Range<u64>, dir: &Path, config: &CampaignConfig) -> Vec<SeedReport> {
    let programs: Vec<Program> =
        seeds.clone().map(|seed| generate_with(seed, &config.generator)).collect();
    let source = print_batch(&programs);
    let outcome = check_program(dir, &source, &config.marches, &config.oracle);
    let batch_passes =
        outcome.reference.is_ok() && outcome.results.iter().all(|(_, result)| result.is_ok());
    if batch_passes {
        return programs
            .iter()
            .map(|program| SeedReport {
                seed: program.seed,
                kernels: program.kernel_count(),
                builds: outcome.results.len(),
                reference_error: None,
                failures: Vec::new(),
                reduced: None,
                source: print_program(program),
            })
            .collect();
    }
    let mut reports: Vec<SeedReport> =
        seeds.clone().map(|seed| check_seed(seed, dir, config)).collect();
    let alone_pass =
        reports.iter().all(|report| report.failures.is_empty() && report.reference_error.is_none());
    if alone_pass {
        let what = format!(
            "only the batch of seeds {}..{} fails, each program alone passes",
            seeds.start, seeds.end
        );
        let first = &mut reports[0];
        match outcome.reference {
            Err(error) => first.reference_error = Some(format!("{what}: {}", error.0)),
            Ok(()) => {
                for (march, result) in outcome.results {
                    if let Err(failure) = result {
                        let detail = format!("{what}: {}", failure.detail);
                        first.failures.push((march, Failure { kind: failure.kind, detail }));
                    }
                }
            }
        }
        first.source = source;
    }
    reports
}

/// Reduces `program`, which fails on `march` with `kind`.
pub fn reduce_failure(
    program: &Program,
    march: &str,
    kind: FailureKind,
    dir: &Path,
    config: &CampaignConfig,
) -> (String, String, Failure) {
    let reduce_dir = dir.join("reduce");
    let limits = ReduceLimits {
        max_checks: config.reduce_checks,
        deadline: Some(Instant::now() + config.reduce_time),
    };
    let reduced = reduce(program, &limits, &mut |_, source| {
        fails_as(&reduce_dir, source, march, kind, &config.oracle)
    });
    let source = print_program(&reduced.program);
    // The failure of the reduced program, for its note.
    let outcome = check_program(&reduce_dir, &source, &[march.to_owned()], &config.oracle);
    let failure = outcome
        .results
        .into_iter()
        .find_map(|(_, result)| result.err())
        .unwrap_or(Failure { kind, detail: "(no longer fails when re-run)".into() });
    (march.to_owned(), source, failure)
}

/// Runs the campaign; `on_report` sees every seed's report as it arrives
/// (in completion order). Returns the reports in seed order.
pub fn run_campaign(
    config: &CampaignConfig,
    on_report: &mut dyn FnMut(&SeedReport),
) -> Vec<SeedReport> {
    let next = AtomicU64::new(config.seeds.start);
    let (sender, receiver) = mpsc::channel();
    let mut reports = Vec::new();
    std::thread::scope(|scope| {
        for worker in 0..config.jobs.max(1) {
            let sender = sender.clone();
            let next = &next;
            scope.spawn(move || {
                let dir = config.work_dir.join(format!("worker-{worker}"));
                let batch = config.batch.max(1) as u64;
                'work: loop {
                    let first = next.fetch_add(batch, Ordering::SeqCst);
                    if first >= config.seeds.end {
                        break;
                    }
                    let seeds = first..(first + batch).min(config.seeds.end);
                    let reports = if seeds.end - seeds.start == 1 {
                        vec![check_seed(first, &dir, config)]
                    } else {
                        check_batch(seeds, &dir, config)
                    };
                    for report in reports {
                        if sender.send(report).is_err() {
                            break 'work;
                        }
                    }
                }
                let _ = fs::remove_dir_all(&dir);
            });
        }
        drop(sender);
        for report in receiver {
            if let Some(out_dir) = &config.out_dir {
                if let Err(error) = save(out_dir, &report, &config.oracle) {
                    eprintln!("lanewise-fuzz: cannot save seed {}: {error}", report.seed);
                }
            }
            on_report(&report);
            reports.push(report);
        }
    });
    reports.sort_by_key(|report| report.seed);
    reports
}

/// Saves a failing seed: `seed-S.c`, `seed-S.txt` (the failures), and
/// `seed-S-MARCH.reduced.c`; the notes name the builds' `opt_level` when
/// it is not the default -O2, and `-g` when they had debug information.
pub fn save(out_dir: &Path, report: &SeedReport, oracle: &OracleConfig) -> std::io::Result<()> {
    let opt_level = oracle.opt_level;
    if report.failures.is_empty() && report.reference_error.is_none() {
        return Ok(());
    }
    fs::create_dir_all(out_dir)?;
    fs::write(out_dir.join(format!("seed-{}.c", report.seed)), &report.source)?;
    let mut notes = String::new();
    if let Some(error) = &report.reference_error {
        notes.push_str(&format!("reference (generator bug): {error}\n"));
    }
    // `-march=M`, `-O3 -march=M` or `-g -march=M`: the flags that
    // reproduce the build.
    let mut level = match opt_level {
        OptLevel::O2 => String::new(),
        other => format!("{} ", other.flag()),
    };
    if oracle.debug_info {
        level.push_str("-g ");
    }
    if oracle.cxx {
        level.push_str("-x c++ ");
    }
    for (march, failure) in &report.failures {
        notes.push_str(&format!(
            "{level}-march={march}: {}: {}\n",
            failure.kind.label(),
            failure.detail
        ));
    }
    if let Some((march, source, failure)) = &report.reduced {
        let mut note = format!(
            "/* reduced: {level}-march={march}: {}: {} */\n",
            failure.kind.label(),
            failure.detail
        );
        // The line tests/fuzz_regressions reads to build at the same level.
        if opt_level != OptLevel::O2 {
            note.push_str(&format!("// lanewise-opt-level: {}\n", &opt_level.flag()[1..]));
        }
        if oracle.debug_info {
            note.push_str("// lanewise-debug-info\n");
        }
        if oracle.cxx {
            note.push_str("// lanewise-cxx\n");
        }
        fs::write(
            out_dir.join(format!("seed-{}-{march}.reduced.c", report.seed)),
            format!("{note}{source}"),
        )?;
        notes.push_str(&format!("reduced on {level}-march={march}: {}\n", failure.detail));
    }
    fs::write(out_dir.join(format!("seed-{}.txt", report.seed)), notes)
}
