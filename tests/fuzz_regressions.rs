//! Every input the fuzz targets found a bug with (`tests/fuzz/regressions/<target>/`, minimized by
//! `cargo fuzz tmin`), run through its target's property — the same code the fuzzer runs,
//! `tests/fuzz/src/lib.rs` — with the outcome it must end in: the diagnostic or result recorded
//! below, within the test's time, not a panic. docs/fuzzing.md says how to add one.

#[allow(dead_code)]
#[path = "fuzz/src/lib.rs"]
mod targets;

use std::path::{Path, PathBuf};

/// (file under `tests/fuzz/regressions/`, text its outcome contains). The directory names the
/// target: `read`, `verify_lower`, `run` or `data`.
const CASES: &[(&str, &str)] = &[
    // f64 values did not survive `pto run`'s JSON output: serde_json parsed `2.4986523983724523e262`
    // 1 ulp off (fixed by its `float_roundtrip` feature).
    ("data/f64-json-float-roundtrip", "npy: 1x1 f64"),
    // An `.npy` header with 36 nested `{` kept npyz's backtracking header parser busy for minutes;
    // headers nesting deeper than a plain array's are now refused before npyz reads them.
    ("data/npy-header-nested-braces", "npy: unsupported .npy header: brackets nest more than 2 deep"),
    // `fmt --generic` printed `function_type = (!t<(>) -> ()`, which did not parse again: the
    // splitter of function types counted the `(` inside the opaque type body `<(>`.
    ("read/generic-function-type-angle-paren", "parsed"),
    // `fmt --generic` printed `function_type = (!t<(.arg"(!t<(.arg"%s%src>) -> ()`, which did not
    // parse again: the splitter of function types counted the `<` inside the string literal of
    // the opaque body, which the lexer skips; both now take a string as opaque.
    ("read/generic-function-type-quoted-angle", "parsed"),
    // `%d = twait %s : A -> B` printed in the short form as `: B`, which the reader takes as the
    // operand's type for an op with no form binding results (`comm.twait`): the short form's
    // lone type is now printed only where the reader takes it as the result's.
    ("read/short-form-lone-type-of-an-op-without-result-forms", "parsed"),
    // `!p<->` was read as a type, but `->` inside `<...>` is an arrow once nested (`fmt --generic`
    // puts the type in `<{function_type = ...}>`), so the generic form did not parse again: the
    // lexer now never closes an angle bracket with the `>` of `->`.
    ("read/arrow-in-type-body", "parse: PARSE_UNEXPECTED_EOF: unclosed `<`"),
    // `9999E99..` for an `i64` constant printed as `0x7FF0...` and read back as another integer.
    ("read/float-literal-of-an-integer-constant", "parse: PARSE_BAD_LITERAL: a float literal is not valid for an integer type"),
    // An op before `.arg` made the file SSA form, but `pto fmt` prints `.arg` first and the printed
    // file was then read as PTO-AS short form (`tor`): printing was not idempotent. The first op
    // now decides the form wherever the directives stand.
    ("read/directive-after-first-op", "parsed"),
    // A file whose first op is `pto.comm.ttest` (SSA form) printed with `--generic` starts with
    // `"pto.comm.ttest"() : () -> ()`, and a generic tile op without results made the re-read
    // file DPS, so `pto.tstore_fp %src, ... : (...) -> ()` printed as `ins(...) outs(...)` the
    // second time: an op without results no longer decides the form.
    ("read/generic-zero-result-op-first", "parsed"),
    // A short-form file (`.arg` directives) printed with `--generic` starts with
    // `%dst = "pto.tlog"(%src) : ...`, and that generic op made the re-read file SSA, so the
    // next `tadd` printed in SSA spelling: a generic Level-1 op now leaves short form vs SSA to
    // the directives.
    ("read/generic-level1-op-in-short-form", "parsed"),
    // `#pto<round_mode[ CAST_RINT>` (CI smoke) was kept as an unknown attribute kind `round_mode[`
    // and printed without its space, which does not read again: the kind must be an identifier.
    (
        "read/opaque-attr-kind-not-identifier",
        "parse: PARSE_BAD_ATTRIBUTE: expected `#pto<kind value>` or `#pto<kind<value>>`, found `#pto<round_mode[ CAST_RINT>`",
    ),
    // A quoted attribute key holding `#pto<` (`module attributes {"pt#pto<sat..." = "a3"}`)
    // printed with `--generic` as MLIR properties `<{"pt#pto<..." = "a3"}>`, which did not read
    // again: the `<` inside the string opened a bracket. A string literal is opaque now.
    ("read/quoted-angle-in-property-key", "parsed"),
    // `%d, %d = tdeinterleave ...` was read as the group `%d:2` (and printed so): one name bound twice.
    ("read/duplicate-result-name", "parse: STRUCT_REDEFINED_VALUE: value `%d` is defined twice"),
    // `pto lower` named the buffer of result `%d#0` of a group `%d:2` `%d#0_buf`, which does not
    // parse (`#0` ends a value reference): bufferize now names it `%d_0_buf`.
    ("verify_lower/result-group-buffer-names", "a5: lowered"),
    // `!pto<1x64xf32sult (one value per column; row-major ...)>` (an unknown type in MLIR's opaque
    // dialect spelling) was kept as `!pto.1x64xf32sult (...)`, which does not read again: a body
    // that names no pto type now keeps its `!pto<...>` spelling.
    ("verify_lower/opaque-dialect-type-body", "a2a3: lowered, 0 vector listings; a5: lowered"),
    // The seed `examples/seeds/shift_right.as.pto`: its PTO-AS `.const ... : ui16` constants printed
    // as `arith.constant 43690 : ui16`, which the reader had started to refuse (MLIR wants signless
    // types), so the lowered text did not read again; unsigned constants read again, and a float
    // constant with an integer literal prints as `2.0`.
    ("verify_lower/pto-as-constants-print-as-mlir-reads", "a2a3: lowered"),
];

fn regressions() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/regressions")
}

fn outcome(case: &str) -> String {
    let bytes = std::fs::read(regressions().join(case)).unwrap_or_else(|e| panic!("{case}: {e}"));
    match case.split_once('/').map(|(target, _)| target) {
        Some("read") => targets::read(&bytes),
        Some("verify_lower") => targets::verify_lower(&bytes),
        Some("run") => targets::run(&bytes),
        Some("data") => targets::data(&bytes),
        _ => panic!("{case}: not under a target's directory"),
    }
}

#[test]
fn each_input_ends_as_recorded() {
    for (case, expected) in CASES {
        let got = outcome(case);
        assert!(got.contains(expected), "{case}: expected an outcome containing `{expected}`, got `{got}`");
    }
}

#[test]
fn every_input_is_recorded() {
    let mut files = Vec::new();
    for target in std::fs::read_dir(regressions()).expect("tests/fuzz/regressions").flatten() {
        for f in std::fs::read_dir(target.path()).into_iter().flatten().flatten() {
            files.push(format!("{}/{}", target.file_name().to_string_lossy(), f.file_name().to_string_lossy()));
        }
    }
    files.sort();
    let mut listed: Vec<String> = CASES.iter().map(|(c, _)| c.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every file under tests/fuzz/regressions is a case of CASES, and every case a file");
}
