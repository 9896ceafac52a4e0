//! The scratch operand PTOAS's assembly format requires: an op whose PTOAS ODS declares
//! `PTODpsType:$tmp` (not `Optional<...>`) only parses with `tmp` in `ins(...)`, so `ptoas`
//! rejects `pto.trowmax ins(%src : ...) outs(%dst : ...)` at parse time (`expected ','`).
//! The reader does the same for every op written in the DPS form (`ins(...) outs(...)`, or the
//! generic form with outs) whose op-table entry names that declaration
//! ([`pto_ir::ops::OpSpec::ptoas_tmp`]). The Level-1 forms (SSA, PTO-AS short form) may omit
//! `tmp`: `insert-scratch` adds it where the target uses it (docs/scratch.md).

use pto_ir::diag::{DiagClass, Diagnostic, Diagnostics};
use pto_ir::module::Module;
use pto_ir::ops::bind::missing_ptoas_tmp;

/// Reports every DPS op of `m` that leaves out a `tmp` PTOAS's format requires.
pub(super) fn check(m: &Module, diags: &mut Diagnostics) {
    for op in m.walk() {
        let Some(at) = missing_ptoas_tmp(m, op) else { continue };
        let name = m.op(op).opcode.full_name();
        let mut d = Diagnostic::error(
            DiagClass::ParseBadOpSyntax,
            m.op_span(op),
            format!("`{name}` in the DPS form needs its scratch operand `tmp` in `ins(...)`"),
        );
        d.op = Some(name);
        d.operand = Some("tmp".into());
        d.expected = Some("`tmp` as the op's PTOAS format places it".into());
        d.actual = Some("absent".into());
        d.notes.push(if at.starts_with("PTOOps.td") {
            format!(
                "PTOAS's assembly format requires it: `PTODpsType:$tmp` at include/PTO/IR/{at} (hw-native-sys/PTOAS a56b18c3); ptoas fails to parse the op without it"
            )
        } else {
            format!("PTOAS's verifier requires it (lib/PTO/IR/{at}, hw-native-sys/PTOAS a56b18c3)")
        });
        d.notes.push("the Level-1 forms (`%d = pto.op %src : ...`, PTO-AS short form) may omit it; `insert-scratch` then adds one sized for the target (docs/scratch.md)".into());
        diags.push(d);
    }
}
