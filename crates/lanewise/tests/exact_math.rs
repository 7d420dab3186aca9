//! The exact vector math functions (`lanewise_ir::exact_math`, bodies in
//! `lanewise_llvm::exact_math`) against the host's glibc, on real machine
//! code: every width Lanewise uses (4 to 32 lanes), built by clang-22 for
//! x86-64-v3 and, on an AVX-512 host, x86-64-v4, run on one input in 251
//! of all 2^32 `float` bit patterns plus the special values (`expf`,
//! `logf`; the README's exhaustive check compared all 2^32 at 8 lanes), and
//! for `exp` on 2^24 random bit patterns, 2^24 values over (-520, 520),
//! 2^20 around 2^-54 and the special values, for `log` on 2^24 random bit
//! patterns, 2^24 positive values of every exponent, 2^20 values near 1.0
//! and the special values; each lane's result compared bit for bit with
//! the scalar call's. A second pass runs with
//! every other lane inactive and the special inputs in the inactive lanes
//! only: `errno` must stay 0 (inactive lanes never call libm). The form
//! without the vector path (a libm other than glibc's) is checked the same
//! way at 8 lanes.

use lanewise_ir::exact_math::ExactMathFunction;
use lanewise_ir::Type;
use lanewise_llvm::exact_math::exact_math_module;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

const WIDTHS: [u32; 4] = [4, 8, 16, 32];

/// `define void @run_<f>_v<W>(ptr %in, ptr %out, ptr %mask_bytes)`: one
/// call of the vector form on `W` elements, under the mask of `W` bytes.
fn wrapper(function: ExactMathFunction, lanes: u32) -> String {
    let name = function.vector_name(lanes);
    let scalar = function.scalar_name();
    let ty = format!("<{lanes} x {}>", function.element_type());
    format!(
        "declare {ty} @{name}({ty}, <{lanes} x i1>)
define void @run_{scalar}_v{lanes}(ptr %in, ptr %out, ptr %mask.bytes) {{
  %x = load {ty}, ptr %in, align 4
  %bytes = load <{lanes} x i8>, ptr %mask.bytes, align 1
  %active = icmp ne <{lanes} x i8> %bytes, zeroinitializer
  %r = call {ty} @{name}({ty} %x, <{lanes} x i1> %active)
  store {ty} %r, ptr %out, align 4
  ret void
}}
"
    )
}

/// The C driver: for each function and width, the sweep with every lane
/// active, then the errno check with every other lane active.
fn driver(widths: &[u32]) -> String {
    let mut text = String::from(
        r#"#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
typedef void runner(const float *, float *, const unsigned char *);
static const float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1.0f, -1.0f, FLT_MIN,
    FLT_TRUE_MIN, 1e-40f, 88.0f, 88.7f, 89.0f, -103.0f, -103.5f, -104.0f, FLT_MAX, -FLT_MAX,
    0x1.62e42ep6f, 0x1.62e430p6f, -0x1.9fe368p6f, -0x1.9d1d9ep6f, 0x1p-126f, 0x1.fffffep-1f};
static long check(const char *name, float (*scalar)(float), runner *run, int lanes) {
    float in[32], out[32];
    unsigned char all[32], even[32];
    for (int l = 0; l < 32; l++) { all[l] = 1; even[l] = l % 2 == 0; }
    long differ = 0, count = 0;
    int specials_count = (int)(sizeof specials / sizeof specials[0]);
    for (uint64_t base = 0; base < (1ull << 32) + (uint64_t)(specials_count * 251); base += 251u * (uint64_t)lanes) {
        for (int l = 0; l < lanes; l++) {
            uint64_t pattern = base + 251u * (uint64_t)l;
            if (pattern >> 32) {
                int index = (int)((pattern - (1ull << 32)) / 251u);
                in[l] = specials[index % specials_count];
            } else {
                uint32_t bits = (uint32_t)pattern;
                memcpy(&in[l], &bits, 4);
            }
        }
        run(in, out, all);
        for (int l = 0; l < lanes; l++) {
            float expected = scalar(in[l]);
            if (memcmp(&expected, &out[l], 4) != 0 && differ++ < 5)
                printf("%s x%d: %a gives %a, libm %a\n", name, lanes, in[l], out[l], expected);
            count++;
        }
    }
    /* Inactive lanes hold the special inputs: no libm call, errno stays 0. */
    errno = 0;
    for (int j = 0; j < specials_count; j++) {
        for (int l = 0; l < lanes; l++) in[l] = l % 2 ? specials[(j + l) % specials_count] : 0.5f + (float)l;
        run(in, out, even);
        for (int l = 0; l < lanes; l += 2) {
            float expected = scalar(in[l]);
            if (memcmp(&expected, &out[l], 4) != 0 && differ++ < 5)
                printf("%s x%d masked: %a gives %a, libm %a\n", name, lanes, in[l], out[l], expected);
        }
    }
    if (errno != 0) {
        printf("%s x%d: errno %d after calls whose special inputs were inactive\n", name, lanes, errno);
        differ++;
    }
    printf("%s x%d: %ld of %ld differ\n", name, lanes, differ, count);
    return differ;
}
/* Doubles: 2^24 random bit patterns (exp: mostly outside the vector path;
 * log: half of them negative), then for exp 2^24 values spread over (-520,
 * 520) and 2^20 around 2^-54, for log 2^24 positive values of every
 * exponent and 2^20 within 1/16 of 1.0; every lane; then the errno check
 * with the special inputs in inactive lanes. */
static const double double_specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1.0, -1.0,
    DBL_MIN, 4.9e-324, 0x1p-54, -0x1p-54, 0x1.fffffffffffffp-55, 511.99999999999994, 512.0,
    -512.0, 709.782712893384, 709.79, -708.4, -745.2, -746.0, 1024.0, -1075.0, DBL_MAX};
static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
typedef void runner_d(const double *, double *, const unsigned char *);
static long check_double(const char *name, double (*scalar)(double), runner_d *run, int lanes) {
    int is_log = name[0] == 'l';
    double in[32], out[32];
    unsigned char all[32], even[32];
    for (int l = 0; l < 32; l++) { all[l] = 1; even[l] = l % 2 == 0; }
    long differ = 0, count = 0;
    int specials_count = (int)(sizeof double_specials / sizeof double_specials[0]);
    for (long round = 0; round < (33l << 20) / lanes + specials_count; round++) {
        for (int l = 0; l < lanes; l++) {
            uint64_t bits = next();
            long index = round * lanes + l;
            if (index < (16l << 20)) memcpy(&in[l], &bits, 8);
            else if (index < (32l << 20) && is_log) in[l] = ldexp((double)(bits >> 11) * 0x1p-53 + 0.5, (int)(bits % 2100) - 1075);
            else if (index < (32l << 20)) in[l] = ((double)(bits >> 11) * 0x1p-53 - 0.5) * 1040.0;
            else if (index < (33l << 20) && is_log) in[l] = 1.0 + ((double)(bits >> 11) * 0x1p-53 - 0.5) * 0.14;
            else if (index < (33l << 20)) in[l] = ldexp((double)(bits >> 11) * 0x1p-53 + 0.5, -54 + (int)(bits & 3)) * ((bits & 4) ? -1.0 : 1.0);
            else in[l] = double_specials[(index - (33l << 20)) % specials_count];
        }
        run(in, out, all);
        for (int l = 0; l < lanes; l++) {
            double expected = scalar(in[l]);
            if (memcmp(&expected, &out[l], 8) != 0 && differ++ < 5)
                printf("%s x%d: %a gives %a, libm %a\n", name, lanes, in[l], out[l], expected);
            count++;
        }
    }
    errno = 0;
    for (int j = 0; j < specials_count; j++) {
        for (int l = 0; l < lanes; l++) in[l] = l % 2 ? double_specials[(j + l) % specials_count] : 0.5 + 0.25 * l;
        run(in, out, even);
        for (int l = 0; l < lanes; l += 2) {
            double expected = scalar(in[l]);
            if (memcmp(&expected, &out[l], 8) != 0 && differ++ < 5)
                printf("%s x%d masked: %a gives %a, libm %a\n", name, lanes, in[l], out[l], expected);
        }
    }
    if (errno != 0) {
        printf("%s x%d: errno %d after calls whose special inputs were inactive\n", name, lanes, errno);
        differ++;
    }
    printf("%s x%d: %ld of %ld differ\n", name, lanes, differ, count);
    return differ;
}
"#,
    );
    for &lanes in widths {
        for function in ExactMathFunction::ALL {
            let runner = if function.element_type() == Type::F64 { "runner_d" } else { "runner" };
            writeln!(text, "{runner} run_{}_v{lanes};", function.scalar_name()).unwrap();
        }
    }
    text.push_str("int main(void) {\n    long differ = 0;\n");
    for &lanes in widths {
        for function in ExactMathFunction::ALL {
            let scalar = function.scalar_name();
            if function.element_type() == Type::F64 {
                writeln!(
                    text,
                    "    differ += check_double(\"{scalar}\", {scalar}, run_{scalar}_v{lanes}, {lanes});"
                )
                .unwrap();
            } else {
                writeln!(
                    text,
                    "    differ += check(\"{scalar}\", {scalar}, run_{scalar}_v{lanes}, {lanes});"
                )
                .unwrap();
            }
        }
    }
    text.push_str("    return differ != 0;\n}\n");
    text
}

fn scratch(name: &str) -> PathBuf {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("exact_math").join(name);
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

fn host_has(flag: &str) -> bool {
    std::fs::read_to_string("/proc/cpuinfo")
        .is_ok_and(|info| info.split_whitespace().any(|word| word == flag))
}

/// Builds the functions of `widths` (with or without the vector path) and
/// the driver for `march`, runs it, and returns its output.
fn build_and_run(name: &str, march: &str, widths: &[u32], vector_path: bool) -> String {
    let directory = scratch(name);
    let mut sources = Vec::new();
    for &lanes in widths {
        for function in ExactMathFunction::ALL {
            let stem = format!("{}_v{lanes}", function.scalar_name());
            let path = directory.join(format!("{stem}.ll"));
            let name = function.vector_name(lanes);
            std::fs::write(&path, exact_math_module(function, lanes, &name, vector_path)).unwrap();
            sources.push(path);
            let path = directory.join(format!("run_{stem}.ll"));
            std::fs::write(&path, wrapper(function, lanes)).unwrap();
            sources.push(path);
        }
    }
    let driver_path = directory.join("driver.c");
    std::fs::write(&driver_path, driver(widths)).unwrap();
    let binary = directory.join("check");
    let output = Command::new("clang-22")
        .args(["-O2", &format!("-march={march}"), "-fno-builtin", "-w"])
        .arg(&driver_path)
        .args(&sources)
        .arg("-o")
        .arg(&binary)
        .arg("-lm")
        .output()
        .expect("clang-22 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let run = Command::new(&binary).output().expect("the check runs");
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    assert!(run.status.success(), "{march}: results differ from libm:\n{stdout}");
    print!("{march}:\n{stdout}");
    stdout
}

#[test]
fn vector_forms_have_the_bits_of_glibc_on_fma_targets() {
    if !host_has("fma") || !host_has("avx2") {
        eprintln!("skipped: this CPU has no FMA/AVX2, where glibc runs other builds");
        return;
    }
    let output = build_and_run("v3", "x86-64-v3", &WIDTHS, true);
    assert_eq!(
        output.matches(" of ").count(),
        ExactMathFunction::ALL.len() * WIDTHS.len(),
        "{output}"
    );
    assert!(output.contains("expf x32: 0 of 17111"), "{output}");
    assert!(output.contains("exp x8: 0 of 34603"), "{output}");
    assert!(output.contains("log x16: 0 of 34603"), "{output}");
    if host_has("avx512f") && host_has("avx512vl") && host_has("avx512bw") && host_has("avx512dq") {
        build_and_run("v4", "x86-64-v4", &WIDTHS, true);
    }
}

#[test]
fn per_lane_forms_have_the_bits_of_libm() {
    let output = build_and_run("per-lane", "x86-64-v2", &[8], false);
    assert!(output.contains("logf x8: 0 of "), "{output}");
}
