//! `pto run --ranks N`: a kernel with `comm.*` instructions on N simulated devices
//! (docs/comm.md). Every rank runs the kernel with its own copy of every GM argument; inputs
//! bind to every rank (`--input x=FILE`) or to one (`--input x@2=FILE`, which wins); outputs
//! are named `NAME@RANK` when N > 1 (JSON keys, `NAME@RANK.npy` in `--output-dir`).

use super::run::{RunOptions, core_trace_text, finish};
use crate::Outcome;
use pto_ir::diag::SourceMap;
use pto_sim::Sim;
use pto_sim::kernel_io::{self, ArgKind, Input};
use std::fmt::Write as _;

/// `x@2` → `("x", Some(2))`; `x` → `("x", None)`. The rank must be below `ranks`.
pub fn split_rank(name: &str, ranks: u32) -> Result<(&str, Option<u32>), String> {
    let Some((name, rank)) = name.split_once('@') else { return Ok((name, None)) };
    match rank.parse::<u32>() {
        Ok(r) if r < ranks.max(1) => Ok((name, Some(r))),
        Ok(r) => Err(format!("rank {r} does not exist: the run has {} rank(s) (`--ranks N`)", ranks.max(1))),
        Err(_) => Err(format!("`@{rank}` is not a rank number")),
    }
}

/// What `pto run` prepared for a multi-rank run.
pub struct Ranked<'a> {
    /// Inputs of every rank.
    pub bound: &'a [(String, ArgKind, Input)],
    /// Inputs of one rank: `(rank, name, kind, value)`.
    pub rank_inputs: &'a [(u32, String, ArgKind, Input)],
    /// Whether each rank checks its synchronisation.
    pub check_sync: bool,
    /// Tiles the kernel computes (output candidates).
    pub computed: Vec<String>,
    /// Notes to print after the run.
    pub notes: Vec<pto_ir::Diagnostic>,
}

/// Runs `lowered` on `opts.ranks` ranks.
pub fn run(opts: &RunOptions, sources: &SourceMap, lowered: &pto_ir::Module, target: &'static pto_lower::Target, r: Ranked<'_>) -> Outcome {
    let count = opts.ranks.max(1);
    let mut peers = Vec::new();
    for spec in &opts.peers {
        let Some((arg, peer)) = spec.split_once('=') else {
            return Outcome::usage_error(format!("--peer `{spec}`: expected ARG=next|prev|local|RANK"));
        };
        let arg = arg.trim_start_matches('%');
        let is_argument = |v: &pto_ir::module::ValueData| matches!(v.def, pto_ir::module::ValueDef::BlockArg(..)) && v.name == arg;
        if !lowered.values.iter().any(is_argument) {
            return Outcome::usage_error(format!("--peer `{spec}`: the kernel has no argument `%{arg}`"));
        }
        match pto_sim::comm::Peer::parse(peer, count) {
            Ok(p) => peers.push((arg.to_string(), p)),
            Err(e) => return Outcome::usage_error(format!("--peer `{spec}`: {e}")),
        }
    }
    let setup = |s: &mut Sim, rank: u32| -> Result<(), String> {
        for (name, kind, value) in r.bound {
            kernel_io::bind(s, name, *kind, value)?;
        }
        for (_, name, kind, value) in r.rank_inputs.iter().filter(|(k, ..)| *k == rank) {
            kernel_io::bind(s, name, *kind, value).map_err(|e| format!("--input {name}@{rank}: {e}"))?;
        }
        if opts.default_inputs {
            s.use_default_inputs();
        }
        s.exec_vector = opts.exec_vector;
        s.max_steps = opts.max_steps;
        s.matmul_order = opts.matmul_order;
        if r.check_sync {
            s.check_sync();
        }
        Ok(())
    };
    let tiles = kernel_io::launch_tiles(lowered, r.computed.clone(), &opts.outputs);
    let launch =
        pto_sim::comm::RankLaunch { ranks: count, schedule: opts.schedule, trace: opts.trace, peers: &peers, setup: &setup, tiles: &tiles };
    let ran = match pto_sim::comm::machine::run(lowered, target, &launch) {
        Ok(ran) => ran,
        Err(d) => return Outcome::diagnostics(sources, &d, opts.error_format),
    };
    let named = |name: &str, rank: usize| if count > 1 { format!("{name}@{rank}") } else { name.to_string() };
    let mut all = Vec::new();
    for (rank, gm) in ran.gm.iter().enumerate() {
        all.extend(pto_sim::interp::gm_outputs(lowered, gm).into_iter().map(|(n, d)| (named(&n, rank), d)));
    }
    let written = |n: &str| all.iter().any(|(a, _)| a == n || a.strip_prefix(n).is_some_and(|rest| rest.starts_with('@')));
    if let Err((name, e)) = kernel_io::check_requested_gm(lowered, &opts.outputs, written) {
        return Outcome::usage_error(format!("--output {name}: {e}"));
    }
    let requested: Vec<String> = kernel_io::output_tiles(lowered, Vec::new(), &opts.outputs, !all.is_empty());
    let names = if requested.is_empty() && all.is_empty() { tiles } else { requested };
    for name in names {
        let mut found = false;
        for c in &ran.cores {
            if let Some((_, d)) = c.tiles.iter().find(|(n, _)| *n == name) {
                all.push((named(&name, c.actor.rank as usize), d.clone()));
                found = true;
            }
        }
        if !found && opts.outputs.iter().any(|o| o.trim_start_matches('%') == name) {
            return Outcome::usage_error(format!("--output {name}: no rank computed a tile `%{name}`"));
        }
    }
    let mut stderr: String = ran.cores.iter().map(|c| c.printed.as_str()).collect();
    let rank_name = |a: &pto_sim::cores::ActorId| format!("r{}", a.rank);
    if opts.trace {
        stderr.push_str(&core_trace_text(sources, ran.trace.iter().map(|(a, e)| (Some(rank_name(a)), e))));
    }
    if opts.stats {
        for c in &ran.cores {
            let _ = writeln!(stderr, "{:<8} {} ops executed, waited {} time(s) for another rank", rank_name(&c.actor), c.steps, c.waits);
        }
    }
    let mut diags: Vec<pto_ir::Diagnostic> = Vec::new();
    for c in &ran.cores {
        for d in &c.sync {
            if !diags.iter().any(|x| x.class == d.class && x.span == d.span && x.message == d.message) {
                diags.push(d.clone());
            }
        }
    }
    diags.extend(r.notes);
    finish(opts, sources, all, stderr, diags)
}
