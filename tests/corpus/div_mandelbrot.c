// Covers (divergent): mandelbrot-style early exits: a while loop whose exit
// condition (escape radius or uniform iteration cap) is varying, so lanes
// leave in different iterations (divergent loop, live mask, trackers of the
// live-out iteration count and coordinates); float and double; a second
// exit through `break` on a varying test inside the body.
#pragma omp declare simd uniform(max_iterations)
int mandelbrot_escape(float c_re, float c_im, int max_iterations) {
    float x = 0.0f, y = 0.0f;
    int limit = max_iterations & 127;
    int iteration = 0;
    while (iteration < limit) {
        float xx = x * x;
        float yy = y * y;
        if (!(xx + yy <= 4.0f))
            break;
        float xy = x * y;
        x = xx - yy + c_re;
        y = xy + xy + c_im;
        iteration++;
    }
    return iteration;
}

#pragma omp declare simd uniform(max_iterations)
double mandelbrot_smooth(double c_re, double c_im, int max_iterations) {
    double x = 0.0, y = 0.0, radius = 0.0;
    int limit = max_iterations & 63;
    int iteration = 0;
    for (; iteration < limit; iteration++) {
        double xx = x * x;
        double yy = y * y;
        radius = xx + yy;
        if (radius > 4.0)
            return (double)iteration - radius * 0.125;
        double next_x = xx - yy + c_re;
        y = 2.0 * x * y + c_im;
        x = next_x;
        if (x != x)
            return -1.0;
    }
    return (double)limit + radius;
}
