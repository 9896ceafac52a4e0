//! `pto._native`: the Rust half of the Python package `pto` (docs/python.md).
//!
//! Thin bindings over the library crates and the CLI crate's library, the same calls `pto fmt`,
//! `verify`, `lower`, `run`, `ops` make: no logic of its own beyond moving values across. The
//! public API, its types and the numpy dtype mapping are in `pto/__init__.py`; this module
//! raises one exception, `DiagnosticsError(rendered, diagnostics)`, which the Python side turns
//! into the `PtoError` subclass of the diagnostics' family.

use numpy::{PyArray1, PyReadonlyArray1};
use pto::TargetName;
use pto_asm::{PrintOptions, print_module, print_module_with_comments};
use pto_ir::TextForm;
use pto_ir::diag::{Diagnostic, FileId, Severity, SourceMap};
use pto_ir::verify::Verified;
use pto_lower::Target;
use pto_sim::Sim;
use pto_sim::kernel_io::{self, ArgKind, Input};
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

pyo3::create_exception!(_native, DiagnosticsError, PyException, "Diagnostics: args are (rendered text, list of dicts).");

/// A parsed (or lowered) module with the source its spans point into.
#[pyclass(module = "pto._native", name = "Module", frozen)]
struct PyModule_ {
    /// The source (one file: spans of a lowered module still point into it).
    sources: SourceMap,
    module: pto_ir::Module,
    /// Parser (or lowering) warnings and notes.
    warnings: Vec<Diagnostic>,
    /// Produced by `lower`: printed without the source's comments.
    lowered: bool,
}

/// The diagnostics as the CLI renders them and as dicts, raised as `DiagnosticsError`.
fn diagnostics_error(py: Python<'_>, sources: &SourceMap, diags: &[Diagnostic]) -> PyErr {
    let rendered = pto::render::render(sources, diags, pto::ErrorFormat::Human);
    match diagnostic_dicts(py, sources, diags) {
        Ok(list) => DiagnosticsError::new_err((rendered, list.unbind())),
        Err(e) => e,
    }
}

fn diagnostic_dicts<'py>(py: Python<'py>, sources: &SourceMap, diags: &[Diagnostic]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for d in diags {
        let dict = PyDict::new(py);
        dict.set_item("class", d.class.as_str())?;
        dict.set_item(
            "severity",
            match d.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
                Severity::Note => "note",
            },
        )?;
        dict.set_item("message", &d.message)?;
        match sources.get(d.span.file) {
            Some(f) => {
                let (line, col) = f.line_col(d.span.start);
                dict.set_item("file", &f.name)?;
                dict.set_item("line", line)?;
                dict.set_item("col", col)?;
            }
            None => {
                dict.set_item("file", py.None())?;
                dict.set_item("line", py.None())?;
                dict.set_item("col", py.None())?;
            }
        }
        dict.set_item("op", d.op.as_deref())?;
        dict.set_item("operand", d.operand.as_deref())?;
        dict.set_item("notes", d.notes.clone())?;
        list.append(dict)?;
    }
    Ok(list)
}

fn target_name(target: Option<&str>) -> PyResult<Option<TargetName>> {
    target.map(TargetName::parse).transpose().map_err(PyValueError::new_err)
}

impl PyModule_ {
    fn resolve(&self, py: Python<'_>, target: Option<&str>, warnings: &mut pto_ir::diag::Diagnostics) -> PyResult<&'static Target> {
        pto::resolve_target(&self.module, target_name(target)?, warnings).map_err(|d| diagnostics_error(py, &self.sources, &d.0))
    }

    /// Verify and run the lowering pipeline (up to `stop_after`).
    fn lower_to(
        &self,
        py: Python<'_>,
        target: &'static Target,
        stop_after: Option<&str>,
        insert_sync: bool,
    ) -> PyResult<(pto_ir::Module, Vec<Diagnostic>)> {
        let verified = Verified::new(self.module.clone()).map_err(|d| diagnostics_error(py, &self.sources, &d.0))?;
        let opts = pto_lower::PipelineOptions { stop_after, after_pass: None, insert_sync };
        let (lowered, notes) = pto_lower::run(verified, target, opts).map_err(|d| diagnostics_error(py, &self.sources, &d.0))?;
        Ok((lowered, notes.0))
    }

    fn with_module(&self, module: pto_ir::Module, warnings: Vec<Diagnostic>, lowered: bool) -> PyModule_ {
        PyModule_ { sources: self.sources.clone(), module, warnings, lowered }
    }
}

#[pymethods]
impl PyModule_ {
    /// The name of the source (a path, or `<string>`).
    #[getter]
    fn name(&self) -> String {
        self.sources.get(FileId(0)).map(|f| f.name.clone()).unwrap_or_default()
    }

    /// The source text the module was read from.
    #[getter]
    fn source(&self) -> String {
        self.sources.get(FileId(0)).map(|f| f.text.clone()).unwrap_or_default()
    }

    /// 1 (tile values, SSA), 2 (tile buffers) or 3 (tile buffers with addresses).
    #[getter]
    fn level(&self) -> u8 {
        match self.module.level() {
            pto_ir::module::Level::Level1 => 1,
            pto_ir::module::Level::Level2 => 2,
            pto_ir::module::Level::Level3 => 3,
        }
    }

    /// Every op's full name (`pto.tadd`, `func.func`...), in program order.
    #[getter]
    fn ops(&self) -> Vec<String> {
        self.module.walk().into_iter().map(|op| self.module.op(op).opcode.full_name()).collect()
    }

    /// The parser's (or lowering's) warnings and notes, as dicts.
    #[getter]
    fn warnings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        diagnostic_dicts(py, &self.sources, &self.warnings)
    }

    /// Rendered like the CLI.
    fn render_warnings(&self) -> String {
        pto::render::render(&self.sources, &self.warnings, pto::ErrorFormat::Human)
    }

    /// The module as text: `form` None (its own), "as" or "ssa"; `generic` MLIR's generic op form.
    #[pyo3(signature = (form=None, generic=false))]
    fn text(&self, form: Option<&str>, generic: bool) -> PyResult<String> {
        let form = match form {
            None => None,
            Some("as") => Some(TextForm::Short),
            Some("ssa") => Some(TextForm::Ssa),
            Some(other) => return Err(PyValueError::new_err(format!("unknown form `{other}` (expected None, \"as\" or \"ssa\")"))),
        };
        let opts = PrintOptions { form, generic };
        let printed = if self.lowered {
            print_module(&self.module, &opts)
        } else {
            let comments = pto_asm::comments(&self.source());
            print_module_with_comments(&self.module, &opts, &comments)
        };
        printed.map_err(|e| PyValueError::new_err(e.0))
    }
}

/// Parses `text` (named `name` in diagnostics).
#[pyfunction]
fn parse(py: Python<'_>, text: String, name: String) -> PyResult<PyModule_> {
    let mut sources = SourceMap::default();
    let file = sources.add(name, text);
    match pto::parse_file(&sources, file) {
        Ok((module, warnings)) => Ok(PyModule_ { sources, module, warnings: warnings.0, lowered: false }),
        Err(d) => Err(diagnostics_error(py, &sources, &d.0)),
    }
}

/// `pto verify`: the structural checks and, with a target (or the module's `pto.target_arch`),
/// the target's legality. Errors raise; returns the warnings and notes as dicts.
#[pyfunction]
#[pyo3(signature = (module, target=None, explain=false))]
fn verify<'py>(py: Python<'py>, module: &PyModule_, target: Option<&str>, explain: bool) -> PyResult<Bound<'py, PyList>> {
    let mut diags = pto_ir::diag::Diagnostics(module.warnings.clone());
    diags.0.extend(pto_ir::verify::verify(&module.module).0);
    let wants_target = target.is_some() || matches!(pto_lower::target::module_arch(&module.module), Ok(Some(_)) | Err(_));
    if wants_target && !diags.has_errors() {
        match pto::resolve_target(&module.module, target_name(target)?, &mut diags) {
            Err(e) => diags.0.extend(e.0),
            Ok(t) => {
                let mut copy = module.module.clone();
                let mut notes = pto_ir::diag::Diagnostics::default();
                match pto_lower::legalize::run(&mut copy, t, &mut notes) {
                    Ok(_) => diags.0.extend(pto::shown_notes(notes.0, explain)),
                    Err(errors) => diags.0.extend(errors.0),
                }
            }
        }
    }
    if diags.has_errors() {
        let errors: Vec<Diagnostic> = diags.0.into_iter().filter(|d| d.is_error()).collect();
        return Err(diagnostics_error(py, &module.sources, &errors));
    }
    diagnostic_dicts(py, &module.sources, &diags.0)
}

/// `pto lower`: returns the lowered Module (`emit="dps"`), the JSON text (`"json"`) or the
/// vector listing (`"vector"`).
#[pyfunction]
#[pyo3(signature = (module, target=None, stop_after=None, emit="dps"))]
fn lower(py: Python<'_>, module: &PyModule_, target: Option<&str>, stop_after: Option<&str>, emit: &str) -> PyResult<Py<PyAny>> {
    let passes = pto::cmd::lower::pass_names();
    if let Some(p) = stop_after
        && !passes.contains(&p)
    {
        return Err(PyValueError::new_err(format!("unknown pass `{p}` (passes: {})", passes.join(", "))));
    }
    if !["dps", "json", "vector"].contains(&emit) {
        return Err(PyValueError::new_err(format!("unknown emit `{emit}` (expected \"dps\", \"json\" or \"vector\")")));
    }
    let mut warnings = pto_ir::diag::Diagnostics(module.warnings.clone());
    let t = module.resolve(py, target, &mut warnings)?;
    if emit == "vector" && t.id != pto_lower::TargetId::A2A3 {
        return Err(PyValueError::new_err("the vector level models A2A3: emit=\"vector\" needs target=\"a2a3\""));
    }
    if emit == "vector" && stop_after.is_some_and(|p| p != "plan-memory") {
        return Err(PyValueError::new_err("emit=\"vector\" needs placed tiles: it cannot stop before plan-memory"));
    }
    let (lowered, notes) = module.lower_to(py, t, stop_after, false)?;
    warnings.0.extend(pto::shown_notes(notes, false));
    Ok(match emit {
        "json" => pto::cmd::lower::json_dump(&lowered, t).into_pyobject(py)?.into_any().unbind(),
        "vector" => {
            let listed = pto::cmd::lower::vector_listing(&lowered, t).map_err(|d| diagnostics_error(py, &module.sources, &d))?;
            pto::vector_report::listing(&module.sources, &lowered, &listed).into_pyobject(py)?.into_any().unbind()
        }
        _ => Py::new(py, module.with_module(lowered, warnings.0, true))?.into_any(),
    })
}

/// The SVG memory map of the module lowered for `target`.
#[pyfunction]
#[pyo3(signature = (module, target=None))]
fn memory_map(py: Python<'_>, module: &PyModule_, target: Option<&str>) -> PyResult<String> {
    let t = module.resolve(py, target, &mut Default::default())?;
    let (lowered, _) = module.lower_to(py, t, None, false)?;
    Ok(pto::memory_map::svg(&lowered, t))
}

/// `pto ops --json`: the op table.
#[pyfunction]
fn ops_json() -> String {
    pto::cmd::ops::run(&pto::cmd::ops::OpsOptions { json: true, ..Default::default() }).stdout
}

/// The numpy dtype names of the element types, by PTO spelling.
#[pyfunction]
fn element_types() -> Vec<(&'static str, u32)> {
    pto_ir::types::ElemType::ALL.iter().map(|(t, n)| (*n, t.size_bytes())).collect()
}

/// What one run needs besides the module: see `run`.
struct RunRequest {
    inputs: Vec<(String, Py<PyAny>)>,
    outputs: Vec<String>,
    exec_vector: bool,
    default_inputs: bool,
    max_steps: u64,
    full: bool,
    blocks: u32,
    /// Threads for the blocks (`None`: one per CPU).
    threads: Option<usize>,
    /// Ranks (devices) for the `comm.*` instructions.
    ranks: u32,
    /// Peer bindings `(argument, next|prev|local|RANK)` of a multi-rank run.
    peers: Vec<(String, String)>,
    /// `auto`, `always` or `never`, as `pto run --sync-check` (docs/sync.md).
    sync_check: String,
    /// `None`: in order; `Some(seed)`: `--schedule random --seed`.
    seed: Option<u64>,
    /// Run functions without sync ops with the sync the insertion pass inserts (`--insert-sync`).
    insert_sync: bool,
    /// Time the run with the cycle model (`pto run --cycles --timeline`).
    timeline: bool,
    /// `pto` or `pto-isa`, as `pto run --cost-model`.
    cost_model: String,
}

/// The timeline of a run as JSON text: the `%cycles` entry of `pto run --cycles --json` (total,
/// pipes, critical path) and the Chrome trace of `pto run --timeline OUT.json`.
type TimelineJson = (String, String);

/// Raises the run's sync errors (`HAZARD_*`, `SYNC_*`) as the CLI reports them; returns the
/// warnings as text for `RuntimeWarning`s.
fn sync_findings(py: Python<'_>, sources: &SourceMap, found: &[Diagnostic]) -> PyResult<Vec<String>> {
    if found.iter().any(|d| d.is_error()) {
        return Err(diagnostics_error(py, sources, found));
    }
    Ok(found.iter().filter(|d| d.severity == Severity::Warning).map(|d| format!("{}: {}", d.class, d.message)).collect())
}

/// One output: name, element type (PTO spelling), rows, cols, the bytes as a 1-D uint8 array
/// (no copy: the array owns the simulator's buffer).
type Output<'py> = (String, &'static str, usize, usize, Bound<'py, PyArray1<u8>>);

/// Runs `module` (verified, lowered for `target`, simulated) with `request` through the one
/// entry point `pto run` uses ([`pto_sim::launch::run`]): the same machine, checks and
/// verdicts. Each input value goes through `convert(value, kind, dtype)`, which returns a float
/// for a scalar argument and `(uint8 array, rows, cols)` for a tile or GM argument. Returns the
/// outputs, what the kernel printed (`tprint`) and the run's sync warnings; sync errors
/// (hazards, deadlocks) raise, as `pto run` reports them.
fn run_inner<'py>(
    py: Python<'py>,
    module: &PyModule_,
    target: Option<&str>,
    request: RunRequest,
    convert: &Bound<'py, PyAny>,
) -> PyResult<(Vec<Output<'py>>, String, Vec<String>, Option<TimelineJson>)> {
    let t = module.resolve(py, target, &mut Default::default())?;
    if request.exec_vector && t.id != pto_lower::TargetId::A2A3 {
        return Err(PyValueError::new_err("exec=\"vector\" models the A2A3 vector unit: use target=\"a2a3\""));
    }
    let Some(sync_check) = pto_sim::launch::SyncCheck::parse(&request.sync_check) else {
        return Err(PyValueError::new_err(format!("sync_check must be \"auto\", \"always\" or \"never\", not {:?}", request.sync_check)));
    };
    let cost_model = match request.cost_model.as_str() {
        "pto" => pto_sim::timeline::CostModel::Pto,
        "pto-isa" => pto_sim::timeline::CostModel::PtoIsa,
        other => return Err(PyValueError::new_err(format!("cost_model must be \"pto\" or \"pto-isa\", not {other:?}"))),
    };
    let computed = kernel_io::final_tiles(&module.module);
    // As `pto run` lowers: a timed program without sync ops with the sync the insertion pass
    // inserts (where the pass fails, as it is, with a warning saying how it is timed).
    let verified = Verified::new(module.module.clone()).map_err(|d| diagnostics_error(py, &module.sources, &d.0))?;
    let (lowered, timing_note) = pto::cmd::run::lower_for_run(verified, t, request.insert_sync, request.timeline)
        .map_err(|d| diagnostics_error(py, &module.sources, &d.0))?;
    let mut sim = Sim::new(&lowered, t).map_err(|d| diagnostics_error(py, &module.sources, &d))?;
    let mut bound = Vec::new();
    // `NAME@RANK`: one rank's input (docs/comm.md).
    let mut rank_inputs = Vec::new();
    for (spec, value) in &request.inputs {
        let (name, rank) = kernel_io::split_rank(spec, request.ranks).map_err(|e| PyValueError::new_err(format!("input {spec}: {e}")))?;
        let kind = kernel_io::argument_kind(&sim, name).map_err(|e| PyValueError::new_err(format!("input {name}: {e}")))?;
        let converted = convert.call1((name, value.bind(py), kind.name(), kind.dtype().name()))?;
        let input = match kind {
            ArgKind::Scalar(_) => Input::Number(converted.extract::<f64>()?),
            ArgKind::Tile(e) | ArgKind::Gm(e) => {
                let (bytes, rows, cols): (PyReadonlyArray1<'_, u8>, usize, usize) = converted.extract()?;
                let bytes = bytes.as_slice().map_err(|e| PyValueError::new_err(format!("input {name}: {e}")))?.to_vec();
                Input::Data(pto_sim::TileData { dtype: e, rows, cols, bytes })
            }
        };
        if let Some(rank) = rank {
            rank_inputs.push((rank, name.to_string(), kind, input));
            continue;
        }
        kernel_io::bind(&mut sim, name, kind, &input).map_err(|e| PyValueError::new_err(format!("input {name}: {e}")))?;
        bound.push((name.to_string(), kind, input));
    }
    if request.default_inputs {
        sim.use_default_inputs();
    }
    let mut peers = Vec::new();
    for (arg, peer) in &request.peers {
        peers.push(
            kernel_io::peer_binding(&lowered, arg, peer, request.ranks).map_err(|e| PyValueError::new_err(format!("peer {arg}: {e}")))?,
        );
    }
    let timelines = std::sync::Mutex::new(Vec::new());
    let configure = |s: &mut Sim| {
        // A missing input's advice names `inputs=` and `default_inputs=`, not the CLI's flags.
        s.front_end = pto_sim::advice::FrontEnd::Python;
        s.exec_vector = request.exec_vector;
        s.max_steps = request.max_steps;
        if request.timeline {
            timelines.lock().unwrap_or_else(|e| e.into_inner()).push(pto_sim::timeline::Timeline::install(s, cost_model));
        }
    };
    let launch = pto_sim::launch::Launch {
        blocks: request.blocks,
        ranks: request.ranks,
        peers: &peers,
        schedule: request.seed.map_or(pto_sim::cores::Schedule::InOrder, pto_sim::cores::Schedule::Random),
        threads: request.threads,
        trace: false,
        sync_check,
        front_end: pto_sim::advice::FrontEnd::Python,
        bound: &bound,
        rank_inputs: &rank_inputs,
        default_inputs: request.default_inputs,
        configure: &configure,
        outputs: &request.outputs,
        full: request.full,
        computed,
    };
    let one_core = pto_sim::launch::machine_for(&lowered, t, &launch) == pto_sim::launch::Machine::Core;
    if request.full && !one_core {
        return Err(PyValueError::new_err("full=True reads one core's tiles: not available with blocks > 1, ranks > 1 or a mix kernel"));
    }
    let ran = match pto_sim::launch::run(&lowered, t, sim, &launch) {
        Ok(ran) => ran,
        Err(pto_sim::launch::Failure::Output(name, e)) => return Err(PyValueError::new_err(format!("output {name}: {e}"))),
        Err(pto_sim::launch::Failure::Stopped { diagnostics, .. }) => return Err(diagnostics_error(py, &module.sources, &diagnostics)),
    };
    let mut warnings = sync_findings(py, &module.sources, &ran.findings)?;
    warnings.extend(timing_note.map(|note| note.trim_start_matches("note: ").trim_end().to_string()));
    let timelines = timelines.into_inner().unwrap_or_else(|e| e.into_inner());
    let timeline = (!timelines.is_empty()).then(|| {
        // As `pto run --cycles --json --timeline OUT.json`: every core, in (rank, block, core) order.
        let guards: Vec<_> = timelines.iter().map(|t| t.lock().unwrap_or_else(|e| e.into_inner())).collect();
        let cores = pto::cycles_report::ordered_cores(&guards);
        let unmodelled = pto::cycles_report::unmodelled_note(&cores);
        let summary = pto::cycles_report::cycles_json(&cores, &lowered, &module.sources).to_string();
        let trace = pto::timeline_trace::chrome_json(&lowered, &module.sources, &cores);
        (summary, trace, unmodelled)
    });
    let timeline = timeline.map(|(summary, trace, unmodelled)| {
        warnings.extend(unmodelled.map(|note| note.trim_start_matches("note: ").trim_end().to_string()));
        (summary, trace)
    });
    let outputs =
        ran.outputs.into_iter().map(|(name, d)| (name, d.dtype.name(), d.rows, d.cols, PyArray1::from_vec(py, d.bytes))).collect();
    Ok((outputs, ran.printed, warnings, timeline))
}

/// See [`run_inner`].
#[pyfunction]
#[pyo3(signature = (module, target, inputs, convert, outputs=None, exec_vector=false, default_inputs=false, max_steps=None, full=false, blocks=1, threads=None, ranks=1, peers=Vec::new(), sync_check="auto".to_string(), seed=None, insert_sync=false, timeline=false, cost_model="pto".to_string()))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    module: &PyModule_,
    target: Option<&str>,
    inputs: Vec<(String, Py<PyAny>)>,
    convert: &Bound<'py, PyAny>,
    outputs: Option<Vec<String>>,
    exec_vector: bool,
    default_inputs: bool,
    max_steps: Option<u64>,
    full: bool,
    blocks: u32,
    threads: Option<usize>,
    ranks: u32,
    peers: Vec<(String, String)>,
    sync_check: String,
    seed: Option<u64>,
    insert_sync: bool,
    timeline: bool,
    cost_model: String,
) -> PyResult<(Vec<Output<'py>>, String, Vec<String>, Option<TimelineJson>)> {
    let request = RunRequest {
        inputs,
        outputs: outputs.unwrap_or_default(),
        exec_vector,
        default_inputs,
        max_steps: max_steps.unwrap_or(pto_sim::interp::DEFAULT_MAX_STEPS),
        full,
        blocks,
        threads,
        ranks,
        peers,
        sync_check,
        seed,
        insert_sync,
        timeline,
        cost_model,
    };
    run_inner(py, module, target, request, convert)
}

/// The benchmark's reference (python/bench): `iterations` runs of `module` through the Rust API
/// alone — lower, bind the GM/tile `inputs` (name, dtype-less raw bytes, rows, cols), run, read
/// every default output — and the seconds they took in total.
#[pyfunction]
fn rust_api_run_seconds(
    py: Python<'_>,
    module: &PyModule_,
    target: &str,
    inputs: Vec<(String, Vec<u8>, usize, usize)>,
    iterations: u32,
) -> PyResult<f64> {
    let t = module.resolve(py, Some(target), &mut Default::default())?;
    let start = std::time::Instant::now();
    for _ in 0..iterations {
        let computed = kernel_io::final_tiles(&module.module);
        let (lowered, _) = module.lower_to(py, t, None, false)?;
        let mut sim = Sim::new(&lowered, t).map_err(|d| diagnostics_error(py, &module.sources, &d))?;
        for (name, bytes, rows, cols) in &inputs {
            let kind = kernel_io::argument_kind(&sim, name).map_err(|e| PyValueError::new_err(e.to_string()))?;
            let data = pto_sim::TileData { dtype: kind.dtype(), rows: *rows, cols: *cols, bytes: bytes.clone() };
            kernel_io::bind(&mut sim, name, kind, &Input::Data(data)).map_err(PyValueError::new_err)?;
        }
        sim.run().map_err(|d| diagnostics_error(py, &module.sources, &[d]))?;
        let outputs = kernel_io::outputs(&sim, &lowered, computed, &[], false).map_err(|(_, e)| PyValueError::new_err(e))?;
        std::hint::black_box(outputs);
    }
    Ok(start.elapsed().as_secs_f64())
}

#[pymodule]
fn _native(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    m.add_class::<PyModule_>()?;
    m.add("DiagnosticsError", m.py().get_type::<DiagnosticsError>())?;
    m.add_function(wrap_pyfunction!(parse, m)?)?;
    m.add_function(wrap_pyfunction!(verify, m)?)?;
    m.add_function(wrap_pyfunction!(lower, m)?)?;
    m.add_function(wrap_pyfunction!(memory_map, m)?)?;
    m.add_function(wrap_pyfunction!(ops_json, m)?)?;
    m.add_function(wrap_pyfunction!(element_types, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(rust_api_run_seconds, m)?)?;
    Ok(())
}
