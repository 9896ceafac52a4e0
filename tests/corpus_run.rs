//! Every PTOAS sample that parses is lowered and simulated with deterministic inputs
//! (`Sim::use_default_inputs`): GM arrays get a fixed pattern, scalar arguments 0 / 1.0. The
//! outcome of each file is pinned in one snapshot: the GM arrays it leaves (length and an FNV-1a
//! checksum of the bytes), or the located reason it does not run yet (an op the simulator does
//! not execute, a legality error on both targets, a trap). Nothing may panic. Mix kernels run on
//! one block of cores (`pto_sim::cores`).

use pto_ir::diag::SourceMap;
use pto_ir::verify::Verified;
use pto_lower::{Target, TargetId};
use pto_sim::Sim;
use std::fmt::Write;

mod common;

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3))
}

fn outcome(text: &str, name: &str) -> String {
    let mut sources = SourceMap::default();
    let fid = sources.add(name.to_string(), text.to_string());
    let Ok((module, _)) = pto_asm::parse(text, fid) else { return "does not parse".into() };
    let mut last_err = String::new();
    for id in [TargetId::A2A3, TargetId::A5] {
        let target = Target::get(id);
        let Ok(verified) = Verified::new(module.clone()) else { return "does not verify".into() };
        let lowered = match pto_lower::run(verified, target, Default::default()) {
            Ok((m, _)) => m,
            Err(d) => {
                last_err = format!("{} at {}", d.0[0].class, sources.location(d.0[0].span));
                continue;
            }
        };
        let mut sim = match Sim::new(&lowered, target) {
            Ok(s) => s,
            Err(d) => return format!("{:?}: cannot place tiles: {}", id, d[0].message),
        };
        sim.use_default_inputs();
        // A mix kernel runs on the cores of a block (docs/cores.md).
        let outputs = if pto_sim::cores::Topology::new(&lowered, target).mix {
            let setup = |s: &mut Sim| {
                s.use_default_inputs();
                Ok(())
            };
            let launch =
                pto_sim::cores::Launch { blocks: 1, schedule: Default::default(), threads: None, trace: false, setup: &setup, tiles: &[] };
            match pto_sim::cores::machine::run(&lowered, target, sim.gm_arrays(), &launch) {
                Ok(r) => pto_sim::interp::gm_outputs(&lowered, &r.gm),
                Err(d) => return format!("{id:?}: not run: {}", d[0].message),
            }
        } else {
            if let Err(d) = sim.run() {
                return format!("{id:?}: not run: {}", d.message);
            }
            sim.gm_outputs()
        };
        let mut s = format!("{id:?}: ran;");
        for (n, data) in outputs {
            let _ = write!(s, " %{n}[{}]={:016x}", data.cols, fnv(&data.bytes));
        }
        return s;
    }
    format!("illegal on both targets: {last_err}")
}

#[test]
fn corpus_samples_run_or_say_why_not() {
    let Some(root) = common::corpus_dir() else { return };
    let files = common::pto_files(std::slice::from_ref(&root));
    let mut report = String::new();
    let mut ran = 0;
    for f in &files {
        let rel = f.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(f).expect("readable");
        let o = outcome(&text, &rel);
        if o.contains(": ran;") {
            ran += 1;
        }
        let _ = writeln!(report, "{rel}: {o}");
    }
    assert_eq!(files.len(), 106);
    assert!(ran >= 20, "only {ran} samples ran:\n{report}");
    insta::assert_snapshot!(report);
}
