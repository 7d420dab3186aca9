/* Calls the 16-lane (float) and 8-lane (double) AVX-512 variants of
 * glow.c built with WFV-SLP (`packed_*`) and without (`plain_*`) on inputs
 * with every number of active lanes, and compares the results bit for bit
 * in every lane. Exit status 1 on a difference. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__m512 packed_glow(__m512 x, __m512 y, __m512 z, float k);
__m512 plain_glow(__m512 x, __m512 y, __m512 z, float k);
__m512d packed_glow2(__m512d x, __m512d y, double k);
__m512d plain_glow2(__m512d x, __m512d y, double k);

int main(void) {
    srand(11);
    int differences = 0, checked = 0;
    for (int active = 0; active <= 16; active++)
        for (int trial = 0; trial < 64; trial++) {
            float x[16], y[16], z[16];
            for (int lane = 0; lane < 16; lane++) {
                x[lane] = (float)(rand() % 900) / 1000.0f;
                y[lane] = (float)(rand() % 4000) / 1000.0f - 2.0f;
                z[lane] = (float)(rand() % 4000) / 1000.0f - 2.0f;
            }
            for (int set = 0; set < active;) {
                int lane = rand() % 16;
                if (x[lane] <= 0.9f) {
                    x[lane] = 0.95f + (float)(rand() % 1000) / 1000.0f;
                    set++;
                }
            }
            __m512 vx = _mm512_loadu_ps(x), vy = _mm512_loadu_ps(y), vz = _mm512_loadu_ps(z);
            __m512 a = packed_glow(vx, vy, vz, 0.7f), b = plain_glow(vx, vy, vz, 0.7f);
            checked++;
            if (memcmp(&a, &b, sizeof a) != 0 && differences++ < 5)
                printf("glow: %d active lanes, trial %d: results differ\n", active, trial);
            if (active > 8) continue;
            double dx[8], dy[8];
            for (int lane = 0; lane < 8; lane++) {
                dx[lane] = x[lane] > 0.9f ? 0.75 : 0.25;
                dy[lane] = y[lane];
            }
            __m512d vdx = _mm512_loadu_pd(dx), vdy = _mm512_loadu_pd(dy);
            __m512d c = packed_glow2(vdx, vdy, 0.3), d = plain_glow2(vdx, vdy, 0.3);
            checked++;
            if (memcmp(&c, &d, sizeof c) != 0 && differences++ < 5)
                printf("glow2: trial %d: results differ\n", trial);
        }
    printf("wfv_slp: %d of %d calls differ\n", differences, checked);
    return differences != 0;
}
