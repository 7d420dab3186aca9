/* Barriers in 3-D work-groups of five shapes, with a kernel-scope __local
 * array, and values of every width live across them (char, short, long,
 * double, float8, a group-id value) under a uniform condition in a loop.
 * The program prints every result; tests/host_api.rs compares the
 * continuation form's execution ways with fibers run work-item by
 * work-item, the simplest way (PoCL 3.1 did not finish this program). */
#include "host.h"
static const char *source =
"#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
"__kernel void k(__global const int *in, __global long *out, int mode) {\n"
"  __local double tile[8][8];\n"
"  size_t x = get_local_id(0), y = get_local_id(1), z = get_local_id(2);\n"
"  size_t lx = get_local_size(0), ly = get_local_size(1);\n"
"  size_t gi = get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * get_global_id(2));\n"
"  char c = (char)in[gi % 97]; short s = (short)(in[(gi * 3) % 97] * 7); long w = (long)in[gi % 97] << 33;\n"
"  double d = (double)in[(gi + 5) % 97] * 0.125; float8 f8 = (float8)((float)c, 1, 2, 3, 4, 5, 6, (float)s);\n"
"  ulong gid = get_group_id(0) * 1000 + get_group_id(1) * 100 + get_group_id(2) + (ulong)z * 7;\n"
"  for (int it = 0; it < 3; it++) {\n"
"    if (mode > it) {\n"
"      tile[y % 8][x % 8] = d + (double)it;\n"
"      barrier(CLK_LOCAL_MEM_FENCE);\n"
"      d += tile[(y + 1) % ly % 8][(x + 1) % lx % 8];\n"
"      c += (char)it; s -= (short)c; w ^= (long)s; f8 = f8 * 1.5f + (float8)(d > 0.0 ? 1.0f : -1.0f);\n"
"      barrier(CLK_LOCAL_MEM_FENCE);\n"
"    }\n"
"  }\n"
"  out[gi] = (long)c + ((long)s << 8) + w + (long)(d * 16.0) + (long)(f8.s0 + f8.s7) * 3 + (long)gid * 11;\n"
"}\n";
int main(int argc, char **argv) {
    lw_host h = lw_open(argc, argv);
    cl_int err;
    cl_program p = clCreateProgramWithSource(h.context, 1, &source, NULL, &err);
    err = clBuildProgram(p, 1, &h.device, NULL, NULL, NULL);
    static char log[8192]; clGetProgramBuildInfo(p, h.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(err == CL_SUCCESS, "%s", log);
    cl_kernel k = clCreateKernel(p, "k", &err);
    int in[97]; for (int i = 0; i < 97; i++) in[i] = (int)((i * 2654435761u) >> 11) - 1000000;
    enum { G = 8 * 6 * 4 };
    long out[G];
    cl_mem ib = clCreateBuffer(h.context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem ob = clCreateBuffer(h.context, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
    size_t shapes[][3] = {{8, 2, 2}, {4, 3, 1}, {8, 6, 1}, {2, 2, 4}, {1, 6, 2}};
    for (int c = 0; c < 5; c++) for (int mode = 0; mode < 4; mode++) {
        size_t global[3] = {8, 6, 4};
        OK(clSetKernelArg(k, 0, sizeof ib, &ib)); OK(clSetKernelArg(k, 1, sizeof ob, &ob)); OK(clSetKernelArg(k, 2, sizeof mode, &mode));
        OK(clEnqueueNDRangeKernel(h.queue, k, 3, NULL, global, shapes[c], 0, NULL, NULL));
        OK(clEnqueueReadBuffer(h.queue, ob, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
        for (int i = 0; i < G; i++) printf("%d %d %d %ld\n", c, mode, i, out[i]);
    }
    printf("ok: barrier_types\n");
    return 0;
}
