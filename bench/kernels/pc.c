// Point correlation (irregular, PLDI'18 "pc"): the number of points of an
// implicit kd-tree within `radius` of the query point, by a depth-first walk
// with a stack that enters a child only if the query ball reaches its side
// of the splitting plane. Varying point, uniform radius.
//
// Written in PLDI'18's programming model (see nn.c): a child is pushed when
// any lane's ball reaches its side (rv_any), so the stack of nodes is the
// same in every lane, and each lane keeps its own flag per entry: whether
// its ball reaches the subtree.
#include <stdbool.h>

#include "lanewise/rv.h"

#pragma omp declare simd uniform(tx, ty, tz, nodes, radius) notinbranch
int pc(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz,
       float radius) {
    int stack_node[64], stack_depth[64];
    bool stack_wanted[64];
    int top = 1, count = 0;
    float radius2 = radius * radius;
    stack_node[0] = 0;
    stack_depth[0] = 0;
    stack_wanted[0] = true;
    while (top > 0) {
        top--;
        int node = stack_node[top], depth = stack_depth[top];
        int left = 2 * node + 1, right = 2 * node + 2;
        bool want_left = false, want_right = false;
        if (stack_wanted[top]) {
            float dx = tx[node] - qx, dy = ty[node] - qy, dz = tz[node] - qz;
            if (dx * dx + dy * dy + dz * dz <= radius2) count++;
            int axis = depth % 3;
            float diff = axis == 0 ? -dx : axis == 1 ? -dy : -dz;  // query minus split
            want_left = left < nodes && diff - radius <= 0.0f;
            want_right = right < nodes && diff + radius >= 0.0f;
        }
        if (rv_any(want_left) && top < 64) {
            stack_node[top] = left;
            stack_depth[top] = depth + 1;
            stack_wanted[top] = want_left;
            top++;
        }
        if (rv_any(want_right) && top < 64) {
            stack_node[top] = right;
            stack_depth[top] = depth + 1;
            stack_wanted[top] = want_right;
            top++;
        }
    }
    return count;
}
