//! Devices (ranks) and the communication instructions (`comm.*`, the async DMA ops)
//! (docs/comm.md).
//!
//! **Symmetric memory.** Every rank runs the same kernel with its own copy of every GM
//! argument (pto-isa's symmetric heap, docs/isa/comm/communication-runtime.md: a buffer has the
//! same offset on every rank, so one argument names it everywhere). A multi-rank run keeps all
//! ranks' arrays in one vector, rank `r`'s at `r * per_rank ..` ([`crate::interp::Sim::shift_gm`]),
//! so a GM access needs no lock and a remote access is an index computation:
//!
//! * a `!pto.group<Nx!pto.memref<...>>` argument's member `k` is that argument's buffer on
//!   rank `k mod ranks` (with one rank every member is the local buffer);
//! * the remote operand of `tput` / `tput_async` (`dst`), `tget` / `tget_async` (`src`) and
//!   `tnotify` (`signal`) is its pointer argument's buffer on the rank its [`Peer`] binding names
//!   (`pto run --peer ARG=next|prev|RANK`); without a binding, the local rank.
//!
//! * [`ops`] — the semantics of the comm ops, as a table the interpreter looks up.
//! * [`machine`] — running a kernel on N ranks under the cores scheduler: `twait` on a signal
//!   that does not hold suspends the rank until another changes GM; all ranks waiting is
//!   `SYNC_DEADLOCK`.

pub mod machine;
pub mod ops;

pub use machine::{RankLaunch, RankRun};

/// Which rank a pointer argument names when a comm op uses it as a remote operand.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Peer {
    /// The running rank itself (the default).
    #[default]
    Local,
    /// Rank `(me + 1) mod ranks`.
    Next,
    /// Rank `(me + ranks - 1) mod ranks`.
    Prev,
    /// A fixed rank.
    Rank(u32),
}

impl Peer {
    /// `local`, `next`, `prev` or a rank number below `ranks`.
    pub fn parse(text: &str, ranks: u32) -> Result<Peer, String> {
        match text {
            "local" | "self" => Ok(Peer::Local),
            "next" => Ok(Peer::Next),
            "prev" => Ok(Peer::Prev),
            n => match n.parse::<u32>() {
                Ok(r) if r < ranks.max(1) => Ok(Peer::Rank(r)),
                Ok(r) => Err(format!("rank {r} does not exist: the run has {} rank(s) (0..{})", ranks.max(1), ranks.max(1))),
                Err(_) => Err(format!("`{n}` is not a peer: give `next`, `prev`, `local` or a rank number")),
            },
        }
    }

    /// The rank this binding names from rank `me` of `ranks`.
    pub fn resolve(self, me: u32, ranks: u32) -> u32 {
        let n = ranks.max(1);
        match self {
            Peer::Local => me,
            Peer::Next => (me + 1) % n,
            Peer::Prev => (me + n - 1) % n,
            Peer::Rank(r) => r % n,
        }
    }
}

/// The running rank and how it addresses the others' GM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ranks {
    /// This rank.
    pub me: u32,
    /// How many ranks run.
    pub count: u32,
    /// GM arrays per rank in the shared vector; 0 when the simulation holds only its own
    /// (a one-rank run: every access is local).
    pub per_rank: usize,
    /// The peer binding of each GM argument, by its index within a rank (missing: local).
    pub peers: Vec<Peer>,
}

impl Default for Ranks {
    fn default() -> Ranks {
        Ranks { me: 0, count: 1, per_rank: 0, peers: Vec::new() }
    }
}

impl Ranks {
    /// The index within a rank of GM array `arg`.
    pub fn local(&self, arg: usize) -> usize {
        if self.per_rank == 0 { arg } else { arg % self.per_rank }
    }

    /// The index of GM array `arg`'s copy on `rank`.
    pub fn on_rank(&self, arg: usize, rank: u32) -> usize {
        if self.per_rank == 0 { arg } else { rank as usize * self.per_rank + self.local(arg) }
    }

    /// The rank that owns GM array `arg`.
    pub fn owner(&self, arg: usize) -> u32 {
        arg.checked_div(self.per_rank).map_or(self.me, |r| r as u32)
    }

    /// The copy of `arg` that a remote operand names (its peer binding) and that rank.
    pub fn remote(&self, arg: usize) -> (usize, u32) {
        let peer = self.peers.get(self.local(arg)).copied().unwrap_or_default();
        let rank = peer.resolve(self.me, self.count);
        (self.on_rank(arg, rank), rank)
    }

    /// Member `k` of a group argument `arg`: its copy on rank `k mod count`, and that rank.
    pub fn member(&self, arg: usize, k: usize) -> (usize, u32) {
        let rank = (k % self.count.max(1) as usize) as u32;
        (self.on_rank(arg, rank), rank)
    }
}

/// `rank 2`, `rank 2 block 1` when ranks have several blocks, with the core (`rank 2 aiv1`)
/// for a mix kernel.
pub fn actor_name(a: crate::cores::ActorId, blocks: u32) -> String {
    let block = if blocks > 1 { format!(" block {}", a.block) } else { String::new() };
    let core = if a.core == crate::cores::CoreKind::Whole { String::new() } else { format!(" {}", a.core.name()) };
    format!("rank {}{block}{core}", a.rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn peers_resolve_around_the_ring_and_arrays_index_by_rank() {
        assert_eq!(Peer::parse("next", 4).unwrap().resolve(3, 4), 0);
        assert_eq!(Peer::parse("prev", 4).unwrap().resolve(0, 4), 3);
        assert_eq!(Peer::parse("2", 4).unwrap().resolve(0, 4), 2);
        assert!(Peer::parse("4", 4).unwrap_err().contains("does not exist"));
        assert!(Peer::parse("left", 4).is_err());
        let r = Ranks { me: 1, count: 4, per_rank: 3, peers: vec![Peer::Next, Peer::Local] };
        // Rank 1's argument 0 is array 3; its peer is rank 2 (array 6). Argument 1 is local.
        assert_eq!(r.remote(3), (6, 2));
        assert_eq!(r.remote(4), (4, 1));
        assert_eq!(r.member(5, 3), (11, 3));
        assert_eq!(r.member(5, 5), (5, 1));
        assert_eq!(r.owner(10), 3);
        // One rank: everything is local.
        let one = Ranks::default();
        assert_eq!((one.remote(2), one.member(2, 3)), ((2, 0), (2, 0)));
    }
}
