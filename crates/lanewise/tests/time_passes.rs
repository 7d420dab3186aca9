//! `--time-passes` (and `LANEWISE_TIME_PASSES=1` for `lanewise cc`): a
//! table of the time of each pass, with a total, on stderr.

use std::path::PathBuf;
use std::process::Command;

const KERNEL: &str = r#"
#pragma omp declare simd notinbranch
int steps(int n) {
    int count = 0;
    while (n > 1) {
        n = (n & 1) ? 3 * n + 1 : n / 2;
        count++;
    }
    return count;
}
"#;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("time_passes_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{command:?} failed:\n{stderr}");
    stderr
}

/// The passes of the table on `stderr`, after checking its shape: a
/// header, rows of seconds, share, runs and name, and the total, whose
/// seconds are the sum of the rows'.
fn table_rows(stderr: &str) -> Vec<String> {
    let lines: Vec<&str> =
        stderr.lines().skip_while(|line| !line.starts_with("===== Lanewise pass times")).collect();
    assert!(lines.len() > 3, "no table on stderr:\n{stderr}");
    let total_line = lines.iter().find(|line| line.ends_with(" total")).expect("a total line");
    let total: f64 = total_line.split_whitespace().next().unwrap().parse().unwrap();
    let mut sum = 0.0;
    let mut passes = Vec::new();
    for line in &lines[2..] {
        if line.ends_with(" total") {
            break;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        sum += words[0].parse::<f64>().unwrap_or_else(|_| panic!("seconds in {line:?}"));
        assert!(words[1].ends_with('%'), "{line:?}");
        words[2].parse::<u32>().unwrap_or_else(|_| panic!("runs in {line:?}"));
        passes.push(words[3..].join(" "));
    }
    // Each row is rounded to 0.1 ms.
    assert!((sum - total).abs() <= 0.0001 * passes.len() as f64 + 1e-9, "{stderr}");
    passes
}

#[test]
fn the_cli_prints_the_time_of_each_pass() {
    let dir = scratch("cli");
    let source = dir.join("kernel.c");
    std::fs::write(&source, KERNEL).unwrap();
    let input = dir.join("kernel.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-S", "-emit-llvm", "-o"])
        .arg(&input)
        .arg(&source));
    let stderr = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(&input)
        .arg("-o")
        .arg(dir.join("out.ll"))
        .arg("--time-passes"));
    let passes = table_rows(&stderr);
    for pass in ["lift", "linearize", "widen", "lower", "llvm: canonicalize", "llvm: verify module"]
    {
        assert!(passes.iter().any(|row| row == pass), "no row {pass}: {passes:?}");
    }
    // Without the flag, no table.
    let quiet = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(&input)
        .arg("-o")
        .arg(dir.join("out.ll")));
    assert!(!quiet.contains("Lanewise pass times"), "{quiet}");
}

#[test]
fn lanewise_cc_times_its_clang_steps_too() {
    let dir = scratch("cc");
    let source = dir.join("kernel.c");
    std::fs::write(&source, KERNEL).unwrap();
    let stderr = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .args(["cc", "-O2", "-fopenmp-simd", "-c", "-o"])
        .arg(dir.join("kernel.o"))
        .arg(&source)
        .env("LANEWISE_TIME_PASSES", "1"));
    let passes = table_rows(&stderr);
    for pass in [
        "clang: frontend and -O3 (step 1)",
        "clang: -O3 again and code generation (step 3)",
        "widen",
    ] {
        assert!(passes.iter().any(|row| row == pass), "no row {pass}: {passes:?}");
    }
}
