//! The reduced reproducers of tests/fuzz_regressions (found by
//! lanewise-fuzz, issue 14), each built by clang-22 (the scalar reference)
//! and by `lanewise cc` for every -march of the fuzzer's oracle, compared
//! byte for byte: every bug the fuzzer found stays fixed. A reproducer
//! found with `--env` names that environment in `// lanewise-env:` lines,
//! one found with `--opt-level` its level in a `// lanewise-opt-level:`
//! line, one found with `--debug-info` a `// lanewise-debug-info` line
//! (built with `-g`), one found with `--cxx` a `// lanewise-cxx` line
//! (built as C++). Reproducers of bugs not fixed yet wait in tests/fuzz_regressions/open,
//! checked by an ignored test (`cargo test --release -p lanewise --test
//! fuzz_regressions -- --ignored`), which fails until they are fixed.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::ValueEnum;
use lanewise_fuzz::oracle::{check_program, OptLevel, OracleConfig, DEFAULT_MARCHES};

/// The `.c` files of tests/fuzz_regressions/`subdirectory` (none where the
/// directory does not exist: `open/` exists only while a bug is open).
fn reproducers(subdirectory: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fuzz_regressions")
        .join(subdirectory);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    files.sort();
    files
}

/// The environment of the `lanewise cc` builds a reproducer asks for with
/// `// lanewise-env: KEY=VALUE ...` lines (the fuzzer's `--env`).
fn lanewise_env(source: &str) -> Vec<(String, String)> {
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("// lanewise-env:"))
        .flat_map(str::split_whitespace)
        .filter_map(|pair| pair.split_once('='))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

/// The optimization level a reproducer asks for with a
/// `// lanewise-opt-level: O3` line (the fuzzer's `--opt-level`), else -O2.
fn opt_level(source: &str) -> OptLevel {
    source
        .lines()
        .filter_map(|line| line.trim().strip_prefix("// lanewise-opt-level:"))
        .map(|level| {
            OptLevel::from_str(level.trim(), false)
                .unwrap_or_else(|error| panic!("lanewise-opt-level {level}: {error}"))
        })
        .next_back()
        .unwrap_or_default()
}

#[test]
fn fuzz_reproducers_agree_with_clang() {
    let files = reproducers("");
    assert!(files.len() >= 28, "reproducers missing: {files:?}");
    let failures = check_reproducers(&files, "fuzz_regressions");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
#[ignore = "open bugs: tests/fuzz_regressions/open, failing until fixed"]
fn open_fuzz_reproducers_agree_with_clang() {
    let files = reproducers("open");
    if files.is_empty() {
        eprintln!("tests/fuzz_regressions/open holds no reproducer: no open bug to check");
        return;
    }
    let failures = check_reproducers(&files, "fuzz_regressions_open");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Builds each of `files` with clang-22 and `lanewise cc` for every -march
/// of the fuzzer's oracle (two at a time, in `CARGO_TARGET_TMPDIR/scratch`)
/// and returns what differed.
fn check_reproducers(files: &[PathBuf], scratch: &str) -> Vec<String> {
    let oracle = OracleConfig::new(env!("CARGO_BIN_EXE_lanewise").into());
    let marches: Vec<String> = DEFAULT_MARCHES.iter().map(|march| march.to_string()).collect();
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(scratch);
    let next = Mutex::new(0usize);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for worker in 0..2 {
            let (oracle, marches, next, failures) = (&oracle, &marches, &next, &failures);
            let dir = scratch.join(format!("worker{worker}"));
            scope.spawn(move || loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    *next += 1;
                    *next - 1
                };
                let Some(file) = files.get(index) else { break };
                let source = std::fs::read_to_string(file).unwrap();
                let mut oracle = oracle.clone();
                oracle.lanewise_env.extend(lanewise_env(&source));
                oracle.opt_level = opt_level(&source);
                // `// lanewise-debug-info` and `// lanewise-cxx` lines: the
                // fuzzer's `--debug-info` and `--cxx`.
                let marked = |mark: &str| source.lines().any(|line| line.trim() == mark);
                oracle.debug_info = marked("// lanewise-debug-info");
                oracle.cxx = marked("// lanewise-cxx");
                let outcome = check_program(&dir, &source, marches, &oracle);
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                if let Err(error) = outcome.reference {
                    failures.lock().unwrap().push(format!("{name}: reference failed: {}", error.0));
                    continue;
                }
                for (march, result) in outcome.results {
                    match result {
                        Ok(()) => println!("{name} -march={march}: ok"),
                        Err(failure) => failures.lock().unwrap().push(format!(
                            "{name} -march={march}: {}: {}",
                            failure.kind.label(),
                            failure.detail
                        )),
                    }
                }
            });
        }
    });
    failures.into_inner().unwrap()
}
