//! Canonical printers: PTO-AS short form, Level-1 SSA and Level-2/3 DPS.
//!
//! Canonical means: one statement per line, two-space indentation, compact `tile_buf` spelling
//! with defaults omitted, enum attributes in the spelling PTOAS accepts (the stripped `<PIPE_V>`
//! where PTOAS's format takes one concrete enum attribute), and each DPS op's attributes where
//! PTOAS's format puts them: inside `ins(...)` after the last operand for `tcmp`, `tcmps`,
//! `tcvt`, `tci`, `ttri`, `trandom` (and `tcolsum` with `tmp`, `tmrgsort`'s `exhausted`, the
//! mask of `tgather`), in the format's keyword groups (`tload ... pad_mode = <PadValue>`), else
//! after `outs(...)`. Value names are kept. Parsing the output again yields a structurally equal
//! module.

use crate::format::argument_slots;
use crate::reader::Comment;
use pto_ir::attr::{Attr, EnumStyle, format_float};
use pto_ir::module::{BlockId, Module, OpData, OpId, Payload, Piece, RegionId, TextForm, ValueId};
use pto_ir::ops::{Dialect, FormatItem, Opcode, Syntax, TailGroup};
use pto_ir::types::{ElemType, Type, TypeId};
use std::collections::HashSet;
use std::fmt::Write;

mod generic;

/// Printer options.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print tile ops in this form instead of the module's own.
    pub form: Option<TextForm>,
    /// Print every op in MLIR's generic form (`"pto.tadd"(%a, %b, %c) : (...) -> ()`), as
    /// `mlir-opt --mlir-print-op-generic` does; ops `pto` keeps verbatim in a custom syntax
    /// print as written.
    pub generic: bool,
}

/// Why a module cannot be printed in the requested form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintError(pub String);

impl std::fmt::Display for PrintError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Prints a module.
pub fn print_module(m: &Module, opts: &PrintOptions) -> Result<String, PrintError> {
    print_module_with_comments(m, opts, &[])
}

/// [`print_module`], putting back the source's comments ([`crate::comments`]) where they were:
/// a comment on a line of its own goes before the op (or `.arg`) that followed it, at that op's
/// indentation; a comment after code goes at the end of the first line of that statement's op.
/// Comments after the last op of a region stay inside it, and those at the end of the file stay
/// at the end. Printing the result again gives the same text.
pub fn print_module_with_comments(m: &Module, opts: &PrintOptions, comments: &[Comment]) -> Result<String, PrintError> {
    let form = opts.form.or(m.form).unwrap_or(TextForm::Dps);
    if opts.form.is_some_and(|f| f != TextForm::Dps) && m.walk().iter().any(|&op| !m.op(op).outs().is_empty() && !is_level1_op(m, op)) {
        return Err(PrintError(
            "this module is in destination-passing style (Level 2/3); only Level-1 programs convert between `as` and `ssa`".into(),
        ));
    }
    let top_ops =
        m.body.and_then(|body| m.region(body).blocks.first()).map(|&b| m.block(b).ops.iter().copied().collect()).unwrap_or_default();
    let mut p = Printer {
        m,
        form,
        generic: opts.generic,
        out: String::new(),
        names: Vec::new(),
        top_ops,
        comments,
        next_comment: 0,
        parents: Vec::new(),
    };
    p.assign_names();
    if let Some(body) = m.body {
        let blocks = &m.region(body).blocks;
        if let Some(&top) = blocks.first() {
            for &arg in &m.block(top).args {
                let at = m.value_span(arg).start as usize;
                p.comments_before(at, 0);
                let trailing = p.take_trailing_comment(at).map(|c| format!(" {}", c.text)).unwrap_or_default();
                let ty = p.ty(m.values[arg.index()].ty);
                let _ = writeln!(p.out, ".arg {} : {ty}{trailing}", p.name(arg));
            }
            for &op in &m.block(top).ops {
                p.op(op, 0);
            }
        }
    }
    p.comments_before(usize::MAX, 0);
    Ok(p.out)
}

/// Spells one attribute value as the printers do (`#pto<cmp gt>`, `1 : i16`, `[1, 2]`).
pub fn print_attribute(m: &Module, a: &Attr) -> String {
    Printer {
        m,
        form: TextForm::Dps,
        generic: false,
        out: String::new(),
        names: Vec::new(),
        top_ops: HashSet::new(),
        comments: &[],
        next_comment: 0,
        parents: Vec::new(),
    }
    .attr(a)
}

struct Printer<'m> {
    m: &'m Module,
    form: TextForm,
    /// Print ops in MLIR's generic form ([`PrintOptions::generic`]).
    generic: bool,
    out: String,
    names: Vec<String>,
    /// The ops of the module's top-level block (PTO-AS `.const` lines live there).
    top_ops: HashSet<OpId>,
    /// The source's comments to put back, in order, and the first one not printed yet.
    comments: &'m [Comment],
    next_comment: usize,
    /// The ops being printed, outermost first (a region's comments end with its op).
    parents: Vec<OpId>,
}

/// True for an op on Level-1 tile values: its destination operands (`tstore`'s view,
/// `mgather.row`'s tile) print in the SSA / short form like its other operands.
fn is_level1_op(m: &Module, op: OpId) -> bool {
    let data = m.op(op);
    data.operands.iter().chain(&data.results).any(|&v| matches!(m.value_type(v), Type::Tile(_)))
}

/// A DPS tile op's `ins(...)` operands, the operands of its format's optional groups, and
/// which of those groups are present (from [`Payload::TailGroups`], see the reader's `dps_tail`).
fn split_tail_operands<'d>(data: &'d OpData, tail: &[TailGroup<'_>]) -> (&'d [ValueId], &'d [ValueId], Vec<bool>) {
    let groups = tail.iter().filter(|g| matches!(g, TailGroup::Operand(_))).count();
    let ins = data.ins();
    let present: Vec<bool> = match &data.payload {
        Payload::TailGroups(present) if present.len() == groups => present.clone(),
        _ => vec![false; groups],
    };
    let n_extra = present.iter().filter(|&&p| p).count().min(ins.len());
    let (written, extra) = ins.split_at(ins.len() - n_extra);
    (written, extra, present)
}

/// Whether PTOAS's format of a DPS tile op with `n_ins` / `n_outs` operands puts attribute
/// `key` inside `ins(...)`, after the operands, rather than after `outs(...)`.
fn attr_inside_ins(op: Opcode, key: &str, n_ins: usize, n_outs: usize) -> bool {
    match op {
        Opcode::TCmp | Opcode::TCmps | Opcode::TCvt | Opcode::TCi | Opcode::TTri | Opcode::TRandom => true,
        // `ins(%src, %tmp {isBinary = ..} : ..)`; without `tmp` the dictionary follows `outs`.
        Opcode::TColSum => n_ins == 2,
        // Format 2 (two outs) takes `{exhausted = ..}` after `%tmp`.
        Opcode::TMrgSort => n_outs == 2 && key == "exhausted",
        // The mask form: `ins(%src, {maskPattern = ..} : T)`.
        Opcode::TGather => n_ins == 1 && key == "maskPattern",
        _ => false,
    }
}

/// Ops whose `ins(...)` gives each operand its own type (`ins(%src : T, %scalar : i64)`).
fn ins_typed_one_by_one(op: Opcode) -> bool {
    matches!(op, Opcode::TStore | Opcode::TMov)
}

impl<'m> Printer<'m> {
    /// Keeps source names; invents unique `%vN` names for unnamed values.
    fn assign_names(&mut self) {
        let used: HashSet<&str> = self.m.values.iter().map(|v| v.name.as_str()).collect();
        let mut counter = 0usize;
        self.names = self
            .m
            .values
            .iter()
            .map(|v| {
                if !v.name.is_empty() {
                    return v.name.clone();
                }
                loop {
                    let candidate = format!("v{counter}");
                    counter += 1;
                    if !used.contains(candidate.as_str()) {
                        return candidate;
                    }
                }
            })
            .collect();
    }

    fn name(&self, v: ValueId) -> String {
        format!("%{}", self.names[v.index()])
    }

    fn ty(&self, t: TypeId) -> String {
        self.m.ty(t).to_string()
    }

    fn vty(&self, v: ValueId) -> String {
        self.ty(self.m.values[v.index()].ty)
    }

    fn list(&self, vals: &[ValueId]) -> String {
        vals.iter().map(|&v| self.name(v)).collect::<Vec<_>>().join(", ")
    }

    fn types(&self, vals: &[ValueId]) -> String {
        vals.iter().map(|&v| self.vty(v)).collect::<Vec<_>>().join(", ")
    }

    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    /// `%a, %b = ` (or `%x:2 = ` for a result group).
    fn results_prefix(&self, op: OpId) -> String {
        let res = &self.m.op(op).results;
        if res.is_empty() {
            return String::new();
        }
        let names: Vec<&str> = res.iter().map(|r| self.names[r.index()].as_str()).collect();
        if res.len() > 1
            && let Some((base, _)) = names[0].split_once('#')
        {
            let grouped = names.iter().enumerate().all(|(i, n)| *n == format!("{base}#{i}"));
            if grouped {
                return format!("%{base}:{} = ", res.len());
            }
        }
        format!("{} = ", names.iter().map(|n| format!("%{n}")).collect::<Vec<_>>().join(", "))
    }

    fn op_name(&self, op: Opcode, short: bool) -> String {
        let spec = op.spec();
        if short && spec.dialect == Dialect::Pto { spec.name.to_string() } else { spec.full_name() }
    }

    /// Prints the comments that start before byte `offset` of the source, each on its own line.
    fn comments_before(&mut self, offset: usize, depth: usize) {
        while let Some(c) = self.comments.get(self.next_comment).filter(|c| c.start < offset) {
            self.next_comment += 1;
            self.indent(depth);
            self.out.push_str(&c.text);
            self.out.push('\n');
        }
    }

    /// Takes the next comment if it follows code on the source line where the op starting at
    /// byte `offset` starts.
    fn take_trailing_comment(&mut self, offset: usize) -> Option<&'m Comment> {
        let c = self.comments.get(self.next_comment).filter(|c| c.trailing && c.line_start <= offset)?;
        self.next_comment += 1;
        Some(c)
    }

    fn op(&mut self, id: OpId, depth: usize) {
        let m = self.m;
        let span = m.op_span(id);
        self.comments_before(span.start as usize, depth);
        let trailing = self.take_trailing_comment(span.start as usize);
        let first_line = self.out.len();
        self.parents.push(id);
        self.op_text(id, depth);
        self.parents.pop();
        if let Some(c) = trailing {
            let at = self.out[first_line..].find('\n').map_or(self.out.len(), |i| first_line + i);
            self.out.insert_str(at, &format!(" {}", c.text));
        }
    }

    fn op_text(&mut self, id: OpId, depth: usize) {
        let m = self.m;
        let data = m.op(id);
        self.indent(depth);
        let prefix = self.results_prefix(id);
        self.out.push_str(&prefix);
        if self.generic && self.generic_op(id, depth) {
            self.out.push('\n');
            return;
        }
        match data.opcode.spec().syntax {
            Syntax::Tile => self.tile_op(id),
            Syntax::AllocTile => {
                let Payload::Segments(segs) = &data.payload else { return self.generic_fallback(id) };
                let mut s = self.op_name(data.opcode, false);
                let mut it = data.operands.iter();
                for (key, &present) in ["addr", "valid_row", "valid_col"].iter().zip(segs) {
                    if present == 1
                        && let Some(&v) = it.next()
                    {
                        let _ = write!(s, " {key} = {}", self.name(v));
                    }
                }
                s.push_str(&self.dict_suffix(&data.attrs));
                let _ = write!(s, " : {}", self.vty(data.results[0]));
                self.out.push_str(&s);
            }
            Syntax::MakeTensorView => {
                let Payload::Segments(segs) = &data.payload else { return self.generic_fallback(id) };
                let (n_shape, n_strides) = (segs.get(1).copied().unwrap_or(0) as usize, segs.get(2).copied().unwrap_or(0) as usize);
                let ops = &data.operands;
                let shape = self.list(&ops[1..1 + n_shape]);
                let strides = self.list(&ops[1 + n_shape..1 + n_shape + n_strides]);
                let _ = write!(
                    self.out,
                    "{} {}, shape = [{shape}], strides = [{strides}]{} : {}",
                    self.op_name(data.opcode, false),
                    self.name(ops[0]),
                    self.dict_suffix(&data.attrs),
                    self.vty(data.results[0])
                );
            }
            Syntax::PartitionView => {
                let Payload::IndexLists(lists) = &data.payload else { return self.generic_fallback(id) };
                let mut dynamic = data.operands[1..].iter();
                let mut parts = Vec::new();
                for list in lists {
                    let items: Vec<String> = list
                        .iter()
                        .map(|e| match e {
                            Some(n) => n.to_string(),
                            None => dynamic.next().map(|&v| self.name(v)).unwrap_or_default(),
                        })
                        .collect();
                    parts.push(items.join(", "));
                }
                let _ = write!(
                    self.out,
                    "{} {}, offsets = [{}], sizes = [{}]{} : {} -> {}",
                    self.op_name(data.opcode, false),
                    self.name(data.operands[0]),
                    parts.first().cloned().unwrap_or_default(),
                    parts.get(1).cloned().unwrap_or_default(),
                    self.dict_suffix(&data.attrs),
                    self.vty(data.operands[0]),
                    self.vty(data.results[0])
                );
            }
            Syntax::BracketArgs => {
                let slots = argument_slots(data.opcode);
                let args = match data.attr("args") {
                    Some(Attr::Array(a)) => a.iter().zip(slots).map(|(a, slot)| self.format_arg(a, slot)).collect::<Vec<_>>().join(", "),
                    _ => String::new(),
                };
                let rest: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "args").cloned().collect();
                let _ = write!(self.out, "{}[{args}]{}", self.op_name(data.opcode, false), self.dict_suffix(&rest));
            }
            Syntax::AngleArg => {
                let slots = argument_slots(data.opcode);
                let arg = data.attr("pipe").zip(slots.first()).map(|(a, slot)| self.format_arg(a, slot)).unwrap_or_default();
                let rest: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "pipe").cloned().collect();
                let _ = write!(self.out, "{} {arg}{}", self.op_name(data.opcode, false), self.dict_suffix(&rest));
            }
            Syntax::Query => {
                let _ = write!(self.out, "{}{}", self.op_name(data.opcode, false), self.dict_suffix(&data.attrs));
                let rt = self.m.value_type(data.results[0]);
                if *rt != Type::Scalar(ElemType::I64) {
                    let _ = write!(self.out, " : {rt}");
                }
            }
            Syntax::Cast | Syntax::ArithCast => {
                let sep = if data.opcode.spec().syntax == Syntax::ArithCast { "to" } else { "->" };
                let _ = write!(
                    self.out,
                    "{} {}{} : {} {sep} {}",
                    self.op_name(data.opcode, false),
                    self.name(data.operands[0]),
                    self.dict_suffix(&data.attrs),
                    self.vty(data.operands[0]),
                    self.vty(data.results[0])
                );
            }
            Syntax::ArithConstant => self.constant(id),
            Syntax::ArithBinary | Syntax::ArithSelect => {
                let _ = write!(
                    self.out,
                    "{} {}{} : {}",
                    self.op_name(data.opcode, false),
                    self.list(&data.operands),
                    self.dict_suffix(&data.attrs),
                    self.vty(data.results[0])
                );
            }
            Syntax::ArithCmp => {
                let pred = match data.attr("predicate") {
                    Some(Attr::Opaque(p)) => p.clone(),
                    _ => "eq".into(),
                };
                let rest: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "predicate").cloned().collect();
                let _ = write!(
                    self.out,
                    "{} {pred}, {}{} : {}",
                    self.op_name(data.opcode, false),
                    self.list(&data.operands),
                    self.dict_suffix(&rest),
                    self.vty(data.operands[0])
                );
            }
            Syntax::Terminator => {
                let name = if data.opcode == Opcode::FuncReturn { "return".to_string() } else { self.op_name(data.opcode, false) };
                self.out.push_str(&name);
                if !data.operands.is_empty() {
                    let _ = write!(self.out, " {}", self.list(&data.operands));
                }
                self.out.push_str(&self.dict_suffix(&data.attrs));
                if !data.operands.is_empty() {
                    let _ = write!(self.out, " : {}", self.types(&data.operands));
                }
            }
            Syntax::ScfCondition => {
                let _ = write!(self.out, "scf.condition({})", self.name(data.operands[0]));
                let rest = &data.operands[1..];
                if !rest.is_empty() {
                    let _ = write!(self.out, " {} : {}", self.list(rest), self.types(rest));
                }
                self.out.push_str(&self.dict_suffix(&data.attrs));
            }
            Syntax::ScfFor => self.scf_for(id, depth),
            Syntax::ScfIf => self.scf_if(id, depth),
            Syntax::ScfWhile => self.scf_while(id, depth),
            Syntax::FuncFunc => self.func(id, depth),
            Syntax::FuncCall => {
                let Payload::Call { callee } = &data.payload else { return self.generic_fallback(id) };
                let rest: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "signature").cloned().collect();
                let _ = write!(self.out, "func.call @{callee}({}){}", self.list(&data.operands), self.dict_suffix(&rest));
                if data.attr("signature").is_some() {
                    let _ = write!(self.out, " : ({}) -> ({})", self.types(&data.operands), self.types(&data.results));
                }
            }
            Syntax::Module => {
                self.out.push_str("module");
                let mut rest = Vec::new();
                for (k, a) in &data.attrs {
                    match (k.as_str(), a) {
                        ("sym_name", Attr::Symbol(s)) => {
                            let _ = write!(self.out, " @{s}");
                        }
                        _ => rest.push((k.clone(), a.clone())),
                    }
                }
                if !rest.is_empty() {
                    let _ = write!(self.out, " attributes{}", self.dict_suffix(&rest));
                }
                if let Some(&r) = data.regions.first() {
                    self.region(r, depth, 0);
                }
            }
            Syntax::Paren => self.paren_op(id),
            Syntax::Generic => self.generic_fallback(id),
        }
        self.out.push('\n');
    }

    /// An argument in a format slot: `<VALUE>` where the format takes the stripped spelling.
    fn format_arg(&self, a: &Attr, slot: &FormatItem) -> String {
        match (a, slot) {
            (Attr::Enum(e), FormatItem::StrippedEnum(_)) => format!("<{}>", e.value_name()),
            (other, _) => self.attr(other),
        }
    }

    fn constant(&mut self, id: OpId) {
        let data = self.m.op(id);
        let res = data.results[0];
        let value = data.attr("value").cloned().unwrap_or(Attr::Unit);
        let rest: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "value").cloned().collect();
        let ty = self.vty(res);
        let float_type = matches!(self.m.value_type(res), pto_ir::Type::Scalar(e) if e.is_float());
        let lit = match &value {
            Attr::Bool(b) => b.to_string(),
            // `.const %c = 2 : f32` holds an integer literal; MLIR's form wants `2.0`.
            Attr::Int(v, _) if float_type => format_float(*v as f64),
            Attr::Int(v, _) => v.to_string(),
            Attr::Float(v, _) => format_float(*v),
            other => self.attr(other),
        };
        if self.form == TextForm::Short && self.in_top_block(id) {
            // `.const %c = 1.0 : f32` (the results prefix was already written; undo it)
            let prefix = self.results_prefix(id);
            let cut = self.out.len() - prefix.len();
            self.out.truncate(cut);
            let _ = write!(self.out, ".const {} = {lit} : {ty}", self.name(res));
            return;
        }
        match value {
            Attr::Bool(_) => {
                let _ = write!(self.out, "arith.constant {lit}{}", self.dict_suffix(&rest));
            }
            _ => {
                let _ = write!(self.out, "arith.constant {lit}{} : {ty}", self.dict_suffix(&rest));
            }
        }
    }

    fn in_top_block(&self, id: OpId) -> bool {
        self.top_ops.contains(&id)
    }

    fn tile_op(&mut self, id: OpId) {
        let data = self.m.op(id);
        let scalar_out = data.outs().is_empty() && data.results.len() == 1 && matches!(self.m.value_type(data.results[0]), Type::Scalar(_));
        let dps = if data.outs().is_empty() {
            self.form == TextForm::Dps && (data.results.is_empty() || scalar_out)
        } else {
            self.form == TextForm::Dps || !is_level1_op(self.m, id)
        };
        if dps {
            return self.dps_tile_op(id, scalar_out);
        }
        let short = self.form == TextForm::Short;
        let mut s = self.op_name(data.opcode, short);
        let groups = self.operand_groups(id, short);
        if !groups.is_empty() {
            let pieces: Vec<String> = groups
                .iter()
                .map(|g| match g.as_slice() {
                    [base] => self.name(*base),
                    [base, idx @ ..] => format!("{}[{}]", self.name(*base), self.list(idx)),
                    [] => String::new(),
                })
                .collect();
            let _ = write!(s, " {}", pieces.join(", "));
        }
        s.push_str(&self.dict_suffix(&data.attrs));
        if !data.waits.is_empty() {
            let _ = write!(s, " wait({})", self.list(&data.waits));
        }
        let res = &data.results;
        // The lone type of the short form is the result's only where the reader takes it so
        // (`Opcode::has_result_form`); elsewhere it would be read as the operand's.
        if short && res.len() == 1 && data.opcode.has_result_form(1) {
            let _ = write!(s, " : {}", self.vty(res[0]));
        } else if !short || !res.is_empty() {
            let outs = if res.len() == 1 { self.vty(res[0]) } else { format!("({})", self.types(res)) };
            let operands: Vec<ValueId> = groups.concat();
            let _ = write!(s, " : ({}) -> {outs}", self.types(&operands));
        }
        self.out.push_str(&s);
    }

    /// The operands of an SSA / short-form tile op in printing order, grouped into memory
    /// operands `%v[%i, %j]` where the payload records index segments. Destination operands
    /// (`outs`) follow the `ins` in the SSA form and lead in the short form (PTO-AS writes them
    /// first, in the C++ order).
    fn operand_groups(&self, id: OpId, short: bool) -> Vec<Vec<ValueId>> {
        let data = self.m.op(id);
        let sizes: Vec<usize> = match &data.payload {
            Payload::Segments(segs) => segs.iter().map(|&n| n as usize).collect(),
            _ => vec![1; data.operands.len()],
        };
        let mut groups: Vec<Vec<ValueId>> = Vec::with_capacity(sizes.len());
        let mut pos = 0usize;
        for n in sizes {
            let Some(group) = data.operands.get(pos..pos + n) else { break };
            groups.push(group.to_vec());
            pos += n;
        }
        if short {
            let mut start = 0usize;
            let in_groups = groups
                .iter()
                .take_while(|g| {
                    let is_in = start < data.num_ins as usize;
                    start += g.len();
                    is_in
                })
                .count();
            groups.rotate_left(in_groups);
        }
        groups
    }

    /// `pto.op(%a, %b : A, B) {attrs} -> R` (the PTOAS parenthesised format).
    fn paren_op(&mut self, id: OpId) {
        let data = self.m.op(id);
        let ops = &data.operands;
        let mut s = format!("{}({}", self.op_name(data.opcode, false), self.list(ops));
        if !ops.is_empty() {
            let _ = write!(s, " : {}", self.types(ops));
        }
        s.push(')');
        s.push_str(&self.dict_suffix(&data.attrs));
        match data.results.as_slice() {
            [] => {}
            [one] => {
                let _ = write!(s, " -> {}", self.vty(*one));
            }
            many => {
                let _ = write!(s, " -> ({})", self.types(many));
            }
        }
        self.out.push_str(&s);
    }

    /// `pto.op ins(...) outs(...) {attrs}` then what the op's format lets follow (`tload`'s
    /// keyword groups, a `-> tensor<...>` result); a scalar result is `outs : T` (`tgetval`).
    fn dps_tile_op(&mut self, id: OpId, scalar_out: bool) {
        let data = self.m.op(id);
        let tail: Vec<TailGroup<'_>> = data.opcode.parsed().format.iter().filter_map(FormatItem::tail_group).collect();
        let (written, extra, present) = split_tail_operands(data, &tail);
        let outs = data.outs();
        let tail_keys: Vec<&str> = tail.iter().filter_map(|g| if let TailGroup::Attribute(k, _) = g { Some(*k) } else { None }).collect();
        let (inside, after): (Vec<_>, Vec<_>) = data
            .attrs
            .iter()
            .filter(|(k, _)| !tail_keys.contains(&k.as_str()))
            .cloned()
            .partition(|(k, _)| attr_inside_ins(data.opcode, k, written.len(), outs.len()));
        let mut s = format!("{} ins({})", self.op_name(data.opcode, false), self.ins_list(data.opcode, written, &inside));
        if !outs.is_empty() {
            let _ = write!(s, " outs({} : {})", self.list(outs), self.types(outs));
        } else if scalar_out {
            let _ = write!(s, " outs : {}", self.vty(data.results[0]));
        }
        if !data.waits.is_empty() {
            let _ = write!(s, " wait({})", self.list(&data.waits));
        }
        s.push_str(&self.dict_suffix(&after));
        let mut extra = extra.iter();
        let mut present = present.iter();
        for group in &tail {
            match *group {
                TailGroup::Result if !outs.is_empty() && !data.results.is_empty() => {
                    let _ = write!(s, " -> {}", self.types(&data.results));
                }
                TailGroup::Result => {}
                TailGroup::Operand(key) => {
                    if present.next() == Some(&true)
                        && let Some(&v) = extra.next()
                    {
                        let _ = write!(s, " {key} = {} : {}", self.name(v), self.vty(v));
                    }
                }
                TailGroup::Attribute(key, item) => {
                    if let Some(a) = data.attr(key) {
                        let _ = write!(s, " {key} = {}", self.format_arg(a, item));
                    }
                }
            }
        }
        self.out.push_str(&s);
    }

    /// The inside of `ins(...)`: `%a, %b {inside} : A, B`, or `%a : A, %b : B` for the ops whose
    /// format types each operand, with the mask form of `tgather` as `%src, {maskPattern = ..} : T`.
    fn ins_list(&self, op: Opcode, ins: &[ValueId], inside: &[(String, Attr)]) -> String {
        if ins_typed_one_by_one(op) {
            return ins.iter().map(|&v| format!("{} : {}", self.name(v), self.vty(v))).collect::<Vec<_>>().join(", ");
        }
        let mut s = self.list(ins);
        if !inside.is_empty() {
            if op == Opcode::TGather {
                s.push(',');
            }
            s.push_str(&self.dict_suffix(inside));
        }
        if !ins.is_empty() {
            let _ = write!(s, " : {}", self.types(ins));
        }
        s
    }

    fn scf_for(&mut self, id: OpId, depth: usize) {
        let data = self.m.op(id);
        let ops = &data.operands;
        let Some(&region) = data.regions.first() else { return self.generic_fallback(id) };
        let Some(&entry) = self.m.region(region).blocks.first() else { return };
        let args = self.m.block(entry).args.clone();
        let mut s = format!("scf.for {} = {} to {} step {}", self.name(args[0]), self.name(ops[0]), self.name(ops[1]), self.name(ops[2]));
        if ops.len() > 3 {
            let pairs: Vec<String> =
                args[1..].iter().zip(&ops[3..]).map(|(&a, &i)| format!("{} = {}", self.name(a), self.name(i))).collect();
            let _ = write!(s, " iter_args({}) -> ({})", pairs.join(", "), self.types(&data.results));
        }
        let iv_ty = self.m.value_type(args[0]);
        if *iv_ty != Type::Scalar(ElemType::Index) {
            let _ = write!(s, " : {iv_ty}");
        }
        self.out.push_str(&s);
        self.region(region, depth, args.len());
        self.out.push_str(&self.dict_suffix(&data.attrs));
    }

    fn scf_if(&mut self, id: OpId, depth: usize) {
        let data = self.m.op(id);
        let mut s = format!("scf.if {}", self.name(data.operands[0]));
        if !data.results.is_empty() {
            let _ = write!(s, " -> ({})", self.types(&data.results));
        }
        self.out.push_str(&s);
        for (i, &r) in data.regions.iter().enumerate() {
            if i == 1 {
                self.out.push_str(" else");
            }
            self.region(r, depth, 0);
        }
        self.out.push_str(&self.dict_suffix(&data.attrs));
    }

    fn scf_while(&mut self, id: OpId, depth: usize) {
        let data = self.m.op(id);
        let (Some(&before), Some(&after)) = (data.regions.first(), data.regions.get(1)) else { return self.generic_fallback(id) };
        let Some(&entry) = self.m.region(before).blocks.first() else { return };
        let args = self.m.block(entry).args.clone();
        let pairs: Vec<String> = args.iter().zip(&data.operands).map(|(&a, &i)| format!("{} = {}", self.name(a), self.name(i))).collect();
        let _ = write!(self.out, "scf.while ({}) : ({}) -> ({})", pairs.join(", "), self.types(&data.operands), self.types(&data.results));
        self.region(before, depth, args.len());
        self.out.push_str(" do");
        self.region(after, depth, 0);
        self.out.push_str(&self.dict_suffix(&data.attrs));
    }

    fn func(&mut self, id: OpId, depth: usize) {
        let data = self.m.op(id);
        let Payload::Func { name, visibility, results, params } = &data.payload else { return self.generic_fallback(id) };
        let mut s = String::from("func.func ");
        if let Some(v) = visibility {
            let _ = write!(s, "{v} ");
        }
        let _ = write!(s, "@{name}(");
        let arg_attrs = match data.attr("arg_attrs") {
            Some(Attr::Array(a)) => a.clone(),
            _ => Vec::new(),
        };
        if let Some(&region) = data.regions.first() {
            if let Some(&entry) = self.m.region(region).blocks.first() {
                let args: Vec<String> = self
                    .m
                    .block(entry)
                    .args
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| {
                        let extra = match arg_attrs.get(i) {
                            Some(Attr::Dict(d)) if !d.is_empty() => self.dict_suffix(d),
                            _ => String::new(),
                        };
                        format!("{}: {}{extra}", self.name(a), self.vty(a))
                    })
                    .collect();
                s.push_str(&args.join(", "));
            }
        } else {
            s.push_str(&params.iter().map(|&t| self.ty(t)).collect::<Vec<_>>().join(", "));
        }
        s.push(')');
        match results.len() {
            0 => {}
            1 => {
                let _ = write!(s, " -> {}", self.ty(results[0]));
            }
            _ => {
                let tys: Vec<String> = results.iter().map(|&t| self.ty(t)).collect();
                let _ = write!(s, " -> ({})", tys.join(", "));
            }
        }
        let attrs: Vec<_> = data.attrs.iter().filter(|(k, _)| k != "arg_attrs").cloned().collect();
        if !attrs.is_empty() {
            let _ = write!(s, " attributes{}", self.dict_suffix(&attrs));
        }
        self.out.push_str(&s);
        if let Some(&region) = data.regions.first() {
            let nargs = self.m.region(region).blocks.first().map(|&b| self.m.block(b).args.len()).unwrap_or(0);
            self.region(region, depth, nargs);
        }
    }

    /// ` {` newline, blocks, `}` at `depth`. `header_args` entry-block arguments are printed by
    /// the op header; any others get a `^label(...)` line.
    fn region(&mut self, r: RegionId, depth: usize, header_args: usize) {
        self.out.push_str(" {\n");
        let blocks: Vec<BlockId> = self.m.region(r).blocks.clone();
        for (i, &b) in blocks.iter().enumerate() {
            let block = self.m.block(b);
            let needs_label = i > 0 || block.label.is_some() || (block.args.len() > header_args);
            if needs_label {
                let label = block.label.clone().unwrap_or_else(|| format!("bb{i}"));
                self.indent(depth);
                let _ = write!(self.out, "^{label}");
                if !block.args.is_empty() {
                    let args: Vec<String> = block.args.iter().map(|&a| format!("{}: {}", self.name(a), self.vty(a))).collect();
                    let _ = write!(self.out, "({})", args.join(", "));
                }
                self.out.push_str(":\n");
            }
            for &op in &self.m.block(b).ops.clone() {
                self.op(op, depth + 1);
            }
        }
        let end = self.region_source_end(r);
        self.comments_before(end, depth + 1);
        self.indent(depth);
        self.out.push('}');
    }

    /// A source offset past every comment written inside region `r` and before anything that
    /// follows it: the first op of the op's next region, or else the end of the op.
    fn region_source_end(&self, r: RegionId) -> usize {
        let Some(&parent) = self.parents.last() else { return usize::MAX };
        let regions = &self.m.op(parent).regions;
        let next_region = regions.iter().skip_while(|&&x| x != r).nth(1);
        let first_op_of_next = next_region
            .and_then(|&n| self.m.region(n).blocks.iter().find_map(|&b| self.m.block(b).ops.first().copied()))
            .map(|op| self.m.op_span(op).start as usize);
        first_op_of_next.unwrap_or(self.m.op_span(parent).end as usize)
    }

    fn dict_suffix(&self, attrs: &[(String, Attr)]) -> String {
        if attrs.is_empty() {
            return String::new();
        }
        format!(" {}", self.dict(attrs))
    }

    fn dict(&self, attrs: &[(String, Attr)]) -> String {
        let items: Vec<String> = attrs
            .iter()
            .map(|(k, a)| {
                let key = if k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') && !k.is_empty() {
                    k.clone()
                } else {
                    format!("\"{k}\"")
                };
                match a {
                    Attr::Unit => key,
                    other => format!("{key} = {}", self.attr(other)),
                }
            })
            .collect();
        format!("{{{}}}", items.join(", "))
    }

    fn attr(&self, a: &Attr) -> String {
        match a {
            Attr::Unit => "unit".into(),
            Attr::Bool(b) => b.to_string(),
            Attr::Int(v, None) => v.to_string(),
            Attr::Int(v, Some(t)) => format!("{v} : {}", self.ty(*t)),
            Attr::Float(v, None) => format_float(*v),
            Attr::Float(v, Some(t)) => format!("{} : {}", format_float(*v), self.ty(*t)),
            Attr::Str(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")),
            Attr::Array(items) => format!("[{}]", items.iter().map(|i| self.attr(i)).collect::<Vec<_>>().join(", ")),
            Attr::Enum(e) => match e.kind().style {
                EnumStyle::Short => format!("#pto<{} {}>", e.kind_name(), e.value_name()),
                EnumStyle::Dotted => format!("#pto.{}<{}>", e.kind_name(), e.value_name()),
            },
            Attr::Type(t) => self.ty(*t),
            Attr::Symbol(s) => format!("@{s}"),
            Attr::Dict(d) => self.dict(d),
            Attr::Opaque(s) => s.clone(),
        }
    }

    fn generic_fallback(&mut self, id: OpId) {
        let data = self.m.op(id);
        let name = self.op_name(data.opcode, false);
        let Payload::Generic(pieces) = &data.payload else {
            self.out.push_str(&name);
            return;
        };
        // An op read in MLIR's generic form prints back in it, name quoted.
        if is_generic_form(pieces) {
            self.out.push_str(&format!("\"{name}\""));
        } else {
            self.out.push_str(&name);
        }
        let depth = self.current_depth();
        let text = self.pieces(pieces, id, depth, true);
        self.out.push_str(&text);
    }

    /// Depth of the line being written (counted from its indentation).
    fn current_depth(&self) -> usize {
        let line = self.out.rsplit('\n').next().unwrap_or("");
        (line.len() - line.trim_start().len()) / 2
    }

    fn pieces(&mut self, pieces: &[Piece], id: OpId, depth: usize, after_name: bool) -> String {
        let mut s = String::new();
        for (i, p) in pieces.iter().enumerate() {
            let attach = match p {
                Piece::Punct(",") => true,
                Piece::Group('(' | '[', _) if i == 0 && after_name => true,
                // `@f(...)` and an indexed value `%ptr[%i]`.
                Piece::Group('(', _) => matches!(pieces.get(i.wrapping_sub(1)), Some(Piece::Symbol(_))),
                Piece::Group('[', _) => matches!(pieces.get(i.wrapping_sub(1)), Some(Piece::Symbol(_) | Piece::Value(_))),
                _ => i == 0 && !after_name,
            };
            if !attach {
                s.push(' ');
            }
            match p {
                Piece::Word(w) => s.push_str(w),
                Piece::Value(v) => s.push_str(&self.name(*v)),
                Piece::Type(t) => s.push_str(&self.ty(*t)),
                Piece::Attr(a) => s.push_str(&self.attr(a)),
                Piece::Symbol(sym) => {
                    let _ = write!(s, "@{sym}");
                }
                Piece::Literal(l) => s.push_str(l),
                Piece::Punct(p) => s.push_str(p),
                Piece::Group('<', inner) => {
                    let text = self.pieces(inner, id, depth, false);
                    let _ = write!(s, "<{}>", text.trim());
                }
                Piece::Group(open, inner) => {
                    let close = if *open == '(' { ')' } else { ']' };
                    let text = self.pieces(inner, id, depth, false);
                    let _ = write!(s, "{open}{}{close}", text.trim());
                }
                Piece::Dict(d) => s.push_str(&self.dict(d)),
                Piece::Region(r) => {
                    let Some(&region) = self.m.op(id).regions.get(*r as usize) else { continue };
                    // `region` writes to the output; collect its text in place (it may sit in a group).
                    let outer = std::mem::take(&mut self.out);
                    self.region(region, depth, 0);
                    let text = std::mem::replace(&mut self.out, outer);
                    s.truncate(s.trim_end().len());
                    s.push_str(&text);
                }
            }
        }
        s
    }
}

/// Whether verbatim pieces are MLIR's generic form: `(operands) ... : (types) -> results`.
fn is_generic_form(pieces: &[Piece]) -> bool {
    let starts = matches!(pieces.first(), Some(Piece::Group('(', _)));
    let colon = pieces.iter().rposition(|p| matches!(p, Piece::Punct(":")));
    starts
        && colon.is_some_and(|i| {
            matches!(pieces.get(i + 1), Some(Piece::Group('(', _))) && matches!(pieces.get(i + 2), Some(Piece::Punct("->")))
        })
}
