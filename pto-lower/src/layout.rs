//! Layout inference for Level-1 tiles (the first step of `legalize`).
//!
//! A Level-1 `!pto.tile<RxCxT>` names a shape and an element type, not a layout: choosing how
//! its buffer is laid out is the toolchain's job (ISA pages write `trowmax`'s result as
//! `!pto.tile<16x1xf32>`). For every Level-1 tile type whose inner layout is unboxed, this
//! step chooses between ND (row_major) and DN (col_major) the first layout that
//!
//! 1. satisfies the static tile rules (a row-major row, or a col-major column, is a multiple
//!    of 32 bytes), and
//! 2. every producer and consumer accepts: the target's legality row of each op that defines
//!    or uses a value of that type must list the layout for that operand slot.
//!
//! The written layout is tried first, so explicit annotations and tiles that are already legal
//! never change. A `Rx1` reduction result of f32 thus becomes DN (ND rows would be 4 bytes),
//! a `1xC` result stays ND. When no candidate fits, the type is left as written and the
//! legality check that follows reports the operand.
//!
//! The choice is made per tile type, so every value of one type (loop-carried values, function
//! results) keeps one layout.

use crate::binding::bind;
use crate::legality::Table;
use crate::legalize::variant_matches;
use crate::pipeline::Changed;
use pto_ir::module::Module;
use pto_ir::tile_rules::check_tile;
use pto_ir::types::{BLayout, SLayout, TileDesc, Type, TypeId};
use std::collections::HashMap;

/// The layouts a Level-1 tile may take, in the order they are tried after the written one.
const CANDIDATES: [BLayout; 2] = [BLayout::RowMajor, BLayout::ColMajor];

/// Chooses the layout of every Level-1 tile type of `m` for `table`'s target (see the module
/// docs) and retypes the module accordingly.
pub fn infer_level1_layouts(m: &mut Module, table: &Table) -> Changed {
    // Which table variants each Level-1 tile type must satisfy: (type, op, slot) uses.
    let mut uses: HashMap<TypeId, Vec<(pto_ir::module::OpId, usize, &'static str)>> = HashMap::new();
    for op in m.walk() {
        let Some((form, bound)) = bind(m, op) else { continue };
        for b in bound {
            let ty = m.values[b.value.index()].ty;
            if matches!(m.ty(ty), Type::Tile(d) if d.slayout == SLayout::NoneBox) {
                uses.entry(ty).or_default().push((op, form, b.slot));
            }
        }
    }
    let mut chosen: HashMap<Type, Type> = HashMap::new();
    for (&ty, sites) in &uses {
        let Type::Tile(written) = m.ty(ty) else { continue };
        let accepts = |d: &TileDesc| {
            check_tile(d).is_empty()
                && sites.iter().all(|&(op, form, slot)| {
                    let Some(rule) = table.effective(m.op(op).opcode, Some(form)) else { return true };
                    let Some(r) = rule.operand(slot) else { return true };
                    r.variants.iter().any(|v| variant_matches(v, d))
                })
        };
        if accepts(written) {
            continue;
        }
        let better =
            CANDIDATES.iter().filter(|&&b| b != written.blayout).map(|&b| TileDesc { blayout: b, ..written.clone() }).find(|d| accepts(d));
        if let Some(d) = better {
            chosen.insert(Type::Tile(written.clone()), Type::Tile(d));
        }
    }
    if chosen.is_empty() || m.retype(|t| chosen.get(t).cloned()).is_empty() { Changed::No } else { Changed::Yes }
}
