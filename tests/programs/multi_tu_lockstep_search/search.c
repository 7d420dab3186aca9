/* Translation unit 1: the lock-step search, written with the SPMD builtins
 * of lanewise/rv.h: a child is pushed when any lane wants it (rv_any), and
 * each lane keeps per stack entry whether the node is on its own path, so
 * every lane finds what it would alone (RV_LANES_INDEPENDENT). Lanewise's
 * safety net chooses per call between the lock-step body and the one-lane
 * form (each lane on its own path); random queries favour the latter,
 * sorted ones the former. */
#include <stdbool.h>

#include "search.h"

enum { STACK = 64 };

int tree_search(const int *keys, const int *left, const int *right, int key) {
    int stack_node[STACK];
    bool stack_wanted[STACK];
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
        if (rv_any(go_left) && top < STACK) {
            stack_node[top] = left_child;
            stack_wanted[top] = go_left;
            top++;
        }
        if (rv_any(go_right) && top < STACK) {
            stack_node[top] = right_child;
            stack_wanted[top] = go_right;
            top++;
        }
    }
    return found >= 0 ? found : -1 - depth;
}
