//! Baby poker with dice (`docs/problems.md`): each player rolls a fair die with `sides` faces and
//! sees only its own. Player A either calls (showdown for 1: the higher die wins 1, a tie pays 0)
//! or raises; after a raise B folds (A wins 1) or calls (showdown for `raise`).
//!
//! Two independent descriptions live here: the extensive game built with the [`GameBuilder`]
//! ([`baby_poker`]) and the closed-form payoff
//! `W = 1/S^2 * sum_ij [ (1 - p_i) E_ij + p_i (R (1 - q_j) E_ij + q_j) ]`
//! with `E_ij = sign(i - j)`, `p_i = P(A raises on i)` and `q_j = P(B folds on j)`
//! ([`payoff_formula`], [`pure_matrix`]). Tests check that the two agree.
//!
//! Pure strategy `k` of either player is the `S`-digit binary of `k`, most significant digit
//! first: digit `i` (die `i`, counted from 1 on the left) is 1 when A raises on `i` (for A) or
//! when B folds on `i` (for B).

pub mod pictures;

use crate::error::{err, fail, Result};
use crate::eval::best_response;
use crate::exact::solve_exact;
use crate::game::{Game, GameBuilder, GameError};
use crate::lp::{LinearProgram, Method, Relation, SolveOptions};
use crate::matrix::normal_form::{reduced_normal_form, NormalForm};
use crate::matrix::polytope::{unit, Description, Polytope};
use crate::matrix::{MatrixGame, MatrixSolution, OptimalSet, PureAnalysis};
use crate::scalar::{int, Rational};
use crate::strategy::ExactProfile;
use num_traits::{One, Zero};
use std::cmp::Ordering;

/// A's actions at each of its information sets, in child order (index 1 = raise).
pub const A_ACTIONS: [&str; 2] = ["Call", "Raise"];
/// B's actions after a raise, in child order (index 1 = fold).
pub const B_ACTIONS: [&str; 2] = ["Call", "Fold"];

/// Largest number of die sides for which the pure matrix (2^S x 2^S) is built.
pub const MAX_MATRIX_SIDES: usize = 8;

/// The label of A's information set holding die `i` (1-based).
pub fn a_infoset_label(i: usize) -> String {
    i.to_string()
}

/// The label of B's information set holding die `j` (1-based) after A raised.
pub fn b_infoset_label(j: usize) -> String {
    format!("{j}r")
}

/// `sign(i - j)` as an integer.
fn showdown_sign(i: usize, j: usize) -> i64 {
    match i.cmp(&j) {
        Ordering::Greater => 1,
        Ordering::Less => -1,
        Ordering::Equal => 0,
    }
}

/// Builds baby poker as an extensive game. Player A is index 0 ("A"), B index 1 ("B").
/// A's sets are labelled by its die (`"3"`), B's by its die and the raise (`"3r"`).
pub fn baby_poker(sides: usize, raise: i64) -> Result<Game, GameError> {
    let mut b = GameBuilder::new(format!("baby-poker(sides={sides},raise={raise})"), "A", "B");
    let root = b.root();
    let faces: Vec<String> = (1..=sides).map(|i| i.to_string()).collect();
    let a_rolls = b.chance_uniform(root, faces.clone())?;
    for (ai, &a_node) in a_rolls.iter().enumerate() {
        let b_rolls = b.chance_uniform(a_node, faces.clone())?;
        for (bi, &b_node) in b_rolls.iter().enumerate() {
            let (i, j) = (ai + 1, bi + 1);
            let sign = showdown_sign(i, j);
            let a_move = b.decision(b_node, 0, &a_infoset_label(i), &A_ACTIONS)?;
            b.terminal_zero_sum(a_move[0], int(sign))?;
            let b_move = b.decision(a_move[1], 1, &b_infoset_label(j), &B_ACTIONS)?;
            b.terminal_zero_sum(b_move[0], int(raise * sign))?;
            b.terminal_zero_sum(b_move[1], int(1))?;
        }
    }
    b.build()
}

/// A's expected payoff `W(p, q)` from the closed form, exactly. `p[i-1]` is the probability that
/// A raises on die `i`, `q[j-1]` that B folds on die `j`; both slices have one entry per side.
pub fn payoff_formula(p: &[Rational], q: &[Rational], raise: i64) -> Rational {
    assert_eq!(p.len(), q.len(), "p and q need one entry per die side");
    let sides = p.len();
    let r = int(raise);
    let mut total = Rational::zero();
    for i in 1..=sides {
        for j in 1..=sides {
            let e = int(showdown_sign(i, j));
            let pi = &p[i - 1];
            let qj = &q[j - 1];
            let call = (Rational::one() - pi) * &e;
            let raised = pi * (&r * (Rational::one() - qj) * &e + qj);
            total += call + raised;
        }
    }
    total / int((sides * sides) as i64)
}

/// The 0/1 behaviour vector of pure strategy `k` (digit `i` from the left is entry `i - 1`).
pub fn pure_strategy_bits(k: usize, sides: usize) -> Vec<Rational> {
    (0..sides)
        .map(|d| {
            if (k >> (sides - 1 - d)) & 1 == 1 {
                Rational::one()
            } else {
                Rational::zero()
            }
        })
        .collect()
}

/// The `S`-digit binary label of pure strategy `k`, e.g. `000011` for "raise on 5 and 6".
pub fn pure_strategy_label(k: usize, sides: usize) -> String {
    format!("{k:0sides$b}")
}

/// The pure-strategy matrix straight from the closed form: entry `(k, l)` is `W` for A's pure
/// strategy `k` against B's pure strategy `l`. Panics unless `1 <= sides <= MAX_MATRIX_SIDES`
/// (callers validate user input first, as [`analyse`] does).
pub fn pure_matrix(sides: usize, raise: i64) -> MatrixGame {
    assert!(
        (1..=MAX_MATRIX_SIDES).contains(&sides),
        "pure matrix needs 1..={MAX_MATRIX_SIDES} sides"
    );
    let n = 1usize << sides;
    let labels: Vec<String> = (0..n).map(|k| pure_strategy_label(k, sides)).collect();
    let bits: Vec<Vec<Rational>> = (0..n).map(|k| pure_strategy_bits(k, sides)).collect();
    let payoff = (0..n)
        .map(|k| {
            (0..n)
                .map(|l| payoff_formula(&bits[k], &bits[l], raise))
                .collect()
        })
        .collect();
    MatrixGame {
        rows: labels.clone(),
        cols: labels,
        payoff,
    }
}

/// The exact optimal strategies from the two behavioural LPs (one per player).
#[derive(Clone, Debug)]
pub struct BehaviouralSolution {
    /// A's value from A's LP (max over p of B's best-response payoff).
    pub value_a: Rational,
    /// A's value from B's LP (min over q of A's best-response payoff).
    pub value_b: Rational,
    /// An optimal `p` (raise probabilities, die 1 first).
    pub p: Vec<Rational>,
    /// An optimal `q` (fold probabilities, die 1 first).
    pub q: Vec<Rational>,
}

/// Per-die coefficients of the closed form: for die `j` of B, what A's `p` earns when B calls
/// (`call[j]`) or folds (`fold[j]`), as affine functions `c0 + sum_i c_i p_i`, times `S^2`.
fn b_response_rows(sides: usize, raise: i64) -> (Vec<Vec<Rational>>, Vec<Vec<Rational>>) {
    // Column 0 holds the constant, column i the coefficient of p_i.
    let mut call = vec![vec![Rational::zero(); sides + 1]; sides];
    let mut fold = vec![vec![Rational::zero(); sides + 1]; sides];
    for j in 1..=sides {
        for i in 1..=sides {
            let e = int(showdown_sign(i, j));
            // (1 - p_i) E + p_i R E  when B calls;  (1 - p_i) E + p_i  when B folds.
            call[j - 1][0] += &e;
            call[j - 1][i] += int(raise - 1) * &e;
            fold[j - 1][0] += &e;
            fold[j - 1][i] += Rational::one() - &e;
        }
    }
    (call, fold)
}

/// Solves the two small behavioural LPs of the closed form exactly.
///
/// A: maximise `1/S^2 sum_j u_j` over `p in [0,1]^S`, `u_j <= call_j(p)`, `u_j <= fold_j(p)`
/// (B best-responds die by die). B: minimise `1/S^2 sum_i t_i` over `q in [0,1]^S` with `t_i`
/// at least what A earns calling or raising on die `i`. Both are independent of the tree and of
/// the pure matrix; their optimal values must agree (LP duality).
pub fn behavioural_lp(sides: usize, raise: i64) -> Result<BehaviouralSolution> {
    let s = sides;
    let scale = int((s * s) as i64);
    let (call, fold) = b_response_rows(s, raise);
    // A's LP: variables p_0..p_{S-1} (>= 0), u_0..u_{S-1} (free).
    let mut lp = LinearProgram::new(2 * s);
    for i in 0..s {
        lp.add_constraint(vec![(i, Rational::one())], Relation::Le, Rational::one());
    }
    for j in 0..s {
        lp.set_free(s + j);
        lp.set_objective(s + j, Rational::one() / &scale);
        for row in [&call[j], &fold[j]] {
            // u_j - sum_i c_i p_i <= c_0
            let mut coeffs = vec![(s + j, Rational::one())];
            coeffs.extend(
                (0..s)
                    .filter(|&i| !row[i + 1].is_zero())
                    .map(|i| (i, -row[i + 1].clone())),
            );
            lp.add_constraint(coeffs, Relation::Le, row[0].clone());
        }
    }
    let a = lp
        .solve_with(&SolveOptions::new(Method::FloatThenExact))
        .map(|s| s.0)
        .map_err(|e| err!(Invalid, "A's behavioural LP failed: {e:?}"))?;
    // B's LP: variables q_0..q_{S-1} (>= 0), t_0..t_{S-1} (free); maximise -sum t / S^2.
    // Raising on die i earns sum_j [R (1 - q_j) E_ij + q_j] = sum_j R E_ij + sum_j q_j (1 - R E_ij).
    let mut lp = LinearProgram::new(2 * s);
    for j in 0..s {
        lp.add_constraint(vec![(j, Rational::one())], Relation::Le, Rational::one());
    }
    for i in 1..=s {
        let t = s + i - 1;
        lp.set_free(t);
        lp.set_objective(t, -Rational::one() / &scale);
        let calls: Rational = (1..=s).map(|j| int(showdown_sign(i, j))).sum();
        lp.add_constraint(vec![(t, Rational::one())], Relation::Ge, calls);
        let mut coeffs = vec![(t, Rational::one())];
        let mut constant = Rational::zero();
        for j in 1..=s {
            let e = int(showdown_sign(i, j));
            constant += int(raise) * &e;
            let c = Rational::one() - int(raise) * &e;
            if !c.is_zero() {
                coeffs.push((j - 1, -c));
            }
        }
        lp.add_constraint(coeffs, Relation::Ge, constant);
    }
    let b = lp
        .solve_with(&SolveOptions::new(Method::FloatThenExact))
        .map(|s| s.0)
        .map_err(|e| err!(Invalid, "B's behavioural LP failed: {e:?}"))?;
    Ok(BehaviouralSolution {
        value_a: a.objective,
        value_b: -b.objective,
        p: a.values[..s].to_vec(),
        q: b.values[..s].to_vec(),
    })
}

/// The affine map `x -> W` with the other player's strategy fixed to the pure strategy
/// `other` (bits, die 1 first): `(coefficients, constant)` over `x in [0,1]^S`.
fn affine_against(
    sides: usize,
    raise: i64,
    other: &[Rational],
    vary_a: bool,
) -> (Vec<Rational>, Rational) {
    let zero = vec![Rational::zero(); sides];
    let at = |x: &[Rational]| {
        if vary_a {
            payoff_formula(x, other, raise)
        } else {
            payoff_formula(other, x, raise)
        }
    };
    let base = at(&zero);
    // W is affine in each player's vector, so unit vectors give the exact coefficients.
    let coeffs = (0..sides).map(|i| at(&unit(sides, i)) - &base).collect();
    (coeffs, base)
}

/// A's optimal set in the behavioural space: `{p in [0,1]^S : W(p, b) >= value for every pure
/// b}` (W is linear in q, so pure b are the binding best responses). The box comes last so
/// it wins ties in the redundancy sweep. Needs `sides <= MAX_MATRIX_SIDES`.
pub fn a_optimal_polytope(sides: usize, raise: i64, value: &Rational) -> Polytope {
    let mut poly = Polytope::new(sides);
    for k in 0..1usize << sides {
        let (coeffs, base) = affine_against(sides, raise, &pure_strategy_bits(k, sides), true);
        poly.add_ge(coeffs, value - base);
    }
    poly.add_unit_box();
    poly
}

/// B's optimal set in the behavioural space: `{q in [0,1]^S : W(a, q) <= value for every pure
/// a}`. Needs `sides <= MAX_MATRIX_SIDES`.
pub fn b_optimal_polytope(sides: usize, raise: i64, value: &Rational) -> Polytope {
    let mut poly = Polytope::new(sides);
    for k in 0..1usize << sides {
        let (coeffs, base) = affine_against(sides, raise, &pure_strategy_bits(k, sides), false);
        poly.add_le(coeffs, value - base);
    }
    poly.add_unit_box();
    poly
}

/// The pure-strategy index (binary, die 1 first) of a reduced strategy of the extensive game,
/// read from its choices at the sets labelled by die.
pub fn binary_index(
    game: &Game,
    player: usize,
    choices: &[Option<usize>],
    sides: usize,
) -> Option<usize> {
    let label = if player == 0 {
        a_infoset_label
    } else {
        b_infoset_label
    };
    let mut k = 0;
    for d in 1..=sides {
        let id = game.find_infoset(player, &label(d))?;
        k = (k << 1) | choices[id]?;
    }
    Some(k)
}

/// Checks that the reduced normal form of the extensive game equals the closed-form matrix up
/// to the order of strategies; returns whether the orders coincide as well.
pub fn normal_form_matches_formula(
    game: &Game,
    nf: &NormalForm,
    formula: &MatrixGame,
    sides: usize,
) -> Result<bool> {
    let n = 1usize << sides;
    let mut index = [Vec::new(), Vec::new()];
    for p in 0..2 {
        if nf.strategies[p].len() != n {
            fail!(
                Invalid,
                "the extensive game has {} reduced strategies for {}, the formula {n}",
                nf.strategies[p].len(),
                game.player_names[p]
            );
        }
        let mut seen = vec![false; n];
        for s in &nf.strategies[p] {
            let k = binary_index(game, p, &s.choices, sides)
                .ok_or_else(|| err!(Invalid, "reduced strategy {} has no binary index", s.label))?;
            if std::mem::replace(&mut seen[k], true) {
                fail!(Invalid, "two reduced strategies map to binary {k}");
            }
            index[p].push(k);
        }
    }
    for (r, &k) in index[0].iter().enumerate() {
        for (c, &l) in index[1].iter().enumerate() {
            if nf.matrix.payoff[r][c] != formula.payoff[k][l] {
                fail!(
                    Invalid,
                    "normal form entry ({}, {}) = {} but the formula gives {} for ({}, {})",
                    nf.matrix.rows[r],
                    nf.matrix.cols[c],
                    nf.matrix.payoff[r][c],
                    formula.payoff[k][l],
                    formula.rows[k],
                    formula.cols[l]
                );
            }
        }
    }
    let identity = (0..2).all(|p| index[p].iter().enumerate().all(|(a, &b)| a == b));
    Ok(identity)
}

/// Everything `bluff baby-poker` reports, computed exactly.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Number of die sides.
    pub sides: usize,
    /// Showdown stake after a called raise.
    pub raise: i64,
    /// The extensive game.
    pub game: Game,
    /// The closed-form pure matrix.
    pub matrix: MatrixGame,
    /// Whether the reduced normal form lists the strategies in the same order as the formula
    /// (equality up to order is checked in any case; a mismatch is an error).
    pub normal_form_same_order: bool,
    /// Pure security levels and saddle points.
    pub pure: PureAnalysis,
    /// The normal-form LP solution.
    pub normal_form: MatrixSolution,
    /// The two behavioural LPs.
    pub behavioural: BehaviouralSolution,
    /// The value from the sequence-form LP of the extensive game (branch `lp`'s solver).
    pub sequence_form_value: Rational,
    /// A's optimal set in p-space.
    pub a_set: Description,
    /// B's optimal set in q-space.
    pub b_set: Description,
    /// A's optimal set of mixed strategies.
    pub a_mixed: OptimalSet,
    /// B's optimal set of mixed strategies.
    pub b_mixed: OptimalSet,
    /// A's best-response payoff in the extensive game against each vertex of `b_set` (each must
    /// equal the value), and B's against A's optimum.
    pub tree_check: Vec<Rational>,
}

/// Steps of [`analyse`], reported to `progress` as they start.
pub const ANALYSIS_STEPS: [&str; 7] = [
    "building the extensive game and its reduced normal form",
    "building the pure matrix from the formula",
    "solving the normal-form LP",
    "solving the behavioural LPs and the sequence-form LP",
    "describing A's and B's behavioural optimal sets",
    "enumerating optimal mixed strategies",
    "checking the optima on the extensive game",
];

/// Runs the whole exact analysis for `2 <= sides <= MAX_MATRIX_SIDES`.
pub fn analyse(sides: usize, raise: i64, progress: &mut dyn FnMut(usize)) -> Result<Analysis> {
    if !(2..=MAX_MATRIX_SIDES).contains(&sides) {
        fail!(Invalid, "sides = {sides}: the analysis needs 2..={MAX_MATRIX_SIDES} sides (2^sides pure strategies each)");
    }
    if raise < 1 {
        fail!(Invalid, "raise = {raise}: the raise must be at least 1");
    }
    progress(0);
    let game = baby_poker(sides, raise)?;
    let nf = reduced_normal_form(&game, 1 << MAX_MATRIX_SIDES)?;
    progress(1);
    let matrix = pure_matrix(sides, raise);
    let normal_form_same_order = normal_form_matches_formula(&game, &nf, &matrix, sides)?;
    let pure = matrix.pure_analysis();
    progress(2);
    let normal_form = matrix.solve()?;
    progress(3);
    let behavioural = behavioural_lp(sides, raise)?;
    let sequence_form_value = solve_exact(&game)?.value;
    let v = &normal_form.value;
    if &behavioural.value_a != v || &behavioural.value_b != v || &sequence_form_value != v {
        fail!(
            Invalid,
            "internal error: the LPs disagree (normal form {v}, behavioural {} / {}, sequence \
             form {sequence_form_value})",
            behavioural.value_a,
            behavioural.value_b
        );
    }
    progress(4);
    let a_set = a_optimal_polytope(sides, raise, v).describe()?;
    let b_set = b_optimal_polytope(sides, raise, v).describe()?;
    progress(5);
    let a_mixed = matrix.optimal_set(&normal_form, 0)?;
    let b_mixed = matrix.optimal_set(&normal_form, 1)?;
    progress(6);
    let mut tree_check = Vec::new();
    for q in &b_set.vertices {
        let prof = behavioural_profile(&game, &behavioural.p, q)?;
        tree_check.push(best_response(&game, &prof, 0).value);
    }
    let prof = behavioural_profile(&game, &behavioural.p, &behavioural.q)?;
    tree_check.push(best_response(&game, &prof, 1).value);
    Ok(Analysis {
        sides,
        raise,
        game,
        matrix,
        normal_form_same_order,
        pure,
        normal_form,
        behavioural,
        sequence_form_value,
        a_set,
        b_set,
        a_mixed,
        b_mixed,
        tree_check,
    })
}

/// The extensive game's behavioural profile for raise probabilities `p` and fold
/// probabilities `q` (die 1 first).
pub fn behavioural_profile(game: &Game, p: &[Rational], q: &[Rational]) -> Result<ExactProfile> {
    let mut prof = ExactProfile::uniform(game);
    for (player, v) in [(0usize, p), (1, q)] {
        for (d, x) in v.iter().enumerate() {
            let label = if player == 0 {
                a_infoset_label(d + 1)
            } else {
                b_infoset_label(d + 1)
            };
            let id = game
                .find_infoset(player, &label)
                .ok_or_else(|| err!(Invalid, "no information set {label:?}"))?;
            let r = game.infosets[player][id].action_range();
            prof.probs[player][r.start] = Rational::one() - x;
            prof.probs[player][r.start + 1] = x.clone();
        }
    }
    Ok(prof)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::expected_value;
    use crate::scalar::rat;

    fn profile(game: &Game, p: &[Rational], q: &[Rational]) -> ExactProfile {
        behavioural_profile(game, p, q).unwrap()
    }

    #[test]
    fn tree_shape() {
        let g = baby_poker(6, 2).unwrap();
        // root, 6 A rolls, 36 B rolls, 36 A decisions with 2 children, 36 B decisions with 2.
        assert_eq!(g.nodes.len(), 1 + 6 + 36 + 72 + 72);
        assert_eq!(g.infosets[0].len(), 6);
        assert_eq!(g.infosets[1].len(), 6);
        assert_eq!(g.num_terminal_nodes(), 36 * 3);
    }

    #[test]
    fn formula_agrees_with_tree_on_mixed_profiles() {
        for (sides, raise) in [(6, 2), (3, 1), (4, 3)] {
            let g = baby_poker(sides, raise).unwrap();
            // Deterministic, varied probabilities k/7 for p and k/5 for q.
            let p: Vec<Rational> = (0..sides).map(|i| rat((i as i64 * 3) % 8, 7)).collect();
            let q: Vec<Rational> = (0..sides).map(|j| rat((j as i64 * 2 + 1) % 6, 5)).collect();
            assert_eq!(
                expected_value(&g, &profile(&g, &p, &q)),
                payoff_formula(&p, &q, raise)
            );
        }
    }

    #[test]
    fn hand_computed_entries() {
        // Always call vs anything: the showdown for 1 is symmetric, value 0.
        let zeros = vec![Rational::zero(); 6];
        let ones = vec![Rational::one(); 6];
        assert_eq!(payoff_formula(&zeros, &ones, 2), Rational::zero());
        // Always raise, B always folds: A wins 1 every time.
        assert_eq!(payoff_formula(&ones, &ones, 2), Rational::one());
        // Always raise, B always calls: a symmetric showdown for 2, value 0.
        assert_eq!(payoff_formula(&ones, &zeros, 2), Rational::zero());
        let m = pure_matrix(6, 2);
        assert_eq!(m.payoff[63][63], Rational::one());
        assert_eq!(m.rows[3], "000011");
    }
}
