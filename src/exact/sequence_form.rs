//! Exact equilibria of two-player constant-sum games by the sequence-form linear program
//! (Koller, Megiddo and von Stengel 1996).
//!
//! With `x` player 0's realization plan (`E x = e`, `x >= 0`), `y` player 1's (`F y = f`),
//! and `A[s][t]` the chance-weighted payoff to player 0 of the terminals reached by sequences
//! `s` and `t`, player 0's maximin problem `max_x min_y x^T A y` becomes, by LP duality of the
//! inner minimisation,
//!
//! ```text
//! maximise q_0  subject to  F^T q - A^T x <= 0,  E x = e,  x >= 0,  q free.
//! ```
//!
//! The duals of the `F^T q - A^T x <= 0` rows are an optimal `y`, so one exact LP gives the
//! value and both players' strategies. The result is then certified independently: the exact
//! best responses ([`crate::exact::plan_certificate`], in integers) must give NashConv exactly 0.
//!
//! Player 1's maximin problem is the same program with the players' roles exchanged (`y` the
//! variables, `-A` its payoffs, player 0's sequences the rows): the LP dual of player 0's, so
//! it has the same value, negated, and the same strategies. The simplex walks a different
//! path on it, and which is shorter depends on the game ([`LpPrimal`]).

use crate::cfr::{CfrSolver, RegretParams};
use crate::exact::terminal_weights::TerminalWeights;
use crate::game::Game;
use crate::lp::memory::{self, LpSize};
use crate::lp::{BasisEntry, LinearProgram, LpError, LpSolution, Method, Relation, SolveOptions};
use crate::scalar::Rational;
use crate::strategy::normalize_exact;
use num_traits::{One, Signed, Zero};

/// The sequence-form LP of a game, with the layout needed to read it back.
#[derive(Clone, Debug)]
pub struct SequenceFormLp {
    /// The program (player 0 maximises).
    pub lp: LinearProgram,
    /// Sequences per player in the game.
    pub sequences: [usize; 2],
    /// Non-zeros of `A`.
    pub payoff_nonzeros: usize,
    /// Each player's sequences merged into classes ([`SequenceClasses`]).
    classes: [SequenceClasses; 2],
    /// The player whose realization plan is the LP's variables (the other's is its duals).
    primal: usize,
}

impl SequenceFormLp {
    /// `player`'s realization plan over all of the game's sequences, from the LP's values of
    /// its sequence classes (the primal player's: the first variables; the other's: the duals
    /// of the first rows).
    pub fn expand_plan(&self, player: usize, lp_values: &[Rational]) -> Vec<Rational> {
        self.classes[player]
            .class
            .iter()
            .map(|&k| lp_values[k].clone())
            .collect()
    }

    /// Both players' realization plans from a solution of [`Self::lp`].
    pub fn plans(&self, solution: &LpSolution) -> [Vec<Rational>; 2] {
        let (p, o) = (self.primal, 1 - self.primal);
        let mut plans = [Vec::new(), Vec::new()];
        plans[p] = self.expand_plan(p, &solution.values);
        plans[o] = self.expand_plan(o, &solution.duals);
        plans
    }

    /// Player 0's value from the LP's optimal objective (the primal player's maximin value;
    /// player 1's LP maximises against `-A`, so its objective is player 0's value negated).
    pub fn value_for_player_0(&self, objective: &Rational) -> Rational {
        if self.primal == 0 {
            objective.clone()
        } else {
            -objective
        }
    }

    /// The player whose realization plan is the LP's variables.
    pub fn primal(&self) -> usize {
        self.primal
    }

    /// Sequence classes per player: the primal player's are the LP's `x` variables, the
    /// other's its `<=` rows.
    pub fn lp_sequences(&self) -> [usize; 2] {
        [self.classes[0].count(), self.classes[1].count()]
    }
}

/// Whose maximin program [`build_lp_for`] builds: the variables are that player's realization
/// plan, the rows the other's sequences (its plan is the duals).
///
/// The two programs are each other's LP duals, and the primal simplex walks a different path
/// on each. From the pure crash start, on player 1's the float simplex is faster on every
/// liar's dice measured (1x3 to
/// 1x7 and 2x2, 2x3; 1x6 1.27 s against 1.64 s, 1x7 18.5 s against 25.3 s) and big Leduc
/// (4 ranks with 2 raises up to 8 with 2: 8 to 22% faster), and slower on Leduc (0.071 s
/// against 0.046 s), Battleship and Goofspiel in descending order (Battleship 3x2 and
/// Goofspiel 6 by 8 and 12%). Nothing in the games' counts tells them apart (Leduc and big
/// Leduc have the same shape), so [`LpPrimal::Auto`] goes by size (docs/lp.md). From the
/// support guess that large programs now start from ([`MIXED_START_FROM_ROWS`]), player 1's
/// program ties on liars dice 1x6 and 1x7 and wins on 2x3 (0.47 s against 1.89 s).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LpPrimal {
    /// [`LpPrimal::Second`] from [`AUTO_SECOND_FROM_ROWS`] rows on, else [`LpPrimal::First`].
    #[default]
    Auto,
    /// Player 0's maximin program (the textbook's).
    First,
    /// Player 1's maximin program.
    Second,
}

/// Rows from which [`LpPrimal::Auto`] builds player 1's program: of the eight games measured
/// at 10 000 rows or more, six (liars dice 1x6, 1x7 and 2x3, three big Leducs) took 4 to 53%
/// less time there, and two (Battleship 3x2, Goofspiel 6 descending) 8 and 12% more;
/// below, Leduc and Goofspiel 5 descending, rows of the HiGHS benchmark, are faster in player
/// 0's program.
pub const AUTO_SECOND_FROM_ROWS: usize = 10_000;

impl LpPrimal {
    /// The primal player (0 or 1) for `game`.
    pub fn player(self, game: &Game) -> usize {
        match self {
            LpPrimal::First => 0,
            LpPrimal::Second => 1,
            LpPrimal::Auto => usize::from(lp_size_bound(game, 1).rows >= AUTO_SECOND_FROM_ROWS),
        }
    }
}

/// Which sequence-form LP [`build_lp_as`] builds. Both have the same realization plans, value
/// and certificate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LpForm {
    /// The sequences of one-action information sets merged into their parents'
    /// ([`SequenceClasses`]): fewer rows and variables.
    #[default]
    Merged,
    /// One variable (player 0) or row (player 1) per sequence, as Koller, Megiddo and von
    /// Stengel write it.
    Textbook,
}

/// One player's sequences with the forced ones merged. The only action of a one-action set is
/// played whenever the set's parent sequence is, so that sequence equals its parent in every
/// realization plan (`E x = e` says exactly `x_child = x_parent` there). The LP keeps one
/// variable (player 0) or one row (player 1) per class, which drops those sets' `E` rows and
/// `q` variables: liar's dice has one after every history that reaches the highest bid. The
/// plans are the same, so nothing is lost: [`SequenceFormLp::expand_plan`] gives every
/// sequence its class's value back.
#[derive(Clone, Debug)]
struct SequenceClasses {
    /// Sequence -> class; the empty sequence is class 0.
    class: Vec<usize>,
    /// Class -> the one sequence of the class that is not forced (its representative).
    representative: Vec<usize>,
}

impl SequenceClasses {
    fn new(game: &Game, player: usize, form: LpForm) -> Self {
        let n = game.num_sequences(player);
        let sets = &game.infosets[player];
        const UNSET: usize = usize::MAX;
        // `root[s]`: the sequence `s` equals, following forced actions up to a real choice
        // (or the empty sequence). Iterative, with the chain walked once: no recursion on depth.
        let mut root = vec![UNSET; n];
        root[0] = 0;
        let mut chain = Vec::new();
        for s in 1..n {
            let mut t = s;
            while root[t] == UNSET {
                let set = &sets[game.action_infoset[player][t - 1] as usize];
                if set.actions.len() == 1 && form == LpForm::Merged {
                    chain.push(t);
                    t = set.parent_sequence();
                } else {
                    root[t] = t;
                }
            }
            let r = root[t];
            for u in chain.drain(..) {
                root[u] = r;
            }
        }
        let mut class = vec![0; n];
        let mut representative = Vec::new();
        for s in 0..n {
            if root[s] == s {
                class[s] = representative.len();
                representative.push(s);
            }
        }
        for s in 0..n {
            class[s] = class[root[s]];
        }
        Self {
            class,
            representative,
        }
    }

    fn count(&self) -> usize {
        self.representative.len()
    }
}

/// Builds player 0's merged sequence-form LP ([`build_lp_as`] with [`LpForm::Merged`]).
pub fn build_lp(game: &Game) -> SequenceFormLp {
    build_lp_as(game, LpForm::Merged)
}

/// Builds player 0's sequence-form LP over sequence classes ([`SequenceClasses`]): variables
/// `x` (one per player-0 class) then `q` (free: `q_0`, then one per player-1 set with more than
/// one action); rows one per player-1 class (`<=`), then `x_empty = 1` and one row per
/// player-0 set with more than one action (`=`). In the [`LpForm::Textbook`] form every
/// sequence is its own class and every set keeps its row and `q` variable.
pub fn build_lp_as(game: &Game, form: LpForm) -> SequenceFormLp {
    build_lp_for(game, form, 0)
}

/// [`build_lp_as`] for `primal`'s maximin program: the same layout with the players' roles
/// exchanged when `primal` is 1 (its payoffs `-A`, so its objective is player 0's value
/// negated: [`SequenceFormLp::value_for_player_0`]).
pub fn build_lp_for(game: &Game, form: LpForm, primal: usize) -> SequenceFormLp {
    build(game, form, true, primal)
}

/// [`build_lp_for`], with the crash basis only if `with_start` (the dense exact tableau does
/// not use one, so it is spared the DCFR iterations of [`start_choice`]).
pub(crate) fn build(game: &Game, form: LpForm, with_start: bool, primal: usize) -> SequenceFormLp {
    assert!(primal < 2, "a two-player game's player is 0 or 1");
    // `p` maximises over its plan (the variables), `o` is the opponent (the rows).
    let (p, o) = (primal, 1 - primal);
    // First, so that the CFR solver is gone before the LP's arrays are allocated. The outer
    // `None` is no crash basis at all, the inner one the best-response start.
    let choice = with_start.then(|| start_choice(game, p));
    let classes = [
        SequenceClasses::new(game, 0, form),
        SequenceClasses::new(game, 1, form),
    ];
    // A set keeps its `E` row and `q` variable unless its sequence is merged.
    let kept = |set: &crate::game::Infoset| set.actions.len() > 1 || form == LpForm::Textbook;
    let (class_p, class_o) = (&classes[p].class, &classes[o].class);
    let sets_o = &game.infosets[o];
    // `q_slot[h]`: the `q` variable of the opponent's set `h` (1-based; `q_0` is the empty
    // sequence's), `None` for a one-action set.
    let mut q_slots = 1;
    let q_slot: Vec<Option<usize>> = sets_o
        .iter()
        .map(|set| {
            kept(set).then(|| {
                q_slots += 1;
                q_slots - 1
            })
        })
        .collect();
    // `((t, s), A[s][t])`: the opponent's sequence `t`, the primal player's `s` and the
    // chance-weighted payoff to the primal player; zeros left out.
    let payoff = primal_payoffs(game, p);
    let payoff_nonzeros = payoff.len();
    let q = |slot: usize| classes[p].count() + slot;
    let mut lp = LinearProgram::new(q(q_slots));
    for slot in 0..q_slots {
        lp.set_free(q(slot));
    }
    lp.set_objective(q(0), Rational::one());
    // F^T columns: a set's sequences are +1 in their rows (the empty sequence's row for q_0)
    // and -1 in the row of the set's parent sequence.
    let mut rows: Vec<Vec<(usize, Rational)>> = vec![Vec::new(); classes[o].count()];
    rows[0].push((q(0), Rational::one()));
    for (set, slot) in sets_o.iter().zip(&q_slot) {
        if let Some(slot) = *slot {
            for a in set.action_range() {
                rows[class_o[1 + a]].push((q(slot), Rational::one()));
            }
            rows[class_o[set.parent_sequence()]].push((q(slot), -Rational::one()));
        }
    }
    match choice {
        // The DCFR start on a large LP: a guess at both players' supports first, the pure
        // start behind it.
        Some(Some((choice, probs))) if lp_size_bound(game, p).rows >= MIXED_START_FROM_ROWS => {
            lp.set_start_basis(mixed_start_basis(game, p, &classes, &q_slot, &probs));
            let pure = start_basis(game, p, &classes, &q_slot, &payoff, Some(choice));
            lp.set_fallback_start_basis(pure);
        }
        Some(choice) => {
            let choice = choice.map(|(choice, _)| choice);
            lp.set_start_basis(start_basis(game, p, &classes, &q_slot, &payoff, choice));
        }
        None => {}
    }
    for ((t, s), v) in payoff {
        rows[class_o[t as usize]].push((class_p[s as usize], -v));
    }
    for mut row in rows {
        // Merged sequences can meet the same variable more than once.
        row.sort_by_key(|e| e.0);
        let mut merged: Vec<(usize, Rational)> = Vec::with_capacity(row.len());
        for (j, v) in row {
            match merged.last_mut() {
                Some(last) if last.0 == j => last.1 += v,
                _ => merged.push((j, v)),
            }
        }
        merged.retain(|e| !e.1.is_zero());
        lp.add_constraint(merged, Relation::Le, Rational::zero());
    }
    lp.add_constraint(vec![(0, Rational::one())], Relation::Eq, Rational::one());
    for set in game.infosets[p].iter().filter(|set| kept(set)) {
        let mut row: Vec<(usize, Rational)> = set
            .action_range()
            .map(|a| (class_p[1 + a], Rational::one()))
            .collect();
        row.push((class_p[set.parent_sequence()], -Rational::one()));
        lp.add_constraint(row, Relation::Eq, Rational::zero());
    }
    SequenceFormLp {
        lp,
        sequences: [game.num_sequences(0), game.num_sequences(1)],
        payoff_nonzeros,
        classes,
        primal: p,
    }
}

/// The payoff matrix from `primal`'s side: `((t, s), v)` with `t` the opponent's sequence,
/// `s` the primal player's and `v` the chance-weighted payoff to the primal player (player 0's
/// as [`TerminalWeights::payoff_matrix`] gives it, or its negation for player 1: the constant
/// of a constant-sum game does not change anyone's best response).
fn primal_payoffs(game: &Game, primal: usize) -> Vec<((u32, u32), Rational)> {
    let mut payoff = TerminalWeights::new(game).payoff_matrix();
    if primal == 1 {
        for ((t, s), v) in &mut payoff {
            std::mem::swap(t, s);
            *v = -std::mem::take(v);
        }
    }
    payoff
}

/// Both players' sequence-form payoff matrices, each from its own payoffs (general-sum or not):
/// `[A, B]` with entries `((s, t), v)`, `s` player 0's sequence, `t` player 1's and `v` the
/// chance-weighted payoff to that player of the terminals the pair reaches, in ascending
/// `(s, t)` order, zeros left out.
pub fn payoff_matrices(game: &Game) -> [Vec<((u32, u32), Rational)>; 2] {
    [0, 1].map(|p| {
        let mut m = TerminalWeights::for_player(game, p).payoff_matrix();
        for ((t, s), _) in &mut m {
            std::mem::swap(t, s);
        }
        m.sort_unstable_by_key(|e| e.0);
        m
    })
}

/// DCFR iterations behind the starting basis ([`start_choice`]) for an LP of `rows` rows: 10,
/// or 30 from 10 000 rows on. Whole solves, build included, in instructions (callgrind) against
/// the start from the best response to player 1's uniform strategy, with the float simplex:
/// 0 / 5 / 10 / 20 / 30 iterations: liars dice 4 sides 97 / 106 / 107 / 115 / 129
/// million, 5 sides 979 / 1194 / 846 / 871 / 1088, leduc 1223 / 982 / 786 / 752 / 778,
/// goofspiel 5 (descending points) 671 / 661 / 692 / 727 / 714. Pivot counts move by
/// +-15% between neighbouring choices (a start is a lottery); on the large LPs the iterations
/// cost little beside the pivots, and liars dice 6 sides took 5911 float pivots after 30
/// against 6783 after 10 (all in player 0's program; in player 1's, which the large LPs solve,
/// 6242 / 7422 / 4747 / 6505 after 10 / 30 / 100 / 300: a lottery with no trend).
pub(crate) fn start_iterations(rows: usize) -> u64 {
    if rows < 10_000 {
        10
    } else {
        30
    }
}

/// `primal`'s pure strategy that starts its LP, per information set, when the CFR start is
/// worth its cost: the action that [`start_iterations`] of DCFR (alternating,
/// single-threaded, deterministic) play most in their average strategy (the first on a tie).
/// Those actions are the likeliest to be in an equilibrium's support, so the simplex starts
/// nearer the optimal basis than from an arbitrary vertex. Only floats and a choice of
/// actions: the LP and its certificate are exact whatever the start.
///
/// `None` (start from the best response to the opponent's uniform strategy instead) when the
/// DCFR iterations would cost more than about a tenth of the simplex: they take about 7 ns per
/// node each, the simplex about 50 ns times the square of its rows (pivots near the row count,
/// each near 30 ns per row; leduc measured). So one-card poker(n=50) (44 103 nodes, 602 rows,
/// where 30 iterations made the whole run a third slower) and Kuhn keep the uniform start.
pub(crate) fn start_choice(game: &Game, primal: usize) -> Option<(Vec<usize>, [Vec<f64>; 2])> {
    let rows = lp_size_bound(game, primal).rows;
    let iterations = start_iterations(rows);
    let (rows, nodes) = (rows as u128, game.nodes.len() as u128);
    if 7 * u128::from(iterations) * nodes * 10 > 50 * rows * rows {
        return None;
    }
    let mut solver = CfrSolver::new(game, RegretParams::discounted_default());
    // The first learner's average makes the better start: 12 of 14 (game, primal player)
    // pairs measured took fewer float pivots from it than from the second learner's (liars
    // dice 1x6 with player 1's program: 7422 against 7588; 1x7 24 100 against 29 435).
    solver.set_first_learner(primal);
    solver.iterate(iterations);
    let average = solver.average_profile();
    let choice = game.infosets[primal]
        .iter()
        .map(|set| most_played(set, &average.probs[primal]))
        .collect();
    Some((choice, average.probs))
}

/// The action of `set` that `probs` plays most (the first on a tie).
fn most_played(set: &crate::game::Infoset, probs: &[f64]) -> usize {
    set.action_range().fold(set.action_offset, |best, a| {
        if probs[a] > probs[best] {
            a
        } else {
            best
        }
    })
}

/// Rows from which the LP starts from [`mixed_start_basis`] (with the pure start behind it):
/// below, the pure start was as fast or faster (liars dice 1x5: 0.115 s against 0.104 s;
/// big Leduc with 4 ranks and 2 raises 0.61 s against 0.29 s), and Leduc and Goofspiel
/// presolve, which keeps the pure start.
pub const MIXED_START_FROM_ROWS: usize = 10_000;

/// Player `p`'s actions played at least this often in the DCFR average join the mixed start
/// ([`mixed_start_basis`]). Measured on liars dice 1x6 (player 2's program) after 30 / 100 /
/// 300 iterations: 0.02 gave 3588 / 2447 / 3253 float pivots, 0.05 2867 / 1866 / 2406, 0.1
/// 3162 / 2710 / 1787, 0.2 2502 / 1321 / 2041 (the pure start: 7422 / 4747 / 6505).
const SUPPORT_SHARE: f64 = 0.2;

/// A starting basis from both players' DCFR average strategies (`probs`), a guess at the
/// equilibrium's supports: in `p`'s program the basic variables are `p`'s most-played action
/// at each information set and its other actions played at least [`SUPPORT_SHARE`], every
/// `q`, and the slacks of the opponent's sequences that are not its most-played action at
/// their set nor played at least that share (those rows are tight: the opponent is
/// indifferent there, which is what makes `p` mix). A basis has one column per row, so each
/// side keeps as many of its extra actions as the other has, the most played first. The
/// guess may be singular or infeasible: the float simplex repairs it with logicals and
/// shifts its values into their bounds ([`crate::lp::LinearProgram::set_fallback_start_basis`]
/// keeps the pure start behind it). On liars dice 1x6 it takes the float simplex from 7422
/// pivots to 1971, on 1x7 from 24 100 to 6470.
fn mixed_start_basis(
    game: &Game,
    p: usize,
    classes: &[SequenceClasses; 2],
    q_slot: &[Option<usize>],
    probs: &[Vec<f64>; 2],
) -> Vec<BasisEntry> {
    let tau = SUPPORT_SHARE;
    let o = 1 - p;
    let q = |slot: usize| classes[p].count() + slot;
    let is_rep = |pl: usize, t: usize| classes[pl].representative[classes[pl].class[t]] == t;
    let mut entries = vec![BasisEntry::Var(0)];
    let mut extra_p: Vec<(f64, usize)> = Vec::new();
    for set in &game.infosets[p] {
        let best = most_played(set, &probs[p]);
        for a in set.action_range() {
            if !is_rep(p, 1 + a) {
                continue;
            }
            let class = classes[p].class[1 + a];
            if a == best {
                entries.push(BasisEntry::Var(class));
            } else if probs[p][a] >= tau {
                extra_p.push((probs[p][a], class));
            }
        }
    }
    let mut tight = vec![false; game.num_sequences(o)];
    tight[0] = true;
    let mut extra_o: Vec<(f64, usize)> = Vec::new();
    for set in &game.infosets[o] {
        let best = most_played(set, &probs[o]);
        tight[1 + best] = true;
        for a in set.action_range() {
            if a != best && probs[o][a] >= tau && is_rep(o, 1 + a) {
                extra_o.push((probs[o][a], 1 + a));
            }
        }
    }
    extra_p.sort_by(|a, b| b.0.total_cmp(&a.0));
    extra_o.sort_by(|a, b| b.0.total_cmp(&a.0));
    let n = extra_p.len().min(extra_o.len());
    entries.extend(extra_p[..n].iter().map(|&(_, c)| BasisEntry::Var(c)));
    for &(_, t) in &extra_o[..n] {
        tight[t] = true;
    }
    entries.push(BasisEntry::Var(q(0)));
    entries.extend(
        q_slot
            .iter()
            .flatten()
            .map(|&slot| BasisEntry::Var(q(slot))),
    );
    entries.extend(slacks_of_loose_rows(&classes[o], &tight));
    entries
}

/// A primal feasible starting basis for [`build`]'s program of `primal` (`p`; the opponent
/// `o`; `payoff` from [`primal_payoffs`]): `p` plays the pure strategy `choice` (a vertex of
/// `E x = e, x >= 0`, from [`start_choice`]), or if there is none a pure best response to `o`'s
/// uniform strategy (ties to the first action), and `q` holds `o`'s best-response values
/// against it, tight on one best action per set and the empty sequence, slack elsewhere. It
/// spares the float simplex its phase 1; it is computed in floats, and the simplex checks it.
fn start_basis(
    game: &Game,
    p: usize,
    classes: &[SequenceClasses; 2],
    q_slot: &[Option<usize>],
    payoff: &[((u32, u32), Rational)],
    choice: Option<Vec<usize>>,
) -> Vec<BasisEntry> {
    let o = 1 - p;
    let n_p = game.num_sequences(p);
    let n_o = game.num_sequences(o);
    let q = |slot: usize| classes[p].count() + slot;
    let mut entries = Vec::with_capacity(classes[o].count() + 1 + game.infosets[p].len());
    // Sets in arena order of their first node: a set's parent set comes earlier.
    let order = |player: usize| -> Vec<usize> {
        let sets = &game.infosets[player];
        let mut ids: Vec<usize> = (0..sets.len()).collect();
        ids.sort_by_key(|&h| sets[h].nodes.first().copied().unwrap_or(u32::MAX));
        ids
    };
    let (order_p, order_o) = (order(p), order(o));
    let weights: Vec<f64> = payoff
        .iter()
        .map(|(_, v)| crate::scalar::rational_to_f64(v))
        .collect();
    let choice = choice.unwrap_or_else(|| {
        // A far better start than an arbitrary pure strategy (liars dice 6 sides: 7708 float
        // pivots against 17 797 from the first action everywhere).
        let mut y = vec![0.0f64; n_o];
        y[0] = 1.0;
        for &h in &order_o {
            let set = &game.infosets[o][h];
            let share = y[set.parent_sequence()] / set.actions.len() as f64;
            for a in set.action_range() {
                y[1 + a] = share;
            }
        }
        let mut value_p = vec![0.0f64; n_p];
        for (((t, s), _), w) in payoff.iter().zip(&weights) {
            value_p[*s as usize] += w * y[*t as usize];
        }
        best_response(game, p, &order_p, true, &mut value_p)
    });
    let mut x = vec![0.0f64; n_p];
    x[0] = 1.0;
    entries.push(BasisEntry::Var(0));
    for &i in &order_p {
        let set = &game.infosets[p][i];
        let a = choice[i];
        x[1 + a] = x[set.parent_sequence()];
        let own = classes[p].class[1 + a];
        if classes[p].representative[own] == 1 + a {
            entries.push(BasisEntry::Var(own));
        }
    }
    // `value[t]`: `p`'s payoff share at `o`'s sequence `t` plus the values of the sets `t`
    // leads to; `o`'s best response to `x` is tight on its choices.
    let mut value = vec![0.0f64; n_o];
    for (((t, s), _), w) in payoff.iter().zip(&weights) {
        value[*t as usize] += w * x[*s as usize];
    }
    let choice = best_response(game, o, &order_o, false, &mut value);
    let mut tight = vec![false; n_o];
    let push_q = |entries: &mut Vec<BasisEntry>, var: usize, v: f64| {
        entries.push(if v >= 0.0 {
            BasisEntry::Var(var)
        } else {
            BasisEntry::NegVar(var)
        });
    };
    for &h in order_o.iter().rev() {
        let best = choice[h];
        tight[1 + best] = true;
        if let Some(slot) = q_slot[h] {
            push_q(&mut entries, q(slot), value[1 + best]);
        }
    }
    tight[0] = true;
    push_q(&mut entries, q(0), value[0]);
    entries.extend(slacks_of_loose_rows(&classes[o], &tight));
    entries
}

/// The slacks of the opponent's class rows that are not tight (a class's row is tight when
/// its representative, the real choice, is).
fn slacks_of_loose_rows<'a>(
    classes: &'a SequenceClasses,
    tight: &'a [bool],
) -> impl Iterator<Item = BasisEntry> + 'a {
    classes
        .representative
        .iter()
        .enumerate()
        .filter(|&(_, &t)| !tight[t])
        .map(|(k, _)| BasisEntry::Slack(k))
}

/// `player`'s pure best response, from `value` (the primal player's payoff share per sequence
/// of `player`): sets bottom-up (`order` reversed), the first best action of each (the largest
/// value if `maximise`, else the smallest), its value added to the set's parent sequence, so `value`
/// ends with each sequence's value under the response. Returns the chosen action per set.
fn best_response(
    game: &Game,
    player: usize,
    order: &[usize],
    maximise: bool,
    value: &mut [f64],
) -> Vec<usize> {
    let sets = &game.infosets[player];
    let mut choice = vec![0usize; sets.len()];
    for &h in order.iter().rev() {
        let set = &sets[h];
        let mut best = set.action_offset;
        for a in set.action_range() {
            let better = if maximise {
                value[1 + a] > value[1 + best]
            } else {
                value[1 + a] < value[1 + best]
            };
            if better {
                best = a;
            }
        }
        choice[h] = best;
        value[set.parent_sequence()] += value[1 + best];
    }
    choice
}

/// Behavioural strategy of `player` from a realization plan (uniform where the plan is 0).
pub fn behavioural_from_plan(game: &Game, player: usize, plan: &[Rational]) -> Vec<Rational> {
    let mut probs = vec![Rational::zero(); game.num_actions[player]];
    for set in &game.infosets[player] {
        let parent = &plan[set.parent_sequence()];
        if parent.is_positive() {
            for a in set.action_range() {
                probs[a] = crate::scalar::div(&plan[1 + a], parent);
            }
        }
    }
    // Sets with zero reach get the uniform strategy; the others already sum to 1.
    normalize_exact(game, player, &mut probs);
    probs
}

/// The standard-form size of `primal`'s program ([`build_lp_for`]), bounded from the game's
/// counts without building it (the payoff non-zeros are bounded by the number of terminals).
pub fn lp_size_bound(game: &Game, primal: usize) -> LpSize {
    let (p, o) = (primal, 1 - primal);
    let n_p = game.num_sequences(p);
    let n_o = game.num_sequences(o);
    let sets_p = game.infosets[p].len();
    let sets_o = game.infosets[o].len();
    let q = 1 + sets_o;
    LpSize {
        rows: n_o + 1 + sets_p,
        // x, q split into two free halves, one slack per `<=` row.
        cols: n_p + 2 * q + n_o,
        // F^T twice (free q), payoffs, the slacks, x_empty = 1 and E.
        nonzeros: 2 * (n_o + sets_o) + game.num_terminal_nodes() + n_o + 1 + (n_p - 1) + sets_p,
    }
}

/// The estimated peak bytes of building `primal`'s LP of `game` ([`build_lp_for`]) and
/// solving it by `method`, with the LP's size and the method's name: what [`check_memory`]
/// compares with the budget.
pub fn memory_estimate(game: &Game, method: Method, primal: usize) -> (LpSize, &'static str, u128) {
    let size = lp_size_bound(game, primal);
    // The program and its standard form both hold the coefficients; building the program
    // also holds per-node arrays and per-terminal weights ([`TerminalWeights`]).
    let build = memory::sequence_form_build_bytes(game.nodes.len(), game.num_terminal_nodes());
    let base = 2 * memory::standard_form_bytes(size) + build;
    // The DCFR start ([`start_choice`]) runs and is dropped before the LP is built: the peak
    // is the larger of the two. Its solver holds at most about 70 bytes per node (the CLI's
    // `solver_bytes_per_node` on the built-in games), bounded here by 128.
    let start = 128 * game.nodes.len() as u128;
    let (size, name, bytes) = match method {
        Method::ExactTableau => (
            size,
            "dense exact tableau",
            base + memory::tableau_bytes(size),
        ),
        Method::FloatThenExact => (
            size,
            "sparse float-guided exact simplex",
            base + memory::guided_bytes(size),
        ),
    };
    (size, name, bytes.max(start))
}

/// Checks the estimated memory of building and solving `primal`'s LP of `game` by
/// `options.method` ([`memory_estimate`]) against the budget, before anything is built.
pub fn check_memory(game: &Game, options: &SolveOptions, primal: usize) -> Result<(), LpError> {
    let (size, method, bytes) = memory_estimate(game, options.method, primal);
    options.check(size, method, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::scalar::rat;

    #[test]
    fn kuhn_value_and_closed_form_strategies_by_both_methods() {
        let game = crate::games::builtin("kuhn").unwrap();
        for method in [Method::ExactTableau, Method::FloatThenExact] {
            let options = crate::exact::ExactOptions {
                lp: SolveOptions::new(method),
                ..Default::default()
            };
            let s = crate::exact::solve_exact_with(&game, &options).unwrap();
            assert_eq!(s.value, rat(-1, 18), "{method:?}");
            let e = exploitability(&game, &s.profile);
            assert!(e.nash_conv.is_zero());
            // Closed form (Kuhn 1950): player 2's equilibrium strategy is unique; player 1's is
            // a family with bet(K) = 3 bet(J), call(Qpb) = bet(J) + 1/3, Q never opens.
            let bet = |p: usize, label: &str| {
                let id = game.find_infoset(p, label).unwrap();
                s.profile.infoset_probs(&game, p, id)[1].clone()
            };
            for (label, expected) in [("Jp", rat(1, 3)), ("Qp", rat(0, 1)), ("Kp", rat(1, 1))] {
                assert_eq!(bet(1, label), expected, "{label}");
            }
            for (label, expected) in [("Jb", rat(0, 1)), ("Qb", rat(1, 3)), ("Kb", rat(1, 1))] {
                assert_eq!(bet(1, label), expected, "{label}");
            }
            let alpha = bet(0, "J");
            assert_eq!(bet(0, "K"), &alpha * rat(3, 1));
            assert_eq!(bet(0, "Q"), rat(0, 1));
            assert_eq!(bet(0, "Qpb"), alpha + rat(1, 3));
        }
    }

    /// Player 1's maximin program is player 0's LP dual with the roles exchanged, so both give
    /// the same value for player 0 and certified strategies: Kuhn (-1/18, Kuhn 1950), liars
    /// dice 1x4 (1/16, OpenSpiel's LP), one-card poker with a = 3 (constant-sum; the random
    /// seat gives each player a/2) and goofspiel 4 (symmetric: 0). The rational evaluator
    /// (`crate::eval`, independent of the LP) finds NashConv exactly 0 in each.
    #[test]
    fn both_players_programs_give_the_same_certified_value() {
        for (spec, value) in [
            ("kuhn", rat(-1, 18)),
            ("liars-dice(dice=1,sides=4)", rat(1, 16)),
            ("one-card-poker(n=20,a=3,b=2)", rat(3, 2)),
            ("goofspiel(cards=4,order=descending)", rat(0, 1)),
        ] {
            let game = crate::games::load(spec).unwrap().game;
            for (primal, player) in [(LpPrimal::First, 0), (LpPrimal::Second, 1)] {
                let options = crate::exact::ExactOptions {
                    primal,
                    ..Default::default()
                };
                let s = crate::exact::solve_exact_with(&game, &options).unwrap();
                assert_eq!(s.stats.lp_primal, player, "{spec}");
                assert_eq!(s.value, value, "{spec} {primal:?}");
                let e = exploitability(&game, &s.profile);
                assert!(e.nash_conv.is_zero(), "{spec} {primal:?}");
                assert_eq!(e.value[0], value, "{spec} {primal:?}");
            }
            // Player 1's program has a row per player-0 sequence class and `E` row of player 1.
            let sf = build_lp_for(&game, LpForm::Merged, 1);
            assert_eq!(sf.lp.num_constraints(), {
                let [n0, _] = sf.lp_sequences();
                n0 + 1
                    + game.infosets[1]
                        .iter()
                        .filter(|h| h.actions.len() > 1)
                        .count()
            });
        }
    }

    /// Matching pennies with payoffs [[3, -1], [-1, 1]] (value 1/3, both players play the
    /// first action with probability 1/3 by the 2x2 closed form) wrapped in one-action sets of
    /// both players: before any choice, after a choice, and chained. Their sequences merge with
    /// their parents', so the LP has one row per real player-1 choice plus the empty one, and
    /// the answer is unchanged.
    #[test]
    fn forced_sets_merge_and_leave_the_answer_unchanged() {
        use crate::game::GameBuilder;
        let mut b = GameBuilder::new("forced pennies", "A", "B");
        let root = b.root();
        let f = b.decision(root, 0, "F", &["go"]).unwrap()[0];
        let a = b.decision(f, 0, "A", &["H", "T"]).unwrap();
        for (i, &na) in a.iter().enumerate() {
            let g = b.decision(na, 1, "G", &["go"]).unwrap()[0];
            let bb = b.decision(g, 1, "B", &["h", "t"]).unwrap();
            for (j, &nb) in bb.iter().enumerate() {
                let m = b.decision(nb, 1, &format!("M{j}"), &["go"]).unwrap()[0];
                let k = b.decision(m, 0, &format!("K{i}"), &["go"]).unwrap()[0];
                let n = b.decision(k, 1, &format!("N{j}"), &["go"]).unwrap()[0];
                let pay = [[3, -1], [-1, 1]][i][j];
                b.terminal_zero_sum(n, rat(pay, 1)).unwrap();
            }
        }
        let game = b.build().unwrap();
        let sf = build_lp(&game);
        assert_eq!(sf.sequences, [6, 8]);
        assert_eq!(sf.lp_sequences(), [3, 3]);
        // Three player-1 classes, x_empty = 1 and set A's row.
        assert_eq!(sf.lp.num_constraints(), 5);
        // The textbook form: eight player-1 sequences, x_empty = 1 and four sets' rows.
        let textbook = build_lp_as(&game, LpForm::Textbook);
        assert_eq!(textbook.lp_sequences(), [6, 8]);
        assert_eq!(textbook.lp.num_constraints(), 13);
        for (method, form) in [
            (Method::ExactTableau, LpForm::Merged),
            (Method::FloatThenExact, LpForm::Merged),
            (Method::ExactTableau, LpForm::Textbook),
            (Method::FloatThenExact, LpForm::Textbook),
        ] {
            let options = crate::exact::ExactOptions {
                lp: SolveOptions::new(method),
                form,
                ..Default::default()
            };
            let s = crate::exact::solve_exact_with(&game, &options).unwrap();
            assert_eq!(s.value, rat(1, 3), "{method:?} {form:?}");
            let probs = |p: usize, label: &str| {
                let id = game.find_infoset(p, label).unwrap();
                s.profile.infoset_probs(&game, p, id).to_vec()
            };
            assert_eq!(probs(0, "A"), [rat(1, 3), rat(2, 3)]);
            assert_eq!(probs(1, "B"), [rat(1, 3), rat(2, 3)]);
            for (p, label) in [(0, "F"), (0, "K1"), (1, "G"), (1, "M0"), (1, "N1")] {
                assert_eq!(probs(p, label), [rat(1, 1)], "{label}");
            }
        }
    }
}
