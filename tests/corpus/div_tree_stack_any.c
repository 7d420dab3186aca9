// Covers (divergent): stack-based tree search with the SPMD builtin rv_any
// (include "lanewise/rv.h"): each lane walks a static binary search tree with
// a private stack indexed by a varying stack pointer; the loop runs while any
// lane still has work (`while (rv_any(depth > 0))`) and lanes that are done
// sit out the iterations under a varying branch. The scalar function calls
// rv_any with its one-lane meaning (defined by the test driver).
#include "lanewise/rv.h"

/* A complete binary tree in heap order: node k has children 2k+1, 2k+2. */
static const int tree_keys[31] = {
    160, 80, 240, 40, 120, 200, 280, 20, 60, 100, 140, 180, 220, 260, 300, 10,
    30,  50, 70,  90, 110, 130, 150, 170, 190, 210, 230, 250, 270, 290, 310};

#pragma omp declare simd
int tree_count_in_range(int low, int width) {
    int lo = low & 511;
    int hi = lo + (width & 127);
    int stack[32];
    int depth = 0;
    int count = 0;
    stack[depth++] = 0;
    while (rv_any(depth > 0)) {
        if (depth > 0) {
            int node = stack[--depth];
            int key = tree_keys[node];
            if (key >= lo && key <= hi)
                count++;
            int left = 2 * node + 1;
            if (left < 31) {
                if (key > lo)
                    stack[depth++] = left;
                if (key < hi)
                    stack[depth++] = left + 1;
            }
        }
    }
    return count;
}

#pragma omp declare simd
int tree_find_depth(int key) {
    int probe = key & 511;
    int node = 0;
    int depth = 0;
    while (rv_any(node < 31)) {
        if (node < 31) {
            int value = tree_keys[node];
            if (value == probe)
                return depth;
            node = probe < value ? 2 * node + 1 : 2 * node + 2;
            depth++;
        }
    }
    return -depth;
}
