/* One Mersenne Twister (MT19937) per work-item, seeded by its id, 2,000
 * numbers each, summed and reduced in 32-bit arithmetic: integer shifts,
 * masks and a 624-word private state array (AMD APP SDK's
 * MersenneTwister keeps one generator per work-item as well). */
#include "common.h"

static const char *source =
    "__kernel void twister(__global uint *out, uint count) {\n"
    "  uint mt[624];\n"
    "  mt[0] = 5489u + (uint)get_global_id(0);\n"
    "  for (uint i = 1; i < 624; i++) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;\n"
    "  uint index = 624, acc = 0;\n"
    "  for (uint n = 0; n < count; n++) {\n"
    "    if (index >= 624) {\n"
    "      for (uint i = 0; i < 624; i++) {\n"
    "        uint y = (mt[i] & 0x80000000u) | (mt[(i + 1) % 624] & 0x7fffffffu);\n"
    "        mt[i] = mt[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);\n"
    "      }\n"
    "      index = 0;\n"
    "    }\n"
    "    uint y = mt[index++];\n"
    "    y ^= y >> 11; y ^= (y << 7) & 0x9d2c5680u; y ^= (y << 15) & 0xefc60000u; y ^= y >> 18;\n"
    "    acc = acc * 31u + y;\n"
    "  }\n"
    "  out[get_global_id(0)] = acc;\n"
    "}\n";

enum { ITEMS = 4096, COUNT = 2000 };
static cl_uint out[ITEMS];
static cl_kernel kernel;

static void step(void) {
    size_t global = ITEMS, local = 64;
    lw_run(kernel, 1, &global, &local);
}

static cl_uint reference(cl_uint id) {
    static cl_uint mt[624];
    mt[0] = 5489u + id;
    for (cl_uint i = 1; i < 624; i++) mt[i] = 1812433253u * (mt[i - 1] ^ (mt[i - 1] >> 30)) + i;
    cl_uint index = 624, acc = 0;
    for (cl_uint n = 0; n < COUNT; n++) {
        if (index >= 624) {
            for (cl_uint i = 0; i < 624; i++) {
                cl_uint y = (mt[i] & 0x80000000u) | (mt[(i + 1) % 624] & 0x7fffffffu);
                mt[i] = mt[(i + 397) % 624] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
            }
            index = 0;
        }
        cl_uint y = mt[index++];
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c5680u;
        y ^= (y << 15) & 0xefc60000u;
        y ^= y >> 18;
        acc = acc * 31u + y;
    }
    return acc;
}

int main(int argc, char **argv) {
    lw_setup("mersenne_twister", argc, argv);
    kernel = lw_kernel(lw_build(source, ""), "twister");
    cl_mem ob = lw_buffer(CL_MEM_WRITE_ONLY, sizeof out, NULL);
    cl_uint count = COUNT;
    LW_ARG(kernel, 0, ob);
    LW_ARG(kernel, 1, count);
    lw_time(step);
    lw_read(ob, sizeof out, out);
    for (cl_uint i = 0; i < ITEMS; i += 37) CHECK(out[i] == reference(i), "item %u: %u, not %u", i, out[i], reference(i));
    lw_done();
    return 0;
}
