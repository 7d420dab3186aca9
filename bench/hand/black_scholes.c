// Hand-written AVX2 Black-Scholes with ext_vector_type: the same formula on
// 8 options at once, exp/log from glibc's libmvec AVX2 entry points, the
// CDF's sign test as a vector select.
typedef float v8f __attribute__((ext_vector_type(8)));
typedef int v8i __attribute__((ext_vector_type(8)));

v8f _ZGVdN8v_expf(v8f);
v8f _ZGVdN8v_logf(v8f);

static v8f normal_cdf8(v8f d) {
    v8f x = __builtin_elementwise_abs(d);
    v8f k = 1.0f / (1.0f + 0.2316419f * x);
    v8f poly = k * (0.319381530f +
                    k * (-0.356563782f + k * (1.781477937f + k * (-1.821255978f + k * 1.330274429f))));
    v8f tail = 0.39894228f * _ZGVdN8v_expf(-0.5f * x * x) * poly;
    return d < 0.0f ? tail : 1.0f - tail;
}

v8f black_scholes_hand(v8f spot, v8f strike, v8f years, float rate, float volatility) {
    v8f sqrt_years = __builtin_elementwise_sqrt(years);
    v8f d1 = (_ZGVdN8v_logf(spot / strike) + (rate + 0.5f * volatility * volatility) * years) /
             (volatility * sqrt_years);
    v8f d2 = d1 - volatility * sqrt_years;
    return spot * normal_cdf8(d1) - strike * _ZGVdN8v_expf(-rate * years) * normal_cdf8(d2);
}
