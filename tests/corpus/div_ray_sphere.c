// Covers (divergent): a ray-sphere intersection with early returns (miss on
// a negative discriminant, behind the origin), sqrtf on the hit path only,
// and a loop over a uniform array of spheres keeping the nearest hit
// (varying updates of two live values).
#include <math.h>

#pragma omp declare simd uniform(cx, cy, radius)
float ray_sphere_distance(float ox, float dy, float cx, float cy, float radius) {
    float dx = 1.0f;
    float px = ox - cx;
    float py = -cy;
    float b = px * dx + py * dy;
    float c = px * px + py * py - radius * radius;
    float a = dx * dx + dy * dy;
    float discriminant = b * b - a * c;
    if (!(discriminant >= 0.0f))
        return -1.0f;
    float root = sqrtf(discriminant);
    float t = (-b - root) / a;
    if (t < 0.0f) {
        t = (-b + root) / a;
        if (t < 0.0f)
            return -2.0f;
    }
    return t;
}

#pragma omp declare simd uniform(spheres, count)
int nearest_sphere(const float *spheres, int count, float ox, float oy) {
    float best = 1e30f;
    int hit = -1;
    for (int s = 0; s < (count & 15); s++) {
        float px = ox - spheres[3 * s];
        float py = oy - spheres[3 * s + 1];
        float r = spheres[3 * s + 2];
        float c = px * px + py * py - r * r;
        if (!(c < 0.0f))
            continue;
        float t = -c;
        if (t < best) {
            best = t;
            hit = s;
        }
    }
    return hit;
}
