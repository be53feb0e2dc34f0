//! The one run loop of the CFR family, used by every front end: stop rules, the schedule of
//! exploitability checks, checkpoints, interrupts, progress and the convergence curve.
//!
//! A [`CfrRun`] is a solver, its measurement [`Schedule`] and what it was started with. It is
//! made by [`CfrRun::start`] from a [`CfrRequest`] (an algorithm of the
//! [registry](crate::solve::registry) with the caller's options) or by [`CfrRun::resume`] from a
//! checkpoint, which checks that the caller's request fits the run it continues. [`CfrRun::run`]
//! iterates until a [`StopRule`] is met, asking its [`Hooks`] between batches whether to stop
//! (Ctrl-C in a host language, a signal), when to save, and telling them how it goes.
//!
//! Exploitability is measured on the average strategy at roughly geometrically spaced
//! iterations (the gap is a tenth of the iterations done, at least 1 and at most
//! `check_every`) and at the end. The schedule is part of the run's state, and a checkpoint
//! stores it: a resumed run measures at exactly the iterations an uninterrupted run would, so
//! its curve, regrets and average strategy are the same bits. A closing measurement that
//! falls between scheduled ones is reported but not added to the schedule, for the same
//! reason. Iterations run in batches of about [`BATCH_TARGET`] of wall time, never past a
//! scheduled measurement or the iteration limit, so iterations of a few microseconds pay
//! nothing for the loop's checks and an interrupt is still seen within about that long.

use crate::cfr::checkpoint::{game_fingerprint, Checkpoint};
use crate::cfr::{CfrSolver, Kernel, Pacing, RegretParams};
use crate::eval::exploitability_locked;
use crate::game::Game;
use crate::lock::Lock;
use crate::solve::registry::{self, Algorithm, AlgorithmError, CfrOptions, Family};
use crate::solve::{Threads, ThreadsError};
use crate::strategy::Profile;
use std::time::{Duration, Instant};

/// When a run stops: whichever given limit is reached first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StopRule {
    /// Stop after this many iterations in all (a resumed run counts the earlier ones).
    pub max_iterations: Option<u64>,
    /// Stop once the average strategy's exploitability is at most this.
    pub target: Option<Target>,
    /// Stop after this much solving time in this call (measurements excluded).
    pub time: Option<Duration>,
}

impl StopRule {
    /// Whether any limit is given (a run without one would never end).
    pub fn is_set(&self) -> bool {
        self.max_iterations.is_some() || self.target.is_some() || self.time.is_some()
    }
}

/// A target exploitability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// In payoff units (chips), OpenSpiel's exploitability = NashConv / 2.
    Absolute(f64),
    /// As a fraction of the payoff range `max payoff0 - min payoff0` over terminals.
    FractionOfRange(f64),
}

pub use crate::curve::CurvePoint;

/// What a run reports as it goes.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Iterations done.
    pub iteration: u64,
    /// The point measured at this iteration, if any.
    pub point: Option<&'a CurvePoint>,
}

/// Where a run stands in its measurement schedule (stored in checkpoints).
#[derive(Clone, Debug, PartialEq)]
pub struct Schedule {
    /// Iteration at which the next scheduled measurement falls.
    pub next_check: u64,
    /// Scheduled measurements so far.
    pub points: Vec<CurvePoint>,
    /// Solving time of the earlier sessions (seconds, excluding measurements and checkpoints).
    pub solve_seconds: f64,
}

impl Schedule {
    /// The schedule of a run that has not started.
    pub fn start() -> Self {
        Schedule {
            next_check: 1,
            points: Vec::new(),
            solve_seconds: 0.0,
        }
    }
}

/// Wall time one batch of iterations between the loop's checks aims at.
pub const BATCH_TARGET: Duration = Duration::from_millis(1);
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
    /// The hooks asked to stop.
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

impl Outcome {
    /// The last measurement (`None` for a run that did no iteration).
    pub fn last(&self) -> Option<&CurvePoint> {
        self.points.last()
    }
}

/// What a run asks of its caller as it goes; every method has a do-nothing default.
pub trait Hooks {
    /// After every batch of iterations, and with every measured point.
    fn progress(&mut self, _progress: Progress<'_>) {}
    /// Asked between batches: `true` stops the run (after a whole iteration).
    fn interrupted(&mut self) -> bool {
        false
    }
    /// Solving time between checkpoints (`None`: never).
    fn checkpoint_every(&self) -> Option<Duration> {
        None
    }
    /// Saves a checkpoint (every [`Hooks::checkpoint_every`] of solving time).
    fn save(&mut self, _checkpoint: &Checkpoint) -> Result<(), SaveError> {
        Ok(())
    }
}

/// Hooks that do nothing: run to the stop rule.
pub struct NoHooks;

impl Hooks for NoHooks {}

/// A checkpoint that could not be saved (the caller's error, boxed).
pub type SaveError = Box<dyn std::error::Error + Send + Sync>;

/// What a CFR-family run is started with.
#[derive(Clone, Copy, Debug)]
pub struct CfrRequest {
    /// The algorithm (`None`: the registry's default, or the checkpoint's on resume).
    pub algorithm: Option<&'static Algorithm>,
    /// The caller's options (on resume: only checked against the checkpoint's).
    pub options: CfrOptions,
    /// The planned number of iterations (the schedules need it).
    pub horizon: Option<u64>,
    /// Worker threads (results never depend on them).
    pub threads: Threads,
    /// Run every iteration on the team, even where one thread was timed faster.
    pub always_threads: bool,
    /// Largest gap in iterations between exploitability measurements.
    pub check_every: u64,
    /// The kernel (`None`: by the game's shape, [`Kernel::for_game`], or the checkpoint's on
    /// resume).
    pub kernel: Option<Kernel>,
}

impl Default for CfrRequest {
    fn default() -> Self {
        CfrRequest {
            algorithm: None,
            options: CfrOptions::default(),
            horizon: None,
            threads: Threads::Available,
            always_threads: false,
            check_every: 1000,
            kernel: None,
        }
    }
}

/// Why a run could not be started, continued or saved.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The algorithm or its options.
    #[error(transparent)]
    Algorithm(#[from] AlgorithmError),
    /// The thread count.
    #[error(transparent)]
    Threads(#[from] ThreadsError),
    /// `check_every` of 0.
    #[error("check_every 0: expected at least 1")]
    CheckEvery,
    /// A checkpoint of another game.
    #[error(
        "the checkpoint was written for another game (spec {}, fingerprint {checkpoint_fingerprint:016x}); \
         {} has fingerprint {fingerprint:016x}",
        crate::format::text::quoted(.checkpoint_spec),
        crate::format::text::quoted(.spec)
    )]
    OtherGame {
        /// The checkpoint's game spec.
        checkpoint_spec: String,
        /// Its fingerprint.
        checkpoint_fingerprint: u64,
        /// The game given now.
        spec: String,
        /// Its fingerprint.
        fingerprint: u64,
    },
    /// A checkpoint of another algorithm.
    #[error("the checkpoint is a {checkpoint} run; it cannot continue as {asked}")]
    OtherAlgorithm {
        /// The checkpoint's algorithm.
        checkpoint: String,
        /// The one asked for.
        asked: &'static str,
    },
    /// Options that differ from the checkpoint's.
    #[error("the checkpoint was run with {checkpoint:?}; the options given ask for {asked:?}")]
    OtherParams {
        /// The checkpoint's parameters.
        checkpoint: Box<RegretParams>,
        /// The parameters the options give.
        asked: Box<RegretParams>,
    },
    /// Another measurement schedule.
    #[error("the checkpoint measured with check_every {checkpoint}; give the same (got {asked})")]
    OtherSchedule {
        /// The checkpoint's.
        checkpoint: u64,
        /// The one asked for.
        asked: u64,
    },
    /// An iteration goal the checkpoint has already passed.
    #[error("the checkpoint already has {done} iterations, more than the {goal} asked for in all")]
    AlreadyDone {
        /// Iterations in the checkpoint.
        done: u64,
        /// The run's total asked for.
        goal: u64,
    },
    /// A checkpoint written by the other kernel: its state would continue, but not to the
    /// same bits, so the run is refused (leave the kernel unset to continue on the
    /// checkpoint's).
    #[error(
        "the checkpoint was run with the {} kernel; it continues only on it (asked: {})",
        .checkpoint.name(),
        .asked.name()
    )]
    OtherKernel {
        /// The checkpoint's kernel.
        checkpoint: Kernel,
        /// The one asked for.
        asked: Kernel,
    },
    /// The kernel could not be built for the game.
    #[error(transparent)]
    Kernel(Box<crate::error::Error>),
    /// A checkpoint whose state does not fit the game.
    #[error("the checkpoint's state: {0}")]
    BadState(String),
    /// The exact LP asked for as a CFR run.
    #[error("lp is the exact sequence-form LP; it runs through exact, not as a CFR run")]
    NotCfr,
    /// No stop rule.
    #[error("give a stop rule: an iteration count, a target exploitability or a time limit")]
    NoStopRule,
    /// The hooks failed to save a checkpoint.
    #[error("saving the checkpoint: {0}")]
    Save(SaveError),
}

/// A CFR-family run: solver, schedule, and what it was started with.
pub struct CfrRun {
    solver: CfrSolver,
    schedule: Schedule,
    algorithm: &'static Algorithm,
    check_every: u64,
    spec: String,
    fingerprint: u64,
    threads: usize,
    resumed_at: Option<u64>,
    /// The locked sets (`None`: nothing locked).
    lock: Option<Lock>,
    /// The lock as its checkpoint stores it ("" when nothing is locked).
    lock_text: String,
    /// Resumed from a checkpoint saved under another lock (or none): a warm start.
    warm_start: bool,
    /// The checkpoint resumed had no lock.
    checkpoint_lock_was_empty: bool,
}

impl CfrRun {
    /// Starts a run of `request` on `game` (named `spec` in checkpoints).
    pub fn start(game: &Game, spec: &str, request: &CfrRequest) -> Result<Self, RunError> {
        Self::start_locked(game, spec, request, None)
    }

    /// [`CfrRun::start`] with `lock`'s sets fixed: they play the lock, the others are solved,
    /// and every measurement is the locked game's exploitability.
    pub fn start_locked(
        game: &Game,
        spec: &str,
        request: &CfrRequest,
        lock: Option<&Lock>,
    ) -> Result<Self, RunError> {
        let algorithm = request.algorithm.unwrap_or(registry::default_algorithm());
        if algorithm.family != Family::Cfr {
            return Err(RunError::NotCfr);
        }
        if request.check_every == 0 {
            return Err(RunError::CheckEvery);
        }
        let params = algorithm.regret_params(&request.options, request.horizon)?;
        let threads = request.threads.count()?;
        let kernel = request.kernel.unwrap_or_else(|| Kernel::for_game(game));
        let mut solver = CfrSolver::with_kernel(game, params, kernel)
            .map_err(|e| RunError::Kernel(Box::new(e)))?;
        if let Some(lock) = lock {
            solver = solver.with_lock(game, lock);
        }
        let mut run = Self::with(
            game,
            spec,
            solver,
            Schedule::start(),
            algorithm,
            request,
            threads,
            None,
        )?;
        run.lock = lock.filter(|l| !l.is_empty()).cloned();
        run.lock_text = run
            .lock
            .as_ref()
            .map_or_else(String::new, |l| l.canonical(game));
        Ok(run)
    }

    /// Continues the run saved in `checkpoint` on `game` (named `spec`). The request's
    /// algorithm and options are only checked against the checkpoint's (those left unset come
    /// from it); its `check_every` must be the checkpoint's; its threads and pacing apply.
    pub fn resume(
        game: &Game,
        spec: &str,
        checkpoint: Checkpoint,
        request: &CfrRequest,
    ) -> Result<Self, RunError> {
        Self::resume_locked(game, spec, checkpoint, request, None)
    }

    /// [`CfrRun::resume`] under `lock`: with the checkpoint's own lock the run continues to
    /// the same bits; under another lock (or none where it had one, or one where it had none)
    /// it is a warm start ([`CfrRun::warm_start`]): the regrets and the current strategy
    /// continue, the average strategy restarts, the sets now locked play their lock.
    pub fn resume_locked(
        game: &Game,
        spec: &str,
        checkpoint: Checkpoint,
        request: &CfrRequest,
        lock: Option<&Lock>,
    ) -> Result<Self, RunError> {
        let c = checkpoint;
        let fingerprint = game_fingerprint(game);
        if c.fingerprint != fingerprint {
            return Err(RunError::OtherGame {
                checkpoint_spec: c.game_spec,
                checkpoint_fingerprint: c.fingerprint,
                spec: spec.to_string(),
                fingerprint,
            });
        }
        let algorithm = registry::algorithm(&c.algo)?;
        if let Some(asked) = request.algorithm.filter(|a| a.name != algorithm.name) {
            return Err(RunError::OtherAlgorithm {
                checkpoint: c.algo,
                asked: asked.name,
            });
        }
        let given = request.options != CfrOptions::default();
        if given {
            // A schedule keeps the horizon it started with.
            let horizon = c.params.schedule.map(|s| s.horizon);
            let asked = algorithm.regret_params(&request.options, horizon.or(Some(1)))?;
            // Only the options given are compared; the rest come from the checkpoint.
            let mut expected = c.params;
            let o = &request.options;
            if o.updates.is_none() {
                expected.alternating = asked.alternating;
            }
            if o.alpha.is_none() {
                expected.alpha = asked.alpha;
            }
            if o.beta.is_none() {
                expected.beta = asked.beta;
            }
            if o.gamma.is_none() {
                expected.gamma = asked.gamma;
            }
            if expected != asked {
                return Err(RunError::OtherParams {
                    checkpoint: Box::new(c.params),
                    asked: Box::new(asked),
                });
            }
        }
        if c.check_every != request.check_every {
            return Err(RunError::OtherSchedule {
                checkpoint: c.check_every,
                asked: request.check_every,
            });
        }
        if let Some(asked) = request.kernel.filter(|&k| k != c.kernel) {
            return Err(RunError::OtherKernel {
                checkpoint: c.kernel,
                asked,
            });
        }
        let lock = lock.filter(|l| !l.is_empty());
        let asked = lock.map_or_else(String::new, |l| l.canonical(game));
        let warm_start = asked != c.lock;
        let mut c = c;
        if warm_start {
            // The average belongs to the game of the other lock: it restarts, while the
            // regrets and the current strategy carry over.
            for (name, values) in c.state.arrays.iter_mut() {
                if name.starts_with("strategy_sum") {
                    values.fill(0.0);
                }
            }
        }
        let mut solver = CfrSolver::restore_with(game, c.params, &c.state, c.kernel)
            .map_err(|e| RunError::BadState(e.to_string()))?;
        let checkpoint_lock_was_empty = c.lock.is_empty();
        if let Some(lock) = lock {
            solver = solver.with_lock(game, lock);
        }
        let done = solver.iterations();
        let threads = request.threads.count()?;
        let schedule = Schedule {
            next_check: c.next_check,
            points: c.points,
            solve_seconds: c.solve_seconds,
        };
        let mut run = Self::with(
            game,
            spec,
            solver,
            schedule,
            algorithm,
            request,
            threads,
            Some(done),
        )?;
        run.lock = lock.cloned();
        run.lock_text = asked;
        run.warm_start = warm_start;
        run.checkpoint_lock_was_empty = checkpoint_lock_was_empty;
        Ok(run)
    }

    #[allow(clippy::too_many_arguments)]
    fn with(
        game: &Game,
        spec: &str,
        mut solver: CfrSolver,
        schedule: Schedule,
        algorithm: &'static Algorithm,
        request: &CfrRequest,
        threads: usize,
        resumed_at: Option<u64>,
    ) -> Result<Self, RunError> {
        if request.always_threads {
            solver = solver.with_pacing(Pacing::Team);
        }
        let solver = solver.with_threads(threads)?;
        Ok(CfrRun {
            solver,
            schedule,
            algorithm,
            check_every: request.check_every,
            spec: spec.to_string(),
            fingerprint: game_fingerprint(game),
            threads,
            resumed_at,
            lock: None,
            lock_text: String::new(),
            warm_start: false,
            checkpoint_lock_was_empty: true,
        })
    }

    /// Runs until `stop` is met or the hooks interrupt; `stop.max_iterations` counts the run's
    /// total (a resumed run's earlier iterations included), `stop.time` this call's solving.
    pub fn run(
        &mut self,
        game: &Game,
        stop: &StopRule,
        hooks: &mut dyn Hooks,
    ) -> Result<Outcome, RunError> {
        if !stop.is_set() {
            return Err(RunError::NoStopRule);
        }
        if let Some(goal) = stop.max_iterations {
            let done = self.solver.iterations();
            if goal < done {
                return Err(RunError::AlreadyDone { done, goal });
            }
        }
        let (lo, hi) = game.payoff_range();
        let target = stop.target.map(|t| match t {
            Target::Absolute(e) => e,
            Target::FractionOfRange(f) => f * (hi - lo),
        });
        let every = hooks.checkpoint_every();
        let start = Instant::now();
        let mut excluded = Duration::ZERO;
        let mut last_save = Duration::ZERO;
        let mut batch: u64 = 1;
        loop {
            let session = start.elapsed().saturating_sub(excluded);
            let stop_signal = hooks.interrupted();
            let out_of_time = stop.time.is_some_and(|limit| session >= limit);
            let done = self.solver.iterations();
            let out_of_iterations = stop.max_iterations.is_some_and(|n| done >= n);
            let finishing = out_of_time || out_of_iterations || stop_signal;
            let reason = if stop_signal {
                StopReason::Interrupted
            } else if out_of_iterations {
                StopReason::Iterations
            } else {
                StopReason::Time
            };
            let scheduled = done >= self.schedule.next_check;
            // A resumed run that has nothing left to do closes on the point its schedule
            // already holds for this iteration, rather than measuring it a second time.
            let measured = self
                .schedule
                .points
                .last()
                .filter(|p| p.iteration == done && done > 0);
            if finishing && !scheduled && measured.is_some() {
                self.schedule.solve_seconds += session.as_secs_f64();
                return Ok(Outcome {
                    reason,
                    points: self.schedule.points.clone(),
                });
            }
            if (scheduled || finishing) && done > 0 {
                let eval_start = Instant::now();
                let average = self.solver.average_profile();
                let e = exploitability_locked(game, &average, self.lock.as_ref()).exploitability;
                excluded += eval_start.elapsed();
                let point = CurvePoint {
                    iteration: done,
                    exploitability: e,
                    seconds: self.schedule.solve_seconds + session.as_secs_f64(),
                };
                hooks.progress(Progress {
                    iteration: done,
                    point: Some(&point),
                });
                let mut points = self.schedule.points.clone();
                if scheduled {
                    self.schedule.points.push(point);
                    let gap = (done / 10).clamp(1, self.check_every.max(1));
                    self.schedule.next_check = done + gap;
                } else {
                    points.push(point);
                }
                let met = target.is_some_and(|t| e <= t);
                if finishing || met {
                    self.schedule.solve_seconds += session.as_secs_f64();
                    let points = if scheduled {
                        self.schedule.points.clone()
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
                self.schedule.solve_seconds += session.as_secs_f64();
                return Ok(Outcome {
                    reason,
                    points: self.schedule.points.clone(),
                });
            }
            if let Some(every) = every {
                if session.saturating_sub(last_save) >= every {
                    let save_start = Instant::now();
                    let mut checkpoint = self.checkpoint();
                    checkpoint.solve_seconds += session.as_secs_f64();
                    hooks.save(&checkpoint).map_err(RunError::Save)?;
                    excluded += save_start.elapsed();
                    last_save = session;
                }
            }
            let mut k = batch.min(self.schedule.next_check.saturating_sub(done).max(1));
            if let Some(n) = stop.max_iterations {
                k = k.min(n.saturating_sub(done).max(1));
            }
            let batch_start = Instant::now();
            self.solver.iterate(k);
            // Grow or shrink the batch towards BATCH_TARGET (only a full batch tells).
            let took = batch_start.elapsed();
            if took > 2 * BATCH_TARGET {
                batch = (batch / 2).max(1);
            } else if k == batch && took < BATCH_TARGET / 2 {
                batch = (batch * 2).min(BATCH_MAX);
            }
            hooks.progress(Progress {
                iteration: self.solver.iterations(),
                point: None,
            });
        }
    }

    /// The run as a checkpoint (resumed by [`CfrRun::resume`] to the same bits).
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            fingerprint: self.fingerprint,
            game_spec: self.spec.clone(),
            algo: self.algorithm.name.to_string(),
            params: self.solver.params(),
            check_every: self.check_every,
            next_check: self.schedule.next_check,
            solve_seconds: self.schedule.solve_seconds,
            points: self.schedule.points.clone(),
            state: self.solver.state(),
            kernel: self.solver.kernel(),
            lock: self.lock_text.clone(),
        }
    }

    /// The locked sets (`None`: nothing locked).
    pub fn lock(&self) -> Option<&Lock> {
        self.lock.as_ref()
    }

    /// Whether the run was resumed under another lock than its checkpoint's: a warm start,
    /// not the same bits as a fresh run.
    pub fn warm_start(&self) -> bool {
        self.warm_start
    }

    /// Whether a warm start began from a checkpoint saved without a lock.
    pub fn lock_changed_from_none(&self) -> bool {
        self.warm_start && self.checkpoint_lock_was_empty
    }

    /// The algorithm.
    pub fn algorithm(&self) -> &'static Algorithm {
        self.algorithm
    }

    /// Its regret parameters.
    pub fn params(&self) -> RegretParams {
        self.solver.params()
    }

    /// The game spec it was started with.
    pub fn spec(&self) -> &str {
        &self.spec
    }

    /// Iterations done in all.
    pub fn iterations(&self) -> u64 {
        self.solver.iterations()
    }

    /// The iterations a resumed run had when it was resumed (`None`: started afresh).
    pub fn resumed_at(&self) -> Option<u64> {
        self.resumed_at
    }

    /// The kernel it runs.
    pub fn kernel(&self) -> Kernel {
        self.solver.kernel()
    }

    /// The worker threads it runs with.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Whether a team of threads exists (a game too small to split runs on one).
    pub fn has_team(&self) -> bool {
        self.solver.has_team()
    }

    /// Iterations the team ran (the others ran on the calling thread, timed faster).
    pub fn team_iterations(&self) -> u64 {
        self.solver.team_iterations()
    }

    /// The scheduled measurements so far.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The average strategy (what the run converges to).
    pub fn average_profile(&self) -> Profile<f64> {
        self.solver.average_profile()
    }

    /// The strategy the next iteration plays.
    pub fn current_profile(&self) -> Profile<f64> {
        self.solver.current_profile()
    }

    /// Bytes of the solver's arrays beyond the game.
    pub fn solver_bytes(&self) -> usize {
        self.solver.memory_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kuhn::kuhn_poker;

    fn request(name: &str) -> CfrRequest {
        CfrRequest {
            algorithm: Some(registry::algorithm(name).unwrap()),
            threads: Threads::Exactly(1),
            check_every: 50,
            ..Default::default()
        }
    }

    /// The schedule measures at 1, 2, ..., 10, then every tenth of the iterations done, at most
    /// `check_every` apart, and once more at the end.
    #[test]
    fn measurements_follow_the_geometric_schedule() {
        let g = kuhn_poker().unwrap();
        let mut run = CfrRun::start(&g, "kuhn", &request("cfr+")).unwrap();
        let stop = StopRule {
            max_iterations: Some(300),
            ..Default::default()
        };
        let out = run.run(&g, &stop, &mut NoHooks).unwrap();
        let at: Vec<u64> = out.points.iter().map(|p| p.iteration).collect();
        let mut expected = vec![];
        let mut t = 1;
        while t < 300 {
            expected.push(t);
            t += (t / 10).clamp(1, 50);
        }
        expected.push(300);
        assert_eq!(at, expected);
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
        let mut run = CfrRun::start(&g, "kuhn", &request("cfr+")).unwrap();
        let first = run.run(&g, &stop, &mut NoHooks).unwrap();
        assert_eq!(run.schedule().points.last().map(|p| p.iteration), Some(284));
        let again = run.run(&g, &stop, &mut NoHooks).unwrap();
        let key = |p: &[CurvePoint]| -> Vec<(u64, u64)> {
            p.iter()
                .map(|x| (x.iteration, x.exploitability.to_bits()))
                .collect()
        };
        assert_eq!(key(&again.points), key(&first.points));
        assert_eq!(again.reason, StopReason::Iterations);
        assert_eq!(run.iterations(), 284);
    }

    /// A sequence-form run's checkpoint resumes on the sequence form to the same bits as a
    /// run never stopped (the kernel left unset), and asking for the tree is refused.
    #[test]
    fn a_checkpoint_resumes_on_its_kernel() {
        let g = kuhn_poker().unwrap();
        let seq = CfrRequest {
            kernel: Some(Kernel::Sequence),
            ..request("pdcfr+")
        };
        let stop = |n| StopRule {
            max_iterations: Some(n),
            ..Default::default()
        };
        let mut whole = CfrRun::start(&g, "kuhn", &seq).unwrap();
        whole.run(&g, &stop(60), &mut NoHooks).unwrap();
        assert_eq!(whole.kernel(), Kernel::Sequence);
        let mut part = CfrRun::start(&g, "kuhn", &seq).unwrap();
        part.run(&g, &stop(25), &mut NoHooks).unwrap();
        let saved = part.checkpoint();
        assert_eq!(saved.kernel, Kernel::Sequence);
        let tree = CfrRequest {
            kernel: Some(Kernel::Tree),
            ..request("pdcfr+")
        };
        let err = CfrRun::resume(&g, "kuhn", saved.clone(), &tree)
            .err()
            .unwrap();
        assert!(matches!(err, RunError::OtherKernel { .. }), "{err}");
        let mut resumed = CfrRun::resume(&g, "kuhn", saved, &request("pdcfr+")).unwrap();
        assert_eq!(resumed.kernel(), Kernel::Sequence);
        resumed.run(&g, &stop(60), &mut NoHooks).unwrap();
        assert_eq!(resumed.checkpoint().state, whole.checkpoint().state);
        // Kuhn's own choice is the tree.
        assert_eq!(
            CfrRun::start(&g, "kuhn", &request("cfr")).unwrap().kernel(),
            Kernel::Tree
        );
    }

    /// A run interrupted by its hooks stops after whole iterations and resumes from its
    /// checkpoint to the same bits as a run never interrupted.
    #[test]
    fn an_interrupted_run_resumes_to_the_same_bits() {
        struct StopAt(u64, u64);
        impl Hooks for StopAt {
            fn progress(&mut self, p: Progress<'_>) {
                self.1 = p.iteration;
            }
            fn interrupted(&mut self) -> bool {
                self.1 >= self.0
            }
        }
        let g = kuhn_poker().unwrap();
        let stop = StopRule {
            max_iterations: Some(200),
            ..Default::default()
        };
        let mut whole = CfrRun::start(&g, "kuhn", &request("dcfr")).unwrap();
        let whole_out = whole.run(&g, &stop, &mut NoHooks).unwrap();
        let mut part = CfrRun::start(&g, "kuhn", &request("dcfr")).unwrap();
        let out = part.run(&g, &stop, &mut StopAt(77, 0)).unwrap();
        assert_eq!(out.reason, StopReason::Interrupted);
        let saved = part.checkpoint();
        let mut resumed = CfrRun::resume(&g, "kuhn", saved, &request("dcfr")).unwrap();
        assert_eq!(resumed.resumed_at(), Some(part.iterations()));
        let resumed_out = resumed.run(&g, &stop, &mut NoHooks).unwrap();
        assert_eq!(resumed.checkpoint().state, whole.checkpoint().state);
        let key = |p: &[CurvePoint]| -> Vec<(u64, u64)> {
            p.iter()
                .map(|x| (x.iteration, x.exploitability.to_bits()))
                .collect()
        };
        assert_eq!(key(&resumed_out.points), key(&whole_out.points));
    }

    #[test]
    fn stop_rule_stops_at_target_and_iteration_cap() {
        let g = kuhn_poker().unwrap();
        let mut run = CfrRun::start(&g, "kuhn", &request("cfr+")).unwrap();
        let stop = StopRule {
            target: Some(Target::Absolute(1e-2)),
            ..StopRule::default()
        };
        let out = run.run(&g, &stop, &mut NoHooks).unwrap();
        assert_eq!(out.reason, StopReason::Target);
        let last = out.last().unwrap();
        assert!(last.exploitability <= 1e-2);
        assert!(out.points[..out.points.len() - 1]
            .iter()
            .all(|p| p.exploitability > 1e-2));
        let mut run = CfrRun::start(&g, "kuhn", &request("cfr")).unwrap();
        let stop = StopRule {
            max_iterations: Some(37),
            ..StopRule::default()
        };
        let out = run.run(&g, &stop, &mut NoHooks).unwrap();
        assert_eq!(run.iterations(), 37);
        assert_eq!(out.last().unwrap().iteration, 37);
        assert!(matches!(
            run.run(&g, &StopRule::default(), &mut NoHooks),
            Err(RunError::NoStopRule)
        ));
    }

    #[test]
    fn resuming_checks_the_request_against_the_checkpoint() {
        let g = kuhn_poker().unwrap();
        let mut run = CfrRun::start(&g, "kuhn", &request("dcfr")).unwrap();
        let stop = StopRule {
            max_iterations: Some(20),
            ..Default::default()
        };
        run.run(&g, &stop, &mut NoHooks).unwrap();
        let c = run.checkpoint();
        let other = CfrRun::resume(&g, "kuhn", c.clone(), &request("cfr+"));
        assert!(matches!(other, Err(RunError::OtherAlgorithm { .. })));
        let mut alpha = request("dcfr");
        alpha.options.alpha = Some(2.0);
        let other = CfrRun::resume(&g, "kuhn", c.clone(), &alpha);
        assert!(matches!(other, Err(RunError::OtherParams { .. })));
        let mut same_alpha = request("dcfr");
        same_alpha.options.alpha = Some(1.5);
        assert!(CfrRun::resume(&g, "kuhn", c.clone(), &same_alpha).is_ok());
        let mut gap = request("dcfr");
        gap.check_every = 7;
        let other = CfrRun::resume(&g, "kuhn", c.clone(), &gap);
        assert!(matches!(other, Err(RunError::OtherSchedule { .. })));
        let leduc = crate::games::leduc::leduc_poker().unwrap();
        let other = CfrRun::resume(&leduc, "leduc", c.clone(), &request("dcfr"));
        assert!(matches!(other, Err(RunError::OtherGame { .. })));
        let mut resumed = CfrRun::resume(&g, "kuhn", c, &request("dcfr")).unwrap();
        let back = StopRule {
            max_iterations: Some(10),
            ..Default::default()
        };
        assert!(matches!(
            resumed.run(&g, &back, &mut NoHooks),
            Err(RunError::AlreadyDone { done: 20, goal: 10 })
        ));
    }
}
