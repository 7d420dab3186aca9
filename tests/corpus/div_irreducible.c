// Covers: irreducible control flow (thesis 6.5): gotos into a loop from
// two places and a state machine written with labels, whose cycles have
// several entries. Lanewise gives each cycle one header, a dispatch block
// whose phi records the entry each lane took; lanes entering at different
// labels make the dispatch a divergent branch in a divergent loop.

// `goto` into the middle of a loop: the cycle first <-> second is entered
// at `first` or at `second` depending on x.
#pragma omp declare simd notinbranch
int tangled(int x) {
  int steps = 0;
  if (x > 5) goto second;
first:
  x += 3;
  if (x & 1) return x * 7 + steps;
second:
  x -= 2;
  steps++;
  if (x > 0 && steps < 100) goto first;
  return x - steps;
}

// A state machine over labels: the state is picked from the input, each
// state moves to the next one on the bits of a running hash, and the
// cycle s0 -> s1 -> s2 -> s0 (with shortcuts) is entered at all three.
#pragma omp declare simd notinbranch
unsigned machine(unsigned seed, int budget) {
  unsigned h = seed * 2654435761u;
  int left = budget & 31;
  switch (seed % 3u) {
  case 0: goto s0;
  case 1: goto s1;
  default: goto s2;
  }
s0:
  h = h * 31u + 7u;
  if (--left <= 0) return h;
  if (h & 4u) goto s2;
s1:
  h ^= h >> 13;
  if (--left <= 0) return h + 1u;
  if (h & 2u) goto s0;
s2:
  h += 0x9e3779b9u;
  if (--left <= 0) return h ^ 5u;
  if (h & 1u) goto s1;
  goto s0;
}

// An irreducible cycle inside a natural loop, with a float result.
#pragma omp declare simd notinbranch
float nested(float v, int rounds) {
  float acc = 0.0f;
  for (int r = 0; r < (rounds & 7); r++) {
    float t = v + (float)r;
    int guard = 0; // 1.5 is a fixed point of up/down
    if (t > 2.0f) goto down;
  up:
    t = t * 1.5f + 0.25f;
    if (t > 40.0f) { acc += t; continue; }
  down:
    t = t - 1.0f;
    if (t > 0.5f && ++guard < 50) goto up;
    acc -= t;
  }
  return acc;
}
