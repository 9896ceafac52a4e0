//! C++ spellings of PTO types and attributes, as pto-isa's headers name them and `ptoas`
//! writes them: element types (`half`, `bfloat16_t`...), `Tile<...>` types, enum tokens
//! (`RoundMode::CAST_RINT`, `pto::AccToVecMode::DualModeSplitM`) and scalar literals.

use pto_ir::attr::{Attr, EnumKind};
use pto_ir::types::{BLayout, Dim, ElemType, Loc, SLayout, TileDesc, Type};

/// The C++ element type of a PTO element type (`f16` is `half`, `index` is `int32_t` as in
/// `ptoas`, `i1` is `bool`).
pub fn elem(e: ElemType) -> &'static str {
    match e {
        ElemType::I1 => "bool",
        ElemType::I8 => "int8_t",
        ElemType::I16 => "int16_t",
        ElemType::I32 | ElemType::Index => "int32_t",
        ElemType::I64 => "int64_t",
        ElemType::U8 => "uint8_t",
        ElemType::U16 => "uint16_t",
        ElemType::U32 => "uint32_t",
        ElemType::U64 => "uint64_t",
        ElemType::F16 => "half",
        ElemType::BF16 => "bfloat16_t",
        ElemType::F32 => "float",
        ElemType::F64 => "double",
        ElemType::F8E4M3 => "float8_e4m3_t",
        ElemType::F8E5M2 => "float8_e5m2_t",
        ElemType::HiF8 => "hifloat8_t",
        ElemType::F8E8M0 => "float8_e8m0_t",
    }
}

/// pto-isa's `TileType` of a location.
pub fn tile_kind(loc: Loc) -> &'static str {
    match loc {
        Loc::Vec => "TileType::Vec",
        Loc::Mat => "TileType::Mat",
        Loc::Left => "TileType::Left",
        Loc::Right => "TileType::Right",
        Loc::Acc => "TileType::Acc",
        Loc::Bias => "TileType::Bias",
        Loc::Scaling => "TileType::Scaling",
        Loc::ScaleLeft => "TileType::ScaleLeft",
        Loc::ScaleRight => "TileType::ScaleRight",
    }
}

/// The address-space qualifier of a location's pointers (`__ubuf__`...).
pub fn space(loc: Loc) -> &'static str {
    match loc {
        Loc::Vec => "__ubuf__",
        Loc::Mat => "__cbuf__",
        Loc::Left => "__ca__",
        Loc::Right => "__cb__",
        Loc::Acc => "__cc__",
        Loc::Bias => "__biasbuf__",
        Loc::Scaling | Loc::ScaleLeft | Loc::ScaleRight => "__fbuf__",
    }
}

fn dim(d: Dim) -> String {
    match d {
        Dim::Static(n) => n.to_string(),
        Dim::Dynamic => "-1".to_string(),
    }
}

/// `Tile<TileType, T, R, C, BLayout, VR, VC, SLayout, fractal, PadValue, CompactMode>`.
pub fn tile(t: &TileDesc) -> String {
    let bl = match t.blayout {
        BLayout::RowMajor => "BLayout::RowMajor",
        BLayout::ColMajor => "BLayout::ColMajor",
    };
    let sl = match t.slayout {
        SLayout::NoneBox => "SLayout::NoneBox",
        SLayout::RowMajor => "SLayout::RowMajor",
        SLayout::ColMajor => "SLayout::ColMajor",
    };
    let pad = ["PadValue::Null", "PadValue::Zero", "PadValue::Max", "PadValue::Min"].get(t.pad as usize).unwrap_or(&"PadValue::Null");
    let compact =
        ["CompactMode::Null", "CompactMode::Normal", "CompactMode::RowPlusOne"].get(t.compact as usize).unwrap_or(&"CompactMode::Null");
    format!(
        "Tile<{}, {}, {}, {}, {bl}, {}, {}, {sl}, {}, {pad}, {compact}>",
        tile_kind(t.loc),
        elem(t.dtype),
        t.rows,
        t.cols,
        dim(t.valid_rows),
        dim(t.valid_cols),
        t.fractal
    )
}

/// The C++ type of a scalar, pointer or vector value; `None` for types that have no plain
/// C++ value spelling (tiles and views are declared by their own rules).
pub fn value_type(ty: &Type) -> Option<String> {
    match ty {
        Type::Scalar(e) => Some(elem(*e).to_string()),
        Type::Ptr(e) => Some(format!("__gm__ {}*", elem(*e))),
        Type::Vector(shape, ElemType::I16) if shape.as_slice() == [Some(4)] => Some("pto::MrgSortExecutedNumList".to_string()),
        Type::Opaque(text) if text.starts_with("memref<") && gm_memref(text) => Some(format!("__gm__ {}*", elem(ty.elem_type()?))),
        _ => None,
    }
}

/// True for a `memref<...>` spelling in GM (explicit `#pto.address_space<gm>` or none).
pub fn gm_memref(text: &str) -> bool {
    pto_ir::types::is_gm_memref_text(text)
}

/// `NoRelu` from `no_relu`, `DualModeSplitM` from `dual_mode_split_m`.
fn camel(s: &str) -> String {
    s.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next().map(|f| f.to_ascii_uppercase().to_string() + &c.as_str().to_ascii_lowercase()).unwrap_or_default()
        })
        .collect()
}

/// The C++ type and token of enum value `value` of kind `kind`
/// (`("RoundMode", "RoundMode::CAST_TRUNC")`).
pub fn enum_token(kind: &str, value: &str) -> (String, String) {
    let (ty, tok) = match kind {
        "round_mode" if value.starts_with("CAST_") => ("RoundMode".to_string(), value.to_string()),
        "round_mode" => ("RoundMode".to_string(), format!("CAST_{value}")),
        "saturation_mode" => ("SaturationMode".to_string(), value.to_string()),
        "mask_pattern" => ("MaskPattern".to_string(), value.to_string()),
        "cmp" => ("CmpMode".to_string(), value.to_ascii_uppercase()),
        "relu_pre_mode" => ("ReluPreMode".to_string(), camel(value)),
        "acc_to_vec_mode" => ("pto::AccToVecMode".to_string(), camel(value)),
        "tile_split" => ("TileSplitAxis".to_string(), value.to_string()),
        "st_phase" => ("STPhase".to_string(), camel(value)),
        "gather_oob" => ("GatherOOB".to_string(), camel(value)),
        "scatter_oob" => ("ScatterOOB".to_string(), camel(value)),
        "quant_type" => ("pto::QuantType".to_string(), value.to_string()),
        "pipe" | "event" => return ("pipe_t".to_string(), value.to_string()),
        _ => (camel(kind), camel(value)),
    };
    let full = format!("{ty}::{tok}");
    (ty, full)
}

/// The C++ token of an attribute: enum tokens, `true`/`false` (or `1`/`0` with `numeric`),
/// integers and floats; `kind` is the attribute's enum kind when it has one.
pub fn attr_token(a: &Attr, kind: Option<&str>, numeric: bool) -> Option<(Option<String>, String)> {
    match a {
        Attr::Bool(b) if numeric => Some((None, if *b { "1" } else { "0" }.to_string())),
        Attr::Bool(b) => Some((None, b.to_string())),
        Attr::Unit => Some((None, if numeric { "1" } else { "true" }.to_string())),
        Attr::Int(i, _) => match kind.and_then(|k| a.enum_value(k).map(|v| (k, v))) {
            Some((k, v)) if !numeric => {
                let (ty, tok) = enum_token(k, v);
                Some((Some(ty), tok))
            }
            _ => Some((None, i.to_string())),
        },
        Attr::Float(f, _) => Some((None, pto_ir::attr::format_float(*f))),
        Attr::Enum(e) => {
            let (ty, tok) = enum_token(e.kind_name(), e.value_name());
            Some((Some(ty), tok))
        }
        _ => None,
    }
}

/// The token of a default written in a rule (`CAST_RINT`, `eq`, `true`, `0`), spelled through
/// the attribute's enum kind when it has one.
pub fn default_token(text: &str, kind: Option<&str>) -> (Option<String>, String) {
    match kind.and_then(EnumKind::find).and_then(|(_, k)| k.values.iter().find(|v| v.eq_ignore_ascii_case(text)).map(|v| (k.name, *v))) {
        Some((k, v)) => {
            let (ty, tok) = enum_token(k, v);
            (Some(ty), tok)
        }
        None => (None, text.to_string()),
    }
}

/// A scalar literal of type `e` (`1.25f` for `f32`).
pub fn literal(a: &Attr, e: ElemType) -> Option<String> {
    match a {
        Attr::Int(i, _) if e == ElemType::I1 => Some(if *i != 0 { "true" } else { "false" }.to_string()),
        Attr::Bool(b) => Some(b.to_string()),
        Attr::Int(i, _) if e.is_float() => Some(float_literal(*i as f64, e)),
        Attr::Int(i, _) => Some(i.to_string()),
        Attr::Float(f, _) => Some(float_literal(*f, e)),
        _ => None,
    }
}

fn float_literal(f: f64, e: ElemType) -> String {
    let text = if f.is_finite() {
        let s = pto_ir::attr::format_float(f);
        if s.contains(['.', 'e', 'E']) { s } else { format!("{s}.0") }
    } else if f.is_nan() {
        return "NAN".to_string();
    } else if f > 0.0 {
        return "INFINITY".to_string();
    } else {
        return "-INFINITY".to_string();
    };
    match e {
        ElemType::F32 => format!("{text}f"),
        ElemType::F64 => text,
        _ => format!("({}) {text}f", elem(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_type_lists_every_parameter() {
        let mut t = TileDesc::vec(ElemType::F16, 16, 32);
        t.valid_cols = Dim::Dynamic;
        t.pad = 1;
        assert_eq!(
            tile(&t),
            "Tile<TileType::Vec, half, 16, 32, BLayout::RowMajor, 16, -1, SLayout::NoneBox, 512, PadValue::Zero, CompactMode::Null>"
        );
    }

    #[test]
    fn enum_tokens_follow_pto_isa() {
        assert_eq!(enum_token("round_mode", "TRUNC").1, "RoundMode::CAST_TRUNC");
        assert_eq!(enum_token("round_mode", "CAST_RINT").1, "RoundMode::CAST_RINT");
        assert_eq!(enum_token("acc_to_vec_mode", "dual_mode_split_m").1, "pto::AccToVecMode::DualModeSplitM");
        assert_eq!(enum_token("relu_pre_mode", "normal_relu").1, "ReluPreMode::NormalRelu");
        assert_eq!(enum_token("atomic_type", "atomic_add").1, "AtomicType::AtomicAdd");
        assert_eq!(enum_token("st_phase", "final").1, "STPhase::Final");
        assert_eq!(enum_token("quant_type", "INT8_ASYM").1, "pto::QuantType::INT8_ASYM");
        assert_eq!(enum_token("cmp", "gt").1, "CmpMode::GT");
    }

    #[test]
    fn float_literals_carry_their_type() {
        assert_eq!(literal(&Attr::Float(1.25, None), ElemType::F32).as_deref(), Some("1.25f"));
        assert_eq!(literal(&Attr::Int(2, None), ElemType::F32).as_deref(), Some("2.0f"));
        assert_eq!(literal(&Attr::Int(1, None), ElemType::I1).as_deref(), Some("true"));
    }
}
