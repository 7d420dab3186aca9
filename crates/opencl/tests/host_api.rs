//! Runs tests/host_api.c and tests/kernels.c, OpenCL host programs, through
//! the Khronos ICD loader against this platform (a vendors directory naming
//! the freshly built liblanewise_opencl.so) and, as the second opinion on
//! what the specification requires, against PoCL when it is installed.
//! Needs Debian's ocl-icd-opencl-dev and opencl-headers (scripts/setup.sh).

mod support;

use std::path::Path;
use std::process::Command;

use support::{
    build_host_program, pocl_installed, run_host_program, run_host_program_with_env,
    work_with_vendors, POCL,
};

/// Builds tests/`name`.c and runs it on Lanewise and on PoCL.
fn passes_on_lanewise_and_on_pocl(name: &str) {
    let (work, vendors) = work_with_vendors(&format!("opencl-{name}"));
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/{name}.c"));
    let program = work.join(name);
    build_host_program(&source, &program, None).unwrap_or_else(|error| panic!("{error}"));
    run_host_program(&program, "Lanewise", Some(&vendors))
        .unwrap_or_else(|error| panic!("{error}"));
    if pocl_installed() {
        run_host_program(&program, POCL, None).unwrap_or_else(|error| panic!("{error}"));
    } else {
        eprintln!("PoCL is not installed: no second opinion (scripts/setup.sh installs it)");
    }
}

#[test]
fn the_host_api_behaves_as_specified_on_lanewise_and_on_pocl() {
    passes_on_lanewise_and_on_pocl("host_api");
}

#[test]
fn kernels_compute_what_the_host_computes_on_lanewise_and_on_pocl() {
    passes_on_lanewise_and_on_pocl("kernels");
}

/// The barrier kernels run in continuation form, through the vector
/// variants and work-item by work-item (the runtime chooses per region;
/// each way forced here, and both mixed: odd regions work-item by
/// work-item), and, for comparison and for the kernels that
/// form cannot express, as fibers (`LANEWISE_OPENCL_BARRIERS=fibers`):
/// every way must compute what the host and PoCL compute.
#[test]
fn barriers_pass_as_continuations_and_as_fibers() {
    passes_on_lanewise_and_on_pocl("barriers");
    let (work, vendors) = work_with_vendors("opencl-barriers-ways");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/barriers.c");
    let program = work.join("barriers");
    build_host_program(&source, &program, None).unwrap_or_else(|error| panic!("{error}"));
    for way in [
        ("LANEWISE_OPENCL_ADAPTIVE", "off"),
        ("LANEWISE_OPENCL_VECTORIZE", "off"),
        ("LANEWISE_OPENCL_BARRIERS", "fibers"),
        ("LANEWISE_OPENCL_REGIONS", "alternate"),
    ] {
        run_host_program_with_env(&program, "Lanewise", Some(&vendors), &[way])
            .unwrap_or_else(|error| panic!("{way:?}: {error}"));
    }
}

/// The builtins whose results OpenCL defines exactly (tests/builtins.c
/// prints about 20,000 of them): Lanewise's vector and work-item-by-work-item
/// execution and PoCL must print the same lines.
#[test]
fn builtins_agree_with_pocl_line_by_line() {
    let (work, vendors) = work_with_vendors("opencl-builtins");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/builtins.c");
    let program = work.join("builtins");
    build_host_program(&source, &program, None).unwrap_or_else(|error| panic!("{error}"));
    let vector = run_host_program(&program, "Lanewise", Some(&vendors))
        .unwrap_or_else(|error| panic!("{error}"));
    let scalar = run_host_program_with_env(
        &program,
        "Lanewise",
        Some(&vendors),
        &[("LANEWISE_OPENCL_VECTORIZE", "off")],
    )
    .unwrap_or_else(|error| panic!("{error}"));
    assert!(vector.lines().count() > 20_000, "{}", vector.lines().count());
    assert_same_lines(&vector, &scalar, "Lanewise vector", "Lanewise scalar");
    if pocl_installed() {
        let pocl = run_host_program(&program, POCL, None).unwrap_or_else(|error| panic!("{error}"));
        assert_same_lines(&vector, &pocl, "Lanewise", "PoCL");
    } else {
        eprintln!("PoCL is not installed: no second opinion (scripts/setup.sh installs it)");
    }
}

fn assert_same_lines(left: &str, right: &str, left_name: &str, right_name: &str) {
    let differences: Vec<String> = left
        .lines()
        .zip(right.lines())
        .filter(|(a, b)| a != b)
        .take(10)
        .map(|(a, b)| format!("{left_name}: {a}\n{right_name}: {b}"))
        .collect();
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert_eq!(left.lines().count(), right.lines().count(), "{left_name} vs {right_name}");
}

/// Barriers in tangled control flow (tests/barrier_shapes.c) give the same
/// results on Lanewise in every execution way as on PoCL.
#[test]
fn tangled_barriers_agree_with_pocl_in_every_way() {
    let (work, vendors) = work_with_vendors("opencl-barrier-shapes");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/barrier_shapes.c");
    let program = work.join("barrier_shapes");
    build_host_program(&source, &program, None).unwrap_or_else(|error| panic!("{error}"));
    let reference = if pocl_installed() {
        run_host_program(&program, POCL, None).unwrap_or_else(|error| panic!("{error}"))
    } else {
        eprintln!("PoCL is not installed: the ways are compared with each other only");
        run_host_program(&program, "Lanewise", Some(&vendors))
            .unwrap_or_else(|error| panic!("{error}"))
    };
    for way in [
        ("LANEWISE_OPENCL_REGIONS", "chosen"),
        ("LANEWISE_OPENCL_REGIONS", "alternate"),
        ("LANEWISE_OPENCL_ADAPTIVE", "off"),
        ("LANEWISE_OPENCL_VECTORIZE", "off"),
        ("LANEWISE_OPENCL_BARRIERS", "fibers"),
    ] {
        let output = run_host_program_with_env(&program, "Lanewise", Some(&vendors), &[way])
            .unwrap_or_else(|error| panic!("{way:?}: {error}"));
        assert_same_lines(&output, &reference, &format!("Lanewise {way:?}"), "reference");
    }
}

/// Barriers in 3-D work-groups with values of every width across them
/// (tests/barrier_types.c): every way of the continuation form gives what
/// fibers running work-item by work-item give.
#[test]
fn barriers_keep_values_of_every_type_in_every_way() {
    let (work, vendors) = work_with_vendors("opencl-barrier-types");
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/barrier_types.c");
    let program = work.join("barrier_types");
    build_host_program(&source, &program, None).unwrap_or_else(|error| panic!("{error}"));
    let simplest = [("LANEWISE_OPENCL_BARRIERS", "fibers"), ("LANEWISE_OPENCL_VECTORIZE", "off")];
    let reference = run_host_program_with_env(&program, "Lanewise", Some(&vendors), &simplest)
        .unwrap_or_else(|error| panic!("{error}"));
    for way in [
        ("LANEWISE_OPENCL_REGIONS", "chosen"),
        ("LANEWISE_OPENCL_REGIONS", "alternate"),
        ("LANEWISE_OPENCL_ADAPTIVE", "off"),
        ("LANEWISE_OPENCL_VECTORIZE", "off"),
        ("LANEWISE_OPENCL_BARRIERS", "fibers"),
    ] {
        let output = run_host_program_with_env(&program, "Lanewise", Some(&vendors), &[way])
            .unwrap_or_else(|error| panic!("{way:?}: {error}"));
        assert_same_lines(&output, &reference, &format!("Lanewise {way:?}"), "scalar fibers");
    }
}

#[test]
fn clinfo_lists_the_platform() {
    let (_, vendors) = work_with_vendors("opencl-clinfo");
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
