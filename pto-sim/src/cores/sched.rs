//! The scheduler of one block's cores.
//!
//! Each core's interpreter runs on its own thread, but only the core holding the *turn*
//! executes; the others wait on a condition variable. So the interpreter stays a plain
//! recursive one (a core suspends in the middle of a loop nest by waiting), the cores'
//! interleaving is decided here alone, and a run is as deterministic as a single thread.
//!
//! * A core runs until an op would wait ([`Link::block`]: a `tpop` on an empty pipe, a push
//!   into a full one, a `sync.wait` on an unset flag) or it ends; then the turn passes.
//! * Every change of shared state (a push, pop, free, flag set) bumps a version; a blocked
//!   core is runnable again once the version moved past the one it blocked at, and retries its
//!   op. No runnable core while some have not ended is a deadlock ([`End::Deadlock`]).
//! * [`Policy::InOrder`] (the default) passes the turn to the next runnable core after the
//!   current one (AIC, AIV0, AIV1, AIC...); [`Policy::Random`] picks a runnable core at random
//!   (seeded) at every pass, and also passes the turn after every cross-core op
//!   ([`Link::preempt`]), so different seeds explore different interleavings.
//! * GM is owned by the core holding the turn: [`Link::start`] and the return from
//!   [`Link::block`] move the block's GM arrays into the core's interpreter, passing the turn
//!   moves them back, so the interpreter's GM accesses need no lock.

use super::xpipe::BlockState;
use crate::gm::GmArray;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::Module;
use pto_ir::module::OpId;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// How the turn passes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Policy {
    /// To the next runnable core in block order.
    InOrder,
    /// To a runnable core chosen by a generator seeded with this value.
    Random(u64),
}

/// Where one core is.
#[derive(Clone, Debug, PartialEq)]
enum Run {
    Ready,
    Blocked { version: u64, op: OpId, wait: String },
    Done,
}

/// Why a block's run ended early.
#[derive(Clone, Debug, PartialEq)]
pub enum End {
    /// Every core that has not ended waits: (core index, op, what it waits for).
    Deadlock(Vec<(usize, OpId, String)>),
    /// A core trapped; the others stopped.
    Aborted,
}

/// The state the block's cores share.
pub struct Shared {
    /// The GM arrays, while no core holds the turn.
    pub gm: Vec<GmArray>,
    /// Pipes and flags.
    pub block: BlockState,
    cores: Vec<Run>,
    turn: Option<usize>,
    version: u64,
    policy: Policy,
    rng: u64,
    /// Turn changes: (core that gave up the turn, its trace length then), in order; merges the
    /// per-core traces into one.
    pub switches: Vec<(usize, usize)>,
    /// Set when the run ended early.
    pub end: Option<End>,
    /// How often each core waited.
    pub waits: Vec<u64>,
}

struct Cell {
    state: Mutex<Shared>,
    turn: Condvar,
}

/// The scheduler of one block, shared by its cores' threads.
#[derive(Clone)]
pub struct Scheduler(Arc<Cell>);

/// A core's handle on its block's scheduler.
#[derive(Clone)]
pub struct Link {
    sched: Scheduler,
    /// The core's index in the block.
    pub me: usize,
    random: bool,
}

/// The run of this core was stopped because the block deadlocked or another core trapped.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Stopped;

impl Scheduler {
    /// A block of `cores` cores sharing `gm` and `block`; the first turn goes to core 0 (or a
    /// random one).
    pub fn new(cores: usize, gm: Vec<GmArray>, block: BlockState, policy: Policy) -> Scheduler {
        let rng = match policy {
            Policy::Random(seed) => seed ^ 0x9E37_79B9_7F4A_7C15,
            Policy::InOrder => 0,
        };
        let mut s = Shared {
            gm,
            block,
            cores: vec![Run::Ready; cores],
            turn: None,
            version: 0,
            policy,
            rng,
            switches: Vec::new(),
            end: None,
            waits: vec![0; cores],
        };
        s.turn = Some(match policy {
            Policy::InOrder => 0,
            Policy::Random(_) => (next_random(&mut s.rng) % cores.max(1) as u64) as usize,
        });
        Scheduler(Arc::new(Cell { state: Mutex::new(s), turn: Condvar::new() }))
    }

    /// The handle of core `me`.
    pub fn link(&self, me: usize) -> Link {
        let random = matches!(self.lock().policy, Policy::Random(_));
        Link { sched: self.clone(), me, random }
    }

    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A core thread that panicked while holding the lock leaves consistent state (every
        // update is a few assignments); keep going rather than poison every other core.
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The shared state after every core ended.
    pub fn into_shared(self) -> Option<Shared> {
        Arc::try_unwrap(self.0).ok().map(|c| c.state.into_inner().unwrap_or_else(|e| e.into_inner()))
    }
}

/// xorshift64* (deterministic, no dependency).
fn next_random(x: &mut u64) -> u64 {
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

impl Shared {
    /// Gives the turn to the next runnable core, or ends the run.
    fn pass(&mut self, from: usize) {
        let n = self.cores.len();
        let version = self.version;
        let runnable = |r: &Run| match r {
            Run::Ready => true,
            Run::Blocked { version: v, .. } => *v < version,
            Run::Done => false,
        };
        let candidates: Vec<usize> = (1..=n).map(|k| (from + k) % n).filter(|&i| runnable(&self.cores[i])).collect();
        self.turn = match (candidates.first(), self.policy) {
            (None, _) => {
                if self.cores.iter().any(|r| *r != Run::Done) {
                    let blocked = self
                        .cores
                        .iter()
                        .enumerate()
                        .filter_map(|(i, r)| match r {
                            Run::Blocked { op, wait, .. } => Some((i, *op, wait.clone())),
                            _ => None,
                        })
                        .collect();
                    self.end = Some(End::Deadlock(blocked));
                }
                None
            }
            (Some(&first), Policy::InOrder) => Some(first),
            (Some(_), Policy::Random(_)) => Some(candidates[(next_random(&mut self.rng) % candidates.len() as u64) as usize]),
        };
    }
}

impl Link {
    /// Waits for this core's turn, then takes the GM arrays into `gm`.
    fn wait_turn(&self, mut s: MutexGuard<'_, Shared>, gm: &mut Vec<GmArray>) -> Result<(), Stopped> {
        loop {
            if s.end.is_some() {
                return Err(Stopped);
            }
            if s.turn == Some(self.me) {
                std::mem::swap(gm, &mut s.gm);
                s.cores[self.me] = Run::Ready;
                return Ok(());
            }
            if s.turn.is_none() {
                return Err(Stopped);
            }
            s = self.sched.0.turn.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// Waits for the first turn.
    pub fn start(&self, gm: &mut Vec<GmArray>) -> Result<(), Stopped> {
        let s = self.sched.lock();
        self.wait_turn(s, gm)
    }

    /// This core cannot go on until another changes shared state: it waits (at `op`, for
    /// `wait`), and returns when it holds the turn again, to retry.
    pub fn block(&self, gm: &mut Vec<GmArray>, op: OpId, wait: String, trace_len: usize) -> Result<(), Stopped> {
        let mut s = self.sched.lock();
        std::mem::swap(gm, &mut s.gm);
        let version = s.version;
        s.cores[self.me] = Run::Blocked { version, op, wait };
        s.waits[self.me] += 1;
        s.switches.push((self.me, trace_len));
        s.pass(self.me);
        self.sched.0.turn.notify_all();
        self.wait_turn(s, gm)
    }

    /// Under the random policy, passes the turn (possibly back to this core) after a
    /// cross-core op; nothing under the in-order policy.
    pub fn preempt(&self, gm: &mut Vec<GmArray>, trace_len: usize) -> Result<(), Stopped> {
        if !self.random {
            return Ok(());
        }
        let mut s = self.sched.lock();
        std::mem::swap(gm, &mut s.gm);
        s.switches.push((self.me, trace_len));
        // Runnable itself: `pass` considers it like the others.
        s.cores[self.me] = Run::Ready;
        s.pass(self.me);
        self.sched.0.turn.notify_all();
        self.wait_turn(s, gm)
    }

    /// This core ended (`failed`: with a trap, which stops the block).
    pub fn finish(&self, gm: &mut Vec<GmArray>, trace_len: usize, failed: bool) {
        let mut s = self.sched.lock();
        if s.turn == Some(self.me) {
            std::mem::swap(gm, &mut s.gm);
        }
        s.cores[self.me] = Run::Done;
        s.switches.push((self.me, trace_len));
        if failed && s.end.is_none() {
            s.end = Some(End::Aborted);
            s.turn = None;
        } else if s.end.is_none() {
            s.pass(self.me);
        }
        self.sched.0.turn.notify_all();
    }

    /// Runs `f` on the shared pipes and flags; `changed` is whether it changed them (which
    /// makes blocked cores retry).
    pub fn with_block<R>(&self, f: impl FnOnce(&mut BlockState) -> (R, bool)) -> R {
        let mut s = self.sched.lock();
        let (r, changed) = f(&mut s.block);
        if changed {
            s.version += 1;
        }
        r
    }
}

/// The diagnostic a core returns when its block stopped because of another core (replaced by
/// the block's own report).
pub fn stopped(m: &Module, op: OpId) -> Diagnostic {
    Diagnostic::error(DiagClass::SyncDeadlock, m.op_span(op), STOPPED)
}

pub(crate) const STOPPED: &str = "stopped: another core of the block ended the run";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_cores_waiting_on_each_other_deadlock_and_name_both() {
        let sched = Scheduler::new(2, Vec::new(), BlockState::default(), Policy::InOrder);
        let (a, b) = (sched.link(0), sched.link(1));
        let t = std::thread::spawn(move || {
            let mut gm = Vec::new();
            b.start(&mut gm).unwrap();
            b.block(&mut gm, OpId(2), "flag 1".into(), 0)
        });
        let mut gm = Vec::new();
        a.start(&mut gm).unwrap();
        assert_eq!(a.block(&mut gm, OpId(1), "flag 0".into(), 0), Err(Stopped));
        assert_eq!(t.join().unwrap(), Err(Stopped));
        drop(a);
        let s = sched.into_shared().unwrap();
        assert_eq!(s.end, Some(End::Deadlock(vec![(0, OpId(1), "flag 0".into()), (1, OpId(2), "flag 1".into())])));
    }

    #[test]
    fn a_change_wakes_a_blocked_core() {
        let sched = Scheduler::new(2, Vec::new(), BlockState::default(), Policy::InOrder);
        let (a, b) = (sched.link(0), sched.link(1));
        let t = std::thread::spawn(move || {
            let mut gm = Vec::new();
            b.start(&mut gm).unwrap();
            b.with_block(|s| {
                s.flags.insert((0, 0, 0), 1);
                ((), true)
            });
            b.finish(&mut gm, 0, false);
        });
        let mut gm = Vec::new();
        a.start(&mut gm).unwrap();
        // Core 1 sets the flag, then ends: core 0 runs again.
        assert_eq!(a.block(&mut gm, OpId(1), "flag 0".into(), 0), Ok(()));
        assert_eq!(a.with_block(|s| (s.flags.get(&(0, 0, 0)).copied(), false)), Some(1));
        a.finish(&mut gm, 0, false);
        t.join().unwrap();
        drop(a);
        assert_eq!(sched.into_shared().unwrap().end, None);
    }
}
