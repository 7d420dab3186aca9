//! The worked examples of PLDI'18 (Moll & Hack, "Partial Control-Flow
//! Linearization"): Figure 3 (the partial linearization walkthrough),
//! Figure 7 (a uniform branch under a varying predicate, Section 4.2) and
//! Figure 10 (the Mandelbrot loop of Figure 9 after the divergent loop
//! transform, Section 5), written by hand in LLVM IR in
//! `tests/filetests/pldi18_*.ll` with the paper's uniform conditions reading
//! a uniform parameter and its varying (`!`) conditions a varying one.
//!
//! Each file runs through the `lanewise` binary with the arguments of its
//! `; ARGS:` line (the same run the file tests do; their blessed
//! `.expected` files hold the `--stats` text), and this test reads the
//! `--report` JSON: the uniform branches the paper keeps must be reported
//! as kept (`branches.uniform_kept`), with the paper's numbers of divergent
//! and folded branches, and none lost against Theorem 4.5. The same inputs
//! under `--linearize full` (the paper's baseline) keep no uniform branch,
//! which shows that the counts measure what partial linearization keeps.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the paper's walkthrough of a figure keeps and folds.
struct Figure {
    file: &'static str,
    divergent: u64,
    uniform_kept: u64,
    uniform_folded: u64,
    divergent_loops: u64,
    /// Uniform branches folded by full linearization.
    full_uniform_folded: u64,
}

const FIGURES: &[Figure] = &[
    // Figure 3b-f: a's uniform branch is kept; b and c diverge; the uniform
    // branches of d and f fold because each of their targets is deferred.
    Figure {
        file: "pldi18_figure3.ll",
        divergent: 2,
        uniform_kept: 1,
        uniform_folded: 2,
        divergent_loops: 0,
        full_uniform_folded: 3,
    },
    // Figure 7 right: b's uniform branch survives although b's predicate is
    // varying (Theorem 4.5, relative uniformity in b's dominance region).
    Figure {
        file: "pldi18_figure7.ll",
        divergent: 1,
        uniform_kept: 1,
        uniform_folded: 0,
        divergent_loops: 0,
        full_uniform_folded: 1,
    },
    // Figure 10 right: the uniform trip-count exit is retained, the varying
    // escape exit is folded into the transformed (uniform) loop.
    Figure {
        file: "pldi18_figure10_mandelbrot.ll",
        divergent: 1,
        uniform_kept: 1,
        uniform_folded: 0,
        divergent_loops: 1,
        full_uniform_folded: 1,
    },
];

fn filetests_directory() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests")
}

/// Runs lanewise on a figure with its `; ARGS:` line plus `extra` arguments
/// and returns the one function entry of the `--report` JSON.
fn report_of(figure: &Figure, extra: &[&str], tag: &str) -> serde_json::Value {
    let input = filetests_directory().join(figure.file);
    let source = std::fs::read_to_string(&input).expect("the figure's file test exists");
    let args_line = source
        .lines()
        .find_map(|line| line.strip_prefix("; ARGS:"))
        .unwrap_or_else(|| panic!("{}: no `; ARGS:` line", figure.file));
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("pldi18_figures");
    std::fs::create_dir_all(&scratch).unwrap();
    let output = scratch.join(format!("{}.{tag}.out.ll", figure.file));
    let output_text = output.to_string_lossy().into_owned();
    let mut args: Vec<String> =
        args_line.split_whitespace().map(|arg| arg.replace("{out}", &output_text)).collect();
    for arg in extra {
        // A flag the ARGS line already gives is not repeated (clap refuses).
        if !(arg.starts_with("--no-") && args.iter().any(|given| given == arg)) {
            args.push((*arg).to_owned());
        }
    }
    assert!(
        args.iter().any(|arg| arg == "--report"),
        "{}: the ARGS line must ask for --report",
        figure.file
    );
    let result = Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(&input)
        .args(&args)
        .output()
        .expect("cannot run lanewise");
    assert!(
        result.status.success(),
        "{}: lanewise {args:?} failed:\n{}",
        figure.file,
        String::from_utf8_lossy(&result.stderr)
    );
    let report_path = format!("{output_text}.json");
    let text = std::fs::read_to_string(&report_path)
        .unwrap_or_else(|error| panic!("{}: no report {report_path}: {error}", figure.file));
    let report: serde_json::Value = serde_json::from_str(&text).expect("the report is JSON");
    let functions = report["functions"].as_array().expect("a `functions` array");
    assert_eq!(functions.len(), 1, "{}: one produced function expected: {text}", figure.file);
    functions[0].clone()
}

fn count(function: &serde_json::Value, group: &str, field: &str) -> u64 {
    function[group][field]
        .as_u64()
        .unwrap_or_else(|| panic!("the report has no {group}.{field}: {function}"))
}

#[test]
fn partial_linearization_keeps_the_uniform_branches_of_the_papers_figures() {
    for figure in FIGURES {
        // BOSCC guards are uniform branches of their own: the walkthrough
        // counts those of the input.
        let function = report_of(figure, &["--no-boscc"], "partial");
        let found = (
            count(&function, "branches", "divergent"),
            count(&function, "branches", "uniform_kept"),
            count(&function, "branches", "uniform_folded"),
            count(&function, "branches", "uniform_lost"),
            count(&function, "loops", "divergent"),
        );
        let paper = (
            figure.divergent,
            figure.uniform_kept,
            figure.uniform_folded,
            0,
            figure.divergent_loops,
        );
        assert_eq!(
            found, paper,
            "{}: (divergent, uniform_kept, uniform_folded, uniform_lost, divergent loops) \
             differ from the paper's walkthrough; report: {function}",
            figure.file
        );
    }
}

#[test]
fn full_linearization_of_the_papers_figures_keeps_no_uniform_branch() {
    for figure in FIGURES {
        let function = report_of(figure, &["--linearize", "full"], "full");
        assert_eq!(count(&function, "branches", "uniform_kept"), 0, "{}: {function}", figure.file);
        assert_eq!(
            count(&function, "branches", "uniform_folded"),
            figure.full_uniform_folded,
            "{}: {function}",
            figure.file
        );
        assert_eq!(
            count(&function, "branches", "divergent"),
            figure.divergent,
            "{}: {function}",
            figure.file
        );
    }
}
