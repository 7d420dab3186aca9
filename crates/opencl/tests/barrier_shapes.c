/* Barriers in tangled control flow: a barrier first and last, barriers in
 * a loop with `continue` and `break`, a `switch`, a barrier-free loop between
 * barriers, an int4 and a swap live across them, and a work-group that
 * returns early; 5 local sizes (with and without partial SIMD groups) and 8
 * round counts. The program prints every result; tests/host_api.rs runs it
 * on Lanewise in each execution way and on PoCL and compares the outputs
 * line by line. */
#include "host.h"
static const char *source =
"__kernel void k(__global const int *in, __global int *out, __local int *sh, int rounds) {\n"
"  size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  int acc = in[g], other = in[(g * 7) % get_global_size(0)];\n"
"  int4 v = (int4)(acc, other, (int)l, 3);\n"
"  for (int r = 0; r < rounds; r++) {\n"
"    if (r == 2) continue;\n"
"    sh[l] = acc + v.y;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    int t = sh[(l + r + 1) % n];\n"
"    switch (r % 4) { case 0: acc += t; break; case 1: acc ^= t; v.x += 1; break; case 3: acc -= t >> 1; break; default: v.z += t; }\n"
"    for (int k = 0; k < (acc & 3); k++) v.w += k;\n"
"    int tmp = v.x; v.x = v.y; v.y = tmp;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    if (rounds > 5 && r == rounds - 2) break;\n"
"  }\n"
"  if (get_group_id(0) == 1 && rounds == 3) { out[g] = -1; return; }\n"
"  sh[l] = v.x + v.y + v.z + v.w;\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"  out[g] = acc * 31 + sh[n - 1 - l];\n"
"  barrier(CLK_LOCAL_MEM_FENCE);\n"
"}\n";
int main(int argc, char **argv) {
    lw_host h = lw_open(argc, argv);
    cl_int err;
    cl_program p = clCreateProgramWithSource(h.context, 1, &source, NULL, &err);
    err = clBuildProgram(p, 1, &h.device, NULL, NULL, NULL);
    static char log[8192]; clGetProgramBuildInfo(p, h.device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
    CHECK(err == CL_SUCCESS, "%s", log);
    cl_kernel k = clCreateKernel(p, "k", &err);
    enum { G = 360 };
    int in[G], out[G];
    for (int i = 0; i < G; i++) in[i] = (i * 2654435761u) >> 9;
    cl_mem ib = clCreateBuffer(h.context, CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    cl_mem ob = clCreateBuffer(h.context, CL_MEM_READ_WRITE, sizeof out, NULL, &err);
    size_t locals[] = {40, 24, 9, 60, 120};
    for (int c = 0; c < 5; c++) for (int rounds = 0; rounds < 8; rounds++) {
        size_t local = locals[c], global = G;
        OK(clSetKernelArg(k, 0, sizeof ib, &ib)); OK(clSetKernelArg(k, 1, sizeof ob, &ob));
        OK(clSetKernelArg(k, 2, local * sizeof(int), NULL)); OK(clSetKernelArg(k, 3, sizeof rounds, &rounds));
        OK(clEnqueueNDRangeKernel(h.queue, k, 1, NULL, &global, &local, 0, NULL, NULL));
        OK(clEnqueueReadBuffer(h.queue, ob, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
        for (int i = 0; i < G; i++) printf("%zu %d %d %d\n", local, rounds, i, out[i]);
    }
    printf("ok: barrier_shapes\n");
    return 0;
}
