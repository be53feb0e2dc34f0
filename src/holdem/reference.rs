//! The independent route: a spot built as an ordinary bluff game (the arena [`Game`]), which
//! the CFR kernels, the exact LP and the best-response evaluator run on as on any other game.
//!
//! It shares only the public action tree ([`Tree`]: bet sizes, node paths) and the hand
//! evaluator with the spot engine, and states the game from the spot's definition directly:
//! - the root is a chance node dealing both hands at once, each pair `(h, h')` of combos that
//!   share no card (with each other, the board, or the cards outside the deck) with
//!   probability `w_oop(h) w_ip(h') / S`, `S` the sum over all such pairs;
//! - each chance node of the tree deals the next board card uniformly over the deck's cards
//!   not on the board, not dealt and in neither hand; an all-in called before the river deals
//!   the rest of the board the same way before the showdown;
//! - a player's information set is its hand and the public path (`AhKh|flop:check,bet94`);
//! - payoffs are chips collected from the pot minus chips put in after the root, with the rake
//!   `min(rake x final pot, rake_cap)` (the final pot counting the called chips: an uncalled
//!   bet goes back) paid by the winner and shared on a tie. Unraked the payoffs add to the
//!   starting pot at every terminal (a constant-sum game); raked, the game is general-sum.
//!
//! Probabilities, payoffs and the rake are exact rationals: weights and the rake are read as
//! the decimals they print as (`0.45` is 45/100).

use super::cards::{cards_of, Card, CardSet};
use super::eval::evaluate;
use super::range::Combo;
use super::spot::Spot;
use super::tree::{NodeKind as TreeKind, Tree};
use super::HoldemError;
use crate::cfr::{CfrSolver, RegretParams};
use crate::eval;
use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::{int, parse_rational, Rational};
use crate::strategy::Profile;
use num_traits::Zero;
use std::collections::HashMap;

/// The default limit on the game's nodes (about 125 bytes each once built).
pub const DEFAULT_MAX_NODES: u64 = 5_000_000;

/// Why a spot was not built as a game, or not solved on this route.
#[derive(Debug, thiserror::Error)]
pub enum ReferenceError {
    /// The spot's action tree was refused.
    #[error(transparent)]
    Tree(#[from] HoldemError),
    /// The game would be larger than the limit (counted before building).
    #[error("the spot as a game has {nodes} nodes, above the limit of {limit}")]
    TooBig {
        /// Nodes the game would have (saturated at `u64::MAX`).
        nodes: u64,
        /// The limit.
        limit: u64,
    },
    /// No pair of hands, or not enough cards left to deal the board.
    #[error("{0}")]
    Empty(String),
    /// A weight or the rake that does not print as a decimal (cannot happen for a parsed spot).
    #[error("{0} is not a finite decimal")]
    Number(f64),
    /// The builder refused the game (a bug: the game is built to its contract).
    #[error("building the game: {0}")]
    Game(#[from] GameError),
    /// CFR on a raked (general-sum) spot.
    #[error("CFR on this route needs an unraked spot: with rake the game is general-sum")]
    Raked,
}

/// Where an information set of the game sits in the spot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetPlace {
    /// The node of the public tree.
    pub node: usize,
    /// The board cards dealt after the spot's board on the way, in order.
    pub dealt: Vec<Card>,
    /// The player's hand, lower card first.
    pub hand: (Card, Card),
}

/// A spot built as a game.
#[derive(Clone, Debug)]
pub struct Reference {
    /// The game.
    pub game: Game,
    /// The spot's public tree.
    pub tree: Tree,
    /// For each player, where each information set (by its id in `game.infosets[p]`) sits.
    pub places: [Vec<SetPlace>; 2],
    /// The starting pot in chips.
    pub pot: i64,
}

/// The pairs of combos sharing no card, as indices into the two combo lists.
fn compatible_pairs(spot: &Spot) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, a) in spot.combos[0].iter().enumerate() {
        for (j, b) in spot.combos[1].iter().enumerate() {
            if a.set() & b.set() == 0 {
                out.push((i, j));
            }
        }
    }
    out
}

/// The cards the deck holds besides the board.
fn free_cards(spot: &Spot) -> u64 {
    u64::from((spot.deck.cards() & !spot.board.set()).count_ones())
}

/// The number of nodes of the game, counted from the tree without building it (saturating).
pub fn num_nodes(spot: &Spot, tree: &Tree) -> u64 {
    let pairs = compatible_pairs(spot).len() as u64;
    num_nodes_with(spot, tree, pairs)
}

fn num_nodes_with(spot: &Spot, tree: &Tree, pairs: u64) -> u64 {
    // Cards left for the k-th card dealt after the board: free - 4 - k.
    let left = |k: usize| free_cards(spot).saturating_sub(4 + k as u64);
    let board = spot.board.len();
    // Per tree node: how many copies (one per deal of the cards above it), and the cards dealt.
    let mut copies = vec![0u64; tree.nodes.len()];
    let mut dealt = vec![0usize; tree.nodes.len()];
    copies[0] = 1;
    let mut per_pair = 0u64;
    for (i, n) in tree.nodes.iter().enumerate() {
        let mut here = copies[i];
        if n.kind == TreeKind::Showdown {
            // The rest of the board dealt before the showdown: one chance node per missing
            // card level, then the terminals.
            let mut level = 1u64;
            for k in dealt[i]..5 - board {
                level = level.saturating_mul(left(k));
                here = here.saturating_add(copies[i].saturating_mul(level));
            }
        }
        per_pair = per_pair.saturating_add(here);
        for c in n.children() {
            let deal = n.kind == TreeKind::Chance;
            dealt[c] = dealt[i] + usize::from(deal);
            copies[c] = if deal {
                copies[i].saturating_mul(left(dealt[i]))
            } else {
                copies[i]
            };
        }
    }
    1u64.saturating_add(pairs.saturating_mul(per_pair))
}

/// An `f64` read as the decimal it prints as, exactly.
fn decimal(x: f64) -> Result<Rational, ReferenceError> {
    parse_rational(&format!("{x}")).ok_or(ReferenceError::Number(x))
}

/// A combo as text, higher card first (`AhKh`).
fn hand_text(c: &Combo) -> String {
    format!("{}{}", c.hi, c.lo)
}

/// What is left to do at a node of the game under construction.
struct Work {
    at: NodeRef,
    /// The tree node.
    node: usize,
    /// The pair of hands (index into the pairs).
    pair: usize,
    /// Board cards dealt after the spot's board.
    dealt: Vec<Card>,
}

/// Builds the spot as a game, refusing one of more than `max_nodes` nodes before building.
pub fn game(spot: &Spot, max_nodes: u64) -> Result<Reference, ReferenceError> {
    let tree_limit = usize::try_from(max_nodes).unwrap_or(usize::MAX);
    let tree = match Tree::build(spot, tree_limit) {
        Ok(t) => t,
        Err(HoldemError::TreeTooBig { .. }) => {
            return Err(ReferenceError::TooBig {
                nodes: max_nodes.saturating_add(1),
                limit: max_nodes,
            })
        }
        Err(e) => return Err(e.into()),
    };
    let pairs = compatible_pairs(spot);
    if pairs.is_empty() {
        return Err(ReferenceError::Empty(
            "no OOP combo and IP combo share no card: no hands can be dealt".into(),
        ));
    }
    let missing = 5 - spot.board.len() as u64;
    if free_cards(spot) < 4 + missing {
        return Err(ReferenceError::Empty(format!(
            "the deck {} holds {} cards besides the board: too few for two hands and {missing} more board cards",
            spot.deck,
            free_cards(spot)
        )));
    }
    let nodes = num_nodes_with(spot, &tree, pairs.len() as u64);
    if nodes > max_nodes {
        return Err(ReferenceError::TooBig {
            nodes,
            limit: max_nodes,
        });
    }

    let weights = |p: usize| -> Result<Vec<Rational>, ReferenceError> {
        spot.combos[p].iter().map(|c| decimal(c.weight)).collect()
    };
    let (w0, w1) = (weights(0)?, weights(1)?);
    let rake = decimal(spot.rake)?;
    let rake_cap = decimal(spot.rake_cap)?;
    let mass: Vec<Rational> = pairs.iter().map(|&(i, j)| &w0[i] * &w1[j]).collect();
    let total: Rational = mass.iter().sum();
    let hands: [Vec<String>; 2] = [0, 1].map(|p| spot.combos[p].iter().map(hand_text).collect());

    let mut b = GameBuilder::new(format!("holdem spot {}", spot.board), "OOP", "IP");
    let outcomes: Vec<(String, Rational)> = pairs
        .iter()
        .zip(&mass)
        .map(|(&(i, j), m)| (format!("{}-{}", hands[0][i], hands[1][j]), m / &total))
        .collect();
    let children = b.chance(b.root(), outcomes)?;
    let mut stack: Vec<Work> = children
        .into_iter()
        .enumerate()
        .rev()
        .map(|(pair, at)| Work {
            at,
            node: 0,
            pair,
            dealt: Vec::new(),
        })
        .collect();
    let mut places: [HashMap<String, SetPlace>; 2] = Default::default();
    let board_set = spot.board.set();
    let deck = spot.deck.cards();
    let mut label = String::new();
    while let Some(w) = stack.pop() {
        let (i, j) = pairs[w.pair];
        let combos = [spot.combos[0][i], spot.combos[1][j]];
        let dealt_set: CardSet = w.dealt.iter().fold(0, |m, c| m | c.bit());
        let used = board_set | dealt_set | combos[0].set() | combos[1].set();
        let n = tree.nodes[w.node];
        let deal = |b: &mut GameBuilder, stack: &mut Vec<Work>, next: usize| {
            let cards = cards_of(deck & !used);
            let labels: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
            let kids = b.chance_uniform(w.at, labels)?;
            for (k, at) in kids.into_iter().enumerate().rev() {
                let mut dealt = w.dealt.clone();
                dealt.push(cards[k]);
                stack.push(Work {
                    at,
                    node: next,
                    pair: w.pair,
                    dealt,
                });
            }
            Ok::<(), GameError>(())
        };
        match n.kind {
            TreeKind::Decision(p) => {
                let p = p as usize;
                label.clear();
                label.push_str(&hands[p][if p == 0 { i } else { j }]);
                label.push('|');
                label.push_str(&tree.path(w.node, &w.dealt));
                let actions: Vec<String> = n
                    .children()
                    .map(|c| {
                        tree.nodes[c]
                            .action
                            .map(|a| a.to_string())
                            .unwrap_or_default()
                    })
                    .collect();
                let kids = b.decision(w.at, p, &label, &actions)?;
                if !places[p].contains_key(&label) {
                    let c = combos[p];
                    places[p].insert(
                        label.clone(),
                        SetPlace {
                            node: w.node,
                            dealt: w.dealt.clone(),
                            hand: (c.lo, c.hi),
                        },
                    );
                }
                for (at, c) in kids.into_iter().zip(n.children()).rev() {
                    stack.push(Work {
                        at,
                        node: c,
                        pair: w.pair,
                        dealt: w.dealt.clone(),
                    });
                }
            }
            TreeKind::Chance => deal(&mut b, &mut stack, n.first_child as usize)?,
            TreeKind::Showdown if spot.board.len() + w.dealt.len() < 5 => {
                deal(&mut b, &mut stack, w.node)?
            }
            TreeKind::Fold(_) | TreeKind::Showdown => {
                let c = n.committed;
                let called = c[0].min(c[1]);
                let final_pot = int(spot.pot + 2 * called);
                let mut cut = &rake * &final_pot;
                if cut > rake_cap {
                    cut = rake_cap.clone();
                }
                let net = &final_pot - &cut;
                // Each player's share of the pot after the rake, before subtracting its chips.
                let share: [Rational; 2] = match n.kind {
                    TreeKind::Fold(f) => {
                        let mut s = [Rational::zero(), Rational::zero()];
                        s[1 - f as usize] = net + int(c[1 - f as usize] - called);
                        s
                    }
                    _ => {
                        let board = board_set | dealt_set;
                        let s0 = evaluate(board | combos[0].set());
                        let s1 = evaluate(board | combos[1].set());
                        let half = &net / int(2);
                        match s0.cmp(&s1) {
                            std::cmp::Ordering::Greater => [net, Rational::zero()],
                            std::cmp::Ordering::Less => [Rational::zero(), net],
                            std::cmp::Ordering::Equal => [half.clone(), half],
                        }
                    }
                };
                let [a, bb] = share;
                b.terminal(w.at, [a - int(c[0]), bb - int(c[1])])?;
            }
        }
    }
    let game = b.build()?;
    let places = [0, 1].map(|p| {
        game.infosets[p]
            .iter()
            .map(|s| places[p][&s.label].clone())
            .collect()
    });
    Ok(Reference {
        game,
        tree,
        places,
        pot: spot.pot,
    })
}

impl Reference {
    /// A profile given by a function of (player, tree node, dealt cards, hand) returning the
    /// probabilities of the tree node's children in order (an engine's strategy, say).
    pub fn profile_from(
        &self,
        mut f: impl FnMut(usize, usize, &[Card], (Card, Card)) -> Vec<f64>,
    ) -> Profile<f64> {
        let mut probs: [Vec<f64>; 2] = [0, 1].map(|p| vec![0.0; self.game.num_actions[p]]);
        for (p, out) in probs.iter_mut().enumerate() {
            for (set, place) in self.game.infosets[p].iter().zip(&self.places[p]) {
                let row = f(p, place.node, &place.dealt, place.hand);
                for (k, a) in set.action_range().enumerate() {
                    out[a] = row.get(k).copied().unwrap_or(0.0);
                }
            }
        }
        Profile { probs }
    }

    /// The profile that checks wherever it can (uniform where it cannot: facing a bet, which
    /// a checked-down hand never does).
    pub fn check_down(&self) -> Profile<f64> {
        self.profile_from(|_, node, _, _| {
            let kids: Vec<_> = self.tree.nodes[node].children().collect();
            let check = kids
                .iter()
                .position(|&c| self.tree.nodes[c].action == Some(super::tree::Action::Check));
            match check {
                Some(k) => (0..kids.len()).map(|i| f64::from(i == k)).collect(),
                None => vec![1.0 / kids.len() as f64; kids.len()],
            }
        })
    }

    /// Each player's EV in chips under `profile`: chips collected from the pot minus chips put
    /// in after the root (the two sum to the pot less the expected rake).
    pub fn ev(&self, profile: &Profile<f64>) -> [f64; 2] {
        eval::values(&self.game, profile)
    }

    /// Exploitability in chips, `((BR_oop - EV_oop) + (BR_ip - EV_ip)) / 2`.
    pub fn exploitability(&self, profile: &Profile<f64>) -> f64 {
        eval::exploitability(&self.game, profile).exploitability
    }
}

/// Each player's share of the pot if both ranges checked the hand down (ties split), computed
/// on this route: the EV of [`Reference::check_down`] over the pot, the spot's rake left out.
pub fn root_equity(spot: &Spot, max_nodes: u64) -> Result<[f64; 2], ReferenceError> {
    let mut unraked = spot.clone();
    unraked.rake = 0.0;
    unraked.rake_cap = 0.0;
    let r = game(&unraked, max_nodes)?;
    let ev = r.ev(&r.check_down());
    Ok(ev.map(|v| v / spot.pot as f64))
}

/// What [`cfr_exploitability`] measures after its iterations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Iterations run.
    pub iterations: u64,
    /// Exploitability of the average strategy, in chips.
    pub exploitability: f64,
    /// The same, in percent of the starting pot.
    pub exploitability_pot_pct: f64,
    /// Each player's EV under the average strategy, in chips.
    pub root_ev: [f64; 2],
}

/// Runs `iterations` iterations of the CFR variant `params` (the tree kernel, one thread) on
/// the spot built as a game and measures the average strategy: the reference the spot
/// engine's exploitability is compared with. Refuses a raked spot (general-sum).
pub fn cfr_exploitability(
    spot: &Spot,
    params: RegretParams,
    iterations: u64,
    max_nodes: u64,
) -> Result<Measured, ReferenceError> {
    let r = game(spot, max_nodes)?;
    if !r.game.is_constant_sum() {
        return Err(ReferenceError::Raked);
    }
    let mut solver = CfrSolver::new(&r.game, params);
    solver.iterate(iterations);
    let profile = solver.average_profile();
    let exploitability = r.exploitability(&profile);
    Ok(Measured {
        iterations,
        exploitability,
        exploitability_pot_pct: 100.0 * exploitability / r.pot as f64,
        root_ev: r.ev(&profile),
    })
}
