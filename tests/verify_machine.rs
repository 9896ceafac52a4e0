//! `pto verify --sync` on the machine (issue 23, deliver 3): a kernel of several cores, blocks
//! or ranks is run once per combination of outcomes of its branches on constants and unbound
//! scalar arguments (`pto_sim::sync::branches`), so a bug on a path the default inputs do not
//! take is found; arguments the user binds keep their values; branches on the core or on data
//! take their real outcome, with a note; every path's findings are reported once.

use pto::TargetName;
use pto::cmd::run::{RunOptions, run};
use pto::cmd::verify::{VerifyOptions, run_with_sync};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn verify(file: &str, configure: impl FnOnce(&mut VerifyOptions)) -> pto::Outcome {
    let mut opts = VerifyOptions { input: root().join(file).display().to_string(), target: Some(TargetName::A2A3), ..Default::default() };
    configure(&mut opts);
    run_with_sync(&opts)
}

fn run_code(file: &str, inputs: &[&str]) -> i32 {
    let out = run(&RunOptions {
        default_inputs: true,
        quiet: true,
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
        ..RunOptions::new(root().join(file).display().to_string(), TargetName::A2A3)
    });
    out.code
}

const CORRECT: &str = "tests/machine_paths/branch_on_argument.pto";
const NOWAIT: &str = "tests/machine_paths/branch_on_argument_nowait.pto";

#[test]
fn both_outcomes_of_a_branch_on_a_scalar_argument_are_checked_on_the_machine() {
    let ok = verify(CORRECT, |_| {});
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    assert!(ok.stdout.contains("sync: ok (2 paths on the machine: 1 block(s), 1 rank(s))"), "{}", ok.stdout);
    // The bug is on the path the default inputs (mode = 0) do not take: `pto run` with them is
    // clean, with mode = 1 it is not, and verify finds it without being told.
    assert_eq!(run_code(NOWAIT, &[]), 0);
    assert_eq!(run_code(NOWAIT, &["mode=1"]), 1);
    let bug = verify(NOWAIT, |_| {});
    assert_eq!(bug.code, 1, "{}", bug.stderr);
    assert!(bug.stderr.contains("error[HAZARD_RAW]: b0.aiv0 reads bytes another core wrote in `%y`"), "{}", bug.stderr);
    assert!(bug.stderr.contains("branch_on_argument_nowait.pto:61:7"), "at the AIVs' tload: {}", bug.stderr);
    // Each finding once, however many paths and AIVs met it.
    assert_eq!(bug.stderr.matches("error[HAZARD_RAW]").count(), 1, "{}", bug.stderr);
}

#[test]
fn an_argument_the_user_binds_keeps_its_value() {
    let zero = verify(NOWAIT, |o| o.inputs = vec!["mode=0".into()]);
    assert_eq!(zero.code, 0, "{}", zero.stderr);
    assert!(
        zero.stdout.contains("sync: ok (1 paths on the machine") && zero.stdout.contains("took the outcome the inputs give"),
        "{}",
        zero.stdout
    );
    assert!(zero.stderr.contains("note[SYNC_NOT_CHECKED]") && zero.stderr.contains("on bound inputs"), "{}", zero.stderr);
    let one = verify(NOWAIT, |o| o.inputs = vec!["mode=1".into()]);
    assert_eq!(one.code, 1, "{}", one.stderr);
    // Per-rank arguments are bound, so the ranks' `scf.if rank == 0` is not explored: no path
    // where both ranks wait for each other's signal.
    let ranks = verify("tests/hb/ranks_store_notify.pto", |o| {
        o.ranks = 2;
        o.peers = vec!["buf=0".into(), "sig=1".into()];
        o.inputs = vec!["rank@0=0".into(), "rank@1=1".into()];
    });
    assert_eq!(ranks.code, 0, "{}", ranks.stderr);
    assert!(ranks.stdout.contains("sync: ok (1 paths on the machine: 1 block(s), 2 rank(s))"), "{}", ranks.stdout);
}

#[test]
fn a_branch_on_the_core_takes_its_real_outcome_and_says_so() {
    // tests/hb/mix_syncall_one_side.pto: the syncall inside `scf.if subblock == 0`; exploring
    // that branch would pair AIVs of no real run. Its real outcome is the bug.
    let out = verify("tests/hb/mix_syncall_one_side.pto", |_| {});
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stderr.contains("error[SYNC_DEADLOCK]"), "{}", out.stderr);
    assert!(out.stderr.contains("1 branch(es) on the core, on data or on bound inputs"), "{}", out.stderr);
}
