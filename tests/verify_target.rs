//! `pto verify --target T` checks that the tiles fit the target's buffers, as `lower` and `run`
//! do: three 256 KiB tiles live at once overflow A5's 256 KiB UB (on A2A3, whose UB holds 192 KiB,
//! each tile alone does); without a target there is nothing to check them against.

use std::process::Command;

fn verify(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).arg("verify").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn tiles_that_do_not_fit_fail_verify_with_a_target() {
    for (target, headline) in [
        ("a5", "error[LEGAL_BUFFER_OVERFLOW]: the tiles live here need 786432 bytes of UB, which holds 262144 bytes on a5"),
        ("a2a3", "error[LEGAL_BUFFER_OVERFLOW]: `%a` is a 256x256xf32 tile of 262144 bytes; the UB buffer of a2a3 holds 196608 bytes"),
    ] {
        let (code, stdout, stderr) = verify(&["--target", target, "tests/verify/three_256k_tiles.pto"]);
        assert_eq!(code, 1, "{target}: {stdout}{stderr}");
        assert!(stderr.starts_with(headline), "{target}: {stderr}");
        assert!(stderr.contains("three_256k_tiles.pto:2:6"), "located at the first tile: {stderr}");
    }
    let (code, stdout, _) = verify(&["tests/verify/three_256k_tiles.pto"]);
    assert_eq!((code, stdout.contains(": ok (Level1")), (0, true));
    let (code, stdout, stderr) = verify(&["--target", "a5", "examples/vadd.pto"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("ok (Level2"), "{stdout}");
}
