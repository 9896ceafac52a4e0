//! The dynamic checker: what the interpreter reports as it executes, fed to the happens-before
//! [`Graph`] — its own on a single core, the machine's on several ([`Checker::share`]) — and
//! its findings as located diagnostics (`HAZARD_RAW`, `HAZARD_WAR`, `HAZARD_WAW`,
//! `SYNC_DEADLOCK`, `SYNC_UNPAIRED`, `SYNC_FLAG_MISUSE`).

use super::effects::{self, SyncOp};
pub use super::graph::Site;
use super::graph::{GM_BASE, Graph};
use super::model::{Access, Actor, Event, Finding, HazardKind, Pipe, Side, Space};
use super::rules;
use crate::value::Val;
use pto_ir::diag::{DiagClass, Diagnostic};
use pto_ir::module::{Module, OpId};
use pto_ir::types::Loc;
use pto_lower::TargetId;
use std::collections::HashSet;
use std::hash::BuildHasherDefault;

/// A cheap hasher for the small integer keys of the dedup sets (one lookup per finding).
#[derive(Default)]
struct FxHasher(u64);

impl std::hash::Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
}

type FastSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;

/// How many hazard diagnostics one run reports (the rest are counted).
pub const MAX_HAZARDS: usize = 50;

/// What the checker knows about one op, decoded on its first execution.
#[derive(Clone)]
enum Decoded {
    /// Not a memory op nor a sync op.
    Nothing,
    /// A sync op whose arguments are all constants.
    Sync(SyncOp),
    /// A sync op with a dynamic event id (decoded at each execution).
    DynSync,
    /// A tile op: its scratch operand, if any.
    Tile { tmp: Option<pto_ir::ValueId> },
    /// A pop: a tile op whose tile is placed as it executes ([`Checker::executed`]).
    Placed,
    /// `tsync`: a fence over its operands' bytes.
    Fence,
}

/// The graph a checker feeds.
enum Engine {
    /// Its own: one core.
    Own(Box<Graph>),
    /// The machine's, shared by the cores under one scheduler: this core's number in it, the
    /// way to it, and the machine's wording of a hazard between cores.
    Shared { core: usize, graph: crate::interp::SharedGraph, render: crate::interp::CrossRender },
}

/// The dynamic sync checker of one run.
pub struct Checker {
    engine: Engine,
    target: TargetId,
    /// Loops running, innermost last, with the iteration each is in.
    loops: Vec<(OpId, u64)>,
    decoded: Vec<Option<Decoded>>,
    accesses: Vec<Access>,
    /// Hazards reported, by (earlier op, later op, kind).
    seen: FastSet<(OpId, OpId, HazardKind)>,
    /// `set_flag`s of a still-set flag reported, by (set, pending set).
    seen_misuse: FastSet<(OpId, OpId)>,
    /// Hazards beyond [`MAX_HAZARDS`].
    more: usize,
    /// The pipe pair `(earlier, later)` of each hazard diagnostic, by its index in `diags`.
    hazard_pipes: Vec<(usize, Pipe, Pipe)>,
    /// The pipe pairs of flags set and never waited: the missing edges ([`rank`]).
    unwaited: Vec<(Pipe, Pipe)>,
    diags: Vec<Diagnostic>,
    /// Hazards with other cores (the machine's wording), each once per op and class.
    cross: Vec<Diagnostic>,
    gm_names: Vec<String>,
}

impl Checker {
    /// A checker for one run on `target`; `gm_names` names the GM arrays (pointer arguments)
    /// in order.
    pub fn new(m: &Module, target: TargetId, gm_names: Vec<String>) -> Checker {
        Checker { decoded: vec![None; m.ops.len()], gm_names, ..Checker::empty(target) }
    }

    /// A fresh checker for another run of the same module, keeping what was decoded.
    pub fn restart(&mut self, target: TargetId) {
        let decoded = std::mem::take(&mut self.decoded);
        let gm_names = std::mem::take(&mut self.gm_names);
        let engine = match std::mem::replace(&mut self.engine, Engine::Own(Box::default())) {
            // A machine's core runs once.
            shared @ Engine::Shared { .. } => shared,
            Engine::Own(_) => Engine::Own(Box::new(Graph::for_core(rules::same_pipe(target)))),
        };
        *self = Checker { decoded, gm_names, engine, ..Checker::empty(target) };
    }

    fn empty(target: TargetId) -> Checker {
        Checker {
            engine: Engine::Own(Box::new(Graph::for_core(rules::same_pipe(target)))),
            target,
            loops: Vec::new(),
            decoded: Vec::new(),
            accesses: Vec::new(),
            seen: FastSet::with_capacity_and_hasher(1024, Default::default()),
            seen_misuse: FastSet::default(),
            more: 0,
            hazard_pipes: Vec::new(),
            unwaited: Vec::new(),
            diags: Vec::new(),
            cross: Vec::new(),
            gm_names: Vec::new(),
        }
    }

    /// From now on this core (number `core` in it) feeds the machine's graph, reached through
    /// `graph`; `render` words its hazards with other cores.
    pub fn share(&mut self, core: usize, graph: crate::interp::SharedGraph, render: crate::interp::CrossRender) {
        let same_pipe = rules::same_pipe(self.target);
        graph(&mut |g: &mut Graph| g.set_exact(core, same_pipe));
        self.engine = Engine::Shared { core, graph, render };
    }

    /// Runs `f` on the graph with this core's number, then turns the core's findings into
    /// diagnostics (all that are left when `end`: this core's checker ended, [`Graph::end`]).
    fn with(&mut self, m: &Module, end: bool, f: impl FnOnce(&mut Graph, usize)) {
        let found = match &mut self.engine {
            Engine::Own(g) => {
                f(g, 0);
                match end {
                    true => g.end(0),
                    false if g.has_findings(0) => g.take(0),
                    false => return,
                }
            }
            Engine::Shared { core, graph, render } => {
                let (core, mut f, mut found, mut cross) = (*core, Some(f), Vec::new(), Vec::new());
                graph(&mut |g: &mut Graph| {
                    if let Some(f) = f.take() {
                        f(g, core);
                    }
                    found = match end {
                        true => g.end(core),
                        false if g.has_findings(core) => g.take(core),
                        false => Vec::new(),
                    };
                    // Hazards with other cores, in the machine's words.
                    found.retain(|x| match g.cross(x) {
                        Some(h) => {
                            cross.push(h);
                            false
                        }
                        None => true,
                    });
                });
                for h in &cross {
                    let d = render(m, h);
                    if !self.cross.iter().any(|c| c.span == d.span && c.class == d.class) {
                        self.cross.push(d);
                    }
                }
                found
            }
        };
        self.collect(m, found);
    }

    /// Submits intra-core sync event `e` to the graph.
    fn submit(&mut self, m: &Module, e: Event<Site>) {
        self.with(m, false, |g, core| g.sync(core, e));
    }

    fn site(&self, op: OpId) -> Site {
        Site { op, iteration: self.loops.last().copied() }
    }

    /// A loop starts iteration `index` (from 0).
    pub fn iteration(&mut self, op: OpId, index: u64) {
        match self.loops.last_mut() {
            Some(l) if l.0 == op => l.1 = index,
            _ => self.loops.push((op, index)),
        }
    }

    /// The sync state abstracted for the static check's loop fixpoint
    /// ([`Model::abstract_state`]; ops by index, GM arrays by stride).
    pub fn loop_state(&self) -> u64 {
        match &self.engine {
            Engine::Own(g) => g.loop_state(),
            Engine::Shared { graph, .. } => {
                let mut state = 0;
                graph(&mut |g: &mut Graph| state = g.loop_state());
                state
            }
        }
    }

    /// A loop ended.
    pub fn loop_done(&mut self, op: OpId) {
        if self.loops.last().is_some_and(|l| l.0 == op) {
            self.loops.pop();
        }
    }

    /// Reports `op`, about to execute with operand values `vals`.
    pub fn observe(&mut self, m: &Module, op: OpId, vals: &[Val]) {
        if self.decoded[op.index()].is_none() {
            self.decoded[op.index()] = Some(decode(m, op, vals));
        }
        let site = self.site(op);
        let Some(decoded) = &self.decoded[op.index()] else { return };
        match decoded {
            Decoded::Nothing => {}
            Decoded::Sync(s) => {
                let s = s.clone();
                self.sync(m, op, site, &s);
            }
            Decoded::DynSync => {
                if let Some(s) = effects::sync_op(m, op, vals) {
                    self.sync(m, op, site, &s);
                }
            }
            Decoded::Fence => {
                let mut ranges = Vec::new();
                effects::fence_ranges(m, op, vals, &mut ranges);
                self.submit(m, Event::Fence { core: 0, ranges, site });
            }
            &Decoded::Tile { tmp } => self.tile_op(m, op, vals, tmp, site),
            Decoded::Placed => {}
        }
    }

    /// Reports `op`, which executed leaving values `vals`: a pop's write of the tile it placed.
    pub fn executed(&mut self, m: &Module, op: OpId, vals: &[Val]) {
        if matches!(self.decoded[op.index()], Some(Decoded::Placed)) {
            let site = self.site(op);
            self.tile_op(m, op, vals, None, site);
        }
    }

    /// Submits the accesses of tile op `op` on its pipe.
    fn tile_op(&mut self, m: &Module, op: OpId, vals: &[Val], tmp: Option<pto_ir::ValueId>, site: Site) {
        let loc = |v: pto_ir::ValueId| if let Val::Tile(t) = vals[v.index()] { Some(t.loc) } else { None };
        let Some(pipe) = effects::pipe_of(m, op, self.target, tmp.is_some(), &loc) else { return };
        let mut accesses = std::mem::take(&mut self.accesses);
        accesses.clear();
        effects::accesses(m, op, self.target, vals, tmp, &mut accesses);
        if !accesses.is_empty() {
            self.with(m, false, |g, core| g.exec(core, pipe, &accesses, site));
        }
        self.accesses = accesses;
    }

    /// Checks a sync op's arguments against the target and submits its edge.
    fn sync(&mut self, m: &Module, op: OpId, site: Site, s: &SyncOp) {
        let misuse = |msg: String| Diagnostic::error(DiagClass::SyncFlagMisuse, m.op_span(op), msg).with_op(m.op(op).opcode.full_name());
        let pipe = |name: &str| Pipe::from_name(name);
        let event = match s {
            &SyncOp::Flag { set, ref src, ref dst, id } => {
                let (Some(s), Some(d)) = (pipe(src), pipe(dst)) else {
                    self.diags.push(misuse(format!("a flag connects two pipes; `{src}` -> `{dst}` is not a pair of pipes")));
                    return;
                };
                if s == d {
                    self.diags.push(
                        misuse(format!("a flag from {src} to itself: order one pipe's ops with `pto.barrier <{src}>`"))
                            .with_expected("two different pipes", format!("{src}, {dst}")),
                    );
                    return;
                }
                let ids = rules::event_ids(self.target);
                if !(0..ids as i64).contains(&id) {
                    self.diags.push(
                        misuse(format!("event id {id} is out of range: {} has EVENT_ID0..EVENT_ID{}", rules::name(self.target), ids - 1))
                            .with_expected(format!("0..{}", ids - 1), id.to_string()),
                    );
                    return;
                }
                let id = id as u32;
                if set { Event::Set { core: 0, src: s, dst: d, id, site } } else { Event::Wait { core: 0, src: s, dst: d, id, site } }
            }
            SyncOp::Barrier(name) if name == "PIPE_ALL" => Event::Barrier { core: 0, pipe: None, site },
            SyncOp::Barrier(name) => match pipe(name) {
                Some(p) => Event::Barrier { core: 0, pipe: Some(p), site },
                None => {
                    self.diags.push(misuse(format!("`{name}` is not a pipe a barrier can wait for")));
                    return;
                }
            },
            &SyncOp::Buf { get, pipe: ref name, id } => {
                let Some(p) = pipe(name) else {
                    self.diags.push(misuse(format!("`{name}` is not a pipe")));
                    return;
                };
                let actor = Actor { core: 0, pipe: p };
                let id = id.max(0) as u32;
                if get { Event::GetBuf { actor, id, site } } else { Event::RlsBuf { actor, id, site } }
            }
        };
        self.submit(m, event);
    }

    /// The end of the kernel: deadlocks and unpaired flags; returns every diagnostic of the
    /// run.
    pub fn finish(&mut self, m: &Module) -> Vec<Diagnostic> {
        self.with(m, true, |_, _| ());
        let (pipes, unwaited) = (std::mem::take(&mut self.hazard_pipes), std::mem::take(&mut self.unwaited));
        let mut diags = rank(std::mem::take(&mut self.diags), &pipes, &unwaited);
        if self.more > 0
            && let Some(last) = diags.iter_mut().rev().find(|d| d.class.as_str().starts_with("HAZARD_"))
        {
            last.notes.push(format!("{} more hazards between other pairs of ops are not shown", self.more));
        }
        diags.append(&mut self.cross);
        diags
    }

    /// Turns the graph's findings into diagnostics.
    fn collect(&mut self, m: &Module, found: Vec<Finding<Site>>) {
        for f in found {
            match f {
                Finding::Hazard { kind, space, start, end, earlier, later } => {
                    if !self.seen.insert((earlier.site.op, later.site.op, kind)) {
                        continue;
                    }
                    if self.seen.len() > MAX_HAZARDS {
                        self.more += 1;
                        continue;
                    }
                    let d = self.hazard(m, kind, space, start, end, &earlier, &later);
                    self.hazard_pipes.push((self.diags.len(), earlier.actor.pipe, later.actor.pipe));
                    self.diags.push(d);
                }
                Finding::SetWhileSet { site, pending } => {
                    if !self.seen_misuse.insert((site.op, pending.op)) {
                        continue;
                    }
                    let d = Diagnostic::error(
                        DiagClass::SyncFlagMisuse,
                        m.op_span(site.op),
                        "sets a flag that is still set: no wait_flag consumed the previous set_flag of this flag",
                    )
                    .with_op(m.op(site.op).opcode.full_name())
                    .with_label(m.op_span(pending.op), format!("set here{}, not waited since", iteration_text(m, pending)));
                    let d = d.with_notes(iteration_note(m, site));
                    self.diags.push(d);
                }
                Finding::ReleaseUnheld { site } => {
                    self.diags.push(
                        Diagnostic::error(
                            DiagClass::SyncFlagMisuse,
                            m.op_span(site.op),
                            "releases a buffer id its pipe does not hold (no get_buf before)",
                        )
                        .with_op(m.op(site.op).opcode.full_name()),
                    );
                }
                Finding::Unpaired { src, dst, id, site } => {
                    self.unwaited.push((src, dst));
                    self.diags.push(
                        Diagnostic::error(
                            DiagClass::SyncUnpaired,
                            m.op_span(site.op),
                            format!("flag ({}, {}, EVENT_ID{id}) is set and never waited before the kernel ends", src.name(), dst.name()),
                        )
                        .with_op(m.op(site.op).opcode.full_name())
                        .with_notes(iteration_note(m, site))
                        .with_note(format!(
                            "add `pto.wait_flag[<{}>, <{}>, <EVENT_ID{id}>]` on every path to the end",
                            src.name(),
                            dst.name()
                        )),
                    );
                }
                Finding::Deadlock { blocked, set_flags } => self.deadlock(m, blocked, set_flags),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn hazard(
        &self,
        m: &Module,
        kind: HazardKind,
        space: Space,
        start: u64,
        end: u64,
        earlier: &Side<Site>,
        later: &Side<Site>,
    ) -> Diagnostic {
        let (class, verb_late, verb_early) = match kind {
            HazardKind::Raw => (DiagClass::HazardRaw, "reads", "wrote"),
            HazardKind::War => (DiagClass::HazardWar, "overwrites", "read"),
            HazardKind::Waw => (DiagClass::HazardWaw, "overwrites", "wrote"),
        };
        let name = |s: &Side<Site>| m.op(s.site.op).opcode.full_name();
        let (ep, lp) = (earlier.actor.pipe, later.actor.pipe);
        let buffer = self.space_name(space);
        let how = if ep == lp {
            format!(
                "`pto.barrier <{}>` between them ({} does not order one pipe's ops on {})",
                ep.name(),
                ep.name(),
                rules::name(self.target)
            )
        } else {
            format!(
                "`pto.set_flag[<{e}>, <{l}>, <EVENT_IDn>]` after the first and `pto.wait_flag[<{e}>, <{l}>, <EVENT_IDn>]` before the second",
                e = ep.name(),
                l = lp.name()
            )
        };
        let d = Diagnostic::error(
            class,
            m.op_span(later.site.op),
            format!(
                "`{}` on {} {verb_late} {buffer}[{start}..{end}) that `{}` on {} {verb_early}, with no sync between them",
                name(later),
                lp.name(),
                name(earlier),
                ep.name()
            ),
        )
        .with_op(name(later))
        .with_label(m.op_span(earlier.site.op), format!("{verb_early} here on {}{}", ep.name(), iteration_text(m, earlier.site)))
        .with_expected(
            if ep == lp {
                format!("a `pto.barrier <{}>` between them", ep.name())
            } else {
                format!("an ordering edge from {} to {}", ep.name(), lp.name())
            },
            "none on this path",
        )
        .with_note(format!(
            "first: `{}` {buffer}[{}..{}){}; then: `{}` {buffer}[{}..{}){}",
            name(earlier),
            earlier.start,
            earlier.end,
            iteration_text(m, earlier.site),
            name(later),
            later.start,
            later.end,
            iteration_text(m, later.site)
        ))
        .with_note(format!("to order them: {how}"));
        loop_labels(m, earlier.site, later.site).into_iter().fold(d, |d, (span, label)| d.with_label(span, label))
    }

    fn deadlock(&mut self, m: &Module, mut blocked: Vec<(Actor, Event<Site>, usize)>, set_flags: Vec<(u16, Pipe, Pipe, u32, Site)>) {
        // Located at the blocked op that comes first in the source.
        blocked.sort_by_key(|(_, e, _)| m.op_span(e.site().op).start);
        let Some((_, first, _)) = blocked.first() else { return };
        let mut d = Diagnostic::error(
            DiagClass::SyncDeadlock,
            m.op_span(first.site().op),
            format!("{} pipe(s) wait forever: the kernel would hang here", blocked.len()),
        )
        .with_op(m.op(first.site().op).opcode.full_name());
        for (actor, e, behind) in &blocked {
            let what = match e {
                Event::Wait { src, dst, id, .. } => {
                    format!("waits for flag ({}, {}, EVENT_ID{id}), which nothing sets before it", src.name(), dst.name())
                }
                Event::Barrier { pipe: None, .. } => "waits at `barrier <PIPE_ALL>` for the other pipes to drain".into(),
                Event::Fence { .. } => "waits at `tsync` for the other pipes to drain".into(),
                Event::GetBuf { id, .. } => format!("waits for buffer id {id}, held by another pipe and never released"),
                _ => "is blocked".into(),
            };
            d = d.with_label(
                m.op_span(e.site().op),
                format!("{} {what}{} ({behind} more ops queued behind it)", actor.pipe.name(), iteration_text(m, e.site())),
            );
            if let Event::Wait { src, dst, id, site, .. } = e
                && let Some(&(_, s2, d2, _, set)) = set_flags.iter().find(|f| f.3 == *id && (f.1 == *src || f.2 == *dst))
            {
                self.diags.push(
                    Diagnostic::error(
                        DiagClass::SyncFlagMisuse,
                        m.op_span(site.op),
                        format!(
                            "waits on ({}, {}, EVENT_ID{id}), but the flag set with this id is ({}, {}): wrong pipe pair?",
                            src.name(),
                            dst.name(),
                            s2.name(),
                            d2.name()
                        ),
                    )
                    .with_op(m.op(site.op).opcode.full_name())
                    .with_label(m.op_span(set.op), "the flag set here"),
                );
            }
        }
        self.diags.push(d);
    }

    fn space_name(&self, space: Space) -> String {
        if space.0 >= GM_BASE {
            let i = (space.0 - GM_BASE) as usize;
            return format!("GM %{}", self.gm_names.get(i).map_or("?", |s| s.as_str()));
        }
        let loc = [Loc::Vec, Loc::Mat, Loc::Left, Loc::Right, Loc::Acc, Loc::Bias, Loc::Scaling, Loc::ScaleLeft, Loc::ScaleRight]
            .into_iter()
            .find(|l| *l as u32 == space.0);
        match loc {
            Some(l) => pto_lower::Target::get(self.target).buffer(l).name.to_string(),
            None => format!("space {}", space.0),
        }
    }
}

/// The root cause first: `diags` (in the order found) stably sorted so that the hazards a missing
/// edge explains — between the two pipes of a flag set and never waited (`unwaited`), i.e. the
/// two ops the deleted `wait_flag` should have ordered — come first, then the flag and deadlock
/// errors that name the edge, then the other hazards (which follow from the missing edge through
/// the pipes ordered after it), then the rest. `hazard_pipes` gives each hazard's pipe pair by
/// index.
fn rank(diags: Vec<Diagnostic>, hazard_pipes: &[(usize, Pipe, Pipe)], unwaited: &[(Pipe, Pipe)]) -> Vec<Diagnostic> {
    let mut keyed: Vec<(u8, Diagnostic)> = diags
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            let key = match hazard_pipes.iter().find(|h| h.0 == i) {
                Some(&(_, e, l)) if unwaited.contains(&(e, l)) => 0,
                Some(_) => 2,
                None if matches!(d.class, DiagClass::SyncUnpaired | DiagClass::SyncDeadlock) => 1,
                None => 3,
            };
            (key, d)
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    keyed.into_iter().map(|(_, d)| d).collect()
}

/// ` (iteration 3 of its loop)`, or nothing outside loops.
fn iteration_text(_m: &Module, site: Site) -> String {
    match site.iteration {
        Some((_, i)) => format!(" (iteration {i} of its loop)"),
        None => String::new(),
    }
}

/// A label on the loop(s) the two ops ran in, with the iterations.
fn loop_labels(m: &Module, earlier: Site, later: Site) -> Vec<(pto_ir::diag::Span, String)> {
    match (earlier.iteration, later.iteration) {
        (Some((a, i)), Some((b, j))) if a == b => {
            vec![(m.op_span(a), format!("first op in iteration {i}, second in iteration {j} of this loop"))]
        }
        (e, l) => e
            .map(|(a, i)| (m.op_span(a), format!("first op in iteration {i} of this loop")))
            .into_iter()
            .chain(l.map(|(b, j)| (m.op_span(b), format!("second op in iteration {j} of this loop"))))
            .collect(),
    }
}

fn iteration_note(m: &Module, site: Site) -> Option<String> {
    site.iteration.map(|_| format!("in{}", iteration_text(m, site)))
}

/// Adds optional notes.
trait WithNotes {
    fn with_notes(self, notes: impl IntoIterator<Item = String>) -> Self;
}

impl WithNotes for Diagnostic {
    fn with_notes(self, notes: impl IntoIterator<Item = String>) -> Self {
        notes.into_iter().fold(self, |d, n| d.with_note(n))
    }
}

fn decode(m: &Module, op: OpId, vals: &[Val]) -> Decoded {
    use pto_ir::ops::Opcode;
    let data = m.op(op);
    let spec = data.opcode.spec();
    if spec.family == pto_ir::ops::Family::Sync {
        return match data.opcode {
            Opcode::SetFlagDyn | Opcode::WaitFlagDyn => Decoded::DynSync,
            Opcode::TSync => Decoded::Fence,
            _ => effects::sync_op(m, op, vals).map_or(Decoded::Nothing, Decoded::Sync),
        };
    }
    if !pto_lower::sync::pipes::is_memory_op(data.opcode) {
        return Decoded::Nothing;
    }
    if pto_lower::sync::pipes::places_its_tile(data.opcode) {
        return Decoded::Placed;
    }
    let tmp = pto_lower::sync::pipes::tmp_of(m, op);
    Decoded::Tile { tmp }
}

impl crate::interp::Observer for Checker {
    fn observe(&mut self, m: &Module, op: OpId, vals: &[Val]) {
        Checker::observe(self, m, op, vals)
    }
    fn executed(&mut self, m: &Module, op: OpId, vals: &[Val]) {
        Checker::executed(self, m, op, vals)
    }
    fn share_graph(&mut self, core: usize, graph: crate::interp::SharedGraph, render: crate::interp::CrossRender) {
        self.share(core, graph, render);
    }
    fn iteration(&mut self, op: OpId, index: u64) {
        Checker::iteration(self, op, index)
    }
    fn loop_done(&mut self, op: OpId) {
        Checker::loop_done(self, op)
    }
    fn loop_state(&self) -> u64 {
        Checker::loop_state(self)
    }
    fn finish(&mut self, m: &Module) -> Vec<Diagnostic> {
        Checker::finish(self, m)
    }
    fn restart(&mut self, target: TargetId) {
        Checker::restart(self, target)
    }
    fn checks_sync(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hazards_a_missing_edge_explains_come_first_then_its_flag_error_then_the_rest() {
        let d = |class, msg: &str| Diagnostic::error(class, Default::default(), msg);
        let found = vec![
            d(DiagClass::HazardRaw, "M after MTE2: follows"),
            d(DiagClass::SyncFlagMisuse, "misuse"),
            d(DiagClass::HazardRaw, "MTE1 after MTE2: explained"),
            d(DiagClass::SyncUnpaired, "MTE2 -> MTE1 never waited"),
            d(DiagClass::HazardWar, "MTE1 after MTE2 again: explained"),
        ];
        let pipes = [(0, Pipe::Mte2, Pipe::M), (2, Pipe::Mte2, Pipe::Mte1), (4, Pipe::Mte2, Pipe::Mte1)];
        let ranked: Vec<String> = rank(found, &pipes, &[(Pipe::Mte2, Pipe::Mte1)]).into_iter().map(|d| d.message).collect();
        assert_eq!(
            ranked,
            [
                "MTE1 after MTE2: explained",
                "MTE1 after MTE2 again: explained",
                "MTE2 -> MTE1 never waited",
                "M after MTE2: follows",
                "misuse"
            ]
        );
    }

    #[test]
    fn without_a_missing_edge_hazards_keep_the_order_found() {
        let d = |msg: &str| Diagnostic::error(DiagClass::HazardRaw, Default::default(), msg);
        let ranked: Vec<String> =
            rank(vec![d("a"), d("b")], &[(0, Pipe::V, Pipe::Mte3), (1, Pipe::Mte2, Pipe::V)], &[]).into_iter().map(|d| d.message).collect();
        assert_eq!(ranked, ["a", "b"]);
    }
}
