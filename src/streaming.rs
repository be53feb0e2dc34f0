//! The exact best response of each player to a strategy, by walks of a game's rules that never
//! store the tree: memory per information set, not per history.
//!
//! Why it can stream: with perfect recall, a player's information set `J` follows exactly one
//! of the player's own sequences `(I, a)` (its parent), and the best-response value splits
//! over sequences. Let `T(I, a)` be the sum, over the terminals `z` whose last own action is
//! `a` at `I`, of `pi_-i(z) u_i(z)` (`pi_-i`: chance's and the opponent's reach). Then
//! `Q(I, a) = T(I, a) + sum over J with parent (I, a) of max_b Q(J, b)` is the best-response
//! counterfactual value of `(I, a)`, and the best response's value is the terminal sum with no
//! own action plus the sum over the first sets `J` of `max_b Q(J, b)`. So one depth-first walk
//! of every history accumulates `T` for both players at once (the opponent's probabilities
//! weigh the reach, the player's own do not), remembering for each set only its parent and its
//! per-action sums; a backward pass over the sets, in the reverse of the order they were first
//! met (a set is met after its parent), takes the maxima. The walk keeps no tree: an explicit
//! stack of pending states (no recursion on the game's depth).
//!
//! Threads: the first levels of the tree are walked alone until at least [`TASKS`] states are
//! pending; each pending state's subtree is a task that sums into tables of its own, and the
//! tasks' tables are added into the totals in task order. The cut does not depend on the
//! thread count, so neither do the bits of the result. In exact arithmetic (`Rational`) every
//! sum is exact and the value equals the arena's exact best response.

use crate::fxhash::FxMap;
use crate::game::{Rules, Turn};
use crate::scalar::{Rational, Scalar};
use std::time::Instant;

/// Tasks the walk is cut into (at least this many, when the tree has them).
pub const TASKS: usize = 256;

/// A strategy of both players, by information-set key.
pub trait Strategy<T>: Sync {
    /// The probabilities of the `n` actions of `player`'s set `key`, into `out` (summing to 1).
    fn probs(&self, player: usize, key: u64, n: usize, out: &mut [T]);
}

/// Every set played uniformly.
pub struct Uniform;

impl<T: Scalar> Strategy<T> for Uniform {
    fn probs(&self, _: usize, _: u64, n: usize, out: &mut [T]) {
        let share = T::from_rational(&crate::scalar::rat(1, n as i64));
        out.iter_mut().for_each(|x| *x = share.clone());
    }
}

/// An arena profile as a strategy of the arena's rules (keys are information-set ids).
pub struct ArenaProfile<'a, T> {
    /// The game.
    pub game: &'a crate::game::Game,
    /// The profile.
    pub profile: &'a crate::strategy::Profile<T>,
}

impl<T: Scalar + Sync> Strategy<T> for ArenaProfile<'_, T> {
    fn probs(&self, player: usize, key: u64, _: usize, out: &mut [T]) {
        let probs = self.profile.infoset_probs(self.game, player, key as usize);
        out.clone_from_slice(probs);
    }
}

/// An `f64` strategy read exactly: each probability's exact value, divided by the set's exact
/// sum (as `Profile::to_exact` does), for exact best responses to a float strategy.
pub struct Exact<'a, S>(pub &'a S);

impl<S: Strategy<f64>> Strategy<Rational> for Exact<'_, S> {
    fn probs(&self, player: usize, key: u64, n: usize, out: &mut [Rational]) {
        use num_traits::{One, Zero};
        let mut x = vec![0.0; n];
        self.0.probs(player, key, n, &mut x);
        for (o, &p) in out.iter_mut().zip(&x) {
            *o = Rational::from_float(p.max(0.0)).unwrap_or_else(Rational::zero);
        }
        let sum: Rational = out.iter().sum();
        if sum.is_zero() {
            out.iter_mut()
                .for_each(|o| *o = crate::scalar::rat(1, n as i64));
        } else if !sum.is_one() {
            out.iter_mut().for_each(|o| *o = &*o / &sum);
        }
    }
}

/// Numbers the walk can sum: `f64` (the rules' rounded probabilities and payoffs) or
/// `Rational` (their exact values).
pub trait WalkScalar: Scalar + Send + Sync {
    /// Chance outcome `i`'s probability at `s`.
    fn chance<G: Rules>(rules: &G, s: &G::State, i: usize) -> Self;
    /// Player 0's payoff at terminal `s`.
    fn payoff0<G: Rules>(rules: &G, s: &G::State) -> Self;
}

impl WalkScalar for f64 {
    #[inline]
    fn chance<G: Rules>(rules: &G, s: &G::State, i: usize) -> f64 {
        rules.chance_prob(s, i)
    }
    #[inline]
    fn payoff0<G: Rules>(rules: &G, s: &G::State) -> f64 {
        rules.payoff0(s)
    }
}

impl WalkScalar for Rational {
    fn chance<G: Rules>(rules: &G, s: &G::State, i: usize) -> Rational {
        rules.chance_prob_exact(s, i)
    }
    fn payoff0<G: Rules>(rules: &G, s: &G::State) -> Rational {
        rules.payoff0_exact(s)
    }
}

/// The result of [`best_responses`].
#[derive(Clone, Debug)]
pub struct BestResponses<T> {
    /// Each player's value when best-responding to the other's strategy.
    pub value: [T; 2],
    /// `value[0] + value[1] - constant sum`: what best responses gain together.
    pub nash_conv: T,
    /// `nash_conv / 2` (OpenSpiel's exploitability).
    pub exploitability: T,
    /// Histories walked.
    pub histories: u64,
    /// Information sets met, per player.
    pub infosets: [usize; 2],
    /// Peak bytes of the per-set tables (totals plus the tasks' tables in flight).
    pub table_bytes: usize,
    /// Wall time of the walk and the backward pass, seconds.
    pub seconds: f64,
}

/// Why the walk failed.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum StreamError {
    /// One key with two action counts or two parents: the rules break the contract.
    #[error("{0}")]
    Rules(String),
    /// More threads than allowed.
    #[error("{0} threads: at most {1}")]
    Threads(usize, usize),
}

/// No parent: the set is one of the player's first.
const ROOT: u64 = u64::MAX;

/// One player's information sets met by a walk: parent sequence and per-action sums.
#[derive(Clone, Debug, Default)]
struct Sets<T> {
    index: FxMap<u64, u32>,
    keys: Vec<u64>,
    /// Parent set's key (`ROOT` for none) and action.
    parents: Vec<(u64, u32)>,
    /// Entry `i`'s sums are `sums[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    sums: Vec<T>,
}

impl<T: Scalar> Sets<T> {
    fn new() -> Self {
        Sets {
            index: FxMap::default(),
            keys: Vec::new(),
            parents: Vec::new(),
            starts: vec![0],
            sums: Vec::new(),
        }
    }

    /// The entry of `key`, made when new with `n` actions and `parent`; checks both agree.
    fn entry(&mut self, key: u64, n: usize, parent: (u64, u32)) -> Result<u32, StreamError> {
        if let Some(&i) = self.index.get(&key) {
            let i = i as usize;
            if self.starts[i + 1] - self.starts[i] != n || self.parents[i] != parent {
                return Err(StreamError::Rules(format!(
                    "information set {key} is met with {n} actions after {parent:?} and with {} \
                     after {:?} (a key shared by two sets, or imperfect recall)",
                    self.starts[i + 1] - self.starts[i],
                    self.parents[i]
                )));
            }
            return Ok(i as u32);
        }
        let i = self.keys.len() as u32;
        self.index.insert(key, i);
        self.keys.push(key);
        self.parents.push(parent);
        self.sums.resize(self.sums.len() + n, T::zero());
        self.starts.push(self.sums.len());
        Ok(i)
    }

    fn len(&self) -> usize {
        self.keys.len()
    }

    /// Adds `other`'s entries and sums in `other`'s order.
    fn absorb(&mut self, other: &Sets<T>) -> Result<(), StreamError> {
        for j in 0..other.len() {
            let (a, b) = (other.starts[j], other.starts[j + 1]);
            let i = self.entry(other.keys[j], b - a, other.parents[j])? as usize;
            let at = self.starts[i];
            for (k, x) in other.sums[a..b].iter().enumerate() {
                if !x.is_zero() {
                    self.sums[at + k] = self.sums[at + k].clone() + x.clone();
                }
            }
        }
        Ok(())
    }

    fn bytes(&self) -> usize {
        self.index.capacity() * 16
            + self.keys.capacity() * 8
            + self.parents.capacity() * 16
            + self.starts.capacity() * 8
            + self.sums.capacity() * std::mem::size_of::<T>()
    }
}

/// A pending state of the walk: the others' reach for each player's best response, and
/// each player's last own sequence (set entry and action; `None` before the first).
struct Pending<S, T> {
    state: S,
    reach: [T; 2],
    seq: [Option<(u32, u32)>; 2],
}

/// Histories a walk visited and the states it left pending at its depth limit.
type Walked<S, T> = (u64, Vec<Pending<S, T>>);

/// What a task sums: per player its sets and the terminal sum with no own action.
struct Sums<T> {
    sets: [Sets<T>; 2],
    root: [T; 2],
}

impl<T: Scalar> Sums<T> {
    fn new() -> Self {
        Sums {
            sets: [Sets::new(), Sets::new()],
            root: [T::zero(), T::zero()],
        }
    }
}

/// The walk's context.
struct Walk<'a, G: Rules, S> {
    rules: &'a G,
    strategy: &'a S,
    constant: Rational,
}

impl<G: Rules, S> Walk<'_, G, S> {
    /// Walks from the pending states `start` (whose sequences refer to `top`'s sets, or
    /// `sums`' own when `top` is `None`), summing into `sums`; stops descending at
    /// `stop_depth` below the start and returns the states left there.
    fn walk<T: WalkScalar>(
        &self,
        start: Vec<Pending<G::State, T>>,
        top: Option<&Sums<T>>,
        sums: &mut Sums<T>,
        stop_at: Option<usize>,
    ) -> Result<Walked<G::State, T>, StreamError>
    where
        S: Strategy<T>,
    {
        let constant = T::from_rational(&self.constant);
        let mut histories = 0u64;
        let mut frontier = Vec::new();
        let mut probs: Vec<T> = Vec::new();
        // Sequences that refer to `top`: copied into this task's sets first.
        let mut stack: Vec<(Pending<G::State, T>, usize)> = Vec::with_capacity(start.len());
        for mut pending in start {
            if let Some(top) = top {
                for q in 0..2 {
                    if let Some((e, a)) = pending.seq[q] {
                        let ts = &top.sets[q];
                        let (e, n) = (
                            e as usize,
                            ts.starts[e as usize + 1] - ts.starts[e as usize],
                        );
                        let local = sums.sets[q].entry(ts.keys[e], n, ts.parents[e])?;
                        pending.seq[q] = Some((local, a));
                    }
                }
            }
            stack.push((pending, 0));
        }
        stack.reverse();
        while let Some((node, depth)) = stack.pop() {
            histories += 1;
            let Pending { state, reach, seq } = node;
            let turn = self.rules.turn(&state);
            if turn == Turn::Terminal {
                let u0 = T::payoff0(self.rules, &state);
                let u = [u0.clone(), constant.clone() - u0];
                for q in 0..2 {
                    if reach[q].is_zero() {
                        continue;
                    }
                    let x = reach[q].clone() * u[q].clone();
                    match seq[q] {
                        None => sums.root[q] = sums.root[q].clone() + x,
                        Some((e, a)) => {
                            let at = sums.sets[q].starts[e as usize] + a as usize;
                            let s = &mut sums.sets[q].sums[at];
                            *s = s.clone() + x;
                        }
                    }
                }
                continue;
            }
            if stop_at == Some(depth) {
                histories -= 1;
                frontier.push(Pending { state, reach, seq });
                continue;
            }
            let n = self.rules.num_actions(&state);
            probs.clear();
            probs.resize(n, T::zero());
            let mover = match turn {
                Turn::Chance => {
                    for (i, p) in probs.iter_mut().enumerate() {
                        *p = T::chance(self.rules, &state, i);
                    }
                    None
                }
                Turn::Player(m) => {
                    let key = self.rules.infoset_key(&state);
                    self.strategy.probs(m, key, n, &mut probs);
                    let parent = match seq[m] {
                        None => (ROOT, 0),
                        Some((e, a)) => (sums.sets[m].keys[e as usize], a),
                    };
                    Some((m, sums.sets[m].entry(key, n, parent)?))
                }
                Turn::Terminal => unreachable!("handled above"),
            };
            for a in (0..n).rev() {
                let mut child = state.clone();
                self.rules.apply(&mut child, a);
                let mut r = reach.clone();
                let mut sq = seq;
                match mover {
                    None => {
                        for x in &mut r {
                            *x = x.clone() * probs[a].clone();
                        }
                    }
                    Some((m, e)) => {
                        r[1 - m] = r[1 - m].clone() * probs[a].clone();
                        sq[m] = Some((e, a as u32));
                    }
                }
                if r[0].is_zero() && r[1].is_zero() {
                    continue;
                }
                stack.push((
                    Pending {
                        state: child,
                        reach: r,
                        seq: sq,
                    },
                    depth + 1,
                ));
            }
        }
        Ok((histories, frontier))
    }
}

/// Each player's exact best response to the other's part of `strategy` on `rules`, by
/// streaming walks on `threads` threads (the result's bits do not depend on the count).
pub fn best_responses<G: Rules, T: WalkScalar, S: Strategy<T>>(
    rules: &G,
    strategy: &S,
    threads: usize,
) -> Result<BestResponses<T>, StreamError> {
    if threads == 0 || crate::threads::too_many_threads(threads) {
        return Err(StreamError::Threads(threads, crate::threads::max_threads()));
    }
    if rules.general_sum() {
        return Err(StreamError::Rules(format!(
            "{} is general-sum: the streaming best response measures constant-sum games only \
             (the arena's evaluation measures each player's gain)",
            rules.name()
        )));
    }
    let start = Instant::now();
    let walk = Walk {
        rules,
        strategy,
        constant: rules.constant_sum(),
    };
    let root = Pending {
        state: rules.root(),
        reach: [T::one(), T::one()],
        seq: [None, None],
    };
    // The top levels alone, deeper until enough states are pending for the tasks.
    let mut total = Sums::new();
    let mut histories = 0u64;
    let mut frontier = vec![root];
    while !frontier.is_empty() && frontier.len() < TASKS {
        let (h, next) = walk.walk(frontier, None, &mut total, Some(1))?;
        histories += h;
        frontier = next;
    }
    let mut peak = total.sets.iter().map(Sets::bytes).sum::<usize>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| StreamError::Rules(format!("starting {threads} threads: {e}")))?;
    // Tasks in chunks of the thread count; each chunk's sums are added in task order.
    let mut tasks: Vec<Option<Pending<G::State, T>>> = frontier.into_iter().map(Some).collect();
    for chunk in tasks.chunks_mut(threads) {
        let top = &total;
        let results: Vec<Result<(u64, Sums<T>), StreamError>> = pool.install(|| {
            use rayon::prelude::*;
            chunk
                .par_iter_mut()
                .map(|task| {
                    let mut sums = Sums::new();
                    let start = vec![task.take().expect("each task runs once")];
                    let (h, _) = walk.walk(start, Some(top), &mut sums, None)?;
                    Ok((h, sums))
                })
                .collect()
        });
        let mut in_flight = 0;
        let mut done = Vec::with_capacity(results.len());
        for r in results {
            let (h, sums) = r?;
            histories += h;
            in_flight += sums.sets.iter().map(Sets::bytes).sum::<usize>();
            done.push(sums);
        }
        for sums in done {
            for q in 0..2 {
                total.sets[q].absorb(&sums.sets[q])?;
                total.root[q] = total.root[q].clone() + sums.root[q].clone();
            }
        }
        peak = peak.max(total.sets.iter().map(Sets::bytes).sum::<usize>() + in_flight);
    }
    // Backward over each player's sets, last met first: Q(J) = T(J) + children's maxima.
    let mut value: [T; 2] = [T::zero(), T::zero()];
    for q in 0..2 {
        let sets = &mut total.sets[q];
        let mut root = total.root[q].clone();
        for j in (0..sets.len()).rev() {
            let (a, b) = (sets.starts[j], sets.starts[j + 1]);
            let best = sets.sums[a..b]
                .iter()
                .skip(1)
                .fold(
                    sets.sums[a].clone(),
                    |m, x| if *x > m { x.clone() } else { m },
                );
            match sets.parents[j] {
                (ROOT, _) => root = root + best,
                (pk, pa) => {
                    let i = sets.index[&pk] as usize;
                    let at = sets.starts[i] + pa as usize;
                    sets.sums[at] = sets.sums[at].clone() + best;
                }
            }
        }
        value[q] = root;
    }
    let c = T::from_rational(&walk.constant);
    let nash_conv = value[0].clone() + value[1].clone() - c;
    let two = T::one() + T::one();
    Ok(BestResponses {
        exploitability: nash_conv.clone() / two,
        nash_conv,
        value,
        histories,
        infosets: [total.sets[0].len(), total.sets[1].len()],
        table_bytes: peak,
        seconds: start.elapsed().as_secs_f64(),
    })
}
