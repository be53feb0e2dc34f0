//! Rational reconstruction: the simplest fraction near a dyadic approximation (continued
//! fractions), and one common denominator for a whole vector of approximations.
//!
//! Nothing here is trusted: the caller verifies every reconstructed vector exactly. A wrong
//! guess (tolerance too loose, precision too low) only costs another refinement round.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

/// `|num/2^shift - p/q| <= 2^tol_exp`, decided exactly (`q > 0`).
fn within(num: &BigInt, shift: u64, p: &BigInt, q: &BigInt, tol_exp: i64) -> bool {
    // |num*q - p*2^shift| <= q * 2^(shift + tol_exp)
    let lhs = (num * q - (p << shift)).abs();
    let e = shift as i64 + tol_exp;
    if e >= 0 {
        lhs <= q << (e as u64)
    } else {
        (lhs << ((-e) as u64)) <= *q
    }
}

/// The first continued-fraction convergent `p/q` of `num / 2^shift` within `2^tol_exp` of it,
/// or `None` once `q` would need more than `max_den_bits` bits.
pub(crate) fn convergent_within(
    num: &BigInt,
    shift: u64,
    tol_exp: i64,
    max_den_bits: u64,
) -> Option<(BigInt, BigInt)> {
    let (mut a_num, mut a_den) = (num.clone(), BigInt::one() << shift);
    // h_{k-1}, h_{k-2} and k_{k-1}, k_{k-2} of the convergent recurrence.
    let (mut h1, mut h2) = (BigInt::one(), BigInt::zero());
    let (mut k1, mut k2) = (BigInt::zero(), BigInt::one());
    loop {
        let (a, r) = a_num.div_mod_floor(&a_den);
        let h = &a * &h1 + &h2;
        let k = &a * &k1 + &k2;
        if k.bits() > max_den_bits {
            return None;
        }
        if r.is_zero() || within(num, shift, &h, &k, tol_exp) {
            return Some((h, k));
        }
        (a_num, a_den) = (a_den, r);
        (h2, h1) = (h1, h);
        (k2, k1) = (k1, k);
    }
}

/// `round(v / 2^shift)` (ties away from the floor direction do not matter here).
fn round_shift(v: &BigInt, shift: u64) -> BigInt {
    if shift == 0 {
        return v.clone();
    }
    (v + (BigInt::one() << (shift - 1))) >> shift
}

/// Guesses exact values for approximations `nums[i] / 2^shift`, each within `2^tol_exp` of
/// the truth: a common denominator `d > 0` and numerators `n[i]` (the guess is `n[i] / d`).
/// The denominator is built up one factor at a time (the next value is reconstructed after
/// multiplying by the denominator so far, which is usually an integer already), and a
/// factor is accepted only while `d^2 * 2^tol_exp <= 1/16`, where a reconstruction is unique.
pub(crate) fn common_denominator(
    nums: &[BigInt],
    shift: u64,
    tol_exp: i64,
) -> Option<(BigInt, Vec<BigInt>)> {
    let mut d = BigInt::one();
    for num in nums {
        if num.is_zero() {
            continue;
        }
        // The tolerance of d * num, an upper bound (d < 2^bits(d)).
        let t = tol_exp + d.bits() as i64;
        if 2 + t > -4 {
            return None;
        }
        let scaled = &d * num;
        let nearest = round_shift(&scaled, shift);
        if within(&scaled, shift, &nearest, &BigInt::one(), t) {
            continue;
        }
        let max_bits = ((-t - 4) / 2) as u64;
        let (_, q) = convergent_within(&scaled, shift, t, max_bits)?;
        d *= q;
    }
    let n = nums.iter().map(|v| round_shift(&(&d * v), shift)).collect();
    Some((d, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `p/q` rounded to `shift` fractional bits.
    fn dyadic(p: i64, q: i64, shift: u64) -> BigInt {
        let num = BigInt::from(p) << shift;
        let q = BigInt::from(q);
        (num + (&q >> 1u32)).div_floor(&q)
    }

    #[test]
    fn recovers_fractions_and_their_common_denominator() {
        let shift = 120;
        let vals = [(1, 3), (-7, 258), (5, 6), (0, 1), (2, 1), (-1454, 1699)];
        let nums: Vec<BigInt> = vals.iter().map(|&(p, q)| dyadic(p, q, shift)).collect();
        let (d, n) = common_denominator(&nums, shift, -110).unwrap();
        for (i, &(p, q)) in vals.iter().enumerate() {
            // n[i]/d == p/q exactly.
            assert_eq!(&n[i] * BigInt::from(q), &d * BigInt::from(p), "value {i}");
        }
    }

    #[test]
    fn refuses_when_the_precision_cannot_pin_the_denominator() {
        // 1/1000003 with 30 bits: a denominator of 20 bits needs about 40 bits of precision.
        let shift = 30;
        let nums = vec![dyadic(1, 1_000_003, shift), dyadic(2, 999_983, shift)];
        assert!(common_denominator(&nums, shift, -28).is_none());
    }

    #[test]
    fn convergent_is_the_simplest_fraction_within_the_tolerance() {
        // pi to 60 bits: within 1e-6 the first convergent is 355/113.
        let pi = BigInt::from((std::f64::consts::PI * (1u64 << 52) as f64) as u64) << 8u32;
        let (p, q) = convergent_within(&pi, 60, -20, 64).unwrap();
        assert_eq!((p, q), (BigInt::from(355), BigInt::from(113)));
    }
}
