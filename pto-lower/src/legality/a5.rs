//! The A5 legality table.

use super::a2a3::{PARTIAL_CHECKS, SCATTER_CHECKS, SORT_OPERANDS};
use super::common::*;
use super::{Applies, Check, CheckKind, Dispute, Extent, Fault, Row, ShapeReq, Table};
use pto_ir::ops::{Family, Opcode as O};
use pto_ir::types::ElemType::{self, *};
use pto_ir::types::Loc;

use Extent::{Cols, Rows, ValidCols, ValidRows};

const PTOAS: &str = "PTOAS verifier (A5 branch)";
/// PTOAS `PTO.cpp` (TExtractOp::verify, A5): a vec -> vec textract keeps the ND layout.
const VEC_EXTRACT_ND: &str = "expects A5 vec->vec textract src/dst to use ND layout (blayout=row_major, slayout=none_box)";

/// The A5 TCVT conversion matrix (pto-isa notes §4.7; fp4 has no element type here).
pub const TCVT_A5: &[(ElemType, &[ElemType])] = &[
    (F32, &[F32, F16, BF16, I16, I32, I64, F8E4M3, F8E5M2, HiF8]),
    (F16, &[F32, I32, I16, I8, U8, HiF8]),
    (BF16, &[F32, I32, F16]),
    (I16, &[U8, F16, F32, U32, I32]),
    (I32, &[F32, I16, U16, I64, U8]),
    (I64, &[F32, I32]),
    (U8, &[F16, U16]),
    (I8, &[F16, I16, I32]),
    (U32, &[U8, U16, I16]),
    (F8E4M3, &[F32]),
    (F8E5M2, &[F32]),
    (HiF8, &[F32]),
];

const MATMUL_IN: &[ElemType] = &[I8, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];
const MATMUL_TRIPLES: &[&[ElemType]] = &[
    &[I32, I8, I8],
    &[F32, F16, F16],
    &[F32, BF16, BF16],
    &[F32, F32, F32],
    &[F32, F8E4M3, F8E4M3],
    &[F32, F8E5M2, F8E5M2],
    &[F32, F8E4M3, F8E5M2],
    &[F32, F8E5M2, F8E4M3],
    &[F32, HiF8, HiF8],
];
/// Row sums also accumulate 64-bit integers on A5.
const ROWSUM: &[ElemType] = &[I16, I32, I64, U64, F16, F32];
/// Row max/min also take 8-bit and 64-bit integers on A5.
const ROWMAXMIN: &[ElemType] = &[I8, U8, I16, I32, I64, U64, F16, F32];
/// Mask-pattern gather: 1/2/4-byte types including the 8-bit floats.
const MASK_GATHER: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];
/// Cube-side extract types.
const EXTRACT: &[ElemType] = &[I8, U8, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];
/// Vec -> mat/vec insert types.
const INSERT_VEC: &[ElemType] = &[I8, U8, I32, U32, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];
/// mgather/mscatter payloads.
const MGATHER: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32, F8E4M3, F8E5M2];

/// The A5 table.
pub static TABLE: Table = Table { target: crate::target::TargetId::A5, name: "a5", tmp_rule, rows: ROWS };

fn tmp_rule(t: &pto_ir::ops::Tmp) -> pto_ir::ops::TmpRule {
    t.a5
}

/// A5 `tmuls` on 1-byte integers: `ptoas` accepts i8, pto-isa's A5 code static_asserts it out.
const TMULS_BYTES: Dispute = Dispute {
    ptoas: "accepts i8 in A5 tmuls (lib/PTO/IR/PTO.cpp:6113)",
    pto_isa: "static_asserts 2-, 4- and 8-byte types (include/pto/npu/a5/TMulS.hpp:57-60, TMULS.md): the emitted C++ does not compile against pto-isa's A5 headers",
    rejects: false,
};

static ROWS: &[Row] = &[
    // ---------------- Elementwise binary ----------------
    Row {
        applies: Applies::Family(Family::ElemBinary),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(VEC11)]), TMP_VEC],
        source: "pto-isa notes §4.1 (TADD on A5 adds u32 i64 u64 u16 bf16 u8 i8)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSub, O::TMin, O::TMax]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT8_32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMul, O::TDiv, O::TFmod]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT16_32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TPrelu]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRem]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT16_32_F16_F32)]), operand(&["tmp"], &[VEC_RM])],
        checks: &[TMP_LIKE_DST, le("dst", ValidCols, "tmp", ValidCols, "the scratch row covers the dst valid columns")],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Bitwise ----------------
    Row {
        applies: Applies::Family(Family::Bitwise),
        operands: &[operand(&["src0", "src1", "src", "dst"], &[vec_rm(INT8_32)]), TMP_VEC],
        source: "PTOAS verifier (tand/tor/txor/tnot: i8/i16/i32 on A5)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TShl, O::TShr]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT8_64)])],
        source: "pto-isa notes §4.1 (TSHL/TSHR on A5 add i64/u64)",
        ..Row::DEFAULT
    },
    // ---------------- Ternary / fused ----------------
    Row {
        applies: Applies::Family(Family::Ternary),
        operands: &[operand(&["src0", "src1", "src2", "dst"], &[vec_rm(VEC9)]), TMP_VEC],
        source: "A5 vector types (PTOAS isSupportedVecElemType; no per-op facts)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TAddReluConv, O::TAddDeqRelu]),
        operands: &[operand(&["src0", "src1", "dst"], &[VEC_RM])],
        source: "mixed-type fused ops: element types not documented per target; location and layout only",
        ..Row::DEFAULT
    },
    // ---------------- Unary ----------------
    Row {
        applies: Applies::Family(Family::Unary),
        operands: &[operand(&["src", "dst"], &[vec_rm(F16_F32)]), TMP_VEC],
        source: "PTOAS verifier (tabs/texp/tlog/tsqrt/trsqrt/trecip: f16 f32)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TNeg]), operands: &[operand(&["src", "dst"], &[vec_rm(VEC9)])], source: PTOAS, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TRelu]),
        operands: &[operand(&["src", "dst"], &[vec_rm(I32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Tile-scalar ----------------
    Row {
        applies: Applies::Family(Family::TileScalar),
        operands: &[operand(&["src", "src0", "src1", "dst"], &[vec_rm(VEC11)]), TMP_VEC],
        checks: &[eq(
            "src",
            ValidCols,
            "dst",
            ValidCols,
            "A5 tile-scalar ops iterate the dst valid columns over src (only the valid columns must agree)",
        )],
        source: "pto-isa notes §4.1 (TADDS/TMINS/TMAXS on A5: 11 types; only validCol checked)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMuls, O::TSubs]),
        operands: &[operand(&["src", "dst"], &[vec_rm(VEC9)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMuls]),
        checks: &[check(
            CheckKind::DtypeTuples { slots: &["src"], tuples: &[&[I16], &[U16], &[I32], &[U32], &[I64], &[U64], &[F16], &[BF16], &[F32]] },
            "pto-isa's A5 TMULS has no 1-byte types",
        )
        .disputed(&TMULS_BYTES)],
        source: "PTOAS verifier (A5 tmuls: i32/i16/i8/f16/bf16/f32, PTO.cpp:6113); pto-isa npu/a5/TMulS.hpp:57-60 (no 1-byte types)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TDivs]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT8_32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TFmods]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT16_32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRems]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT16_32_F16_F32)]), operand(&["tmp"], &[VEC_RM])],
        checks: &[TMP_LIKE_DST, le("dst", ValidCols, "tmp", ValidCols, "the scratch row covers the dst valid columns")],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TAnds, O::TOrs, O::TXors]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT8_32)])],
        checks: &[NOT_IN_PLACE],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TShls, O::TShrs]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT8_64)])],
        source: "pto-isa notes §4.1 (TSHLS/TSHRS on A5: i8..u64, 64-bit emulated)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TLrelu]), operands: &[operand(&["src", "dst"], &[vec_rm(F16_F32)])], source: PTOAS, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TAxpy]),
        operands: &[operand(&["src", "dst"], &[vec_rm(F16_F32)])],
        checks: &[
            check(
                CheckKind::DtypeTuples { slots: &["src", "dst"], tuples: &[&[F16, F16], &[F32, F32], &[F16, F32]] },
                "taxpy keeps the element type or widens f16 to f32",
            ),
            SCALAR_LIKE_SRC,
        ],
        source: "pto-isa npu/a5/TAxpy.hpp:99-111 (f16/f32 only; PTOAS also accepts bf16)",
        ..Row::DEFAULT
    },
    SCALAR_TYPE_ROW,
    Row {
        applies: Applies::Ops(&[O::TExpands]),
        operands: &[operand(&["dst"], &[vec_rm(VEC11), var(&[Loc::Mat], Some(VEC11), &[], &[EXPANDS_MAT_BLOCKS])])
            .disputed(&[var(&[Loc::Mat], Some(VEC11), &[], &[])], &EXPANDS_MAT_DISPUTE)],
        source: "pto-isa notes §4.1 (TEXPANDS on A5 adds i64/u64; Vec must be row-major; Mat of 1 to 32767 32-byte blocks, npu/a5/TExpandS.hpp:90-95)",
        ..Row::DEFAULT
    },
    // ---------------- Compare / select ----------------
    Row {
        applies: Applies::Family(Family::CmpSel),
        operands: &[operand(&["src0", "src1", "src", "dst", "mask", "tmp"], &[VEC])],
        checks: &[
            eq("src0", ValidRows, "dst", ValidRows, "one mask row per data row"),
            eq("src", ValidRows, "dst", ValidRows, "one mask row per data row"),
        ],
        source: "PTOAS verifier (compare/select operands live in UB)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TCmp]),
        operands: &[operand(&["src0", "src1"], &[vec_rm(VEC11)]), operand(&["dst"], &[vec_rm(&[I8, U8])])],
        source: "pto-isa npu/a5/TCmp.hpp:136-157 (11 input types incl. 64-bit, all three tiles row-major)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TCmps]),
        operands: &[operand(&["src"], &[vec_any(VEC11)]), MASK_RM],
        source: "pto-isa notes §4.1 (TCMPS on A5: 11 types, every compare mode); npu/a5/TCmps.hpp:237 (row-major mask)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSel]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(VEC11)])],
        checks: &[MASK_ROWS_COVER_DST],
        source: "pto-isa notes §4.1 (TSEL on A5: 1/2/4/8-byte types); npu/a5/TSel.hpp:40-45 (one mask row per dst row)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSels]),
        operands: &[operand(&["src", "dst"], &[vec_rm(&[I8, U8, I16, U16, I32, U32, I64, U64, F16, F32])])],
        checks: &[MASK_ROWS_COVER_DST],
        source: "pto-isa npu/a5/TSels.hpp:123-141 (PTOAS lists only i8 i16 i32 f16 f32)",
        ..Row::DEFAULT
    },
    // ---------------- Row reductions ----------------
    Row {
        applies: Applies::Family(Family::RowReduce),
        operands: &[operand(&["src"], &[vec_nd(I16_I32_F16_F32)]), operand(&["dst"], &row_red_dst(I16_I32_F16_F32)), TMP_VEC],
        checks: &[ROWS_SRC_DST, TMP_LIKE_SRC],
        source: "pto-isa notes §4.1, §4.3 (A5 row reductions; src ND; dst ND or DN with one column)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowSum]),
        operands: &[operand(&["src"], &[vec_nd(ROWSUM)]), operand(&["dst"], &row_red_dst(ROWSUM))],
        source: "pto-isa notes §4.1 (TROWSUM on A5 adds i64/u64)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowMax, O::TRowMin]),
        operands: &[operand(&["src"], &[vec_nd(ROWMAXMIN)]), operand(&["dst"], &row_red_dst(ROWMAXMIN))],
        source: "pto-isa notes §4.1 (TROWMAX on A5 adds i8/u8 and i64/u64)",
        ..Row::DEFAULT
    },
    // ---------------- Column reductions ----------------
    Row {
        applies: Applies::Family(Family::ColReduce),
        operands: &[operand(&["src", "dst"], &[vec_nd(VEC11)]), operand(&["tmp"], &[vec_nd(VEC11)])],
        checks: &[COLS_SRC_DST, TMP_LIKE_SRC, COLSUM_TMP_COVERS_SRC],
        source: "pto-isa notes §4.1 (TCOLSUM/TCOLMAX on A5: 11 types, ND)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColProd]),
        operands: &[operand(&["src", "dst"], &[vec_nd(&[I16, U16, I32, U32, F16, BF16, F32])])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Arg-reductions ----------------
    Row {
        applies: Applies::Family(Family::ArgReduce),
        operands: &[
            operand(&["src"], &[vec_nd(BYTES_2_4)]),
            operand(&["dst"], &row_red_dst(I32_U32)),
            operand(&["idx"], &row_red_dst(INT16_32)),
            operand(&["val"], &row_red_dst(BYTES_2_4)),
            TMP_VEC,
        ],
        checks: &[
            ROWS_SRC_DST,
            ROWARG_IDX_WIDTH,
            eq("src", ValidRows, "idx", ValidRows, "one index per src row"),
            eq("src", ValidRows, "val", ValidRows, "one value per src row"),
            same_dtype("src", "val", "values keep the src element type"),
            TMP_LIKE_SRC,
        ],
        source: "pto-isa notes §4.1 (TROWARGMAX on A5: any 2/4-byte type; dst DN Rx1 or ND with one valid column)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColArgMax, O::TColArgMin]),
        operands: &[
            operand(&["src"], &[vec_nd(BYTES_1_2_4)]),
            operand(&["dst"], &[col_red_dst(I32_U32)]),
            operand(&["idx"], &[col_red_dst(INT16_32)]),
            operand(&["val"], &[col_red_dst(BYTES_2_4)]),
        ],
        checks: &[
            COLS_SRC_DST,
            eq("src", ValidCols, "idx", ValidCols, "one index per src column"),
            eq("src", ValidCols, "val", ValidCols, "one value per src column"),
            same_dtype("src", "val", "values keep the src element type"),
            TMP_LIKE_SRC,
        ],
        inherit_checks: false,
        source: "pto-isa notes §4.1, §4.2 (TCOLARGMAX on A5: any 1/2/4-byte src, 8-bit not in val+idx)",
        ..Row::DEFAULT
    },
    // ---------------- Expand / broadcast ----------------
    Row {
        applies: Applies::Family(Family::Expand),
        operands: &[operand(&["src0", "dst"], &[vec_rm(INT8_32_F16_F32)]), ROW_BROADCAST, TMP_VEC],
        checks: &ROW_EXPAND_CHECKS,
        source: "pto-isa npu/a2a3/TRowExpandSub.hpp:65-89, npu/a5/TRowExpandSub.hpp:88-108 (src0 has dst's valid shape and is row-major, src1 one block or one column per row); PTOAS verifier (trowexpand{add,sub,mul,max,min}: i8 i16 i32 f16 f32 on A5, dst row-major)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowExpandDiv, O::TRowExpandExpdif]),
        operands: &[operand(&["src0", "dst"], &[vec_rm(F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowExpand]),
        operands: &[operand(&["src"], &[var(&[Loc::Vec], Some(VEC9), &[NONE_BOX], &[])]), operand(&["dst"], &[vec_nd(VEC9)])],
        checks: &[ROWS_SRC_DST],
        inherit_checks: false,
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColExpand]),
        operands: &[operand(&["src", "dst"], &[vec_nd(VEC9)])],
        checks: &[COLS_SRC_DST],
        inherit_checks: false,
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColExpandAdd, O::TColExpandSub, O::TColExpandMul, O::TColExpandMax, O::TColExpandMin]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT8_32_F16_F32)])],
        checks: &COL_EXPAND_CHECKS,
        inherit_checks: false,
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColExpandDiv, O::TColExpandExpdif]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(F16_F32)])],
        checks: &COL_EXPAND_CHECKS,
        inherit_checks: false,
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Partial ----------------
    Row {
        applies: Applies::Family(Family::Partial),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_any(VEC9)])],
        checks: &PARTIAL_CHECKS,
        source: "PTOAS verifier (tpart* on A5: i8 i16 i32 f16 bf16 f32)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TPartArgMax, O::TPartArgMin]),
        operands: &PART_ARG_OPERANDS,
        checks: &[PART_ARG_INDEX],
        source: PART_ARG_SOURCE,
        ..Row::DEFAULT
    },
    // ---------------- Gather / scatter ----------------
    Row {
        applies: Applies::Family(Family::GatherScatter),
        operands: &[operand(&["src", "dst", "indices", "offsets", "tmp", "k", "cdst"], &[VEC])],
        source: "gather/scatter operands live in UB",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGather]),
        form: Some(0),
        operands: &[
            operand(&["src"], &[vec_any(VEC11)]),
            operand(&["dst"], &[var(&[Loc::Vec], Some(VEC11), &[], &[ShapeReq::Same(ValidCols, Cols)])]),
            operand(&["indices"], &[var(&[Loc::Vec], Some(INT16_32), &[], &[ShapeReq::Same(ValidCols, Cols)])]),
        ],
        checks: &[GATHER_INDEX_SAME_DTYPE, GATHER_INDICES_COVER_DST[0], GATHER_INDICES_COVER_DST[1]],
        source: "pto-isa notes §4.1 (TGATHER index on A5: 1/2/4/8-byte data, 16/32-bit idx; tmp unused)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGather]),
        form: Some(1),
        operands: &[
            operand(&["src"], &[vec_rm(MASK_GATHER)]),
            operand(&["dst"], &[var(&[Loc::Vec], Some(MASK_GATHER), &[ROW_MAJOR], &[ShapeReq::Same(ValidCols, Cols)])]),
        ],
        checks: &[check(CheckKind::SameWidth("src", "dst"), "mask-pattern gather copies elements")],
        source: "pto-isa notes §4.1 (TGATHER mask on A5 adds 1-byte types and fp8/hif8)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGather]),
        form: Some(2),
        operands: &[
            operand(&["src"], &[vec_rm(INT16_32_F16_F32)]),
            operand(&["k"], &[vec_any(&[U16, U32])]),
            operand(&["dst", "cdst"], &[vec_rm(I32_U32)]),
        ],
        checks: &[
            same_dtype("dst", "cdst", "indices and counts share a type"),
            check(
                CheckKind::AttrWhen { attr: "cmpMode", kind: "cmp", slot: "src", dtypes: INT16_32_F16_F32, allowed: &["eq", "gt"] },
                "compare-form gather supports EQ and GT",
            ),
        ],
        source: "pto-isa notes §4.1 (TGATHER compare on A5: src i16/u16/i32/u32/f16/f32, k u16/u32)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGatherB]),
        operands: &[operand(&["dst"], &[vec_any(BYTES_1_2_4)]), operand(&["offsets"], &[vec_any(I32_U32)])],
        checks: &[OFFSET_ROWS_COVER_DST],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TScatter]),
        operands: &[operand(&["src", "dst"], &[vec_any(VEC9)]), operand(&["indices"], &[vec_any(INT16_32)])],
        checks: &SCATTER_CHECKS,
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::MGather, O::MScatter]),
        operands: &[operand(&["src", "dst"], &[vec_any(MGATHER)]), operand(&["indices"], &[vec_any(&[I32])])],
        checks: &MGATHER_MEM_DTYPE,
        source: "PTOAS verifier (mgather/mscatter: A5 only, i32 indices, fp8 payloads allowed, GM table of the tile type)",
        ..Row::DEFAULT
    },
    // ---------------- Sort ----------------
    Row {
        applies: Applies::Family(Family::Sort),
        operands: &SORT_OPERANDS,
        source: "pto-isa notes §4.1 (TSORT32/TMRGSORT: f16/f32, u32 idx; TMRGSORT rows == 1)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMrgSort]),
        operands: &[operand(
            &["src", "dst", "src0", "src1", "src2", "src3", "tmp"],
            &[var(&[Loc::Vec], Some(F16_F32), &[ROW_MAJOR], &[ShapeReq::Eq(Rows, 1)])],
        )],
        checks: &[MRGSORT_BLOCK_LEN],
        source: "pto-isa notes §4.1 (TMRGSORT: all tiles have one row)",
        ..Row::DEFAULT
    },
    // ---------------- Conversion ----------------
    Row {
        applies: Applies::Family(Family::Convert),
        operands: &[operand(&["src", "dst"], &[VEC_RM]), TMP_VEC],
        checks: &[check(CheckKind::DtypeMap { from: "src", to: "dst", map: TCVT_A5 }, "A5 TCVT conversion matrix (pto-isa notes §4.7)")],
        source: "pto-isa notes §4.7",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuant]),
        form: Some(0),
        operands: &[operand(&["src", "scale", "offset", "tmp"], &[vec_any(&[F32])]), operand(&["dst"], &[vec_any(&[I8, U8])])],
        checks: &QUANT_INT8_CHECKS,
        inherit_checks: false,
        source: QUANT_INT8_SOURCE,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuant]),
        form: Some(1),
        operands: &MX_QUANT_OPERANDS,
        checks: &MX_QUANT_CHECKS,
        inherit_checks: false,
        source: MX_QUANT_SOURCE,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuantDn]),
        operands: &MX_QUANT_OPERANDS,
        checks: &MX_QUANT_CHECKS,
        inherit_checks: false,
        source: MX_QUANT_SOURCE,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuantHif4]),
        supported: false,
        source: "pto-isa: HiF4 quantization (TQUANT_HIF4) is A6-only (npu/a6/TQuant.hpp)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TDequant]),
        operands: &DEQUANT_OPERANDS,
        checks: &DEQUANT_CHECKS,
        inherit_checks: false,
        source: DEQUANT_SOURCE,
        ..Row::DEFAULT
    },
    // ---------------- Matmul ----------------
    Row {
        applies: Applies::Family(Family::Matmul),
        operands: &[
            operand(&["a"], &[var(&[Loc::Left], Some(MATMUL_IN), &[NZ], MKN_A)]),
            operand(&["b"], &[var(&[Loc::Right], Some(MATMUL_IN), &[ZN], MKN_B)]),
            operand(&["c", "c_in"], &[var(&[Loc::Acc], Some(I32_F32), &[NZ], &[])]),
            operand(&["bias"], &[var(&[Loc::Bias], None, &[ROW_MAJOR], &[ShapeReq::Eq(Rows, 1)])]),
            operand(&["a_scale", "b_scale"], &[var(&[Loc::Scaling], None, &[], &[])]),
        ],
        checks: &[
            check(CheckKind::DtypeTuples { slots: &["c", "a", "b"], tuples: MATMUL_TRIPLES }, "supported (c, a, b) element types"),
            MATMUL_SHAPES[0],
            MATMUL_SHAPES[1],
            MATMUL_SHAPES[2],
            same_dtype("c_in", "c", "accumulation keeps the accumulator type"),
            same_dtype("bias", "c", "the bias has the accumulator type"),
        ],
        source: "pto-isa notes §2.4 (A5 TileLeft is Nz, TileRight Zn, TileAcc Nz), §4.1 (TMATMUL layout asserts on A5); PTOAS notes §4",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGemv, O::TGemvAcc, O::TGemvBias, O::TGemvMx, O::TGemvMxAcc, O::TGemvMxBias]),
        operands: &[
            operand(&["a"], &[var(&[Loc::Left], Some(MATMUL_IN), &[NZ], &GEMV_A)]),
            operand(&["c"], &[var(&[Loc::Acc], Some(I32_F32), &[NZ], &[ShapeReq::Eq(ValidRows, 1)])]),
        ],
        checks: &[
            check(CheckKind::DtypeTuples { slots: &["c", "a", "b"], tuples: MATMUL_TRIPLES }, "supported (c, a, b) element types"),
            eq("a", ValidCols, "b", ValidRows, "gemv tiles are a[1,K], b[K,N], c[1,N]"),
            eq("b", ValidCols, "c", ValidCols, "gemv tiles are a[1,K], b[K,N], c[1,N]"),
            same_dtype("c_in", "c", "accumulation keeps the accumulator type"),
            same_dtype("bias", "c", "the bias has the accumulator type"),
        ],
        inherit_checks: false,
        source: "PTOAS verifier (tgemv: lhs valid rows 1; A5 matmul layouts)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMatmulMx, O::TMatmulMxAcc, O::TMatmulMxBias, O::TGemvMx, O::TGemvMxAcc, O::TGemvMxBias]),
        operands: &[
            operand(&["a"], &[var(&[Loc::Left], Some(FP8), &[NZ], MX_A)]),
            operand(&["b"], &[var(&[Loc::Right], Some(FP8), &[ZN], MKN_B)]),
            operand(&["c", "c_in"], &[var(&[Loc::Acc], Some(&[F32]), &[NZ], &[])]),
            operand(&["bias"], &[var(&[Loc::Bias], Some(&[F32]), &[ROW_MAJOR], &[ShapeReq::Eq(Rows, 1)])]),
            operand(&["a_scale"], &[var(&[Loc::ScaleLeft], Some(E8M0), &[ZZ_MX], &[]), var(&[Loc::Scaling], None, &[], &[])]),
            operand(&["b_scale"], &[var(&[Loc::ScaleRight], Some(E8M0), &[NN_MX], &[]), var(&[Loc::Scaling], None, &[], &[])]),
        ],
        checks: &[check(
            CheckKind::DtypeTuples {
                slots: &["a", "b"],
                tuples: &[&[F8E4M3, F8E4M3], &[F8E4M3, F8E5M2], &[F8E5M2, F8E4M3], &[F8E5M2, F8E5M2]],
            },
            "pto-isa's MX matmul takes e4m3/e5m2 operand pairs (no hif8)",
        )
        .disputed(&MX_FP8_PAIRS)],
        source: "PTOAS verifier (A5 mx: fp8 operands, f32 result, scale tiles in the scaling buffer); pto-isa TMATMUL_MX/TGEMV_MX pages and a5/TMatmul.hpp (e8m0 scales in TileLeftScale / TileRightScale: Zz / Nn, fractal 32); npu/a5/TMatmul.hpp:114 (K % 64)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGemvMx, O::TGemvMxAcc, O::TGemvMxBias]),
        operands: &[operand(&["a"], &[var(&[Loc::Left], Some(FP8), &[NZ], MX_GEMV_A)])],
        source: "PTOAS verifier (tgemv.mx: lhs valid rows 1); pto-isa npu/a5/TMatmul.hpp:114 (K % 64)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMatmulMxHif4]),
        supported: false,
        source: "pto-isa a6/TMatmul.hpp:195-201 (HiF4 matmul combinations exist only on A6)",
        ..Row::DEFAULT
    },
    // ---------------- Memory ----------------
    Row {
        applies: Applies::Family(Family::Memory),
        operands: &[LOAD_DST_A5],
        checks: &[check(CheckKind::SameWidth("src", "dst"), "GM data is copied without conversion")],
        source: "PTOAS verifier (A5 tload: 1/2/4/8-byte elements of the same size); pto-isa TLOAD targets Vec or Mat",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TLoad]),
        checks: &[
            LOAD_VIEW_SHAPE,
            LOAD_VALID_ROWS_POSITIVE,
            LOAD_VALID_COLS_POSITIVE,
            TLOAD_VEC_LAYOUT,
            TLOAD_CONVERT_A5,
            check(
                CheckKind::GmLayout {
                    view: "src",
                    tile: "dst",
                    pairs: &[("nd", &[ND, NZ]), ("dn", &[DN, NZ, ZN]), ("nz", &[NZ])],
                    vectors_any: false,
                    elem_bytes: None,
                },
                "a mat tile is loaded ND2NZ/DN2NZ/ND2ND/DN2DN/NZ2NZ/DN2ZN (TLoadCubeCheck, register/tload_common.hpp:130-146)",
            )
            .when_loc("dst", &[Loc::Mat])
            .disputed(&TLOAD_LAYOUT_DISPUTE),
        ],
        source: "pto-isa TLOAD (GM shape = tile valid shape: A2A3 memory/tload_common.hpp, A5 register/tload_common.hpp, cpu/TLoad.hpp)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TStore]),
        operands: &[operand(
            &["src"],
            &[var(&[Loc::Vec], Some(LOAD_STORE_A5), &[], &[]), var(&[Loc::Acc], Some(I32_F32), &[], &ACC_STORE_SHAPE)],
        )],
        checks: &[
            check(CheckKind::SameWidth("src", "dst"), "vec stores copy without conversion").when_loc("src", &[Loc::Vec]),
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(I32, &[I32, F32, F16, BF16]), (F32, &[I32, F32, F16, BF16])] },
                "the fixpipe converts acc data to i32/f32/f16/bf16",
            )
            .when_loc("src", &[Loc::Acc]),
            STORE_VIEW_SHAPE,
            STORE_VALID_ROWS_POSITIVE,
            STORE_VALID_COLS_POSITIVE,
            TSTORE_VEC_LAYOUT,
            TSTORE_ACC_LAYOUT,
            ATOMIC_ADD_TYPES,
            RELU_ONLY_FROM_ACC,
        ],
        inherit_checks: false,
        source: "PTOAS notes §4 (A5 tstore src loc vec or acc: mat is rejected); pto-isa npu/a5/TStore.hpp:127-136 (acc: cols in [1, 4095], rows in [1, 8192] to ND)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TStoreFp]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], Some(&[I32, U32, F32]), &[], &[])]),
            operand(&["fp"], &[var(&[Loc::Scaling], None, &[], &[])]),
        ],
        checks: &[STORE_VIEW_SHAPE, TSTORE_ACC_LAYOUT],
        inherit_checks: false,
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Move / layout ----------------
    Row {
        applies: Applies::Family(Family::Move),
        source: "no family-wide facts (moves connect every location); see the per-op rows",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMov]),
        operands: &[
            operand(
                &["dst"],
                &[
                    var(&[Loc::Left], None, &[NZ], &[]),
                    var(&[Loc::Right], None, &[ZN], &[]),
                    var(&[Loc::Vec, Loc::Mat], None, &[], &[]),
                    BIAS_DST,
                    SCALING_DST,
                ],
            ),
            TMP_VEC,
        ],
        checks: &[
            check(
                CheckKind::LocPairs {
                    from: "src",
                    to: "dst",
                    pairs: &[
                        (Loc::Mat, &[Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling]),
                        (Loc::Vec, &[Loc::Vec, Loc::Mat]),
                        (Loc::Acc, &[Loc::Mat, Loc::Vec]),
                    ],
                },
                "A5 tmov location pairs (adds vec -> mat)",
            ),
            eq("src", Rows, "dst", Rows, "mat-source tmov keeps the static shape").when_loc("src", &[Loc::Mat]),
            eq("src", Cols, "dst", Cols, "mat-source tmov keeps the static shape").when_loc("src", &[Loc::Mat]),
            same_dtype("src", "dst", "mat -> left/right moves copy elements (pto-isa npu/a5/TMov.hpp:244-246)")
                .when_loc("dst", &[Loc::Left, Loc::Right]),
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(I32, &[I32]), (F32, &[F32]), (F16, &[F32]), (BF16, &[F32])] },
                "the bias table holds i32 or f32 (f16/bf16 widened)",
            )
            .when_loc("dst", &[Loc::Bias]),
            SCALING_SAME_DTYPE,
            TMOV_FIXPIPE_MODES[0],
            TMOV_FIXPIPE_MODES[1],
            TMOV_FIXPIPE_MODES[2],
        ],
        source: "PTOAS verifier (tmov pairs); pto-isa notes §2.4 (A5 left Nz, right Zn); pto-isa npu/a5/TMov.hpp, npu/a5/common.hpp",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMov]),
        form: Some(0),
        checks: &[check(
            CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[F16, BF16, F32]), (I32, &[I32])] },
            "A5 plain acc -> mat/vec tmov converts f32 to f16/bf16/f32 and keeps i32 (pto-isa npu/a5/common.hpp:166-175)",
        )
        .when_loc("src", &[Loc::Acc])],
        inherit_checks: true,
        source: "pto-isa npu/a5/common.hpp:140-175 (CheckTMovAccValid without quantisation)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TMov]), form: Some(1), ..TMOV_QUANT },
    Row { applies: Applies::Ops(&[O::TMov]), form: Some(2), ..TMOV_QUANT },
    Row {
        applies: Applies::Ops(&[O::TMovFp]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], Some(&[I32, U32, F32]), &[NZ], &[])]),
            operand(&["fp"], &[var(&[Loc::Scaling], None, &[], &[])]),
            operand(&["dst"], &[var(&[Loc::Vec, Loc::Mat], None, &[], &[])]),
        ],
        source: "PTOAS verifier (src, fp); TMOV_FP.md (A5): the fp path writes Vec or Mat (ptoas does not check dst)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TExtractFp, O::TInsertFp]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], Some(I32_F32), &[NZ], &[])]),
            operand(&["fp"], &[var(&[Loc::Scaling], None, &[], &[])]),
            operand(&["dst"], &[var(&[Loc::Mat], None, &[NZ], &[])]),
        ],
        checks: &[check(
            CheckKind::DtypeMap {
                from: "src",
                to: "dst",
                map: &[(F32, &[I8, U8, F8E4M3, F8E5M2, HiF8, F16, BF16, F32]), (I32, &[I8, U8, F16, BF16])],
            },
            "A5 fixpipe pre-quantisation pairs",
        )],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TExtract]),
        operands: &[
            operand(
                &["src"],
                &[
                    var(&[Loc::Mat], Some(EXTRACT), &[ROW_MAJOR, NZ], &[]),
                    var(&[Loc::Vec], Some(EXTRACT), &[ND], &[]),
                    var(&[Loc::Acc], Some(I32_F32), &[NZ], &[]),
                ],
            )
            .ptoas(Fault::Layout(Loc::Vec), VEC_EXTRACT_ND),
            operand(
                &["dst"],
                &[
                    var(&[Loc::Left], Some(EXTRACT), &[NZ], &[]),
                    var(&[Loc::Right], Some(EXTRACT), &[ZN], &[]),
                    var(&[Loc::Scaling, Loc::Mat], Some(EXTRACT), &[], &[]),
                    var(&[Loc::Vec], Some(EXTRACT), &[ND], &[]),
                ],
            )
            .ptoas(Fault::Layout(Loc::Vec), VEC_EXTRACT_ND),
        ],
        checks: &[
            COPY_SAME_DTYPE,
            check(
                CheckKind::LocPairs {
                    from: "src",
                    to: "dst",
                    pairs: &[
                        (Loc::Mat, &[Loc::Left, Loc::Right, Loc::Scaling]),
                        (Loc::Vec, &[Loc::Mat, Loc::Vec]),
                        (Loc::Acc, &[Loc::Mat, Loc::Vec]),
                    ],
                },
                "A5 textract location pairs (pto-isa npu/a5/TExtract.hpp:587-603 adds acc -> mat/vec)",
            ),
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[F16, BF16, F32]), (I32, &[I32])] },
                "A5 acc extraction converts f32 to f16/bf16/f32 and keeps i32 (pto-isa npu/a5/common.hpp:147-175)",
            )
            .when_loc("src", &[Loc::Acc]),
            EXTRACT_WINDOW.when_loc("src", &[Loc::Mat, Loc::Acc]),
            EXTRACT_WINDOW_VALID.when_loc("src", &[Loc::Vec]),
        ],
        source: "PTOAS verifier (A5 textract: mat -> left (Nz) / right (Zn) / scaling, vec -> mat / vec)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TInsert]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], Some(I32_F32), &[NZ], &[]), var(&[Loc::Vec], Some(INSERT_VEC), &[ND, NZ], &[])]),
            operand(&["dst"], &[var(&[Loc::Mat], None, &[NZ], &[]), var(&[Loc::Vec], None, &[ND], &[])]),
        ],
        checks: &[
            check(
                CheckKind::LocPairs { from: "src", to: "dst", pairs: &[(Loc::Acc, &[Loc::Mat]), (Loc::Vec, &[Loc::Mat, Loc::Vec])] },
                "A5 tinsert location pairs",
            )
            .ptoas("expects A5 tinsert to use a supported src/dst loc pair: acc->mat, vec->mat, or vec->vec"),
            check(
                CheckKind::DtypeTuples { slots: &["src", "dst"], tuples: &[&[F32, F16], &[F32, BF16], &[F32, F32], &[I32, I32]] },
                "A5 acc -> mat tinsert conversions",
            )
            .when_loc("src", &[Loc::Acc]),
            same_dtype("src", "dst", "vec-source tinsert copies elements").when_loc("src", &[Loc::Vec]),
            INSERT_WINDOW.when_loc("src", &[Loc::Acc]),
            INSERT_WINDOW_VALID.when_loc("src", &[Loc::Vec]),
            check(
                CheckKind::SameLayout("src", "dst"),
                "vec -> vec insertion copies within one layout (pto-isa npu/a5/TInsert.hpp:527-558)",
            )
            .when_loc("dst", &[Loc::Vec]),
        ],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TTrans]),
        operands: &[operand(&["src", "dst", "tmp"], &[vec_any(BYTES_1_2_4)])],
        checks: &[TMP_LIKE_SRC],
        source: "PTOAS verifier (A5 ttrans: 1/2/4-byte types, any layout)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TReshape]),
        checks: &[check(CheckKind::SameLoc("src", "dst"), "a reshape reinterprets the same bytes"), RESHAPE_SAME_BYTES],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TFillPad, O::TFillPadInplace, O::TFillPadExpand]),
        operands: &[operand(&["src"], &[var(&[], Some(BYTES_1_2_4), &[], &[])]), FILLPAD_DST],
        checks: &[check(CheckKind::SameWidth("src", "dst"), "padding copies elements")],
        source: "PTOAS verifier; pto-isa npu/a2a3/TFillPad.hpp:284, 312, 385 (dst pad value set)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TConcat]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(&[I8, I16, I32, F16, BF16, F32])])],
        checks: &[
            CONCAT_FITS,
            eq("src0", ValidRows, "dst", ValidRows, "concatenation along columns keeps the rows"),
            eq("src1", ValidRows, "dst", ValidRows, "concatenation along columns keeps the rows"),
        ],
        source: "PTOAS verifier (A5 tconcat is row-major)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TPack]),
        operands: &[operand(&["src", "dst"], &[VEC_RM])],
        checks: &TPACK_CHECKS,
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TImg2Col]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Mat], Some(IMG2COL), &[], &[])]),
            operand(&["dst"], &[var(&[Loc::Left], Some(IMG2COL), &[NZ], &[])]),
        ],
        source: "pto-isa a5/TImg2col.hpp:109-126 (Mat feature map, Left NZ destination, 8/16/32-bit integers, f16 bf16 f32)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSubview]),
        checks: &SUBVIEW_CHECKS,
        source: "pto-isa a2a3/TSubView.hpp:25-38 (included by A5)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TInterleave]),
        operands: &[operand(
            &["src0", "src1", "dst0", "dst1"],
            &[var(&[Loc::Vec], Some(VEC9), &[ROW_MAJOR], &[ShapeReq::Multiple(ValidCols, 2)])],
        )],
        source: "pto-isa a5/TInterleave.hpp:26-41 (nine element types, row-major, even valid columns; TINTERLEAVE.md)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TDeinterleave]),
        operands: &[operand(&["src0", "src1", "src", "dst0", "dst1"], &[vec_rm(VEC9)])],
        source: "pto-isa a5/TDeInterleave.hpp:26-35, 187-196 (nine element types, row-major; TDEINTERLEAVE.md)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TDeinterleave]),
        form: Some(1),
        checks: &DEINTERLEAVE_ONE_SOURCE,
        source: DEINTERLEAVE_ONE_SOURCE_WHY,
        ..Row::DEFAULT
    },
    // ---------------- Generation ----------------
    Row {
        applies: Applies::Family(Family::Generate),
        operands: &[operand(&["dst"], &[VEC])],
        source: "generated tiles live in UB",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TCi]), operands: &[TCI_DST], checks: &[TCI_START], source: TCI_SOURCE, ..Row::DEFAULT },
    Row { applies: Applies::Ops(&[O::TTri]), operands: &[operand(&["dst"], &[vec_rm(VEC9)])], source: PTOAS, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TPrint]),
        operands: &[operand(&["src"], &[vec_any(&[I8, U8, I16, U16, I32, U32, F16, F32])])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRandom]),
        operands: &[operand(&["dst"], &[vec_rm(I32_U32)])],
        checks: &[check(
            CheckKind::IntAttrIn { attr: "rounds", slot: "dst", allowed: &[7, 10] },
            "the Philox generator runs 7 or 10 rounds (TRANDOM.md; ptoas: 'expects rounds to be 7 or 10')",
        )],
        source: "PTOAS verifier (trandom: A5 only, i32/u32; rounds 7 or 10, lib/PTO/IR/PTO.cpp:3759-3761)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::THistogram]),
        operands: &[
            operand(&["src"], &[vec_nd(&[U16])]),
            // 256 bins per row (PTOAS PTO.cpp: "expects dst shape[1] / valid_shape[1] to be at
            // least 256"; pto-isa's THistogram writes 256 counts per row).
            operand(&["dst"], &[var(&[Loc::Vec], Some(&[U32]), &[ND], &[ShapeReq::Range(Extent::ValidCols, 256, u32::MAX)])]),
        ],
        checks: &[eq("src", ValidRows, "dst", ValidRows, "one histogram row per src row (PTOAS: dst valid rows match src)")],
        source: "pto-isa npu/a5/THistogram.hpp:243-249 (uint16 src, uint32 dst, uint8 idx: static_asserts; PTOAS's verifier also takes signless i16/i32, PTO.cpp:5668-5673, which pto-isa's static_asserts reject); PTOAS verifier (thistogram: A5 only)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::THistogram]),
        operands: &[operand(&["idx"], &[var(&[Loc::Vec], Some(&[U8]), &[DN], &[ShapeReq::Eq(Extent::Cols, 1)])])],
        source: "pto-isa THISTOGRAM.md, npu/a5/THistogram.hpp:244, 255-258 (idx is uint8_t, a DN tile of one column for a uint16 source: static_asserts); PTOAS PTO.cpp (expects idx to use DN layout, exactly one column)",
        ..Row::DEFAULT
    },
    // ---------------- Assign / config ----------------
    Row {
        applies: Applies::Ops(&[O::TGetScaleAddr]),
        operands: &[operand(&["dst"], &[var(&[Loc::Scaling], None, &[], &[])])],
        source: "PTOAS verifier (tget_scale_addr: dst in the scaling address space, PTO.cpp:2290-2293)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TPush]), operands: &[TPUSH_TILE], source: TPIPE_SOURCE, ..Row::DEFAULT },
    Row { applies: Applies::Ops(&[O::TPop]), operands: &[TPOP_TILE], source: TPIPE_SOURCE, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::SetQuantScalar, O::SetQuantVector]),
        operands: &[QUANT_SCALAR, QUANT_VECTOR],
        source: "pto-isa a5/SetQuantScalar.hpp (f32 scale), a5/SetQuantVector.hpp:27 (Scaling tile)",
        ..Row::DEFAULT
    },
    // ---------------- Sync ----------------
    Row {
        applies: Applies::Ops(&[O::SyncAll]),
        operands: &[SYNCALL_WORKSPACE],
        source: "pto-isa pto_instr.hpp:142-150 (soft SYNCALL counts in an int32_t GM word)",
        ..Row::DEFAULT
    },
    // ---------------- Communication ----------------
    Row {
        applies: Applies::Ops(&[O::CommBroadcast, O::CommGather, O::CommGet, O::CommPut, O::CommReduce, O::CommScatter]),
        operands: &[COMM_STAGING],
        source: COMM_SOURCE,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::CommReduce]),
        operands: &[operand(&["acc", "ping", "pong"], &[vec_any(VEC11)])],
        source: "pto-isa comm/a5/TReduce.hpp (reduces with TADD/TMAX/TMIN: their A5 types)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::CommNotify, O::CommTest, O::CommWait]),
        operands: &[COMM_SIGNAL],
        source: COMM_SOURCE,
        ..Row::DEFAULT
    },
];

/// MX quantization operands (A5): f16/bf16/f32 data, fp8 (or packed fp4 bytes) out, E8M0 exponents.
/// `tmov` acc -> mat/vec with pre-quantisation, by a scaling tile (form 1, `TMOV(dst, src, fp)`)
/// or by a scalar (form 2): both check `CheckTMovAccValid<..., true>` (pto-isa
/// `npu/a5/TMov.hpp:861-905`).
const TMOV_QUANT: Row = Row {
    applies: Applies::Ops(&[O::TMov]),
    checks: &[check(
        CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[I8, U8, HiF8, F16, BF16, F8E4M3, F32]), (I32, &[I8, U8, F16, BF16])] },
        "A5 acc -> mat/vec tmov with pre-quantisation (a scaling tile or a scalar; pto-isa npu/a5/common.hpp:150-165)",
    )
    .when_loc("src", &[Loc::Acc])],
    inherit_checks: true,
    source: "pto-isa npu/a5/common.hpp:140-165 (CheckTMovAccValid with quantisation)",
    ..Row::DEFAULT
};

const MX_QUANT_OPERANDS: [super::OperandRule; 4] = [
    operand(&["src"], &[vec_rm(F16_BF16_F32)]),
    operand(&["max", "scaling"], &[vec_any(F16_BF16_F32)]),
    operand(&["dst"], &[vec_rm(&[F8E4M3, I8, U8])]),
    operand(&["exp"], &[vec_any(&[U8])]),
];
/// MXFP4 takes f16/bf16 input only; HiF4 is A6-only.
const MX_QUANT_CHECKS: [super::Check; 2] = [
    check(
        CheckKind::AttrWhen { attr: "mx_alg", kind: "mx_alg", slot: "src", dtypes: &[F32], allowed: &["OcpMxFp8E4M3", "NvMxFp8E4M3"] },
        "MXFP4 input has to be f16 or bf16 (a5/TQuant.hpp:3275-3279)",
    ),
    check(
        CheckKind::AttrWhen {
            attr: "mx_alg",
            kind: "mx_alg",
            slot: "src",
            dtypes: F16_BF16_F32,
            allowed: &["OcpMxFp8E4M3", "NvMxFp8E4M3", "OcpMxFp4E2M1", "NvMxFp4E2M1"],
        },
        "HiF4 quantization is A6-only",
    ),
];
const MX_QUANT_SOURCE: &str = "pto-isa TQUANT.md, TQUANT_DN.md; a5/TQuant.hpp:3267-3325 (MX: f32/bf16/f16 src, MXFP4 from f16/bf16 only)";
/// TIMG2COL types on A5.
const IMG2COL: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32];

const COL_EXPAND_CHECKS: [super::Check; 3] = [
    eq("src0", ValidRows, "dst", ValidRows, "the full operand matches dst"),
    eq("src0", ValidCols, "dst", ValidCols, "the full operand matches dst"),
    eq("src1", ValidCols, "dst", ValidCols, "the per-column operand has the dst columns"),
];

const GEMV_A: [ShapeReq; 2] = [ShapeReq::Eq(ValidRows, 1), ShapeReq::Range(ValidCols, 1, 4095)];

const BYTES_1: &[ElemType] = &[I8, U8, F8E4M3, F8E5M2, HiF8];
const BYTES_2_1: &[ElemType] = &[I16, U16, F16, BF16, I8, U8, F8E4M3, F8E5M2, HiF8];

/// `tpack` narrows 4-byte elements to 2 or 1 bytes and 2-byte ones to 1 byte over one valid shape
/// (PTOAS `PTO.cpp:1544-1552`).
const TPACK_CHECKS: [super::Check; 3] = [
    eq("src", ValidRows, "dst", ValidRows, "tpack keeps the valid shape"),
    eq("src", ValidCols, "dst", ValidCols, "tpack keeps the valid shape"),
    check(
        CheckKind::DtypeMap {
            from: "src",
            to: "dst",
            map: &[(I32, BYTES_2_1), (U32, BYTES_2_1), (F32, BYTES_2_1), (I16, BYTES_1), (U16, BYTES_1), (F16, BYTES_1), (BF16, BYTES_1)],
        },
        "tpack narrows 4-byte elements to 2 or 1 bytes and 2-byte elements to 1 byte",
    ),
];

/// A5 MX matmul operand pairs: `ptoas` takes every fp8-like type, pto-isa the four e4m3/e5m2 pairs.
const MX_FP8_PAIRS: Dispute = Dispute {
    ptoas: "accepts any fp8-like operands, hif8 included (verifyA5MxTypeTriple / isA5MxInputType, lib/PTO/IR/PTO.cpp:4292-4313)",
    pto_isa: "static_asserts the e4m3/e5m2 pairs (isSupportedFp8Combo, include/pto/npu/a5/TMatmul.hpp:98-101, static_assert at :110-112 in CheckMadMxValid)",
    rejects: false,
};

/// Single-source `tdeinterleave`: each src row splits into its even and odd elements, so dst0 and
/// dst1 keep src's valid rows and hold half its valid columns (TDEINTERLEAVE.md). The NPU asserts
/// `dst = src >> 1` (npu/a5/TDeInterleave.hpp:197-205), the CPU simulator `src = 2 × dst`
/// (cpu/TDeinterleave.hpp:79), the page an even src: pto checks `dst × 2 = src`, which is all three.
const DEINTERLEAVE_ONE_SOURCE: [Check; 4] = {
    const WHY: &str =
        "the single-source form splits each src row into its even (dst0) and odd (dst1) elements: same rows, half the columns";
    [
        eq("src", ValidRows, "dst0", ValidRows, WHY),
        eq("src", ValidRows, "dst1", ValidRows, WHY),
        check(CheckKind::Scaled { a: ("dst0", ValidCols), factor: 2, b: ("src", ValidCols) }, WHY),
        check(CheckKind::Scaled { a: ("dst1", ValidCols), factor: 2, b: ("src", ValidCols) }, WHY),
    ]
};
const DEINTERLEAVE_ONE_SOURCE_WHY: &str = "pto-isa a5/TDeInterleave.hpp:197-205 (dst valid shape is src's with half the columns), cpu/TDeinterleave.hpp:79 (src cols = 2 x dst cols); TDEINTERLEAVE.md's 'same valid shape' holds of the rows only";
