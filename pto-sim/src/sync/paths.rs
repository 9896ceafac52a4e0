//! Path exploration for the static check (`pto verify --sync`): the interpreter asks the
//! [`Explorer`] at every control-flow decision whose outcome is not fixed by constants, and
//! successive runs take every combination of outcomes — both sides of each `scf.if`, and every
//! number of iterations of each loop with a dynamic trip count up to the loop's **fixpoint**.
//! Loops with constant bounds run their real trip count. Each path is one run of the dynamic
//! checker; their findings together are the static verdict.
//!
//! **The loop fixpoint.** Before each iteration of a loop with a dynamic trip count, the
//! interpreter passes the abstract state at the loop head: the sync model's state without
//! absolute epochs ([`super::model::Model::abstract_state`]: flags set, what is queued, buffer
//! ids held, the accesses some pipe has not ordered yet and which clocks cover them) together
//! with the loop's data that can steer sync — its iteration index modulo the program's
//! index period ([`index_period`]: the lcm of every constant modulus and mask, so `i mod 3`
//! event ids and `i mod 2` ping-pong buffers repeat) and its integer carried values. Once the
//! state at the head equals one seen earlier in the same run of that loop, a further
//! iteration would do what an explored one did: the loop stops there, and the explored paths
//! leave it after every count before (0, 1, ... k). At least [`MIN_ITERATIONS`] iterations run
//! (what iteration i+1 needs from iteration i). If the state has not repeated after
//! [`MAX_ITERATIONS`] iterations (a carried value that keeps growing, an index period larger
//! than the bound) the loop stops there too and [`Explorer::bounded`] records it, which
//! `pto verify --sync` reports as a note.

/// A decision the interpreter asks about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Take the `then` side of an `scf.if` (else the `else` side).
    Branch,
    /// Run another iteration of a loop with a dynamic trip count.
    Iterate {
        /// The loop (its op index).
        looped: u32,
        /// Iterations already run.
        done: u64,
        /// The abstract state at the loop head (see the module doc).
        state: u64,
    },
}

/// Iterations every loop with a dynamic trip count may run before its fixpoint is tested.
pub const MIN_ITERATIONS: u64 = 2;

/// Iterations after which a loop whose head state has not repeated stops (with a note).
pub const MAX_ITERATIONS: u64 = 24;

/// The decisions of the current path and which alternatives remain.
#[derive(Clone, Debug, Default)]
pub struct Explorer {
    /// `(outcome, whether the other outcome was explored already)` in decision order.
    trail: Vec<(bool, bool)>,
    /// The next decision of the current run.
    at: usize,
    /// Runs started.
    pub runs: usize,
    /// Per loop running in this run: the head states seen in its current execution, and the
    /// branch outcomes taken before that execution started.
    heads: Vec<(u32, Vec<u64>, u64)>,
    /// Loops (op indices) that reached [`MAX_ITERATIONS`] without a fixpoint, in any run.
    pub bounded: Vec<u32>,
    /// The most iterations any loop ran before its fixpoint, in any run.
    pub deepest: u64,
    /// The program's index period ([`index_period`]).
    pub period: u64,
    /// Branch outcomes of the current run so far, hashed (part of a loop head's full state).
    branches: u64,
    /// Full loop-head states of earlier runs: `(loop, full state)`. A new decision that reaches
    /// one again would only repeat explored paths, so the loop stops there.
    visited: std::collections::HashSet<(u32, u64)>,
}

impl Explorer {
    /// A new exploration of `m` (the first path takes the natural outcome of every decision).
    pub fn new(m: &pto_ir::Module) -> Explorer {
        Explorer { period: index_period(m), ..Explorer::default() }
    }

    /// The abstract state at a loop head: the sync model's (`sync`), the iteration `index`
    /// modulo the index period, and each carried value — exactly when it is an address or
    /// small (`0..8`: an event id, a ping-pong toggle), else only its residue modulo the
    /// period (a counter or a GM offset).
    pub fn head_state(&self, sync: u64, index: u64, carried: impl Iterator<Item = (i64, bool)>) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        sync.hash(&mut h);
        (index % self.period.max(1)).hash(&mut h);
        for (v, exact) in carried {
            let v = if exact || (0..8).contains(&v) { v } else { 8 + v.rem_euclid(self.period.max(1) as i64) };
            v.hash(&mut h);
        }
        h.finish()
    }

    /// Starts the next run; false when every path was explored.
    pub fn next_run(&mut self) -> bool {
        if self.runs > 0 {
            // Flip the last decision whose other side is unexplored; drop the ones after it.
            while let Some(&(outcome, flipped)) = self.trail.last() {
                if flipped {
                    self.trail.pop();
                } else {
                    let last = self.trail.len() - 1;
                    self.trail[last] = (!outcome, true);
                    break;
                }
            }
            if self.trail.is_empty() {
                return false;
            }
        }
        self.at = 0;
        self.heads.clear();
        self.branches = 0;
        self.runs += 1;
        true
    }

    /// The outcome of the next decision (`natural` is what the data says).
    pub fn decide(&mut self, d: Decision, natural: bool) -> bool {
        if let Decision::Iterate { looped, done, state } = d {
            let i = match self.heads.iter().position(|h| h.0 == looped) {
                Some(i) => i,
                None => {
                    self.heads.push((looped, Vec::new(), 0));
                    self.heads.len() - 1
                }
            };
            if done == 0 {
                // A new execution of the loop: it is the innermost running one.
                self.heads.truncate(i + 1);
                self.heads[i].1.clear();
                self.heads[i].2 = self.branches;
            }
            let seen = &mut self.heads[i].1;
            let repeated = seen.contains(&state);
            seen.push(state);
            self.deepest = self.deepest.max(done);
            if done >= MIN_ITERATIONS && repeated {
                return false;
            }
            if done >= MAX_ITERATIONS {
                if !self.bounded.contains(&looped) {
                    self.bounded.push(looped);
                }
                return false;
            }
            // The full state here: this head's, the enclosing loops' last heads (their data),
            // the branches taken before this execution of the loop started (values computed
            // there may be used in the body; what the loop's own iterations computed reaches the
            // next one only through its carried values, which are in `state`), and whether the
            // minimum iterations ran.
            let full = {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                (state, done.min(MIN_ITERATIONS), self.heads[i].2).hash(&mut h);
                for (l, seen, _) in &self.heads[..i] {
                    (l, seen.last()).hash(&mut h);
                }
                h.finish()
            };
            // Forced exits are on the trail (never flipped) so that replays take them too.
            if self.at >= self.trail.len() && !self.visited.insert((looped, full)) {
                self.trail.push((false, true));
                self.at += 1;
                return false;
            }
        }
        let outcome = match self.trail.get(self.at) {
            Some(&(o, _)) => o,
            None => {
                self.trail.push((natural, false));
                natural
            }
        };
        self.at += 1;
        if d == Decision::Branch {
            self.branches = self.branches.rotate_left(1) ^ (outcome as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
        outcome
    }
}

/// The period of loop indices for the fixpoint: the least common multiple of the constant
/// moduli (`arith.remui`/`remsi` by a constant) and masks (`arith.andi` with `2^k - 1`) in
/// `m` — how event ids and buffer addresses computed from an index cycle — capped at
/// [`MAX_ITERATIONS`] + 1 (a larger period ends at the bound, with its note).
pub fn index_period(m: &pto_ir::module::Module) -> u64 {
    use pto_ir::Opcode;
    let constant = |v: pto_ir::ValueId| m.int_constant(v);
    let gcd = |mut a: u64, mut b: u64| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut period = 1u64;
    for d in &m.ops {
        let k = match d.opcode {
            Opcode::ArithRemui | Opcode::ArithRemsi => d.operands.get(1).and_then(|&v| constant(v)).filter(|&k| k > 0),
            Opcode::ArithAndi => {
                d.operands.iter().filter_map(|&v| constant(v)).find(|&k| k > 0 && (k as u64 + 1).is_power_of_two()).map(|k| k + 1)
            }
            _ => None,
        };
        if let Some(k) = k {
            let k = k as u64;
            period = (period / gcd(period, k)).saturating_mul(k).min(MAX_ITERATIONS + 1);
        }
    }
    period
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a program with `ifs` sequential branches and one dynamic loop whose head state after
    /// `n` iterations is `state(n)`; returns each path's branch outcomes and iteration count.
    fn paths(ifs: usize, with_loop: bool, state: impl Fn(u64) -> u64) -> Vec<(Vec<bool>, u64)> {
        let mut e = Explorer::default();
        let mut out = Vec::new();
        while e.next_run() {
            let path: Vec<bool> = (0..ifs).map(|_| e.decide(Decision::Branch, true)).collect();
            let mut n = 0;
            while with_loop && e.decide(Decision::Iterate { looped: 7, done: n, state: state(n) }, true) {
                n += 1;
            }
            out.push((path, n));
        }
        out
    }

    #[test]
    fn every_combination_of_branches_is_one_path() {
        let p: Vec<Vec<bool>> = paths(2, false, |_| 0).into_iter().map(|p| p.0).collect();
        assert_eq!(p, vec![vec![true, true], vec![true, false], vec![false, true], vec![false, false]]);
    }

    #[test]
    fn a_loop_whose_head_state_settles_at_once_runs_two_one_and_zero_times() {
        let counts: Vec<u64> = paths(0, true, |_| 5).into_iter().map(|p| p.1).collect();
        assert_eq!(counts, vec![2, 1, 0]);
    }

    #[test]
    fn a_loop_runs_until_its_head_state_repeats() {
        // States 0, 1, 2, 0 (a period of three): the fourth head equals the first.
        let counts: Vec<u64> = paths(0, true, |n| n % 3).into_iter().map(|p| p.1).collect();
        assert_eq!(counts, vec![3, 2, 1, 0]);
        // A state that settles after growing: 0, 1, 2, 3, 3.
        let counts: Vec<u64> = paths(0, true, |n| n.min(3)).into_iter().map(|p| p.1).collect();
        assert_eq!(counts, vec![4, 3, 2, 1, 0]);
    }

    #[test]
    fn a_loop_that_never_repeats_stops_at_the_bound_with_a_record() {
        let mut e = Explorer::default();
        assert!(e.next_run());
        let mut n = 0;
        while e.decide(Decision::Iterate { looped: 3, done: n, state: n }, true) {
            n += 1;
        }
        assert_eq!(n, MAX_ITERATIONS);
        assert_eq!(e.bounded, vec![3]);
    }

    #[test]
    fn a_head_state_reached_again_on_a_later_path_is_not_explored_twice() {
        // Two dynamic loops in sequence whose head states do not depend on each other: the
        // second loop is explored (2, 1, 0 iterations) after the first path through the first
        // loop only; the later paths reach its head in a state already explored and leave it.
        let mut e = Explorer::default();
        let mut out = Vec::new();
        while e.next_run() {
            let mut counts = [0u64; 2];
            for (l, count) in counts.iter_mut().enumerate() {
                while e.decide(Decision::Iterate { looped: l as u32, done: *count, state: 5 + l as u64 }, true) {
                    *count += 1;
                }
            }
            out.push(counts);
        }
        assert_eq!(out, vec![[2, 2], [2, 1], [2, 0], [1, 0], [0, 0]]);
        // With a branch between them, each side explores the second loop once.
        let mut e = Explorer::default();
        let mut out = Vec::new();
        while e.next_run() {
            let mut first = 0;
            while e.decide(Decision::Iterate { looped: 0, done: first, state: 5 }, true) {
                first += 1;
            }
            let side = e.decide(Decision::Branch, true);
            let mut second = 0;
            while e.decide(Decision::Iterate { looped: 1, done: second, state: 6 }, true) {
                second += 1;
            }
            out.push((first, side, second));
        }
        let explored: Vec<_> = out.iter().filter(|p| p.2 > 0).collect();
        assert_eq!(explored, vec![&(2, true, 2), &(2, true, 1), &(2, false, 2), &(2, false, 1)]);
    }

    #[test]
    fn the_index_period_is_the_lcm_of_moduli_and_masks() {
        let text = |body: &str| {
            format!(
                ".arg %i : index\n%c3 = arith.constant 3 : index\n%c4 = arith.constant 4 : index\n%c7 = arith.constant 7 : index\n{body}"
            )
        };
        let period = |body: &str| {
            let (m, _) = pto_asm::parse(&text(body), pto_ir::FileId(0)).expect("parses");
            index_period(&m)
        };
        assert_eq!(period(""), 1);
        assert_eq!(period("%a = arith.remsi %i, %c3 : index\n"), 3);
        assert_eq!(period("%a = arith.remsi %i, %c3 : index\n%b = arith.remsi %i, %c4 : index\n"), 12);
        // `andi` with 7 = 2^3 - 1 cycles with period 8; lcm(3, 8) = 24.
        assert_eq!(period("%a = arith.remsi %i, %c3 : index\n%b = arith.andi %i, %c7 : index\n"), 24);
        // Above the iteration bound it is capped (the loop ends at the bound, with a note).
        assert_eq!(period("%a = arith.remsi %i, %c7 : index\n%b = arith.remsi %i, %c4 : index\n"), MAX_ITERATIONS + 1);
    }
}
