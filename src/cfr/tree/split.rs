//! The parallel passes. Built once (when a solver gets threads), a [`Split`] cuts the tree at
//! one level into about [`GROUPS`] groups of whole subtrees, balanced by node count. In
//! breadth-first order the descendants of consecutive nodes of a level are consecutive at
//! every deeper level, so a group owns one range of nodes per level and writes nothing
//! another group reads: a task of the team (`super::super::team`) runs a group's whole
//! forward and backward pass without a barrier per level, and an iteration is one phase for
//! the tree and one for the information sets (which span groups, so they update afterwards in
//! fixed chunks of whole sets, offered left to right so that a thread mostly updates the sets
//! whose nodes it computed). The levels above the cut (a small top) run serially before and
//! after the groups.
//!
//! Every node's reach and value and every set's update is the same sequence of
//! floating-point operations as in the serial passes (a set sums its nodes in breadth-first
//! order whoever computed them), so results are bit-identical for every thread count and
//! every split. Per-group lists and per-chunk scratch are allocated with the split (the computed
//! lists at their largest size) and kept across iterations; only a candidate list that
//! outgrows every earlier iteration's reallocates.

use super::{update_sets, ActionArrays, Factors, Pass, SetInputs, Sets, Shape, Span, Tree};
use crate::cfr::team::{Team, MAX_TASKS};
use std::marker::PhantomData;
use std::ops::Range;

/// Groups of subtrees the tree is cut into: enough for the team to balance two or more threads
/// when pruning leaves groups unevenly live, few enough that the serial top stays small.
pub const GROUPS: usize = 64;
/// Trees with at most this many nodes are not cut (their passes take microseconds).
const MIN_NODES: usize = super::LEAN_MAX_NODES;
/// A cut level whose nodes lie deeper than `n / MAX_TOP` is not taken: the top runs serially.
const MAX_TOP: usize = 8;
/// Chunks of information sets per player.
const CHUNKS: usize = 64;
/// Least work (set nodes plus actions) of a chunk.
const MIN_CHUNK_WORK: usize = 4096;

/// Forward and backward lists of one region (the top or a group), kept across iterations.
#[derive(Default)]
pub(super) struct Scratch {
    /// The candidates of the level being computed (see `Shape::forward_step`).
    cands: Vec<Span>,
    /// The next level's candidates.
    next: Vec<Span>,
    /// Indices into `Tree::inner` of the computed nodes, level after level.
    computed: Vec<u32>,
    /// Level boundaries in `computed`.
    computed_levels: Vec<u32>,
    /// Children of the computed nodes.
    live: usize,
}

impl Scratch {
    fn bytes(&self) -> usize {
        self.cands.capacity() * std::mem::size_of::<Span>()
            + self.next.capacity() * std::mem::size_of::<Span>()
            + (self.computed.capacity() + self.computed_levels.capacity()) * 4
    }
}

/// A run of whole sets of one player that one task updates, with its scratch.
struct Chunk {
    player: usize,
    sets: Range<usize>,
    /// One set's instantaneous regrets (as wide as the chunk's widest set).
    inst: Vec<f64>,
}

/// The parallel layout of a compiled tree: the groups of the forward and backward passes
/// and the chunks of the information-set update.
pub struct Split {
    /// First level cut into groups; the levels above it are the serial top.
    cut: usize,
    /// Number of groups (0 = the tree is not cut; the passes stay serial).
    groups: usize,
    /// Group `g`'s nodes at level `cut + k` are `bounds[k * (groups + 1) + g]` to the next
    /// entry: each level's row tiles the level.
    bounds: Vec<u32>,
    /// Group `g`'s interior nodes at level `cut` are `first[g]..first[g + 1]` in
    /// `Tree::inner`.
    first: Vec<u32>,
    /// Lists of the top.
    top: Scratch,
    /// Lists of each group.
    scratch: Vec<Scratch>,
    /// Player 1's chunks, then player 2's.
    chunks: Vec<Chunk>,
    /// The order in which a phase offers the chunks (player 1's, player 2's, both players'):
    /// by where their nodes lie across the tree, left to right (see [`chunk_order`]).
    order: [Vec<u32>; 3],
}

/// A region of the tree as a range of nodes per level: level `k` of the region is
/// `bounds[k * stride + g]..bounds[k * stride + g + 1]`.
pub(super) struct Region<'b> {
    pub(super) bounds: &'b [u32],
    pub(super) stride: usize,
    pub(super) g: usize,
    /// Levels of the region.
    pub(super) levels: usize,
}

impl Region<'_> {
    fn span(&self, k: usize) -> Range<usize> {
        let i = k * self.stride + self.g;
        self.bounds[i] as usize..self.bounds[i + 1] as usize
    }
}

/// A per-node array shared by the tasks of one parallel section, each reading and writing
/// only the ranges of its own region.
#[derive(Clone, Copy)]
pub(super) struct Shared<'a> {
    ptr: *mut f64,
    len: usize,
    _array: PhantomData<&'a mut [f64]>,
}

// SAFETY: a `Shared` is only read and written through `slice`/`slice_mut`, whose callers
// guarantee that no two live slices overlap unless both are read-only.
unsafe impl Send for Shared<'_> {}
unsafe impl Sync for Shared<'_> {}

impl<'a> Shared<'a> {
    pub(super) fn new(array: &'a mut [f64]) -> Self {
        Shared {
            ptr: array.as_mut_ptr(),
            len: array.len(),
            _array: PhantomData,
        }
    }

    /// `r` of the array, read-only.
    ///
    /// # Safety
    /// No slice from [`Shared::slice_mut`] overlapping `r` lives while this one does.
    unsafe fn slice(&self, r: Range<usize>) -> &'a [f64] {
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: in bounds (asserted); no overlapping mutable slice (the caller's promise).
        unsafe { std::slice::from_raw_parts(self.ptr.add(r.start), r.end - r.start) }
    }

    /// `r` of the array, mutable.
    ///
    /// # Safety
    /// No other slice overlapping `r` lives while this one does.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice_mut(&self, r: Range<usize>) -> &'a mut [f64] {
        assert!(r.start <= r.end && r.end <= self.len);
        // SAFETY: in bounds (asserted); exclusive (the caller's promise).
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }
}

/// The items of a slice shared by the tasks of one phase, each task taking its own items.
struct Slots<'a, T> {
    ptr: *mut T,
    len: usize,
    _items: PhantomData<&'a mut [T]>,
}

// SAFETY: a `Slots` hands out its items only through `get`, whose callers guarantee that no
// item is held twice; the items move between threads, so they must be `Send`.
unsafe impl<T: Send> Send for Slots<'_, T> {}
unsafe impl<T: Send> Sync for Slots<'_, T> {}

impl<'a, T> Slots<'a, T> {
    fn new(items: &'a mut [T]) -> Self {
        Slots {
            ptr: items.as_mut_ptr(),
            len: items.len(),
            _items: PhantomData,
        }
    }

    /// Item `i`.
    ///
    /// # Safety
    /// No other reference to item `i` lives while this one does.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self, i: usize) -> &'a mut T {
        assert!(i < self.len);
        // SAFETY: in bounds (asserted); exclusive (the caller's promise).
        unsafe { &mut *self.ptr.add(i) }
    }
}

impl Split {
    /// Cuts `tree` into about `target` groups (none when the tree is small or too narrow
    /// near the root) and `sets` into chunks, and checks the facts the passes rely on.
    pub fn build(tree: &Tree, sets: &[Sets; 2], target: usize) -> Split {
        // The groups and the own-reach task form one phase of the team.
        let target = target.clamp(1, MAX_TASKS / 2);
        let (cut, roots) = cut_level(tree, target).unwrap_or((0, Vec::new()));
        let groups = roots.len().saturating_sub(1);
        let mut bounds = Vec::new();
        let mut first = Vec::new();
        let mut scratch = Vec::new();
        let mut top = Scratch::default();
        if groups > 0 {
            let levels = tree.levels.len() - 1 - cut;
            // A group's nodes one level down are the children of its nodes at this level.
            bounds.extend_from_slice(&roots);
            for k in 1..levels {
                for g in 0..=groups {
                    let up = bounds[(k - 1) * (groups + 1) + g] as usize;
                    bounds.push(tree.child_start[up]);
                }
            }
            first = roots
                .iter()
                .map(|&r| tree.inner.partition_point(|e| e.id < r) as u32)
                .collect();
            let sizes = check_groups(tree, cut, groups, &bounds);
            scratch = sizes
                .into_iter()
                .map(|inner| Scratch {
                    computed: Vec::with_capacity(inner),
                    computed_levels: Vec::with_capacity(levels + 1),
                    ..Scratch::default()
                })
                .collect();
            top.computed.reserve(tree.inner_levels[cut] as usize);
            top.computed_levels.reserve(cut + 1);
        }
        let (chunks, chunk_start) = chunk_sets(sets);
        let order = chunk_order(tree, sets, &chunks, chunk_start);
        Split {
            cut,
            groups,
            bounds,
            first,
            top,
            scratch,
            chunks,
            order,
        }
    }

    /// Whether the forward and backward passes are cut into groups.
    pub fn has_groups(&self) -> bool {
        self.groups > 0
    }

    /// The cut level, the number of groups, the sizes (in nodes) of the largest and smallest
    /// group, and the nodes above the cut.
    #[cfg(test)]
    pub fn shape(&self) -> (usize, usize, usize, usize, usize) {
        let g1 = self.groups + 1;
        let size = |g: usize| -> usize {
            self.bounds
                .chunks(g1)
                .map(|row| (row[g + 1] - row[g]) as usize)
                .sum()
        };
        let sizes: Vec<usize> = (0..self.groups).map(size).collect();
        let max = sizes.iter().copied().max().unwrap_or(0);
        let min = sizes.iter().copied().min().unwrap_or(0);
        let top = self.bounds.first().copied().unwrap_or(0) as usize;
        (self.cut, self.groups, max, min, top)
    }

    /// Whether a team of threads has anything to split: groups, or a player with several
    /// chunks of sets.
    pub fn has_parallel_work(&self) -> bool {
        self.has_groups() || self.chunks.len() > 2
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        (self.bounds.capacity() + self.first.capacity()) * 4
            + self.top.bytes()
            + self.scratch.iter().map(Scratch::bytes).sum::<usize>()
            + self.scratch.capacity() * std::mem::size_of::<Scratch>()
            + self
                .chunks
                .iter()
                .map(|c| c.inst.capacity() * 8 + std::mem::size_of::<Chunk>())
                .sum::<usize>()
            + self.order.iter().map(|o| o.capacity() * 4).sum::<usize>()
    }
}

/// Subtree size of every node, children first (no recursion).
pub(super) fn subtree_sizes(child_start: &[u32]) -> Vec<u32> {
    let n = child_start.len() - 1;
    let mut size = vec![1u32; n];
    for i in (0..n).rev() {
        let kids = &size[child_start[i] as usize..child_start[i + 1] as usize];
        size[i] = 1 + kids.iter().sum::<u32>();
    }
    size
}

/// The cut level and the group boundaries at it (node ids, first and last the level's):
/// the shallowest level whose largest subtree holds at most `1 / target` of the nodes below
/// the cut, else the one with the smallest largest subtree; none when that subtree holds
/// more than a third of them, or the level lies below `n / MAX_TOP` nodes, or the tree has
/// at most `MIN_NODES` nodes. Groups are runs of consecutive subtrees of at least
/// `1 / target` of the nodes below the cut (the last one whatever is left).
fn cut_level(tree: &Tree, target: usize) -> Option<(usize, Vec<u32>)> {
    let n = tree.len();
    if n <= MIN_NODES || tree.inner.len() <= 1 {
        return None;
    }
    let size = subtree_sizes(&tree.child_start);
    let levels = &tree.levels;
    let mut best: Option<(usize, usize)> = None;
    for l in 1..levels.len() - 1 {
        let (a, b) = (levels[l] as usize, levels[l + 1] as usize);
        if a > n / MAX_TOP {
            break;
        }
        let max = size[a..b].iter().copied().max().unwrap_or(0) as usize;
        if best.is_none_or(|(_, m)| max < m) {
            best = Some((l, max));
        }
        if max * target <= n - a {
            break;
        }
    }
    let (cut, max) = best?;
    let (a, b) = (levels[cut] as usize, levels[cut + 1] as usize);
    let below = n - a;
    if max * 3 > below {
        return None;
    }
    let per = below.div_ceil(target);
    let mut roots = vec![a as u32];
    let mut acc = 0;
    for (i, &s) in (a..b).zip(&size[a..b]) {
        acc += s as usize;
        if acc >= per && i + 1 < b {
            roots.push(i as u32 + 1);
            acc = 0;
        }
    }
    roots.push(b as u32);
    Some((cut, roots))
}

/// Checks the facts the group passes rely on: each row of `bounds` tiles its level in
/// order, and every interior node of a group has its children in the same group one level
/// down (so a group's candidates, and the parents it reads, are its own nodes). Returns each
/// group's number of interior nodes.
pub(super) fn check_groups(tree: &Tree, cut: usize, groups: usize, bounds: &[u32]) -> Vec<usize> {
    let levels = tree.levels.len() - 1 - cut;
    assert_eq!(bounds.len(), levels * (groups + 1));
    let mut sizes = vec![0; groups];
    for k in 0..levels {
        let row = &bounds[k * (groups + 1)..(k + 1) * (groups + 1)];
        assert_eq!(row[0], tree.levels[cut + k]);
        assert_eq!(row[groups], tree.levels[cut + k + 1]);
        assert!(row.windows(2).all(|w| w[0] <= w[1]));
        for g in 0..groups {
            let x = tree.inner.partition_point(|e| e.id < row[g]);
            let y = tree.inner.partition_point(|e| e.id < row[g + 1]);
            sizes[g] += y - x;
            for e in &tree.inner[x..y] {
                let down = (k + 1) * (groups + 1) + g;
                assert!(k + 1 < levels && bounds[down] <= e.child && e.end <= bounds[down + 1]);
            }
        }
    }
    sizes
}

/// Cuts each player's sets into runs of about `1 / CHUNKS` of its work (set nodes plus
/// actions), at least `MIN_CHUNK_WORK` each.
fn chunk_sets(sets: &[Sets; 2]) -> (Vec<Chunk>, [usize; 3]) {
    let mut chunks = Vec::new();
    let mut chunk_start = [0; 3];
    for (p, s) in sets.iter().enumerate() {
        let m = s.action_start.len() - 1;
        let work = |x: usize| {
            (s.node_start[x + 1] - s.node_start[x]) as usize
                + (s.action_start[x + 1] - s.action_start[x]) as usize
        };
        let total: usize = (0..m).map(work).sum();
        let per = (total / CHUNKS).max(MIN_CHUNK_WORK);
        let (mut from, mut acc, mut width) = (0, 0, 0);
        for x in 0..m {
            acc += work(x);
            width = width.max((s.action_start[x + 1] - s.action_start[x]) as usize);
            if acc >= per || x + 1 == m {
                chunks.push(Chunk {
                    player: p,
                    sets: from..x + 1,
                    inst: vec![0.0; width],
                });
                (from, acc, width) = (x + 1, 0, 0);
            }
        }
        chunk_start[p + 1] = chunks.len();
    }
    (chunks, chunk_start)
}

/// The chunks of player 1, of player 2 and of both, each ordered by the mean position of
/// their sets' nodes across their levels (0 = a level's first node, 1 = its last). A group's
/// nodes are one range per level and the team's calling thread takes the groups from the
/// left and the chunks from the front, its helpers from the right and the back, so a chunk
/// then mostly reads the values and reaches that the same thread just computed, and the
/// strategies it writes are mostly read by that thread's groups: on two cores with separate
/// caches, fewer cache lines cross between them.
fn chunk_order(
    tree: &Tree,
    sets: &[Sets; 2],
    chunks: &[Chunk],
    chunk_start: [usize; 3],
) -> [Vec<u32>; 3] {
    let levels = &tree.levels;
    let key: Vec<f64> = chunks
        .iter()
        .map(|c| {
            let s = &sets[c.player];
            let nodes =
                &s.nodes[s.node_start[c.sets.start] as usize..s.node_start[c.sets.end] as usize];
            let mut sum = 0.0;
            for &h in nodes {
                let l = levels.partition_point(|&a| a <= h) - 1;
                let (a, b) = (levels[l], levels[l + 1]);
                sum += (h - a) as f64 / (b - a).max(1) as f64;
            }
            sum / nodes.len().max(1) as f64
        })
        .collect();
    let sorted = |r: Range<usize>| {
        let mut o: Vec<u32> = r.map(|c| c as u32).collect();
        o.sort_by(|&x, &y| key[x as usize].total_cmp(&key[y as usize]));
        o
    };
    [
        sorted(chunk_start[0]..chunk_start[1]),
        sorted(chunk_start[1]..chunk_start[2]),
        sorted(chunk_start[0]..chunk_start[2]),
    ]
}

/// The forward pass of `pass` over `region`, starting from the candidates `start` (indices
/// into `Tree::inner`) at its first level: the reach of every node of its other levels, its
/// computed nodes into `sc`.
///
/// # Safety
/// No other live slice of `reach` or `reach2` overlaps the region's levels.
pub(super) unsafe fn forward(
    shape: Shape,
    pass: Pass,
    region: &Region,
    start: Span,
    sc: &mut Scratch,
    (reach, reach2): (Shared, Shared),
) {
    let both = pass == Pass::Both;
    sc.computed.clear();
    sc.computed_levels.clear();
    sc.computed_levels.push(0);
    sc.cands.clear();
    if start.0 < start.1 {
        sc.cands.push(start);
    }
    sc.live = 0;
    for k in 0..region.levels - 1 {
        let (up, down) = (region.span(k), region.span(k + 1));
        let (a, lo, hi) = (up.start, down.start, down.end);
        // SAFETY: the region's levels are disjoint ranges nobody else holds (the caller's
        // promise); the parents' level and the children's are different levels.
        let (parents, kids) = unsafe { (reach.slice(up.clone()), reach.slice_mut(down.clone())) };
        let (parents2, kids2): (&[f64], &mut [f64]) = if both {
            unsafe { (reach2.slice(up), reach2.slice_mut(down)) }
        } else {
            (&[], &mut [])
        };
        sc.next.clear();
        sc.live += shape.forward_step(
            pass,
            &sc.cands,
            (a, lo, hi),
            (parents, parents2),
            kids,
            kids2,
            &mut sc.computed,
            &mut sc.next,
        );
        sc.computed_levels.push(sc.computed.len() as u32);
        std::mem::swap(&mut sc.cands, &mut sc.next);
    }
}

/// The backward pass over the nodes `forward` computed in `region`, children first.
///
/// # Safety
/// No other live slice of `value` overlaps the region's levels.
pub(super) unsafe fn backward(shape: Shape, region: &Region, sc: &Scratch, value: Shared) {
    for k in (0..sc.computed_levels.len() - 1).rev() {
        let list = &sc.computed[sc.computed_levels[k] as usize..sc.computed_levels[k + 1] as usize];
        if list.is_empty() {
            continue;
        }
        let (up, down) = (region.span(k), region.span(k + 1));
        let (lo, b) = (up.start, down.start);
        // SAFETY: as in `forward`: the region's own levels, two different ones.
        let (out, kids) = unsafe { (value.slice_mut(up), value.slice(down)) };
        shape.backward(shape.inner, list, out, lo, kids, b);
    }
}

impl Tree {
    /// Builds the parallel layout (see [`Split`]) for `sets`, cutting the tree into about
    /// `target` groups; returns whether a team of threads has anything to split.
    pub fn prepare_split(&mut self, sets: &[Sets; 2], target: usize) -> bool {
        let split = Split::build(self, sets, target);
        let useful = split.has_parallel_work();
        self.split = useful.then_some(split);
        useful
    }

    /// [`Tree::forward`] then [`Tree::backward`] over the split: the top serially, then the
    /// groups on the team's threads (each its forward and backward pass) beside the own
    /// reaches of `sets`, then the top's values.
    pub(super) fn evaluate_split(&mut self, pass: Pass, sets: &mut [Sets], team: &mut Team) {
        self.pass = pass;
        self.lean_pass = false;
        self.reach[0] = 1.0;
        if pass == Pass::Both {
            self.reach2[0] = 1.0;
        }
        let split = self.split.as_mut().expect("a split tree");
        let shape = Shape {
            inner: &self.inner,
            probs: &self.probs,
            bounds: self.bounds,
            prune: self.prune,
        };
        let reach = (Shared::new(&mut self.reach), Shared::new(&mut self.reach2));
        let value = Shared::new(&mut self.value);
        let top = Region {
            bounds: &self.levels,
            stride: 1,
            g: 0,
            levels: split.cut + 1,
        };
        // SAFETY: serial: nothing else holds a slice of `reach` or `value`.
        unsafe { forward(shape, pass, &top, (0, 1), &mut split.top, reach) };
        let (bounds, first, groups) = (&split.bounds, &split.first, split.groups);
        let levels = self.levels.len() - 1 - split.cut;
        let probs = &self.probs;
        let scratch = Slots::new(&mut split.scratch);
        let mut sets = sets;
        let own = Slots::new(std::slice::from_mut(&mut sets));
        // Tasks `0..groups` are the groups; the last one, the own reaches (which read only
        // the strategies).
        team.run(groups + 1, &|g| {
            if g == groups {
                // SAFETY: only this task takes the sets.
                for s in unsafe { own.get(0) }.iter_mut() {
                    s.own_reach(probs);
                }
                return;
            }
            let region = Region {
                bounds,
                stride: groups + 1,
                g,
                levels,
            };
            // SAFETY: the team runs each task once, so this group's scratch is this task's;
            // the groups' ranges are disjoint at every level (`check_groups`), so each task
            // holds slices of its own group only.
            unsafe {
                let sc = scratch.get(g);
                forward(shape, pass, &region, (first[g], first[g + 1]), sc, reach);
                backward(shape, &region, sc, value);
            }
        });
        // SAFETY: serial again, after every group finished.
        unsafe { backward(shape, &top, &split.top, value) };
        self.live = 1 + split.top.live + split.scratch.iter().map(|s| s.live).sum::<usize>();
    }

    /// The set update of the players `players` (simultaneous updates: both at once) over the
    /// chunks of the split on the team's threads; `f[p]` are player `p`'s factors.
    pub fn update_split(
        &mut self,
        sets: &[Sets; 2],
        players: Range<usize>,
        state: [&mut [Vec<f64>; 2]; 3],
        f: [Factors; 2],
        team: &mut Team,
    ) {
        let split = self.split.as_mut().expect("a split tree");
        let [regret, sum, last] = state.map(|a| a.each_mut().map(|v| Shared::new(v)));
        let probs = Shared::new(&mut self.probs);
        let (reach, reach2, value) = (&self.reach, &self.reach2, &self.value);
        let inputs = [0, 1].map(|p| SetInputs {
            sets: &sets[p],
            child_start: &self.child_start,
            value,
            // Simultaneous updates keep player 2's reach apart.
            reach: if f[p].reach2 { reach2 } else { reach },
        });
        let order = match (players.start, players.end) {
            (0, 2) => &split.order[2],
            (p, _) => &split.order[p],
        };
        let chunks = Slots::new(&mut split.chunks);
        team.run(order.len(), &|i| {
            // SAFETY: the team runs each task once and `order` lists each chunk once, so
            // chunk `order[i]` is this task's.
            let c = unsafe { chunks.get(order[i] as usize) };
            let (p, x, y) = (c.player, c.sets.start, c.sets.end);
            let s = &sets[p];
            let acts = s.action_start[x] as usize..s.action_start[y] as usize;
            let own = s.base + acts.start..s.base + acts.end;
            // SAFETY: a player's chunks hold disjoint runs of its sets (`chunk_sets`), so
            // disjoint ranges of its action arrays, and the players' strategies are disjoint
            // parts of `probs`.
            let arrays = unsafe {
                ActionArrays {
                    regret: regret[p].slice_mut(acts.clone()),
                    sum: sum[p].slice_mut(acts.clone()),
                    last: if f[p].keeps_last() {
                        last[p].slice_mut(acts)
                    } else {
                        &mut []
                    },
                    sigma: probs.slice_mut(own),
                }
            };
            update_sets(&inputs[p], x, y, arrays, f[p], &mut c.inst);
        });
    }
}
