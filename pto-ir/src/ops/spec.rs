//! The shape of one op-table entry and the operand-pattern mini-language it uses.
//!
//! Operand patterns (`OpSpec::sig`) read like a DPS signature:
//!
//! ```text
//! sig   := form ( "|" form )*
//! form  := slots "->" slots            ins on the left, outs (SSA results) on the right
//! slots := ( slot ( "," slot )* )?
//! slot  := name ":" kind ( "@" loc | "@" class )? ( "?" | "*" )?
//!                                      optional (`?`) or zero-or-more (`*`, last slot only)
//! kind  := tile | scalar | view | event | pipe | session | async_event | group | conv | vector | any
//! ```
//!
//! Each kind accepts exactly these types ([`SlotKind::accepts`]):
//!
//! | kind | types |
//! |---|---|
//! | `tile` | `!pto.tile` (Level 1), `!pto.tile_buf` (Level 2/3), `memref<...>` (the lowered form) |
//! | `scalar` | builtin integers, floats, `index` |
//! | `view` | `!pto.partition_tensor_view`, `!pto.tensor_view`, `!pto.ptr`, and the GM spellings `memref<...>`, `!pto.memref<...>` (pto-isa comm pages), `!pto.global<...>` (TPREFETCH/TPRINT pages) |
//! | `event` | `!pto.event` |
//! | `pipe` | `!pto.pipe` (a TPUSH/TPOP FIFO) |
//! | `session` | `!pto.async_session` |
//! | `async_event` | `!pto.async_event` |
//! | `group` | `!pto.group<...>` (a comm ParallelGroup) |
//! | `conv` | `!pto.fmatrix_config` (an IMG2COL feature-map configuration, SETFMATRIX page) |
//! | `vector` | `vector<...>` (TMRGSORT's executed counts) |
//! | `any` | any type (kept for untyped non-ISA ops; no ISA op may use it) |
//!
//! A `tile` slot may name the location its tile must live in (`fp:tile@scaling`): only the choice
//! of form reads it (an operand in another location does not fit that form, so `tmov ins(%src,
//! %x)` binds `%x` as the fixpipe parameters when it is a scaling tile and as the scratch tile
//! otherwise, as PTOAS's `tmov` reads its optional `$fp`); the legality tables check locations.
//!
//! A `scalar` slot may name the type class PTOAS's ODS declares for the operand
//! (`scale:scalar@i64`, [`ScalarClass`]): the verifier rejects another scalar type as `ptoas`
//! does (`'pto.tlrelu' op operand #1 must be 32-bit float`); without a class any scalar fits.
//!
//! A slot named `tmp` is the scratch tile; structurally it is always optional (the
//! `insert-scratch` pass adds it), and the per-target rule in [`OpSpec::tmp`] says whether a
//! target requires, ignores or forbids it. Operands fill required slots in order and optional
//! slots left to right; a `present(...)` constraint (below) decides an optional slot instead.
//! For every op whose `sig` is not empty the verifier checks the operands against the first
//! form that fits, whatever the op's text format ([`Syntax`]): ins are the `ins(...)` operands
//! (all operands for the non-DPS formats), outs the `outs(...)` operands or, when there are
//! none, the SSA results.
//!
//! Attribute patterns (`OpSpec::attrs`): `name:kind!` (required) or `name:kind?` (optional),
//! either followed by `@N` to tie it to operand form N (accepted only when form N is bound, and
//! with `!` required then), kind
//! being an enum kind (`cmp`, `round_mode`, `tile_split`...; an integer is accepted when it
//! indexes the kind's values, as PTOAS writes some enums), `int`, `i32` (ODS's `I32Attr`: typed `: i32`),
//! `bool`, `float`, `string`,
//! `type` or `any`.
//!
//! Constraint patterns (`OpSpec::same`), separated by spaces:
//!
//! | constraint | meaning |
//! |---|---|
//! | `dtype(a,b,...)` | the named operands, where present, share their element type (tiles, views, groups, scalars) |
//! | `valid(a,b,...)` | the named tile operands share their valid shape (static extents) |
//! | `shape(a,b,...)` | the named operands share their static shape (tile capacity, or view dimensions) |
//! | `flat(a,...)` | each named GM view is static, of rank >= 1, in GM and logically 1-D (every dimension but the last is 1) |
//! | `present(s, attr=V)` | optional slot `s` is bound exactly when enum attribute `attr` is `V` (it also decides which optional slot an operand fills) |
//! | `present(s, attr)` | optional slot `s` is bound exactly when attribute `attr` is written, whatever its value |
//! | `either(a,b,d)` | `a` names the operand with `d`'s valid shape and `b` the other, in whichever order they are written: when only `b`'s valid shape is `d`'s, legality checks them exchanged (the semantics keep the written order) |

use super::format::{FormatItem, parse_format};
use crate::types::{ElemType, Loc, Type};
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

impl Pipe {
    /// The pipe's name in PTOAS attributes and pto-isa's C++ (`PIPE_MTE2`); `None` has none.
    pub fn cpp_name(self) -> Option<&'static str> {
        Some(match self {
            Pipe::V => "PIPE_V",
            Pipe::M => "PIPE_M",
            Pipe::Mte2 => "PIPE_MTE2",
            Pipe::Mte3 => "PIPE_MTE3",
            Pipe::Mte1 => "PIPE_MTE1",
            Pipe::Fix => "PIPE_FIX",
            Pipe::S => "PIPE_S",
            Pipe::None => return None,
        })
    }

    /// The pipe PTOAS's op kinds (`SyncOpType`, `#pto.pipe_event_type<..>`) run on: PTOAS
    /// `mapSyncOpTypeToPipe` (`lib/PTO/IR/PTOSyncUtils.cpp:25-48`), the one copy of that map
    /// (sync checking, `pto compile` and the reports read it); `None` for a kind it leaves
    /// `PIPE_UNASSIGNED`.
    pub fn of_sync_op_kind(kind: &str) -> Option<Pipe> {
        Some(match kind {
            "TLOAD" => Pipe::Mte2,
            "TSTORE_VEC" => Pipe::Mte3,
            "TSTORE_ACC" | "TMOV_M2S" | "TMOV_V2M" => Pipe::Fix,
            "TMOV_M2L" | "TMOV_M2B" => Pipe::Mte1,
            "TMOV_M2V" | "TVEC" | "TVECWAIT_EVENT" => Pipe::V,
            "TMATMUL" => Pipe::M,
            _ => return None,
        })
    }
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
    /// The PTOAS parenthesised format `pto.tpush(%t, %pipe : T, !pto.pipe) {split = 0}` /
    /// `%e = pto.tget_async(%d, %s, %ss : D, S, !pto.async_session) -> !pto.async_event`: all
    /// operands are ins, the results are the outs.
    Paren,
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
    /// Mnemonic suffixes that select attribute values (`mgather.row.clamp`).
    pub modes: &'static [ModeSuffix],
    /// Family.
    pub family: Family,
    /// Text format.
    pub syntax: Syntax,
    /// Operand pattern (see module docs); empty for ops whose format defines operands itself.
    pub sig: &'static str,
    /// Attribute pattern.
    pub attrs: &'static str,
    /// Constraint patterns: `dtype`, `valid`, `shape`, `flat` groups and `present` rules (see the module docs).
    pub same: &'static str,
    /// Scratch rule per target.
    pub tmp: Tmp,
    /// Where PTOAS's ODS declares this op's `tmp` operand required (`PTOOps.td:4887`, the
    /// `PTODpsType:$tmp` line of the op's `arguments` in `include/PTO/IR/`) or its verifier
    /// requires it (`PTO.cpp:4816`, in `lib/PTO/IR/`), so that its
    /// assembly format only parses `ins(...)` with `tmp` written: the reader then rejects the
    /// DPS form (`ins(...) outs(...)` or the generic form with `outs`) without it. Empty when
    /// PTOAS has no `tmp` for the op or declares it `Optional<...>`. Level-1 forms (SSA, short
    /// form) may still omit `tmp`; `insert-scratch` adds it where the target needs it.
    pub ptoas_tmp: &'static str,
    /// Pipe: the one the op runs on when no rule of [`OpSpec::pipes`] applies.
    pub pipe: Pipe,
    /// Where the pipe depends on the target, the operands' locations or the scratch tile: rules
    /// `conditions => PIPE`, separated by `;`, the first that holds deciding (see
    /// [`PipeRule`]); empty when [`OpSpec::pipe`] alone says it.
    pub pipes: &'static str,
    /// What the op does to memory and ordering besides reading `ins` and writing `outs`, as
    /// words (see [`Effects`]): `reads_dst`, `push`, `pop`, `orders`, `memory`.
    pub effects: &'static str,
    /// pto-isa `docs/isa/` page (without `.md`), empty when the op has none.
    pub page: &'static str,
    /// One-line description.
    pub doc: &'static str,
    /// Text format of a PTOAS op without a tile signature (see [`FormatItem`]); empty when
    /// the op's [`Syntax`] alone describes it.
    pub format: &'static str,
    /// How `pto compile` writes the op in C++ (the pto-isa call `ptoas` emits): a call pattern
    /// per operand form, separated by `|` (`TCI<T(dst), E(start), @#descending=0>($dst, $start)`),
    /// the name of a rule of the compiler's family module (`rule:tmov`), or, for scalar ops, the
    /// C++ operator. Empty: `PAGE(outs..., ins...)` from [`OpSpec::page`]. The pattern language
    /// is documented in docs/compile.md and implemented in `src/compile/rule.rs`.
    pub cpp: &'static str,
    /// The operand order of PTOAS's ODS definition when it is not the slots' `ins` then `outs`
    /// (slot names separated by spaces, `src dst fp preQuantScalar` for `tmov`); empty
    /// otherwise. The generic form's `operandSegmentSizes` count operands in this order.
    pub ods: &'static str,
    /// The A2A3 vector intrinsic a tile op without a vector program (`pto_lower::vector`) runs
    /// over its valid elements, repeat after repeat (`vexp`): what the cycle model
    /// (`pto_lower::cost`) times it as. Empty: the op's family decides.
    pub vop: &'static str,
    /// The attributes that have no effect on the values an op computes, each with why (its
    /// source line): `name: why; name: why`. `pto run` reads every other attribute written on
    /// an op or stops with `SIM_TRAP` naming it (nothing is parsed and then ignored).
    pub inert: &'static str,
}

impl OpSpec {
    /// Defaults every table entry starts from.
    pub const DEFAULT: OpSpec = OpSpec {
        opcode: super::Opcode::Module,
        name: "",
        dialect: Dialect::Pto,
        aliases: &[],
        modes: &[],
        family: Family::Builtin,
        syntax: Syntax::Tile,
        sig: "",
        attrs: "",
        same: "",
        tmp: Tmp { a2a3: TmpRule::Forbidden, a5: TmpRule::Forbidden },
        ptoas_tmp: "",
        pipe: Pipe::V,
        pipes: "",
        effects: "",
        page: "",
        doc: "",
        format: "",
        cpp: "",
        ods: "",
        vop: "",
        inert: "",
    };

    /// Whether attribute `name` is one of the op's [`OpSpec::inert`] attributes.
    pub fn is_inert(&self, name: &str) -> bool {
        self.inert.split(';').any(|entry| entry.split(':').next().map(str::trim) == Some(name))
    }

    /// `dialect.name`.
    pub fn full_name(&self) -> String {
        format!("{}.{}", self.dialect.prefix(), self.name)
    }
}

/// A mnemonic suffix standing for an attribute value: with `.row` meaning `coalesce = row`,
/// `mgather.row.clamp` is `mgather` with `coalesce = row` and `gatherOob = clamp` (the ISA
/// pages' spelling of the C++ template parameters). `attr` is one of the op's enum attributes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ModeSuffix {
    /// The suffix without its dot (`row`, `atomic_add`).
    pub suffix: &'static str,
    /// The attribute it sets.
    pub attr: &'static str,
    /// The enum value it sets (a value of the attribute's kind).
    pub value: &'static str,
}

/// Operand slot kinds.
/// Operand slot kinds (see the module docs for the types each accepts).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SlotKind {
    /// `!pto.tile`, `!pto.tile_buf`, or a `memref` (lowered form).
    Tile,
    /// Builtin scalar (int, float, index).
    Scalar,
    /// A GM view (partition/tensor view, pointer, memref, `!pto.memref`, `!pto.global`).
    View,
    /// `!pto.event`.
    Event,
    /// `!pto.pipe`.
    Pipe,
    /// `!pto.async_session`.
    Session,
    /// `!pto.async_event`.
    AsyncEvent,
    /// `!pto.group<...>`.
    Group,
    /// `!pto.fmatrix_config`.
    Conv,
    /// `vector<...>`.
    Vector,
    /// Anything (no ISA op uses it).
    Any,
}

impl SlotKind {
    /// Every kind with its spelling in patterns.
    pub const ALL: &'static [(SlotKind, &'static str)] = &[
        (SlotKind::Tile, "tile"),
        (SlotKind::Scalar, "scalar"),
        (SlotKind::View, "view"),
        (SlotKind::Event, "event"),
        (SlotKind::Pipe, "pipe"),
        (SlotKind::Session, "session"),
        (SlotKind::AsyncEvent, "async_event"),
        (SlotKind::Group, "group"),
        (SlotKind::Conv, "conv"),
        (SlotKind::Vector, "vector"),
        (SlotKind::Any, "any"),
    ];

    /// Parses a kind spelling.
    pub fn parse(text: &str) -> Option<SlotKind> {
        Self::ALL.iter().find(|(_, n)| *n == text).map(|(k, _)| *k)
    }

    /// True when a value of type `ty` may fill a slot of this kind.
    pub fn accepts(self, ty: &Type) -> bool {
        match self {
            SlotKind::Tile => matches!(ty, Type::Tile(_) | Type::TileBuf(_)) || ty.is_opaque("memref<"),
            SlotKind::Scalar => matches!(ty, Type::Scalar(_)),
            SlotKind::View => ty.is_gm() || ty.is_opaque("memref<"),
            SlotKind::Event => matches!(ty, Type::Event),
            SlotKind::Pipe => matches!(ty, Type::Pipe),
            SlotKind::Session => matches!(ty, Type::AsyncSession),
            SlotKind::AsyncEvent => matches!(ty, Type::AsyncEvent),
            SlotKind::Group => ty.is_opaque("!pto.group<"),
            SlotKind::Conv => matches!(ty, Type::Opaque(s) if s == "!pto.fmatrix_config" || s.starts_with("!pto.fmatrix_config<")),
            SlotKind::Vector => matches!(ty, Type::Vector(..)),
            SlotKind::Any => true,
        }
    }

    /// What the kind accepts, in words (diagnostics).
    pub fn describe(self) -> &'static str {
        match self {
            SlotKind::Tile => "a tile (!pto.tile or !pto.tile_buf)",
            SlotKind::Scalar => "a scalar",
            SlotKind::View => "a GM view",
            SlotKind::Event => "an event (!pto.event)",
            SlotKind::Pipe => "a pipe (!pto.pipe)",
            SlotKind::Session => "an async session (!pto.async_session)",
            SlotKind::AsyncEvent => "an async event (!pto.async_event)",
            SlotKind::Group => "a parallel group (!pto.group<...>)",
            SlotKind::Conv => "an IMG2COL configuration (!pto.fmatrix_config)",
            SlotKind::Vector => "a vector (vector<...>)",
            SlotKind::Any => "any value",
        }
    }
}

/// True for MLIR's `memref<...>` (the lowered form, not checked).
pub fn is_mlir_memref(ty: &Type) -> bool {
    ty.is_opaque("memref<")
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
    /// The location a `tile` slot's operand must live in for its form to fit (`@loc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loc: Option<Loc>,
    /// The scalar types a `scalar` slot admits (`@class`), as PTOAS's ODS declares them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<ScalarClass>,
}

/// The ODS type constraint of a scalar operand (`include/PTO/IR/PTOOps.td`): what `ptoas`
/// parses for it.
///
/// One deliberate divergence: where ODS says signless (`ScalarType`, `AnySignlessInteger`),
/// an unsigned scalar is admitted too. PTO-AS, pto-isa's assembly, types a tile-scalar op's
/// scalar as the tile's element type (`.const %s = 1 : ui16` for a `ui16` tile), and pto reads
/// both texts with one table; `ptoas` wants the signless `i16` there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarClass {
    /// `ScalarType` (`PTOOps.td:54-55`): a signless integer or a float (and, see above, an
    /// unsigned integer).
    Numeric,
    /// `AnySignlessInteger` (`tands`, `tshls`, `trandom`'s keys; and an unsigned integer).
    Signless,
    /// `AnyInteger`: an integer of any signedness, not `index` (`tci`'s start, `ttri`'s diagonal).
    Int,
    /// `F32` (`tlrelu`'s slope), and any float: pto-isa's page wants the tile's type
    /// (`TLRELU.md:58`, `typename TileDataSrc::DType scalar`), which PTO-AS writes.
    F32,
    /// `I64` (`preQuantScalar`, `tassign`'s address).
    I64,
    /// `Index` (element offsets, `textract`'s row and column).
    Index,
}

impl ScalarClass {
    const NAMES: &'static [(ScalarClass, &'static str)] = &[
        (ScalarClass::Numeric, "numeric"),
        (ScalarClass::Signless, "signless"),
        (ScalarClass::Int, "int"),
        (ScalarClass::F32, "f32"),
        (ScalarClass::I64, "i64"),
        (ScalarClass::Index, "index"),
    ];

    fn parse(text: &str) -> Option<ScalarClass> {
        Self::NAMES.iter().find(|(_, n)| *n == text).map(|(c, _)| *c)
    }

    /// True when a scalar of element type `e` satisfies the constraint.
    pub fn admits(self, e: ElemType) -> bool {
        let signless = matches!(e, ElemType::I1 | ElemType::I8 | ElemType::I16 | ElemType::I32 | ElemType::I64);
        let unsigned = matches!(e, ElemType::U8 | ElemType::U16 | ElemType::U32 | ElemType::U64);
        match self {
            ScalarClass::Numeric => signless || unsigned || e.is_float(),
            ScalarClass::Signless => signless || unsigned,
            ScalarClass::Int => signless || unsigned,
            ScalarClass::F32 => e.is_float(),
            ScalarClass::I64 => e == ElemType::I64,
            ScalarClass::Index => e == ElemType::Index,
        }
    }

    /// The constraint in ODS's words (`ptoas`'s diagnostic: `must be 32-bit float`).
    pub fn describe(self) -> &'static str {
        match self {
            ScalarClass::Numeric => "numeric (integer/float)",
            ScalarClass::Signless => "signless integer",
            ScalarClass::Int => "integer",
            ScalarClass::F32 => "32-bit float",
            ScalarClass::I64 => "64-bit signless integer",
            ScalarClass::Index => "index",
        }
    }
}

impl Slot {
    /// True when a value of type `ty` may fill this slot: its kind accepts the type and, for a
    /// slot with a location, the tile lives there (a `memref` in that address space).
    pub fn accepts(&self, ty: &Type) -> bool {
        self.kind.accepts(ty)
            && self.loc.is_none_or(|want| match ty.tile() {
                Some(t) => t.loc == want,
                None => ty.is_opaque("memref<") && ty.to_string().contains(&format!("address_space<{}>", want.name())),
            })
    }
}

/// One operand form: ins and outs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Form {
    /// Input slots.
    pub ins: Vec<Slot>,
    /// Output slots (DPS `outs`, SSA results).
    pub outs: Vec<Slot>,
}

/// Assigns `n` values to a slot list: required slots in order, the surplus filling optional
/// slots left to right, a variadic last slot taking the rest. Returns each value's slot index,
/// or `None` when `n` values cannot fill the list.
pub fn assign_slots(slots: &[Slot], n: usize) -> Option<Vec<usize>> {
    super::bind::assign(slots, n, &|_| None)
}

impl Form {
    /// The slot assignment of `ins` and `outs` when both counts fit this form and every value's
    /// type suits its slot's kind (the verifier, the passes and the reader choose forms so).
    pub fn fit(&self, ins: &[&Type], outs: &[&Type]) -> Option<(Vec<usize>, Vec<usize>)> {
        let a = assign_slots(&self.ins, ins.len())?;
        let b = assign_slots(&self.outs, outs.len())?;
        let kinds_ok =
            ins.iter().zip(&a).all(|(t, &s)| self.ins[s].accepts(t)) && outs.iter().zip(&b).all(|(t, &s)| self.outs[s].accepts(t));
        kinds_ok.then_some((a, b))
    }
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
    /// `@N` after the marker: the operand form the attribute belongs to: accepted only when form
    /// N is bound, and with `!` required then (`tgather`'s `maskPattern`, PTOAS
    /// `PTO.cpp:4803-4805`; `tquant`'s `quant_type`, required in PTOAS's INT8 form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form: Option<usize>,
}

/// A `dtype`, `valid`, `shape` or `flat` constraint over named slots.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SameGroup {
    /// `dtype`, `valid`, `shape` or `flat`.
    pub what: String,
    /// Slot names.
    pub slots: Vec<String>,
}

/// A `present(slot, attr=value)` constraint: the optional slot is bound exactly when the enum
/// attribute has that value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Presence {
    /// The optional slot.
    pub slot: String,
    /// The deciding attribute.
    pub attr: String,
    /// The value (case-insensitive) that makes the slot present; empty: the attribute being
    /// written at all, whatever its value (`present(tmp, isBinary)`).
    pub value: String,
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
    /// Attribute-decided optional slots.
    pub present: Vec<Presence>,
    /// `either(a,b,d)`: the two slots legality reads in either order and the slot whose valid
    /// shape decides the order.
    pub either: Option<[String; 3]>,
    /// The pipe rules ([`OpSpec::pipes`]), in order.
    pub pipes: Vec<PipeRule>,
    /// The effect words ([`OpSpec::effects`]).
    pub effects: Effects,
}

/// One rule of [`OpSpec::pipes`]: `a5, src=acc|vec, dst=mat => FIX`. Each condition is
/// optional: `a2a3` / `a5` (the target), `tmp` / `!tmp` (whether a scratch tile is bound),
/// `src=LOCS` / `dst=LOCS` (the location of the first `ins` / `outs` operand, one of the `|`
/// list; `l0` stands for `left|right|bias|scaling|scale_left|scale_right`). The pipe is a
/// `PIPE_x` name without its prefix (`V`, `MTE2`) or `NONE`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipeRule {
    /// `Some(true)`: A5 only; `Some(false)`: A2A3 only.
    pub a5: Option<bool>,
    /// Whether a scratch tile must (not) be bound.
    pub tmp: Option<bool>,
    /// The locations the first source may have.
    pub src: Option<Vec<Loc>>,
    /// The locations the first destination may have.
    pub dst: Option<Vec<Loc>>,
    /// The pipe.
    pub pipe: Pipe,
}

impl PipeRule {
    /// Whether the rule holds for these facts of one executed op.
    pub fn holds(&self, facts: &PipeFacts) -> bool {
        let loc_in = |want: &Option<Vec<Loc>>, have: Option<Loc>| want.as_ref().is_none_or(|w| have.is_some_and(|h| w.contains(&h)));
        self.a5.is_none_or(|a5| a5 == facts.a5)
            && self.tmp.is_none_or(|t| t == facts.has_tmp)
            && loc_in(&self.src, facts.src)
            && loc_in(&self.dst, facts.dst)
    }
}

/// What a pipe rule may look at.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct PipeFacts {
    /// The target is A5 (else A2A3).
    pub a5: bool,
    /// A scratch tile is bound.
    pub has_tmp: bool,
    /// The location of the first `ins` operand, when it is a tile.
    pub src: Option<Loc>,
    /// The location of the first `outs` operand (or result), when it is a tile.
    pub dst: Option<Loc>,
}

/// The effect words of [`OpSpec::effects`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Effects {
    /// `reads_dst`: the op reads its destination too (`tmuladddst`, `taxpy`...).
    pub reads_dst: bool,
    /// `push`: a cube/vector pipe producer that reads a tile into the pipe's slot.
    pub push: bool,
    /// `pop`: a cube/vector pipe consumer that writes (places) its tile from the slot.
    pub pop: bool,
    /// `orders`: an intra-core sync op (flags, events, barriers, buffer ids).
    pub orders: bool,
    /// `memory`: an op of another syntax than a tile op's that still accesses a tile on a pipe
    /// (`tgetval`, `tsetval`, `tprint`).
    pub memory: bool,
}

impl Effects {
    fn parse(text: &str) -> Result<Effects, String> {
        let mut e = Effects::default();
        for word in text.split_whitespace() {
            let flag = match word {
                "reads_dst" => &mut e.reads_dst,
                "push" => &mut e.push,
                "pop" => &mut e.pop,
                "orders" => &mut e.orders,
                "memory" => &mut e.memory,
                other => return Err(format!("unknown effect `{other}`")),
            };
            *flag = true;
        }
        Ok(e)
    }
}

impl Pipe {
    /// The pipe a `PIPE_x` name without its prefix denotes (`MTE2`), `NONE` for [`Pipe::None`].
    pub fn parse_short(text: &str) -> Option<Pipe> {
        if text == "NONE" {
            return Some(Pipe::None);
        }
        [Pipe::V, Pipe::M, Pipe::Mte1, Pipe::Mte2, Pipe::Mte3, Pipe::Fix, Pipe::S]
            .into_iter()
            .find(|p| p.cpp_name().and_then(|n| n.strip_prefix("PIPE_")) == Some(text))
    }
}

/// Parses [`OpSpec::pipes`].
fn parse_pipe_rules(text: &str) -> Result<Vec<PipeRule>, String> {
    let mut rules = Vec::new();
    for rule in text.split(';').map(str::trim).filter(|r| !r.is_empty()) {
        let (conds, pipe) = rule.split_once("=>").ok_or_else(|| format!("pipe rule `{rule}` has no `=>`"))?;
        let pipe = Pipe::parse_short(pipe.trim()).ok_or_else(|| format!("unknown pipe `{}`", pipe.trim()))?;
        let mut r = PipeRule { a5: None, tmp: None, src: None, dst: None, pipe };
        for cond in conds.split(',').map(str::trim).filter(|c| !c.is_empty()) {
            match cond {
                "a5" => r.a5 = Some(true),
                "a2a3" => r.a5 = Some(false),
                "tmp" => r.tmp = Some(true),
                "!tmp" => r.tmp = Some(false),
                _ => {
                    let (side, list) = cond.split_once('=').ok_or_else(|| format!("unknown pipe condition `{cond}`"))?;
                    let mut locs = Vec::new();
                    for name in list.split('|').map(str::trim) {
                        if name == "l0" {
                            locs.extend([Loc::Left, Loc::Right, Loc::Bias, Loc::Scaling, Loc::ScaleLeft, Loc::ScaleRight]);
                        } else {
                            locs.push(Loc::parse(name).ok_or_else(|| format!("unknown location `{name}`"))?);
                        }
                    }
                    match side.trim() {
                        "src" => r.src = Some(locs),
                        "dst" => r.dst = Some(locs),
                        other => return Err(format!("unknown pipe condition side `{other}`")),
                    }
                }
            }
        }
        rules.push(r);
    }
    Ok(rules)
}

impl super::Opcode {
    /// The pipe this op runs on, given the facts its rules look at: the first of the op table's
    /// [`OpSpec::pipes`] rules that holds, else [`OpSpec::pipe`].
    pub fn pipe_for(self, facts: &PipeFacts) -> Pipe {
        self.parsed().pipes.iter().find(|r| r.holds(facts)).map_or(self.spec().pipe, |r| r.pipe)
    }
}

impl ParsedSpec {
    /// The kind of attribute `name`, when the pattern declares it.
    pub fn attr_kind(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|a| a.name == name).map(|a| a.kind.as_str())
    }
}

impl super::Opcode {
    /// Whether attribute `name` written on this op must be applied by `pto run` and spelled by
    /// `pto compile` (each refuses the op otherwise): an attribute the op table declares for
    /// the op ([`OpSpec::attrs`]) that is not [`OpSpec::inert`]. An attribute the op does not
    /// declare is MLIR's discardable kind, which `ptoas` ignores too.
    pub fn must_apply_attr(self, name: &str) -> bool {
        self.parsed().attr_kind(name).is_some() && !self.spec().is_inert(name)
    }
}

/// Parses one side of a form: `name:kind`, `name:kind?`, `name:kind*`, comma-separated.
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
        let (kind, at) = match kind.split_once('@') {
            Some((k, at)) => (k, Some(at.trim())),
            None => (kind, None),
        };
        let kind = SlotKind::parse(kind.trim()).ok_or_else(|| format!("unknown slot kind `{}`", kind.trim()))?;
        let (mut loc, mut class) = (None, None);
        match (kind, at) {
            (_, None) => {}
            (SlotKind::Tile, Some(l)) => loc = Some(Loc::parse(l).ok_or_else(|| format!("unknown location `{l}`"))?),
            (SlotKind::Scalar, Some(c)) => class = Some(ScalarClass::parse(c).ok_or_else(|| format!("unknown scalar class `{c}`"))?),
            _ => return Err(format!("slot `{part}`: only a tile slot names a location and a scalar slot a class")),
        }
        slots.push(Slot { name: name.trim().to_string(), kind, optional, variadic, loc, class });
    }
    if slots.iter().rev().skip(1).any(|s| s.variadic) {
        return Err("only the last slot may be variadic".into());
    }
    Ok(slots)
}

/// Parses an attribute pattern: `name:kind!` or `name:kind?`, comma-separated.
fn parse_attrs(text: &str) -> Result<Vec<AttrSlot>, String> {
    let mut attrs = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, kind) = part.split_once(':').ok_or_else(|| format!("attr `{part}` has no kind"))?;
        let (kind, form) = match kind.split_once('@') {
            Some((k, n)) => (k, Some(n.parse::<usize>().map_err(|_| format!("attr `{part}`: `@{n}` is not a form index"))?)),
            None => (kind, None),
        };
        let (kind, required) = if let Some(k) = kind.strip_suffix('!') {
            (k, true)
        } else if let Some(k) = kind.strip_suffix('?') {
            (k, false)
        } else {
            return Err(format!("attr `{part}` must end in `!` or `?` (then `@N` for a form)"));
        };
        attrs.push(AttrSlot { name: name.to_string(), kind: kind.to_string(), required, form });
    }
    Ok(attrs)
}

/// `present(offset, quant_type=INT8_ASYM)`'s or `present(tmp, isBinary)`'s argument list.
fn parse_presence(list: &str, forms: &[Form], attrs: &[AttrSlot]) -> Result<Presence, String> {
    let (slot, cond) = list.split_once(',').ok_or_else(|| format!("`present({list})` needs a slot and `attr=value` or `attr`"))?;
    let (attr, value) = cond.split_once('=').unwrap_or((cond, ""));
    let (slot, attr, value) = (slot.trim(), attr.trim(), value.trim());
    let optional = forms.iter().flat_map(|f| f.ins.iter().chain(&f.outs)).any(|s| s.name == slot && s.optional && !s.variadic);
    if !optional {
        return Err(format!("`present` names `{slot}`, which is no optional slot"));
    }
    let kind = attrs.iter().find(|a| a.name == attr).ok_or_else(|| format!("`present` names undeclared attribute `{attr}`"))?;
    if value.is_empty() {
        return Ok(Presence { slot: slot.to_string(), attr: attr.to_string(), value: String::new() });
    }
    let values =
        crate::attr::EnumKind::find(&kind.kind).ok_or_else(|| format!("`present` needs an enum attribute, `{attr}` is `{}`", kind.kind))?.1;
    if values.value_index(value).is_none() {
        return Err(format!("`{value}` is not a value of `{}`", kind.kind));
    }
    Ok(Presence { slot: slot.to_string(), attr: attr.to_string(), value: value.to_string() })
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
    let attrs = parse_attrs(spec.attrs)?;
    let mut same = Vec::new();
    let mut present = Vec::new();
    let mut either = None;
    for group in spec.same.split(')').map(str::trim).filter(|g| !g.is_empty()) {
        let (what, list) = group.split_once('(').ok_or_else(|| format!("constraint `{group}` malformed"))?;
        let what = what.trim();
        if what == "present" {
            present.push(parse_presence(list, &forms, &attrs)?);
            continue;
        }
        if what == "either" {
            let names: Vec<String> = list.split(',').map(|s| s.trim().to_string()).collect();
            either = Some(names.try_into().map_err(|_| format!("`either({list})` names three slots"))?);
            continue;
        }
        if !["dtype", "valid", "shape", "flat"].contains(&what) {
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
    let pipes = parse_pipe_rules(spec.pipes)?;
    let effects = Effects::parse(spec.effects)?;
    Ok(ParsedSpec { forms, attrs, same, present, either, format, pipes, effects })
}
