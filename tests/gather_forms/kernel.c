/* Gathers under a mask that follows the data (a list walk whose lanes stop
 * at different times) and under no mask (a table lookup), for
 * crates/lanewise/tests/gather_forms.rs. */
#pragma omp declare simd uniform(next) notinbranch
int walk(const int *next, int i) {
    int steps = 0;
    while (i >= 0) {
        i = next[i];
        steps++;
    }
    return steps;
}

#pragma omp declare simd uniform(table) notinbranch
int lookup(const int *table, int i) {
    return table[i] * 3 + 1;
}
