//! The A2A3 (Ascend 910B/910C) legality table.

use super::common::*;
use super::{Applies, CheckKind, Dispute, Extent, Fault, Row, ShapeReq, Table};
use pto_ir::ops::{Family, Opcode as O};
use pto_ir::types::ElemType::*;
use pto_ir::types::Loc;

use Extent::{Cols, Rows, ValidCols, ValidRows};

const PTOAS: &str = "PTOAS verifier (A2A3 branch)";

/// The A2A3 TCVT conversion matrix (pto-isa notes §4.7; `int4` has no element type here).
pub const TCVT_A2A3: &[(pto_ir::types::ElemType, &[pto_ir::types::ElemType])] = &[
    (F32, &[F16, F32, BF16, I16, I32, I64]),
    (F16, &[F32, I32, I16, I8, U8]),
    (BF16, &[F32, I32]),
    (I16, &[F16, F32]),
    (I32, &[F32, I16, I64, F16]),
    (I64, &[F32, I32]),
    (U8, &[F16]),
    (I8, &[F16]),
];

const MATMUL_IN: &[pto_ir::types::ElemType] = &[I8, F16, BF16, F32];
/// `textract` element types on A2A3 (pto-isa `npu/a2a3/TExtract.hpp:21-27`).
const EXTRACT_A2A3: &[pto_ir::types::ElemType] = &[I8, U8, F16, BF16, F32];
const MATMUL_TRIPLES: &[&[pto_ir::types::ElemType]] = &[&[I32, I8, I8], &[F32, F16, F16], &[F32, BF16, BF16], &[F32, F32, F32]];

/// The A2A3 table.
pub static TABLE: Table = Table { target: crate::target::TargetId::A2A3, name: "a2a3", tmp_rule, rows: ROWS };

fn tmp_rule(t: &pto_ir::ops::Tmp) -> pto_ir::ops::TmpRule {
    t.a2a3
}

static ROWS: &[Row] = &[
    // ---------------- Elementwise binary ----------------
    Row {
        applies: Applies::Family(Family::ElemBinary),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(I16_I32_F16_F32)]), TMP_VEC],
        source: "pto-isa notes §4.1 (TADD: i32 i16 f16 f32, row-major)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TDiv, O::TPrelu]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TPrelu]),
        operands: &[operand(&["tmp"], &[vec_rm(&[U8])])],
        checks: &[
            check(CheckKind::Distinct("src0", "dst"), TPRELU_APART),
            check(CheckKind::Distinct("src1", "dst"), TPRELU_APART),
            check(CheckKind::Distinct("tmp", "dst"), TPRELU_APART),
        ],
        source: "PTOAS verifier: A2A3 tprelu tmp is a row-major u8 tile; TPRELU.md (A2A3: src0, src1, dst and tmp must not overlap)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRem]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(I32_F32)]), operand(&["tmp"], &[VEC_RM])],
        checks: &[TMP_LIKE_DST, le("dst", ValidCols, "tmp", ValidCols, "the scratch row covers the dst valid columns")],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Bitwise ----------------
    Row {
        applies: Applies::Family(Family::Bitwise),
        operands: &[operand(&["src0", "src1", "src", "dst"], &[vec_rm(INT8_16)]).disputed(&[vec_rm(I32_U32)], &BITWISE_4_BYTES), TMP_VEC],
        source: "PTOAS verifier (tand/tor/txor: i8/i16 on A2A3, PTO.cpp:2888)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TNot]), operands: &[operand(&["src", "dst"], &[vec_rm(I16_U16)])], source: PTOAS, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TShl, O::TShr]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT8_32)])],
        source: "pto-isa notes §4.1 (TSHL/TSHR: u8 i8 u16 i16 u32 i32, scalar pipe on A2A3)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TXor]),
        operands: &[operand(&["tmp"], &[VEC_RM])],
        checks: &[
            TMP_LIKE_DST,
            eq("tmp", ValidRows, "dst", ValidRows, "A2A3 txor uses a dst-shaped scratch tile"),
            eq("tmp", ValidCols, "dst", ValidCols, "A2A3 txor uses a dst-shaped scratch tile"),
            check(CheckKind::Distinct("src0", "dst"), TXOR_APART),
            check(CheckKind::Distinct("src1", "dst"), TXOR_APART),
            check(CheckKind::Distinct("tmp", "dst"), TXOR_APART),
            check(CheckKind::Distinct("src0", "tmp"), TXOR_APART),
            check(CheckKind::Distinct("src1", "tmp"), TXOR_APART),
        ],
        source: "PTOAS verifier (A2A3 txor scratch); pto-isa npu/a2a3/TXor.hpp:43-46 (dst, src0, src1, tmp in different memory), TXOR.md",
        ..Row::DEFAULT
    },
    // ---------------- Ternary / fused ----------------
    Row {
        applies: Applies::Family(Family::Ternary),
        operands: &[operand(&["src0", "src1", "src2", "dst"], &[vec_rm(I16_I32_F16_F32)]), TMP_VEC],
        source: "vector arithmetic types of pto-isa notes §4.1 (no per-op facts)",
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
    Row {
        applies: Applies::Ops(&[O::TNeg]),
        operands: &[operand(&["src", "dst"], &[vec_rm(I16_I32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRelu]),
        operands: &[operand(&["src", "dst"], &[vec_rm(I32_F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Tile-scalar ----------------
    Row {
        applies: Applies::Family(Family::TileScalar),
        operands: &[operand(&["src", "src0", "src1", "dst"], &[vec_rm(I16_I32_F16_F32)]), TMP_VEC],
        checks: &[
            eq(
                "src",
                ValidRows,
                "dst",
                ValidRows,
                "A2A3 tile-scalar ops silently do nothing when src/dst valid shapes differ (PTO_ASSERT is debug-only)",
            ),
            eq(
                "src",
                ValidCols,
                "dst",
                ValidCols,
                "A2A3 tile-scalar ops silently do nothing when src/dst valid shapes differ (PTO_ASSERT is debug-only)",
            ),
        ],
        source: "pto-isa notes §4.1 (TADDS/TMINS/TMAXS: i32 i16 f16 f32, Vec, row-major), §8.7",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRems]),
        operands: &[operand(&["src", "dst"], &[vec_rm(I32_F32)]), operand(&["tmp"], &[VEC_RM])],
        checks: &[TMP_LIKE_DST, le("dst", ValidCols, "tmp", ValidCols, "the scratch row covers the dst valid columns")],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TFmods]),
        checks: &[check(CheckKind::DtypeTuples { slots: &["src"], tuples: &[&[F32]] }, "pto-isa's A2A3 TFMODS takes f32 only")
            .disputed(&TFMODS_TYPES)],
        source: "PTOAS verifier (A2A3 tfmods: i32/i16/f16/f32, PTO.cpp:7076); pto-isa npu/a2a3/TFmodS.hpp:74 (f32 only)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TAnds, O::TOrs, O::TXors]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT8_16)]).disputed(&[vec_rm(I32_U32)], &BITWISE_4_BYTES)],
        checks: &[NOT_IN_PLACE],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TShls, O::TShrs]),
        operands: &[operand(&["src", "dst"], &[vec_rm(INT16_32)])],
        source: "pto-isa notes §4.1, §8.6 (TSHLS/TSHRS: i32 i16 u32 u16, no 8-bit types on A2A3)",
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
        source: PTOAS,
        ..Row::DEFAULT
    },
    SCALAR_TYPE_ROW,
    Row {
        applies: Applies::Ops(&[O::TExpands]),
        operands: &[operand(&["dst"], &[vec_rm(VEC9), var(&[Loc::Mat], Some(VEC9), &[], &[EXPANDS_MAT_BLOCKS])])
            .disputed(&[var(&[Loc::Mat], Some(VEC9), &[], &[])], &EXPANDS_MAT_DISPUTE)],
        source: "pto-isa notes §4.1 (TEXPANDS: Vec u8 i8 u16 i16 u32 i32 f16 bf16 f32, or Mat of 1 to 32767 32-byte blocks, npu/a2a3/TExpandS.hpp:103-108)",
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
        operands: &[operand(&["src0", "src1"], &[vec_any(I32_F16_F32)]), operand(&["dst"], &[vec_any(&[I8, U8])])],
        checks: &[check(
            CheckKind::AttrWhen { attr: "cmpMode", kind: "cmp", slot: "src0", dtypes: &[I32], allowed: &["eq"] },
            "A2A3 TCMP on i32 always compares for equality (pto-isa npu/a2a3/TCmp.hpp:27-30, TCMP.md): other modes would silently give EQ",
        )
        .disputed(&TCMP_I32_MODES)],
        source: "PTOAS verifier (A2A3 tcmp types); pto-isa npu/a2a3/TCmp.hpp:27-30 (i32: EQ only)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TCmps]),
        operands: &[operand(&["src"], &[vec_any(&[I16, U16, I32, F16, F32])]), MASK_RM],
        checks: &[check(
            CheckKind::AttrWhen { attr: "cmpMode", kind: "cmp", slot: "src", dtypes: &[I32, U32], allowed: &["eq"] },
            "A2A3 TCMPS on 32-bit integers implements only EQ (other modes silently become EQ)",
        )],
        source: "pto-isa notes §4.1, §8.4 (TCMPS: i32 EQ only, f32 f16 u16 i16)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSel]),
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(INT16_32_F16_F32)])
            .ptoas(Fault::Dtype, "expects A2/A3 tsel src0, src1, and dst element type to be i16/i32/f16/f32")],
        checks: &[MASK_ROWS_COVER_DST],
        source: "pto-isa notes §4.1 (TSEL: 2/4-byte types, row-major); npu/a2a3/TSel.hpp:47-58 (one mask row per dst row)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TSels]),
        operands: &[operand(&["src", "dst"], &[vec_rm(I16_I32_F16_F32)])],
        checks: &[MASK_ROWS_COVER_DST],
        source: PTOAS,
        ..Row::DEFAULT
    },
    // ---------------- Row reductions ----------------
    Row {
        applies: Applies::Family(Family::RowReduce),
        operands: &[operand(&["src"], &[vec_nd(I16_I32_F16_F32)]), operand(&["dst"], &row_red_dst(I16_I32_F16_F32)), TMP_VEC],
        checks: &[ROWS_SRC_DST, TMP_LIKE_SRC],
        source: "pto-isa notes §4.1 (TROWSUM/TROWMAX: f16 f32 i32 i16; src ND; dst ND or DN with one column); PTOAS",
        ..Row::DEFAULT
    },
    // ---------------- Column reductions ----------------
    Row {
        applies: Applies::Family(Family::ColReduce),
        operands: &[operand(&["src", "dst"], &[vec_nd(I16_I32_F16_F32)]), operand(&["tmp"], &[vec_nd(I16_I32_F16_F32)])],
        checks: &[COLS_SRC_DST, TMP_LIKE_SRC, COLSUM_TMP_COVERS_SRC],
        source: "pto-isa notes §4.1 (TCOLSUM/TCOLMAX: f16 f32 i16 i32, ND)",
        ..Row::DEFAULT
    },
    // ---------------- Arg-reductions ----------------
    Row {
        applies: Applies::Family(Family::ArgReduce),
        operands: &[
            operand(&["src"], &[vec_nd(I16_I32_F16_F32)]),
            operand(&["dst"], &row_red_dst(I32_U32)),
            operand(&["idx"], &row_red_dst(INT16_32)),
            operand(&["val"], &row_red_dst(I16_I32_F16_F32)),
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
        source: "pto-isa notes §4.1 (TROWARGMAX: f16 f32 i32 i16; dst DN Rx1 or ND with one valid column)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TColArgMax, O::TColArgMin]),
        operands: &[
            operand(&["src"], &[vec_nd(&[F16, F32, U16, U32])]),
            operand(&["dst"], &[col_red_dst(I32_U32)]),
            operand(&["idx"], &[col_red_dst(INT16_32)]),
            operand(&["val"], &[col_red_dst(&[F16, F32, U16, U32])]),
        ],
        checks: &[
            COLS_SRC_DST,
            eq("src", ValidCols, "idx", ValidCols, "one index per src column"),
            eq("src", ValidCols, "val", ValidCols, "one value per src column"),
            same_dtype("src", "val", "values keep the src element type"),
            TMP_LIKE_SRC,
        ],
        inherit_checks: false,
        source: "pto-isa notes §4.1, §4.2 (TCOLARGMAX: src f16 f32 u16 u32; idx i32/u32, 16-bit for 16-bit val+idx)",
        ..Row::DEFAULT
    },
    // ---------------- Expand / broadcast ----------------
    Row {
        applies: Applies::Family(Family::Expand),
        operands: &[operand(&["src0", "dst"], &[vec_rm(I16_I32_F16_F32)]), ROW_BROADCAST, TMP_VEC],
        checks: &ROW_EXPAND_CHECKS,
        source: "pto-isa npu/a2a3/TRowExpandSub.hpp:65-89, npu/a5/TRowExpandSub.hpp:88-108 (src0 has dst's valid shape and is row-major, src1 one block or one column per row); PTOAS verifier (trowexpand{add,sub,mul,max,min}: i16 i32 f16 f32 on A2A3, dst row-major)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowExpandDiv, O::TRowExpandExpdif]),
        operands: &[operand(&["src0", "dst"], &[vec_rm(F16_F32)])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRowExpandMax, O::TRowExpandMin, O::TRowExpandExpdif]),
        checks: &[check(
            CheckKind::Layout { slot: "src1", layouts: &[COL_MAJOR], when: Some("tmp") },
            "with a scratch tile the per-row operand is one column, col-major (pto-isa npu/a2a3/TRowExpandMax.hpp:102-110; PTOAS PTO.cpp:7814-7819)",
        )],
        source: "pto-isa npu/a2a3/TRowExpandMax.hpp:79-110 (the tmp overload); PTOAS PTO.cpp:7850-7852 (requireNonRowMajor when tmp on A3)",
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
        operands: &[operand(&["src0", "src1", "dst"], &[vec_rm(I16_I32_F16_F32)])],
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
        operands: &[operand(&["src0", "src1", "dst"], &[vec_any(I16_I32_F16_F32)])],
        checks: &PARTIAL_CHECKS,
        source: "PTOAS verifier (tpart*: i32 i16 f16 f32, src valid regions within dst)",
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
            operand(&["src"], &[vec_any(INT16_32_F16_F32)]),
            operand(&["dst"], &[var(&[Loc::Vec], Some(INT16_32_F16_F32), &[], &[ShapeReq::Same(ValidCols, Cols)])]),
            operand(&["indices"], &[var(&[Loc::Vec], Some(I32_U32), &[], &[ShapeReq::Same(ValidCols, Cols)])]),
            operand(&["tmp"], &[vec_any(I32_U32)]),
        ],
        checks: &[
            GATHER_INDEX_SAME_DTYPE,
            GATHER_INDICES_COVER_DST[0],
            GATHER_INDICES_COVER_DST[1],
            same_dtype("indices", "tmp", "A2A3 builds byte offsets in an index-shaped scratch tile"),
            eq("indices", ValidRows, "tmp", ValidRows, "A2A3 builds byte offsets in an index-shaped scratch tile"),
            eq("indices", ValidCols, "tmp", ValidCols, "A2A3 builds byte offsets in an index-shaped scratch tile"),
        ],
        source: "pto-isa notes §4.1 (TGATHER index: 2/4-byte data, 32-bit idx, contiguous dst)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGather]),
        form: Some(1),
        operands: &[
            operand(&["src"], &[vec_rm(BYTES_2_4)]),
            operand(&["dst"], &[var(&[Loc::Vec], Some(BYTES_2_4), &[ROW_MAJOR], &[ShapeReq::Same(ValidCols, Cols)])]),
        ],
        checks: &[check(CheckKind::SameWidth("src", "dst"), "mask-pattern gather copies elements")],
        source: "pto-isa notes §4.1 (TGATHER mask: 2/4-byte types)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGather]),
        form: Some(2),
        operands: &[
            operand(&["src"], &[vec_rm(&[F16, F32, I32])]),
            operand(&["k"], &[vec_any(I32_U32)]),
            operand(&["dst", "cdst"], &[vec_rm(I32_U32)]),
            operand(&["tmp"], &[VEC_RM]),
        ],
        checks: &[
            same_dtype("dst", "cdst", "indices and counts share a type"),
            check(
                CheckKind::AttrWhen { attr: "cmpMode", kind: "cmp", slot: "src", dtypes: &[I32], allowed: &["eq"] },
                "A2A3 compare-form gather on i32 supports only EQ",
            ),
            check(
                CheckKind::AttrWhen { attr: "cmpMode", kind: "cmp", slot: "src", dtypes: F16_F32, allowed: &["eq", "gt"] },
                "compare-form gather supports EQ and GT",
            ),
        ],
        source: "pto-isa notes §4.1 (TGATHER compare: dst i32/u32, src f32/f16/i32 (EQ only), k i32/u32)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGatherB]),
        operands: &[operand(&["dst"], &[vec_rm(BYTES_1_2_4)]), operand(&["offsets"], &[vec_any(I32_U32)])],
        checks: &[OFFSET_ROWS_COVER_DST],
        source: "pto-isa notes §4.1, §8.8 (TGATHERB: row-major dst, 1/2/4-byte, one u32 offset per block)",
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
        operands: &[
            operand(&["src", "dst"], &[var(&[Loc::Vec], Some(VEC9), &[ND, NZ_512], &[])]),
            operand(&["indices"], &[vec_nd(I32_U32)]),
        ],
        checks: &MGATHER_MEM_DTYPE,
        source: "pto-isa a2a3/MGather.hpp, MScatter.hpp (MGatherCheck / MScatterCheck: Vec tiles of 8/16/32-bit integers, f16, bf16, f32, ND or (NZ tables) NZ with 512-byte fractals; ND i32/u32 indices; PTOAS calls them A5-only)",
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
        checks: &[check(
            CheckKind::DtypeMap { from: "src", to: "dst", map: TCVT_A2A3 },
            "A2A3 TCVT conversion matrix (pto-isa notes §4.7)",
        )],
        source: "pto-isa notes §4.7",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuant]),
        form: Some(0),
        operands: &[
            operand(&["src"], &[vec_rm(&[F32])]),
            operand(&["scale", "offset", "tmp"], &[vec_any(&[F32])]),
            operand(&["dst"], &[vec_rm(&[I8, U8])]),
        ],
        checks: &QUANT_INT8_CHECKS,
        inherit_checks: false,
        source: QUANT_INT8_SOURCE,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuant]),
        form: Some(1),
        supported: false,
        source: "pto-isa TQUANT.md: A2/A3 support the INT8 path only (MX quantization is A5)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TQuantDn, O::TQuantHif4]),
        supported: false,
        source: "pto-isa: MX quantization (TQUANT_DN) has no A2A3 implementation; HiF4 (TQUANT_HIF4) is A6-only (npu/a6/TQuant.hpp)",
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
            operand(&["a"], &[var(&[Loc::Left], Some(MATMUL_IN), &[ZZ], MKN_A)]),
            operand(&["b"], &[var(&[Loc::Right], Some(MATMUL_IN), &[ZN], MKN_B)]),
            operand(&["c", "c_in"], &[var(&[Loc::Acc], Some(I32_F32), &[NZ], &[])]),
            operand(&["bias"], &[var(&[Loc::Bias], None, &[], &[ShapeReq::Eq(Rows, 1)])]),
        ],
        checks: &[
            check(CheckKind::DtypeTuples { slots: &["c", "a", "b"], tuples: MATMUL_TRIPLES }, "supported (c, a, b) element types"),
            MATMUL_SHAPES[0],
            MATMUL_SHAPES[1],
            MATMUL_SHAPES[2],
            same_dtype("c_in", "c", "accumulation keeps the accumulator type"),
            same_dtype("bias", "c", "the bias has the accumulator type"),
        ],
        source: "pto-isa notes §2.4 (A2A3 TileLeft is Zz, TileRight Zn, TileAcc Nz), §4.1 (TMATMUL triples, m/k/n in [1, 4095])",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TGemv, O::TGemvAcc, O::TGemvBias]),
        operands: &[
            operand(&["a"], &[var(&[Loc::Left], Some(MATMUL_IN), &[ZZ], &GEMV_A)]),
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
        source: "PTOAS verifier (tgemv: lhs valid rows 1)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[
            O::TMatmulMx,
            O::TMatmulMxAcc,
            O::TMatmulMxBias,
            O::TMatmulMxHif4,
            O::TGemvMx,
            O::TGemvMxAcc,
            O::TGemvMxBias,
        ]),
        supported: false,
        source: "microscaled (MX) matmul needs fp8/hif4 operands and the MX scale buffers, A5 only (pto-isa notes §1.4, §2.1; PTOAS tgemv.mx*)",
        ..Row::DEFAULT
    },
    // ---------------- Memory ----------------
    Row {
        applies: Applies::Family(Family::Memory),
        operands: &[operand(
            &["dst"],
            &[
                var(&[Loc::Vec], Some(LOAD_STORE), &[ND], &[ShapeReq::Range(Rows, 1, 4095)]),
                var(&[Loc::Vec], Some(LOAD_STORE), &[DN, NZ], &[]),
                var(&[Loc::Mat], Some(LOAD_STORE), &[], &[]),
            ],
        )],
        checks: &[check(CheckKind::SameWidth("src", "dst"), "GM data is copied without conversion")],
        source: "PTOAS verifier (A2A3 tload: dst vec or mat, i8..i64/f16/bf16/f32, same element size); pto-isa common/arch/memory/tload_common.hpp:47, 339-340 (vec tiles ND, DN or NZ like the GM; ND vec tiles below 4096 rows)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TLoad]),
        checks: &[
            LOAD_VIEW_SHAPE,
            LOAD_VALID_ROWS_POSITIVE,
            LOAD_VALID_COLS_POSITIVE,
            TLOAD_VEC_LAYOUT,
            TLOAD_B64_LAYOUT,
            TLOAD_CONVERT_A2A3,
            check(
                CheckKind::GmLayout {
                    view: "src",
                    tile: "dst",
                    pairs: &[("nd", &[ND, NZ]), ("dn", &[DN, ZN]), ("nz", &[NZ])],
                    vectors_any: false,
                    elem_bytes: None,
                },
                "a mat tile is loaded ND2ND/DN2DN/NZ2NZ or converted ND2NZ/DN2ZN (tload_common.hpp:336-352)",
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
            &[var(&[Loc::Vec, Loc::Mat], Some(LOAD_STORE), &[], &[]), var(&[Loc::Acc], Some(I32_F32), &[], &ACC_STORE_SHAPE)],
        )],
        checks: &[
            check(CheckKind::SameWidth("src", "dst"), "vec/mat stores copy without conversion").when_loc("src", &[Loc::Vec, Loc::Mat]),
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(I32, &[I32, F32, F16, BF16]), (F32, &[I32, F32, F16, BF16])] },
                "the fixpipe converts acc data to i32/f32/f16/bf16",
            )
            .when_loc("src", &[Loc::Acc]),
            STORE_VIEW_SHAPE,
            STORE_VALID_ROWS_POSITIVE,
            STORE_VALID_COLS_POSITIVE,
            TSTORE_VEC_LAYOUT,
            TSTORE_B64_LAYOUT,
            TSTORE_ACC_LAYOUT,
            ATOMIC_ADD_TYPES,
            RELU_ONLY_FROM_ACC,
        ],
        inherit_checks: false,
        source: "PTOAS notes §4 (A2A3 tstore src loc vec, mat or acc; acc src i32/f32, cols in [1, 4095]); pto-isa npu/a2a3/TStore.hpp:222-231 (acc to ND: rows in [1, 8192])",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TStoreFp]),
        operands: &[
            operand(
                &["src"],
                &[var(&[Loc::Acc], Some(&[I32, U32, F32]), &[], &[ShapeReq::Range(Cols, 1, 4095), ShapeReq::Range(ValidCols, 1, 4095)])],
            ),
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
                    var(&[Loc::Left], None, &[ZZ], &[]),
                    var(&[Loc::Right], None, &[ZN], &[]),
                    var(&[Loc::Mat], None, &[FRACTAL_512], &[]),
                    var(&[Loc::Vec], None, &[], &[]),
                    BIAS_DST,
                    SCALING_DST,
                ],
            )
            .ptoas(Fault::Layout(Loc::Mat), "expects A2/A3 acc-to-mat tmov destination fractal to be 512"),
            TMP_VEC,
        ],
        checks: &[
            check(
                CheckKind::LocPairs {
                    from: "src",
                    to: "dst",
                    pairs: &[
                        (Loc::Mat, &[Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling]),
                        (Loc::Vec, &[Loc::Vec]),
                        (Loc::Acc, &[Loc::Mat, Loc::Vec]),
                    ],
                },
                "A2A3 tmov location pairs (PTOAS lib/PTO/IR/PTO.cpp:5141-5163)",
            )
            .ptoas("expects a supported tmov address-space pair for this target"),
            check(
                CheckKind::LocPairs { from: "src", to: "dst", pairs: &[(Loc::Acc, &[Loc::Mat])] },
                "pto-isa's A2A3 TMOV moves acc data to mat only",
            )
            .when_loc("src", &[Loc::Acc])
            .disputed(&TMOV_ACC_TO_VEC),
            check(CheckKind::Layout { slot: "dst", layouts: &[NZ_512], when: None }, "pto-isa's A2A3 acc -> mat TMOV writes an NZ tile")
                .when_loc("dst", &[Loc::Mat])
                .disputed(&TMOV_ACC_TO_MAT),
            eq("src", Rows, "dst", Rows, "A2A3 tmov keeps the static shape"),
            eq("src", Cols, "dst", Cols, "A2A3 tmov keeps the static shape"),
            check(CheckKind::SameWidth("src", "dst"), "A2A3 vec -> vec tmov copies bytes (pto-isa npu/a2a3/TMov.hpp:88)")
                .when_loc("src", &[Loc::Vec]),
            same_dtype("src", "dst", "mat -> left/right moves copy elements (pto-isa textract_common.hpp, npu/a2a3/TExtract.hpp:21-27)")
                .when_loc("dst", &[Loc::Left, Loc::Right]),
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(I32, &[I32]), (F32, &[F32]), (F16, &[F32])] },
                "the bias table holds i32 or f32 (f16/bf16 widened)",
            )
            .when_loc("dst", &[Loc::Bias]),
            SCALING_SAME_DTYPE,
            TMOV_FIXPIPE_MODES[0],
            TMOV_FIXPIPE_MODES[1],
            TMOV_FIXPIPE_MODES[2],
        ],
        source: "PTOAS verifier (A2A3 tmov pairs, acc -> mat fractal 512: PTO.cpp:5113-5220); pto-isa npu/a2a3/TMov.hpp, npu/a2a3/common.hpp (pairs; acc -> mat NZ fractal 512, casts); pto-isa notes §2.4 (A2A3 left Zz, right Zn); where ptoas's A2A3 verifier accepts acc forms pto-isa's A2A3 TMOV lacks, pto follows ptoas with a LEGAL_REFERENCES_DISAGREE warning (docs/design.md)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TMov]),
        form: Some(0),
        checks: &[check(
            CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[F16, BF16])] },
            "pto-isa's A2A3 plain acc -> mat TMOV is a cast from f32 to f16/bf16",
        )
        .when_loc("dst", &[Loc::Mat])
        .disputed(&TMOV_ACC_TO_MAT)],
        inherit_checks: true,
        source: "pto-isa npu/a2a3/TMov.hpp:159-161, common.hpp:89-122 (CheckTMovAccToMat, cast)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TMov]), form: Some(1), ..TMOV_QUANT },
    Row { applies: Applies::Ops(&[O::TMov]), form: Some(2), ..TMOV_QUANT },
    Row {
        applies: Applies::Ops(&[O::TMovFp, O::TExtractFp, O::TInsertFp]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], Some(&[I32, U32, F32]), &[NZ], &[])]),
            operand(&["fp"], &[var(&[Loc::Scaling], None, &[], &[])]),
            operand(&["dst"], &[var(&[Loc::Mat], None, &[NZ_512], &[])]),
        ],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TExtractFp, O::TInsertFp]),
        checks: &[check(
            CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[I8, U8]), (I32, &[I8, U8, F16, I16, U16])] },
            "A2A3 fixpipe pre-quantisation pairs",
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
                    var(&[Loc::Mat], Some(EXTRACT_A2A3), &[ZN, NZ], &[]),
                    var(&[Loc::Mat], Some(EXTRACT_A2A3), &[ROW_MAJOR], &[ShapeReq::Eq(Rows, 1)]),
                    var(&[Loc::Acc], Some(&[F32]), &[NZ], &[]),
                    var(&[Loc::Vec], Some(EXTRACT_A2A3), &[ND, NZ], &[]),
                ],
            ),
            operand(
                &["dst"],
                &[
                    var(&[Loc::Left], Some(EXTRACT_A2A3), &[ZZ], &[]),
                    var(&[Loc::Right], Some(EXTRACT_A2A3), &[ZN], &[]),
                    var(&[Loc::Mat], Some(&[F16, BF16]), &[NZ_512], &[]),
                    var(&[Loc::Vec], Some(EXTRACT_A2A3), &[ND, NZ], &[]),
                ],
            ),
        ],
        checks: &[
            check(
                CheckKind::LocPairs {
                    from: "src",
                    to: "dst",
                    pairs: &[(Loc::Mat, &[Loc::Left, Loc::Right]), (Loc::Acc, &[Loc::Mat]), (Loc::Vec, &[Loc::Vec])],
                },
                "A2A3 textract paths (pto-isa npu/a2a3/TExtract.hpp:465-489)",
            ),
            check(
                CheckKind::LocPairs { from: "src", to: "dst", pairs: &[(Loc::Mat, &[Loc::Left, Loc::Right])] },
                "ptoas's A2A3 textract extracts from mat into left/right only",
            )
            .ptoas("expects A2/A3 textract src to use loc=mat")
            .disputed(&TEXTRACT_NON_MAT),
            COPY_SAME_DTYPE,
            check(
                CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[F16, BF16])] },
                "A2A3 acc -> mat extraction is a cast from f32 to f16/bf16 (pto-isa npu/a2a3/TExtract.hpp:65-72)",
            )
            .when_loc("src", &[Loc::Acc]),
            VEC_SAME_LAYOUT,
            EXTRACT_WINDOW.when_loc("src", &[Loc::Mat, Loc::Acc]),
            EXTRACT_WINDOW_VALID.when_loc("src", &[Loc::Vec]),
            EXTRACT_ALIGN[0],
            EXTRACT_ALIGN[1],
            EXTRACT_ALIGN[2],
            EXTRACT_ALIGN[3],
        ],
        source: "PTOAS verifier (A2A3 textract: mat -> left (Zz) / right (Zn), i8 f16 bf16 f32); pto-isa textract_common.hpp:456-486 (ZN or NZ mat source, a 1-row row-major one for a GEMV left), npu/a2a3/TExtract.hpp:465-489 (also acc -> mat and vec -> vec)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TInsert]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Acc], None, &[NZ], &[]), var(&[Loc::Vec], Some(EXTRACT_A2A3), &[ND, NZ], &[])]),
            operand(&["dst"], &[var(&[Loc::Mat], None, &[NZ_512], &[]), var(&[Loc::Vec], Some(EXTRACT_A2A3), &[ND, NZ], &[])]),
        ],
        checks: &[
            check(
                CheckKind::LocPairs { from: "src", to: "dst", pairs: &[(Loc::Acc, &[Loc::Mat]), (Loc::Vec, &[Loc::Vec])] },
                "A2A3 tinsert paths (pto-isa npu/a2a3/TInsert.hpp:162-192)",
            ),
            check(
                CheckKind::DtypeTuples { slots: &["src", "dst"], tuples: &[&[F32, F16], &[F32, BF16]] },
                "A2A3 tinsert converts f32 acc data to f16/bf16",
            )
            .when_loc("src", &[Loc::Acc])
            .ptoas("expects A2/A3 tinsert element types to be src=f32, dst=f16/bf16"),
            COPY_SAME_DTYPE,
            VEC_SAME_LAYOUT,
            INSERT_WINDOW.when_loc("src", &[Loc::Acc]),
            INSERT_WINDOW_VALID.when_loc("src", &[Loc::Vec]),
        ],
        source: "PTOAS verifier (acc -> mat); pto-isa npu/a2a3/TInsert.hpp:162-192 (also vec -> vec)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TTrans]),
        operands: &[operand(&["src"], &[vec_rm(BYTES_1_2_4)]), operand(&["dst", "tmp"], &[vec_any(BYTES_1_2_4)])],
        checks: &[TMP_LIKE_SRC],
        source: "PTOAS verifier (A2A3 ttrans: row-major src, 1/2/4-byte types)",
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
        operands: &[operand(&["src0", "src1", "dst"], &[vec_any(&[I8, I16, I32, F16, BF16, F32])])],
        checks: &[
            CONCAT_FITS,
            eq("src0", ValidRows, "dst", ValidRows, "concatenation along columns keeps the rows"),
            eq("src1", ValidRows, "dst", ValidRows, "concatenation along columns keeps the rows"),
        ],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TPack]), supported: false, source: "PTOAS notes §4: tpack is A5-only", ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TInterleave, O::TDeinterleave]),
        supported: false,
        source: "pto-isa has no A2A3 TInterleave / TDeInterleave (include/pto/npu/a2a3); the pages list A5 checks only",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TImg2Col]),
        operands: &[
            operand(&["src"], &[var(&[Loc::Mat], Some(&[I8, F16, BF16, F32]), &[], &[])]),
            operand(&["dst"], &[var(&[Loc::Left], Some(&[I8, F16, BF16, F32]), &[ZZ], &[])]),
        ],
        source: "pto-isa a2a3/TImg2col.hpp:94-108 (Mat feature map, Left ZZ destination, i8 f16 bf16 f32)",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TSubview]), checks: &SUBVIEW_CHECKS, source: "pto-isa a2a3/TSubView.hpp:25-38", ..Row::DEFAULT },
    // ---------------- Generation ----------------
    Row {
        applies: Applies::Family(Family::Generate),
        operands: &[operand(&["dst"], &[VEC])],
        source: "generated tiles live in UB",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TCi]), operands: &[TCI_DST], checks: &[TCI_START], source: TCI_SOURCE, ..Row::DEFAULT },
    Row { applies: Applies::Ops(&[O::TTri]), operands: &[operand(&["dst"], &[vec_rm(INT16_32_F16_F32)])], source: PTOAS, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::TPrint]),
        operands: &[operand(&["src"], &[vec_any(&[I8, U8, I16, U16, I32, U32, F16, F32])])],
        source: PTOAS,
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::TRandom, O::THistogram]),
        supported: false,
        source: "PTOAS notes §4: trandom/thistogram are A5-only",
        ..Row::DEFAULT
    },
    // ---------------- Assign / config ----------------
    Row {
        applies: Applies::Ops(&[O::TGetScaleAddr]),
        supported: false,
        source: "PTOAS notes §4: tget_scale_addr is A5-only",
        ..Row::DEFAULT
    },
    Row { applies: Applies::Ops(&[O::TPush]), operands: &[TPUSH_TILE], source: TPIPE_SOURCE, ..Row::DEFAULT },
    Row { applies: Applies::Ops(&[O::TPop]), operands: &[TPOP_TILE], source: TPIPE_SOURCE, ..Row::DEFAULT },
    Row {
        applies: Applies::Ops(&[O::SetQuantScalar, O::SetQuantVector]),
        operands: &[QUANT_SCALAR, QUANT_VECTOR],
        source: "pto-isa a2a3/SetQuantScalar.hpp:17-24 (f32 scale), a2a3/SetQuantVector.hpp:29 (Scaling tile)",
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
        operands: &[operand(&["acc", "ping", "pong"], &[vec_any(I16_I32_F16_F32)])],
        source: "pto-isa comm/a2a3/TReduce.hpp:30-43 (reduces with TADD/TMAX/TMIN: their A2A3 types)",
        ..Row::DEFAULT
    },
    Row {
        applies: Applies::Ops(&[O::CommNotify, O::CommTest, O::CommWait]),
        operands: &[COMM_SIGNAL],
        source: COMM_SOURCE,
        ..Row::DEFAULT
    },
];

/// Bitwise ops on 4-byte integers on A2A3: `ptoas` rejects them, pto-isa implements them; `pto`
/// keeps `ptoas`'s side (issue 27: today's choice) and says so.
const BITWISE_4_BYTES: Dispute = Dispute {
    ptoas: "rejects 4-byte integers in A2/A3 tand/tor/txor and tands/tors/txors (lib/PTO/IR/PTO.cpp:2888, 3035)",
    pto_isa: "implements them (docs/isa/TAND.md, TOR.md, TXOR.md list u32/i32; include/pto/npu/a2a3/TAnd.hpp); pto rejects them as ptoas does, since ptoas compiles the kernel",
    rejects: true,
};

/// A2A3 `tcmp` on i32 with a mode other than EQ: `ptoas` accepts it, the A2A3 code computes EQ.
/// Today's choice (accept) is kept, with the warning (issue 27; `tcmps`, rejected, is the
/// other today's choice).
const TCMP_I32_MODES: Dispute = Dispute {
    ptoas: "accepts every cmpMode of an A2/A3 i32 tcmp (lib/PTO/IR/PTO.cpp:3119, no mode rule)",
    pto_isa: "computes EQ for i32 whatever the mode (include/pto/npu/a2a3/TCmp.hpp:27-30, TCMP.md): on A2A3 hardware the result is EQ's, the simulator computes the mode as pto-isa's CPU simulator does",
    rejects: false,
};

/// A2A3 `tfmods` element types: `ptoas` takes four, pto-isa's A2A3 code one.
const TFMODS_TYPES: Dispute = Dispute {
    ptoas: "accepts i32/i16/f16/f32 in A2/A3 tfmods (lib/PTO/IR/PTO.cpp:7076)",
    pto_isa: "static_asserts f32 (include/pto/npu/a2a3/TFmodS.hpp:74, TFMODS.md): the emitted C++ does not compile against pto-isa's A2A3 headers",
    rejects: false,
};

/// A2A3 `txor` computes through its scratch tile (pto-isa `npu/a2a3/TXor.hpp:43-46` asserts
/// the four tiles apart; TXOR.md: "must not overlap in memory").
const TXOR_APART: &str = "A2A3 txor writes dst and tmp while reading src0/src1: dst, src0, src1 and tmp must be different tiles";

/// A2A3 `tprelu` writes `src0 * src1` into dst, then selects between it and src0 by the mask in
/// tmp (pto-isa `npu/a2a3/TPrelu.hpp`; TPRELU.md: "must not overlap in memory").
const TPRELU_APART: &str = "A2A3 tprelu writes dst before it reads src0 again: src0, src1, tmp and dst must be different tiles";

/// `tmov` acc -> vec: `ptoas`'s A2A3 verifier has the pair, pto-isa's A2A3 TMOV does not.
const TMOV_ACC_TO_VEC: Dispute = Dispute {
    ptoas: "accepts acc -> vec on A2/A3 (lib/PTO/IR/PTO.cpp:5159-5163)",
    pto_isa: "has no A2A3 acc -> vec TMOV (include/pto/npu/a2a3/TMov.hpp:142-148, common.hpp:92 static_assert): the emitted C++ does not compile against pto-isa's A2A3 headers",
    rejects: false,
};

/// `tmov` acc -> mat layouts and element types: `ptoas` checks only the fractal size.
const TMOV_ACC_TO_MAT: Dispute = Dispute {
    ptoas: "accepts any fractal-512 acc -> mat destination and element types on A2/A3 (lib/PTO/IR/PTO.cpp:5217-5219)",
    pto_isa: "static_asserts an NZ destination, f32 -> f16/bf16 for the plain move and f32 -> i8, i32 -> i8/u8/f16/i16 with pre-quantisation (include/pto/npu/a2a3/common.hpp:88-122): the emitted C++ does not compile against pto-isa's A2A3 headers",
    rejects: false,
};

/// `textract` from vec or acc: pto-isa implements both on A2A3, `ptoas` rejects them.
const TEXTRACT_NON_MAT: Dispute = Dispute {
    ptoas: "rejects a src outside mat on A2/A3 (lib/PTO/IR/PTO.cpp:4041-4045)",
    pto_isa: "implements vec -> vec and acc -> mat (include/pto/npu/a2a3/TExtract.hpp:465-489) and its CPU-simulator golden vectors run vec -> vec",
    rejects: false,
};

/// `tmov` acc -> mat with pre-quantisation, by a scaling tile (form 1) or a scalar (form 2):
/// both check `CheckTMovAccToMat<..., false>` (pto-isa `npu/a2a3/TMov.hpp:190-206`,
/// `common.hpp:112-121`).
const TMOV_QUANT: Row = Row {
    applies: Applies::Ops(&[O::TMov]),
    checks: &[check(
        CheckKind::DtypeMap { from: "src", to: "dst", map: &[(F32, &[I8]), (I32, &[I8, U8, F16, I16])] },
        "pto-isa's A2A3 acc -> mat TMOV with pre-quantisation: f32 -> i8, i32 -> i8/u8/f16/i16",
    )
    .when_loc("dst", &[Loc::Mat])
    .disputed(&TMOV_ACC_TO_MAT)],
    inherit_checks: true,
    source: "pto-isa npu/a2a3/TMov.hpp:190-206, common.hpp:89-122 (CheckTMovAccToMat, quantisation)",
    ..Row::DEFAULT
};

const COL_EXPAND_CHECKS: [super::Check; 3] = [
    eq("src0", ValidRows, "dst", ValidRows, "the full operand matches dst"),
    eq("src0", ValidCols, "dst", ValidCols, "the full operand matches dst"),
    eq("src1", ValidCols, "dst", ValidCols, "the per-column operand has the dst columns"),
];

const GEMV_A: [ShapeReq; 2] = [ShapeReq::Eq(ValidRows, 1), ShapeReq::Range(ValidCols, 1, 4095)];

/// Shared with A5: partial ops read src valid regions inside dst.
pub(super) const PARTIAL_CHECKS: [super::Check; 4] = [
    le("src0", ValidRows, "dst", ValidRows, "partial ops read src valid regions inside the dst valid region"),
    le("src0", ValidCols, "dst", ValidCols, "partial ops read src valid regions inside the dst valid region"),
    le("src1", ValidRows, "dst", ValidRows, "partial ops read src valid regions inside the dst valid region"),
    le("src1", ValidCols, "dst", ValidCols, "partial ops read src valid regions inside the dst valid region"),
];

/// Shared with A5: index element size (2 bytes for 1-byte data, else the data size).
pub(super) const SCATTER_CHECKS: [super::Check; 1] = [check(
    CheckKind::DtypeMap {
        from: "src",
        to: "indices",
        map: &[
            (I8, I16_U16),
            (U8, I16_U16),
            (I16, I16_U16),
            (U16, I16_U16),
            (F16, I16_U16),
            (BF16, I16_U16),
            (I32, I32_U32),
            (U32, I32_U32),
            (F32, I32_U32),
        ],
    },
    "index size follows the data size (2 bytes for 1-byte data)",
)];

/// Shared with A5: sort operands.
pub(super) const SORT_OPERANDS: [super::OperandRule; 3] = [
    operand(&["src", "dst", "src0", "src1", "src2", "src3"], &[var(&[Loc::Vec], Some(F16_F32), &[ROW_MAJOR], &[])]),
    operand(&["idx"], &[vec_rm(&[U32])]),
    TMP_VEC,
];
