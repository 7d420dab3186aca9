/* The runtime compiled into every program's shared object: the per-thread
 * work-group record the work-item functions read (builtins/workitem.cl),
 * and the loop over a work-group's SIMD groups. A kernel with barriers is
 * normally in continuation form (the WFV thesis 8.2; src/continuations.rs):
 * the loop then runs every SIMD group up to the barrier they all reach,
 * then every SIMD group from there, until they return. A kernel that form
 * cannot express runs each SIMD group as a fiber that `__lw_barrier`
 * suspends, with the same semantics: every SIMD group reaches a barrier
 * before any passes it. A fiber switch saves
 * and restores only the registers the System V ABI says a call preserves
 * (rbx, rbp, r12-r15 and the stack pointer): eight instructions each way,
 * where ucontext's swapcontext made two system calls. MXCSR and the x87
 * control word, also preserved by calls, are left alone: every fiber of a
 * thread runs OpenCL C, which cannot change them, under the thread's own
 * (restoring them cost a third of a switch). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <x86intrin.h>

typedef struct {
    unsigned dims;
    size_t global_offset[3];
    size_t global_size[3];
    size_t local_size[3];
    size_t group_id[3];
    size_t num_groups[3];
    size_t local_id[3];
    /* Continuation form: the region to run (0: from the kernel's entry, k:
     * after barrier k), a bit per region end reached (bit 0: a return, bit
     * k: barrier k), and the work-group's spill area. */
    uint64_t resume, reached;
    char *spill;
} lw_work_group;

/* `__lw_vector_K(args, count)` runs `count` SIMD groups of a row;
 * `__lw_scalar_K(args, count)` `count` work-items of a row, one at a time
 * (compiler.rs writes both). */
typedef void (*lw_vector_trampoline)(void **args, size_t count);
/* `__lw_masked<W>_K(args, active)` runs the first `active` lanes of one
 * SIMD group (a row's last `local_size % W` work-items). */
typedef void (*lw_masked_trampoline)(void **args, size_t active);
typedef void (*lw_scalar_trampoline)(void **args, size_t count);

static __thread lw_work_group current;

const lw_work_group *__lw_work_group(void) { return &current; }

/* Moves the record to the next SIMD group of the row; past the row's end,
 * to the first SIMD group of the next work-group in dimension 0 (so that
 * one trampoline call can run a run of one-row work-groups, see
 * __lw_run_work_groups; run_rows puts the group id back). */
void __lw_next_simd_group(size_t width) {
    current.local_id[0] += width;
    if (current.local_id[0] == current.local_size[0]) {
        current.local_id[0] = 0;
        current.group_id[0]++;
    }
}

/* ----- Atomic functions on local memory ----- */

/* A work-group's local memory is touched by this thread only (it runs the
 * whole work-group), so the atomic functions on it (builtins/integer.cl)
 * are plain read-modify-writes; each returns the old value. */
#define LW_LOCAL_RMW(name, T, update)                                                    \
    T name(T *p, T v) {                                                                  \
        T old = *p;                                                                      \
        *p = (update);                                                                   \
        return old;                                                                      \
    }
LW_LOCAL_RMW(__lw_local_add, int, (int)((unsigned)old + (unsigned)v))
LW_LOCAL_RMW(__lw_local_sub, int, (int)((unsigned)old - (unsigned)v))
LW_LOCAL_RMW(__lw_local_and, int, old & v)
LW_LOCAL_RMW(__lw_local_or, int, old | v)
LW_LOCAL_RMW(__lw_local_xor, int, old ^ v)
LW_LOCAL_RMW(__lw_local_xchg, int, v)
LW_LOCAL_RMW(__lw_local_min_int, int, v < old ? v : old)
LW_LOCAL_RMW(__lw_local_max_int, int, v > old ? v : old)
LW_LOCAL_RMW(__lw_local_min_uint, unsigned, v < old ? v : old)
LW_LOCAL_RMW(__lw_local_max_uint, unsigned, v > old ? v : old)

int __lw_local_cmpxchg(int *p, int expected, int desired) {
    int old = *p;
    if (old == expected) *p = desired;
    return old;
}

/* ----- Fibers ----- */

enum { LW_READY, LW_AT_BARRIER, LW_DONE };
/* Each fiber's stack: the kernel's private memory and calls. */
enum { LW_STACK_BYTES = 256 * 1024 };

typedef struct {
    void *sp; /* saved stack pointer while the fiber is suspended */
    lw_work_group group;
    lw_vector_trampoline vector; /* one SIMD group, or */
    lw_scalar_trampoline scalar; /* one work-item */
    void **args;
    int state;
    char *stack;
} lw_fiber;

/* __lw_switch(from, to): saves the callee-saved state on the current stack,
 * stores the stack pointer in *from, and resumes the context whose stack
 * pointer is `to` (saved the same way, or prepared by fiber_prepare). */
void __lw_switch(void **from, void *to);
__asm__(".text\n"
        ".globl __lw_switch\n"
        ".hidden __lw_switch\n"
        ".type __lw_switch,@function\n"
        "__lw_switch:\n"
        "  pushq %rbp\n"
        "  pushq %rbx\n"
        "  pushq %r12\n"
        "  pushq %r13\n"
        "  pushq %r14\n"
        "  pushq %r15\n"
        "  movq %rsp, (%rdi)\n"
        "  movq %rsi, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        ".size __lw_switch, .-__lw_switch\n");

static __thread void *scheduler;
static __thread lw_fiber *running;
static __thread lw_fiber *fibers;
static __thread size_t fiber_capacity;

void __lw_barrier(void) {
    if (!running) return; /* run without fibers: the kernel has no barrier */
    running->state = LW_AT_BARRIER;
    __lw_switch(&running->sp, scheduler);
}

/* Where a new fiber starts (through __lw_switch's `ret`); it never returns:
 * when the work is done it switches back to the scheduler for good. */
static void fiber_entry(void) {
    lw_fiber *fiber = running;
    if (fiber->vector)
        fiber->vector(fiber->args, 1);
    else
        fiber->scalar(fiber->args, 1);
    fiber->state = LW_DONE;
    __lw_switch(&fiber->sp, scheduler);
    __builtin_unreachable();
}

/* Lays out a new fiber's stack as __lw_switch leaves a suspended one: the
 * entry point as the return address (so that fiber_entry starts with the
 * stack aligned as after a call) and zeroed callee-saved registers. The
 * top of fiber `index`'s stack is moved down by a different number of
 * cache lines per fiber: the stacks are page-aligned allocations of the
 * same size, whose tops would otherwise share their L1 sets (16 fibers'
 * hot frames in a 12-way cache). */
static void fiber_prepare(lw_fiber *fiber, size_t index) {
    size_t color = (index * 17 % 64) * 64;
    uintptr_t top = ((uintptr_t)fiber->stack + LW_STACK_BYTES - color) & ~(uintptr_t)15;
    uint64_t *sp = (uint64_t *)top;
    *--sp = 0;                         /* fiber_entry's own return address: none */
    *--sp = (uint64_t)(uintptr_t)fiber_entry;
    for (int i = 0; i < 6; i++) *--sp = 0; /* rbp, rbx, r12-r15 */
    fiber->sp = sp;
}

static int reserve_fibers(size_t count) {
    if (count <= fiber_capacity) return 0;
    lw_fiber *grown = realloc(fibers, count * sizeof *grown);
    if (!grown) return -1;
    fibers = grown;
    for (size_t i = fiber_capacity; i < count; i++) {
        fibers[i].stack = malloc(LW_STACK_BYTES);
        if (!fibers[i].stack) {
            fiber_capacity = i;
            return -1;
        }
    }
    fiber_capacity = count;
    return 0;
}

/* Runs every work-item of the work-group in `current` once: the
 * work-items of each row (dimension 0) W at a time through `vector` (if
 * any), the rest through `masked` (if any) or one at a time through
 * `scalar`. Only the record's local ids and `reached` change (the record
 * is not copied: a copy per work-group was a third of a small kernel's
 * time). Returns the union of the `reached` bits the calls set. */
static uint64_t run_rows(lw_vector_trampoline vector, lw_masked_trampoline masked,
                         lw_scalar_trampoline scalar, unsigned width, size_t simd_groups,
                         void **args) {
    uint64_t reached = 0;
    size_t row = current.local_size[0], rows = current.local_size[1], planes = current.local_size[2];
    size_t rest = row - simd_groups * width;
    for (size_t z = 0; z < planes; z++) {
        for (size_t y = 0; y < rows; y++) {
            current.local_id[0] = 0, current.local_id[1] = y, current.local_id[2] = z;
            current.reached = 0;
            if (simd_groups) {
                size_t group = current.group_id[0];
                vector(args, simd_groups);
                current.group_id[0] = group;
            }
            if (masked && rest) {
                current.local_id[0] = simd_groups * width;
                masked(args, rest);
            } else if (rest) {
                size_t group = current.group_id[0];
                current.local_id[0] = simd_groups * width;
                scalar(args, rest);
                current.group_id[0] = group;
            }
            reached |= current.reached;
        }
    }
    return reached;
}

static __thread char *spill_area;
static __thread size_t spill_capacity;

/* How the regions of a kernel in continuation form run (the runtime's
 * `barriers` argument): every region through the vector variant (or, with
 * none, work-item by work-item), each region the way its samples showed
 * faster, or, for tests, odd regions work-item by work-item. */
enum { LW_REGIONS_VECTOR = 2, LW_REGIONS_CHOSEN = 3, LW_REGIONS_ALTERNATE = 4 };
enum { LW_MAX_REGIONS = 64, LW_REGION_SAMPLES = 3, LW_CHOICE_SLOTS = 4 };

/* One kernel's per-region choice on this thread, keyed by its vector
 * trampoline: the first work-groups run each undecided region alternately
 * through the vector variant and work-item by work-item (the spill area
 * has every work-item's values, so the ways mix), timed with the TSC; after
 * a warm-up run and LW_REGION_SAMPLES timed runs of each way, work-item by
 * work-item wins when it took less
 * than 0.8 of the vector variant's time (adaptive.rs's rule, per kernel).
 * Regions differ: reduction's first region reads 16 consecutive values
 * per work-item, which the vector variant gathers (6x slower than one
 * work-item's contiguous loads), while its tree regions are faster vector. */
typedef struct {
    lw_vector_trampoline key;
    uint8_t samples[LW_MAX_REGIONS][2];
    uint64_t cycles[LW_MAX_REGIONS][2];
    uint8_t choice[LW_MAX_REGIONS]; /* 0: undecided, 1: vector, 2: scalar */
} lw_region_choices;

static __thread lw_region_choices region_choices[LW_CHOICE_SLOTS];
static __thread unsigned next_choice_slot;

static lw_region_choices *choices_of(lw_vector_trampoline vector) {
    for (unsigned i = 0; i < LW_CHOICE_SLOTS; i++)
        if (region_choices[i].key == vector) return &region_choices[i];
    lw_region_choices *slot = &region_choices[next_choice_slot++ % LW_CHOICE_SLOTS];
    memset(slot, 0, sizeof *slot);
    slot->key = vector;
    return slot;
}

/* Runs a work-group of a kernel in continuation form: all its work-items
 * from the kernel's entry to the barrier they reach, then from that
 * barrier on, until they return; each region as `mode` says. Returns 0, -1
 * when memory for the spill area ran out, -2 when work-items reached
 * different barriers or some returned while others waited (undefined in
 * OpenCL, reported). */
static int run_continuations(lw_vector_trampoline vector, lw_masked_trampoline masked,
                             lw_scalar_trampoline scalar, unsigned width, size_t simd_groups,
                             void **args, size_t spill_bytes, int mode) {
    size_t items = current.local_size[0] * current.local_size[1] * current.local_size[2];
    size_t bytes = (spill_bytes * items + 63) & ~(size_t)63;
    if (bytes > spill_capacity) {
        free(spill_area);
        spill_area = aligned_alloc(64, bytes);
        spill_capacity = spill_area ? bytes : 0;
        if (!spill_area) return -1;
    }
    lw_region_choices *choices = vector && mode == LW_REGIONS_CHOSEN ? choices_of(vector) : NULL;
    current.spill = spill_area;
    current.resume = 0;
    for (;;) {
        size_t region = current.resume;
        int scalar_way = vector == NULL || (mode == LW_REGIONS_ALTERNATE && region % 2 == 1);
        int sample = -1;
        if (choices) {
            if (choices->choice[region] == 0)
                sample = choices->samples[region][1] < choices->samples[region][0];
            scalar_way = sample >= 0 ? sample : choices->choice[region] == 2;
        }
        uint64_t start = sample >= 0 ? __rdtsc() : 0;
        uint64_t reached = scalar_way ? run_rows(NULL, NULL, scalar, width, 0, args)
                                      : run_rows(vector, masked, scalar, width, simd_groups, args);
        if (sample >= 0) {
            /* Each way's first run only warms up (its code's first run,
             * cold caches: 3x the time of the next in dwt_haar_1d). */
            if (choices->samples[region][sample]++ > 0)
                choices->cycles[region][sample] += __rdtsc() - start;
            if (choices->samples[region][sample] > LW_REGION_SAMPLES &&
                choices->samples[region][1 - sample] > LW_REGION_SAMPLES)
                choices->choice[region] =
                    choices->cycles[region][1] * 5 < choices->cycles[region][0] * 4 ? 2 : 1;
        }
        if (reached == 1) return 0;
        if (reached == 0 || (reached & (reached - 1)) != 0) return -2;
        current.resume = (uint64_t)__builtin_ctzll(reached);
    }
}

/* Runs the work-group in `current`: without barriers, or in continuation
 * form (modes 2-4, `spill_bytes` per work-item), through run_rows; with fibers (mode 1),
 * each SIMD group or remaining work-item of a row is a fiber and
 * `__lw_barrier` switches between them. Returns 0, -1 when memory ran
 * out, -2 when some work-items finished while others waited at a barrier
 * (a barrier not reached by every work-item: undefined in OpenCL,
 * reported). */
static int run_work_group(lw_vector_trampoline vector, lw_masked_trampoline masked,
                          lw_scalar_trampoline scalar, unsigned width, size_t simd_groups,
                          void **args, int barriers, size_t spill_bytes) {
    if (barriers == 0) {
        run_rows(vector, masked, scalar, width, simd_groups, args);
        return 0;
    }
    if (barriers >= LW_REGIONS_VECTOR)
        return run_continuations(vector, masked, scalar, width, simd_groups, args, spill_bytes,
                                 barriers);
    const lw_work_group *group = &current;
    lw_work_group item = current;
    size_t count = 0;
    for (size_t z = 0; z < group->local_size[2]; z++) {
        for (size_t y = 0; y < group->local_size[1]; y++) {
            item.local_id[1] = y, item.local_id[2] = z;
            for (size_t x = 0; x < group->local_size[0]; x += x < simd_groups * width ? width : 1) {
                if (reserve_fibers(count + 1)) return -1;
                item.local_id[0] = x;
                fibers[count].group = item;
                fibers[count].vector = x < simd_groups * width ? vector : NULL;
                fibers[count++].scalar = scalar;
            }
        }
    }
    for (size_t i = 0; i < count; i++) {
        fibers[i].args = args;
        fibers[i].state = LW_READY;
        fiber_prepare(&fibers[i], i);
    }
    for (;;) {
        size_t done = 0;
        for (size_t i = 0; i < count; i++) {
            lw_fiber *fiber = &fibers[i];
            if (fiber->state == LW_DONE) {
                done++;
                continue;
            }
            fiber->state = LW_READY;
            running = fiber;
            current = fiber->group;
            __lw_switch(&scheduler, fiber->sp);
            running = NULL;
            if (fiber->state == LW_DONE) done++;
        }
        if (done == count) return 0;
        if (done > 0) return -2;
    }
}

/* Runs the work-groups `first` .. `first + count - 1` of the NDRange that
 * `range` describes (its group_id and local_id are ignored), in the order
 * of their linear index (dimension 0 fastest): one call from the executor
 * per chunk of groups rather than per group. */
int __lw_run_work_groups(const lw_work_group *range, size_t first, size_t count,
                         lw_vector_trampoline vector, lw_masked_trampoline masked,
                         lw_scalar_trampoline scalar, unsigned width, void **args, int barriers,
                         size_t spill_bytes) {
    current = *range;
    /* The SIMD groups of a row, once per call (a division per group showed). */
    size_t simd_groups = vector ? range->local_size[0] / width : 0;
    size_t groups0 = range->num_groups[0], groups1 = range->num_groups[1];
    size_t x = first % groups0, y = first / groups0 % groups1, z = first / (groups0 * groups1);
    int whole_simd_groups = simd_groups && simd_groups * width == range->local_size[0];
    if (barriers == 0 && (whole_simd_groups || !vector) && range->local_size[1] == 1 &&
        range->local_size[2] == 1) {
        /* One-row work-groups of whole SIMD groups (or run work-item by
         * work-item), without barriers: the work-groups of a run along
         * dimension 0 in one trampoline call, which moves to the next group
         * after each row (a call per work-group cost a fifth of
         * floyd_warshall's launches). */
        for (size_t done = 0; done < count;) {
            size_t run = groups0 - x < count - done ? groups0 - x : count - done;
            current.group_id[0] = x, current.group_id[1] = y, current.group_id[2] = z;
            current.local_id[0] = 0, current.local_id[1] = 0, current.local_id[2] = 0;
            if (vector)
                vector(args, simd_groups * run);
            else
                scalar(args, range->local_size[0] * run);
            done += run;
            x += run;
            if (x == groups0) {
                x = 0;
                if (++y == groups1) y = 0, z++;
            }
        }
        return 0;
    }
    for (size_t index = first; index < first + count; index++) {
        current.group_id[0] = x, current.group_id[1] = y, current.group_id[2] = z;
        int status =
            run_work_group(vector, masked, scalar, width, simd_groups, args, barriers, spill_bytes);
        if (status) return status;
        if (++x == groups0) {
            x = 0;
            if (++y == groups1) y = 0, z++;
        }
    }
    return 0;
}
