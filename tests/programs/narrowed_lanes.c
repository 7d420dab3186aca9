/* A divergent loop whose lanes leave in chosen patterns: Lanewise compacts
 * the lanes still live into half-width vectors once at most half of them
 * are live (after 16 iterations), and again at a quarter. With W = 32 lanes
 * (AVX-512; 16 on AVX2) each chunk of 32 iterations leaves exactly W/2,
 * W/2 + 1, W/4, W/4 + 1, 1 or 0 lanes live at the first check after 16
 * iterations, in the lower half of the lanes, the upper half or both, and
 * the loop gathers from a table and takes a lane-dependent value in. */
#include "programs.h"

#define W 32
#define CHUNKS 14
#define N (CHUNKS * W + 7)

static int limits[N], seeds[N], out[N], steps[N], table[256];

/* The trip count of lane `lane` of chunk `chunk`. */
static int limit_of(int chunk, int lane) {
    int lower = lane < W / 2;
    switch (chunk) {
    case 0: return lower ? 40 + lane : 3; /* W/2 live, lower half */
    case 1: return lower ? 2 : 30 + lane; /* W/2 live, upper half */
    case 2: return lane % 2 ? 25 + lane : 5; /* W/2 live, both halves */
    case 3: return lane <= W / 2 ? 20 + lane : 1; /* W/2 + 1 live */
    case 4: return lane == W - 1 ? 77 : 4; /* 1 live */
    case 5: return 33; /* all leave together: 0 live */
    case 6: return 0; /* no iteration */
    case 7: return lane % 4 == 1 ? 60 + lane : 17 + lane % 3; /* W/4, then compaction to W/8 */
    case 8: return lane < W / 4 + 1 ? 50 : (lane < W / 2 ? 30 : 2); /* W/2 then W/4 + 1 live */
    case 9: return lane < W / 2 ? 18 : 17; /* W/2 live for one iteration */
    case 10: return lane == 0 ? 0 : 20 + lane; /* W - 1 lanes enter */
    default: return lw_int(0, 90); /* random */
    }
}

static void kernel(int n) {
#pragma omp simd
    for (int i = 0; i < n; i++) {
        unsigned x = (unsigned)seeds[i];
        int k = 0;
        while (k < limits[i]) {
            x = x * 1103515245u + 12345u + (unsigned)i;
            if (x & 0x100u) x ^= (unsigned)table[x & 255u];
            k++;
        }
        out[i] = (int)(x >> 3);
        steps[i] = k;
    }
}

int main(void) {
    for (int j = 0; j < 256; j++) table[j] = (int)lw_next();
    for (int i = 0; i < N; i++) {
        limits[i] = limit_of(i / W, i % W);
        seeds[i] = (int)lw_next();
    }
    LW_TIMED(kernel(N));
    lw_print_ints("out", out, N);
    lw_print_ints("steps", steps, N);
    /* The tail (n % W lanes, masked) and shorter runs. */
    int sizes[] = {0, 1, W / 2, W / 2 + 1, W + 3};
    for (int s = 0; s < 5; s++) {
        for (int i = 0; i < N; i++) out[i] = steps[i] = -1;
        kernel(sizes[s]);
        printf("n=%d hash=%08x %08x\n", sizes[s], lw_hash_words(out, N), lw_hash_words(steps, N));
    }
    return 0;
}
