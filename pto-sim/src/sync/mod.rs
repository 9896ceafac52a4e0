//! Pipes and synchronisation: a happens-before checker for the sync ops of a kernel.
//!
//! * [`model`] — the model itself: actors `(core, pipe)` with vector clocks, per-pipe queues,
//!   flags, barriers, buffer ids, and shadow memory of byte ranges; knows neither the IR nor
//!   the interpreter, and is unit-tested on its own.
//! * [`rules`] — what each target requires (same-pipe order, event ids), with sources.
//! * [`effects`] — what one op is to the model: its pipe and byte ranges, or its edge.
//! * [`check`] — the dynamic checker `pto run` uses: the interpreter reports each op before
//!   executing it; findings become `HAZARD_*` / `SYNC_*` diagnostics.
//! * [`paths`], [`branches`] — the paths `pto verify --sync` explores on one core and on the
//!   machine.
//!
//! docs/sync.md describes the model and the diagnostics for users.

pub mod arrays;
pub mod branches;
pub mod check;
pub mod effects;
pub mod graph;
pub mod intervals;
pub mod model;
pub mod rules;

pub use check::Checker;
pub use effects::has_explicit_sync;
pub mod paths;

use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::Module;

/// Checks `sim`'s synchronisation while it runs: installs a [`Checker`] as its observer (or
/// restarts the one it has, keeping what it decoded of the module); the findings are
/// [`crate::Sim::sync_diagnostics`] after the run.
pub fn check(sim: &mut crate::Sim<'_>) {
    let target = sim.target().id;
    if let Some(o) = sim.observer_mut() {
        o.restart(target);
        return;
    }
    let names = sim.gm_arrays().iter().map(|a| a.name.clone()).collect();
    let checker = Checker::new(sim.module(), target, names);
    sim.observe_with(Box::new(checker));
}

/// What [`check_paths`] found.
#[derive(Debug)]
pub struct PathCheck {
    /// The findings, each once, and the `SYNC_NOT_CHECKED` notes.
    pub found: Vec<Diagnostic>,
    /// Paths explored.
    pub paths: usize,
    /// Of those, the paths whose run trapped: not checked.
    pub trapped: usize,
}

impl PathCheck {
    /// The summary line of a check without errors: `sync: ok (N paths)` only when every path
    /// was checked.
    pub fn summary(&self) -> String {
        match (self.trapped, self.paths) {
            (0, n) => format!("sync: ok ({n} paths)"),
            (t, n) if t == n => format!("sync: not checked: every one of the {n} paths stopped at a trap (see the note)"),
            (t, n) => format!("sync: ok on {} of {n} paths; {t} stopped at a trap and were not checked (see the note)", n - t),
        }
    }
}

/// Paths `pto verify --sync` explores at most.
pub const MAX_PATHS: usize = 512;

/// The static check (`pto verify --sync`): the dynamic checker over every path of the lowered
/// module `m` ([`paths`]: both sides of each `scf.if`, every iteration count of each loop with
/// a dynamic trip count up to the fixpoint of its head state), with default inputs. Each
/// finding is reported once (by class and location); a path whose run traps (an index out of
/// range on an infeasible path) contributes nothing, and a note counts such paths and shows the
/// first trap (so that a program the simulator cannot run is not `sync: ok` unchecked); a loop
/// that reached [`paths::MAX_ITERATIONS`] without a fixpoint gets a note.
pub fn check_paths(m: &Module, target: &'static pto_lower::Target) -> Result<PathCheck, Vec<Diagnostic>> {
    let mut explorer = Some(Box::new(paths::Explorer::new(m)));
    let mut bounded = Vec::new();
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut runs = 0;
    let mut trapped: (usize, Option<Diagnostic>) = (0, None);
    while let Some(mut e) = explorer.take() {
        if !e.next_run() {
            break;
        }
        runs = e.runs;
        if runs > MAX_PATHS {
            runs = MAX_PATHS;
            found.push(Diagnostic::note(
                DiagClass::SyncNotChecked,
                Default::default(),
                format!("the program has more than {MAX_PATHS} paths: only the first {MAX_PATHS} were checked"),
            ));
            break;
        }
        let mut sim = crate::Sim::new(m, target)?;
        sim.use_default_inputs();
        sim.max_steps = 10_000_000;
        check(&mut sim);
        sim.explorer = Some(e);
        let ran = sim.run();
        let diags = match ran {
            Ok(()) => sim.sync_diagnostics(),
            Err(trap) => {
                trapped.0 += 1;
                trapped.1.get_or_insert(trap);
                Vec::new()
            }
        };
        explorer = sim.explorer.take();
        if let Some(e) = &explorer {
            bounded.clone_from(&e.bounded);
        }
        for d in diags {
            let key = (d.class, d.span.start, d.labels.first().map(|l| l.0.start));
            if seen.insert(key) {
                found.push(d);
            }
        }
    }
    for l in bounded {
        found.push(Diagnostic::note(
            DiagClass::SyncNotChecked,
            m.op_span(pto_ir::OpId(l)),
            format!(
                "the sync state at the head of this loop did not repeat within {} iterations: paths with more iterations were not checked",
                paths::MAX_ITERATIONS
            ),
        ));
    }
    if let (n, Some(first)) = trapped {
        found.push(Diagnostic::note(
            DiagClass::SyncNotChecked,
            first.span,
            format!(
                "{n} of {runs} paths stopped at a trap and were not checked (the first: {}; an infeasible path, or an op the simulator cannot run)",
                first.message
            ),
        ));
    }
    Ok(PathCheck { found, paths: runs, trapped: trapped.0 })
}
