//! `pto fmt`: print a file back canonically, in its own form or converted with `--to`, keeping
//! its comments.

use crate::render::render;
use crate::{ErrorFormat, Outcome, load_module};
use pto_asm::{PrintOptions, print_module_with_comments};
use pto_ir::TextForm;
use pto_ir::diag::SourceMap;

/// Options of `pto fmt`.
#[derive(Debug, Clone)]
pub struct FmtOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Convert tile ops to this form (`as` or `ssa`; Level-1 programs only).
    pub to: Option<TextForm>,
    /// Print every op in MLIR's generic form.
    pub generic: bool,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// Runs `pto fmt`.
pub fn run(opts: &FmtOptions) -> Outcome {
    let mut sources = SourceMap::default();
    let (file, module, warnings) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return failed,
    };
    let comments = pto_asm::comments(sources.get(file).map_or("", |f| f.text.as_str()));
    match print_module_with_comments(&module, &PrintOptions { form: opts.to, generic: opts.generic }, &comments) {
        Ok(text) => Outcome { stdout: text, stderr: render(&sources, &warnings.0, opts.error_format), code: 0 },
        Err(e) => Outcome::usage_error(e.0),
    }
}
