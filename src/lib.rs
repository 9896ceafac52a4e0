//! # pto — the command-line toolchain for the PTO tile ISA
//!
//! This crate is the thin layer between the command line and the library crates: it reads
//! inputs, calls [`pto_asm`], [`pto_ir`] (and later `pto-lower` / `pto-sim`), and renders
//! diagnostics. Every subcommand lives in its own module under [`cmd`] and returns an
//! [`Outcome`] (stdout text, rendered diagnostics, exit code) so tests can run it in-process.
//!
//! Exit codes: 0 success, 1 the input has errors (diagnostics printed), 2 usage or I/O error.

#![deny(missing_docs)]

/// mimalloc for every binary that links `pto` (the CLI, tests, benchmarks): the reader and the
/// passes allocate many small objects, and on the 50,000-op benchmark module it keeps the cost
/// linear (4.9× the 10,000-op time instead of 5.5× with the system allocator).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod cmd;
pub mod compile;
pub mod cycles_report;
pub mod golden_coverage;
pub mod json_out;
pub mod memory_map;
#[cfg(feature = "mlir")]
pub mod mlir;
pub mod op_info;
pub mod operand_span;
pub mod preview;
pub mod progress;
pub mod render;
pub mod source_window;
pub mod sync_note;
pub mod timeline_svg;
pub mod timeline_trace;
pub mod vector_report;
pub mod workload;

use pto_ir::diag::{Diagnostics, FileId, SourceMap};

/// What a subcommand produced.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    /// Text for stdout.
    pub stdout: String,
    /// Text for stderr (rendered diagnostics, messages).
    pub stderr: String,
    /// Process exit code.
    pub code: i32,
}

impl Outcome {
    /// A usage or I/O failure (exit 2).
    pub fn usage_error(msg: impl Into<String>) -> Outcome {
        Outcome { stdout: String::new(), stderr: format!("error: {}\n", msg.into()), code: 2 }
    }

    /// The input has errors (exit 1): the diagnostics, rendered against their sources.
    pub fn diagnostics(sources: &SourceMap, diags: &[pto_ir::Diagnostic], format: ErrorFormat) -> Outcome {
        Outcome { stdout: String::new(), stderr: render::render(sources, diags, format), code: 1 }
    }
}

/// Target profile names accepted on the command line.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TargetName {
    /// Ascend A2/A3.
    A2A3,
    /// Ascend A5.
    A5,
}

impl TargetName {
    /// Parses `a2a3`, `a3`, `a2` (all A2/A3) and `a5`, case-insensitively (as `ptoas --pto-arch`).
    pub fn parse(s: &str) -> Result<TargetName, String> {
        match s.to_ascii_lowercase().as_str() {
            "a2a3" | "a3" | "a2" => Ok(TargetName::A2A3),
            "a5" => Ok(TargetName::A5),
            other => Err(format!("unknown target `{other}` (expected a2a3, a3, a2 or a5)")),
        }
    }
}

impl From<TargetName> for pto_lower::TargetId {
    fn from(t: TargetName) -> Self {
        match t {
            TargetName::A2A3 => pto_lower::TargetId::A2A3,
            TargetName::A5 => pto_lower::TargetId::A5,
        }
    }
}

/// The target a command works for: `--target` (or `--pto-arch`), else the module's
/// `pto.target_arch`, else A2/A3. A `--target` that contradicts the module wins with a warning,
/// pushed to `warnings` (`legalize` makes it an error when a tile's layout depends on it).
pub fn resolve_target(
    module: &pto_ir::Module,
    requested: Option<TargetName>,
    warnings: &mut Diagnostics,
) -> Result<&'static pto_lower::Target, Diagnostics> {
    let (target, warning) = pto_lower::target::resolve(module, requested.map(Into::into))?;
    warnings.0.extend(warning);
    Ok(target)
}

/// The notes and warnings of the lowering a command shows: every one with `--explain`;
/// otherwise the `LEGAL_LAYOUT_REWRITTEN` notes are folded into one summary note (at the first
/// rewritten tile) that says how many tiles were rewritten and that `--explain` lists them, and
/// the `SYNC_INSERTED` notes of `insert-sync` into one that counts them.
pub fn shown_notes(diags: Vec<pto_ir::Diagnostic>, explain: bool) -> Vec<pto_ir::Diagnostic> {
    use pto_ir::diag::DiagClass;
    if explain {
        return diags;
    }
    let (inserted, diags): (Vec<_>, Vec<_>) =
        diags.into_iter().partition(|d| d.class == DiagClass::SyncInserted && d.severity == pto_ir::diag::Severity::Note);
    let (layout, mut rest): (Vec<_>, Vec<_>) = diags.into_iter().partition(|d| d.class == DiagClass::LegalLayoutRewritten);
    if let Some(first) = inserted.first() {
        let n = inserted.len();
        rest.insert(
            0,
            pto_ir::Diagnostic::note(
                DiagClass::SyncInserted,
                first.span,
                format!("insert-sync inserted {n} flag pair(s) and barrier(s), proven by `pto verify --sync` (`--explain` lists each)"),
            ),
        );
    }
    if let Some(first) = layout.first() {
        let n = layout.len();
        let tiles = if n == 1 { "1 tile".to_string() } else { format!("{n} tiles") };
        rest.insert(
            0,
            pto_ir::Diagnostic::note(
                DiagClass::LegalLayoutRewritten,
                first.span,
                format!("legalize gave {tiles} the layout the target fixes for their location (`--explain` lists each)"),
            )
            .with_note(first.message.clone()),
        );
    }
    rest
}

/// How diagnostics are printed.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ErrorFormat {
    /// Source line with a caret (rustc style).
    #[default]
    Human,
    /// One JSON object per line.
    Json,
    /// MLIR's (`ptoas`'s) one-line form: `file:line:col: error: 'pto.op' op message`. The
    /// default of `pto compile`, a drop-in for `ptoas` whose callers read that form.
    Mlir,
}

/// Reads a file (`-` = stdin) into a source map. Stdin that is a terminal is a usage error
/// rather than a silent wait: a user who forgot the file is told so.
pub fn read_input(path: &str, sources: &mut SourceMap) -> Result<FileId, String> {
    let (name, text) = if path == "-" {
        if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            return Err("no input file: give a FILE, or pipe the program in (`-` reads stdin)".into());
        }
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| format!("cannot read stdin: {e}"))?;
        ("<stdin>".to_string(), s)
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?;
        let text = String::from_utf8(bytes)
            .map_err(|e| format!("`{path}` is not UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to()))?;
        (display_path(path), text)
    };
    Ok(sources.add(name, text))
}

/// How diagnostics name the file at `path`: relative to the working directory when it lies
/// below it (`tests/k.pto` for `/work/repo/tests/k.pto` run from `/work/repo`), as given otherwise.
pub fn display_path(path: &str) -> String {
    let p = std::path::Path::new(path);
    let relative =
        std::env::current_dir().ok().filter(|_| p.is_absolute()).and_then(|cwd| p.strip_prefix(cwd).ok().map(|r| r.display().to_string()));
    relative.filter(|r| !r.is_empty()).unwrap_or_else(|| path.to_string())
}

/// Reads `path` (`-` = stdin) into `sources` and parses it: the file, its module and the
/// parser's warnings, or the [`Outcome`] a command returns when either step fails (exit 2 for
/// I/O, exit 1 with the rendered diagnostics for a parse error).
pub fn load_module(path: &str, sources: &mut SourceMap, format: ErrorFormat) -> Result<(FileId, pto_ir::Module, Diagnostics), Outcome> {
    let file = read_input(path, sources).map_err(Outcome::usage_error)?;
    let (module, warnings) = parse_file(sources, file).map_err(|d| Outcome::diagnostics(sources, &d.0, format))?;
    Ok((file, module, warnings))
}

/// Parses the file `file` of `sources`.
pub fn parse_file(sources: &SourceMap, file: FileId) -> Result<(pto_ir::Module, Diagnostics), Diagnostics> {
    let text = sources.get(file).map(|f| f.text.as_str()).unwrap_or("");
    pto_asm::parse(text, file)
}
