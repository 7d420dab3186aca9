/* 8x8 discrete cosine transform of a 1024x1024 image: one work-group per
 * block, the block and the cosine table in local memory, a row pass and a
 * column pass separated by a barrier (AMD APP SDK's DCT). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void dct(__global const float *in, __global float *out, __global const float *cosines, int width) {\n"
    "  __local float block[8][8], rows[8][8];\n"
    "  int lx = get_local_id(0), ly = get_local_id(1), x = get_global_id(0), y = get_global_id(1);\n"
    "  block[ly][lx] = in[y * width + x];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  float sum = 0.0f;\n"
    "  for (int k = 0; k < 8; k++) sum += cosines[lx * 8 + k] * block[ly][k];\n"
    "  rows[ly][lx] = sum;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  sum = 0.0f;\n"
    "  for (int k = 0; k < 8; k++) sum += cosines[ly * 8 + k] * rows[k][lx];\n"
    "  out[y * width + x] = sum;\n"
    "}\n";

enum { W = 1024 };
static float in[W * W], out[W * W], cosines[64];
static cl_kernel kernel;

static void step(void) {
    size_t global[2] = {W, W}, local[2] = {8, 8};
    lw_run(kernel, 2, global, local);
}

int main(int argc, char **argv) {
    lw_setup("dct", argc, argv);
    for (int u = 0; u < 8; u++)
        for (int k = 0; k < 8; k++)
            cosines[u * 8 + k] = (float)((u == 0 ? sqrt(0.125) : 0.5) * cos((2 * k + 1) * u * M_PI / 16));
    for (int i = 0; i < W * W; i++) in[i] = (float)(lw_random() % 256);
    kernel = lw_kernel(lw_build(source, ""), "dct");
    cl_mem ib = lw_buffer(CL_MEM_READ_ONLY, sizeof in, in), ob = lw_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_mem cb = lw_buffer(CL_MEM_READ_ONLY, sizeof cosines, cosines);
    int width = W;
    LW_ARG(kernel, 0, ib);
    LW_ARG(kernel, 1, ob);
    LW_ARG(kernel, 2, cb);
    LW_ARG(kernel, 3, width);
    lw_time(step);
    lw_read(ob, sizeof out, out);
    for (int by = 0; by < W; by += 8 * 13)
        for (int bx = 0; bx < W; bx += 8) {
            float rows[8][8];
            for (int ly = 0; ly < 8; ly++)
                for (int lx = 0; lx < 8; lx++) {
                    float sum = 0.0f;
                    for (int k = 0; k < 8; k++) sum += cosines[lx * 8 + k] * in[(by + ly) * W + bx + k];
                    rows[ly][lx] = sum;
                }
            for (int ly = 0; ly < 8; ly++)
                for (int lx = 0; lx < 8; lx++) {
                    float sum = 0.0f;
                    for (int k = 0; k < 8; k++) sum += cosines[ly * 8 + k] * rows[k][lx];
                    float got = out[(by + ly) * W + bx + lx];
                    CHECK(got == sum, "block %d,%d at %d,%d: %g, not %g", bx, by, lx, ly, got, sum);
                }
        }
    lw_done();
    return 0;
}
