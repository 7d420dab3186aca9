// Ambient occlusion (coherent), in the style of AO bench: a pinhole camera
// at the origin looks down -z at three spheres standing on a plane. For the
// pixel (px, py) of a width x height image, the primary ray hits the nearest
// surface (or nothing: occlusion 0); from the hit point, `samples` directions
// of the hemisphere around the surface normal are traced against the same
// scene, and the fraction that hits something is the occlusion factor.
// Directions are cosine-weighted by Malley's method: a point drawn uniformly
// in the unit disk by rejection (a data-dependent loop per lane), lifted to
// the hemisphere (z = sqrt(1 - x^2 - y^2)) and turned into the orthonormal
// basis of the normal. Random numbers come from a per-pixel integer hash
// followed by xorshift32 steps, so every configuration draws the same ones.
// Only + - * / and sqrt: all configurations agree bit for bit.
// Scene: scene[4k..4k+3] = centre x, y, z and radius of sphere k (k < 3);
// scene[12..14] = a point of the plane, scene[15..17] = its unit normal.
#include <math.h>

#define AO_NO_HIT 1.0e30f

// The nearest intersection t > 1e-4 of the ray o + t d with the scene
// (AO_NO_HIT if none), and the unit normal there.
static inline __attribute__((always_inline)) float
ao_nearest(const float *scene, float ox, float oy, float oz, float dx, float dy, float dz,
           float *nx, float *ny, float *nz) {
    float nearest = AO_NO_HIT;
    for (int k = 0; k < 3; k++) {
        const float *sphere = scene + 4 * k;
        float rx = ox - sphere[0], ry = oy - sphere[1], rz = oz - sphere[2];
        float b = rx * dx + ry * dy + rz * dz;
        float c = rx * rx + ry * ry + rz * rz - sphere[3] * sphere[3];
        float discriminant = b * b - c;
        if (discriminant > 0.0f) {
            float t = -b - sqrtf(discriminant);
            if (t > 1e-4f && t < nearest) {
                nearest = t;
                float hx = ox + t * dx - sphere[0], hy = oy + t * dy - sphere[1],
                      hz = oz + t * dz - sphere[2];
                float inverse_length = 1.0f / sqrtf(hx * hx + hy * hy + hz * hz);
                *nx = hx * inverse_length;
                *ny = hy * inverse_length;
                *nz = hz * inverse_length;
            }
        }
    }
    const float *plane = scene + 12;
    float facing = dx * plane[3] + dy * plane[4] + dz * plane[5];
    if (facing < -1e-6f || facing > 1e-6f) {
        float offset = (plane[0] - ox) * plane[3] + (plane[1] - oy) * plane[4] +
                       (plane[2] - oz) * plane[5];
        float t = offset / facing;
        if (t > 1e-4f && t < nearest) {
            nearest = t;
            *nx = plane[3];
            *ny = plane[4];
            *nz = plane[5];
        }
    }
    return nearest;
}

// One xorshift32 step; returns a float uniform in [0, 1) from its top 24 bits.
static inline __attribute__((always_inline)) float ao_random(unsigned *state) {
    unsigned x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return (float)(x >> 8) * (1.0f / 16777216.0f);
}

#pragma omp declare simd uniform(scene, width, height, samples) notinbranch
float ao(const float *scene, int width, int height, int samples, int px, int py) {
    // Primary ray through the pixel centre (image plane at z = -1).
    float dx = (px + 0.5f - width * 0.5f) / (width * 0.5f);
    float dy = -(py + 0.5f - height * 0.5f) / (height * 0.5f);
    float dz = -1.0f;
    float inverse_length = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz);
    dx *= inverse_length;
    dy *= inverse_length;
    dz *= inverse_length;
    float nx = 0.0f, ny = 0.0f, nz = 0.0f;
    float t = ao_nearest(scene, 0.0f, 0.0f, 0.0f, dx, dy, dz, &nx, &ny, &nz);
    if (t >= AO_NO_HIT) return 0.0f;
    // Hit point, nudged off the surface along the normal.
    float hx = t * dx + 1e-3f * nx, hy = t * dy + 1e-3f * ny, hz = t * dz + 1e-3f * nz;

    // Orthonormal basis (ux, uy, uz), (vx, vy, vz), n: u from the axis least
    // parallel to n, as AO bench does.
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    if (nx < 0.6f && nx > -0.6f)
        ax = 1.0f;
    else if (ny < 0.6f && ny > -0.6f)
        ay = 1.0f;
    else
        az = 1.0f;
    float ux = ay * nz - az * ny, uy = az * nx - ax * nz, uz = ax * ny - ay * nx;
    float u_inverse = 1.0f / sqrtf(ux * ux + uy * uy + uz * uz);
    ux *= u_inverse;
    uy *= u_inverse;
    uz *= u_inverse;
    float vx = ny * uz - nz * uy, vy = nz * ux - nx * uz, vz = nx * uy - ny * ux;

    // Per-pixel seed: an integer hash of the pixel index (never 0 for xorshift).
    unsigned state = (unsigned)py * (unsigned)width + (unsigned)px;
    state ^= state >> 16;
    state *= 0x7feb352du;
    state ^= state >> 15;
    state *= 0x846ca68bu;
    state ^= state >> 16;
    state |= 1u;

    int occluded = 0;
    for (int s = 0; s < samples; s++) {
        float x, y, r2;
        do {  // uniform in the unit disk, by rejection (about 21% of draws rejected)
            x = 2.0f * ao_random(&state) - 1.0f;
            y = 2.0f * ao_random(&state) - 1.0f;
            r2 = x * x + y * y;
        } while (r2 >= 1.0f);
        float z = sqrtf(1.0f - r2);
        float rx = x * ux + y * vx + z * nx;
        float ry = x * uy + y * vy + z * ny;
        float rz = x * uz + y * vz + z * nz;
        float ignored_x, ignored_y, ignored_z;
        if (ao_nearest(scene, hx, hy, hz, rx, ry, rz, &ignored_x, &ignored_y, &ignored_z) <
            AO_NO_HIT)
            occluded++;
    }
    return (float)occluded / (float)samples;
}
