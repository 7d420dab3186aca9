// C++: declare simd on functions in a namespace and a static member, an omp
// simd loop over a std::vector, templates instantiated for float and double.
#include <vector>

#include "programs.h"

namespace physics {

#pragma omp declare simd notinbranch uniform(floor_height)
float bounce_height(float height, float floor_height) {
    int bounces = 0;
    while (height > floor_height && bounces < 50) {
        height = floor_height + (height - floor_height) * 0.6f;
        bounces++;
    }
    return height + 0.01f * static_cast<float>(bounces);
}

struct Damper {
#pragma omp declare simd notinbranch
    static double settle(double velocity) {
        int steps = 0;
        while (velocity > 0.5 || velocity < -0.5) {
            velocity *= -0.7;
            steps++;
        }
        return velocity + steps;
    }
};

}  // namespace physics

template <typename T, typename F>
static void apply(const std::vector<T> &in, std::vector<T> &out, F function) {
    const T *source = in.data();
    T *target = out.data();
    int n = static_cast<int>(in.size());
#pragma omp simd
    for (int i = 0; i < n; i++) target[i] = function(source[i]);
}

int main() {
    const int n = 1531;
    std::vector<float> heights(n), settled_heights(n);
    std::vector<double> velocities(n), settled(n);
    for (int i = 0; i < n; i++) {
        heights[i] = lw_float(0.0f, 100.0f);
        velocities[i] = lw_double(-40.0, 40.0);
    }
    LW_TIMED({
        apply(heights, settled_heights, [](float h) { return physics::bounce_height(h, 2.0f); });
        apply(velocities, settled, [](double v) { return physics::Damper::settle(v); });
    });
    lw_print_floats("heights", settled_heights.data(), n);
    lw_print_doubles("velocities", settled.data(), n);
    return 0;
}
