//! The cross-core, cross-block and cross-rank hazard suite (`tests/hb`, README there): every
//! kernel gets its expected verdict from `pto run --sync-check=always` under four schedules
//! and two thread counts, from `pto run` with the default `--sync-check=auto`, and from
//! `pto verify --sync`; a correct kernel's outputs are the same under every schedule. (The
//! Python suite, python/tests/test_hb_suite.py, checks the correct kernels' outputs against
//! numpy and that `pto.run` gives the same verdicts.)

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

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

/// The sync ops the mutation test deletes, by the text their line starts with (after any
/// `%x = `), and the name it counts them under.
const MUTATED: &[(&str, &str)] = &[
    ("pto.wait_flag", "wait_flag"),
    ("pto.set_flag", "set_flag"),
    ("pto.sync.wait", "sync.wait (FFTS)"),
    ("pto.sync.set", "sync.set (FFTS)"),
    ("pto.tpop", "tpop"),
    ("pto.tfree", "tfree"),
    ("pto.syncall", "syncall"),
    ("pto.comm.twait", "twait"),
];

/// Whether `pto run` (the default checks: orders between cores, blocks and ranks always, the
/// pipes of a kernel with sync ops) and `pto verify --sync` of `text` (with `args`) report
/// anything (a non-zero exit).
fn reported(text: &str, target: &str, args: &[String]) -> (bool, bool) {
    let path = std::env::temp_dir().join(format!("pto-hb-mutant-{}.pto", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let pto = || Command::new(env!("CARGO_BIN_EXE_pto"));
    let run = pto().args(["run", "--json", "--default-inputs", "--target", target]).arg(&path).args(args).output().unwrap();
    let verify = pto().args(["verify", "--sync", "--target", target]).arg(&path).args(args).output().unwrap();
    let _ = std::fs::remove_file(&path);
    (run.status.code() != Some(0), verify.status.code() != Some(0))
}

/// The kernels with cross-core, cross-block or cross-rank sync: the correct ones of the suite,
/// tests/blocks and tests/comm, and the shared samples with pipes or FFTS (when the corpus is
/// there), each with its `pto run` arguments and targets.
fn mutation_subjects() -> Vec<(PathBuf, Vec<String>, Vec<String>)> {
    let manifest: Value = serde_json::from_str(&std::fs::read_to_string(dir().join("manifest.json")).unwrap()).unwrap();
    let strings = |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|a| a.as_str().unwrap().to_string()).collect() };
    let mut out: Vec<(PathBuf, Vec<String>, Vec<String>)> = manifest
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["expect"] == "ok")
        .map(|e| (dir().join(e["file"].as_str().unwrap()), strings(&e["args"]), strings(&e["targets"])))
        .collect();
    let both = || vec!["a2a3".to_string(), "a5".to_string()];
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    out.push((root.join("tests/blocks/syncall_exchange.pto"), vec!["--blocks".into(), "4".into()], both()));
    out.push((root.join("tests/blocks/syncall_mix.pto"), vec!["--blocks".into(), "2".into()], both()));
    let peers = ["--ranks", "2", "--peer", "buf=next", "--peer", "sig=next"].map(String::from).to_vec();
    out.push((root.join("tests/comm/put_signal.pto"), peers, both()));
    // The shared samples with pipes and FFTS, when the corpus is there (else the suite says it
    // skips them).
    let Some(corpus) = common::corpus_dir() else { return out };
    for rel in ["TPushTPop/test1", "TPushTPop/test2", "TPushTPop/test3", "TPushTPop/test4", "TPushTPop/a3/test1", "TPushTPop/a3/test2"] {
        let f = corpus.join(rel).join("kernel.pto");
        if f.exists() {
            out.push((f, Vec::new(), both()));
        }
    }
    // (Complex/mix_kernel.pto was one too until the reader required the tmp PTOAS's .td
    // declares: it no longer parses, as `ptoas` rejects it.)
    out
}

/// docs/sync.md's mutation test, extended to the orders between cores, blocks and ranks:
/// deleting any one wait, set, FFTS set or wait, tpop, tfree, syncall or twait of a kernel that
/// runs clean is reported by both `pto run` and `pto verify --sync`, or by neither (then nothing
/// depended on it: redundant). Prints the counts.
#[test]
fn deleting_a_sync_op_between_cores_blocks_or_ranks_is_reported_by_run_and_verify_or_redundant() {
    let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
    let mut disagreements = Vec::new();
    let mut subjects = 0;
    let mut never_clean = Vec::new();
    for (file, args, targets) in mutation_subjects() {
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let before = subjects;
        for target in &targets {
            if reported(&text, target, &args) != (false, false) {
                continue; // Not clean as written on this target (a sample bug, or not for it).
            }
            subjects += 1;
            for (i, line) in lines.iter().enumerate() {
                let op = line
                    .trim_start()
                    .split_once("= ")
                    .map_or(line.trim_start(), |(lhs, rhs)| if lhs.starts_with('%') { rhs } else { line.trim_start() });
                let Some(&(_, kind)) = MUTATED.iter().find(|(prefix, _)| op.starts_with(prefix)) else { continue };
                // The op and its continuation lines (`-> type`).
                let end = (i + 1..lines.len()).find(|&j| !lines[j].trim_start().starts_with("->")).unwrap_or(lines.len());
                let mutant: String = lines[..i].iter().chain(&lines[end..]).map(|l| format!("{l}\n")).collect();
                let entry = counts.entry(kind).or_default();
                match reported(&mutant, target, &args) {
                    (true, true) => entry.0 += 1,
                    (false, false) => entry.1 += 1,
                    (run, verify) => disagreements.push(format!(
                        "{}:{} on {target} ({kind}): run {}, verify {}",
                        file.display(),
                        i + 1,
                        if run { "reports" } else { "is clean" },
                        if verify { "reports" } else { "is clean" }
                    )),
                }
            }
        }
        if subjects == before {
            never_clean.push(file.display().to_string());
        }
    }
    println!("{subjects} (kernel, target) pairs; mutants per deleted op: (reported by both, redundant)");
    // A subject clean on none of its targets tests nothing: it must not drop out unnoticed.
    assert!(never_clean.is_empty(), "not clean as written on any target: {never_clean:?}");
    for (kind, (both, redundant)) in &counts {
        println!("  {kind:<18} {both:>4} {redundant:>4}");
    }
    assert!(subjects >= 20, "only {subjects} kernels ran clean");
    assert!(counts.values().map(|c| c.0).sum::<usize>() >= 30, "{counts:?}");
    assert!(disagreements.is_empty(), "run and verify disagree on {} mutants:\n{}", disagreements.len(), disagreements.join("\n"));
}
