//! Branch exploration on the machine (`pto verify --sync` of a kernel of several cores, blocks
//! or ranks): successive runs of the whole machine take both outcomes of every `scf.if` whose
//! condition is **uniform** — the same value on every core of a rank, because it is computed
//! only from constants and the kernel's unbound scalar arguments (`arith` ops over them,
//! through `func.call`s) — and every combination of such conditions, as [`super::paths`] does
//! for one core.
//!
//! Kernel arguments the user binds (`--input NAME=VALUE`, `NAME@RANK=VALUE`) keep their values:
//! what depends on them is not explored. A uniform condition is decided once per run, and every
//! core of every rank takes that outcome wherever it evaluates the same expression (the cube's `scf.if %flag { tpush }` and
//! the vectors' `scf.if %flag { tpop }` agree), so a path never pairs a push with a missing pop
//! that no input could produce. A condition that depends on the core (`get_block_idx`,
//! `get_subblock_idx`), on a loop's induction variable or on data takes its real outcome, as do
//! loops with a dynamic trip count; the caller says so in a note.

use pto_ir::diag::Diagnostic;
use pto_ir::module::{BlockId, Module, OpId, Payload, ValueDef, ValueId};
use pto_ir::ops::Family;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// The uniform values of a module: each one's key (equal keys: the same expression of the
/// same arguments and constants). The kernel arguments named in `fixed` (bound by the user:
/// their value is given, on every rank or per rank) are not uniform: what depends on them takes
/// its real outcome.
pub fn uniform_keys(m: &Module, fixed: &std::collections::HashSet<String>) -> HashMap<ValueId, u64> {
    let mut owner: HashMap<BlockId, OpId> = HashMap::new();
    let mut calls: HashMap<&str, Vec<OpId>> = HashMap::new();
    for op in m.walk() {
        let data = m.op(op);
        for &r in &data.regions {
            for &b in &m.region(r).blocks {
                owner.insert(b, op);
            }
        }
        if let Payload::Call { callee, .. } = &data.payload {
            calls.entry(callee.as_str()).or_default().push(op);
        }
    }
    let cx = Cx { m, owner, calls, fixed };
    // One memo for every value: each expression is hashed once (linear in the module).
    let mut memo = HashMap::new();
    for v in 0..m.values.len() {
        cx.key(ValueId(v as u32), &mut memo, 0);
    }
    memo.into_iter().filter_map(|(v, k)| Some((v, k?))).collect()
}

struct Cx<'a> {
    m: &'a Module,
    owner: HashMap<BlockId, OpId>,
    calls: HashMap<&'a str, Vec<OpId>>,
    fixed: &'a std::collections::HashSet<String>,
}

/// How deep a key follows operands and calls (a deeper expression is not uniform).
const MAX_DEPTH: u32 = 64;

impl Cx<'_> {
    fn key(&self, v: ValueId, memo: &mut HashMap<ValueId, Option<u64>>, depth: u32) -> Option<u64> {
        if let Some(k) = memo.get(&v) {
            return *k;
        }
        if depth > MAX_DEPTH {
            return None;
        }
        memo.insert(v, None);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        let k = match self.m.values[v.index()].def {
            ValueDef::OpResult(op, n) => {
                let data = self.m.op(op);
                if data.opcode.spec().family != Family::Arith {
                    return None;
                }
                (data.opcode as u32, n, format!("{:?}{:?}", data.attrs, data.payload)).hash(&mut h);
                for &o in &data.operands {
                    self.key(o, memo, depth + 1)?.hash(&mut h);
                }
                Some(h.finish())
            }
            ValueDef::BlockArg(..) if self.fixed.contains(&self.m.values[v.index()].name) => None,
            ValueDef::BlockArg(b, n) => match self.owner.get(&b) {
                // A `.arg` of a file without functions: a kernel argument.
                None => {
                    ("arg", b.0, n).hash(&mut h);
                    Some(h.finish())
                }
                Some(&f) => match &self.m.op(f).payload {
                    Payload::Func { name, .. } if self.m.region(self.m.op(f).regions[0]).blocks.first() == Some(&b) => {
                        match self.calls.get(name.as_str()) {
                            // The kernel's own parameter.
                            None => {
                                ("param", name.as_str(), n).hash(&mut h);
                                Some(h.finish())
                            }
                            // A callee's parameter: the argument every call passes, if it is one.
                            Some(sites) => {
                                let mut keys = sites
                                    .iter()
                                    .map(|&c| self.m.op(c).operands.get(n as usize).and_then(|&a| self.key(a, memo, depth + 1)));
                                let first = keys.next().flatten()?;
                                keys.all(|k| k == Some(first)).then_some(first)
                            }
                        }
                    }
                    // Loop induction variables and carried values, other blocks' arguments.
                    _ => None,
                },
            },
        };
        memo.insert(v, k);
        k
    }
}

/// The decisions of the machine's runs ([`super::paths::Explorer`] over the uniform
/// conditions) and what the runs found.
#[derive(Debug, Default)]
pub struct MachineBranches {
    explorer: super::paths::Explorer,
    /// The uniform values of the module the runs execute (computed on the first decision).
    keys: Option<HashMap<ValueId, u64>>,
    /// Kernel arguments the user bound (not explored).
    fixed: std::collections::HashSet<String>,
    /// This run's outcome of each uniform condition.
    decided: HashMap<u64, bool>,
    /// `scf.if`s whose condition is not uniform, reached in any run (they took their real
    /// outcome).
    pub unexplored: std::collections::BTreeSet<u32>,
    /// What the runs found (hazards, sync errors, notes), in order, repeats included.
    pub found: Vec<Diagnostic>,
    /// Runs after the first that stopped at a trap (an infeasible path, an op the simulator
    /// cannot run), and the first such trap; a trap of the first run is a finding.
    pub trapped: (usize, Option<Diagnostic>),
}

/// Branch exploration shared by every core of the machine's runs.
pub type SharedBranches = Arc<Mutex<MachineBranches>>;

impl MachineBranches {
    /// A new exploration (the first run takes the real outcome of every condition) that leaves
    /// the kernel arguments named in `fixed` (bound by the user) at their values.
    pub fn shared(fixed: impl IntoIterator<Item = String>) -> SharedBranches {
        Arc::new(Mutex::new(MachineBranches { fixed: fixed.into_iter().collect(), ..MachineBranches::default() }))
    }

    /// Starts the next run; `false` when every combination has been taken.
    pub fn next_run(&mut self) -> bool {
        self.decided.clear();
        self.explorer.next_run()
    }

    /// Runs started.
    pub fn runs(&self) -> usize {
        self.explorer.runs
    }

    /// A run stopped with `diagnostics`: a deadlock or another sync error is a finding, any
    /// other stop a trap.
    pub fn stopped(&mut self, diagnostics: &[Diagnostic]) {
        let sync = |d: &Diagnostic| d.class.as_str().starts_with("SYNC_") || d.class.as_str().starts_with("HAZARD_");
        if diagnostics.iter().any(sync) {
            self.found.extend(diagnostics.iter().cloned());
        } else if self.explorer.runs == 1 {
            // The first run takes every condition's real outcome: the path the inputs take is
            // reachable, so its trap is an error (as in `pto run`), not an unchecked path.
            self.found.extend(
                diagnostics.iter().filter(|d| d.is_error()).cloned().map(|d| {
                    d.with_note("this is the path the inputs take (every branch with its real outcome): `pto run` stops here too")
                }),
            );
        } else {
            self.trapped.0 += 1;
            if self.trapped.1.is_none() {
                self.trapped.1 = diagnostics.first().cloned();
            }
        }
    }

    /// The outcome of `scf.if` `op` of module `m`, whose condition `cond` is `natural` on this
    /// core. A uniform condition is the same value on every core and rank (the arguments it
    /// depends on are unbound, so every rank has their default): one outcome per run for all.
    pub fn decide(&mut self, m: &Module, op: OpId, cond: ValueId, natural: bool) -> bool {
        let fixed = &self.fixed;
        let keys = self.keys.get_or_insert_with(|| uniform_keys(m, fixed));
        let Some(&key) = keys.get(&cond) else {
            self.unexplored.insert(op.0);
            return natural;
        };
        if let Some(&taken) = self.decided.get(&key) {
            return taken;
        }
        let taken = self.explorer.decide(super::paths::Decision::Branch, natural);
        self.decided.insert(key, taken);
        taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KERNEL: &str = r#"
module {
  func.func @k(%mode: i32, %n: index) attributes {pto.entry} {
    func.call @a(%mode) : (i32) -> ()
    func.call @b(%mode) : (i32) -> ()
    return
  }
  func.func private @a(%x: i32) {
    %z = arith.constant 0 : i32
    %ca = arith.cmpi ne, %x, %z : i32
    return
  }
  func.func private @b(%y: i32) {
    %z = arith.constant 0 : i32
    %cb = arith.cmpi ne, %y, %z : i32
    %one = arith.constant 1 : i32
    %cone = arith.cmpi ne, %y, %one : i32
    %sb = pto.get_subblock_idx
    %c0 = arith.constant 0 : i64
    %first = arith.cmpi eq, %sb, %c0 : i64
    return
  }
}
"#;

    fn value(m: &Module, name: &str) -> ValueId {
        ValueId(m.values.iter().position(|v| v.name == name).unwrap_or_else(|| panic!("%{name}")) as u32)
    }

    #[test]
    fn a_condition_on_an_argument_has_one_key_in_every_function_it_reaches() {
        let (m, _) = pto_asm::parse(KERNEL, pto_ir::diag::FileId(0)).expect("parses");
        let keys = uniform_keys(&m, &Default::default());
        let key = |n: &str| keys.get(&value(&m, n)).copied();
        assert!(key("ca").is_some());
        assert_eq!(key("ca"), key("cb"), "the same test of the same argument through two calls");
        assert_ne!(key("ca"), key("cone"), "another constant");
        assert_eq!(key("first"), None, "a test of the core's index is not uniform");
        // A bound argument is not explored.
        let fixed = ["mode".to_string()].into_iter().collect();
        let keys = uniform_keys(&m, &fixed);
        assert_eq!(keys.get(&value(&m, "ca")), None);
    }
}
