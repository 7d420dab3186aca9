/* Sum of 4M integers: each work-group reduces its part in local memory (a
 * tree with a barrier per level), the host adds the groups' sums. */
#include "common.h"

static const char *source =
    "__kernel void reduce(__global const int *in, __global long *partial, __local long *tree, int per_item) {\n"
    "  size_t l = get_local_id(0), n = get_local_size(0);\n"
    "  size_t first = get_global_id(0) * per_item;\n"
    "  long sum = 0;\n"
    "  for (int k = 0; k < per_item; k++) sum += in[first + k];\n"
    "  tree[l] = sum;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  for (size_t h = n / 2; h > 0; h /= 2) {\n"
    "    if (l < h) tree[l] += tree[l + h];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  }\n"
    "  if (l == 0) partial[get_group_id(0)] = tree[0];\n"
    "}\n";

enum { N = 1 << 22, PER_ITEM = 16, LOCAL = 128, GROUPS = N / PER_ITEM / LOCAL };
static int in[N];
static long long partial[GROUPS];
static cl_kernel kernel;

static void step(void) {
    size_t global = N / PER_ITEM, local = LOCAL;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("reduction", argc, argv);
    long long want = 0;
    for (int i = 0; i < N; i++) in[i] = (int)(lw_random() % 2001) - 1000, want += in[i];
    kernel = lw_kernel(lw_build(source, ""), "reduce");
    cl_mem inb = lw_buffer(CL_MEM_READ_ONLY, sizeof in, in), pb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof partial, NULL);
    int per_item = PER_ITEM;
    LW_ARG(kernel, 0, inb);
    LW_ARG(kernel, 1, pb);
    OK(clSetKernelArg(kernel, 2, LOCAL * sizeof(cl_long), NULL));
    LW_ARG(kernel, 3, per_item);
    lw_time(step);
    lw_read(pb, sizeof partial, partial);
    long long got = 0;
    for (int g = 0; g < GROUPS; g++) got += partial[g];
    CHECK(got == want, "%lld, not %lld", got, want);
    lw_done();
    return 0;
}
