#ifndef SEARCH_H
#define SEARCH_H

#include "../../../include/lanewise/rv.h"

/* The node of `keys` holding `key`, or -1 - (the nodes on its search path):
 * a lock-step walk of a binary search tree (PLDI'18's Figure 1). */
#pragma omp declare simd uniform(keys, left, right) notinbranch
RV_LANES_INDEPENDENT int tree_search(const int *keys, const int *left, const int *right, int key);

#endif
