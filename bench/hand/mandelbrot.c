// Hand-written AVX2 mandelbrot with clang's ext_vector_type: the loop runs
// while any lane is active; finished lanes keep their z and count (a blend
// under the active mask), exactly as the scalar escape-time loop.
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));

v8i mandelbrot_hand(v8f cx, v8f cy, int max_iter) {
    v8f zx = 0.0f, zy = 0.0f;
    v8i iteration = 0;
    for (int step = 0; step < max_iter; step++) {
        v8i active = zx * zx + zy * zy <= 4.0f;  // lanes that have not escaped (-1 = true)
        if (!__builtin_reduce_or(active)) break;
        v8f next_zx = zx * zx - zy * zy + cx;
        v8f next_zy = 2.0f * zx * zy + cy;
        zx = active ? next_zx : zx;
        zy = active ? next_zy : zy;
        iteration -= active;
    }
    return iteration;
}
