//! A sparse revised primal simplex in floating point that only has to find a good basis: the
//! exact layer ([`super::guided`]) recomputes and certifies everything it returns.
//!
//! The basis is kept as a sparse LU ([`super::sparse_lu`]) with Forrest–Tomlin updates and
//! periodic refactorisation, so memory is proportional to the non-zeros of the constraint
//! matrix and of the factors, never rows x columns. The entering column and the pivot row of
//! `B^{-1}` are kept with lists of their non-zeros (hypersparse FTRAN/BTRAN), so the ratio
//! test, the basic-value update and the row-wise pivot row touch only those; the row-wise
//! matrix keeps each row's nonbasic columns first, so the pivot row skips basic columns.
//! Pricing is Devex (Forrest and Goldfarb's approximate steepest edge) over reduced costs
//! updated from the pivot row, scanning a list of the columns whose reduced cost qualifies
//! (only the pivot row's columns change between refactorisations); the ratio test is
//! Harris's two-pass test; the right-hand sides get a small deterministic perturbation against
//! the heavy degeneracy of game LPs. Phase 1 minimises the sum of artificial variables on rows
//! that have no slack column.

use super::sparse_lu::SparseLu;
use super::StandardForm;
use super::{LpProgress, ProgressFn};
use crate::scalar::rational_to_f64;

/// What the float simplex found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FloatOutcome {
    /// An (approximately) optimal basis: `basis[row]` is a standard-form column, or `None`
    /// where an artificial variable is still basic (a redundant row).
    Optimal {
        /// Basic column per row.
        basis: Vec<Option<usize>>,
        /// Pivots made.
        pivots: usize,
    },
    /// The phase-1 optimum left artificial variables positive.
    Infeasible {
        /// Pivots made.
        pivots: usize,
    },
    /// A column with positive reduced cost had no positive entry.
    Unbounded {
        /// The primal feasible basis at which the ray was found.
        basis: Vec<Option<usize>>,
        /// Pivots made.
        pivots: usize,
    },
    /// The iteration limit was reached or the basis became numerically singular.
    Stalled {
        /// Why.
        reason: String,
    },
}

const PIVOT_TOL: f64 = 1e-9;
const COST_TOL: f64 = 1e-9;
/// The pricing tolerance of the clean-up after the perturbation is removed.
const FINAL_COST_TOL: f64 = 1e-12;
/// Refactorise after this many updates.
const REFACTOR_EVERY: usize = 100;
/// Refactorise once the updates have added this fraction of the factors' non-zeros.
const FILL_LIMIT: f64 = 1.0;

/// The matrix `[A | artificials]` by columns.
struct Matrix {
    cols: Vec<Vec<(usize, f64)>>,
}

/// One entry of [`RowParts`]: its column, its index in that column's list, its value.
#[derive(Clone, Copy)]
struct RowEntry {
    col: u32,
    k: u32,
    value: f64,
}

/// The matrix by rows, each row's nonbasic columns first (as HiGHS keeps it), so that the
/// row-wise PRICE of the pivot row never visits a basic column (on liars dice 5 sides that
/// cut PRICE's instructions by a quarter).
/// A basis change moves each entry of the two columns across its row's boundary by one swap.
struct RowParts {
    entries: Vec<RowEntry>,
    /// Row `i`'s entries are `entries[start[i]..start[i + 1]]`, nonbasic ones first.
    start: Vec<usize>,
    /// Nonbasic entries per row.
    nonbasic: Vec<usize>,
    /// `slot[col_start[j] + k]`: where column `j`'s `k`-th entry sits in `entries`.
    slot: Vec<usize>,
    col_start: Vec<usize>,
}

impl RowParts {
    fn new(a: &Matrix, m: usize, is_basic: impl Fn(usize) -> bool) -> Self {
        let mut start = vec![0usize; m + 1];
        for col in &a.cols {
            for &(i, _) in col {
                start[i + 1] += 1;
            }
        }
        for i in 0..m {
            start[i + 1] += start[i];
        }
        let mut col_start = Vec::with_capacity(a.cols.len() + 1);
        col_start.push(0);
        for col in &a.cols {
            col_start.push(col_start.last().copied().unwrap_or(0) + col.len());
        }
        let mut parts = Self {
            entries: vec![
                RowEntry {
                    col: 0,
                    k: 0,
                    value: 0.0
                };
                start[m]
            ],
            nonbasic: vec![0; m],
            slot: vec![0; col_start[a.cols.len()]],
            start,
            col_start,
        };
        // Nonbasic columns fill each row from its front, basic ones from its back.
        let mut back: Vec<usize> = parts.start[1..].to_vec();
        for (j, col) in a.cols.iter().enumerate() {
            let basic = is_basic(j);
            for (k, &(i, value)) in col.iter().enumerate() {
                let at = if basic {
                    back[i] -= 1;
                    back[i]
                } else {
                    parts.nonbasic[i] += 1;
                    parts.start[i] + parts.nonbasic[i] - 1
                };
                // The memory budget, checked before the LP is built, keeps the columns and
                // a column's entries far below 2^32.
                parts.entries[at] = RowEntry {
                    col: u32::try_from(j).expect("LP columns fit in u32"),
                    k: u32::try_from(k).expect("column entries fit in u32"),
                    value,
                };
                parts.slot[parts.col_start[j] + k] = at;
            }
        }
        parts
    }

    /// Row `i`'s nonbasic entries.
    fn nonbasic_row(&self, i: usize) -> &[RowEntry] {
        &self.entries[self.start[i]..self.start[i] + self.nonbasic[i]]
    }

    fn swap(&mut self, x: usize, y: usize) {
        self.entries.swap(x, y);
        for at in [x, y] {
            let e = self.entries[at];
            self.slot[self.col_start[e.col as usize] + e.k as usize] = at;
        }
    }

    /// Column `j` (entries `col`) becomes basic.
    fn enter(&mut self, j: usize, col: &[(usize, f64)]) {
        for (k, &(i, _)) in col.iter().enumerate() {
            let at = self.slot[self.col_start[j] + k];
            self.nonbasic[i] -= 1;
            self.swap(at, self.start[i] + self.nonbasic[i]);
        }
    }

    /// Column `j` (entries `col`) becomes nonbasic.
    fn leave(&mut self, j: usize, col: &[(usize, f64)]) {
        for (k, &(i, _)) in col.iter().enumerate() {
            let at = self.slot[self.col_start[j] + k];
            self.swap(at, self.start[i] + self.nonbasic[i]);
            self.nonbasic[i] += 1;
        }
    }
}

struct Simplex<'a> {
    a: &'a Matrix,
    rows: RowParts,
    b: Vec<f64>,
    cost: Vec<f64>,
    basis: Vec<usize>,
    /// Basis position of a basic column, `usize::MAX` otherwise.
    pos: Vec<usize>,
    lu: SparseLu,
    xb: Vec<f64>,
    d: Vec<f64>,
    weight: Vec<f64>,
    pivots: usize,
    /// Dense scratch for the pivot row, indexed by column, and its touched columns.
    row_buf: Vec<f64>,
    touched: Vec<usize>,
    /// Row of `B^{-1}` and entering column `B^{-1} a_q`, each with the list of its non-zeros
    /// (the vectors are zero elsewhere; FTRAN/BTRAN of game-LP columns are hypersparse).
    rho: Vec<f64>,
    rho_idx: Vec<usize>,
    alpha: Vec<f64>,
    alpha_idx: Vec<usize>,
    /// The next pivot is a dual simplex pivot.
    dual_step: bool,
    /// `row_buf` already holds this basis position's pivot row.
    row_ready: Option<usize>,
    /// Every nonbasic column whose reduced cost exceeds `cost_tol` (pricing candidates), and
    /// possibly columns that no longer do (dropped when pricing meets them): reduced costs
    /// change only on the pivot row's columns, so pricing scans this list, not every column.
    candidates: Vec<usize>,
    is_candidate: Vec<bool>,
    /// Reduced costs above this price a column in (tightened for the final clean-up).
    cost_tol: f64,
    /// Columns set aside as numerically unbounded until the next refactorisation.
    is_rejected: Vec<bool>,
    rejected: Vec<usize>,
    rejections: usize,
}

enum Step {
    Optimal,
    Unbounded,
    Limit,
    Singular,
}

impl<'a> Simplex<'a> {
    fn refactor(&mut self) -> bool {
        let cols: Vec<&[(usize, f64)]> = self
            .basis
            .iter()
            .map(|&j| self.a.cols[j].as_slice())
            .collect();
        if self.lu.refactor(&cols).is_err() {
            return false;
        }
        let mut xb = self.b.clone();
        self.lu.ftran(&mut xb);
        self.xb = xb;
        self.recompute_duals();
        for j in self.rejected.drain(..) {
            self.is_rejected[j] = false;
        }
        true
    }

    fn recompute_duals(&mut self) {
        let mut y: Vec<f64> = self.basis.iter().map(|&j| self.cost[j]).collect();
        self.lu.btran(&mut y);
        for (j, col) in self.a.cols.iter().enumerate() {
            self.d[j] = if self.pos[j] != usize::MAX {
                0.0
            } else {
                self.cost[j] - col.iter().map(|&(i, v)| v * y[i]).sum::<f64>()
            };
        }
        for &j in &self.candidates {
            self.is_candidate[j] = false;
        }
        self.candidates.clear();
        for j in 0..self.d.len() {
            self.offer(j);
        }
    }

    /// Lists column `j` as a pricing candidate if its reduced cost qualifies.
    fn offer(&mut self, j: usize) {
        if self.d[j] > self.cost_tol && self.pos[j] == usize::MAX && !self.is_candidate[j] {
            self.is_candidate[j] = true;
            self.candidates.push(j);
        }
    }

    fn objective(&self) -> f64 {
        self.basis
            .iter()
            .zip(&self.xb)
            .map(|(&j, x)| self.cost[j] * x)
            .sum()
    }

    /// Fills `row_buf` with row `p` of `B^{-1} A` on the touched columns, which are nonbasic
    /// ([`RowParts`] skips the basic ones).
    fn pivot_row(&mut self, p: usize) {
        for &j in &self.touched {
            self.row_buf[j] = 0.0;
        }
        self.touched.clear();
        for &i in &self.rho_idx {
            self.rho[i] = 0.0;
        }
        self.rho_idx.clear();
        self.rho[p] = 1.0;
        self.rho_idx.push(p);
        self.lu.btran_sparse(&mut self.rho, &mut self.rho_idx);
        for &i in &self.rho_idx {
            let r = self.rho[i];
            if r.abs() < 1e-13 {
                continue;
            }
            for e in self.rows.nonbasic_row(i) {
                let (j, v) = (e.col as usize, e.value);
                if self.row_buf[j] == 0.0 {
                    self.touched.push(j);
                }
                self.row_buf[j] += r * v;
                if self.row_buf[j] == 0.0 {
                    // Keep it distinguishable from "untouched".
                    self.row_buf[j] = f64::MIN_POSITIVE;
                }
            }
        }
    }

    /// Basis position `p` leaves, column `q` (with FTRAN column `self.alpha`) enters.
    fn pivot(&mut self, p: usize, q: usize, update_weights: bool) -> bool {
        let ap = self.alpha[p];
        // The dual ratio test has already computed this row.
        if self.row_ready != Some(p) {
            self.pivot_row(p);
        }
        self.row_ready = None;
        let theta_d = self.d[q] / ap;
        let wq = self.weight[q];
        for &j in &self.touched {
            debug_assert_eq!(
                self.pos[j],
                usize::MAX,
                "the pivot row lists nonbasic columns"
            );
            if j == q {
                continue;
            }
            let r = self.row_buf[j];
            self.d[j] -= theta_d * r;
            if update_weights {
                let ratio = r / ap;
                self.weight[j] = self.weight[j].max(ratio * ratio * wq);
            }
            // As `offer`, in the same pass: a column whose reduced cost now qualifies.
            if self.d[j] > self.cost_tol && !self.is_candidate[j] {
                self.is_candidate[j] = true;
                self.candidates.push(j);
            }
        }
        let leaving = self.basis[p];
        self.d[q] = 0.0;
        self.d[leaving] = -theta_d;
        if update_weights {
            self.weight[leaving] = (wq / (ap * ap)).max(1.0);
        }
        // The primal ratio test may pick a row a hair below zero: step by 0 there, and move
        // the leaving value into the right-hand side (`b -= a_leaving * x_p`, a bound shift)
        // so that `B^{-1} b` stays equal to the updated values instead of drifting further
        // below zero at the next refactorisation. The clean-up restores the true `b`. The
        // dual simplex moves a negative basic value to zero.
        let theta = if self.dual_step {
            self.xb[p] / ap
        } else {
            let xp = self.xb[p];
            if xp < 0.0 {
                for &(i, v) in &self.a.cols[self.basis[p]] {
                    self.b[i] -= v * xp;
                }
            }
            xp.max(0.0) / ap
        };
        if theta != 0.0 {
            for &i in &self.alpha_idx {
                self.xb[i] -= theta * self.alpha[i];
            }
        }
        self.xb[p] = theta;
        let accurate = self.lu.update(p, ap);
        self.rows.enter(q, &self.a.cols[q]);
        self.rows.leave(leaving, &self.a.cols[leaving]);
        self.pos[leaving] = usize::MAX;
        self.pos[q] = p;
        self.basis[p] = q;
        self.offer(leaving);
        self.pivots += 1;
        #[cfg(test)]
        if accurate && self.pivots.is_multiple_of(8) {
            self.assert_factors_solve();
        }
        // Refactorise when an update lost accuracy, after `REFACTOR_EVERY` updates, or when
        // the updates added `FILL_LIMIT` times the factors' non-zeros.
        if !accurate
            || self.lu.updates() >= REFACTOR_EVERY
            || self.lu.update_nonzeros() as f64 > FILL_LIMIT * self.lu.lu_nonzeros() as f64
        {
            return self.refactor();
        }
        true
    }

    /// Test builds check every 8th pivot that the updated factors still solve the basis:
    /// FTRAN and BTRAN residuals against the basis columns themselves.
    #[cfg(test)]
    fn assert_factors_solve(&mut self) {
        let m = self.basis.len();
        let b: Vec<f64> = (0..m).map(|i| 1.0 + (i % 7) as f64).collect();
        let mut x = b.clone();
        self.lu.ftran(&mut x);
        let mut y = b.clone();
        self.lu.btran(&mut y);
        let scale = 1.0 + x.iter().chain(&y).fold(0.0f64, |a, v| a.max(v.abs()));
        let mut r = b.clone();
        for (p, &j) in self.basis.iter().enumerate() {
            let col = &self.a.cols[j];
            for &(i, v) in col {
                r[i] -= v * x[p];
            }
            let t: f64 = col.iter().map(|&(i, v)| v * y[i]).sum();
            assert!(
                (t - b[p]).abs() <= 1e-8 * scale,
                "pivot {}: y^T B at {p}: {t} vs {}",
                self.pivots,
                b[p]
            );
        }
        for (i, v) in r.iter().enumerate() {
            assert!(
                v.abs() <= 1e-8 * scale,
                "pivot {}: (b - B x)[{i}] = {v}",
                self.pivots
            );
        }
    }

    /// Dual simplex over columns `< allowed` from a dual feasible basis until the basic values
    /// are non-negative (within tolerance); `Optimal` then means primal feasible.
    fn dual_cleanup(&mut self, allowed: usize, limit: usize) -> Step {
        loop {
            if self.pivots >= limit {
                return Step::Limit;
            }
            let mut p = None;
            let mut worst = -1e-9;
            for (k, &x) in self.xb.iter().enumerate() {
                if x < worst {
                    worst = x;
                    p = Some(k);
                }
            }
            let Some(p) = p else {
                return Step::Optimal;
            };
            self.pivot_row(p);
            // Harris two-pass dual ratio test over `d_j / r_j` with `r_j < 0` (`d_j <= 0`).
            let mut bound = f64::INFINITY;
            for &j in &self.touched {
                let r = self.row_buf[j];
                if j < allowed && self.pos[j] == usize::MAX && r < -PIVOT_TOL {
                    bound = bound.min((self.d[j].min(0.0) - self.cost_tol) / r);
                }
            }
            if bound == f64::INFINITY {
                // No column can repair this row: the program looks infeasible.
                return Step::Unbounded;
            }
            let mut q = None;
            let mut best = 0.0;
            for &j in &self.touched {
                let r = self.row_buf[j];
                if j < allowed
                    && self.pos[j] == usize::MAX
                    && r < -PIVOT_TOL
                    && self.d[j].min(0.0) / r <= bound
                    && -r > best
                {
                    best = -r;
                    q = Some(j);
                }
            }
            let q = q.expect("the Harris pass keeps the minimum-ratio column");
            self.ftran_column(q);
            let ok = self.alpha[p].abs() > PIVOT_TOL && {
                self.dual_step = true;
                self.row_ready = Some(p);
                let ok = self.pivot(p, q, false);
                self.dual_step = false;
                ok
            };
            if !ok {
                return Step::Singular;
            }
        }
    }

    /// B^-1 times column `q`, into `alpha` and `alpha_idx`.
    fn ftran_column(&mut self, q: usize) {
        for &i in &self.alpha_idx {
            self.alpha[i] = 0.0;
        }
        self.alpha_idx.clear();
        for &(i, v) in &self.a.cols[q] {
            self.alpha[i] = v;
            self.alpha_idx.push(i);
        }
        self.lu.ftran_sparse(&mut self.alpha, &mut self.alpha_idx);
    }

    /// Primal simplex over columns `< allowed` until optimal, unbounded or out of pivots.
    fn optimize(
        &mut self,
        allowed: usize,
        limit: usize,
        progress: Option<ProgressFn>,
        phase: &str,
    ) -> Step {
        for w in self.weight.iter_mut() {
            *w = 1.0;
        }
        loop {
            if self.pivots >= limit {
                return Step::Limit;
            }
            let mut best = 0.0;
            let mut entering: Option<usize> = None;
            let mut k = 0;
            while k < self.candidates.len() {
                let j = self.candidates[k];
                let dj = self.d[j];
                if dj <= self.cost_tol || self.pos[j] != usize::MAX {
                    self.is_candidate[j] = false;
                    self.candidates.swap_remove(k);
                    continue;
                }
                k += 1;
                // Ties go to the lowest column, as a scan in column order would pick.
                if j < allowed
                    && !self.is_rejected[j]
                    && (dj * dj > best * self.weight[j]
                        || (dj * dj == best * self.weight[j] && entering.is_some_and(|e| j < e)))
                {
                    best = dj * dj / self.weight[j];
                    entering = Some(j);
                }
            }
            let Some(q) = entering else {
                return Step::Optimal;
            };
            self.ftran_column(q);
            let mut theta = f64::INFINITY;
            for &i in &self.alpha_idx {
                let a = self.alpha[i];
                if a > PIVOT_TOL {
                    theta = theta.min((self.xb[i].max(0.0) + PIVOT_TOL) / a);
                }
            }
            if theta == f64::INFINITY {
                // A ray in floats is often rounding (a stale reduced cost, an entry lost
                // below the tolerance): refactorise, and if the column still looks unbounded
                // with fresh values, set it aside until the next refactorisation. Only a ray
                // that persists after many such rejections is reported (and the exact layer
                // checks it).
                if self.lu.updates() > 0 {
                    if !self.refactor() {
                        return Step::Singular;
                    }
                    continue;
                }
                self.is_rejected[q] = true;
                self.rejected.push(q);
                self.rejections += 1;
                if self.rejections > 1000 {
                    return Step::Unbounded;
                }
                continue;
            }
            // The largest pivot among the rows within the bound; ties go to the lowest row.
            let mut leave = usize::MAX;
            let mut best_a = 0.0;
            for &k in &self.alpha_idx {
                let a = self.alpha[k];
                if a > PIVOT_TOL
                    && self.xb[k].max(0.0) / a <= theta
                    && (a > best_a || (a == best_a && k < leave))
                {
                    best_a = a;
                    leave = k;
                }
            }
            assert!(
                leave != usize::MAX,
                "the Harris pass keeps the minimum-ratio row"
            );
            let p = leave;
            if !self.pivot(p, q, true) {
                return Step::Singular;
            }
            if let Some(report) = progress.filter(|_| self.pivots.is_multiple_of(256)) {
                report(&LpProgress {
                    phase,
                    pivots: self.pivots,
                    objective: self.objective(),
                });
            }
        }
    }
}

/// Runs the float simplex on a standard form, reporting to `progress` as it goes.
// Never inlined: the benchmarks count its instructions (`callgrind --toggle-collect`).
#[inline(never)]
pub(crate) fn solve(sf: &StandardForm, progress: Option<ProgressFn>) -> FloatOutcome {
    let m = sf.rows;
    let n = sf.cols.len();
    let art_rows: Vec<usize> = (0..m).filter(|&i| sf.unit_col[i].is_none()).collect();
    let total = n + art_rows.len();
    let mut cols: Vec<Vec<(usize, f64)>> = sf
        .cols
        .iter()
        .map(|c| c.iter().map(|(i, v)| (*i, rational_to_f64(v))).collect())
        .collect();
    for &i in &art_rows {
        cols.push(vec![(i, 1.0)]);
    }
    let a = Matrix { cols };
    let b0: Vec<f64> = sf.b.iter().map(rational_to_f64).collect();
    // Deterministic perturbation against degeneracy: `b + B delta` with a small positive
    // `delta`, so the starting basis stays feasible with every basic value moved off zero.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut jitter = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        0.5 + (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let crash = sf.start.as_ref().and_then(|start| {
        let cols: Vec<&[(usize, f64)]> = start.iter().map(|&j| a.cols[j].as_slice()).collect();
        let mut seen = vec![false; n];
        if start.iter().any(|&j| std::mem::replace(&mut seen[j], true)) {
            return None;
        }
        let mut lu = SparseLu::factor(m, &cols).ok()?;
        let mut x0 = b0.clone();
        lu.ftran(&mut x0);
        if x0.iter().any(|&v| v < -1e-9 || !v.is_finite()) {
            return None;
        }
        let mut b = b0.clone();
        for (k, col) in cols.iter().enumerate() {
            let delta = 1e-7 * jitter() * (1.0 + x0[k].abs());
            for &(i, v) in col.iter() {
                b[i] += v * delta;
            }
        }
        Some((start.clone(), b, lu))
    });
    let crashed = crash.is_some();
    let (basis, b, lu) = match crash {
        Some(c) => c,
        None => {
            let mut b = vec![0.0; m];
            let mut basis = vec![0; m];
            for i in 0..m {
                b[i] = b0[i] + 1e-7 * jitter() * (1.0 + b0[i].abs());
                if let Some(j) = sf.unit_col[i] {
                    basis[i] = j;
                }
            }
            for (k, &i) in art_rows.iter().enumerate() {
                basis[i] = n + k;
            }
            let identity: Vec<&[(usize, f64)]> =
                basis.iter().map(|&j| a.cols[j].as_slice()).collect();
            let lu =
                SparseLu::factor(m, &identity).expect("the starting basis is a permuted identity");
            (basis, b, lu)
        }
    };
    let mut pos = vec![usize::MAX; total];
    for (p, &j) in basis.iter().enumerate() {
        pos[j] = p;
    }
    let mut cost = vec![0.0; total];
    if !crashed {
        for c in cost.iter_mut().skip(n) {
            *c = -1.0;
        }
    }
    let mut s = Simplex {
        a: &a,
        rows: RowParts::new(&a, m, |j| pos[j] != usize::MAX),
        b,
        cost,
        basis,
        pos,
        lu,
        xb: Vec::new(),
        d: vec![0.0; total],
        weight: vec![1.0; total],
        pivots: 0,
        row_buf: vec![0.0; total],
        touched: Vec::new(),
        rho: vec![0.0; m],
        rho_idx: Vec::new(),
        alpha: vec![0.0; m],
        alpha_idx: Vec::new(),
        dual_step: false,
        row_ready: None,
        candidates: Vec::new(),
        is_candidate: vec![false; total],
        cost_tol: COST_TOL,
        is_rejected: vec![false; total],
        rejected: Vec::new(),
        rejections: 0,
    };
    let limit = 50 * (m + n) + 1000;
    let singular = || FloatOutcome::Stalled {
        reason: "the float basis became numerically singular".to_string(),
    };
    let stalled = || FloatOutcome::Stalled {
        reason: format!("no optimum after {limit} float pivots"),
    };
    let outcome = (|| {
        if !s.refactor() {
            return singular();
        }
        if !crashed && !art_rows.is_empty() {
            match s.optimize(total, limit, progress, "phase 1") {
                Step::Optimal => {}
                Step::Unbounded | Step::Singular => return singular(),
                Step::Limit => return stalled(),
            }
            if s.objective() < -1e-6 {
                return FloatOutcome::Infeasible { pivots: s.pivots };
            }
            // Pivot the remaining (zero) artificials out where a real column can replace them;
            // rows where none can are redundant.
            for p in 0..m {
                if s.basis[p] < n {
                    continue;
                }
                s.pivot_row(p);
                let mut best = (1e-7, None);
                for &j in &s.touched {
                    let v = s.row_buf[j].abs();
                    if j < n && s.pos[j] == usize::MAX && v > best.0 {
                        best = (v, Some(j));
                    }
                }
                if let (_, Some(q)) = best {
                    s.ftran_column(q);
                    if s.alpha[p].abs() > 1e-9 && !s.pivot(p, q, false) {
                        return singular();
                    }
                }
            }
        }
        for (j, c) in s.cost.iter_mut().enumerate() {
            *c = if j < n {
                rational_to_f64(&sf.cost[j])
            } else {
                0.0
            };
        }
        if !s.refactor() {
            return singular();
        }
        let basis_out = |s: &Simplex| -> Vec<Option<usize>> {
            s.basis
                .iter()
                .map(|&j| if j < n { Some(j) } else { None })
                .collect()
        };
        match s.optimize(n, limit, progress, "phase 2") {
            Step::Optimal => {
                // Drop the perturbation and clean up: the perturbed optimum can be slightly
                // primal infeasible for the true right-hand sides (dual simplex repairs it) and
                // that can leave reduced costs slightly positive (primal simplex again).
                s.b = b0.clone();
                // Reduced costs of sequence-form LPs are products of small chance
                // probabilities: a column the loose tolerance left out can still improve.
                s.cost_tol = FINAL_COST_TOL;
                for _ in 0..8 {
                    if !s.refactor() {
                        return singular();
                    }
                    match s.dual_cleanup(n, limit) {
                        Step::Optimal => {}
                        Step::Unbounded | Step::Singular | Step::Limit => break,
                    }
                    match s.optimize(n, limit, progress, "clean-up") {
                        Step::Optimal => {}
                        Step::Unbounded => {
                            return FloatOutcome::Unbounded {
                                basis: basis_out(&s),
                                pivots: s.pivots,
                            }
                        }
                        Step::Singular => return singular(),
                        Step::Limit => return stalled(),
                    }
                    if s.xb.iter().all(|&x| x >= -1e-9) {
                        break;
                    }
                }
                FloatOutcome::Optimal {
                    basis: basis_out(&s),
                    pivots: s.pivots,
                }
            }
            Step::Unbounded => FloatOutcome::Unbounded {
                basis: basis_out(&s),
                pivots: s.pivots,
            },
            Step::Singular => singular(),
            Step::Limit => stalled(),
        }
    })();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After any sequence of basis changes, each row of [`RowParts`] lists exactly the row's
    /// nonbasic columns first (with their values), then its basic ones, and every column's
    /// slots point at its own entries.
    #[test]
    fn row_parts_keep_nonbasic_columns_first() {
        let (m, n) = (7, 15);
        let mut seed = 12345u64;
        let mut next = move |k: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % k
        };
        let cols: Vec<Vec<(usize, f64)>> = (0..n)
            .map(|j| {
                let mut rows: Vec<usize> = (0..m).filter(|_| next(3) == 0).collect();
                rows.push(j % m);
                rows.sort_unstable();
                rows.dedup();
                rows.iter().map(|&i| (i, (1 + i + 10 * j) as f64)).collect()
            })
            .collect();
        let a = Matrix { cols };
        let mut basic: Vec<bool> = (0..n).map(|j| j < m).collect();
        let mut parts = RowParts::new(&a, m, |j| basic[j]);
        for step in 0..200 {
            if step > 0 {
                let enter = (0..n).filter(|&j| !basic[j]).nth(next(n - m)).unwrap();
                let leave = (0..n).filter(|&j| basic[j]).nth(next(m)).unwrap();
                parts.enter(enter, &a.cols[enter]);
                parts.leave(leave, &a.cols[leave]);
                basic[enter] = true;
                basic[leave] = false;
            }
            for i in 0..m {
                let mut expected: Vec<(u32, f64)> = (0..n)
                    .filter(|&j| !basic[j])
                    .flat_map(|j| {
                        a.cols[j]
                            .iter()
                            .filter(|e| e.0 == i)
                            .map(move |e| (j as u32, e.1))
                    })
                    .collect();
                let mut got: Vec<(u32, f64)> = parts
                    .nonbasic_row(i)
                    .iter()
                    .map(|e| (e.col, e.value))
                    .collect();
                expected.sort_by_key(|e| e.0);
                got.sort_by_key(|e| e.0);
                assert_eq!(got, expected, "step {step}, row {i}");
            }
            for (j, col) in a.cols.iter().enumerate() {
                for (k, &(i, v)) in col.iter().enumerate() {
                    let at = parts.slot[parts.col_start[j] + k];
                    let e = parts.entries[at];
                    assert_eq!((e.col as usize, e.k as usize, e.value), (j, k, v));
                    assert!((parts.start[i]..parts.start[i + 1]).contains(&at));
                }
            }
        }
    }

    /// The float simplex on real game LPs (thousands of Forrest–Tomlin updates; test builds
    /// check the FTRAN/BTRAN residuals of the updated factors every 8th pivot) reaches an
    /// optimal basis.
    #[test]
    fn updated_factors_solve_game_bases_to_the_optimum() {
        for (spec, min_pivots) in [("leduc", 1000), ("liars-dice(dice=1,sides=4)", 300)] {
            let game = crate::games::builtin(spec).unwrap();
            let lp = crate::solve::sequence_form::build_lp(&game);
            let sf = StandardForm::new(&lp.lp);
            match solve(&sf, None) {
                FloatOutcome::Optimal { pivots, .. } => {
                    assert!(pivots >= min_pivots, "{spec}: {pivots}")
                }
                other => panic!("{spec}: {other:?}"),
            }
        }
    }
}
