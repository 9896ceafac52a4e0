//! MLIR interop through melior 0.22 / MLIR 19 (cargo feature `mlir`; nothing else in the
//! workspace knows melior exists).
//!
//! * [`export`]: a `pto` module → an MLIR module in generic form (`"pto.tadd"(%0, %1, %2) :
//!   (...) -> ()`), types and attributes spelled as PTOAS spells them, built through melior,
//!   verified by MLIR (with `func`, `arith`, `scf`, `memref` registered and every other dialect
//!   allowed unregistered), written as text or bytecode.
//! * [`import`]: MLIR text in generic form or bytecode → parsed and verified by MLIR → a `pto`
//!   module any of our printers can print.
//!
//! Export then import is the identity on printed text (`tests/mlir.rs` checks every conformance
//! and corpus file, in text and bytecode): what MLIR does not keep — value names, the text
//! form, implicit terminators, verbatim op syntax — travels in bridge attributes
//! (`convention.rs`). Modules from other tools import too; the bridge attributes are optional.
//!
//! Safety: every string handed to MLIR is parsed by a checked entry point (a failure is a
//! diagnostic, never a null handle passed on), MLIR's diagnostics are captured rather than
//! printed, and MLIR never owns a callback that can panic. See docs/mlir.md.

mod context;
mod convention;
mod convert;
mod export;
mod import;
mod pieces;
mod raw;

pub use export::{Format, export};
pub use import::{BYTECODE_MAGIC, import};
