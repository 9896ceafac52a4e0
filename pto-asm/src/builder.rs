//! The builder: turns the syntax tree into a [`Module`], resolving names and interpreting each
//! op's pieces according to the op table's format for it ([`Syntax`]).
//!
//! Scoping follows MLIR: `func.func` bodies are isolated from above; `scf` regions see the
//! enclosing values; a name may be defined once per scope; uses must follow definitions.
//! Errors are collected (one bad op does not hide the next); results of an op that failed to
//! build are remembered so their later uses do not produce a cascade of follow-up errors.

use crate::attrs::parse_attr_text;
use crate::format::{self, ResultSpelling};
use crate::reader::{AttrKind, AttrNode, DictEntry, LitKind, Node, OpStmt, RegionSrc, Source, Stmt, Syn};
use crate::types::parse_type;
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics, FileId, Span};
use pto_ir::module::{BlockId, Module, OpData, Payload, Piece, RegionId, TextForm, ValueId};
use pto_ir::ops::{self, FormatItem, Opcode, Syntax, TailGroup};
use pto_ir::types::{ElemType, Type, TypeId};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::collections::HashSet;

/// Most results one `%name:N` group may declare: far more than any op or loop has, small
/// enough that a typo cannot make the reader allocate without bound.
pub const MAX_RESULT_GROUP: usize = 1024;

mod generic;
mod ptoas_tmp;

type BResult<T> = Result<T, Diagnostic>;

struct Scope<'i> {
    names: FxHashMap<Cow<'i, str>, ValueId>,
    isolated: bool,
}

/// A region still to be built: its syntax and the arguments of its entry block.
struct RegionPlan<'i> {
    stmts: Option<RegionSrc>,
    args: Vec<(&'i str, TypeId, Span)>,
    isolated: bool,
}

/// What a format handler produces for one op.
struct OpParts<'i> {
    data: OpData,
    result_types: Vec<TypeId>,
    regions: Vec<RegionPlan<'i>>,
}

impl<'i> OpParts<'i> {
    fn new(opcode: Opcode) -> OpParts<'i> {
        OpParts { data: OpData::new(opcode), result_types: Vec::new(), regions: Vec::new() }
    }
}

pub(crate) struct Builder<'i, 't> {
    source: &'t Source<'i>,
    m: Module,
    file: FileId,
    diags: Diagnostics,
    scopes: Vec<Scope<'i>>,
    type_cache: FxHashMap<&'i str, TypeId>,
    poisoned: HashSet<&'i str>,
    /// The file has `.arg` / `.const` directives: PTO-AS short form unless an op says otherwise.
    directives: bool,
    /// A generic-form tile op with a tile result was read: value semantics (Level 1), short
    /// form or SSA as the directives say.
    generic_level1: bool,
}

fn strip_pct(name: &str) -> &str {
    name.strip_prefix('%').unwrap_or(name)
}

/// A cursor over an op's pieces with `expect_*` helpers that produce located diagnostics.
struct Cursor<'a, 'i> {
    nodes: &'a [Node<'i>],
    pos: usize,
    op: &'a str,
    file: FileId,
    end: usize,
}

impl<'a, 'i> Cursor<'a, 'i> {
    fn peek(&self) -> Option<&'a Node<'i>> {
        self.nodes.get(self.pos)
    }
    fn next(&mut self) -> Option<&'a Node<'i>> {
        let n = self.nodes.get(self.pos);
        self.pos += 1;
        n
    }
    fn done(&self) -> bool {
        self.pos >= self.nodes.len()
    }
    fn here(&self) -> Span {
        match self.peek() {
            Some(n) => Span::new(self.file, n.start, n.end),
            None => Span::new(self.file, self.end, self.end),
        }
    }
    fn error(&self, what: &str) -> Diagnostic {
        let found = self.peek().map(|n| n.describe()).unwrap_or_else(|| "end of statement".into());
        Diagnostic::error(DiagClass::ParseBadOpSyntax, self.here(), format!("`{}`: expected {what}, found {found}", self.op))
            .with_op(self.op.to_string())
            .with_expected(what.to_string(), found)
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if matches!(self.peek(), Some(Node { syn: Syn::Punct(q), .. }) if *q == p) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_punct(&mut self, p: &str) -> BResult<()> {
        if self.eat_punct(p) { Ok(()) } else { Err(self.error(&format!("`{p}`"))) }
    }
    fn eat_word(&mut self, w: &str) -> bool {
        if matches!(self.peek(), Some(Node { syn: Syn::Word(q), .. }) if *q == w) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect_word(&mut self, w: &str) -> BResult<()> {
        if self.eat_word(w) { Ok(()) } else { Err(self.error(&format!("`{w}`"))) }
    }
    fn expect_value(&mut self) -> BResult<&'a Node<'i>> {
        match self.peek() {
            Some(n @ Node { syn: Syn::Value(_), .. }) => {
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.error("a value (`%name`)")),
        }
    }
    fn expect_group(&mut self, open: char) -> BResult<&'a Node<'i>> {
        match self.peek() {
            Some(n @ Node { syn: Syn::Group(c, _), .. }) if *c == open => {
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.error(&format!("`{open}`"))),
        }
    }
    fn expect_end(&self) -> BResult<()> {
        if self.done() { Ok(()) } else { Err(self.error("end of statement")) }
    }
}

/// Splits a group's contents at top-level commas.
fn split_commas<'a, 'i>(nodes: &'a [Node<'i>]) -> Vec<&'a [Node<'i>]> {
    if nodes.is_empty() {
        return Vec::new();
    }
    nodes.split(|n| matches!(n.syn, Syn::Punct(","))).collect()
}

/// Index of the first top-level punct `p`.
fn find_punct(nodes: &[Node<'_>], p: &str) -> Option<usize> {
    nodes.iter().position(|n| matches!(n.syn, Syn::Punct(q) if q == p))
}

impl<'i, 't> Builder<'i, 't> {
    pub(crate) fn new(file: FileId, source: &'t Source<'i>) -> Builder<'i, 't> {
        Builder {
            source,
            m: Module::new(),
            file,
            diags: Diagnostics::default(),
            scopes: Vec::new(),
            type_cache: FxHashMap::default(),
            poisoned: HashSet::new(),
            directives: false,
            generic_level1: false,
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn node_span(&self, n: &Node<'_>) -> Span {
        self.span(n.start, n.end)
    }

    // ------------------------------------------------------------------ entry point

    pub(crate) fn build_file(mut self) -> Result<(Module, Diagnostics), Diagnostics> {
        let body = self.m.add_region();
        self.m.body = Some(body);
        let block = self.m.add_block(body, None);
        self.scopes.push(Scope { names: FxHashMap::default(), isolated: true });
        for stmt in self.source.top() {
            match stmt {
                Ok(stmt) => {
                    self.build_stmt(&stmt, body, block);
                }
                Err(d) => self.diags.push(d),
            }
        }
        // The first op decides the form, wherever the directives stand: the printer puts them
        // first, and the printed file must be read in the same form.
        if self.directives {
            self.set_form(TextForm::Short);
        } else if self.generic_level1 {
            self.set_form(TextForm::Ssa);
        }
        ptoas_tmp::check(&self.m, &mut self.diags);
        if self.diags.has_errors() { Err(self.diags) } else { Ok((self.m, self.diags)) }
    }

    fn build_stmt(&mut self, stmt: &Stmt<'i>, region: RegionId, block: BlockId) -> Option<BlockId> {
        let result = match stmt {
            Stmt::Arg { .. } | Stmt::Const { .. } => self.build_directive(stmt, block).map(|_| None),
            Stmt::Label { name, args } => self.build_block_label(name.text, args.as_ref(), region).map(Some),
            Stmt::Op(op) => {
                self.build_op_stmt(op, block);
                Ok(None)
            }
        };
        result.unwrap_or_else(|d| {
            self.diags.push(d);
            None
        })
    }

    // ------------------------------------------------------------------ names and types

    fn define(&mut self, name: impl Into<Cow<'i, str>>, v: ValueId, span: Span) {
        let name = name.into();
        let Some(scope) = self.scopes.last_mut() else { return };
        if scope.names.insert(name.clone(), v).is_some() {
            self.diags.push(Diagnostic::error(
                DiagClass::StructRedefinedValue,
                span,
                format!("value `%{name}` is defined twice in the same scope"),
            ));
        }
    }

    fn lookup(&mut self, text: &'i str, span: Span) -> BResult<ValueId> {
        let name = strip_pct(text);
        for scope in self.scopes.iter().rev() {
            if let Some(v) = scope.names.get(name) {
                return Ok(*v);
            }
            if scope.isolated {
                break;
            }
        }
        let mut d = Diagnostic::error(DiagClass::StructUndefinedValue, span, format!("use of undefined value `%{name}`"));
        if self.poisoned.contains(name) {
            d.notes.push("its defining op has an error (reported above)".into());
            d.severity = pto_ir::diag::Severity::Warning;
        }
        Err(d)
    }

    fn intern_type_text(&mut self, text: &'i str, start: usize) -> BResult<TypeId> {
        if let Some(t) = self.type_cache.get(text) {
            return Ok(*t);
        }
        match parse_type(text) {
            Ok(ty) => {
                let id = self.m.intern(ty);
                self.type_cache.insert(text, id);
                Ok(id)
            }
            Err(e) => {
                let class = if e.duplicate { DiagClass::ParseDuplicateKey } else { DiagClass::ParseBadType };
                let at = start + e.offset.min(text.len());
                let end = text[e.offset.min(text.len())..].find([',', '>']).map(|i| at + i).unwrap_or(start + text.len());
                // At least one byte, but never past the type text (which may end the input).
                let end = end.max(at + 1).min(start + text.len()).max(at);
                Err(Diagnostic::error(class, self.span(at, end), e.message))
            }
        }
    }

    /// A type piece: a `!...`/`vector<..>` token or a builtin scalar word.
    fn type_of(&mut self, n: &Node<'i>) -> BResult<TypeId> {
        match &n.syn {
            Syn::Type(t) | Syn::Word(t) => self.intern_type_text(t, n.start),
            _ => Err(Diagnostic::error(DiagClass::ParseBadType, self.node_span(n), format!("expected a type, found {}", n.describe()))),
        }
    }

    /// A comma-separated type list (possibly one parenthesised group).
    fn type_list(&mut self, nodes: &[Node<'i>]) -> BResult<Vec<TypeId>> {
        if let [Node { syn: Syn::Group('(', inner), .. }] = nodes {
            return self.type_list(inner);
        }
        let mut out = Vec::new();
        for part in split_commas(nodes) {
            match part {
                [n] => out.push(self.type_of(n)?),
                [] => {}
                [first, ..] => {
                    return Err(Diagnostic::error(
                        DiagClass::ParseBadType,
                        self.node_span(first),
                        format!("expected one type, found {}", first.describe()),
                    ));
                }
            }
        }
        Ok(out)
    }

    /// Checks that a use's written type equals the value's defined type.
    fn check_use_type(&mut self, v: ValueId, written: TypeId, span: Span) {
        let def = self.m.values[v.index()].ty;
        if def != written {
            let name = self.m.values[v.index()].name.clone();
            let d = Diagnostic::error(
                DiagClass::StructTypeMismatch,
                span,
                format!("value `%{name}` is used with a type that differs from its definition"),
            )
            .with_expected(self.m.ty(def).to_string(), self.m.ty(written).to_string())
            .with_label(self.m.value_span(v), "defined here");
            self.diags.push(d);
        }
    }

    fn int_type(&mut self, e: ElemType) -> TypeId {
        self.m.intern(Type::Scalar(e))
    }

    // ------------------------------------------------------------------ attributes

    fn dict_attrs(&mut self, entries: &[DictEntry<'i>]) -> BResult<Vec<(String, Attr)>> {
        let mut out = Vec::with_capacity(entries.len());
        for e in entries {
            let v = match &e.value {
                Some(val) => self.attr_value(val)?,
                None => Attr::Unit,
            };
            out.push((e.key.text.trim_matches('"').to_string(), v));
        }
        Ok(out)
    }

    /// Converts one attribute value read on its own (see [`crate::parse_attribute`]), interning
    /// its types into `m`.
    pub(crate) fn attribute_into(mut self, a: &AttrNode<'i>, m: &mut Module) -> BResult<Attr> {
        std::mem::swap(&mut self.m, m);
        let result = self.attr_value(a);
        std::mem::swap(&mut self.m, m);
        result
    }

    fn attr_value(&mut self, a: &AttrNode<'i>) -> BResult<Attr> {
        let ty = match &a.ty {
            Some(t) => Some(self.intern_type_text(t.text, t.start)?),
            None => None,
        };
        match &a.kind {
            AttrKind::Attr(text) => {
                parse_attr_text(text).map_err(|msg| Diagnostic::error(DiagClass::ParseBadAttribute, self.span(a.start, a.end), msg))
            }
            AttrKind::Type(text) => Ok(Attr::Type(self.intern_type_text(text, a.start)?)),
            AttrKind::Lit(text) => self.literal_attr(text, a.start, ty),
            AttrKind::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in items {
                    out.push(self.attr_value(item)?);
                }
                Ok(Attr::Array(out))
            }
            AttrKind::Dict(entries) => Ok(Attr::Dict(self.dict_attrs(entries)?)),
            AttrKind::Symbol(text) => Ok(Attr::Symbol(text[1..].trim_matches('"').to_string())),
            AttrKind::Angle(text) => Ok(Attr::Opaque(text.to_string())),
            AttrKind::Function(text) => Ok(Attr::Opaque(crate::types::normalize_ws(text))),
            AttrKind::Word(w) => match *w {
                "true" => Ok(Attr::Bool(true)),
                "false" => Ok(Attr::Bool(false)),
                "unit" => Ok(Attr::Unit),
                w => match parse_type(w) {
                    Ok(t) => Ok(Attr::Type(self.m.intern(t))),
                    Err(_) => Ok(Attr::Opaque(w.to_string())),
                },
            },
        }
    }

    fn literal_attr(&mut self, text: &str, start: usize, ty: Option<TypeId>) -> BResult<Attr> {
        let bad = |this: &Self, what: &str| {
            Diagnostic::error(DiagClass::ParseBadLiteral, this.span(start, start + text.len()), format!("{what} `{text}`"))
        };
        if text.starts_with('"') {
            return Ok(Attr::Str(unescape(&text[1..text.len() - 1])));
        }
        if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("-0x")) {
            let v = u64::from_str_radix(hex, 16).map_err(|_| bad(self, "hexadecimal literal out of range"))?;
            let is_float = ty.is_some_and(|t| matches!(self.m.ty(t), Type::Scalar(e) if e.is_float()));
            if is_float {
                return Ok(Attr::Float(f64::from_bits(v), ty));
            }
            let v = v as i64;
            return Ok(Attr::Int(if text.starts_with('-') { v.wrapping_neg() } else { v }, ty));
        }
        if text.contains(['.', 'e', 'E']) {
            // MLIR: "floating point value not valid for specified type" (an `i64` constant
            // written `1e400` would print back as a different integer).
            if ty.is_some_and(|t| matches!(self.m.ty(t), Type::Scalar(e) if !e.is_float())) {
                return Err(bad(self, "a float literal is not valid for an integer type:"));
            }
            let v: f64 = text.parse().map_err(|_| bad(self, "malformed float literal"))?;
            return Ok(Attr::Float(v, ty));
        }
        let v: i64 =
            text.parse().or_else(|_| text.parse::<u64>().map(|u| u as i64)).map_err(|_| bad(self, "integer literal out of range"))?;
        Ok(Attr::Int(v, ty))
    }

    // ------------------------------------------------------------------ statements

    fn build_directive(&mut self, stmt: &Stmt<'i>, block: BlockId) -> BResult<()> {
        self.directives = true;
        match stmt {
            Stmt::Arg { value, ty } => {
                let vspan = self.span(value.start, value.end());
                let name = strip_pct(value.text);
                let ty = self.intern_type_text(ty.text, ty.start)?;
                let v = self.m.add_block_arg(block, ty, name.to_string(), vspan);
                self.define(name, v, vspan);
            }
            Stmt::Const { value, lit, ty } => {
                // `.const %c = literal : type` is an `arith.constant`.
                let vspan = self.span(value.start, value.end());
                let name = strip_pct(value.text);
                let ty = self.intern_type_text(ty.text, ty.start)?;
                let attr = self.literal_attr(lit.text, lit.start, Some(ty))?;
                let mut data = OpData::new(Opcode::ArithConstant);
                data.attrs.push(("value".into(), attr));
                let op = self.m.add_op(data, vspan);
                let v = self.m.add_result(op, ty, name.to_string(), vspan);
                self.define(name, v, vspan);
                self.m.append(block, op);
            }
            _ => {}
        }
        Ok(())
    }

    fn build_block_label(&mut self, label: &'i str, args: Option<&Node<'i>>, region: RegionId) -> BResult<BlockId> {
        let label = Some(label[1..].to_string());
        let region_blocks = &self.m.region(region).blocks;
        // A label on an empty entry block names that block instead of starting a new one.
        let block = match region_blocks.last() {
            Some(&b) if region_blocks.len() == 1 && self.m.block(b).ops.is_empty() && self.m.block(b).label.is_none() => {
                self.m.blocks[b.index()].label = label;
                b
            }
            _ => self.m.add_block(region, label),
        };
        if let Some(node) = args
            && let Syn::Group(_, inner) = &node.syn
        {
            for part in split_commas(inner) {
                let [v @ Node { syn: Syn::Value(name), .. }, Node { syn: Syn::Punct(":"), .. }, t] = part else {
                    let at = part.first().map(|n| self.node_span(n)).unwrap_or(self.node_span(node));
                    return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, at, "expected a block argument `%name: type`"));
                };
                let ty = self.type_of(t)?;
                let span = self.node_span(v);
                let arg = self.m.add_block_arg(block, ty, strip_pct(name).to_string(), span);
                self.define(strip_pct(name), arg, span);
            }
        }
        Ok(block)
    }

    fn set_form(&mut self, form: TextForm) {
        if self.m.form.is_none() {
            self.m.form = Some(form);
        }
    }

    fn build_op_stmt(&mut self, stmt: &OpStmt<'i>, block: BlockId) {
        let op_span = self.span(stmt.start, stmt.end);
        let mut results: Vec<(&'i str, Span)> = Vec::new();
        for (i, r) in stmt.results.iter().enumerate() {
            let rs = self.span(r.start, r.end);
            // `%d, %d = ...` names one value twice (a group is written `%d:2`).
            if stmt.results[..i].iter().any(|earlier| earlier.name == r.name) {
                let msg = format!("value `%{}` is defined twice in the same scope", strip_pct(r.name));
                self.diags.push(Diagnostic::error(DiagClass::StructRedefinedValue, rs, msg));
                continue;
            }
            match &r.count {
                Some(count) => {
                    let n: usize = count.text.parse().unwrap_or(0);
                    if n == 0 || n > MAX_RESULT_GROUP {
                        let msg = format!("result group count must be between 1 and {MAX_RESULT_GROUP}, found `{}`", count.text);
                        self.diags.push(Diagnostic::error(DiagClass::ParseBadLiteral, rs, msg));
                        continue;
                    }
                    results.extend(std::iter::repeat_n((r.name, rs), n));
                }
                None => results.push((r.name, rs)),
            }
        }
        let name = stmt.name.text;
        let name_start = stmt.name.start;
        let pieces = &stmt.pieces;
        let name_span = self.span(name_start, name_start + name.len());
        let plain = name.trim_matches('"');
        let Some((opcode, mode_attrs)) = ops::lookup(plain).map(|op| (op, Vec::new())).or_else(|| ops::lookup_with_modes(plain)) else {
            let mut d = Diagnostic::error(DiagClass::ParseUnknownOp, name_span, format!("unknown op `{name}`"));
            if let Some(s) = suggest(name) {
                d.notes.push(format!("did you mean `{s}`?"));
            }
            self.diags.push(d);
            self.poison(&results);
            return;
        };
        let spec = opcode.spec();
        let short = spec.dialect == ops::Dialect::Pto && !name.starts_with("pto.");
        let cursor = Cursor { nodes: pieces, pos: 0, op: name, file: self.file, end: stmt.end };
        let generic_form = name.starts_with('"');
        let built = match spec.syntax {
            _ if generic_form => self.fmt_mlir_generic(opcode, cursor, results.len()),
            Syntax::Tile => self.fmt_tile(opcode, cursor, short, results.len()),
            Syntax::AllocTile => self.fmt_alloc_tile(cursor),
            Syntax::MakeTensorView => self.fmt_make_tensor_view(opcode, cursor),
            Syntax::PartitionView => self.fmt_partition_view(opcode, cursor),
            Syntax::BracketArgs => self.fmt_bracket_args(opcode, cursor),
            Syntax::AngleArg => self.fmt_angle_arg(opcode, cursor),
            Syntax::Query => self.fmt_query(opcode, cursor),
            Syntax::Cast | Syntax::ArithCast => self.fmt_cast(opcode, cursor, short),
            Syntax::ArithConstant => self.fmt_constant(cursor),
            Syntax::ArithBinary => self.fmt_arith_binary(opcode, cursor),
            Syntax::ArithCmp => self.fmt_arith_cmp(opcode, cursor),
            Syntax::ArithSelect => self.fmt_arith_select(cursor),
            Syntax::Terminator => self.fmt_terminator(opcode, cursor),
            Syntax::ScfFor => self.fmt_scf_for(cursor),
            Syntax::ScfIf => self.fmt_scf_if(cursor),
            Syntax::ScfWhile => self.fmt_scf_while(cursor),
            Syntax::ScfCondition => self.fmt_scf_condition(cursor),
            Syntax::FuncFunc => self.fmt_func(cursor),
            Syntax::FuncCall => self.fmt_call(cursor, results.len()),
            Syntax::Module => self.fmt_module(cursor),
            Syntax::Paren => self.fmt_paren(opcode, cursor),
            Syntax::Generic => self.fmt_generic(opcode, cursor, results.len(), true),
        };
        let parts = match built.and_then(|p| with_mode_attrs(p, mode_attrs, name_span)) {
            Ok(p) => p,
            Err(d) => {
                self.diags.push(d);
                self.poison(&results);
                return;
            }
        };
        if parts.result_types.len() != results.len() {
            let d = Diagnostic::error(
                DiagClass::StructArity,
                results.first().map(|r| r.1).unwrap_or(name_span),
                format!("`{name}` produces {} result(s) but {} name(s) are bound", parts.result_types.len(), results.len()),
            )
            .with_op(name.to_string())
            .with_expected(parts.result_types.len().to_string(), results.len().to_string());
            self.diags.push(d);
            self.poison(&results);
            return;
        }
        let opcode = parts.data.opcode;
        let op = self.m.add_op(parts.data, op_span);
        self.m.append(block, op);
        let mut region_ids = Vec::new();
        for (index, plan) in parts.regions.into_iter().enumerate() {
            let region = self.build_region(plan);
            let args_in_header = matches!(opcode, Opcode::FuncFunc | Opcode::ScfFor) || (opcode == Opcode::ScfWhile && index == 0);
            if generic_form && args_in_header {
                // MLIR's generic form labels every entry block that has arguments (`^bb0(...)`);
                // the custom form of this op lists them in its header instead.
                if let Some(&entry) = self.m.region(region).blocks.first() {
                    self.m.blocks[entry.index()].label = None;
                }
            }
            region_ids.push(region);
        }
        self.m.op_mut(op).regions = region_ids;
        let grouped = results.len() > 1 && results.iter().all(|r| r.0 == results[0].0);
        for (i, (&(rname, rspan), &ty)) in results.iter().zip(&parts.result_types).enumerate() {
            let base = strip_pct(rname);
            let full = if grouped { format!("{base}#{i}") } else { base.to_string() };
            let v = self.m.add_result(op, ty, full.clone(), rspan);
            if grouped {
                self.define(full, v, rspan);
            } else {
                self.define(base, v, rspan);
            }
        }
    }

    fn poison(&mut self, results: &[(&'i str, Span)]) {
        for (r, _) in results {
            self.poisoned.insert(strip_pct(r));
        }
    }

    fn build_region(&mut self, plan: RegionPlan<'i>) -> RegionId {
        let region = self.m.add_region();
        let block = self.m.add_block(region, None);
        self.scopes.push(Scope { names: FxHashMap::default(), isolated: plan.isolated });
        for (name, ty, span) in plan.args {
            let v = self.m.add_block_arg(block, ty, strip_pct(name).to_string(), span);
            self.define(strip_pct(name), v, span);
        }
        let mut current = block;
        if let Some(src) = plan.stmts {
            for stmt in self.source.region(src) {
                match stmt {
                    Ok(stmt) => {
                        if let Some(b) = self.build_stmt(&stmt, region, current) {
                            current = b;
                        }
                    }
                    Err(d) => self.diags.push(d),
                }
            }
        }
        self.scopes.pop();
        region
    }

    fn region_plan(&self, n: &Node<'i>, args: Vec<(&'i str, TypeId, Span)>, isolated: bool) -> Option<RegionPlan<'i>> {
        match &n.syn {
            Syn::Region(src) => Some(RegionPlan { stmts: Some(*src), args, isolated }),
            // `{}` / `{\n}` parse as an empty dictionary; in region position they are an empty region.
            Syn::Dict(entries) if entries.is_empty() => Some(RegionPlan { stmts: None, args, isolated }),
            _ => None,
        }
    }

    fn expect_region(&self, c: &mut Cursor<'_, 'i>, args: Vec<(&'i str, TypeId, Span)>, isolated: bool) -> BResult<RegionPlan<'i>> {
        match c.peek().and_then(|n| self.region_plan(n, args, isolated)) {
            Some(plan) => {
                c.pos += 1;
                Ok(plan)
            }
            None => Err(c.error("a region `{ ... }`")),
        }
    }

    /// Optional trailing attribute dictionary.
    fn opt_dict(&mut self, c: &mut Cursor<'_, 'i>, into: &mut Vec<(String, Attr)>) -> BResult<()> {
        if let Some(Node { syn: Syn::Dict(p), .. }) = c.peek() {
            c.pos += 1;
            let attrs = self.dict_attrs(p)?;
            into.extend(attrs);
        }
        Ok(())
    }

    fn value_of(&mut self, n: &Node<'i>) -> BResult<ValueId> {
        match n.syn {
            Syn::Value(text) => {
                let span = self.node_span(n);
                self.lookup(text, span)
            }
            _ => {
                Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(n), format!("expected a value, found {}", n.describe())))
            }
        }
    }

    // ------------------------------------------------------------------ tile ops

    fn fmt_tile(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>, short: bool, nresults: usize) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let dps = matches!(c.peek(), Some(Node { syn: Syn::Word("ins"), .. }));
        if dps {
            self.set_form(TextForm::Dps);
            c.expect_word("ins")?;
            let ins = c.expect_group('(')?;
            let Syn::Group(_, ins_nodes) = &ins.syn else { unreachable!("expect_group returns a group") };
            let (vals, segs) = self.typed_operands(ins_nodes, &mut parts.data.attrs, ins)?;
            parts.data.num_ins = vals.len() as u32;
            parts.data.operands = vals;
            if segs.iter().any(|&s| s != 1) {
                parts.data.payload = Payload::Segments(segs);
            }
            if c.eat_word("outs") {
                if c.eat_punct(":") {
                    // `outs : f32`: a scalar destination is the op's result (`tgetval`).
                    let t = c.next().ok_or_else(|| c.error("the result type"))?;
                    parts.result_types.push(self.type_of(t)?);
                } else {
                    let outs = c.expect_group('(')?;
                    let Syn::Group(_, out_nodes) = &outs.syn else { unreachable!("expect_group returns a group") };
                    let (vals, _) = self.typed_operands(out_nodes, &mut parts.data.attrs, outs)?;
                    parts.data.operands.extend(vals);
                }
            }
            self.opt_waits(&mut c, &mut parts.data)?;
            self.opt_dict(&mut c, &mut parts.data.attrs)?;
            self.opt_waits(&mut c, &mut parts.data)?;
            self.dps_tail(opcode, &mut c, &mut parts)?;
            c.expect_end()?;
            return Ok(parts);
        }
        self.set_form(if short { TextForm::Short } else { TextForm::Ssa });
        // SSA / short form: operands (a memory operand `%v[%r, %c]` is one group of three),
        // attributes, optional wait(...), `: signature`.
        let mut groups: Vec<u32> = Vec::new();
        while let Some(n) = c.peek() {
            match &n.syn {
                Syn::Value(_) => {
                    c.pos += 1;
                    let v = self.value_of(n)?;
                    parts.data.operands.push(v);
                    let mut size = 1;
                    if let Some(Node { syn: Syn::Group('[', idx), .. }) = c.peek() {
                        c.pos += 1;
                        for part in split_commas(idx) {
                            let [iv] = part else { return Err(c.error("an index value")) };
                            let iv = self.value_of(iv)?;
                            parts.data.operands.push(iv);
                            size += 1;
                        }
                    }
                    groups.push(size);
                    self.opt_dict(&mut c, &mut parts.data.attrs)?;
                    if !c.eat_punct(",") {
                        break;
                    }
                }
                Syn::Dict(_) => {
                    self.opt_dict(&mut c, &mut parts.data.attrs)?;
                    let _ = c.eat_punct(",");
                }
                _ => break,
            }
        }
        parts.data.num_ins = parts.data.operands.len() as u32;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        self.opt_waits(&mut c, &mut parts.data)?;
        if c.eat_punct(":") {
            let rest = &c.nodes[c.pos..];
            c.pos = c.nodes.len();
            match find_punct(rest, "->") {
                Some(arrow) => {
                    let ins_t = self.type_list(&rest[..arrow])?;
                    let outs_t = self.type_list(&rest[arrow + 1..])?;
                    // The PTO-AS short form of the docs may list only the leading (tile) operand
                    // types: `%d = tcmps %src, %s {..} : !pto.tile<..> -> !pto.tile<..>`.
                    let short_prefix = short && !ins_t.is_empty() && ins_t.len() < parts.data.operands.len();
                    if ins_t.len() != parts.data.operands.len() && !short_prefix {
                        let at = rest.first().map(|n| self.node_span(n)).unwrap_or(c.here());
                        return Err(Diagnostic::error(
                            DiagClass::StructArity,
                            at,
                            "the signature lists a different number of operand types than there are operands",
                        )
                        .with_op(c.op.to_string())
                        .with_expected(parts.data.operands.len().to_string(), ins_t.len().to_string()));
                    }
                    for (i, (&v, &t)) in parts.data.operands.clone().iter().zip(&ins_t).enumerate() {
                        let span = rest.get(i).map(|n| self.node_span(n)).unwrap_or(c.here());
                        self.check_use_type(v, t, span);
                    }
                    parts.result_types = outs_t;
                }
                None => {
                    let tys = self.type_list(rest)?;
                    let operands = parts.data.operands.clone();
                    parts.result_types = self.arrowless_signature(opcode, &operands, &tys, nresults, c.here());
                }
            }
        } else if nresults > 0 {
            return Err(c.error("`:` and the result type"));
        }
        c.expect_end()?;
        if nresults == 0 {
            self.place_destinations(&mut parts.data, &mut groups, short);
        }
        if groups.iter().any(|&s| s != 1) {
            parts.data.payload = Payload::Segments(groups);
        }
        Ok(parts)
    }

    /// What a DPS tile op's format lets follow its attribute dictionary, in format order:
    /// keyword groups (`pad_mode = <PadValue>`, `pad_value = %v : f32`) and the vestigial
    /// result `-> tensor<...>`. Operands read here are extra inputs, after the `ins(...)` ones;
    /// when there are any, the payload records which optional groups are present
    /// ([`Payload::TailGroups`]).
    fn dps_tail(&mut self, opcode: Opcode, c: &mut Cursor<'_, 'i>, parts: &mut OpParts<'i>) -> BResult<()> {
        let mut extra = Vec::new();
        let mut present = Vec::new();
        for group in opcode.parsed().format.iter().filter_map(FormatItem::tail_group) {
            match group {
                TailGroup::Result => {
                    if c.eat_punct("->") {
                        let t = c.next().ok_or_else(|| c.error("the result type"))?;
                        parts.result_types.push(self.type_of(t)?);
                    }
                }
                TailGroup::Operand(key) => {
                    present.push(c.eat_word(key));
                    if present.last() == Some(&true) {
                        c.expect_punct("=")?;
                        extra.push(self.typed_value(c)?);
                    }
                }
                TailGroup::Attribute(key, item) => {
                    if c.eat_word(key) {
                        c.expect_punct("=")?;
                        let n = c.next().ok_or_else(|| c.error("a value"))?;
                        let a = self.format_arg(n, item)?;
                        parts.data.attrs.push((key.to_string(), a));
                    }
                }
            }
        }
        if !extra.is_empty() {
            let written = parts.data.num_ins as usize;
            parts.data.operands.splice(written..written, extra.iter().copied());
            parts.data.num_ins += extra.len() as u32;
            parts.data.payload = Payload::TailGroups(present);
        }
        Ok(())
    }

    /// `%v : T`, the type checked against the value's.
    fn typed_value(&mut self, c: &mut Cursor<'_, 'i>) -> BResult<ValueId> {
        let n = c.expect_value()?;
        let v = self.value_of(n)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("a type"))?;
        let ty = self.type_of(t)?;
        let span = self.node_span(n);
        self.check_use_type(v, ty, span);
        Ok(v)
    }

    /// Reads a signature without `->` (the docs' short forms), checks the operand types it
    /// lists and returns the result types. Following the pages:
    /// * one type is the type of every result (`%d = tadd %a, %b : T`,
    ///   `%d0, %d1 = tdeinterleave %s : T`) when the op has that many results;
    /// * one type per operand and per result lists the operands', then the results' types
    ///   (`%d = texpands %s : f32, T`);
    /// * for one result, the types of the operands or of the leading ones
    ///   (`%d = tshrs %src, %s : T, i32`, `%d = tdivs %s, %src : f32, T`,
    ///   `%d = tpows %base, %exp, %tmp : T, f32`): the result has the first tile type listed;
    /// * without results, the types of the leading operands (`tstore %t, %v : T, V`);
    /// * otherwise the types are the results' (`%v, %i = op %x : T, U`).
    fn arrowless_signature(&mut self, op: Opcode, operands: &[ValueId], tys: &[TypeId], nresults: usize, span: Span) -> Vec<TypeId> {
        let n = operands.len();
        let first_tile = || tys.iter().copied().find(|&t| self.m.ty(t).tile().is_some()).unwrap_or(tys[0]);
        let (operand_types, results): (&[TypeId], Vec<TypeId>) = match tys.len() {
            _ if nresults == 0 => (tys, Vec::new()),
            0 => (&[], Vec::new()),
            1 if op.has_result_form(nresults) => (&[], vec![tys[0]; nresults]),
            k if k == n + nresults => (&tys[..n], tys[n..].to_vec()),
            k if nresults == 1 && k <= n => (tys, vec![first_tile()]),
            _ => (&[], tys.to_vec()),
        };
        for (&v, &t) in operands.iter().zip(operand_types) {
            self.check_use_type(v, t, span);
        }
        results
    }

    /// A statement that binds no results may write the op's destinations as operands: first,
    /// in the C++ order of the PTO-AS form (`mgather.row %dst, %table, %idx`,
    /// `trandom %dst, %key, %counter`), or last, after the `ins` (the Level-1 SSA
    /// `pto.tstore %src, %mem`, and the TSTORE page's PTO-AS `tstore %t, %v[%r, %c]`). The op's
    /// forms decide which operand groups are destinations ([`ops::split_destinations`]); they
    /// become the op's `outs`, as in the DPS form, and `groups` follows the new order.
    fn place_destinations(&self, data: &mut OpData, groups: &mut Vec<u32>, short: bool) {
        use ops::DestinationOrder::{First, Last};
        let mut start = 0usize;
        let ranges: Vec<std::ops::Range<usize>> = groups
            .iter()
            .map(|&g| {
                start += g as usize;
                start - g as usize..start
            })
            .collect();
        let typed: Vec<Vec<&Type>> =
            ranges.iter().map(|r| data.operands[r.clone()].iter().map(|&v| self.m.value_type(v)).collect()).collect();
        let orders: &[ops::DestinationOrder] = if short { &[First, Last] } else { &[Last] };
        let Some((order, k)) = ops::split_destinations(data.opcode, &typed, orders) else { return };
        let n = ranges.len();
        let outs = if order == First { 0..k } else { n - k..n };
        let order: Vec<usize> = (0..n).filter(|i| !outs.contains(i)).chain(outs.clone()).collect();
        let operands: Vec<ValueId> = order.iter().flat_map(|&g| data.operands[ranges[g].clone()].to_vec()).collect();
        data.num_ins = order.iter().filter(|g| !outs.contains(g)).map(|&g| groups[g]).sum();
        data.operands = operands;
        *groups = order.iter().map(|&g| groups[g]).collect();
    }

    /// `wait(%e0, ...)`: legacy ordering annotation.
    fn opt_waits(&mut self, c: &mut Cursor<'_, 'i>, data: &mut OpData) -> BResult<()> {
        if !matches!(c.peek(), Some(Node { syn: Syn::Word("wait"), .. })) {
            return Ok(());
        }
        let start = c.here();
        c.pos += 1;
        let g = c.expect_group('(')?;
        let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
        for part in split_commas(inner) {
            let [v] = part else { return Err(c.error("an event value")) };
            let v = self.value_of(v)?;
            data.waits.push(v);
        }
        self.diags.push(
            Diagnostic::warning(
                DiagClass::OrderDeprecatedWait,
                Span { end: g.end as u32, ..start },
                "`wait(...)` is deprecated; kept as an ordering annotation",
            )
            .with_note("write an explicit `tsync` with the events instead"),
        );
        Ok(())
    }

    /// `%a, %b {attrs} : T1, T2` inside `ins(...)` / `outs(...)`.
    fn typed_operands(
        &mut self,
        nodes: &[Node<'i>],
        attrs: &mut Vec<(String, Attr)>,
        group: &Node<'i>,
    ) -> BResult<(Vec<ValueId>, Vec<u32>)> {
        if nodes.iter().filter(|n| matches!(n.syn, Syn::Punct(":"))).count() > 1 {
            return self.operands_typed_one_by_one(nodes, group);
        }
        let colon = find_punct(nodes, ":");
        let (vals_part, types_part) = match colon {
            Some(i) => (&nodes[..i], &nodes[i + 1..]),
            None => (nodes, &nodes[nodes.len()..]),
        };
        let mut values: Vec<(ValueId, Span)> = Vec::new();
        for part in split_commas(vals_part) {
            let it = part.iter();
            for n in it {
                match &n.syn {
                    Syn::Value(_) => {
                        let v = self.value_of(n)?;
                        values.push((v, self.node_span(n)));
                    }
                    Syn::Dict(p) => attrs.extend(self.dict_attrs(p)?),
                    _ => {
                        return Err(Diagnostic::error(
                            DiagClass::ParseBadOpSyntax,
                            self.node_span(n),
                            format!("expected an operand, found {}", n.describe()),
                        ));
                    }
                }
            }
        }
        let types = self.type_list(types_part)?;
        if types.len() != values.len() {
            let at = if colon.is_some() { types_part.first().map(|n| self.node_span(n)) } else { None }
                .unwrap_or(self.span(group.end.saturating_sub(1), group.end));
            return Err(Diagnostic::error(
                DiagClass::ParseBadOpSyntax,
                at,
                format!("{} operand(s) but {} type(s)", values.len(), types.len()),
            )
            .with_expected(format!("{} type(s) after `:`", values.len()), types.len().to_string()));
        }
        for (&(v, span), &t) in values.iter().zip(&types) {
            self.check_use_type(v, t, span);
        }
        Ok((values.iter().map(|x| x.0).collect(), vec![1; values.len()]))
    }

    /// `%a : T, %b : U` inside `ins(...)` (PTOAS's `tstore` / `tmov` formats).
    fn operands_typed_one_by_one(&mut self, nodes: &[Node<'i>], group: &Node<'i>) -> BResult<(Vec<ValueId>, Vec<u32>)> {
        let mut values = Vec::new();
        for part in split_commas(nodes) {
            let [v @ Node { syn: Syn::Value(_), .. }, Node { syn: Syn::Punct(":"), .. }, t] = part else {
                let at = part.first().unwrap_or(group);
                return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(at), "expected `%value : type`"));
            };
            let (value, ty) = (self.value_of(v)?, self.type_of(t)?);
            let span = self.node_span(v);
            self.check_use_type(value, ty, span);
            values.push(value);
        }
        let segs = vec![1; values.len()];
        Ok((values, segs))
    }

    /// The PTOAS parenthesised format: `pto.op(%a, %b : A, B) {attrs} [-> R | -> (R0, R1)]`.
    /// Every operand is an `in`; the results are the op's outs.
    fn fmt_paren(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let group = c.expect_group('(')?;
        let Syn::Group(_, inner) = &group.syn else { unreachable!("expect_group returns a group") };
        let (vals, _) = self.typed_operands(inner, &mut parts.data.attrs, group)?;
        parts.data.num_ins = vals.len() as u32;
        parts.data.operands = vals;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        if c.eat_punct("->") {
            parts.result_types = self.type_list(&c.nodes[c.pos..])?;
            c.pos = c.nodes.len();
        }
        c.expect_end()?;
        Ok(parts)
    }

    // ------------------------------------------------------------------ PTOAS infrastructure

    fn fmt_alloc_tile(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::AllocTile);
        let mut segs = vec![0u32; 3];
        for (i, key) in ["addr", "valid_row", "valid_col"].iter().enumerate() {
            if c.eat_word(key) {
                c.expect_punct("=")?;
                let n = c.expect_value()?;
                let v = self.value_of(n)?;
                parts.data.operands.push(v);
                segs[i] = 1;
                let _ = c.eat_punct(",");
            }
        }
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("the tile_buf type"))?;
        let ty = self.type_of(t)?;
        c.expect_end()?;
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.data.payload = Payload::Segments(segs);
        parts.result_types.push(ty);
        Ok(parts)
    }

    /// `[%a, %b]` value list.
    fn value_list(&mut self, g: &Node<'i>) -> BResult<Vec<ValueId>> {
        let Syn::Group(_, inner) = &g.syn else { unreachable!("callers pass groups") };
        let mut out = Vec::new();
        for part in split_commas(inner) {
            let [n] = part else {
                let at = part.first().map(|n| self.node_span(n)).unwrap_or(self.node_span(g));
                return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, at, "expected one value per list entry"));
            };
            out.push(self.value_of(n)?);
        }
        Ok(out)
    }

    fn fmt_make_tensor_view(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let ptr = c.expect_value()?;
        parts.data.operands.push(self.value_of(ptr)?);
        let mut segs = vec![1u32];
        for key in ["shape", "strides"] {
            c.expect_punct(",")?;
            c.expect_word(key)?;
            c.expect_punct("=")?;
            let g = c.expect_group('[')?;
            let vals = self.value_list(g)?;
            segs.push(vals.len() as u32);
            parts.data.operands.extend(vals);
        }
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("the tensor_view type"))?;
        parts.result_types.push(self.type_of(t)?);
        c.expect_end()?;
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.data.payload = Payload::Segments(segs);
        Ok(parts)
    }

    fn fmt_partition_view(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let src = c.expect_value()?;
        let src_v = self.value_of(src)?;
        parts.data.operands.push(src_v);
        let mut lists = Vec::new();
        for key in ["offsets", "sizes"] {
            c.expect_punct(",")?;
            c.expect_word(key)?;
            c.expect_punct("=")?;
            let g = c.expect_group('[')?;
            let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
            let mut list = Vec::new();
            for part in split_commas(inner) {
                match part {
                    [n @ Node { syn: Syn::Value(_), .. }] => {
                        let v = self.value_of(n)?;
                        parts.data.operands.push(v);
                        list.push(None);
                    }
                    [n @ Node { syn: Syn::Lit(text, LitKind::Int), .. }] => {
                        let v: i64 = text.parse().map_err(|_| {
                            Diagnostic::error(DiagClass::ParseBadLiteral, self.node_span(n), format!("integer out of range `{text}`"))
                        })?;
                        list.push(Some(v));
                    }
                    _ => return Err(c.error("a value or an integer in the list")),
                }
            }
            lists.push(list);
        }
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let src_t = c.next().ok_or_else(|| c.error("the source view type"))?;
        let st = self.type_of(src_t)?;
        let sspan = self.node_span(src_t);
        self.check_use_type(src_v, st, sspan);
        c.expect_punct("->")?;
        let t = c.next().ok_or_else(|| c.error("the result view type"))?;
        parts.result_types.push(self.type_of(t)?);
        c.expect_end()?;
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.data.payload = Payload::IndexLists(lists);
        Ok(parts)
    }

    /// `[<PIPE_A>, <PIPE_B>, <EVENT_ID0>]` / `[#pto.pipe_event_type<TLOAD>, 0]`: one argument per
    /// slot of the op's format (`$<pipe>`, `$#pipe_event_type|sync_op_type`, `$int`).
    fn fmt_bracket_args(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let slots = format::argument_slots(opcode);
        let g = c.expect_group('[')?;
        let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
        let given = split_commas(inner);
        if given.len() != slots.len() {
            let what = format!("{} argument(s) in `[...]`", slots.len());
            return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(g), format!("`{}`: expected {what}", c.op))
                .with_op(c.op.to_string())
                .with_expected(what, given.len().to_string()));
        }
        let mut args = Vec::with_capacity(slots.len());
        for (part, slot) in given.iter().zip(slots) {
            let [n] = part else { return Err(c.error("one argument per list entry")) };
            args.push(self.format_arg(n, slot)?);
        }
        parts.data.attrs.push(("args".into(), Attr::Array(args)));
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_end()?;
        Ok(parts)
    }

    /// One enum (or integer) argument read as the format's `slot` says.
    fn format_arg(&mut self, n: &Node<'i>, slot: &FormatItem) -> BResult<Attr> {
        match (slot, &n.syn) {
            (FormatItem::Int, Syn::Lit(text, LitKind::Int)) => self.literal_attr(text, n.start, None),
            (FormatItem::Bool, Syn::Word(w @ ("true" | "false"))) => Ok(Attr::Bool(*w == "true")),
            (FormatItem::Int | FormatItem::Bool, _) => {
                let what = if *slot == FormatItem::Int { "an integer" } else { "`true` or `false`" };
                Err(Diagnostic::error(DiagClass::ParseBadAttribute, self.node_span(n), format!("expected {what}, found {}", n.describe())))
            }
            _ => format::enum_of(n, slot).map_err(|m| Diagnostic::error(DiagClass::ParseBadAttribute, self.node_span(n), m)),
        }
    }

    /// `pto.barrier <PIPE_ALL>`: the op's one `$<kind>` argument.
    fn fmt_angle_arg(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let slots = format::argument_slots(opcode);
        let (Some(n), [slot]) = (c.next(), &slots[..]) else { return Err(c.error("`<PIPE_...>`")) };
        let a = self.format_arg(n, slot)?;
        parts.data.attrs.push(("pipe".into(), a));
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_query(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        let ty = if c.eat_punct(":") {
            let t = c.next().ok_or_else(|| c.error("a result type"))?;
            self.type_of(t)?
        } else {
            self.int_type(ElemType::I64)
        };
        c.expect_end()?;
        parts.result_types.push(ty);
        Ok(parts)
    }

    /// `%r = op %x : A -> B` (treshape, bitcast) and `%r = arith.index_cast %x : A to B`; the
    /// PTO-AS short form may give the result type alone (`%r = treshape %x : B`).
    fn fmt_cast(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>, short: bool) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let x = c.expect_value()?;
        let v = self.value_of(x)?;
        parts.data.operands.push(v);
        parts.data.num_ins = 1;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let a = c.next().ok_or_else(|| c.error("the source type"))?;
        let at = self.type_of(a)?;
        if short && c.done() {
            parts.result_types.push(at);
            return Ok(parts);
        }
        let aspan = self.node_span(a);
        self.check_use_type(v, at, aspan);
        if !c.eat_punct("->") && !c.eat_word("to") {
            return Err(c.error(if opcode.spec().syntax == Syntax::ArithCast { "`to`" } else { "`->`" }));
        }
        let b = c.next().ok_or_else(|| c.error("the result type"))?;
        parts.result_types.push(self.type_of(b)?);
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_constant(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ArithConstant);
        let n = c.next().ok_or_else(|| c.error("a constant value"))?;
        // `dense<[1, 2, 3, 4]> : vector<4xi16>` (MLIR's dense elements: tmrgsort's executed list).
        let dense = match n.syn {
            Syn::Word("dense") => match c.next().and_then(|g| if let Syn::Angle(body) = g.syn { Some(body) } else { None }) {
                Some(body) => Some(Attr::Opaque(format!("dense<{body}>"))),
                None => return Err(c.error("`<...>` after `dense`")),
            },
            _ => None,
        };
        let mut attrs = Vec::new();
        self.opt_dict(&mut c, &mut attrs)?;
        let ty = if c.eat_punct(":") {
            let t = c.next().ok_or_else(|| c.error("the constant's type"))?;
            Some(self.type_of(t)?)
        } else {
            None
        };
        c.expect_end()?;
        let (value, ty) = match (&n.syn, ty) {
            (Syn::Word("dense"), Some(ty)) => (dense.unwrap_or(Attr::Unit), ty),
            (Syn::Word("dense"), None) => return Err(c.error("`: type` after the constant")),
            (Syn::Word("true"), _) => (Attr::Bool(true), self.int_type(ElemType::I1)),
            (Syn::Word("false"), _) => (Attr::Bool(false), self.int_type(ElemType::I1)),
            (Syn::Lit(text, kind), Some(ty)) if *kind != LitKind::Str => {
                self.check_constant_literal(text, n, ty)?;
                (self.literal_attr(text, n.start, Some(ty))?, ty)
            }
            (Syn::Lit(..), None) => return Err(c.error("`: type` after the constant")),
            _ => {
                return Err(Diagnostic::error(
                    DiagClass::ParseBadLiteral,
                    self.node_span(n),
                    format!("expected a number, `true` or `false`, found {}", n.describe()),
                ));
            }
        };
        parts.data.attrs.push(("value".into(), value));
        parts.data.attrs.extend(attrs);
        parts.result_types.push(ty);
        Ok(parts)
    }

    /// MLIR's rule for `arith.constant`'s literal: a float type takes a float (or hexadecimal
    /// bit-pattern) literal, never a decimal integer ("unexpected decimal integer literal for a
    /// floating point value", `mlir/lib/AsmParser/AttributeParser.cpp`). (MLIR also wants a
    /// signless integer type; pto keeps reading `ui16` constants, which the PTO-AS `.const` form
    /// writes and the MLIR form prints: docs/design.md.)
    fn check_constant_literal(&self, text: &str, n: &Node<'i>, ty: TypeId) -> BResult<()> {
        let Type::Scalar(e) = self.m.ty(ty) else { return Ok(()) };
        let hex = text.trim_start_matches('-').starts_with("0x");
        if e.is_float() && !hex && !text.contains(['.', 'e', 'E']) {
            return Err(Diagnostic::error(
                DiagClass::ParseBadLiteral,
                self.node_span(n),
                format!("unexpected decimal integer literal `{text}` for a floating point value of type {} (write `{text}.0`)", e.name()),
            ));
        }
        Ok(())
    }

    /// Same-type scalar ops: `arith.addi %a, %b : T` (and unary `arith.negf %a : T`).
    fn fmt_arith_binary(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let arity = if opcode == Opcode::ArithNegf { 1 } else { 2 };
        let mut spans = Vec::new();
        for i in 0..arity {
            if i > 0 {
                c.expect_punct(",")?;
            }
            let n = c.expect_value()?;
            parts.data.operands.push(self.value_of(n)?);
            spans.push(self.node_span(n));
        }
        parts.data.num_ins = arity as u32;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("the operand type"))?;
        let ty = self.type_of(t)?;
        for (v, s) in parts.data.operands.clone().into_iter().zip(spans) {
            self.check_use_type(v, ty, s);
        }
        c.expect_end()?;
        parts.result_types.push(ty);
        Ok(parts)
    }

    fn fmt_arith_cmp(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let pred = match c.next() {
            Some(Node { syn: Syn::Word(w), .. }) => *w,
            _ => return Err(c.error("a predicate (`eq`, `slt`, ...)")),
        };
        use pto_ir::ops::{CMPF_PREDICATES, CMPI_PREDICATES};
        let ok = if opcode == Opcode::ArithCmpi { CMPI_PREDICATES.contains(&pred) } else { CMPF_PREDICATES.contains(&pred) };
        if !ok {
            c.pos -= 1;
            return Err(c.error("a valid comparison predicate"));
        }
        parts.data.attrs.push(("predicate".into(), Attr::Opaque(pred.to_string())));
        c.expect_punct(",")?;
        let a = c.expect_value()?;
        c.expect_punct(",")?;
        let b = c.expect_value()?;
        let (va, vb) = (self.value_of(a)?, self.value_of(b)?);
        parts.data.operands = vec![va, vb];
        parts.data.num_ins = 2;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("the operand type"))?;
        let ty = self.type_of(t)?;
        let (sa, sb) = (self.node_span(a), self.node_span(b));
        self.check_use_type(va, ty, sa);
        self.check_use_type(vb, ty, sb);
        c.expect_end()?;
        parts.result_types.push(self.int_type(ElemType::I1));
        Ok(parts)
    }

    fn fmt_arith_select(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ArithSelect);
        let mut nodes = Vec::new();
        for i in 0..3 {
            if i > 0 {
                c.expect_punct(",")?;
            }
            let n = c.expect_value()?;
            parts.data.operands.push(self.value_of(n)?);
            nodes.push(self.node_span(n));
        }
        parts.data.num_ins = 3;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_punct(":")?;
        let t = c.next().ok_or_else(|| c.error("the result type"))?;
        let ty = self.type_of(t)?;
        let ops = parts.data.operands.clone();
        self.check_use_type(ops[1], ty, nodes[1]);
        self.check_use_type(ops[2], ty, nodes[2]);
        c.expect_end()?;
        parts.result_types.push(ty);
        Ok(parts)
    }

    /// `return %a, %b : A, B` / `scf.yield ...` (both lists may be empty).
    fn fmt_terminator(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        self.operand_list_with_types(&mut c, &mut parts.data)?;
        c.expect_end()?;
        Ok(parts)
    }

    /// `%a, %b : A, B` (types required when values are present).
    fn operand_list_with_types(&mut self, c: &mut Cursor<'_, 'i>, data: &mut OpData) -> BResult<()> {
        let mut spans = Vec::new();
        while let Some(n @ Node { syn: Syn::Value(_), .. }) = c.peek() {
            c.pos += 1;
            data.operands.push(self.value_of(n)?);
            spans.push(self.node_span(n));
            if !c.eat_punct(",") {
                break;
            }
        }
        data.num_ins = data.operands.len() as u32;
        self.opt_dict(c, &mut data.attrs)?;
        if data.operands.is_empty() {
            return Ok(());
        }
        c.expect_punct(":")?;
        let rest = &c.nodes[c.pos..];
        c.pos = c.nodes.len();
        let tys = self.type_list(rest)?;
        if tys.len() != data.operands.len() {
            return Err(Diagnostic::error(
                DiagClass::ParseBadOpSyntax,
                spans[0],
                format!("{} value(s) but {} type(s)", data.operands.len(), tys.len()),
            ));
        }
        for ((&v, &t), s) in data.operands.clone().iter().zip(&tys).zip(spans) {
            self.check_use_type(v, t, s);
        }
        Ok(())
    }

    /// `-> T` or `-> (T, U)`; empty when absent.
    fn opt_result_types(&mut self, c: &mut Cursor<'_, 'i>) -> BResult<Vec<TypeId>> {
        if !c.eat_punct("->") {
            return Ok(Vec::new());
        }
        let n = c.next().ok_or_else(|| c.error("result types"))?;
        self.type_list(std::slice::from_ref(n))
    }

    fn fmt_scf_for(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ScfFor);
        let iv = c.expect_value()?;
        c.expect_punct("=")?;
        let lb = c.expect_value()?;
        c.expect_word("to")?;
        let ub = c.expect_value()?;
        c.expect_word("step")?;
        let step = c.expect_value()?;
        for n in [lb, ub, step] {
            let v = self.value_of(n)?;
            parts.data.operands.push(v);
        }
        let mut iter_names = Vec::new();
        if c.eat_word("iter_args") {
            let g = c.expect_group('(')?;
            let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
            for part in split_commas(inner) {
                let [name @ Node { syn: Syn::Value(nm), .. }, Node { syn: Syn::Punct("="), .. }, init] = part else {
                    return Err(c.error("`%arg = %init` in iter_args"));
                };
                let v = self.value_of(init)?;
                parts.data.operands.push(v);
                iter_names.push((*nm, self.node_span(name)));
            }
        }
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.result_types = self.opt_result_types(&mut c)?;
        let iv_ty = if c.eat_punct(":") {
            let t = c.next().ok_or_else(|| c.error("the induction variable type"))?;
            self.type_of(t)?
        } else {
            self.m.intern(Type::Scalar(ElemType::Index))
        };
        if parts.result_types.len() != iter_names.len() {
            return Err(c.error(&format!("{} result type(s) for {} iter_args", iter_names.len(), iter_names.len())));
        }
        let Syn::Value(iv_name) = iv.syn else { unreachable!("expect_value returns a value") };
        let mut args = vec![(iv_name, iv_ty, self.node_span(iv))];
        for ((name, span), &ty) in iter_names.into_iter().zip(&parts.result_types) {
            args.push((name, ty, span));
        }
        let plan = self.expect_region(&mut c, args, false)?;
        parts.regions.push(plan);
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_scf_if(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ScfIf);
        let cond = c.expect_value()?;
        parts.data.operands.push(self.value_of(cond)?);
        parts.data.num_ins = 1;
        parts.result_types = self.opt_result_types(&mut c)?;
        parts.regions.push(self.expect_region(&mut c, Vec::new(), false)?);
        if c.eat_word("else") {
            parts.regions.push(self.expect_region(&mut c, Vec::new(), false)?);
        }
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_scf_while(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ScfWhile);
        let g = c.expect_group('(')?;
        let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
        let mut names = Vec::new();
        for part in split_commas(inner) {
            let [name @ Node { syn: Syn::Value(nm), .. }, Node { syn: Syn::Punct("="), .. }, init] = part else {
                return Err(c.error("`%arg = %init`"));
            };
            let v = self.value_of(init)?;
            parts.data.operands.push(v);
            names.push((*nm, self.node_span(name)));
        }
        parts.data.num_ins = parts.data.operands.len() as u32;
        c.expect_punct(":")?;
        let before = c.next().ok_or_else(|| c.error("the argument types"))?;
        let before_t = self.type_list(std::slice::from_ref(before))?;
        c.expect_punct("->")?;
        let after = c.next().ok_or_else(|| c.error("the result types"))?;
        parts.result_types = self.type_list(std::slice::from_ref(after))?;
        if before_t.len() != names.len() {
            return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(before), "argument count and type count differ"));
        }
        for ((&v, &t), (_, s)) in parts.data.operands.clone().iter().zip(&before_t).zip(&names) {
            self.check_use_type(v, t, *s);
        }
        let args = names.into_iter().zip(before_t).map(|((n, s), t)| (n, t, s)).collect();
        parts.regions.push(self.expect_region(&mut c, args, false)?);
        c.expect_word("do")?;
        parts.regions.push(self.expect_region(&mut c, Vec::new(), false)?);
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_scf_condition(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::ScfCondition);
        let g = c.expect_group('(')?;
        let cond = self.value_list(g)?;
        if cond.len() != 1 {
            return Err(Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(g), "expected one condition value"));
        }
        let mut rest = OpData::new(Opcode::ScfCondition);
        self.operand_list_with_types(&mut c, &mut rest)?;
        c.expect_end()?;
        parts.data.operands = cond;
        parts.data.operands.extend(rest.operands);
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.data.attrs = rest.attrs;
        Ok(parts)
    }

    fn fmt_func(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::FuncFunc);
        let visibility = match c.peek() {
            Some(Node { syn: Syn::Word(w), .. }) if ["private", "public", "nested"].contains(w) => {
                c.pos += 1;
                Some(w.to_string())
            }
            _ => None,
        };
        let name = match c.next() {
            Some(Node { syn: Syn::Symbol(s), .. }) => s[1..].trim_matches('"').to_string(),
            _ => {
                c.pos -= 1;
                return Err(c.error("the function name `@name`"));
            }
        };
        let g = c.expect_group('(')?;
        let Syn::Group(_, inner) = &g.syn else { unreachable!("expect_group returns a group") };
        let mut args = Vec::new();
        let mut params = Vec::new();
        let mut arg_attrs = Vec::new();
        for part in split_commas(inner) {
            match part {
                [t @ Node { syn: Syn::Type(_) | Syn::Word(_), .. }] => {
                    // Declaration style: `(index, f32)`.
                    let ty = self.type_of(t)?;
                    params.push(ty);
                    arg_attrs.push(Attr::Dict(Vec::new()));
                }
                [v @ Node { syn: Syn::Value(nm), .. }, Node { syn: Syn::Punct(":"), .. }, t, rest @ ..] => {
                    let ty = self.type_of(t)?;
                    args.push((*nm, ty, self.node_span(v)));
                    match rest {
                        [] => arg_attrs.push(Attr::Dict(Vec::new())),
                        [Node { syn: Syn::Dict(p), .. }] => arg_attrs.push(Attr::Dict(self.dict_attrs(p)?)),
                        [n, ..] => {
                            return Err(Diagnostic::error(
                                DiagClass::ParseBadOpSyntax,
                                self.node_span(n),
                                format!("unexpected {}", n.describe()),
                            ));
                        }
                    }
                }
                [n, ..] => {
                    return Err(Diagnostic::error(
                        DiagClass::ParseBadOpSyntax,
                        self.node_span(n),
                        "expected a function argument `%name: type`",
                    ));
                }
                [] => {}
            }
        }
        let results = self.opt_result_types(&mut c)?;
        if c.eat_word("attributes") {
            match c.next() {
                Some(Node { syn: Syn::Dict(p), .. }) => {
                    let attrs = self.dict_attrs(p)?;
                    parts.data.attrs.extend(attrs);
                }
                _ => {
                    c.pos -= 1;
                    return Err(c.error("an attribute dictionary"));
                }
            }
        }
        if arg_attrs.iter().any(|a| !matches!(a, Attr::Dict(d) if d.is_empty())) {
            parts.data.attrs.push(("arg_attrs".into(), Attr::Array(arg_attrs)));
        }
        let has_body = !c.done();
        if has_body && !params.is_empty() {
            return Err(c.error("named arguments (`%name: type`) in a function with a body"));
        }
        if !has_body {
            // A declaration keeps only the parameter types.
            params.extend(args.iter().map(|a| a.1));
        }
        parts.data.payload = Payload::Func { name, visibility, results, params };
        if has_body {
            parts.regions.push(self.expect_region(&mut c, args, true)?);
        }
        c.expect_end()?;
        Ok(parts)
    }

    fn fmt_call(&mut self, mut c: Cursor<'_, 'i>, nresults: usize) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::FuncCall);
        let callee = match c.next() {
            Some(Node { syn: Syn::Symbol(s), .. }) => s[1..].to_string(),
            _ => {
                c.pos -= 1;
                return Err(c.error("the callee `@name`"));
            }
        };
        let g = c.expect_group('(')?;
        parts.data.operands = self.value_list(g)?;
        parts.data.num_ins = parts.data.operands.len() as u32;
        self.opt_dict(&mut c, &mut parts.data.attrs)?;
        if c.eat_punct(":") {
            let ins = c.next().ok_or_else(|| c.error("the callee's argument types"))?;
            let ins_t = self.type_list(std::slice::from_ref(ins))?;
            if ins_t.len() != parts.data.operands.len() {
                return Err(Diagnostic::error(DiagClass::StructArity, self.node_span(ins), "argument count and signature differ"));
            }
            let span = self.node_span(ins);
            for (&v, &t) in parts.data.operands.clone().iter().zip(&ins_t) {
                self.check_use_type(v, t, span);
            }
            c.expect_punct("->")?;
            let outs = c.next().ok_or_else(|| c.error("the callee's result types"))?;
            parts.result_types = self.type_list(std::slice::from_ref(outs))?;
            parts.data.attrs.push(("signature".into(), Attr::Bool(true)));
        } else if nresults > 0 {
            return Err(c.error("`: (argument types) -> (result types)`"));
        }
        c.expect_end()?;
        parts.data.payload = Payload::Call { callee };
        Ok(parts)
    }

    fn fmt_module(&mut self, mut c: Cursor<'_, 'i>) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(Opcode::Module);
        if let Some(Node { syn: Syn::Symbol(s), .. }) = c.peek() {
            parts.data.attrs.push(("sym_name".into(), Attr::Symbol(s[1..].to_string())));
            c.pos += 1;
        }
        if c.eat_word("attributes") {
            match c.next() {
                Some(Node { syn: Syn::Dict(p), .. }) => {
                    let attrs = self.dict_attrs(p)?;
                    parts.data.attrs.extend(attrs);
                }
                _ => {
                    c.pos -= 1;
                    return Err(c.error("an attribute dictionary"));
                }
            }
        }
        parts.regions.push(self.expect_region(&mut c, Vec::new(), true)?);
        c.expect_end()?;
        Ok(parts)
    }

    /// An op kept as its pieces, operands resolved. With a format in the op table the pieces
    /// must match it, and it tells which nodes are regions and which types are the results';
    /// without one (or when `custom` is false: the op written in MLIR's generic form), result
    /// types are read from a trailing `-> T` or `: T`.
    fn fmt_generic(&mut self, opcode: Opcode, c: Cursor<'_, 'i>, nresults: usize, custom: bool) -> BResult<OpParts<'i>> {
        let mut parts = OpParts::new(opcode);
        let format = &opcode.parsed().format;
        let (region_nodes, result_types) = if format.is_empty() || !custom {
            (Vec::new(), self.trailing_result_types(c.nodes, nresults)?)
        } else {
            let matched = format::match_pieces(format, c.nodes, c.end).map_err(|m| self.mismatch(&c, m))?;
            let mut tys = Vec::with_capacity(matched.results.len());
            for r in &matched.results {
                tys.push(self.result_type(r)?);
            }
            (matched.regions, tys)
        };
        let mut operands = Vec::new();
        let mut regions = Vec::new();
        let pieces = self.generic_pieces(c.nodes, &region_nodes, &mut operands, &mut regions)?;
        parts.result_types = result_types;
        parts.data.operands = operands;
        parts.data.num_ins = parts.data.operands.len() as u32;
        parts.data.payload = Payload::Generic(pieces);
        parts.regions = regions;
        Ok(parts)
    }

    /// A format mismatch as a located diagnostic.
    fn mismatch(&self, c: &Cursor<'_, 'i>, m: format::Mismatch) -> Diagnostic {
        // At the end of the input a mismatch is an empty span there (never past the text).
        let span = self.span(m.start, m.end.max(m.start));
        match m.message {
            Some(message) => {
                Diagnostic::error(DiagClass::ParseBadOpSyntax, span, format!("`{}`: {message}", c.op)).with_op(c.op.to_string())
            }
            None => Diagnostic::error(DiagClass::ParseBadOpSyntax, span, format!("`{}`: expected {}, found {}", c.op, m.expected, m.found))
                .with_op(c.op.to_string())
                .with_expected(m.expected, m.found),
        }
    }

    /// The type of a result as the format gives it; a stripped `<f32>` is `!pto.ptr<f32>`.
    fn result_type(&mut self, r: &ResultSpelling<'_, 'i>) -> BResult<TypeId> {
        match r {
            ResultSpelling::Implicit(e) => Ok(self.m.intern(Type::Scalar(*e))),
            ResultSpelling::Written(n @ Node { syn: Syn::Angle(body), .. }) => match parse_type(&format!("!pto.ptr<{body}>")) {
                Ok(t) => Ok(self.m.intern(t)),
                Err(e) => Err(Diagnostic::error(DiagClass::ParseBadType, self.node_span(n), e.message)),
            },
            ResultSpelling::Written(n) => self.type_of(n),
        }
    }

    /// Result types of an op without a format: after the last top-level `->`, else after the
    /// last top-level `:`; opaque `<untyped>` when none is written.
    fn trailing_result_types(&mut self, nodes: &[Node<'i>], nresults: usize) -> BResult<Vec<TypeId>> {
        if nresults == 0 {
            return Ok(Vec::new());
        }
        let tail = if let Some(i) = nodes.iter().rposition(|n| matches!(n.syn, Syn::Punct("->"))) {
            &nodes[i + 1..]
        } else if let Some(i) = nodes.iter().rposition(|n| matches!(n.syn, Syn::Punct(":"))) {
            &nodes[i + 1..]
        } else {
            &nodes[nodes.len()..]
        };
        let mut tys = Vec::new();
        for n in tail.iter().filter(|n| !matches!(n.syn, Syn::Region(_) | Syn::Dict(_))) {
            match &n.syn {
                Syn::Group('(', inner) => tys.extend(self.type_list(inner)?),
                Syn::Type(_) | Syn::Word(_) => tys.push(self.type_of(n)?),
                _ => {}
            }
        }
        if tys.is_empty() {
            let unknown = self.m.intern(Type::Opaque("<untyped>".into()));
            tys = vec![unknown; nresults];
        }
        Ok(tys)
    }

    /// The pieces of a generic op; `region_nodes` are the starts of empty `{}` that stand for
    /// an empty region.
    fn generic_pieces(
        &mut self,
        nodes: &[Node<'i>],
        region_nodes: &[usize],
        operands: &mut Vec<ValueId>,
        regions: &mut Vec<RegionPlan<'i>>,
    ) -> BResult<Vec<Piece>> {
        let mut out = Vec::with_capacity(nodes.len());
        for n in nodes {
            let piece = match &n.syn {
                Syn::Word(w) => Piece::Word(w.to_string()),
                Syn::Value(_) => {
                    let v = self.value_of(n)?;
                    operands.push(v);
                    Piece::Value(v)
                }
                Syn::Type(_) => Piece::Type(self.type_of(n)?),
                Syn::Attr(text) => {
                    Piece::Attr(parse_attr_text(text).map_err(|m| Diagnostic::error(DiagClass::ParseBadAttribute, self.node_span(n), m))?)
                }
                Syn::Symbol(s) => Piece::Symbol(s[1..].to_string()),
                Syn::Lit(l, _) => Piece::Literal(l.to_string()),
                Syn::Punct(p) => Piece::Punct(match *p {
                    "," => ",",
                    ":" => ":",
                    "=" => "=",
                    "->" => "->",
                    "?" => "?",
                    "*" => "*",
                    _ => "+",
                }),
                Syn::Group(open, inner) => Piece::Group(*open, self.generic_pieces(inner, region_nodes, operands, regions)?),
                Syn::Angle(text) => Piece::Group('<', vec![Piece::Literal(crate::types::normalize_ws(text))]),
                Syn::Dict(p) if p.is_empty() && region_nodes.contains(&n.start) => {
                    regions.push(RegionPlan { stmts: None, args: Vec::new(), isolated: false });
                    Piece::Region(regions.len() as u32 - 1)
                }
                Syn::Dict(p) => Piece::Dict(self.dict_attrs(p)?),
                Syn::Region(src) => {
                    regions.push(RegionPlan { stmts: Some(*src), args: Vec::new(), isolated: false });
                    Piece::Region(regions.len() as u32 - 1)
                }
            };
            out.push(piece);
        }
        Ok(out)
    }
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Adds the attributes a mnemonic's mode suffixes select (`mgather.row` sets `coalesce`); an
/// attribute set both by a suffix and in the dictionary is an error.
fn with_mode_attrs<'i>(mut parts: OpParts<'i>, modes: Vec<(String, Attr)>, name_span: Span) -> BResult<OpParts<'i>> {
    for (name, value) in modes {
        if parts.data.attr(&name).is_some() {
            return Err(Diagnostic::error(
                DiagClass::ParseDuplicateKey,
                name_span,
                format!("attribute `{name}` is set both by the mnemonic's suffix and in the attribute dictionary"),
            ));
        }
        parts.data.attrs.push((name, value));
    }
    Ok(parts)
}

/// A close op name for an unknown one (edit distance ≤ 2 on the mnemonic).
fn suggest(name: &str) -> Option<String> {
    let bare = name.strip_prefix("pto.").unwrap_or(name);
    let mut best: Option<(usize, String)> = None;
    for s in ops::all() {
        let d = ops::edit_distance(bare, s.name);
        if d <= 2 && best.as_ref().is_none_or(|b| d < b.0) {
            best = Some((d, if name.starts_with("pto.") || s.dialect != ops::Dialect::Pto { s.full_name() } else { s.name.to_string() }));
        }
    }
    best.map(|b| b.1)
}
