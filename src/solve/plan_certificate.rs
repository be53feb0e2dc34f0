//! The exact best-response certificate of a sequence-form equilibrium, in integers.
//!
//! [`crate::eval::exploitability`] in rationals reduces by a gcd after every product and sum,
//! which made it the costliest exact step of the LP route. Here the profile is first checked to
//! play the LP's realization plans exactly (`p(a) * plan(parent) = plan(child)` at every set the
//! player reaches), so that a player's reach at any node is the plan of its own sequence there.
//! Both plans are brought to one denominator each, the terminals' chance-weighted payoffs to
//! another, and the expected value and both best responses are computed by walking the game
//! tree in integers (no gcd, no recursion). The LP's payoff matrix is not used: the walk reads
//! the game itself.

use crate::eval::ResponseLevels;
use crate::game::{Game, NodeKind};
use crate::scalar::Rational;
use crate::solve::lp::over_common_denominator;
use crate::strategy::ExactProfile;
use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

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
    // Each node's own sequence per player, chance reach, and the terminals' weights. The
    // products are left unreduced (positive denominators; only numerators and denominators
    // are read): a gcd per node cost more than all the rest.
    let n = game.nodes.len();
    let mut seq = vec![[0u32; 2]; n];
    let mut chance = vec![Rational::one(); n];
    let mut terminals: Vec<usize> = Vec::new();
    let mut weights: Vec<Rational> = Vec::new();
    for node in 0..n {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Terminal { terminal } => {
                terminals.push(node);
                let (c, u) = (&chance[node], &game.terminals[terminal as usize].payoff0);
                weights.push(Rational::new_raw(
                    c.numer() * u.numer(),
                    c.denom() * u.denom(),
                ));
            }
            NodeKind::Chance => {
                for child in nd.children() {
                    seq[child] = seq[node];
                    let (c, p) = (&chance[node], &game.chance_prob[child]);
                    chance[child] = Rational::new_raw(c.numer() * p.numer(), c.denom() * p.denom());
                }
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                for (k, child) in nd.children().enumerate() {
                    seq[child] = seq[node];
                    seq[child][player as usize] = (1 + set.action_offset + k) as u32;
                    chance[child] = chance[node].clone();
                }
            }
        }
    }
    let (dw, nw) = over_common_denominator(&weights);
    let mut weight = vec![BigInt::zero(); n];
    for (&node, w) in terminals.iter().zip(nw) {
        weight[node] = w;
    }
    let mut ev = BigInt::zero();
    for &node in &terminals {
        let [s, t] = seq[node];
        let (x, y) = (&nx[s as usize], &ny[t as usize]);
        if !weight[node].is_zero() && !x.is_zero() && !y.is_zero() {
            ev += &weight[node] * x * y;
        }
    }
    // Player 0 best-responds to y (maximises), player 1 to x (minimises player 0's payoff).
    let br0 = best_response(game, 0, &|node| &weight[node] * &ny[seq[node][1] as usize]);
    let br1 = best_response(game, 1, &|node| &weight[node] * &nx[seq[node][0] as usize]);
    Ok(PlanValues {
        value: Rational::new(ev, &dw * &dx * &dy),
        best_response_0: Rational::new(br0, &dw * &dy),
        best_response_1: Rational::new(br1, &dw * &dx),
    })
}

/// The best-response value of `player` (0 maximises, 1 minimises) given each terminal's
/// opponent-weighted payoff; without recursion, level by level ([`ResponseLevels`]).
fn best_response(game: &Game, player: usize, terminal: &dyn Fn(usize) -> BigInt) -> BigInt {
    let levels = ResponseLevels::new(game, player);
    let sets = &game.infosets[player];
    let n = game.nodes.len();
    let mut value = vec![BigInt::zero(); n];
    let mut choice = vec![0usize; sets.len()];
    for l in (0..levels.sets.len()).rev() {
        for &id in &levels.sets[l] {
            let set = &sets[id];
            let mut best: Option<(usize, BigInt)> = None;
            for a in 0..set.actions.len() {
                let q: BigInt = set
                    .nodes
                    .iter()
                    .map(|&node| &value[game.nodes[node as usize].first_child as usize + a])
                    .sum();
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
                NodeKind::Terminal { .. } => terminal(node),
                NodeKind::Decision { player: p, infoset } if p as usize == player => {
                    value[nd.first_child as usize + choice[infoset as usize]].clone()
                }
                _ => nd.children().map(|c| &value[c]).sum(),
            };
        }
    }
    std::mem::take(&mut value[0])
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
        let game = crate::games::load("kuhn").unwrap();
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

    /// A profile that does not play the plans it comes with is refused, not evaluated.
    #[test]
    fn a_profile_that_does_not_play_its_plan_is_refused() {
        let game = crate::games::load("kuhn").unwrap();
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
