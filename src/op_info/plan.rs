//! Choosing the operands of a generated example for an op with an operand pattern, and writing
//! the example program at Level 1 and Level 2.
//!
//! The operands come from the op table: the slots of the op's first operand form (optional
//! slots left out, as the lowering inserts scratch tiles, except the `tmp` PTOAS's DPS form
//! requires; one value for a variadic slot of
//! non-scalar kind), the required attributes (the first value of an enum). Their types come
//! from a target's legality table ([`pto_lower::legality`]): slots that must share an element
//! type form one class (the op table's `dtype(...)` groups, the table's same-dtype checks); each
//! class takes, in a fixed order of preference, an element type every member's rule admits;
//! each tile takes the location, layout and shape requirements of the first alternative of its
//! rule that admits its element type, the layout its target fixes for that location, and the
//! extents the table's cross-operand checks relate. Candidates are tried in order until one is
//! legal (`legalize`), so what is shown is what the tables accept, never a guess.

use super::check::{legal_on, parse_and_verify};
use pto_ir::ops::{Opcode, ScalarClass, SlotKind, Syntax};
use pto_ir::types::{Dim, ElemType, TileDesc};
use pto_lower::legality::{self, CheckKind, Effective, Extent, ShapeReq};
use pto_lower::{Target, TargetId};
use std::fmt::Write;

/// Element types in the order examples prefer them.
const PREFERRED: &[ElemType] = &[
    ElemType::F32,
    ElemType::F16,
    ElemType::I32,
    ElemType::I16,
    ElemType::I8,
    ElemType::U8,
    ElemType::U16,
    ElemType::U32,
    ElemType::BF16,
    ElemType::I64,
    ElemType::U64,
    ElemType::F8E4M3,
    ElemType::F8E5M2,
    ElemType::HiF8,
    ElemType::F8E8M0,
];

/// Scalar slots that hold positions or counts: always `index`.
const INDEX_SLOTS: &[&str] = &["row", "col", "offsets", "index", "pos_m", "pos_k", "addr"];
/// Scalar slots that hold an element of the op's tiles: the element type of its first tile.
const ELEMENT_SLOTS: &[&str] = &["scalar", "value", "start", "scale"];
/// How many element types of one class are tried, and how many candidates in all.
const PER_CLASS: usize = 6;
const MAX_TRIES: usize = 40;

/// The type of one generated value.
#[derive(Clone, Debug, PartialEq)]
pub enum ValTy {
    /// A tile (`!pto.tile` at Level 1, `!pto.tile_buf` at Level 2).
    Tile(TileDesc),
    /// A scalar constant or result.
    Scalar(ElemType),
    /// A `rows x cols` GM view (a `!pto.ptr` seen through `make_tensor_view` and
    /// `partition_view` at Level 2, a `!pto.partition_tensor_view` argument at Level 1).
    View(ElemType, u32, u32),
    /// A parallel group of four `rows x cols` GM buffers.
    Group(ElemType, u32, u32),
    /// Any other type, spelled as is (`!pto.event`, `!pto.pipe`...).
    Fixed(&'static str),
}

/// One operand or result of the example op.
#[derive(Clone, Debug)]
pub struct Val {
    /// Value name without `%` (the slot name).
    pub name: String,
    /// The slot's kind.
    pub kind: SlotKind,
    /// True for the op's `outs` side.
    pub out: bool,
    /// Its type.
    pub ty: ValTy,
    /// The constant a scalar operand is given.
    pub value: String,
}

/// The example op: its values and attributes.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The op.
    pub op: Opcode,
    /// Values, `ins` first, then `outs`.
    pub vals: Vec<Val>,
    /// Attributes as `(name, text)`.
    pub attrs: Vec<(String, String)>,
}

/// Chooses the example of `op` (operand form 0) with the attributes `modes` selected by the
/// name it was asked for: one legal on both targets if there is one, else one legal on either,
/// else one that passes the structural verifier. `None` when the op has no operand pattern.
pub fn choose(op: Opcode, modes: &[(String, String)]) -> Option<Plan> {
    let uses = slot_uses(op, 0, &[])?;
    let attrs = attributes(op, 0, modes);
    let mut fallback = None;
    for (i, &target) in super::check::TARGETS.iter().enumerate() {
        let Some(plan) = search(op, 0, &uses, &attrs, Some(target), 1).pop() else { continue };
        let other = super::check::TARGETS[1 - i];
        let legal_on_other = parse_and_verify(&plan.level2("k")).is_ok_and(|m| legal_on(&m, other).is_none());
        if legal_on_other {
            return Some(plan);
        }
        fallback.get_or_insert(plan);
    }
    fallback.or_else(|| search(op, 0, &uses, &attrs, None, 1).pop()).or_else(|| Some(build(op, &uses, &attrs, &[], None, None)))
}

/// Up to `limit` plans of operand form `form` of `op` legal on `target`, one per choice of
/// element types (in the order of preference), with the attributes `attrs` and the optional
/// slots `optional` filled besides the required ones: the bases of the generated conformance set
/// ([`super::generate`]). Empty when the op has no such form or nothing is legal there.
pub fn legal_plans(op: Opcode, form: usize, optional: &[&str], attrs: &[(String, String)], target: TargetId, limit: usize) -> Vec<Plan> {
    let Some(uses) = slot_uses(op, form, optional) else { return Vec::new() };
    let mut all = attributes(op, form, &[]);
    all.retain(|(n, _)| !attrs.iter().any(|(m, _)| m == n));
    all.extend(attrs.iter().cloned());
    search(op, form, &uses, &all, Some(target), limit)
}

/// The names of the optional slots of operand form `form` (not `tmp` when PTOAS requires it,
/// which every plan fills).
pub fn optional_slots(op: Opcode, form: usize) -> Vec<String> {
    let ptoas_tmp = !op.spec().ptoas_tmp.is_empty();
    op.parsed()
        .forms
        .get(form)
        .map(|f| f.ins.iter().chain(&f.outs).filter(|s| s.optional && !(ptoas_tmp && s.name == "tmp")).map(|s| s.name.clone()).collect())
        .unwrap_or_default()
}

/// One slot the example fills.
struct SlotUse {
    slot: String,
    kind: SlotKind,
    out: bool,
    /// A scalar slot's ODS class (the op table's `@class`).
    class: Option<ScalarClass>,
}

/// The slots the example fills from operand form `form`: the required ones, one value of a
/// variadic non-scalar slot, `tmp` where PTOAS's DPS form requires it (the op table's
/// `ptoas_tmp`), and the optional slots named in `optional`.
fn slot_uses(op: Opcode, form: usize, optional: &[&str]) -> Option<Vec<SlotUse>> {
    let form = op.parsed().forms.get(form)?;
    let ptoas_tmp = !op.spec().ptoas_tmp.is_empty();
    let mut uses = Vec::new();
    for (slots, out) in [(&form.ins, false), (&form.outs, true)] {
        for s in slots {
            let wanted = !s.optional
                || (s.variadic && s.kind != SlotKind::Scalar)
                || (ptoas_tmp && s.name == "tmp")
                || optional.contains(&s.name.as_str());
            if wanted {
                uses.push(SlotUse { slot: s.name.clone(), kind: s.kind, out, class: s.class });
            }
        }
    }
    Some(uses)
}

/// The attributes operand form `form` requires, with a default value, then the mode attributes.
fn attributes(op: Opcode, form: usize, modes: &[(String, String)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for a in op.parsed().attrs.iter().filter(|a| a.required && a.form.is_none_or(|f| f == form)) {
        if modes.iter().any(|(n, _)| *n == a.name) {
            continue;
        }
        out.push((a.name.clone(), default_attr(&a.kind)));
    }
    out.extend(modes.iter().cloned());
    out
}

/// The enum kinds PTOAS writes as their value's index (`{split = 0}`: PTOAS's dialect has no
/// `#pto<tile_split ...>` attribute; pto reads both).
pub const PTOAS_INTEGER_ENUMS: &[&str] = &["tile_split"];

/// A value of attribute kind `kind`: an enum's first value (its index for
/// [`PTOAS_INTEGER_ENUMS`]), `0`, `false`...
pub fn default_attr(kind: &str) -> String {
    if PTOAS_INTEGER_ENUMS.contains(&kind) {
        return "0".into();
    }
    if let Some((_, k)) = pto_ir::attr::EnumKind::find(kind) {
        return format!("#pto.{}<{}>", k.name, k.values.first().copied().unwrap_or(""));
    }
    match kind {
        "bool" => "false".into(),
        "float" => "1.0".into(),
        "string" => "\"s\"".into(),
        "type" => "f16".into(),
        _ => "0".into(),
    }
}

/// The first `limit` candidates legal on `target` (or, without a target, that verify), of
/// operand form `form`.
fn search(op: Opcode, form: usize, uses: &[SlotUse], attrs: &[(String, String)], target: Option<TargetId>, limit: usize) -> Vec<Plan> {
    let mut found = Vec::new();
    let eff = target.and_then(|t| legality::table(t).effective(op, Some(form)));
    if eff.as_ref().is_some_and(|e| !e.supported) {
        return found;
    }
    let class_of = classes(op, uses, eff.as_ref());
    let n_classes = class_of.iter().max().map_or(0, |m| m + 1);
    let candidates: Vec<Vec<ElemType>> = (0..n_classes).map(|c| class_candidates(uses, &class_of, c, eff.as_ref())).collect();
    let mut index = vec![0usize; n_classes];
    for _ in 0..MAX_TRIES {
        let dtypes: Vec<ElemType> = index.iter().zip(&candidates).map(|(&i, c)| c[i]).collect();
        let per_use: Vec<ElemType> = class_of.iter().map(|&c| dtypes[c]).collect();
        let plan = build(op, uses, attrs, &per_use, eff.as_ref(), target.map(Target::get));
        if let Ok(m) = parse_and_verify(&plan.level2("k"))
            && target.is_none_or(|t| legal_on(&m, t).is_none())
        {
            found.push(plan);
            if found.len() >= limit {
                return found;
            }
        }
        // Next combination, the last class fastest.
        let mut k = n_classes;
        loop {
            if k == 0 {
                return found;
            }
            k -= 1;
            index[k] += 1;
            if index[k] < candidates[k].len() {
                break;
            }
            index[k] = 0;
        }
    }
    found
}

/// Groups the uses that must share an element type; returns each use's class.
fn classes(op: Opcode, uses: &[SlotUse], eff: Option<&Effective<'_>>) -> Vec<usize> {
    let n = uses.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut i: usize) -> usize {
        while p[i] != i {
            i = p[i];
        }
        i
    }
    let union = |p: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (root(p, a), root(p, b));
        if ra != rb {
            p[rb] = ra;
        }
    };
    let find = |slot: &str| uses.iter().position(|u| u.slot == slot);
    let mut groups: Vec<Vec<String>> = op.parsed().same.iter().filter(|g| g.what == "dtype").map(|g| g.slots.clone()).collect::<Vec<_>>();
    if let Some(e) = eff {
        for c in &e.checks {
            // A check guarded by a location holds only for some tuples: no class for it.
            if let (CheckKind::SameDtype(a, b), None) = (c.kind, c.only) {
                groups.push(vec![a.to_string(), b.to_string()]);
            }
        }
    }
    for g in &groups {
        let present: Vec<usize> = g.iter().filter_map(|s| find(s)).collect();
        for w in present.windows(2) {
            union(&mut parent, w[0], w[1]);
        }
    }
    // Views, groups and element scalars without a tile in their class take the first tile's type.
    if let Some(first_tile) = uses.iter().position(|u| u.kind == SlotKind::Tile) {
        for i in 0..n {
            let follows = match uses[i].kind {
                SlotKind::View | SlotKind::Group => true,
                SlotKind::Scalar => ELEMENT_SLOTS.contains(&uses[i].slot.as_str()),
                _ => false,
            };
            let r = root(&mut parent, i);
            let has_tile = (0..n).any(|j| uses[j].kind == SlotKind::Tile && root(&mut parent, j) == r);
            if follows && !has_tile {
                union(&mut parent, first_tile, i);
            }
        }
    }
    let mut ids: Vec<usize> = Vec::new();
    (0..n)
        .map(|i| {
            let r = root(&mut parent, i);
            match ids.iter().position(|&x| x == r) {
                Some(k) => k,
                None => {
                    ids.push(r);
                    ids.len() - 1
                }
            }
        })
        .collect()
}

/// The element types one use admits on the target (`None`: any).
fn admitted(u: &SlotUse, eff: Option<&Effective<'_>>) -> Option<Vec<ElemType>> {
    let rule = eff?.operand(&u.slot)?;
    let tile = u.kind == SlotKind::Tile;
    let mut out: Vec<ElemType> = Vec::new();
    for v in rule.variants.iter().filter(|v| tile || v.is_untiled()) {
        match v.dtypes {
            None => return None,
            Some(d) => {
                for &x in d {
                    if !out.contains(&x) {
                        out.push(x);
                    }
                }
            }
        }
    }
    // A non-tile operand of a slot whose rule only describes tiles is not checked.
    if out.is_empty() && !tile { None } else { Some(out) }
}

fn class_candidates(uses: &[SlotUse], class_of: &[usize], class: usize, eff: Option<&Effective<'_>>) -> Vec<ElemType> {
    let members: Vec<&SlotUse> = uses.iter().zip(class_of).filter(|(_, c)| **c == class).map(|(u, _)| u).collect();
    if members.iter().any(|u| u.kind == SlotKind::Scalar && INDEX_SLOTS.contains(&u.slot.as_str())) {
        return vec![ElemType::Index];
    }
    let sets: Vec<Vec<ElemType>> = members.iter().filter_map(|u| admitted(u, eff)).collect();
    if sets.is_empty() && members.iter().all(|u| u.kind == SlotKind::Scalar) {
        return vec![if members.iter().all(|u| u.out) { ElemType::I1 } else { ElemType::I32 }];
    }
    let all: Vec<ElemType> = PREFERRED.iter().copied().filter(|d| sets.iter().all(|s| s.contains(d))).collect();
    let mut out = if all.is_empty() {
        let first = &sets[0];
        PREFERRED.iter().copied().filter(|d| first.contains(d)).collect()
    } else {
        all
    };
    if out.is_empty() {
        out.push(ElemType::F32);
    }
    out.truncate(PER_CLASS);
    out
}

/// The type a scalar of element type `e` is written with where its slot has ODS class `class`:
/// the class's one type (`F32`, `I64`, `index`; PTOAS's, though pto also takes the tile's float
/// for `F32`), or for an unsigned element the signless
/// integer of its width, which PTOAS's `ScalarType` and `AnySignlessInteger` want
/// (`PTOOps.td:54-55`).
fn ods_scalar(class: Option<ScalarClass>, e: ElemType) -> ElemType {
    let signless = |e: ElemType| match e {
        ElemType::U8 => ElemType::I8,
        ElemType::U16 => ElemType::I16,
        ElemType::U32 => ElemType::I32,
        ElemType::U64 => ElemType::I64,
        other => other,
    };
    match class {
        Some(ScalarClass::F32) => ElemType::F32,
        Some(ScalarClass::I64) => ElemType::I64,
        Some(ScalarClass::Index) => ElemType::Index,
        Some(ScalarClass::Numeric | ScalarClass::Signless) => signless(e),
        _ => e,
    }
}

/// The plan for one choice of element types (`dtypes[i]` for use `i`; empty: f32 everywhere).
fn build(
    op: Opcode,
    uses: &[SlotUse],
    attrs: &[(String, String)],
    dtypes: &[ElemType],
    eff: Option<&Effective<'_>>,
    target: Option<&Target>,
) -> Plan {
    let dtype = |i: usize| dtypes.get(i).copied().unwrap_or(ElemType::F32);
    let smallest = (0..uses.len()).filter(|&i| uses[i].kind == SlotKind::Tile).map(|i| dtype(i).size_bytes()).min().unwrap_or(4);
    let base = (32 / smallest.max(1)).max(16);
    let mut tiles: Vec<Option<TileDesc>> =
        (0..uses.len()).map(|i| (uses[i].kind == SlotKind::Tile).then(|| tile_for(&uses[i].slot, dtype(i), eff, target, base))).collect();
    if let Some(e) = eff {
        relate(uses, &mut tiles, e);
    }
    let first_valid = tiles.iter().flatten().next().map(|t| (valid(t.valid_rows, t.rows), valid(t.valid_cols, t.cols)));
    let flat = |slot: &str| op.parsed().same.iter().any(|g| g.what == "flat" && g.slots.iter().any(|s| s == slot));
    let vals = uses
        .iter()
        .enumerate()
        .map(|(i, u)| {
            let ty = match u.kind {
                SlotKind::Tile => ValTy::Tile(tiles[i].unwrap_or_else(|| TileDesc::vec(dtype(i), base, base))),
                SlotKind::Scalar => ValTy::Scalar(ods_scalar(u.class, dtype(i))),
                SlotKind::View => {
                    let (r, c) = view_dims(uses, &tiles, &u.slot, eff).or(first_valid).unwrap_or((base, base));
                    if flat(&u.slot) { ValTy::View(dtype(i), 1, r * c) } else { ValTy::View(dtype(i), r, c) }
                }
                SlotKind::Group => {
                    let (r, c) = first_valid.unwrap_or((base, base));
                    ValTy::Group(dtype(i), r, c)
                }
                SlotKind::Event => ValTy::Fixed("!pto.event"),
                SlotKind::Pipe => ValTy::Fixed("!pto.pipe"),
                SlotKind::Session => ValTy::Fixed("!pto.async_session"),
                SlotKind::AsyncEvent => ValTy::Fixed("!pto.async_event"),
                SlotKind::Conv => ValTy::Fixed("!pto.fmatrix_config"),
                SlotKind::Vector => ValTy::Fixed("vector<4xi16>"),
                SlotKind::Any => ValTy::Scalar(ElemType::I32),
            };
            Val { name: u.slot.clone(), kind: u.kind, out: u.out, ty, value: scalar_value(&u.slot, dtype(i), eff) }
        })
        .collect();
    Plan { op, vals, attrs: attrs.to_vec() }
}

/// The constant a scalar operand gets: `0` for an index (a position: inside every window, a
/// multiple of anything), the multiple the table asks of another integer (`tmrgsort`'s block
/// length), else `1`; `2.0` for a float.
fn scalar_value(slot: &str, dtype: ElemType, eff: Option<&Effective<'_>>) -> String {
    if dtype.is_float() {
        return "2.0".to_string();
    }
    let multiple = eff.and_then(|e| {
        e.checks.iter().find_map(|c| match c.kind {
            CheckKind::IndexMultiple { index, of: legality::Multiple::Fixed(n) } if index == slot => Some(n),
            _ => None,
        })
    });
    match (dtype, multiple) {
        (ElemType::Index, _) => "0".to_string(),
        (_, Some(n)) => n.to_string(),
        _ => "1".to_string(),
    }
}

fn valid(d: Dim, cap: u32) -> u32 {
    match d {
        Dim::Static(n) => n,
        Dim::Dynamic => cap,
    }
}

/// The view shape a `ViewShape` check asks for: the related tile's valid shape.
fn view_dims(uses: &[SlotUse], tiles: &[Option<TileDesc>], slot: &str, eff: Option<&Effective<'_>>) -> Option<(u32, u32)> {
    let tile_slot = eff?.checks.iter().find_map(|c| match c.kind {
        CheckKind::ViewShape { view, tile } if view == slot => Some(tile),
        _ => None,
    })?;
    let t = uses.iter().position(|u| u.slot == tile_slot).and_then(|i| tiles[i])?;
    Some((valid(t.valid_rows, t.rows), valid(t.valid_cols, t.cols)))
}

/// A tile of `dtype` for `slot`: the first alternative of its rule that admits the type, the
/// layout the target fixes for its location.
fn tile_for(slot: &str, dtype: ElemType, eff: Option<&Effective<'_>>, target: Option<&Target>, base: u32) -> TileDesc {
    let mut t = TileDesc::vec(dtype, base, base);
    let variant = eff.and_then(|e| e.operand(slot)).and_then(|r| r.variants.iter().find(|v| v.dtypes.is_none_or(|d| d.contains(&dtype))));
    if let Some(v) = variant {
        if let Some(&loc) = v.locs.first() {
            t.loc = loc;
        }
        if let Some(l) = v.layouts.first() {
            t.blayout = l.blayout.unwrap_or(t.blayout);
            t.slayout = l.slayout.unwrap_or(t.slayout);
            t.fractal = l.fractal.unwrap_or(t.fractal);
        }
        for s in v.shape {
            shape(&mut t, s);
        }
    }
    if let Some(f) = target.and_then(|tg| tg.fixed_layout(t.loc)) {
        (t.blayout, t.slayout, t.fractal) = (f.blayout, f.slayout, f.fractal.unwrap_or(t.fractal));
    } else if let Some((b, s, f)) = t.loc.fixed_layout() {
        (t.blayout, t.slayout, t.fractal) = (b, s, f);
    }
    t
}

fn get(t: &TileDesc, e: Extent) -> u32 {
    match e {
        Extent::Rows => t.rows,
        Extent::Cols => t.cols,
        Extent::ValidRows => valid(t.valid_rows, t.rows),
        Extent::ValidCols => valid(t.valid_cols, t.cols),
    }
}

/// Sets one extent, keeping the valid region inside the capacity (a full valid region follows
/// the capacity).
fn set(t: &mut TileDesc, e: Extent, v: u32) {
    match e {
        Extent::Rows => {
            let full = valid(t.valid_rows, t.rows) == t.rows;
            t.rows = v;
            if full || valid(t.valid_rows, t.rows) > v {
                t.valid_rows = Dim::Static(v);
            }
        }
        Extent::Cols => {
            let full = valid(t.valid_cols, t.cols) == t.cols;
            t.cols = v;
            if full || valid(t.valid_cols, t.cols) > v {
                t.valid_cols = Dim::Static(v);
            }
        }
        Extent::ValidRows => {
            t.valid_rows = Dim::Static(v);
            t.rows = t.rows.max(v);
        }
        Extent::ValidCols => {
            t.valid_cols = Dim::Static(v);
            t.cols = t.cols.max(v);
        }
    }
}

fn shape(t: &mut TileDesc, s: &ShapeReq) {
    match *s {
        ShapeReq::Eq(e, v) => set(t, e, v),
        ShapeReq::Range(e, lo, hi) => set(t, e, get(t, e).clamp(lo, hi)),
        ShapeReq::Same(a, b) => set(t, a, get(t, b)),
        ShapeReq::PadSet => t.pad = 1,
        ShapeReq::PadNullOrZero => t.pad = t.pad.min(1),
        ShapeReq::Multiple(e, n) => set(t, e, get(t, e).div_ceil(n) * n),
        ShapeReq::RowBytes(n) => {
            let size = t.dtype.size_bytes();
            let bytes = (t.cols * size).div_ceil(n) * n;
            set(t, Extent::Cols, bytes / size);
        }
        ShapeReq::Bytes(lo, _) => {
            let bytes = t.size_bytes();
            if bytes < u64::from(lo) {
                set(t, Extent::Cols, t.cols * (u64::from(lo).div_ceil(bytes.max(1)) as u32));
            }
        }
    }
}

/// Applies the table's extent relations between operands (`a = b`, `a <= b`, `a × k = b`,
/// `a + b <= c`).
fn relate(uses: &[SlotUse], tiles: &mut [Option<TileDesc>], eff: &Effective<'_>) {
    let at = |slot: &str| uses.iter().position(|u| u.slot == slot);
    for _ in 0..2 {
        for c in &eff.checks {
            match c.kind {
                CheckKind::Eq { a, b } | CheckKind::Le { a, b } => {
                    let (Some(i), Some(j)) = (at(a.0), at(b.0)) else { continue };
                    let (Some(x), Some(mut y)) = (tiles[i], tiles[j]) else { continue };
                    let (vx, vy) = (get(&x, a.1), get(&y, b.1));
                    let wrong = if matches!(c.kind, CheckKind::Eq { .. }) { vx != vy } else { vx > vy };
                    if wrong {
                        set(&mut y, b.1, vx);
                        tiles[j] = Some(y);
                    }
                }
                CheckKind::Scaled { a, factor, b } => {
                    let (Some(i), Some(j)) = (at(a.0), at(b.0)) else { continue };
                    let (Some(x), Some(mut y)) = (tiles[i], tiles[j]) else { continue };
                    let want = get(&x, a.1) * factor;
                    if get(&y, b.1) != want {
                        set(&mut y, b.1, want);
                        tiles[j] = Some(y);
                    }
                }
                CheckKind::SumLe { a, b, c: bound } => {
                    let (Some(i), Some(j), Some(k)) = (at(a.0), at(b.0), at(bound.0)) else { continue };
                    let (Some(x), Some(y), Some(mut z)) = (tiles[i], tiles[j], tiles[k]) else { continue };
                    let sum = get(&x, a.1) + get(&y, b.1);
                    if sum > get(&z, bound.1) {
                        set(&mut z, bound.1, sum);
                        tiles[k] = Some(z);
                    }
                }
                _ => {}
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Writing the example program
// ---------------------------------------------------------------------------------------------

/// The control flow the op of a kernel sits in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Wrap {
    /// At the top of the function body.
    None,
    /// In the body of an `scf.for` of two iterations.
    For,
    /// In the `then` region of an `scf.if` on a constant `true`.
    If,
}

/// Which program to write.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Level {
    /// `!pto.tile` values in a function (Level-1 SSA).
    One,
    /// `!pto.tile` values as PTO-AS `.arg` declarations at the top level.
    OneShort,
    /// `!pto.tile_buf` buffers in a function (Level-2 DPS).
    Two,
    /// Level 2 as PTOAS kernels are written: tile buffers allocated in the body
    /// (`pto.alloc_tile`, with `valid_row` / `valid_col` operands for a dynamic valid shape), GM
    /// through `!pto.ptr` arguments.
    Kernel,
}

impl Plan {
    /// True when the op reads or writes a tile: it has a Level-1 form.
    pub fn has_level1(&self) -> bool {
        matches!(self.op.spec().syntax, Syntax::Tile | Syntax::Cast) && self.vals.iter().any(|v| v.kind == SlotKind::Tile)
    }

    /// The Level-2 program (tile buffers, GM pointers through views), op in MLIR generic form.
    pub fn level2(&self, func: &str) -> String {
        self.write(Level::Two, func)
    }

    /// The Level-2 program as a PTOAS kernel: tile buffers allocated in the body, the op
    /// inside `wrap`.
    pub fn kernel(&self, func: &str, wrap: Wrap) -> String {
        self.write_wrapped(Level::Kernel, func, wrap)
    }

    /// The Level-1 SSA program (tile values in a function).
    pub fn level1(&self, func: &str) -> String {
        self.write(Level::One, func)
    }

    /// The Level-1 program as PTO-AS declarations (`.arg`).
    pub fn level1_short(&self) -> String {
        self.write(Level::OneShort, "")
    }

    /// True when `v` is written as an operand (not a result) at `level`.
    fn is_operand(&self, v: &Val, level: Level) -> bool {
        if !v.out {
            return true;
        }
        if self.op.spec().syntax != Syntax::Tile {
            return false;
        }
        match level {
            Level::Two | Level::Kernel => matches!(v.kind, SlotKind::Tile | SlotKind::View | SlotKind::Vector),
            Level::One | Level::OneShort => v.kind == SlotKind::View,
        }
    }

    fn type_text(ty: &ValTy, level: Level) -> String {
        match ty {
            ValTy::Tile(t) if matches!(level, Level::Two | Level::Kernel) => pto_ir::Type::TileBuf(*t).to_string(),
            ValTy::Tile(t) => pto_ir::Type::Tile(*t).to_string(),
            ValTy::Scalar(e) => e.name().to_string(),
            ValTy::View(e, r, c) => format!("!pto.partition_tensor_view<{r}x{c}x{}>", e.name()),
            ValTy::Group(e, r, c) => format!("!pto.group<4x!pto.memref<{r}x{c}x{}>>", e.name()),
            ValTy::Fixed(s) => s.to_string(),
        }
    }

    fn write(&self, level: Level, func: &str) -> String {
        self.write_wrapped(level, func, Wrap::None)
    }

    fn write_wrapped(&self, level: Level, func: &str, wrap: Wrap) -> String {
        let mut args: Vec<(String, String)> = Vec::new();
        let mut body = String::new();
        let mut consts: Vec<(String, String)> = Vec::new();
        let mut konst = |value: String, ty: &str, name: String| {
            if !consts.iter().any(|(n, _)| *n == name) {
                consts.push((name.clone(), format!("%{name} = arith.constant {value} : {ty}")));
            }
            name
        };
        let (mut operands, mut results) = (Vec::new(), Vec::new());
        for v in &self.vals {
            let ty = Self::type_text(&v.ty, level);
            let operand = self.is_operand(v, level);
            if !operand {
                results.push((v.name.clone(), ty));
                continue;
            }
            match &v.ty {
                // MLIR's `arith.constant` is signless: an unsigned scalar is an argument.
                ValTy::Scalar(e) if !v.out && !matches!(e, ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64) => {
                    konst(v.value.clone(), e.name(), v.name.clone());
                }
                ValTy::Tile(t) if level == Level::Kernel => {
                    let mut valid = String::new();
                    for (key, d, cap) in [("valid_row", t.valid_rows, t.rows), ("valid_col", t.valid_cols, t.cols)] {
                        if d == Dim::Dynamic {
                            let n = konst(cap.to_string(), "index", format!("c{cap}"));
                            let _ = write!(valid, " {key} = %{n}");
                        }
                    }
                    let _ = writeln!(body, "  %{} = pto.alloc_tile{valid} : {ty}", v.name);
                }
                ValTy::View(e, r, c) if matches!(level, Level::Two | Level::Kernel) => {
                    let (c0, c1) = (konst("0".into(), "index", "c0".into()), konst("1".into(), "index", "c1".into()));
                    let (cr, cc) = (konst(r.to_string(), "index", format!("c{r}")), konst(c.to_string(), "index", format!("c{c}")));
                    let tensor = format!("!pto.tensor_view<{r}x{c}x{}>", e.name());
                    args.push((format!("{}_ptr", v.name), format!("!pto.ptr<{}>", e.name())));
                    let _ = writeln!(
                        body,
                        "  %{n}_tensor = pto.make_tensor_view %{n}_ptr, shape = [%{cr}, %{cc}], strides = [%{cc}, %{c1}] : {tensor}",
                        n = v.name
                    );
                    let _ = writeln!(
                        body,
                        "  %{n} = pto.partition_view %{n}_tensor, offsets = [%{c0}, %{c0}], sizes = [%{cr}, %{cc}] : {tensor} -> {ty}",
                        n = v.name
                    );
                }
                _ => args.push((v.name.clone(), ty.clone())),
            }
            operands.push((v.name.clone(), ty));
        }
        let names = |xs: &[(String, String)]| xs.iter().map(|(n, _)| format!("%{n}")).collect::<Vec<_>>().join(", ");
        let types = |xs: &[(String, String)]| xs.iter().map(|(_, t)| t.clone()).collect::<Vec<_>>().join(", ");
        let lhs = if results.is_empty() { String::new() } else { format!("{} = ", names(&results)) };
        let attrs = if self.attrs.is_empty() {
            String::new()
        } else {
            format!(" <{{{}}}>", self.attrs.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", "))
        };
        let op_line =
            format!("{lhs}\"{}\"({}){attrs} : ({}) -> ({})", self.op.full_name(), names(&operands), types(&operands), types(&results));
        let mut out = String::new();
        let indent = if level == Level::OneShort { "" } else { "  " };
        if level == Level::OneShort {
            for (n, t) in &args {
                let _ = writeln!(out, ".arg %{n} : {t}");
            }
        } else {
            let params = args.iter().map(|(n, t)| format!("%{n}: {t}")).collect::<Vec<_>>().join(", ");
            let returns = match (level, results.len()) {
                (Level::One, 1) => format!(" -> {}", results[0].1),
                (Level::One, n) if n > 1 => format!(" -> ({})", types(&results)),
                _ => String::new(),
            };
            let _ = writeln!(out, "func.func @{func}({params}){returns} {{");
        }
        for (_, line) in &consts {
            let _ = writeln!(out, "{indent}{line}");
        }
        out.push_str(&body);
        match wrap {
            Wrap::None => {
                let _ = writeln!(out, "{indent}{op_line}");
            }
            Wrap::For => {
                let _ = writeln!(
                    out,
                    "{indent}%lb = arith.constant 0 : index\n{indent}%ub = arith.constant 2 : index\n{indent}%step = arith.constant 1 : index"
                );
                let _ = writeln!(out, "{indent}scf.for %iv = %lb to %ub step %step {{\n{indent}  {op_line}\n{indent}}}");
            }
            Wrap::If => {
                let _ = writeln!(out, "{indent}%cond = arith.constant true");
                let _ = writeln!(out, "{indent}scf.if %cond {{\n{indent}  {op_line}\n{indent}}}");
            }
        }
        if level != Level::OneShort {
            if level == Level::One && !results.is_empty() {
                let _ = writeln!(out, "  return {} : {}", names(&results), types(&results));
            } else {
                out.push_str("  return\n");
            }
            out.push_str("}\n");
        }
        out
    }
}
