//! What the OpenCL integration tests share: the platform registered in a
//! vendors directory of the test's own, host programs built with gcc
//! against the ICD loader, and whether PoCL is there for a second opinion.

use std::path::{Path, PathBuf};
use std::process::Command;

/// PoCL's name as a platform, and whether it is installed.
pub const POCL: &str = "Portable Computing Language";

pub fn pocl_installed() -> bool {
    Path::new("/etc/OpenCL/vendors/pocl.icd").exists()
}

/// A fresh work directory `name` under the test's temporary directory,
/// with `vendors/lanewise.icd` naming the liblanewise_opencl.so cargo built
/// next to the test (target/<profile>/); returns (work, vendors).
pub fn work_with_vendors(name: &str) -> (PathBuf, PathBuf) {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let vendors = work.join("vendors");
    std::fs::create_dir_all(&vendors).unwrap();
    let exe = std::env::current_exe().unwrap();
    let target = exe.parent().and_then(Path::parent).unwrap();
    let library = target.join("liblanewise_opencl.so");
    assert!(library.exists(), "{} is built with the tests", library.display());
    std::fs::write(vendors.join("lanewise.icd"), format!("{}\n", library.display())).unwrap();
    (work, vendors)
}

/// Builds an OpenCL host program: gcc, warnings as errors, the ICD loader
/// and libm; `include` for programs that share a header.
pub fn build_host_program(
    source: &Path,
    output: &Path,
    include: Option<&Path>,
) -> Result<(), String> {
    let mut gcc = Command::new("gcc");
    gcc.args(["-O1", "-Wall", "-Werror", "-ffp-contract=off"]);
    if let Some(include) = include {
        gcc.arg("-I").arg(include);
    }
    let result = gcc.arg(source).arg("-o").arg(output).args(["-lOpenCL", "-lm"]).output();
    match result {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!("gcc: {}", String::from_utf8_lossy(&out.stderr))),
        Err(error) => Err(format!("gcc: {error}")),
    }
}

/// Runs a host program on `platform` (through `vendors` for Lanewise, the
/// system's vendors directory otherwise); its stdout, or why it failed.
pub fn run_host_program(
    program: &Path,
    platform: &str,
    vendors: Option<&Path>,
) -> Result<String, String> {
    run_host_program_with_env(program, platform, vendors, &[])
}

/// [`run_host_program`] with more environment variables.
pub fn run_host_program_with_env(
    program: &Path,
    platform: &str,
    vendors: Option<&Path>,
    env: &[(&str, &str)],
) -> Result<String, String> {
    let mut command = Command::new(program);
    command.arg(platform);
    command.envs(env.iter().copied());
    if let Some(vendors) = vendors {
        command.env("OCL_ICD_VENDORS", vendors);
    }
    let output = command.output().map_err(|error| format!("{}: {error}", program.display()))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() && stdout.contains("ok: ") {
        Ok(stdout)
    } else {
        Err(format!(
            "{} on {platform}: {}\n{stdout}{}",
            program.display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
