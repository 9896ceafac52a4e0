//! Malformed input of every kind gives a located diagnostic with a stable class and exit code 1;
//! the rendered messages (human and JSON) are pinned by snapshots. Each file under
//! `tests/diagnostics/` starts with a comment saying what is wrong with it.

mod common;

use pto::ErrorFormat;
use pto::cmd::verify::{VerifyOptions, run};
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir).expect("tests/diagnostics").flatten().map(|e| e.path()).collect();
    out.retain(|p| p.extension().is_some_and(|e| e == "pto"));
    out.sort();
    out
}

fn rel(path: &Path) -> String {
    format!("tests/diagnostics/{}", path.file_name().unwrap().to_string_lossy())
}

#[test]
fn every_malformed_file_is_rejected_with_a_located_diagnostic() {
    let files = files();
    assert!(files.len() >= 30, "{} cases", files.len());
    for path in files {
        let name = rel(&path);
        let out = run(&VerifyOptions {
            input: name.clone(),
            target: None,
            explain: false,
            error_format: ErrorFormat::Human,
            ..Default::default()
        });
        assert_eq!(out.code, 1, "{name}: exit code (stderr: {})", out.stderr);
        assert!(out.stdout.is_empty(), "{name}: no summary for a rejected file");
        assert!(out.stderr.contains("error["), "{name}: {}", out.stderr);
        assert!(out.stderr.contains(&format!("┌─ {name}:")), "{name}: location missing:\n{}", out.stderr);
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(format!("human__{stem}"), out.stderr);
        // The JSON form: one object per line, each with a class and a position.
        let json = run(&VerifyOptions {
            input: name.clone(),
            target: None,
            explain: false,
            error_format: ErrorFormat::Json,
            ..Default::default()
        });
        assert_eq!(json.code, 1);
        for line in json.stderr.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {line}"));
            let class = v["class"].as_str().unwrap_or("");
            assert!(["PARSE_", "STRUCT_", "LEGAL_", "ORDER_"].iter().any(|p| class.starts_with(p)), "{name}: class {class}");
            assert!(v["line"].as_u64().unwrap_or(0) >= 1 && v["col"].as_u64().unwrap_or(0) >= 1, "{name}: {line}");
            assert_eq!(v["file"], name.as_str());
        }
    }
}

#[test]
fn json_lines_are_pinned_for_some_cases() {
    for stem in ["dtype_mismatch", "unknown_op", "legacy_keys_out_of_order", "too_many_ins"] {
        let name = format!("tests/diagnostics/{stem}.pto");
        let out = run(&VerifyOptions { input: name, target: None, explain: false, error_format: ErrorFormat::Json, ..Default::default() });
        insta::assert_snapshot!(format!("json__{stem}"), out.stderr);
    }
}

#[test]
fn io_problems_exit_with_code_2() {
    let missing = run(&VerifyOptions {
        input: "tests/diagnostics/no-such-file.pto".into(),
        target: None,
        explain: false,
        error_format: ErrorFormat::Human,
        ..Default::default()
    });
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.starts_with("error: cannot read `tests/diagnostics/no-such-file.pto`"), "{}", missing.stderr);
    let dir = std::env::temp_dir().join(format!("pto-bad-utf8-{}.pto", std::process::id()));
    std::fs::write(&dir, b"func.func @k() {\n  \xff\xfe\n}\n").unwrap();
    let bad = run(&VerifyOptions {
        input: dir.display().to_string(),
        target: None,
        explain: false,
        error_format: ErrorFormat::Human,
        ..Default::default()
    });
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("is not UTF-8 text (invalid byte at offset 19)"), "{}", bad.stderr);
    let _ = std::fs::remove_file(dir);
}

#[test]
fn an_empty_file_is_an_empty_valid_module() {
    let dir = std::env::temp_dir().join(format!("pto-empty-{}.pto", std::process::id()));
    std::fs::write(&dir, "").unwrap();
    let out = run(&VerifyOptions {
        input: dir.display().to_string(),
        target: None,
        explain: false,
        error_format: ErrorFormat::Human,
        ..Default::default()
    });
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains(": ok (Level2, 0 ops)"), "{}", out.stdout);
    let _ = std::fs::remove_file(dir);
}

/// A diagnostic that another layout would fix says which (`help: with `blayout=col_major` ...`),
/// and only then: each file of `tests/diagnostics/layout_help/` names its target (`// target:`,
/// none for a structural rule) and the hint it expects (`// expect: help: ...`) or that there is
/// none (`// expect: no help`); the rendered diagnostics are pinned by snapshots.
#[test]
fn a_layout_that_would_fix_the_rule_is_named() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/diagnostics/layout_help");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).expect("layout_help/").flatten().map(|e| e.path()).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "pto"));
    files.sort();
    assert!(files.len() >= 7, "{} cases", files.len());
    let (mut with_help, mut without) = (0, 0);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let target = text.lines().find_map(|l| l.strip_prefix("// target: ")).map(|t| pto::TargetName::parse(t.trim()).expect("a target"));
        let expect = text.lines().find_map(|l| l.strip_prefix("// expect: ")).expect("an expect line");
        let name = format!("tests/diagnostics/layout_help/{}", path.file_name().unwrap().to_string_lossy());
        let out =
            run(&VerifyOptions { input: name.clone(), target, explain: false, error_format: ErrorFormat::Human, ..Default::default() });
        assert_eq!(out.code, 1, "{name}: {}", out.stderr);
        let helps: Vec<&str> = out.stderr.lines().filter(|l| l.contains("= help:")).collect();
        if expect == "no help" {
            assert!(helps.is_empty(), "{name}: unexpected hint {helps:?}");
            without += 1;
        } else {
            assert_eq!(helps.len(), 1, "{name}: {}", out.stderr);
            assert!(helps[0].contains(expect), "{name}: expected `{expect}`, got {}", helps[0]);
            with_help += 1;
        }
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(format!("layout_help__{stem}"), out.stderr);
        // JSON keeps the hint among the notes.
        let json =
            run(&VerifyOptions { input: name.clone(), target, explain: false, error_format: ErrorFormat::Json, ..Default::default() });
        assert_eq!(json.stderr.contains("help: with"), expect != "no help", "{name}: {}", json.stderr);
    }
    assert!(with_help >= 5 && without >= 2, "{with_help} with a hint, {without} without");
}

/// The exit-code table of docs/cli.md, a case of each kind through the binary (the JSON form of
/// the unlocated errors is checked in `tests/data_io.rs`).
#[test]
fn exit_codes_follow_the_table_in_the_cli_reference() {
    let pto = env!("CARGO_BIN_EXE_pto");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let at = |p: &str| root.join(p).display().to_string();
    let (vadd, garbage, mismatch, overlap) = (
        at("examples/vadd.pto"),
        at("tests/diagnostics/garbage.pto"),
        at("tests/diagnostics/dtype_mismatch.pto"),
        at("tests/faults/overlapping_live_tiles.pto"),
    );
    let dir = std::env::temp_dir().join(format!("pto-exit-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.json");
    std::fs::write(&big, r#"{"dtype": "f32", "shape": [1, 2], "data": [1.0, 1e300]}"#).unwrap();
    let bind_big = format!("a={}", big.display());
    let cases: [(&str, &[&str], i32, &str); 12] = [
        ("success", &["verify", &vadd, "--target", "a2a3"], 0, ""),
        ("parse error", &["run", &garbage], 1, "PARSE_UNKNOWN_OP"),
        ("illegal program (verifier)", &["verify", &mismatch], 1, "STRUCT_DTYPE_MISMATCH"),
        ("illegal program (memory plan)", &["lower", &overlap, "--target", "a2a3"], 1, "LEGAL_OVERLAPPING_TILES"),
        ("bad data value (out of range for f32)", &["run", &vadd, "--target", "a5", "-i", &bind_big], 1, "does not fit f32"),
        ("step budget spent", &["run", &vadd, "--target", "a5", "--default-inputs", "--max-steps", "5"], 1, "SIM_BUDGET"),
        ("unknown flag", &["run", &vadd, "--no-such-flag"], 2, "unexpected argument '--no-such-flag'"),
        ("unknown command", &["frobnicate"], 2, "unrecognized subcommand"),
        ("missing program file", &["run", "no/such/kernel.pto"], 2, "cannot read `no/such/kernel.pto`"),
        ("missing data file", &["run", &vadd, "--target", "a5", "-i", "a=no/such/a.npy"], 2, "cannot read `no/such/a.npy`"),
        ("unknown --output name", &["run", &vadd, "--target", "a5", "--default-inputs", "-o", "nosuch"], 2, "no value named `%nosuch`"),
        ("option the target lacks", &["run", &vadd, "--target", "a5", "--exec", "vector"], 2, "model the A2A3 vector unit"),
    ];
    for (what, args, code, says) in cases {
        let out = std::process::Command::new(pto).args(args).output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{what}: {args:?}: {stderr}");
        assert!(stderr.contains(says), "{what}: stderr should say `{says}`: {stderr}");
    }
    // The table is in the reference.
    let cli = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    for row in ["| 0 | success", "| 1 | the program or its data is invalid", "| 2 | usage or I/O error"] {
        assert!(cli.contains(row), "docs/cli.md lacks `{row}`");
    }
}

/// `pto verify --target a2a3 --error-format json FILE`: the diagnostics as JSON values.
fn verify_json(file: &str) -> Vec<serde_json::Value> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["--error-format", "json", "verify", "--target", "a2a3", file])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    String::from_utf8_lossy(&out.stderr).lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect()
}

/// One cause, one diagnostic, its caret under the operand at fault (not the whole op).
#[test]
fn an_i8_add_on_a2a3_is_one_diagnostic_at_its_first_operand() {
    let found = verify_json("tests/diagnostics/first_hour/i8_tadd_a2a3.pto");
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d["class"], "LEGAL_UNSUPPORTED_TUPLE");
    assert_eq!((d["line"].as_u64(), d["col"].as_u64(), d["end_col"].as_u64()), (Some(5), Some(11), Some(13)), "`%a`: {d}");
    assert!(d["message"].as_str().unwrap().starts_with("`pto.tadd` ins[0] (src0), ins[1] (src1), results[0] (dst): tuple (i8,"), "{d}");
}

/// `tadds` (a scalar operand) written with two tiles: the caret at `%b`, and a "did you mean"
/// naming `tadd`, whose operands these are.
#[test]
fn a_near_op_whose_operands_fit_is_suggested() {
    let found = verify_json("tests/diagnostics/first_hour/tadds_for_tadd.pto");
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d["class"], "STRUCT_TYPE_CLASS");
    assert_eq!((d["line"].as_u64(), d["col"].as_u64()), (Some(4), Some(16)), "`%b`: {d}");
    let notes: Vec<&str> = d["notes"].as_array().unwrap().iter().filter_map(|n| n.as_str()).collect();
    assert!(notes.contains(&"did you mean `pto.tadd`? its operands fit these"), "{notes:?}");
}

/// Issue 38: on a terminal (here `COLUMNS=120`), deleting one `wait_event` from the
/// Matmul_transpose sample gives its three errors in at most 20 lines, none wider than 120
/// columns: the first in full with its source lines cut to a window, the others as their
/// location line and notes, messages and notes wrapped. Piped (no `COLUMNS`), every diagnostic
/// is in full, one line per message.
#[test]
fn a_deleted_wait_reads_on_a_terminal() {
    let Some(corpus) = common::corpus_dir() else {
        eprintln!("skipped: no ../shared corpus: the terminal layout of Matmul_transpose's errors was not checked");
        return;
    };
    let text = std::fs::read_to_string(corpus.join("Matmul_transpose/Matmul_transpose-pto-ir.pto")).unwrap();
    let wait = text.lines().position(|l| l.contains("pto.wait_event[#pto.sync_op_type<TLOAD>")).expect("a TLOAD wait");
    let cut: Vec<&str> = text.lines().enumerate().filter(|&(i, _)| i != wait).map(|(_, l)| l).collect();
    let dir = std::env::temp_dir().join(format!("pto-diag-terminal-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mt.pto"), cut.join("\n") + "\n").unwrap();
    let run = |columns: Option<&str>| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_pto"));
        c.current_dir(&dir).args(["run", "--target", "a2a3", "--default-inputs", "mt.pto"]).env_remove("COLUMNS");
        if let Some(n) = columns {
            c.env("COLUMNS", n);
        }
        let out = c.output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run(Some("120"));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.matches("error[").count(), 3, "{err}");
    assert!(err.lines().count() <= 20, "{} lines:\n{err}", err.lines().count());
    assert!(err.lines().all(|l| l.chars().count() <= 120), "{err}");
    assert!(err.starts_with("error[HAZARD_RAW]"), "{err}");
    assert!(err.contains("mt.pto:"), "paths relative to the working directory: {err}");
    let (code, piped) = run(None);
    assert_eq!(code, Some(1));
    assert!(piped.matches(" │ ").count() > err.matches(" │ ").count(), "piped output keeps every snippet:\n{piped}");
    assert!(piped.lines().any(|l| l.starts_with("error[HAZARD_RAW]") && l.ends_with("with no sync between them")), "{piped}");
}
