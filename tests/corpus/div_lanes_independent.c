// Covers (divergent): lanes-independent lock-step walks (RV_LANES_INDEPENDENT
// from "lanewise/rv.h"): a child is pushed when any lane wants it (rv_any),
// each lane keeps a flag per stack entry saying whether the node is on its
// own path, so every lane computes what it would alone. Lanewise builds each
// variant's one-lane form (the builtins with their one-lane meaning, every
// lane walking its own path) and a run-time safety net that chooses between
// the two; `--safety-net per-lane` forces the one-lane form.
#include <stdbool.h>

#include "lanewise/rv.h"

/* A complete binary search tree in heap order: node k has children 2k+1 and
 * 2k+2 (none past 30). */
static const int independent_keys[31] = {
    160, 80, 240, 40, 120, 200, 280, 20, 60, 100, 140, 180, 220, 260, 300, 10,
    30,  50, 70,  90, 110, 130, 150, 170, 190, 210, 230, 250, 270, 290, 310};

/* The node holding `key & 511`, or -1 - (the nodes on its search path). */
#pragma omp declare simd
RV_LANES_INDEPENDENT int independent_search(int key) {
    int probe = key & 511;
    int stack_node[32];
    bool stack_wanted[32];
    int top = 1, found = -1, depth = 0;
    stack_node[0] = 0;
    stack_wanted[0] = true;
    while (top > 0) {
        top--;
        int node = stack_node[top];
        bool wanted = stack_wanted[top];
        int node_key = independent_keys[node];
        bool go_left = false, go_right = false;
        if (wanted) {
            if (node_key == probe) {
                found = node;
            } else {
                depth++;
                go_left = probe < node_key && 2 * node + 1 < 31;
                go_right = node_key < probe && 2 * node + 2 < 31;
            }
        }
        if (rv_any(go_left) && top < 32) {
            stack_node[top] = 2 * node + 1;
            stack_wanted[top] = go_left;
            top++;
        }
        if (rv_any(go_right) && top < 32) {
            stack_node[top] = 2 * node + 2;
            stack_wanted[top] = go_right;
            top++;
        }
    }
    return found >= 0 ? found : -1 - depth;
}

/* The sum of the keys in [low & 511, (low & 511) + (width & 127)], visiting
 * only subtrees that may hold one; the side most lanes want is walked first
 * (rv_popcount), which changes the order of the (exact, integer) sum only. */
#pragma omp declare simd
RV_LANES_INDEPENDENT int independent_range_sum(int low, int width) {
    int lo = low & 511, hi = lo + (width & 127);
    int stack_node[32];
    bool stack_wanted[32];
    int top = 1, sum = 0;
    stack_node[0] = 0;
    stack_wanted[0] = true;
    while (top > 0) {
        top--;
        int node = stack_node[top];
        bool wanted = stack_wanted[top];
        if (!rv_any(wanted)) continue;
        int key = independent_keys[node];
        if (wanted && key >= lo && key <= hi) sum += key;
        int left = 2 * node + 1, right = left + 1;
        bool want_left = wanted && left < 31 && key > lo;
        bool want_right = wanted && right < 31 && key < hi;
        // Pushed second, popped first: the side more lanes want.
        bool right_first = rv_popcount(want_right) > rv_popcount(want_left);
        int later = right_first ? left : right, sooner = right_first ? right : left;
        bool want_later = right_first ? want_left : want_right;
        bool want_sooner = right_first ? want_right : want_left;
        if (rv_any(want_later) && top < 32) {
            stack_node[top] = later;
            stack_wanted[top] = want_later;
            top++;
        }
        if (rv_any(want_sooner) && top < 32) {
            stack_node[top] = sooner;
            stack_wanted[top] = want_sooner;
            top++;
        }
    }
    return sum;
}
