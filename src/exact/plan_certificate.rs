//! The exact best-response certificate of a sequence-form equilibrium, in integers.
//!
//! [`crate::eval::exploitability`] in rationals reduces by a gcd after every product and sum,
//! which made it the costliest exact step of the LP route. Here the profile is first checked to
//! play the LP's realization plans exactly (`p(a) * plan(parent) = plan(child)` at every set the
//! player reaches), so that a player's reach at any node is the plan of its own sequence there.
//! Both plans are brought to one denominator each, the terminals' chance-weighted payoffs to
//! another ([`TerminalWeights`], checked against a plain rational sweep in its tests), and the
//! expected value and both best responses are computed by walking the game tree in integers
//! (128-bit with every operation checked, big integers when one overflows; no gcd, no
//! recursion). The LP's payoff matrix is not used: the walk reads the game tree itself.

use crate::eval::ResponseLevels;
use crate::exact::terminal_weights::TerminalWeights;
use crate::game::{Game, NodeKind};
use crate::scalar::{over_common_denominator, Rational};
use crate::strategy::ExactProfile;
use num_bigint::BigInt;
use num_traits::{One, Signed, ToPrimitive, Zero};

/// Exact values of a profile that plays two realization plans.
#[derive(Clone, Debug, PartialEq)]
pub struct PlanValues {
    /// Player 0's expected payoff under the profile.
    pub value: Rational,
    /// Player 0's payoff when best-responding to player 1's strategy.
    pub best_response_0: Rational,
    /// Player 0's payoff when player 1 best-responds (minimises it) to player 0's strategy.
    pub best_response_1: Rational,
}

impl PlanValues {
    /// NashConv: what the two best responses gain together (0 exactly at an equilibrium).
    pub fn nash_conv(&self) -> Rational {
        &self.best_response_0 - &self.best_response_1
    }
}

/// Checks that `profile` plays `plans[p]` for both players (an error names the first set that
/// does not) and returns its exact value and both best-response values.
pub fn evaluate(
    game: &Game,
    profile: &ExactProfile,
    plans: [&[Rational]; 2],
) -> Result<PlanValues, String> {
    game.require_constant_sum("the sequence-form LP's certificate")
        .map_err(|e| e.to_string())?;
    let mut scaled: Vec<(BigInt, Vec<BigInt>)> = Vec::with_capacity(2);
    for p in 0..2 {
        let plan = plans[p];
        if plan.len() != game.num_sequences(p) {
            return Err(format!(
                "player {p}'s plan has {} entries for {} sequences",
                plan.len(),
                game.num_sequences(p)
            ));
        }
        let (d, n) = over_common_denominator(plan);
        if n[0] != d {
            return Err(format!("player {p}'s plan does not start at 1"));
        }
        if let Some(s) = n.iter().position(Signed::is_negative) {
            return Err(format!("player {p}'s plan is negative at sequence {s}"));
        }
        for (h, set) in game.infosets[p].iter().enumerate() {
            let parent = &n[set.parent_sequence()];
            let probs = &profile.probs[p][set.action_range()];
            if probs.iter().any(Signed::is_negative) {
                return Err(format!("player {p}'s set {h} has a negative probability"));
            }
            let consistent = if parent.is_zero() {
                set.action_range().all(|a| n[1 + a].is_zero())
                    && probs.iter().sum::<Rational>() == Rational::one()
            } else {
                // p(a) = plan(child) / plan(parent), crosswise in integers; the children then
                // sum to the parent, so the probabilities sum to 1.
                set.action_range()
                    .zip(probs)
                    .all(|(a, pr)| pr.numer() * parent == pr.denom() * &n[1 + a])
                    && set.action_range().map(|a| &n[1 + a]).sum::<BigInt>() == *parent
            };
            if !consistent {
                return Err(format!(
                    "player {p}'s strategy at set {h} does not play the realization plan"
                ));
            }
        }
        scaled.push((d, n));
    }
    let (dy, ny) = scaled.pop().expect("two plans");
    let (dx, nx) = scaled.pop().expect("two plans");
    let weights = TerminalWeights::new(game);
    let dw = &weights.denom;
    // In 128-bit integers with every operation checked, in big integers when one overflows.
    let [ev, br0, br1] = walk::<i128>(game, &weights, &nx, &ny)
        .map(|v| v.map(BigInt::from))
        .or_else(|| walk::<BigInt>(game, &weights, &nx, &ny))
        .expect("big-integer arithmetic does not overflow");
    Ok(PlanValues {
        value: Rational::new(ev, dw * &dx * &dy),
        best_response_0: Rational::new(br0, dw * &dy),
        best_response_1: Rational::new(br1, dw * &dx),
    })
}

/// The integers of the walk: 128-bit with checked operations (`None` on overflow), or big.
trait Exact: Sized + Clone + PartialOrd {
    fn zero() -> Self;
    fn from_big(b: &BigInt) -> Option<Self>;
    fn add(&self, o: &Self) -> Option<Self>;
    fn mul(&self, o: &Self) -> Option<Self>;
}

impl Exact for i128 {
    fn zero() -> Self {
        0
    }
    fn from_big(b: &BigInt) -> Option<Self> {
        b.to_i128()
    }
    fn add(&self, o: &Self) -> Option<Self> {
        self.checked_add(*o)
    }
    fn mul(&self, o: &Self) -> Option<Self> {
        self.checked_mul(*o)
    }
}

impl Exact for BigInt {
    fn zero() -> Self {
        Zero::zero()
    }
    fn from_big(b: &BigInt) -> Option<Self> {
        Some(b.clone())
    }
    fn add(&self, o: &Self) -> Option<Self> {
        Some(self + o)
    }
    fn mul(&self, o: &Self) -> Option<Self> {
        Some(self * o)
    }
}

/// The expected value and both best-response values as integers over `weights.denom` times
/// the plans' denominators; `None` when `T` overflows.
fn walk<T: Exact>(
    game: &Game,
    weights: &TerminalWeights,
    nx: &[BigInt],
    ny: &[BigInt],
) -> Option<[T; 3]> {
    let convert = |v: &[BigInt]| v.iter().map(T::from_big).collect::<Option<Vec<T>>>();
    let (nx, ny) = (convert(nx)?, convert(ny)?);
    let n = game.nodes.len();
    // Per terminal node of non-zero weight: its weight and sequences.
    let mut slot = vec![u32::MAX; n];
    let mut terms: Vec<(T, [u32; 2])> = Vec::with_capacity(weights.terminals.len());
    let mut ev = T::zero();
    for (k, t) in weights.terminals.iter().enumerate() {
        slot[t.node as usize] = k as u32;
        let w = T::from_big(&t.weight)?;
        let [s, q] = t.seq;
        ev = ev.add(&w.mul(&nx[s as usize])?.mul(&ny[q as usize])?)?;
        terms.push((w, t.seq));
    }
    // Player 0 best-responds to y (maximises), player 1 to x (minimises player 0's payoff).
    let terminal = |node: usize, player: usize| -> Option<T> {
        match slot[node] {
            u32::MAX => Some(T::zero()),
            k => {
                let (w, seq) = &terms[k as usize];
                let plan = if player == 0 { &ny } else { &nx };
                w.mul(&plan[seq[1 - player] as usize])
            }
        }
    };
    let br0 = best_response(game, 0, &|node| terminal(node, 0))?;
    let br1 = best_response(game, 1, &|node| terminal(node, 1))?;
    Some([ev, br0, br1])
}

/// The best-response value of `player` (0 maximises, 1 minimises) given each terminal's
/// opponent-weighted payoff; without recursion, level by level ([`ResponseLevels`]).
fn best_response<T: Exact>(
    game: &Game,
    player: usize,
    terminal: &dyn Fn(usize) -> Option<T>,
) -> Option<T> {
    let levels = ResponseLevels::new(game, player);
    let sets = &game.infosets[player];
    let n = game.nodes.len();
    let mut value = vec![T::zero(); n];
    let mut choice = vec![0usize; sets.len()];
    for l in (0..levels.sets.len()).rev() {
        for &id in &levels.sets[l] {
            let set = &sets[id];
            let mut best: Option<(usize, T)> = None;
            for a in 0..set.actions.len() {
                let mut q = T::zero();
                for &node in &set.nodes {
                    q = q.add(&value[game.nodes[node as usize].first_child as usize + a])?;
                }
                let better = match &best {
                    None => true,
                    Some((_, b)) => (player == 0 && q > *b) || (player == 1 && q < *b),
                };
                if better {
                    best = Some((a, q));
                }
            }
            choice[id] = best.map_or(0, |(a, _)| a);
        }
        for &node in levels.nodes(l).iter().rev() {
            let node = node as usize;
            let nd = &game.nodes[node];
            value[node] = match nd.kind {
                NodeKind::Terminal { .. } => terminal(node)?,
                NodeKind::Decision { player: p, infoset } if p as usize == player => {
                    value[nd.first_child as usize + choice[infoset as usize]].clone()
                }
                _ => {
                    let mut sum = T::zero();
                    for c in nd.children() {
                        sum = sum.add(&value[c])?;
                    }
                    sum
                }
            };
        }
    }
    Some(value.swap_remove(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::scalar::rat;
    use crate::strategy::Profile;

    /// The realization plan of a behavioural strategy (sets in arena order: parents first).
    fn realization_plan(game: &Game, player: usize, probs: &[Rational]) -> Vec<Rational> {
        let mut plan = vec![Rational::zero(); game.num_sequences(player)];
        plan[0] = Rational::one();
        let mut sets: Vec<_> = game.infosets[player].iter().collect();
        sets.sort_by_key(|s| s.nodes[0]);
        for set in sets {
            for a in set.action_range() {
                plan[1 + a] = &plan[set.parent_sequence()] * &probs[a];
            }
        }
        plan
    }

    /// Against the rational evaluator (an independent implementation) on Kuhn poker with a
    /// non-equilibrium profile: the values and both best responses agree exactly.
    #[test]
    fn agrees_with_rational_exploitability_off_equilibrium() {
        let game = crate::games::builtin("kuhn").unwrap();
        let mut profile = Profile::<Rational>::uniform(&game);
        for (k, p) in profile.probs[0].iter_mut().enumerate() {
            // Skewed but valid: action 0 with 1/3 or 2/3 alternately.
            *p = if (k / 2) % 2 == 0 {
                if k % 2 == 0 {
                    rat(1, 3)
                } else {
                    rat(2, 3)
                }
            } else if k % 2 == 0 {
                rat(3, 4)
            } else {
                rat(1, 4)
            };
        }
        let plans = [
            realization_plan(&game, 0, &profile.probs[0]),
            realization_plan(&game, 1, &profile.probs[1]),
        ];
        let v = evaluate(&game, &profile, [&plans[0], &plans[1]]).unwrap();
        let e = exploitability(&game, &profile);
        assert_eq!(v.value, e.value[0]);
        assert_eq!(v.best_response_0, e.best_response_value[0]);
        assert_eq!(
            v.best_response_1,
            &game.constant_sum - &e.best_response_value[1]
        );
        assert_eq!(v.nash_conv(), e.nash_conv);
        assert!(!v.nash_conv().is_zero());
    }

    /// Probabilities with 100-digit denominators overflow the 128-bit walk; the big-integer
    /// walk takes over and still agrees with the rational evaluator, and both walks agree
    /// where the small one fits.
    #[test]
    fn big_plans_fall_back_to_big_integers() {
        let game = crate::games::builtin("kuhn").unwrap();
        let big = BigInt::from(7u8).pow(120u32);
        let mut profile = Profile::<Rational>::uniform(&game);
        for pair in profile.probs[0].chunks_mut(2) {
            pair[0] = Rational::new(BigInt::one(), big.clone());
            pair[1] = Rational::one() - &pair[0];
        }
        let plans = [
            realization_plan(&game, 0, &profile.probs[0]),
            realization_plan(&game, 1, &profile.probs[1]),
        ];
        let weights = TerminalWeights::new(&game);
        let (_, nx) = over_common_denominator(&plans[0]);
        let (_, ny) = over_common_denominator(&plans[1]);
        assert!(walk::<i128>(&game, &weights, &nx, &ny).is_none());
        let v = evaluate(&game, &profile, [&plans[0], &plans[1]]).unwrap();
        let e = exploitability(&game, &profile);
        assert_eq!(v.value, e.value[0]);
        assert_eq!(v.best_response_0, e.best_response_value[0]);
        let uniform = Profile::<Rational>::uniform(&game);
        let plans = [
            realization_plan(&game, 0, &uniform.probs[0]),
            realization_plan(&game, 1, &uniform.probs[1]),
        ];
        let (_, nx) = over_common_denominator(&plans[0]);
        let (_, ny) = over_common_denominator(&plans[1]);
        let small = walk::<i128>(&game, &weights, &nx, &ny).unwrap();
        let big = walk::<BigInt>(&game, &weights, &nx, &ny).unwrap();
        assert_eq!(small.map(BigInt::from), big);
    }

    /// A profile that does not play the plans it comes with is refused, not evaluated.
    #[test]
    fn a_profile_that_does_not_play_its_plan_is_refused() {
        let game = crate::games::builtin("kuhn").unwrap();
        let profile = Profile::<Rational>::uniform(&game);
        let mut plan0 = realization_plan(&game, 0, &profile.probs[0]);
        let plan1 = realization_plan(&game, 1, &profile.probs[1]);
        assert!(evaluate(&game, &profile, [&plan0, &plan1]).is_ok());
        plan0[1] = rat(1, 3);
        plan0[2] = rat(2, 3);
        let err = evaluate(&game, &profile, [&plan0, &plan1]).unwrap_err();
        assert!(err.contains("does not play the realization plan"), "{err}");
    }
}
