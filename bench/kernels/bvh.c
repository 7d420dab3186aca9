// BVH ray traversal (irregular): the nearest hit of the ray o + t d (t > 0)
// among spheres organised in a bounding volume hierarchy of axis-aligned
// boxes, or BVH_MISS when the ray hits none. Depth-first, nearest child
// first, with a private stack of {entry distance, node} pairs (the WPMVP'18
// example): a popped node whose box the ray enters beyond the nearest hit so
// far is skipped without being read. Boxes are tested by the slab method
// with the precomputed inverse direction. Each lane finds the nearest hit
// whichever lanes run with it (RV_LANES_INDEPENDENT): the walk's order and
// pruning change only how many boxes and spheres are tested.
// Node n: bounds[6n..6n+5] = box min x, y, z, max x, y, z; links[2n] >= 0: an
// inner node with children links[2n] and links[2n + 1]; links[2n] < 0: a leaf
// holding spheres -links[2n] - 1 .. -links[2n] - 1 + links[2n + 1] - 1.
// Sphere k: spheres[4k..4k+3] = centre x, y, z, radius. The root is node 0.
#include <math.h>
#include <stdbool.h>

#include "lanewise/rv.h"

#define BVH_MISS -1.0f
#define BVH_FAR 1.0e30f
#define BVH_STACK 64

typedef struct {
    float distance;  // where the ray enters the node's box
    int node;
} bvh_entry;

// Where the ray enters box `node` (at least 0), or BVH_FAR if it misses the
// box or enters it beyond `limit`.
static inline __attribute__((always_inline)) float
bvh_enter(const float *bounds, int node, float ox, float oy, float oz, float ix, float iy,
          float iz, float limit) {
    const float *box = bounds + 6 * node;
    float x0 = (box[0] - ox) * ix, x1 = (box[3] - ox) * ix;
    float y0 = (box[1] - oy) * iy, y1 = (box[4] - oy) * iy;
    float z0 = (box[2] - oz) * iz, z1 = (box[5] - oz) * iz;
    float near = x0 < x1 ? x0 : x1, far = x0 < x1 ? x1 : x0;
    float y_near = y0 < y1 ? y0 : y1, y_far = y0 < y1 ? y1 : y0;
    float z_near = z0 < z1 ? z0 : z1, z_far = z0 < z1 ? z1 : z0;
    near = near > y_near ? near : y_near;
    near = near > z_near ? near : z_near;
    far = far < y_far ? far : y_far;
    far = far < z_far ? far : z_far;
    near = near > 0.0f ? near : 0.0f;
    return near <= far && near < limit ? near : BVH_FAR;
}

#pragma omp declare simd uniform(bounds, links, spheres) notinbranch
RV_LANES_INDEPENDENT float bvh(const float *bounds, const int *links, const float *spheres, float ox, float oy,
          float oz, float dx, float dy, float dz) {
    float ix = 1.0f / dx, iy = 1.0f / dy, iz = 1.0f / dz;
    float nearest = BVH_FAR;
    bvh_entry stack[BVH_STACK];
    int top = 0;
    float root = bvh_enter(bounds, 0, ox, oy, oz, ix, iy, iz, nearest);
    if (rv_any(root < BVH_FAR)) {
        stack[0].distance = root;
        stack[0].node = 0;
        top = 1;
    }
    while (top > 0) {
        bvh_entry entry = stack[--top];
        // This lane enters the node's box before its nearest hit so far.
        bool wanted = entry.distance < nearest;
        if (!rv_any(wanted)) continue;
        int node = entry.node;
        int first = links[2 * node];
        if (first < 0) {
            int begin = -first - 1, end = begin + links[2 * node + 1];
            for (int k = begin; k < end; k++) {
                if (!wanted) continue;
                const float *sphere = spheres + 4 * k;
                float rx = ox - sphere[0], ry = oy - sphere[1], rz = oz - sphere[2];
                float b = rx * dx + ry * dy + rz * dz;
                float c = rx * rx + ry * ry + rz * rz - sphere[3] * sphere[3];
                float discriminant = b * b - c;
                if (discriminant > 0.0f) {
                    float t = -b - sqrtf(discriminant);
                    if (t > 0.0f && t < nearest) nearest = t;
                }
            }
        } else {
            int second = links[2 * node + 1];
            float first_distance = BVH_FAR, second_distance = BVH_FAR;
            if (wanted) {
                first_distance = bvh_enter(bounds, first, ox, oy, oz, ix, iy, iz, nearest);
                second_distance = bvh_enter(bounds, second, ox, oy, oz, ix, iy, iz, nearest);
            }
            // Push the child most lanes enter farther away first, so that the
            // one most lanes enter first is popped next.
            if (rv_popcount(second_distance < first_distance) * 2 > rv_popcount(wanted)) {
                int swapped_node = first;
                float swapped_distance = first_distance;
                first = second;
                first_distance = second_distance;
                second = swapped_node;
                second_distance = swapped_distance;
            }
            if (rv_any(second_distance < BVH_FAR) && top < BVH_STACK) {
                stack[top].distance = second_distance;
                stack[top].node = second;
                top++;
            }
            if (rv_any(first_distance < BVH_FAR) && top < BVH_STACK) {
                stack[top].distance = first_distance;
                stack[top].node = first;
                top++;
            }
        }
    }
    return nearest < BVH_FAR ? nearest : BVH_MISS;
}
