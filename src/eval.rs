//! Exact and floating-point evaluation: expected values, best responses, exploitability.
//!
//! Every function is generic over [`Scalar`], so the same code certifies a strategy in exact
//! rationals or scores it quickly in `f64`.

use crate::game::{Game, NodeKind, Player};
use crate::lock::Lock;
use crate::scalar::Scalar;
use crate::strategy::Profile;
use std::any::Any;

/// The chance probability of the edge into `node` as `T`: for `f64` the game's stored
/// rounding of it (`chance_prob_f64`, the same rounding of the same rational), so an `f64`
/// evaluation converts no big rational per node.
fn chance_prob<T: Scalar>(game: &Game, node: usize) -> T {
    match (&game.chance_prob_f64[node] as &dyn Any).downcast_ref::<T>() {
        Some(x) => x.clone(),
        None => T::from_rational(&game.chance_prob[node]),
    }
}

/// Player 0's payoff at terminal outcome `t` as `T` (for `f64` the stored `payoff0_f64`).
fn payoff0<T: Scalar>(game: &Game, t: usize) -> T {
    let terminal = &game.terminals[t];
    match (&terminal.payoff0_f64 as &dyn Any).downcast_ref::<T>() {
        Some(x) => x.clone(),
        None => T::from_rational(&terminal.payoff0),
    }
}

/// Player `player`'s payoff at terminal outcome `t` as `T` (player 1's from
/// [`Game::payoff1`] in a general-sum game, else `constant_sum - payoff0`).
fn payoff_of<T: Scalar>(game: &Game, t: usize, player: Player) -> T {
    match (player, &game.payoff1) {
        (0, _) => payoff0(game, t),
        (_, Some(p1)) => T::from_rational(&p1[t]),
        (_, None) => T::from_rational(&game.constant_sum) - payoff0::<T>(game, t),
    }
}

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
                NodeKind::Chance => chance_prob(game, child),
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

/// Player 0's expected payoff under `profile` (player 1's is [`player_value`]; in a
/// constant-sum game, `constant_sum` minus this).
pub fn expected_value<T: Scalar>(game: &Game, profile: &Profile<T>) -> T {
    let reach = reach_probabilities(game, profile);
    let mut total = T::zero();
    for (node, nd) in game.nodes.iter().enumerate() {
        if let NodeKind::Terminal { terminal } = nd.kind {
            if !reach[node].is_zero() {
                total = total + reach[node].clone() * payoff0::<T>(game, terminal as usize);
            }
        }
    }
    total
}

/// Expected payoff of `player` under `profile`.
pub fn player_value<T: Scalar>(game: &Game, profile: &Profile<T>, player: Player) -> T {
    if player == 1 && !game.is_constant_sum() {
        return values(game, profile)[1].clone();
    }
    let v0 = expected_value(game, profile);
    if player == 0 {
        v0
    } else {
        T::from_rational(&game.constant_sum) - v0
    }
}

/// Both players' expected payoffs under `profile`, in one sweep (general-sum or not).
pub fn values<T: Scalar>(game: &Game, profile: &Profile<T>) -> [T; 2] {
    let reach = reach_probabilities(game, profile);
    let mut total = [T::zero(), T::zero()];
    for (node, nd) in game.nodes.iter().enumerate() {
        if let NodeKind::Terminal { terminal } = nd.kind {
            if !reach[node].is_zero() {
                for (p, v) in total.iter_mut().enumerate() {
                    let u: T = payoff_of(game, terminal as usize, p);
                    *v = v.clone() + reach[node].clone() * u;
                }
            }
        }
    }
    total
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

/// The order in which a best response of `player` is decided without recursion: a node's
/// level is the number of the responder's own actions on its path; with perfect recall all
/// nodes of a set share a level and a set's choice depends only on nodes one level deeper, so
/// levels are decided deepest first (children come after parents in the arena).
pub(crate) struct ResponseLevels {
    /// Level `l`'s nodes are `node_order[start[l]..start[l + 1]]`, in arena order.
    start: Vec<usize>,
    node_order: Vec<u32>,
    /// The responder's information sets on each level.
    pub sets: Vec<Vec<usize>>,
}

impl ResponseLevels {
    /// Levels of `game`'s nodes counted by `player`'s own actions.
    pub(crate) fn new(game: &Game, player: Player) -> Self {
        let n = game.nodes.len();
        let mut level = vec![0u32; n];
        for node in 0..n {
            let own = matches!(game.nodes[node].kind,
                NodeKind::Decision { player: p, .. } if p as usize == player);
            for child in game.nodes[node].children() {
                level[child] = level[node] + u32::from(own);
            }
        }
        let depth = level.iter().copied().max().unwrap_or(0) as usize;
        // Nodes grouped by level (counting sort), each group in arena order.
        let mut start = vec![0usize; depth + 2];
        for &l in &level {
            start[l as usize + 1] += 1;
        }
        for l in 0..=depth {
            start[l + 1] += start[l];
        }
        let mut fill = start.clone();
        let mut node_order = vec![0u32; n];
        for (node, &l) in level.iter().enumerate() {
            node_order[fill[l as usize]] = node as u32;
            fill[l as usize] += 1;
        }
        let mut sets: Vec<Vec<usize>> = vec![Vec::new(); depth + 1];
        for (id, set) in game.infosets[player].iter().enumerate() {
            sets[level[set.nodes[0] as usize] as usize].push(id);
        }
        ResponseLevels {
            start,
            node_order,
            sets,
        }
    }

    /// Level `l`'s nodes in arena order.
    pub(crate) fn nodes(&self, l: usize) -> &[u32] {
        &self.node_order[self.start[l]..self.start[l + 1]]
    }
}

/// The best response of `player` to the opponent's part of `profile`, with its exact value
/// (exact when `T` is `Rational`). Ties go to the first action.
///
/// No recursion: with perfect recall every node has a level, the number of the responder's own
/// actions on its path, and a responder set's choice depends only on nodes one level deeper. So
/// levels are processed deepest first: decide that level's sets, then sweep its nodes
/// backwards (children come after parents in the arena).
pub fn best_response<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    player: Player,
) -> BestResponse<T> {
    best_response_locked(game, profile, player, None)
}

/// [`best_response`] when `lock` fixes some of the responder's sets: there the responder
/// plays `profile` (which should play the lock) and chooses nothing; its `actions` entry is 0.
pub fn best_response_locked<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    player: Player,
    lock: Option<&Lock>,
) -> BestResponse<T> {
    let fixed = lock.map_or_else(Vec::new, |l| l.mask(game, player));
    if game.is_constant_sum() {
        let constant = T::from_rational(&game.constant_sum);
        best_response_to(game, profile, player, &fixed, |t| {
            let p0: T = payoff0(game, t);
            if player == 0 {
                p0
            } else {
                constant.clone() - p0
            }
        })
    } else {
        best_response_to(game, profile, player, &fixed, |t| {
            payoff_of(game, t, player)
        })
    }
}

/// The best response of `player` to the opponent's part of `profile` maximising `utility`
/// (a payoff per terminal outcome), as [`best_response`] does for the player's own payoff.
fn best_response_to<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    player: Player,
    fixed: &[bool],
    utility: impl Fn(usize) -> T,
) -> BestResponse<T> {
    let opp_reach = reach_excluding(game, profile, Some(player));
    let n = game.nodes.len();
    let levels = ResponseLevels::new(game, player);
    let sets = &game.infosets[player];
    let mut value = vec![T::zero(); n];
    let mut choice = vec![0usize; sets.len()];
    for l in (0..levels.sets.len()).rev() {
        for &id in &levels.sets[l] {
            if fixed.get(id).copied().unwrap_or(false) {
                continue;
            }
            let set = &sets[id];
            let mut best: Option<(usize, T)> = None;
            for a in 0..set.actions.len() {
                let mut q = T::zero();
                for &node in &set.nodes {
                    q = q + value[game.nodes[node as usize].first_child as usize + a].clone();
                }
                if best.as_ref().is_none_or(|(_, b)| q > *b) {
                    best = Some((a, q));
                }
            }
            choice[id] = best.expect("information sets have actions").0;
        }
        for &node in levels.nodes(l).iter().rev() {
            let node = node as usize;
            let nd = &game.nodes[node];
            value[node] = match nd.kind {
                NodeKind::Terminal { terminal } => {
                    if opp_reach[node].is_zero() {
                        T::zero()
                    } else {
                        utility(terminal as usize) * opp_reach[node].clone()
                    }
                }
                NodeKind::Decision { player: p, infoset }
                    if p as usize == player && fixed.get(infoset as usize) == Some(&true) =>
                {
                    let set = &sets[infoset as usize];
                    let mut total = T::zero();
                    for (k, child) in nd.children().enumerate() {
                        let x = &profile.probs[player][set.action_offset + k];
                        if !x.is_zero() {
                            total = total + value[child].clone() * x.clone();
                        }
                    }
                    total
                }
                NodeKind::Decision { player: p, infoset } if p as usize == player => {
                    value[nd.first_child as usize + choice[infoset as usize]].clone()
                }
                _ => {
                    let mut total = T::zero();
                    for child in nd.children() {
                        total = total + value[child].clone();
                    }
                    total
                }
            };
        }
    }
    BestResponse {
        player,
        value: value[0].clone(),
        actions: choice,
    }
}

/// How far a profile is from equilibrium.
#[derive(Clone, Debug)]
pub struct Exploitability<T> {
    /// Each player's expected payoff under the profile.
    pub value: [T; 2],
    /// Each player's payoff when best-responding to the other's strategy.
    pub best_response_value: [T; 2],
    /// What each player gains by best-responding: `best_response_value - value` (both 0
    /// exactly at a Nash equilibrium).
    pub gain: [T; 2],
    /// Sum over players of what a best response gains (0 exactly at a Nash equilibrium).
    pub nash_conv: T,
    /// `nash_conv / 2`: for zero-sum games, the mean of what each strategy loses to a best
    /// response relative to the game value (OpenSpiel's definition).
    pub exploitability: T,
    /// Each player's guaranteed payoff: the least the player gets against any strategy of the
    /// opponent (`constant_sum - best_response_value[1]` for player 0 of a constant-sum game).
    pub guaranteed: [T; 2],
}

/// Values, best-response values, gains, NashConv and exploitability of `profile`, for a
/// constant-sum or a general-sum game.
pub fn exploitability<T: Scalar>(game: &Game, profile: &Profile<T>) -> Exploitability<T> {
    exploitability_locked(game, profile, None)
}

/// [`exploitability`] of the game `lock` makes: each best response keeps its player's locked
/// sets as `profile` plays them (a profile solving every unlocked set scores 0).
pub fn exploitability_locked<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    lock: Option<&Lock>,
) -> Exploitability<T> {
    let two = T::one() + T::one();
    let masks = [0, 1].map(|p| lock.map_or_else(Vec::new, |l| l.mask(game, p)));
    if !game.is_constant_sum() {
        let value = values(game, profile);
        let br0 = best_response_locked(game, profile, 0, lock).value;
        let br1 = best_response_locked(game, profile, 1, lock).value;
        let gain = [
            br0.clone() - value[0].clone(),
            br1.clone() - value[1].clone(),
        ];
        let nash_conv = gain[0].clone() + gain[1].clone();
        // What the opponent can hold each player to: its best response against that
        // player's payoff, negated.
        let guaranteed = [0, 1].map(|p| {
            let worst = best_response_to(game, profile, 1 - p, &masks[1 - p], |t| {
                T::zero() - payoff_of::<T>(game, t, p)
            });
            T::zero() - worst.value
        });
        return Exploitability {
            value,
            best_response_value: [br0, br1],
            gain,
            exploitability: nash_conv.clone() / two,
            nash_conv,
            guaranteed,
        };
    }
    let v0 = expected_value(game, profile);
    let c = T::from_rational(&game.constant_sum);
    let v1 = c.clone() - v0.clone();
    let br0 = best_response_locked(game, profile, 0, lock).value;
    let br1 = best_response_locked(game, profile, 1, lock).value;
    let nash_conv = br0.clone() + br1.clone() - c.clone();
    Exploitability {
        gain: [br0.clone() - v0.clone(), br1.clone() - v1.clone()],
        value: [v0, v1],
        guaranteed: [c.clone() - br1.clone(), c - br0.clone()],
        best_response_value: [br0, br1],
        exploitability: nash_conv.clone() / two,
        nash_conv,
    }
}
