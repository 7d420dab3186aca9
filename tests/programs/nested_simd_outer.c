/* The simd loop outside: each lane runs an inner scalar loop whose trip count
 * depends on the lane (a divergent loop in the simd body). */
#include "programs.h"

#define N 1003
#define MAXLEN 64

static int lengths[N];
static float rows[N][MAXLEN], sums[N], peaks[N];

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float sum = 0.0f, peak = -1.0f;
        for (int k = 0; k < lengths[i]; k++) {
            float v = rows[i][k];
            sum += v;
            if (v > peak) peak = v;
        }
        sums[i] = sum;
        peaks[i] = peak;
    }
}

int main(void) {
    for (int i = 0; i < N; i++) {
        lengths[i] = lw_int(0, MAXLEN);
        for (int k = 0; k < MAXLEN; k++) rows[i][k] = lw_float(-1.0f, 1.0f);
    }
    LW_TIMED(kernel(N));
    lw_print_floats("sums", sums, N);
    lw_print_floats("peaks", peaks, N);
    return 0;
}
