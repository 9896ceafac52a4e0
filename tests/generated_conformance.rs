//! Conformance by difference (issue 40): the generated set (`pto ops --generate`, seed 1) against
//! `ptoas`'s recorded verdicts and C++ (`tests/data/generated/ptoas.tsv`).
//!
//! For every recorded (program, target):
//!
//! * **verdict**: `ptoas` accepted (exit 0, C++ written) ⇔ `pto verify --target` accepts;
//! * **C++**: where both accept, `pto compile`'s pto-isa calls against `ptoas`'s, in order, after
//!   normalising both ([`calls`]: the callee and its template arguments; value names, types'
//!   spellings and argument lists are not compared).
//!
//! A disagreement is accounted for when [`DISPUTES`] lists its class (op, target, which side
//! accepts) with both sources and the side pto takes; the test prints every class with its
//! count, and fails on a class that is not listed, on a listed class that no longer occurs (so
//! the list stays exact), and when the agreement falls below [`FLOOR`]. Programs the data does
//! not cover (the generator grew since it was recorded) are counted and printed as not checked.

use pto::cmd::compile::{CompileOptions, run as compile};
use pto::cmd::run::{RunOptions, run as pto_run};
use pto::cmd::verify::{VerifyOptions, run as verify};
use pto::op_info::generate::programs;
use std::collections::{BTreeMap, HashMap};

/// The recorded references.
const DATA: &str = include_str!("data/generated/ptoas.tsv");

/// Verdict agreement each target must keep, in percent, counting the disagreements a
/// [`DISPUTES`] entry settles by pto-isa's implementation as agreement (the measured value,
/// rounded down).
const FLOOR: f64 = 88.0;

/// How many disagreements no [`DISPUTES`] entry accounts for, at most (the measured count: a fix
/// lowers it, a regression fails the test).
const UNLISTED_CEILING: usize = 264;

/// A class of disagreement pto keeps, with both sources.
struct Dispute {
    /// The op (`pto.tadd`), or `*` for any.
    op: &'static str,
    /// `pto-rejects` (ptoas accepts, pto rejects) or `pto-accepts`.
    dir: &'static str,
    /// Text the reason contains: pto's first error (`pto-rejects`) or ptoas's (`pto-accepts`).
    reason: &'static str,
    /// pto-isa's implementation decides it for pto's side (a `static_assert`, an assert, no
    /// matching overload, or an instruction `ptoas` does not have): counted as agreement.
    settled: bool,
    /// Both sources and the side pto takes.
    why: &'static str,
}

/// `Dispute` with the fields in order.
const fn dispute(op: &'static str, dir: &'static str, reason: &'static str, settled: bool, why: &'static str) -> Dispute {
    Dispute { op, dir, reason, settled, why }
}

const REJ: &str = "pto-rejects";
const ACC: &str = "pto-accepts";

/// The disputes, most specific first.
const DISPUTES: &[Dispute] = &[
    // ---- pto rejects what ptoas accepts ----
    dispute(
        "*",
        REJ,
        "row-major rows must be",
        true,
        "pto-isa's Tile static_assert: a row-major NoneBox tile's rows are 32-byte aligned (include/pto/common/pto_tile.hpp:1524-1533); ptoas's verifiers do not check it",
    ),
    dispute(
        "*",
        REJ,
        "cols must be a multiple of the inner box width",
        true,
        "pto-isa's Tile static_assert (include/pto/common/pto_tile.hpp:1520); ptoas does not check it",
    ),
    dispute(
        "*",
        REJ,
        "is not available on a2a3",
        true,
        "pto-isa has no A2A3 implementation of the instruction (e.g. TMATMUL_MX_IMPL only in npu/a5/TMatmul.hpp), so its C++ has no matching function on A2A3; ptoas's verifier does not check the target",
    ),
    dispute(
        "*",
        REJ,
        "LEGAL_BUFFER_OVERFLOW",
        true,
        "pto-isa's TASSIGN static_asserts a tile inside its buffer (include/pto/common/tassign_check.hpp:157-170, SA-0352/SA-0353); ptoas's PlanMemory does not bound these tiles",
    ),
    dispute(
        "*",
        REJ,
        "must have the same element type",
        false,
        "the op table's dtype groups (the ISA pages; e.g. pto-isa npu/a2a3/TAdd.hpp:59-61 static_asserts one element type): ptoas's verifiers of these ops do not compare them; not yet checked op by op against pto-isa",
    ),
    dispute(
        "*",
        REJ,
        "must have the same valid shape",
        false,
        "the ISA pages and pto-isa's debug asserts (e.g. npu/a2a3/TAdd.hpp:72-77, TAddS.hpp:60-61 PTO_ASSERT) require equal valid shapes; ptoas's verifiers do not: a runtime assert, not a compile error",
    ),
    dispute(
        "*",
        REJ,
        "DN (col_major/none_box)",
        false,
        "pto-isa's elementwise instructions static_assert row-major tiles (e.g. npu/a2a3/TAdd.hpp:67-69; 64 npu/a2a3 files assert isRowMajor); ptoas's verifiers of these ops do not check the layout; not yet checked op by op",
    ),
    dispute(
        "*",
        REJ,
        "is not supported on a",
        false,
        "a tile in a location (or layout) the op's ISA page and pto's legality tables do not list for it (vector instructions read UB tiles; pto-isa asserts TileType::Vec in e.g. npu/a2a3/TAddS.hpp:58 but not in npu/a2a3/TAdd.hpp); ptoas's verifiers of these ops do not check locations",
    ),
    // ---- pto accepts what ptoas rejects ----
    dispute(
        "*",
        ACC,
        "is unknown",
        true,
        "an instruction of pto-isa (its docs/isa page and npu implementation) that PTOAS's dialect does not define; pto implements pto-isa's ISA",
    ),
    dispute(
        "*",
        ACC,
        "type `group` in dialect `pto`",
        true,
        "pto-isa's communication instructions (docs/isa/comm/*.md, include/pto/comm/) over a ParallelGroup; PTOAS's dialect has no comm ops or group type",
    ),
    dispute(
        "pto.tci",
        ACC,
        "expected ':'",
        true,
        "pto-isa's TCI overload with a scratch tile (include/pto/common/pto_instr.hpp:1237, TCI(dst, start, tmp)); PTOAS's tci takes no tmp (PTOOps.td TCIOp)",
    ),
    dispute(
        "*",
        ACC,
        "unknown attribute `coalesce`",
        true,
        "pto-isa's MGATHER/MSCATTER template parameters (Coalesce, GatherOOB/ScatterOOB, atomic op: include/pto/common/pto_instr.hpp:2150-2161); PTOAS's mgather/mscatter have no such attributes",
    ),
    dispute(
        "*",
        ACC,
        "is only supported on A5 targets",
        true,
        "pto-isa implements MGATHER/MSCATTER on A2A3 (include/pto/npu/a2a3/MGather.hpp, MScatter.hpp); ptoas's verifier restricts them to A5",
    ),
    dispute(
        "*",
        ACC,
        "type `fmatrix_config` in dialect `pto`",
        true,
        "pto-isa's IMG2COL configuration instructions (docs/isa/SETFMATRIX.md, SET_IMG2COL_RPT.md, SET_IMG2COL_PADDING.md) over an FMATRIX configuration; PTOAS's dialect has no such type",
    ),
    dispute(
        "pto.tsync",
        ACC,
        "type `event` in dialect `pto`",
        true,
        "pto-isa's TSYNC(events...) waits for the RecordEvents of earlier instructions (common/pto_instr.hpp, TSYNC); PTOAS's tsync has no event operands (no !pto.event type)",
    ),
    dispute(
        "pto.tsels",
        ACC,
        "operand #2 must be",
        false,
        "the ISA page's operand order (docs/isa/TSELS.md: mask, src, scalar, tmp); PTOAS's ODS puts tmp before the scalar (PTOOps.td:5198), which pto reads too",
    ),
    dispute(
        "pto.tquant",
        ACC,
        "must not have an offset operand",
        false,
        "pto reads the third operand of an INT8_SYM tquant as the A2A3 implementation's scratch tile (pto-isa npu/a2a3/TQuant.hpp:22-24, TQUANT_IMPL(dst, src, scale, tmp, offset)); PTOAS's tquant has no tmp and reads it as the offset",
    ),
    dispute(
        "pto.tsetval",
        ACC,
        "expected ':'",
        false,
        "pto's first form `tsetval ins(%dst, %index, %value)` (no ISA page has TSETVAL); PTOAS's `ins(%offset, %val) outs(%dst)`, which pto reads too",
    ),
    dispute(
        "pto.trandom",
        ACC,
        "expected ','",
        false,
        "pto's first form writes pto-isa's TRandomKey / TRandomCounter objects (TRANDOM(dst, key, counter), common/pto_instr.hpp:719-723) as tiles; PTOAS's trandom takes the six key and counter scalars, which pto reads too",
    ),
    dispute(
        "*",
        ACC,
        "expects tmp to use the row_major blayout",
        false,
        "pto-isa addresses the arg-reduction scratch as one flat buffer (npu/a2a3/TColReduceIdx.hpp, TRowReduceIdxOps.hpp: no assert on its layout); PTOAS's verifier asks for a row-major tmp",
    ),
    dispute(
        "*",
        ACC,
        "expects src and tmp to have the same element type",
        false,
        "pto-isa addresses the arg-reduction scratch as one flat buffer of bytes (npu/a2a3/TColReduceIdx.hpp: no assert on its element type); PTOAS's verifier asks for src's element type",
    ),
];

/// One recorded row.
struct Row {
    name: String,
    /// FNV-1a 64 of the program text `ptoas` read: a row whose program changed since is stale.
    hash: String,
    target: String,
    /// `ptoas` wrote C++ (verdict `OK`; else `REJECT`).
    ok: bool,
    error: String,
    calls: Vec<String>,
}

fn rows() -> Vec<Row> {
    DATA.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            // A crash or time-out of `ptoas` gives no reference: not checked.
            (f.len() >= 6 && matches!(f[3], "OK" | "REJECT")).then(|| Row {
                name: f[0].to_string(),
                hash: f[1].to_string(),
                target: f[2].to_string(),
                ok: f[3] == "OK",
                error: f[5].to_string(),
                calls: f
                    .get(6)
                    .map(|c| c.split(" ; ").filter(|s| !s.is_empty() && *s != "TASSIGN").map(str::to_string).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// The pto-isa calls of emitted C++, normalised: each statement that calls an instruction
/// (`TADD(...)`, `TSTORE<...>(...)`) or a sync intrinsic (`set_flag`, `wait_flag`,
/// `pipe_barrier`...), as its callee (the recording harness applies the same rule to `ptoas`'s
/// C++; docs/conformance.md).
fn calls(cpp: &str) -> Vec<String> {
    const SYNC: &[&str] = &["set_flag", "wait_flag", "pipe_barrier", "ffts_cross_core_sync", "wait_flag_dev"];
    // `ptoas` writes its `ptoas_auto_sync_tail` helper into every file, used or not: not a call
    // of the kernel.
    let mut kept = String::new();
    let mut skip = false;
    for line in cpp.lines() {
        skip |= line.starts_with("static AICORE inline void ptoas_auto_sync_tail(");
        if !skip {
            kept.push_str(line);
            kept.push('\n');
        } else if line == "}" {
            skip = false;
        }
    }
    let mut out = Vec::new();
    for stmt in kept.split(';') {
        let s = stmt.trim();
        let s = s.rsplit('\n').next().unwrap_or(s).trim();
        let callee_end = s.find(['(', '<']).unwrap_or(s.len());
        let callee = &s[..callee_end];
        let is_instr =
            callee.len() > 1 && callee.starts_with('T') && callee.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        // `TASSIGN` binds a declared tile to its address: how a tile is declared (`ptoas` declares
        // a tile with a smaller valid shape as a second tile over the first one's bytes), not an
        // instruction the kernel runs.
        if (!is_instr && !SYNC.contains(&callee)) || callee == "TASSIGN" {
            continue;
        }
        out.push(callee.to_string());
    }
    out
}

fn target_flag(t: &str) -> pto::TargetName {
    if t == "a5" { pto::TargetName::A5 } else { pto::TargetName::A2A3 }
}

#[test]
fn generated_set_agrees_with_ptoas() {
    let set = programs(1);
    let recorded: HashMap<(String, String), Row> = rows().into_iter().map(|r| ((r.name.clone(), r.target.clone()), r)).collect();
    let dir = std::env::temp_dir().join(format!("pto-generated-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut checked, mut unrecorded) = (0usize, 0usize);
    // target -> (agree, total, disagreements settled by pto-isa).
    let mut agree: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut used = vec![0usize; DISPUTES.len()];
    let mut unlisted = 0usize;
    let (mut cpp_same, mut cpp_both) = (0usize, 0usize);
    let mut classes: BTreeMap<(String, String, &str), Vec<String>> = BTreeMap::new();
    let mut cpp_diffs: Vec<String> = Vec::new();
    let mut refused: BTreeMap<String, usize> = BTreeMap::new();
    let mut cover: BTreeMap<(String, &str), Coverage> = BTreeMap::new();
    for p in &set {
        let path = dir.join(format!("{}.pto", p.name));
        std::fs::write(&path, &p.text).unwrap();
        let input = path.to_string_lossy().to_string();
        for target in ["a2a3", "a5"] {
            let v = verify(&VerifyOptions { input: input.clone(), target: Some(target_flag(target)), ..VerifyOptions::default() });
            assert!(v.code <= 1, "pto verify --target {target} {}: exit {} {}", p.name, v.code, v.stderr);
            let pto_ok = v.code == 0;
            // What pto accepts, `pto compile` writes or refuses with a located diagnostic.
            let c = pto_ok
                .then(|| compile(&CompileOptions { input: input.clone(), target: Some(target_flag(target)), ..CompileOptions::default() }));
            if let Some(c) = &c {
                assert!(c.code <= 1, "pto compile --target {target} {}: exit {} {}", p.name, c.code, c.stderr);
                if c.code != 0 {
                    assert!(c.stderr.contains(".pto:"), "pto compile's refusal of {} is not located: {}", p.name, c.stderr);
                    *refused.entry(p.op.full_name()).or_default() += 1;
                }
            }
            let cell = cover.entry((p.op.full_name(), target)).or_default();
            cell.programs += 1;
            if pto_ok && p.kind == "base" {
                cell.dtypes.extend(base_dtypes(&p.name));
            }
            let Some(row) = recorded.get(&(p.name.clone(), target.to_string())).filter(|r| r.hash == fnv1a(&p.text)) else {
                unrecorded += 1;
                continue;
            };
            checked += 1;
            let entry = agree.entry(if target == "a5" { "a5" } else { "a2a3" }).or_default();
            entry.1 += 1;
            let cell = cover.entry((p.op.full_name(), target)).or_default();
            cell.checked += 1;
            cell.agree += usize::from(pto_ok == row.ok);
            let op = p.op.full_name();
            if pto_ok != row.ok {
                let dir = if row.ok { "pto-rejects" } else { "pto-accepts" };
                let why = if row.ok { first_error(&v.stderr) } else { row.error.clone() };
                match DISPUTES.iter().position(|d| d.dir == dir && (d.op == "*" || d.op == op) && why.contains(d.reason)) {
                    Some(i) => {
                        used[i] += 1;
                        if DISPUTES[i].settled {
                            entry.2 += 1;
                            cover.entry((p.op.full_name(), target)).or_default().settled += 1;
                        }
                    }
                    None => {
                        unlisted += 1;
                        classes.entry((op, target.to_string(), dir)).or_default().push(format!("{}: {why}", p.name));
                    }
                }
                continue;
            }
            entry.0 += 1;
            if let Some(c) = c.filter(|_| row.ok) {
                cpp_both += 1;
                let ours = calls(&c.stdout);
                if c.code == 0 && ours == row.calls {
                    cpp_same += 1;
                } else {
                    cpp_diffs.push(format!(
                        "{} [{target}]: ptoas {:?} / pto {:?} {}",
                        p.name,
                        row.calls,
                        ours,
                        c.stderr.lines().next().unwrap_or("")
                    ));
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    println!(
        "generated set (seed 1): {} programs; {checked} (program, target) pairs checked against ptoas, {unrecorded} without a recorded verdict for their text (not checked)",
        set.len()
    );
    for (t, (a, n, settled)) in &agree {
        let pct = |k: usize| 100.0 * k as f64 / (*n).max(1) as f64;
        println!(
            "verdicts {t}: {a}/{n} agree ({:.1} %); {:.1} % counting the {settled} disagreements pto-isa's implementation settles",
            pct(*a),
            pct(a + settled)
        );
    }
    for (d, n) in DISPUTES.iter().zip(&used) {
        println!(
            "dispute ({n} program(s), {}): {} {} `{}`: {}",
            if d.settled { "settled by pto-isa" } else { "open" },
            d.op,
            d.dir,
            d.reason,
            d.why
        );
    }
    println!("{unlisted} disagreement(s) no dispute accounts for, in {} classes:", classes.len());
    println!("C++ calls equal on {cpp_same}/{cpp_both} programs both accept");
    println!("pto compile refuses (COMPILE_UNSUPPORTED) what pto verify accepts: {refused:?}");
    for ((op, target, dir), names) in &classes {
        println!("UNLISTED {op} [{target}] {dir}: {} program(s), e.g. {}", names.len(), names[0]);
        // `PTO_CONFORMANCE_DETAIL=1`: every program of the class.
        if std::env::var_os("PTO_CONFORMANCE_DETAIL").is_some() {
            for n in &names[1..] {
                println!("    {n}");
            }
        }
    }
    for d in &cpp_diffs {
        println!("C++ differs: {d}");
    }
    check_coverage_doc(&cover);
    let stale: Vec<String> =
        DISPUTES.iter().zip(&used).filter(|(_, n)| **n == 0).map(|(d, _)| format!("{} {} `{}`", d.op, d.dir, d.reason)).collect();
    assert!(stale.is_empty(), "listed disputes that no longer occur: {stale:?}");
    for (t, (a, n, settled)) in &agree {
        let pct = 100.0 * (a + settled) as f64 / (*n).max(1) as f64;
        assert!(pct >= FLOOR, "verdict agreement on {t} fell to {pct:.1} % (floor {FLOOR} %)");
    }
    assert!(unlisted <= UNLISTED_CEILING, "{unlisted} disagreements no dispute accounts for (ceiling {UNLISTED_CEILING})");
    assert!(recorded.is_empty() || checked > 0, "no recorded row names a program of today's set");
    // The data must describe the set: a generator change re-records it (docs/conformance.md).
    assert!(unrecorded * 20 <= set.len() * 2, "{unrecorded} (program, target) pairs have no recorded verdict for their text: re-record");
}

/// FNV-1a 64 of `text`, as the recording harness hashes each program file.
fn fnv1a(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The first error line of a rendered diagnostic list (`error[CLASS]: message`).
fn first_error(stderr: &str) -> String {
    stderr.lines().find(|l| l.starts_with("error")).or_else(|| stderr.lines().next()).unwrap_or("").to_string()
}

/// (op, why) for the ops whose accepted generated bases `pto run` does not execute: the gaps
/// left, each with why. The test fails when a gap closes (remove it) or a new one opens.
const RUN_GAPS: &[(&str, &str)] = &[
    // The program, not the tool: generated tiles hold zeros, and integer division by zero traps.
    ("pto.tdiv", "integer division by zero: the generated i32 tiles hold zeros"),
    ("pto.tdivs", "integer division by zero: the generated tiles and scalar hold zeros"),
    ("pto.tfmod", "integer remainder by zero: the generated i32 tiles hold zeros"),
    ("pto.trem", "integer remainder by zero: the generated i32 tiles hold zeros"),
    // One kernel cannot give what the op needs from another core, rank or configuration.
    ("pto.comm.twait", "waits for a signal no rank of the one-op kernel sets"),
    ("pto.comm.tgather", "the generated dst holds one member's elements, not the group's"),
    ("pto.comm.tscatter", "the generated src holds one member's elements, not the group's"),
    ("pto.timg2col", "reads FMATRIX_A, which no setfmatrix of the one-op kernel wrote"),
    ("pto.setfmatrix", "the generated `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_rpt", "the generated `!pto.fmatrix_config` spells no configuration"),
    ("pto.set_img2col_padding", "the generated `!pto.fmatrix_config` spells no configuration"),
    // Legality accepts what the simulator refuses: a gap of one or the other (issue 39).
    ("pto.tadddeqrelu", "legality accepts f32 -> f32; the simulator follows the page's i32 -> f16"),
    ("pto.taddreluconv", "legality accepts f32 -> f32; the simulator follows the page's f32->f16, f16->i8, i16->i8"),
    ("pto.tcmps", "legality accepts a non-8-bit mask; the simulator's compare masks are 8-bit"),
    ("pto.tfillpad", "legality accepts differing src/dst element types; the simulator copies one type"),
    ("pto.tfillpad_expand", "legality accepts differing src/dst element types; the simulator copies one type"),
    ("pto.tfillpad_inplace", "legality accepts differing src/dst element types; the simulator copies one type"),
    ("pto.tgather", "legality accepts a mask-form dst of another element type; the simulator copies one type"),
    ("pto.textract_fp", "legality accepts an i16 quant tile; the simulator's quant tiles hold 64-bit words or float scales"),
    ("pto.tinsert_fp", "legality accepts an i16 quant tile; the simulator's quant tiles hold 64-bit words or float scales"),
    ("pto.tmrgsort", "legality accepts a destination smaller than the merged lists"),
    ("pto.tsort32", "legality accepts destination rows too short for the sorted pairs"),
    ("pto.tload", "the simulator takes two-dimensional offsets only"),
    ("pto.tmov", "the pre-quantising forms (a scaling tile or a scalar) are not simulated yet"),
    ("pto.tprint", "the simulator prints tiles, not GM views"),
    ("pto.tpack", "not simulated yet"),
];

/// Every generated program built to be legal (`base`, `optional`, `module`) that `pto verify
/// --target T` accepts also runs there (`pto run --default-inputs`): what legality accepts, the
/// simulator executes, for every operand form of every op on both targets. Prints the failures
/// by op; [`RUN_GAPS`] lists the ops allowed to fail, with why.
#[test]
fn every_accepted_generated_base_runs() {
    let set = programs(1);
    let dir = std::env::temp_dir().join(format!("pto-generated-run-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut ran, mut by_op): (usize, BTreeMap<String, Vec<String>>) = (0, BTreeMap::new());
    for p in set.iter().filter(|p| matches!(p.kind, "base" | "optional" | "module")) {
        let path = dir.join(format!("{}.pto", p.name));
        std::fs::write(&path, &p.text).unwrap();
        let input = path.to_string_lossy().to_string();
        for target in ["a2a3", "a5"] {
            let v = verify(&VerifyOptions { input: input.clone(), target: Some(target_flag(target)), ..VerifyOptions::default() });
            if v.code != 0 {
                continue;
            }
            ran += 1;
            let out_dir = dir.join(format!("{}.{target}.out", p.name));
            let opts = RunOptions {
                default_inputs: true,
                quiet: true,
                output_dir: Some(out_dir.to_string_lossy().to_string()),
                ..RunOptions::new(input.clone(), target_flag(target))
            };
            let r = pto_run(&opts);
            assert!(r.code <= 1, "pto run --target {target} {}: exit {} {}", p.name, r.code, r.stderr);
            if r.code != 0 {
                by_op.entry(p.op.full_name()).or_default().push(format!("{} [{target}]: {}", p.name, first_error(&r.stderr)));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    let failed: usize = by_op.values().map(Vec::len).sum();
    println!("pto run on the accepted generated bases: {ran} (program, target) pairs, {failed} fail, in {} ops", by_op.len());
    for (op, fails) in &by_op {
        let listed = RUN_GAPS.iter().find(|(o, _)| o == op).map_or("UNLISTED", |(_, why)| why);
        println!("{op} ({} fail; {listed}): e.g. {}", fails.len(), fails[0]);
    }
    let unlisted: Vec<&String> = by_op.keys().filter(|op| !RUN_GAPS.iter().any(|(o, _)| o == op)).collect();
    let closed: Vec<&str> = RUN_GAPS.iter().map(|(o, _)| *o).filter(|o| !by_op.contains_key(*o)).collect();
    assert!(closed.is_empty(), "these ops run now: remove them from RUN_GAPS: {closed:?}");
    assert!(unlisted.is_empty(), "accepted generated programs that pto run stops on, by op: {unlisted:?}");
}

/// One (op, target) cell of the coverage table.
#[derive(Default)]
struct Coverage {
    /// Generated programs of the op.
    programs: usize,
    /// Of them, checked against a recorded `ptoas` verdict.
    checked: usize,
    /// Verdicts equal.
    agree: usize,
    /// Disagreements pto-isa's implementation settles.
    settled: usize,
    /// Element types of the bases `pto verify` accepts.
    dtypes: std::collections::BTreeSet<String>,
}

/// The element types a base program's name lists (`tadd.f0.base-a2a3-0-f32-f32-f32`).
fn base_dtypes(name: &str) -> Vec<String> {
    let Some(rest) = name.split(".base-").nth(1) else { return Vec::new() };
    rest.split('-').skip(2).filter(|d| !d.is_empty() && *d != "index").map(str::to_string).collect()
}

/// `docs/conformance-coverage.md`: per op and target, the generated programs, the verdict
/// agreement with `ptoas` (and with the disagreements pto-isa settles), and the element types of
/// the accepted bases. Regenerate with `PTO_REGENERATE_DOCS=1 cargo test --test generated_conformance`.
fn check_coverage_doc(cover: &BTreeMap<(String, &str), Coverage>) {
    use std::fmt::Write as _;
    let mut doc = String::from(
        "# Generated conformance set: coverage by op, target and element type\n\n<!-- Generated by tests/generated_conformance.rs from `pto ops --generate` (seed 1) and tests/data/generated/ptoas.tsv; do not edit.\n     Regenerate with: PTO_REGENERATE_DOCS=1 cargo test --test generated_conformance -->\n\n",
    );
    doc.push_str("Per op and target: how many generated programs, how many of them `pto verify` and `ptoas` judge alike (and, after\n");
    doc.push_str("`+`, how many more disagreements pto-isa's implementation settles), and the element types of the legal bases `pto`\n");
    doc.push_str("accepts (of its tiles, views and scalars). [conformance.md](conformance.md) says how the set is made.\n\n");
    doc.push_str("| op | A2A3 programs | A2A3 agree | A2A3 element types | A5 programs | A5 agree | A5 element types |\n|---|---|---|---|---|---|---|\n");
    let ops: std::collections::BTreeSet<&String> = cover.keys().map(|(op, _)| op).collect();
    for op in ops {
        let mut cells = Vec::new();
        for target in ["a2a3", "a5"] {
            match cover.get(&(op.clone(), target)) {
                Some(c) => {
                    let agree = if c.settled > 0 {
                        format!("{}+{} / {}", c.agree, c.settled, c.checked)
                    } else {
                        format!("{} / {}", c.agree, c.checked)
                    };
                    let dtypes =
                        if c.dtypes.is_empty() { "—".to_string() } else { c.dtypes.iter().cloned().collect::<Vec<_>>().join(" ") };
                    cells.push(format!("{} | {agree} | {dtypes}", c.programs));
                }
                None => cells.push("0 | — | —".to_string()),
            }
        }
        let _ = writeln!(doc, "| `{op}` | {} | {} |", cells[0], cells[1]);
    }
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance-coverage.md");
    if std::env::var_os("PTO_REGENERATE_DOCS").is_some() {
        std::fs::write(&path, &doc).unwrap();
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == doc,
        "docs/conformance-coverage.md is out of date with the generated set; regenerate it with\n    PTO_REGENERATE_DOCS=1 cargo test --test generated_conformance"
    );
}
