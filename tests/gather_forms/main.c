/* Runs the variants of kernel.c against the scalar functions. The table
 * starts right after a page mapped PROT_NONE: a lane that stopped walking
 * holds i = -1, and a load at next[-1] faults, so the masked gathers must
 * not read their inactive lanes' addresses. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int v4i __attribute__((vector_size(16)));
typedef int v8i __attribute__((vector_size(32)));

int walk(const int *next, int i);
int lookup(const int *table, int i);
v4i _ZGVbN4uv_walk(const int *next, v4i i);
v8i _ZGVdN8uv_walk(const int *next, v8i i) __attribute__((target("avx2")));
v4i _ZGVbN4uv_lookup(const int *table, v4i i);
v8i _ZGVdN8uv_lookup(const int *table, v8i i) __attribute__((target("avx2")));

enum { N = 1000, GROUPS = 4000 };

static unsigned state = 12345;
static unsigned next_random(void) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    return state;
}

__attribute__((target("avx2"))) static int check_avx2(const int *next, int *starts) {
    int failures = 0;
    for (int group = 0; group < GROUPS; group++) {
        v8i walked = _ZGVdN8uv_walk(next, *(v8i *)&starts[group * 8]);
        v8i looked = _ZGVdN8uv_lookup(next, *(v8i *)&starts[group * 8]);
        for (int lane = 0; lane < 8; lane++) {
            int start = starts[group * 8 + lane];
            failures += walked[lane] != walk(next, start);
            failures += looked[lane] != lookup(next, start);
        }
    }
    return failures;
}

static int check_sse(const int *next, int *starts) {
    int failures = 0;
    for (int group = 0; group < GROUPS * 2; group++) {
        v4i walked = _ZGVbN4uv_walk(next, *(v4i *)&starts[group * 4]);
        v4i looked = _ZGVbN4uv_lookup(next, *(v4i *)&starts[group * 4]);
        for (int lane = 0; lane < 4; lane++) {
            int start = starts[group * 4 + lane];
            failures += walked[lane] != walk(next, start);
            failures += looked[lane] != lookup(next, start);
        }
    }
    return failures;
}

int main(void) {
    long page = sysconf(_SC_PAGESIZE);
    long bytes = (N * sizeof(int) + page - 1) / page * page;
    char *mapping = mmap(NULL, page + bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
    if (mapping == MAP_FAILED || mprotect(mapping, page, PROT_NONE) != 0) {
        perror("mmap");
        return 2;
    }
    int *next = (int *)(mapping + page);
    /* Each element points further down or ends the walk (-1): walks of
     * 1 to about 20 steps. */
    for (int i = 0; i < N; i++) {
        int back = 1 + (int)(next_random() % 60);
        next[i] = (i - back >= 0 && next_random() % 16 != 0) ? i - back : -1;
    }
    static int starts[GROUPS * 8] __attribute__((aligned(32)));
    for (int i = 0; i < GROUPS * 8; i++) starts[i] = (int)(next_random() % N);
    int failures = check_sse(next, starts);
    if (__builtin_cpu_supports("avx2")) failures += check_avx2(next, starts);
    printf("%s: %d lanes differ\n", failures ? "FAILED" : "ok", failures);
    return failures != 0;
}
