// Covers: inline assembly, run once per active lane in lane order (as
// GCC's clones run it): the benchmark idiom that hides a value from the
// optimizer (`"+r"`, and `"+r,m"` / `"+g"` / `"r,m"` with a `"memory"`
// clobber, which clang passes as indirect operands with an `elementtype`),
// a snippet in divergent code, and a memory operand at a linear address.

#pragma omp declare simd
int hidden_product(int x) {
    int y = x * 3;
    __asm__ volatile("" : "+r"(y));
    return y + 1;
}

#pragma omp declare simd
int add_in_branch(int x) {
    int y = x;
    if (x & 1) {
        __asm__("addl $5, %0" : "+r"(y));
        y *= 2;
    }
    return y;
}

#pragma omp declare simd uniform(cells) linear(i)
void bump_cell(int *cells, int i, int v) {
    if (v > 0)
        __asm__ volatile("addl %1, %0" : "+m"(cells[i]) : "r"(v));
}

#pragma omp declare simd
int escape_read(int x) {
    int y = x + 1;
    __asm__ volatile("" : : "r,m"(y) : "memory");
    return y;
}

#pragma omp declare simd
int escape_read_write(int x) {
    int y = x + 1;
    __asm__ volatile("" : "+r,m"(y) : : "memory");
    return y ^ x;
}

#pragma omp declare simd
int general_operand(int x) {
    int y = x + 1;
    if (x < 0)
        __asm__ volatile("" : "+g"(y));
    return y;
}

#pragma omp declare simd
float in_xmm(float x) {
    float y = x * 2;
    __asm__("" : "+x"(y));
    return y;
}
