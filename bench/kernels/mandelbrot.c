// Mandelbrot (coherent): the escape-time algorithm. Iterates z <- z^2 + c
// from z = 0 until |z|^2 > 4 or max_iter iterations; returns the count.
// Neighbouring pixels escape after similar counts, so lanes mostly agree,
// but the loop exit is varying (divergent control flow).
#pragma omp declare simd uniform(max_iter) notinbranch
int mandelbrot(float cx, float cy, int max_iter) {
    float zx = 0.0f, zy = 0.0f;
    int iteration = 0;
    while (iteration < max_iter && zx * zx + zy * zy <= 4.0f) {
        float next_zx = zx * zx - zy * zy + cx;
        zy = 2.0f * zx * zy + cy;
        zx = next_zx;
        iteration++;
    }
    return iteration;
}
