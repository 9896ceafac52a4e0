//! Export: a `pto` module as an MLIR module, built op by op through melior, verified by MLIR
//! and written in generic form (`"pto.tadd"(%0, %1, %2) : (...) -> ()`) or as bytecode.
//!
//! Every op becomes the MLIR op of the same name with the same operands (then its legacy
//! `wait(...)` events), results, attributes and regions; [`super::convention`] lists the bridge
//! attributes that carry the rest and the op-specific spellings (`func.func`'s
//! `function_type`, `arith.cmpi`'s integer predicate, operand segments). Each op is located at
//! its line and column in the `.pto` file, so MLIR's verifier points at the source.

use super::context::{Locator, Mlir};
use super::convention::*;
use super::convert::{ToMlir, float_value};
use super::{pieces, raw};
use melior::ir::block::BlockLike;
use melior::ir::operation::OperationBuilder;
use melior::ir::{Attribute, Block, Identifier, Location, Region, RegionLike, Type, Value, ValueLike};
use mlir_sys::*;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics, SourceMap, Span};
use pto_ir::module::{BlockId, OpId, Payload, Piece, RegionId};
use pto_ir::ops::{Opcode, Syntax};
use pto_ir::{Attr, Module, TypeId};

/// How the exported module is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// MLIR text in generic form.
    Text,
    /// MLIR bytecode.
    Bytecode,
}

/// Exports `m` (whose spans point into `sources`) as an MLIR module: generic-form text or
/// bytecode. Errors (a type or attribute MLIR cannot spell, a module MLIR's verifier rejects)
/// are `MLIR_EXPORT` diagnostics located in the `.pto` source.
pub fn export(m: &Module, sources: &SourceMap, format: Format) -> Result<Vec<u8>, Diagnostics> {
    let mlir = Mlir::new();
    let module =
        Exporter { mlir: &mlir, to: ToMlir::new(&mlir), m, sources, values: vec![None; m.values.len()], diags: Diagnostics::default() }
            .module()?;
    let op = module.as_operation().to_raw();
    if !module.as_operation().verify() {
        let locator = Locator::new(sources, first_file(m));
        let mut diags: Vec<Diagnostic> = mlir.take().iter().map(|c| locator.diagnostic(c, DiagClass::MlirExport)).collect();
        if !diags.iter().any(Diagnostic::is_error) {
            diags.push(Diagnostic::error(DiagClass::MlirExport, Span::new(first_file(m), 0, 0), "MLIR's verifier rejects the module"));
        }
        return Err(Diagnostics(diags));
    }
    Ok(match format {
        Format::Text => {
            let mut text = raw::printed(|cb, data| unsafe {
                let flags = mlirOpPrintingFlagsCreate();
                mlirOpPrintingFlagsPrintGenericOpForm(flags);
                mlirOperationPrintWithFlags(op, flags, cb, data);
                mlirOpPrintingFlagsDestroy(flags);
            });
            text.push(b'\n');
            text
        }
        Format::Bytecode => raw::printed(|cb, data| unsafe { mlirOperationWriteBytecode(op, cb, data) }),
    })
}

/// The file the module's ops come from (for diagnostics without a location).
fn first_file(m: &Module) -> pto_ir::FileId {
    m.op_spans.first().map(|s| s.file).unwrap_or_default()
}

struct Exporter<'c, 'm> {
    mlir: &'c Mlir,
    to: ToMlir<'c>,
    m: &'m Module,
    sources: &'m SourceMap,
    /// The MLIR value of each of our values, once built.
    values: Vec<Option<MlirValue>>,
    diags: Diagnostics,
}

impl<'c> Exporter<'c, '_> {
    fn fail(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(DiagClass::MlirExport, span, message));
    }

    /// The MLIR location of a span: `file:line:col` of its start.
    fn loc(&self, span: Span) -> Location<'c> {
        match self.sources.get(span.file) {
            Some(f) => {
                let (line, col) = f.line_col(span.start);
                Location::new(&self.mlir.ctx, &f.name, line, col)
            }
            None => Location::unknown(&self.mlir.ctx),
        }
    }

    fn ty(&mut self, t: TypeId, span: Span) -> Option<MlirType> {
        match self.to.ty(self.m, t) {
            Ok(t) => Some(t),
            Err(e) => {
                self.fail(span, e);
                None
            }
        }
    }

    fn module(mut self) -> Result<melior::ir::Module<'c>, Diagnostics> {
        let ctx = &self.mlir.ctx;
        let mut module = melior::ir::Module::new(Location::unknown(ctx));
        if let Some(form) = self.m.form {
            let attr = unsafe { Attribute::from_raw(self.to.str(form_name(form))) };
            module.as_operation_mut().set_attribute(FORM, attr);
        }
        let m = self.m;
        let top = m.body.map(|b| m.region(b).blocks.clone()).unwrap_or_default();
        if let Some(&extra) = top.get(1) {
            let span = m.block(extra).ops.first().map(|&o| m.op_span(o)).unwrap_or_default();
            self.fail(span, "a labelled block at the top level has no MLIR equivalent");
        }
        if let Some(&block) = top.first() {
            if m.block(block).args.is_empty() {
                for &op in &m.block(block).ops {
                    if let Some(op) = self.op(op) {
                        module.body().append_operation(op);
                    }
                }
            } else if let Some(program) = self.program(block) {
                module.body().append_operation(program);
            }
        }
        if self.diags.has_errors() { Err(self.diags) } else { Ok(module) }
    }

    /// A top-level block with `.arg` arguments, wrapped in a `pto.program` op.
    fn program(&mut self, block: BlockId) -> Option<melior::ir::Operation<'c>> {
        let body = self.block(block, false)?;
        let region = Region::new();
        region.append_block(body);
        let mut attrs = Vec::new();
        let names: Vec<&str> = self.m.block(block).args.iter().map(|&a| self.m.values[a.index()].name.as_str()).collect();
        if names.iter().any(|n| !n.is_empty()) {
            let blocks = [self.to.strings(&names)];
            let regions = [self.to.array(&blocks)];
            attrs.push((ARG_NAMES.to_string(), self.to.array(&regions)));
        }
        self.build(PROGRAM, Span::default(), &[], &[], &attrs, vec![region])
    }

    fn build(
        &mut self,
        name: &str,
        span: Span,
        operands: &[MlirValue],
        results: &[MlirType],
        attrs: &[(String, MlirAttribute)],
        regions: Vec<Region<'c>>,
    ) -> Option<melior::ir::Operation<'c>> {
        let ctx = &self.mlir.ctx;
        // SAFETY: every handle below was created in this context and checked non-null.
        let values: Vec<Value> = operands.iter().map(|&v| unsafe { Value::from_raw(v) }).collect();
        let types: Vec<Type> = results.iter().map(|&t| unsafe { Type::from_raw(t) }).collect();
        let named: Vec<(Identifier, Attribute)> =
            attrs.iter().map(|(k, a)| (Identifier::new(ctx, k), unsafe { Attribute::from_raw(*a) })).collect();
        let loc = if span == Span::default() { Location::unknown(ctx) } else { self.loc(span) };
        match OperationBuilder::new(name, loc)
            .add_operands(&values)
            .add_results(&types)
            .add_attributes(&named)
            .add_regions_vec(regions)
            .build()
        {
            Ok(op) => Some(op),
            Err(e) => {
                self.fail(span, format!("MLIR cannot create `{name}`: {e}"));
                None
            }
        }
    }

    fn region(&mut self, r: RegionId, implicit_yield: bool) -> Option<Region<'c>> {
        let region = Region::new();
        for &b in &self.m.region(r).blocks {
            let block = self.block(b, implicit_yield)?;
            region.append_block(block);
        }
        Some(region)
    }

    /// A block with its arguments and ops; `implicit_yield` adds the `scf.yield` MLIR needs
    /// when the block does not end with one.
    fn block(&mut self, b: BlockId, implicit_yield: bool) -> Option<Block<'c>> {
        let m = self.m;
        let data = m.block(b);
        let mut args = Vec::with_capacity(data.args.len());
        for &a in &data.args {
            let span = m.value_span(a);
            let t = self.ty(m.values[a.index()].ty, span)?;
            args.push((unsafe { Type::from_raw(t) }, self.loc(span)));
        }
        let block = Block::new(&args);
        for (i, &a) in data.args.iter().enumerate() {
            self.values[a.index()] = block.argument(i).ok().map(|arg| arg.to_raw());
        }
        for &op in &data.ops {
            if let Some(op) = self.op(op) {
                block.append_operation(op);
            }
        }
        if implicit_yield && data.ops.last().is_none_or(|&o| m.op(o).opcode != Opcode::ScfYield) {
            let span = data.ops.last().map(|&o| m.op_span(o)).unwrap_or_default();
            let marker = [(IMPLICIT.to_string(), self.to.unit())];
            let yield_op = self.build("scf.yield", span, &[], &[], &marker, Vec::new())?;
            block.append_operation(yield_op);
        }
        Some(block)
    }

    fn op(&mut self, id: OpId) -> Option<melior::ir::Operation<'c>> {
        let m = self.m;
        let d = m.op(id);
        let span = m.op_span(id);
        let mut operands = Vec::with_capacity(d.operands.len() + d.waits.len());
        for &v in d.operands.iter().chain(&d.waits) {
            match self.values[v.index()] {
                Some(raw) => operands.push(raw),
                None => {
                    // Normally the definition failed (already reported); otherwise say so.
                    if !self.diags.has_errors() {
                        let name = &m.values[v.index()].name;
                        self.fail(span, format!("operand `%{name}` is not defined before this op"));
                    }
                    return None;
                }
            }
        }
        let mut results = Vec::with_capacity(d.results.len());
        for &r in &d.results {
            results.push(self.ty(m.values[r.index()].ty, span)?);
        }
        let attrs = match self.attributes(id) {
            Ok(a) => a,
            Err(e) => {
                self.fail(span, e);
                return None;
            }
        };
        let implicit_yield = matches!(d.opcode, Opcode::ScfFor | Opcode::ScfIf);
        let mut regions = Vec::with_capacity(d.regions.len() + 1);
        for &r in &d.regions {
            regions.push(self.region(r, implicit_yield)?);
        }
        // MLIR always has `scf.if`'s else region and `func.func`'s body region (empty when absent).
        if (d.opcode == Opcode::ScfIf && regions.len() == 1) || (d.opcode == Opcode::FuncFunc && regions.is_empty()) {
            regions.push(Region::new());
        }
        let op = self.build(&d.opcode.full_name(), span, &operands, &results, &attrs, regions)?;
        for (i, &r) in d.results.iter().enumerate() {
            self.values[r.index()] = op.result(i).ok().map(|v| v.to_raw());
        }
        Some(op)
    }

    /// The MLIR attributes of op `id`: its own (in MLIR's spelling where MLIR has one) and the
    /// bridge attributes it needs.
    fn attributes(&mut self, id: OpId) -> Result<Vec<(String, MlirAttribute)>, String> {
        let m = self.m;
        let d = m.op(id);
        let to = &mut self.to;
        let mut out: Vec<(String, MlirAttribute)> = Vec::new();
        // Attributes exported under their own name and value; the special ones are taken out.
        let mut plain: Vec<(String, Attr)> = d.attrs.clone();
        let mut take = |key: &str| plain.iter().position(|(k, _)| k == key).map(|i| plain.remove(i).1);
        match d.opcode.spec().syntax {
            Syntax::Tile => {
                if let Payload::Segments(s) = &d.payload {
                    out.push((SEGMENTS.into(), to.dense_i32(s)));
                }
                let ins = d.num_ins as usize;
                if ins != default_ins(d.opcode, d.operands.len(), d.results.len()) {
                    out.push((INS.into(), to.int(ins as i64)));
                }
            }
            Syntax::AllocTile | Syntax::MakeTensorView => {
                if let Payload::Segments(s) = &d.payload {
                    out.push((SEGMENTS.into(), to.dense_i32(s)));
                }
            }
            Syntax::PartitionView => {
                if let Payload::IndexLists(lists) = &d.payload {
                    let dynamic = |i: usize| lists.get(i).map(|l| l.iter().filter(|e| e.is_none()).count() as u32).unwrap_or(0);
                    out.push((SEGMENTS.into(), to.dense_i32(&[1, dynamic(0), dynamic(1)])));
                    if lists.iter().flatten().any(Option::is_some) {
                        let statics = |i: usize| -> Vec<i64> {
                            lists.get(i).map(|l| l.iter().map(|e| e.unwrap_or(DYNAMIC)).collect()).unwrap_or_default()
                        };
                        out.push((STATIC_OFFSETS.into(), to.dense_i64(&statics(0))));
                        out.push((STATIC_SIZES.into(), to.dense_i64(&statics(1))));
                    }
                }
            }
            Syntax::ArithConstant => {
                if let Some(value) = take("value") {
                    let ty = to.ty(m, m.values[d.results.first().ok_or("`arith.constant` without a result")?.index()].ty)?;
                    let (attr, written) = match value {
                        // An integer on a float type (`1 : f32`) becomes a float, on `i1` a
                        // boolean (`true`): keep the integer.
                        Attr::Int(v, _) => {
                            let a = to.int_of_type(v, ty)?;
                            let reads_back = unsafe { mlirAttributeIsAInteger(a) && !mlirAttributeIsABool(a) };
                            (a, (!reads_back).then(|| to.int(v)))
                        }
                        // A float with more digits than its type holds reads back shorter: keep it.
                        Attr::Float(v, _) => {
                            let a = to.float_of_type(v, ty)?;
                            let f64_type = unsafe { mlirF64TypeGet(to.ctx()) };
                            (a, if unsafe { float_value(a) } != v { Some(to.float_of_type(v, f64_type)?) } else { None })
                        }
                        other => (to.attr(m, &other)?, None),
                    };
                    out.push(("value".into(), attr));
                    if let Some(w) = written {
                        out.push((VALUE.into(), w));
                    }
                }
            }
            Syntax::ArithCmp => {
                if let Some(p) = take("predicate") {
                    let name = match &p {
                        Attr::Opaque(s) => s.as_str(),
                        _ => "",
                    };
                    let index = predicates(d.opcode)
                        .iter()
                        .position(|q| *q == name)
                        .ok_or_else(|| format!("unknown predicate `{}`", pto_asm::print_attribute(m, &p)))?;
                    out.push(("predicate".into(), to.int(index as i64)));
                }
            }
            Syntax::FuncFunc => {
                if let Payload::Func { name, visibility, results, params } = &d.payload {
                    let inputs: Vec<TypeId> = match d.regions.first().and_then(|&r| m.region(r).blocks.first()) {
                        Some(&entry) => m.block(entry).args.iter().map(|&a| m.values[a.index()].ty).collect(),
                        None => params.clone(),
                    };
                    let inputs = inputs.iter().map(|&t| to.ty(m, t)).collect::<Result<Vec<_>, _>>()?;
                    let outputs = results.iter().map(|&t| to.ty(m, t)).collect::<Result<Vec<_>, _>>()?;
                    let fty = unsafe {
                        mlirFunctionTypeGet(to.ctx(), inputs.len() as isize, inputs.as_ptr(), outputs.len() as isize, outputs.as_ptr())
                    };
                    out.push(("sym_name".into(), to.str(name)));
                    out.push(("function_type".into(), to.type_attr(fty)));
                    if let Some(v) = visibility {
                        out.push(("sym_visibility".into(), to.str(v)));
                    }
                }
            }
            Syntax::FuncCall => {
                if let Payload::Call { callee } = &d.payload {
                    out.push(("callee".into(), to.symbol(callee)));
                }
                if take("signature").is_some() {
                    out.push((SIGNATURE.into(), to.unit()));
                }
            }
            Syntax::Module => {
                if let Some(sym) = take("sym_name") {
                    let Attr::Symbol(s) = &sym else { return Err("a module's `sym_name` must be a symbol".into()) };
                    out.push(("sym_name".into(), to.str(s)));
                }
            }
            Syntax::Generic => {
                if let Payload::Generic(pieces) = &d.payload {
                    let mut lifted = Vec::new();
                    out.push((SYNTAX.into(), pieces::encode(to, m, pieces, &mut lifted)?));
                    plain.extend(lifted);
                    if d.opcode == Opcode::MemrefAlloc {
                        out.push((SEGMENTS.into(), to.dense_i32(&alloc_segments(pieces))));
                    }
                }
            }
            _ => {}
        }
        for (k, a) in &plain {
            if BRIDGE.contains(&k.as_str()) {
                return Err(format!("attribute name `{k}` is reserved for the MLIR bridge"));
            }
            out.push((k.clone(), to.attr(m, a)?));
        }
        // Attribute order, when an import would not restore it by itself.
        let ours: Vec<String> = d.attrs.iter().map(|(k, _)| k.clone()).collect();
        let mut canonical = ours.clone();
        canonical_order(d.opcode, &mut canonical);
        if canonical != ours {
            out.push((ATTR_ORDER.into(), to.strings(&ours)));
        }
        self.bridge_names(id, &mut out);
        if !d.waits.is_empty() {
            out.push((WAITS.into(), self.to.int(d.waits.len() as i64)));
        }
        let mut seen = std::collections::HashSet::new();
        if let Some((k, _)) = out.iter().find(|(k, _)| !seen.insert(k.as_str())) {
            return Err(format!("attribute `{k}` appears twice"));
        }
        Ok(out)
    }

    /// `pto.names`, `pto.arg_names` and `pto.labels` of op `id`, when any name or label is set.
    fn bridge_names(&mut self, id: OpId, out: &mut Vec<(String, MlirAttribute)>) {
        let m = self.m;
        let d = m.op(id);
        let name = |v: &pto_ir::ValueId| m.values[v.index()].name.as_str();
        if d.results.iter().any(|r| !name(r).is_empty()) {
            let names: Vec<&str> = d.results.iter().map(name).collect();
            out.push((NAMES.into(), self.to.strings(&names)));
        }
        let blocks = |r: &RegionId| m.region(*r).blocks.iter().map(|&b| m.block(b));
        if d.regions.iter().flat_map(blocks).any(|b| b.args.iter().any(|a| !name(a).is_empty())) {
            let regions: Vec<MlirAttribute> = d
                .regions
                .iter()
                .map(|r| {
                    let per_block: Vec<MlirAttribute> =
                        blocks(r).map(|b| self.to.strings(&b.args.iter().map(name).collect::<Vec<_>>())).collect();
                    self.to.array(&per_block)
                })
                .collect();
            out.push((ARG_NAMES.into(), self.to.array(&regions)));
        }
        if d.regions.iter().flat_map(blocks).any(|b| b.label.is_some()) {
            let regions: Vec<MlirAttribute> = d
                .regions
                .iter()
                .map(|r| {
                    let labels: Vec<&str> = blocks(r).map(|b| b.label.as_deref().unwrap_or("")).collect();
                    self.to.strings(&labels)
                })
                .collect();
            out.push((LABELS.into(), self.to.array(&regions)));
        }
    }
}

/// `memref.alloc(%d...)[%s...]`: how many dynamic sizes and symbols (MLIR's operand segments).
fn alloc_segments(pieces: &[Piece]) -> [u32; 2] {
    let count = |open: char| {
        pieces.iter().find_map(|p| match p {
            Piece::Group(o, inner) if *o == open => Some(inner.iter().filter(|i| matches!(i, Piece::Value(_))).count() as u32),
            _ => None,
        })
    };
    [count('(').unwrap_or(0), count('[').unwrap_or(0)]
}
