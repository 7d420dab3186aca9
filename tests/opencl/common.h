/* Shared host code of the OpenCL test programs (the .c files here): each
 * program builds its kernels on the platform whose name contains argv[1]
 * (default "Lanewise"), runs them, compares with a CPU reference computed
 * here, and prints "ok: NAME" (exit 0) or a FAIL line (exit 1). With
 * LW_BENCH=1 in the environment it also prints "time NAME SECONDS": the
 * median of 7 timed runs of its timed step, after a warm-up run. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL %s line %d: %s: ", lw_name, __LINE__, #cond);          \
            printf(__VA_ARGS__);                                               \
            printf("\n");                                                      \
            exit(1);                                                           \
        }                                                                      \
    } while (0)
#define OK(call)                                                               \
    do {                                                                       \
        cl_int lw_e = (call);                                                  \
        CHECK(lw_e == CL_SUCCESS, "%s returned %d", #call, lw_e);               \
    } while (0)

static const char *lw_name = "?";
static cl_context lw_context;
static cl_command_queue lw_queue;
static cl_device_id lw_device;

/* Finds the platform, makes a context and a queue. */
static void lw_setup(const char *name, int argc, char **argv) {
    lw_name = name;
    const char *wanted = argc > 1 ? argv[1] : "Lanewise";
    cl_platform_id platforms[16], platform = NULL;
    cl_uint count = 0;
    OK(clGetPlatformIDs(16, platforms, &count));
    for (cl_uint i = 0; i < count && i < 16; i++) {
        char platform_name[256];
        OK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof platform_name, platform_name, NULL));
        if (strstr(platform_name, wanted)) platform = platforms[i];
    }
    CHECK(platform != NULL, "no platform named %s", wanted);
    OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &lw_device, NULL));
    cl_int err;
    lw_context = clCreateContext(NULL, 1, &lw_device, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateContext: %d", err);
    lw_queue = clCreateCommandQueue(lw_context, lw_device, 0, &err);
    CHECK(err == CL_SUCCESS, "clCreateCommandQueue: %d", err);
}

static cl_program lw_build(const char *source, const char *options) {
    cl_int err;
    cl_program program = clCreateProgramWithSource(lw_context, 1, &source, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateProgramWithSource: %d", err);
    err = clBuildProgram(program, 1, &lw_device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        static char log[65536];
        clGetProgramBuildInfo(program, lw_device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        CHECK(0, "clBuildProgram: %d\n%s", err, log);
    }
    return program;
}

static cl_kernel lw_kernel(cl_program program, const char *name) {
    cl_int err;
    cl_kernel kernel = clCreateKernel(program, name, &err);
    CHECK(err == CL_SUCCESS, "clCreateKernel(%s): %d", name, err);
    return kernel;
}

static cl_mem lw_buffer(cl_mem_flags flags, size_t size, void *host) {
    cl_int err;
    cl_mem buffer = clCreateBuffer(lw_context, flags | (host ? CL_MEM_COPY_HOST_PTR : 0), size, host, &err);
    CHECK(err == CL_SUCCESS, "clCreateBuffer(%zu): %d", size, err);
    return buffer;
}

static void lw_read(cl_mem buffer, size_t size, void *host) {
    OK(clEnqueueReadBuffer(lw_queue, buffer, CL_TRUE, 0, size, host, 0, NULL, NULL));
}

#define LW_ARG(kernel, index, value) OK(clSetKernelArg(kernel, index, sizeof(value), &(value)))

static void lw_run(cl_kernel kernel, cl_uint dims, const size_t *global, const size_t *local) {
    OK(clEnqueueNDRangeKernel(lw_queue, kernel, dims, NULL, global, local, 0, NULL, NULL));
}

static double lw_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int lw_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Times `step` (which enqueues work) as the header comment says, when
 * LW_BENCH is set; runs it once otherwise. */
static void lw_time(void (*step)(void)) {
    if (!getenv("LW_BENCH")) {
        step();
        OK(clFinish(lw_queue));
        return;
    }
    double times[7];
    step();
    OK(clFinish(lw_queue));
    for (int run = 0; run < 7; run++) {
        double start = lw_now();
        step();
        OK(clFinish(lw_queue));
        times[run] = lw_now() - start;
    }
    qsort(times, 7, sizeof times[0], lw_compare_doubles);
    printf("time %s %.9f\n", lw_name, times[3]);
}

/* A deterministic pseudo-random stream (xorshift32). */
static uint32_t lw_state = 2463534242u;
static uint32_t lw_random(void) {
    lw_state ^= lw_state << 13;
    lw_state ^= lw_state >> 17;
    lw_state ^= lw_state << 5;
    return lw_state;
}
__attribute__((unused)) static float lw_random_float(float lo, float hi) { return lo + (hi - lo) * (float)(lw_random() >> 8) / 16777216.0f; }

__attribute__((unused)) static int lw_close(float got, float want, float relative) {
    return fabsf(got - want) <= relative * fmaxf(fabsf(want), 1.0f);
}

static void lw_done(void) {
    clReleaseCommandQueue(lw_queue);
    clReleaseContext(lw_context);
    printf("ok: %s\n", lw_name);
}
