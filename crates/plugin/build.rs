//! Compiles the C++ shim against LLVM 22's headers (the prefix llvm-sys
//! uses, from .cargo/config.toml) with the flags `llvm-config --cxxflags`
//! gives. The LLVM symbols stay undefined: the plugin is loaded into a
//! clang or opt that already has libLLVM.so.22 loaded.
//!
//! Also links src/frontend.cpp, against clang-22's headers, into
//! `liblanewise_frontend.so` next to the pass plugin (target/<profile>/):
//! clang's frontend plugin (`-fplugin=`), a library of its own because opt
//! and the pass plugin load without clang's frontend symbols.
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/shim.cpp");
    println!("cargo:rerun-if-changed=src/frontend.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_SYS_221_PREFIX");
    let prefix = std::env::var("LLVM_SYS_221_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-22".into());
    let llvm_config = PathBuf::from(&prefix).join("bin/llvm-config");
    let output = Command::new(&llvm_config)
        .arg("--cxxflags")
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", llvm_config.display()));
    assert!(output.status.success(), "{} --cxxflags failed", llvm_config.display());
    let flags = String::from_utf8(output.stdout).expect("llvm-config prints UTF-8");
    let mut build = cc::Build::new();
    build.cpp(true).file("src/shim.cpp").warnings(false);
    for flag in flags.split_whitespace() {
        build.flag(flag);
    }
    build.compile("lanewise_plugin_shim");
    link_frontend_plugin(&build, &flags);
}

/// `liblanewise_frontend.so` from src/frontend.cpp with the shim's compiler,
/// without RTTI (clang is built without it), its clang symbols left to the
/// clang that loads it.
fn link_frontend_plugin(build: &cc::Build, llvm_flags: &str) {
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    let library = out_dir.join("liblanewise_frontend.so");
    let compiler = build.get_compiler();
    let status = Command::new(compiler.path())
        .args(llvm_flags.split_whitespace())
        .args(["-fno-rtti", "-fPIC", "-shared", "-O2", "src/frontend.cpp", "-o"])
        .arg(&library)
        .status()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", compiler.path().display()));
    assert!(
        status.success(),
        "compiling src/frontend.cpp failed (clang's headers come with libclang-22-dev)"
    );
    // OUT_DIR is target/<profile>/build/lanewise-plugin-<hash>/out.
    let profile_dir: &Path = out_dir.ancestors().nth(3).expect("OUT_DIR under target/<profile>");
    std::fs::copy(&library, profile_dir.join("liblanewise_frontend.so"))
        .expect("copy liblanewise_frontend.so next to the pass plugin");
}
