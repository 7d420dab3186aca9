// Bytecode interpreter (irregular: a `switch` on a varying value with eight
// cases): each lane runs 48 instructions of a shared 256-byte program from
// its own start, so lanes take different cases at every step. The low three
// bits of a byte select the operation, the others how far to jump.
#pragma omp declare simd uniform(code) notinbranch
int bytecode(const unsigned char *code, int start) {
    unsigned acc = (unsigned)start, r = 1;
    int pc = start & 255;
    for (int step = 0; step < 48; step++) {
        unsigned op = code[pc];
        switch (op & 7) {
        case 0: acc += r; break;
        case 1: acc -= 3 * r; break;
        case 2: acc ^= acc >> 3; break;
        case 3: r = r * 5 + 1; break;
        case 4: acc = (acc << 1) | (r & 1); break;
        case 5: r ^= acc; break;
        case 6: acc = acc > r ? acc - r : r - acc; break;
        default: acc += op; break;
        }
        pc = (pc + 1 + (int)(op >> 3)) & 255;
    }
    return (int)(acc ^ r);
}
