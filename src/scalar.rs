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
