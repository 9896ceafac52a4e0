//! What one executed op means to the sync model: the pipe it runs on and the byte ranges it
//! reads and writes (tile ops), or the ordering edge it is (sync ops).
//!
//! The pipe is the op table's: its `pipe`, or the first of its `pipes` rules that holds where
//! the hardware pipe depends on the operands or the target (`pto-ir/src/ops/table.rs`, read
//! through `pto_lower::sync::pipes::pipe_of`, the one place that evaluates them). The rules and
//! their sources:
//!
//! | Op | Pipe | Source |
//! |---|---|---|
//! | `tmov` | Vec→Vec V; Mat→Left/Right/Bias/Scaling MTE1; Acc→Mat/Vec FIX; Vec→Mat FIX | pto-isa `common/event.hpp` (`TMOV_V2V`, `TMOV_M2L`..., `TMOV_A2V`, `TMOV_V2M`); PTOAS `TMovOp::getPipe` |
//! | `textract` | Mat→L0 MTE1; Vec→Mat, Acc→Mat FIX; otherwise V | `TEXTRACT_M2LR`, `TEXTRACT_V2M`, `TEXTRACT_A2M`; PTOAS `TExtractOp::getPipe` |
//! | `tinsert` | A5 Vec→Vec V, A5 Vec→Mat MTE3, otherwise FIX | `TINSERT_A2M`; PTOAS `TInsertOp::getPipe` |
//! | `tstore` | from Acc FIX, otherwise MTE3 | `TSTORE_ACC`, `TSTORE_VEC`, `TSTORE_MAT` |
//! | `tci` | without `tmp` S (a scalar loop), with `tmp` V | pto-isa `a2a3/TCI.hpp`, `a5/Tci.hpp` (`TCI` in event.hpp says S; PTOAS says V for both) |
//! | `tscatter` | A2A3 S (scalar loop), A5 V | `a2a3/TScatter.hpp`; PTOAS `TScatterOp::getPipe` |
//! | `tshl`, `tshr` | A2A3 S (scalar loop), A5 V | `a2a3/TShl.hpp`, `a2a3/TShr.hpp` (event.hpp and PTOAS say V) |
//! | `tfillpad*`, `texpands` into Mat | MTE2 | `TFILLPAD_MAT`, `TEXPANDS_MAT` |
//!
//! Accesses: each tile operand in `ins` is read and each in `outs` written, over the tile's
//! whole storage (`addr .. addr + rows*cols*elem`); a `tmp` operand is read and written; ops
//! that read their destination (`tmuladddst`, `taxpy`, `tfusedmuladd*`, `tinsert`,
//! `tfillpad_inplace`) also read it. A GM view is the exact bytes of the window for
//! `tload`/`tstore` (one range per row, [`crate::gm::GmView::window_bytes`]), and the whole array
//! for the other ops that take a view.

use super::model::{Access, Pipe, Space};
use crate::value::Val;
use crate::view::TileView;
use pto_ir::attr::Attr;
use pto_ir::module::{Module, OpId, Payload, Piece};
use pto_ir::ops::Opcode;
use pto_ir::types::Loc;
use pto_lower::TargetId;

/// What a sync op asks for, before it is checked against the target's rules.
#[derive(Clone, Debug, PartialEq)]
pub enum SyncOp {
    /// `set_flag` / `record_event` (`set`), `wait_flag` / `wait_event` (`!set`).
    Flag {
        /// Set or wait.
        set: bool,
        /// Source pipe name as written (`PIPE_MTE2`, or the op kind's pipe).
        src: String,
        /// Destination pipe name.
        dst: String,
        /// Event id (dynamic ids resolved).
        id: i64,
    },
    /// `barrier <PIPE_x>` / `barrier_sync [TVEC]`: the pipe name (`PIPE_ALL` for all).
    Barrier(String),
    /// `get_buf` (`get`) / `rls_buf`: the pipe name and the buffer id.
    Buf {
        /// Acquire or release.
        get: bool,
        /// The pipe.
        pipe: String,
        /// The buffer id.
        id: i64,
    },
}

/// The model's space for an on-chip buffer of core 0 (GM arrays come after [`GM_BASE`]).
pub fn local_space(loc: Loc) -> Space {
    Space(loc as u32)
}

pub use super::graph::GM_BASE;

fn pipe_of_table(p: pto_ir::ops::Pipe) -> Option<Pipe> {
    use pto_ir::ops::Pipe as P;
    Some(match p {
        P::V => Pipe::V,
        P::M => Pipe::M,
        P::Mte1 => Pipe::Mte1,
        P::Mte2 => Pipe::Mte2,
        P::Mte3 => Pipe::Mte3,
        P::Fix => Pipe::Fix,
        P::S => Pipe::S,
        P::None => return None,
    })
}

/// The pipe PTOAS's op kinds (`pipe_event_type`) run on, from the op table's one copy of
/// PTOAS's `mapSyncOpTypeToPipe` ([`pto_ir::ops::Pipe::of_sync_op_kind`]).
pub fn op_kind_pipe(kind: &str) -> Option<&'static str> {
    pto_ir::ops::Pipe::of_sync_op_kind(kind).and_then(pto_ir::ops::Pipe::cpp_name)
}

/// The pipe tile op `op` runs on, given its operands' locations and whether it has a `tmp`.
pub fn pipe_of(m: &Module, op: OpId, target: TargetId, has_tmp: bool, loc: &dyn Fn(pto_ir::ValueId) -> Option<Loc>) -> Option<Pipe> {
    pto_lower::sync::pipes::pipe_of(m, op, target, has_tmp, loc).and_then(pipe_of_table)
}

/// The bytes of a tile.
pub fn tile_access(t: &TileView, write: bool) -> Access {
    Access { space: local_space(t.loc), start: t.addr, end: t.addr + t.size_bytes(), write, atomic: false }
}

/// The memory accesses of tile op `op` (operands from `vals`), `tmp` being the value bound to
/// its scratch slot.
pub fn accesses(m: &Module, op: OpId, target: TargetId, vals: &[Val], tmp: Option<pto_ir::ValueId>, out: &mut Vec<Access>) {
    let data = m.op(op);
    let gm_whole = |arg: usize, write: bool| Access { space: Space(GM_BASE + arg as u32), start: 0, end: u64::MAX, write, atomic: false };
    let tile_of = |slot: &[pto_ir::ValueId]| slot.iter().find_map(|v| if let Val::Tile(t) = vals[v.index()] { Some(t) } else { None });
    if matches!(data.opcode, Opcode::TLoad | Opcode::TStore) {
        let load = data.opcode == Opcode::TLoad;
        let (view_side, tile_side) = if load { (data.ins(), data.outs()) } else { (data.outs(), data.ins()) };
        if let (Some((&vv, offsets)), Some(tile)) = (view_side.split_first(), tile_of(tile_side))
            && let Val::View(view) = vals[vv.index()]
        {
            out.push(tile_access(&tile, load));
            let int = |v: &pto_ir::ValueId| if let Val::Int(i) = vals[v.index()] { i.max(0) as usize } else { 0 };
            let (r0, c0) = match offsets {
                [r, c] => (int(r), int(c)),
                _ => (0, 0),
            };
            // The window's exact bytes: one range per row (a strided window is not its hull).
            let fold = pto_ir::tile_rules::ViewFold::of(&tile.desc);
            let space = Space(GM_BASE + view.arg as u32);
            // An adding store commutes with the other adding stores (`atomicType = atomic_add`).
            let atomic = crate::gm::StoreMode::of(data).atomic_add;
            match view.window_bytes((r0, c0), (tile.vrows, tile.vcols), fold, tile.elem_size()) {
                Ok(bytes) => out.extend(bytes.into_iter().map(|(start, end)| Access { space, start, end, write: !load, atomic })),
                Err(_) => out.push(gm_whole(view.arg, !load)),
            }
            return;
        }
    }
    pto_lower::sync::pipes::operand_accesses(m, op, target, tmp, |v, write| match vals[v.index()] {
        Val::Tile(t) => out.push(tile_access(&t, write)),
        Val::View(g) => out.push(gm_whole(g.arg, write)),
        _ => {}
    });
}

/// The bytes a `tsync` waits for: the storage of its tile operands and the GM arrays of its
/// view operands (`!pto.event` operands have none: pto's events carry no pipe pair, so a
/// `tsync` of events only waits for everything issued before it).
pub fn fence_ranges(m: &Module, op: OpId, vals: &[Val], out: &mut Vec<Access>) {
    for &v in &m.op(op).operands {
        match vals[v.index()] {
            Val::Tile(t) => out.push(tile_access(&t, false)),
            Val::View(g) => out.push(Access { space: Space(GM_BASE + g.arg as u32), start: 0, end: u64::MAX, write: false, atomic: false }),
            _ => {}
        }
    }
}

/// The enum names and integers written in a sync op's arguments, in order (`[<PIPE_MTE2>,
/// <PIPE_V>, <EVENT_ID0>]` -> `PIPE_MTE2`, `PIPE_V`, `EVENT_ID0`).
fn sync_args(m: &Module, op: OpId, vals: &[Val]) -> Vec<Result<String, i64>> {
    fn piece(p: &Piece, vals: &[Val], out: &mut Vec<Result<String, i64>>) {
        match p {
            Piece::Word(w) => out.push(Ok(w.clone())),
            Piece::Attr(a) => attr(a, out),
            // A number, or a word in angle brackets (`<PIPE_V>` of the generic `_dyn` forms).
            Piece::Literal(l) => out.push(l.parse::<i64>().map_or_else(|_| Ok(l.trim().to_string()), Err)),
            Piece::Value(v) => out.push(Err(match vals[v.index()] {
                Val::Int(i) => i,
                _ => -1,
            })),
            Piece::Group(_, inner) => inner.iter().for_each(|p| piece(p, vals, out)),
            _ => {}
        }
    }
    fn attr(a: &Attr, out: &mut Vec<Result<String, i64>>) {
        match a {
            Attr::Enum(e) => out.push(Ok(e.value_name().to_string())),
            Attr::Int(i, _) => out.push(Err(*i)),
            Attr::Array(items) => items.iter().for_each(|a| attr(a, out)),
            Attr::Opaque(s) => out.push(Ok(s.trim_matches(|c| c == '<' || c == '>').to_string())),
            _ => {}
        }
    }
    let data = m.op(op);
    let mut out = Vec::new();
    if let Some(a) = data.attr("args").or(data.attr("pipe")) {
        attr(a, &mut out);
    }
    if let Payload::Generic(pieces) = &data.payload {
        pieces.iter().for_each(|p| piece(p, vals, &mut out));
    }
    // `*_dyn`: the event id is the op's operand.
    if out.len() == 2
        && let Some(&v) = data.operands.first()
    {
        out.push(Err(match vals[v.index()] {
            Val::Int(i) => i,
            _ => -1,
        }));
    }
    out
}

/// `EVENT_ID3` -> 3.
fn event_id(a: &Result<String, i64>) -> i64 {
    match a {
        Ok(s) => s.strip_prefix("EVENT_ID").and_then(|n| n.parse().ok()).unwrap_or(-1),
        Err(i) => *i,
    }
}

/// A pipe argument: `PIPE_V`, or an op kind (`TVEC`) mapped to its pipe.
fn pipe_arg(a: Option<&Result<String, i64>>) -> String {
    match a {
        Some(Ok(s)) => op_kind_pipe(s).map(str::to_string).unwrap_or_else(|| s.clone()),
        Some(Err(i)) => format!("pipe #{i}"),
        None => "?".into(),
    }
}

/// The ordering edge a sync op is, if it is one the model knows.
pub fn sync_op(m: &Module, op: OpId, vals: &[Val]) -> Option<SyncOp> {
    let opcode = m.op(op).opcode;
    let args = || sync_args(m, op, vals);
    Some(match opcode {
        Opcode::SetFlag | Opcode::WaitFlag | Opcode::SetFlagDyn | Opcode::WaitFlagDyn | Opcode::RecordEvent | Opcode::WaitEvent => {
            let a = args();
            SyncOp::Flag {
                set: matches!(opcode, Opcode::SetFlag | Opcode::SetFlagDyn | Opcode::RecordEvent),
                src: pipe_arg(a.first()),
                dst: pipe_arg(a.get(1)),
                id: a.get(2).map_or(-1, event_id),
            }
        }
        Opcode::Barrier | Opcode::BarrierSync => SyncOp::Barrier(pipe_arg(args().first())),
        Opcode::GetBuf | Opcode::RlsBuf => {
            let a = args();
            SyncOp::Buf { get: opcode == Opcode::GetBuf, pipe: pipe_arg(a.first()), id: a.get(1).map_or(-1, event_id) }
        }
        _ => return None,
    })
}

/// Whether `m` has an explicit intra-core sync op anywhere (else it relies on automatic sync
/// insertion, and `pto run` does not check it unless asked).
pub fn has_explicit_sync(m: &Module) -> bool {
    m.ops.iter().any(|d| pto_lower::sync::pipes::is_explicit_sync(d.opcode))
}
