/* Byte loads in a divergent loop: per-lane lengths of NUL-terminated words
 * and the count of vowels in each. */
#include "programs.h"

#define WORDS 1200
#define STRIDE 24

static char text[WORDS][STRIDE];
static int lengths[WORDS], vowels[WORDS];

#pragma omp declare simd notinbranch
int vowel_count(const char *word) {
    int count = 0;
    while (*word) {
        char c = *word++;
        count += c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
    }
    return count;
}

static void kernel(int n) {
#pragma omp simd
    for (int w = 0; w < n; w++) {
        int length = 0;
        while (text[w][length] != 0) length++;
        lengths[w] = length;
        vowels[w] = vowel_count(text[w]);
    }
}

int main(void) {
    for (int w = 0; w < WORDS; w++) {
        int length = lw_int(0, STRIDE - 1);
        for (int k = 0; k < length; k++) text[w][k] = (char)('a' + lw_int(0, 25));
        text[w][length] = 0;
    }
    LW_TIMED(kernel(WORDS));
    lw_print_ints("lengths", lengths, WORDS);
    lw_print_ints("vowels", vowels, WORDS);
    printf("first word \"%s\"\n", text[0]);
    return 0;
}
