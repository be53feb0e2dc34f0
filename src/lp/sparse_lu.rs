//! Float sparse LU of a simplex basis with Markowitz-style pivoting and Forrest–Tomlin
//! updates, for the revised simplex of [`super::revised`].
//!
//! The factorisation first peels off column and row singletons (game-LP bases are mostly
//! triangular), then eliminates the remaining nucleus sparsest active column first (a bucket
//! queue keeps this cheap) and, within it, the sparsest row among the entries at least
//! `THRESHOLD` times the column's largest (threshold partial pivoting, for stability). Its
//! buffers are kept between refactorisations.
//!
//! The factors are stored in pivot order: step `k` of the factorisation is index `k` of the
//! work vector, so `L` and `U` are triangular in plain index order and no solve permutes
//! anything but the non-zeros it reads and writes. Every triangular pass (FTRAN's `L` and
//! `U`, BTRAN's `U^T` and `L^T`, the update's row elimination) is driven by a two-level bitmap
//! of the indices holding non-zeros: the pass takes the next set bit in pivot order, and the
//! entries it scatters set theirs. Its work is the non-zeros it touches plus one word per 4096
//! indices, so the same loop serves a unit vector and a dense right-hand side, with no
//! symbolic search, no sort and no density guess that can turn out wrong (the former
//! hypersparse search here fell back to dense loops that tested every step, and simplex
//! columns of game LPs sit right at that boundary: 5-10% of the rows).
//!
//! A basis change is a Forrest–Tomlin update (Forrest and Tomlin 1972): the column of `U` at
//! the leaving position is replaced by the spike `R L a_q` (the entering column after FTRAN's
//! `L` and `R` passes, which stays as sparse as the column), its index moves to a fresh slot
//! after every other (slots `m`, `m + 1`, ... in update order), and its old row of `U` is
//! eliminated by the rows after it, recorded as one sparse row eta `R`. FTRAN is then `L`, the
//! `R` etas, `U`; BTRAN is `U^T`, the `R^T` etas in reverse, `L^T`. Unlike product-form etas
//! (dense columns of `B^{-1}`), the update keeps the factors about as sparse as the spikes.
//! The caller refactorises when [`SparseLu::update`] reports lost accuracy or no free slot,
//! and by its own rule on the work the solves have measured ([`SparseLu::solve_work`]).

use crate::prefetch::prefetch;

/// Relative threshold of threshold pivoting: small enough to keep fill low, large enough to
/// keep growth bounded.
const THRESHOLD: f64 = 0.01;
/// Entries below this after elimination are dropped (cancellation noise).
const DROP: f64 = 1e-14;
/// Most updates between factorisations (the slots after the first `m`) for an `m`-row basis:
/// 1000, or `m` (at least 64) for smaller ones.
pub(crate) fn max_updates(m: usize) -> usize {
    m.clamp(64, 1000)
}

/// The basis matrix is numerically singular.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Singular {
    /// How many columns were eliminated before no acceptable pivot remained.
    pub eliminated: usize,
}

/// Prefetches the entries of the row that starts at `start[k]` in `data`, if `k` has a start
/// (the triangular passes ask for the row of the next index they will visit: their loads of
/// the factors' rows, scattered over a few megabytes, were the passes' stalls).
#[inline(always)]
fn prefetch_row(start: &[usize], data: &[(usize, f64)], k: usize) {
    if let Some(&s) = start.get(k) {
        prefetch(data.as_ptr().wrapping_add(s));
    }
}

/// Sparse rows stored flat (`start[k]..start[k + 1]` indexes `data`): one allocation for all
/// rows, so factorising and dropping a factorisation costs no per-row `malloc`/`free`.
#[derive(Default)]
struct Flat {
    start: Vec<usize>,
    data: Vec<(usize, f64)>,
}

impl Flat {
    /// Closes the row being pushed.
    fn end_row(&mut self) {
        self.start.push(self.data.len());
    }

    fn row(&self, k: usize) -> &[(usize, f64)] {
        &self.data[self.start[k]..self.start[k + 1]]
    }

    /// Asks the cache for row `k`'s first entries (a hint: no effect on results).
    #[inline(always)]
    fn prefetch(&self, k: usize) {
        prefetch_row(&self.start, &self.data, k);
    }

    /// [`Self::row`] without bounds checks, for the solves' inner loops.
    ///
    /// # Safety
    /// `k + 1 < self.start.len()` (`k` is a row), and the rows lie within `data` (as every
    /// `Flat` built by `end_row` or `regroup_into` has them).
    #[inline(always)]
    unsafe fn row_unchecked(&self, k: usize) -> &[(usize, f64)] {
        debug_assert!(k + 1 < self.start.len());
        // SAFETY: the caller's contract.
        unsafe {
            let (a, b) = (
                *self.start.get_unchecked(k),
                *self.start.get_unchecked(k + 1),
            );
            debug_assert!(a <= b && b <= self.data.len());
            self.data.get_unchecked(a..b)
        }
    }

    fn clear(&mut self) {
        self.start.clear();
        self.start.push(0);
        self.data.clear();
    }

    /// The transpose-like regrouping into `out` (its buffers reused): entry `(j, v)` of row
    /// `k` goes to row `index(j)` as `(label(k), v)`, for `rows` target rows.
    fn regroup_into(
        &self,
        rows: usize,
        index: impl Fn(usize) -> usize,
        label: impl Fn(usize) -> usize,
        out: &mut Flat,
    ) {
        out.start.clear();
        out.start.resize(rows + 1, 0);
        for &(j, _) in &self.data {
            out.start[index(j) + 1] += 1;
        }
        for j in 0..rows {
            out.start[j + 1] += out.start[j];
        }
        out.data.clear();
        out.data.resize(self.data.len(), (0, 0.0));
        for k in 0..self.start.len() - 1 {
            for &(j, v) in self.row(k) {
                // `start[j]` serves as the fill cursor of row `j`, then is shifted back below.
                let j = index(j);
                out.data[out.start[j]] = (label(k), v);
                out.start[j] += 1;
            }
        }
        for j in (1..=rows).rev() {
            out.start[j] = out.start[j - 1];
        }
        out.start[0] = 0;
    }

    /// Rewrites every entry's index through `index` (in place).
    fn relabel(&mut self, index: impl Fn(usize) -> usize) {
        for e in &mut self.data {
            e.0 = index(e.0);
        }
    }
}

/// Sparse rows that can grow and shrink after the factorisation (Forrest–Tomlin updates change
/// rows and columns of `U`): row `k` is `data[start[k]..start[k] + len[k]]` with room up to
/// `cap[k]`; a row that outgrows its room moves to the end of `data` (its old room stays
/// unused until the next refactorisation rebuilds the rows compactly).
#[derive(Default)]
struct DynRows {
    start: Vec<usize>,
    len: Vec<usize>,
    cap: Vec<usize>,
    data: Vec<(usize, f64)>,
}

impl DynRows {
    /// Copies `flat` (buffers reused), every row without spare room, and adds `extra` empty
    /// rows after them.
    fn assign(&mut self, flat: &Flat, extra: usize) {
        let rows = flat.start.len() - 1;
        let end = flat.data.len();
        self.start.clear();
        self.start.extend_from_slice(&flat.start[..rows]);
        self.start.resize(rows + extra, end);
        self.len.clear();
        self.len
            .extend((0..rows).map(|k| flat.start[k + 1] - flat.start[k]));
        self.len.resize(rows + extra, 0);
        self.cap.clear();
        self.cap.extend_from_slice(&self.len);
        self.data.clear();
        self.data.extend_from_slice(&flat.data);
    }

    fn row(&self, k: usize) -> &[(usize, f64)] {
        let s = self.start[k];
        &self.data[s..s + self.len[k]]
    }

    /// Asks the cache for row `k`'s first entries (a hint: no effect on results).
    #[inline(always)]
    fn prefetch(&self, k: usize) {
        prefetch_row(&self.start, &self.data, k);
    }

    /// [`Self::row`] without bounds checks, for the solves' inner loops.
    ///
    /// # Safety
    /// `k < self.start.len()` (`k` is a row; `start` and `len` have one entry per row, and
    /// every row lies within `data`, as `assign`, `push` and `set_row` keep them).
    #[inline(always)]
    unsafe fn row_unchecked(&self, k: usize) -> &[(usize, f64)] {
        debug_assert!(k < self.start.len() && k < self.len.len());
        // SAFETY: the caller's contract.
        unsafe {
            let s = *self.start.get_unchecked(k);
            let l = *self.len.get_unchecked(k);
            debug_assert!(s + l <= self.data.len());
            self.data.get_unchecked(s..s + l)
        }
    }

    /// Appends `entry` to row `k`, moving the row to the end of `data` when it is full.
    fn push(&mut self, k: usize, entry: (usize, f64)) {
        if self.len[k] == self.cap[k] {
            let (s, l) = (self.start[k], self.len[k]);
            let at = self.data.len();
            let cap = 2 * l + 4;
            self.data.extend_from_within(s..s + l);
            self.data.resize(at + cap, (0, 0.0));
            self.start[k] = at;
            self.cap[k] = cap;
        }
        self.data[self.start[k] + self.len[k]] = entry;
        self.len[k] += 1;
    }

    /// Sets the (empty) row `k` to `entries`, placed at the end of `data`.
    fn set_row(&mut self, k: usize, entries: impl Iterator<Item = (usize, f64)>) {
        let at = self.data.len();
        self.data.extend(entries);
        self.start[k] = at;
        self.len[k] = self.data.len() - at;
        self.cap[k] = self.len[k];
    }

    /// Removes the entry of row `k` with index `key` (order within a row does not matter).
    fn remove(&mut self, k: usize, key: usize) {
        let s = self.start[k];
        let l = self.len[k];
        if let Some(i) = self.data[s..s + l].iter().position(|e| e.0 == key) {
            self.data.swap(s + i, s + l - 1);
            self.len[k] = l - 1;
        }
    }
}

/// The indices of a work vector that may hold non-zeros, as a bitmap with a summary bitmap of
/// its non-empty words: setting a bit is two `or`s, and taking the next set bit in either
/// direction skips 4096 empty indices per summary word read. All clear between passes.
#[derive(Default)]
struct Marks {
    words: Vec<u64>,
    summary: Vec<u64>,
}

impl Marks {
    fn reset(&mut self, n: usize) {
        let words = n.div_ceil(64);
        self.words.clear();
        self.words.resize(words, 0);
        self.summary.clear();
        self.summary.resize(words.div_ceil(64), 0);
    }

    #[inline(always)]
    fn set(&mut self, i: usize) {
        let w = i >> 6;
        let old = self.words[w];
        self.words[w] = old | 1 << (i & 63);
        if old == 0 {
            self.summary[w >> 6] |= 1 << (w & 63);
        }
    }

    /// Visits the set bits from the highest down, clearing each before `visit` sees it;
    /// `visit` may set lower bits (a descending pass's scatters), which are visited in turn.
    /// Before each visit `peek` sees the next set bit of the same word, if any, so that it
    /// can prefetch what that visit will read.
    #[inline(always)]
    fn drain_down(&mut self, peek: impl Fn(usize), mut visit: impl FnMut(usize, &mut Marks)) {
        let mut sw = self.summary.len();
        while sw > 0 {
            sw -= 1;
            loop {
                let sbits = self.summary[sw];
                if sbits == 0 {
                    break;
                }
                let wl = 63 - sbits.leading_zeros() as usize;
                let w = sw * 64 + wl;
                loop {
                    let bits = self.words[w];
                    if bits == 0 {
                        break;
                    }
                    let b = 63 - bits.leading_zeros() as usize;
                    let rest = bits & !(1u64 << b);
                    self.words[w] = rest;
                    if rest != 0 {
                        peek(w * 64 + 63 - rest.leading_zeros() as usize);
                    }
                    visit(w * 64 + b, self);
                }
                self.summary[sw] &= !(1u64 << wl);
            }
        }
    }

    /// Visits the set bits from the lowest up, as [`Self::drain_down`] the other way (for
    /// ascending passes, whose scatters only set higher bits).
    #[inline(always)]
    fn drain_up(&mut self, peek: impl Fn(usize), mut visit: impl FnMut(usize, &mut Marks)) {
        for sw in 0..self.summary.len() {
            loop {
                let sbits = self.summary[sw];
                if sbits == 0 {
                    break;
                }
                let wl = sbits.trailing_zeros() as usize;
                let w = sw * 64 + wl;
                loop {
                    let bits = self.words[w];
                    if bits == 0 {
                        break;
                    }
                    let b = bits.trailing_zeros() as usize;
                    let rest = bits & (bits - 1);
                    self.words[w] = rest;
                    if rest != 0 {
                        peek(w * 64 + rest.trailing_zeros() as usize);
                    }
                    visit(w * 64 + b, self);
                }
                self.summary[sw] &= !(1u64 << wl);
            }
        }
    }
}

/// `w[i] -= f * a` for each entry `(i, a)`, marking every index it writes: the inner loop of
/// every triangular pass. Marking unconditionally (a set bit stays set; the passes skip the
/// zeros they visit) costs two `or`s and no branch; testing `w[i] == 0` first branched on the
/// data, and dropping that test saved 3-4% of the float simplex, measured side by side.
#[inline(always)]
fn scatter(w: &mut [f64], marks: &mut Marks, entries: &[(usize, f64)], f: f64) {
    for &(i, a) in entries {
        debug_assert!(i < w.len() && i >> 12 < marks.summary.len());
        // SAFETY: every index the factors store (the steps in `lower` and `lrows`, the slots
        // in `urows`, `ucols` and `etas`) is below `m + max_updates(m)`, the length of `w` and
        // the number of bits in `marks` (sized together in `SparseLu::factor`): steps come
        // from factorising an `m x m` matrix, and `update` refuses to use a slot past the
        // last. So `i`, `i >> 6` and `i >> 12` index `w`, `marks.words` and `marks.summary`.
        unsafe {
            *w.get_unchecked_mut(i) -= f * a;
            *marks.words.get_unchecked_mut(i >> 6) |= 1 << (i & 63);
            *marks.summary.get_unchecked_mut(i >> 12) |= 1 << ((i >> 6) & 63);
        }
    }
}

/// Buffers of the factorisation, kept between refactorisations so that a refactorisation
/// allocates nothing once they have grown.
#[derive(Default)]
struct Work {
    row_count: Vec<usize>,
    col_count: Vec<usize>,
    row_start: Vec<usize>,
    fill: Vec<usize>,
    row_data: Vec<(usize, f64)>,
    row_active: Vec<bool>,
    col_active: Vec<bool>,
    col_queue: Vec<usize>,
    row_queue: Vec<usize>,
    rows: Vec<Vec<(usize, f64)>>,
    col_rows: Vec<Vec<usize>>,
    buckets: Vec<Vec<usize>>,
    values: Vec<f64>,
    in_prow: Vec<bool>,
    seen: Vec<usize>,
    entries: Vec<(usize, f64)>,
    /// The basis columns' non-zeros gathered contiguously (`col_start` per column): the
    /// factorisation reads every column several times, and the caller's columns lie scattered
    /// over the matrix (on liars dice 6 sides those re-reads, cache misses, were about a
    /// quarter of the refactorisation's samples).
    col_data: Vec<(usize, f64)>,
    col_start: Vec<usize>,
    /// In [`SparseLu::dependent_columns`]: the columns the elimination gave up on (`None`: a
    /// column that cannot be pivoted is an error).
    dropped: Option<Vec<usize>>,
}

/// Columns stored contiguously: column `c` is `data[start[c]..start[c + 1]]`.
#[derive(Clone, Copy)]
struct Columns<'a> {
    data: &'a [(usize, f64)],
    start: &'a [usize],
}

impl<'a> Columns<'a> {
    fn col(&self, c: usize) -> &'a [(usize, f64)] {
        &self.data[self.start[c]..self.start[c + 1]]
    }
}

/// Repairing ([`SparseLu::dependent_columns`]): column `c` leaves the active submatrix
/// unpivoted; its active rows lose an entry (a row left with one becomes a row singleton).
fn drop_column(w: &mut Work, cols: Columns, c: usize) {
    w.col_active[c] = false;
    for &(i, _) in cols.col(c) {
        if w.row_active[i] {
            w.row_count[i] -= 1;
            if w.row_count[i] == 1 {
                w.row_queue.push(i);
            }
        }
    }
    if let Some(dropped) = &mut w.dropped {
        dropped.push(c);
    }
}

fn reset<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    v.clear();
    v.resize(len, value);
}

/// `R_E ... R_1 L B = U` in pivot order: the row operations `L` of the factorisation, the
/// Forrest–Tomlin row etas `R_e` of the updates since, and the upper-triangular `U`.
///
/// Indices: the factorisation's step `k` (pivot row `step_row[k]`, basis position
/// `slot_pos[k]`) is index `k`; an update gives its basis position the next free slot `m + e`.
/// `L` works on steps, `R` and `U` on slots (a slot below `m` is the step of that number until
/// an update moves it away).
pub(crate) struct SparseLu {
    m: usize,
    /// Pivot `k` of the factorisation at (row, basis position).
    pivots: Vec<(usize, usize)>,
    /// `L` by steps: step `k` does `w[k'] -= l * w[k]` for its entries `(k', l)`, `k' > k`
    /// (row indices while factorising, steps after).
    lower: Flat,
    /// `L^T` for BTRAN: for step `k'`, the entries `(k, l)` of the steps that wrote to it.
    lrows: Flat,
    /// The pivot rows without their pivots as the factorisation left them, by step
    /// (`(basis position, value)`, then `(slot, value)`): the source of `urows` and `ucols`.
    upper: Flat,
    /// Pivots per step while factorising.
    diag_step: Vec<f64>,
    /// `U` by rows, for BTRAN and the update: slot `s`'s row without the pivot, `(slot, value)`
    /// at later slots.
    urows: DynRows,
    /// `U` by columns, for FTRAN: slot `s`'s column without the pivot, `(slot, value)` at
    /// earlier slots.
    ucols: DynRows,
    /// Regrouping buffer for `ucols`.
    ucols_flat: Flat,
    /// Pivot per slot.
    diag: Vec<f64>,
    /// Step whose pivot row is row `i`.
    row_step: Vec<usize>,
    /// Slot of basis position `p`, and basis position of slot `s`.
    pos_slot: Vec<usize>,
    slot_pos: Vec<usize>,
    /// Forrest–Tomlin row etas: update `e` did `w[m + e] = w[eta_src[e]] - sum mu * w[s]` over
    /// the entries `(s, mu)` of `etas.row(e)`, then cleared `w[eta_src[e]]`.
    eta_src: Vec<usize>,
    etas: Flat,
    /// The etas by the slots they read: `eta_reads[s]` lists `(update, mu)` in update order,
    /// so FTRAN pushes each non-zero into the etas that read it instead of every eta
    /// gathering its entries.
    eta_reads: Vec<Vec<(usize, f64)>>,
    /// FTRAN's per-update accumulators.
    eta_acc: Vec<f64>,
    /// The last saving FTRAN's column after the `L` and `R` passes (`(slot, value)`), the
    /// spike of the next update, while `spike_valid`.
    spike: Vec<(usize, f64)>,
    spike_valid: bool,
    /// Non-zeros of `L` and `U` (with the pivots) at the factorisation, and of `U` now.
    lu_nonzeros: usize,
    u_nonzeros: usize,
    /// Entries the solves have touched since the factorisation (for the caller's rule).
    solve_work: u64,
    work: Work,
    /// Work vector over slots (all zero between calls), its non-zero marks, and the list of
    /// indices one pass hands the next.
    w: Vec<f64>,
    marks: Marks,
    list: Vec<usize>,
}

impl SparseLu {
    /// Factors the `m x m` matrix whose column `k` is `cols[k]` (sparse `(row, value)`).
    pub fn factor(m: usize, cols: &[&[(usize, f64)]]) -> Result<Self, Singular> {
        let mut lu = Self::empty(m)?;
        lu.refactor(cols)?;
        Ok(lu)
    }

    /// An `m x m` factorisation with its buffers and no factors yet (the slots must fit in
    /// `u32`).
    fn empty(m: usize) -> Result<Self, Singular> {
        // Slots are stored in `u32`s while factorising the nucleus (no LP that fits in memory
        // comes close).
        if u32::try_from(m + max_updates(m)).is_err() {
            return Err(Singular { eliminated: 0 });
        }
        let slots = m + max_updates(m);
        let mut marks = Marks::default();
        marks.reset(slots);
        let lu = SparseLu {
            m,
            pivots: Vec::new(),
            lower: Flat::default(),
            lrows: Flat::default(),
            upper: Flat::default(),
            diag_step: Vec::new(),
            urows: DynRows::default(),
            ucols: DynRows::default(),
            ucols_flat: Flat::default(),
            diag: vec![0.0; slots],
            row_step: vec![0; m],
            pos_slot: vec![0; m],
            slot_pos: vec![0; slots],
            eta_src: Vec::new(),
            etas: Flat::default(),
            eta_reads: vec![Vec::new(); slots],
            eta_acc: Vec::new(),
            spike: Vec::new(),
            spike_valid: false,
            lu_nonzeros: 0,
            u_nonzeros: 0,
            solve_work: 0,
            work: Work::default(),
            w: vec![0.0; slots],
            marks,
            list: Vec::new(),
        };
        Ok(lu)
    }

    /// The columns of `cols` (an `m x m` matrix) that the factorisation cannot pivot on, each
    /// numerically dependent on the columns pivoted before it, and as many rows left without a
    /// pivot: replacing those columns by the unit columns of those rows gives a matrix whose
    /// factorisation succeeds (the pivoted block and the units are block triangular). Both
    /// empty when `cols` factors as it is.
    pub fn dependent_columns(m: usize, cols: &[&[(usize, f64)]]) -> (Vec<usize>, Vec<usize>) {
        let Ok(mut lu) = Self::empty(m) else {
            return (Vec::new(), Vec::new());
        };
        lu.work.dropped = Some(Vec::new());
        let _ = lu.refactor(cols);
        let dropped = lu.work.dropped.take().unwrap_or_default();
        let rows = (0..m).filter(|&i| lu.work.row_active[i]).collect();
        (dropped, rows)
    }

    /// Factors a new `m x m` matrix in place of this one, reusing the buffers. After an error
    /// the factorisation is unusable until a successful `refactor`.
    pub fn refactor(&mut self, cols: &[&[(usize, f64)]]) -> Result<(), Singular> {
        let m = self.m;
        debug_assert_eq!(cols.len(), m);
        self.pivots.clear();
        self.lower.clear();
        self.upper.clear();
        self.diag_step.clear();
        for &(s, _) in &self.etas.data {
            self.eta_reads[s].clear();
        }
        self.eta_src.clear();
        self.etas.clear();
        self.spike_valid = false;
        self.lu_nonzeros = 0;
        self.solve_work = 0;
        let mut w = std::mem::take(&mut self.work);
        let (mut data, mut start) = (
            std::mem::take(&mut w.col_data),
            std::mem::take(&mut w.col_start),
        );
        data.clear();
        start.clear();
        start.push(0);
        for col in cols {
            data.extend(col.iter().filter(|e| e.1 != 0.0));
            start.push(data.len());
        }
        let gathered = Columns {
            data: &data,
            start: &start,
        };
        let result = self.factor_singletons(gathered, &mut w).and_then(|()| {
            if self.pivots.len() < m {
                self.factor_nucleus(gathered, &mut w)
            } else {
                Ok(())
            }
        });
        w.col_data = data;
        w.col_start = start;
        self.work = w;
        result?;
        if self.work.dropped.is_some() {
            // Repairing: the caller reads what was dropped; these factors are never used.
            return Err(Singular {
                eliminated: self.pivots.len(),
            });
        }
        for (k, &(r, c)) in self.pivots.iter().enumerate() {
            self.row_step[r] = k;
            self.pos_slot[c] = k;
            self.slot_pos[k] = c;
        }
        self.diag[..m].copy_from_slice(&self.diag_step);
        let (row_step, pos_slot) = (&self.row_step, &self.pos_slot);
        self.lower.relabel(|i| row_step[i]);
        self.lower.regroup_into(m, |k| k, |k| k, &mut self.lrows);
        self.upper.relabel(|j| pos_slot[j]);
        self.upper
            .regroup_into(m, |s| s, |k| k, &mut self.ucols_flat);
        self.ucols.assign(&self.ucols_flat, max_updates(m));
        self.urows.assign(&self.upper, max_updates(m));
        self.u_nonzeros = self.upper.data.len() + m;
        Ok(())
    }

    /// Closes step `(r, c)` with pivot `pval`; `lower` and `upper` hold its entries.
    fn end_step(&mut self, r: usize, c: usize, pval: f64) {
        self.lower.end_row();
        self.upper.end_row();
        self.pivots.push((r, c));
        self.diag_step.push(pval);
    }

    /// Simplex bases of game LPs are mostly triangular: peel off column and row singletons of
    /// the active submatrix first (no fill, no arithmetic, flat storage); the Markowitz
    /// elimination then only sees the remaining nucleus.
    fn factor_singletons(&mut self, cols: Columns, w: &mut Work) -> Result<(), Singular> {
        let m = self.m;
        reset(&mut w.row_count, m, 0);
        reset(&mut w.col_count, m, 0);
        for j in 0..m {
            for &(i, _) in cols.col(j) {
                w.row_count[i] += 1;
                w.col_count[j] += 1;
            }
        }
        if w.dropped.is_none() && w.col_count.contains(&0) {
            return Err(Singular { eliminated: 0 });
        }
        // Row-wise copy (column index, value), flat.
        reset(&mut w.row_start, m + 1, 0);
        for i in 0..m {
            w.row_start[i + 1] = w.row_start[i] + w.row_count[i];
        }
        w.fill.clear();
        w.fill.extend_from_slice(&w.row_start[..m]);
        reset(&mut w.row_data, w.row_start[m], (0, 0.0));
        for j in 0..m {
            for &(i, v) in cols.col(j) {
                w.row_data[w.fill[i]] = (j, v);
                w.fill[i] += 1;
            }
        }
        reset(&mut w.row_active, m, true);
        reset(&mut w.col_active, m, true);
        if let Some(dropped) = &mut w.dropped {
            for j in (0..m).filter(|&j| w.col_count[j] == 0) {
                w.col_active[j] = false;
                dropped.push(j);
            }
        }
        w.col_queue.clear();
        w.col_queue.extend((0..m).filter(|&j| w.col_count[j] == 1));
        w.row_queue.clear();
        w.row_queue.extend((0..m).filter(|&i| w.row_count[i] == 1));
        let singular = |lu: &Self| Singular {
            eliminated: lu.pivots.len(),
        };
        loop {
            if let Some(c) = w.col_queue.pop() {
                if !w.col_active[c] || w.col_count[c] != 1 {
                    continue;
                }
                let Some(&(r, pval)) = cols.col(c).iter().find(|&&(i, _)| w.row_active[i]) else {
                    continue;
                };
                if pval.abs() < 1e-11 {
                    if w.dropped.is_none() {
                        return Err(singular(self));
                    }
                    drop_column(w, cols, c);
                    continue;
                }
                w.row_active[r] = false;
                w.col_active[c] = false;
                let upper_start = self.upper.data.len();
                for k in w.row_start[r]..w.row_start[r + 1] {
                    let (j, v) = w.row_data[k];
                    if j != c && w.col_active[j] {
                        self.upper.data.push((j, v));
                        w.col_count[j] -= 1;
                        if w.col_count[j] == 1 {
                            w.col_queue.push(j);
                        } else if w.col_count[j] == 0 {
                            if w.dropped.is_none() {
                                return Err(singular(self));
                            }
                            drop_column(w, cols, j);
                        }
                    }
                }
                self.lu_nonzeros += self.upper.data.len() - upper_start + 1;
                self.end_step(r, c, pval);
                continue;
            }
            if let Some(r) = w.row_queue.pop() {
                if !w.row_active[r] || w.row_count[r] != 1 {
                    continue;
                }
                let Some(&(c, pval)) = w.row_data[w.row_start[r]..w.row_start[r + 1]]
                    .iter()
                    .find(|&&(j, _)| w.col_active[j])
                else {
                    continue;
                };
                let max = cols
                    .col(c)
                    .iter()
                    .filter(|&&(i, _)| w.row_active[i])
                    .fold(0.0f64, |a, &(_, v)| a.max(v.abs()));
                if pval.abs() < THRESHOLD * max || pval.abs() < 1e-11 {
                    // An unstable pivot: left to the Markowitz phase.
                    continue;
                }
                w.row_active[r] = false;
                w.col_active[c] = false;
                let ops_start = self.lower.data.len();
                for &(i, v) in cols.col(c) {
                    if i != r && w.row_active[i] {
                        self.lower.data.push((i, v / pval));
                        w.row_count[i] -= 1;
                        if w.row_count[i] == 1 {
                            w.row_queue.push(i);
                        }
                    }
                }
                self.lu_nonzeros += self.lower.data.len() - ops_start + 1;
                self.end_step(r, c, pval);
                continue;
            }
            return Ok(());
        }
    }

    /// Markowitz-style elimination of the rows and columns the singleton pass left active:
    /// the sparsest active column first (a bucket queue keeps this cheap) and, within it, the
    /// sparsest row among the entries at least `THRESHOLD` times the column's largest.
    fn factor_nucleus(&mut self, cols: Columns, w: &mut Work) -> Result<(), Singular> {
        let m = self.m;
        let Work {
            row_active,
            col_active,
            rows,
            col_rows,
            col_count,
            buckets,
            values,
            in_prow,
            seen,
            entries,
            dropped,
            ..
        } = w;
        rows.resize_with(m, Vec::new);
        col_rows.resize_with(m, Vec::new);
        buckets.resize_with(m + 2, Vec::new);
        rows.iter_mut().for_each(Vec::clear);
        col_rows.iter_mut().for_each(Vec::clear);
        buckets.iter_mut().for_each(Vec::clear);
        reset(col_count, m, 0);
        for j in 0..m {
            if !col_active[j] {
                continue;
            }
            for &(i, v) in cols.col(j) {
                if row_active[i] {
                    rows[i].push((j, v));
                    col_rows[j].push(i);
                    col_count[j] += 1;
                }
            }
        }
        // Bucket queue of active columns by count; entries go stale when a count changes and
        // are skipped when popped.
        for j in (0..m).rev() {
            if col_active[j] {
                buckets[col_count[j].min(m + 1)].push(j);
            }
        }
        reset(values, m, 0.0);
        reset(in_prow, m, false);
        reset(seen, m, usize::MAX);
        let mut lowest = 0usize;
        let mut visit = 0usize;
        while self.pivots.len() < m {
            let step = self.pivots.len();
            // The active column of fewest entries.
            let c = loop {
                while lowest < buckets.len() && buckets[lowest].is_empty() {
                    lowest += 1;
                }
                if lowest >= buckets.len() {
                    if dropped.is_some() {
                        // Repairing: no column left; the active rows stay uncovered.
                        return Ok(());
                    }
                    return Err(Singular { eliminated: step });
                }
                let j = buckets[lowest].pop().expect("non-empty bucket");
                if col_active[j] && col_count[j].min(m + 1) == lowest {
                    break j;
                }
            };
            // The column's active entries (the row lists may hold stale rows). `visit`
            // stamps the rows seen for this column: a column given up on (repairing) ends
            // its visit without a step.
            visit += 1;
            entries.clear();
            for &i in &col_rows[c] {
                if row_active[i] && seen[i] != visit {
                    seen[i] = visit;
                    if let Some(&(_, v)) = rows[i].iter().find(|(j, _)| *j == c) {
                        entries.push((i, v));
                    }
                }
            }
            let max = entries.iter().fold(0.0f64, |a, (_, v)| a.max(v.abs()));
            if max < 1e-11 {
                match dropped {
                    Some(dropped) => {
                        col_active[c] = false;
                        dropped.push(c);
                        continue;
                    }
                    None => return Err(Singular { eliminated: step }),
                }
            }
            let (r, pval) = entries
                .iter()
                .filter(|(_, v)| v.abs() >= THRESHOLD * max)
                .min_by(|a, b| {
                    rows[a.0]
                        .len()
                        .cmp(&rows[b.0].len())
                        .then(b.1.abs().total_cmp(&a.1.abs()))
                })
                .copied()
                .expect("the largest entry passes the threshold");
            let mut prow = std::mem::take(&mut rows[r]);
            row_active[r] = false;
            col_active[c] = false;
            for &(j, v) in &prow {
                if j != c {
                    values[j] = v;
                    in_prow[j] = true;
                }
                col_count[j] -= 1;
            }
            let ops_start = self.lower.data.len();
            for &(i, v) in entries.iter() {
                if i == r {
                    continue;
                }
                let f = v / pval;
                let row = &mut rows[i];
                // Update the entries the pivot row shares, drop the pivot column's entry.
                let mut k = 0;
                while k < row.len() {
                    let j = row[k].0;
                    if j == c {
                        row.swap_remove(k);
                        continue;
                    }
                    if in_prow[j] {
                        row[k].1 -= f * values[j];
                        in_prow[j] = false; // mark as handled for this row
                        if row[k].1.abs() < DROP {
                            row.swap_remove(k);
                            col_count[j] -= 1;
                            buckets[col_count[j].min(m + 1)].push(j);
                            lowest = lowest.min(col_count[j]);
                            continue;
                        }
                    }
                    k += 1;
                }
                // Fill-in where the pivot row has entries this row lacked; re-arm the marks.
                for &(j, _) in &prow {
                    if j == c {
                        continue;
                    }
                    if in_prow[j] {
                        let val = -f * values[j];
                        if val.abs() >= DROP {
                            row.push((j, val));
                            col_rows[j].push(i);
                            col_count[j] += 1;
                            buckets[col_count[j].min(m + 1)].push(j);
                        }
                    } else {
                        in_prow[j] = true;
                    }
                }
                self.lower.data.push((i, f));
            }
            for &(j, _) in &prow {
                if j != c {
                    in_prow[j] = false;
                    values[j] = 0.0;
                    buckets[col_count[j].min(m + 1)].push(j);
                    lowest = lowest.min(col_count[j].min(m + 1));
                }
            }
            col_rows[c].clear();
            let upper_start = self.upper.data.len();
            self.upper
                .data
                .extend(prow.iter().filter(|(j, _)| *j != c).copied());
            prow.clear();
            rows[r] = prow;
            self.lu_nonzeros +=
                self.upper.data.len() - upper_start + self.lower.data.len() - ops_start + 1;
            self.end_step(r, c, pval);
        }
        Ok(())
    }

    /// Entries held by the factors and their update room (what the memory estimate bounds):
    /// the caller refactorises before this outgrows its share.
    pub fn stored_entries(&self) -> usize {
        self.lower.data.len()
            + self.lrows.data.len()
            + self.upper.data.len()
            + self.urows.data.len()
            + self.ucols.data.len()
            + self.ucols_flat.data.len()
            + 2 * self.etas.data.len()
    }

    /// Number of updates since the factorisation.
    pub fn updates(&self) -> usize {
        self.eta_src.len()
    }

    /// Entries of the factors (and work-vector indices) the solves have touched since the
    /// factorisation: what the caller weighs against the cost of refactorising.
    pub fn solve_work(&self) -> u64 {
        self.solve_work
    }

    /// Solves `B x = a` in place: `a` indexed by rows on entry, by basis positions on return.
    pub fn ftran(&mut self, a: &mut [f64]) {
        let mut idx: Vec<usize> = (0..self.m).filter(|&i| a[i] != 0.0).collect();
        self.solve_column(a, &mut idx, false);
    }

    /// Solves `y^T B = c^T` in place: `c` indexed by basis positions on entry, rows on return.
    pub fn btran(&mut self, c: &mut [f64]) {
        let mut idx: Vec<usize> = (0..self.m).filter(|&i| c[i] != 0.0).collect();
        self.btran_sparse(c, &mut idx);
    }

    /// [`Self::ftran_sparse`] without keeping the column as the next update's spike (for
    /// solves beside the entering column's, such as the dual simplex's weights).
    pub fn ftran_plain(&mut self, a: &mut [f64], idx: &mut Vec<usize>) {
        self.solve_column(a, idx, false);
    }

    /// Work of the last factorisation, in the units of [`Self::solve_work`]: per row, per
    /// basis entry and per entry of `L` and `U` (weights fitted to instruction counts on liars
    /// dice 5 sides, where a refactorisation costs about as much as 260 000 solve entries).
    pub fn factor_work(&self) -> u64 {
        (4 * self.m + 6 * self.work.col_data.len() + 4 * self.lu_nonzeros) as u64
    }

    /// [`Self::ftran`] with the non-zeros listed: on entry `idx` lists every non-zero of `a`
    /// (duplicates and zeros allowed), on return exactly the non-zeros of the result, without
    /// duplicates. The work is proportional to the entries of the factors the solve meets. The
    /// column is kept as the spike of a following [`Self::update`].
    pub fn ftran_sparse(&mut self, a: &mut [f64], idx: &mut Vec<usize>) {
        self.solve_column(a, idx, true);
    }

    /// FTRAN: the `L` pass over steps, the `R` etas, then back-substitution with `U` over
    /// slots; `save` keeps the column after the `R` etas as the spike.
    fn solve_column(&mut self, a: &mut [f64], idx: &mut Vec<usize>, save: bool) {
        let m = self.m;
        let (w, marks, list) = (&mut self.w, &mut self.marks, &mut self.list);
        let mut work = idx.len() as u64;
        for &i in idx.iter() {
            let v = std::mem::take(&mut a[i]);
            if v != 0.0 {
                let k = self.row_step[i];
                w[k] = v;
                marks.set(k);
            }
        }
        // `L`, in step order; the list collects the non-zero steps.
        list.clear();
        let lower = &self.lower;
        marks.drain_up(
            |k| lower.prefetch(k),
            |k, marks| {
                debug_assert!(k < m);
                // SAFETY: the marks hold steps here (`row_step` gives steps below `m`, and `L`'s
                // entries are steps): `w` has `m + max_updates(m)` entries, `lower` a row per step.
                let (v, ops) = unsafe { (*w.get_unchecked(k), lower.row_unchecked(k)) };
                if v == 0.0 {
                    return;
                }
                list.push(k);
                work += 1 + ops.len() as u64;
                scatter(w, marks, ops, v);
            },
        );
        // The `R` etas in update order, each value pushed into the etas that read it.
        if !self.eta_src.is_empty() {
            let acc = &mut self.eta_acc;
            acc.clear();
            acc.resize(self.eta_src.len(), 0.0);
            for &s in list.iter() {
                let v = w[s];
                for &(e, mu) in &self.eta_reads[s] {
                    acc[e] += mu * v;
                }
                work += self.eta_reads[s].len() as u64;
            }
            for (e, &src) in self.eta_src.iter().enumerate() {
                let v = std::mem::take(&mut w[src]) - acc[e];
                if v != 0.0 {
                    let t = m + e;
                    w[t] = v;
                    list.push(t);
                    for &(e2, mu) in &self.eta_reads[t] {
                        acc[e2] += mu * v;
                    }
                    work += self.eta_reads[t].len() as u64;
                }
            }
            work += self.eta_src.len() as u64;
        }
        if save {
            self.spike.clear();
            self.spike
                .extend(list.iter().map(|&s| (s, w[s])).filter(|e| e.1 != 0.0));
            self.spike_valid = true;
        }
        for &s in list.iter() {
            if w[s] != 0.0 {
                marks.set(s);
            }
        }
        // Back-substitution by columns of `U` in reverse slot order.
        idx.clear();
        let (ucols, diag, slot_pos) = (&self.ucols, &self.diag, &self.slot_pos);
        marks.drain_down(
            |s| ucols.prefetch(s),
            |s, marks| {
                debug_assert!(s < w.len() && s < diag.len() && s < slot_pos.len());
                // SAFETY: the marks hold slots here (below `m + max_updates(m)`, the length of
                // `w`, `diag`, `slot_pos` and of `ucols`' rows: see `scatter`), and `slot_pos`
                // maps a slot in use to a basis position below `m <= a.len()`.
                unsafe {
                    let v = std::mem::take(w.get_unchecked_mut(s));
                    if v.abs() < DROP {
                        return;
                    }
                    let x = v / *diag.get_unchecked(s);
                    let col = ucols.row_unchecked(s);
                    work += 1 + col.len() as u64;
                    scatter(w, marks, col, x);
                    let p = *slot_pos.get_unchecked(s);
                    debug_assert!(p < a.len());
                    *a.get_unchecked_mut(p) = x;
                    idx.push(p);
                }
            },
        );
        self.solve_work += work;
    }

    /// [`Self::btran`] with the non-zeros listed, as in [`Self::ftran_sparse`] (here `idx`
    /// may list a position twice too).
    pub fn btran_sparse(&mut self, c: &mut [f64], idx: &mut Vec<usize>) {
        let m = self.m;
        let (w, marks, list) = (&mut self.w, &mut self.marks, &mut self.list);
        let mut work = idx.len() as u64;
        for &p in idx.iter() {
            let v = std::mem::take(&mut c[p]);
            if v != 0.0 {
                let s = self.pos_slot[p];
                w[s] = v;
                marks.set(s);
            }
        }
        // `U^T` in slot order; each value is final when its slot comes up. Cancellation noise
        // is dropped, as in FTRAN (it would spread through the rest).
        list.clear();
        let (urows, diag) = (&self.urows, &self.diag);
        marks.drain_up(
            |s| urows.prefetch(s),
            |s, marks| {
                debug_assert!(s < w.len() && s < diag.len());
                // SAFETY: the marks hold slots here (below `m + max_updates(m)`, the length of
                // `w`, `diag` and of `urows`' rows: see `scatter`).
                unsafe {
                    let ws = w.get_unchecked_mut(s);
                    let z = *ws;
                    if z.abs() < DROP {
                        *ws = 0.0;
                        return;
                    }
                    let y = z / *diag.get_unchecked(s);
                    *ws = y;
                    list.push(s);
                    let row = urows.row_unchecked(s);
                    work += 1 + row.len() as u64;
                    scatter(w, marks, row, y);
                }
            },
        );
        // The `R^T` etas in reverse update order move each updated slot's value back to the
        // slot it came from.
        for (e, &src) in self.eta_src.iter().enumerate().rev() {
            let v = std::mem::take(&mut w[m + e]);
            if v == 0.0 {
                continue;
            }
            w[src] += v;
            list.push(src);
            let row = self.etas.row(e);
            work += 1 + row.len() as u64;
            for &(s, mu) in row {
                w[s] -= mu * v;
                list.push(s);
            }
        }
        for &s in list.iter() {
            if w[s] != 0.0 {
                marks.set(s);
            }
        }
        // `L^T` in reverse step order: a step's value is final once the later steps that
        // write to it are done.
        idx.clear();
        let (lrows, pivots) = (&self.lrows, &self.pivots);
        marks.drain_down(
            |k| lrows.prefetch(k),
            |k, marks| {
                debug_assert!(k < pivots.len());
                // SAFETY: after the `R^T` etas every non-zero is at a step (each updated slot's
                // value went back to its source slot, a step below `m`), and `L^T`'s entries are
                // steps: `k` indexes `w`, `lrows`' rows and `pivots`, whose rows are below
                // `m <= c.len()`.
                unsafe {
                    let v = std::mem::take(w.get_unchecked_mut(k));
                    if v == 0.0 {
                        return;
                    }
                    let ops = lrows.row_unchecked(k);
                    work += 1 + ops.len() as u64;
                    scatter(w, marks, ops, v);
                    let r = pivots.get_unchecked(k).0;
                    debug_assert!(r < c.len());
                    *c.get_unchecked_mut(r) = v;
                    idx.push(r);
                }
            },
        );
        self.solve_work += work;
    }

    /// Forrest–Tomlin update: basis position `p` now holds the column of the last
    /// [`Self::ftran_sparse`], whose result had `alpha_p` at `p`. Returns `false` when the
    /// update lost accuracy, no spike was saved or no slot is free: the caller must
    /// refactorise.
    pub fn update(&mut self, p: usize, alpha_p: f64) -> bool {
        if !std::mem::take(&mut self.spike_valid) || self.eta_src.len() == max_updates(self.m) {
            return false;
        }
        let m = self.m;
        let e = self.eta_src.len();
        let t = self.pos_slot[p];
        let n = m + e;
        // Row `t` of `U` without its pivot is eliminated by the rows after it, in slot order
        // (a `U^T` pass); the multipliers form the `R` eta.
        let (w, marks) = (&mut self.w, &mut self.marks);
        for &(s, u) in self.urows.row(t) {
            w[s] = u;
            marks.set(s);
        }
        let (urows, diag, etas, eta_reads) =
            (&self.urows, &self.diag, &mut self.etas, &mut self.eta_reads);
        marks.drain_up(
            |s| urows.prefetch(s),
            |s, marks| {
                let v = std::mem::take(&mut w[s]);
                if v.abs() < DROP {
                    return;
                }
                let mu = v / diag[s];
                etas.data.push((s, mu));
                eta_reads[s].push((e, mu));
                scatter(w, marks, urows.row(s), mu);
            },
        );
        self.etas.end_row();
        self.eta_src.push(t);
        // The new pivot: the spike's entry in row `t` after the same row operations.
        for &(s, v) in &self.spike {
            w[s] = v;
        }
        let mut pivot = w[t];
        for &(s, mu) in self.etas.row(e) {
            pivot -= mu * w[s];
        }
        for &(s, _) in &self.spike {
            w[s] = 0.0;
        }
        // Replace column `t` of `U` by the spike at slot `n` and drop row `t`.
        self.u_nonzeros -= self.ucols.len[t] + self.urows.len[t];
        for k in 0..self.ucols.len[t] {
            let s = self.ucols.data[self.ucols.start[t] + k].0;
            self.urows.remove(s, t);
        }
        for k in 0..self.urows.len[t] {
            let s = self.urows.data[self.urows.start[t] + k].0;
            self.ucols.remove(s, t);
        }
        self.urows.len[t] = 0;
        self.ucols.len[t] = 0;
        let kept = |&&(s, v): &&(usize, f64)| s != t && v.abs() >= DROP;
        self.ucols
            .set_row(n, self.spike.iter().filter(kept).copied());
        for &(s, v) in self.spike.iter().filter(kept) {
            self.urows.push(s, (n, v));
            self.u_nonzeros += 1;
        }
        self.u_nonzeros += 1;
        let expected = alpha_p * self.diag[t];
        self.diag[n] = pivot;
        self.pos_slot[p] = n;
        self.slot_pos[n] = p;
        pivot.is_finite()
            && pivot.abs() > 1e-11
            && (pivot - expected).abs() <= UPDATE_TOL * pivot.abs().max(1.0)
    }
}

/// An update whose new pivot differs from `alpha_p * u_tt` (the same number computed another
/// way) by more than this relative amount has lost accuracy: the caller refactorises.
const UPDATE_TOL: f64 = 1e-8;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// An `m x m` test basis: 4 on the diagonal and the given off-diagonal entries (those
    /// inside the matrix), mostly triangular with some nucleus, like game-LP bases.
    fn test_basis(m: usize, entries: Vec<(usize, usize, i32)>) -> Vec<Vec<f64>> {
        let mut dense = vec![vec![0.0f64; m]; m];
        for (i, row) in dense.iter_mut().enumerate() {
            row[i] = 4.0;
        }
        for (i, j, v) in entries {
            if i < m && j < m && i != j {
                dense[i][j] = v as f64;
            }
        }
        dense
    }

    /// The sparse columns of a dense matrix.
    fn dense_columns(dense: &[Vec<f64>]) -> Vec<Vec<(usize, f64)>> {
        let m = dense.len();
        (0..m)
            .map(|j| {
                (0..m)
                    .filter(|&i| dense[i][j] != 0.0)
                    .map(|i| (i, dense[i][j]))
                    .collect()
            })
            .collect()
    }

    /// Factors a dense matrix by its sparse columns.
    fn factor_dense(dense: &[Vec<f64>]) -> Result<SparseLu, Singular> {
        let cols = dense_columns(dense);
        let refs: Vec<&[(usize, f64)]> = cols.iter().map(|c| c.as_slice()).collect();
        SparseLu::factor(dense.len(), &refs)
    }

    /// The rank of a dense matrix of small integers, by Gaussian elimination in rationals.
    fn exact_rank(dense: &[Vec<f64>]) -> usize {
        use crate::scalar::Rational;
        use num_traits::Zero;
        let mut a: Vec<Vec<Rational>> = dense
            .iter()
            .map(|row| {
                row.iter()
                    .map(|&v| Rational::from_integer((v as i64).into()))
                    .collect()
            })
            .collect();
        let (rows, cols) = (a.len(), a.first().map_or(0, Vec::len));
        let mut rank = 0;
        for c in 0..cols {
            let Some(p) = (rank..rows).find(|&i| !a[i][c].is_zero()) else {
                continue;
            };
            a.swap(rank, p);
            for i in rank + 1..rows {
                if !a[i][c].is_zero() {
                    let f = &a[i][c] / &a[rank][c];
                    for j in c..cols {
                        let t = &f * &a[rank][j];
                        a[i][j] -= t;
                    }
                }
            }
            rank += 1;
        }
        rank
    }

    /// Replaces basis column `p` by `a` as the simplex does: FTRAN from the non-zeros listed in
    /// `idx`, then the update, and the same column in `dense`. `None` (nothing changed) when
    /// the pivot `alpha_p` is below `min_pivot`; otherwise whether the update kept accuracy.
    fn replace_column(
        lu: &mut SparseLu,
        dense: &mut [Vec<f64>],
        p: usize,
        a: Vec<f64>,
        mut idx: Vec<usize>,
        min_pivot: f64,
    ) -> Option<bool> {
        let mut alpha = a.clone();
        lu.ftran_sparse(&mut alpha, &mut idx);
        if alpha[p].abs() < min_pivot {
            return None;
        }
        let updated = lu.update(p, alpha[p]);
        for (i, row) in dense.iter_mut().enumerate() {
            row[p] = a[i];
        }
        Some(updated)
    }

    /// A test's new column for basis position `p`: 8 at `p` (a safe pivot) plus the small
    /// `entries` (rows taken mod `m`), with the list of its non-zeros.
    fn replacement_column(m: usize, p: usize, entries: &[(usize, i32)]) -> (Vec<f64>, Vec<usize>) {
        let mut a = vec![0.0; m];
        a[p] = 8.0;
        for &(i, v) in entries {
            a[i % m] += v as f64;
        }
        let idx = (0..m).filter(|&i| a[i] != 0.0).collect();
        (a, idx)
    }

    /// Checks `B x = b` and `y^T B = b^T` for the sparse solves from a right-hand side with
    /// the listed non-zeros, and that the returned lists name exactly the non-zeros, once each.
    fn check_sparse_solves(lu: &mut SparseLu, dense: &[Vec<f64>], rhs: &[(usize, f64)]) {
        let m = dense.len();
        let mut b = vec![0.0; m];
        for &(i, v) in rhs {
            b[i] += v;
        }
        let listed = |v: &[f64], idx: &[usize]| {
            let mut seen = vec![false; m];
            for &i in idx {
                assert!(!std::mem::replace(&mut seen[i], true), "{i} listed twice");
                assert!(v[i] != 0.0, "{i} listed but zero");
            }
            for i in 0..m {
                assert!(seen[i] || v[i] == 0.0, "non-zero {i} not listed");
            }
        };
        let mut x = b.clone();
        let mut idx: Vec<usize> = rhs.iter().map(|&(i, _)| i).collect();
        lu.ftran_sparse(&mut x, &mut idx);
        listed(&x, &idx);
        for i in 0..m {
            let s: f64 = (0..m).map(|j| dense[i][j] * x[j]).sum();
            assert!((s - b[i]).abs() < 1e-8, "B x row {i}: {s} vs {}", b[i]);
        }
        let mut y = b.clone();
        let mut idx: Vec<usize> = (0..m).filter(|&i| b[i] != 0.0).collect();
        lu.btran_sparse(&mut y, &mut idx);
        listed(&y, &idx);
        for j in 0..m {
            let s: f64 = (0..m).map(|i| dense[i][j] * y[i]).sum();
            assert!((s - b[j]).abs() < 1e-8, "y^T B column {j}: {s} vs {}", b[j]);
        }
    }

    proptest! {
        /// The hypersparse paths (few non-zeros in the right-hand side of a large sparse basis)
        /// solve their systems and list the result's non-zeros, before and after updates.
        #[test]
        fn hypersparse_solves_with_updates(
            m in 20usize..80,
            entries in prop::collection::vec((0usize..80, 0usize..80, -3i32..=3), 0..120),
            replace in prop::collection::vec((0usize..80, prop::collection::vec((0usize..80, -3i32..=3), 0..4)), 0..12),
            rhs in prop::collection::vec((0usize..80, -5i32..=5), 1..4),
        ) {
            let mut dense = test_basis(m, entries);
            let Ok(mut lu) = factor_dense(&dense) else { return Ok(()) };
            let rhs: Vec<(usize, f64)> = rhs.iter().map(|&(i, v)| (i % m, v as f64)).filter(|r| r.1 != 0.0).collect();
            check_sparse_solves(&mut lu, &dense, &rhs);
            for (p, newcol) in replace {
                let p = p % m;
                let (a, idx) = replacement_column(m, p, &newcol);
                let Some(updated) = replace_column(&mut lu, &mut dense, p, a, idx, 1e-3) else { continue };
                prop_assert!(updated);
                check_sparse_solves(&mut lu, &dense, &rhs);
            }
        }

        /// After a long chain of Forrest–Tomlin updates (more than the simplex makes between
        /// refactorisations on small bases) FTRAN and BTRAN agree with a fresh factorisation
        /// of the updated matrix, and multiply back to the right-hand side.
        #[test]
        fn long_update_chains_match_a_fresh_factorisation(
            m in 10usize..50,
            entries in prop::collection::vec((0usize..50, 0usize..50, -3i32..=3), 0..100),
            replace in prop::collection::vec((0usize..50, prop::collection::vec((0usize..50, -3i32..=3), 0..5)), 40..120),
            rhs in prop::collection::vec((0usize..50, -5i32..=5), 1..6),
        ) {
            let mut dense = test_basis(m, entries);
            let Ok(mut lu) = factor_dense(&dense) else { return Ok(()) };
            let mut updates = 0;
            for (p, newcol) in replace {
                // Up to the last free slot (then the caller must refactorise).
                if updates == max_updates(m) {
                    break;
                }
                let p = p % m;
                let (a, idx) = replacement_column(m, p, &newcol);
                let Some(updated) = replace_column(&mut lu, &mut dense, p, a, idx, 0.1) else { continue };
                prop_assert!(updated, "update {updates} lost accuracy");
                updates += 1;
            }
            prop_assert_eq!(lu.updates(), updates);
            let Ok(mut fresh) = factor_dense(&dense) else { return Ok(()) };
            let mut b = vec![0.0; m];
            for (i, v) in rhs { b[i % m] += v as f64; }
            let (mut x, mut x0, mut y, mut y0) = (b.clone(), b.clone(), b.clone(), b.clone());
            lu.ftran(&mut x);
            fresh.ftran(&mut x0);
            lu.btran(&mut y);
            fresh.btran(&mut y0);
            let scale = 1.0 + x0.iter().chain(&y0).fold(0.0f64, |a, v| a.max(v.abs()));
            for i in 0..m {
                prop_assert!((x[i] - x0[i]).abs() <= 1e-8 * scale, "x[{i}]: {} vs {}", x[i], x0[i]);
                prop_assert!((y[i] - y0[i]).abs() <= 1e-8 * scale, "y[{i}]: {} vs {}", y[i], y0[i]);
                let s: f64 = (0..m).map(|j| dense[i][j] * x[j]).sum();
                prop_assert!((s - b[i]).abs() <= 1e-8 * scale, "B x row {i}: {s} vs {}", b[i]);
                let t: f64 = (0..m).map(|k| dense[k][i] * y[k]).sum();
                prop_assert!((t - b[i]).abs() <= 1e-8 * scale, "y^T B column {i}: {t} vs {}", b[i]);
            }
        }

        /// `dependent_columns` drops exactly `m - rank` columns (the rank computed exactly in
        /// rationals by Gaussian elimination), as many rows as columns, and the matrix with
        /// those columns replaced by the rows' unit columns factors and solves (checked by
        /// multiplying back). Copies of columns make the random matrices singular.
        #[test]
        fn dependent_columns_give_way_to_unit_columns(
            m in 1usize..10,
            entries in prop::collection::vec((0usize..10, 0usize..10, -3i32..=3), 0..50),
            copies in prop::collection::vec((0usize..10, 0usize..10), 0..4),
        ) {
            let mut dense = test_basis(m, entries);
            for (from, to) in copies {
                let (from, to) = (from % m, to % m);
                for row in dense.iter_mut() {
                    row[to] = row[from];
                }
            }
            let cols = dense_columns(&dense);
            let refs: Vec<&[(usize, f64)]> = cols.iter().map(|c| c.as_slice()).collect();
            let (dropped, rows) = SparseLu::dependent_columns(m, &refs);
            prop_assert_eq!(dropped.len(), rows.len());
            prop_assert_eq!(dropped.len(), m - exact_rank(&dense));
            for (&c, &r) in dropped.iter().zip(&rows) {
                for (i, row) in dense.iter_mut().enumerate() {
                    row[c] = if i == r { 1.0 } else { 0.0 };
                }
            }
            let mut lu = factor_dense(&dense).expect("the repaired matrix factors");
            let b: Vec<f64> = (0..m).map(|i| i as f64 - 2.0).collect();
            let mut x = b.clone();
            lu.ftran(&mut x);
            for i in 0..m {
                let s: f64 = (0..m).map(|j| dense[i][j] * x[j]).sum();
                prop_assert!((s - b[i]).abs() < 1e-8, "B x row {i}: {s} vs {}", b[i]);
            }
        }

        /// FTRAN and BTRAN solve their systems (checked by multiplying back), also after updates.
        #[test]
        fn solves_random_systems_with_updates(
            m in 1usize..9,
            entries in prop::collection::vec((0usize..9, 0usize..9, -3i32..=3), 0..40),
            replace in prop::collection::vec((0usize..9, prop::collection::vec(-3i32..=3, 9)), 0..4),
            rhs in prop::collection::vec(-5i32..=5, 9),
        ) {
            let mut dense = test_basis(m, entries);
            let Ok(mut lu) = factor_dense(&dense) else { return Ok(()) };
            for (p, newcol) in replace {
                let p = p % m;
                let mut a: Vec<f64> = newcol[..m].iter().map(|&v| v as f64).collect();
                a[p] += 8.0;
                // Every row listed, zeros included: the dense route of the sparse solve.
                let Some(updated) = replace_column(&mut lu, &mut dense, p, a, (0..m).collect(), 1e-3) else { continue };
                prop_assert!(updated);
            }
            let b: Vec<f64> = rhs[..m].iter().map(|&v| v as f64).collect();
            let mut x = b.clone();
            lu.ftran(&mut x);
            for i in 0..m {
                let s: f64 = (0..m).map(|j| dense[i][j] * x[j]).sum();
                prop_assert!((s - b[i]).abs() < 1e-8, "B x row {i}: {s} vs {}", b[i]);
            }
            let mut y = b.clone();
            lu.btran(&mut y);
            for j in 0..m {
                let s: f64 = (0..m).map(|i| dense[i][j] * y[i]).sum();
                prop_assert!((s - b[j]).abs() < 1e-8, "y^T B column {j}: {s} vs {}", b[j]);
            }
            // Refactorising the updated matrix in the same buffers solves it too.
            let cols = dense_columns(&dense);
            let refs: Vec<&[(usize, f64)]> = cols.iter().map(|c| c.as_slice()).collect();
            if lu.refactor(&refs).is_ok() {
                prop_assert_eq!(lu.updates(), 0);
                let mut x = b.clone();
                lu.ftran(&mut x);
                let mut y = b.clone();
                lu.btran(&mut y);
                for i in 0..m {
                    let s: f64 = (0..m).map(|j| dense[i][j] * x[j]).sum();
                    prop_assert!((s - b[i]).abs() < 1e-8, "refactored B x row {i}: {s}");
                    let t: f64 = (0..m).map(|k| dense[k][i] * y[k]).sum();
                    prop_assert!((t - b[i]).abs() < 1e-8, "refactored y^T B column {i}: {t}");
                }
            }
        }
    }
}
