//! Layout inference for Level-1 tiles (the first step of `legalize`).
//!
//! A Level-1 `!pto.tile<RxCxT>` names a shape and an element type, not a layout: choosing how
//! its buffer is laid out is the toolchain's job (ISA pages write `trowmax`'s result as
//! `!pto.tile<16x1xf32>` and `tinsert`'s Mat destination as `!pto.tile<..., loc=mat>`). For
//! every Level-1 tile type whose inner layout is unboxed, at a location whose layout the target
//! does not fix (those are `fix_layouts`' business), this step chooses the first layout that
//!
//! 1. satisfies the static tile rules (a row-major row, or a col-major column, is a multiple
//!    of 32 bytes; boxed rows and columns are whole boxes), and
//! 2. every producer and consumer accepts: the target's legality row of each op that defines
//!    or uses a value of that type must list the layout for that operand slot.
//!
//! The candidates, in order: the written layout, so explicit annotations and tiles that are
//! already legal never change; the other unboxed layout (ND or DN); then the boxed layouts the
//! legality rows of the tile's operand slots list for its location and element type (a Mat
//! destination of `tinsert` becomes NZ with 512-byte fractals on A2A3). A `Rx1` reduction
//! result of f32 thus becomes DN (ND rows would be 4 bytes), a `1xC` result stays ND. When no
//! candidate fits, the type is left as written and the legality check that follows reports the
//! operand.
//!
//! The choice is made per tile type, so every value of one type (loop-carried values, function
//! results) keeps one layout.

use crate::binding::bind_oriented;
use crate::legality::{LayoutPat, Table};
use crate::legalize::variant_matches;
use crate::pipeline::Changed;
use crate::target::Target;
use pto_ir::module::{Module, OpId};
use pto_ir::tile_rules::check_tile;
use pto_ir::types::{BLayout, SLayout, TileDesc, Type, TypeId};
use std::collections::HashMap;

/// One use of a tile type: the op, its operand form and the slot the value fills.
type Site = (OpId, usize, &'static str);

/// Chooses the layout of every Level-1 tile type of `m` for `table`'s target (see the module
/// docs) and retypes the module accordingly.
pub fn infer_level1_layouts(m: &mut Module, table: &Table) -> Changed {
    let target = Target::get(table.target);
    let mut uses: HashMap<TypeId, Vec<Site>> = HashMap::new();
    for op in m.walk() {
        let Some((form, bound)) = bind_oriented(m, op) else { continue };
        for b in bound {
            let ty = m.values[b.value.index()].ty;
            if matches!(m.ty(ty), Type::Tile(d) if d.slayout == SLayout::NoneBox && target.fixed_layout(d.loc).is_none()) {
                uses.entry(ty).or_default().push((op, form, b.slot));
            }
        }
    }
    let mut chosen: HashMap<Type, Type> = HashMap::new();
    for (&ty, sites) in &uses {
        let Type::Tile(written) = m.ty(ty) else { continue };
        let accepts = |d: &TileDesc| check_tile(d).is_empty() && sites.iter().all(|&site| site_accepts(m, table, site, d));
        if accepts(written) {
            continue;
        }
        if let Some(d) = candidates(m, table, sites, written).into_iter().find(|d| accepts(d)) {
            chosen.insert(Type::Tile(*written), Type::Tile(d));
        }
    }
    if chosen.is_empty() || m.retype(|t| chosen.get(t).cloned()).is_empty() { Changed::No } else { Changed::Yes }
}

/// True when the legality row of the op at `site` accepts `d` in the site's slot (or says
/// nothing about the slot).
fn site_accepts(m: &Module, table: &Table, (op, form, slot): Site, d: &TileDesc) -> bool {
    let Some(rule) = table.effective(m.op(op).opcode, Some(form)) else { return true };
    let Some(r) = rule.operand(slot) else { return true };
    r.variants.iter().any(|v| variant_matches(v, d))
}

/// The layouts tried after the written one: the other unboxed layout, then every boxed layout
/// a site's legality row lists for the tile's location and element type, in row order.
fn candidates(m: &Module, table: &Table, sites: &[Site], written: &TileDesc) -> Vec<TileDesc> {
    let flipped = match written.blayout {
        BLayout::RowMajor => BLayout::ColMajor,
        BLayout::ColMajor => BLayout::RowMajor,
    };
    let mut out = vec![TileDesc { blayout: flipped, ..*written }];
    for &(op, form, slot) in sites {
        let Some(rule) = table.effective(m.op(op).opcode, Some(form)) else { continue };
        let Some(r) = rule.operand(slot) else { continue };
        let listed = r
            .variants
            .iter()
            .filter(|v| (v.locs.is_empty() || v.locs.contains(&written.loc)) && v.dtypes.is_none_or(|ds| ds.contains(&written.dtype)));
        for d in listed.flat_map(|v| v.layouts.iter()).filter_map(|p| boxed(p, written)) {
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

/// `written` in the boxed layout `p` names completely (outer and inner layout; its fractal
/// size when it names one).
fn boxed(p: &LayoutPat, written: &TileDesc) -> Option<TileDesc> {
    let (blayout, slayout) = (p.blayout?, p.slayout?);
    (slayout != SLayout::NoneBox).then(|| TileDesc { blayout, slayout, fractal: p.fractal.unwrap_or(written.fractal), ..*written })
}
