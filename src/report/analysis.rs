//! The numbers behind a report: summary figures and, for every information set, its reach,
//! the best response's action and the local regret. Generic over [`Scalar`], so an exact
//! strategy is analysed in rationals and a large float one in `f64`.

use crate::eval::{best_response, exploitability};
use crate::game::{Game, NodeKind};
use crate::scalar::{format_rational, Rational, Scalar};
use crate::strategy::Profile;
use std::cmp::Ordering;

/// A number shown in the report: its `f64` value and, when computed exactly, the exact text.
#[derive(Clone, Debug, PartialEq)]
pub struct Num {
    /// The value as a decimal (the exact value rounded when `exact` is set).
    pub float: f64,
    /// The exact rational as `p/q`, when the computation was exact.
    pub exact: Option<String>,
}

/// Converts a scalar to a [`Num`]; `exact` says whether `T` computes exactly.
pub trait ToNum {
    /// The report form of this number.
    fn to_num(&self) -> Num;
}

impl ToNum for f64 {
    fn to_num(&self) -> Num {
        Num {
            float: *self,
            exact: None,
        }
    }
}

impl ToNum for Rational {
    fn to_num(&self) -> Num {
        Num {
            float: crate::scalar::rational_to_f64(self),
            exact: Some(format_rational(self)),
        }
    }
}

/// Values, best-response values, NashConv and exploitability of the profile.
#[derive(Clone, Debug)]
pub struct Evaluation {
    /// `true` when every figure was computed in exact rationals.
    pub exact: bool,
    /// Each player's expected payoff under the profile.
    pub value: [Num; 2],
    /// Each player's payoff when best-responding to the other.
    pub best_response_value: [Num; 2],
    /// Sum over players of what a best response gains.
    pub nash_conv: Num,
    /// NashConv / 2.
    pub exploitability: Num,
}

/// One information set's row of the report table.
#[derive(Clone, Debug)]
pub struct InfosetRow {
    /// Acting player (0 or 1).
    pub player: usize,
    /// Dense id among the player's sets.
    pub id: usize,
    /// The set's label.
    pub label: String,
    /// Action labels.
    pub actions: Vec<String>,
    /// The profile's action probabilities.
    pub probs: Vec<f64>,
    /// Probability of reaching the set when everybody follows the profile.
    pub reach: Num,
    /// The best response's action (local index) at this set.
    pub best_response_action: usize,
    /// What the acting player gains by changing its play at this set alone (best single action
    /// there, everything else kept): own reach times (best counterfactual action value minus the
    /// counterfactual value of the profile's mix).
    pub local_regret: Num,
}

/// The whole analysis of a profile.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Summary figures.
    pub evaluation: Evaluation,
    /// One row per information set of both players, biggest local regret first (ties: player,
    /// then id).
    pub rows: Vec<InfosetRow>,
}

/// Evaluates `profile` and analyses every information set, in the scalar type `T`.
pub fn analyse<T: Scalar + ToNum>(game: &Game, profile: &Profile<T>, exact: bool) -> Analysis {
    let e = exploitability(game, profile);
    let evaluation = Evaluation {
        exact,
        value: [e.value[0].to_num(), e.value[1].to_num()],
        best_response_value: [
            e.best_response_value[0].to_num(),
            e.best_response_value[1].to_num(),
        ],
        nash_conv: e.nash_conv.to_num(),
        exploitability: e.exploitability.to_num(),
    };
    let n = game.nodes.len();
    // Forward sweep (parents come before children): chance reach and each player's own reach.
    let mut chance = vec![T::zero(); n];
    let mut own = [vec![T::zero(); n], vec![T::zero(); n]];
    chance[0] = T::one();
    own[0][0] = T::one();
    own[1][0] = T::one();
    for node in 0..n {
        let nd = &game.nodes[node];
        for (k, child) in nd.children().enumerate() {
            chance[child] = chance[node].clone();
            own[0][child] = own[0][node].clone();
            own[1][child] = own[1][node].clone();
            match nd.kind {
                NodeKind::Chance => {
                    chance[child] =
                        chance[child].clone() * T::from_rational(&game.chance_prob[child])
                }
                NodeKind::Decision { player, infoset } => {
                    let p = player as usize;
                    let set = &game.infosets[p][infoset as usize];
                    own[p][child] =
                        own[p][child].clone() * profile.probs[p][set.action_offset + k].clone();
                }
                NodeKind::Terminal { .. } => {}
            }
        }
    }
    // Backward sweep: player 0's expected payoff below each node under the profile.
    let mut value = vec![T::zero(); n];
    for node in (0..n).rev() {
        let nd = &game.nodes[node];
        value[node] = match nd.kind {
            NodeKind::Terminal { terminal } => {
                T::from_rational(&game.terminals[terminal as usize].payoff0)
            }
            NodeKind::Chance => {
                let mut v = T::zero();
                for child in nd.children() {
                    v = v + T::from_rational(&game.chance_prob[child]) * value[child].clone();
                }
                v
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                let mut v = T::zero();
                for (k, child) in nd.children().enumerate() {
                    v = v + profile.probs[player as usize][set.action_offset + k].clone()
                        * value[child].clone();
                }
                v
            }
        };
    }
    let constant = T::from_rational(&game.constant_sum);
    let mut rows: Vec<(InfosetRow, T)> = Vec::with_capacity(game.num_infosets());
    for p in 0..2 {
        let br = best_response(game, profile, p);
        for (id, set) in game.infosets[p].iter().enumerate() {
            let mut cfv = vec![T::zero(); set.actions.len()];
            let mut reach = T::zero();
            for &h in &set.nodes {
                let h = h as usize;
                let opp = chance[h].clone() * own[1 - p][h].clone();
                if opp.is_zero() {
                    continue;
                }
                reach = reach + opp.clone() * own[p][h].clone();
                let first = game.nodes[h].first_child as usize;
                for (a, q) in cfv.iter_mut().enumerate() {
                    let v0 = value[first + a].clone();
                    let u = if p == 0 { v0 } else { constant.clone() - v0 };
                    *q = q.clone() + opp.clone() * u;
                }
            }
            let probs = profile.infoset_probs(game, p, id);
            let mut mix = T::zero();
            let mut best: Option<T> = None;
            for (a, q) in cfv.iter().enumerate() {
                mix = mix + probs[a].clone() * q.clone();
                if best.as_ref().is_none_or(|b| q > b) {
                    best = Some(q.clone());
                }
            }
            // Perfect recall: the player's own reach is the same at every node of the set.
            let own_reach = set
                .nodes
                .first()
                .map_or(T::zero(), |&h| own[p][h as usize].clone());
            let mut regret = own_reach * (best.unwrap_or_else(T::zero) - mix);
            if regret < T::zero() {
                // Only f64 rounding can make it negative: the best action is at least the mix.
                regret = T::zero();
            }
            rows.push((
                InfosetRow {
                    player: p,
                    id,
                    label: set.label.clone(),
                    actions: set.actions.to_vec(),
                    probs: probs.iter().map(|x| x.to_f64()).collect(),
                    reach: reach.to_num(),
                    best_response_action: br.actions[id],
                    local_regret: regret.to_num(),
                },
                regret,
            ));
        }
    }
    rows.sort_by(|(a, ra), (b, rb)| {
        rb.partial_cmp(ra)
            .unwrap_or(Ordering::Equal)
            .then(a.player.cmp(&b.player))
            .then(a.id.cmp(&b.id))
    });
    Analysis {
        evaluation,
        rows: rows.into_iter().map(|(r, _)| r).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::player_value;
    use crate::scalar::{rat, Rational};
    use crate::strategy::ExactProfile;

    /// Local regret by its definition: replay the whole game with one set switched to each
    /// pure action in turn and keep the best gain.
    fn brute_force_regret(game: &Game, profile: &ExactProfile, p: usize, id: usize) -> Rational {
        let base = player_value(game, profile, p);
        let set = &game.infosets[p][id];
        let mut best = Rational::from_integer(0.into());
        for k in 0..set.actions.len() {
            let mut dev = profile.clone();
            for (j, a) in set.action_range().enumerate() {
                dev.probs[p][a] = rat(i64::from(j == k), 1);
            }
            let gain = player_value(game, &dev, p) - &base;
            if gain > best {
                best = gain;
            }
        }
        best
    }

    /// A lopsided profile: the first action gets 1/7 of the weight, the others share the rest.
    fn lopsided(game: &Game) -> ExactProfile {
        let mut prof = ExactProfile::uniform(game);
        for p in 0..2 {
            for set in &game.infosets[p] {
                let n = set.actions.len() as i64;
                for (j, a) in set.action_range().enumerate() {
                    prof.probs[p][a] = if j == 0 {
                        rat(1, 7)
                    } else {
                        rat(6, 7 * (n - 1))
                    };
                }
            }
        }
        prof
    }

    #[test]
    fn local_regret_and_reach_match_brute_force_on_kuhn_and_baby_poker() {
        for game in [
            crate::games::kuhn::kuhn_poker().unwrap(),
            crate::games::builtin("baby-poker(sides=4,raise=2)").unwrap(),
        ] {
            let prof = lopsided(&game);
            let a = analyse(&game, &prof, true);
            assert_eq!(a.rows.len(), game.num_infosets());
            let reach = crate::eval::reach_probabilities(&game, &prof);
            for row in &a.rows {
                let want = brute_force_regret(&game, &prof, row.player, row.id);
                assert_eq!(
                    row.local_regret.exact.as_deref(),
                    Some(format_rational(&want).as_str()),
                    "{}",
                    row.label
                );
                let set = &game.infosets[row.player][row.id];
                let r: Rational = set.nodes.iter().map(|&h| reach[h as usize].clone()).sum();
                assert_eq!(
                    row.reach.exact.as_deref(),
                    Some(format_rational(&r).as_str())
                );
            }
            // Sorted by local regret, biggest first.
            assert!(a
                .rows
                .windows(2)
                .all(|w| w[0].local_regret.float >= w[1].local_regret.float));
            // The f64 analysis agrees with the exact one.
            let f = analyse(&game, &prof.to_f64(), false);
            assert!((f.evaluation.nash_conv.float - a.evaluation.nash_conv.float).abs() < 1e-12);
        }
    }

    #[test]
    fn kuhn_equilibrium_has_no_leak_and_known_reaches() {
        let game = crate::games::kuhn::kuhn_poker().unwrap();
        let s = crate::exact::solve_exact(&game).unwrap();
        let a = analyse(&game, &s.profile, true);
        assert_eq!(a.evaluation.nash_conv.exact.as_deref(), Some("0"));
        assert_eq!(a.evaluation.value[0].exact.as_deref(), Some("-1/18"));
        for row in &a.rows {
            assert_eq!(
                row.local_regret.exact.as_deref(),
                Some("0"),
                "{}",
                row.label
            );
        }
        // Player 1's first decision is reached with the chance of its card, 1/3.
        for card in ["J", "Q", "K"] {
            let row = a
                .rows
                .iter()
                .find(|r| r.player == 0 && r.label == card)
                .unwrap();
            assert_eq!(row.reach.exact.as_deref(), Some("1/3"));
        }
    }
}
