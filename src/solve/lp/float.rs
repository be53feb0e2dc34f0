//! A dense floating-point two-phase tableau simplex that only has to find a good basis: the
//! exact layer ([`super::guided`]) recomputes and certifies everything it returns.
//!
//! Devex pricing, a Harris two-pass ratio test, and a small random perturbation of the
//! right-hand sides against the heavy degeneracy of game LPs. Pivots touch only the non-zeros
//! of the pivot row, so sparse tableaux pivot fast.

use crate::scalar::rational_to_f64;
use crate::solve::simplex::StandardForm;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

/// What the float simplex found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FloatOutcome {
    /// An (approximately) optimal basis: `basis[row]` is a standard-form column, or
    /// `None` where an artificial variable is still basic (a redundant row).
    Optimal {
        /// Basic column per row.
        basis: Vec<Option<usize>>,
        /// Pivots made.
        pivots: usize,
    },
    /// The phase-1 optimum left artificial variables positive.
    Infeasible,
    /// A column with positive reduced cost had no positive entry.
    Unbounded,
    /// The iteration limit was reached.
    Stalled,
}

const PIVOT_TOL: f64 = 1e-9;
const COST_TOL: f64 = 1e-9;
const DROP_TOL: f64 = 1e-13;
/// Row updates per pivot (rows x non-zeros of the pivot row) from which rows go to rayon.
const PARALLEL_UPDATES: usize = 1 << 20;

struct Tableau {
    m: usize,
    width: usize,
    t: Vec<f64>,
    /// Reduced-cost row; `d[width - 1]` holds minus the objective.
    d: Vec<f64>,
    basis: Vec<usize>,
    is_basic: Vec<bool>,
    pivots: usize,
    nz: Vec<usize>,
}

impl Tableau {
    fn rhs(&self) -> usize {
        self.width - 1
    }

    fn at(&self, i: usize, j: usize) -> f64 {
        self.t[i * self.width + j]
    }

    fn pivot(&mut self, r: usize, j: usize) {
        let w = self.width;
        let inv = 1.0 / self.t[r * w + j];
        self.nz.clear();
        {
            let row = &mut self.t[r * w..(r + 1) * w];
            for (k, v) in row.iter_mut().enumerate() {
                if *v != 0.0 {
                    *v *= inv;
                    if v.abs() < DROP_TOL {
                        *v = 0.0;
                    } else {
                        self.nz.push(k);
                    }
                }
            }
            row[j] = 1.0;
        }
        let (before, rest) = self.t.split_at_mut(r * w);
        let (prow, after) = rest.split_at_mut(w);
        let nz = &self.nz;
        let eliminate = |row: &mut [f64]| {
            let f = row[j];
            if f == 0.0 {
                return;
            }
            for &k in nz {
                row[k] -= f * prow[k];
            }
            row[j] = 0.0;
        };
        // Rows are independent, so splitting them over threads gives bit-identical results;
        // below about a million updates per pivot the thread pool costs more than it saves.
        if self.m * nz.len() >= PARALLEL_UPDATES {
            before.par_chunks_exact_mut(w).for_each(eliminate);
            after.par_chunks_exact_mut(w).for_each(eliminate);
        } else {
            before.chunks_exact_mut(w).for_each(eliminate);
            after.chunks_exact_mut(w).for_each(eliminate);
        }
        eliminate(&mut self.d);
        self.is_basic[self.basis[r]] = false;
        self.is_basic[j] = true;
        self.basis[r] = j;
        self.pivots += 1;
    }

    fn set_costs(&mut self, cost: &[f64]) {
        let w = self.width;
        self.d.iter_mut().for_each(|v| *v = 0.0);
        self.d[..cost.len()].copy_from_slice(cost);
        for i in 0..self.m {
            let cb = cost[self.basis[i]];
            if cb != 0.0 {
                for k in 0..w {
                    self.d[k] -= cb * self.t[i * w + k];
                }
            }
        }
        for i in 0..self.m {
            self.d[self.basis[i]] = 0.0;
        }
    }

    /// Maximises the current cost row over columns `< allowed`; `Err(true)` = unbounded,
    /// `Err(false)` = iteration limit.
    fn optimize(
        &mut self,
        allowed: usize,
        limit: usize,
        bar: &ProgressBar,
        phase: &str,
    ) -> Result<(), bool> {
        let rhs = self.rhs();
        // Devex reference weights (Forrest and Goldfarb's approximate steepest edge): pricing
        // by d_j^2 / w_j instead of d_j takes far fewer pivots on game LPs, and the weights
        // cost one pass over the pivot row per pivot.
        let mut weight = vec![1.0f64; allowed];
        loop {
            if self.pivots >= limit {
                return Err(false);
            }
            let mut best = 0.0;
            let mut entering = None;
            for j in 0..allowed {
                let dj = self.d[j];
                if dj > COST_TOL && !self.is_basic[j] && dj * dj > best * weight[j] {
                    best = dj * dj / weight[j];
                    entering = Some(j);
                }
            }
            let Some(j) = entering else { return Ok(()) };
            let mut theta = f64::INFINITY;
            for i in 0..self.m {
                let a = self.at(i, j);
                if a > PIVOT_TOL {
                    theta = theta.min((self.at(i, rhs).max(0.0) + PIVOT_TOL) / a);
                }
            }
            if theta == f64::INFINITY {
                return Err(true);
            }
            let mut leave = None;
            let mut best_a = 0.0;
            for i in 0..self.m {
                let a = self.at(i, j);
                if a > PIVOT_TOL && self.at(i, rhs).max(0.0) / a <= theta && a > best_a {
                    best_a = a;
                    leave = Some(i);
                }
            }
            let r = leave.expect("the Harris pass keeps the minimum-ratio row");
            let w = self.width;
            let alpha_q = self.t[r * w + j];
            let wq = weight[j];
            for (k, &a) in self.t[r * w..r * w + allowed].iter().enumerate() {
                if a != 0.0 && k != j && !self.is_basic[k] {
                    let ratio = a / alpha_q;
                    weight[k] = weight[k].max(ratio * ratio * wq);
                }
            }
            let leaving = self.basis[r];
            if leaving < allowed {
                weight[leaving] = (wq / (alpha_q * alpha_q)).max(1.0);
            }
            self.pivot(r, j);
            if self.pivots.is_multiple_of(64) {
                bar.set_position(self.pivots as u64);
                bar.set_message(format!("{phase}, objective {:.12}", -self.d[rhs]));
            }
        }
    }
}

/// Runs the float simplex on a standard form (`show_progress` draws a bar on a terminal).
pub(crate) fn solve(sf: &StandardForm, show_progress: bool) -> FloatOutcome {
    let m = sf.rows;
    let n = sf.cols.len();
    let art_rows: Vec<usize> = (0..m).filter(|&i| sf.unit_col[i].is_none()).collect();
    let width = n + art_rows.len() + 1;
    let mut t = vec![0.0; m * width];
    for (j, col) in sf.cols.iter().enumerate() {
        for (i, v) in col {
            t[i * width + j] = rational_to_f64(v);
        }
    }
    // Deterministic perturbation of the right-hand sides against degeneracy.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut basis = vec![0; m];
    for i in 0..m {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let u = (seed >> 11) as f64 / (1u64 << 53) as f64;
        let b = rational_to_f64(&sf.b[i]);
        t[i * width + width - 1] = b + 1e-7 * (0.5 + u) * (1.0 + b.abs());
        if let Some(j) = sf.unit_col[i] {
            basis[i] = j;
        }
    }
    for (k, &i) in art_rows.iter().enumerate() {
        t[i * width + n + k] = 1.0;
        basis[i] = n + k;
    }
    let mut is_basic = vec![false; width];
    for &j in &basis {
        is_basic[j] = true;
    }
    let mut tab = Tableau {
        m,
        width,
        t,
        d: vec![0.0; width],
        basis,
        is_basic,
        pivots: 0,
        nz: Vec::with_capacity(width),
    };
    let bar = if show_progress {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template(
                "{spinner} float simplex: {pos} pivots, {msg} [{elapsed}]",
            )
            .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    };
    let limit = 50 * (m + n) + 1000;
    let outcome = (|| {
        if !art_rows.is_empty() {
            let mut cost1 = vec![0.0; width - 1];
            for c in cost1.iter_mut().skip(n) {
                *c = -1.0;
            }
            tab.set_costs(&cost1);
            match tab.optimize(width - 1, limit, &bar, "phase 1") {
                Ok(()) => {}
                Err(_) => return FloatOutcome::Stalled,
            }
            if -tab.d[width - 1] < -1e-6 {
                return FloatOutcome::Infeasible;
            }
            // Pivot remaining (zero) artificials out where a real column can replace them.
            for i in 0..m {
                if tab.basis[i] >= n {
                    let mut best = (PIVOT_TOL, None);
                    for j in 0..n {
                        let a = tab.at(i, j).abs();
                        if a > best.0 && !tab.is_basic[j] {
                            best = (a, Some(j));
                        }
                    }
                    if let (_, Some(j)) = best {
                        tab.pivot(i, j);
                    }
                }
            }
        }
        let cost2: Vec<f64> = sf
            .cost
            .iter()
            .map(rational_to_f64)
            .chain(std::iter::repeat_n(0.0, art_rows.len()))
            .collect();
        tab.set_costs(&cost2);
        match tab.optimize(n, limit, &bar, "phase 2") {
            Ok(()) => FloatOutcome::Optimal {
                basis: tab
                    .basis
                    .iter()
                    .map(|&j| if j < n { Some(j) } else { None })
                    .collect(),
                pivots: tab.pivots,
            },
            Err(true) => FloatOutcome::Unbounded,
            Err(false) => FloatOutcome::Stalled,
        }
    })();
    bar.finish_and_clear();
    outcome
}
