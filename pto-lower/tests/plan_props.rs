//! Property: a memory plan never places two simultaneously live tiles on overlapping bytes,
//! every tile is aligned and inside its buffer; a program that does not fit fails with
//! `LEGAL_BUFFER_OVERFLOW` (never a panic, never a silently wrong plan).

use proptest::prelude::*;
use pto_ir::diag::DiagClass;
use pto_ir::verify::Verified;
use pto_lower::liveness::Liveness;
use pto_lower::{Target, TargetId, plan};

/// A random Level-2 program: `n` tiles of random shapes allocated at random points, and random
/// `tadd`s between tiles of equal shape (which extend their live ranges).
fn program(shapes: &[(u32, u32)], uses: &[(usize, usize)]) -> String {
    let mut s = String::from("func.func @k() {\n");
    let ty = |(r, c): (u32, u32)| format!("!pto.tile_buf<vec, {r}x{c}xf32>");
    for (i, &sh) in shapes.iter().enumerate() {
        s.push_str(&format!("  %t{i} = pto.alloc_tile : {}\n", ty(sh)));
        for &(a, b) in uses.iter().filter(|(a, b)| *a.max(b) == i) {
            let (x, y) = if shapes[a] == shapes[b] { (a, b) } else { (i, i) };
            s.push_str(&format!("  pto.tadd ins(%t{x}, %t{y} : {}, {}) outs(%t{i} : {})\n", ty(shapes[x]), ty(shapes[y]), ty(shapes[i])));
        }
    }
    s.push_str("  return\n}\n");
    s
}

fn shape() -> impl Strategy<Value = (u32, u32)> {
    (prop::sample::select(vec![1u32, 8, 16, 32, 64, 128]), prop::sample::select(vec![8u32, 16, 64, 256, 512]))
}

/// The cases come from a fixed seed unless `PROPTEST_RNG_SEED` is set, so CI tries the cases a
/// local run tries (set the variable to explore others).
fn fixed_seed() -> proptest::test_runner::RngSeed {
    match ProptestConfig::default().rng_seed {
        proptest::test_runner::RngSeed::Random => proptest::test_runner::RngSeed::Fixed(20_261_126),
        chosen => chosen,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, rng_seed: fixed_seed(), ..ProptestConfig::default() })]
    #[test]
    fn plans_never_overlap(shapes in prop::collection::vec(shape(), 1..40), raw_uses in prop::collection::vec((0usize..40, 0usize..40), 0..60), a5 in any::<bool>()) {
        let n = shapes.len();
        let uses: Vec<(usize, usize)> = raw_uses.into_iter().map(|(a, b)| (a % n, b % n)).collect();
        let text = program(&shapes, &uses);
        let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).expect("generated program parses");
        let verified = Verified::new(m).expect("generated program verifies");
        let target = Target::get(if a5 { TargetId::A5 } else { TargetId::A2A3 });
        match pto_lower::run(verified, target, pto_lower::PipelineOptions::default()) {
            Ok((lowered, _)) => {
                let live = Liveness::compute(&lowered);
                let tiles = plan::collect(&lowered, &live);
                prop_assert_eq!(tiles.len(), n);
                for t in &tiles {
                    let buf = target.buffer(t.loc);
                    let a = t.addr.expect("every tile has an address after planning");
                    prop_assert_eq!(a % buf.align, 0);
                    prop_assert!(a + t.size <= buf.capacity);
                }
                for (i, a) in tiles.iter().enumerate() {
                    for b in &tiles[i + 1..] {
                        let live_together = a.start <= b.end && b.start <= a.end;
                        let (x, y) = (a.addr.unwrap_or(0), b.addr.unwrap_or(0));
                        let overlap = x < y + b.size && y < x + a.size;
                        prop_assert!(!(live_together && overlap), "%{} and %{} overlap\n{}", a.name, b.name, text);
                    }
                }
            }
            Err(d) => {
                prop_assert!(d.0.iter().all(|d| d.class == DiagClass::LegalBufferOverflow), "{:?}", d.0);
                let total: u64 = shapes.iter().map(|(r, c)| (*r as u64) * (*c as u64) * 4).sum();
                prop_assert!(total > target.buffer(pto_ir::types::Loc::Vec).capacity, "failed although all tiles fit at once");
            }
        }
    }
}

#[test]
fn over_capacity_reports_the_peak_live_set() {
    // Four 64 KiB tiles live at once cannot fit in A2A3's 192 KiB UB, but fit A5's 256 KiB.
    let ty = "!pto.tile_buf<vec, 128x128xf32>";
    let text = format!(
        "func.func @k() {{\n{}  pto.tadd ins(%a, %b : {ty}, {ty}) outs(%c : {ty})\n  pto.tadd ins(%c, %d : {ty}, {ty}) outs(%a : {ty})\n  return\n}}\n",
        ["a", "b", "c", "d"].iter().map(|n| format!("  %{n} = pto.alloc_tile : {ty}\n")).collect::<String>()
    );
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).unwrap();
    let err = pto_lower::run(Verified::new(m.clone()).unwrap(), Target::get(TargetId::A2A3), Default::default()).unwrap_err();
    assert_eq!(err.0.len(), 1);
    let d = &err.0[0];
    assert_eq!(d.class, DiagClass::LegalBufferOverflow);
    assert_eq!(d.actual.as_deref(), Some("262144 bytes"));
    assert_eq!(d.expected.as_deref(), Some("at most 196608 bytes live in UB"));
    assert_eq!(d.labels.len(), 4, "the four live tiles are labelled");
    assert!(d.notes[0].contains("%a (65536 B)") && d.notes[0].contains("%d (65536 B)"), "{}", d.notes[0]);
    assert!(pto_lower::run(Verified::new(m).unwrap(), Target::get(TargetId::A5), Default::default()).is_ok());
}

#[test]
fn level3_overlapping_user_addresses_are_rejected() {
    let ty = "!pto.tile_buf<vec, 16x16xf32>";
    let text = format!(
        "func.func @k() {{\n  %c0 = arith.constant 0 : i64\n  %c512 = arith.constant 512 : i64\n  %a = pto.alloc_tile addr = %c0 : {ty}\n  %b = pto.alloc_tile addr = %c512 : {ty}\n  pto.tadd ins(%a, %b : {ty}, {ty}) outs(%a : {ty})\n  return\n}}\n"
    );
    let (m, _) = pto_asm::parse(&text, pto_ir::FileId(0)).unwrap();
    let err = pto_lower::run(Verified::new(m).unwrap(), Target::get(TargetId::A2A3), Default::default()).unwrap_err();
    assert_eq!(err.0[0].class, DiagClass::LegalOverlappingTiles);
    assert_eq!(err.0[0].actual.as_deref(), Some("[0, 1024) and [512, 1536)"));
}
