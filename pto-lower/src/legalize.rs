//! Pass `legalize` (being implemented; currently leaves the module unchanged).

use crate::pipeline::Changed;
use crate::target::Target;
use pto_ir::diag::Diagnostics;
use pto_ir::module::Module;

/// Runs the pass.
pub fn run(_module: &mut Module, _target: &Target) -> Result<Changed, Diagnostics> {
    Ok(Changed::No)
}
