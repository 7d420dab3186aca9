/* Bitonic sort of 64K keys: one kernel launch per (stage, pass), the
 * classic data-parallel sorting network (AMD APP SDK's BitonicSort). */
#include "common.h"

static const char *source =
    "__kernel void bitonic(__global uint *keys, uint stage, uint pass, uint ascending) {\n"
    "  uint id = get_global_id(0);\n"
    "  uint distance = 1u << (stage - pass);\n"
    "  uint left = (id % distance) + (id / distance) * 2 * distance;\n"
    "  uint right = left + distance;\n"
    "  uint a = keys[left], b = keys[right];\n"
    "  uint up = ((id >> stage) & 1) ? !ascending : ascending;\n"
    "  if ((a > b) == up) { keys[left] = b; keys[right] = a; }\n"
    "}\n";

enum { LOG_N = 16, N = 1 << LOG_N };
static cl_uint keys[N], sorted[N];
static cl_kernel kernel;
static cl_mem buffer;

static void step(void) {
    OK(clEnqueueWriteBuffer(lw_queue, buffer, CL_FALSE, 0, sizeof keys, keys, 0, NULL, NULL));
    for (cl_uint stage = 0; stage < LOG_N; stage++)
        for (cl_uint pass = 0; pass <= stage; pass++) {
            cl_uint ascending = 1;
            LW_ARG(kernel, 1, stage);
            LW_ARG(kernel, 2, pass);
            LW_ARG(kernel, 3, ascending);
            size_t global = N / 2, local = 256;
            lw_run(kernel, 1, &global, &local);
        }
}

static int compare(const void *a, const void *b) {
    cl_uint x = *(const cl_uint *)a, y = *(const cl_uint *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    lw_setup("bitonic_sort", argc, argv);
    for (int i = 0; i < N; i++) keys[i] = lw_random();
    kernel = lw_kernel(lw_build(source, ""), "bitonic");
    buffer = lw_buffer(CL_MEM_READ_WRITE, sizeof keys, NULL);
    LW_ARG(kernel, 0, buffer);
    lw_time(step);
    lw_read(buffer, sizeof sorted, sorted);
    qsort(keys, N, sizeof keys[0], compare);
    for (int i = 0; i < N; i++) CHECK(sorted[i] == keys[i], "position %d: %u, not %u", i, sorted[i], keys[i]);
    lw_done();
    return 0;
}
