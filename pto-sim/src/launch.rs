//! One entry point for running a kernel, which `pto run` and the Python package both call with
//! the same options: it chooses the machine from the kernel and the launch — one core; the
//! cores of a mix kernel and several blocks ([`crate::cores`]); several ranks, or a kernel
//! with `comm.*` instructions ([`crate::comm`]) — turns on the checks [`SyncCheck`] asks for
//! on every core, and collects the outputs, what the kernel printed, the trace and the sync
//! findings the same way whichever machine ran. So one kernel gets one verdict, whatever
//! front end or flags select the machine.

use crate::advice::FrontEnd;
use crate::cores::{ActorId, Schedule, Topology};
use crate::data::TileData;
use crate::interp::{Sim, TraceEntry};
use crate::kernel_io::{self, Bound, RankBound};
use pto_ir::diag::Diagnostic;
use pto_ir::module::Module;
use pto_lower::Target;

/// What a run checks of the kernel's synchronisation (`pto run --sync-check`, docs/sync.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SyncCheck {
    /// The orders between cores, blocks and ranks of every program; the pipes of each core in
    /// programs with an explicit sync op (the others rely on sync insertion, which orders the
    /// pipes of a core but never adds an order between cores).
    #[default]
    Auto,
    /// Also the pipes of a program without sync ops (what an insertion pass must order).
    Always,
    /// Nothing.
    Never,
}

impl SyncCheck {
    /// `auto`, `always` or `never`.
    pub fn parse(text: &str) -> Option<SyncCheck> {
        match text {
            "auto" => Some(SyncCheck::Auto),
            "always" => Some(SyncCheck::Always),
            "never" => Some(SyncCheck::Never),
            _ => None,
        }
    }

    /// Whether each core's pipes are checked in a program with (`explicit_sync`) or without
    /// sync ops.
    pub fn checks_pipes(self, explicit_sync: bool) -> bool {
        self == SyncCheck::Always || (self == SyncCheck::Auto && explicit_sync)
    }

    /// Turns on what this mode checks on one core's simulation.
    pub fn enable(self, sim: &mut Sim, explicit_sync: bool) {
        if self.checks_pipes(explicit_sync) {
            crate::sync::check(sim);
        } else if self == SyncCheck::Auto {
            sim.check_cross();
        }
    }
}

/// How to run a kernel: the machine's shape, its inputs and what to collect.
pub struct Launch<'a> {
    /// Blocks (`get_block_num`), at least 1.
    pub blocks: u32,
    /// Ranks (devices for the `comm.*` instructions), at least 1.
    pub ranks: u32,
    /// The rank each remote operand's argument lives on ([`kernel_io::peer_binding`]).
    pub peers: &'a [(String, crate::comm::Peer)],
    /// How the cores interleave.
    pub schedule: Schedule,
    /// Threads for independent blocks (`None`: one per CPU).
    pub threads: Option<usize>,
    /// Record every executed op.
    pub trace: bool,
    /// What to check.
    pub sync_check: SyncCheck,
    /// Who runs it: the words of the advice a finding carries ([`FrontEnd`]).
    pub front_end: FrontEnd,
    /// Inputs of every core and rank.
    pub bound: &'a [Bound],
    /// Inputs of one rank (`NAME@RANK`).
    pub rank_inputs: &'a [RankBound],
    /// Deterministic values for the arguments without an input.
    pub default_inputs: bool,
    /// Sets each core's simulation options (vector execution, step budget, matmul order).
    pub configure: &'a (dyn Fn(&mut Sim) + Sync),
    /// The outputs asked for (names without `%`; empty: the defaults, [`kernel_io::outputs`]).
    pub outputs: &'a [String],
    /// Read whole tiles (one core only).
    pub full: bool,
    /// The tiles the program computes ([`kernel_io::final_tiles`] of the module before
    /// lowering): the outputs of a program with nothing else to output.
    pub computed: Vec<String>,
}

/// A finished run.
pub struct Ran<'m> {
    /// The outputs, in [`kernel_io::outputs`] order (`NAME@RANK` on several ranks).
    pub outputs: Vec<(String, TileData)>,
    /// What the kernel printed (`tprint`), core by core.
    pub printed: String,
    /// Every executed op with its core (`None` on a single core), when traced.
    pub trace: Vec<(Option<ActorId>, TraceEntry)>,
    /// The sync findings (errors and warnings), each once.
    pub findings: Vec<Diagnostic>,
    /// Per core of a machine run: which, ops executed, waits for another core.
    pub cores: Vec<(ActorId, u64, u64)>,
    /// The simulation of a single-core run (its vector log and op counts), else `None`.
    pub single: Option<Sim<'m>>,
    /// Whether the machine (several cores, blocks or ranks) ran it.
    pub machine: Machine,
}

/// Which machine ran a kernel.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Machine {
    /// One core.
    Core,
    /// Blocks of cores ([`crate::cores::machine`]).
    Cores,
    /// Ranks ([`crate::comm::machine`]).
    Ranks,
}

/// Why a run produced no outputs.
pub enum Failure {
    /// The run stopped (a trap, a deadlock): the diagnostics (with the sync findings so far),
    /// what was printed and the trace up to there.
    Stopped {
        /// The reason first, then the findings.
        diagnostics: Vec<Diagnostic>,
        /// What the kernel printed.
        printed: String,
        /// The executed ops, when traced.
        trace: Vec<(Option<ActorId>, TraceEntry)>,
    },
    /// An output cannot be produced: its name and why (a usage error).
    Output(String, String),
}

/// The machine that runs `lowered` as `launch` says: the rank machine for several ranks (or
/// rank inputs, peers) or comm instructions, the cores machine for several blocks or a mix
/// kernel, else one core.
pub fn machine_for(lowered: &Module, target: &'static Target, launch: &Launch<'_>) -> Machine {
    let several_ranks = launch.ranks > 1 || !launch.rank_inputs.is_empty() || !launch.peers.is_empty();
    if several_ranks || crate::comm::ops::uses_comm(lowered) {
        Machine::Ranks
    } else if launch.blocks > 1 || Topology::new(lowered, target).mix {
        Machine::Cores
    } else {
        Machine::Core
    }
}

/// Runs `lowered` (for `target`) as `launch` says. `proto` is a simulation of it with the
/// inputs of `launch.bound` bound: it runs the kernel itself on one core (with whatever else
/// the caller set on it: op counts, a progress callback), and gives the other machines their
/// initial GM.
pub fn run<'m>(lowered: &'m Module, target: &'static Target, mut proto: Sim<'m>, launch: &Launch<'_>) -> Result<Ran<'m>, Failure> {
    let explicit_sync = crate::sync::has_explicit_sync(lowered);
    let prepare = |s: &mut Sim, rank: Option<u32>| -> Result<(), String> {
        kernel_io::bind_all(s, launch.bound, launch.rank_inputs, rank, launch.default_inputs)?;
        (launch.configure)(s);
        launch.sync_check.enable(s, explicit_sync);
        Ok(())
    };
    let output = |r: Result<Vec<(String, TileData)>, (String, String)>| r.map_err(|(name, why)| Failure::Output(name, why));
    let stopped = |diagnostics: Vec<Diagnostic>| Failure::Stopped { diagnostics, printed: String::new(), trace: Vec::new() };
    let machine = machine_for(lowered, target, launch);
    if machine == Machine::Ranks {
        let setup = |s: &mut Sim, rank: u32| prepare(s, Some(rank));
        let tiles = kernel_io::launch_tiles(lowered, launch.computed.clone(), launch.outputs);
        let ranked = crate::comm::RankLaunch {
            ranks: launch.ranks.max(1),
            blocks: launch.blocks.max(1),
            schedule: launch.schedule,
            trace: launch.trace,
            peers: launch.peers,
            setup: &setup,
            tiles: &tiles,
        };
        let ran = crate::comm::machine::run(lowered, target, &ranked).map_err(stopped)?;
        let outputs = output(kernel_io::rank_outputs(lowered, &ran, launch.computed.clone(), launch.outputs))?;
        let mut ran = from_cores(outputs, &ran.cores, ran.trace, &[], machine);
        insertion_hint(&mut ran.findings, launch, explicit_sync);
        return Ok(ran);
    }
    if machine == Machine::Cores {
        let setup = |s: &mut Sim| prepare(s, None);
        let tiles = kernel_io::launch_tiles(lowered, launch.computed.clone(), launch.outputs);
        let cores = crate::cores::Launch {
            blocks: launch.blocks.max(1),
            schedule: launch.schedule,
            threads: launch.threads,
            trace: launch.trace,
            setup: &setup,
            tiles: &tiles,
        };
        let ran = crate::cores::machine::run(lowered, target, proto.gm_arrays(), &cores).map_err(stopped)?;
        let outputs = output(kernel_io::machine_outputs(lowered, &ran, launch.computed.clone(), launch.outputs))?;
        let mut ran = from_cores(outputs, &ran.cores, ran.trace, &ran.warnings, machine);
        insertion_hint(&mut ran.findings, launch, explicit_sync);
        return Ok(ran);
    }
    (launch.configure)(&mut proto);
    launch.sync_check.enable(&mut proto, explicit_sync);
    if launch.trace {
        proto.trace = Some(Vec::new());
    }
    let ran = proto.run();
    let mut findings = proto.sync_diagnostics();
    insertion_hint(&mut findings, launch, explicit_sync);
    let trace = proto.trace.take().unwrap_or_default().into_iter().map(|e| (None, e)).collect();
    if let Err(d) = ran {
        let diagnostics = std::iter::once(d).chain(findings).collect();
        return Err(Failure::Stopped { diagnostics, printed: std::mem::take(&mut proto.printed), trace });
    }
    let outputs = output(kernel_io::outputs(&proto, lowered, launch.computed.clone(), launch.outputs, launch.full))?;
    Ok(Ran {
        outputs,
        printed: std::mem::take(&mut proto.printed),
        trace,
        findings: unique(findings),
        cores: Vec::new(),
        single: Some(proto),
        machine: Machine::Core,
    })
}

/// Under `--sync-check=always`, a program without sync ops relies on sync insertion (as
/// `ptoas --enable-insert-sync` compiles it): its first hazard says so and how to run it with the
/// sync pto's insertion pass inserts.
fn insertion_hint(findings: &mut [Diagnostic], launch: &Launch<'_>, explicit_sync: bool) {
    if launch.sync_check != SyncCheck::Always || explicit_sync {
        return;
    }
    if let Some(first) = findings.iter_mut().find(|d| d.class.as_str().starts_with("HAZARD_")) {
        first.notes.push(format!(
            "the kernel has no sync op: it relies on sync insertion (as `ptoas --enable-insert-sync`); {} runs it with the sync `pto lower --insert-sync` inserts",
            launch.front_end.insert_sync()
        ));
    }
}

/// A machine run's result: what its cores printed, traced and found (with `more` findings of
/// the machine itself), in the shape every machine gives.
fn from_cores<'m>(
    outputs: Vec<(String, TileData)>,
    cores: &[crate::cores::machine::CoreReport],
    trace: Vec<(ActorId, TraceEntry)>,
    more: &[Diagnostic],
    machine: Machine,
) -> Ran<'m> {
    Ran {
        outputs,
        printed: cores.iter().map(|c| c.printed.as_str()).collect(),
        trace: trace.into_iter().map(|(a, e)| (Some(a), e)).collect(),
        findings: unique(cores.iter().flat_map(|c| c.sync.iter().cloned()).chain(more.iter().cloned())),
        cores: cores.iter().map(|c| (c.actor, c.steps, c.waits)).collect(),
        single: None,
        machine,
    }
}

/// Each diagnostic once (the cores of a block report a shared finding each).
fn unique(all: impl IntoIterator<Item = Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for d in all {
        if !out.iter().any(|x| x.class == d.class && x.span == d.span && x.message == d.message) {
            out.push(d);
        }
    }
    out
}
