// The driver of the SLP benchmark (bench/slp/README.md): one process linked
// with every kernel of kernels.h in four builds, NAME_scalar, NAME_llvm,
// NAME_gcc and NAME_lw (lanewise). All but the scalar build are weak: a
// kernel lanewise failed to build is linked without it, its address is NULL
// and its cell says n/a (the test crates/lanewise/tests/slp_kernels.rs links
// the scalar and lanewise builds only).
//
// Per kernel: deterministic inputs (xorshift, fixed seed per kernel), each
// build run once on the same inputs in a forked child (a crash or a hang of
// over 60 s is a failure of that build: CRASHED), its outputs compared byte
// for byte (memcmp) with the scalar build's (a difference is a failure: the
// cell says MISMATCH; a failed build is not timed and the exit status is 1;
// outputs start as 0xA5 bytes, so an element not written differs), then the builds
// timed: BENCH_RUNS rounds (default 9), each round timing every build once
// (the build starting the round rotates), each timing REPS calls over
// BENCH_ITEMS items (default 4096); REPS is chosen once per kernel so that
// the scalar build takes about 10 ms. The median of the rounds counts.
// Times are the thread's CPU time (CLOCK_THREAD_CPUTIME_ID): time the
// thread spends descheduled, which other processes on the machine cause,
// is not counted.
//
// Output: a markdown table on stdout (one row per kernel: scalar ns/item,
// speedup of each other build over scalar, the fastest build and those
// within TIE of it, the kernel's pattern), then the geometric means and the number of kernels
// each build wins alone; diagnostics on stderr. Arguments: kernel names to
// run (default: all).
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"

enum { BUILD_SCALAR, BUILD_LLVM, BUILD_GCC, BUILD_LANEWISE, NBUILDS };
static const char *const build_names[NBUILDS] = {"scalar", "llvm-slp", "gcc-slp", "lanewise"};

typedef void any_fn(void);
struct kernel {
    const char *name, *pattern;
    int nargs;
    struct slp_arg args[SLP_MAX_ARGS];
    void (*call)(any_fn *f, long n, void *const *p);
    any_fn *fn[NBUILDS];
};

#define DECLARE_BUILDS(NAME, PATTERN, PARAMS, NARGS, ...)                    \
    typedef void NAME##_fn PARAMS;                                           \
    extern NAME##_fn NAME##_scalar;                                          \
    extern NAME##_fn NAME##_llvm __attribute__((weak));                      \
    extern NAME##_fn NAME##_gcc __attribute__((weak));                       \
    extern NAME##_fn NAME##_lw __attribute__((weak));                        \
    static void NAME##_call(any_fn *f, long n, void *const *p) {             \
        SLP_CALL_##NARGS(NAME##_fn, f, n, p);                                \
    }
SLP_KERNELS(DECLARE_BUILDS)

#define KERNEL_ROW(NAME, PATTERN, PARAMS, NARGS, ...)                        \
    {#NAME,                                                                  \
     PATTERN,                                                                \
     NARGS,                                                                  \
     {__VA_ARGS__},                                                          \
     NAME##_call,                                                            \
     {(any_fn *)NAME##_scalar, (any_fn *)NAME##_llvm, (any_fn *)NAME##_gcc,  \
      (any_fn *)NAME##_lw}},
static const struct kernel kernels[] = {SLP_KERNELS(KERNEL_ROW)};
#define NKERNELS ((int)(sizeof kernels / sizeof kernels[0]))

static uint64_t rng_state;
static uint32_t next_u32(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}
// Uniform in [0, 1): 24 random bits for float arguments, 53 for double ones
// (with 24-bit doubles every product would be exact, and a fused
// multiply-add, which -ffp-contract=off forbids, would go unnoticed).
static enum slp_type fill_type;
static double uniform01(void) {
    if (fill_type == SLP_F64) {
        uint64_t bits = (uint64_t)next_u32() << 32 | next_u32();
        return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
    }
    return (next_u32() >> 8) * (1.0 / 16777216.0);
}

static size_t type_size(enum slp_type t) {
    switch (t) {
    case SLP_F32: return 4;
    case SLP_F64: return 8;
    case SLP_U8: return 1;
    case SLP_U32: return 4;
    }
    return 1;
}

static void store_real(const struct slp_arg *a, void *buf, size_t k, double x) {
    if (a->type == SLP_F32)
        ((float *)buf)[k] = (float)x;
    else
        ((double *)buf)[k] = x;
}

// Fills the n items of argument a (an input, or the initial value of an
// in/out argument).
static void fill(const struct slp_arg *a, void *buf, long n) {
    size_t count = (size_t)n * (size_t)a->per_item;
    fill_type = a->type;
    switch (a->fill) {
    case SLP_FILL_NONE: break;
    case SLP_FILL_SIGNED:
        for (size_t k = 0; k < count; k++) store_real(a, buf, k, 2.0 * uniform01() - 1.0);
        break;
    case SLP_FILL_POSITIVE:
        for (size_t k = 0; k < count; k++) store_real(a, buf, k, 0.5 + 1.5 * uniform01());
        break;
    case SLP_FILL_FRACTION:
        for (size_t k = 0; k < count; k++) store_real(a, buf, k, uniform01());
        break;
    case SLP_FILL_UNIT_QUAT:
        for (size_t k = 0; k + 4 <= count; k += 4) {
            double q[4], norm2;
            do {
                norm2 = 0;
                for (int j = 0; j < 4; j++) {
                    q[j] = 2.0 * uniform01() - 1.0;
                    norm2 += q[j] * q[j];
                }
            } while (norm2 < 0.01 || norm2 > 1.0);
            for (int j = 0; j < 4; j++) store_real(a, buf, k + j, q[j] / sqrt(norm2));
        }
        break;
    case SLP_FILL_TWIDDLE:
        for (size_t k = 0; k + 2 <= count; k += 2) {
            double t = 2.0 * M_PI * uniform01();
            store_real(a, buf, k, cos(t));
            store_real(a, buf, k + 1, sin(t));
        }
        break;
    case SLP_FILL_PARTICLE:
        for (size_t k = 0; k + 8 <= count; k += 8) {
            for (int j = 0; j < 3; j++) store_real(a, buf, k + j, 2.0 * uniform01() - 1.0);
            store_real(a, buf, k + 3, 0.5 + 1.5 * uniform01());
            for (int j = 4; j < 7; j++) store_real(a, buf, k + j, 2.0 * uniform01() - 1.0);
            store_real(a, buf, k + 7, uniform01());
        }
        break;
    case SLP_FILL_BITS:
        for (size_t k = 0; k < count * type_size(a->type); k++)
            ((uint8_t *)buf)[k] = (uint8_t)next_u32();
        break;
    }
}

static void *alloc_bytes(size_t bytes) {
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p) {
        fprintf(stderr, "bench-slp: out of memory\n");
        exit(2);
    }
    return p;
}

// Writable arguments live in shared memory (page-aligned), so that the check
// run in a child process leaves its outputs where the parent compares them.
static void *alloc_shared(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "bench-slp: out of memory\n");
        exit(2);
    }
    return p;
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int count) {
    qsort(v, (size_t)count, sizeof *v, compare_doubles);
    return count % 2 ? v[count / 2] : (v[count / 2 - 1] + v[count / 2]) / 2;
}

static long env_long(const char *name, long fallback, long min) {
    const char *s = getenv(name);
    if (!s || !*s) return fallback;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < min) {
        fprintf(stderr, "bench-slp: %s=%s: expected an integer >= %ld\n", name, s, min);
        exit(2);
    }
    return v;
}

// The buffers of one kernel run: args[j] is what the kernel gets.
struct buffers {
    void *args[SLP_MAX_ARGS];
};

// Resets the writable arguments of b before a run: in/out ones to their
// initial value, outputs to a poison pattern (so an element a build does not
// write differs from one the scalar build writes).
static void reset(const struct kernel *k, struct buffers *b, void *const *initial, long n) {
    for (int j = 0; j < k->nargs; j++) {
        size_t bytes = (size_t)n * (size_t)k->args[j].per_item * type_size(k->args[j].type);
        if (k->args[j].dir == SLP_INOUT)
            memcpy(b->args[j], initial[j], bytes);
        else if (k->args[j].dir == SLP_OUT)
            memset(b->args[j], 0xA5, bytes);
    }
}

// Describes the first byte where the outputs of build `got` differ from the
// scalar ones: argument, item, element, both values.
static void report_mismatch(const struct kernel *k, int build, struct buffers *ref,
                            struct buffers *got, long n) {
    for (int j = 0; j < k->nargs; j++) {
        const struct slp_arg *a = &k->args[j];
        if (a->dir == SLP_IN) continue;
        size_t size = type_size(a->type);
        size_t count = (size_t)n * (size_t)a->per_item;
        for (size_t e = 0; e < count; e++) {
            const uint8_t *x = (const uint8_t *)ref->args[j] + e * size;
            const uint8_t *y = (const uint8_t *)got->args[j] + e * size;
            if (!memcmp(x, y, size)) continue;
            size_t differing = 0;
            for (size_t f = 0; f < count; f++)
                differing += memcmp((const uint8_t *)ref->args[j] + f * size,
                                    (const uint8_t *)got->args[j] + f * size, size) != 0;
            fprintf(stderr,
                    "bench-slp: MISMATCH %s %s: argument %d, item %zu element %zu "
                    "(%zu of %zu elements differ): scalar ",
                    k->name, build_names[build], j + 1, e / (size_t)a->per_item,
                    e % (size_t)a->per_item, differing, count);
            for (int pass = 0; pass < 2; pass++) {
                const void *v = pass ? y : x;
                switch (a->type) {
                case SLP_F32: fprintf(stderr, "%.9g", *(const float *)v); break;
                case SLP_F64: fprintf(stderr, "%.17g", *(const double *)v); break;
                case SLP_U8: fprintf(stderr, "%u", *(const uint8_t *)v); break;
                case SLP_U32: fprintf(stderr, "%#x", *(const uint32_t *)v); break;
                }
                fprintf(stderr, pass ? "\n" : ", %s ", build_names[build]);
            }
            return;
        }
    }
}

enum status { NOT_BUILT, MISMATCH, CRASHED, OK };

// Builds whose median is within this factor of the fastest one's tie with it
// (the medians of one build move by about that much between runs).
#define TIE 1.03

int main(int argc, char **argv) {
    int runs = (int)env_long("BENCH_RUNS", 9, 1);
    long n = env_long("BENCH_ITEMS", 4096, 1);
    const double target_ns = 1e7; // scalar time of one timing
    double log_sum[NBUILDS] = {0};
    int log_count[NBUILDS] = {0}, wins[NBUILDS] = {0}, ties = 0, failures = 0, measured = 0;

    printf("| kernel | scalar ns/item | llvm-slp | gcc-slp | lanewise | fastest | SLP pattern |\n");
    printf("| --- | ---: | ---: | ---: | ---: | --- | --- |\n");
    for (int ki = 0; ki < NKERNELS; ki++) {
        const struct kernel *k = &kernels[ki];
        if (argc > 1) {
            int wanted = 0;
            for (int a = 1; a < argc; a++) wanted |= !strcmp(argv[a], k->name);
            if (!wanted) continue;
        }
        measured++;
        // Inputs and the initial values of in/out arguments, shared by all builds.
        void *initial[SLP_MAX_ARGS] = {0};
        rng_state = 0x9e3779b97f4a7c15ull ^ (uint64_t)(ki + 1) * 0x100000001b3ull;
        for (int j = 0; j < k->nargs; j++) {
            size_t bytes = (size_t)n * (size_t)k->args[j].per_item * type_size(k->args[j].type);
            initial[j] = alloc_bytes(bytes);
            fill(&k->args[j], initial[j], n);
        }
        struct buffers buf[NBUILDS];
        enum status status[NBUILDS];
        for (int b = 0; b < NBUILDS; b++) {
            status[b] = k->fn[b] ? OK : NOT_BUILT;
            for (int j = 0; j < k->nargs; j++) {
                size_t bytes =
                    (size_t)n * (size_t)k->args[j].per_item * type_size(k->args[j].type);
                buf[b].args[j] =
                    k->args[j].dir == SLP_IN ? initial[j] : alloc_shared(bytes);
            }
        }
        // Check: one run of every build on the same inputs, each in a child
        // process (a build that crashes or hangs fails alone), outputs
        // against scalar's.
        for (int b = 0; b < NBUILDS; b++) {
            if (status[b] != OK) continue;
            fflush(stdout);
            fflush(stderr);
            pid_t child = fork();
            if (child < 0) {
                perror("bench-slp: fork");
                return 2;
            }
            if (child == 0) {
                alarm(60);
                reset(k, &buf[b], initial, n);
                k->call(k->fn[b], n, buf[b].args);
                _exit(0);
            }
            int wstatus;
            if (waitpid(child, &wstatus, 0) < 0) {
                perror("bench-slp: waitpid");
                return 2;
            }
            if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
                fprintf(stderr, "bench-slp: CRASH %s %s: %s %d\n", k->name, build_names[b],
                        WIFSIGNALED(wstatus) ? "killed by signal" : "exit status",
                        WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : WEXITSTATUS(wstatus));
                if (b == BUILD_SCALAR) return 2;
                status[b] = CRASHED;
                failures++;
            }
        }
        for (int b = 1; b < NBUILDS; b++) {
            if (status[b] != OK) continue;
            for (int j = 0; j < k->nargs; j++) {
                size_t bytes =
                    (size_t)n * (size_t)k->args[j].per_item * type_size(k->args[j].type);
                if (k->args[j].dir != SLP_IN &&
                    memcmp(buf[0].args[j], buf[b].args[j], bytes)) {
                    status[b] = MISMATCH;
                }
            }
            if (status[b] == MISMATCH) {
                report_mismatch(k, b, &buf[0], &buf[b], n);
                failures++;
            }
        }
        // Calibrate: REPS calls of the scalar build take about target_ns.
        reset(k, &buf[0], initial, n);
        double t0 = now_ns();
        k->call(k->fn[0], n, buf[0].args);
        double one = now_ns() - t0;
        long reps = one > 0 ? (long)(target_ns / one) : 1000;
        if (reps < 1) reps = 1;
        if (reps > 100000) reps = 100000;
        // Time: rounds over the builds, starting with a different one each round.
        double *times[NBUILDS];
        for (int b = 0; b < NBUILDS; b++) times[b] = calloc((size_t)runs, sizeof(double));
        for (int r = -1; r < runs; r++) { // round -1 warms up
            for (int i = 0; i < NBUILDS; i++) {
                int b = (i + (r < 0 ? 0 : r)) % NBUILDS;
                if (status[b] != OK) continue;
                reset(k, &buf[b], initial, n);
                double start = now_ns();
                for (long rep = 0; rep < reps; rep++) k->call(k->fn[b], n, buf[b].args);
                double elapsed = now_ns() - start;
                if (r >= 0) times[b][r] = elapsed;
            }
        }
        double ns_per_item[NBUILDS];
        int fastest = 0;
        for (int b = 0; b < NBUILDS; b++) {
            if (status[b] != OK) continue;
            ns_per_item[b] = median(times[b], runs) / ((double)reps * (double)n);
            if (ns_per_item[b] < ns_per_item[fastest]) fastest = b;
        }
        printf("| %s | %.2f |", k->name, ns_per_item[0]);
        log_sum[0] += log(ns_per_item[0]);
        log_count[0]++;
        for (int b = 1; b < NBUILDS; b++) {
            if (status[b] == NOT_BUILT) {
                printf(" n/a |");
            } else if (status[b] == MISMATCH) {
                printf(" MISMATCH |");
            } else if (status[b] == CRASHED) {
                printf(" CRASHED |");
            } else {
                double speedup = ns_per_item[0] / ns_per_item[b];
                printf(" %.2fx |", speedup);
                log_sum[b] += log(speedup);
                log_count[b]++;
            }
        }
        int tied = 0;
        printf(" %s", build_names[fastest]);
        for (int b = 0; b < NBUILDS; b++) {
            if (b != fastest && status[b] == OK && ns_per_item[b] <= ns_per_item[fastest] * TIE) {
                printf(" = %s", build_names[b]);
                tied = 1;
            }
        }
        printf(" | %s |\n", k->pattern);
        if (tied)
            ties++;
        else
            wins[fastest]++;
        fflush(stdout);
        fprintf(stderr, "bench-slp: %s: %ld calls of %ld items per timing, %d timings per build\n",
                k->name, reps, n, runs);
        for (int b = 0; b < NBUILDS; b++) {
            free(times[b]);
            for (int j = 0; j < k->nargs; j++)
                if (k->args[j].dir != SLP_IN)
                    munmap(buf[b].args[j], (size_t)n * (size_t)k->args[j].per_item *
                                               type_size(k->args[j].type));
        }
        for (int j = 0; j < k->nargs; j++) free(initial[j]);
    }
    if (!measured) {
        fprintf(stderr, "bench-slp: no kernel of that name\n");
        return 2;
    }
    printf("| geometric mean |");
    printf(" %.2f |", exp(log_sum[0] / log_count[0]));
    for (int b = 1; b < NBUILDS; b++) {
        if (log_count[b])
            printf(" %.2fx%s |", exp(log_sum[b] / log_count[b]),
                   log_count[b] < measured ? " (see below)" : "");
        else
            printf(" n/a |");
    }
    printf(" | |\n\n");
    printf("Kernels won (fastest by more than %.0f%%):", (TIE - 1) * 100);
    for (int b = 0; b < NBUILDS; b++)
        printf(" %s %d%s", build_names[b], wins[b], b + 1 < NBUILDS ? "," : "");
    printf("; ties (several builds within %.0f%% of the fastest, `=` in the table): %d; "
           "of %d kernels.\n",
           (TIE - 1) * 100, ties, measured);
    for (int b = 1; b < NBUILDS; b++)
        if (log_count[b] && log_count[b] < measured)
            printf("\nThe %s geometric mean is over the %d of %d kernels it built and matched "
                   "scalar on.\n",
                   build_names[b], log_count[b], measured);
    if (failures) {
        printf("\n**%d build(s) of kernels gave other bits than the scalar build (MISMATCH) "
               "or crashed.**\n",
               failures);
        fprintf(stderr, "bench-slp: %d mismatch(es) or crash(es) against scalar\n", failures);
        return 1;
    }
    return 0;
}
