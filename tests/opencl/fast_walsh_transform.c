/* Fast Walsh-Hadamard transform of 1M values: one launch per butterfly
 * step (AMD APP SDK's FastWalshTransform). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void butterfly(__global float *data, uint step) {\n"
    "  uint id = get_global_id(0);\n"
    "  uint group = id % step;\n"
    "  uint pair = 2 * step * (id / step) + group;\n"
    "  uint match = pair + step;\n"
    "  float a = data[pair], b = data[match];\n"
    "  data[pair] = a + b;\n"
    "  data[match] = a - b;\n"
    "}\n";

enum { LOG_N = 20, N = 1 << LOG_N };
static float input[N], output[N], reference[N];
static cl_kernel kernel;
static cl_mem buffer;

static void step(void) {
    OK(clEnqueueWriteBuffer(lw_queue, buffer, CL_FALSE, 0, sizeof input, input, 0, NULL, NULL));
    for (cl_uint s = 1; s < N; s *= 2) {
        LW_ARG(kernel, 1, s);
        size_t global = N / 2, local = 256;
        lw_run(kernel, 1, &global, &local);
    }
}

int main(int argc, char **argv) {
    lw_setup("fast_walsh_transform", argc, argv);
    for (int i = 0; i < N; i++) input[i] = (float)(int)(lw_random() % 17) - 8.0f, reference[i] = input[i];
    kernel = lw_kernel(lw_build(source, ""), "butterfly");
    buffer = lw_buffer(CL_MEM_READ_WRITE, sizeof input, NULL);
    LW_ARG(kernel, 0, buffer);
    lw_time(step);
    lw_read(buffer, sizeof output, output);
    for (int s = 1; s < N; s *= 2)
        for (int id = 0; id < N / 2; id++) {
            int pair = 2 * s * (id / s) + id % s, match = pair + s;
            float a = reference[pair], b = reference[match];
            reference[pair] = a + b, reference[match] = a - b;
        }
    /* Small integers: every sum is exact. */
    for (int i = 0; i < N; i++) CHECK(output[i] == reference[i], "element %d: %g, not %g", i, output[i], reference[i]);
    lw_done();
    return 0;
}
