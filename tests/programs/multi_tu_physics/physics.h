#ifndef PHYSICS_H
#define PHYSICS_H

#pragma omp declare simd notinbranch linear(position) uniform(centers, count) simdlen(4)
double potential(const double *position, const double *centers, int count);

#endif
