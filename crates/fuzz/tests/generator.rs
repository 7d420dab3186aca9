//! Tests of the program generator against clang-22: programs are
//! deterministic per seed, compile without warnings other than stylistic
//! ones (unused names), also with `-fopenmp-simd` (the clauses are valid),
//! and run clean under UBSan (no undefined behaviour by construction).

use lanewise_fuzz::ast::{stmt_blocks, LoopDirection, ParamKind, Program, Stmt};
use lanewise_fuzz::gen::{
    draws_atomics, draws_cond_inits, draws_guarded_divisions, draws_inline_asm, draws_mixed_widths,
    draws_ordered_regions, draws_short_vectors, generate_with, GenConfig,
};
use lanewise_fuzz::{generate, print_program};
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-generator").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn same_seed_same_program_and_seeds_differ() {
    let mut distinct = BTreeSet::new();
    for seed in 0..20 {
        let first = print_program(&generate(seed));
        let second = print_program(&generate(seed));
        assert_eq!(first, second, "seed {seed} is not deterministic");
        assert_eq!(generate(seed), generate(seed));
        distinct.insert(first);
    }
    assert_eq!(distinct.len(), 20, "twenty seeds give twenty programs");
}

/// Prefixes of the warning groups that say nothing about undefined
/// behaviour: random code leaves names unused, compares a 0/1 value with
/// 11, uses constants in `&&`, negates comparisons bitwise and switches on
/// a comparison. Every other warning fails the test
/// (`-Wuninitialized`, `-Wshift-count-overflow`, `-Wdivision-by-zero`,
/// `-Warray-bounds`, `-Winteger-overflow`, literal conversions, ...).
const STYLISTIC: &[&str] = &[
    "-Wunused",
    "-Wtautological",
    "-Wbool-operation",
    "-Wself-assign",
    "-Wconstant-logical-operand",
    "-Wswitch-bool",
];

/// Whether `stmts` hold a `continue` of the enclosing loop (not one of a
/// nested `for` or `while`).
fn continues_outer_loop(stmts: &[Stmt]) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::Continue => true,
        Stmt::For { .. } | Stmt::While { .. } => false,
        _ => stmt_blocks(stmt).into_iter().any(|block| continues_outer_loop(block)),
    })
}

/// Whether `stmts` hold an `omp ordered simd` region; with `only_in_loops`,
/// one inside an inner loop.
fn holds_ordered(stmts: &[Stmt], only_in_loops: bool) -> bool {
    stmts.iter().any(|stmt| match stmt {
        Stmt::Ordered { .. } => !only_in_loops,
        Stmt::For { body, .. } | Stmt::While { body, .. } => holds_ordered(body, false),
        _ => stmt_blocks(stmt).into_iter().any(|block| holds_ordered(block, only_in_loops)),
    })
}

/// Whether the program text hides values in inline assembly (besides the
/// prelude's guard helper, which does so to keep its tests unfolded).
fn hides_values(text: &str) -> bool {
    text.lines().any(|line| line.contains("__asm__ volatile") && !line.contains("no folding"))
}

/// How many `omp ordered simd` regions `stmts` hold, at any depth.
fn count_ordered(stmts: &[Stmt]) -> usize {
    stmts
        .iter()
        .map(|stmt| {
            usize::from(matches!(stmt, Stmt::Ordered { .. }))
                + stmt_blocks(stmt).into_iter().map(|block| count_ordered(block)).sum::<usize>()
        })
        .sum()
}

/// Whether `program` holds a private array of records.
fn has_records(program: &Program) -> bool {
    let functions = program.functions.iter().flat_map(|function| &function.arrays);
    functions.chain(program.kernels.iter().flat_map(|kernel| &kernel.arrays)).any(|a| a.record)
}

/// Whether the program text enters a `while` loop in the middle.
fn has_midway_entries(text: &str) -> bool {
    text.contains(") goto m")
}

/// An optional feature of the generator, seen in a program's AST or text.
struct Feature {
    present: fn(&Program, &str) -> bool,
}

/// Every optional feature, so that the compile and UBSan tests run seeds
/// that hold each of them.
const FEATURES: &[Feature] = &[
    // `reduction(inscan, ...)` kernels
    Feature { present: |program, _| program.kernels.iter().any(|kernel| kernel.scan.is_some()) },
    Feature { present: |_, text| text.contains("__atomic_fetch_") },
    // `long`, `short` and `unsigned char` values
    Feature { present: |program, _| program.mixed_widths },
    Feature {
        present: |program, _| program.kernels.iter().any(|kernel| !kernel.linears.is_empty()),
    },
    Feature { present: |program, _| has_records(program) },
    Feature { present: |_, text| has_midway_entries(text) },
    // variables assigned and read under one condition
    Feature { present: |_, text| text.contains("#pragma clang diagnostic ignored") },
    Feature { present: |_, text| text.contains("__builtin_shufflevector") },
    Feature { present: |_, text| text.contains("lastprivate(conditional: ") },
    // bit builtins (`MathFn::INTEGER`; the prelude defines their helpers)
    Feature { present: |_, text| text.contains("lw_clz((unsigned)(") },
    Feature { present: |_, text| text.contains("__builtin_bswap32((unsigned)(") },
    // libm functions of two and three operands
    Feature { present: |_, text| text.contains("fmod") && text.contains("copysign") },
    Feature { present: |_, text| text.contains("fmaf(") || text.contains("fma(") },
    // private arrays filled by initializer lists (not the records' table)
    Feature {
        present: |_, text| {
            text.matches("] = {").count() > usize::from(text.contains("lw_recs[4] = {"))
        },
    },
    // records passed by value
    Feature { present: |_, text| text.contains("struct lw_rec a") },
    // walks along the links of the node pool
    Feature { present: |_, text| text.contains("const struct lw_node *") },
    // whole records copied between elements of a private array
    Feature {
        present: |program, text| {
            has_records(program)
                && text
                    .lines()
                    .any(|line| line.contains("] = ") && line.trim_end().ends_with("u];"))
        },
    },
    // loops counting down or stepping by two
    Feature {
        present: |program, _| {
            program.kernels.iter().any(|kernel| kernel.direction != LoopDirection::Up)
        },
    },
    // recursive functions
    Feature {
        present: |program, _| program.functions.iter().any(|function| function.recursion.is_some()),
    },
    // switches on a whole `int`, with negative and outlying case values
    Feature { present: |_, text| text.contains("case (-") || text.contains("case 65536:") },
    // `omp ordered simd` regions
    Feature { present: |_, text| text.contains("#pragma omp ordered simd") },
    // empty inline assembly hiding a value
    Feature { present: |_, text| hides_values(text) },
    // `&&` and `||` reductions
    Feature { present: |_, text| text.contains("reduction(&&:") || text.contains("reduction(||:") },
];

/// The first `count` seeds whose programs hold `feature`.
fn feature_seeds(feature: &Feature, count: usize) -> Vec<u64> {
    (0..)
        .filter(|&seed| {
            let program = generate(seed);
            (feature.present)(&program, &print_program(&program))
        })
        .take(count)
        .collect()
}

/// Seeds `0..plain` and the first `per_feature` seeds of every feature.
fn seeds_to_check(plain: u64, per_feature: usize) -> BTreeSet<u64> {
    let features = FEATURES.iter().flat_map(|feature| feature_seeds(feature, per_feature));
    (0..plain).chain(features).collect()
}

/// Scans, atomics, guarded divisions, mixed widths, linear variables,
/// record arrays, midway loop entries, conditional initializations, short
/// vectors and conditional lastprivates
/// draw from streams of their own: a program with none drawn is the one
/// the seed gave before they were added.
#[test]
fn optional_features_are_drawn_apart_and_well_formed() {
    let (mut scans, mut atomics, mut divisions, mut mixed, mut linears) = (0, 0, 0, 0, 0);
    let (mut records, mut midways, mut cond_inits, mut short_vectors) = (0, 0, 0, 0);
    let mut cond_lasts = 0;
    let mut carried_reads = 0;
    let mut directions = 0;
    let mut statics = 0;
    let mut ordered = 0;
    let mut asm = 0;
    let mut logical = 0;
    let mut record_params = 0;
    for seed in 0..200 {
        let program = generate(seed);
        let text = print_program(&program);
        let has_atomics = text.contains("__atomic_fetch_");
        let has_scans = program.kernels.iter().any(|kernel| kernel.scan.is_some());
        atomics += usize::from(has_atomics);
        divisions += usize::from(text.contains(") != 0 && (") || text.contains(") != 0u) ?"));
        assert_eq!(program.mixed_widths, draws_mixed_widths(seed), "seed {seed}");
        assert_eq!(program.mixed_widths, text.contains("static long g_l[64];"), "seed {seed}");
        if program.mixed_widths {
            mixed += 1;
        } else {
            for name in ["long ", "short ", "unsigned char "] {
                let declared = text.lines().filter(|line| line.trim_start().starts_with(name));
                assert_eq!(declared.count(), 0, "seed {seed}: {name}without mixed widths");
            }
        }
        let has_linears = program.kernels.iter().any(|kernel| !kernel.linears.is_empty());
        linears += usize::from(has_linears);
        for kernel in program.kernels.iter().filter(|kernel| !kernel.linears.is_empty()) {
            assert!(kernel.scan.is_none(), "seed {seed}: linear variables in a scan");
            assert!(
                !continues_outer_loop(&kernel.body),
                "seed {seed}: `continue` skips a linear variable's increment"
            );
            for linear in &kernel.linears {
                let clause = format!(" linear({}:{})", linear.name, linear.step);
                assert!(text.contains(&clause), "seed {seed}: no `{clause}`");
            }
        }
        let has_records = has_records(&program);
        records += usize::from(has_records);
        let has_record_params = program.functions.iter().any(|function| {
            function.params.iter().any(|param| matches!(param.kind, ParamKind::Record { .. }))
        });
        record_params += usize::from(has_record_params);
        assert_eq!(
            has_records || has_record_params,
            text.contains("struct lw_rec {"),
            "seed {seed}"
        );
        assert_eq!(has_record_params, text.contains("struct lw_rec a"), "seed {seed}");
        assert_eq!(has_record_params, text.contains("static const struct lw_rec lw_recs[4]"));
        let has_midway = has_midway_entries(&text);
        midways += usize::from(has_midway);
        let has_cond_inits = text.contains("#pragma clang diagnostic ignored");
        cond_inits += usize::from(has_cond_inits);
        assert!(!has_cond_inits || draws_cond_inits(seed), "seed {seed}");
        let has_short_vectors = text.contains("__builtin_shufflevector");
        short_vectors += usize::from(has_short_vectors);
        assert!(!has_short_vectors || draws_short_vectors(seed), "seed {seed}");
        let has_cond_lasts = text.contains("lastprivate(conditional: ");
        cond_lasts += usize::from(has_cond_lasts);
        let has_static = program.functions.iter().any(|function| function.is_static);
        statics += usize::from(has_static);
        let lines: Vec<&str> = text.lines().collect();
        let static_definition = lines.windows(2).any(|pair| {
            pair[0].starts_with("#pragma omp declare simd") && pair[1].contains("static ")
        });
        assert_eq!(has_static, static_definition, "seed {seed}");
        let has_carried = program.kernels.iter().any(|kernel| kernel.carried.is_some());
        let has_directions =
            program.kernels.iter().any(|kernel| kernel.direction != LoopDirection::Up);
        directions += usize::from(has_directions);
        assert_eq!(has_directions, text.contains("i--) {") || text.contains("i += 2) {"));
        for kernel in &program.kernels {
            // `safelen` counts iterations, a read `d` elements back must be
            // `d` iterations back.
            assert!(kernel.carried.is_none() || kernel.direction != LoopDirection::UpByTwo);
        }
        carried_reads += usize::from(has_carried);
        let has_ordered = text.contains("#pragma omp ordered simd");
        ordered += usize::from(has_ordered);
        assert!(!has_ordered || draws_ordered_regions(seed), "seed {seed}");
        let has_logical = text.contains("reduction(&&:") || text.contains("reduction(||:");
        logical += usize::from(has_logical);
        let has_asm = hides_values(&text);
        asm += usize::from(has_asm);
        assert!(!has_asm || draws_inline_asm(seed), "seed {seed}");
        for function in &program.functions {
            assert!(!holds_ordered(&function.body, false), "seed {seed}: ordered outside a loop");
        }
        for kernel in program.kernels.iter().filter(|kernel| holds_ordered(&kernel.body, false)) {
            // clang-22 marks an ordered region's accesses parallel when the
            // loop has `simdlen`; a region binds to the simd loop itself.
            assert!(kernel.simdlen.is_none() && kernel.carried.is_none(), "seed {seed}");
            assert!(kernel.scan.is_none(), "seed {seed}");
            assert!(!holds_ordered(&kernel.body, true), "seed {seed}: ordered in an inner loop");
            // clang: "exactly one 'ordered' directive must appear in the
            // loop body".
            let regions = count_ordered(&kernel.body);
            assert_eq!(regions, 1, "seed {seed}: {} holds {regions} ordered regions", kernel.name);
        }
        assert_eq!(has_carried, text.contains(" safelen("), "seed {seed}");
        for kernel in &program.kernels {
            let Some(carried) = &kernel.carried else { continue };
            // OpenMP: simdlen <= safelen; the read is out of every group
            // of iterations that may run side by side.
            assert!(kernel.simdlen.is_none_or(|simdlen| simdlen <= carried.safelen));
            assert!(carried.distance > carried.safelen, "seed {seed}");
            assert!(kernel.scan.is_none(), "seed {seed}");
        }
        if !has_scans
            && !has_linears
            && !has_records
            && !has_midway
            && !draws_cond_inits(seed)
            && !draws_short_vectors(seed)
            && !has_cond_lasts
            && !has_carried
            && !has_directions
            && !has_static
            && !draws_atomics(seed)
            && !draws_guarded_divisions(seed)
            && !draws_ordered_regions(seed)
            && !draws_inline_asm(seed)
            && !has_logical
            && !has_record_params
            && !program.mixed_widths
        {
            let plain = GenConfig {
                scans: false,
                atomics: false,
                guarded_divisions: false,
                mixed_widths: false,
                linear_vars: false,
                record_arrays: false,
                midway_entries: false,
                cond_inits: false,
                short_vectors: false,
                cond_lastprivates: false,
                carried_reads: false,
                loop_directions: false,
                static_functions: false,
                ordered_regions: false,
                inline_asm: false,
                logical_reductions: false,
                record_params: false,
                ..GenConfig::default()
            };
            assert_eq!(program, generate_with(seed, &plain), "seed {seed} changed");
        }
        if !has_scans {
            continue;
        }
        scans += 1;
        assert!(program.kernels[0].scan.is_none(), "seed {seed}: kernel 0 hosts extra calls");
        for kernel in program.kernels.iter().filter(|kernel| kernel.scan.is_some()) {
            assert!(!kernel.reductions.is_empty(), "seed {seed}: a scan without reductions");
            assert!(
                !continues_outer_loop(&kernel.body),
                "seed {seed}: `continue` leaves the scan phase"
            );
        }
        assert!(text.contains("reduction(inscan, "), "seed {seed}");
        assert!(text.contains("#pragma omp scan "), "seed {seed}");
    }
    assert!((20..=150).contains(&scans), "{scans} of 200 programs hold a scan");
    assert!((20..=150).contains(&atomics), "{atomics} of 200 programs hold atomics");
    assert!((10..=100).contains(&ordered), "{ordered} of 200 programs hold ordered regions");
    assert!((10..=100).contains(&asm), "{asm} of 200 programs hold inline assembly");
    assert!((10..=120).contains(&logical), "{logical} of 200 programs reduce with && or ||");
    assert!(
        (10..=150).contains(&record_params),
        "{record_params} of 200 programs pass records by value"
    );
    assert!((20..=150).contains(&divisions), "{divisions} of 200 programs divide");
    assert!((20..=150).contains(&mixed), "{mixed} of 200 programs mix widths");
    assert!((20..=150).contains(&linears), "{linears} of 200 programs have linear variables");
    assert!((20..=170).contains(&records), "{records} of 200 programs have record arrays");
    assert!((20..=150).contains(&midways), "{midways} of 200 programs enter loops midway");
    assert!(
        (10..=100).contains(&cond_inits),
        "{cond_inits} of 200 programs initialize under a condition"
    );
    assert!(
        (10..=100).contains(&short_vectors),
        "{short_vectors} of 200 programs use short vectors"
    );
    assert!(
        (20..=170).contains(&cond_lasts),
        "{cond_lasts} of 200 programs have conditional lastprivates"
    );
    assert!(
        (20..=170).contains(&carried_reads),
        "{carried_reads} of 200 programs read earlier iterations under safelen"
    );
    assert!((20..=170).contains(&directions), "{directions} of 200 programs count down or by two");
    assert!((20..=170).contains(&statics), "{statics} of 200 programs have static functions");
}

#[test]
fn programs_compile_without_ub_warnings() {
    let dir = scratch("warnings");
    for seed in seeds_to_check(24, 5) {
        let path = dir.join(format!("seed-{seed}.c"));
        fs::write(&path, print_program(&generate(seed))).unwrap();
        for openmp in [false, true] {
            let mut command = Command::new("clang-22");
            command.args(["-fsyntax-only", "-Wall", "-Wextra", "-DLANEWISE_RV_SCALAR"]);
            if openmp {
                command.arg("-fopenmp-simd");
            }
            let output = command.arg(&path).output().expect("clang-22 runs");
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(output.status.success(), "seed {seed} does not compile:\n{stderr}");
            for line in stderr.lines().filter(|line| line.contains("warning:")) {
                assert!(
                    STYLISTIC.iter().any(|group| line.contains(&format!("[{group}"))),
                    "seed {seed} (openmp {openmp}): unexpected warning\n{line}\nin {}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn programs_run_clean_under_ubsan() {
    let dir = scratch("ubsan");
    for seed in seeds_to_check(6, 2) {
        let source = dir.join(format!("seed-{seed}.c"));
        let binary = dir.join(format!("seed-{seed}"));
        fs::write(&source, print_program(&generate(seed))).unwrap();
        let build = Command::new("clang-22")
            .args([
                "-O1",
                "-fsanitize=undefined,float-cast-overflow,float-divide-by-zero",
                "-fno-sanitize=float-divide-by-zero",
                "-fno-sanitize-recover=all",
                "-DLANEWISE_RV_SCALAR",
            ])
            .arg(&source)
            .arg("-o")
            .arg(&binary)
            .arg("-lm")
            .output()
            .expect("clang-22 runs");
        assert!(build.status.success(), "{}", String::from_utf8_lossy(&build.stderr));
        let run = Command::new(&binary).output().expect("the program runs");
        assert!(
            run.status.success() && run.stderr.is_empty(),
            "seed {seed} under UBSan: {}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
        assert!(!run.stdout.is_empty(), "seed {seed} prints its results");
    }
}
