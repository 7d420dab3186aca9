// Perlin-style noise (coherent): Ken Perlin's improved gradient noise in 3D
// (quintic fade, 12 edge gradients picked by a hashed lattice corner through
// a permutation table), summed over `octaves` octaves (fractal Brownian
// motion, lacunarity 2, gain 1/2). The gradient choice is a chain of
// data-dependent ternaries (selects); the table lookups are gathers.
#include <math.h>

static float fade(float t) { return t * t * t * (t * (t * 6.0f - 15.0f) + 10.0f); }
static float lerp(float t, float a, float b) { return a + t * (b - a); }
static float gradient(int hash, float x, float y, float z) {
    int h = hash & 15;
    float u = h < 8 ? x : y;
    float v = h < 4 ? y : (h == 12 || h == 14 ? x : z);
    return ((h & 1) ? -u : u) + ((h & 2) ? -v : v);
}

static float noise3(const int *perm, float x, float y, float z) {
    float fx = floorf(x), fy = floorf(y), fz = floorf(z);
    int X = (int)fx & 255, Y = (int)fy & 255, Z = (int)fz & 255;
    x -= fx;
    y -= fy;
    z -= fz;
    float u = fade(x), v = fade(y), w = fade(z);
    int A = perm[X] + Y, AA = perm[A] + Z, AB = perm[A + 1] + Z;
    int B = perm[X + 1] + Y, BA = perm[B] + Z, BB = perm[B + 1] + Z;
    return lerp(w,
                lerp(v, lerp(u, gradient(perm[AA], x, y, z), gradient(perm[BA], x - 1, y, z)),
                     lerp(u, gradient(perm[AB], x, y - 1, z), gradient(perm[BB], x - 1, y - 1, z))),
                lerp(v,
                     lerp(u, gradient(perm[AA + 1], x, y, z - 1),
                          gradient(perm[BA + 1], x - 1, y, z - 1)),
                     lerp(u, gradient(perm[AB + 1], x, y - 1, z - 1),
                          gradient(perm[BB + 1], x - 1, y - 1, z - 1))));
}

#pragma omp declare simd uniform(perm, z, octaves) notinbranch
float perlin(const int *perm, float x, float y, float z, int octaves) {
    float sum = 0.0f, amplitude = 1.0f, frequency = 1.0f;
    for (int octave = 0; octave < octaves; octave++) {
        sum += amplitude * noise3(perm, x * frequency, y * frequency, z * frequency);
        amplitude *= 0.5f;
        frequency *= 2.0f;
    }
    return sum;
}
