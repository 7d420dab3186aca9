// Rising runs (irregular: a divergent loop with four live-outs): from
// position `start`, follow the sequence while it keeps rising; the result
// combines the run's length, the sum of its values, its steepest step and
// its last value.
#pragma omp declare simd uniform(values, n) notinbranch
int rising_run(const int *values, int n, int start) {
    int i = start, length = 0, steepest = 0, last = values[start];
    unsigned sum = 0;
    while (i + 1 < n && values[i + 1] > values[i]) {
        int step = values[i + 1] - values[i];
        steepest = step > steepest ? step : steepest;
        sum += (unsigned)values[i + 1];
        length++;
        i++;
        last = values[i];
    }
    return length * 7 + (int)(sum & 1023) * 3 + steepest + last;
}
