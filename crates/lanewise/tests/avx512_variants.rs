//! `e` (AVX-512) variants target x86-64-v4's feature set whatever the
//! module's -march: AVX-512F alone made LLVM 22's instruction selection
//! loop forever on a variant of fuzz seed 20333 (built with
//! `-march=x86-64-v2`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lanewise_ir::vfabi::Isa;

fn work_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn e_variants_of_an_x86_64_v2_module_get_the_avx512_baseline() {
    let dir = work_dir("avx512-variants");
    let source = dir.join("kernel.c");
    std::fs::write(
        &source,
        "#pragma omp declare simd notinbranch\nint f(int x) { return x * 3 + 1; }\n",
    )
    .unwrap();
    let scalar = dir.join("scalar.ll");
    let status = Command::new("clang-22")
        .args(["-O2", "-fopenmp-simd", "-march=x86-64-v2", "-S", "-emit-llvm"])
        .arg(&source)
        .arg("-o")
        .arg(&scalar)
        .status()
        .unwrap();
    assert!(status.success());
    let vector = dir.join("vector.ll");
    let status = Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(&scalar)
        .arg("-o")
        .arg(&vector)
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&vector).unwrap();
    let define = text.lines().find(|line| line.contains("@_ZGVeN16v_f(")).expect("an e variant");
    let group = define.rsplit('#').next().unwrap().split_whitespace().next().unwrap();
    let attributes = text
        .lines()
        .find(|line| line.starts_with(&format!("attributes #{group} ")))
        .expect("the variant's attributes");
    for feature in Isa::Avx512.target_features() {
        assert!(attributes.contains(feature), "{feature} missing: {attributes}");
    }
}

#[test]
fn llc_compiles_the_seed_20333_variant_with_those_features() {
    let dir = work_dir("avx512-llc-hang");
    let template = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/regressions/llc-avx512f-only-hang.ll");
    let features = Isa::Avx512.target_features().join(",");
    let input = dir.join("variant.ll");
    let text = std::fs::read_to_string(template).unwrap().replace("FEATURES", &features);
    std::fs::write(&input, text).unwrap();
    let mut llc = Command::new("llc-22")
        .args(["-O2", "-mcpu=x86-64-v2", "-o", "/dev/null"])
        .arg(&input)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // It takes milliseconds; the bug looped forever. Two minutes tell the
    // two apart on any machine without hanging the test run.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = llc.try_wait().unwrap() {
            assert!(status.success(), "llc-22 failed");
            return;
        }
        if Instant::now() > deadline {
            let _ = llc.kill();
            panic!("llc-22 still runs after two minutes: the instruction selection loop is back");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
