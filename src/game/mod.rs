//! The extensive-form game model: a two-player game with chance, information sets and exact
//! payoffs, compiled into a flat arena.
//!
//! Nodes are stored in breadth-first order with each node's children contiguous, so a forward
//! sweep over `nodes` visits parents before children and a backward sweep visits children first:
//! the evaluators and solvers need no recursion and no pointer chasing.

mod builder;
pub mod rules;

pub(crate) use builder::{check_perfect_recall, shared_labels};
pub use builder::{GameBuilder, NodeRef};
pub use rules::{compile, Rules, Turn};

use crate::format::text::{quoted, quoted_list};
use crate::scalar::Rational;
use std::collections::HashMap;
use std::hash::Hash;
use std::ops::{Index, Range};
use std::sync::Arc;
use thiserror::Error;

/// Index of a player: 0 or 1.
pub type Player = usize;

/// What happens at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeKind {
    /// Chance picks a child with the probabilities in [`Game::chance_prob`].
    Chance,
    /// `player` acts at information set `infoset` (a dense id among that player's sets).
    Decision {
        /// The acting player.
        player: u8,
        /// Dense per-player information-set id.
        infoset: u32,
    },
    /// The game ends; `terminal` indexes [`Game::terminals`].
    Terminal {
        /// Index into the terminal payoff table.
        terminal: u32,
    },
}

/// One node of the arena.
#[derive(Clone, Debug)]
pub struct Node {
    /// What happens here.
    pub kind: NodeKind,
    /// Index of the first child; children are `first_child .. first_child + num_children`.
    pub first_child: u32,
    /// Number of children (0 for terminals).
    pub num_children: u32,
    /// Parent node (`u32::MAX` for the root).
    pub parent: u32,
    /// Which child of its parent this node is (0 for the root).
    pub action: u32,
}

impl Node {
    /// The index range of this node's children.
    pub fn children(&self) -> Range<usize> {
        self.first_child as usize..(self.first_child + self.num_children) as usize
    }
}

/// A shared list of labels: information sets with the same action labels share one list.
pub type Labels = Arc<[String]>;

/// An information set: nodes of one player that the player cannot tell apart.
#[derive(Clone, Debug)]
pub struct Infoset {
    /// The acting player.
    pub player: Player,
    /// A readable label, unique among the player's information sets.
    pub label: String,
    /// Action labels, in child order (shared between sets with equal lists).
    pub actions: Labels,
    /// The nodes in this set, in arena order.
    pub nodes: Vec<u32>,
    /// Offset of this set's first action in the player's flat action array.
    pub action_offset: usize,
    /// The player's own last action before reaching this set, as a flat action index
    /// (`None` when the player has not acted before). Sequence ids are `1 + action index`,
    /// with 0 the empty sequence.
    pub parent_action: Option<usize>,
}

impl Infoset {
    /// The flat action indices of this set.
    pub fn action_range(&self) -> Range<usize> {
        self.action_offset..self.action_offset + self.actions.len()
    }
    /// The sequence id leading to this set (0 = empty sequence).
    pub fn parent_sequence(&self) -> usize {
        self.parent_action.map_or(0, |a| a + 1)
    }
}

/// A terminal outcome. Terminal nodes with equal outcomes share one entry.
#[derive(Clone, Debug)]
pub struct Terminal {
    /// Player 0's payoff, exact. Player 1 receives `constant_sum - payoff0` (constant-sum games) or [`Game::payoff1`].
    pub payoff0: Rational,
    /// Player 0's payoff as `f64`.
    pub payoff0_f64: f64,
    /// An optional outcome label.
    pub label: String,
}

/// A per-node column of values with few distinct entries: each entry is a `u32` id into a table
/// of distinct values (an exact rational costs 64 bytes and two heap blocks; an id costs 4).
#[derive(Clone, Debug, Default)]
pub struct Interned<T> {
    values: Vec<T>,
    ids: Vec<u32>,
}

impl<T: Clone + Eq + Hash> Interned<T> {
    /// Interns every value of `items`, in order.
    pub fn from_values(items: impl IntoIterator<Item = T>) -> Self {
        let mut b = InternedBuilder::default();
        for v in items {
            b.push(v);
        }
        b.finish()
    }
}

impl<T> Interned<T> {
    /// A column from its distinct values and each entry's id into them (ids must be in range).
    pub(crate) fn from_parts(values: Vec<T>, ids: Vec<u32>) -> Self {
        debug_assert!(ids.iter().all(|&i| (i as usize) < values.len()));
        Interned { values, ids }
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.ids.len()
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = &T> + '_ {
        self.ids.iter().map(|&i| &self.values[i as usize])
    }
    /// The index of entry `i` into [`Interned::distinct`] (entries with equal ids are equal).
    pub fn id_at(&self, i: usize) -> u32 {
        self.ids[i]
    }
    /// The distinct values.
    pub fn distinct(&self) -> &[T] {
        &self.values
    }
    /// Replaces every distinct value by `f(value)` (the entries keep their ids).
    pub(crate) fn map_distinct(&mut self, f: impl FnMut(&T) -> T) {
        self.values = self.values.iter().map(f).collect();
    }
    /// Bytes this column holds beyond the struct (ids and the distinct values' inline size).
    pub fn heap_bytes(&self) -> usize {
        self.ids.capacity() * 4 + self.values.capacity() * std::mem::size_of::<T>()
    }
}

impl<T> Index<usize> for Interned<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.values[self.ids[i] as usize]
    }
}

impl<T: PartialEq> PartialEq for Interned<T> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other.iter()).all(|(a, b)| a == b)
    }
}

/// Builds an [`Interned`] column value by value.
#[derive(Debug)]
pub(crate) struct InternedBuilder<T> {
    values: Vec<T>,
    ids: Vec<u32>,
    index: HashMap<T, u32>,
}

impl<T> Default for InternedBuilder<T> {
    fn default() -> Self {
        InternedBuilder {
            values: Vec::new(),
            ids: Vec::new(),
            index: HashMap::new(),
        }
    }
}

impl<T: Clone + Eq + Hash> InternedBuilder<T> {
    /// The id of `v`, adding it to the table when new.
    pub(crate) fn id(&mut self, v: &T) -> u32 {
        if let Some(&id) = self.index.get(v) {
            return id;
        }
        let id = u32::try_from(self.values.len()).expect("fewer than 2^32 distinct values");
        self.values.push(v.clone());
        self.index.insert(v.clone(), id);
        id
    }
    /// Appends `v`.
    pub(crate) fn push(&mut self, v: T) {
        let id = self.id(&v);
        self.ids.push(id);
    }
    /// The finished column.
    pub(crate) fn finish(self) -> Interned<T> {
        let mut ids = self.ids;
        ids.shrink_to_fit();
        Interned {
            values: self.values,
            ids,
        }
    }
}

/// Errors found while building or validating a game.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GameError {
    /// A node was created but never given content.
    #[error("node at {path} was never given a chance, decision or terminal content")]
    UnsetNode {
        /// Path of action labels from the root.
        path: String,
    },
    /// A node was given content twice.
    #[error("node at {path} already has content")]
    NodeAlreadySet {
        /// Path of action labels from the root.
        path: String,
    },
    /// A chance node's probabilities are negative or do not sum to 1.
    #[error("chance node at {path}: {detail}")]
    BadChance {
        /// Path of action labels from the root.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// An information set was used with different action lists.
    #[error(
        "information set {} of player {player}: actions {} differ from {} given before",
        quoted(.label), quoted_list(.got), quoted_list(.expected)
    )]
    InconsistentActions {
        /// Player (1-based in messages).
        player: usize,
        /// Information-set label.
        label: String,
        /// Actions first given.
        expected: Vec<String>,
        /// Actions given now.
        got: Vec<String>,
    },
    /// A node has no actions, or duplicate action labels.
    #[error("node at {path}: {detail}")]
    BadActions {
        /// Path of action labels from the root.
        path: String,
        /// What is wrong.
        detail: String,
    },
    /// Perfect recall fails at an information set.
    #[error(
        "information set {} of player {player} breaks perfect recall: {detail}",
        quoted(.label)
    )]
    ImperfectRecall {
        /// Player (1-based in messages).
        player: usize,
        /// Information-set label.
        label: String,
        /// What differs between its nodes.
        detail: String,
    },
    /// A solver for constant-sum games was given a general-sum game.
    #[error(
        "{algo} needs a constant-sum game, and this game is general-sum (the payoffs do not add \
         to one constant at every terminal): solve it with `lcp`"
    )]
    GeneralSum {
        /// The refusing algorithm's name.
        algo: String,
    },
    /// An invalid player index.
    #[error("player index {0} is not 0 or 1")]
    BadPlayer(usize),
}

/// Whether the two payoffs add to one constant at every terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SumKind {
    /// Constant-sum (zero-sum after a shift): player 1 gets `constant_sum - payoff0`.
    Constant,
    /// General-sum: player 1's payoffs are stored in [`Game::payoff1`].
    General,
}

/// A compiled two-player extensive-form game (constant-sum or general-sum).
#[derive(Clone)]
pub struct Game {
    /// The game's name.
    pub name: String,
    /// The players' names.
    pub player_names: [String; 2],
    /// All nodes, breadth-first, root at index 0.
    pub nodes: Vec<Node>,
    /// For each node, the chance probability of the edge into it (1 where the parent is not chance).
    /// Interned: a game has few distinct probabilities, so each node stores a 4-byte id.
    pub chance_prob: Interned<Rational>,
    /// `chance_prob` as `f64`.
    pub chance_prob_f64: Vec<f64>,
    /// For each node whose parent is a chance node, the chance outcome's label ("" otherwise).
    pub chance_label: Interned<String>,
    /// The distinct terminal outcomes (payoff and label), indexed by
    /// `NodeKind::Terminal::terminal`: a game has few, so terminal nodes share them.
    pub terminals: Vec<Terminal>,
    /// Information sets per player.
    pub infosets: [Vec<Infoset>; 2],
    /// Number of actions summed over each player's information sets.
    pub num_actions: [usize; 2],
    /// The two payoffs add to this at every terminal (0 for zero-sum games); 0 for a
    /// general-sum game, whose player 1 payoffs are in [`Game::payoff1`].
    pub constant_sum: Rational,
    /// Player 1's exact payoff per terminal outcome (indexed like [`Game::terminals`]) when the
    /// game is general-sum; `None` for constant-sum games.
    pub payoff1: Option<Vec<Rational>>,
    /// For each player, the flat action index -> owning information set.
    pub action_infoset: [Vec<u32>; 2],
    /// One bit per node, set at chance nodes whose outcomes are all exactly equally likely
    /// (bit `n % 64` of word `n / 64`); filled by [`Game::mark_uniform_chance`].
    pub(crate) chance_uniform: Vec<u64>,
}

/// The derived layout, with [`Game::payoff1`] shown only for general-sum games: a constant-sum
/// game prints as before the field existed (`tests/rules_snapshot.rs` pins its text).
impl std::fmt::Debug for Game {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Game");
        d.field("name", &self.name)
            .field("player_names", &self.player_names)
            .field("nodes", &self.nodes)
            .field("chance_prob", &self.chance_prob)
            .field("chance_prob_f64", &self.chance_prob_f64)
            .field("chance_label", &self.chance_label)
            .field("terminals", &self.terminals)
            .field("infosets", &self.infosets)
            .field("num_actions", &self.num_actions)
            .field("constant_sum", &self.constant_sum);
        if let Some(p1) = &self.payoff1 {
            d.field("payoff1", p1);
        }
        d.field("action_infoset", &self.action_infoset).finish()
    }
}

impl Game {
    /// Sets [`Game::chance_uniform`] from the nodes and their exact chance probabilities: every
    /// constructor calls it once the arena is final (the builder, the .efg loader, a lock's
    /// `to_chance`).
    pub(crate) fn mark_uniform_chance(&mut self) {
        let mut bits = vec![0u64; self.nodes.len().div_ceil(64)];
        for (n, node) in self.nodes.iter().enumerate() {
            if node.kind != NodeKind::Chance || node.num_children == 0 {
                continue;
            }
            let mut children = node.children();
            let first = self.chance_prob.id_at(children.next().expect("a child"));
            // Interned entries with equal ids are equal; distinct ids are compared exactly.
            let probs = self.chance_prob.distinct();
            if children.all(|c| {
                let id = self.chance_prob.id_at(c);
                id == first || probs[id as usize] == probs[first as usize]
            }) {
                bits[n / 64] |= 1 << (n % 64);
            }
        }
        self.chance_uniform = bits;
    }

    /// Whether `node` is a chance node whose outcomes are all exactly equally likely.
    #[inline]
    pub fn chance_is_uniform_at(&self, node: usize) -> bool {
        self.chance_uniform
            .get(node / 64)
            .is_some_and(|w| w >> (node % 64) & 1 == 1)
    }

    /// The infoset of a decision node, or `None`.
    pub fn infoset_of(&self, node: usize) -> Option<&Infoset> {
        match self.nodes[node].kind {
            NodeKind::Decision { player, infoset } => {
                Some(&self.infosets[player as usize][infoset as usize])
            }
            _ => None,
        }
    }

    /// Player `player`'s exact payoff at terminal `t`.
    pub fn payoff(&self, t: usize, player: Player) -> Rational {
        let p0 = &self.terminals[t].payoff0;
        match (player, &self.payoff1) {
            (0, _) => p0.clone(),
            (_, Some(p1)) => p1[t].clone(),
            (_, None) => &self.constant_sum - p0,
        }
    }

    /// Whether the game is constant-sum or general-sum.
    pub fn sum_kind(&self) -> SumKind {
        if self.payoff1.is_some() {
            SumKind::General
        } else {
            SumKind::Constant
        }
    }

    /// Whether the payoffs add to one constant at every terminal.
    pub fn is_constant_sum(&self) -> bool {
        self.payoff1.is_none()
    }

    /// Refuses a general-sum game for `algo`, a solver of constant-sum games (the error names `lcp`).
    pub fn require_constant_sum(&self, algo: &str) -> Result<(), GameError> {
        match self.sum_kind() {
            SumKind::Constant => Ok(()),
            SumKind::General => Err(GameError::GeneralSum {
                algo: algo.to_string(),
            }),
        }
    }

    /// Number of sequences of `player` (empty sequence included).
    pub fn num_sequences(&self, player: Player) -> usize {
        self.num_actions[player] + 1
    }

    /// The labels of the actions leading from the root to `node`.
    pub fn path_labels(&self, node: usize) -> Vec<String> {
        let mut labels = Vec::new();
        let mut n = node;
        while self.nodes[n].parent != u32::MAX {
            let parent = self.nodes[n].parent as usize;
            let label = match self.nodes[parent].kind {
                NodeKind::Chance => self.chance_label[n].clone(),
                NodeKind::Decision { player, infoset } => self.infosets[player as usize]
                    [infoset as usize]
                    .actions[self.nodes[n].action as usize]
                    .clone(),
                NodeKind::Terminal { .. } => unreachable!("terminals have no children"),
            };
            labels.push(label);
            n = parent;
        }
        labels.reverse();
        labels
    }

    /// Finds a player's information set by label.
    pub fn find_infoset(&self, player: Player, label: &str) -> Option<usize> {
        self.infosets[player].iter().position(|i| i.label == label)
    }

    /// Smallest and largest payoff of player 0 (for normalising exploitability).
    pub fn payoff_range(&self) -> (f64, f64) {
        let mut lo = f64::INFINITY;
        let mut hi = f64::NEG_INFINITY;
        for t in &self.terminals {
            lo = lo.min(t.payoff0_f64);
            hi = hi.max(t.payoff0_f64);
        }
        (lo, hi)
    }

    /// An estimate of the heap bytes this game holds: arrays at capacity, strings' lengths and
    /// big integers' digits (allocator overhead not counted).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let rat = |r: &Rational| {
            size_of::<Rational>()
                + 8 * (r.numer().iter_u64_digits().len() + r.denom().iter_u64_digits().len())
        };
        let mut total = self.nodes.capacity() * size_of::<Node>()
            + self.chance_prob.heap_bytes()
            + self.chance_prob.distinct().iter().map(rat).sum::<usize>()
            + self.chance_prob_f64.capacity() * 8
            + self.chance_uniform.capacity() * 8
            + self.chance_label.heap_bytes()
            + self
                .chance_label
                .distinct()
                .iter()
                .map(String::capacity)
                .sum::<usize>()
            + self.terminals.capacity() * size_of::<Terminal>();
        for t in &self.terminals {
            total += rat(&t.payoff0) - size_of::<Rational>() + t.label.capacity();
        }
        if let Some(p1) = &self.payoff1 {
            total += p1.capacity() * size_of::<Rational>()
                + p1.iter()
                    .map(|r| rat(r) - size_of::<Rational>())
                    .sum::<usize>();
        }
        // Shared action lists are counted once each.
        let mut lists = std::collections::HashSet::new();
        for p in 0..2 {
            total += self.infosets[p].capacity() * size_of::<Infoset>()
                + self.action_infoset[p].capacity() * 4;
            for set in &self.infosets[p] {
                total += set.label.capacity() + set.nodes.capacity() * 4;
                if lists.insert(set.actions.as_ptr()) {
                    total += 16
                        + set.actions.len() * size_of::<String>()
                        + set.actions.iter().map(String::capacity).sum::<usize>();
                }
            }
        }
        total
    }

    /// The outcome of each terminal node, in arena order (entries repeat where nodes share one).
    pub fn terminal_outcomes(&self) -> impl Iterator<Item = &Terminal> + '_ {
        self.nodes.iter().filter_map(|n| match n.kind {
            NodeKind::Terminal { terminal } => Some(&self.terminals[terminal as usize]),
            _ => None,
        })
    }

    /// Number of terminal nodes (not distinct outcomes: see [`Game::terminals`]).
    pub fn num_terminal_nodes(&self) -> usize {
        self.nodes
            .iter()
            .filter(|n| matches!(n.kind, NodeKind::Terminal { .. }))
            .count()
    }

    /// Heap bytes per node ([`Game::heap_bytes`] / number of nodes).
    pub fn bytes_per_node(&self) -> f64 {
        self.heap_bytes() as f64 / self.nodes.len().max(1) as f64
    }

    /// Total number of information sets of both players.
    pub fn num_infosets(&self) -> usize {
        self.infosets[0].len() + self.infosets[1].len()
    }
}

/// Formats a path of labels for messages.
pub(crate) fn format_path(labels: &[String]) -> String {
    use crate::format::text::shortened;
    /// Labels kept at each end of a long path.
    const ENDS: usize = 4;
    if labels.is_empty() {
        return "the root".to_string();
    }
    let show = |ls: &[String]| {
        ls.iter()
            .map(|l| shortened(l))
            .collect::<Vec<_>>()
            .join(" > ")
    };
    if labels.len() <= 2 * ENDS + 1 {
        show(labels)
    } else {
        format!(
            "{} > ... ({} more) ... > {}",
            show(&labels[..ENDS]),
            labels.len() - 2 * ENDS,
            show(&labels[labels.len() - ENDS..])
        )
    }
}

#[cfg(test)]
mod tests;
