//! `pto ops`: list the op table (text table or JSON).

use crate::Outcome;
use pto_ir::ops::{self, TmpRule};
use serde_json::json;

/// Options of `pto ops`.
#[derive(Debug, Clone, Default)]
pub struct OpsOptions {
    /// Print JSON instead of a text table.
    pub json: bool,
    /// Only ops of the ISA (those with a pto-isa doc page).
    pub isa_only: bool,
}

fn tmp_text(rule: TmpRule) -> &'static str {
    match rule {
        TmpRule::Forbidden => "-",
        TmpRule::Optional => "optional",
        TmpRule::Required => "required",
        TmpRule::Ignored => "ignored",
    }
}

/// Runs `pto ops`.
pub fn run(opts: &OpsOptions) -> Outcome {
    let specs: Vec<_> = ops::all().iter().filter(|s| !opts.isa_only || !s.page.is_empty()).collect();
    if opts.json {
        let list: Vec<_> = specs
            .iter()
            .map(|s| {
                json!({
                    "name": s.full_name(),
                    "mnemonic": s.name,
                    "aliases": s.aliases,
                    "family": s.family.title(),
                    "syntax": format!("{:?}", s.syntax),
                    "pattern": s.sig,
                    "forms": s.opcode.parsed().forms,
                    "attributes": s.opcode.parsed().attrs,
                    "constraints": s.opcode.parsed().same,
                    "tmp": {"a2a3": tmp_text(s.tmp.a2a3), "a5": tmp_text(s.tmp.a5)},
                    "pipe": format!("{:?}", s.pipe),
                    "isa_page": if s.page.is_empty() { serde_json::Value::Null } else { json!(format!("docs/isa/{}.md", s.page)) },
                    "doc": s.doc,
                })
            })
            .collect();
        let text = serde_json::to_string_pretty(&list).unwrap_or_default();
        return Outcome { stdout: text + "\n", stderr: String::new(), code: 0 };
    }
    let mut out = String::new();
    out.push_str(&format!("{:<26} {:<26} {:<17} {}\n", "OP", "FAMILY", "TMP a2a3/a5", "OPERANDS (ins -> outs)"));
    for s in &specs {
        let pattern = if s.sig.is_empty() { format!("({:?} format)", s.syntax) } else { s.sig.to_string() };
        let tmp = format!("{}/{}", tmp_text(s.tmp.a2a3), tmp_text(s.tmp.a5));
        out.push_str(&format!("{:<26} {:<26} {:<17} {}\n", s.full_name(), s.family.title(), tmp, pattern));
    }
    let isa = ops::all().iter().filter(|s| !s.page.is_empty()).count();
    out.push_str(&format!("\n{} ops listed ({} with a pto-isa page)\n", specs.len(), isa));
    Outcome { stdout: out, stderr: String::new(), code: 0 }
}
