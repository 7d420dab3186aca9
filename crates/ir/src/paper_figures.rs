//! The example CFGs of Moll & Hack, PLDI'18, as edge lists, shared by the
//! tests of the block index, the divergence analysis and the linearization
//! (one definition, so every crate tests the same graphs).
//!
//! The figures did not survive the text extraction of the paper; the graphs
//! are reconstructed from the prose, as each comment says. Which branches are
//! varying is part of each figure: tests build the branches of
//! `varying_branches` on a varying value and all others on a uniform one.

/// A CFG given by block names (the first is the entry) and edges in
/// successor order (`(a, b)` before `(a, c)` means `a -> b | c`).
#[derive(Copy, Clone, Debug)]
pub struct FigureCfg {
    pub blocks: &'static [&'static str],
    pub edges: &'static [(&'static str, &'static str)],
    /// Blocks whose branch decides on a varying value.
    pub varying_branches: &'static [&'static str],
}

/// PLDI'18 Fig. 3a (after Karrenberg & Hack): `a -> b | c`; `b -> d | e`,
/// `d -> e | h`; `c -> f | g`, `f -> g | h`; `e, g -> h`. The prose says
/// "the blocks c, f and g fall compactly in the range 4 to 6 because c
/// dominates them" and that the CFG has divergent branches: `b` and `c`
/// diverge, `a`, `d` and `f` are uniform.
pub const FIGURE_3: FigureCfg = FigureCfg {
    blocks: &["a", "b", "c", "d", "e", "f", "g", "h"],
    edges: &[
        ("a", "b"),
        ("a", "c"),
        ("b", "d"),
        ("b", "e"),
        ("d", "e"),
        ("d", "h"),
        ("e", "h"),
        ("c", "f"),
        ("c", "g"),
        ("f", "g"),
        ("f", "h"),
        ("g", "h"),
    ],
    varying_branches: &["b", "c"],
};

/// PLDI'18 Fig. 7: `b` ends in a uniform branch but is control dependent on
/// the varying edge `a -> b`, and `b` dominates its targets, so Theorem 4.5
/// keeps it: `a -> b | e; b -> c | d; c -> d; d -> e`.
pub const FIGURE_7: FigureCfg = FigureCfg {
    blocks: &["a", "b", "c", "d", "e"],
    edges: &[("a", "b"), ("a", "e"), ("b", "c"), ("b", "d"), ("c", "d"), ("d", "e")],
    varying_branches: &["a"],
};

/// PLDI'18 Fig. 10 (left) / thesis Fig. 5.7, the Mandelbrot loop: `b` is
/// the header with the uniform trip-count exit to `e`, `c` the varying
/// escape test exiting to `f`, `d` the latch, `g` the join of both exits.
pub const FIGURE_10: FigureCfg = FigureCfg {
    blocks: &["a", "b", "c", "d", "e", "f", "g"],
    edges: &[
        ("a", "b"),
        ("b", "c"),
        ("b", "e"),
        ("c", "f"),
        ("c", "d"),
        ("d", "b"),
        ("e", "g"),
        ("f", "g"),
    ],
    varying_branches: &["c"],
};
