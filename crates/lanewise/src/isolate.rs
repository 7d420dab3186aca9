//! Reading an input module in a child process first.
//!
//! LLVM's bitcode reader trusts its input: a bitcode file with one flipped
//! byte can make it dereference garbage and kill the process with SIGSEGV
//! (LLVM's own tools crash the same way). Before the `lanewise` binary (and
//! `lanewise cc`, for `.ll`/`.bc` inputs) parses a file in process, it runs
//! itself as a child, `lanewise __lanewise-check-module`, with the file's
//! bytes on its standard input (the parent reads the file once: a pipe or
//! FIFO given as input still works). The child parses and verifies them
//! ([`lanewise_llvm::check_module_bytes`]) and exits 0 or 1 with nothing on
//! stderr. A child killed by a signal means bytes LLVM cannot read safely:
//! an error, and the parent never parses them. A child that exits is
//! trusted: the parse in process then either succeeds or reports the
//! parser's own error. Only the binary can do this (it runs itself); the
//! library API parses in process.

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

/// The hidden first argument of the child.
pub const CHECK_MODULE_COMMAND: &str = "__lanewise-check-module";

/// The child: exit status 0 if the module on stdin parses and verifies, 1
/// otherwise.
pub fn check_module_main() -> ExitCode {
    let mut bytes = Vec::new();
    if std::io::stdin().read_to_end(&mut bytes).is_err() {
        return ExitCode::FAILURE;
    }
    match lanewise_llvm::check_module_bytes(&bytes, "<input>") {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

/// Reads `path` (`Err`: a one-line message).
pub fn read_input(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|error| format!("cannot read `{}`: {error}", path.display()))
}

/// The parent: `Err` with a one-line message naming `path` when LLVM's
/// reader dies on `bytes` (the contents of `path`) in the child; `Ok` when
/// the child exits (whatever its status) or cannot be started (the parse
/// then runs in process only).
pub fn check_module_in_child(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let Ok(executable) = std::env::current_exe() else { return Ok(()) };
    let child = Command::new(executable)
        .arg(CHECK_MODULE_COMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    let Ok(mut child) = child else { return Ok(()) };
    if let Some(mut stdin) = child.stdin.take() {
        // The child reads everything before parsing; a failed write means
        // it died already, which its status says.
        let _ = stdin.write_all(bytes);
    }
    let Ok(status) = child.wait() else { return Ok(()) };
    if status.code().is_some() {
        return Ok(());
    }
    let kind = if is_bitcode(bytes) { "corrupt bitcode" } else { "corrupt LLVM IR" };
    Err(format!("{}: {kind}: LLVM's reader crashed on it ({})", path.display(), signal_of(&status)))
}

/// Whether `bytes` start like LLVM bitcode (`BC\xC0\xDE`, or the wrapper
/// header `\xDE\xC0\x17\x0B`).
fn is_bitcode(bytes: &[u8]) -> bool {
    bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B])
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(signal) => format!("signal {signal}"),
        None => "no exit status".to_owned(),
    }
}

#[cfg(not(unix))]
fn signal_of(_status: &std::process::ExitStatus) -> String {
    "no exit status".to_owned()
}
