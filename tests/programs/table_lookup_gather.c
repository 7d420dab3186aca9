/* uniform table and size parameters with per-lane (gathered) lookups and a
 * divergent binary search. */
#include "programs.h"

#define TABLE 1024
#define N 3333

#pragma omp declare simd notinbranch uniform(table, size)
int lower_bound(const int *table, int size, int key) {
    int low = 0, high = size;
    while (low < high) {
        int middle = (low + high) / 2;
        if (table[middle] < key) low = middle + 1;
        else high = middle;
    }
    return low;
}

static int table[TABLE], keys[N], slots[N], hits[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        int slot = lower_bound(table, TABLE, keys[i]);
        slots[i] = slot;
        hits[i] = slot < TABLE && table[slot] == keys[i];
    }
}

int main(void) {
    int value = 0;
    for (int j = 0; j < TABLE; j++) {
        value += lw_int(1, 5);
        table[j] = value;
    }
    for (int i = 0; i < N; i++) keys[i] = lw_int(-3, value + 3);
    LW_TIMED(kernel(N));
    lw_print_ints("slots", slots, N);
    lw_print_ints("hits", hits, N);
    return 0;
}
