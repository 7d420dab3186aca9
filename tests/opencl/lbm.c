/* Lattice-Boltzmann fluid (D2Q9, BGK collision; after Parboil's lbm, in
 * 2-D): every step streams the nine distributions from the neighbours
 * (periodic borders) and relaxes them towards equilibrium; ten steps,
 * ping-pong buffers. */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__constant int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1};\n"
    "__constant int ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};\n"
    "__constant float weight[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};\n"
    "__kernel void lbm(__global const float *src, __global float *dst, int w, int h, float omega) {\n"
    "  int x = get_global_id(0), y = get_global_id(1), cells = w * h;\n"
    "  float f[9], rho = 0.0f, ux = 0.0f, uy = 0.0f;\n"
    "  for (int i = 0; i < 9; i++) {\n"
    "    int sx = (x - ex[i] + w) % w, sy = (y - ey[i] + h) % h;\n"
    "    f[i] = src[i * cells + sy * w + sx];\n"
    "    rho += f[i]; ux += ex[i] * f[i]; uy += ey[i] * f[i];\n"
    "  }\n"
    "  ux /= rho; uy /= rho;\n"
    "  float usq = 1.5f * (ux * ux + uy * uy);\n"
    "  for (int i = 0; i < 9; i++) {\n"
    "    float eu = 3.0f * (ex[i] * ux + ey[i] * uy);\n"
    "    float eq = weight[i] * rho * (1.0f + eu + 0.5f * eu * eu - usq);\n"
    "    dst[i * cells + y * w + x] = f[i] + omega * (eq - f[i]);\n"
    "  }\n"
    "}\n";

enum { W = 256, H = 256, CELLS = W * H, STEPS = 10 };
static float initial[9 * CELLS], result[9 * CELLS], a[9 * CELLS], b[9 * CELLS];
static cl_kernel kernel;
static cl_mem buffers[2];
static const int ex[9] = {0, 1, 0, -1, 0, 1, -1, -1, 1}, ey[9] = {0, 0, 1, 0, -1, 1, 1, -1, -1};
static const float weight[9] = {4.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 9, 1.0f / 36, 1.0f / 36, 1.0f / 36, 1.0f / 36};

static void step(void) {
    OK(clEnqueueWriteBuffer(lw_queue, buffers[0], CL_FALSE, 0, sizeof initial, initial, 0, NULL, NULL));
    for (int s = 0; s < STEPS; s++) {
        LW_ARG(kernel, 0, buffers[s % 2]);
        LW_ARG(kernel, 1, buffers[(s + 1) % 2]);
        size_t global[2] = {W, H}, local[2] = {64, 1};
        lw_run(kernel, 2, global, local);
    }
}

int main(int argc, char **argv) {
    lw_setup("lbm", argc, argv);
    for (int c = 0; c < CELLS; c++)
        for (int i = 0; i < 9; i++) initial[i * CELLS + c] = weight[i] * lw_random_float(0.9f, 1.1f);
    kernel = lw_kernel(lw_build(source, ""), "lbm");
    buffers[0] = lw_buffer(CL_MEM_READ_WRITE, sizeof initial, NULL);
    buffers[1] = lw_buffer(CL_MEM_READ_WRITE, sizeof initial, NULL);
    int w = W, h = H;
    float omega = 1.2f;
    LW_ARG(kernel, 2, w);
    LW_ARG(kernel, 3, h);
    LW_ARG(kernel, 4, omega);
    lw_time(step);
    lw_read(buffers[STEPS % 2], sizeof result, result);
    memcpy(a, initial, sizeof a);
    for (int s = 0; s < STEPS; s++) {
        float *src = s % 2 ? b : a, *dst = s % 2 ? a : b;
        for (int y = 0; y < H; y++)
            for (int x = 0; x < W; x++) {
                float f[9], rho = 0.0f, ux = 0.0f, uy = 0.0f;
                for (int i = 0; i < 9; i++) {
                    int sx = (x - ex[i] + W) % W, sy = (y - ey[i] + H) % H;
                    f[i] = src[i * CELLS + sy * W + sx];
                    rho += f[i], ux += ex[i] * f[i], uy += ey[i] * f[i];
                }
                ux /= rho, uy /= rho;
                float usq = 1.5f * (ux * ux + uy * uy);
                for (int i = 0; i < 9; i++) {
                    float eu = 3.0f * (ex[i] * ux + ey[i] * uy);
                    float eq = weight[i] * rho * (1.0f + eu + 0.5f * eu * eu - usq);
                    dst[i * CELLS + y * W + x] = f[i] + omega * (eq - f[i]);
                }
            }
    }
    float *want = STEPS % 2 ? b : a;
    for (int i = 0; i < 9 * CELLS; i++) CHECK(result[i] == want[i], "value %d: %.9g, not %.9g", i, result[i], want[i]);
    lw_done();
    return 0;
}
