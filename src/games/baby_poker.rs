//! Baby poker with dice (GAMES.md section 3): each player rolls a fair die with `sides` faces and
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

use crate::game::{Game, GameBuilder, GameError};
use crate::scalar::{int, Rational};
use crate::solve::matrix::MatrixGame;
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
/// strategy `k` against B's pure strategy `l`. Needs `2 <= sides <= MAX_MATRIX_SIDES`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::expected_value;
    use crate::scalar::rat;
    use crate::strategy::ExactProfile;

    /// A behavioural profile of the extensive game from `p` (raise) and `q` (fold) vectors.
    fn profile(game: &Game, p: &[Rational], q: &[Rational]) -> ExactProfile {
        let mut prof = ExactProfile::uniform(game);
        for (player, v, label) in [
            (0, p, a_infoset_label as fn(usize) -> String),
            (1, q, b_infoset_label),
        ] {
            for (d, x) in v.iter().enumerate() {
                let id = game.find_infoset(player, &label(d + 1)).unwrap();
                let r = game.infosets[player][id].action_range();
                prof.probs[player][r.start] = Rational::one() - x;
                prof.probs[player][r.start + 1] = x.clone();
            }
        }
        prof
    }

    #[test]
    fn tree_shape() {
        let g = baby_poker(6, 2).unwrap();
        // root, 6 A rolls, 36 B rolls, 36 A decisions with 2 children, 36 B decisions with 2.
        assert_eq!(g.nodes.len(), 1 + 6 + 36 + 72 + 72);
        assert_eq!(g.infosets[0].len(), 6);
        assert_eq!(g.infosets[1].len(), 6);
        assert_eq!(g.terminals.len(), 36 * 3);
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
