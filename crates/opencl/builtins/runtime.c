/* The per-thread work-group description the work-item functions read
 * (builtins/workitem.cl), compiled into every program's shared object. */
#include <stddef.h>

typedef struct {
    unsigned dims;
    size_t global_offset[3];
    size_t global_size[3];
    size_t local_size[3];
    size_t group_id[3];
    size_t num_groups[3];
    size_t local_id[3];
} lw_work_group;

static __thread lw_work_group current;

const lw_work_group *__lw_work_group(void) { return &current; }

/* Called by the executor before each SIMD group (or work-item) it runs. */
void __lw_set_work_group(const lw_work_group *group) { current = *group; }
