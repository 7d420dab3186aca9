// Covers (divergent): kd-tree nearest-neighbour query over a small 2-d tree
// built in a static array: a private stack of nodes (varying stack pointer),
// pruning by the distance to the splitting plane (varying branches inside a
// divergent loop), the best distance and index as live-out values.
#include "lanewise/rv.h"

struct kd_node { float x, y; int axis, left, right; };

/* 15 points; children -1 when absent. Built by hand from a median split. */
static const struct kd_node kd_tree[15] = {
    {0.0f, 0.0f, 0, 1, 2},      {-50.0f, 20.0f, 1, 3, 4},  {40.0f, -10.0f, 1, 5, 6},
    {-70.0f, -40.0f, 0, 7, 8},  {-30.0f, 60.0f, 0, 9, 10}, {60.0f, -60.0f, 0, 11, 12},
    {20.0f, 50.0f, 0, 13, 14},  {-90.0f, -80.0f, 1, -1, -1}, {-60.0f, -10.0f, 1, -1, -1},
    {-80.0f, 40.0f, 1, -1, -1}, {-10.0f, 90.0f, 1, -1, -1}, {30.0f, -90.0f, 1, -1, -1},
    {90.0f, -30.0f, 1, -1, -1}, {10.0f, 10.0f, 1, -1, -1}, {70.0f, 80.0f, 1, -1, -1}};

#pragma omp declare simd
int kd_nearest(float qx, float qy) {
    int stack[16];
    int depth = 0;
    int best = -1;
    float best_distance = 1e30f;
    stack[depth++] = 0;
    while (depth > 0) {
        int node = stack[--depth];
        float dx = qx - kd_tree[node].x;
        float dy = qy - kd_tree[node].y;
        float distance = dx * dx + dy * dy;
        if (distance < best_distance) {
            best_distance = distance;
            best = node;
        }
        float delta = kd_tree[node].axis == 0 ? dx : dy;
        int near = delta < 0.0f ? kd_tree[node].left : kd_tree[node].right;
        int far = delta < 0.0f ? kd_tree[node].right : kd_tree[node].left;
        if (far >= 0 && delta * delta < best_distance)
            stack[depth++] = far;
        if (near >= 0)
            stack[depth++] = near;
    }
    return best;
}

#pragma omp declare simd
float kd_nearest_distance(float qx, float qy) {
    int stack[16];
    int depth = 0;
    float best_distance = 1e30f;
    stack[depth++] = 0;
    while (rv_any(depth > 0)) {
        if (depth == 0)
            continue;
        int node = stack[--depth];
        float dx = qx - kd_tree[node].x;
        float dy = qy - kd_tree[node].y;
        float distance = dx * dx + dy * dy;
        best_distance = distance < best_distance ? distance : best_distance;
        if (kd_tree[node].left < 0)
            continue;
        float delta = kd_tree[node].axis == 0 ? dx : dy;
        if (delta < 0.0f) {
            if (delta * delta < best_distance)
                stack[depth++] = kd_tree[node].right;
            stack[depth++] = kd_tree[node].left;
        } else {
            if (delta * delta < best_distance)
                stack[depth++] = kd_tree[node].left;
            stack[depth++] = kd_tree[node].right;
        }
    }
    return best_distance;
}
