//! A CFR-family run that can be interrupted, saved and continued bit for bit.
//!
//! [`drive`] follows [`CfrSolver::run`]'s measurement schedule (exploitability at roughly
//! geometrically spaced iterations, at most `max_check_gap` apart, and at the end) but keeps the
//! schedule in a [`Schedule`] that a checkpoint stores: a resumed run measures at exactly the
//! iterations an uninterrupted run would, so its curve, regrets and average strategy are the
//! same bits. A run's closing measurement that falls between scheduled ones is reported but not
//! added to the schedule, for the same reason.

use crate::eval::exploitability;
use crate::game::Game;
use crate::solve::cfr::{CfrSolver, CurvePoint, Progress, StopRule, Target};
use std::time::{Duration, Instant};

/// Where a run stands in its measurement schedule.
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Iteration at which the next scheduled measurement falls.
    pub next_check: u64,
    /// Scheduled measurements so far.
    pub points: Vec<CurvePoint>,
    /// Solving time before this session (seconds, excluding measurements and checkpoints).
    pub solve_seconds: f64,
}

impl Schedule {
    /// The schedule of a run that has not started (`iterations` = the solver's count, 0).
    pub fn start(iterations: u64) -> Self {
        Schedule {
            next_check: iterations + 1,
            points: Vec::new(),
            solve_seconds: 0.0,
        }
    }
}

/// Wall time one batch of iterations between the loop's checks (clock, time limit,
/// interrupt, checkpoint, progress callback) aims at: iterations of a few microseconds run in
/// batches, so those checks cost nothing per iteration, and a time limit or an interrupt is
/// still seen within about this long.
const BATCH_TARGET: Duration = Duration::from_millis(1);
/// The largest batch.
const BATCH_MAX: u64 = 1 << 20;

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// The iteration limit was reached.
    Iterations,
    /// The exploitability target was met.
    Target,
    /// The time limit was reached.
    Time,
    /// The interrupt callback asked to stop.
    Interrupted,
}

/// How a run ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Why it stopped.
    pub reason: StopReason,
    /// The scheduled points plus the closing measurement when it was not scheduled.
    pub points: Vec<CurvePoint>,
}

/// Periodic saving: called with the solver and the schedule every `every` of solving time.
pub struct Saver<'a> {
    /// Time between saves.
    pub every: Duration,
    /// Writes a checkpoint.
    pub save: &'a mut dyn FnMut(&CfrSolver, &Schedule) -> anyhow::Result<()>,
}

/// Runs `solver` until `stop` is met or `interrupted()` says so, measuring on `schedule`.
/// `stop.time` counts this session's solving time only; `stop.max_iterations` is the total.
/// Iterations run in batches of about [`BATCH_TARGET`] (never past a scheduled measurement or
/// the iteration limit); `on_progress` is called after every batch and with every measured
/// point.
#[allow(clippy::too_many_arguments)]
pub fn drive(
    solver: &mut CfrSolver,
    game: &Game,
    stop: &StopRule,
    max_check_gap: u64,
    schedule: &mut Schedule,
    interrupted: &dyn Fn() -> bool,
    mut saver: Option<Saver>,
    mut on_progress: impl FnMut(Progress),
) -> anyhow::Result<Outcome> {
    let (lo, hi) = game.payoff_range();
    let target = stop.target.map(|t| match t {
        Target::Absolute(e) => e,
        Target::FractionOfRange(f) => f * (hi - lo),
    });
    let start = Instant::now();
    let mut excluded = Duration::ZERO;
    let mut last_save = Duration::ZERO;
    let mut batch: u64 = 1;
    loop {
        let session = start.elapsed().saturating_sub(excluded);
        let stop_signal = interrupted();
        let out_of_time = stop.time.is_some_and(|limit| session >= limit);
        let out_of_iterations = stop
            .max_iterations
            .is_some_and(|n| solver.iterations() >= n);
        let finishing = out_of_time || out_of_iterations || stop_signal;
        let reason = if stop_signal {
            StopReason::Interrupted
        } else if out_of_iterations {
            StopReason::Iterations
        } else {
            StopReason::Time
        };
        let scheduled = solver.iterations() >= schedule.next_check;
        // A resumed run that has nothing left to do closes on the point its schedule already
        // holds for this iteration, rather than measuring it a second time.
        let measured = schedule
            .points
            .last()
            .filter(|p| p.iteration == solver.iterations() && solver.iterations() > 0);
        if finishing && !scheduled && measured.is_some() {
            schedule.solve_seconds += session.as_secs_f64();
            return Ok(Outcome {
                reason,
                points: schedule.points.clone(),
            });
        }
        if (scheduled || finishing) && solver.iterations() > 0 {
            let eval_start = Instant::now();
            let e = exploitability(game, &solver.average_profile()).exploitability;
            excluded += eval_start.elapsed();
            let point = CurvePoint {
                iteration: solver.iterations(),
                exploitability: e,
                seconds: schedule.solve_seconds + session.as_secs_f64(),
            };
            on_progress(Progress {
                iteration: solver.iterations(),
                point: Some(&point),
            });
            let mut points = schedule.points.clone();
            if scheduled {
                schedule.points.push(point);
                let gap = (solver.iterations() / 10).clamp(1, max_check_gap.max(1));
                schedule.next_check = solver.iterations() + gap;
            } else {
                points.push(point);
            }
            let met = target.is_some_and(|t| e <= t);
            if finishing || met {
                schedule.solve_seconds += session.as_secs_f64();
                let points = if scheduled {
                    schedule.points.clone()
                } else {
                    points
                };
                let reason = if met && !finishing {
                    StopReason::Target
                } else {
                    reason
                };
                return Ok(Outcome { reason, points });
            }
        } else if finishing {
            schedule.solve_seconds += session.as_secs_f64();
            return Ok(Outcome {
                reason,
                points: schedule.points.clone(),
            });
        }
        if let Some(s) = saver.as_mut() {
            if session.saturating_sub(last_save) >= s.every {
                let save_start = Instant::now();
                let mut snapshot = schedule.clone();
                snapshot.solve_seconds += session.as_secs_f64();
                (s.save)(solver, &snapshot)?;
                excluded += save_start.elapsed();
                last_save = session;
            }
        }
        let done = solver.iterations();
        let mut k = batch.min(schedule.next_check.saturating_sub(done).max(1));
        if let Some(n) = stop.max_iterations {
            k = k.min(n.saturating_sub(done).max(1));
        }
        let batch_start = Instant::now();
        solver.iterate(k);
        // Grow or shrink the batch towards BATCH_TARGET (only a batch that ran in full tells).
        let took = batch_start.elapsed();
        if took > 2 * BATCH_TARGET {
            batch = (batch / 2).max(1);
        } else if k == batch && took < BATCH_TARGET / 2 {
            batch = (batch * 2).min(BATCH_MAX);
        }
        on_progress(Progress {
            iteration: solver.iterations(),
            point: None,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kuhn::kuhn_poker;
    use crate::solve::cfr::RegretParams;

    /// With no interruption, `drive` measures at the same iterations and values as
    /// `CfrSolver::run`.
    #[test]
    fn matches_cfr_solver_run() {
        let g = kuhn_poker().unwrap();
        let stop = StopRule {
            max_iterations: Some(300),
            ..Default::default()
        };
        let mut a = CfrSolver::new(&g, RegretParams::cfr_plus());
        let expected = a.run(&g, &stop, 50, |_| {});
        let mut b = CfrSolver::new(&g, RegretParams::cfr_plus());
        let mut schedule = Schedule::start(0);
        let out = drive(
            &mut b,
            &g,
            &stop,
            50,
            &mut schedule,
            &|| false,
            None,
            |_| {},
        )
        .unwrap();
        let key = |p: &[CurvePoint]| -> Vec<(u64, u64)> {
            p.iter()
                .map(|x| (x.iteration, x.exploitability.to_bits()))
                .collect()
        };
        assert_eq!(key(&out.points), key(&expected));
        assert_eq!(out.reason, StopReason::Iterations);
    }

    /// Driving a finished run again (a resumed checkpoint with nothing left to do) keeps its
    /// curve: no second point for an iteration the schedule has already measured.
    #[test]
    fn a_finished_run_driven_again_adds_no_point() {
        let g = kuhn_poker().unwrap();
        // 284 is a scheduled check (1, 2, ..., 259, 284 with gaps of a tenth, at most 50).
        let stop = StopRule {
            max_iterations: Some(284),
            ..Default::default()
        };
        let mut solver = CfrSolver::new(&g, RegretParams::cfr_plus());
        let mut schedule = Schedule::start(0);
        let run = |solver: &mut CfrSolver, schedule: &mut Schedule| {
            drive(solver, &g, &stop, 50, schedule, &|| false, None, |_| {}).unwrap()
        };
        let first = run(&mut solver, &mut schedule);
        assert_eq!(schedule.points.last().map(|p| p.iteration), Some(284));
        let again = run(&mut solver, &mut schedule);
        let key = |p: &[CurvePoint]| -> Vec<(u64, u64)> {
            p.iter()
                .map(|x| (x.iteration, x.exploitability.to_bits()))
                .collect()
        };
        assert_eq!(key(&again.points), key(&first.points));
        assert_eq!(again.reason, StopReason::Iterations);
        assert_eq!(solver.iterations(), 284);
    }
}
