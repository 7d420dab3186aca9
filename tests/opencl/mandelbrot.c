/* Mandelbrot set, 1024x1024, up to 512 iterations: a loop whose trip count
 * differs in every lane (AMD APP SDK's Mandelbrot). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void mandelbrot(__global int *out, int width, float x0, float y0, float step, int limit) {\n"
    "  int px = get_global_id(0), py = get_global_id(1);\n"
    "  float cr = x0 + px * step, ci = y0 + py * step, zr = 0.0f, zi = 0.0f;\n"
    "  int n = 0;\n"
    "  while (n < limit && zr * zr + zi * zi < 4.0f) {\n"
    "    float t = zr * zr - zi * zi + cr; zi = 2.0f * zr * zi + ci; zr = t; n++;\n"
    "  }\n"
    "  out[py * width + px] = n;\n"
    "}\n";

enum { W = 1024, H = 1024, LIMIT = 512 };
static int out[W * H];
static cl_kernel kernel;

static void step(void) {
    size_t global[2] = {W, H}, local[2] = {64, 1};
    lw_run(kernel, 2, global, local);
}

int main(int argc, char **argv) {
    lw_setup("mandelbrot", argc, argv);
    kernel = lw_kernel(lw_build(source, ""), "mandelbrot");
    cl_mem ob = lw_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    int width = W, limit = LIMIT;
    float x0 = -2.0f, y0 = -1.25f, delta = 2.5f / W;
    LW_ARG(kernel, 0, ob);
    LW_ARG(kernel, 1, width);
    LW_ARG(kernel, 2, x0);
    LW_ARG(kernel, 3, y0);
    LW_ARG(kernel, 4, delta);
    LW_ARG(kernel, 5, limit);
    lw_time(step);
    lw_read(ob, sizeof out, out);
    for (int py = 0; py < H; py += 3)
        for (int px = 0; px < W; px++) {
            float cr = x0 + px * delta, ci = y0 + py * delta, zr = 0.0f, zi = 0.0f;
            int n = 0;
            while (n < LIMIT && zr * zr + zi * zi < 4.0f) {
                float t = zr * zr - zi * zi + cr;
                zi = 2.0f * zr * zi + ci;
                zr = t;
                n++;
            }
            CHECK(out[py * W + px] == n, "pixel %d,%d: %d, not %d", px, py, out[py * W + px], n);
        }
    lw_done();
    return 0;
}
