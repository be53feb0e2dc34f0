//! What the range-grid report of a spot shows, computed from a strategy held by the engine's
//! evaluator ([`Solver::evaluator`] with every node set by [`Solver::set_average_at`]): per
//! node of the action tree and per hand, the strategy, the reach (the range that arrives),
//! the EV, the equity and the best response's gain.
//!
//! A flop spot's game repeats its turn and river subtrees once per dealt card (per class of
//! cards equivalent under a suit swap, [`super::iso`]), so the report holds per-hand data for
//! a bounded number of decision nodes (`max_nodes`), taken breadth first from the root: the
//! whole first street, then the first decisions after each deal, and deeper as the bound
//! allows. The other nodes are listed as not embedded. Nodes are in the frame of the deals
//! the engine walked; [`ReportNode::deals`] tells, for every card, which walked deal stands
//! for it and the suit swap that maps one onto the other.

use super::cards::{cards_of, Card, CardSet};
use super::eval::{evaluate, HandClass};
use super::iso::SuitPerm;
use super::solver::{GameKind, Solver};
use super::strategy_file::hand_name;
use super::tree::NodeKind;
use serde::Serialize;
use std::collections::VecDeque;

/// The default bound on decision nodes with per-hand data.
pub const DEFAULT_MAX_NODES: usize = 200;

/// The most decision nodes with per-hand data a report may hold.
pub const MAX_MAX_NODES: usize = 20_000;

/// The report's data: the spot, the hands, the embedded nodes.
#[derive(Clone, Debug, Serialize)]
pub struct SpotReport {
    /// The spot's board (`QsJh2h`).
    pub board: String,
    /// The deck's cards.
    pub deck: String,
    /// The starting pot, chips.
    pub pot: i64,
    /// Each player's chips behind at the start.
    pub stack: i64,
    /// Each player's hands (`AhKh`), OOP first: the per-hand arrays follow this order.
    pub hands: [Vec<String>; 2],
    /// Each hand's cell of the 13x13 grid: `row * 13 + column`, aces first; pairs on the
    /// diagonal, suited hands above it, offsuit hands below.
    pub cells: [Vec<u16>; 2],
    /// The suit swaps of the deals ([`ReportNode::deals`] refers to them, 1-based).
    pub perms: Vec<SuitPerm>,
    /// The nodes, the root first.
    pub nodes: Vec<ReportNode>,
    /// The bound on decision nodes with per-hand data.
    pub max_nodes: usize,
    /// Decision nodes with per-hand data.
    pub embedded: usize,
    /// Decision nodes of the game the engine walks (one subtree per class of deals).
    pub decision_nodes: usize,
    /// The root's figures for both players.
    pub root: RootFigures,
}

/// Both players' figures at the root.
#[derive(Clone, Debug, Serialize)]
pub struct RootFigures {
    /// Each player's EV (chips won from the pot less chips put in, as `bluff eval` counts).
    pub ev: [f64; 2],
    /// Each player's best-response gain over the strategy (chips).
    pub gain: [f64; 2],
    /// Each player's share of the pot if both checked down.
    pub equity: [f64; 2],
}

/// A node of the report.
#[derive(Clone, Debug, Serialize)]
pub struct ReportNode {
    /// The node path in the walked deals' frame (`flop:check,bet94,call;turn:8d:check`).
    pub path: String,
    /// `decision`, `chance`, `fold`, `showdown` (on the river) or `allin` (called before it).
    pub kind: &'static str,
    /// The acting player (decision) or the player who folded (fold).
    pub player: Option<usize>,
    /// The street.
    pub street: &'static str,
    /// The board here (walked frame).
    pub board: String,
    /// Chips each player has put in since the root.
    pub committed: [i64; 2],
    /// The actions' names (decision nodes).
    pub actions: Vec<String>,
    /// The child of each action: its index in [`SpotReport::nodes`], `None` when not embedded.
    pub children: Vec<Option<usize>>,
    /// A chance node: every card the deck still holds, in card order (walked frame), with the
    /// node of the deal walked for it (`None`: not embedded) and the 1-based index in
    /// [`SpotReport::perms`] of the suit swap mapping that deal onto this card's (0: the same).
    pub deals: Vec<(String, Option<usize>, u32)>,
    /// Per-hand data of a decision node within the bound.
    pub data: Option<NodeData>,
}

/// Per-hand figures of the acting player at one decision node.
#[derive(Clone, Debug, Serialize)]
pub struct NodeData {
    /// Hand-major: the probabilities of the node's actions for each hand.
    pub strategy: Vec<f64>,
    /// Each hand's range weight times the player's own probabilities of the actions on the
    /// way (0 for a hand holding a dealt card): the range that arrives.
    pub reach: Vec<f64>,
    /// Each hand's EV in chips (won from the pot less every chip put in since the spot's
    /// start) against the opponent's range here; `None` where the hand meets no opponent hand.
    pub ev: Vec<Option<f64>>,
    /// Each hand's equity against the opponent's range here (share of the pot if checked
    /// down); `None` where undefined.
    pub equity: Vec<Option<f64>>,
    /// How much a best response below this node gains over the strategy with each hand
    /// (chips); `None` where the hand meets no opponent hand.
    pub gain: Vec<Option<f64>>,
    /// Each hand's made hand on this board (0 high card .. 8 straight flush).
    pub made: Vec<u8>,
    /// The whole range's figures.
    pub range: RangeFigures,
}

/// The figures of the range arriving at a node.
#[derive(Clone, Debug, Serialize)]
pub struct RangeFigures {
    /// Combos arriving (the sum of the reaches).
    pub weight: f64,
    /// The probability of each action, the hands weighted by their reach.
    pub frequencies: Vec<f64>,
    /// The range's EV (chips): hands weighted by their reach times the opponent's.
    pub ev: f64,
    /// The range's equity, weighted as the EV.
    pub equity: f64,
    /// The best response's gain over the whole range (chips), weighted as the EV.
    pub gain: f64,
}

/// Why a report was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ReportError {
    /// A bound on nodes out of range.
    #[error("--max-nodes {0}: expected 1 to {MAX_MAX_NODES}")]
    MaxNodes(usize),
}

/// The grid cell of a hand: row and column by rank, aces first; suited above the diagonal.
pub fn cell_of(a: Card, b: Card) -> u16 {
    let (hi, lo) = if a.rank() >= b.rank() { (a, b) } else { (b, a) };
    let (r, c) = (12 - hi.rank() as u16, 12 - lo.rank() as u16);
    if hi.suit() == lo.suit() {
        r * 13 + c
    } else {
        c * 13 + r
    }
}

/// The name of grid cell `i` (`AKs`, `QQ`, `T9o`).
pub fn cell_name(i: u16) -> String {
    let ranks = b"AKQJT98765432";
    let (r, c) = ((i / 13) as usize, (i % 13) as usize);
    match r.cmp(&c) {
        std::cmp::Ordering::Equal => format!("{0}{0}", ranks[r] as char),
        std::cmp::Ordering::Less => format!("{}{}s", ranks[r] as char, ranks[c] as char),
        std::cmp::Ordering::Greater => format!("{}{}o", ranks[c] as char, ranks[r] as char),
    }
}

/// Rounds to `d` decimals (what the page shows; keeps the file small).
fn round(x: f64, d: i32) -> f64 {
    let s = 10f64.powi(d);
    (x * s).round() / s
}

fn board_text(b: CardSet) -> String {
    cards_of(b).iter().map(|c| c.to_string()).collect()
}

/// Builds the report's data from `solver` (an evaluator holding the strategy) of the spot
/// whose board reads `spot_board`, with per-hand data for at most `max_nodes` decision nodes
/// taken breadth first.
pub fn build(
    solver: &mut Solver,
    spot_board: &str,
    max_nodes: usize,
) -> Result<SpotReport, ReportError> {
    if max_nodes == 0 || max_nodes > MAX_MAX_NODES {
        return Err(ReportError::MaxNodes(max_nodes));
    }
    let decision_nodes = solver
        .game
        .nodes
        .iter()
        .filter(|n| matches!(n.kind, GameKind::Decision(_)))
        .count();
    // Breadth first: (game node, report parent slot, dealt cards, reaches).
    struct Item {
        g: usize,
        dealt: Vec<Card>,
        reach: [Vec<f64>; 2],
    }
    let mut nodes: Vec<ReportNode> = Vec::new();
    // The parent's report index, the child's slot, and whether the parent deals.
    type Parent = Option<(usize, usize, bool)>;
    let mut queue: VecDeque<(Item, Parent)> = VecDeque::new();
    queue.push_back((
        Item {
            g: 0,
            dealt: Vec::new(),
            reach: solver.game.weights.clone(),
        },
        None,
    ));
    let mut embedded = 0usize;
    let spot_board = spot_board.to_string();
    let mut root = RootFigures {
        ev: [0.0; 2],
        gain: [0.0; 2],
        equity: solver.game.root_equity(),
    };
    while let Some((item, parent)) = queue.pop_front() {
        let game = &solver.game;
        let node = game.nodes[item.g];
        if matches!(node.kind, GameKind::Decision(_)) && embedded >= max_nodes {
            continue;
        }
        let id = nodes.len();
        if let Some((pid, slot, is_deal)) = parent {
            if is_deal {
                // Every card dealt by this walked child points to it.
                for d in nodes[pid].deals.iter_mut() {
                    if d.1 == Some(usize::MAX - slot) {
                        d.1 = Some(id);
                    }
                }
            } else {
                nodes[pid].children[slot] = Some(id);
            }
        }
        let t = game.tree.nodes[node.tree_node as usize];
        let path = game.tree.path(node.tree_node as usize, &item.dealt);
        let (kind, player) = match node.kind {
            GameKind::Decision(a) => ("decision", Some(a as usize)),
            GameKind::Chance => ("chance", None),
            GameKind::Fold(p) => ("fold", Some(p as usize)),
            GameKind::Showdown => ("showdown", None),
            GameKind::AllIn => ("allin", None),
        };
        let actions: Vec<String> = if matches!(t.kind, NodeKind::Decision(_)) {
            t.children()
                .map(|c| {
                    game.tree.nodes[c]
                        .action
                        .map_or(String::new(), |a| a.to_string())
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut deals = Vec::new();
        let kids = node.first_child as usize..(node.first_child + node.num_children) as usize;
        match node.kind {
            GameKind::Decision(a) => {
                let a = a as usize;
                let k = node.num_children as usize;
                let probs = solver.average_at(item.g);
                for (i, c) in kids.clone().enumerate() {
                    let mut reach = item.reach.clone();
                    for (h, r) in reach[a].iter_mut().enumerate() {
                        *r *= probs[h * k + i];
                    }
                    queue.push_back((
                        Item {
                            g: c,
                            dealt: item.dealt.clone(),
                            reach,
                        },
                        Some((id, i, false)),
                    ));
                }
            }
            GameKind::Chance => {
                let left = cards_of(game.deck & !node.board);
                let table = &game.deals[node.aux as usize];
                for (card, &(child, k)) in left.iter().zip(table) {
                    // Filled with the child's report index when it is embedded.
                    deals.push((card.to_string(), Some(usize::MAX - child as usize), k));
                }
                for (i, c) in kids.clone().enumerate() {
                    let card = Card((game.nodes[c].board & !node.board).trailing_zeros() as u8);
                    let mut reach = item.reach.clone();
                    for (p, r) in reach.iter_mut().enumerate() {
                        for (h, x) in r.iter_mut().enumerate() {
                            let (u, v) = game.hands[p][h];
                            if (u.bit() | v.bit()) & card.bit() != 0 {
                                *x = 0.0;
                            }
                        }
                    }
                    let mut dealt = item.dealt.clone();
                    dealt.push(card);
                    queue.push_back((Item { g: c, dealt, reach }, Some((id, i, true))));
                }
            }
            _ => {}
        }
        let data = match node.kind {
            GameKind::Decision(a) => {
                embedded += 1;
                let a = a as usize;
                let d = node_data(solver, item.g, a, &item.reach);
                if item.g == 0 {
                    root.ev[a] = d.range.ev;
                    root.gain[a] = d.range.gain;
                    let o = 1 - a;
                    let v = solver.node_values(0, o, [&item.reach[0], &item.reach[1]]);
                    let (ev, gain) = range_values(&v, &item.reach[o]);
                    root.ev[o] = ev;
                    root.gain[o] = gain;
                }
                Some(d)
            }
            _ => None,
        };
        nodes.push(ReportNode {
            path,
            kind,
            player,
            street: t.street.name(),
            board: spot_board.clone()
                + &item.dealt.iter().map(|c| c.to_string()).collect::<String>(),
            committed: t.committed,
            children: vec![None; actions.len()],
            actions,
            deals,
            data,
        });
    }
    // Deals whose walked child is not embedded.
    for n in &mut nodes {
        for d in &mut n.deals {
            if d.1.is_some_and(|x| x > usize::MAX / 2) {
                d.1 = None;
            }
        }
    }
    let game = &solver.game;
    Ok(SpotReport {
        board: spot_board,
        deck: board_text(game.deck),
        pot: game.tree.pot,
        stack: game.tree.stack,
        hands: [0, 1].map(|p| game.hands[p].iter().map(|&h| hand_name(h)).collect()),
        cells: [0, 1].map(|p| game.hands[p].iter().map(|&(a, b)| cell_of(a, b)).collect()),
        perms: game.symmetries.perms.clone(),
        nodes,
        max_nodes,
        embedded,
        decision_nodes,
        root,
    })
}

/// The range's EV and best-response gain from per-hand values and the player's reach.
fn range_values(v: &super::solver::NodeValues, reach: &[f64]) -> (f64, f64) {
    let (mut z, mut ev, mut br) = (0.0, 0.0, 0.0);
    for h in 0..reach.len() {
        z += reach[h] * v.norm[h];
        ev += reach[h] * v.average[h];
        br += reach[h] * v.best_response[h];
    }
    if z > 0.0 {
        (ev / z, (br - ev) / z)
    } else {
        (f64::NAN, f64::NAN)
    }
}

/// The acting player's per-hand data at decision node `g`.
fn node_data(solver: &mut Solver, g: usize, a: usize, reach: &[Vec<f64>; 2]) -> NodeData {
    let node = solver.game.nodes[g];
    let k = node.num_children as usize;
    let probs = solver.average_at(g);
    let v = solver.node_values(g, a, [&reach[0], &reach[1]]);
    let game = &solver.game;
    let equity = game.equity_on(a, node.board, &reach[1 - a]);
    let n = game.hands[a].len();
    let per = |x: f64, nrm: f64| (nrm > 0.0).then(|| round(x / nrm, 4));
    let mut freq = vec![0.0; k];
    let (mut weight, mut zeq, mut eq) = (0.0, 0.0, 0.0);
    for h in 0..n {
        let r = reach[a][h];
        weight += r;
        for (c, f) in freq.iter_mut().enumerate() {
            *f += r * probs[h * k + c];
        }
        if equity[h].is_finite() {
            zeq += r * v.norm[h];
            eq += r * v.norm[h] * equity[h];
        }
    }
    for f in &mut freq {
        *f = if weight > 0.0 {
            round(*f / weight, 6)
        } else {
            0.0
        };
    }
    let (ev, gain) = range_values(&v, &reach[a]);
    let made = game.hands[a]
        .iter()
        .map(|&(x, y)| {
            let set = node.board | x.bit() | y.bit();
            if set.count_ones() == node.board.count_ones() + 2 {
                evaluate(set).class() as u8
            } else {
                HandClass::HighCard as u8
            }
        })
        .collect();
    NodeData {
        strategy: probs.iter().map(|&x| round(x, 4)).collect(),
        reach: reach[a].iter().map(|&x| round(x, 5)).collect(),
        ev: (0..n).map(|h| per(v.average[h], v.norm[h])).collect(),
        equity: equity
            .iter()
            .map(|&e| e.is_finite().then(|| round(e, 4)))
            .collect(),
        gain: (0..n)
            .map(|h| per(v.best_response[h] - v.average[h], v.norm[h]))
            .collect(),
        made,
        range: RangeFigures {
            weight,
            frequencies: freq,
            ev,
            equity: if zeq > 0.0 { eq / zeq } else { f64::NAN },
            gain,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holdem::range::{combo_cards, NUM_COMBOS};

    #[test]
    fn the_1326_combos_fill_the_169_cells_as_the_grid_says() {
        let mut count = [0usize; 169];
        for i in 0..NUM_COMBOS {
            let (a, b) = combo_cards(i);
            let cell = cell_of(a, b);
            count[cell as usize] += 1;
            // The cell's name is the hand's class: ranks high first, `s` or `o`.
            let name = cell_name(cell);
            let (hi, lo) = if a.rank() >= b.rank() { (a, b) } else { (b, a) };
            let ranks = format!("{}{}", hi.to_string().remove(0), lo.to_string().remove(0));
            assert!(name.starts_with(&ranks), "{a}{b} in {name}");
            match name.len() {
                2 => assert_eq!(a.rank(), b.rank()),
                _ => assert_eq!(
                    name.ends_with('s'),
                    a.suit() == b.suit(),
                    "{a}{b} in {name}"
                ),
            }
        }
        for (i, &n) in count.iter().enumerate() {
            let (r, c) = (i / 13, i % 13);
            let expected = match r.cmp(&c) {
                std::cmp::Ordering::Equal => 6,
                std::cmp::Ordering::Less => 4,
                std::cmp::Ordering::Greater => 12,
            };
            assert_eq!(n, expected, "cell {}", cell_name(i as u16));
        }
        assert_eq!(cell_name(0), "AA");
        assert_eq!(cell_name(1), "AKs");
        assert_eq!(cell_name(13), "AKo");
        assert_eq!(cell_name(168), "22");
    }
}
