// Covers (divergent): insertion sort of a small private array loaded from a
// varying pointer: the inner while loop's trip count depends on the data (an
// exit on a varying comparison, and one on the index), private stores at
// varying indices, and an early-exit check for an already sorted input.
#pragma omp declare simd
int median_of_eight(const int *values) {
    int a[8];
    for (int k = 0; k < 8; k++)
        a[k] = values[k] >> 4;
    int sorted = 1;
    for (int k = 1; k < 8; k++) {
        if (a[k - 1] > a[k]) {
            sorted = 0;
            break;
        }
    }
    if (sorted)
        return a[3] - 1;
    for (int k = 1; k < 8; k++) {
        int key = a[k];
        int j = k - 1;
        while (j >= 0 && a[j] > key) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = key;
    }
    return a[3] + a[4] / 2;
}
