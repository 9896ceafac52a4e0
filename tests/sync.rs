//! Sync conformance (issue 15): every `tests/sync/*.pto` runs under `pto run --sync-check=always`
//! on both targets and gives exactly the diagnostics written next to its lines, with the
//! conformance suite's syntax: `// error: CLASS` for both targets, `// error[a2a3]: CLASS` for
//! one (each file's first comment says what it checks). The shared samples with explicit sync
//! run with no sync report, and mutants of them (one sync op deleted) are reported or shown
//! redundant.

mod common;

use pto::ErrorFormat;
use pto::TargetName;
use pto::cmd::run::{RunOptions, SyncCheck, run};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sync");
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir).expect("tests/sync").flatten().map(|e| e.path()).collect();
    out.retain(|p| p.extension().is_some_and(|e| e == "pto"));
    out.sort();
    out
}

/// `(line, severity, class)` written in `text` for `target` (untagged ones apply to both).
fn expectations(text: &str, target: &str) -> BTreeSet<(usize, String, String)> {
    let mut out = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        for sev in ["error", "warning", "note"] {
            for tag in [format!("// {sev}: "), format!("// {sev}[{target}]: ")] {
                let mut rest = line;
                while let Some(pos) = rest.find(&tag) {
                    rest = &rest[pos + tag.len()..];
                    let class = rest.split_whitespace().next().unwrap_or("").to_string();
                    out.insert((i + 1, sev.to_string(), class));
                }
            }
        }
    }
    out
}

/// `(line, severity, class)` of the JSON diagnostics `pto run` printed.
fn found(stderr: &str) -> BTreeSet<(usize, String, String)> {
    stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .map(|v| {
            (
                v["line"].as_u64().unwrap_or(0) as usize,
                v["severity"].as_str().unwrap_or("").into(),
                v["class"].as_str().unwrap_or("").into(),
            )
        })
        .collect()
}

fn run_file(path: &str, target: TargetName, check: SyncCheck) -> pto::Outcome {
    run_with(path, target, check, Vec::new())
}

fn run_with(path: &str, target: TargetName, check: SyncCheck, inputs: Vec<String>) -> pto::Outcome {
    run(&RunOptions {
        default_inputs: true,
        sync_check: check,
        inputs,
        error_format: ErrorFormat::Json,
        ..RunOptions::new(path.to_string(), target)
    })
}

/// The `NAME=VALUE` inputs a conformance program asks for (`// Inputs: n=3`), e.g. the trip
/// count that shows a loop-carried bug; the others take the default values.
fn inputs_of(text: &str) -> Vec<String> {
    text.lines().filter_map(|l| l.strip_prefix("// Inputs: ")).flat_map(|l| l.split_whitespace().map(String::from)).collect()
}

#[test]
fn every_sync_program_gives_its_expected_diagnostics_on_both_targets() {
    let files = files();
    assert!(files.len() >= 15, "{} programs", files.len());
    let mut failures = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(text.starts_with("// Checks: "), "{}: say what the file checks first", path.display());
        for (target, name) in [(TargetName::A2A3, "a2a3"), (TargetName::A5, "a5")] {
            let out = run_with(&path.display().to_string(), target, SyncCheck::Always, inputs_of(&text));
            let want = expectations(&text, name);
            let got = found(&out.stderr);
            if got != want {
                failures.push(format!("{} on {name}:\n  expected {want:?}\n  found    {got:?}\n{}", path.display(), out.stderr));
            }
            let errors = want.iter().any(|(_, s, _)| s == "error");
            assert_eq!(out.code, if errors { 1 } else { 0 }, "{} on {name}: exit code", path.display());
            // Results are still written when the kernel has hazards.
            assert!(out.stdout.starts_with('{'), "{} on {name}: no results: {}", path.display(), out.stdout);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The loop fixpoint of `pto verify --sync` (issue 15: loops taken zero, one and several times)
/// finds the loop-carried bugs that need a third iteration with a dynamic trip count: a run
/// with two iterations shows nothing, one with three shows them, and the static check (no
/// trip count given) finds the same.
#[test]
fn the_loop_fixpoint_finds_bugs_that_need_a_third_iteration() {
    use pto::cmd::verify::{VerifyOptions, run_with_sync};
    let cases: [(&str, &[(usize, &str)]); 2] = [
        ("tests/sync/loop_carried_third_iteration.pto", &[(24, "SYNC_DEADLOCK")]),
        ("tests/sync/nested_loop_rotating_ids.pto", &[(24, "SYNC_FLAG_MISUSE"), (30, "SYNC_DEADLOCK")]),
    ];
    for (path, want) in cases {
        let want: BTreeSet<(usize, String, String)> = want.iter().map(|&(l, c)| (l, "error".to_string(), c.to_string())).collect();
        for target in [TargetName::A2A3, TargetName::A5] {
            let two = run_with(path, target, SyncCheck::Always, vec!["n=2".into()]);
            assert_eq!((two.code, found(&two.stderr)), (0, BTreeSet::new()), "{path} with n = 2 on {target:?}: {}", two.stderr);
            let three = run_with(path, target, SyncCheck::Always, vec!["n=3".into()]);
            assert_eq!(found(&three.stderr), want, "{path} with n = 3 on {target:?}");
            let stat = run_with_sync(&VerifyOptions {
                input: path.into(),
                target: Some(target),
                explain: false,
                error_format: ErrorFormat::Json,
                ..Default::default()
            });
            assert_eq!(stat.code, 1);
            assert_eq!(found(&stat.stderr), want, "{path}: verify --sync on {target:?}: {}", stat.stderr);
        }
    }
}

/// A loop whose head state does not repeat within the bound (here its index period, 25, is
/// above the 24 iterations) stops at the bound with a note at the loop, and no error.
#[test]
fn a_loop_without_a_fixpoint_within_the_bound_gets_a_note() {
    let text = std::fs::read_to_string("tests/sync/loop_carried_third_iteration.pto").unwrap();
    let body: String = text
        .lines()
        .filter(|l| !l.starts_with("//"))
        .map(|l| {
            let l = l
                .replace("%c3 = arith.constant 3", "%c3 = arith.constant 25")
                .replace("%wait = arith.remsi %i, %c2", "%wait = arith.remsi %i, %c3");
            format!("{l}\n")
        })
        .collect();
    // Set and wait the same id, i mod 25 clamped into 0..8 by a mask: correct, but periodic in 25.
    let body =
        body.replace("%set = arith.remsi %i, %c3 : index", "%r = arith.remsi %i, %c3 : index\n    %set = arith.andi %r, %c7 : index");
    let body = body.replace("%wait = arith.remsi %i, %c3 : index", "%wait = arith.andi %r, %c7 : index");
    let body = body.replace("%c16 = arith.constant 16 : index", "%c16 = arith.constant 16 : index\n  %c7 = arith.constant 7 : index");
    let (out, notes) = verify_sync_notes("bound", &body);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert_eq!(
        notes[0]["message"],
        "the sync state at the head of this loop did not repeat within 24 iterations: paths with more iterations were not checked"
    );
    assert!(body.lines().nth(notes[0]["line"].as_u64().unwrap() as usize - 1).unwrap().contains("scf.for"));
}

/// `pto verify --target a5 --sync --error-format json` of `text`: the outcome and its
/// `SYNC_NOT_CHECKED` notes.
fn verify_sync_notes(name: &str, text: &str) -> (pto::Outcome, Vec<serde_json::Value>) {
    use pto::cmd::verify::{VerifyOptions, run_with_sync};
    let path = std::env::temp_dir().join(format!("pto-sync-{name}-{}.pto", std::process::id()));
    std::fs::write(&path, text).unwrap();
    let out = run_with_sync(&VerifyOptions {
        input: path.display().to_string(),
        target: Some(TargetName::A5),
        explain: false,
        error_format: ErrorFormat::Json,
        ..Default::default()
    });
    let _ = std::fs::remove_file(path);
    let notes = out
        .stderr
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["class"] == "SYNC_NOT_CHECKED")
        .collect();
    (out, notes)
}

/// A path the simulator cannot run to the end is not checked, and says so: here a division by
/// zero (`arith.remsi %i, %c0`) stops every path that enters the loop.
#[test]
fn paths_that_trap_are_counted_in_a_note() {
    let text = std::fs::read_to_string("tests/sync/loop_carried_third_iteration.pto")
        .unwrap()
        .replace("arith.remsi %i, %c3", "arith.remsi %i, %c0");
    let (out, notes) = verify_sync_notes("trap", &text);
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert_eq!(
        notes[0]["message"],
        "1 of 2 paths stopped at a trap and were not checked (the first: integer division by zero; an infeasible path, or an op the simulator cannot run)"
    );
    // Located at the division (line 20).
    assert_eq!(notes[0]["line"], 20);
    // The summary does not call the unchecked path ok.
    assert!(out.stdout.contains("sync: ok on 1 of 2 paths; 1 stopped at a trap and were not checked"), "{}", out.stdout);
    assert!(!out.stdout.contains("sync: ok ("), "{}", out.stdout);
}

#[test]
fn a_hazard_report_names_both_ops_pipes_buffer_range_and_iteration() {
    let out = run_file("tests/sync/loop_back_edge.pto", TargetName::A5, SyncCheck::Always);
    let war = out.stderr.lines().find(|l| l.contains("HAZARD_WAR")).expect("a WAR");
    let v: serde_json::Value = serde_json::from_str(war).unwrap();
    assert_eq!(v["message"], "`pto.tload` on PIPE_MTE2 overwrites UB[0..1024) that `pto.texp` on PIPE_V read, with no sync between them");
    assert_eq!(v["line"], 17);
    let labels = v["labels"].as_array().unwrap();
    assert_eq!(labels[0]["line"], 20);
    assert_eq!(labels[0]["message"], "read here on PIPE_V (iteration 0 of its loop)");
    assert_eq!(labels[1]["message"], "first op in iteration 0, second in iteration 1 of this loop");
    assert_eq!(labels[1]["line"], 16);
}

#[test]
fn a_program_without_sync_ops_is_not_checked_unless_asked() {
    let dir = std::env::temp_dir().join(format!("pto-sync-none-{}.pto", std::process::id()));
    let text = std::fs::read_to_string("tests/sync/raw_per_pipe_pair.pto").unwrap();
    // The first three hazards, without any sync op after them.
    let cut: String = text.lines().take_while(|l| !l.contains("barrier")).map(|l| format!("{l}\n")).collect::<String>() + "  return\n}\n";
    std::fs::write(&dir, cut).unwrap();
    let path = dir.display().to_string();
    let auto = run(&RunOptions { default_inputs: true, ..RunOptions::new(path.clone(), TargetName::A2A3) });
    assert_eq!(auto.code, 0, "{}", auto.stderr);
    assert_eq!(auto.stderr.matches("note[SYNC_NOT_CHECKED]").count(), 1, "{}", auto.stderr);
    let always = run_file(&path, TargetName::A2A3, SyncCheck::Always);
    assert_eq!(always.code, 1);
    assert_eq!(found(&always.stderr).len(), 3, "{}", always.stderr);
    let never = run_file(&path, TargetName::A2A3, SyncCheck::Never);
    assert_eq!((never.code, never.stderr.as_str()), (0, ""));
    // The first hazard says the kernel relies on insertion, and how to run it with pto's.
    let hint = "the kernel has no sync op: it relies on sync insertion (as `ptoas --enable-insert-sync`); `--insert-sync` runs it";
    assert_eq!(always.stderr.matches(hint).count(), 1, "{}", always.stderr);
    // `--insert-sync`: the same outputs, every pipe ordered, nothing to report.
    let inserted = run(&RunOptions {
        default_inputs: true,
        sync_check: SyncCheck::Always,
        insert_sync: true,
        error_format: ErrorFormat::Json,
        ..RunOptions::new(path.clone(), TargetName::A2A3)
    });
    assert_eq!((inserted.code, inserted.stderr.as_str()), (0, ""));
    assert_eq!(inserted.stdout, never.stdout);
    let _ = std::fs::remove_file(dir);
}

/// The shared samples with an explicit sync op that run; `None` without the corpus (the suite
/// says so once).
fn samples_with_sync() -> Option<Vec<PathBuf>> {
    let root = common::corpus_dir()?;
    let files = common::pto_files(std::slice::from_ref(&root));
    let samples = files
        .into_iter()
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let lowered = pto_asm::parse(&text, pto_ir::FileId(0)).ok().map(|(m, _)| pto_sim::sync::has_explicit_sync(&m));
            lowered == Some(true)
        })
        .collect();
    Some(samples)
}

#[test]
fn shared_samples_with_explicit_sync_run_without_a_sync_report() {
    let Some(samples) = samples_with_sync() else { return };
    assert!(samples.len() >= 4, "{samples:?}");
    for f in &samples {
        for target in [TargetName::A2A3, TargetName::A5] {
            let out = run_file(&f.display().to_string(), target, SyncCheck::Auto);
            let sync: Vec<&str> = out.stderr.lines().filter(|l| l.contains("\"HAZARD_") || l.contains("\"SYNC_")).collect();
            assert!(sync.is_empty(), "{} on {target:?}: {sync:?}", f.display());
        }
    }
}

/// Mutation test (issue 15, acceptance 2): in every sample with explicit sync, each
/// `wait_flag` (and `wait_event`), and separately each `set_flag` (and `record_event`), each
/// `barrier` and each `get_buf`/`rls_buf`, deleted one at a time, on both targets. Every mutant is either reported by both
/// checkers (`pto run` and `pto verify --sync`) or proven redundant — neither checker finds an
/// unordered access or a flag problem without it, on the data's path or on any path. The
/// counts are printed per kind.
#[test]
fn deleting_a_sync_op_from_a_sample_is_reported_or_redundant() {
    use pto::cmd::verify::{VerifyOptions, run_with_sync};
    let kinds: [(&str, &[&str]); 4] = [
        ("wait_flag", &["pto.wait_flag", "pto.wait_event"]),
        ("set_flag", &["pto.set_flag", "pto.record_event"]),
        ("barrier", &["pto.barrier "]),
        ("get_buf/rls_buf", &["pto.get_buf", "pto.rls_buf"]),
    ];
    let Some(samples) = samples_with_sync() else { return };
    let mut disagreements = Vec::new();
    let mut total_reported = 0;
    for (kind, spellings) in kinds {
        let (mut reported, mut redundant) = (0, Vec::new());
        for f in &samples {
            let text = std::fs::read_to_string(f).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (i, l) in lines.iter().enumerate() {
                if !spellings.iter().any(|k| l.contains(k)) {
                    continue;
                }
                let mutant: String = lines.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, l)| format!("{l}\n")).collect();
                let path = std::env::temp_dir().join(format!("pto-sync-mutant-{}-{}-{i}.pto", std::process::id(), kind.replace('/', "-")));
                std::fs::write(&path, &mutant).unwrap();
                let p = path.display().to_string();
                for target in [TargetName::A2A3, TargetName::A5] {
                    let run = run_file(&p, target, SyncCheck::Always);
                    let stat = run_with_sync(&VerifyOptions {
                        input: p.clone(),
                        target: Some(target),
                        explain: false,
                        error_format: ErrorFormat::Json,
                        ..Default::default()
                    });
                    let where_ = format!("{}:{} on {target:?}: {}", f.display(), i + 1, l.trim());
                    match (run.code, stat.code) {
                        (1, 1) => reported += 1,
                        (0, 0) => redundant.push(where_),
                        _ => disagreements.push(format!(
                            "{where_}: run exit {}, verify --sync exit {}\n{}{}",
                            run.code, stat.code, run.stderr, stat.stderr
                        )),
                    }
                }
                let _ = std::fs::remove_file(path);
            }
        }
        println!(
            "deleting one {kind}: {reported} (mutant, target) pairs reported by both checkers, {} redundant for both",
            redundant.len()
        );
        for r in &redundant {
            println!("  redundant: {r}");
        }
        total_reported += reported;
    }
    assert!(disagreements.is_empty(), "the checkers disagree:\n{}", disagreements.join("\n"));
    assert!(total_reported >= 20, "{total_reported} reported");
}

/// `pto verify --sync` (every path) gives the same diagnostics as the run on every conformance
/// program and both targets, and passes every shared sample with explicit sync.
#[test]
fn static_verdicts_agree_with_the_dynamic_ones() {
    use pto::cmd::verify::{VerifyOptions, run_with_sync};
    let verify = |path: &str, target| {
        run_with_sync(&VerifyOptions {
            input: path.into(),
            target: Some(target),
            explain: false,
            error_format: ErrorFormat::Json,
            ..Default::default()
        })
    };
    let mut failures = Vec::new();
    for path in files() {
        let text = std::fs::read_to_string(&path).unwrap();
        for (target, name) in [(TargetName::A2A3, "a2a3"), (TargetName::A5, "a5")] {
            let out = verify(&path.display().to_string(), target);
            let want = expectations(&text, name);
            let got: BTreeSet<_> = found(&out.stderr).into_iter().filter(|(_, s, _)| s != "note").collect();
            if got != want {
                failures.push(format!("{} on {name}:\n  expected {want:?}\n  found    {got:?}", path.display()));
            }
            // Every path was explored: neither the 512-path cap nor a loop's iteration bound hit.
            if out.stderr.contains("SYNC_NOT_CHECKED") {
                failures.push(format!("{} on {name}: not every path checked: {}", path.display(), out.stderr));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    for f in samples_with_sync().unwrap_or_default() {
        for target in [TargetName::A2A3, TargetName::A5] {
            let out = verify(&f.display().to_string(), target);
            assert_eq!(out.code, 0, "{} on {target:?}: {}", f.display(), out.stderr);
            assert!(out.stdout.contains("sync: ok ("), "{}", out.stdout);
        }
    }
}

/// `set_validshape` runs (it used to stop every path of a kernel using it at a trap, so that
/// `verify --sync` checked none of them): the tile narrowed to 8x`cols` sums only those columns.
#[test]
fn set_validshape_narrows_the_tile_at_run_time() {
    let dir = std::env::temp_dir().join(format!("pto-set-validshape-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let a: Vec<f32> = (0..512).map(|i| (i % 7) as f32).collect();
    let a_path = dir.join("a.npy");
    let data = pto_sim::data::TileData {
        dtype: pto_ir::types::ElemType::F32,
        rows: 8,
        cols: 64,
        bytes: a.iter().flat_map(|x| x.to_le_bytes()).collect(),
    };
    std::fs::write(&a_path, pto_sim::npy::write(&data).unwrap()).unwrap();
    for cols in [32usize, 5, 64] {
        let out = run(&RunOptions {
            inputs: vec![format!("a={}", a_path.display()), format!("cols={cols}")],
            sync_check: SyncCheck::Always,
            error_format: ErrorFormat::Json,
            ..RunOptions::new("tests/sync/set_validshape.pto", TargetName::A2A3)
        });
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        let got: Vec<f64> = v["out"]["data"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let want: Vec<f64> = (0..8).map(|r| (0..cols).map(|c| a[r * 64 + c] as f64).sum()).collect();
        assert_eq!(got, want, "cols = {cols}");
    }
    // A valid shape beyond the tile is a located trap, not a silent clamp.
    let out = run(&RunOptions {
        inputs: vec![format!("a={}", a_path.display()), "cols=65".into()],
        ..RunOptions::new("tests/sync/set_validshape.pto", TargetName::A2A3)
    });
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("valid shape 8x65 is outside the tile's 8x64"), "{}", out.stderr);
    let _ = std::fs::remove_dir_all(dir);
}
