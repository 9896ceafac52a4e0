//! `pto verify`: parse and run the structural verifier; with a target (`--target` or the
//! module's `pto.target_arch`), also the target's `legalize` pass on a copy of the module: what
//! it can fix (layouts the target fixes) is a note, what it cannot is an error.

use crate::render::render;
use crate::{ErrorFormat, Outcome, TargetName, load_module, resolve_target, shown_notes};
use pto_ir::diag::SourceMap;

/// Options of `pto verify`.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Target profile.
    pub target: Option<TargetName>,
    /// List every tile `legalize` rewrites (otherwise one summary note).
    pub explain: bool,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
    /// With `--sync`: blocks to check the kernel on.
    pub blocks: u32,
    /// With `--sync`: devices to check the kernel on.
    pub ranks: u32,
    /// With `--sync`: `ARG=next|prev|local|RANK` bindings of remote operands.
    pub peers: Vec<String>,
    /// With `--sync`, on the machine: inputs as `pto run` takes them (`NAME=PATH|NUMBER`).
    pub inputs: Vec<String>,
}

impl Default for VerifyOptions {
    /// Stdin, no target, human diagnostics, one block on one rank.
    fn default() -> Self {
        VerifyOptions {
            input: "-".into(),
            target: None,
            explain: false,
            error_format: ErrorFormat::Human,
            blocks: 1,
            ranks: 1,
            peers: Vec::new(),
            inputs: Vec::new(),
        }
    }
}

/// Runs `pto verify`.
pub fn run(opts: &VerifyOptions) -> Outcome {
    check(opts).0
}

/// `pto verify`'s checks; on success also the sources and the verified module (which
/// [`run_with_sync`] goes on with instead of parsing and verifying the file again).
fn check(opts: &VerifyOptions) -> (Outcome, Option<(SourceMap, pto_ir::verify::Verified)>) {
    let mut sources = SourceMap::default();
    let (file, module, mut diags) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return (failed, None),
    };
    let mut verified = match pto_ir::verify::Verified::new(module) {
        Ok(v) => v,
        Err(errors) => {
            diags.0.extend(errors.0);
            return (Outcome { stdout: String::new(), stderr: render(&sources, &diags.0, opts.error_format), code: 1 }, None);
        }
    };
    diags.0.append(&mut verified.warnings.0);
    let module = verified.module();
    diags.0.extend(program_errors(module));
    let mut checked_for = None;
    let wants_target = opts.target.is_some() || matches!(pto_lower::target::module_arch(module), Ok(Some(_)) | Err(_));
    if wants_target && !diags.has_errors() {
        match resolve_target(module, opts.target, &mut diags) {
            Err(e) => diags.0.extend(e.0),
            Ok(target) => {
                checked_for = Some(target.name);
                diags.0.extend(target_errors(module, target));
                // Legalize a copy: rewrites are notes, what it cannot fix is an error.
                let mut copy = module.clone();
                let mut notes = pto_ir::diag::Diagnostics::default();
                match pto_lower::legalize::run(&mut copy, target, &mut notes) {
                    Ok(_) => {
                        diags.0.extend(shown_notes(notes.0, opts.explain));
                        diags.0.extend(memory_errors(module, target));
                    }
                    Err(errors) => diags.0.extend(errors.0),
                }
            }
        }
    }
    let code = if diags.has_errors() { 1 } else { 0 };
    let stdout = if code == 0 {
        let name = sources.get(file).map(|f| f.name.clone()).unwrap_or_default();
        let target = checked_for.map(|t| format!(", target {t}")).unwrap_or_default();
        format!("{name}: ok ({:?}, {} ops{target})\n", module.level(), module.walk().len())
    } else {
        String::new()
    };
    let out = Outcome { stdout, stderr: render(&sources, &diags.0, opts.error_format), code };
    (out, if code == 0 { Some((sources, verified)) } else { None })
}

/// The checks of a verified program that `pto verify` makes and that `pto lower`, `pto compile`
/// and `pto run` make too before their own work (one verdict whatever the command): the
/// kernel entries `ptoas` would emit return nothing (Level 2/3), and the cube/vector pipes' topology and
/// consumer buffers hold (`pto_sim::cores::machine::static_errors`).
pub fn program_errors(module: &pto_ir::Module) -> Vec<pto_ir::Diagnostic> {
    // A Level-1 function returns its tiles (the ISA pages' form); `ptoas` reads Level 2/3 only.
    let entries = if module.level() == pto_ir::module::Level::Level1 {
        Ok(())
    } else {
        crate::compile::check_entries(module, &crate::compile::functions(module))
    };
    let mut out = match entries {
        Ok(()) => Vec::new(),
        Err(e) => e.0,
    };
    out.extend(pto_sim::cores::machine::static_errors(module));
    out
}

/// The target's own structural checks beyond legality, which every command makes: a
/// cube/vector pipe on a target whose pipes pass through GM needs its GM slot buffer
/// (`pto_sim::cores::topology::check_target`).
pub fn target_errors(module: &pto_ir::Module, target: &pto_lower::Target) -> Vec<pto_ir::Diagnostic> {
    pto_sim::cores::topology::check_target(module, target)
}

/// `diags` with each op named as `ptoas` names it on `target`
/// (`pto_sim::cores::topology::ptoas_op_name`: its frontend has lowered the pipe inits by then).
fn named_for(mut diags: Vec<pto_ir::Diagnostic>, target: &pto_lower::Target) -> Vec<pto_ir::Diagnostic> {
    for d in &mut diags {
        if let Some(op) = d.op.as_deref().and_then(pto_ir::ops::lookup) {
            d.op = Some(pto_sim::cores::topology::ptoas_op_name(op, target));
        }
    }
    diags
}

/// [`program_errors`] and [`target_errors`] as one gate for the commands that go on to lower
/// the program: `Err` with the errors (and the warnings found with them) when any is an error.
pub fn gate(module: &pto_ir::Module, target: &pto_lower::Target) -> Result<Vec<pto_ir::Diagnostic>, Vec<pto_ir::Diagnostic>> {
    let mut found = named_for(program_errors(module), target);
    found.extend(target_errors(module, target));
    if found.iter().any(|d| d.severity == pto_ir::diag::Severity::Error) { Err(found) } else { Ok(found) }
}

/// Whether the tiles fit the target's buffers: the errors of the whole lowering (on a copy)
/// that are about memory — overflow, overlapping tiles, bad addresses, a scratch tile smaller
/// than the target's implementation asserts (`insert-scratch`) — so that `verify
/// --target` reports what `lower` and `run` would (docs/cli.md). Other lowering errors are
/// left to `lower`.
fn memory_errors(module: &pto_ir::Module, target: &'static pto_lower::Target) -> Vec<pto_ir::Diagnostic> {
    use pto_ir::diag::DiagClass;
    let Ok(verified) = pto_ir::verify::Verified::new(module.clone()) else { return Vec::new() };
    match pto_lower::run(verified, target, Default::default()) {
        Ok(_) => Vec::new(),
        Err(errors) => errors
            .0
            .into_iter()
            .filter(|d| {
                matches!(
                    d.class,
                    DiagClass::LegalBufferOverflow
                        | DiagClass::LegalOverlappingTiles
                        | DiagClass::LegalBadAddress
                        | DiagClass::LegalTmpTooSmall
                )
            })
            .collect(),
    }
}

/// Runs `pto verify --sync`: the checks of [`run`], then, when they pass, the sync check over
/// every path of the lowered program (`pto_sim::sync::check_paths`, docs/sync.md).
pub fn run_with_sync(opts: &VerifyOptions) -> Outcome {
    let (plain, loaded) = check(opts);
    let Some((sources, verified)) = loaded else { return plain };
    if let Some(out) = on_the_machine(opts, &plain, &sources, &verified) {
        return out;
    }
    if !pto_sim::sync::has_explicit_sync(verified.module()) {
        return not_checked(&sources, verified.module(), plain, opts);
    }
    let fail = |sources: &SourceMap, d: &[pto_ir::Diagnostic]| Outcome::diagnostics(sources, d, opts.error_format);
    let target = match resolve_target(verified.module(), opts.target, &mut Default::default()) {
        Ok(t) => t,
        Err(d) => return fail(&sources, &d.0),
    };
    let lowered = match pto_lower::run(verified, target, Default::default()) {
        Ok((m, _)) => m,
        Err(d) => return fail(&sources, &d.0),
    };
    if !pto_sim::sync::has_explicit_sync(&lowered) {
        return not_checked(&sources, &lowered, plain, opts);
    }
    match pto_sim::sync::check_paths(&lowered, target) {
        Err(d) => fail(&sources, &d),
        Ok(check) => {
            let found = &check.found;
            let code = if found.iter().any(|d| d.is_error()) { 1 } else { 0 };
            let stdout = if code == 0 { format!("{}{}\n", plain.stdout, check.summary()) } else { String::new() };
            let report = render(&sources, found, opts.error_format) + &crate::render::count_line(found, opts.error_format);
            Outcome { stdout, stderr: plain.stderr + &report, code }
        }
    }
}

/// `pto verify`'s outcome with the note that sync was not checked, at the entry function's
/// header (or, in a file without functions, its first op), never at 1:1.
fn not_checked(sources: &SourceMap, m: &pto_ir::Module, plain: Outcome, opts: &VerifyOptions) -> Outcome {
    let note = pto_ir::Diagnostic::note(
        pto_ir::DiagClass::SyncNotChecked,
        crate::sync_note::program_span(sources, m),
        "sync not checked: the program has no sync op, so it relies on automatic sync insertion",
    );
    Outcome { stderr: plain.stderr + &render(sources, &[note], opts.error_format), ..plain }
}

/// `pto verify --sync` of a kernel that runs on several cores, blocks or ranks (a mix kernel,
/// `--blocks`, `--ranks`, comm instructions): the machine `pto run` uses, with default inputs
/// and the same checks as `pto run --sync-check=auto` — orders between cores, blocks and
/// ranks always, each core's pipes when the program has sync ops. `None` for a kernel of one
/// core, which the path enumeration checks.
///
/// The machine runs once per combination of outcomes of the `scf.if`s whose condition is the
/// same on every core of a rank (constants and scalar arguments: [`pto_sim::sync::branches`]),
/// on one thread so that every run meets the decisions in the same order; the findings of all
/// runs are reported once each. The `scf.if`s whose condition depends on the core or on data,
/// and the loops with a dynamic trip count, take the outcome the default inputs give: a
/// `SYNC_NOT_CHECKED` note says so, and the status line says what was explored.
fn on_the_machine(opts: &VerifyOptions, plain: &Outcome, sources: &SourceMap, verified: &pto_ir::verify::Verified) -> Option<Outcome> {
    let m = verified.module();
    let target = resolve_target(m, opts.target, &mut Default::default()).ok()?;
    let several = opts.blocks > 1 || opts.ranks > 1 || !opts.peers.is_empty() || pto_sim::comm::ops::uses_comm(m);
    if !several && !pto_sim::cores::Topology::new(m, target).mix {
        return None;
    }
    // The arguments the user bound keep their values: `NAME=VALUE`, `NAME@RANK=VALUE`.
    let fixed = opts
        .inputs
        .iter()
        .filter_map(|i| i.split_once('='))
        .map(|(n, _)| n.split('@').next().unwrap_or(n).trim_start_matches('%').to_string());
    let branches = pto_sim::sync::branches::MachineBranches::shared(fixed);
    let run = crate::cmd::run::RunOptions {
        default_inputs: true,
        blocks: opts.blocks,
        ranks: opts.ranks,
        peers: opts.peers.clone(),
        inputs: opts.inputs.clone(),
        error_format: opts.error_format,
        diagnostics_only: true,
        threads: Some(1),
        branches: Some(branches.clone()),
        ..crate::cmd::run::RunOptions::new(
            opts.input.clone(),
            if target.id == pto_lower::TargetId::A5 { TargetName::A5 } else { TargetName::A2A3 },
        )
    };
    let lock = || branches.lock().unwrap_or_else(|e| e.into_inner());
    let mut capped = false;
    while lock().next_run() {
        if lock().runs() > MACHINE_PATHS {
            capped = true;
            break;
        }
        let ran = crate::cmd::run::run(&run);
        if ran.code == 2 {
            return Some(ran);
        }
    }
    let b = lock();
    let paths = b.runs().min(MACHINE_PATHS);
    let mut seen = std::collections::HashSet::new();
    let mut found: Vec<pto_ir::Diagnostic> =
        b.found.iter().filter(|d| seen.insert((d.class, d.span.start, d.labels.first().map(|l| l.0.start)))).cloned().collect();
    let note = |span, message: String| pto_ir::Diagnostic::note(pto_ir::DiagClass::SyncNotChecked, span, message);
    if capped {
        found.push(note(
            Default::default(),
            format!("the machine has more than {MACHINE_PATHS} paths: only the first {MACHINE_PATHS} were checked"),
        ));
    }
    let loops = m.walk().into_iter().filter(|&op| branches_on_data(m, op) && m.op(op).opcode != pto_ir::ops::Opcode::ScfIf).count();
    let unexplored = b.unexplored.len() + loops;
    if unexplored > 0 {
        found.push(note(
            Default::default(),
            format!(
                "the cores, blocks and ranks were checked on {paths} path(s), both outcomes of every branch on constants and unbound scalar arguments; {} branch(es) on the core, on data or on bound inputs, and {loops} loop(s) with a dynamic trip count, took the outcome the inputs give",
                b.unexplored.len()
            ),
        ));
    }
    if let (n, Some(first)) = &b.trapped {
        found.push(note(
            first.span,
            format!("{n} of {paths} paths stopped at a trap and were not checked (the first: {}; an infeasible path, or an op the simulator cannot run)", first.message),
        ));
    }
    let code = if found.iter().any(|d| d.is_error()) { 1 } else { 0 };
    let what = format!("{} block(s), {} rank(s)", opts.blocks, opts.ranks);
    let trapped = b.trapped.0;
    let stdout = if code != 0 {
        String::new()
    } else if trapped == paths {
        format!(
            "{}sync: not checked: every one of the {paths} paths on the machine ({what}) stopped at a trap (see the note)\n",
            plain.stdout
        )
    } else {
        let mut line = match trapped {
            0 => format!("sync: ok ({paths} paths on the machine: {what})"),
            t => format!("sync: ok on {} of {paths} paths on the machine ({what}); {t} stopped at a trap and were not checked", paths - t),
        };
        if unexplored > 0 {
            line.push_str(&format!("; {unexplored} branch(es) and loop(s) took the outcome the inputs give"));
        }
        format!("{}{line}\n", plain.stdout)
    };
    let mut stderr = plain.stderr.clone();
    if !found.is_empty() {
        stderr.push_str(&render(sources, &found, opts.error_format));
        stderr.push_str(&crate::render::count_line(&found, opts.error_format));
    }
    Some(Outcome { stdout, stderr, code })
}

/// Machine runs `pto verify --sync` explores at most (each runs every core).
const MACHINE_PATHS: usize = 64;

/// Whether `op` is an `scf.if`, or a loop whose trip count is not a constant: an op whose
/// outcome the data decides.
fn branches_on_data(m: &pto_ir::Module, op: pto_ir::OpId) -> bool {
    use pto_ir::ops::Opcode;
    match m.op(op).opcode {
        Opcode::ScfIf | Opcode::ScfWhile => true,
        Opcode::ScfFor => m.op(op).operands.iter().take(3).any(
            |&v| !matches!(m.values[v.index()].def, pto_ir::module::ValueDef::OpResult(d, _) if m.op(d).opcode == Opcode::ArithConstant),
        ),
        _ => false,
    }
}
