/* Translation unit 1: a double-precision declare simd function with a
 * linear pointer parameter and an inner loop over uniform data. */
#include "physics.h"

double potential(const double *position, const double *centers, int count) {
    double total = 0.0;
    double x = *position;
    for (int c = 0; c < count; c++) {
        double d = x - centers[c];
        if (d < 0.0) d = -d;
        if (d < 1e-3) continue;
        total += 1.0 / d;
    }
    return total;
}
