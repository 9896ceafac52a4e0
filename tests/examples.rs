//! The commands the examples suggest in their leading comments (`// Try: pto ...` and the
//! lines after it) run as written and succeed: a new user's first commands must not fail on a
//! file that does not exist.

mod common;

use std::process::Command;

/// The `pto ...` commands of `text`'s leading comment block.
fn suggested(text: &str) -> Vec<String> {
    text.lines()
        .map_while(|l| l.strip_prefix("//"))
        .map(|l| l.trim().trim_start_matches("Try:").trim())
        .filter(|l| l.starts_with("pto "))
        .map(String::from)
        .collect()
}

#[test]
fn every_suggested_command_succeeds() {
    let dir = common::kernel::scratch_dir("examples", "try");
    // The commands name `examples/...`: run them where that resolves, writing into a scratch dir.
    let link = dir.join("examples");
    let want = common::root().join("examples");
    // A link left by another checkout (a CI run's fresh clone, since deleted) points elsewhere or
    // nowhere: `exists()` follows it, so replace it whatever it is.
    if std::fs::read_link(&link).ok().as_deref() != Some(want.as_path()) {
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&want, &link).unwrap();
    }
    let mut ran = 0;
    let examples = common::root().join("examples");
    // The top-level examples (the seeds under it bind files of the user's).
    for f in common::pto_files(std::slice::from_ref(&examples)).into_iter().filter(|f| f.parent() == Some(examples.as_path())) {
        for cmd in suggested(&std::fs::read_to_string(&f).unwrap()) {
            let args: Vec<&str> = cmd.split_whitespace().skip(1).collect();
            let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(&args).current_dir(&dir).output().unwrap();
            assert_eq!(out.status.code(), Some(0), "{}: `{cmd}`: {}", f.display(), String::from_utf8_lossy(&out.stderr));
            ran += 1;
        }
    }
    assert!(ran >= 5, "{ran} commands");
}
