/* Ambient occlusion (AOBench): a ray per pixel against three spheres and a
 * plane, then 32 occlusion rays from the hit point; rays that hit nothing
 * leave the loop early, so the lanes diverge. The sample directions come
 * from a host table, so the result is exact (no sin/cos). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "typedef struct { float t; float3 p, n; int hit; } isect;\n"
    "void sphere(float3 c, float r, float3 o, float3 d, isect *is) {\n"
    "  float3 rs = o - c;\n"
    "  float b = dot(rs, d), cc = dot(rs, rs) - r * r, disc = b * b - cc;\n"
    "  if (disc > 0.0f) {\n"
    "    float t = -b - sqrt(disc);\n"
    "    if (t > 0.0f && t < is->t) { is->t = t; is->hit = 1; is->p = o + t * d; is->n = normalize(is->p - c); }\n"
    "  }\n"
    "}\n"
    "void plane(float3 o, float3 d, isect *is) {\n"
    "  float v = d.y;\n"
    "  if (fabs(v) < 1.0e-17f) return;\n"
    "  float t = -(o.y + 0.5f) / v;\n"
    "  if (t > 0.0f && t < is->t) { is->t = t; is->hit = 1; is->p = o + t * d; is->n = (float3)(0.0f, 1.0f, 0.0f); }\n"
    "}\n"
    "void trace(float3 o, float3 d, isect *is) {\n"
    "  sphere((float3)(-2.0f, 0.0f, -3.5f), 0.5f, o, d, is);\n"
    "  sphere((float3)(-0.5f, 0.0f, -3.0f), 0.5f, o, d, is);\n"
    "  sphere((float3)(1.0f, 0.0f, -2.2f), 0.5f, o, d, is);\n"
    "  plane(o, d, is);\n"
    "}\n"
    "__kernel void ao(__global float *image, __global const float4 *dirs, int w, int h, int samples) {\n"
    "  int x = get_global_id(0), y = get_global_id(1);\n"
    "  float px = (x - w / 2.0f) / (w / 2.0f), py = -(y - h / 2.0f) / (h / 2.0f);\n"
    "  float3 d = normalize((float3)(px, py, -1.0f));\n"
    "  isect is = { 1.0e17f, (float3)(0.0f), (float3)(0.0f), 0 };\n"
    "  trace((float3)(0.0f), d, &is);\n"
    "  float occlusion = 0.0f;\n"
    "  if (is.hit) {\n"
    "    float3 n = is.n, t = fabs(n.x) < 0.6f ? (float3)(1.0f, 0.0f, 0.0f) : (fabs(n.y) < 0.6f ? (float3)(0.0f, 1.0f, 0.0f) : (float3)(0.0f, 0.0f, 1.0f));\n"
    "    float3 b0 = normalize(cross(t, n)), b1 = cross(n, b0);\n"
    "    float3 o = is.p + 0.0001f * n;\n"
    "    for (int s = 0; s < samples; s++) {\n"
    "      float4 r = dirs[(y * w + x + s * 7919) % 4096];\n"
    "      float3 rd = r.x * b0 + r.y * b1 + r.z * n;\n"
    "      isect occ = { 1.0e17f, (float3)(0.0f), (float3)(0.0f), 0 };\n"
    "      trace(o, rd, &occ);\n"
    "      if (occ.hit) occlusion += 1.0f;\n"
    "    }\n"
    "    occlusion = (samples - occlusion) / samples;\n"
    "  }\n"
    "  image[y * w + x] = occlusion;\n"
    "}\n";

enum { W = 256, H = 256, SAMPLES = 32, DIRS = 4096 };
static float image[W * H];
static cl_float4 dirs[DIRS];
static cl_kernel kernel;

static void step(void) {
    size_t global[2] = {W, H}, local[2] = {32, 2};
    lw_run(kernel, 2, global, local);
}

/* The host's version of the kernel, with the same operations in order. */
typedef struct { float x, y, z; } v3;
static v3 add(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static v3 sub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static v3 scale(float s, v3 a) { return (v3){s * a.x, s * a.y, s * a.z}; }
static float dotp(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static v3 crossp(v3 a, v3 b) { return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
static v3 norm(v3 a) { float l = sqrtf(dotp(a, a)); return (v3){a.x / l, a.y / l, a.z / l}; }
typedef struct { float t; v3 p, n; int hit; } isect;
static void sphere(v3 c, float r, v3 o, v3 d, isect *is) {
    v3 rs = sub(o, c);
    float b = dotp(rs, d), cc = dotp(rs, rs) - r * r, disc = b * b - cc;
    if (disc > 0.0f) {
        float t = -b - sqrtf(disc);
        if (t > 0.0f && t < is->t) is->t = t, is->hit = 1, is->p = add(o, scale(t, d)), is->n = norm(sub(is->p, c));
    }
}
static void plane(v3 o, v3 d, isect *is) {
    float v = d.y;
    if (fabsf(v) < 1.0e-17f) return;
    float t = -(o.y + 0.5f) / v;
    if (t > 0.0f && t < is->t) is->t = t, is->hit = 1, is->p = add(o, scale(t, d)), is->n = (v3){0.0f, 1.0f, 0.0f};
}
static void trace(v3 o, v3 d, isect *is) {
    sphere((v3){-2.0f, 0.0f, -3.5f}, 0.5f, o, d, is);
    sphere((v3){-0.5f, 0.0f, -3.0f}, 0.5f, o, d, is);
    sphere((v3){1.0f, 0.0f, -2.2f}, 0.5f, o, d, is);
    plane(o, d, is);
}
static float reference(int x, int y) {
    float px = (x - W / 2.0f) / (W / 2.0f), py = -(y - H / 2.0f) / (H / 2.0f);
    v3 d = norm((v3){px, py, -1.0f});
    isect is = {1.0e17f, {0, 0, 0}, {0, 0, 0}, 0};
    trace((v3){0, 0, 0}, d, &is);
    if (!is.hit) return 0.0f;
    v3 n = is.n;
    v3 t = fabsf(n.x) < 0.6f ? (v3){1, 0, 0} : (fabsf(n.y) < 0.6f ? (v3){0, 1, 0} : (v3){0, 0, 1});
    v3 b0 = norm(crossp(t, n)), b1 = crossp(n, b0);
    v3 o = add(is.p, scale(0.0001f, n));
    float occlusion = 0.0f;
    for (int s = 0; s < SAMPLES; s++) {
        cl_float4 r = dirs[(y * W + x + s * 7919) % DIRS];
        v3 rd = add(add(scale(r.s[0], b0), scale(r.s[1], b1)), scale(r.s[2], n));
        isect occ = {1.0e17f, {0, 0, 0}, {0, 0, 0}, 0};
        trace(o, rd, &occ);
        if (occ.hit) occlusion += 1.0f;
    }
    return (SAMPLES - occlusion) / SAMPLES;
}

int main(int argc, char **argv) {
    lw_setup("aobench", argc, argv);
    for (int i = 0; i < DIRS; i++) {
        float u = lw_random_float(0, 1), v = lw_random_float(0, 1);
        float r = sqrtf(u), angle = 6.2831853f * v;
        dirs[i].s[0] = r * cosf(angle), dirs[i].s[1] = r * sinf(angle), dirs[i].s[2] = sqrtf(1.0f - u);
    }
    kernel = lw_kernel(lw_build(source, ""), "ao");
    cl_mem ib = lw_buffer(CL_MEM_WRITE_ONLY, sizeof image, NULL), db = lw_buffer(CL_MEM_READ_ONLY, sizeof dirs, dirs);
    int w = W, h = H, samples = SAMPLES;
    LW_ARG(kernel, 0, ib);
    LW_ARG(kernel, 1, db);
    LW_ARG(kernel, 2, w);
    LW_ARG(kernel, 3, h);
    LW_ARG(kernel, 4, samples);
    lw_time(step);
    lw_read(ib, sizeof image, image);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            CHECK(image[y * W + x] == reference(x, y), "pixel %d,%d: %g, not %g", x, y, image[y * W + x], reference(x, y));
    lw_done();
    return 0;
}
