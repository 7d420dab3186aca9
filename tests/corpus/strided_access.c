// Covers: strided memory: a field of an array of structs indexed by a linear
// index (stride = sizeof(struct) = 12 bytes) for loads and a store, and every
// third element of a float array (stride 12 bytes), plus a linear(p:2)
// pointer step (stride 8 bytes through a float pointer).
struct point { float x, y, z; };

#pragma omp declare simd uniform(points) linear(i:1) notinbranch
float struct_field_length(const struct point *points, int i) {
    return points[i].x * points[i].x + points[i].y * points[i].y + points[i].z;
}

#pragma omp declare simd uniform(points) linear(i:1) notinbranch
void struct_field_store(struct point *points, int i, float value) { points[i].y = value + points[i].z; }

#pragma omp declare simd uniform(a) linear(i:1) notinbranch
float every_third(const float *a, int i) { return a[3 * i] - a[3 * i + 2]; }

#pragma omp declare simd linear(p:2) notinbranch
float pointer_step_two(const float *p, float x) { return p[0] * x + p[1]; }
