// Covers (divergent): tree traversals in lock step, the programming model of
// PLDI'18's tree kernels: the stack of nodes is pushed under `rv_any`, so
// every lane holds the same nodes (Lanewise keeps it as one scalar copy:
// uniform private memory, WPMVP'18 2.2.2) while each lane's interest in a
// node is private (a `bool` stack, lane-interleaved); `count_in_box` passes
// the stack pointer unchanged around a divergent test (a join phi whose
// values from the branch's paths are one value stays uniform);
// `nearest_hit` keeps a stack of `{float distance; int node}` structs that
// WPMVP'18's split turns into a uniform node array and a per-lane distance
// array, and orders children by a majority vote (`rv_popcount`). Results do
// not depend on W: a lane visits a superset of its own nodes, and counting
// and minima ignore the extra ones.
#include <stdbool.h>

#include "lanewise/rv.h"

/* An implicit complete binary tree of 31 nodes over keys 0..1023: node n
 * has children 2n+1, 2n+2; key_of[n] splits its range. */
static const int key_of[31] = {512, 256, 768, 128, 384, 640, 896, 64,  192, 320, 448,
                               576, 704, 832, 960, 32,  96,  160, 224, 288, 352, 416,
                               480, 544, 608, 672, 736, 800, 864, 928, 992};

/* The number of nodes whose key lies in [low, low + (width & 255)]. */
#pragma omp declare simd
int count_in_box(int low, int width) {
    int lo = low & 1023, hi = lo + (width & 255);
    int stack[32];
    bool wanted[32];
    int top = 1, count = 0;
    stack[0] = 0;
    wanted[0] = true;
    while (top > 0) {
        top--;
        int node = stack[top];
        int key = key_of[node];
        bool want_left = false, want_right = false;
        if (wanted[top]) {
            if (key >= lo && key <= hi) count++;
            want_left = 2 * node + 1 < 31 && lo < key;
            want_right = 2 * node + 2 < 31 && hi > key;
        }
        if (rv_any(want_left)) {
            stack[top] = 2 * node + 1;
            wanted[top] = want_left;
            top++;
        }
        if (rv_any(want_right)) {
            stack[top] = 2 * node + 2;
            wanted[top] = want_right;
            top++;
        }
    }
    return count;
}

typedef struct {
    float distance; /* where this lane enters the node; 1e30 if it does not */
    int node;
} entry;

/* The smallest |key - probe| * scale over the nodes, searching nearest
 * first: a node whose key range lies farther than the best so far is
 * skipped. */
#pragma omp declare simd
float nearest_hit(int probe, float scale) {
    /* A positive finite scale keeps the bounds below true distances. */
    scale = scale < 0.0f ? -scale : scale;
    if (!(scale < 1e6f)) scale = 1.0f;
    float target = (float)(probe & 1023);
    float best = 1e30f;
    entry stack[32];
    int top = 1;
    stack[0].distance = 0.0f;
    stack[0].node = 0;
    while (top > 0) {
        entry e = stack[--top];
        bool wanted = e.distance < best;
        if (!rv_any(wanted)) continue;
        int node = e.node;
        float key = (float)key_of[node];
        float gap = (key > target ? key - target : target - key) * scale;
        if (wanted && gap < best) best = gap;
        int left = 2 * node + 1, right = 2 * node + 2;
        if (left >= 31) continue;
        /* A child's range starts beyond the split: its distance is at
         * least the distance to the split on that side. */
        float left_distance = 1e30f, right_distance = 1e30f;
        if (wanted) {
            left_distance = target < key ? 0.0f : gap;
            right_distance = target < key ? gap : 0.0f;
        }
        int first = left, second = right;
        float first_distance = left_distance, second_distance = right_distance;
        if (rv_popcount(right_distance < left_distance) * 2 > rv_popcount(wanted)) {
            first = right;
            second = left;
            first_distance = right_distance;
            second_distance = left_distance;
        }
        if (rv_any(second_distance < 1e30f)) {
            stack[top].distance = second_distance;
            stack[top].node = second;
            top++;
        }
        if (rv_any(first_distance < 1e30f)) {
            stack[top].distance = first_distance;
            stack[top].node = first;
            top++;
        }
    }
    return best;
}
