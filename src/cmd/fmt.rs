//! `pto fmt`: print a file back canonically, in its own form or converted with `--to`.

use crate::render::render;
use crate::{ErrorFormat, Outcome, parse_file, read_input};
use pto_asm::print::{PrintOptions, print_module};
use pto_ir::TextForm;
use pto_ir::diag::SourceMap;

/// Options of `pto fmt`.
#[derive(Debug, Clone)]
pub struct FmtOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Convert tile ops to this form (`as` or `ssa`; Level-1 programs only).
    pub to: Option<TextForm>,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// Runs `pto fmt`.
pub fn run(opts: &FmtOptions) -> Outcome {
    let mut sources = SourceMap::default();
    let file = match read_input(&opts.input, &mut sources) {
        Ok(f) => f,
        Err(e) => return Outcome::usage_error(e),
    };
    match parse_file(&sources, file) {
        Ok((module, warnings)) => match print_module(&module, &PrintOptions { form: opts.to }) {
            Ok(text) => Outcome { stdout: text, stderr: render(&sources, &warnings.0, opts.error_format), code: 0 },
            Err(e) => Outcome::usage_error(e.0),
        },
        Err(diags) => Outcome { stdout: String::new(), stderr: render(&sources, &diags.0, opts.error_format), code: 1 },
    }
}
