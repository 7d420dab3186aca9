/* OpenCL kernels run through the platform named argv[1] and checked
 * against the host's own computation: a 1-D kernel over sizes that are and
 * are not multiples of the SIMD width (given, chosen and odd local sizes,
 * a global offset), divergent control flow, a 2-D kernel, a __local
 * argument, a struct argument passed by value, barriers (also in a loop),
 * math builtins, build options, and the build log of a program with an
 * error. */
#include "host.h"
#include <math.h>


static const char *source =
    "__kernel void saxpy(__global float *y, __global const float *x, float a, int n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < (size_t)n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void collatz(__global int *steps, int base) {\n"
    "  int v = base + (int)get_global_id(0), s = 0;\n"
    "  while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; s++; }\n"
    "  steps[get_global_id(0) - get_global_offset(0)] = s;\n"
    "}\n"
    "__kernel void grid(__global int *out) {\n"
    "  size_t x = get_global_id(0), y = get_global_id(1);\n"
    "  out[y * get_global_size(0) + x] = (int)(x * 1000 + y * 10 + get_local_id(0) + 100000 * get_group_id(1));\n"
    "}\n"
    "__kernel void group_sum(__global const int *in, __global int *out, __local int *scratch) {\n"
    "  size_t l = get_local_id(0);\n"
    "  scratch[l] = in[get_global_id(0)] * SCALE;\n"
    "  if (l == 0) { int s = 0; for (size_t k = 0; k < get_local_size(0); k++) s += k == 0 ? scratch[0] : in[get_global_id(0) + k] * SCALE; out[get_group_id(0)] = s; }\n"
    "}\n"
    "__kernel void reverse(__global int *data, __local int *tile) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  tile[l] = data[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  data[get_global_id(0)] = tile[n - 1 - l];\n"
    "}\n"
    "__kernel void tree_sum(__global const int *in, __global int *out, __local int *partial) {\n"
    "  size_t l = get_local_id(0);\n"
    "  partial[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t stride = get_local_size(0) / 2; stride > 0; stride /= 2) {\n"
    "    if (l < stride) partial[l] += partial[l + stride];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[get_group_id(0)] = partial[0];\n"
    "}\n"
    "__kernel void histogram(__global const uint *in, __global int *bins, __local int *local_bins) {\n"
    "  size_t l = get_local_id(0);\n"
    "  if (l < 16) local_bins[l] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  atomic_inc(&local_bins[popcount(in[get_global_id(0)]) & 15]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < 16) atomic_add(&bins[l], local_bins[l]);\n"
    "}\n"
    "__kernel void vectors(__global const float *in, __global int *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float4 v = vload4(i, in);\n"
    "  int4 r = convert_int4(v * 2.0f);\n"
    "  r = select(r, (int4)(-1), r < 0);\n"
    "  vstore4(r + (int4)(rotate((int)i, 3)), i, out);\n"
    "}\n"
    "__kernel void math(__global const float4 *in, __global float *out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float4 v = in[i];\n"
    "  float d = dot(v, v);\n"
    "  out[i] = sqrt(d) + clamp(v.x, -1.0f, 1.0f) + fmin(v.y, v.z) + exp(v.w * 0.01f) + (float)max((int)v.x, 3) + fabs(v.y);\n"
    "}\n"
    "typedef struct { int bias; float scale; char shift; double offset; short steps[3]; } params;\n"
    "__kernel void struct_arg(__global int *out, params p, int n) {\n"
    "  int i = (int)get_global_id(0);\n"
    "  for (int k = 0; k < (i & 3); k++) { p.steps[k] += (short)i; p.bias ^= p.steps[k]; }\n"
    "  if (i < n) out[i] = p.bias + (int)(p.scale * i) + (i >> p.shift) + (int)p.offset + p.steps[2];\n"
    "}\n";

/* A struct passed by value (`byval` in the kernel), which each work-item
 * changes in its own copy. */
static void struct_argument(cl_context context, cl_command_queue queue, cl_program program) {
    typedef struct { cl_int bias; cl_float scale; cl_char shift; cl_double offset; cl_short steps[3]; } params;
    cl_int err;
    cl_kernel struct_arg = clCreateKernel(program, "struct_arg", &err);
    CHECK(struct_arg, "struct_arg %d", err);
    enum { S = 101 };
    int sout[S];
    params p = {7, 1.5f, 2, 40.75, {1, -2, 3}};
    cl_int n_s = S;
    cl_mem so = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof sout, NULL, &err);
    OK(clSetKernelArg(struct_arg, 0, sizeof so, &so));
    OK(clSetKernelArg(struct_arg, 1, sizeof p, &p));
    OK(clSetKernelArg(struct_arg, 2, sizeof n_s, &n_s));
    size_t global_s = S;
    OK(clEnqueueNDRangeKernel(queue, struct_arg, 1, NULL, &global_s, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, so, CL_TRUE, 0, sizeof sout, sout, 0, NULL, NULL));
    for (int i = 0; i < S; i++) {
        params q = p;
        for (int k = 0; k < (i & 3); k++) { q.steps[k] += (short)i; q.bias ^= q.steps[k]; }
        int want = q.bias + (int)(q.scale * i) + (i >> q.shift) + (int)q.offset + q.steps[2];
        CHECK(sout[i] == want, "struct_arg %d: %d, not %d", i, sout[i], want);
    }
    clReleaseMemObject(so);
    clReleaseKernel(struct_arg);
}

int main(int argc, char **argv) {
    lw_host host = lw_open(argc, argv);
    const char *wanted = host.platform_name;
    cl_int err;
    cl_device_id device = host.device;
    cl_context context = host.context;
    cl_command_queue queue = host.queue;

    /* A program with an error: the build fails and the log says why. */
    const char *bad = "__kernel void k(__global int *p) { p[0] = not_declared; }";
    cl_program broken = clCreateProgramWithSource(context, 1, &bad, NULL, &err);
    CHECK(clBuildProgram(broken, 1, &device, NULL, NULL, NULL) == CL_BUILD_PROGRAM_FAILURE, "bad build");
    char log[4096];
    OK(clGetProgramBuildInfo(broken, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "not_declared"), "log: %s", log);
    OK(clReleaseProgram(broken));

    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    CHECK(program, "program %d", err);
    err = clBuildProgram(program, 1, &device, "-D SCALE=3", NULL, NULL);
    if (err != CL_SUCCESS) {
        clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        CHECK(0, "build %d: %s", err, log);
    }
    size_t num_kernels;
    OK(clGetProgramInfo(program, CL_PROGRAM_NUM_KERNELS, sizeof num_kernels, &num_kernels, NULL));
    CHECK(num_kernels == 10, "%zu kernels", num_kernels);

    /* saxpy at several sizes and local sizes. */
    cl_kernel saxpy = clCreateKernel(program, "saxpy", &err);
    CHECK(saxpy, "saxpy %d", err);
    CHECK(clCreateKernel(program, "nothing", &err) == NULL && err == CL_INVALID_KERNEL_NAME, "bad name");
    enum { N = 1000 };
    float x[N], y[N], expected[N];
    size_t sizes[][2] = {{1000, 0}, {1000, 8}, {1000, 40}, {999, 37}, {17, 17}, {1, 1}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        size_t global = sizes[c][0], local = sizes[c][1];
        for (int i = 0; i < N; i++) { x[i] = (float)i * 0.5f; y[i] = (float)(N - i); }
        float a = 3.0f;
        int n = (int)global - 3;
        for (int i = 0; i < N; i++) expected[i] = i < n ? a * x[i] + y[i] : y[i];
        cl_mem yb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof y, y, &err);
        cl_mem xb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
        OK(clSetKernelArg(saxpy, 0, sizeof yb, &yb));
        OK(clSetKernelArg(saxpy, 1, sizeof xb, &xb));
        OK(clSetKernelArg(saxpy, 2, sizeof a, &a));
        OK(clSetKernelArg(saxpy, 3, sizeof n, &n));
        OK(clEnqueueNDRangeKernel(queue, saxpy, 1, NULL, &global, local ? &local : NULL, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(queue, yb, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL));
        for (int i = 0; i < N; i++) {
            float want = i < n ? (float)(a * x[i] + expected[i] - a * x[i]) : expected[i];
            (void)want;
            /* fmuladd may fuse: accept the fused or the unfused result. */
            float fused = i < n ? __builtin_fmaf(a, x[i], (float)(N - i)) : (float)(N - i);
            CHECK(y[i] == expected[i] || y[i] == fused, "saxpy %zu/%zu element %d: %g, not %g", global, local, i, y[i], expected[i]);
        }
        OK(clReleaseMemObject(yb));
        OK(clReleaseMemObject(xb));
    }
    size_t bad_local = 7, global1000 = 1000;
    CHECK(clEnqueueNDRangeKernel(queue, saxpy, 1, NULL, &global1000, &bad_local, 0, NULL, NULL) == CL_INVALID_WORK_GROUP_SIZE,
          "1000 %% 7 != 0");

    /* Divergent loop, global offset. */
    cl_kernel collatz = clCreateKernel(program, "collatz", &err);
    int steps[300];
    cl_mem sb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof steps, NULL, &err);
    int base = 5;
    size_t offset = 20, global = 300, local = 30;
    OK(clSetKernelArg(collatz, 0, sizeof sb, &sb));
    OK(clSetKernelArg(collatz, 1, sizeof base, &base));
    OK(clEnqueueNDRangeKernel(queue, collatz, 1, &offset, &global, &local, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, sb, CL_TRUE, 0, sizeof steps, steps, 0, NULL, NULL));
    for (int i = 0; i < 300; i++) {
        int v = base + 20 + i, s = 0;
        while (v > 1) { v = (v & 1) ? 3 * v + 1 : v / 2; s++; }
        CHECK(steps[i] == s, "collatz %d: %d, not %d", i, steps[i], s);
    }

    /* 2-D. */
    cl_kernel grid = clCreateKernel(program, "grid", &err);
    int cells[24 * 10];
    cl_mem gb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof cells, NULL, &err);
    size_t global2[2] = {24, 10}, local2[2] = {12, 5};
    OK(clSetKernelArg(grid, 0, sizeof gb, &gb));
    OK(clEnqueueNDRangeKernel(queue, grid, 2, NULL, global2, local2, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, gb, CL_TRUE, 0, sizeof cells, cells, 0, NULL, NULL));
    for (int yy = 0; yy < 10; yy++)
        for (int xx = 0; xx < 24; xx++) {
            int want = xx * 1000 + yy * 10 + xx % 12 + 100000 * (yy / 5);
            CHECK(cells[yy * 24 + xx] == want, "grid %d,%d: %d", xx, yy, cells[yy * 24 + xx]);
        }

    /* __local memory and a build option. */
    cl_kernel sum = clCreateKernel(program, "group_sum", &err);
    int in[256], out[8];
    for (int i = 0; i < 256; i++) in[i] = i - 100;
    cl_mem ib = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof in, in, &err);
    cl_mem ob = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    size_t global256 = 256, local32 = 32;
    OK(clSetKernelArg(sum, 0, sizeof ib, &ib));
    OK(clSetKernelArg(sum, 1, sizeof ob, &ob));
    OK(clSetKernelArg(sum, 2, 32 * sizeof(int), NULL));
    OK(clEnqueueNDRangeKernel(queue, sum, 1, NULL, &global256, &local32, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, ob, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    for (int g = 0; g < 8; g++) {
        int want = 0;
        for (int k = 0; k < 32; k++) want += in[g * 32 + k] * 3;
        CHECK(out[g] == want, "group %d: %d, not %d", g, out[g], want);
    }

    /* Barriers: a reversal through local memory (local sizes with and
     * without a partial SIMD group) and a tree reduction, barriers in a loop. */
    cl_kernel reverse = clCreateKernel(program, "reverse", &err);
    CHECK(reverse, "reverse %d", err);
    size_t reverse_locals[] = {64, 24, 37};
    for (int c = 0; c < 3; c++) {
        size_t local_r = reverse_locals[c], global_r = local_r * 5;
        int data[5 * 64];
        for (size_t i = 0; i < global_r; i++) data[i] = (int)(i * 3 + 1);
        cl_mem db = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, global_r * sizeof(int), data, &err);
        OK(clSetKernelArg(reverse, 0, sizeof db, &db));
        OK(clSetKernelArg(reverse, 1, local_r * sizeof(int), NULL));
        OK(clEnqueueNDRangeKernel(queue, reverse, 1, NULL, &global_r, &local_r, 0, NULL, NULL));
        int back[5 * 64];
        OK(clEnqueueReadBuffer(queue, db, CL_TRUE, 0, global_r * sizeof(int), back, 0, NULL, NULL));
        for (size_t i = 0; i < global_r; i++) {
            size_t group = i / local_r, l = i % local_r;
            CHECK(back[i] == data[group * local_r + local_r - 1 - l], "reverse %zu/%zu: %d", local_r, i, back[i]);
        }
        clReleaseMemObject(db);
    }
    cl_kernel tree = clCreateKernel(program, "tree_sum", &err);
    int values[512], sums[4];
    for (int i = 0; i < 512; i++) values[i] = i * 7 % 101 - 50;
    cl_mem tb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof values, values, &err);
    cl_mem rb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof sums, NULL, &err);
    size_t global_t = 512, local_t = 128;
    OK(clSetKernelArg(tree, 0, sizeof tb, &tb));
    OK(clSetKernelArg(tree, 1, sizeof rb, &rb));
    OK(clSetKernelArg(tree, 2, local_t * sizeof(int), NULL));
    OK(clEnqueueNDRangeKernel(queue, tree, 1, NULL, &global_t, &local_t, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, rb, CL_TRUE, 0, sizeof sums, sums, 0, NULL, NULL));
    for (int g = 0; g < 4; g++) {
        int want = 0;
        for (int k = 0; k < 128; k++) want += values[g * 128 + k];
        CHECK(sums[g] == want, "tree sum %d: %d, not %d", g, sums[g], want);
    }
    clReleaseMemObject(tb); clReleaseMemObject(rb); clReleaseKernel(tree); clReleaseKernel(reverse);

    /* Atomics on local and global memory (a histogram of popcounts). */
    cl_kernel histogram = clCreateKernel(program, "histogram", &err);
    CHECK(histogram, "histogram %d", err);
    enum { H = 4096 };
    cl_uint hin[H];
    int bins[16] = {0}, want_bins[16] = {0};
    for (int i = 0; i < H; i++) {
        hin[i] = (cl_uint)i * 2654435761u;
        want_bins[__builtin_popcount(hin[i]) & 15]++;
    }
    cl_mem hb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof hin, hin, &err);
    cl_mem bb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof bins, bins, &err);
    size_t global_h = H, local_h = 64;
    OK(clSetKernelArg(histogram, 0, sizeof hb, &hb));
    OK(clSetKernelArg(histogram, 1, sizeof bb, &bb));
    OK(clSetKernelArg(histogram, 2, 16 * sizeof(int), NULL));
    OK(clEnqueueNDRangeKernel(queue, histogram, 1, NULL, &global_h, &local_h, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, bb, CL_TRUE, 0, sizeof bins, bins, 0, NULL, NULL));
    for (int b = 0; b < 16; b++) CHECK(bins[b] == want_bins[b], "bin %d: %d, not %d", b, bins[b], want_bins[b]);
    clReleaseMemObject(hb); clReleaseMemObject(bb); clReleaseKernel(histogram);

    /* vload4/vstore4, convert_int4, select, rotate. */
    cl_kernel vectors = clCreateKernel(program, "vectors", &err);
    CHECK(vectors, "vectors %d", err);
    enum { V = 100 };
    float fin[4 * V];
    int iout[4 * V];
    for (int i = 0; i < 4 * V; i++) fin[i] = (float)(i % 13) * 0.75f - 3.0f;
    cl_mem fb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof fin, fin, &err);
    cl_mem ob2 = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof iout, NULL, &err);
    size_t global_v = V;
    OK(clSetKernelArg(vectors, 0, sizeof fb, &fb));
    OK(clSetKernelArg(vectors, 1, sizeof ob2, &ob2));
    OK(clEnqueueNDRangeKernel(queue, vectors, 1, NULL, &global_v, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, ob2, CL_TRUE, 0, sizeof iout, iout, 0, NULL, NULL));
    for (int i = 0; i < V; i++)
        for (int c = 0; c < 4; c++) {
            int r = (int)(fin[4 * i + c] * 2.0f);
            if (r < 0) r = -1;
            unsigned u = (unsigned)i;
            int rot = (int)((u << 3) | (u >> 29));
            CHECK(iout[4 * i + c] == r + rot, "vectors %d.%d: %d, not %d", i, c, iout[4 * i + c], r + rot);
        }
    clReleaseMemObject(fb); clReleaseMemObject(ob2); clReleaseKernel(vectors);

    /* Math, common, integer and geometric builtins on float4. */
    cl_kernel math = clCreateKernel(program, "math", &err);
    CHECK(math, "math %d", err);
    enum { M = 203 };
    cl_float4 vin[M];
    float vout[M];
    for (int i = 0; i < M; i++) {
        vin[i].s[0] = (float)(i % 7) - 3.5f;
        vin[i].s[1] = (float)i * 0.25f - 20.0f;
        vin[i].s[2] = (float)(M - i) * 0.125f;
        vin[i].s[3] = (float)i;
    }
    cl_mem vb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR | CL_MEM_READ_ONLY, sizeof vin, vin, &err);
    cl_mem mb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof vout, NULL, &err);
    size_t globalM = M;
    OK(clSetKernelArg(math, 0, sizeof vb, &vb));
    OK(clSetKernelArg(math, 1, sizeof mb, &mb));
    OK(clEnqueueNDRangeKernel(queue, math, 1, NULL, &globalM, NULL, 0, NULL, NULL));
    OK(clEnqueueReadBuffer(queue, mb, CL_TRUE, 0, sizeof vout, vout, 0, NULL, NULL));
    for (int i = 0; i < M; i++) {
        float x = vin[i].s[0], y = vin[i].s[1], z = vin[i].s[2], w = vin[i].s[3];
        float d = x * x + y * y + z * z + w * w;
        int mx = (int)x > 3 ? (int)x : 3;
        float want = sqrtf(d) + fminf(fmaxf(x, -1.0f), 1.0f) + fminf(y, z) + expf(w * 0.01f) + (float)mx + fabsf(y);
        CHECK(fabsf(vout[i] - want) <= 1e-5f * fabsf(want) + 1e-5f, "math %d: %.9g, not %.9g", i, vout[i], want);
    }
    clReleaseMemObject(vb); clReleaseMemObject(mb); clReleaseKernel(math);

    /* PoCL 3.1's work-items share one copy of a struct argument, so work-item
     * 2 sees work-item 1's changes (47 instead of 50): Lanewise only. */
    if (strstr(wanted, "Lanewise")) struct_argument(context, queue, program);

    clReleaseMemObject(sb); clReleaseMemObject(gb); clReleaseMemObject(ib); clReleaseMemObject(ob);
    clReleaseKernel(saxpy); clReleaseKernel(collatz); clReleaseKernel(grid); clReleaseKernel(sum);
    OK(clReleaseProgram(program));
    OK(clReleaseCommandQueue(queue));
    OK(clReleaseContext(context));
    printf("ok: kernels on %s\n", wanted);
    return 0;
}
