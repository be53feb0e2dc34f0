//! Exact sparse LU factorisation of a square rational matrix (Markowitz-style pivot order:
//! the sparsest column first, then its sparsest row), for solving `B x = b` and `y^T B = c^T`
//! with basis matrices of the simplex method.

use crate::scalar::Rational;
use num_traits::Zero;

/// An exact LU factorisation of a square sparse matrix given by columns.
#[derive(Clone, Debug)]
pub struct ExactLu {
    m: usize,
    /// Pivot `k` is at (row, column) of the original matrix.
    pivots: Vec<(usize, usize)>,
    /// Row operations of step `k`: `row_i -= f * row_{pivot row}`.
    lower: Vec<Vec<(usize, Rational)>>,
    /// Row `k` of U: the pivot row after elimination, `(column, value)` sorted by column.
    upper: Vec<Vec<(usize, Rational)>>,
    /// Pivot values `U[k][c_k]`.
    diag: Vec<Rational>,
}

/// The matrix is singular (exactly).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Singular;

impl ExactLu {
    /// Factors the `m x m` matrix whose column `j` is `cols[j]` (sparse `(row, value)`).
    pub fn factor(m: usize, cols: &[&[(usize, Rational)]]) -> Result<Self, Singular> {
        assert_eq!(cols.len(), m, "square matrix");
        let mut rows: Vec<Vec<(usize, Rational)>> = vec![Vec::new(); m];
        for (j, col) in cols.iter().enumerate() {
            for (i, v) in col.iter() {
                if !v.is_zero() {
                    rows[*i].push((j, v.clone()));
                }
            }
        }
        // Columns were visited in order, so each row is sorted by column already.
        let mut col_rows: Vec<Vec<usize>> = vec![Vec::new(); m];
        let mut col_count = vec![0usize; m];
        for (i, row) in rows.iter().enumerate() {
            for (j, _) in row {
                col_rows[*j].push(i);
                col_count[*j] += 1;
            }
        }
        let mut row_active = vec![true; m];
        let mut col_active = vec![true; m];
        let mut lu = ExactLu {
            m,
            pivots: Vec::with_capacity(m),
            lower: Vec::with_capacity(m),
            upper: Vec::with_capacity(m),
            diag: Vec::with_capacity(m),
        };
        let mut merged: Vec<(usize, Rational)> = Vec::new();
        // Bucket queue of active columns by count (stale entries are skipped when popped), so
        // choosing the sparsest column costs O(1) amortised instead of a scan of all columns.
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); m + 2];
        for j in (0..m).rev() {
            buckets[col_count[j].min(m + 1)].push(j);
        }
        let mut lowest = 0usize;
        let mut touched: Vec<usize> = Vec::new();
        for _ in 0..m {
            let c = loop {
                while lowest < buckets.len() && buckets[lowest].is_empty() {
                    lowest += 1;
                }
                let Some(j) = buckets.get_mut(lowest).and_then(Vec::pop) else {
                    return Err(Singular);
                };
                if col_active[j] && col_count[j].min(m + 1) == lowest {
                    break j;
                }
            };
            if col_count[c] == 0 {
                return Err(Singular);
            }
            col_rows[c].retain(|&i| row_active[i] && rows[i].iter().any(|(j, _)| *j == c));
            let r = *col_rows[c]
                .iter()
                .min_by_key(|&&i| rows[i].len())
                .ok_or(Singular)?;
            let prow = std::mem::take(&mut rows[r]);
            let pval = prow
                .iter()
                .find(|(j, _)| *j == c)
                .map(|(_, v)| v.clone())
                .expect("pivot entry present");
            row_active[r] = false;
            col_active[c] = false;
            for (j, _) in &prow {
                col_count[*j] -= 1;
                touched.push(*j);
            }
            let targets: Vec<usize> = col_rows[c].iter().copied().filter(|&i| i != r).collect();
            let mut ops = Vec::with_capacity(targets.len());
            for i in targets {
                let Some(pos) = rows[i].iter().position(|(j, _)| *j == c) else {
                    continue;
                };
                let f = &rows[i][pos].1 / &pval;
                // row_i -= f * prow, by merging two sorted sparse rows.
                merged.clear();
                let old = std::mem::take(&mut rows[i]);
                let (mut a, mut b) = (old.into_iter().peekable(), prow.iter().peekable());
                loop {
                    match (a.peek(), b.peek()) {
                        (Some((ja, _)), Some((jb, _))) if ja < jb => merged.push(a.next().unwrap()),
                        (Some((ja, _)), Some((jb, _))) if ja > jb => {
                            let (jb, vb) = b.next().unwrap();
                            merged.push((*jb, -(&f * vb)));
                            col_count[*jb] += 1;
                            col_rows[*jb].push(i);
                            touched.push(*jb);
                        }
                        (Some(_), Some(_)) => {
                            let (ja, va) = a.next().unwrap();
                            let (_, vb) = b.next().unwrap();
                            let v = va - &f * vb;
                            if v.is_zero() {
                                col_count[ja] -= 1;
                                touched.push(ja);
                            } else {
                                merged.push((ja, v));
                            }
                        }
                        (Some(_), None) => merged.push(a.next().unwrap()),
                        (None, Some(_)) => {
                            let (jb, vb) = b.next().unwrap();
                            merged.push((*jb, -(&f * vb)));
                            col_count[*jb] += 1;
                            col_rows[*jb].push(i);
                            touched.push(*jb);
                        }
                        (None, None) => break,
                    }
                }
                rows[i] = std::mem::take(&mut merged);
                ops.push((i, f));
            }
            col_rows[c].clear();
            for j in touched.drain(..) {
                if col_active[j] {
                    let k = col_count[j].min(m + 1);
                    buckets[k].push(j);
                    lowest = lowest.min(k);
                }
            }
            lu.pivots.push((r, c));
            lu.lower.push(ops);
            lu.upper.push(prow);
            lu.diag.push(pval);
        }
        Ok(lu)
    }

    /// Solves `B x = b` (`b` indexed by rows, `x` by columns).
    pub fn solve(&self, b: &[Rational]) -> Vec<Rational> {
        let mut w = b.to_vec();
        for (k, ops) in self.lower.iter().enumerate() {
            let r = self.pivots[k].0;
            if w[r].is_zero() {
                continue;
            }
            for (i, f) in ops {
                let d = f * &w[r];
                w[*i] -= d;
            }
        }
        let mut x = vec![Rational::zero(); self.m];
        for k in (0..self.m).rev() {
            let (r, c) = self.pivots[k];
            let mut acc = std::mem::take(&mut w[r]);
            for (j, u) in &self.upper[k] {
                if *j != c && !x[*j].is_zero() {
                    acc -= u * &x[*j];
                }
            }
            if !acc.is_zero() {
                acc /= &self.diag[k];
            }
            x[c] = acc;
        }
        x
    }

    /// Solves `y^T B = c^T` (`c` indexed by columns, `y` by rows).
    pub fn solve_transposed(&self, c: &[Rational]) -> Vec<Rational> {
        let mut c = c.to_vec();
        let mut y = vec![Rational::zero(); self.m];
        for k in 0..self.m {
            let (r, ck) = self.pivots[k];
            let z = std::mem::take(&mut c[ck]);
            if z.is_zero() {
                continue;
            }
            let z = z / &self.diag[k];
            for (j, u) in &self.upper[k] {
                if *j != ck {
                    c[*j] -= &z * u;
                }
            }
            y[r] = z;
        }
        for k in (0..self.m).rev() {
            let r = self.pivots[k].0;
            let mut acc = Rational::zero();
            for (i, f) in &self.lower[k] {
                if !y[*i].is_zero() {
                    acc += f * &y[*i];
                }
            }
            if !acc.is_zero() {
                y[r] -= acc;
            }
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::int;
    use proptest::prelude::*;

    fn mat_vec(cols: &[Vec<(usize, Rational)>], x: &[Rational], m: usize) -> Vec<Rational> {
        let mut out = vec![Rational::zero(); m];
        for (j, col) in cols.iter().enumerate() {
            for (i, v) in col {
                out[*i] += v * &x[j];
            }
        }
        out
    }

    proptest! {
        /// Solutions of both systems satisfy them when multiplied back (an independent check).
        #[test]
        fn lu_solves_random_sparse_systems(
            m in 1usize..7,
            entries in prop::collection::vec((0usize..7, 0usize..7, -3i64..=3), 0..30),
            rhs in prop::collection::vec(-5i64..=5, 7),
        ) {
            let mut dense = vec![vec![0i64; m]; m];
            for i in 0..m { dense[i][i] = 1; }
            for (i, j, v) in entries { if i < m && j < m { dense[i][j] = v; } }
            let cols: Vec<Vec<(usize, Rational)>> = (0..m)
                .map(|j| (0..m).filter(|&i| dense[i][j] != 0).map(|i| (i, int(dense[i][j]))).collect())
                .collect();
            let refs: Vec<&[(usize, Rational)]> = cols.iter().map(|c| c.as_slice()).collect();
            let b: Vec<Rational> = rhs[..m].iter().map(|&v| int(v)).collect();
            match ExactLu::factor(m, &refs) {
                Ok(lu) => {
                    let x = lu.solve(&b);
                    prop_assert_eq!(mat_vec(&cols, &x, m), b.clone());
                    let y = lu.solve_transposed(&b);
                    let yt_b: Vec<Rational> = cols.iter()
                        .map(|col| col.iter().map(|(i, v)| v * &y[*i]).sum())
                        .collect();
                    prop_assert_eq!(yt_b, b);
                }
                Err(Singular) => {
                    // Singular: confirm with a determinant by fraction-free elimination.
                    let mut a: Vec<Vec<Rational>> = dense.iter()
                        .map(|r| r.iter().map(|&v| int(v)).collect()).collect();
                    let mut rank = 0;
                    for c in 0..m {
                        if let Some(p) = (rank..m).find(|&i| !a[i][c].is_zero()) {
                            a.swap(rank, p);
                            for i in rank + 1..m {
                                let f = &a[i][c] / &a[rank][c];
                                for k in 0..m { let d = &f * &a[rank][k]; a[i][k] -= d; }
                            }
                            rank += 1;
                        }
                    }
                    prop_assert!(rank < m);
                }
            }
        }
    }
}
