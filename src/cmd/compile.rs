//! `pto compile`: lower a file with pto's pipeline and print the pto-isa C++ `ptoas` would
//! emit for it (docs/compile.md). Takes `ptoas`'s command line: `--pto-arch`, `--pto-level`,
//! `--enable-insert-sync`, `-o`.

use crate::render::render;
use crate::{ErrorFormat, Outcome, TargetName, load_module, resolve_target, shown_notes};
use pto_ir::diag::{DiagClass, Diagnostic, SourceMap};
use pto_ir::module::Level;
use pto_ir::ops::Opcode;
use pto_ir::verify::Verified;

/// `--pto-level`: what the input may contain, as `ptoas` checks it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum PtoLevel {
    /// Level 1 (`ptoas` treats it as level 2).
    Level1,
    /// Level 2 (default): tiles without addresses; memory is planned.
    #[default]
    Level2,
    /// Level 3: every `alloc_tile` has an address; `pto.tassign` is allowed.
    Level3,
}

/// Options of `pto compile`.
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Target profile (`--pto-arch` / `--target`).
    pub target: Option<TargetName>,
    /// `--pto-level`.
    pub level: PtoLevel,
    /// `--enable-insert-sync`: run pto's `insert-sync` pass (as `pto lower --insert-sync`) and
    /// prove its output with the static sync checker before writing the C++.
    pub insert_sync: bool,
    /// Write the C++ here instead of stdout (`-` is stdout).
    pub output: Option<String>,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// The level checks `ptoas` makes before its pipeline: `tassign` needs level 3; level 3 needs
/// addresses; levels 1 and 2 forbid them.
fn level_check(m: &pto_ir::Module, level: PtoLevel) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for op in m.walk() {
        let d = m.op(op);
        let span = m.op_span(op);
        if d.opcode == Opcode::TAssign && level != PtoLevel::Level3 {
            out.push(
                Diagnostic::error(DiagClass::StructPlacement, span, "pto.tassign is only supported when --pto-level=level3")
                    .with_op("pto.tassign"),
            );
        }
        if d.opcode == Opcode::AllocTile {
            let has_addr = matches!(&d.payload, pto_ir::Payload::Segments(s) if s.first() == Some(&1));
            if level == PtoLevel::Level3 && !has_addr {
                out.push(
                    Diagnostic::error(
                        DiagClass::StructPlacement,
                        span,
                        "--pto-level=level3 requires an address on every alloc_tile (`alloc_tile addr = %a`)",
                    )
                    .with_op("pto.alloc_tile"),
                );
            }
            if level != PtoLevel::Level3 && has_addr {
                out.push(
                    Diagnostic::error(DiagClass::StructPlacement, span, "alloc_tile addresses are only allowed with --pto-level=level3")
                        .with_op("pto.alloc_tile"),
                );
            }
        }
    }
    out
}

/// Runs `pto compile`.
pub fn run(opts: &CompileOptions) -> Outcome {
    let mut sources = SourceMap::default();
    let fail = |sources: &SourceMap, d: &[Diagnostic]| Outcome::diagnostics(sources, d, opts.error_format);
    let (_, module, mut warnings) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return failed,
    };
    let level_errors = level_check(&module, opts.level);
    if !level_errors.is_empty() {
        return fail(&sources, &level_errors);
    }
    if module.level() == Level::Level1 && opts.level == PtoLevel::Level3 {
        return Outcome::usage_error("--pto-level=level3 needs tile buffers with addresses, not Level-1 tile values");
    }
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
    let pipeline = pto_lower::PipelineOptions { insert_sync: opts.insert_sync, ..Default::default() };
    let (lowered, more) = match pto_lower::run(verified, target, pipeline) {
        Ok(ok) => ok,
        Err(diags) => return fail(&sources, &diags.0),
    };
    if opts.insert_sync
        && let Err(diags) = crate::cmd::lower::prove_sync(&lowered, target, &opts.input)
    {
        return fail(&sources, &diags);
    }
    warnings.0.extend(shown_notes(more.0, false));
    let text = match crate::compile::compile(&lowered, target) {
        Ok(t) => t,
        Err(diags) => {
            let mut all = warnings.0;
            all.extend(diags.0);
            return fail(&sources, &all);
        }
    };
    let stderr = render(&sources, &warnings.0, opts.error_format);
    match opts.output.as_deref() {
        None | Some("-") => Outcome { stdout: text, stderr, code: 0 },
        Some(path) => match std::fs::write(path, text) {
            Ok(()) => Outcome { stdout: String::new(), stderr, code: 0 },
            Err(e) => Outcome::usage_error(format!("cannot write `{path}`: {e}")),
        },
    }
}
