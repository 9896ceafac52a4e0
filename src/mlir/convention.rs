//! The MLIR spelling of a `pto` module: names of the bridge attributes, op-specific mappings
//! and the rules both directions share. See docs/mlir.md for the whole convention.
//!
//! MLIR keeps an op's name, operands, results, regions, blocks and attributes. What `pto`'s
//! printers need beyond that travels in *bridge attributes*, discardable attributes in the
//! `pto.` namespace, each written only when it is not the default:
//!
//! | attribute | on | holds |
//! |---|---|---|
//! | `pto.form` | the module | `"short"`, `"ssa"` or `"dps"`: how tile ops are written |
//! | `pto.names` | an op with results | the result names (`["dst"]`) |
//! | `pto.arg_names` | an op with regions | per region, per block, the argument names |
//! | `pto.labels` | an op with regions | per region, per block, the label (`""`: none) |
//! | `pto.ins` | a DPS tile op | how many operands are `ins`, when the op table cannot tell |
//! | `pto.waits` | an op | how many trailing operands are legacy `wait(...)` events |
//! | `pto.syntax` | a verbatim op | its text pieces ([`crate::mlir`] docs, `encode_pieces`) |
//! | `pto.implicit` | `scf.yield` | added for MLIR (the text left it implicit) |
//! | `pto.signature` | `func.call` | the call was written with its signature |
//! | `pto.attr_order` | an op | the attribute order, when it is not alphabetical |
//!
//! A PTO-AS program's `.arg` directives are block arguments of the top-level block; MLIR's
//! module body takes none, so such a program is wrapped in one `"pto.program"` op whose single
//! block has those arguments.

use pto_ir::TextForm;
use pto_ir::ops::Opcode;

/// Module attribute: the text form.
pub(super) const FORM: &str = "pto.form";
/// The op wrapping a top-level block that has arguments (`.arg`).
pub(super) const PROGRAM: &str = "pto.program";
/// Result names.
pub(super) const NAMES: &str = "pto.names";
/// Block argument names, per region, per block.
pub(super) const ARG_NAMES: &str = "pto.arg_names";
/// Block labels, per region, per block.
pub(super) const LABELS: &str = "pto.labels";
/// Number of `ins` operands of a DPS tile op, when not the op table's default.
pub(super) const INS: &str = "pto.ins";
/// Number of trailing legacy `wait(...)` operands.
pub(super) const WAITS: &str = "pto.waits";
/// The text pieces of an op kept verbatim.
pub(super) const SYNTAX: &str = "pto.syntax";
/// A terminator MLIR needs and the text did not write.
pub(super) const IMPLICIT: &str = "pto.implicit";
/// `func.call` written with `: (...) -> (...)`.
pub(super) const SIGNATURE: &str = "pto.signature";
/// The attribute order when it is not alphabetical (MLIR sorts attribute dictionaries).
pub(super) const ATTR_ORDER: &str = "pto.attr_order";
/// MLIR's operand segment attribute (PTOAS `AttrSizedOperandSegments`).
pub(super) const SEGMENTS: &str = "operandSegmentSizes";
/// Static entries of a `partition_view` offsets list (MLIR's `static_offsets` convention).
pub(super) const STATIC_OFFSETS: &str = "static_offsets";
/// Static entries of a `partition_view` sizes list.
pub(super) const STATIC_SIZES: &str = "static_sizes";
/// The marker of a dynamic entry in `static_offsets` / `static_sizes` (MLIR's `kDynamic`).
pub(super) const DYNAMIC: i64 = i64::MIN;
/// The MLIR type standing for a result whose type the text did not write.
pub(super) const UNTYPED_MLIR: &str = "none";
/// `pto`'s spelling of that type.
pub(super) const UNTYPED_PTO: &str = "<untyped>";

/// `arith.constant`: the value as the text wrote it, when the op's typed value reads back
/// differently (`0.0001220703125 : f32` prints back as `0.00012207031`; `1 : f32` as `1.0`).
pub(super) const VALUE: &str = "pto.value";
/// The type wrapping a type MLIR cannot spell (`!pto.opaque<"hif8">`).
pub(super) const OPAQUE_TYPE: &str = "!pto.opaque<";

/// Every bridge attribute name (a user attribute with one of these names cannot be exported).
pub(super) const BRIDGE: &[&str] = &[FORM, NAMES, ARG_NAMES, LABELS, INS, WAITS, SYNTAX, IMPLICIT, SIGNATURE, ATTR_ORDER, VALUE];

/// `arith.cmpi` / `arith.cmpf` predicates by their MLIR enum value.
#[cfg(test)]
use pto_ir::ops::{CMPF_PREDICATES, CMPI_PREDICATES};

/// The predicate table of a compare op.
pub(super) fn predicates(op: Opcode) -> &'static [&'static str] {
    op.predicates()
}

/// The `pto.form` value of a text form.
pub(super) fn form_name(form: TextForm) -> &'static str {
    match form {
        TextForm::Short => "short",
        TextForm::Ssa => "ssa",
        TextForm::Dps => "dps",
    }
}

/// The text form named by a `pto.form` value.
pub(super) fn form_from_name(name: &str) -> Option<TextForm> {
    match name {
        "short" => Some(TextForm::Short),
        "ssa" => Some(TextForm::Ssa),
        "dps" => Some(TextForm::Dps),
        _ => None,
    }
}

/// How many of `n` operands of a tile op are `ins` when nothing says otherwise
/// ([`Opcode::default_ins`]); `pto.ins` records the split whenever it differs from this.
pub(super) fn default_ins(op: Opcode, n: usize, n_results: usize) -> usize {
    op.default_ins(n, n_results)
}

/// The attribute order an import produces when no `pto.attr_order` says otherwise:
/// alphabetical (MLIR sorts attribute dictionaries), except that the attribute the reader puts
/// first comes first (`value` of `arith.constant`, `predicate` of a compare, `sym_name` of
/// `module`) and the one it appends comes last (`arg_attrs` of `func.func`, `signature` of
/// `func.call`).
pub(super) fn canonical_order(op: Opcode, keys: &mut [String]) {
    let first = match op {
        Opcode::ArithConstant => "value",
        Opcode::ArithCmpi | Opcode::ArithCmpf => "predicate",
        Opcode::Module => "sym_name",
        _ => "",
    };
    let last = match op {
        Opcode::FuncFunc => "arg_attrs",
        Opcode::FuncCall => "signature",
        _ => "",
    };
    keys.sort_by(|a, b| {
        let rank = |k: &str| {
            if k == first {
                0
            } else if k == last {
                2
            } else {
                1
            }
        };
        rank(a).cmp(&rank(b)).then_with(|| a.cmp(b))
    });
}

/// `s` as an MLIR string literal.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for b in s.bytes() {
        match b {
            b'"' | b'\\' => {
                out.push('\\');
                out.push(b as char);
            }
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:02X}")),
        }
    }
    out.push('"');
    out
}

/// The value of an MLIR string literal (`quote` inverted); `None` when `s` is not one.
pub(super) fn unquote(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = Vec::with_capacity(inner.len());
    let bytes = inner.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let next = *bytes.get(i + 1)?;
            if next == b'"' || next == b'\\' {
                out.push(next);
                i += 2;
            } else {
                out.push(u8::from_str_radix(inner.get(i + 1..i + 3)?, 16).ok()?);
                i += 3;
            }
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The parts of `body` between top-level commas (brackets and strings nest).
fn top_level_parts(body: &str) -> Vec<&str> {
    let (mut depth, mut start) = (0i32, 0);
    let mut parts = Vec::new();
    for (i, c) in pto_asm::outside_strings(body) {
        match c {
            '<' | '(' | '[' | '{' => depth += 1,
            '>' | ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&body[start..]);
    parts
}

/// Rewrites the memory space (last part) of a `memref<...>` spelling with `f`, if `f` applies.
fn with_memory_space(ty: &str, f: impl Fn(&str) -> Option<String>) -> Option<String> {
    let body = ty.strip_prefix("memref<")?.strip_suffix('>')?;
    let parts = top_level_parts(body);
    let (last, init) = parts.split_last()?;
    let space = f(last.trim())?;
    Some(format!("memref<{}, {space}>", init.join(",")))
}

/// Other spellings of a type MLIR refuses, most faithful first: a `memref` whose memory space
/// is an attribute of the unregistered `pto` dialect (MLIR accepts only builtin integer, string
/// or dictionary memory spaces without the dialect) gets it as a string
/// (`memref<16xf16, "#pto.address_space<vec>">`); anything else is wrapped whole
/// (`!pto.opaque<"hif8">`).
pub(super) fn respellings(ty: &str) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(t) = with_memory_space(ty, |space| space.starts_with('#').then(|| quote(space))) {
        out.push(t);
    }
    out.push(format!("{OPAQUE_TYPE}{}>", quote(ty)));
    out
}

/// Undoes [`respellings`] on a type MLIR printed; `None` when it is not one.
pub(super) fn original_spelling(ty: &str) -> Option<String> {
    if let Some(inner) = ty.strip_prefix(OPAQUE_TYPE).and_then(|r| r.strip_suffix('>')) {
        return unquote(inner);
    }
    with_memory_space(ty, |space| unquote(space).filter(|s| s.starts_with('#')))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dps_split_follows_the_op_table() {
        assert_eq!(default_ins(Opcode::TAdd, 3, 0), 2);
        assert_eq!(default_ins(Opcode::TAdd, 2, 1), 2, "SSA: every operand is an input");
        // `src, tmp? -> dst | src, tmp? -> val, idx`: three operands read as (src, tmp) -> dst.
        assert_eq!(default_ins(Opcode::TColArgMax, 3, 0), 2);
        assert_eq!(default_ins(Opcode::TColArgMax, 4, 0), 2);
        assert_eq!(default_ins(Opcode::ArithAddi, 2, 1), 2);
    }

    #[test]
    fn canonical_order_is_alphabetical_around_the_reader_s_fixed_places() {
        let mut keys: Vec<String> = ["z", "value", "a"].map(String::from).to_vec();
        canonical_order(Opcode::ArithConstant, &mut keys);
        assert_eq!(keys, ["value", "a", "z"]);
        let mut keys: Vec<String> = ["signature", "b", "a"].map(String::from).to_vec();
        canonical_order(Opcode::FuncCall, &mut keys);
        assert_eq!(keys, ["a", "b", "signature"]);
    }

    #[test]
    fn unspellable_types_travel_respelled() {
        let memref = "memref<16x16xf16, #pto.address_space<vec>>";
        let alts = respellings(memref);
        assert_eq!(alts[0], "memref<16x16xf16, \"#pto.address_space<vec>\">");
        assert_eq!(original_spelling(&alts[0]).as_deref(), Some(memref));
        assert_eq!(respellings("hif8"), ["!pto.opaque<\"hif8\">"]);
        assert_eq!(original_spelling("!pto.opaque<\"a\\22b\">").as_deref(), Some("a\"b"));
        assert_eq!(original_spelling("memref<4xf32>"), None);
        assert_eq!(unquote(&quote("x\"\\\né")).as_deref(), Some("x\"\\\né"));
    }

    #[test]
    fn predicate_tables_match_mlir_enums() {
        assert_eq!(CMPI_PREDICATES.iter().position(|p| *p == "slt"), Some(2));
        assert_eq!(CMPF_PREDICATES.iter().position(|p| *p == "une"), Some(13));
    }
}
