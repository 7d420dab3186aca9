// Driver: 512K searches in a binary search tree of 64K random keys inserted in
// random order (depth about 2.5 log2 n). Half the queries are keys of the
// tree. Inputs: "random" query order, and "sorted" (ascending queries:
// neighbouring lanes follow nearly the same path, as in PLDI'18).
#include "../harness/harness.h"

enum { NODES = 1 << 16, ITEMS = 1 << 19 };
BENCH_GLOBAL int keys[NODES], left_child[NODES], right_child[NODES], queries[ITEMS];
#define SCALAR_CALL(F, i) F(keys, left_child, right_child, queries[i])
#define VECTOR_CALL(F, i, W) F(keys, left_child, right_child, ld##W##i(&queries[i]))

#ifdef BENCH_LOOP
#ifdef BENCH_LOOP_INCLUDES_KERNEL
#include BENCH_KERNEL_SOURCE
#else
#pragma omp declare simd uniform(keys, left, right) notinbranch
int bt(const int *keys, const int *left, const int *right, int key);
#endif
BENCH_OMP_LOOP(int, bt)
#else
#include <stdlib.h>
#include "inputs.h"
int bt_scalar(const int *, const int *, const int *, int);
BENCH_WEAK v8i _ZGVdN8uuuv_bt_lw(const int *, const int *, const int *, v8i);
BENCH_WEAK_AVX512 v16i _ZGVeN16uuuv_bt_lw(const int *, const int *, const int *, v16i);
BENCH_WEAK v8i _ZGVdN8uuuv_bt_lwfull(const int *, const int *, const int *, v8i);
v8i bt_hand(const int *, const int *, const int *, v8i);
BENCH_STANDARD_RUNNERS(int, i, bt_scalar, _ZGVdN8uuuv_bt_lw, _ZGVeN16uuuv_bt_lw,
                       _ZGVdN8uuuv_bt_lwfull)
static int out_hand[ITEMS];
static void run_hand(void) {
    for (int i = 0; i < ITEMS; i += 8) st8i(&out_hand[i], VECTOR_CALL(bt_hand, i, 8));
}
static void setup(const char *input) {
    int count = 0;
    while (count < NODES) {  // distinct random keys, inserted in generation order
        int key = (int)(next_u32() & 0x3fffffff);
        left_child[count] = right_child[count] = -1;
        keys[count] = key;
        if (count == 0) {
            count++;
            continue;
        }
        int node = 0, duplicate = 0;
        for (;;) {
            if (key == keys[node]) { duplicate = 1; break; }
            int *child = key < keys[node] ? &left_child[node] : &right_child[node];
            if (*child < 0) { *child = count; break; }
            node = *child;
        }
        if (!duplicate) count++;
    }
    for (int i = 0; i < ITEMS; i++)
        queries[i] = (next_u32() & 1) ? keys[next_u32() % NODES] : (int)(next_u32() & 0x3fffffff);
    if (!strcmp(input, "sorted")) qsort(queries, ITEMS, sizeof(int), compare_ints);
}
static bench_config configs[] = {
    BENCH_STANDARD_CONFIGS(_ZGVdN8uuuv_bt_lw, _ZGVeN16uuuv_bt_lw, _ZGVdN8uuuv_bt_lwfull, 0),
    {CONFIG_HAND, run_hand, out_hand, NULL, 0, 0, 0, NULL, NULL},
};
static const char *const inputs[] = {"random", "sorted", NULL};
int main(int argc, char **argv) {
    bench_kernel kernel = {"bt", "irregular", inputs, setup, ITEMS, BENCH_I32, 0,
                           configs, sizeof configs / sizeof configs[0]};
    return bench_main(argc, argv, &kernel);
}
#endif
