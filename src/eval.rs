//! Exact and floating-point evaluation: expected values, best responses, exploitability.
//!
//! Every function is generic over [`Scalar`], so the same code certifies a strategy in exact
//! rationals or scores it quickly in `f64`.

use crate::game::{Game, NodeKind, Player};
use crate::scalar::Scalar;
use crate::strategy::Profile;

/// Probability of reaching each node when everybody (chance included) follows `profile`.
pub fn reach_probabilities<T: Scalar>(game: &Game, profile: &Profile<T>) -> Vec<T> {
    reach_excluding(game, profile, None)
}

/// Reach probabilities with `excluded`'s own actions counted as 1 (the "counterfactual" reach).
fn reach_excluding<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    excluded: Option<Player>,
) -> Vec<T> {
    let n = game.nodes.len();
    let mut reach = vec![T::zero(); n];
    reach[0] = T::one();
    for node in 0..n {
        let nd = &game.nodes[node];
        if reach[node].is_zero() {
            continue;
        }
        for (k, child) in nd.children().enumerate() {
            let w = match nd.kind {
                NodeKind::Chance => T::from_rational(&game.chance_prob[child]),
                NodeKind::Decision { player, infoset } => {
                    if Some(player as usize) == excluded {
                        T::one()
                    } else {
                        let set = &game.infosets[player as usize][infoset as usize];
                        profile.probs[player as usize][set.action_offset + k].clone()
                    }
                }
                NodeKind::Terminal { .. } => unreachable!("terminals have no children"),
            };
            reach[child] = reach[node].clone() * w;
        }
    }
    reach
}

/// Player 0's expected payoff under `profile` (player 1's is `constant_sum` minus it).
pub fn expected_value<T: Scalar>(game: &Game, profile: &Profile<T>) -> T {
    let reach = reach_probabilities(game, profile);
    let mut total = T::zero();
    for (node, nd) in game.nodes.iter().enumerate() {
        if let NodeKind::Terminal { terminal } = nd.kind {
            if !reach[node].is_zero() {
                total = total
                    + reach[node].clone()
                        * T::from_rational(&game.terminals[terminal as usize].payoff0);
            }
        }
    }
    total
}

/// Expected payoff of `player` under `profile`.
pub fn player_value<T: Scalar>(game: &Game, profile: &Profile<T>, player: Player) -> T {
    let v0 = expected_value(game, profile);
    if player == 0 {
        v0
    } else {
        T::from_rational(&game.constant_sum) - v0
    }
}

/// A best response of one player to the other's strategy in a profile.
#[derive(Clone, Debug)]
pub struct BestResponse<T> {
    /// The responding player.
    pub player: Player,
    /// The responder's expected payoff when best-responding.
    pub value: T,
    /// The local action index chosen at each of the responder's information sets.
    pub actions: Vec<usize>,
}

impl<T: Scalar> BestResponse<T> {
    /// The profile where the responder plays this best response and the opponent keeps `profile`.
    pub fn apply(&self, game: &Game, profile: &Profile<T>) -> Profile<T> {
        let mut out = profile.clone();
        out.set_pure(game, self.player, &self.actions);
        out
    }
}

/// The best response of `player` to the opponent's part of `profile`, with its exact value
/// (exact when `T` is `Rational`). Ties go to the first action.
pub fn best_response<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    player: Player,
) -> BestResponse<T> {
    let opp_reach = reach_excluding(game, profile, Some(player));
    let mut solver = BrSolver {
        game,
        player,
        opp_reach: &opp_reach,
        value: vec![None; game.nodes.len()],
        choice: vec![None; game.infosets[player].len()],
        constant: T::from_rational(&game.constant_sum),
    };
    let value = solver.node_value(0);
    // Sets never reached on the way still get an action (the best one given the rest).
    for id in 0..game.infosets[player].len() {
        solver.decide(id);
    }
    let actions = solver
        .choice
        .into_iter()
        .map(|c| c.expect("every set decided"))
        .collect();
    BestResponse {
        player,
        value,
        actions,
    }
}

struct BrSolver<'a, T> {
    game: &'a Game,
    player: Player,
    opp_reach: &'a [T],
    value: Vec<Option<T>>,
    choice: Vec<Option<usize>>,
    constant: T,
}

impl<T: Scalar> BrSolver<'_, T> {
    /// Value of `node` for the responder, weighted by the opponent's and chance's reach.
    /// Recursion depth is the tree depth; every node is computed once.
    fn node_value(&mut self, node: usize) -> T {
        if let Some(v) = &self.value[node] {
            return v.clone();
        }
        let game = self.game;
        let nd = &game.nodes[node];
        let v = match nd.kind {
            NodeKind::Terminal { terminal } => {
                if self.opp_reach[node].is_zero() {
                    T::zero()
                } else {
                    let p0 = T::from_rational(&game.terminals[terminal as usize].payoff0);
                    let u = if self.player == 0 {
                        p0
                    } else {
                        self.constant.clone() - p0
                    };
                    u * self.opp_reach[node].clone()
                }
            }
            NodeKind::Decision { player, infoset } if player as usize == self.player => {
                let a = self.decide(infoset as usize);
                self.node_value(nd.first_child as usize + a)
            }
            _ => {
                let mut total = T::zero();
                for child in nd.children() {
                    total = total + self.node_value(child);
                }
                total
            }
        };
        self.value[node] = Some(v.clone());
        v
    }

    fn decide(&mut self, infoset: usize) -> usize {
        if let Some(a) = self.choice[infoset] {
            return a;
        }
        let game = self.game;
        let set = &game.infosets[self.player][infoset];
        let mut best: Option<(usize, T)> = None;
        for a in 0..set.actions.len() {
            let mut q = T::zero();
            for &node in &set.nodes {
                q = q + self.node_value(game.nodes[node as usize].first_child as usize + a);
            }
            if best.as_ref().is_none_or(|(_, b)| q > *b) {
                best = Some((a, q));
            }
        }
        let a = best.expect("information sets have actions").0;
        self.choice[infoset] = Some(a);
        a
    }
}

/// How far a profile is from equilibrium.
#[derive(Clone, Debug)]
pub struct Exploitability<T> {
    /// Each player's expected payoff under the profile.
    pub value: [T; 2],
    /// Each player's payoff when best-responding to the other's strategy.
    pub best_response_value: [T; 2],
    /// Sum over players of what a best response gains (0 exactly at a Nash equilibrium).
    pub nash_conv: T,
    /// `nash_conv / 2`: for zero-sum games, the mean of what each strategy loses to a best
    /// response relative to the game value (OpenSpiel's definition).
    pub exploitability: T,
    /// Player 0's guaranteed payoff, `constant_sum - best_response_value[1]`.
    pub guaranteed: [T; 2],
}

/// Values, best-response values, NashConv and exploitability of `profile`.
pub fn exploitability<T: Scalar>(game: &Game, profile: &Profile<T>) -> Exploitability<T> {
    let v0 = expected_value(game, profile);
    let c = T::from_rational(&game.constant_sum);
    let v1 = c.clone() - v0.clone();
    let br0 = best_response(game, profile, 0).value;
    let br1 = best_response(game, profile, 1).value;
    let nash_conv = br0.clone() + br1.clone() - c.clone();
    let two = T::one() + T::one();
    Exploitability {
        value: [v0, v1],
        guaranteed: [c.clone() - br1.clone(), c - br0.clone()],
        best_response_value: [br0, br1],
        exploitability: nash_conv.clone() / two,
        nash_conv,
    }
}
