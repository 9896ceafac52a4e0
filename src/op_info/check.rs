//! Checking a generated example as `pto verify` would: parse, structural verification, then
//! each target's `legalize` on a copy (layout rewrites are notes, anything else an error).

use pto_ir::Module;
use pto_lower::{Target, TargetId};

/// Both targets, in the order `pto ops` reports them.
pub const TARGETS: [TargetId; 2] = [TargetId::A2A3, TargetId::A5];

/// What `pto verify --target T` says about an example.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Legality {
    /// Target name (`a2a3`, `a5`).
    pub target: &'static str,
    /// `None` when the example is legal there, else the first error (`CLASS: message`).
    pub error: Option<String>,
    /// How many tiles `legalize` gives the layout the target fixes (`LEGAL_LAYOUT_REWRITTEN`).
    pub rewritten: usize,
}

impl Legality {
    /// True when the example is legal on this target.
    pub fn ok(&self) -> bool {
        self.error.is_none()
    }
}

/// Parses and structurally verifies `text`; the first error as `CLASS: message` otherwise.
pub fn parse_and_verify(text: &str) -> Result<Module, String> {
    let (module, _) = pto_asm::parse(text, pto_ir::FileId(0)).map_err(|d| first_error(&d.0))?;
    let diags = pto_ir::verify::verify(&module);
    if diags.has_errors() {
        return Err(first_error(&diags.0));
    }
    Ok(module)
}

/// `legalize` for one target on a copy of `module`: the first error, if any.
pub fn legal_on(module: &Module, target: TargetId) -> Option<String> {
    check_on(module, target).error
}

fn check_on(module: &Module, target: TargetId) -> Legality {
    let mut copy = module.clone();
    let mut notes = pto_ir::diag::Diagnostics::default();
    let error = pto_lower::legalize::run(&mut copy, Target::get(target), &mut notes).err().map(|d| first_error(&d.0));
    let rewritten = notes.0.iter().filter(|d| d.class == pto_ir::diag::DiagClass::LegalLayoutRewritten).count();
    Legality { target: Target::get(target).name, error, rewritten }
}

/// [`legal_on`] for both targets.
pub fn legality(module: &Module) -> Vec<Legality> {
    TARGETS.iter().map(|&t| check_on(module, t)).collect()
}

fn first_error(diags: &[pto_ir::Diagnostic]) -> String {
    match diags.iter().find(|d| d.is_error()) {
        Some(d) => format!("{}: {}", d.class, d.message),
        None => "rejected without an error diagnostic".to_string(),
    }
}
