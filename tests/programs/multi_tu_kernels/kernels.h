#ifndef KERNELS_H
#define KERNELS_H

#pragma omp declare simd notinbranch uniform(limit)
int escape_time(float cr, float ci, int limit);

#pragma omp declare simd uniform(lambda)
float soft_threshold(float x, float lambda);

#endif
