//! Path exploration for the static check (`pto verify --sync`): the interpreter asks the
//! [`Explorer`] at every control-flow decision whose outcome is not fixed by constants, and
//! successive runs take every combination of outcomes — both sides of each `scf.if`, and 0, 1
//! or 2 iterations of each loop with a dynamic trip count (two iterations expose every
//! loop-carried edge: what iteration i+1 needs from iteration i). Loops with constant bounds
//! run their real trip count. Each path is one run of the dynamic checker; their findings
//! together are the static verdict.

/// A decision the interpreter asks about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Take the `then` side of an `scf.if` (else the `else` side).
    Branch,
    /// Run another iteration of a loop with a dynamic trip count; `done` iterations ran.
    Iterate {
        /// Iterations already run.
        done: u64,
    },
}

/// Iterations explored per loop with a dynamic trip count: 0, 1 and 2.
pub const MAX_ITERATIONS: u64 = 2;

/// The decisions of the current path and which alternatives remain.
#[derive(Clone, Debug, Default)]
pub struct Explorer {
    /// `(outcome, whether the other outcome was explored already)` in decision order.
    trail: Vec<(bool, bool)>,
    /// The next decision of the current run.
    at: usize,
    /// Runs started.
    pub runs: usize,
}

impl Explorer {
    /// A new exploration (the first path takes the natural outcome of every decision).
    pub fn new() -> Explorer {
        Explorer::default()
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
        self.runs += 1;
        true
    }

    /// The outcome of the next decision (`natural` is what the data says).
    pub fn decide(&mut self, d: Decision, natural: bool) -> bool {
        if let Decision::Iterate { done } = d
            && done >= MAX_ITERATIONS
        {
            return false;
        }
        let outcome = match self.trail.get(self.at) {
            Some(&(o, _)) => o,
            None => {
                self.trail.push((natural, false));
                natural
            }
        };
        self.at += 1;
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a program with `ifs` sequential branches and one dynamic loop; returns each path's
    /// outcomes.
    fn paths(ifs: usize, with_loop: bool) -> Vec<Vec<bool>> {
        let mut e = Explorer::new();
        let mut out = Vec::new();
        while e.next_run() {
            let mut path: Vec<bool> = (0..ifs).map(|_| e.decide(Decision::Branch, true)).collect();
            if with_loop {
                let mut n = 0;
                while e.decide(Decision::Iterate { done: n }, true) {
                    n += 1;
                }
                path.push(n == 1);
                path.push(n == 2);
            }
            out.push(path);
        }
        out
    }

    #[test]
    fn every_combination_of_branches_is_one_path() {
        let p = paths(2, false);
        assert_eq!(p, vec![vec![true, true], vec![true, false], vec![false, true], vec![false, false]]);
    }

    #[test]
    fn a_dynamic_loop_runs_two_one_and_zero_times() {
        let p = paths(0, true);
        // (n == 1, n == 2): two iterations first (natural), then one, then zero.
        assert_eq!(p, vec![vec![false, true], vec![true, false], vec![false, false]]);
    }
}
