/* Work-group barriers, checked against the host's own computation: values
 * live across barriers (a float4, a bool, a value the same in every
 * work-item of a row, two integers swapped every round), barriers in nested loops and
 * under a uniform condition, a work-group that returns before its
 * barriers, 2-D work-groups whose rows are and are not multiples of the
 * SIMD width, private memory whose address is taken used after a barrier
 * (Lanewise runs that kernel as fibers and says so in the build log), every
 * atomic function on local memory, and,
 * on Lanewise only (undefined in OpenCL), a barrier that only some
 * work-items reach, which fails the command. */
#include "host.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void rows(__global const float4 *in, __global float4 *out, __local float4 *tile, int rounds) {\n"
    "  size_t x = get_local_id(0), y = get_local_id(1), w = get_local_size(0);\n"
    "  size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
    "  float4 v = in[i];\n"
    "  int row_tag = (int)(y * 7 + get_group_id(0));\n"
    "  int a = (int)x, b = 1;\n"
    "  bool big = v.x > 12.0f;\n"
    "  for (int r = 0; r < rounds; r++) {\n"
    "    tile[y * w + x] = v;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    v = v * 0.5f + tile[y * w + (w - 1 - x)];\n"
    "    int t = a; a = b; b = t + b + row_tag;\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  out[i] = v + (float4)((float)a, (float)b, (float)row_tag, big ? 1.0f : 0.0f);\n"
    "}\n"
    "__kernel void nested(__global uint *out, __local uint *shared, int outer, int flag) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  if (get_group_id(0) == 2) { out[get_global_id(0)] = 7u; return; }\n"
    "  uint acc = (uint)get_global_id(0);\n"
    "  for (int i = 0; i < outer; i++) {\n"
    "    for (int j = 0; j <= i; j++) {\n"
    "      shared[l] = acc + (uint)j;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      acc += shared[(l + 1) % n];\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    if (flag > i) {\n"
    "      shared[l] = acc;\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "      acc ^= shared[n - 1 - l];\n"
    "      barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n"
    "__kernel void private_array(__global const int *in, __global int *out, __local int *shared) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  int keep[4];\n"
    "  for (int k = 0; k < 4; k++) keep[k] = in[get_global_id(0)] * (k + 1);\n"
    "  shared[l] = keep[in[l] & 3];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = shared[n - 1 - l] + keep[(l + in[0]) & 3];\n"
    "}\n"
    "__kernel void local_atomics(__global const int *in, __global int *out, __local int *s, __local uint *u) {\n"
    "  size_t l = get_local_id(0), g = get_group_id(0);\n"
    "  if (l == 0) {\n"
    "    s[0] = 0; s[1] = 0x7fffffff; s[2] = -0x7fffffff - 1; s[3] = 0; s[4] = 0; s[5] = -1; s[6] = 0; s[7] = 0; s[8] = 0;\n"
    "    u[0] = 0xffffffffu; u[1] = 0u; u[2] = 0u; u[3] = 1000000u;\n"
    "  }\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  int v = in[get_global_id(0)];\n"
    "  atomic_add(&s[0], v); atomic_min(&s[1], v); atomic_max(&s[2], v); atomic_xor(&s[3], v);\n"
    "  atomic_or(&s[4], v); atomic_and(&s[5], v); atomic_sub(&s[6], v); atomic_xchg(&s[8], v);\n"
    "  int old;\n"
    "  do { old = s[7]; } while (atomic_cmpxchg(&s[7], old, old + 1) != old);\n"
    "  atomic_min(&u[0], (uint)v); atomic_max(&u[1], (uint)v); atomic_inc(&u[2]);\n"
    "  if (v & 1) atomic_dec(&u[3]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  if (l < 9) out[g * 13 + l] = s[l];\n"
    "  else if (l < 13) out[g * 13 + l] = (int)u[l - 9];\n"
    "}\n"
    "__kernel void divergent(__global int *out) {\n"
    "  if (get_local_id(0) < 3) barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[get_global_id(0)] = 1;\n"
    "}\n";

typedef struct { float v[4]; } float4_t;

static void rows_reference(const float4_t *in, float4_t *out, size_t gw, size_t gh, size_t w, size_t h, int rounds) {
    float4_t *v = malloc(gw * gh * sizeof *v), *tile = malloc(w * h * sizeof *tile);
    int *a = malloc(gw * gh * sizeof *a), *b = malloc(gw * gh * sizeof *b);
    memcpy(v, in, gw * gh * sizeof *v);
    int *big = malloc(gw * gh * sizeof *big);
    for (size_t i = 0; i < gw * gh; i++) a[i] = (int)(i % gw % w), b[i] = 1, big[i] = in[i].v[0] > 12.0f;
    for (size_t gy = 0; gy < gh / h; gy++) {
        for (size_t gx = 0; gx < gw / w; gx++) {
            for (int r = 0; r < rounds; r++) {
                for (size_t y = 0; y < h; y++)
                    for (size_t x = 0; x < w; x++) tile[y * w + x] = v[(gy * h + y) * gw + gx * w + x];
                for (size_t y = 0; y < h; y++) {
                    for (size_t x = 0; x < w; x++) {
                        size_t i = (gy * h + y) * gw + gx * w + x;
                        for (int c = 0; c < 4; c++) v[i].v[c] = v[i].v[c] * 0.5f + tile[y * w + (w - 1 - x)].v[c];
                        int t = a[i];
                        a[i] = b[i];
                        b[i] = t + b[i] + (int)(y * 7 + gx);
                    }
                }
            }
        }
    }
    for (size_t i = 0; i < gw * gh; i++) {
        size_t y = i / gw % h, gx = i % gw / w;
        float extra[4] = {(float)a[i], (float)b[i], (float)(y * 7 + gx), big[i] ? 1.0f : 0.0f};
        for (int c = 0; c < 4; c++) out[i].v[c] = v[i].v[c] + extra[c];
    }
    free(v), free(tile), free(a), free(b), free(big);
}

static void nested_reference(cl_uint *out, size_t global, size_t n, int outer, int flag) {
    cl_uint *acc = malloc(n * sizeof *acc), *shared = malloc(n * sizeof *shared);
    for (size_t g = 0; g < global / n; g++) {
        if (g == 2) {
            for (size_t l = 0; l < n; l++) out[g * n + l] = 7u;
            continue;
        }
        for (size_t l = 0; l < n; l++) acc[l] = (cl_uint)(g * n + l);
        for (int i = 0; i < outer; i++) {
            for (int j = 0; j <= i; j++) {
                for (size_t l = 0; l < n; l++) shared[l] = acc[l] + (cl_uint)j;
                for (size_t l = 0; l < n; l++) acc[l] += shared[(l + 1) % n];
            }
            if (flag > i) {
                for (size_t l = 0; l < n; l++) shared[l] = acc[l];
                for (size_t l = 0; l < n; l++) acc[l] ^= shared[n - 1 - l];
            }
        }
        for (size_t l = 0; l < n; l++) out[g * n + l] = acc[l];
    }
    free(acc), free(shared);
}

int main(int argc, char **argv) {
    lw_host host = lw_open(argc, argv);
    const char *wanted = host.platform_name;
    int on_lanewise = strstr("Lanewise", wanted) != NULL;
    cl_int err;
    cl_device_id device = host.device;
    cl_context context = host.context;
    cl_command_queue queue = host.queue;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    static char log[16384];
    err = clBuildProgram(program, 1, &device, NULL, NULL, NULL);
    clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(err == CL_SUCCESS, "build %d: %s", err, log);
    if (on_lanewise && !getenv("LANEWISE_OPENCL_BARRIERS")) {
        CHECK(strstr(log, "kernel `private_array`: its work-groups pass barriers as fibers"), "log: %s", log);
        CHECK(!strstr(log, "kernel `rows`") && !strstr(log, "kernel `nested`"), "log: %s", log);
    }

    /* rows: 2-D work-groups of several shapes, 1..3 rounds. */
    cl_kernel rows = clCreateKernel(program, "rows", &err);
    CHECK(rows, "rows %d", err);
    size_t shapes[][2] = {{16, 4}, {12, 3}, {5, 2}, {32, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        size_t w = shapes[s][0], h = shapes[s][1], gw = w * 3, gh = h * 2, n = gw * gh;
        float4_t *in = malloc(n * sizeof *in), *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            for (int c = 0; c < 4; c++) in[i].v[c] = (float)((i * 13 + (size_t)c * 5) % 97) * 0.25f;
        cl_mem inb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, n * sizeof *in, in, &err);
        cl_mem outb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, n * sizeof *got, NULL, &err);
        for (int rounds = 1; rounds <= 3; rounds++) {
            OK(clSetKernelArg(rows, 0, sizeof inb, &inb));
            OK(clSetKernelArg(rows, 1, sizeof outb, &outb));
            OK(clSetKernelArg(rows, 2, w * h * sizeof(cl_float4), NULL));
            OK(clSetKernelArg(rows, 3, sizeof rounds, &rounds));
            size_t global[2] = {gw, gh}, local[2] = {w, h};
            OK(clEnqueueNDRangeKernel(queue, rows, 2, NULL, global, local, 0, NULL, NULL));
            OK(clEnqueueReadBuffer(queue, outb, CL_TRUE, 0, n * sizeof *got, got, 0, NULL, NULL));
            rows_reference(in, want, gw, gh, w, h, rounds);
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < 4; c++)
                    CHECK(got[i].v[c] == want[i].v[c], "rows %zux%zu, %d rounds, item %zu.%d: %g, not %g", w, h,
                          rounds, i, c, got[i].v[c], want[i].v[c]);
        }
        OK(clReleaseMemObject(inb));
        OK(clReleaseMemObject(outb));
        free(in), free(got), free(want);
    }

    /* nested: barriers in nested loops and under a uniform condition; group
     * 2 returns before any barrier. */
    cl_kernel nested = clCreateKernel(program, "nested", &err);
    CHECK(nested, "nested %d", err);
    size_t locals[] = {64, 24, 7};
    for (size_t c = 0; c < sizeof locals / sizeof locals[0]; c++) {
        size_t local = locals[c], global = local * 4;
        cl_uint got[256], want[256];
        cl_mem outb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, global * sizeof(cl_uint), NULL, &err);
        int outer = 4, flag = 2;
        OK(clSetKernelArg(nested, 0, sizeof outb, &outb));
        OK(clSetKernelArg(nested, 1, local * sizeof(cl_uint), NULL));
        OK(clSetKernelArg(nested, 2, sizeof outer, &outer));
        OK(clSetKernelArg(nested, 3, sizeof flag, &flag));
        OK(clEnqueueNDRangeKernel(queue, nested, 1, NULL, &global, &local, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(queue, outb, CL_TRUE, 0, global * sizeof(cl_uint), got, 0, NULL, NULL));
        nested_reference(want, global, local, outer, flag);
        for (size_t i = 0; i < global; i++)
            CHECK(got[i] == want[i], "nested local %zu item %zu: %u, not %u", local, i, got[i], want[i]);
        OK(clReleaseMemObject(outb));
    }

    /* private_array: an array used after a barrier. */
    cl_kernel private_array = clCreateKernel(program, "private_array", &err);
    CHECK(private_array, "private_array %d", err);
    {
        enum { GLOBAL = 96 };
        size_t global = GLOBAL, local = 32;
        int in[GLOBAL], got[GLOBAL];
        for (int i = 0; i < GLOBAL; i++) in[i] = i * 5 + 3;
        cl_mem inb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
        cl_mem outb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof got, NULL, &err);
        OK(clSetKernelArg(private_array, 0, sizeof inb, &inb));
        OK(clSetKernelArg(private_array, 1, sizeof outb, &outb));
        OK(clSetKernelArg(private_array, 2, local * sizeof(int), NULL));
        OK(clEnqueueNDRangeKernel(queue, private_array, 1, NULL, &global, &local, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(queue, outb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
        for (int i = 0; i < GLOBAL; i++) {
            int l = i % 32, g = i / 32, mirror = g * 32 + 31 - l;
            int shared = in[mirror] * ((in[31 - l] & 3) + 1);
            int want = shared + in[i] * (((l + in[0]) & 3) + 1);
            CHECK(got[i] == want, "private_array %d: %d, not %d", i, got[i], want);
        }
        OK(clReleaseMemObject(inb));
        OK(clReleaseMemObject(outb));
    }

    /* local_atomics: every atomic function on local memory, many
     * work-items on the same cells (local sizes with and without a partial
     * SIMD group). */
    cl_kernel local_atomics = clCreateKernel(program, "local_atomics", &err);
    CHECK(local_atomics, "local_atomics %d", err);
    size_t atomic_locals[] = {64, 20};
    for (size_t c = 0; c < 2; c++) {
        enum { GROUPS = 3, MAX_GLOBAL = 64 * GROUPS };
        size_t local = atomic_locals[c], global = local * GROUPS;
        int in[MAX_GLOBAL], got[13 * GROUPS];
        for (size_t i = 0; i < global; i++) in[i] = (int)((i * 2654435761u) >> 7) - (1 << 24);
        cl_mem inb = clCreateBuffer(context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
        cl_mem outb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof got, NULL, &err);
        OK(clSetKernelArg(local_atomics, 0, sizeof inb, &inb));
        OK(clSetKernelArg(local_atomics, 1, sizeof outb, &outb));
        OK(clSetKernelArg(local_atomics, 2, 9 * sizeof(int), NULL));
        OK(clSetKernelArg(local_atomics, 3, 4 * sizeof(cl_uint), NULL));
        OK(clEnqueueNDRangeKernel(queue, local_atomics, 1, NULL, &global, &local, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(queue, outb, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL));
        for (int g = 0; g < GROUPS; g++) {
            unsigned sum = 0, difference = 0, umin = 0xffffffffu, umax = 0, dec = 1000000u;
            int smin = 0x7fffffff, smax = -0x7fffffff - 1, x = 0, o = 0, a = -1, xchg_seen = 0;
            const int *part = in + g * local;
            for (size_t l = 0; l < local; l++) {
                int v = part[l];
                sum += (unsigned)v, difference -= (unsigned)v;
                smin = v < smin ? v : smin, smax = v > smax ? v : smax;
                x ^= v, o |= v, a &= v;
                umin = (unsigned)v < umin ? (unsigned)v : umin, umax = (unsigned)v > umax ? (unsigned)v : umax;
                if (v & 1) dec--;
                xchg_seen |= got[g * 13 + 8] == v;
            }
            const int *cell = got + g * 13;
            int want[13] = {(int)sum, smin, smax, x, o, a, (int)difference, (int)local, cell[8],
                            (int)umin, (int)umax, (int)local, (int)dec};
            for (int k = 0; k < 13; k++)
                CHECK(cell[k] == want[k], "local_atomics local %zu group %d cell %d: %d, not %d", local, g, k,
                      cell[k], want[k]);
            CHECK(xchg_seen, "local_atomics: atomic_xchg left %d, no work-item's value", cell[8]);
        }
        OK(clReleaseMemObject(inb));
        OK(clReleaseMemObject(outb));
    }
    OK(clReleaseKernel(local_atomics));

    /* divergent: some work-items of each group reach the barrier, the
     * others return. Undefined in OpenCL; Lanewise fails the command. */
    if (on_lanewise) {
        cl_kernel divergent = clCreateKernel(program, "divergent", &err);
        CHECK(divergent, "divergent %d", err);
        size_t global = 64, local = 32;
        cl_mem outb = clCreateBuffer(context, CL_MEM_WRITE_ONLY, global * sizeof(int), NULL, &err);
        OK(clSetKernelArg(divergent, 0, sizeof outb, &outb));
        cl_event done;
        OK(clEnqueueNDRangeKernel(queue, divergent, 1, NULL, &global, &local, 0, NULL, &done));
        clWaitForEvents(1, &done);
        cl_int status;
        OK(clGetEventInfo(done, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
        CHECK(status == CL_INVALID_OPERATION, "divergent barrier: status %d", status);
        OK(clReleaseEvent(done));
        OK(clReleaseMemObject(outb));
        OK(clReleaseKernel(divergent));
    }

    OK(clReleaseKernel(rows));
    OK(clReleaseKernel(nested));
    OK(clReleaseKernel(private_array));
    OK(clReleaseProgram(program));
    OK(clReleaseCommandQueue(queue));
    OK(clReleaseContext(context));
    printf("ok: barriers\n");
    return 0;
}
