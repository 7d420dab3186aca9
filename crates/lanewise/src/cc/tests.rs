use super::arguments::split_response_file;
use super::Stage::Link;
use super::ValueForm::JoinedOrSeparate;
use super::*;

fn parse(line: &str) -> Invocation {
    parse_arguments(&line.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
}

fn stages_of(invocation: &Invocation) -> Vec<(String, Stage)> {
    invocation
        .items
        .iter()
        .filter_map(|item| match item {
            Item::Option { words, stage } => Some((words.join(" "), *stage)),
            Item::Input(_) => None,
        })
        .collect()
}

#[test]
fn separate_values_are_not_inputs() {
    let invocation =
        parse("-I inc -D X=1 -o prog -include pre.h -Xlinker --as-needed main.c -L lib -l m");
    let inputs: Vec<_> = invocation.inputs().map(|input| input.path.clone()).collect();
    assert_eq!(inputs, ["main.c"]);
    assert_eq!(invocation.output.as_deref(), Some("prog"));
    assert_eq!(
        stages_of(&invocation),
        [
            ("-I inc".to_owned(), Frontend),
            ("-D X=1".to_owned(), Frontend),
            ("-include pre.h".to_owned(), Frontend),
            ("-Xlinker --as-needed".to_owned(), Link),
            ("-L lib".to_owned(), Link),
            ("-l m".to_owned(), Link),
        ]
    );
    assert_eq!(invocation.action, Action::Link);
    assert_eq!(invocation.pass_through, None);
}

#[test]
fn joined_options_and_stages() {
    let invocation = parse(
        "-O3 -march=native -fopenmp-simd -std=c11 -Wall -Wl,-O1 -lm -g -fPIC \
         -fsanitize=address -Rpass=lanewise -c a.c",
    );
    assert_eq!(
        stages_of(&invocation),
        [
            ("-O3".to_owned(), Codegen),
            ("-march=native".to_owned(), Codegen),
            ("-fopenmp-simd".to_owned(), Frontend),
            ("-std=c11".to_owned(), Frontend),
            ("-Wall".to_owned(), Frontend),
            ("-Wl,-O1".to_owned(), Link),
            ("-lm".to_owned(), Link),
            ("-g".to_owned(), Codegen),
            ("-fPIC".to_owned(), Codegen),
            ("-fsanitize=address".to_owned(), Instrumentation),
            ("-Rpass=lanewise".to_owned(), Codegen),
        ]
    );
    assert_eq!(invocation.action, Action::Compile);
    assert!(invocation.remarks_passed);
    assert!(!invocation.remarks_missed);
}

#[test]
fn step1_keeps_unrolling_to_step3_and_user_options_win() {
    let mllvm = |option: &str| ["-mllvm".to_owned(), option.to_owned()];
    assert_eq!(
        step1_unroll_args(&parse("-O3 -c a.c")),
        STEP1_UNROLL_OPTIONS.iter().flat_map(|option| mllvm(option)).collect::<Vec<_>>()
    );
    let user = parse("-O3 -mllvm -unroll-runtime=true -c a.c");
    let args = step1_unroll_args(&user);
    assert!(!args.iter().any(|arg| arg.starts_with("-unroll-runtime")));
    assert!(args.contains(&"-unroll-full-max-count=0".to_owned()));
    assert!(!args.contains(&"-fno-unroll-loops".to_owned()));
}

#[test]
fn step3_holds_partial_unrolling_unless_the_user_sets_it() {
    let args = mllvm_args_unless_given(&parse("-O3 -c a.c"), &STEP3_UNROLL_OPTIONS);
    assert_eq!(args, ["-mllvm", "-unroll-runtime=false", "-mllvm", "-unroll-allow-partial=false"]);
    let user = parse("-O3 -mllvm -unroll-allow-partial=true -c a.c");
    let args = mllvm_args_unless_given(&user, &STEP3_UNROLL_OPTIONS);
    assert_eq!(args, ["-mllvm", "-unroll-runtime=false"]);
}

#[test]
fn longest_prefix_wins() {
    assert_eq!(lookup_option("-Wl,--gc-sections").map(|row| row.stage), Some(Link));
    assert_eq!(lookup_option("-Wa,--noexecstack").map(|row| row.stage), Some(Codegen));
    assert_eq!(lookup_option("-Wextra").map(|row| row.stage), Some(Frontend));
    assert_eq!(lookup_option("-fuse-ld=lld").map(|row| row.stage), Some(Link));
    assert_eq!(lookup_option("-fno-sanitize=all").map(|row| row.stage), Some(Instrumentation));
    assert_eq!(lookup_option("-MD").map(|row| row.name), Some("-MD"));
    assert_eq!(lookup_option("-MF").map(|row| row.form), Some(JoinedOrSeparate));
    assert_eq!(lookup_option("-include-pch").map(|row| row.name), Some("-include-pch"));
    assert!(lookup_option("--frobnicate").is_none());
}

#[test]
fn input_kinds_follow_x_and_extensions() {
    let invocation = parse("a.c b.cpp c.ll d.o e.s -x c f.txt -x none g.bc h.a");
    let kinds: Vec<_> = invocation
        .inputs()
        .map(|input| (input.path.as_str(), input.kind.clone(), input.language.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("a.c", InputKind::Source, None),
            ("b.cpp", InputKind::Source, None),
            ("c.ll", InputKind::Ir, None),
            ("d.o", InputKind::Linker, None),
            ("e.s", InputKind::Other, None),
            ("f.txt", InputKind::Source, Some("c".to_owned())),
            ("g.bc", InputKind::Ir, None),
            ("h.a", InputKind::Linker, None),
        ]
    );
    let stdin = parse("-xc++ - -c -o x.o");
    let input = stdin.inputs().next().unwrap();
    assert_eq!((input.path.as_str(), input.kind.clone()), ("-", InputKind::Source));
    assert_eq!(stdin.pass_through, None);
}

#[test]
fn pass_through_cases() {
    assert!(parse("-E a.c").pass_through.is_some());
    assert!(parse("-M a.c").pass_through.is_some());
    assert!(parse("--version").pass_through.is_some());
    assert!(parse("-v").pass_through.is_some(), "no inputs");
    assert!(parse("a.o b.o -o prog").pass_through.is_some(), "no C input");
    assert!(parse("-c a.c b.c -o x.o").pass_through.is_some(), "-o with two outputs");
    assert!(parse("-print-resource-dir").pass_through.is_some());
    assert!(parse("- -c").pass_through.is_some(), "stdin needs -x");
    assert_eq!(parse("-MD -c a.c -o a.o").pass_through, None);
    assert_eq!(parse("a.c b.c -o prog").pass_through, None);
}

#[test]
fn actions_and_outputs() {
    let assemble = parse("-S -emit-llvm a.c");
    assert_eq!((assemble.action, assemble.emit_llvm), (Action::Assemble, true));
    assert_eq!(parse("-S -c a.c").action, Action::Assemble);
    assert_eq!(parse("-c -S a.c").action, Action::Assemble);
    assert_eq!(parse("-c a.c").action, Action::Compile);
    assert_eq!(parse("-oprog a.c").output.as_deref(), Some("prog"));
}

#[test]
fn vector_math_follows_the_calls_unless_libmvec_is_asked_for() {
    assert_eq!(parse("-O3 a.c").vector_math, VectorMath::Auto);
    // `-ffast-math` marks the calls `afn`: `auto` uses libmvec for them.
    assert_eq!(parse("-ffast-math a.c").vector_math, VectorMath::Auto);
    assert_eq!(parse("-fveclib=libmvec a.c").vector_math, VectorMath::Libmvec);
    assert_eq!(parse("-fveclib=libmvec -fveclib=none a.c").vector_math, VectorMath::Auto);
}

#[test]
fn slp_options_are_lanewise_s_own() {
    let invocation = parse("-O3 --slp lanewise --slp-algorithm=pair -c a.c");
    assert_eq!(
        invocation.slp,
        SlpChoice { slp: SlpArg::Lanewise, algorithm: SlpAlgorithmArg::Pair }
    );
    assert_eq!(stages_of(&invocation), [("-O3".to_owned(), Codegen)]);
    assert_eq!(parse("--slp=off -c a.c").slp.slp, SlpArg::Off);
    assert_eq!(parse("-c a.c").slp.slp, DEFAULT_SLP);
    let invalid = parse("--slp fast -c a.c");
    assert!(invalid.lanewise_option_error.unwrap().contains("`--slp` takes"));
    assert!(parse("-c a.c --slp").lanewise_option_error.is_some());
    let clang_words: Vec<OsString> = without_lanewise_options(
        &["--version", "--slp", "llvm", "--slp-algorithm=tree", "-v"].map(OsString::from),
    );
    assert_eq!(clang_words, ["--version", "-v"].map(OsString::from));
}

#[test]
fn remark_regexes() {
    assert!(remark_regex_matches_lanewise("lanewise"));
    assert!(remark_regex_matches_lanewise(".*"));
    assert!(remark_regex_matches_lanewise("loop-vectorize|lanewise"));
    assert!(remark_regex_matches_lanewise("^lanewise$"));
    assert!(!remark_regex_matches_lanewise("loop-vectorize"));
    assert!(!remark_regex_matches_lanewise("inline"));
    let invocation = parse("-Rpass-missed=.* -Rpass=inline a.c");
    assert!(invocation.remarks_missed);
    assert!(!invocation.remarks_passed);
}

#[test]
fn response_files_are_split_like_a_shell() {
    assert_eq!(
        split_response_file("-O2 \"-DNAME=a b\" 'c d'\n  x\\ y.c"),
        ["-O2", "-DNAME=a b", "c d", "x y.c"]
    );
    let directory = std::env::temp_dir().join(format!("lanewise-cc-rsp-{}", std::process::id()));
    fs::create_dir_all(&directory).unwrap();
    let file = directory.join("args.rsp");
    fs::write(&file, "-c -O3\nmain.c\n").unwrap();
    let expanded =
        expand_response_files(vec!["-g".to_owned(), format!("@{}", file.display())], 0).unwrap();
    assert_eq!(expanded, ["-g", "-c", "-O3", "main.c"]);
    assert!(expand_response_files(vec!["@/nonexistent/file.rsp".to_owned()], 0).is_err());
    fs::remove_dir_all(directory).unwrap();
}

#[test]
fn function_locations_come_from_debug_metadata() {
    let text = "define dso_local float @f(float noundef %0) #0 !dbg !12 {\n\
                define internal void @\"odd name\"() !dbg !20 {\n\
                !3 = !DIFile(filename: \"/nonexistent/k.c\", directory: \"/tmp\")\n\
                !12 = distinct !DISubprogram(name: \"f\", scope: !3, file: !3, line: 7, type: !13)\n\
                !20 = distinct !DISubprogram(name: \"odd name\", file: !3, line: 9)\n";
    let locations = FunctionLocations::parse(text);
    assert_eq!(locations.location_of("f").as_deref(), Some("/nonexistent/k.c:7:1"));
    assert_eq!(locations.location_of("odd name").as_deref(), Some("/nonexistent/k.c:9:1"));
    assert_eq!(locations.location_of("g"), None);
}

#[test]
fn remarks_use_clang_format() {
    let mut locations = FunctionLocations::default();
    locations.by_function.insert("f".to_owned(), ("k.c".to_owned(), 3, 7));
    let passed = Remark {
        kind: RemarkKind::Passed,
        function: "f".to_owned(),
        location: String::new(),
        message: "vectorized".to_owned(),
    };
    assert_eq!(format_remark(&passed, &locations), "k.c:3:7: remark: vectorized [-Rpass=lanewise]");
    let missed = Remark {
        kind: RemarkKind::Missed,
        function: "f".to_owned(),
        location: "loop at block %bb3".to_owned(),
        message: "left scalar".to_owned(),
    };
    assert_eq!(
        format_remark(&missed, &locations),
        "k.c:3:7: remark: left scalar (loop at block %bb3) [-Rpass-missed=lanewise]"
    );
    let located = Remark { location: "k.c:12:5".to_owned(), ..missed };
    assert_eq!(
        format_remark(&located, &FunctionLocations::default()),
        "k.c:12:5: remark: left scalar [-Rpass-missed=lanewise]"
    );
}

/// The scalar fallback of a module Lanewise failed on defines the SPMD
/// builtins it calls, so that it links (fuzz seed 800040, reduced: a
/// program calling `rv_any` whose module Lanewise failed on did not).
#[test]
fn the_scalar_fallback_defines_the_spmd_builtins_it_calls() {
    let dir = std::env::temp_dir().join(format!("lanewise-cc-fallback-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let scalar = dir.join("scalar.ll");
    fs::write(
        &scalar,
        "declare i1 @rv_any(i1)\n\
         define i1 @f(i1 %b) {\n  %r = call i1 @rv_any(i1 %b)\n  ret i1 %r\n}\n",
    )
    .unwrap();
    let out = dir.join("fallback.bc");
    assert_eq!(scalar_with_one_lane_builtins(&scalar, &out), out);
    let defined =
        lanewise_llvm::with_module(&out, |module| Ok(module.defined_function_names())).unwrap();
    assert!(defined.iter().any(|name| name == "rv_any"), "{defined:?}");
    // A module that calls none is compiled as it is.
    let plain = dir.join("plain.ll");
    fs::write(&plain, "define i32 @g(i32 %x) {\n  ret i32 %x\n}\n").unwrap();
    assert_eq!(scalar_with_one_lane_builtins(&plain, &dir.join("plain.bc")), plain);
    let _ = fs::remove_dir_all(&dir);
}

/// `LANEWISE_*` switches: unset and empty mean the first choice, a known
/// name its value, anything else the first choice with a warning that
/// lists the choices.
#[test]
fn environment_choices_default_to_the_first_and_warn_on_unknown_values() {
    let choices = [("auto", 0), ("off", 1), ("always", 2)];
    assert_eq!(parse_choice("LANEWISE_X", None, &choices), (0, None));
    assert_eq!(parse_choice("LANEWISE_X", Some(""), &choices), (0, None));
    assert_eq!(parse_choice("LANEWISE_X", Some("always"), &choices), (2, None));
    assert_eq!(
        parse_choice("LANEWISE_X", Some("sometimes"), &choices),
        (0, Some("LANEWISE_X=sometimes: expected auto, off or always; using auto".to_owned()))
    );
    assert_eq!(
        parse_choice("LANEWISE_Y", Some("yes"), &[("on", true), ("off", false)]),
        (true, Some("LANEWISE_Y=yes: expected on or off; using on".to_owned()))
    );
}
