//! Everything `pto ops NAME` says about one op, read from the op table (`pto_ir::ops`), the
//! legality tables (`pto_lower::legality`) and the printers (`pto_asm::print`).
//!
//! * the operand pattern: each form's slots with their kinds, which are optional or variadic,
//!   the attributes with their kinds (and an enum's values), the constraints between slots;
//! * the rules per target, as `docs/legality.md` lists them ([`pto_lower::legalize::op_rules`]);
//! * generated examples ([`example`]): one program per text form the op has, each printed by the
//!   canonical printer from a module the reader built, and checked (parse, structural
//!   verification, `legalize` for each target) before it is shown.
//!
//! Nothing here is written per op: a new op-table entry gets its page and its examples.

pub mod check;
pub mod example;
pub mod generate;
mod plan;
mod sketch;
mod text;

pub use example::{Example, ExampleForm};
pub use text::{json, text};

use pto_ir::ops::{self, Opcode};

/// What `pto ops NAME` shows.
#[derive(Clone, Debug)]
pub struct OpInfo {
    /// The op.
    pub op: Opcode,
    /// The name it was asked for, as given.
    pub asked: String,
    /// Attributes the name's mode suffixes select (`mgather.row` sets `coalesce = row`), as text.
    pub modes: Vec<(String, String)>,
    /// Rules per target: `(form label, [aspect, a2a3, a5] rows)`; empty when no target table
    /// describes the op.
    pub rules: Vec<(String, Vec<[String; 3]>)>,
    /// The generated examples, in the order PTO-AS, Level-1 SSA, Level-2 (own form), generic.
    pub examples: Vec<Example>,
    /// The scratch tile `insert-scratch` gives the Level-2 example on A2A3, with its formula.
    pub scratch: Option<(String, String)>,
}

/// Finds the op a name means: a mnemonic with or without its dialect prefix (`tadd`,
/// `pto.tadd`, `arith.addi`), an alias (`tmatmul_acc`), or a mnemonic with mode suffixes
/// (`mgather.row.clamp`). The attributes the suffixes select come back as text.
pub fn find(name: &str) -> Option<(Opcode, Vec<(String, String)>)> {
    if let Some(op) = ops::lookup(name) {
        return Some((op, Vec::new()));
    }
    let (op, attrs) = ops::lookup_with_modes(name)?;
    let m = pto_ir::Module::default();
    Some((op, attrs.iter().map(|(n, a)| (n.clone(), pto_asm::print_attribute(&m, a))).collect()))
}

/// Every name [`find`] accepts without mode suffixes: full names, short PTO names, aliases.
pub fn all_names() -> Vec<String> {
    let mut out = Vec::new();
    for s in ops::all() {
        let prefix = s.dialect.prefix();
        for n in std::iter::once(&s.name).chain(s.aliases.iter()) {
            out.push(format!("{prefix}.{n}"));
            if s.dialect == ops::Dialect::Pto {
                out.push(n.to_string());
            }
        }
    }
    out
}

/// The known names closest to `name` by edit distance (at most 8, closest first; ties in
/// table order), for the diagnostic of an unknown name.
pub fn close_names(name: &str) -> Vec<String> {
    let wanted = name.to_ascii_lowercase();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut scored: Vec<(usize, String)> = Vec::new();
    for n in all_names() {
        let short = n.to_ascii_lowercase();
        let d = edit_distance(&wanted, &short);
        let contains = short.len() > 2 && wanted.len() > 2 && (short.contains(&wanted) || wanted.contains(&short));
        if (d <= limit || contains) && !scored.iter().any(|(_, x)| *x == n) {
            scored.push((if contains { d.min(limit) } else { d }, n));
        }
    }
    scored.sort_by_key(|(d, _)| *d);
    scored.into_iter().take(8).map(|(_, n)| n).collect()
}

/// Levenshtein distance over characters (the op table's: [`pto_ir::ops::edit_distance`]).
pub use pto_ir::ops::edit_distance;

/// Collects what `pto ops NAME` shows about `op` (asked for as `asked`, with the attributes its
/// mode suffixes select).
pub fn describe(op: Opcode, asked: &str, modes: Vec<(String, String)>) -> OpInfo {
    let examples = example::generate(op, &modes);
    let scratch = example::a2a3_scratch(op, &examples);
    OpInfo { op, asked: asked.to_string(), modes, rules: pto_lower::legalize::op_rules(op), examples, scratch }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("tadd", "tadd"), 0);
        assert_eq!(edit_distance("tad", "tadd"), 1);
        assert_eq!(edit_distance("tsub", "tadd"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
    }

    #[test]
    fn close_names_of_a_typo() {
        let near = close_names("tadds2");
        assert_eq!(near.first().map(String::as_str), Some("tadds"), "{near:?}");
        assert!(close_names("trowmx").contains(&"trowmax".to_string()));
        assert!(close_names("zzzzzzzzzzzzzz").is_empty());
    }

    #[test]
    fn names_with_aliases_and_modes_are_found() {
        assert_eq!(find("tmatmul_acc").map(|(o, _)| o), Some(Opcode::TMatmulAcc));
        assert_eq!(find("pto.tgemv.mx.acc").map(|(o, _)| o), Some(Opcode::TGemvMxAcc));
        let (op, modes) = find("mgather.row.clamp").expect("a moded mgather");
        assert_eq!(op, Opcode::MGather);
        assert_eq!(modes.len(), 2, "{modes:?}");
        assert_eq!(modes[0].0, "coalesce");
    }
}
