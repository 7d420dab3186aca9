/* 256-bin histogram of 16M bytes: each work-group counts into local bins
 * with atomic_inc, then adds them to the global bins with atomic_add (AMD
 * APP SDK's Histogram). */
#include "common.h"

static const char *source =
    "__kernel void histogram(__global const uchar *data, __global uint *bins, __local uint *local_bins, uint per_item) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  for (size_t b = l; b < 256; b += n) local_bins[b] = 0;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  size_t first = get_global_id(0) * per_item;\n"
    "  for (uint k = 0; k < per_item; k++) atomic_inc(&local_bins[data[first + k]]);\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t b = l; b < 256; b += n) atomic_add(&bins[b], local_bins[b]);\n"
    "}\n";

enum { N = 1 << 24, PER_ITEM = 64, LOCAL = 128 };
static unsigned char data[N];
static cl_uint bins[256], zero[256];
static cl_kernel kernel;
static cl_mem bb;

static void step(void) {
    OK(clEnqueueWriteBuffer(lw_queue, bb, CL_FALSE, 0, sizeof zero, zero, 0, NULL, NULL));
    size_t global = N / PER_ITEM, local = LOCAL;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("histogram", argc, argv);
    for (int i = 0; i < N; i++) data[i] = (unsigned char)((lw_random() >> 7) % 256 * (i % 3 == 0 ? 1 : 0) + (i % 7));
    kernel = lw_kernel(lw_build(source, ""), "histogram");
    cl_mem db = lw_buffer(CL_MEM_READ_ONLY, sizeof data, data);
    bb = lw_buffer(CL_MEM_READ_WRITE, sizeof bins, NULL);
    cl_uint per_item = PER_ITEM;
    LW_ARG(kernel, 0, db);
    LW_ARG(kernel, 1, bb);
    OK(clSetKernelArg(kernel, 2, 256 * sizeof(cl_uint), NULL));
    LW_ARG(kernel, 3, per_item);
    lw_time(step);
    lw_read(bb, sizeof bins, bins);
    cl_uint want[256] = {0};
    for (int i = 0; i < N; i++) want[data[i]]++;
    for (int b = 0; b < 256; b++) CHECK(bins[b] == want[b], "bin %d: %u, not %u", b, bins[b], want[b]);
    lw_done();
    return 0;
}
