//! Scratch sizing is proven on the vector level, not assumed: for every op and path that uses
//! a scratch tile on A2A3, the vector program runs with the `tmp` tile `insert-scratch` chose
//! (it passes) and with that allocation one 32-byte datablock shorter (it traps with an
//! out-of-tile access on `tmp`).

use pto_lower::vector::{self, VTile, listing};
use pto_lower::{Target, TargetId};
use pto_sim::memory::Memory;
use pto_sim::vector::{VectorState, execute};

/// Lowers `text` for A2A3 and returns the resolved tile op of its only lowered op.
fn scratch_op(text: &str) -> vector::TileOp {
    let target = Target::get(TargetId::A2A3);
    let (m, _) = pto_asm::parse(text, pto_ir::FileId(0)).unwrap_or_else(|d| panic!("parse: {:?}", d.0));
    let verified = pto_ir::verify::Verified::new(m).unwrap_or_else(|d| panic!("verify: {:?}", d.0));
    let (lowered, _) = pto_lower::run(verified, target, Default::default()).unwrap_or_else(|d| panic!("lower: {:?}", d.0));
    let listed = listing::list(&lowered, target).expect("plan");
    let ops: Vec<_> = listed.into_iter().filter_map(|l| l.tile_op.ok()).collect();
    assert_eq!(ops.len(), 1, "one lowered op in\n{text}");
    ops.into_iter().next().unwrap()
}

/// Runs the op's vector program on zeroed memory, with `tmp` shrunk by `shrink` bytes.
fn run(op: &vector::TileOp, shrink: u64) -> Result<(), String> {
    let mut op = op.clone();
    let tmp: &mut VTile = op.tiles.iter_mut().find(|t| t.slot == "tmp").expect("insert-scratch added a tmp tile");
    tmp.bytes -= shrink;
    let prog = vector::lower(&op).map_err(|e| e.0)?;
    let mut mem = Memory::new(Target::get(TargetId::A2A3));
    execute(&mut mem, &prog, &mut VectorState::default()).map_err(|f| f.0)
}

/// The static footprint check of the program with `tmp` shrunk by `shrink` bytes.
fn footprint(op: &vector::TileOp, shrink: u64) -> Result<(), String> {
    let mut op = op.clone();
    op.tiles.iter_mut().filter(|t| t.slot == "tmp").for_each(|t| t.bytes -= shrink);
    vector::lower(&op).map_err(|e| e.0)?.verify_addresses(192 * 1024)
}

fn proves(name: &str, text: &str) {
    let op = scratch_op(text);
    let tmp = op.tile("tmp").unwrap();
    run(&op, 0).unwrap_or_else(|e| panic!("{name}: the chosen tmp ({} B) must suffice: {e}", tmp.bytes));
    let err = run(&op, 32).expect_err(&format!("{name}: a tmp one datablock smaller ({} B) must trap", tmp.bytes - 32));
    assert!(err.contains("out-of-tile access: `tmp`"), "{name}: {err}");
    // The static check of the footprint agrees with execution.
    footprint(&op, 0).unwrap_or_else(|e| panic!("{name}: {e}"));
    let err = footprint(&op, 32).expect_err(&format!("{name}: the footprint check must see the short tmp"));
    assert!(err.contains("`tmp` touches bytes"), "{name}: {err}");
}

#[test]
fn trowsum_worked_example_16x256_valid_16x200() {
    proves("trowsum f32", ".arg %w : !pto.tile<16x256xf32, valid=16x200>\n%s = trowsum %w : !pto.tile<16x1xf32, blayout=col_major>\n");
}

#[test]
fn trowsum_even_repeats_tree() {
    proves(
        "trowsum f32 16x512",
        ".arg %w : !pto.tile<16x512xf32, valid=16x500>\n%s = trowsum %w : !pto.tile<16x1xf32, blayout=col_major>\n",
    );
}

#[test]
fn trowmax_wide_f16_and_one_repeat_copy_path() {
    proves("trowmax f16", ".arg %h : !pto.tile<16x512xf16>\n%m = trowmax %h : !pto.tile<16x1xf16, blayout=col_major>\n");
    proves("trowmin f32 copy", ".arg %h : !pto.tile<16x128xf32, valid=16x100>\n%m = trowmin %h : !pto.tile<16x1xf32, blayout=col_major>\n");
}

#[test]
fn trowsum_integer_block_accumulator() {
    proves("trowsum i32", ".arg %i : !pto.tile<16x64xi32>\n%t = trowsum %i : !pto.tile<16x1xi32, blayout=col_major>\n");
    proves("trowmax i16", ".arg %i : !pto.tile<16x64xi16, valid=16x40>\n%t = trowmax %i : !pto.tile<16x1xi16, blayout=col_major>\n");
}

#[test]
fn trowsum_f32_fast_paths() {
    for (r, c) in [(64, 128), (32, 256), (16, 512), (8, 1024)] {
        proves(
            &format!("trowsum {r}x{c}"),
            &format!(".arg %w : !pto.tile<{r}x{c}xf32>\n%s = trowsum %w : !pto.tile<{r}x1xf32, blayout=col_major>\n"),
        );
    }
}

#[test]
fn tcolargmax_doc_example_and_16_bit_index_only() {
    proves("tcolargmax f32", ".arg %s : !pto.tile<16x256xf32, valid=16x255>\n%d = tcolargmax %s : !pto.tile<1x256xui32, valid=1x255>\n");
    proves("tcolargmin f16", ".arg %h : !pto.tile<16x64xf16, valid=16x40>\n%d = tcolargmin %h : !pto.tile<1x64xi32, valid=1x40>\n");
    proves("tcolargmax f16 wide", ".arg %h : !pto.tile<8x256xf16, valid=8x200>\n%d = tcolargmax %h : !pto.tile<1x256xi32, valid=1x200>\n");
}

#[test]
fn tcolsum_binary_tree() {
    proves("tcolsum binary", ".arg %x : !pto.tile<16x64xf32>\n%b = tcolsum %x {isBinary = true} : !pto.tile<1x64xf32>\n");
    proves(
        "tcolsum binary odd",
        ".arg %x : !pto.tile<16x64xf32, valid=7x50>\n%b = tcolsum %x {isBinary = true} : !pto.tile<1x64xf32, valid=1x50>\n",
    );
}

#[test]
fn tsel_mask_address_register() {
    proves(
        "tsel",
        ".arg %mask : !pto.tile<16x32xui8>\n.arg %a : !pto.tile<16x64xf32>\n.arg %b : !pto.tile<16x64xf32>\n%sel = tsel %mask, %a, %b : !pto.tile<16x64xf32>\n",
    );
}

#[test]
fn tgather_16_bit_byte_offsets() {
    proves(
        "tgather f16",
        ".arg %h : !pto.tile<16x64xf16>\n.arg %idx : !pto.tile<16x64xi32>\n%g = tgather %h, %idx : !pto.tile<16x64xf16>\n",
    );
}

#[test]
fn paths_without_scratch_use_leave_tmp_untouched() {
    // validCol ≤ one iteration: one vcadd per row; the tmp tile exists for the signature only.
    let op = scratch_op(".arg %n : !pto.tile<16x64xf32>\n%p = trowsum %n : !pto.tile<16x1xf32, blayout=col_major>\n");
    let prog = vector::lower(&op).unwrap();
    assert!(prog.instrs.iter().all(|i| i.operands.iter().all(|o| o.region.name != "tmp")), "{prog:?}");
    run(&op, 32).expect("tmp is not touched");
    footprint(&op, 32).expect("tmp is not touched");
}
