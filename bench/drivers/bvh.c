// Driver: nearest-hit queries of 256K rays against 4096 random spheres (centres
// uniform in [-1, 1]^3, radii 0.02 to 0.05) in a BVH built by median split
// (longest axis of the centroids' box, at most 4 spheres per leaf). Inputs:
// "camera" (primary rays of a 512 x 512 pinhole camera at z = -3, in row
// order: neighbouring lanes follow nearly the same path) and "random" (from
// random points on the sphere of radius 3 towards random points of the cube).
#include "../harness/harness.h"

enum { SPHERES = 4096, LEAF_SIZE = 4, MAX_NODES = 2 * SPHERES, ITEMS = 1 << 18, CAMERA = 512 };
BENCH_GLOBAL float bounds[6 * MAX_NODES], spheres[4 * SPHERES];
BENCH_GLOBAL int links[2 * MAX_NODES];
BENCH_GLOBAL float ray_ox[ITEMS], ray_oy[ITEMS], ray_oz[ITEMS], ray_dx[ITEMS], ray_dy[ITEMS],
    ray_dz[ITEMS];
#define SCALAR_CALL(F, i) \
    F(bounds, links, spheres, ray_ox[i], ray_oy[i], ray_oz[i], ray_dx[i], ray_dy[i], ray_dz[i])
#define VECTOR_CALL(F, i, W)                                                                 \
    F(bounds, links, spheres, ld##W##f(&ray_ox[i]), ld##W##f(&ray_oy[i]), ld##W##f(&ray_oz[i]), \
      ld##W##f(&ray_dx[i]), ld##W##f(&ray_dy[i]), ld##W##f(&ray_dz[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(bounds, links, spheres) notinbranch
float bvh(const float *bounds, const int *links, const float *spheres, float ox, float oy,
          float oz, float dx, float dy, float dz);
#endif
BENCH_OMP_LOOP(float, bvh)
#else
#include "inputs.h"
float bvh_scalar(const float *, const int *, const float *, float, float, float, float, float,
                 float);
BENCH_WEAK v8f _ZGVdN8uuuvvvvvv_bvh_lw(const float *, const int *, const float *, v8f, v8f, v8f,
                                       v8f, v8f, v8f);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuvvvvvv_bvh_lw(const float *, const int *, const float *, v16f,
                                                v16f, v16f, v16f, v16f, v16f);
BENCH_WEAK v8f _ZGVdN8uuuvvvvvv_bvh_lwfull(const float *, const int *, const float *, v8f, v8f,
                                           v8f, v8f, v8f, v8f);
BENCH_STANDARD_RUNNERS(float, f, bvh_scalar, _ZGVdN8uuuvvvvvv_bvh_lw, _ZGVeN16uuuvvvvvv_bvh_lw,
                       _ZGVdN8uuuvvvvvv_bvh_lwfull)

static float unsorted[4 * SPHERES];  // spheres in generation order
static int order[SPHERES];           // the BVH's sphere order: indices into unsorted
static int node_count, split_axis;
static int compare_centres(const void *a, const void *b) {
    float x = unsorted[4 * *(const int *)a + split_axis];
    float y = unsorted[4 * *(const int *)b + split_axis];
    return (x > y) - (x < y) + (x == y) * ((*(const int *)a > *(const int *)b) -
                                           (*(const int *)a < *(const int *)b));
}
// Builds the node for spheres order[begin..end); returns its index.
static int build(int begin, int end) {
    int node = node_count++;
    float lo[3] = {1e30f, 1e30f, 1e30f}, hi[3] = {-1e30f, -1e30f, -1e30f};
    float centre_lo[3] = {1e30f, 1e30f, 1e30f}, centre_hi[3] = {-1e30f, -1e30f, -1e30f};
    for (int k = begin; k < end; k++) {
        const float *sphere = &unsorted[4 * order[k]];
        for (int a = 0; a < 3; a++) {
            lo[a] = fminf(lo[a], sphere[a] - sphere[3]);
            hi[a] = fmaxf(hi[a], sphere[a] + sphere[3]);
            centre_lo[a] = fminf(centre_lo[a], sphere[a]);
            centre_hi[a] = fmaxf(centre_hi[a], sphere[a]);
        }
    }
    for (int a = 0; a < 3; a++) {
        bounds[6 * node + a] = lo[a];
        bounds[6 * node + 3 + a] = hi[a];
    }
    if (end - begin <= LEAF_SIZE) {
        links[2 * node] = -begin - 1;
        links[2 * node + 1] = end - begin;
        return node;
    }
    split_axis = 0;
    for (int a = 1; a < 3; a++)
        if (centre_hi[a] - centre_lo[a] > centre_hi[split_axis] - centre_lo[split_axis])
            split_axis = a;
    qsort(&order[begin], end - begin, sizeof(int), compare_centres);
    int middle = begin + (end - begin) / 2;
    int left = build(begin, middle);
    int right = build(middle, end);
    links[2 * node] = left;
    links[2 * node + 1] = right;
    return node;
}
static void set_ray(int i, float ox, float oy, float oz, float dx, float dy, float dz) {
    float inverse_length = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
    ray_ox[i] = ox;
    ray_oy[i] = oy;
    ray_oz[i] = oz;
    ray_dx[i] = dx * inverse_length;
    ray_dy[i] = dy * inverse_length;
    ray_dz[i] = dz * inverse_length;
}
static void setup(const char *input) {
    rng_reset(0x5eed0b5full);
    for (int k = 0; k < SPHERES; k++) {
        unsorted[4 * k + 0] = 2 * uniform01() - 1;
        unsorted[4 * k + 1] = 2 * uniform01() - 1;
        unsorted[4 * k + 2] = 2 * uniform01() - 1;
        unsorted[4 * k + 3] = 0.02f + 0.03f * uniform01();
        order[k] = k;
    }
    node_count = 0;
    build(0, SPHERES);
    for (int k = 0; k < SPHERES; k++) memcpy(&spheres[4 * k], &unsorted[4 * order[k]], 16);
    if (!strcmp(input, "camera")) {
        for (int y = 0; y < CAMERA; y++)
            for (int x = 0; x < CAMERA; x++)
                set_ray(y * CAMERA + x, 0, 0, -3, (x + 0.5f) / CAMERA * 0.8f - 0.4f,
                        0.4f - (y + 0.5f) / CAMERA * 0.8f, 1);
    } else {
        for (int i = 0; i < ITEMS; i++) {
            float u = 2 * uniform01() - 1, phi = 6.2831853f * uniform01(), s = sqrtf(1 - u * u);
            float ox = 3 * s * cosf(phi), oy = 3 * s * sinf(phi), oz = 3 * u;
            float tx = 1.6f * uniform01() - 0.8f, ty = 1.6f * uniform01() - 0.8f,
                  tz = 1.6f * uniform01() - 0.8f;
            set_ray(i, ox, oy, oz, tx - ox, ty - oy, tz - oz);
        }
    }
}

static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuvvvvvv_bvh_lw, _ZGVeN16uuuvvvvvv_bvh_lw, _ZGVdN8uuuvvvvvv_bvh_lwfull, 0)};
static const char *const inputs[] = {"camera", "random", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"bvh", "irregular", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
