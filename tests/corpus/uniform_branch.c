// Covers: branches on uniform values only (a uniform mode parameter, a uniform
// flag loaded through a uniform pointer, a switch on a uniform value): the
// control flow is the same in every lane and must stay branches.
#pragma omp declare simd uniform(mode) notinbranch
float uniform_mode(float x, int mode) {
    float result;
    if (mode & 1)
        result = x * 2.0f;
    else
        result = x - 3.0f;
    if (mode & 2)
        result = result * result;
    return result;
}

#pragma omp declare simd uniform(flags) notinbranch
int uniform_flag_load(const int *flags, int x) {
    if (flags[0] > 0)
        return x + flags[1];
    return x - flags[2];
}

#pragma omp declare simd uniform(selector) notinbranch
double uniform_switch(double x, int selector) {
    switch (selector & 3) {
    case 0: return x + 1.0;
    case 1: return x * x;
    case 2: return -x;
    default: return x / 4.0;
    }
}
