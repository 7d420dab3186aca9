// Collatz steps (irregular): the number of steps n -> n/2 (even) or 3n+1
// (odd) until n reaches 1. Trip counts differ wildly between neighbours.
#pragma omp declare simd notinbranch
int collatz(int start) {
    unsigned long long n = (unsigned long long)start;
    int steps = 0;
    while (n > 1) {
        n = (n & 1) ? 3 * n + 1 : n >> 1;
        steps++;
    }
    return steps;
}
