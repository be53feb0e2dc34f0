//! The hold'em engine's hot vector loops, with an AVX2 path chosen at run time.
//!
//! The build targets baseline x86-64 (SSE2: two `f64` per instruction) and the repository sets
//! no `target-cpu`. Each kernel here has one loop body, compiled twice: once portably and once
//! inside a function with `#[target_feature(enable = "avx2")]` (four `f64` per instruction, and
//! the gathers of the card-removal sums), the second taken when the processor has AVX2
//! ([`avx2`], detected once). Both paths do the same IEEE operations in the same order on every
//! element (no fused multiply-add, no reordered sum), so their results are bit-identical: a
//! test runs both on random inputs and compares the bits.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Whether the AVX2 path runs (the processor has AVX2; detected once, then cached by std).
#[inline]
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Defines a kernel from one loop body: `$name` dispatches to the AVX2 compilation of
/// `$portable` or to `$portable` itself.
macro_rules! kernel {
    ($(#[$doc:meta])* $name:ident, $portable:ident, $fast:ident, ($($arg:ident: $ty:ty),*) $(-> $ret:ty)?, $body:block) => {
        $(#[$doc])*
        #[inline]
        pub fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has AVX2.
                return unsafe { $fast($($arg),*) };
            }
            $portable($($arg),*)
        }

        /// The portable compilation of the kernel of the same name.
        #[inline(always)]
        pub(crate) fn $portable($($arg: $ty),*) $(-> $ret)? $body

        /// The AVX2 compilation of the kernel of the same name.
        ///
        /// # Safety
        /// The processor has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        pub(crate) unsafe fn $fast($($arg: $ty),*) $(-> $ret)? {
            $portable($($arg),*)
        }
    };
}

kernel!(
    /// `out[h] = a[h] x b[h]` (a child's reach: the parent's times the action's probability).
    mul,
    mul_portable,
    mul_avx2,
    (out: &mut [f64], a: &[f64], b: &[f64]),
    {
        for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
            *o = x * y;
        }
    }
);

kernel!(
    /// `out[h] = a[h] x b[h]` as [`mul`], and whether any `out[h]` is not zero (a NaN counts
    /// as not zero): a child's reach and the walks' test for a zero reach in one pass, the
    /// test reading the products from registers instead of scanning them again, one at a time.
    mul_nonzero,
    mul_nonzero_portable,
    mul_nonzero_avx2,
    (out: &mut [f64], a: &[f64], b: &[f64]) -> bool,
    {
        let mut any = false;
        for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
            *o = x * y;
            any |= *o != 0.0;
        }
        any
    }
);

kernel!(
    /// `r[h] += v[h]`.
    add_assign,
    add_assign_portable,
    add_assign_avx2,
    (r: &mut [f64], v: &[f64]),
    {
        for (x, y) in r.iter_mut().zip(v) {
            *x += y;
        }
    }
);

kernel!(
    /// `r[h] = a[h] + b[h]` (a copy of `a` then [`add_assign`] of `b`, in one pass).
    add_into,
    add_into_portable,
    add_into_avx2,
    (r: &mut [f64], a: &[f64], b: &[f64]),
    {
        for (x, (p, q)) in r.iter_mut().zip(a.iter().zip(b)) {
            *x = p + q;
        }
    }
);

kernel!(
    /// `r[h] = 0 + s[h] x v[h]` (zeros then [`mul_add_assign`], in one pass: `0 + x` keeps
    /// the sign of zero the sum from zero gives).
    mul_from_zero,
    mul_from_zero_portable,
    mul_from_zero_avx2,
    (r: &mut [f64], s: &[f64], v: &[f64]),
    {
        for (x, (a, b)) in r.iter_mut().zip(s.iter().zip(v)) {
            *x = 0.0 + a * b;
        }
    }
);

kernel!(
    /// `r[h] += s[h] x v[h]` (rounded twice: no fused multiply-add).
    mul_add_assign,
    mul_add_assign_portable,
    mul_add_assign_avx2,
    (r: &mut [f64], s: &[f64], v: &[f64]),
    {
        for (x, (a, b)) in r.iter_mut().zip(s.iter().zip(v)) {
            *x += a * b;
        }
    }
);

kernel!(
    /// `r[h] = max(r[h], v[h])` ([`f64::max`]).
    max_assign,
    max_assign_portable,
    max_assign_avx2,
    (r: &mut [f64], v: &[f64]),
    {
        for (x, y) in r.iter_mut().zip(v) {
            *x = x.max(*y);
        }
    }
);

kernel!(
    /// `r[h] *= x`.
    scale,
    scale_portable,
    scale_avx2,
    (r: &mut [f64], x: f64),
    {
        for v in r.iter_mut() {
            *v *= x;
        }
    }
);

/// `out[y] = coef x (total - card[c0[y]] - card[c1[y]] + same)`, `same` the reach
/// `reach[same_of[y]]` of the same combo (0 where `same_of[y]` is `u32::MAX`): the fold sums
/// of [`crate::holdem::showdown::Fold`] from its per-card sums (cards are indices below 52,
/// the card sums padded to 64 entries: an index is taken modulo 64).
///
/// # Panics
/// When the slices' lengths differ.
///
/// # Safety
/// Every same-combo index other than `u32::MAX` is below `reach.len()` (the AVX2 path
/// gathers without bounds checks).
#[allow(clippy::too_many_arguments)]
pub unsafe fn fold_combine(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same_of: &[u32],
    reach: &[f64],
    coef: f64,
    out: &mut [f64],
) {
    let n = out.len();
    assert!(c0.len() == n && c1.len() == n && same_of.len() == n);
    debug_assert!(same_of
        .iter()
        .all(|&j| j == u32::MAX || (j as usize) < reach.len()));
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: AVX2 is present; the lengths were checked above, the indices are the
        // caller's promise.
        return unsafe { fold_combine_avx2(total, card, c0, c1, same_of, reach, coef, out) };
    }
    fold_combine_portable(total, card, c0, c1, same_of, reach, coef, out);
}

/// The portable path of [`fold_combine`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn fold_combine_portable(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same_of: &[u32],
    reach: &[f64],
    coef: f64,
    out: &mut [f64],
) {
    for (y, o) in out.iter_mut().enumerate() {
        let j = same_of[y];
        let same = if j == u32::MAX {
            0.0
        } else {
            reach[j as usize]
        };
        *o = coef * (total - card[(c0[y] & 63) as usize] - card[(c1[y] & 63) as usize] + same);
    }
}

/// Four card indices (bytes, taken modulo 64 like the portable paths) as `i32` lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn cards4(c: *const u8) -> __m128i {
    let x = _mm_cvtepu8_epi32(_mm_cvtsi32_si128(std::ptr::read_unaligned(c as *const i32)));
    _mm_and_si128(x, _mm_set1_epi32(63))
}

/// `total - card[c0] - card[c1]` for four hands from `y`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn disjoint4(total: __m256d, card: *const f64, c0: *const u8, c1: *const u8) -> __m256d {
    let x0 = _mm256_i32gather_pd::<8>(card, cards4(c0));
    let x1 = _mm256_i32gather_pd::<8>(card, cards4(c1));
    _mm256_sub_pd(_mm256_sub_pd(total, x0), x1)
}

/// The AVX2 path of [`fold_combine`].
///
/// # Safety
/// AVX2 is present, the slices have `out`'s length and every same-combo index other than
/// `u32::MAX` is in `reach`.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn fold_combine_avx2(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same_of: &[u32],
    reach: &[f64],
    coef: f64,
    out: &mut [f64],
) {
    let n = out.len();
    let full = n - n % 4;
    let (vt, vc) = (_mm256_set1_pd(total), _mm256_set1_pd(coef));
    let none = _mm_set1_epi32(-1);
    let mut y = 0;
    while y < full {
        let d = disjoint4(vt, card.as_ptr(), c0.as_ptr().add(y), c1.as_ptr().add(y));
        let j = _mm_loadu_si128(same_of.as_ptr().add(y) as *const __m128i);
        let keep = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_andnot_si128(
            _mm_cmpeq_epi32(j, none),
            none,
        )));
        let same = _mm256_mask_i32gather_pd::<8>(_mm256_setzero_pd(), reach.as_ptr(), j, keep);
        let v = _mm256_mul_pd(vc, _mm256_add_pd(d, same));
        _mm256_storeu_pd(out.as_mut_ptr().add(y), v);
        y += 4;
    }
    fold_combine_portable(
        total,
        card,
        &c0[full..],
        &c1[full..],
        &same_of[full..],
        reach,
        coef,
        &mut out[full..],
    );
}

/// The last step of a showdown sweep, over the player's hands in strength order:
/// `w[y] = t x (total - card[c0[y]] - card[c1[y]] + same[y]) + s x w[y]` (card indices
/// modulo 64, as in [`fold_combine`]).
///
/// # Panics
/// When the slices' lengths differ.
#[allow(clippy::too_many_arguments)]
pub fn showdown_combine(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same: &[f64],
    t: f64,
    s: f64,
    w: &mut [f64],
) {
    let n = w.len();
    assert!(c0.len() == n && c1.len() == n && same.len() == n);
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: AVX2 is present; the lengths were checked above.
        return unsafe { showdown_combine_avx2(total, card, c0, c1, same, t, s, w) };
    }
    showdown_combine_portable(total, card, c0, c1, same, t, s, w);
}

/// The portable path of [`showdown_combine`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn showdown_combine_portable(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same: &[f64],
    t: f64,
    s: f64,
    w: &mut [f64],
) {
    for (y, o) in w.iter_mut().enumerate() {
        let all = total - card[(c0[y] & 63) as usize] - card[(c1[y] & 63) as usize] + same[y];
        *o = t * all + s * *o;
    }
}

/// The AVX2 path of [`showdown_combine`].
///
/// # Safety
/// AVX2 is present and the slices have `w`'s length.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn showdown_combine_avx2(
    total: f64,
    card: &[f64; 64],
    c0: &[u8],
    c1: &[u8],
    same: &[f64],
    t: f64,
    s: f64,
    w: &mut [f64],
) {
    let n = w.len();
    let full = n - n % 4;
    let (vt, vs, vtot) = (_mm256_set1_pd(t), _mm256_set1_pd(s), _mm256_set1_pd(total));
    let mut y = 0;
    while y < full {
        let d = disjoint4(vtot, card.as_ptr(), c0.as_ptr().add(y), c1.as_ptr().add(y));
        let all = _mm256_add_pd(d, _mm256_loadu_pd(same.as_ptr().add(y)));
        let o = _mm256_loadu_pd(w.as_ptr().add(y));
        let v = _mm256_add_pd(_mm256_mul_pd(vt, all), _mm256_mul_pd(vs, o));
        _mm256_storeu_pd(w.as_mut_ptr().add(y), v);
        y += 4;
    }
    showdown_combine_portable(
        total,
        card,
        &c0[full..],
        &c1[full..],
        &same[full..],
        t,
        s,
        &mut w[full..],
    );
}

/// `out[y] = reach[same_of[y]]`, 0 where `same_of[y]` is `u16::MAX`.
///
/// # Panics
/// When the lengths differ.
///
/// # Safety
/// Every index other than `u16::MAX` is below `reach.len()` (the AVX2 path gathers without
/// bounds checks).
pub unsafe fn gather_same(same_of: &[u16], reach: &[f64], out: &mut [f64]) {
    assert_eq!(same_of.len(), out.len());
    debug_assert!(same_of
        .iter()
        .all(|&j| j == u16::MAX || (j as usize) < reach.len()));
    #[cfg(target_arch = "x86_64")]
    if avx2() {
        // SAFETY: AVX2 is present; the lengths were checked above, the indices are the
        // caller's promise.
        return unsafe { gather_same_avx2(same_of, reach, out) };
    }
    gather_same_portable(same_of, reach, out);
}

/// The portable path of [`gather_same`].
pub(crate) fn gather_same_portable(same_of: &[u16], reach: &[f64], out: &mut [f64]) {
    for (o, &j) in out.iter_mut().zip(same_of) {
        *o = if j == u16::MAX {
            0.0
        } else {
            reach[j as usize]
        };
    }
}

/// The AVX2 path of [`gather_same`].
///
/// # Safety
/// AVX2 is present, the lengths are equal and every index other than `u16::MAX` is in `reach`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn gather_same_avx2(same_of: &[u16], reach: &[f64], out: &mut [f64]) {
    let n = out.len();
    let full = n - n % 4;
    let none = _mm_set1_epi32(0xFFFF);
    let mut y = 0;
    while y < full {
        let j = _mm_cvtepu16_epi32(_mm_loadl_epi64(same_of.as_ptr().add(y) as *const __m128i));
        let keep = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(_mm_cmpgt_epi32(none, j)));
        let v = _mm256_mask_i32gather_pd::<8>(_mm256_setzero_pd(), reach.as_ptr(), j, keep);
        _mm256_storeu_pd(out.as_mut_ptr().add(y), v);
        y += 4;
    }
    gather_same_portable(&same_of[full..], reach, &mut out[full..]);
}

/// A small deterministic generator for the kernels' tests (xorshift): values in [-1, 1) over
/// several magnitudes, with some exact zeros and negative zeros.
#[cfg(test)]
pub(super) fn test_value(state: &mut u64) -> f64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    match *state % 17 {
        0 => 0.0,
        1 => -0.0,
        _ => {
            ((*state >> 11) as f64 / (1u64 << 52) as f64 - 1.0)
                * 1e3f64.powi((*state % 7) as i32 - 3)
        }
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    use super::test_value as next;

    fn vec(state: &mut u64, n: usize) -> Vec<f64> {
        (0..n).map(|_| next(state)).collect()
    }

    fn bits(v: &[f64]) -> Vec<u64> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn the_avx2_path_gives_the_portable_bits() {
        if !avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut st = 0x2545_f491_4f6c_dd1du64;
        for n in [0usize, 1, 3, 4, 5, 17, 64, 203] {
            let (a, b, c) = (vec(&mut st, n), vec(&mut st, n), vec(&mut st, n));
            let x = next(&mut st);
            let (mut p, mut q) = (vec![0.0; n], vec![0.0; n]);
            mul_portable(&mut p, &a, &b);
            unsafe { mul_avx2(&mut q, &a, &b) };
            assert_eq!(bits(&p), bits(&q), "mul {n}");
            // The fused zero test: the products of `mul`, and `!all(== 0)` of them, with zeros
            // (of both signs) and NaNs among the factors.
            let mut z = a.clone();
            for (i, x) in z.iter_mut().enumerate() {
                *x = [0.0, -0.0, *x, f64::NAN][i % 4];
            }
            for (f, g) in [(&a, &b), (&z, &b), (&b, &z)] {
                let (mut p, mut q, mut m) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
                mul_portable(&mut m, f, g);
                let any = !m.iter().all(|&v| v == 0.0);
                assert_eq!(mul_nonzero_portable(&mut p, f, g), any, "mul_nonzero {n}");
                assert_eq!(
                    unsafe { mul_nonzero_avx2(&mut q, f, g) },
                    any,
                    "mul_nonzero {n}"
                );
                assert_eq!(
                    (bits(&p), bits(&q)),
                    (bits(&m), bits(&m)),
                    "mul_nonzero {n}"
                );
            }
            let zeros: Vec<f64> = (0..n).map(|i| [0.0, -0.0][i % 2]).collect();
            let mut p = vec![1.0; n];
            assert!(!mul_nonzero_portable(&mut p, &zeros, &b), "zeros {n}");
            assert!(
                !unsafe { mul_nonzero_avx2(&mut p, &b, &zeros) },
                "zeros {n}"
            );
            let (mut p, mut q) = (c.clone(), c.clone());
            add_assign_portable(&mut p, &a);
            unsafe { add_assign_avx2(&mut q, &a) };
            assert_eq!(bits(&p), bits(&q), "add {n}");
            let (mut p, mut q) = (c.clone(), c.clone());
            mul_add_assign_portable(&mut p, &a, &b);
            unsafe { mul_add_assign_avx2(&mut q, &a, &b) };
            assert_eq!(bits(&p), bits(&q), "mul_add {n}");
            let (mut p, mut q) = (vec![f64::NAN; n], vec![f64::NAN; n]);
            add_into_portable(&mut p, &a, &b);
            unsafe { add_into_avx2(&mut q, &a, &b) };
            assert_eq!(bits(&p), bits(&q), "add_into {n}");
            // The one-pass forms are the two-pass forms they replace.
            let mut r = a.clone();
            add_assign_portable(&mut r, &b);
            assert_eq!(bits(&p), bits(&r), "add_into is copy then add {n}");
            let (mut p, mut q) = (vec![f64::NAN; n], vec![f64::NAN; n]);
            mul_from_zero_portable(&mut p, &a, &b);
            unsafe { mul_from_zero_avx2(&mut q, &a, &b) };
            assert_eq!(bits(&p), bits(&q), "mul_from_zero {n}");
            let mut r = vec![0.0; n];
            mul_add_assign_portable(&mut r, &a, &b);
            assert_eq!(
                bits(&p),
                bits(&r),
                "mul_from_zero is zeros then mul_add {n}"
            );
            let (mut p, mut q) = (c.clone(), c.clone());
            max_assign_portable(&mut p, &a);
            unsafe { max_assign_avx2(&mut q, &a) };
            assert_eq!(bits(&p), bits(&q), "max {n}");
            let (mut p, mut q) = (c.clone(), c.clone());
            scale_portable(&mut p, x);
            unsafe { scale_avx2(&mut q, x) };
            assert_eq!(bits(&p), bits(&q), "scale {n}");

            let mut card = [0.0; 64];
            for v in card.iter_mut() {
                *v = next(&mut st);
            }
            let c0: Vec<u8> = (0..n)
                .map(|_| (next(&mut st).to_bits() % 52) as u8)
                .collect();
            let c1: Vec<u8> = c0.iter().map(|&c| (c + 1 + c % 5) % 52).collect();
            let m = 40;
            let reach = vec(&mut st, m);
            let same32: Vec<u32> = (0..n)
                .map(|y| {
                    if y % 3 == 0 {
                        u32::MAX
                    } else {
                        (y * 7 % m) as u32
                    }
                })
                .collect();
            let same16: Vec<u16> = same32.iter().map(|&j| j as u16).collect();
            let (total, t, s) = (next(&mut st), next(&mut st), next(&mut st));
            let (mut p, mut q) = (vec![0.0; n], vec![0.0; n]);
            fold_combine_portable(total, &card, &c0, &c1, &same32, &reach, x, &mut p);
            unsafe { fold_combine_avx2(total, &card, &c0, &c1, &same32, &reach, x, &mut q) };
            assert_eq!(bits(&p), bits(&q), "fold {n}");
            let (mut p, mut q) = (vec![0.0; n], vec![0.0; n]);
            gather_same_portable(&same16, &reach, &mut p);
            unsafe { gather_same_avx2(&same16, &reach, &mut q) };
            assert_eq!(bits(&p), bits(&q), "same {n}");
            let same = p;
            let (mut p, mut q) = (c.clone(), c.clone());
            showdown_combine_portable(total, &card, &c0, &c1, &same, t, s, &mut p);
            unsafe { showdown_combine_avx2(total, &card, &c0, &c1, &same, t, s, &mut q) };
            assert_eq!(bits(&p), bits(&q), "showdown {n}");
        }
    }
}
