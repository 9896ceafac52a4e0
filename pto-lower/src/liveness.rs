//! Program positions and live ranges, shared by `bufferize` and `plan-memory`.
//!
//! Every op gets a position in a pre-order walk (its index in [`Module::walk`]) and an end
//! position (the last position inside its regions, or itself). A value is live from its
//! definition to its last use; a use inside a loop (`scf.for` / `scf.while`) keeps a value
//! defined outside that loop alive until the loop ends, because the next iteration may read it
//! again. Values defined inside a loop body are live within one iteration only. The result of a
//! reinterpreting cast (`treshape`, `bitcast`) aliases its operand, which stays live as long.

use pto_ir::module::{Module, OpId, ValueDef, ValueId};
use pto_ir::ops::Opcode;

/// Positions and last uses of a module.
#[derive(Debug)]
pub struct Liveness {
    /// Walk position of each op (`u32::MAX` when the op is not placed).
    pub pos: Vec<u32>,
    /// Last position inside each op's regions (== `pos` for ops without regions).
    pub end: Vec<u32>,
    /// Parent op of each op (the op owning the region it sits in), if any.
    pub parent: Vec<Option<OpId>>,
    /// Position of the definition of each value.
    pub def: Vec<u32>,
    /// Position of the last use of each value (== `def` when unused).
    pub last_use: Vec<u32>,
}

/// Ops whose result is another name for their operand's storage.
pub fn is_alias(op: Opcode) -> bool {
    matches!(op, Opcode::TReshape | Opcode::Bitcast)
}

fn is_loop(op: Opcode) -> bool {
    matches!(op, Opcode::ScfFor | Opcode::ScfWhile)
}

impl Liveness {
    /// Computes positions and live ranges.
    pub fn compute(m: &Module) -> Liveness {
        let walk = m.walk();
        let mut pos = vec![u32::MAX; m.ops.len()];
        for (i, &op) in walk.iter().enumerate() {
            pos[op.index()] = i as u32;
        }
        let mut end = pos.clone();
        let mut parent = vec![None; m.ops.len()];
        // Parents and ends: walk regions of each op.
        for &op in walk.iter().rev() {
            let mut last = pos[op.index()];
            for &r in &m.op(op).regions {
                for &b in &m.region(r).blocks {
                    for &inner in &m.block(b).ops {
                        parent[inner.index()] = Some(op);
                        last = last.max(end[inner.index()]);
                    }
                }
            }
            end[op.index()] = last;
        }
        let mut def = vec![0u32; m.values.len()];
        for (i, v) in m.values.iter().enumerate() {
            def[i] = match v.def {
                ValueDef::OpResult(op, _) => pos.get(op.index()).copied().unwrap_or(0),
                ValueDef::BlockArg(b, _) => {
                    // A block argument is defined at the position just before its block's first op.
                    m.block(b).ops.first().map(|o| pos[o.index()].saturating_sub(1)).unwrap_or(0)
                }
            };
        }
        let mut last_use = def.clone();
        for &op in &walk {
            let p = pos[op.index()];
            let data = m.op(op);
            for &v in data.operands.iter().chain(&data.waits) {
                let vi = v.index();
                // Extend the use to the end of every enclosing loop that does not contain the definition.
                let mut use_end = p;
                let mut cur = parent[op.index()];
                while let Some(l) = cur {
                    if is_loop(m.op(l).opcode) && def[vi] < pos[l.index()] {
                        use_end = use_end.max(end[l.index()]);
                    }
                    cur = parent[l.index()];
                }
                last_use[vi] = last_use[vi].max(use_end);
            }
        }
        // A reinterpreting cast (`treshape`, `bitcast`) names the same bytes: its source stays
        // live as long as the result. Reverse order carries the range down chains of casts.
        for &op in walk.iter().rev() {
            let data = m.op(op);
            if is_alias(data.opcode)
                && let (Some(&src), Some(&res)) = (data.operands.first(), data.results.first())
            {
                last_use[src.index()] = last_use[src.index()].max(last_use[res.index()]);
            }
        }
        Liveness { pos, end, parent, def, last_use }
    }

    /// True when `v` is not used after position `p`.
    pub fn dead_after(&self, v: ValueId, p: u32) -> bool {
        self.last_use[v.index()] <= p
    }
}
