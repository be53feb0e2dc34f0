//! Float sparse LU of a simplex basis with Markowitz-style pivoting and Forrest–Tomlin
//! updates, for the revised simplex of [`super::revised`].
//!
//! The factorisation first peels off column and row singletons (game-LP bases are mostly
//! triangular), then eliminates the remaining nucleus sparsest active column first (a bucket
//! queue keeps this cheap) and, within it, the sparsest row among the entries at least
//! `THRESHOLD` times the column's largest (threshold partial pivoting, for stability). Its
//! buffers are kept between refactorisations, and FTRAN/BTRAN visit only the steps that have
//! row operations in their `L` passes. A sparse right-hand side (a simplex column, a unit
//! vector) is solved hypersparse: a search over the steps its non-zeros reach replaces the
//! loop over all `m` steps, and the result comes with the list of its non-zeros.
//!
//! A basis change is a Forrest–Tomlin update (Forrest and Tomlin 1972): the column of `U` at
//! the leaving position is replaced by the spike `R L a_q` (the entering column after FTRAN's
//! `L` and `R` passes, which stays as sparse as the column), the step moves to the end of the
//! pivot order, and its old row of `U` is eliminated by the rows after it, recorded as one
//! sparse row eta `R`. FTRAN is then `L`, the `R` etas, `U`; BTRAN is `U^T`, the `R^T` etas in
//! reverse, `L^T`. Unlike product-form etas (dense columns of `B^{-1}`), the update keeps the
//! factors about as sparse as the spikes.

/// Relative threshold of threshold pivoting: small enough to keep fill low, large enough to
/// keep growth bounded.
const THRESHOLD: f64 = 0.01;
/// Entries below this after elimination are dropped (cancellation noise).
const DROP: f64 = 1e-14;

/// The basis matrix is numerically singular.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Singular {
    /// How many columns were eliminated before no acceptable pivot remained.
    pub eliminated: usize,
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

    fn clear(&mut self) {
        self.start.clear();
        self.start.push(0);
        self.data.clear();
    }

    /// The transpose-like regrouping into `out` (its buffers reused): entry `(j, v)` of row
    /// `k` goes to row `j` as `(label[k], v)`, for `rows` target rows.
    fn regroup_into(&self, rows: usize, label: impl Fn(usize) -> usize, out: &mut Flat) {
        out.start.clear();
        out.start.resize(rows + 1, 0);
        for &(j, _) in &self.data {
            out.start[j + 1] += 1;
        }
        for j in 0..rows {
            out.start[j + 1] += out.start[j];
        }
        out.data.clear();
        out.data.resize(self.data.len(), (0, 0.0));
        for k in 0..self.start.len() - 1 {
            for &(j, v) in self.row(k) {
                // `start[j]` serves as the fill cursor of row `j`, then is shifted back below.
                out.data[out.start[j]] = (label(k), v);
                out.start[j] += 1;
            }
        }
        for j in (1..=rows).rev() {
            out.start[j] = out.start[j - 1];
        }
        out.start[0] = 0;
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
    /// Copies `flat` (buffers reused), every row without spare room.
    fn assign(&mut self, flat: &Flat) {
        let rows = flat.start.len() - 1;
        self.start.clear();
        self.start.extend_from_slice(&flat.start[..rows]);
        self.len.clear();
        self.len
            .extend((0..rows).map(|k| flat.start[k + 1] - flat.start[k]));
        self.cap.clear();
        self.cap.extend_from_slice(&self.len);
        self.data.clear();
        self.data.extend_from_slice(&flat.data);
    }

    fn row(&self, k: usize) -> &[(usize, f64)] {
        let s = self.start[k];
        &self.data[s..s + self.len[k]]
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

fn reset<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    v.clear();
    v.resize(len, value);
}

/// `R_k ... R_1 M B = U'` with the row operations `M`, the Forrest–Tomlin row etas `R_e` of
/// the updates since the factorisation and the permuted upper-triangular `U'`.
pub(crate) struct SparseLu {
    m: usize,
    /// Pivot `k` is at (row, basis position); an update keeps the pair and moves the step to the
    /// end of the pivot order.
    pivots: Vec<(usize, usize)>,
    /// Row operations of step `k`: `row_i -= l * row_{pivot row}`.
    lower: Flat,
    /// The pivot row of step `k` without the pivot, as the factorisation left it (the source
    /// of `urows` and `ucols`).
    upper: Flat,
    diag: Vec<f64>,
    /// `U` by rows: for step `k`, `(basis position, value)` of its row without the pivot (all
    /// at steps later in the pivot order).
    urows: DynRows,
    /// `U` by columns for FTRAN: for basis position `c`, `(pivot row of step k, value)` of every
    /// earlier step `k` whose pivot row holds `c`; lets back-substitution skip zero unknowns.
    ucols: DynRows,
    /// Regrouping buffer for `ucols`.
    ucols_flat: Flat,
    /// `L` transposed for BTRAN: for row `i`, `(pivot row of step k, l)` of every step that
    /// subtracted a multiple of its pivot row from row `i`.
    lrows: Flat,
    /// Steps with row operations (few: game-LP bases are nearly triangular), so FTRAN's
    /// `L` pass skips the others.
    lower_steps: Vec<usize>,
    /// Steps whose pivot row some earlier step changed (rows with entries in `lrows`), for
    /// BTRAN's `L^T` pass.
    lrow_steps: Vec<usize>,
    /// Pivot order of `U`: the steps as `(pivot row, basis position, step)`, step `k` at
    /// `order[rank[k]]`; an update appends its step and leaves its old slot with the step
    /// `MOVED` (no shifting; the next refactorisation compacts).
    rank: Vec<usize>,
    order: Vec<(u32, u32, u32)>,
    /// Scratch of length `m` (its contents never matter between calls), and a second one.
    scratch: Vec<f64>,
    scratch2: Vec<f64>,
    /// Forrest–Tomlin row etas: update `e` did `row_{pivot row of r_steps[e]} -= sum mu *
    /// row_i` over the entries `(i, mu)` of `r_etas.row(e)`.
    r_steps: Vec<usize>,
    r_etas: Flat,
    /// The `R` etas by the rows they read: `r_rows[i]` lists `(update, mu)` in update order,
    /// so that FTRAN of a sparse column visits only the etas its non-zeros meet.
    r_rows: Vec<Vec<(usize, f64)>>,
    /// FTRAN's per-update accumulators.
    r_acc: Vec<f64>,
    /// The last saving FTRAN's column after the `L` and `R` passes (`(row, value)`), the
    /// spike of the next update, while `spike_valid`.
    spike: Vec<(usize, f64)>,
    spike_valid: bool,
    /// Non-zeros of `L` and `U` (with the pivots) at the factorisation, and of `U` now.
    lu_nonzeros: usize,
    u_nonzeros: usize,
    work: Work,
    /// Step whose pivot row is row `i`, and step whose pivot column is basis position `c`.
    row_step: Vec<usize>,
    col_step: Vec<usize>,
    /// Hypersparse solves: visit marks (`mark[k] == stamp` when step `k` is reached) and the
    /// reached steps of the two triangular passes.
    mark: Vec<u32>,
    stamp: u32,
    reach_l: Vec<usize>,
    reach_u: Vec<usize>,
    /// Whether FTRAN's `U` search and BTRAN's `U^T` search have recently found sparse results.
    ftran_u: Probe,
    btran_u: Probe,
}

/// Skips a hypersparse search that keeps failing: a search that finds more than the limit
/// costs about a tenth of the dense pass it then falls back to (on liars dice 5 most FTRAN'd
/// columns end dense). After `PROBE_AFTER` failures in a row only every `PROBE_EVERY`-th
/// solve searches, and a success resumes searching every time.
#[derive(Default)]
struct Probe {
    fails: u32,
}

const PROBE_AFTER: u32 = 4;
const PROBE_EVERY: u32 = 16;

impl Probe {
    fn attempt(&self) -> bool {
        self.fails < PROBE_AFTER || self.fails.is_multiple_of(PROBE_EVERY)
    }

    /// Records the outcome of a solve whose right-hand side allowed a search.
    fn record(&mut self, sparse: bool) {
        self.fails = if sparse {
            0
        } else {
            self.fails.saturating_add(1)
        };
    }
}

/// The step of a slot of the pivot order that an update left behind.
const MOVED: u32 = u32::MAX;
/// An update whose new pivot differs from `alpha_p * u_tt` (the same number computed another
/// way) by more than this relative amount has lost accuracy: the caller refactorises.
const UPDATE_TOL: f64 = 1e-8;

/// A right-hand side with more non-zeros than this fraction of `m`, or a reach larger than it,
/// is solved by the dense loops (the reach search then costs more than it saves).
/// (Measured on liars dice 5 sides, instructions per pivot: 1/10 beats 1/4 and 1/3.)
const HYPER_FRACTION: usize = 10;

/// Collects into `list` the steps reachable from `seeds` (steps) along `adj(k)` (entries whose
/// index `i` leads to step `step_of[i]`), unsorted; `false` once more than `limit` are found.
fn reach<'a>(
    mark: &mut [u32],
    stamp: u32,
    list: &mut Vec<usize>,
    seeds: impl IntoIterator<Item = usize>,
    adj: impl Fn(usize) -> &'a [(usize, f64)],
    step_of: &[usize],
    limit: usize,
) -> bool {
    list.clear();
    for s in seeds {
        if mark[s] != stamp {
            mark[s] = stamp;
            list.push(s);
        }
    }
    let mut head = 0;
    while head < list.len() {
        if list.len() > limit {
            return false;
        }
        let k = list[head];
        head += 1;
        for &(i, _) in adj(k) {
            let s = step_of[i];
            if mark[s] != stamp {
                mark[s] = stamp;
                list.push(s);
            }
        }
    }
    list.len() <= limit
}

/// One step of FTRAN's back-substitution: the unknown at basis position `c` from the value
/// left in its pivot row `r` and the pivot `d`, then its column `col` of `U` is eliminated;
/// `false` (and nothing written) when that value is below `DROP`. Inlined into both loops.
#[inline(always)]
fn back_step(
    a: &mut [f64],
    x: &mut [f64],
    r: usize,
    c: usize,
    d: f64,
    col: &[(usize, f64)],
) -> bool {
    let acc = std::mem::take(&mut a[r]);
    if acc.abs() < DROP {
        return false;
    }
    let v = acc / d;
    x[c] = v;
    for &(i, u) in col {
        a[i] -= u * v;
    }
    true
}

impl SparseLu {
    /// Factors the `m x m` matrix whose column `k` is `cols[k]` (sparse `(row, value)`).
    pub fn factor(m: usize, cols: &[&[(usize, f64)]]) -> Result<Self, Singular> {
        // The pivot order is stored in `u32`s (no LP that fits in memory comes close).
        if u32::try_from(m).is_err() {
            return Err(Singular { eliminated: 0 });
        }
        let mut lu = SparseLu {
            m,
            pivots: Vec::new(),
            lower: Flat::default(),
            upper: Flat::default(),
            diag: Vec::new(),
            urows: DynRows::default(),
            ucols: DynRows::default(),
            ucols_flat: Flat::default(),
            lrows: Flat::default(),
            lower_steps: Vec::new(),
            lrow_steps: Vec::new(),
            rank: Vec::new(),
            order: Vec::new(),
            scratch: vec![0.0; m],
            scratch2: vec![0.0; m],
            r_steps: Vec::new(),
            r_etas: Flat::default(),
            r_rows: vec![Vec::new(); m],
            r_acc: Vec::new(),
            spike: Vec::new(),
            spike_valid: false,
            lu_nonzeros: 0,
            u_nonzeros: 0,
            work: Work::default(),
            row_step: vec![0; m],
            col_step: vec![0; m],
            mark: vec![0; m],
            stamp: 0,
            reach_l: Vec::new(),
            reach_u: Vec::new(),
            ftran_u: Probe::default(),
            btran_u: Probe::default(),
        };
        lu.refactor(cols)?;
        Ok(lu)
    }

    /// Factors a new `m x m` matrix in place of this one, reusing the buffers. After an error
    /// the factorisation is unusable until a successful `refactor`.
    pub fn refactor(&mut self, cols: &[&[(usize, f64)]]) -> Result<(), Singular> {
        let m = self.m;
        debug_assert_eq!(cols.len(), m);
        self.pivots.clear();
        self.lower.clear();
        self.upper.clear();
        self.diag.clear();
        for &(i, _) in &self.r_etas.data {
            self.r_rows[i].clear();
        }
        self.r_steps.clear();
        self.r_etas.clear();
        self.spike_valid = false;
        self.lu_nonzeros = 0;
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
        for (k, &(r, c)) in self.pivots.iter().enumerate() {
            self.row_step[r] = k;
            self.col_step[c] = k;
        }
        let pivots = &self.pivots;
        self.upper
            .regroup_into(m, |k| pivots[k].0, &mut self.ucols_flat);
        self.ucols.assign(&self.ucols_flat);
        self.urows.assign(&self.upper);
        self.u_nonzeros = self.upper.data.len() + m;
        self.rank.clear();
        self.rank.extend(0..m);
        self.order.clear();
        self.order.extend(
            self.pivots
                .iter()
                .enumerate()
                .map(|(k, &(r, c))| (r as u32, c as u32, k as u32)),
        );
        self.lower.regroup_into(m, |k| pivots[k].0, &mut self.lrows);
        self.lower_steps.clear();
        self.lower_steps
            .extend((0..m).filter(|&k| self.lower.start[k] < self.lower.start[k + 1]));
        self.lrow_steps.clear();
        let (lrows, pivots) = (&self.lrows, &self.pivots);
        self.lrow_steps
            .extend((0..m).filter(|&k| !lrows.row(pivots[k].0).is_empty()));
        Ok(())
    }

    /// Closes step `(r, c)` with pivot `pval`; `lower` and `upper` hold its entries.
    fn end_step(&mut self, r: usize, c: usize, pval: f64) {
        self.lower.end_row();
        self.upper.end_row();
        self.pivots.push((r, c));
        self.diag.push(pval);
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
        if w.col_count.contains(&0) {
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
                    return Err(singular(self));
                }
                w.row_active[r] = false;
                w.col_active[c] = false;
                let upper_start = self.upper.data.len();
                for &(j, v) in &w.row_data[w.row_start[r]..w.row_start[r + 1]] {
                    if j != c && w.col_active[j] {
                        self.upper.data.push((j, v));
                        w.col_count[j] -= 1;
                        if w.col_count[j] == 1 {
                            w.col_queue.push(j);
                        } else if w.col_count[j] == 0 {
                            return Err(singular(self));
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
        while self.pivots.len() < m {
            let step = self.pivots.len();
            // The active column of fewest entries.
            let c = loop {
                while lowest < buckets.len() && buckets[lowest].is_empty() {
                    lowest += 1;
                }
                if lowest >= buckets.len() {
                    return Err(Singular { eliminated: step });
                }
                let j = buckets[lowest].pop().expect("non-empty bucket");
                if col_active[j] && col_count[j].min(m + 1) == lowest {
                    break j;
                }
            };
            // The column's active entries (the row lists may hold stale rows).
            entries.clear();
            for &i in &col_rows[c] {
                if row_active[i] && seen[i] != step {
                    seen[i] = step;
                    if let Some(&(_, v)) = rows[i].iter().find(|(j, _)| *j == c) {
                        entries.push((i, v));
                    }
                }
            }
            let max = entries.iter().fold(0.0f64, |a, (_, v)| a.max(v.abs()));
            if max < 1e-11 {
                return Err(Singular { eliminated: step });
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

    /// Non-zeros the updates added since the factorisation: growth of `U` plus the `R` etas.
    pub fn update_nonzeros(&self) -> usize {
        (self.u_nonzeros + self.r_etas.data.len())
            .saturating_sub(self.lu_nonzeros - self.lower.data.len())
    }

    /// Non-zeros of L and U at the factorisation (with the pivots).
    pub fn lu_nonzeros(&self) -> usize {
        self.lu_nonzeros
    }

    /// Number of updates since the factorisation.
    pub fn updates(&self) -> usize {
        self.r_steps.len()
    }

    /// A fresh visit stamp for [`reach`].
    fn next_stamp(&mut self) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|v| *v = 0);
            self.stamp = 1;
        }
        self.stamp
    }

    /// Solves `B x = a` in place: `a` indexed by rows on entry, by basis positions on return.
    pub fn ftran(&mut self, a: &mut Vec<f64>) {
        let mut idx: Vec<usize> = (0..self.m).filter(|&i| a[i] != 0.0).collect();
        self.solve_column(a, &mut idx, false);
    }

    /// Solves `y^T B = c^T` in place: `c` indexed by basis positions on entry, rows on return.
    pub fn btran(&mut self, c: &mut Vec<f64>) {
        let mut idx: Vec<usize> = (0..self.m).filter(|&i| c[i] != 0.0).collect();
        self.btran_sparse(c, &mut idx);
    }

    /// [`Self::ftran`] with the non-zeros listed: on entry `idx` lists every non-zero of `a`
    /// (duplicates and zeros allowed), on return exactly the non-zeros of the result, without
    /// duplicates. A sparse right-hand side is solved hypersparse (Gilbert and Peierls): only
    /// the steps its non-zeros reach are visited. The column is kept as the spike of a
    /// following [`Self::update`].
    pub fn ftran_sparse(&mut self, a: &mut Vec<f64>, idx: &mut Vec<usize>) {
        self.solve_column(a, idx, true);
    }

    /// FTRAN: the `L` pass, the `R` etas, then back-substitution with `U`; `save` keeps the
    /// column after the `R` etas as the spike.
    fn solve_column(&mut self, a: &mut Vec<f64>, idx: &mut Vec<usize>, save: bool) {
        let m = self.m;
        let limit = m / HYPER_FRACTION;
        let stamp = self.next_stamp();
        let mut sparse = idx.len() <= limit
            && reach(
                &mut self.mark,
                stamp,
                &mut self.reach_l,
                idx.iter().map(|&i| self.row_step[i]),
                |k| self.lower.row(k),
                &self.row_step,
                limit,
            );
        // One `L` step, the same for the reached steps and for all of them.
        let (lower, pivots) = (&self.lower, &self.pivots);
        let l_step = |a: &mut [f64], k: usize| {
            let v = a[pivots[k].0];
            if v != 0.0 {
                for &(i, l) in lower.row(k) {
                    a[i] -= l * v;
                }
            }
        };
        if sparse {
            self.reach_l.sort_unstable();
            for &k in &self.reach_l {
                l_step(a, k);
            }
        } else {
            for &k in &self.lower_steps {
                l_step(a, k);
            }
        }
        // The `R` etas in update order; a row they make non-zero joins the reached steps.
        if sparse && !self.r_steps.is_empty() {
            // Each eta's dot product is accumulated by pushing the column's non-zeros (and
            // each change an earlier eta makes) into the etas that read them.
            let acc = &mut self.r_acc;
            acc.clear();
            acc.resize(self.r_steps.len(), 0.0);
            for &k in &self.reach_l {
                let v = a[pivots[k].0];
                if v != 0.0 {
                    for &(e, mu) in &self.r_rows[pivots[k].0] {
                        acc[e] += mu * v;
                    }
                }
            }
            for (e, &t) in self.r_steps.iter().enumerate() {
                let dot = acc[e];
                if dot != 0.0 {
                    let r = pivots[t].0;
                    a[r] -= dot;
                    if self.mark[t] != stamp {
                        self.mark[t] = stamp;
                        self.reach_l.push(t);
                    }
                    for &(e2, mu) in self.r_rows[r].iter().rev() {
                        if e2 <= e {
                            break;
                        }
                        acc[e2] -= mu * dot;
                    }
                }
            }
        } else {
            for (e, &t) in self.r_steps.iter().enumerate() {
                let dot: f64 = self.r_etas.row(e).iter().map(|&(i, mu)| mu * a[i]).sum();
                if dot != 0.0 {
                    a[pivots[t].0] -= dot;
                }
            }
        }
        if save {
            self.spike.clear();
            if sparse {
                self.spike.extend(
                    self.reach_l
                        .iter()
                        .map(|&k| (pivots[k].0, a[pivots[k].0]))
                        .filter(|e| e.1 != 0.0),
                );
            } else {
                self.spike
                    .extend((0..m).map(|r| (r, a[r])).filter(|e| e.1 != 0.0));
            }
            self.spike_valid = true;
        }
        if sparse {
            let attempt = self.ftran_u.attempt();
            let stamp = self.next_stamp();
            let (pivots, ucols) = (&self.pivots, &self.ucols);
            sparse = attempt
                && reach(
                    &mut self.mark,
                    stamp,
                    &mut self.reach_u,
                    self.reach_l.iter().copied(),
                    |k| ucols.row(pivots[k].1),
                    &self.row_step,
                    limit,
                );
            self.ftran_u.record(sparse);
        }
        // Back-substitution by columns in reverse pivot order; `a` is left all zero and the
        // scratch (all zero between calls) receives the result.
        let x = &mut self.scratch;
        let (pivots, diag, ucols) = (&self.pivots, &self.diag, &self.ucols);
        idx.clear();
        if sparse {
            let rank = &self.rank;
            self.reach_u
                .sort_unstable_by_key(|&k| std::cmp::Reverse(rank[k]));
            for &k in &self.reach_u {
                let (r, c) = pivots[k];
                if back_step(a, x, r, c, diag[k], ucols.row(c)) {
                    idx.push(c);
                }
            }
        } else {
            // Most steps meet a zero: test before the step.
            // A moved step's old slot always meets a zero: its row was taken at its new
            // slot, and only steps after that one write to it.
            for &(r, c, k) in self.order.iter().rev() {
                let (r, c) = (r as usize, c as usize);
                if a[r] != 0.0 {
                    debug_assert!(k != MOVED, "a moved step's old slot met a non-zero");
                    if back_step(a, x, r, c, diag[k as usize], ucols.row(c)) {
                        idx.push(c);
                    }
                }
            }
        }
        std::mem::swap(a, &mut self.scratch);
    }

    /// [`Self::btran`] with the non-zeros listed, as in [`Self::ftran_sparse`], except that
    /// `idx` must not list a position twice.
    pub fn btran_sparse(&mut self, c: &mut Vec<f64>, idx: &mut Vec<usize>) {
        let m = self.m;
        let limit = m / HYPER_FRACTION;
        let stamp = self.next_stamp();
        let stamp_l = self.next_stamp();
        let urows = &self.urows;
        let attempt = idx.len() <= limit && self.btran_u.attempt();
        let sparse = attempt
            && reach(
                &mut self.mark,
                stamp,
                &mut self.reach_u,
                idx.iter().map(|&p| self.col_step[p]),
                |k| urows.row(k),
                &self.col_step,
                limit,
            );
        if idx.len() <= limit {
            self.btran_u.record(sparse);
        }
        // `U^T`: `c` is left all zero and the scratch (all zero between calls) receives `y`.
        let y = &mut self.scratch;
        // One `U^T` step, the same for the reached steps and for all of them.
        let (pivots, diag) = (&self.pivots, &self.diag);
        let mut u_step = |c: &mut [f64], k: usize| {
            let (r, ck) = pivots[k];
            let z = std::mem::take(&mut c[ck]);
            // Cancellation noise is dropped, as in FTRAN (it would spread through the rest).
            if z.abs() >= DROP {
                let z = z / diag[k];
                for &(j, u) in urows.row(k) {
                    c[j] -= z * u;
                }
                y[r] = z;
            }
        };
        if sparse {
            let rank = &self.rank;
            self.reach_u.sort_unstable_by_key(|&k| rank[k]);
            for &k in &self.reach_u {
                u_step(c, k);
            }
        } else {
            for &(_, ck, k) in &self.order {
                if c[ck as usize] != 0.0 && k != MOVED {
                    u_step(c, k as usize);
                }
            }
        }
        // The `R^T` etas in reverse update order: each scatters its pivot row's value; rows
        // they make non-zero join the seeds of the `L^T` search.
        for (e, &t) in self.r_steps.iter().enumerate().rev() {
            let yt = y[pivots[t].0];
            if yt != 0.0 {
                for &(i, mu) in self.r_etas.row(e) {
                    if sparse && y[i] == 0.0 {
                        self.reach_u.push(self.row_step[i]);
                    }
                    y[i] -= mu * yt;
                }
            }
        }
        // `L^T`: once `y[i]` is final (its step is later than every step it feeds), push it
        // to the pivot rows that eliminated row `i`; visit them in reverse step order.
        let lrows = &self.lrows;
        let sparse = sparse
            && reach(
                &mut self.mark,
                stamp_l,
                &mut self.reach_l,
                self.reach_u.iter().copied(),
                |k| lrows.row(pivots[k].0),
                &self.row_step,
                limit,
            );
        idx.clear();
        // One `L^T` step, the same for the reached steps and for all of them.
        let lt_step = |y: &mut [f64], k: usize| {
            let i = pivots[k].0;
            let yi = y[i];
            if yi != 0.0 {
                for &(r, l) in lrows.row(i) {
                    y[r] -= l * yi;
                }
            }
        };
        if sparse {
            self.reach_l.sort_unstable_by(|a, b| b.cmp(a));
            for &k in &self.reach_l {
                lt_step(y, k);
            }
            idx.extend(
                self.reach_l
                    .iter()
                    .map(|&k| pivots[k].0)
                    .filter(|&r| y[r] != 0.0),
            );
        } else {
            for &k in self.lrow_steps.iter().rev() {
                if y[pivots[k].0] != 0.0 {
                    lt_step(y, k);
                }
            }
            idx.extend((0..m).filter(|&r| y[r] != 0.0));
        }
        std::mem::swap(c, &mut self.scratch);
    }

    /// Forrest–Tomlin update: basis position `p` now holds the column of the last
    /// [`Self::ftran_sparse`], whose result had `alpha_p` at `p`. Returns `false` when the
    /// update lost accuracy (or no spike was saved): the caller must refactorise.
    pub fn update(&mut self, p: usize, alpha_p: f64) -> bool {
        if !std::mem::take(&mut self.spike_valid) {
            return false;
        }
        let t = self.col_step[p];
        let rt = self.pivots[t].0;
        // Row `t` of `U` without its pivot is eliminated by the rows after it, in pivot
        // order (a hypersparse `U^T` solve); the multipliers form the `R` eta.
        let stamp = self.next_stamp();
        let w = &mut self.scratch;
        for &(j, u) in self.urows.row(t) {
            w[j] = u;
        }
        let urows = &self.urows;
        reach(
            &mut self.mark,
            stamp,
            &mut self.reach_u,
            urows.row(t).iter().map(|&(j, _)| self.col_step[j]),
            |k| urows.row(k),
            &self.col_step,
            usize::MAX,
        );
        let rank = &self.rank;
        self.reach_u.sort_unstable_by_key(|&k| rank[k]);
        let eta_start = self.r_etas.data.len();
        for &k in &self.reach_u {
            let (rk, ck) = self.pivots[k];
            let v = std::mem::take(&mut w[ck]);
            if v.abs() < DROP {
                continue;
            }
            let mu = v / self.diag[k];
            self.r_etas.data.push((rk, mu));
            self.r_rows[rk].push((self.r_steps.len(), mu));
            for &(j, u) in urows.row(k) {
                w[j] -= mu * u;
            }
        }
        self.r_etas.end_row();
        self.r_steps.push(t);
        // The new pivot: the spike's entry in row `t` after the same row operations.
        let s = &mut self.scratch2;
        for &(r, v) in &self.spike {
            s[r] = v;
        }
        let mut pivot = s[rt];
        for &(r, mu) in &self.r_etas.data[eta_start..] {
            pivot -= mu * s[r];
        }
        for &(r, _) in &self.spike {
            s[r] = 0.0;
        }
        // Replace column `t` of `U` by the spike and drop row `t`; the step moves last.
        self.u_nonzeros -= self.ucols.len[p] + self.urows.len[t];
        for e in 0..self.ucols.len[p] {
            let r = self.ucols.data[self.ucols.start[p] + e].0;
            self.urows.remove(self.row_step[r], p);
        }
        for e in 0..self.urows.len[t] {
            let j = self.urows.data[self.urows.start[t] + e].0;
            self.ucols.remove(j, rt);
        }
        self.urows.len[t] = 0;
        self.ucols.len[p] = 0;
        for &(r, v) in &self.spike {
            if r != rt && v.abs() >= DROP {
                self.ucols.push(p, (r, v));
                self.urows.push(self.row_step[r], (p, v));
                self.u_nonzeros += 1;
            }
        }
        let expected = alpha_p * self.diag[t];
        self.diag[t] = pivot;
        let slot = self.order[self.rank[t]];
        self.order[self.rank[t]].2 = MOVED;
        self.rank[t] = self.order.len();
        self.order.push(slot);
        pivot.is_finite()
            && pivot.abs() > 1e-11
            && (pivot - expected).abs() <= UPDATE_TOL * pivot.abs().max(1.0)
    }
}

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
