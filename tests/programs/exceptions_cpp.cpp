// C++ exceptions around omp simd loops: the loops live in
// functions with try/catch, a std::vector (whose allocation may throw) and a
// destructor that runs while unwinding. Some batches throw before their loop
// runs, others after it; the loops themselves call nothing that throws, so
// they are vectorized and the exception handling around them passes through.
#include <stdexcept>
#include <vector>

#include "programs.h"

static int live_guards = 0;
static int caught_invalid = 0;
static int caught_codes = 0;

struct Guard {
    Guard() { live_guards++; }
    ~Guard() { live_guards--; }
};

__attribute__((noinline)) static void check_batch(int batch, float limit) {
    if (batch % 5 == 3) throw std::invalid_argument("batch rejected");
    if (limit < 1.0f) throw batch;
}

// Halves every value until it is below the limit (a divergent inner loop).
__attribute__((noinline)) static void settle(int batch, std::vector<float> &values, float limit) {
    Guard guard;
    try {
        check_batch(batch, limit);
        float *data = values.data();
        int n = static_cast<int>(values.size());
#pragma omp simd
        for (int i = 0; i < n; i++) {
            float x = data[i];
            int steps = 0;
            while (x > limit) {
                x *= 0.5f;
                steps++;
            }
            data[i] = x + 0.001f * static_cast<float>(steps);
        }
        if (batch % 7 == 6) throw batch * 100;
    } catch (const std::invalid_argument &) {
        caught_invalid++;
    }
}

// A fresh copy of the values, each raised to at least `floor` by repeated
// doubling; the copy's allocation may throw.
__attribute__((noinline)) static std::vector<float> raised(const std::vector<float> &values, float floor) {
    std::vector<float> result(values.size());
    const float *source = values.data();
    float *target = result.data();
    int n = static_cast<int>(values.size());
#pragma omp simd
    for (int i = 0; i < n; i++) {
        float x = source[i] + 0.125f;
        while (x < floor) x *= 2.0f;
        target[i] = x;
    }
    return result;
}

static void run_batches(std::vector<float> &values, std::vector<float> &copies) {
    for (int batch = 0; batch < 12; batch++) {
        float limit = batch == 10 ? 0.5f : 2.0f + static_cast<float>(batch);
        try {
            settle(batch, values, limit);
        } catch (int code) {
            caught_codes += code;
        }
    }
    copies = raised(values, 3.0f);
}

int main() {
    const int n = 1003;
    std::vector<float> values(n), copies;
    for (int i = 0; i < n; i++) values[i] = lw_float(0.0f, 400.0f);
    std::vector<float> start = values;
    LW_TIMED({
        values = start;
        caught_invalid = 0;
        caught_codes = 0;
        run_batches(values, copies);
    });
    lw_print_floats("settled", values.data(), n);
    lw_print_floats("raised", copies.data(), n);
    printf("caught: %d invalid, codes %d, live guards %d\n", caught_invalid, caught_codes, live_guards);
    return 0;
}
