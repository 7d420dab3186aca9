//! `--simd-loops`: `#pragma omp simd` loops that LLVM's vectorizer left
//! scalar, vectorized by Lanewise, checked on machine code.
//!
//! Each C file of `tests/simd_loops/` is compiled twice: by plain
//! `clang-22 -O3 -march=x86-64-v3` (the reference) and through
//! `clang-22 -O3 -march=x86-64-v3 -fopenmp-simd -fno-vectorize
//! -fno-slp-vectorize -S -emit-llvm` → `lanewise --simd-loops` →
//! `clang-22 -O3 -march=x86-64-v3`. The target is fixed (AVX2: W=16 for
//! 32-bit lanes, two ymm registers per value, see
//! `lanewise_transform::loop_vectorize::width`) so that the assertions on
//! widths hold on every host; `avx512_targets_get_32_lanes` checks the
//! AVX-512 choice, and the whole
//! programs of `tests/programs` run with `-march=native`.
//!
//! Both programs print their results (see
//! `tests/simd_loops/lw_loops.h`); `E` lines must be equal bit for bit,
//! `F` lines (floating-point sum and product reductions, which the simd
//! pragma allows to reassociate) within a relative tolerance of 1e-5. The
//! test also asserts from the `--report` remarks that the file's
//! `// expect-vectorized: N` loops were vectorized, that the vectorized
//! bodies hold vector instructions, and that the final program has `ymm`
//! code.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The target of every compilation: AVX2 (see the module docs).
const MARCH: &str = "-march=x86-64-v3";

/// Relative tolerance of reassociated floating-point reductions.
const FLOAT_REDUCTION_TOLERANCE: f64 = 1e-5;

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

fn sources_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/simd_loops")
}

fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simd_loops").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Compares the outputs line by line: `E` lines exactly, `F` lines within
/// the tolerance.
fn compare_outputs(name: &str, reference: &str, vectorized: &str) {
    let reference: Vec<&str> = reference.lines().collect();
    let vectorized: Vec<&str> = vectorized.lines().collect();
    assert_eq!(reference.len(), vectorized.len(), "{name}: different numbers of result lines");
    assert!(!reference.is_empty(), "{name}: the test printed nothing");
    for (expected, actual) in reference.iter().zip(&vectorized) {
        if let Some(expected_rest) = expected.strip_prefix("F ") {
            let actual_rest =
                actual.strip_prefix("F ").unwrap_or_else(|| panic!("{name}: {actual}"));
            let (expected_key, expected_value) = expected_rest.rsplit_once(' ').unwrap();
            let (actual_key, actual_value) = actual_rest.rsplit_once(' ').unwrap();
            assert_eq!(expected_key, actual_key, "{name}");
            let expected_value: f64 = expected_value.parse().unwrap();
            let actual_value: f64 = actual_value.parse().unwrap();
            let scale = expected_value.abs().max(1.0);
            assert!(
                (expected_value - actual_value).abs() <= FLOAT_REDUCTION_TOLERANCE * scale,
                "{name}: {expected_key}: {actual_value} is not within {FLOAT_REDUCTION_TOLERANCE} of \
                 {expected_value}"
            );
        } else {
            assert_eq!(expected, actual, "{name}: results differ");
        }
    }
}

/// The source `name.c` (compiled by clang-22) or `name.cpp` (clang++-22).
fn source_and_compiler(name: &str) -> (PathBuf, &'static str) {
    let c_source = sources_dir().join(format!("{name}.c"));
    if c_source.exists() {
        (c_source, "clang-22")
    } else {
        (sources_dir().join(format!("{name}.cpp")), "clang++-22")
    }
}

fn check_source(name: &str) {
    check_source_with(name, &[]);
}

/// [`check_source`] with extra flags for both clang compilations of the
/// source; returns the remarks.
fn check_source_with(name: &str, extra_flags: &[&str]) -> Vec<serde_json::Value> {
    check_source_with_options(name, extra_flags, &[]).remarks
}

/// What [`check_source_with_options`] saw.
struct Checked {
    remarks: Vec<serde_json::Value>,
    /// The output of the vectorized program.
    output: String,
}

/// The messages of the `missed` remarks among `remarks`.
fn missed_messages(remarks: &[serde_json::Value]) -> Vec<&str> {
    remarks
        .iter()
        .filter(|remark| remark["kind"] == "missed")
        .filter_map(|remark| remark["message"].as_str())
        .collect()
}

/// [`check_source_with`] with extra `lanewise` options.
fn check_source_with_options(name: &str, extra_flags: &[&str], lanewise_flags: &[&str]) -> Checked {
    let (source, clang) = source_and_compiler(name);
    let text = std::fs::read_to_string(&source).unwrap();
    let expected_vectorized: usize = text
        .lines()
        .find_map(|line| line.strip_prefix("// expect-vectorized: "))
        .unwrap_or_else(|| panic!("{name} lacks `// expect-vectorized: N`"))
        .trim()
        .parse()
        .unwrap();
    let scratch =
        scratch_dir(&format!("{name}{}{}", extra_flags.concat(), lanewise_flags.concat()));
    let input = scratch.join("input.ll");
    let output = scratch.join("output.ll");
    let report = scratch.join("report.json");
    run(Command::new(clang)
        .arg("-O3")
        .arg(MARCH)
        .args([
            "-fopenmp-simd",
            "-fno-vectorize",
            "-fno-slp-vectorize",
            "-Wno-pass-failed",
            "-S",
            "-emit-llvm",
        ])
        .args(extra_flags)
        .arg(&source)
        .arg("-o")
        .arg(&input));
    run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .arg("--simd-loops")
        .arg("--verify-each")
        .arg("--report")
        .arg(&report)
        .args(lanewise_flags));

    // The loops were vectorized, according to the remarks.
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let remarks = report["remarks"].as_array().expect("the report lists remarks");
    // Passed remarks that say something was vectorized (others inform, as
    // the one about irreducible control flow made reducible).
    let passed: Vec<&serde_json::Value> = remarks
        .iter()
        .filter(|remark| {
            remark["kind"] == "passed"
                && remark["message"].as_str().is_some_and(|m| m.starts_with("vectorized"))
        })
        .collect();
    assert_eq!(
        passed.len(),
        expected_vectorized,
        "{name}: expected {expected_vectorized} vectorized loops, remarks: {remarks:#?}"
    );

    // The vectorized bodies compute on vectors (the scalar remainder bodies
    // `*.scalar` do not).
    let output_text = std::fs::read_to_string(&output).unwrap();
    let bodies: Vec<&str> = output_text
        .split("\ndefine ")
        .filter(|function| function.starts_with("internal"))
        .filter(|function| {
            let signature = function.lines().next().unwrap_or_default();
            signature.contains(".lanewise.loop") && !signature.contains(".scalar(")
        })
        .collect();
    // One body per vectorized loop (the other passed remarks are
    // declare-simd variants).
    let loops_vectorized = passed
        .iter()
        .filter(|remark| {
            remark["message"].as_str().is_some_and(|m| m.starts_with("vectorized loop"))
        })
        .count();
    assert!(bodies.len() >= loops_vectorized, "{name}: vectorized bodies missing");
    for body in &bodies {
        assert!(body.contains(" x "), "{name}: a vectorized body has no vector type:\n{body}");
    }

    // Machine code: the reference and the vectorized program.
    let reference_binary = scratch.join("reference");
    let vectorized_binary = scratch.join("vectorized");
    run(Command::new(clang)
        .args(["-O3", MARCH, "-fopenmp-simd"])
        .args(extra_flags)
        .arg(&source)
        .arg("-o")
        .arg(&reference_binary)
        .arg("-lm"));
    run(Command::new(clang)
        .args(["-O3", MARCH, "-Wno-override-module"])
        // The OpenMP runtime, for a program with `parallel` regions.
        .args(extra_flags.iter().filter(|flag| **flag == "-fopenmp"))
        .arg(&output)
        .arg("-o")
        .arg(&vectorized_binary)
        .arg("-lm"));
    let disassembly = run(Command::new("objdump").arg("-d").arg(&vectorized_binary)).stdout;
    assert!(
        String::from_utf8_lossy(&disassembly).contains("ymm"),
        "{name}: the vectorized program has no AVX code"
    );
    let reference_output = run(&mut Command::new(&reference_binary)).stdout;
    let vectorized_output = run(&mut Command::new(&vectorized_binary)).stdout;
    let vectorized_output = String::from_utf8_lossy(&vectorized_output).into_owned();
    compare_outputs(name, &String::from_utf8_lossy(&reference_output), &vectorized_output);
    Checked { remarks: remarks.clone(), output: vectorized_output }
}

/// With debug information: the rewritten function keeps its subprogram (the
/// LLVM verifier accepts the new calls), and remarks name source locations.
#[test]
fn debug_info_build() {
    for name in ["float_reductions", "lastprivate"] {
        let remarks = check_source_with(name, &["-g"]);
        for remark in remarks.iter().filter(|remark| remark["kind"] == "passed") {
            let location = remark["location"].as_str().unwrap();
            assert!(location.contains(&format!("{name}.c:")), "{name}: {location}");
        }
    }
}

/// A function whose other loops LLVM vectorized (a map with a sum
/// reduction, a masked store) still gets its omp simd loop vectorized, and
/// LLVM's vector code in it survives: the rewritten `mixed` still holds
/// `<8 x i32>` code, the `llvm.vector.reduce.add` and the masked stores.
#[test]
fn mixed_vector_code() {
    check_source("mixed_vector_code");
    let output = scratch_dir("mixed_vector_code").join("output.ll");
    let text = std::fs::read_to_string(output).unwrap();
    let mixed = text
        .split("\ndefine ")
        .find(|function| function.lines().next().is_some_and(|line| line.contains("@mixed(")))
        .expect("the output defines `mixed`");
    let mixed = &mixed[..mixed.find("\n}").unwrap_or(mixed.len())];
    assert!(mixed.contains("<8 x i32>"), "LLVM's vector code was scalarized:\n{mixed}");
    assert!(mixed.contains("@llvm.vector.reduce.add."), "the reduction was expanded:\n{mixed}");
    assert!(mixed.contains("@llvm.masked.store."), "the masked store was scalarized:\n{mixed}");
    assert!(mixed.contains(".lanewise.loop0.x16"), "the omp simd loop is not rewritten:\n{mixed}");
}

/// `lanewise cc` runs clang's step 1 without loop unrolling: LLVM's runtime
/// unroller would unroll the scalar omp simd loop (2 or 4 iterations per
/// trip), and the outlined body would then access `start[i]`, `start[i+1]`
/// with a stride of 2-4 elements per lane, i.e. gathers instead of vector
/// loads. The loop of `inner_while.c` is vectorized and its loads and stores
/// stay contiguous (no gather in the final IR).
#[test]
fn cc_keeps_simd_loop_bodies_unit_stride() {
    let scratch = scratch_dir("cc_unit_stride");
    let output = scratch.join("inner_while.ll");
    let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .args(["cc", "-O3", MARCH, "-fopenmp-simd", "-Rpass=lanewise", "-S"])
        .arg("-emit-llvm")
        .arg(sources_dir().join("inner_while.c"))
        .arg("-o")
        .arg(&output));
    let remarks = String::from_utf8_lossy(&compiled.stderr);
    assert!(remarks.contains("remark: vectorized loop at W=16"), "{remarks}");
    let text = std::fs::read_to_string(&output).unwrap();
    // The only gathers are those of the page-crossing paths of page-safe
    // loads (consecutive lanes, in the blocks after a `.crossing` test).
    let lines: Vec<&str> = text.lines().collect();
    for (number, line) in lines.iter().enumerate() {
        if !line.contains("call <") || !line.contains("@llvm.masked.gather") {
            continue;
        }
        let label =
            lines[..number].iter().rev().find(|line| line.ends_with(':') || line.contains(":  "));
        let label = label.copied().unwrap_or_default();
        assert!(
            label.contains(".gather") && label.contains(".crossing"),
            "the loop body gathers outside a page-crossing path ({label}):\n{text}"
        );
    }
    assert!(text.contains("load <16 x i32>"), "no contiguous vector load:\n{text}");
}

/// `LANEWISE_SIMD_TAIL` forces the tail form of `lanewise cc` (its command
/// line is clang's): the remarks say which tail each loop got.
#[test]
fn cc_takes_the_tail_form_from_the_environment() {
    let scratch = scratch_dir("cc_tail_form");
    for (form, expected) in [
        ("scalar", "W=16 (scalar remainder"),
        ("masked", "W=16 (masked tail,"),
        ("auto", "W=16 (masked tail or scalar remainder (run-time choice at"),
    ] {
        let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .env("LANEWISE_SIMD_TAIL", form)
            .args(["cc", "-O3", MARCH, "-fopenmp-simd", "-Rpass=lanewise", "-c"])
            .arg(sources_dir().join("tail_forms.c"))
            .arg("-o")
            .arg(scratch.join(format!("tail_forms.{form}.o"))));
        let remarks = String::from_utf8_lossy(&compiled.stderr);
        assert!(remarks.contains(expected), "LANEWISE_SIMD_TAIL={form}:\n{remarks}");
    }
}

/// For an AVX-512 target (`-march=x86-64-v4`, and 512-bit vectors preferred:
/// otherwise LLVM splits them into halves) the loop gets 32 lanes of 32 bits,
/// two zmm registers per value; on a host with x86-64-v4 the program also runs and
/// agrees with clang's build.
#[test]
fn avx512_targets_get_32_lanes() {
    let scratch = scratch_dir("avx512_widths");
    let source = sources_dir().join("inner_while.c");
    let flags = ["-O3", "-march=x86-64-v4", "-mprefer-vector-width=512", "-fopenmp-simd"];
    let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg("cc")
        .args(flags)
        .args(["-Rpass=lanewise", "-S"])
        .arg(&source)
        .arg("-o")
        .arg(scratch.join("inner_while.s")));
    let remarks = String::from_utf8_lossy(&compiled.stderr);
    assert!(remarks.contains("remark: vectorized loop at W=32"), "{remarks}");
    let assembly = std::fs::read_to_string(scratch.join("inner_while.s")).unwrap();
    assert!(assembly.contains("zmm"), "no 512-bit code:\n{assembly}");
    let host_has_x86_64_v4 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512cd")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl");
    if !host_has_x86_64_v4 {
        return;
    }
    let vectorized = scratch.join("vectorized");
    let reference = scratch.join("reference");
    run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg("cc")
        .args(flags)
        .arg(&source)
        .arg("-o")
        .arg(&vectorized));
    run(Command::new("clang-22").args(flags).arg(&source).arg("-o").arg(&reference));
    compare_outputs(
        "inner_while (AVX-512)",
        &String::from_utf8_lossy(&run(&mut Command::new(&reference)).stdout),
        &String::from_utf8_lossy(&run(&mut Command::new(&vectorized)).stdout),
    );
}

/// Narrowing of divergent loops on AVX-512 (`--narrow-loops`,
/// `LANEWISE_NARROW_LOOPS`): tests/programs/narrowed_lanes.c, whose chunks
/// leave exactly W/2, W/2 + 1, W/4, 1 and 0 lanes live when the loop may be
/// compacted, gets a narrow copy of its loop (the remark says so, the
/// assembly compresses and expands lanes) by default and in `always` mode,
/// none with `off`; on a host with x86-64-v4 every build agrees with
/// clang's.
#[test]
fn avx512_divergent_loops_are_narrowed() {
    let scratch = scratch_dir("narrowed_lanes");
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let source = programs.join("narrowed_lanes.c");
    let flags = ["-O3", "-march=x86-64-v4", "-mprefer-vector-width=512", "-fopenmp-simd"];
    let host_has_x86_64_v4 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512cd")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl");
    let reference = scratch.join("reference");
    run(Command::new("clang-22")
        .args(flags)
        .arg("-I")
        .arg(&programs)
        .arg(&source)
        .arg("-o")
        .arg(&reference));
    for mode in ["auto", "always", "off"] {
        let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .env("LANEWISE_NARROW_LOOPS", mode)
            .arg("cc")
            .args(flags)
            .args(["-Rpass=lanewise", "-S", "-I"])
            .arg(&programs)
            .arg(&source)
            .arg("-o")
            .arg(scratch.join(format!("{mode}.s"))));
        let remarks = String::from_utf8_lossy(&compiled.stderr);
        let assembly = std::fs::read_to_string(scratch.join(format!("{mode}.s"))).unwrap();
        let narrowed = remarks.contains("1 divergent loop narrowed");
        let compresses = assembly.contains("vpcompressd") && assembly.contains("vpexpandd");
        assert_eq!(narrowed, mode != "off", "{mode}: {remarks}");
        assert_eq!(compresses, mode != "off", "{mode}: compress and expand instructions");
        if !host_has_x86_64_v4 {
            continue;
        }
        let vectorized = scratch.join(mode);
        run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .env("LANEWISE_NARROW_LOOPS", mode)
            .arg("cc")
            .args(flags)
            .arg("-I")
            .arg(&programs)
            .arg(&source)
            .arg("-o")
            .arg(&vectorized));
        assert_eq!(
            String::from_utf8_lossy(&run(&mut Command::new(&reference)).stdout),
            String::from_utf8_lossy(&run(&mut Command::new(&vectorized)).stdout),
            "narrowed_lanes with LANEWISE_NARROW_LOOPS={mode}"
        );
    }
}

/// A stencil whose `in[i]` LLVM's GVN carries over from the previous
/// iteration's `in[i + 1]` (a header phi of loaded values): the phi becomes
/// a load again and the loop is vectorized, bit-exact. Built without loop
/// unrolling, as `lanewise cc` builds it (an unrolled loop carries the value
/// from its second copy, which is not recognized).
#[test]
fn stencil_recurrence() {
    let remarks = check_source_with("stencil_recurrence", &["-fno-unroll-loops"]);
    assert!(
        remarks.iter().all(|remark| remark["kind"] == "passed"),
        "a loop was refused: {remarks:#?}"
    );
}

/// Trip counts 0 to 3W with each tail forced (`--simd-tail masked`,
/// `scalar`) and chosen by the cost model (`auto`): int and float
/// reductions, lastprivate values and linear variables agree with the
/// scalar build, and all three forms with each other bit for bit (a
/// remainder iteration accumulates into the lane slot the masked call would
/// use, so even reassociated float sums are the same).
#[test]
fn tail_forms() {
    let mut outputs = Vec::new();
    for (form, remark) in
        [("masked", "(masked tail"), ("scalar", "(scalar remainder"), ("auto", "")]
    {
        let checked = check_source_with_options("tail_forms", &[], &["--simd-tail", form]);
        for passed in checked.remarks.iter().filter(|remark| remark["kind"] == "passed") {
            let message = passed["message"].as_str().unwrap();
            assert!(message.contains(remark), "--simd-tail {form}: {message}");
        }
        outputs.push((form, checked.output));
    }
    for (form, output) in &outputs[1..] {
        assert_eq!(&outputs[0].1, output, "masked and {form} tails differ");
    }
}

macro_rules! simd_loop_tests {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                check_source(stringify!($name));
            }
        )*
    };
}

simd_loop_tests!(
    private_arrays,
    map_call,
    divergent_if,
    inner_while,
    early_exit_flag,
    int_reductions,
    float_reductions,
    lastprivate,
    linear,
    simdlen,
    nested,
    switch_all_cases,
    irreducible_body,
);

/// libm calls without fast-math stay exact (`--vector-math auto`): `sqrtf`
/// as a vector sqrt plus the errno-setting call in the lanes with negative
/// inputs (errno is printed), `expf` per lane.
#[test]
fn libm_exact() {
    check_source_with("libm_exact", &[]);
}

/// Atomics in omp simd loops, per lane in lane order and combined at
/// uniform addresses: the old values the atomics return equal the scalar
/// loop's bit for bit. Built without unrolling (as `lanewise cc`'s step 1
/// does): an unrolled body gives each lane several consecutive iterations,
/// whose atomics then run in another order than the scalar loop's (one that
/// the simd pragma allows, but not the reference's).
#[test]
fn atomics() {
    check_source_with("atomics", &["-fno-unroll-loops"]);
    // The masked tail: atomics under the tail's mask.
    check_source_with_options("atomics", &["-fno-unroll-loops"], &["--simd-tail", "masked"]);
}

/// Vector integer divisions and remainders with varying divisors go through
/// `double` division (x86 has no vector integer division), bit-exact with
/// the scalar reference at the extremes of each type.
#[test]
fn integer_division() {
    check_source("integer_division");
    let output = scratch_dir("integer_division").join("output.ll");
    let text = std::fs::read_to_string(output).unwrap();
    assert!(text.contains("fdiv <16 x double>"), "no double division in:\n{text}");
    for op in ["sdiv <", "udiv <", "srem <", "urem <"] {
        assert!(!text.contains(op), "a vector `{op}` is left in:\n{text}");
    }
}

/// 64-bit vector division goes through `double` where every active operand
/// is below 2^53 in magnitude and through the exact per-lane division
/// otherwise (`widen/division.rs`), bit-exact with the scalar reference at
/// the extremes of each type and around 2^53.
#[test]
fn integer_division_64() {
    check_source("integer_division_64");
    let output = scratch_dir("integer_division_64").join("output.ll");
    let text = std::fs::read_to_string(output).unwrap();
    // 64-bit lanes on AVX2: W = 2 x 256 / 64.
    assert!(text.contains("fdiv <8 x double>"), "no double division in:\n{text}");
    assert!(text.contains("double_division"), "no fast path in:\n{text}");
    assert!(text.contains("reciprocal_division"), "no constant divisor path in:\n{text}");
}

/// Exit-stable divergent loops (no trackers for their live-outs) and one
/// that is not, checked against the scalar loops.
#[test]
fn exit_stable() {
    let remarks = check_source_with("exit_stable", &[]);
    let messages: Vec<&str> = remarks
        .iter()
        .filter(|remark| remark["kind"] == "passed")
        .filter_map(|remark| remark["message"].as_str())
        .collect();
    let stable = messages.iter().filter(|m| m.contains(" exit-stable divergent loop")).count();
    assert_eq!(stable, 2, "{messages:#?}");
}

/// Conditional assignments (`if (c) r = x`) vectorize as conditional last
/// values with every tail form, agreeing with the scalar build and with
/// each other; a reset of a sum and a recurrence through a comparison stay
/// scalar with a remark that says why (issue 14, class 7).
#[test]
fn conditional_last() {
    let mut outputs = Vec::new();
    for form in ["masked", "scalar", "auto"] {
        let checked = check_source_with_options("conditional_last", &[], &["--simd-tail", form]);
        let messages: Vec<&str> =
            checked.remarks.iter().filter_map(|remark| remark["message"].as_str()).collect();
        let last_values = messages.iter().filter(|m| m.contains("conditional last value")).count();
        assert_eq!(last_values, 6, "--simd-tail {form}: {messages:#?}");
        let resets =
            messages.iter().filter(|m| m.contains("a reset of an accumulator is not a reduction"));
        assert_eq!(resets.count(), 2, "{messages:#?}");
        assert!(
            messages.iter().any(|m| m.contains("a recurrence across iterations")),
            "{messages:#?}"
        );
        outputs.push((form, checked.output));
    }
    for (form, output) in &outputs[1..] {
        assert_eq!(&outputs[0].1, output, "masked and {form} tails differ");
    }
}

/// A recursive `declare simd inbranch` function called from a simd loop
/// agrees with the scalar build (it used to recurse forever through calls
/// with an empty mask), and its variants call themselves per lane, not in
/// lock-step (issue 14, class 6).
#[test]
fn recursion() {
    check_source("recursion");
    let report = scratch_dir("recursion").join("report.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let variants: Vec<&serde_json::Value> = report["functions"]
        .as_array()
        .expect("the report lists functions")
        .iter()
        .filter(|function| function["scalar"] == "fib")
        .collect();
    assert_eq!(variants.len(), 5, "{report:#}");
    for variant in variants {
        assert_eq!(variant["calls"]["vector_variant"], 0, "{variant:#}");
        assert!(variant["calls"]["per_lane"].as_u64().unwrap() >= 1, "{variant:#}");
    }
    // Mutual recursion stays in lock-step: ping's variants call pong's.
    let ping = report["functions"].as_array().unwrap().iter().filter(|f| f["scalar"] == "ping");
    for variant in ping {
        assert!(variant["calls"]["vector_variant"].as_u64().unwrap() >= 1, "{variant:#}");
    }
}

/// Pure user functions are called only in active lanes, and a uniform
/// call only when some lane is active: the callee divides by zero on the
/// inputs the scalar code never gives it (SIGFPE before the fix).
#[test]
fn speculative_calls() {
    check_source("speculative_calls");
}

/// Inline assembly elsewhere in the function does not keep a loop scalar
/// (issue 14, class 13); in the loop body it runs once per lane.
#[test]
fn inline_asm() {
    let remarks = check_source_with("inline_asm", &[]);
    assert!(remarks.iter().all(|remark| remark["kind"] != "missed"), "{remarks:#?}");
}

/// `reduction(&&: b)` and `reduction(||: b)`, short circuits kept as
/// branches on the accumulator or speculated into selects, agree with the
/// serial loops. A short circuit that stores (the serial loop stops
/// writing at the first failure) is no reduction: that loop is refused.
#[test]
fn logical_reductions() {
    let remarks = check_source_with("logical_reductions", &[]);
    let missed = missed_messages(&remarks);
    assert_eq!(missed.len(), 1, "{missed:#?}");
}

/// A loop holding an `omp ordered simd` region: clang leaves its accesses
/// unmarked (and the region's bounds out of the IR), so Lanewise leaves the
/// loop to LLVM's vectorizer with a remark saying why; a histogram whose
/// lanes collide was updated wrongly before (lost increments at W=8 and 16,
/// 2026-12-07). The loops with `safelen` and without the region next to it
/// are vectorized.
#[test]
fn ordered_simd() {
    let remarks = check_source_with("ordered_simd", &[]);
    let missed = missed_messages(&remarks);
    assert_eq!(missed.len(), 1, "{missed:#?}");
    assert!(missed[0].contains("not marked independent"), "{missed:#?}");
}

/// `#pragma omp parallel for simd` under -fopenmp (clang's outlined loop
/// tests a truncated 64-bit counter and reads unnamed globals): both loops
/// are vectorized and agree with clang's build.
#[test]
fn parallel_for_simd() {
    let remarks = check_source_with("parallel_for_simd", &["-fopenmp"]);
    assert!(missed_messages(&remarks).is_empty(), "{remarks:#?}");
}

/// C++ loops whose calls may throw (`invoke`s unwinding to clang's
/// terminate landing pad outside the loop) are vectorized and agree with
/// clang's build; their bodies call, and the landing pads only the loops
/// reached are gone. A loop whose inlined callee catches the exception
/// itself stays scalar with a remark naming the invoke (issue 14, class 13).
#[test]
fn invoke_calls() {
    let remarks = check_source_with("invoke_calls", &["-fexceptions"]);
    let missed = missed_messages(&remarks);
    assert_eq!(missed.len(), 1, "{missed:#?}");
    assert!(
        missed[0].contains(
            "an exception is caught inside the loop body: `invoke` of `_Z13checked_scalei`"
        ),
        "{missed:#?}"
    );
    let output = scratch_dir("invoke_calls-fexceptions").join("output.ll");
    let text = std::fs::read_to_string(output).unwrap();
    let function = |name: &str| -> String {
        let function = text
            .split("\ndefine ")
            .find(|function| {
                function.lines().next().is_some_and(|l| l.contains(&format!("@{name}(")))
            })
            .unwrap_or_else(|| panic!("the output defines no @{name}"));
        function[..function.find("\n}").unwrap_or(function.len())].to_owned()
    };
    // The guard's function: its only landing pad was the loop's.
    let guarded = function("_Z11guarded_sumPKii");
    assert!(guarded.contains("personality ptr @__gxx_personality_v0"), "{guarded}");
    assert!(!guarded.contains("landingpad") && !guarded.contains(" invoke "), "{guarded}");
    let body = function("_Z11guarded_sumPKii.lanewise.loop0.x16");
    assert!(body.contains("call i32 @_Z13checked_scalei"), "{body}");
    // The refused loop keeps its catch.
    let refused = function("_Z13safely_scaledPKiPii");
    assert!(refused.contains(" invoke ") && refused.contains("landingpad"), "{refused}");
}

/// User-defined reductions (`declare reduction`): scalar private copies
/// vectorize as reductions and agree with clang's build; a private copy in
/// memory that the lanes would share, and a minimum with its index, stay
/// scalar with remarks that say why (issue 14, class 13).
#[test]
fn declare_reduction() {
    let remarks = check_source_with("declare_reduction", &[]);
    let missed: Vec<(&str, &str)> = remarks
        .iter()
        .filter(|remark| remark["kind"] == "missed")
        .map(|remark| (remark["function"].as_str().unwrap(), remark["message"].as_str().unwrap()))
        .collect();
    assert_eq!(missed.len(), 2, "{missed:#?}");
    let quad = missed.iter().find(|(function, _)| *function == "udr_quad_sum");
    assert!(
        quad.is_some_and(|(_, message)| message.contains("reads and writes the stack slot")
            && message.contains("at addresses two iterations may share")),
        "{missed:#?}"
    );
    let minloc = missed.iter().find(|(function, _)| *function == "udr_minloc");
    assert!(
        minloc.is_some_and(|(_, message)| message.contains("a recurrence across iterations")),
        "{missed:#?}"
    );
}

/// `lastprivate(conditional:)`, as clang-22 lowers it (the last value and
/// iteration number in globals, each iteration compared with the number):
/// vectorized with every tail form, agreeing with clang's build and with
/// each other (issue 14, class 13).
#[test]
fn conditional_lastprivate() {
    let mut outputs = Vec::new();
    for form in ["masked", "scalar", "auto"] {
        let checked =
            check_source_with_options("conditional_lastprivate", &[], &["--simd-tail", form]);
        let missed: Vec<&serde_json::Value> =
            checked.remarks.iter().filter(|remark| remark["kind"] == "missed").collect();
        assert!(missed.is_empty(), "--simd-tail {form}: {missed:#?}");
        outputs.push((form, checked.output));
    }
    for (form, output) in &outputs[1..] {
        assert_eq!(&outputs[0].1, output, "masked and {form} tails differ");
    }
}

/// `reduction(inscan, ...)` loops with `#pragma omp scan` (inclusive and
/// exclusive; `+`, `^`, `max`, `*`, float `max` and `+`) and running values read by
/// a comparison are vectorized as prefix scans with every tail form, agree
/// with clang's build, and the integer results of the three forms agree bit
/// for bit; a running value stored before a call that computes the
/// contribution stays scalar with a remark naming the store (issue 14,
/// class 13). Built without unrolling, as `lanewise cc` builds: an unrolled
/// scan (several updates per iteration, each read) stays scalar.
#[test]
fn scan_reductions() {
    let mut exact_outputs = Vec::new();
    for form in ["masked", "scalar", "auto"] {
        let checked = check_source_with_options(
            "scan_reductions",
            &["-fno-unroll-loops"],
            &["--simd-tail", form],
        );
        let scans = checked
            .remarks
            .iter()
            .filter(|remark| remark["kind"] == "passed")
            .filter(|remark| remark["message"].as_str().unwrap().contains(" scan)"))
            .count();
        assert_eq!(scans, 13, "--simd-tail {form}: {:#?}", checked.remarks);
        let missed: Vec<(&str, &str)> = checked
            .remarks
            .iter()
            .filter(|remark| remark["kind"] == "missed")
            .map(|remark| {
                (remark["function"].as_str().unwrap(), remark["message"].as_str().unwrap())
            })
            .collect();
        assert_eq!(missed.len(), 1, "--simd-tail {form}: {missed:#?}");
        assert_eq!(missed[0].0, "exclusive_before_call");
        assert!(
            missed[0].1.contains("is read by `store` before the iteration's update"),
            "{}",
            missed[0].1
        );
        let exact: Vec<String> = checked
            .output
            .lines()
            .filter(|line| line.starts_with("E "))
            .map(String::from)
            .collect();
        exact_outputs.push((form, exact));
    }
    for (form, exact) in &exact_outputs[1..] {
        assert_eq!(&exact_outputs[0].1, exact, "masked and {form} tails differ");
    }
}

/// Short vector types (issue 14, class 12): `declare simd` functions with
/// `float4`, `int4` and `double2` parameters and results get their variants
/// (packed lane-major `<W*N x T>`), and the `omp simd` loops over arrays of
/// such vectors call them (no per-lane calls). Besides AVX2, the program is
/// built by `lanewise cc` for SSE (`b` variants), AVX (`c`) and, on an
/// AVX-512 host, AVX-512 (`e`), each compared with clang's build for the
/// same `-march`; the module of the AVX2 run compiles with llc-22 for
/// x86-64-v2, -v3 and -v4.
#[test]
fn short_vectors() {
    let checked = check_source_with_options("short_vectors", &[], &[]);
    let scratch = scratch_dir("short_vectors");
    let report = scratch.join("report.json");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let functions = report["functions"].as_array().expect("the report lists functions");
    let bodies: Vec<&serde_json::Value> = functions
        .iter()
        .filter(|function| {
            function["name"].as_str().is_some_and(|name| name.contains(".lanewise.loop"))
        })
        .collect();
    // One body per loop (plus masked bodies where the tail form asks for one).
    let unmasked =
        bodies.iter().filter(|body| !body["name"].as_str().unwrap().ends_with(".masked"));
    assert_eq!(unmasked.count(), 7, "{functions:#?}");
    for body in bodies {
        assert!(body["calls"]["vector_variant"].as_u64().unwrap() >= 1, "{body:#}");
        assert_eq!(body["calls"]["per_lane"], 0, "{body:#}");
    }
    assert!(checked.remarks.iter().all(|remark| remark["kind"] == "passed"));
    let output = scratch.join("output.ll");
    for cpu in ["x86-64-v2", "x86-64-v3", "x86-64-v4"] {
        run(Command::new("llc-22")
            .args(["-O2", &format!("-mcpu={cpu}"), "-filetype=obj", "-o"])
            .arg(scratch.join(format!("output.{cpu}.o")))
            .arg(&output));
    }
    let source = sources_dir().join("short_vectors.c");
    let host_has_x86_64_v4 = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512cd")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl");
    let mut marches = vec!["x86-64-v2", "sandybridge"];
    if host_has_x86_64_v4 {
        marches.push("x86-64-v4");
    }
    for march in marches {
        let flags = ["-O3", &format!("-march={march}"), "-fopenmp-simd", "-Wno-pass-failed"];
        let vectorized = scratch.join(format!("vectorized-{march}"));
        let reference = scratch.join(format!("reference-{march}"));
        let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .arg("cc")
            .args(flags)
            .args(["-Rpass=lanewise", "-Rpass-missed=lanewise"])
            .arg(&source)
            .arg("-o")
            .arg(&vectorized)
            .arg("-lm"));
        let remarks = String::from_utf8_lossy(&compiled.stderr);
        assert!(!remarks.contains("remark: loop not vectorized"), "{march}: {remarks}");
        assert!(!remarks.contains("warning"), "{march}: {remarks}");
        run(Command::new("clang-22").args(flags).arg(&source).arg("-o").arg(&reference).arg("-lm"));
        compare_outputs(
            &format!("short_vectors ({march})"),
            &String::from_utf8_lossy(&run(&mut Command::new(&reference)).stdout),
            &String::from_utf8_lossy(&run(&mut Command::new(&vectorized)).stdout),
        );
    }
}

/// Every file of `tests/simd_loops/` has a test above.
#[test]
fn every_source_has_a_test() {
    let known = [
        "map_call",
        "divergent_if",
        "inner_while",
        "early_exit_flag",
        "int_reductions",
        "float_reductions",
        "lastprivate",
        "linear",
        "simdlen",
        "nested",
        "mixed_vector_code",
        "stencil_recurrence",
        "integer_division",
        "integer_division_64",
        "switch_all_cases",
        "tail_forms",
        "exit_stable",
        "conditional_last",
        "recursion",
        "speculative_calls",
        "inline_asm",
        "ordered_simd",
        "parallel_for_simd",
        "logical_reductions",
        "atomics",
        "private_arrays",
        "invoke_calls",
        "declare_reduction",
        "conditional_lastprivate",
        "scan_reductions",
        "short_vectors",
        "libm_exact",
        "irreducible_body",
    ];
    for entry in std::fs::read_dir(sources_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|ext| ext == "c" || ext == "cpp") {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(known.contains(&stem.as_str()), "{} has no test", path.display());
        }
    }
}

/// On AVX-512, a divergent loop narrowing leaves at its width is named in
/// the loop's remark with the reason: table_lookup_gather's binary search
/// (its dynamic uniform-gather test reads lanes by position). As its loads
/// wait for the previous iteration's data, the loop then gets twice the
/// lanes: W=64, four registers per value.
#[test]
fn loops_left_wide_say_why_in_the_remark() {
    let scratch = scratch_dir("not_narrowed");
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg("cc")
        .args(["-O3", "-march=x86-64-v4", "-mprefer-vector-width=512", "-fopenmp-simd"])
        .args(["-Rpass=lanewise", "-S", "-I"])
        .arg(&programs)
        .arg(programs.join("table_lookup_gather.c"))
        .arg("-o")
        .arg(scratch.join("out.s")));
    let remarks = String::from_utf8_lossy(&compiled.stderr);
    let loop_remark = remarks
        .lines()
        .find(|line| line.contains("vectorized loop at W="))
        .unwrap_or_else(|| panic!("no loop remark in\n{remarks}"));
    assert!(
        loop_remark.contains("divergent loop at %") && loop_remark.contains(" not narrowed: "),
        "{loop_remark}"
    );
    assert!(loop_remark.contains("vectorized loop at W=64 "), "{loop_remark}");
}

/// On AVX-512, a body whose inner loop waits on a long recurrence gets twice
/// the lanes (`loop_vectorize::latency`): bisection_flag's bisection steps,
/// at W=64. newton_inner_while's divergent loop divides: its instructions
/// take as long as its recurrence, and it keeps W=32 (and its narrowing).
#[test]
fn latency_bound_inner_loops_get_twice_the_lanes() {
    let scratch = scratch_dir("latency_bound");
    let programs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/programs");
    let loop_remark = |program: &str| {
        let compiled = run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .arg("cc")
            .args(["-O3", "-march=x86-64-v4", "-mprefer-vector-width=512", "-fopenmp-simd"])
            .args(["-Rpass=lanewise", "-S", "-I"])
            .arg(&programs)
            .arg(programs.join(program))
            .arg("-o")
            .arg(scratch.join("out.s")));
        let remarks = String::from_utf8_lossy(&compiled.stderr).into_owned();
        remarks
            .lines()
            .find(|line| line.contains("vectorized loop at W="))
            .unwrap_or_else(|| panic!("no loop remark in\n{remarks}"))
            .to_owned()
    };
    let bisection = loop_remark("bisection_flag.c");
    assert!(bisection.contains("vectorized loop at W=64 "), "{bisection}");
    assert!(bisection.contains("W doubled: an inner loop waits on a "), "{bisection}");
    let newton = loop_remark("newton_inner_while.c");
    assert!(newton.contains("vectorized loop at W=32 "), "{newton}");
}
