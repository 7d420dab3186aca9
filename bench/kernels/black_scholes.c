// Black-Scholes (coherent): price of a European call,
//   C = S N(d1) - K exp(-r T) N(d2),
//   d1 = (ln(S/K) + (r + v^2/2) T) / (v sqrt(T)),  d2 = d1 - v sqrt(T),
// with the normal CDF N from the Abramowitz-Stegun polynomial 26.2.17.
#include <math.h>

static float normal_cdf(float d) {
    float x = fabsf(d);
    float k = 1.0f / (1.0f + 0.2316419f * x);
    float poly = k * (0.319381530f +
                      k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    float tail = 0.39894228f * expf(-0.5f * x * x) * poly;
    return d < 0.0f ? tail : 1.0f - tail;
}

#pragma omp declare simd uniform(rate, volatility) notinbranch
float black_scholes(float spot, float strike, float years, float rate, float volatility) {
    float sqrt_years = sqrtf(years);
    float d1 = (logf(spot / strike) + (rate + 0.5f * volatility * volatility) * years) /
               (volatility * sqrt_years);
    float d2 = d1 - volatility * sqrt_years;
    return spot * normal_cdf(d1) - strike * expf(-rate * years) * normal_cdf(d2);
}
