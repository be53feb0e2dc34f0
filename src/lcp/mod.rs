//! Two-player general-sum games, exactly: the sequence-form linear complementarity problem
//! (Koller, Megiddo and von Stengel 1996) solved by Lemke's algorithm, and every extreme
//! equilibrium of a bimatrix game ([`bimatrix`]).
//!
//! With `x`, `y` the players' realization plans (`E x = e`, `F y = f`, `x, y >= 0`) and `A`,
//! `B` their sequence-form payoff matrices, `(x, y)` is an equilibrium when some `p`, `q`
//! (the values of the players' information sets) satisfy
//!
//! ```text
//! a = E^T p - A y >= 0,  x . a = 0,     b = F^T q - B^T x >= 0,  y . b = 0.
//! ```
//!
//! Lemke's algorithm needs every variable non-negative, so `p = p+ - p-`, `q = q+ - q-` and
//! the equations become pairs of inequalities `e - E x >= 0` (complementary to `p+`) and
//! `E x - e >= 0` (to `p-`). Every payoff is first shifted down by one constant per player
//! (the largest payoff plus one), which changes no best response and makes `A`, `B` negative
//! where they are not zero, as the theorem of Koller, Megiddo and von Stengel asks.
//!
//! The covering vector carries the start: with `(x0, y0)` the starting profile's realization
//! plans, `d = (-A y0, -B^T x0, 1, 1, 1, 1)`, so while `z0` is large each player best-responds
//! to the other's starting strategy, and the path leads from there to an equilibrium, as the
//! tracing procedure does. The default start is the first action at every information set.
//!
//! The tableau is exact (integers, fraction-free: [`lemke`]), ties in the ratio test are
//! broken lexicographically, so the path never loops, and every answer is certified by
//! [`crate::eval::exploitability`] in rationals: each player's best-response value against
//! the other must equal their value (NashConv exactly 0).

pub mod bimatrix;

/// Float pivots between two polls of the caller's interrupt.
pub const POLL_EVERY: u64 = 32;
mod fast;
mod lemke;
mod warm;

pub use fast::PathStats;

use crate::eval::{exploitability, Exploitability};
use crate::exact::sequence_form::behavioural_from_plan;
use crate::game::{Game, NodeKind};
use crate::scalar::Rational;
use crate::strategy::ExactProfile;
use lemke::{LemkeEnd, LemkeTableau};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;
use thiserror::Error;

/// Where Lemke's path starts: the profile both players best-respond to while the covering
/// vector's weight is large.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum LcpStart {
    /// The first action at every information set of both players.
    #[default]
    FirstActions,
    /// A pure strategy per player: the local action index played at each information set.
    Pure([Vec<usize>; 2]),
    /// A behavioural profile (exact probabilities).
    Profile(ExactProfile),
    /// The complementary basis of the equilibrium of the game's zero-sum part
    /// (`(u1 - u2) / 2`, solved by the exact LP), with the covering vector that makes it
    /// feasible ([`warm`]); the first actions' path when that path fails (saying why) or with
    /// the exact tableau ([`LcpMethod::Tableau`]).
    ZeroSumPart,
}

impl LcpStart {
    /// A short description for messages ("first actions", "pure", "a given profile").
    pub fn describe(&self) -> String {
        match self {
            LcpStart::FirstActions => "the first action at every information set".into(),
            LcpStart::Pure(_) => "a given pair of pure strategies".into(),
            LcpStart::Profile(_) => "a given profile".into(),
            LcpStart::ZeroSumPart => "the basis of the zero-sum part's equilibrium".into(),
        }
    }
}

impl LcpStart {
    /// The pure start of reduced pure strategies `[i, j]` (0-based, in the order of
    /// [`crate::matrix::normal_form::reduced_strategies`], at most `limit` per player); sets a
    /// strategy leaves unreached play their first action. Refused by name when a player has no
    /// such strategy.
    pub fn from_reduced(game: &Game, index: [usize; 2], limit: usize) -> crate::Result<LcpStart> {
        let mut choice: [Vec<usize>; 2] = [Vec::new(), Vec::new()];
        for p in 0..2 {
            let strategies = crate::matrix::normal_form::reduced_strategies(game, p, limit)?;
            let Some(s) = strategies.get(index[p]) else {
                return Err(LcpError::BadStart(format!(
                    "player {} has {} reduced pure strategies, not a strategy {}",
                    p + 1,
                    strategies.len(),
                    index[p] + 1
                ))
                .into());
            };
            choice[p] = s.choices.iter().map(|c| c.unwrap_or(0)).collect();
        }
        Ok(LcpStart::Pure(choice))
    }
}

/// Options of [`solve_lcp`].
#[derive(Clone, Debug)]
pub struct LcpOptions {
    /// The start of the path.
    pub start: LcpStart,
    /// Stop after this many pivots (`None`: no limit; the lexicographic rule ends every path).
    pub max_pivots: Option<u64>,
    /// Refuse, before allocating, a route estimated above this many bytes.
    pub max_memory: u64,
    /// The route: float-guided (the default) or the exact tableau.
    pub method: LcpMethod,
}

/// How [`solve_lcp`] follows Lemke's path.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LcpMethod {
    /// Float pivots on a sparse LU, then the final basis solved exactly and certified; the exact
    /// tableau takes over (saying so) when that basis does not certify.
    #[default]
    Guided,
    /// The dense fraction-free integer tableau throughout (for small games; the reference).
    Tableau,
}

/// The route that gave an [`LcpSolution`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LcpRoute {
    /// Float Lemke pivots, the final basis solved exactly (by refinement and reconstruction,
    /// or by an exact LU when `exact_lu`).
    Guided {
        /// Refinement rounds of the exact solve.
        rounds: usize,
        /// Whether the exact LU solved the basis (refinement did not converge).
        exact_lu: bool,
        /// `Some(why)`: the lexicographic float path failed for `why`, and the basis came from
        /// a float path on `q` perturbed by tiny positive amounts (no ties), solved exactly on
        /// the true `q`.
        perturbed: Option<String>,
    },
    /// The exact tableau, asked for.
    Tableau,
    /// The exact tableau after the float route failed, for the reason given.
    TableauAfterGuided(String),
    /// [`LcpStart::ZeroSumPart`]: the float path from the zero-sum part's basis, then this route.
    FromZeroSumPart(Box<LcpRoute>),
    /// [`LcpStart::ZeroSumPart`]: the path from the zero-sum part's basis failed, for the
    /// reason given, and the first actions' path gave the answer by this route.
    AfterZeroSumPart(String, Box<LcpRoute>),
}

impl LcpRoute {
    /// The route in words, for messages.
    pub fn describe(&self) -> String {
        match self {
            LcpRoute::Guided {
                rounds,
                exact_lu,
                perturbed,
            } => format!(
                "float pivots{}, final basis solved exactly ({})",
                match perturbed {
                    Some(why) =>
                        format!(" on a perturbed q (the lexicographic float path failed: {why})"),
                    None => String::new(),
                },
                if *exact_lu {
                    "exact LU".to_string()
                } else {
                    format!("{rounds} refinement rounds")
                }
            ),
            LcpRoute::Tableau => "exact tableau".into(),
            LcpRoute::TableauAfterGuided(why) => {
                format!("exact tableau after the float route failed: {why}")
            }
            LcpRoute::FromZeroSumPart(route) => {
                format!(
                    "from the zero-sum part's equilibrium basis: {}",
                    route.describe()
                )
            }
            LcpRoute::AfterZeroSumPart(why, route) => format!(
                "the path from the zero-sum part's equilibrium basis failed ({why}); from the \
                 first actions: {}",
                route.describe()
            ),
        }
    }
}

impl Default for LcpOptions {
    fn default() -> Self {
        LcpOptions {
            start: LcpStart::FirstActions,
            max_pivots: None,
            max_memory: DEFAULT_MAX_MEMORY,
            method: LcpMethod::Guided,
        }
    }
}

/// The default memory budget of the exact tableau: 2 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 2 << 30;

/// Bytes counted per tableau entry in the estimate: a big integer's header and one digit.
const BYTES_PER_ENTRY: u64 = 40;

/// Why the LCP gave no certified equilibrium.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum LcpError {
    /// The tableau would be larger than the memory budget.
    #[error(
        "the sequence-form LCP has {rows} rows, a tableau of about {bytes} bytes, above the \
         limit of {limit} bytes"
    )]
    TooBig {
        /// Rows of the LCP.
        rows: usize,
        /// Estimated bytes of the tableau.
        bytes: u128,
        /// The budget.
        limit: u64,
    },
    /// The start names a strategy the game does not have.
    #[error("bad LCP start: {0}")]
    BadStart(String),
    /// Lemke's path ended on a secondary ray.
    #[error(
        "Lemke's path from {start} ended on a secondary ray after {pivots} pivots, with no \
         equilibrium; try another start"
    )]
    Ray {
        /// The start's description.
        start: String,
        /// Pivots taken.
        pivots: u64,
    },
    /// The pivot budget ran out.
    #[error("Lemke's path stopped at the limit of {pivots} pivots")]
    PivotLimit {
        /// Pivots taken.
        pivots: u64,
    },
    /// The float route failed and the exact tableau does not fit the budget.
    #[error(
        "the float-guided Lemke path gave no certified equilibrium ({why}), and the exact \
         tableau of the LCP's {rows} rows, about {bytes} bytes, is above the limit of {limit} \
         bytes"
    )]
    GuidedFailed {
        /// Why the float route failed.
        why: String,
        /// Rows of the LCP.
        rows: usize,
        /// Estimated bytes of the tableau.
        bytes: u128,
        /// The budget.
        limit: u64,
    },
    /// The complementary solution failed its exact check (a bug; never shown as an answer).
    #[error("the LCP's solution is not certified: {0}")]
    NotCertified(String),
    /// The caller's interrupt stopped the path (nothing is an answer).
    #[error("Lemke's path was interrupted after {pivots} pivots, with no equilibrium")]
    Interrupted {
        /// Pivots taken before the interrupt.
        pivots: u64,
    },
}

/// A certified equilibrium of a two-player game from [`solve_lcp`].
#[derive(Clone, Debug)]
pub struct LcpSolution {
    /// The equilibrium, behavioural (unreached sets play uniformly).
    pub profile: ExactProfile,
    /// Both realization plans, indexed by sequence (0 = empty sequence).
    pub plans: [Vec<Rational>; 2],
    /// Each player's exact value.
    pub value: [Rational; 2],
    /// The exact evaluation that certifies it (both gains 0).
    pub certificate: Exploitability<Rational>,
    /// Lemke pivots taken.
    pub pivots: u64,
    /// Rows of the LCP.
    pub rows: usize,
    /// The start used.
    pub start: LcpStart,
    /// The route that found it.
    pub route: LcpRoute,
    /// The counters of the float path that found it (`None`: the exact tableau).
    pub path_stats: Option<PathStats>,
}

/// The sequence-form matrices of both players with payoffs shifted negative: `((s, t), [a, b])`
/// over pairs of sequences reaching terminals, in ascending order.
fn shifted_matrices(game: &Game) -> Vec<((usize, usize), [Rational; 2])> {
    let shift = [0, 1].map(|p| {
        (0..game.terminals.len())
            .map(|t| game.payoff(t, p))
            .max()
            .unwrap_or_else(Rational::zero)
            + Rational::one()
    });
    let n = game.nodes.len();
    let mut reach = vec![Rational::zero(); n];
    reach[0] = Rational::one();
    let mut seq = vec![[0usize; 2]; n];
    let mut acc: HashMap<(usize, usize), [Rational; 2]> = HashMap::new();
    for node in 0..n {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Terminal { terminal } => {
                if !reach[node].is_zero() {
                    let e = acc
                        .entry((seq[node][0], seq[node][1]))
                        .or_insert_with(|| [Rational::zero(), Rational::zero()]);
                    for p in 0..2 {
                        e[p] += &reach[node] * (game.payoff(terminal as usize, p) - &shift[p]);
                    }
                }
            }
            NodeKind::Chance => {
                for child in nd.children() {
                    reach[child] = &reach[node] * &game.chance_prob[child];
                    seq[child] = seq[node];
                }
            }
            NodeKind::Decision { player, infoset } => {
                let offset = game.infosets[player as usize][infoset as usize].action_offset;
                for (k, child) in nd.children().enumerate() {
                    reach[child] = reach[node].clone();
                    seq[child] = seq[node];
                    seq[child][player as usize] = 1 + offset + k;
                }
            }
        }
    }
    let mut out: Vec<_> = acc.into_iter().collect();
    out.sort_by_key(|e| e.0);
    out
}

/// `player`'s realization plan of a behavioural strategy (exact).
fn plan_of(game: &Game, player: usize, probs: &[Rational]) -> Vec<Rational> {
    let mut plan = vec![Rational::zero(); game.num_sequences(player)];
    plan[0] = Rational::one();
    // Sets come in arena order of first appearance, so a set's parent sequence is set before.
    let mut order: Vec<usize> = (0..game.infosets[player].len()).collect();
    order.sort_by_key(|&h| game.infosets[player][h].nodes[0]);
    for h in order {
        let set = &game.infosets[player][h];
        let parent = plan[set.parent_sequence()].clone();
        for a in set.action_range() {
            plan[1 + a] = &parent * &probs[a];
        }
    }
    plan
}

/// The starting profile of `start`, checked against the game.
fn start_profile(game: &Game, start: &LcpStart) -> Result<ExactProfile, LcpError> {
    let mut profile = ExactProfile::uniform(game);
    match start {
        LcpStart::FirstActions | LcpStart::ZeroSumPart => {
            for p in 0..2 {
                profile.set_pure(game, p, &vec![0; game.infosets[p].len()]);
            }
        }
        LcpStart::Pure(choice) => {
            for p in 0..2 {
                if choice[p].len() != game.infosets[p].len() {
                    return Err(LcpError::BadStart(format!(
                        "player {} has {} information sets, the start gives {} actions",
                        p + 1,
                        game.infosets[p].len(),
                        choice[p].len()
                    )));
                }
                for (h, &a) in choice[p].iter().enumerate() {
                    let set = &game.infosets[p][h];
                    if a >= set.actions.len() {
                        return Err(LcpError::BadStart(format!(
                            "information set {} of player {} has {} actions, not an action {}",
                            crate::format::text::quoted(&set.label),
                            p + 1,
                            set.actions.len(),
                            a + 1
                        )));
                    }
                }
                profile.set_pure(game, p, &choice[p]);
            }
        }
        LcpStart::Profile(given) => {
            for p in 0..2 {
                if given.probs[p].len() != game.num_actions[p] {
                    return Err(LcpError::BadStart(format!(
                        "the profile has {} actions for player {}, the game {}",
                        given.probs[p].len(),
                        p + 1,
                        game.num_actions[p]
                    )));
                }
                for set in &game.infosets[p] {
                    let probs = &given.probs[p][set.action_range()];
                    let sum: Rational = probs.iter().sum();
                    if probs.iter().any(Signed::is_negative) || !sum.is_one() {
                        return Err(LcpError::BadStart(format!(
                            "the profile's probabilities at information set {} of player {} \
                             are not a distribution",
                            crate::format::text::quoted(&set.label),
                            p + 1
                        )));
                    }
                }
            }
            profile = given.clone();
        }
    }
    Ok(profile)
}

/// Rows of the sequence-form LCP of `game`: both players' sequences plus twice their
/// information sets and empty sequences.
pub fn lcp_rows(game: &Game) -> usize {
    let (n1, n2) = (game.num_sequences(0), game.num_sequences(1));
    let (m1, m2) = (game.infosets[0].len() + 1, game.infosets[1].len() + 1);
    n1 + n2 + 2 * (m1 + m2)
}

/// The estimated bytes of the exact tableau of `game`'s LCP.
pub fn lcp_memory_estimate(game: &Game) -> u128 {
    let rows = lcp_rows(game) as u128;
    rows * (2 * rows + 2) * u128::from(BYTES_PER_ENTRY)
}

/// The sequence-form LCP `w = q + M z + d z0` of a game with rational data: `m` by rows of
/// `(column, value)` (sorted, merged, no zeros), the layout of its variables.
pub(crate) struct RationalLcp {
    /// `M` by rows.
    pub m: Vec<Vec<(usize, Rational)>>,
    /// The constant vector.
    pub q: Vec<Rational>,
    /// The covering vector.
    pub d: Vec<Rational>,
    /// Sequences of each player (`x` is `z[0..n1]`, `y` is `z[n1..n1 + n2]`).
    pub sequences: [usize; 2],
}

impl RationalLcp {
    /// Rows (and `z` variables).
    pub fn rows(&self) -> usize {
        self.q.len()
    }

    /// Both realization plans from the values of `z`.
    pub fn plans(&self, z: &[Rational]) -> [Vec<Rational>; 2] {
        let [n1, n2] = self.sequences;
        [z[..n1].to_vec(), z[n1..n1 + n2].to_vec()]
    }
}

/// Builds the sequence-form LCP of `game` with the covering vector of `start`.
pub(crate) fn build_lcp(game: &Game, start: &ExactProfile) -> RationalLcp {
    let rows = lcp_rows(game);
    let start_plans = [0, 1].map(|p| plan_of(game, p, &start.probs[p]));
    let (n1, n2) = (game.num_sequences(0), game.num_sequences(1));
    let (m1, m2) = (game.infosets[0].len() + 1, game.infosets[1].len() + 1);
    // Variable layout: x, y, p+, p-, q+, q- (rows of w in the same order).
    let (ox, oy) = (0, n1);
    let (opp, opm) = (n1 + n2, n1 + n2 + m1);
    let (oqp, oqm) = (n1 + n2 + 2 * m1, n1 + n2 + 2 * m1 + m2);
    let mut m: Vec<Vec<(usize, Rational)>> = vec![Vec::new(); rows];
    let mut q = vec![Rational::zero(); rows];
    let mut d = vec![Rational::zero(); rows];
    let matrices = shifted_matrices(game);
    for ((s, t), [a, b]) in &matrices {
        // w_x = -A y + ..., w_y = -B^T x + ...
        m[ox + s].push((oy + t, -a));
        m[oy + t].push((ox + s, -b));
        d[ox + s] -= a * &start_plans[1][*t];
        d[oy + t] -= b * &start_plans[0][*s];
    }
    drop(matrices);
    // E (rows: the empty sequence, then one per information set), as (row, sequence, coeff).
    let constraints = |p: usize| {
        let mut e: Vec<(usize, usize, i64)> = vec![(0, 0, 1)];
        for (h, set) in game.infosets[p].iter().enumerate() {
            e.push((h + 1, set.parent_sequence(), -1));
            for a in set.action_range() {
                e.push((h + 1, 1 + a, 1));
            }
        }
        e
    };
    for (p, (ov, op, om)) in [(0, (ox, opp, opm)), (1, (oy, oqp, oqm))] {
        for (h, s, c) in constraints(p) {
            let c = Rational::from_integer(BigInt::from(c));
            // w_v[s] += (E^T (p+ - p-))_s
            m[ov + s].push((op + h, c.clone()));
            m[ov + s].push((om + h, -c.clone()));
            // w_p+[h] = e_h - (E v)_h + z0 ; w_p-[h] = -e_h + (E v)_h + z0
            m[op + h].push((ov + s, -c.clone()));
            m[om + h].push((ov + s, c));
        }
        q[op] = Rational::one();
        q[om] = -Rational::one();
        let count = if p == 0 { m1 } else { m2 };
        for h in 0..count {
            d[op + h] = Rational::one();
            d[om + h] = Rational::one();
        }
    }
    for row in &mut m {
        row.sort_by_key(|e| e.0);
        let mut merged: Vec<(usize, Rational)> = Vec::with_capacity(row.len());
        for (j, v) in row.drain(..) {
            match merged.last_mut() {
                Some(last) if last.0 == j => last.1 += v,
                _ => merged.push((j, v)),
            }
        }
        merged.retain(|e| !e.1.is_zero());
        *row = merged;
    }
    RationalLcp {
        m,
        q,
        d,
        sequences: [n1, n2],
    }
}

/// One equilibrium of a two-player game (general-sum or not) by the sequence-form LCP and
/// Lemke's algorithm from `options.start`, exact and certified, by `options.method`: the
/// float-guided route ([`fast`]) falls back to the exact tableau, saying so in
/// [`LcpSolution::route`], when its basis does not certify.
pub fn solve_lcp(game: &Game, options: &LcpOptions) -> Result<LcpSolution, LcpError> {
    solve_lcp_with(game, options, &mut || false)
}

/// [`solve_lcp`], polling `interrupted` between pivots (every pivot of the exact tableau,
/// every [`POLL_EVERY`] float pivots): once it says `true` the path stops with
/// [`LcpError::Interrupted`] and no route takes over.
pub fn solve_lcp_with(
    game: &Game,
    options: &LcpOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, LcpError> {
    let rows = lcp_rows(game);
    let limit = u128::from(options.max_memory);
    let dense_bytes = lcp_memory_estimate(game);
    let bytes = match options.method {
        LcpMethod::Guided => fast::memory_estimate(game),
        LcpMethod::Tableau => dense_bytes,
    };
    if bytes > limit {
        return Err(LcpError::TooBig {
            rows,
            bytes,
            limit: options.max_memory,
        });
    }
    let start = start_profile(game, &options.start)?;
    let lcp = build_lcp(game, &start);
    let mut warm_failure = None;
    if options.start == LcpStart::ZeroSumPart && options.method == LcpMethod::Guided {
        match solve_from_zero_sum_part(game, &lcp, options, interrupted) {
            Ok(mut s) => {
                s.start = LcpStart::ZeroSumPart;
                s.route = LcpRoute::FromZeroSumPart(Box::new(s.route));
                return Ok(s);
            }
            Err(fast::GuidedFailure::Fatal(e)) => return Err(e),
            Err(fast::GuidedFailure::Fallback(why)) => warm_failure = Some(why),
        }
    }
    let mut s = solve_lcp_from(game, &lcp, options, interrupted)?;
    if options.start == LcpStart::ZeroSumPart {
        // The answer came from the first actions' path (the exact tableau has no other start).
        s.start = LcpStart::FirstActions;
    }
    if let Some(why) = warm_failure {
        s.route = LcpRoute::AfterZeroSumPart(why, Box::new(s.route));
    }
    Ok(s)
}

/// The float path from the complementary basis of the zero-sum part's equilibrium ([`warm`]).
fn solve_from_zero_sum_part(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, fast::GuidedFailure> {
    let zero_sum = warm::zero_sum_part(game);
    let solution = crate::exact::solve_exact(&zero_sum).map_err(|e| {
        fast::GuidedFailure::Fallback(format!("the zero-sum part was not solved: {e}"))
    })?;
    drop(zero_sum);
    let basis = warm::basis_of(game, lcp, &solution.profile);
    fast::solve_from(game, lcp, options, &basis, interrupted)
}

/// The path of `lcp` from its slack basis by `options.method` (the float route falling back to
/// the exact tableau).
fn solve_lcp_from(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, LcpError> {
    let rows = lcp.rows();
    let limit = u128::from(options.max_memory);
    let dense_bytes = lcp_memory_estimate(game);
    let mut fallback_reason = None;
    if options.method == LcpMethod::Guided {
        match fast::solve(game, lcp, options, interrupted) {
            Ok(mut s) => {
                s.start = options.start.clone();
                return Ok(s);
            }
            Err(fast::GuidedFailure::Fatal(e)) => return Err(e),
            Err(fast::GuidedFailure::Fallback(why)) => {
                if dense_bytes > limit {
                    return Err(LcpError::GuidedFailed {
                        why,
                        rows,
                        bytes: dense_bytes,
                        limit: options.max_memory,
                    });
                }
                fallback_reason = Some(why);
            }
        }
    }
    let mut s = solve_tableau(game, lcp, options, interrupted)?;
    if let Some(why) = fallback_reason {
        s.route = LcpRoute::TableauAfterGuided(why);
    }
    Ok(s)
}

/// The exact dense tableau's route.
fn solve_tableau(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, LcpError> {
    let rows = lcp.rows();
    // One common denominator makes the system integral (the slacks are scaled with it).
    let mut den = BigInt::one();
    for r in lcp
        .m
        .iter()
        .flatten()
        .map(|e| &e.1)
        .chain(&lcp.q)
        .chain(&lcp.d)
    {
        den = den.lcm(r.denom());
    }
    let int = |r: &Rational| r.numer() * (&den / r.denom());
    let mi: Vec<Vec<(usize, BigInt)>> = lcp
        .m
        .iter()
        .map(|row| row.iter().map(|(j, v)| (*j, int(v))).collect())
        .collect();
    let qi: Vec<BigInt> = lcp.q.iter().map(int).collect();
    let di: Vec<BigInt> = lcp.d.iter().map(int).collect();
    let mut tableau = LemkeTableau::new(&mi, &qi, &di);
    drop((mi, qi, di));
    match tableau.run(options.max_pivots, interrupted) {
        LemkeEnd::Solution => {}
        LemkeEnd::Interrupted => {
            return Err(LcpError::Interrupted {
                pivots: tableau.pivots,
            })
        }
        LemkeEnd::Ray => {
            return Err(LcpError::Ray {
                start: options.start.describe(),
                pivots: tableau.pivots,
            })
        }
        LemkeEnd::Budget => {
            return Err(LcpError::PivotLimit {
                pivots: tableau.pivots,
            })
        }
    }
    let (z, det) = tableau.z_values();
    let z: Vec<Rational> = z
        .into_iter()
        .map(|v| crate::scalar::ratio(v, det.clone()))
        .collect();
    let mut s = certified(game, lcp.plans(&z), tableau.pivots, rows)?;
    s.start = options.start.clone();
    Ok(s)
}

/// Checks a pair of realization plans exactly and returns it as a certified solution.
pub(crate) fn certified(
    game: &Game,
    plans: [Vec<Rational>; 2],
    pivots: u64,
    rows: usize,
) -> Result<LcpSolution, LcpError> {
    for p in 0..2 {
        if let Some(v) = plans[p].iter().find(|v| v.is_negative()) {
            return Err(LcpError::NotCertified(format!(
                "player {}'s plan has a negative entry {v}",
                p + 1
            )));
        }
        if !plans[p][0].is_one() {
            return Err(LcpError::NotCertified(format!(
                "player {}'s plan has {} on the empty sequence",
                p + 1,
                plans[p][0]
            )));
        }
        for set in &game.infosets[p] {
            let sum: Rational = set.action_range().map(|a| &plans[p][1 + a]).sum();
            if sum != plans[p][set.parent_sequence()] {
                return Err(LcpError::NotCertified(format!(
                    "player {}'s plan breaks E x = e at {}",
                    p + 1,
                    crate::format::text::quoted(&set.label)
                )));
            }
        }
    }
    let profile = ExactProfile {
        probs: [0, 1].map(|p| behavioural_from_plan(game, p, &plans[p])),
    };
    let certificate = exploitability(game, &profile);
    if !certificate.gain[0].is_zero() || !certificate.gain[1].is_zero() {
        return Err(LcpError::NotCertified(format!(
            "best responses gain {} and {}",
            certificate.gain[0], certificate.gain[1]
        )));
    }
    Ok(LcpSolution {
        value: certificate.value.clone(),
        profile,
        plans,
        certificate,
        pivots,
        rows,
        start: LcpStart::FirstActions,
        route: LcpRoute::Tableau,
        path_stats: None,
    })
}
