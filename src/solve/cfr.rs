//! The counterfactual-regret-minimisation family on the flat game tree: vanilla CFR
//! (simultaneous or alternating updates), CFR+, linear CFR, discounted CFR and predictive CFR+,
//! all driven by one [`RegretParams`].
//!
//! The game is compiled once into compact per-segment arrays: a segment is a group of subtrees
//! below the root chance node, laid out breadth-first so one forward sweep computes reach
//! probabilities and one backward sweep computes values and regrets. Segments run in parallel
//! (rayon) and write into their own delta buffers, which are then summed in segment order, so
//! results do not depend on the number of threads.

use crate::eval::exploitability;
use crate::game::{Game, NodeKind};
use crate::strategy::Profile;
use rayon::prelude::*;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// How regrets and the average strategy are accumulated; every CFR variant is one setting.
///
/// Per iteration `t` (1-based), after adding the iteration's regrets to the cumulative ones:
/// positive cumulative regrets are multiplied by `t^alpha / (t^alpha + 1)`, negative ones by
/// `t^beta / (t^beta + 1)` (an infinite exponent means no discount), then, when `floor` is set,
/// negative ones are set to 0. The average strategy weights iteration `t`'s reach-weighted
/// strategy by `t^gamma`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegretParams {
    /// Update player 0, then player 1 against player 0's new strategy (instead of both at once).
    pub alternating: bool,
    /// Discount exponent for positive cumulative regrets (`f64::INFINITY` = none).
    pub alpha: f64,
    /// Discount exponent for negative cumulative regrets (`f64::INFINITY` = none).
    pub beta: f64,
    /// Clamp cumulative regrets at 0 after each iteration (regret matching+).
    pub floor: bool,
    /// Average-strategy weight exponent: iteration `t` counts `t^gamma`.
    pub gamma: f64,
    /// Play regret matching on cumulative regret plus the last instantaneous regret
    /// (the prediction of predictive CFR+).
    pub predictive: bool,
}

impl RegretParams {
    /// Vanilla CFR as in the one-card-poker write-up: simultaneous updates, strategies frozen
    /// for the iteration, opponent-reach-weighted regrets, own-reach-weighted uniform average,
    /// uniform where no regret is positive.
    pub fn vanilla() -> Self {
        RegretParams {
            alternating: false,
            alpha: f64::INFINITY,
            beta: f64::INFINITY,
            floor: false,
            gamma: 0.0,
            predictive: false,
        }
    }

    /// Vanilla CFR with alternating updates (what OpenSpiel's `CFRSolver` does).
    pub fn vanilla_alternating() -> Self {
        RegretParams {
            alternating: true,
            ..Self::vanilla()
        }
    }

    /// CFR+ (Tammelin 2014): alternating updates, regrets floored at 0, linearly weighted
    /// average (as OpenSpiel's `CFRPlusSolver`, which applies no averaging delay).
    pub fn cfr_plus() -> Self {
        RegretParams {
            alternating: true,
            floor: true,
            gamma: 1.0,
            ..Self::vanilla()
        }
    }

    /// Linear CFR (Brown & Sandholm 2019): iteration `t`'s regrets and strategy weighted by `t`,
    /// which is discounted CFR with alpha = beta = gamma = 1. Alternating updates.
    pub fn linear() -> Self {
        Self::discounted(1.0, 1.0, 1.0)
    }

    /// Discounted CFR (Brown & Sandholm 2019) with the given exponents; alternating updates.
    pub fn discounted(alpha: f64, beta: f64, gamma: f64) -> Self {
        RegretParams {
            alternating: true,
            alpha,
            beta,
            floor: false,
            gamma,
            predictive: false,
        }
    }

    /// Discounted CFR with the paper's recommended alpha = 1.5, beta = 0, gamma = 2.
    pub fn discounted_default() -> Self {
        Self::discounted(1.5, 0.0, 2.0)
    }

    /// Predictive CFR+ (Farina, Kroer & Sandholm 2021): CFR+ regrets, strategies from regret
    /// matching+ on cumulative plus last instantaneous regret, quadratic averaging.
    pub fn predictive_plus() -> Self {
        RegretParams {
            alternating: true,
            floor: true,
            gamma: 2.0,
            predictive: true,
            ..Self::vanilla()
        }
    }

    fn discount(exponent: f64, t: f64) -> f64 {
        if exponent.is_infinite() {
            1.0
        } else {
            let x = t.powf(exponent);
            x / (x + 1.0)
        }
    }
}

/// When a run stops: whichever given limit is reached first.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StopRule {
    /// Stop after this many iterations.
    pub max_iterations: Option<u64>,
    /// Stop once the average strategy's exploitability is at most this.
    pub target: Option<Target>,
    /// Stop after this much wall time.
    pub time: Option<Duration>,
}

/// A target exploitability.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// In payoff units (chips), OpenSpiel's exploitability = NashConv / 2.
    Absolute(f64),
    /// As a fraction of the payoff range `max payoff0 - min payoff0` over terminals.
    FractionOfRange(f64),
}

/// One measured point of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    /// Iterations done.
    pub iteration: u64,
    /// Exploitability of the average strategy (f64 evaluation by `crate::eval`).
    pub exploitability: f64,
    /// Wall time since the run started, excluding exploitability evaluations.
    pub seconds: f64,
}

/// What a run reports as it goes.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Iterations done.
    pub iteration: u64,
    /// The point measured at this iteration, if any.
    pub point: Option<&'a CurvePoint>,
}

/// One compiled group of root subtrees, with its scratch buffers.
struct Segment {
    /// Number of root nodes (local ids `0..num_roots`).
    num_roots: usize,
    /// Local ids of chance and decision nodes, in breadth-first order (terminal values are
    /// constant, so the sweeps skip terminals).
    interior: Vec<u32>,
    /// Chance weight of each root.
    root_weight: Vec<f64>,
    /// 0/1 = that player decides, 2 = chance, 3 = terminal.
    actor: Vec<u8>,
    first_child: Vec<u32>,
    num_children: Vec<u32>,
    /// Flat action offset of a decision node's information set.
    action_offset: Vec<u32>,
    /// Chance probability of the edge into the node (1 where the parent is not chance).
    chance_prob: Vec<f64>,
    /// Player 0's payoff at terminals (0 elsewhere).
    payoff0: Vec<f64>,
    /// Reach of player 0, player 1 and chance.
    reach: Vec<[f64; 3]>,
    /// Player 0's expected payoff below each node.
    value: Vec<f64>,
    regret_delta: [Vec<f64>; 2],
    strategy_delta: [Vec<f64>; 2],
}

const CHANCE: u8 = 2;
const TERMINAL: u8 = 3;
/// More segments cost reduction time; this many keep two to a few dozen threads busy.
const MAX_SEGMENTS: usize = 64;
/// Games with fewer nodes than this sweep on one thread whatever `--threads` says.
const MIN_PARALLEL_NODES: usize = 5_000;

impl Segment {
    fn compile(game: &Game, roots: &[(usize, f64)]) -> Segment {
        let mut order: Vec<usize> = roots.iter().map(|r| r.0).collect();
        let mut local = vec![u32::MAX; game.nodes.len()];
        let mut i = 0;
        while i < order.len() {
            let n = order[i];
            local[n] = i as u32;
            order.extend(game.nodes[n].children());
            i += 1;
        }
        let len = order.len();
        let mut s = Segment {
            num_roots: roots.len(),
            interior: Vec::new(),
            root_weight: roots.iter().map(|r| r.1).collect(),
            actor: Vec::with_capacity(len),
            first_child: Vec::with_capacity(len),
            num_children: Vec::with_capacity(len),
            action_offset: Vec::with_capacity(len),
            chance_prob: Vec::with_capacity(len),
            payoff0: Vec::with_capacity(len),
            reach: vec![[0.0; 3]; len],
            value: Vec::new(),
            regret_delta: [
                vec![0.0; game.num_actions[0]],
                vec![0.0; game.num_actions[1]],
            ],
            strategy_delta: [
                vec![0.0; game.num_actions[0]],
                vec![0.0; game.num_actions[1]],
            ],
        };
        for &n in &order {
            let nd = &game.nodes[n];
            let (actor, offset, payoff) = match nd.kind {
                NodeKind::Chance => (CHANCE, 0, 0.0),
                NodeKind::Decision { player, infoset } => (
                    player,
                    game.infosets[player as usize][infoset as usize].action_offset as u32,
                    0.0,
                ),
                NodeKind::Terminal { terminal } => {
                    (TERMINAL, 0, game.terminals[terminal as usize].payoff0_f64)
                }
            };
            s.actor.push(actor);
            s.action_offset.push(offset);
            s.payoff0.push(payoff);
            if actor != TERMINAL {
                s.interior.push(s.actor.len() as u32 - 1);
            }
            s.first_child.push(if nd.num_children > 0 {
                local[nd.first_child as usize]
            } else {
                0
            });
            s.num_children.push(nd.num_children);
            s.chance_prob.push(game.chance_prob_f64[n]);
        }
        s.value = s.payoff0.clone();
        s
    }

    /// One sweep: reach forward, values and regrets backward. Only `update`'s buffers (or both
    /// players' when `None`) receive deltas; they are overwritten, not accumulated.
    fn sweep(&mut self, sigma: &[Vec<f64>; 2], update: Option<usize>) {
        for p in 0..2 {
            if update.is_none_or(|u| u == p) {
                self.regret_delta[p].fill(0.0);
                self.strategy_delta[p].fill(0.0);
            }
        }
        for r in 0..self.num_roots {
            self.reach[r] = [1.0, 1.0, self.root_weight[r]];
        }
        for &n in &self.interior {
            let n = n as usize;
            let actor = self.actor[n];
            let first = self.first_child[n] as usize;
            let count = self.num_children[n] as usize;
            let reach = self.reach[n];
            if actor == CHANCE {
                for c in first..first + count {
                    let mut r = reach;
                    r[2] *= self.chance_prob[c];
                    self.reach[c] = r;
                }
            } else {
                let p = actor as usize;
                let probs = &sigma[p][self.action_offset[n] as usize..][..count];
                for (k, c) in (first..first + count).enumerate() {
                    let mut r = reach;
                    r[p] *= probs[k];
                    self.reach[c] = r;
                }
            }
        }
        for &n in self.interior.iter().rev() {
            let n = n as usize;
            let actor = self.actor[n];
            let first = self.first_child[n] as usize;
            let count = self.num_children[n] as usize;
            let children = first..first + count;
            self.value[n] = match actor {
                CHANCE => children.map(|c| self.chance_prob[c] * self.value[c]).sum(),
                _ => {
                    let p = actor as usize;
                    let offset = self.action_offset[n] as usize;
                    let probs = &sigma[p][offset..offset + count];
                    let child_values = &self.value[first..first + count];
                    let v: f64 = probs.iter().zip(child_values).map(|(s, u)| s * u).sum();
                    if update.is_none_or(|u| u == p) {
                        let reach = self.reach[n];
                        // Player 1's utility is constant - u0, so its regrets are negated.
                        let cf = reach[1 - p] * reach[2] * if p == 0 { 1.0 } else { -1.0 };
                        let own = reach[p];
                        if cf != 0.0 {
                            let regrets = &mut self.regret_delta[p][offset..offset + count];
                            for (r, u) in regrets.iter_mut().zip(child_values) {
                                *r += cf * (u - v);
                            }
                        }
                        if own != 0.0 {
                            let sums = &mut self.strategy_delta[p][offset..offset + count];
                            for (s, x) in sums.iter_mut().zip(probs) {
                                *s += own * x;
                            }
                        }
                    }
                    v
                }
            };
        }
    }
}

/// A CFR-family solver over one game.
pub struct CfrSolver {
    params: RegretParams,
    segments: Vec<Segment>,
    /// Per player: (first flat action, number of actions) of each information set.
    infoset_ranges: [Vec<(usize, usize)>; 2],
    regret: [Vec<f64>; 2],
    last_regret: [Vec<f64>; 2],
    strategy_sum: [Vec<f64>; 2],
    current: [Vec<f64>; 2],
    iterations: u64,
    pool: Option<rayon::ThreadPool>,
    /// Nodes in the game (decides whether the pool is worth using).
    num_nodes: usize,
}

impl CfrSolver {
    /// Compiles `game` for the solver; runs single-threaded until [`CfrSolver::with_threads`].
    pub fn new(game: &Game, params: RegretParams) -> Self {
        let root = &game.nodes[0];
        let roots: Vec<(usize, f64)> = match root.kind {
            NodeKind::Chance => root
                .children()
                .map(|c| (c, game.chance_prob_f64[c]))
                .collect(),
            _ => vec![(0, 1.0)],
        };
        let per_segment = roots.len().div_ceil(MAX_SEGMENTS);
        let segments = roots
            .chunks(per_segment)
            .map(|group| Segment::compile(game, group))
            .collect();
        let infoset_ranges = [0, 1].map(|p| {
            game.infosets[p]
                .iter()
                .map(|s| (s.action_offset, s.actions.len()))
                .collect()
        });
        let zeros = || [0, 1].map(|p| vec![0.0; game.num_actions[p]]);
        let mut solver = CfrSolver {
            params,
            segments,
            infoset_ranges,
            regret: zeros(),
            last_regret: zeros(),
            strategy_sum: zeros(),
            current: zeros(),
            iterations: 0,
            pool: None,
            num_nodes: game.nodes.len(),
        };
        for p in 0..2 {
            solver.refresh_strategy(p);
        }
        solver
    }

    /// Uses a rayon pool of `threads` threads for the segment sweeps (1 = no pool).
    /// Results are identical for every thread count.
    pub fn with_threads(mut self, threads: usize) -> anyhow::Result<Self> {
        self.pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()?,
            )
        } else {
            None
        };
        Ok(self)
    }

    /// The parameters in use.
    pub fn params(&self) -> RegretParams {
        self.params
    }

    /// Iterations done so far.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Runs `n` iterations.
    pub fn iterate(&mut self, n: u64) {
        for _ in 0..n {
            self.iteration();
        }
    }

    fn iteration(&mut self) {
        self.iterations += 1;
        if self.params.alternating {
            for p in 0..2 {
                self.sweep_all(Some(p));
                self.apply(p);
                self.refresh_strategy(p);
            }
        } else {
            self.sweep_all(None);
            for p in 0..2 {
                self.apply(p);
            }
            for p in 0..2 {
                self.refresh_strategy(p);
            }
        }
    }

    fn sweep_all(&mut self, update: Option<usize>) {
        let sigma = &self.current;
        let segments = &mut self.segments;
        match &self.pool {
            // Waking pool threads costs tens of microseconds: not worth it on tiny games.
            Some(pool) if segments.len() > 1 && self.num_nodes >= MIN_PARALLEL_NODES => {
                pool.install(|| segments.par_iter_mut().for_each(|s| s.sweep(sigma, update)))
            }
            _ => segments.iter_mut().for_each(|s| s.sweep(sigma, update)),
        }
    }

    /// Adds the segments' deltas for player `p` (in segment order), then discounts and floors.
    fn apply(&mut self, p: usize) {
        let t = self.iterations as f64;
        let params = self.params;
        let pos = RegretParams::discount(params.alpha, t);
        let neg = RegretParams::discount(params.beta, t);
        let weight = if params.gamma == 0.0 {
            1.0
        } else {
            t.powf(params.gamma)
        };
        let regret = &mut self.regret[p];
        let last = &mut self.last_regret[p];
        let sum = &mut self.strategy_sum[p];
        for a in 0..regret.len() {
            let mut inst = 0.0;
            let mut strat = 0.0;
            for s in &self.segments {
                inst += s.regret_delta[p][a];
                strat += s.strategy_delta[p][a];
            }
            let mut r = regret[a] + inst;
            r *= if r > 0.0 { pos } else { neg };
            if params.floor && r < 0.0 {
                r = 0.0;
            }
            regret[a] = r;
            last[a] = inst;
            sum[a] += weight * strat;
        }
    }

    /// Regret matching (+ prediction) for player `p`; uniform where no regret is positive.
    fn refresh_strategy(&mut self, p: usize) {
        let predictive = self.params.predictive;
        for &(start, len) in &self.infoset_ranges[p] {
            let range = start..start + len;
            let positive = |a: usize| {
                let r = self.regret[p][a]
                    + if predictive {
                        self.last_regret[p][a]
                    } else {
                        0.0
                    };
                r.max(0.0)
            };
            let total: f64 = range.clone().map(positive).sum();
            for a in range.clone() {
                self.current[p][a] = if total > 0.0 {
                    positive(a) / total
                } else {
                    1.0 / len as f64
                };
            }
        }
    }

    /// The strategy the next iteration plays.
    pub fn current_profile(&self) -> Profile<f64> {
        Profile {
            probs: self.current.clone(),
        }
    }

    /// The weighted average strategy (uniform at sets never reached).
    pub fn average_profile(&self) -> Profile<f64> {
        let mut probs = self.strategy_sum.clone();
        for p in 0..2 {
            for &(start, len) in &self.infoset_ranges[p] {
                let slice = &mut probs[p][start..start + len];
                let total: f64 = slice.iter().sum();
                for x in slice.iter_mut() {
                    *x = if total > 0.0 {
                        *x / total
                    } else {
                        1.0 / len as f64
                    };
                }
            }
        }
        Profile { probs }
    }

    /// Runs until `stop` is met, measuring the average strategy's exploitability at roughly
    /// geometrically spaced iterations (at most `max_check_gap` apart) and at the end.
    /// `on_progress` is called after every iteration and with every measured point.
    /// Returns all measured points.
    pub fn run(
        &mut self,
        game: &Game,
        stop: &StopRule,
        max_check_gap: u64,
        mut on_progress: impl FnMut(Progress),
    ) -> Vec<CurvePoint> {
        self.run_interruptible(game, stop, max_check_gap, |p| {
            on_progress(p);
            ControlFlow::Continue(())
        })
    }

    /// [`CfrSolver::run`] whose callback can also stop the run early by returning
    /// `ControlFlow::Break` (a Ctrl-C from a host language, say); the points measured so far
    /// are returned, and the solver is left in a consistent state after a whole iteration.
    pub fn run_interruptible(
        &mut self,
        game: &Game,
        stop: &StopRule,
        max_check_gap: u64,
        mut on_progress: impl FnMut(Progress) -> ControlFlow<()>,
    ) -> Vec<CurvePoint> {
        let (lo, hi) = game.payoff_range();
        let target = stop.target.map(|t| match t {
            Target::Absolute(e) => e,
            Target::FractionOfRange(f) => f * (hi - lo),
        });
        let start = Instant::now();
        let mut eval_time = Duration::ZERO;
        let mut points = Vec::new();
        let mut next_check = self.iterations + 1;
        loop {
            let solve_time = start.elapsed() - eval_time;
            let out_of_time = stop.time.is_some_and(|limit| solve_time >= limit);
            let out_of_iterations = stop.max_iterations.is_some_and(|n| self.iterations >= n);
            let finishing = out_of_time || out_of_iterations;
            if (self.iterations >= next_check || finishing) && self.iterations > 0 {
                let eval_start = Instant::now();
                let e = exploitability(game, &self.average_profile()).exploitability;
                eval_time += eval_start.elapsed();
                let point = CurvePoint {
                    iteration: self.iterations,
                    exploitability: e,
                    seconds: solve_time.as_secs_f64(),
                };
                let flow = on_progress(Progress {
                    iteration: self.iterations,
                    point: Some(&point),
                });
                points.push(point);
                if flow.is_break() {
                    return points;
                }
                let gap = (self.iterations / 10).clamp(1, max_check_gap.max(1));
                next_check = self.iterations + gap;
                if finishing || target.is_some_and(|t| e <= t) {
                    return points;
                }
            } else if finishing {
                return points;
            }
            self.iteration();
            if on_progress(Progress {
                iteration: self.iterations,
                point: None,
            })
            .is_break()
            {
                return points;
            }
        }
    }
}

/// Everything a [`CfrSolver`] accumulates, for checkpoints: restoring it continues the run
/// bit for bit. Arrays are named so a checkpoint can say what it holds.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverState {
    /// Iterations done.
    pub iterations: u64,
    /// The solver's arrays by name (`regret0`, `regret1`, ...), in a fixed order.
    pub arrays: Vec<(String, Vec<f64>)>,
}

/// Names of the state arrays, per player: cumulative regret, last instantaneous regret,
/// strategy sum, current strategy.
const STATE_ARRAYS: [&str; 4] = ["regret", "last_regret", "strategy_sum", "current"];

impl CfrSolver {
    /// The solver's whole state (see [`SolverState`]).
    pub fn state(&self) -> SolverState {
        let mut arrays = Vec::new();
        for name in STATE_ARRAYS {
            for p in 0..2 {
                let v = match name {
                    "regret" => &self.regret[p],
                    "last_regret" => &self.last_regret[p],
                    "strategy_sum" => &self.strategy_sum[p],
                    _ => &self.current[p],
                };
                arrays.push((format!("{name}{p}"), v.clone()));
            }
        }
        SolverState {
            iterations: self.iterations,
            arrays,
        }
    }

    /// A solver for `game` with `params` that continues from `state` (single-threaded until
    /// [`CfrSolver::with_threads`]). Fails when the arrays do not fit the game.
    pub fn restore(game: &Game, params: RegretParams, state: &SolverState) -> anyhow::Result<Self> {
        let mut solver = CfrSolver::new(game, params);
        let mut expected = Vec::new();
        for name in STATE_ARRAYS {
            for p in 0..2 {
                expected.push((format!("{name}{p}"), game.num_actions[p]));
            }
        }
        if state.arrays.len() != expected.len() {
            anyhow::bail!(
                "solver state has {} arrays, expected {}",
                state.arrays.len(),
                expected.len()
            );
        }
        for ((name, values), (want, len)) in state.arrays.iter().zip(&expected) {
            if name != want || values.len() != *len {
                anyhow::bail!(
                    "solver state array {name:?} has {} values; expected {want:?} with {len}",
                    values.len()
                );
            }
        }
        let mut it = state.arrays.iter().map(|(_, v)| v.clone());
        for target in [
            &mut solver.regret,
            &mut solver.last_regret,
            &mut solver.strategy_sum,
            &mut solver.current,
        ] {
            for slot in target.iter_mut() {
                *slot = it.next().expect("counted above");
            }
        }
        solver.iterations = state.iterations;
        Ok(solver)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::rational_to_f64;

    /// After one iteration from uniform, each set's regrets are q(a) - sum_b sigma(b) q(b)
    /// (reach-weighted), so their uniform-weighted sum is 0 at every information set.
    #[test]
    fn first_iteration_regrets_are_centred_on_the_played_strategy() {
        let g = kuhn_poker().unwrap();
        let mut s = CfrSolver::new(&g, RegretParams::vanilla());
        s.iterate(1);
        for p in 0..2 {
            for &(start, len) in &s.infoset_ranges[p] {
                let weighted: f64 = (start..start + len)
                    .map(|a| s.regret[p][a] / len as f64)
                    .sum();
                assert!(weighted.abs() < 1e-12);
            }
        }
    }

    #[test]
    fn every_variant_converges_on_kuhn_to_minus_one_eighteenth() {
        let g = kuhn_poker().unwrap();
        // Bounds sit a few times above the measured values (5.3e-3, 5.4e-4, 4.4e-5, 4.5e-5,
        // 9.2e-5, 2.9e-9): the faster variants must stay clearly ahead of vanilla CFR.
        for (name, params, bound) in [
            ("cfr", RegretParams::vanilla(), 1e-2),
            ("cfr-alt", RegretParams::vanilla_alternating(), 2e-3),
            ("cfr+", RegretParams::cfr_plus(), 2e-4),
            ("lcfr", RegretParams::linear(), 2e-4),
            ("dcfr", RegretParams::discounted_default(), 3e-4),
            ("pcfr+", RegretParams::predictive_plus(), 1e-6),
        ] {
            let mut s = CfrSolver::new(&g, params);
            s.iterate(2000);
            let e = exploitability(&g, &s.average_profile());
            assert!(e.exploitability < bound, "{name}: {}", e.exploitability);
            assert!(
                (e.value[0] + 1.0 / 18.0).abs() < 1e-2,
                "{name}: {}",
                e.value[0]
            );
        }
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let g = kuhn_poker().unwrap();
        let mut one = CfrSolver::new(&g, RegretParams::vanilla());
        let mut two = CfrSolver::new(&g, RegretParams::vanilla())
            .with_threads(2)
            .unwrap();
        one.iterate(50);
        two.iterate(50);
        assert_eq!(one.average_profile(), two.average_profile());
    }

    #[test]
    fn exact_evaluation_agrees_with_float_for_the_average() {
        let g = kuhn_poker().unwrap();
        let mut s = CfrSolver::new(&g, RegretParams::cfr_plus());
        s.iterate(100);
        let avg = s.average_profile();
        let float = exploitability(&g, &avg).exploitability;
        let exact = exploitability(&g, &avg.to_exact(&g)).exploitability;
        assert!((rational_to_f64(&exact) - float).abs() < 1e-12);
    }

    #[test]
    fn stop_rule_stops_at_target_and_iteration_cap() {
        let g = kuhn_poker().unwrap();
        let mut s = CfrSolver::new(&g, RegretParams::cfr_plus());
        let stop = StopRule {
            target: Some(Target::Absolute(1e-2)),
            ..StopRule::default()
        };
        let points = s.run(&g, &stop, 100, |_| {});
        let last = points.last().unwrap();
        assert!(last.exploitability <= 1e-2);
        assert!(points[..points.len() - 1]
            .iter()
            .all(|p| p.exploitability > 1e-2));
        let mut s = CfrSolver::new(&g, RegretParams::vanilla());
        let stop = StopRule {
            max_iterations: Some(37),
            ..StopRule::default()
        };
        let points = s.run(&g, &stop, 100, |_| {});
        assert_eq!(s.iterations(), 37);
        assert_eq!(points.last().unwrap().iteration, 37);
    }
}
