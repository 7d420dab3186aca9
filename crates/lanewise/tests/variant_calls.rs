//! Vector variants calling vector variants (issue 5, item 3).
//!
//! - The corpus kernels with calls between `declare simd` functions
//!   (tests/corpus/calls_variants.c, div_calls_*.c; their machine code is
//!   checked lane by lane by the corpus test) use the callee's variants: the
//!   `--report` counts no per-lane call, and masked call sites call `M`
//!   variants.
//! - A callee compiled by GCC (its simd clones) and callers vectorized by
//!   Lanewise agree with the scalar callers, on machine code.
//! - With `Options::annotate_variants`, clang-22 -O3's loop vectorizer calls
//!   a Lanewise variant from a plain loop.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let directory = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("variant_calls").join(name);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// Runs the lanewise binary on `scalar_ll` with `--report`; returns the
/// vector module text and `(function name -> (vector_variant, per_lane))`.
fn lanewise_with_report(
    directory: &Path,
    scalar_ll: &Path,
) -> (String, HashMap<String, (u64, u64)>) {
    let vector_ll = directory.join("vec.ll");
    let report_path = directory.join("report.json");
    run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(scalar_ll)
        .arg("-o")
        .arg(&vector_ll)
        .arg("--report")
        .arg(&report_path));
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    let mut calls = HashMap::new();
    for function in report["functions"].as_array().unwrap() {
        let name = function["name"].as_str().unwrap().to_owned();
        let counts = &function["calls"];
        calls.insert(
            name,
            (counts["vector_variant"].as_u64().unwrap(), counts["per_lane"].as_u64().unwrap()),
        );
    }
    (std::fs::read_to_string(&vector_ll).unwrap(), calls)
}

/// The body of the function `name` in LLVM IR text.
fn function_body<'t>(module: &'t str, name: &str) -> &'t str {
    let start = module
        .find(&format!("@{name}("))
        .and_then(|position| module[..position].rfind("define "))
        .unwrap_or_else(|| panic!("no definition of {name}"));
    let end = module[start..].find("\n}\n").map_or(module.len(), |end| start + end);
    &module[start..end]
}

/// The callees of `call` instructions in a function body.
fn callees(body: &str) -> Vec<String> {
    body.lines()
        .filter(|line| line.contains("call ") && !line.trim_start().starts_with("declare"))
        .filter_map(|line| {
            let at = line.find(" @")? + 2;
            Some(line[at..].chars().take_while(|c| *c != '(').collect())
        })
        .filter(|name: &String| !name.starts_with("llvm."))
        .collect()
}

/// A caller of a corpus kernel: caller, callee, calls per caller variant.
type CallerExpectation = (&'static str, &'static str, u64);

/// Kernel -> its callers.
const CORPUS_CALLERS: &[(&str, &[CallerExpectation])] = &[
    (
        "calls_variants",
        &[
            ("calls_varying", "calls_square_plus", 2),
            ("calls_linear_uniform", "calls_load_scaled", 1),
            ("calls_in_parts", "calls_square_plus", 1),
            ("calls_side_effects", "calls_record", 1),
        ],
    ),
    (
        "div_calls_masked",
        &[
            ("masked_guarded_divide", "masked_divide_record", 1),
            ("masked_halve_until_small", "masked_halve", 1),
        ],
    ),
    (
        "div_calls_wide_double",
        &[("wide_caller", "wide_scale", 2), ("wide_masked_caller", "wide_scale", 1)],
    ),
    ("div_calls_int_avx", &[("avx_caller", "avx_mix", 2), ("avx_byte_caller", "avx_byte_mix", 2)]),
];

#[test]
fn corpus_callers_call_variants_not_scalar_functions_per_lane() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
    for (kernel, callers) in CORPUS_CALLERS {
        for level in ["-O0", "-O2"] {
            let directory = scratch(&format!("corpus/{kernel}{level}"));
            let scalar_ll = directory.join("scalar.ll");
            run(Command::new("clang-22")
                .args([level, "-fopenmp-simd", "-S", "-emit-llvm", "-I"])
                .arg(&corpus)
                .arg(corpus.join(format!("{kernel}.c")))
                .arg("-o")
                .arg(&scalar_ll));
            let (module, calls) = lanewise_with_report(&directory, &scalar_ll);
            for (caller, callee, expected) in *callers {
                let variants: Vec<&String> =
                    calls.keys().filter(|name| name.ends_with(&format!("_{caller}"))).collect();
                assert!(
                    variants.len() >= 4,
                    "{kernel} {level}: variants of {caller}: {variants:?}"
                );
                for variant in variants {
                    let context = format!("{kernel} {level}: {variant}");
                    assert_eq!(
                        calls[variant],
                        (*expected, 0),
                        "{context}: (vector_variant, per_lane)"
                    );
                    let called = callees(function_body(&module, variant));
                    assert!(
                        !called.iter().any(|name| name == callee),
                        "{context} calls the scalar {callee}: {called:?}"
                    );
                    let isa = &variant[4..5];
                    let variant_calls: Vec<&String> = called
                        .iter()
                        .filter(|name| {
                            name.starts_with("_ZGV") && name.ends_with(&format!("_{callee}"))
                        })
                        .collect();
                    assert!(
                        !variant_calls.is_empty(),
                        "{context}: no call of a {callee} variant: {called:?}"
                    );
                    for name in &variant_calls {
                        assert_eq!(&name[4..5], isa, "{context} calls {name}: another ISA");
                    }
                    // Divergent branches and masked variants: the calls there are masked.
                    let masked_site = variant.contains('M') && variant.find('M').unwrap() == 5
                        || [
                            "masked_guarded_divide",
                            "masked_halve_until_small",
                            "wide_masked_caller",
                        ]
                        .contains(caller);
                    if masked_site {
                        assert!(
                            variant_calls.iter().all(|name| &name[5..6] == "M"),
                            "{context}: a call under a mask must use an M variant: {variant_calls:?}"
                        );
                    }
                }
            }
        }
    }
}

const GCC_CALLEE: &str = r#"
#pragma omp declare simd
float gcc_poly(float x) { return x * x * 0.5f - x + 3.0f; }

#pragma omp declare simd simdlen(8) notinbranch
double gcc_wide(float x, double y) { return (double)x * y + 1.0; }

#pragma omp declare simd linear(p:1) uniform(n) notinbranch
float gcc_load(const float *p, int n, float x) { return p[0] * x + p[n & 3]; }
"#;

const LANEWISE_CALLERS: &str = r#"
#pragma omp declare simd
float gcc_poly(float x);
#pragma omp declare simd simdlen(8) notinbranch
double gcc_wide(float x, double y);
#pragma omp declare simd linear(p:1) uniform(n) notinbranch
float gcc_load(const float *p, int n, float x);

#pragma omp declare simd notinbranch
float poly_caller(float x) { return gcc_poly(x) + gcc_poly(x * 2.0f); }

#pragma omp declare simd notinbranch
float poly_masked_caller(float x) { return x > 1.0f ? gcc_poly(x) * 3.0f : x; }

#pragma omp declare simd simdlen(8) notinbranch
double wide_caller(float x, double y) { return gcc_wide(x, y) - y; }

#pragma omp declare simd linear(p:1) uniform(n) notinbranch
float load_caller(const float *p, int n, float x) { return gcc_load(p, n, x) * 2.0f; }
"#;

/// Calls the SSE and AVX2 variants of the callers (compiled with -mavx2) and
/// compares every lane with the scalar callers, bit for bit.
const GCC_DRIVER: &str = r#"
#include <stdio.h>
#include <string.h>
typedef float v4f __attribute__((ext_vector_type(4)));
typedef float v8f __attribute__((ext_vector_type(8)));
typedef double v2d __attribute__((ext_vector_type(2)));
typedef double v4d __attribute__((ext_vector_type(4)));
typedef struct { v4d part[2]; } v8d_in_ymm_parts;
typedef struct { v2d part[4]; } v8d_in_xmm_parts;
float poly_caller(float);
float poly_masked_caller(float);
double wide_caller(float, double);
float load_caller(const float *, int, float);
v4f _ZGVbN4v_poly_caller(v4f);
v8f _ZGVdN8v_poly_caller(v8f);
v4f _ZGVbN4v_poly_masked_caller(v4f);
v8f _ZGVdN8v_poly_masked_caller(v8f);
v8d_in_ymm_parts _ZGVdN8vv_wide_caller(v8f, v4d, v4d);
v8d_in_xmm_parts _ZGVbN8vv_wide_caller(v4f, v4f, v2d, v2d, v2d, v2d);
v4f _ZGVbN4l4uv_load_caller(const float *, int, v4f);
v8f _ZGVdN8l4uv_load_caller(const float *, int, v8f);

static unsigned long long state = 88172645463325252ull;
static float random_float(void) {
    state ^= state << 13; state ^= state >> 7; state ^= state << 17;
    return (float)((long long)(state % 4000001) - 2000000) / 100000.0f;
}
static int mismatches = 0;
static void check_float(const char *what, int lane, float expected, float got) {
    if (memcmp(&expected, &got, sizeof expected) != 0 && mismatches++ < 10)
        printf("%s lane %d: expected %a got %a\n", what, lane, expected, got);
}
static void check_double(const char *what, int lane, double expected, double got) {
    if (memcmp(&expected, &got, sizeof expected) != 0 && mismatches++ < 10)
        printf("%s lane %d: expected %a got %a\n", what, lane, expected, got);
}

int main(void) {
    static float table[64];
    for (int i = 0; i < 64; i++) table[i] = random_float();
    for (int trial = 0; trial < 500; trial++) {
        float x[8]; double y[8];
        for (int l = 0; l < 8; l++) { x[l] = random_float(); y[l] = random_float(); }
        v8f x8; v4f x4; v4d y_low, y_high; v2d y2[4];
        for (int l = 0; l < 8; l++) x8[l] = x[l];
        for (int l = 0; l < 4; l++) { x4[l] = x[l]; y_low[l] = y[l]; y_high[l] = y[4 + l]; }
        for (int l = 0; l < 8; l++) y2[l / 2][l % 2] = y[l];
        v4f x_high4; for (int l = 0; l < 4; l++) x_high4[l] = x[4 + l];
        v8f r8 = _ZGVdN8v_poly_caller(x8);
        v4f r4 = _ZGVbN4v_poly_caller(x4);
        v8f m8 = _ZGVdN8v_poly_masked_caller(x8);
        v4f m4 = _ZGVbN4v_poly_masked_caller(x4);
        v8d_in_ymm_parts w_avx = _ZGVdN8vv_wide_caller(x8, y_low, y_high);
        v8d_in_xmm_parts w_sse = _ZGVbN8vv_wide_caller(x4, x_high4, y2[0], y2[1], y2[2], y2[3]);
        int n = trial & 7;
        const float *p = table + (trial % 32);
        v8f l8 = _ZGVdN8l4uv_load_caller(p, n, x8);
        v4f l4 = _ZGVbN4l4uv_load_caller(p, n, x4);
        for (int l = 0; l < 8; l++) {
            check_float("d poly_caller", l, poly_caller(x[l]), r8[l]);
            check_float("d poly_masked_caller", l, poly_masked_caller(x[l]), m8[l]);
            check_double("d wide_caller", l, wide_caller(x[l], y[l]), w_avx.part[l / 4][l % 4]);
            check_double("b wide_caller", l, wide_caller(x[l], y[l]), w_sse.part[l / 2][l % 2]);
            check_float("d load_caller", l, load_caller(p + l, n, x[l]), l8[l]);
        }
        for (int l = 0; l < 4; l++) {
            check_float("b poly_caller", l, poly_caller(x[l]), r4[l]);
            check_float("b poly_masked_caller", l, poly_masked_caller(x[l]), m4[l]);
            check_float("b load_caller", l, load_caller(p + l, n, x[l]), l4[l]);
        }
    }
    printf("%d mismatches\n", mismatches);
    return 0;
}
"#;

#[test]
fn lanewise_callers_call_gcc_simd_clones() {
    let directory = scratch("gcc_callee");
    let write = |name: &str, text: &str| {
        let path = directory.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let callee_c = write("callee.c", GCC_CALLEE);
    let callers_c = write("callers.c", LANEWISE_CALLERS);
    let driver_c = write("driver.c", GCC_DRIVER);
    let callee_o = directory.join("callee.o");
    run(Command::new("gcc")
        .args(["-O2", "-fopenmp-simd", "-c"])
        .arg(&callee_c)
        .arg("-o")
        .arg(&callee_o));
    let clones = run(Command::new("nm").arg(&callee_o));
    for clone in ["_ZGVdM8v_gcc_poly", "_ZGVbN8vv_gcc_wide", "_ZGVdN8l4uv_gcc_load"] {
        assert!(clones.contains(clone), "GCC made no {clone}:\n{clones}");
    }
    let scalar_ll = directory.join("callers.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-S", "-emit-llvm"])
        .arg(&callers_c)
        .arg("-o")
        .arg(&scalar_ll));
    let (module, calls) = lanewise_with_report(&directory, &scalar_ll);
    for (variant, callee, expected_calls) in [
        ("_ZGVdN8v_poly_caller", "_ZGVdN8v_gcc_poly", 2),
        ("_ZGVbN4v_poly_caller", "_ZGVbN4v_gcc_poly", 2),
        ("_ZGVdN8v_poly_masked_caller", "_ZGVdM8v_gcc_poly", 1),
        ("_ZGVbN4v_poly_masked_caller", "_ZGVbM4v_gcc_poly", 1),
        ("_ZGVdN8vv_wide_caller", "_ZGVdN8vv_gcc_wide", 1),
        ("_ZGVbN8vv_wide_caller", "_ZGVbN8vv_gcc_wide", 1),
        ("_ZGVdN8l4uv_load_caller", "_ZGVdN8l4uv_gcc_load", 1),
    ] {
        assert_eq!(calls[variant], (expected_calls, 0), "{variant}: (vector_variant, per_lane)");
        let called = callees(function_body(&module, variant));
        assert!(
            called.iter().any(|name| name == callee),
            "{variant} calls {called:?}, not {callee}"
        );
    }
    let vector_o = directory.join("callers.o");
    run(Command::new("clang-22")
        .args(["-O2", "-c"])
        .arg(directory.join("vec.ll"))
        .arg("-o")
        .arg(&vector_o));
    let executable = directory.join("driver");
    run(Command::new("clang-22")
        .args(["-O1", "-mavx2"])
        .arg(&driver_c)
        .arg(&vector_o)
        .arg(&callee_o)
        .arg("-o")
        .arg(&executable));
    let output = run(&mut Command::new(&executable));
    assert_eq!(output.trim(), "0 mismatches", "{output}");
}

const LV_CALLEES: &str = r#"
#pragma omp declare simd notinbranch
float lv_scale(float x) { return x * 2.5f - 1.0f; }
#pragma omp declare simd notinbranch
int lv_mix(int x) { return (x ^ 0x55) * 3; }
"#;

const LV_LOOPS: &str = r#"
#pragma omp declare simd notinbranch
float lv_scale(float x);
#pragma omp declare simd notinbranch
int lv_mix(int x);
void lv_scale_all(float *restrict out, const float *restrict in, int n) {
    for (int i = 0; i < n; i++) out[i] = lv_scale(in[i]);
}
void lv_mix_all(int *restrict out, const int *restrict in, int n) {
    for (int i = 0; i < n; i++) out[i] = lv_mix(in[i]);
}
"#;

const LV_DRIVER: &str = r#"
#include <stdio.h>
#include <string.h>
float lv_scale(float x);
int lv_mix(int x);
void lv_scale_all(float *restrict out, const float *restrict in, int n);
void lv_mix_all(int *restrict out, const int *restrict in, int n);
int main(void) {
    static float in[1003], out[1003];
    static int in_i[1003], out_i[1003];
    for (int i = 0; i < 1003; i++) { in[i] = (float)(i * 37 % 101) - 50.25f; in_i[i] = i * 7919 - 3000; }
    lv_scale_all(out, in, 1003);
    lv_mix_all(out_i, in_i, 1003);
    int mismatches = 0;
    for (int i = 0; i < 1003; i++) {
        float expected = lv_scale(in[i]);
        if (memcmp(&expected, &out[i], sizeof expected) != 0) mismatches++;
        if (out_i[i] != lv_mix(in_i[i])) mismatches++;
    }
    printf("%d mismatches\n", mismatches);
    return 0;
}
"#;

#[test]
fn clangs_loop_vectorizer_calls_annotated_variants() {
    let directory = scratch("annotate");
    let write = |name: &str, text: &str| {
        let path = directory.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    // The variants, from another translation unit.
    let callees_ll = directory.join("callees.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-S", "-emit-llvm"])
        .arg(write("callees.c", LV_CALLEES))
        .arg("-o")
        .arg(&callees_ll));
    let callees_vec = directory.join("callees.vec.ll");
    run(Command::new(env!("CARGO_BIN_EXE_lanewise")).arg(&callees_ll).arg("-o").arg(&callees_vec));

    // The loops: unoptimized IR of -O3 (the loop vectorizer has not run yet),
    // annotated by Lanewise, then the whole -O3 pipeline.
    let loops_ll = directory.join("loops.ll");
    run(Command::new("clang-22")
        .args([
            "-O3",
            "-mavx2",
            "-fopenmp-simd",
            "-S",
            "-emit-llvm",
            "-Xclang",
            "-disable-llvm-optzns",
        ])
        .arg(write("loops.c", LV_LOOPS))
        .arg("-o")
        .arg(&loops_ll));
    let options = lanewise::Options { annotate_variants: true, ..lanewise::Options::default() };
    let (annotated, _) =
        lanewise::vectorize_ir(&std::fs::read(&loops_ll).unwrap(), &options).unwrap();
    let annotated_ll = write("loops.annotated.ll", &annotated);
    // One register per value and the caller's ISA at most: the AVX2, AVX and
    // SSE variants, not AVX-512's.
    let attribute = |scalar: &str| -> String {
        let key = "\"vector-function-abi-variant\"=\"";
        annotated
            .lines()
            .filter_map(|line| line.find(key).map(|at| &line[at + key.len()..]))
            .map(|rest| rest[..rest.find('"').unwrap()].to_owned())
            .find(|value| value.contains(&format!("_{scalar}(")))
            .unwrap_or_else(|| panic!("no mapping for {scalar} in:\n{annotated}"))
    };
    assert_eq!(
        attribute("lv_scale"),
        "_ZGVdN8v_lv_scale(_ZGVdN8v_lv_scale),_ZGVcN8v_lv_scale(_ZGVcN8v_lv_scale),\
         _ZGVbN4v_lv_scale(_ZGVbN4v_lv_scale)"
    );
    // The AVX int variant under GCC's name (`_ZGVcN4`, one xmm register per
    // value, see `variant_calls::gcc_avx_twin`) is LLVM-native; clang's
    // `_ZGVcN8` (128-bit halves) is not.
    assert_eq!(
        attribute("lv_mix"),
        "_ZGVdN8v_lv_mix(_ZGVdN8v_lv_mix),_ZGVcN4v_lv_mix(_ZGVcN4v_lv_mix),\
         _ZGVbN4v_lv_mix(_ZGVbN4v_lv_mix)"
    );
    assert!(annotated.contains("declare <8 x float> @_ZGVdN8v_lv_scale(<8 x float>)"));
    assert!(annotated.contains("@llvm.compiler.used"));

    let loops_o = directory.join("loops.o");
    run(Command::new("clang-22")
        .args(["-O3", "-mavx2", "-c"])
        .arg(&annotated_ll)
        .arg("-o")
        .arg(&loops_o));
    let disassembly = run(Command::new("objdump").args(["-dr"]).arg(&loops_o));
    for variant in ["_ZGVdN8v_lv_scale", "_ZGVdN8v_lv_mix"] {
        assert!(
            disassembly.contains(&format!("R_X86_64_PLT32\t{variant}")),
            "clang's loop vectorizer does not call {variant}:\n{disassembly}"
        );
    }
    let callees_o = directory.join("callees.o");
    run(Command::new("clang-22").args(["-O2", "-c"]).arg(&callees_vec).arg("-o").arg(&callees_o));
    let executable = directory.join("driver");
    run(Command::new("clang-22")
        .args(["-O1"])
        .arg(write("driver.c", LV_DRIVER))
        .arg(&loops_o)
        .arg(&callees_o)
        .arg("-o")
        .arg(&executable));
    let output = run(&mut Command::new(&executable));
    assert_eq!(output.trim(), "0 mismatches", "{output}");
}

const REFERENCED_ONLY: &str = r#"
#pragma omp declare simd notinbranch
__attribute__((noinline)) int called_in_loop(int x) {
    int steps = 0;
    while (x > 1) { x = (x & 1) ? 3 * x + 1 : x / 2; steps++; }
    return steps;
}

#pragma omp declare simd notinbranch
__attribute__((noinline)) int called_by_variant(int x) { return x * 3 + 1; }

#pragma omp declare simd notinbranch
__attribute__((noinline)) int calls_another(int x) { return called_by_variant(x) ^ x; }

#pragma omp declare simd notinbranch
int never_called(int x) { return x - 7; }

void loop(int *a, int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) a[i] = called_in_loop(a[i]) + calls_another(a[i]);
}
"#;

/// `--variants referenced` (`VariantSelection::Referenced`): only the
/// variants the module's loops call, and those these variants call in
/// turn; `all` produces every variant the attributes name.
#[test]
fn referenced_variants_are_those_the_module_calls() {
    let directory = scratch("referenced_variants");
    let source = directory.join("referenced.c");
    std::fs::write(&source, REFERENCED_ONLY).unwrap();
    let input = directory.join("referenced.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v3", "-fopenmp-simd", "-fno-vectorize", "-S", "-emit-llvm"])
        .arg(&source)
        .arg("-o")
        .arg(&input));
    let input = std::fs::read(&input).unwrap();
    let defined_variants = |variants: lanewise::VariantSelection| -> Vec<String> {
        let options = lanewise::Options {
            simd_loops: true,
            variants,
            weak_variant_fallbacks: true,
            ..lanewise::Options::default()
        };
        let (output, _) = lanewise::vectorize_ir(&input, &options).unwrap();
        let mut names: Vec<String> = output
            .lines()
            .filter(|line| line.starts_with("define"))
            .filter_map(|line| {
                let name = &line[line.find("@_ZGV")? + 1..];
                Some(name[..name.find('(')?].to_owned())
            })
            .collect();
        names.sort();
        names
    };
    let referenced = defined_variants(lanewise::VariantSelection::Referenced);
    assert_eq!(
        referenced,
        ["_ZGVdN8v_called_by_variant", "_ZGVdN8v_called_in_loop", "_ZGVdN8v_calls_another"],
        "{referenced:?}"
    );
    let all = defined_variants(lanewise::VariantSelection::All);
    for function in ["called_in_loop", "called_by_variant", "calls_another", "never_called"] {
        let count = all.iter().filter(|name| name.ends_with(&format!("_{function}"))).count();
        // b, c, d, e (notinbranch: unmasked only) and GCC's name of the
        // AVX one.
        assert_eq!(count, 5, "{function}: {all:?}");
    }
}

/// `--variants shared` (`VariantSelection::Shared`, the default of `lanewise
/// cc` and the plugin): every variant exists; those the module calls have
/// bodies of their own, the others are adapters over one internal masked
/// body per function at the widest ISA the target enables (AVX2 here),
/// except where a masked body would call a function per lane that has
/// unmasked variants only (`calls_another` calls `called_by_variant`).
#[test]
fn shared_variants_are_adapters_over_one_body() {
    let directory = scratch("shared_variants");
    let source = directory.join("shared.c");
    std::fs::write(&source, REFERENCED_ONLY).unwrap();
    let input = directory.join("shared.ll");
    run(Command::new("clang-22")
        .args(["-O2", "-march=x86-64-v3", "-fopenmp-simd", "-fno-vectorize", "-S", "-emit-llvm"])
        .arg(&source)
        .arg("-o")
        .arg(&input));
    let options = lanewise::Options {
        simd_loops: true,
        variants: lanewise::VariantSelection::Shared,
        weak_variant_fallbacks: true,
        ..lanewise::Options::default()
    };
    let (output, report) =
        lanewise::vectorize_ir(&std::fs::read(&input).unwrap(), &options).unwrap();
    let shared_body_of = |name: &str| -> Option<String> {
        let function = report.functions.iter().find(|function| function.name == name);
        function.unwrap_or_else(|| panic!("{name} was not produced")).shared_body.clone()
    };
    for function in ["called_in_loop", "called_by_variant", "never_called"] {
        let body = format!("_ZGVdM8v_{function}");
        assert!(output.contains(&format!("define internal <8 x i32> @{body}(")), "{output}");
        for variant in ["bN4", "cN8", "cN4", "eN16"] {
            let name = format!("_ZGV{variant}v_{function}");
            assert_eq!(shared_body_of(&name), Some(body.clone()), "{name}");
        }
    }
    // Called by the loop or by another variant: a body of its own.
    assert_eq!(shared_body_of("_ZGVdN8v_called_in_loop"), None);
    assert_eq!(shared_body_of("_ZGVdN8v_called_by_variant"), None);
    assert_eq!(shared_body_of("_ZGVdN8v_never_called"), Some("_ZGVdM8v_never_called".into()));
    for variant in ["bN4", "cN8", "cN4", "dN8", "eN16"] {
        assert_eq!(shared_body_of(&format!("_ZGV{variant}v_calls_another")), None, "{variant}");
    }
    assert!(!output.contains("@_ZGVdM8v_calls_another("), "{output}");
}

/// Two files, each with its own `static` declare-simd function `f` (one
/// whose variants Lanewise builds, one it refuses, so its callers get
/// per-lane fallbacks), called from omp simd loops in both.
const STATIC_TWINS: [(&str, &str); 2] = [
    (
        "first.c",
        r#"
#pragma omp declare simd notinbranch
__attribute__((noinline)) static float f(float x) { return x * 2.0f; }
#pragma omp declare simd notinbranch
__attribute__((noinline)) static float h(float x) {
    float r;
    __asm__ volatile("" : "=x"(r) : "0"(x));
    return r - 3.0f;
}
float first(const float *v, int n) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++) s += f(v[i]) + h(v[i]);
    return s;
}
"#,
    ),
    (
        "second.c",
        r#"
#include <stdio.h>
#pragma omp declare simd notinbranch
__attribute__((noinline)) static float f(float x) { return x + 1.0f; }
#pragma omp declare simd notinbranch
__attribute__((noinline)) static float h(float x) {
    float r;
    __asm__ volatile("" : "=x"(r) : "0"(x));
    return r * 0.5f;
}
float first(const float *v, int n);
int main(void) {
    float v[100];
    for (int i = 0; i < 100; i++) v[i] = (float)i;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < 100; i++) s += f(v[i]) + h(v[i]);
    printf("%g %g\n", first(v, 100), s);
    return 0;
}
"#,
    ),
];

/// A C++ `inline` declare-simd function in a header, used by two files.
const INLINE_HEADER: &str = r#"
#pragma omp declare simd notinbranch
__attribute__((noinline)) inline float g(float x) {
    while (x > 2.0f) x *= 0.5f;
    return x;
}
"#;

const INLINE_USERS: [(&str, &str); 2] = [
    (
        "one.cpp",
        r#"
#include "g.h"
float one(const float *v, int n) {
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < n; i++) s += g(v[i]);
    return s;
}
"#,
    ),
    (
        "two.cpp",
        r#"
#include <cstdio>
#include "g.h"
float one(const float *v, int n);
int main() {
    float v[100];
    for (int i = 0; i < 100; i++) v[i] = i * 0.37f;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < 100; i++) s += g(v[i]);
    std::printf("%g %g\n", one(v, 100), s);
}
"#,
    ),
];

/// The variants (and per-lane fallbacks) of a `static` function are local,
/// those of a C++ `inline` function merge like it: before, two files'
/// `static f` gave duplicate `_ZGV..._f` symbols (or, as weak fallbacks,
/// one file's loop called the other file's `f`), and an inline function's
/// variants were defined once per file.
#[test]
fn variants_have_their_scalar_functions_linkage() {
    let directory = scratch("variant_linkage");
    let write = |name: &str, text: &str| {
        let path = directory.join(name);
        std::fs::write(&path, text).unwrap();
        path
    };
    let static_sources: Vec<PathBuf> =
        STATIC_TWINS.iter().map(|(name, text)| write(name, text)).collect();
    write("g.h", INLINE_HEADER);
    let inline_sources: Vec<PathBuf> =
        INLINE_USERS.iter().map(|(name, text)| write(name, text)).collect();
    for (driver, clang, sources, stem) in [
        ("cc", "clang-22", &static_sources, "static"),
        ("c++", "clang++-22", &inline_sources, "inline"),
    ] {
        let reference = directory.join(format!("{stem}.clang"));
        run(Command::new(clang)
            .args(["-O2", "-fopenmp-simd", "-Wno-pass-failed"])
            .args(sources)
            .arg("-o")
            .arg(&reference));
        let vectorized = directory.join(format!("{stem}.lanewise"));
        run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
            .args([driver, "-O2", "-march=x86-64-v3", "-fopenmp-simd", "-Wno-pass-failed", "-w"])
            .args(sources)
            .arg("-o")
            .arg(&vectorized));
        let expected = run(&mut Command::new(&reference));
        assert_eq!(run(&mut Command::new(&vectorized)), expected, "{stem}");
    }
    // The static functions' variants and fallbacks are local symbols.
    let object = directory.join("first.o");
    run(Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .args(["cc", "-O2", "-march=x86-64-v3", "-fopenmp-simd", "-w", "-c"])
        .arg(&static_sources[0])
        .arg("-o")
        .arg(&object));
    let symbols = run(Command::new("nm").arg(&object));
    let variants: Vec<&str> = symbols.lines().filter(|line| line.contains(" _ZGV")).collect();
    assert!(!variants.is_empty(), "{symbols}");
    assert!(variants.iter().all(|line| line.contains(" t _ZGV")), "{symbols}");
}
