//! # pto-ir — the IR of the PTO tile ISA
//!
//! A PTO program computes on **tiles**: 2-D arrays with a static capacity (`rows x cols`), a
//! *valid region* (a prefix `[0,vr) x [0,vc)`, static or dynamic) and a storage layout, living in
//! one on-chip buffer (Vec/UB, Mat/L1, Left/L0A, Right/L0B, Acc/L0C, Bias, Scaling). Data moves
//! between GM (global memory, seen through tensor and partition views) and tiles with
//! `tload`/`tstore`; everything else is a tile instruction.
//!
//! The same program can be written at three levels, and this crate holds all of them in one IR:
//!
//! * **Level 1 (SSA)**: tile *values* of type `!pto.tile<...>`; every op returns new tiles.
//!   Scratch tiles may be omitted — the lowering inserts them.
//! * **Level 2 (DPS)**: tile *buffers* `!pto.tile_buf<...>` allocated by `pto.alloc_tile`; ops are
//!   written in destination-passing style `pto.op ins(...) outs(...)` and return nothing.
//! * **Level 3**: Level 2 with explicit addresses (`alloc_tile addr = %a`).
//!
//! Crate layout: [`types`] and [`attr`] (interned types, attributes in both spellings), [`ops`]
//! (the one op table), [`module`] (ops/values/blocks/regions as tables with typed ids),
//! [`verify`] (the structural verifier, target independent), [`diag`] (diagnostics).

#![deny(missing_docs)]

pub mod attr;
pub mod diag;
pub mod equiv;
pub mod module;
pub mod ops;
pub mod tile_rules;
pub mod types;
pub mod verify;

pub use attr::Attr;
pub use diag::{DiagClass, Diagnostic, Diagnostics, FileId, SourceMap, Span};
pub use module::{BlockId, Level, Module, OpData, OpId, Payload, Piece, RegionId, TextForm, ValueDef, ValueId};
pub use ops::{Family, OpSpec, Opcode};
pub use types::{BLayout, Dim, ElemType, Loc, SLayout, TileDesc, Type, TypeId};
pub use verify::{Verified, verify};
