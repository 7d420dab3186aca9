#include "kernels.h"

#pragma omp declare simd notinbranch simdlen(16)
signed char kc(signed char c) { return (signed char)((int)kf((float)c, 7) & 0x7f); }
