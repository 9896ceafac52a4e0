//! Pass `legalize`: gives tiles the layouts their target fixes, then checks every tile op
//! against the target's legality table.
//!
//! The rewrite ([`fix_layouts`]): a tile at a location whose layout the target fixes
//! ([`Target::fixed_layout`]: pto-isa's `TileLeft`/`TileRight`/`TileAcc`, A2A3 `left` Zz and
//! A5 `left` Nz, `right` Zn, `acc` Nz; on every target the MX scale tiles, `scale_left` Zz and
//! `scale_right` Nn with 32-byte fractals) gets that layout whatever its text says, with a
//! `LEGAL_LAYOUT_REWRITTEN` note at each rewritten tile. PTOAS's parser does the same for `left`
//! tiles, and the C++ it emits uses the legal layout; the simulator moves data by logical
//! position, so a program's results do not depend on the layout it wrote.
//!
//! The tables ([`crate::legality`], one per target) say, per instruction family and refined per
//! op, which (dtype, location, layout, shape) tuples each operand slot accepts, which
//! cross-operand relations must hold (valid-shape equalities the NPU code only asserts in debug
//! builds, conversion matrices, location pairs, attribute restrictions), and whether the target
//! implements the op at all. `check_op` is the one function that reads them; nothing here
//! depends on which target it is.
//!
//! Reported problems:
//! * `LEGAL_UNSUPPORTED_TUPLE` — an operand tuple outside the table, a failed cross-operand
//!   check, or an op the target does not implement;
//! * `LEGAL_BUFFER_OVERFLOW` — a tile larger than its target buffer ([`check_tile_sizes`]);
//! * `LEGAL_TMP_FORBIDDEN` — a scratch operand where the target's form must omit it (the op
//!   table's per-target [`TmpRule::Forbidden`]). A *missing* scratch operand is never reported
//!   here: `insert-scratch` adds the ones a target requires.
//!
//! Ops no table row describes (infrastructure, `arith`, `scf`) pass. Ops
//! with a `memref` operand are the lowered form and are skipped, like PTOAS does. The pass
//! never modifies the module.

use crate::binding::{Bound, bind_oriented};
use crate::legality::{self, CheckKind, Dispute, Effective, Extent, Multiple, ShapeReq, Table, Variant};
use crate::pipeline::Changed;
use crate::target::{Target, TargetId};
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::{Module, OpId, Payload, ValueDef, ValueId};
use pto_ir::ops::is_mlir_memref as is_memref;
use pto_ir::ops::{Family, Opcode, SlotKind, TmpRule};
use pto_ir::tile_rules::{check_tile, dims_text, layout_alternatives, layout_change_text, view_mismatch};
use pto_ir::types::{BLayout, Dim, ElemType, SLayout, TileDesc, Type};

/// Runs the pass: rewrites the layouts the target fixes (one note each in `notes`), then
/// reports every illegal tuple of the module for `target`.
pub fn run(module: &mut Module, target: &Target, notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    let table = legality::table(target.id);
    let inferred = crate::layout::infer_level1_layouts(module, table);
    let changed = fix_layouts(module, target, notes)?;
    check_module_arch(module, target)?;
    // The table's verdicts first (an op the target lacks says more than the size of its tiles).
    let mut diags = check_module(module, table);
    diags.0.extend(check_tile_sizes(module, target).0);
    if diags.has_errors() {
        return Err(diags);
    }
    notes.0.extend(diags.0);
    Ok(if inferred == Changed::Yes { Changed::Yes } else { changed })
}

/// `ZZ (row_major/row_major)`-style name of a layout.
fn layout_name(b: BLayout, s: SLayout) -> String {
    let short = match (b, s) {
        (BLayout::RowMajor, SLayout::NoneBox) => "ND",
        (BLayout::ColMajor, SLayout::NoneBox) => "DN",
        (BLayout::ColMajor, SLayout::RowMajor) => "Nz",
        (BLayout::RowMajor, SLayout::ColMajor) => "Zn",
        (BLayout::RowMajor, SLayout::RowMajor) => "Zz",
        (BLayout::ColMajor, SLayout::ColMajor) => "Nn",
    };
    format!("{short} ({}/{})", b.name(), s.name())
}

/// The layout `target` gives a tile described by `d`, when it differs from the written one.
fn fixed_for(target: &Target, d: &TileDesc) -> Option<TileDesc> {
    let f = target.fixed_layout(d.loc)?;
    let fixed = TileDesc { blayout: f.blayout, slayout: f.slayout, fractal: f.fractal.unwrap_or(d.fractal), ..*d };
    (fixed != *d).then_some(fixed)
}

/// When the module's `pto.target_arch` names another target than `target`, the module (its
/// layouts already fixed for `target`) must also pass that target's table, as `ptoas` runs its
/// op verifiers against the module's `pto.target_arch` at parse time (`PTO.cpp:245-297`:
/// `getVerifierTargetArch`), after its parser gave `left` tiles the `--pto-arch` layout, and
/// lowers for `--pto-arch` (`tools/ptoas/ptoas.cpp:998-1001` overrides the attribute after
/// parsing). Where `ptoas`'s verifiers for the module's target do not check the layouts that
/// target fixes ([`Target::ptoas_verifies_fixed_layouts`]), the check sees them as that target
/// fixes them. The first op the module's target rejects makes a `LEGAL_TARGET_CONFLICT` error.
fn check_module_arch(m: &Module, target: &Target) -> Result<(), Diagnostics> {
    let Ok(Some(arch)) = crate::target::module_arch(m) else { return Ok(()) };
    if arch.id == target.id {
        return Ok(());
    }
    let own = Target::get(arch.id);
    let mut seen = m.clone();
    if !own.ptoas_verifies_fixed_layouts {
        fix_layouts(&mut seen, own, &mut Diagnostics::default())?;
    }
    let rejected = check_module(&seen, legality::table(arch.id));
    match rejected.0.into_iter().find(|d| d.is_error()) {
        Some(first) => Err(Diagnostics(vec![crate::target::conflict_error(&arch, target, &first)])),
        None => Ok(()),
    }
}

/// Gives every tile at a location whose layout `target` fixes that layout (see the module
/// docs), adding a `LEGAL_LAYOUT_REWRITTEN` note per rewritten tile definition (allocation,
/// function argument or SSA result; values that only carry a tile through `scf` are not
/// listed again).
///
/// The module's `pto.target_arch`, when it names another target, is checked afterwards
/// ([`check_module_arch`]).
pub fn fix_layouts(m: &mut Module, target: &Target, notes: &mut Diagnostics) -> Result<Changed, Diagnostics> {
    let fixes = |t: &Type| -> Option<Type> {
        match t {
            Type::Tile(d) => fixed_for(target, d).map(Type::Tile),
            Type::TileBuf(d) => fixed_for(target, d).map(Type::TileBuf),
            _ => None,
        }
    };
    // Short-form `.arg` tiles are arguments of the top-level block.
    let mut defined: Vec<ValueId> = m.body.iter().flat_map(|&r| m.region(r).blocks.iter().flat_map(|&b| m.block(b).args.clone())).collect();
    for op in m.walk() {
        let data = m.op(op);
        if data.opcode == Opcode::FuncFunc {
            if let Some(&entry) = data.regions.first().and_then(|r| m.region(*r).blocks.first()) {
                defined.extend(m.block(entry).args.iter().copied());
            }
        } else if data.opcode.spec().family != Family::ControlFlow {
            defined.extend(data.results.iter().copied());
        }
    }
    for v in defined {
        let ty = m.value_type(v);
        let (Some(old), Some(new)) = (ty.tile(), fixes(ty)) else { continue };
        let new = new.tile().copied().unwrap_or(*old);
        let name = &m.values[v.index()].name;
        let shown = if name.is_empty() { String::from("a tile") } else { format!("`%{name}`") };
        notes.push(
            Diagnostic::note(
                DiagClass::LegalLayoutRewritten,
                m.value_span(v),
                format!(
                    "{shown}: {} fixes the layout of `{}` tiles; written {}, legalized to {}",
                    target.name,
                    old.loc.name(),
                    layout_name(old.blayout, old.slayout),
                    layout_name(new.blayout, new.slayout)
                ),
            )
            .with_expected(layout_name(new.blayout, new.slayout), layout_name(old.blayout, old.slayout)),
        );
    }
    Ok(if m.retype(fixes).is_empty() { Changed::No } else { Changed::Yes })
}

/// `LEGAL_BUFFER_OVERFLOW` for every tile type larger than the target's buffer at its location
/// (reported once per type, at the first value that has it): such a tile can never be placed,
/// whatever else is live.
pub fn check_tile_sizes(m: &Module, target: &Target) -> Diagnostics {
    let mut diags = Diagnostics::default();
    let mut seen = std::collections::HashSet::new();
    for (i, v) in m.values.iter().enumerate() {
        let Some(t) = m.types.get(v.ty).tile() else { continue };
        let buf = target.buffer(t.loc);
        if t.size_bytes() <= buf.capacity || !seen.insert(v.ty) {
            continue;
        }
        let name = if v.name.is_empty() { String::from("a tile") } else { format!("`%{}`", v.name) };
        let buffer = match buf.capacity {
            0 => format!("{} has no {} buffer for `{}` tiles", target.name, buf.name, t.loc.name()),
            n => format!("the {} buffer of {} holds {n} bytes", buf.name, target.name),
        };
        diags.push(
            Diagnostic::error(
                DiagClass::LegalBufferOverflow,
                m.value_span(ValueId(i as u32)),
                format!("{name} is a {}x{}x{} tile of {} bytes; {buffer}", t.rows, t.cols, t.dtype, t.size_bytes()),
            )
            .with_expected(format!("at most {} bytes", buf.capacity), format!("{} bytes", t.size_bytes()))
            .with_note(format!("in type {}", m.types.get(v.ty))),
        );
    }
    diags
}

/// Checks a module against one table without modifying it; returns every diagnostic.
pub fn check_module(module: &Module, table: &Table) -> Diagnostics {
    let mut diags = Diagnostics::default();
    for op in module.walk() {
        check_op(module, op, table, &mut diags);
        check_ffts(module, op, table.target, &mut diags);
    }
    diags
}

/// PTOAS's verifiers of `sync.set` / `sync.wait` (`lib/PTO/IR/PTO.cpp:1624-1726`): `ffts_mode` in
/// [0, 2] on every target; on A5 a set on `PIPE_FIX` or `PIPE_MTE3` only and a wait on FIX, MTE1,
/// MTE2, MTE3 or V. (pto-isa's own A5 code also sets on S, V, MTE1 and MTE2; `ptoas` rejects them
/// and so does `pto`.)
fn check_ffts(m: &Module, op: OpId, target: TargetId, diags: &mut Diagnostics) {
    let data = m.op(op);
    let set = match data.opcode {
        Opcode::SyncSet => true,
        Opcode::SyncWait => false,
        _ => return,
    };
    let name = data.opcode.spec().full_name();
    let args = pto_ir::ops::cross_core::ffts_args(data);
    let mut reject =
        |msg: String| diags.push(Diagnostic::error(DiagClass::LegalUnsupportedTuple, m.op_span(op), msg).with_op(name.clone()));
    if let Some(mode) = args.mode.filter(|m| !(0..=2).contains(m)) {
        reject(format!("'{name}' op requires ffts_mode in range [0, 2], but got {mode}"));
    }
    if target != TargetId::A5 {
        return;
    }
    let pipe = args.pipe.unwrap_or_default();
    let allowed: &[&str] = if set { &["PIPE_FIX", "PIPE_MTE3"] } else { &["PIPE_FIX", "PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_V"] };
    if !allowed.contains(&pipe.as_str()) {
        let list: Vec<String> = allowed.iter().map(|p| format!("<{p}>")).collect();
        let what = if set { "sync.set" } else { "sync.wait" };
        reject(format!("A5 {what} expects pipe to be one of {}, not <{pipe}>", list.join(", ")));
    }
}

fn check_op(m: &Module, op: OpId, table: &Table, diags: &mut Diagnostics) {
    let data = m.op(op);
    let spec = data.opcode.spec();
    let Some((form, bound)) = bind_oriented(m, op) else { return };
    let Some(rule) = table.effective(data.opcode, Some(form)) else { return };
    // The lowered form (memref operands) is not checked, as in PTOAS.
    if data.operands.iter().chain(&data.results).any(|&v| is_memref(m.value_type(v))) {
        return;
    }
    let span = m.op_span(op);
    let name = spec.full_name();
    let sources = sources_text(&rule);
    let declared = |v: ValueId| m.value_type(v).tile().copied();

    if !rule.supported {
        diags.push(
            Diagnostic::error(DiagClass::LegalUnsupportedTuple, span, format!("`{name}` is not available on {}", table.name))
                .with_op(name.clone())
                .with_expected(format!("an op {} implements", table.name), name.clone())
                .with_note(sources),
        );
        return;
    }

    if let Some(b) = bound.iter().find(|b| m.value_type(b.value).tile().is_some_and(|t| t.dtype == ElemType::F64)) {
        diags.push(
            Diagnostic::warning(
                DiagClass::LegalF64Extension,
                span,
                format!("`{name}` {}: f64 tiles are a pto extension; {} cannot run this op (the simulator can)", b.position, table.name),
            )
            .with_op(name.clone())
            .with_operand(b.position.to_string()),
        );
        return;
    }

    if (table.tmp_rule)(&spec.tmp) == TmpRule::Forbidden {
        for b in bound.iter().filter(|b| b.slot == "tmp") {
            diags.push(
                Diagnostic::error(
                    DiagClass::LegalTmpForbidden,
                    span,
                    format!("`{name}` {}: the {} form of `{name}` takes no scratch tile", b.position, table.name),
                )
                .with_op(name.clone())
                .with_operand(b.position.to_string())
                .with_expected(format!("no tmp operand on {}", table.name), m.value_type(b.value).to_string()),
            );
        }
    }

    // Operands whose tuple the rule rejects; those failing the same way (an i8 `tadd`: src0,
    // src1 and dst) are one cause, reported once at the first of them.
    let mut failed: Vec<(&Bound, String, String, Option<&'static str>)> = Vec::new();
    // Indices into `failed` whose rejection the other reference does not share.
    let mut disputed: Vec<(usize, &Dispute)> = Vec::new();
    for b in &bound {
        let Some(r) = rule.operand(b.slot) else { continue };
        let ty = m.value_type(b.value);
        let (ok, actual) = match (ty.tile(), ty.elem_type()) {
            (Some(tile), _) => (r.variants.iter().any(|v| variant_matches(v, tile)), tuple_text(tile)),
            // Non-tile operands (GM views, scalars) answer only to element-type-only variants.
            (None, Some(e)) if r.variants.iter().any(Variant::is_untiled) => {
                (r.variants.iter().any(|v| v.is_untiled() && v.dtypes.is_none_or(|d| d.contains(&e))), format!("{e} ({ty})"))
            }
            _ => continue,
        };
        if !ok {
            failed.push((b, r.text(), actual, ty.tile().and_then(|t| r.ptoas_text(t))));
            if let (Some((variants, dispute)), Some(t)) = (r.dispute, ty.tile())
                && variants.iter().any(|v| variant_matches(v, t))
            {
                disputed.push((failed.len() - 1, dispute));
            }
        }
    }
    for (i, (b, expected, actual, ptoas)) in failed.iter().enumerate() {
        if failed[..i].iter().any(|(_, e, a, _)| e == expected && a == actual) {
            continue;
        }
        let same: Vec<String> =
            failed[i + 1..].iter().filter(|(_, e, a, _)| e == expected && a == actual).map(|(o, _, _, _)| o.position.to_string()).collect();
        let positions = std::iter::once(b.position.to_string()).chain(same.iter().cloned()).collect::<Vec<_>>().join(", ");
        let mut d = Diagnostic::error(
            DiagClass::LegalUnsupportedTuple,
            span,
            with_ptoas(*ptoas, format!("`{name}` {positions}: tuple ({actual}) is not supported on {}", table.name)),
        )
        .with_op(name.clone())
        .with_operand(b.position.to_string())
        .with_expected(expected.clone(), actual.clone())
        .with_note(sources.clone());
        if !same.is_empty() {
            d = d.with_note(format!("the same tuple is rejected for {}: one cause, reported once", same.join(", ")));
        }
        if let Some((_, dispute)) = disputed.iter().find(|(k, _)| *k == i) {
            d = d.with_note(dispute.text());
        }
        let fixes = |alt: &TileDesc| slot_accepts(m, op, &bound, &rule, b.slot, b.value, alt);
        if let Some((alt, keys)) = layout_fix(m, b.value, table, &fixes) {
            d = d.with_note(format!("help: with {keys} this operand is legal on {} ({})", table.name, tuple_text(&alt)));
        }
        diags.push(d);
    }

    for c in &rule.checks {
        if let Some((slot, locs)) = c.only {
            match first(&bound, slot).and_then(|v| m.value_type(v).tile()) {
                Some(t) if locs.contains(&t.loc) => {}
                _ => continue,
            }
        }
        let Some((at, actual)) = evaluate(m, op, &bound, &c.kind, &declared) else { continue };
        let position = bound.iter().find(|b| b.slot == at).map(|b| b.position.to_string()).unwrap_or_else(|| at.to_string());
        let own = with_ptoas(c.ptoas, format!("`{name}` {position}: {actual} breaks `{}` on {}", c.kind.text(), table.name));
        let mut d = match c.dispute {
            Some(dispute) if !dispute.rejects => {
                let text = format!("{own}: accepted, {}", dispute.text());
                diags.push(
                    Diagnostic::warning(DiagClass::LegalReferencesDisagree, span, text)
                        .with_op(name.clone())
                        .with_operand(position)
                        .with_expected(c.text(), actual)
                        .with_note(c.why.to_string()),
                );
                continue;
            }
            _ => Diagnostic::error(DiagClass::LegalUnsupportedTuple, span, own),
        }
        .with_op(name.clone())
        .with_operand(position)
        .with_expected(c.text(), actual)
        .with_note(c.why.to_string());
        if let Some(dispute) = c.dispute {
            d = d.with_note(dispute.text());
        }
        // A layout for the blamed operand under which this check and its other rules hold.
        if let Some(v) = first(&bound, at) {
            let fixes = |alt: &TileDesc| slot_accepts(m, op, &bound, &rule, at, v, alt);
            if let Some((_, keys)) = layout_fix(m, v, table, &fixes) {
                let shown = &m.values[v.index()].name;
                d = d.with_note(format!("help: with {keys} `%{shown}` satisfies this check and its other rules on {}", table.name));
            }
        }
        diags.push(d);
    }
}

/// A legality message led by `ptoas`'s verifier sentence for the same failure, when the rule
/// has one (pto's own wording follows in parentheses).
fn with_ptoas(ptoas: Option<&'static str>, own: String) -> String {
    match ptoas {
        Some(text) => format!("{text} ({own})"),
        None => own,
    }
}

/// True when value `v` in `slot`, given the tile `alt`, satisfies the slot's operand rule and
/// every check of the op that reads the slot (the other operands as declared).
fn slot_accepts(m: &Module, op: OpId, bound: &[Bound], rule: &Effective<'_>, slot: &str, v: ValueId, alt: &TileDesc) -> bool {
    let tile_of = |x: ValueId| if x == v { Some(*alt) } else { m.value_type(x).tile().copied() };
    let own = rule.operand(slot).is_none_or(|r| r.variants.iter().any(|var| variant_matches(var, alt)));
    own && rule.checks.iter().filter(|c| c.binding() && c.kind.slots().contains(&slot)).all(|c| {
        let guarded_out = c.only.is_some_and(|(s, locs)| !first(bound, s).and_then(tile_of).is_some_and(|t| locs.contains(&t.loc)));
        guarded_out || evaluate(m, op, bound, &c.kind, &tile_of).is_none()
    })
}

/// The layout, if any, that makes the tile buffer `v` pass `fixes` while it still satisfies
/// every static tile rule, found by re-running the rule on each alternative layout (fewest
/// changed keys first), with the type keys to write. Only written layouts get one: Level-1
/// tiles take their layout from inference, and a location whose layout the target fixes takes
/// that one.
fn layout_fix(m: &Module, v: ValueId, table: &Table, fixes: &dyn Fn(&TileDesc) -> bool) -> Option<(TileDesc, String)> {
    let Type::TileBuf(t) = m.value_type(v) else { return None };
    if Target::get(table.target).fixed_layout(t.loc).is_some() {
        return None;
    }
    let alt = layout_alternatives(t).into_iter().find(|alt| check_tile(alt).is_empty() && fixes(alt))?;
    Some((alt, layout_change_text(t, &alt)))
}

/// The first rule of `table` an op breaks once its tiles' run-time valid shapes are known
/// (`tile_of` gives each tile operand with its resolved valid shape): the operand shape
/// requirements and cross-operand checks that could not be decided statically. The simulator
/// calls it for ops with dynamic valid shapes and traps with the returned text.
pub fn run_time_violation(m: &Module, op: OpId, table: &Table, tile_of: TileOf<'_>) -> Option<String> {
    let (form, bound) = bind_oriented(m, op)?;
    let rule = table.effective(m.op(op).opcode, Some(form))?;
    if !rule.supported {
        return None;
    }
    for b in &bound {
        let (Some(r), Some(tile)) = (rule.operand(b.slot), tile_of(b.value)) else { continue };
        if !r.variants.iter().any(|v| variant_matches(v, &tile)) {
            return Some(format!("{}: tuple ({}) breaks `{}`", b.position, tuple_text(&tile), r.text()));
        }
    }
    for c in rule.checks.iter().filter(|c| c.binding()) {
        if let Some((slot, locs)) = c.only
            && !first(&bound, slot).and_then(tile_of).is_some_and(|t| locs.contains(&t.loc))
        {
            continue;
        }
        if let Some((_, actual)) = evaluate(m, op, &bound, &c.kind, tile_of) {
            return Some(format!("{actual} breaks `{}` ({})", c.kind.text(), c.why));
        }
    }
    None
}

fn sources_text(rule: &Effective<'_>) -> String {
    let mut s: Vec<&str> = Vec::new();
    for r in &rule.rows {
        if !r.source.is_empty() && !s.contains(&r.source) {
            s.push(r.source);
        }
    }
    format!("source: {}", s.join("; "))
}

/// The GM layout (`nd`, `dn`, `nz`) a program states for a view: the `layout` attribute of the
/// `make_tensor_view` the view comes from, directly or through `partition_view`; `None` when
/// the view is an argument or the layout is left to inference.
fn stated_gm_layout(m: &Module, view: ValueId) -> Option<&'static str> {
    let mut v = view;
    loop {
        let ValueDef::OpResult(op, _) = m.values[v.index()].def else { return None };
        let data = m.op(op);
        match data.opcode {
            Opcode::PartitionView | Opcode::Subview => v = *data.operands.first()?,
            Opcode::MakeTensorView => return data.attr("layout").and_then(|a| a.as_enum("layout")),
            _ => return None,
        }
    }
}

fn first(bound: &[Bound], slot: &str) -> Option<ValueId> {
    bound.iter().find(|b| b.slot == slot).map(|b| b.value)
}

fn extent(t: &TileDesc, e: Extent) -> Option<u32> {
    let dim = |d: Dim| match d {
        Dim::Static(n) => Some(n),
        Dim::Dynamic => None,
    };
    match e {
        Extent::Rows => Some(t.rows),
        Extent::Cols => Some(t.cols),
        Extent::ValidRows => dim(t.valid_rows),
        Extent::ValidCols => dim(t.valid_cols),
    }
}

fn shape_ok(s: &ShapeReq, t: &TileDesc) -> bool {
    match *s {
        ShapeReq::Eq(e, v) => extent(t, e).is_none_or(|x| x == v),
        ShapeReq::Range(e, lo, hi) => extent(t, e).is_none_or(|x| lo <= x && x <= hi),
        ShapeReq::Same(a, b) => match (extent(t, a), extent(t, b)) {
            (Some(x), Some(y)) => x == y,
            _ => true,
        },
        ShapeReq::PadSet => t.pad != 0,
        ShapeReq::PadNullOrZero => t.pad <= 1,
        ShapeReq::Multiple(e, n) => extent(t, e).is_none_or(|x| x.is_multiple_of(n)),
        ShapeReq::RowBytes(n) => (u64::from(t.cols) * u64::from(t.dtype.size_bytes())).is_multiple_of(u64::from(n)),
        ShapeReq::Bytes(lo, hi) => (u64::from(lo)..=u64::from(hi)).contains(&t.size_bytes()),
    }
}

/// True when a tile's tuple is one the variant accepts.
pub fn variant_matches(v: &Variant, t: &TileDesc) -> bool {
    (v.locs.is_empty() || v.locs.contains(&t.loc))
        && v.dtypes.is_none_or(|d| d.contains(&t.dtype))
        && (v.layouts.is_empty() || v.layouts.iter().any(|l| l.matches(t.blayout, t.slayout, t.fractal)))
        && v.shape.iter().all(|s| shape_ok(s, t))
}

/// `ND (row_major/none_box)`...
fn layout_text(b: BLayout, s: SLayout) -> String {
    let short = match (b, s) {
        (BLayout::RowMajor, SLayout::NoneBox) => "ND",
        (BLayout::ColMajor, SLayout::NoneBox) => "DN",
        (BLayout::ColMajor, SLayout::RowMajor) => "NZ",
        (BLayout::RowMajor, SLayout::ColMajor) => "ZN",
        (BLayout::RowMajor, SLayout::RowMajor) => "ZZ",
        (BLayout::ColMajor, SLayout::ColMajor) => "NN",
    };
    format!("{short} ({}/{})", b.name(), s.name())
}

/// The tuple of a tile: `f32, vec, ND (row_major/none_box), 16x8 valid 16x?`.
pub fn tuple_text(t: &TileDesc) -> String {
    let mut s = format!("{}, {}, {}, {}x{}", t.dtype, t.loc.name(), layout_text(t.blayout, t.slayout), t.rows, t.cols);
    if t.valid_rows != Dim::Static(t.rows) || t.valid_cols != Dim::Static(t.cols) {
        s.push_str(&format!(" valid {}x{}", t.valid_rows, t.valid_cols));
    }
    if t.fractal != 512 {
        s.push_str(&format!(", fractal {}", t.fractal));
    }
    s
}

/// How a check sees a tile operand: its declared type, or (in the simulator) the type with the
/// run-time valid shape filled in.
pub type TileOf<'a> = &'a dyn Fn(ValueId) -> Option<TileDesc>;

/// Evaluates one check; `Some((slot to blame, actual text))` when it fails.
fn evaluate(m: &Module, op: OpId, bound: &[Bound], kind: &CheckKind, tile_of: TileOf<'_>) -> Option<(&'static str, String)> {
    let ty = |slot: &str| first(bound, slot).map(|v| m.value_type(v));
    let tile = |slot: &str| first(bound, slot).and_then(tile_of);
    let dtype = |slot: &str| ty(slot).and_then(Type::elem_type);
    let constant = |slot: &str| first(bound, slot).and_then(|v| m.int_constant(v));
    match *kind {
        CheckKind::Eq { a, b } | CheckKind::Le { a, b } => {
            let x = extent(&tile(a.0)?, a.1)?;
            let y = extent(&tile(b.0)?, b.1)?;
            let ok = if matches!(kind, CheckKind::Eq { .. }) { x == y } else { x <= y };
            (!ok).then(|| (b.0, format!("{} {} {x}, {} {} {y}", a.0, a.1.name(), b.0, b.1.name())))
        }
        CheckKind::Scaled { a, factor, b } => {
            let x = extent(&tile(a.0)?, a.1)?;
            let y = extent(&tile(b.0)?, b.1)?;
            (u64::from(x) * u64::from(factor) != u64::from(y)).then(|| {
                (a.0, format!("{} {} {x} (x {factor} = {}), {} {} {y}", a.0, a.1.name(), u64::from(x) * u64::from(factor), b.0, b.1.name()))
            })
        }
        CheckKind::GmConvert { view, tile: slot, pairs, fractal } => {
            let gm = stated_gm_layout(m, first(bound, view)?)?;
            let t = tile(slot)?;
            if !pairs.iter().any(|(g, ls)| *g == gm && ls.iter().any(|l| l.matches(t.blayout, t.slayout, t.fractal))) {
                return None;
            }
            let pair = format!("{view} GM layout {} to {slot} {}", gm.to_uppercase(), layout_text(t.blayout, t.slayout));
            if t.fractal != fractal {
                return Some((slot, format!("{pair} of fractal {}", t.fractal)));
            }
            // A static leading dimension other than 1 is `ViewShape`'s (a boxed tile folds nothing).
            let (Type::PartitionView(dims, _) | Type::TensorView(dims, _)) = ty(view)? else { return None };
            let leading = &dims[..dims.len().saturating_sub(2)];
            let i = leading.iter().position(Option::is_none)?;
            Some((view, format!("{pair} from view {} (leading dim {i} dynamic)", dims_text(dims))))
        }
        CheckKind::GmLayout { view, tile: slot, pairs, vectors_any, elem_bytes } => {
            let gm = stated_gm_layout(m, first(bound, view)?)?;
            let t = tile(slot)?;
            if (vectors_any && (t.rows == 1 || t.cols == 1)) || elem_bytes.is_some_and(|n| t.dtype.size_bytes() != n) {
                return None;
            }
            let allowed = pairs.iter().find(|(g, _)| *g == gm).map_or(&[][..], |(_, ls)| *ls);
            (!allowed.iter().any(|l| l.matches(t.blayout, t.slayout, t.fractal)))
                .then(|| (slot, format!("{view} GM layout {}, {slot} {}", gm.to_uppercase(), layout_text(t.blayout, t.slayout))))
        }
        CheckKind::IntAttrIn { attr, slot, allowed } => {
            let v = m.op(op).attr(attr).and_then(|a| a.as_int())?;
            (!allowed.contains(&v)).then(|| (slot, format!("{attr} = {v}")))
        }
        CheckKind::Positive(a, e) => {
            let x = extent(&tile(a)?, e)?;
            (x == 0).then(|| (a, format!("{a} {} {x}", e.name())))
        }
        CheckKind::SumLe { a, b, c } => {
            let (x, y, z) = (extent(&tile(a.0)?, a.1)?, extent(&tile(b.0)?, b.1)?, extent(&tile(c.0)?, c.1)?);
            (u64::from(x) + u64::from(y) > u64::from(z))
                .then(|| (c.0, format!("{} {} {x} + {} {} {y} > {} {} {z}", a.0, a.1.name(), b.0, b.1.name(), c.0, c.1.name())))
        }
        CheckKind::SameBytes(a, b) => {
            let (x, y) = (tile(a)?.size_bytes(), tile(b)?.size_bytes());
            (x != y).then(|| (b, format!("{a} {x} B, {b} {y} B")))
        }
        CheckKind::SameDtype(a, b) => {
            let (x, y) = (dtype(a)?, dtype(b)?);
            (x != y).then(|| (b, format!("{a} {x}, {b} {y}")))
        }
        CheckKind::SameWidth(a, b) => {
            let (x, y) = (dtype(a)?, dtype(b)?);
            (x.size_bytes() != y.size_bytes())
                .then(|| (b, format!("{a} {x} ({} bytes), {b} {y} ({} bytes)", x.size_bytes(), y.size_bytes())))
        }
        CheckKind::Distinct(a, b) => {
            let (x, y) = (first(bound, a)?, first(bound, b)?);
            (x == y).then(|| (b, format!("{a} and {b} are the same value `%{}`", m.values[x.index()].name)))
        }
        CheckKind::SameLayout(a, b) => {
            let (x, y) = (tile(a)?, tile(b)?);
            ((x.blayout, x.slayout) != (y.blayout, y.slayout))
                .then(|| (b, format!("{a} {}, {b} {}", layout_text(x.blayout, x.slayout), layout_text(y.blayout, y.slayout))))
        }
        CheckKind::Layout { slot, layouts, when } => {
            if when.is_some_and(|w| first(bound, w).is_none()) {
                return None;
            }
            let t = tile(slot)?;
            (!layouts.iter().any(|l| l.matches(t.blayout, t.slayout, t.fractal)))
                .then(|| (slot, format!("{slot} {} fractal {}", layout_text(t.blayout, t.slayout), t.fractal)))
        }
        CheckKind::SameLoc(a, b) => {
            let (x, y) = (tile(a)?.loc, tile(b)?.loc);
            (x != y).then(|| (b, format!("{a} {}, {b} {}", x.name(), y.name())))
        }
        CheckKind::DtypeTuples { slots, tuples } => {
            let got: Option<Vec<ElemType>> = slots.iter().map(|s| dtype(s)).collect();
            let got = got?;
            let ok = tuples.iter().any(|t| t.len() == got.len() && t.iter().zip(&got).all(|(a, b)| a == b));
            let text = slots.iter().zip(&got).map(|(s, d)| format!("{s} {d}")).collect::<Vec<_>>().join(", ");
            (!ok).then(|| (slots.last().copied().unwrap_or(""), text))
        }
        CheckKind::DtypeMap { from, to, map } => {
            let (x, y) = (dtype(from)?, dtype(to)?);
            let ok = map.iter().any(|(k, v)| *k == x && v.contains(&y));
            (!ok).then(|| (to, format!("{from} {x}, {to} {y}")))
        }
        CheckKind::LocPairs { from, to, pairs } => {
            let (x, y) = (tile(from)?.loc, tile(to)?.loc);
            let ok = pairs.iter().any(|(k, v)| *k == x && v.contains(&y));
            (!ok).then(|| (to, format!("{from} {}, {to} {}", x.name(), y.name())))
        }
        CheckKind::AttrWhen { attr, kind, slot, dtypes, allowed } => {
            let d = dtype(slot)?;
            if !dtypes.contains(&d) {
                return None;
            }
            let value = m.op(op).attr(attr)?.enum_value(kind)?;
            let ok = allowed.iter().any(|a| a.eq_ignore_ascii_case(value));
            (!ok).then(|| (slot, format!("{slot} {d} with {attr} = {}", value.to_ascii_lowercase())))
        }
        CheckKind::Window { index, part, whole, size } => {
            let (r, c) = (constant(index.0)?, constant(index.1)?);
            let (p, w) = (tile(part)?, tile(whole)?);
            let (pr, pc) = (extent(&p, size.0).map_or(0, i64::from), extent(&p, size.1).map_or(0, i64::from));
            let inside = |at: i64, n: i64, whole: u32| at >= 0 && at.checked_add(n).is_some_and(|end| end <= i64::from(whole));
            let fits = inside(r, pr, w.rows) && inside(c, pc, w.cols);
            (!fits).then(|| {
                let text = format!("{}x{} at ({r}, {c}) in {}x{}", pr, pc, w.rows, w.cols);
                (index.0, format!("{part} {} {pr}, {} {pc}: {text}", size.0.name(), size.1.name()))
            })
        }
        CheckKind::IndexMultiple { index, of } => {
            let v = constant(index)?;
            let n = match of {
                Multiple::Fixed(n) => i64::from(n),
                Multiple::Block(slot) => i64::from((32 / dtype(slot)?.size_bytes()).max(1)),
            };
            (v % n != 0).then(|| (index, format!("{index} = {v}, not a multiple of {n}")))
        }
        // With PTO-AS offsets (`%v[%r, %c]`) the tile is a window of the view (checked at run time);
        // the scalars of PTOAS's padding groups (`pad_value = %v : f32`, Payload::TailGroups) are not offsets.
        CheckKind::ViewShape { .. } if first(bound, "offsets").is_some() && !matches!(m.op(op).payload, Payload::TailGroups(_)) => None,
        CheckKind::ViewShape { view, tile: slot } => match ty(view)? {
            Type::PartitionView(dims, _) | Type::TensorView(dims, _) => view_mismatch(dims, &tile(slot)?).map(|t| (view, t)),
            _ => None,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Documentation
// ---------------------------------------------------------------------------------------------

/// Renders the per-target legality tables as Markdown (the content of `docs/legality.md`).
pub fn markdown() -> String {
    let tables = legality::TABLES;
    let mut out = String::new();
    out.push_str(HEADER);
    let mut families: Vec<Family> = legality::ISA_FAMILIES.to_vec();
    for s in pto_ir::ops::all() {
        let described = tables.iter().any(|t| t.effective(s.opcode, None).is_some());
        if described && !families.contains(&s.family) {
            families.push(s.family);
        }
    }
    for family in families {
        out.push_str(&format!("\n## {} (`{family:?}`)\n\n", family.title()));
        out.push_str(&format!("| Ops | Operand | {} | {} |\n|---|---|---|---|\n", tables[0].name, tables[1].name));
        // (ops, body) groups in first-appearance order.
        let mut groups: Vec<(Vec<String>, Vec<[String; 3]>)> = Vec::new();
        for s in pto_ir::ops::all().iter().filter(|s| s.family == family) {
            if !tables.iter().any(|t| t.effective(s.opcode, None).is_some() || has_form_rows(t, s.opcode)) {
                continue;
            }
            for (label, form) in doc_entries(s.opcode) {
                let body = doc_body(s.opcode, form);
                let op_label = format!("`{}`{label}", s.name);
                match groups.iter_mut().find(|(_, b)| *b == body) {
                    Some(g) => g.0.push(op_label),
                    None => groups.push((vec![op_label], body)),
                }
            }
        }
        for (ops, body) in &groups {
            for (i, row) in body.iter().enumerate() {
                let ops_cell = if i == 0 { ops.join(", ") } else { String::new() };
                out.push_str(&format!("| {ops_cell} | {} | {} | {} |\n", cell(&row[0]), cell(&row[1]), cell(&row[2])));
            }
        }
        let mut sources: Vec<String> = Vec::new();
        for t in tables {
            for r in t.rows.iter() {
                let applies = match r.applies {
                    legality::Applies::Family(f) => f == family,
                    legality::Applies::Ops(ops) => ops.iter().any(|o| o.spec().family == family),
                };
                let line = format!("{}: {}", t.name, r.source);
                if applies && !r.source.is_empty() && !sources.contains(&line) {
                    sources.push(line);
                }
            }
        }
        out.push_str("\nSources:\n");
        for s in sources {
            out.push_str(&format!("- {s}\n"));
        }
    }
    out
}

const HEADER: &str = "# Per-target legality (A2A3 and A5)

<!-- Generated by `pto_lower::legalize::markdown()` from `pto-lower/src/legality/`; do not edit.
     Regenerate with: PTO_REGENERATE_DOCS=1 cargo test --test legality -->

The `legalize` pass checks every tile op against the table of the target given on the command
line (`--target a2a3|a5`); the module's own `pto.target_arch` attribute is never read. Each
table has a family-level default row per ISA instruction family, refined by per-op rows where
the sources give per-op facts. An operand is legal when its tuple (element type, location,
layout, shape) matches one of the alternatives listed for its slot (alternatives are separated
by `|`); `checks` relate operands and fire only when the extents involved are static (the simulator checks dynamic ones when the op runs: `SIM_TRAP`),
except the layout-converting `tload` check, for which a dynamic leading view dimension is itself the fault (pto-isa
static_asserts it). Problems
are reported as `LEGAL_UNSUPPORTED_TUPLE` (or `LEGAL_TMP_FORBIDDEN` for a scratch operand the
target's form must omit), naming the op, the operand position, the tuple found and the tuples
allowed.

Layouts: `ND` = row_major/none_box, `DN` = col_major/none_box, `NZ` = col_major outer with
row_major boxes, `ZN` = row_major outer with col_major boxes, `ZZ` = row_major/row_major;
`row_major` alone constrains only the outer layout.

Scratch: `required`/`optional` scratch tiles may be omitted in the Level-1 forms — `insert-scratch`
adds them; `accepted, unused` means the target ignores a given one; `forbidden` means a given
`tmp` operand is an error. `written in the DPS form` marks the 16 ops whose PTOAS `.td` declares
`PTODpsType:$tmp`: in the DPS form (`ins(...) outs(...)`, PTOAS's assembly format) the reader
rejects them without `tmp` (`PARSE_BAD_OP_SYNTAX`, naming the `.td` line), as `ptoas` does.

Choices made where the sources differ:
- pto-isa implementation facts (pto-isa notes §4) win over the PTOAS verifier, which is
  stricter in places (e.g. A5 `tadd` accepts 64-bit integers). Integer sets taken from PTOAS
  accept both signednesses (PTOAS checks only the width); sets from the pto-isa notes use the
  notes' explicit lists (A2A3 elementwise arithmetic: signed `i16`/`i32`).
- `left` tiles must have the target's TileLeft layout: `ZZ` on A2A3, `NZ` on A5 (PTOAS
  instead rewrites the written `blayout` of every `left` tile from the target at parse time).
- The runtime valid-shape equalities the NPU code only asserts in debug builds are enforced
  (A2A3 tile-scalar ops silently do nothing when they fail).
";

/// The rules of one op on both targets ([`legality::TABLES`] order), as [`markdown`] shows
/// them: one entry per operand form when some row is form-specific (labelled
/// ` (ins -> outs)`), else one entry with an empty label; each entry lists `[aspect, first
/// target, second target]` rows (operand slots, `tmp`, `checks`, `op` availability). Empty when
/// no table describes the op (infrastructure, `arith`, `scf`: `legalize` does not check them).
pub fn op_rules(op: Opcode) -> Vec<(String, Vec<[String; 3]>)> {
    let tables = legality::TABLES;
    if !tables.iter().any(|t| t.effective(op, None).is_some() || has_form_rows(t, op)) {
        return Vec::new();
    }
    doc_entries(op).into_iter().map(|(label, form)| (label, doc_body(op, form))).collect()
}

fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn has_form_rows(t: &Table, op: Opcode) -> bool {
    let forms = op.parsed().forms.len();
    (0..forms).any(|f| t.effective(op, Some(f)).is_some_and(|e| e.rows.iter().any(|r| r.form.is_some())))
}

/// The doc entries of an op: one per form when some row is form-specific, else one.
fn doc_entries(op: Opcode) -> Vec<(String, Option<usize>)> {
    let tables = legality::TABLES;
    let forms = &op.parsed().forms;
    let specific = tables.iter().any(|t| has_form_rows(t, op));
    if !specific {
        return vec![(String::new(), None)];
    }
    forms
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let ins: Vec<&str> = f.ins.iter().map(|s| s.name.as_str()).collect();
            let outs: Vec<&str> = f.outs.iter().map(|s| s.name.as_str()).collect();
            (format!(" ({} -> {})", ins.join(", "), outs.join(", ")), Some(i))
        })
        .collect()
}

/// Rows `[aspect, a2a3 text, a5 text]` describing one op (form) on both targets.
fn doc_body(op: Opcode, form: Option<usize>) -> Vec<[String; 3]> {
    let tables = legality::TABLES;
    let spec = op.spec();
    let forms = &op.parsed().forms;
    let slot_lists: Vec<&pto_ir::ops::Form> = match form {
        Some(i) => forms.get(i).into_iter().collect(),
        None => forms.iter().collect(),
    };
    // Every slot name (for checks) and the slots that can hold a tile (whose operand rules
    // describe tile tuples); the other slots show only element-type rules, the ones the
    // legalizer applies to views and scalars.
    let mut slots: Vec<&str> = Vec::new();
    let mut tile_slots: Vec<&str> = Vec::new();
    for f in &slot_lists {
        for s in f.ins.iter().chain(&f.outs) {
            if !slots.contains(&s.name.as_str()) {
                slots.push(s.name.as_str());
            }
            if matches!(s.kind, SlotKind::Tile | SlotKind::Any) && !tile_slots.contains(&s.name.as_str()) {
                tile_slots.push(s.name.as_str());
            }
        }
    }
    let effs: Vec<Option<Effective<'_>>> = tables.iter().map(|t| t.effective(op, form)).collect();
    let mut body: Vec<[String; 3]> = Vec::new();
    if effs.iter().any(|e| e.as_ref().is_some_and(|e| !e.supported)) {
        let avail = |e: &Option<Effective<'_>>| match e {
            Some(e) if !e.supported => "not available".to_string(),
            _ => "available".to_string(),
        };
        body.push(["op".to_string(), avail(&effs[0]), avail(&effs[1])]);
    }
    let text_of = |e: &Option<Effective<'_>>, slot: &str| match e {
        Some(e) if !e.supported => "—".to_string(),
        Some(e) => match e.operand(slot) {
            Some(r) if tile_slots.contains(&slot) || r.variants.iter().any(Variant::is_untiled) => r.text(),
            _ => "any".to_string(),
        },
        None => "any".to_string(),
    };
    // One row per run of slots with identical texts on both targets.
    let mut slot_rows: Vec<(Vec<&str>, String, String)> = Vec::new();
    for slot in slots.iter().copied().filter(|s| *s != "tmp") {
        let a = text_of(&effs[0], slot);
        let b = text_of(&effs[1], slot);
        if ["any", "—"].contains(&a.as_str()) && ["any", "—"].contains(&b.as_str()) {
            continue;
        }
        match slot_rows.iter_mut().find(|(_, x, y)| *x == a && *y == b) {
            Some(r) => r.0.push(slot),
            None => slot_rows.push((vec![slot], a, b)),
        }
    }
    for (s, a, b) in slot_rows {
        body.push([s.join(", "), a, b]);
    }
    if slots.contains(&"tmp") {
        let tmp = |i: usize| {
            let mut rule = tmp_text((tables[i].tmp_rule)(&spec.tmp)).to_string();
            if !spec.ptoas_tmp.is_empty() {
                rule.push_str(", but written in the DPS form (PTOAS `PTODpsType:$tmp`)");
            }
            match &effs[i] {
                Some(e) if e.supported => match e.operand("tmp") {
                    Some(r) => format!("{rule}; {}", r.text()),
                    None => rule,
                },
                _ => rule,
            }
        };
        body.push(["tmp".to_string(), tmp(0), tmp(1)]);
    }
    let checks = |e: &Option<Effective<'_>>| -> String {
        let Some(e) = e else { return String::new() };
        if !e.supported {
            return "—".to_string();
        }
        let mut v: Vec<String> = Vec::new();
        for c in &e.checks {
            if c.kind.slots().iter().all(|s| slots.contains(s)) && c.only.is_none_or(|(s, _)| slots.contains(&s)) {
                let t = match c.dispute {
                    Some(d) if !d.rejects => format!("{} (warning only: {})", c.text(), d.text()),
                    Some(d) => format!("{} ({})", c.text(), d.text()),
                    None => c.text(),
                };
                if !v.contains(&t) {
                    v.push(t);
                }
            }
        }
        v.join("<br>")
    };
    let (ca, cb) = (checks(&effs[0]), checks(&effs[1]));
    if [&ca, &cb].iter().any(|c| !c.is_empty() && c.as_str() != "—") {
        body.push(["checks".to_string(), ca, cb]);
    }
    if body.is_empty() {
        body.push(["—".to_string(), "no constraints".to_string(), "no constraints".to_string()]);
    }
    body
}

fn tmp_text(r: TmpRule) -> &'static str {
    legality::tmp_text(r)
}
