//! Structured control flow: `scf.for` as a C `for`, `scf.if` as `if`/`else`, `scf.while` as
//! `while (true)` with a break; values carried through them are variables declared before the
//! construct and assigned by its `scf.yield` / `scf.condition`.

use super::{Emitter, cpp};
use pto_ir::module::{BlockId, OpId, ValueId};
use pto_ir::ops::Opcode;
use pto_ir::types::{Dim, TileDesc};

impl Emitter<'_> {
    pub(super) fn control_flow(&mut self, op: OpId) {
        match self.m.op(op).opcode {
            Opcode::ScfFor => self.scf_for(op),
            Opcode::ScfIf => self.scf_if(op),
            Opcode::ScfWhile => self.scf_while(op),
            // Terminators are handled by their parent.
            Opcode::ScfYield | Opcode::ScfCondition => {}
            _ => self.unsupported(op, "only scf.for, scf.if and scf.while are written"),
        }
    }

    /// Declares a carried variable for each of `values` (uninitialised when `init` is empty);
    /// every value in `alias` (block arguments, results) gets the same name. A tile or GM view
    /// (no C++ value to assign) may be carried when every incoming value (`init`, `incoming`,
    /// or the position's own alias) is one and the same: the carried values then stand for it.
    /// Such positions get an empty name, which [`Self::assign`] skips.
    fn carried(
        &mut self,
        op: OpId,
        values: &[ValueId],
        init: &[ValueId],
        alias: &[&[ValueId]],
        incoming: &[Vec<ValueId>],
    ) -> Option<Vec<String>> {
        let mut names = Vec::new();
        for (i, &v) in values.iter().enumerate() {
            let ty = self.m.value_type(v).clone();
            let aliases: Vec<ValueId> = alias.iter().filter_map(|l| l.get(i).copied()).collect();
            let Some(t) = cpp::value_type(&ty) else {
                let mut sources: Vec<ValueId> = init.get(i).copied().into_iter().collect();
                sources.extend(incoming.get(i).into_iter().flatten().copied().filter(|s| !aliases.contains(s) && *s != v));
                sources.dedup();
                let tile = self.tile_desc(v).or_else(|| sources.first().and_then(|&s| self.tile_desc(s)));
                match (sources.as_slice(), tile) {
                    ([one], _) => {
                        for target in std::iter::once(v).chain(aliases) {
                            self.alias_value(target, *one);
                        }
                        names.push(String::new());
                        continue;
                    }
                    (_, Some(desc)) if desc.valid_rows != Dim::Dynamic && desc.valid_cols != Dim::Dynamic => {
                        names.push(self.carried_tile(v, &desc, init.get(i).copied(), &aliases));
                        continue;
                    }
                    _ => {
                        self.unsupported(
                            op,
                            format!("a value of type `{ty}` carried through control flow (different values on different paths)"),
                        );
                        return None;
                    }
                }
            };
            let n = self.name(v);
            match init.get(i) {
                Some(&x) => {
                    let x = self.expr(x);
                    self.line(format!("{t} {n} = {x};"));
                }
                None => self.line(format!("{t} {n};")),
            }
            for a in aliases {
                self.names.insert(a, n.clone());
            }
            names.push(n);
        }
        Some(names)
    }

    /// A tile carried through control flow with a different tile on different paths: a tile
    /// variable of its type, rebound on each path to the storage of the tile that path carries
    /// (`TASSIGN(v, reinterpret_cast<uint64_t>(t.data()))`, the rebinding `ptoas` writes for
    /// `set_validshape`; a `Tile` is not assignable in pto-isa's `__PTO_AUTO__` mode).
    fn carried_tile(&mut self, v: ValueId, desc: &TileDesc, init: Option<ValueId>, aliases: &[ValueId]) -> String {
        let n = self.name(v);
        self.line(format!("{} {n};", cpp::tile(desc)));
        for &a in aliases {
            self.names.insert(a, n.clone());
            self.local.insert(a, *desc);
        }
        self.local.insert(v, *desc);
        self.rebound.insert(n.clone());
        if let Some(x) = init {
            let x = self.expr(x);
            self.line(format!("TASSIGN({n}, reinterpret_cast<uint64_t>({x}.data()));"));
        }
        n
    }

    /// Makes `target` stand for `source`: same name, view, GlobalTensor and tile.
    fn alias_value(&mut self, target: ValueId, source: ValueId) {
        if let Some(n) = self.names.get(&source).cloned() {
            self.names.insert(target, n);
        }
        if let Some(view) = self.views.get(&source).cloned() {
            self.views.insert(target, view);
        }
        if let Some(t) = self.tensors.get(&source).cloned() {
            self.tensors.insert(target, t);
        }
        if let Some(d) = self.local.get(&source).copied() {
            self.local.insert(target, d);
        }
    }

    /// The operands of a block's `scf.yield` / `scf.condition`, without emitting anything.
    fn terminator_operands(&self, b: BlockId) -> Vec<ValueId> {
        match self.m.block(b).ops.last() {
            Some(&l) if matches!(self.m.op(l).opcode, Opcode::ScfYield | Opcode::ScfCondition) => self.m.op(l).operands.clone(),
            _ => Vec::new(),
        }
    }

    /// The ops of `b` but its terminator; returns the terminator's operands.
    fn body_until_terminator(&mut self, b: BlockId) -> Vec<ValueId> {
        let ops = self.m.block(b).ops.clone();
        let (last, rest) = match ops.split_last() {
            Some((&l, r)) if matches!(self.m.op(l).opcode, Opcode::ScfYield | Opcode::ScfCondition) => (Some(l), r.to_vec()),
            _ => (None, ops),
        };
        for op in rest {
            self.op_in_block(op);
        }
        last.map(|l| self.m.op(l).operands.clone()).unwrap_or_default()
    }

    /// Assigns `values` to `targets` (through temporaries when several, so a swap works).
    fn assign(&mut self, targets: &[String], values: &[ValueId]) {
        let exprs: Vec<String> = values.iter().map(|&v| self.expr(v)).collect();
        if targets.len() > 1 {
            let mut temps = Vec::new();
            for (t, e) in targets.iter().zip(&exprs).filter(|(t, _)| !t.is_empty()) {
                let tmp = format!("{t}_next");
                if self.rebound.contains(t) {
                    self.line(format!("uint64_t {tmp} = reinterpret_cast<uint64_t>({e}.data());"));
                } else {
                    self.line(format!("auto {tmp} = {e};"));
                }
                temps.push((t.clone(), tmp));
            }
            for (t, tmp) in temps {
                if self.rebound.contains(&t) {
                    self.line(format!("TASSIGN({t}, {tmp});"));
                } else {
                    self.line(format!("{t} = {tmp};"));
                }
            }
        } else {
            for (t, e) in targets.iter().zip(&exprs) {
                if t.is_empty() || t == e {
                    continue;
                }
                if self.rebound.contains(t) {
                    self.line(format!("TASSIGN({t}, reinterpret_cast<uint64_t>({e}.data()));"));
                } else {
                    self.line(format!("{t} = {e};"));
                }
            }
        }
    }

    fn scf_for(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        let Some(&region) = data.regions.first() else { return };
        let body = self.m.region(region).blocks[0];
        let args = self.m.block(body).args.clone();
        if data.operands.len() < 3 || args.is_empty() {
            return self.unsupported(op, "a malformed scf.for");
        }
        let (lb, ub, step) = (self.expr(data.operands[0]), self.expr(data.operands[1]), self.expr(data.operands[2]));
        let yielded: Vec<Vec<ValueId>> = self.terminator_operands(body).into_iter().map(|v| vec![v]).collect();
        let Some(vars) = self.carried(op, &data.results, &data.operands[3..], &[&args[1..]], &yielded) else { return };
        if *self.m.value_type(args[0]) == pto_ir::types::Type::Scalar(pto_ir::types::ElemType::Index) {
            // As `ptoas` writes an index loop (MLIR's EmitC `for` over `size_t`): the bounds cast
            // to `size_t`, and each use of the induction variable cast back to `int32_t`, the
            // index type everywhere else.
            let iv = self.fresh();
            self.names.insert(args[0], format!("((int32_t) {iv})"));
            self.line(format!("for (size_t {iv} = (size_t) {lb}; {iv} < ((size_t) {ub}); {iv} += (size_t) {step}) {{"));
        } else {
            let iv = self.name(args[0]);
            let ty = cpp::value_type(self.m.value_type(args[0])).unwrap_or_else(|| "int32_t".to_string());
            self.line(format!("for ({ty} {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{"));
        }
        self.enter_scope();
        let yielded = self.body_until_terminator(body);
        self.assign(&vars, &yielded);
        self.leave_scope();
        self.line("}");
    }

    fn scf_if(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        let mut incoming: Vec<Vec<ValueId>> = vec![Vec::new(); data.results.len()];
        for &r in &data.regions {
            if let Some(&b) = self.m.region(r).blocks.first() {
                for (i, v) in self.terminator_operands(b).into_iter().enumerate() {
                    if let Some(list) = incoming.get_mut(i) {
                        list.push(v);
                    }
                }
            }
        }
        let Some(vars) = self.carried(op, &data.results, &[], &[], &incoming) else { return };
        let cond = self.expr(data.operands[0]);
        self.line(format!("if ({cond}) {{"));
        for (i, &r) in data.regions.iter().enumerate() {
            if i == 1 {
                self.line("} else {");
            }
            if let Some(&b) = self.m.region(r).blocks.first() {
                self.enter_scope();
                let yielded = self.body_until_terminator(b);
                self.assign(&vars, &yielded);
                self.leave_scope();
            }
        }
        self.line("}");
    }

    fn scf_while(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        let (Some(&before), Some(&after)) = (data.regions.first(), data.regions.get(1)) else {
            return self.unsupported(op, "a malformed scf.while");
        };
        let (bb, ab) = (self.m.region(before).blocks[0], self.m.region(after).blocks[0]);
        let (bargs, aargs) = (self.m.block(bb).args.clone(), self.m.block(ab).args.clone());
        let Some(loop_vars) = self.carried(op, &bargs, &data.operands, &[], &[]) else { return };
        let Some(results) = self.carried(op, &data.results, &[], &[], &[]) else { return };
        let Some(after_vars) = self.carried(op, &aargs, &[], &[], &[]) else { return };
        self.line("while (true) {");
        self.enter_scope();
        let cond = self.body_until_terminator(bb);
        let Some((&c, passed)) = cond.split_first() else {
            return self.unsupported(op, "an scf.while without scf.condition");
        };
        self.assign(&results, passed);
        self.assign(&after_vars, passed);
        let c = self.expr(c);
        self.line(format!("if (!{c}) break;"));
        let yielded = self.body_until_terminator(ab);
        self.assign(&loop_vars, &yielded);
        self.leave_scope();
        self.line("}");
    }
}
