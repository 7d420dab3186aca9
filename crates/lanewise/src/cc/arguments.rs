//! The arguments of `lanewise cc`: the table of clang's options (whether
//! an option takes a value, which steps it belongs to), the parse of a
//! command line into inputs and per-step options ([`Invocation`]),
//! Lanewise's own options among clang's, and response files.

use super::*;

/// Which sub-commands an option belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Preprocessor, language dialect, diagnostics: step 1 only.
    Frontend,
    /// Code generation (`-O`, `-m*`, most `-f*`, `-g`, remarks): steps 1 and 3
    /// and the link.
    Codegen,
    /// Instrumentation the frontend's pipeline inserts (sanitizers,
    /// profiling, coverage): step 1 and the link, not step 3, which would
    /// instrument a second time.
    Instrumentation,
    /// The linker (`-l`, `-L`, `-Wl,`, `-shared`, ...): the link only.
    Link,
    /// Options the table does not know: step 1 and the link, as clang
    /// would see them (clang reports the unknown ones itself).
    Unknown,
}

/// How an option takes its value.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// No value (`-c`), or the value is part of the name (`-std=c11`).
    Flag,
    /// The value follows in the same argument (`-Wl,x`, `-fuse-ld=lld`).
    Joined,
    /// The value is the next argument (`-Xlinker x`).
    Separate,
    /// Either (`-Idir` or `-I dir`).
    JoinedOrSeparate,
}

/// One row of the option table: an option name (or prefix, for the joined
/// forms), its value form and its stage.
#[derive(Copy, Clone, Debug)]
pub struct OptionSpec {
    pub name: &'static str,
    pub form: ValueForm,
    pub stage: Stage,
}

const fn spec(name: &'static str, form: ValueForm, stage: Stage) -> OptionSpec {
    OptionSpec { name, form, stage }
}

use Stage::{Codegen, Frontend, Instrumentation, Link};
use ValueForm::{Flag, Joined, JoinedOrSeparate, Separate};

/// The clang options `lanewise cc` knows, longest prefixes first within a
/// family (the lookup takes the longest matching name). Options handled by
/// the driver itself (`-c`, `-S`, `-E`, `-o`, `-x`, `-emit-llvm`, `-v`, ...)
/// are not here; see [`parse_arguments`].
pub const OPTION_TABLE: &[OptionSpec] = &[
    // Preprocessor.
    spec("-I", JoinedOrSeparate, Frontend),
    spec("-D", JoinedOrSeparate, Frontend),
    spec("-U", JoinedOrSeparate, Frontend),
    spec("-include", JoinedOrSeparate, Frontend),
    spec("-include-pch", Separate, Frontend),
    spec("-imacros", JoinedOrSeparate, Frontend),
    spec("-isystem", JoinedOrSeparate, Frontend),
    spec("-isystem-after", JoinedOrSeparate, Frontend),
    spec("-iquote", JoinedOrSeparate, Frontend),
    spec("-idirafter", JoinedOrSeparate, Frontend),
    spec("-iprefix", JoinedOrSeparate, Frontend),
    spec("-iwithprefix", JoinedOrSeparate, Frontend),
    spec("-iwithprefixbefore", JoinedOrSeparate, Frontend),
    spec("-iwithsysroot", JoinedOrSeparate, Frontend),
    spec("-isysroot", JoinedOrSeparate, Frontend),
    spec("-ivfsoverlay", JoinedOrSeparate, Frontend),
    spec("-nostdinc", Flag, Frontend),
    spec("-nostdinc++", Flag, Frontend),
    spec("-nostdlibinc", Flag, Frontend),
    spec("-undef", Flag, Frontend),
    spec("-C", Flag, Frontend),
    spec("-CC", Flag, Frontend),
    spec("-P", Flag, Frontend),
    spec("-H", Flag, Frontend),
    spec("-trigraphs", Flag, Frontend),
    spec("-Xpreprocessor", Separate, Frontend),
    spec("-Wp,", Joined, Frontend),
    spec("-Xclang", Separate, Frontend),
    // Dependency files (with the compilation; `-M`/`-MM` alone pass through).
    spec("-MD", Flag, Frontend),
    spec("-MMD", Flag, Frontend),
    spec("-MP", Flag, Frontend),
    spec("-MG", Flag, Frontend),
    spec("-MV", Flag, Frontend),
    spec("-MF", JoinedOrSeparate, Frontend),
    spec("-MT", JoinedOrSeparate, Frontend),
    spec("-MQ", JoinedOrSeparate, Frontend),
    spec("-MJ", JoinedOrSeparate, Frontend),
    spec("-dependency-file", Separate, Frontend),
    spec("-serialize-diagnostics", Separate, Frontend),
    // Language dialect and diagnostics.
    spec("-std=", Joined, Frontend),
    spec("--std=", Joined, Frontend),
    spec("-ansi", Flag, Frontend),
    spec("-pedantic", Flag, Frontend),
    spec("-pedantic-errors", Flag, Frontend),
    spec("-W", Joined, Frontend),
    spec("-ferror-limit=", Joined, Frontend),
    spec("-fdiagnostics-", Joined, Frontend),
    spec("-fcolor-diagnostics", Flag, Frontend),
    spec("-fno-color-diagnostics", Flag, Frontend),
    spec("-fmacro-backtrace-limit=", Joined, Frontend),
    spec("-ftemplate-backtrace-limit=", Joined, Frontend),
    spec("-fcaret-diagnostics", Flag, Frontend),
    spec("-fno-caret-diagnostics", Flag, Frontend),
    spec("-fshow-column", Flag, Frontend),
    spec("-fno-show-column", Flag, Frontend),
    spec("-fmessage-length=", Joined, Frontend),
    spec("-fopenmp-simd", Flag, Frontend),
    spec("-fno-openmp-simd", Flag, Frontend),
    spec("-fprofile-instr-use", Joined, Frontend),
    spec("-fprofile-use", Joined, Frontend),
    spec("-fprofile-sample-use=", Joined, Frontend),
    // Code generation: all three steps.
    spec("-O", Joined, Codegen),
    spec("-m", Joined, Codegen),
    spec("-f", Joined, Codegen),
    spec("-g", Joined, Codegen),
    spec("-R", Joined, Codegen),
    spec("-w", Flag, Codegen),
    spec("-pthread", Flag, Codegen),
    spec("-target", Separate, Codegen),
    spec("--target=", Joined, Codegen),
    spec("-mllvm", Separate, Codegen),
    spec("-Wa,", Joined, Codegen),
    spec("-Xassembler", Separate, Codegen),
    spec("--sysroot", JoinedOrSeparate, Codegen),
    spec("--gcc-toolchain=", Joined, Codegen),
    spec("--gcc-install-dir=", Joined, Codegen),
    spec("-B", JoinedOrSeparate, Codegen),
    spec("-resource-dir", JoinedOrSeparate, Codegen),
    spec("-stdlib=", Joined, Codegen),
    spec("--param", JoinedOrSeparate, Codegen),
    spec("-save-temps", Joined, Codegen),
    // Instrumentation inserted by the frontend's pipeline.
    spec("-fsanitize", Joined, Instrumentation),
    spec("-fno-sanitize", Joined, Instrumentation),
    spec("-fprofile-instr-generate", Joined, Instrumentation),
    spec("-fprofile-generate", Joined, Instrumentation),
    spec("-fcs-profile-generate", Joined, Instrumentation),
    spec("-fprofile-arcs", Flag, Instrumentation),
    spec("-ftest-coverage", Flag, Instrumentation),
    spec("-fcoverage-mapping", Flag, Instrumentation),
    spec("--coverage", Flag, Instrumentation),
    spec("-fxray-instrument", Flag, Instrumentation),
    spec("-finstrument-functions", Flag, Instrumentation),
    spec("-pg", Flag, Instrumentation),
    // The linker.
    spec("-l", JoinedOrSeparate, Link),
    spec("-L", JoinedOrSeparate, Link),
    spec("-Wl,", Joined, Link),
    spec("-Xlinker", Separate, Link),
    spec("-u", JoinedOrSeparate, Link),
    spec("-z", JoinedOrSeparate, Link),
    spec("-T", JoinedOrSeparate, Link),
    spec("-e", JoinedOrSeparate, Link),
    spec("-rpath", Separate, Link),
    spec("-shared", Flag, Link),
    spec("-static", Flag, Link),
    spec("-static-pie", Flag, Link),
    spec("-static-libgcc", Flag, Link),
    spec("-static-libstdc++", Flag, Link),
    spec("-shared-libgcc", Flag, Link),
    spec("-rdynamic", Flag, Link),
    spec("-nostdlib", Flag, Link),
    spec("-nostdlib++", Flag, Link),
    spec("-nostartfiles", Flag, Link),
    spec("-nodefaultlibs", Flag, Link),
    spec("-nolibc", Flag, Link),
    spec("-pie", Flag, Link),
    spec("-no-pie", Flag, Link),
    spec("-s", Flag, Link),
    spec("-r", Flag, Link),
    spec("-fuse-ld=", Joined, Link),
    spec("--ld-path=", Joined, Link),
    spec("-rtlib=", Joined, Link),
    spec("--rtlib=", Joined, Link),
    spec("-unwindlib=", Joined, Link),
];

/// The row of [`OPTION_TABLE`] for `argument`: an exact match for options
/// without a joined value, otherwise the longest joined prefix.
pub fn lookup_option(argument: &str) -> Option<&'static OptionSpec> {
    OPTION_TABLE
        .iter()
        .filter(|row| match row.form {
            Flag | Separate => argument == row.name,
            Joined | JoinedOrSeparate => argument.starts_with(row.name),
        })
        .max_by_key(|row| (argument == row.name, row.name.len()))
}

/// The language of an input file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputKind {
    /// C or C++ (also preprocessed): compiled through steps 1-3.
    Source,
    /// LLVM IR text or bitcode: steps 2 and 3.
    Ir,
    /// Other languages clang compiles (assembly, Objective-C, ...): compiled
    /// by clang alone, with every flag.
    Other,
    /// Objects, archives, shared libraries, files clang does not know: for
    /// the linker.
    Linker,
}

/// One input file, with the `-x` language in force where it appeared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub path: String,
    pub kind: InputKind,
    /// The `-x` value in force for this input, if any.
    pub language: Option<String>,
}

/// An argument (or an option with its separate value) in command-line order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Item {
    Input(Input),
    Option { words: Vec<String>, stage: Stage },
}

/// What the command asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// No `-c`/`-S`: compile and link.
    Link,
    /// `-c`: one object (or bitcode with `-emit-llvm`) per input.
    Compile,
    /// `-S`: one assembly file (or IR text with `-emit-llvm`) per input.
    Assemble,
}

/// A parsed `lanewise cc` command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Invocation {
    pub action: Action,
    pub emit_llvm: bool,
    pub output: Option<String>,
    pub items: Vec<Item>,
    /// `-v`: print the sub-commands.
    pub verbose: bool,
    /// Why the whole command goes to clang unchanged, if it does.
    pub pass_through: Option<String>,
    /// `-Rpass=lanewise` (or a regex that matches it).
    pub remarks_passed: bool,
    /// `-Rpass-missed=lanewise`.
    pub remarks_missed: bool,
    /// How libm calls are vectorized: `-fveclib=libmvec` asks for libmvec
    /// everywhere (`-fveclib=none` undoes it; the last wins); otherwise
    /// each call as its fast-math flags say ([`VectorMath::Auto`]: clang
    /// marks calls `afn` under `-ffast-math`, `-funsafe-math-optimizations`
    /// and `-fapprox-func`).
    pub vector_math: VectorMath,
    /// `-w`: no warnings.
    pub no_warnings: bool,
    /// `--slp lanewise|llvm|off` and `--slp-algorithm tree|pair`, Lanewise's
    /// own options (clang never sees them): which basic-block vectorizer
    /// runs on the optimized module ([`Driver::backend`]).
    pub slp: SlpChoice,
    /// An invalid value of a Lanewise option: the error message.
    pub lanewise_option_error: Option<String>,
}

/// The basic-block vectorizer of `lanewise cc` (`--slp`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SlpChoice {
    pub slp: SlpArg,
    pub algorithm: SlpAlgorithmArg,
}

/// The default of `--slp`.
pub const DEFAULT_SLP: SlpArg = SlpArg::Llvm;

/// Lanewise's own options of `lanewise cc`, each with a value.
const LANEWISE_OPTIONS: [&str; 2] = ["--slp", "--slp-algorithm"];

/// The value of Lanewise option `name` as `argument` (and maybe `next`)
/// give it, and how many words it takes; `None` if `argument` is not it.
fn lanewise_option<'a>(
    name: &str,
    argument: &'a str,
    next: Option<&'a String>,
) -> Option<(Option<&'a str>, usize)> {
    if argument == name {
        return Some((next.map(String::as_str), 2));
    }
    let value = argument.strip_prefix(name)?.strip_prefix('=')?;
    Some((Some(value), 1))
}

/// Records the value of Lanewise's own option `name` (`--slp`,
/// `--slp-algorithm`), or the error of an invalid one.
fn note_lanewise_option(invocation: &mut Invocation, name: &str, value: Option<&str>) {
    let valid = match (name, value) {
        ("--slp", Some(value)) => {
            SlpArg::from_str(value, false).map(|slp| invocation.slp.slp = slp).is_ok()
        }
        ("--slp-algorithm", Some(value)) => SlpAlgorithmArg::from_str(value, false)
            .map(|algorithm| invocation.slp.algorithm = algorithm)
            .is_ok(),
        _ => false,
    };
    if !valid {
        let expected =
            if name == "--slp" { "`lanewise`, `llvm` or `off`" } else { "`tree` or `pair`" };
        invocation.lanewise_option_error.get_or_insert(format!(
            "`{name}` takes {expected}, not `{}`",
            value.unwrap_or_default()
        ));
    }
}

/// `arguments` without Lanewise's own options, for clang.
pub(super) fn without_lanewise_options(arguments: &[OsString]) -> Vec<OsString> {
    let mut kept = Vec::with_capacity(arguments.len());
    let mut index = 0;
    while index < arguments.len() {
        let argument = arguments[index].to_string_lossy();
        let words = LANEWISE_OPTIONS
            .iter()
            .find_map(|name| lanewise_option(name, &argument, None).map(|(_, words)| words));
        match words {
            Some(words) => index += words,
            None => {
                kept.push(arguments[index].clone());
                index += 1;
            }
        }
    }
    kept
}

impl Invocation {
    pub fn inputs(&self) -> impl Iterator<Item = &Input> {
        self.items.iter().filter_map(|item| match item {
            Item::Input(input) => Some(input),
            Item::Option { .. } => None,
        })
    }

    /// The option words of the given stages, in order.
    pub(super) fn option_words(&self, stages: &[Stage]) -> Vec<String> {
        let mut words = Vec::new();
        for item in &self.items {
            if let Item::Option { words: option, stage } = item {
                if stages.contains(stage) {
                    words.extend(option.iter().cloned());
                }
            }
        }
        words
    }

    pub(super) fn has_option(&self, name: &str) -> bool {
        self.items.iter().any(|item| match item {
            Item::Option { words, .. } => words.first().is_some_and(|first| first == name),
            Item::Input(_) => false,
        })
    }

    pub(super) fn has_option_prefix(&self, prefix: &str) -> bool {
        self.items.iter().any(|item| match item {
            Item::Option { words, .. } => words.first().is_some_and(|w| w.starts_with(prefix)),
            Item::Input(_) => false,
        })
    }
}

/// The kind of an input by its `-x` language, or else by its extension.
pub fn input_kind(path: &str, language: Option<&str>) -> InputKind {
    if let Some(language) = language {
        return match language {
            "c" | "c++" | "cpp-output" | "c++-cpp-output" | "c-cpp-output" => InputKind::Source,
            "ir" => InputKind::Ir,
            "none" => InputKind::Linker,
            _ => InputKind::Other,
        };
    }
    let extension = Path::new(path).extension().and_then(|e| e.to_str()).unwrap_or("");
    match extension {
        "c" | "i" | "cc" | "cp" | "cpp" | "cxx" | "c++" | "C" | "CC" | "CPP" | "ii" => {
            InputKind::Source
        }
        "ll" | "bc" => InputKind::Ir,
        "s" | "S" | "sx" | "m" | "mm" | "M" | "cu" | "cl" | "hip" | "h" | "hh" | "hpp" => {
            InputKind::Other
        }
        _ => InputKind::Linker,
    }
}

/// Whether a `-Rpass=` regex asks for Lanewise's remarks. There is no regex
/// engine here: `lanewise`, `.*`, `.+` and alternatives (`a|lanewise`) are
/// recognized, which covers how the option is used.
pub fn remark_regex_matches_lanewise(regex: &str) -> bool {
    regex.split('|').any(|alternative| {
        let alternative = alternative.trim_start_matches('^').trim_end_matches('$');
        matches!(alternative, ".*" | ".+" | "lanewise" | "lanewise.*" | ".*lanewise.*")
    })
}

/// Options after which the whole command goes to clang unchanged.
const PASS_THROUGH_OPTIONS: &[&str] = &[
    "-E",
    "-M",
    "-MM",
    "-fsyntax-only",
    "-###",
    "--version",
    "-dumpversion",
    "-dumpmachine",
    "--help",
    "-help",
    "-cc1",
    "-cc1as",
    "--analyze",
    "-emit-ast",
    "-precompile",
];

/// Classifies `arguments` (response files already expanded).
pub fn parse_arguments(arguments: &[String]) -> Invocation {
    let mut invocation = Invocation {
        action: Action::Link,
        emit_llvm: false,
        output: None,
        items: Vec::new(),
        verbose: false,
        pass_through: None,
        remarks_passed: false,
        remarks_missed: false,
        vector_math: VectorMath::Auto,
        no_warnings: false,
        slp: SlpChoice { slp: DEFAULT_SLP, algorithm: SlpAlgorithmArg::Tree },
        lanewise_option_error: None,
    };
    // `LANEWISE_SLP` and `LANEWISE_SLP_ALGORITHM` set the defaults of the
    // options (for build systems and the fuzzer); the command line wins.
    for (variable, option) in
        [("LANEWISE_SLP", "--slp"), ("LANEWISE_SLP_ALGORITHM", "--slp-algorithm")]
    {
        if let Ok(value) = std::env::var(variable) {
            note_lanewise_option(&mut invocation, option, Some(&value));
            if let Some(message) = invocation.lanewise_option_error.take() {
                invocation.lanewise_option_error = Some(format!("{variable}: {message}"));
            }
        }
    }
    let mut language: Option<String> = None;
    let mut index = 0;
    while index < arguments.len() {
        let argument = &arguments[index];
        index += 1;
        let next = arguments.get(index);
        let lanewise_words = LANEWISE_OPTIONS.iter().find_map(|name| {
            lanewise_option(name, argument, next).map(|(value, words)| (*name, value, words))
        });
        if let Some((name, value, words)) = lanewise_words {
            index += words - 1;
            note_lanewise_option(&mut invocation, name, value);
            continue;
        }
        if argument == "-" || !argument.starts_with('-') || argument.len() == 1 {
            let kind = input_kind(argument, language.as_deref());
            if argument == "-" && language.is_none() {
                invocation.pass_through.get_or_insert("standard input without -x".to_owned());
            }
            invocation.items.push(Item::Input(Input {
                path: argument.clone(),
                kind,
                language: language.clone(),
            }));
            continue;
        }
        if PASS_THROUGH_OPTIONS.contains(&argument.as_str())
            || argument.starts_with("-print-")
            || argument.starts_with("--print-")
        {
            invocation.pass_through.get_or_insert(format!("`{argument}`"));
            continue;
        }
        match argument.as_str() {
            // `-S` stops earlier than `-c` and wins, as in clang.
            "-c" => {
                if invocation.action != Action::Assemble {
                    invocation.action = Action::Compile;
                }
            }
            "-S" => invocation.action = Action::Assemble,
            "-emit-llvm" => invocation.emit_llvm = true,
            "-v" => invocation.verbose = true,
            "-o" => match next {
                Some(value) => {
                    invocation.output = Some(value.clone());
                    index += 1;
                }
                None => {
                    invocation.pass_through.get_or_insert("`-o` without a value".to_owned());
                }
            },
            "-x" => match next {
                Some(value) => {
                    language = (value != "none").then(|| value.clone());
                    index += 1;
                }
                None => {
                    invocation.pass_through.get_or_insert("`-x` without a value".to_owned());
                }
            },
            _ if argument.starts_with("-o") => invocation.output = Some(argument[2..].to_owned()),
            _ if argument.starts_with("-x") => {
                let value = &argument[2..];
                language = (value != "none").then(|| value.to_owned());
            }
            _ => {
                let (stage, words) = match lookup_option(argument) {
                    Some(row) => {
                        let takes_next = match row.form {
                            Separate => true,
                            JoinedOrSeparate => argument == row.name,
                            Flag | Joined => false,
                        };
                        let mut words = vec![argument.clone()];
                        if takes_next {
                            match next {
                                Some(value) => {
                                    words.push(value.clone());
                                    index += 1;
                                }
                                None => {
                                    invocation
                                        .pass_through
                                        .get_or_insert(format!("`{argument}` without a value"));
                                }
                            }
                        }
                        (row.stage, words)
                    }
                    None => (Stage::Unknown, vec![argument.clone()]),
                };
                note_semantics(&mut invocation, argument);
                invocation.items.push(Item::Option { words, stage });
            }
        }
    }
    if invocation.inputs().next().is_none() {
        invocation.pass_through.get_or_insert("no input files".to_owned());
    } else if invocation
        .inputs()
        .all(|input| matches!(input.kind, InputKind::Other | InputKind::Linker))
    {
        invocation.pass_through.get_or_insert("no C, C++ or LLVM IR input".to_owned());
    } else if invocation.action != Action::Link
        && invocation.output.is_some()
        && invocation.inputs().count() > 1
    {
        invocation.pass_through.get_or_insert("`-o` with several outputs".to_owned());
    }
    invocation
}

/// Records what an option means for Lanewise itself (remarks, vector math, -w).
fn note_semantics(invocation: &mut Invocation, argument: &str) {
    if let Some(regex) = argument.strip_prefix("-Rpass=") {
        invocation.remarks_passed |= remark_regex_matches_lanewise(regex);
    } else if let Some(regex) = argument.strip_prefix("-Rpass-missed=") {
        invocation.remarks_missed |= remark_regex_matches_lanewise(regex);
    }
    match argument {
        "-fveclib=libmvec" => invocation.vector_math = VectorMath::Libmvec,
        "-fveclib=none" => invocation.vector_math = VectorMath::Auto,
        "-w" => invocation.no_warnings = true,
        _ => {}
    }
}

/// Expands `@file` response files (whitespace-separated words, single and
/// double quotes, backslash escapes; nested response files too).
pub fn expand_response_files(arguments: Vec<String>, depth: u32) -> Result<Vec<String>, String> {
    let mut expanded = Vec::new();
    for argument in arguments {
        let Some(path) = argument.strip_prefix('@') else {
            expanded.push(argument);
            continue;
        };
        if depth > 16 {
            return Err(format!("response file `{path}` nests too deeply"));
        }
        let text = fs::read_to_string(path)
            .map_err(|error| format!("cannot read response file `{path}`: {error}"))?;
        expanded.extend(expand_response_files(split_response_file(&text), depth + 1)?);
    }
    Ok(expanded)
}

pub(super) fn split_response_file(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut characters = text.chars();
    while let Some(character) = characters.next() {
        match (quote, character) {
            (Some(open), c) if c == open => quote = None,
            (None, '\'' | '"') => {
                quote = Some(character);
                in_word = true;
            }
            (_, '\\') => {
                if let Some(escaped) = characters.next() {
                    word.push(escaped);
                }
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (_, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}
