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

/// Levels with at least this many nodes are split over threads.
pub const PAR_LEVEL_MIN: usize = 8192;
/// Nodes per parallel work item.
const NODE_CHUNK: usize = 2048;
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

impl Tree {
    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.value.len()
    }

    /// Which player owns the actions at `offset` (2 = chance).
    #[inline(always)]
    fn owner(&self, offset: u32) -> usize {
        if offset < self.bounds[0] {
            0
        } else if offset < self.bounds[1] {
            1
        } else {
            2
        }
    }

    /// Fills the counterfactual reach: of `learner` in `reach`, or with `None` of player 1 in
    /// `reach` and player 2 in `reach2`.
    pub fn forward(&mut self, learner: Option<usize>, parallel: bool) {
        self.reach[0] = 1.0;
        if learner.is_none() {
            self.reach2[0] = 1.0;
        }
        let levels = self.levels.len() - 1;
        let mut serial_from: Option<usize> = None;
        for l in 0..levels.saturating_sub(1) {
            let (a, b) = (self.levels[l] as usize, self.levels[l + 1] as usize);
            let big = parallel && self.levels[l + 2] as usize - b >= PAR_LEVEL_MIN;
            if big {
                if let Some(from) = serial_from.take() {
                    self.forward_serial(from, a, learner);
                }
                self.forward_level_parallel(a, b, learner);
            } else if serial_from.is_none() {
                serial_from = Some(a);
            }
        }
        if let Some(from) = serial_from {
            let end = self.levels[levels.saturating_sub(1)] as usize;
            self.forward_serial(from, end, learner);
        }
    }

    fn forward_serial(&mut self, lo: usize, hi: usize, learner: Option<usize>) {
        for n in lo..hi {
            let (s, e) = (
                self.child_start[n] as usize,
                self.child_start[n + 1] as usize,
            );
            if s == e {
                continue;
            }
            let off = self.offset[n] as usize;
            let owner = self.owner(off as u32);
            let probs = &self.probs[off..off + (e - s)];
            match learner {
                Some(p) => push(self.reach[n], probs, &mut self.reach[s..e], owner == p),
                None => {
                    push(self.reach[n], probs, &mut self.reach[s..e], owner == 0);
                    push(self.reach2[n], probs, &mut self.reach2[s..e], owner == 1);
                }
            }
        }
    }

    fn forward_level_parallel(&mut self, a: usize, b: usize, learner: Option<usize>) {
        let child_start = &self.child_start;
        let offset = &self.offset;
        let probs = &self.probs;
        let bounds = self.bounds;
        let owner = |off: u32| {
            if off < bounds[0] {
                0
            } else if off < bounds[1] {
                1
            } else {
                2
            }
        };
        let chunks: Vec<(usize, usize)> = (a..b)
            .step_by(NODE_CHUNK)
            .map(|x| (x, (x + NODE_CHUNK).min(b)))
            .collect();
        let run = |p: usize, parents: &[f64], x: usize, y: usize, kids: &mut [f64]| {
            let base = child_start[x] as usize;
            for n in x..y {
                let (s, e) = (child_start[n] as usize, child_start[n + 1] as usize);
                if s == e {
                    continue;
                }
                let off = offset[n] as usize;
                push(
                    parents[n - a],
                    &probs[off..off + (e - s)],
                    &mut kids[s - base..e - base],
                    owner(off as u32) == p,
                );
            }
        };
        match learner {
            Some(p) => {
                let (parents, kids) = split_children(&mut self.reach, a, b, child_start, &chunks);
                chunks
                    .par_iter()
                    .zip(kids)
                    .for_each(|(&(x, y), k)| run(p, parents, x, y, k));
            }
            None => {
                let (parents1, kids1) = split_children(&mut self.reach, a, b, child_start, &chunks);
                let (parents2, kids2) =
                    split_children(&mut self.reach2, a, b, child_start, &chunks);
                chunks
                    .par_iter()
                    .zip(kids1)
                    .zip(kids2)
                    .for_each(|((&(x, y), k1), k2)| {
                        run(0, parents1, x, y, k1);
                        run(1, parents2, x, y, k2);
                    });
            }
        }
    }

    /// Player 1's expected payoff at every interior node, children first.
    pub fn backward(&mut self, parallel: bool) {
        let levels = self.levels.len() - 1;
        let mut serial_to: Option<usize> = None;
        for l in (0..levels.saturating_sub(1)).rev() {
            let (a, b) = (self.levels[l] as usize, self.levels[l + 1] as usize);
            if parallel && b - a >= PAR_LEVEL_MIN {
                if let Some(to) = serial_to.take() {
                    self.backward_serial(b, to);
                }
                self.backward_level_parallel(a, b);
            } else if serial_to.is_none() {
                serial_to = Some(b);
            }
        }
        if let Some(to) = serial_to {
            self.backward_serial(0, to);
        }
    }

    fn backward_serial(&mut self, lo: usize, hi: usize) {
        for n in (lo..hi).rev() {
            let (s, e) = (
                self.child_start[n] as usize,
                self.child_start[n + 1] as usize,
            );
            if s == e {
                continue;
            }
            let off = self.offset[n] as usize;
            self.value[n] = dot(&self.probs[off..off + (e - s)], &self.value[s..e]);
        }
    }

    fn backward_level_parallel(&mut self, a: usize, b: usize) {
        let child_start = &self.child_start;
        let offset = &self.offset;
        let probs = &self.probs;
        let (head, tail) = self.value.split_at_mut(b);
        let tail = &*tail;
        head[a..b]
            .par_chunks_mut(NODE_CHUNK)
            .enumerate()
            .for_each(|(i, out)| {
                let x = a + i * NODE_CHUNK;
                for (k, v) in out.iter_mut().enumerate() {
                    let n = x + k;
                    let (s, e) = (child_start[n] as usize, child_start[n + 1] as usize);
                    if s == e {
                        continue;
                    }
                    let off = offset[n] as usize;
                    *v = dot(&probs[off..off + (e - s)], &tail[s - b..e - b]);
                }
            });
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

/// Splits `array` at level `a..b`: the level's values, and one mutable slice of children per
/// chunk of parents (consecutive parents own consecutive children).
fn split_children<'v>(
    array: &'v mut [f64],
    a: usize,
    b: usize,
    child_start: &[u32],
    chunks: &[(usize, usize)],
) -> (&'v [f64], Vec<&'v mut [f64]>) {
    let (head, tail) = array.split_at_mut(b);
    let mut rest = &mut tail[..child_start[b] as usize - b];
    let mut pos = b;
    let mut out = Vec::with_capacity(chunks.len());
    for &(_, y) in chunks {
        let end = child_start[y] as usize;
        let (mine, more) = rest.split_at_mut(end - pos);
        out.push(mine);
        rest = more;
        pos = end;
    }
    (&head[a..b], out)
}

/// Children's reach: the parent's times each probability, or the parent's when the learner
/// itself acts (counterfactual reach leaves out the learner's own probabilities).
#[inline(always)]
fn push(parent: f64, probs: &[f64], out: &mut [f64], own: bool) {
    if own {
        out.fill(parent);
    } else {
        for (o, p) in out.iter_mut().zip(probs) {
            *o = parent * p;
        }
    }
}

#[inline(always)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for (x, y) in a.iter().zip(b) {
        s += x * y;
    }
    s
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
        inst.clear();
        inst.resize(k, 0.0);
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
            arrays.last[a0..a1].copy_from_slice(inst);
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
    let positive = |a: usize| {
        let r = regret[a] + last.get(a).copied().unwrap_or(0.0);
        r.max(0.0)
    };
    let total: f64 = (0..k).map(positive).sum();
    for (a, s) in sigma.iter_mut().enumerate() {
        *s = if total > 0.0 {
            positive(a) / total
        } else {
            1.0 / k as f64
        };
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
        update_sets(&input, 0, p_len, arrays, f, &mut Vec::new());
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
