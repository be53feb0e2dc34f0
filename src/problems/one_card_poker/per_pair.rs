//! The reference: the contest write-up's vanilla CFR run on the general per-pair game tree
//! ([`crate::problems::one_card_poker::game`]), one node per card pair and betting history.
//!
//! It works on any [`Game`] (it only reads the flat arena), which lets tests check it on Kuhn
//! poker too. Each iteration is a forward sweep (reach probabilities), a backward sweep (values)
//! and a regret update from strategies frozen at the start of the iteration.

use crate::game::{Game, NodeKind};
use crate::strategy::Profile;

/// Vanilla CFR with simultaneous updates over a game arena, in `f64`.
#[derive(Clone, Debug)]
pub struct ArenaCfr<'g> {
    game: &'g Game,
    iterations: usize,
    regrets: [Vec<f64>; 2],
    average: [Vec<f64>; 2],
    strategy: [Vec<f64>; 2],
    /// Per node: each player's own reach and chance's reach.
    reach: [Vec<f64>; 3],
    /// Per node: player 0's expected payoff below it.
    value: Vec<f64>,
}

impl<'g> ArenaCfr<'g> {
    /// Zero regrets (uniform play) on `game`.
    pub fn new(game: &'g Game) -> Self {
        let nodes = game.nodes.len();
        let actions = game.num_actions;
        ArenaCfr {
            game,
            iterations: 0,
            regrets: [vec![0.0; actions[0]], vec![0.0; actions[1]]],
            average: [vec![0.0; actions[0]], vec![0.0; actions[1]]],
            strategy: [vec![0.0; actions[0]], vec![0.0; actions[1]]],
            reach: std::array::from_fn(|_| vec![0.0; nodes]),
            value: vec![0.0; nodes],
        }
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Runs `k` iterations.
    pub fn run(&mut self, k: usize) {
        for _ in 0..k {
            self.iterate();
        }
    }

    /// One iteration of vanilla CFR.
    pub fn iterate(&mut self) {
        let game = self.game;
        self.iterations += 1;
        for p in 0..2 {
            for set in &game.infosets[p] {
                let range = set.action_range();
                let positive: f64 = self.regrets[p][range.clone()]
                    .iter()
                    .map(|r| r.max(0.0))
                    .sum();
                let k = range.len() as f64;
                for a in range {
                    self.strategy[p][a] = if positive > 0.0 {
                        self.regrets[p][a].max(0.0) / positive
                    } else {
                        1.0 / k
                    };
                }
            }
        }
        for r in &mut self.reach {
            r[0] = 1.0;
        }
        for (node, nd) in game.nodes.iter().enumerate() {
            let parent = [
                self.reach[0][node],
                self.reach[1][node],
                self.reach[2][node],
            ];
            for (k, child) in nd.children().enumerate() {
                let mut r = parent;
                match nd.kind {
                    NodeKind::Chance => r[2] *= game.chance_prob_f64[child],
                    NodeKind::Decision { player, infoset } => {
                        let p = player as usize;
                        let off = game.infosets[p][infoset as usize].action_offset;
                        r[p] *= self.strategy[p][off + k];
                    }
                    NodeKind::Terminal { .. } => unreachable!("terminals have no children"),
                }
                for i in 0..3 {
                    self.reach[i][child] = r[i];
                }
            }
        }
        for node in (0..game.nodes.len()).rev() {
            let nd = &game.nodes[node];
            self.value[node] = match nd.kind {
                NodeKind::Terminal { terminal } => game.terminals[terminal as usize].payoff0_f64,
                NodeKind::Chance => nd
                    .children()
                    .map(|c| game.chance_prob_f64[c] * self.value[c])
                    .sum(),
                NodeKind::Decision { player, infoset } => {
                    let p = player as usize;
                    let off = game.infosets[p][infoset as usize].action_offset;
                    nd.children()
                        .enumerate()
                        .map(|(k, c)| self.strategy[p][off + k] * self.value[c])
                        .sum()
                }
            };
        }
        for (node, nd) in game.nodes.iter().enumerate() {
            if let NodeKind::Decision { player, infoset } = nd.kind {
                let p = player as usize;
                let off = game.infosets[p][infoset as usize].action_offset;
                // Opponent's and chance's reach; player 1's payoff differences are player 0's
                // negated (constant-sum).
                let weight = self.reach[1 - p][node] * self.reach[2][node];
                let sign = if p == 0 { 1.0 } else { -1.0 };
                for (k, c) in nd.children().enumerate() {
                    self.regrets[p][off + k] += sign * weight * (self.value[c] - self.value[node]);
                }
            }
        }
        for p in 0..2 {
            for set in &game.infosets[p] {
                // Perfect recall: the own reach is the same at every node of the set.
                let own = self.reach[p][set.nodes[0] as usize];
                for a in set.action_range() {
                    self.average[p][a] += own * self.strategy[p][a];
                }
            }
        }
    }

    /// The average profile (uniform where a set was never reached).
    pub fn average(&self) -> Profile<f64> {
        let mut probs = self.average.clone();
        for p in 0..2 {
            for set in &self.game.infosets[p] {
                let range = set.action_range();
                let sum: f64 = probs[p][range.clone()].iter().sum();
                let k = range.len() as f64;
                for a in range {
                    probs[p][a] = if sum > 0.0 {
                        probs[p][a] / sum
                    } else {
                        1.0 / k
                    };
                }
            }
        }
        Profile { probs }
    }
}
