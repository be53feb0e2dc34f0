//! Values at one node of the game under the average strategies: what the range-grid report
//! shows per hand (EV, best-response gain, equity), from the same walks as
//! [`Solver::values`].

use super::{AnyShared, GameKind, Mode, Solver};
use crate::holdem::cards::{cards_of, CardSet};

/// The acting player's values at one decision node, per hand, as sums over the opponent's
/// hands weighted by the opponent's reach (divide by `norm` for chips per hand).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeValues {
    /// The player whose values these are.
    pub player: usize,
    /// Counterfactual values when both play their average strategies.
    pub average: Vec<f64>,
    /// Counterfactual values when `player` best-responds below the node.
    pub best_response: Vec<f64>,
    /// The opponent's reach summed over its hands sharing no card with each hand.
    pub norm: Vec<f64>,
}

impl Solver {
    /// Player `p`'s values at game node `g` (any node), given both players' reaches there
    /// (`reach[q][h]`: hand `h`'s range weight times `q`'s own probabilities of the actions on
    /// the way, 0 for a hand holding a card dealt on the way): one walk with both players on
    /// their average strategies and one with `p` best-responding.
    pub fn node_values(&mut self, g: usize, p: usize, reach: [&[f64]; 2]) -> NodeValues {
        let sh = self.shared();
        let this = &*self;
        let walk = |mode: Mode| {
            let mut out = vec![0.0; this.game.hands[p].len()];
            let (own, opp) = (reach[p], reach[1 - p]);
            match sh {
                AnyShared::F32(sh) => this.run(|| this.walk(sh, g, p, mode, own, opp, &mut out)),
                AnyShared::F64(sh) => this.run(|| this.walk(sh, g, p, mode, own, opp, &mut out)),
                AnyShared::Compressed(sh) => {
                    this.run(|| this.walk(sh, g, p, mode, own, opp, &mut out))
                }
            }
            out
        };
        let average = walk(Mode::Average);
        let best_response = walk(Mode::BestResponse);
        let mut norm = vec![0.0; self.game.hands[p].len()];
        self.game.folds[p].sums(reach[1 - p], &mut norm);
        NodeValues {
            player: p,
            average,
            best_response,
            norm,
        }
    }

    /// Whether game node `g` is a decision node.
    pub fn is_decision(&self, g: usize) -> bool {
        matches!(self.game.nodes[g].kind, GameKind::Decision(_))
    }
}

impl super::Game {
    /// Player `p`'s equity per hand on `board` (3 to 5 cards) against the opponent's hands
    /// weighted by `opp_reach`: its share of the pot if the hand were checked down, the rest
    /// of the board dealt uniformly, ties split; `NaN` for a hand that meets no opponent hand
    /// (or holds a board card).
    pub fn equity_on(&self, p: usize, board: CardSet, opp_reach: &[f64]) -> Vec<f64> {
        let n = self.hands[p].len();
        let (mut tot, mut diff) = (vec![0.0; n], vec![0.0; n]);
        let (mut t1, mut d1) = (vec![0.0; n], vec![0.0; n]);
        for (i, river) in self.river_boards().into_iter().enumerate() {
            if river & board != board {
                continue;
            }
            let sd = &self.showdowns[i][p];
            sd.totals(opp_reach, &mut t1);
            sd.sums(opp_reach, &mut d1);
            for h in 0..n {
                tot[h] += t1[h];
                diff[h] += d1[h];
            }
        }
        (0..n)
            .map(|h| {
                let blocked = (self.hands[p][h].0.bit() | self.hands[p][h].1.bit()) & board != 0;
                if blocked || tot[h] <= 0.0 {
                    f64::NAN
                } else {
                    0.5 * (tot[h] + diff[h]) / tot[h]
                }
            })
            .collect()
    }

    /// The river boards of the showdown table, in its order (as [`super::Game::build`] lists
    /// them).
    fn river_boards(&self) -> Vec<CardSet> {
        let left = cards_of(self.deck & !self.board);
        let board = self.board;
        match board.count_ones() {
            5 => vec![board],
            4 => left.iter().map(|c| board | c.bit()).collect(),
            _ => {
                let mut v = Vec::new();
                for (i, a) in left.iter().enumerate() {
                    for b in &left[i + 1..] {
                        v.push(board | a.bit() | b.bit());
                    }
                }
                v
            }
        }
    }
}
