// Covers (divergent): a state machine: a loop around a switch on a varying
// state, where cases jump to each other with goto, change the state, or leave
// the loop (an irregular but reducible mix of loop exits and shared blocks).
#pragma omp declare simd
int run_state_machine(int input) {
    unsigned bits = (unsigned)input;
    int state = 0;
    int output = 0;
    for (int step = 0; step < 32; step++) {
        unsigned bit = (bits >> step) & 1u;
        switch (state) {
        case 0:
            state = bit ? 1 : 2;
            break;
        case 1:
            if (bit)
                goto accept;
            state = 3;
            break;
        case 2:
            output += 2;
            if (!bit)
                break;
            /* fallthrough */
        case 3:
            output += 3;
            state = bit ? 0 : 2;
            break;
        default:
            goto reject;
        }
        if (output > 60)
            goto reject;
    }
    return output;
accept:
    return 1000 + output;
reject:
    return -output;
}
