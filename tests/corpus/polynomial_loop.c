// Covers: a uniform loop: Horner evaluation of a polynomial whose degree and
// coefficients are uniform (loop bound and trip count are the same in every
// lane), in float and double; the loop stays a scalar loop.
// lanewise-test: gcc-caller
#pragma omp declare simd uniform(coefficients, degree) notinbranch
float polynomial(const float *coefficients, int degree, float x) {
    float result = 0.0f;
    for (int k = 0; k < (degree & 15); k++)
        result = result * x + coefficients[k];
    return result;
}

#pragma omp declare simd uniform(coefficients) notinbranch
double polynomial_fixed_degree(const double *coefficients, double x) {
    double result = coefficients[7];
    for (int k = 6; k >= 0; k--)
        result = result * x + coefficients[k];
    return result;
}
