//! The structural verifier: target-independent checks driven by the op table.
//!
//! For every op with an operand pattern (whatever its text format): operand and result arity and
//! type classes against the op's forms, attribute-decided operands (`present`), and the table's
//! constraint groups (same element type, valid shape, static shape; flat 1-D GM views); for every
//! op: required attributes and attribute kinds, definition before use, region terminators; for
//! every tile type: the static tile rules
//! ([`crate::tile_rules`]); for every function: no mixing of Level-1 tiles and Level-2 buffers.
//!
//! Per-target legality (dtype/layout tables, scratch sizes) is a later pass; it takes the
//! [`Verified`] token this module returns, so nothing can be legalized unverified.

use crate::attr::{Attr, EnumKind};
use crate::diag::{DiagClass, Diagnostic, Diagnostics, Span};
use crate::module::{Level, Module, OpId, Payload, ValueDef, ValueId};
use crate::ops::bind::{Mismatch, arity_text, kinds_fit, match_form, segments};
use crate::ops::{Opcode, SameGroup, Slot, Syntax};
use crate::tile_rules::{alignment_help, check_level1_tile, check_tile};
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
    v.check_recursion(&walk);
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

impl Verifier<'_> {
    /// A function that calls itself, directly or through others, is an error at the call that
    /// closes the cycle: a kernel's functions are inlined into straight-line AICore code, and
    /// neither `ptoas` nor pto-isa has a call stack to recurse on.
    fn check_recursion(&mut self, walk: &[OpId]) {
        let m = self.m;
        let mut func_of_call: Vec<(OpId, OpId, String)> = Vec::new(); // (call, caller, callee)
        let mut current: Option<OpId> = None;
        let name = |f: OpId| match &m.op(f).payload {
            Payload::Func { name, .. } => Some(name.as_str()),
            _ => None,
        };
        for &op in walk {
            match &m.op(op).payload {
                Payload::Func { .. } => current = Some(op),
                Payload::Call { callee } => {
                    if let Some(f) = current {
                        func_of_call.push((op, f, callee.clone()));
                    }
                }
                _ => {}
            }
        }
        let funcs: Vec<OpId> = walk.iter().copied().filter(|&o| name(o).is_some()).collect();
        let by_name = |n: &str| funcs.iter().copied().find(|&f| name(f) == Some(n));
        // Depth-first over the call graph; a call to a function on the stack closes a cycle.
        fn visit(
            f: OpId,
            calls: &[(OpId, OpId, String)],
            by_name: &dyn Fn(&str) -> Option<OpId>,
            stack: &mut Vec<OpId>,
            done: &mut HashSet<OpId>,
            found: &mut Vec<(OpId, Vec<OpId>)>,
        ) {
            if done.contains(&f) {
                return;
            }
            stack.push(f);
            for (call, _, callee) in calls.iter().filter(|(_, caller, _)| *caller == f) {
                let Some(g) = by_name(callee) else { continue };
                if let Some(at) = stack.iter().position(|&s| s == g) {
                    found.push((*call, stack[at..].to_vec()));
                } else {
                    visit(g, calls, by_name, stack, done, found);
                }
            }
            stack.pop();
            done.insert(f);
        }
        let (mut done, mut found) = (HashSet::new(), Vec::new());
        for &f in &funcs {
            visit(f, &func_of_call, &by_name, &mut Vec::new(), &mut done, &mut found);
        }
        for (call, cycle) in found {
            let mut chain: Vec<String> = cycle.iter().filter_map(|&f| name(f)).map(|n| format!("@{n}")).collect();
            chain.extend(chain.first().cloned());
            self.err(
                DiagClass::StructRecursion,
                m.op_span(call),
                format!(
                    "recursive call: {} (a kernel's functions are inlined into AICore code, which has no call stack)",
                    chain.join(" -> ")
                ),
            )
            .op = Some("func.call".into());
        }
    }

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
            // Level-1 tiles take either unboxed layout already (`check_level1_tile`).
            let help = match self.m.ty(v.ty) {
                Type::TileBuf(t) => alignment_help(t),
                _ => None,
            };
            for bad in broken {
                let span = self.m.value_span(ValueId(i as u32));
                let msg = format!("tile type breaks a static tile rule: {}", bad.rule);
                let ty = self.m.ty(v.ty).to_string();
                let alignment = bad.rule.ends_with("must be 32-byte aligned");
                let d = if bad.rule == crate::tile_rules::COL_MAJOR_ALIGNMENT && matches!(self.m.ty(v.ty), Type::TileBuf(_)) {
                    self.diags.push(Diagnostic::warning(DiagClass::StructTileShape, span, msg));
                    let last = self.diags.0.len() - 1;
                    let d = &mut self.diags.0[last];
                    d.notes.push(
                        "the references disagree: ptoas accepts this tile type (its verifier has no such rule), pto-isa's \
                         `struct Tile` static_asserts it (include/pto/common/pto_tile.hpp:1522), so the C++ for it does not compile"
                            .into(),
                    );
                    d
                } else {
                    self.err(DiagClass::StructTileShape, span, msg)
                };
                d.expected = Some(bad.expected);
                d.actual = Some(bad.actual);
                d.notes.push(format!("in type {ty}"));
                if let (true, Some(h)) = (alignment, &help) {
                    d.notes.push(h.clone());
                }
            }
        }
    }

    fn check_op(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let span = self.m.op_span(op);
        self.check_uses(op);
        if !data.opcode.parsed().forms.is_empty() {
            self.check_sig(op);
        }
        match spec.syntax {
            Syntax::ScfFor | Syntax::ScfIf | Syntax::ScfWhile => self.check_region_yields(op),
            Syntax::FuncFunc => self.check_func_returns(op),
            _ => {}
        }
        // Attribute kinds apply to every op that declares attributes.
        let parsed = data.opcode.parsed();
        let bound_form = if parsed.attrs.iter().any(|a| a.form.is_some()) { match_form(self.m, op).ok().map(|f| f.form) } else { None };
        for slot in &parsed.attrs {
            // Operands that fit no form are the form check's error, not the attribute's.
            let here = slot.form.is_none_or(|f| bound_form.is_none_or(|b| b == f));
            match data.attr(&slot.name) {
                Some(_) if !here => {
                    let msg = format!(
                        "attribute `{}` of `{}` belongs to its form {} ({}), not to the operands written",
                        slot.name,
                        spec.full_name(),
                        slot.form.unwrap_or(0),
                        parsed.forms.get(slot.form.unwrap_or(0)).map(form_text).unwrap_or_default()
                    );
                    let name = spec.full_name();
                    self.err(DiagClass::StructBadAttribute, span, msg)
                        .with_expected_mut("no such attribute".into(), slot.name.clone())
                        .op = Some(name);
                }
                None if slot.required && here => {
                    let msg = format!("`{}` requires attribute `{}`", spec.full_name(), slot.name);
                    let name = spec.full_name();
                    let kind = slot.kind.clone();
                    self.err(DiagClass::StructMissingAttribute, span, msg)
                        .with_expected_mut(format!("{} = <{}>", slot.name, kind), "absent".into())
                        .op = Some(name);
                }
                Some(a) if !attr_matches(self.m, &slot.kind, a) => {
                    let msg = format!("attribute `{}` of `{}` has the wrong kind", slot.name, spec.full_name());
                    let (name, kind, actual) = (spec.full_name(), slot.kind.clone(), a.kind_name());
                    let kind = if kind == "i32" { format!("i32 (`{} = N : i32`)", slot.name) } else { kind };
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

    /// Arity, slot kinds and constraint groups of an op with an operand pattern.
    fn check_sig(&mut self, op: OpId) {
        let data = self.m.op(op);
        let parsed = data.opcode.parsed();
        let (ins, outs, out_segment) = segments(data);
        let found = match match_form(self.m, op) {
            Ok(found) => found,
            Err(Mismatch::Arity) => return self.report_arity(op),
            Err(Mismatch::Presence { presence, given }) => {
                let span = self.m.op_span(op);
                let name = data.opcode.full_name();
                let (slot, attr) = (&presence.slot, &presence.attr);
                let value = if presence.value.is_empty() { "written".to_string() } else { presence.value.clone() };
                let (msg, expected, actual) = if given {
                    (
                        format!("`{name}` takes operand `{slot}` only when `{attr}` is {value}"),
                        format!("no `{slot}`"),
                        format!("`{slot}` given"),
                    )
                } else {
                    (format!("`{name}` needs operand `{slot}` when `{attr}` is {value}"), format!("`{slot}`"), "absent".to_string())
                };
                let d = self.err(DiagClass::StructConditionalOperand, span, msg);
                d.op = Some(name);
                d.operand = Some(slot.clone());
                d.expected = Some(expected);
                d.actual = Some(actual);
                return;
            }
        };
        let form = &parsed.forms[found.form];
        for (segment, values, idx, slots) in [("ins", ins, &found.ins, &form.ins), (out_segment, outs, &found.outs, &form.outs)] {
            for (i, (&v, &s)) in values.iter().zip(idx).enumerate() {
                self.check_kind(op, position(segment, i, Some(&slots[s].name)), &slots[s], v);
            }
        }
        let bound = found.bound(&parsed.forms, ins, outs);
        for group in &parsed.same {
            let present: Vec<(&str, ValueId)> =
                group.slots.iter().filter_map(|s| bound.iter().find(|(x, _)| &x.name == s).map(|(_, v)| (s.as_str(), *v))).collect();
            if group.what == "flat" {
                for &(name, v) in &present {
                    self.check_flat(op, name, v);
                }
            } else {
                self.check_same(op, group, &present);
            }
        }
    }

    fn report_arity(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        let (ins, outs, out_segment) = segments(data);
        let expected: Vec<String> = data
            .opcode
            .parsed()
            .forms
            .iter()
            .map(|f| format!("{} ins and {} {out_segment}", arity_text(&f.ins), arity_text(&f.outs)))
            .collect();
        let actual = format!("{} ins and {} {out_segment}", ins.len(), outs.len());
        let span = self.m.op_span(op);
        let d = self.err(DiagClass::StructArity, span, format!("`{}` has the wrong number of operands", spec.full_name()));
        d.op = Some(spec.full_name());
        d.expected = Some(expected.join(", or "));
        d.actual = Some(actual);
        d.notes.push(format!("operand pattern: {}", spec.sig));
    }

    /// The operand's type is one its slot's kind accepts.
    fn check_kind(&mut self, op: OpId, at: String, slot: &Slot, v: ValueId) {
        let ty = self.m.value_type(v);
        if slot.kind.accepts(ty) {
            return self.check_scalar_class(op, at, slot, ty);
        }
        let name = self.m.op(op).opcode.full_name();
        let actual = format!("{} ({})", ty.class_name(), ty);
        let span = self.m.op_span(op);
        let near = fitting_neighbour(self.m, op);
        let d = self.err(DiagClass::StructTypeClass, span, format!("`{name}` {at} must be {}", slot.kind.describe()));
        d.op = Some(name);
        d.operand = Some(at);
        d.expected = Some(slot.kind.describe().to_string());
        d.actual = Some(actual);
        if let Some(near) = near {
            d.notes.push(format!("did you mean `{near}`? its operands fit these"));
        }
    }

    /// A scalar operand's type is one the ODS class of its slot admits (`ptoas`: `'pto.tlrelu'
    /// op operand #1 must be 32-bit float, but got 'f16'`).
    fn check_scalar_class(&mut self, op: OpId, at: String, slot: &Slot, ty: &Type) {
        let (Some(class), Type::Scalar(e)) = (slot.class, ty) else { return };
        if class.admits(*e) {
            return;
        }
        let name = self.m.op(op).opcode.full_name();
        let span = self.m.op_span(op);
        let d = self.err(DiagClass::StructTypeClass, span, format!("`{name}` {at} must be {}, but got `{ty}`", class.describe()));
        d.op = Some(name);
        d.operand = Some(at);
        d.expected = Some(class.describe().to_string());
        d.actual = Some(ty.to_string());
    }

    /// A `dtype`, `valid` or `shape` group: every present operand agrees with the first.
    fn check_same(&mut self, op: OpId, group: &SameGroup, present: &[(&str, ValueId)]) {
        let Some(&(first_name, first)) = present.first() else { return };
        for &(name, v) in &present[1..] {
            let (a, b) = (self.m.value_type(first), self.m.value_type(v));
            let Some((class, what, expected, actual)) = disagreement(&group.what, a, b) else { continue };
            let op_name = self.m.op(op).opcode.full_name();
            let span = self.m.op_span(op);
            let msg = format!("`{op_name}` operands `{first_name}` and `{name}` must have the same {what}");
            let d = self.err(class, span, msg);
            d.op = Some(op_name);
            d.operand = Some(name.to_string());
            d.expected = Some(format!("{expected} (as `{first_name}`)"));
            d.actual = Some(actual);
        }
    }

    /// A `flat` operand: a static GM view of rank >= 1 whose dimensions but the last are 1.
    fn check_flat(&mut self, op: OpId, name: &str, v: ValueId) {
        let ty = self.m.value_type(v);
        let Some(problem) = not_flat(ty) else { return };
        let op_name = self.m.op(op).opcode.full_name();
        let span = self.m.op_span(op);
        let msg = format!("`{op_name}` operand `{name}` must be a static, flat, logically 1-D GM view: {problem}");
        let actual = ty.to_string();
        let d = self.err(DiagClass::StructNotFlat, span, msg);
        d.op = Some(op_name);
        d.operand = Some(name.to_string());
        d.expected = Some("a static GM view with every dimension but the last equal to 1".into());
        d.actual = Some(actual);
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

/// How two operands of a `dtype`/`valid`/`shape` group disagree: (class, what, expected,
/// actual), or `None` when they agree or the group does not apply to their types.
fn disagreement(what: &str, a: &Type, b: &Type) -> Option<(DiagClass, &'static str, String, String)> {
    match what {
        "dtype" => {
            let (x, y) = (a.elem_type()?, b.elem_type()?);
            (x != y).then(|| (DiagClass::StructDtypeMismatch, "element type", x.to_string(), y.to_string()))
        }
        "valid" => {
            let (x, y) = (a.tile()?, b.tile()?);
            let same = valid_compatible(x.valid_rows, y.valid_rows) && valid_compatible(x.valid_cols, y.valid_cols);
            let text = |t: &crate::types::TileDesc| format!("{}x{}", t.valid_rows, t.valid_cols);
            (!same).then(|| (DiagClass::StructValidShapeMismatch, "valid shape", text(x), text(y)))
        }
        "shape" => {
            let (x, y) = (static_shape(a)?, static_shape(b)?);
            let text = |s: &[Option<u64>]| s.iter().map(|d| d.map_or("?".to_string(), |n| n.to_string())).collect::<Vec<_>>().join("x");
            (x != y).then(|| (DiagClass::StructShapeMismatch, "static shape", text(&x), text(&y)))
        }
        _ => None,
    }
}

/// A tile's capacity `[rows, cols]` or a view's dimensions.
fn static_shape(ty: &Type) -> Option<Vec<Option<u64>>> {
    match ty.tile() {
        Some(t) => Some(vec![Some(t.rows as u64), Some(t.cols as u64)]),
        None => ty.view_shape(),
    }
}

/// Why a type is not a static, flat, logically 1-D GM view (`None` when it is).
fn not_flat(ty: &Type) -> Option<String> {
    let Some(shape) = ty.view_shape() else { return Some("its shape is not a list of static dimensions".into()) };
    if let Type::Opaque(text) = ty
        && let Some(space) = text.split("#pto.address_space<").nth(1).and_then(|r| r.split('>').next())
        && space != "gm"
    {
        return Some(format!("it lives in `{space}`, not in GM"));
    }
    if shape.is_empty() {
        return Some("it has rank 0".into());
    }
    if shape.iter().any(Option::is_none) {
        return Some("its shape is dynamic".into());
    }
    let outer = &shape[..shape.len() - 1];
    if outer.iter().any(|d| *d != Some(1)) {
        return Some("a dimension other than the last is not 1".into());
    }
    None
}

fn valid_compatible(a: Dim, b: Dim) -> bool {
    match (a, b) {
        (Dim::Static(x), Dim::Static(y)) => x == y,
        _ => true,
    }
}

/// Whether attribute `a` is of pattern kind `kind`. `i32` is ODS's `I32Attr`: an integer typed
/// `: i32` (MLIR reads a bare `0` as `i64`, which `ptoas` rejects: "failed to satisfy
/// constraint: 32-bit signless integer attribute").
fn attr_matches(m: &Module, kind: &str, a: &Attr) -> bool {
    match kind {
        "any" => true,
        "int" => matches!(a, Attr::Int(..)),
        "i32" => matches!(a, Attr::Int(_, Some(t)) if *m.ty(*t) == Type::Scalar(crate::types::ElemType::I32)),
        "bool" => matches!(a, Attr::Bool(_) | Attr::Unit),
        "float" => matches!(a, Attr::Float(..) | Attr::Int(..)),
        "string" => matches!(a, Attr::Str(_)),
        "type" => matches!(a, Attr::Type(_)),
        enum_kind => match a {
            Attr::Enum(e) => EnumKind::find(enum_kind).is_some_and(|(i, _)| i == e.kind as usize),
            // PTOAS writes some enums as raw integers: the index of the value.
            Attr::Int(i, _) => EnumKind::find(enum_kind).is_some_and(|(_, k)| usize::try_from(*i).is_ok_and(|i| i < k.values.len())),
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

/// An op named like `op` (edit distance 1 or 2: `tadds` for `tadd`) of the same dialect and
/// syntax whose operand pattern takes `op`'s operands, the closest first: what a user who wrote
/// `tadds %a, %b` with two tiles meant.
fn fitting_neighbour(m: &Module, op: OpId) -> Option<String> {
    let data = m.op(op);
    let spec = data.opcode.spec();
    let (ins, outs, _) = segments(data);
    let mut best: Option<(usize, String)> = None;
    for other in crate::ops::all() {
        if other.dialect != spec.dialect || other.syntax != spec.syntax || other.name == spec.name {
            continue;
        }
        let d = crate::ops::edit_distance(spec.name, other.name);
        if d == 0 || d > 2 || best.as_ref().is_some_and(|b| b.0 <= d) {
            continue;
        }
        if kinds_fit(m, other.opcode, ins, outs) {
            best = Some((d, other.full_name()));
        }
    }
    best.map(|b| b.1)
}

/// A form's slots as `src, tmp? -> dst` (for messages).
fn form_text(f: &crate::ops::Form) -> String {
    let side = |slots: &[crate::ops::Slot]| {
        slots.iter().map(|s| format!("{}{}", s.name, if s.optional { "?" } else { "" })).collect::<Vec<_>>().join(", ")
    };
    format!("{} -> {}", side(&f.ins), side(&f.outs))
}
