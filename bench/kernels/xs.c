// XSBench-style lookup (irregular): the macroscopic cross section of a
// material at `energy`: for each nuclide, a binary search of its sorted
// energy grid (lanes take different paths), a linear interpolation between
// the two bracketing grid points, gathers of 5 reaction channels, summed
// weighted by the nuclide's concentration. Returns the sum over channels.
#pragma omp declare simd uniform(grids, data, concentration, nuclides, points) notinbranch
float xs(const float *grids, const float *data, const float *concentration, int nuclides,
         int points, float energy) {
    float total = 0.0f;
    for (int n = 0; n < nuclides; n++) {
        const float *grid = grids + n * points;
        int lower = 0, upper = points - 1;
        while (upper - lower > 1) {
            int middle = (lower + upper) / 2;
            if (grid[middle] > energy) upper = middle;
            else lower = middle;
        }
        float f = (energy - grid[lower]) / (grid[upper] - grid[lower]);
        const float *low = data + (n * points + lower) * 5, *high = low + 5;
        float sum = 0.0f;
        for (int channel = 0; channel < 5; channel++)
            sum += low[channel] + f * (high[channel] - low[channel]);
        total += concentration[n] * sum;
    }
    return total;
}
