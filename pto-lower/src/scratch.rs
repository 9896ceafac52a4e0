//! Pass `insert-scratch`: give every A2A3 op that needs a scratch (`tmp`) tile one of the size
//! the implementation really uses, and check the ones the program already supplies.
//!
//! * **A2A3.** For each tile op whose op-table scratch rule is `Required` or `Optional` on
//!   A2A3, [`requirement`] computes what the pto-isa A2A3 implementation touches (one helper
//!   per operation family; formulas and sources in `docs/scratch.md`). When the op has no
//!   `tmp` operand and the implementation uses one on this path, a `pto.alloc_tile` of the
//!   required shape is inserted right before the op and passed as `tmp`. When the program
//!   supplies `tmp` and it is smaller than required, `LEGAL_TMP_TOO_SMALL` names the
//!   required and the given size. Where the pto-isa docs and the implementation disagree
//!   (TCOLARGMAX, TROWSUM's 256-byte row rule...), the implementation wins.
//! * **A5.** Scratch is unused: user `tmp` operands are kept where the A5 form accepts them
//!   (`Ignored`); the forms that must omit it (`trowexpand*`) were already rejected by
//!   `legalize` with `LEGAL_TMP_FORBIDDEN`. Only the 16 ops whose PTOAS DPS form requires `tmp`
//!   (op table `ptoas_tmp`) get one when a Level-1 program left it out, so that the lowered
//!   text reads back (the A2A3 size, or shaped like the op's source).
//!
//! Dynamic valid shapes are sized by their static capacity (the largest they can be at run
//! time), so an inserted tile is always large enough.

use crate::binding::{Bound, bind};
use crate::pipeline::Changed;
use crate::target::{Target, TargetId};
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::{Module, OpData, OpId, Payload, ValueId};
use pto_ir::ops::is_mlir_memref as is_memref;
use pto_ir::ops::{Opcode, TmpRule};
use pto_ir::types::{Dim, ElemType, TileDesc, Type};
use std::collections::{HashMap, HashSet};

/// Bytes of one vector repeat (8 datablocks).
const REPEAT_BYTES: u32 = 256;
/// Bytes of one datablock.
const BLOCK_BYTES: u32 = 32;

/// What one op needs of its scratch tile on A2A3.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// Rows the implementation walks (`tmp.Rows` must be at least this).
    pub rows: u32,
    /// Bytes of every such row the implementation touches (`tmp.Cols × sizeof` must be at
    /// least this).
    pub row_bytes: u32,
    /// Bytes the implementation touches treating `tmp` as flat memory (0 when it walks rows).
    pub flat_bytes: u64,
    /// Bytes used beyond `tmp.Rows × tmp.Cols` (counted in bytes, whatever the dtype) — only
    /// the TGATHER compare form lays regions out this way; 0 elsewhere.
    pub extra_bytes: u64,
    /// The tile `insert-scratch` creates when the program has none.
    pub tile: TileDesc,
    /// The formula with its inputs, for diagnostics and docs (`2·gap, gap = 64`).
    pub why: String,
}

impl Requirement {
    /// A requirement of `rows` rows of `elems` elements of `dtype` (rounded up to whole
    /// 32-byte blocks for the inserted tile, as row-major tiles must be).
    fn rows_of(dtype: ElemType, rows: u32, elems: u32, why: String) -> Requirement {
        let es = dtype.size_bytes().max(1);
        let row_bytes = elems.max(1) * es;
        let cols = round_up(row_bytes, BLOCK_BYTES) / es;
        Requirement { rows: rows.max(1), row_bytes, flat_bytes: 0, extra_bytes: 0, tile: TileDesc::vec(dtype, rows.max(1), cols), why }
    }

    /// A requirement expressed in bytes per row, for a tile of `dtype`.
    fn rows_of_bytes(dtype: ElemType, rows: u32, bytes: u32, why: String) -> Requirement {
        let es = dtype.size_bytes().max(1);
        let mut r = Requirement::rows_of(dtype, rows, bytes.div_ceil(es), why);
        r.row_bytes = bytes.max(1);
        r
    }

    /// A requirement of `bytes` of flat memory, inserted as one row of `dtype`.
    fn flat(dtype: ElemType, bytes: u32, why: String) -> Requirement {
        let mut r = Requirement::rows_of_bytes(dtype, 1, bytes, why);
        r.row_bytes = 1;
        r.flat_bytes = bytes as u64;
        r
    }

    /// A requirement shaped like `like` (same capacity and valid shape), in `dtype`.
    fn shaped_like(like: &TileDesc, dtype: ElemType, why: String) -> Requirement {
        let es = dtype.size_bytes().max(1);
        let cols = round_up(like.cols * es, BLOCK_BYTES) / es;
        let mut tile = TileDesc::vec(dtype, like.rows, cols);
        tile.valid_rows = like.valid_rows;
        tile.valid_cols = like.valid_cols;
        Requirement { rows: valid_rows(like), row_bytes: valid_cols(like) * es, flat_bytes: 0, extra_bytes: 0, tile, why }
    }

    /// Whether a given scratch tile satisfies the requirement.
    pub fn satisfied_by(&self, tmp: &TileDesc) -> bool {
        let row_bytes = tmp.cols as u64 * tmp.dtype.size_bytes() as u64;
        tmp.rows >= self.rows
            && row_bytes >= self.row_bytes as u64
            && tmp.size_bytes() >= self.flat_bytes
            && tmp.size_bytes() >= tmp.rows as u64 * tmp.cols as u64 + self.extra_bytes
    }

    /// `≥ R rows × B bytes` in words, with the element count for the inserted dtype.
    pub fn describe(&self) -> String {
        let es = self.tile.dtype.size_bytes().max(1);
        if self.flat_bytes > 0 {
            return format!("{} B in total", self.flat_bytes);
        }
        let mut s = if self.rows == 1 {
            format!("{} {} elements ({} B)", self.row_bytes.div_ceil(es), self.tile.dtype.name(), self.row_bytes)
        } else {
            format!(
                "{} rows of {} {} elements ({} B per row)",
                self.rows,
                self.row_bytes.div_ceil(es),
                self.tile.dtype.name(),
                self.row_bytes
            )
        };
        if self.extra_bytes > 0 {
            s.push_str(&format!(" plus {} B after Rows×Cols bytes", self.extra_bytes));
        }
        s
    }
}

fn round_up(v: u32, to: u32) -> u32 {
    v.div_ceil(to) * to
}

/// Valid rows, or the capacity when dynamic.
fn valid_rows(t: &TileDesc) -> u32 {
    match t.valid_rows {
        Dim::Static(n) => n,
        Dim::Dynamic => t.rows,
    }
}

/// Valid columns, or the capacity when dynamic.
fn valid_cols(t: &TileDesc) -> u32 {
    match t.valid_cols {
        Dim::Static(n) => n,
        Dim::Dynamic => t.cols,
    }
}

/// Elements per repeat / per block of a dtype.
fn epr_epb(dtype: ElemType) -> (u32, u32) {
    let es = dtype.size_bytes().max(1);
    (REPEAT_BYTES / es, BLOCK_BYTES / es)
}

/// The bound operands of one op, by slot name.
struct Operands<'a> {
    m: &'a Module,
    op: OpId,
    bound: &'a [Bound],
}

impl Operands<'_> {
    fn tile(&self, slot: &str) -> Option<&TileDesc> {
        let b = self.bound.iter().find(|b| b.slot == slot)?;
        self.m.value_type(b.value).tile()
    }
    fn count(&self, prefix: &str) -> usize {
        self.bound.iter().filter(|b| b.slot.starts_with(prefix)).count()
    }
    fn attr_bool(&self, name: &str) -> bool {
        matches!(self.m.op(self.op).attr(name), Some(Attr::Bool(true)))
    }
    fn attr_enum(&self, name: &str, kind: &str) -> Option<&'static str> {
        self.m.op(self.op).attr(name).and_then(|a| a.as_enum(kind))
    }
}

/// What the A2A3 implementation of this op needs in `tmp`, or `None` when this path uses no
/// scratch (or `pto` has no fact about the op's scratch use).
pub fn requirement(m: &Module, op: OpId) -> Option<Requirement> {
    let (_, bound) = bind(m, op)?;
    let o = Operands { m, op, bound: &bound };
    use Opcode as O;
    match m.op(op).opcode {
        O::TColArgMax | O::TColArgMin => col_arg_reduce(&o),
        O::TRowSum | O::TRowMax | O::TRowMin | O::TRowProd => row_reduce(&o, m.op(op).opcode == O::TRowSum),
        O::TRowArgMax | O::TRowArgMin => row_arg_reduce(&o),
        O::TColSum => col_sum_binary(&o),
        O::TSel | O::TSels => select_mask_register(&o),
        O::TGather => gather(&o),
        O::TSort32 => sort32_tail(&o),
        O::TMrgSort => merge_sort_lists(&o),
        O::TCvt => convert_saturation_off(&o),
        O::TXor | O::TXors | O::TTrans => dst_shaped(&o, false),
        O::TPow | O::TPows => dst_shaped(&o, true),
        O::TQuant => quant_int8_staging(&o),
        O::TRem | O::TRems => remainder(&o),
        O::TPrelu => prelu_mask(&o),
        O::TRowExpandSub | O::TRowExpandMul | O::TRowExpandDiv | O::TRowExpandMax | O::TRowExpandMin | O::TRowExpandExpdif => {
            row_expand_broadcast(&o)
        }
        _ => None,
    }
}

/// TCOLARGMAX/MIN (a2a3/TColReduceIdx.hpp): row counter in `[0, gap)`, running best values in
/// `[gap, 2·gap)`, and for 16-bit sources in pure-index mode the running index in
/// `[2·gap, 3·gap)`.
fn col_arg_reduce(o: &Operands) -> Option<Requirement> {
    let src = o.tile("src")?;
    let (epr, epb) = epr_epb(src.dtype);
    let vc = valid_cols(src);
    let gap = if vc / epr > 0 { epr } else { vc.div_ceil(epb) * epb };
    let pure_index = o.count("val") == 0;
    let (k, which) = if src.dtype.size_bytes() == 2 && pure_index { (3, "3·gap (16-bit, index only)") } else { (2, "2·gap") };
    // `tmp` is one flat buffer (`tmp + k * tmpGapElems`, a2a3/TColReduceIdx.hpp:129-137): any
    // shape holding the elements will do, the ISA page's src-shaped tile among them.
    let bytes = k * gap * src.dtype.size_bytes();
    Some(Requirement::flat(src.dtype, bytes, format!("{which} elements, gap = {gap} (valid cols {vc}, {epr} per repeat)")))
}

/// TROWSUM/MAX/MIN/PROD (a2a3/TRowReduceOps.hpp): integers reduce one 32-byte block per row
/// in `tmp`; floats wider than one repeat fold repeats into `tmp` rows of at least one
/// repeat (256 B — a narrower tmp makes the implementation return without computing).
fn row_reduce(o: &Operands, is_sum: bool) -> Option<Requirement> {
    let src = o.tile("src")?;
    let (epr, _) = epr_epb(src.dtype);
    let (vr, vc) = (valid_rows(src), valid_cols(src));
    if !src.dtype.is_float() {
        return Some(Requirement::flat(src.dtype, BLOCK_BYTES, "one 32-byte block (integer path)".into()));
    }
    let dst_column = o.tile("dst").is_some_and(|d| d.blayout == pto_ir::types::BLayout::ColMajor && d.cols == 1);
    let fully_static = (src.valid_rows, src.valid_cols) == (Dim::Static(src.rows), Dim::Static(src.cols));
    if src.dtype == ElemType::F32
        && dst_column
        && fully_static
        && matches!((src.rows, src.cols), (64, 128) | (32, 256) | (16, 512) | (8, 1024))
    {
        return Some(Requirement::flat(
            src.dtype,
            4096,
            format!(
                "4 KiB: the {}x{} f32 fast path (vcg{} into [rows, cols/8], halved to [rows, 8])",
                src.rows,
                src.cols,
                if is_sum { "add" } else { "max/min" }
            ),
        ));
    }
    if vc <= epr {
        return Some(Requirement::flat(
            src.dtype,
            BLOCK_BYTES,
            format!("unused (valid cols {vc} ≤ {epr}: one vcadd/vcmax per row); one block for the C++ signature"),
        ));
    }
    let reps = vc / epr;
    let (elems, why) = if is_sum {
        let n = (reps / 2).max(1) * epr;
        (n, format!("{vr} rows × max(1, ⌊{reps}/2⌋)·{epr} elements, at least 256 B per row"))
    } else {
        (epr, format!("{vr} rows × one repeat ({epr} elements, 256 B)"))
    };
    Some(Requirement::rows_of(src.dtype, vr, elems, why))
}

/// TROWARGMAX/MIN (docs/isa/TROWARGMAX.md): no scratch up to one repeat (index only), two
/// elements per row with values, the region formulas beyond.
fn row_arg_reduce(o: &Operands) -> Option<Requirement> {
    let src = o.tile("src")?;
    let (epr, epb) = epr_epb(src.dtype);
    let vc = valid_cols(src);
    let rows = src.rows;
    let with_values = o.count("val") > 0;
    let ceil_to = |n: u32| n.div_ceil(epb) * epb;
    if vc <= epr {
        return with_values.then(|| Requirement::rows_of(src.dtype, rows, 2, "2 elements per row (values and index)".into()));
    }
    let r1 = vc.div_ceil(epr);
    if vc <= epr * epr {
        let stride = ceil_to(2 * r1) + ceil_to(r1);
        return Some(Requirement::rows_of(src.dtype, rows, stride, format!("⌈2·R1⌉ + ⌈R1⌉ blocks, R1 = {r1}")));
    }
    let r2 = r1.div_ceil(epr);
    let stride = (ceil_to(2 * r1)).max(ceil_to(r1) + ceil_to(2 * r2)) + 2;
    Some(Requirement::rows_of(src.dtype, rows, stride, format!("max(⌈2·R1⌉, ⌈R1⌉ + ⌈2·R2⌉) + 2, R1 = {r1}, R2 = {r2}")))
}

/// TCOLSUM with `isBinary = true` (a2a3/TColSum.hpp `BinarySum`): pairwise row sums in ⌊R/2⌋
/// rows (an odd last row is added into row 0, not given a row of its own — the pto-isa notes'
/// ⌈R/2⌉ is one row more than the implementation touches).
fn col_sum_binary(o: &Operands) -> Option<Requirement> {
    if !o.attr_bool("isBinary") {
        return None;
    }
    let src = o.tile("src")?;
    let (vr, vc) = (valid_rows(src), valid_cols(src));
    Some(Requirement::rows_of(src.dtype, (vr / 2).max(1), vc, format!("⌊{vr}/2⌋ rows × {vc} valid columns (binary tree)")))
}

/// TSEL/TSELS (a2a3/TSel.hpp, TSels.hpp): the compare-mask address (or the scalar) is written
/// into `tmp` and loaded with `set_cmpmask` — 128 bits for 16-bit, 64 for 32-bit data.
fn select_mask_register(_o: &Operands) -> Option<Requirement> {
    Some(Requirement::flat(ElemType::U32, BLOCK_BYTES, "one 32-byte block for set_cmpmask".into()))
}

/// TGATHER (a2a3/TGather.hpp): the index form needs an index-shaped int32 tile for 16-bit data
/// (byte offsets); the compare form lays out compare bits (`tmp.Rows × tmp.Cols` bytes), the
/// index list and the converted `k` values after each other.
fn gather(o: &Operands) -> Option<Requirement> {
    if let Some(k) = o.tile("k") {
        let src = o.tile("src")?;
        let dst = o.tile("dst")?;
        let (epr, _) = epr_epb(src.dtype);
        let bits_row = valid_cols(src).div_ceil(epr) * epr / 8;
        let extra = src.rows as u64 * src.cols as u64 * dst.dtype.size_bytes() as u64 + src.rows as u64 * src.dtype.size_bytes() as u64;
        let mut r = Requirement::rows_of_bytes(
            ElemType::U8,
            valid_rows(src),
            bits_row,
            format!("compare bits, then {extra} B of indices and converted k ({} rows)", valid_rows(k)),
        );
        r.extra_bytes = extra;
        // An inserted tile would need `Rows×Cols + extra` bytes in total: grow the rows.
        let per_row = r.tile.cols as u64;
        let total = per_row * r.tile.rows as u64 + extra;
        r.tile.rows = total.div_ceil(per_row) as u32;
        r.tile.valid_rows = Dim::Static(r.tile.rows);
        return Some(r);
    }
    let src = o.tile("src")?;
    let indices = o.tile("indices")?;
    if src.dtype.size_bytes() != 2 {
        return None;
    }
    Some(Requirement::shaped_like(indices, indices.dtype, "index-shaped byte offsets (16-bit data)".into()))
}

/// TSORT32 with a tail (a2a3/TSort32.hpp): the last partial 32-element block is padded in
/// `tmp`, ⌈C/32⌉·32 elements while C ≤ 8160, one block of 32 beyond.
fn sort32_tail(o: &Operands) -> Option<Requirement> {
    let src = o.tile("src")?;
    let vc = valid_cols(src);
    if vc.is_multiple_of(32) {
        return None;
    }
    let elems = if vc <= 8160 { vc.div_ceil(32) * 32 } else { 32 };
    Some(Requirement::rows_of(src.dtype, 1, elems, format!("tail padded to ⌈{vc}/32⌉·32 elements")))
}

/// TMRGSORT multi-list (a2a3/TMrgSort.hpp): the merged list goes to `tmp` first, so
/// `tmp.Cols ≥ Σ src.Cols`. The op table reads the last of 3 to 5 tiles as `tmp` (PTOAS's
/// operand order), so only the 2-list form has none; the tile inserted for it is shaped like
/// `dst` when that holds the merge (PTOAS requires dst and tmp shapes to match).
fn merge_sort_lists(o: &Operands) -> Option<Requirement> {
    let lists: Vec<&TileDesc> = ["src0", "src1", "src2", "src3"].iter().filter_map(|s| o.tile(s)).collect();
    if lists.len() < 2 {
        return None;
    }
    let dst = o.tile("dst")?;
    let total: u32 = lists.iter().map(|t| t.cols).sum();
    let mut r = Requirement::rows_of(dst.dtype, 1, total, format!("Σ src Cols = {total}"));
    if dst.cols > r.tile.cols {
        r.tile = Requirement::rows_of(dst.dtype, 1, dst.cols, String::new()).tile;
    }
    Some(r)
}

/// TCVT with `sat_mode = OFF` (a2a3/TCvt.hpp): the narrowing conversions f32→i16, f16→i16 and
/// f16→i8 go through `tmp` (byte formulas of pto-isa notes §4.7).
fn convert_saturation_off(o: &Operands) -> Option<Requirement> {
    if o.attr_enum("sat_mode", "saturation_mode") != Some("OFF") {
        return None;
    }
    let (src, dst) = (o.tile("src")?, o.tile("dst")?);
    let (r, c) = (valid_rows(dst), valid_cols(dst));
    let h = c.min(64);
    let (bytes, why) = match (src.dtype, dst.dtype) {
        (ElemType::F32, ElemType::I16) => {
            let full = 4 * 64 * (c / 64).min(255);
            let tail = if c % 64 != 0 { 32 * ((r.min(255) - 1) * src.cols / 8 + (c % 64).div_ceil(8)) } else { 0 };
            (full.max(tail), format!("f32→i16: max(256·min(⌊{c}/64⌋, 255), tail {tail}) B"))
        }
        (ElemType::F16, ElemType::I16) => (32 * h.div_ceil(8), format!("f16→i16: 32·⌈{h}/8⌉ B")),
        (ElemType::F16, ElemType::I8) => {
            ((32 * h.div_ceil(8)).max(128 + 32 * h.div_ceil(16)), format!("f16→i8: max(32·⌈{h}/8⌉, 128 + 32·⌈{h}/16⌉) B"))
        }
        _ => return None,
    };
    Some(Requirement::flat(ElemType::U8, bytes, why))
}

/// TXOR/TXORS (`tmp = a | b` then masks), TTRANS (transposed through `tmp`), TPOW/TPOWS
/// (float results staged in `tmp`): a tile shaped like `dst`.
fn dst_shaped(o: &Operands, float_only: bool) -> Option<Requirement> {
    let dst = o.tile("dst")?;
    if float_only && !dst.dtype.is_float() {
        return None;
    }
    Some(Requirement::shaped_like(dst, dst.dtype, "shaped like dst".into()))
}

/// TQUANT INT8 (a2a3/TQuant.hpp): the f32 -> s32 -> f32 cast chain stages the whole source in
/// `tmp`, an f32 tile shaped like `src`. The MX form (no `scale` slot) has no A2A3
/// implementation (`legalize` rejects it).
fn quant_int8_staging(o: &Operands) -> Option<Requirement> {
    o.tile("scale")?;
    let src = o.tile("src")?;
    Some(Requirement::shaped_like(src, ElemType::F32, "f32 shaped like src (the s32 cast intermediate)".into()))
}

/// TREM/TREMS (a2a3/TRem.hpp, TRemS.hpp): per-row staging regions of `validCols` elements —
/// f32: one int32 region; f16: four f32 regions; i32: six f32 regions; i16: six f16 regions.
/// TREM on f32/i32 also keeps its compare mask after one dst row stride (`tmp + dstRowStride`,
/// a2a3/TRem.hpp:49, 106) and asserts `tmp.GetValidCol() >= Cols + 2·⌈Cols/64⌉`
/// (a2a3/TRem.hpp:195-197, TREM.md): the larger of the two.
fn remainder(o: &Operands) -> Option<Requirement> {
    let dst = o.tile("dst")?;
    let vc = valid_cols(dst);
    let (bytes_per_col, why) = match dst.dtype {
        ElemType::F32 => (4, "validCols int32"),
        ElemType::F16 => (16, "4·validCols f32"),
        ElemType::I32 => (24, "6·validCols f32"),
        ElemType::I16 => (12, "6·validCols f16"),
        _ => return None,
    };
    let staging = Requirement::rows_of_bytes(dst.dtype, 1, vc * bytes_per_col, format!("{why}, validCols = {vc}"));
    let is_trem = o.m.op(o.op).opcode == Opcode::TRem;
    let with_mask = dst.cols + 2 * dst.cols.div_ceil(64);
    if is_trem && matches!(dst.dtype, ElemType::F32 | ElemType::I32) && with_mask * 4 > staging.row_bytes {
        return Some(Requirement::rows_of(
            dst.dtype,
            1,
            with_mask,
            format!("Cols + 2·⌈Cols/64⌉ = {with_mask} elements: a dst row, then the compare mask (Cols = {})", dst.cols),
        ));
    }
    Some(staging)
}

/// TPRELU (a2a3/TPrelu.hpp): `tmp` is the u8 mask TCMPS writes, one row per dst row, full
/// repeats of bits, plus one row: TSEL's 32-byte select scratch is the row after the mask
/// (`TSUBVIEW(selTmp, tmp, dst.GetValidRow(), 0)`; `TPrelu.hpp:40-42` asserts tmp valid rows >
/// dst valid rows).
fn prelu_mask(o: &Operands) -> Option<Requirement> {
    let dst = o.tile("dst")?;
    let (epr, _) = epr_epb(dst.dtype);
    let (vr, vc) = (valid_rows(dst), valid_cols(dst));
    let bytes = (vc.div_ceil(epr) * epr / 8).max(BLOCK_BYTES);
    Some(Requirement::rows_of_bytes(
        ElemType::U8,
        vr + 1,
        bytes,
        format!("{vr} mask rows of ⌈{vc}/{epr}⌉·{epr} bits and a 32-byte select row"),
    ))
}

/// `trowexpand*` with a column-vector `src1` (a2a3/TRowExpandBinOp.hpp): `vbrcb` broadcasts
/// each row's scalar into one 32-byte block, ⌈R/8⌉ repeats of 256 B (30 repeats at most for
/// 256 rows and more). Without `tmp` the implementation uses a fixed 8 KiB at UB offset
/// 184 KiB, which nothing else knows about — so `pto` always gives it a tile.
fn row_expand_broadcast(o: &Operands) -> Option<Requirement> {
    let src1 = o.tile("src1")?;
    let dst = o.tile("dst")?;
    if src1.blayout == pto_ir::types::BLayout::RowMajor && src1.cols > 1 {
        return None;
    }
    let vr = valid_rows(dst);
    let repeats = if dst.rows >= 256 && vr >= 256 { 30 } else { vr.div_ceil(8) };
    let (_, epb) = epr_epb(dst.dtype);
    let mut r = Requirement::flat(dst.dtype, repeats * REPEAT_BYTES, format!("{repeats} vbrcb repeats × 256 B"));
    // One 32-byte block per broadcast row reads naturally in the printed IR.
    r.tile = TileDesc::vec(dst.dtype, 8 * repeats, epb);
    Some(r)
}

/// A5: the tile given to an op whose PTOAS DPS form requires `tmp` (the op table's
/// `ptoas_tmp`) when the program (Level 1) left it out, so that the printed Level-2/3 text is
/// one `pto` and `ptoas` read back. A5 ignores it: the A2A3 size where A2A3 has a rule for these
/// types, else a tile shaped like the op's first tile operand.
fn a5_ptoas_stand_ins(m: &Module) -> Vec<(OpId, Requirement)> {
    let mut out = Vec::new();
    for op in m.walk() {
        let data = m.op(op);
        if data.opcode.spec().ptoas_tmp.is_empty() || data.operands.iter().chain(&data.results).any(|&v| is_memref(m.value_type(v))) {
            continue;
        }
        let Some((_, bound)) = bind(m, op) else { continue };
        if bound.iter().any(|b| b.slot == "tmp") {
            continue;
        }
        if let Some(req) = ptoas_stand_in(m, op).and_then(|stand_in| requirement(m, op).or(Some(stand_in))) {
            out.push((op, req));
        }
    }
    out
}

/// A tile shaped like `op`'s first tile operand, for an op whose PTOAS DPS form requires `tmp`
/// (the op table's `ptoas_tmp`) on a path whose implementation uses none; `None` for other ops.
fn ptoas_stand_in(m: &Module, op: OpId) -> Option<Requirement> {
    let data = m.op(op);
    if data.opcode.spec().ptoas_tmp.is_empty() {
        return None;
    }
    // Only the forms with a `tmp` slot take one (`tgather`'s mask form has none).
    let form = pto_ir::ops::bind::match_form(m, op).ok()?;
    if !data.opcode.parsed().forms[form.form].ins.iter().any(|s| s.name == "tmp") {
        return None;
    }
    let t = data.ins().iter().find_map(|&v| m.value_type(v).tile().copied())?;
    Some(Requirement::shaped_like(&t, t.dtype, "unused on this path; PTOAS's DPS form requires a tmp".into()))
}

/// Runs the pass.
pub fn run(m: &mut Module, target: &Target, _notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    if target.id != TargetId::A2A3 {
        let inserts = a5_ptoas_stand_ins(m);
        if inserts.is_empty() {
            return Ok(Changed::No);
        }
        insert_allocs(m, inserts);
        return Ok(Changed::Yes);
    }
    let mut diags = Diagnostics::default();
    let mut inserts: Vec<(OpId, Requirement)> = Vec::new();
    for op in m.walk() {
        let rule = m.op(op).opcode.spec().tmp.a2a3;
        if !matches!(rule, TmpRule::Required | TmpRule::Optional) {
            continue;
        }
        let data = m.op(op);
        if data.operands.iter().chain(&data.results).any(|&v| is_memref(m.value_type(v))) {
            continue;
        }
        let Some((_, bound)) = bind(m, op) else { continue };
        let given = bound.iter().find(|b| b.slot == "tmp");
        let Some(req) = requirement(m, op) else {
            // No scratch on this path, but PTOAS's DPS form still wants one written.
            if let (None, Some(stand_in)) = (given, ptoas_stand_in(m, op)) {
                inserts.push((op, stand_in));
            }
            continue;
        };
        match given {
            Some(b) => check_given(m, op, b, &req, &mut diags),
            None => inserts.push((op, req)),
        }
    }
    if diags.has_errors() {
        return Err(diags);
    }
    if inserts.is_empty() {
        return Ok(Changed::No);
    }
    insert_allocs(m, inserts);
    Ok(Changed::Yes)
}

fn check_given(m: &Module, op: OpId, b: &Bound, req: &Requirement, diags: &mut Diagnostics) {
    let Some(tmp) = m.value_type(b.value).tile() else { return };
    if req.satisfied_by(tmp) {
        return;
    }
    let name = m.op(op).opcode.spec().full_name();
    let given = if req.flat_bytes > 0 {
        format!("{}x{}x{} ({} B)", tmp.rows, tmp.cols, tmp.dtype.name(), tmp.size_bytes())
    } else {
        format!("{}x{}x{} ({} B per row)", tmp.rows, tmp.cols, tmp.dtype.name(), tmp.cols * tmp.dtype.size_bytes())
    };
    diags.push(
        Diagnostic::error(
            DiagClass::LegalTmpTooSmall,
            m.op_span(op),
            format!("`{name}` {}: scratch tile too small for a2a3: needs {}, given {given}", b.position, req.describe()),
        )
        .with_op(name)
        .with_operand(b.position.to_string())
        .with_expected(req.describe(), given)
        .with_note(format!("required size: {} (the A2A3 implementation's use; see docs/scratch.md)", req.why)),
    );
}

/// Where a new `tmp` goes among `op`'s ins: after the operands the op's first form with a `tmp`
/// slot places before it (PTOAS's `tsels` writes `tmp` before the scalar), else last.
fn tmp_position(m: &Module, op: OpId) -> usize {
    let data = m.op(op);
    let end = data.num_ins as usize;
    let Some(form) = data.opcode.parsed().forms.iter().find(|f| f.ins.iter().any(|s| s.name == "tmp")) else { return end };
    let Some((_, bound)) = bind(m, op) else { return end };
    let before: Vec<&str> = form.ins.iter().take_while(|s| s.name != "tmp").map(|s| s.name.as_str()).collect();
    bound.iter().filter(|b| b.position.segment == "ins" && before.contains(&b.slot)).count()
}

/// Inserts `%tmpN = pto.alloc_tile : T` before each op and passes it as the op's `tmp`.
fn insert_allocs(m: &mut Module, inserts: Vec<(OpId, Requirement)>) {
    let level1 = m.values.iter().any(|v| matches!(m.types.get(v.ty), Type::Tile(_)));
    let mut used: HashSet<String> = m.values.iter().map(|v| v.name.clone()).collect();
    let mut counter = 0usize;
    let mut before: Vec<(OpId, OpId)> = Vec::with_capacity(inserts.len());
    for (op, req) in inserts {
        let ty = m.intern(if level1 { Type::Tile(req.tile) } else { Type::TileBuf(req.tile) });
        let name = loop {
            let candidate = format!("scratch{counter}");
            counter += 1;
            if used.insert(candidate.clone()) {
                break candidate;
            }
        };
        let span = m.op_span(op);
        let mut alloc = OpData::new(Opcode::AllocTile);
        alloc.payload = Payload::Segments(vec![0, 0, 0]);
        let alloc_op = m.add_op(alloc, span);
        let tmp: ValueId = m.add_result(alloc_op, ty, name, span);
        let at = tmp_position(m, op);
        let data = m.op_mut(op);
        data.operands.insert(at, tmp);
        data.num_ins += 1;
        before.push((op, alloc_op));
    }
    let mut allocs_before: HashMap<OpId, Vec<OpId>> = HashMap::with_capacity(before.len());
    for (op, alloc) in before {
        allocs_before.entry(op).or_default().push(alloc);
    }
    for block in &mut m.blocks {
        if !block.ops.iter().any(|o| allocs_before.contains_key(o)) {
            continue;
        }
        let mut out = Vec::with_capacity(block.ops.len() + allocs_before.len());
        for &o in &block.ops {
            if let Some(allocs) = allocs_before.get(&o) {
                out.extend(allocs);
            }
            out.push(o);
        }
        block.ops = out;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Module {
        let (m, _) = pto_asm::parse(text, pto_ir::FileId(0)).expect("parses");
        m
    }

    fn first_req(text: &str, opcode: Opcode) -> Option<Requirement> {
        let m = parse(text);
        let op = m.walk().into_iter().find(|&o| m.op(o).opcode == opcode).expect("op present");
        requirement(&m, op)
    }

    #[test]
    fn tcolargmax_doc_example_needs_128_floats() {
        let text = "%s = pto.alloc_tile : !pto.tile_buf<vec, 16x256xf32, valid=16x255>\n\
                    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x256xui32>\n\
                    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x32xf32>\n\
                    pto.tcolargmax ins(%s, %t : !pto.tile_buf<vec, 16x256xf32, valid=16x255>, !pto.tile_buf<vec, 1x32xf32>) outs(%d : !pto.tile_buf<vec, 1x256xui32>)\n";
        let r = first_req(text, Opcode::TColArgMax).expect("needs scratch");
        assert_eq!((r.rows, r.flat_bytes), (1, 512));
        assert_eq!((r.tile.rows, r.tile.cols, r.tile.dtype), (1, 128, ElemType::F32));
        let doc_tmp = TileDesc::vec(ElemType::F32, 1, 32);
        assert!(!r.satisfied_by(&doc_tmp));
        assert!(r.satisfied_by(&TileDesc::vec(ElemType::F32, 1, 128)));
        // One flat buffer: rows of 32 B do, as does a tmp shaped like src (the page's advice).
        assert!(r.satisfied_by(&TileDesc::vec(ElemType::F32, 16, 8)));
        assert!(r.satisfied_by(&TileDesc::vec(ElemType::F32, 16, 256)));
    }

    #[test]
    fn tcolargmax_16bit_index_only_needs_three_gaps() {
        let text = "%s = pto.alloc_tile : !pto.tile_buf<vec, 16x64xf16, valid=16x40>\n\
                    %d = pto.alloc_tile : !pto.tile_buf<vec, 1x64xi32>\n\
                    %t = pto.alloc_tile : !pto.tile_buf<vec, 1x16xf16>\n\
                    pto.tcolargmax ins(%s, %t : !pto.tile_buf<vec, 16x64xf16, valid=16x40>, !pto.tile_buf<vec, 1x16xf16>) outs(%d : !pto.tile_buf<vec, 1x64xi32>)\n";
        // 40 columns < 128 per repeat: gap = ⌈40/16⌉·16 = 48; 3·gap = 144 halves.
        let r = first_req(text, Opcode::TColArgMax).expect("needs scratch");
        assert_eq!(r.flat_bytes, 144 * 2);
    }

    #[test]
    fn trowsum_worked_example_and_narrow_rows() {
        let text = "%s = pto.alloc_tile : !pto.tile_buf<vec, 16x256xf32, valid=16x200>\n\
                    %d = pto.alloc_tile : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>\n\
                    %t = pto.alloc_tile : !pto.tile_buf<vec, 16x32xf32>\n\
                    pto.trowsum ins(%s, %t : !pto.tile_buf<vec, 16x256xf32, valid=16x200>, !pto.tile_buf<vec, 16x32xf32>) outs(%d : !pto.tile_buf<vec, 16x1xf32, blayout=col_major>)\n";
        let r = first_req(text, Opcode::TRowSum).expect("needs scratch");
        // 3 repeats per row: max(1, ⌊3/2⌋)·64 = 64 floats = 256 B, 16 rows.
        assert_eq!((r.rows, r.row_bytes), (16, 256));
        assert!(r.satisfied_by(&TileDesc::vec(ElemType::F32, 16, 128)));
        // 32 floats per row (128 B) is the case where hardware silently skips the op.
        assert!(!r.satisfied_by(&TileDesc::vec(ElemType::F32, 16, 32)));
        assert!(!r.satisfied_by(&TileDesc::vec(ElemType::F32, 8, 64)));
    }

    #[test]
    fn every_a2a3_required_scratch_op_has_a_sizing_rule() {
        // The sizing helpers are selected by opcode; a Required op without one would get no
        // tmp and fail at code generation. Checked against the names in `requirement`.
        let src = include_str!("scratch.rs");
        let body = &src[src.find("pub fn requirement").unwrap()..src.find("fn col_arg_reduce").unwrap()];
        for spec in pto_ir::ops::all() {
            if spec.tmp.a2a3 == TmpRule::Required {
                let variant = format!("{:?}", spec.opcode);
                assert!(body.contains(&format!("O::{variant}")), "{} has no A2A3 scratch sizing rule", spec.name);
            }
        }
    }
}
