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

/// `LANEWISE_NET_TRACE`: a program whose variants have the run-time
/// safety net prints each of its decisions on stderr (the variant, the
/// cycles per active lane of both forms, the form chosen and for how many
/// calls) when the variable is set, and nothing when it is unset or `0`.
/// The driver calls the Collatz variant 400 times: the first decision
/// comes after 32 measured calls.
#[test]
fn safety_net_decisions_are_traced_on_request() {
    const NET_DRIVER: &str = r#"
typedef int v8i __attribute__((ext_vector_type(8)));
v8i _ZGVdN8v_steps(v8i);
int main(void) {
    long total = 0;
    for (int call = 0; call < 400; call++) {
        v8i n = {call, call + 1, 3 * call, 7, 27, call % 5, 97, 1};
        total += _ZGVdN8v_steps(n)[4];
    }
    return total != 400 * 111;
}
"#;
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("net_trace");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("kernels.c"), KERNELS).unwrap();
    std::fs::write(scratch.join("driver.c"), NET_DRIVER).unwrap();
    run(Command::new(env!("CARGO_BIN_EXE_lanewise")).current_dir(&scratch).args([
        "cc",
        "-O2",
        "-fopenmp-simd",
        "-c",
        "kernels.c",
        "-o",
        "kernels.o",
    ]));
    run(Command::new("clang-22").current_dir(&scratch).args([
        "-O2",
        "-mavx2",
        "driver.c",
        "kernels.o",
        "-o",
        "driver",
    ]));
    let traced = |value: Option<&str>| {
        let mut command = Command::new(scratch.join("driver"));
        match value {
            Some(value) => command.env("LANEWISE_NET_TRACE", value),
            None => command.env_remove("LANEWISE_NET_TRACE"),
        };
        String::from_utf8_lossy(&run(&mut command).stderr).into_owned()
    };
    let trace = traced(Some("1"));
    let decisions: Vec<&str> = trace.lines().collect();
    assert!(!decisions.is_empty(), "no decision traced");
    for line in &decisions {
        // The variant whose body has the net (the AVX2 variant may share
        // another's body: `--variants shared`).
        let rest = line
            .strip_prefix("lanewise safety net _ZGV")
            .and_then(|line| line.split_once("_steps: vector "))
            .map(|(_, rest)| rest)
            .unwrap_or_else(|| panic!("unexpected line {line:?}"));
        assert!(rest.contains(" cycles per active lane -> "), "{line}");
        assert!(rest.ends_with(" calls"), "{line}");
        assert!(rest.contains("-> vector for ") || rest.contains("-> per-lane for "), "{line}");
    }
    assert_eq!(traced(None), "");
    assert_eq!(traced(Some("0")), "");
}
