//! Every op whose generated Level-2 example (`pto ops NAME`, the DPS form) is legal on a target
//! runs there: `pto run --default-inputs` on each legal (op, target) pair exits 0. What legality
//! accepts and the simulator refuses is a defect of one or the other (issue 39: "accepted but not
//! executable"); the pairs that still fail are [`KNOWN`], each with why, and the test fails when
//! one starts passing too, so the list stays exact. Printed: the counts and the list.

use pto::cmd::ops::{OpsOptions, run};
use serde_json::Value;
use std::process::Command;

/// (op, target, why it does not run): the gaps left, by class.
const KNOWN: &[(&str, &str, &str)] = &[
    // verify checks the example's scratch tile against its own rule; lowering's insert-scratch
    // check is stricter (one verdict per program is issue 38).
    ("pto.trem", "a2a3", "LEGAL_TMP_TOO_SMALL in lowering; verify accepts the 16x16 tmp"),
    ("pto.tprelu", "a2a3", "LEGAL_TMP_TOO_SMALL in lowering; verify accepts the 32x32 tmp"),
    // The ISA pages' dtype pairs are enforced by the simulator only.
    ("pto.taddreluconv", "a2a3", "legality accepts f32 -> f32; TADDReluConv converts f32->f16, f16->i8, i16->i8"),
    ("pto.taddreluconv", "a5", "legality accepts f32 -> f32; TADDReluConv converts f32->f16, f16->i8, i16->i8"),
    ("pto.tadddeqrelu", "a2a3", "legality accepts f32 -> f32; TAddDeqRelu adds i32 sources into f16"),
    ("pto.tadddeqrelu", "a5", "legality accepts f32 -> f32; TAddDeqRelu adds i32 sources into f16"),
    ("pto.tcmps", "a2a3", "legality accepts an f32 destination; the compare mask has 8-bit elements"),
    ("pto.tcmps", "a5", "legality accepts an f32 destination; the compare mask has 8-bit elements"),
    ("pto.tsort32", "a2a3", "the example's destination rows hold 8 pairs, 16 are needed"),
    ("pto.tsort32", "a5", "the example's destination rows hold 8 pairs, 16 are needed"),
    // Memory placement runs in lowering, not in verify.
    ("pto.tmatmul.mx", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    ("pto.tmatmul.mx.acc", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    ("pto.tmatmul.mx.bias", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    ("pto.tgemv.mx", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    ("pto.tgemv.mx.acc", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    ("pto.tgemv.mx.bias", "a5", "LEGAL_BUFFER_OVERFLOW: the example's scale tiles need 8 KiB of FB"),
    // A one-op example cannot give what the op needs from elsewhere.
    ("pto.timg2col", "a2a3", "reads FMATRIX_A, which no setfmatrix of the example wrote"),
    ("pto.timg2col", "a5", "reads FMATRIX_A, which no setfmatrix of the example wrote"),
    ("pto.setfmatrix", "a2a3", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.setfmatrix", "a5", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_rpt", "a2a3", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_rpt", "a5", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_padding", "a2a3", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_padding", "a5", "the example's `!pto.fmatrix_config` spells no configuration"),
    ("pto.comm.tgather", "a2a3", "the example's dst holds one member's elements, not the group's"),
    ("pto.comm.tgather", "a5", "the example's dst holds one member's elements, not the group's"),
    ("pto.comm.tscatter", "a2a3", "the example's src holds one member's elements, not the group's"),
    ("pto.comm.tscatter", "a5", "the example's src holds one member's elements, not the group's"),
    ("pto.comm.twait", "a2a3", "SYNC_DEADLOCK: the example waits for a signal no rank sets"),
    ("pto.comm.twait", "a5", "SYNC_DEADLOCK: the example waits for a signal no rank sets"),
    // The simulator has no semantics for it.
    ("pto.tpack", "a5", "not executable by the simulator yet"),
];

fn op_names() -> Vec<String> {
    let out = run(&OpsOptions { json: true, ..Default::default() });
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: Value = serde_json::from_str(&out.stdout).expect("JSON");
    let list = v.as_array().or_else(|| v["ops"].as_array()).expect("a list of ops");
    list.iter().map(|o| o["name"].as_str().expect("a name").to_string()).collect()
}

#[test]
fn every_legal_generated_example_runs() {
    let dir = std::env::temp_dir().join(format!("pto-ops-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut ran, mut failed) = (0, Vec::new());
    for name in op_names() {
        let page = run(&OpsOptions { name: Some(name.clone()), json: true, ..Default::default() });
        let Ok(v) = serde_json::from_str::<Value>(&page.stdout) else { continue };
        let Some(example) = v["examples"].as_array().into_iter().flatten().find(|e| e["form"] == "level2-dps") else { continue };
        if !example["error"].is_null() {
            continue;
        }
        for target in ["a2a3", "a5"] {
            if !example["errors_by_target"][target].is_null() {
                continue;
            }
            let file = dir.join(format!("{name}.{target}.pto"));
            std::fs::write(&file, example["text"].as_str().unwrap()).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_pto"))
                .args(["run", "--default-inputs", "-q", "--target", target, "--output-dir"])
                .arg(dir.join("out"))
                .arg(&file)
                .output()
                .expect("pto runs");
            ran += 1;
            if !out.status.success() {
                let stderr = String::from_utf8_lossy(&out.stderr);
                let first = stderr.lines().find(|l| l.starts_with("error")).unwrap_or("").to_string();
                failed.push((name.clone(), target, first));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!("{ran} legal (op, target) examples run; {} do not:", failed.len());
    for (op, target, why) in &failed {
        println!("  {op} [{target}]: {why}");
    }
    assert!(ran >= 250, "only {ran} examples ran");
    let new: Vec<_> = failed.iter().filter(|(o, t, _)| !KNOWN.iter().any(|(k, kt, _)| k == o && kt == t)).collect();
    let gone: Vec<_> = KNOWN.iter().filter(|(k, kt, _)| !failed.iter().any(|(o, t, _)| o == k && t == kt)).collect();
    assert!(new.is_empty(), "legal examples that do not run and are not listed: {new:?}");
    assert!(gone.is_empty(), "listed examples that run now (take them off KNOWN): {gone:?}");
}
