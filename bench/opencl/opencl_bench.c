/* OpenCL benchmark: the same kernels, inputs and host code on every OpenCL
 * platform this process finds (Lanewise and PoCL, through the Khronos ICD
 * loader), in one process. For each kernel and platform: build, one warm-up
 * run, then the median wall time of RUNS runs (enqueue + clFinish); the
 * results of every platform are compared with the first platform's
 * (relative tolerance 1e-3 for float math, which each platform's library
 * rounds its own way). Prints one Markdown table. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RUNS 7

static const char *source =
    "__kernel void mandelbrot(__global int *out, int width, float x0, float y0, float step, int limit) {\n"
    "  int px = (int)get_global_id(0), py = (int)get_global_id(1);\n"
    "  float cr = x0 + px * step, ci = y0 + py * step, zr = 0.0f, zi = 0.0f;\n"
    "  int n = 0;\n"
    "  while (n < limit && zr * zr + zi * zi < 4.0f) {\n"
    "    float t = zr * zr - zi * zi + cr; zi = 2.0f * zr * zi + ci; zr = t; n++;\n"
    "  }\n"
    "  out[py * width + px] = n;\n"
    "}\n"
    "float cnd(float d) {\n"
    "  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;\n"
    "  float k = 1.0f / (1.0f + 0.2316419f * fabs(d));\n"
    "  float c = 0.3989422804f * exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));\n"
    "  return d > 0.0f ? 1.0f - c : c;\n"
    "}\n"
    "__kernel void black_scholes(__global const float *s, __global const float *x, __global const float *t,\n"
    "                            __global float *call, __global float *put, float r, float v) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float sq = sqrt(t[i]);\n"
    "  float d1 = (log(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sq), d2 = d1 - v * sq;\n"
    "  float e = exp(-r * t[i]);\n"
    "  call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);\n"
    "  put[i] = x[i] * e * cnd(-d2) - s[i] * cnd(-d1);\n"
    "}\n"
    "__kernel void nbody(__global const float4 *pos, __global float4 *acc, __local float4 *tile, float soft) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), n = get_global_size(0), ls = get_local_size(0);\n"
    "  float4 p = pos[i];\n"
    "  float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"
    "  for (size_t base = 0; base < n; base += ls) {\n"
    "    tile[l] = pos[base + l];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t j = 0; j < ls; j++) {\n"
    "      float4 q = tile[j];\n"
    "      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;\n"
    "      float d2 = dx * dx + dy * dy + dz * dz + soft;\n"
    "      float inv = 1.0f / sqrt(d2);\n"
    "      float f = q.w * inv * inv * inv;\n"
    "      ax += f * dx; ay += f * dy; az += f * dz;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  acc[i] = (float4)(ax, ay, az, 0.0f);\n"
    "}\n"
    "__kernel void saxpy(__global float *y, __global const float *x, float a) {\n"
    "  size_t i = get_global_id(0);\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n";

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define CHECK(call)                                                              \
    do {                                                                         \
        cl_int e_ = (call);                                                      \
        if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: %d\n", #call, e_); exit(1); } \
    } while (0)

typedef struct {
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    char name[128];
} platform_run;

/* Runs `kernel` RUNS+1 times over the range; the median seconds. */
static double time_kernel(platform_run *p, cl_kernel kernel, cl_uint dims, const size_t *global,
                          const size_t *local) {
    double times[RUNS];
    for (int r = -1; r < RUNS; r++) {
        double start = now();
        CHECK(clEnqueueNDRangeKernel(p->queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
        CHECK(clFinish(p->queue));
        if (r >= 0) times[r] = now() - start;
    }
    qsort(times, RUNS, sizeof times[0], compare_doubles);
    return times[RUNS / 2];
}

static float frand(unsigned *state) {
    *state = *state * 1664525u + 1013904223u;
    return (float)(*state >> 8) / 16777216.0f;
}

enum { MW = 1024, MH = 1024, BS = 1 << 21, NB = 8192, SX = 1 << 24 };

/* One benchmark on one platform: fills `out` (floats or ints as floats). */
static double run_benchmark(platform_run *p, int which, float *out, size_t *out_count) {
    cl_int err;
    unsigned seed = 12345;
    double seconds = 0.0;
    if (which == 0) {
        cl_kernel k = clCreateKernel(p->program, "mandelbrot", &err);
        CHECK(err);
        cl_mem o = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, MW * MH * sizeof(int), NULL, &err);
        int width = MW, limit = 256;
        float x0 = -2.0f, y0 = -1.25f, step = 2.5f / MW;
        CHECK(clSetKernelArg(k, 0, sizeof o, &o));
        CHECK(clSetKernelArg(k, 1, sizeof width, &width));
        CHECK(clSetKernelArg(k, 2, sizeof x0, &x0));
        CHECK(clSetKernelArg(k, 3, sizeof y0, &y0));
        CHECK(clSetKernelArg(k, 4, sizeof step, &step));
        CHECK(clSetKernelArg(k, 5, sizeof limit, &limit));
        size_t global[2] = {MW, MH}, local[2] = {64, 1};
        seconds = time_kernel(p, k, 2, global, local);
        int *counts = malloc(MW * MH * sizeof(int));
        CHECK(clEnqueueReadBuffer(p->queue, o, CL_TRUE, 0, MW * MH * sizeof(int), counts, 0, NULL, NULL));
        for (int i = 0; i < MW * MH; i++) out[i] = (float)counts[i];
        *out_count = MW * MH;
        free(counts);
        clReleaseMemObject(o);
        clReleaseKernel(k);
    } else if (which == 1) {
        cl_kernel k = clCreateKernel(p->program, "black_scholes", &err);
        CHECK(err);
        float *s = malloc(BS * sizeof(float)), *x = malloc(BS * sizeof(float)), *t = malloc(BS * sizeof(float));
        for (int i = 0; i < BS; i++) {
            s[i] = 5.0f + 25.0f * frand(&seed);
            x[i] = 1.0f + 99.0f * frand(&seed);
            t[i] = 0.25f + 9.75f * frand(&seed);
        }
        cl_mem sb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, BS * sizeof(float), s, &err);
        cl_mem xb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, BS * sizeof(float), x, &err);
        cl_mem tb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, BS * sizeof(float), t, &err);
        cl_mem cb = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, BS * sizeof(float), NULL, &err);
        cl_mem pb = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, BS * sizeof(float), NULL, &err);
        float r = 0.02f, v = 0.30f;
        cl_mem args[5] = {sb, xb, tb, cb, pb};
        for (int a = 0; a < 5; a++) CHECK(clSetKernelArg(k, a, sizeof(cl_mem), &args[a]));
        CHECK(clSetKernelArg(k, 5, sizeof r, &r));
        CHECK(clSetKernelArg(k, 6, sizeof v, &v));
        size_t global = BS, local = 256;
        seconds = time_kernel(p, k, 1, &global, &local);
        CHECK(clEnqueueReadBuffer(p->queue, cb, CL_TRUE, 0, BS * sizeof(float), out, 0, NULL, NULL));
        *out_count = BS;
        free(s); free(x); free(t);
        for (int a = 0; a < 5; a++) clReleaseMemObject(args[a]);
        clReleaseKernel(k);
    } else if (which == 2) {
        cl_kernel k = clCreateKernel(p->program, "nbody", &err);
        CHECK(err);
        cl_float4 *pos = malloc(NB * sizeof(cl_float4));
        for (int i = 0; i < NB; i++)
            for (int c = 0; c < 4; c++) pos[i].s[c] = c == 3 ? 0.5f + frand(&seed) : 100.0f * frand(&seed) - 50.0f;
        cl_mem pb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, NB * sizeof(cl_float4), pos, &err);
        cl_mem ab = clCreateBuffer(p->context, CL_MEM_WRITE_ONLY, NB * sizeof(cl_float4), NULL, &err);
        float soft = 0.01f;
        size_t global = NB, local = 128;
        CHECK(clSetKernelArg(k, 0, sizeof pb, &pb));
        CHECK(clSetKernelArg(k, 1, sizeof ab, &ab));
        CHECK(clSetKernelArg(k, 2, local * sizeof(cl_float4), NULL));
        CHECK(clSetKernelArg(k, 3, sizeof soft, &soft));
        seconds = time_kernel(p, k, 1, &global, &local);
        CHECK(clEnqueueReadBuffer(p->queue, ab, CL_TRUE, 0, NB * sizeof(cl_float4), out, 0, NULL, NULL));
        *out_count = NB * 4;
        free(pos);
        clReleaseMemObject(pb); clReleaseMemObject(ab);
        clReleaseKernel(k);
    } else {
        cl_kernel k = clCreateKernel(p->program, "saxpy", &err);
        CHECK(err);
        float *x = malloc(SX * sizeof(float));
        for (int i = 0; i < SX; i++) x[i] = frand(&seed);
        cl_mem yb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, SX * sizeof(float), x, &err);
        cl_mem xb = clCreateBuffer(p->context, CL_MEM_COPY_HOST_PTR, SX * sizeof(float), x, &err);
        float a = 0.5f;
        CHECK(clSetKernelArg(k, 0, sizeof yb, &yb));
        CHECK(clSetKernelArg(k, 1, sizeof xb, &xb));
        CHECK(clSetKernelArg(k, 2, sizeof a, &a));
        size_t global = SX, local = 256;
        seconds = time_kernel(p, k, 1, &global, &local);
        /* y was updated 1 + RUNS times: compare the first elements only. */
        CHECK(clEnqueueReadBuffer(p->queue, yb, CL_TRUE, 0, 4096 * sizeof(float), out, 0, NULL, NULL));
        *out_count = 4096;
        free(x);
        clReleaseMemObject(yb); clReleaseMemObject(xb);
        clReleaseKernel(k);
    }
    return seconds;
}

int main(void) {
    cl_platform_id ids[8];
    cl_uint count = 0;
    CHECK(clGetPlatformIDs(8, ids, &count));
    platform_run runs[8];
    for (cl_uint i = 0; i < count; i++) {
        platform_run *p = &runs[i];
        cl_device_id device;
        cl_int err;
        CHECK(clGetPlatformInfo(ids[i], CL_PLATFORM_NAME, sizeof p->name, p->name, NULL));
        CHECK(clGetDeviceIDs(ids[i], CL_DEVICE_TYPE_CPU, 1, &device, NULL));
        p->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
        CHECK(err);
        p->queue = clCreateCommandQueue(p->context, device, 0, &err);
        CHECK(err);
        p->program = clCreateProgramWithSource(p->context, 1, &source, NULL, &err);
        CHECK(err);
        double start = now();
        err = clBuildProgram(p->program, 1, &device, "", NULL, NULL);
        if (err != CL_SUCCESS) {
            char log[16384];
            clGetProgramBuildInfo(p->program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
            fprintf(stderr, "%s: build failed:\n%s\n", p->name, log);
            return 1;
        }
        fprintf(stderr, "%s: built in %.2f s\n", p->name, now() - start);
    }
    const char *names[] = {"mandelbrot 1024x1024 (divergent loop)", "black_scholes 2M options (exp, log, sqrt)",
                           "nbody 8192 bodies (local memory, barriers)", "saxpy 16M (memory bound)"};
    printf("| kernel |");
    for (cl_uint i = 0; i < count; i++) printf(" %s (ms) |", runs[i].name);
    if (count > 1) printf(" %s / %s |", runs[1].name, runs[0].name);
    printf("\n|---|");
    for (cl_uint i = 0; i < count + (count > 1); i++) printf("---|");
    printf("\n");
    float *reference = malloc((size_t)MW * MH * sizeof(float) * 4), *result = malloc((size_t)MW * MH * sizeof(float) * 4);
    int status = 0;
    for (int which = 0; which < 4; which++) {
        double seconds[8];
        size_t n = 0, n0 = 0;
        for (cl_uint i = 0; i < count; i++) {
            seconds[i] = run_benchmark(&runs[i], which, i == 0 ? reference : result, i == 0 ? &n0 : &n);
            if (i == 0) continue;
            size_t bad = 0;
            for (size_t k = 0; k < n; k++) {
                float a = reference[k], b = result[k];
                if (!(fabsf(a - b) <= 1e-3f * fmaxf(fabsf(a), fabsf(b)) + 1e-3f)) bad++;
            }
            /* mandelbrot: points on the set's boundary may take another
             * iteration count when float rounding differs; allow 0.1%. */
            if (bad > n / 1000) {
                fprintf(stderr, "%s: %s differs from %s in %zu of %zu values\n", names[which], runs[i].name, runs[0].name, bad, n);
                status = 1;
            }
        }
        printf("| %s |", names[which]);
        for (cl_uint i = 0; i < count; i++) printf(" %.2f |", seconds[i] * 1e3);
        if (count > 1) printf(" %.2fx |", seconds[1] / seconds[0]);
        printf("\n");
    }
    return status;
}
