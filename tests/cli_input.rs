//! What `pto run` does with no program: no file and stdin a terminal is a usage error (not a
//! silent wait), and an empty (or comment-only) file is an error (not `{}` and exit 0).

use std::io::Write;
use std::process::{Command, Stdio};

fn pto() -> Command {
    Command::new(env!("CARGO_BIN_EXE_pto"))
}

#[test]
fn an_empty_or_comment_only_program_is_an_error() {
    for text in ["", "// only a comment\n"] {
        let mut child =
            pto().args(["run", "--target", "a5"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{text:?}: {stderr}");
        assert_eq!(stderr, "error: `<stdin>` holds no program: nothing to run\n");
        assert!(out.stdout.is_empty());
    }
}

/// Stdin a terminal: `script` (util-linux) gives the command a pseudo-terminal.
#[test]
fn no_file_with_stdin_a_terminal_is_a_usage_error() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("skipped: `script` (util-linux) is not installed, so no terminal can be given to `pto run`");
        return;
    }
    let cmd = format!("{} run --target a5", env!("CARGO_BIN_EXE_pto"));
    let out = Command::new("script").args(["-qec", &cmd, "/dev/null"]).stdin(Stdio::null()).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("error: no input file: give a FILE, or pipe the program in (`-` reads stdin)"), "{text}");
}
