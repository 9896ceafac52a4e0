//! The MLIR generic op form, for every op of the table:
//!
//! ```text
//! %r = "pto.tadd"(%a, %b, %c) <{properties}> ({regions}) {attributes} : (T, T, T) -> ()
//! ```
//!
//! `ptoas --mlir-print-op-generic` and MLIR tools write it; PTOAS's parser accepts it for every
//! op. Operands follow the op's ODS order, which is the op table's slot order (`ins`, then
//! `outs`); inherent attributes come as properties `<{...}>` or in the trailing dictionary (MLIR
//! moves them into properties), both read the same. The op-specific parts (how many operands are
//! `ins`, operand segments, enum arguments) are rebuilt here so the op means what its custom
//! form means; ops `pto` keeps verbatim keep the generic pieces and print back in generic form.

use super::{BResult, Builder, Cursor, OpParts, RegionPlan, split_commas};
use crate::reader::{Node, Source, Syn};
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Payload, TextForm};
use pto_ir::ops::{Opcode, Syntax};
use pto_ir::types::{Type, TypeId};

/// MLIR's operand segment attribute (PTOAS `AttrSizedOperandSegments`).
const SEGMENTS: &str = "operandSegmentSizes";

/// The pieces of a generic op after its name.
struct GenericTail<'a, 'i> {
    operands: &'a [Node<'i>],
    properties: Option<&'a Node<'i>>,
    regions: Vec<&'a Node<'i>>,
    attrs: Option<&'a Node<'i>>,
    operand_types: &'a Node<'i>,
    result_types: Option<&'a Node<'i>>,
}

impl<'i> Builder<'i, '_> {
    /// An op written in MLIR's generic form (the op name was a string literal).
    pub(super) fn fmt_mlir_generic(&mut self, opcode: Opcode, mut c: Cursor<'_, 'i>, nresults: usize) -> BResult<OpParts<'i>> {
        if opcode.spec().syntax == Syntax::Generic {
            // Kept verbatim: the generic pieces are the op's text (not matched against the
            // op's custom format).
            return self.fmt_generic(opcode, c, nresults, false);
        }
        let tail = generic_tail(&mut c)?;
        let mut parts = OpParts::new(opcode);
        let operand_nodes: Vec<&Node<'i>> = split_commas(tail.operands).into_iter().flatten().collect();
        for n in operand_nodes.iter().filter(|n| !matches!(n.syn, Syn::Punct(_))) {
            let v = self.value_of(n)?;
            parts.data.operands.push(v);
        }
        let operand_types = self.type_list(std::slice::from_ref(tail.operand_types))?;
        if operand_types.len() != parts.data.operands.len() {
            return Err(Diagnostic::error(
                DiagClass::StructArity,
                self.node_span(tail.operand_types),
                format!("the signature lists {} operand type(s) for {} operand(s)", operand_types.len(), parts.data.operands.len()),
            ));
        }
        let span = self.node_span(tail.operand_types);
        for (&v, &t) in parts.data.operands.clone().iter().zip(&operand_types) {
            self.check_use_type(v, t, span);
        }
        parts.result_types = match tail.result_types {
            Some(n) => self.type_list(std::slice::from_ref(n))?,
            None => Vec::new(),
        };
        let mut attrs = Vec::new();
        if let Some(p) = tail.properties {
            attrs.extend(self.properties(p)?);
        }
        if let Some(Node { syn: Syn::Dict(entries), .. }) = tail.attrs {
            attrs.extend(self.dict_attrs(entries)?);
        }
        let isolated = matches!(opcode, Opcode::FuncFunc | Opcode::Module);
        for r in &tail.regions {
            let plan = match r.syn {
                Syn::Dict(_) => RegionPlan { stmts: None, args: Vec::new(), isolated },
                _ => self
                    .region_plan(r, Vec::new(), isolated)
                    .ok_or_else(|| Diagnostic::error(DiagClass::ParseBadOpSyntax, self.node_span(r), "expected a region `{ ... }`"))?,
            };
            parts.regions.push(plan);
        }
        parts.data.num_ins = parts.data.operands.len() as u32;
        self.generic_semantics(&mut parts, attrs, &tail)?;
        Ok(parts)
    }

    /// Reads `<{...}>` properties as attributes.
    fn properties(&mut self, n: &Node<'i>) -> BResult<Vec<(String, Attr)>> {
        let Syn::Angle(text) = n.syn else { return Ok(Vec::new()) };
        let span = self.node_span(n);
        let bad = |m: String| Diagnostic::error(DiagClass::ParseBadAttribute, span, m);
        let src = Source::new(text, self.file).map_err(|d| bad(d.message))?;
        let node = src.attribute().map_err(|d| bad(d.message))?;
        match self.attr_value(&node)? {
            Attr::Dict(entries) => Ok(entries),
            other => Err(bad(format!("expected a property dictionary `<{{...}}>`, found {}", other.kind_name()))),
        }
    }

    /// Turns the generic operands and attributes into what the custom form of `parts`'s op
    /// builds: `ins` count, segments, enum arguments, symbols.
    fn generic_semantics(&mut self, parts: &mut OpParts<'i>, mut attrs: Vec<(String, Attr)>, tail: &GenericTail<'_, 'i>) -> BResult<()> {
        let opcode = parts.data.opcode;
        let n = parts.data.operands.len();
        let span = self.node_span(tail.operand_types);
        let err = |m: String| Diagnostic::error(DiagClass::ParseBadOpSyntax, span, m).with_op(opcode.spec().full_name());
        let segments = take(&mut attrs, SEGMENTS).map(|a| segment_list(&a)).transpose().map_err(err)?;
        if let Some(s) = &segments
            && s.iter().map(|&k| u64::from(k)).sum::<u64>() != n as u64
        {
            return Err(err(format!("`{SEGMENTS}` {s:?} does not add up to the {n} operands")));
        }
        match opcode.spec().syntax {
            Syntax::Tile if !opcode.spec().ods.is_empty() && segments.is_some() => {
                let segments = segments.unwrap_or_default();
                parts.data.num_ins = ods_order(&mut parts.data.operands, opcode, &segments).map_err(err)?;
            }
            Syntax::Tile => {
                parts.data.num_ins = opcode.default_ins(n, parts.result_types.len()) as u32;
                // A scalar result is PTOAS's DPS `outs : T` (`tgetval`). An op written with
                // neither operands nor results reads the same in both forms and leaves the
                // choice to a later op; a tile result is Level 1, short form or SSA as the file's
                // directives say (`build_file`).
                if parts.result_types.is_empty() && n == 0 {
                } else if parts.result_types.iter().all(|&t| matches!(self.m.ty(t), Type::Scalar(_))) {
                    self.set_form(TextForm::Dps);
                } else {
                    self.generic_level1 = true;
                }
            }
            Syntax::AllocTile => parts.data.payload = Payload::Segments(segments.unwrap_or_else(|| vec![0, 0, 0])),
            Syntax::MakeTensorView => {
                let s = match segments {
                    Some(s) => s,
                    None if n % 2 == 1 => vec![1, (n as u32 - 1) / 2, (n as u32 - 1) / 2],
                    None => return Err(err(format!("a tensor view with {n} operands needs `{SEGMENTS}`"))),
                };
                parts.data.payload = Payload::Segments(s);
            }
            Syntax::PartitionView => {
                let s = match segments {
                    Some(s) if s.len() == 3 => s,
                    None if n % 2 == 1 => vec![1, (n as u32 - 1) / 2, (n as u32 - 1) / 2],
                    _ => return Err(err(format!("`pto.partition_view` needs `{SEGMENTS}` (source, offsets, sizes)"))),
                };
                parts.data.payload = Payload::IndexLists(vec![vec![None; s[1] as usize], vec![None; s[2] as usize]]);
            }
            Syntax::BracketArgs => {
                let args: Vec<Attr> = opcode.enum_argument_names().iter().filter_map(|name| take(&mut attrs, name)).collect();
                parts.data.attrs.push(("args".into(), Attr::Array(args)));
            }
            Syntax::AngleArg => {
                let pipe = take(&mut attrs, "pipe").ok_or_else(|| err("`pto.barrier` needs its `pipe` attribute".into()))?;
                parts.data.attrs.push(("pipe".into(), pipe));
            }
            Syntax::ArithCmp => {
                let table = opcode.predicates();
                let name = match take(&mut attrs, "predicate") {
                    Some(Attr::Int(i, _)) => usize::try_from(i).ok().and_then(|i| table.get(i)).copied(),
                    Some(Attr::Opaque(s) | Attr::Str(s)) => table.iter().find(|p| **p == s).copied(),
                    _ => None,
                };
                let name = name.ok_or_else(|| err("`predicate` must be a comparison predicate".into()))?;
                parts.data.attrs.push(("predicate".into(), Attr::Opaque(name.to_string())));
            }
            Syntax::FuncCall => {
                let callee = match take(&mut attrs, "callee") {
                    Some(Attr::Symbol(s)) => s,
                    _ => return Err(err("`func.call` needs `callee = @name`".into())),
                };
                parts.data.payload = Payload::Call { callee };
                parts.data.attrs.push(("signature".into(), Attr::Bool(true)));
            }
            Syntax::FuncFunc => {
                let name = match take(&mut attrs, "sym_name") {
                    Some(Attr::Str(s) | Attr::Symbol(s)) => s,
                    _ => return Err(err("`func.func` needs `sym_name = \"name\"`".into())),
                };
                let visibility = match take(&mut attrs, "sym_visibility") {
                    Some(Attr::Str(s)) => Some(s),
                    _ => None,
                };
                let (params, results) = match take(&mut attrs, "function_type") {
                    Some(Attr::Opaque(text)) => self.function_type(&text).map_err(err)?,
                    _ => return Err(err("`func.func` needs `function_type = (...) -> (...)`".into())),
                };
                // A function with a body names its parameters as entry-block arguments.
                let params = if tail.regions.is_empty() { params } else { Vec::new() };
                parts.data.payload = Payload::Func { name, visibility, results, params };
            }
            Syntax::Module => {
                if let Some(Attr::Str(s) | Attr::Symbol(s)) = take(&mut attrs, "sym_name") {
                    parts.data.attrs.push(("sym_name".into(), Attr::Symbol(s)));
                }
            }
            _ => {}
        }
        parts.data.attrs.extend(attrs);
        Ok(())
    }

    /// The parameter and result types of a function type written `(A, B) -> (C, D)` or
    /// `(A) -> C`.
    fn function_type(&mut self, text: &str) -> Result<(Vec<TypeId>, Vec<TypeId>), String> {
        let (params, results) = split_top_level(text, "->").ok_or_else(|| format!("`{text}` is not a function type"))?;
        Ok((self.type_texts(params)?, self.type_texts(results)?))
    }

    /// The types of `(A, B)` or of a single `A`.
    fn type_texts(&mut self, text: &str) -> Result<Vec<TypeId>, String> {
        let text = text.trim();
        let inner = text.strip_prefix('(').and_then(|r| r.strip_suffix(')')).unwrap_or(text);
        let mut out = Vec::new();
        for part in split_commas_text(inner) {
            let ty = crate::types::parse_type(part.trim()).map_err(|e| e.message)?;
            out.push(self.m.intern(ty));
        }
        Ok(out)
    }
}

/// Splits `text` at the first `sep` outside brackets. Inside `<...>` only angle brackets nest, as
/// the lexer reads them: the body of `!t<(>` is opaque text, not an open parenthesis, and the `>`
/// of an arrow `->` closes nothing. A string literal (`"..."`, backslash escapes) is opaque
/// everywhere, as the lexer's `skip_angle` takes it: `!t<"<">` is one closed type.
fn split_top_level<'t>(text: &'t str, sep: &str) -> Option<(&'t str, &'t str)> {
    let (mut depth, mut angles) = (0i32, 0i32);
    for (i, ch) in crate::outside_strings(text) {
        if angles > 0 {
            match ch {
                '<' => angles += 1,
                '>' if !text[..i].ends_with('-') => angles -= 1,
                _ => {}
            }
            continue;
        }
        match ch {
            '<' => angles += 1,
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ if depth == 0 && text[i..].starts_with(sep) => return Some((&text[..i], &text[i + sep.len()..])),
            _ => {}
        }
    }
    None
}

/// The comma-separated parts of `text` outside brackets (none for blank text).
fn split_commas_text(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some((head, tail)) = split_top_level(rest, ",") {
        parts.push(head);
        rest = tail;
    }
    if !rest.trim().is_empty() {
        parts.push(rest);
    }
    parts
}

/// Splits the pieces after a generic op's name into its parts.
fn generic_tail<'a, 'i>(c: &mut Cursor<'a, 'i>) -> BResult<GenericTail<'a, 'i>> {
    let operands = match c.next() {
        Some(Node { syn: Syn::Group('(', inner), .. }) => inner.as_slice(),
        _ => {
            c.pos -= 1;
            return Err(c.error("the operand list `(%a, ...)` of a generic op"));
        }
    };
    if matches!(c.peek(), Some(Node { syn: Syn::Group('[', _), .. })) {
        return Err(c.error("no successor list (block successors are not PTO)"));
    }
    let properties = match c.peek() {
        Some(n @ Node { syn: Syn::Angle(text), .. }) if text.trim_start().starts_with('{') => {
            c.pos += 1;
            Some(n)
        }
        _ => None,
    };
    let mut regions = Vec::new();
    if let Some(Node { syn: Syn::Group('(', inner), .. }) = c.peek()
        && !inner.is_empty()
        && inner.iter().all(|n| is_region(n) || matches!(n.syn, Syn::Punct(",")))
    {
        c.pos += 1;
        regions.extend(inner.iter().filter(|n| is_region(n)));
    }
    let attrs = match c.peek() {
        Some(n @ Node { syn: Syn::Dict(_), .. }) => {
            c.pos += 1;
            Some(n)
        }
        _ => None,
    };
    c.expect_punct(":")?;
    let operand_types = match c.next() {
        Some(n @ Node { syn: Syn::Group('(', _), .. }) => n,
        _ => {
            c.pos -= 1;
            return Err(c.error("the operand types `(T, ...)`"));
        }
    };
    c.expect_punct("->")?;
    let result_types = match c.next() {
        Some(Node { syn: Syn::Group('(', inner), .. }) if inner.is_empty() => None,
        Some(n @ Node { syn: Syn::Group('(', _) | Syn::Type(_) | Syn::Word(_), .. }) => Some(n),
        _ => {
            c.pos -= 1;
            return Err(c.error("the result types"));
        }
    };
    c.expect_end()?;
    Ok(GenericTail { operands, properties, regions, attrs, operand_types, result_types })
}

/// A region, or an empty `{ }` (which the reader cannot tell from an empty dictionary).
fn is_region(n: &Node<'_>) -> bool {
    matches!(&n.syn, Syn::Region(_)) || matches!(&n.syn, Syn::Dict(entries) if entries.is_empty())
}

/// Removes attribute `name` from `attrs`, returning its value.
fn take(attrs: &mut Vec<(String, Attr)>, name: &str) -> Option<Attr> {
    let i = attrs.iter().position(|(n, _)| n == name)?;
    Some(attrs.remove(i).1)
}

/// `array<i32: 1, 0, 1>` (or a plain array) as counts.
fn segment_list(a: &Attr) -> Result<Vec<u32>, String> {
    let items: Vec<i64> = match a {
        Attr::Array(items) => items.iter().filter_map(Attr::as_int).collect(),
        Attr::Opaque(text) => text
            .trim()
            .strip_prefix("array<i32")
            .and_then(|t| t.strip_suffix('>'))
            .map(|t| t.trim_start_matches(':').split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    items.iter().map(|&i| u32::try_from(i).map_err(|_| format!("`{SEGMENTS}` holds a negative count {i}"))).collect()
}

/// Puts the operands of an op whose ODS order is not `ins` then `outs` ([`OpSpec::ods`]) in
/// slot order, reading `segments` (the generic form's `operandSegmentSizes`) against the ODS
/// names; returns how many are `ins`.
///
/// [`OpSpec::ods`]: pto_ir::ops::OpSpec::ods
fn ods_order(operands: &mut Vec<pto_ir::module::ValueId>, opcode: Opcode, segments: &[u32]) -> Result<u32, String> {
    let names: Vec<&str> = opcode.spec().ods.split_whitespace().collect();
    if names.len() != segments.len() {
        return Err(format!("`{SEGMENTS}` has {} entries; the op's operand groups are {}", segments.len(), names.join(", ")));
    }
    let forms = &opcode.parsed().forms;
    let is_out = |name: &str| forms.iter().any(|f| f.outs.iter().any(|s| s.name == name));
    let (mut ins, mut outs) = (Vec::new(), Vec::new());
    let mut next = operands.iter().copied();
    for (name, &count) in names.iter().zip(segments) {
        let group: Vec<_> = next.by_ref().take(count as usize).collect();
        if is_out(name) { outs.extend(group) } else { ins.extend(group) }
    }
    let num_ins = ins.len() as u32;
    *operands = ins.into_iter().chain(outs).collect();
    Ok(num_ins)
}
