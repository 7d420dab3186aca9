// Covers (divergent): a nab-style if-cascade (the cut-off and switching-
// function logic of molecular-dynamics pair forces): else-if chains on
// varying distances with arithmetic in every arm, nested conditions, and a
// store of the force under the same varying conditions.
#pragma omp declare simd uniform(cutoff) linear(force)
float nab_pair_energy(float r2, float q, float cutoff, float *force) {
    float energy;
    float c2 = cutoff * cutoff;
    if (!(r2 > 0.01f)) {
        energy = 0.0f;
        *force = 0.0f;
    } else if (r2 > c2) {
        energy = 0.0f;
    } else if (r2 > 0.64f * c2) {
        float inverse = 1.0f / r2;
        float switching = (c2 - r2) / (0.36f * c2);
        energy = q * inverse * switching;
        *force = energy * inverse;
    } else if (q < 0.0f) {
        float inverse = 1.0f / r2;
        float inverse6 = inverse * inverse * inverse;
        energy = inverse6 * inverse6 - inverse6 + q;
        if (energy > 1e6f)
            energy = 1e6f;
        *force = energy * 6.0f * inverse;
    } else {
        float inverse = 1.0f / r2;
        energy = q * inverse;
        *force = -energy;
    }
    return energy;
}

#pragma omp declare simd
double nab_generalized_born(double r, double a) {
    double ai = a < 0.1 ? 0.1 : (a > 10.0 ? 10.0 : a);
    double result;
    if (r > 4.0 * ai) {
        result = 1.0 / r;
    } else if (r > ai) {
        double ratio = ai / r;
        result = (1.0 - ratio * ratio) / (2.0 * r);
        if (ratio > 0.5)
            result += ratio * 0.25;
    } else if (r > 0.0) {
        result = 1.0 / ai - r / (4.0 * ai * ai);
    } else {
        result = 2.0 / ai;
    }
    return result;
}
