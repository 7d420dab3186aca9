//! Compiles the C++ shim against LLVM 22's headers (the prefix llvm-sys
//! uses, from .cargo/config.toml) with the flags `llvm-config --cxxflags`
//! gives. The LLVM symbols stay undefined: the plugin is loaded into a
//! clang or opt that already has libLLVM.so.22 loaded.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=src/shim.cpp");
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
}
