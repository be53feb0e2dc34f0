//! A start for Lemke's path near the answer: the complementary basis of the equilibrium of the
//! game's zero-sum part.
//!
//! A raked game is near zero-sum, and Lemke's path from the slack basis is long on it (tens of
//! thousands of pivots on raked Leduc) although the answer is close to the zero-sum game's. The
//! zero-sum part of a two-player game, `u1' = (u1 - u2) / 2 = -u2'`, is solved exactly by the
//! sequence-form LP ([`crate::exact`]), fast; its equilibrium `(x, y)` names a complementary
//! basis of the general-sum LCP: a sequence's `x_s` basic where it is played (and one action
//! at each set its player's own choices never reach, where every `x_s` is zero), its slack
//! `w_s` basic elsewhere, and each information set's value `p` basic with the slack of the
//! other inequality of its equation. The float path starts there with the covering vector
//! `B 1`, so the basic values are `B^{-1} q + z0 1`, and Lemke's pivots repair the support to
//! an equilibrium of the general-sum game. Nothing here is trusted: the path's final basis is
//! solved exactly and certified like any other, and a failure (a singular basis, a ray, a path
//! that comes back) sends the solve to the slack basis's path, saying so.

use super::{plan_of, RationalLcp};
use crate::eval::best_response;
use crate::game::Game;
use crate::scalar::{rational_to_f64, Rational};
use crate::strategy::ExactProfile;
use num_traits::{Signed, Zero};

/// The zero-sum part of `game`: player 1's payoff `(u1 - u2) / 2`, player 2's its negation
/// (a constant-sum game is returned as it is: its zero-sum part has the same equilibria).
pub(crate) fn zero_sum_part(game: &Game) -> Game {
    let mut g = game.clone();
    if let Some(p1) = g.payoff1.take() {
        let half = Rational::new(1.into(), 2.into());
        for (term, u2) in g.terminals.iter_mut().zip(&p1) {
            let v = (&term.payoff0 - u2) * &half;
            term.payoff0_f64 = rational_to_f64(&v);
            term.payoff0 = v;
        }
        g.constant_sum = Rational::zero();
    }
    g
}

/// The complementary basis (variables numbered as in the float path: `w` is `0..n`, `z` is
/// `n..2n`) of the behavioural profile `probs` in `lcp` (laid out by [`super::build_lcp`]).
///
/// At a set the profile never reaches (by its player's own choices), the basic action is the
/// player's best response there to the opponent's part of the profile in `game`.
pub(crate) fn basis_of(game: &Game, lcp: &RationalLcp, profile: &ExactProfile) -> Vec<usize> {
    let n = lcp.rows();
    let [n1, n2] = lcp.sequences;
    let (m1, m2) = (game.infosets[0].len() + 1, game.infosets[1].len() + 1);
    let (opp, opm) = (n1 + n2, n1 + n2 + m1);
    let (oqp, oqm) = (n1 + n2 + 2 * m1, n1 + n2 + 2 * m1 + m2);
    let mut basis = Vec::with_capacity(n);
    for (p, offset) in [(0, 0), (1, n1)] {
        let plan = plan_of(game, p, &profile.probs[p]);
        let mut basic: Vec<bool> = plan.iter().map(Signed::is_positive).collect();
        let response = best_response(game, profile, p);
        for (set, &a) in game.infosets[p].iter().zip(&response.actions) {
            if plan[set.parent_sequence()].is_zero() {
                basic[1 + set.action_offset + a] = true;
            }
        }
        basis.extend(
            basic
                .iter()
                .enumerate()
                .map(|(s, &b)| if b { n + offset + s } else { offset + s }),
        );
    }
    // The values are at most zero (every payoff is shifted negative): `p-` is basic, and the
    // slack of `p+`'s inequality (zero while `E x = e`).
    for h in 0..m1 {
        basis.push(n + opm + h);
        basis.push(opp + h);
    }
    for h in 0..m2 {
        basis.push(n + oqm + h);
        basis.push(oqp + h);
    }
    basis
}
