/* C = A x B with 16x16 tiles in local memory (2-D NDRange, barriers). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "#define T 16\n"
    "__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int n) {\n"
    "  __local float ta[T][T], tb[T][T];\n"
    "  int col = get_global_id(0), row = get_global_id(1), lx = get_local_id(0), ly = get_local_id(1);\n"
    "  float sum = 0.0f;\n"
    "  for (int t = 0; t < n; t += T) {\n"
    "    ta[ly][lx] = a[row * n + t + lx];\n"
    "    tb[ly][lx] = b[(t + ly) * n + col];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (int k = 0; k < T; k++) sum += ta[ly][k] * tb[k][lx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  c[row * n + col] = sum;\n"
    "}\n";

enum { N = 384 };
static float a[N * N], b[N * N], c[N * N];
static cl_kernel kernel;

static void step(void) {
    size_t global[2] = {N, N}, local[2] = {16, 16};
    lw_run(kernel, 2, global, local);
}

int main(int argc, char **argv) {
    lw_setup("matmul", argc, argv);
    for (int i = 0; i < N * N; i++) a[i] = lw_random_float(-1, 1), b[i] = lw_random_float(-1, 1);
    kernel = lw_kernel(lw_build(source, ""), "matmul");
    cl_mem ab = lw_buffer(CL_MEM_READ_ONLY, sizeof a, a), bb = lw_buffer(CL_MEM_READ_ONLY, sizeof b, b);
    cl_mem cb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof c, NULL);
    int n = N;
    LW_ARG(kernel, 0, ab);
    LW_ARG(kernel, 1, bb);
    LW_ARG(kernel, 2, cb);
    LW_ARG(kernel, 3, n);
    lw_time(step);
    lw_read(cb, sizeof c, c);
    for (int row = 0; row < N; row += 7)
        for (int col = 0; col < N; col++) {
            float sum = 0.0f;
            for (int t = 0; t < N; t += 16)
                for (int k = 0; k < 16; k++) sum += a[row * N + t + k] * b[(t + k) * N + col];
            CHECK(c[row * N + col] == sum, "c[%d][%d]: %.9g, not %.9g", row, col, c[row * N + col], sum);
        }
    lw_done();
    return 0;
}
