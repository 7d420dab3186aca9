// The timing harness of the benchmark suite (bench/README.md).
//
// One process per kernel: the driver (bench/drivers/NAME.c) generates the
// inputs, defines one run function per configuration and calls bench_main().
// bench_main():
//   1. runs the scalar configuration once: its output is the reference;
//   2. runs every other configuration once in a forked child (so a crash or a
//      hang of one configuration cannot take the others down) and compares
//      its output with the reference: bit-exact, or within the kernel's
//      documented relative tolerance when the configuration calls libmvec;
//   3. times the configurations that passed, interleaved (round r runs every
//      configuration once), BENCH_REPEATS rounds after one warm-up round, and
//      prints the median of each.
// Output (stdout, tab-separated, read by bench/report.py):
//   kernel  NAME  CLASS  INPUT  ITEMS
//   config  CONFIG  ok       MEDIAN_MS  MIN_MS  CHECK
//   config  CONFIG  not-run  REASON
//   config  CONFIG  failed   REASON
// A driver includes this header exactly once (it defines static functions).
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

// The loop part of a driver (BENCH_LOOP defined) is compiled twice: by clang
// with the kernel in the same translation unit (clang omp), and by GCC with
// only the kernel's `declare simd` declaration, so that GCC's vectorized loop
// calls the simd clones in the GCC-compiled kernel object. Driver globals are
// defined in the driver part and declared `extern` in the loop part. GCC has
// no ext_vector_type, so the loop part sees nothing else of this header.
// SWEEPS (default 1; a driver defines it before including this header)
// repeats the pass over the items, for kernels too cheap per item.
#ifndef SWEEPS
#define SWEEPS 1
#endif
#ifdef BENCH_LOOP
#define BENCH_GLOBAL extern
#define BENCH_OMP_LOOP(T, KERNEL_FN)                                      \
    void omp_loop(T *out) {                                               \
        for (int sweep = 0; sweep < SWEEPS; sweep++) {                    \
            _Pragma("omp simd") for (int i = 0; i < ITEMS; i++) out[i] = \
                SCALAR_CALL(KERNEL_FN, i);                                \
        }                                                                 \
    }
#else
#define BENCH_GLOBAL

#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));
typedef float v16f __attribute__((ext_vector_type(16)));
typedef int v16i __attribute__((ext_vector_type(16)));

static inline v8f ld8f(const float *p) { v8f v; memcpy(&v, p, sizeof v); return v; }
static inline v8i ld8i(const int *p) { v8i v; memcpy(&v, p, sizeof v); return v; }
static inline void st8f(float *p, v8f v) { memcpy(p, &v, sizeof v); }
static inline void st8i(int *p, v8i v) { memcpy(p, &v, sizeof v); }

// Functions that call AVX-512 variants must pass 512-bit vectors in zmm
// registers; they only run after bench_host_has_avx512f() said yes.
#define BENCH_AVX512_TARGET __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#define BENCH_AVX512 BENCH_AVX512_TARGET __attribute__((noinline))
BENCH_AVX512_TARGET static inline v16f ld16f(const float *p) {
    v16f v;
    memcpy(&v, p, sizeof v);
    return v;
}
BENCH_AVX512_TARGET static inline v16i ld16i(const int *p) {
    v16i v;
    memcpy(&v, p, sizeof v);
    return v;
}
BENCH_AVX512_TARGET static inline void st16f(float *p, v16f v) { memcpy(p, &v, sizeof v); }
BENCH_AVX512_TARGET static inline void st16i(int *p, v16i v) { memcpy(p, &v, sizeof v); }

// Configuration names, in report order.
#define CONFIG_SCALAR "scalar"
#define CONFIG_CLANG_OMP "clang-omp"
#define CONFIG_GCC "gcc"
#define CONFIG_LANEWISE_W8 "lanewise-w8"
#define CONFIG_LANEWISE_W16 "lanewise-w16"
#define CONFIG_LANEWISE_FULL "lanewise-full"
#define CONFIG_HAND "hand"

// Lanewise variants are declared weak: when `lanewise` rejected a kernel the
// build links without its object, the variant's address is NULL and the
// configuration reports the reason the build script exported in
// BENCH_NOT_RUN_lanewise / BENCH_NOT_RUN_lanewise_full (lanewise's error line).
#define BENCH_WEAK __attribute__((weak))
// The declaration of a 16-lane variant: weak, and taking zmm arguments.
#define BENCH_WEAK_AVX512 __attribute__((weak)) BENCH_AVX512_TARGET

enum bench_output_kind { BENCH_F32, BENCH_I32 };

typedef struct {
    const char *name;       // one of CONFIG_*
    void (*run)(void);      // runs the whole workload once, writing `output`
    void *output;           // items elements of the kernel's output kind
    const char *not_run;    // non-NULL: the configuration cannot run, and why
    int uses_libmvec;       // compared with the kernel's tolerance, not bit-exactly
    int needs_avx512;       // not run unless the host has avx512f
    int needs_symbol;       // a lanewise configuration: runs only if `symbol` linked
    const void *symbol;     // the variant it calls (declared weak: NULL when not built)
    const char *reason_variable;  // environment variable holding why it was not built
} bench_config;

typedef struct {
    const char *name;
    const char *kernel_class;  // "coherent" or "irregular"
    const char *const *inputs; // NULL-terminated input variant names; the first is the default
    void (*setup)(const char *input);
    int items;                 // output elements per run
    enum bench_output_kind kind;
    double tolerance;          // max |a-b| / (1 + |a|) for libmvec configurations
    bench_config *configs;     // configs[0] is the scalar reference
    int config_count;
} bench_kernel;

static double bench_now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int bench_compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

// Checks /proc/cpuinfo (the flags line) for avx512f.
static int bench_host_has_avx512f(void) {
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    if (!cpuinfo) return __builtin_cpu_supports("avx512f");
    char line[8192];
    int found = 0;
    while (fgets(line, sizeof line, cpuinfo)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        found = strstr(line, " avx512f ") != NULL || strstr(line, " avx512f\n") != NULL;
        break;
    }
    fclose(cpuinfo);
    return found;
}

// Why a lanewise configuration was not built: the build script exports
// BENCH_NOT_RUN_<CONFIG> (dashes as underscores) with lanewise's error line.
static const char *bench_build_reason(const char *variable) {
    const char *reason = getenv(variable);
    return reason && *reason ? reason : "not built (see target/bench/build/<kernel>/*.log)";
}

// Compares `output` with `reference`; writes a description to `check`.
// Returns 1 when they agree.
static int bench_check(const bench_kernel *kernel, const bench_config *config,
                       const void *reference, const void *output, char *check, size_t size) {
    if (kernel->kind == BENCH_I32) {
        const int *want = reference, *got = output;
        for (int i = 0; i < kernel->items; i++)
            if (want[i] != got[i]) {
                snprintf(check, size, "mismatch at item %d: scalar %d, %s %d", i, want[i],
                         config->name, got[i]);
                return 0;
            }
        snprintf(check, size, "bit-exact");
        return 1;
    }
    const float *want = reference, *got = output;
    int tolerant = config->uses_libmvec && kernel->tolerance > 0;
    double worst = 0;
    for (int i = 0; i < kernel->items; i++) {
        if (isnan(want[i]) && isnan(got[i])) continue;
        if (!tolerant) {
            if (memcmp(&want[i], &got[i], sizeof(float)) != 0) {
                snprintf(check, size, "mismatch at item %d: scalar %.9g, %s %.9g", i, want[i],
                         config->name, got[i]);
                return 0;
            }
            continue;
        }
        double error = fabs((double)want[i] - got[i]) / (1.0 + fabs(want[i]));
        if (!(error <= kernel->tolerance)) {
            snprintf(check, size, "item %d: scalar %.9g, %s %.9g: rel. error %.1e > %.0e", i,
                     want[i], config->name, got[i], error, kernel->tolerance);
            return 0;
        }
        if (error > worst) worst = error;
    }
    if (tolerant)
        snprintf(check, size, "max rel. error %.1e (libmvec, tolerance %.0e)", worst,
                 kernel->tolerance);
    else
        snprintf(check, size, "bit-exact");
    return 1;
}

// Runs `config` once in a child process and checks its output; returns 1 if
// it agreed with the reference, else 0 with the reason in `check`.
static int bench_check_in_child(const bench_kernel *kernel, const bench_config *config,
                                const void *reference, char *check, size_t size) {
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) {
        snprintf(check, size, "pipe failed");
        return 0;
    }
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        alarm(120);  // a configuration that loops forever fails instead of hanging the suite
        config->run();
        char description[512];
        int agrees = bench_check(kernel, config, reference, config->output, description,
                                 sizeof description);
        ssize_t written = write(pipe_fds[1], description, strlen(description));
        (void)written;
        _exit(agrees ? 0 : 1);
    }
    close(pipe_fds[1]);
    ssize_t length = read(pipe_fds[0], check, size - 1);
    check[length > 0 ? length : 0] = 0;
    close(pipe_fds[0]);
    int status = 0;
    waitpid(child, &status, 0);
    if (WIFSIGNALED(status)) {
        int signal_number = WTERMSIG(status);
        snprintf(check, size, "crashed: %s%s", strsignal(signal_number),
                 signal_number == SIGALRM ? " (no result after 120 s)" : "");
        return 0;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int bench_main(int argc, char **argv, bench_kernel *kernel) {
    const char *input = kernel->inputs[0];
    const char *only = NULL;
    int repeats = 5;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--list-inputs")) {
            for (int i = 0; kernel->inputs[i]; i++) printf("%s\n", kernel->inputs[i]);
            return 0;
        } else if (!strcmp(argv[a], "--input") && a + 1 < argc) {
            input = argv[++a];
        } else if (!strcmp(argv[a], "--repeats") && a + 1 < argc) {
            repeats = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--only") && a + 1 < argc) {
            only = argv[++a];
        } else {
            fprintf(stderr,
                    "usage: %s [--list-inputs] [--input NAME] [--repeats N] [--only CONFIG]\n",
                    argv[0]);
            return 2;
        }
    }
    if (repeats < 1 || repeats > 99) repeats = 5;
    int known_input = 0;
    for (int i = 0; kernel->inputs[i]; i++) known_input |= !strcmp(kernel->inputs[i], input);
    if (!known_input) {
        fprintf(stderr, "%s: unknown input %s\n", kernel->name, input);
        return 2;
    }
    kernel->setup(input);
    printf("kernel\t%s\t%s\t%s\t%d\n", kernel->name, kernel->kernel_class, input, kernel->items);

    int host_avx512 = bench_host_has_avx512f();
    bench_config *reference = &kernel->configs[0];
    reference->run();
    int timed[16] = {0};
    char check[16][512];
    for (int c = 0; c < kernel->config_count && c < 16; c++) {
        bench_config *config = &kernel->configs[c];
        if (only && c > 0 && strcmp(config->name, only) != 0) continue;
        if (!config->not_run && config->needs_symbol && !config->symbol)
            config->not_run = bench_build_reason(config->reason_variable);
        if (config->not_run) {
            printf("config\t%s\tnot-run\t%s\n", config->name, config->not_run);
        } else if (config->needs_avx512 && !host_avx512) {
            printf("config\t%s\tnot-run\tnot run: host lacks avx512f\n", config->name);
        } else if (c == 0) {
            snprintf(check[c], sizeof check[c], "reference");
            timed[c] = 1;
        } else if (bench_check_in_child(kernel, config, reference->output, check[c],
                                        sizeof check[c])) {
            timed[c] = 1;
        } else {
            printf("config\t%s\tfailed\t%s\n", config->name, check[c]);
        }
        fflush(stdout);
    }

    double samples[16][100];
    for (int round = -1; round < repeats; round++) {  // round -1 warms up
        for (int c = 0; c < kernel->config_count && c < 16; c++) {
            if (!timed[c]) continue;
            double start = bench_now_seconds();
            kernel->configs[c].run();
            double elapsed = bench_now_seconds() - start;
            if (round >= 0) samples[c][round] = elapsed;
        }
    }
    for (int c = 0; c < kernel->config_count && c < 16; c++) {
        if (!timed[c]) continue;
        qsort(samples[c], repeats, sizeof(double), bench_compare_doubles);
        printf("config\t%s\tok\t%.4f\t%.4f\t%s\n", kernel->configs[c].name,
               samples[c][repeats / 2] * 1e3, samples[c][0] * 1e3, check[c]);
    }
    return 0;
}

// The standard configurations of a driver whose item i is computed by
// SCALAR_CALL(function, i) and whose items i..i+W-1 by VECTOR_CALL(function,
// i, W) (W = 8 or 16). T is the output element type, S its load/store suffix
// (f or i). Defines the output buffers and run_* functions; ITEMS must be a
// multiple of 16. BENCH_STANDARD_CONFIGS lists them for the kernel table.
#define BENCH_STANDARD_RUNNERS(T, S, SCALAR_FN, LW8_FN, LW16_FN, LWFULL_FN)                   \
    void omp_loop_clang(T *out);                                                            \
    void omp_loop_gcc(T *out);                                                              \
    static T out_scalar[ITEMS], out_clang_omp[ITEMS], out_gcc[ITEMS], out_lw8[ITEMS],      \
        out_lw16[ITEMS], out_lwfull[ITEMS];                                                 \
    static void run_scalar(void) {                                                          \
        for (int sweep = 0; sweep < SWEEPS; sweep++)                                        \
            for (int i = 0; i < ITEMS; i++) out_scalar[i] = SCALAR_CALL(SCALAR_FN, i);      \
    }                                                                                       \
    static void run_clang_omp(void) { omp_loop_clang(out_clang_omp); }                      \
    static void run_gcc(void) { omp_loop_gcc(out_gcc); }                                    \
    static void run_lw8(void) {                                                             \
        for (int sweep = 0; sweep < SWEEPS; sweep++)                                        \
            for (int i = 0; i < ITEMS; i += 8)                                              \
                st8##S(&out_lw8[i], VECTOR_CALL(LW8_FN, i, 8));                             \
    }                                                                                       \
    BENCH_AVX512 static void run_lw16(void) {                                               \
        for (int sweep = 0; sweep < SWEEPS; sweep++)                                        \
            for (int i = 0; i < ITEMS; i += 16)                                             \
                st16##S(&out_lw16[i], VECTOR_CALL(LW16_FN, i, 16));                         \
    }                                                                                       \
    static void run_lwfull(void) {                                                          \
        for (int sweep = 0; sweep < SWEEPS; sweep++)                                        \
            for (int i = 0; i < ITEMS; i += 8)                                              \
                st8##S(&out_lwfull[i], VECTOR_CALL(LWFULL_FN, i, 8));                       \
    }

#define BENCH_STANDARD_CONFIGS(LW8_FN, LW16_FN, LWFULL_FN, LIBMVEC)                          \
    {CONFIG_SCALAR, run_scalar, out_scalar, NULL, 0, 0, 0, NULL, NULL},                     \
    {CONFIG_CLANG_OMP, run_clang_omp, out_clang_omp, NULL, 0, 0, 0, NULL, NULL},            \
    {CONFIG_GCC, run_gcc, out_gcc, NULL, 0, 0, 0, NULL, NULL},                              \
    {CONFIG_LANEWISE_W8, run_lw8, out_lw8, NULL, LIBMVEC, 0, 1, (const void *)LW8_FN,       \
     "BENCH_NOT_RUN_lanewise"},                                                             \
    {CONFIG_LANEWISE_W16, run_lw16, out_lw16, NULL, LIBMVEC, 1, 1, (const void *)LW16_FN,   \
     "BENCH_NOT_RUN_lanewise"},                                                             \
    {CONFIG_LANEWISE_FULL, run_lwfull, out_lwfull, NULL, LIBMVEC, 0, 1,                     \
     (const void *)LWFULL_FN, "BENCH_NOT_RUN_lanewise_full"}

#endif  // BENCH_LOOP
#endif
