// kd-tree nearest neighbour (irregular, PLDI'18 "nn"): depth-first search of
// an implicit kd-tree (node n: children 2n+1, 2n+2, split axis depth % 3),
// nearest child first, with a stack of deferred subtrees; a subtree is
// skipped when the distance to its splitting plane exceeds the best distance
// so far. Returns the nearest node (the smallest index among equally near
// ones, so the answer does not depend on the visiting order).
//
// Written in PLDI'18's programming model: the traversal decisions go through
// the SPMD builtins of lanewise/rv.h, which mean the plain scalar decisions
// for one lane (rv_any(b) == b, rv_popcount(b) == b). Vectorized, the lanes
// walk the tree in lock step: a subtree is pushed when any lane needs it, the
// nodes on the stack are the same in every lane (one scalar copy), and each
// lane keeps its own lower bound per entry (+inf where it does not need the
// subtree). The near child is the one most lanes are closer to.
#include <stdbool.h>

#include "lanewise/rv.h"

#define NN_FAR 3.4e38f

#pragma omp declare simd uniform(tx, ty, tz, nodes) notinbranch
int nn(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz) {
    int stack_node[64], stack_depth[64];
    float stack_bound[64];  // a lower bound on this lane's distance to the subtree
    int top = 1, best = 0;
    float best_d2 = NN_FAR;
    stack_node[0] = 0;
    stack_depth[0] = 0;
    stack_bound[0] = 0.0f;
    while (top > 0) {
        top--;
        int node = stack_node[top], depth = stack_depth[top];
        bool wanted = stack_bound[top] <= best_d2;
        while (node < nodes && rv_any(wanted)) {
            float dx = tx[node] - qx, dy = ty[node] - qy, dz = tz[node] - qz;
            float diff = 0.0f;  // query minus split along the node's axis
            if (wanted) {
                float d2 = dx * dx + dy * dy + dz * dz;
                if (d2 < best_d2 || (d2 == best_d2 && node < best)) {
                    best_d2 = d2;
                    best = node;
                }
                int axis = depth % 3;
                diff = axis == 0 ? -dx : axis == 1 ? -dy : -dz;
            }
            bool left_near = diff < 0.0f;
            bool go_left = rv_popcount(wanted && left_near) * 2 >= rv_popcount(wanted);
            int near_child = go_left ? 2 * node + 1 : 2 * node + 2;
            int far_child = go_left ? 2 * node + 2 : 2 * node + 1;
            // The far child is behind the splitting plane for the lanes that
            // agree with the choice, and on their near side for the others.
            float far_bound = NN_FAR;
            if (wanted) far_bound = left_near == go_left ? diff * diff : 0.0f;
            if (far_child < nodes && rv_any(far_bound <= best_d2) && top < 64) {
                stack_node[top] = far_child;
                stack_depth[top] = depth + 1;
                stack_bound[top] = far_bound;
                top++;
            }
            wanted = wanted && (left_near == go_left || diff * diff <= best_d2);
            node = near_child;
            depth++;
        }
    }
    return best;
}
