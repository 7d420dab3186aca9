/* Early-exit search inside the omp simd body with a flag variable (no break:
 * OpenMP forbids it): for each query, the first index of the table holding a
 * value at least as large. */
#include "programs.h"

#define TABLE 512
#define QUERIES 3001

static int table[TABLE];
static int queries[QUERIES], position[QUERIES], probes[QUERIES];

static void kernel(int n) {
#pragma omp simd
    for (int q = 0; q < n; q++) {
        int found = -1;
        int done = 0;
        int count = 0;
        for (int j = 0; j < TABLE && !done; j++) {
            count++;
            if (table[j] >= queries[q]) {
                found = j;
                done = 1;
            }
        }
        position[q] = found;
        probes[q] = count;
    }
}

int main(void) {
    int value = 0;
    for (int j = 0; j < TABLE; j++) {
        value += lw_int(0, 9);
        table[j] = value;
    }
    for (int q = 0; q < QUERIES; q++) queries[q] = lw_int(-5, value + 20);
    LW_TIMED(kernel(QUERIES));
    lw_print_ints("position", position, QUERIES);
    lw_print_ints("probes", probes, QUERIES);
    return 0;
}
