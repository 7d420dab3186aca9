// 3D 7-point stencil (coherent): one Jacobi-style update of cell `index` of a
// grid stored x-fastest, from the cell and its six face neighbours:
//   out = c0 g[i] + c1 (g[i-1] + g[i+1] + g[i-nx] + g[i+nx] + g[i-plane] + g[i+plane]).
// Consecutive lanes touch consecutive cells: contiguous vector loads.
#pragma omp declare simd uniform(grid, nx, plane) linear(index) notinbranch
float stencil(const float *grid, int nx, int plane, int index) {
    const float center_weight = 0.4f, neighbour_weight = 0.1f;
    return center_weight * grid[index] +
           neighbour_weight * (grid[index - 1] + grid[index + 1] + grid[index - nx] +
                               grid[index + nx] + grid[index - plane] + grid[index + plane]);
}
