// Covers: linear with a step held in a uniform parameter (`ls<p>` in the
// variant name) on an integer index, used masked into a table (a gather with
// a runtime stride), and a linear integer with a constant step of 3.
#pragma omp declare simd uniform(table, step) linear(i:step) notinbranch
float variable_step_index(const float *table, int i, int step) { return table[i & 2047] + (float)step; }

#pragma omp declare simd linear(i:3) notinbranch
int constant_step_three(int i, int x) { return i * 10 + x; }
