// Per-lane formulation, for comparison (the report's "per-lane" rows): the
// same algorithm as ../mpc.c written without the SPMD builtins, so that each
// lane walks its own path with its own stack; the drivers and inputs are the same.
//
// Multi-radius point correlation (irregular, PLDI'18 "mpc"): as pc, but the
// query point is uniform and the radius varies per lane, so lanes share the top
// of the walk and part ways where the smaller balls stop reaching a side.
// Counts the kd-tree points within `radius` of (qx, qy, qz).
#pragma omp declare simd uniform(tx, ty, tz, nodes, qx, qy, qz) notinbranch
int mpc(const float *tx, const float *ty, const float *tz, int nodes, float qx, float qy, float qz,
        float radius) {
    int stack_node[64], stack_depth[64];
    int top = 1, count = 0;
    float radius2 = radius * radius;
    stack_node[0] = 0;
    stack_depth[0] = 0;
    while (top > 0) {
        top--;
        int node = stack_node[top], depth = stack_depth[top];
        float dx = tx[node] - qx, dy = ty[node] - qy, dz = tz[node] - qz;
        if (dx * dx + dy * dy + dz * dz <= radius2) count++;
        int axis = depth % 3;
        float diff = axis == 0 ? -dx : axis == 1 ? -dy : -dz;  // query minus split
        int left = 2 * node + 1, right = 2 * node + 2;
        if (left < nodes && diff - radius <= 0.0f && top < 64) {
            stack_node[top] = left;
            stack_depth[top] = depth + 1;
            top++;
        }
        if (right < nodes && diff + radius >= 0.0f && top < 64) {
            stack_node[top] = right;
            stack_depth[top] = depth + 1;
            top++;
        }
    }
    return count;
}
