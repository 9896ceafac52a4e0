//! Functions: which are kernel entries (as `ptoas` decides), their C++ signatures, the
//! cube/vector guards, and the walk over a body that hands each op to its family's emitter.

use super::{Emitter, cpp};
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::{BlockId, Module, OpId, Payload};
use pto_ir::ops::{Family, Opcode};
use pto_sim::cores::Side;

/// Every `func.func` of the module, in order.
pub fn functions(m: &Module) -> Vec<OpId> {
    m.walk().into_iter().filter(|&o| m.op(o).opcode == Opcode::FuncFunc).collect()
}

fn has_body(m: &Module, f: OpId) -> bool {
    !m.op(f).regions.is_empty()
}

fn explicit_entry(m: &Module, f: OpId) -> bool {
    m.op(f).attrs.iter().any(|(k, _)| k == "pto.entry" || k == "hacc.entry")
}

/// A kernel entry, as `ptoas` decides: marked `pto.entry`, or the only function with a body.
pub fn is_entry(m: &Module, funcs: &[OpId], f: OpId) -> bool {
    if !has_body(m, f) {
        return false;
    }
    explicit_entry(m, f) || funcs.iter().filter(|&&g| has_body(m, g)).count() == 1
}

/// A program written as top-level statements (PTO-AS short form, `.arg` tiles) has no kernel
/// function to write: an error at its first statement.
pub fn check_loose_statements(m: &Module, funcs: &[OpId]) -> Result<(), Diagnostics> {
    let Some(body) = m.body else { return Ok(()) };
    let top = m.region(body).blocks.first().map(|&b| m.block(b).ops.clone()).unwrap_or_default();
    let loose = top.iter().copied().find(|&o| !matches!(m.op(o).opcode, Opcode::Module | Opcode::FuncFunc));
    match loose {
        Some(o) if funcs.is_empty() || m.op(o).opcode != Opcode::Module => Err(Diagnostics(vec![Diagnostic::error(
            DiagClass::CompileUnsupported,
            m.op_span(o),
            "a program of top-level statements has no kernel function for `pto compile` to write: put them in a `func.func` whose arguments are GM pointers",
        )])),
        _ => Ok(()),
    }
}

/// `ptoas`'s entry checks: `pto.entry` only on definitions, entries return nothing.
pub fn check_entries(m: &Module, funcs: &[OpId]) -> Result<(), Diagnostics> {
    let mut errors = Vec::new();
    for &f in funcs {
        let results = match &m.op(f).payload {
            Payload::Func { results, .. } => results.len(),
            _ => 0,
        };
        let name = func_name(m, f);
        if explicit_entry(m, f) && !has_body(m, f) {
            errors.push(Diagnostic::error(
                DiagClass::CompileEntry,
                m.op_span(f),
                format!("`pto.entry` is only valid on function definitions (@{name})"),
            ));
        } else if is_entry(m, funcs, f) && results != 0 {
            errors.push(
                Diagnostic::error(
                    DiagClass::CompileEntry,
                    m.op_span(f),
                    format!("PTO entry functions must return void: @{name} returns {results} value(s)"),
                )
                .with_op("func.func"),
            );
        }
    }
    if errors.is_empty() { Ok(()) } else { Err(Diagnostics(errors)) }
}

/// The functions in an order where every callee comes before its callers (C++ needs a
/// function declared before a call), otherwise in module order.
pub fn callees_first(m: &Module, funcs: &[OpId]) -> Vec<OpId> {
    fn visit(m: &Module, f: OpId, funcs: &[OpId], done: &mut Vec<OpId>, active: &mut Vec<OpId>) {
        if done.contains(&f) || active.contains(&f) {
            return;
        }
        active.push(f);
        let mut stack = vec![f];
        while let Some(o) = stack.pop() {
            for &r in &m.op(o).regions {
                for &b in &m.region(r).blocks {
                    for &x in &m.block(b).ops {
                        if let Payload::Call { callee } = &m.op(x).payload
                            && let Some(&g) = funcs.iter().find(|&&g| func_name(m, g) == callee)
                        {
                            visit(m, g, funcs, done, active);
                        }
                        stack.push(x);
                    }
                }
            }
        }
        active.pop();
        done.push(f);
    }
    let mut done = Vec::new();
    for &f in funcs {
        visit(m, f, funcs, &mut done, &mut Vec::new());
    }
    done
}

/// The symbol name of a function.
pub fn func_name(m: &Module, f: OpId) -> &str {
    match &m.op(f).payload {
        Payload::Func { name, .. } => name,
        _ => "",
    }
}

impl Emitter<'_> {
    /// One function's C++ text.
    pub(super) fn function(&mut self, f: OpId) -> String {
        let m = self.m;
        let data = m.op(f);
        let Payload::Func { name, visibility, results, params } = &data.payload else { return String::new() };
        self.consts.clear();
        self.lines.clear();
        self.func_pipe = None;
        self.indent = 1;
        self.scopes = vec![0];
        self.tensors.clear();
        let funcs = functions(m);
        let ret = match results.first() {
            None => "void".to_string(),
            Some(&t) => cpp::value_type(m.ty(t)).unwrap_or_else(|| {
                self.unsupported(f, format!("a function returning `{}`", m.ty(t)));
                "void".to_string()
            }),
        };
        let spec = if is_entry(m, &funcs, f) {
            "__global__ AICORE"
        } else if visibility.as_deref() == Some("private") {
            "static AICORE"
        } else {
            "AICORE"
        };
        let Some(&region) = data.regions.first() else {
            // A declaration.
            let ps: Vec<String> = params.iter().map(|&t| cpp::value_type(m.ty(t)).unwrap_or_else(|| "void*".to_string())).collect();
            return format!("extern \"C\" AICORE {ret} {name}({});\n", ps.join(", "));
        };
        let entry = m.region(region).blocks[0];
        let mut ps = Vec::new();
        for &a in &m.block(entry).args.clone() {
            let ty = m.value_type(a);
            match cpp::value_type(ty) {
                Some(t) => {
                    let n = self.name(a);
                    ps.push(format!("{t} {n}"));
                    if ty.is_opaque("memref<") {
                        self.memref_arg_view(a, &n);
                    }
                }
                None => self.unsupported(f, format!("an argument of type `{ty}`")),
            }
        }
        let side = self.topo.sides.get(name.as_str()).copied();
        let guard = side.map(|s| self.side_macro(s));
        if let Some(g) = guard {
            self.open_guard(g, self.topo.subblock0_only.contains(name.as_str()));
        }
        // The guard closes before the final `return`, as `ptoas` writes it.
        let ops = m.block(entry).ops.clone();
        let (ret_op, body) = match ops.split_last() {
            Some((&last, rest)) if guard.is_some() && m.op(last).opcode == Opcode::FuncReturn => (Some(last), rest.to_vec()),
            _ => (None, ops),
        };
        for op in body {
            self.op_in_block(op);
        }
        if let Some(g) = guard {
            self.close_guard(g, self.topo.subblock0_only.contains(name.as_str()));
        }
        if let Some(r) = ret_op {
            self.op_in_block(r);
        }
        let mut out = format!("{spec} {ret} {name}({}) {{\n", ps.join(", "));
        for c in self.consts.iter().rev() {
            out.push_str("  ");
            out.push_str(c);
            out.push('\n');
        }
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out.push_str("}\n\n");
        out
    }

    fn side_macro(&self, side: Side) -> &'static str {
        match side {
            Side::Cube => "__DAV_CUBE__",
            Side::Vector => "__DAV_VEC__",
        }
    }

    /// `#if defined(MACRO)` and, for vector code, the mask reset `ptoas` writes.
    pub(super) fn open_guard(&mut self, mac: &str, subblock0: bool) {
        self.lines.push(format!("#if defined({mac})"));
        if mac == "__DAV_VEC__" {
            self.line("set_mask_norm();");
            self.line("set_vector_mask(-1, -1);");
            if subblock0 {
                self.line("if (get_subblockid() == 0) {");
            }
        }
    }

    pub(super) fn close_guard(&mut self, mac: &str, subblock0: bool) {
        if mac == "__DAV_VEC__" && subblock0 {
            self.line("}");
        }
        self.lines.push(format!("#endif // {mac}"));
    }

    /// Every op of a block, in order.
    pub(super) fn block(&mut self, b: BlockId) {
        for &op in &self.m.block(b).ops.clone() {
            self.op_in_block(op);
        }
    }

    /// One op, by family.
    pub(super) fn op_in_block(&mut self, op: OpId) {
        let data = self.m.op(op);
        let spec = data.opcode.spec();
        match spec.family {
            Family::Arith => self.arith(op),
            Family::ControlFlow => self.control_flow(op),
            Family::Func => self.func_op(op),
            Family::View => self.view_op(op),
            Family::Alloc => self.alloc_op(op),
            Family::Sync => self.sync_op(op),
            Family::Query => self.query(op),
            Family::Section => self.section(op),
            Family::Pipe => self.pipe_op(op),
            Family::Builtin if data.opcode == Opcode::MemrefAlloc => self.memref_alloc(op),
            Family::Builtin => {}
            _ => self.tile_op(op),
        }
    }

    fn func_op(&mut self, op: OpId) {
        let data = self.m.op(op);
        match data.opcode {
            Opcode::FuncReturn => match data.operands.first() {
                Some(&v) => {
                    let e = self.expr(v);
                    self.line(format!("return {e};"));
                }
                None => self.line("return;"),
            },
            Opcode::FuncCall => {
                let callee = match &data.payload {
                    Payload::Call { callee } => callee.clone(),
                    _ => String::new(),
                };
                let args: Vec<String> = data.operands.clone().iter().map(|&v| self.expr(v)).collect();
                let call = format!("{callee}({})", args.join(", "));
                match data.results.first() {
                    Some(&r) => self.define(op, r, &call),
                    None => self.line(format!("{call};")),
                }
            }
            _ => self.unsupported(op, "a nested function"),
        }
    }

    fn section(&mut self, op: OpId) {
        let data = self.m.op(op);
        let mac = if data.opcode == Opcode::SectionCube { "__DAV_CUBE__" } else { "__DAV_VEC__" };
        self.open_guard(mac, false);
        for &r in &data.regions.clone() {
            for &b in &self.m.region(r).blocks.clone() {
                self.block(b);
            }
        }
        self.close_guard(mac, false);
    }

    /// The value of an enum argument of a bracketed sync op (`args = [PIPE_V, ...]`).
    pub(super) fn enum_args(&self, op: OpId) -> Vec<String> {
        match self.m.op(op).attr("args") {
            Some(Attr::Array(a)) => a
                .iter()
                .map(|x| match x {
                    Attr::Enum(e) => e.value_name().to_string(),
                    other => cpp::attr_token(other, None, false).map(|t| t.1).unwrap_or_default(),
                })
                .collect(),
            _ => Vec::new(),
        }
    }
}
