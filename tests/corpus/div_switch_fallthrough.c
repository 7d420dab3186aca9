// Covers (divergent): switches on varying values with fallthrough between
// cases, a shared default, cases that return early, and a switch inside a
// loop with a varying trip count (varying switches are linearized into a
// cascade of masks).
#pragma omp declare simd
int switch_fallthrough(int x) {
    int result = 1;
    switch (x & 7) {
    case 0:
        result += 10;
    case 1:
        result *= 3;
        break;
    case 2:
    case 3:
        result = x >> 3;
    case 4:
        result -= 5;
        break;
    case 6:
        return (int)(-(unsigned)x & 0xffu);
    default:
        result = 42;
    }
    return result;
}

#pragma omp declare simd
double switch_in_loop(double x, int code) {
    double value = x;
    unsigned state = (unsigned)code;
    int steps = (code >> 4) & 7;
    for (int k = 0; k < steps; k++) {
        switch (state & 3u) {
        case 0:
            value = value * 2.0;
        case 1:
            value = value + 1.0;
            break;
        case 2:
            value = -value;
            break;
        default:
            break;
        }
        state = state * 5u + 1u;
    }
    return value;
}

#pragma omp declare simd
float switch_sparse(float x, int key) {
    switch (key) {
    case -1:
        return x;
    case 17:
        x = x * 2.0f;
    case 100:
        x = x + 1.0f;
        break;
    case 1000000:
        x = 0.0f;
        break;
    case 3:
    case 4:
    case 5:
        return x * x;
    }
    return x - 1.0f;
}
