//! `pto compile` against the PTOAS lit tests of `$PTO_SHARED/corpus/ptoas-basic` (`../shared`
//! when `PTO_SHARED` is not set): every `// RUN:`
//! line that `ptoas` itself passes (FILECHECK.tsv) is run with `ptoas` replaced by
//! `pto compile` and checked by LLVM's FileCheck, as lit would. The runs that cannot pass are
//! listed in [`EXPECTED_FAILURES`] with the reason (docs/compile.md repeats the list); the test
//! fails when one of them starts passing too, so the list stays exact.
//!
//! Negative runs (`not ptoas ...`) must in any case be rejected with a diagnostic located in
//! the input file (`file:line:col`), whatever the wording.
//!
//! Skips loudly when FileCheck (`llvm-19-tools`) or the corpus is missing.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// (file, check prefix or "" for the default, why it cannot pass).
const EXPECTED_FAILURES: &[(&str, &str, &str)] = &[
    // ptoas's stderr debug dumps (the IR after PlanMemory / ViewToMemref).
    ("compact_left_blayout_parser_a3.pto", "", "checks ptoas's stderr IR dump"),
    ("plan_memory_for_iter_args_yield.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_fragmentation_two_holes.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_if_yield.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_loop_no_reuse_outer_live.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_no_reuse_overlap.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_peak_exact_capacity.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("plan_memory_reserve_buffer_prefix.pto", "", "checks ptoas's stderr PlanMemory dump"),
    ("tile_compact_mode_emitc.pto", "A3", "checks ptoas's stderr memref dump"),
    ("tsort32_emitc.pto", "A3", "checks ptoas's stderr memref dump"),
    // pto's memory plan checks the FB capacity (4 KiB on A5); ptoas does not plan scaling tiles.
    ("tgemv_mx_emitc.pto", "", "the scaling tiles need 4352 bytes of FB, which holds 4096"),
    // Synchronisation inserted by ptoas: its exact event ids and its auto-sync tail.
    (
        "issue428_cube_sync_regression.pto",
        "",
        "ptoas's exact EVENT_IDn numbering (EVENT_ID2/3 before EVENT_ID0/1) and ptoas_auto_sync_tail",
    ),
    (
        "issue454_nested_loop_same_pipe_pair_regression.pto",
        "",
        "ptoas's M -> MTE1 pair in the inner loop, which pto proves redundant (ordered through M -> FIX -> MTE1), size_t loops and ptoas_auto_sync_tail",
    ),
];

/// One `// RUN:` line.
#[derive(Debug)]
struct Run {
    negated: bool,
    /// Arguments after `ptoas` with `%s` replaced.
    args: Vec<String>,
    /// What FileCheck reads: stdout, stderr, or both (`2>&1`).
    stream: Stream,
    /// `Some(prefix)` when piped into FileCheck ("" for the default prefix).
    check: Option<String>,
}

#[derive(Debug, PartialEq)]
enum Stream {
    Stdout,
    Stderr,
    Both,
}

fn parse_run(line: &str, file: &Path) -> Run {
    let (cmd, check) = match line.split_once('|') {
        Some((c, fc)) => {
            let prefix = fc.split_whitespace().find_map(|w| w.strip_prefix("--check-prefix=")).unwrap_or("");
            (c, Some(prefix.to_string()))
        }
        None => (line, None),
    };
    let mut words: Vec<&str> = cmd.split_whitespace().collect();
    let negated = words.first() == Some(&"not");
    if negated {
        words.remove(0);
    }
    assert_eq!(words.first(), Some(&"ptoas"), "RUN line `{line}`");
    let stream = if cmd.contains("2>&1 1>/dev/null") {
        Stream::Stderr
    } else if cmd.contains("2>&1") {
        Stream::Both
    } else {
        Stream::Stdout
    };
    let args = words[1..]
        .iter()
        .filter(|w| !matches!(**w, "2>&1" | "1>/dev/null"))
        .map(|w| if *w == "%s" { file.display().to_string() } else { w.to_string() })
        .collect();
    Run { negated, args, stream, check }
}

fn filecheck() -> Option<PathBuf> {
    let fixed = PathBuf::from("/usr/lib/llvm-19/bin/FileCheck");
    if fixed.exists() {
        return Some(fixed);
    }
    let on_path = Command::new("FileCheck").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().ok()?;
    on_path.success().then(|| PathBuf::from("FileCheck"))
}

struct Outcome {
    passed: bool,
    /// Negative run rejected with a located diagnostic.
    rejected_located: bool,
    detail: String,
}

fn execute(fc: &Path, file: &Path, run: &Run) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).arg("compile").args(&run.args).output().expect("runs pto");
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let code = out.status.code().unwrap_or(-1);
    let name = file.file_name().unwrap().to_string_lossy().to_string();
    let rejected_located = code != 0 && stderr.contains(&format!("{name}:"));
    let status_ok = if run.negated { code != 0 } else { code == 0 };
    let input = match run.stream {
        Stream::Stdout => stdout.to_string(),
        Stream::Stderr => stderr.to_string(),
        Stream::Both => format!("{stderr}{stdout}"),
    };
    let mut detail = format!("exit {code}\n--- stderr ---\n{stderr}");
    let checked = match &run.check {
        None => true,
        Some(prefix) => {
            let mut cmd = Command::new(fc);
            cmd.arg(file);
            if !prefix.is_empty() {
                cmd.arg(format!("--check-prefix={prefix}"));
            }
            let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("runs FileCheck");
            use std::io::Write;
            let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
            let res = child.wait_with_output().expect("FileCheck finishes");
            detail.push_str(&format!("--- FileCheck ---\n{}", String::from_utf8_lossy(&res.stderr)));
            res.status.success()
        }
    };
    Outcome { passed: status_ok && checked, rejected_located, detail }
}

#[test]
fn ptoas_lit_runs_pass_with_pto_compile() {
    let Some(corpus) = common::shared::basic() else { return };
    let table = std::fs::read_to_string(corpus.join("FILECHECK.tsv")).expect("FILECHECK.tsv is readable");
    let Some(fc) = filecheck() else {
        eprintln!("SKIPPED: LLVM FileCheck not found (apt-get install llvm-19-tools) — pto compile's FileCheck runs were NOT checked");
        return;
    };
    let (mut passed, mut total, mut wrong) = (0, 0, Vec::new());
    let (mut negatives, mut located, mut negative_checked) = (0, 0, Vec::new());
    for row in table.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [file, run, ptoas_passes] = cols[..] else { continue };
        if ptoas_passes != "yes" {
            continue;
        }
        total += 1;
        let path = corpus.join(file);
        let run = parse_run(run, &path);
        let prefix = run.check.clone().unwrap_or_default();
        let expected_fail = EXPECTED_FAILURES.iter().find(|(f, p, _)| *f == file && *p == prefix);
        let got = execute(&fc, &path, &run);
        if run.negated {
            negatives += 1;
            located += usize::from(got.rejected_located);
            if got.passed {
                negative_checked.push(file);
            }
            if !got.rejected_located {
                wrong.push(format!("{file}: a negative run that pto compile does not reject with a located diagnostic\n{}", got.detail));
            }
        }
        passed += usize::from(got.passed);
        match (got.passed, expected_fail) {
            (true, Some((_, _, why))) => wrong.push(format!("{file} [{prefix}] passes now: remove it from EXPECTED_FAILURES ({why})")),
            (false, None) => wrong.push(format!("{file} [{prefix}] fails\n{}", got.detail)),
            _ => {}
        }
    }
    eprintln!(
        "pto compile: {passed} of {total} ptoas-passing RUN lines pass FileCheck; {located} of {negatives} negative runs rejected with a located diagnostic ({} with ptoas's wording: {})",
        negative_checked.len(),
        negative_checked.join(", ")
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
    // The count docs/compile.md quotes: a change is a reason to update the docs.
    assert_eq!(passed, 40, "the FileCheck pass count changed: update docs/compile.md");
}

/// (sample, target) pairs of `../shared/corpus/ptoas-samples` that `ptoas` compiles and
/// `pto compile` does not, with why.
const SAMPLE_FAILURES: &[(&str, &str, &str)] =
    &[("TPushTPop/test5/kernel.pto", "a5", "LEGAL_OVERLAPPING_TILES: its Level-3 addresses overlap two live L1 tiles")];

/// Every (sample, target) of the PTOAS samples that `ptoas` compiles (VERDICTS.tsv `OK`)
/// compiles with `pto compile` (files with `alloc_tile addr` at `--pto-level=level3`, as ptoas
/// was run), except [`SAMPLE_FAILURES`]; whatever fails does so with a located diagnostic.
#[test]
fn ptoas_samples_compile() {
    let Some(corpus) = common::corpus_dir() else { return };
    let table = std::fs::read_to_string(corpus.join("VERDICTS.tsv")).expect("VERDICTS.tsv is readable");
    let (mut compiled, mut total, mut wrong) = (0, 0, Vec::new());
    for row in table.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let [file, a3, a5, ..] = cols[..] else { continue };
        let path = corpus.join(file);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        for (target, verdict) in [("a3", a3), ("a5", a5)] {
            if verdict != "OK" {
                continue;
            }
            total += 1;
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_pto"));
            cmd.arg("compile").arg(&path).arg(format!("--pto-arch={target}"));
            if text.contains("alloc_tile addr") {
                cmd.arg("--pto-level=level3");
            }
            let out = cmd.output().expect("runs pto");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let ok = out.status.code() == Some(0);
            let listed = SAMPLE_FAILURES.iter().any(|(f, t, _)| *f == file && *t == target);
            compiled += usize::from(ok);
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            match (ok, listed) {
                (true, true) => wrong.push(format!("{file} {target} compiles now: remove it from SAMPLE_FAILURES")),
                (false, false) => wrong.push(format!("{file} {target}:\n{stderr}")),
                (false, true) if out.status.code() != Some(1) || !stderr.contains(&format!("{name}:")) => {
                    wrong.push(format!("{file} {target}: not a located error\n{stderr}"))
                }
                _ => {}
            }
        }
    }
    eprintln!("pto compile: {compiled} of {total} (sample, target) pairs ptoas compiles");
    assert!(wrong.is_empty(), "{}", wrong.join("\n\n"));
}
