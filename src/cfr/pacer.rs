//! Whether the team of threads or the calling thread alone runs an iteration's passes.
//!
//! Both give bit-identical results, so the choice is only about speed, and the faster one
//! depends on things the solver cannot see: whether the machine's cores share a last-level
//! cache (on a virtual machine the hypervisor moves them every few seconds; on liars dice
//! with 6 sides two threads on separate caches ran at 0.84x of one), and whether other
//! processes hold the cores. So the pacer times them, in time spent iterating (checks of
//! exploitability between iterations do not count): after [`WARMUP`], and then after every
//! [`PERIOD_TEAM`] on the team or [`PERIOD_ALONE`] alone (the cheaper check, and the costlier
//! mistake), and at least [`PERIODS_PER_COMPARISON`] times the last comparison's own time (a
//! game whose iterations take seconds would otherwise compare all the time), it runs
//! iterations alone for [`WINDOW`] and then on the team for as long, and keeps the team only
//! where its median time per node beats the median alone by [`MARGIN`] (a second core busy
//! for less is not worth it).
//!
//! What made shorter comparisons choose wrongly, measured on liars dice with 6 sides:
//! - the first iteration after a switch pays for it (the helpers wake up; the data moves
//!   to the other core's cache), so each mode's first iteration is left out;
//! - the first iterations of a run are up to twice as slow per node as later ones, and
//!   there a few iterations showed the team faster while it then ran at 0.8x of one
//!   thread, so the first comparison waits for the warm-up;
//! - pruning changes the nodes an iteration computes, so times are taken per node.

use std::time::Duration;

/// How a solver with a team chooses between the team and the calling thread alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Pacing {
    /// Time both now and then and run the faster (the default).
    #[default]
    Measured,
    /// The team runs every iteration.
    Team,
    /// The calling thread alone and the team in turns, one iteration each (for checking
    /// that switching changes no bit).
    Alternate,
}

/// Iterating time from a comparison that chose the team to the next one.
const PERIOD_TEAM: Duration = Duration::from_secs(2);
/// Iterating time from a comparison that chose the calling thread alone to the next one.
const PERIOD_ALONE: Duration = Duration::from_millis(500);
/// Iterating time on the team before the first comparison: a shorter run has little to
/// gain, and its comparison would cost it a larger share (20 ms alone in a run of 0.15 s
/// cost liars dice with 6 sides 6%).
const WARMUP: Duration = Duration::from_millis(250);
/// Iterating time of each mode in a comparison (at least [`SAMPLES`] iterations are kept).
const WINDOW: Duration = Duration::from_millis(20);
/// The iterating time to the next comparison is at least this many times the last
/// comparison's own: a game whose iterations take seconds then loses about 2% to its
/// comparisons (the iterations alone at half the team's speed), as one of milliseconds does
/// with [`PERIOD_TEAM`].
const PERIODS_PER_COMPARISON: u32 = 10;
/// Fewest iterations of each mode a comparison keeps (after leaving out the first).
const SAMPLES: usize = 2;
/// The team must be this much faster: its median time per node below `1 / MARGIN` of the
/// median alone.
const MARGIN: f64 = 1.05;

/// The state of the choice (see the module's comment).
#[derive(Clone, Debug)]
pub struct Pacer {
    pacing: Pacing,
    use_team: bool,
    /// Iterating time left until the next comparison (the warm-up counts as one period).
    next_in: Duration,
    /// The mode being timed by the running comparison (`None`: no comparison running).
    probing: Option<bool>,
    /// Whether the running comparison's mode has run its first (left out) iteration.
    started: bool,
    /// Iterating time of the running comparison's mode so far (kept iterations).
    spent: Duration,
    /// Iterating time of the running comparison so far (every iteration).
    comparing: Duration,
    /// Seconds per node of the kept iterations of the running comparison: alone, on the
    /// team.
    samples: [Vec<f64>; 2],
    /// Iterations run alone and on the team.
    counts: [u64; 2],
}

impl Pacer {
    /// A pacer that starts on the team.
    pub fn new(pacing: Pacing) -> Self {
        Pacer {
            pacing,
            use_team: true,
            next_in: WARMUP,
            probing: None,
            started: false,
            spent: Duration::ZERO,
            comparing: Duration::ZERO,
            samples: [Vec::new(), Vec::new()],
            counts: [0; 2],
        }
    }

    /// Whether the next iteration runs on the team.
    pub fn team_next(&mut self) -> bool {
        match self.pacing {
            Pacing::Team => true,
            Pacing::Alternate => self.counts[0] > self.counts[1],
            Pacing::Measured => {
                if self.probing.is_none() && self.next_in.is_zero() {
                    self.probing = Some(false);
                    self.started = false;
                    self.spent = Duration::ZERO;
                    self.comparing = Duration::ZERO;
                    self.samples.iter_mut().for_each(Vec::clear);
                }
                self.probing.unwrap_or(self.use_team)
            }
        }
    }

    /// Records an iteration that ran on the team (or not), computed `nodes` nodes and took
    /// `took`.
    pub fn record(&mut self, team: bool, took: Duration, nodes: usize) {
        self.counts[team as usize] += 1;
        if self.pacing != Pacing::Measured {
            return;
        }
        let Some(mode) = self.probing else {
            self.next_in = self.next_in.saturating_sub(took);
            return;
        };
        debug_assert_eq!(mode, team, "the pacer chose the mode");
        self.comparing += took;
        if !self.started {
            self.started = true;
            return;
        }
        self.spent += took;
        let kept = &mut self.samples[mode as usize];
        kept.push(took.as_secs_f64() / nodes.max(1) as f64);
        if self.spent < WINDOW || kept.len() < SAMPLES {
            return;
        }
        if !mode {
            // Alone done: now the team.
            self.probing = Some(true);
            self.started = false;
            self.spent = Duration::ZERO;
            return;
        }
        let [alone, on_team] = [0, 1].map(|m| median(&mut self.samples[m]));
        self.use_team = on_team * MARGIN < alone;
        self.probing = None;
        let period = if self.use_team {
            PERIOD_TEAM
        } else {
            PERIOD_ALONE
        };
        self.next_in = period.max(self.comparing * PERIODS_PER_COMPARISON);
    }

    /// Iterations run on the team so far.
    pub fn team_iterations(&self) -> u64 {
        self.counts[1]
    }
}

/// The median of `xs` (not empty), sorting it.
fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `n` iterations of 1000 nodes through `p`, each taking `alone` or `team`
    /// microseconds by mode; returns the modes in order.
    fn run(p: &mut Pacer, n: usize, alone: u64, team: u64) -> Vec<bool> {
        (0..n)
            .map(|_| {
                let on_team = p.team_next();
                let took = Duration::from_micros(if on_team { team } else { alone });
                p.record(on_team, took, 1000);
                on_team
            })
            .collect()
    }

    /// The runs of equal modes in `modes`: (mode, length).
    fn runs(modes: &[bool]) -> Vec<(bool, usize)> {
        let mut out: Vec<(bool, usize)> = Vec::new();
        for &m in modes {
            match out.last_mut() {
                Some((last, n)) if *last == m => *n += 1,
                _ => out.push((m, 1)),
            }
        }
        out
    }

    #[test]
    fn a_slower_team_is_left_and_a_faster_one_taken_again() {
        let mut p = Pacer::new(Pacing::Measured);
        let (t, f) = (true, false);
        let modes = run(&mut p, 825, 1000, 1200);
        // Warm-up on the team (209 x 1.2 ms >= 250 ms), then 1 + 20 iterations alone and
        // 1 + 17 on the team (>= 20 ms after each first); the team is slower, so alone for
        // 500 ms, and the next comparison finds the same.
        assert_eq!(
            runs(&modes),
            [(t, 209), (f, 21), (t, 18), (f, 500 + 21), (t, 18), (f, 38)]
        );
        // The team gets faster: after the 462 ms left alone, a comparison takes it, and it
        // keeps it for 2 s of iterating.
        let modes = run(&mut p, 3000, 1000, 400);
        assert_eq!(runs(&modes), [(f, 462 + 21), (t, 51 + 2466)]);
        assert_eq!(p.team_iterations(), 209 + 18 + 18 + 51 + 2466);
    }

    #[test]
    fn slow_iterations_are_compared_seldom() {
        // Iterations of 5 s alone and 3 s on the team: the warm-up is one iteration, the
        // comparison 3 alone and 3 on the team (24 s), the next one 10 x 24 s later.
        let mut p = Pacer::new(Pacing::Measured);
        let modes = run(&mut p, 104, 5_000_000, 3_000_000);
        let (t, f) = (true, false);
        assert_eq!(runs(&modes), [(t, 1), (f, 3), (t, 3 + 80), (f, 3), (t, 14)]);
    }

    #[test]
    fn measured_wants_the_team_clearly_faster() {
        // 3% faster on the team is within the margin: alone.
        let mut p = Pacer::new(Pacing::Measured);
        let modes = run(&mut p, 400, 1000, 970);
        assert!(modes[..258].iter().all(|&t| t) && !modes[399]);
        let mut p = Pacer::new(Pacing::Measured);
        let modes = run(&mut p, 400, 1000, 900);
        assert!(modes[..278].iter().all(|&t| t) && !modes[278] && modes[399]);
    }

    /// Plays one comparison right after the warm-up: `(microseconds, nodes)` per iteration
    /// alone and on the team (each mode's first iteration is left out); returns whether the
    /// pacer then keeps the team.
    fn compare(alone: &[(u64, usize)], team: &[(u64, usize)]) -> bool {
        let mut p = Pacer::new(Pacing::Measured);
        run(&mut p, 250, 1000, 1000);
        for (mode, its) in [(false, alone), (true, team)] {
            for &(micros, nodes) in its {
                assert_eq!(p.team_next(), mode);
                p.record(mode, Duration::from_micros(micros), nodes);
            }
        }
        assert!(p.probing.is_none(), "the comparison is over");
        p.team_next()
    }

    #[test]
    fn the_median_per_node_of_each_mode_decides() {
        // Slow first iterations (the switch) and one descheduled iteration change nothing.
        let alone = [(50_000, 10), (10_000, 10), (10_000, 10)];
        assert!(compare(
            &alone,
            &[(90_000, 10), (5_000, 10), (5_000, 10), (60_000, 10)]
        ));
        // Iterations alone that computed fewer nodes (pruning) are not taken as faster.
        let alone = [(5_000, 1000), (10_000, 1000), (10_000, 1000)];
        assert!(compare(
            &alone,
            &[(12_000, 2000), (12_000, 2000), (12_000, 2000)]
        ));
        assert!(!compare(
            &alone,
            &[(12_000, 1000), (12_000, 1000), (12_000, 1000)]
        ));
    }

    #[test]
    fn team_and_alternate_follow_their_rule() {
        let mut p = Pacer::new(Pacing::Team);
        assert!(run(&mut p, 500, 1, 1000).iter().all(|&t| t));
        let mut p = Pacer::new(Pacing::Alternate);
        let modes = run(&mut p, 6, 1, 1);
        assert_eq!(modes, [false, true, false, true, false, true]);
    }
}
