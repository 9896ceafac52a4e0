//! Attributes: plain literals, arrays, dictionaries and the PTO enum attributes.
//!
//! PTO enum attributes are written two ways in the wild: `#pto<cmp gt>` (PTOAS `EnumAttr`
//! spelling) and `#pto.cmp<GT>` (PTO-AS docs). Both parse to the same [`Attr::Enum`]; the printer
//! uses the spelling PTOAS accepts for that kind ([`EnumKind::style`]). Values match
//! case-insensitively and are stored as an index into the kind's value list.

use crate::types::TypeId;
use serde::Serialize;

/// How an enum kind is spelled canonically.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub enum EnumStyle {
    /// `#pto<cmp gt>`.
    Short,
    /// `#pto.pipe<PIPE_V>`.
    Dotted,
}

/// One PTO enum attribute kind.
#[derive(Debug, Serialize)]
pub struct EnumKind {
    /// Kind name (`cmp`, `round_mode`...).
    pub name: &'static str,
    /// Canonical spelling style.
    pub style: EnumStyle,
    /// Values in canonical spelling.
    pub values: &'static [&'static str],
    /// Other names of the kind (deprecated aliases).
    pub aliases: &'static [&'static str],
}

/// Values of PTOAS's `SyncOpType` enum, spelled `#pto.pipe_event_type<..>` or `#pto.sync_op_type<..>`.
const SYNC_OP_TYPES: &[&str] =
    &["TLOAD", "TSTORE_ACC", "TSTORE_VEC", "TMOV_M2L", "TMOV_M2S", "TMOV_M2B", "TMOV_M2V", "TMOV_V2M", "TMATMUL", "TVEC", "TVECWAIT_EVENT"];

/// Every enum kind `pto` knows: first the 26 enum attributes of the PTOAS `pto` dialect (a56b18c3,
/// `PTOAttrs.td`), values in declaration order, as listed in `tests/dialect/ptoas-dialect.json`,
/// then the pto-isa kinds the ISA pages' forms use that PTOAS does not declare.
/// `sync_op_type` is PTOAS's deprecated spelling of `pipe_event_type` (same values), kept a kind
/// of its own because some ops take only one of the two.
pub static ENUM_KINDS: &[EnumKind] = &[
    EnumKind {
        name: "address_space",
        style: EnumStyle::Dotted,
        values: &["zero", "gm", "mat", "left", "right", "acc", "vec", "bias", "scaling"],
        aliases: &[],
    },
    EnumKind {
        name: "pipe",
        style: EnumStyle::Dotted,
        values: &[
            "PIPE_S",
            "PIPE_V",
            "PIPE_M",
            "PIPE_MTE1",
            "PIPE_MTE2",
            "PIPE_MTE3",
            "PIPE_ALL",
            "PIPE_MTE4",
            "PIPE_MTE5",
            "PIPE_V2",
            "PIPE_FIX",
            "VIRTUAL_PIPE_MTE2_L1A",
            "VIRTUAL_PIPE_MTE2_L1B",
            "PIPE_NUM",
            "PIPE_UNASSIGNED",
        ],
        aliases: &[],
    },
    EnumKind { name: "pipe_event_type", style: EnumStyle::Dotted, values: SYNC_OP_TYPES, aliases: &[] },
    EnumKind { name: "sync_op_type", style: EnumStyle::Dotted, values: SYNC_OP_TYPES, aliases: &[] },
    EnumKind { name: "layout", style: EnumStyle::Dotted, values: &["nd", "dn", "nz"], aliases: &[] },
    EnumKind { name: "kernel_kind", style: EnumStyle::Dotted, values: &["cube", "vector"], aliases: &[] },
    EnumKind { name: "func_core_type", style: EnumStyle::Dotted, values: &["AIC", "AIV", "MIX", "AIC_OR_AIV"], aliases: &[] },
    EnumKind { name: "module_core_type", style: EnumStyle::Dotted, values: &["AIC", "AIV", "MIX"], aliases: &[] },
    EnumKind {
        name: "event",
        style: EnumStyle::Dotted,
        values: &["EVENT_ID0", "EVENT_ID1", "EVENT_ID2", "EVENT_ID3", "EVENT_ID4", "EVENT_ID5", "EVENT_ID6", "EVENT_ID7"],
        aliases: &[],
    },
    EnumKind { name: "padmode", style: EnumStyle::Dotted, values: &["PadNull", "PadFirstElem", "PadValue"], aliases: &[] },
    EnumKind {
        name: "acc_to_vec_mode",
        style: EnumStyle::Dotted,
        values: &["single_mode_vec0", "single_mode_vec1", "dual_mode_split_m", "dual_mode_split_n"],
        aliases: &[],
    },
    EnumKind {
        name: "mask_pattern",
        style: EnumStyle::Dotted,
        values: &["P0101", "P1010", "P0001", "P0010", "P0100", "P1000", "P1111"],
        aliases: &[],
    },
    EnumKind { name: "blayout", style: EnumStyle::Dotted, values: &["row_major", "col_major"], aliases: &[] },
    EnumKind { name: "slayout", style: EnumStyle::Dotted, values: &["none_box", "row_major", "col_major"], aliases: &[] },
    EnumKind { name: "pad_value", style: EnumStyle::Dotted, values: &["null", "zero", "max", "min"], aliases: &[] },
    EnumKind { name: "compact_mode", style: EnumStyle::Dotted, values: &["null", "normal", "row_plus_one"], aliases: &[] },
    EnumKind { name: "cmp", style: EnumStyle::Short, values: &["eq", "ne", "lt", "le", "gt", "ge"], aliases: &[] },
    EnumKind {
        name: "round_mode",
        style: EnumStyle::Short,
        values: &["NONE", "RINT", "ROUND", "FLOOR", "CEIL", "TRUNC", "ODD", "CAST_RINT"],
        aliases: &[],
    },
    EnumKind { name: "saturation_mode", style: EnumStyle::Short, values: &["ON", "OFF"], aliases: &[] },
    EnumKind { name: "st_phase", style: EnumStyle::Short, values: &["unspecified", "partial", "final"], aliases: &[] },
    EnumKind { name: "atomic_type", style: EnumStyle::Short, values: &["atomic_none", "atomic_add"], aliases: &[] },
    EnumKind { name: "relu_pre_mode", style: EnumStyle::Short, values: &["no_relu", "normal_relu"], aliases: &[] },
    EnumKind { name: "gather_oob", style: EnumStyle::Short, values: &["undefined", "clamp", "wrap", "zero"], aliases: &[] },
    EnumKind { name: "scatter_atomic_op", style: EnumStyle::Short, values: &["none", "add", "max", "min"], aliases: &[] },
    EnumKind { name: "scatter_oob", style: EnumStyle::Short, values: &["undefined", "skip", "clamp", "wrap"], aliases: &[] },
    EnumKind { name: "quant_type", style: EnumStyle::Short, values: &["INT8_SYM", "INT8_ASYM"], aliases: &[] },
    // pto-isa kinds PTOAS does not declare, used by the ISA pages' forms.
    // MGATHER / MSCATTER `Coalesce` (its `GatherOOB`, `ScatterAtomicOp`, `ScatterOOB` are above).
    EnumKind { name: "coalesce", style: EnumStyle::Short, values: &["row", "elem"], aliases: &[] },
    // pto-isa `TileSplitAxis` (PTOAS writes it as a raw integer: `{split = 0}`).
    EnumKind { name: "tile_split", style: EnumStyle::Short, values: &["TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"], aliases: &[] },
    // pto-isa `MxQuantAlg` (common/type.hpp).
    EnumKind {
        name: "mx_alg",
        style: EnumStyle::Short,
        values: &["OcpMxFp8E4M3", "NvMxFp8E4M3", "OcpMxFp4E2M1", "NvMxFp4E2M1", "Hif4"],
        aliases: &[],
    },
    // pto-isa `SyncCoreType` / `SyncAllMode` (SYNCALL).
    EnumKind { name: "sync_core_type", style: EnumStyle::Short, values: &["AIVOnly", "AICOnly", "Mix"], aliases: &[] },
    EnumKind { name: "sync_all_mode", style: EnumStyle::Short, values: &["Hard", "Soft"], aliases: &[] },
    // pto-isa `SetFmatrixMode` (TIMG2COL, SETFMATRIX, SET_IMG2COL_*).
    EnumKind {
        name: "fmatrix_mode",
        style: EnumStyle::Short,
        values: &["FMATRIX_A_AUTO", "FMATRIX_B_AUTO", "FMATRIX_A_MANUAL", "FMATRIX_B_MANUAL"],
        aliases: &[],
    },
    // pto-isa comm: `NotifyOp`, `ReduceOp`, collective and DMA engines (comm/comm_types.hpp).
    EnumKind { name: "notify_op", style: EnumStyle::Dotted, values: &["AtomicAdd", "Set"], aliases: &[] },
    EnumKind { name: "reduce_op", style: EnumStyle::Dotted, values: &["Sum", "Max", "Min"], aliases: &[] },
    EnumKind { name: "coll_engine", style: EnumStyle::Short, values: &["AIV", "CCU"], aliases: &[] },
    EnumKind { name: "dma_engine", style: EnumStyle::Short, values: &["SDMA", "URMA", "RDMA"], aliases: &[] },
];

impl EnumKind {
    /// Looks a kind up by name or alias.
    pub fn find(name: &str) -> Option<(usize, &'static EnumKind)> {
        ENUM_KINDS.iter().enumerate().find(|(_, k)| k.name == name || k.aliases.contains(&name))
    }
    /// Index of a value (case-insensitive).
    pub fn value_index(&self, value: &str) -> Option<usize> {
        self.values.iter().position(|v| v.eq_ignore_ascii_case(value))
    }
}

/// A PTO enum attribute value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct EnumAttr {
    /// Index into [`ENUM_KINDS`].
    pub kind: u16,
    /// Index into the kind's values.
    pub value: u16,
}

impl EnumAttr {
    /// Builds `kind<value>` from names; `None` when unknown.
    pub fn new(kind: &str, value: &str) -> Option<EnumAttr> {
        let (k, spec) = EnumKind::find(kind)?;
        let v = spec.value_index(value)?;
        Some(EnumAttr { kind: k as u16, value: v as u16 })
    }
    /// The kind's description.
    pub fn kind(&self) -> &'static EnumKind {
        &ENUM_KINDS[self.kind as usize]
    }
    /// The kind name.
    pub fn kind_name(&self) -> &'static str {
        self.kind().name
    }
    /// The value in canonical spelling.
    pub fn value_name(&self) -> &'static str {
        self.kind().values.get(self.value as usize).copied().unwrap_or("?")
    }
}

/// An attribute value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Attr {
    /// A unit attribute (`{pto.entry}`).
    Unit,
    /// `true` / `false`.
    Bool(bool),
    /// An integer, with its type if one was written (`1 : i32`).
    Int(i64, Option<TypeId>),
    /// A float, with its type if one was written.
    Float(f64, Option<TypeId>),
    /// A string.
    Str(String),
    /// `[a, b, ...]`.
    Array(Vec<Attr>),
    /// A PTO enum value.
    Enum(EnumAttr),
    /// A type used as an attribute.
    Type(TypeId),
    /// `@symbol`.
    Symbol(String),
    /// `{k = v, ...}`.
    Dict(Vec<(String, Attr)>),
    /// Anything else, kept verbatim (`#pto.tile_buf_config<...>`, `dense<...>`).
    Opaque(String),
}

impl Attr {
    /// The enum value, if this is a PTO enum of kind `kind`.
    pub fn as_enum(&self, kind: &str) -> Option<&'static str> {
        match self {
            Attr::Enum(e) if e.kind_name() == kind => Some(e.value_name()),
            _ => None,
        }
    }
    /// The value name of an enum attribute of kind `kind`, written as `#pto<kind value>` or as a
    /// raw integer index into the kind's values (PTOAS writes some enums as integers).
    pub fn enum_value(&self, kind: &str) -> Option<&'static str> {
        match self {
            Attr::Enum(e) if e.kind_name() == kind => Some(e.value_name()),
            Attr::Int(i, _) => EnumKind::find(kind)?.1.values.get(usize::try_from(*i).ok()?).copied(),
            _ => None,
        }
    }
    /// The integer value, if any.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attr::Int(v, _) => Some(*v),
            _ => None,
        }
    }
    /// A short kind name for diagnostics.
    pub fn kind_name(&self) -> String {
        match self {
            Attr::Unit => "unit".into(),
            Attr::Bool(_) => "bool".into(),
            Attr::Int(..) => "integer".into(),
            Attr::Float(..) => "float".into(),
            Attr::Str(_) => "string".into(),
            Attr::Array(_) => "array".into(),
            Attr::Enum(e) => format!("#pto.{}", e.kind_name()),
            Attr::Type(_) => "type".into(),
            Attr::Symbol(_) => "symbol".into(),
            Attr::Dict(_) => "dictionary".into(),
            Attr::Opaque(_) => "opaque attribute".into(),
        }
    }
}

/// Formats a float so that it re-parses to the same bits and always looks like a float.
pub fn format_float(v: f64) -> String {
    if v.is_nan() {
        return "0x7FF8000000000000".to_string();
    }
    if v.is_infinite() {
        return if v > 0.0 { "0x7FF0000000000000".to_string() } else { "0xFFF0000000000000".to_string() };
    }
    let s = format!("{v:?}");
    if s.contains('.') || s.contains('e') || s.contains("inf") { s } else { format!("{s}.0") }
}
