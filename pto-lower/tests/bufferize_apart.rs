//! `bufferize` never gives an op's `dst` the buffer of its scratch `tmp`, nor of a source the
//! target keeps apart from `dst` (A2A3 `txor`: dst, src0, src1 and tmp in different memory,
//! pto-isa npu/a2a3/TXor.hpp:43-46): a Level-1 program whose sources and scratch all die at the
//! op lowers to a Level-2 program that legalizes again on the same target, with `tmp != dst`
//! for every op.

use pto_ir::diag::Diagnostics;
use pto_ir::verify::Verified;
use pto_lower::binding::bind;
use pto_lower::{Target, TargetId};

/// Each op's sources are fresh values (not arguments, so they may be reused in place) that die
/// at the op; the ops with a user `tmp` pass one that also dies there. The last two read
/// arguments only, so the inserted scratch is the one dead input of the op.
const PROGRAM: &str = "\
.arg %a : !pto.tile<16x64xf32>
.arg %b : !pto.tile<16x64xf32>
.arg %p : !pto.tile<16x64xi16>
.arg %q : !pto.tile<16x64xi16>
.arg %k : i16
%p1 = tadd %p, %q : !pto.tile<16x64xi16>
%q1 = tadd %p, %q : !pto.tile<16x64xi16>
%x = txor %p1, %q1 : !pto.tile<16x64xi16>
%p2 = tadd %p, %q : !pto.tile<16x64xi16>
%q2 = tadd %p, %q : !pto.tile<16x64xi16>
%t2 = pto.alloc_tile : !pto.tile<16x64xi16>
%x2 = txor %p2, %q2, %t2 : !pto.tile<16x64xi16>
%p3 = tadd %p, %q : !pto.tile<16x64xi16>
%xs = txors %p3, %k : !pto.tile<16x64xi16>
%a1 = tadd %a, %b : !pto.tile<16x64xf32>
%b1 = tadd %a, %b : !pto.tile<16x64xf32>
%w = tpow %a1, %b1 : !pto.tile<16x64xf32>
%a2 = tadd %a, %b : !pto.tile<16x64xf32>
%b2 = tadd %a, %b : !pto.tile<16x64xf32>
%t4 = pto.alloc_tile : !pto.tile<16x64xf32>
%w2 = tpow %a2, %b2, %t4 : !pto.tile<16x64xf32>
%a3 = tadd %a, %b : !pto.tile<16x64xf32>
%b3 = tadd %a, %b : !pto.tile<16x64xf32>
%pr = tprelu %a3, %b3 : !pto.tile<16x64xf32>
%x3 = txor %p, %q : !pto.tile<16x64xi16>
%w3 = tpow %a, %b : !pto.tile<16x64xf32>
";

fn lower(target: TargetId) -> pto_ir::module::Module {
    let (m, _) = pto_asm::parse(PROGRAM, pto_ir::FileId(0)).expect("parses");
    let verified = Verified::new(m).expect("verifies");
    let opts = pto_lower::PipelineOptions { stop_after: Some("bufferize"), ..Default::default() };
    let (lowered, _) = pto_lower::run(verified, Target::get(target), opts).expect("lowers");
    lowered
}

#[test]
fn scratch_and_kept_apart_sources_never_become_dst() {
    for target in [TargetId::A2A3, TargetId::A5] {
        let mut m = lower(target);
        let mut ops_with_tmp = 0;
        for op in m.walk() {
            let Some((_, bound)) = bind(&m, op) else { continue };
            let dst = bound.iter().find(|b| b.slot == "dst").map(|b| b.value);
            if let (Some(tmp), Some(dst)) = (bound.iter().find(|b| b.slot == "tmp"), dst) {
                ops_with_tmp += 1;
                assert_ne!(tmp.value, dst, "{target:?}: {} writes dst into its own scratch", m.op(op).opcode.spec().name);
            }
        }
        if target == TargetId::A2A3 {
            assert!(ops_with_tmp >= 6, "every A2A3 op here has a tmp ({ops_with_tmp})");
        }
        // The Level-2 result obeys the target's own `Distinct` checks (txor, txors, tprelu).
        let mut notes = Diagnostics::default();
        if let Err(d) = pto_lower::legalize::run(&mut m, Target::get(target), &mut notes) {
            panic!("{target:?}: the bufferized program breaks the legality table: {d:?}");
        }
    }
}
