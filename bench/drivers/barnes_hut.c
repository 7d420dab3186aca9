// Driver: Barnes-Hut accelerations (theta 0.5) of 16K bodies in a Plummer-like
// cluster (dense core, sparse halo), from an octree with one body per leaf;
// bodies in the order of the octree (Morton-like), as n-body codes keep them.
#include "../harness/harness.h"

enum { ITEMS = 1 << 14, MAX_CELLS = 4 * ITEMS };
#define THETA2 0.25f
BENCH_GLOBAL float cells[5 * MAX_CELLS], bx[ITEMS], by[ITEMS], bz[ITEMS];
BENCH_GLOBAL int children[8 * MAX_CELLS];
#define SCALAR_CALL(F, i) F(cells, children, THETA2, bx[i], by[i], bz[i])
#define VECTOR_CALL(F, i, W) F(cells, children, THETA2, ld##W##f(&bx[i]), ld##W##f(&by[i]), ld##W##f(&bz[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(cells, children, theta2) notinbranch
float barnes_hut(const float *cells, const int *children, float theta2, float x, float y, float z);
#endif
BENCH_OMP_LOOP(float, barnes_hut)
#else
#include "inputs.h"
float barnes_hut_scalar(const float *, const int *, float, float, float, float);
BENCH_WEAK v8f _ZGVdN8uuuvvv_barnes_hut_lw(const float *, const int *, float, v8f, v8f, v8f);
BENCH_WEAK_AVX512 v16f _ZGVeN16uuuvvv_barnes_hut_lw(const float *, const int *, float, v16f, v16f, v16f);
BENCH_WEAK v8f _ZGVdN8uuuvvv_barnes_hut_lwfull(const float *, const int *, float, v8f, v8f, v8f);
BENCH_STANDARD_RUNNERS(float, f, barnes_hut_scalar, _ZGVdN8uuuvvv_barnes_hut_lw,
                       _ZGVeN16uuuvvv_barnes_hut_lw, _ZGVdN8uuuvvv_barnes_hut_lwfull)
static float px[ITEMS], py[ITEMS], pz[ITEMS], pm[ITEMS];
static int cell_count, order_count;
// Builds the cell for bodies list[0..count) in the cube centred at (cx,cy,cz)
// with half-size h; returns its index. Leaves record bodies in tree order.
static int build(int *list, int count, float cx, float cy, float cz, float h, int depth) {
    int cell = cell_count++;
    for (int k = 0; k < 8; k++) children[8 * cell + k] = -1;
    float mass = 0, mx = 0, my = 0, mz = 0;
    for (int b = 0; b < count; b++) {
        mass += pm[list[b]];
        mx += pm[list[b]] * px[list[b]];
        my += pm[list[b]] * py[list[b]];
        mz += pm[list[b]] * pz[list[b]];
    }
    cells[5 * cell + 0] = mx / mass;
    cells[5 * cell + 1] = my / mass;
    cells[5 * cell + 2] = mz / mass;
    cells[5 * cell + 3] = mass;
    cells[5 * cell + 4] = 2 * h;
    if (count == 1 || depth > 20 || cell_count + 8 > MAX_CELLS) {
        for (int b = 0; b < count; b++, order_count++) {
            bx[order_count] = px[list[b]];
            by[order_count] = py[list[b]];
            bz[order_count] = pz[list[b]];
        }
        return cell;
    }
    int *split = malloc(sizeof(int) * count);
    for (int octant = 0; octant < 8; octant++) {
        int n = 0;
        for (int b = 0; b < count; b++) {
            int o = (px[list[b]] >= cx) | (py[list[b]] >= cy) << 1 | (pz[list[b]] >= cz) << 2;
            if (o == octant) split[n++] = list[b];
        }
        if (n == 0) continue;
        float q = h / 2;
        children[8 * cell + octant] = build(split, n, cx + (octant & 1 ? q : -q),
                                            cy + (octant & 2 ? q : -q), cz + (octant & 4 ? q : -q), q, depth + 1);
    }
    free(split);
    return cell;
}
static void setup(const char *input) {
    (void)input;
    int *list = malloc(sizeof(int) * ITEMS);
    for (int i = 0; i < ITEMS; i++) {
        float r = 0.05f / sqrtf(powf(uniform01() * 0.99f + 0.01f, -2.0f / 3.0f) - 1.0f + 1e-3f);
        r = r > 0.95f ? 0.95f : r;
        float u = 2 * uniform01() - 1, phi = 6.2831853f * uniform01(), s = sqrtf(1 - u * u);
        px[i] = r * s * cosf(phi);
        py[i] = r * s * sinf(phi);
        pz[i] = r * u;
        pm[i] = 1.0f / ITEMS;
        list[i] = i;
    }
    cell_count = order_count = 0;
    build(list, ITEMS, 0, 0, 0, 1.0f, 0);
    free(list);
}
static bench_config configs[] = {BENCH_STANDARD_CONFIGS(
    _ZGVdN8uuuvvv_barnes_hut_lw, _ZGVeN16uuuvvv_barnes_hut_lw, _ZGVdN8uuuvvv_barnes_hut_lwfull, 0)};
static const char *const inputs[] = {"default", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"barnes_hut", "irregular", inputs, setup, ITEMS, BENCH_F32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
