//! The progress bar of `pto run` (stderr): steps executed against the `--max-steps` budget.
//! It stays hidden for the first second, so short runs print nothing, and it is cleared when
//! the run ends, before any output or diagnostic is written.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pto_sim::Sim;
use std::time::{Duration, Instant};

/// How long a run goes before its progress bar appears.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// Installs a progress bar as `sim`'s progress callback; clear it with
/// [`ProgressBar::finish_and_clear`] when the run ends.
pub fn attach(sim: &mut Sim) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(sim.max_steps), ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template("{elapsed:>3} [{wide_bar}] {human_pos}/{human_len} steps (--max-steps)") {
        bar.set_style(style.progress_chars("=> "));
    }
    let (start, shown_bar) = (Instant::now(), bar.clone());
    let mut shown = false;
    sim.progress = Some(Box::new(move |steps, _budget| {
        if !shown && start.elapsed() >= SHOW_AFTER {
            shown_bar.set_draw_target(ProgressDrawTarget::stderr());
            shown = true;
        }
        if shown {
            shown_bar.set_position(steps);
        }
    }));
    bar
}
