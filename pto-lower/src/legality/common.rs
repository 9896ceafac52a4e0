//! Building blocks shared by both tables: element-type sets, layout patterns, constructors.
//!
//! Naming: sets are spelled by their members. Integer widths: PTOAS checks integer *width*
//! only (MLIR `isInteger(w)`), so sets taken from PTOAS list both signednesses; sets taken from
//! the pto-isa notes use the notes' explicit lists (e.g. A2A3 elementwise arithmetic: signed
//! `i16`/`i32` only, A5 adds the unsigned and 8/64-bit types).

use super::{Check, CheckKind, Dispute, Extent, LayoutPat, Multiple, OperandRule, ShapeReq, Variant};
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
/// Outer layout col-major, any boxes (pto-isa `!isRowMajor`).
pub const COL_MAJOR: LayoutPat = lay("col_major", Some(BLayout::ColMajor), None, None);
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
    OperandRule { slots, variants, ptoas: None, dispute: None }
}

/// `a.ea == b.eb`.
pub const fn eq(a: &'static str, ea: Extent, b: &'static str, eb: Extent, why: &'static str) -> Check {
    Check { kind: CheckKind::Eq { a: (a, ea), b: (b, eb) }, why, only: None, ptoas: None, dispute: None }
}

/// `a.ea <= b.eb`.
pub const fn le(a: &'static str, ea: Extent, b: &'static str, eb: Extent, why: &'static str) -> Check {
    Check { kind: CheckKind::Le { a: (a, ea), b: (b, eb) }, why, only: None, ptoas: None, dispute: None }
}

/// Same element type.
pub const fn same_dtype(a: &'static str, b: &'static str, why: &'static str) -> Check {
    Check { kind: CheckKind::SameDtype(a, b), why, only: None, ptoas: None, dispute: None }
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
    Check { kind, why, only: None, ptoas: None, dispute: None }
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
/// `tload`: the GM view's shape equals the tile's valid shape (pto-isa A2A3
/// `memory/tload_common.hpp:48-51, 92-96` debug asserts, A5 `register/tload_common.hpp:352-366`
/// static_assert, CPU `cpu/TLoad.hpp:66-81`).
pub const LOAD_VIEW_SHAPE: Check = check(
    CheckKind::ViewShape { view: "src", tile: "dst" },
    "the copy moves the view's shape into the tile's valid region; the NPU asserts the equality (A5 at compile time, A2A3 only in debug builds)",
);
/// `tload`: a static valid extent of the destination is at least 1 (PTOAS `TLoadOp::verify`,
/// lib/PTO/IR/PTO.cpp:1406-1418, "expects dst valid_shape[i] to be positive" and, through
/// [`LOAD_VIEW_SHAPE`], "expects src shape[i] to be positive"; TLOAD.md's A2A3 run-time bullet).
pub const LOAD_VALID_ROWS_POSITIVE: Check = check(
    CheckKind::Positive("dst", Extent::ValidRows),
    "a load copies at least one row and one column (ptoas: valid_shape must be positive)",
);
/// The column half of [`LOAD_VALID_ROWS_POSITIVE`].
pub const LOAD_VALID_COLS_POSITIVE: Check = check(
    CheckKind::Positive("dst", Extent::ValidCols),
    "a load copies at least one row and one column (ptoas: valid_shape must be positive)",
);
/// `tload` from a GM view whose layout the program states: ptoas checks no pair (its
/// `TLoadOp::verify`, lib/PTO/IR/PTO.cpp:1394-1458, and it emits TLOAD of a DN GlobalTensor into
/// a row-major vec tile), pto-isa static_asserts them; pto keeps accepting, with the warning.
pub const TLOAD_LAYOUT_DISPUTE: Dispute = Dispute {
    ptoas: "accepts any GM layout with any tile layout (TLoadOp::verify, lib/PTO/IR/PTO.cpp:1394-1458, checks none)",
    pto_isa: "static_asserts the GM/tile layout pairs (A2A3 common/arch/memory/tload_common.hpp:336-352, A5 common/arch/register/tload_common.hpp:130-146, 343-351)",
    rejects: false,
};
/// A layout-converting `tload` (ND->NZ, DN->ZN on A2A3; ND->NZ, DN->NZ on A5): ptoas emits it
/// from any view into a tile of any fractal, pto-isa static_asserts a 2-D GlobalTensor and
/// fractal 512, so the C++ ptoas emits does not compile; pto takes pto-isa's side.
pub const TLOAD_CONVERT_DISPUTE: Dispute = Dispute {
    ptoas: "accepts any view and fractal (TLoadOp::verify, lib/PTO/IR/PTO.cpp:1394-1458, checks neither) and emits e.g. `GlobalTensor<float, Shape<1, 1, -1, 32, 16>, ..., Layout::ND>` into an NZ tile",
    pto_isa: "static_asserts `GlobalData::staticShape[0..2] == 1` and `TileData::SFractalSize == 512` (A2A3 common/arch/memory/tload_common.hpp:259-262, 281-284; A5 common/arch/register/tload_common.hpp:150-160), so that C++ does not compile: pto rejects it",
    rejects: true,
};
/// A layout-converting `tload` into a mat tile: GM layout -> tile layouts `pairs`, a 2-D view,
/// fractal 512 ([`TLOAD_CONVERT_DISPUTE`]).
const fn tload_convert(pairs: &'static [(&'static str, &'static [LayoutPat])], why: &'static str) -> Check {
    check(CheckKind::GmConvert { view: "src", tile: "dst", pairs, fractal: 512 }, why)
        .when_loc("dst", &[Loc::Mat])
        .disputed(&TLOAD_CONVERT_DISPUTE)
}
/// The ND->NZ / DN->ZN half of TLOAD's A2A3 mat pairs, with its 2-D view and fractal rule.
pub const TLOAD_CONVERT_A2A3: Check =
    tload_convert(&[("nd", &[NZ]), ("dn", &[ZN])], "the ND2NZ / DN2ZN copy converts one 2-D matrix into 512-byte fractals");
/// A5's converting pairs (TLoadCubeCheck's ND2NZ / DN2NZ branch).
pub const TLOAD_CONVERT_A5: Check =
    tload_convert(&[("nd", &[NZ]), ("dn", &[NZ])], "the ND2NZ / DN2NZ copy converts one 2-D matrix into 512-byte fractals");
/// A vec tile is loaded from a GM view of its own layout: ND->ND, DN->DN, NZ->NZ (both targets).
pub const TLOAD_VEC_LAYOUT: Check = check(
    CheckKind::GmLayout {
        view: "src",
        tile: "dst",
        pairs: &[("nd", &[ND]), ("dn", &[DN]), ("nz", &[NZ])],
        vectors_any: false,
        elem_bytes: None,
    },
    "a vec tile is loaded from GM of its own layout (ND2ND/DN2DN/NZ2NZ)",
)
.when_loc("dst", &[Loc::Vec])
.disputed(&TLOAD_LAYOUT_DISPUTE);
/// `tstore` to a GM view whose layout the program states: ptoas checks no pair (`TStoreOp::verify`,
/// lib/PTO/IR/PTO.cpp:1729-1860), pto-isa static_asserts them; pto keeps accepting, with the warning.
pub const TSTORE_LAYOUT_DISPUTE: Dispute = Dispute {
    ptoas: "accepts any GM layout with any tile layout (TStoreOp::verify, lib/PTO/IR/PTO.cpp:1729-1860, checks none)",
    pto_isa: "static_asserts the tile/GM layout pairs (TSTORE.md: vec/mat layouts match, or one row/column; acc NZ2ND/NZ2NZ, NZ2DN not supported)",
    rejects: false,
};
/// A vec/mat tile is stored to GM of its own layout (ND/DN/NZ), or is one row or one column.
pub const TSTORE_VEC_LAYOUT: Check = check(
    CheckKind::GmLayout {
        view: "dst",
        tile: "src",
        pairs: &[("nd", &[ND]), ("dn", &[DN]), ("nz", &[NZ])],
        vectors_any: true,
        elem_bytes: None,
    },
    "a vec/mat tile is stored to GM of its own layout (ND/DN/NZ) unless it is one row or one column",
)
.when_loc("src", &[Loc::Vec, Loc::Mat])
.disputed(&TSTORE_LAYOUT_DISPUTE);
/// A2A3: an 8-byte (i64/u64) tile is copied to or from GM ND2ND or DN2DN only (pto-isa
/// static_asserts it; ptoas checks no layout pair).
pub const B64_LAYOUT_DISPUTE: Dispute = Dispute {
    ptoas: "accepts any GM layout with any tile layout (TLoadOp::verify, lib/PTO/IR/PTO.cpp:1394-1458, TStoreOp::verify, 1729-1860, check none)",
    pto_isa: "static_asserts ND2ND/DN2DN for i64/u64 (A2A3 common/arch/memory/tload_common.hpp:317-322 \"TLOAD only support ND2ND/DN2DN for b64\", tstore_common.hpp:347-352)",
    rejects: false,
};
/// A2A3 `tload` of an 8-byte tile: ND2ND or DN2DN only.
pub const TLOAD_B64_LAYOUT: Check = check(
    CheckKind::GmLayout { view: "src", tile: "dst", pairs: &[("nd", &[ND]), ("dn", &[DN])], vectors_any: false, elem_bytes: Some(8) },
    "an 8-byte tile is loaded ND2ND or DN2DN only",
)
.disputed(&B64_LAYOUT_DISPUTE);
/// A2A3 `tstore` of an 8-byte tile: ND2ND or DN2DN only.
pub const TSTORE_B64_LAYOUT: Check = check(
    CheckKind::GmLayout { view: "dst", tile: "src", pairs: &[("nd", &[ND]), ("dn", &[DN])], vectors_any: false, elem_bytes: Some(8) },
    "an 8-byte tile is stored ND2ND or DN2DN only",
)
.disputed(&B64_LAYOUT_DISPUTE);
/// Any layout (a pattern naming nothing).
pub const ANY_LAYOUT: LayoutPat = lay("any layout", None, None, None);
/// An acc tile is stored through the fixpipe to ND or NZ GM, not DN (NZ2DN is not supported).
pub const TSTORE_ACC_LAYOUT: Check = check(
    CheckKind::GmLayout {
        view: "dst",
        tile: "src",
        pairs: &[("nd", &[ANY_LAYOUT]), ("nz", &[ANY_LAYOUT])],
        vectors_any: false,
        elem_bytes: None,
    },
    "the fixpipe writes acc data to ND or NZ GM (NZ2DN is not supported)",
)
.when_loc("src", &[Loc::Acc])
.disputed(&TSTORE_LAYOUT_DISPUTE);
/// `tstore`: a static valid extent of the source is at least 1 (PTOAS `TStoreOp::verify`,
/// lib/PTO/IR/PTO.cpp:1740-1750, "expects src valid_shape[i] to be positive").
pub const STORE_VALID_ROWS_POSITIVE: Check = check(
    CheckKind::Positive("src", Extent::ValidRows),
    "a store copies at least one row and one column (ptoas: valid_shape must be positive)",
);
/// The column half of [`STORE_VALID_ROWS_POSITIVE`].
pub const STORE_VALID_COLS_POSITIVE: Check = check(
    CheckKind::Positive("src", Extent::ValidCols),
    "a store copies at least one row and one column (ptoas: valid_shape must be positive)",
);
/// `tstore`: the tile's valid shape equals the GM view's shape (pto-isa
/// `memory/tstore_common.hpp:182-185, 362-366`, `a2a3/TStore.hpp:37-41`, `a5/TStore.hpp:194-197, 244-247`).
pub const STORE_VIEW_SHAPE: Check = check(
    CheckKind::ViewShape { view: "dst", tile: "src" },
    "the copy writes the tile's valid region over the view's shape; the NPU asserts the equality only in debug builds",
);

/// The per-row operand `src1` of `trowexpand{add,sub,mul,div,max,min,expdif}`: one 32-byte block
/// per row when row-major (valid cols = 32 / element size), one column when col-major (pto-isa
/// `npu/a2a3/TRowExpandSub.hpp:65-89`, `npu/a5/TRowExpandSub.hpp:88-108`, debug asserts). Its
/// element type is the op's (the op table's same-dtype group).
pub const ROW_BROADCAST: OperandRule = operand(
    &["src1"],
    &[
        var(&[Loc::Vec], Some(&[I32, U32, F32]), &[ROW_MAJOR], &[ShapeReq::Eq(Extent::ValidCols, 8)]),
        var(&[Loc::Vec], Some(&[I16, U16, F16, BF16]), &[ROW_MAJOR], &[ShapeReq::Eq(Extent::ValidCols, 16)]),
        var(&[Loc::Vec], Some(&[I8, U8]), &[ROW_MAJOR], &[ShapeReq::Eq(Extent::ValidCols, 32)]),
        var(&[Loc::Vec], None, &[COL_MAJOR], &[ShapeReq::Eq(Extent::ValidCols, 1)]),
    ],
);

/// `trowexpand{add,...}`: `src0` has dst's valid shape, `src1` dst's valid rows.
pub const ROW_EXPAND_CHECKS: [Check; 3] = [
    eq("src0", Extent::ValidRows, "dst", Extent::ValidRows, "the full operand has the dst valid shape"),
    eq("src0", Extent::ValidCols, "dst", Extent::ValidCols, "the full operand has the dst valid shape"),
    eq("src1", Extent::ValidRows, "dst", Extent::ValidRows, "one broadcast value per dst row"),
];

/// Index-form `tgather` copies elements: src and dst have one element type (pto-isa
/// `npu/a2a3/TGather.hpp:26`, `npu/a5/TGather.hpp:34`, `cpu/TGather.hpp:86-89`).
pub const GATHER_INDEX_SAME_DTYPE: Check = same_dtype("src", "dst", "the index form copies src elements (pto-isa static_assert)");

/// Index-form `tgather` reads `indices[i, j]` for every `(i, j)` of dst's valid region (pto-isa
/// `docs/isa/TGATHER.md`; `npu/a2a3/TGather.hpp:58-66, 99-103` and `npu/a5/TGather.hpp:151-159`
/// loop over dst's valid rows and columns, reading `src1 + i * Cols`).
pub const GATHER_INDICES_COVER_DST: [Check; 2] = [
    le("dst", Extent::ValidRows, "indices", Extent::ValidRows, "one index per dst element"),
    le("dst", Extent::ValidCols, "indices", Extent::ValidCols, "one index per dst element"),
];

/// `tsel` / `tsels` read mask row `i` for every valid dst row (pto-isa `npu/a2a3/TSel.hpp:47-58`,
/// `npu/a2a3/TSels.hpp:41-45`, `npu/a5/TSel.hpp:40-45, 103`: `mask + i * MaskRowStride` for
/// `i < dst.GetValidRow()`).
pub const MASK_ROWS_COVER_DST: Check = le("dst", Extent::ValidRows, "mask", Extent::Rows, "one mask row per dst row");

/// `tgatherb` reads offset row `i` for every valid dst row (pto-isa `npu/a2a3/TGatherB.hpp:42-64`:
/// `offsetPtr + i * offsetRowStride` for `i < validRow`).
pub const OFFSET_ROWS_COVER_DST: Check = le("dst", Extent::ValidRows, "offsets", Extent::Rows, "one offset row per dst row");

/// Compare masks are written row by row (pto-isa `npu/a2a3/TCmps.hpp:162`, `npu/a5/TCmps.hpp:237`,
/// `npu/a5/TCmp.hpp:145-147`).
pub const MASK_RM: OperandRule = operand(&["dst"], &[VEC_RM]);

/// Bitwise tile-scalar ops do not run in place (PTOAS `PTO.cpp:2999-3002, 6333-6336, 8861-8864`).
pub const NOT_IN_PLACE: Check =
    check(CheckKind::Distinct("src", "dst"), "the bitwise tile-scalar ops read src while writing dst; PTOAS rejects src == dst");

/// `tcolsum` binary form: the scratch row holds a src row (pto-isa `npu/a2a3/TColSum.hpp:128-130`,
/// `npu/a5/TColSum.hpp:144`, debug asserts).
pub const COLSUM_TMP_COVERS_SRC: Check =
    le("src", Extent::ValidCols, "tmp", Extent::Cols, "the binary column sum adds src rows pairwise into tmp rows");

/// `tfillpad*` fills with the dst tile's pad value, which must be set (pto-isa
/// `npu/a2a3/TFillPad.hpp:284, 312, 385` static_asserts; PTOAS `PTO.cpp:4597-4602`).
pub const FILLPAD_DST: OperandRule = operand(&["dst"], &[var(&[], Some(BYTES_1_2_4), &[], &[ShapeReq::PadSet])]);

/// `tstore` from acc: static cols in [1, 4095], rows in [1, 8192] into an ND view, valid cols
/// in [1, 4095] (pto-isa `npu/a2a3/TStore.hpp:222-231`, `npu/a5/TStore.hpp:127-136`,
/// `tstore_common.hpp:185`).
pub const ACC_STORE_SHAPE: [ShapeReq; 4] = [
    ShapeReq::Range(Extent::Cols, 1, 4095),
    ShapeReq::Range(Extent::ValidCols, 1, 4095),
    ShapeReq::Range(Extent::Rows, 1, 8192),
    ShapeReq::Range(Extent::ValidRows, 1, 8192),
];

/// `textract` from a cube buffer: the dst window lies inside src's static capacity (pto-isa
/// `npu/a2a3/TExtract.hpp:57-60`; PTOAS `PTO.cpp:3959-3982`).
pub const EXTRACT_WINDOW: Check = check(
    CheckKind::Window { index: ("row", "col"), part: "dst", whole: "src", size: (Extent::Rows, Extent::Cols) },
    "the extraction reads a dst-sized window of src; the NPU asserts the bounds only in debug builds",
);
/// `textract` between vec tiles: the dst valid window lies inside src (pto-isa
/// `npu/a5/TExtract.hpp:1129-1180`).
pub const EXTRACT_WINDOW_VALID: Check = check(
    CheckKind::Window { index: ("row", "col"), part: "dst", whole: "src", size: (Extent::ValidRows, Extent::ValidCols) },
    "the extraction reads the dst valid region from src; the NPU asserts the bounds only in debug builds",
);
/// `tinsert` from acc: the src window lies inside dst's static capacity (pto-isa
/// `npu/a2a3/TInsert.hpp:182-187`).
pub const INSERT_WINDOW: Check = check(
    CheckKind::Window { index: ("row", "col"), part: "src", whole: "dst", size: (Extent::Rows, Extent::Cols) },
    "the insertion writes a src-sized window of dst; the NPU asserts the bounds only in debug builds",
);
/// `tinsert` from vec: the src valid window lies inside dst (pto-isa `npu/a5/TInsert.hpp:495-496,
/// 549-552, 687-688`).
pub const INSERT_WINDOW_VALID: Check = check(
    CheckKind::Window { index: ("row", "col"), part: "src", whole: "dst", size: (Extent::ValidRows, Extent::ValidCols) },
    "the insertion writes the src valid region into dst; the NPU asserts the bounds only in debug builds",
);
/// `textract` mat -> left / right index alignment, necessary on every A2A3 path (plain and
/// transposing: `common/arch/memory/textract_common.hpp:85-94, 202-211, 282-295, 374-384`):
/// left rows by 16 and columns by one 32-byte block, right the other way round.
pub const EXTRACT_ALIGN: [Check; 4] = [
    check(CheckKind::IndexMultiple { index: "row", of: Multiple::Fixed(16) }, "left tiles are extracted in 16-row fractals")
        .when_loc("dst", &[pto_ir::types::Loc::Left]),
    check(CheckKind::IndexMultiple { index: "col", of: Multiple::Block("src") }, "left tiles are extracted in 32-byte column blocks")
        .when_loc("dst", &[pto_ir::types::Loc::Left]),
    check(CheckKind::IndexMultiple { index: "row", of: Multiple::Block("src") }, "right tiles are extracted in 32-byte row blocks")
        .when_loc("dst", &[pto_ir::types::Loc::Right]),
    check(CheckKind::IndexMultiple { index: "col", of: Multiple::Fixed(16) }, "right tiles are extracted in 16-column fractals")
        .when_loc("dst", &[pto_ir::types::Loc::Right]),
];

/// `tci` writes one row of 16/32-bit integers (pto-isa `npu/a2a3/TCI.hpp:20-24`,
/// `npu/a5/Tci.hpp:29-34` static_asserts: `Rows == 1`).
pub const TCI_DST: OperandRule = operand(&["dst"], &[var(&[Loc::Vec], Some(INT16_32), &[], &[ShapeReq::Eq(Extent::Rows, 1)])]);
/// `tci`'s start scalar has the dst element type (same static_asserts; PTOAS `PTO.cpp:3069-3074`).
pub const TCI_START: Check = same_dtype("start", "dst", "the sequence starts at the scalar in the dst element type");
/// Where the `tci` rules come from.
pub const TCI_SOURCE: &str = "pto-isa npu/a2a3/TCI.hpp:20-24, npu/a5/Tci.hpp:29-34 (b16/b32, one row, start of the dst type); PTOAS";

/// Row arg-reductions with a value output: 16-bit indices for 2-byte values, 32-bit ones for
/// 4-byte values; the index-only form keeps 32-bit indices (pto-isa
/// `npu/a2a3/TRowReduceIdxOps.hpp:29-40`, `npu/a5/TRowReduceIdx.hpp:59-66`).
pub const ROWARG_IDX_WIDTH: Check = check(
    CheckKind::DtypeMap {
        from: "val",
        to: "idx",
        map: &[(F16, INT16_32), (BF16, INT16_32), (I16, INT16_32), (U16, INT16_32), (F32, I32_U32), (I32, I32_U32), (U32, I32_U32)],
    },
    "the index width follows the value width",
);

/// `texpands` into a mat tile: the fill runs in 32-byte blocks, 1 to 32767 repeats of one block
/// (pto-isa `npu/a2a3/TExpandS.hpp:103-108` PTO_ASSERT, `npu/a5/TExpandS.hpp:90-95`
/// static_assert): a mat tile below 32 bytes has no block to fill.
pub const EXPANDS_MAT_BLOCKS: ShapeReq = ShapeReq::Bytes(32, 32767 * 32);
/// ptoas accepts a mat `texpands` tile of any size; pto takes pto-isa's side.
pub const EXPANDS_MAT_DISPUTE: Dispute = Dispute {
    ptoas: "accepts a mat dst of any size (TExpandsOp::verify, lib/PTO/IR/PTO.cpp:3899-3944, checks none; it emits TEXPANDS of a 1x1 f32 mat tile)",
    pto_isa: "needs `Rows * Cols * sizeof(T) / 32` in [1, 32767] (TEXPANDS.md; npu/a2a3/TExpandS.hpp:103-108 asserts it, npu/a5/TExpandS.hpp:90-95 static_asserts it: zero repeats fill nothing); pto rejects it",
    rejects: true,
};
/// The scalar of `texpands`, `trems`, `tfmods` has the tile's element type (PTOAS
/// `PTO.cpp:3908-3911, 7029-7031, 7070-7072`).
pub const SCALAR_LIKE_DST: Check = same_dtype("scalar", "dst", "the scalar is combined with dst elements without conversion");
/// The scalar of `taxpy` has the src element type (PTOAS `PTO.cpp:2788-2790`).
pub const SCALAR_LIKE_SRC: Check = same_dtype("scalar", "src", "the scalar multiplies src elements without conversion");

/// A row listing the scalar rule for the ops whose scalar must have the tile's element type.
pub const SCALAR_TYPE_ROW: super::Row = super::Row {
    applies: super::Applies::Ops(&[pto_ir::ops::Opcode::TExpands, pto_ir::ops::Opcode::TRems, pto_ir::ops::Opcode::TFmods]),
    checks: &[SCALAR_LIKE_DST],
    source: "PTOAS verifier (texpands / trems / tfmods: scalar of the tile element type)",
    ..super::Row::DEFAULT
};

/// `tmov` into the bias table: one row of 64-byte multiples (pto-isa `npu/a2a3/TMov.hpp:35-38`,
/// `npu/a5/TMov.hpp:23-43`).
pub const BIAS_DST: Variant = var(&[Loc::Bias], None, &[], &[ShapeReq::Eq(Extent::Rows, 1), ShapeReq::RowBytes(64)]);
/// `tmov` into the fixpipe scaling buffer: one row of 128-byte multiples of 64-bit quant
/// parameters (pto-isa `npu/a2a3/TMov.hpp:62-69`, `npu/a5/TMov.hpp:73-81`).
pub const SCALING_DST: Variant = var(&[Loc::Scaling], Some(&[I64, U64]), &[], &[ShapeReq::Eq(Extent::Rows, 1), ShapeReq::RowBytes(128)]);
/// `tmov` to scaling copies the quant parameters.
pub const SCALING_SAME_DTYPE: Check =
    same_dtype("src", "dst", "mat -> scaling copies the quant parameters (pto-isa npu/a2a3/TMov.hpp:62)").when_loc("dst", &[Loc::Scaling]);

/// `tmrgsort` single-list form: blocks of a multiple of 64 elements (pto-isa
/// `npu/a2a3/TMrgSort.hpp:291-298`, debug asserts; PTOAS `PTO.cpp:5993-5998`).
pub const MRGSORT_BLOCK_LEN: Check =
    check(CheckKind::IndexMultiple { index: "blockLen", of: Multiple::Fixed(64) }, "the single-list merge works on 64-element blocks");

/// `tconcat`: both sources' valid columns fit the dst row (pto-isa `npu/a2a3/TConcat.hpp:95`,
/// debug assert; PTOAS `PTO.cpp:2941-2947`).
pub const CONCAT_FITS: Check = check(
    CheckKind::SumLe { a: ("src0", Extent::ValidCols), b: ("src1", Extent::ValidCols), c: ("dst", Extent::Cols) },
    "concatenation writes src1's columns after src0's in each dst row",
);
/// `treshape` reinterprets the same storage (PTOAS `PTO.cpp:7235-7249`; the simulator traps on it at
/// run time too).
pub const RESHAPE_SAME_BYTES: Check = check(CheckKind::SameBytes("src", "dst"), "a reshape reinterprets the same bytes");
/// `tstore` atomic add exists for f16/f32/i16/i32/i8/bf16 GM data only (pto-isa
/// `common/arch/memory/tstore_common.hpp:151-155`, `npu/a5/TStore.hpp:95-99`).
pub const ATOMIC_ADD_TYPES: Check = check(
    CheckKind::AttrWhen {
        attr: "atomicType",
        kind: "atomic_type",
        slot: "dst",
        dtypes: &[U8, U16, U32, I64, U64, F8E4M3, F8E5M2, HiF8],
        allowed: &["atomic_none"],
    },
    "atomic add exists for f16/f32/i16/i32/i8/bf16 GM data only",
);
/// `reluPreMode` is a fixpipe feature: only stores from acc apply it (PTOAS `PTO.cpp:1802-1803`).
pub const RELU_ONLY_FROM_ACC: Check = check(
    CheckKind::AttrWhen { attr: "reluPreMode", kind: "relu_pre_mode", slot: "src", dtypes: LOAD_STORE_A5, allowed: &["no_relu"] },
    "the pre-store ReLU runs in the fixpipe, which only acc stores pass through",
)
.when_loc("src", &[Loc::Vec, Loc::Mat]);

/// Every element type (an attribute rule that holds whatever the operand's type).
pub const ANY_DTYPE: &[ElemType] = &[I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F8E4M3, F8E5M2, HiF8, F8E8M0];

/// `tmov`'s fixpipe modes only apply to moves out of acc (PTOAS `PTO.cpp:5170-5176`:
/// "expects accToVecMode to be used only for acc-to-vec tmov", "expects reluPreMode form to use
/// loc=acc src"; pto-isa applies them in the fixpipe, `npu/a5/TMov.hpp`, which only acc data
/// passes through): `accToVecMode` on a move not from acc or not into vec, `reluPreMode` other than
/// `no_relu` on a move not from acc.
pub const TMOV_FIXPIPE_MODES: [Check; 3] = [
    check(
        CheckKind::AttrWhen { attr: "accToVecMode", kind: "acc_to_vec_mode", slot: "src", dtypes: ANY_DTYPE, allowed: &[] },
        "accToVecMode picks the vector core an acc -> vec move writes: only acc sources take it",
    )
    .when_loc("src", &[Loc::Vec, Loc::Mat, Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling]),
    check(
        CheckKind::AttrWhen { attr: "accToVecMode", kind: "acc_to_vec_mode", slot: "src", dtypes: ANY_DTYPE, allowed: &[] },
        "accToVecMode picks the vector core an acc -> vec move writes: only vec destinations take it",
    )
    .when_loc("dst", &[Loc::Mat, Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling, Loc::Acc]),
    check(
        CheckKind::AttrWhen { attr: "reluPreMode", kind: "relu_pre_mode", slot: "src", dtypes: ANY_DTYPE, allowed: &["no_relu"] },
        "the pre-move ReLU runs in the fixpipe, which only acc sources pass through",
    )
    .when_loc("src", &[Loc::Vec, Loc::Mat, Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling]),
];

/// MX matmul `a`: m, k in [1, 4095] and a static K that is a multiple of 64 (pto-isa
/// `npu/a5/TMatmul.hpp:114`).
pub const MX_A: &[ShapeReq] =
    &[ShapeReq::Range(Extent::ValidRows, 1, 4095), ShapeReq::Range(Extent::ValidCols, 1, 4095), ShapeReq::Multiple(Extent::Cols, 64)];
/// MX gemv `a`: one valid row, K in [1, 4095], static K a multiple of 64.
pub const MX_GEMV_A: &[ShapeReq] =
    &[ShapeReq::Eq(Extent::ValidRows, 1), ShapeReq::Range(Extent::ValidCols, 1, 4095), ShapeReq::Multiple(Extent::Cols, 64)];
/// MX scatter/gather: the GM table holds elements of the tile's type (PTOAS `PTO.cpp:2161-2204`).
pub const MGATHER_MEM_DTYPE: [Check; 2] = [
    same_dtype("mem", "dst", "the GM table holds the gathered elements"),
    same_dtype("src", "mem", "the GM table receives the scattered elements"),
];
/// A5 `tload` destinations: vec tiles are ND, DN or NZ like the GM data
/// (`common/arch/register/tload_common.hpp:344-351`); 64-bit elements pad with null or zero only
/// (`tload_common.hpp:333-337`).
pub const LOAD_DST_A5: OperandRule = operand(
    &["dst"],
    &[
        var(&[Loc::Vec], Some(LOAD_A5_NARROW), &[ND, DN, NZ], &[]),
        var(&[Loc::Vec], Some(&[I64, U64]), &[ND, DN, NZ], &[ShapeReq::PadNullOrZero]),
        var(&[Loc::Mat], Some(LOAD_A5_NARROW), &[], &[]),
        var(&[Loc::Mat], Some(&[I64, U64]), &[], &[ShapeReq::PadNullOrZero]),
    ],
);
/// A5 load/store element types up to 4 bytes.
const LOAD_A5_NARROW: &[ElemType] = &[I8, U8, I16, U16, I32, U32, F16, BF16, F32, F8E4M3, F8E5M2, HiF8];

/// Vec-to-vec `textract`/`tinsert` copy within one layout class, ND/ND or NZ/NZ (pto-isa
/// `npu/a2a3/TExtract.hpp:213-259`, `npu/a2a3/TInsert.hpp:136-178`, `npu/a5/TInsert.hpp:527-558`).
pub const VEC_SAME_LAYOUT: Check =
    check(CheckKind::SameLayout("src", "dst"), "vec-to-vec windows are copied within one layout").when_loc("src", &[Loc::Vec]);
/// Extraction and insertion copy elements unless the source is acc (a fixpipe conversion).
pub const COPY_SAME_DTYPE: Check =
    same_dtype("src", "dst", "the window is copied element by element").when_loc("src", &[Loc::Mat, Loc::Vec]);
