//! `--instrument-utilization`: a program linked with instrumented variants
//! prints its SIMD utilization (active lanes per block execution / W,
//! PLDI'18) on stderr at exit.

use std::path::PathBuf;
use std::process::Command;

const KERNELS: &str = r#"
#pragma omp declare simd notinbranch
float twice(float x) { return 2.0f * x; }

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

const DRIVER: &str = r#"
#include <stdio.h>
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));
v8f _ZGVdN8v_twice(v8f);
v8i _ZGVdN8v_steps(v8i);
int main(int argc, char **argv) {
    if (argv[1][0] == 'u') {
        v8f x = {1, 2, 3, 4, 5, 6, 7, 8};
        for (int k = 0; k < 10; k++) x = _ZGVdN8v_twice(x);
        return x[0] != 1024.0f;
    }
    static const int expected[8] = {0, 0, 1, 7, 2, 5, 8, 16};
    v8i n = {0, 1, 2, 3, 4, 5, 6, 7};
    v8i r = _ZGVdN8v_steps(n);
    for (int l = 0; l < 8; l++) if (r[l] != expected[l]) return 1;
    return 0;
}
"#;

fn run(command: &mut Command) -> std::process::Output {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// The ratio and the two counts of the `lanewise utilization` line, which
/// must be a whole line.
fn utilization(stderr: &str) -> (f64, u64, u64) {
    assert!(stderr.contains(" slots)\n"), "the utilization line must end the line: {stderr:?}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with("lanewise utilization "))
        .unwrap_or_else(|| panic!("no utilization line in {stderr:?}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let ratio = words[2].parse().unwrap();
    let active = words[3].trim_start_matches('(').parse().unwrap();
    let slots = words[7].parse().unwrap();
    (ratio, active, slots)
}

#[test]
fn instrumented_programs_print_their_simd_utilization() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("utilization");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("kernels.c"), KERNELS).unwrap();
    std::fs::write(scratch.join("driver.c"), DRIVER).unwrap();
    run(Command::new("clang-22").current_dir(&scratch).args([
        "-O2",
        "-fopenmp-simd",
        "-S",
        "-emit-llvm",
        "kernels.c",
        "-o",
        "kernels.ll",
    ]));
    run(Command::new(env!("CARGO_BIN_EXE_lanewise")).current_dir(&scratch).args([
        "kernels.ll",
        "-o",
        "kernels.vec.ll",
        "--instrument-utilization",
    ]));
    run(Command::new("clang-22").current_dir(&scratch).args([
        "-O2",
        "-mavx2",
        "driver.c",
        "kernels.vec.ll",
        "-o",
        "driver",
    ]));

    // Uniform control flow: every block runs with all 8 lanes.
    let output = run(Command::new(scratch.join("driver")).arg("uniform"));
    let (ratio, active, slots) = utilization(&String::from_utf8_lossy(&output.stderr));
    assert_eq!(ratio, 1.0);
    assert_eq!(active, slots);
    assert!(slots >= 10 * 8 && slots % 8 == 0, "{slots} slots for 10 calls");

    // A divergent loop (Collatz steps of 0..7): lanes drop out one by one.
    let output = run(Command::new(scratch.join("driver")).arg("divergent"));
    let (ratio, active, slots) = utilization(&String::from_utf8_lossy(&output.stderr));
    assert!(ratio > 0.0 && ratio < 1.0, "utilization {ratio}");
    assert!(active < slots && slots % 8 == 0, "{active} of {slots}");
}
