//! The exact solution of a basis without exact elimination: iterative refinement with the
//! float LU, then rational reconstruction, then an exact check (SoPlex's approach, Gleixner and
//! Steffy, "Linear programming using limited-precision oracles", 2020, here for one basis).
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
use crate::scalar::{ratio, rational_to_f64, Rational};
use num_bigint::BigInt;
use num_traits::{FromPrimitive, One, Signed, ToPrimitive, Zero};

/// Most refinement rounds (each adds about 50 bits).
const MAX_ROUNDS: usize = 40;

/// A square system over integers: equation `e` is `sum_u coeffs * z_u = rhs[e]`, and the float
/// system the LU solves has that equation divided by `scale[e]`.
pub(crate) struct IntSystem {
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
pub(crate) fn int_system(
    eqs: Vec<Vec<(usize, &Rational)>>,
    rhs: Vec<&Rational>,
) -> Option<IntSystem> {
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
pub(crate) fn refine(
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
            x[j] = ratio(nx[k].clone(), dx.clone());
        }
    }
    let y = ny
        .into_iter()
        .map(|v| {
            if v.is_zero() {
                Rational::zero()
            } else {
                ratio(v, dy.clone())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    /// `[[3, 1/7, 0], [1/5, 2, -1], [0, 1, 1/9]] z = [1, 1/3, -2]` and its float solver.
    fn system() -> (IntSystem, [[f64; 3]; 3]) {
        let a = [
            [int(3), rat(1, 7), int(0)],
            [rat(1, 5), int(2), int(-1)],
            [int(0), int(1), rat(1, 9)],
        ];
        let b = [int(1), rat(1, 3), int(-2)];
        let eqs = (0..3)
            .map(|i| {
                (0..3)
                    .filter(|&j| !a[i][j].is_zero())
                    .map(|j| (j, &a[i][j]))
                    .collect()
            })
            .collect();
        let sys = int_system(eqs, b.iter().collect()).unwrap();
        let f = a.map(|row| row.map(|v| rational_to_f64(&v)));
        (sys, f)
    }

    /// Gaussian elimination in floats, times `err` (a deliberately inexact solver when != 1).
    fn float_solve(a: &[[f64; 3]; 3], r: &mut [f64], err: f64) {
        let mut m = *a;
        for k in 0..3 {
            let p = (k..3)
                .max_by(|&i, &j| m[i][k].abs().total_cmp(&m[j][k].abs()))
                .unwrap();
            m.swap(k, p);
            r.swap(k, p);
            for i in k + 1..3 {
                let f = m[i][k] / m[k][k];
                for j in k..3 {
                    m[i][j] -= f * m[k][j];
                }
                r[i] -= f * r[k];
            }
        }
        for k in (0..3).rev() {
            let s: f64 = (k + 1..3).map(|j| m[k][j] * r[j]).sum();
            r[k] = (r[k] - s) / m[k][k] * err;
        }
    }

    /// The exact solution by Cramer's rule in rationals (an independent route).
    fn exact() -> Vec<Rational> {
        let a = [
            [int(3), rat(1, 7), int(0)],
            [rat(1, 5), int(2), int(-1)],
            [int(0), int(1), rat(1, 9)],
        ];
        let b = [int(1), rat(1, 3), int(-2)];
        let det = |m: &[[Rational; 3]; 3]| {
            &m[0][0] * (&m[1][1] * &m[2][2] - &m[1][2] * &m[2][1])
                - &m[0][1] * (&m[1][0] * &m[2][2] - &m[1][2] * &m[2][0])
                + &m[0][2] * (&m[1][0] * &m[2][1] - &m[1][1] * &m[2][0])
        };
        let d = det(&a);
        (0..3)
            .map(|j| {
                let mut m = a.clone();
                for i in 0..3 {
                    m[i][j] = b[i].clone();
                }
                det(&m) / &d
            })
            .collect()
    }

    fn as_rationals((d, n): (BigInt, Vec<BigInt>)) -> Vec<Rational> {
        n.into_iter().map(|v| Rational::new(v, d.clone())).collect()
    }

    #[test]
    fn refinement_reconstructs_the_exact_solution() {
        let (sys, f) = system();
        let (z, rounds) = refine(&sys, &mut |r| float_solve(&f, r, 1.0));
        assert_eq!(as_rationals(z.unwrap()), exact());
        assert!(rounds >= 2);
    }

    #[test]
    fn an_inexact_float_solver_still_converges_to_the_exact_solution() {
        // Each correction is 0.1% off: refinement with exact residuals repairs it.
        let (sys, f) = system();
        let (z, _) = refine(&sys, &mut |r| float_solve(&f, r, 1.001));
        assert_eq!(as_rationals(z.unwrap()), exact());
    }

    #[test]
    fn a_useless_float_solver_gives_up_instead_of_guessing() {
        let (sys, _) = system();
        let (z, _) = refine(&sys, &mut |r| r.iter_mut().for_each(|v| *v = 0.25));
        assert!(z.is_none());
    }

    #[test]
    fn a_wrong_guess_is_never_accepted() {
        let (sys, _) = system();
        let x = exact();
        let d = x.iter().fold(BigInt::one(), |d, v| {
            num_integer::Integer::lcm(&d, v.denom())
        });
        let n: Vec<BigInt> = x.iter().map(|v| v.numer() * (&d / v.denom())).collect();
        assert!(sys.solves(&d, &n));
        for k in 0..3 {
            let mut wrong = n.clone();
            wrong[k] += 1;
            assert!(!sys.solves(&d, &wrong));
        }
        // The same values over a denominator one too large.
        assert!(!sys.solves(&(&d + 1), &n));
    }
}
