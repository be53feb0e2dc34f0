//! Vector-form CFR over a spot's public tree.
//!
//! The public tree of [`super::tree`] is expanded once with its deals ([`Game`]): below a
//! chance node, one copy of the next street for each card the deck still holds. Every node
//! holds arrays over the players' hands: a decision node of player `a` with `k` actions owns
//! `k x n_a` entries of each state array (cumulative regret, average-strategy sum, current
//! strategy), action-major (the `n_a` hands of one action contiguous), so that every loop
//! over a node's entries runs over contiguous hands and vectorises ([`columns`]). An
//! iteration passes the tree once per player (alternating updates) or twice against the same
//! strategies (simultaneous): a walk carries the traverser's reach and the opponent's reach
//! down and the traverser's counterfactual values up, and at the traverser's nodes turns them
//! into regrets with the set update of the tree and sequence kernels
//! ([`crate::cfr::tree::apply_rule`], the same [`RegretParams`]), done action by action with
//! the same bits. A river subtree keeps its vectors, and its nodes their entries, in its
//! board's rank order ([`Showdown`]: the hands holding no board card weakest first), so that
//! its terminals' sweeps read and write contiguously; its root converts the reaches
//! ([`Solver::walk_ranked`]) and the chance node above sums its values back. What leaves the
//! solver (strategies, checkpoints' arrays aside) is hand-major and in the ranges' order:
//! [`Solver::average_at`] and [`Solver::set_average_at`] convert. Each player's blocks lie in
//! preorder ([`Game::lay_out_state`]), the order the walks read them, and regret matching asks
//! the cache for the next block as it reads one ([`columns::match_columns`]): a flop's state
//! is over a gigabyte, every node's first read misses, and one node's rows are too short a
//! run for the hardware's prefetcher.
//!
//! Terminal values take linear time per node with card removal ([`super::showdown`]): a
//! fold's sums over the opponent's hands sharing no card, a river showdown's win-minus-loss
//! sums over hands sorted by strength once per board, an all-in before the river averaged
//! over every runout. The rake is `min(rake x final pot, cap)` (the final pot holding the
//! called chips: an uncalled bet goes back), paid by the winner at folds
//! and showdowns, shared on a tie.
//!
//! Walks do not recurse on the game's depth: one street's subtree is walked with an explicit
//! stack over the node array, and a chance node starts one walk per card (nested at most
//! twice, flop to turn to river). The walks of a chance node's cards run in parallel (rayon,
//! on the solver's pool; with one thread, in turn on the calling thread) and their values are
//! summed in card order, so results are bit-identical for any number of threads.
//!
//! Values and reaches are computed in `f64`; the state arrays are stored in `f32` (the default)
//! or `f64` ([`Precision`]), each entry read into `f64` for the set update and rounded back.
//! A node's current (or average) strategy is computed once per visit into an action-major
//! scratch, so the children's reaches and the node's value are loops over contiguous hands.

use super::cards::{cards_of, Card, CardSet};
use super::iso::Symmetries;
use super::showdown::{Fold, Hand, Lane, Showdown, LANES};
use super::spot::Spot;
use super::tree::{NodeKind, Tree};
use super::HoldemError;
use crate::cfr::tree::{rule_kind, Factors, EXTENDED, PLAIN, STANDARD, VAD};
use crate::cfr::RegretParams;
use access::Access;
use columns::{Block, Get, Inputs, Real};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;

mod access;
mod columns;
mod compressed;
mod fixed;
pub(crate) mod kernels;
mod node_values;
mod pages;
pub mod snapshot;

pub use node_values::NodeValues;

/// The default limit on the expanded game's nodes.
pub const DEFAULT_MAX_GAME_NODES: usize = 100_000_000;

/// What an expanded node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameKind {
    /// A player (0 = OOP, 1 = IP) acts; the children follow the tree node's.
    Decision(u8),
    /// The next card is dealt: one child per card left in the deck, or per class of
    /// equivalent cards (`aux`: the index of its deals in [`Game::deals`]).
    Chance,
    /// This player folded.
    Fold(u8),
    /// A showdown on the river (`aux`: the board's index in the showdown table).
    Showdown,
    /// An all-in called before the river (`aux`: the index of its runout list).
    AllIn,
}

/// A node of the game: a node of the public tree on one board.
#[derive(Clone, Copy, Debug)]
pub struct GameNode {
    /// What the node is.
    pub kind: GameKind,
    /// The node of the public tree.
    pub tree_node: u32,
    /// The board here (the spot's and the dealt cards).
    pub board: CardSet,
    /// The first child; children are contiguous.
    pub first_child: u32,
    /// How many children.
    pub num_children: u32,
    /// A decision node: the offset of its entries in the actor's state arrays; a showdown and
    /// a fold on the river: its board's index; an all-in: its runout list.
    pub aux: u64,
}

/// A spot expanded with its deals, with everything the walks need.
pub struct Game {
    /// The public tree.
    pub tree: Tree,
    /// The expanded nodes, breadth first (the root first).
    pub nodes: Vec<GameNode>,
    /// Each player's hands.
    pub hands: [Vec<Hand>; 2],
    /// Each player's hand weights.
    pub weights: [Vec<f64>; 2],
    /// The spot's board.
    pub board: CardSet,
    /// The deck.
    pub deck: CardSet,
    /// The starting pot, chips.
    pub pot: f64,
    rake: f64,
    rake_cap: f64,
    /// `showdowns[i][p]`: river board `i` from player `p`'s side.
    showdowns: Vec<[Showdown; 2]>,
    /// The runout lists of the all-in terminals (indices into `showdowns`).
    runouts: Vec<Vec<u32>>,
    folds: [Fold; 2],
    /// `blocked[p][c]`: player `p`'s hands holding card `c`.
    blocked: [Vec<Vec<u32>>; 2],
    /// Entries of each player's state arrays.
    pub state_len: [usize; 2],
    /// The suit permutations mapping the game onto itself (none unless the deals are
    /// isomorphic).
    pub symmetries: Symmetries,
    /// For each chance node, every card it deals in card order: the child walked for it (its
    /// index among the node's children) and the symmetry mapping that child's deal onto this
    /// card's (0: the same deal; `k`: `symmetries.perms[k - 1]`).
    pub deals: Vec<Vec<(u32, u32)>>,
    depth: usize,
    max_actions: usize,
}

/// How a chance node's deals are expanded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deals {
    /// One subtree per card.
    Every,
    /// One subtree per class of cards equivalent under a suit permutation that fixes the
    /// deck, the board and both weighted ranges; the others take its values with the hands
    /// permuted.
    Isomorphic,
}

/// A fold's or showdown's chips.
fn rake_of(pot: f64, rake: f64, cap: f64) -> f64 {
    (rake * pot).min(cap)
}

impl Game {
    /// Expands the spot's tree with its deals; refuses more than `max_nodes` nodes before
    /// building past the limit.
    pub fn build(spot: &Spot, max_nodes: usize) -> Result<Game, HoldemError> {
        Game::build_with(spot, max_nodes, Deals::Every)
    }

    /// [`Game::build`] with the deals expanded as `deals` says.
    pub fn build_with(spot: &Spot, max_nodes: usize, deals: Deals) -> Result<Game, HoldemError> {
        let (mut game, index, n) = Game::prepare(spot, max_nodes)?;
        if deals == Deals::Isomorphic {
            game.symmetries = Symmetries::of(game.deck, game.board, &game.hands, &game.weights);
        }
        game.expand(&index, n, max_nodes)?;
        Ok(game)
    }

    /// The child of chance node `g` walked for dealing `card`, and the symmetry that maps its
    /// deal onto `card`'s (0: none, the child is `card`'s own; `k`: `symmetries.perms[k - 1]`,
    /// whose [`Symmetries::hand_maps`] give each hand's image); `None` when `g` is not a chance
    /// node or does not deal `card`.
    pub fn deal_of(&self, g: usize, card: Card) -> Option<(usize, u32)> {
        let node = self.nodes.get(g)?;
        if node.kind != GameKind::Chance || node.board & card.bit() != 0 {
            return None;
        }
        let i = cards_of(self.deck & !node.board)
            .iter()
            .position(|&c| c == card)?;
        let (child, k) = self.deals[node.aux as usize][i];
        Some((node.first_child as usize + child as usize, k))
    }

    /// The spot's hands, public tree and showdowns without the deals expanded (no node, no
    /// state): enough for [`Game::root_equity`].
    pub fn without_deals(spot: &Spot) -> Result<Game, HoldemError> {
        Ok(Game::prepare(spot, super::tree::DEFAULT_MAX_NODES)?.0)
    }

    /// Everything but the expanded nodes: the hands, the tree, the showdown table.
    #[allow(clippy::type_complexity)]
    fn prepare(
        spot: &Spot,
        max_nodes: usize,
    ) -> Result<(Game, HashMap<CardSet, u32>, [usize; 2]), HoldemError> {
        let tree = Tree::build(spot, max_nodes)?;
        let hands: [Vec<Hand>; 2] = [0, 1].map(|p| {
            spot.combos[p]
                .iter()
                .map(|c| (c.hi, c.lo))
                .collect::<Vec<_>>()
        });
        let weights: [Vec<f64>; 2] =
            [0, 1].map(|p| spot.combos[p].iter().map(|c| c.weight).collect());
        let board = spot.board.set();
        let deck = spot.deck.cards();
        let n = [hands[0].len(), hands[1].len()];
        // The river boards.
        let left = cards_of(deck & !board);
        let mut rivers: Vec<CardSet> = Vec::new();
        match board.count_ones() {
            5 => rivers.push(board),
            4 => rivers.extend(left.iter().map(|c| board | c.bit())),
            _ => {
                for (i, a) in left.iter().enumerate() {
                    for b in &left[i + 1..] {
                        rivers.push(board | a.bit() | b.bit());
                    }
                }
            }
        }
        let index: HashMap<CardSet, u32> = rivers
            .iter()
            .enumerate()
            .map(|(i, &b)| (b, i as u32))
            .collect();
        let showdowns: Vec<[Showdown; 2]> = rivers
            .par_iter()
            .map(|&b| {
                [
                    Showdown::new(b, &hands[0], &hands[1]),
                    Showdown::new(b, &hands[1], &hands[0]),
                ]
            })
            .collect();
        let blocked = [0, 1].map(|p| {
            let mut v = vec![Vec::new(); 52];
            for (i, h) in hands[p].iter().enumerate() {
                v[h.0 .0 as usize].push(i as u32);
                v[h.1 .0 as usize].push(i as u32);
            }
            v
        });
        let game = Game {
            nodes: Vec::new(),
            folds: [
                Fold::new(&hands[0], &hands[1]),
                Fold::new(&hands[1], &hands[0]),
            ],
            hands,
            weights,
            board,
            deck,
            pot: spot.pot as f64,
            rake: spot.rake,
            rake_cap: spot.rake_cap,
            showdowns,
            runouts: Vec::new(),
            blocked,
            state_len: [0, 0],
            symmetries: Symmetries::default(),
            deals: Vec::new(),
            depth: 0,
            max_actions: 1,
            tree,
        };
        Ok((game, index, n))
    }

    /// Builds the expanded nodes breadth first.
    fn expand(
        &mut self,
        index: &HashMap<CardSet, u32>,
        n: [usize; 2],
        max_nodes: usize,
    ) -> Result<(), HoldemError> {
        let mut runout_index: HashMap<CardSet, u32> = HashMap::new();
        let mut nodes = vec![self.node_of(0, self.board, index, &mut runout_index, n)];
        let mut depth = vec![0usize];
        let mut next = 0;
        while next < nodes.len() {
            let id = next;
            next += 1;
            let g = nodes[id];
            let t = &self.tree.nodes[g.tree_node as usize];
            let kids: Vec<(u32, CardSet)> = match g.kind {
                GameKind::Decision(_) => t.children().map(|c| (c as u32, g.board)).collect(),
                GameKind::Chance => {
                    let left = cards_of(self.deck & !g.board);
                    let (reps, deals) = self.symmetries.classes(g.board, &left);
                    nodes[id].aux = self.deals.len() as u64;
                    self.deals.push(deals);
                    reps.into_iter()
                        .map(|c| (t.first_child, g.board | c.bit()))
                        .collect()
                }
                _ => continue,
            };
            if nodes.len() + kids.len() > max_nodes {
                return Err(HoldemError::TreeTooBig { limit: max_nodes });
            }
            nodes[id].first_child = nodes.len() as u32;
            nodes[id].num_children = kids.len() as u32;
            let d = if g.kind == GameKind::Chance {
                0
            } else {
                depth[id] + 1
            };
            for (tn, b) in kids {
                nodes.push(self.node_of(tn as usize, b, index, &mut runout_index, n));
                depth.push(d);
            }
            self.max_actions = self.max_actions.max(nodes[id].num_children as usize);
            self.depth = self.depth.max(d);
        }
        self.nodes = nodes;
        self.lay_out_state();
        Ok(())
    }

    /// Gives each decision node its entries in its actor's state arrays in preorder (a node,
    /// then its children's subtrees in order): the order the walks read them, so a subtree's
    /// entries lie together and each walk streams through the arrays.
    fn lay_out_state(&mut self) {
        let n = [self.hands[0].len(), self.hands[1].len()];
        self.state_len = [0, 0];
        let mut stack = vec![0u32];
        while let Some(id) = stack.pop() {
            let node = &mut self.nodes[id as usize];
            if let GameKind::Decision(a) = node.kind {
                let a = a as usize;
                node.aux = self.state_len[a] as u64;
                self.state_len[a] += node.num_children as usize * n[a];
            }
            let (first, k) = (node.first_child, node.num_children);
            stack.extend((first..first + k).rev());
        }
    }

    /// The expanded node of tree node `t` on `board` (decision nodes get their state).
    fn node_of(
        &mut self,
        t: usize,
        board: CardSet,
        index: &HashMap<CardSet, u32>,
        runout_index: &mut HashMap<CardSet, u32>,
        n: [usize; 2],
    ) -> GameNode {
        let tn = &self.tree.nodes[t];
        let (kind, aux) = match tn.kind {
            NodeKind::Decision(a) => {
                let off = self.state_len[a as usize];
                self.state_len[a as usize] += tn.num_children as usize * n[a as usize];
                (GameKind::Decision(a), off as u64)
            }
            NodeKind::Chance => (GameKind::Chance, 0),
            // A fold on the river is evaluated on its board's showdown lists.
            NodeKind::Fold(p) if board.count_ones() == 5 => {
                (GameKind::Fold(p), index[&board] as u64)
            }
            NodeKind::Fold(p) => (GameKind::Fold(p), 0),
            NodeKind::Showdown if board.count_ones() == 5 => {
                (GameKind::Showdown, index[&board] as u64)
            }
            NodeKind::Showdown => {
                let next = self.runouts.len() as u32;
                let i = *runout_index.entry(board).or_insert(next);
                if i == next {
                    let list = index
                        .iter()
                        .filter(|(&b, _)| b & board == board)
                        .map(|(_, &i)| i)
                        .collect::<Vec<u32>>();
                    let mut list = list;
                    list.sort_unstable();
                    self.runouts.push(list);
                }
                (GameKind::AllIn, i as u64)
            }
        };
        GameNode {
            kind,
            tree_node: t as u32,
            board,
            first_child: 0,
            num_children: 0,
            aux,
        }
    }

    /// Each player's share of the pot if both checked down from the root.
    pub fn root_equity(&self) -> [f64; 2] {
        let g = self;
        let z = g.pair_weight();
        let all: Vec<u32> = (0..g.showdowns.len() as u32).collect();
        let mut eq = [0.0; 2];
        for (p, e) in eq.iter_mut().enumerate() {
            let n = g.hands[p].len();
            let (mut tot, mut diff, mut t1, mut d1) =
                (vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]);
            for &b in &all {
                let sd = &g.showdowns[b as usize][p];
                sd.totals_hands(&g.weights[1 - p], &mut t1);
                sd.sums_hands(&g.weights[1 - p], &mut d1);
                for h in 0..n {
                    tot[h] += t1[h];
                    diff[h] += d1[h];
                }
            }
            let s: f64 = (0..n)
                .map(|h| g.weights[p][h] * 0.5 * (tot[h] + diff[h]) * g.runout_scale(g.board))
                .sum();
            *e = s / z;
        }
        eq
    }

    /// Bytes of the solver's state for these parameters in f64 (the arrays
    /// [`Solver::new`] allocates), to check before allocating.
    pub fn state_bytes(&self, params: &RegretParams) -> u64 {
        self.state_bytes_in(params, Precision::F64)
    }

    /// Bytes of the state [`Solver::with_precision`] allocates: regrets and average sums,
    /// the last instantaneous regrets of the predictive rules (VAD-CFR's moving averages),
    /// the current strategy for VAD-CFR (whose next strategy is not a function of the
    /// stored arrays), and a copy of the current strategy with simultaneous updates.
    /// Compressed: 2 bytes per regret and per sum, 4 per entry of the other arrays, and two
    /// f32 scales per node of the expanded game.
    pub fn state_bytes_in(&self, params: &RegretParams, precision: Precision) -> u64 {
        if precision == Precision::Compressed16 {
            return compressed::state_bytes(self, params);
        }
        let entries = (self.state_len[0] + self.state_len[1]) as u64;
        let f = params.factors(1, 0);
        let arrays = 2
            + u64::from(f.keeps_last())
            + u64::from(f.volatility.is_some())
            + u64::from(!params.alternating);
        entries * arrays * precision.bytes()
    }

    /// The number of cards a deal draws from at a node with `board` (the deck less the board
    /// and both players' hands).
    fn cards_left(&self, board: CardSet) -> f64 {
        ((self.deck & !board).count_ones() as f64 - 4.0).max(1.0)
    }

    /// The normaliser of expected values: the weight of every pair of hands sharing no card.
    pub fn pair_weight(&self) -> f64 {
        let mut tot = vec![0.0; self.hands[0].len()];
        self.folds[0].sums(&self.weights[1], &mut tot);
        tot.iter().zip(&self.weights[0]).map(|(t, w)| t * w).sum()
    }

    /// Player `p`'s values (before its own weights) of a showdown over every runout of
    /// `board` with pot `pot + 2c` and rake `r`: `(pot - r) / 2` per opponent hand, plus
    /// `pot / 2 + c - r / 2` times win minus loss, one evaluation per board
    /// ([`Showdown::values`]; summed as [`Game::sum_runouts`] does it, `buf` its scratch).
    #[allow(clippy::too_many_arguments)]
    fn showdown_values(
        &self,
        p: usize,
        board: CardSet,
        list: &[u32],
        opp: &[f64],
        c: f64,
        out: &mut [f64],
        buf: &mut Vec<f64>,
        parallel: bool,
    ) {
        let n = self.hands[p].len();
        let [a, s] = self.showdown_coefs(c);
        let sd = |b: u32, rows: &mut [&mut [f64]]| {
            self.showdowns[b as usize][p].values_hands(opp, a, s, &mut rows[0][..n])
        };
        self.sum_runouts(p, board, list, &mut [out], buf, parallel, sd);
    }

    /// [`Game::showdown_values`] of several all-ins with the same runouts at once: all-in `x`
    /// has the opponent's reach `opp[x]` and each player's chips `c[x]`, its values go to
    /// `out[x]`. Each river board's all-ins go [`LANES`] to a sweep
    /// ([`Showdown::values_batch`], each lane with the bits of one evaluation), summed as
    /// [`Game::sum_runouts`] does it: every `out[x]` has the bits of its own
    /// [`Game::showdown_values`].
    #[allow(clippy::too_many_arguments)]
    fn runout_values(
        &self,
        p: usize,
        board: CardSet,
        list: &[u32],
        opp: &[&[f64]],
        c: &[f64],
        out: &mut [&mut [f64]],
        buf: &mut Vec<f64>,
        parallel: bool,
    ) {
        let n = self.hands[p].len();
        assert!(c.len() == opp.len() && out.len() == opp.len());
        let coefs: Vec<[f64; 2]> = c.iter().map(|&c| self.showdown_coefs(c)).collect();
        let sweep = |b: u32, rows: &mut [&mut [f64]]| {
            let sd = &self.showdowns[b as usize][p];
            let chunks = rows.chunks_mut(LANES).zip(opp.chunks(LANES));
            for ((rows, opp), coefs) in chunks.zip(coefs.chunks(LANES)) {
                let mut batch: Vec<Lane> = (rows.iter_mut().zip(opp).zip(coefs))
                    .map(|((row, &reach), &[a, s])| Lane {
                        reach,
                        a,
                        s,
                        out: Some(&mut row[..n]),
                        fold: None,
                    })
                    .collect();
                sd.values_batch_hands(&mut batch);
            }
        };
        self.sum_runouts(p, board, list, out, buf, parallel, sweep);
    }

    /// Player `p`'s rows `out` (one per all-in) summed over the river boards of `list`, the
    /// runouts of `board`, then scaled by each board's probability: `eval(b, rows)` writes
    /// board `b`'s rows (one board: straight into `out`; the opponent's hands holding a board
    /// card have no reach there, taken off when the card was dealt or off the ranges).
    ///
    /// The boards' values are added in the list's order. With `parallel` (the caller runs on
    /// the solver's pool) a long list is evaluated [`RUNOUT_CHUNK`] boards at a time on the
    /// pool, each into its own rows of `buf` (scratch, grown as needed), then added in that
    /// order: the same bits. An all-in before the river is a terminal of the walk above the
    /// chance nodes, which one thread runs; without this the other threads wait through
    /// every runout.
    #[allow(clippy::too_many_arguments)]
    fn sum_runouts(
        &self,
        p: usize,
        board: CardSet,
        list: &[u32],
        out: &mut [&mut [f64]],
        buf: &mut Vec<f64>,
        parallel: bool,
        eval: impl Fn(u32, &mut [&mut [f64]]) + Sync,
    ) {
        let n = self.hands[p].len();
        let m = n.max(1);
        let lanes = out.len();
        if let [b] = list {
            eval(*b, out);
        } else {
            let per = if parallel && list.len() >= RUNOUT_CHUNK {
                RUNOUT_CHUNK
            } else {
                1
            };
            if buf.len() < per * lanes * m {
                buf.resize(per * lanes * m, 0.0);
            }
            for o in out.iter_mut() {
                o[..n].fill(0.0);
            }
            for boards in list.chunks(per) {
                let rows = &mut buf[..boards.len() * lanes * m];
                let board_rows = |(rows, &b): (&mut [f64], &u32)| {
                    let mut rows: Vec<&mut [f64]> = rows.chunks_mut(m).collect();
                    eval(b, &mut rows);
                };
                if per > 1 {
                    rows.par_chunks_mut(lanes * m)
                        .zip(boards)
                        .for_each(board_rows);
                } else {
                    rows.chunks_mut(lanes * m).zip(boards).for_each(board_rows);
                }
                for rows in rows.chunks(lanes * m) {
                    for (o, row) in out.iter_mut().zip(rows.chunks(m)) {
                        kernels::add_assign(&mut o[..n], &row[..n]);
                    }
                }
            }
        }
        let scale = self.runout_scale(board);
        if scale != 1.0 {
            for o in out.iter_mut() {
                kernels::scale(&mut o[..n], scale);
            }
        }
    }

    /// A showdown's coefficients `[a, s]` for [`Showdown::values`]: `(pot - r) / 2` per
    /// opponent hand and `pot / 2 + c - r / 2` times win minus loss, `c` each player's chips
    /// put in after the root and `r` the rake of the final pot `pot + 2c`.
    fn showdown_coefs(&self, c: f64) -> [f64; 2] {
        let r = rake_of(self.pot + 2.0 * c, self.rake, self.rake_cap);
        [(self.pot - r) / 2.0, self.pot / 2.0 + c - r / 2.0]
    }

    /// Player `p`'s reach `out` at child `i` of chance node `chance` (a turn card's deal): its
    /// `reach` there, the hands holding the dealt card taken off (as [`Solver::chance`] and
    /// [`Solver::next_allins`] hand it down).
    fn dealt_reach(&self, chance: &GameNode, i: usize, p: usize, reach: &[f64], out: &mut [f64]) {
        let child = &self.nodes[chance.first_child as usize + i];
        let card = (child.board & !chance.board).trailing_zeros() as usize;
        out.copy_from_slice(reach);
        for &h in &self.blocked[p][card] {
            out[h as usize] = 0.0;
        }
    }

    /// Zeroes player `p`'s values of the hands holding a card dealt on the way to `node`.
    fn zero_dealt(&self, node: &GameNode, p: usize, out: &mut [f64]) {
        for card in cards_of(node.board & !self.board) {
            for &h in &self.blocked[p][card.0 as usize] {
                out[h as usize] = 0.0;
            }
        }
    }

    /// Player `a`'s rows of decision node `g` (`k` entries per hand) in hand order, from the
    /// order the node's state keeps: rank order on the river, hand order elsewhere.
    pub(crate) fn rows_to_hands(&self, g: usize, a: usize, k: usize, rows: Vec<f64>) -> Vec<f64> {
        if self.nodes[g].board.count_ones() != 5 {
            return rows;
        }
        let perm = self.showdowns[self.river_board(g)][a].perm();
        let mut out = vec![0.0; rows.len()];
        for (&i, row) in perm.iter().zip(rows.chunks(k)) {
            out[i as usize * k..i as usize * k + k].copy_from_slice(row);
        }
        out
    }

    /// [`Game::rows_to_hands`] the other way: hand order in, the node's order out.
    pub(crate) fn rows_from_hands(&self, g: usize, a: usize, k: usize, rows: &[f64]) -> Vec<f64> {
        if self.nodes[g].board.count_ones() != 5 {
            return rows.to_vec();
        }
        let perm = self.showdowns[self.river_board(g)][a].perm();
        perm.iter()
            .flat_map(|&i| &rows[i as usize * k..i as usize * k + k])
            .copied()
            .collect()
    }

    /// The showdown table's index of the board of node `g`, a node on the river: the board of
    /// the first terminal below it.
    fn river_board(&self, g: usize) -> usize {
        let mut i = g;
        loop {
            let node = &self.nodes[i];
            match node.kind {
                GameKind::Decision(_) => i = node.first_child as usize,
                GameKind::Fold(_) | GameKind::Showdown => return node.aux as usize,
                GameKind::Chance | GameKind::AllIn => unreachable!("a river node"),
            }
        }
    }

    /// The probability of each river board over the runouts of `board` (each unordered
    /// pair of cards to come stands for two ordered deals).
    fn runout_scale(&self, board: CardSet) -> f64 {
        match board.count_ones() {
            5 => 1.0,
            4 => 1.0 / self.cards_left(board),
            _ => {
                let n = self.cards_left(board);
                2.0 / (n * (n - 1.0))
            }
        }
    }
}

/// The precision of the solver's stored state: regrets, average-strategy sums and the
/// rules' extra arrays. Reaches, values, best responses and every sum over hands are f64
/// whatever the precision.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// 4-byte floats: half the memory of f64 (the default of `bluff solve` on spots).
    #[default]
    F32,
    /// 8-byte floats (the library's [`Solver::new`]).
    F64,
    /// 16-bit regrets and average sums with one f32 scale per node and array, the rules'
    /// other arrays in f32 (`--compress`; see `compressed.rs`).
    Compressed16,
}

impl Precision {
    /// Bytes per stored entry.
    pub fn bytes(self) -> u64 {
        match self {
            Precision::F32 => 4,
            Precision::F64 => 8,
            Precision::Compressed16 => 2,
        }
    }

    /// The precision named `f32` or `f64`.
    pub fn from_name(name: &str) -> Option<Precision> {
        match name {
            "f32" => Some(Precision::F32),
            "f64" => Some(Precision::F64),
            _ => None,
        }
    }

    /// The storage named as [`Precision::name`] names it (`f32`, `f64`, `compressed16`).
    pub fn from_stored_name(name: &str) -> Option<Precision> {
        match name {
            "compressed16" => Some(Precision::Compressed16),
            _ => Precision::from_name(name),
        }
    }

    /// Its name: `f32`, `f64` or `compressed16`.
    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
            Precision::Compressed16 => "compressed16",
        }
    }
}

/// How a walk values the traverser's nodes and reads the strategies.
// Copied once per walk (a street's subtree), not per node: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy)]
enum Mode {
    /// CFR: the current strategies; regrets updated at the traverser's nodes.
    Train(Factors, u8),
    /// The traverser best-responds; the opponent plays its average strategy.
    BestResponse,
    /// Both play their average strategies.
    Average,
}

/// Where the current strategy of a node is read from when a walk reaches it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Current {
    /// Regret matching on the stored regrets (and predictions), with the factors of the
    /// player's last update: nothing is stored.
    Regrets,
    /// The stored strategy (VAD-CFR, whose next strategy depends on the instantaneous
    /// regrets of the update, which are not kept).
    Stored,
    /// The copy taken at the start of the iteration (simultaneous updates).
    Play,
}

/// The state arrays of both players, of one precision.
struct State<S> {
    /// Cumulative regrets.
    regret: [Vec<S>; 2],
    /// Average-strategy sums.
    sum: [Vec<S>; 2],
    /// The last instantaneous regrets (predictive rules) or VAD-CFR's moving averages.
    last: [Vec<S>; 2],
    /// The current strategy, stored for VAD-CFR only.
    sigma: [Vec<S>; 2],
    /// The current strategy at the start of the iteration (simultaneous updates only).
    play: [Vec<S>; 2],
}

/// The state in the precision chosen.
enum Stored {
    /// 4-byte entries.
    F32(State<f32>),
    /// 8-byte entries.
    F64(State<f64>),
    /// 16-bit regrets and sums with per-node scales.
    Compressed(compressed::Compressed),
}

/// The state arrays, shared by the walks of different cards (which write disjoint entries).
struct Shared<S> {
    regret: [*mut S; 2],
    sum: [*mut S; 2],
    sigma: [*mut S; 2],
    last: [*mut S; 2],
    play: [*const S; 2],
    keeps_last: bool,
    current: Current,
    /// The factors of each player's last update (its current strategy's rule).
    factors: [Factors; 2],
}

impl<S> Shared<S> {
    /// The node's entries of the rules' other arrays its update writes: the last
    /// instantaneous regrets where the rule keeps them and the strategy where it is stored
    /// (VAD-CFR), each empty otherwise.
    ///
    /// # Safety
    /// `off..off + len` are one node's entries of player `a`, and no other reference to them
    /// is live.
    unsafe fn rule_arrays<'a>(
        self,
        a: usize,
        off: usize,
        len: usize,
    ) -> (&'a mut [S], &'a mut [S]) {
        let last = if self.keeps_last {
            slice_mut(self.last[a], off, len)
        } else {
            &mut []
        };
        let sigma = if self.current == Current::Stored {
            slice_mut(self.sigma[a], off, len)
        } else {
            &mut []
        };
        (last, sigma)
    }
}

impl<S> Clone for Shared<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for Shared<S> {}

// SAFETY: the walks of a chance node's cards touch the entries of disjoint subtrees only;
// nothing else runs while they do.
unsafe impl<S> Send for Shared<S> {}
unsafe impl<S> Sync for Shared<S> {}

/// One walk's buffers, per depth of a street's subtree, sized by the largest node.
struct Scratch {
    own: Vec<f64>,
    opp: Vec<f64>,
    vals: Vec<f64>,
    /// The strategy of the node at each depth (action-major: `k` rows of the actor's hands).
    strat: Vec<f64>,
    tmp: Vec<f64>,
    /// A chance node's values per card (the chance nodes of this walk's street, one at a
    /// time).
    parts: Vec<f64>,
    /// The walk's path.
    stack: Vec<Frame>,
    /// A river walk's terminals in preorder ([`Solver::walk_river`]): their nodes, whether
    /// the opponent's reach is all zero there and which of `term_opp`'s reaches is theirs;
    /// the opponent's reaches of the walk's first pass (`no` apart, the root's first, then
    /// one per child of an opponent's node, none overwritten) and the traverser's values
    /// (`n` apart: the root's row, then a block of rows per decision node in preorder, one
    /// per child; each terminal's row is the last of its tuple).
    terms: Vec<(u32, bool, u32, u32)>,
    term_opp: Vec<f64>,
    term_vals: Vec<f64>,
    /// A river walk's values in rank order, before they go back to hand order.
    ranked: Vec<f64>,
}

/// A street's all-ins evaluated by the street above ([`Solver::next_allins`]): their nodes
/// in preorder (as [`Scratch::terms`]) and the traverser's values (`n` apart).
struct StreetAllins {
    terms: Vec<(u32, bool, u32, u32)>,
    vals: Vec<f64>,
}

/// A node on a walk's path.
#[derive(Clone, Copy)]
struct Frame {
    /// The node.
    node: u32,
    /// Its next child to walk.
    next: u32,
    /// The level of `Scratch::own` holding the traverser's reach here.
    own: u32,
    /// The level of `Scratch::opp` holding the opponent's reach here.
    opp: u32,
    /// The opponent's reach is all zero here (and so below): every value is 0.
    zero: bool,
    /// A river walk's decision node: the first of its rows in `Scratch::term_vals` (one per
    /// child, the nodes' blocks in preorder); a terminal: its row.
    block: u32,
}

/// The runouts of an all-in evaluated at once on the pool ([`Game::showdown_values`]).
const RUNOUT_CHUNK: usize = 16;

/// A vector-form CFR solver of one spot.
pub struct Solver {
    /// The game.
    pub game: Game,
    params: RegretParams,
    precision: Precision,
    state: Stored,
    /// The factors of each player's last update.
    factors: [Factors; 2],
    iterations: u64,
    pool: Option<rayon::ThreadPool>,
    scratch: Mutex<Vec<Scratch>>,
    /// Walks skip the work whose values are 0 under a zero opponent reach.
    zero_reach: bool,
    /// Whether terminals are evaluated together: a river subtree's ([`Solver::walk_river`])
    /// and a street's all-ins ([`Solver::allin_values`]); the same bits as without.
    batch: bool,
}

/// A strategy's values: expected chips and best-response gains.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpotValues {
    /// Each player's expected chips collected less chips put in after the root.
    pub ev: [f64; 2],
    /// Each player's best-response value against the other's strategy.
    pub best_response: [f64; 2],
    /// The mean of the two best-response gains.
    pub exploitability: f64,
}

/// An exploitability check ([`Solver::check`]): what the stop test needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpotCheck {
    /// Each player's best-response value against the other's average strategy.
    pub best_response: [f64; 2],
    /// The mean of the two best-response gains.
    pub exploitability: f64,
    /// Each player's expected chips, when the check computed them (raked spots).
    pub ev: Option<[f64; 2]>,
}

impl<S: Real> State<S> {
    fn new(game: &Game, params: &RegretParams) -> State<S> {
        State::with(game, params, true)
    }

    /// [`State::new`], with the regret and sum arrays left empty unless `main`.
    fn with(game: &Game, params: &RegretParams, main: bool) -> State<S> {
        let f = params.factors(1, 0);
        let sized = |p: usize, on: bool| {
            if on {
                pages::zeroed(S::ZERO, game.state_len[p])
            } else {
                Vec::new()
            }
        };
        let vad = f.volatility.is_some();
        let uniform = |p: usize| {
            if !vad {
                return Vec::new();
            }
            let mut v = vec![S::ZERO; game.state_len[p]];
            for g in &game.nodes {
                if g.kind == GameKind::Decision(p as u8) {
                    let k = g.num_children as usize;
                    let len = k * game.hands[p].len();
                    v[g.aux as usize..g.aux as usize + len].fill(S::of(1.0 / k as f64));
                }
            }
            v
        };
        State {
            regret: [sized(0, main), sized(1, main)],
            sum: [sized(0, main), sized(1, main)],
            last: [sized(0, f.keeps_last()), sized(1, f.keeps_last())],
            play: [sized(0, !params.alternating), sized(1, !params.alternating)],
            sigma: [uniform(0), uniform(1)],
        }
    }

    fn shared(&mut self, params: &RegretParams, factors: [Factors; 2]) -> Shared<S> {
        let f = params.factors(1, 0);
        let current = if !params.alternating {
            Current::Play
        } else if f.volatility.is_some() {
            Current::Stored
        } else {
            Current::Regrets
        };
        Shared {
            regret: [self.regret[0].as_mut_ptr(), self.regret[1].as_mut_ptr()],
            sum: [self.sum[0].as_mut_ptr(), self.sum[1].as_mut_ptr()],
            sigma: [self.sigma[0].as_mut_ptr(), self.sigma[1].as_mut_ptr()],
            last: [self.last[0].as_mut_ptr(), self.last[1].as_mut_ptr()],
            play: [self.play[0].as_ptr(), self.play[1].as_ptr()],
            keeps_last: f.keeps_last(),
            current,
            factors,
        }
    }

    /// Simultaneous updates: the current strategies copied into `play` before an iteration.
    fn fill_play(&mut self, game: &Game, factors: [Factors; 2]) {
        let vad = factors[0].volatility.is_some();
        let (mut row, mut tot) = (Vec::new(), Vec::new());
        for g in &game.nodes {
            let GameKind::Decision(a) = g.kind else {
                continue;
            };
            let a = a as usize;
            let k = g.num_children as usize;
            let len = k * game.hands[a].len();
            let off = g.aux as usize;
            if vad {
                let (src, dst) = (&self.sigma[a], &mut self.play[a]);
                dst[off..off + len].copy_from_slice(&src[off..off + len]);
                continue;
            }
            row.resize(len, 0.0);
            tot.resize(len / k, 0.0);
            let last: &[S] = if self.last[a].is_empty() {
                &[]
            } else {
                &self.last[a][off..off + len]
            };
            let regret = &self.regret[a][off..off + len];
            columns::match_columns(regret, last, &factors[a], k, &mut row, &mut tot, &[]);
            for (d, &x) in self.play[a][off..off + len].iter_mut().zip(&row) {
                *d = S::of(x);
            }
        }
    }

    /// The average strategy of player `a`'s node at `off` (`k` actions, `n` hands),
    /// hand-major.
    fn average_at(&self, a: usize, off: usize, k: usize, n: usize) -> Vec<f64> {
        average_rows(&self.sum[a][off..off + k * n], k)
    }
}

/// A player's state pointers in either precision.
#[derive(Clone, Copy)]
enum AnyShared {
    F32(Shared<f32>),
    F64(Shared<f64>),
    Compressed(compressed::CShared),
}

impl Solver {
    /// A solver of `game` with `params`, on `threads` threads (1: the calling thread), its
    /// state in f64.
    pub fn new(game: Game, params: RegretParams, threads: usize) -> Solver {
        Solver::with_precision(game, params, threads, Precision::F64)
    }

    /// A solver whose state is stored in `precision`.
    pub fn with_precision(
        game: Game,
        params: RegretParams,
        threads: usize,
        precision: Precision,
    ) -> Solver {
        let state = match precision {
            Precision::F32 => Stored::F32(State::new(&game, &params)),
            Precision::F64 => Stored::F64(State::new(&game, &params)),
            Precision::Compressed16 => {
                Stored::Compressed(compressed::Compressed::new(&game, &params))
            }
        };
        let pool = (threads > 1).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .expect("a thread pool")
        });
        let f = params.factors(1, 0);
        Solver {
            state,
            factors: [f, f],
            game,
            params,
            precision,
            iterations: 0,
            pool,
            scratch: Mutex::new(Vec::new()),
            zero_reach: true,
            batch: true,
        }
    }

    /// Whether walks skip, under an all-zero opponent reach, the opponent's strategies and the
    /// terminals' sums (on by default; the same bits either way, see `Solver::walk_in`).
    pub fn set_zero_reach_skip(&mut self, on: bool) {
        self.zero_reach = on;
    }

    /// Whether terminals are evaluated together, [`LANES`] at a time: a river subtree's
    /// showdowns and folds, a street's all-ins (on by default; the same bits either way: for
    /// tests).
    pub fn set_batch(&mut self, on: bool) {
        self.batch = on;
    }

    /// The precision of the stored state.
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Iterations done.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    fn shared(&mut self) -> AnyShared {
        match &mut self.state {
            Stored::F32(s) => AnyShared::F32(s.shared(&self.params, self.factors)),
            Stored::F64(s) => AnyShared::F64(s.shared(&self.params, self.factors)),
            Stored::Compressed(s) => AnyShared::Compressed(s.shared(&self.params, self.factors)),
        }
    }

    fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(p) => p.install(f),
            None => f(),
        }
    }

    /// One walk of the whole tree for player `p` in `mode` (in the pool), from both players'
    /// range weights at the root; `p`'s values per hand.
    fn root_walk(&self, sh: AnyShared, p: usize, mode: Mode) -> Vec<f64> {
        let mut out = vec![0.0; self.game.hands[p].len()];
        let (own, opp) = (&self.game.weights[p], &self.game.weights[1 - p]);
        match sh {
            AnyShared::F32(sh) => self.run(|| self.walk(sh, 0, p, mode, own, opp, &mut out)),
            AnyShared::F64(sh) => self.run(|| self.walk(sh, 0, p, mode, own, opp, &mut out)),
            AnyShared::Compressed(sh) => self.run(|| self.walk(sh, 0, p, mode, own, opp, &mut out)),
        }
        out
    }

    /// Runs `n` iterations.
    pub fn iterate(&mut self, n: u64) {
        for _ in 0..n {
            self.iterations += 1;
            let t = self.iterations;
            let f = self.params.factors(t, 0);
            let mode = Mode::Train(f, rule_kind(&f));
            if !self.params.alternating {
                match &mut self.state {
                    Stored::F32(s) => s.fill_play(&self.game, self.factors),
                    Stored::F64(s) => s.fill_play(&self.game, self.factors),
                    Stored::Compressed(s) => s.fill_play(&self.game, self.factors),
                }
            }
            for p in 0..2 {
                let sh = self.shared();
                self.root_walk(sh, p, mode);
                if self.params.alternating {
                    self.factors[p] = f;
                }
            }
            self.factors = [f, f];
        }
    }

    /// The average strategy's values: expected chips, best responses, exploitability.
    pub fn values(&mut self) -> SpotValues {
        let ev = self.totals(Mode::Average);
        Solver::values_with(self.totals(Mode::BestResponse), ev)
    }

    /// The exploitability of the average strategy and each player's best-response value,
    /// for the stop test: unraked, the two expected values share the pot (`EV_oop + EV_ip =
    /// pot` in exact arithmetic), so the exploitability is `(BR_oop + BR_ip - pot) / 2` and
    /// only the two best-response walks run; raked, the four walks of [`Solver::values`]
    /// (whose `ev` this returns then).
    pub fn check(&mut self) -> SpotCheck {
        let br = self.totals(Mode::BestResponse);
        if self.game.rake == 0.0 || self.game.rake_cap == 0.0 {
            return SpotCheck {
                best_response: br,
                exploitability: 0.5 * (br[0] + br[1] - self.game.pot),
                ev: None,
            };
        }
        let v = Solver::values_with(br, self.totals(Mode::Average));
        SpotCheck {
            best_response: br,
            exploitability: v.exploitability,
            ev: Some(v.ev),
        }
    }

    /// [`Solver::values`] from a [`Solver::check`] of the current strategy: its best responses
    /// and, when it has none, the expected values' two walks.
    pub fn values_after(&mut self, check: &SpotCheck) -> SpotValues {
        let ev = match check.ev {
            Some(ev) => ev,
            None => self.totals(Mode::Average),
        };
        Solver::values_with(check.best_response, ev)
    }

    fn values_with(br: [f64; 2], ev: [f64; 2]) -> SpotValues {
        SpotValues {
            ev,
            best_response: br,
            exploitability: 0.5 * ((br[0] - ev[0]) + (br[1] - ev[1])),
        }
    }

    /// Each player's value (weighted by its range and normalised by the pairs' weight) of a
    /// root walk in `mode`.
    fn totals(&mut self, mode: Mode) -> [f64; 2] {
        let sh = self.shared();
        let z = self.game.pair_weight();
        let this = &*self;
        [0, 1].map(|p| {
            let out = this.root_walk(sh, p, mode);
            out.iter()
                .zip(&this.game.weights[p])
                .map(|(v, w)| v * w)
                .sum::<f64>()
                / z
        })
    }

    /// Each player's share of the pot if both checked down from the root.
    pub fn root_equity(&self) -> [f64; 2] {
        self.game.root_equity()
    }

    /// The average strategy of player `p` at decision node `g` (hand-major, `k` per hand).
    pub fn average_at(&self, g: usize) -> Vec<f64> {
        let node = self.game.nodes[g];
        let GameKind::Decision(a) = node.kind else {
            return Vec::new();
        };
        let a = a as usize;
        let k = node.num_children as usize;
        let n = self.game.hands[a].len();
        let off = node.aux as usize;
        let rows = match &self.state {
            Stored::F32(s) => s.average_at(a, off, k, n),
            Stored::F64(s) => s.average_at(a, off, k, n),
            Stored::Compressed(s) => s.average_at(a, off, k, n),
        };
        self.game.rows_to_hands(g, a, k, rows)
    }

    fn take_scratch(&self) -> Scratch {
        if let Some(s) = self.scratch.lock().expect("scratch").pop() {
            return s;
        }
        let g = &self.game;
        let n = g.hands[0].len().max(g.hands[1].len());
        let d = g.depth + 2;
        Scratch {
            own: vec![0.0; d * n],
            opp: vec![0.0; d * n],
            vals: vec![0.0; d * g.max_actions * n],
            strat: vec![0.0; d * g.max_actions * n],
            tmp: vec![0.0; 4 * n],
            parts: Vec::new(),
            stack: Vec::with_capacity(d),
            terms: Vec::new(),
            term_opp: Vec::new(),
            term_vals: Vec::new(),
            ranked: vec![0.0; n],
        }
    }

    fn give_scratch(&self, s: Scratch) {
        self.scratch.lock().expect("scratch").push(s);
    }

    /// The traverser `p`'s counterfactual values at node `root` (a street's subtree walked
    /// with an explicit stack), given the reaches `own` and `opp`; into `out`.
    #[allow(clippy::too_many_arguments)]
    fn walk<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        own: &[f64],
        opp: &[f64],
        out: &mut [f64],
    ) {
        let mut sc = self.take_scratch();
        if self.game.nodes[root].board.count_ones() == 5 {
            self.walk_ranked(sh, root, p, mode, own, opp, &mut sc, out, true);
        } else {
            sc.own[..own.len()].copy_from_slice(own);
            sc.opp[..opp.len()].copy_from_slice(opp);
            self.walk_in(sh, root, p, mode, &mut sc, out, None);
        }
        self.give_scratch(sc);
    }

    /// [`Solver::walk`] from a node on the river, whose walk keeps every vector in its
    /// board's rank order ([`Showdown`]): the reaches `own` and `opp` (hand order) taken into
    /// it, the values `out` back from it when `hands`, else left in rank order. The hands
    /// holding a board card have no reach there.
    #[allow(clippy::too_many_arguments)]
    fn walk_ranked<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        own: &[f64],
        opp: &[f64],
        sc: &mut Scratch,
        out: &mut [f64],
        hands: bool,
    ) {
        let g = &self.game;
        let sd = &g.showdowns[g.river_board(root)][p];
        let (np, no) = (g.hands[p].len(), g.hands[1 - p].len());
        sd.to_rank(own, &mut sc.own[..np]);
        sd.opp_to_rank(opp, &mut sc.opp[..no]);
        if !hands {
            return self.walk_in(sh, root, p, mode, sc, &mut out[..np], None);
        }
        let mut ranked = std::mem::take(&mut sc.ranked);
        self.walk_in(sh, root, p, mode, sc, &mut ranked[..np], None);
        sd.to_hands(&ranked[..np], out);
        sc.ranked = ranked;
    }

    /// The opponent's reach at a child, `opp_c = opp_d x st` (the parent's reach times the
    /// action's probabilities), and whether it is all zero when the walks skip zero reaches.
    #[inline]
    fn child_reach(&self, opp_c: &mut [f64], opp_d: &[f64], st: &[f64]) -> bool {
        if self.zero_reach {
            !kernels::mul_nonzero(opp_c, opp_d, st)
        } else {
            kernels::mul(opp_c, opp_d, st);
            false
        }
    }

    /// A walk's first frame: node `root`, both reaches at level 0, `opp` the opponent's.
    fn root_frame(&self, root: usize, opp: &[f64]) -> Frame {
        Frame {
            block: 0,
            node: root as u32,
            next: 0,
            own: 0,
            opp: 0,
            zero: self.zero_reach && all_zero(opp),
        }
    }

    /// [`Solver::walk`] with the reaches at level 0 of `sc.own` and `sc.opp`.
    ///
    /// A reach a node does not change is not copied: each stack entry names the levels of
    /// `sc.own` and `sc.opp` holding its reaches (a child's own reach is written at its depth
    /// only where the traverser's strategy scales it, its opponent's only at the opponent's
    /// nodes). A finished node writes its values straight into its parent's slot of `vals`
    /// (the root into `out`).
    ///
    /// Where the opponent's reach is all zero (found as it is formed), every value below is
    /// 0: the opponent's nodes there compute no strategy (their children keep the zeros) and
    /// the terminals write the zeros their sums would give, with the same signs; the
    /// traverser's nodes are still walked (their regrets are discounted, their sums grow).
    #[allow(clippy::too_many_arguments)]
    fn walk_in<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        sc: &mut Scratch,
        out: &mut [f64],
        ready: Option<&StreetAllins>,
    ) {
        let g = &self.game;
        if self.batch && g.nodes[root].board.count_ones() == 5 {
            return self.walk_river(sh, root, p, mode, sc, out);
        }
        // The street's all-ins, evaluated before the walk (or by the street above, `ready`);
        // the walk meets them in the same order (the `allins` of them so far). On the flop,
        // the turn's all-ins below every chance node too, together ([`Solver::next_allins`]).
        let mut turn_allins = Vec::new();
        if self.batch && ready.is_none() {
            let mut chances = Vec::new();
            self.allin_values(sh, root, p, mode, sc, &mut chances);
            if g.nodes[root].board.count_ones() == 3 && !chances.is_empty() {
                turn_allins = self.next_allins(sh, p, mode, &chances, &sc.term_opp);
            }
        }
        let mut allins = 0;
        let o = 1 - p;
        let (np, no) = (g.hands[p].len(), g.hands[o].len());
        let n = g.hands[0].len().max(g.hands[1].len());
        let kmax = g.max_actions;
        let Scratch {
            own: sown,
            opp: sopp,
            vals,
            strat,
            tmp,
            parts,
            stack,
            terms,
            term_vals,
            ..
        } = sc;
        let (terms, term_vals) = match ready {
            Some(r) => (&r.terms[..], &r.vals[..]),
            None => (&terms[..], &term_vals[..]),
        };
        stack.clear();
        stack.push(self.root_frame(root, &sopp[..no]));
        while let Some(&top) = stack.last() {
            let d = stack.len() - 1;
            let (gi, i) = (top.node, top.next);
            let node = g.nodes[gi as usize];
            let (lown, lopp) = (top.own as usize, top.opp as usize);
            match node.kind {
                GameKind::Decision(a) if (i as usize) < node.num_children as usize => {
                    let a = a as usize;
                    let k = node.num_children as usize;
                    let na = g.hands[a].len();
                    let off = node.aux as usize;
                    let st = &mut strat[d * kmax * n..d * kmax * n + k * na];
                    // Under a zero opponent reach the opponent's strategy is not needed: its
                    // children's reach is the parent's zeros.
                    let skip = top.zero && a != p;
                    if i == 0 && !skip {
                        // The node's strategy, once per visit.
                        match mode {
                            Mode::Train(..) => sh.current(gi as usize, a, off, k, a == p, st, tmp),
                            Mode::BestResponse if a == p => {}
                            _ => sh.average(gi as usize, a, off, k, st, tmp),
                        }
                    }
                    stack.last_mut().expect("top").next += 1;
                    let child = node.first_child as usize + i as usize;
                    let ia = i as usize;
                    // The child's reaches: the parent's levels, or level `d + 1` where they
                    // change (the levels read are at most `d`).
                    let mut next = Frame {
                        node: child as u32,
                        next: 0,
                        ..top
                    };
                    if a == p {
                        if let Mode::Train(..) = mode {
                            let (lo, hi) = sown.split_at_mut((d + 1) * n);
                            let own_d = &lo[lown * n..lown * n + np];
                            kernels::mul(&mut hi[..np], own_d, &st[ia * np..ia * np + np]);
                            next.own = d as u32 + 1;
                        }
                    } else if !skip {
                        let (lo, hi) = sopp.split_at_mut((d + 1) * n);
                        let opp_d = &lo[lopp * n..lopp * n + no];
                        let opp_c = &mut hi[..no];
                        next.opp = d as u32 + 1;
                        next.zero = self.child_reach(opp_c, opp_d, &st[ia * no..ia * no + no]);
                    }
                    stack.push(next);
                    continue;
                }
                _ => {}
            }
            // A finished node: its values into its parent's slot (the root's into `out`).
            let (below, here) = vals.split_at_mut(d * kmax * n);
            let r: &mut [f64] = if d == 0 {
                &mut out[..np]
            } else {
                let slot = stack[d - 1].next as usize - 1;
                let at = ((d - 1) * kmax + slot) * n;
                &mut below[at..at + np]
            };
            let own_d = &sown[lown * n..lown * n + np];
            let opp_d = &sopp[lopp * n..lopp * n + no];
            match node.kind {
                GameKind::Decision(a) => {
                    let a = a as usize;
                    let k = node.num_children as usize;
                    let v = &here[..k * n];
                    if a != p {
                        sum_children(v, n, k, r);
                    } else {
                        let st = &mut strat[d * kmax * n..d * kmax * n + k * np];
                        self.finish_own(sh, mode, gi as usize, node, v, n, st, own_d, r);
                    }
                }
                GameKind::Chance => {
                    let ready = turn_allins.iter().find(|b| b.0 == gi).map(|b| &b.1[..]);
                    self.chance(sh, &node, p, mode, own_d, opp_d, r, parts, ready);
                }
                GameKind::Fold(f) if top.zero && node.board.count_ones() == 5 => {
                    // What a river fold's sums give from zero reaches: `coef x +0`, and +0 for
                    // the hands holding a board card.
                    let coef = self.fold_coef(&node, f as usize, p);
                    r.fill(coef * 0.0);
                    g.showdowns[node.aux as usize][p].zero_off_board(r);
                }
                GameKind::Fold(f) if top.zero => {
                    // What the fold's sums give from zero reaches (each +0, whatever the zeros'
                    // signs, as the sums start from +0): `coef x +0`, and +0 for the blocked.
                    let coef = self.fold_coef(&node, f as usize, p);
                    r.fill(coef * 0.0);
                    g.zero_dealt(&node, p, r);
                }
                GameKind::Fold(f) if node.board.count_ones() == 5 => {
                    // On the river, as the batched walk evaluates it (`river_terminals`): the
                    // sums over the board's sorted lists.
                    let coef = self.fold_coef(&node, f as usize, p);
                    g.showdowns[node.aux as usize][p].fold_values(opp_d, coef, r);
                }
                GameKind::Showdown | GameKind::AllIn if top.zero => {
                    // `(a - s) x +0 + s x +0` for every hand with `s >= 0`: +0.
                    r.fill(0.0);
                }
                GameKind::Showdown => {
                    // On the river: its board's lists, in rank order as the walk is.
                    let c = g.tree.nodes[node.tree_node as usize].committed[0] as f64;
                    let [a, s] = g.showdown_coefs(c);
                    g.showdowns[node.aux as usize][p].values(opp_d, a, s, r);
                }
                GameKind::Fold(f) => {
                    let coef = self.fold_coef(&node, f as usize, p);
                    g.folds[p].sums_times(opp_d, coef, r);
                    g.zero_dealt(&node, p, r);
                }
                GameKind::AllIn if self.batch => {
                    debug_assert_eq!(terms[allins].0, gi, "the all-ins in preorder");
                    r.copy_from_slice(&term_vals[allins * n..allins * n + np]);
                    allins += 1;
                }
                GameKind::AllIn => {
                    let t = &g.tree.nodes[node.tree_node as usize];
                    let c = t.committed[0] as f64;
                    let list = &g.runouts[node.aux as usize];
                    let parallel = self.pool.is_some();
                    g.showdown_values(p, node.board, list, opp_d, c, r, tmp, parallel);
                    // The hands holding a card of the board are 0 in every showdown on it.
                }
            }
            stack.pop();
        }
    }

    /// The values `r` of the traverser's decision node `node` (index `gi`) from its
    /// children's `v` (row `c` at `c * n`) under `mode`: the strategy's mix and the set update
    /// (`st` the current strategy, `own` the traverser's reach) when training, the best
    /// action's when best-responding, the average strategy's mix otherwise.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn finish_own<B: Access>(
        &self,
        sh: B,
        mode: Mode,
        gi: usize,
        node: GameNode,
        v: &[f64],
        n: usize,
        st: &mut [f64],
        own: &[f64],
        r: &mut [f64],
    ) {
        let GameKind::Decision(a) = node.kind else {
            return;
        };
        let (a, k, off) = (a as usize, node.num_children as usize, node.aux as usize);
        let np = r.len();
        match mode {
            Mode::Train(f, kind) => {
                weighted_sum(st, v, n, k, r);
                let at = NodeAt { off, k, n };
                match kind {
                    PLAIN => sh.update::<PLAIN>(gi, a, at, v, r, own, st, f),
                    STANDARD => sh.update::<STANDARD>(gi, a, at, v, r, own, st, f),
                    EXTENDED => sh.update::<EXTENDED>(gi, a, at, v, r, own, st, f),
                    _ => sh.update::<VAD>(gi, a, at, v, r, own, st, f),
                }
            }
            Mode::BestResponse => {
                r.copy_from_slice(&v[..np]);
                for c in 1..k {
                    kernels::max_assign(r, &v[c * n..c * n + np]);
                }
            }
            Mode::Average => weighted_sum(st, v, n, k, r),
        }
    }

    /// A first pass's step from decision node `top` (its `next` child not yet counted) to that
    /// child, carrying the opponent `o`'s reach down: at the opponent's node (its reach not
    /// all zero) the strategy once per visit into `st` (the node's depth's scratch) and the
    /// child's reach kept in `term_opp` (the `used`-th reach; the buffer only grows). The
    /// child's frame, its `block` not set.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn opp_step<B: Access>(
        &self,
        sh: &B,
        mode: Mode,
        o: usize,
        top: Frame,
        st: &mut [f64],
        tmp: &mut [f64],
        term_opp: &mut Vec<f64>,
        used: &mut usize,
    ) -> Frame {
        let g = &self.game;
        let no = g.hands[o].len();
        let (gi, i) = (top.node as usize, top.next as usize);
        let node = &g.nodes[gi];
        let k = node.num_children as usize;
        let mut next = Frame {
            node: node.first_child + i as u32,
            next: 0,
            ..top
        };
        if node.kind != GameKind::Decision(o as u8) || top.zero {
            return next;
        }
        let st = &mut st[..k * no];
        if i == 0 {
            let off = node.aux as usize;
            // The state's view is copied only here: a step that copies it costs a `memcpy`.
            match mode {
                Mode::Train(..) => (*sh).current(gi, o, off, k, false, st, tmp),
                _ => (*sh).average(gi, o, off, k, st, tmp),
            }
        }
        let u = *used;
        if term_opp.len() < (u + 1) * no {
            term_opp.resize((u + 1) * no, 0.0);
        }
        let (lo, hi) = term_opp.split_at_mut(u * no);
        let opp_d = &lo[top.opp as usize * no..top.opp as usize * no + no];
        let opp_c = &mut hi[..no];
        next.opp = u as u32;
        next.zero = self.child_reach(opp_c, opp_d, &st[i * no..i * no + no]);
        *used += 1;
        next
    }

    /// The traverser `p`'s values at the all-ins of the street of `root` (the walk of
    /// [`Solver::walk_in`] down to its chance nodes, the reaches at level 0 of `sc.own` and
    /// `sc.opp`) into `sc.term_vals`, `n` apart in preorder (`sc.terms`: their nodes), those
    /// under a zero opponent reach left out (the walk writes their zeros). A first pass
    /// carries the opponent's reach down to them as the walk does; then their runouts go
    /// [`LANES`] all-ins to a sweep of each river board ([`Game::runout_values`], the bits of
    /// one evaluation each) instead of one sweep per all-in and board. The street's chance
    /// nodes under a nonzero opponent reach go to `chances` (node, and its reach's index in
    /// `sc.term_opp`).
    fn allin_values<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        sc: &mut Scratch,
        chances: &mut Vec<(u32, u32)>,
    ) {
        self.allin_terms(sh, root, p, mode, sc, chances);
        let Scratch {
            parts,
            terms,
            term_opp,
            term_vals,
            ..
        } = sc;
        let no = self.game.hands[1 - p].len();
        let opp: Vec<&[f64]> = terms
            .iter()
            .map(|t| &term_opp[t.2 as usize * no..t.2 as usize * no + no])
            .collect();
        self.allin_eval(p, terms, &opp, term_vals, parts, self.pool.is_some());
    }

    /// The first pass of [`Solver::allin_values`]: the street's all-ins under a nonzero
    /// opponent reach into `sc.terms` (each naming its reach in `sc.term_opp`), and its chance
    /// nodes under a nonzero opponent reach into `chances` (node, reach).
    fn allin_terms<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        sc: &mut Scratch,
        chances: &mut Vec<(u32, u32)>,
    ) {
        let g = &self.game;
        let o = 1 - p;
        let no = g.hands[o].len();
        let n = g.hands[0].len().max(g.hands[1].len());
        let kmax = g.max_actions;
        let Scratch {
            opp: sopp,
            strat,
            tmp,
            stack,
            terms,
            term_opp,
            ..
        } = sc;
        // The opponent's reaches as in `walk_river`'s first pass: the root's, then one per
        // child of an opponent's node (`used` of them).
        let mut used = first_pass(terms, term_opp, &sopp[..no]);
        stack.clear();
        stack.push(self.root_frame(root, &sopp[..no]));
        while let Some(&top) = stack.last() {
            let d = stack.len() - 1;
            let (gi, i) = (top.node, top.next);
            let node = g.nodes[gi as usize];
            match node.kind {
                GameKind::Decision(_) if (i as usize) < node.num_children as usize => {
                    stack.last_mut().expect("top").next += 1;
                    let st = &mut strat[d * kmax * n..(d + 1) * kmax * n];
                    let next = self.opp_step(&sh, mode, o, top, st, tmp, term_opp, &mut used);
                    stack.push(next);
                    continue;
                }
                GameKind::AllIn if !top.zero => terms.push((gi, false, top.opp, 0)),
                GameKind::Chance if !top.zero => chances.push((gi, top.opp)),
                _ => {}
            }
            stack.pop();
        }
    }

    /// The traverser `p`'s values at the all-ins `terms` (on one board: the same runouts),
    /// the opponent's reach at all-in `x` being `opp[x]`, into `vals` (`n` apart; grown as
    /// needed) by [`Game::runout_values`] (`parallel`: its boards on the pool).
    fn allin_eval(
        &self,
        p: usize,
        terms: &[(u32, bool, u32, u32)],
        opp: &[&[f64]],
        vals: &mut Vec<f64>,
        buf: &mut Vec<f64>,
        parallel: bool,
    ) {
        let g = &self.game;
        let n = g.hands[0].len().max(g.hands[1].len());
        if terms.is_empty() {
            return;
        }
        if vals.len() < terms.len() * n {
            vals.resize(terms.len() * n, 0.0);
        }
        let node = g.nodes[terms[0].0 as usize];
        let list = &g.runouts[node.aux as usize];
        debug_assert!(terms.iter().all(|t| g.nodes[t.0 as usize].aux == node.aux));
        let c: Vec<f64> = terms
            .iter()
            .map(|t| {
                let tn = &g.tree.nodes[g.nodes[t.0 as usize].tree_node as usize];
                tn.committed[0] as f64
            })
            .collect();
        let mut out: Vec<&mut [f64]> = vals[..terms.len() * n].chunks_mut(n).collect();
        g.runout_values(p, node.board, list, opp, &c, &mut out, buf, parallel);
    }

    /// The all-ins of the turn below each of the flop's chance nodes `chances` (node, and the
    /// opponent's reach there: the `reach`-th of `opp_at`), for the walks of the turn to read
    /// ([`Solver::walk_in`]'s `ready`): for each turn card, the first pass of
    /// [`Solver::allin_values`] below every chance node, then their all-ins together, four to
    /// a sweep of each river board (each chance node's line alone fills about two of a
    /// sweep's four lanes). Each value has the bits of its own evaluation. The cards go to
    /// the pool.
    fn next_allins<B: Access>(
        &self,
        sh: B,
        p: usize,
        mode: Mode,
        chances: &[(u32, u32)],
        opp_at: &[f64],
    ) -> Vec<(u32, Vec<StreetAllins>)> {
        let g = &self.game;
        let o = 1 - p;
        let no = g.hands[o].len();
        let n = g.hands[0].len().max(g.hands[1].len());
        // Every chance node of the street deals the same classes of cards (one board).
        let cards = g.nodes[chances[0].0 as usize].num_children as usize;
        debug_assert!(chances
            .iter()
            .all(|c| g.nodes[c.0 as usize].num_children as usize == cards));
        let card = |i: usize| -> Vec<StreetAllins> {
            let mut sc = self.take_scratch();
            let mut lines = Vec::with_capacity(chances.len());
            let mut reaches: Vec<f64> = Vec::new();
            for &(x, reach) in chances {
                let node = &g.nodes[x as usize];
                let child = node.first_child as usize + i;
                let at = &opp_at[reach as usize * no..reach as usize * no + no];
                g.dealt_reach(node, i, o, at, &mut sc.opp[..no]);
                self.allin_terms(sh, child, p, mode, &mut sc, &mut Vec::new());
                for t in &sc.terms {
                    let at = t.2 as usize * no;
                    reaches.extend_from_slice(&sc.term_opp[at..at + no]);
                }
                lines.push(StreetAllins {
                    terms: std::mem::take(&mut sc.terms),
                    vals: Vec::new(),
                });
            }
            let terms: Vec<(u32, bool, u32, u32)> =
                lines.iter().flat_map(|l| l.terms.iter().copied()).collect();
            let opp: Vec<&[f64]> = reaches.chunks(no.max(1)).collect();
            let mut vals = Vec::new();
            self.allin_eval(p, &terms, &opp, &mut vals, &mut sc.parts, false);
            let mut from = 0;
            for l in &mut lines {
                let len = l.terms.len() * n;
                l.vals = vals[from..from + len].to_vec();
                from += len;
            }
            self.give_scratch(sc);
            lines
        };
        let per_card: Vec<Vec<StreetAllins>> = match &self.pool {
            Some(_) => (0..cards).into_par_iter().map(card).collect(),
            None => (0..cards).map(card).collect(),
        };
        // Card-major to chance-node-major.
        let mut out: Vec<(u32, Vec<StreetAllins>)> = chances
            .iter()
            .map(|c| (c.0, Vec::with_capacity(cards)))
            .collect();
        for lines in per_card {
            for (o, l) in out.iter_mut().zip(lines) {
                o.1.push(l);
            }
        }
        out
    }

    /// [`Solver::walk_in`] of a river subtree (no chance node below `root`), in three passes
    /// so that its terminals are evaluated together: the showdowns and folds on its one board
    /// in one sweep per [`LANES`] of them ([`Showdown::values_batch`], the traverser's folds
    /// riding on their sibling calls' lanes), each with the bits of one evaluation. The first
    /// pass carries the opponent's reach down to every terminal (the opponent's strategies
    /// are needed for nothing else), the second evaluates the terminals, the third carries
    /// the traverser's reach down and the values up as [`Solver::walk_in`] does (the
    /// traverser's strategies, the set update), reading the terminals' values in the same
    /// preorder. Reaches are not copied where a node does not change them, as in
    /// [`Solver::walk_in`], and a zero opponent reach is skipped the same way.
    fn walk_river<B: Access>(
        &self,
        sh: B,
        root: usize,
        p: usize,
        mode: Mode,
        sc: &mut Scratch,
        out: &mut [f64],
    ) {
        let g = &self.game;
        let o = 1 - p;
        let (np, no) = (g.hands[p].len(), g.hands[o].len());
        let n = g.hands[0].len().max(g.hands[1].len());
        let kmax = g.max_actions;
        let Scratch {
            own: sown,
            opp: sopp,
            strat,
            tmp,
            stack,
            terms,
            term_opp,
            term_vals,
            ..
        } = sc;
        // The opponent's reach at every terminal, in preorder: each reach a node forms is
        // kept in `term_opp` (`used` of them so far; the buffer only grows), where the
        // terminals below read it, so no terminal copies one.
        let mut used = first_pass(terms, term_opp, &sopp[..no]);
        // The values' rows: the root's (row 0), then a block of rows per decision node, one
        // per child, in preorder (`Frame::block`: its first row): a child writes its values
        // straight into its row of its parent's block, where the parent reads them (no copy).
        let row = |block: u32, slot: u32| block as usize + slot as usize;
        // The first free row after the root's and the root's block.
        let first = 1 + g.nodes[root].num_children;
        let mut rows = first;
        stack.clear();
        stack.push(Frame {
            block: 1,
            ..self.root_frame(root, &sopp[..no])
        });
        while let Some(&top) = stack.last() {
            let d = stack.len() - 1;
            let (gi, i) = (top.node, top.next);
            let node = g.nodes[gi as usize];
            match node.kind {
                GameKind::Decision(_) if (i as usize) < node.num_children as usize => {
                    stack.last_mut().expect("top").next += 1;
                    let st = &mut strat[d * kmax * n..(d + 1) * kmax * n];
                    let mut next = self.opp_step(&sh, mode, o, top, st, tmp, term_opp, &mut used);
                    // A terminal's row is in its parent's block.
                    next.block = next_block(&g.nodes, &mut rows, next.node)
                        .unwrap_or(row(top.block, i) as u32);
                    stack.push(next);
                    continue;
                }
                GameKind::Decision(_) => {}
                GameKind::Fold(_) | GameKind::Showdown => {
                    // The root's row when the walk is one terminal.
                    let at = if d == 0 { 0 } else { top.block };
                    terms.push((gi, top.zero, top.opp, at));
                }
                GameKind::Chance | GameKind::AllIn => {
                    unreachable!("a river subtree has no chance node and no runout")
                }
            }
            stack.pop();
        }
        let len = rows as usize * n;
        if term_vals.len() < len {
            term_vals.resize(len, 0.0);
        }
        self.river_terminals(p, terms, &term_opp[..used * no], &mut term_vals[..len]);
        // The traverser's reach down, the values up.
        let mut rows = first;
        stack.push(Frame {
            node: root as u32,
            next: 0,
            own: 0,
            opp: 0,
            zero: false,
            block: 1,
        });
        while let Some(&top) = stack.last() {
            let d = stack.len() - 1;
            let (gi, i) = (top.node, top.next);
            let node = g.nodes[gi as usize];
            let lown = top.own as usize;
            if let GameKind::Decision(a) = node.kind {
                let (a, k) = (a as usize, node.num_children as usize);
                if (i as usize) < k {
                    let st = &mut strat[d * kmax * n..d * kmax * n + k * np];
                    if a == p && i == 0 {
                        let off = node.aux as usize;
                        match mode {
                            Mode::Train(..) => sh.current(gi as usize, a, off, k, true, st, tmp),
                            Mode::BestResponse => {}
                            Mode::Average => sh.average(gi as usize, a, off, k, st, tmp),
                        }
                    }
                    stack.last_mut().expect("top").next += 1;
                    let child = node.first_child + i;
                    let mut next = Frame {
                        node: child,
                        next: 0,
                        ..top
                    };
                    if let Some(b) = next_block(&g.nodes, &mut rows, child) {
                        next.block = b;
                    }
                    if let (true, Mode::Train(..)) = (a == p, mode) {
                        let ia = i as usize;
                        let (lo, hi) = sown.split_at_mut((d + 1) * n);
                        let own_d = &lo[lown * n..lown * n + np];
                        kernels::mul(&mut hi[..np], own_d, &st[ia * np..ia * np + np]);
                        next.own = d as u32 + 1;
                    }
                    stack.push(next);
                    continue;
                }
            }
            // A finished decision node: its values from its block into its row of its
            // parent's block (the root's into `out`); a terminal's are in place already.
            let GameKind::Decision(a) = node.kind else {
                if d == 0 {
                    out[..np].copy_from_slice(&term_vals[..np]);
                }
                stack.pop();
                continue;
            };
            let (below, here) = term_vals.split_at_mut(row(top.block, 0) * n);
            let r: &mut [f64] = if d == 0 {
                &mut out[..np]
            } else {
                let parent = &stack[d - 1];
                let at = row(parent.block, parent.next - 1) * n;
                &mut below[at..at + np]
            };
            let k = node.num_children as usize;
            if a as usize != p {
                sum_children(here, n, k, r);
            } else {
                let st = &mut strat[d * kmax * n..d * kmax * n + k * np];
                let own_d = &sown[lown * n..lown * n + np];
                self.finish_own(sh, mode, gi as usize, node, &here[..k * n], n, st, own_d, r);
            }
            stack.pop();
        }
    }

    /// The traverser `p`'s values at a river walk's terminals (`terms` in preorder, each
    /// naming its reach in `opp`) into `vals`, [`LANES`] reach vectors per pass over the
    /// board's sorted lists ([`Showdown::values_batch`]), the zero-reach terminals as
    /// [`Solver::walk_in`] writes them.
    ///
    /// The showdowns take one lane each. The traverser's fold shares its reach with its
    /// sibling call's showdown (the traverser's own node does not change the opponent's
    /// reach), so it rides on that lane, its values taken from the same sums. The opponent's
    /// folds fill the last pass's idle lanes, then go four to a pass that only sums. A fold has
    /// the bits of [`Showdown::fold_values`] wherever it is evaluated.
    fn river_terminals(
        &self,
        p: usize,
        terms: &[(u32, bool, u32, u32)],
        opp: &[f64],
        rows: &mut [f64],
    ) {
        let g = &self.game;
        let (np, no) = (g.hands[p].len(), g.hands[1 - p].len());
        let n = g.hands[0].len().max(g.hands[1].len());
        // Each terminal's row (every entry of its first `np` written below: no zeros first).
        let mut rows: Vec<Option<&mut [f64]>> = rows.chunks_mut(n).map(Some).collect();
        let mut outs: Vec<Option<&mut [f64]>> = terms
            .iter()
            .map(|t| rows[t.3 as usize].take().map(|r| &mut r[..np]))
            .collect();
        /// A showdown's lane: its terminal, its reach's index, its coefficients and the fold
        /// riding on it (terminal, chips per unit of reach).
        struct SdLane {
            t: usize,
            at: usize,
            a: f64,
            s: f64,
            fold: Option<(usize, f64)>,
        }
        // The showdowns' lanes and the folds (terminal, reach index, coef), in preorder.
        let mut showdowns: Vec<SdLane> = Vec::new();
        let (mut own_folds, mut folds) = (Vec::new(), Vec::new());
        let mut board = None;
        for (t, &(gi, zero, at, _)) in terms.iter().enumerate() {
            let at = at as usize;
            let node = g.nodes[gi as usize];
            debug_assert!(
                board.is_none_or(|b| b as u64 == node.aux),
                "one river board"
            );
            board = Some(node.aux as usize);
            let out = outs[t].as_mut().expect("each terminal once");
            match (node.kind, zero) {
                (GameKind::Fold(f), true) => {
                    // As [`Solver::walk_in`]: `coef x +0`, and +0 off the board.
                    out.fill(self.fold_coef(&node, f as usize, p) * 0.0);
                    g.showdowns[node.aux as usize][p].zero_off_board(out);
                }
                (_, true) => out.fill(0.0),
                (GameKind::Showdown, false) => {
                    let c = g.tree.nodes[node.tree_node as usize].committed[0] as f64;
                    let [a, s] = g.showdown_coefs(c);
                    showdowns.push(SdLane {
                        t,
                        at,
                        a,
                        s,
                        fold: None,
                    });
                }
                (GameKind::Fold(f), false) => {
                    let coef = self.fold_coef(&node, f as usize, p);
                    if f as usize == p {
                        own_folds.push((t, at, coef));
                    } else {
                        folds.push((t, at, coef));
                    }
                }
                _ => unreachable!("a river terminal"),
            }
        }
        for (t, at, coef) in own_folds {
            match showdowns
                .iter_mut()
                .find(|l| l.at == at && l.fold.is_none())
            {
                Some(lane) => lane.fold = Some((t, coef)),
                None => folds.push((t, at, coef)),
            }
        }
        let Some(b) = board else { return };
        let sd = &g.showdowns[b][p];
        let reach = |x: usize| &opp[x * no..x * no + no];
        let idle = (LANES - showdowns.len() % LANES) % LANES;
        let mut folds = folds.into_iter();
        for (c, chunk) in showdowns.chunks(LANES).enumerate() {
            let mut lanes: Vec<Lane> = Vec::with_capacity(LANES);
            for l in chunk {
                lanes.push(Lane {
                    reach: reach(l.at),
                    a: l.a,
                    s: l.s,
                    out: outs[l.t].take(),
                    fold: l
                        .fold
                        .map(|(t, coef)| (coef, outs[t].take().expect("each once"))),
                });
            }
            if (c + 1) * LANES >= showdowns.len() {
                for (t, x, coef) in folds.by_ref().take(idle) {
                    lanes.push(Lane {
                        reach: reach(x),
                        a: 0.0,
                        s: 0.0,
                        out: None,
                        fold: Some((coef, outs[t].take().expect("each terminal once"))),
                    });
                }
            }
            sd.values_batch(&mut lanes);
        }
        let rest: Vec<_> = folds.collect();
        for chunk in rest.chunks(LANES) {
            let mut lanes: Vec<Lane> = chunk
                .iter()
                .map(|&(t, x, coef)| Lane {
                    reach: reach(x),
                    a: 0.0,
                    s: 0.0,
                    out: None,
                    fold: Some((coef, outs[t].take().expect("each terminal once"))),
                })
                .collect();
            sd.values_batch(&mut lanes);
        }
    }

    /// Player `p`'s chips per unit of the opponent's reach at the fold of player `f` at
    /// `node`.
    fn fold_coef(&self, node: &GameNode, f: usize, p: usize) -> f64 {
        let g = &self.game;
        let t = &g.tree.nodes[node.tree_node as usize];
        let c = [t.committed[0] as f64, t.committed[1] as f64];
        // An uncalled bet goes back: the raked pot holds the called chips.
        let final_pot = g.pot + 2.0 * c[0].min(c[1]);
        let rk = rake_of(final_pot, g.rake, g.rake_cap);
        if f == p {
            -c[p]
        } else {
            g.pot + c[1 - p] - rk
        }
    }

    /// A chance node's values: one walk per card (in parallel on the solver's pool, each with
    /// a scratch of the scratch pool, its values in `parts`), summed in card order.
    #[allow(clippy::too_many_arguments)]
    fn chance<B: Access>(
        &self,
        sh: B,
        node: &GameNode,
        p: usize,
        mode: Mode,
        own: &[f64],
        opp: &[f64],
        out: &mut [f64],
        parts: &mut Vec<f64>,
        ready: Option<&[StreetAllins]>,
    ) {
        let g = &self.game;
        let o = 1 - p;
        let np = own.len();
        let first = node.first_child as usize;
        parts.resize(node.num_children as usize * np, 0.0);
        let card_walk = |(i, v): (usize, &mut [f64])| {
            let c = first + i;
            let mut sc = self.take_scratch();
            if g.nodes[c].board.count_ones() == 5 {
                // The river card's hands, like every hand holding a board card, have no reach
                // in rank order; the values stay in rank order, back to hand order as they
                // are summed below.
                self.walk_ranked(sh, c, p, mode, own, opp, &mut sc, v, false);
            } else {
                g.dealt_reach(node, i, p, own, &mut sc.own[..np]);
                g.dealt_reach(node, i, o, opp, &mut sc.opp[..opp.len()]);
                self.walk_in(sh, c, p, mode, &mut sc, v, ready.map(|r| &r[i]));
            }
            self.give_scratch(sc);
        };
        if self.pool.is_some() {
            parts
                .par_chunks_mut(np.max(1))
                .enumerate()
                .for_each(card_walk);
        } else {
            // One thread: the calling thread walks every card (rayon's global pool would
            // hand the cards to its own threads and wake them at every chance node).
            parts.chunks_mut(np.max(1)).enumerate().for_each(card_walk);
        }
        // Every card in card order: its class's values, the hands permuted when the card is
        // not the class's own; a river card's values from their board's rank order.
        out.fill(0.0);
        let river = node.board.count_ones() == 4;
        for &(child, k) in &g.deals[node.aux as usize] {
            let part = &parts[child as usize * np..child as usize * np + np];
            let ranked = river.then(|| {
                let b = g.river_board(first + child as usize);
                g.showdowns[b][p].perm()
            });
            match (ranked, k) {
                (None, 0) => kernels::add_assign(out, part),
                (None, _) => {
                    let map = &g.symmetries.hand_maps[k as usize - 1][p];
                    for (&j, y) in map.iter().zip(part) {
                        out[j as usize] += y;
                    }
                }
                (Some(perm), 0) => {
                    for (&i, y) in perm.iter().zip(part) {
                        out[i as usize] += y;
                    }
                }
                (Some(perm), _) => {
                    let map = &g.symmetries.hand_maps[k as usize - 1][p];
                    for (&i, y) in perm.iter().zip(part) {
                        out[map[i as usize] as usize] += y;
                    }
                }
            }
        }
        kernels::scale(out, 1.0 / g.cards_left(node.board));
    }
}

/// A first pass's start ([`Solver::opp_step`]): no terminal met yet, and the root's
/// opponent reach `opp` the first reach of `term_opp`; the number of reaches kept (1).
fn first_pass(
    terms: &mut Vec<(u32, bool, u32, u32)>,
    term_opp: &mut Vec<f64>,
    opp: &[f64],
) -> usize {
    terms.clear();
    if term_opp.len() < opp.len() {
        term_opp.resize(opp.len(), 0.0);
    }
    term_opp[..opp.len()].copy_from_slice(opp);
    1
}

/// A river walk's rows: when `child` is a decision node, its block (its first row, one row
/// per child), taken from `rows` (the next free row) in the order the walk meets the nodes;
/// `None` for a terminal. Both passes of [`Solver::walk_river`] number the blocks with it.
fn next_block(nodes: &[GameNode], rows: &mut u32, child: u32) -> Option<u32> {
    let c = nodes[child as usize];
    matches!(c.kind, GameKind::Decision(_)).then(|| {
        let b = *rows;
        *rows += c.num_children;
        b
    })
}

/// The current strategy of player `a` at the node whose entries start at `off` (`k`
/// actions) into `out` (action-major: action `c` of hand `h` at `c * n + h`, `n` the
/// player's hands, as the entries are stored); `tot` (`n` long) is scratch. `own`: the node's
/// set update follows (its sums are asked for in the cache meanwhile).
#[inline]
fn strategy_of<S: Real>(
    sh: Shared<S>,
    a: usize,
    off: usize,
    k: usize,
    own: bool,
    out: &mut [f64],
    tot: &mut [f64],
) {
    let len = out.len();
    match sh.current {
        Current::Regrets => {
            // SAFETY: the node's entries; no walk writes them while this one reads.
            let regret = unsafe { slice(sh.regret[a], off, len) };
            let last: &[S] = if sh.keeps_last {
                unsafe { slice(sh.last[a], off, len) }
            } else {
                &[]
            };
            let sums: &[S] = if own {
                // SAFETY: as the regrets; only their addresses are used.
                unsafe { slice(sh.sum[a], off, len) }
            } else {
                &[]
            };
            columns::match_columns(regret, last, &sh.factors[a], k, out, tot, sums);
        }
        Current::Stored | Current::Play => {
            let src = if sh.current == Current::Play {
                sh.play[a]
            } else {
                sh.sigma[a] as *const S
            };
            let src = unsafe { slice(src, off, len) };
            for (o, x) in out.iter_mut().zip(src) {
                *o = x.get();
            }
        }
    }
}

/// Every entry is zero (either sign).
#[inline]
fn all_zero(x: &[f64]) -> bool {
    x.iter().all(|&v| v == 0.0)
}

/// `r[h]`: the sum over actions `c` (in order, from 0) of `st[c * m + h] x v[c * n + h]`,
/// `m = r.len()`: a node's value under the action-major strategy `st`, the same sum per
/// hand as a hand-major loop, taken action by action over every hand.
#[inline]
fn weighted_sum(st: &[f64], v: &[f64], n: usize, k: usize, r: &mut [f64]) {
    let m = r.len();
    kernels::mul_from_zero(r, &st[..m], &v[..m]);
    for c in 1..k {
        kernels::mul_add_assign(r, &st[c * m..c * m + m], &v[c * n..c * n + m]);
    }
}

/// `r[h]`: the sum over the children `c` (in order, from the first) of `v[c * n + h]`, an
/// opponent's node's value.
#[inline]
fn sum_children(v: &[f64], n: usize, k: usize, r: &mut [f64]) {
    let m = r.len();
    if k == 1 {
        r.copy_from_slice(&v[..m]);
        return;
    }
    kernels::add_into(r, &v[..m], &v[n..n + m]);
    for c in 2..k {
        kernels::add_assign(r, &v[c * n..c * n + m]);
    }
}

/// Where a decision node's entries are: its offset, actions and the scratch row length.
#[derive(Clone, Copy)]
struct NodeAt {
    off: usize,
    k: usize,
    n: usize,
}

/// The set update of every hand at one of the traverser's nodes: `v` holds the children's
/// values (row `c` at `c * n`), `r` the node's; `own` the traverser's reach; `st` the
/// node's current strategy. The node's action-major entries are updated in place as
/// [`crate::cfr::tree::apply_rule`] updates each hand's ([`columns::update_block`]), read into f64 and stored
/// back in the state's precision; the next strategy the rule computes is stored only where
/// the walks read it back (VAD-CFR's stored strategy), and otherwise dropped: the next visit
/// recomputes it from the regrets ([`columns::match_columns`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
fn update_node<S: Real, const KIND: u8>(
    sh: Shared<S>,
    a: usize,
    at: NodeAt,
    v: &[f64],
    r: &[f64],
    own: &[f64],
    st: &[f64],
    f: Factors,
) {
    let NodeAt { off, k, n } = at;
    let len = k * r.len();
    // SAFETY: the entries of this node; no other walk touches them.
    let (last, sigma) = unsafe { sh.rule_arrays(a, off, len) };
    let block = Block {
        regret: unsafe { slice_mut(sh.regret[a], off, len) },
        sum: unsafe { slice_mut(sh.sum[a], off, len) },
        last,
        sigma,
    };
    let x = Inputs {
        v,
        stride: n,
        r,
        own,
        st,
        k,
    };
    columns::update_block::<S, S, KIND>(block, x, f)
}

/// The average strategy of a node from its action-major sums (`k` rows), hand-major (`k`
/// probabilities per hand), as [`Solver::average_at`] gives it.
fn average_rows<S: Get>(sum: &[S], k: usize) -> Vec<f64> {
    let n = sum.len() / k;
    let (mut cols, mut tot) = (vec![0.0; k * n], vec![0.0; n]);
    columns::average_columns(sum, k, &mut cols, &mut tot);
    let mut out = vec![0.0; k * n];
    columns::to_rows(&cols, k, &mut out);
    out
}

/// # Safety
/// `ptr..ptr + off + len` lies in one live array.
#[inline]
unsafe fn slice<'a, S>(ptr: *const S, off: usize, len: usize) -> &'a [S] {
    std::slice::from_raw_parts(ptr.add(off), len)
}

/// # Safety
/// As [`slice`], and no other reference to these entries is live.
#[inline]
unsafe fn slice_mut<'a, S>(ptr: *mut S, off: usize, len: usize) -> &'a mut [S] {
    std::slice::from_raw_parts_mut(ptr.add(off), len)
}
