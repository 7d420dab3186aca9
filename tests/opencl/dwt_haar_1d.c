/* One-dimensional Haar wavelet transform: each work-group transforms a
 * block of 512 samples through all its levels in local memory, a barrier
 * per level (AMD APP SDK's DwtHaar1D). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void haar(__global const float *in, __global float *out, __local float *block) {\n"
    "  size_t l = get_local_id(0), n = 2 * get_local_size(0), base = get_group_id(0) * n;\n"
    "  block[2 * l] = in[base + 2 * l];\n"
    "  block[2 * l + 1] = in[base + 2 * l + 1];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t length = n; length > 1; length /= 2) {\n"
    "    float average = 0.0f, detail = 0.0f;\n"
    "    if (l < length / 2) {\n"
    "      float a = block[2 * l], b = block[2 * l + 1];\n"
    "      average = (a + b) * 0.5f; detail = (a - b) * 0.5f;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    if (l < length / 2) { block[l] = average; out[base + length / 2 + l] = detail; }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) out[base] = block[0];\n"
    "}\n";

enum { N = 1 << 20, BLOCK = 512 };
static float in[N], out[N], block[BLOCK], reference[BLOCK];
static cl_kernel kernel;

static void step(void) {
    size_t global = N / 2, local = BLOCK / 2;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("dwt_haar_1d", argc, argv);
    for (int i = 0; i < N; i++) in[i] = lw_random_float(-10, 10);
    kernel = lw_kernel(lw_build(source, ""), "haar");
    cl_mem ib = lw_buffer(CL_MEM_READ_ONLY, sizeof in, in), ob = lw_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    LW_ARG(kernel, 0, ib);
    LW_ARG(kernel, 1, ob);
    OK(clSetKernelArg(kernel, 2, BLOCK * sizeof(float), NULL));
    lw_time(step);
    lw_read(ob, sizeof out, out);
    for (int base = 0; base < N; base += BLOCK * 61) {
        memcpy(block, in + base, sizeof block);
        for (int length = BLOCK; length > 1; length /= 2) {
            for (int l = 0; l < length / 2; l++) {
                float a = block[2 * l], b = block[2 * l + 1];
                reference[l] = (a + b) * 0.5f;
                CHECK(out[base + length / 2 + l] == (a - b) * 0.5f, "detail %d", base + length / 2 + l);
            }
            memcpy(block, reference, sizeof(float) * (length / 2));
        }
        CHECK(out[base] == block[0], "average of block %d: %g, not %g", base, out[base], block[0]);
    }
    lw_done();
    return 0;
}
