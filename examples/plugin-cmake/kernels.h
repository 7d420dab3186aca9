#pragma omp declare simd notinbranch
int steps(int x);
void count_steps(const int *in, int *out, int count);
