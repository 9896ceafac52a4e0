//! Example programs for the ops without an operand pattern: the PTOAS ops that have a text
//! format of their own (`OpSpec::format`: sync, pipes, async DMA, lowered forms) and the ops
//! whose syntax class alone describes them (views, `alloc_tile`, `arith`, `scf`, `func`).
//!
//! A format is walked item by item ([`FormatItem`]): every `$v` becomes a function argument,
//! every `$t` spells the type of the value it follows, enums take their kind's first value,
//! optional groups are left out. The op table gives these ops' syntax but not their operand
//! types, so the types such an example shows are placeholders (`index` unless a family default
//! is known); [`uses_placeholders`] says when. The syntax classes have one program each.

use pto_ir::attr::EnumKind;
use pto_ir::ops::{DictKey, Family, FormatItem, Opcode, Syntax};
use std::fmt::Write;

/// The tile buffer the sketches use.
const TILE: &str = "!pto.tile_buf<vec, 16x16xf32>";

/// True when the example of `op` is walked from a text format that names operands or types
/// without an operand pattern to type them: its types are placeholders.
pub fn uses_placeholders(op: Opcode) -> bool {
    fn typed(items: &[FormatItem]) -> bool {
        items.iter().any(|i| match i {
            FormatItem::Value | FormatItem::Values | FormatItem::ValueOrInt | FormatItem::Type | FormatItem::Result => true,
            FormatItem::Group(_, inner) | FormatItem::Optional(inner) => typed(inner),
            _ => false,
        })
    }
    let spec = op.spec();
    spec.sig.is_empty() && typed(&op.parsed().format)
}

/// A complete program that uses `op` once (with the attributes `modes`, name and text).
pub fn program(op: Opcode, func: &str, modes: &[(String, String)]) -> String {
    let spec = op.spec();
    let mut k = Kernel::default();
    match spec.syntax {
        Syntax::Module => {
            return format!("module attributes {{pto.target_arch = \"a2a3\"}} {{\n  func.func @{func}() {{\n    return\n  }}\n}}\n");
        }
        Syntax::FuncFunc => return format!("func.func @kernel(%x: {TILE}, %n: index) {{\n  return\n}}\n"),
        Syntax::FuncCall => {
            return "func.func @callee(%x: index) -> index {\n  return %x : index\n}\nfunc.func @caller() -> index {\n  %c4 = arith.constant 4 : index\n  %r = func.call @callee(%c4) : (index) -> index\n  return %r : index\n}\n".to_string();
        }
        Syntax::Query => k.line(format!("%r = {}", spec.full_name())),
        Syntax::MakeTensorView | Syntax::PartitionView => {
            k.arg("ptr", "!pto.ptr<f32>");
            let (c1, c16) = (k.index(1), k.index(16));
            k.line(format!(
                "%view = pto.make_tensor_view %ptr, shape = [%{c16}, %{c16}], strides = [%{c16}, %{c1}] : !pto.tensor_view<16x16xf32>"
            ));
            if spec.syntax == Syntax::PartitionView {
                let c0 = k.index(0);
                k.line(format!(
                    "%part = {} %view, offsets = [%{c0}, %{c0}], sizes = [%{c16}, %{c16}] : !pto.tensor_view<16x16xf32> -> !pto.partition_tensor_view<16x16xf32>",
                    spec.full_name()
                ));
            }
        }
        Syntax::AllocTile => k.line(format!("%tile = pto.alloc_tile : {TILE}")),
        Syntax::Cast => {
            k.arg("src", TILE);
            k.line(format!("%dst = {} %src : {TILE} -> !pto.tile_buf<vec, 16x16xi32>", spec.full_name()));
        }
        Syntax::ArithConstant => k.line(format!("%c = {} 16 : index", spec.full_name())),
        Syntax::ArithBinary => {
            let ty = if spec.name.ends_with('f') { "f32" } else { "i32" };
            let (a, b) = (k.constant("a", "2", ty), k.constant("b", "3", ty));
            if op == Opcode::ArithNegf {
                k.line(format!("%r = {} %{a} : {ty}", spec.full_name()));
            } else {
                k.line(format!("%r = {} %{a}, %{b} : {ty}", spec.full_name()));
            }
        }
        Syntax::ArithCmp => {
            let (ty, pred) = if op == Opcode::ArithCmpf { ("f32", "olt") } else { ("i32", "slt") };
            let (a, b) = (k.constant("a", "2", ty), k.constant("b", "3", ty));
            k.line(format!("%r = {} {pred}, %{a}, %{b} : {ty}", spec.full_name()));
        }
        Syntax::ArithCast => {
            let (from, to) = cast_types(op);
            let value = if from.starts_with('f') { "2.0" } else { "2" };
            let a = k.constant("a", value, from);
            k.line(format!("%r = {} %{a} : {from} to {to}", spec.full_name()));
        }
        Syntax::ArithSelect => {
            let (a, b) = (k.constant("a", "2.0", "f32"), k.constant("b", "3.0", "f32"));
            k.line(format!("%cond = arith.cmpf olt, %{a}, %{b} : f32"));
            k.line(format!("%r = {} %cond, %{a}, %{b} : f32", spec.full_name()));
        }
        Syntax::Terminator if op == Opcode::FuncReturn => {
            return format!("func.func @{func}(%x: index) -> index {{\n  return %x : index\n}}\n");
        }
        Syntax::Terminator | Syntax::ScfIf => {
            let (a, b) = (k.index(1), k.index(2));
            k.line(format!("%cond = arith.cmpi slt, %{a}, %{b} : index"));
            k.line(format!("%r = scf.if %cond -> (index) {{\n    scf.yield %{a} : index\n  }} else {{\n    scf.yield %{b} : index\n  }}"));
        }
        Syntax::ScfFor => {
            let (c0, c1, c4) = (k.index(0), k.index(1), k.index(4));
            k.line(format!(
                "%sum = scf.for %i = %{c0} to %{c4} step %{c1} iter_args(%acc = %{c0}) -> (index) {{\n    %next = arith.addi %acc, %i : index\n    scf.yield %next : index\n  }}"
            ));
        }
        Syntax::ScfWhile | Syntax::ScfCondition => {
            let (c0, c1, c4) = (k.index(0), k.index(1), k.index(4));
            k.line(format!(
                "%r = scf.while (%i = %{c0}) : (index) -> index {{\n    %go = arith.cmpi slt, %i, %{c4} : index\n    scf.condition(%go) %i : index\n  }} do {{\n  ^bb0(%j: index):\n    %next = arith.addi %j, %{c1} : index\n    scf.yield %next : index\n  }}"
            ));
        }
        _ if op == Opcode::ScfExecuteRegion => {
            k.line("%r = scf.execute_region -> index {\n    %c = arith.constant 1 : index\n    scf.yield %c : index\n  }".to_string());
        }
        _ if op == Opcode::ScfIndexSwitch => {
            let (c0, c1) = (k.index(0), k.index(1));
            k.line(format!(
                "%r = \"scf.index_switch\"(%{c1}) <{{cases = array<i64: 0>}}> ({{\n    scf.yield %{c1} : index\n  }}, {{\n    scf.yield %{c0} : index\n  }}) : (index) -> index"
            ));
        }
        _ if op == Opcode::MemrefAlloc => k.line("%m = memref.alloc() : memref<16x16xf32, #pto.address_space<vec>>".to_string()),
        _ if op == Opcode::MemrefReinterpretCast => {
            let (c0, c1, c16) = (k.index(0), k.index(1), k.index(16));
            k.arg("src", "memref<16xf32, #pto.address_space<gm>>");
            k.line(format!(
                "%v = memref.reinterpret_cast %src to offset: [%{c0}], sizes: [%{c1}, %{c16}], strides: [%{c16}, %{c1}] : memref<16xf32, #pto.address_space<gm>> to memref<1x16xf32, strided<[16, 1], offset: ?>, #pto.address_space<gm>>"
            ));
        }
        _ => {
            let line = k.walk(op, modes);
            k.line(line);
        }
    }
    k.finish(func)
}

/// The source and result types an `arith` cast example converts between.
fn cast_types(op: Opcode) -> (&'static str, &'static str) {
    match op {
        Opcode::ArithIndexCast | Opcode::ArithIndexCastui => ("index", "i32"),
        Opcode::ArithExtsi | Opcode::ArithExtui => ("i16", "i32"),
        Opcode::ArithTrunci => ("i32", "i16"),
        Opcode::ArithExtf => ("f16", "f32"),
        Opcode::ArithTruncf => ("f32", "f16"),
        Opcode::ArithSitofp | Opcode::ArithUitofp => ("i32", "f32"),
        Opcode::ArithFptosi | Opcode::ArithFptoui | Opcode::ArithBitcast => ("f32", "i32"),
        _ => ("i32", "i32"),
    }
}

/// A function being written: arguments, constants, lines.
#[derive(Default)]
struct Kernel {
    args: Vec<(String, String)>,
    consts: Vec<(String, String)>,
    lines: Vec<String>,
}

impl Kernel {
    fn arg(&mut self, name: &str, ty: &str) -> String {
        self.args.push((name.to_string(), ty.to_string()));
        name.to_string()
    }
    /// `%name = arith.constant value : ty` (a float type's integer value gets its `.0`, as MLIR
    /// wants).
    fn constant(&mut self, name: &str, value: &str, ty: &str) -> String {
        let float = pto_ir::types::ElemType::parse(ty).is_some_and(|e| e.is_float());
        let value = if float && !value.contains(['.', 'e', 'E']) { format!("{value}.0") } else { value.to_string() };
        if !self.consts.iter().any(|(n, _)| n == name) {
            self.consts.push((name.to_string(), format!("%{name} = arith.constant {value} : {ty}")));
        }
        name.to_string()
    }
    fn index(&mut self, n: i64) -> String {
        self.constant(&format!("c{n}"), &n.to_string(), "index")
    }
    fn line(&mut self, l: String) {
        self.lines.push(l);
    }
    fn finish(self, func: &str) -> String {
        let params = self.args.iter().map(|(n, t)| format!("%{n}: {t}")).collect::<Vec<_>>().join(", ");
        let mut out = format!("func.func @{func}({params}) {{\n");
        for (_, c) in &self.consts {
            let _ = writeln!(out, "  {c}");
        }
        for l in &self.lines {
            let _ = writeln!(out, "  {l}");
        }
        out.push_str("  return\n}\n");
        out
    }

    /// The op's statement, walked from its text format.
    fn walk(&mut self, op: Opcode, modes: &[(String, String)]) -> String {
        let spec = op.spec();
        let mut w = Walker {
            kernel: self,
            values: Vec::new(),
            typed: 0,
            results: Vec::new(),
            family: spec.family,
            sig: sig_slots(op),
            enum_uses: Vec::new(),
            cross_core: matches!(op, Opcode::SyncSet | Opcode::SyncWait),
        };
        let mut body = String::new();
        w.items(&op.parsed().format, &mut body, modes);
        let lhs = if w.results.is_empty() {
            String::new()
        } else {
            let outs = op.parsed().forms.first().map(|f| f.outs.clone()).unwrap_or_default();
            let names: Vec<String> =
                (0..w.results.len()).map(|i| outs.get(i).map_or_else(|| format!("%r{i}"), |s| format!("%{}", s.name))).collect();
            format!("{} = ", names.join(", "))
        };
        format!("{lhs}{}{}{body}", spec.full_name(), if body.starts_with(['[', '(', '<']) || body.is_empty() { "" } else { " " })
    }
}

/// An op's `ins` slots, for a format walked with an operand pattern (`tassign`).
fn sig_slots(op: Opcode) -> Vec<pto_ir::ops::Slot> {
    op.parsed().forms.first().map(|f| f.ins.clone()).unwrap_or_default()
}

struct Walker<'k> {
    kernel: &'k mut Kernel,
    /// The arguments made for `$v` items, in order.
    values: Vec<String>,
    /// How many of them a `$t` has typed.
    typed: usize,
    /// Result types.
    results: Vec<String>,
    family: Family,
    sig: Vec<pto_ir::ops::Slot>,
    /// The enum kinds spelled so far.
    enum_uses: Vec<String>,
    /// `sync.set` / `sync.wait`: their pipe is one every target takes (PTOAS's A5 verifier
    /// allows a set on FIX or MTE3 only, `PTO.cpp:1636-1646`).
    cross_core: bool,
}

impl Walker<'_> {
    /// The next value of enum `kind` in this statement ([`nth_value`]).
    fn next_value(&mut self, kind: &str) -> &'static str {
        if self.cross_core && kind == "pipe" {
            return "PIPE_MTE3";
        }
        let n = self.enum_uses.iter().filter(|k| *k == kind).count();
        self.enum_uses.push(kind.to_string());
        nth_value(kind, n)
    }

    /// The type of the `i`-th value: from the operand pattern when there is one, else the
    /// family's default for the first value, else `index`.
    fn value_type(&self, i: usize) -> &'static str {
        use pto_ir::ops::SlotKind;
        match self.sig.get(i).map(|s| s.kind) {
            Some(SlotKind::Tile) => return TILE,
            Some(SlotKind::Scalar) => return "i64",
            _ => {}
        }
        match (self.family, i) {
            (Family::View, 0) => "!pto.ptr<f32>",
            (Family::Alloc | Family::Pipe, 0) => TILE,
            _ => "index",
        }
    }

    fn value(&mut self) -> String {
        let i = self.values.len();
        let name = self.sig.get(i).map_or_else(|| format!("v{i}"), |s| s.name.clone());
        let ty = self.value_type(i);
        self.kernel.arg(&name, ty);
        self.values.push(name.clone());
        format!("%{name}")
    }

    fn items(&mut self, items: &[FormatItem], out: &mut String, modes: &[(String, String)]) {
        for item in items {
            let piece = match item {
                FormatItem::Literal(t) => t.clone(),
                FormatItem::Value | FormatItem::Values | FormatItem::ValueOrInt | FormatItem::ValuesOrInts => self.value(),
                FormatItem::Int => "0".to_string(),
                FormatItem::Ints => "16, 16".to_string(),
                FormatItem::Str => "\"x = \"".to_string(),
                FormatItem::Bool => "false".to_string(),
                FormatItem::Region => "{\n  }".to_string(),
                FormatItem::Type => {
                    let i = self.typed.min(self.values.len().saturating_sub(1));
                    self.typed += 1;
                    self.value_type(i).to_string()
                }
                FormatItem::Result => {
                    let tiles = self.sig.iter().any(|s| s.kind == pto_ir::ops::SlotKind::Tile);
                    let ty = if self.family == Family::Alloc || tiles { TILE } else { "index" };
                    self.results.push(ty.to_string());
                    ty.to_string()
                }
                FormatItem::ImplicitResult(e) => {
                    self.results.push(e.name().to_string());
                    continue;
                }
                FormatItem::StrippedEnum(kind) => format!("<{}>", self.next_value(kind)),
                FormatItem::FullEnum(kinds) => format!("#pto.{}<{}>", kinds[0], self.next_value(&kinds[0])),
                FormatItem::AttrDict => {
                    if modes.is_empty() {
                        continue;
                    }
                    format!("{{{}}}", modes.iter().map(|(n, v)| format!("{n} = {v}")).collect::<Vec<_>>().join(", "))
                }
                FormatItem::Dict(keys) => dict(keys),
                FormatItem::Group(open, inner) => {
                    let mut s = String::new();
                    self.items(inner, &mut s, modes);
                    let close = if *open == '(' { ')' } else { ']' };
                    format!("{open}{}{close}", s.trim())
                }
                FormatItem::Optional(_) => continue,
            };
            let glue = !out.is_empty() && !matches!(piece.as_str(), "," | ")" | "]") && !out.ends_with(['(', '[']);
            if glue {
                out.push(' ');
            }
            out.push_str(&piece);
        }
    }
}

fn first_value(kind: &str) -> &'static str {
    nth_value(kind, 0)
}

/// Value `n` of an enum kind (wrapping): the `n`-th use of one kind in a format takes the
/// `n`-th value, so `set_flag[<PIPE_S>, <PIPE_V>, ...]` names two different pipes.
fn nth_value(kind: &str, n: usize) -> &'static str {
    EnumKind::find(kind).and_then(|(_, k)| k.values.get(n % k.values.len().max(1)).copied()).unwrap_or("")
}

/// The enum kinds a format names (`$<pipe>`, `$#k1|k2`, `${key=<kind>}`), in order, once each.
pub fn enum_kinds(op: Opcode) -> Vec<String> {
    fn walk(items: &[FormatItem], out: &mut Vec<String>) {
        for i in items {
            let kinds: Vec<String> = match i {
                FormatItem::StrippedEnum(k) => vec![k.clone()],
                FormatItem::FullEnum(ks) => ks.clone(),
                FormatItem::Dict(keys) => keys.iter().filter_map(|k| k.enum_kind.clone()).collect(),
                FormatItem::Group(_, inner) | FormatItem::Optional(inner) => {
                    walk(inner, out);
                    Vec::new()
                }
                _ => Vec::new(),
            };
            for k in kinds {
                if !out.contains(&k) {
                    out.push(k);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(&op.parsed().format, &mut out);
    out
}

/// `{key = value, ...}` with the required keys of a `${...}` item.
fn dict(keys: &[DictKey]) -> String {
    let entries: Vec<String> = keys
        .iter()
        .filter(|k| !k.optional)
        .map(|k| match &k.enum_kind {
            Some(kind) => format!("{} = #pto.{kind}<{}>", k.name, first_value(kind)),
            None if k.name == "name" || k.name == "peer_func" => format!("{} = \"buf\"", k.name),
            None => format!("{} = 0", k.name),
        })
        .collect();
    format!("{{{}}}", entries.join(", "))
}
