/* Sparse matrix times vector (CSR, one row per work-item): rows of 0 to 63
 * entries, a loop whose trip count differs across the lanes (Parboil's
 * spmv). */
#include "common.h"

static const char *source =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void spmv(__global const int *row_start, __global const int *columns,\n"
    "                   __global const float *values, __global const float *x, __global float *y) {\n"
    "  int row = get_global_id(0);\n"
    "  float sum = 0.0f;\n"
    "  for (int k = row_start[row]; k < row_start[row + 1]; k++) sum += values[k] * x[columns[k]];\n"
    "  y[row] = sum;\n"
    "}\n";

enum { ROWS = 1 << 16, MAX_ENTRIES = 64 };
static int row_start[ROWS + 1], *columns;
static float *values, x[ROWS], y[ROWS];
static cl_kernel kernel;

static void step(void) {
    size_t global = ROWS, local = 128;
    lw_run(kernel, 1, &global, &local);
}

int main(int argc, char **argv) {
    lw_setup("spmv", argc, argv);
    int entries = 0;
    for (int r = 0; r < ROWS; r++) row_start[r] = entries, entries += (int)(lw_random() % MAX_ENTRIES);
    row_start[ROWS] = entries;
    columns = malloc(entries * sizeof(int));
    values = malloc(entries * sizeof(float));
    for (int k = 0; k < entries; k++) columns[k] = (int)(lw_random() % ROWS), values[k] = lw_random_float(-1, 1);
    for (int i = 0; i < ROWS; i++) x[i] = lw_random_float(-1, 1);
    kernel = lw_kernel(lw_build(source, ""), "spmv");
    cl_mem rb = lw_buffer(CL_MEM_READ_ONLY, sizeof row_start, row_start);
    cl_mem cb = lw_buffer(CL_MEM_READ_ONLY, entries * sizeof(int), columns);
    cl_mem vb = lw_buffer(CL_MEM_READ_ONLY, entries * sizeof(float), values);
    cl_mem xb = lw_buffer(CL_MEM_READ_ONLY, sizeof x, x);
    cl_mem yb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof y, NULL);
    LW_ARG(kernel, 0, rb);
    LW_ARG(kernel, 1, cb);
    LW_ARG(kernel, 2, vb);
    LW_ARG(kernel, 3, xb);
    LW_ARG(kernel, 4, yb);
    lw_time(step);
    lw_read(yb, sizeof y, y);
    for (int r = 0; r < ROWS; r++) {
        float sum = 0.0f;
        for (int k = row_start[r]; k < row_start[r + 1]; k++) sum += values[k] * x[columns[k]];
        CHECK(y[r] == sum, "row %d: %.9g, not %.9g", r, y[r], sum);
    }
    lw_done();
    return 0;
}
