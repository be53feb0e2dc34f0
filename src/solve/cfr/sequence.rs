//! The sequence-form kernel: one CFR iteration as two sparse products with the payoff matrix
//! and passes over the sequences, touching each terminal once and no internal or chance node.
//!
//! With `x` and `y` the players' realization plans (sequence `1 + a` for flat action `a`,
//! 0 the empty sequence) and `A[s][t]` the chance-weighted payoff to player 1 of the terminals
//! ending in sequences `s` and `t` (chance folded in, as the exact LP's matrix,
//! [`crate::solve::sequence_form`], but in `f64` and built here in one sweep over the arena),
//! an iteration is:
//! 1. the plans, top down over each player's sets: `x[1 + a] = x[parent(I)] sigma(a)` (the
//!    own reach of set `I` is `x[parent(I)]`, the same product the tree kernel takes);
//! 2. `w = A y` (player 1's counterfactual values of its sequences, before the values of the
//!    sets below are added) and, for player 2, `A^T x`;
//! 3. bottom up over the updating player's sets: `V(I) = sum_a sigma(a) w[1 + a]`, the
//!    instantaneous regrets `w[1 + a] - V(I)`, then `w[parent(I)] += V(I)`, and the set's
//!    update by [`super::tree::apply_rule`], the very rules of the tree kernel, so every
//!    variant of [`super::RegretParams`] means the same here. Alternating updates recompute
//!    player 1's plan after its update before `A^T x`.
//!
//! In exact arithmetic the regrets are the tree kernel's (`sum_h q(h) (v(ha) - v(h))` over a
//! set's nodes `h`); in floating point the sums run in another order, so the two kernels
//! agree to rounding, not bit for bit.
//!
//! The matrix is held twice, as CSR rows (for `A y`) and CSR rows of `A^T` (for `A^T x`), in
//! flat arrays: `u32` row starts, `u32` column indices and `f64` values, 24 bytes per
//! non-zero (at most one per terminal: terminals with the same pair of sequences merge, zeros
//! drop). Each product is cut into [`TASKS`] fixed row ranges, balanced by non-zeros and
//! independent of the thread count; every row is summed by one task in column order, so
//! results are bit-identical for every thread count. The sequence passes cost per action, the
//! products per terminal; with simultaneous updates the two players' bottom-up passes run as
//! two tasks (each the same operations as alone).
//!
//! These arrays are what a GPU back end would take as they are (cuSPARSE's CSR SpMV with
//! 32-bit indices): only the two products and the two sequence passes touch them, and the
//! solver's state (regrets, sums, strategies per flat action) stays in the player's flat
//! action order whichever kernel runs.

use super::team::Team;
use super::tree::{self, ActionArrays, Factors};
use crate::error::Result;
use crate::game::{Game, NodeKind};
use std::sync::Mutex;

/// Row ranges each product is cut into (fixed: results never depend on the threads).
pub const TASKS: usize = 32;

/// Games with fewer non-zeros than this run their products on the calling thread alone.
const TEAM_MIN_NONZEROS: usize = 1 << 14;

/// One player's information sets as the sequence passes see them, ordered by flat action.
pub struct SeqSets {
    /// CSR over the player's flat actions: set `s` owns `action_start[s]..action_start[s + 1]`.
    pub action_start: Vec<u32>,
    /// The sequence the set follows (0 = empty, `1 + a` for the player's flat action `a`).
    pub parent: Vec<u32>,
    /// Sets in an order where every set comes after the set of its parent sequence.
    pub topo: Vec<u32>,
}

/// A sparse matrix as CSR rows in flat arrays.
pub struct Csr {
    /// Row `r` holds entries `start[r]..start[r + 1]`.
    pub start: Vec<u32>,
    /// Column of each entry.
    pub col: Vec<u32>,
    /// Value of each entry.
    pub val: Vec<f64>,
    /// Task boundaries: task `k` computes rows `tasks[k]..tasks[k + 1]`.
    pub tasks: Vec<u32>,
}

impl Csr {
    /// Rows of the matrix.
    pub fn rows(&self) -> usize {
        self.start.len() - 1
    }

    fn bytes(&self) -> usize {
        4 * (self.start.capacity() + self.col.capacity() + self.tasks.capacity())
            + 8 * self.val.capacity()
    }

    /// Cuts the rows into [`TASKS`] ranges of about equal weight (a row weighs its
    /// non-zeros plus one, so that empty rows spread too).
    fn cut(&mut self) {
        let rows = self.rows();
        let total = self.val.len() + rows;
        let mut tasks = vec![0u32];
        for k in 1..TASKS {
            let goal = total * k / TASKS;
            // The first row `r` (not before the last cut) with `start[r] + r >= goal`.
            let (mut lo, mut hi) = (*tasks.last().expect("first") as usize, rows);
            while lo < hi {
                let mid = (lo + hi) / 2;
                if self.start[mid] as usize + mid < goal {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            tasks.push(lo as u32);
        }
        tasks.push(rows as u32);
        self.tasks = tasks;
    }

    /// Checks the facts [`Csr::product`]'s unchecked reads rely on.
    fn check(&self, cols: usize) {
        assert!(self.start.first() == Some(&0));
        assert!(self.start.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(
            *self.start.last().expect("sentinel") as usize,
            self.val.len()
        );
        assert_eq!(self.col.len(), self.val.len());
        assert!(self.col.iter().all(|&c| (c as usize) < cols));
        assert!(self.tasks.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(self.tasks.len(), TASKS + 1);
        assert_eq!(*self.tasks.last().expect("end") as usize, self.rows());
    }

    /// `out = (M v)[rows]` for rows `r0..r0 + out.len()`; `v` has the matrix's columns.
    fn product(&self, v: &[f64], r0: usize, out: &mut [f64], cols: usize) {
        assert!(v.len() == cols && r0 + out.len() <= self.rows());
        let starts = &self.start[r0..=r0 + out.len()];
        for (o, w) in out.iter_mut().zip(starts.windows(2)) {
            let (k0, k1) = (w[0] as usize, w[1] as usize);
            let vals = &self.val[k0..k1];
            let cols = &self.col[k0..k1];
            let mut s = 0.0;
            for (&a, &c) in vals.iter().zip(cols) {
                // SAFETY: `check` (run by `build`) proved every column below `cols`, which
                // is `v.len()` (asserted above).
                s += a * unsafe { *v.get_unchecked(c as usize) };
            }
            *o = s;
        }
    }

    /// `out = M v`, cut into the fixed tasks (on `team` if given).
    fn product_all(&self, v: &[f64], out: &mut [f64], team: Option<&mut Team>) {
        let cols = v.len();
        match team {
            None => self.product(v, 0, out, cols),
            Some(team) => {
                let parts = split_by(out, &self.tasks);
                team.run(TASKS, &|k| {
                    let mut part = parts[k].lock().unwrap_or_else(|e| e.into_inner());
                    self.product(v, self.tasks[k] as usize, &mut part, cols);
                });
            }
        }
    }
}

/// `out` cut at `bounds` into one locked slice per range.
fn split_by<'a>(mut out: &'a mut [f64], bounds: &[u32]) -> Vec<Mutex<&'a mut [f64]>> {
    let mut parts = Vec::with_capacity(bounds.len());
    for w in bounds.windows(2) {
        let (head, tail) = out.split_at_mut((w[1] - w[0]) as usize);
        parts.push(Mutex::new(head));
        out = tail;
    }
    parts
}

/// The compiled sequence form and its per-iteration scratch.
pub struct Kernel {
    /// Both players' sets.
    pub sets: [SeqSets; 2],
    /// `A` by rows (player 1's sequences) and `A^T` by rows (player 2's).
    pub a: [Csr; 2],
    /// Current strategies, per player in flat action order.
    pub sigma: [Vec<f64>; 2],
    /// Realization plans of the current strategies (per sequence).
    plan: [Vec<f64>; 2],
    /// Counterfactual values per sequence (player 1's payoffs).
    w: [Vec<f64>; 2],
    /// Own reach of each set (the plan at its parent sequence).
    own: [Vec<f64>; 2],
    /// Scratch: one set's instantaneous regrets, per player.
    inst: [Vec<f64>; 2],
    /// Terminal nodes of the game (for the bytes per terminal).
    pub terminals: usize,
    /// Nodes of the game.
    pub nodes: usize,
}

/// Refuses a game whose matrix would not fit the kernel's 32-bit indices.
fn check_size(game: &Game) -> Result<()> {
    let terminals = game.num_terminal_nodes();
    let seqs = game.num_actions[0].max(game.num_actions[1]) + 1;
    if terminals >= u32::MAX as usize || seqs >= u32::MAX as usize {
        return Err(crate::error::Error::TooBig {
            what: "the sequence-form kernel's payoff matrix".to_string(),
            size: format!("{terminals} terminals and {seqs} sequences"),
            limit: format!("{} of each (32-bit indices)", u32::MAX - 1),
        });
    }
    Ok(())
}

/// Compiles `game` for the sequence-form kernel, with the current strategies uniform.
pub fn build(game: &Game) -> Result<Kernel> {
    check_size(game)?;
    let n = game.nodes.len();
    // One sweep over the arena (parents come before children): chance reach and both
    // players' last sequences per node; a terminal gives one triplet.
    let mut reach = vec![0.0f64; n];
    let mut seq = vec![[0u32; 2]; n];
    let mut triplets: Vec<(u32, u32, f64)> = Vec::with_capacity(game.num_terminal_nodes());
    if n > 0 {
        reach[0] = 1.0;
    }
    for node in 0..n {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Terminal { terminal } => {
                let v = reach[node] * game.terminals[terminal as usize].payoff0_f64;
                if v != 0.0 {
                    triplets.push((seq[node][0], seq[node][1], v));
                }
            }
            NodeKind::Chance => {
                for child in nd.children() {
                    seq[child] = seq[node];
                    reach[child] = reach[node] * game.chance_prob_f64[child];
                }
            }
            NodeKind::Decision { player, infoset } => {
                let set = &game.infosets[player as usize][infoset as usize];
                for (k, child) in nd.children().enumerate() {
                    seq[child] = seq[node];
                    seq[child][player as usize] = (1 + set.action_offset + k) as u32;
                    reach[child] = reach[node];
                }
            }
        }
    }
    drop(reach);
    drop(seq);
    let rows = [game.num_actions[0] + 1, game.num_actions[1] + 1];
    // Stable sort: terminals of the same pair are added in arena order.
    triplets.sort_by_key(|&(s, t, _)| (s, t));
    let mut merged: Vec<(u32, u32, f64)> = Vec::with_capacity(triplets.len());
    for (s, t, v) in triplets {
        match merged.last_mut() {
            Some(last) if last.0 == s && last.1 == t => last.2 += v,
            _ => merged.push((s, t, v)),
        }
    }
    merged.retain(|e| e.2 != 0.0);
    merged.shrink_to_fit();
    let a = csr(rows[0], merged.iter().map(|&(s, t, v)| (s, t, v)));
    // Transpose by counting: each column's entries in row order.
    let mut counts = vec![0u32; rows[1] + 1];
    for &(_, t, _) in &merged {
        counts[t as usize + 1] += 1;
    }
    for i in 0..rows[1] {
        counts[i + 1] += counts[i];
    }
    let mut col = vec![0u32; merged.len()];
    let mut val = vec![0.0f64; merged.len()];
    let mut fill = counts.clone();
    for &(s, t, v) in &merged {
        let k = fill[t as usize] as usize;
        col[k] = s;
        val[k] = v;
        fill[t as usize] += 1;
    }
    drop(merged);
    let mut at = Csr {
        start: counts,
        col,
        val,
        tasks: Vec::new(),
    };
    at.cut();
    let mut a = a;
    a.cut();
    a.check(rows[1]);
    at.check(rows[0]);
    let sets = [0, 1].map(|p| seq_sets(game, p));
    for (p, s) in sets.iter().enumerate() {
        check_sets(s, game.num_actions[p]);
    }
    let sigma = [0, 1].map(|p| {
        let mut sigma = vec![0.0; game.num_actions[p]];
        let s = &sets[p];
        for i in 0..s.parent.len() {
            let r = s.action_start[i] as usize..s.action_start[i + 1] as usize;
            let u = 1.0 / r.len() as f64;
            sigma[r].fill(u);
        }
        sigma
    });
    Ok(Kernel {
        plan: [vec![0.0; rows[0]], vec![0.0; rows[1]]],
        w: [vec![0.0; rows[0]], vec![0.0; rows[1]]],
        own: [0, 1].map(|p| vec![0.0; sets[p].parent.len()]),
        sets,
        a: [a, at],
        sigma,
        inst: [Vec::new(), Vec::new()],
        terminals: game.num_terminal_nodes(),
        nodes: n,
    })
}

/// A CSR matrix of `rows` rows from entries sorted by row, then column.
fn csr(rows: usize, entries: impl Iterator<Item = (u32, u32, f64)>) -> Csr {
    let mut start = vec![0u32; rows + 1];
    let mut col = Vec::new();
    let mut val = Vec::new();
    for (s, t, v) in entries {
        start[s as usize + 1] += 1;
        col.push(t);
        val.push(v);
    }
    for i in 0..rows {
        start[i + 1] += start[i];
    }
    Csr {
        start,
        col,
        val,
        tasks: Vec::new(),
    }
}

fn seq_sets(game: &Game, p: usize) -> SeqSets {
    let infosets = &game.infosets[p];
    let mut by_offset: Vec<u32> = (0..infosets.len() as u32).collect();
    by_offset.sort_by_key(|&s| infosets[s as usize].action_offset);
    let mut action_start = Vec::with_capacity(infosets.len() + 1);
    let mut parent = Vec::with_capacity(infosets.len());
    let mut first_node = Vec::with_capacity(infosets.len());
    for &s in &by_offset {
        let set = &infosets[s as usize];
        action_start.push(set.action_offset as u32);
        parent.push(set.parent_sequence() as u32);
        first_node.push(set.nodes.iter().copied().min().unwrap_or(u32::MAX));
    }
    action_start.push(game.num_actions[p] as u32);
    // The arena puts parents before children, and a set's first node has an ancestor in the
    // set of its parent sequence: ordering by first node is topological.
    let mut topo: Vec<u32> = (0..by_offset.len() as u32).collect();
    topo.sort_by_key(|&s| first_node[s as usize]);
    SeqSets {
        action_start,
        parent,
        topo,
    }
}

/// Checks the facts the sequence passes rely on: action ranges nondecreasing and ending at
/// the player's actions, every set once in `topo` after the set of its parent sequence.
fn check_sets(s: &SeqSets, actions: usize) {
    let n = s.parent.len();
    assert_eq!(s.action_start.len(), n + 1);
    assert!(s.action_start.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(*s.action_start.last().expect("sentinel") as usize, actions);
    assert_eq!(s.topo.len(), n);
    // Which set owns each sequence, to check the order.
    let mut owner = vec![u32::MAX; actions + 1];
    for i in 0..n {
        for a in s.action_start[i]..s.action_start[i + 1] {
            owner[a as usize + 1] = i as u32;
        }
    }
    let mut seen = vec![false; n];
    for &i in &s.topo {
        let i = i as usize;
        assert!(!seen[i]);
        let parent = s.parent[i] as usize;
        assert!(parent <= actions);
        if parent > 0 {
            assert!(seen[owner[parent] as usize]);
        }
        seen[i] = true;
    }
}

/// The mutable per-action state of one player (whole arrays, flat action order).
pub struct State<'a> {
    /// Cumulative regrets.
    pub regret: &'a mut [f64],
    /// Average-strategy sums.
    pub sum: &'a mut [f64],
    /// Last instantaneous regrets (empty unless the rules keep them).
    pub last: &'a mut [f64],
}

impl Kernel {
    /// Heap bytes of the kernel's arrays.
    pub fn bytes(&self) -> usize {
        let f = |v: &Vec<f64>| 8 * v.capacity();
        let u = |v: &Vec<u32>| 4 * v.capacity();
        let mut total = self.a[0].bytes() + self.a[1].bytes();
        for p in 0..2 {
            let s = &self.sets[p];
            total += u(&s.action_start) + u(&s.parent) + u(&s.topo);
            total += f(&self.sigma[p]) + f(&self.plan[p]) + f(&self.w[p]) + f(&self.own[p]);
            total += f(&self.inst[p]);
        }
        total
    }

    /// Bytes of the matrix arrays alone (both orientations).
    pub fn matrix_bytes(&self) -> usize {
        self.a[0].bytes() + self.a[1].bytes()
    }

    /// Non-zeros of `A`.
    pub fn nonzeros(&self) -> usize {
        self.a[0].val.len()
    }

    /// Whether a team of threads pays: products of at least [`TEAM_MIN_NONZEROS`].
    pub fn wants_team(&self) -> bool {
        self.nonzeros() >= TEAM_MIN_NONZEROS
    }

    /// Player `p`'s realization plan of its current strategy, and its own reach of each set.
    fn plan(&mut self, p: usize) {
        plan_of(
            &self.sets[p],
            &self.sigma[p],
            &mut self.plan[p],
            &mut self.own[p],
        );
    }

    /// One player's part of the kernel, borrowed apart from the other's.
    fn parts(&mut self) -> [Part<'_>; 2] {
        let [s0, s1] = &self.sets;
        let [w0, w1] = &mut self.w;
        let [o0, o1] = &self.own;
        let [g0, g1] = &mut self.sigma;
        let [i0, i1] = &mut self.inst;
        [
            Part {
                sets: s0,
                w: w0,
                own: o0,
                sigma: g0,
                inst: i0,
            },
            Part {
                sets: s1,
                w: w1,
                own: o1,
                sigma: g1,
                inst: i1,
            },
        ]
    }

    /// One iteration's products and updates, with the factors of each player.
    pub fn iterate(
        &mut self,
        alternating: bool,
        f: [Factors; 2],
        state: [State; 2],
        mut team: Option<&mut Team>,
    ) {
        self.plan(0);
        self.plan(1);
        let [s0, s1] = state;
        if alternating {
            self.a[0].product_all(&self.plan[1], &mut self.w[0], team.as_deref_mut());
            self.update(0, f[0], s0);
            self.plan(0);
            self.a[1].product_all(&self.plan[0], &mut self.w[1], team);
            self.update(1, f[1], s1);
        } else {
            match team.as_deref_mut() {
                None => {
                    self.a[0].product(&self.plan[1], 0, &mut self.w[0], self.plan[1].len());
                    self.a[1].product(&self.plan[0], 0, &mut self.w[1], self.plan[0].len());
                }
                Some(team) => {
                    // Both products in one phase.
                    let (a, plan) = (&self.a, &self.plan);
                    let [w0, w1] = &mut self.w;
                    let parts = [split_by(w0, &a[0].tasks), split_by(w1, &a[1].tasks)];
                    team.run(2 * TASKS, &|k| {
                        let (p, k) = (k / TASKS, k % TASKS);
                        let mut part = parts[p][k].lock().unwrap_or_else(|e| e.into_inner());
                        let v = &plan[1 - p];
                        a[p].product(v, a[p].tasks[k] as usize, &mut part, v.len());
                    });
                }
            }
            match team {
                None => {
                    self.update(0, f[0], s0);
                    self.update(1, f[1], s1);
                }
                Some(team) => {
                    // The players' passes touch disjoint arrays: one task each.
                    let [p0, p1] = self.parts();
                    let jobs = [Mutex::new(Some((p0, s0))), Mutex::new(Some((p1, s1)))];
                    team.run(2, &|p| {
                        let job = jobs[p].lock().unwrap_or_else(|e| e.into_inner()).take();
                        if let Some((part, state)) = job {
                            update_part(part, f[p], state);
                        }
                    });
                }
            }
        }
    }

    /// The bottom-up pass of player `p` (see [`update_part`]).
    fn update(&mut self, p: usize, f: Factors, state: State) {
        let part = self.parts().into_iter().nth(p).expect("two players");
        update_part(part, f, state);
    }
}

/// One player's sets, values, own reaches, strategy and scratch.
struct Part<'a> {
    sets: &'a SeqSets,
    w: &'a mut [f64],
    own: &'a [f64],
    sigma: &'a mut [f64],
    inst: &'a mut Vec<f64>,
}

/// The realization plan `plan` of strategy `sigma` over `sets`, and the own reach of each set.
fn plan_of(s: &SeqSets, sigma: &[f64], plan: &mut [f64], own: &mut [f64]) {
    plan[0] = 1.0;
    for &i in &s.topo {
        let i = i as usize;
        let r = plan[s.parent[i] as usize];
        own[i] = r;
        for a in s.action_start[i] as usize..s.action_start[i + 1] as usize {
            plan[1 + a] = r * sigma[a];
        }
    }
}

/// The bottom-up pass of one player: regrets of each set from the values in `w`, the set's
/// update, and its value added to its parent sequence.
fn update_part(part: Part, f: Factors, state: State) {
    match tree::rule_kind(&f) {
        tree::PLAIN => update_with::<{ tree::PLAIN }>(part, f, state),
        tree::VAD => update_with::<{ tree::VAD }>(part, f, state),
        tree::EXTENDED => update_with::<{ tree::EXTENDED }>(part, f, state),
        _ => update_with::<{ tree::STANDARD }>(part, f, state),
    }
}

fn update_with<const KIND: u8>(part: Part, f: Factors, state: State) {
    let Part {
        sets: s,
        w,
        own,
        sigma,
        inst,
    } = part;
    let keeps_last = f.keeps_last();
    let State { regret, sum, last } = state;
    assert!(regret.len() == sigma.len() && sum.len() == sigma.len());
    assert!(!keeps_last || last.len() == sigma.len());
    for &i in s.topo.iter().rev() {
        let i = i as usize;
        let (a0, a1) = (s.action_start[i] as usize, s.action_start[i + 1] as usize);
        let k = a1 - a0;
        if inst.len() < k {
            inst.resize(k, 0.0);
        }
        let vals = &w[1 + a0..1 + a1];
        let mut v = 0.0;
        for (&m, &u) in sigma[a0..a1].iter().zip(vals) {
            v += m * u;
        }
        for (r, &u) in inst[..k].iter_mut().zip(vals) {
            *r = u - v;
        }
        w[s.parent[i] as usize] += v;
        let arrays = ActionArrays {
            regret: &mut regret[a0..a1],
            sum: &mut sum[a0..a1],
            last: if keeps_last {
                &mut last[a0..a1]
            } else {
                &mut []
            },
            sigma: &mut sigma[a0..a1],
        };
        match k {
            2 => tree::apply_rule::<KIND, 2>(&inst[..2], own[i], arrays, f),
            3 => tree::apply_rule::<KIND, 3>(&inst[..3], own[i], arrays, f),
            _ => tree::apply_rule::<KIND, 0>(&inst[..k], own[i], arrays, f),
        }
    }
}
