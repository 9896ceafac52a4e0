//! # pto-sim — run PTO kernels on a model of the NPU's memories
//!
//! A lowered (Level-3) module executes on [`memory::Memory`]: one byte-addressed buffer per
//! on-chip location with the target's capacity. Tiles are [`view::TileView`]s at a byte address
//! with their layout and valid region; every access is bounds-checked, and a program fault is a
//! `SIM_TRAP` diagnostic at the op that caused it, never a panic.
//!
//! Element semantics follow the pto-isa CPU simulator (the golden oracle), see [`elem`].
//! Coverage today: scalar `arith`, `scf.for` / `scf.if` / `scf.while`, `func.call`, sync ops
//! (ordering only), GM views with `tload` / `tstore`, and the tile families: elementwise
//! (binary, unary, tile-scalar, bitwise and shifts), reductions and arg-reductions, expands,
//! compare / select, `tci`, `tcvt`, moves, matmul ([`family`]), gathers and sorts
//! ([`gather_sort`]), the fixpipe ([`fixpipe`]), converting fused ops ([`fused_convert`]),
//! placement and prefetch ([`placement`]), img2col with its configuration registers ([`conv`],
//! [`config`]) and TPipe FIFOs ([`tpipe`]). Other ops report that they are not executable yet.

// Errors are located diagnostics (a few hundred bytes) built once per failure; boxing every
// `Result` on the hot success path would cost more than moving them on the rare error.
#![allow(clippy::result_large_err)]
#![deny(missing_docs)]

pub mod advice;
pub mod byteset;
pub mod comm;
pub mod config;
pub mod conv;
pub mod cores;
pub mod data;
pub mod defaults;
pub mod elem;
pub mod exec;
pub mod family;
pub mod fifo;
pub mod fixpipe;
pub mod fmatrix;
pub mod fused_convert;
pub mod gather_sort;
pub mod gm;
pub mod gm_ops;
pub mod gm_store;
pub mod interp;
pub mod json;
pub mod kernel_io;
pub mod launch;
pub mod memory;
pub mod minifloat;
pub mod npy;
pub mod placement;
pub mod quant;
pub mod region;
pub mod scalar_arith;
pub mod sync;
pub mod tables;
pub mod timeline;
pub mod tpipe;
pub mod value;
pub mod vector;
pub mod view;

pub use data::{JsonScalar, TileData};
pub use interp::{Sim, TraceEntry};
