//! # pto-asm — reading and printing PTO text
//!
//! One reader for every textual form of PTO, and one printer per form:
//!
//! | form | example |
//! |---|---|
//! | PTO-AS short form | `%d = tadd %a, %b : !pto.tile<16x16xf32>` with `.arg` / `.const` |
//! | Level-1 SSA | `%d = pto.tadd %a, %b : (!pto.tile<..>, !pto.tile<..>) -> !pto.tile<..>` |
//! | Level-2 DPS | `pto.tadd ins(%a, %b : TB, TB) outs(%d : TB)` on `!pto.tile_buf` |
//! | Level-3 | Level-2 with `pto.alloc_tile addr = %a : TB` |
//!
//! A statement that binds no results may name the op's destinations among its operands, first
//! as the ISA pages' PTO-AS writes them (`mgather.row %dst, %table, %idx`) or last as their
//! Level-1 SSA does (`pto.tstore %src, %mem`); they become the op's `outs`, as in DPS. A memory
//! operand `%v[%r, %c]` is a view followed by its offsets. Mnemonic suffixes name modes
//! (`mscatter.row.clamp` sets `coalesce` and `scatterOob`).
//!
//! all inside the MLIR structure PTOAS files use (`module`, `func.func`, `arith`, `scf`, views,
//! sync ops). The grammar (`pto.pest`) is generic over ops; [`builder`] interprets each op from
//! the op table, and the ops PTOAS gives a text format of their own are matched against it
//! (`format`). [`print`] writes canonical text: parsing it again yields the same module.
//!
//! Deliberate leniencies (documented in `docs/design.md`): `tmp` operands may be omitted (the
//! lowering inserts them), the legacy `wait(...)` clause is accepted with a warning, and both
//! `tile_buf` spellings and every enum-attribute spelling (`#pto.cmp<GT>`, `#pto<cmp gt>`,
//! `#pto<cmp<gt>>`) are accepted.

// Errors are located diagnostics (a few hundred bytes) built once per failure; boxing every
// `Result` on the hot success path would cost more than moving them on the rare error.
#![allow(clippy::result_large_err)]
#![deny(missing_docs)]

extern crate alloc;

mod attrs;
mod builder;
mod format;
pub mod print;
mod reader;
mod syntax;
mod types;

use pto_ir::diag::{Diagnostics, FileId};
use pto_ir::module::Module;

/// Parses `src` (the text of file `file`) into a module. Warnings are returned alongside.
pub fn parse(src: &str, file: FileId) -> Result<(Module, Diagnostics), Diagnostics> {
    let source = reader::Source::new(src, file).map_err(|d| Diagnostics(vec![d]))?;
    builder::Builder::new(file, &source).build_file()
}

pub use print::{PrintOptions, print_attribute, print_module, print_module_with_comments};
pub use reader::{Comment, comments};

/// The characters of `text` outside its string literals (`"..."`, backslash escapes inside),
/// with their byte offsets, the quotes left out: what a scanner counting brackets or looking
/// for a separator sees, as the reader skips a string whole (`!t<"<">` is one closed type).
///
/// ```
/// let seen: String = pto_asm::outside_strings(r#"a"<\"b"c"#).map(|(_, c)| c).collect();
/// assert_eq!(seen, "ac");
/// ```
pub fn outside_strings(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut quoted, mut escaped) = (false, false);
    text.char_indices().filter(move |&(_, ch)| {
        if quoted {
            match ch {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => quoted = false,
                _ => {}
            }
            return false;
        }
        quoted = ch == '"';
        !quoted
    })
}

/// Parses one type spelling (`!pto.tile_buf<vec, 16x16xf32>`, `i32`, `memref<...>`), as the
/// reader does for a type in a file.
pub fn parse_type(text: &str) -> Result<pto_ir::Type, String> {
    types::parse_type(text).map_err(|e| e.message)
}

/// Parses one attribute value written as in PTO text (`1 : i16`, `#pto<cmp gt>`, `[1, 2]`,
/// `{a = 1}`, `"s"`, `@f`), interning the types it names into `m`.
pub fn parse_attribute(text: &str, m: &mut Module) -> Result<pto_ir::Attr, String> {
    let source = reader::Source::new(text, FileId(0)).map_err(|d| d.message)?;
    let node = source.attribute().map_err(|d| d.message)?;
    builder::Builder::new(FileId(0), &source).attribute_into(&node, m).map_err(|d| d.message)
}

/// Checks only the syntax (the statement reader, no name resolution or op interpretation).
pub fn check_syntax(src: &str) -> Result<(), pto_ir::Diagnostic> {
    reader::Source::new(src, FileId(0))?.check_all()
}

/// Whether the normative pest grammar (`pto.pest`) accepts `src`. The reader implements the
/// same language by hand for speed; tests check that the two agree (see docs/design.md).
pub fn grammar_accepts(src: &str) -> Result<(), pto_ir::Diagnostic> {
    syntax::parse_file(src, FileId(0)).map(|_| ())
}
