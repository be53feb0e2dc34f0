//! Every terminal node's chance-weighted payoff to player 0, as integers over one common
//! denominator, with both players' last sequences there: the input of the sequence-form LP's
//! payoff matrix ([`crate::exact::sequence_form::build_lp`]) and of its exact certificate
//! ([`crate::exact::plan_certificate`]).
//!
//! Multiplying and adding reduced rationals node by node costs a gcd per operation, which made
//! this sweep the largest part of building the LP. Here a node's chance reach is an id into a
//! table of the distinct reach values (a child's reach is computed once per distinct
//! (parent reach, probability) pair; games repeat both), the distinct reaches and the distinct
//! terminal payoffs are each brought to one denominator once, and a terminal's weight is the
//! product of two integers. No gcd is taken per node.

use crate::game::{Game, NodeKind};
use crate::scalar::{over_common_denominator, Rational};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::HashMap;

/// One terminal node with a non-zero weight.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct WeightedTerminal {
    /// The node.
    pub node: u32,
    /// Player 0's and player 1's last sequence on the path to it (0 = empty sequence).
    pub seq: [u32; 2],
    /// Chance reach times the player's payoff (player 0's unless built by
    /// [`TerminalWeights::for_player`]), times [`TerminalWeights::denom`].
    pub weight: BigInt,
}

/// Terminal weights over one denominator: node `t.node` contributes `t.weight / denom`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TerminalWeights {
    /// The common denominator (positive; not necessarily the least one).
    pub denom: BigInt,
    /// The terminals of non-zero weight, in arena order.
    pub terminals: Vec<WeightedTerminal>,
}

impl TerminalWeights {
    /// Computes the weights of `game` (player 0's payoffs) in one forward sweep over its arena.
    pub fn new(game: &Game) -> Self {
        Self::for_player(game, 0)
    }

    /// [`TerminalWeights::new`] with `player`'s payoffs ([`Game::payoff`]) as the weights.
    pub fn for_player(game: &Game, player: usize) -> Self {
        let nodes = &game.nodes;
        // Distinct chance reaches; id 0 is the root's reach 1.
        let mut reaches: Vec<Rational> = vec![Rational::one()];
        let mut reach_of: HashMap<(u32, u32), u32> = HashMap::new();
        let mut reach = vec![0u32; nodes.len()];
        let mut seq = vec![[0u32; 2]; nodes.len()];
        let mut found: Vec<(u32, u32, [u32; 2])> = Vec::new();
        for node in 0..nodes.len() {
            let nd = &nodes[node];
            match nd.kind {
                NodeKind::Terminal { terminal } => {
                    found.push((node as u32, terminal, seq[node]));
                }
                NodeKind::Chance => {
                    let r = reach[node];
                    for child in nd.children() {
                        seq[child] = seq[node];
                        let p = game.chance_prob.id_at(child);
                        let next = reaches.len() as u32;
                        let id = *reach_of.entry((r, p)).or_insert(next);
                        if id == next {
                            reaches.push(&reaches[r as usize] * &game.chance_prob[child]);
                        }
                        reach[child] = id;
                    }
                }
                NodeKind::Decision { player, infoset } => {
                    let set = &game.infosets[player as usize][infoset as usize];
                    for (k, child) in nd.children().enumerate() {
                        seq[child] = seq[node];
                        seq[child][player as usize] = (1 + set.action_offset + k) as u32;
                        reach[child] = reach[node];
                    }
                }
            }
        }
        let payoffs: Vec<Rational> = if player == 0 {
            game.terminals.iter().map(|t| t.payoff0.clone()).collect()
        } else {
            (0..game.terminals.len())
                .map(|t| game.payoff(t, player))
                .collect()
        };
        let (dr, nr) = over_common_denominator(&reaches);
        let (dp, np) = over_common_denominator(&payoffs);
        // Products of two 64-bit integers fit in 128 bits, which spares a big-integer product
        // per terminal in the common case.
        let small = |v: &[BigInt]| {
            v.iter()
                .map(ToPrimitive::to_i64)
                .collect::<Option<Vec<_>>>()
        };
        let weight: Box<dyn Fn(usize, usize) -> BigInt> = match (small(&nr), small(&np)) {
            (Some(r), Some(p)) => {
                Box::new(move |a, b| BigInt::from(i128::from(r[a]) * i128::from(p[b])))
            }
            _ => Box::new(|a, b| &nr[a] * &np[b]),
        };
        let terminals = found
            .into_iter()
            .filter(|&(node, t, _)| {
                !nr[reach[node as usize] as usize].is_zero() && !np[t as usize].is_zero()
            })
            .map(|(node, t, seq)| WeightedTerminal {
                node,
                seq,
                weight: weight(reach[node as usize] as usize, t as usize),
            })
            .collect();
        TerminalWeights {
            denom: dr * dp,
            terminals,
        }
    }

    /// The sequence-form payoff matrix `A[s][t]`: the summed weights of the terminals reached
    /// by player 0's sequence `s` and player 1's `t`, as `((t, s), A)` in ascending `(t, s)`
    /// order, zeros left out; each entry reduced once.
    pub fn payoff_matrix(&self) -> Vec<((u32, u32), Rational)> {
        let mut cells: Vec<(u64, &BigInt)> = self
            .terminals
            .iter()
            .map(|t| ((u64::from(t.seq[1]) << 32) | u64::from(t.seq[0]), &t.weight))
            .collect();
        cells.sort_unstable_by_key(|&(key, _)| key);
        let mut out = Vec::new();
        let mut i = 0;
        while i < cells.len() {
            let key = cells[i].0;
            let mut j = i + 1;
            while j < cells.len() && cells[j].0 == key {
                j += 1;
            }
            let sum: BigInt = if j == i + 1 {
                cells[i].1.clone()
            } else {
                cells[i..j].iter().map(|&(_, w)| w).sum()
            };
            if !sum.is_zero() {
                out.push((((key >> 32) as u32, key as u32), reduced(sum, &self.denom)));
            }
            i = j;
        }
        out
    }
}

/// `n / d` reduced (`d > 0`), by a machine-word gcd when both fit in 64 bits.
pub(crate) fn reduced(n: BigInt, d: &BigInt) -> Rational {
    if let (Some(a), Some(b)) = (n.to_i64(), d.to_i64()) {
        let g = a.unsigned_abs().gcd(&b.unsigned_abs());
        if g > 0 {
            let g = g as i64;
            return Rational::new_raw(BigInt::from(a / g), BigInt::from(b / g));
        }
    }
    debug_assert!(d.is_positive());
    Rational::new(n, d.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The weights against the rational sweep they replace: chance reach times payoff per
    /// terminal, summed per sequence pair in rationals.
    #[test]
    fn payoff_matrix_matches_the_rational_sweep() {
        for spec in [
            "kuhn",
            "leduc",
            "liars-dice(dice=1,sides=3)",
            "one-card-poker(n=5,a=2,b=1)",
            "goofspiel(cards=3,order=random,returns=win-loss)",
        ] {
            let game = crate::games::builtin(spec).unwrap();
            let nodes = &game.nodes;
            let mut seq = vec![[0u32; 2]; nodes.len()];
            let mut chance = vec![Rational::one(); nodes.len()];
            let mut expected: std::collections::BTreeMap<(u32, u32), Rational> = Default::default();
            for node in 0..nodes.len() {
                let nd = &nodes[node];
                match nd.kind {
                    NodeKind::Terminal { terminal } => {
                        let v = &chance[node] * &game.terminals[terminal as usize].payoff0;
                        let [s, t] = seq[node];
                        *expected.entry((t, s)).or_insert_with(Rational::zero) += v;
                    }
                    NodeKind::Chance => {
                        for c in nd.children() {
                            seq[c] = seq[node];
                            chance[c] = &chance[node] * &game.chance_prob[c];
                        }
                    }
                    NodeKind::Decision { player, infoset } => {
                        let set = &game.infosets[player as usize][infoset as usize];
                        for (k, c) in nd.children().enumerate() {
                            seq[c] = seq[node];
                            seq[c][player as usize] = (1 + set.action_offset + k) as u32;
                            chance[c] = chance[node].clone();
                        }
                    }
                }
            }
            expected.retain(|_, v| !v.is_zero());
            let got = TerminalWeights::new(&game).payoff_matrix();
            assert_eq!(got, expected.into_iter().collect::<Vec<_>>(), "{spec}");
        }
    }

    #[test]
    fn reduced_agrees_with_rational_new_small_and_big() {
        let big = BigInt::from(3u8).pow(50u32);
        for (n, d) in [
            (BigInt::from(-6), BigInt::from(4)),
            (BigInt::from(0), BigInt::from(7)),
            (BigInt::from(i64::MIN), BigInt::from(2)),
            (&big * 2, &big * 4),
            (BigInt::from(5), big.clone()),
        ] {
            assert_eq!(reduced(n.clone(), &d), Rational::new(n, d));
        }
    }
}
