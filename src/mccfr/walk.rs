//! The two sampling traversals, each a loop over an explicit stack (no recursion on the
//! game's depth), generic over the rules and over where their updates go ([`Store`]).
//!
//! External sampling (Lanctot et al. 2009; OpenSpiel's `ExternalSamplingMCCFRSolver`): the
//! traverser tries every action, chance and the opponent are sampled, so a sampled value is
//! already an unbiased counterfactual value; the opponent's strategy is added to its average
//! where it is sampled ("simple" averaging). Only the traverser's nodes need a frame: a chance
//! or opponent node passes its one child's value up unchanged; with VR-MCCFR's baselines an
//! opponent node (its action drawn on-policy) passes up the baselines' expectation under its
//! strategy plus the sampled value less the sampled action's baseline (eq. 9 with the
//! sampling probability equal to the strategy's), kept on a stack of corrections beside the
//! frames.
//!
//! Outcome sampling (OpenSpiel's `OutcomeSamplingMCCFRSolver`): one path, the traverser's
//! actions drawn from `epsilon`-uniform plus `(1 - epsilon)` of its strategy; values come back
//! importance-weighted, regrets are weighted by the opponent's and chance's reach over the
//! sampling probability, the average by the traverser's reach over it. With VR-MCCFR's
//! baselines (Schmid et al. 2019, eq. 9), each action's value is its baseline plus, for the
//! sampled one, the importance-weighted correction, and the baseline of the sampled action
//! learns the sampled value; baselines live per information set and action, so memory stays
//! per information set (chance nodes have none: their outcomes are sampled on-policy).

use super::rng::Rng;
use super::table::Table;
use crate::game::{Rules, Turn};

/// Where a traversal reads strategies and sends its updates.
pub(crate) trait Store {
    /// Player `p`'s table.
    fn table(&self, p: usize) -> &Table;
    /// The offset of `key`'s entry in `p`'s table, made now when this store makes entries;
    /// `None` for a set the table does not hold (played uniformly, baseline 0).
    fn entry(&mut self, p: usize, key: u64, n: usize) -> Option<usize>;
    /// The traverser's counterfactual values `cfv` at a set whose value under its strategy is
    /// `value`: regrets grow by `cfv - value`.
    fn add_regret(&mut self, p: usize, key: u64, off: Option<usize>, cfv: &[f64], value: f64);
    /// Adds `weight * sigma` to the set's average-strategy sums.
    fn add_average(&mut self, p: usize, key: u64, off: Option<usize>, sigma: &[f64], weight: f64);
    /// Moves the baseline of action `a` (of `n`) towards `value` (player 0's value).
    fn learn_baseline(
        &mut self,
        p: usize,
        key: u64,
        off: Option<usize>,
        n: usize,
        a: usize,
        value: f64,
    );
}

/// What a traversal needs besides the rules and the store.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setting {
    /// The traversing player.
    pub player: usize,
    /// Weight of this iteration's average-strategy updates.
    pub avg_weight: f64,
    /// Player 0's and player 1's payoffs add to this.
    pub constant: f64,
    /// Whether player 1's payoffs are their own ([`Rules::payoff1`]; no baselines then).
    pub general: bool,
    /// Outcome sampling's exploration.
    pub epsilon: f64,
    /// Whether outcome sampling uses the tables' baselines.
    pub baselines: bool,
}

/// The traverser's payoff, one body for [`Setting::utility`] and [`Setting::utility_inlined`]
/// (which differ only in how they are inlined). Player 0's payoff is read first and the
/// traverser's side picked after, so a constant-sum game reads one payoff.
macro_rules! payoff_of {
    ($set:expr, $rules:expr, $s:expr) => {{
        if $set.general && $set.player == 1 {
            $rules.payoff1($s)
        } else {
            let p0 = $rules.payoff0($s);
            if $set.player == 0 {
                p0
            } else {
                $set.constant - p0
            }
        }
    }};
}

/// A chance outcome drawn: the whole body of [`sample_chance`] and [`sample_chance_inlined`]
/// (which differ only in how they are inlined; it returns from the function it is in).
macro_rules! chance_draw {
    ($rules:expr, $s:expr, $rng:expr) => {{
        let n = $rules.num_actions($s);
        if $rules.chance_is_uniform($s) {
            return $rng.below(n);
        }
        let mut u = $rng.unit();
        for i in 0..n {
            let p = $rules.chance_prob($s, i);
            if u < p {
                return i;
            }
            u -= p;
        }
        (0..n)
            .rev()
            .find(|&i| $rules.chance_prob($s, i) > 0.0)
            .unwrap_or(0)
    }};
}

impl Setting {
    /// The traverser's payoff at a terminal state (external sampling: a call, as the compiler
    /// sees fit; forcing it inline cost the arena some 5% of its instructions on Kuhn).
    #[inline]
    fn utility<G: Rules>(&self, rules: &G, s: &G::State) -> f64 {
        payoff_of!(self, rules, s)
    }

    /// The same, always inlined (outcome sampling: a call here cost the arena on Kuhn).
    #[inline(always)]
    fn utility_inlined<G: Rules>(&self, rules: &G, s: &G::State) -> f64 {
        payoff_of!(self, rules, s)
    }
}

/// A traverser's node whose actions are being tried (external sampling).
struct Frame<S> {
    state: S,
    key: u64,
    off: Option<usize>,
    n: usize,
    next: usize,
    /// The strategy at `values[at..at + n]`, the children's values at `values[at + n..]`.
    at: usize,
    value: f64,
}

/// A sampled opponent node of an external-sampling walk with baselines, waiting for its
/// child's value (`depth`: the traverser's frames open above it).
#[derive(Clone, Copy)]
struct Correction {
    depth: usize,
    player: usize,
    key: u64,
    off: Option<usize>,
    n: usize,
    action: usize,
    /// The baselines' expectation under the strategy, and the sampled action's baseline, in
    /// the traverser's terms.
    expected: f64,
    sampled: f64,
}

/// A node on an outcome-sampling path, with the reaches before its action.
#[derive(Clone, Copy)]
struct Step {
    player: usize,
    key: u64,
    off: Option<usize>,
    n: usize,
    action: usize,
    /// The strategy at `values[at..at + n]`; room for the action values after it.
    at: usize,
    sample_prob: f64,
    my_reach: f64,
    opp_reach: f64,
    sample_reach: f64,
}

/// Reusable stacks of one traversing thread.
pub(crate) struct Scratch<S> {
    frames: Vec<Frame<S>>,
    path: Vec<Step>,
    corrections: Vec<Correction>,
    values: Vec<f64>,
}

impl<S> Default for Scratch<S> {
    fn default() -> Self {
        Scratch {
            frames: Vec::new(),
            path: Vec::new(),
            corrections: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl Setting {
    /// Baseline `b` of an entry of `p`'s table in the traverser's terms (tables keep player
    /// 0's values); 0 without baselines or without an entry.
    #[inline]
    fn baseline<T: Store>(
        &self,
        store: &T,
        p: usize,
        off: Option<usize>,
        n: usize,
        b: usize,
    ) -> f64 {
        match (self.baselines, off) {
            (true, Some(off)) => {
                let b0 = store.table(p).at(off, n)[2 * n + b];
                if self.player == 0 {
                    b0
                } else {
                    self.constant - b0
                }
            }
            _ => 0.0,
        }
    }

    /// The traverser's value `v` in player 0's terms.
    #[inline]
    fn in_player0_terms(&self, v: f64) -> f64 {
        if self.player == 0 {
            v
        } else {
            self.constant - v
        }
    }
}

/// Regret matching on the first `n` numbers of an entry (uniform where none is positive, and
/// for a set without an entry).
#[inline(always)]
pub(crate) fn strategy(table: &Table, off: Option<usize>, n: usize, out: &mut [f64]) {
    let Some(off) = off else {
        out.fill(1.0 / n as f64);
        return;
    };
    let regrets = &table.at(off, n)[..n];
    let mut total = 0.0;
    for (o, &r) in out.iter_mut().zip(regrets) {
        let x = if r > 0.0 { r } else { 0.0 };
        *o = x;
        total += x;
    }
    if total > 0.0 {
        let inv = 1.0 / total;
        out.iter_mut().for_each(|o| *o *= inv);
    } else {
        out.fill(1.0 / n as f64);
    }
}

/// Draws an index from `probs` (which sum to 1, up to rounding) with one uniform number.
#[inline(always)]
fn sample(probs: &[f64], rng: &mut Rng) -> usize {
    let mut u = rng.unit();
    for (i, &p) in probs.iter().enumerate() {
        if u < p {
            return i;
        }
        u -= p;
    }
    // Rounding left `u` above the sum: the last action with positive probability.
    probs.iter().rposition(|&p| p > 0.0).unwrap_or(0)
}

/// Draws a chance outcome (external sampling: a call, as the compiler sees fit; forcing it
/// inline cost the arena on Kuhn and Leduc more than the call).
#[inline]
fn sample_chance<G: Rules>(rules: &G, s: &G::State, rng: &mut Rng) -> usize {
    chance_draw!(rules, s, rng)
}

/// The same, always inlined (outcome sampling: uniform chance is one `rng.below`, and a
/// call per chance node cost the arena on Kuhn some 40 instructions).
#[inline(always)]
fn sample_chance_inlined<G: Rules>(rules: &G, s: &G::State, rng: &mut Rng) -> usize {
    chance_draw!(rules, s, rng)
}

/// One external-sampling traversal for `set.player`; returns the sampled value of the root.
pub(crate) fn external<G: Rules, T: Store>(
    rules: &G,
    store: &mut T,
    w: &mut Scratch<G::State>,
    set: Setting,
    rng: &mut Rng,
) -> f64 {
    let p = set.player;
    w.frames.clear();
    w.corrections.clear();
    // `values[..top]` holds the open frames' numbers. The vector only grows (to the deepest
    // path's need) and is never cleared or zeroed per node: every number a frame reads was
    // written first (`strategy` writes all `n`, each child's value is stored before the
    // regrets read them), and resizing at every node cost more than the rest of the node.
    let mut top = 0;
    let mut s = rules.root();
    loop {
        // Down to a terminal, sampling chance and the opponent, opening a frame at each node
        // of the traverser (its first action is tried at once).
        let mut v = loop {
            match rules.turn(&s) {
                Turn::Terminal => break set.utility(rules, &s),
                Turn::Chance => {
                    let o = sample_chance(rules, &s, rng);
                    rules.apply(&mut s, o);
                }
                Turn::Player(q) => {
                    let n = rules.num_actions(&s);
                    let key = rules.infoset_key(&s);
                    let off = store.entry(q, key, n);
                    if q != p {
                        // Sampled: the strategy lives above the frames' numbers in `values`
                        // while it is drawn from and added to the average.
                        if w.values.len() < top + n {
                            w.values.resize(top + n, 0.0);
                        }
                        let sigma = &mut w.values[top..top + n];
                        strategy(store.table(q), off, n, sigma);
                        let a = sample(sigma, rng);
                        if set.avg_weight != 0.0 {
                            store.add_average(q, key, off, sigma, set.avg_weight);
                        }
                        if set.baselines {
                            // The action is drawn on-policy, so the corrected value is the
                            // baselines' expectation plus the sampled value less its baseline.
                            let expected = (0..n)
                                .map(|b| sigma[b] * set.baseline(store, q, off, n, b))
                                .sum();
                            w.corrections.push(Correction {
                                depth: w.frames.len(),
                                player: q,
                                key,
                                off,
                                n,
                                action: a,
                                expected,
                                sampled: set.baseline(store, q, off, n, a),
                            });
                        }
                        rules.apply(&mut s, a);
                    } else {
                        let at = top;
                        top += 2 * n;
                        if w.values.len() < top {
                            w.values.resize(top, 0.0);
                        }
                        strategy(store.table(q), off, n, &mut w.values[at..at + n]);
                        w.frames.push(Frame {
                            state: s.clone(),
                            key,
                            off,
                            n,
                            next: 0,
                            at,
                            value: 0.0,
                        });
                        rules.apply(&mut s, 0);
                    }
                }
            }
        };
        // Up, handing each value to the frame above until one has an action left to try.
        loop {
            // The sampled opponent nodes below the top frame, deepest first.
            while let Some(c) = w.corrections.last().filter(|c| c.depth == w.frames.len()) {
                store.learn_baseline(
                    c.player,
                    c.key,
                    c.off,
                    c.n,
                    c.action,
                    set.in_player0_terms(v),
                );
                v = c.expected + v - c.sampled;
                w.corrections.pop();
            }
            let Some(f) = w.frames.last_mut() else {
                return v;
            };
            let (at, n) = (f.at, f.n);
            w.values[at + n + f.next] = v;
            f.value += w.values[at + f.next] * v;
            f.next += 1;
            if f.next < n {
                s = f.state.clone();
                rules.apply(&mut s, f.next);
                break;
            }
            let f = w.frames.pop().expect("a frame");
            store.add_regret(p, f.key, f.off, &w.values[at + n..at + 2 * n], f.value);
            top = at;
            v = f.value;
        }
    }
}

/// An outcome-sampling node's draw: its strategy into `values[..n]` (and, at the
/// traverser's node, the sampling distribution into `values[n..2 * n]`); returns the action
/// drawn, the probability it was drawn with and its probability under the strategy. Inlined
/// into each of `outcome`'s two calls, one with `n` the constant 2.
#[inline(always)]
fn draw(
    table: &Table,
    off: Option<usize>,
    n: usize,
    values: &mut [f64],
    traverser: bool,
    epsilon: f64,
    rng: &mut Rng,
) -> (usize, f64, f64) {
    let (sigma, explore) = values[..2 * n].split_at_mut(n);
    strategy(table, off, n, sigma);
    if traverser {
        let e = epsilon / n as f64;
        for (x, &sg) in explore.iter_mut().zip(sigma.iter()) {
            *x = e + (1.0 - epsilon) * sg;
        }
        let a = sample(explore, rng);
        (a, explore[a], sigma[a])
    } else {
        let a = sample(sigma, rng);
        (a, sigma[a], sigma[a])
    }
}

/// An outcome-sampling node's update on the way back, given its child's value `v`: the
/// action values into `values[n..2 * n]` (the strategy is `values[..n]`), the baseline,
/// and at the traverser's node the regrets and the average; returns the node's value.
/// Inlined like [`draw`].
#[inline(always)]
fn settle<T: Store>(
    store: &mut T,
    set: Setting,
    st: &Step,
    n: usize,
    values: &mut [f64],
    v: f64,
) -> f64 {
    let (sigma, cv) = values[..2 * n].split_at_mut(n);
    // Without baselines every baseline is 0: the same sums, without a test per action.
    let value = if set.baselines {
        action_values(sigma, cv, st, v, |b| {
            set.baseline(store, st.player, st.off, n, b)
        })
    } else {
        action_values(sigma, cv, st, v, |_| 0.0)
    };
    if set.baselines {
        store.learn_baseline(
            st.player,
            st.key,
            st.off,
            n,
            st.action,
            set.in_player0_terms(v),
        );
    }
    if st.player == set.player {
        let scale = st.opp_reach / st.sample_reach;
        cv.iter_mut().for_each(|c| *c *= scale);
        store.add_regret(st.player, st.key, st.off, cv, value * scale);
        let weight = set.avg_weight * st.my_reach / st.sample_reach;
        store.add_average(st.player, st.key, st.off, sigma, weight);
    }
    value
}

/// The action values of a node on an outcome-sampling path into `cv` (`baseline(b)` each,
/// the sampled action's corrected by the child's value `v` over its sampling probability);
/// returns their expectation under `sigma`.
#[inline(always)]
fn action_values(
    sigma: &[f64],
    cv: &mut [f64],
    st: &Step,
    v: f64,
    baseline: impl Fn(usize) -> f64,
) -> f64 {
    let mut value = 0.0;
    for (b, (c, &sg)) in cv.iter_mut().zip(sigma).enumerate() {
        let bb = baseline(b);
        *c = if b == st.action {
            bb + (v - bb) / st.sample_prob
        } else {
            bb
        };
        value += sg * *c;
    }
    value
}

/// One outcome-sampling traversal for `set.player`; returns the sampled value of the root.
pub(crate) fn outcome<G: Rules, T: Store>(
    rules: &G,
    store: &mut T,
    w: &mut Scratch<G::State>,
    set: Setting,
    rng: &mut Rng,
) -> f64 {
    let p = set.player;
    w.path.clear();
    // `values[..top]` holds the path's numbers; as in `external`, the vector only grows and is
    // never zeroed per node (every number read was written first: `strategy` writes `sigma`,
    // the traverser's `explore` is written before it is drawn from, each `cv` is written
    // before it is read), which saves a `memset` call per node.
    let mut top = 0;
    let mut s = rules.root();
    let (mut my, mut opp, mut samp) = (1.0f64, 1.0f64, 1.0f64);
    let mut v = loop {
        match rules.turn(&s) {
            Turn::Terminal => break set.utility_inlined(rules, &s),
            Turn::Chance => {
                let o = sample_chance_inlined(rules, &s, rng);
                let pr = rules.chance_prob(&s, o);
                opp *= pr;
                samp *= pr;
                rules.apply(&mut s, o);
            }
            Turn::Player(q) => {
                let n = rules.num_actions(&s);
                let key = rules.infoset_key(&s);
                let off = store.entry(q, key, n);
                let at = top;
                top += 2 * n;
                if w.values.len() < top {
                    w.values.resize(top, 0.0);
                }
                // Two actions (every set of Kuhn, most of the poker games') get their own
                // copy of the node's arithmetic with `n` a constant; the operations and
                // their order are the same, so the bits are too.
                let values = &mut w.values[at..top];
                let (a, x, sa) = if n == 2 {
                    draw(store.table(q), off, 2, values, q == p, set.epsilon, rng)
                } else {
                    draw(store.table(q), off, n, values, q == p, set.epsilon, rng)
                };
                w.path.push(Step {
                    player: q,
                    key,
                    off,
                    n,
                    action: a,
                    at,
                    sample_prob: x,
                    my_reach: my,
                    opp_reach: opp,
                    sample_reach: samp,
                });
                if q == p {
                    my *= sa;
                } else {
                    opp *= sa;
                }
                samp *= x;
                rules.apply(&mut s, a);
            }
        }
    };
    while let Some(st) = w.path.pop() {
        let values = &mut w.values[st.at..top];
        let value = if st.n == 2 {
            settle(store, set, &st, 2, values, v)
        } else {
            settle(store, set, &st, st.n, values, v)
        };
        top = st.at;
        v = value;
    }
    v
}
