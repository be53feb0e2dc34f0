//! Exact river equilibria: a river spot (a board of 5 cards) solved by the exact
//! sequence-form LP and certified by exact best responses, and the exact exploitability of
//! any strategy of a river spot.
//!
//! The route is the spot built as an ordinary game ([`super::reference`]): one chance move
//! deals the pair of hands, information sets are hand + public path, payoffs are chips. Its
//! sequence-form LP is what a direct build from the spot would give (sequences per player,
//! hand and action path; one payoff entry per terminal and compatible pair), so the LP is
//! the existing one ([`crate::exact`]), with its float-guided simplex, exact reconstruction
//! and certificate. The game costs about [`GAME_BYTES_PER_NODE`] bytes per node, counted
//! with the LP's size from the spot's tree before anything is built.

use super::cards::Card;
use super::reference::{self, Reference, ReferenceError};
use super::spot::Spot;
use super::tree::{Action, NodeKind, Tree};
use super::HoldemError;
use crate::eval::{self, Exploitability};
use crate::exact::{self, ExactError, ExactOptions, ExactSolution};
use crate::lp::memory::{self, LpSize};
use crate::lp::Method;
use crate::scalar::{f64_to_rational, int, Rational};
use crate::strategy::Profile;
use num_traits::{One, Zero};

/// Bytes the spot built as a game holds per node (the arena's node, its children and the
/// labels of the information sets), measured on the 3betpotFAST river spot with room to
/// spare (`docs/holdem.md`).
pub const GAME_BYTES_PER_NODE: u128 = 256;

/// The most nodes of a river spot's public tree (a river tree of a few size lists has tens).
pub const TREE_LIMIT: usize = 1_000_000;

/// Why a river spot was not solved or evaluated exactly.
#[derive(Debug, thiserror::Error)]
pub enum RiverLpError {
    /// The spot starts before the river.
    #[error(
        "only river spots (a board of 5 cards) are solved exactly; this spot's board has {0} \
         cards (solve it with a CFR-family algorithm such as dcfr+)"
    )]
    NotRiver(usize),
    /// A raked spot is general-sum.
    #[error(
        "the spot's rake makes the game general-sum (the rake differs between terminals): \
         the exact LP needs a zero-sum game; give --algo lcp (the general-sum solver) or drop \
         the rake"
    )]
    Raked,
    /// The spot's tree was refused.
    #[error(transparent)]
    Tree(#[from] HoldemError),
    /// The spot as a game was refused.
    #[error(transparent)]
    Reference(#[from] ReferenceError),
    /// The game and its LP would exceed the memory budget (counted before building).
    #[error(
        "the river LP of this spot ({combos0} x {combos1} combos, {pairs} compatible pairs, \
         {nodes} game nodes; LP {size}) needs about {needed}, more than the budget of {budget}"
    )]
    TooBig {
        /// OOP's combos.
        combos0: usize,
        /// IP's combos.
        combos1: usize,
        /// Compatible pairs.
        pairs: usize,
        /// Nodes of the spot as a game.
        nodes: u64,
        /// The LP's size (a bound).
        size: LpSize,
        /// Estimated bytes, formatted.
        needed: String,
        /// The budget, formatted.
        budget: String,
    },
    /// The exact LP failed or was refused.
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// A strategy given for evaluation does not fit the spot.
    #[error("{0}")]
    Strategy(String),
}

/// The size of a river spot's exact LP, counted from its tree and ranges before building.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RiverSize {
    /// Combos per range (OOP, IP) after card removal.
    pub combos: [usize; 2],
    /// Pairs of combos sharing no card.
    pub pairs: usize,
    /// Nodes of the spot built as a game.
    pub game_nodes: u64,
    /// Sequences per player (empty sequence included), as the textbook form counts them.
    pub sequences: [usize; 2],
    /// The LP's size (the larger of the two players' programs).
    pub lp: LpSize,
    /// Estimated peak bytes: the game, the LP's build and the float-guided exact solve.
    pub bytes: u128,
}

/// A river spot solved exactly.
#[derive(Clone, Debug)]
pub struct RiverSolution {
    /// The spot built as a game (its information sets placed in the spot).
    pub reference: Reference,
    /// The exact equilibrium, its value for OOP and the LP's statistics.
    pub solution: ExactSolution,
    /// Each player's EV in chips (OOP, IP), exactly; they sum to the pot.
    pub root_ev: [Rational; 2],
    /// Each player's share of the pot if both checked down, exactly.
    pub root_equity: [Rational; 2],
    /// The sizes counted before building.
    pub size: RiverSize,
}

/// Refuses a spot that is not a river spot.
fn require_river(spot: &Spot) -> Result<(), RiverLpError> {
    if spot.board.len() != 5 {
        return Err(RiverLpError::NotRiver(spot.board.len()));
    }
    Ok(())
}

/// Counts the river spot's game and LP and estimates the memory of solving it by `method`.
pub fn size(spot: &Spot, method: Method) -> Result<RiverSize, RiverLpError> {
    require_river(spot)?;
    let tree = Tree::build(spot, TREE_LIMIT)?;
    Ok(size_of(spot, &tree, method))
}

fn size_of(spot: &Spot, tree: &Tree, method: Method) -> RiverSize {
    let combos = [spot.combos[0].len(), spot.combos[1].len()];
    let pairs = spot.combos[0]
        .iter()
        .map(|a| {
            spot.combos[1]
                .iter()
                .filter(|b| a.set() & b.set() == 0)
                .count()
        })
        .sum::<usize>();
    let mut sets = [0usize; 2];
    let mut seqs = [1usize; 2];
    let mut terminals = 0usize;
    for n in &tree.nodes {
        match n.kind {
            NodeKind::Decision(p) => {
                let p = p as usize;
                sets[p] = sets[p].saturating_add(combos[p]);
                seqs[p] = seqs[p].saturating_add(combos[p].saturating_mul(n.children().len()));
            }
            _ if n.is_terminal() => terminals += 1,
            _ => {}
        }
    }
    let game_nodes = 1 + pairs as u64 * tree.nodes.len() as u64;
    let game_terminals = pairs.saturating_mul(terminals);
    // As `exact::sequence_form::lp_size_bound` counts, for either primal player.
    let bound = |p: usize| {
        let o = 1 - p;
        let q = 1 + sets[o];
        LpSize {
            rows: seqs[o] + 1 + sets[p],
            cols: seqs[p] + 2 * q + seqs[o],
            nonzeros: 2 * (seqs[o] + sets[o]) + game_terminals + seqs[o] + seqs[p] + sets[p],
        }
    };
    let lp = [bound(0), bound(1)]
        .into_iter()
        .max_by_key(|s| s.nonzeros + s.rows)
        .expect("two");
    let nodes = usize::try_from(game_nodes).unwrap_or(usize::MAX);
    let build = memory::sequence_form_build_bytes(nodes, game_terminals);
    let solve = match method {
        Method::ExactTableau => memory::tableau_bytes(lp),
        Method::FloatThenExact => memory::guided_bytes(lp),
    };
    let bytes = u128::from(game_nodes) * GAME_BYTES_PER_NODE
        + 2 * memory::standard_form_bytes(lp)
        + build
        + solve;
    RiverSize {
        combos,
        pairs,
        game_nodes,
        sequences: seqs,
        lp,
        bytes,
    }
}

/// Builds the river spot as a game once its size fits `budget` bytes.
pub fn build(
    spot: &Spot,
    budget: u64,
    method: Method,
) -> Result<(Reference, RiverSize), RiverLpError> {
    require_river(spot)?;
    let tree = Tree::build(spot, TREE_LIMIT)?;
    let size = size_of(spot, &tree, method);
    if size.bytes > u128::from(budget) {
        return Err(RiverLpError::TooBig {
            combos0: size.combos[0],
            combos1: size.combos[1],
            pairs: size.pairs,
            nodes: size.game_nodes,
            size: size.lp,
            needed: memory::format_bytes(size.bytes),
            budget: memory::format_bytes(u128::from(budget)),
        });
    }
    let r = reference::game(spot, u64::MAX)?;
    Ok((r, size))
}

/// Solves a river spot exactly: the sequence-form LP of the spot as a game, its equilibrium
/// certified by exact best responses (NashConv exactly 0), refused before anything is built
/// when the game and the LP exceed `options.lp.max_memory`, and refused after building when
/// the rake makes the game general-sum (a rake that is the cap at every terminal does not).
pub fn solve(spot: &Spot, options: &ExactOptions) -> Result<RiverSolution, RiverLpError> {
    let (reference, size) = build(spot, options.lp.max_memory, options.lp.method)?;
    if !reference.game.is_constant_sum() {
        return Err(RiverLpError::Raked);
    }
    let solution = exact::solve_exact_with(&reference.game, options)?;
    let value1 = &reference.game.constant_sum - &solution.value;
    let root_ev = [solution.value.clone(), value1];
    let root_equity = check_down_equity(&reference);
    Ok(RiverSolution {
        reference,
        solution,
        root_ev,
        root_equity,
        size,
    })
}

/// Each player's share of the pot if both ranges check the hand down, exactly (ties split;
/// the rake left out: the shares add to 1).
pub fn check_down_equity(r: &Reference) -> [Rational; 2] {
    let profile = exact_profile_from(r, |_, node, _, _| {
        let kids: Vec<usize> = r.tree.nodes[node].children().collect();
        let check = kids
            .iter()
            .position(|&c| r.tree.nodes[c].action == Some(Action::Check));
        let k = kids.len() as i64;
        (0..kids.len())
            .map(|i| match check {
                Some(c) if i == c => Rational::one(),
                Some(_) => Rational::zero(),
                None => Rational::new(1.into(), k.into()),
            })
            .collect()
    });
    // Checked down, every pair reaches a showdown of the starting pot, whose rake is the same
    // at each: the players' values add to the pot less that rake and split it as the pot
    // would be split, so each share is its value over their sum (the rake left out).
    let v = eval::values(&r.game, &profile);
    let sum = &v[0] + &v[1];
    let whole = if sum > Rational::zero() {
        sum
    } else {
        int(r.pot)
    };
    v.map(|x| x / &whole)
}

/// An exact profile of the spot as a game, given per (player, tree node, dealt cards, hand)
/// as the probabilities of the node's children in order.
pub fn exact_profile_from(
    r: &Reference,
    mut f: impl FnMut(usize, usize, &[Card], (Card, Card)) -> Vec<Rational>,
) -> Profile<Rational> {
    let mut probs: [Vec<Rational>; 2] =
        [0, 1].map(|p| vec![Rational::zero(); r.game.num_actions[p]]);
    for (p, out) in probs.iter_mut().enumerate() {
        for (set, place) in r.game.infosets[p].iter().zip(&r.places[p]) {
            let row = f(p, place.node, &place.dealt, place.hand);
            for (k, a) in set.action_range().enumerate() {
                out[a] = row.get(k).cloned().unwrap_or_else(Rational::zero);
            }
        }
    }
    Profile { probs }
}

/// The exact exploitability of a strategy of a river spot (raked or not), the strategy given
/// per (player, tree node, dealt cards, hand) as floats over the node's children: each
/// float is read as the rational it is exactly and each information set's row is divided by
/// its sum, so a row summing to 1 within rounding plays what it says. Refused when a row is
/// negative, not finite or sums to 0. The values are chips; NashConv is the sum of the gains.
pub fn exact_exploitability(
    r: &Reference,
    mut f: impl FnMut(usize, usize, &[Card], (Card, Card)) -> Vec<f64>,
) -> Result<Exploitability<Rational>, RiverLpError> {
    let mut bad = None;
    let profile = exact_profile_from(r, |p, node, dealt, hand| {
        let row = f(p, node, dealt, hand);
        let exact: Option<Vec<Rational>> = row
            .iter()
            .map(|&x| f64_to_rational(x).filter(|q| *q >= Rational::zero()))
            .collect();
        let exact = exact.filter(|e| e.len() == r.tree.nodes[node].children().len());
        let sum: Rational = exact.iter().flatten().sum();
        match exact {
            Some(e) if !sum.is_zero() => e.into_iter().map(|q| q / &sum).collect(),
            _ => {
                if bad.is_none() {
                    bad = Some(format!(
                        "player {} at {} with {}{}: {:?} is not a strategy row over {} actions",
                        p + 1,
                        r.tree.path(node, dealt),
                        hand.1,
                        hand.0,
                        row,
                        r.tree.nodes[node].children().len()
                    ));
                }
                Vec::new()
            }
        }
    });
    if let Some(why) = bad {
        return Err(RiverLpError::Strategy(why));
    }
    Ok(eval::exploitability(&r.game, &profile))
}

/// Each player's hands of the spot's game by their two cards, in either order: the hand's
/// index in `game.hands[p]`.
fn hand_indices(game: &super::solver::Game) -> [std::collections::HashMap<(Card, Card), usize>; 2] {
    [0, 1].map(|p| {
        game.hands[p]
            .iter()
            .enumerate()
            .flat_map(|(i, &(a, b))| [((a, b), i), ((b, a), i)])
            .collect()
    })
}

/// Where the reference's set of player `p` at public-tree node `node`, after the deals
/// `dealt`, holding `hand`, sits in the spot's `game`: the game node (found by `node_at` from
/// its path) and the hand's index there (`hands`, [`hand_indices`] of `game`). A deal the
/// solver did not walk is its walked twin's, with the hand's suits swapped into that deal's
/// frame. `None` when the game has no such node or hand.
fn game_place(
    game: &super::solver::Game,
    hands: &[std::collections::HashMap<(Card, Card), usize>; 2],
    tree: &Tree,
    node_at: impl Fn(&str) -> Option<usize>,
    p: usize,
    (node, dealt, hand): SetKey<'_>,
) -> Option<(usize, usize)> {
    use super::iso::map_card;
    let (walked, swap) = super::strategy_file::walked_deals(game, dealt)?;
    let g = node_at(&tree.path(node, &walked))?;
    // The hand in the walked deal's frame: the inverse of the swap applied.
    let mut inverse = [0u8; 4];
    for (s, &t) in swap.iter().enumerate() {
        inverse[t as usize] = s as u8;
    }
    let image = (map_card(&inverse, hand.0), map_card(&inverse, hand.1));
    hands[p].get(&image).map(|&i| (g, i))
}

/// What the reference asks a strategy for: player, tree node, dealt cards, hand.
type Lookup = (usize, usize, Vec<Card>, (Card, Card));

/// The exact exploitability of the strategy file at `path` (as `bluff solve SPOT.toml -o`
/// writes it for `spot`, whose expanded `game` the solver walked): the spot built as an
/// ordinary game hand against hand (refused above `max_nodes` nodes, with the count), each
/// stored probability read as the rational it is and each row divided by its sum. A deal the
/// solver did not walk plays its walked twin's strategy with the hands swapped back.
pub fn exact_eval_file(
    spot: &Spot,
    game: &super::solver::Game,
    path: &std::path::Path,
    max_nodes: u64,
) -> Result<Exploitability<Rational>, RiverLpError> {
    let reader = super::strategy_file::Reader::open(path, spot, game)
        .map_err(|e| RiverLpError::Strategy(e.to_string()))?;
    // The reader answers lookups first, then is consumed by streaming its records.
    let reader = std::cell::RefCell::new(Some(reader));
    exact_eval_rows(
        spot,
        game,
        max_nodes,
        |p| reader.borrow().as_ref().and_then(|r| r.node_at(p)),
        |wanted| {
            let Some(reader) = reader.borrow_mut().take() else {
                return Ok(());
            };
            reader
                .read(|g, probs| {
                    if let Some(row) = wanted.get_mut(&g) {
                        *row = probs.to_vec();
                    }
                })
                .map(|_| ())
                .map_err(|e| RiverLpError::Strategy(e.to_string()))
        },
    )
}

/// The exact exploitability of the average strategy of `solver` (a solver or an evaluator of
/// `spot`) as a strategy file stores it (each probability rounded to `f32`), so it equals
/// [`exact_eval_file`] on the file [`super::strategy_file::write`] makes of `solver`;
/// `index` is [`super::strategy_file::path_index`] of its game.
pub fn exact_eval_solver(
    spot: &Spot,
    solver: &super::solver::Solver,
    index: &std::collections::HashMap<String, usize>,
    max_nodes: u64,
) -> Result<Exploitability<Rational>, RiverLpError> {
    exact_eval_rows(
        spot,
        &solver.game,
        max_nodes,
        |p| index.get(p).copied(),
        |wanted| {
            for (&g, row) in wanted.iter_mut() {
                *row = solver
                    .average_at(g)
                    .into_iter()
                    .map(|x| f64::from(x as f32))
                    .collect();
            }
            Ok(())
        },
    )
}

/// [`exact_eval_file`] with the strategy's game nodes found by `node_at(path)` and the rows
/// of the game nodes asked for filled in by `fill` (hand-major, as
/// [`super::solver::Solver::average_at`] gives them).
fn exact_eval_rows(
    spot: &Spot,
    game: &super::solver::Game,
    max_nodes: u64,
    node_at: impl Fn(&str) -> Option<usize>,
    fill: impl FnOnce(&mut std::collections::HashMap<usize, Vec<f64>>) -> Result<(), RiverLpError>,
) -> Result<Exploitability<Rational>, RiverLpError> {
    let reference = reference::game(spot, max_nodes)?;
    let hands = hand_indices(game);
    // Resolve every (tree node, deals, hand) the reference asks for to a game node of the
    // file and a hand there before reading it, so the records are read once, streaming, and
    // only the rows asked for are kept; the second pass asks in the same order (the
    // reference's sets in order, their hands in order).
    let mut wanted: std::collections::HashMap<usize, Vec<f64>> = std::collections::HashMap::new();
    let mut lookups: Vec<Lookup> = Vec::new();
    let _ = exact_profile_from(&reference, |p, node, dealt, hand| {
        lookups.push((p, node, dealt.to_vec(), hand));
        vec![Rational::one()]
    });
    let mut at: Vec<Option<(usize, usize)>> = Vec::with_capacity(lookups.len());
    for (p, node, dealt, hand) in &lookups {
        let place = game_place(
            game,
            &hands,
            &reference.tree,
            &node_at,
            *p,
            (*node, dealt, *hand),
        );
        if let Some((g, _)) = place {
            wanted.insert(g, Vec::new());
        }
        at.push(place);
    }
    fill(&mut wanted)?;
    let mut next = 0usize;
    exact_exploitability(&reference, |_, node, _, _| {
        let k = reference.tree.nodes[node].children().len();
        let found = at[next].and_then(|(g, i)| wanted.get(&g)?.get(i * k..i * k + k));
        next += 1;
        found.map_or_else(Vec::new, <[f64]>::to_vec)
    })
}

/// An evaluator of the river spot `spot` (a [`super::solver::Solver`] holding a fixed
/// strategy, as strategy files are written from) playing `profile`, an exact profile of its
/// reference game `r` (the LP's or the LCP's equilibrium), each probability rounded to the
/// nearest `f64`. Every decision node of the spot's game gets the rows of the reference's
/// information sets at its path; a hand the reference has no set for keeps the uniform row.
pub fn profile_solver(
    spot: &Spot,
    r: &Reference,
    profile: &Profile<Rational>,
    threads: usize,
) -> Result<super::solver::Solver, RiverLpError> {
    use super::solver::{Game, Solver, DEFAULT_MAX_GAME_NODES};
    use super::strategy_file::decision_paths;
    require_river(spot)?;
    let game = Game::build(spot, DEFAULT_MAX_GAME_NODES)?;
    let paths = decision_paths(&game);
    let at: std::collections::HashMap<&str, usize> =
        paths.iter().map(|(g, p)| (p.as_str(), *g)).collect();
    let hands = hand_indices(&game);
    // Each decision node's rows, hand-major, uniform until a set gives its row.
    let mut rows: std::collections::HashMap<usize, Vec<f64>> = std::collections::HashMap::new();
    for (g, _) in &paths {
        let node = game.nodes[*g];
        if let super::solver::GameKind::Decision(a) = node.kind {
            let k = node.num_children as usize;
            let n = game.hands[a as usize].len();
            rows.insert(*g, vec![1.0 / k as f64; k * n]);
        }
    }
    for p in 0..2 {
        for (set, place) in r.game.infosets[p].iter().zip(&r.places[p]) {
            let node_at = |path: &str| at.get(path).copied();
            let found = game_place(
                &game,
                &hands,
                &r.tree,
                node_at,
                p,
                (place.node, &place.dealt, place.hand),
            );
            let path = || r.tree.path(place.node, &place.dealt);
            let Some((g, h)) = found else {
                return Err(RiverLpError::Strategy(format!(
                    "player {} has no decision at {} with {}{} in the spot's game",
                    p + 1,
                    path(),
                    place.hand.1,
                    place.hand.0
                )));
            };
            let k = set.action_range().len();
            let row = rows.get_mut(&g).filter(|row| row.len() >= (h + 1) * k);
            let Some(row) = row else {
                return Err(RiverLpError::Strategy(format!(
                    "player {} at {}: {k} actions in the reference, not in the spot's game",
                    p + 1,
                    path()
                )));
            };
            for (slot, a) in row[h * k..(h + 1) * k].iter_mut().zip(set.action_range()) {
                *slot = crate::scalar::rational_to_f64(&profile.probs[p][a]);
            }
        }
    }
    let mut solver = Solver::evaluator(game, threads);
    for (g, row) in rows {
        solver.set_average_at(g, &row);
    }
    Ok(solver)
}

/// One decision node of an exact strategy of a spot built as a game (say the exact LP's
/// equilibrium of a river spot), per hand of the acting player's range (higher card first, in
/// the range's order, without the hands holding a board card or a card dealt on the way): the
/// probabilities and the reach (the weight times the hand's own probabilities of the actions
/// on the path) exactly.
pub type ExactNode = super::strategy_file::NodeStrategy<Rational>;

/// Where a set sits: public-tree node, the cards dealt on the way, the hand.
type SetKey<'a> = (usize, &'a [Card], (Card, Card));

/// The node at `node_path` of the exact `profile` of `spot` built as the game of `r`
/// ([`reference::game`]): each hand's row read from its information set there.
pub fn exact_node(
    spot: &Spot,
    r: &Reference,
    profile: &Profile<Rational>,
    node_path: &str,
) -> Result<ExactNode, HoldemError> {
    let tree = &r.tree;
    let (t, dealt) = tree.find(node_path)?;
    let err = |reason: &str| HoldemError::Path {
        path: node_path.chars().take(200).collect(),
        reason: reason.to_string(),
    };
    let NodeKind::Decision(player) = tree.nodes[t].kind else {
        return Err(err(
            "not a decision node (a chance node or the end of the hand)",
        ));
    };
    let player = player as usize;
    // The path from the root, each node with the number of cards dealt before it.
    let chain = super::strategy_file::root_chain(tree, t);
    let mut own: Vec<(usize, usize, usize)> = Vec::new();
    let mut deals = 0;
    for w in chain.windows(2) {
        match tree.nodes[w[0]].kind {
            NodeKind::Decision(a) if a as usize == player => {
                own.push((w[0], deals, w[1] - tree.nodes[w[0]].first_child as usize));
            }
            NodeKind::Chance => deals += 1,
            _ => {}
        }
    }
    if deals != dealt.len() {
        return Err(err("name the card dealt after each street"));
    }
    let sets: std::collections::HashMap<SetKey<'_>, usize> = r.places[player]
        .iter()
        .enumerate()
        .map(|(i, p)| ((p.node, p.dealt.as_slice(), p.hand), i))
        .collect();
    let infosets = &r.game.infosets[player];
    let probs = &profile.probs[player];
    let row = |node: usize, dealt: &[Card], hand: (Card, Card)| -> Option<&[Rational]> {
        let set = &infosets[*sets.get(&(node, dealt, hand))?];
        probs.get(set.action_range())
    };
    let dead = dealt.iter().fold(0u64, |s, c| s | c.bit());
    let mut node = ExactNode {
        path: tree.path(t, &dealt),
        player,
        actions: tree.nodes[t]
            .children()
            .map(|c| {
                tree.nodes[c]
                    .action
                    .map_or(String::new(), |a| a.to_string())
            })
            .collect(),
        hands: Vec::new(),
    };
    for combo in &spot.combos[player] {
        if combo.set() & dead != 0 {
            continue;
        }
        let hand = (combo.lo, combo.hi);
        let Some(here) = row(t, &dealt, hand) else {
            continue;
        };
        let mut reach = f64_to_rational(combo.weight).unwrap_or_else(Rational::zero);
        for &(n, d, child) in &own {
            reach *= row(n, &dealt[..d], hand)
                .and_then(|r| r.get(child))
                .cloned()
                .unwrap_or_else(Rational::zero);
        }
        node.hands.push(super::strategy_file::HandStrategy {
            hand: format!("{}{}", combo.hi, combo.lo),
            weight: combo.weight,
            reach,
            strategy: here.to_vec(),
        });
    }
    Ok(node)
}
