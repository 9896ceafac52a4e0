//! Conformance of the vector execution model itself: masks (continuous, bitwise, counter),
//! block and repeat strides (including overlapping and re-read iterations) and the checks that
//! reject impossible instructions.

use pto_ir::ElemType;
use pto_lower::vector::ir::{BinKind, Instr, Mask, Op, Operand, Region, Scalar, ScalarKind};
use pto_lower::{Target, TargetId};
use pto_sim::memory::Memory;
use pto_sim::vector::{VectorState, exec};

/// The whole UB as one region (these tests address it directly).
fn ub() -> Region {
    Region { name: "ub", start: 0, len: 192 * 1024 }
}

fn op(addr: u64, blk: u32, rep: u32) -> Operand {
    Operand { region: ub(), addr, blk, rep }
}

fn mem() -> Memory {
    Memory::new(Target::get(TargetId::A2A3))
}

fn write_i16(m: &mut Memory, addr: u64, v: &[i16]) {
    let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.slice_mut(pto_ir::types::Loc::Vec, addr, b.len()).unwrap().copy_from_slice(&b);
}

fn read_i16(m: &Memory, addr: u64, n: usize) -> Vec<i16> {
    m.slice(pto_ir::types::Loc::Vec, addr, 2 * n).unwrap().chunks(2).map(|c| i16::from_le_bytes([c[0], c[1]])).collect()
}

fn write_i32(m: &mut Memory, addr: u64, v: &[i32]) {
    let b: Vec<u8> = v.iter().flat_map(|x| x.to_le_bytes()).collect();
    m.slice_mut(pto_ir::types::Loc::Vec, addr, b.len()).unwrap().copy_from_slice(&b);
}

fn read_i32(m: &Memory, addr: u64, n: usize) -> Vec<i32> {
    m.slice(pto_ir::types::Loc::Vec, addr, 4 * n).unwrap().chunks(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn vadd(dtype: ElemType, repeat: u32, mask: Mask, d: Operand, a: Operand, b: Operand) -> Instr {
    Instr { op: Op::Bin(BinKind::Add), dtype, repeat, mask, operands: vec![d, a, b] }
}

fn vadds(dtype: ElemType, repeat: u32, d: Operand, a: Operand, s: i64) -> Instr {
    Instr {
        op: Op::Scalar(ScalarKind::Add, Scalar::Int(s)),
        dtype,
        repeat,
        mask: Mask::Normal { hi: 0, lo: u64::MAX },
        operands: vec![d, a],
    }
}

const OLD: i16 = 0x7777;

#[test]
fn int16_add_with_continuous_mask_64_leaves_the_other_64_lanes_untouched() {
    let mut m = mem();
    let a: Vec<i16> = (0..128).collect();
    let b: Vec<i16> = (0..128).map(|x| 1000 + x).collect();
    write_i16(&mut m, 0, &a);
    write_i16(&mut m, 256, &b);
    write_i16(&mut m, 512, &[OLD; 128]);
    exec(&mut m, &vadd(ElemType::I16, 1, Mask::first(64), op(512, 1, 8), op(0, 1, 8), op(256, 1, 8)), &mut VectorState::default()).unwrap();
    let d = read_i16(&m, 512, 128);
    assert_eq!(&d[..64], &(0..64).map(|x| 1000 + 2 * x).collect::<Vec<i16>>()[..]);
    assert!(d[64..].iter().all(|&x| x == OLD), "lanes 64..128 must keep their old bytes: {:?}", &d[64..]);
}

#[test]
fn int32_add_with_mask_64_computes_every_lane_of_both_iterations() {
    let mut m = mem();
    let a: Vec<i32> = (0..128).collect();
    write_i32(&mut m, 0, &a);
    write_i32(&mut m, 512, &a);
    write_i32(&mut m, 1024, &[-1; 128]);
    exec(&mut m, &vadd(ElemType::I32, 2, Mask::first(64), op(1024, 1, 8), op(0, 1, 8), op(512, 1, 8)), &mut VectorState::default())
        .unwrap();
    assert_eq!(read_i32(&m, 1024, 128), (0..128).map(|x| 2 * x).collect::<Vec<i32>>());
}

#[test]
fn bitwise_mask_computes_every_other_element() {
    let pattern = 0x5555_5555_5555_5555u64;
    // int16: both words.
    let mut m = mem();
    write_i16(&mut m, 0, &[3; 128]);
    write_i16(&mut m, 256, &[4; 128]);
    write_i16(&mut m, 512, &[OLD; 128]);
    let mask = Mask::Normal { hi: pattern, lo: pattern };
    exec(&mut m, &vadd(ElemType::I16, 1, mask, op(512, 1, 8), op(0, 1, 8), op(256, 1, 8)), &mut VectorState::default()).unwrap();
    let d = read_i16(&m, 512, 128);
    assert!(d.iter().enumerate().all(|(i, &x)| x == if i % 2 == 0 { 7 } else { OLD }), "{d:?}");
    // int32: the high word must be 0.
    let mut m = mem();
    write_i32(&mut m, 0, &[3; 64]);
    write_i32(&mut m, 256, &[4; 64]);
    write_i32(&mut m, 512, &[-9; 64]);
    let mask = Mask::Normal { hi: 0, lo: pattern };
    exec(&mut m, &vadd(ElemType::I32, 1, mask, op(512, 1, 8), op(0, 1, 8), op(256, 1, 8)), &mut VectorState::default()).unwrap();
    let d = read_i32(&m, 512, 64);
    assert!(d.iter().enumerate().all(|(i, &x)| x == if i % 2 == 0 { 7 } else { -9 }), "{d:?}");
    let bad = Mask::Normal { hi: pattern, lo: pattern };
    let e = exec(&mut m, &vadd(ElemType::I32, 1, bad, op(512, 1, 8), op(0, 1, 8), op(256, 1, 8)), &mut VectorState::default()).unwrap_err();
    assert!(e.0.contains("high word"), "{}", e.0);
}

#[test]
fn block_stride_2_takes_every_other_datablock() {
    let mut m = mem();
    let src: Vec<i32> = (0..128).collect();
    write_i32(&mut m, 0, &src);
    write_i32(&mut m, 1024, &[0; 64]);
    // dst = src (block stride 2) + 0: dst block j = src block 2j.
    exec(&mut m, &vadds(ElemType::I32, 1, op(1024, 1, 8), op(0, 2, 16), 0), &mut VectorState::default()).unwrap();
    let d = read_i32(&m, 1024, 64);
    let want: Vec<i32> = (0..8).flat_map(|j| (0..8).map(move |k| 16 * j + k)).collect();
    assert_eq!(d, want);
}

/// `+1` in place over 40 blocks of i32, `repeat` iterations with repeat stride `rep`: how many
/// times each of the first 40 blocks was incremented.
fn increments(repeat: u32, rep: u32) -> Vec<i32> {
    let mut m = mem();
    write_i32(&mut m, 0, &[0; 320]);
    exec(&mut m, &vadds(ElemType::I32, repeat, op(0, 1, rep), op(0, 1, rep), 1), &mut VectorState::default()).unwrap();
    read_i32(&m, 0, 320)
        .chunks(8)
        .map(|b| {
            assert!(b.iter().all(|&x| x == b[0]), "a block is updated as a whole");
            b[0]
        })
        .collect()
}

#[test]
fn repeat_strides_8_9_10_place_iterations_contiguously_or_with_gaps() {
    let blocks = |v: Vec<i32>| v.iter().enumerate().filter(|(_, x)| **x == 1).map(|(i, _)| i).collect::<Vec<_>>();
    assert_eq!(blocks(increments(3, 8)), (0..24).collect::<Vec<_>>());
    assert_eq!(blocks(increments(3, 9)), [(0..8).collect::<Vec<_>>(), (9..17).collect(), (18..26).collect()].concat());
    assert_eq!(blocks(increments(3, 10)), [(0..8).collect::<Vec<_>>(), (10..18).collect(), (20..28).collect()].concat());
}

#[test]
fn repeat_stride_0_rereads_the_same_blocks_and_4_overlaps_half() {
    let r0 = increments(3, 0);
    assert!(r0[..8].iter().all(|&x| x == 3) && r0[8..].iter().all(|&x| x == 0), "{r0:?}");
    let r4 = increments(2, 4);
    assert_eq!(&r4[..12], &[1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1]);
}

#[test]
fn overlapping_dst_one_block_ahead_sees_the_previous_iterations_writes() {
    // dst = src + 1 block: iteration 0 writes blocks 1..9 from blocks 0..8 (all 0); iteration 1
    // reads blocks 8..16, of which only block 8 was written (1), and writes blocks 9..17.
    let mut m = mem();
    write_i32(&mut m, 0, &[0; 160]);
    exec(&mut m, &vadds(ElemType::I32, 2, op(32, 1, 8), op(0, 1, 8), 1), &mut VectorState::default()).unwrap();
    let per_block: Vec<i32> = read_i32(&m, 0, 160).chunks(8).map(|b| b[0]).collect();
    assert_eq!(&per_block[..18], &[0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 0]);
}

#[test]
fn repeat_256_and_mask_0_are_rejected() {
    let mut m = mem();
    let e = exec(&mut m, &vadds(ElemType::I32, 256, op(0, 1, 8), op(0, 1, 8), 1), &mut VectorState::default()).unwrap_err();
    assert!(e.0.contains("repeat 256 outside 1..=255"), "{}", e.0);
    let zero = Instr { mask: Mask::Normal { hi: 0, lo: 0 }, ..vadds(ElemType::I32, 1, op(0, 1, 8), op(0, 1, 8), 1) };
    let e = exec(&mut m, &zero, &mut VectorState::default()).unwrap_err();
    assert_eq!(e.0, "mask is all zero");
    let count0 = Instr { mask: Mask::Counter(0), repeat: 0, ..vadds(ElemType::I32, 1, op(0, 1, 8), op(0, 1, 8), 1) };
    assert!(exec(&mut m, &count0, &mut VectorState::default()).is_err());
}

#[test]
fn counter_mode_processes_exactly_n_elements_across_iterations() {
    let mut m = mem();
    write_i32(&mut m, 0, &[0; 256]);
    let i = Instr { mask: Mask::Counter(100), repeat: 0, ..vadds(ElemType::I32, 1, op(0, 1, 8), op(0, 1, 8), 5) };
    assert_eq!(i.iterations(), 2);
    exec(&mut m, &i, &mut VectorState::default()).unwrap();
    let d = read_i32(&m, 0, 256);
    assert!(d[..100].iter().all(|&x| x == 5) && d[100..].iter().all(|&x| x == 0));
}

#[test]
fn an_access_outside_the_operands_tile_traps() {
    let mut m = mem();
    let small = Region { name: "tmp", start: 0, len: 224 };
    let o = Operand { region: small, addr: 0, blk: 1, rep: 8 };
    let e = exec(&mut m, &vadds(ElemType::I32, 1, o, o, 1), &mut VectorState::default()).unwrap_err();
    assert!(e.0.starts_with("out-of-tile access: `tmp` bytes [") && e.0.ends_with(", 256) are outside its tile [0, 224)"), "{}", e.0);
}
