//! `pto.syntax`: the text pieces of an op `pto` keeps verbatim (`pto.tpush_to_aiv(%t : T)
//! {split = 1}`, `memref.alloc() : memref<...>`), as one MLIR array attribute.
//!
//! | piece | element |
//! |---|---|
//! | word, literal, punctuation | its text as a string (`"to"`, `"32"`, `","`) |
//! | a value | `unit`: the next operand, in order |
//! | a type | the type |
//! | `@symbol` | the symbol reference |
//! | a `#...` attribute | the attribute |
//! | `(...)`, `[...]`, `<...>` | an array whose first element is the opening bracket |
//! | a top-level `{k = v, ...}` | `["{", "k", ...]`: the keys in order; the values are the op's attributes |
//! | a nested dictionary | the dictionary |
//! | the op's region `i` | the integer `i` |
//!
//! Top-level dictionaries are lifted into real MLIR attributes, so a tool reading the MLIR sees
//! `split = 1` on `pto.tpush_to_aiv` as PTOAS would write it.

use super::convert::{FromMlir, ToMlir};
use mlir_sys::*;
use pto_ir::{Attr, Module, Piece, ValueId};

/// Punctuation pieces the reader produces.
const PUNCTS: [&str; 7] = [",", ":", "=", "->", "?", "*", "+"];

/// Encodes `pieces` (of an op in `m`): the `pto.syntax` array, with the entries of top-level
/// dictionaries appended to `lifted`.
pub(super) fn encode(to: &mut ToMlir, m: &Module, pieces: &[Piece], lifted: &mut Vec<(String, Attr)>) -> Result<MlirAttribute, String> {
    let items = encode_list(to, m, pieces, true, lifted)?;
    Ok(to.array(&items))
}

fn encode_list(
    to: &mut ToMlir,
    m: &Module,
    pieces: &[Piece],
    top: bool,
    lifted: &mut Vec<(String, Attr)>,
) -> Result<Vec<MlirAttribute>, String> {
    let mut out = Vec::with_capacity(pieces.len());
    for p in pieces {
        out.push(match p {
            Piece::Word(s) | Piece::Literal(s) => to.str(s),
            Piece::Punct(s) => to.str(s),
            Piece::Value(_) => to.unit(),
            Piece::Type(t) => {
                let t = to.ty(m, *t)?;
                to.type_attr(t)
            }
            Piece::Symbol(s) => to.symbol(s),
            Piece::Attr(a) => {
                let attr = to.attr(m, a)?;
                if is_structural(attr) {
                    return Err(format!("attribute piece `{}` would read back as another piece", pto_asm::print_attribute(m, a)));
                }
                attr
            }
            Piece::Group(open, inner) => {
                let mut items = vec![to.str(&open.to_string())];
                items.extend(encode_list(to, m, inner, false, lifted)?);
                to.array(&items)
            }
            Piece::Dict(entries) if top => {
                let mut keys = vec!["{".to_string()];
                for (k, v) in entries {
                    keys.push(k.clone());
                    lifted.push((k.clone(), v.clone()));
                }
                to.strings(&keys)
            }
            Piece::Dict(entries) => to.attr(m, &Attr::Dict(entries.clone()))?,
            Piece::Region(i) => to.int(i64::from(*i)),
        });
    }
    Ok(out)
}

/// Kinds of attributes that stand for other pieces in the encoding.
fn is_structural(a: MlirAttribute) -> bool {
    unsafe {
        mlirAttributeIsAString(a)
            || mlirAttributeIsAUnit(a)
            || mlirAttributeIsAType(a)
            || mlirAttributeIsAArray(a)
            || mlirAttributeIsAInteger(a)
            || mlirAttributeIsADictionary(a)
            || mlirAttributeIsAFlatSymbolRef(a)
    }
}

/// What decoding needs besides the array: the op's operands (consumed in order by value
/// pieces) and its lifted attributes (consumed by key).
pub(super) struct DecodeInput<'a> {
    /// Operands of the op, in order.
    pub operands: &'a [ValueId],
    /// Next operand to hand out.
    pub next: usize,
    /// The op's attributes not yet placed in a dictionary piece.
    pub attrs: Vec<(String, Attr)>,
}

/// Decodes a `pto.syntax` array back into pieces.
pub(super) fn decode(
    from: &mut FromMlir,
    m: &mut Module,
    a: MlirAttribute,
    input: &mut DecodeInput,
    in_angle: bool,
) -> Result<Vec<Piece>, String> {
    if !unsafe { mlirAttributeIsAArray(a) } {
        return Err("`pto.syntax` must be an array".into());
    }
    let n = unsafe { mlirArrayAttrGetNumElements(a) };
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n {
        let e = unsafe { mlirArrayAttrGetElement(a, i) };
        out.push(decode_one(from, m, e, input, in_angle)?);
    }
    Ok(out)
}

fn decode_one(from: &mut FromMlir, m: &mut Module, e: MlirAttribute, input: &mut DecodeInput, in_angle: bool) -> Result<Piece, String> {
    unsafe {
        if mlirAttributeIsAString(e) {
            let s = super::raw::to_string(mlirStringAttrGetValue(e));
            if let Some(p) = PUNCTS.iter().find(|p| **p == s) {
                return Ok(Piece::Punct(p));
            }
            let literal = in_angle || s.starts_with(|c: char| c.is_ascii_digit() || c == '-' || c == '"');
            return Ok(if literal { Piece::Literal(s) } else { Piece::Word(s) });
        }
        if mlirAttributeIsAUnit(e) {
            let v = input.operands.get(input.next).copied().ok_or("`pto.syntax` names more values than the op has operands")?;
            input.next += 1;
            return Ok(Piece::Value(v));
        }
        if mlirAttributeIsAType(e) {
            return Ok(Piece::Type(from.ty(m, mlirTypeAttrGetValue(e))?));
        }
        if mlirAttributeIsAFlatSymbolRef(e) {
            return Ok(Piece::Symbol(super::raw::to_string(mlirFlatSymbolRefAttrGetValue(e))));
        }
        if mlirAttributeIsAInteger(e) {
            let i = super::convert::integer_value(e)?;
            return u32::try_from(i).map(Piece::Region).map_err(|_| format!("bad region index {i} in `pto.syntax`"));
        }
        if mlirAttributeIsADictionary(e) {
            let Attr::Dict(entries) = from.attr(m, e)? else { unreachable!("a dictionary converts to a dictionary") };
            return Ok(Piece::Dict(entries));
        }
        if mlirAttributeIsAArray(e) {
            let n = mlirArrayAttrGetNumElements(e);
            let head = if n > 0 { mlirArrayAttrGetElement(e, 0) } else { mlirAttributeGetNull() };
            let open = if !head.ptr.is_null() && mlirAttributeIsAString(head) {
                super::raw::to_string(mlirStringAttrGetValue(head))
            } else {
                String::new()
            };
            let rest: Vec<MlirAttribute> = (1..n).map(|i| mlirArrayAttrGetElement(e, i)).collect();
            return match open.as_str() {
                "(" | "[" | "<" => {
                    let mut inner = Vec::with_capacity(rest.len());
                    for r in rest {
                        inner.push(decode_one(from, m, r, input, open == "<")?);
                    }
                    Ok(Piece::Group(open.chars().next().unwrap_or('('), inner))
                }
                "{" => {
                    let mut entries = Vec::with_capacity(rest.len());
                    for r in rest {
                        if !mlirAttributeIsAString(r) {
                            return Err("a dictionary entry of `pto.syntax` must be a key".into());
                        }
                        let key = super::raw::to_string(mlirStringAttrGetValue(r));
                        let pos = input
                            .attrs
                            .iter()
                            .position(|(k, _)| *k == key)
                            .ok_or_else(|| format!("`pto.syntax` names attribute `{key}`, which the op does not have"))?;
                        entries.push(input.attrs.remove(pos));
                    }
                    Ok(Piece::Dict(entries))
                }
                _ => Err("an array in `pto.syntax` must start with `(`, `[`, `<` or `{`".into()),
            };
        }
    }
    Ok(Piece::Attr(from.attr(m, e)?))
}

/// Pieces for an op that arrives without `pto.syntax` (MLIR written by hand): its operands,
/// its attributes as a dictionary, `: T` or `: (T, U)` for its results, then its regions.
pub(super) fn synthesize(operands: &[ValueId], attrs: Vec<(String, Attr)>, results: &[pto_ir::TypeId], regions: usize) -> Vec<Piece> {
    let mut out = Vec::new();
    for (i, &v) in operands.iter().enumerate() {
        if i > 0 {
            out.push(Piece::Punct(","));
        }
        out.push(Piece::Value(v));
    }
    if !attrs.is_empty() {
        out.push(Piece::Dict(attrs));
    }
    match results {
        [] => {}
        [t] => out.extend([Piece::Punct(":"), Piece::Type(*t)]),
        many => {
            let mut inner = Vec::new();
            for (i, &t) in many.iter().enumerate() {
                if i > 0 {
                    inner.push(Piece::Punct(","));
                }
                inner.push(Piece::Type(t));
            }
            out.extend([Piece::Punct(":"), Piece::Group('(', inner)]);
        }
    }
    out.extend((0..regions as u32).map(Piece::Region));
    out
}
