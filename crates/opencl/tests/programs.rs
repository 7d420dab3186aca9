//! The OpenCL test programs of tests/opencl/ (issue 15): each is built with
//! gcc against the ICD loader and run on this platform and, when it is
//! installed, on PoCL, which shows the program itself is valid OpenCL.
//! Every program computes a CPU reference and prints `ok: NAME`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().and_then(Path::parent).unwrap().to_path_buf()
}

fn programs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/opencl")
}

#[test]
fn every_program_passes_on_lanewise_and_on_pocl() {
    let work = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("opencl-programs");
    let vendors = work.join("vendors");
    std::fs::create_dir_all(&vendors).unwrap();
    let library = target_dir().join("liblanewise_opencl.so");
    std::fs::write(vendors.join("lanewise.icd"), format!("{}\n", library.display())).unwrap();
    let pocl = Path::new("/etc/OpenCL/vendors/pocl.icd").exists();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(programs_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 3, "{sources:?}");
    let mut failures = Vec::new();
    for source in &sources {
        let name = source.file_stem().unwrap().to_string_lossy().into_owned();
        let binary = work.join(&name);
        let output = Command::new("gcc")
            .args(["-O1", "-Wall", "-Werror", "-ffp-contract=off", "-I"])
            .arg(programs_dir())
            .arg(source)
            .arg("-o")
            .arg(&binary)
            .args(["-lOpenCL", "-lm"])
            .output()
            .expect("gcc runs");
        if !output.status.success() {
            failures.push(format!("{name}: gcc: {}", String::from_utf8_lossy(&output.stderr)));
            continue;
        }
        let mut platforms = vec![("Lanewise", Some(&vendors))];
        if pocl {
            platforms.push(("Portable Computing Language", None));
        }
        for (platform, vendors) in platforms {
            let mut command = Command::new(&binary);
            command.arg(platform);
            if let Some(vendors) = vendors {
                command.env("OCL_ICD_VENDORS", vendors);
            }
            let output = command.output().expect("the program runs");
            let stdout = String::from_utf8_lossy(&output.stdout);
            if !output.status.success() || !stdout.contains(&format!("ok: {name}")) {
                failures.push(format!(
                    "{name} on {platform}: {}{stdout}{}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr)
                ));
            }
        }
        eprintln!("{name}: ok");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
