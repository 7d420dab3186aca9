// One explicit Euler step of a particle stored as an array of structures,
// updated in place (8 doubles: x, y, z, inverse mass, vx, vy, vz, drag),
// under a per-particle force (fx, fy, fz, unused), dt = 1/64:
//   v' = v (1 - drag dt) + f inv_mass dt,   x' = x + v' dt
// Two 3-double groups 4 doubles apart (a ymm each, with the 4th lane,
// inverse mass or drag, left as it is: 3-wide stores or a blend), broadcasts
// of inv_mass and of the drag factor.
#include "../kernels.h"

static inline void particle_item(double *restrict p, const double *restrict f) {
    const double dt = 1.0 / 64.0;
    double inv_mass = p[3], keep = 1.0 - p[7] * dt;
    double v[3];
    for (int k = 0; k < 3; k++)
        v[k] = p[4 + k] * keep + f[k] * inv_mass * dt;
    for (int k = 0; k < 3; k++) {
        p[k] = p[k] + v[k] * dt;
        p[4 + k] = v[k];
    }
}

void KERNEL(particle)(long n, double *restrict p, const double *restrict f) {
    for (long i = 0; i < n; i++)
        particle_item(p + 8 * i, f + 4 * i);
}
