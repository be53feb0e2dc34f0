//! Monte Carlo CFR: external sampling and outcome sampling (with exploration and VR-MCCFR's
//! baselines) on any game stated by [`Rules`], arena games included.
//!
//! Why: full-traversal CFR touches every history every iteration and needs the arena, which
//! holds every history; games of 1e9 histories fit neither. A sampling iteration touches a few
//! hundred histories and keeps one table entry per information set reached
//! ([`table::Table`]), so memory grows with information sets, not histories.
//!
//! An iteration is one traversal per player, player 0 first (OpenSpiel's external-sampling
//! `run_iteration()`; its outcome-sampling `run_iteration()` is one traversal, so one bluff
//! outcome-sampling iteration is two of those). The regret and averaging rules come from
//! [`RegretParams`]: regret matching or regret matching+ (`floor`, applied at every update),
//! DCFR-style discounting of the sampled regrets (`alpha`, `beta`, `discount_offset`) applied
//! to the whole table once per epoch of [`MccfrParams::epoch`] iterations (epoch `k` plays the
//! part of CFR's iteration `t`, as Pluribus discounted linear MCCFR every few minutes), and
//! the average strategy weighted by `k^gamma` (linear averaging at `gamma = 1`).
//!
//! Random numbers come from the seed, the iteration and the player ([`rng`]), never from a
//! running stream, so the samples of an iteration do not depend on which thread draws them.
//! With one thread every update is applied at once. With `T` threads an iteration round of
//! `T * ROUND_SHARE` iterations reads the tables as they were at its start; each thread logs
//! its share's updates and the logs are applied in iteration order after the round, so a
//! seed and a thread count give the same bits on every run, and a checkpoint (taken between
//! rounds) continues a run bit for bit.

pub mod checkpoint;
mod rng;
mod store;
mod table;
mod walk;

use crate::cfr::RegretParams;
use crate::game::{Game, Rules};
use crate::strategy::Profile;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};
use store::{Direct, Log, Logging, Recording, Update};
pub use table::Table;
use walk::{Scratch, Setting, Store};

/// Iterations each thread runs per round (see the module docs).
pub const ROUND_SHARE: u64 = 32;

/// Which histories a traversal samples.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampling {
    /// The traverser tries every action; chance and the opponent are sampled.
    External,
    /// One path: the traverser's actions drawn `epsilon`-uniformly plus `(1 - epsilon)` of its
    /// strategy, the opponent's and chance's on-policy.
    Outcome {
        /// Exploration, in `(0, 1]` (OpenSpiel's default 0.6).
        epsilon: f64,
    },
}

/// Everything that decides a sampling run's updates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MccfrParams {
    /// External or outcome sampling.
    pub sampling: Sampling,
    /// Regret matching(+), discount exponents and averaging weight (`alternating` is implied,
    /// `predictive` and `schedule` are refused).
    pub regret: RegretParams,
    /// Iterations per discount epoch (the `t` of `regret`'s discounts and averaging weight).
    pub epoch: u64,
    /// VR-MCCFR baselines (at the traverser's nodes in outcome sampling, at the opponent's
    /// in external sampling): the learning rate of their exponential average (`None`: no
    /// baselines, OpenSpiel's samplers).
    pub baseline: Option<f64>,
}

impl MccfrParams {
    /// OpenSpiel's `ExternalSamplingMCCFRSolver`: regret matching, simple averaging.
    pub fn external() -> Self {
        MccfrParams {
            sampling: Sampling::External,
            regret: RegretParams::vanilla_alternating(),
            epoch: 1,
            baseline: None,
        }
    }

    /// OpenSpiel's `OutcomeSamplingMCCFRSolver` with exploration `epsilon`.
    pub fn outcome(epsilon: f64) -> Self {
        MccfrParams {
            sampling: Sampling::Outcome { epsilon },
            ..Self::external()
        }
    }

    /// Numbers per action in the tables: regret and average sum, and a baseline.
    fn width(&self) -> usize {
        if self.baseline.is_some() {
            3
        } else {
            2
        }
    }

    /// Whether a discount pass runs at epoch ends.
    fn discounts(&self) -> bool {
        self.regret.alpha.is_finite() || self.regret.beta.is_finite()
    }

    /// Checks the parameters make sense.
    pub fn check(&self) -> Result<(), MccfrError> {
        let bad = |s: &str| Err(MccfrError::Params(s.to_string()));
        let r = &self.regret;
        if r.predictive || r.schedule.is_some() {
            return bad("predictive updates and schedules are not sampling rules");
        }
        if self.epoch == 0 {
            return bad("the discount epoch must be at least 1 iteration");
        }
        if !(r.gamma.is_finite() && r.discount_offset.is_finite() && r.discount_offset > 0.0)
            || r.alpha.is_nan()
            || r.beta.is_nan()
        {
            return bad("gamma and the discount offset must be finite, the offset positive");
        }
        if let Sampling::Outcome { epsilon } = self.sampling {
            if !(epsilon > 0.0 && epsilon <= 1.0) {
                return bad("outcome sampling needs an exploration epsilon in (0, 1]");
            }
        }
        match self.baseline {
            Some(b) if !(b > 0.0 && b <= 1.0) => bad("the baseline rate must be in (0, 1]"),
            _ => Ok(()),
        }
    }
}

/// Why a sampling solver cannot start or continue.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum MccfrError {
    /// Parameters out of range.
    #[error("sampling solver parameters: {0}")]
    Params(String),
    /// The game's keys do not keep the rules contract.
    #[error("{0}")]
    Keys(String),
    /// More threads than the solvers take.
    #[error("{threads} threads: at most {max} (4 per available core, between 4 and 256)")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The most allowed.
        max: usize,
    },
    /// A saved state that does not fit this game or these parameters.
    #[error("saved sampling state: {0}")]
    State(String),
}

/// A sampling solver's whole state, for checkpoints: restoring it continues the run bit for bit.
#[derive(Clone, Debug, PartialEq)]
pub struct MccfrState {
    /// Parameters of the run.
    pub params: MccfrParams,
    /// Its seed.
    pub seed: u64,
    /// Its thread count (results depend on it, see the module docs).
    pub threads: usize,
    /// Iterations done.
    pub iterations: u64,
    /// Discount epochs applied.
    pub epochs_discounted: u64,
    /// Per player, the table entries in the order they were made: key and numbers
    /// (`width` per action: regrets, average sums, baselines).
    pub entries: [Vec<(u64, Vec<f64>)>; 2],
}

/// A Monte Carlo CFR solver over rules `G` (see the module docs).
pub struct MccfrSolver<'g, G: Rules> {
    rules: &'g G,
    params: MccfrParams,
    seed: u64,
    threads: usize,
    tables: [Table; 2],
    iterations: u64,
    epochs_discounted: u64,
    constant: f64,
    scratch: Vec<Scratch<G::State>>,
    logs: Vec<Log>,
    pool: Option<rayon::ThreadPool>,
}

impl<'g, G: Rules> MccfrSolver<'g, G> {
    /// A solver for `rules` with `params` and `seed` (one thread until
    /// [`MccfrSolver::with_threads`]).
    pub fn new(rules: &'g G, params: MccfrParams, seed: u64) -> Result<Self, MccfrError> {
        params.check()?;
        if rules.general_sum() && params.baseline.is_some() {
            return Err(MccfrError::Params(
                "baselines keep one value per action, player 1's, which a general-sum game \
                 does not determine: run outcome sampling without a baseline"
                    .into(),
            ));
        }
        if let Some(problem) = rules.key_problem() {
            return Err(MccfrError::Keys(problem));
        }
        let dense = rules.dense_keys();
        let width = params.width();
        Ok(MccfrSolver {
            rules,
            params,
            seed,
            threads: 1,
            tables: [0, 1].map(|p| Table::new(width, dense.map(|d| d[p]))),
            iterations: 0,
            epochs_discounted: 0,
            constant: crate::scalar::rational_to_f64(&rules.constant_sum()),
            scratch: vec![Scratch::default()],
            logs: Vec::new(),
            pool: None,
        })
    }

    /// Runs on `threads` threads (results depend on the count, see the module docs).
    pub fn with_threads(mut self, threads: usize) -> Result<Self, MccfrError> {
        if threads == 0 || crate::threads::too_many_threads(threads) {
            return Err(MccfrError::Threads {
                threads,
                max: crate::threads::max_threads(),
            });
        }
        self.threads = threads;
        self.pool = None;
        if threads > 1 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| MccfrError::Params(format!("starting {threads} threads: {e}")))?;
            self.pool = Some(pool);
        }
        self.scratch.resize_with(threads, Scratch::default);
        self.logs.resize_with(threads, Log::default);
        Ok(self)
    }

    /// The parameters.
    pub fn params(&self) -> MccfrParams {
        self.params
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The thread count.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Iterations done.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Iterations per round: 1 on one thread, `threads * ROUND_SHARE` on more. A run's
    /// iteration count moves by whole rounds.
    pub fn round(&self) -> u64 {
        if self.threads == 1 {
            1
        } else {
            self.threads as u64 * ROUND_SHARE
        }
    }

    /// Information sets with an entry, per player.
    pub fn num_infosets(&self) -> [usize; 2] {
        [self.tables[0].len(), self.tables[1].len()]
    }

    /// Heap bytes of the tables (and of the threads' logs).
    pub fn memory_bytes(&self) -> usize {
        self.tables.iter().map(Table::heap_bytes).sum::<usize>()
            + self.logs.iter().map(Log::heap_bytes).sum::<usize>()
    }

    /// [`MccfrSolver::memory_bytes`] per information set with an entry.
    pub fn bytes_per_infoset(&self) -> f64 {
        let sets: usize = self.num_infosets().iter().sum();
        self.memory_bytes() as f64 / sets.max(1) as f64
    }

    /// The tables (per player).
    pub fn tables(&self) -> &[Table; 2] {
        &self.tables
    }

    fn update(&self) -> Update {
        Update {
            floor: self.params.regret.floor,
            baseline_rate: self.params.baseline.unwrap_or(0.0),
        }
    }

    /// The discount epoch (1-based) of iteration `t` (1-based).
    fn epoch_of(&self, t: u64) -> u64 {
        (t - 1) / self.params.epoch + 1
    }

    /// The average-strategy weight of iteration `t`: its epoch to the power `gamma`.
    fn avg_weight(&self, t: u64) -> f64 {
        let g = self.params.regret.gamma;
        if g == 0.0 {
            1.0
        } else {
            (self.epoch_of(t) as f64).powf(g)
        }
    }

    fn setting(&self, t: u64, player: usize) -> Setting {
        let epsilon = match self.params.sampling {
            Sampling::External => 0.0,
            Sampling::Outcome { epsilon } => epsilon,
        };
        let baselines = self.params.baseline.is_some();
        Setting {
            player,
            avg_weight: self.avg_weight(t),
            constant: self.constant,
            general: self.rules.general_sum(),
            epsilon,
            baselines,
        }
    }

    /// Runs at least `n` more iterations, in whole rounds.
    pub fn iterate(&mut self, n: u64) {
        let target = self.iterations + n;
        while self.iterations < target {
            if self.threads == 1 {
                self.iteration_alone();
            } else {
                self.round_on_threads();
            }
            self.discount_finished_epochs();
        }
    }

    /// One iteration on the calling thread, updates applied at once.
    fn iteration_alone(&mut self) {
        let t = self.iterations + 1;
        let how = self.update();
        for p in 0..2 {
            let set = self.setting(t, p);
            let mut rng = rng::Rng::for_traversal(self.seed, t, p);
            let mut store = Direct {
                tables: &mut self.tables,
                how,
            };
            traverse(self.rules, &mut store, &mut self.scratch[0], set, &mut rng);
        }
        self.iterations = t;
    }

    /// One round: each thread runs its share against the frozen tables into its log; the logs
    /// are applied in order.
    fn round_on_threads(&mut self) {
        let first = self.iterations + 1;
        let share = ROUND_SHARE;
        let settings: Vec<[Setting; 2]> = (0..self.threads as u64 * share)
            .map(|i| [self.setting(first + i, 0), self.setting(first + i, 1)])
            .collect();
        let (rules, seed, tables) = (self.rules, self.seed, &self.tables);
        let work = |(task, (w, log)): (usize, (&mut Scratch<G::State>, &mut Log))| {
            log.clear();
            let start = task as u64 * share;
            for i in start..start + share {
                for p in 0..2 {
                    let mut rng = rng::Rng::for_traversal(seed, first + i, p);
                    let mut store = Logging { tables, log };
                    traverse(rules, &mut store, w, settings[i as usize][p], &mut rng);
                }
            }
        };
        let pool = self.pool.as_ref().expect("threads have a pool");
        let jobs = self
            .scratch
            .iter_mut()
            .zip(self.logs.iter_mut())
            .enumerate();
        pool.install(|| {
            use rayon::prelude::*;
            jobs.collect::<Vec<_>>().into_par_iter().for_each(work);
        });
        let how = self.update();
        for log in &self.logs {
            log.apply(&mut self.tables, how);
        }
        self.iterations += self.threads as u64 * share;
    }

    /// Applies the regret discount of every epoch that has ended.
    fn discount_finished_epochs(&mut self) {
        let done = self.iterations / self.params.epoch;
        if !self.params.discounts() {
            self.epochs_discounted = done;
            return;
        }
        let r = self.params.regret;
        while self.epochs_discounted < done {
            self.epochs_discounted += 1;
            let k = self.epochs_discounted as f64;
            let pos = RegretParams::discount(r.alpha, k, r.discount_offset);
            let neg = RegretParams::discount(r.beta, k, r.discount_offset);
            for t in &mut self.tables {
                t.for_each_mut(|n, numbers| {
                    for x in &mut numbers[..n] {
                        *x *= if *x > 0.0 { pos } else { neg };
                    }
                });
            }
        }
    }

    /// The average strategy of `player` at the set `key` with `n` actions, into `out`
    /// (uniform where the set was never reached or its sums are 0).
    pub fn average_strategy(&self, player: usize, key: u64, n: usize, out: &mut [f64]) {
        let t = &self.tables[player];
        let sums = t.find(key).map(|o| &t.at(o, n)[n..2 * n]);
        let total: f64 = sums.map_or(0.0, |s| s.iter().sum());
        match sums {
            Some(s) if total > 0.0 => {
                for (o, &x) in out.iter_mut().zip(s) {
                    *o = x / total;
                }
            }
            _ => out.fill(1.0 / n as f64),
        }
    }

    /// The strategy the next iteration plays at the set `key` (regret matching).
    pub fn current_strategy(&self, player: usize, key: u64, n: usize, out: &mut [f64]) {
        let t = &self.tables[player];
        walk::strategy(t, t.find(key), n, out);
    }

    /// The sampled counterfactual values of one traversal of `player` at iteration `t` (as
    /// the run would draw it), from the current tables, which stay as they are: per key of the
    /// player's sets reached, the values of its actions (for checking that the estimates are
    /// unbiased).
    pub fn sampled_counterfactual_values(&self, t: u64, player: usize) -> Vec<(u64, Vec<f64>)> {
        let mut store = Recording {
            tables: &self.tables,
            values: Default::default(),
        };
        let mut w = Scratch::default();
        let mut rng = rng::Rng::for_traversal(self.seed, t, player);
        traverse(
            self.rules,
            &mut store,
            &mut w,
            self.setting(t, player),
            &mut rng,
        );
        let mut out: Vec<(u64, Vec<f64>)> = store.values.into_iter().collect();
        out.sort_by_key(|e| e.0);
        out
    }

    /// The solver's whole state (see [`MccfrState`]).
    pub fn state(&self) -> MccfrState {
        MccfrState {
            params: self.params,
            seed: self.seed,
            threads: self.threads,
            iterations: self.iterations,
            epochs_discounted: self.epochs_discounted,
            entries: [0, 1].map(|p| {
                self.tables[p]
                    .entries()
                    .map(|(k, d)| (k, d.to_vec()))
                    .collect()
            }),
        }
    }

    /// A solver that continues from `state` on its thread count.
    pub fn restore(rules: &'g G, state: &MccfrState) -> Result<Self, MccfrError> {
        let mut s =
            MccfrSolver::new(rules, state.params, state.seed)?.with_threads(state.threads)?;
        for p in 0..2 {
            for (key, numbers) in &state.entries[p] {
                if let Some(x) = numbers.iter().find(|x| !x.is_finite()) {
                    return Err(MccfrError::State(format!("non-finite number {x}")));
                }
                if !s.tables[p].restore_entry(*key, numbers) {
                    return Err(MccfrError::State(format!(
                        "entry {key} of player {} ({} numbers) does not fit the game or repeats",
                        p + 1,
                        numbers.len()
                    )));
                }
            }
        }
        if state.epochs_discounted > state.iterations / state.params.epoch {
            return Err(MccfrError::State("more epochs discounted than run".into()));
        }
        s.iterations = state.iterations;
        s.epochs_discounted = state.epochs_discounted;
        Ok(s)
    }
}

impl<G: Rules> MccfrSolver<'_, G> {
    /// The average strategy as an arena profile, for a solver whose rules are `game` itself
    /// (keys are the arena's information-set ids).
    pub fn average_profile(&self, game: &Game) -> Profile<f64> {
        let mut prof = Profile::<f64>::uniform(game);
        for p in 0..2 {
            for (id, set) in game.infosets[p].iter().enumerate() {
                let r = set.action_range();
                self.average_strategy(p, id as u64, r.len(), &mut prof.probs[p][r]);
            }
        }
        prof
    }
}

/// One traversal of the kind `set` says.
fn traverse<G: Rules, T: Store>(
    rules: &G,
    store: &mut T,
    w: &mut Scratch<G::State>,
    set: Setting,
    rng: &mut rng::Rng,
) -> f64 {
    if set.epsilon > 0.0 {
        walk::outcome(rules, store, w, set, rng)
    } else {
        walk::external(rules, store, w, set, rng)
    }
}

/// When a run stops, and how often it measures.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunLimits {
    /// Stop once the solver has this many iterations (in total).
    pub max_iterations: Option<u64>,
    /// Stop after this much solving time in this session.
    pub time: Option<Duration>,
    /// Stop once a measured exploitability is at most this.
    pub target: Option<f64>,
    /// Measure when the iteration count has grown by this factor since the last measurement
    /// (at least 1 iteration later; 0 = never by count).
    pub measure_growth: f64,
    /// Also measure after this much solving time since the last measurement.
    pub measure_every: Option<Duration>,
    /// Save (through the run's saver) after this much solving time since the last save.
    pub save_every: Option<Duration>,
}

/// One measurement of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    /// Iterations done.
    pub iteration: u64,
    /// Exploitability of the average strategy.
    pub exploitability: f64,
    /// Solving time of this session before the measurement (measurements and saves excluded).
    pub seconds: f64,
    /// Time the measurement took.
    pub measure_seconds: f64,
}

/// Why a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The iteration limit.
    Iterations,
    /// The time limit.
    Time,
    /// The exploitability target.
    Target,
    /// The progress callback asked to stop.
    Interrupted,
}

/// What a run reports as it goes.
#[derive(Clone, Copy, Debug)]
pub struct RunProgress<'a> {
    /// Iterations done.
    pub iterations: u64,
    /// Solving time so far in this session.
    pub seconds: f64,
    /// The measurement just made, if any.
    pub point: Option<&'a Point>,
}

/// Wall time a batch of rounds aims at between the run loop's checks.
const BATCH_TARGET: Duration = Duration::from_millis(2);

impl<G: Rules> MccfrSolver<'_, G> {
    /// Runs until a limit is met. `measure` (if any) returns the exploitability of the
    /// current average strategy; it runs on the schedule of `limits` and at the end, and its
    /// time is not solving time. `save` is called every `limits.save_every` of solving time.
    /// `on_progress` is called after every batch of iterations and with every measurement; it
    /// stops the run by returning `Break` (the solver is then between rounds: saving it and
    /// resuming continues bit for bit). Returns why the run stopped and the measurements.
    pub fn run(
        &mut self,
        limits: &RunLimits,
        mut measure: Option<&mut dyn FnMut(&Self) -> f64>,
        mut save: Option<&mut dyn FnMut(&Self)>,
        mut on_progress: impl FnMut(RunProgress) -> ControlFlow<()>,
    ) -> (Stop, Vec<Point>) {
        let start = Instant::now();
        let mut excluded = Duration::ZERO;
        let mut points: Vec<Point> = Vec::new();
        let mut next_check = self.iterations + 1;
        let mut last_measure = Duration::ZERO;
        let mut last_save = Duration::ZERO;
        let mut batch: u64 = 1;
        let mut stop = None;
        loop {
            let solving = start.elapsed().saturating_sub(excluded);
            if limits.time.is_some_and(|t| solving >= t) {
                stop = stop.or(Some(Stop::Time));
            }
            if limits.max_iterations.is_some_and(|n| self.iterations >= n) {
                stop = stop.or(Some(Stop::Iterations));
            }
            let by_count = limits.measure_growth > 0.0 && self.iterations >= next_check;
            let by_time = limits
                .measure_every
                .is_some_and(|e| solving.saturating_sub(last_measure) >= e);
            if let Some(m) = measure.as_mut() {
                if self.iterations > 0 && (by_count || by_time || stop.is_some()) {
                    let t0 = Instant::now();
                    let e = m(self);
                    let took = t0.elapsed();
                    excluded += took;
                    let point = Point {
                        iteration: self.iterations,
                        exploitability: e,
                        seconds: solving.as_secs_f64(),
                        measure_seconds: took.as_secs_f64(),
                    };
                    points.push(point);
                    last_measure = solving;
                    let grown = (self.iterations as f64 * limits.measure_growth) as u64;
                    next_check = grown.max(self.iterations + 1);
                    let flow = on_progress(RunProgress {
                        iterations: self.iterations,
                        seconds: solving.as_secs_f64(),
                        point: Some(&point),
                    });
                    if limits.target.is_some_and(|t| e <= t) {
                        stop = stop.or(Some(Stop::Target));
                    }
                    if flow.is_break() {
                        stop = stop.or(Some(Stop::Interrupted));
                    }
                }
            }
            if let Some(s) = stop {
                return (s, points);
            }
            if let (Some(f), Some(every)) = (save.as_mut(), limits.save_every) {
                if solving.saturating_sub(last_save) >= every {
                    let t0 = Instant::now();
                    f(self);
                    excluded += t0.elapsed();
                    last_save = solving;
                }
            }
            let mut k = batch * self.round();
            if let Some(n) = limits.max_iterations {
                k = k.min(n - self.iterations);
            }
            if measure.is_some() && limits.measure_growth > 0.0 {
                k = k.min(next_check.saturating_sub(self.iterations).max(1));
            }
            let t0 = Instant::now();
            self.iterate(k.max(1));
            let took = t0.elapsed();
            if took > 2 * BATCH_TARGET {
                batch = (batch / 2).max(1);
            } else if took < BATCH_TARGET / 2 {
                batch = (batch * 2).min(1 << 20);
            }
            let solving = start.elapsed().saturating_sub(excluded);
            if on_progress(RunProgress {
                iterations: self.iterations,
                seconds: solving.as_secs_f64(),
                point: None,
            })
            .is_break()
            {
                stop = Some(Stop::Interrupted);
            }
        }
    }
}
/// The solver's average strategy, as the streaming best response reads a strategy.
impl<G: Rules> crate::streaming::Strategy<f64> for MccfrSolver<'_, G> {
    fn probs(&self, player: usize, key: u64, n: usize, out: &mut [f64]) {
        self.average_strategy(player, key, n, out);
    }
}
