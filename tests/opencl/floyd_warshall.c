/* All-pairs shortest paths on 384 nodes: one 2-D launch per intermediate
 * node k (AMD APP SDK's FloydWarshall). */
#include "common.h"

static const char *source =
    "__kernel void relax(__global uint *dist, uint n, uint k) {\n"
    "  uint x = get_global_id(0), y = get_global_id(1);\n"
    "  uint through = dist[y * n + k] + dist[k * n + x];\n"
    "  if (through < dist[y * n + x]) dist[y * n + x] = through;\n"
    "}\n";

enum { N = 384 };
static cl_uint graph[N * N], dist[N * N];
static cl_kernel kernel;
static cl_mem buffer;

static void step(void) {
    OK(clEnqueueWriteBuffer(lw_queue, buffer, CL_FALSE, 0, sizeof graph, graph, 0, NULL, NULL));
    for (cl_uint k = 0; k < N; k++) {
        LW_ARG(kernel, 2, k);
        size_t global[2] = {N, N}, local[2] = {64, 1};
        lw_run(kernel, 2, global, local);
    }
}

int main(int argc, char **argv) {
    lw_setup("floyd_warshall", argc, argv);
    for (int i = 0; i < N * N; i++) graph[i] = i % (N + 1) == 0 ? 0 : 1 + lw_random() % 1000;
    kernel = lw_kernel(lw_build(source, ""), "relax");
    buffer = lw_buffer(CL_MEM_READ_WRITE, sizeof graph, NULL);
    cl_uint n = N;
    LW_ARG(kernel, 0, buffer);
    LW_ARG(kernel, 1, n);
    lw_time(step);
    lw_read(buffer, sizeof dist, dist);
    /* The reference relaxes in the same order (the result does not depend
     * on it: the distances are the shortest paths). */
    for (int k = 0; k < N; k++)
        for (int y = 0; y < N; y++)
            for (int x = 0; x < N; x++) {
                cl_uint through = graph[y * N + k] + graph[k * N + x];
                if (through < graph[y * N + x]) graph[y * N + x] = through;
            }
    for (int i = 0; i < N * N; i++) CHECK(dist[i] == graph[i], "pair %d: %u, not %u", i, dist[i], graph[i]);
    lw_done();
    return 0;
}
