//! Round trip on real clang-22 output: every function of a C file compiled at
//! -O0..-O3 is canonicalized, lifted, lowered back as `NAME.roundtrip` into
//! the same module, checked by the LLVM verifier, compiled to machine code
//! and linked with a C driver that calls the original and the round-tripped
//! function on many inputs and compares the results bit for bit.
//!
//! The tests need `clang-22`; without it they print why and pass.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use lanewise_llvm::{with_module_from_bytes, BridgeError, OutputFormat};

fn clang_available() -> bool {
    let found =
        Command::new("clang-22").arg("--version").output().is_ok_and(|out| out.status.success());
    if !found {
        eprintln!("SKIPPED: clang-22 is not installed; the round-trip tests need it");
    }
    found
}

/// A fresh scratch directory for one test.
fn scratch_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lanewise-llvm-{test}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{command:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Compiles C `source` to LLVM IR text with clang-22 at `opt_level`.
fn emit_llvm(dir: &Path, stem: &str, source: &str, opt_level: &str) -> Vec<u8> {
    let c_path = dir.join(format!("{stem}.c"));
    std::fs::write(&c_path, source).unwrap();
    let ll_path = dir.join(format!("{stem}{opt_level}.ll"));
    run(Command::new("clang-22")
        .args(["-S", "-emit-llvm", "-fopenmp-simd", "-fno-discard-value-names", opt_level])
        .arg(&c_path)
        .arg("-o")
        .arg(&ll_path));
    std::fs::read(&ll_path).unwrap()
}

/// The C functions of the round trip. Every integer width, half, float and
/// double, loops, a switch, structs by pointer and by value, libm calls and
/// intrinsics, globals, constant expressions, vectors, indirect calls.
const KERNELS: &str = r#"
#include <math.h>
#include <stdint.h>

typedef struct { float x, y, z; int tag; } vec3;
typedef struct { double a, b; } dpair;
typedef float v4f __attribute__((vector_size(16)));

int32_t counter = 7;
static const int table[8] = {3, 1, 4, 1, 5, 9, 2, 6};
int32_t gdata[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

uint8_t u8_ops(uint8_t a, uint8_t b) { return (uint8_t)(a * b + (a >> 3) - (b ^ 0x5a)); }
int8_t i8_ops(int8_t a, int8_t b) { return (int8_t)(a / (b | 1) + a % 7 - (a < b)); }
int16_t i16_ops(int16_t a, int16_t b) { return (int16_t)((a << 2) - b * 3 + (a & b) + (a > 100 ? b : a)); }
int32_t i32_ops(int32_t a, int32_t b) { return b != 0 && b != -1 ? a / b + a % b : a * 3 - (a >> 2); }
uint32_t u32_ops(uint32_t a, uint32_t b) {
  return ((a >> (b & 31)) | (a << ((32 - b) & 31))) ^ (b ? a / b : 0u) ^ (a % (b | 1u));
}
int64_t i64_ops(int64_t a, int64_t b) {
  int64_t d = (b & 0xffff) + 1;
  return a * b - (a >> 7) + a / d + a % d;
}
uint64_t u64_ops(uint64_t a, uint64_t b) { return (a * 0x9E3779B97F4A7C15ull) ^ (b >> 13) ^ (a / ((b & 0xff) + 1)); }
uint64_t wide_mul(uint64_t a, uint64_t b) {
  unsigned __int128 p = (unsigned __int128)a * b;
  p ^= ((unsigned __int128)0x0123456789abcdefull << 64) | 0xfedcba9876543210ull;
  return (uint64_t)(p >> 64) ^ (uint64_t)p;
}
_Float16 half_ops(_Float16 a, _Float16 b) { return a * b + a - (_Float16)0.5f; }
float half_widen(_Float16 h) { return (float)h * 2.0f + 1.0f; }
float f32_ops(float a, float b) { return a * b - a / (b + 1.5f) + fmaf(a, b, 1.0f) + fabsf(b); }
double f64_ops(double a, double b) { return sqrt(fabs(a)) + b * a - floor(b) + fmax(a, b); }
float conversions(int a, double d, unsigned u, int64_t l) {
  return (float)a + (float)d + (float)u + (float)(int8_t)a + (float)(uint16_t)u + (float)l + (float)(unsigned)(d > 0 ? d : 0);
}
int compare_select(float a, float b) { return a < b ? 1 : a == b ? 2 : a != a ? 3 : 4; }
int bools(int a, int b) { return (a > b && b != 0) || a == 3; }
int loop_sum(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; i++) s += p[i] * (i & 3);
  return s;
}
void saxpy(float a, const float *x, float *y, int n) {
  for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
int classify(int x) {
  switch (x) {
  case 0: return 10;
  case 1: return 20;
  case 5: return 7;
  case 100: return -1;
  default: return x * 2;
  }
}
float struct_dot(const vec3 *a, const vec3 *b) { return a->x * b->x + a->y * b->y + a->z * b->z + (float)a->tag; }
void struct_scale(vec3 *v, float s) { v->x *= s; v->y *= s; v->z *= s; v->tag += 1; }
dpair make_pair(double a, double b) { dpair r = {a + b, a - b}; return r; }
int use_globals(int i) { counter += i; return table[i & 7] + counter + gdata[i & 15]; }
intptr_t global_offset(void) { return (intptr_t)&gdata[3]; }
int *address_of(int i) { return &gdata[i & 15]; }
int collatz(int n) {
  int steps = 0;
  while (n > 1 && steps < 1000) { n = (n & 1) ? 3 * n + 1 : n / 2; steps++; }
  return steps;
}
float row_max(const float *m, int rows, int cols) {
  float best = -INFINITY;
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++) {
      float v = m[r * cols + c];
      if (v != v) continue;
      if (v > best) best = v;
      else if (v < -100.0f) break;
    }
  return best;
}
static int helper(int x) { return x * x + 1; }
int calls_helper(int x) { return helper(x) + helper(x + 1); }
int call_indirect(int (*f)(int), int x) { return f(x) + 1; }
v4f vector_ops(v4f a, v4f b) { return a * b + __builtin_shufflevector(a, b, 0, 5, 2, 7); }
float vector_lane(v4f a, int i) { return a[i & 3] + a[1]; }
int volatile_io(volatile int *p, int v) { *p = v; return *p + 1; }
int to_int(double d, float f) { return (fabs(d) < 1e9 ? (int)d : 0) + (fabsf(f) < 1e9f ? (int)f : 0); }
int local_array(int i) {
  int buf[8];
  for (int k = 0; k < 8; k++) buf[k] = k * k - i;
  return buf[i & 7];
}
int add_overflows(int a, int b) { int r; return __builtin_add_overflow(a, b, &r) ? -1 : r; }
int checked(int x) {
  if (x < -1000000) __builtin_trap();
  return x + 1;
}
float as_float(uint32_t u) { float f; __builtin_memcpy(&f, &u, 4); return f; }
int *from_int(intptr_t x) { return (int *)x; }
int atomics_io(int *p, int v) {
  int a = __atomic_fetch_add(&p[0], v, __ATOMIC_SEQ_CST);
  int b = __atomic_exchange_n(&p[1], a, __ATOMIC_ACQ_REL);
  int c = __atomic_fetch_nand(&p[2], v, __ATOMIC_RELAXED);
  int expected = v & 3;
  int ok = __atomic_compare_exchange_n(&p[3], &expected, b, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
  float f = __atomic_fetch_sub((float *)&p[4], 0.5f, __ATOMIC_SEQ_CST);
  return a + b + c + expected + ok + (int)f;
}
"#;

/// The C driver: calls each original function and its round trip
/// (`NAME.roundtrip`, reached through an asm label) on many inputs.
const DRIVER: &str = r#"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct { float x, y, z; int tag; } vec3;
typedef struct { double a, b; } dpair;
typedef float v4f __attribute__((vector_size(16)));
extern int32_t counter;

#define BOTH(ret, name, params) ret name params; ret rt_##name params __asm__(#name ".roundtrip");
BOTH(int, atomics_io, (int *, int))
BOTH(uint8_t, u8_ops, (uint8_t, uint8_t))
BOTH(int8_t, i8_ops, (int8_t, int8_t))
BOTH(int16_t, i16_ops, (int16_t, int16_t))
BOTH(int32_t, i32_ops, (int32_t, int32_t))
BOTH(uint32_t, u32_ops, (uint32_t, uint32_t))
BOTH(int64_t, i64_ops, (int64_t, int64_t))
BOTH(uint64_t, u64_ops, (uint64_t, uint64_t))
BOTH(uint64_t, wide_mul, (uint64_t, uint64_t))
BOTH(_Float16, half_ops, (_Float16, _Float16))
BOTH(float, half_widen, (_Float16))
BOTH(float, f32_ops, (float, float))
BOTH(double, f64_ops, (double, double))
BOTH(float, conversions, (int, double, unsigned, int64_t))
BOTH(int, compare_select, (float, float))
BOTH(int, bools, (int, int))
BOTH(int, loop_sum, (const int *, int))
BOTH(void, saxpy, (float, const float *, float *, int))
BOTH(int, classify, (int))
BOTH(float, struct_dot, (const vec3 *, const vec3 *))
BOTH(void, struct_scale, (vec3 *, float))
BOTH(dpair, make_pair, (double, double))
BOTH(int, use_globals, (int))
BOTH(intptr_t, global_offset, (void))
BOTH(int *, address_of, (int))
BOTH(int, collatz, (int))
BOTH(float, row_max, (const float *, int, int))
BOTH(int, calls_helper, (int))
BOTH(int, call_indirect, (int (*)(int), int))
BOTH(v4f, vector_ops, (v4f, v4f))
BOTH(float, vector_lane, (v4f, int))
BOTH(int, volatile_io, (volatile int *, int))
BOTH(int, to_int, (double, float))
BOTH(int, local_array, (int))
BOTH(int, add_overflows, (int, int))
BOTH(int, checked, (int))
BOTH(float, as_float, (uint32_t))
BOTH(int *, from_int, (intptr_t))

static uint64_t state = 0x243F6A8885A308D3ull;
static uint64_t next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static float next_float(void) {
  uint64_t r = next();
  switch (r & 7) {
  case 0: return 0.0f;
  case 1: return -0.0f;
  case 2: return (float)(int32_t)(r >> 40);
  case 3: { uint32_t bits = (uint32_t)(r >> 16); float f; memcpy(&f, &bits, 4); return f; }
  default: return (float)((int64_t)(r >> 20) % 2000000) / 1000.0f;
  }
}
static int failures = 0;
#define SAME(a, b, what) do { if (memcmp(&(a), &(b), sizeof(a)) != 0) { \
  if (failures++ < 20) printf("MISMATCH %s at iteration %d\n", what, i); } } while (0)
static int twice_plus(int x) { return 2 * x + 3; }

int main(void) {
  for (int i = 0; i < 2000; i++) {
    uint64_t r1 = next(), r2 = next();
    float f1 = next_float(), f2 = next_float();
    double d1 = (double)f1 * 1.25, d2 = (double)f2 - 3.0;
    int n1 = (int)(r1 % 2001) - 1000, n2 = (int)(r2 % 61) - 30;
    { uint8_t a = u8_ops(r1, r2), b = rt_u8_ops(r1, r2); SAME(a, b, "u8_ops"); }
    { int8_t a = i8_ops(r1, r2), b = rt_i8_ops(r1, r2); SAME(a, b, "i8_ops"); }
    { int16_t a = i16_ops(r1, r2), b = rt_i16_ops(r1, r2); SAME(a, b, "i16_ops"); }
    { int32_t a = i32_ops(r1, n2), b = rt_i32_ops(r1, n2); SAME(a, b, "i32_ops"); }
    { uint32_t a = u32_ops(r1, r2), b = rt_u32_ops(r1, r2); SAME(a, b, "u32_ops"); }
    { int64_t a = i64_ops(r1 >> 1, r2), b = rt_i64_ops(r1 >> 1, r2); SAME(a, b, "i64_ops"); }
    { uint64_t a = u64_ops(r1, r2), b = rt_u64_ops(r1, r2); SAME(a, b, "u64_ops"); }
    { uint64_t a = wide_mul(r1, r2), b = rt_wide_mul(r1, r2); SAME(a, b, "wide_mul"); }
    { _Float16 h1 = (_Float16)(f1 / 1000.0f), h2 = (_Float16)(f2 / 1000.0f);
      _Float16 a = half_ops(h1, h2), b = rt_half_ops(h1, h2); SAME(a, b, "half_ops");
      float c = half_widen(h1), e = rt_half_widen(h1); SAME(c, e, "half_widen"); }
    { float a = f32_ops(f1, f2), b = rt_f32_ops(f1, f2); SAME(a, b, "f32_ops"); }
    { double a = f64_ops(d1, d2), b = rt_f64_ops(d1, d2); SAME(a, b, "f64_ops"); }
    { float a = conversions(n1, d1, (unsigned)r2, (int64_t)r1), b = rt_conversions(n1, d1, (unsigned)r2, (int64_t)r1);
      SAME(a, b, "conversions"); }
    { int a = compare_select(f1, f2), b = rt_compare_select(f1, f2); SAME(a, b, "compare_select");
      a = compare_select(f1, f1); b = rt_compare_select(f1, f1); SAME(a, b, "compare_select equal"); }
    { int a = bools(n1 % 5, n2 % 3), b = rt_bools(n1 % 5, n2 % 3); SAME(a, b, "bools"); }
    { int data[40]; for (int k = 0; k < 40; k++) data[k] = (int)(next() % 1000) - 500;
      int len = (int)(r1 % 41);
      int a = loop_sum(data, len), b = rt_loop_sum(data, len); SAME(a, b, "loop_sum"); }
    { float x[17], y1[17], y2[17]; for (int k = 0; k < 17; k++) { x[k] = next_float(); y1[k] = y2[k] = next_float(); }
      int len = (int)(r2 % 18);
      saxpy(f1, x, y1, len); rt_saxpy(f1, x, y2, len); SAME(y1, y2, "saxpy"); }
    { int x = (i % 7 == 0) ? 100 : n2 % 8; int a = classify(x), b = rt_classify(x); SAME(a, b, "classify"); }
    { vec3 u = {f1, f2, f1 - f2, n1}, v = {f2, 1.5f, -f1, n2};
      float a = struct_dot(&u, &v), b = rt_struct_dot(&u, &v); SAME(a, b, "struct_dot");
      vec3 w1 = u, w2 = u; struct_scale(&w1, f2); rt_struct_scale(&w2, f2); SAME(w1, w2, "struct_scale"); }
    { dpair a = make_pair(d1, d2), b = rt_make_pair(d1, d2); SAME(a, b, "make_pair"); }
    { int32_t saved = counter; int a = use_globals(n2); int32_t after_a = counter;
      counter = saved; int b = rt_use_globals(n2); SAME(a, b, "use_globals"); SAME(after_a, counter, "use_globals counter"); }
    { intptr_t a = global_offset(), b = rt_global_offset(); SAME(a, b, "global_offset"); }
    { int *a = address_of(n1), *b = rt_address_of(n1); SAME(a, b, "address_of"); }
    { int x = (int)(r1 % 10000); int a = collatz(x), b = rt_collatz(x); SAME(a, b, "collatz"); }
    { float m[24]; for (int k = 0; k < 24; k++) m[k] = (k % 5 == 4) ? -200.0f : next_float();
      int rows = (int)(r1 % 5), cols = (int)(r2 % 5) + 1;
      float a = row_max(m, rows, cols), b = rt_row_max(m, rows, cols); SAME(a, b, "row_max"); }
    { int a = calls_helper(n2), b = rt_calls_helper(n2); SAME(a, b, "calls_helper"); }
    { int a = call_indirect(twice_plus, n1), b = rt_call_indirect(twice_plus, n1); SAME(a, b, "call_indirect"); }
    { v4f x = {f1, f2, f1 * 2, -f2}, y = {f2, 3.0f, f1, 0.5f};
      v4f a = vector_ops(x, y), b = rt_vector_ops(x, y); SAME(a, b, "vector_ops");
      float c = vector_lane(x, n1), e = rt_vector_lane(x, n1); SAME(c, e, "vector_lane"); }
    { volatile int cell1 = 0, cell2 = 0; int a = volatile_io(&cell1, n1), b = rt_volatile_io(&cell2, n1);
      SAME(a, b, "volatile_io"); int c1 = cell1, c2 = cell2; SAME(c1, c2, "volatile_io cell"); }
    { int a = to_int(d1, f2), b = rt_to_int(d1, f2); SAME(a, b, "to_int"); }
    { int a = local_array(n1), b = rt_local_array(n1); SAME(a, b, "local_array"); }
    { int x = (int)r1, y = (i & 1) ? (int)r2 : n2;
      int a = add_overflows(x, y), b = rt_add_overflows(x, y); SAME(a, b, "add_overflows"); }
    { int a = checked(n1), b = rt_checked(n1); SAME(a, b, "checked"); }
    { float a = as_float((uint32_t)r1), b = rt_as_float((uint32_t)r1); SAME(a, b, "as_float"); }
    { int *a = from_int((intptr_t)r1), *b = rt_from_int((intptr_t)r1); SAME(a, b, "from_int"); }
    { int c1[5] = {n1, n2, (int)r1, i & 3, 0x40400000}, c2[5];
      memcpy(c2, c1, sizeof c1);
      int a = atomics_io(c1, n2), b = rt_atomics_io(c2, n2); SAME(a, b, "atomics_io");
      for (int k = 0; k < 5; k++) SAME(c1[k], c2[k], "atomics_io cells"); }
  }
  printf("%s %d\n", failures ? "FAILED" : "ok", failures);
  return failures != 0;
}
"#;

/// Lifts every defined function of `ir`, lowers it back as `NAME.roundtrip`
/// and returns the module text. Returns the names of the lifted functions.
fn round_trip_module(
    ir: &[u8],
    name: &str,
    opcodes_seen: &mut BTreeSet<&'static str>,
) -> Result<(String, Vec<String>), BridgeError> {
    with_module_from_bytes(ir, name, |module| {
        let names = module.defined_function_names();
        for function_name in &names {
            module.canonicalize(function_name)?;
            let mut lifted = module.lift(function_name)?;
            lanewise_ir::verify_function(&lifted).map_err(|errors| BridgeError::Function {
                function: function_name.clone(),
                message: errors.to_string(),
            })?;
            opcodes_seen
                .extend(lifted.layout.insts().map(|inst| lifted.dfg.inst(inst).opcode_name()));
            lifted.name = format!("{function_name}.roundtrip");
            module.add_vector_function(&lifted, function_name, &[])?;
        }
        module.verify()?;
        Ok((module.to_text(), names))
    })
}

#[test]
fn clang_output_round_trips_at_every_optimization_level_and_runs_bit_exactly() {
    if !clang_available() {
        return;
    }
    let dir = scratch_dir("roundtrip");
    std::fs::write(dir.join("driver.c"), DRIVER).unwrap();
    let mut opcodes_seen = BTreeSet::new();
    for opt_level in ["-O0", "-O1", "-O2", "-O3"] {
        let ir = emit_llvm(&dir, "kernels", KERNELS, opt_level);
        let (text, names) =
            round_trip_module(&ir, &format!("kernels{opt_level}.ll"), &mut opcodes_seen)
                .unwrap_or_else(|error| panic!("at {opt_level}: {error}"));
        let module_path = dir.join(format!("roundtrip{opt_level}.ll"));
        std::fs::write(&module_path, &text).unwrap();
        assert!(names.len() >= 30, "at {opt_level}: only {names:?}");
        for name in &names {
            assert!(
                text.contains(&format!("@{name}.roundtrip(")),
                "at {opt_level}: no round trip of {name}"
            );
        }
        let object = dir.join(format!("roundtrip{opt_level}.o"));
        run(Command::new("clang-22").args(["-O1", "-c"]).arg(&module_path).arg("-o").arg(&object));
        let program = dir.join(format!("driver{opt_level}"));
        run(Command::new("clang-22")
            .args(["-O1", "-fno-builtin"])
            .arg(dir.join("driver.c"))
            .arg(&object)
            .args(["-lm", "-o"])
            .arg(&program));
        let output = run(&mut Command::new(&program));
        assert!(output.starts_with("ok"), "at {opt_level}: {output}");
    }
    eprintln!("lifted opcodes: {opcodes_seen:?}");
    for expected in [
        "phi",
        "switch",
        "select",
        "shufflevector",
        "insertelement",
        "extractelement",
        "extractvalue",
        "insertvalue",
        "call",
        "getelementptr",
        "alloca",
        "fneg",
        "fptosi",
        "bitcast",
        "inttoptr",
        "ptrtoint",
        "unreachable",
        "udiv",
        "srem",
        "fpext",
        "fptrunc",
        "trunc",
        "sext",
        "zext",
        "atomicrmw",
        "cmpxchg",
    ] {
        assert!(opcodes_seen.contains(expected), "no `{expected}` was lifted: {opcodes_seen:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn canonicalize_promotes_allocas_of_optnone_functions() {
    if !clang_available() {
        return;
    }
    let dir = scratch_dir("canonicalize");
    let source = "int sum(const int *p, int n) { int s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }\n";
    let ir = emit_llvm(&dir, "sum", source, "-O0");
    let text = String::from_utf8_lossy(&ir).into_owned();
    assert!(
        text.contains("optnone") && text.contains("alloca"),
        "clang -O0 output changed:\n{text}"
    );
    let (function_text, lifted) = with_module_from_bytes(&ir, "sum.ll", |module| {
        module.canonicalize("sum")?;
        Ok((module.function_text("sum")?, module.lift("sum")?))
    })
    .unwrap();
    assert!(!function_text.contains("alloca"), "{function_text}");
    assert!(function_text.contains("phi"), "{function_text}");
    // LCSSA: the loop's result leaves the loop through a phi in the exit.
    assert!(function_text.contains(".lcssa"), "{function_text}");
    let has_alloca = lifted
        .layout
        .insts()
        .any(|inst| matches!(lifted.dfg.inst(inst), lanewise_ir::InstData::Alloca { .. }));
    assert!(!has_alloca);
    // Canonicalization does not rewrite arithmetic: no instcombine.
    assert!(function_text.contains("add nsw i32"), "{function_text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn declare_simd_attributes_of_clang_output_are_listed() {
    if !clang_available() {
        return;
    }
    let dir = scratch_dir("declare-simd");
    let source =
        "#pragma omp declare simd notinbranch\nfloat scale(float x, float a) { return x * a; }\n\
                  float other(float x) { return x; }\n";
    let ir = emit_llvm(&dir, "simd", source, "-O1");
    let infos =
        with_module_from_bytes(&ir, "simd.ll", |module| Ok(module.defined_functions())).unwrap();
    let scale = infos.iter().find(|info| info.name == "scale").unwrap();
    assert!(
        scale.variant_names.iter().any(|name| name == "_ZGVbN4vv_scale"),
        "{:?}",
        scale.variant_names
    );
    assert!(
        scale.variant_names.iter().any(|name| name == "_ZGVeN16vv_scale"),
        "{:?}",
        scale.variant_names
    );
    assert!(scale
        .variant_names
        .iter()
        .all(|name| name.starts_with("_ZGV") && name.ends_with("_scale")));
    let other = infos.iter().find(|info| info.name == "other").unwrap();
    assert!(other.variant_names.is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn whole_module_pipelines_run_and_bitcode_is_written() {
    if !clang_available() {
        return;
    }
    let dir = scratch_dir("pipeline");
    let ir = emit_llvm(&dir, "kernels", KERNELS, "-O0");
    let bitcode = dir.join("kernels.bc");
    with_module_from_bytes(&ir, "kernels.ll", |module| {
        module.run_pipeline("default<O2>")?;
        module.verify()?;
        module.write(&bitcode, OutputFormat::Bitcode)
    })
    .unwrap();
    let bytes = std::fs::read(&bitcode).unwrap();
    let names =
        with_module_from_bytes(&bytes, "kernels.bc", |module| Ok(module.defined_function_names()))
            .unwrap();
    assert!(names.contains(&"saxpy".to_owned()));
    let bad =
        with_module_from_bytes(&ir, "kernels.ll", |module| module.run_pipeline("no-such-pass"));
    assert!(matches!(bad, Err(BridgeError::Passes { .. })), "{bad:?}");
    std::fs::remove_dir_all(&dir).ok();
}

/// C++ with exceptions: `throw`, `try`/`catch` by type and `catch (...)`,
/// a rethrow, destructors run while unwinding (cleanup landing pads), an
/// indirect call that may throw and a dynamic exception specification (a
/// `filter` clause; C++14).
const CPP_EXCEPTIONS: &str = r#"
#include <cstdio>

struct Failure { int code; };

static long released = 0;

struct Guard {
  const char *name;
  explicit Guard(const char *n) : name(n) {}
  ~Guard() { released += name[0]; }
};

__attribute__((noinline)) int check(int x) {
  if (x % 7 == 3) throw Failure{x};
  if (x % 11 == 5) throw x;
  if (x % 13 == 4) throw 2.5;
  return x * 3;
}

using checker = int (*)(int);

__attribute__((noinline)) int call_through(checker f, int x) {
  Guard guard("indirect");
  return f(x) + 1;
}

__attribute__((noinline)) int only_ints(int x) throw(int, Failure) {
  if (x % 13 == 4) return 0;
  Guard guard("filtered");
  return check(x);
}

__attribute__((noinline)) long run(int x) {
  long total = 0;
  try {
    Guard guard("run");
    total += check(x);
    total += call_through(check, x + 1);
    total += only_ints(x + 2);
  } catch (const Failure &failure) {
    total = -failure.code;
  } catch (int value) {
    total = 1000 + value;
  } catch (...) {
    total = -1;
    try {
      throw;
    } catch (double d) {
      total = static_cast<long>(d * 100);
    }
  }
  return total;
}

int main() {
  long sum = 0;
  for (int x = 0; x < 300; x++) {
    long result = run(x);
    sum = sum * 31 + result;
    if (x < 24) std::printf("%d -> %ld\n", x, result);
  }
  std::printf("sum %ld released %ld\n", sum, released);
  return 0;
}
"#;

/// Every function of a C++ program with exceptions (clang++-22 at -O0..-O3)
/// is lifted as the `#pragma omp simd` loop driver lifts a function that
/// holds a SIMD loop (`lift_canonical`), its body replaced by the lowered
/// Lanewise IR (`replace_function_body`, which keeps the personality), the
/// module checked by the LLVM verifier, and the program run: its output
/// (which exceptions were caught where, how many destructors ran) must be
/// the original program's.
#[test]
fn cpp_exception_handling_round_trips_and_runs_identically() {
    let clangxx_found =
        Command::new("clang++-22").arg("--version").output().is_ok_and(|out| out.status.success());
    if !clang_available() || !clangxx_found {
        eprintln!("SKIPPED: clang++-22 is not installed");
        return;
    }
    let dir = scratch_dir("cpp-exceptions");
    let source_path = dir.join("exceptions.cpp");
    std::fs::write(&source_path, CPP_EXCEPTIONS).unwrap();
    let mut opcodes_seen = BTreeSet::new();
    let (mut catch_clauses, mut filter_clauses, mut cleanups, mut indirect_invokes) = (0, 0, 0, 0);
    for opt_level in ["-O0", "-O1", "-O2", "-O3"] {
        let ll_path = dir.join(format!("exceptions{opt_level}.ll"));
        run(Command::new("clang++-22")
            .args(["-std=c++14", "-Wno-deprecated-dynamic-exception-spec", "-S", "-emit-llvm"])
            .arg(opt_level)
            .arg(&source_path)
            .arg("-o")
            .arg(&ll_path));
        let ir = std::fs::read(&ll_path).unwrap();
        let text = with_module_from_bytes(&ir, "exceptions.ll", |module| {
            for name in module.defined_function_names() {
                let lifted = module.lift_canonical(&name)?;
                lanewise_ir::verify_function(&lifted).map_err(|errors| BridgeError::Function {
                    function: name.clone(),
                    message: errors.to_string(),
                })?;
                for inst in lifted.layout.insts() {
                    let data = lifted.dfg.inst(inst);
                    opcodes_seen.insert(data.opcode_name());
                    match data {
                        lanewise_ir::InstData::LandingPad { cleanup, clauses, .. } => {
                            cleanups += usize::from(*cleanup);
                            for clause in clauses {
                                match clause {
                                    lanewise_ir::LandingPadClause::Catch(_) => catch_clauses += 1,
                                    lanewise_ir::LandingPadClause::Filter(_) => filter_clauses += 1,
                                }
                            }
                        }
                        lanewise_ir::InstData::Invoke {
                            callee: lanewise_ir::Callee::Indirect(_),
                            ..
                        } => indirect_invokes += 1,
                        _ => {}
                    }
                }
                if lifted.layout.insts().any(|inst| lifted.dfg.inst(inst).is_exception_handling()) {
                    assert_eq!(
                        lifted.personality.as_deref(),
                        Some("__gxx_personality_v0"),
                        "at {opt_level}: {name}"
                    );
                }
                module.replace_function_body(&lifted)?;
            }
            module.verify()?;
            Ok(module.to_text())
        })
        .unwrap_or_else(|error| panic!("at {opt_level}: {error}"));
        assert!(text.contains("personality ptr @__gxx_personality_v0"), "at {opt_level}");
        let round_trip_path = dir.join(format!("roundtrip{opt_level}.ll"));
        std::fs::write(&round_trip_path, &text).unwrap();
        let mut outputs = Vec::new();
        for (input, program) in [(&ll_path, "original"), (&round_trip_path, "roundtrip")] {
            let program = dir.join(format!("{program}{opt_level}"));
            run(Command::new("clang++-22").arg("-O1").arg(input).arg("-o").arg(&program));
            outputs.push(run(&mut Command::new(&program)));
        }
        assert!(outputs[0].contains("sum "), "at {opt_level}: {}", outputs[0]);
        assert_eq!(outputs[0], outputs[1], "at {opt_level}: the round trip changed the output");
    }
    eprintln!("lifted opcodes: {opcodes_seen:?}");
    for expected in ["invoke", "landingpad", "resume", "extractvalue"] {
        assert!(opcodes_seen.contains(expected), "no `{expected}` was lifted: {opcodes_seen:?}");
    }
    assert!(catch_clauses > 0 && filter_clauses > 0 && cleanups > 0, "clause kinds missing");
    assert!(indirect_invokes > 0, "no indirect invoke was lifted");
    std::fs::remove_dir_all(&dir).ok();
}
