/* The builtin functions whose results OpenCL 1.2 defines exactly, run on
 * many inputs: integer functions on every type (saturating, halving, high
 * products, rotations, counts, upsample), conversions with saturation and
 * every rounding mode, relational tests with NaNs and infinities, any/all,
 * bitselect/select, frexp/ldexp/modf/fract/remquo/ilogb/nan, the edge
 * cases of sinpi/cospi/tanpi/rootn/powr/pown/length/normalize, vload3/
 * vstore3, half-precision loads and stores in every rounding mode,
 * shuffle/shuffle2, asynchronous work-group copies and the atom_* names of
 * the 32-bit atomic functions. The program prints
 * every result ("kernel index value"); tests/host_api.rs runs it on
 * Lanewise and on PoCL and compares the two outputs line by line, and the
 * program itself checks a few values against the host's computation. */
#include "host.h"
#include <math.h>
#include <stdint.h>

enum { N = 64, OUT = 64 };

static const char *source =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    /* NaN payloads are the implementation's choice: printed as one. */
    "#define BITS(v) (isnan(v) ? 0x7fc00000 : as_int(v))\n"
    "#define DBITS(v) (isnan(v) ? 0x7ff80000L << 32 : as_long(v))\n"
    /* in: N ints; out: OUT ints per work-item. */
    "__kernel void integers(__global const int *in, __global int *out) {\n"
    "  size_t i = get_global_id(0); __global int *o = out + i * 64;\n"
    "  int a = in[i], b = in[(i * 7 + 3) % 64], c = in[(i * 13 + 5) % 64];\n"
    "  char4 ca = (char4)((char)a, (char)(a >> 8), (char)b, (char)(b >> 8));\n"
    "  char4 cb = (char4)((char)c, (char)(c >> 8), (char)(a >> 16), (char)(b >> 16));\n"
    "  char4 r1 = add_sat(ca, cb), r2 = sub_sat(ca, cb), r3 = hadd(ca, cb), r4 = rhadd(ca, cb);\n"
    "  uchar4 r5 = abs_diff(ca, cb), r6 = abs(ca); char4 r7 = mul_hi(ca, cb), r8 = mad_sat(ca, cb, ca);\n"
    "  char4 r9 = rotate(ca, cb), r10 = clz(ca), r11 = popcount(ca); short4 r12 = upsample(ca, as_uchar4(cb));\n"
    "  for (int k = 0; k < 4; k++) { o[k] = r1[k]; o[4+k] = r2[k]; o[8+k] = r3[k]; o[12+k] = r4[k];\n"
    "    o[16+k] = r5[k]; o[20+k] = r6[k]; o[24+k] = r7[k]; o[28+k] = r8[k]; o[32+k] = r9[k];\n"
    "    o[36+k] = r10[k]; o[40+k] = r11[k]; o[44+k] = r12[k]; }\n"
    "  ushort2 us = add_sat((ushort2)((ushort)a, (ushort)b), (ushort2)((ushort)c, (ushort)a));\n"
    "  o[48] = us.x; o[49] = us.y;\n"
    "  o[50] = mad_sat(a, b, c); o[51] = (int)mad_sat((uint)a, (uint)b, (uint)c); o[52] = mul_hi(a, b);\n"
    "  long la = (long)a * 123456789L, lb = (long)b * -987654321L;\n"
    "  long lh = mul_hi(la, lb); ulong uh = mul_hi((ulong)la, (ulong)lb);\n"
    "  long ls = mad_sat(la, lb, (long)c); ulong us2 = mad_sat((ulong)la, (ulong)lb, (ulong)c);\n"
    "  o[53] = (int)lh; o[54] = (int)(lh >> 32); o[55] = (int)uh; o[56] = (int)(uh >> 32);\n"
    "  o[57] = (int)ls; o[58] = (int)(ls >> 32); o[59] = (int)us2; o[60] = (int)(us2 >> 32);\n"
    "  o[61] = (int)upsample(a, (uint)b); o[62] = (int)(upsample(a, (uint)b) >> 32); o[63] = rotate(a, b);\n"
    "}\n"
    "__kernel void conversions(__global const float *f, __global const long *l, __global int *out) {\n"
    "  size_t i = get_global_id(0); __global int *o = out + i * 64;\n"
    "  float x = f[i]; double d = (double)x * 1.0000001; long v = l[i];\n"
    "  int4 r = (int4)(convert_int_sat_rte(x), convert_int_sat_rtz(x), convert_int_sat_rtp(x), convert_int_sat_rtn(x));\n"
    "  for (int k = 0; k < 4; k++) o[k] = r[k];\n"
    "  o[4] = convert_char_sat(x); o[5] = convert_uchar_sat(x); o[6] = convert_short_sat_rte(x);\n"
    "  o[7] = convert_ushort_sat_rtp(x); o[8] = (int)convert_uint_sat(x); o[9] = (int)convert_long_sat(d);\n"
    "  o[10] = (int)(convert_long_sat_rtn(x * 1e10f) >> 20); o[11] = (int)(convert_ulong_sat(x * 1e10f) >> 20);\n"
    "  o[12] = convert_char_sat(v); o[13] = convert_uchar_sat(v); o[14] = convert_short_sat(v);\n"
    "  o[15] = (int)convert_uint_sat(v); o[16] = convert_int_sat(v); o[17] = (int)convert_ushort_sat((ulong)v);\n"
    "  float4 fr = (float4)(convert_float_rte(v), convert_float_rtz(v), convert_float_rtp(v), convert_float_rtn(v));\n"
    "  for (int k = 0; k < 4; k++) o[18 + k] = BITS(fr[k]);\n"
    "  float4 fu = (float4)(convert_float_rte((ulong)v), convert_float_rtz((ulong)v), convert_float_rtp((ulong)v), convert_float_rtn((ulong)v));\n"
    "  for (int k = 0; k < 4; k++) o[22 + k] = BITS(fu[k]);\n"
    "  int iv = (int)(v >> 7);\n"
    "  float4 fi = (float4)(convert_float_rte(iv), convert_float_rtz(iv), convert_float_rtp(iv), convert_float_rtn(iv));\n"
    "  for (int k = 0; k < 4; k++) o[26 + k] = BITS(fi[k]);\n"
    "  float4 fd = (float4)(convert_float_rte(d), convert_float_rtz(d), convert_float_rtp(d), convert_float_rtn(d));\n"
    "  for (int k = 0; k < 4; k++) o[30 + k] = BITS(fd[k]);\n"
    "  long w = (long)((ulong)v * 1000003UL);\n"
    "  double2 dl = (double2)(convert_double_rtz(w), convert_double_rtp(w));\n"
    "  o[34] = (int)as_long(dl.x); o[35] = (int)(as_long(dl.x) >> 32); o[36] = (int)as_long(dl.y); o[37] = (int)(as_long(dl.y) >> 32);\n"
    "  uchar8 u8 = convert_uchar8_sat((int8)(iv, -iv, iv >> 3, 300, -5, 255, 256, (int)x));\n"
    "  for (int k = 0; k < 8; k++) o[38 + k] = u8[k];\n"
    "  short4 s4 = convert_short4_sat_rtn((float4)(x, -x, x * 1000.0f, x * -1000.0f));\n"
    "  for (int k = 0; k < 4; k++) o[46 + k] = s4[k];\n"
    "  for (int k = 50; k < 64; k++) o[k] = 0;\n"
    "}\n"
    "__kernel void relational(__global const float *f, __global int *out) {\n"
    "  size_t i = get_global_id(0); __global int *o = out + i * 64;\n"
    "  float4 x = vload4(i % 16, f), y = vload4((i + 3) % 16, f);\n"
    "  int4 t[12] = { isequal(x, y), isnotequal(x, y), isgreater(x, y), isgreaterequal(x, y), isless(x, y),\n"
    "    islessequal(x, y), islessgreater(x, y), isordered(x, y), isunordered(x, y), isnan(x), isinf(x), isnormal(x) };\n"
    "  for (int k = 0; k < 12; k++) for (int e = 0; e < 4; e++) o[k * 4 + e] = t[k][e];\n"
    "  o[48] = isequal(x.x, y.x); o[49] = isunordered(x.x, y.x); o[50] = signbit(x.x); o[51] = isfinite(x.y);\n"
    "  int4 sb = signbit(x); o[52] = sb.x + 2 * sb.y + 4 * sb.z + 8 * sb.w;\n"
    "  char8 c8 = as_char8(x.xy); o[53] = any(c8); o[54] = all(c8); o[55] = any(isgreater(x, y)); o[56] = all(isordered(x, y));\n"
    "  float4 bs = bitselect(x, y, as_float4((uint4)(0xffff0000u, 0x0000ffffu, 0x80000000u, 0u)));\n"
    "  for (int e = 0; e < 4; e++) o[57 + e] = as_int(bs[e]);\n"
    "  float2 se = select(x.xy, y.xy, (uint2)(0x80000000u, 1u)); o[61] = as_int(se.x); o[62] = as_int(se.y);\n"
    "  o[63] = select(7, 9, (int)i & 1);\n"
    "}\n"
    "__kernel void math_exact(__global const float *f, __global int *out) {\n"
    "  size_t i = get_global_id(0); __global int *o = out + i * 64;\n"
    "  float4 x = vload4(i % 16, f);\n"
    "  int4 e; float4 m = frexp(x, &e); float4 w; float4 fr = fract(x, &w); float4 ip; float4 mf = modf(x, &ip);\n"
    "  int4 q; float4 rq = remquo(x, (float4)(0.75f, -2.5f, 3.0f, 1e-3f), &q);\n"
    "  float4 ld = ldexp(x, (int4)(3, -2, 100, -140)); int4 il = ilogb(x);\n"
    "  float4 all[7] = { m, fr, w, mf, ip, rq, ld };\n"
    "  for (int k = 0; k < 7; k++) for (int j = 0; j < 4; j++) o[k * 4 + j] = BITS(all[k][j]);\n"
    "  for (int j = 0; j < 4; j++) {\n"
    "    int finite = isfinite(x[j]) && x[j] != 0.0f;\n"
    "    o[28 + j] = finite ? e[j] : 0; o[32 + j] = isnan(rq[j]) ? 0 : abs(q[j]) & 127;\n"
    "    o[36 + j] = isnan(rq[j]) || (q[j] & 127) == 0 ? 0 : q[j] < 0; o[40 + j] = finite ? il[j] : 0; }\n"
    "  o[44] = isnan(nan(5u)); o[45] = isnan(nan((ulong)77)); o[46] = isnan(nan((uint4)(1, 2, 3, 4)).z);\n"
    "  __private int pe; double dm = frexp((double)x.x * 3.0, &pe); long db = DBITS(dm);\n"
    "  o[47] = (int)db; o[48] = (int)(db >> 32); o[49] = isfinite(x.x) && x.x != 0.0f ? pe : 0;\n"
    "  for (int k = 50; k < 64; k++) o[k] = 0;\n"
    "}\n"
    "__kernel void edge_cases(__global const float *v, __global int *out) {\n"
    "  if (get_global_id(0) != 0) return;\n"
    "  float one = v[0], halfway = v[1], zero = v[2], big = v[3], tiny = v[4], inf = v[5], eight = v[6], quarter = v[7];\n"
    "  float r[] = { sinpi(one), sinpi(-one), sinpi(big), sinpi(-big), cospi(halfway), cospi(5 * halfway), cospi(big),\n"
    "    tanpi(one), tanpi(-one), tanpi(2 * one), tanpi(halfway), tanpi(3 * halfway), rootn(-eight, 3), rootn(-zero, 3),\n"
    "    rootn(-zero, -3), rootn(eight, 0), rootn(-eight, 2), powr(-one, 2 * one), powr(zero, zero), powr(inf, zero),\n"
    "    powr(one, inf), powr(-zero, -one), pown(-one, 16777217), length((float2)(tiny, zero)),\n"
    "    normalize((float2)(zero, zero)).x, normalize((float2)(inf, one)).x, normalize((float2)(-inf, one)).y,\n"
    "    sinpi(quarter), cospi(-quarter), tanpi(quarter) };\n"
    "  for (int k = 0; k < 30; k++) out[k] = as_int(r[k]);\n"
    "  out[30] = ilogb(zero / zero); out[31] = as_int(length((float2)(big, big)));\n"
    "  out[32] = as_int(normalize((float4)(big, big, big, big)).z); out[33] = as_int(length((float3)(tiny, tiny, zero)));\n"
    "  double dr[] = { sinpi(-(double)one), tanpi(3.0 * halfway), rootn(-(double)eight, 3), pown((double)-one, 1 << 30 | 1) };\n"
    "  for (int k = 0; k < 4; k++) out[34 + k] = (int)(as_long(dr[k]) >> 32);\n"
    "}\n"
    "__kernel void atoms(__global int *out) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  atom_add(out, i); atom_sub(out + 1, i); atom_inc(out + 2); atom_dec(out + 3); atom_min(out + 4, i - 10);\n"
    "  atom_max(out + 5, i); atom_or(out + 6, 1 << (i % 31)); atom_xor(out + 7, i * 3); atom_and(out + 9, 0);\n"
    "  int old; do { old = out[8]; } while (atom_cmpxchg(out + 8, old, old + 2) != old);\n"
    "  atomic_max((__global uint *)out + 10, (uint)(i * 40503u)); atom_xchg(out + 11, 5);\n"
    "}\n"
    "__kernel void memory(__global const float *f, __global int *out, __global half *h, __local float *tile) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0); __global int *o = out + i * 64;\n"
    "  float3 v3 = vload3(i % 21, f); vstore3(v3 * 2.0f, i, (__global float *)(out + 64 * 64));\n"
    "  float4 v = vload4(i % 16, f) * 3.1f;\n"
    "  vstore_half4_rte(v, i, h); o[0] = BITS(vload_half4(i, h).x); o[1] = BITS(vload_half4(i, h).w);\n"
    "  vstore_half4_rtz(v, i, h); o[2] = BITS(vload_half4(i, h).y); vstore_half4_rtp(v, i, h); o[3] = BITS(vload_half4(i, h).z);\n"
    "  vstore_half4_rtn(v, i, h); o[4] = BITS(vload_half4(i, h).x);\n"
    "  vstore_half_rte((double)v.y * 1.0001, i * 4, h); o[5] = BITS(vload_half(i * 4, h));\n"
    "  vstorea_half3_rte(v.xyz, i, h); o[6] = BITS(vloada_half3(i, h).z);\n"
    "  o[7] = BITS(v3.x); o[8] = BITS(v3.y); o[9] = BITS(v3.z);\n"
    "  uint4 mask = (uint4)(i % 4, 3, (i + 2) % 4, 0); float4 s = shuffle(v, mask);\n"
    "  float8 s2 = shuffle2(v, v * 2.0f, (uint8)(7, 0, i % 8, 5, 2, 6, 1, 4));\n"
    "  for (int k = 0; k < 4; k++) o[10 + k] = BITS(s[k]); for (int k = 0; k < 8; k++) o[14 + k] = BITS(s2[k]);\n"
    "  int16 big = (int16)((int)i, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);\n"
    "  int4 picked = shuffle(big, (uint4)(15, (uint)i % 16, 0, 9)); for (int k = 0; k < 4; k++) o[22 + k] = picked[k];\n"
    "  event_t ev = async_work_group_copy(tile, f + get_group_id(0) * 16, 16, 0); wait_group_events(1, &ev);\n"
    "  o[26] = BITS(tile[(l * 5) % 16]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  event_t ev2 = async_work_group_strided_copy(tile, f, 16, 3, 0); wait_group_events(1, &ev2);\n"
    "  o[27] = BITS(tile[l % 16]);\n"
    "  for (int k = 28; k < 64; k++) o[k] = 0;\n"
    "}\n";

static cl_context context;
static cl_command_queue queue;
static cl_program program;

static cl_mem buffer(size_t bytes, const void *data) {
    cl_int err;
    cl_mem b = clCreateBuffer(context, data ? CL_MEM_COPY_HOST_PTR : CL_MEM_READ_WRITE, bytes, (void *)data, &err);
    CHECK(b, "buffer %d", err);
    return b;
}

/* An argument: a buffer, or (buffer NULL) `local` bytes of local memory;
 * OUTPUT marks where the output buffer goes. */
typedef struct {
    cl_mem buffer;
    size_t local;
} arg_t;
static const arg_t OUTPUT = {NULL, 0};

/* Runs `name` over N work-items (local size 16) with `args`, and prints
 * (unless `quiet`) and returns its OUT ints per work-item (and `extra` more
 * ints). */
static int quiet;
static int *run(const char *name, const arg_t *args, int count, size_t extra) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    CHECK(kernel, "%s %d", name, err);
    size_t ints = N * OUT + extra;
    cl_mem out = buffer(ints * sizeof(int), NULL);
    int zero = 0;
    OK(clEnqueueFillBuffer(queue, out, &zero, sizeof zero, 0, ints * sizeof(int), 0, NULL, NULL));
    for (int k = 0; k < count; k++) {
        if (args[k].buffer) OK(clSetKernelArg(kernel, k, sizeof args[k].buffer, &args[k].buffer));
        else if (args[k].local) OK(clSetKernelArg(kernel, k, args[k].local, NULL));
        else OK(clSetKernelArg(kernel, k, sizeof out, &out));
    }
    size_t global = N, local = 16;
    OK(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL));
    int *result = malloc(ints * sizeof(int));
    OK(clEnqueueReadBuffer(queue, out, CL_TRUE, 0, ints * sizeof(int), result, 0, NULL, NULL));
    OK(clReleaseMemObject(out));
    OK(clReleaseKernel(kernel));
    if (!quiet)
        for (size_t k = 0; k < ints; k++) printf("%s %zu %d\n", name, k, result[k]);
    return result;
}

int main(int argc, char **argv) {
    lw_host host = lw_open(argc, argv);
    cl_int err;
    cl_device_id device = host.device;
    context = host.context;
    queue = host.queue;
    program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    static char log[65536];
    err = clBuildProgram(program, 1, &device, NULL, NULL, NULL);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(err == CL_SUCCESS, "build %d: %s", err, log);

    /* Inputs: integers of every size and sign, floats with NaNs, infinities,
     * zeros of both signs, denormals, halfway cases and large values. */
    int ints[N];
    float floats[N];
    cl_long longs[N];
    uint32_t state = 2463534242u;
    for (int i = 0; i < N; i++) {
        state ^= state << 13, state ^= state >> 17, state ^= state << 5;
        ints[i] = i % 4 == 0 ? (int)state : (int)(state % 2001) - 1000;
        longs[i] = (cl_long)(((uint64_t)state << 29) ^ ((uint64_t)i * 0x9e3779b97f4a7c15ULL));
        floats[i] = (float)((int)(state % 200001) - 100000) / 64.0f;
    }
    float specials[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f, -1e-40f, 2.5f, -2.5f, 3.5f,
                        0.5f, -0.5f, 65504.0f, 65520.0f, 1e-8f, 4e9f, -4e9f, 3e38f, 16777217.0f, 8388609.5f};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) floats[k * 3 % N] = specials[k];
    cl_mem in = buffer(sizeof ints, ints), fl = buffer(sizeof floats, floats), lo = buffer(sizeof longs, longs);
    cl_mem halves = buffer(N * 4 * 2, NULL);

    arg_t integer_args[] = {{in, 0}, OUTPUT};
    int *integers = run("integers", integer_args, 2, 0);
    /* The host's own values for a few: add_sat on char, mad_sat and
     * mul_hi on int. */
    for (int i = 0; i < N; i++) {
        int a = ints[i], b = ints[(i * 7 + 3) % 64], c = ints[(i * 13 + 5) % 64];
        int sum = (signed char)a + (signed char)c;
        int want = sum > 127 ? 127 : sum < -128 ? -128 : sum;
        CHECK(integers[i * OUT] == want, "add_sat char %d: %d, not %d", i, integers[i * OUT], want);
        long long m = (long long)a * b + c;
        int sat = m > 2147483647LL ? 2147483647 : m < -2147483647LL - 1 ? (int)(-2147483647LL - 1) : (int)m;
        CHECK(integers[i * OUT + 50] == sat, "mad_sat int %d: %d, not %d", i, integers[i * OUT + 50], sat);
        CHECK(integers[i * OUT + 52] == (int)(((long long)a * b) >> 32), "mul_hi int %d", i);
    }
    arg_t conversion_args[] = {{fl, 0}, {lo, 0}, OUTPUT};
    int *conversions = run("conversions", conversion_args, 3, 0);
    /* convert_int_sat_<mode>(x) against the host's rounding functions. */
    for (int i = 0; i < N; i++) {
        float x = floats[i];
        float rounded[4] = {rintf(x), truncf(x), ceilf(x), floorf(x)};
        for (int mode = 0; mode < 4; mode++) {
            float r = rounded[mode];
            int want = x != x ? 0 : r >= 2147483647.0f ? 2147483647 : r <= -2147483648.0f ? (int)-2147483648LL : (int)r;
            CHECK(conversions[i * OUT + mode] == want, "convert_int_sat mode %d of %g: %d, not %d", mode, x,
                  conversions[i * OUT + mode], want);
        }
    }
    arg_t relational_args[] = {{fl, 0}, OUTPUT};
    int *relational = run("relational", relational_args, 2, 0);
    arg_t math_args[] = {{fl, 0}, OUTPUT};
    int *math = run("math_exact", math_args, 2, 0);
    arg_t atom_args[] = {OUTPUT};
    int *atoms = run("atoms", atom_args, 1, 0);
    CHECK(atoms[0] == 2016 && atoms[1] == -2016 && atoms[2] == 64 && atoms[3] == -64 && atoms[4] == -10 &&
              atoms[5] == 63 && atoms[8] == 128 && atoms[11] == 5,
          "atom_*: %d %d %d %d %d %d %d %d", atoms[0], atoms[1], atoms[2], atoms[3], atoms[4], atoms[5], atoms[8],
          atoms[11]);
    free(atoms);
    arg_t memory_args[] = {{fl, 0}, OUTPUT, {halves, 0}, {NULL, 16 * sizeof(float)}};
    int *memory = run("memory", memory_args, 4, N * 3);
    /* async_work_group_copy: tile[(l * 5) % 16] of group g is f[g * 16 + (l * 5) % 16]. */
    for (int i = 0; i < N; i++) {
        float want = floats[(i / 16) * 16 + (i % 16) * 5 % 16];
        int bits;
        memcpy(&bits, &want, sizeof bits);
        if (want != want) bits = 0x7fc00000;
        CHECK(memory[i * OUT + 26] == bits, "async copy %d", i);
    }
    free(integers), free(conversions), free(relational), free(math), free(memory);
    /* Edge cases OpenCL 1.2 (section 7.5.1) defines and results OpenCL
     * bounds, checked here on Lanewise only: PoCL 3.1 gives -0 for
     * sinpi(1), +0 for tanpi(1), 1 ulp more for sinpi(0.25) and more. */
    if (strstr(host.platform_name, "Lanewise")) {
        float inputs[] = {1.0f, 0.5f, 0.0f, 1e30f, 1e-40f, INFINITY, 8.0f, 0.25f};
        cl_mem edge_in = buffer(sizeof inputs, inputs);
        arg_t edge_args[] = {{edge_in, 0}, OUTPUT};
        quiet = 1;
        int *edge = run("edge_cases", edge_args, 2, 0);
        quiet = 0;
        float pi4 = (float)sin(M_PI / 4), tan_quarter = 1.0f;
        float want[] = {0.0f, -0.0f, 0.0f, -0.0f, 0.0f, 0.0f, 1.0f, -0.0f, 0.0f, 0.0f, INFINITY, -INFINITY, -2.0f,
                        -0.0f, -INFINITY, NAN, NAN, NAN, NAN, NAN, NAN, INFINITY, -1.0f, 1e-40f, 0.0f, 1.0f, 0.0f,
                        pi4, pi4, tan_quarter};
        for (int k = 0; k < 30; k++) {
            int bits;
            memcpy(&bits, &want[k], sizeof bits);
            float got;
            memcpy(&got, &edge[k], sizeof got);
            CHECK(want[k] != want[k] ? got != got : edge[k] == bits, "edge case %d: %a, not %a", k, got, want[k]);
        }
        CHECK(edge[30] == 2147483647, "ilogb(NaN): %d, not FP_ILOGBNAN", edge[30]);
        float length_big, normalized, length_tiny;
        memcpy(&length_big, &edge[31], sizeof length_big);
        memcpy(&normalized, &edge[32], sizeof normalized);
        memcpy(&length_tiny, &edge[33], sizeof length_tiny);
        CHECK(fabs(length_big / (1e30 * sqrt(2.0)) - 1) < 2e-7, "length of (1e30, 1e30): %a", length_big);
        CHECK(fabsf(normalized - 0.5f) <= 0x1p-24f, "normalize of four 1e30: %a", normalized);
        CHECK(fabs(length_tiny / (1e-40 * sqrt(2.0)) - 1) < 1e-4, "length of (1e-40, 1e-40, 0): %a", length_tiny);
        int want_high[] = {(int)0x80000000, (int)0xfff00000, (int)0xc0000000, (int)0xbff00000};
        for (int k = 0; k < 4; k++) CHECK(edge[34 + k] == want_high[k], "double edge case %d: %08x", k, edge[34 + k]);
        free(edge);
        OK(clReleaseMemObject(edge_in));
    }
    printf("ok: builtins\n");
    return 0;
}
