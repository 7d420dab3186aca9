/* N-body accelerations, 8192 bodies: positions staged through local memory
 * in tiles of the work-group's size, two barriers per tile (AMD APP SDK's
 * NBody). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void nbody(__global const float4 *pos, __global float4 *acc, __local float4 *tile, float soft) {\n"
    "  size_t i = get_global_id(0), l = get_local_id(0), n = get_global_size(0), ls = get_local_size(0);\n"
    "  float4 p = pos[i];\n"
    "  float ax = 0.0f, ay = 0.0f, az = 0.0f;\n"
    "  for (size_t base = 0; base < n; base += ls) {\n"
    "    tile[l] = pos[base + l];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (size_t j = 0; j < ls; j++) {\n"
    "      float4 q = tile[j];\n"
    "      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;\n"
    "      float inv = 1.0f / sqrt(dx * dx + dy * dy + dz * dz + soft);\n"
    "      float f = q.w * inv * inv * inv;\n"
    "      ax += f * dx; ay += f * dy; az += f * dz;\n"
    "    }\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  acc[i] = (float4)(ax, ay, az, 0.0f);\n"
    "}\n";

enum { N = 8192, LOCAL = 128 };
static cl_float4 pos[N], acc[N];
static cl_kernel kernel;

static void step(void) {
    size_t global = N, local = LOCAL;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("nbody", argc, argv);
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 4; c++) pos[i].s[c] = c == 3 ? lw_random_float(0.5f, 1.5f) : lw_random_float(-50, 50);
    kernel = lw_kernel(lw_build(source, ""), "nbody");
    cl_mem pb = lw_buffer(CL_MEM_READ_ONLY, sizeof pos, pos), ab = lw_buffer(CL_MEM_WRITE_ONLY, sizeof acc, NULL);
    float soft = 0.01f;
    LW_ARG(kernel, 0, pb);
    LW_ARG(kernel, 1, ab);
    OK(clSetKernelArg(kernel, 2, LOCAL * sizeof(cl_float4), NULL));
    LW_ARG(kernel, 3, soft);
    lw_time(step);
    lw_read(ab, sizeof acc, acc);
    for (int i = 0; i < N; i += 41) {
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        for (int j = 0; j < N; j++) {
            float dx = pos[j].s[0] - pos[i].s[0], dy = pos[j].s[1] - pos[i].s[1], dz = pos[j].s[2] - pos[i].s[2];
            float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + soft);
            float f = pos[j].s[3] * inv * inv * inv;
            ax += f * dx, ay += f * dy, az += f * dz;
        }
        CHECK(acc[i].s[0] == ax && acc[i].s[1] == ay && acc[i].s[2] == az, "body %d: %g %g %g, not %g %g %g", i,
              acc[i].s[0], acc[i].s[1], acc[i].s[2], ax, ay, az);
    }
    lw_done();
    return 0;
}
