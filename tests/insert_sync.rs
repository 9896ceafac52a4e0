//! `pto lower --insert-sync` over the shared samples (issue 24): every sample without a sync op
//! that runs with default inputs on a target (one core; mix kernels are left out, below) is
//! lowered with `insert-sync`, and
//!
//! * the proof holds: `pto verify --sync`'s checker finds nothing on any path;
//! * the output runs with the dynamic checker on (`--sync-check=always`) without a finding, and
//!   leaves GM byte for byte as the run of the program without sync;
//! * deleting one inserted `wait_flag` is reported by `pto verify --sync` (on A2A3, up to
//!   [`MUTANTS_PER_RUN`] waits per sample spread over the program, to keep the test fast; with
//!   `PTO_EVERY_WAIT=1` every inserted wait on both targets; every one must be reported unless
//!   some path of the program traps in the simulator, so that the checker could not see it:
//!   those are counted and printed).
//!
//! Mix kernels (cube and vector functions) run on the machine: each function is lowered with
//! `insert-sync`, the run with `--sync-check=always` is clean with the outputs of the run
//! without sync, and deleting any one inserted wait is reported by that run.
//!
//! The counts are printed (`--nocapture`).

use pto_ir::diag::{Severity, SourceMap};
use pto_ir::module::Module;
use pto_ir::ops::Opcode;
use pto_ir::verify::Verified;
use pto_lower::{Target, TargetId};
use pto_sim::Sim;

mod common;

/// Inserted waits deleted per (sample, target).
const MUTANTS_PER_RUN: usize = 2;

fn lower(module: &Module, target: &'static Target, insert_sync: bool) -> Option<Module> {
    let verified = Verified::new(module.clone()).ok()?;
    let opts = pto_lower::PipelineOptions { insert_sync, ..Default::default() };
    pto_lower::run(verified, target, opts).ok().map(|(m, _)| m)
}

/// The GM arrays a run leaves: (name, bytes).
type Outputs = Vec<(String, Vec<u8>)>;

/// GM after a run with default inputs, and the sync findings when `checked`.
fn run(m: &Module, target: &'static Target, checked: bool) -> Option<(Outputs, Vec<String>)> {
    let mut sim = Sim::new(m, target).ok()?;
    sim.use_default_inputs();
    if checked {
        pto_sim::sync::check(&mut sim);
    }
    sim.run().ok()?;
    let findings =
        if checked { sim.sync_diagnostics().into_iter().map(|d| format!("{}: {}", d.class, d.message)).collect() } else { vec![] };
    Some((sim.gm_outputs().into_iter().map(|(n, d)| (n, d.bytes.clone())).collect(), findings))
}

fn static_errors(m: &Module, target: &'static Target) -> Vec<String> {
    static_check(m, target).0
}

/// `pto verify --sync`'s errors, and whether some path stopped at a trap (unchecked).
fn static_check(m: &Module, target: &'static Target) -> (Vec<String>, bool) {
    match pto_sim::sync::check_paths(m, target) {
        Ok(check) => (
            check.found.iter().filter(|d| d.severity == Severity::Error).map(|d| format!("{}: {}", d.class, d.message)).collect(),
            check.trapped > 0,
        ),
        Err(d) => (d.into_iter().map(|d| d.message).collect(), false),
    }
}

/// The module without the `k`-th `wait_flag` in program order.
fn without_wait(m: &Module, k: usize) -> Module {
    let mut out = m.clone();
    let wait = m.walk().into_iter().filter(|&op| m.op(op).opcode == Opcode::WaitFlag).nth(k).expect("k < waits");
    for b in &mut out.blocks {
        b.ops.retain(|&op| op != wait);
    }
    out
}

#[test]
fn inserted_sync_is_proven_runs_clean_and_every_sampled_wait_is_needed() {
    let Some(root) = common::corpus_dir() else { return };
    let (mut runs, mut mutants, mut mix, mut unseen) = (0, 0, 0, Vec::new());
    let mut failures = Vec::new();
    for (rel, module) in common::samples_without_sync(&root) {
        for id in [TargetId::A2A3, TargetId::A5] {
            let target = Target::get(id);
            let Some(plain) = lower(&module, target, false) else { continue };
            if pto_sim::cores::Topology::new(&plain, target).mix {
                mix += 1;
                continue;
            }
            let Some((expected, _)) = run(&plain, target, false) else { continue };
            let name = format!("{rel} ({id:?})");
            let Some(synced) = lower(&module, target, true) else {
                failures.push(format!("{name}: insert-sync failed to lower"));
                continue;
            };
            runs += 1;
            let (proof, trapped) = static_check(&synced, target);
            if !proof.is_empty() {
                failures.push(format!("{name}: verify --sync reports the inserted sync: {proof:?}"));
                continue;
            }
            match run(&synced, target, true) {
                Some((got, findings)) if findings.is_empty() && got == expected => {}
                Some((got, findings)) => failures
                    .push(format!("{name}: run with --sync-check=always: findings {findings:?}, outputs equal: {}", got == expected)),
                None => failures.push(format!("{name}: the output with sync does not run")),
            }
            let waits = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::WaitFlag).count();
            let every = std::env::var_os("PTO_EVERY_WAIT").is_some();
            let picks: Vec<usize> = if every {
                (0..waits).collect()
            } else if id == TargetId::A5 {
                vec![]
            } else if waits <= MUTANTS_PER_RUN {
                (0..waits).collect()
            } else {
                (0..MUTANTS_PER_RUN).map(|i| i * (waits - 1) / (MUTANTS_PER_RUN - 1)).collect()
            };
            for k in picks {
                mutants += 1;
                if !static_errors(&without_wait(&synced, k), target).is_empty() {
                    continue;
                }
                let what = format!("{name}: deleting inserted wait_flag #{k} of {waits} is not reported");
                if trapped { unseen.push(what) } else { failures.push(what) }
            }
        }
    }
    println!("insert-sync: {runs} (sample, target) runs, {mutants} deleted waits, {mix} mix kernels left out");
    println!("not reported, on a program with a path the simulator traps on (unchecked): {unseen:#?}");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    assert!(runs >= 150, "only {runs} runs");
}

/// The programs of `tests/sync/` (straight-line code, branches, static, dynamic and nested
/// loops, zero-trip loops, both cube and vector pipes) with every sync op deleted: the pass
/// orders each of them again, proven on every path on both targets, and on A2A3 inserts
/// something (each has dependent ops; A5 keeps the vector pipe in order, so
/// `same_pipe_vector.pto` needs nothing there).
#[test]
fn the_sync_test_programs_without_their_sync_are_ordered_again() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sync");
    let mut files: Vec<_> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "pto")).collect();
    files.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for f in &files {
        let mut module = parse_text(&f.display().to_string(), &std::fs::read_to_string(f).unwrap());
        let sync: Vec<_> = module.walk().into_iter().filter(|&op| pto_lower::sync::pipes::is_explicit_sync(module.op(op).opcode)).collect();
        for b in &mut module.blocks {
            b.ops.retain(|op| !sync.contains(op));
        }
        for id in [TargetId::A2A3, TargetId::A5] {
            let target = Target::get(id);
            let name = format!("{} ({id:?})", f.file_name().unwrap().to_string_lossy());
            let Some(synced) = lower(&module, target, true) else { continue };
            checked += 1;
            let inserted = synced.walk().into_iter().filter(|&op| pto_lower::sync::pipes::is_explicit_sync(synced.op(op).opcode)).count();
            if inserted == 0 && id == TargetId::A2A3 {
                failures.push(format!("{name}: nothing inserted"));
            }
            let proof = static_errors(&synced, target);
            if !proof.is_empty() {
                failures.push(format!("{name}: {proof:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked >= 30, "only {checked} programs lowered");
}

/// `pto lower --insert-sync`: the output has the pair, one note counts it; `--explain` lists
/// each pair with its two ops, pipes and bytes; `--stop-after insert-sync` prints the same.
#[test]
fn lower_insert_sync_prints_the_pairs_and_explains_them() {
    use pto::cmd::lower::{LowerOptions, run};
    let dir = std::env::temp_dir().join(format!("pto-insert-sync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("k.pto");
    std::fs::write(
        &file,
        "func.func @k(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %vs = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %ps = pto.partition_view %vs, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %vd = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %pd = pto.partition_view %vd, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %a = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %c = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  pto.tload ins(%ps : !pto.partition_tensor_view<16x16xf32>) outs(%a : !pto.tile_buf<vec, 16x16xf32>)
  pto.texp ins(%a : !pto.tile_buf<vec, 16x16xf32>) outs(%c : !pto.tile_buf<vec, 16x16xf32>)
  pto.tstore ins(%c : !pto.tile_buf<vec, 16x16xf32>) outs(%pd : !pto.partition_tensor_view<16x16xf32>)
  return
}
",
    )
    .unwrap();
    let opts = |explain: bool, stop_after: Option<&str>| LowerOptions {
        insert_sync: true,
        stop_after: stop_after.map(str::to_string),
        explain,
        ..LowerOptions::new(file.display().to_string(), pto::TargetName::A2A3)
    };
    let plain = run(&opts(false, None));
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    for line in ["pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]", "pto.wait_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID0>]"] {
        assert!(plain.stdout.contains(line), "{line} missing:\n{}", plain.stdout);
    }
    assert_eq!(plain.stderr.matches("note[SYNC_INSERTED]").count(), 1, "{}", plain.stderr);
    assert!(plain.stderr.contains("insert-sync inserted 2 flag pair(s)"), "{}", plain.stderr);
    let explained = run(&opts(true, None));
    assert_eq!(explained.stderr.matches("note[SYNC_INSERTED]").count(), 2, "{}", explained.stderr);
    assert!(
        explained.stderr.contains("orders `pto.texp` on PIPE_V after `pto.tload` on PIPE_MTE2: vec[0..1024) read after a write"),
        "{}",
        explained.stderr
    );
    let stopped = run(&opts(false, Some("insert-sync")));
    assert_eq!(stopped.stdout, plain.stdout);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The proof: unordered output (here the program lowered without the pass) is a
/// `SYNC_INSERT_FAILED` internal error naming the program, with the checker's findings after it.
#[test]
fn the_proof_rejects_unordered_output_naming_the_program() {
    let mut module = parse_file("tests/sync/raw_per_pipe_pair.pto");
    let sync: Vec<_> = module.walk().into_iter().filter(|&op| pto_lower::sync::pipes::is_explicit_sync(module.op(op).opcode)).collect();
    for b in &mut module.blocks {
        b.ops.retain(|op| !sync.contains(op));
    }
    let target = Target::get(TargetId::A2A3);
    let unordered = lower(&module, target, false).unwrap();
    let err = pto::cmd::lower::prove_sync(&unordered, target, "raw.pto").unwrap_err();
    assert_eq!(err[0].class, pto_ir::diag::DiagClass::SyncInsertFailed);
    assert!(err[0].message.contains("`raw.pto`"), "{}", err[0].message);
    assert!(err[1..].iter().any(|d| d.class == pto_ir::diag::DiagClass::HazardRaw));
    pto::cmd::lower::prove_sync(&lower(&module, target, true).unwrap(), target, "raw.pto").unwrap();
}

/// The module of a `.pto` file of the repository.
fn parse_file(rel: &str) -> Module {
    parse_text(rel, &std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)).unwrap())
}

/// `text` parsed, named `name` in diagnostics.
fn parse_text(name: &str, text: &str) -> Module {
    let mut sources = SourceMap::default();
    let fid = sources.add(name.to_string(), text.to_string());
    pto_asm::parse(text, fid).expect("parses").0
}

/// GM after a run with default inputs and the scalar `name = value`s, and the findings of the
/// dynamic sync checker.
fn run_with(m: &Module, target: &'static Target, scalars: &[(&str, f64)]) -> (Outputs, Vec<String>) {
    let mut sim = Sim::new(m, target).unwrap();
    sim.use_default_inputs();
    for (name, v) in scalars {
        sim.bind_scalar(name, *v).unwrap();
    }
    pto_sim::sync::check(&mut sim);
    sim.run().unwrap();
    let findings = sim.sync_diagnostics().into_iter().map(|d| format!("{}: {}", d.class, d.message)).collect();
    (sim.gm_outputs().into_iter().map(|(n, d)| (n, d.bytes.clone())).collect(), findings)
}

/// The ops of the body of the first `scf.for` (not nested deeper).
fn first_loop_body(m: &Module) -> Vec<pto_ir::module::OpId> {
    let lp = m.walk().into_iter().find(|&op| m.op(op).opcode == Opcode::ScfFor).expect("a loop");
    m.block(m.region(m.op(lp).regions[0]).blocks[0]).ops.clone()
}

/// The ops after the first loop in the block holding it.
fn after_first_loop(m: &Module) -> Vec<pto_ir::module::OpId> {
    let lp = m.walk().into_iter().find(|&op| m.op(op).opcode == Opcode::ScfFor).expect("a loop");
    let block = m.blocks.iter().find(|b| b.ops.contains(&lp)).expect("the loop's block");
    block.ops.iter().skip_while(|&&op| op != lp).skip(1).copied().collect()
}

fn count(m: &Module, ops: &[pto_ir::module::OpId], which: &[Opcode]) -> usize {
    ops.iter().filter(|&&op| which.contains(&m.op(op).opcode)).count()
}

/// How many `barrier <PIPE_ALL>` the module has.
fn barrier_all(m: &Module) -> usize {
    pto_asm::print::print_module(m, &Default::default()).unwrap().matches("pto.barrier <PIPE_ALL>").count()
}

/// Issue 24, rotating buffers and acceptance 3 for the #233-like kernel: the double-buffered
/// dynamic loop of examples/insert_sync/dyn_vector.pto gets `_dyn` event ids `iv mod 2` (no
/// static id serialising its iterations), no `barrier <PIPE_ALL>`, no more waits per iteration
/// than its hand-synchronised twin, and computes what the twin computes for every trip count,
/// zero included, with the dynamic checker clean (the static proof holds on every path).
#[test]
fn the_double_buffered_dynamic_kernel_gets_rotating_ids_and_matches_its_hand_twin() {
    let plain = parse_file("examples/insert_sync/dyn_vector.pto");
    let hand = parse_file("examples/insert_sync/dyn_vector_hand.pto");
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let synced = lower(&plain, target, true).unwrap();
        let hand = lower(&hand, target, false).unwrap();
        assert_eq!(static_errors(&synced, target), Vec::<String>::new(), "{id:?}");
        let body = first_loop_body(&synced);
        assert!(count(&synced, &body, &[Opcode::WaitFlagDyn]) >= 2, "{id:?}: no rotating wait in the loop");
        assert_eq!(count(&synced, &body, &[Opcode::WaitFlag, Opcode::SetFlag]), 0, "{id:?}: a static id in the loop");
        assert_eq!(barrier_all(&synced), 0, "{id:?}");
        let waits = |m: &Module| count(m, &first_loop_body(m), &[Opcode::WaitFlag, Opcode::WaitFlagDyn]);
        assert!(waits(&synced) <= waits(&hand), "{id:?}: {} waits per iteration, hand {}", waits(&synced), waits(&hand));
        for n in [0.0, 1.0, 2.0, 3.0, 5.0] {
            let (got, findings) = run_with(&synced, target, &[("n", n)]);
            let (want, hand_findings) = run_with(&hand, target, &[("n", n)]);
            assert!(findings.is_empty() && hand_findings.is_empty(), "{id:?} n={n}: {findings:?} {hand_findings:?}");
            assert!(got == want, "{id:?} n={n}: outputs differ from the hand version");
        }
    }
}

/// Issue 24, acceptance 3 for the #1569 workload (examples/rowadd_1569: three UB slots with
/// static addresses, prefetch 2, in place): the inserted sync gives each slot its own
/// loop-carried MTE3 -> MTE2 pair (three ids, the loads of a slot waiting only for that slot's
/// store), has no `barrier <PIPE_ALL>` and no more waits per iteration than the hand version,
/// and computes what it computes with the dynamic checker clean.
#[test]
fn the_1569_workload_gets_a_pair_per_slot_and_no_more_waits_than_its_hand_twin() {
    let plain = parse_file("examples/rowadd_1569/nosync.pto");
    let hand = parse_file("examples/rowadd_1569/hand.pto");
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let synced = lower(&plain, target, true).unwrap();
        let hand = lower(&hand, target, false).unwrap();
        assert_eq!(static_errors(&synced, target), Vec::<String>::new(), "{id:?}");
        assert_eq!(barrier_all(&synced), 0, "{id:?}");
        let printed = pto_asm::print::print_module(&synced, &Default::default()).unwrap();
        assert_eq!(ids_used(&printed, "<PIPE_MTE3>, <PIPE_MTE2>")[..3], [0, 1, 2], "{id:?}:\n{printed}");
        let waits = |m: &Module| count(m, &first_loop_body(m), &[Opcode::WaitFlag, Opcode::WaitFlagDyn]);
        assert!(waits(&synced) <= waits(&hand), "{id:?}: {} waits per iteration, hand {}", waits(&synced), waits(&hand));
        // After the loop, row 63 reuses slot 0: the loop's own pairs (drained there) order it
        // after the last rows' compute and stores, so it needs no more than the hand version
        // (was: an MTE3 -> MTE2 and a V -> MTE2 pair and a `barrier <PIPE_MTE2>` more).
        let after = |m: &Module| count(m, &after_first_loop(m), &[Opcode::WaitFlag, Opcode::WaitFlagDyn, Opcode::Barrier]);
        assert!(
            after(&synced) <= after(&hand),
            "{id:?}: {} waits and barriers after the loop, hand {}:\n{printed}",
            after(&synced),
            after(&hand)
        );
        let (got, findings) = run_with(&synced, target, &[]);
        let (want, hand_findings) = run_with(&hand, target, &[]);
        assert!(findings.is_empty() && hand_findings.is_empty(), "{id:?}: {findings:?} {hand_findings:?}");
        assert!(got == want, "{id:?}: outputs differ from the hand version");
    }
}

/// Rotating ids in nested dynamic loops, with a period of 3 and a phase `(i + 1) mod 3`: an
/// outer loop over `%m` runs an inner triple-buffered loop over `%n`. Each rotating pair holds
/// three consecutive ids; the output is proven, runs clean for trip counts 0..4 of both loops
/// and leaves GM as the program without sync does.
#[test]
fn nested_dynamic_loops_rotate_three_buffers() {
    let text = "func.func @k(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>, %m: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c16 = arith.constant 16 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %vs = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %vd = pto.make_tensor_view %dst, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %ps = pto.partition_view %vs, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %pd = pto.partition_view %vd, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %acc = pto.alloc_tile addr = %c4096 : !pto.tile_buf<vec, 16x16xf32>
  pto.texpands ins(%zero : f32) outs(%acc : !pto.tile_buf<vec, 16x16xf32>)
  scf.for %j = %c0 to %m step %c1 {
    scf.for %i = %c0 to %n step %c1 {
      %i1 = arith.addi %i, %c1 : index
      %ph = arith.remsi %i1, %c3 : index
      %addr = arith.muli %ph, %c1024 : index
      %x = pto.alloc_tile addr = %addr : !pto.tile_buf<vec, 16x16xf32>
      pto.tload ins(%ps : !pto.partition_tensor_view<16x16xf32>) outs(%x : !pto.tile_buf<vec, 16x16xf32>)
      pto.tadd ins(%acc, %x : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%acc : !pto.tile_buf<vec, 16x16xf32>)
    }
  }
  pto.tstore ins(%acc : !pto.tile_buf<vec, 16x16xf32>) outs(%pd : !pto.partition_tensor_view<16x16xf32>)
  return
}
";
    let module = parse_text("nested.pto", text);
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let synced = lower(&module, target, true).unwrap();
        let plain = lower(&module, target, false).unwrap();
        assert_eq!(static_errors(&synced, target), Vec::<String>::new(), "{id:?}");
        let dyn_ops = count(&synced, &synced.walk(), &[Opcode::WaitFlagDyn, Opcode::SetFlagDyn]);
        assert!(dyn_ops >= 2, "{id:?}: no rotating pair");
        // The primed ids of the inner loop: three static sets of one pipe pair before it.
        let inner = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::ScfFor).nth(1).unwrap();
        let outer_body = synced
            .block(
                synced
                    .region(synced.op(synced.walk().into_iter().find(|&op| synced.op(op).opcode == Opcode::ScfFor).unwrap()).regions[0])
                    .blocks[0],
            )
            .ops
            .clone();
        let at = outer_body.iter().position(|&op| op == inner).unwrap();
        assert!(count(&synced, &outer_body[..at], &[Opcode::SetFlag]) >= 3, "{id:?}: the inner loop's three ids are not primed");
        assert_eq!(barrier_all(&synced), 0, "{id:?}");
        for (m, n) in [(0.0, 3.0), (1.0, 0.0), (1.0, 1.0), (2.0, 4.0), (3.0, 2.0)] {
            let (got, findings) = run_with(&synced, target, &[("m", m), ("n", n)]);
            let (want, ()) = run_with_unchecked(&plain, target, &[("m", m), ("n", n)]);
            assert!(findings.is_empty(), "{id:?} m={m} n={n}: {findings:?}");
            assert!(got == want, "{id:?} m={m} n={n}: outputs differ from the run without sync");
        }
    }
}

/// GM after an unchecked run with the scalar inputs given.
fn run_with_unchecked(m: &Module, target: &'static Target, scalars: &[(&str, f64)]) -> (Outputs, ()) {
    let mut sim = Sim::new(m, target).unwrap();
    sim.use_default_inputs();
    for (name, v) in scalars {
        sim.bind_scalar(name, *v).unwrap();
    }
    sim.run().unwrap();
    (sim.gm_outputs().into_iter().map(|(n, d)| (n, d.bytes.clone())).collect(), ())
}

/// Issue 24, minimality: a dependence two pairs already order through a third pipe gets no
/// pair of its own. An in-place kernel loads `src` (MTE2), adds on PIPE_V and stores back to
/// `src` (MTE3): the store's write after the load's read of `src` (MTE2 -> MTE3) is ordered by
/// MTE2 -> V then V -> MTE3, so there is no MTE2 -> MTE3 flag; the proof holds and deleting
/// either wait is reported.
#[test]
fn a_dependence_ordered_through_another_pipe_gets_no_pair() {
    let text = "func.func @k(%src: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %v = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>
  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<16x16xf32>
  %x = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  %y = pto.alloc_tile : !pto.tile_buf<vec, 16x16xf32>
  pto.tload ins(%p : !pto.partition_tensor_view<16x16xf32>) outs(%x : !pto.tile_buf<vec, 16x16xf32>)
  pto.tadd ins(%x, %x : !pto.tile_buf<vec, 16x16xf32>, !pto.tile_buf<vec, 16x16xf32>) outs(%y : !pto.tile_buf<vec, 16x16xf32>)
  pto.tstore ins(%y : !pto.tile_buf<vec, 16x16xf32>) outs(%p : !pto.partition_tensor_view<16x16xf32>)
  return
}
";
    let module = parse_text("inplace.pto", text);
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let synced = lower(&module, target, true).unwrap();
        assert_eq!(static_errors(&synced, target), Vec::<String>::new(), "{id:?}");
        let printed = pto_asm::print::print_module(&synced, &Default::default()).unwrap();
        assert!(!printed.contains("<PIPE_MTE2>, <PIPE_MTE3>"), "{id:?}: a transitive pair:\n{printed}");
        let waits = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::WaitFlag).count();
        assert_eq!(waits, 2, "{id:?}:\n{printed}");
        for k in 0..waits {
            assert!(!static_errors(&without_wait(&synced, k), target).is_empty(), "{id:?}: wait #{k} is not needed");
        }
    }
}

/// Nested loops, one per level: each body opens with `first` and closes, after the loop inside,
/// with `last` (`{k}` is the level), so that a pair between the two spans the inner loops.
fn nested(depth: usize, head: &str, decls: &str, first: &str, last: &str) -> Module {
    let mut text = format!(
        "func.func @k({head}) {{\n  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n  %c2 = arith.constant 2 : index\n"
    );
    text += decls;
    for k in 0..depth {
        text += &format!("scf.for %i{k} = %c0 to %c2 step %c1 {{\n  {}\n", first.replace("{k}", &k.to_string()));
    }
    for k in (0..depth).rev() {
        text += &format!("  {}\n}}\n", last.replace("{k}", &k.to_string()));
    }
    text += "  return\n}\n";
    parse_text("nested.pto", &text)
}

/// `insert-sync`'s output and notes, proven.
fn inserted(module: Module, target: &'static Target) -> (Module, Vec<pto_ir::diag::Diagnostic>) {
    let verified = Verified::new(module).unwrap();
    let (synced, notes) = pto_lower::run(verified, target, pto_lower::PipelineOptions { insert_sync: true, ..Default::default() }).unwrap();
    assert_eq!(static_errors(&synced, target), Vec::<String>::new());
    (synced, notes.0)
}

/// [`inserted`], run with the dynamic checker on and the scalar `name = value`s: the output
/// module, its notes and the GM it leaves, the run asserted clean.
fn inserted_and_clean(
    module: &Module,
    target: &'static Target,
    scalars: &[(&str, f64)],
) -> (Module, Vec<pto_ir::diag::Diagnostic>, Outputs) {
    let (synced, notes) = inserted(module.clone(), target);
    let (outputs, findings) = run_with(&synced, target, scalars);
    assert!(findings.is_empty(), "{:?}: {findings:?}", target.id);
    (synced, notes, outputs)
}

/// The waits that follow their own set at once (a pair waited right after its set), by their
/// index among the module's `wait_flag`s; the event ids the printed module uses for `pair`.
fn tight_waits(m: &Module) -> Vec<usize> {
    let waits: Vec<_> = m.walk().into_iter().filter(|&op| m.op(op).opcode == Opcode::WaitFlag).collect();
    let mut out = Vec::new();
    for b in &m.blocks {
        for w in b.ops.windows(2) {
            let (s, t) = (m.op(w[0]), m.op(w[1]));
            if s.opcode == Opcode::SetFlag && t.opcode == Opcode::WaitFlag && s.attrs == t.attrs {
                out.push(waits.iter().position(|&op| op == w[1]).unwrap());
            }
        }
    }
    out
}

fn ids_used(printed: &str, pair: &str) -> Vec<u32> {
    let mut ids: Vec<u32> = (0..16).filter(|id| printed.contains(&format!("pto.set_flag[{pair}, <EVENT_ID{id}>]"))).collect();
    ids.dedup();
    ids
}

/// Issue 24, event ids run out: nine nested loops, each with its own V -> MTE2 dependence carried
/// by it (the load of its tile at the top of its body, the add reading it after the inner loop)
/// and its own MTE2 -> V one across the inner loop, want nine pairs of each pipe pair live at
/// once: one more than the 8 ids. Rather than a `barrier <PIPE_ALL>`, the pair held longest (the
/// outermost loop's) waits right after its set, which frees its id over the inner loops: no
/// `PIPE_ALL`, `EVENT_ID0..7` used and no more, a note saying so, the output proven, and
/// deleting either early wait is reported.
#[test]
fn ids_more_than_eight_live_pairs_of_one_pipe_pair_wait_earlier_instead_of_pipe_all() {
    let ty = "!pto.tile_buf<vec, 16x16xf32>";
    let view = "!pto.partition_tensor_view<16x16xf32>";
    let mut decls = String::from(
        "  %c16 = arith.constant 16 : index\n  %v = pto.make_tensor_view %src, shape = [%c16, %c16], strides = [%c16, %c1] : !pto.tensor_view<?x?xf32>\n",
    );
    decls += &format!("  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c16, %c16] : !pto.tensor_view<?x?xf32> -> {view}\n");
    for k in 0..9 {
        decls += &format!("  %x{k} = pto.alloc_tile : {ty}\n  %y{k} = pto.alloc_tile : {ty}\n");
    }
    let module = nested(
        9,
        "%src: !pto.ptr<f32>",
        &decls,
        &format!("pto.tload ins(%p : {view}) outs(%x{{k}} : {ty})"),
        &format!("pto.tadd ins(%x{{k}}, %x{{k}} : {ty}, {ty}) outs(%y{{k}} : {ty})"),
    );
    let target = Target::get(TargetId::A2A3);
    let (synced, notes) = inserted(module, target);
    let printed = pto_asm::print::print_module(&synced, &Default::default()).unwrap();
    assert_eq!(barrier_all(&synced), 0, "{printed}");
    for pair in ["<PIPE_V>, <PIPE_MTE2>", "<PIPE_MTE2>, <PIPE_V>"] {
        assert_eq!(ids_used(&printed, pair), (0..8).collect::<Vec<_>>(), "{pair}:\n{printed}");
    }
    assert!(notes.iter().all(|d| d.severity != Severity::Warning), "{:?}", notes.iter().map(|d| &d.message).collect::<Vec<_>>());
    let early: Vec<_> = notes.iter().filter(|d| d.message.contains("waited right after its set")).collect();
    assert_eq!(early.len(), 2, "{:?}", notes.iter().map(|d| &d.message).collect::<Vec<_>>());
    assert!(early.iter().all(|d| d.message.contains("the 8 event ids of")), "{}", early[0].message);
    // The two early waits, and the innermost loop's forward pair (its load right before its add).
    let tight = tight_waits(&synced);
    assert_eq!(tight.len(), 3, "{printed}");
    for k in tight {
        assert!(!static_errors(&without_wait(&synced, k), target).is_empty(), "the early wait #{k} is not needed:\n{printed}");
    }
}

/// Issue 24, A2A3 `PIPE_M` -> `PIPE_FIX` keeps to `EVENT_ID0..2` (ptoas#112/#118): four nested
/// loops, each computing a `tmatmul` into its own accumulator at the top of its body and storing
/// it (`tstore` from L0C, on the fixpipe) after the loop inside, want four M -> FIX pairs live at
/// once. Only `EVENT_ID0..2` are used for that pair, the outermost waits right after its set, no
/// `PIPE_ALL`, the output is proven; A5 (8 ids) needs no early wait.
#[test]
fn ids_m_to_fix_keeps_to_three_ids_on_a2a3() {
    let mat = |loc: &str, bl: &str, sl: &str, fractal: u32| {
        format!(
            "!pto.tile_buf<loc={loc}, dtype=f32, rows=32, cols=32, v_row=32, v_col=32, blayout={bl}, slayout={sl}, fractal={fractal}, pad=0>"
        )
    };
    let (left, right, acc) = (
        mat("left", "col_major", "row_major", 512),
        mat("right", "row_major", "col_major", 512),
        mat("acc", "col_major", "row_major", 1024),
    );
    let view = "!pto.partition_tensor_view<32x32xf32>";
    let mut decls = String::from(
        "  %c32 = arith.constant 32 : index\n  %v = pto.make_tensor_view %out, shape = [%c32, %c32], strides = [%c32, %c1] : !pto.tensor_view<?x?xf32>\n",
    );
    decls += &format!("  %p = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c32, %c32] : !pto.tensor_view<?x?xf32> -> {view}\n");
    decls += &format!("  %l0a = pto.alloc_tile : {left}\n  %l0b = pto.alloc_tile : {right}\n");
    for k in 0..4 {
        decls += &format!("  %acc{k} = pto.alloc_tile : {acc}\n");
    }
    let module = nested(
        4,
        "%out: !pto.ptr<f32>",
        &decls,
        &format!("pto.tmatmul ins(%l0a, %l0b : {left}, {right}) outs(%acc{{k}} : {acc})"),
        &format!("pto.tstore ins(%acc{{k}} : {acc}) outs(%p : {view})"),
    );
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let (synced, notes) = inserted(module.clone(), target);
        let early = notes.iter().filter(|d| d.message.contains("waited right after its set")).count();
        let printed = pto_asm::print::print_module(&synced, &Default::default()).unwrap();
        assert_eq!(barrier_all(&synced), 0, "{id:?}:\n{printed}");
        let ids = ids_used(&printed, "<PIPE_M>, <PIPE_FIX>");
        match id {
            TargetId::A2A3 => {
                assert_eq!(ids, vec![0, 1, 2], "{printed}");
                assert_eq!(early, 1, "{printed}");
                assert!(notes.iter().any(|d| d.message.contains("the 3 event ids of PIPE_M -> PIPE_FIX")));
            }
            _ => {
                assert_eq!(ids, vec![0, 1, 2, 3], "{printed}");
                assert_eq!(early, 0, "{printed}");
            }
        }
    }
}

/// `pto run --default-inputs --json` of the program text `text` on the machine, as the CLI runs
/// it: (exit code, stdout, stderr).
fn run_text(
    text: &str,
    name: &str,
    target: pto::TargetName,
    sync_check: pto::cmd::run::SyncCheck,
    insert_sync: bool,
) -> (i32, String, String) {
    static RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = std::env::temp_dir().join(format!("pto-insert-mix-{}-{n}-{}.pto", std::process::id(), name.replace('/', "_")));
    std::fs::write(&path, text).unwrap();
    let out = pto::cmd::run::run(&pto::cmd::run::RunOptions {
        default_inputs: true,
        sync_check,
        insert_sync,
        ..pto::cmd::run::RunOptions::new(path.display().to_string(), target)
    });
    let _ = std::fs::remove_file(&path);
    (out.code, out.stdout, out.stderr)
}

/// Issue 24, acceptance 1 for the mix kernels among the samples without sync: each runs on
/// the machine with the sync `insert-sync` puts in each of its functions (the pushes and pops
/// on their pipes: an A2A3 pop writes its tile on MTE2), clean under `--sync-check=always`
/// and with the outputs of the run without sync; and deleting any one inserted wait of the
/// lowered program is reported by that run.
#[test]
fn mix_kernels_with_inserted_sync_run_clean_and_every_inserted_wait_is_needed() {
    use pto::TargetName;
    use pto::cmd::run::SyncCheck;
    let Some(root) = common::corpus_dir() else { return };
    let (mut runs, mut mutants) = (0, 0);
    let mut failures = Vec::new();
    for (rel, module) in common::samples_without_sync(&root) {
        for (id, name) in [(TargetId::A2A3, TargetName::A2A3), (TargetId::A5, TargetName::A5)] {
            let target = Target::get(id);
            let Some(plain) = lower(&module, target, false) else { continue };
            if !pto_sim::cores::Topology::new(&plain, target).mix {
                continue;
            }
            let text = std::fs::read_to_string(root.join(&rel)).unwrap();
            let (code, expected, _) = run_text(&text, &rel, name, SyncCheck::Never, false);
            if code != 0 {
                continue;
            }
            runs += 1;
            let what = format!("{rel} ({id:?})");
            let (code, got, stderr) = run_text(&text, &rel, name, SyncCheck::Always, true);
            if code != 0 || got != expected {
                failures.push(format!("{what}: with inserted sync, exit {code}, outputs equal: {}\n{stderr}", got == expected));
                continue;
            }
            let Some(synced) = lower(&module, target, true) else {
                failures.push(format!("{what}: insert-sync failed to lower"));
                continue;
            };
            let print = |m: &Module| pto_asm::print::print_module(m, &Default::default()).unwrap();
            let (code, _, stderr) = run_text(&print(&synced), &rel, name, SyncCheck::Always, false);
            if code != 0 {
                failures.push(format!("{what}: the lowered program with its sync is not clean: {stderr}"));
                continue;
            }
            let waits = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::WaitFlag).count();
            for k in 0..waits {
                mutants += 1;
                let (code, _, stderr) = run_text(&print(&without_wait(&synced, k)), &rel, name, SyncCheck::Always, false);
                if code == 0 || !stderr.contains("error[") {
                    failures.push(format!("{what}: deleting inserted wait_flag #{k} of {waits} is not reported (exit {code})"));
                }
            }
        }
    }
    println!("insert-sync on mix kernels: {runs} (sample, target) runs, {mutants} deleted waits");
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
    // 8: the TPushTPop samples' A2A3 runs are rejected before running, as `pto verify` and
    // `ptoas` reject them (no gm_slot_buffer for pipes that pass through GM on A2A3).
    assert!(runs >= 8, "only {runs} mix kernel runs");
}

/// A loop that writes in one iteration what a later iteration reads (or reads what a later
/// one overwrites), with the first op before the second in the body: the two touch different
/// bytes within an iteration and the same ones across iterations. A prefetch into the other
/// of two buffers (load the next block into one, compute on the one loaded last iteration),
/// and a shift of a GM array in place (row i + 1 loaded, row i stored over it, row i + 1 stored
/// in the next iteration). The inserted sync is proven, runs clean, leaves GM as the program
/// without sync does, and every inserted wait is needed.
#[test]
fn a_loop_carried_dependence_whose_first_op_comes_first_in_the_body_is_ordered() {
    let prefetch = "func.func @k(%src: !pto.ptr<f32>, %dst: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c9 = arith.constant 9 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %c1024 = arith.constant 1024 : index
  %c4096 = arith.constant 4096 : index
  %c16384 = arith.constant 16384 : index
  %vs = pto.make_tensor_view %src, shape = [%c9, %c16, %c64], strides = [%c1024, %c64, %c1] : !pto.tensor_view<?x?x?xf32>
  %vd = pto.make_tensor_view %dst, shape = [%c8, %c16, %c64], strides = [%c1024, %c64, %c1] : !pto.tensor_view<?x?x?xf32>
  %first = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 16x64xf32>
  %p0 = pto.partition_view %vs, offsets = [%c0, %c0, %c0], sizes = [%c1, %c16, %c64] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
  pto.tload ins(%p0 : !pto.partition_tensor_view<16x64xf32>) outs(%first : !pto.tile_buf<vec, 16x64xf32>)
  %out = pto.alloc_tile addr = %c16384 : !pto.tile_buf<vec, 16x64xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %nph = arith.remsi %i1, %c2 : index
    %cph = arith.remsi %i, %c2 : index
    %na = arith.muli %nph, %c4096 : index
    %ca = arith.muli %cph, %c4096 : index
    %next = pto.alloc_tile addr = %na : !pto.tile_buf<vec, 16x64xf32>
    %cur = pto.alloc_tile addr = %ca : !pto.tile_buf<vec, 16x64xf32>
    %pn = pto.partition_view %vs, offsets = [%i1, %c0, %c0], sizes = [%c1, %c16, %c64] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    %pd = pto.partition_view %vd, offsets = [%i, %c0, %c0], sizes = [%c1, %c16, %c64] : !pto.tensor_view<?x?x?xf32> -> !pto.partition_tensor_view<16x64xf32>
    pto.tload ins(%pn : !pto.partition_tensor_view<16x64xf32>) outs(%next : !pto.tile_buf<vec, 16x64xf32>)
    pto.texp ins(%cur : !pto.tile_buf<vec, 16x64xf32>) outs(%out : !pto.tile_buf<vec, 16x64xf32>)
    pto.tstore ins(%out : !pto.tile_buf<vec, 16x64xf32>) outs(%pd : !pto.partition_tensor_view<16x64xf32>)
  }
  return
}
";
    let shift = "func.func @k(%a: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %v = pto.make_tensor_view %a, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %t = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 1x64xf32>
  %u = pto.alloc_tile addr = %c256 : !pto.tile_buf<vec, 1x64xf32>
  scf.for %i = %c0 to %c7 step %c1 {
    %i1 = arith.addi %i, %c1 : index
    %next = pto.partition_view %v, offsets = [%i1, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
    %here = pto.partition_view %v, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
    pto.tload ins(%next : !pto.partition_tensor_view<1x64xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32>)
    pto.texp ins(%t : !pto.tile_buf<vec, 1x64xf32>) outs(%u : !pto.tile_buf<vec, 1x64xf32>)
    pto.tstore ins(%u : !pto.tile_buf<vec, 1x64xf32>) outs(%here : !pto.partition_tensor_view<1x64xf32>)
  }
  return
}
";
    for (name, text) in [("prefetch.pto", prefetch), ("shift.pto", shift)] {
        let module = parse_text(name, text);
        for id in [TargetId::A2A3, TargetId::A5] {
            let target = Target::get(id);
            let (synced, _, got) = inserted_and_clean(&module, target, &[]);
            let (want, _) = run(&lower(&module, target, false).unwrap(), target, false).unwrap();
            assert!(got == want, "{name} {id:?}: outputs differ from the program without sync");
            let waits = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::WaitFlag).count();
            for k in 0..waits {
                assert!(!static_errors(&without_wait(&synced, k), target).is_empty(), "{name} {id:?}: wait #{k} is not needed");
            }
        }
    }
}

/// GM views that never meet get no sync: a loop that loads row i of one array and stores row
/// i of another stores each row once, so its stores need no `barrier <PIPE_MTE3>` between them
/// (the whole array was one range before: every store waited for the one before it), whether
/// the arrays' row counts are constants or an argument.
#[test]
fn stores_of_different_rows_of_one_array_need_no_barrier() {
    let text = "func.func @k(%x: !pto.ptr<f32>, %y: !pto.ptr<f32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %vx = pto.make_tensor_view %x, shape = [ROWS, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %vy = pto.make_tensor_view %y, shape = [ROWS, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  scf.for %i = %c0 to ROWS step %c1 {
    %px = pto.partition_view %vx, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
    %py = pto.partition_view %vy, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
    pto.tload ins(%px : !pto.partition_tensor_view<1x64xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32>)
    pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32>) outs(%py : !pto.partition_tensor_view<1x64xf32>)
  }
  return
}
";
    for rows in ["%c8", "%n"] {
        let module = parse_text("rows.pto", &text.replace("ROWS", rows));
        for id in [TargetId::A2A3, TargetId::A5] {
            let target = Target::get(id);
            let (synced, notes, _) = inserted_and_clean(&module, target, &[("n", 8.0)]);
            let printed = pto_asm::print::print_module(&synced, &Default::default()).unwrap();
            assert!(!printed.contains("pto.barrier <PIPE_MTE3>"), "{rows} {id:?}:\n{printed}");
            let why: Vec<_> = notes.iter().map(|n| &n.message).collect();
            assert!(why.iter().all(|m| !m.contains("GM %y")), "{rows} {id:?}: {why:?}");
        }
    }
}

/// Only `tload` and `tstore` touch just their view's window: `mgather` may read any byte of its
/// array (as pto-sim's checker takes it), so a store to row 1 before a gather through a view of
/// row 0 is ordered, and the output is proven.
#[test]
fn a_gather_through_a_view_of_one_row_is_ordered_after_a_store_to_another() {
    let module = parse_text(
        "gather.pto",
        "func.func @k(%a: !pto.ptr<f32>, %d: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %v = pto.make_tensor_view %a, shape = [%c2, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %vd = pto.make_tensor_view %d, shape = [%c1, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %row0 = pto.partition_view %v, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
  %row1 = pto.partition_view %v, offsets = [%c1, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
  %out = pto.partition_view %vd, offsets = [%c0, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
  %t = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
  %idx = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32>
  %g = pto.alloc_tile : !pto.tile_buf<vec, 1x64xf32>
  pto.tstore ins(%t : !pto.tile_buf<vec, 1x64xf32>) outs(%row1 : !pto.partition_tensor_view<1x64xf32>)
  pto.mgather ins(%row0, %idx : !pto.partition_tensor_view<1x64xf32>, !pto.tile_buf<vec, 1x64xi32>) outs(%g : !pto.tile_buf<vec, 1x64xf32>)
  pto.tstore ins(%g : !pto.tile_buf<vec, 1x64xf32>) outs(%out : !pto.partition_tensor_view<1x64xf32>)
  return
}
",
    );
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let (synced, notes) = inserted(module.clone(), target);
        let why: Vec<_> = notes.iter().map(|n| n.message.as_str()).collect();
        assert!(why.iter().any(|m| m.contains("pto.mgather") && m.contains("GM %a")), "{id:?}: {why:?}");
        let waits = synced.walk().into_iter().filter(|&op| synced.op(op).opcode == Opcode::WaitFlag).count();
        assert!(waits > 0, "{id:?}");
    }
}

/// A dependence only an outer loop carries: each pass of the inner loop stores row i of an
/// array and then loads row i + 1 (the next iteration stores over it: ordered in the inner
/// loop), and the row a pass stores at inner iteration i is loaded by the next pass at inner
/// iteration i - 1, which nothing in the inner loop orders. The inserted sync is proven and
/// runs clean.
#[test]
fn a_dependence_only_an_outer_loop_carries_is_ordered() {
    let module = parse_text(
        "outer.pto",
        "func.func @k(%a: !pto.ptr<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %v = pto.make_tensor_view %a, shape = [%c8, %c64], strides = [%c64, %c1] : !pto.tensor_view<?x?xf32>
  %c = pto.alloc_tile addr = %c0 : !pto.tile_buf<vec, 1x64xf32>
  %t = pto.alloc_tile addr = %c256 : !pto.tile_buf<vec, 1x64xf32>
  scf.for %k = %c0 to %c2 step %c1 {
    scf.for %i = %c0 to %c4 step %c1 {
      %n = arith.addi %i, %c1 : index
      %here = pto.partition_view %v, offsets = [%i, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
      %next = pto.partition_view %v, offsets = [%n, %c0], sizes = [%c1, %c64] : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<1x64xf32>
      pto.tstore ins(%c : !pto.tile_buf<vec, 1x64xf32>) outs(%here : !pto.partition_tensor_view<1x64xf32>)
      pto.tload ins(%next : !pto.partition_tensor_view<1x64xf32>) outs(%t : !pto.tile_buf<vec, 1x64xf32>)
    }
  }
  return
}
",
    );
    for id in [TargetId::A2A3, TargetId::A5] {
        inserted_and_clean(&module, Target::get(id), &[]);
    }
}
