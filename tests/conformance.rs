//! File-driven conformance suite: every `tests/conformance/<suite>/*.pto` carries its own
//! expectations.
//!
//! Directives (comment lines anywhere in the file):
//! * `// check: verify` — parse + structural verify (the default);
//! * `// check: fmt` / `// check: fmt --to as` / `// check: fmt --to ssa` — print the module
//!   (canonically, or converted) and pin the text with an insta snapshot; the output must
//!   re-parse to a structurally equal module (after conversion: must print back to the same
//!   text when converted again).
//! * `// check: lower --target a2a3|a5 [--stop-after PASS] [--print-after-all]` — run the
//!   lowering pipeline; the printed result (with `--print-after-all`, the IR after every pass)
//!   is pinned by a snapshot, and the final module must re-parse and re-verify. Diagnostics of the
//!   pipeline are matched like any other: expectations may be tagged with the target,
//!   `// error[a2a3]: LEGAL_TMP_TOO_SMALL`, to apply to that target's `lower` check only.
//!
//! Expected diagnostics are written next to the line they belong to, as a trailing comment:
//! `pto.tadd ins(...) outs(...)  // error: STRUCT_DTYPE_MISMATCH` (or `// warning: CLASS`).
//! The set of (line, severity, class) found must equal the set written, exactly: a missing and
//! an unexpected diagnostic both fail.

use pto_asm::print::{PrintOptions, print_module};
use pto_ir::TextForm;
use pto_ir::diag::{Diagnostic, Severity, SourceMap};
use pto_ir::equiv::structurally_equal;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance");
    let mut out = Vec::new();
    let Ok(suites) = std::fs::read_dir(&root) else { return out };
    for suite in suites.flatten() {
        if suite.path().is_dir() {
            for f in std::fs::read_dir(suite.path()).into_iter().flatten().flatten() {
                if f.path().extension().is_some_and(|e| e == "pto") {
                    out.push(f.path());
                }
            }
        }
    }
    out.sort();
    out
}

/// `(line, severity, class)` expectations from trailing `// error: X` / `// warning: X`
/// comments; with `target`, the `// error[target]: X` ones instead.
fn expectations(text: &str, target: Option<&str>) -> BTreeSet<(usize, String, String)> {
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        for sev in ["error", "warning", "note"] {
            let tag = match target {
                None => format!("// {sev}: "),
                Some(t) => format!("// {sev}[{t}]: "),
            };
            if let Some(pos) = line.find(&tag) {
                let class = line[pos + tag.len()..].split_whitespace().next().unwrap_or("").to_string();
                out.insert((i + 1, sev.to_string(), class));
            }
        }
    }
    out
}

fn found(sources: &SourceMap, diags: &[Diagnostic]) -> BTreeSet<(usize, String, String)> {
    diags
        .iter()
        .map(|d| {
            let (line, _) = sources.get(d.span.file).map(|f| f.line_col(d.span.start)).unwrap_or((0, 0));
            let sev = match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            };
            (line, sev.to_string(), d.class.as_str().to_string())
        })
        .collect()
}

fn checks(text: &str) -> Vec<String> {
    let list: Vec<String> = text.lines().filter_map(|l| l.trim().strip_prefix("// check: ").map(|c| c.trim().to_string())).collect();
    if list.is_empty() { vec!["verify".to_string()] } else { list }
}

#[test]
fn conformance_files() {
    let files = files();
    assert!(files.len() >= 10, "expected the conformance suites, found {} files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable");
        let rel = path.strip_prefix(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conformance")).unwrap().display().to_string();
        assert!(text.starts_with("// "), "{rel}: must start with a comment saying what it checks");
        let mut sources = SourceMap::default();
        let fid = sources.add(rel.clone(), text.clone());
        let mut diags = Vec::new();
        let module = match pto_asm::parse(&text, fid) {
            Ok((m, warnings)) => {
                diags.extend(warnings.0);
                diags.extend(pto_ir::verify::verify(&m).0);
                Some(m)
            }
            Err(d) => {
                diags.extend(d.0);
                None
            }
        };
        let want = expectations(&text, None);
        let got = found(&sources, &diags);
        assert_eq!(
            got,
            want,
            "{rel}: diagnostics (line, severity, class) differ; messages: {:#?}",
            diags.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
        for check in checks(&text) {
            if let Some(args) = check.strip_prefix("lower ") {
                run_lower_check(&rel, &text, &sources, module.as_ref(), args, &check);
                continue;
            }
            let form = match check.as_str() {
                "verify" => continue,
                "fmt" => None,
                "fmt --to as" => Some(TextForm::Short),
                "fmt --to ssa" => Some(TextForm::Ssa),
                other => panic!("{rel}: unknown check `{other}`"),
            };
            let module = module.as_ref().unwrap_or_else(|| panic!("{rel}: `{check}` needs a file that parses"));
            let printed = print_module(module, &PrintOptions { form, ..Default::default() }).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let (again, _) =
                pto_asm::parse(&printed, fid).unwrap_or_else(|d| panic!("{rel}: output does not re-parse: {:?}\n{printed}", d.0));
            if form.is_none() {
                structurally_equal(module, &again).unwrap_or_else(|e| panic!("{rel}: round trip changed the IR: {e}"));
            }
            let reprinted = print_module(&again, &PrintOptions { form, ..Default::default() }).expect("prints");
            assert_eq!(printed, reprinted, "{rel}: `{check}` output is not stable");
            let name = format!("{}__{}", rel.replace(['/', '.'], "_"), check.replace([' ', '-'], "_"));
            insta::assert_snapshot!(name, printed);
        }
    }
}

/// `lower --target T [--stop-after P]`: run the pipeline, match `// error[T]:` expectations,
/// snapshot the output.
fn run_lower_check(rel: &str, text: &str, sources: &SourceMap, module: Option<&pto_ir::Module>, args: &str, check: &str) {
    let words: Vec<&str> = args.split_whitespace().collect();
    let arg = |flag: &str| words.iter().position(|w| *w == flag).and_then(|i| words.get(i + 1)).copied();
    let target_name = arg("--target").unwrap_or_else(|| panic!("{rel}: `{check}` needs --target"));
    let target = match target_name {
        "a2a3" => pto_lower::Target::get(pto_lower::TargetId::A2A3),
        "a5" => pto_lower::Target::get(pto_lower::TargetId::A5),
        other => panic!("{rel}: unknown target {other}"),
    };
    let stop_after = arg("--stop-after");
    if let Some(p) = stop_after {
        assert!(pto_lower::PASSES.iter().any(|(n, _)| *n == p), "{rel}: unknown pass {p}");
    }
    let module = module.unwrap_or_else(|| panic!("{rel}: `{check}` needs a file that parses")).clone();
    let verified = pto_ir::Verified::new(module).unwrap_or_else(|d| panic!("{rel}: does not verify: {:?}", d.0));
    // `--print-after-all`: the snapshot holds the IR after every pass, in pipeline order.
    let print_all = words.contains(&"--print-after-all");
    let mut trace = String::new();
    let mut record = |pass: &str, m: &pto_ir::Module| {
        let text = print_module(m, &PrintOptions::default()).unwrap_or_else(|e| format!("<print error: {e}>"));
        trace.push_str(&format!("// ----- after {pass} -----\n{text}"));
    };
    let after_pass: Option<pto_lower::PassObserver> = if print_all { Some(&mut record) } else { None };
    let result = pto_lower::run(verified, target, pto_lower::PipelineOptions { stop_after, after_pass, insert_sync: false });
    let want = expectations(text, Some(target_name));
    let (diags, lowered) = match result {
        Ok((m, w)) => (w.0, Some(m)),
        Err(d) => (d.0, None),
    };
    let got: BTreeSet<_> =
        found(sources, &diags).into_iter().filter(|(_, sev, _)| sev == "error" || want.iter().any(|w| &w.1 == sev)).collect();
    assert_eq!(got, want, "{rel}: `{check}` diagnostics differ; messages: {:#?}", diags.iter().map(|d| &d.message).collect::<Vec<_>>());
    let Some(lowered) = lowered else { return };
    let printed = print_module(&lowered, &PrintOptions::default()).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let (again, _) = pto_asm::parse(&printed, pto_ir::FileId(0))
        .unwrap_or_else(|d| panic!("{rel}: lowered output does not re-parse: {:?}\n{printed}", d.0));
    let re = pto_ir::verify::verify(&again);
    assert!(!re.has_errors(), "{rel}: lowered output does not re-verify: {:?}\n{printed}", re.0);
    let name = format!("{}__{}", rel.replace(['/', '.'], "_"), check.replace([' ', '-'], "_"));
    insta::assert_snapshot!(name, if print_all { trace } else { printed });
}
