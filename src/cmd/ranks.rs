//! `pto run --ranks N`: a kernel with `comm.*` instructions on N simulated devices
//! (docs/comm.md). Every rank runs the kernel with its own copy of every GM argument; inputs
//! bind to every rank (`--input x=FILE`) or to one (`--input x@2=FILE`, which wins); outputs
//! are named `NAME@RANK` when N > 1 (JSON keys, `NAME@RANK.npy` in `--output-dir`).

use super::run::{RunOptions, core_trace_text, finish};
use crate::Outcome;
use pto_ir::diag::SourceMap;
use pto_sim::Sim;
use pto_sim::kernel_io;
use std::fmt::Write as _;

/// What `pto run` prepared for a multi-rank run.
pub struct Ranked<'a> {
    /// Inputs of every rank.
    pub bound: &'a [kernel_io::Bound],
    /// Inputs of one rank.
    pub rank_inputs: &'a [kernel_io::RankBound],
    /// Whether each rank checks the sync between its pipes.
    pub check_sync: bool,
    /// Whether orders between ranks, blocks and cores are checked (every mode but `never`).
    pub check_cross: bool,
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
        match kernel_io::peer_binding(lowered, arg, peer, count) {
            Ok(p) => peers.push(p),
            Err(e) => return Outcome::usage_error(format!("--peer `{spec}`: {e}")),
        }
    }
    let setup = |s: &mut Sim, rank: u32| -> Result<(), String> {
        kernel_io::bind_all(s, r.bound, r.rank_inputs, Some(rank), opts.default_inputs)?;
        s.exec_vector = opts.exec_vector;
        s.max_steps = opts.max_steps;
        s.matmul_order = opts.matmul_order;
        if r.check_sync {
            s.check_sync();
        } else if r.check_cross {
            s.check_cross();
        }
        Ok(())
    };
    let tiles = kernel_io::launch_tiles(lowered, r.computed.clone(), &opts.outputs);
    let launch = pto_sim::comm::RankLaunch {
        ranks: count,
        blocks: opts.blocks.max(1),
        schedule: opts.schedule,
        trace: opts.trace,
        peers: &peers,
        setup: &setup,
        tiles: &tiles,
    };
    let ran = match pto_sim::comm::machine::run(lowered, target, &launch) {
        Ok(ran) => ran,
        Err(d) => return Outcome::diagnostics(sources, &d, opts.error_format),
    };
    let all = match kernel_io::rank_outputs(lowered, &ran, r.computed, &opts.outputs) {
        Ok(all) => all,
        Err((name, e)) => return Outcome::usage_error(format!("--output {name}: {e}")),
    };
    let mut stderr: String = ran.cores.iter().map(|c| c.printed.as_str()).collect();
    let rank_name = |a: &pto_sim::cores::ActorId| {
        let block = if opts.blocks > 1 { format!(".b{}", a.block) } else { String::new() };
        let core = if a.core == pto_sim::cores::CoreKind::Whole { String::new() } else { format!(".{}", a.core.name()) };
        format!("r{}{block}{core}", a.rank)
    };
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
