//! The vector programs of a whole lowered (Level-3) module, for listings and cost reports
//! (`pto lower --emit vector`, `--stats`): every tile op with a vector lowering, its operands
//! placed where the memory plan put them, valid shapes as declared (dynamic ones at their
//! capacity) and scalars known where they are constants. Each program's footprint is checked
//! statically against its operand tiles and the Vec buffer ([`Program::verify_addresses`]).

use super::ir::{Program, Scalar};
use super::{NotLowered, Placed, TileOp, lower, tile_op};
use crate::target::Target;
use pto_ir::attr::Attr;
use pto_ir::diag::Diagnostics;
use pto_ir::module::{Module, OpId, ValueDef, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::Dim;
use std::collections::HashMap;

/// One tile op of the module and its vector program.
pub struct Listed {
    /// The op.
    pub op: OpId,
    /// Its resolved operands, when it has a vector lowering in this form.
    pub tile_op: Result<TileOp, NotLowered>,
    /// Its program.
    pub program: Result<Program, NotLowered>,
    /// Why the program touches bytes outside an operand tile or the Vec buffer, if it does.
    pub out_of_tile: Option<String>,
}

/// The constant value of a scalar, if `v` is the result of an `arith.constant`.
fn constant(m: &Module, v: ValueId) -> Option<Scalar> {
    let ValueDef::OpResult(op, _) = m.values[v.index()].def else { return None };
    let data = m.ops.get(op.index())?;
    if data.opcode != Opcode::ArithConstant {
        return None;
    }
    match data.attr("value")? {
        Attr::Int(i, _) => Some(Scalar::Int(*i)),
        Attr::Float(f, _) => Some(Scalar::Float(*f)),
        _ => None,
    }
}

/// Lists every op of `m` with a vector lowering, in program order.
pub fn list(m: &Module, target: &Target) -> Result<Vec<Listed>, Diagnostics> {
    let placements = crate::plan::assign(m, target)?;
    let addr: HashMap<ValueId, u64> = placements.iter().filter_map(|p| Some((p.value, p.addr?))).collect();
    let place = |v: ValueId| {
        let t = m.value_type(v).tile()?;
        let dim = |d: Dim, cap: u32| match d {
            Dim::Static(n) => n,
            Dim::Dynamic => cap,
        };
        Some(Placed { addr: *addr.get(&v)?, vrows: dim(t.valid_rows, t.rows), vcols: dim(t.valid_cols, t.cols) })
    };
    let mut out = Vec::new();
    for op in m.walk() {
        if !super::is_lowered(m.op(op).opcode) {
            continue;
        }
        let resolved = tile_op(m, op, place, |v| constant(m, v));
        let program = resolved.clone().and_then(|t| lower(&t));
        let ub = target.buffers.iter().find(|b| b.loc == pto_ir::types::Loc::Vec).map_or(0, |b| b.capacity);
        let out_of_tile = program.as_ref().ok().and_then(|p| p.verify_addresses(ub).err());
        out.push(Listed { op, tile_op: resolved, program, out_of_tile });
    }
    Ok(out)
}
