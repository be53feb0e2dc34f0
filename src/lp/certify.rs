//! The exact certificate of an LP solution (primal feasibility, dual feasibility, equal
//! objectives), computed in integers over common denominators.
//!
//! Rational arithmetic reduces by a gcd after every operation, which dominated the certificate.
//! Here each vector is brought to one denominator once (`x = N / d`), each row or column of the
//! program to small integers over its own least common denominator, and every check becomes an
//! integer dot product compared exactly: no gcd in the loops. Rows or columns whose scaled
//! coefficients do not fit in `i64` are checked in rationals instead.

use super::{LinearProgram, LpError, LpSolution, Relation};
use crate::scalar::{over_common_denominator, Rational};
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{Signed, ToPrimitive, Zero};

/// Rationals as small integers over one scale: `(s, k)` with `values[i] * s = k[i]`, or `None`
/// when the scale or a scaled value does not fit in 64 bits.
pub(crate) fn scale_small<'a>(
    values: impl Iterator<Item = &'a Rational> + Clone,
) -> Option<(u64, Vec<i64>)> {
    let mut s: u64 = 1;
    for v in values.clone() {
        let den = v.denom().to_u64()?;
        if !s.is_multiple_of(den) {
            s = (s / s.gcd(&den)).checked_mul(den)?;
        }
    }
    let ints = values
        .map(|v| {
            let den = v.denom().to_u64()?;
            v.numer()
                .to_i64()?
                .checked_mul(i64::try_from(s / den).ok()?)
        })
        .collect::<Option<Vec<i64>>>()?;
    Some((s, ints))
}

/// Checks feasibility, dual feasibility and equal objectives exactly; a failure is reported
/// as [`LpError::Internal`] naming what failed.
pub(crate) fn certify(lp: &LinearProgram, s: &LpSolution) -> Result<(), LpError> {
    let fail = |what: String| Err(LpError::Internal(format!("certificate failed: {what}")));
    if s.values.len() != lp.num_vars || s.duals.len() != lp.rows.len() {
        return fail("solution has the wrong length".to_string());
    }
    for (v, x) in s.values.iter().enumerate() {
        if !lp.free[v] && x.is_negative() {
            return fail(format!("variable {v} is negative"));
        }
    }
    let (dx, nx) = over_common_denominator(&s.values);
    let (dy, ny) = over_common_denominator(&s.duals);
    // Primal rows and dual signs.
    for (i, row) in lp.rows.iter().enumerate() {
        let scaled = scale_small(row.coeffs.iter().map(|(_, c)| c).chain([&row.rhs]));
        // lhs - rhs, times a positive factor.
        let diff = match scaled {
            Some((_, ints)) => {
                let mut acc = -(&dx * ints[row.coeffs.len()]);
                for ((v, _), k) in row.coeffs.iter().zip(&ints) {
                    if !nx[*v].is_zero() {
                        acc += &nx[*v] * *k;
                    }
                }
                acc
            }
            None => {
                let lhs: Rational = row.coeffs.iter().map(|(v, c)| c * &s.values[*v]).sum();
                let d = lhs - &row.rhs;
                d.numer().clone()
            }
        };
        let y = &ny[i];
        let ok = match row.rel {
            Relation::Le => !diff.is_positive() && !y.is_negative(),
            Relation::Ge => !diff.is_negative() && !y.is_positive(),
            Relation::Eq => diff.is_zero(),
        };
        if !ok {
            return fail(format!("row {i} (primal or dual sign)"));
        }
    }
    // Dual constraints: reduced cost `c_v - sum_i a_iv y_i`, for each variable over its own
    // scale `k_v` (the least common denominator of its objective and column coefficients).
    let n = lp.num_vars;
    let mut scale: Vec<Option<u64>> = lp.objective.iter().map(|c| c.denom().to_u64()).collect();
    for row in &lp.rows {
        for (v, c) in &row.coeffs {
            if let Some(k) = scale[*v] {
                scale[*v] = c
                    .denom()
                    .to_u64()
                    .and_then(|den| (k / k.gcd(&den)).checked_mul(den));
            }
        }
    }
    // Scaled coefficient `c * k_v` as i64, or None (then that variable is done in rationals).
    let scaled = |c: &Rational, k: u64| -> Option<i64> {
        let den = c.denom().to_u64()?;
        c.numer()
            .to_i64()?
            .checked_mul(i64::try_from(k / den).ok()?)
    };
    // A variable is done in integers when its objective and every coefficient scale to i64.
    let mut exact_vars: Vec<bool> = (0..n)
        .map(|v| scale[v].is_some_and(|k| scaled(&lp.objective[v], k).is_some()))
        .collect();
    for row in &lp.rows {
        for (v, c) in &row.coeffs {
            if exact_vars[*v] && scaled(c, scale[*v].unwrap_or(1)).is_none() {
                exact_vars[*v] = false;
            }
        }
    }
    let mut acc: Vec<BigInt> = vec![BigInt::zero(); n];
    let mut slow: Vec<Rational> = vec![Rational::zero(); n];
    for v in 0..n {
        match scale[v].and_then(|k| scaled(&lp.objective[v], k)) {
            Some(c) if exact_vars[v] => acc[v] = &dy * c,
            _ => slow[v] = lp.objective[v].clone(),
        }
    }
    for (i, row) in lp.rows.iter().enumerate() {
        if ny[i].is_zero() {
            continue;
        }
        for (v, c) in &row.coeffs {
            match scale[*v].and_then(|k| scaled(c, k)) {
                Some(k) if exact_vars[*v] => acc[*v] -= &ny[i] * k,
                _ => slow[*v] -= c * &s.duals[i],
            }
        }
    }
    for v in 0..n {
        let sign = if exact_vars[v] {
            acc[v].signum()
        } else {
            slow[v].numer().signum()
        };
        let ok = if lp.free[v] {
            sign.is_zero()
        } else {
            !sign.is_positive()
        };
        if !ok {
            return fail(format!("dual constraint of variable {v}"));
        }
    }
    // b^T y = objective.
    let dual_objective_ok = match scale_small(lp.rows.iter().map(|r| &r.rhs)) {
        Some((k, ints)) => {
            let mut sum = BigInt::zero();
            for (i, b) in ints.iter().enumerate() {
                if *b != 0 && !ny[i].is_zero() {
                    sum += &ny[i] * *b;
                }
            }
            // sum / (k * dy) == p / q
            sum * s.objective.denom() == s.objective.numer() * BigInt::from(k) * &dy
        }
        None => {
            let dual: Rational = lp.rows.iter().zip(&s.duals).map(|(r, y)| &r.rhs * y).sum();
            dual == s.objective
        }
    };
    if !dual_objective_ok {
        return fail("primal and dual objectives differ".to_string());
    }
    Ok(())
}
