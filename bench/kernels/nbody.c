// N-body force (coherent): the x component of the gravitational acceleration
// on body i from all `count` bodies, with Plummer softening:
//   a_x = sum_j m_j dx_j / (|d_j|^2 + eps^2)^(3/2).
// The loop over j is uniform; every lane reads the same body j (broadcast).
#include <math.h>

#pragma omp declare simd uniform(px, py, pz, mass, count) linear(i) notinbranch
float nbody(const float *px, const float *py, const float *pz, const float *mass, int count,
            int i) {
    float x = px[i], y = py[i], z = pz[i];
    float ax = 0.0f;
    for (int j = 0; j < count; j++) {
        float dx = px[j] - x, dy = py[j] - y, dz = pz[j] - z;
        float dist2 = dx * dx + dy * dy + dz * dz + 1e-3f;
        float inv = 1.0f / sqrtf(dist2);
        ax += mass[j] * dx * inv * inv * inv;
    }
    return ax;
}
