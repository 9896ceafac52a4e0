//! Running a kernel on N blocks of cores.
//!
//! * Each block runs on its own copy of the kernel's GM arrays (as prepared by a simulation with
//!   the inputs bound), on a rayon pool: blocks are independent, so the result does not depend
//!   on the number of threads. A mix kernel's block runs its AIC and AIVs under one
//!   [`Scheduler`]; any other kernel's block is one core that runs everything.
//! * **Merge.** The blocks' GM arrays are merged in block order: each byte a block changed (its
//!   final value differs from the initial one) is taken from it.
//! * **Hazards between blocks.** Blocks without `syncall` share no edge of the happens-before
//!   graph, so when orders are checked each block records the exact bytes it reads and writes
//!   ([`crate::gm::Accessed`]), and after the run they are fed, block by block, into one
//!   [`crate::sync::graph::Graph`] with a core per block and no edges: any byte one block writes
//!   and another accesses is a `HAZARD_*` error (two blocks writing the same value too: the
//!   verdict never depends on the data, and it is the one the rank machine gives).
//! * A trap in a core stops its block and is reported with the core's name; all cores of a
//!   block waiting is `SYNC_DEADLOCK` at the blocked ops, each named with its core and what it
//!   waits for.

use super::ops::CoreState;
use super::sched::{End, Policy, Scheduler};
use super::xpipe::BlockState;
use super::{ActorId, CoreKind, Topology, block_cores};
use crate::data::TileData;
use crate::gm::GmArray;
use crate::interp::{Sim, TraceEntry};
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Module, OpId};
use pto_lower::Target;
use std::sync::Arc;

/// How the cores of a block interleave (`pto run --schedule`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Run a core until it waits, then the next (AIC, AIV0, AIV1): the default.
    #[default]
    InOrder,
    /// Random choices from this seed (block `b` uses `seed + b`).
    Random(u64),
}

/// What a multi-core run needs besides the module.
pub struct Launch<'a> {
    /// Blocks (`get_block_num`), at least 1.
    pub blocks: u32,
    /// The interleaving of cores.
    pub schedule: Schedule,
    /// Threads for the blocks (`None`: rayon's default, one per CPU).
    pub threads: Option<usize>,
    /// Record a trace per core.
    pub trace: bool,
    /// Prepares each core's simulation (binds inputs, sets options). Errors are messages.
    pub setup: &'a (dyn Fn(&mut Sim) -> Result<(), String> + Sync),
    /// The tile values to read from each core after its run (names without `%`).
    pub tiles: &'a [String],
}

/// One core's part of a run.
#[derive(Clone, Debug)]
pub struct CoreReport {
    /// Which core.
    pub actor: ActorId,
    /// What it printed (`tprint`).
    pub printed: String,
    /// Ops it executed.
    pub steps: u64,
    /// How often it waited for another core.
    pub waits: u64,
    /// The requested tiles it holds.
    pub tiles: Vec<(String, TileData)>,
    /// Its sync checker's findings.
    pub sync: Vec<Diagnostic>,
    /// Whether orders between cores were checked ([`Sim::checks_cross`]).
    pub checked: bool,
}

/// The result of a multi-core run.
#[derive(Clone, Debug, Default)]
pub struct MachineRun {
    /// The merged GM arrays.
    pub gm: Vec<GmArray>,
    /// Every core, block by block.
    pub cores: Vec<CoreReport>,
    /// The executed ops of every core, in execution order within each block, block by block.
    pub trace: Vec<(ActorId, TraceEntry)>,
    /// Hazards between blocks on separate GM copies ([`unordered_accesses`]).
    pub warnings: Vec<Diagnostic>,
}

use super::sched::STOPPED;
pub use super::sched::stopped;

/// What one block produced.
struct BlockRun {
    gm: Vec<GmArray>,
    cores: Vec<CoreReport>,
    trace: Vec<(ActorId, TraceEntry)>,
    /// The GM bytes its cores read and wrote (blocks on separate GM copies, when checking).
    accessed: Vec<crate::gm::Accessed>,
}

/// The static errors of the module's cube/vector pipes, reported by `pto verify` and before a
/// run: [`super::topology::check`] and [`super::split::check`].
pub fn static_errors(m: &Module) -> Vec<Diagnostic> {
    let mut out = super::topology::check(m);
    out.extend(super::split::check(m));
    out
}

/// Runs `m` on `launch.blocks` blocks, each starting from a copy of `gm`.
pub fn run(m: &Module, target: &'static Target, gm: &[GmArray], launch: &Launch<'_>) -> Result<MachineRun, Vec<Diagnostic>> {
    let errors = static_errors(m);
    if !errors.is_empty() {
        return Err(errors);
    }
    let topo = Arc::new(Topology::new(m, target));
    let blocks = launch.blocks.max(1);
    if let (true, Some(op)) = (blocks > 1, first_syncall(m)) {
        return run_synced_blocks(m, target, &topo, gm, blocks, launch, op);
    }
    let one = |b: u32| run_block(m, target, &topo, gm.to_vec(), b, blocks, launch);
    let results: Vec<Result<BlockRun, Vec<Diagnostic>>> = if blocks == 1 {
        vec![one(0)]
    } else {
        use rayon::prelude::*;
        let work = || (0..blocks).into_par_iter().map(one).collect();
        match launch.threads {
            Some(t) => match pool(t.max(1)) {
                Ok(pool) => pool.install(work),
                Err(e) => {
                    return Err(vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), format!("cannot start {t} threads: {e}"))]);
                }
            },
            None => work(),
        }
    };
    let results: Vec<BlockRun> = results.into_iter().collect::<Result<_, _>>()?;
    let mut out = MachineRun { warnings: unordered_accesses(m, gm, &results), ..Default::default() };
    let mut merged: Option<Vec<GmArray>> = None;
    for r in results {
        match &mut merged {
            None => merged = Some(r.gm),
            Some(acc) => merge(acc, gm, &r.gm),
        }
        out.cores.extend(r.cores);
        out.trace.extend(r.trace);
    }
    out.gm = merged.unwrap_or_default();
    Ok(out)
}

/// A pool of `threads` threads, built once per thread count (building one per run would cost
/// a short run as much as its blocks).
fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>, String> {
    static POOLS: std::sync::Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = std::sync::Mutex::new(Vec::new());
    let mut pools = POOLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, p)) = pools.iter().find(|(t, _)| *t == threads) {
        return Ok(p.clone());
    }
    let p = Arc::new(rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| e.to_string())?);
    pools.push((threads, p.clone()));
    Ok(p)
}

/// The first `syncall` of `m`, if it has one.
fn first_syncall(m: &Module) -> Option<OpId> {
    m.walk().into_iter().find(|&op| m.op(op).opcode == pto_ir::ops::Opcode::SyncAll)
}

/// Most cores a kernel with `syncall` runs on (each core is a thread under one scheduler).
pub const MAX_SYNCED_CORES: usize = 256;

/// A kernel with `syncall` on several blocks: the blocks meet at each barrier, so they run
/// under one scheduler on one shared GM (no copies to merge) — each block one core, or the AIC
/// and AIVs of a mix kernel, whose pipes and flags stay per block; their GM accesses are checked
/// against each other with the barrier rounds as the edges.
fn run_synced_blocks(
    m: &Module,
    target: &'static Target,
    topo: &Arc<Topology>,
    gm: &[GmArray],
    blocks: u32,
    launch: &Launch<'_>,
    syncall: OpId,
) -> Result<MachineRun, Vec<Diagnostic>> {
    let refuse = |why: String| Err(vec![Diagnostic::error(DiagClass::SimTrap, m.op_span(syncall), why).with_op("pto.syncall")]);
    let cores = block_cores(topo.mix);
    if blocks as usize * cores.len() > MAX_SYNCED_CORES {
        return refuse(format!(
            "a kernel with `syncall` runs its blocks together, one thread per core: at most {MAX_SYNCED_CORES} cores, not {blocks} block(s) of {}",
            cores.len()
        ));
    }
    let actors: Vec<ActorId> = (0..blocks).flat_map(|block| cores.iter().map(move |&core| ActorId { rank: 0, block, core })).collect();
    let space = if topo.mix { super::ops::Space::Cores } else { super::ops::Space::Blocks };
    let r = run_group(m, target, topo, gm.to_vec(), &actors, blocks, launch, space)?;
    Ok(MachineRun { gm: r.gm, cores: r.cores, trace: r.trace, warnings: Vec::new() })
}

/// Runs block `b` of `n`.
fn run_block(
    m: &Module,
    target: &'static Target,
    topo: &Arc<Topology>,
    gm: Vec<GmArray>,
    b: u32,
    n: u32,
    launch: &Launch<'_>,
) -> Result<BlockRun, Vec<Diagnostic>> {
    let actors: Vec<ActorId> = block_cores(topo.mix).into_iter().map(|core| ActorId { rank: 0, block: b, core }).collect();
    run_group(m, target, topo, gm, &actors, n, launch, super::ops::Space::Cores)
}

/// Runs `actors` (cores of blocks of `n`) on `gm`: one core alone directly, several under one
/// [`Scheduler`] that shares GM and the pipe, flag and barrier state between them.
#[allow(clippy::too_many_arguments)]
fn run_group(
    m: &Module,
    target: &'static Target,
    topo: &Arc<Topology>,
    gm: Vec<GmArray>,
    actors: &[ActorId],
    n: u32,
    launch: &Launch<'_>,
    space: super::ops::Space,
) -> Result<BlockRun, Vec<Diagnostic>> {
    let prepare = |actor: ActorId, index: usize| -> Result<Sim<'_>, Vec<Diagnostic>> {
        let mut sim = Sim::new(m, target)?;
        // The block first: the default inputs `setup` may give depend on the block count.
        sim.block = (i64::from(actor.block), i64::from(n));
        (launch.setup)(&mut sim).map_err(|e| vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), e)])?;
        sim.subblock = actor.core.subblock();
        // The first core and pipe of this core's block in the scheduler's shared state.
        let first = actors.iter().position(|a| a.block == actor.block && a.rank == actor.rank).unwrap_or(0);
        let blocks_before = actors[..first].iter().filter(|a| !matches!(a.core, CoreKind::Aiv(_))).count();
        let group = (first, blocks_before * topo.pipes.len());
        // The timeline's clock `setup` installed stays.
        let clock = sim.core.clock.take();
        if let Some(c) = &clock {
            crate::cores::clock::with(c, |c| c.set_actor(actor));
        }
        sim.core = CoreState { actor, index, topo: Some(topo.clone()), space, group, clock, ..Default::default() };
        if n > 1 && actors.iter().all(|a| a.block == actor.block) && sim.checks_cross() {
            // Blocks on separate GM copies: what each accesses is compared with the others'.
            sim.gm_accessed = Some(Default::default());
        }
        if launch.trace {
            sim.trace = Some(Vec::new());
        }
        Ok(sim)
    };
    let report = |sim: &mut Sim<'_>, waits: u64| CoreReport {
        checked: sim.checks_cross(),
        actor: sim.core.actor,
        printed: std::mem::take(&mut sim.printed),
        steps: sim.steps(),
        waits,
        tiles: launch.tiles.iter().filter_map(|t| sim.read_tile(t).ok().map(|d| (t.clone(), d))).collect(),
        sync: {
            let mut d = sim.sync_diagnostics();
            d.append(&mut sim.core.findings);
            d
        },
    };
    let in_block = |d: Diagnostic, who: ActorId| if n > 1 || topo.mix { d.with_note(format!("on core {}", who.name())) } else { d };
    if let [actor] = actors {
        let mut sim = prepare(*actor, 0)?;
        sim.replace_gm(gm);
        sim.run().map_err(|d| vec![in_block(d, *actor)])?;
        let trace = sim.trace.take().unwrap_or_default().into_iter().map(|e| (*actor, e)).collect();
        let rep = report(&mut sim, 0);
        let accessed = sim.gm_accessed.take().into_iter().collect();
        return Ok(BlockRun { gm: sim.replace_gm(Vec::new()), cores: vec![rep], trace, accessed });
    }
    let first_block = actors.first().map_or(0, |a| a.block);
    let policy = match launch.schedule {
        Schedule::InOrder => Policy::InOrder,
        Schedule::Random(seed) => Policy::Random(seed.wrapping_add(u64::from(first_block))),
    };
    // One set of pipes per block under this scheduler.
    let groups = actors.iter().filter(|a| !matches!(a.core, CoreKind::Aiv(_))).count();
    let pipes: Vec<_> = (0..groups).flat_map(|_| topo.pipes.iter().cloned()).collect();
    let state = BlockState::new(&pipes, actors.iter().map(|a| (a.rank, a.core)).collect());
    let sched = Scheduler::new(actors.len(), gm, state, policy);
    let outs: Vec<Result<CoreOut, Vec<Diagnostic>>> = std::thread::scope(|scope| {
        let handles: Vec<_> = actors
            .iter()
            .enumerate()
            .map(|(i, &actor)| {
                let link = sched.link(i);
                let prepare = &prepare;
                let report = &report;
                scope.spawn(move || -> Result<CoreOut, Vec<Diagnostic>> {
                    // A panic (a simulator bug) must still end this core, or the others would
                    // wait for its turn forever.
                    let guard = link.clone();
                    let body = std::panic::AssertUnwindSafe(move || run_core(prepare, report, link, actor, i, m));
                    std::panic::catch_unwind(body).unwrap_or_else(|_| {
                        guard.finish(&mut Vec::new(), 0, true);
                        Err(vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), "internal error: a core's thread panicked")])
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), "a core's thread panicked")]))
            })
            .collect()
    });
    finish_block(m, topo, actors, sched, outs, &in_block)
}

/// When `sim` checks its pipes, its checker reports to the machine's happens-before graph
/// (the scheduler's shared state) as core `sim.core.index`: its pipes become actors of their
/// own there, ordered by its flags and barriers ([`crate::sync::graph::Graph::set_exact`]), and a
/// hazard with another core is worded as [`super::ops::gm_access`] words it.
pub fn exact_pipes(sim: &mut Sim<'_>, link: &super::sched::Link) {
    let (me, actor, space) = (sim.core.index, sim.core.actor, sim.core.space);
    let names: Vec<String> = sim.gm_arrays().iter().map(|a| a.name.clone()).collect();
    let ranks = sim.ranks.clone();
    let Some(o) = sim.observer_mut() else { return };
    let l = link.clone();
    let graph: crate::interp::SharedGraph = Box::new(move |f: &mut dyn FnMut(&mut crate::sync::graph::Graph)| {
        l.with_block(|b| {
            f(&mut b.hb);
            ((), false)
        })
    });
    let render: crate::interp::CrossRender = Box::new(move |m: &Module, h: &crate::sync::graph::CrossHazard| {
        let name = names.get(ranks.local(h.arg)).map_or("?", String::as_str);
        let name = if ranks.count > 1 { format!("{name}@{}", ranks.owner(h.arg)) } else { name.to_string() };
        super::ops::cross_hazard(m, actor, space, h, &name)
    });
    o.share_graph(me, graph, render);
}

/// What one core's thread returns: its run, its trace, its report.
type CoreOut = (Result<(), Diagnostic>, Vec<TraceEntry>, Option<CoreReport>, Option<crate::gm::Accessed>);

/// One core's thread: prepares its simulation, waits for its first turn, runs, ends.
fn run_core<'m>(
    prepare: &dyn Fn(ActorId, usize) -> Result<Sim<'m>, Vec<Diagnostic>>,
    report: &dyn Fn(&mut Sim<'m>, u64) -> CoreReport,
    link: super::sched::Link,
    actor: ActorId,
    i: usize,
    m: &Module,
) -> Result<CoreOut, Vec<Diagnostic>> {
    let mut sim = match prepare(actor, i) {
        Ok(s) => s,
        Err(d) => {
            link.finish(&mut Vec::new(), 0, true);
            return Err(d);
        }
    };
    sim.core.link = Some(link.clone());
    exact_pipes(&mut sim, &link);
    let mut gm = sim.replace_gm(Vec::new());
    let ran = match link.start(&mut gm) {
        Ok(()) => {
            sim.replace_gm(gm);
            let r = sim.run();
            let len = sim.trace.as_ref().map_or(0, Vec::len);
            let mut gm = sim.replace_gm(Vec::new());
            let failed = r.as_ref().is_err_and(|d| d.message != STOPPED);
            link.finish(&mut gm, len, failed);
            r
        }
        Err(_) => Err(stopped(m, OpId(0))),
    };
    let trace = sim.trace.take().unwrap_or_default();
    let rep = report(&mut sim, 0);
    Ok((ran, trace, Some(rep), sim.gm_accessed.take()))
}

/// Collects a block's cores after they ended: the deadlock or traps, else the block's GM,
/// reports and interleaved trace.
fn finish_block(
    m: &Module,
    topo: &Topology,
    actors: &[ActorId],
    sched: Scheduler,
    outs: Vec<Result<CoreOut, Vec<Diagnostic>>>,
    in_block: &dyn Fn(Diagnostic, ActorId) -> Diagnostic,
) -> Result<BlockRun, Vec<Diagnostic>> {
    let Some(shared) = sched.into_shared() else {
        return Err(vec![Diagnostic::error(DiagClass::SimTrap, Default::default(), "a core's thread did not end")]);
    };
    let mut cores = Vec::new();
    let mut traces = Vec::new();
    let mut errors = Vec::new();
    let mut accessed = Vec::new();
    for (i, out) in outs.into_iter().enumerate() {
        let (ran, trace, rep, core_accessed) = out?;
        accessed.extend(core_accessed);
        if let Err(d) = ran
            && d.message != STOPPED
        {
            errors.push(in_block(d, actors[i]));
        }
        traces.push(trace);
        if let Some(mut rep) = rep {
            rep.waits = shared.waits[i];
            cores.push(rep);
        }
    }
    if let Some(End::Deadlock(blocked)) = &shared.end {
        errors.push(deadlock(m, actors, blocked));
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let trace = interleave(actors, traces, &shared.switches);
    let checked = cores.iter().any(|c| c.checked);
    let mut run = BlockRun { gm: shared.gm, cores, trace, accessed };
    if let (true, Some(first)) = (checked, run.cores.first_mut()) {
        first.sync.extend(unconsumed(m, topo, actors, &shared.block));
    }
    Ok(run)
}

/// What the cores left behind at the end: pipe slots pushed and never freed by every consumer
/// (located at the pipe's init ops), FFTS flags set more often than waited (at the last set).
/// Both are `SYNC_UNPAIRED` errors, like a `set_flag` never waited within a core: the FIFO and
/// the flag counters outlive the kernel on hardware, so the next kernel would start from them.
pub(crate) fn unconsumed(m: &Module, topo: &Topology, actors: &[ActorId], state: &BlockState) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let per_block = topo.pipes.len().max(1);
    for (i, p) in state.pipes.iter().enumerate() {
        let Some(what) = p.leftover() else { continue };
        let mut inits: Vec<OpId> = topo.inits.iter().filter(|(_, ids)| ids.contains(&Some(i % per_block))).map(|(op, _)| *op).collect();
        inits.sort_by_key(|op| m.op_span(*op).start);
        let at = inits.first().map_or_else(Default::default, |op| m.op_span(*op));
        let d = Diagnostic::error(DiagClass::SyncUnpaired, at, format!("{what}: every `tpop` needs its `tfree` before the kernel ends"));
        out.push(inits.iter().skip(1).fold(d, |d, op| d.with_label(m.op_span(*op), "the other end of the pipe")));
    }
    let mut left: Vec<(&(usize, i64, usize), &u64)> = state.flags.iter().filter(|(_, n)| **n > 0).collect();
    left.sort();
    for (key @ &(core, id, _), &n) in left {
        let whom = actors.get(core).map_or_else(|| format!("core {core}"), |a| a.name());
        let at = state.flag_set_at.get(key).map_or_else(Default::default, |op| m.op_span(*op));
        out.push(Diagnostic::error(
            DiagClass::SyncUnpaired,
            at,
            format!("FFTS flag {id} of {whom} is set {n} more time(s) than it is waited before the kernel ends"),
        ));
    }
    out
}

/// `SYNC_DEADLOCK` at the first blocked op, with every blocked core's op and wait.
fn deadlock(m: &Module, actors: &[ActorId], blocked: &[(usize, OpId, String)]) -> Diagnostic {
    let names: Vec<String> = actors.iter().map(|a| a.name()).collect();
    let b = actors.first().map_or(0, |a| a.block);
    let whom = if actors.iter().all(|a| a.block == b) { format!("every core of block {b}") } else { "every block".to_string() };
    deadlock_of(m, &names, &whom, blocked)
}

/// `SYNC_DEADLOCK` of the actors `names` (by scheduler index) at the first blocked op: "`whom`
/// that has not ended waits forever", each blocked actor's op labelled with what it waits for,
/// and a note naming the actors that already ended.
pub(crate) fn deadlock_of(m: &Module, names: &[String], whom: &str, blocked: &[(usize, OpId, String)]) -> Diagnostic {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
    let ended: Vec<String> = (0..names.len()).filter(|i| !blocked.iter().any(|(k, _, _)| k == i)).map(name).collect();
    let summary: Vec<String> = blocked.iter().map(|(i, _, w)| format!("{} waits for {w}", name(*i))).collect();
    let Some(&(_, op, _)) = blocked.first() else {
        return Diagnostic::error(DiagClass::SyncDeadlock, Default::default(), format!("{whom} deadlocked"));
    };
    let mut d = Diagnostic::error(
        DiagClass::SyncDeadlock,
        m.op_span(op),
        format!("{whom} that has not ended waits forever: {}", summary.join("; ")),
    )
    .with_op(m.op(op).opcode.full_name());
    for (i, op, w) in blocked {
        d = d.with_label(m.op_span(*op), format!("{} waits here for {w}", name(*i)));
    }
    if !ended.is_empty() {
        d = d.with_note(format!("already ended: {}", ended.join(", ")));
    }
    d
}

/// One block's traces in execution order: `switches` lists (core, its trace length) each time
/// a core gave up the turn.
pub(crate) fn interleave(actors: &[ActorId], traces: Vec<Vec<TraceEntry>>, switches: &[(usize, usize)]) -> Vec<(ActorId, TraceEntry)> {
    let mut iters: Vec<_> = traces.into_iter().map(|t| t.into_iter().enumerate().peekable()).collect();
    let mut out = Vec::new();
    for &(core, upto) in switches {
        let Some(it) = iters.get_mut(core) else { continue };
        while let Some((_, e)) = it.next_if(|(k, _)| *k < upto) {
            out.push((actors[core], e));
        }
    }
    for (core, it) in iters.iter_mut().enumerate() {
        out.extend(it.map(|(_, e)| (actors[core], e)));
    }
    out
}

/// The hazards between blocks on separate GM copies: the exact bytes each block's cores read
/// and wrote ([`crate::gm::Accessed`]) fed, block by block, into a happens-before graph
/// ([`crate::sync::graph::Graph`]) with a core per block and no edge between them (blocks
/// without `syncall` are unordered), so every byte one block writes and another accesses is a
/// hazard — `HAZARD_RAW` where a block reads what another writes (on hardware it may see
/// either value; the simulated block read its own copy, the bytes before any block ran),
/// `HAZARD_WAW` where two blocks write the same bytes (whatever the values: which write lands
/// last is undefined). One error per (block, array, kind of hazard), at the later block's first
/// such access, labelled with the earlier block's.
fn unordered_accesses(m: &Module, initial: &[GmArray], blocks: &[BlockRun]) -> Vec<Diagnostic> {
    use crate::sync::graph::{Graph, Kind};
    use crate::sync::model::HazardKind;
    let mut graph = Graph::for_machine(blocks.len());
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        let mut reported = std::collections::HashSet::new();
        for (arg, access, op, bytes) in block.accessed.iter().flat_map(|a| &a.sets) {
            let kind = match access {
                crate::gm::GmAccess::Read => Kind::Read,
                crate::gm::GmAccess::Write => Kind::Write,
                crate::gm::GmAccess::Atomic => Kind::Atomic,
            };
            let write = *access != crate::gm::GmAccess::Read;
            let Some(h) = graph.access(i, crate::sync::model::Pipe::S, *arg, bytes, kind, *op) else { continue };
            if !reported.insert((*arg, h.kind)) {
                continue;
            }
            let (j, (s, e)) = (h.core, h.bytes);
            let name = initial.get(*arg).map_or("?", |a| a.name.as_str());
            let (class, what) = match h.kind {
                HazardKind::Raw => (DiagClass::HazardRaw, format!("reads bytes [{s}, {e}) of `%{name}` that block {j} writes")),
                HazardKind::War => (DiagClass::HazardWar, format!("overwrites bytes [{s}, {e}) of `%{name}` that block {j} reads")),
                HazardKind::Waw => (DiagClass::HazardWaw, format!("writes bytes [{s}, {e}) of `%{name}` that block {j} also writes")),
            };
            let seen = if write { "" } else { " (here it saw the bytes before any block ran)" };
            out.push(
                Diagnostic::error(
                    class,
                    m.op_span(*op),
                    format!("block {i} {what}, with no `syncall` between them: blocks are unordered, so the result is undefined on hardware{seen}"),
                )
                .with_op(m.op(*op).opcode.full_name())
                .with_label(m.op_span(h.op), format!("block {j} accessed them here")),
            );
        }
    }
    out
}

/// Merges a block's final arrays `next` into `acc` (the blocks before it), against the
/// initial arrays `initial`: every byte the block changed is taken from it (so a later block's
/// value wins where two blocks wrote the same byte, which [`unordered_accesses`] reports).
fn merge(acc: &mut [GmArray], initial: &[GmArray], next: &[GmArray]) {
    for ((a, init), n) in acc.iter_mut().zip(initial).zip(next) {
        if !n.written || n.internal {
            continue;
        }
        a.merge_block(init, n);
        a.written = true;
        a.shape = a.shape.or(n.shape);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array(bytes: Vec<u8>) -> GmArray {
        let mut a = GmArray::new("out", pto_ir::types::ElemType::U8);
        a.set_bytes(&bytes);
        (a.bound, a.written) = (true, true);
        a
    }

    #[test]
    fn blocks_writing_disjoint_bytes_merge_and_the_later_block_wins_a_clash() {
        let init = vec![array(vec![0; 4])];
        let mut acc = vec![array(vec![1, 1, 0, 0])];
        merge(&mut acc, &init, &[array(vec![0, 0, 2, 2])]);
        assert_eq!(acc[0].to_bytes(), [1, 1, 2, 2]);
        merge(&mut acc, &init, &[array(vec![3, 0, 0, 0])]);
        assert_eq!(acc[0].to_bytes(), [3, 1, 2, 2]);
    }
}
