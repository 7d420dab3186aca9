/* Translation unit 2: omp simd loops searching a random (unbalanced) binary
 * search tree for random queries (incoherent: the lanes' paths part at the
 * root) and sorted ones (neighbouring lanes walk the same path). */
#include "../programs.h"
#include "search.h"

#define NODES 20000
#define QUERIES 6000

static int keys[NODES], left[NODES], right[NODES];
static int random_queries[QUERIES], sorted_queries[QUERIES];
static int random_found[QUERIES], sorted_found[QUERIES];

static void insert(int count) {
    keys[count] = lw_int(0, 1 << 20) * 2;  // even keys; odd queries miss
    left[count] = right[count] = -1;
    if (count == 0) return;
    int node = 0;
    for (;;) {
        int *child = keys[count] < keys[node] ? &left[node] : &right[node];
        if (*child < 0) {
            *child = count;
            return;
        }
        node = *child;
    }
}

static void kernel(void) {
#pragma omp simd
    for (int i = 0; i < QUERIES; i++)
        random_found[i] = tree_search(keys, left, right, random_queries[i]);
#pragma omp simd
    for (int i = 0; i < QUERIES; i++)
        sorted_found[i] = tree_search(keys, left, right, sorted_queries[i]);
}

int main(void) {
    for (int n = 0; n < NODES; n++) insert(n);
    for (int i = 0; i < QUERIES; i++) {
        random_queries[i] = lw_int(0, 3) == 0 ? lw_int(0, 1 << 21) : keys[lw_int(0, NODES - 1)];
        sorted_queries[i] = 2 * i * ((1 << 20) / QUERIES);
    }
    LW_TIMED(kernel());
    lw_print_ints("random", random_found, QUERIES);
    lw_print_ints("sorted", sorted_found, QUERIES);
    return 0;
}
