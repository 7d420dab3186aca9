// Lanewise's OpenCL C builtins, part 1: the work-item functions (OpenCL 1.2
// section 6.12.1), linked into every program.
//
// The executor (src/executor.rs) runs a kernel for one SIMD group of W
// work-items at a time, consecutive in dimension 0, through the kernel's
// vector variant (all parameters uniform). The group's description is a
// per-thread `lw_work_group` (runtime.c) whose address `__lw_work_group()`
// returns; `const`, so Lanewise sees the same value in every lane, and the
// loads from it are uniform. `local_id[0]` holds the SIMD group's first
// work-item; each lane adds its lane number (`rv_lane_id()`, Strided(1) to
// Lanewise's shape analysis, 0 in the scalar kernel), so `get_local_id(0)`
// and `get_global_id(0)` are consecutive across the lanes and every other
// query is uniform, as the WFV thesis (8.2) seeds them.

typedef struct {
    uint dims;
    size_t global_offset[3];
    size_t global_size[3];
    size_t local_size[3];
    size_t group_id[3];
    size_t num_groups[3];
    size_t local_id[3];
    ulong resume, reached; /* continuations (runtime.c) */
    void *spill;
} lw_work_group;

const lw_work_group *__lw_work_group(void) __attribute__((const));
uint rv_lane_id(void) __attribute__((const));

#define LW_DEF __attribute__((overloadable, always_inline))

LW_DEF uint get_work_dim(void) { return __lw_work_group()->dims; }

LW_DEF size_t get_global_size(uint d) { return d < 3 ? __lw_work_group()->global_size[d] : 1; }

LW_DEF size_t get_local_size(uint d) { return d < 3 ? __lw_work_group()->local_size[d] : 1; }

LW_DEF size_t get_num_groups(uint d) { return d < 3 ? __lw_work_group()->num_groups[d] : 1; }

LW_DEF size_t get_group_id(uint d) { return d < 3 ? __lw_work_group()->group_id[d] : 0; }

LW_DEF size_t get_global_offset(uint d) { return d < 3 ? __lw_work_group()->global_offset[d] : 0; }

// The lane number goes through `int` and `long` so that it is sign-extended:
// Lanewise keeps a sign extension of a linear value linear, where a zero
// extension of one whose lanes might cross zero becomes varying.
LW_DEF size_t get_local_id(uint d) {
    const lw_work_group *group = __lw_work_group();
    if (d == 0) return group->local_id[0] + (size_t)(long)(int)rv_lane_id();
    return d < 3 ? group->local_id[d] : 0;
}

LW_DEF size_t get_global_id(uint d) {
    const lw_work_group *group = __lw_work_group();
    if (d >= 3) return 0;
    return group->global_offset[d] + group->group_id[d] * group->local_size[d] + get_local_id(d);
}

// Synchronization (6.12.8). A kernel that calls `barrier` in its own body
// is rewritten into continuation form (src/continuations.rs), where each
// `__lw_barrier` call ends a region and no call remains. In a kernel that
// form cannot express, a barrier suspends the SIMD group (a fiber of
// runtime.c) until every SIMD group of the work-group reached it;
// `__lw_barrier` is then a group function of the build (compiler.rs): the
// vector variant calls it once for its W work-items, not once per lane.
void __lw_barrier(void);

__attribute__((overloadable)) void barrier(cl_mem_fence_flags flags) {
    (void)flags;
    __lw_barrier();
}

// The work-items of a group share one thread, so a fence needs nothing
// beyond the ordering the compiler keeps around these calls.
__attribute__((overloadable)) void mem_fence(cl_mem_fence_flags flags) { (void)flags; }
__attribute__((overloadable)) void read_mem_fence(cl_mem_fence_flags flags) { (void)flags; }
__attribute__((overloadable)) void write_mem_fence(cl_mem_fence_flags flags) { (void)flags; }
