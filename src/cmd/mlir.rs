//! `pto mlir export|import`: MLIR interop through melior (the `mlir` cargo feature; see
//! docs/mlir.md). Without the feature the subcommand exists and explains how to get it.

use crate::{ErrorFormat, Outcome};
use pto_ir::TextForm;

/// What a build without the `mlir` feature answers (exit code 2).
pub const WITHOUT_FEATURE: &str = "built without the mlir feature; rebuild with --features mlir (see README)";

/// Options of `pto mlir export`.
#[derive(Debug, Clone)]
pub struct ExportOptions {
    /// Input `.pto` path (`-` for stdin).
    pub input: String,
    /// Write here instead of stdout (required with `bytecode`).
    pub output: Option<String>,
    /// Write MLIR bytecode instead of text.
    pub bytecode: bool,
    /// Run the structural verifier first (`--no-verify` turns it off).
    pub verify: bool,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// Options of `pto mlir import`.
#[derive(Debug, Clone)]
pub struct ImportOptions {
    /// Input MLIR path, text or bytecode (`-` for stdin).
    pub input: String,
    /// Print tile ops in this form (`as` or `ssa`) instead of the module's own.
    pub to: Option<TextForm>,
    /// Run the structural verifier on the imported module (`--no-verify` turns it off).
    pub verify: bool,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// Runs `pto mlir export`.
pub fn export(opts: &ExportOptions) -> Outcome {
    #[cfg(feature = "mlir")]
    return with_mlir::export(opts);
    #[cfg(not(feature = "mlir"))]
    {
        let _ = opts;
        Outcome::usage_error(WITHOUT_FEATURE)
    }
}

/// Runs `pto mlir import`.
pub fn import(opts: &ImportOptions) -> Outcome {
    #[cfg(feature = "mlir")]
    return with_mlir::import(opts);
    #[cfg(not(feature = "mlir"))]
    {
        let _ = opts;
        Outcome::usage_error(WITHOUT_FEATURE)
    }
}

#[cfg(feature = "mlir")]
mod with_mlir {
    use super::{ExportOptions, ImportOptions};
    use crate::mlir::{self, BYTECODE_MAGIC, Format};
    use crate::render::render;
    use crate::{ErrorFormat, Outcome, load_module};
    use pto_asm::print::{PrintOptions, print_module};
    use pto_ir::diag::{Diagnostics, SourceMap};

    fn failed(sources: &SourceMap, diags: &Diagnostics, format: ErrorFormat) -> Outcome {
        Outcome::diagnostics(sources, &diags.0, format)
    }

    pub(super) fn export(opts: &ExportOptions) -> Outcome {
        if opts.bytecode && opts.output.is_none() {
            return Outcome::usage_error("--bytecode writes binary output: give a file with -o");
        }
        let mut sources = SourceMap::default();
        let (_, module, mut diags) = match load_module(&opts.input, &mut sources, opts.error_format) {
            Ok(loaded) => loaded,
            Err(failed) => return failed,
        };
        if opts.verify {
            diags.0.extend(pto_ir::verify::verify(&module).0);
            if diags.has_errors() {
                return failed(&sources, &diags, opts.error_format);
            }
        }
        let format = if opts.bytecode { Format::Bytecode } else { Format::Text };
        let bytes = match mlir::export(&module, &sources, format) {
            Ok(b) => b,
            Err(e) => {
                diags.0.extend(e.0);
                return failed(&sources, &diags, opts.error_format);
            }
        };
        let stderr = render(&sources, &diags.0, opts.error_format);
        match &opts.output {
            Some(path) => match std::fs::write(path, &bytes) {
                Ok(()) => Outcome { stdout: String::new(), stderr, code: 0 },
                Err(e) => Outcome::usage_error(format!("cannot write `{path}`: {e}")),
            },
            None => Outcome { stdout: String::from_utf8_lossy(&bytes).into_owned(), stderr, code: 0 },
        }
    }

    /// Reads the input as bytes; text inputs (everything but bytecode) must be UTF-8 and go into
    /// the source map, where MLIR's locations point.
    fn read_mlir(path: &str, sources: &mut SourceMap) -> Result<(pto_ir::FileId, Vec<u8>), String> {
        let (name, bytes) = if path == "-" {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map_err(|e| format!("cannot read stdin: {e}"))?;
            ("<stdin>".to_string(), b)
        } else {
            (path.to_string(), std::fs::read(path).map_err(|e| format!("cannot read `{path}`: {e}"))?)
        };
        if bytes.starts_with(BYTECODE_MAGIC) {
            return Ok((sources.add(name, String::new()), bytes));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            format!("`{name}` is neither MLIR bytecode nor UTF-8 text (invalid byte at offset {})", e.utf8_error().valid_up_to())
        })?;
        let bytes = text.as_bytes().to_vec();
        Ok((sources.add(name, text), bytes))
    }

    pub(super) fn import(opts: &ImportOptions) -> Outcome {
        let mut sources = SourceMap::default();
        let (file, bytes) = match read_mlir(&opts.input, &mut sources) {
            Ok(ok) => ok,
            Err(e) => return Outcome::usage_error(e),
        };
        let (module, mut diags) = match mlir::import(&bytes, file, &sources) {
            Ok(ok) => ok,
            Err(diags) => return failed(&sources, &diags, opts.error_format),
        };
        if opts.verify {
            diags.0.extend(pto_ir::verify::verify(&module).0);
            if diags.has_errors() {
                return failed(&sources, &diags, opts.error_format);
            }
        }
        match print_module(&module, &PrintOptions { form: opts.to, ..Default::default() }) {
            Ok(text) => Outcome { stdout: text, stderr: render(&sources, &diags.0, opts.error_format), code: 0 },
            Err(e) => Outcome::usage_error(e.0),
        }
    }
}
