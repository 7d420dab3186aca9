// A kd-tree for the nn, pc and mpc drivers: 2^k - 1 points in an implicit
// complete binary tree (node n has children 2n+1 and 2n+2, splits on axis
// depth % 3 at the median), stored as three coordinate arrays by node.
#ifndef BENCH_KDTREE_H
#define BENCH_KDTREE_H
#include <stdlib.h>

typedef struct { float coordinate[3]; } kd_point;
static int kd_sort_axis;
static int kd_compare(const void *a, const void *b) {
    float x = ((const kd_point *)a)->coordinate[kd_sort_axis];
    float y = ((const kd_point *)b)->coordinate[kd_sort_axis];
    return (x > y) - (x < y);
}
// Places points[lo, hi) (hi - lo = 2^m - 1) into the subtree rooted at node.
static void kd_build(kd_point *points, int lo, int hi, int node, int depth, float *tx, float *ty,
                     float *tz) {
    if (lo >= hi) return;
    kd_sort_axis = depth % 3;
    qsort(points + lo, hi - lo, sizeof(kd_point), kd_compare);
    int mid = lo + (hi - lo) / 2;
    tx[node] = points[mid].coordinate[0];
    ty[node] = points[mid].coordinate[1];
    tz[node] = points[mid].coordinate[2];
    kd_build(points, lo, mid, 2 * node + 1, depth + 1, tx, ty, tz);
    kd_build(points, mid + 1, hi, 2 * node + 2, depth + 1, tx, ty, tz);
}
// Uniform points in the unit cube, or ("clustered") Gaussian blobs around 16 centres.
static void kd_points(kd_point *points, int count, int clustered) {
    float centres[16][3];
    for (int c = 0; c < 16; c++)
        for (int a = 0; a < 3; a++) centres[c][a] = 0.1f + 0.8f * uniform01();
    for (int i = 0; i < count; i++) {
        int c = next_u32() % 16;
        for (int a = 0; a < 3; a++)
            points[i].coordinate[a] =
                clustered ? centres[c][a] + 0.03f * normalish() : uniform01();
    }
}
// The position of a point of the unit cube on the Morton (Z-order) curve of
// a 1024^3 grid: the bits of the three grid coordinates interleaved.
static unsigned kd_spread_bits(unsigned v) {
    v &= 1023;
    v = (v | (v << 16)) & 0x030000FF;
    v = (v | (v << 8)) & 0x0300F00F;
    v = (v | (v << 4)) & 0x030C30C3;
    v = (v | (v << 2)) & 0x09249249;
    return v;
}
static unsigned kd_morton(const kd_point *p) {
    unsigned code = 0;
    for (int a = 0; a < 3; a++) {
        float c = p->coordinate[a];
        c = c < 0.0f ? 0.0f : c > 1.0f ? 1.0f : c;
        code |= kd_spread_bits((unsigned)(c * 1023.99f)) << a;
    }
    return code;
}
static int kd_compare_morton(const void *a, const void *b) {
    unsigned x = kd_morton(a), y = kd_morton(b);
    return (x > y) - (x < y);
}
// Orders queries along the Morton curve, as batched tree queries are ordered
// for locality: consecutive queries (and so the lanes of one vector call)
// are near each other in space.
static void kd_sort_morton(kd_point *points, int count) {
    qsort(points, count, sizeof(kd_point), kd_compare_morton);
}
#endif
