// Driver: nearest neighbours of 64K queries among 64K points (2^16 - 1) in a kd-tree. Inputs: "random" (uniform points and queries) and "clustered" (points and queries in 16 Gaussian blobs); queries in Morton order (kd_sort_morton), so neighbouring lanes are close.
#include "../harness/harness.h"

enum { NODES = (1 << 16) - 1, ITEMS = 1 << 16, RADII = 1024 };
#define RADIUS 0.05f
BENCH_GLOBAL float tx[NODES], ty[NODES], tz[NODES], qx[ITEMS], qy[ITEMS], qz[ITEMS], radius[ITEMS];
#define SCALAR_CALL(F, i) F(tx, ty, tz, NODES, qx[i], qy[i], qz[i])
#define VECTOR_CALL(F, i, W) F(tx, ty, tz, NODES, ld##W##f(&qx[i]), ld##W##f(&qy[i]), ld##W##f(&qz[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(tx, ty, tz, nodes) notinbranch
int nn(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz);
#endif
BENCH_OMP_LOOP(int, nn)
#else
#include "inputs.h"
#include "kdtree.h"
int nn_scalar(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz);
BENCH_WEAK v8i _ZGVdN8uuuuvvv_nn_lw(const float *, const float *, const float *, int, v8f, v8f, v8f);
BENCH_WEAK_AVX512 v16i _ZGVeN16uuuuvvv_nn_lw(const float *, const float *, const float *, int, v16f, v16f, v16f);
BENCH_WEAK v8i _ZGVdN8uuuuvvv_nn_lwfull(const float *, const float *, const float *, int, v8f, v8f, v8f);
BENCH_STANDARD_RUNNERS(int, i, nn_scalar, _ZGVdN8uuuuvvv_nn_lw, _ZGVeN16uuuuvvv_nn_lw,
                       _ZGVdN8uuuuvvv_nn_lwfull)
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
    _ZGVdN8uuuuvvv_nn_lw, _ZGVeN16uuuuvvv_nn_lw, _ZGVdN8uuuuvvv_nn_lwfull, 0)};
static const char *const inputs[] = {"random", "clustered", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"nn", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
