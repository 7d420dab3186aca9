/* MRI reconstruction's Q matrix (Parboil's mri-q): for every voxel, a sum
 * over the k-space samples of phi * (cos, sin)(2 pi k.x). Compared within
 * 1e-3 relative: the platforms' sin and cos round their own way. */
#include "common.h"

static const char *source =
    "__kernel void mri_q(__global const float4 *k, __global const float *phi, __global const float4 *x,\n"
    "                    __global float2 *q, int samples) {\n"
    "  size_t v = get_global_id(0);\n"
    "  float4 p = x[v];\n"
    "  float re = 0.0f, im = 0.0f;\n"
    "  for (int s = 0; s < samples; s++) {\n"
    "    float arg = 6.2831853f * (k[s].x * p.x + k[s].y * p.y + k[s].z * p.z);\n"
    "    re += phi[s] * cos(arg); im += phi[s] * sin(arg);\n"
    "  }\n"
    "  q[v] = (float2)(re, im);\n"
    "}\n";

enum { VOXELS = 16384, SAMPLES = 512 };
static cl_float4 k[SAMPLES], x[VOXELS];
static float phi[SAMPLES];
static cl_float2 q[VOXELS];
static cl_kernel kernel;

static void step(void) {
    size_t global = VOXELS, local = 128;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("mri_q", argc, argv);
    for (int s = 0; s < SAMPLES; s++) {
        for (int c = 0; c < 3; c++) k[s].s[c] = lw_random_float(-0.5f, 0.5f);
        phi[s] = lw_random_float(0, 1);
    }
    for (int v = 0; v < VOXELS; v++)
        for (int c = 0; c < 3; c++) x[v].s[c] = lw_random_float(-32, 32);
    kernel = lw_kernel(lw_build(source, ""), "mri_q");
    cl_mem kb = lw_buffer(CL_MEM_READ_ONLY, sizeof k, k), pb = lw_buffer(CL_MEM_READ_ONLY, sizeof phi, phi);
    cl_mem xb = lw_buffer(CL_MEM_READ_ONLY, sizeof x, x), qb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof q, NULL);
    int samples = SAMPLES;
    LW_ARG(kernel, 0, kb);
    LW_ARG(kernel, 1, pb);
    LW_ARG(kernel, 2, xb);
    LW_ARG(kernel, 3, qb);
    LW_ARG(kernel, 4, samples);
    lw_time(step);
    lw_read(qb, sizeof q, q);
    for (int v = 0; v < VOXELS; v += 53) {
        double re = 0.0, im = 0.0;
        for (int s = 0; s < SAMPLES; s++) {
            double arg = 6.2831853 * ((double)k[s].s[0] * x[v].s[0] + (double)k[s].s[1] * x[v].s[1] +
                                      (double)k[s].s[2] * x[v].s[2]);
            re += phi[s] * cos(arg), im += phi[s] * sin(arg);
        }
        CHECK(fabs(q[v].s[0] - re) <= 2e-3 * fmax(fabs(re), 1.0) && fabs(q[v].s[1] - im) <= 2e-3 * fmax(fabs(im), 1.0),
              "voxel %d: %g %g, not %g %g", v, q[v].s[0], q[v].s[1], re, im);
    }
    lw_done();
    return 0;
}
