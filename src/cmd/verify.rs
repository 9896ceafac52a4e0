//! `pto verify`: parse and run the structural verifier; with `--target`, also the target's
//! legality checks (the `legalize` pass of the lowering pipeline, which changes nothing).

use crate::render::render;
use crate::{ErrorFormat, Outcome, TargetName, load_module};
use pto_ir::diag::SourceMap;
use pto_ir::verify::verify;

/// Options of `pto verify`.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    /// Input path (`-` for stdin).
    pub input: String,
    /// Target profile.
    pub target: Option<TargetName>,
    /// Diagnostic format.
    pub error_format: ErrorFormat,
}

/// Runs `pto verify`.
pub fn run(opts: &VerifyOptions) -> Outcome {
    let mut sources = SourceMap::default();
    let (file, module, mut diags) = match load_module(&opts.input, &mut sources, opts.error_format) {
        Ok(loaded) => loaded,
        Err(failed) => return failed,
    };
    diags.0.extend(verify(&module).0);
    if let (Some(t), false) = (opts.target, diags.has_errors()) {
        let target = pto_lower::Target::get(match t {
            TargetName::A2A3 => pto_lower::TargetId::A2A3,
            TargetName::A5 => pto_lower::TargetId::A5,
        });
        // Errors and warnings (e.g. LEGAL_F64_EXTENSION) of the target tables; nothing changes.
        diags.0.extend(pto_lower::legalize::check_module(&module, pto_lower::legality::table(target.id)).0);
    }
    let code = if diags.has_errors() { 1 } else { 0 };
    let stdout = if code == 0 {
        let name = sources.get(file).map(|f| f.name.clone()).unwrap_or_default();
        let target = match opts.target {
            Some(TargetName::A2A3) => ", target a2a3",
            Some(TargetName::A5) => ", target a5",
            None => "",
        };
        format!("{name}: ok ({:?}, {} ops{target})\n", module.level(), module.walk().len())
    } else {
        String::new()
    };
    Outcome { stdout, stderr: render(&sources, &diags.0, opts.error_format), code }
}
