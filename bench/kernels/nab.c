// nab-style if-cascade (irregular): the nonbonded energy of atom i with
// `neighbours` partner atoms, as in molecular-mechanics codes (nab, Amber):
// a cutoff test, then a cascade of rarely taken branches (close contacts get
// a repulsive correction; opposite charges at close range a further
// short-range term; pairs in the switching shell a smoothing polynomial).
#include <math.h>

#pragma omp declare simd uniform(x, y, z, charge, count, neighbours, stride) linear(i) notinbranch
float nab(const float *x, const float *y, const float *z, const float *charge, int count,
          int neighbours, int stride, int i) {
    const float cutoff2 = 0.0100f, switch2 = 0.0064f, contact2 = 0.0004f, core2 = 0.0001f;
    float energy = 0.0f;
    for (int k = 1; k <= neighbours; k++) {
        int j = i + k * stride;
        if (j >= count) j -= count;
        float dx = x[j] - x[i], dy = y[j] - y[i], dz = z[j] - z[i];
        float r2 = dx * dx + dy * dy + dz * dz;
        if (r2 < cutoff2) {
            float inv_r2 = 1.0f / r2;
            float inv_r6 = inv_r2 * inv_r2 * inv_r2;
            float pair = charge[i] * charge[j] * sqrtf(inv_r2) + 1e-6f * inv_r6 * inv_r6 -
                         2e-3f * inv_r6;
            if (r2 > switch2) {
                float s = (cutoff2 - r2) / (cutoff2 - switch2);
                pair *= s * s * (3.0f - 2.0f * s);
            } else if (r2 < contact2) {
                float overlap = contact2 - r2;
                pair += 1e4f * overlap * overlap;
                if (charge[i] * charge[j] < 0.0f) {
                    if (r2 < core2) pair -= 50.0f * (core2 - r2) * inv_r2;
                    else pair -= 5.0f * overlap / sqrtf(r2);
                }
            }
            energy += pair;
        }
    }
    return energy;
}
