//! The exact solution of a basis without exact elimination: iterative refinement with the
//! float LU, then rational reconstruction, then an exact check (the SoPlex approach of Gleixner,
//! Steffy and Wolter, "Iterative refinement for linear programming", 2016, for one basis).
//!
//! For `B z = r` (the basic primal values, or the duals with `B^T`) the approximation is kept as
//! integers over a power of two, `z = Z / 2^s`. Each round computes the residual exactly in
//! integers (every equation scaled to small integer coefficients), solves for a correction
//! with the float LU, and appends about 50 more bits. Once the corrections are small enough,
//! continued fractions guess a common denominator `d` and numerators `n` (`z = n / d`), and the
//! guess is accepted only if `B n = d r` holds exactly. A basis whose float LU does not converge,
//! or whose values need more bits than the budget, gets `None`, and the exact LU takes over.

use super::certify::scale_small;
use super::reconstruct::common_denominator;
use super::sparse_lu::SparseLu;
use super::StandardForm;
use crate::scalar::{rational_to_f64, Rational};
use num_bigint::BigInt;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};

/// Most refinement rounds (each adds about 50 bits).
const MAX_ROUNDS: usize = 40;

/// A square system over integers: equation `e` is `sum_u coeffs * z_u = rhs[e]`, and the float
/// system the LU solves has that equation divided by `scale[e]`.
struct IntSystem {
    eqs: Vec<Vec<(usize, i64)>>,
    rhs: Vec<BigInt>,
    scale: Vec<f64>,
}

impl IntSystem {
    /// `rhs * factor - A z`, or only whether it is zero (`stop_at_nonzero`).
    fn residual(&self, z: &[BigInt], factor: &BigInt) -> Vec<BigInt> {
        self.eqs
            .iter()
            .zip(&self.rhs)
            .map(|(eq, b)| {
                let mut acc = if b.is_zero() {
                    BigInt::zero()
                } else {
                    b * factor
                };
                for (u, c) in eq {
                    if !z[*u].is_zero() {
                        acc -= &z[*u] * *c;
                    }
                }
                acc
            })
            .collect()
    }

    /// Whether `A n = rhs * d` holds exactly.
    fn solves(&self, d: &BigInt, n: &[BigInt]) -> bool {
        self.eqs.iter().zip(&self.rhs).all(|(eq, b)| {
            let mut acc = if b.is_zero() { BigInt::zero() } else { b * d };
            for (u, c) in eq {
                if !n[*u].is_zero() {
                    acc -= &n[*u] * *c;
                }
            }
            acc.is_zero()
        })
    }
}

/// Builds an [`IntSystem`] from rational equations `(unknown, coefficient)` and right-hand
/// sides; `None` when some equation's scaled coefficients do not fit in `i64`.
fn int_system(eqs: Vec<Vec<(usize, &Rational)>>, rhs: Vec<&Rational>) -> Option<IntSystem> {
    let mut out = IntSystem {
        eqs: Vec::with_capacity(eqs.len()),
        rhs: Vec::with_capacity(eqs.len()),
        scale: Vec::with_capacity(eqs.len()),
    };
    for (eq, b) in eqs.into_iter().zip(rhs) {
        let (s, ints) = scale_small(eq.iter().map(|(_, c)| *c).chain([b]))?;
        out.rhs.push(BigInt::from(ints[eq.len()]));
        out.eqs
            .push(eq.iter().zip(&ints).map(|((u, _), k)| (*u, *k)).collect());
        out.scale.push(s as f64);
    }
    Some(out)
}

/// Refines `sys`'s solution with the float `solve` (in place: residual in, correction out)
/// and reconstructs it exactly: `(d, n)` with `z = n / d`. Returns the rounds made too.
fn refine(
    sys: &IntSystem,
    solve: &mut dyn FnMut(&mut Vec<f64>),
) -> (Option<(BigInt, Vec<BigInt>)>, usize) {
    let n = sys.eqs.len();
    let mut z = vec![BigInt::zero(); n];
    let mut s: u64 = 0;
    let mut last: Option<i64> = None;
    let mut slow = 0;
    for round in 1..=MAX_ROUNDS {
        let res = sys.residual(&z, &(BigInt::one() << s));
        if res.iter().all(Zero::is_zero) {
            // Exactly dyadic.
            return (Some((BigInt::one() << s, z)), round);
        }
        let top = res.iter().map(BigInt::bits).max().unwrap_or(0);
        let sh = top.saturating_sub(60);
        // The residual is `r * 2^(sh - s)`, its correction `c * 2^(sh - s)`.
        let mut r: Vec<f64> = res
            .iter()
            .zip(&sys.scale)
            .map(|(v, k)| (v >> sh).to_f64().unwrap_or(f64::NAN) / k)
            .collect();
        solve(&mut r);
        let max = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if !max.is_finite() || max == 0.0 {
            return (None, round);
        }
        let exp = max.log2().floor() as i64;
        // log2 of the largest correction, in absolute terms.
        let corr = exp + sh as i64 - s as i64;
        if let Some(prev) = last {
            // Converging means each correction is much smaller than the one before.
            if corr > prev - 8 {
                slow += 1;
                if slow >= 3 {
                    return (None, round);
                }
            }
        }
        // New bits so that the correction is kept to about 52 bits.
        let k = (52 - sh as i64 - exp).max(0) as u64;
        let mult = sh + k;
        if mult > 900 {
            return (None, round);
        }
        let f = 2f64.powi(mult as i32);
        for (zu, cu) in z.iter_mut().zip(&r) {
            let Some(c) = BigInt::from_f64((cu * f).round()) else {
                return (None, round);
            };
            *zu = if k == 0 {
                std::mem::take(zu) + c
            } else {
                (std::mem::take(zu) << k) + c
            };
        }
        s += k;
        last = Some(corr);
        if round >= 2 {
            // The error left is below the last correction (given convergence).
            if let Some((d, num)) = common_denominator(&z, s, corr) {
                if sys.solves(&d, &num) {
                    return (Some((d, num)), round);
                }
            }
        }
    }
    (None, MAX_ROUNDS)
}

/// An exactly verified basic solution: `x` (standard form, all columns) and duals `y`.
pub(crate) struct BasisSolution {
    /// Primal values per standard-form column.
    pub x: Vec<Rational>,
    /// Duals per row.
    pub y: Vec<Rational>,
}

/// The exact primal and dual solution of `basis` by refinement and reconstruction, if it is
/// optimal: `None` if the float LU fails, refinement does not converge, reconstruction fails,
/// or the exact solution is not primal and dual feasible (the caller then pivots exactly).
/// Also returns the refinement rounds made.
pub(crate) fn solve_basis(sf: &StandardForm, basis: &[usize]) -> (Option<BasisSolution>, usize) {
    let m = sf.rows;
    let fcols: Vec<Vec<(usize, f64)>> = basis
        .iter()
        .map(|&j| {
            sf.cols[j]
                .iter()
                .map(|(i, v)| (*i, rational_to_f64(v)))
                .collect()
        })
        .collect();
    let refs: Vec<&[(usize, f64)]> = fcols.iter().map(Vec::as_slice).collect();
    let Ok(mut lu) = SparseLu::factor(m, &refs) else {
        return (None, 0);
    };
    // Primal: row i of B x_B = b.
    let mut rows: Vec<Vec<(usize, &Rational)>> = vec![Vec::new(); m];
    for (k, &j) in basis.iter().enumerate() {
        for (i, v) in &sf.cols[j] {
            rows[*i].push((k, v));
        }
    }
    let Some(primal) = int_system(rows, sf.b.iter().collect()) else {
        return (None, 0);
    };
    let (xb, r1) = refine(&primal, &mut |r| lu.ftran(r));
    let Some((dx, nx)) = xb else {
        return (None, r1);
    };
    if nx.iter().any(Signed::is_negative) {
        return (None, r1);
    }
    // Dual: column k of y^T B = c_B.
    let cols: Vec<Vec<(usize, &Rational)>> = basis
        .iter()
        .map(|&j| sf.cols[j].iter().map(|(i, v)| (*i, v)).collect())
        .collect();
    let Some(dual) = int_system(cols, basis.iter().map(|&j| &sf.cost[j]).collect()) else {
        return (None, r1);
    };
    let (yv, r2) = refine(&dual, &mut |c| lu.btran(c));
    let rounds = r1 + r2;
    let Some((dy, ny)) = yv else {
        return (None, rounds);
    };
    if !dual_feasible(sf, basis, &dy, &ny) {
        return (None, rounds);
    }
    let mut x = vec![Rational::zero(); sf.cols.len()];
    for (k, &j) in basis.iter().enumerate() {
        if !nx[k].is_zero() {
            x[j] = Rational::new(nx[k].clone(), dx.clone());
        }
    }
    let y = ny
        .into_iter()
        .map(|v| {
            if v.is_zero() {
                Rational::zero()
            } else {
                Rational::new(v, dy.clone())
            }
        })
        .collect();
    (Some(BasisSolution { x, y }), rounds)
}

/// Every non-basic reduced cost `c_j - y^T a_j` is `<= 0` for `y = ny / dy` (exactly).
fn dual_feasible(sf: &StandardForm, basis: &[usize], dy: &BigInt, ny: &[BigInt]) -> bool {
    let mut basic = vec![false; sf.cols.len()];
    for &j in basis {
        basic[j] = true;
    }
    for (j, col) in sf.cols.iter().enumerate() {
        if basic[j] {
            continue;
        }
        let positive = match scale_small(col.iter().map(|(_, v)| v).chain([&sf.cost[j]])) {
            Some((_, ints)) => {
                let mut acc = dy * ints[col.len()];
                for ((i, _), k) in col.iter().zip(&ints) {
                    if !ny[*i].is_zero() {
                        acc -= &ny[*i] * *k;
                    }
                }
                acc.is_positive()
            }
            None => {
                let y = |i: usize| Rational::new(ny[i].clone(), dy.clone());
                let d: Rational =
                    sf.cost[j].clone() - col.iter().map(|(i, v)| v * y(*i)).sum::<Rational>();
                d.is_positive()
            }
        };
        if positive {
            return false;
        }
    }
    true
}
