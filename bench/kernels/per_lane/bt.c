// Per-lane formulation, for comparison (the report's "per-lane" rows): the
// same search as ../bt.c written without the SPMD builtins, so that each
// lane walks its own path; the driver and inputs are the same.
//
// Binary tree search (irregular, PLDI'18 "bt"): walk an (unbalanced) binary
// search tree stored as arrays from the root until the key is found or a
// null child (-1) is reached. Returns the node holding the key, or
// -1 - depth when it is absent. Lanes leave the loop at different depths.
#pragma omp declare simd uniform(keys, left, right) notinbranch
int bt(const int *keys, const int *left, const int *right, int key) {
    int node = 0, depth = 0;
    while (node >= 0) {
        int node_key = keys[node];
        if (node_key == key) return node;
        node = key < node_key ? left[node] : right[node];
        depth++;
    }
    return -1 - depth;
}
