//! The index of every instruction's tile semantics: the tables of the family modules
//! ([`crate::family::SEMANTICS`], [`crate::gather_sort::SEMANTICS`], ...) looked up by opcode.
//! The interpreter asks it how an op executes; the families know nothing of each other or of
//! the interpreter.

use crate::exec::{Semantics, opcode_index};
use pto_ir::ops::Opcode;
use std::sync::OnceLock;

/// Every family's table.
const TABLES: &[&[(Opcode, Semantics)]] = &[
    crate::family::SEMANTICS,
    crate::gather_sort::SEMANTICS,
    crate::region::SEMANTICS,
    crate::region::DEBUG_SEMANTICS,
    crate::gm_ops::SEMANTICS,
    crate::quant::SEMANTICS,
    crate::fixpipe::SEMANTICS,
    crate::fused_convert::SEMANTICS,
    crate::placement::SEMANTICS,
    crate::conv::SEMANTICS,
    crate::tpipe::SEMANTICS,
];

fn index() -> &'static [Option<Semantics>] {
    static INDEX: OnceLock<Vec<Option<Semantics>>> = OnceLock::new();
    INDEX.get_or_init(|| opcode_index(TABLES))
}

/// How `op` executes with tile semantics, if the simulator executes it.
pub fn semantics(op: Opcode) -> Option<Semantics> {
    index().get(op as usize).copied().flatten()
}

/// Every instruction with tile semantics.
pub fn executable() -> impl Iterator<Item = Opcode> {
    TABLES.iter().copied().flatten().map(|&(op, _)| op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_instruction_is_in_two_tables() {
        let mut seen = std::collections::HashSet::new();
        for op in executable() {
            assert!(seen.insert(op), "{op:?} twice");
        }
        assert!(seen.len() > 80, "{} instructions", seen.len());
        assert!(semantics(Opcode::TAdd).is_some());
        assert!(semantics(Opcode::TLoad).is_none(), "tload moves GM data in the interpreter itself");
    }
}
