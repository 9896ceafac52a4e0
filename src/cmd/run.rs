//! `pto run`: lower a program for a target and execute it on the simulator, with inputs from
//! `.npy` / JSON files (or numbers for scalar arguments) and outputs as `.npy` files or JSON.

use crate::{ErrorFormat, Outcome, TargetName, load_module, resolve_target};
use pto_ir::diag::SourceMap;
use pto_ir::verify::Verified;
use pto_lower::TargetId;
use pto_sim::Sim;
use pto_sim::kernel_io::{self, ArgKind, Input};
use pto_sim::launch::{Failure, Launch, Machine};
use std::fmt::Write as _;

/// Options of `pto run`.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Target profile.
    pub target: Option<TargetName>,
    /// `NAME=PATH` (a `.npy` or JSON tile file) or `NAME=NUMBER` (a scalar argument).
    pub inputs: Vec<String>,
    /// Tile values to output (default: every tile argument). GM arrays the kernel writes are always output.
    pub outputs: Vec<String>,
    /// Write `NAME.npy` files here instead of printing JSON.
    pub output_dir: Option<String>,
    /// Output the whole capacity (storage order) instead of the valid region.
    pub full: bool,
    /// Print each executed op to stderr.
    pub trace: bool,
    /// Give every unbound argument a deterministic value (GM pattern, floats 1.0, integers 0 or
    /// the size they give a valid shape or view: `pto_sim::defaults`).
    pub default_inputs: bool,
    /// Run the tile ops that have an A2A3 vector lowering as vector programs (`--exec vector`).
    pub exec_vector: bool,
    /// Print the vector cost of every executed tile op to stderr (needs `exec_vector`).
    pub stats: bool,
    /// Time the run with the cycle model and report the totals per pipe (`--cycles`,
    /// docs/performance-model.md); one core only.
    pub cycles: bool,
    /// With `cycles`: the totals as a `%cycles` entry of the JSON on stdout (`--json`) instead
    /// of a table on stderr.
    pub json_cycles: bool,
    /// Write the timeline to this file (`--timeline`): Chrome trace JSON for `.json`, a picture
    /// for `.svg` (docs/performance-model.md); one core only.
    pub timeline: Option<String>,
    /// The cycle model of `cycles` and `timeline` (`--cost-model`).
    pub cost_model: pto_sim::timeline::CostModel,
    /// Ops (and loop iterations) a run may execute before it stops with `SIM_BUDGET`.
    pub max_steps: u64,
    /// How matrix products accumulate (`--matmul-order`).
    pub matmul_order: pto_sim::family::MatmulOrder,
    /// Print each output's name, element type, shape and a numpy-like preview of its values
    /// instead of JSON (the CLI's default on a terminal).
    pub preview: bool,
    /// Show a progress bar on stderr when the run takes more than a second (the CLI sets it
    /// when stderr is a terminal).
    pub progress: bool,
    /// `-q`: no progress bar and no `SYNC_NOT_CHECKED` note.
    pub quiet: bool,
    /// Whether to check the kernel's synchronisation while it runs (docs/sync.md).
    pub sync_check: SyncCheck,
    /// Run each function without a sync op with the sync the insertion pass inserts
    /// (`--insert-sync`, as `ptoas --enable-insert-sync`).
    pub insert_sync: bool,
    /// Blocks to run the kernel on (`--blocks`, docs/cores.md).
    pub blocks: u32,
    /// How the cores of a block interleave (`--schedule`, `--seed`).
    pub schedule: pto_sim::cores::Schedule,
    /// Threads running blocks (`--threads`; default one per CPU).
    pub threads: Option<usize>,
    /// Devices for the `comm.*` instructions (`--ranks`, docs/comm.md).
    pub ranks: u32,
    /// `ARG=next|prev|local|RANK`: the rank a pointer argument names as a remote operand
    /// (`--peer`, docs/comm.md).
    pub peers: Vec<String>,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
    /// Print only the diagnostics: no outputs, no `tprint` text (`pto verify --sync` running the
    /// machine).
    pub diagnostics_only: bool,
    /// `pto verify --sync` exploring the machine's branches: the run takes the outcomes this
    /// exploration chooses and leaves its findings (and a trap) in it
    /// ([`pto_sim::sync::branches`]).
    pub branches: Option<pto_sim::sync::branches::SharedBranches>,
}

/// When `pto run` checks synchronisation (`--sync-check`): the library's modes.
pub use pto_sim::launch::SyncCheck;

impl RunOptions {
    /// Runs `input` on `target` with no data bound, outputs by default, tile semantics and
    /// human-readable diagnostics; set the other fields with struct update syntax.
    pub fn new(input: impl Into<String>, target: TargetName) -> Self {
        RunOptions {
            input: input.into(),
            target: Some(target),
            inputs: Vec::new(),
            outputs: Vec::new(),
            output_dir: None,
            full: false,
            trace: false,
            default_inputs: false,
            exec_vector: false,
            stats: false,
            cycles: false,
            json_cycles: false,
            timeline: None,
            cost_model: pto_sim::timeline::CostModel::Pto,
            max_steps: pto_sim::interp::DEFAULT_MAX_STEPS,
            matmul_order: pto_sim::family::MatmulOrder::Npu,
            preview: false,
            progress: false,
            quiet: false,
            sync_check: SyncCheck::Auto,
            insert_sync: false,
            blocks: 1,
            schedule: pto_sim::cores::Schedule::InOrder,
            threads: None,
            ranks: 1,
            peers: Vec::new(),
            error_format: ErrorFormat::Human,
            diagnostics_only: false,
            branches: None,
        }
    }
}

/// `--trace` output: one line per executed op, `file:line:col  op  what it wrote`; on several
/// cores each line starts with its core (`b0.aiv1`).
pub(crate) fn core_trace_text<'a>(sources: &SourceMap, entries: impl Iterator<Item = (Option<String>, &'a pto_sim::TraceEntry)>) -> String {
    let located: Vec<(String, &pto_sim::TraceEntry)> = entries
        .map(|(core, e)| match core {
            Some(c) => (format!("{c:<8} {}", sources.location(e.span)), e),
            None => (sources.location(e.span), e),
        })
        .collect();
    let width = located.iter().map(|(at, _)| at.len()).max().unwrap_or(0);
    let mut out = String::new();
    for (at, e) in located {
        let _ = writeln!(out, "{at:width$}  {:<20} {}", e.op, e.wrote.join("; "));
    }
    out
}

/// Runs `pto run`.
pub fn run(opts: &RunOptions) -> Outcome {
    if let Some(path) = &opts.timeline
        && let Err(e) = crate::timeline_trace::Format::of(path)
    {
        return Outcome::usage_error(format!("--timeline {path}: {e}"));
    }
    let mut sources = SourceMap::default();
    let fail = |sources: &SourceMap, d: &[pto_ir::Diagnostic]| Outcome::diagnostics(sources, d, opts.error_format);
    let (_, module, _) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return failed,
    };
    if module.walk().is_empty() {
        let name = sources.get(pto_ir::FileId(0)).map_or(opts.input.as_str(), |f| f.name.as_str());
        return Outcome { stdout: String::new(), stderr: format!("error: `{name}` holds no program: nothing to run\n"), code: 1 };
    }
    let computed = kernel_io::final_tiles(&module);
    let target = match resolve_target(&module, opts.target, &mut Default::default()) {
        Ok(t) => t,
        Err(d) => return fail(&sources, &d.0),
    };
    let verified = match Verified::new(module) {
        Ok(v) => v,
        Err(d) => return fail(&sources, &d.0),
    };
    if let Err(errors) = crate::cmd::verify::gate(verified.module(), target) {
        return fail(&sources, &errors);
    }
    if opts.exec_vector && target.id != TargetId::A2A3 {
        return Outcome::usage_error("`--exec vector` and `--stats` model the A2A3 vector unit: use `--target a2a3`");
    }
    let timed = opts.cycles || opts.timeline.is_some();
    let (lowered, timing_note) = match lower_for_run(verified, target, opts.insert_sync, timed) {
        Ok(ok) => ok,
        Err(d) => return fail(&sources, &d.0),
    };
    let mix = pto_sim::cores::Topology::new(&lowered, target).mix;
    let multi = opts.blocks > 1 || mix;
    // Several cores or ranks: `--stats` reports per actor.
    let actors = multi || opts.ranks > 1 || pto_sim::comm::ops::uses_comm(&lowered);
    if opts.stats && !actors && target.id != TargetId::A2A3 {
        return Outcome::usage_error("`--exec vector` and `--stats` model the A2A3 vector unit: use `--target a2a3`");
    }
    if opts.stats && !opts.exec_vector && !actors {
        return Outcome::usage_error("`--stats` reports the vector programs that ran: add `--exec vector`");
    }
    let mut sim = match Sim::new(&lowered, target) {
        Ok(s) => s,
        Err(d) => return fail(&sources, &d),
    };
    if opts.trace {
        sim.trace = Some(Vec::new());
    }
    sim.exec_vector = opts.exec_vector;
    sim.max_steps = opts.max_steps;
    sim.branches.clone_from(&opts.branches);
    sim.matmul_order = opts.matmul_order;
    if opts.stats {
        sim.op_counts = Some(Vec::new());
    }
    // A program without sync ops has its pipes unchecked under `auto`: one note says so.
    let explicit_sync = pto_sim::sync::has_explicit_sync(&lowered);
    let mut sync_notes = Vec::new();
    if opts.sync_check == SyncCheck::Auto && !explicit_sync && !opts.quiet {
        sync_notes.extend(crate::sync_note::not_checked(&sources, &lowered, target.id));
    }
    let mut bound = Vec::new();
    // `NAME@RANK=PATH`: one rank's input (docs/comm.md).
    let mut rank_inputs = Vec::new();
    for spec in &opts.inputs {
        let Some((name, path)) = spec.split_once('=') else {
            return Outcome::usage_error(format!("--input `{spec}`: expected NAME=PATH"));
        };
        let (name, rank) = match kernel_io::split_rank(name, opts.ranks) {
            Ok(split) => split,
            Err(e) => return Outcome::usage_error(format!("--input `{spec}`: {e}")),
        };
        let name = name.trim_start_matches('%');
        let kind = match kernel_io::argument_kind(&sim, name) {
            Ok(k) => k,
            Err(kernel_io::ArgError::Unknown(e)) => return Outcome::usage_error(format!("--input {name}: {e}")),
            Err(e) => return Outcome { stdout: String::new(), stderr: format!("error: --input {name}: {e}\n"), code: 1 },
        };
        let value = match kind {
            ArgKind::Scalar(_) => match path.parse::<f64>() {
                Ok(x) => Ok(Input::Number(x)),
                Err(_) => Err(format!("`%{name}` is a scalar: give a number, not `{path}`")),
            },
            ArgKind::Tile(e) | ArgKind::Gm(e) => {
                let bytes = match std::fs::read(path) {
                    Ok(b) => b,
                    Err(e) => return Outcome::usage_error(format!("--input {name}: cannot read `{path}`: {e}")),
                };
                let data = if path.ends_with(".npy") {
                    pto_sim::npy::read(&bytes, e)
                } else {
                    pto_sim::json::read(&String::from_utf8_lossy(&bytes), e)
                };
                data.map(Input::Data)
            }
        };
        if let Some(rank) = rank {
            match value {
                Ok(v) => rank_inputs.push((rank, name.to_string(), kind, v)),
                Err(e) => return Outcome { stdout: String::new(), stderr: format!("error: --input {name}@{rank}: {e}\n"), code: 1 },
            }
            continue;
        }
        if let Err(e) = value.and_then(|v| kernel_io::bind(&mut sim, name, kind, &v).map(|()| bound.push((name.to_string(), kind, v)))) {
            return Outcome { stdout: String::new(), stderr: format!("error: --input {name}: {e}\n"), code: 1 };
        }
    }
    if opts.default_inputs {
        sim.use_default_inputs();
    }
    let mut peers = Vec::new();
    for spec in &opts.peers {
        let Some((arg, peer)) = spec.split_once('=') else {
            return Outcome::usage_error(format!("--peer `{spec}`: expected ARG=next|prev|local|RANK"));
        };
        match kernel_io::peer_binding(&lowered, arg, peer, opts.ranks) {
            Ok(p) => peers.push(p),
            Err(e) => return Outcome::usage_error(format!("--peer `{spec}`: {e}")),
        }
    }
    let timelines = std::sync::Mutex::new(Vec::new());
    let configure = |s: &mut Sim| {
        s.exec_vector = opts.exec_vector;
        s.max_steps = opts.max_steps;
        s.matmul_order = opts.matmul_order;
        s.branches.clone_from(&opts.branches);
        if opts.cycles || opts.timeline.is_some() {
            let t = pto_sim::timeline::Timeline::install(s, opts.cost_model);
            timelines.lock().unwrap_or_else(|e| e.into_inner()).push(t);
        }
    };
    let launch = Launch {
        blocks: opts.blocks,
        ranks: opts.ranks,
        peers: &peers,
        schedule: opts.schedule,
        threads: opts.threads,
        trace: opts.trace,
        sync_check: opts.sync_check,
        front_end: pto_sim::advice::FrontEnd::Cli,
        bound: &bound,
        rank_inputs: &rank_inputs,
        default_inputs: opts.default_inputs,
        configure: &configure,
        outputs: &opts.outputs,
        full: opts.full,
        computed,
    };
    let machine = pto_sim::launch::machine_for(&lowered, target, &launch);
    let bar = opts.progress.then(|| crate::progress::attach(&mut sim));
    let ran = pto_sim::launch::run(&lowered, target, sim, &launch);
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let ran = match ran {
        Ok(ran) => ran,
        Err(Failure::Output(name, e)) => return Outcome::usage_error(format!("--output {name}: {e}")),
        Err(Failure::Stopped { diagnostics, printed, trace }) => {
            if let Some(b) = &opts.branches {
                b.lock().unwrap_or_else(|e| e.into_inner()).stopped(&diagnostics);
            }
            let mut out = fail(&sources, &diagnostics);
            let traced = if opts.trace {
                core_trace_text(&sources, trace.iter().map(|(a, e)| (a.map(|a| actor_name(a, machine, opts.blocks)), e)))
            } else {
                String::new()
            };
            out.stderr = printed + &traced + &out.stderr;
            return out;
        }
    };
    // What `tprint` printed goes to stderr, so stdout stays the outputs' JSON (or preview).
    let mut stderr = ran.printed.clone();
    if let Some(note) = timing_note
        && !opts.quiet
    {
        stderr.push_str(note);
    }
    if opts.trace {
        stderr.push_str(&core_trace_text(&sources, ran.trace.iter().map(|(a, e)| (a.map(|a| actor_name(a, machine, opts.blocks)), e))));
    }
    if opts.stats {
        match &ran.single {
            Some(sim) => stderr.push_str(&crate::vector_report::stats_table(&crate::vector_report::run_rows(
                &sources,
                &lowered,
                sim.op_counts.as_deref().unwrap_or_default(),
                &sim.vector_log,
            ))),
            None => {
                let other = if machine == Machine::Ranks { "rank" } else { "core" };
                for &(actor, steps, waits) in &ran.cores {
                    let _ = writeln!(
                        stderr,
                        "{:<8} {steps} ops executed, waited {waits} time(s) for another {other}",
                        actor_name(actor, machine, opts.blocks)
                    );
                }
            }
        }
    }
    let mut cycles_json = None;
    if opts.cycles || opts.timeline.is_some() {
        let timelines = timelines.into_inner().unwrap_or_else(|e| e.into_inner());
        let guards: Vec<_> = timelines.iter().map(|t| t.lock().unwrap_or_else(|e| e.into_inner())).collect();
        let cores = crate::cycles_report::ordered_cores(&guards);
        if opts.cycles {
            if opts.json_cycles {
                cycles_json = Some(crate::cycles_report::cycles_json(&cores, &lowered, &sources));
            } else {
                stderr.push_str(&crate::cycles_report::cycles_table(&cores, &lowered, &sources));
            }
        }
        if let Some(note) = crate::cycles_report::unmodelled_note(&cores) {
            stderr.push_str(&note);
        }
        if let Some(path) = &opts.timeline
            && let Err(e) = crate::timeline_trace::write(path, &lowered, &sources, &cores)
        {
            return Outcome { stdout: String::new(), stderr: format!("error: --timeline {path}: {e}\n"), code: 2 };
        }
    }
    let mut diags = ran.findings;
    diags.extend(sync_notes);
    if let Some(b) = &opts.branches {
        b.lock().unwrap_or_else(|e| e.into_inner()).found.extend(diags.iter().cloned());
    }
    let mut out = finish(opts, &sources, ran.outputs, stderr, diags);
    if let Some(c) = cycles_json {
        out.stdout = crate::cycles_report::with_json(&out.stdout, &c);
    }
    out
}

/// Lowers `verified` for `target`, with the insert-sync pass when asked (`--insert-sync`). A
/// program without sync ops that is `timed` (`--cycles`, `--timeline`) is lowered with the
/// pass too, so it is timed with the sync the pass inserts (docs/sync.md); where the pass fails
/// then it is lowered as it is, timed with each op waiting for the last writer of what it
/// reads, and the note returned says so. `pto run` and Python's `pto.run` both lower with it.
pub fn lower_for_run(
    verified: Verified,
    target: &'static pto_lower::Target,
    insert_sync: bool,
    timed: bool,
) -> Result<(pto_ir::Module, Option<&'static str>), pto_ir::diag::Diagnostics> {
    if insert_sync {
        let options = pto_lower::PipelineOptions { insert_sync: true, ..Default::default() };
        return pto_lower::run(verified, target, options).map(|(m, _)| (m, None));
    }
    let insert = timed && !pto_sim::sync::has_explicit_sync(verified.module());
    if !insert {
        return pto_lower::run(verified, target, Default::default()).map(|(m, _)| (m, None));
    }
    let plain = verified.module().clone();
    let options = pto_lower::PipelineOptions { insert_sync: true, ..Default::default() };
    if let Ok((m, _)) = pto_lower::run(verified, target, options) {
        return Ok((m, None));
    }
    let note = "note: the insert-sync pass failed on this program: it is timed with each op waiting for the last writer of what it reads\n";
    pto_lower::run(Verified::new(plain)?, target, Default::default()).map(|(m, _)| (m, Some(note)))
}

/// A core's name in traces and statistics: `b0.aiv1` on one rank; `r1`, `r1.b0`, `r1.aic`,
/// `r1.b0.aiv1` on the rank machine (the block when there are several, the core of a mix
/// kernel).
fn actor_name(a: pto_sim::cores::ActorId, machine: Machine, blocks: u32) -> String {
    use pto_sim::cores::CoreKind;
    if machine != Machine::Ranks {
        return a.name();
    }
    let block = if blocks > 1 { format!(".b{}", a.block) } else { String::new() };
    let core = if a.core == CoreKind::Whole { String::new() } else { format!(".{}", a.core.name()) };
    format!("r{}{block}{core}", a.rank)
}

/// Writes the outputs (files, preview or JSON) and the diagnostics after a run.
pub(crate) fn finish(
    opts: &RunOptions,
    sources: &SourceMap,
    all: Vec<(String, pto_sim::TileData)>,
    stderr: String,
    sync_diags: Vec<pto_ir::Diagnostic>,
) -> Outcome {
    let mut results = Vec::new();
    let (mut previews, mut elided) = (Vec::new(), false);
    for (name, data) in all {
        let name = &name;
        match &opts.output_dir {
            Some(dir) => {
                let path = std::path::Path::new(dir).join(format!("{name}.npy"));
                let bytes = match pto_sim::npy::write(&data) {
                    Ok(b) => b,
                    Err(e) => return Outcome::usage_error(format!("cannot encode `{name}`: {e}")),
                };
                if let Err(e) = std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&path, bytes)) {
                    return Outcome::usage_error(format!("cannot write `{}`: {e}", path.display()));
                }
            }
            None if opts.preview => {
                let (text, cut) = crate::preview::preview(name, &data);
                previews.push(text);
                elided |= cut;
            }
            None => results.push((name.clone(), data)),
        }
    }
    let stdout = if opts.output_dir.is_some() {
        String::new()
    } else if opts.preview {
        let hint = if elided { "(first and last rows and columns shown; --json or --output-dir DIR for all values)\n" } else { "" };
        previews.join("\n") + hint
    } else {
        crate::json_out::outputs(&results)
    };
    // A kernel with hazards still writes its results, followed by the hazard list.
    let code = if sync_diags.iter().any(|d| d.is_error()) { 1 } else { 0 };
    let (stdout, mut stderr) = if opts.diagnostics_only { (String::new(), String::new()) } else { (stdout, stderr) };
    if !sync_diags.is_empty() {
        stderr.push_str(&crate::render::render(sources, &sync_diags, opts.error_format));
        stderr.push_str(&crate::render::count_line(&sync_diags, opts.error_format));
    }
    Outcome { stdout, stderr, code }
}
