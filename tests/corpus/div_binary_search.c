// Covers (divergent): binary search with a varying key: a loop whose trip
// count depends on the key, an early divergent return when the key is found,
// over a static sorted table and over a uniform pointer with a uniform length
// (the loads are gathers under the loop's live mask).
static const int sorted_table[64] = {
    -900, -850, -700, -640, -600, -512, -500, -480, -333, -300, -256, -200, -199,
    -150, -128, -100, -64,  -50,  -32,  -16,  -8,   -4,   -2,   -1,   0,    1,
    2,    3,    5,    8,    13,   21,   34,   55,   89,   144,  233,  377,  400,
    450,  500,  512,  550,  600,  610,  640,  700,  720,  750,  800,  810,  850,
    900,  987,  1000, 1024, 1100, 1200, 1300, 1597, 2000, 2584, 3000, 4181};

#pragma omp declare simd
int table_search(int key) {
    int probe = (key % 4096) - 100;
    int lo = 0, hi = 63;
    while (lo <= hi) {
        int middle = (lo + hi) >> 1;
        int value = sorted_table[middle];
        if (value == probe)
            return middle;
        if (value < probe)
            lo = middle + 1;
        else
            hi = middle - 1;
    }
    return -1 - lo;
}

/* Lower bound in data[0 .. n&1023) (the data need not be sorted: the loop
   still terminates and the result is deterministic). */
#pragma omp declare simd uniform(data, n)
int lower_bound_ptr(const float *data, int n, float key) {
    int first = 0;
    int count = n & 1023;
    while (count > 0) {
        int step = count >> 1;
        int middle = first + step;
        if (data[middle] < key) {
            first = middle + 1;
            count -= step + 1;
        } else {
            count = step;
        }
    }
    return first;
}
