//! Float sparse LU of a simplex basis with Markowitz-style pivoting and product-form updates,
//! for the revised simplex of [`super::revised`].
//!
//! The factorisation eliminates the sparsest active column first (a bucket queue keeps this
//! cheap) and, within it, the sparsest row among the entries at least `THRESHOLD` times the
//! column's largest (threshold partial pivoting, for stability). Basis changes are appended as
//! eta columns (product form) until the next refactorisation.

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
    fn with_capacity(rows: usize) -> Self {
        let mut start = Vec::with_capacity(rows + 1);
        start.push(0);
        Flat {
            start,
            data: Vec::new(),
        }
    }

    /// Closes the row being pushed.
    fn end_row(&mut self) {
        self.start.push(self.data.len());
    }

    fn row(&self, k: usize) -> &[(usize, f64)] {
        &self.data[self.start[k]..self.start[k + 1]]
    }

    /// The transpose-like regrouping: entry `(j, v)` of row `k` goes to row `j` as
    /// `(label[k], v)`, for `rows` target rows.
    fn regroup(&self, rows: usize, label: impl Fn(usize) -> usize) -> Flat {
        let mut count = vec![0usize; rows + 1];
        for &(j, _) in &self.data {
            count[j + 1] += 1;
        }
        for j in 0..rows {
            count[j + 1] += count[j];
        }
        let start = count.clone();
        let mut data = vec![(0usize, 0.0f64); self.data.len()];
        for k in 0..self.start.len() - 1 {
            for &(j, v) in self.row(k) {
                data[count[j]] = (label(k), v);
                count[j] += 1;
            }
        }
        Flat { start, data }
    }
}

/// A product-form update: basis position, pivot value, the entering column's other non-zeros.
type Eta = (usize, f64, Vec<(usize, f64)>);

/// `B = M^{-1} U'` with the row operations `M` and the permuted upper-triangular `U'`, then
/// eta columns for the basis changes since.
pub(crate) struct SparseLu {
    m: usize,
    /// Pivot `k` is at (row, basis position).
    pivots: Vec<(usize, usize)>,
    /// Row operations of step `k`: `row_i -= l * row_{pivot row}`.
    lower: Flat,
    /// The pivot row of step `k` without the pivot: `(basis position, value)`.
    upper: Flat,
    diag: Vec<f64>,
    /// `U` by columns for FTRAN: for basis position `c`, `(pivot row of step k, value)` of every
    /// earlier step `k` whose pivot row holds `c`; lets back-substitution skip zero unknowns.
    ucols: Flat,
    /// `L` transposed for BTRAN: for row `i`, `(pivot row of step k, l)` of every step that
    /// subtracted a multiple of its pivot row from row `i`.
    lrows: Flat,
    /// Scratch of length `m` (its contents never matter between calls).
    scratch: Vec<f64>,
    /// Product-form updates: (position, pivot value, other non-zeros of the entering column).
    etas: Vec<Eta>,
    eta_nonzeros: usize,
    lu_nonzeros: usize,
}

impl SparseLu {
    /// Factors the `m x m` matrix whose column `k` is `cols[k]` (sparse `(row, value)`).
    pub fn factor(m: usize, cols: &[&[(usize, f64)]]) -> Result<Self, Singular> {
        debug_assert_eq!(cols.len(), m);
        let mut rows: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
        let mut col_rows: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut col_count = vec![0usize; m];
        for (j, col) in cols.iter().enumerate() {
            for &(i, v) in col.iter() {
                if v != 0.0 {
                    rows[i].push((j, v));
                    col_rows[j].push(i);
                    col_count[j] += 1;
                }
            }
        }
        // Bucket queue of active columns by count; entries go stale when a count changes and
        // are skipped when popped.
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); m + 2];
        for j in (0..m).rev() {
            buckets[col_count[j].min(m + 1)].push(j);
        }
        let mut row_active = vec![true; m];
        let mut col_active = vec![true; m];
        let mut work = vec![0.0f64; m];
        let mut in_prow = vec![false; m];
        let mut seen = vec![usize::MAX; m];
        let mut lu = SparseLu {
            m,
            pivots: Vec::with_capacity(m),
            lower: Flat::with_capacity(m),
            upper: Flat::with_capacity(m),
            diag: Vec::with_capacity(m),
            ucols: Flat::default(),
            lrows: Flat::default(),
            scratch: vec![0.0; m],
            etas: Vec::new(),
            eta_nonzeros: 0,
            lu_nonzeros: 0,
        };
        let mut lowest = 0usize;
        let mut entries: Vec<(usize, f64)> = Vec::new();
        for step in 0..m {
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
            let prow = std::mem::take(&mut rows[r]);
            row_active[r] = false;
            col_active[c] = false;
            for &(j, v) in &prow {
                if j != c {
                    work[j] = v;
                    in_prow[j] = true;
                }
                col_count[j] -= 1;
            }
            let ops_start = lu.lower.data.len();
            for &(i, v) in &entries {
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
                        row[k].1 -= f * work[j];
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
                        let val = -f * work[j];
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
                lu.lower.data.push((i, f));
            }
            for &(j, _) in &prow {
                if j != c {
                    in_prow[j] = false;
                    work[j] = 0.0;
                    buckets[col_count[j].min(m + 1)].push(j);
                    lowest = lowest.min(col_count[j].min(m + 1));
                }
            }
            col_rows[c] = Vec::new();
            let upper_start = lu.upper.data.len();
            lu.upper
                .data
                .extend(prow.iter().filter(|(j, _)| *j != c).copied());
            lu.lu_nonzeros +=
                lu.upper.data.len() - upper_start + lu.lower.data.len() - ops_start + 1;
            lu.lower.end_row();
            lu.upper.end_row();
            lu.pivots.push((r, c));
            lu.diag.push(pval);
        }
        let pivot_row = |k: usize| lu.pivots[k].0;
        let ucols = lu.upper.regroup(m, pivot_row);
        let lrows = lu.lower.regroup(m, pivot_row);
        lu.ucols = ucols;
        lu.lrows = lrows;
        Ok(lu)
    }

    /// Non-zeros of the eta file (updates since the factorisation).
    pub fn eta_nonzeros(&self) -> usize {
        self.eta_nonzeros
    }

    /// Non-zeros of L and U.
    pub fn lu_nonzeros(&self) -> usize {
        self.lu_nonzeros
    }

    /// Number of updates since the factorisation.
    pub fn updates(&self) -> usize {
        self.etas.len()
    }

    /// Solves `B x = a` in place: `a` indexed by rows on entry, by basis positions on return.
    pub fn ftran(&mut self, a: &mut Vec<f64>) {
        for k in 0..self.m {
            let v = a[self.pivots[k].0];
            if v != 0.0 {
                for &(i, l) in self.lower.row(k) {
                    a[i] -= l * v;
                }
            }
        }
        // Column-oriented back-substitution: every position is written, so the scratch
        // needs no clearing, and a zero unknown costs nothing.
        let x = &mut self.scratch;
        for k in (0..self.m).rev() {
            let (r, c) = self.pivots[k];
            let acc = a[r];
            if acc.abs() < DROP {
                x[c] = 0.0;
                continue;
            }
            let v = acc / self.diag[k];
            x[c] = v;
            for &(i, u) in self.ucols.row(c) {
                a[i] -= u * v;
            }
        }
        for (p, pv, others) in &self.etas {
            let xp = x[*p];
            if xp != 0.0 {
                let t = xp / pv;
                x[*p] = t;
                for &(i, a) in others {
                    x[i] -= a * t;
                }
            }
        }
        std::mem::swap(a, &mut self.scratch);
    }

    /// Solves `y^T B = c^T` in place: `c` indexed by basis positions on entry, rows on return.
    pub fn btran(&mut self, c: &mut Vec<f64>) {
        for (p, pv, others) in self.etas.iter().rev() {
            let mut acc = c[*p];
            for &(i, a) in others {
                acc -= a * c[i];
            }
            c[*p] = acc / pv;
        }
        let y = &mut self.scratch;
        for k in 0..self.m {
            let (r, ck) = self.pivots[k];
            let z = c[ck];
            if z == 0.0 {
                y[r] = 0.0;
                continue;
            }
            let z = z / self.diag[k];
            for &(j, u) in self.upper.row(k) {
                c[j] -= z * u;
            }
            y[r] = z;
        }
        // `L^T`: once `y[i]` is final (its step is later than every step it feeds), push it
        // to the pivot rows that eliminated row `i`.
        for k in (0..self.m).rev() {
            let i = self.pivots[k].0;
            let yi = y[i];
            if yi != 0.0 {
                for &(r, l) in self.lrows.row(i) {
                    y[r] -= l * yi;
                }
            }
        }
        std::mem::swap(c, &mut self.scratch);
    }

    /// Records that basis position `p` now holds the column whose FTRAN result is `alpha`.
    pub fn update(&mut self, p: usize, alpha: &[f64]) {
        let others: Vec<(usize, f64)> = alpha
            .iter()
            .enumerate()
            .filter(|&(i, v)| i != p && *v != 0.0)
            .map(|(i, v)| (i, *v))
            .collect();
        self.eta_nonzeros += others.len() + 1;
        self.etas.push((p, alpha[p], others));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// FTRAN and BTRAN solve their systems (checked by multiplying back), also after updates.
        #[test]
        fn solves_random_systems_with_updates(
            m in 1usize..9,
            entries in prop::collection::vec((0usize..9, 0usize..9, -3i32..=3), 0..40),
            replace in prop::collection::vec((0usize..9, prop::collection::vec(-3i32..=3, 9)), 0..4),
            rhs in prop::collection::vec(-5i32..=5, 9),
        ) {
            let mut dense = vec![vec![0.0f64; m]; m];
            for (i, row) in dense.iter_mut().enumerate() { row[i] = 4.0; }
            for (i, j, v) in entries { if i < m && j < m && i != j { dense[i][j] = v as f64; } }
            let col = |d: &Vec<Vec<f64>>, j: usize| -> Vec<(usize, f64)> {
                (0..m).filter(|&i| d[i][j] != 0.0).map(|i| (i, d[i][j])).collect()
            };
            let cols: Vec<Vec<(usize, f64)>> = (0..m).map(|j| col(&dense, j)).collect();
            let refs: Vec<&[(usize, f64)]> = cols.iter().map(|c| c.as_slice()).collect();
            let Ok(mut lu) = SparseLu::factor(m, &refs) else { return Ok(()) };
            for (p, newcol) in replace {
                let p = p % m;
                let mut a: Vec<f64> = newcol[..m].iter().map(|&v| v as f64).collect();
                a[p] += 8.0;
                let mut alpha = a.clone();
                lu.ftran(&mut alpha);
                if alpha[p].abs() < 1e-3 { continue; }
                lu.update(p, &alpha);
                for (i, row) in dense.iter_mut().enumerate() { row[p] = a[i]; }
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
        }
    }
}
