//! Helpers shared by the unit tests of the passes (compiled for tests only).

/// xorshift64*: a small deterministic random number generator for test
/// inputs (random CFGs, blocks, lane values). The state must not be zero;
/// [`Rng::new`] makes any seed a good one.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// A generator seeded from `seed` (mixed, and never zero).
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number below `bound`.
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.next() % bound
    }

    /// True `percent` times in a hundred.
    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}
