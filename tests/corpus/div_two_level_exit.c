// Covers (divergent): exits that leave two loops at once (break out of the
// inner loop carrying a flag is replaced by goto out of both), so the inner
// loop's exit targets a block outside the outer loop; the outer loop's other
// lanes keep iterating; live-out values from both loop levels.
#pragma omp declare simd
int matrix_search(int key) {
    int needle = key & 255;
    int row, column;
    for (row = 0; row < 10; row++) {
        int value = row * 17;
        for (column = 0; column < 10; column++) {
            value = (value * 7 + column) & 255;
            if (value == needle)
                goto found;
        }
    }
    return -1;
found:
    return row * 16 + column;
}

#pragma omp declare simd
float double_loop_exit(float x, int n) {
    float a = x;
    int outer_limit = (n & 7) + 1;
    for (int i = 0; i < outer_limit; i++) {
        for (int j = 0; j <= i; j++) {
            a = a * 0.75f + (float)(i - j);
            if (a > 64.0f)
                goto leave;
            if (a != a)
                return -2.0f;
        }
        a = a - 0.5f;
    }
    return a;
leave:
    return a + 100.0f;
}
