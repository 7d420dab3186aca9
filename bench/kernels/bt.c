// Binary tree search (irregular, PLDI'18 "bt"): find `key` in an
// (unbalanced) binary search tree stored as arrays. Returns the node holding
// the key, or -1 - depth when it is absent (depth: the nodes on the search
// path).
//
// Written as PLDI'18's Figure 1 ("data-parallel binary tree search"): a
// depth-first walk with an explicit stack that pushes a child when any lane
// wants it (rv_any), so the stack of nodes is the same in every lane and
// node data are loaded once for all lanes; each lane keeps its own flag per
// entry, whether the node is on its search path. The loop and the pushes are
// uniform branches that partial linearization keeps. With one lane
// (-DLANEWISE_RV_SCALAR) this is the textbook search. Each lane finds what
// it would find alone (RV_LANES_INDEPENDENT): on incoherent queries, where
// the walk visits the union of the lanes' paths, Lanewise's safety net may
// run the search with one-lane builtins instead, each lane on its own path.
#include <stdbool.h>

#include "lanewise/rv.h"

enum { BT_STACK = 128 };  // deeper than the tree: one pending sibling per level

#pragma omp declare simd uniform(keys, left, right) notinbranch
RV_LANES_INDEPENDENT int bt(const int *keys, const int *left, const int *right, int key) {
    int stack_node[BT_STACK];
    bool stack_wanted[BT_STACK];
    int top = 1, found = -1, depth = 0;
    stack_node[0] = 0;
    stack_wanted[0] = true;
    while (top > 0) {
        top--;
        int node = stack_node[top];
        bool wanted = stack_wanted[top];
        int node_key = keys[node], left_child = left[node], right_child = right[node];
        bool go_left = false, go_right = false;
        if (wanted) {
            if (node_key == key) {
                found = node;
            } else {
                depth++;
                go_left = key < node_key && left_child >= 0;
                go_right = node_key < key && right_child >= 0;
            }
        }
        if (rv_any(go_left) && top < BT_STACK) {
            stack_node[top] = left_child;
            stack_wanted[top] = go_left;
            top++;
        }
        if (rv_any(go_right) && top < BT_STACK) {
            stack_node[top] = right_child;
            stack_wanted[top] = go_right;
            top++;
        }
    }
    return found >= 0 ? found : -1 - depth;
}
