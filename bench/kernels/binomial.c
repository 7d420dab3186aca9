// Binomial options (coherent): Cox-Ross-Rubinstein lattice for a European
// call. Up factor u = exp(v sqrt(dt)), down d = 1/u, risk-neutral
// probability p = (exp(r dt) - d) / (u - d); leaf values max(S u^j d^(n-j) - K, 0),
// then `steps` rounds of backward induction V_j <- disc (p V_{j+1} + (1-p) V_j)
// in a private array. Only spot and strike vary per option.
#include <math.h>

#define BINOMIAL_MAX_STEPS 256

#pragma omp declare simd uniform(years, rate, volatility, steps) notinbranch
float binomial(float spot, float strike, float years, float rate, float volatility, int steps) {
    float values[BINOMIAL_MAX_STEPS + 1];
    float dt = years / steps;
    float up = expf(volatility * sqrtf(dt));
    float down = 1.0f / up;
    float growth = expf(rate * dt);
    float p = (growth - down) / (up - down);
    float discount = 1.0f / growth;
    float leaf_price = spot;
    for (int j = 0; j < steps; j++) leaf_price *= down;
    float up_over_down = up / down;
    for (int j = 0; j <= steps; j++) {
        values[j] = fmaxf(leaf_price - strike, 0.0f);
        leaf_price *= up_over_down;
    }
    for (int step = steps - 1; step >= 0; step--)
        for (int j = 0; j <= step; j++)
            values[j] = discount * (p * values[j + 1] + (1.0f - p) * values[j]);
    return values[0];
}
