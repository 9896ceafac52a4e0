//! Pipes and synchronisation: a happens-before checker for the sync ops of a kernel.
//!
//! * [`model`] — the model itself: actors `(core, pipe)` with vector clocks, per-pipe queues,
//!   flags, barriers, buffer ids, and shadow memory of byte ranges; knows neither the IR nor
//!   the interpreter, and is unit-tested on its own.
//! * [`rules`] — what each target requires (same-pipe order, event ids), with sources.
//! * [`effects`] — what one op is to the model: its pipe and byte ranges, or its edge.
//! * [`check`] — the dynamic checker `pto run` uses: the interpreter reports each op before
//!   executing it; findings become `HAZARD_*` / `SYNC_*` diagnostics.
//!
//! docs/sync.md describes the model and the diagnostics for users.

pub mod check;
pub mod effects;
pub mod model;
pub mod rules;

pub use check::Checker;
pub use effects::has_explicit_sync;
