// Covers (divergent): loops with `continue` under varying conditions (the
// latch is reached from several divergent paths), combined with a varying
// break, and a continue that skips a guarded store.
#pragma omp declare simd
int skip_multiples(int x) {
    int n = x & 63;
    int sum = 0;
    for (int k = 1; k <= n; k++) {
        if (k % 3 == 0)
            continue;
        if ((k & 5) == 5 && (x & 64))
            continue;
        sum += k;
        if (sum > 500)
            break;
    }
    return sum;
}

#pragma omp declare simd linear(out:8)
void store_unless_skipped(float *out, float x) {
    for (int k = 0; k < 8; k++) {
        float value = x * (float)(k + 1);
        if (value < 0.0f)
            continue;
        if (value > 300.0f)
            break;
        out[k] = value;
    }
}
