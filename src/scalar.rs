//! Numbers the evaluators work in: `f64` for speed, exact rationals for certificates.

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::fmt::Debug;
use std::ops::{Add, Div, Mul, Neg, Sub};

/// Exact rational numbers used throughout bluff.
pub type Rational = BigRational;

/// A field the game evaluators can compute in (`f64` or [`Rational`]).
pub trait Scalar:
    Clone
    + Debug
    + PartialOrd
    + Send
    + Sync
    + Zero
    + One
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + 'static
{
    /// Converts an exact rational into this number type (rounding for `f64`).
    fn from_rational(r: &Rational) -> Self;
    /// Converts to the nearest `f64`.
    fn to_f64(&self) -> f64;
}

impl Scalar for f64 {
    fn from_rational(r: &Rational) -> Self {
        rational_to_f64(r)
    }
    fn to_f64(&self) -> f64 {
        *self
    }
}

impl Scalar for Rational {
    fn from_rational(r: &Rational) -> Self {
        r.clone()
    }
    fn to_f64(&self) -> f64 {
        rational_to_f64(self)
    }
}

/// The rational `numer / denom` (denom must be non-zero).
pub fn rat(numer: i64, denom: i64) -> Rational {
    Rational::new(BigInt::from(numer), BigInt::from(denom))
}

/// The integer `n` as a rational.
pub fn int(n: i64) -> Rational {
    Rational::from_integer(BigInt::from(n))
}

/// `values` over a common denominator (the least one when they are reduced): `(d, n)` with
/// `values[i] = n[i] / d`, `d > 0`.
pub(crate) fn over_common_denominator(values: &[Rational]) -> (BigInt, Vec<BigInt>) {
    let mut d = BigInt::one();
    for v in values {
        let den = v.denom();
        if den.is_one() || (&d % den).is_zero() {
            continue;
        }
        let g = d.gcd(den);
        d = d / g * den;
    }
    let n = values
        .iter()
        .map(|v| {
            if v.denom() == &d {
                v.numer().clone()
            } else {
                v.numer() * (&d / v.denom())
            }
        })
        .collect();
    (d, n)
}

/// Greatest common divisor of two integers' magnitudes (non-negative; `gcd(0, b) = |b|`).
/// Binary GCD on the numbers' 64-bit limbs in place, in `u128` once both fit: num-bigint's
/// GCD allocates a new number for every shift, about 20 000 instructions for the 154-bit
/// numerators and denominators of leduc's LP solution.
pub fn gcd(a: &BigInt, b: &BigInt) -> BigInt {
    let mut x = a.magnitude().to_u64_digits();
    let mut y = b.magnitude().to_u64_digits();
    if x.is_empty() {
        return b.abs();
    }
    if y.is_empty() {
        return a.abs();
    }
    let (tx, ty) = (trailing_zeros(&x), trailing_zeros(&y));
    let shift = tx.min(ty);
    shift_right(&mut x, tx);
    // `x` stays odd; `gcd(x, y)` keeps the common factor 2^shift aside.
    loop {
        if x.len() <= 2 && y.len() <= 2 {
            let g = gcd_u128(to_u128(&x), to_u128(&y));
            return BigInt::from(g) << shift;
        }
        let t = trailing_zeros(&y);
        shift_right(&mut y, t);
        if less(&y, &x) {
            std::mem::swap(&mut x, &mut y);
        }
        subtract(&mut y, &x);
        if y.is_empty() {
            return BigInt::from(num_bigint::BigUint::new(to_u32_digits(&x))) << shift;
        }
    }
}

/// Trailing zero bits of a non-zero number's limbs (least significant first).
fn trailing_zeros(v: &[u64]) -> u64 {
    let zero_limbs = v.iter().take_while(|&&w| w == 0).count();
    zero_limbs as u64 * 64 + u64::from(v[zero_limbs].trailing_zeros())
}

/// `v >>= k`, dropping high zero limbs.
fn shift_right(v: &mut Vec<u64>, k: u64) {
    let (limbs, bits) = ((k / 64) as usize, (k % 64) as u32);
    if limbs > 0 {
        v.drain(..limbs);
    }
    if bits > 0 {
        for i in 0..v.len() {
            let high = v.get(i + 1).map_or(0, |&w| w << (64 - bits));
            v[i] = (v[i] >> bits) | high;
        }
    }
    while v.last() == Some(&0) {
        v.pop();
    }
}

/// Whether `x < y` (both without high zero limbs).
fn less(x: &[u64], y: &[u64]) -> bool {
    if x.len() != y.len() {
        return x.len() < y.len();
    }
    for (a, b) in x.iter().rev().zip(y.iter().rev()) {
        if a != b {
            return a < b;
        }
    }
    false
}

/// `y -= x` for `y >= x`, dropping high zero limbs.
fn subtract(y: &mut Vec<u64>, x: &[u64]) {
    let mut borrow = false;
    for i in 0..y.len() {
        let (d, b1) = y[i].overflowing_sub(x.get(i).copied().unwrap_or(0));
        let (d, b2) = d.overflowing_sub(u64::from(borrow));
        y[i] = d;
        borrow = b1 || b2;
    }
    while y.last() == Some(&0) {
        y.pop();
    }
}

/// A number of at most two limbs as `u128`.
fn to_u128(v: &[u64]) -> u128 {
    v.iter()
        .rev()
        .fold(0u128, |acc, &w| (acc << 64) | u128::from(w))
}

/// Limbs as the 32-bit digits `BigUint::new` takes.
fn to_u32_digits(v: &[u64]) -> Vec<u32> {
    v.iter()
        .flat_map(|&w| [w as u32, (w >> 32) as u32])
        .collect()
}

/// Binary (Stein's) GCD; `gcd(0, y) = y`.
fn gcd_u128(mut x: u128, mut y: u128) -> u128 {
    if x == 0 || y == 0 {
        return x | y;
    }
    let shift = (x | y).trailing_zeros();
    x >>= x.trailing_zeros();
    loop {
        y >>= y.trailing_zeros();
        if x > y {
            std::mem::swap(&mut x, &mut y);
        }
        y -= x;
        if y == 0 {
            return x << shift;
        }
    }
}

/// `numer / denom` in lowest terms with a positive denominator, as [`Rational::new`] gives it
/// but through [`gcd`]. Panics on a zero denominator, as `Rational::new` does.
pub fn ratio(numer: BigInt, denom: BigInt) -> Rational {
    assert!(!denom.is_zero(), "zero denominator");
    let g = gcd(&numer, &denom);
    if g.is_one() {
        with_positive_denominator(numer, denom)
    } else {
        with_positive_denominator(numer / &g, denom / &g)
    }
}

/// `n / d` (already in lowest terms) with the sign moved to the numerator.
fn with_positive_denominator(n: BigInt, d: BigInt) -> Rational {
    if d.is_negative() {
        Rational::new_raw(-n, -d)
    } else {
        Rational::new_raw(n, d)
    }
}

/// `a / b` for `b != 0`, as `a / b` on rationals gives it but through [`gcd`]: with both in
/// lowest terms, cancelling `gcd(a.n, b.n)` and `gcd(a.d, b.d)` leaves the product in lowest
/// terms.
pub fn div(a: &Rational, b: &Rational) -> Rational {
    assert!(!b.is_zero(), "division by zero");
    if a.is_zero() {
        return Rational::zero();
    }
    let g1 = gcd(a.numer(), b.numer());
    let g2 = gcd(a.denom(), b.denom());
    with_positive_denominator(
        (a.numer() / &g1) * (b.denom() / &g2),
        (a.denom() / &g2) * (b.numer() / &g1),
    )
}

/// Nearest `f64` to a rational, also for numerators and denominators beyond `f64` range.
pub fn rational_to_f64(r: &Rational) -> f64 {
    if let (Some(n), Some(d)) = (r.numer().to_f64(), r.denom().to_f64()) {
        if n.is_finite() && d.is_finite() && n.abs() < 9.0e15 && d < 9.0e15 {
            return n / d;
        }
    }
    // Scale so that the quotient keeps 64 significant bits.
    let n_bits = r.numer().bits() as i64;
    let d_bits = r.denom().bits() as i64;
    let shift = 64 - (n_bits - d_bits);
    let scaled = if shift >= 0 {
        (r.numer().abs() << shift as usize) / r.denom()
    } else {
        r.numer().abs() / (r.denom() << (-shift) as usize)
    };
    let mag = scaled.to_f64().unwrap_or(f64::INFINITY) * 2f64.powi(-shift as i32);
    if r.is_negative() {
        -mag
    } else {
        mag
    }
}

/// The exact rational value of a finite `f64` (every finite double is a dyadic rational).
pub fn f64_to_rational(x: f64) -> Option<Rational> {
    Rational::from_float(x)
}

/// Most digits in one number that [`parse_rational`] reads (numerator and denominator
/// together). Exact arithmetic on longer numbers grows faster than their length (a 100 000-digit
/// probability took 32 s to score), so longer numbers are refused with [`too_many_digits`]'s
/// message.
pub const MAX_NUMBER_DIGITS: usize = 10_000;

/// The error for a number longer than `max` digits, or `None` when it is short enough.
pub fn too_many_digits(text: &str, max: usize) -> Option<String> {
    let digits = text.bytes().filter(u8::is_ascii_digit).count();
    (digits > max).then(|| format!("a number with {digits} digits; at most {max} are read"))
}

/// Parses `"p/q"`, an integer, or a decimal with optional exponent (`"0.25"`, `"1e-3"`) exactly.
/// Numbers with more than [`MAX_NUMBER_DIGITS`] digits are refused (`None`).
pub fn parse_rational(text: &str) -> Option<Rational> {
    let t = text.trim();
    if t.is_empty() || too_many_digits(t, MAX_NUMBER_DIGITS).is_some() {
        return None;
    }
    if let Some((p, q)) = t.split_once('/') {
        let p = parse_decimal(p.trim())?;
        let q = parse_decimal(q.trim())?;
        if q.is_zero() {
            return None;
        }
        return Some(p / q);
    }
    parse_decimal(t)
}

fn parse_decimal(t: &str) -> Option<Rational> {
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (negative, digits) = match mantissa.as_bytes().first()? {
        b'-' => (true, &mantissa[1..]),
        b'+' => (false, &mantissa[1..]),
        _ => (false, mantissa),
    };
    let (int_part, frac_part) = match digits.split_once('.') {
        Some((a, b)) => (a, b),
        None => (digits, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    if !int_part.bytes().all(|b| b.is_ascii_digit())
        || !frac_part.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    if exponent.unsigned_abs() > 10_000 {
        return None;
    }
    let all: String = format!("{int_part}{frac_part}");
    let n: BigInt = if all.is_empty() {
        BigInt::zero()
    } else {
        all.parse().ok()?
    };
    let scale = exponent - frac_part.len() as i32;
    let ten = BigInt::from(10);
    let mut value = if scale >= 0 {
        Rational::from_integer(n * num_traits::pow(ten, scale as usize))
    } else {
        Rational::new(n, num_traits::pow(ten, (-scale) as usize))
    };
    if negative {
        value = -value;
    }
    Some(value)
}

/// Formats a rational as `p/q` (or `p` for integers).
pub fn format_rational(r: &Rational) -> String {
    if r.is_integer() {
        r.numer().to_string()
    } else {
        format!("{}/{}", r.numer(), r.denom())
    }
}

/// `true` when `r` lies in the closed interval [0, 1].
pub fn is_probability(r: &Rational) -> bool {
    !r.is_negative() && r <= &Rational::one()
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Random numbers within `u128`, and (`wide`) beyond it: times a shared factor of up
        /// to 128 bits and shifted, so that the GCD is rarely 1 and takes the limb loop.
        #[test]
        fn fast_gcd_matches_num_bigint(
            a in proptest::num::i128::ANY,
            b in proptest::num::i128::ANY,
            k in proptest::num::u128::ANY,
            wide in 0u32..3,
        ) {
            // 0: both within u128, 1: one wider, 2: both wider, with a shared factor `k`.
            let k = BigInt::from(k) + 1;
            let (a, b) = match wide {
                0 => (BigInt::from(a), BigInt::from(b)),
                1 => (BigInt::from(a) * &k, BigInt::from(b)),
                _ => ((BigInt::from(a) * &k) << 7, (BigInt::from(b) * &k * &k) << 3),
            };
            proptest::prop_assert_eq!(gcd(&a, &b), a.gcd(&b));
            if !b.is_zero() {
                proptest::prop_assert_eq!(ratio(a.clone(), b.clone()), Rational::new(a, b));
            }
        }
    }

    #[test]
    fn fast_gcd_ratio_and_division_agree_with_num_rational() {
        let big = |s: &str| s.parse::<BigInt>().unwrap();
        let cases = [
            ("0", "7"),
            ("6", "-4"),
            (
                "-1454920850547486749701863871533",
                "16995463438839962469905132501930",
            ),
            (
                "340282366920938463463374607431768211455",
                "170141183460469231731687303715884105727",
            ),
            // Beyond u128: the limb loop before the u128 one.
            (
                "680564733841876926926749214863536422910",
                "-1020847100762815390390123822295304634365",
            ),
            ("12", "1"),
        ];
        for (n, d) in cases {
            let (n, d) = (big(n), big(d));
            assert_eq!(gcd(&n, &d), n.gcd(&d), "gcd({n}, {d})");
            let r = ratio(n.clone(), d.clone());
            assert_eq!(r, Rational::new(n.clone(), d.clone()));
            assert!(r.denom().is_positive());
            for (m, e) in cases {
                let other = Rational::new(big(m), big(e));
                if !other.is_zero() {
                    let q = div(&r, &other);
                    assert_eq!(q, &r / &other, "({r}) / ({other})");
                    assert!(q.denom().is_positive());
                    assert_eq!(q, Rational::new(q.numer().clone(), q.denom().clone()));
                }
            }
        }
        assert_eq!(gcd_u128(48, 180), 12);
        assert_eq!(gcd_u128(0, 0), 0);
        assert_eq!(gcd_u128(1 << 100, 3 << 90), 1 << 90);
    }

    #[test]
    fn parses_exact_decimals_and_fractions() {
        assert_eq!(parse_rational("0.25"), Some(rat(1, 4)));
        assert_eq!(parse_rational("1/3"), Some(rat(1, 3)));
        assert_eq!(parse_rational("-2"), Some(int(-2)));
        assert_eq!(parse_rational("1e-3"), Some(rat(1, 1000)));
        assert_eq!(parse_rational("2.5E1"), Some(int(25)));
        assert_eq!(parse_rational(".5"), Some(rat(1, 2)));
        assert_eq!(parse_rational("1/0"), None);
        assert_eq!(parse_rational("abc"), None);
        assert_eq!(parse_rational("."), None);
        assert_eq!(parse_rational(""), None);
    }

    #[test]
    fn converts_huge_rationals_to_f64() {
        let big = Rational::new(
            BigInt::from(10).pow(400) + 1u32,
            BigInt::from(3) * BigInt::from(10).pow(400),
        );
        assert!((rational_to_f64(&big) - 1.0 / 3.0).abs() < 1e-15);
        assert_eq!(rational_to_f64(&rat(-1, 8)), -0.125);
    }
}
