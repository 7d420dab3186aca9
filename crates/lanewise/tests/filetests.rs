//! File tests: each `tests/filetests/*.ll` is an input module whose first
//! lines say how to run `lanewise` on it:
//!
//! ```text
//! ; ARGS: -o {out} --function f --width 8 --shapes v     (arguments after the input path)
//! ; EMIT: name                                            (functions of the output to compare)
//! ```
//!
//! The expected result is in `<test>.expected`: for a failing run, the exit
//! status and stderr; for a successful one, stderr (warnings) and the LLVM IR
//! of every `EMIT` function. Run with `LANEWISE_BLESS=1` to (re)write the
//! expected files after checking the differences by hand.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn filetests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/filetests")
}

fn directive<'a>(source: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("; {key}:");
    source.lines().filter_map(|line| line.strip_prefix(&prefix)).map(str::trim).collect()
}

/// The text of `define ... @name(...) { ... }` in an LLVM IR module.
fn function_text(module: &str, name: &str) -> Option<String> {
    let header = format!("@{name}(");
    let mut lines =
        module.lines().skip_while(|line| !(line.starts_with("define") && line.contains(&header)));
    let mut text = String::new();
    for line in lines.by_ref() {
        text.push_str(line);
        text.push('\n');
        if line == "}" {
            return Some(text);
        }
    }
    None
}

fn run_one(test: &Path, scratch: &Path) -> String {
    let source = fs::read_to_string(test).unwrap();
    let args_line = directive(&source, "ARGS");
    assert_eq!(args_line.len(), 1, "{}: needs exactly one `; ARGS:` line", test.display());
    let output = scratch.join(format!("{}.out.ll", test.file_stem().unwrap().to_string_lossy()));
    let args: Vec<String> = args_line[0]
        .split_whitespace()
        .map(|arg| arg.replace("{out}", &output.to_string_lossy()))
        .collect();
    let result = Command::new(env!("CARGO_BIN_EXE_lanewise"))
        .arg(test)
        .args(&args)
        .output()
        .expect("cannot run lanewise");
    let stderr = String::from_utf8_lossy(&result.stderr)
        .replace(&*test.to_string_lossy(), "{input}")
        .replace(&*output.to_string_lossy(), "{out}");
    assert!(
        !stderr.contains("internal compiler error"),
        "{}: lanewise panicked:\n{stderr}",
        test.display()
    );
    let mut actual = String::new();
    if !result.status.success() {
        let stderr_lines = stderr.lines().count();
        assert_eq!(stderr_lines, 1, "{}: errors must be one line, got:\n{stderr}", test.display());
        actual.push_str(&format!("exit: {}\n{stderr}", result.status.code().unwrap_or(-1)));
        return actual;
    }
    actual.push_str(&stderr);
    let module = fs::read_to_string(&output).unwrap();
    for name in directive(&source, "EMIT") {
        let text = function_text(&module, name)
            .unwrap_or_else(|| panic!("{}: output has no function @{name}", test.display()));
        actual.push_str(&text);
    }
    actual
}

#[test]
fn filetests() {
    let scratch = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("filetests");
    fs::create_dir_all(&scratch).unwrap();
    let bless = std::env::var_os("LANEWISE_BLESS").is_some();
    let mut tests: Vec<PathBuf> = fs::read_dir(filetests_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ll"))
        .collect();
    tests.sort();
    assert!(!tests.is_empty(), "no file tests found");
    let mut failures = Vec::new();
    for test in &tests {
        let actual = run_one(test, &scratch);
        let expected_path = test.with_extension("expected");
        match fs::read_to_string(&expected_path) {
            Ok(expected) if expected == actual => {}
            _ if bless => fs::write(&expected_path, &actual).unwrap(),
            Ok(expected) => failures
                .push(format!("{}:\n--- expected\n{expected}--- actual\n{actual}", test.display())),
            Err(_) => failures.push(format!(
                "{}: no .expected file (run with LANEWISE_BLESS=1); actual:\n{actual}",
                test.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} file tests failed:\n{}",
        failures.len(),
        tests.len(),
        failures.join("\n")
    );
    println!("{} file tests passed", tests.len());
}
