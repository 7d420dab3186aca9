// Driver: point correlation (radius 0.05) of 64K queries against 64K points (2^16 - 1) in a kd-tree. Inputs: "random" and "clustered" (as for nn).
#include "../harness/harness.h"

enum { NODES = (1 << 16) - 1, ITEMS = 1 << 16, RADII = 1024 };
#define RADIUS 0.05f
BENCH_GLOBAL float tx[NODES], ty[NODES], tz[NODES], qx[ITEMS], qy[ITEMS], qz[ITEMS], radius[ITEMS];
#define SCALAR_CALL(F, i) F(tx, ty, tz, NODES, qx[i], qy[i], qz[i], RADIUS)
#define VECTOR_CALL(F, i, W) F(tx, ty, tz, NODES, ld##W##f(&qx[i]), ld##W##f(&qy[i]), ld##W##f(&qz[i]), RADIUS)

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(tx, ty, tz, nodes, radius) notinbranch
int pc(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz, float radius);
#endif
BENCH_OMP_LOOP(int, pc)
#else
#include "inputs.h"
#include "kdtree.h"
int pc_scalar(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz, float radius);
BENCH_WEAK v8i _ZGVdN8uuuuvvvu_pc_lw(const float *, const float *, const float *, int, v8f, v8f, v8f, float);
BENCH_WEAK_AVX512 v16i _ZGVeN16uuuuvvvu_pc_lw(const float *, const float *, const float *, int, v16f, v16f, v16f, float);
BENCH_WEAK v8i _ZGVdN8uuuuvvvu_pc_lwfull(const float *, const float *, const float *, int, v8f, v8f, v8f, float);
BENCH_STANDARD_RUNNERS(int, i, pc_scalar, _ZGVdN8uuuuvvvu_pc_lw, _ZGVeN16uuuuvvvu_pc_lw,
                       _ZGVdN8uuuuvvvu_pc_lwfull)
static kd_point points[ITEMS > NODES ? ITEMS : NODES];
static void setup(const char *input) {
    int clustered = !strcmp(input, "clustered");
    kd_points(points, NODES, clustered);
    kd_build(points, 0, NODES, 0, 0, tx, ty, tz);
    kd_points(points, ITEMS, clustered);
    kd_sort_morton(points, ITEMS);
    for (int i = 0; i < ITEMS; i++) {
        qx[i] = points[i].coordinate[0];
        qy[i] = points[i].coordinate[1];
        qz[i] = points[i].coordinate[2];
        radius[i] = 0.1f * uniform01();
    }
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuuvvvu_pc_lw, _ZGVeN16uuuuvvvu_pc_lw, _ZGVdN8uuuuvvvu_pc_lwfull, 0)};
static const char *const inputs[] = {"random", "clustered", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"pc", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
