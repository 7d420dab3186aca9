/* Runtime of the generated differential-test drivers (see tests/corpus/README.md).
 *
 * The Rust harness (crates/lanewise/tests/support/driver.rs) writes a C file that
 * includes this text, then a table of `struct lw_variant` (one per vector
 * variant to run) and the call shims that pass lane-major byte buffers to the
 * scalar function and to each variant.  This file generates the inputs, runs
 * the scalar function once per lane in lane order on one copy of memory, the
 * variant once on a second copy, and compares return values (bit-exact, or
 * within N ulp), memory (byte for byte) and the per-site sequences of
 * lw_record() calls.  It compiles with clang-22 and with gcc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#define LW_VECTOR_TYPE(ELEMENT, LANES, BYTES) __attribute__((ext_vector_type(LANES)))
#else
#define LW_VECTOR_TYPE(ELEMENT, LANES, BYTES) __attribute__((vector_size(BYTES)))
#endif

enum lw_kind { LW_VARYING, LW_UNIFORM, LW_LINEAR, LW_LINEAR_VARIABLE };
enum lw_type { LW_BOOL, LW_I8, LW_I16, LW_I32, LW_I64, LW_F16, LW_F32, LW_F64, LW_PTR };

struct lw_param {
    int kind;           /* enum lw_kind */
    int type;           /* enum lw_type */
    int size;           /* bytes of one lane's value */
    long long step;     /* LW_LINEAR: step (bytes for pointers) */
    int step_param;     /* LW_LINEAR_VARIABLE: index of the uniform parameter holding the step */
    long long align;    /* aN: alignment in bytes, 0 if none */
};

typedef void (*lw_scalar_call)(unsigned char *const *args, unsigned char *ret);
typedef void (*lw_vector_call)(unsigned char *const *args, const unsigned char *mask, unsigned char *ret);

struct lw_variant {
    const char *name;         /* name reported in results */
    const char *kernel;
    const char *how;          /* how it is called: "C ABI" or "IR wrapper ..." */
    int width;
    int masked;
    int needs_avx512;         /* run only if the CPU has avx512f */
    const char *skip_reason;  /* non-NULL: compiled and linked but not executed */
    int nparams;
    const struct lw_param *params;
    int ret_type;
    int ret_size;             /* 0: void */
    int ulp;                  /* 0: bit-exact */
    int nan_any;              /* 1: a NaN result matches any NaN (0: `nan=bits`) */
    lw_scalar_call call_scalar;
    lw_vector_call call_vector;
};

#define LW_BUFFER_BYTES 65536
#define LW_MAX_PARAMS 16
#define LW_MAX_LANES 64
#define LW_POINTER_MIDDLE 32768
#define LW_VARYING_SLOT_BYTES 512
#define LW_VARYING_SLOT_BASE 16384
#define LW_LOG_CAPACITY 65536

/* ---- random numbers: splitmix64, fixed seed per variant ---- */
static uint64_t lw_rng_state;
static uint64_t lw_random(void) {
    uint64_t z = (lw_rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double lw_random_unit(void) { return (double)(lw_random() >> 11) * (1.0 / 9007199254740992.0); }
static uint64_t lw_seed_of(const char *name) {
    uint64_t hash = 1469598103934665603ull;
    for (; *name; name++) hash = (hash ^ (unsigned char)*name) * 1099511628211ull;
    return hash;
}

/* ---- lw_record: side effects that must happen in lane order ---- */
struct lw_log { int length; int overflow; int site[LW_LOG_CAPACITY]; long value[LW_LOG_CAPACITY]; };
static struct lw_log lw_scalar_log, lw_vector_log;
static struct lw_log *lw_current_log = &lw_scalar_log;
void lw_record(int site, long value) {
    struct lw_log *log = lw_current_log;
    if (log->length >= LW_LOG_CAPACITY) { log->overflow = 1; return; }
    log->site[log->length] = site;
    log->value[log->length] = value;
    log->length++;
}

/* ---- SPMD builtins (include/lanewise/rv.h) with their one-lane meaning ----
 * Kernels call them by name; lanewise gives them their W-lane meaning in the
 * vector variants, and the scalar function (and GCC's clones, which are
 * scalar loops over the lanes) calls these definitions, one lane per call. */
_Bool rv_any(_Bool b) { return b; }
_Bool rv_all(_Bool b) { return b; }
uint32_t rv_ballot(_Bool b) { return b ? 1u : 0u; }
uint32_t rv_popcount(_Bool b) { return b ? 1u : 0u; }
uint32_t rv_index(_Bool b) { (void)b; return 0u; }
_Bool rv_mask(void) { return 1; }
_Bool rv_entry_mask(void) { return 1; }
float rv_compact(float v, _Bool b) { (void)b; return v; }
uint32_t rv_lane_id(void) { return 0u; }
uint32_t rv_num_lanes(void) { return 1u; }
float rv_extract(float v, uint32_t lane) { (void)lane; return v; }
float rv_insert(float v, uint32_t lane, float x) { return lane == 0 ? x : v; }
float rv_shuffle(float v, int32_t shift) { (void)shift; return v; }
float rv_load(const float *p, int32_t k) { return p[k]; }
void rv_store(float *p, int32_t k, float v) { p[k] = v; }
void *rv_align(void *p, int32_t alignment) { (void)alignment; return p; }

/* ---- value generation ---- */
static void lw_generate_float(unsigned char *out) {
    static const uint32_t specials[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                        0x00000001u, 0x80000010u, 0x00800000u, 0x7f7fffffu, 0xff7fffffu,
                                        0x7149f2cau, 0x3f000000u, 0x3f800000u, 0xbf800000u, 0x4b000001u};
    float value;
    if (lw_random() % 5 != 0) {
        value = (float)(lw_random_unit() * 200.0 - 100.0);
    } else if (lw_random() % 4 != 0) {
        uint32_t bits = specials[lw_random() % (sizeof specials / sizeof specials[0])];
        memcpy(&value, &bits, 4);
    } else {
        uint32_t bits = (uint32_t)lw_random();
        memcpy(&value, &bits, 4);
    }
    memcpy(out, &value, 4);
}
static void lw_generate_double(unsigned char *out) {
    static const uint64_t specials[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull,
                                        0xfff0000000000000ull, 0x7ff8000000000000ull, 0x0000000000000001ull,
                                        0x800000000000abcdull, 0x0010000000000000ull, 0x7fefffffffffffffull,
                                        0xffefffffffffffffull, 0x4630000000000000ull, 0x3fe0000000000000ull,
                                        0x3ff0000000000000ull, 0xbff0000000000000ull, 0x4330000000000001ull};
    double value;
    if (lw_random() % 5 != 0) {
        value = lw_random_unit() * 200.0 - 100.0;
    } else if (lw_random() % 4 != 0) {
        uint64_t bits = specials[lw_random() % (sizeof specials / sizeof specials[0])];
        memcpy(&value, &bits, 8);
    } else {
        uint64_t bits = lw_random();
        memcpy(&value, &bits, 8);
    }
    memcpy(out, &value, 8);
}
static void lw_generate_half(unsigned char *out) {
    static const uint16_t specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x0001,
                                        0x8003, 0x0400, 0x7bff, 0xfbff, 0x3800, 0x3c00, 0xbc00};
    uint16_t bits;
    if (lw_random() % 5 != 0) {
        _Float16 value = (_Float16)(float)(lw_random_unit() * 200.0 - 100.0);
        memcpy(&bits, &value, 2);
    } else if (lw_random() % 4 != 0) {
        bits = specials[lw_random() % (sizeof specials / sizeof specials[0])];
    } else {
        bits = (uint16_t)lw_random();
    }
    memcpy(out, &bits, 2);
}
/* Integers: full-range random half of the time, small (-32..64) otherwise
   (linear values that cross zero within a group of lanes need the small
   negative ones). */
static void lw_generate_integer(unsigned char *out, int size) {
    uint64_t value = (lw_random() & 1) ? lw_random() : (uint64_t)((int64_t)(lw_random() % 97) - 32);
    memcpy(out, &value, (size_t)size);
}
static void lw_generate_value(int type, int size, unsigned char *out) {
    memset(out, 0, 8);
    switch (type) {
    case LW_BOOL: out[0] = (unsigned char)(lw_random() & 1); break;
    case LW_F16: lw_generate_half(out); break;
    case LW_F32: lw_generate_float(out); break;
    case LW_F64: lw_generate_double(out); break;
    default: lw_generate_integer(out, size); break;
    }
}
/* Memory: random bytes, or floats / doubles in [-100, 100]. */
static void lw_fill_buffer(unsigned char *buffer) {
    unsigned mode = (unsigned)(lw_random() % 4);
    for (size_t offset = 0; offset < LW_BUFFER_BYTES; offset += 8) {
        if (mode <= 1) {
            uint64_t bits = lw_random();
            memcpy(buffer + offset, &bits, 8);
        } else if (mode == 2) {
            float pair[2] = {(float)(lw_random_unit() * 200.0 - 100.0), (float)(lw_random_unit() * 200.0 - 100.0)};
            memcpy(buffer + offset, pair, 8);
        } else {
            double value = lw_random_unit() * 200.0 - 100.0;
            memcpy(buffer + offset, &value, 8);
        }
    }
}

/* ---- comparison ---- */
static int64_t lw_ordered_bits(const unsigned char *bytes, int size) {
    if (size == 2) { uint16_t b; memcpy(&b, bytes, 2); return (b & 0x8000) ? -(int64_t)(b & 0x7fff) : (int64_t)b; }
    if (size == 4) { uint32_t b; memcpy(&b, bytes, 4); return (b & 0x80000000u) ? -(int64_t)(b & 0x7fffffffu) : (int64_t)b; }
    uint64_t b; memcpy(&b, bytes, 8);
    return (b >> 63) ? -(int64_t)(b & 0x7fffffffffffffffull) : (int64_t)b;
}
static int lw_is_nan(const unsigned char *bytes, int size) {
    if (size == 2) { uint16_t b; memcpy(&b, bytes, 2); return (b & 0x7c00) == 0x7c00 && (b & 0x3ff); }
    if (size == 4) { uint32_t b; memcpy(&b, bytes, 4); return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu); }
    uint64_t b; memcpy(&b, bytes, 8);
    return (b & 0x7ff0000000000000ull) == 0x7ff0000000000000ull && (b & 0xfffffffffffffull);
}
/* Within ulp units in the last place (ulp > 0, float types); NaN equals NaN. */
static int lw_lane_within_ulp(int type, int size, const unsigned char *expected, const unsigned char *got, int ulp) {
    if (ulp <= 0 || !(type == LW_F16 || type == LW_F32 || type == LW_F64)) return 0;
    int expected_nan = lw_is_nan(expected, size), got_nan = lw_is_nan(got, size);
    if (expected_nan || got_nan) return expected_nan && got_nan;
    int64_t distance = lw_ordered_bits(expected, size) - lw_ordered_bits(got, size);
    if (distance < 0) distance = -distance;
    return distance <= ulp;
}
/* Equal bit for bit, except that a NaN may be quiet on one side and signaling on the other
   (LLVM does not promise to quiet, or not to quiet, a signaling NaN), or within `ulp`.
   With `nan_any`, any NaN matches any NaN (LLVM picks the payload of one of several NaN
   operands nondeterministically, so operand order may differ between scalar and vector code). */
static int lw_lane_equal(int type, int size, const unsigned char *expected, const unsigned char *got, int ulp,
                         int nan_any) {
    if (memcmp(expected, got, (size_t)size) == 0) return 1;
    int is_float = type == LW_F16 || type == LW_F32 || type == LW_F64;
    if (!is_float) return 0;
    if (nan_any && lw_is_nan(expected, size) && lw_is_nan(got, size)) return 1;
    if (lw_is_nan(expected, size) && lw_is_nan(got, size)) {
        uint64_t quiet_bit = size == 2 ? 0x200 : size == 4 ? 0x400000 : 0x8000000000000ull;
        uint64_t a = 0, b = 0;
        memcpy(&a, expected, (size_t)size);
        memcpy(&b, got, (size_t)size);
        if ((a | quiet_bit) == (b | quiet_bit)) return 1;
    }
    return lw_lane_within_ulp(type, size, expected, got, ulp);
}

static void lw_print_value(int type, int size, const unsigned char *bytes) {
    switch (type) {
    case LW_F16: { uint16_t b; _Float16 h; memcpy(&b, bytes, 2); memcpy(&h, bytes, 2);
        printf("%a (0x%04x)", (double)(float)h, b); break; }
    case LW_F32: { float f; uint32_t b; memcpy(&f, bytes, 4); memcpy(&b, bytes, 4);
        printf("%a (%.9g, 0x%08x)", (double)f, (double)f, b); break; }
    case LW_F64: { double d; uint64_t b; memcpy(&d, bytes, 8); memcpy(&b, bytes, 8);
        printf("%a (%.17g, 0x%016llx)", d, d, (unsigned long long)b); break; }
    default: {
        uint64_t u = 0; memcpy(&u, bytes, (size_t)size);
        int64_t s = size == 8 ? (int64_t)u : (int64_t)(u ^ (1ull << (size * 8 - 1))) - (int64_t)(1ull << (size * 8 - 1));
        printf("%lld (0x%llx)", (long long)s, (unsigned long long)u); break; }
    }
}

/* ---- one trial's state ---- */
static unsigned char *lw_pristine[LW_MAX_PARAMS], *lw_memory_scalar[LW_MAX_PARAMS], *lw_memory_vector[LW_MAX_PARAMS];
/* Per parameter and lane: the value bytes (pointers: offset into the parameter's buffer). */
static unsigned char lw_values[LW_MAX_PARAMS][LW_MAX_LANES][8];

static int64_t lw_integer_of(const unsigned char *bytes, int size) {
    uint64_t u = 0; memcpy(&u, bytes, (size_t)size);
    if (size == 8) return (int64_t)u;
    uint64_t sign = 1ull << (size * 8 - 1);
    return (int64_t)((u ^ sign) - sign);
}

/* Value of parameter `index` in `lane`; pointers are materialized into `memory`. */
static void lw_lane_value(const struct lw_variant *variant, int index, int lane, unsigned char **memory,
                          unsigned char *out) {
    const struct lw_param *param = &variant->params[index];
    memset(out, 0, 16);
    if (param->kind == LW_VARYING) {
        memcpy(out, lw_values[index][lane], 8);
    } else if (param->kind == LW_UNIFORM) {
        memcpy(out, lw_values[index][0], 8);
    } else {
        int64_t step = param->step;
        if (param->kind == LW_LINEAR_VARIABLE)
            step = lw_integer_of(lw_values[param->step_param][0], variant->params[param->step_param].size);
        uint64_t base = (uint64_t)lw_integer_of(lw_values[index][0], param->type == LW_PTR ? 8 : param->size);
        uint64_t value = base + (uint64_t)lane * (uint64_t)step;
        memcpy(out, &value, 8);
    }
    if (param->type == LW_PTR) {
        uint64_t offset; memcpy(&offset, out, 8);
        void *pointer = memory[index] + offset;
        memcpy(out, &pointer, sizeof pointer);
    }
}

static void lw_generate_trial(const struct lw_variant *variant, unsigned char *mask) {
    int width = variant->width;
    for (int index = 0; index < variant->nparams; index++) {
        const struct lw_param *param = &variant->params[index];
        if (param->type == LW_PTR) {
            lw_fill_buffer(lw_pristine[index]);
            memcpy(lw_memory_scalar[index], lw_pristine[index], LW_BUFFER_BYTES);
            memcpy(lw_memory_vector[index], lw_pristine[index], LW_BUFFER_BYTES);
        }
    }
    /* uniform parameters first: a variable linear step reads one */
    for (int index = 0; index < variant->nparams; index++) {
        const struct lw_param *param = &variant->params[index];
        memset(lw_values[index], 0, sizeof lw_values[index]);
        if (param->kind != LW_UNIFORM) continue;
        if (param->type == LW_PTR) {
            uint64_t offset = LW_POINTER_MIDDLE;
            memcpy(lw_values[index][0], &offset, 8);
        } else {
            lw_generate_value(param->type, param->size, lw_values[index][0]);
        }
    }
    for (int index = 0; index < variant->nparams; index++) {
        const struct lw_param *param = &variant->params[index];
        if (param->kind == LW_VARYING) {
            if (param->type == LW_PTR) {
                /* each lane its own 512-byte slot, in a random order */
                int slots[LW_MAX_LANES];
                for (int lane = 0; lane < LW_MAX_LANES; lane++) slots[lane] = lane;
                for (int lane = LW_MAX_LANES - 1; lane > 0; lane--) {
                    int other = (int)(lw_random() % (uint64_t)(lane + 1));
                    int kept = slots[lane]; slots[lane] = slots[other]; slots[other] = kept;
                }
                for (int lane = 0; lane < width; lane++) {
                    uint64_t offset = LW_VARYING_SLOT_BASE + (uint64_t)slots[lane] * LW_VARYING_SLOT_BYTES;
                    memcpy(lw_values[index][lane], &offset, 8);
                }
            } else if (param->type >= LW_I8 && param->type <= LW_I64 && lw_random() % 4 == 0) {
                /* in one trial of four, consecutive integers: a loop's `i`
                   passed without a `linear` clause, which the dynamic
                   consecutive tests of gathers and scatters expect */
                int64_t base = (int64_t)(lw_random() % 64);
                for (int lane = 0; lane < width; lane++) {
                    int64_t value = base + lane;
                    memcpy(lw_values[index][lane], &value, 8);
                }
            } else {
                for (int lane = 0; lane < width; lane++)
                    lw_generate_value(param->type, param->size, lw_values[index][lane]);
            }
        } else if (param->kind == LW_LINEAR || param->kind == LW_LINEAR_VARIABLE) {
            int64_t step = param->step;
            if (param->kind == LW_LINEAR_VARIABLE)
                step = lw_integer_of(lw_values[param->step_param][0], variant->params[param->step_param].size);
            if (param->type == LW_PTR) {
                uint64_t offset = LW_POINTER_MIDDLE;
                memcpy(lw_values[index][0], &offset, 8);
            } else {
                /* small base, so that base + lane*step stays small; in one
                   trial of four the lanes cross zero (-2, 1, 4, 7), where a
                   zero extension is not linear */
                int64_t base = (int64_t)(lw_random() % 64);
                if (lw_random() % 4 == 0) base = -(int64_t)(lw_random() % 8) - 1;
                if (step < 0 && step > -(1ll << 24)) base += (int64_t)width * -step;
                memcpy(lw_values[index][0], &base, 8);
            }
        }
    }
    for (int lane = 0; lane < width; lane++) mask[lane] = 1;
    if (variant->masked && lw_random() % 4 != 0)
        for (int lane = 0; lane < width; lane++) mask[lane] = (unsigned char)(lw_random() & 1);
}

/* How many float arguments of a lane are NaN. */
static int lw_lane_nan_inputs(const struct lw_variant *variant, int lane) {
    int count = 0;
    for (int index = 0; index < variant->nparams; index++) {
        const struct lw_param *param = &variant->params[index];
        if (param->type != LW_F16 && param->type != LW_F32 && param->type != LW_F64) continue;
        unsigned char value[16];
        lw_lane_value(variant, index, lane, lw_memory_scalar, value);
        count += lw_is_nan(value, param->size);
    }
    return count;
}

static void lw_print_lane_inputs(const struct lw_variant *variant, int lane) {
    for (int index = 0; index < variant->nparams; index++) {
        const struct lw_param *param = &variant->params[index];
        unsigned char value[16];
        lw_lane_value(variant, index, lane, lw_memory_scalar, value);
        printf("    param %d: ", index);
        if (param->type == LW_PTR) {
            uint64_t pointer; memcpy(&pointer, value, 8);
            printf("buffer%d%+lld", index, (long long)(pointer - (uint64_t)(uintptr_t)lw_memory_scalar[index]) - LW_POINTER_MIDDLE);
            printf(" (offset from the buffer middle)");
        } else {
            lw_print_value(param->type, param->size, value);
        }
        printf("\n");
    }
}

static int lw_compare_logs(const struct lw_variant *variant, int trial) {
    if (lw_scalar_log.overflow || lw_vector_log.overflow) {
        printf("FAIL %s: trial %d: lw_record log overflow\n", variant->name, trial);
        return 0;
    }
    int sites[256], nsites = 0;
    struct lw_log *logs[2] = {&lw_scalar_log, &lw_vector_log};
    for (int which = 0; which < 2; which++)
        for (int entry = 0; entry < logs[which]->length; entry++) {
            int site = logs[which]->site[entry], known = 0;
            for (int s = 0; s < nsites; s++) known |= sites[s] == site;
            if (!known && nsites < 256) sites[nsites++] = site;
        }
    for (int s = 0; s < nsites; s++) {
        int a = 0, b = 0, position = 0;
        for (;;) {
            while (a < lw_scalar_log.length && lw_scalar_log.site[a] != sites[s]) a++;
            while (b < lw_vector_log.length && lw_vector_log.site[b] != sites[s]) b++;
            int scalar_done = a >= lw_scalar_log.length, vector_done = b >= lw_vector_log.length;
            if (scalar_done && vector_done) break;
            if (scalar_done || vector_done || lw_scalar_log.value[a] != lw_vector_log.value[b]) {
                printf("FAIL %s: kernel %s, trial %d: lw_record site %d, call #%d: expected ", variant->name,
                       variant->kernel, trial, sites[s], position);
                if (scalar_done) printf("no call"); else printf("%ld", lw_scalar_log.value[a]);
                printf(", got ");
                if (vector_done) printf("no call"); else printf("%ld", lw_vector_log.value[b]);
                printf("\n");
                return 0;
            }
            a++, b++, position++;
        }
    }
    return 1;
}

/* Runs `trials` random trials; returns 1 if every lane agreed. */
static int lw_run_variant(const struct lw_variant *variant, int trials) {
    int width = variant->width;
    lw_rng_state = lw_seed_of(variant->name);
    for (int index = 0; index < variant->nparams; index++) {
        if (variant->params[index].type != LW_PTR) continue;
        if (!lw_pristine[index]) {
            lw_pristine[index] = aligned_alloc(4096, LW_BUFFER_BYTES);
            lw_memory_scalar[index] = aligned_alloc(4096, LW_BUFFER_BYTES);
            lw_memory_vector[index] = aligned_alloc(4096, LW_BUFFER_BYTES);
        }
    }
    static unsigned char lane_bytes[LW_MAX_PARAMS][16];
    static unsigned char vector_bytes[LW_MAX_PARAMS][LW_MAX_LANES * 8];
    static unsigned char expected[LW_MAX_LANES * 8 + 64], got[LW_MAX_LANES * 8 + 64];
    unsigned char *lane_args[LW_MAX_PARAMS], *vector_args[LW_MAX_PARAMS];
    unsigned char mask[LW_MAX_LANES];
    for (int index = 0; index < LW_MAX_PARAMS; index++) lane_args[index] = lane_bytes[index], vector_args[index] = vector_bytes[index];

    for (int trial = 0; trial < trials; trial++) {
        lw_generate_trial(variant, mask);
        memset(expected, 0xa5, sizeof expected);
        memset(got, 0x5a, sizeof got);
        /* scalar: lane by lane, in lane order */
        lw_scalar_log.length = lw_scalar_log.overflow = 0;
        lw_current_log = &lw_scalar_log;
        for (int lane = 0; lane < width; lane++) {
            if (!mask[lane]) continue;
            for (int index = 0; index < variant->nparams; index++)
                lw_lane_value(variant, index, lane, lw_memory_scalar, lane_args[index]);
            variant->call_scalar(lane_args, expected + lane * variant->ret_size);
        }
        /* vector: one call */
        for (int index = 0; index < variant->nparams; index++) {
            const struct lw_param *param = &variant->params[index];
            memset(vector_args[index], 0, LW_MAX_LANES * 8);
            if (param->kind == LW_VARYING) {
                for (int lane = 0; lane < width; lane++) {
                    unsigned char value[16];
                    lw_lane_value(variant, index, lane, lw_memory_vector, value);
                    memcpy(vector_args[index] + lane * param->size, value, (size_t)param->size);
                }
            } else {
                lw_lane_value(variant, index, 0, lw_memory_vector, vector_args[index]);
            }
        }
        lw_vector_log.length = lw_vector_log.overflow = 0;
        lw_current_log = &lw_vector_log;
        variant->call_vector(vector_args, mask, got);
        lw_current_log = &lw_scalar_log;

        for (int lane = 0; lane < width && variant->ret_size; lane++) {
            if (!mask[lane]) continue;
            const unsigned char *e = expected + lane * variant->ret_size, *g = got + lane * variant->ret_size;
            if (!lw_lane_equal(variant->ret_type, variant->ret_size, e, g, variant->ulp,
                               variant->nan_any || lw_lane_nan_inputs(variant, lane) >= 2)) {
                printf("FAIL %s: kernel %s, trial %d, lane %d: return value differs%s\n", variant->name,
                       variant->kernel, trial, lane, variant->ulp ? " by more than the allowed ulp" : "");
                lw_print_lane_inputs(variant, lane);
                printf("    expected: "); lw_print_value(variant->ret_type, variant->ret_size, e);
                printf("\n    got:      "); lw_print_value(variant->ret_type, variant->ret_size, g);
                printf("\n");
                return 0;
            }
        }
        for (int index = 0; index < variant->nparams; index++) {
            if (variant->params[index].type != LW_PTR) continue;
            if (memcmp(lw_memory_scalar[index], lw_memory_vector[index], LW_BUFFER_BYTES) == 0) continue;
            int offset = 0;
            while (lw_memory_scalar[index][offset] == lw_memory_vector[index][offset]) offset++;
            int start = offset & ~7;
            printf("FAIL %s: kernel %s, trial %d: memory of param %d differs first at byte %+d from the buffer middle\n",
                   variant->name, variant->kernel, trial, index, offset - LW_POINTER_MIDDLE);
            printf("    expected bytes %+d..:", start - LW_POINTER_MIDDLE);
            for (int k = start; k < start + 16 && k < LW_BUFFER_BYTES; k++) printf(" %02x", lw_memory_scalar[index][k]);
            printf("\n    got bytes      %+d..:", start - LW_POINTER_MIDDLE);
            for (int k = start; k < start + 16 && k < LW_BUFFER_BYTES; k++) printf(" %02x", lw_memory_vector[index][k]);
            printf("\n    was bytes      %+d..:", start - LW_POINTER_MIDDLE);
            for (int k = start; k < start + 16 && k < LW_BUFFER_BYTES; k++) printf(" %02x", lw_pristine[index][k]);
            printf("\n");
            for (int lane = 0; lane < width; lane++) {
                if (!mask[lane]) continue;
                printf("  lane %d inputs:\n", lane);
                lw_print_lane_inputs(variant, lane);
            }
            return 0;
        }
        if (!lw_compare_logs(variant, trial)) return 0;
    }
    return 1;
}

static int lw_cpu_has_avx512f(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f");
#else
    return 0;
#endif
}

/* Runs every variant of the table; prints one RESULT line per variant. */
static int lw_main(const struct lw_variant *variants, int count, int trials) {
    int failures = 0, has_avx512f = lw_cpu_has_avx512f();
    for (int k = 0; k < count; k++) {
        const struct lw_variant *variant = &variants[k];
        if (variant->skip_reason) {
            printf("SKIP %s: %s\n", variant->name, variant->skip_reason);
            continue;
        }
        if (variant->needs_avx512 && !has_avx512f) {
            printf("SKIP %s: compiled and linked but not executed: this CPU has no avx512f\n", variant->name);
            continue;
        }
        printf("RUN %s\n", variant->name);
        fflush(stdout);
        if (lw_run_variant(variant, trials)) {
            printf("PASS %s: %d trials (%s)\n", variant->name, trials, variant->how);
        } else {
            failures++;
        }
        fflush(stdout);
    }
    return failures ? 1 : 0;
}
