//! Split usage across the two ends of a cube/vector pipe, checked before a run and by
//! `pto verify`, as PTOAS's `pto-infer-validate-pipe-init` pass does
//! (`lib/PTO/Transforms/PTOInferValidatePipeInitPass.cpp`, commit a56b18c3):
//!
//! * the data ops of one init (`tpush`/`tpop`/`tfree` on its pipe value, or for a frontend
//!   `aic/aiv_initialize_pipe` the `tpush_to_*`/`tpop_from_*`/`tfree_from_*` of its function)
//!   either all use `split = 0` (no split) or all use `split = 1`/`2` (lines 87-125, 147-151);
//! * inits whose consumer buffers pair them (the same reserved buffer, directly or imported:
//!   [`super::topology`]'s pipe key) are one component; their explicit `nosplit` attributes
//!   agree (lines 153-159), their data ops' usages agree (lines 172-182), and an explicit
//!   `nosplit` agrees with the usage (lines 184-197).
//!
//! Each violation is a located `STRUCT_BAD_ATTRIBUTE` error at the init PTOAS names.

use super::topology::{init_addresses, is_pipe_data_op, op_attr, owners, pipe_key, split_of};
use pto_ir::attr::Attr;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Module, OpId};
use pto_ir::ops::Opcode;
use std::collections::HashMap;

/// How the data ops of one init use `split` (PTOAS's `PipeSplitUsage`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Usage {
    /// No data op.
    Unknown,
    /// Every data op has `split = 1` or `2`.
    Split,
    /// Every data op has `split = 0`.
    NoSplit,
    /// Both.
    Mixed,
}

impl Usage {
    /// The `nosplit` value the usage implies, if it implies one.
    fn no_split(self) -> Option<bool> {
        match self {
            Usage::Split => Some(false),
            Usage::NoSplit => Some(true),
            Usage::Unknown | Usage::Mixed => None,
        }
    }
}

/// One pipe init and what its data ops and attributes say.
struct Init {
    op: OpId,
    usage: Usage,
    explicit: Option<bool>,
}

/// Whether `op` is a frontend data op (`tpush_to_aiv`...), which names no pipe value.
fn is_frontend(op: Opcode) -> bool {
    is_pipe_data_op(op) && !matches!(op, Opcode::TPush | Opcode::TPop | Opcode::TFree)
}

/// The usage of `init`'s data ops (see the module docs).
fn usage(m: &Module, walk: &[OpId], init: OpId, owner: &HashMap<OpId, OpId>) -> Usage {
    let pipe = m.op(init).results.first().copied();
    let users = walk.iter().copied().filter(|&o| {
        let d = m.op(o);
        match pipe {
            Some(p) => is_pipe_data_op(d.opcode) && d.operands.contains(&p),
            None => is_frontend(d.opcode) && owner.get(&o).is_some_and(|f| owner.get(&init) == Some(f)),
        }
    });
    let (mut split, mut no_split) = (false, false);
    for o in users {
        match split_of(m, o) {
            Some(0) => no_split = true,
            Some(_) => split = true,
            None => {}
        }
    }
    match (split, no_split) {
        (true, true) => Usage::Mixed,
        (true, false) => Usage::Split,
        (false, true) => Usage::NoSplit,
        (false, false) => Usage::Unknown,
    }
}

/// The split errors of the module's pipe inits (see the module docs).
pub fn check(m: &Module) -> Vec<Diagnostic> {
    let walk = m.walk();
    let owner = owners(m, &walk);
    let mut inits: Vec<Init> = Vec::new();
    let mut by_key: HashMap<String, Vec<usize>> = HashMap::new();
    for &o in &walk {
        let Some(addrs) = init_addresses(m, o) else { continue };
        let explicit = match op_attr(m, o, "nosplit") {
            Some(Attr::Bool(b)) => Some(*b),
            Some(Attr::Unit) => Some(true),
            _ => None,
        };
        for (dir, v) in addrs.into_iter().enumerate() {
            if let Some(v) = v {
                by_key.entry(pipe_key(m, v, dir, &owner)).or_default().push(inits.len());
            }
        }
        inits.push(Init { op: o, usage: usage(m, &walk, o, &owner), explicit });
    }
    // Components of inits that share a pipe key (union-find over init indices).
    let mut parent: Vec<usize> = (0..inits.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for members in by_key.values() {
        for w in members.windows(2) {
            let (a, b) = (root(&mut parent, w[0]), root(&mut parent, w[1]));
            parent[a.max(b)] = a.min(b);
        }
    }
    let mut components: Vec<Vec<usize>> = Vec::new();
    let mut index: HashMap<usize, usize> = HashMap::new();
    for i in 0..inits.len() {
        let r = root(&mut parent, i);
        let c = *index.entry(r).or_insert_with(|| {
            components.push(Vec::new());
            components.len() - 1
        });
        components[c].push(i);
    }
    components.iter().filter_map(|c| component_error(m, &inits, c)).collect()
}

/// The first error of one component, in PTOAS's order of checks.
fn component_error(m: &Module, inits: &[Init], component: &[usize]) -> Option<Diagnostic> {
    // The message is PTOAS's (which its lit tests check); pto's account of it is a note.
    let at = |i: usize, ptoas: &str, msg: String, expected: &str, actual: &str| {
        let name = m.op(inits[i].op).opcode.full_name();
        Diagnostic::error(DiagClass::StructBadAttribute, m.op_span(inits[i].op), ptoas)
            .with_op(name.clone())
            .with_expected(expected.to_string(), actual.to_string())
            .with_note(format!("`{name}`: {msg}"))
            .with_note("PTOAS's pto-infer-validate-pipe-init pass (PTOInferValidatePipeInitPass.cpp) rejects it")
    };
    const CONFLICT: &str = "conflicting pipe split usage across peer pipe init ops: some data ops use split = 0, others split the tile";
    if let Some(&i) = component.iter().find(|&&i| inits[i].usage == Usage::Mixed) {
        return Some(at(
            i,
            CONFLICT,
            "its pipe ops mix `split = 0` with `split = 1` or `split = 2`; one logical pipe is split or not".into(),
            "one split mode per pipe",
            "both",
        ));
    }
    let first_differing = |value: &dyn Fn(&Init) -> Option<bool>| {
        let mut seen: Option<(usize, bool)> = None;
        for &i in component {
            let Some(v) = value(&inits[i]) else { continue };
            match seen {
                Some((j, w)) if w != v => return Some((j, i, w)),
                None => seen = Some((i, v)),
                _ => {}
            }
        }
        None
    };
    let words = |no_split: bool| if no_split { "no split (split = 0)" } else { "split (split = 1 or 2)" };
    if let Some((j, i, w)) = first_differing(&|x: &Init| x.explicit) {
        let other = m.op(inits[j].op).opcode.full_name();
        return Some(at(
            i,
            "conflicting explicit 'nosplit' across peer pipe init ops",
            format!("its explicit `nosplit` conflicts with the peer `{other}`'s `nosplit = {w}`"),
            &format!("nosplit = {w}"),
            &format!("nosplit = {}", !w),
        ));
    }
    if let Some((j, i, w)) = first_differing(&|x: &Init| x.usage.no_split()) {
        let other = m.op(inits[j].op).opcode.full_name();
        return Some(at(
            i,
            CONFLICT,
            format!(
                "its pipe ops use {} but the peer `{other}`'s use {}: conflicting pipe split usage across peer pipe inits",
                words(!w),
                words(w)
            ),
            words(w),
            words(!w),
        ));
    }
    let inferred = component.iter().find_map(|&i| inits[i].usage.no_split())?;
    let &i = component.iter().find(|&&i| inits[i].explicit.is_some_and(|e| e != inferred))?;
    let ptoas = if inferred {
        "explicit 'nosplit = false' conflicts with downstream users that require split = 0"
    } else {
        "explicit 'nosplit = true' conflicts with downstream users that split the tile"
    };
    Some(at(
        i,
        ptoas,
        format!("explicit `nosplit = {}` conflicts with the pipe ops, which use {}", !inferred, words(inferred)),
        &format!("nosplit = {inferred}"),
        &format!("nosplit = {}", !inferred),
    ))
}
