//! The OpenCL test programs of tests/opencl/ (issue 15): each is built with
//! gcc against the ICD loader and run on this platform and, when it is
//! installed, on PoCL, which shows the program itself is valid OpenCL.
//! Every program computes a CPU reference and prints `ok: NAME`.

mod support;

use std::path::{Path, PathBuf};

use support::{build_host_program, pocl_installed, run_host_program, work_with_vendors, POCL};

#[test]
fn every_program_passes_on_lanewise_and_on_pocl() {
    let (work, vendors) = work_with_vendors("opencl-programs");
    let programs_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/opencl");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&programs_dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 16, "{sources:?}");
    let mut failures = Vec::new();
    for source in &sources {
        let name = source.file_stem().unwrap().to_string_lossy().into_owned();
        let binary = work.join(&name);
        if let Err(error) = build_host_program(source, &binary, Some(&programs_dir)) {
            failures.push(format!("{name}: {error}"));
            continue;
        }
        let mut platforms = vec![("Lanewise", Some(vendors.as_path()))];
        if pocl_installed() {
            platforms.push((POCL, None));
        }
        for (platform, vendors) in platforms {
            match run_host_program(&binary, platform, vendors) {
                Ok(stdout) if stdout.contains(&format!("ok: {name}")) => {}
                Ok(stdout) => failures.push(format!("{name} on {platform}: {stdout}")),
                Err(error) => failures.push(error),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
