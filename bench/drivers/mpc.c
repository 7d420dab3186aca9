// Driver: multi-radius point correlation: 64 query points (uniform per call), 1024 radii each in [0, 0.1) (varying), against 64K points (2^16 - 1) in a kd-tree. Inputs: "random" and "clustered" (as for nn).
#include "../harness/harness.h"

enum { NODES = (1 << 16) - 1, ITEMS = 1 << 16, RADII = 1024 };
#define RADIUS 0.05f
BENCH_GLOBAL float tx[NODES], ty[NODES], tz[NODES], qx[ITEMS], qy[ITEMS], qz[ITEMS], radius[ITEMS];
#define SCALAR_CALL(F, i) F(tx, ty, tz, NODES, qx[(i) / RADII], qy[(i) / RADII], qz[(i) / RADII], radius[i])
#define VECTOR_CALL(F, i, W) F(tx, ty, tz, NODES, qx[(i) / RADII], qy[(i) / RADII], qz[(i) / RADII], ld##W##f(&radius[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(tx, ty, tz, nodes, qx, qy, qz) notinbranch
int mpc(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz, float radius);
#endif
BENCH_OMP_LOOP(int, mpc)
#else
#include "inputs.h"
#include "kdtree.h"
int mpc_scalar(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz, float radius);
BENCH_WEAK v8i _ZGVdN8uuuuuuuv_mpc_lw(const float *, const float *, const float *, int, float, float, float, v8f);
BENCH_WEAK_AVX512 v16i _ZGVeN16uuuuuuuv_mpc_lw(const float *, const float *, const float *, int, float, float, float, v16f);
BENCH_WEAK v8i _ZGVdN8uuuuuuuv_mpc_lwfull(const float *, const float *, const float *, int, float, float, float, v8f);
BENCH_STANDARD_RUNNERS(int, i, mpc_scalar, _ZGVdN8uuuuuuuv_mpc_lw, _ZGVeN16uuuuuuuv_mpc_lw,
                       _ZGVdN8uuuuuuuv_mpc_lwfull)
static kd_point points[ITEMS > NODES ? ITEMS : NODES];
static void setup(const char *input) {
    int clustered = !strcmp(input, "clustered");
    kd_points(points, NODES, clustered);
    kd_build(points, 0, NODES, 0, 0, tx, ty, tz);
    kd_points(points, ITEMS, clustered);
    kd_sort_axis = 0;
    if (clustered) qsort(points, ITEMS, sizeof(kd_point), kd_compare);
    for (int i = 0; i < ITEMS; i++) {
        qx[i] = points[i].coordinate[0];
        qy[i] = points[i].coordinate[1];
        qz[i] = points[i].coordinate[2];
        radius[i] = 0.1f * uniform01();
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuuuuuv_mpc_lw, _ZGVeN16uuuuuuuv_mpc_lw, _ZGVdN8uuuuuuuv_mpc_lwfull, 0)};
static const char *const inputs[] = {"random", "clustered", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"mpc", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
