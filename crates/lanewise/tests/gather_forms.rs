//! Gathers on AVX2 targets where LLVM expands `llvm.masked.gather` into
//! per-lane loads, a branch per lane under a mask (x86-64-v3, Haswell, AMD
//! Zen 1-3; `transform::widen::gather_forms`): Lanewise keeps masked
//! gathers for the gather instruction (`+fast-gather` on the variant) and
//! makes unmasked ones scalar loads. tests/gather_forms: a list walk whose
//! lanes stop at different times (a masked gather; a stopped lane's index
//! points into a PROT_NONE page) and a table lookup (an unmasked gather),
//! built with `lanewise cc` for several `-march`, run against the scalar
//! functions, and their machine code inspected.

use std::path::{Path, PathBuf};
use std::process::Command;

fn sources() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/gather_forms")
}

fn work_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gather-forms").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Builds kernel.c with `lanewise cc -march=<march>` (and `env`), links the
/// driver, runs it; returns the disassembly of the kernel's object.
fn build_and_run(march: &str, env: &[(&str, &str)]) -> String {
    let dir = work_dir(&format!("{march}{}", if env.is_empty() { "" } else { "-env" }));
    let object = dir.join("kernel.o");
    let output = Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .args(["cc", "-O2", &format!("-march={march}"), "-fopenmp-simd", "-c"])
        .arg(sources().join("kernel.c"))
        .arg("-o")
        .arg(&object)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let program = dir.join("gather_forms");
    let status = Command::new("clang-22")
        .args(["-O2"])
        .arg(sources().join("main.c"))
        .arg(&object)
        .arg("-o")
        .arg(&program)
        .status()
        .unwrap();
    assert!(status.success());
    let run = Command::new(&program).output().unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "-march={march}: {stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(stdout.trim(), "ok: 0 lanes differ", "-march={march}");
    let disassembly =
        Command::new("objdump").args(["-d", "--no-show-raw-insn"]).arg(&object).output().unwrap();
    String::from_utf8(disassembly.stdout).unwrap()
}

/// The instructions of `function` in `disassembly`.
fn function_body<'a>(disassembly: &'a str, function: &str) -> Vec<&'a str> {
    let header = format!("<{function}>:");
    disassembly
        .lines()
        .skip_while(|line| !line.ends_with(&header))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .collect()
}

fn count(body: &[&str], mnemonic: &str) -> usize {
    body.iter().filter(|line| line.contains(mnemonic)).count()
}

#[test]
fn masked_gathers_are_gather_instructions_and_unmasked_ones_loads() {
    // The unmasked d variants of `lanewise cc` jump into the masked ones,
    // which hold the bodies.
    for march in ["x86-64-v3", "znver3", "haswell", "skylake"] {
        let disassembly = build_and_run(march, &[]);
        let walk = function_body(&disassembly, "_ZGVdM8uv_walk");
        assert!(count(&walk, "vpgatherdd") >= 1, "-march={march}: {walk:#?}");
        let lookup = function_body(&disassembly, "_ZGVdM8uv_lookup");
        assert!(!lookup.is_empty(), "-march={march}: no _ZGVdM8uv_lookup");
        if march == "skylake" {
            // LLVM's own choice there: a gather instruction.
            assert!(count(&lookup, "vpgatherdd") >= 1, "{lookup:#?}");
        }
    }
    // A d variant of an SSE4.2 module: generic tuning, so LLVM would
    // expand its gathers too; the variants share bodies differently there,
    // and only the results are checked.
    build_and_run("x86-64-v2", &[]);
}

#[test]
fn without_gather_forms_llvm_expands_the_masked_gather() {
    let disassembly = build_and_run("znver3", &[("LANEWISE_GATHER_FORMS", "off")]);
    let walk = function_body(&disassembly, "_ZGVdM8uv_walk");
    assert!(!walk.is_empty());
    assert_eq!(count(&walk, "vpgatherdd"), 0, "{walk:#?}");
}
