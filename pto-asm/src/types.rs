//! Parsing of type spellings (the text of one `!pto...<...>` / builtin type token).
//!
//! The grammar captures a type as one balanced token; this module reads its inside:
//!
//! * `!pto.tile_buf` in the **legacy keyed form** (`loc=, dtype=, rows=, cols=, v_row=, v_col=,
//!   blayout=, slayout=, fractal=, pad=` in this fixed order, optional trailing `compact=`), and
//!   the **compact form** (`vec, 16x128xf32` then optional `valid=, blayout=, slayout=,
//!   fractal=, pad=, compact=` in any order, no duplicates); as in PTOAS, keyword values may be
//!   quoted (`"vec"`), `pad`/`compact` are the integer codes of their enums (0-3 / 0-2) and
//!   `-1` for a dynamic valid dimension is legacy-only;
//! * `!pto.tile` (canonical `16x16xf32[, loc=..][, valid=..]...`, and the docs' spellings
//!   `f32, 16, 16` and `loc=vec, f32, 16, 16, RowMajor, NoneBox, None, Zero`); other shapes
//!   (any rank, `?` dimensions) are kept verbatim;
//! * `!pto.ptr<T>`, `!pto.tensor_view<..>`, `!pto.partition_tensor_view<..>`, `!pto.event`,
//!   `vector<NxT>` and the builtin scalars;
//! * the ISA pages' GM tensors `!pto.memref<T[, d0x...]>` and `!pto.global<T[, d0x...]>`;
//! * `!pto.pipe`, `!pto.async_session`, `!pto.async_event`;
//! * MLIR's opaque spelling of each, `!pto<ptr<f32>>`.
//!
//! Anything else (`memref<...>`, `!pto.group<...>`) is kept verbatim, except `!pto.tile_view<...>`,
//! the old name of `!pto.partition_tensor_view` that PTOAS no longer reads.
//! Errors carry a byte offset inside the type text so the diagnostic points at the bad part.

use pto_ir::attr::EnumKind;
use pto_ir::types::{BLayout, Dim, ElemType, Loc, SLayout, Shape, TileDesc, Type};

/// A problem inside a type spelling: byte offset within the type text, class and message.
#[derive(Debug, Clone)]
pub(crate) struct TypeError {
    pub offset: usize,
    pub duplicate: bool,
    pub message: String,
}

fn err(offset: usize, message: impl Into<String>) -> TypeError {
    TypeError { offset, duplicate: false, message: message.into() }
}

/// One comma-separated argument inside `<...>`: its text and its offset in the type text.
pub(crate) struct Arg<'a> {
    pub text: &'a str,
    pub offset: usize,
}

impl<'a> Arg<'a> {
    pub(crate) fn key_value(&self) -> Option<(&'a str, &'a str, usize)> {
        let (k, v) = self.text.split_once('=')?;
        let voff = self.offset + k.len() + 1 + (v.len() - v.trim_start().len());
        Some((k.trim(), v.trim(), voff))
    }
}

/// Splits the body of `<...>` at top-level commas.
pub(crate) fn split_args(body: &str, base: usize) -> Vec<Arg<'_>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = body.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'[' | b'(' => depth += 1,
            b'>' | b']' | b')' => depth -= 1,
            b',' if depth == 0 => {
                push_arg(&mut out, body, start, i, base);
                start = i + 1;
            }
            _ => {}
        }
    }
    push_arg(&mut out, body, start, body.len(), base);
    out
}

fn push_arg<'a>(out: &mut Vec<Arg<'a>>, body: &'a str, start: usize, end: usize, base: usize) {
    let raw = &body[start..end];
    let lead = raw.len() - raw.trim_start().len();
    out.push(Arg { text: raw.trim(), offset: base + start + lead });
}

/// Splits `d0xd1x...xT` into its leading dimensions and the element type text: the leading
/// `x`-separated pieces that are integers or `?`, then the rest (MLIR's dimension list, so an
/// element type that contains an `x`, like `index`, stays whole).
fn split_dims(text: &str) -> (Vec<&str>, &str) {
    let mut dims = Vec::new();
    let mut rest = text;
    while let Some((d, tail)) = rest.split_once('x') {
        let d2 = d.trim();
        if d2 != "?" && (d2.is_empty() || !d2.bytes().all(|b| b.is_ascii_digit())) {
            break;
        }
        dims.push(d);
        rest = tail;
    }
    (dims, rest)
}

/// Parses `d0xd1x...xT` (dims may be `?`); returns the dims and the element type.
fn parse_shape(text: &str, offset: usize) -> Result<(Shape, ElemType), TypeError> {
    let (dims, elem) = split_dims(text);
    let elem_ty = ElemType::parse(elem.trim())
        .ok_or_else(|| err(offset + text.len() - elem.len(), format!("unknown element type `{}`", elem.trim())))?;
    let mut shape = Vec::with_capacity(dims.len());
    let mut pos = offset;
    for d in dims {
        let d2 = d.trim();
        if d2 == "?" {
            shape.push(None);
        } else {
            let n: u64 = d2.parse().map_err(|_| err(pos, format!("expected a dimension, found `{d2}`")))?;
            shape.push(Some(n));
        }
        pos += d.len() + 1;
    }
    Ok((shape, elem_ty))
}

/// Parses the pages' GM spelling `T` or `T, d0x...xdn` (dims may be `?`).
fn parse_gm(args: &[Arg<'_>], body_off: usize) -> Result<(Shape, ElemType), TypeError> {
    let elem_arg = args.first().filter(|a| !a.text.is_empty()).ok_or_else(|| err(body_off, "expected an element type"))?;
    // The MLIR spelling `d0x...xT` (pto-isa comm pages) is the same type.
    if args.len() == 1
        && ElemType::parse(elem_arg.text).is_none()
        && let (dims, elem) = split_dims(elem_arg.text)
        && !dims.is_empty()
        && ElemType::parse(elem).is_some()
    {
        return parse_shape(elem_arg.text, elem_arg.offset);
    }
    let elem = ElemType::parse(elem_arg.text).ok_or_else(|| err(elem_arg.offset, format!("unknown element type `{}`", elem_arg.text)))?;
    let mut shape = Vec::new();
    if let Some(dims) = args.get(1) {
        let mut pos = dims.offset;
        for d in dims.text.split('x') {
            let d2 = d.trim();
            shape.push(match d2 {
                "?" => None,
                _ => Some(d2.parse::<u64>().map_err(|_| err(pos, format!("expected a dimension, found `{d2}`")))?),
            });
            pos += d.len() + 1;
        }
    }
    if let Some(extra) = args.get(2) {
        return Err(err(extra.offset, "unexpected extra parameter"));
    }
    Ok((shape, elem))
}

fn parse_u32(v: &str, off: usize, what: &str) -> Result<u32, TypeError> {
    v.parse::<u32>().map_err(|_| err(off, format!("expected an integer for `{what}`, found `{v}`")))
}

/// A valid dimension: `?` or a non-negative integer, and also `-1` in the legacy keys.
fn parse_dim(v: &str, off: usize, what: &str, minus_one: bool) -> Result<Dim, TypeError> {
    match v {
        "?" => Ok(Dim::Dynamic),
        "-1" if minus_one => Ok(Dim::Dynamic),
        _ => Ok(Dim::Static(parse_u32(v, off, what)?)),
    }
}

/// `valid=RxC` of the compact form (PTOAS reads it with `parseDimensionList`: no `-1`).
fn parse_valid(v: &str, off: usize) -> Result<(Dim, Dim), TypeError> {
    let (r, c) = v.split_once('x').ok_or_else(|| err(off, format!("expected `valid=RxC`, found `{v}`")))?;
    Ok((parse_dim(r.trim(), off, "valid", false)?, parse_dim(c.trim(), off + r.len() + 1, "valid", false)?))
}

/// An integer-coded enum field (`pad=`, `compact=`): an index into the values of enum `kind`.
fn parse_enum_index(v: &str, off: usize, key: &str, kind: &str) -> Result<u32, TypeError> {
    let n = parse_u32(v, off, key)?;
    let values = EnumKind::find(kind).map(|(_, k)| k.values).unwrap_or_default();
    if (n as usize) < values.len() {
        return Ok(n);
    }
    let names: Vec<String> = values.iter().enumerate().map(|(i, name)| format!("{i} = {name}")).collect();
    Err(err(off, format!("unknown {key} `{n}` (expected {})", names.join(", "))))
}

/// A keyword value, which PTOAS also accepts as a quoted string (`"col_major"`).
fn keyword(v: &str) -> &str {
    v.strip_prefix('"').and_then(|k| k.strip_suffix('"')).unwrap_or(v)
}

/// Applies an optional `key=value` to a tile description (compact-form keys).
fn apply_key(t: &mut TileDesc, key: &str, v: &str, off: usize) -> Result<(), TypeError> {
    match key {
        "valid" => (t.valid_rows, t.valid_cols) = parse_valid(v, off)?,
        "loc" => t.loc = Loc::parse(keyword(v)).ok_or_else(|| err(off, format!("unknown location `{v}`")))?,
        "blayout" => t.blayout = BLayout::parse(keyword(v)).ok_or_else(|| err(off, format!("unknown blayout `{v}`")))?,
        "slayout" => t.slayout = SLayout::parse(keyword(v)).ok_or_else(|| err(off, format!("unknown slayout `{v}`")))?,
        "fractal" => t.fractal = parse_u32(v, off, "fractal")?,
        "pad" => t.pad = parse_enum_index(v, off, "pad", "pad_value")?,
        "compact" => t.compact = parse_enum_index(v, off, "compact", "compact_mode")?,
        _ => return Err(err(off, format!("unknown tile key `{key}`"))),
    }
    Ok(())
}

/// Parses the optional keys after the shape, rejecting duplicates.
fn apply_keys(t: &mut TileDesc, args: &[Arg<'_>]) -> Result<(), TypeError> {
    let mut seen: Vec<&str> = Vec::new();
    for a in args {
        let (k, v, voff) = a.key_value().ok_or_else(|| err(a.offset, format!("expected `key=value`, found `{}`", a.text)))?;
        if seen.contains(&k) {
            return Err(TypeError { offset: a.offset, duplicate: true, message: format!("duplicate tile key `{k}`") });
        }
        seen.push(k);
        apply_key(t, k, v, voff)?;
    }
    Ok(())
}

const LEGACY_KEYS: [&str; 10] = ["loc", "dtype", "rows", "cols", "v_row", "v_col", "blayout", "slayout", "fractal", "pad"];

fn parse_tile_buf(args: &[Arg<'_>]) -> Result<TileDesc, TypeError> {
    let first = args.first().ok_or_else(|| err(0, "empty !pto.tile_buf"))?;
    if first.key_value().is_some() {
        return parse_legacy(args);
    }
    let loc = Loc::parse(keyword(first.text)).ok_or_else(|| {
        err(first.offset, format!("expected a location (vec, mat, left, right, acc, bias, scaling), found `{}`", first.text))
    })?;
    let shape_arg = args.get(1).ok_or_else(|| err(first.offset + first.text.len(), "expected `, RxCxT` after the location"))?;
    let (shape, dtype) = parse_shape(shape_arg.text, shape_arg.offset)?;
    let [Some(rows), Some(cols)] = shape[..] else {
        return Err(err(shape_arg.offset, "a tile_buf shape must have exactly two static dimensions"));
    };
    let mut t = TileDesc::vec(dtype, to_u32(rows, shape_arg.offset)?, to_u32(cols, shape_arg.offset)?);
    t.loc = loc;
    apply_keys(&mut t, &args[2..])?;
    Ok(t)
}

fn to_u32(n: u64, off: usize) -> Result<u32, TypeError> {
    u32::try_from(n).map_err(|_| err(off, format!("dimension {n} is too large")))
}

fn parse_legacy(args: &[Arg<'_>]) -> Result<TileDesc, TypeError> {
    let mut vals: Vec<(&str, usize)> = Vec::new();
    for (i, key) in LEGACY_KEYS.iter().enumerate() {
        let Some(a) = args.get(i) else {
            let off = args.last().map(|a| a.offset + a.text.len()).unwrap_or(0);
            return Err(err(off, format!("expected `{key}` (legacy tile_buf keys come in a fixed order: {})", LEGACY_KEYS.join(", "))));
        };
        match a.key_value() {
            Some((k, v, voff)) if k == *key => vals.push((v, voff)),
            _ => {
                return Err(err(
                    a.offset,
                    format!("expected `{key}` (legacy tile_buf keys come in a fixed order: {})", LEGACY_KEYS.join(", ")),
                ));
            }
        }
    }
    let loc = Loc::parse(keyword(vals[0].0)).ok_or_else(|| err(vals[0].1, format!("unknown location `{}`", vals[0].0)))?;
    let dtype = ElemType::parse(vals[1].0).ok_or_else(|| err(vals[1].1, format!("unknown element type `{}`", vals[1].0)))?;
    let mut t = TileDesc::vec(dtype, parse_u32(vals[2].0, vals[2].1, "rows")?, parse_u32(vals[3].0, vals[3].1, "cols")?);
    t.loc = loc;
    t.valid_rows = parse_dim(vals[4].0, vals[4].1, "v_row", true)?;
    t.valid_cols = parse_dim(vals[5].0, vals[5].1, "v_col", true)?;
    apply_key(&mut t, "blayout", vals[6].0, vals[6].1)?;
    apply_key(&mut t, "slayout", vals[7].0, vals[7].1)?;
    apply_key(&mut t, "fractal", vals[8].0, vals[8].1)?;
    apply_key(&mut t, "pad", vals[9].0, vals[9].1)?;
    match args.get(10) {
        None => {}
        Some(a) => match a.key_value() {
            Some(("compact", v, voff)) => apply_key(&mut t, "compact", v, voff)?,
            _ => return Err(err(a.offset, format!("unexpected `{}` after `pad` (only `compact=` may follow)", a.text))),
        },
    }
    if let Some(a) = args.get(11) {
        return Err(err(a.offset, format!("unexpected `{}` after the last legacy key", a.text)));
    }
    Ok(t)
}

/// `!pto.tile<...>`: a Level-1 tile (two static dimensions, optional keys, or the docs'
/// positional spellings), else any other shape PTOAS's `TileType` accepts (any rank, `?`
/// dimensions, no keys), kept verbatim as no op takes it.
fn parse_tile(args: &[Arg<'_>], text: &str) -> Result<Type, TypeError> {
    let first = args.first().ok_or_else(|| err(0, "empty !pto.tile"))?;
    // Canonical: RxCxT then keys.
    if first.text.contains('x') && first.key_value().is_none() {
        let (shape, dtype) = parse_shape(first.text, first.offset)?;
        let [Some(rows), Some(cols)] = shape[..] else {
            return match args.len() {
                1 => Ok(Type::Opaque(normalize_ws(text))),
                _ => Err(err(first.offset, "a tile with keys must have exactly two static dimensions")),
            };
        };
        let mut t = TileDesc::vec(dtype, to_u32(rows, first.offset)?, to_u32(cols, first.offset)?);
        apply_keys(&mut t, &args[1..])?;
        return Ok(Type::Tile(t));
    }
    parse_doc_tile(args).map(Type::Tile)
}

/// Doc spellings of `!pto.tile`: positional `f32, 16, 16[, blayout, slayout, fractal-ish, pad]`.
fn parse_doc_tile(args: &[Arg<'_>]) -> Result<TileDesc, TypeError> {
    let first = args.first().ok_or_else(|| err(0, "empty !pto.tile"))?;
    // Docs: [loc=L,] dtype, rows, cols[, blayout, slayout, fractal, pad].
    let mut rest = args;
    let mut loc = Loc::Vec;
    if let Some(("loc", v, voff)) = first.key_value() {
        loc = Loc::parse(v).ok_or_else(|| err(voff, format!("unknown location `{v}`")))?;
        rest = &args[1..];
    }
    let [d, r, c, tail @ ..] = rest else {
        return Err(err(first.offset, "expected `RxCxT` or `dtype, rows, cols`"));
    };
    let dtype = ElemType::parse(d.text).ok_or_else(|| err(d.offset, format!("unknown element type `{}`", d.text)))?;
    let mut t = TileDesc::vec(dtype, parse_u32(r.text, r.offset, "rows")?, parse_u32(c.text, c.offset, "cols")?);
    t.loc = loc;
    for (i, a) in tail.iter().enumerate() {
        match i {
            0 => t.blayout = BLayout::parse(a.text).ok_or_else(|| err(a.offset, format!("unknown blayout `{}`", a.text)))?,
            1 => t.slayout = SLayout::parse(a.text).ok_or_else(|| err(a.offset, format!("unknown slayout `{}`", a.text)))?,
            2 => {
                t.fractal = match a.text {
                    "None" | "512" => 512,
                    other => parse_u32(other, a.offset, "fractal")?,
                }
            }
            3 => {
                t.pad = match a.text {
                    "Null" | "None" => 0,
                    "Zero" => 1,
                    "Max" => 2,
                    "Min" => 3,
                    other => parse_enum_index(other, a.offset, "pad", "pad_value")?,
                }
            }
            _ => return Err(err(a.offset, format!("unexpected `{}`", a.text))),
        }
    }
    Ok(t)
}

/// Parses one type spelling.
pub(crate) fn parse_type(text: &str) -> Result<Type, TypeError> {
    let text_trim = text.trim();
    if let Some(inner) = text_trim.strip_prefix("!pto<").and_then(|t| t.strip_suffix('>')) {
        // MLIR's opaque dialect-type spelling: `!pto<ptr<f32>>` is `!pto.ptr<f32>` (same offsets).
        // MLIR's pretty form `!pto.name<...>` exists only for a body that starts with an
        // identifier; any other body keeps the `!pto<...>` spelling (`!pto.` + an arbitrary body
        // would not read again).
        if !has_pretty_form(inner) {
            return Ok(Type::Opaque(normalize_ws(text_trim)));
        }
        return parse_type(&format!("!pto.{inner}"));
    }
    if let Some(e) = ElemType::parse(text_trim) {
        return Ok(Type::Scalar(e));
    }
    let (head, body, body_off) = match text_trim.find('<') {
        Some(i) if text_trim.ends_with('>') => (&text_trim[..i], &text_trim[i + 1..text_trim.len() - 1], i + 1),
        Some(i) => return Err(err(i, "unbalanced `<` in type")),
        None => (text_trim, "", text_trim.len()),
    };
    let args = split_args(body, body_off);
    let shaped = |ctor: fn(Shape, ElemType) -> Type| -> Result<Type, TypeError> {
        let a = args.first().ok_or_else(|| err(body_off, "expected a shape"))?;
        if args.len() > 1 {
            return Err(err(args[1].offset, "unexpected extra parameter"));
        }
        let (shape, elem) = parse_shape(a.text, a.offset)?;
        Ok(ctor(shape, elem))
    };
    match head {
        "!pto.tile_buf" => Ok(Type::TileBuf(parse_tile_buf(&args)?)),
        "!pto.tile" => parse_tile(&args, text_trim),
        "!pto.tile_view" => Err(err(0, "`!pto.tile_view` is the old name of `!pto.partition_tensor_view`")),
        "!pto.ptr" => {
            let a = args.first().ok_or_else(|| err(body_off, "expected an element type"))?;
            if args.len() > 1 {
                return Err(err(args[1].offset, "`!pto.ptr<T, addrspace>` is obsolete: write `!pto.ptr<T>`"));
            }
            let e = ElemType::parse(a.text).ok_or_else(|| err(a.offset, format!("unknown element type `{}`", a.text)))?;
            Ok(Type::Ptr(e))
        }
        "!pto.tensor_view" => shaped(Type::TensorView),
        "!pto.partition_tensor_view" => shaped(Type::PartitionView),
        "vector" => shaped(Type::Vector),
        "!pto.memref" => parse_gm(&args, body_off).map(|(shape, e)| Type::Memref(shape, e)),
        "!pto.global" => parse_gm(&args, body_off).map(|(shape, e)| Type::Global(shape, e)),
        "!pto.event" if body.is_empty() => Ok(Type::Event),
        "!pto.pipe" if body.is_empty() => Ok(Type::Pipe),
        "!pto.async_session" if body.is_empty() => Ok(Type::AsyncSession),
        "!pto.async_event" if body.is_empty() => Ok(Type::AsyncEvent),
        _ if head.starts_with('!') || head == "memref" || head == "tensor" => {
            // Kept verbatim, with whitespace normalised so equal types compare equal.
            Ok(Type::Opaque(normalize_ws(text_trim)))
        }
        _ => Err(err(0, format!("unknown type `{text_trim}`"))),
    }
}

/// Whether a dialect type body `name` or `name<...>` has MLIR's pretty spelling `!pto.name<...>`:
/// its name is an identifier (`[A-Za-z_][A-Za-z0-9_$.]*`) and anything after it is one `<...>`.
fn has_pretty_form(body: &str) -> bool {
    let name_end = body.find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))).unwrap_or(body.len());
    let (name, rest) = body.split_at(name_end);
    name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && (rest.is_empty() || (rest.starts_with('<') && rest.ends_with('>')))
}

/// Collapses runs of whitespace (types may span lines) to one space.
pub(crate) fn normalize_ws(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    for ch in s.chars() {
        if ch.is_whitespace() {
            space = true;
        } else {
            if space && !out.is_empty() && !out.ends_with(['<', '(', '[']) && ch != '>' && ch != ')' && ch != ']' {
                out.push(' ');
            }
            space = false;
            out.push(ch);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_and_compact_tile_buf_agree() {
        let legacy = parse_type("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=16, v_col=?, blayout=row_major, slayout=none_box, fractal=512, pad=0>").unwrap();
        let compact = parse_type("!pto.tile_buf<vec, 16x128xf32, valid=16x?>").unwrap();
        assert_eq!(legacy, compact);
        assert_eq!(compact.to_string(), "!pto.tile_buf<vec, 16x128xf32, valid=16x?>");
    }

    #[test]
    fn legacy_keys_out_of_order_are_rejected() {
        let e = parse_type("!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=16, blayout=row_major, v_row=16, v_col=16, slayout=none_box, fractal=512, pad=0>").unwrap_err();
        assert!(e.message.starts_with("expected `v_row`"), "{}", e.message);
    }

    #[test]
    fn compact_duplicate_key_is_rejected() {
        let e = parse_type("!pto.tile_buf<vec, 16x16xf16, pad=1, pad=2>").unwrap_err();
        assert!(e.duplicate);
        assert_eq!(&"!pto.tile_buf<vec, 16x16xf16, pad=1, pad=2>"[e.offset..e.offset + 5], "pad=2");
    }

    #[test]
    fn doc_tile_spellings() {
        let a = parse_type("!pto.tile<f32, 16, 16>").unwrap();
        let b = parse_type("!pto.tile<loc=vec, f32, 16, 16, RowMajor, NoneBox, None, Zero>").unwrap();
        assert_eq!(a.to_string(), "!pto.tile<16x16xf32>");
        assert_eq!(b.to_string(), "!pto.tile<16x16xf32, pad=1>");
    }

    #[test]
    fn views_and_opaque() {
        assert_eq!(parse_type("!pto.tensor_view<?x?xf32>").unwrap().to_string(), "!pto.tensor_view<?x?xf32>");
        assert_eq!(parse_type("vector<4xi16>").unwrap().to_string(), "vector<4xi16>");
        assert!(matches!(parse_type("memref<16x16xf16, #pto.address_space<vec>>").unwrap(), Type::Opaque(_)));
        assert!(parse_type("!pto.tile_buf<vec, 16x16xq7>").is_err());
        assert!(parse_type("float").is_err());
    }

    #[test]
    fn page_gm_spellings() {
        assert_eq!(parse_type("!pto.memref<f32,64x64>").unwrap().to_string(), "!pto.memref<f32, 64x64>");
        assert_eq!(parse_type("!pto.memref<i32>").unwrap().to_string(), "!pto.memref<i32>");
        assert_eq!(parse_type("!pto.global<f16, ?x16>").unwrap().to_string(), "!pto.global<f16, ?x16>");
        assert!(parse_type("!pto.memref<...>").is_err());
    }
}
