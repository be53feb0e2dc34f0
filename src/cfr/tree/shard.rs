//! The passes of one shard of a tree split across processes (see `super::super::shard`).
//!
//! A [`ShardCut`] cuts the tree at one level into `shards` runs of whole subtrees, balanced by
//! node count; in breadth-first order a run owns one range of nodes per level below the cut
//! (as a group of [`super::Split`] does). Shard `k` computes the levels above the cut (the
//! small top, redundantly on every shard: it needs only the strategies) and its own subtrees'
//! reaches and values with the pruned passes of the split, so every node it computes has the
//! bits of the single-process passes. A shard's part of the tree (`super::partial`: the top,
//! the cut level and its own subtrees, one range per level) is cut by [`ShardCut::partial`]
//! with the same roots, so its passes are the same operations on the same values.
//!
//! The information-set update is where the shards meet. A set's instantaneous regret is a
//! sum over its nodes in breadth-first order, added one node after the other from 0
//! (`update_set`); partial sums of disjoint node runs added afterwards would round
//! differently. So the shards continue one running sum: shard 0 adds the top's nodes and then
//! its own, hands the per-action sums to shard 1, which adds its nodes, and so on (a chain).
//! When every set's nodes run through the shards in shard order (true when a set's nodes lie
//! on one level, as in every built-in game: checked when the cut is made), the chain adds
//! exactly the single process's terms in its order, so the sums are bit-identical whatever
//! the number of shards. The finished sums then enter the unchanged update kernel through a
//! stand-in input with one node per set whose children hold the sums (see [`Applier`]).

use super::split::{backward, check_groups, forward, subtree_sizes, Region, Scratch, Shared};
use super::{update_sets, ActionArrays, Factors, Pass, SetInputs, Sets, Shape, Tree};
use crate::error::{fail, Result};

/// The cut of a tree into the subtrees of `shards` shards, and one shard's lists.
pub struct ShardCut {
    /// The cut level: the levels above it are the top.
    cut: usize,
    /// Shards.
    shards: usize,
    /// Shard `k`'s nodes at the cut level are `roots[k]..roots[k + 1]` (every shard's: the
    /// top and the cut level are whole on every shard).
    roots: Vec<u32>,
    /// This shard's nodes at level `cut + l` are `mine[2 l]..mine[2 l + 1]`.
    mine: Vec<u32>,
    /// This shard's interior nodes at the cut level are `first.0..first.1` in `Tree::inner`.
    first: (u32, u32),
    /// Lists of the top's passes.
    top: Scratch,
    /// Lists of this shard's passes.
    own: Scratch,
    /// Per player, the sets with nodes this shard adds (the top's on shard 0), in set order,
    /// as CSR over `fold_nodes`: set `fold_sets[p][i]` adds nodes
    /// `fold_nodes[p][fold_start[p][i]..fold_start[p][i + 1]]`.
    fold_sets: [Vec<u32>; 2],
    fold_start: [Vec<u32>; 2],
    fold_nodes: [Vec<u32>; 2],
}

/// The cut level of a tree with `levels` (level `l` is `levels[l]..levels[l + 1]`): the
/// shallowest level with at least 64 nodes whose top holds at most an eighth of the tree, else
/// the widest such level (level 1 at least). The same for a whole tree and for the level
/// counts of a game's rules (`super::partial`), so both cut alike.
pub(crate) fn cut_level(levels: &[u64]) -> usize {
    let n = *levels.last().expect("levels");
    let depth = levels.len() - 1;
    let mut cut = 1.min(depth - 1);
    let mut widest = 0;
    for l in 1..depth {
        let (a, b) = (levels[l], levels[l + 1]);
        if l > 1 && a > n / 8 {
            break;
        }
        if b - a > widest {
            (cut, widest) = (l, b - a);
        }
        if b - a >= 64 {
            cut = l;
            break;
        }
    }
    cut
}

/// Shard boundaries at the cut level, as indices into it (`shards + 1` of them, from 0 to
/// `size.len()`), from the subtree size of each of its nodes: shard `k` ends where the
/// running size reaches `k / shards` of the total.
pub(crate) fn split_roots(size: &[u64], shards: usize) -> Vec<u64> {
    let total: u64 = size.iter().sum();
    let mut roots = vec![0u64];
    let mut acc = 0u64;
    for (i, &s) in size.iter().enumerate() {
        acc += s;
        while roots.len() < shards && acc * shards as u64 >= total * roots.len() as u64 {
            roots.push(i as u64 + 1);
        }
    }
    while roots.len() <= shards {
        roots.push(size.len() as u64);
    }
    roots
}

impl ShardCut {
    /// Cuts `tree` for `shards` shards and prepares shard `index`'s lists; fails when a set's
    /// nodes do not run through the shards in shard order (the chain could not add them in
    /// the single process's order).
    pub fn new(tree: &Tree, sets: &[Sets; 2], shards: usize, index: usize) -> Result<ShardCut> {
        if shards == 0 || index >= shards {
            fail!(
                Invalid,
                "shard {index} of {shards}: expected 0 <= index < shards"
            );
        }
        let levels = &tree.levels;
        let depth = levels.len() - 1;
        let wide: Vec<u64> = levels.iter().map(|&x| x as u64).collect();
        let cut = cut_level(&wide);
        let (a, b) = (levels[cut] as usize, levels[cut + 1] as usize);
        let size = subtree_sizes(&tree.child_start);
        let size: Vec<u64> = size[a..b].iter().map(|&s| s as u64).collect();
        let roots: Vec<u32> = split_roots(&size, shards)
            .iter()
            .map(|&r| a as u32 + r as u32)
            .collect();
        let below = depth - cut;
        let mut bounds = roots.clone();
        for l in 1..below {
            for k in 0..=shards {
                let up = bounds[(l - 1) * (shards + 1) + k] as usize;
                bounds.push(tree.child_start[up]);
            }
        }
        check_groups(tree, cut, shards, &bounds);
        let owner = |h: u32| -> usize {
            let l = levels.partition_point(|&x| x <= h) - 1;
            if l < cut {
                return 0;
            }
            let row = &bounds[(l - cut) * (shards + 1)..(l - cut + 1) * (shards + 1)];
            row.partition_point(|&x| x <= h) - 1
        };
        let mut fold_sets = [Vec::new(), Vec::new()];
        let mut fold_start = [vec![0u32], vec![0u32]];
        let mut fold_nodes = [Vec::new(), Vec::new()];
        for p in 0..2 {
            let s = &sets[p];
            for set in 0..s.action_start.len() - 1 {
                let nodes = &s.nodes[s.node_start[set] as usize..s.node_start[set + 1] as usize];
                let mut last = 0;
                let before = fold_nodes[p].len();
                for &h in nodes {
                    let o = owner(h);
                    if o < last {
                        fail!(
                            Unsupported,
                            "an information set of player {} has nodes on several levels across \
                             shards: sharded CFR could not add its regrets in the single-process \
                             order",
                            p + 1
                        );
                    }
                    last = o;
                    if o == index {
                        fold_nodes[p].push(h);
                    }
                }
                if fold_nodes[p].len() > before {
                    fold_sets[p].push(set as u32);
                    fold_start[p].push(fold_nodes[p].len() as u32);
                }
            }
        }
        let mine = bounds
            .chunks(shards + 1)
            .flat_map(|row| [row[index], row[index + 1]])
            .collect();
        Ok(ShardCut::with_lists(
            tree,
            cut,
            roots,
            mine,
            [fold_sets, fold_start, fold_nodes],
        ))
    }

    /// The cut of a partial tree (`super::partial`): the top and the whole cut level, below
    /// it only shard `index`'s subtrees, whose cut-level nodes are
    /// `roots[index]..roots[index + 1]` (`roots` as [`ShardCut::new`] cuts the whole tree);
    /// `sets` hold only the nodes present. The caller checked that every set's nodes run
    /// through the shards in shard order.
    pub(crate) fn partial(
        tree: &Tree,
        sets: &[Sets; 2],
        cut: usize,
        roots: Vec<u32>,
        index: usize,
    ) -> ShardCut {
        let levels = &tree.levels;
        let mut mine = vec![roots[index], roots[index + 1]];
        for l in cut + 1..levels.len() - 1 {
            mine.extend([levels[l], levels[l + 1]]);
        }
        // Every interior node of the shard has its children in the shard one level down (the
        // passes' unchecked reads rely on it).
        let rows = mine.len() / 2;
        for k in 0..rows {
            let x = tree.inner.partition_point(|e| e.id < mine[2 * k]);
            let y = tree.inner.partition_point(|e| e.id < mine[2 * k + 1]);
            for e in &tree.inner[x..y] {
                assert!(k + 1 < rows && mine[2 * k + 2] <= e.child && e.end <= mine[2 * k + 3]);
            }
        }
        // The top's nodes are shard 0's to add, the rest present are this shard's.
        let top_end = levels[cut];
        let mut lists: [[Vec<u32>; 2]; 3] = Default::default();
        for p in 0..2 {
            let s = &sets[p];
            lists[1][p].push(0);
            for set in 0..s.action_start.len() - 1 {
                let nodes = &s.nodes[s.node_start[set] as usize..s.node_start[set + 1] as usize];
                let before = lists[2][p].len();
                for &h in nodes {
                    if index == 0 || h >= top_end {
                        lists[2][p].push(h);
                    }
                }
                if lists[2][p].len() > before {
                    lists[0][p].push(set as u32);
                    let end = lists[2][p].len() as u32;
                    lists[1][p].push(end);
                }
            }
        }
        ShardCut::with_lists(tree, cut, roots, mine, lists)
    }

    /// The cut from its parts and the fold lists `[sets, start, nodes]`.
    fn with_lists(
        tree: &Tree,
        cut: usize,
        roots: Vec<u32>,
        mine: Vec<u32>,
        [fold_sets, fold_start, fold_nodes]: [[Vec<u32>; 2]; 3],
    ) -> ShardCut {
        let at = |r: u32| tree.inner.partition_point(|e| e.id < r) as u32;
        let first = (at(mine[0]), at(mine[1]));
        ShardCut {
            cut,
            shards: roots.len() - 1,
            roots,
            mine,
            first,
            top: Scratch::default(),
            own: Scratch::default(),
            fold_sets,
            fold_start,
            fold_nodes,
        }
    }

    /// The cut level's nodes of every shard, as a range of node ids (shard `k` owns
    /// `cut_range(k)`).
    pub fn cut_range(&self, k: usize) -> std::ops::Range<usize> {
        self.roots[k] as usize..self.roots[k + 1] as usize
    }

    /// All the cut level's nodes.
    pub fn cut_level(&self) -> std::ops::Range<usize> {
        self.roots[0] as usize..self.roots[self.shards] as usize
    }

    /// The cut level.
    pub fn level(&self) -> usize {
        self.cut
    }

    /// Nodes this shard computes below the cut (its share of the work).
    pub fn own_nodes(&self) -> usize {
        self.mine.chunks(2).map(|r| (r[1] - r[0]) as usize).sum()
    }

    /// The forward and backward passes of `pass` over the top and this shard's subtrees.
    pub fn evaluate(&mut self, tree: &mut Tree, pass: Pass) {
        tree.pass = pass;
        tree.reach[0] = 1.0;
        if pass == Pass::Both {
            tree.reach2[0] = 1.0;
        }
        let shape = Shape {
            inner: &tree.inner,
            probs: &tree.probs,
            bounds: tree.bounds,
            prune: tree.prune,
        };
        let reach = (Shared::new(&mut tree.reach), Shared::new(&mut tree.reach2));
        let value = Shared::new(&mut tree.value);
        let top = Region {
            bounds: &tree.levels,
            stride: 1,
            g: 0,
            levels: self.cut + 1,
        };
        let mine = Region {
            bounds: &self.mine,
            stride: 2,
            g: 0,
            levels: self.mine.len() / 2,
        };
        // SAFETY: serial: nothing else holds a slice of `reach` or `value`.
        unsafe {
            forward(shape, pass, &top, (0, 1), &mut self.top, reach);
            forward(shape, pass, &mine, self.first, &mut self.own, reach);
            backward(shape, &mine, &self.own, value);
        }
    }

    /// Shard 0 only: the top's values, from the values `cut` of the whole cut level.
    pub fn finish_top(&mut self, tree: &mut Tree, cut: &[f64]) {
        let range = self.cut_level();
        tree.value[range].copy_from_slice(cut);
        let shape = Shape {
            inner: &tree.inner,
            probs: &tree.probs,
            bounds: tree.bounds,
            prune: tree.prune,
        };
        let value = Shared::new(&mut tree.value);
        let top = Region {
            bounds: &tree.levels,
            stride: 1,
            g: 0,
            levels: self.cut + 1,
        };
        // SAFETY: serial.
        unsafe { backward(shape, &top, &self.top, value) };
    }

    /// Adds this shard's terms of player `p`'s instantaneous regrets to the running sums
    /// `acc` (one per action of `p`), node after node in breadth-first order, as
    /// `update_set` adds them; `reach` is the player's counterfactual reach.
    pub fn fold(&self, tree: &Tree, sets: &Sets, p: usize, reach: &[f64], acc: &mut [f64]) {
        let (value, child_start) = (&tree.value, &tree.child_start);
        for (i, &set) in self.fold_sets[p].iter().enumerate() {
            let set = set as usize;
            let (a0, a1) = (
                sets.action_start[set] as usize,
                sets.action_start[set + 1] as usize,
            );
            let inst = &mut acc[a0..a1];
            let nodes = &self.fold_nodes[p]
                [self.fold_start[p][i] as usize..self.fold_start[p][i + 1] as usize];
            for &h in nodes {
                let h = h as usize;
                let q = reach[h];
                if q == 0.0 {
                    continue;
                }
                let v = value[h];
                let c = child_start[h] as usize;
                for (r, u) in inst.iter_mut().zip(&value[c..c + (a1 - a0)]) {
                    *r += q * (u - v);
                }
            }
        }
    }
}

/// The set update fed with finished instantaneous regrets: a stand-in input with one node
/// per set (reach 1, value 0) whose children hold the set's sums, so `update_set` adds
/// `0 + 1 * (x - 0)`, which is `x` for every sum the chain can give (a running sum started at
/// `+0` is never `-0`). The update kernel itself stays the single process's.
pub struct Applier {
    sets: Sets,
    child_start: Vec<u32>,
    value: Vec<f64>,
    reach: Vec<f64>,
    inst: Vec<f64>,
}

impl Applier {
    /// The stand-in for `sets`.
    pub fn new(sets: &Sets) -> Applier {
        let m = sets.action_start.len() - 1;
        let actions = *sets.action_start.last().expect("sentinel") as usize;
        let mut child_start: Vec<u32> = sets.action_start[..m]
            .iter()
            .map(|&a| (m as u32) + a)
            .collect();
        child_start.resize(m + actions + 1, (m + actions) as u32);
        Applier {
            sets: Sets {
                base: sets.base,
                action_start: sets.action_start.clone(),
                node_start: (0..=m as u32).collect(),
                nodes: (0..m as u32).collect(),
                parent_set: Vec::new(),
                parent_action: Vec::new(),
                topo: Vec::new(),
                own: vec![0.0; m],
            },
            child_start,
            value: vec![0.0; m + actions],
            reach: vec![1.0; m + actions],
            inst: Vec::new(),
        }
    }

    /// Updates regrets, averages and the strategy of the player of `sets` (whose own reaches
    /// are current) from the finished sums `inst` (one per action).
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        tree: &mut Tree,
        sets: &Sets,
        inst: &[f64],
        regret: &mut [f64],
        sum: &mut [f64],
        last: &mut [f64],
        f: Factors,
    ) {
        let m = sets.action_start.len() - 1;
        self.sets.own.copy_from_slice(&sets.own);
        self.value[m..].copy_from_slice(inst);
        let num = regret.len();
        let input = SetInputs {
            sets: &self.sets,
            child_start: &self.child_start,
            value: &self.value,
            reach: &self.reach,
        };
        let arrays = ActionArrays {
            regret,
            sum,
            last,
            sigma: &mut tree.probs[sets.base..sets.base + num],
        };
        update_sets(&input, 0, m, arrays, f, &mut self.inst);
    }
}
