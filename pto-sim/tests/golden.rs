//! Golden vectors from the pto-isa CPU simulator against the simulator, on both targets:
//!
//! * `../shared/golden/cases` (111 cases) — every case runs on both targets;
//! * `tests/golden/cases` (this repository, format in `tests/golden/README.md`) — every case runs
//!   on each target whose legality table accepts it. An instruction the simulator does not execute
//!   yet must be listed in [`NOT_EXECUTABLE_YET`] (and must fail with "not executable by the
//!   simulator yet"); a case whose mismatch is understood is listed in [`KNOWN_MISMATCHES`] with
//!   the reason (and must still mismatch). Anything else fails the test.
//!
//! The matched vectors per instruction and target are the repository's `tests/golden/coverage.tsv`,
//! which `pto ops` shows (docs/isa-coverage.md); the test fails when it is stale and rewrites it
//! with `PTO_UPDATE_GOLDEN_COVERAGE=1`.
//!
//! Integers and masks must match exactly, f16/bf16 bit-exactly, f32 within 1e-6 relative (1e-3
//! for transcendental ops). Every output operand of a case is compared.

use pto_lower::{Target, TargetId};
use pto_sim::{Sim, TileData};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

mod common;
use common::{bind_inputs, case_files, load, oracle_case_files, parse_case, read_output};

const TRANSCENDENTAL: &[&str] = &["texp", "tlog", "tsqrt", "trsqrt", "trecip", "tpow", "tpows", "trowexpandexpdif", "tcolexpandexpdif"];
/// Cases whose expected values depend on the oracle's summation order (README: needs a tolerance).
const ORDER_DEPENDENT: &[&str] = &["tmatmul_f16_16x32x16_random"];

/// Instructions of `tests/golden/cases` the simulator does not execute yet: their cases are
/// counted and skipped. Each must fail with "not executable by the simulator yet".
const NOT_EXECUTABLE_YET: &[&str] = &[];

/// Cases of `tests/golden/cases` whose mismatch is understood, by case id or by instruction (all
/// its cases), with the reason; each entry must still mismatch somewhere.
const KNOWN_MISMATCHES: &[(&str, &str)] = &[];

/// Cases of `tests/golden/cases` (made with pto-isa's CPU simulator) whose tiles pto-isa's NPU
/// implementation rejects, by case-id prefix, with the line: legal on no target, on purpose. Each
/// prefix must still name a case that is legal nowhere.
const NPU_REJECTS: &[(&str, &str)] = &[(
    "thistogram_u16_",
    "the index tile is ND 1xN; npu/a5/THistogram.hpp:255-258 static_asserts a DN tile of one column for a uint16 source (PTOAS's verifier too)",
)];

/// Compares one output operand of a case with what the simulator computed.
fn compare(op: &str, case_id: &str, out: &Value, got: &TileData) -> Result<(), String> {
    let name = out["name"].as_str().unwrap_or("");
    let want = out["data"].as_array().cloned().unwrap_or_default();
    if got.rows * got.cols != want.len() {
        return Err(format!("{name}: {} values computed, {} expected", got.rows * got.cols, want.len()));
    }
    if let Some(bits) = out["bits"].as_array() {
        for (i, (g, w)) in got.bits().iter().zip(bits).enumerate() {
            if Some(*g) != w.as_u64() {
                return Err(format!("{name} element {i}: bits {g:#x}, expected {w}"));
            }
        }
        return Ok(());
    }
    if got.dtype.is_float() {
        let tol = if TRANSCENDENTAL.contains(&op) || ORDER_DEPENDENT.contains(&case_id) { 1e-3 } else { 1e-6 };
        for (i, (g, w)) in got.as_f64().iter().zip(&want).enumerate() {
            let w = w.as_f64().unwrap_or(f64::NAN);
            if (g - w).abs() > tol * w.abs().max(1e-30) && g != &w {
                return Err(format!("{name} element {i}: {g}, expected {w}"));
            }
        }
    } else {
        for (i, (g, w)) in got.to_json_values().iter().zip(&want).enumerate() {
            if g != w {
                return Err(format!("{name} element {i}: {g}, expected {w}"));
            }
        }
    }
    Ok(())
}

/// How one case went on one target.
enum Outcome {
    Matched,
    /// The target's legality table rejects the case (its first diagnostic).
    Illegal(String),
    NotExecutable(String),
    Mismatch(String),
}

fn run_case(case: &Value, target: &'static Target, check_legality: bool) -> Outcome {
    let m = match parse_case(case) {
        Ok((m, _)) => m,
        Err(e) => return Outcome::Mismatch(e),
    };
    if check_legality {
        let diags = pto_lower::legalize::check_module(&m, pto_lower::legality::table(target.id));
        if let Some(d) = diags.0.iter().find(|d| d.is_error()) {
            return Outcome::Illegal(d.message.clone());
        }
    }
    let mut sim = match Sim::new(&m, target) {
        Ok(s) => s,
        Err(d) => return Outcome::Mismatch(format!("{d:?}")),
    };
    if let Err(e) = bind_inputs(case, &mut sim) {
        return Outcome::Mismatch(e);
    }
    if let Err(d) = sim.run() {
        return if d.message.contains("not executable by the simulator yet") {
            Outcome::NotExecutable(d.message)
        } else {
            Outcome::Mismatch(format!("run: {} {}", d.class, d.message))
        };
    }
    if let Some(expected) = case.get("stdout").and_then(Value::as_str) {
        // `tprint`: the printed text, exactly.
        return if sim.printed == expected {
            Outcome::Matched
        } else {
            Outcome::Mismatch(format!("printed\n{}\nexpected\n{expected}", sim.printed))
        };
    }
    let op = case["op"].as_str().unwrap_or("");
    let id = case["case"].as_str().unwrap_or("");
    for out in case["operands"].as_array().into_iter().flatten().filter(|o| o["role"] == "out") {
        let got = match read_output(&sim, out) {
            Ok(g) => g,
            Err(e) => return Outcome::Mismatch(e),
        };
        if let Err(e) = compare(op, id, out, &got) {
            return Outcome::Mismatch(e);
        }
    }
    Outcome::Matched
}

#[test]
fn every_golden_case_matches_on_both_targets() {
    let Some(entries) = case_files() else { return };
    let cases = entries.len();
    let mut passed = 0;
    let mut failures = Vec::new();
    for path in entries {
        let case = load(&path);
        for id in [TargetId::A2A3, TargetId::A5] {
            match run_case(&case, Target::get(id), false) {
                Outcome::Matched => passed += 1,
                Outcome::Illegal(e) | Outcome::NotExecutable(e) | Outcome::Mismatch(e) => {
                    failures.push(format!("{} on {id:?}: {e}", case["case"]))
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert_eq!(cases, 111, "the golden README lists 111 cases");
    assert_eq!(passed, 2 * cases, "every case runs on both targets");
}

#[test]
fn every_oracle_vector_of_tests_golden_matches_where_legal() {
    let known: BTreeMap<&str, &str> = KNOWN_MISMATCHES.iter().copied().collect();
    let (mut vectors, mut matched, mut skipped) = (0, 0, 0);
    let mut instructions = BTreeSet::new();
    let mut not_yet_seen = BTreeSet::new();
    let mut known_seen = BTreeSet::new();
    let mut illegal_everywhere = Vec::new();
    let mut npu_rejected: BTreeSet<&str> = BTreeSet::new();
    let mut failures = Vec::new();
    let mut coverage: BTreeMap<String, [usize; 2]> = BTreeMap::new();
    for path in oracle_case_files("cases") {
        let case = load(&path);
        let id = case["case"].as_str().unwrap_or("").to_string();
        let op = case["op"].as_str().unwrap_or("").to_string();
        assert_eq!(path.file_stem().and_then(|s| s.to_str()), Some(id.as_str()), "case id = file name");
        vectors += 1;
        instructions.insert(op.clone());
        let mut legal_somewhere = false;
        let mut illegal = Vec::new();
        for (column, target) in [TargetId::A2A3, TargetId::A5].into_iter().enumerate() {
            match run_case(&case, Target::get(target), true) {
                Outcome::Matched => {
                    legal_somewhere = true;
                    matched += 1;
                    coverage.entry(op.clone()).or_default()[column] += 1;
                }
                Outcome::Illegal(e) => illegal.push(format!("{target:?}: {e}")),
                Outcome::NotExecutable(e) => {
                    legal_somewhere = true;
                    skipped += 1;
                    if NOT_EXECUTABLE_YET.contains(&op.as_str()) {
                        not_yet_seen.insert(op.clone());
                    } else {
                        failures.push(format!("{id} on {target:?}: {e} (add `{op}` to NOT_EXECUTABLE_YET?)"));
                    }
                }
                Outcome::Mismatch(e) => {
                    legal_somewhere = true;
                    if let Some(key) = [id.as_str(), op.as_str()].into_iter().find(|k| known.contains_key(k)) {
                        known_seen.insert(key.to_string());
                    } else {
                        failures.push(format!("{id} on {target:?}: {e}"));
                    }
                }
            }
        }
        if !legal_somewhere {
            match NPU_REJECTS.iter().find(|(prefix, _)| id.starts_with(prefix)) {
                Some((prefix, _)) => {
                    npu_rejected.insert(*prefix);
                }
                None => illegal_everywhere.push(format!("{id} ({})", illegal.join("; "))),
            }
        }
    }
    for op in NOT_EXECUTABLE_YET.iter().filter(|op| !not_yet_seen.contains(**op)) {
        failures.push(format!("`{op}` is in NOT_EXECUTABLE_YET but none of its cases says so: remove it"));
    }
    for (id, _) in KNOWN_MISMATCHES.iter().filter(|(id, _)| !known_seen.contains(*id)) {
        failures.push(format!("{id} is in KNOWN_MISMATCHES but matches (or is gone): remove it"));
    }
    println!(
        "{vectors} vectors, {} instructions, {matched} matched, {skipped} skipped (not executable yet: {}), {} known mismatches",
        instructions.len(),
        not_yet_seen.iter().cloned().collect::<Vec<_>>().join(", "),
        known_seen.len()
    );
    assert!(illegal_everywhere.is_empty(), "cases legal on no target:\n{}", illegal_everywhere.join("\n"));
    let stale: Vec<&str> = NPU_REJECTS.iter().map(|(p, _)| *p).filter(|p| !npu_rejected.contains(p)).collect();
    assert!(stale.is_empty(), "NPU_REJECTS prefixes whose cases are legal now (or gone): {stale:?}");
    assert!(failures.is_empty(), "{} failures:\n{}", failures.len(), failures.join("\n"));
    assert!(vectors > 0, "tests/golden/cases holds vectors");
    check_coverage_table(&coverage);
}

/// Compares the matched vectors per instruction and target with `tests/golden/coverage.tsv`
/// (rewritten instead when `PTO_UPDATE_GOLDEN_COVERAGE` is set).
fn check_coverage_table(coverage: &BTreeMap<String, [usize; 2]>) {
    let mut table =
        String::from("# op\tA2A3\tA5 (golden vectors of tests/golden/cases matched; pto-sim/tests/golden.rs writes this file)\n");
    for (op, [a2a3, a5]) in coverage {
        table.push_str(&format!("{op}\t{a2a3}\t{a5}\n"));
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/golden/coverage.tsv");
    if std::env::var_os("PTO_UPDATE_GOLDEN_COVERAGE").is_some() {
        std::fs::write(&path, &table).expect("write tests/golden/coverage.tsv");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == table,
        "tests/golden/coverage.tsv is stale: rerun with PTO_UPDATE_GOLDEN_COVERAGE=1, then regenerate docs/isa-coverage.md"
    );
}
