//! Time across cores: the cross-core ops (pipe slots, FFTS flags, `syncall`, signals) carry
//! time as well as order when a run is timed (`pto run --cycles` / `--timeline` on several
//! cores). Each core's timeline is a [`CoreClock`]; a release records when the releasing op
//! completes ([`super::xpipe::BlockState::release`]), and an acquire holds the acquiring op —
//! and everything the core issues after it — until then.

use std::sync::{Arc, Mutex};

/// One core's timeline, as the ops between cores see it.
pub trait CoreClock: Send {
    /// When the core's last scheduled op completes: the time of a release it makes.
    fn release_time(&self) -> f64;
    /// The core's last scheduled op (the one acquiring) starts no earlier than `t`, nor does
    /// anything the core issues after it.
    fn not_before(&mut self, t: f64);
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
