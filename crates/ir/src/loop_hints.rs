//! Loop hints: what the input's `!llvm.loop` metadata says about a loop.
//!
//! clang marks `#pragma omp simd` loops (and `#pragma clang loop
//! vectorize(...)`) with `llvm.loop.vectorize.enable`, optionally
//! `llvm.loop.vectorize.width` (from `simdlen`/`safelen`), and LLVM's loop
//! vectorizer marks the loops it vectorized with `llvm.loop.isvectorized`.
//! The lifter records them per loop-latch branch in [`Function::loop_hints`]
//! (a side table: the instruction set itself carries no metadata), so that the
//! loop vectorizer of `lanewise_transform::loop_vectorize` knows which loops
//! the programmer asked to vectorize. Passes that copy or rewrite a function
//! simply drop the hints of terminators they do not keep.
//!
//! Asking is not promising: only `llvm.loop.parallel_accesses` (clang's
//! `omp simd`, with or without `simdlen`) says the iterations are
//! independent ([`Independence`]). clang leaves it out when the loop holds an
//! `omp ordered simd` region (whose bounds the IR then no longer shows), for
//! `safelen(k)` (iterations k apart may depend on each other: the loop gets
//! `vectorize.width` k instead), and for `#pragma clang loop vectorize(...)`,
//! which asks LLVM's vectorizer to vectorize what its own dependence analysis
//! allows.
//!
//! [`Function::loop_hints`]: crate::Function::loop_hints

use std::fmt;

/// The hints of one loop, keyed by its latch terminator.
#[derive(Clone, PartialEq, Eq, Debug, Default)]
pub struct LoopHints {
    /// `llvm.loop.vectorize.enable`: `Some(true)` for `omp simd` loops.
    pub vectorize_enable: Option<bool>,
    /// `llvm.loop.vectorize.width` (simdlen/safelen), if given.
    pub width: Option<u32>,
    /// `llvm.loop.isvectorized`: LLVM already vectorized the loop (or it is
    /// the scalar remainder of a vectorized loop).
    pub is_vectorized: bool,
    /// What the metadata promises about dependences between iterations.
    pub independence: Independence,
    /// The source location of the latch branch (`file:line:col`), if the
    /// input has debug locations.
    pub location: Option<String>,
}

/// What a loop's metadata promises about the dependences between its
/// iterations (see the module docs).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Independence {
    /// No promise: `#pragma clang loop vectorize(...)`, or an `omp simd` loop
    /// holding an `omp ordered simd` region.
    #[default]
    NotPromised,
    /// `omp simd safelen(k)`: `vectorize.width` k without parallel accesses
    /// (and without `vectorize.scalable.enable`, which only `#pragma clang
    /// loop vectorize_width` writes): iterations fewer than k apart are
    /// independent.
    WithinWidth,
    /// `llvm.loop.parallel_accesses`: no dependences between iterations.
    Promised,
}

impl LoopHints {
    /// Whether the programmer asked for vectorization and nobody did it yet.
    pub fn wants_vectorization(&self) -> bool {
        self.vectorize_enable == Some(true) && !self.is_vectorized
    }

    /// Hints of an `omp simd` loop (vectorization asked, iterations
    /// independent): what unit tests build.
    pub fn simd_loop() -> LoopHints {
        LoopHints {
            vectorize_enable: Some(true),
            independence: Independence::Promised,
            ..LoopHints::default()
        }
    }
}

impl fmt::Display for LoopHints {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(enable) = self.vectorize_enable {
            parts.push(format!("vectorize.enable={enable}"));
        }
        if let Some(width) = self.width {
            parts.push(format!("vectorize.width={width}"));
        }
        if self.is_vectorized {
            parts.push("isvectorized".to_owned());
        }
        match self.independence {
            Independence::NotPromised => {}
            Independence::WithinWidth => parts.push("independent within the width".to_owned()),
            Independence::Promised => parts.push("parallel accesses".to_owned()),
        }
        if let Some(location) = &self.location {
            parts.push(format!("at {location}"));
        }
        write!(f, "loop hints: {}", parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_enabled_unvectorized_loops_want_vectorization() {
        let mut hints = LoopHints { vectorize_enable: Some(true), ..LoopHints::default() };
        assert!(hints.wants_vectorization());
        hints.is_vectorized = true;
        assert!(!hints.wants_vectorization());
        assert!(!LoopHints::default().wants_vectorization());
        assert_eq!(hints.to_string(), "loop hints: vectorize.enable=true, isvectorized");
    }
}
