//! # The A2A3 vector level
//!
//! On A2A3 a tile instruction is a sequence of vector instructions over the Unified Buffer.
//! [`ir`] is that instruction set (repeat, per-operand block and repeat strides, normal and
//! counter masks, the CMPMASK register, UB-to-UB copies) with a printer, a verifier and a
//! first-order cost model ([`ir::Stats`]). [`lower()`] turns one placed tile op into a
//! [`ir::Program`] following the dispatch policy of the pto-isa A2A3 implementation
//! (`include/pto/npu/a2a3/*.hpp`): one helper per operation family —
//! [`elementwise`] (tile-tile, tile-scalar, shifts, `texpands`), [`reduce`] (row and column
//! reductions, every path), [`arg_reduce`] (`tcolargmax`/`tcolargmin`) and [`select`]
//! (`tcmps`, `tsel`, `tgather`).
//!
//! The executor lives in `pto-sim` (`pto_sim::vector`); every operand names the tile it belongs
//! to, so an access outside that tile — a scratch tile one datablock too small — traps.

pub mod arg_reduce;
pub mod elementwise;
pub mod ir;
pub mod listing;
pub mod reduce;
pub mod select;

use ir::{CmpKind, Operand, Program, Region, Scalar};
use pto_ir::ops::Opcode;
use pto_ir::types::ElemType;

/// One tile operand as the vector level sees it: where it is and what part of it is valid.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct VTile {
    /// Op-table slot (`src0`, `dst`, `tmp`...).
    pub slot: &'static str,
    /// UB byte address.
    pub addr: u64,
    /// Bytes the tile may touch (its storage; shrink it to model a smaller allocation).
    pub bytes: u64,
    /// Element type.
    pub dtype: ElemType,
    /// Static capacity.
    pub rows: u32,
    /// Static capacity.
    pub cols: u32,
    /// Valid rows at run time.
    pub vrows: u32,
    /// Valid columns at run time.
    pub vcols: u32,
    /// True when the valid column count is static and equals `cols` (the implementation's
    /// compile-time "continuous" test).
    pub static_full_cols: bool,
    /// True when the valid shape is static (the fast paths are compile-time choices).
    pub static_valid: bool,
    /// Row-major, unboxed (ND). Column vectors (DN, `cols == 1`) are accepted where the op
    /// allows them.
    pub row_major: bool,
}

impl VTile {
    /// The bytes an operand of this tile may touch.
    pub fn region(&self) -> Region {
        Region { name: self.slot, start: self.addr, len: self.bytes }
    }

    /// An operand `elems` elements into the tile, contiguous strides.
    pub fn at(&self, elems: u64) -> Operand {
        Operand::at(self.region(), elems * self.es())
    }

    /// Element size in bytes.
    pub fn es(&self) -> u64 {
        self.dtype.size_bytes() as u64
    }

    /// Elements of one 256-byte iteration.
    pub fn epr(&self) -> u32 {
        256 / self.dtype.size_bytes().max(1)
    }

    /// Elements of one 32-byte datablock.
    pub fn epb(&self) -> u32 {
        32 / self.dtype.size_bytes().max(1)
    }
}

/// A placed tile op with its operands resolved: what [`lower()`] needs.
#[derive(Clone, Debug, PartialEq)]
pub struct TileOp {
    /// The instruction.
    pub opcode: Opcode,
    /// Its tile operands by slot.
    pub tiles: Vec<VTile>,
    /// Its scalar operand, if any.
    pub scalar: Option<Scalar>,
    /// `cmpMode`, if any.
    pub cmp: Option<CmpKind>,
    /// `round` of `tshrs`; `isBinary` of `tcolsum`.
    pub flag: bool,
}

impl TileOp {
    /// The tile bound to `slot`.
    pub fn tile(&self, slot: &str) -> Result<&VTile, NotLowered> {
        self.tiles.iter().find(|t| t.slot == slot).ok_or_else(|| NotLowered(format!("no `{slot}` tile operand")))
    }

    /// The tiles bound to slots starting with `prefix`.
    pub fn has(&self, slot: &str) -> bool {
        self.tiles.iter().any(|t| t.slot == slot)
    }

    fn scalar(&self) -> Result<Scalar, NotLowered> {
        self.scalar.ok_or_else(|| NotLowered("no scalar operand".into()))
    }
}

/// Why an op has no vector lowering (it then runs with tile semantics).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLowered(pub String);

/// The ops [`lower()`] handles.
pub fn is_lowered(opcode: Opcode) -> bool {
    use Opcode as O;
    matches!(
        opcode,
        O::TAdd
            | O::TSub
            | O::TMul
            | O::TDiv
            | O::TMax
            | O::TMin
            | O::TAnd
            | O::TOr
            | O::TAdds
            | O::TSubs
            | O::TMuls
            | O::TMaxs
            | O::TMins
            | O::TShls
            | O::TShrs
            | O::TExpands
            | O::TRowSum
            | O::TRowMax
            | O::TRowMin
            | O::TColSum
            | O::TColMax
            | O::TColMin
            | O::TColArgMax
            | O::TColArgMin
            | O::TCmps
            | O::TSel
            | O::TGather
    )
}

/// Lowers one tile op to its A2A3 vector program. Every tile must be a Vec tile; the result is
/// verified ([`Program::verify`]).
pub fn lower(op: &TileOp) -> Result<Program, NotLowered> {
    use Opcode as O;
    let prog = match op.opcode {
        O::TAdd | O::TSub | O::TMul | O::TDiv | O::TMax | O::TMin | O::TAnd | O::TOr => elementwise::binary(op)?,
        O::TAdds | O::TSubs | O::TMuls | O::TMaxs | O::TMins | O::TShls | O::TShrs => elementwise::with_scalar(op)?,
        O::TExpands => elementwise::fill(op)?,
        O::TRowSum | O::TRowMax | O::TRowMin => reduce::rows(op)?,
        O::TColSum | O::TColMax | O::TColMin => reduce::cols(op)?,
        O::TColArgMax | O::TColArgMin => arg_reduce::cols(op)?,
        O::TCmps => select::compare_scalar(op)?,
        O::TSel => select::select(op)?,
        O::TGather => select::gather(op)?,
        other => return Err(NotLowered(format!("`{}` has no vector lowering", other.full_name()))),
    };
    prog.verify().map_err(NotLowered)?;
    Ok(prog)
}

/// Collects instructions.
#[derive(Default)]
pub(crate) struct Emit {
    pub(crate) prog: Program,
}

impl Emit {
    pub(crate) fn push(&mut self, op: ir::Op, dtype: ElemType, repeat: u32, mask: ir::Mask, operands: Vec<Operand>) {
        // Counter mode derives the iteration count; a normal-mode instruction with no
        // iterations does nothing and is not issued.
        let repeat = if matches!(mask, ir::Mask::Counter(_)) { 0 } else { repeat };
        // `SetFullVecMaskByDType`: for 32-bit lanes the full mask has a zero high word.
        let mut instr = ir::Instr { op, dtype, repeat, mask, operands };
        if mask == ir::Mask::FULL && instr.lanes() <= 64 {
            instr.mask = ir::Mask::Normal { hi: 0, lo: u64::MAX };
        }
        if repeat == 0
            && !matches!(mask, ir::Mask::Counter(_))
            && !matches!(op, ir::Op::Copy { .. } | ir::Op::ScalarReduce { .. } | ir::Op::SetCmpMask)
        {
            return;
        }
        self.prog.instrs.push(instr);
    }
}

/// Where a tile value is and what part of it is valid, as the caller knows it (the memory
/// plan statically, the simulator at run time).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// UB byte address.
    pub addr: u64,
    /// Valid rows.
    pub vrows: u32,
    /// Valid columns.
    pub vcols: u32,
}

/// The operands of `op` by op-table slot (what [`resolve`] needs; static per op, so callers
/// that run an op many times compute it once).
pub fn operand_slots(
    m: &pto_ir::module::Module,
    op: pto_ir::module::OpId,
) -> Result<Vec<(&'static str, pto_ir::module::ValueId)>, NotLowered> {
    let data = m.op(op);
    if !is_lowered(data.opcode) {
        return Err(NotLowered(format!("`{}` has no vector lowering", data.opcode.full_name())));
    }
    let (_, bound) = crate::binding::bind(m, op).ok_or_else(|| NotLowered("operands do not fit the op table".into()))?;
    Ok(bound.iter().map(|b| (b.slot, b.value)).collect())
}

/// The [`TileOp`] of `op` in `m`: operands bound to their op-table slots, tiles placed by
/// `place`, scalars valued by `value` (`None`: unknown).
pub fn tile_op(
    m: &pto_ir::module::Module,
    op: pto_ir::module::OpId,
    place: impl Fn(pto_ir::module::ValueId) -> Option<Placed>,
    value: impl Fn(pto_ir::module::ValueId) -> Option<Scalar>,
) -> Result<TileOp, NotLowered> {
    resolve(m, op, &operand_slots(m, op)?, place, value)
}

/// [`tile_op`] with the slots already known.
pub fn resolve(
    m: &pto_ir::module::Module,
    op: pto_ir::module::OpId,
    slots: &[(&'static str, pto_ir::module::ValueId)],
    place: impl Fn(pto_ir::module::ValueId) -> Option<Placed>,
    value: impl Fn(pto_ir::module::ValueId) -> Option<Scalar>,
) -> Result<TileOp, NotLowered> {
    use pto_ir::types::{BLayout, Dim, Loc, SLayout};
    let data = m.op(op);
    let mut tiles = Vec::new();
    let mut scalar = None;
    for &(slot, value_id) in slots {
        match m.value_type(value_id).tile() {
            Some(t) => {
                if t.loc != Loc::Vec {
                    return Err(NotLowered(format!("`{slot}` is a {} tile; the vector level works on Vec tiles", t.loc.name())));
                }
                let p = place(value_id).ok_or_else(|| NotLowered(format!("`{slot}` has no address")))?;
                tiles.push(VTile {
                    slot,
                    addr: p.addr,
                    bytes: t.size_bytes(),
                    dtype: t.dtype,
                    rows: t.rows,
                    cols: t.cols,
                    vrows: p.vrows,
                    vcols: p.vcols,
                    static_full_cols: t.valid_cols == Dim::Static(t.cols),
                    static_valid: matches!((t.valid_rows, t.valid_cols), (Dim::Static(_), Dim::Static(_))),
                    row_major: t.slayout == SLayout::NoneBox && t.blayout == BLayout::RowMajor,
                });
            }
            None if slot == "scalar" || scalar.is_none() => scalar = Some(value(value_id).unwrap_or(Scalar::Unknown)),
            None => {}
        }
    }
    let attr_enum = |name: &str, kind: &str| data.attr(name).and_then(|a| a.as_enum(kind));
    let flag_attr = |name: &str| matches!(data.attr(name), Some(pto_ir::attr::Attr::Bool(true)) | Some(pto_ir::attr::Attr::Unit));
    Ok(TileOp {
        opcode: data.opcode,
        tiles,
        scalar,
        cmp: attr_enum("cmpMode", "cmp").and_then(CmpKind::parse),
        flag: flag_attr("round") || flag_attr("isBinary"),
    })
}
