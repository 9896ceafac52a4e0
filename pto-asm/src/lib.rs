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
//! all inside the MLIR structure PTOAS files use (`module`, `func.func`, `arith`, `scf`, views,
//! sync ops). The grammar (`pto.pest`) is generic over ops; [`builder`] interprets each op from
//! the op table. [`print`] writes canonical text: parsing it again yields the same module.
//!
//! Deliberate leniencies (documented in `docs/design.md`): `tmp` operands may be omitted (the
//! lowering inserts them), the legacy `wait(...)` clause is accepted with a warning, and both
//! `tile_buf` spellings and both enum-attribute spellings are accepted.

#![deny(missing_docs)]

extern crate alloc;

mod attrs;
mod builder;
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

pub use print::{print_module, PrintOptions};

/// Checks only the syntax (the statement reader, no name resolution or op interpretation).
pub fn check_syntax(src: &str) -> Result<(), pto_ir::Diagnostic> {
    reader::Source::new(src, FileId(0))?.check_all()
}

/// Whether the normative pest grammar (`pto.pest`) accepts `src`. The reader implements the
/// same language by hand for speed; tests check that the two agree (see docs/design.md).
pub fn grammar_accepts(src: &str) -> Result<(), pto_ir::Diagnostic> {
    syntax::parse_file(src, FileId(0)).map(|_| ())
}
