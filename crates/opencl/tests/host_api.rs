//! Runs tests/host_api.c and tests/kernels.c, OpenCL host programs, through the Khronos ICD
//! loader against this platform (a vendors directory naming the freshly
//! built liblanewise_opencl.so) and, as the second opinion on what the
//! specification requires, against PoCL when it is installed. Needs
//! Debian's ocl-icd-opencl-dev and opencl-headers (scripts/setup.sh).

use std::path::{Path, PathBuf};
use std::process::Command;

/// target/<profile>/, where cargo puts the cdylib.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

fn build_host_program(work: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/host_api.c");
    let program = work.join("host_api");
    let output = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror"])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .arg("-lOpenCL")
        .output()
        .expect("gcc runs");
    assert!(output.status.success(), "gcc: {}", String::from_utf8_lossy(&output.stderr));
    program
}

fn run(program: &Path, platform: &str, vendors: Option<&Path>) -> String {
    let mut command = Command::new(program);
    command.arg(platform);
    if let Some(vendors) = vendors {
        command.env("OCL_ICD_VENDORS", vendors);
    }
    let output = command.output().expect("the host program runs");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "host_api on {platform}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn the_host_api_behaves_as_specified_on_lanewise_and_on_pocl() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-host-api");
    std::fs::create_dir_all(&work).unwrap();
    let library = target_dir().join("liblanewise_opencl.so");
    assert!(library.exists(), "{} is built with the tests", library.display());
    let vendors = work.join("vendors");
    std::fs::create_dir_all(&vendors).unwrap();
    std::fs::write(vendors.join("lanewise.icd"), format!("{}\n", library.display())).unwrap();
    let program = build_host_program(&work);

    let ours = run(&program, "Lanewise", Some(&vendors));
    assert!(ours.starts_with("ok: "), "{ours}");
    if Path::new("/etc/OpenCL/vendors/pocl.icd").exists() {
        let pocl = run(&program, "Portable Computing Language", None);
        assert!(pocl.starts_with("ok: "), "{pocl}");
    } else {
        eprintln!("PoCL is not installed: no second opinion (scripts/setup.sh installs it)");
    }
}

#[test]
fn clinfo_lists_the_platform() {
    let library = target_dir().join("liblanewise_opencl.so");
    let vendors = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-clinfo");
    std::fs::create_dir_all(&vendors).unwrap();
    std::fs::write(vendors.join("lanewise.icd"), format!("{}\n", library.display())).unwrap();
    let output = Command::new("clinfo")
        .arg("-l")
        .env("OCL_ICD_VENDORS", &vendors)
        .output()
        .expect("clinfo runs (scripts/setup.sh installs it)");
    let listing = String::from_utf8_lossy(&output.stdout);
    assert!(listing.contains("Platform #0: Lanewise"), "{listing}");
    let cpu = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    let device = listing.lines().find(|line| line.contains("Device #0")).expect("a device");
    let name = device.split(": ").nth(1).unwrap().trim();
    assert!(cpu.contains(name), "the device is the machine's CPU: {name}");
}

#[test]
fn kernels_compute_what_the_host_computes_on_lanewise_and_on_pocl() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-kernels");
    std::fs::create_dir_all(&work).unwrap();
    let library = target_dir().join("liblanewise_opencl.so");
    let vendors = work.join("vendors");
    std::fs::create_dir_all(&vendors).unwrap();
    std::fs::write(vendors.join("lanewise.icd"), format!("{}\n", library.display())).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels.c");
    let program = work.join("kernels");
    let output = Command::new("gcc")
        .args(["-O1", "-Wall", "-Werror"])
        .arg(&source)
        .arg("-o")
        .arg(&program)
        .args(["-lOpenCL", "-lm"])
        .output()
        .expect("gcc runs");
    assert!(output.status.success(), "gcc: {}", String::from_utf8_lossy(&output.stderr));
    let ours = run(&program, "Lanewise", Some(&vendors));
    assert!(ours.starts_with("ok: "), "{ours}");
    if Path::new("/etc/OpenCL/vendors/pocl.icd").exists() {
        let pocl = run(&program, "Portable Computing Language", None);
        assert!(pocl.starts_with("ok: "), "{pocl}");
    }
}
