//! The safety net's runtime (src/safety_net_runtime.ll) compiled by
//! clang-22 with a C driver that hands its decision step measured cycles
//! and reads the form and run length it chose.

use std::path::PathBuf;
use std::process::Command;

const RUNTIME: &str = include_str!("../src/safety_net_runtime.ll");

/// Calls `__lanewise_net_next_phase` on a record in its measuring phase
/// with the given cycles per active lane of the vector body and of the
/// per-lane calls (one lane each; 0 lanes gives a NaN cost), after a run
/// of `last_run` calls of `last_form`; prints the form and the new run.
const DRIVER: &str = r#"
#include <stdio.h>
#include <stdlib.h>
void __lanewise_net_next_phase(long long *s, const char *name);
int main(int argc, char **argv) {
    long long s[8] = {0, 1, atoll(argv[1]), atoll(argv[2]), atoll(argv[3]),
                      atoll(argv[4]), atoll(argv[5]), atoll(argv[6])};
    __lanewise_net_next_phase(s, "test");
    printf("%s %lld\n", s[2] ? "per-lane" : "vector", s[7]);
    return s[0] != s[7] || s[1] != 2;
}
"#;

fn build_driver() -> PathBuf {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("safety_net_runtime");
    std::fs::create_dir_all(&scratch).unwrap();
    std::fs::write(scratch.join("runtime.ll"), RUNTIME).unwrap();
    std::fs::write(scratch.join("driver.c"), DRIVER).unwrap();
    let output = Command::new("clang-22")
        .current_dir(&scratch)
        .args(["-O1", "driver.c", "runtime.ll", "-o", "driver"])
        .output()
        .expect("clang-22 runs (scripts/setup.sh installs it)");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    scratch.join("driver")
}

/// The decision after a measuring phase: (form, run length).
fn decide(
    driver: &PathBuf,
    last_form: u64,
    last_run: u64,
    vector: [u64; 2],
    per_lane: [u64; 2],
) -> String {
    let args = [last_form, vector[0], vector[1], per_lane[0], per_lane[1], last_run]
        .map(|n| n.to_string());
    let output = Command::new(driver).args(args).env_remove("LANEWISE_NET_TRACE").output().unwrap();
    assert!(output.status.success(), "the record is left inconsistent: {output:?}");
    String::from_utf8(output.stdout).unwrap().trim().to_owned()
}

#[test]
fn runs_grow_with_the_cost_of_measuring_the_losing_form_again() {
    let driver = build_driver();
    // Close forms: 64 calls as before, or 2048 * (q - 1) once that is more.
    assert_eq!(decide(&driver, 0, 0, [1000, 1], [1020, 1]), "vector 64");
    assert_eq!(decide(&driver, 0, 0, [1100, 1], [1000, 1]), "per-lane 204");
    // A form 4.5x slower is measured again after 2048 * 3.5 calls.
    assert_eq!(decide(&driver, 0, 0, [4500, 1], [1000, 1]), "per-lane 7168");
    assert_eq!(decide(&driver, 0, 0, [1000, 1], [4500, 1]), "vector 7168");
    // The cap, and the streak rule where it asks for more.
    assert_eq!(decide(&driver, 1, 64, [90000, 1], [1000, 1]), "per-lane 8192");
    assert_eq!(decide(&driver, 1, 2048, [1100, 1], [1000, 1]), "per-lane 4096");
    // A winner that changes falls back to the cost rule.
    assert_eq!(decide(&driver, 0, 4096, [1100, 1], [1000, 1]), "per-lane 204");
    // A form that saw no active lane has no cost: the vector body, 64 calls.
    assert_eq!(decide(&driver, 1, 4096, [0, 0], [1000, 1]), "vector 64");
    assert_eq!(decide(&driver, 0, 0, [0, 0], [0, 0]), "vector 64");
}
