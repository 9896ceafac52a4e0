//! The shared material (`tests/common/shared.rs`): without it a suite says once, on one line,
//! what it skips and where the material comes from; with `PTO_REQUIRE_SHARED=1` (CI) a missing
//! piece fails instead. Checked by running this test binary again on its `probe` test with the
//! environment changed.

mod common;

use std::process::Command;

/// Asks for both pieces twice, as a suite with several tests does.
#[test]
fn probe() {
    for _ in 0..2 {
        let _ = common::corpus_dir();
        let _ = common::shared::golden();
    }
}

/// Runs `probe` alone in a child process with `env` set; (exit success, stderr then stdout,
/// where the harness reports a failing test's panic).
fn probe_with(env: &[(&str, &str)]) -> (bool, String) {
    let exe = std::env::current_exe().expect("the test binary");
    let mut cmd = Command::new(exe);
    cmd.args(["probe", "--exact", "--test-threads", "1"]).env_remove(common::shared::REQUIRE_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("runs");
    (out.status.success(), String::from_utf8_lossy(&[out.stderr, out.stdout].concat()).into_owned())
}

#[test]
fn a_missing_piece_is_skipped_with_one_line_naming_its_origin() {
    let (ok, stderr) = probe_with(&[("PTO_SHARED", "/nonexistent/pto-shared")]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.starts_with("skipped: ")).collect();
    assert_eq!(lines.len(), 2, "one line per piece, however often asked:\n{stderr}");
    assert!(lines[0].contains("`shared_material` tests that read the PTOAS sample corpus"), "{}", lines[0]);
    assert!(lines[0].contains("/nonexistent/pto-shared/corpus/ptoas-samples not found"), "{}", lines[0]);
    assert!(lines[0].contains("hw-native-sys/PTOAS at commit a56b18c3"), "{}", lines[0]);
    assert!(lines[1].contains("hw-native-sys/pto-isa at commit 3186c381"), "{}", lines[1]);
    assert!(lines.iter().all(|l| l.contains("set PTO_SHARED=DIR")), "{stderr}");
}

#[test]
fn a_missing_piece_fails_when_required() {
    let (ok, stderr) = probe_with(&[("PTO_SHARED", "/nonexistent/pto-shared"), ("PTO_REQUIRE_SHARED", "1")]);
    assert!(!ok, "{stderr}");
    assert!(stderr.contains("PTO_REQUIRE_SHARED is set: the shared material is required here"), "{stderr}");
}

#[test]
fn a_relative_location_is_taken_from_the_workspace_root() {
    // `tests` holds no `corpus/` nor `golden/`: both are skipped, named under the root.
    let (ok, stderr) = probe_with(&[("PTO_SHARED", "tests")]);
    assert!(ok, "{stderr}");
    let want = common::root().join("tests/corpus/ptoas-samples");
    assert!(stderr.contains(&format!("({} not found)", want.display())), "{stderr}");
}
