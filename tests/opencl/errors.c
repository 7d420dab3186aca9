/* Error paths: a program that does not compile (CL_BUILD_PROGRAM_FAILURE
 * and a build log naming the error), wrong argument indices and sizes,
 * unset arguments, invalid work sizes and dimensions, an unknown kernel
 * name; on Lanewise also the use of a released object (undefined in the
 * specification, so not asked of other platforms). */
#include "common.h"

static const char *source =
    "__kernel void k(__global int *p, int v, __local float *scratch) {\n"
    "  scratch[get_local_id(0)] = v; p[get_global_id(0)] = (int)scratch[get_local_id(0)];\n"
    "}\n";

static void step(void) {}

int main(int argc, char **argv) {
    lw_setup("errors", argc, argv);
    int lanewise = argc < 2 || strstr(argv[1], "Lanewise") != NULL;
    cl_int err;

    const char *broken = "__kernel void k(__global int *p) { p[0] = undefined_name; }";
    cl_program bad = clCreateProgramWithSource(lw_context, 1, &broken, NULL, &err);
    OK(err);
    CHECK(clBuildProgram(bad, 1, &lw_device, NULL, NULL, NULL) == CL_BUILD_PROGRAM_FAILURE, "broken source");
    static char log[16384];
    OK(clGetProgramBuildInfo(bad, lw_device, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL));
    CHECK(strstr(log, "undefined_name") != NULL, "the log names the error: %s", log);
    cl_build_status status;
    OK(clGetProgramBuildInfo(bad, lw_device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, NULL));
    CHECK(status == CL_BUILD_ERROR, "status %d", status);
    CHECK(clCreateKernel(bad, "k", &err) == NULL && err == CL_INVALID_PROGRAM_EXECUTABLE, "kernel of a failed build: %d", err);
    OK(clReleaseProgram(bad));

    cl_program program = lw_build(source, "");
    CHECK(clCreateKernel(program, "nope", &err) == NULL && err == CL_INVALID_KERNEL_NAME, "unknown kernel: %d", err);
    cl_kernel kernel = lw_kernel(program, "k");
    cl_mem buffer = lw_buffer(CL_MEM_READ_WRITE, 1024 * sizeof(int), NULL);
    int v = 7;
    short small = 1;
    CHECK(clSetKernelArg(kernel, 3, sizeof v, &v) == CL_INVALID_ARG_INDEX, "argument index 3");
    CHECK(clSetKernelArg(kernel, 1, sizeof small, &small) == CL_INVALID_ARG_SIZE, "2 bytes for an int");
    CHECK(clSetKernelArg(kernel, 0, sizeof(int), &v) == CL_INVALID_ARG_SIZE, "4 bytes for a buffer");
    size_t global = 1024, local = 64;
    CHECK(clEnqueueNDRangeKernel(lw_queue, kernel, 1, NULL, &global, &local, 0, NULL, NULL) == CL_INVALID_KERNEL_ARGS,
          "arguments not set");
    LW_ARG(kernel, 0, buffer);
    LW_ARG(kernel, 1, v);
    OK(clSetKernelArg(kernel, 2, 64 * sizeof(float), NULL));
    CHECK(clEnqueueNDRangeKernel(lw_queue, kernel, 0, NULL, &global, &local, 0, NULL, NULL) == CL_INVALID_WORK_DIMENSION,
          "0 dimensions");
    CHECK(clEnqueueNDRangeKernel(lw_queue, kernel, 4, NULL, &global, &local, 0, NULL, NULL) == CL_INVALID_WORK_DIMENSION,
          "4 dimensions");
    size_t odd_local = 48;
    CHECK(clEnqueueNDRangeKernel(lw_queue, kernel, 1, NULL, &global, &odd_local, 0, NULL, NULL) ==
              CL_INVALID_WORK_GROUP_SIZE,
          "1024 %% 48 != 0");
    size_t huge_local = 1 << 20, huge_global = 1 << 20;
    CHECK(clEnqueueNDRangeKernel(lw_queue, kernel, 1, NULL, &huge_global, &huge_local, 0, NULL, NULL) != CL_SUCCESS,
          "a work-group larger than the device allows");
    lw_run(kernel, 1, &global, &local);
    int out[1024];
    lw_read(buffer, sizeof out, out);
    for (int i = 0; i < 1024; i++) CHECK(out[i] == 7, "element %d: %d", i, out[i]);

    if (lanewise) {
        OK(clReleaseMemObject(buffer));
        size_t size;
        CHECK(clGetMemObjectInfo(buffer, CL_MEM_SIZE, sizeof size, &size, NULL) == CL_INVALID_MEM_OBJECT, "released buffer");
        OK(clReleaseKernel(kernel));
        CHECK(clSetKernelArg(kernel, 1, sizeof v, &v) == CL_INVALID_KERNEL, "released kernel");
        OK(clReleaseProgram(program));
        CHECK(clCreateKernel(program, "k", &err) == NULL && err == CL_INVALID_PROGRAM, "released program: %d", err);
    }
    lw_time(step);
    lw_done();
    return 0;
}
