//! Cube/vector pipes: reserved buffers as constant addresses (placed by the same memory map
//! `pto run` uses, [`pto_sim::cores::Topology`]), pipe inits as `auto p = TPipe<flag_base,
//! Direction, slot_size, slot_num, local_slot_num, nosplit>(gm, c2v_buf, v2c_buf);` and the
//! data ops as `TPUSH<P, Tile, Split>(p, t)`, `TPOP<P, Tile, Split>(p, t)`, `TFREE<P,
//! Split>(p)`. The frontend inits (`aic/aiv_initialize_pipe`) go through GM
//! (`local_slot_num = slot_num`) when they name a `gm_slot_buffer`, else they are local pipes
//! (`local_slot_num = 2`), as `ptoas` lowers them; `nosplit` is the attribute, else true when
//! every data op of the pipe's functions uses `split = 0`.

use super::{Emitter, cpp};
use pto_ir::attr::Attr;
use pto_ir::module::{Module, OpId, ValueDef, ValueId};
use pto_ir::ops::Opcode;
use pto_sim::cores::topology::{init_addresses, init_gm_slots, is_pipe_data_op, op_attr, split_of};
use std::collections::HashMap;

fn is_init(op: Opcode) -> bool {
    matches!(op, Opcode::AicInitializePipe | Opcode::AivInitializePipe | Opcode::InitializeL2lPipe | Opcode::InitializeL2g2lPipe)
}

fn int_attr(m: &Module, op: OpId, name: &str) -> Option<i64> {
    match op_attr(m, op, name)? {
        Attr::Int(i, _) => Some(*i),
        Attr::Bool(b) => Some(*b as i64),
        _ => None,
    }
}

/// The function owning each op.
fn owners(m: &Module) -> HashMap<OpId, OpId> {
    let mut out = HashMap::new();
    for f in super::func::functions(m) {
        let mut stack: Vec<OpId> = vec![f];
        while let Some(o) = stack.pop() {
            for &r in &m.op(o).regions {
                for &b in &m.region(r).blocks {
                    for &x in &m.block(b).ops {
                        out.insert(x, f);
                        stack.push(x);
                    }
                }
            }
        }
    }
    out
}

/// The `split` values of the pipe data ops of each function.
fn splits_by_function(m: &Module, owner: &HashMap<OpId, OpId>) -> HashMap<OpId, Vec<i64>> {
    let mut out: HashMap<OpId, Vec<i64>> = HashMap::new();
    for o in m.walk() {
        if is_pipe_data_op(m.op(o).opcode)
            && let (Some(s), Some(&f)) = (split_of(m, o), owner.get(&o))
        {
            out.entry(f).or_default().push(s);
        }
    }
    out
}

/// `TileSplitAxis::...` of a data op.
fn split_token(m: &Module, op: OpId) -> String {
    let s = split_of(m, op).unwrap_or(0);
    let name = ["TILE_NO_SPLIT", "TILE_UP_DOWN", "TILE_LEFT_RIGHT"].get(s as usize).unwrap_or(&"TILE_NO_SPLIT");
    format!("TileSplitAxis::{name}")
}

impl Emitter<'_> {
    pub(super) fn pipe_op(&mut self, op: OpId) {
        let data = self.m.op(op).clone();
        match data.opcode {
            Opcode::ReserveBuffer | Opcode::ImportReservedBuffer => {
                let Some(&r) = data.results.first() else { return };
                match self.topo.reserved.get(&op).cloned() {
                    Some(Ok(addr)) => {
                        let n = self.name(r);
                        self.consts.push(format!("int32_t {n} = {addr};"));
                    }
                    Some(Err(why)) => self.unsupported(op, why),
                    None => self.unsupported(op, "a reserved buffer the memory map did not place"),
                }
            }
            o if is_init(o) => self.init(op),
            Opcode::TPushToAiv | Opcode::TPushToAic => {
                let Some(&t) = data.operands.first() else { return };
                self.push(op, t, None);
            }
            Opcode::TPopFromAic | Opcode::TPopFromAiv => {
                let Some(&r) = data.results.first() else { return };
                self.pop(op, r, None, &data.operands);
            }
            Opcode::TFreeFromAic | Opcode::TFreeFromAiv => self.free(op, None),
            _ => self.unsupported(op, "this pipe op has no C++ spelling yet"),
        }
    }

    /// The pipe a data op uses: its `!pto.pipe` operand's init, else its function's pipe.
    fn pipe_of(&mut self, op: OpId, handle: Option<ValueId>) -> Option<(String, String)> {
        if let Some(h) = handle
            && let ValueDef::OpResult(def, _) = self.m.values[h.index()].def
            && let Some(p) = self.pipes.get(&def)
        {
            return Some(p.clone());
        }
        let p = self.func_pipe.clone();
        if p.is_none() {
            self.unsupported(op, "a pipe data op before any pipe init in its function");
        }
        p
    }

    fn init(&mut self, op: OpId) {
        let m = self.m;
        let data = m.op(op);
        let dir = int_attr(m, op, "dir_mask").unwrap_or(1);
        let slot_size = int_attr(m, op, "slot_size").unwrap_or(0);
        let slot_num = int_attr(m, op, "slot_num").unwrap_or(if dir == 3 { 4 } else { 8 });
        let gm = init_gm_slots(m, op);
        let through_gm = data.opcode == Opcode::InitializeL2g2lPipe || gm.is_some();
        let a5 = self.target.id == pto_lower::TargetId::A5;
        let dir_tok = match (dir, through_gm && a5) {
            (1, false) => "Direction::DIR_C2V",
            (1, true) => "Direction::DIR_C2V_GM",
            (2, false) => "Direction::DIR_V2C",
            (2, true) => "Direction::DIR_V2C_GM",
            (3, _) => "Direction::DIR_BOTH",
            _ => return self.unsupported(op, format!("dir_mask = {dir}")),
        };
        let local = if through_gm { int_attr(m, op, "local_slot_num").unwrap_or(slot_num) } else { 2 };
        let nosplit = match op_attr(m, op, "nosplit") {
            Some(Attr::Bool(b)) => *b,
            _ => {
                let owner = owners(m);
                let splits = splits_by_function(m, &owner);
                let used = owner.get(&op).and_then(|f| splits.get(f)).cloned().unwrap_or_default();
                !used.is_empty() && used.iter().all(|&s| s == 0)
            }
        };
        let flag_base = int_attr(m, op, "flag_base").unwrap_or(0);
        let token = format!("TPipe<{flag_base}, {dir_tok}, {slot_size}, {slot_num}, {local}, {nosplit}>");
        let gm_expr = gm.map(|g| self.expr(g)).unwrap_or_else(|| "nullptr".to_string());
        let [c2v, v2c] = init_addresses(m, op).unwrap_or([None, None]);
        let c2v = c2v.map(|v| self.expr(v)).unwrap_or_else(|| "0".to_string());
        let v2c = v2c.map(|v| self.expr(v)).unwrap_or_else(|| "0".to_string());
        let n = match data.results.first() {
            Some(&r) => self.name(r),
            None => self.fresh(),
        };
        self.line(format!("auto {n} = {token}({gm_expr}, {c2v}, {v2c});"));
        self.pipes.insert(op, (n.clone(), token.clone()));
        self.func_pipe = Some((n, token));
    }

    /// `TPUSH<P, Tile, Split>(p, t)`.
    pub(super) fn push(&mut self, op: OpId, tile: ValueId, handle: Option<ValueId>) {
        let Some((p, tok)) = self.pipe_of(op, handle) else { return };
        let Some(desc) = self.tile_desc(tile) else { return self.unsupported(op, "a push of a non-tile") };
        let t = self.expr(tile);
        let split = split_token(self.m, op);
        self.line(format!("TPUSH<{tok}, {}, {split}>({p}, {t});", cpp::tile(&desc)));
    }

    /// Declares the popped tile and `TPOP<P, Tile, Split>(p, t)`; `valid` are the dynamic
    /// valid rows and columns, when given.
    pub(super) fn pop(&mut self, op: OpId, tile: ValueId, handle: Option<ValueId>, valid: &[ValueId]) {
        let Some((p, tok)) = self.pipe_of(op, handle) else { return };
        let Some(desc) = self.tile_desc(tile) else { return self.unsupported(op, "a pop into a non-tile") };
        let ty = cpp::tile(&desc);
        let t = self.name(tile);
        self.line(format!("{ty} {t};"));
        if let [vr, vc] = valid {
            let (vr, vc) = (self.expr(*vr), self.expr(*vc));
            self.line(format!("{t}.SetValidShape({vr}, {vc});"));
        }
        let split = split_token(self.m, op);
        self.line(format!("TPOP<{tok}, {ty}, {split}>({p}, {t});"));
    }

    /// `TFREE<P, Split>(p)`.
    pub(super) fn free(&mut self, op: OpId, handle: Option<ValueId>) {
        let Some((p, tok)) = self.pipe_of(op, handle) else { return };
        let split = split_token(self.m, op);
        self.line(format!("TFREE<{tok}, {split}>({p});"));
    }
}
