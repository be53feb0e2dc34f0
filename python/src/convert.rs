//! Conversions between Python numbers and bluff's exact rationals, and error mapping.

use crate::errors::{FormatError, GameError, UnsupportedGameError};
use bluff::format::text::quoted;
use bluff::scalar::{f64_to_rational, parse_rational, rational_to_f64, Rational};
use bluff::scalar::{too_many_digits, MAX_NUMBER_DIGITS};
use num_bigint::BigInt;
use num_traits::{Signed, Zero};
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyFloat, PyString};

static FRACTION: GILOnceCell<Py<PyAny>> = GILOnceCell::new();

/// `fractions.Fraction(numerator, denominator)` of an exact rational.
pub fn to_fraction<'py>(py: Python<'py>, r: &Rational) -> PyResult<Bound<'py, PyAny>> {
    let cls = FRACTION.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("fractions")?.getattr("Fraction")?.unbind())
    })?;
    cls.bind(py).call1((r.numer().clone(), r.denom().clone()))
}

/// The simplest fraction (first continued-fraction convergent) that rounds to exactly `x`:
/// `0.1` is 1/10 and `1/3` as a double is 1/3, so float probabilities written by people or by
/// OpenSpiel come back as the fractions they stand for. Never more than the exact binary value.
pub fn float_to_rational(x: f64) -> Option<Rational> {
    let exact = f64_to_rational(x)?;
    if exact.is_integer() {
        return Some(exact);
    }
    let negative = exact.is_negative();
    let mut rest = exact.abs();
    // Convergents h/k of the continued fraction [a0; a1, a2, ...], seeded with h_-2/k_-2 = 0/1
    // and h_-1/k_-1 = 1/0.
    let (mut h_prev, mut h) = (BigInt::zero(), BigInt::from(1));
    let (mut k_prev, mut k) = (BigInt::from(1), BigInt::zero());
    loop {
        let a = rest.floor().to_integer();
        let h_next = &a * &h + &h_prev;
        let k_next = &a * &k + &k_prev;
        h_prev = std::mem::replace(&mut h, h_next);
        k_prev = std::mem::replace(&mut k, k_next);
        let approx = Rational::new(h.clone(), k.clone());
        let frac = &rest - Rational::from_integer(a);
        if rational_to_f64(&approx) == x.abs() || frac.is_zero() {
            return Some(if negative { -approx } else { approx });
        }
        rest = frac.recip();
    }
}

/// Reads a Python number exactly: `Fraction`, `int`, `Decimal` and numpy scalars by
/// `as_integer_ratio()`, a `str` as `"p/q"` or a decimal, a `float` by [`float_to_rational`].
/// `what` names the value in error messages.
pub fn rational_from_py(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Rational> {
    if let Ok(s) = obj.downcast::<PyString>() {
        let text = s.to_str()?;
        if let Some(e) = too_many_digits(text, MAX_NUMBER_DIGITS) {
            return Err(PyValueError::new_err(format!("{what}: {e}")));
        }
        return parse_rational(text).ok_or_else(|| {
            PyValueError::new_err(format!(
                "{what}: {} is not a number (expected \"p/q\", an integer or a decimal)",
                quoted(text)
            ))
        });
    }
    if let Ok(f) = obj.downcast::<PyFloat>() {
        let x = f.value();
        return float_to_rational(x)
            .ok_or_else(|| PyValueError::new_err(format!("{what}: {x} is not a finite number")));
    }
    if obj.hasattr("as_integer_ratio")? {
        let (n, d): (BigInt, BigInt) = obj.call_method0("as_integer_ratio")?.extract()?;
        if d.is_zero() {
            return Err(PyValueError::new_err(format!("{what}: zero denominator")));
        }
        // As the file readers: a number of more digits than any game needs is refused.
        let digits = (n.bits() + d.bits()) as f64 * std::f64::consts::LOG10_2;
        if digits > MAX_NUMBER_DIGITS as f64 + 1.0 {
            return Err(PyValueError::new_err(format!(
                "{what}: a number of about {digits:.0} digits, more than the {MAX_NUMBER_DIGITS} \
                 allowed"
            )));
        }
        return Ok(Rational::new(n, d));
    }
    Err(PyValueError::new_err(format!(
        "{what}: expected a Fraction, int, float or \"p/q\" string, got {}",
        obj.get_type().name()?
    )))
}

/// A float from any Python real number (for probabilities given in floating point).
pub fn f64_from_py(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<f64> {
    if obj.downcast::<PyString>().is_ok() {
        return Ok(rational_to_f64(&rational_from_py(obj, what)?));
    }
    obj.extract::<f64>()
        .map_err(|_| PyValueError::new_err(format!("{what}: expected a number")))
}

/// Maps a library error to a Python exception by what went wrong: a malformed file to
/// [`FormatError`], an invalid game to [`GameError`], a game outside the solvers to
/// [`UnsupportedGameError`], unreadable or unwritable files to `OSError`, anything else to
/// `ValueError`; the message is the library's.
pub fn to_py_err(err: bluff::Error) -> PyErr {
    use bluff::Error;
    let message = err.to_string();
    match err.root() {
        Error::Parse { .. } => FormatError::new_err(message),
        Error::InvalidGame(_) => GameError::new_err(message),
        Error::Unsupported(_) | Error::TooBig { .. } => UnsupportedGameError::new_err(message),
        Error::Io { .. } | Error::Write(_) => PyOSError::new_err(message),
        _ => PyValueError::new_err(message),
    }
}

/// An 8-byte number that travels between processes as little-endian bytes (floats bit for
/// bit).
pub(crate) trait Word: Copy {
    /// What a run of them is called in errors.
    const NAME: &'static str;
    /// Its little-endian bytes.
    fn to_le(self) -> [u8; 8];
    /// The number of little-endian `bytes`.
    fn from_le(bytes: [u8; 8]) -> Self;
}

impl Word for f64 {
    const NAME: &'static str = "floats";
    fn to_le(self) -> [u8; 8] {
        self.to_le_bytes()
    }
    fn from_le(bytes: [u8; 8]) -> Self {
        f64::from_le_bytes(bytes)
    }
}

impl Word for u64 {
    const NAME: &'static str = "keys";
    fn to_le(self) -> [u8; 8] {
        self.to_le_bytes()
    }
    fn from_le(bytes: [u8; 8]) -> Self {
        u64::from_le_bytes(bytes)
    }
}

/// `values` as little-endian bytes.
pub(crate) fn words_bytes<'py, T: Word>(
    py: Python<'py>,
    values: &[T],
) -> Bound<'py, pyo3::types::PyBytes> {
    let mut out = Vec::with_capacity(values.len() * 8);
    for v in values {
        out.extend_from_slice(&v.to_le());
    }
    pyo3::types::PyBytes::new(py, &out)
}

/// The inverse of [`words_bytes`].
pub(crate) fn bytes_words<T: Word>(bytes: &[u8]) -> PyResult<Vec<T>> {
    if !bytes.len().is_multiple_of(8) {
        return Err(PyValueError::new_err(format!(
            "{} bytes: expected a whole number of 8-byte {}",
            bytes.len(),
            T::NAME
        )));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|c| T::from_le(c.try_into().expect("8 bytes")))
        .collect())
}

/// `values` as little-endian bytes (floats travel bit for bit).
pub fn f64_bytes<'py>(py: Python<'py>, values: &[f64]) -> Bound<'py, pyo3::types::PyBytes> {
    words_bytes(py, values)
}

/// The inverse of [`f64_bytes`].
pub(crate) fn bytes_f64(bytes: &[u8]) -> PyResult<Vec<f64>> {
    bytes_words(bytes)
}
