//! Building blocks shared by both tables: element-type sets, layout patterns, constructors.
//!
//! Naming: sets are spelled by their members. Integer widths: PTOAS checks integer *width*
//! only (MLIR `isInteger(w)`), so sets taken from PTOAS list both signednesses; sets taken from
//! the pto-isa notes use the notes' explicit lists (e.g. A2A3 elementwise arithmetic: signed
//! `i16`/`i32` only, A5 adds the unsigned and 8/64-bit types).

use super::{Check, CheckKind, Extent, LayoutPat, OperandRule, ShapeReq, Variant};
use pto_ir::types::ElemType::{self, *};
use pto_ir::types::{BLayout, Loc, SLayout};

// ---- Element-type sets ----

/// `f16`, `f32`.
pub const F16_F32: &[ElemType] = &[F16, F32];
/// `f16`, `bf16`, `f32`.
pub const F16_BF16_F32: &[ElemType] = &[F16, BF16, F32];
/// `i32`, `f32`.
pub const I32_F32: &[ElemType] = &[I32, F32];
/// `i32`, `ui32`.
pub const I32_U32: &[ElemType] = &[I32, U32];
/// `i16`, `ui16`.
pub const I16_U16: &[ElemType] = &[I16, U16];
/// A2A3 vector arithmetic (pto-isa notes §4.1 TADD/TADDS/TMINS): `i16 i32 f16 f32`.
pub const I16_I32_F16_F32: &[ElemType] = &[I16, I32, F16, F32];
/// `i32 f16 f32` (A2A3 `tcmp` inputs, `trelu`).
pub const I32_F16_F32: &[ElemType] = &[I32, F16, F32];
/// 16/32-bit integers of either sign and `f16 f32` (PTOAS width-based sets).
pub const INT16_32_F16_F32: &[ElemType] = &[I16, U16, I32, U32, F16, F32];
/// 8/16/32-bit integers of either sign and `f16 f32`.
pub const INT8_32_F16_F32: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, F32];
/// 8/16-bit integers of either sign.
pub const INT8_16: &[ElemType] = &[I8, U8, I16, U16];
/// 8/16/32-bit integers of either sign.
pub const INT8_32: &[ElemType] = &[I8, U8, I16, U16, I32, U32];
/// 16/32-bit integers of either sign.
pub const INT16_32: &[ElemType] = &[I16, U16, I32, U32];
/// 8..64-bit integers of either sign.
pub const INT8_64: &[ElemType] = &[I8, U8, I16, U16, I32, U32, I64, U64];
/// PTOAS `isSupportedVecElemType(bf16, int8)`: 8/16/32-bit integers, `f16 bf16 f32`.
pub const VEC9: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32];
/// The 11 A5 vector types of the pto-isa notes (TADDS/TMINS/TCOLMAX): 8..64-bit integers of
/// either sign, `f16 bf16 f32`.
pub const VEC11: &[ElemType] = &[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32];
/// 2- and 4-byte types.
pub const BYTES_2_4: &[ElemType] = &[I16, U16, I32, U32, F16, BF16, F32];
/// 1-, 2- and 4-byte types.
pub const BYTES_1_2_4: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32];
/// GM <-> tile transfer types on A2A3 (PTOAS `tload`/`tstore`).
pub const LOAD_STORE: &[ElemType] = &[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32];
/// GM <-> tile transfer types on A5: any 1/2/4/8-byte element.
pub const LOAD_STORE_A5: &[ElemType] = &[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];
/// The 8-bit float types (A5 only).
pub const FP8: &[ElemType] = &[F8E4M3, F8E5M2, HiF8];
/// The MX scale type `float8_e8m0_t`.
pub const E8M0: &[ElemType] = &[F8E8M0];

// ---- Layouts ----

const fn lay(name: &'static str, b: Option<BLayout>, s: Option<SLayout>, f: Option<u32>) -> LayoutPat {
    LayoutPat { name, blayout: b, slayout: s, fractal: f }
}

/// Outer layout row-major, any boxes.
pub const ROW_MAJOR: LayoutPat = lay("row_major", Some(BLayout::RowMajor), None, None);
/// Plain row-major (`row_major`, `none_box`).
pub const ND: LayoutPat = lay("ND (row_major/none_box)", Some(BLayout::RowMajor), Some(SLayout::NoneBox), None);
/// Plain column-major (`col_major`, `none_box`).
pub const DN: LayoutPat = lay("DN (col_major/none_box)", Some(BLayout::ColMajor), Some(SLayout::NoneBox), None);
/// Unboxed, either outer layout.
pub const NONE_BOX: LayoutPat = lay("none_box", None, Some(SLayout::NoneBox), None);
/// Column-major outer, row-major boxes (A5 `TileLeft`, `TileAcc`).
pub const NZ: LayoutPat = lay("NZ (col_major/row_major)", Some(BLayout::ColMajor), Some(SLayout::RowMajor), None);
/// `NZ` with 512-byte fractals (A2A3 `acc -> mat` destinations).
pub const NZ_512: LayoutPat = lay("NZ (col_major/row_major), fractal 512", Some(BLayout::ColMajor), Some(SLayout::RowMajor), Some(512));
/// Row-major outer, column-major boxes (`TileRight`).
pub const ZN: LayoutPat = lay("ZN (row_major/col_major)", Some(BLayout::RowMajor), Some(SLayout::ColMajor), None);
/// Row-major outer, row-major boxes (A2A3 `TileLeft`).
pub const ZZ: LayoutPat = lay("ZZ (row_major/row_major)", Some(BLayout::RowMajor), Some(SLayout::RowMajor), None);

/// `TileLeftScale`: row-major outer, row-major boxes, 32-byte (MX) fractals.
pub const ZZ_MX: LayoutPat = lay("ZZ (row_major/row_major), fractal 32", Some(BLayout::RowMajor), Some(SLayout::RowMajor), Some(32));
/// `TileRightScale`: column-major outer, column-major boxes, 32-byte (MX) fractals.
pub const NN_MX: LayoutPat = lay("NN (col_major/col_major), fractal 32", Some(BLayout::ColMajor), Some(SLayout::ColMajor), Some(32));

// ---- Constructors ----

/// A variant.
pub const fn var(
    locs: &'static [Loc],
    dtypes: Option<&'static [ElemType]>,
    layouts: &'static [LayoutPat],
    shape: &'static [ShapeReq],
) -> Variant {
    Variant { locs, dtypes, layouts, shape }
}

/// Vec tile, row-major outer layout.
pub const fn vec_rm(dtypes: &'static [ElemType]) -> Variant {
    var(&[Loc::Vec], Some(dtypes), &[ROW_MAJOR], &[])
}

/// Vec tile, plain ND.
pub const fn vec_nd(dtypes: &'static [ElemType]) -> Variant {
    var(&[Loc::Vec], Some(dtypes), &[ND], &[])
}

/// Vec tile, any layout.
pub const fn vec_any(dtypes: &'static [ElemType]) -> Variant {
    var(&[Loc::Vec], Some(dtypes), &[], &[])
}

/// Vec tile of any element type and layout.
pub const VEC: Variant = var(&[Loc::Vec], None, &[], &[]);
/// Vec tile of any element type, row-major.
pub const VEC_RM: Variant = var(&[Loc::Vec], None, &[ROW_MAJOR], &[]);

/// An operand rule.
pub const fn operand(slots: &'static [&'static str], variants: &'static [Variant]) -> OperandRule {
    OperandRule { slots, variants }
}

/// `a.ea == b.eb`.
pub const fn eq(a: &'static str, ea: Extent, b: &'static str, eb: Extent, why: &'static str) -> Check {
    Check { kind: CheckKind::Eq { a: (a, ea), b: (b, eb) }, why, only: None }
}

/// `a.ea <= b.eb`.
pub const fn le(a: &'static str, ea: Extent, b: &'static str, eb: Extent, why: &'static str) -> Check {
    Check { kind: CheckKind::Le { a: (a, ea), b: (b, eb) }, why, only: None }
}

/// Same element type.
pub const fn same_dtype(a: &'static str, b: &'static str, why: &'static str) -> Check {
    Check { kind: CheckKind::SameDtype(a, b), why, only: None }
}

// ---- Shared rules ----

/// Row-reduction destinations: a DN `Rx1` column vector, or a legacy ND tile with one valid
/// column (PTOAS `verifyRowReductionDstLayout` + `verifyRowReductionValidRegion`).
pub const fn row_red_dst(dtypes: &'static [ElemType]) -> [Variant; 2] {
    [
        var(&[Loc::Vec], Some(dtypes), &[DN], &[ShapeReq::Eq(Extent::Cols, 1)]),
        var(&[Loc::Vec], Some(dtypes), &[ND], &[ShapeReq::Eq(Extent::ValidCols, 1)]),
    ]
}

/// Column-reduction-to-one-row destinations: ND with one valid row.
pub const fn col_red_dst(dtypes: &'static [ElemType]) -> Variant {
    var(&[Loc::Vec], Some(dtypes), &[ND], &[ShapeReq::Eq(Extent::ValidRows, 1)])
}

/// `src`/`dst` valid rows equal (row reductions, row expands).
pub const ROWS_SRC_DST: Check = eq(
    "src",
    Extent::ValidRows,
    "dst",
    Extent::ValidRows,
    "reductions iterate src rows into dst rows; the NPU code only asserts the equality in debug builds",
);
/// `src`/`dst` valid cols equal (column reductions).
pub const COLS_SRC_DST: Check = eq(
    "src",
    Extent::ValidCols,
    "dst",
    Extent::ValidCols,
    "column reductions write one dst column per src column; the NPU code only asserts the equality in debug builds",
);
/// tmp has the element type of src.
pub const TMP_LIKE_SRC: Check = same_dtype("src", "tmp", "the scratch tile holds src elements");
/// tmp has the element type of dst.
pub const TMP_LIKE_DST: Check = same_dtype("dst", "tmp", "the scratch tile holds dst elements");

/// Scratch tiles live in UB.
pub const TMP_VEC: OperandRule = operand(&["tmp"], &[VEC]);

/// A check of any kind.
pub const fn check(kind: CheckKind, why: &'static str) -> Check {
    Check { kind, why, only: None }
}

/// Fractal 512, any layout (A2A3 `acc -> mat` destinations).
pub const FRACTAL_512: LayoutPat = lay("fractal 512", None, None, Some(512));

/// Matmul `m`, `k` (from `a`) and `n` (from `b`) valid sizes in `[1, 4095]`.
pub const MKN_A: &[ShapeReq] = &[ShapeReq::Range(Extent::ValidRows, 1, 4095), ShapeReq::Range(Extent::ValidCols, 1, 4095)];
/// See [`MKN_A`].
pub const MKN_B: &[ShapeReq] = &[ShapeReq::Range(Extent::ValidCols, 1, 4095)];

/// Matmul static shapes `a[M,K]`, `b[K,N]`, `c[M,N]` (both targets).
pub const MATMUL_SHAPES: [Check; 3] = [
    eq("a", Extent::Rows, "c", Extent::Rows, "matmul tiles are a[M,K], b[K,N], c[M,N]"),
    eq("a", Extent::Cols, "b", Extent::Rows, "matmul tiles are a[M,K], b[K,N], c[M,N]"),
    eq("b", Extent::Cols, "c", Extent::Cols, "matmul tiles are a[M,K], b[K,N], c[M,N]"),
];

// ---- Non-tile operands ----

/// A non-tile operand (a GM view or a scalar) of one of these element types. Non-tile operands
/// are checked only against variants like this one (no locations, layouts or shapes).
pub const fn elem(dtypes: &'static [ElemType]) -> Variant {
    var(&[], Some(dtypes), &[], &[])
}

// ---- Rules pto-isa implements alike on A2A3 and A5 ----

/// `tpartargmax/min`: value and index tiles live in UB (`__ubuf__` pointers).
pub const PART_ARG_OPERANDS: [OperandRule; 2] =
    [operand(&["src0", "src1", "dst"], &[vec_any(F16_F32)]), operand(&["src0_idx", "src1_idx", "dst_idx"], &[vec_any(INT16_32)])];
/// `tpartargmax/min`: the index width the value type allows.
pub const PART_ARG_INDEX: Check = check(
    CheckKind::DtypeMap { from: "src0", to: "src0_idx", map: &[(F16, INT16_32), (F32, I32_U32)] },
    "f16 values take 16- or 32-bit indices, f32 values 32-bit ones",
);
/// Where the `tpartarg*` facts come from.
pub const PART_ARG_SOURCE: &str =
    "pto-isa a2a3/TPartArgOp.hpp:182-194, a5/TPartArgBinOps.hpp:200-210 (f16/f32 values, index width by value type)";

/// TQUANT INT8: the destination type follows the quant type (`INT8_SYM` -> i8, `INT8_ASYM` -> ui8).
pub const QUANT_INT8_CHECKS: [Check; 2] = [
    check(
        CheckKind::AttrWhen { attr: "quant_type", kind: "quant_type", slot: "dst", dtypes: &[I8], allowed: &["INT8_SYM"] },
        "an i8 result is the symmetric quantization",
    ),
    check(
        CheckKind::AttrWhen { attr: "quant_type", kind: "quant_type", slot: "dst", dtypes: &[U8], allowed: &["INT8_ASYM"] },
        "a ui8 result is the asymmetric quantization (with offset)",
    ),
];
/// Where the TQUANT INT8 facts come from.
pub const QUANT_INT8_SOURCE: &str = "PTOAS verifier (tquant: f32 src/scale/offset, i8 for INT8_SYM, ui8 for INT8_ASYM); pto-isa a2a3/TQuant.hpp:28-33, a5/TQuant.hpp:3227-3240";

/// TDEQUANT (both targets): i8/i16 source, f32 parameters and result, row-major data.
pub const DEQUANT_OPERANDS: [OperandRule; 3] =
    [operand(&["src"], &[vec_rm(&[I8, I16])]), operand(&["dst"], &[vec_rm(&[F32])]), operand(&["scale", "offset"], &[vec_any(&[F32])])];
/// TDEQUANT: one scale and one offset per dst row.
pub const DEQUANT_CHECKS: [Check; 2] = [
    eq("scale", Extent::ValidRows, "dst", Extent::ValidRows, "one scale per dst row"),
    eq("offset", Extent::ValidRows, "dst", Extent::ValidRows, "one offset per dst row"),
];
/// Where the TDEQUANT facts come from.
pub const DEQUANT_SOURCE: &str =
    "PTOAS verifier (tdequant: src i8/i16, f32 scale/offset/dst); pto-isa a2a3/TDequant.hpp:113-132, a5/TDeQuant.hpp:111-122";

/// TSUBVIEW: dst aliases a region of src in the same buffer.
pub const SUBVIEW_CHECKS: [Check; 3] = [
    check(CheckKind::SameLoc("src", "dst"), "a subview aliases src's storage"),
    le("dst", Extent::ValidRows, "src", Extent::ValidRows, "the subview lies inside src's valid region"),
    le("dst", Extent::ValidCols, "src", Extent::ValidCols, "the subview lies inside src's valid region"),
];

/// TPUSH: a producer pipe exists for acc (fixpipe) and vec (MTE3) tiles only.
pub const TPUSH_TILE: OperandRule = operand(&["tile"], &[var(&[Loc::Acc, Loc::Vec], None, &[], &[])]);
/// TPOP: a consumer pipe exists for vec and mat tiles only.
pub const TPOP_TILE: OperandRule = operand(&["tile"], &[var(&[Loc::Vec, Loc::Mat], None, &[], &[])]);
/// Where the TPUSH/TPOP facts come from.
pub const TPIPE_SOURCE: &str =
    "PTOAS verifier (tpush: acc or vec producer, tpop: vec or mat consumer, PTO.cpp:10759-10773); pto-isa a2a3/TPush.hpp:227-229, :467-469";

/// SET_QUANT_SCALAR: the pre-quantization scale is an f32 bit pattern.
pub const QUANT_SCALAR: OperandRule = operand(&["scale"], &[elem(&[F32])]);
/// SET_QUANT_VECTOR: the scaling tile lives in the fixpipe scaling buffer.
pub const QUANT_VECTOR: OperandRule = operand(&["fp"], &[var(&[Loc::Scaling], None, &[], &[])]);

/// SYNCALL soft mode: the counter in `workspace` is an `int32_t`.
pub const SYNCALL_WORKSPACE: OperandRule = operand(&["workspace", "used_cores"], &[elem(&[I32])]);

/// Comm ops stage data through UB tiles.
pub const COMM_STAGING: OperandRule = operand(&["ping", "pong", "acc"], &[VEC]);
/// Comm signals are `int32_t` GM words compared with / set to `int32_t` values.
pub const COMM_SIGNAL: OperandRule = operand(&["signal", "value", "cmp_value"], &[elem(&[I32])]);
/// Where the comm facts come from.
pub const COMM_SOURCE: &str = "pto-isa comm/{a2a3,a5}/*.hpp (staging tiles in UB; TNotify/TTest/TWait static_assert int32_t signals)";
