//! The pass pipeline: ordered passes, re-verification after each, `--stop-after` and
//! `--print-after-all` support.

use crate::target::Target;
use pto_ir::diag::Diagnostics;
use pto_ir::module::Module;
use pto_ir::verify::{Verified, verify};

/// Whether a pass changed the module.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Something changed.
    Yes,
    /// Nothing changed.
    No,
}

/// A pass: a plain function over the module, with the target explicit. What it did that the
/// user may want to know (notes, warnings) goes to the third argument; errors are its `Err`.
pub type PassFn = fn(&mut Module, &Target, &mut Diagnostics) -> Result<Changed, Diagnostics>;

/// The pipeline, in order: (name used by `--stop-after`, function).
pub const PASSES: &[(&str, PassFn)] = &[
    ("legalize", crate::legalize::run),
    ("insert-scratch", crate::scratch::run),
    ("bufferize", crate::bufferize::run),
    ("plan-memory", crate::plan::run),
    ("insert-sync", crate::sync::insert::run),
];

/// Passes that run only when asked for ([`PipelineOptions::insert_sync`]).
pub const OPTIONAL: &[&str] = &["insert-sync"];

/// Called with (pass name, module) after every pass that ran.
pub type PassObserver<'a> = &'a mut dyn FnMut(&str, &Module);

/// Options of [`run`].
#[derive(Default)]
pub struct PipelineOptions<'a> {
    /// Stop after the pass with this name (callers validate it against [`PASSES`]).
    pub stop_after: Option<&'a str>,
    /// Called with (pass name, module) after every pass that ran.
    pub after_pass: Option<PassObserver<'a>>,
    /// Run `insert-sync` (also when `stop_after` names it).
    pub insert_sync: bool,
}

/// Runs the pipeline on a verified module. Returns the lowered module and any warnings.
pub fn run(input: Verified, target: &Target, mut opts: PipelineOptions<'_>) -> Result<(Module, Diagnostics), Diagnostics> {
    let mut warnings = input.warnings.clone();
    let mut module = input.into_module();
    for (name, pass) in PASSES {
        if OPTIONAL.contains(name) && !(opts.insert_sync || opts.stop_after == Some(name)) {
            continue;
        }
        pass(&mut module, target, &mut warnings)?;
        let diags = verify(&module);
        if diags.has_errors() {
            return Err(diags);
        }
        warnings.0.extend(diags.0);
        if let Some(cb) = opts.after_pass.as_deref_mut() {
            cb(name, &module);
        }
        if opts.stop_after == Some(name) {
            break;
        }
    }
    Ok((module, warnings))
}
