//! The table itself. One line per op: variant, mnemonic, family, operand pattern, then the
//! fields that differ from [`OpSpec::DEFAULT`]. See `spec.rs` for the pattern language.

use super::spec::*;

macro_rules! op_table {
    ($( $v:ident $name:literal $fam:ident $sig:tt { $($k:ident : $val:expr),* $(,)? } )*) => {
        /// Every op `pto` knows. Generated from the table, in table order.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
        #[allow(missing_docs)]
        pub enum Opcode { $($v),* }

        pub(super) static OPS: &[OpSpec] = &[
            $( OpSpec { opcode: Opcode::$v, name: $name, family: Family::$fam, sig: $sig, $($k: $val,)* ..OpSpec::DEFAULT } ),*
        ];
    };
}

// Scratch rules.
const NO_TMP: Tmp = Tmp { a2a3: TmpRule::Forbidden, a5: TmpRule::Forbidden };
/// A2A3 always uses the scratch tile; A5 ignores it.
const TMP_REQ: Tmp = Tmp { a2a3: TmpRule::Required, a5: TmpRule::Ignored };
/// A2A3 uses it on some paths; A5 ignores it.
const TMP_OPT: Tmp = Tmp { a2a3: TmpRule::Optional, a5: TmpRule::Ignored };
/// `trowexpand{max,min,expdif}`: A2A3 optional, A5 form must omit it (PTOAS `PTO.cpp:7853-7854`;
/// `trowexpand{sub,mul,div}` take it on A5 and ignore it: `npu/a5/TRowExpandSub.hpp:142-145`).
const TMP_ROWEXP: Tmp = Tmp { a2a3: TmpRule::Optional, a5: TmpRule::Forbidden };
const _: Tmp = NO_TMP;

// Operand patterns used by many ops.
const BIN: &str = "src0:tile, src1:tile -> dst:tile";
const BIN_TMP: &str = "src0:tile, src1:tile, tmp:tile? -> dst:tile";
const UN: &str = "src:tile -> dst:tile";
const UN_TMP: &str = "src:tile, tmp:tile? -> dst:tile";
/// Tile-scalar: PTOAS's `ScalarType:$scalar` (PTOOps.td:54-55, a signless integer or a float).
const TS: &str = "src:tile, scalar:scalar@numeric -> dst:tile";
const TS_TMP: &str = "src:tile, scalar:scalar@numeric, tmp:tile? -> dst:tile";
/// Bitwise tile-scalar: `AnySignlessInteger:$scalar` (PTOOps.td:2639, 4202, 5294, 5318, 5581).
const TS_INT: &str = "src:tile, scalar:scalar@signless -> dst:tile";
const TS_INT_TMP: &str = "src:tile, scalar:scalar@signless, tmp:tile? -> dst:tile";
const TERN: &str = "src0:tile, src1:tile, src2:tile -> dst:tile";
const ARG: &str = "src:tile, tmp:tile? -> dst:tile | src:tile, tmp:tile? -> val:tile, idx:tile";
/// `tpartargmax/min`: values first, then indices (the pages' operand order).
const PART_ARG: &str = "src0:tile, src1:tile, src0_idx:tile, src1_idx:tile -> dst:tile, dst_idx:tile";
/// MX quantization (A5): `max` and `scaling` are scratch the op writes, `exp` the E8M0 exponents.
const MX_QUANT: &str = "src:tile, max:tile, scaling:tile -> dst:tile, exp:tile";
/// A TPUSH/TPOP FIFO op: the split axis is PTOAS's raw integer (`{split = 0}`).
const SPLIT: &str = "split:tile_split!";
/// The IMG2COL configuration writers.
const CONV_CFG: &str = "cfg:conv -> ";
/// Comm transfers through optional UB staging tiles (ping/pong; lowering may introduce them).
const COMM_COPY: &str = "dst:view, src:view, ping:tile?, pong:tile? -> ";
/// Async DMA: GM to GM, completion as an async event.
const ASYNC_COPY: &str = "dst:view, src:view, session:session -> event:async_event";
/// Comm signal ops.
const SIGNAL_CMP: &str = "signal:view, cmp_value:scalar -> ";

// Constraint groups.
const S_BIN: &str = "dtype(src0,src1,dst) valid(src0,src1,dst)";
const S_UN: &str = "dtype(src,dst) valid(src,dst)";
const S_DT_BIN: &str = "dtype(src0,src1,dst)";
const S_DT_UN: &str = "dtype(src,dst)";
/// `trowexpand{add,...}`: the full operand is whichever of src0/src1 has dst's valid shape
/// (pto-isa `npu/a2a3/TRowExpandSub.hpp:66-89`, `npu/a5/TRowExpandSub.hpp:88-108`; PTOAS
/// `PTO.cpp:7856-7870`).
const S_ROW_EXPAND: &str = "dtype(src0,src1,dst) either(src0,src1,dst)";

/// Same element types and valid shapes of values and their indices.
const S_PART_ARG: &str =
    "dtype(src0,src1,dst) dtype(src0_idx,src1_idx,dst_idx) valid(src0,src0_idx) valid(src1,src1_idx) valid(dst,dst_idx)";
/// Staging tiles hold the transferred elements; ping and pong are one tile type.
const S_COMM_COPY: &str = "dtype(dst,src,ping,pong) shape(ping,pong)";
/// PTOAS `verifyAsyncTransferOp`.
const S_ASYNC_COPY: &str = "dtype(dst,src) flat(dst,src) shape(dst,src)";

const CMP: &str = "cmpMode:cmp!";

/// `mode(suffix, attr, value)`.
const fn mode(suffix: &'static str, attr: &'static str, value: &'static str) -> ModeSuffix {
    ModeSuffix { suffix, attr, value }
}
/// MGATHER's `Coalesce` and `GatherOOB` suffixes (`mgather.row.clamp`, `mgather.elem.zero`).
const MGATHER_MODES: &[ModeSuffix] = &[
    mode("row", "coalesce", "row"),
    mode("elem", "coalesce", "elem"),
    mode("undefined", "gatherOob", "undefined"),
    mode("clamp", "gatherOob", "clamp"),
    mode("wrap", "gatherOob", "wrap"),
    mode("zero", "gatherOob", "zero"),
];
/// MSCATTER's `Coalesce`, `ScatterOOB` and `ScatterAtomicOp` suffixes
/// (`mscatter.row.clamp.atomic_add`, `mscatter.elem.skip`).
const MSCATTER_MODES: &[ModeSuffix] = &[
    mode("row", "coalesce", "row"),
    mode("elem", "coalesce", "elem"),
    mode("undefined", "scatterOob", "undefined"),
    mode("skip", "scatterOob", "skip"),
    mode("clamp", "scatterOob", "clamp"),
    mode("wrap", "scatterOob", "wrap"),
    mode("atomic_none", "scatterAtomicOp", "none"),
    mode("atomic_add", "scatterAtomicOp", "add"),
    mode("atomic_max", "scatterAtomicOp", "max"),
    mode("atomic_min", "scatterAtomicOp", "min"),
];
/// A push's pipe is the store of its tile into the slot: from Acc FIX, from Vec MTE3 (PTOAS
/// `TPushOp::getPipe`; pto-isa's `ffts_cross_core_sync(PIPE_FIX / PIPE_MTE3)` after the store,
/// `npu/a2a3/TPush.hpp` `pushAcc2GMFiFo` / `pushVec2GMFiFo`). `src` is the tile pushed.
const PUSH_PIPES: &str = "src=acc => FIX; src=vec => MTE3";
/// An A2A3 pop loads the slot from the GM FIFO into its tile with `TLOAD` (PTOAS
/// `TPopOp::getPipe`: `PIPE_MTE2` on A2A3; `npu/a2a3/TPush.hpp` `popVecTileFromGMFiFo`); an A5
/// pop only waits for the producer, which wrote the tile. `dst` is the tile popped.
const POP_PIPES: &str = "a2a3, dst=vec|mat => MTE2";
const CVT: &str = "rmode:round_mode?, sat_mode:saturation_mode?";

op_table! {
    // ---- Elementwise binary (10) ----
    TAdd "tadd" ElemBinary BIN { same: S_BIN, page: "TADD", doc: "dst = src0 + src1 over the valid region" }
    TSub "tsub" ElemBinary BIN { same: S_BIN, page: "TSUB", doc: "dst = src0 - src1" }
    TMul "tmul" ElemBinary BIN { same: S_BIN, page: "TMUL", doc: "dst = src0 * src1" }
    TDiv "tdiv" ElemBinary BIN { same: S_BIN, page: "TDIV", doc: "dst = src0 / src1" }
    TMin "tmin" ElemBinary BIN { same: S_BIN, page: "TMIN", doc: "dst = min(src0, src1)" }
    TMax "tmax" ElemBinary BIN { same: S_BIN, page: "TMAX", doc: "dst = max(src0, src1)" }
    TRem "trem" ElemBinary BIN_TMP { same: S_BIN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:4550", page: "TREM", doc: "dst = remainder(src0, src1)" }
    TFmod "tfmod" ElemBinary BIN { same: S_BIN, page: "TFMOD", doc: "dst = fmod(src0, src1)" }
    TPrelu "tprelu" ElemBinary BIN_TMP { same: S_BIN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:4367", page: "TPRELU", doc: "dst = src0 > 0 ? src0 : src0 * src1" }
    TPow "tpow" ElemBinary BIN_TMP { same: S_BIN, tmp: TMP_OPT, page: "TPOW", doc: "dst = pow(src0, src1)" }

    // ---- Bitwise and shifts (6) ----
    TAnd "tand" Bitwise BIN { same: S_BIN, page: "TAND", doc: "dst = src0 & src1" }
    TOr "tor" Bitwise BIN { same: S_BIN, page: "TOR", doc: "dst = src0 | src1" }
    TXor "txor" Bitwise BIN_TMP { same: S_BIN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5621", page: "TXOR", doc: "dst = src0 ^ src1" }
    TNot "tnot" Bitwise UN { same: S_UN, page: "TNOT", doc: "dst = ~src" }
    TShl "tshl" Bitwise BIN { pipes: "a5 => V; => S", same: S_BIN, page: "TSHL", doc: "dst = src0 << src1 (per element)" }
    TShr "tshr" Bitwise BIN { pipes: "a5 => V; => S", same: S_BIN, page: "TSHR", doc: "dst = src0 >> src1 (arithmetic for signed, logical for unsigned)" }

    // ---- Ternary / fused (8) ----
    TAddc "taddc" Ternary TERN { cpp: "TADD($dst, $src0, $src1); TADD($dst, $dst, $src2)", same: "dtype(src0,src1,src2,dst) valid(src0,src1,src2,dst)", page: "TADDC", doc: "dst = src0 + src1 + src2" }
    TSubc "tsubc" Ternary TERN { cpp: "TSUB($dst, $src0, $src1); TADD($dst, $dst, $src2)", same: "dtype(src0,src1,src2,dst) valid(src0,src1,src2,dst)", page: "TSUBC", doc: "dst = src0 - src1 + src2" }
    TMulAddDst "tmuladddst" Ternary BIN { effects: "reads_dst", same: S_BIN, page: "TMULADDDST", doc: "dst = src0 * src1 + dst" }
    TFusedMulAdd "tfusedmuladd" Ternary BIN { effects: "reads_dst", same: S_BIN, page: "TFUSEDMULADD", doc: "dst = src0 * dst + src1 (reads the old dst)" }
    TFusedMulAddRelu "tfusedmuladdrelu" Ternary BIN { effects: "reads_dst", same: S_BIN, page: "TFUSEDMULADDRELU", doc: "dst = relu(src0 * dst + src1) (reads the old dst)" }
    TSubRelu "tsubrelu" Ternary BIN { same: S_BIN, page: "TSUBRELU", doc: "dst = relu(src0 - src1)" }
    TAddReluConv "taddreluconv" Ternary BIN { page: "TADDReluConv", doc: "dst = convert(relu(src0 + src1))" }
    TAddDeqRelu "tadddeqrelu" Ternary "src0:tile, src1:tile, scale:scalar, tmp:tile? -> dst:tile" { tmp: TMP_OPT, page: "TAddDeqRelu", doc: "dst = relu(dequant(src0 + src1, scale))" }

    // ---- Unary math (8) ----
    TAbs "tabs" Unary UN { vop: "vabs", same: S_UN, page: "TABS", doc: "dst = |src|" }
    TNeg "tneg" Unary UN { vop: "vmuls", same: S_UN, page: "TNEG", doc: "dst = -src" }
    TExp "texp" Unary UN { vop: "vexp", same: S_UN, page: "TEXP", doc: "dst = exp(src)" }
    TLog "tlog" Unary UN { vop: "vln", same: S_UN, page: "TLOG", doc: "dst = ln(src)" }
    TSqrt "tsqrt" Unary UN { vop: "vsqrt", same: S_UN, page: "TSQRT", doc: "dst = sqrt(src)" }
    TRsqrt "trsqrt" Unary UN_TMP { vop: "vrsqrt", same: S_UN, tmp: TMP_OPT, page: "TRSQRT", doc: "dst = 1 / sqrt(src)" }
    TRecip "trecip" Unary UN { vop: "vdiv", same: S_UN, page: "TRECIP", doc: "dst = 1 / src" }
    TRelu "trelu" Unary UN { vop: "vrelu", same: S_UN, page: "TRELU", doc: "dst = max(src, 0)" }

    // ---- Tile-scalar (19) ----
    TAdds "tadds" TileScalar TS { same: S_UN, page: "TADDS", doc: "dst = src + scalar" }
    TSubs "tsubs" TileScalar TS { same: S_UN, page: "TSUBS", doc: "dst = src - scalar" }
    TMuls "tmuls" TileScalar TS { same: S_UN, page: "TMULS", doc: "dst = src * scalar" }
    TDivs "tdivs" TileScalar "src:tile, scalar:scalar -> dst:tile | scalar:scalar, src:tile -> dst:tile" { vop: "vector_dup+vdiv", same: S_UN, page: "TDIVS", doc: "dst = src / scalar, or scalar / src when the scalar comes first" }
    TMins "tmins" TileScalar TS { same: S_UN, page: "TMINS", doc: "dst = min(src, scalar)" }
    TMaxs "tmaxs" TileScalar TS { same: S_UN, page: "TMAXS", doc: "dst = max(src, scalar)" }
    TRems "trems" TileScalar TS_TMP { same: S_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:4583", page: "TREMS", doc: "dst = remainder(src, scalar)" }
    TFmods "tfmods" TileScalar TS { same: S_UN, page: "TFMODS", doc: "dst = fmod(src, scalar)" }
    TAnds "tands" TileScalar TS_INT { same: S_UN, page: "TANDS", doc: "dst = src & scalar" }
    TOrs "tors" TileScalar TS_INT { same: S_UN, page: "TORS", doc: "dst = src | scalar" }
    TXors "txors" TileScalar TS_INT_TMP { same: S_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5582", page: "TXORS", doc: "dst = src ^ scalar" }
    TShls "tshls" TileScalar TS_INT { same: S_UN, page: "TSHLS", doc: "dst = src << scalar" }
    TShrs "tshrs" TileScalar TS_INT { same: S_UN, attrs: "round:bool?", page: "TSHRS", doc: "dst = src >> scalar (arithmetic for signed, logical for unsigned; `round` adds the last bit shifted out)" }
    TLrelu "tlrelu" TileScalar "src:tile, scalar:scalar@f32 -> dst:tile" { same: S_UN, page: "TLRELU", doc: "dst = src > 0 ? src : src * slope" }
    TAddsc "taddsc" TileScalar "src0:tile, scalar:scalar@numeric, src1:tile -> dst:tile" { cpp: "TADDS($dst, $src0, $scalar); TADD($dst, $dst, $src1)", same: S_BIN, page: "TADDSC", doc: "dst = src0 + scalar + src1" }
    TSubsc "tsubsc" TileScalar "src0:tile, scalar:scalar@numeric, src1:tile -> dst:tile" { cpp: "TSUBS($dst, $src0, $scalar); TADD($dst, $dst, $src1)", same: S_BIN, page: "TSUBSC", doc: "dst = src0 - scalar + src1" }
    TAxpy "taxpy" TileScalar TS { effects: "reads_dst", page: "TAXPY", doc: "dst = src * scalar + dst" }
    TPows "tpows" TileScalar TS_TMP { same: S_UN, tmp: TMP_OPT, page: "TPOWS", doc: "dst = pow(src, scalar)" }
    TExpands "texpands" TileScalar "scalar:scalar@numeric -> dst:tile" { pipes: "dst=mat => MTE2", page: "TEXPANDS", doc: "dst = scalar over the valid region" }

    // ---- Compare / select (4) ----
    TCmp "tcmp" CmpSel BIN { cpp: "TCMP($dst, $src0, $src1, @cmpMode=EQ)", attrs: CMP, same: "dtype(src0,src1) valid(src0,src1)", page: "TCMP", doc: "dst bits = src0 cmp src1 (packed, LSB first)" }
    TCmps "tcmps" CmpSel TS { cpp: "TCMPS($dst, $src, $scalar, @cmpMode=EQ)", attrs: CMP, page: "TCMPS", doc: "dst bits = src cmp scalar (packed, LSB first)" }
    TSel "tsel" CmpSel "mask:tile, src0:tile, src1:tile, tmp:tile? -> dst:tile" { same: S_BIN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5162", page: "TSEL", doc: "dst = mask bit ? src0 : src1" }
    TSels "tsels" CmpSel "mask:tile, src:tile, tmp:tile, scalar:scalar@numeric -> dst:tile | mask:tile, src:tile, scalar:scalar@numeric, tmp:tile? -> dst:tile" { cpp: "TSELS($dst, $mask, $src, $tmp, $scalar)", same: S_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5198", page: "TSELS", doc: "dst = mask bit ? src : scalar (PTOAS writes `tmp` before the scalar, as pto-isa's C++ does; the scalar-first order is also read)" }

    // ---- Row reductions (4) ----
    TRowSum "trowsum" RowReduce UN_TMP { same: S_DT_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5009", page: "TROWSUM", doc: "dst[i,0] = sum_j src[i,j]" }
    TRowMax "trowmax" RowReduce UN_TMP { same: S_DT_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:4887", page: "TROWMAX", doc: "dst[i,0] = max_j src[i,j]" }
    TRowMin "trowmin" RowReduce UN_TMP { same: S_DT_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:4948", page: "TROWMIN", doc: "dst[i,0] = min_j src[i,j]" }
    TRowProd "trowprod" RowReduce UN_TMP { same: S_DT_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:5038", page: "TROWPROD", doc: "dst[i,0] = prod_j src[i,j]" }

    // ---- Column reductions (5) ----
    TColSum "tcolsum" ColReduce UN_TMP { cpp: "TCOLSUM($dst, $src, $tmp?, @isBinary?)", same: "dtype(src,dst) present(tmp, isBinary)", attrs: "isBinary:bool?", inert: "isBinary: pairwise or sequential accumulation, a difference in float rounding on the NPU only (npu/a2a3/TColSum.hpp:127-137); pto-isa's CPU simulator ignores it (cpu/TColSum.hpp:61-64), and pto run computes as it does", tmp: TMP_OPT, page: "TCOLSUM", doc: "dst[0,j] = sum_i src[i,j]" }
    TColMax "tcolmax" ColReduce UN { same: S_DT_UN, page: "TCOLMAX", doc: "dst[0,j] = max_i src[i,j]" }
    TColMin "tcolmin" ColReduce UN { same: S_DT_UN, page: "TCOLMIN", doc: "dst[0,j] = min_i src[i,j]" }
    TColProd "tcolprod" ColReduce UN { same: S_DT_UN, page: "TCOLPROD", doc: "dst[0,j] = prod_i src[i,j]" }
    TPairReduceSum "tpairreducesum" ColReduce UN { same: S_DT_UN, page: "TPairReduceSum", doc: "sum of adjacent element pairs" }

    // ---- Arg-reductions (4) ----
    TRowArgMax "trowargmax" ArgReduce ARG { tmp: TMP_OPT, ptoas_tmp: "PTOOps.td:4916", page: "TROWARGMAX", doc: "per row, column index of the max (ties: first)" }
    TRowArgMin "trowargmin" ArgReduce ARG { tmp: TMP_OPT, ptoas_tmp: "PTOOps.td:4977", page: "TROWARGMIN", doc: "per row, column index of the min (ties: first)" }
    TColArgMax "tcolargmax" ArgReduce ARG { tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:3049", page: "TCOLARGMAX", doc: "per column, row index of the max (ties: first)" }
    TColArgMin "tcolargmin" ArgReduce ARG { tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:3106", page: "TCOLARGMIN", doc: "per column, row index of the min (ties: first)" }

    // ---- Expand / broadcast (16) ----
    TRowExpand "trowexpand" Expand UN { vop: "row:vector_dup", same: S_DT_UN, page: "TROWEXPAND", doc: "dst[i,j] = src[i,0]" }
    TColExpand "tcolexpand" Expand UN { same: S_DT_UN, page: "TCOLEXPAND", doc: "dst[i,j] = src[0,j]" }
    TRowExpandAdd "trowexpandadd" Expand BIN { same: S_ROW_EXPAND, page: "TROWEXPANDADD", doc: "dst[i,j] = src0[i,j] + src1[i]" }
    TRowExpandSub "trowexpandsub" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_OPT, page: "TROWEXPANDSUB", doc: "dst[i,j] = src0[i,j] - src1[i]" }
    TRowExpandMul "trowexpandmul" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_OPT, page: "TROWEXPANDMUL", doc: "dst[i,j] = src0[i,j] * src1[i]" }
    TRowExpandDiv "trowexpanddiv" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_OPT, page: "TROWEXPANDDIV", doc: "dst[i,j] = src0[i,j] / src1[i]" }
    TRowExpandMax "trowexpandmax" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_ROWEXP, page: "TROWEXPANDMAX", doc: "dst[i,j] = max(src0[i,j], src1[i])" }
    TRowExpandMin "trowexpandmin" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_ROWEXP, page: "TROWEXPANDMIN", doc: "dst[i,j] = min(src0[i,j], src1[i])" }
    TRowExpandExpdif "trowexpandexpdif" Expand BIN_TMP { same: S_ROW_EXPAND, tmp: TMP_ROWEXP, page: "TROWEXPANDEXPDIF", doc: "dst[i,j] = exp(src0[i,j] - src1[i])" }
    TColExpandAdd "tcolexpandadd" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDADD", doc: "dst[i,j] = src0[i,j] + src1[j]" }
    TColExpandSub "tcolexpandsub" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDSUB", doc: "dst[i,j] = src0[i,j] - src1[j]" }
    TColExpandMul "tcolexpandmul" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDMUL", doc: "dst[i,j] = src0[i,j] * src1[j]" }
    TColExpandDiv "tcolexpanddiv" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDDIV", doc: "dst[i,j] = src0[i,j] / src1[j]" }
    TColExpandMax "tcolexpandmax" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDMAX", doc: "dst[i,j] = max(src0[i,j], src1[j])" }
    TColExpandMin "tcolexpandmin" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDMIN", doc: "dst[i,j] = min(src0[i,j], src1[j])" }
    TColExpandExpdif "tcolexpandexpdif" Expand BIN { same: S_DT_BIN, page: "TCOLEXPANDEXPDIF", doc: "dst[i,j] = exp(src0[i,j] - src1[j])" }

    // ---- Partial (6) ----
    TPartAdd "tpartadd" Partial BIN { same: S_DT_BIN, page: "TPARTADD", doc: "elementwise add over possibly different valid regions" }
    TPartMul "tpartmul" Partial BIN { same: S_DT_BIN, page: "TPARTMUL", doc: "elementwise mul over possibly different valid regions" }
    TPartMax "tpartmax" Partial BIN { same: S_DT_BIN, page: "TPARTMAX", doc: "elementwise max over possibly different valid regions" }
    TPartMin "tpartmin" Partial BIN { same: S_DT_BIN, page: "TPARTMIN", doc: "elementwise min over possibly different valid regions" }
    TPartArgMax "tpartargmax" Partial PART_ARG { same: S_PART_ARG, page: "TPARTARGMAX", doc: "(value, index) of the elementwise max of two (value, index) tile pairs over possibly different valid regions" }
    TPartArgMin "tpartargmin" Partial PART_ARG { same: S_PART_ARG, page: "TPARTARGMIN", doc: "(value, index) of the elementwise min of two (value, index) tile pairs over possibly different valid regions" }

    // ---- Gather / scatter (5) ----
    TGather "tgather" GatherScatter "src:tile, indices:tile, tmp:tile? -> dst:tile | src:tile -> dst:tile | src:tile, k:tile, tmp:tile -> dst:tile, cdst:tile" { ptoas_tmp: "PTO.cpp:4815-4816; pto-isa has only TGATHER(dst, src0, src1, tmp), common/pto_instr.hpp:1206-1213", cpp: "TGATHER($dst, $src, $indices, $tmp?) | TGATHER<T($dst), T($src), @maskPattern>($dst, $src) | TGATHER<T($dst), T($src), T($cdst), T($tmp), @cmpMode=eq, @offset=0>($dst, $src, $k, $cdst, $tmp)", attrs: "maskPattern:mask_pattern!@1, cmpMode:cmp?, offset:i32?", tmp: TMP_OPT, page: "TGATHER", doc: "index form dst[i,j] = src_flat[idx[i,j]]; mask-pattern form; compare form" }
    TGatherB "tgatherb" GatherScatter "src:tile, offsets:tile -> dst:tile" { page: "TGATHERB", doc: "block gather: one u32 byte offset per 32-byte dst block" }
    TScatter "tscatter" GatherScatter "src:tile, indices:tile -> dst:tile" { pipes: "a5 => V; => S", same: S_DT_UN, page: "TSCATTER", doc: "dst_flat[idx[i,j]] = src[i,j]" }
    MGather "mgather" GatherScatter "mem:view, indices:tile -> dst:tile" { cpp: "MGATHER<@coalesce?, @gatherOob?>($dst, $mem, $indices)", attrs: "coalesce:coalesce?, gatherOob:gather_oob?", modes: MGATHER_MODES, pipe: Pipe::Mte2, page: "MGATHER", doc: "gather from a GM table into a tile (coalesce row: dst[r,:] = mem[idx[r],:]; elem: dst[r,c] = mem_flat[idx[r,c]])" }
    MScatter "mscatter" GatherScatter "src:tile, indices:tile -> mem:view" { cpp: "MSCATTER<@coalesce?, @scatterAtomicOp?, @scatterOob?>($mem, $src, $indices)", attrs: "coalesce:coalesce?, scatterAtomicOp:scatter_atomic_op?, scatterOob:scatter_oob?", modes: MSCATTER_MODES, pipe: Pipe::Mte3, page: "MSCATTER", doc: "scatter a tile into a GM table (row or elem coalesce, optionally atomic)" }

    // ---- Sort (2) ----
    TSort32 "tsort32" Sort "src:tile, idx:tile, tmp:tile? -> dst:tile" { same: S_DT_UN, tmp: TMP_OPT, page: "TSORT32", doc: "sort each 32-element block descending with its u32 index" }
    // tmrgsort's merge form reads as PTOAS's TMrgSortOp (PTOOps.td `format2`, PTO.cpp
    // TMrgSortOp::parse): the last of 3 to 5 `ins` tiles is the scratch `tmp`, before it 2 to 4
    // lists; two tiles are a 2-list merge without scratch (insert-scratch appends it on A2A3).
    TMrgSort "tmrgsort" Sort "src:tile, blockLen:scalar@int -> dst:tile | src0:tile, src1:tile, src2:tile?, src3:tile?, tmp:tile -> dst:tile, executed:vector | src0:tile, src1:tile -> dst:tile, executed:vector" { cpp: "rule:tmrgsort", attrs: "exhausted:bool?", same: "dtype(src,dst) dtype(src0,src1,src2,src3,tmp,dst)", tmp: TMP_OPT, page: "TMRGSORT", doc: "merge descending (value, index) lists" }

    // ---- Conversion / quant (5) ----
    TCvt "tcvt" Convert UN_TMP { vop: "vconv", cpp: "TCVT($dst, $src, $tmp?, @rmode=CAST_RINT, @sat_mode?)", attrs: CVT, same: "valid(src,dst)", tmp: TMP_OPT, page: "TCVT", doc: "dst = convert(src) with rounding mode and saturation" }
    TQuant "tquant" Convert "src:tile, scale:tile, offset:tile?, tmp:tile? -> dst:tile | src:tile, max:tile, scaling:tile -> dst:tile, exp:tile" { cpp: "TQUANT<@quant_type=INT8_SYM, T($dst), T($src), T($scale), T($tmp)?>($dst, $src, $scale, $tmp?, &$offset?) | TQUANT($*)", attrs: "quant_type:quant_type!@0, mx_alg:mx_alg?, grp_axis:int?, interleave:bool?", same: "dtype(src,scale,offset,tmp) dtype(src,max,scaling) valid(src,dst) present(offset,quant_type=INT8_ASYM)", tmp: TMP_REQ, page: "TQUANT", doc: "quantize: f32 to i8 (INT8_SYM) or ui8 (INT8_ASYM, with a per-row offset) with a per-row scale; or MX FP8/FP4 with E8M0 exponents per 32-element group (second form, A5)" }
    TQuantDn "tquant_dn" Convert MX_QUANT { attrs: "mx_alg:mx_alg!, interleave:bool?", same: "dtype(src,max,scaling) valid(src,dst)", page: "TQUANT_DN", doc: "MX quantization with groups of 32 rows (grp_axis 0); exp is (M/32)xN E8M0 (A5)" }
    TQuantHif4 "tquant_hif4" Convert MX_QUANT { same: "dtype(src,max,scaling)", page: "TQUANT_HIF4", doc: "HiFloat4 quantization of bf16 with three-level exponents (A6 only: no A2A3 or A5 implementation)" }
    TDequant "tdequant" Convert "src:tile, scale:tile, offset:tile -> dst:tile" { cpp: "TDEQUANT<T($dst), T($src), T($scale)>($dst, $src, $scale, $offset)", same: "dtype(scale,offset,dst) valid(src,dst)", page: "TDEQUANT", doc: "dst = (src - offset[row]) * scale[row], i8/i16 to f32" }

    // ---- Matmul (9 pages; PTOAS adds the mx.acc / mx.bias and gemv.mx variants) ----
    TMatmul "tmatmul" Matmul "a:tile, b:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, page: "TMATMUL", doc: "c = a x b" }
    TMatmulAcc "tmatmul.acc" Matmul "c_in:tile, a:tile, b:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tmatmul_acc"], pipe: Pipe::M, page: "TMATMUL_ACC", doc: "c = c_in + a x b" }
    TMatmulBias "tmatmul.bias" Matmul "a:tile, b:tile, bias:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tmatmul_bias"], pipe: Pipe::M, page: "TMATMUL_BIAS", doc: "c = a x b + bias" }
    TMatmulMx "tmatmul.mx" Matmul "a:tile, a_scale:tile, b:tile, b_scale:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tmatmul_mx"], pipe: Pipe::M, page: "TMATMUL_MX", doc: "microscaled matmul" }
    TMatmulMxAcc "tmatmul.mx.acc" Matmul "c_in:tile, a:tile, a_scale:tile, b:tile, b_scale:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, doc: "microscaled matmul with accumulate" }
    TMatmulMxBias "tmatmul.mx.bias" Matmul "a:tile, a_scale:tile, b:tile, b_scale:tile, bias:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, doc: "microscaled matmul with bias" }
    TMatmulMxHif4 "tmatmul_mx_hif4" Matmul "a:tile, a_scale:tile, b:tile, b_scale:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, page: "TMATMUL_MX_HIF4", doc: "microscaled matmul with HiF4 operands and three-level scales (A6 only: no A2A3 or A5 implementation)" }
    TGemv "tgemv" Matmul "a:tile, b:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, page: "TGEMV", doc: "matrix-vector product" }
    TGemvAcc "tgemv.acc" Matmul "c_in:tile, a:tile, b:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tgemv_acc"], pipe: Pipe::M, page: "TGEMV_ACC", doc: "matrix-vector product with accumulate" }
    TGemvBias "tgemv.bias" Matmul "a:tile, b:tile, bias:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tgemv_bias"], pipe: Pipe::M, page: "TGEMV_BIAS", doc: "matrix-vector product with bias" }
    TGemvMx "tgemv.mx" Matmul "a:tile, a_scale:tile, b:tile, b_scale:tile -> c:tile" { format: "opt( -> $r )", aliases: &["tgemv_mx"], pipe: Pipe::M, page: "TGEMV_MX", doc: "microscaled matrix-vector product" }
    TGemvMxAcc "tgemv.mx.acc" Matmul "c_in:tile, a:tile, a_scale:tile, b:tile, b_scale:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, doc: "microscaled gemv with accumulate" }
    TGemvMxBias "tgemv.mx.bias" Matmul "a:tile, a_scale:tile, b:tile, b_scale:tile, bias:tile -> c:tile" { format: "opt( -> $r )", pipe: Pipe::M, doc: "microscaled gemv with bias" }
    TGetScaleAddr "tget_scale_addr" AssignConfig "src:tile -> dst:tile" { same: "shape(src,dst) valid(src,dst)", page: "TGET_SCALE_ADDR", pipe: Pipe::S, doc: "bind dst (a scaling tile) at src's address >> SHIFT_MX_ADDR (A5)" }

    // ---- Memory GM <-> tile (5) ----
    TLoad "tload" Memory "src:view, offsets:scalar* -> dst:tile" { cpp: "TLOAD($dst, $src)", attrs: "pad_mode:padmode?, init_out_buffer:bool?, layout:layout?", inert: "pad_mode: PTOAS drops it (PTOToEmitC.cpp:3884, TLOAD(dst, src)); padding comes from the tile's pad value (cpu/TLoad.hpp:135-142); init_out_buffer: PTOAS drops it (PTOToEmitC.cpp:3884) and pto-isa's TLOAD has no such parameter (pto_instr.hpp:283-289); layout: the GM layout, which pto takes from the view's strides as PTOAS's InferLayout pass does (it writes this attribute with pto.inferred_layout); pto.inferred_layout: marks that attribute as inferred", format: "opt( pad_mode = $<padmode> ) opt( pad_value = $v : $t ) opt( left_padding_num = $v : $t ) opt( init_out_buffer = $bool ) opt( right_padding_num = $v : $t ) opt( init_condition = $v : $t ) opt( -> $r )", pipe: Pipe::Mte2, page: "TLOAD", doc: "load a GM view into a tile (from element offset [r, c] when given: PTO-AS `%v[%r, %c]`; in DPS form the scalars of PTOAS's `pad_value = ..` groups instead, see `Payload::TailGroups`)" }
    TStore "tstore" Memory "src:tile, preQuantScalar:scalar@i64? -> dst:view, offsets:scalar*" { pipes: "src=acc => FIX", cpp: "rule:tstore", attrs: "atomicType:atomic_type?, reluPreMode:relu_pre_mode?, stPhase:st_phase?", inert: "stPhase: the fixpipe's unit-flag phase, a handshake with the cube (npu/a2a3/TStore.hpp:138; cpu/TStore.hpp:138 (void)Phase); layout: the GM layout, which pto takes from the view's strides as PTOAS's InferLayout pass does (it writes this attribute with pto.inferred_layout); pto.inferred_layout: marks that attribute as inferred", format: "opt( -> $r )", pipe: Pipe::Mte3, page: "TSTORE", doc: "store a tile's valid region into a GM view (at element offset [r, c] when given)" }
    TStoreFp "tstore_fp" Memory "src:tile, fp:tile -> dst:view, offsets:scalar*" { aliases: &["tstore.fp"], pipe: Pipe::Fix, page: "TSTORE_FP", doc: "store an Acc tile through the fixpipe with a quant tile" }
    TPrefetch "tprefetch" Memory "src:view -> dst:tile" { pipe: Pipe::Mte2, page: "TPREFETCH", doc: "prefetch GM data" }
    TPrefetchAsync "tprefetch_async" Memory "src:view, session:session -> event:async_event" { syntax: Syntax::Paren, same: "flat(src)", pipe: Pipe::None, page: "TPREFETCH_ASYNC", doc: "asynchronous GM -> L2 prefetch into the session's scratchpad" }

    // ---- Move / layout (16) ----
    TMov "tmov" Move "src:tile, tmp:tile@vec? -> dst:tile | src:tile, fp:tile@scaling, preQuantScalar:scalar@i64? -> dst:tile | src:tile, preQuantScalar:scalar@i64 -> dst:tile" { pipes: "src=vec, dst=vec => V; src=mat, dst=l0 => MTE1; src=acc|vec, dst=mat|vec => FIX", cpp: "rule:tmov", ods: "src dst fp preQuantScalar", attrs: "accToVecMode:acc_to_vec_mode?, reluPreMode:relu_pre_mode?", format: "opt( -> $r )", aliases: &["tmov.m2l", "tmov.m2r", "tmov.m2b", "tmov.m2s", "tmov.a2v", "tmov.v2m", "tmov.a2m", "tmov.v2v", "tmov.s2d"], tmp: TMP_OPT, pipe: Pipe::Mte1, page: "TMOV", doc: "move a tile between locations / layouts" }
    TMovFp "tmov.fp" Move "src:tile, fp:tile -> dst:tile" { cpp: "TMOV_FP<T($dst), T($src), T($fp)>($dst, $src, $fp)", aliases: &["tmov_fp"], pipe: Pipe::Fix, page: "TMOV_FP", doc: "move an Acc tile through the fixpipe with a quant tile" }
    TExtract "textract" Move "src:tile, row:scalar@index, col:scalar@index -> dst:tile" { pipes: "src=mat, dst=l0 => MTE1; src=vec|acc, dst=mat => FIX; => V", page: "TEXTRACT", pipe: Pipe::Mte1, doc: "dst = src[row.., col..]" }
    TExtractFp "textract_fp" Move "src:tile, fp:tile, row:scalar@index, col:scalar@index -> dst:tile" { pipe: Pipe::Fix, page: "TEXTRACT_FP", doc: "extract through the fixpipe" }
    TInsert "tinsert" Move "src:tile, row:scalar@index, col:scalar@index -> dst:tile" { pipes: "a5, src=vec, dst=vec => V; a5, src=vec, dst=mat => MTE3; => FIX", effects: "reads_dst", page: "TINSERT", doc: "dst[row.., col..] = src" }
    TInsertFp "tinsert_fp" Move "src:tile, fp:tile, row:scalar@index, col:scalar@index -> dst:tile" { effects: "reads_dst", pipe: Pipe::Fix, page: "TINSERT_FP", doc: "insert through the fixpipe" }
    TTrans "ttrans" Move UN_TMP { vop: "vnchwconv", same: S_DT_UN, tmp: TMP_REQ, ptoas_tmp: "PTOOps.td:636", page: "TTRANS", doc: "dst = transpose(src)" }
    TReshape "treshape" Move UN { page: "TRESHAPE", syntax: Syntax::Cast, pipe: Pipe::None, doc: "reinterpret a tile with another shape (same bytes)" }
    TImg2Col "timg2col" Move "src:tile, pos_m:scalar?, pos_k:scalar? -> dst:tile" { attrs: "fmatrix_mode:fmatrix_mode?", same: "dtype(src,dst)", page: "TIMG2COL", pipe: Pipe::Mte1, doc: "im2col: load a (pos_m, pos_k) window of a Mat feature map into a Left tile" }
    TFillPad "tfillpad" Move UN { pipes: "dst=mat => MTE2", page: "TFILLPAD", doc: "copy src and fill dst outside src's valid region with the pad value" }
    TFillPadInplace "tfillpad_inplace" Move UN { pipes: "dst=mat => MTE2", effects: "reads_dst", page: "TFILLPAD_INPLACE", doc: "fill padding in place" }
    TFillPadExpand "tfillpad_expand" Move UN { pipes: "dst=mat => MTE2", page: "TFILLPAD_EXPAND", doc: "fill padding into a larger tile" }
    TConcat "tconcat" Move BIN { same: S_DT_BIN, page: "TCONCAT", doc: "concatenate two tiles along columns" }
    TInterleave "tinterleave" Move "src0:tile, src1:tile -> dst0:tile, dst1:tile" { same: "dtype(src0,src1,dst0,dst1) valid(src0,src1,dst0,dst1)", page: "TINTERLEAVE", doc: "interleave two tiles: the first half of the stream into dst0, the second into dst1" }
    TDeinterleave "tdeinterleave" Move "src0:tile, src1:tile -> dst0:tile, dst1:tile | src:tile -> dst0:tile, dst1:tile" { same: "dtype(src0,src1,src,dst0,dst1) valid(src0,src1,dst0,dst1) valid(dst0,dst1)", page: "TDEINTERLEAVE", doc: "split a stream (two halves, or one tile) into its even (dst0) and odd (dst1) elements" }
    TSubview "tsubview" Move "src:tile, row:scalar, col:scalar -> dst:tile" { same: "dtype(src,dst)", page: "TSUBVIEW", pipe: Pipe::None, doc: "dst aliases src's storage starting at (row, col)" }

    // ---- Generation / misc (5) ----
    TCi "tci" Generate "start:scalar@int, tmp:tile? -> dst:tile" { pipes: "tmp => V; => S", cpp: "TCI<T($dst), E($start), @#descending=0>($dst, $start)", attrs: "descending:bool?", tmp: TMP_OPT, page: "TCI", doc: "dst[k] = start + k (or start - k)" }
    TTri "ttri" Generate "diagonal:scalar@int -> dst:tile" { cpp: "TTRI<T($dst), @#upperOrLower=0>($dst, $diagonal)", attrs: "upperOrLower:i32?, isUpperOrLower:int?", page: "TTRI", doc: "triangular mask tile (`upperOrLower` is PTOAS's spelling, `isUpperOrLower` the page's)" }
    TRandom "trandom" Generate "key:tile, counter:tile -> dst:tile | key0:scalar@signless, key1:scalar@signless, counter0:scalar@signless, counter1:scalar@signless, counter2:scalar@signless, counter3:scalar@signless -> dst:tile" { cpp: "TRANDOM<@rounds=10>($dst, $key, $counter) | PTOAS__TRANDOM<@rounds=10>($dst, $key0, $key1, $counter0, $counter1, $counter2, $counter3)", attrs: "rounds:i32?", page: "TRANDOM", doc: "random numbers from a key (2 words) and a counter (4 words): the page's tiles or PTOAS's six integers" }
    THistogram "thistogram" Generate "src:tile, idx:tile -> dst:tile" { cpp: "THISTOGRAM<@isMSB=true>($dst, $src, $idx)", attrs: "isMSB:bool?", page: "THISTOGRAM", doc: "per-row 256-bin histogram of one byte of each src element, filtered by idx" }
    TPrint "tprint" Generate "src:tile -> | src:view -> " { effects: "memory", page: "TPRINT", pipe: Pipe::S, doc: "print a tile or view (debug)" }

    // ---- Sync / event (2) ----
    TSync "tsync" Sync "events:event* -> | tiles:tile* -> | views:view* -> " { effects: "orders", cpp: "TSYNC($*)", page: "TSYNC", pipe: Pipe::None, doc: "wait for events / pipe barrier (PTOAS also passes tile buffers or GM views)" }
    SyncAll "syncall" Sync "workspace:view?, used_cores:scalar? -> " { attrs: "core_type:sync_core_type?, mode:sync_all_mode?", page: "SYNCALL", pipe: Pipe::None, doc: "barrier across all participating cores (hard: FFTS flags; soft: an i32 GM counter in workspace)" }

    // ---- Assign / alloc / config (11) ----
    TAssign "tassign" AssignConfig "tile:tile, addr:scalar@i64 -> result:tile" { cpp: "TASSIGN($tile, $addr)", syntax: Syntax::Generic, format: "$v , $v $dict? : $t -> $r", page: "TASSIGN", pipe: Pipe::None, doc: "bind a tile to a byte address" }
    TAlloc "talloc" AssignConfig "pipe:pipe -> slot:view" { syntax: Syntax::Paren, attrs: SPLIT, page: "TALLOC", pipe: Pipe::S, doc: "TPipe producer: wait for a free FIFO slot and return it as a GM view (commit with tpush)" }
    TFree "tfree" AssignConfig "pipe:pipe -> | pipe:pipe, slot:view -> " { syntax: Syntax::Paren, attrs: SPLIT, page: "TFREE", pipe: Pipe::S, doc: "TPipe consumer: release the popped FIFO slot" }
    TPush "tpush" AssignConfig "tile:tile, pipe:pipe -> | slot:view, pipe:pipe -> " { pipes: PUSH_PIPES, effects: "push", syntax: Syntax::Paren, attrs: SPLIT, page: "TPUSH", pipe: Pipe::None, doc: "TPipe producer: store a tile into the next FIFO slot (or commit a talloc'd slot) and signal the consumer (pipe: FIX from acc, MTE3 from vec)" }
    TPop "tpop" AssignConfig "tile:tile, pipe:pipe -> | pipe:pipe -> slot:view" { pipes: POP_PIPES, effects: "pop", syntax: Syntax::Paren, attrs: SPLIT, page: "TPOP", pipe: Pipe::None, doc: "TPipe consumer: wait for data and bind the next FIFO slot to tile (or return it as a GM view)" }
    SetFmatrix "setfmatrix" AssignConfig CONV_CFG { aliases: &["tsetfmatrix", "SETFMATRIX"], attrs: "fmatrix_mode:fmatrix_mode?", page: "SETFMATRIX", pipe: Pipe::S, doc: "write the FMATRIX register (feature-map H/W, pads) from an IMG2COL configuration" }
    SetImg2ColRpt "set_img2col_rpt" AssignConfig CONV_CFG { aliases: &["tset_img2col_rpt"], attrs: "fmatrix_mode:fmatrix_mode?", page: "SET_IMG2COL_RPT", pipe: Pipe::S, doc: "write the img2col repeat register from an IMG2COL configuration" }
    SetImg2ColPadding "set_img2col_padding" AssignConfig CONV_CFG { aliases: &["tset_img2col_padding"], attrs: "fmatrix_mode:fmatrix_mode?", page: "SET_IMG2COL_PADDING", pipe: Pipe::S, doc: "write the img2col padding value register from an IMG2COL configuration" }
    SetQuantScalar "set_quant_scalar" AssignConfig "scale:scalar -> " { attrs: "out_dtype:type!", page: "SET_QUANT_SCALAR", pipe: Pipe::S, doc: "set the fixpipe pre-quantization scalar used by later tpush (sign bit from the output type)" }
    SetQuantVector "set_quant_vector" AssignConfig "fp:tile -> " { page: "SET_QUANT_VECTOR", pipe: Pipe::S, doc: "point the fixpipe vector-quant register at a scaling tile for later tpush" }

    // ---- Communication (docs/isa/comm, 9 here) ----
    // (TGET_ASYNC and TPUT_ASYNC are the PTOAS async DMA entries below, also spelled `comm.*`.)
    CommBroadcast "comm.tbroadcast" Comm "group:group, src:view, ping:tile?, pong:tile? -> " { aliases: &["tbroadcast"], attrs: "engine:coll_engine?", same: "dtype(group,src,ping,pong) shape(ping,pong)", page: "comm/TBROADCAST", pipe: Pipe::None, doc: "the root writes its local src to every rank's buffer in group (staged through UB)" }
    CommGather "comm.tgather" Comm "group:group, dst:view, ping:tile?, pong:tile? -> " { attrs: "engine:coll_engine?", same: "dtype(group,dst,ping,pong) shape(ping,pong)", page: "comm/TGATHER", pipe: Pipe::None, doc: "the root concatenates every rank's buffer in group into its local dst (staged through UB)" }
    CommGet "comm.tget" Comm COMM_COPY { aliases: &["tget"], same: S_COMM_COPY, page: "comm/TGET", pipe: Pipe::None, doc: "copy a remote GM view into a local GM view through UB staging tiles" }
    CommNotify "comm.tnotify" Comm "signal:view, value:scalar -> " { aliases: &["tnotify"], attrs: "op:notify_op!", page: "comm/TNOTIFY", pipe: Pipe::S, doc: "set or atomically add an i32 value to a remote signal" }
    CommPut "comm.tput" Comm COMM_COPY { aliases: &["tput"], attrs: "atomicType:atomic_type?", same: S_COMM_COPY, page: "comm/TPUT", pipe: Pipe::None, doc: "copy a local GM view to a remote GM view through UB staging tiles, optionally atomic-add" }
    CommReduce "comm.treduce" Comm "group:group, dst:view, acc:tile?, ping:tile?, pong:tile? -> " { aliases: &["treduce"], attrs: "op:reduce_op!, engine:coll_engine?", same: "dtype(group,dst,acc,ping,pong) shape(ping,pong)", page: "comm/TREDUCE", pipe: Pipe::None, doc: "the root reduces (sum/max/min) every rank's buffer in group into its local dst" }
    CommScatter "comm.tscatter" Comm "group:group, src:view, ping:tile?, pong:tile? -> " { attrs: "engine:coll_engine?", same: "dtype(group,src,ping,pong) shape(ping,pong)", page: "comm/TSCATTER", pipe: Pipe::None, doc: "the root splits its local src into row blocks and writes one to each rank's buffer in group" }
    CommTest "comm.ttest" Comm "signal:view, cmp_value:scalar -> result:scalar" { aliases: &["ttest"], attrs: "cmp:cmp!", page: "comm/TTEST", pipe: Pipe::S, doc: "non-blocking: true when every i32 signal in the view satisfies `signal cmp cmp_value`" }
    CommWait "comm.twait" Comm SIGNAL_CMP { aliases: &["twait"], attrs: "cmp:cmp!", page: "comm/TWAIT", pipe: Pipe::S, doc: "block until every i32 signal in the view satisfies `signal cmp cmp_value`" }

    // ---- PTOAS: views, pointers, GM scalars ----
    MakeTensorView "make_tensor_view" View "" { syntax: Syntax::MakeTensorView, attrs: "layout:layout?", pipe: Pipe::None, doc: "a tensor view over a GM pointer with shape and strides" }
    PartitionView "partition_view" View "" { syntax: Syntax::PartitionView, pipe: Pipe::None, doc: "a slice (offsets, sizes) of a tensor view" }
    Subview "subview" View "" { syntax: Syntax::PartitionView, pipe: Pipe::None, doc: "legacy spelling of partition_view producing a tile_view" }
    GetTensorViewDim "get_tensor_view_dim" View "" { format: "$v , $v : $t -> $r $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "a dimension of a tensor view" }
    AddPtr "addptr" View "" { format: "$v , $v $dict? : $t -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "pointer plus offset" }
    LoadScalar "load_scalar" View "" { format: "$v [ $v ] $dict? : $t -> $r", syntax: Syntax::Generic, pipe: Pipe::S, doc: "load one scalar from GM" }
    StoreScalar "store_scalar" View "" { format: "$v , $v [ $v ] $dict? : $t , $t", syntax: Syntax::Generic, pipe: Pipe::S, doc: "store one scalar to GM" }

    // ---- PTOAS: tile allocation and tile views ----
    AllocTile "alloc_tile" Alloc "" { syntax: Syntax::AllocTile, pipe: Pipe::None, doc: "allocate a tile buffer (Level-3: at a given address)" }
    BindTile "bind_tile" Alloc "" { format: "$v opt( , $v , $v ) $dict? : $t -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "bind a memref to tile metadata (lowered form)" }
    Subset "subset" Alloc "" { format: "$v [ $v* ] sizes [ $int* ] $dict? : $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "a sub-tile of a tile buffer" }
    SetValidShape "set_validshape" Alloc "" { format: "$v , $v , $v $dict? : $t", syntax: Syntax::Generic, pipe: Pipe::None, doc: "set the dynamic valid shape of a tile" }
    Bitcast "bitcast" Alloc "" { syntax: Syntax::Cast, pipe: Pipe::None, doc: "reinterpret a tile's element type" }
    PointerCast "pointer_cast" Alloc "" { format: "( $v* ) opt( $v , $v ) $dict? : $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "a buffer at a planned address (lowered form)" }
    DeclareTile "declare_tile" Alloc "" { format: "$dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "declare a tile without storage" }
    DeclareTileMemref "declare_tile_memref" Alloc "" { format: "$dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "declare a memref-backed tile" }
    TPack "tpack" Move UN { cpp: "TPACK($dst, $src)", doc: "pack a tile (A5; PTOAS `PTOTPackToTPACK`, PTOToEmitC.cpp:3929-3944: TPACK(dst, src))" }

    // ---- PTOAS: element access / debug ----
    TSetVal "tsetval" ElementAccess "dst:tile, index:scalar@index, value:scalar@numeric -> | index:scalar@index, value:scalar@numeric -> dst:tile" { ods: "dst index value", cpp: "rule:element", effects: "memory", pipe: Pipe::S, doc: "write one element (the second form is PTOAS's: `ins(%offset, %val) outs(%dst)`)" }
    TGetVal "tgetval" ElementAccess "src:tile, index:scalar@index -> value:scalar" { cpp: "rule:element", effects: "memory", pipe: Pipe::S, doc: "read one element" }
    Print "print" ElementAccess "" { format: "ins ( $str , $v : $t ) $dict?", syntax: Syntax::Generic, pipe: Pipe::S, doc: "print scalars (debug)" }
    Trap "trap" ElementAccess "" { format: "$dict?", syntax: Syntax::Generic, pipe: Pipe::S, doc: "abort the kernel" }

    // ---- PTOAS: intra-core and inter-core sync ----
    RecordEvent "record_event" Sync "" { effects: "orders", format: "[ $#pipe_event_type|sync_op_type , $#pipe_event_type|sync_op_type , $<event> ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "record an event between two op kinds" }
    WaitEvent "wait_event" Sync "" { effects: "orders", format: "[ $#pipe_event_type|sync_op_type , $#pipe_event_type|sync_op_type , $<event> ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "wait for an event between two op kinds" }
    BarrierSync "barrier_sync" Sync "" { effects: "orders", format: "[ $<sync_op_type> ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "barrier on an op kind" }
    SetFlag "set_flag" Sync "" { effects: "orders", format: "[ $<pipe> , $<pipe> , $<event> ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "set_flag(src pipe, dst pipe, event)" }
    WaitFlag "wait_flag" Sync "" { effects: "orders", format: "[ $<pipe> , $<pipe> , $<event> ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "wait_flag(src pipe, dst pipe, event)" }
    SetFlagDyn "set_flag_dyn" Sync "" { effects: "orders", format: "[ $<pipe> , $<pipe> , $v ] $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "set_flag with a dynamic event id" }
    WaitFlagDyn "wait_flag_dyn" Sync "" { effects: "orders", format: "[ $<pipe> , $<pipe> , $v ] $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "wait_flag with a dynamic event id" }
    Barrier "barrier" Sync "" { effects: "orders", format: "$<pipe> $dict?", syntax: Syntax::AngleArg, pipe: Pipe::None, doc: "pipe barrier" }
    DeclareEventIdArray "declare_eventid_array" Sync "" { format: "$dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "declare dynamic event ids" }
    EventIdArrayGet "eventid_array_get" Sync "" { format: "$v [ $v ] $dict? : $t $r:index", syntax: Syntax::Generic, pipe: Pipe::None, doc: "read a dynamic event id" }
    EventIdArraySet "eventid_array_set" Sync "" { format: "$v [ $v ] , $v $dict? : $t", syntax: Syntax::Generic, pipe: Pipe::None, doc: "write a dynamic event id" }
    GetBuf "get_buf" Sync "" { effects: "orders", format: "[ $#pipe_event_type|sync_op_type , $int ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "acquire a buffer id (A5)" }
    RlsBuf "rls_buf" Sync "" { effects: "orders", format: "[ $#pipe_event_type|sync_op_type , $int ] $dict?", syntax: Syntax::BracketArgs, pipe: Pipe::None, doc: "release a buffer id (A5)" }
    SyncSet "sync.set" Sync "" { format: "$<pipe> , $v|int $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "inter-core set" }
    SyncWait "sync.wait" Sync "" { format: "$<pipe> , $v|int $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "inter-core wait" }
    SetFfts "set_ffts" Sync "" { format: "$v $dict? : $t", syntax: Syntax::Generic, pipe: Pipe::None, doc: "set the FFTS base address" }

    // ---- PTOAS: runtime queries ----
    GetBlockIdx "get_block_idx" Query "" { syntax: Syntax::Query, pipe: Pipe::None, doc: "index of this block (core)" }
    GetSubblockIdx "get_subblock_idx" Query "" { syntax: Syntax::Query, pipe: Pipe::None, doc: "index of this sub-block" }
    GetBlockNum "get_block_num" Query "" { syntax: Syntax::Query, pipe: Pipe::None, doc: "number of blocks" }
    GetSubblockNum "get_subblock_num" Query "" { syntax: Syntax::Query, pipe: Pipe::None, doc: "number of sub-blocks" }

    // ---- PTOAS: sections ----
    SectionCube "section.cube" Section "" { format: "$region $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "code that runs on the cube core" }
    SectionVector "section.vector" Section "" { format: "$region $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "code that runs on the vector core" }

    // ---- PTOAS: TPUSH/TPOP pipes ----
    AicInitializePipe "aic_initialize_pipe" Pipe "" { format: "${dir_mask,slot_size,nosplit?} ( opt( gm_slot_buffer = $v : $t , ) c2v_consumer_buf = $v : $t , v2c_consumer_buf = $v : $t ) $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "cube side of a cube<->vector pipe" }
    AivInitializePipe "aiv_initialize_pipe" Pipe "" { format: "${dir_mask,slot_size,nosplit?} ( opt( gm_slot_buffer = $v : $t , ) c2v_consumer_buf = $v : $t , v2c_consumer_buf = $v : $t ) $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "vector side of a cube<->vector pipe" }
    TPushToAiv "tpush_to_aiv" Pipe "" { pipes: PUSH_PIPES, effects: "push", format: "( $v : $t ) ${split} $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "push a tile to the vector core" }
    TPushToAic "tpush_to_aic" Pipe "" { pipes: PUSH_PIPES, effects: "push", format: "( $v : $t ) ${split} $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "push a tile to the cube core" }
    TPopFromAic "tpop_from_aic" Pipe "" { pipes: POP_PIPES, effects: "pop", format: "opt( ( $v , $v ) ) ${split} $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "pop a tile from the cube core" }
    TPopFromAiv "tpop_from_aiv" Pipe "" { pipes: POP_PIPES, effects: "pop", format: "opt( ( $v , $v ) ) ${split} $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "pop a tile from the vector core" }
    TFreeFromAic "tfree_from_aic" Pipe "" { format: "${split} $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "free a popped slot (cube producer)" }
    TFreeFromAiv "tfree_from_aiv" Pipe "" { format: "${split} $dict?", syntax: Syntax::Generic, pipe: Pipe::None, doc: "free a popped slot (vector producer)" }
    ReserveBuffer "reserve_buffer" Pipe "" { format: "${name,size,location=<address_space>,auto,base?} $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "reserve a named local buffer" }
    ImportReservedBuffer "import_reserved_buffer" Pipe "" { format: "${name,peer_func} $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "import a peer's reserved buffer" }
    InitializeL2g2lPipe "initialize_l2g2l_pipe" Pipe "" { format: "${dir_mask,slot_size,slot_num,local_slot_num?,flag_base?,nosplit?} ( $v : $t , $v : $t opt( , $v : $t ) ) $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "pipe through GM (internal)" }
    InitializeL2lPipe "initialize_l2l_pipe" Pipe "" { format: "${dir_mask,slot_size,slot_num,flag_base?,nosplit?} ( $v : $t opt( , $v : $t ) ) $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "local pipe (internal)" }

    // ---- PTOAS: async DMA ----
    BuildAsyncSession "build_async_session" AsyncDma "" { format: "( $v , $v : $t , $t ) $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "create an async DMA session" }
    TPutAsync "tput_async" AsyncDma ASYNC_COPY { aliases: &["comm.tput_async"], syntax: Syntax::Paren, attrs: "engine:dma_engine?", same: S_ASYNC_COPY, pipe: Pipe::None, page: "comm/TPUT_ASYNC", doc: "start an async local GM -> remote GM copy; returns an async event" }
    TGetAsync "tget_async" AsyncDma ASYNC_COPY { aliases: &["comm.tget_async"], syntax: Syntax::Paren, attrs: "engine:dma_engine?", same: S_ASYNC_COPY, pipe: Pipe::None, page: "comm/TGET_ASYNC", doc: "start an async remote GM -> local GM copy; returns an async event" }
    WaitAsyncEvent "wait_async_event" AsyncDma "" { format: "( $v , $v : $t , $t ) $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "wait for an async event" }
    TestAsyncEvent "test_async_event" AsyncDma "" { format: "( $v , $v : $t , $t ) $dict? -> $r", syntax: Syntax::Generic, pipe: Pipe::None, doc: "test an async event" }

    // ---- MLIR arith ----
    ArithConstant "constant" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithConstant, pipe: Pipe::S, doc: "a constant" }
    ArithAddi "addi" Arith "" { cpp: "+", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "integer add" }
    ArithSubi "subi" Arith "" { cpp: "-", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "integer subtract" }
    ArithMuli "muli" Arith "" { cpp: "*", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "integer multiply" }
    ArithDivsi "divsi" Arith "" { cpp: "/", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed integer divide" }
    ArithDivui "divui" Arith "" { cpp: "u/", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "unsigned integer divide" }
    ArithRemsi "remsi" Arith "" { cpp: "%", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed remainder" }
    ArithRemui "remui" Arith "" { cpp: "u%", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "unsigned remainder" }
    ArithCeildivsi "ceildivsi" Arith "" { cpp: "ceildiv", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed ceiling divide" }
    ArithCeildivui "ceildivui" Arith "" { cpp: "uceildiv", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "unsigned ceiling divide" }
    ArithFloordivsi "floordivsi" Arith "" { cpp: "floordiv", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed floor divide" }
    ArithAndi "andi" Arith "" { cpp: "&", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "bitwise and" }
    ArithOri "ori" Arith "" { cpp: "|", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "bitwise or" }
    ArithXori "xori" Arith "" { cpp: "^", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "bitwise xor" }
    ArithShli "shli" Arith "" { cpp: "<<", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "shift left" }
    ArithShrsi "shrsi" Arith "" { cpp: ">>", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "arithmetic shift right" }
    ArithShrui "shrui" Arith "" { cpp: "u>>", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "logical shift right" }
    ArithMaxsi "maxsi" Arith "" { cpp: "max", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed max" }
    ArithMinsi "minsi" Arith "" { cpp: "min", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "signed min" }
    ArithMaxui "maxui" Arith "" { cpp: "umax", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "unsigned max" }
    ArithMinui "minui" Arith "" { cpp: "umin", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "unsigned min" }
    ArithAddf "addf" Arith "" { cpp: "+", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float add" }
    ArithSubf "subf" Arith "" { cpp: "-", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float subtract" }
    ArithMulf "mulf" Arith "" { cpp: "*", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float multiply" }
    ArithDivf "divf" Arith "" { cpp: "/", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float divide" }
    ArithRemf "remf" Arith "" { cpp: "fmod", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float remainder" }
    ArithMaximumf "maximumf" Arith "" { cpp: "fmax", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float max (NaN-propagating)" }
    ArithMinimumf "minimumf" Arith "" { cpp: "fmin", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float min (NaN-propagating)" }
    ArithMaxnumf "maxnumf" Arith "" { cpp: "fmax", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float max (NaN-ignoring)" }
    ArithMinnumf "minnumf" Arith "" { cpp: "fmin", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float min (NaN-ignoring)" }
    ArithNegf "negf" Arith "" { cpp: "neg", dialect: Dialect::Arith, syntax: Syntax::ArithBinary, pipe: Pipe::S, doc: "float negate" }
    ArithCmpi "cmpi" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCmp, pipe: Pipe::S, doc: "integer compare" }
    ArithCmpf "cmpf" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCmp, pipe: Pipe::S, doc: "float compare" }
    ArithSelect "select" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithSelect, pipe: Pipe::S, doc: "c ? a : b" }
    ArithIndexCast "index_cast" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "index <-> integer" }
    ArithIndexCastui "index_castui" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "index <-> unsigned integer" }
    ArithExtsi "extsi" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "sign-extend" }
    ArithExtui "extui" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "zero-extend" }
    ArithTrunci "trunci" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "integer truncate" }
    ArithExtf "extf" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "float extend" }
    ArithTruncf "truncf" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "float truncate" }
    ArithSitofp "sitofp" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "signed int to float" }
    ArithUitofp "uitofp" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "unsigned int to float" }
    ArithFptosi "fptosi" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "float to signed int" }
    ArithFptoui "fptoui" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "float to unsigned int" }
    ArithBitcast "bitcast" Arith "" { dialect: Dialect::Arith, syntax: Syntax::ArithCast, pipe: Pipe::S, doc: "bit reinterpretation" }

    // ---- MLIR scf / func / builtin / memref ----
    ScfFor "for" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::ScfFor, pipe: Pipe::None, doc: "counted loop with loop-carried values" }
    ScfIf "if" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::ScfIf, pipe: Pipe::None, doc: "conditional with optional results" }
    ScfWhile "while" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::ScfWhile, pipe: Pipe::None, doc: "while loop (before / after regions)" }
    ScfCondition "condition" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::ScfCondition, pipe: Pipe::None, doc: "scf.while continuation test" }
    ScfYield "yield" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::Terminator, pipe: Pipe::None, doc: "region terminator with values" }
    ScfExecuteRegion "execute_region" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::Generic, pipe: Pipe::None, doc: "inline region" }
    ScfIndexSwitch "index_switch" ControlFlow "" { dialect: Dialect::Scf, syntax: Syntax::Generic, pipe: Pipe::None, doc: "switch on an index" }
    FuncFunc "func" Func "" { dialect: Dialect::Func, syntax: Syntax::FuncFunc, pipe: Pipe::None, doc: "a function (kernel)" }
    FuncReturn "return" Func "" { dialect: Dialect::Func, syntax: Syntax::Terminator, pipe: Pipe::None, doc: "function return" }
    FuncCall "call" Func "" { dialect: Dialect::Func, syntax: Syntax::FuncCall, pipe: Pipe::None, doc: "call a function" }
    Module "module" Builtin "" { dialect: Dialect::Builtin, syntax: Syntax::Module, pipe: Pipe::None, doc: "top-level module" }
    MemrefDealloc "dealloc" Builtin "" { format: "$v $dict? : $t", dialect: Dialect::Memref, syntax: Syntax::Generic, pipe: Pipe::None, doc: "end of a memref.alloc's lifetime (no instruction: ptoas drops it)" }
    MemrefAlloc "alloc" Builtin "" { dialect: Dialect::Memref, syntax: Syntax::Generic, pipe: Pipe::None, doc: "memref allocation (PTOAS lowered form)" }
    MemrefReinterpretCast "reinterpret_cast" View "src:view, dims:scalar* -> result:view" { same: "dtype(src,result)", dialect: Dialect::Memref, syntax: Syntax::Generic, format: "$v to offset : [ $v|int* ] , sizes : [ $v|int* ] , strides : [ $v|int* ] $dict? : $t to $r", pipe: Pipe::None, doc: "a GM memref with another offset, shape and strides over the same buffer (MLIR's memref.reinterpret_cast, as PTOAS's frontends write it)" }
}
