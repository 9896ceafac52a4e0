//! `pto lower`: run the lowering pipeline for a target and print Level-3 text (or JSON), with
//! `--stop-after`, `--print-after-all` and an SVG memory map.

use crate::render::render;
use crate::{ErrorFormat, Outcome, TargetName, load_module, resolve_target, shown_notes};
use pto_asm::print::{PrintOptions, print_module};
use pto_ir::diag::SourceMap;
use pto_ir::module::Module;
use pto_ir::verify::Verified;
use pto_lower::{Target, TargetId};
use serde_json::json;

/// Output format of `pto lower`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Emit {
    /// Level-2/3 DPS text.
    #[default]
    Dps,
    /// JSON: the ops in program order and the memory plan.
    Json,
    /// The A2A3 vector program of every tile op (after planning).
    Vector,
}

/// Options of `pto lower`.
#[derive(Debug, Clone)]
pub struct LowerOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Target profile.
    pub target: Option<TargetName>,
    /// Stop after this pass.
    pub stop_after: Option<String>,
    /// Run `insert-sync` and prove its output ([`prove_sync`]).
    pub insert_sync: bool,
    /// Print the IR after every pass (to stderr).
    pub print_after_all: bool,
    /// Output format.
    pub emit: Emit,
    /// Write an SVG memory map here.
    pub memory_map: Option<String>,
    /// Print the vector cost of every tile op (A2A3) to stderr.
    pub stats: bool,
    /// List every tile `legalize` rewrites (otherwise one summary note).
    pub explain: bool,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

impl LowerOptions {
    /// Lowers `input` for `target` through every pass, printing Level-3 DPS text with
    /// human-readable diagnostics; set the other fields with struct update syntax.
    pub fn new(input: impl Into<String>, target: TargetName) -> Self {
        LowerOptions {
            input: input.into(),
            target: Some(target),
            stop_after: None,
            insert_sync: false,
            print_after_all: false,
            emit: Emit::Dps,
            memory_map: None,
            stats: false,
            explain: false,
            error_format: ErrorFormat::Human,
        }
    }
}

/// The pass names `--stop-after` accepts.
pub fn pass_names() -> Vec<&'static str> {
    pto_lower::PASSES.iter().map(|(n, _)| *n).collect()
}

/// Runs `pto lower`.
pub fn run(opts: &LowerOptions) -> Outcome {
    if let Some(p) = &opts.stop_after
        && !pass_names().contains(&p.as_str())
    {
        return Outcome::usage_error(format!("unknown pass `{p}` (passes: {})", pass_names().join(", ")));
    }
    let mut sources = SourceMap::default();
    let fail = |sources: &SourceMap, d: &[pto_ir::Diagnostic]| Outcome::diagnostics(sources, d, opts.error_format);
    let (_, module, mut warnings) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return failed,
    };
    let target = match resolve_target(&module, opts.target, &mut warnings) {
        Ok(t) => t,
        Err(diags) => return fail(&sources, &diags.0),
    };
    let verified = match Verified::new(module) {
        Ok(v) => v,
        Err(diags) => return fail(&sources, &diags.0),
    };
    match crate::cmd::verify::gate(verified.module(), target) {
        Ok(found) => warnings.0.extend(found),
        Err(errors) => return fail(&sources, &errors),
    }
    let wants_vector = opts.emit == Emit::Vector || opts.stats;
    if wants_vector && target.id != TargetId::A2A3 {
        return Outcome::usage_error(
            "the vector level models A2A3 (`--emit vector` and `--stats` need `--target a2a3`; A5 has no vector-instruction model)",
        );
    }
    if wants_vector && opts.stop_after.as_deref().is_some_and(|p| p != "plan-memory") {
        return Outcome::usage_error("`--emit vector` and `--stats` need placed tiles: they cannot stop before plan-memory");
    }
    let mut trace = String::new();
    let mut after = |name: &str, m: &Module| {
        if opts.print_after_all {
            trace.push_str(&format!("// -----// IR after {name} ({}) //----- //\n", target.name));
            trace.push_str(&print_module(m, &PrintOptions::default()).unwrap_or_default());
        }
    };
    let result = pto_lower::run(
        verified,
        target,
        pto_lower::PipelineOptions { stop_after: opts.stop_after.as_deref(), after_pass: Some(&mut after), insert_sync: opts.insert_sync },
    );
    let (lowered, more) = match result {
        Ok(ok) => ok,
        Err(diags) => {
            let mut out = fail(&sources, &diags.0);
            out.stderr = trace + &out.stderr;
            return out;
        }
    };
    let inserted = opts.insert_sync && opts.stop_after.as_deref().is_none_or(|p| p == "insert-sync");
    if inserted && let Err(diags) = prove_sync(&lowered, target, &opts.input) {
        return fail(&sources, &diags);
    }
    warnings.0.extend(shown_notes(more.0, opts.explain));
    if let Some(path) = &opts.memory_map
        && let Err(e) = std::fs::write(path, crate::memory_map::svg(&lowered, target))
    {
        return Outcome::usage_error(format!("cannot write `{path}`: {e}"));
    }
    let listed = if wants_vector {
        match vector_listing(&lowered, target) {
            Ok(l) => l,
            Err(diags) => return fail(&sources, &diags),
        }
    } else {
        Vec::new()
    };
    let stdout = match opts.emit {
        Emit::Dps => match print_module(&lowered, &PrintOptions::default()) {
            Ok(t) => t,
            Err(e) => return Outcome::usage_error(e.0),
        },
        Emit::Json => json_dump(&lowered, target),
        Emit::Vector => crate::vector_report::listing(&sources, &lowered, &listed),
    };
    let stats = if opts.stats {
        crate::vector_report::stats_table(&crate::vector_report::listed_rows(&sources, &lowered, &listed))
    } else {
        String::new()
    };
    Outcome { stdout, stderr: trace + &stats + &render(&sources, &warnings.0, opts.error_format), code: 0 }
}

/// The proof of `insert-sync`: the static checker (`pto verify --sync`) on its output. A
/// finding in a function the pass ordered is a bug of the pass: a `SYNC_INSERT_FAILED` error
/// naming the program, with the checker's findings after it. Functions with a sync op of their
/// own are left as written by the pass and are not its to prove ([`own_sync_spans`]).
pub fn prove_sync(lowered: &Module, target: &'static Target, program: &str) -> Result<(), Vec<pto_ir::Diagnostic>> {
    let own = own_sync_spans(lowered);
    let findings = match pto_sim::sync::check_paths(lowered, target) {
        Ok(check) => {
            check.found.into_iter().filter(|d| d.severity == pto_ir::diag::Severity::Error && !own.contains(&d.span)).collect::<Vec<_>>()
        }
        Err(diags) => diags,
    };
    if findings.is_empty() {
        return Ok(());
    }
    let mut out = vec![pto_ir::Diagnostic::error(
        pto_ir::diag::DiagClass::SyncInsertFailed,
        Default::default(),
        format!(
            "internal error: the sync insert-sync inserted in `{program}` does not pass `pto verify --sync` ({} finding(s) follow); please report it",
            findings.len()
        ),
    )];
    out.extend(findings);
    Err(out)
}

/// The spans of the ops of every function that has an explicit sync op (the functions
/// `insert-sync` leaves as written).
fn own_sync_spans(m: &Module) -> std::collections::HashSet<pto_ir::Span> {
    use pto_ir::ops::Opcode;
    let (mut out, mut current, mut has_sync) = (std::collections::HashSet::new(), Vec::new(), false);
    let mut flush = |current: &mut Vec<pto_ir::Span>, has_sync: &mut bool| {
        if *has_sync {
            out.extend(current.drain(..));
        }
        current.clear();
        *has_sync = false;
    };
    for op in m.walk() {
        let code = m.op(op).opcode;
        if matches!(code, Opcode::FuncFunc | Opcode::Module) {
            flush(&mut current, &mut has_sync);
        }
        has_sync |= pto_lower::sync::pipes::is_explicit_sync(code);
        current.push(m.op_span(op));
    }
    flush(&mut current, &mut has_sync);
    out
}

/// The A2A3 vector program of every tile op of a planned module, or a `LEGAL_VECTOR_OUT_OF_TILE`
/// error for each op whose program would access memory outside its tiles (what `--emit vector`,
/// `--stats` and the Python package's `lower(emit="vector")` show).
pub fn vector_listing(lowered: &Module, target: &Target) -> Result<Vec<pto_lower::vector::listing::Listed>, Vec<pto_ir::Diagnostic>> {
    let listed = pto_lower::vector::listing::list(lowered, target).map_err(|d| d.0)?;
    let out_of_tile: Vec<pto_ir::Diagnostic> = listed
        .iter()
        .filter_map(|l| {
            let why = l.out_of_tile.as_ref()?;
            let d = pto_ir::Diagnostic::error(
                pto_ir::diag::DiagClass::LegalVectorOutOfTile,
                lowered.op_span(l.op),
                format!("on A2A3 the vector program of this op {why}"),
            );
            Some(d.with_op(lowered.op(l.op).opcode.full_name()))
        })
        .collect();
    if out_of_tile.is_empty() { Ok(listed) } else { Err(out_of_tile) }
}

/// An attribute as a JSON value: booleans, integers, floats and strings as themselves, lists
/// and dictionaries structurally, everything else (enums, types, typed numbers' types) in its
/// PTO spelling (`"#pto<cmp gt>"`).
fn attr_json(m: &Module, a: &pto_ir::Attr) -> serde_json::Value {
    use pto_ir::Attr;
    match a {
        Attr::Unit => json!(true),
        Attr::Bool(b) => json!(b),
        Attr::Int(v, _) => json!(v),
        Attr::Float(v, _) if v.is_finite() => json!(v),
        Attr::Str(s) => json!(s),
        Attr::Array(items) => json!(items.iter().map(|x| attr_json(m, x)).collect::<Vec<_>>()),
        Attr::Dict(entries) => json!(entries.iter().map(|(k, x)| (k.clone(), attr_json(m, x))).collect::<serde_json::Map<_, _>>()),
        other => json!(pto_asm::print_attribute(m, other)),
    }
}

/// The lowered module as JSON ([`Emit::Json`]): ops in program order (name, operands, results
/// with types, attributes as text) and the memory plan.
pub fn json_dump(m: &Module, target: &Target) -> String {
    let name = |v: pto_ir::ValueId| format!("%{}", m.values[v.index()].name);
    let ops: Vec<_> = m
        .walk()
        .into_iter()
        .map(|op| {
            let d = m.op(op);
            json!({
                "op": d.opcode.full_name(),
                "ins": d.ins().iter().map(|&v| json!({"value": name(v), "type": m.value_type(v).to_string()})).collect::<Vec<_>>(),
                "outs": d.outs().iter().map(|&v| json!({"value": name(v), "type": m.value_type(v).to_string()})).collect::<Vec<_>>(),
                "results": d.results.iter().map(|&v| json!({"value": name(v), "type": m.value_type(v).to_string()})).collect::<Vec<_>>(),
                "attrs": d.attrs.iter().map(|(k, a)| (k.clone(), attr_json(m, a))).collect::<serde_json::Map<_, _>>(),
            })
        })
        .collect();
    let live = pto_lower::liveness::Liveness::compute(m);
    let tiles: Vec<_> = pto_lower::plan::collect(m, &live)
        .into_iter()
        .map(|t| json!({"tile": format!("%{}", t.name), "loc": t.loc.name(), "bytes": t.size, "addr": t.addr, "live": [t.start, t.end]}))
        .collect();
    serde_json::to_string_pretty(&json!({"target": target.name, "ops": ops, "memory": tiles})).unwrap_or_default() + "\n"
}
