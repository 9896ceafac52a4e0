//! Per-target sync rules, with their sources.
//!
//! * **Same-pipe order.** A2A3: every pipe but the scalar one needs `pipe_barrier(P)` between
//!   two of its ops that touch the same bytes — pto-isa `npu/a2a3/TSync.hpp` turns a same-pipe
//!   event into `pipe_barrier(pipe)` for S/V/M/MTE1/MTE2/MTE3/FIX, PTOAS InsertSync inserts a
//!   per-pipe barrier for every same-pipe dependency except `PIPE_S`
//!   (`InsertSyncAnalysis.cpp` `IsNoNeedToInsertSync`), and the A2A3 kernels put
//!   `pipe_barrier(PIPE_V)` between dependent vector instructions (`a2a3/TCI.hpp`). A5: only
//!   MTE2 and MTE3 do — `npu/a5/TSync.hpp` emits a same-pipe barrier only when
//!   `srcPipe == PIPE_MTE2 || dstPipe == PIPE_MTE3` and its `TSYNC<Op>` accepts only
//!   MTE2/MTE3/ALL; PTOAS drops every `PIPE_V` barrier on A5 ("PIPE_V intra-pipe ordering is
//!   guaranteed by hardware", `SyncCodegen.cpp`, `LoweringSyncToPipe.cpp`).
//! * **Event ids.** 8 per (source pipe, destination pipe) on both targets: `EVENT_ID0..7`
//!   (pto-isa `common/event.hpp` `EVENT_ID_MAX 8`; PTOAS `event` enum; InsertSync allocates 8
//!   ids per pipe pair).

use super::model::{Pipe, SamePipe};
use pto_lower::TargetId;

/// Which pipes complete their accesses in order on `target`.
pub fn same_pipe(target: TargetId) -> SamePipe {
    use pto_ir::ops::Pipe as P;
    let all = [
        (P::S, Pipe::S),
        (P::V, Pipe::V),
        (P::M, Pipe::M),
        (P::Mte1, Pipe::Mte1),
        (P::Mte2, Pipe::Mte2),
        (P::Mte3, Pipe::Mte3),
        (P::Fix, Pipe::Fix),
    ];
    let in_order: Vec<Pipe> = all.iter().filter(|(p, _)| !pto_lower::sync::pipes::needs_barrier(target, *p)).map(|&(_, q)| q).collect();
    SamePipe::in_order(&in_order)
}

/// Event ids per pipe pair.
pub fn event_ids(_target: TargetId) -> u32 {
    8
}

/// `A2A3` / `A5`.
pub fn name(target: TargetId) -> &'static str {
    match target {
        TargetId::A2A3 => "A2A3",
        TargetId::A5 => "A5",
    }
}
