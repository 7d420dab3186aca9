/* Translation unit 3: rv_any with its one-lane meaning, for the build
 * without Lanewise (clang's scalar tree_search calls it; a module Lanewise
 * produced defines its own internal copy). */
#include <stdbool.h>

bool rv_any(bool b) { return b; }
