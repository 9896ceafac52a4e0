//! Running a kernel on N ranks (devices).
//!
//! Each rank is one actor `(rank, 0, core)` of a [`Scheduler`] from [`crate::cores::sched`]:
//! ranks run on their own threads but only the one holding the turn executes, so a run is
//! deterministic (`--schedule random --seed S` explores other interleavings). The GM arrays
//! of all ranks are one vector (rank `r`'s at `r * per_rank`), moved with the turn, so a
//! rank's remote `tput` / `tnotify` writes its peer's arrays directly. A `twait` whose
//! condition does not hold suspends the rank until another rank changes GM (every comm op
//! that writes GM counts as a change); all ranks waiting is `SYNC_DEADLOCK` naming each rank's
//! blocked op and the signal it waits for.

use super::{Peer, Ranks};
use crate::cores::ActorId;
use crate::cores::machine::{CoreReport, Schedule};
use crate::cores::ops::CoreState;
use crate::cores::sched::{End, Policy, Scheduler};
use crate::cores::xpipe::BlockState;
use crate::gm::GmArray;
use crate::interp::{Sim, TraceEntry};
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Module, OpId};
use pto_lower::Target;

/// What a multi-rank run needs besides the module.
pub struct RankLaunch<'a> {
    /// Ranks, at least 1.
    pub ranks: u32,
    /// Blocks per rank, at least 1: they share their rank's GM.
    pub blocks: u32,
    /// The interleaving of ranks.
    pub schedule: Schedule,
    /// Record a trace per rank.
    pub trace: bool,
    /// Peer bindings of pointer arguments used as remote operands, by argument name.
    pub peers: &'a [(String, Peer)],
    /// Prepares rank `r`'s simulation (binds its inputs, sets options). Errors are messages.
    pub setup: &'a (dyn Fn(&mut Sim, u32) -> Result<(), String> + Sync),
    /// The tile values to read from each rank after its run (names without `%`).
    pub tiles: &'a [String],
}

/// The result of a multi-rank run.
#[derive(Clone, Debug, Default)]
pub struct RankRun {
    /// Each rank's GM arrays after the run, by rank.
    pub gm: Vec<Vec<GmArray>>,
    /// Each rank's report (its actor's rank field says which).
    pub cores: Vec<CoreReport>,
    /// The executed ops of every rank, in execution order.
    pub trace: Vec<(ActorId, TraceEntry)>,
}

fn error(msg: impl Into<String>) -> Vec<Diagnostic> {
    vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), msg)]
}

/// Most actors (ranks × blocks × cores) a run has: each is a thread under one scheduler.
pub const MAX_ACTORS: u32 = 256;

/// Runs `m` on `launch.ranks` ranks of `launch.blocks` blocks each (of a cube and two vector
/// cores for a mix kernel, with their own pipes and flags per block).
pub fn run(m: &Module, target: &'static Target, launch: &RankLaunch<'_>) -> Result<RankRun, Vec<Diagnostic>> {
    let count = launch.ranks.max(1);
    let blocks = launch.blocks.max(1);
    let errors = crate::cores::machine::static_errors(m);
    if !errors.is_empty() {
        return Err(errors);
    }
    let topo = std::sync::Arc::new(crate::cores::Topology::new(m, target));
    let cores = crate::cores::block_cores(topo.mix);
    let per_block = cores.len() as u32;
    if count.checked_mul(blocks).and_then(|n| n.checked_mul(per_block)).is_none_or(|n| n > MAX_ACTORS) {
        return Err(error(format!(
            "{count} rank(s) of {blocks} block(s) of {per_block} core(s) run as one thread per core under one scheduler: at most {MAX_ACTORS} in all"
        )));
    }
    let prepare = |r: u32| -> Result<Sim<'_>, Vec<Diagnostic>> {
        let mut sim = Sim::new(m, target)?;
        // The block count first: the default inputs `setup` may give depend on it.
        sim.block = (0, i64::from(blocks));
        (launch.setup)(&mut sim, r).map_err(|e| error(format!("rank {r}: {e}")))?;
        if launch.trace {
            sim.trace = Some(Vec::new());
        }
        Ok(sim)
    };
    // Every rank's prepared GM, in one vector.
    let mut flat = Vec::new();
    let mut per_rank = 0;
    for r in 0..count {
        let arrays = prepare(r)?.replace_gm(Vec::new());
        per_rank = arrays.len();
        flat.extend(arrays);
    }
    let mut peers = vec![Peer::Local; per_rank];
    for (name, peer) in launch.peers {
        let name = name.trim_start_matches('%');
        let Some(i) = flat[..per_rank].iter().position(|a| a.name == name && !a.internal) else {
            let args: Vec<String> = flat[..per_rank].iter().filter(|a| !a.internal).map(|a| format!("%{}", a.name)).collect();
            return Err(error(format!("--peer {name}: no GM argument `%{name}`; the kernel's: {}", args.join(", "))));
        };
        peers[i] = *peer;
    }
    let ranks = |me: u32| Ranks { me, count, per_rank, peers: peers.clone() };
    let policy = match launch.schedule {
        Schedule::InOrder => Policy::InOrder,
        Schedule::Random(seed) => Policy::Random(seed),
    };
    // Rank by rank, block by block, core by core; each (rank, block) has its own set of pipes.
    let actors: Vec<ActorId> = (0..count)
        .flat_map(|rank| (0..blocks).flat_map(move |block| (0..per_block as usize).map(move |k| (rank, block, k))))
        .map(|(rank, block, k)| ActorId { rank, block, core: cores[k] })
        .collect();
    let groups = (count * blocks) as usize;
    let pipes: Vec<_> = (0..groups).flat_map(|_| topo.pipes.iter().cloned()).collect();
    let state = BlockState::new(&pipes, actors.iter().map(|a| (a.rank, a.core)).collect());
    let sched = Scheduler::new(actors.len(), flat, state, policy);
    let stopped = crate::cores::machine::stopped(m, OpId(0)).message;
    type RankOut = (Result<(), Diagnostic>, Vec<TraceEntry>, CoreReport);
    let outs: Vec<Result<RankOut, Vec<Diagnostic>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = actors
            .iter()
            .enumerate()
            .map(|(i, &actor)| {
                let link = sched.link(i);
                let (prepare, ranks, stopped, topo) = (&prepare, &ranks, &stopped, topo.clone());
                scope.spawn(move || -> Result<RankOut, Vec<Diagnostic>> {
                    let r = actor.rank;
                    let mut sim = match prepare(r) {
                        Ok(s) => s,
                        Err(d) => {
                            link.finish(&mut Vec::new(), 0, true);
                            return Err(d);
                        }
                    };
                    sim.ranks = ranks(r);
                    sim.block = (i64::from(actor.block), i64::from(blocks));
                    sim.subblock = actor.core.subblock();
                    sim.shift_gm(r as usize * per_rank);
                    let space = crate::cores::ops::Space::Ranks { blocks, per_block };
                    let group_index = i / per_block as usize;
                    let group = (group_index * per_block as usize, group_index * topo.pipes.len());
                    let topo = Some(topo.clone());
                    let clock = sim.core.clock.take();
                    if let Some(c) = &clock {
                        crate::cores::clock::with(c, |c| c.set_actor(actor));
                    }
                    sim.core = CoreState { actor, index: i, link: Some(link.clone()), space, group, topo, clock, ..Default::default() };
                    crate::cores::machine::exact_pipes(&mut sim, &link);
                    let mut gm = sim.replace_gm(Vec::new());
                    let ran = match link.start(&mut gm) {
                        Ok(()) => {
                            sim.replace_gm(gm);
                            let res = sim.run();
                            let len = sim.trace.as_ref().map_or(0, Vec::len);
                            let mut gm = sim.replace_gm(Vec::new());
                            let failed = res.as_ref().is_err_and(|d| d.message != *stopped);
                            link.finish(&mut gm, len, failed);
                            res
                        }
                        Err(_) => Err(crate::cores::machine::stopped(m, OpId(0))),
                    };
                    let trace = sim.trace.take().unwrap_or_default();
                    let report = CoreReport {
                        actor,
                        checked: sim.checks_cross(),
                        printed: std::mem::take(&mut sim.printed),
                        steps: sim.steps(),
                        waits: 0,
                        tiles: launch.tiles.iter().filter_map(|t| sim.read_tile(t).ok().map(|d| (t.clone(), d))).collect(),
                        sync: {
                            let mut d = sim.sync_diagnostics();
                            d.append(&mut sim.core.findings);
                            d
                        },
                    };
                    Ok((ran, trace, report))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| Err(error("a rank's thread panicked")))).collect()
    });
    let Some(shared) = sched.into_shared() else { return Err(error("a rank's thread did not end")) };
    let (mut cores, mut traces, mut errors) = (Vec::new(), Vec::new(), Vec::new());
    for (i, out) in outs.into_iter().enumerate() {
        let (ran, trace, mut report) = out?;
        if let Err(d) = ran
            && d.message != stopped
        {
            errors.push(if actors.len() > 1 { d.with_note(format!("on {}", actor_name(actors[i], blocks))) } else { d });
        }
        report.waits = shared.waits[i];
        traces.push(trace);
        cores.push(report);
    }
    if let Some(End::Deadlock(blocked)) = &shared.end {
        errors.push(deadlock(m, &actors, blocks, blocked));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let trace = crate::cores::machine::interleave(&actors, traces, &shared.switches);
    if let (true, Some(first)) = (cores.iter().any(|c| c.checked), cores.first_mut()) {
        first.sync.extend(crate::cores::machine::unconsumed(m, &topo, &actors, &shared.block));
    }
    let gm = if per_rank == 0 { vec![Vec::new(); count as usize] } else { shared.gm.chunks(per_rank).map(<[GmArray]>::to_vec).collect() };
    Ok(RankRun { gm, cores, trace })
}

pub use super::actor_name;

/// `SYNC_DEADLOCK` at the first blocked op, with every blocked rank's op and wait.
fn deadlock(m: &Module, actors: &[ActorId], blocks: u32, blocked: &[(usize, OpId, String)]) -> Diagnostic {
    let names: Vec<String> = actors.iter().map(|&a| actor_name(a, blocks)).collect();
    crate::cores::machine::deadlock_of(m, &names, "every rank", blocked)
}
