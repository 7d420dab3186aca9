/* What the kernel test programs of this directory share (kernels.c,
 * barriers.c, builtins.c): CHECK and OK, which print the failing line and
 * exit, and opening a context and an in-order queue on the CPU device of
 * the platform named on the command line (Lanewise by default, PoCL as the
 * second opinion). */
#ifndef LANEWISE_TESTS_HOST_H
#define LANEWISE_TESTS_HOST_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                   \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("FAIL line %d: %s: ", __LINE__, #cond);                  \
            printf(__VA_ARGS__);                                           \
            printf("\n");                                                  \
            exit(1);                                                       \
        }                                                                  \
    } while (0)
#define OK(call) do { cl_int e_ = (call); CHECK(e_ == CL_SUCCESS, "%s returned %d", #call, e_); } while (0)

typedef struct {
    const char *platform_name; /* what argv[1] asked for */
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
} lw_host;

/* The CPU device of the platform whose name contains argv[1] ("Lanewise"
 * without one), a context and an in-order queue on it. */
static lw_host lw_open(int argc, char **argv) {
    lw_host host = {argc > 1 ? argv[1] : "Lanewise", NULL, NULL, NULL};
    cl_int err;
    cl_uint count;
    cl_platform_id platforms[16], platform = NULL;
    OK(clGetPlatformIDs(16, platforms, &count));
    for (cl_uint i = 0; i < count && i < 16; i++) {
        char name[256];
        OK(clGetPlatformInfo(platforms[i], CL_PLATFORM_NAME, sizeof name, name, NULL));
        if (strstr(name, host.platform_name)) platform = platforms[i];
    }
    CHECK(platform, "no platform %s", host.platform_name);
    OK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_CPU, 1, &host.device, NULL));
    host.context = clCreateContext(NULL, 1, &host.device, NULL, NULL, &err);
    CHECK(host.context, "context %d", err);
    host.queue = clCreateCommandQueue(host.context, host.device, 0, &err);
    CHECK(host.queue, "queue %d", err);
    return host;
}

#endif
