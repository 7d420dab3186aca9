// Covers (divergent): nested loops left from the inner loop through several
// levels at once (goto out of two and three loops, a flag-free exit), with
// varying exit conditions: exits that leave two loops, live-out values of
// the inner loop, and the loop that continues for the other lanes.
#pragma omp declare simd
int find_pair(int target) {
    unsigned goal = (unsigned)target % 97u;
    int i, j;
    for (i = 1; i < 12; i++) {
        for (j = 1; j < 12; j++) {
            if ((unsigned)(i * j + i + j) % 97u == goal)
                goto found;
        }
    }
    return -1;
found:
    return i * 100 + j;
}

#pragma omp declare simd uniform(limit)
int three_level_exit(int seed, int limit) {
    unsigned state = (unsigned)seed;
    int bound = (limit & 7) + 2;
    int total = 0;
    for (int a = 0; a < bound; a++) {
        for (int b = 0; b < bound; b++) {
            for (int c = 0; c < bound; c++) {
                state = state * 1103515245u + 12345u;
                if ((state >> 28) == 7u)
                    goto out;
                if ((state >> 29) == 3u)
                    goto next_a;
                total += a + b * c;
            }
        }
    next_a:;
    }
out:
    return total + (int)(state & 255u);
}

#pragma omp declare simd
float break_inner_continue_outer(float x) {
    float sum = 0.0f;
    for (int row = 0; row < 6; row++) {
        float value = x + (float)row;
        for (int column = 0; column < 6; column++) {
            value = value * 0.5f + 1.0f;
            if (value > 3.0f + (float)column)
                break;
            sum += value;
        }
        if (sum > 40.0f)
            break;
    }
    return sum;
}
