//! The compiled tree and the three per-iteration kernels: a forward pass (counterfactual reach),
//! a backward pass (expected values) and an information-set pass (regrets, averages, regret
//! matching).
//!
//! Nodes are renumbered breadth-first, so each node's children are contiguous, all children of
//! a level are exactly the next level, and `child_start` is one monotone array (CSR):
//! the children of `n` are `child_start[n]..child_start[n + 1]` (empty for terminals). Every
//! probability a pass multiplies by lives in one flat array `probs` = player 1's current
//! strategy, player 2's, then the chance probabilities, and each interior node holds one
//! `u32` offset into it. The kernels are plain loops over these flat arrays.
//!
//! The parallel passes ([`split`]) cut the tree once into groups of whole subtrees that the
//! threads run without a barrier per level, and the information sets into fixed chunks. Every
//! output is computed by the same sequence of floating-point operations whatever the split,
//! so results are bit-identical for every thread count.

mod partial;
mod shard;
mod split;

use super::team::Team;
use super::Volatility;
use crate::game::{Game, NodeKind};
use crate::scalar::rational_to_f64;
pub use partial::{compile_partial, Partial};
pub use shard::{Applier, ShardCut};
pub use split::{Split, GROUPS};

/// Games with at most this many nodes take the lean serial passes (see [`Tree::lean`]).
const LEAN_MAX_NODES: usize = 1 << 14;

/// One player's information sets as the kernels see them, ordered by flat action index.
pub struct Sets {
    /// Offset of this player's actions in `Tree::probs`.
    pub base: usize,
    /// CSR over the player's flat actions: set `s` owns `action_start[s]..action_start[s + 1]`.
    pub action_start: Vec<u32>,
    /// CSR over `nodes`: the (renumbered) nodes of set `s`.
    pub node_start: Vec<u32>,
    /// Decision nodes of every set, set after set.
    pub nodes: Vec<u32>,
    /// The set holding the player's previous action (`u32::MAX` when none).
    pub parent_set: Vec<u32>,
    /// That previous action, as a flat action index of the player.
    pub parent_action: Vec<u32>,
    /// Sets in an order where every set comes after its parent set.
    pub topo: Vec<u32>,
    /// The player's own reach probability of each set this iteration.
    pub own: Vec<f64>,
}

impl Sets {
    /// The player's own reach of each of its sets under the strategies in `probs`.
    pub fn own_reach(&mut self, probs: &[f64]) {
        let num = *self.action_start.last().expect("sentinel") as usize;
        let probs = &probs[self.base..self.base + num];
        let own = self.own.as_mut_ptr();
        for &s in &self.topo {
            let s = s as usize;
            // SAFETY: `check_topo` (run by `compile`) proved every set of `topo` below
            // `own.len() = parent_set.len() = parent_action.len()`, its parent set (if any)
            // below that too, and the parent action below the player's `num` actions.
            unsafe {
                *own.add(s) = match *self.parent_set.get_unchecked(s) {
                    u32::MAX => 1.0,
                    parent => {
                        *own.add(parent as usize)
                            * *probs.get_unchecked(*self.parent_action.get_unchecked(s) as usize)
                    }
                };
            }
        }
    }
}

/// The renumbered tree with its per-node scratch arrays.
pub struct Tree {
    /// CSR child ranges, one entry per node plus one.
    pub child_start: Vec<u32>,
    /// Level boundaries: level `l` is `levels[l]..levels[l + 1]`.
    pub levels: Vec<u32>,
    /// Current strategies of player 1 and player 2, then chance probabilities.
    pub probs: Vec<f64>,
    /// `probs` offsets where player 2's actions and the chance probabilities start.
    pub bounds: [u32; 2],
    /// Player 1's expected payoff below each node (terminal payoffs never change).
    pub value: Vec<f64>,
    /// Counterfactual reach: of the updating player, or (simultaneous updates) of player 1
    /// here and player 2 in `reach2`.
    pub reach: Vec<f64>,
    /// Player 2's counterfactual reach (simultaneous updates only; empty otherwise).
    pub reach2: Vec<f64>,
    /// The interior nodes in breadth-first order.
    pub inner: Vec<Inner>,
    /// Level boundaries in `inner`: level `l`'s interior nodes are
    /// `inner_levels[l]..inner_levels[l + 1]`.
    pub inner_levels: Vec<u32>,
    /// Nodes the last pruned forward pass reached (see [`Tree::live_nodes`]; a lean pass
    /// leaves it alone).
    pub live: usize,
    /// Candidates of the last forward pass (interior children of computed nodes), as ranges
    /// of indices into `inner`, level after level.
    pub cands: Vec<Span>,
    /// Level boundaries in `cands`.
    pub cand_levels: Vec<u32>,
    /// Scratch: the next level's candidates.
    pub next: Vec<Span>,
    /// Indices into `inner` of the interior nodes the last forward pass computed.
    pub computed: Vec<u32>,
    /// Level boundaries in `computed`.
    pub computed_levels: Vec<u32>,
    /// The last forward pass.
    pub pass: Pass,
    /// Scratch: one information set's instantaneous regrets.
    pub inst: Vec<f64>,
    /// Skip the nodes that no update can see (see [`Tree::forward`]); off = every node is
    /// computed, for checking that pruning changes nothing.
    pub prune: bool,
    /// Serial passes over small games run one straight loop over `inner` computing every
    /// node: on a few thousand nodes the level and candidate bookkeeping of pruning costs
    /// more than the nodes it skips. Same operations in the same order on every computed
    /// node, so the same bits (a skipped node's value only ever enters times an exact 0).
    pub lean: bool,
    /// Whether the last forward pass was lean (the backward pass follows it).
    lean_pass: bool,
    /// The parallel layout (see [`Split`]); built by [`Tree::prepare_split`].
    pub split: Option<Split>,
    /// A general-sum game's terminals with each player's view of their payoffs (`None` for
    /// a constant-sum game, whose terminal values never change); see [`Tree::use_payoffs`].
    pub general: Option<Box<GeneralPayoffs>>,
}

/// The terminals of a general-sum game and the values the passes read there for each
/// learner: player 1's payoffs, and the negated payoffs of player 2 (the passes compute
/// player 1's values and player 2's updates negate them).
pub struct GeneralPayoffs {
    /// Terminal node ids.
    pub nodes: Vec<u32>,
    /// Per learner, the value at each of `nodes`.
    pub values: [Vec<f64>; 2],
}

/// Compiles `game`: returns the tree and both players' sets.
pub fn compile(game: &Game, simultaneous: bool) -> (Tree, [Sets; 2]) {
    let n = game.nodes.len();
    // Breadth-first renumbering (explicit queue, no recursion).
    let mut order: Vec<u32> = Vec::with_capacity(n);
    order.push(0);
    let mut levels = vec![0u32];
    let mut level_end = 1usize;
    let mut i = 0usize;
    while i < order.len() {
        let node = &game.nodes[order[i] as usize];
        order.extend(node.children().map(|c| c as u32));
        i += 1;
        if i == level_end && i < order.len() {
            levels.push(i as u32);
            level_end = order.len();
        }
    }
    levels.push(order.len() as u32);
    let mut local = vec![0u32; n];
    for (new, &old) in order.iter().enumerate() {
        local[old as usize] = new as u32;
    }
    let num_actions = game.num_actions;
    let bounds = [
        num_actions[0] as u32,
        (num_actions[0] + num_actions[1]) as u32,
    ];
    let tree = assemble(levels, num_actions, simultaneous, |id, probs| {
        let node = &game.nodes[order[id] as usize];
        let desc = match node.kind {
            NodeKind::Chance => {
                probs.extend(node.children().map(|c| game.chance_prob_f64[c]));
                Desc::Chance
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                Desc::Decision(player as usize, set.action_offset as u32)
            }
            NodeKind::Terminal { terminal } => {
                Desc::Terminal(game.terminals[terminal as usize].payoff0_f64)
            }
        };
        (desc, node.num_children)
    });
    let mut tree = tree;
    if game.payoff1.is_some() {
        let mut general = GeneralPayoffs {
            nodes: Vec::new(),
            values: [Vec::new(), Vec::new()],
        };
        for (id, &old) in order.iter().enumerate() {
            if let NodeKind::Terminal { terminal } = game.nodes[old as usize].kind {
                let t = terminal as usize;
                general.nodes.push(id as u32);
                general.values[0].push(game.terminals[t].payoff0_f64);
                general.values[1].push(-rational_to_f64(&game.payoff(t, 1)));
            }
        }
        tree.general = Some(Box::new(general));
    }
    let sets = [0, 1].map(|p| compile_sets(game, p, &local, bounds));
    for s in &sets {
        check_sets(s, &tree.child_start);
        check_topo(s);
    }
    (tree, sets)
}

/// What a node is, as [`assemble`] takes it.
pub(crate) enum Desc {
    /// A chance node (its children's probabilities pushed onto the probabilities).
    Chance,
    /// A decision of a player whose actions start at this flat action offset.
    Decision(usize, u32),
    /// A terminal with player 1's payoff.
    Terminal(f64),
}

/// The tree of `levels.len() - 1` levels whose nodes, in breadth-first order, `node(id, probs)`
/// describes (a chance node also pushes its children's probabilities onto `probs`), with
/// their numbers of children (0 for a terminal, or for a node whose subtree is left out).
pub(crate) fn assemble(
    levels: Vec<u32>,
    num_actions: [usize; 2],
    simultaneous: bool,
    mut node: impl FnMut(usize, &mut Vec<f64>) -> (Desc, u32),
) -> Tree {
    let n = *levels.last().expect("levels") as usize;
    let bounds = [
        num_actions[0] as u32,
        (num_actions[0] + num_actions[1]) as u32,
    ];
    let mut probs = vec![0.0; num_actions[0] + num_actions[1]];
    let mut child_start = Vec::with_capacity(n + 1);
    let mut inner = Vec::new();
    let mut inner_levels = vec![0u32];
    let mut value = Vec::with_capacity(n);
    let mut next_child = 1u32;
    for id in 0..n {
        child_start.push(next_child);
        let at = probs.len() as u32;
        let (desc, children) = node(id, &mut probs);
        let (child, end) = (next_child, next_child + children);
        next_child = end;
        let off = match desc {
            Desc::Chance => {
                value.push(0.0);
                at
            }
            Desc::Decision(player, offset) => {
                let base = if player == 0 { 0 } else { bounds[0] };
                value.push(0.0);
                base + offset
            }
            Desc::Terminal(payoff) => {
                value.push(payoff);
                continue;
            }
        };
        if child < end {
            inner.push(Inner {
                id: id as u32,
                child,
                end,
                off,
                kid: 0,
            });
        }
    }
    child_start.push(next_child);
    // Interior children are consecutive in `inner` (sorted by id); a sentinel closes the
    // last entry's range.
    let mut k = 0;
    for i in 0..inner.len() {
        while k < inner.len() && inner[k].id < inner[i].child {
            k += 1;
        }
        inner[i].kid = k as u32;
    }
    inner.push(Inner {
        id: n as u32,
        child: n as u32,
        end: n as u32,
        off: 0,
        kid: inner.len() as u32,
    });
    // Interior nodes per level: `inner` is sorted by id.
    for w in levels.windows(2) {
        let end = inner.partition_point(|e| e.id < w[1]);
        inner_levels.push(end as u32);
    }
    check_layout(&inner, &inner_levels, &levels, probs.len());
    Tree {
        child_start,
        levels,
        probs,
        bounds,
        value,
        reach: vec![0.0; n],
        reach2: if simultaneous {
            vec![0.0; n]
        } else {
            Vec::new()
        },
        inner,
        inner_levels,
        live: 1,
        cands: Vec::new(),
        cand_levels: Vec::new(),
        next: Vec::new(),
        computed: Vec::new(),
        computed_levels: vec![0],
        pass: Pass::Both,
        inst: Vec::new(),
        prune: true,
        lean: n <= LEAN_MAX_NODES,
        lean_pass: false,
        split: None,
        general: None,
    }
}

/// Checks the facts the passes' unchecked reads rely on: every interior node of level `l` has
/// `levels[l] <= id < levels[l + 1]`, children `child..end` inside level `l + 1`, and its
/// probabilities `off..off + (end - child)` inside `probs`; `inner` ends with the sentinel.
fn check_layout(inner: &[Inner], inner_levels: &[u32], levels: &[u32], probs: usize) {
    assert_eq!(inner_levels.len(), levels.len());
    assert_eq!(
        *inner_levels.last().expect("levels") as usize + 1,
        inner.len()
    );
    for l in 0..levels.len() - 1 {
        let next_end = levels.get(l + 2).copied().unwrap_or(levels[l + 1]);
        for e in &inner[inner_levels[l] as usize..inner_levels[l + 1] as usize] {
            assert!(levels[l] <= e.id && e.id < levels[l + 1]);
            assert!(levels[l + 1] <= e.child && e.child < e.end && e.end <= next_end);
            assert!(e.off as usize + (e.end - e.child) as usize <= probs);
        }
    }
}

/// Checks the facts the set update's unchecked reads rely on: the set ranges of actions and
/// nodes are nondecreasing and cover `nodes`, and every node of a set is a node of the tree
/// with exactly the set's number of children.
fn check_sets(sets: &Sets, child_start: &[u32]) {
    let n = child_start.len() - 1;
    assert!(sets.action_start.windows(2).all(|w| w[0] <= w[1]));
    assert!(sets.node_start.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(
        sets.node_start.last().map(|&e| e as usize),
        Some(sets.nodes.len())
    );
    assert_eq!(sets.node_start.len(), sets.action_start.len());
    for s in 0..sets.action_start.len() - 1 {
        let k = sets.action_start[s + 1] - sets.action_start[s];
        for &h in &sets.nodes[sets.node_start[s] as usize..sets.node_start[s + 1] as usize] {
            let h = h as usize;
            assert!(h < n && child_start[h + 1] - child_start[h] == k);
            assert!(child_start[h + 1] as usize <= n);
        }
    }
}

/// Checks the facts [`Sets::own_reach`]'s unchecked reads rely on: `topo` lists every set
/// once, each set's parent set comes before it, and each parent action is one of the player's
/// actions.
fn check_topo(sets: &Sets) {
    let n = sets.own.len();
    assert!(sets.topo.len() == n && sets.parent_set.len() == n && sets.parent_action.len() == n);
    let num = *sets.action_start.last().expect("sentinel");
    let mut seen = vec![false; n];
    for &s in &sets.topo {
        let s = s as usize;
        assert!(!seen[s]);
        if sets.parent_set[s] != u32::MAX {
            assert!(seen[sets.parent_set[s] as usize]);
            assert!(sets.parent_action[s] < num);
        }
        seen[s] = true;
    }
}

fn compile_sets(game: &Game, p: usize, local: &[u32], bounds: [u32; 2]) -> Sets {
    let infosets = &game.infosets[p];
    // Sorted by flat action offset, consecutive sets own consecutive action ranges.
    let mut by_offset: Vec<u32> = (0..infosets.len() as u32).collect();
    by_offset.sort_by_key(|&s| infosets[s as usize].action_offset);
    let mut rank = vec![0u32; infosets.len()];
    for (r, &s) in by_offset.iter().enumerate() {
        rank[s as usize] = r as u32;
    }
    let mut action_start = Vec::with_capacity(infosets.len() + 1);
    let mut node_start = Vec::with_capacity(infosets.len() + 1);
    let mut nodes = Vec::new();
    let mut parent_set = Vec::with_capacity(infosets.len());
    let mut parent_action = Vec::with_capacity(infosets.len());
    let mut first_node = Vec::with_capacity(infosets.len());
    for &s in &by_offset {
        let set = &infosets[s as usize];
        action_start.push(set.action_offset as u32);
        node_start.push(nodes.len() as u32);
        let mut mine: Vec<u32> = set.nodes.iter().map(|&h| local[h as usize]).collect();
        mine.sort_unstable();
        first_node.push(mine.first().copied().unwrap_or(u32::MAX));
        nodes.extend(mine);
        match set.parent_action {
            Some(a) => {
                parent_set.push(rank[game.action_infoset[p][a] as usize]);
                parent_action.push(a as u32);
            }
            None => {
                parent_set.push(u32::MAX);
                parent_action.push(u32::MAX);
            }
        }
    }
    action_start.push(game.num_actions[p] as u32);
    node_start.push(nodes.len() as u32);
    // A parent set is reached before its children, so breadth-first order of first nodes is
    // topological.
    let mut topo: Vec<u32> = (0..by_offset.len() as u32).collect();
    topo.sort_by_key(|&s| first_node[s as usize]);
    Sets {
        base: if p == 0 { 0 } else { bounds[0] as usize },
        action_start,
        node_start,
        nodes,
        parent_set,
        parent_action,
        topo,
        own: vec![0.0; by_offset.len()],
    }
}

/// Which counterfactual reaches a pass computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pass {
    /// Of one player (alternating updates), into `Tree::reach`.
    Learner(usize),
    /// Of both players (simultaneous updates), into `Tree::reach` and `Tree::reach2`.
    Both,
}

/// One interior node as the passes read it: its number, its children `child..end` (BFS
/// order keeps them contiguous) and where their probabilities start in `Tree::probs`.
#[derive(Clone, Copy, Debug)]
pub struct Inner {
    /// The node.
    pub id: u32,
    /// Its first child.
    pub child: u32,
    /// One past its last child.
    pub end: u32,
    /// Offset of its children's probabilities in `Tree::probs`.
    pub off: u32,
    /// Index in `Tree::inner` of its first interior child; its interior children run to the
    /// next entry's `kid`.
    pub kid: u32,
}

/// A range `(start, end)` of indices into `Tree::inner`.
pub type Span = (u32, u32);

/// Appends `start..end` to `out`, extending the last range when it continues it.
#[inline(always)]
fn emit(out: &mut Vec<Span>, start: u32, end: u32) {
    if let Some(last) = out.last_mut() {
        if last.1 == start {
            last.1 = end;
            return;
        }
    }
    out.push((start, end));
}

/// `-0.0` marks a reach that an exactly-0 probability on the path from the root multiplies
/// ("dead"); an underflow to 0 gives `+0.0` and stays live. Both compare equal to 0.
const DEAD: f64 = -0.0;

/// Whether `r` is a dead reach (see [`DEAD`]).
#[inline(always)]
fn dead(r: f64) -> bool {
    r.is_sign_negative()
}

/// Children's reach below a node whose probabilities multiply it: `DEAD` where the
/// probability is exactly 0, so deadness passes down (a dead parent's product is `-0.0` too).
#[inline(always)]
fn scale(r: f64, probs: &[f64], out: &mut [f64]) {
    for (o, &q) in out.iter_mut().zip(probs) {
        *o = if q == 0.0 { DEAD } else { r * q };
    }
}

/// Marks `x` dead (short ranges: a loop, not a call).
#[inline(always)]
fn kill(x: &mut [f64]) {
    for v in x {
        *v = DEAD;
    }
}

/// The read-only arrays of the passes.
#[derive(Clone, Copy)]
struct Shape<'t> {
    inner: &'t [Inner],
    probs: &'t [f64],
    bounds: [u32; 2],
    prune: bool,
}

impl Shape<'_> {
    #[inline(always)]
    fn owner(&self, off: u32) -> usize {
        if off < self.bounds[0] {
            0
        } else if off < self.bounds[1] {
            1
        } else {
            2
        }
    }

    /// Forward step of the candidate interior nodes `cands` (ranges of indices into `inner`,
    /// all of one level: the interior children of the nodes computed one level up) for the
    /// reaches of `pass`. Writes the reach of every node in `lo..hi` of the next level into
    /// `kids` (`kids2`), which start at node `lo`: computed from a computed parent, `DEAD`
    /// below any other. A candidate whose every reach is dead (see [`DEAD`]) is not computed.
    /// `parents` (`parents2`) hold the reach of the nodes from `a` on. Appends the computed
    /// nodes to `computed` and their interior children to `next`; returns the number of
    /// children of the computed nodes.
    #[allow(clippy::too_many_arguments)]
    fn forward_step(
        &self,
        pass: Pass,
        cands: &[Span],
        (a, lo, hi): (usize, usize, usize),
        (parents, parents2): (&[f64], &[f64]),
        kids: &mut [f64],
        kids2: &mut [f64],
        computed: &mut Vec<u32>,
        next: &mut Vec<Span>,
    ) -> usize {
        let inner = self.inner;
        let both = pass == Pass::Both;
        let mut live = 0;
        let mut gap_from = lo;
        for &(x, y) in cands {
            // `cands` are indices of non-sentinel entries, so `y` is at most the sentinel's.
            for (i, w) in (x..).zip(inner[x as usize..y as usize + 1].windows(2)) {
                let (e, kid_end) = (w[0], w[1].kid);
                let at = e.id as usize - a;
                // SAFETY: `check_layout` (run by `compile`) proved every entry of level `l` has
                // `levels[l] <= id < levels[l + 1]`, and `forward` passes the parents of level
                // `l` from `a = levels[l]` to `levels[l + 1]` (both arrays when `both`); a
                // region of a split passes its own part of the level, which holds the ids of
                // all its candidates (checked by `Split::build`).
                let r = unsafe { *parents.get_unchecked(at) };
                let r2 = if both {
                    unsafe { *parents2.get_unchecked(at) }
                } else {
                    DEAD
                };
                // A dead node's value enters its parent's only times an exact 0, and its reach
                // is 0 for every regret it would weigh: skip it and its subtree.
                if self.prune && dead(r) && dead(r2) {
                    continue;
                }
                let (s, t) = (e.child as usize, e.end as usize);
                // Children of the skipped nodes since the last computed one.
                if gap_from < s {
                    kill(&mut kids[gap_from - lo..s - lo]);
                    if both {
                        kill(&mut kids2[gap_from - lo..s - lo]);
                    }
                }
                gap_from = t;
                live += t - s;
                computed.push(i);
                if e.kid < kid_end {
                    emit(next, e.kid, kid_end);
                }
                let off = e.off as usize;
                // SAFETY: `check_layout` proved `off + (end - child) <= probs.len()`.
                let probs = unsafe { self.probs.get_unchecked(off..off + (t - s)) };
                let k1 = &mut kids[s - lo..t - lo];
                match pass {
                    Pass::Both => {
                        let k2 = &mut kids2[s - lo..t - lo];
                        match self.owner(e.off) {
                            0 => {
                                k1.fill(r);
                                scale(r2, probs, k2);
                            }
                            1 => {
                                scale(r, probs, k1);
                                k2.fill(r2);
                            }
                            _ => {
                                scale(r, probs, k1);
                                scale(r2, probs, k2);
                            }
                        }
                    }
                    Pass::Learner(p) => {
                        if self.owner(e.off) == p {
                            k1.fill(r);
                        } else {
                            scale(r, probs, k1);
                        }
                    }
                }
            }
        }
        if gap_from < hi {
            kill(&mut kids[gap_from - lo..hi - lo]);
            if both {
                kill(&mut kids2[gap_from - lo..hi - lo]);
            }
        }
        live
    }

    /// Backward step of the computed interior nodes `list` (indices into `inner`): the value
    /// of each into `out`, which starts at node `lo`; `kids` hold the values of the nodes
    /// from `b` on.
    fn backward(
        &self,
        inner: &[Inner],
        list: &[u32],
        out: &mut [f64],
        lo: usize,
        kids: &[f64],
        b: usize,
    ) {
        for &i in list {
            let e = inner[i as usize];
            let (c, t, off) = (e.child as usize - b, e.end as usize - b, e.off as usize);
            // SAFETY: `check_layout` proved `off + (end - child) <= probs.len()`.
            let probs = unsafe { self.probs.get_unchecked(off..off + (t - c)) };
            out[e.id as usize - lo] = dot(probs, &kids[c..t]);
        }
    }
}

impl Tree {
    /// Writes the terminal values `learner`'s update reads (a general-sum game's; nothing to
    /// do for a constant-sum one).
    pub fn use_payoffs(&mut self, learner: usize) {
        if let Some(g) = &self.general {
            for (&node, &v) in g.nodes.iter().zip(&g.values[learner]) {
                self.value[node as usize] = v;
            }
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Nodes the last forward pass reached: the root and the children of every computed
    /// node (all nodes without pruning; the root before any pass).
    pub fn live_nodes(&self) -> usize {
        if self.lean_pass {
            self.lean_live()
        } else {
            self.live
        }
    }

    /// [`Tree::live_nodes`] after a lean pass, counted from the reaches it left (a node's
    /// children were reached unless every reach the pass computed is dead there): counted on
    /// demand rather than in the pass, which runs every iteration.
    fn lean_live(&self) -> usize {
        if !self.prune {
            return self.len();
        }
        let both = self.pass == Pass::Both;
        let mut live = 1;
        for e in &self.inner[..self.inner.len() - 1] {
            let id = e.id as usize;
            if !(dead(self.reach[id]) && (!both || dead(self.reach2[id]))) {
                live += (e.end - e.child) as usize;
            }
        }
        live
    }

    /// The forward then the backward pass of `pass`, and the own reaches of the players it
    /// updates (both for `Pass::Both`) in `sets`; over the groups of the split on `team`
    /// when there is one and the tree is split (see [`Tree::prepare_split`]).
    pub fn evaluate(&mut self, pass: Pass, team: Option<&mut Team>, sets: &mut [Sets; 2]) {
        let players = match pass {
            Pass::Both => 0..2,
            Pass::Learner(p) => p..p + 1,
        };
        let split = self.split.as_ref().is_some_and(|s| s.has_groups());
        if let (Some(team), true) = (team, split) {
            self.evaluate_split(pass, &mut sets[players], team);
        } else {
            self.forward(pass);
            self.backward();
            for s in &mut sets[players] {
                s.own_reach(&self.probs);
            }
        }
    }

    /// Fills the counterfactual reach of `pass` for every node. With pruning, a node is left
    /// uncomputed when, for every reach the pass computes, the path from the root holds a
    /// probability exactly 0 that multiplies it: that reach is then exactly 0 (and is written
    /// so, as `DEAD`) and the node's value reaches the root only times that 0, so skipping it
    /// leaves regrets, averages and strategies bit-identical.
    pub fn forward(&mut self, pass: Pass) {
        self.pass = pass;
        self.reach[0] = 1.0;
        if pass == Pass::Both {
            self.reach2[0] = 1.0;
        }
        self.lean_pass = self.lean;
        if self.lean_pass {
            match pass {
                Pass::Both => self.forward_lean::<true>(0),
                Pass::Learner(p) => self.forward_lean::<false>(p),
            }
            return;
        }
        let shape = Shape {
            inner: &self.inner,
            probs: &self.probs,
            bounds: self.bounds,
            prune: self.prune,
        };
        let mut live = 1;
        self.computed.clear();
        self.computed_levels.clear();
        self.computed_levels.push(0);
        self.cands.clear();
        if self.inner.len() > 1 {
            self.cands.push((0, 1));
        }
        self.cand_levels.clear();
        self.cand_levels.extend([0, self.cands.len() as u32]);
        for l in 0..self.inner_levels.len() - 1 {
            let (a, b) = (self.levels[l] as usize, self.levels[l + 1] as usize);
            let end = self.levels.get(l + 2).map_or(b, |&e| e as usize);
            let (i0, i1) = (
                self.cand_levels[l] as usize,
                self.cand_levels[l + 1] as usize,
            );
            let (head, tail) = self.reach.split_at_mut(b);
            let (head, tail) = (&head[a..], &mut tail[..end - b]);
            let (head2, tail2): (&[f64], &mut [f64]) = if pass == Pass::Both {
                let (h, t) = self.reach2.split_at_mut(b);
                (&h[a..], &mut t[..end - b])
            } else {
                (&[], &mut [])
            };
            let cands = &self.cands[i0..i1];
            let mut next = std::mem::take(&mut self.next);
            next.clear();
            live += shape.forward_step(
                pass,
                cands,
                (a, b, end),
                (head, head2),
                tail,
                tail2,
                &mut self.computed,
                &mut next,
            );
            self.cands.extend_from_slice(&next);
            self.next = next;
            self.cand_levels.push(self.cands.len() as u32);
            self.computed_levels.push(self.computed.len() as u32);
        }
        self.live = live;
    }

    /// Player 1's expected payoff at every interior node the last forward pass computed,
    /// children first.
    pub fn backward(&mut self) {
        if self.lean_pass {
            self.backward_lean();
            return;
        }
        let shape = Shape {
            inner: &self.inner,
            probs: &self.probs,
            bounds: self.bounds,
            prune: self.prune,
        };
        let inner = &self.inner;
        for l in (0..self.computed_levels.len() - 1).rev() {
            let list = &self.computed
                [self.computed_levels[l] as usize..self.computed_levels[l + 1] as usize];
            if list.is_empty() {
                continue;
            }
            let b = self.levels[l + 1] as usize;
            let (head, kids) = self.value.split_at_mut(b);
            shape.backward(inner, list, head, 0, kids, b);
        }
    }

    /// The lean forward pass (see [`Tree::lean`]): every interior node in breadth-first
    /// order, parents before children, with the arithmetic of [`Shape::forward_step`]; a
    /// dead parent gives dead children as the pruned pass writes them. `BOTH` = both
    /// players' reaches, else the reach of `learner` (see [`Tree::lean_live`] for the nodes
    /// reached). Two and three children (every node of the poker games) run unrolled, by
    /// owner, through raw pointers.
    fn forward_lean<const BOTH: bool>(&mut self, learner: usize) {
        let n = self.value.len();
        let inner = &self.inner[..self.inner.len() - 1];
        assert!(self.reach.len() == n && (!BOTH || self.reach2.len() == n));
        let reach = self.reach.as_mut_ptr();
        let reach2 = if BOTH {
            self.reach2.as_mut_ptr()
        } else {
            reach
        };
        let probs = self.probs.as_ptr();
        let [b0, b1] = self.bounds;
        for e in inner {
            let (id, s, k, off) = (
                e.id as usize,
                e.child as usize,
                (e.end - e.child) as usize,
                e.off as usize,
            );
            let owner = (e.off >= b0) as usize + (e.off >= b1) as usize;
            // SAFETY: `check_layout` (run by `compile`) proved `id < child < end <= n` for
            // every non-sentinel entry and `off + (end - child) <= probs.len()`; `reach` and
            // (when `BOTH`) `reach2` have `n` entries (asserted above). A parent is never
            // among its own children, so the reads and writes do not overlap.
            unsafe {
                let q = probs.add(off);
                let r = *reach.add(id);
                let k1 = reach.add(s);
                if BOTH {
                    let r2 = *reach2.add(id);
                    let k2 = reach2.add(s);
                    match (owner, k) {
                        (0, 2) => spread_both::<2, true, false>(r, r2, q, k1, k2, 2),
                        (1, 2) => spread_both::<2, false, true>(r, r2, q, k1, k2, 2),
                        (_, 2) => spread_both::<2, false, false>(r, r2, q, k1, k2, 2),
                        (0, 3) => spread_both::<3, true, false>(r, r2, q, k1, k2, 3),
                        (1, 3) => spread_both::<3, false, true>(r, r2, q, k1, k2, 3),
                        (_, 3) => spread_both::<3, false, false>(r, r2, q, k1, k2, 3),
                        (0, _) => spread_both::<0, true, false>(r, r2, q, k1, k2, k),
                        (1, _) => spread_both::<0, false, true>(r, r2, q, k1, k2, k),
                        _ => spread_both::<0, false, false>(r, r2, q, k1, k2, k),
                    }
                } else {
                    let mine = owner == learner;
                    match (mine, k) {
                        (true, 2) => spread::<2, true>(r, q, k1, 2),
                        (false, 2) => spread::<2, false>(r, q, k1, 2),
                        (true, 3) => spread::<3, true>(r, q, k1, 3),
                        (false, 3) => spread::<3, false>(r, q, k1, 3),
                        (true, _) => spread::<0, true>(r, q, k1, k),
                        (false, _) => spread::<0, false>(r, q, k1, k),
                    }
                }
            }
        }
    }

    /// The lean backward pass: every interior node's value, children first (reverse
    /// breadth-first order), by the dot product of [`Shape::backward`].
    fn backward_lean(&mut self) {
        let n = self.value.len();
        let inner = &self.inner[..self.inner.len() - 1];
        assert!(self.value.len() == n);
        let value = self.value.as_mut_ptr();
        let probs = self.probs.as_ptr();
        for e in inner.iter().rev() {
            let (id, s, k, off) = (
                e.id as usize,
                e.child as usize,
                (e.end - e.child) as usize,
                e.off as usize,
            );
            // SAFETY: as in `forward_lean`: `id < child < end <= n = value.len()` and
            // `off + (end - child) <= probs.len()`.
            unsafe {
                let (q, u) = (probs.add(off), value.add(s));
                // The operations of `dot`, unrolled for two and three children.
                *value.add(id) = match k {
                    2 => 0.0 + *q * *u + *q.add(1) * *u.add(1),
                    3 => 0.0 + *q * *u + *q.add(1) * *u.add(1) + *q.add(2) * *u.add(2),
                    _ => dot(
                        std::slice::from_raw_parts(q, k),
                        std::slice::from_raw_parts(u, k),
                    ),
                };
            }
        }
    }
}

#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    // Two and three children are the common cases; same operations in the same order.
    match (a, b) {
        ([a0, a1], [b0, b1]) => 0.0 + a0 * b0 + a1 * b1,
        ([a0, a1, a2], [b0, b1, b2]) => 0.0 + a0 * b0 + a1 * b1 + a2 * b2,
        _ => {
            let mut s = 0.0;
            for (x, y) in a.iter().zip(b) {
                s += x * y;
            }
            s
        }
    }
}

/// A child's reach below a node whose probability `q` multiplies the parent's reach `r`:
/// `DEAD` where `q` is exactly 0 (as [`scale`]).
#[inline(always)]
fn scaled(r: f64, q: f64) -> f64 {
    if q == 0.0 {
        DEAD
    } else {
        r * q
    }
}

/// The children's reaches `k1[..k]` (with `K` > 0, `k` = `K`) below a node of reach `r`
/// whose probabilities are `q[..k]`: `r` itself when `MINE` (the reach's own player acts
/// here), else scaled by each probability. The operations of [`Shape::forward_step`].
///
/// # Safety
/// `q` must be readable and `k1` writable for `k` values, not overlapping.
#[inline(always)]
unsafe fn spread<const K: usize, const MINE: bool>(r: f64, q: *const f64, k1: *mut f64, k: usize) {
    if K == 2 {
        // All loads before the stores: the two lanes then pair up.
        let (q0, q1) = (*q, *q.add(1));
        let out = if MINE {
            [r, r]
        } else {
            [scaled(r, q0), scaled(r, q1)]
        };
        (k1 as *mut [f64; 2]).write_unaligned(out);
        return;
    }
    let k = if K > 0 { K } else { k };
    for i in 0..k {
        *k1.add(i) = if MINE { r } else { scaled(r, *q.add(i)) };
    }
}

/// [`spread`] for both players' reaches at once (simultaneous updates): `MINE1` = player 1
/// acts here, `MINE2` = player 2 does (neither: chance).
///
/// # Safety
/// As [`spread`], for `k1` and `k2`.
#[inline(always)]
unsafe fn spread_both<const K: usize, const MINE1: bool, const MINE2: bool>(
    r: f64,
    r2: f64,
    q: *const f64,
    k1: *mut f64,
    k2: *mut f64,
    k: usize,
) {
    if K == 2 {
        let (q0, q1) = (*q, *q.add(1));
        let out1 = if MINE1 {
            [r, r]
        } else {
            [scaled(r, q0), scaled(r, q1)]
        };
        let out2 = if MINE2 {
            [r2, r2]
        } else {
            [scaled(r2, q0), scaled(r2, q1)]
        };
        (k1 as *mut [f64; 2]).write_unaligned(out1);
        (k2 as *mut [f64; 2]).write_unaligned(out2);
        return;
    }
    let k = if K > 0 { K } else { k };
    for i in 0..k {
        let qi = *q.add(i);
        *k1.add(i) = if MINE1 { r } else { scaled(r, qi) };
        *k2.add(i) = if MINE2 { r2 } else { scaled(r2, qi) };
    }
}

/// Per-iteration factors of the regret and average updates for one player.
#[derive(Clone, Copy, Debug)]
pub struct Factors {
    /// Multiplies cumulative regrets that are positive after adding this iteration's.
    pub positive: f64,
    /// Multiplies the negative ones.
    pub negative: f64,
    /// Clamp cumulative regrets at 0.
    pub floor: bool,
    /// Multiplies the average-strategy sums before this iteration's strategy is added.
    pub average: f64,
    /// Play regret matching on cumulative plus last instantaneous regret.
    pub predictive: bool,
    /// +1 for player 1, -1 for player 2 (values are player 1's payoffs).
    pub sign: f64,
    /// Read the counterfactual reach from `Tree::reach2` (player 2, simultaneous updates).
    pub reach2: bool,
    /// Discount the old regret by its sign, then add (`positive`/`negative` are then `d_{t-1}`).
    pub discount_first: bool,
    /// With `discount_first`, the discount `d_t` of positive regrets in the prediction.
    pub predict_positive: f64,
    /// With `discount_first`, the discount `d_t` of negative regrets in the prediction.
    pub predict_negative: f64,
    /// Weight of the last instantaneous regret in the prediction.
    pub prediction_weight: f64,
    /// VAD-CFR's rules (replace all of the above but `sign` and `reach2`).
    pub volatility: Option<Volatility>,
    /// The iteration, 1-based (VAD-CFR's rules read it).
    pub t: f64,
}

impl Factors {
    /// Whether the `last` arrays hold state (predictions, or VAD-CFR's moving averages).
    pub fn keeps_last(&self) -> bool {
        self.predictive || self.volatility.is_some()
    }
}

/// The mutable per-action arrays of one player, as slices covering whole sets.
pub struct ActionArrays<'a> {
    /// Cumulative (discounted) regrets.
    pub regret: &'a mut [f64],
    /// Average-strategy sums.
    pub sum: &'a mut [f64],
    /// Last instantaneous regrets (empty unless predictive).
    pub last: &'a mut [f64],
    /// Current strategy (a slice of `Tree::probs`).
    pub sigma: &'a mut [f64],
}

/// Read-only inputs of the set update.
struct SetInputs<'a> {
    sets: &'a Sets,
    child_start: &'a [u32],
    value: &'a [f64],
    reach: &'a [f64],
}

/// Regret, average and regret-matching update of sets `x..y`; `arrays` start at set `x`'s
/// first action. `inst` is scratch.
fn update_sets(
    input: &SetInputs,
    x: usize,
    y: usize,
    arrays: ActionArrays,
    f: Factors,
    inst: &mut Vec<f64>,
) {
    // Vanilla CFR multiplies by 1 and never floors: the same bits without those operations.
    // Each rule family gets its own copy of the loops, so the older ones run as before.
    match rule_kind(&f) {
        PLAIN => update_sets_with::<PLAIN>(input, x, y, arrays, f, inst),
        VAD => update_sets_with::<VAD>(input, x, y, arrays, f, inst),
        EXTENDED => update_sets_with::<EXTENDED>(input, x, y, arrays, f, inst),
        _ => update_sets_with::<STANDARD>(input, x, y, arrays, f, inst),
    }
}

/// Rule families of the set update: vanilla factors, the steps of [`super::RegretParams`],
/// those with the papers' discount order or a weighted prediction, VAD-CFR. This one: vanilla.
pub const PLAIN: u8 = 0;
/// The steps of [`super::RegretParams`] in their first order.
pub const STANDARD: u8 = 1;
/// The papers' discount order or a weighted prediction.
pub const EXTENDED: u8 = 2;
/// VAD-CFR.
pub const VAD: u8 = 3;

/// [`update_sets`] for one rule family `KIND` (see there).
fn update_sets_with<const KIND: u8>(
    input: &SetInputs,
    x: usize,
    y: usize,
    arrays: ActionArrays,
    f: Factors,
    inst: &mut Vec<f64>,
) {
    let sets = input.sets;
    let starts = &sets.action_start[x..=y];
    let node_starts = &sets.node_start[x..=y];
    let own = &sets.own[x..y];
    let first = starts[0] as usize;
    let len = starts[y - x] as usize - first;
    let ActionArrays {
        regret,
        sum,
        last,
        sigma,
    } = arrays;
    assert!(
        input.reach.len() == input.value.len()
            && input.child_start.len() == input.value.len() + 1
            && regret.len() == len
            && sum.len() == len
            && sigma.len() == len
            && (!f.keeps_last() || last.len() == len)
    );
    for j in 0..y - x {
        // SAFETY: `check_sets` (run by `compile`) proved `action_start` and `node_start`
        // nondecreasing with `node_start` ending at `nodes.len()`, so `a0 <= a1 <= len` (the
        // arrays' length, asserted above) and the node range lies inside `nodes`.
        let (set, nodes) = unsafe {
            let (a0, a1) = (
                *starts.get_unchecked(j) as usize - first,
                *starts.get_unchecked(j + 1) as usize - first,
            );
            let nodes = sets.nodes.get_unchecked(
                *node_starts.get_unchecked(j) as usize..*node_starts.get_unchecked(j + 1) as usize,
            );
            let set = ActionArrays {
                regret: regret.get_unchecked_mut(a0..a1),
                sum: sum.get_unchecked_mut(a0..a1),
                last: if f.keeps_last() {
                    last.get_unchecked_mut(a0..a1)
                } else {
                    &mut []
                },
                sigma: sigma.get_unchecked_mut(a0..a1),
            };
            (set, nodes)
        };
        let own = own[j];
        // Two and three actions (every set of the poker games) run unrolled.
        match set.regret.len() {
            2 => update_set::<KIND, 2>(input, nodes, own, set, f, &mut []),
            3 => update_set::<KIND, 3>(input, nodes, own, set, f, &mut []),
            k => {
                if inst.len() < k {
                    inst.resize(k, 0.0);
                }
                update_set::<KIND, 0>(input, nodes, own, set, f, inst)
            }
        }
    }
}

/// The update of one information set with nodes `nodes`, own reach `own` and its actions'
/// `arrays`; `K` = its number of actions (0 = any, with `scratch` for the instantaneous
/// regrets).
#[inline(always)]
fn update_set<const KIND: u8, const K: usize>(
    input: &SetInputs,
    nodes: &[u32],
    own: f64,
    arrays: ActionArrays,
    f: Factors,
    scratch: &mut [f64],
) {
    if KIND == PLAIN && K == 2 {
        return update_pair(input, nodes, own, arrays, f.sign);
    }
    let k = if K > 0 { K } else { arrays.regret.len() };
    let mut local = [0.0f64; 3];
    let inst: &mut [f64] = if K > 0 {
        &mut local[..k]
    } else {
        let inst = &mut scratch[..k];
        for r in inst.iter_mut() {
            *r = 0.0;
        }
        inst
    };
    let (value, reach, child_start) = (input.value, input.reach, input.child_start);
    for &h in nodes {
        let h = h as usize;
        // SAFETY: `check_sets` (run by `compile`) proved every node `h` of a set is below
        // `n = value.len() = reach.len()` (asserted by the caller) and has exactly the set's
        // `k` children `child_start[h]..child_start[h] + k`, all below `n`.
        let q = unsafe { *reach.get_unchecked(h) };
        if q == 0.0 {
            continue;
        }
        let (v, c) = unsafe {
            (
                *value.get_unchecked(h),
                *child_start.get_unchecked(h) as usize,
            )
        };
        let kids = unsafe { value.get_unchecked(c..c + k) };
        for (r, u) in inst.iter_mut().zip(kids) {
            *r += q * (u - v);
        }
    }
    apply_rule::<KIND, K>(inst, own, arrays, f)
}

/// The rule family [`update_sets`] runs for factors `f` (see [`PLAIN`] and the others).
pub fn rule_kind(f: &Factors) -> u8 {
    let plain = f.positive == 1.0
        && f.negative == 1.0
        && f.average == 1.0
        && !f.floor
        && !f.predictive
        && !f.discount_first
        && f.volatility.is_none();
    if plain {
        PLAIN
    } else if f.volatility.is_some() {
        VAD
    } else if f.discount_first || f.prediction_weight != 1.0 {
        EXTENDED
    } else {
        STANDARD
    }
}

/// Regret matching's weight of one action at the end of a set update with factors `f`: the
/// positive part of its regret `r`, with the predictive rules' prediction from its last
/// instantaneous regret `last` added (the one formula the tree, sequence and spot kernels
/// share, so their strategies agree bit for bit).
#[inline(always)]
pub fn matched(f: &Factors, r: f64, last: f64) -> f64 {
    if f.predictive {
        let w = f.prediction_weight * last;
        if f.discount_first {
            let d = if r > 0.0 {
                f.predict_positive
            } else {
                f.predict_negative
            };
            (r * d + w).max(0.0)
        } else {
            (r + w).max(0.0)
        }
    } else {
        (r + 0.0).max(0.0)
    }
}

/// Steps 1-3 of [`super::RegretParams`] (or VAD-CFR's rules) for one information set whose
/// instantaneous regrets (player 1's sign, before `f.sign`) are `inst`: regrets, average sums
/// and the next strategy in `arrays`; `own` is the player's reach of the set. `K` = its
/// number of actions (0 = `inst.len()`). Both kernels call this, so every variant means the
/// same in each.
#[inline(always)]
pub fn apply_rule<const KIND: u8, const K: usize>(
    inst: &[f64],
    own: f64,
    arrays: ActionArrays,
    f: Factors,
) {
    let k = if K > 0 { K } else { inst.len() };
    let inst = &inst[..k];
    if KIND == VAD {
        if let Some(v) = f.volatility {
            return update_set_vad(inst, own, arrays, f, &v);
        }
    }
    let regret = &mut arrays.regret[..k];
    let sum = &mut arrays.sum[..k];
    let sigma = &mut arrays.sigma[..k];
    // Regret matching fused in: the positive parts and their sum in action order, as
    // `regret_matching` computes them.
    let mut total = 0.0;
    if KIND == PLAIN {
        // Indexed (the slices are all `k` long, so no bounds checks remain, and with `K`
        // fixed the loop unrolls whole).
        for a in 0..k {
            let nr = regret[a] + f.sign * inst[a];
            regret[a] = nr;
            sum[a] += own * sigma[a];
            let p = (nr + 0.0).max(0.0);
            sigma[a] = p;
            total += p;
        }
    } else if KIND == STANDARD {
        let last = arrays.last;
        for a in 0..k {
            let i = f.sign * inst[a];
            let mut r = regret[a] + i;
            r *= if r > 0.0 { f.positive } else { f.negative };
            if f.floor && r < 0.0 {
                r = 0.0;
            }
            regret[a] = r;
            sum[a] = sum[a] * f.average + own * sigma[a];
            let p = if f.predictive {
                last[a] = i;
                (r + i).max(0.0)
            } else {
                (r + 0.0).max(0.0)
            };
            sigma[a] = p;
            total += p;
        }
    } else {
        let last = arrays.last;
        for a in 0..k {
            let i = f.sign * inst[a];
            let mut r = if f.discount_first {
                // The papers' order: discount the old regret by its sign, then add.
                let old = regret[a];
                old * if old > 0.0 { f.positive } else { f.negative } + i
            } else {
                let r = regret[a] + i;
                r * if r > 0.0 { f.positive } else { f.negative }
            };
            if f.floor && r < 0.0 {
                r = 0.0;
            }
            regret[a] = r;
            sum[a] = sum[a] * f.average + own * sigma[a];
            if f.predictive {
                last[a] = i;
            }
            let p = matched(&f, r, i);
            sigma[a] = p;
            total += p;
        }
    }
    if total > 0.0 {
        for m in sigma.iter_mut() {
            *m /= total;
        }
    } else {
        let u = 1.0 / k as f64;
        for m in sigma.iter_mut() {
            *m = u;
        }
    }
}

/// VAD-CFR's update of one information set (see [`Volatility`]): `inst` holds its
/// instantaneous regrets (player 1's sign), `arrays.last` its moving average of regret
/// magnitudes, repeated at each action.
#[inline(never)]
fn update_set_vad(inst: &[f64], own: f64, arrays: ActionArrays, f: Factors, v: &Volatility) {
    let k = inst.len();
    let ActionArrays {
        regret,
        sum,
        last,
        sigma,
    } = arrays;
    let (regret, sum, last, sigma) = (
        &mut regret[..k],
        &mut sum[..k],
        &mut last[..k],
        &mut sigma[..k],
    );
    let t = f.t;
    let mut m = 0.0f64;
    for &i in inst {
        m = m.max((f.sign * i).abs());
    }
    let ewma = if t == 1.0 {
        m
    } else {
        v.ewma_decay * m + (1.0 - v.ewma_decay) * last[0]
    };
    last.fill(ewma);
    let vol = if v.max_regret > 0.0 {
        (ewma / v.max_regret).min(1.0)
    } else {
        0.0
    };
    let alpha = (v.base_alpha - v.sensitivity * vol).max(0.1);
    let beta = (v.base_beta - v.sensitivity * vol).min(alpha);
    let (xa, xb) = (t.powf(alpha), t.powf(beta));
    let (dp, dn) = (xa / (xa + 1.0), xb / (xb + 1.0));
    // The average, with the strategy this iteration played.
    if t > v.warmup {
        let vi = if v.max_regret > 0.0 {
            (m / v.max_regret).min(1.0)
        } else {
            0.0
        };
        let g = (v.gamma_base + v.gamma_sensitivity * vi).min(v.gamma_max);
        let stability = 1.0 / (1.0 + m.powf(v.stability_exponent));
        let magnitude = (1.0 + m / v.max_regret).powf(v.magnitude_exponent).max(0.1);
        let w = t.powf(g) * stability * magnitude * own;
        for (s, &p) in sum.iter_mut().zip(sigma.iter()) {
            *s += w * p;
        }
    }
    let optimism =
        v.optimism / (1.0 + (t - 1.0) / v.optimism_decay) * (1.0 - v.sensitivity * vol).max(0.0);
    let mut total = 0.0;
    for a in 0..k {
        let i = f.sign * inst[a];
        let b = if i > 0.0 { i * v.boost } else { i };
        let old = regret[a];
        let r = (old * if old >= 0.0 { dp } else { dn } + b).max(v.regret_cap);
        regret[a] = r;
        let projected = r * if r >= 0.0 { dp } else { dn } + optimism * b;
        let p = projected.max(0.0).powf(v.policy_exponent);
        sigma[a] = p;
        total += p;
    }
    if total > 0.0 {
        for s in sigma.iter_mut() {
            *s /= total;
        }
    } else {
        sigma.fill(1.0 / k as f64);
    }
}

/// [`update_set`] of a two-action set with vanilla factors, written lane by lane (all loads
/// before the stores) so that the two actions pair up in vector registers; the same
/// operations on each action.
#[inline(always)]
fn update_pair(input: &SetInputs, nodes: &[u32], own: f64, arrays: ActionArrays, sign: f64) {
    let (value, reach, child_start) = (input.value, input.reach, input.child_start);
    let mut inst = [0.0f64; 2];
    for &h in nodes {
        let h = h as usize;
        // SAFETY: as in `update_set`: `h < n` and its two children `c, c + 1` are below `n`.
        let q = unsafe { *reach.get_unchecked(h) };
        if q == 0.0 {
            continue;
        }
        let (v, u) = unsafe {
            let c = *child_start.get_unchecked(h) as usize;
            (
                *value.get_unchecked(h),
                [*value.get_unchecked(c), *value.get_unchecked(c + 1)],
            )
        };
        inst = [inst[0] + q * (u[0] - v), inst[1] + q * (u[1] - v)];
    }
    let (regret, sum, sigma) = (
        &mut arrays.regret[..2],
        &mut arrays.sum[..2],
        &mut arrays.sigma[..2],
    );
    let m = [sigma[0], sigma[1]];
    let r = [regret[0] + sign * inst[0], regret[1] + sign * inst[1]];
    let g = [sum[0] + own * m[0], sum[1] + own * m[1]];
    let p = [(r[0] + 0.0).max(0.0), (r[1] + 0.0).max(0.0)];
    let total = 0.0 + p[0] + p[1];
    let next = if total > 0.0 {
        [p[0] / total, p[1] / total]
    } else {
        [0.5, 0.5]
    };
    regret.copy_from_slice(&r);
    sum.copy_from_slice(&g);
    sigma.copy_from_slice(&next);
}

/// Regret matching on `regret + last` (last empty = 0): proportional to the positive parts,
/// uniform when none is positive.
pub fn regret_matching(regret: &[f64], last: &[f64], sigma: &mut [f64]) {
    let k = regret.len();
    if last.is_empty() {
        for (s, &r) in sigma.iter_mut().zip(regret) {
            *s = (r + 0.0).max(0.0);
        }
    } else {
        for ((s, &r), &l) in sigma.iter_mut().zip(regret).zip(last) {
            *s = (r + l).max(0.0);
        }
    }
    let total: f64 = sigma.iter().sum();
    if total > 0.0 {
        for s in sigma.iter_mut() {
            *s /= total;
        }
    } else {
        sigma.fill(1.0 / k as f64);
    }
}

/// Runs the set update of player `p` over all its sets, serially (the parallel update is
/// [`Tree::update_split`]).
pub fn update_player(
    tree: &mut Tree,
    sets: &Sets,
    regret: &mut [f64],
    sum: &mut [f64],
    last: &mut [f64],
    f: Factors,
) {
    let p_len = sets.action_start.len() - 1;
    let base = sets.base;
    let num = regret.len();
    let (reach, value, child_start) = (&tree.reach, &tree.value, &tree.child_start);
    let sigma = &mut tree.probs[base..base + num];
    let input = SetInputs {
        sets,
        child_start,
        value,
        // Simultaneous updates keep player 2's reach apart.
        reach: if f.reach2 { &tree.reach2 } else { reach },
    };
    let arrays = ActionArrays {
        regret,
        sum,
        last,
        sigma,
    };
    update_sets(&input, 0, p_len, arrays, f, &mut tree.inst);
}
