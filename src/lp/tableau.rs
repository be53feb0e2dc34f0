//! The dense exact two-phase tableau simplex with Bland's rule: the reference method, for
//! small programs (its memory is rows x columns big rationals).

use super::{LpError, StandardForm};
use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};

struct Tableau {
    /// `m` rows of `width` entries: structural columns, one artificial per row, then rhs.
    t: Vec<Vec<Rational>>,
    basis: Vec<usize>,
    n: usize,
    pivots: usize,
}

impl Tableau {
    fn rhs(&self) -> usize {
        self.n + self.t.len()
    }

    fn pivot(&mut self, r: usize, j: usize) {
        let inv = Rational::one() / &self.t[r][j];
        for v in self.t[r].iter_mut() {
            if !v.is_zero() {
                *v *= &inv;
            }
        }
        let (before, rest) = self.t.split_at_mut(r);
        let (prow, after) = rest.split_first_mut().expect("pivot row exists");
        for row in before.iter_mut().chain(after.iter_mut()) {
            if row[j].is_zero() {
                continue;
            }
            let f = row[j].clone();
            for (v, p) in row.iter_mut().zip(prow.iter()) {
                if !p.is_zero() {
                    *v -= &f * p;
                }
            }
        }
        self.basis[r] = j;
        self.pivots += 1;
    }

    /// Maximises `cost` (indexed over all columns, artificials included) with Bland's rule,
    /// letting only columns with `allowed(j)` enter.
    fn optimize(&mut self, cost: &[Rational], allowed: impl Fn(usize) -> bool) -> bool {
        let width = self.rhs();
        loop {
            // Reduced costs d_j = c_j - c_B^T column_j; recomputed per pivot for simplicity
            // (this method is the small-program reference).
            let mut entering = None;
            for j in 0..width {
                if !allowed(j) || self.basis.contains(&j) {
                    continue;
                }
                let mut d = cost[j].clone();
                for (i, row) in self.t.iter().enumerate() {
                    if !row[j].is_zero() {
                        d -= &cost[self.basis[i]] * &row[j];
                    }
                }
                if d.is_positive() {
                    entering = Some(j);
                    break;
                }
            }
            let Some(j) = entering else { return true };
            let rhs = self.rhs();
            let mut leave: Option<(usize, Rational)> = None;
            for (i, row) in self.t.iter().enumerate() {
                if row[j].is_positive() {
                    let ratio = &row[rhs] / &row[j];
                    let better = match &leave {
                        None => true,
                        Some((li, lr)) => {
                            ratio < *lr || (ratio == *lr && self.basis[i] < self.basis[*li])
                        }
                    };
                    if better {
                        leave = Some((i, ratio));
                    }
                }
            }
            let Some((r, _)) = leave else { return false };
            self.pivot(r, j);
        }
    }
}

/// Returns the standard-form optimum `x`, duals `y` and the pivot count.
pub(crate) fn solve(sf: &StandardForm) -> Result<(Vec<Rational>, Vec<Rational>, usize), LpError> {
    let m = sf.rows;
    let n = sf.cols.len();
    let width = n + m + 1;
    let mut t = vec![vec![Rational::zero(); width]; m];
    for (j, col) in sf.cols.iter().enumerate() {
        for (i, v) in col {
            t[*i][j] = v.clone();
        }
    }
    for i in 0..m {
        t[i][n + i] = Rational::one();
        t[i][n + m] = sf.b[i].clone();
    }
    let mut tab = Tableau {
        t,
        basis: (n..n + m).collect(),
        n,
        pivots: 0,
    };
    // Phase 1: maximise minus the sum of artificials.
    let mut cost1 = vec![Rational::zero(); n + m];
    for c in cost1.iter_mut().skip(n) {
        *c = -Rational::one();
    }
    tab.optimize(&cost1, |j| j < n + m);
    for i in 0..m {
        if tab.basis[i] >= n && !tab.t[i][n + m].is_zero() {
            return Err(LpError::Infeasible);
        }
    }
    // Drive artificials out of the basis where a structural column can replace them;
    // rows where none can are redundant and keep a zero artificial.
    for i in 0..m {
        if tab.basis[i] >= n {
            if let Some(j) = (0..n).find(|&j| !tab.t[i][j].is_zero()) {
                tab.pivot(i, j);
            }
        }
    }
    let mut cost2 = sf.cost.clone();
    cost2.extend(std::iter::repeat_n(Rational::zero(), m));
    if !tab.optimize(&cost2, |j| j < n) {
        return Err(LpError::Unbounded);
    }
    let mut x = vec![Rational::zero(); n];
    for i in 0..m {
        if tab.basis[i] < n {
            x[tab.basis[i]] = tab.t[i][n + m].clone();
        }
    }
    // The artificial columns hold B^{-1}, so y^T = c_B^T B^{-1}.
    let mut y = vec![Rational::zero(); m];
    for (k, row) in tab.t.iter().enumerate() {
        let cb = &cost2[tab.basis[k]];
        if cb.is_zero() {
            continue;
        }
        for i in 0..m {
            if !row[n + i].is_zero() {
                y[i] += cb * &row[n + i];
            }
        }
    }
    Ok((x, y, tab.pivots))
}
