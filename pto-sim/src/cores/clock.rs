//! Time across cores: the cross-core ops (pipe slots, FFTS flags, `syncall`, signals) carry
//! time as well as order when a run is timed (`pto run --cycles` / `--timeline` on several
//! cores). Each core's timeline is a [`CoreClock`]; a release records when the releasing op
//! completes and which event it was ([`super::xpipe::BlockState::release`]), and an acquire
//! holds the acquiring op — and everything the core issues after it — until then, and records
//! the edge so a trace can draw it as a flow between the two cores.

use std::sync::{Arc, Mutex};

/// An event of one core's timeline: where a flow between cores starts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EventRef {
    /// The core (`None`: the one core of a single-core run).
    pub actor: Option<super::ActorId>,
    /// Its index in that core's events.
    pub event: usize,
}

/// A release as timed: when its op completes, and which event that is (`None`: the core had
/// scheduled nothing yet).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Released {
    /// Cycle of the release.
    pub at: f64,
    /// The releasing event.
    pub by: Option<EventRef>,
}

/// One core's timeline, as the ops between cores see it.
pub trait CoreClock: Send {
    /// When the core's last scheduled op completes, and which event that is: a release it makes.
    fn released(&self) -> Released;
    /// The core's last scheduled op (the one acquiring) starts no earlier than `from.at`, nor
    /// does anything the core issues after it; `what` names the edge (a flow in a trace:
    /// [`crate::sync::graph::Edge::flow_name`]).
    fn not_before(&mut self, from: Released, what: &'static str);
    /// Which core this clock times (set when the machine places the core).
    fn set_actor(&mut self, actor: super::ActorId);
}

/// A core's clock, shared between its timeline observer and its cross-core ops.
pub type SharedClock = Arc<Mutex<dyn CoreClock>>;

/// Runs `f` on the clock (a poisoned lock still holds a usable timeline).
pub fn with<R>(clock: &SharedClock, f: impl FnOnce(&mut dyn CoreClock) -> R) -> R {
    let mut c = clock.lock().unwrap_or_else(|e| e.into_inner());
    f(&mut *c)
}
