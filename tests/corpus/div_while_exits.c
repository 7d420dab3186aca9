// Covers (divergent): while loops with several exits: break, return and the
// loop condition each leave the loop under varying conditions, with
// different live-out values per exit (one exit mask per exit, trackers for
// the values, dispatch to the right exit after the loop).
#pragma omp declare simd
int several_exits(int x) {
    unsigned state = (unsigned)x | 1u;
    int k = 0;
    int result;
    while (k < 40) {
        state = state * 2654435761u;
        if ((state >> 27) == 5u) {
            result = 1000 + k;
            break;
        }
        if ((state >> 26) == 1u)
            return -k;
        if ((state & 0xf0u) == 0x30u) {
            result = (int)(state & 0xffu);
            goto tail;
        }
        k++;
    }
    if (k == 40)
        return 7777;
    result += 1;
tail:
    return result * 2;
}

#pragma omp declare simd uniform(eps)
float newton_sqrt_exits(float x, float eps) {
    if (!(x > 0.0f) || x > 1e30f)
        return 0.0f;
    float tolerance = eps < 0.0f ? -eps : eps;
    float guess = x > 1.0f ? x : 1.0f;
    int k = 0;
    for (;;) {
        float next = 0.5f * (guess + x / guess);
        if (k++ > 30)
            return -next;
        float delta = guess - next;
        if (delta < 0.0f)
            delta = -delta;
        if (delta <= tolerance)
            return next;
        if (next == guess)
            break;
        guess = next;
    }
    return guess + 1.0f;
}
