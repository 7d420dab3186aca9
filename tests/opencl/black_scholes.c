/* Black-Scholes option pricing, 4M options: exp, log, sqrt and a
 * polynomial normal distribution (AMD APP SDK's BlackScholes). Compared
 * with the C library's double-precision result within 1e-4 relative, as
 * each platform's exp and log round their own way. */
#include "common.h"

static const char *source =
    "float cnd(float d) {\n"
    "  const float a1 = 0.31938153f, a2 = -0.356563782f, a3 = 1.781477937f, a4 = -1.821255978f, a5 = 1.330274429f;\n"
    "  float k = 1.0f / (1.0f + 0.2316419f * fabs(d));\n"
    "  float c = 0.3989422804f * exp(-0.5f * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));\n"
    "  return d > 0.0f ? 1.0f - c : c;\n"
    "}\n"
    "__kernel void black_scholes(__global const float *s, __global const float *x, __global const float *t,\n"
    "                            __global float *call, __global float *put, float r, float v) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float sq = sqrt(t[i]);\n"
    "  float d1 = (log(s[i] / x[i]) + (r + 0.5f * v * v) * t[i]) / (v * sq), d2 = d1 - v * sq;\n"
    "  float e = exp(-r * t[i]);\n"
    "  call[i] = s[i] * cnd(d1) - x[i] * e * cnd(d2);\n"
    "  put[i] = x[i] * e * cnd(-d2) - s[i] * cnd(-d1);\n"
    "}\n";

enum { N = 1 << 22 };
static float s[N], x[N], t[N], call[N], put[N];
static cl_kernel kernel;

static void step(void) {
    size_t global = N, local = 256;
    lw_run(kernel, 1, &global, &local);
}

static double cnd(double d) {
    const double a1 = 0.31938153, a2 = -0.356563782, a3 = 1.781477937, a4 = -1.821255978, a5 = 1.330274429;
    double k = 1.0 / (1.0 + 0.2316419 * fabs(d));
    double c = 0.3989422804 * exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))));
    return d > 0.0 ? 1.0 - c : c;
}

int main(int argc, char **argv) {
    lw_setup("black_scholes", argc, argv);
    for (int i = 0; i < N; i++)
        s[i] = lw_random_float(5, 30), x[i] = lw_random_float(1, 100), t[i] = lw_random_float(0.25f, 10);
    kernel = lw_kernel(lw_build(source, ""), "black_scholes");
    cl_mem sb = lw_buffer(CL_MEM_READ_ONLY, sizeof s, s), xb = lw_buffer(CL_MEM_READ_ONLY, sizeof x, x);
    cl_mem tb = lw_buffer(CL_MEM_READ_ONLY, sizeof t, t), cb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof call, NULL);
    cl_mem pb = lw_buffer(CL_MEM_WRITE_ONLY, sizeof put, NULL);
    float r = 0.02f, v = 0.30f;
    LW_ARG(kernel, 0, sb);
    LW_ARG(kernel, 1, xb);
    LW_ARG(kernel, 2, tb);
    LW_ARG(kernel, 3, cb);
    LW_ARG(kernel, 4, pb);
    LW_ARG(kernel, 5, r);
    LW_ARG(kernel, 6, v);
    lw_time(step);
    lw_read(cb, sizeof call, call);
    lw_read(pb, sizeof put, put);
    for (int i = 0; i < N; i += 97) {
        double sq = sqrt((double)t[i]);
        double d1 = (log((double)s[i] / x[i]) + (r + 0.5 * v * v) * t[i]) / (v * sq), d2 = d1 - v * sq;
        double e = exp(-(double)r * t[i]);
        double want_call = s[i] * cnd(d1) - x[i] * e * cnd(d2), want_put = x[i] * e * cnd(-d2) - s[i] * cnd(-d1);
        CHECK(fabs(call[i] - want_call) <= 1e-4 * fmax(fabs(want_call), 1.0), "call %d: %g, not %g", i, call[i], want_call);
        CHECK(fabs(put[i] - want_put) <= 1e-4 * fmax(fabs(want_put), 1.0), "put %d: %g, not %g", i, put[i], want_put);
    }
    lw_done();
    return 0;
}
