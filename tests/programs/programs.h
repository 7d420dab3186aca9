/* Helpers shared by the whole-program corpus (tests/programs/README.md):
 * a deterministic pseudo-random generator and exact printers. Every program
 * prints its results on stdout; float values are printed with %a (exact),
 * float reductions on lines starting with "approx " (compared with a
 * relative tolerance, since a vectorized reduction adds in another order). */
#ifndef LANEWISE_PROGRAMS_H
#define LANEWISE_PROGRAMS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t lw_seed = 0x12345678u;

static inline uint32_t lw_next(void) {
    lw_seed = lw_seed * 1664525u + 1013904223u;
    return lw_seed;
}

/* Uniform in [lo, hi), from 24 random bits: exactly reproducible. */
static inline float lw_float(float lo, float hi) {
    return lo + (hi - lo) * (float)(lw_next() >> 8) * (1.0f / 16777216.0f);
}

static inline double lw_double(double lo, double hi) {
    return lo + (hi - lo) * (double)(lw_next() >> 8) * (1.0 / 16777216.0);
}

static inline int lw_int(int lo, int hi) {
    return lo + (int)(lw_next() % (uint32_t)(hi - lo + 1));
}

/* FNV-1a over 32-bit words (read with memcpy: no aliasing assumptions). */
static inline uint32_t lw_hash_words(const void *data, int words) {
    const unsigned char *bytes = (const unsigned char *)data;
    uint32_t hash = 2166136261u;
    for (int i = 0; i < words; i++) {
        uint32_t word;
        memcpy(&word, bytes + 4 * (size_t)i, sizeof word);
        hash ^= word;
        hash *= 16777619u;
    }
    return hash;
}

/* Bit hash of the array and a few elements, exact. */
static inline void lw_print_floats(const char *label, const float *values, int count) {
    printf("%s: n=%d hash=%08x", label, count, lw_hash_words(values, count));
    for (int i = 0; i < count && i < 4; i++) printf(" %a", values[i]);
    if (count > 4) printf(" ... %a", values[count - 1]);
    printf("\n");
}

static inline void lw_print_doubles(const char *label, const double *values, int count) {
    printf("%s: n=%d hash=%08x", label, count, lw_hash_words(values, 2 * count));
    for (int i = 0; i < count && i < 4; i++) printf(" %a", values[i]);
    if (count > 4) printf(" ... %a", values[count - 1]);
    printf("\n");
}

static inline void lw_print_ints(const char *label, const int *values, int count) {
    printf("%s: n=%d hash=%08x", label, count, lw_hash_words(values, count));
    for (int i = 0; i < count && i < 6; i++) printf(" %d", values[i]);
    if (count > 6) printf(" ... %d", values[count - 1]);
    printf("\n");
}

/* Benchmark hook (bench/programs, scripts/bench-programs.sh): built with
 * -DBENCH=N, every LW_TIMED kernel runs once untimed, then N times, and the
 * total time of the N runs is printed on stderr at exit. Without BENCH they
 * run once and nothing is timed or printed. Kernels overwrite their outputs, so repeating
 * them does not change what main prints. */
#ifdef BENCH
#include <time.h>
static double lw_kernel_seconds;
static inline double lw_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
__attribute__((destructor)) static void lw_print_kernel_time(void) {
    fprintf(stderr, "lanewise-bench kernel-seconds %.9f\n", lw_kernel_seconds);
}
#define LW_TIMED(...)                                                        \
    do {                                                                     \
        __VA_ARGS__; /* warm-up: caches, page faults of first writes */      \
        double lw_start = lw_now();                                          \
        for (int lw_repeat = 0; lw_repeat < (BENCH); lw_repeat++) {          \
            __VA_ARGS__;                                                     \
        }                                                                    \
        lw_kernel_seconds += lw_now() - lw_start;                            \
    } while (0)
#else
#define LW_TIMED(...)                                                        \
    do {                                                                     \
        __VA_ARGS__;                                                         \
    } while (0)
#endif

#endif
