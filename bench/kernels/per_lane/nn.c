// Per-lane formulation, for comparison (the report's "per-lane" rows): the
// same algorithm as ../nn.c written without the SPMD builtins, so that each
// lane walks its own path with its own stack; the drivers and inputs are the same.
//
// kd-tree nearest neighbour (irregular, PLDI'18 "nn"): depth-first search of
// an implicit kd-tree (node n: children 2n+1, 2n+2, split axis depth % 3)
// with a private stack of deferred far subtrees and the squared distance to
// their splitting plane; a subtree is skipped when that bound is not below
// the best distance so far. Returns the nearest node.
#pragma omp declare simd uniform(tx, ty, tz, nodes) notinbranch
int nn(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz) {
    int stack_node[64], stack_depth[64];
    float stack_bound[64];
    int top = 0, best = 0;
    float best_d2 = 3.4e38f;
    stack_node[0] = 0;
    stack_depth[0] = 0;
    stack_bound[0] = 0.0f;
    top = 1;
    while (top > 0) {
        top--;
        int node = stack_node[top], depth = stack_depth[top];
        if (stack_bound[top] >= best_d2) continue;
        while (node < nodes) {
            float dx = tx[node] - qx, dy = ty[node] - qy, dz = tz[node] - qz;
            float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < best_d2) {
                best_d2 = d2;
                best = node;
            }
            int axis = depth % 3;
            float diff = axis == 0 ? -dx : axis == 1 ? -dy : -dz;  // query minus split
            int near_child = diff < 0.0f ? 2 * node + 1 : 2 * node + 2;
            int far_child = diff < 0.0f ? 2 * node + 2 : 2 * node + 1;
            if (far_child < nodes && diff * diff < best_d2 && top < 64) {
                stack_node[top] = far_child;
                stack_depth[top] = depth + 1;
                stack_bound[top] = diff * diff;
                top++;
            }
            node = near_child;
            depth++;
        }
    }
    return best;
}
