//! The cross-core, cross-block and cross-rank hazard suite (`tests/hb`, README there): every
//! kernel gets its expected verdict from `pto run --sync-check=always` under four schedules
//! and two thread counts, from `pto run` with the default `--sync-check=auto`, and from
//! `pto verify --sync`; a correct kernel's outputs are the same under every schedule. (The
//! Python suite, python/tests/test_hb_suite.py, checks the correct kernels' outputs against
//! numpy and that `pto.run` gives the same verdicts.)

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hb")
}

/// The first error class of a diagnostic text, or `ok` when the command exited 0 without one.
fn verdict(stderr: &str, code: i32) -> String {
    match stderr.split("error[").nth(1).and_then(|rest| rest.split(']').next()) {
        Some(class) => class.to_string(),
        None if code == 0 => "ok".to_string(),
        None => format!("exit {code}: {stderr}"),
    }
}

/// The verdicts a correct checker may give for `entry`.
fn accepted(entry: &Value) -> Vec<String> {
    let expect = entry["expect"].as_str().unwrap_or_default().trim_start_matches("error:").to_string();
    let mut all = vec![expect];
    for a in entry["accept"].as_array().into_iter().flatten() {
        all.push(a.as_str().unwrap_or_default().to_string());
    }
    all
}

#[test]
fn every_kernel_gets_its_verdict_from_run_and_verify_under_every_schedule() {
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("manifest.json")).unwrap()).unwrap();
    let entries = manifest.as_array().unwrap();
    assert!(entries.len() >= 20, "the suite has {} kernels", entries.len());
    let correct = entries.iter().filter(|e| e["expect"] == "ok").count();
    assert!(
        correct * 3 >= entries.len() && correct * 3 <= entries.len() * 2,
        "{correct} of {} correct: keep the suite balanced",
        entries.len()
    );
    let mut failures = Vec::new();
    let mut checked = 0;
    for e in entries {
        let file = dir().join(e["file"].as_str().unwrap());
        let args: Vec<String> = e["args"].as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect();
        let ok = accepted(e);
        for t in e["targets"].as_array().unwrap() {
            let t = t.as_str().unwrap();
            let name = format!("{} on {t}", file.file_name().unwrap().to_string_lossy());
            let run = |extra: &[&str]| {
                let out = Command::new(env!("CARGO_BIN_EXE_pto"))
                    .args(["run", "--json", "--default-inputs", "--target", t])
                    .arg(&file)
                    .args(&args)
                    .args(extra)
                    .output()
                    .unwrap();
                let stderr = String::from_utf8_lossy(&out.stderr).to_string();
                (verdict(&stderr, out.status.code().unwrap_or(-1)), String::from_utf8_lossy(&out.stdout).to_string())
            };
            let mut outputs = Vec::new();
            for schedule in [
                &[][..],
                &["--schedule", "random", "--seed", "1"],
                &["--schedule", "random", "--seed", "2"],
                &["--schedule", "random", "--seed", "3"],
            ] {
                for threads in ["1", "2"] {
                    let extra: Vec<&str> = ["--sync-check=always", "--threads", threads].iter().chain(schedule).copied().collect();
                    let (v, stdout) = run(&extra);
                    if !ok.contains(&v) {
                        failures.push(format!("{name}: run {extra:?} gives {v}, expected one of {ok:?}"));
                    }
                    outputs.push(stdout);
                }
            }
            if e["expect"] == "ok" && outputs.iter().any(|o| *o != outputs[0]) {
                failures.push(format!("{name}: a correct kernel's outputs differ between schedules or thread counts"));
            }
            let (auto, _) = run(&[]);
            if !ok.contains(&auto) {
                failures.push(format!("{name}: run with --sync-check=auto gives {auto}, expected one of {ok:?}"));
            }
            let out =
                Command::new(env!("CARGO_BIN_EXE_pto")).args(["verify", "--sync", "--target", t]).arg(&file).args(&args).output().unwrap();
            let v = verdict(&String::from_utf8_lossy(&out.stderr), out.status.code().unwrap_or(-1));
            if !ok.contains(&v) {
                failures.push(format!("{name}: verify --sync gives {v}, expected one of {ok:?}"));
            }
            if v == "ok" && !String::from_utf8_lossy(&out.stdout).contains("sync: ok") {
                failures.push(format!("{name}: verify --sync passed without saying `sync: ok`"));
            }
            checked += 1;
        }
    }
    assert!(failures.is_empty(), "{} of {checked} (kernel, target) pairs disagree:\n{}", failures.len(), failures.join("\n"));
}
