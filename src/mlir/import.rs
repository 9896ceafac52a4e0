//! Import: MLIR text (generic form) or bytecode → parsed and verified by MLIR → a `pto` module.
//!
//! The walk maps each MLIR op to the op table by its full name and rebuilds operands, results,
//! attributes, payloads and regions, reading the bridge attributes of [`super::convention`]
//! when they are there and falling back to what the op table implies when they are not (MLIR
//! written by hand or by another tool). Problems are located at the MLIR op: `MLIR_PARSE` for
//! input MLIR rejects, `MLIR_IMPORT` for a valid MLIR module `pto` cannot represent (an unknown
//! op, a malformed PTO type or attribute, block successors).

use super::context::{Locator, Mlir};
use super::convention::*;
use super::convert::{FromMlir, float_value, integer_value};
use super::{pieces, raw};
use mlir_sys::*;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics, FileId, SourceMap, Span};
use pto_ir::module::{BlockId, OpData, Payload, RegionId, ValueId};
use pto_ir::ops::{self, Opcode, Syntax};
use pto_ir::{Attr, Module, TextForm, TypeId};
use std::collections::{HashMap, HashSet};

/// The bytecode magic number (`ML\xEFR`).
pub const BYTECODE_MAGIC: &[u8] = b"ML\xEFR";

/// Imports an MLIR module (text in generic form or bytecode, told apart by MLIR) into a `pto`
/// module. `file` is the input's id in `sources`, where the text of a textual input must be:
/// MLIR's locations point into it. Returns the module and MLIR's warnings.
pub fn import(input: &[u8], file: FileId, sources: &SourceMap) -> Result<(Module, Diagnostics), Diagnostics> {
    let mlir = Mlir::new();
    let locator = Locator::new(sources, file);
    // An 8-byte aligned copy (the bytecode reader may require aligned sections) followed by a
    // NUL byte: MLIR's lexer reads one byte past the text and expects the terminator there.
    let mut words = vec![0u64; (input.len() + 1).div_ceil(8)];
    // SAFETY: `words` holds at least `input.len() + 1` bytes.
    let bytes = unsafe {
        std::ptr::copy_nonoverlapping(input.as_ptr(), words.as_mut_ptr().cast::<u8>(), input.len());
        std::slice::from_raw_parts(words.as_ptr().cast::<u8>(), input.len())
    };
    let module = OwnedModule(unsafe { mlirModuleCreateParse(mlir.ctx.to_raw(), raw::string_ref(bytes)) });
    let captured = mlir.take();
    let mut parse_diags: Vec<Diagnostic> = captured.iter().map(|c| locator.diagnostic(c, DiagClass::MlirParse)).collect();
    if module.0.ptr.is_null() {
        if !parse_diags.iter().any(Diagnostic::is_error) {
            parse_diags.push(Diagnostic::error(DiagClass::MlirParse, Span::new(file, 0, 0), "MLIR cannot read the input"));
        }
        return Err(Diagnostics(parse_diags));
    }
    let mut importer = Importer {
        m: Module::new(),
        from: FromMlir::default(),
        values: HashMap::new(),
        poisoned: HashSet::new(),
        locator,
        diags: Diagnostics(parse_diags),
    };
    importer.module(unsafe { mlirModuleGetOperation(module.0) });
    if importer.diags.has_errors() { Err(importer.diags) } else { Ok((importer.m, importer.diags)) }
}

/// A parsed module, destroyed on drop (before its context).
struct OwnedModule(MlirModule);

impl Drop for OwnedModule {
    fn drop(&mut self) {
        if !self.0.ptr.is_null() {
            unsafe { mlirModuleDestroy(self.0) };
        }
    }
}

/// The regions, blocks and ops of MLIR handles, as vectors.
fn regions(op: MlirOperation) -> Vec<MlirRegion> {
    let n = unsafe { mlirOperationGetNumRegions(op) };
    (0..n).map(|i| unsafe { mlirOperationGetRegion(op, i) }).collect()
}

fn blocks(r: MlirRegion) -> Vec<MlirBlock> {
    let mut out = Vec::new();
    let mut b = unsafe { mlirRegionGetFirstBlock(r) };
    while !b.ptr.is_null() {
        out.push(b);
        b = unsafe { mlirBlockGetNextInRegion(b) };
    }
    out
}

fn ops_of(b: MlirBlock) -> Vec<MlirOperation> {
    let mut out = Vec::new();
    let mut op = unsafe { mlirBlockGetFirstOperation(b) };
    while !op.ptr.is_null() {
        out.push(op);
        op = unsafe { mlirOperationGetNextInBlock(op) };
    }
    out
}

/// An op's attributes (inherent and discardable), taken out one by one.
struct Attrs(Vec<(String, MlirAttribute)>);

impl Attrs {
    fn of(op: MlirOperation) -> Attrs {
        let n = unsafe { mlirOperationGetNumAttributes(op) };
        Attrs(
            (0..n)
                .map(|i| {
                    let a = unsafe { mlirOperationGetAttribute(op, i) };
                    (raw::identifier(a.name), a.attribute)
                })
                .collect(),
        )
    }

    fn take(&mut self, name: &str) -> Option<MlirAttribute> {
        self.0.iter().position(|(k, _)| k == name).map(|i| self.0.remove(i).1)
    }

    fn take_int(&mut self, name: &str) -> Result<Option<i64>, String> {
        match self.take(name) {
            None => Ok(None),
            Some(a) if unsafe { mlirAttributeIsAInteger(a) } => unsafe { integer_value(a) }.map(Some),
            Some(a) => Err(format!("`{name}` must be an integer, found `{}`", raw::attr_text(a))),
        }
    }

    fn take_string(&mut self, name: &str) -> Result<Option<String>, String> {
        self.take(name).map(|a| string(a).ok_or_else(|| format!("`{name}` must be a string, found `{}`", raw::attr_text(a)))).transpose()
    }

    /// `array<i32: ...>` as counts.
    fn take_segments(&mut self, name: &str) -> Result<Option<Vec<u32>>, String> {
        let Some(a) = self.take(name) else { return Ok(None) };
        if !unsafe { mlirAttributeIsADenseI32Array(a) } {
            return Err(format!("`{name}` must be `array<i32: ...>`, found `{}`", raw::attr_text(a)));
        }
        let n = unsafe { mlirDenseArrayGetNumElements(a) };
        (0..n)
            .map(|i| u32::try_from(unsafe { mlirDenseI32ArrayGetElement(a, i) }).map_err(|_| format!("negative entry in `{name}`")))
            .collect::<Result<_, _>>()
            .map(Some)
    }

    fn take_i64s(&mut self, name: &str) -> Result<Option<Vec<i64>>, String> {
        let Some(a) = self.take(name) else { return Ok(None) };
        if !unsafe { mlirAttributeIsADenseI64Array(a) } {
            return Err(format!("`{name}` must be `array<i64: ...>`, found `{}`", raw::attr_text(a)));
        }
        let n = unsafe { mlirDenseArrayGetNumElements(a) };
        Ok(Some((0..n).map(|i| unsafe { mlirDenseI64ArrayGetElement(a, i) }).collect()))
    }
}

/// A string attribute's value.
fn string(a: MlirAttribute) -> Option<String> {
    unsafe { mlirAttributeIsAString(a) }.then(|| raw::to_string(unsafe { mlirStringAttrGetValue(a) }))
}

/// The elements of an array attribute.
fn elements(a: MlirAttribute, what: &str) -> Result<Vec<MlirAttribute>, String> {
    if !unsafe { mlirAttributeIsAArray(a) } {
        return Err(format!("`{what}` must be an array, found `{}`", raw::attr_text(a)));
    }
    let n = unsafe { mlirArrayAttrGetNumElements(a) };
    Ok((0..n).map(|i| unsafe { mlirArrayAttrGetElement(a, i) }).collect())
}

/// `["a", "b"]` as strings.
fn strings(a: MlirAttribute, what: &str) -> Result<Vec<String>, String> {
    elements(a, what)?.into_iter().map(|e| string(e).ok_or_else(|| format!("`{what}` must hold strings"))).collect()
}

/// A value name the printer can write back (`%name`).
fn check_name(name: &str) -> Result<(), String> {
    if name.chars().all(|c| c.is_ascii_alphanumeric() || "_$.#-".contains(c)) {
        Ok(())
    } else {
        Err(format!("value name `{name}` cannot be written as `%{name}`"))
    }
}

/// Per region, per block: names of block arguments (`pto.arg_names`) or labels (`pto.labels`).
#[derive(Default)]
struct BlockNames {
    args: Vec<Vec<Vec<String>>>,
    labels: Vec<Vec<String>>,
}

impl BlockNames {
    fn take(attrs: &mut Attrs) -> Result<BlockNames, String> {
        let mut out = BlockNames::default();
        if let Some(a) = attrs.take(ARG_NAMES) {
            for region in elements(a, ARG_NAMES)? {
                let per_block = elements(region, ARG_NAMES)?.into_iter().map(|b| strings(b, ARG_NAMES)).collect::<Result<_, _>>()?;
                out.args.push(per_block);
            }
        }
        if let Some(a) = attrs.take(LABELS) {
            out.labels = elements(a, LABELS)?.into_iter().map(|r| strings(r, LABELS)).collect::<Result<_, _>>()?;
        }
        Ok(out)
    }

    fn arg(&self, region: usize, block: usize, arg: usize) -> &str {
        self.args.get(region).and_then(|r| r.get(block)).and_then(|b| b.get(arg)).map(String::as_str).unwrap_or("")
    }

    fn label(&self, region: usize, block: usize) -> Option<String> {
        self.labels.get(region).and_then(|r| r.get(block)).filter(|l| !l.is_empty()).cloned()
    }
}

struct Importer<'s> {
    m: Module,
    from: FromMlir,
    /// Our value for each MLIR value (by handle).
    values: HashMap<usize, ValueId>,
    /// MLIR values whose defining op could not be imported (uses are skipped quietly).
    poisoned: HashSet<usize>,
    locator: Locator<'s>,
    diags: Diagnostics,
}

impl Importer<'_> {
    fn error(&mut self, span: Span, message: impl Into<String>) {
        self.diags.push(Diagnostic::error(DiagClass::MlirImport, span, message));
    }

    fn span_of(&self, op: MlirOperation) -> Span {
        let loc = raw::location_text(unsafe { mlirOperationGetLocation(op) });
        self.locator.span(&loc).unwrap_or(Span::new(self.locator.input, 0, 0))
    }

    /// The top-level module: its form, then its body (unwrapping `pto.program`). A module with
    /// attributes of its own becomes an explicit `module` op.
    fn module(&mut self, op: MlirOperation) {
        let span = self.span_of(op);
        let mut attrs = Attrs::of(op);
        match attrs.take_string(FORM) {
            Ok(Some(name)) => match form_from_name(&name) {
                Some(form) => self.m.form = Some(form),
                None => self.error(span, format!("unknown `{FORM}` `{name}` (expected short, ssa or dps)")),
            },
            Ok(None) => {}
            Err(e) => self.error(span, e),
        }
        let body = self.m.add_region();
        self.m.body = Some(body);
        let top = self.m.add_block(body, None);
        if !attrs.0.is_empty() {
            self.op(op, top);
        } else {
            let body_ops: Vec<MlirOperation> = regions(op).into_iter().flat_map(blocks).flat_map(ops_of).collect();
            match body_ops.as_slice() {
                [only] if raw::op_name(*only) == PROGRAM => self.program(*only, top),
                _ => {
                    for o in body_ops {
                        self.op(o, top);
                    }
                }
            }
        }
        if self.m.form.is_none() {
            self.m.form = self.inferred_form();
        }
    }

    /// A PTO-AS program: the `pto.program` block's arguments and ops go to the top-level block.
    fn program(&mut self, op: MlirOperation, top: BlockId) {
        let span = self.span_of(op);
        let mut attrs = Attrs::of(op);
        let names = match BlockNames::take(&mut attrs) {
            Ok(n) => n,
            Err(e) => return self.error(span, e),
        };
        let body = regions(op).into_iter().flat_map(blocks).collect::<Vec<_>>();
        let [block] = body.as_slice() else { return self.error(span, format!("`{PROGRAM}` must hold exactly one block")) };
        self.block_args(*block, top, &names, 0, 0, span);
        for o in ops_of(*block) {
            self.op(o, top);
        }
    }

    /// The form of a module that does not say: DPS when the first tile op has no results, SSA
    /// when it has (as the reader decides from the first tile op it reads).
    fn inferred_form(&self) -> Option<TextForm> {
        let first = self.m.walk().into_iter().find(|&o| self.m.op(o).opcode.spec().syntax == Syntax::Tile)?;
        Some(if self.m.op(first).results.is_empty() { TextForm::Dps } else { TextForm::Ssa })
    }

    fn block_args(&mut self, block: MlirBlock, into: BlockId, names: &BlockNames, region: usize, index: usize, span: Span) {
        let n = unsafe { mlirBlockGetNumArguments(block) };
        for i in 0..n {
            let arg = unsafe { mlirBlockGetArgument(block, i) };
            let name = names.arg(region, index, i as usize).to_string();
            let ty = match self.from.ty(&mut self.m, unsafe { mlirValueGetType(arg) }).and_then(|t| check_name(&name).map(|_| t)) {
                Ok(t) => t,
                Err(e) => {
                    self.error(span, e);
                    self.poisoned.insert(arg.ptr as usize);
                    continue;
                }
            };
            let v = self.m.add_block_arg(into, ty, name, span);
            self.values.insert(arg.ptr as usize, v);
        }
    }

    fn poison_results(&mut self, op: MlirOperation) {
        for i in 0..unsafe { mlirOperationGetNumResults(op) } {
            self.poisoned.insert(unsafe { mlirOperationGetResult(op, i) }.ptr as usize);
        }
    }

    /// Imports one op (and its regions) at the end of `block`.
    fn op(&mut self, op: MlirOperation, block: BlockId) {
        let span = self.span_of(op);
        if let Err(e) = self.try_op(op, block, span) {
            if let Some(e) = e {
                self.error(span, e);
            }
            self.poison_results(op);
        }
    }

    /// `Err(None)`: an operand comes from an op that failed (already reported).
    fn try_op(&mut self, op: MlirOperation, block: BlockId, span: Span) -> Result<(), Option<String>> {
        let name = raw::op_name(op);
        let opcode = ops::lookup(&name).filter(|_| name.contains('.')).ok_or_else(|| format!("unknown op `{name}`"))?;
        if unsafe { mlirOperationGetNumSuccessors(op) } > 0 {
            return Err(Some(format!("`{name}` has block successors, which `pto` does not represent")));
        }
        let mut operands = Vec::new();
        for i in 0..unsafe { mlirOperationGetNumOperands(op) } {
            let v = unsafe { mlirOperationGetOperand(op, i) }.ptr as usize;
            match self.values.get(&v) {
                Some(&id) => operands.push(id),
                None if self.poisoned.contains(&v) => return Err(None),
                None => return Err(Some(format!("operand {i} of `{name}` is used before its definition in program order"))),
            }
        }
        let mut attrs = Attrs::of(op);
        let n_waits = attrs.take_int(WAITS)?.unwrap_or(0);
        let n_waits = usize::try_from(n_waits)
            .ok()
            .filter(|&w| w <= operands.len())
            .ok_or_else(|| format!("`{WAITS}` = {n_waits} does not fit {} operands", operands.len()))?;
        let waits = operands.split_off(operands.len() - n_waits);
        let mut result_types = Vec::new();
        for i in 0..unsafe { mlirOperationGetNumResults(op) } {
            let t = unsafe { mlirValueGetType(mlirOperationGetResult(op, i)) };
            result_types.push(self.from.ty(&mut self.m, t)?);
        }
        let names = match attrs.take(NAMES) {
            Some(a) => {
                let names = strings(a, NAMES)?;
                if names.len() != result_types.len() {
                    return Err(Some(format!("`{NAMES}` lists {} names for {} results", names.len(), result_types.len())));
                }
                names.iter().try_for_each(|n| check_name(n))?;
                names
            }
            None => vec![String::new(); result_types.len()],
        };
        let block_names = BlockNames::take(&mut attrs)?;
        if attrs.take(IMPLICIT).is_some() {
            if opcode == Opcode::ScfYield && operands.is_empty() && waits.is_empty() {
                return Ok(());
            }
            return Err(Some(format!("`{IMPLICIT}` belongs on an `scf.yield` without operands")));
        }
        if !waits.is_empty() && opcode.spec().syntax != Syntax::Tile {
            return Err(Some(format!("`{WAITS}` belongs on tile ops only")));
        }
        let mut data = OpData::new(opcode);
        data.num_ins = operands.len() as u32;
        data.operands = operands;
        data.waits = waits;
        let region_handles = regions(op);
        self.payload(&mut data, &mut attrs, &result_types, &region_handles)?;
        let id = self.m.add_op(data, span);
        self.m.append(block, id);
        let mut region_ids = Vec::new();
        for (i, r) in region_handles.into_iter().enumerate() {
            let empty = blocks(r).is_empty();
            if empty && ((opcode == Opcode::ScfIf && i == 1) || opcode == Opcode::FuncFunc) {
                continue;
            }
            region_ids.push(self.region(r, &block_names, i, span));
        }
        self.m.op_mut(id).regions = region_ids;
        for (i, (ty, name)) in result_types.into_iter().zip(names).enumerate() {
            let v = self.m.add_result(id, ty, name, span);
            self.values.insert(unsafe { mlirOperationGetResult(op, i as isize) }.ptr as usize, v);
        }
        Ok(())
    }

    fn region(&mut self, r: MlirRegion, names: &BlockNames, index: usize, span: Span) -> RegionId {
        let region = self.m.add_region();
        for (bi, b) in blocks(r).into_iter().enumerate() {
            let block = self.m.add_block(region, names.label(index, bi));
            self.block_args(b, block, names, index, bi, span);
            for o in ops_of(b) {
                self.op(o, block);
            }
        }
        region
    }

    /// The op-specific part: payload, `ins` count, attributes in our spelling and order.
    fn payload(&mut self, data: &mut OpData, attrs: &mut Attrs, results: &[TypeId], regions: &[MlirRegion]) -> Result<(), String> {
        let opcode = data.opcode;
        let n = data.operands.len();
        let order = attrs.take(ATTR_ORDER).map(|a| strings(a, ATTR_ORDER)).transpose()?;
        let mut first: Vec<(String, Attr)> = Vec::new();
        let mut last: Vec<(String, Attr)> = Vec::new();
        match opcode.spec().syntax {
            Syntax::Tile => {
                let ins = match attrs.take_int(INS)? {
                    Some(i) => {
                        usize::try_from(i).ok().filter(|&i| i <= n).ok_or_else(|| format!("`{INS}` = {i} does not fit {n} operands"))?
                    }
                    None => default_ins(opcode, n, results.len()),
                };
                data.num_ins = ins as u32;
                // Index groups (`%t[%i, %j]`) of an SSA op; a DPS op's segments (PTOAS) say nothing we keep.
                if let Some(segs) = attrs.take_segments(SEGMENTS)?
                    && !results.is_empty()
                    && segs.iter().any(|&s| s != 1)
                {
                    check_sum(&segs, ins)?;
                    data.payload = Payload::Segments(segs);
                }
            }
            Syntax::AllocTile => {
                let segs = match attrs.take_segments(SEGMENTS)? {
                    Some(s) if s.len() == 3 && s.iter().all(|&x| x <= 1) => s,
                    Some(s) => {
                        return Err(format!(
                            "`{SEGMENTS}` of `pto.alloc_tile` must be three 0/1 counts (addr, valid_row, valid_col), found {s:?}"
                        ));
                    }
                    None if n == 0 => vec![0, 0, 0],
                    None => return Err(format!("`pto.alloc_tile` with operands needs `{SEGMENTS}` (addr, valid_row, valid_col)")),
                };
                check_sum(&segs, n)?;
                data.payload = Payload::Segments(segs);
            }
            Syntax::MakeTensorView => {
                let segs = match attrs.take_segments(SEGMENTS)? {
                    Some(s) if s.len() == 3 => s,
                    Some(s) => {
                        return Err(format!("`{SEGMENTS}` of a tensor view must be three counts (ptr, shape, strides), found {s:?}"));
                    }
                    None if n % 2 == 1 => vec![1, (n as u32 - 1) / 2, (n as u32 - 1) / 2],
                    None => return Err(format!("a tensor view with {n} operands needs `{SEGMENTS}`")),
                };
                check_sum(&segs, n)?;
                data.payload = Payload::Segments(segs);
            }
            Syntax::PartitionView => data.payload = Payload::IndexLists(index_lists(attrs, n)?),
            Syntax::ArithConstant => {
                let written = attrs.take(VALUE);
                if let (Some(a), Some(&ty)) = (attrs.take("value"), results.first()) {
                    // The text's own value (`pto.value`) when the typed one reads back differently.
                    let a = written.unwrap_or(a);
                    let value = unsafe {
                        if mlirAttributeIsABool(a) {
                            Attr::Bool(mlirBoolAttrGetValue(a))
                        } else if mlirAttributeIsAInteger(a) {
                            Attr::Int(integer_value(a)?, Some(ty))
                        } else if mlirAttributeIsAFloat(a) && written.is_some() {
                            Attr::Float(mlirFloatAttrGetValueDouble(a), Some(ty))
                        } else if mlirAttributeIsAFloat(a) {
                            Attr::Float(float_value(a), Some(ty))
                        } else {
                            self.from.attr(&mut self.m, a)?
                        }
                    };
                    first.push(("value".into(), value));
                }
            }
            Syntax::ArithCmp => {
                if let Some(p) = attrs.take_int("predicate")? {
                    let name =
                        usize::try_from(p).ok().and_then(|i| predicates(opcode).get(i)).ok_or_else(|| format!("unknown predicate {p}"))?;
                    first.push(("predicate".into(), Attr::Opaque(name.to_string())));
                }
            }
            Syntax::FuncFunc => {
                let name = attrs.take_string("sym_name")?.ok_or("`func.func` without `sym_name`")?;
                let visibility = attrs.take_string("sym_visibility")?;
                let fty = attrs.take("function_type").ok_or("`func.func` without `function_type`")?;
                let fty = unsafe { mlirTypeAttrGetValue(fty) };
                let mut results = Vec::new();
                let mut params = Vec::new();
                for i in 0..unsafe { mlirFunctionTypeGetNumResults(fty) } {
                    results.push(self.from.ty(&mut self.m, unsafe { mlirFunctionTypeGetResult(fty, i) })?);
                }
                for i in 0..unsafe { mlirFunctionTypeGetNumInputs(fty) } {
                    params.push(self.from.ty(&mut self.m, unsafe { mlirFunctionTypeGetInput(fty, i) })?);
                }
                // A function with a body names its parameters there; a declaration keeps the types.
                if regions.first().is_some_and(|&r| !blocks(r).is_empty()) {
                    params.clear();
                }
                if let Some(a) = attrs.take("arg_attrs") {
                    let arg_attrs = self.from.attr(&mut self.m, a)?;
                    if matches!(&arg_attrs, Attr::Array(items) if items.iter().any(|i| !matches!(i, Attr::Dict(d) if d.is_empty()))) {
                        last.push(("arg_attrs".into(), arg_attrs));
                    }
                }
                data.payload = Payload::Func { name, visibility, results, params };
            }
            Syntax::FuncCall => {
                let callee = attrs
                    .take("callee")
                    .filter(|&a| unsafe { mlirAttributeIsAFlatSymbolRef(a) })
                    .ok_or("`func.call` without a `callee` symbol")?;
                data.payload = Payload::Call { callee: raw::to_string(unsafe { mlirFlatSymbolRefAttrGetValue(callee) }) };
                // The printer writes result types only with the signature, and the reader needs them.
                if attrs.take(SIGNATURE).is_some() || !results.is_empty() {
                    last.push(("signature".into(), Attr::Bool(true)));
                }
            }
            Syntax::Module => {
                if let Some(s) = attrs.take_string("sym_name")? {
                    first.push(("sym_name".into(), Attr::Symbol(s)));
                }
                attrs.take(FORM);
            }
            Syntax::Generic => {
                if opcode == Opcode::MemrefAlloc {
                    attrs.take(SEGMENTS);
                }
                let syntax = attrs.take(SYNTAX);
                let rest = self.plain_attrs(attrs)?;
                let pieces = match syntax {
                    Some(a) => {
                        let mut input = pieces::DecodeInput { operands: &data.operands, next: 0, attrs: rest };
                        let mut p = pieces::decode(&mut self.from, &mut self.m, a, &mut input, false)?;
                        if input.next != data.operands.len() {
                            return Err(format!("`{SYNTAX}` places {} of the op's {} operands", input.next, data.operands.len()));
                        }
                        if !input.attrs.is_empty() {
                            p.push(pto_ir::Piece::Dict(input.attrs));
                        }
                        p
                    }
                    None => pieces::synthesize(&data.operands, rest, results, regions.len()),
                };
                data.payload = Payload::Generic(pieces);
                return Ok(());
            }
            _ => {}
        }
        if opcode.spec().dialect == pto_ir::ops::Dialect::Arith {
            // MLIR materializes these defaults on every op; the text never writes them.
            for (key, default) in [("overflowFlags", "#arith.overflow<none>"), ("fastmath", "#arith.fastmath<none>")] {
                if let Some(a) = attrs.take(key)
                    && raw::attr_text(a) != default
                {
                    attrs.0.push((key.into(), a));
                }
            }
        }
        let mut all = first;
        all.extend(self.plain_attrs(attrs)?);
        all.extend(last);
        let mut keys: Vec<String> = all.iter().map(|(k, _)| k.clone()).collect();
        match order {
            Some(order) => keys.sort_by_key(|k| order.iter().position(|o| o == k).unwrap_or(usize::MAX)),
            None => canonical_order(opcode, &mut keys),
        }
        data.attrs = keys.iter().filter_map(|k| all.iter().position(|(a, _)| a == k).map(|i| all.remove(i))).collect();
        Ok(())
    }

    /// The remaining attributes in our spelling; a bridge attribute left over is an error.
    fn plain_attrs(&mut self, attrs: &mut Attrs) -> Result<Vec<(String, Attr)>, String> {
        let mut out = Vec::with_capacity(attrs.0.len());
        for (k, a) in std::mem::take(&mut attrs.0) {
            if BRIDGE.contains(&k.as_str()) {
                return Err(format!("`{k}` does not belong on this op"));
            }
            out.push((k, self.from.attr(&mut self.m, a)?));
        }
        Ok(out)
    }
}

/// Segment counts must add up to the operands they split.
fn check_sum(segs: &[u32], n: usize) -> Result<(), String> {
    let sum: u64 = segs.iter().map(|&s| u64::from(s)).sum();
    if sum != n as u64 {
        return Err(format!("`{SEGMENTS}` {segs:?} adds up to {sum}, but there are {n} operands"));
    }
    Ok(())
}

/// `partition_view` offsets and sizes: operand segments `[1, dynamic offsets, dynamic sizes]`
/// (halves when absent), static entries from `static_offsets` / `static_sizes`.
fn index_lists(attrs: &mut Attrs, n: usize) -> Result<Vec<Vec<Option<i64>>>, String> {
    let segs = match attrs.take_segments(SEGMENTS)? {
        Some(s) if s.len() == 3 && s[0] == 1 => s,
        Some(s) => return Err(format!("`{SEGMENTS}` of a partition view must be [1, offsets, sizes], found {s:?}")),
        None if n % 2 == 1 => vec![1, (n as u32 - 1) / 2, (n as u32 - 1) / 2],
        None => return Err(format!("a partition view with {n} operands needs `{SEGMENTS}`")),
    };
    check_sum(&segs, n)?;
    let statics = [attrs.take_i64s(STATIC_OFFSETS)?, attrs.take_i64s(STATIC_SIZES)?];
    let mut lists = Vec::new();
    for (i, stat) in statics.into_iter().enumerate() {
        let dynamic = segs[i + 1] as usize;
        let list: Vec<Option<i64>> = match stat {
            Some(s) => s.into_iter().map(|v| (v != DYNAMIC).then_some(v)).collect(),
            None => vec![None; dynamic],
        };
        if list.iter().filter(|e| e.is_none()).count() != dynamic {
            return Err(format!("static entries of a partition view disagree with `{SEGMENTS}`"));
        }
        lists.push(list);
    }
    Ok(lists)
}
