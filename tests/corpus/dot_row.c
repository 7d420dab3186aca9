// Covers: a dot product over a uniform length of a matrix row selected by a
// linear row index (strided loads: stride = row length) with a uniform vector,
// and an integer sum over a uniform loop; a reduction kept per lane.
#pragma omp declare simd uniform(matrix, vector, n) linear(row:1) notinbranch
float dot_row(const float *matrix, int row, const float *vector, int n) {
    float sum = 0.0f;
    for (int j = 0; j < (n & 15); j++)
        sum += matrix[row * 16 + j] * vector[j];
    return sum;
}

#pragma omp declare simd uniform(n) notinbranch
unsigned sum_of_multiples(unsigned x, int n) {
    unsigned total = 0;
    for (int k = 0; k < (n & 31); k++)
        total += x * (unsigned)k ^ (unsigned)k;
    return total;
}
