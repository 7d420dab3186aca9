// Covers (divergent): bisection root finding with a varying convergence
// test: lanes leave after different numbers of halvings, a varying branch
// picks the half-interval (phis of the interval ends become blends), and an
// early exit when the function value is exactly zero.
#pragma omp declare simd uniform(tolerance)
double bisect_cubic(double shift, double tolerance) {
    double c = shift < -50.0 ? -50.0 : (shift > 50.0 ? 50.0 : shift);
    if (c != c)
        return 0.0;
    double tol = tolerance < 0.0 ? -tolerance : tolerance;
    if (!(tol > 1e-9))
        tol = 1e-9;
    double lo = -10.0, hi = 10.0;
    int k = 0;
    while (hi - lo > tol && k < 60) {
        double middle = 0.5 * (lo + hi);
        double value = middle * middle * middle - c;
        if (value == 0.0)
            return middle;
        if (value < 0.0)
            lo = middle;
        else
            hi = middle;
        k++;
    }
    return 0.5 * (lo + hi) + (double)k * 1e-3;
}
