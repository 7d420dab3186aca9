// Covers (divergent): scanning bytes through a varying pointer (each lane its
// own buffer) until a terminator, with a varying switch on the character
// class inside the loop (fallthrough, continue, early return on an invalid
// byte), i.e. a parser-like loop with several exits.
#pragma omp declare simd
int scan_number(const unsigned char *text) {
    int value = 0;
    int sign = 1;
    for (int k = 0; k < 64; k++) {
        unsigned char c = text[k];
        switch (c) {
        case 0:
            return sign * value;
        case '-':
            sign = -sign;
            continue;
        case ' ':
        case '\t':
            continue;
        case '0': case '1': case '2': case '3': case '4':
        case '5': case '6': case '7': case '8': case '9':
            value = (value * 10 + (c - '0')) % 1000003;
            break;
        default:
            if (c >= 128)
                return -1;
            value = (value + c) & 0xfffff;
        }
    }
    return sign * value + 7;
}

#pragma omp declare simd uniform(stop)
int count_until(const signed char *text, int stop) {
    int count = 0;
    int k = 0;
    while (k < 500) {
        signed char c = text[k++];
        if (c == (signed char)stop)
            break;
        if (c < 0)
            continue;
        count += c & 3;
    }
    return count * 1000 + k;
}
