// Per-lane formulation, for comparison (the report's "per-lane" rows): the
// same algorithm as ../barnes_hut.c written without the SPMD builtins, so that each
// lane walks its own path with its own stack; the drivers and inputs are the same.
//
// Barnes-Hut force walk (irregular): the x acceleration on a body at (x, y,
// z) from an octree, walked depth-first with a private stack. A cell whose
// size s and distance d satisfy s^2 < theta^2 d^2 (or a leaf) acts as one
// point mass at its centre of mass; otherwise its children are pushed.
// Node n: cells[5n..5n+4] = centre of mass x, y, z, mass, size;
// children[8n..8n+7] = child nodes or -1 (all -1: a leaf).
#include <math.h>

#pragma omp declare simd uniform(cells, children, theta2) notinbranch
float barnes_hut(const float *cells, const int *children, float theta2, float x, float y, float z) {
    int stack[256];
    int top = 1;
    float ax = 0.0f;
    stack[0] = 0;
    while (top > 0) {
        int node = stack[--top];
        const float *cell = cells + 5 * node;
        float dx = cell[0] - x, dy = cell[1] - y, dz = cell[2] - z;
        float d2 = dx * dx + dy * dy + dz * dz + 1e-4f;
        const int *child = children + 8 * node;
        int leaf = child[0] < 0 && child[1] < 0 && child[2] < 0 && child[3] < 0 &&
                   child[4] < 0 && child[5] < 0 && child[6] < 0 && child[7] < 0;
        if (leaf || cell[4] * cell[4] < theta2 * d2) {
            float inv = 1.0f / sqrtf(d2);
            ax += cell[3] * dx * inv * inv * inv;
        } else {
            for (int k = 0; k < 8; k++)
                if (child[k] >= 0 && top < 256) stack[top++] = child[k];
        }
    }
    return ax;
}
