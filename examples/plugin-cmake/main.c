#include <stdio.h>
#include "kernels.h"

int main(void) {
  static int in[1000], out[1000];
  for (int i = 0; i < 1000; i++) in[i] = i * 7 + 1;
  count_steps(in, out, 997);
  unsigned long long hash = 1469598103934665603ull;
  for (int i = 0; i < 1000; i++) hash = (hash ^ (unsigned)out[i]) * 1099511628211ull;
  printf("%llx\n", hash);
  return 0;
}
