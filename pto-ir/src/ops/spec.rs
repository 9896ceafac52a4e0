//! The shape of one op-table entry and the operand-pattern mini-language it uses.
//!
//! Operand patterns (`OpSpec::sig`) read like a DPS signature:
//!
//! ```text
//! sig   := form ( "|" form )*
//! form  := slots "->" slots            ins on the left, outs (SSA results) on the right
//! slots := ( slot ( "," slot )* )?
//! slot  := name ":" kind ( "?" | "*" )? optional (`?`) or zero-or-more (`*`, last slot only)
//! kind  := tile | scalar | view | event | any
//! ```
//!
//! `tile` accepts `!pto.tile` (Level 1) or `!pto.tile_buf` (Level 2/3); `view` accepts
//! partition views, tensor views and memrefs. A slot named `tmp` is the scratch
//! tile; structurally it is always optional (the `insert-scratch` pass adds it), and the per-target
//! rule in [`OpSpec::tmp`] says whether a target requires, ignores or forbids it.
//!
//! Attribute patterns (`OpSpec::attrs`): `name:kind!` (required) or `name:kind?` (optional), kind
//! being an enum kind (`cmp`, `round_mode`...), `int`, `bool`, `float`, `string` or `any`.
//!
//! Constraint patterns (`OpSpec::same`): `dtype(a,b,c)` and `valid(a,b,c)` — the named slots,
//! where present, must share their element type / valid shape.

use super::format::{FormatItem, parse_format};
use serde::Serialize;

/// Which dialect an op belongs to (its name prefix).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dialect {
    /// `pto.*`
    Pto,
    /// `arith.*`
    Arith,
    /// `scf.*`
    Scf,
    /// `func.*`
    Func,
    /// `builtin.module`
    Builtin,
    /// `memref.*`
    Memref,
}

impl Dialect {
    /// The name prefix without the dot.
    pub fn prefix(self) -> &'static str {
        match self {
            Dialect::Pto => "pto",
            Dialect::Arith => "arith",
            Dialect::Scf => "scf",
            Dialect::Func => "func",
            Dialect::Builtin => "builtin",
            Dialect::Memref => "memref",
        }
    }
}

/// Instruction families (pto-isa notes §3.1) plus the infrastructure groups of PTOAS.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
#[allow(missing_docs)]
pub enum Family {
    ElemBinary,
    Bitwise,
    Ternary,
    Unary,
    TileScalar,
    CmpSel,
    RowReduce,
    ColReduce,
    ArgReduce,
    Expand,
    Partial,
    GatherScatter,
    Sort,
    Convert,
    Matmul,
    Memory,
    Move,
    Generate,
    Sync,
    AssignConfig,
    Comm,
    View,
    Alloc,
    ElementAccess,
    Query,
    Section,
    Pipe,
    AsyncDma,
    Arith,
    ControlFlow,
    Func,
    Builtin,
}

impl Family {
    /// Human name used in listings and docs.
    pub fn title(self) -> &'static str {
        match self {
            Family::ElemBinary => "Elementwise binary",
            Family::Bitwise => "Bitwise and shifts",
            Family::Ternary => "Ternary / fused",
            Family::Unary => "Unary math",
            Family::TileScalar => "Tile-scalar",
            Family::CmpSel => "Compare / select",
            Family::RowReduce => "Row reductions",
            Family::ColReduce => "Column reductions",
            Family::ArgReduce => "Arg-reductions",
            Family::Expand => "Expand / broadcast",
            Family::Partial => "Partial",
            Family::GatherScatter => "Gather / scatter",
            Family::Sort => "Sort",
            Family::Convert => "Conversion / quant",
            Family::Matmul => "Matmul",
            Family::Memory => "Memory GM<->tile",
            Family::Move => "Move / layout",
            Family::Generate => "Generation / misc",
            Family::Sync => "Sync / event",
            Family::AssignConfig => "Assign / alloc / config",
            Family::Comm => "Communication",
            Family::View => "Views and pointers (PTOAS)",
            Family::Alloc => "Tile allocation (PTOAS)",
            Family::ElementAccess => "Element access / debug (PTOAS)",
            Family::Query => "Runtime queries (PTOAS)",
            Family::Section => "Sections (PTOAS)",
            Family::Pipe => "TPUSH/TPOP pipes (PTOAS)",
            Family::AsyncDma => "Async DMA (PTOAS)",
            Family::Arith => "Scalar arith (MLIR)",
            Family::ControlFlow => "Control flow (MLIR scf)",
            Family::Func => "Functions (MLIR func)",
            Family::Builtin => "Module (MLIR builtin)",
        }
    }
}

/// Hardware pipe an op runs on (PTOAS `OpPipeInterface`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Pipe {
    /// Vector unit.
    V,
    /// Cube (matmul) unit.
    M,
    /// GM -> L1/UB DMA.
    Mte2,
    /// UB/L1 -> GM DMA.
    Mte3,
    /// L1 -> L0 moves.
    Mte1,
    /// Fixpipe (L0C -> GM/L1).
    Fix,
    /// Scalar unit.
    S,
    /// Not a pipe instruction (structure, sync, metadata).
    None,
}

/// Whether a target wants the scratch (`tmp`) operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TmpRule {
    /// The op has no scratch slot, or this target's form must omit it.
    Forbidden,
    /// The implementation uses it on some paths; `insert-scratch` adds it when needed.
    Optional,
    /// The implementation always uses it.
    Required,
    /// Accepted but unused (A5 for most ops).
    Ignored,
}

/// Per-target scratch rule.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Tmp {
    /// Ascend A2/A3.
    pub a2a3: TmpRule,
    /// Ascend A5.
    pub a5: TmpRule,
}

/// The text formats of non-tile ops. Tile ops use [`Syntax::Tile`] (DPS, SSA and short form,
/// all generic over the operand pattern).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum Syntax {
    /// `ins(...) outs(...)` / `%d = pto.op %a, %b : (T, T) -> T` / `%d = op %a, %b : T`.
    Tile,
    /// `pto.alloc_tile [addr = %a] [valid_row = %r] [valid_col = %c] : T`.
    AllocTile,
    /// `pto.make_tensor_view %p, shape = [...], strides = [...] : T`.
    MakeTensorView,
    /// `pto.partition_view %v, offsets = [...], sizes = [...] : A -> B` (also `subview`).
    PartitionView,
    /// `pto.set_flag[<PIPE_A>, <PIPE_B>, <EVENT_ID0>]` and other bracketed enum-argument ops.
    BracketArgs,
    /// `pto.barrier <PIPE_ALL>`.
    AngleArg,
    /// `%r = pto.get_block_idx` (no operands, one `i64` result).
    Query,
    /// `%r = pto.treshape %x : A -> B` (one operand, one result, explicit types).
    Cast,
    /// `arith.constant 1 : index`.
    ArithConstant,
    /// `arith.addi %a, %b : T` (same-type binary).
    ArithBinary,
    /// `arith.cmpi slt, %a, %b : T` (result `i1`).
    ArithCmp,
    /// `arith.index_cast %x : A to B`.
    ArithCast,
    /// `arith.select %c, %a, %b : T`.
    ArithSelect,
    /// `func.return %a : T` / `scf.yield %a : T`.
    Terminator,
    /// `scf.for`.
    ScfFor,
    /// `scf.if`.
    ScfIf,
    /// `scf.while`.
    ScfWhile,
    /// `scf.condition(%c) %a : T`.
    ScfCondition,
    /// `func.func`.
    FuncFunc,
    /// `func.call`.
    FuncCall,
    /// `module { ... }`.
    Module,
    /// Kept verbatim (pieces), operands resolved; result types read from a trailing `-> T` or `: T`.
    Generic,
}

/// One op-table entry.
#[derive(Debug, Serialize)]
pub struct OpSpec {
    /// The opcode this entry describes.
    #[serde(skip)]
    pub opcode: super::Opcode,
    /// Mnemonic without dialect prefix (`tcolargmax`, `tmatmul.acc`, `addi`).
    pub name: &'static str,
    /// Dialect.
    pub dialect: Dialect,
    /// Other accepted mnemonics (without prefix).
    pub aliases: &'static [&'static str],
    /// Family.
    pub family: Family,
    /// Text format.
    pub syntax: Syntax,
    /// Operand pattern (see module docs); empty for ops whose format defines operands itself.
    pub sig: &'static str,
    /// Attribute pattern.
    pub attrs: &'static str,
    /// Same-dtype / same-valid-shape constraints.
    pub same: &'static str,
    /// Scratch rule per target.
    pub tmp: Tmp,
    /// Pipe.
    pub pipe: Pipe,
    /// pto-isa `docs/isa/` page (without `.md`), empty when the op has none.
    pub page: &'static str,
    /// One-line description.
    pub doc: &'static str,
    /// Text format of a PTOAS op without a tile signature (see [`FormatItem`]); empty when
    /// the op's [`Syntax`] alone describes it.
    pub format: &'static str,
}

impl OpSpec {
    /// Defaults every table entry starts from.
    pub const DEFAULT: OpSpec = OpSpec {
        opcode: super::Opcode::Module,
        name: "",
        dialect: Dialect::Pto,
        aliases: &[],
        family: Family::Builtin,
        syntax: Syntax::Tile,
        sig: "",
        attrs: "",
        same: "",
        tmp: Tmp { a2a3: TmpRule::Forbidden, a5: TmpRule::Forbidden },
        pipe: Pipe::V,
        page: "",
        doc: "",
        format: "",
    };

    /// `dialect.name`.
    pub fn full_name(&self) -> String {
        format!("{}.{}", self.dialect.prefix(), self.name)
    }
}

/// Operand slot kinds.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SlotKind {
    /// `!pto.tile` or `!pto.tile_buf`.
    Tile,
    /// Builtin scalar (int, float, index).
    Scalar,
    /// A GM view (partition/tensor view, memref).
    View,
    /// `!pto.event`.
    Event,
    /// Anything.
    Any,
}

/// One operand slot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Slot {
    /// Name (`src0`, `tmp`...).
    pub name: String,
    /// Kind.
    pub kind: SlotKind,
    /// May be absent.
    pub optional: bool,
    /// Zero or more.
    pub variadic: bool,
}

/// One operand form: ins and outs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Form {
    /// Input slots.
    pub ins: Vec<Slot>,
    /// Output slots (DPS `outs`, SSA results).
    pub outs: Vec<Slot>,
}

/// Attribute slot.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AttrSlot {
    /// Name.
    pub name: String,
    /// Kind (`cmp`, `int`, `bool`...).
    pub kind: String,
    /// Must be present.
    pub required: bool,
}

/// A same-dtype or same-valid-shape group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SameGroup {
    /// `dtype` or `valid`.
    pub what: String,
    /// Slot names.
    pub slots: Vec<String>,
}

/// The parsed patterns of one entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ParsedSpec {
    /// The text format (empty when the entry has none).
    pub format: Vec<FormatItem>,
    /// Operand forms (empty for custom-format ops).
    pub forms: Vec<Form>,
    /// Attribute slots.
    pub attrs: Vec<AttrSlot>,
    /// Constraint groups.
    pub same: Vec<SameGroup>,
}

fn parse_slots(text: &str) -> Result<Vec<Slot>, String> {
    let text = text.trim();
    if text.is_empty() || text == "()" {
        return Ok(Vec::new());
    }
    let mut slots = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let (name, kind) = part.split_once(':').ok_or_else(|| format!("slot `{part}` has no kind"))?;
        let (kind, optional, variadic) = if let Some(k) = kind.strip_suffix('?') {
            (k, true, false)
        } else if let Some(k) = kind.strip_suffix('*') {
            (k, true, true)
        } else {
            (kind, false, false)
        };
        let kind = match kind.trim() {
            "tile" => SlotKind::Tile,
            "scalar" => SlotKind::Scalar,
            "view" => SlotKind::View,
            "event" => SlotKind::Event,
            "any" => SlotKind::Any,
            other => return Err(format!("unknown slot kind `{other}`")),
        };
        slots.push(Slot { name: name.trim().to_string(), kind, optional, variadic });
    }
    if slots.iter().rev().skip(1).any(|s| s.variadic) {
        return Err("only the last slot may be variadic".into());
    }
    Ok(slots)
}

/// Parses an entry's patterns.
pub fn parse_spec(spec: &OpSpec) -> Result<ParsedSpec, String> {
    let mut forms = Vec::new();
    if !spec.sig.trim().is_empty() {
        for form in spec.sig.split('|') {
            let (ins, outs) = form.split_once("->").ok_or_else(|| format!("form `{form}` has no `->`"))?;
            forms.push(Form { ins: parse_slots(ins)?, outs: parse_slots(outs)? });
        }
    }
    let mut attrs = Vec::new();
    for part in spec.attrs.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, kind) = part.split_once(':').ok_or_else(|| format!("attr `{part}` has no kind"))?;
        let (kind, required) = if let Some(k) = kind.strip_suffix('!') {
            (k, true)
        } else if let Some(k) = kind.strip_suffix('?') {
            (k, false)
        } else {
            return Err(format!("attr `{part}` must end in `!` or `?`"));
        };
        attrs.push(AttrSlot { name: name.to_string(), kind: kind.to_string(), required });
    }
    let mut same = Vec::new();
    for group in spec.same.split(')').map(str::trim).filter(|g| !g.is_empty()) {
        let (what, list) = group.split_once('(').ok_or_else(|| format!("constraint `{group}` malformed"))?;
        let what = what.trim();
        if what != "dtype" && what != "valid" {
            return Err(format!("unknown constraint `{what}`"));
        }
        let slots: Vec<String> = list.split(',').map(|s| s.trim().to_string()).collect();
        for s in &slots {
            if !forms.iter().any(|f| f.ins.iter().chain(&f.outs).any(|x| &x.name == s)) {
                return Err(format!("constraint names unknown slot `{s}`"));
            }
        }
        same.push(SameGroup { what: what.to_string(), slots });
    }
    let format = parse_format(spec.format)?;
    Ok(ParsedSpec { forms, attrs, same, format })
}
