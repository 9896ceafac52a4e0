//! `pto verify --target T` against `ptoas`'s verdicts on the PTOAS lit tests
//! (`$PTO_SHARED/corpus/ptoas-basic/VERDICTS.tsv`, 58 files, columns `a3` and `a5`).
//!
//! Each file is run through the `pto` binary for `a2a3` and for `a5`, exactly as a user would,
//! and the exit status is compared with `ptoas`'s verdict:
//!
//! * `OK` ⇔ `pto verify` exits 0;
//! * `VERIFY_FAIL` / `PARSE_FAIL` ⇔ `pto verify` rejects the file;
//! * `PASS_FAIL` (a pass after `ptoas`'s verifier rejected it) counts as a rejection when the
//!   pass's reason is one `pto` can see in the program; [`PASS_FAIL_VISIBLE`] lists each such
//!   reason, and every `PASS_FAIL` row must be listed there (a row whose reason `pto` could not
//!   see would count as accepted);
//! * `CLI_LEVEL_CHECK` (`ptoas` refusing `pto.tassign` without `--pto-level=level3`) is a
//!   property of `ptoas`'s command line, which `pto` does not have: left out of the count.
//!
//! The test prints the agreement per target and every disagreement with both sides' reasons,
//! and fails when the set of disagreements is not exactly [`DISAGREEMENTS`] (so a fix must
//! shrink the list, and a regression shows) or when the agreement falls below [`FLOOR`].

mod common;

use std::collections::BTreeMap;
use std::process::Command;

/// The `PASS_FAIL` rows and why `pto` can see the pass's reason in the program text.
const PASS_FAIL_VISIBLE: &[(&str, &str)] = &[
    ("pto_entry_nonvoid_rejected.pto", "an entry function's signature returns a value"),
    ("resolve_reserved_buffers_reject_non_peer_init_a5.pto", "where a pipe init's local_addr comes from is in the IR"),
    ("test_tpush_tpop_roundtrip_nosplit_a5.pto", "a cube/vector pipe without gm_slot_buffer on a2a3"),
    ("textract_a5_vec_vec_nd_lowering.pto", "the locations of textract's operands"),
    ("tpush_tpop_dynamic_validshape_a5.pto", "a cube/vector pipe without gm_slot_buffer on a2a3"),
    ("tpush_tpop_frontend_mixed_split_a5.pto", "a pipe's gm_slot_buffer and split attributes"),
    ("tpush_tpop_frontend_nosplit_conflict_a5.pto", "a pipe's gm_slot_buffer and split attributes"),
    ("trandom_emitc.pto", "trandom is an A5 op"),
];

/// Verdicts about `ptoas`'s command line rather than the program: not counted.
const NOT_COUNTED: &[&str] = &["CLI_LEVEL_CHECK"];

/// (file, target, why): the disagreements that remain. Each is a place where ptoas and pto-isa
/// disagree and pto keeps pto-isa's side; the legality table marks the rule disputed
/// (`legality::Dispute`), so pto's `LEGAL_REFERENCES_DISAGREE` warning or `LEGAL_BUFFER_OVERFLOW`
/// note says which reference says what.
const DISAGREEMENTS: &[(&str, &str, &str)] = &[
    (
        "textract_a5_vec_vec_nd_lowering.pto",
        "a2a3",
        "the references disagree: pto-isa npu/a2a3/TExtract.hpp:465-489 implements vec -> vec (and pto-isa's CPU-simulator golden vectors of textract run it on A2A3), ptoas's A2A3 verifier rejects it (PTO.cpp:4041-4045)",
    ),
    (
        "tgemv_mx_emitc.pto",
        "a5",
        "the references disagree: the scaling tiles need 4352 bytes of FB; pto-isa's TASSIGN check (tassign_check.hpp SA-0353) bounds FB at 4 KiB on A5, ptoas plans scaling tiles in a UB-sized space",
    ),
];

/// The agreement each target must keep, in percent: the measured value (a2a3 56/57, a5 56/57).
/// `tmov_forms_emitc.pto` agrees on A2A3 since pto takes ptoas's side of the A2A3 `tmov` acc
/// forms (accepted with a warning naming pto-isa's static_asserts): rejecting the A2A3 `textract`
/// vec -> vec form instead would reject golden vectors pto-isa's implementation runs.
const FLOOR: f64 = 98.2;

/// What `pto verify --target target file` says: (accepted, first error or warning line).
fn pto_verify(target: &str, path: &std::path::Path) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pto")).args(["verify", "--target", target]).arg(path).output().expect("pto runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code().expect("pto exits (no signal)");
    assert!(code == 0 || code == 1, "{}: exit code {code}\n{stderr}", path.display());
    let first = stderr.lines().find(|l| l.starts_with("error")).or_else(|| stderr.lines().find(|l| l.starts_with("warning"))).unwrap_or("");
    (code == 0, first.to_string())
}

#[test]
fn verify_agrees_with_ptoas_on_the_lit_tests() {
    let Some(dir) = common::shared::basic() else { return };
    let text = std::fs::read_to_string(dir.join("VERDICTS.tsv")).expect("VERDICTS.tsv is readable");
    let rows: Vec<Vec<&str>> = text.lines().skip(1).filter(|l| !l.trim().is_empty()).map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 58, "VERDICTS.tsv rows");
    // target -> (agree, counted)
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut found: Vec<(String, &str)> = Vec::new();
    let mut report = Vec::new();
    for row in &rows {
        let file = row[0];
        for (target, col) in [("a2a3", 1), ("a5", 2)] {
            let verdict = row[col];
            let reason = row.get(col + 2).copied().unwrap_or("");
            if NOT_COUNTED.contains(&verdict) {
                continue;
            }
            let ptoas_rejects = match verdict {
                "OK" => false,
                "VERIFY_FAIL" | "PARSE_FAIL" => true,
                "PASS_FAIL" => {
                    assert!(PASS_FAIL_VISIBLE.iter().any(|(f, _)| *f == file), "{file}: PASS_FAIL row not classified");
                    true
                }
                other => panic!("{file}: unknown verdict {other}"),
            };
            let (accepted, said) = pto_verify(target, &dir.join(file));
            let entry = tally.entry(target).or_default();
            entry.1 += 1;
            if accepted != ptoas_rejects {
                entry.0 += 1;
                continue;
            }
            found.push((file.to_string(), target));
            report.push(format!(
                "  {file} [{target}]\n    ptoas: {verdict} {reason}\n    pto:   {}",
                if accepted { format!("accepts{}", if said.is_empty() { String::new() } else { format!(" ({said})") }) } else { said }
            ));
        }
    }
    println!("disagreements with ptoas:\n{}", report.join("\n"));
    for (t, (agree, counted)) in &tally {
        println!("{t}: {agree} of {counted} agree ({:.1} %)", 100.0 * *agree as f64 / *counted as f64);
    }
    let listed: Vec<(String, &str)> = DISAGREEMENTS.iter().map(|(f, t, _)| (f.to_string(), *t)).collect();
    let new: Vec<_> = found.iter().filter(|x| !listed.contains(x)).collect();
    let gone: Vec<_> = listed.iter().filter(|x| !found.contains(x)).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "disagreements not listed: {new:?}\nlisted but now agreeing: {gone:?}\n{}",
        report.join("\n")
    );
    for (t, (agree, counted)) in &tally {
        let pct = 100.0 * *agree as f64 / *counted as f64;
        assert!(pct >= FLOOR, "{t}: {agree} of {counted} ({pct:.1} %) is below {FLOOR} %");
    }
}
