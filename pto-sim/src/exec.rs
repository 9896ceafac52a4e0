//! Instruction semantics as tables.
//!
//! Each family module lists its instructions as `(Opcode, Semantics)` pairs
//! ([`crate::family::SEMANTICS`], [`crate::gather_sort::SEMANTICS`], ...), each entry written
//! against the op table's slot names (`src0`, `scalar`, `dst`: `pto ops NAME` shows them), so
//! the interpreter has no `match` arm per instruction: it binds the op's operands to their slots
//! once per op (cached), looks the opcode up here, and calls the entry. Adding an instruction is
//! one entry, plus at most one family helper.

use crate::gm::GmArray;
use crate::memory::{Fault, Memory};
use crate::value::Num;
use crate::value::Val;
use crate::view::TileView;
use pto_ir::attr::Attr;
use pto_ir::ops::Opcode;
use pto_lower::TargetId;

/// What an instruction may change: the on-chip buffers and the GM arrays.
pub struct Machine<'a> {
    /// The on-chip buffers.
    pub mem: &'a mut Memory,
    /// One array per GM pointer argument.
    pub gm: &'a mut [GmArray],
    /// How far an unbound GM array may grow, in bytes (`Sim::max_gm_bytes`).
    pub gm_limit: usize,
    /// What the program printed (`tprint`).
    pub printed: &'a mut String,
    /// How matrix products accumulate (`Sim::matmul_order`).
    pub matmul_order: MatmulOrder,
    /// Whose words a trap about a missing input uses (`Sim::front_end`).
    pub front_end: crate::advice::FrontEnd,
    /// The configuration registers (fixpipe quantization, FMATRIX / img2col).
    pub regs: &'a mut crate::config::Registers,
    /// Lines the op adds to its `--trace` entry: the state it changed that no operand shows
    /// (a configuration register).
    pub notes: &'a mut Vec<String>,
    /// Values the op binds anew: `(slot, value)` makes the value in `slot` that one from now on
    /// (`tassign` places its result tile, `tsubview` aliases its destination into the source,
    /// `talloc` returns a GM view of a FIFO slot).
    pub rebind: &'a mut Vec<(&'static str, Val)>,
    /// The TPipe FIFOs, one per `!pto.pipe` argument ([`Val::Pipe`] indexes them).
    pub pipes: &'a mut [crate::fifo::Fifo],
}

/// One execution's operands, by slot, with the op's attributes and target.
pub struct Args<'a> {
    /// `(slot, value)` in operand order (`ins`, then `outs`), as the op table binds them.
    pub operands: &'a [(&'static str, Val)],
    /// The op's attributes.
    pub attrs: &'a [(String, Attr)],
    /// The target the module was lowered for.
    pub target: TargetId,
    /// Which of the op's operand forms matched (`tdivs`: 0 is `src, scalar`, 1 is `scalar, src`).
    pub form: usize,
    /// The module's types (what a type attribute names).
    pub types: &'a pto_ir::types::TypeTable,
    /// The IMG2COL configurations of the run ([`Val::Conv`] indexes them), or why one's type
    /// does not spell a configuration.
    pub configs: &'a [Result<crate::fmatrix::ConvConfig, String>],
    /// The module, and the value bound to each slot (for the types of results).
    pub module: &'a pto_ir::module::Module,
    /// `(slot, value)` in the order of [`Args::operands`].
    pub slots: &'a [(&'static str, pto_ir::module::ValueId)],
    /// Bit `i` set once attribute `attrs[i]` was read ([`Args::unread_attr`]).
    pub read: std::cell::Cell<u64>,
}

impl Args<'_> {
    fn value(&self, slot: &str) -> Option<Val> {
        self.operands.iter().find(|(s, _)| *s == slot).map(|(_, v)| *v)
    }

    /// The tile bound to `slot`.
    pub fn tile(&self, slot: &str) -> Result<TileView, Fault> {
        self.opt_tile(slot).ok_or_else(|| Fault(format!("missing tile operand `{slot}`")))
    }

    /// The tile bound to `slot`, if the op has one there.
    pub fn opt_tile(&self, slot: &str) -> Option<TileView> {
        match self.value(slot) {
            Some(Val::Tile(t)) => Some(t),
            _ => None,
        }
    }

    /// The scalar bound to `slot`, if the op has one there.
    pub fn opt_num(&self, slot: &str) -> Option<Num> {
        match self.value(slot) {
            Some(Val::Int(i)) => Some(Num::I(i)),
            Some(Val::Float(f)) => Some(Num::F(f)),
            _ => None,
        }
    }

    /// The scalar bound to `slot`.
    pub fn num(&self, slot: &str) -> Result<Num, Fault> {
        self.opt_num(slot).ok_or_else(|| Fault(format!("missing scalar operand `{slot}`")))
    }

    /// The integer bound to `slot` (a float operand is truncated).
    pub fn int(&self, slot: &str) -> Result<i64, Fault> {
        match self.num(slot)? {
            Num::I(i) => Ok(i),
            Num::F(f) => Ok(f as i64),
        }
    }

    /// The integers bound to `slot`, in order (a variadic slot such as `offsets`).
    pub fn ints(&self, slot: &str) -> Result<Vec<i64>, Fault> {
        self.operands
            .iter()
            .filter(|(s, _)| *s == slot)
            .map(|(_, v)| match v {
                Val::Int(i) => Ok(*i),
                _ => Err(Fault(format!("`{slot}` must be an integer"))),
            })
            .collect()
    }

    /// The IMG2COL configuration bound to `slot`.
    pub fn conv(&self, slot: &str) -> Result<&crate::fmatrix::ConvConfig, Fault> {
        match self.value(slot) {
            Some(Val::Conv(i)) => match self.configs.get(i as usize) {
                Some(Ok(c)) => Ok(c),
                Some(Err(why)) => Err(Fault(why.clone())),
                None => Err(Fault(format!("`{slot}` is not an IMG2COL configuration"))),
            },
            _ => Err(Fault(format!("`{slot}` is not an IMG2COL configuration argument"))),
        }
    }

    /// The index of the pipe bound to `slot`.
    pub fn pipe(&self, slot: &str) -> Result<usize, Fault> {
        match self.value(slot) {
            Some(Val::Pipe(i)) => Ok(i as usize),
            _ => Err(Fault(format!("`{slot}` is not a kernel's `!pto.pipe` argument"))),
        }
    }

    /// The type of the value bound to `slot` (an operand or a result).
    pub fn type_of(&self, slot: &str) -> Option<&pto_ir::types::Type> {
        self.slots.iter().find(|(s, _)| *s == slot).map(|&(_, v)| self.module.value_type(v))
    }

    /// The GM view bound to `slot`.
    pub fn view(&self, slot: &str) -> Result<crate::gm::GmView, Fault> {
        match self.value(slot) {
            Some(Val::View(v)) => Ok(v),
            _ => Err(Fault(format!("missing GM view operand `{slot}`"))),
        }
    }

    /// The element type named by type attribute `name` (`out_dtype = f16`).
    pub fn elem_attr(&self, name: &str) -> Result<pto_ir::types::ElemType, Fault> {
        match self.attr(name) {
            Some(Attr::Type(id)) => match self.types.get(*id) {
                pto_ir::types::Type::Scalar(e) => Ok(*e),
                other => Err(Fault(format!("`{name}` must be an element type, found a {}", other.class_name()))),
            },
            _ => Err(Fault(format!("missing element-type attribute `{name}`"))),
        }
    }

    /// The attribute `name` (marked read).
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        let i = self.attrs.iter().position(|(k, _)| k == name)?;
        if i < 64 {
            self.read.set(self.read.get() | 1 << i);
        }
        Some(&self.attrs[i].1)
    }

    /// The first attribute of the op that its semantics did not read and that must be applied
    /// ([`pto_ir::ops::Opcode::must_apply_attr`]): one the simulator would otherwise parse and
    /// ignore.
    pub fn unread_attr(&self, opcode: pto_ir::ops::Opcode) -> Option<&str> {
        let read = self.read.get();
        self.attrs.iter().enumerate().find_map(|(i, (name, _))| {
            let seen = i < 64 && read & (1 << i) != 0;
            (!seen && opcode.must_apply_attr(name)).then_some(name.as_str())
        })
    }

    /// A boolean or unit attribute that is set.
    pub fn flag(&self, name: &str) -> bool {
        matches!(self.attr(name), Some(Attr::Bool(true)) | Some(Attr::Unit))
    }

    /// The value of enum attribute `name` of kind `kind` (`cmpMode`, `cmp` → `gt`).
    pub fn enum_attr(&self, name: &str, kind: &str) -> Option<&str> {
        self.attr(name).and_then(|a| a.as_enum(kind))
    }

    /// An integer attribute.
    pub fn int_attr(&self, name: &str) -> Result<Option<i64>, Fault> {
        match self.attr(name) {
            None => Ok(None),
            Some(Attr::Int(i, _)) => Ok(Some(*i)),
            Some(_) => Err(Fault(format!("`{name}` must be an integer"))),
        }
    }
}

/// How a matrix product accumulates: TMATMUL.md leaves it implementation-defined, and the two
/// models pto-isa offers differ in the last bits of f32 results (docs/design.md).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MatmulOrder {
    /// The NPU's `mad` / `mad_mx` (`npu/a5/TMatmul.hpp`, `npu/a2a3/TMatmul.hpp`): the
    /// accumulator starts from what L0C holds (`cmatrixInitVal = 0`: `c_in`), from the bias
    /// table (`cmatrixSource = 1`: `bias`) or from zero, and each product (scaled, for the MX
    /// forms) is rounded to the accumulator type and added in `k` order.
    #[default]
    Npu,
    /// pto-isa's CPU simulator (`cpu/TMatmul.hpp`): from zero, f32 products accumulate as a
    /// fused multiply-add chain (MX forms: the scaled product in f64 added to the f32 sum and
    /// rounded), then `c_in` is added, then `bias`.
    CpuSim,
}

/// How one instruction executes.
pub type Semantics = fn(&mut Machine<'_>, &Args<'_>) -> Result<(), Fault>;

/// A lookup table indexed by opcode from `(opcode, entry)` tables (each opcode in one table).
pub(crate) fn opcode_index<F: Copy>(tables: &[&[(Opcode, F)]]) -> Vec<Option<F>> {
    let mut index = vec![None; pto_ir::ops::all().len()];
    for &(op, run) in tables.iter().copied().flatten() {
        debug_assert!(index[op as usize].is_none(), "{op:?} is in two semantics tables");
        index[op as usize] = Some(run);
    }
    index
}
