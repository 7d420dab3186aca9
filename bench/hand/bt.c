// Hand-written AVX2 binary tree search with ext_vector_type and gathers: all
// 8 lanes descend together; a lane that found its key or fell off the tree
// is masked out of the gathers and keeps its result; the loop ends when no
// lane is active.
#include <immintrin.h>
typedef int v8i __attribute__((ext_vector_type(8)));

v8i bt_hand(const int *keys, const int *left, const int *right, v8i key) {
    v8i node = 0, depth = 0, result = 0;
    v8i active = node >= 0;
    while (__builtin_reduce_or(active)) {
        v8i safe_node = active ? node : 0;
        v8i node_key = (v8i)_mm256_mask_i32gather_epi32(_mm256_setzero_si256(), keys,
                                                        (__m256i)safe_node, (__m256i)active, 4);
        v8i found = active & (node_key == key);
        result = found ? safe_node : result;
        active &= ~found;
        v8i go_left = key < node_key;
        v8i left_child = (v8i)_mm256_mask_i32gather_epi32(_mm256_setzero_si256(), left,
                                                          (__m256i)safe_node, (__m256i)(active & go_left), 4);
        v8i right_child = (v8i)_mm256_mask_i32gather_epi32(_mm256_setzero_si256(), right,
                                                           (__m256i)safe_node, (__m256i)(active & ~go_left), 4);
        v8i next = go_left ? left_child : right_child;
        node = active ? next : node;
        depth -= active;  // active lanes are -1
        v8i fell_off = active & (node < 0);
        result = fell_off ? -1 - depth : result;
        active &= ~fell_off;
    }
    return result;
}
