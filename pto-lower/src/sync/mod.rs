//! Synchronisation between the pipes of one core, statically: what each op is to the pipes
//! ([`pipes`]: the pipe it really runs on, what it reads and writes, which pipes the target
//! keeps in order) and the `insert-sync` pass ([`insert`]). pto-sim's checker uses the same
//! [`pipes`] rules, so the pass and the proof (`pto verify --sync`) agree on what an op does.

pub mod gm;
pub mod ids;
pub mod insert;
pub mod pairs;
pub mod pipes;
pub mod rotate;
