/* Loads next to unmapped memory: arrays that end right before a page
 * mapped PROT_NONE, or start right after one, scanned by omp simd loops
 * with divergent inner loops whose vector loads cover bytes past the
 * array's end (lanes whose runs reached it) or before its start (lane 0
 * at i = 0). A vectorized load that reads an inactive lane's bytes must
 * stay within the page of an active lane (Lanewise's page-safe
 * speculative loads): here one byte further is a fault. simdlen keeps a
 * vector within one register of AVX-512 (16 ints) or AVX2 (8 ints), where
 * the speculative form applies. */
#include "programs.h"

#include <sys/mman.h>
#include <unistd.h>

#define N 1000

static int runs[N], falls[N];

/* For each i, how far the values keep rising from v[i]. */
static void rising_runs(const int *v, int n, int *out) {
#pragma omp simd simdlen(16)
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (i + k + 1 < n && v[i + k + 1] > v[i + k]) k++;
        out[i] = k;
    }
}

/* The same with 8 lanes, one AVX2 register. */
static void rising_runs8(const int *v, int n, int *out) {
#pragma omp simd simdlen(8)
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (i + k + 1 < n && v[i + k + 1] > v[i + k]) k++;
        out[i] = k;
    }
}

/* For each i, how far the values keep falling going down from v[i]. */
static void falling_back(const int *v, int n, int *out) {
#pragma omp simd simdlen(16)
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (i - k > 0 && v[i - k - 1] < v[i - k]) k++;
        out[i] = k;
    }
}

int main(void) {
    long page = sysconf(_SC_PAGESIZE);
    char *region = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED || mprotect(region, page, PROT_NONE) != 0 ||
        mprotect(region + 2 * page, page, PROT_NONE) != 0) {
        printf("no guard pages\n");
        return 0;
    }
    /* `tail` ends at the upper guard page, `head` starts at the lower one. */
    int *tail = (int *)(region + 2 * page) - N;
    int *head = (int *)(region + page);
    for (int i = 0; i < N; i++) tail[i] = lw_int(0, 99);
    for (int i = 0; i < N; i++) head[i] = lw_int(0, 99);
    for (int n = N - 33; n <= N; n += 11) {
        /* The last n elements of `tail`: every n ends at the guard page. */
        LW_TIMED(rising_runs(tail + (N - n), n, runs));
        lw_print_ints("runs", runs, n);
        LW_TIMED(rising_runs8(tail + (N - n), n, runs));
        lw_print_ints("runs8", runs, n);
        LW_TIMED(falling_back(head, n, falls));
        lw_print_ints("falls", falls, n);
    }
    munmap(region, 3 * page);
    return 0;
}
