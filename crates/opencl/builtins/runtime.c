/* The runtime compiled into every program's shared object: the per-thread
 * work-group record the work-item functions read (builtins/workitem.cl),
 * and the loop over a work-group's SIMD groups, with fibers when the
 * kernel has barriers (the WFV thesis 8.2 splits kernels at barriers into
 * continuations; a fiber per SIMD group keeps the same semantics: every
 * SIMD group reaches a barrier before any passes it). */
#include <stddef.h>
#include <stdlib.h>
#include <ucontext.h>

typedef struct {
    unsigned dims;
    size_t global_offset[3];
    size_t global_size[3];
    size_t local_size[3];
    size_t group_id[3];
    size_t num_groups[3];
    size_t local_id[3];
} lw_work_group;

/* `__lw_vector_K(args, count)` runs `count` SIMD groups of a row;
 * `__lw_scalar_K(args)` one work-item (compiler.rs writes both). */
typedef void (*lw_vector_trampoline)(void **args, size_t count);
typedef void (*lw_scalar_trampoline)(void **args);

static __thread lw_work_group current;

const lw_work_group *__lw_work_group(void) { return &current; }

/* Moves the record to the next SIMD group of the row. */
void __lw_next_simd_group(size_t width) { current.local_id[0] += width; }

/* ----- Fibers ----- */

enum { LW_READY, LW_AT_BARRIER, LW_DONE };
/* Each fiber's stack: the kernel's private memory and calls. */
enum { LW_STACK_BYTES = 256 * 1024 };

typedef struct {
    ucontext_t context;
    lw_work_group group;
    lw_vector_trampoline vector; /* one SIMD group, or */
    lw_scalar_trampoline scalar; /* one work-item */
    void **args;
    int state;
    char *stack;
} lw_fiber;

static __thread ucontext_t scheduler;
static __thread lw_fiber *running;
static __thread lw_fiber *fibers;
static __thread size_t fiber_capacity;

void __lw_barrier(void) {
    if (!running) return; /* run without fibers: the kernel has no barrier */
    running->state = LW_AT_BARRIER;
    swapcontext(&running->context, &scheduler);
}

static void fiber_main(void) {
    if (running->vector)
        running->vector(running->args, 1);
    else
        running->scalar(running->args);
    running->state = LW_DONE; /* uc_link returns to the scheduler */
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

/* Runs one work-group: the work-items of each row (dimension 0) W at a
 * time through `vector` (if any), the rest one at a time through `scalar`.
 * With `use_fibers`, each call is a fiber and `__lw_barrier` switches
 * between them. Returns 0, -1 when memory for fibers ran out, -2 when some
 * work-items finished while others waited at a barrier (a barrier not
 * reached by every work-item: undefined in OpenCL, reported). */
int __lw_run_work_group(const lw_work_group *group, lw_vector_trampoline vector,
                        lw_scalar_trampoline scalar, unsigned width, void **args, int use_fibers) {
    lw_work_group item = *group;
    size_t count = 0;
    size_t simd_groups = vector ? group->local_size[0] / width : 0;
    for (size_t z = 0; z < group->local_size[2]; z++) {
        for (size_t y = 0; y < group->local_size[1]; y++) {
            item.local_id[1] = y, item.local_id[2] = z;
            if (!use_fibers) {
                item.local_id[0] = 0;
                current = item;
                if (simd_groups) vector(args, simd_groups);
                for (size_t x = simd_groups * width; x < group->local_size[0]; x++) {
                    current.local_id[0] = x;
                    scalar(args);
                }
                continue;
            }
            for (size_t x = 0; x < group->local_size[0]; x += x < simd_groups * width ? width : 1) {
                if (reserve_fibers(count + 1)) return -1;
                item.local_id[0] = x;
                fibers[count].group = item;
                fibers[count].vector = x < simd_groups * width ? vector : NULL;
                fibers[count++].scalar = scalar;
            }
        }
    }
    if (!use_fibers) return 0;
    for (size_t i = 0; i < count; i++) {
        lw_fiber *fiber = &fibers[i];
        fiber->args = args;
        fiber->state = LW_READY;
        getcontext(&fiber->context);
        fiber->context.uc_stack.ss_sp = fiber->stack;
        fiber->context.uc_stack.ss_size = LW_STACK_BYTES;
        fiber->context.uc_link = &scheduler;
        makecontext(&fiber->context, fiber_main, 0);
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
            swapcontext(&scheduler, &fiber->context);
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
                         lw_vector_trampoline vector, lw_scalar_trampoline scalar, unsigned width,
                         void **args, int use_fibers) {
    lw_work_group group = *range;
    size_t groups0 = range->num_groups[0], groups1 = range->num_groups[1];
    for (size_t index = first; index < first + count; index++) {
        group.group_id[0] = index % groups0;
        group.group_id[1] = index / groups0 % groups1;
        group.group_id[2] = index / (groups0 * groups1);
        int status = __lw_run_work_group(&group, vector, scalar, width, args, use_fibers);
        if (status) return status;
    }
    return 0;
}
