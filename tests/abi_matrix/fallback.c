#include "kernels.h"

float kw(float x) { return x * 0.5f - 3.0f; }
