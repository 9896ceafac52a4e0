//! The structural verifier: target-independent checks driven by the op table.
//!
//! For every op: operand and result arity and type classes against the op's forms, required
//! attributes and attribute kinds, the table's same-dtype / same-valid-shape groups, definition
//! before use, region terminators; for every tile type: the static tile rules
//! ([`crate::tile_rules`]); for every function: no mixing of Level-1 tiles and Level-2 buffers.
//!
//! Per-target legality (dtype/layout tables, scratch sizes) is a later pass; it takes the
//! [`Verified`] token this module returns, so nothing can be legalized unverified.

use crate::attr::{Attr, EnumKind};
use crate::diag::{DiagClass, Diagnostic, Diagnostics, Span};
use crate::module::{Level, Module, OpId, ValueDef, ValueId};
use crate::ops::{Form, Opcode, Syntax, assign_slots};
use crate::tile_rules::{check_level1_tile, check_tile};
use crate::types::{Dim, Type};
use std::collections::HashSet;

/// Proof that a module passed structural verification, with what the verifier learned.
#[derive(Debug)]
pub struct Verified {
    module: Module,
    /// The module's level.
    pub level: Level,
    /// Warnings found while verifying.
    pub warnings: Diagnostics,
}

impl Verified {
    /// Verifies `module`; on success wraps it in the token.
    pub fn new(module: Module) -> Result<Verified, Diagnostics> {
        let diags = verify(&module);
        if diags.has_errors() {
            return Err(diags);
        }
        let level = module.level();
        Ok(Verified { module, level, warnings: diags })
    }
    /// The verified module.
    pub fn module(&self) -> &Module {
        &self.module
    }
    /// Gives the module back (to transform it; re-verify afterwards).
    pub fn into_module(self) -> Module {
        self.module
    }
}

/// Runs every structural check; returns all diagnostics (errors and warnings).
pub fn verify(m: &Module) -> Diagnostics {
    let mut v = Verifier { m, diags: Diagnostics::default(), order: vec![u32::MAX; m.ops.len()] };
    let walk = m.walk();
    for (i, &op) in walk.iter().enumerate() {
        v.order[op.index()] = i as u32;
    }
    v.check_tile_types();
    for &op in &walk {
        v.check_op(op);
    }
    v.check_levels(&walk);
    v.diags
}

struct Verifier<'m> {
    m: &'m Module,
    diags: Diagnostics,
    /// Position of each op in program order (`u32::MAX`: not placed in any block).
    order: Vec<u32>,
}

/// Describes an operand position for diagnostics: `ins[1] (src1)`.
fn position(segment: &str, index: usize, slot: Option<&str>) -> String {
    match slot {
        Some(name) => format!("{segment}[{index}] ({name})"),
        None => format!("{segment}[{index}]"),
    }
}

fn arity_text(slots: &[crate::ops::Slot]) -> String {
    let required = slots.iter().filter(|s| !s.optional).count();
    if slots.last().map(|s| s.variadic).unwrap_or(false) {
        format!("at least {required}")
    } else if required == slots.len() {
        format!("{required}")
    } else {
        format!("{required} to {}", slots.len())
    }
}

impl Verifier<'_> {
    fn err(&mut self, class: DiagClass, span: Span, msg: String) -> &mut Diagnostic {
        self.diags.push(Diagnostic::error(class, span, msg));
        let last = self.diags.0.len() - 1;
        &mut self.diags.0[last]
    }

    fn check_tile_types(&mut self) {
        let mut seen = HashSet::new();
        for (i, v) in self.m.values.iter().enumerate() {
            if !seen.insert(v.ty) {
                continue;
            }
            let broken = match self.m.ty(v.ty) {
                Type::Tile(t) => check_level1_tile(t),
                Type::TileBuf(t) => check_tile(t),
                _ => Vec::new(),
            };
            for bad in broken {
                let span = self.m.value_span(ValueId(i as u32));
                let msg = format!("tile type breaks a static tile rule: {}", bad.rule);
                let ty = self.m.ty(v.ty).to_string();
                let d = self.err(DiagClass::StructTileShape, span, msg);
                d.expected = Some(bad.expected);
                d.actual = Some(bad.actual);
                d.notes.push(format!("in type {ty}"));
            }
        }
    }

    fn check_op(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let span = self.m.op_span(op);
        self.check_uses(op);
        match spec.syntax {
            Syntax::Tile => self.check_tile_op(op),
            Syntax::ScfFor | Syntax::ScfIf | Syntax::ScfWhile => self.check_region_yields(op),
            Syntax::FuncFunc => self.check_func_returns(op),
            _ => {}
        }
        // Attribute kinds apply to every op that declares attributes.
        let parsed = data.opcode.parsed();
        for slot in &parsed.attrs {
            match data.attr(&slot.name) {
                None if slot.required => {
                    let msg = format!("`{}` requires attribute `{}`", spec.full_name(), slot.name);
                    let name = spec.full_name();
                    let kind = slot.kind.clone();
                    self.err(DiagClass::StructMissingAttribute, span, msg)
                        .with_expected_mut(format!("{} = <{}>", slot.name, kind), "absent".into())
                        .op = Some(name);
                }
                Some(a) if !attr_matches(&slot.kind, a) => {
                    let msg = format!("attribute `{}` of `{}` has the wrong kind", slot.name, spec.full_name());
                    let (name, kind, actual) = (spec.full_name(), slot.kind.clone(), a.kind_name());
                    self.err(DiagClass::StructBadAttribute, span, msg).with_expected_mut(kind, actual).op = Some(name);
                }
                _ => {}
            }
        }
    }

    /// Every operand must be defined before its use (in walk order) by an op that exists.
    fn check_uses(&mut self, op: OpId) {
        let data = self.m.op(op);
        let use_pos = self.order.get(op.index()).copied().unwrap_or(0);
        for &v in data.operands.iter().chain(&data.waits) {
            let Some(value) = self.m.values.get(v.index()) else {
                let span = self.m.op_span(op);
                self.err(DiagClass::StructUndefinedValue, span, format!("operand refers to unknown value #{}", v.0));
                continue;
            };
            if let ValueDef::OpResult(def_op, _) = value.def {
                let def_pos = self.order.get(def_op.index()).copied().unwrap_or(u32::MAX);
                if def_pos >= use_pos {
                    let span = self.m.op_span(op);
                    let name = value.name.clone();
                    self.err(DiagClass::StructUndefinedValue, span, format!("value `%{name}` is used before its definition"));
                }
            }
        }
    }

    fn check_tile_op(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let parsed = data.opcode.parsed();
        let span = self.m.op_span(op);
        let ins: &[ValueId] = data.ins();
        let is_ssa = data.outs().is_empty() && !data.results.is_empty();
        let outs: &[ValueId] = if is_ssa { &data.results } else { data.outs() };
        let out_segment = if is_ssa { "results" } else { "outs" };

        // Pick the first form whose arity and operand kinds fit; failing that, the first whose
        // arity fits (its kind errors are reported below).
        let types = |vs: &[ValueId]| -> Vec<&Type> { vs.iter().map(|&v| self.m.value_type(v)).collect() };
        let (in_types, out_types) = (types(ins), types(outs));
        let chosen: Option<(&Form, Vec<usize>, Vec<usize>)> =
            parsed.forms.iter().find_map(|f| f.fit(&in_types, &out_types).map(|(a, b)| (f, a, b))).or_else(|| {
                parsed.forms.iter().find_map(|f| Some((f, assign_slots(&f.ins, ins.len())?, assign_slots(&f.outs, outs.len())?)))
            });
        let Some((form, in_slots, out_slots)) = chosen else {
            let expected: Vec<String> =
                parsed.forms.iter().map(|f| format!("{} ins and {} {out_segment}", arity_text(&f.ins), arity_text(&f.outs))).collect();
            let actual = format!("{} ins and {} {out_segment}", ins.len(), outs.len());
            let d = self.err(DiagClass::StructArity, span, format!("`{}` has the wrong number of operands", spec.full_name()));
            d.op = Some(spec.full_name());
            d.expected = Some(expected.join(", or "));
            d.actual = Some(actual);
            d.notes.push(format!("operand pattern: {}", spec.sig));
            return;
        };

        let mut by_slot: Vec<(&str, ValueId)> = Vec::with_capacity(ins.len() + outs.len());
        for (segment, values, slots, slot_list) in [("ins", ins, &in_slots, &form.ins), (out_segment, outs, &out_slots, &form.outs)] {
            for (i, (&v, &s)) in values.iter().zip(slots.iter()).enumerate() {
                let slot = &slot_list[s];
                if !by_slot.iter().any(|(n, _)| *n == slot.name) {
                    by_slot.push((slot.name.as_str(), v));
                }
                let ty = self.m.value_type(v);
                if !slot.kind.accepts(ty) {
                    let msg = format!("`{}` {} must be {}", spec.full_name(), position(segment, i, Some(&slot.name)), slot.kind.describe());
                    let actual = format!("{} ({})", ty.class_name(), ty);
                    let d = self.err(DiagClass::StructTypeClass, span, msg);
                    d.op = Some(spec.full_name());
                    d.operand = Some(position(segment, i, Some(&slot.name)));
                    d.expected = Some(slot.kind.describe().to_string());
                    d.actual = Some(actual);
                }
            }
        }

        for group in &parsed.same {
            let present: Vec<(&str, ValueId)> =
                group.slots.iter().filter_map(|s| by_slot.iter().find(|(n, _)| n == s).map(|(_, v)| (s.as_str(), *v))).collect();
            let Some(&(first_name, first)) = present.first() else { continue };
            for &(name, v) in &present[1..] {
                let (a, b) = (self.m.value_type(first).tile().copied(), self.m.value_type(v).tile().copied());
                let (Some(a), Some(b)) = (a, b) else { continue };
                if group.what == "dtype" && a.dtype != b.dtype {
                    let msg = format!("`{}` operands `{first_name}` and `{name}` must have the same element type", spec.full_name());
                    let d = self.err(DiagClass::StructDtypeMismatch, span, msg);
                    d.op = Some(spec.full_name());
                    d.operand = Some(name.to_string());
                    d.expected = Some(format!("{} (as `{first_name}`)", a.dtype));
                    d.actual = Some(b.dtype.to_string());
                }
                if group.what == "valid" && (!valid_compatible(a.valid_rows, b.valid_rows) || !valid_compatible(a.valid_cols, b.valid_cols))
                {
                    let msg = format!("`{}` operands `{first_name}` and `{name}` must have the same valid shape", spec.full_name());
                    let d = self.err(DiagClass::StructValidShapeMismatch, span, msg);
                    d.op = Some(spec.full_name());
                    d.operand = Some(name.to_string());
                    d.expected = Some(format!("{}x{} (as `{first_name}`)", a.valid_rows, a.valid_cols));
                    d.actual = Some(format!("{}x{}", b.valid_rows, b.valid_cols));
                }
            }
        }
    }

    /// `scf.for` bodies yield one value per iter_arg; `scf.if` with results needs both branches
    /// to yield them; yielded types must match the results.
    fn check_region_yields(&mut self, op: OpId) {
        let data = self.m.op(op);
        let span = self.m.op_span(op);
        let want: Vec<_> = data.results.iter().map(|&r| self.m.values[r.index()].ty).collect();
        let regions: Vec<_> = match data.opcode {
            Opcode::ScfWhile => data.regions.iter().skip(1).copied().collect(),
            _ => data.regions.clone(),
        };
        if data.opcode == Opcode::ScfIf && !want.is_empty() && regions.len() < 2 {
            self.err(DiagClass::StructRegion, span, "`scf.if` with results must have an `else` region".into());
        }
        for r in regions {
            for &b in &self.m.region(r).blocks {
                let Some(&last) = self.m.block(b).ops.last() else {
                    if !want.is_empty() {
                        self.err(DiagClass::StructRegion, span, "region must end with `scf.yield`".into());
                    }
                    continue;
                };
                let term = self.m.op(last);
                if term.opcode != Opcode::ScfYield {
                    if !want.is_empty() {
                        let s = self.m.op_span(last);
                        self.err(DiagClass::StructRegion, s, "region must end with `scf.yield`".into());
                    }
                    continue;
                }
                let got: Vec<_> = term.operands.iter().map(|&v| self.m.values[v.index()].ty).collect();
                if got != want {
                    let s = self.m.op_span(last);
                    let fmt = |tys: &[crate::types::TypeId]| tys.iter().map(|t| self.m.ty(*t).to_string()).collect::<Vec<_>>().join(", ");
                    let (e, a) = (format!("({})", fmt(&want)), format!("({})", fmt(&got)));
                    self.err(DiagClass::StructRegion, s, "`scf.yield` values do not match the enclosing op's results".into())
                        .with_expected_mut(e, a);
                }
            }
        }
    }

    fn check_func_returns(&mut self, op: OpId) {
        let data = self.m.op(op);
        let crate::module::Payload::Func { results, .. } = &data.payload else { return };
        let want = results.clone();
        for &r in &data.regions {
            for &b in &self.m.region(r).blocks {
                for &o in &self.m.block(b).ops {
                    let d = self.m.op(o);
                    if d.opcode != Opcode::FuncReturn {
                        continue;
                    }
                    let got: Vec<_> = d.operands.iter().map(|&v| self.m.values[v.index()].ty).collect();
                    if got != want {
                        let s = self.m.op_span(o);
                        let fmt =
                            |tys: &[crate::types::TypeId]| tys.iter().map(|t| self.m.ty(*t).to_string()).collect::<Vec<_>>().join(", ");
                        let (e, a) = (format!("({})", fmt(&want)), format!("({})", fmt(&got)));
                        self.err(DiagClass::StructRegion, s, "`return` values do not match the function's result types".into())
                            .with_expected_mut(e, a);
                    }
                }
            }
        }
    }

    /// A function (or a short-form program) may use Level-1 tiles or Level-2 buffers, not both.
    fn check_levels(&mut self, walk: &[OpId]) {
        let mut first_tile: Option<Span> = None;
        let mut first_buf: Option<Span> = None;
        let report = |this: &mut Self, t: Option<Span>, b: Option<Span>| {
            if let (Some(t), Some(b)) = (t, b) {
                this.err(
                    DiagClass::StructMixedLevels,
                    b,
                    "Level-2 tile buffer used in a function that also uses Level-1 tile values".into(),
                )
                .labels
                .push((t, "Level-1 tile value here".into()));
            }
        };
        for &op in walk {
            let data = self.m.op(op);
            if data.opcode == Opcode::FuncFunc {
                report(self, first_tile.take(), first_buf.take());
            }
            let span = self.m.op_span(op);
            for &v in data.results.iter().chain(&data.operands) {
                match self.m.value_type(v) {
                    Type::Tile(_) if first_tile.is_none() => first_tile = Some(span),
                    Type::TileBuf(_) if first_buf.is_none() => first_buf = Some(span),
                    _ => {}
                }
            }
        }
        report(self, first_tile, first_buf);
    }
}

fn valid_compatible(a: Dim, b: Dim) -> bool {
    match (a, b) {
        (Dim::Static(x), Dim::Static(y)) => x == y,
        _ => true,
    }
}

fn attr_matches(kind: &str, a: &Attr) -> bool {
    match kind {
        "any" => true,
        "int" => matches!(a, Attr::Int(..)),
        "bool" => matches!(a, Attr::Bool(_) | Attr::Unit),
        "float" => matches!(a, Attr::Float(..) | Attr::Int(..)),
        "string" => matches!(a, Attr::Str(_)),
        enum_kind => match a {
            Attr::Enum(e) => EnumKind::find(enum_kind).is_some_and(|(i, _)| i == e.kind as usize),
            Attr::Int(..) => true, // PTOAS accepts raw integers for enum values in some places
            _ => false,
        },
    }
}

impl Diagnostic {
    /// In-place variant of [`Diagnostic::with_expected`] for builder-style use on `&mut`.
    pub fn with_expected_mut(&mut self, expected: String, actual: String) -> &mut Diagnostic {
        self.expected = Some(expected);
        self.actual = Some(actual);
        self
    }
}
