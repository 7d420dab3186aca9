// Covers: bit-fields (clang's loads, shifts, masks and stores of the
// containing word): read-modify-write at a linear address, a signed field,
// fields of a private record. A conditional store of a field next to an
// unconditional one is left out: LLVM 22.1.8 miscompiles the masked
// `vpternlogd` it selects for it at 16 lanes (tests/regressions/
// llc-ternlog-commute.ll, README "Limits").
struct packed {
    unsigned a : 3, b : 5, c : 11;
    int d : 7;
};

#pragma omp declare simd uniform(cells) linear(i)
int bump_fields(struct packed *cells, int i, int v) {
    struct packed *p = &cells[i];
    p->b += v;
    p->d = v >> 2;
    return p->a + p->b + p->c + p->d;
}

#pragma omp declare simd uniform(cells) linear(i)
int guarded_field(struct packed *cells, int i, int v) {
    struct packed *p = &cells[i];
    if (v & 1)
        p->c = v;
    return p->c - p->d;
}

#pragma omp declare simd
int private_fields(int x) {
    struct packed p = {0};
    p.a = x;
    p.c = x >> 3;
    if (x < 0)
        p.d = x;
    return p.a * 3 + p.c - p.d;
}
