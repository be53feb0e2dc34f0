//! The sequence-form kernel: one CFR iteration as two sparse products with the payoff matrix
//! and passes over the sequences, touching each terminal once and no internal or chance node.
//!
//! With `x` and `y` the players' realization plans (sequence `1 + a` for flat action `a`,
//! 0 the empty sequence) and `A[s][t]` the chance-weighted payoff to player 1 of the terminals
//! ending in sequences `s` and `t` (chance folded in, as the exact LP's matrix,
//! [`crate::exact::sequence_form`], but in `f64` and built here in one sweep over the arena),
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
//! flat arrays: `u32` row starts, then per non-zero (at most one per terminal: terminals with
//! the same pair of sequences merge, zeros drop) a column index and a value, each as narrow as
//! the matrix allows ([`Cols`], [`Vals`]). Column indices are `u16` when the columns number
//! at most 65 536, and values are a byte (or two) indexing a dictionary of the matrix's
//! distinct values when there are few: a chance-weighted payoff takes few values in card and
//! dice games (liars dice 1x6: 2 bytes of index and value per entry and direction where `u32`
//! and `f64` take 12). The products are bound by memory traffic beyond the last-level cache,
//! so bytes per entry are what they cost; the dictionary's values are the very `f64`s, read
//! in the same order, so every layout gives the same bits. Each product is cut into [`TASKS`] fixed row ranges, balanced by non-zeros and
//! independent of the thread count; every row is summed by one task in column order, so
//! results are bit-identical for every thread count. The sequence passes cost per action, the
//! products per terminal; with simultaneous updates the two players' bottom-up passes run as
//! two tasks (each the same operations as alone).
//!
//! These arrays are what a GPU back end would take (cuSPARSE's CSR SpMV with 32-bit indices,
//! from [`Layout::Wide`], or a hand-written CSR kernel on the compact layout): only the two
//! products and the two sequence passes touch them, and the
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
    /// Whether `topo` is `0, 1, 2, ...` (the sets' own order is topological, as in every
    /// arena compiled from rules): the plan pass then runs over the actions in order
    /// (`act_parent`), and the update pass over the sets in reverse, reading no `topo`.
    pub in_order: bool,
    /// The parent sequence of each flat action's set (the plan pass's gather when
    /// `in_order`; a sequence of an earlier set, so computed before it is read).
    pub act_parent: Vec<u32>,
}

/// Column indices of a matrix's entries, as narrow as its columns allow.
pub enum Cols {
    /// At most 65 536 columns.
    Narrow(Vec<u16>),
    /// Any number of columns below `u32::MAX`.
    Wide(Vec<u32>),
}

/// The values of a matrix's entries: inline, or indices into a dictionary of its distinct
/// values (the same `f64`s, so products give the same bits either way).
pub enum Vals {
    /// One byte per entry: at most 256 distinct values.
    Dict8 {
        /// The distinct values.
        dict: Vec<f64>,
        /// Each entry's index into `dict`.
        idx: Vec<u8>,
    },
    /// Two bytes per entry: at most [`DICT16_MAX`] distinct values.
    Dict16 {
        /// The distinct values.
        dict: Vec<f64>,
        /// Each entry's index into `dict`.
        idx: Vec<u16>,
    },
    /// The values inline.
    Plain(Vec<f64>),
}

/// Most distinct values a two-byte dictionary holds: 16 KB of values, so that the
/// dictionary stays in the first-level cache beside the products' streams.
pub const DICT16_MAX: usize = 2048;

/// How a matrix's entries are stored: chosen from its shape (or forced, for tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The narrowest columns and values the matrix allows.
    Compact,
    /// `u32` columns and `f64` values whatever the matrix.
    Wide,
}

/// A sparse matrix as CSR rows in flat arrays.
pub struct Csr {
    /// Row `r` holds entries `start[r]..start[r + 1]`.
    pub start: Vec<u32>,
    /// Column of each entry.
    pub col: Cols,
    /// Value of each entry.
    pub val: Vals,
    /// Task boundaries: task `k` computes rows `tasks[k]..tasks[k + 1]`.
    pub tasks: Vec<u32>,
}

/// An entry index of a narrow array (column or dictionary index).
trait Index: Copy {
    /// The index as a `usize`.
    fn get(self) -> usize;
}

impl Index for u8 {
    fn get(self) -> usize {
        self as usize
    }
}

impl Index for u16 {
    fn get(self) -> usize {
        self as usize
    }
}

impl Index for u32 {
    fn get(self) -> usize {
        self as usize
    }
}

/// The values of one row's entries, read one by one.
trait Values: Copy {
    /// The value of entry `k`.
    ///
    /// # Safety
    /// `k` is an entry of the matrix and, for a dictionary, its index is below the
    /// dictionary's length (both proved by [`Csr::check`]).
    unsafe fn at(self, k: usize) -> f64;
}

impl Values for &[f64] {
    unsafe fn at(self, k: usize) -> f64 {
        // SAFETY: the caller's contract: `k` is an entry.
        unsafe { *self.get_unchecked(k) }
    }
}

impl<I: Index> Values for (&[f64], &[I]) {
    unsafe fn at(self, k: usize) -> f64 {
        // SAFETY: the caller's contract: `k` is an entry and its index is in `dict`.
        unsafe { *self.0.get_unchecked(self.1.get_unchecked(k).get()) }
    }
}

/// `out[i] = sum_k val(k) v[col[k]]` over row `r0 + i`'s entries `k`, in column order.
///
/// # Safety
/// `starts` are row starts of the matrix whose entries `cols` and `vals` hold, and every
/// column is below `v.len()` (proved by [`Csr::check`]).
unsafe fn rows_product<C: Index, V: Values>(
    starts: &[u32],
    cols: &[C],
    vals: V,
    v: &[f64],
    out: &mut [f64],
) {
    // SAFETY (every read below): the function's contract: `k` is an entry, its column is
    // below `v.len()`.
    let term = |k: usize| unsafe { vals.at(k) * *v.get_unchecked(cols.get_unchecked(k).get()) };
    for (o, w) in out.iter_mut().zip(starts.windows(2)) {
        let (mut k, end) = (w[0] as usize, w[1] as usize);
        let mut s = 0.0;
        // Unrolled by four, the additions still one after another in column order.
        while k + 4 <= end {
            s += term(k);
            s += term(k + 1);
            s += term(k + 2);
            s += term(k + 3);
            k += 4;
        }
        while k < end {
            s += term(k);
            k += 1;
        }
        *o = s;
    }
}

impl Cols {
    /// Entries.
    fn len(&self) -> usize {
        match self {
            Cols::Narrow(c) => c.len(),
            Cols::Wide(c) => c.len(),
        }
    }

    /// Bytes of one entry's column.
    pub fn width(&self) -> usize {
        match self {
            Cols::Narrow(_) => 2,
            Cols::Wide(_) => 4,
        }
    }

    /// Whether every column is below `cols`.
    fn below(&self, cols: usize) -> bool {
        match self {
            Cols::Narrow(c) => c.iter().all(|&c| (c as usize) < cols),
            Cols::Wide(c) => c.iter().all(|&c| (c as usize) < cols),
        }
    }

    fn capacity_bytes(&self) -> usize {
        match self {
            Cols::Narrow(c) => 2 * c.capacity(),
            Cols::Wide(c) => 4 * c.capacity(),
        }
    }
}

impl Vals {
    /// Entries.
    fn len(&self) -> usize {
        match self {
            Vals::Dict8 { idx, .. } => idx.len(),
            Vals::Dict16 { idx, .. } => idx.len(),
            Vals::Plain(v) => v.len(),
        }
    }

    /// Bytes of one entry's value, and bytes of the dictionary.
    pub fn width(&self) -> (usize, usize) {
        match self {
            Vals::Dict8 { dict, .. } => (1, 8 * dict.len()),
            Vals::Dict16 { dict, .. } => (2, 8 * dict.len()),
            Vals::Plain(_) => (8, 0),
        }
    }

    /// Whether every dictionary index is in its dictionary.
    fn in_dict(&self) -> bool {
        match self {
            Vals::Dict8 { dict, idx } => idx.iter().all(|&i| (i as usize) < dict.len()),
            Vals::Dict16 { dict, idx } => idx.iter().all(|&i| (i as usize) < dict.len()),
            Vals::Plain(_) => true,
        }
    }

    fn capacity_bytes(&self) -> usize {
        match self {
            Vals::Dict8 { dict, idx } => 8 * dict.capacity() + idx.capacity(),
            Vals::Dict16 { dict, idx } => 8 * dict.capacity() + 2 * idx.capacity(),
            Vals::Plain(v) => 8 * v.capacity(),
        }
    }

    /// `values` stored as `layout` asks: a dictionary when the values are few enough.
    fn new(values: Vec<f64>, layout: Layout) -> Vals {
        if layout == Layout::Wide {
            return Vals::Plain(values);
        }
        // The distinct values by their bits (the products multiply by the very `f64`), and
        // each entry's index, in one pass.
        let mut seen: crate::fxhash::FxMap<u64, u16> = Default::default();
        let mut dict = Vec::new();
        let mut idx = Vec::with_capacity(values.len());
        for &v in &values {
            let i = *seen.entry(v.to_bits()).or_insert_with(|| {
                dict.push(v);
                (dict.len() - 1) as u16
            });
            if dict.len() > DICT16_MAX {
                return Vals::Plain(values);
            }
            idx.push(i);
        }
        if dict.len() <= 256 {
            Vals::Dict8 {
                idx: idx.into_iter().map(|i| i as u8).collect(),
                dict,
            }
        } else {
            Vals::Dict16 { dict, idx }
        }
    }
}

impl Csr {
    /// A matrix of the given row starts and entries, stored as `layout` asks for a matrix of
    /// `cols` columns.
    fn new(start: Vec<u32>, col: Vec<u32>, val: Vec<f64>, cols: usize, layout: Layout) -> Csr {
        let col = match layout {
            Layout::Compact if cols <= 1 << 16 => {
                Cols::Narrow(col.into_iter().map(|c| c as u16).collect())
            }
            _ => Cols::Wide(col),
        };
        let mut m = Csr {
            start,
            col,
            val: Vals::new(val, layout),
            tasks: Vec::new(),
        };
        m.cut();
        m
    }

    /// Rows of the matrix.
    pub fn rows(&self) -> usize {
        self.start.len() - 1
    }

    /// Non-zeros of the matrix.
    pub fn nonzeros(&self) -> usize {
        self.val.len()
    }

    /// Bytes of one entry (column and value) and of the dictionary, if any.
    pub fn entry_bytes(&self) -> (usize, usize) {
        let (v, dict) = self.val.width();
        (self.col.width() + v, dict)
    }

    fn bytes(&self) -> usize {
        4 * (self.start.capacity() + self.tasks.capacity())
            + self.col.capacity_bytes()
            + self.val.capacity_bytes()
    }

    /// Cuts the rows into [`TASKS`] ranges of about equal weight (a row weighs its
    /// non-zeros plus one, so that empty rows spread too).
    fn cut(&mut self) {
        let rows = self.rows();
        let total = self.nonzeros() + rows;
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
            self.nonzeros()
        );
        assert_eq!(self.col.len(), self.nonzeros());
        assert!(self.col.below(cols));
        assert!(self.val.in_dict());
        assert!(self.tasks.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!(self.tasks.len(), TASKS + 1);
        assert_eq!(*self.tasks.last().expect("end") as usize, self.rows());
    }

    /// `out = (M v)[rows]` for rows `r0..r0 + out.len()`; `v` has the matrix's columns.
    fn product(&self, v: &[f64], r0: usize, out: &mut [f64], cols: usize) {
        assert!(v.len() == cols && r0 + out.len() <= self.rows());
        let starts = &self.start[r0..=r0 + out.len()];
        // SAFETY: `check` (run by `build`) proved the row starts within the entries, every
        // column below `cols` (which is `v.len()`, asserted above) and every dictionary index
        // in its dictionary.
        unsafe {
            match (&self.col, &self.val) {
                (Cols::Narrow(c), Vals::Dict8 { dict, idx }) => {
                    rows_product(starts, c, (&dict[..], &idx[..]), v, out)
                }
                (Cols::Narrow(c), Vals::Dict16 { dict, idx }) => {
                    rows_product(starts, c, (&dict[..], &idx[..]), v, out)
                }
                (Cols::Narrow(c), Vals::Plain(a)) => rows_product(starts, c, &a[..], v, out),
                (Cols::Wide(c), Vals::Dict8 { dict, idx }) => {
                    rows_product(starts, c, (&dict[..], &idx[..]), v, out)
                }
                (Cols::Wide(c), Vals::Dict16 { dict, idx }) => {
                    rows_product(starts, c, (&dict[..], &idx[..]), v, out)
                }
                (Cols::Wide(c), Vals::Plain(a)) => rows_product(starts, c, &a[..], v, out),
            }
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
    /// Scratch: one set's instantaneous regrets, per player (as long as its widest set).
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

/// Compiles `game` for the sequence-form kernel, with the current strategies uniform and the
/// matrix in its compact layout.
pub fn build(game: &Game) -> Result<Kernel> {
    build_with(game, Layout::Compact)
}

/// Compiles `game` for the sequence-form kernel with the matrix stored as `layout` asks (every
/// layout gives the same bits; [`Layout::Wide`] is for tests and measurements).
pub fn build_with(game: &Game, layout: Layout) -> Result<Kernel> {
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
    let a = csr(rows[0], &merged, rows[1], layout);
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
    let at = Csr::new(counts, col, val, rows[0], layout);
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
    let inst = [0, 1].map(|p| {
        let widest = sets[p].action_start.windows(2).map(|w| w[1] - w[0]).max();
        vec![0.0; widest.unwrap_or(0) as usize]
    });
    Ok(Kernel {
        plan: [vec![0.0; rows[0]], vec![0.0; rows[1]]],
        w: [vec![0.0; rows[0]], vec![0.0; rows[1]]],
        sets,
        a: [a, at],
        sigma,
        inst,
        terminals: game.num_terminal_nodes(),
        nodes: n,
    })
}

/// A CSR matrix of `rows` rows and `cols` columns, stored as `layout` asks, from entries
/// sorted by row, then column.
fn csr(rows: usize, entries: &[(u32, u32, f64)], cols: usize, layout: Layout) -> Csr {
    let mut start = vec![0u32; rows + 1];
    let mut col = Vec::with_capacity(entries.len());
    let mut val = Vec::with_capacity(entries.len());
    for &(s, t, v) in entries {
        start[s as usize + 1] += 1;
        col.push(t);
        val.push(v);
    }
    for i in 0..rows {
        start[i + 1] += start[i];
    }
    Csr::new(start, col, val, cols, layout)
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
    let in_order = topo.iter().enumerate().all(|(i, &s)| i == s as usize);
    let mut act_parent = vec![0u32; game.num_actions[p]];
    for (i, &q) in parent.iter().enumerate() {
        act_parent[action_start[i] as usize..action_start[i + 1] as usize].fill(q);
    }
    SeqSets {
        action_start,
        parent,
        topo,
        in_order,
        act_parent,
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
    assert_eq!(s.act_parent.len(), actions);
    for i in 0..n {
        for a in s.action_start[i]..s.action_start[i + 1] {
            assert_eq!(s.act_parent[a as usize], s.parent[i]);
        }
    }
    // In order, a set's parent sequence belongs to an earlier set: below its first action's
    // sequence.
    assert!(!s.in_order || (0..n).all(|i| s.parent[i] <= s.action_start[i]));
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
            total += u(&s.action_start) + u(&s.parent) + u(&s.topo) + u(&s.act_parent);
            total += f(&self.sigma[p]) + f(&self.plan[p]) + f(&self.w[p]);
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

    /// Player `p`'s realization plan of its current strategy.
    fn plan(&mut self, p: usize) {
        plan_of(&self.sets[p], &self.sigma[p], &mut self.plan[p]);
    }

    /// One player's part of the kernel, borrowed apart from the other's.
    fn parts(&mut self) -> [Part<'_>; 2] {
        let [s0, s1] = &self.sets;
        let [w0, w1] = &mut self.w;
        let [o0, o1] = &self.plan;
        let [g0, g1] = &mut self.sigma;
        let [i0, i1] = &mut self.inst;
        [
            Part {
                sets: s0,
                w: w0,
                plan: o0,
                sigma: g0,
                inst: i0,
            },
            Part {
                sets: s1,
                w: w1,
                plan: o1,
                sigma: g1,
                inst: i1,
            },
        ]
    }

    /// One iteration's products and updates, with the factors of each player (`first` learns
    /// first when `alternating`).
    pub fn iterate(
        &mut self,
        alternating: bool,
        first: usize,
        f: [Factors; 2],
        state: [State; 2],
        mut team: Option<&mut Team>,
        pins: Option<&super::Pins>,
    ) {
        self.plan(0);
        self.plan(1);
        if alternating {
            // `p` learns first, against the opponent's current plan; `o` then against `p`'s
            // updated one.
            let (p, o) = (first, 1 - first);
            let [s0, s1] = state;
            let (sp, so) = if p == 0 { (s0, s1) } else { (s1, s0) };
            self.a[p].product_all(&self.plan[o], &mut self.w[p], team.as_deref_mut());
            let State { regret, sum, last } = sp;
            self.update(
                p,
                f[p],
                State {
                    regret: &mut *regret,
                    sum,
                    last: &mut *last,
                },
            );
            // The learner's locked sets play their lock before the other player learns.
            if let Some(pins) = pins {
                pins.pin(p, regret, last, &mut self.sigma[p]);
            }
            self.plan(p);
            self.a[o].product_all(&self.plan[p], &mut self.w[o], team);
            self.update(o, f[o], so);
        } else {
            let [s0, s1] = state;
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

/// One player's sets, values, plan (its own reach of a set is the plan at the set's parent
/// sequence), strategy and scratch.
struct Part<'a> {
    sets: &'a SeqSets,
    w: &'a mut [f64],
    plan: &'a [f64],
    sigma: &'a mut [f64],
    inst: &'a mut [f64],
}

/// The realization plan `plan` of strategy `sigma` over `sets`.
fn plan_of(s: &SeqSets, sigma: &[f64], plan: &mut [f64]) {
    assert!(sigma.len() == s.act_parent.len() && plan.len() == sigma.len() + 1);
    plan[0] = 1.0;
    if s.in_order {
        // Over the actions in order: each reads the plan at its set's parent sequence,
        // computed before (`check_sets`: a parent sequence is below its set's first action's).
        for (a, (&q, &m)) in s.act_parent.iter().zip(sigma).enumerate() {
            // SAFETY: `check_sets` proved every parent sequence at most the player's actions,
            // which is `plan.len() - 1` (asserted above); `1 + a < plan.len()` likewise.
            unsafe {
                let r = *plan.get_unchecked(q as usize);
                *plan.get_unchecked_mut(1 + a) = r * m;
            }
        }
        return;
    }
    for &i in &s.topo {
        let i = i as usize;
        let r = plan[s.parent[i] as usize];
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
    let s = part.sets;
    match s.in_order {
        true => update_in::<KIND>((0..s.parent.len()).rev(), part, f, state),
        false => {
            let order = s.topo.iter().rev().map(|&i| i as usize);
            update_in::<KIND>(order, part, f, state)
        }
    }
}

/// [`update_with`] with the sets visited in `order` (every set before the set of its parent
/// sequence).
fn update_in<const KIND: u8>(
    order: impl Iterator<Item = usize>,
    part: Part,
    f: Factors,
    state: State,
) {
    let Part {
        sets: s,
        w,
        plan,
        sigma,
        inst,
    } = part;
    let keeps_last = f.keeps_last();
    let State { regret, sum, last } = state;
    let n = sigma.len();
    assert!(regret.len() == n && sum.len() == n && (!keeps_last || last.len() == n));
    assert!(w.len() == n + 1 && plan.len() == n + 1 && s.act_parent.len() == n);
    for i in order {
        // SAFETY: `check_sets` proved `action_start` nondecreasing up to the player's `n`
        // actions with one entry per set plus one (so `i + 1` is in it for every set `i` of
        // `order`), and every parent sequence at most `n`; `w` and `plan` hold `n + 1`
        // sequences, and the action arrays `n` (asserted above).
        unsafe {
            let a0 = *s.action_start.get_unchecked(i) as usize;
            let a1 = *s.action_start.get_unchecked(i + 1) as usize;
            let q = *s.parent.get_unchecked(i) as usize;
            let k = a1 - a0;
            let vals = w.get_unchecked(1 + a0..1 + a1);
            let own = *plan.get_unchecked(q);
            let arrays = ActionArrays {
                regret: regret.get_unchecked_mut(a0..a1),
                sum: sum.get_unchecked_mut(a0..a1),
                last: if keeps_last {
                    last.get_unchecked_mut(a0..a1)
                } else {
                    &mut []
                },
                sigma: sigma.get_unchecked_mut(a0..a1),
            };
            // Sets of two and three actions with their scratch on the stack and every loop
            // unrolled; any other width on the shared scratch.
            let v = match k {
                2 => update_set::<KIND, 2>(vals, own, &mut [0.0; 2], arrays, f),
                3 => update_set::<KIND, 3>(vals, own, &mut [0.0; 3], arrays, f),
                // `inst` holds the widest set (sized by `build`; `update_set` slices it).
                _ => update_set::<KIND, 0>(vals, own, inst, arrays, f),
            };
            *w.get_unchecked_mut(q) += v;
        }
    }
}

/// One set's update from its actions' values `vals`: its value `V = sum_a sigma(a) w(a)`
/// (added in action order, from 0), the instantaneous regrets `w(a) - V` into `inst`, then
/// the rule; returns `V`. `K` actions (0: any number, `vals.len()`).
#[inline(always)]
fn update_set<const KIND: u8, const K: usize>(
    vals: &[f64],
    own: f64,
    inst: &mut [f64],
    arrays: ActionArrays,
    f: Factors,
) -> f64 {
    let k = if K > 0 { K } else { vals.len() };
    let (vals, inst, sigma) = (&vals[..k], &mut inst[..k], &arrays.sigma[..k]);
    let mut v = 0.0;
    for a in 0..k {
        v += sigma[a] * vals[a];
    }
    for a in 0..k {
        inst[a] = vals[a] - v;
    }
    tree::apply_rule::<KIND, K>(inst, own, arrays, f);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random values in [0, 1) (a 64-bit LCG's top bits).
    fn values(n: usize, seed: u64) -> Vec<f64> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x = x
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (x >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect()
    }

    /// Both products of the compact layout equal the wide layout's bit for bit, on every
    /// task range, and the compact layout is the one the shape calls for.
    #[test]
    fn compact_layout_gives_the_wide_layouts_bits() {
        for (spec, narrow, dict) in [
            ("kuhn", true, Some(1)),
            ("leduc", true, Some(1)),
            ("liars-dice(sides=4)", true, Some(1)),
            ("goofspiel(cards=4,order=random)", true, Some(1)),
        ] {
            let game = crate::games::load(spec).expect("built-in").game;
            let compact = build_with(&game, Layout::Compact).expect("kernel");
            let wide = build_with(&game, Layout::Wide).expect("kernel");
            for p in 0..2 {
                let (c, w) = (&compact.a[p], &wide.a[p]);
                assert_eq!(matches!(c.col, Cols::Narrow(_)), narrow, "{spec}");
                assert!(matches!(w.col, Cols::Wide(_)) && matches!(w.val, Vals::Plain(_)));
                assert_eq!(c.entry_bytes().0, 2 + dict.unwrap_or(8), "{spec}");
                assert_eq!(
                    (c.start.clone(), c.tasks.clone()),
                    (w.start.clone(), w.tasks.clone())
                );
                let cols = compact.a[1 - p].rows();
                let v = values(cols, p as u64 + 7);
                let (mut oc, mut ow) = (vec![0.0; c.rows()], vec![0.0; c.rows()]);
                c.product(&v, 0, &mut oc, cols);
                w.product(&v, 0, &mut ow, cols);
                assert!(
                    oc.iter().zip(&ow).all(|(a, b)| a.to_bits() == b.to_bits()),
                    "{spec}"
                );
                assert!(
                    ow.iter().any(|&x| x != 0.0),
                    "{spec}: a product of zeros proves nothing"
                );
                for k in 0..TASKS {
                    let (r0, r1) = (c.tasks[k] as usize, c.tasks[k + 1] as usize);
                    let mut part = vec![0.0; r1 - r0];
                    c.product(&v, r0, &mut part, cols);
                    assert!(part
                        .iter()
                        .zip(&ow[r0..r1])
                        .all(|(a, b)| a.to_bits() == b.to_bits()));
                }
            }
        }
    }

    /// The value layouts by the number of distinct values, and each layout's products equal
    /// a dense product's sums in the same order.
    #[test]
    fn value_layouts_by_distinct_values() {
        let (rows, cols) = (300usize, 70_000usize);
        for (distinct, want) in [
            (10, 1),
            (256, 1),
            (257, 2),
            (DICT16_MAX, 2),
            (DICT16_MAX + 1, 8),
        ] {
            let pool = values(distinct, distinct as u64);
            // Row r holds columns r, r + 1747, ... (some beyond u16), values cycling the pool.
            let mut start = vec![0u32];
            let (mut col, mut val) = (Vec::new(), Vec::new());
            let mut dense = vec![Vec::new(); rows];
            for (r, row) in dense.iter_mut().enumerate() {
                for j in 0..(r % 40) {
                    let c = (r + 1747 * j) % cols;
                    let a = pool[col.len() % distinct];
                    col.push(c as u32);
                    val.push(a);
                    row.push((c, a));
                }
                start.push(col.len() as u32);
            }
            // Every pool value is used, so the dictionary holds exactly `distinct` values.
            let used: std::collections::HashSet<u64> = val.iter().map(|v| v.to_bits()).collect();
            assert_eq!(used.len(), distinct);
            let m = Csr::new(start, col, val, cols, Layout::Compact);
            m.check(cols);
            assert!(matches!(m.col, Cols::Wide(_)), "70 000 columns need u32");
            assert_eq!(m.val.width().0, want, "{distinct} distinct values");
            let v = values(cols, 3);
            let mut out = vec![0.0; rows];
            m.product(&v, 0, &mut out, cols);
            for (r, row) in dense.iter().enumerate() {
                let mut s = 0.0;
                for &(c, a) in row {
                    s += a * v[c];
                }
                assert_eq!(out[r].to_bits(), s.to_bits(), "row {r}");
            }
        }
    }
}
