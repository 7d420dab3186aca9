// Covers (divergent): point-correlation queries (count the points within a
// uniform radius) over a kd-tree: one tree in a static array (pruned
// traversal with a private stack), one passed by a uniform pointer to a
// table of child links read from memory (indices masked, walk bounded),
// so the loads depend on varying node numbers (gathers under a mask).
#include "lanewise/rv.h"

static const float pc_x[15] = {0, -50, 40, -70, -30, 60, 20, -90, -60, -80, -10, 30, 90, 10, 70};
static const float pc_y[15] = {0, 20, -10, -40, 60, -60, 50, -80, -10, 40, 90, -90, -30, 10, 80};
static const int pc_axis[15] = {0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1};

#pragma omp declare simd uniform(radius)
int point_correlation(float qx, float qy, float radius) {
    float r = radius < 0.0f ? -radius : radius;
    if (!(r <= 1000.0f))
        r = 1000.0f;
    float r2 = r * r;
    int stack[16];
    int depth = 0;
    int count = 0;
    stack[depth++] = 0;
    while (depth > 0) {
        int node = stack[--depth];
        float dx = qx - pc_x[node];
        float dy = qy - pc_y[node];
        if (dx * dx + dy * dy <= r2)
            count++;
        int left = 2 * node + 1;
        if (left >= 15)
            continue;
        float delta = pc_axis[node] == 0 ? dx : dy;
        if (delta <= r)
            stack[depth++] = left;
        if (delta >= -r)
            stack[depth++] = left + 1;
    }
    return count;
}

/* links[2k], links[2k+1]: children of node k (masked into 0..63, 0 = none);
   values[k]: the node's value. Counts nodes with |value - q| <= 1 on a
   depth-first walk of at most 40 steps. */
#pragma omp declare simd uniform(links, values)
int linked_tree_correlation(const int *links, const float *values, float q) {
    int stack[48];
    int depth = 0;
    int count = 0;
    int steps = 0;
    stack[depth++] = 1;
    while (rv_any(depth > 0 && steps < 40)) {
        if (depth > 0 && steps < 40) {
            int node = stack[--depth];
            steps++;
            float difference = values[node] - q;
            if (difference <= 1.0f && difference >= -1.0f)
                count += node;
            int left = links[2 * node] & 63;
            int right = links[2 * node + 1] & 63;
            if (left != 0)
                stack[depth++] = left;
            if (right != 0 && difference < 0.0f)
                stack[depth++] = right;
        }
    }
    return count;
}
