//! Lemke's algorithm with a covering vector on an exact integer tableau.
//!
//! The LCP is `w = q + M z + d z0`, `w, z, z0 >= 0`, `w_i z_i = 0`. The tableau holds
//! `B^{-1} [I | -M | -d | q]` scaled to integers in the fraction-free (Bareiss) form: every
//! basic column has the common coefficient `det`, and each pivot divides exactly by the previous
//! one, so no gcd is ever taken and every number is a minor of the integer input. Degenerate
//! ties in the ratio test are broken by the lexicographic rule on the rows of `B^{-1}` (the
//! current `w` columns), which keeps every basis lexico-feasible and distinct from the ones
//! before: the path never visits a basis twice, so it cannot loop.

use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use std::cmp::Ordering;

/// How a run of Lemke's algorithm ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LemkeEnd {
    /// `z0` left the basis: the basis is a complementary solution.
    Solution,
    /// The entering column has no positive entry: the path ends on a secondary ray.
    Ray,
    /// The pivot budget ran out.
    Budget,
    /// The caller's interrupt said stop.
    Interrupted,
}

/// A dense fraction-free Lemke tableau.
pub(crate) struct LemkeTableau {
    /// Rows of the LCP (`w` and `z` have this many entries each).
    n: usize,
    /// `rows[i]`: `w` columns `0..n`, `z` columns `n..2n`, `z0` column `2n`, right-hand side
    /// `2n + 1`.
    rows: Vec<Vec<BigInt>>,
    /// The basic variable of each row (`0..n` is `w`, `n..2n` is `z`, `2n` is `z0`).
    basis: Vec<usize>,
    /// The common coefficient of the basic columns.
    det: BigInt,
    /// Pivots taken.
    pub pivots: u64,
}

impl LemkeTableau {
    /// The tableau of `w - M z - d z0 = q` with `w` basic; `m` is given by rows of
    /// `(column, value)`.
    pub(crate) fn new(m: &[Vec<(usize, BigInt)>], q: &[BigInt], d: &[BigInt]) -> Self {
        let n = q.len();
        let width = 2 * n + 2;
        let rows = (0..n)
            .map(|i| {
                let mut row = vec![BigInt::zero(); width];
                row[i] = BigInt::from(1);
                for (j, v) in &m[i] {
                    row[n + j] = -v;
                }
                row[2 * n] = -&d[i];
                row[2 * n + 1] = q[i].clone();
                row
            })
            .collect();
        LemkeTableau {
            n,
            rows,
            basis: (0..n).collect(),
            det: BigInt::from(1),
            pivots: 0,
        }
    }

    /// The complement of variable `v` (`w_i` and `z_i`).
    fn complement(&self, v: usize) -> usize {
        if v < self.n {
            v + self.n
        } else {
            v - self.n
        }
    }

    /// Compares rows `a` and `b` by `(rhs, B^{-1} row) / column entry` lexicographically (both
    /// entries of `col` positive).
    fn lex_cmp(&self, a: usize, b: usize, col: usize) -> Ordering {
        let (ra, rb) = (&self.rows[a], &self.rows[b]);
        let (ca, cb) = (&ra[col], &rb[col]);
        let rhs = 2 * self.n + 1;
        std::iter::once(rhs)
            .chain(0..self.n)
            .map(|k| (&ra[k] * cb).cmp(&(&rb[k] * ca)))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    }

    /// The leaving row for entering column `col` by the lexicographic minimum ratio, or `None`
    /// when no entry is positive.
    fn leaving(&self, col: usize) -> Option<usize> {
        let mut best: Option<usize> = None;
        for i in 0..self.n {
            if self.rows[i][col].is_positive()
                && best.is_none_or(|b| self.lex_cmp(i, b, col) == Ordering::Less)
            {
                best = Some(i);
            }
        }
        best
    }

    /// Pivots column `col` into row `r` (fraction-free: exact division by the old `det`).
    fn pivot(&mut self, r: usize, col: usize) {
        let pivot_row = std::mem::take(&mut self.rows[r]);
        let p = pivot_row[col].clone();
        for (i, row) in self.rows.iter_mut().enumerate() {
            if i == r {
                continue;
            }
            let f = row[col].clone();
            for (x, y) in row.iter_mut().zip(&pivot_row) {
                let v = &*x * &p - &f * y;
                *x = v / &self.det;
            }
        }
        // The pivot row keeps its integers: its basic coefficient `p` becomes the new `det`.
        let mut pivot_row = pivot_row;
        if p.is_negative() {
            for x in &mut pivot_row {
                *x = -std::mem::take(x);
            }
        }
        self.rows[r] = pivot_row;
        // Keep `det` positive: rows other than the pivot row were multiplied by `p`.
        if p.is_negative() {
            for (i, row) in self.rows.iter_mut().enumerate() {
                if i != r {
                    for x in row.iter_mut() {
                        *x = -std::mem::take(x);
                    }
                }
            }
        }
        self.det = p.abs();
        self.basis[r] = col;
        self.pivots += 1;
    }

    /// Runs Lemke's algorithm from the all-`w` basis, at most `budget` pivots.
    pub(crate) fn run(
        &mut self,
        budget: Option<u64>,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> LemkeEnd {
        let n = self.n;
        let z0 = 2 * n;
        let rhs = 2 * n + 1;
        // First pivot: z0 enters where `q + d z0 >= 0` binds last (lexicographic maximum of
        // `(-q_i, -e_i) / d_i` over rows with `d_i > 0`; the column holds `-d`).
        let mut first: Option<usize> = None;
        if (0..n).all(|i| !self.rows[i][rhs].is_negative()) {
            return LemkeEnd::Solution;
        }
        for i in 0..n {
            // Column entry -d_i < 0 means d_i > 0.
            if self.rows[i][z0].is_negative() {
                first = match first {
                    None => Some(i),
                    // Maximum of (-q_i)/d_i: compare with d = -col (positive).
                    Some(b) => {
                        if self.lex_cmp_neg(i, b, z0) == Ordering::Greater {
                            Some(i)
                        } else {
                            Some(b)
                        }
                    }
                };
            }
        }
        let Some(r) = first else {
            return LemkeEnd::Ray;
        };
        let mut leaving_var = self.basis[r];
        self.pivot(r, z0);
        loop {
            if leaving_var == z0 {
                return LemkeEnd::Solution;
            }
            if budget.is_some_and(|b| self.pivots >= b) {
                return LemkeEnd::Budget;
            }
            if interrupted() {
                return LemkeEnd::Interrupted;
            }
            let entering = self.complement(leaving_var);
            let Some(r) = self.leaving(entering) else {
                return LemkeEnd::Ray;
            };
            leaving_var = self.basis[r];
            self.pivot(r, entering);
        }
    }

    /// Compares `(-rhs, -B^{-1} row) / d` of rows `a` and `b`, where `d = -column` is positive.
    fn lex_cmp_neg(&self, a: usize, b: usize, col: usize) -> Ordering {
        let (ra, rb) = (&self.rows[a], &self.rows[b]);
        // d_a = -ra[col] > 0; (-x_a)/d_a vs (-x_b)/d_b  <=>  x_a / ra[col] vs x_b / rb[col].
        let (da, db) = (-&ra[col], -&rb[col]);
        let rhs = 2 * self.n + 1;
        std::iter::once(rhs)
            .chain(0..self.n)
            .map(|k| ((-&ra[k]) * &db).cmp(&((-&rb[k]) * &da)))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    }

    /// The value of each `z_i` at the current basis, as `(numerator, common denominator)`.
    pub(crate) fn z_values(&self) -> (Vec<BigInt>, BigInt) {
        let n = self.n;
        let mut z = vec![BigInt::zero(); n];
        for (i, &v) in self.basis.iter().enumerate() {
            if (n..2 * n).contains(&v) {
                z[v - n] = self.rows[i][2 * n + 1].clone();
            }
        }
        (z, self.det.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> Vec<BigInt> {
        v.iter().map(|&x| BigInt::from(x)).collect()
    }

    #[test]
    fn solves_a_small_positive_definite_lcp() {
        // M = [[2, 1], [1, 2]], q = (-5, -6): z = (4/3, 7/3), w = 0.
        let m = vec![
            vec![(0, BigInt::from(2)), (1, BigInt::from(1))],
            vec![(0, BigInt::from(1)), (1, BigInt::from(2))],
        ];
        let mut t = LemkeTableau::new(&m, &ints(&[-5, -6]), &ints(&[1, 1]));
        assert_eq!(t.run(None, &mut || false), LemkeEnd::Solution);
        let (z, den) = t.z_values();
        assert_eq!(&z[0] * 3, &den * 4);
        assert_eq!(&z[1] * 3, &den * 7);
    }

    #[test]
    fn nonnegative_q_is_solved_at_once() {
        let m = vec![vec![(0, BigInt::from(1))]];
        let mut t = LemkeTableau::new(&m, &ints(&[3]), &ints(&[1]));
        assert_eq!(t.run(None, &mut || false), LemkeEnd::Solution);
        assert_eq!(t.pivots, 0);
    }
}
