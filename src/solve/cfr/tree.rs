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
//! Parallel passes split a level (forward, backward) or a player's information sets (update)
//! into fixed-size chunks that write disjoint slices. Every output is computed by the same
//! sequence of floating-point operations whatever the chunking, so results are bit-identical
//! for every thread count.

use crate::game::{Game, NodeKind};
use rayon::prelude::*;

/// Levels with at least this many live interior nodes are split over threads.
const PAR_LIVE_MIN: usize = 2048;
/// Live parents per parallel work item.
const NODE_CHUNK: usize = 1024;
/// Information sets per parallel work item.
const SET_CHUNK: usize = 256;
/// Players with at least this many information sets update in parallel.
const PAR_SETS_MIN: usize = 2048;

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

/// The renumbered tree with its per-node scratch arrays.
pub struct Tree {
    /// CSR child ranges, one entry per node plus one.
    pub child_start: Vec<u32>,
    /// Offset into `probs` of each interior node's child probabilities.
    pub offset: Vec<u32>,
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
    /// Nodes the last forward pass reached, as ranges, level after level.
    pub live: Vec<Span>,
    /// The last forward pass.
    pub pass: Pass,
    /// Scratch: the next level's live ranges.
    pub next: Vec<Span>,
    /// Scratch: one information set's instantaneous regrets.
    pub inst: Vec<f64>,
    /// Level boundaries in `live`: level `l` is `live_levels[l]..live_levels[l + 1]`.
    pub live_levels: Vec<u32>,
    /// Skip the nodes that no update can see (see [`Tree::forward`]); off = every node is
    /// computed, for checking that pruning changes nothing.
    pub prune: bool,
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
    let mut probs = vec![0.0; num_actions[0] + num_actions[1]];
    let mut child_start = Vec::with_capacity(n + 1);
    let mut offset = Vec::with_capacity(n);
    let mut value = Vec::with_capacity(n);
    let mut next_child = 1u32;
    for &old in &order {
        let node = &game.nodes[old as usize];
        child_start.push(next_child);
        next_child += node.num_children;
        match node.kind {
            NodeKind::Chance => {
                offset.push(probs.len() as u32);
                probs.extend(node.children().map(|c| game.chance_prob_f64[c]));
                value.push(0.0);
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                let base = if player == 0 { 0 } else { bounds[0] };
                offset.push(base + set.action_offset as u32);
                value.push(0.0);
            }
            NodeKind::Terminal { terminal } => {
                offset.push(0);
                value.push(game.terminals[terminal as usize].payoff0_f64);
            }
        }
    }
    child_start.push(next_child);
    let levels_len = levels.len();
    let sets = [0, 1].map(|p| compile_sets(game, p, &local, bounds));
    let tree = Tree {
        child_start,
        offset,
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
        live: Vec::new(),
        pass: Pass::Both,
        next: Vec::new(),
        inst: Vec::new(),
        live_levels: Vec::with_capacity(levels_len),
        prune: true,
    };
    (tree, sets)
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

/// A range of consecutive nodes of one level whose parents were computed: `(start, end)`.
pub type Span = (u32, u32);

/// Appends `start..end` to `out`, extending the last range when it continues it.
#[inline(always)]
fn emit(out: &mut Vec<Span>, start: usize, end: usize) {
    if let Some(last) = out.last_mut() {
        if last.1 as usize == start {
            last.1 = end as u32;
            return;
        }
    }
    out.push((start as u32, end as u32));
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

/// Marks `x` dead (short gaps are common: a loop, not a call).
#[inline(always)]
fn kill(x: &mut [f64]) {
    for v in x {
        *v = DEAD;
    }
}

/// The read-only arrays of the forward kernel.
#[derive(Clone, Copy)]
struct Shape<'t> {
    child_start: &'t [u32],
    offset: &'t [u32],
    probs: &'t [f64],
    bounds: [u32; 2],
    prune: bool,
    pass: Pass,
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

    /// Forward step of the nodes `spans` of the parent range `lo..hi`: writes the reach of
    /// every child of `lo..hi` (dead below skipped parents) into `kids` (and `kids2`), which
    /// start at the first child of `lo`, and appends the children of the computed parents to
    /// `out`. `parents` (`parents2`) hold the reach of the nodes from `a` on.
    #[allow(clippy::too_many_arguments)]
    fn forward_span(
        &self,
        spans: &[Span],
        (lo, hi, a): (usize, usize, usize),
        parents: &[f64],
        parents2: &[f64],
        kids: &mut [f64],
        kids2: &mut [f64],
        out: &mut Vec<Span>,
    ) {
        let cs = self.child_start;
        let base = cs[lo] as usize;
        let both = !kids2.is_empty();
        let mut gap_from = base;
        for &(x, y) in spans {
            let (x, y) = (x as usize, y as usize);
            let s = cs[x] as usize;
            // Children of the skipped parents since the previous span.
            if gap_from < s {
                kill(&mut kids[gap_from - base..s - base]);
                if both {
                    kill(&mut kids2[gap_from - base..s - base]);
                }
            }
            gap_from = cs[y] as usize;
            for n in x..y {
                let (s, t) = (cs[n] as usize, cs[n + 1] as usize);
                if s == t {
                    continue;
                }
                let r = parents[n - a];
                let off = self.offset[n] as usize;
                let owner = self.owner(off as u32);
                let probs = &self.probs[off..off + (t - s)];
                let kids1 = &mut kids[s - base..t - base];
                match self.pass {
                    Pass::Learner(p) => {
                        // A dead node's value enters its parent's only times an exact 0: skip
                        // it and its subtree.
                        if self.prune && dead(r) {
                            kill(kids1);
                            continue;
                        }
                        if owner == p {
                            kids1.fill(r);
                        } else {
                            scale(r, probs, kids1);
                        }
                    }
                    Pass::Both => {
                        let r2 = parents2[n - a];
                        let kids2 = &mut kids2[s - base..t - base];
                        if self.prune && dead(r) && dead(r2) {
                            kill(kids1);
                            kill(kids2);
                            continue;
                        }
                        match owner {
                            0 => {
                                kids1.fill(r);
                                scale(r2, probs, kids2);
                            }
                            1 => {
                                scale(r, probs, kids1);
                                kids2.fill(r2);
                            }
                            _ => {
                                scale(r, probs, kids1);
                                scale(r2, probs, kids2);
                            }
                        }
                    }
                }
                emit(out, s, t);
            }
        }
        let end = cs[hi] as usize;
        if gap_from < end {
            kill(&mut kids[gap_from - base..end - base]);
            if both {
                kill(&mut kids2[gap_from - base..end - base]);
            }
        }
    }
}

/// One parallel work item of a level: its live ranges and the parent range `lo..hi` it owns
/// (the work items' parent ranges tile the level).
struct Chunk {
    spans: Vec<Span>,
    lo: usize,
    hi: usize,
}

/// Cuts the live ranges `spans` of the level `a..b` into work items of about `NODE_CHUNK`
/// live nodes each.
fn chunks(spans: &[Span], a: usize, b: usize) -> Vec<Chunk> {
    let mut out: Vec<Chunk> = Vec::new();
    let mut cur = Chunk {
        spans: Vec::new(),
        lo: a,
        hi: b,
    };
    let mut size = 0;
    for &(x, y) in spans {
        let (mut x, y) = (x as usize, y as usize);
        while x < y {
            if size == NODE_CHUNK {
                let next = Chunk {
                    spans: Vec::new(),
                    lo: x,
                    hi: b,
                };
                let mut done = std::mem::replace(&mut cur, next);
                done.hi = x;
                out.push(done);
                size = 0;
            }
            let take = (y - x).min(NODE_CHUNK - size);
            cur.spans.push((x as u32, (x + take) as u32));
            size += take;
            x += take;
        }
    }
    out.push(cur);
    out
}

/// Splits `array` (which starts at absolute index `from`) into consecutive mutable slices,
/// the k-th covering `starts[k]..starts[k + 1]`.
fn split_at_starts<'v, T>(array: &'v mut [T], from: usize, starts: &[usize]) -> Vec<&'v mut [T]> {
    let mut rest = &mut array[starts[0] - from..starts[starts.len() - 1] - from];
    let mut out = Vec::with_capacity(starts.len() - 1);
    for w in starts.windows(2) {
        let (mine, more) = rest.split_at_mut(w[1] - w[0]);
        out.push(mine);
        rest = more;
    }
    out
}

/// Live nodes in `spans`.
fn span_len(spans: &[Span]) -> usize {
    spans.iter().map(|&(x, y)| (y - x) as usize).sum()
}

impl Tree {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Whether any pass could be split over threads: a level of at least `PAR_LIVE_MIN` nodes
    /// or a player with at least `PAR_SETS_MIN` information sets. Without one, a thread pool
    /// only adds hand-offs.
    pub fn has_parallel_work(&self, sets: &[Sets; 2]) -> bool {
        self.levels
            .windows(2)
            .any(|w| (w[1] - w[0]) as usize >= PAR_LIVE_MIN)
            || sets.iter().any(|s| s.action_start.len() > PAR_SETS_MIN)
    }

    /// Nodes in the live ranges of the last forward pass (the root before any).
    pub fn live_nodes(&self) -> usize {
        span_len(&self.live).max(1)
    }

    /// Fills the counterfactual reach of `pass` and the live ranges: per level, the nodes whose
    /// value some update can see. With pruning, a node is left out when, for every reach the
    /// pass computes, the path from the root holds a probability exactly 0 that multiplies it:
    /// that reach is then exactly 0 (and is written so) and the node's value reaches the root
    /// only times that 0, so skipping it leaves regrets, averages and strategies bit-identical.
    pub fn forward(&mut self, pass: Pass, parallel: bool) {
        self.pass = pass;
        self.reach[0] = 1.0;
        if pass == Pass::Both {
            self.reach2[0] = 1.0;
        }
        self.live.clear();
        self.live.push((0, 1));
        self.live_levels.clear();
        self.live_levels.extend([0, 1]);
        let shape = Shape {
            child_start: &self.child_start,
            offset: &self.offset,
            probs: &self.probs,
            bounds: self.bounds,
            prune: self.prune,
            pass,
        };
        let both = pass == Pass::Both;
        let levels = self.levels.len() - 1;
        for l in 0..levels.saturating_sub(1) {
            let (i0, i1) = (self.live_levels[l] as usize, self.live.len());
            let (a, b) = (self.levels[l] as usize, self.levels[l + 1] as usize);
            let end = self.child_start[b] as usize;
            let (head, tail) = self.reach.split_at_mut(b);
            let (head2, tail2): (&[f64], &mut [f64]) = if both {
                let (h, t) = self.reach2.split_at_mut(b);
                (&h[a..], &mut t[..end - b])
            } else {
                (&[], &mut [])
            };
            let spans = &self.live[i0..i1];
            if parallel && span_len(spans) >= PAR_LIVE_MIN {
                let work = chunks(spans, a, b);
                let mut starts: Vec<usize> = work
                    .iter()
                    .map(|c| self.child_start[c.lo] as usize)
                    .collect();
                starts.push(end);
                let kids = split_at_starts(tail, b, &starts);
                let kids2 = if both {
                    split_at_starts(tail2, b, &starts)
                } else {
                    work.iter().map(|_| &mut [][..]).collect()
                };
                let parts: Vec<Vec<Span>> = work
                    .par_iter()
                    .zip(kids)
                    .zip(kids2)
                    .map(|((c, k), k2)| {
                        let mut out = Vec::new();
                        shape.forward_span(
                            &c.spans,
                            (c.lo, c.hi, a),
                            &head[a..],
                            head2,
                            k,
                            k2,
                            &mut out,
                        );
                        out
                    })
                    .collect();
                self.next.clear();
                for part in parts {
                    for (x, y) in part {
                        emit(&mut self.next, x as usize, y as usize);
                    }
                }
            } else {
                self.next.clear();
                shape.forward_span(
                    spans,
                    (a, b, a),
                    &head[a..],
                    head2,
                    &mut tail[..end - b],
                    tail2,
                    &mut self.next,
                );
            }
            self.live.extend_from_slice(&self.next);
            self.live_levels.push(self.live.len() as u32);
        }
    }

    /// Player 1's expected payoff at every live interior node, children first.
    pub fn backward(&mut self, parallel: bool) {
        let levels = self.live_levels.len() - 1;
        let (cs, offset, probs) = (&self.child_start, &self.offset, &self.probs);
        let (reach, reach2) = (&self.reach, &self.reach2);
        let (prune, both) = (self.prune, self.pass == Pass::Both);
        // Dead nodes (see `DEAD`) below computed parents are skipped here.
        let skip = |n: usize| prune && dead(reach[n]) && (!both || dead(reach2[n]));
        for l in (0..levels).rev() {
            let spans = &self.live[self.live_levels[l] as usize..self.live_levels[l + 1] as usize];
            let (a, b) = (self.levels[l] as usize, self.levels[l + 1] as usize);
            let (head, tail) = self.value.split_at_mut(b);
            let tail = &*tail;
            let run = |spans: &[Span], out: &mut [f64], lo: usize| {
                for &(x, y) in spans {
                    for n in x as usize..y as usize {
                        let (s, t) = (cs[n] as usize, cs[n + 1] as usize);
                        if s == t || skip(n) {
                            continue;
                        }
                        let off = offset[n] as usize;
                        out[n - lo] = dot(&probs[off..off + (t - s)], &tail[s - b..t - b]);
                    }
                }
            };
            if parallel && span_len(spans) >= PAR_LIVE_MIN {
                let work = chunks(spans, a, b);
                let mut starts: Vec<usize> = work.iter().map(|c| c.lo).collect();
                starts.push(b);
                let outs = split_at_starts(&mut head[a..], a, &starts);
                work.par_iter()
                    .zip(outs)
                    .for_each(|(c, out)| run(&c.spans, out, c.lo));
            } else {
                run(spans, &mut head[a..b], a);
            }
        }
    }

    /// The player's own reach of each of its sets under the current strategy.
    pub fn own_reach(&self, sets: &mut Sets) {
        for &s in &sets.topo {
            let s = s as usize;
            sets.own[s] = match sets.parent_set[s] {
                u32::MAX => 1.0,
                parent => {
                    sets.own[parent as usize]
                        * self.probs[sets.base + sets.parent_action[s] as usize]
                }
            };
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
    let sets = input.sets;
    let first = sets.action_start[x] as usize;
    for s in x..y {
        let a0 = sets.action_start[s] as usize - first;
        let a1 = sets.action_start[s + 1] as usize - first;
        let k = a1 - a0;
        if inst.len() < k {
            inst.resize(k, 0.0);
        }
        let inst = &mut inst[..k];
        inst.fill(0.0);
        for &h in &sets.nodes[sets.node_start[s] as usize..sets.node_start[s + 1] as usize] {
            let h = h as usize;
            let q = input.reach[h];
            if q == 0.0 {
                continue;
            }
            let v = input.value[h];
            let c = input.child_start[h] as usize;
            for (r, u) in inst.iter_mut().zip(&input.value[c..c + k]) {
                *r += q * (u - v);
            }
        }
        let own = sets.own[s];
        let regret = &mut arrays.regret[a0..a1];
        let sum = &mut arrays.sum[a0..a1];
        let sigma = &mut arrays.sigma[a0..a1];
        for a in 0..k {
            let i = f.sign * inst[a];
            let mut r = regret[a] + i;
            r *= if r > 0.0 { f.positive } else { f.negative };
            if f.floor && r < 0.0 {
                r = 0.0;
            }
            regret[a] = r;
            sum[a] = sum[a] * f.average + own * sigma[a];
            inst[a] = i;
        }
        if f.predictive {
            arrays.last[a0..a1].copy_from_slice(&*inst);
        }
        let last: &[f64] = if f.predictive {
            &arrays.last[a0..a1]
        } else {
            &[]
        };
        regret_matching(regret, last, sigma);
    }
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

/// Runs the set update of player `p` over all its sets, in parallel chunks when asked.
pub fn update_player(
    tree: &mut Tree,
    sets: &Sets,
    regret: &mut [f64],
    sum: &mut [f64],
    last: &mut [f64],
    f: Factors,
    parallel: bool,
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
    if !parallel || p_len < PAR_SETS_MIN {
        let arrays = ActionArrays {
            regret,
            sum,
            last,
            sigma,
        };
        update_sets(&input, 0, p_len, arrays, f, &mut tree.inst);
        return;
    }
    let chunks: Vec<(usize, usize)> = (0..p_len)
        .step_by(SET_CHUNK)
        .map(|x| (x, (x + SET_CHUNK).min(p_len)))
        .collect();
    let mut work = Vec::with_capacity(chunks.len());
    let (mut regret, mut sum, mut last, mut sigma) = (regret, sum, last, sigma);
    for &(x, y) in &chunks {
        let len = (sets.action_start[y] - sets.action_start[x]) as usize;
        let (r, r2) = regret.split_at_mut(len);
        let (s, s2) = sum.split_at_mut(len);
        let (g, g2) = sigma.split_at_mut(len);
        let (l, l2) = if f.predictive {
            last.split_at_mut(len)
        } else {
            (&mut [][..], last)
        };
        work.push((
            x,
            y,
            ActionArrays {
                regret: r,
                sum: s,
                last: l,
                sigma: g,
            },
        ));
        regret = r2;
        sum = s2;
        sigma = g2;
        last = l2;
    }
    work.into_par_iter()
        .for_each_init(Vec::new, |inst, (x, y, arrays)| {
            update_sets(&input, x, y, arrays, f, inst)
        });
}
