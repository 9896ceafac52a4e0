//! The `SYNC_NOT_CHECKED` note of `pto run` for a program without sync ops (docs/sync.md, "Which
//! programs are checked"): once, at the entry function, for a kernel whose ops run on several
//! pipes; never for a one-pipe PTO-AS snippet, nor with `-q`.

use serde_json::Value;
use std::process::Command;

/// `pto run --json --error-format json --default-inputs FILE ARGS`: the `SYNC_NOT_CHECKED`
/// diagnostics (exit code 0 asserted).
fn notes(file: &str, args: &[&str]) -> Vec<Value> {
    let out = Command::new(env!("CARGO_BIN_EXE_pto"))
        .args(["--error-format", "json", "run", "--json", "--default-inputs"])
        .args(args)
        .arg(file)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    stderr.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).filter(|v| v["class"] == "SYNC_NOT_CHECKED").collect()
}

#[test]
fn a_kernel_on_several_pipes_gets_one_note_at_its_function() {
    let found = notes("examples/vadd.pto", &["--target", "a5"]);
    assert_eq!(found.len(), 1, "{found:?}");
    let n = &found[0];
    assert_eq!((n["severity"].as_str(), n["line"].as_u64(), n["col"].as_u64()), (Some("note"), Some(6), Some(3)), "{n}");
    assert_eq!(n["end_col"], 18, "the header `func.func @vadd`: {n}");
    assert!(n["message"].as_str().unwrap().contains("run on PIPE_MTE2, PIPE_V and PIPE_MTE3 with no sync op"), "{n}");
}

#[test]
fn quiet_leaves_the_note_out() {
    assert_eq!(notes("examples/vadd.pto", &["--target", "a5", "-q"]), Vec::<Value>::new());
}

#[test]
fn a_one_pipe_pto_as_snippet_gets_no_note() {
    for target in ["a2a3", "a5"] {
        assert_eq!(notes("examples/softmax.as.pto", &["--target", target]), Vec::<Value>::new(), "{target}");
    }
}

/// `pto verify --sync` on a program without sync ops says so once, at the entry function's
/// header (a PTO-AS file: its first op), never at 1:1.
#[test]
fn verify_sync_notes_point_at_the_program_not_the_top_of_the_file() {
    for (file, line, col) in [("examples/vadd.pto", 6, 3), ("examples/softmax.as.pto", 6, 1)] {
        let out = Command::new(env!("CARGO_BIN_EXE_pto"))
            .args(["--error-format", "json", "verify", "--sync", "--target", "a5", file])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        let notes: Vec<Value> = String::from_utf8_lossy(&out.stderr).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
        assert_eq!(notes.len(), 1, "{file}: {notes:?}");
        assert_eq!(
            (notes[0]["class"].as_str(), notes[0]["line"].as_u64(), notes[0]["col"].as_u64()),
            (Some("SYNC_NOT_CHECKED"), Some(line), Some(col)),
            "{file}"
        );
    }
}
