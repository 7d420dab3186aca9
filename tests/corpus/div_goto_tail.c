// Covers (divergent): gotos into shared tails: several varying conditions
// jump to the same labelled tail blocks (join points reached from many
// divergent branches, phis that become blends), including a tail reached
// both by goto and by fallthrough, and a goto out of a loop into a tail.
#pragma omp declare simd
int classify_with_tails(int x, int y) {
    int value = x ^ y;
    if (x < 0)
        goto negative;
    if ((x & 15) == 3)
        goto special;
    if (y > x)
        goto special;
    value = value + 7;
    if (value & 1)
        goto negative;
    value <<= 1;
    goto done;
negative:
    value = value * 3 + 1;
special:
    value -= y & 255;
done:
    return value & 0xffff;
}

#pragma omp declare simd
float loop_to_tail(float x, int n) {
    float accumulator = x;
    int steps = n & 15;
    for (int k = 0; k < steps; k++) {
        accumulator = accumulator * 1.5f - 2.0f;
        if (accumulator > 1000.0f)
            goto too_large;
        if (accumulator < -1000.0f)
            goto too_small;
    }
    return accumulator;
too_large:
    accumulator = 1000.0f + (float)steps;
    goto clamp;
too_small:
    accumulator = -1000.0f - (float)steps;
clamp:
    return accumulator * 0.5f;
}
