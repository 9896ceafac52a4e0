//! # pto-lower — from any PTO level to Level 3, for an explicit target
//!
//! The pipeline is an ordered list of passes, each a plain function
//! `fn(&mut Module, &Target, &mut Diagnostics) -> Result<Changed, Diagnostics>`:
//!
//! 1. [`legalize`] — the layouts the target fixes (`left`/`right`/`acc`), then per-target legality (dtype / layout / location / shape tuples, scratch
//!    rules, the runtime valid-shape equalities the NPU code only asserts in debug builds);
//! 2. [`scratch`] (`insert-scratch`) — on A2A3, give every op that needs a scratch tile one of
//!    the size the implementation really uses, and check user-supplied ones; on A5, drop them;
//! 3. [`bufferize`] — Level-1 SSA tile values to Level-2 buffers (`alloc_tile` + `ins/outs`),
//!    reusing a dead input's buffer for the output where the op allows in-place execution;
//! 4. [`plan`] (`plan-memory`) — liveness-based placement of every tile in its buffer
//!    (Level 3: `alloc_tile addr = ...`);
//! 5. [`sync::insert`] (`insert-sync`, only when asked) — `set_flag` / `wait_flag` / `barrier`
//!    between the pipes of a core, for functions without an explicit sync op.
//!
//! The target is always an explicit argument ([`Target`]); [`target::resolve`] chooses it from
//! the command line and the module's `pto.target_arch`.
//! The driver ([`pipeline::run`]) re-verifies the module after every pass, so a pass that
//! breaks an invariant is caught at once, and passes only ever see verified input.

#![deny(missing_docs)]

pub mod binding;
pub mod bufferize;
pub mod cost;
pub mod cost_a2a3_fit;
pub mod cost_a5;
pub mod layout;
pub mod legality;
pub mod legalize;
pub mod liveness;
pub mod pipeline;
pub mod plan;
pub mod scratch;
pub mod sync;
pub mod target;
pub mod vector;

pub use pipeline::{Changed, PASSES, PassObserver, PipelineOptions, run};
pub use target::{Target, TargetId};
