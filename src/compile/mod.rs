//! `pto compile`: the C++ that `ptoas` emits, written from a lowered (Level-3) module.
//!
//! The module has been through pto's pipeline (legalize, insert-scratch, bufferize,
//! plan-memory), so every tile has its address. This module writes the pto-isa C++ for it:
//!
//! * the `pto/pto-inst.hpp` prologue and the helpers some ops need ([`prologue`]);
//! * one C++ function per `func.func` ([`func`]): `__global__ AICORE` for entries, `static
//!   AICORE` for private helpers, `__gm__` pointers for GM arguments, the function's constants
//!   hoisted to its top (the later first, as `ptoas` writes them), `#if defined(__DAV_CUBE__)`
//!   / `__DAV_VEC__` around cube and vector code;
//! * scalars and structured control flow ([`scalar`], [`flow`]);
//! * tiles (`Tile<...> v; TASSIGN(v, addr);`) and GM views (`GlobalTensor`) ([`views`]);
//! * tile instructions from the op table's `cpp` column ([`rule`], [`tile_ops`]);
//! * cube/vector pipes (`TPipe`, `TPUSH`/`TPOP`/`TFREE`) ([`pipes`]).
//!
//! Names are counters (`v1`, `v2`, `GT_0`...), so two runs print the same bytes.

pub mod cpp;
mod flow;
mod func;
pub use func::{check_entries, functions};
mod pipes;
mod prologue;
pub mod rule;
mod scalar;
mod tile_ops;
mod views;

use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::{Module, OpId, ValueId};
use pto_ir::ops::Opcode;
use pto_lower::Target;
use pto_sim::cores::Topology;
use std::collections::HashMap;

/// Compiles a lowered module to C++.
pub fn compile(m: &Module, target: &Target) -> Result<String, Diagnostics> {
    let funcs = func::functions(m);
    func::check_loose_statements(m, &funcs)?;
    func::check_entries(m, &funcs)?;
    let funcs = func::callees_first(m, &funcs);
    let topo = Topology::new(m, target);
    // The pipe checks (`ptoas`'s pipe-init passes) ran in the gate every command runs
    // (`pto::cmd::verify::gate`).
    let mut e = Emitter::new(m, target, topo);
    let mut body = String::new();
    for &f in &funcs {
        body.push_str(&e.function(f));
    }
    if !e.errors.is_empty() {
        return Err(Diagnostics(e.errors));
    }
    let mut out = prologue::text(&e.helpers);
    out.push_str(&body);
    Ok(out)
}

/// One view of GM as a pto-isa `GlobalTensor` needs it.
#[derive(Clone, Debug)]
struct View {
    /// Pointer expression of element (0, ..., 0).
    ptr: String,
    /// Element type.
    elem: pto_ir::types::ElemType,
    /// Extents: a constant or a C++ expression.
    shape: Vec<Ext>,
    /// Strides in elements.
    strides: Vec<Ext>,
    /// `pto::Layout::ND` / `DN` / `NZ` when the program says.
    layout: Option<&'static str>,
}

/// A static or run-time extent.
#[derive(Clone, Debug, PartialEq)]
enum Ext {
    Static(i64),
    Dyn(String),
}

/// The state of one compilation.
struct Emitter<'m> {
    m: &'m Module,
    target: &'m Target,
    topo: Topology,
    /// C++ name of each value.
    names: HashMap<ValueId, String>,
    next_name: u32,
    /// Tiles a `set_validshape` resizes (written as `ptoas` writes them: a static base tile and
    /// a dynamic one rebound to its storage).
    resized: std::collections::HashSet<ValueId>,
    /// Tile variables carried through control flow, assigned by rebinding (`TASSIGN`).
    rebound: std::collections::HashSet<String>,
    /// Tile descriptions of placed `memref.alloc` buffers.
    local: HashMap<ValueId, pto_ir::types::TileDesc>,
    /// `GT_n` counter.
    next_gt: u32,
    /// Views of GM values, and the `GlobalTensor` variable built for each.
    views: HashMap<ValueId, View>,
    tensors: HashMap<ValueId, (String, u32)>,
    /// The attributes the op being emitted had read ([`Emitter::attr_of`]).
    attrs_read: std::cell::RefCell<Vec<String>>,
    /// The `GlobalTensor` type (`GT_3`) of each `GlobalTensor` variable.
    tensor_types: HashMap<String, String>,
    /// Open C++ scopes (ids), innermost last: a `GlobalTensor` declared in a scope is reused
    /// only while that scope is open.
    scopes: Vec<u32>,
    next_scope: u32,
    /// The `TPipe` of each pipe-init op: (variable, type token).
    pipes: HashMap<OpId, (String, String)>,
    /// The pipe of the function being emitted.
    func_pipe: Option<(String, String)>,
    /// Hoisted constant declarations of the function being emitted, in order of appearance.
    consts: Vec<String>,
    /// Body lines of the function being emitted.
    lines: Vec<String>,
    indent: usize,
    /// Prologue helpers the program needs.
    helpers: std::collections::BTreeSet<&'static str>,
    errors: Vec<Diagnostic>,
}

impl<'m> Emitter<'m> {
    fn new(m: &'m Module, target: &'m Target, topo: Topology) -> Emitter<'m> {
        Emitter {
            m,
            target,
            topo,
            names: HashMap::new(),
            next_name: 1,
            next_gt: 0,
            local: HashMap::new(),
            rebound: Default::default(),
            resized: m
                .walk()
                .into_iter()
                .filter(|&o| m.op(o).opcode == Opcode::SetValidShape)
                .filter_map(|o| m.op(o).operands.first().copied())
                .collect(),
            views: HashMap::new(),
            tensors: HashMap::new(),
            tensor_types: HashMap::new(),
            attrs_read: std::cell::RefCell::new(Vec::new()),
            scopes: vec![0],
            next_scope: 1,
            pipes: HashMap::new(),
            func_pipe: None,
            consts: Vec::new(),
            lines: Vec::new(),
            indent: 1,
            helpers: Default::default(),
            errors: Vec::new(),
        }
    }

    /// A fresh variable name.
    fn fresh(&mut self) -> String {
        let n = format!("v{}", self.next_name);
        self.next_name += 1;
        n
    }

    /// The C++ name of `v`, given on first use.
    fn name(&mut self, v: ValueId) -> String {
        if let Some(n) = self.names.get(&v) {
            return n.clone();
        }
        let n = self.fresh();
        self.names.insert(v, n.clone());
        n
    }

    /// Opens a C++ block scope (one more indentation level).
    fn enter_scope(&mut self) {
        self.indent += 1;
        self.scopes.push(self.next_scope);
        self.next_scope += 1;
    }

    /// Closes the innermost C++ block scope.
    fn leave_scope(&mut self) {
        self.indent -= 1;
        self.scopes.pop();
    }

    /// Appends a body line at the current indentation.
    fn line(&mut self, text: impl AsRef<str>) {
        self.lines.push(format!("{}{}", "  ".repeat(self.indent), text.as_ref()));
    }

    /// Declares a hoisted constant; returns its name.
    fn constant(&mut self, ty: &str, value: &str) -> String {
        let n = self.fresh();
        self.consts.push(format!("{ty} {n} = {value};"));
        n
    }

    /// Records an error at `op`.
    fn error(&mut self, op: OpId, class: DiagClass, msg: impl Into<String>) {
        let d = Diagnostic::error(class, self.m.op_span(op), msg).with_op(self.m.op(op).opcode.full_name());
        self.errors.push(d);
    }

    /// Records that `op` has no C++ spelling here.
    fn unsupported(&mut self, op: OpId, why: impl Into<String>) {
        let why = why.into();
        let name = self.m.op(op).opcode.full_name();
        self.error(op, DiagClass::CompileUnsupported, format!("`pto compile` cannot write `{name}` as C++: {why}"));
    }
}
