/* WFV-SLP's test kernel (crates/lanewise/tests/wfv_slp.rs): three
 * independent expf calls under a divergent condition, compiled with
 * -ffast-math so that they become libmvec calls. */
#include <math.h>

#pragma omp declare simd uniform(k) notinbranch
float glow(float x, float y, float z, float k) {
    float r = 0.0f;
    if (x > 0.9f) r = expf(-k * x) + expf(-k * y) + expf(-k * z);
    return r;
}

#pragma omp declare simd uniform(k) notinbranch
double glow2(double x, double y, double k) {
    double r = 1.0;
    if (x > 0.5) r = exp(-k * x) * 0.5 + exp(k * y) * 0.25;
    return r;
}
