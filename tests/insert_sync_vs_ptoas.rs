//! `pto lower --insert-sync` against `ptoas --enable-insert-sync` on the shared samples (issue 24,
//! acceptance 2): the set/wait/barrier ops pto inserts, counted per sample and target, against the
//! static counts of the C++ of a locally built `ptoas` (commit a56b18c3), committed as data in
//! `tests/data/ptoas-insert-sync-counts.tsv` (its header says how they were made).
//!
//! For every shared sample without an explicit sync op, on A2A3 (`ptoas --pto-arch a3`) and A5
//! (`--pto-arch a5`), where both tools produce output, the test prints a table (`--nocapture`)
//! and asserts that
//!
//! * pto never inserts more `barrier <PIPE_ALL>` than `ptoas` writes `pipe_barrier(PIPE_ALL)`
//!   in the kernel body (not counting the one at the function's end: `ptoas` always ends a
//!   function it synchronised with `ptoas_auto_sync_tail`, a `PIPE_ALL` barrier that pto does
//!   not insert; [`PtoasRow::tail`]);
//! * the share of samples where pto's total (sets + waits + barriers) is at most `ptoas`'s, the
//!   tail barrier left out of `ptoas`'s, is at least [`MIN_SHARE_AT_MOST_PTOAS`] (the share with
//!   the tail counted in is printed too);
//! * the data covers every sample pto sees without sync, on both targets (stale data fails).

use pto_ir::attr::{Attr, EnumAttr};
use pto_ir::module::Module;
use pto_ir::ops::Opcode;
use pto_ir::verify::Verified;
use pto_lower::{Target, TargetId};
use std::collections::HashMap;

mod common;

/// `ptoas`'s counts, from the oracle (see the file's header).
const DATA: &str = include_str!("data/ptoas-insert-sync-counts.tsv");

/// The share (in %) of (sample, target) pairs where pto's count is at most `ptoas`'s: 177 of 180
/// (98.3 %) measured at this commit, so one more sample above `ptoas` fails (the target is
/// 90 %).
const MIN_SHARE_AT_MOST_PTOAS: f64 = 98.3;

/// Sync ops counted in one program.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    set: usize,
    wait: usize,
    /// Barriers of one pipe.
    barrier: usize,
    /// `PIPE_ALL` barriers.
    pipe_all: usize,
}

impl Counts {
    fn total(&self) -> usize {
        self.set + self.wait + self.barrier + self.pipe_all
    }
}

/// One row of the data: `ptoas`'s C++ for a (sample, arch).
#[derive(Debug)]
struct PtoasRow {
    /// `None` when `ptoas` rejected the sample (the row's status says why).
    body: Option<Counts>,
    /// Calls of `ptoas_auto_sync_tail` at the function ends: (barrier-all mode, MTE3 → S
    /// set/wait mode). Not in `body`.
    tail: (usize, usize),
}

/// The data's rows by (sample, target).
fn ptoas_rows() -> HashMap<(String, TargetId), PtoasRow> {
    let mut rows = HashMap::new();
    let mut lines = DATA.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<&str> = lines.next().expect("a header row").split('\t').collect();
    assert_eq!(
        header,
        ["sample", "arch", "level", "status", "set_flag", "wait_flag", "pipe_barrier", "pipe_all", "tail_barrier_all", "tail_mte3_s"]
    );
    for l in lines {
        let c: Vec<&str> = l.split('\t').collect();
        assert_eq!(c.len(), header.len(), "row `{l}`");
        let target = match c[1] {
            "a3" => TargetId::A2A3,
            "a5" => TargetId::A5,
            other => panic!("unknown arch `{other}` in `{l}`"),
        };
        let n = |i: usize| c[i].parse::<usize>().unwrap_or_else(|_| panic!("column {} of `{l}` is not a count", header[i]));
        let row = if c[3] == "OK" {
            PtoasRow { body: Some(Counts { set: n(4), wait: n(5), barrier: n(6), pipe_all: n(7) }), tail: (n(8), n(9)) }
        } else {
            assert!(c[3].starts_with("FAIL"), "status of `{l}`");
            PtoasRow { body: None, tail: (0, 0) }
        };
        assert!(rows.insert((c[0].to_string(), target), row).is_none(), "duplicate row `{l}`");
    }
    rows
}

/// The sync ops of `m`.
fn count(m: &Module) -> Counts {
    let all = Attr::Enum(EnumAttr::new("pipe", "PIPE_ALL").expect("PIPE_ALL is a pipe"));
    let mut c = Counts::default();
    for op in m.walk() {
        let d = m.op(op);
        match d.opcode {
            Opcode::SetFlag | Opcode::SetFlagDyn => c.set += 1,
            Opcode::WaitFlag | Opcode::WaitFlagDyn => c.wait += 1,
            Opcode::Barrier if d.attr("pipe") == Some(&all) => c.pipe_all += 1,
            Opcode::Barrier => c.barrier += 1,
            _ => {}
        }
    }
    c
}

/// What `pto lower FILE --target T --insert-sync` prints, as a module: the pipeline with the
/// pass, then its proof (`pto::cmd::lower::prove_sync`); the first error otherwise.
fn lower_with_sync(module: &Module, target: &'static Target, name: &str) -> Result<Module, String> {
    let verified = Verified::new(module.clone()).map_err(|d| d.0[0].message.clone())?;
    let opts = pto_lower::PipelineOptions { insert_sync: true, ..Default::default() };
    let (lowered, _) = pto_lower::run(verified, target, opts).map_err(|d| d.0[0].message.clone())?;
    pto::cmd::lower::prove_sync(&lowered, target, name).map_err(|d| d[0].message.clone())?;
    Ok(lowered)
}

fn fmt(c: &Counts) -> String {
    format!("{:>3} {:>3} {:>3} {:>2} = {:>3}", c.set, c.wait, c.barrier, c.pipe_all, c.total())
}

#[test]
fn inserted_sync_is_no_more_than_ptoas_on_most_samples_and_never_more_pipe_all() {
    let rows = ptoas_rows();
    let Some(root) = common::corpus_dir() else { return };
    let (mut compared, mut at_most, mut at_most_with_tail) = (0usize, 0usize, 0usize);
    let (mut sum_pto, mut sum_ptoas) = (Counts::default(), Counts::default());
    let (mut ptoas_rejects, mut pto_rejects, mut missing, mut more_pipe_all) = (vec![], vec![], vec![], vec![]);
    println!("{:<62} {:<4}  pto: set wait bar ALL = total | ptoas: set wait bar ALL = total + tail", "sample", "tgt");
    for (rel, module) in common::samples_without_sync(&root) {
        for id in [TargetId::A2A3, TargetId::A5] {
            let name = format!("{rel} ({id:?})");
            let Some(row) = rows.get(&(rel.clone(), id)) else {
                missing.push(name);
                continue;
            };
            let Some(theirs) = row.body else {
                ptoas_rejects.push(name);
                continue;
            };
            let ours = match lower_with_sync(&module, Target::get(id), &rel) {
                Ok(m) => count(&m),
                Err(e) => {
                    pto_rejects.push(format!("{name}: {e}"));
                    continue;
                }
            };
            compared += 1;
            let tail = row.tail.0 + 2 * row.tail.1;
            at_most += usize::from(ours.total() <= theirs.total());
            at_most_with_tail += usize::from(ours.total() <= theirs.total() + tail);
            if ours.pipe_all > theirs.pipe_all {
                more_pipe_all.push(format!("{name}: pto {} PIPE_ALL, ptoas {}", ours.pipe_all, theirs.pipe_all));
            }
            for (sum, c) in [(&mut sum_pto, ours), (&mut sum_ptoas, theirs)] {
                sum.set += c.set;
                sum.wait += c.wait;
                sum.barrier += c.barrier;
                sum.pipe_all += c.pipe_all;
            }
            let mark = if ours.total() <= theirs.total() { ' ' } else { '>' };
            println!("{rel:<62} {:<4}{mark} {} | {} + {tail}", if id == TargetId::A5 { "a5" } else { "a2a3" }, fmt(&ours), fmt(&theirs));
        }
    }
    let share = |k: usize| 100.0 * k as f64 / compared.max(1) as f64;
    println!("sums: pto {} | ptoas {}", fmt(&sum_pto), fmt(&sum_ptoas));
    println!(
        "{compared} (sample, target) pairs compared: pto's total <= ptoas's on {at_most} ({:.1} %), <= ptoas's with its tail barrier on {at_most_with_tail} ({:.1} %)",
        share(at_most),
        share(at_most_with_tail)
    );
    println!("ptoas rejects ({}): {ptoas_rejects:#?}", ptoas_rejects.len());
    println!("pto rejects ({}): {pto_rejects:#?}", pto_rejects.len());
    assert!(missing.is_empty(), "no ptoas counts for {missing:#?}: regenerate tests/data/ptoas-insert-sync-counts.tsv");
    assert!(more_pipe_all.is_empty(), "more PIPE_ALL than ptoas: {more_pipe_all:#?}");
    assert!(compared >= 150, "only {compared} pairs compared");
    assert!(
        share(at_most) >= MIN_SHARE_AT_MOST_PTOAS,
        "pto's count <= ptoas's on {:.1} % of the pairs, below the {MIN_SHARE_AT_MOST_PTOAS} % measured",
        share(at_most)
    );
}
