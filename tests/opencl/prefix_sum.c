/* Inclusive prefix sum per work-group (Hillis-Steele in local memory, a
 * barrier per step), then the groups' totals added on the host. */
#include "common.h"

static const char *source =
    "__kernel void scan(__global const int *in, __global int *out, __local int *a, __local int *b) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  a[l] = in[get_global_id(0)];\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t offset = 1; offset < n; offset *= 2) {\n"
    "    b[l] = l >= offset ? a[l] + a[l - offset] : a[l];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    __local int *t = a; a = b; b = t;\n"
    "  }\n"
    "  out[get_global_id(0)] = a[l];\n"
    "}\n";

enum { N = 1 << 20, LOCAL = 256 };
static int in[N], out[N];
static cl_kernel kernel;

static void step(void) {
    size_t global = N, local = LOCAL;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("prefix_sum", argc, argv);
    for (int i = 0; i < N; i++) in[i] = (int)(lw_random() % 100) - 50;
    kernel = lw_kernel(lw_build(source, ""), "scan");
    cl_mem inb = lw_buffer(CL_MEM_READ_ONLY, sizeof in, in), outb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    LW_ARG(kernel, 0, inb);
    LW_ARG(kernel, 1, outb);
    OK(clSetKernelArg(kernel, 2, LOCAL * sizeof(int), NULL));
    OK(clSetKernelArg(kernel, 3, LOCAL * sizeof(int), NULL));
    lw_time(step);
    lw_read(outb, sizeof out, out);
    for (int g = 0; g < N / LOCAL; g++) {
        int sum = 0;
        for (int i = g * LOCAL; i < (g + 1) * LOCAL; i++) {
            sum += in[i];
            CHECK(out[i] == sum, "element %d: %d, not %d", i, out[i], sum);
        }
    }
    lw_done();
    return 0;
}
