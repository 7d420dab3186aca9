//! GCC interoperability: loops vectorized by GCC call the `_ZGV` variants
//! that lanewise generated for `tests/gcc_callers/kernels.c` (compiled by
//! clang-22), and get the scalar results. This checks the Vector Function ABI
//! as GCC implements it: wide arguments split into register-sized parts,
//! results wider than a register returned through memory, short integer
//! vectors in general-purpose registers, uniform and linear parameters.
//!
//! AVX (`-mavx`) callers too: for `int` GCC names the AVX variant
//! `_ZGVcN4v_` where clang's attribute says `_ZGVcN8v_`; Lanewise defines
//! both (issue 14, class 13), so GCC's calls link to real vector code.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn gcc_vectorized_loops_call_lanewise_variants() {
    let sources = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/gcc_callers");
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gcc_callers");
    std::fs::create_dir_all(&scratch).unwrap();
    let scalar_ll = scratch.join("kernels.ll");
    let vector_ll = scratch.join("kernels.vec.ll");
    let vector_object = scratch.join("kernels.o");
    run(Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-S", "-emit-llvm"])
        .arg(sources.join("kernels.c"))
        .arg("-o")
        .arg(&scalar_ll));
    run(Command::new(env!("CARGO_BIN_EXE_lanewise")).arg(&scalar_ll).arg("-o").arg(&vector_ll));
    run(Command::new("clang-22").args(["-O2", "-c"]).arg(&vector_ll).arg("-o").arg(&vector_object));

    for (isa_flag, isa_letter) in [("-msse2", 'b'), ("-mavx", 'c'), ("-mavx2", 'd')] {
        let gcc_flags = ["-O2", isa_flag, "-ffp-contract=off", "-fopenmp-simd"];
        let assembly = run(Command::new("gcc")
            .args(gcc_flags)
            .args(["-S", "-o", "-"])
            .arg(sources.join("callers.c")));
        let called: Vec<&str> = assembly
            .lines()
            .filter_map(|line| line.trim().strip_prefix("call\t"))
            .filter(|callee| callee.starts_with("_ZGV"))
            .collect();
        assert!(
            called.iter().any(|callee| callee.starts_with(&format!("_ZGV{isa_letter}"))),
            "GCC {isa_flag} vectorized no loop into a `_ZGV{isa_letter}` call: {called:?}"
        );
        let executable = scratch.join(format!("callers{isa_flag}"));
        run(Command::new("gcc")
            .args(gcc_flags)
            .arg(sources.join("callers.c"))
            .arg(&vector_object)
            .arg("-o")
            .arg(&executable));
        let output = run(&mut Command::new(&executable));
        assert_eq!(output.trim(), "0 mismatches", "GCC {isa_flag} callers: {output}");
        println!("gcc {isa_flag}: {} calls of lanewise variants agree: {called:?}", called.len());
    }
}
