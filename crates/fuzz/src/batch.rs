//! Batches: several programs in one C file.
//!
//! A program of a few kernels costs `lanewise cc` about 0.15 s per -march,
//! most of it fixed: starting clang twice, the linker, the runtime pieces.
//! A campaign that puts several programs in one file pays those costs once
//! per batch. The programs keep their meaning: each program's own names
//! (its tables, random state, helpers, functions, kernels and `main`) get
//! the prefix `pK_`, its `N` is redefined before it, the includes and the
//! shared helpers of [`PRELUDE`] come once, and the batch's `main` runs the
//! programs' `main`s in order. A batch that fails is checked again program
//! by program (campaign.rs), so a failure is always reported, and reduced,
//! on one program.

use crate::ast::Program;
use crate::print::{print_body, PRELUDE};
use std::collections::BTreeSet;
use std::fmt::Write;

/// The prefixes of the names a program body defines at file scope (its
/// tables `g_`/`in_`/`out_`/`at_`, the ordered regions' counters `ord_u`,
/// its `lw_` random state and helpers); with its functions', its kernels'
/// names and `main` they are renamed.
const PROGRAM_NAME_PREFIXES: [&str; 6] = ["g_", "in_", "out_", "at_", "ord_", "lw_"];

/// The programs as one C file.
pub fn print_batch(programs: &[Program]) -> String {
    let seeds: Vec<String> = programs.iter().map(|program| program.seed.to_string()).collect();
    let mut out = String::new();
    writeln!(
        out,
        "/* lanewise-fuzz batch of the programs of seeds {} (crates/fuzz). */",
        seeds.join(", ")
    )
    .unwrap();
    out.push_str(PRELUDE);
    let shared = identifiers(PRELUDE);
    for (index, program) in programs.iter().enumerate() {
        let mut own: BTreeSet<&str> = BTreeSet::from(["main"]);
        own.extend(program.functions.iter().map(|function| function.name.as_str()));
        own.extend(program.kernels.iter().map(|kernel| kernel.name.as_str()));
        let body = print_body(program);
        let prefix = format!("p{index}_");
        let renamed = rename(&body, &prefix, |name| {
            own.contains(name)
                || (!shared.contains(name)
                    && PROGRAM_NAME_PREFIXES.iter().any(|start| name.starts_with(start)))
        });
        writeln!(out, "\n/* seed {} */\n#undef N", program.seed).unwrap();
        out.push_str(&renamed);
    }
    out.push_str("\nint main(void) {\n");
    for index in 0..programs.len() {
        writeln!(out, "    p{index}_main();").unwrap();
    }
    out.push_str("    return 0;\n}\n");
    out
}

/// The identifiers of C text (words starting with a letter or `_`).
fn identifiers(text: &str) -> BTreeSet<&str> {
    let mut found = BTreeSet::new();
    for_each_word(text, |word, is_identifier| {
        if is_identifier {
            found.insert(word);
        }
    });
    found
}

/// `text` with `prefix` before every identifier `should_rename` accepts.
/// Numbers (`0x1fULL`) are words of their own, never renamed; so is text
/// in strings and comments, which keeps the meaning (a printed label may
/// change, in every build alike).
fn rename(text: &str, prefix: &str, should_rename: impl Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for_each_word(text, |word, is_identifier| {
        if is_identifier && should_rename(word) {
            out.push_str(prefix);
        }
        out.push_str(word);
    });
    out
}

/// Calls `visit` on the pieces of `text` in order: maximal runs of
/// `[A-Za-z0-9_]` (an identifier when the first is not a digit) and every
/// other character on its own.
fn for_each_word<'a>(text: &'a str, mut visit: impl FnMut(&'a str, bool)) {
    let bytes = text.as_bytes();
    let is_word = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    let mut start = 0;
    while start < bytes.len() {
        let mut end = start + 1;
        if is_word(bytes[start]) {
            while end < bytes.len() && is_word(bytes[end]) {
                end += 1;
            }
            visit(&text[start..end], !bytes[start].is_ascii_digit());
        } else {
            while !text.is_char_boundary(end) {
                end += 1;
            }
            visit(&text[start..end], false);
        }
        start = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::generate;

    #[test]
    fn renaming_touches_whole_identifiers_only() {
        let text = "static int g_i[4]; x = g_i[0] + 0x1fg_iull + big_i; /* g_i */";
        let renamed = rename(text, "p1_", |name| name == "g_i");
        assert_eq!(
            renamed,
            "static int p1_g_i[4]; x = p1_g_i[0] + 0x1fg_iull + big_i; /* p1_g_i */"
        );
    }

    #[test]
    fn a_batch_defines_each_program_under_its_own_prefix() {
        let programs: Vec<Program> = (7..10).map(generate).collect();
        let batch = print_batch(&programs);
        assert_eq!(batch.matches("#include <stdio.h>").count(), 1);
        assert_eq!(batch.matches("static inline bool rv_any").count(), 1);
        for (index, program) in programs.iter().enumerate() {
            assert!(batch.contains(&format!("static uint64_t p{index}_lw_state = ")));
            assert!(batch.contains(&format!("int p{index}_main(void)")));
            assert!(batch.contains(&format!("    p{index}_main();\n")));
            for kernel in &program.kernels {
                assert!(batch.contains(&format!("static void p{index}_{}(int n)", kernel.name)));
            }
        }
        // The shared helpers keep their names.
        assert!(batch.contains("lw_print_i(") && !batch.contains("p0_lw_print_i"));
    }

    /// Each program's `omp ordered simd` counters are its own (two
    /// programs' `static unsigned ord_u[4];` are one array in C and a
    /// redefinition in C++).
    #[test]
    fn ordered_region_counters_are_per_program() {
        let programs: Vec<Program> = (0..200)
            .map(generate)
            .filter(|program| crate::print_program(program).contains("static unsigned ord_u[4];"))
            .take(2)
            .collect();
        assert_eq!(programs.len(), 2, "two programs with ordered regions among seeds 0..200");
        let batch = print_batch(&programs);
        assert!(!batch.contains("static unsigned ord_u[4];"), "{batch}");
        for index in 0..2 {
            assert!(batch.contains(&format!("static unsigned p{index}_ord_u[4];")), "{batch}");
        }
    }
}
