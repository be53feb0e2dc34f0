//! Studying strategies: each player's best response as one profile, two strategies head to
//! head (and what each differing set is worth), and where two strategies differ.
//!
//! Everything is generic over [`Scalar`]: exact in rationals, fast in `f64`.

use crate::eval::{best_response, reach_probabilities};
use crate::game::{Game, NodeKind, Player};
use crate::scalar::Scalar;
use crate::strategy::Profile;

/// Each player's best response to the other's part of `profile`, in one profile: player 1
/// plays its best response to player 2's strategy and player 2 its best response to player
/// 1's. Where the responder's actions tie, or the opponent never reaches the set (every action
/// worth 0), the first action in the game's order is played.
pub fn best_response_profile<T: Scalar>(game: &Game, profile: &Profile<T>) -> Profile<T> {
    let mut out = profile.clone();
    for p in 0..2 {
        let br = best_response(game, profile, p);
        out.set_pure(game, p, &br.actions);
    }
    out
}

/// `a`'s strategy for player 1 with `b`'s for player 2.
pub fn combine<T: Scalar>(a: &Profile<T>, b: &Profile<T>) -> Profile<T> {
    Profile {
        probs: [a.probs[0].clone(), b.probs[1].clone()],
    }
}

/// Player 0's expected payoff from each node on when everybody follows `profile`.
fn subtree_values<T: Scalar>(game: &Game, profile: &Profile<T>) -> Vec<T> {
    let n = game.nodes.len();
    let mut value = vec![T::zero(); n];
    for node in (0..n).rev() {
        let nd = &game.nodes[node];
        value[node] = match nd.kind {
            NodeKind::Terminal { terminal } => {
                T::from_rational(&game.terminals[terminal as usize].payoff0)
            }
            NodeKind::Chance => {
                let mut total = T::zero();
                for child in nd.children() {
                    let w = T::from_rational(&game.chance_prob[child]);
                    total = total + w * value[child].clone();
                }
                total
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                let mut total = T::zero();
                for (k, child) in nd.children().enumerate() {
                    let x = &profile.probs[player as usize][set.action_offset + k];
                    if !x.is_zero() {
                        total = total + x.clone() * value[child].clone();
                    }
                }
                total
            }
        };
    }
    value
}

/// One information set where two strategies differ, and what playing the other's strategy
/// there alone changes.
#[derive(Clone, Debug, PartialEq)]
pub struct SetChange<T> {
    /// The set's player.
    pub player: Player,
    /// The set's id among the player's sets.
    pub infoset: usize,
    /// The change in the player's expected payoff when it plays `b`'s probabilities at this
    /// set only (everything else unchanged).
    pub change: T,
}

/// For every set of `player` where `profile` and `other` differ, the exact change in
/// `player`'s expected payoff under `profile` if `player` played `other`'s probabilities at
/// that set only: `sum over the set's nodes h of reach(h) * sum_a (other_a - profile_a) *
/// value(h a)` (perfect recall: the set's nodes do not follow one another, so the change is
/// linear). Sorted by size, largest first (ties in the game's order).
pub fn set_changes<T: Scalar>(
    game: &Game,
    profile: &Profile<T>,
    other: &Profile<T>,
    player: Player,
) -> Vec<SetChange<T>> {
    let reach = reach_probabilities(game, profile);
    let value = subtree_values(game, profile);
    let mut out = Vec::new();
    for (id, set) in game.infosets[player].iter().enumerate() {
        let range = set.action_range();
        if profile.probs[player][range.clone()] == other.probs[player][range.clone()] {
            continue;
        }
        let mut change = T::zero();
        for &h in &set.nodes {
            let h = h as usize;
            if reach[h].is_zero() {
                continue;
            }
            let first = game.nodes[h].first_child as usize;
            let mut inner = T::zero();
            for (k, a) in range.clone().enumerate() {
                let d = other.probs[player][a].clone() - profile.probs[player][a].clone();
                if !d.is_zero() {
                    inner = inner + d * value[first + k].clone();
                }
            }
            change = change + reach[h].clone() * inner;
        }
        if player == 1 {
            change = T::zero() - change;
        }
        out.push(SetChange {
            player,
            infoset: id,
            change,
        });
    }
    out.sort_by(|x, y| {
        let ax = x.change.to_f64().abs();
        let ay = y.change.to_f64().abs();
        ay.partial_cmp(&ax).unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

/// Where two strategies differ at one set: the largest difference of an action's
/// probability, and the set's reach when `a` plays both seats.
#[derive(Clone, Debug, PartialEq)]
pub struct SetDiff<T> {
    /// The set's player.
    pub player: Player,
    /// The set's id among the player's sets.
    pub infoset: usize,
    /// The largest |a - b| over the set's actions.
    pub largest: T,
    /// The probability of reaching the set (chance's and both players' reach) under `a`.
    pub reach: T,
}

/// Every set where `a` and `b` differ, with [`SetDiff`], sorted by `reach * largest`, largest
/// first (ties in the game's order, player 1's sets first).
pub fn diff<T: Scalar>(game: &Game, a: &Profile<T>, b: &Profile<T>) -> Vec<SetDiff<T>> {
    let reach = reach_probabilities(game, a);
    let mut out = Vec::new();
    for p in 0..2 {
        for (id, set) in game.infosets[p].iter().enumerate() {
            let mut largest = T::zero();
            for x in set.action_range() {
                let d = a.probs[p][x].clone() - b.probs[p][x].clone();
                let d = if d < T::zero() { T::zero() - d } else { d };
                if d > largest {
                    largest = d;
                }
            }
            if largest.is_zero() {
                continue;
            }
            let mut r = T::zero();
            for &h in &set.nodes {
                r = r + reach[h as usize].clone();
            }
            out.push(SetDiff {
                player: p,
                infoset: id,
                largest,
                reach: r,
            });
        }
    }
    out.sort_by(|x, y| {
        let kx = x.reach.to_f64() * x.largest.to_f64();
        let ky = y.reach.to_f64() * y.largest.to_f64();
        ky.partial_cmp(&kx).unwrap_or(std::cmp::Ordering::Equal)
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{expected_value, player_value};
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::{rat, Rational};
    use crate::strategy::ExactProfile;

    /// Each set's change equals a second evaluation with that set swapped in.
    #[test]
    fn set_changes_match_a_full_evaluation() {
        let game = kuhn_poker().unwrap();
        let a = ExactProfile::uniform(&game);
        let mut b = a.clone();
        for p in 0..2 {
            for (i, x) in b.probs[p].iter_mut().enumerate() {
                *x = if i % 2 == 0 { rat(1, 3) } else { rat(2, 3) };
            }
        }
        b.probs[0][0] = rat(1, 2);
        b.probs[0][1] = rat(1, 2);
        for p in 0..2 {
            let changes = set_changes(&game, &a, &b, p);
            assert_eq!(changes.len(), game.infosets[p].len() - usize::from(p == 0));
            for c in changes {
                let mut swapped = a.clone();
                let r = game.infosets[p][c.infoset].action_range();
                swapped.probs[p][r.clone()].clone_from_slice(&b.probs[p][r]);
                let want = player_value(&game, &swapped, p) - player_value(&game, &a, p);
                assert_eq!(c.change, want);
            }
        }
        // diff: the first set (P1 "J", reach 1/3) differs by 1/6 everywhere else.
        let d = diff(&game, &a, &b);
        assert!(d.iter().all(|x| x.largest == rat(1, 6)));
        let total: Rational = d.iter().map(|x| x.reach.clone()).sum();
        assert!(total > Rational::from_integer(0.into()));
        let _ = expected_value(&game, &a);
    }
}
