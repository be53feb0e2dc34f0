//! The per-node loops over the stored state, action-major.
//!
//! A decision node of player `a` with `k` actions keeps its entries of every state array
//! action-major: action `c` of hand `h` at `c * n + h`, `n` the player's hands. Regret
//! matching, the average strategy and the set update are then loops over contiguous hands,
//! one action after another, which the compiler vectorises (the `f32` storage's conversions
//! included). Each loop does, for every hand, the operations of the hand-major
//! [`apply_rule`] (and of its regret matching) on that hand's entries, in the same order, so
//! the results are the same bits; the tests below compare them on random inputs for every
//! rule of the registry. VAD-CFR's update is not elementwise (a hand's actions share a moving
//! average and a normaliser): it gathers each hand's entries and runs [`apply_rule`] itself.
//!
//! Like [`super::kernels`], each loop is compiled twice, portably and for AVX2, the second
//! taken at run time when the processor has it; the bodies are the same IEEE operations in the
//! same order, so both give the same bits (tested).

use super::kernels::avx2;
use crate::cfr::tree::{apply_rule, matched, ActionArrays, Factors, PLAIN, STANDARD, VAD};
use crate::prefetch::prefetch;

/// A stored number read as `f64` (exactly).
pub(super) trait Get: Copy + Send + Sync + 'static {
    /// Whether regret matching runs in `f32` ([`match_narrow`]): the `f32` state's.
    const NARROW: bool = false;
    /// As f64.
    fn get(self) -> f64;
    /// As f32 (rounded to nearest; exact for the `f32` state).
    #[inline(always)]
    fn narrow(self) -> f32 {
        self.get() as f32
    }
    /// The entries as `f32` when they are (the `f32` state's), for loops written for them.
    #[inline(always)]
    fn as_f32(_: &[Self]) -> Option<&[f32]> {
        None
    }
}

/// A stored number, read and written as f64.
pub(super) trait Real: Get {
    /// Zero.
    const ZERO: Self;
    /// From f64 (rounded to nearest).
    fn of(x: f64) -> Self;
}

impl Get for f64 {
    #[inline(always)]
    fn get(self) -> f64 {
        self
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    #[inline(always)]
    fn of(x: f64) -> f64 {
        x
    }
}

impl Get for f32 {
    const NARROW: bool = true;
    #[inline(always)]
    fn get(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn narrow(self) -> f32 {
        self
    }
    #[inline(always)]
    fn as_f32(x: &[f32]) -> Option<&[f32]> {
        Some(x)
    }
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    #[inline(always)]
    fn of(x: f64) -> f32 {
        x as f32
    }
}

impl Get for i16 {
    /// Regret steps of the compressed state: matched in `f32`, where the scale cancels.
    const NARROW: bool = true;
    #[inline(always)]
    fn get(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn narrow(self) -> f32 {
        f32::from(self)
    }
}

impl Get for u16 {
    #[inline(always)]
    fn get(self) -> f64 {
        f64::from(self)
    }
}

/// Defines a generic loop `$name` from its portable body `$portable` (an `#[inline(always)]`
/// function of the same arguments): `$name` runs the AVX2 compilation `$fast` when the
/// processor has AVX2.
macro_rules! dispatch {
    ($(#[$doc:meta])* $name:ident, $portable:ident, $fast:ident, <$($g:ident: $b:path),*; $(const $cg:ident: $ct:ty),*>, ($($arg:ident: $ty:ty),*)) => {
        $(#[$doc])*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        pub(super) fn $name<$($g: $b,)* $(const $cg: $ct),*>($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has AVX2.
                return unsafe { $fast::<$($g,)* $($cg),*>($($arg),*) };
            }
            $portable::<$($g,)* $($cg),*>($($arg),*)
        }

        /// The AVX2 compilation of the loop of the same name.
        ///
        /// # Safety
        /// The processor has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        pub(super) unsafe fn $fast<$($g: $b,)* $(const $cg: $ct),*>($($arg: $ty),*) {
            $portable::<$($g,)* $($cg),*>($($arg),*)
        }
    };
}

dispatch!(
    /// Regret matching of every hand of a node: from its action-major regrets (and the last
    /// instantaneous regrets of the predictive rules) into the action-major strategy `out`
    /// (`k` rows of `n = out.len() / k` hands); `tot` (at least `n` long) is scratch. `sums`
    /// (the node's sums when its set update follows, else empty) and the entries after the
    /// node's regrets (the next node's in the walk's order) are asked for in the cache as the
    /// regrets are read ([`prefetch`]); no value depends on them.
    match_columns,
    match_columns_portable,
    match_columns_avx2,
    <R: Get, L: Get;>,
    (regret: &[R], last: &[L], f: &Factors, k: usize, out: &mut [f64], tot: &mut [f64], sums: &[R])
);

/// The portable body of [`match_columns`]: for each hand, the positive parts ([`matched`])
/// summed in action order from 0, then each divided by the sum, or `1 / k` each when it is
/// not positive (as [`apply_rule`] ends). Two passes over the regrets: the totals, then the
/// shares (each positive part computed again rather than stored and read back). An `f32`
/// state without a prediction does this arithmetic in `f32` ([`match_narrow`]).
#[inline(always)]
pub(super) fn match_columns_portable<R: Get, L: Get>(
    regret: &[R],
    last: &[L],
    f: &Factors,
    k: usize,
    out: &mut [f64],
    tot: &mut [f64],
    sums: &[R],
) {
    let n = out.len() / k;
    if R::NARROW && !f.predictive {
        let tot = &mut tot[..n];
        // SAFETY: `n` f64 are `2n` f32 (a smaller alignment; every bit pattern is an f32),
        // and `tot` is not used again while this view lives.
        let narrow = unsafe { std::slice::from_raw_parts_mut(tot.as_mut_ptr() as *mut f32, 2 * n) };
        return match_narrow(&regret[..k * n], k, out, narrow, sums);
    }
    let tot = &mut tot[..n];
    let u = 1.0 / k as f64;
    for pass in 0..2 {
        for c in 0..k {
            let o = &mut out[c * n..c * n + n];
            let reg = &regret[c * n..c * n + n];
            if f.predictive {
                let l = &last[c * n..c * n + n];
                if pass == 0 {
                    add_to_total(
                        c,
                        reg.iter().zip(l).map(|(r, l)| matched(f, r.get(), l.get())),
                        tot,
                    );
                } else {
                    for h in 0..n {
                        let p = matched(f, reg[h].get(), l[h].get());
                        o[h] = if tot[h] > 0.0 { p / tot[h] } else { u };
                    }
                }
            } else if pass == 0 {
                add_to_total(c, reg.iter().map(|r| (r.get() + 0.0).max(0.0)), tot);
            } else {
                for h in 0..n {
                    let p = (reg[h].get() + 0.0).max(0.0);
                    o[h] = if tot[h] > 0.0 { p / tot[h] } else { u };
                }
            }
        }
    }
}

/// Regret matching of an `f32` state without a prediction (`k` rows of `regret`, each
/// hand's positive parts, their total and each share in `f32`, the shares widened to `f64`
/// in `out`): the arithmetic of [`match_columns_portable`] in the storage's precision, eight
/// lanes to an AVX2 register, for a strategy within a few `f32` roundings of the `f64` one.
/// `scratch` (`2n` long) holds the totals and one row's shares.
///
/// The totals' pass reads the node's regrets from memory (a flop's state is far larger than
/// the caches) in runs too short for the hardware's prefetcher, so for each cache line of
/// them it asks for the line one block further (the next node of the player in the walk's
/// order, which lies there: the state is laid out in preorder) and the same line of `sums`.
#[inline(always)]
fn match_narrow<R: Get>(regret: &[R], k: usize, out: &mut [f64], scratch: &mut [f32], sums: &[R]) {
    let n = out.len() / k;
    let u = 1.0 / k as f64;
    let (tot, share) = scratch[..2 * n].split_at_mut(n);
    tot.fill(0.0);
    // Entries to a cache line.
    let line = (64 / std::mem::size_of::<R>()).max(1);
    let ahead = regret.as_ptr().wrapping_add(k * n);
    for c in 0..k {
        let reg = &regret[c * n..c * n + n];
        for (j, (t, r)) in tot.chunks_mut(line).zip(reg.chunks(line)).enumerate() {
            let at = c * n + j * line;
            prefetch(ahead.wrapping_add(at));
            if !sums.is_empty() {
                prefetch(sums.as_ptr().wrapping_add(at));
            }
            for (t, r) in t.iter_mut().zip(r) {
                *t += (r.narrow() + 0.0).max(0.0);
            }
        }
    }
    for c in 0..k {
        shares_row(
            &regret[c * n..c * n + n],
            tot,
            share,
            &mut out[c * n..c * n + n],
            u,
        );
    }
}

/// One row of [`match_narrow`]'s shares: `o[h] = max(r[h] + 0, 0) / tot[h]` in `f32`,
/// widened, or `u` where `tot[h]` is not positive; `share` is scratch. The `f32` state's rows
/// take [`shares_row_avx2`] when the processor has AVX2 (the same operations: the same bits).
#[inline(always)]
fn shares_row<R: Get>(reg: &[R], tot: &[f32], share: &mut [f32], o: &mut [f64], u: f64) {
    #[cfg(target_arch = "x86_64")]
    if let (Some(reg), true) = (R::as_f32(reg), avx2()) {
        // SAFETY: the processor has AVX2.
        return unsafe { shares_row_avx2(reg, tot, o, u) };
    }
    shares_row_portable(reg, tot, share, o, u)
}

/// The portable [`shares_row`]: the shares in `f32` first (a NaN where the total is 0, not
/// kept), so the division runs as wide as the compilation allows, then widened.
#[inline(always)]
fn shares_row_portable<R: Get>(reg: &[R], tot: &[f32], share: &mut [f32], o: &mut [f64], u: f64) {
    let n = o.len();
    let (reg, tot, share) = (&reg[..n], &tot[..n], &mut share[..n]);
    for h in 0..n {
        share[h] = (reg[h].narrow() + 0.0).max(0.0) / tot[h];
    }
    for h in 0..n {
        o[h] = if tot[h] > 0.0 { f64::from(share[h]) } else { u };
    }
}

/// [`shares_row`] eight hands to a register: the shares divided eight lanes wide, widened
/// four and four and chosen against `u` in registers, with no scratch row written and read
/// back (the compiler, given the fused loop, divided four lanes wide).
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn shares_row_avx2(reg: &[f32], tot: &[f32], o: &mut [f64], u: f64) {
    use std::arch::x86_64::*;
    let n = o.len();
    let (reg, tot) = (&reg[..n], &tot[..n]);
    let zero = _mm256_setzero_ps();
    let uniform = _mm256_set1_pd(u);
    let mut h = 0;
    while h + 8 <= n {
        // SAFETY: `h + 8 <= n`, the length of the three rows.
        let (r, t) = (
            _mm256_loadu_ps(reg.as_ptr().add(h)),
            _mm256_loadu_ps(tot.as_ptr().add(h)),
        );
        // `max(r + 0, 0)`: `vmaxps` returns its second operand, 0, for a NaN, as `f32::max`.
        let share = _mm256_div_ps(_mm256_max_ps(_mm256_add_ps(r, zero), zero), t);
        let keep = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(t, zero));
        let wide = |s: __m128, m: __m128i| {
            let m = _mm256_castsi256_pd(_mm256_cvtepi32_epi64(m));
            _mm256_blendv_pd(uniform, _mm256_cvtps_pd(s), m)
        };
        let lo = wide(_mm256_castps256_ps128(share), _mm256_castsi256_si128(keep));
        let hi = wide(
            _mm256_extractf128_ps::<1>(share),
            _mm256_extracti128_si256::<1>(keep),
        );
        _mm256_storeu_pd(o.as_mut_ptr().add(h), lo);
        _mm256_storeu_pd(o.as_mut_ptr().add(h + 4), hi);
        h += 8;
    }
    for h in h..n {
        let share = (reg[h] + 0.0).max(0.0) / tot[h];
        o[h] = if tot[h] > 0.0 { f64::from(share) } else { u };
    }
}

/// Adds action `c`'s weights `w` to the hands' totals (`0.0 + w` for the first action, as a
/// sum from 0 in action order).
#[inline(always)]
fn add_to_total(c: usize, w: impl Iterator<Item = f64>, tot: &mut [f64]) {
    if c == 0 {
        for (t, x) in tot.iter_mut().zip(w) {
            *t = 0.0 + x;
        }
    } else {
        for (t, x) in tot.iter_mut().zip(w) {
            *t += x;
        }
    }
}

dispatch!(
    /// The average strategy of every hand of a node from its action-major sums into the
    /// action-major `out`: each hand's sums over their total (summed in action order from
    /// 0), uniform when it is not positive; `tot` (at least `n` long) is scratch.
    average_columns,
    average_columns_portable,
    average_columns_avx2,
    <S: Get;>,
    (sum: &[S], k: usize, out: &mut [f64], tot: &mut [f64])
);

/// The portable body of [`average_columns`]: the totals from the sums, then the shares.
#[inline(always)]
pub(super) fn average_columns_portable<S: Get>(
    sum: &[S],
    k: usize,
    out: &mut [f64],
    tot: &mut [f64],
) {
    let n = out.len() / k;
    let tot = &mut tot[..n];
    // As in [`match_narrow`]: for each cache line of the sums, the same line one block
    // further (the player's next node in the walk's order) is asked for in the cache.
    let line = (64 / std::mem::size_of::<S>()).max(1);
    let ahead = sum.as_ptr().wrapping_add(k * n);
    for c in 0..k {
        let row = &sum[c * n..c * n + n];
        for (j, (t, s)) in tot.chunks_mut(line).zip(row.chunks(line)).enumerate() {
            prefetch(ahead.wrapping_add(c * n + j * line));
            add_to_total(c, s.iter().map(|s| s.get()), t);
        }
    }
    let u = 1.0 / k as f64;
    for c in 0..k {
        let o = &mut out[c * n..c * n + n];
        let s = &sum[c * n..c * n + n];
        for h in 0..n {
            o[h] = if tot[h] > 0.0 { s[h].get() / tot[h] } else { u };
        }
    }
}

/// A node's entries for the set update, action-major (`k` rows of `n` hands each).
pub(super) struct Block<'a, R, L> {
    /// Cumulative regrets.
    pub regret: &'a mut [R],
    /// Average-strategy sums.
    pub sum: &'a mut [R],
    /// The last instantaneous regrets (empty unless the rule keeps them).
    pub last: &'a mut [L],
    /// The stored current strategy (VAD-CFR with alternating updates), else empty.
    pub sigma: &'a mut [L],
}

/// The inputs of a node's set update: the children's values `v` (row `c` at `c * stride`),
/// the node's values `r`, the traverser's reach `own`, the node's current strategy `st`
/// (action-major, `r.len()` hands per row), its actions `k` and the factors `f`.
#[derive(Clone, Copy)]
pub(super) struct Inputs<'a> {
    /// The children's values.
    pub v: &'a [f64],
    /// The row length of `v`.
    pub stride: usize,
    /// The node's values.
    pub r: &'a [f64],
    /// The traverser's reach.
    pub own: &'a [f64],
    /// The node's current strategy.
    pub st: &'a [f64],
    /// The node's actions.
    pub k: usize,
}

/// The set update of every hand of a node (the traverser's), on its action-major entries:
/// bit for bit [`apply_rule`] per hand, with the next strategy dropped unless `b.sigma`
/// keeps it (the walks recompute it from the regrets).
#[inline(always)]
pub(super) fn update_block<R: Real, L: Real, const KIND: u8>(
    b: Block<R, L>,
    x: Inputs,
    f: Factors,
) {
    if KIND == VAD {
        update_gathered::<R, L, KIND>(b, x, f)
    } else {
        update_columns::<R, L, KIND>(b, x, f)
    }
}

dispatch!(
    /// The elementwise rules' set update ([`update_block`] for every kind but VAD-CFR).
    update_columns,
    update_columns_portable,
    update_columns_avx2,
    <R: Real, L: Real; const KIND: u8>,
    (b: Block<R, L>, x: Inputs, f: Factors)
);

/// The portable body of [`update_columns`]: per entry, the regret and sum steps of
/// [`apply_rule`]'s loop for `KIND` (the strategy it also computes is not needed), in a copy
/// of the loop for each setting of the floor and the prediction, so the loop tests neither.
#[inline(always)]
pub(super) fn update_columns_portable<R: Real, L: Real, const KIND: u8>(
    b: Block<R, L>,
    x: Inputs,
    f: Factors,
) {
    match (f.floor, f.predictive) {
        (false, false) => update_rows::<R, L, KIND, false, false>(b, x, f),
        (true, false) => update_rows::<R, L, KIND, true, false>(b, x, f),
        (false, true) => update_rows::<R, L, KIND, false, true>(b, x, f),
        (true, true) => update_rows::<R, L, KIND, true, true>(b, x, f),
    }
}

/// [`update_columns_portable`] with `f.floor == FLOOR` and `f.predictive == PREDICT`.
#[inline(always)]
fn update_rows<R: Real, L: Real, const KIND: u8, const FLOOR: bool, const PREDICT: bool>(
    b: Block<R, L>,
    x: Inputs,
    f: Factors,
) {
    let n = x.r.len();
    let (r, own) = (x.r, &x.own[..n]);
    // The factors in locals: read from `f` inside the loop, the choice between the two
    // discounts compiled to a load per lane instead of a blend.
    let (sign, pos, neg, average) = (f.sign, f.positive, f.negative, f.average);
    for c in 0..x.k {
        let v = &x.v[c * x.stride..c * x.stride + n];
        let sigma = &x.st[c * n..c * n + n];
        let regret = &mut b.regret[c * n..c * n + n];
        let sum = &mut b.sum[c * n..c * n + n];
        if KIND == PLAIN {
            for h in 0..n {
                let inst = v[h] - r[h];
                regret[h] = R::of(regret[h].get() + sign * inst);
                sum[h] = R::of(sum[h].get() + own[h] * sigma[h]);
            }
            continue;
        }
        let last: &mut [L] = if PREDICT {
            &mut b.last[c * n..c * n + n]
        } else {
            &mut []
        };
        if KIND == STANDARD {
            for h in 0..n {
                let i = sign * (v[h] - r[h]);
                let mut q = regret[h].get() + i;
                q *= if q > 0.0 { pos } else { neg };
                if FLOOR {
                    q = floored(q);
                }
                regret[h] = R::of(q);
                sum[h] = R::of(sum[h].get() * average + own[h] * sigma[h]);
                if PREDICT {
                    last[h] = L::of(i);
                }
            }
        } else {
            for h in 0..n {
                let i = sign * (v[h] - r[h]);
                let mut q = if f.discount_first {
                    let old = regret[h].get();
                    old * if old > 0.0 { pos } else { neg } + i
                } else {
                    let q = regret[h].get() + i;
                    q * if q > 0.0 { pos } else { neg }
                };
                if FLOOR {
                    q = floored(q);
                }
                regret[h] = R::of(q);
                sum[h] = R::of(sum[h].get() * average + own[h] * sigma[h]);
                if PREDICT {
                    last[h] = L::of(i);
                }
            }
        }
    }
}

/// `q`, or 0 when `q < 0` (as [`apply_rule`]'s floor: a negative zero and a NaN stay):
/// `if 0 > q { 0 } else { q }`, which is x86's `maxpd(0, q)` exactly.
#[inline(always)]
fn floored(q: f64) -> f64 {
    if 0.0 > q {
        0.0
    } else {
        q
    }
}

/// The most actions of a node.
pub(super) const MAX_K: usize = 64;

/// [`update_block`] by hands: each hand's entries gathered into rows, updated by
/// [`apply_rule`] and scattered back (VAD-CFR, whose update is not elementwise).
#[inline(never)]
fn update_gathered<R: Real, L: Real, const KIND: u8>(b: Block<R, L>, x: Inputs, f: Factors) {
    let (n, k) = (x.r.len(), x.k);
    let mut inst = [0.0f64; MAX_K];
    let mut regret = [0.0f64; MAX_K];
    let mut sum = [0.0f64; MAX_K];
    let mut last = [0.0f64; MAX_K];
    let mut sigma = [0.0f64; MAX_K];
    let keeps_last = !b.last.is_empty();
    let store = !b.sigma.is_empty();
    for h in 0..n {
        for c in 0..k {
            let e = c * n + h;
            inst[c] = x.v[c * x.stride + h] - x.r[h];
            regret[c] = b.regret[e].get();
            sum[c] = b.sum[e].get();
            sigma[c] = x.st[e];
            if keeps_last {
                last[c] = b.last[e].get();
            }
        }
        let arrays = ActionArrays {
            regret: &mut regret[..k],
            sum: &mut sum[..k],
            last: &mut last[..if keeps_last { k } else { 0 }],
            sigma: &mut sigma[..k],
        };
        apply_rule::<KIND, 0>(&inst[..k], x.own[h], arrays, f);
        for c in 0..k {
            let e = c * n + h;
            b.regret[e] = R::of(regret[c]);
            b.sum[e] = R::of(sum[c]);
            if keeps_last {
                b.last[e] = L::of(last[c]);
            }
            if store {
                b.sigma[e] = L::of(sigma[c]);
            }
        }
    }
}

/// `k` rows of `n` entries each from `k` entries per hand (`src` hand-major, `dst`
/// action-major).
pub(super) fn to_columns<T: Copy>(src: &[T], k: usize, dst: &mut [T]) {
    let n = dst.len() / k;
    for (h, row) in src.chunks_exact(k).take(n).enumerate() {
        for (c, &x) in row.iter().enumerate() {
            dst[c * n + h] = x;
        }
    }
}

/// `k` entries per hand from `k` rows of `n` entries each (`src` action-major, `dst`
/// hand-major).
pub(super) fn to_rows<T: Copy>(src: &[T], k: usize, dst: &mut [T]) {
    let n = src.len() / k;
    for (h, row) in dst.chunks_exact_mut(k).take(n).enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = src[c * n + h];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfr::tree::rule_kind;
    use crate::solve::registry::{CfrOptions, Family, ALGORITHMS};

    use super::super::kernels::test_value as next;

    /// Values that an `f32` holds exactly (the stored state's), so the `f32` and `f64` runs
    /// start from the same numbers.
    fn vec(state: &mut u64, n: usize) -> Vec<f64> {
        (0..n).map(|_| next(state) as f32 as f64).collect()
    }

    /// Every registry CFR rule's factors at a few iterations, for both players.
    fn every_rule() -> Vec<(&'static str, Factors)> {
        let mut out = Vec::new();
        for a in ALGORITHMS.iter().filter(|a| a.family == Family::Cfr) {
            let Ok(params) = a.regret_params(&CfrOptions::default(), Some(50)) else {
                continue;
            };
            for t in [1u64, 2, 3, 7, 40] {
                for p in 0..2 {
                    out.push((a.name, params.factors(t, p)));
                }
            }
        }
        out
    }

    /// One node's random state, hand-major: `k` entries per hand of each array.
    struct Case {
        regret: Vec<f64>,
        sum: Vec<f64>,
        last: Vec<f64>,
        sigma: Vec<f64>,
        v: Vec<f64>,
        r: Vec<f64>,
        own: Vec<f64>,
    }

    fn case(st: &mut u64, n: usize, k: usize, stride: usize) -> Case {
        let sigma: Vec<f64> = vec(st, n * k).iter().map(|x| x.abs()).collect();
        Case {
            regret: vec(st, n * k),
            sum: vec(st, n * k).iter().map(|x| x.abs()).collect(),
            last: vec(st, n * k),
            sigma,
            v: vec(st, k * stride),
            r: vec(st, n),
            own: vec(st, n).iter().map(|x| x.abs()).collect(),
        }
    }

    fn columns(x: &[f64], k: usize) -> Vec<f64> {
        let mut out = vec![0.0; x.len()];
        to_columns(x, k, &mut out);
        out
    }

    fn bits<T: Get>(x: &[T]) -> Vec<u64> {
        x.iter().map(|v| v.get().to_bits()).collect()
    }

    /// The action-major update (and the regret matching of its result) gives, entry for
    /// entry, the bits of [`apply_rule`] run on each hand's row, for every registry rule,
    /// in f64 (and the f32 storage's rounding of the same).
    #[test]
    fn the_column_update_is_apply_rule_bit_for_bit() {
        let mut st = 0x9e37_79b9_7f4a_7c15u64;
        let rules = every_rule();
        assert!(rules.len() >= 40, "{}", rules.len());
        let mut kinds = [false; 4];
        for (name, f) in rules {
            let kind = rule_kind(&f);
            kinds[kind as usize] = true;
            for (n, k) in [(1usize, 2usize), (5, 2), (13, 3), (9, 4), (33, 5)] {
                let stride = n + 3;
                let c = case(&mut st, n, k, stride);
                // The reference: apply_rule per hand, hand-major.
                let (mut regret, mut sum, mut last, mut sigma) = (
                    c.regret.clone(),
                    c.sum.clone(),
                    c.last.clone(),
                    c.sigma.clone(),
                );
                let keeps = f.keeps_last();
                for h in 0..n {
                    let inst: Vec<f64> = (0..k).map(|a| c.v[a * stride + h] - c.r[h]).collect();
                    let e = h * k..h * k + k;
                    let arrays = ActionArrays {
                        regret: &mut regret[e.clone()],
                        sum: &mut sum[e.clone()],
                        last: if keeps { &mut last[e.clone()] } else { &mut [] },
                        sigma: &mut sigma[e],
                    };
                    match kind {
                        PLAIN => apply_rule::<PLAIN, 0>(&inst, c.own[h], arrays, f),
                        STANDARD => apply_rule::<STANDARD, 0>(&inst, c.own[h], arrays, f),
                        VAD => apply_rule::<VAD, 0>(&inst, c.own[h], arrays, f),
                        _ => apply_rule::<{ crate::cfr::tree::EXTENDED }, 0>(
                            &inst, c.own[h], arrays, f,
                        ),
                    }
                }
                // The same in columns, in f64 and f32.
                let st_cols = columns(&c.sigma, k);
                let x = Inputs {
                    v: &c.v,
                    stride,
                    r: &c.r,
                    own: &c.own,
                    st: &st_cols,
                    k,
                };
                let (mut r64, mut s64, mut l64) = (
                    columns(&c.regret, k),
                    columns(&c.sum, k),
                    columns(&c.last, k),
                );
                let mut g64 = if kind == VAD {
                    st_cols.clone()
                } else {
                    Vec::new()
                };
                let to32 = |x: &[f64]| x.iter().map(|&y| y as f32).collect::<Vec<f32>>();
                let (mut r32, mut s32, mut l32, mut g32) =
                    (to32(&r64), to32(&s64), to32(&l64), to32(&g64));
                let (l64s, l32s): (&mut [f64], &mut [f32]) = if keeps {
                    (&mut l64, &mut l32)
                } else {
                    (&mut [], &mut [])
                };
                let b64 = Block {
                    regret: &mut r64[..],
                    sum: &mut s64[..],
                    last: l64s,
                    sigma: &mut g64[..],
                };
                let b32 = Block {
                    regret: &mut r32[..],
                    sum: &mut s32[..],
                    last: l32s,
                    sigma: &mut g32[..],
                };
                match kind {
                    PLAIN => {
                        update_block::<f64, f64, PLAIN>(b64, x, f);
                        update_block::<f32, f32, PLAIN>(b32, x, f);
                    }
                    STANDARD => {
                        update_block::<f64, f64, STANDARD>(b64, x, f);
                        update_block::<f32, f32, STANDARD>(b32, x, f);
                    }
                    VAD => {
                        update_block::<f64, f64, VAD>(b64, x, f);
                        update_block::<f32, f32, VAD>(b32, x, f);
                    }
                    _ => {
                        update_block::<f64, f64, { crate::cfr::tree::EXTENDED }>(b64, x, f);
                        update_block::<f32, f32, { crate::cfr::tree::EXTENDED }>(b32, x, f);
                    }
                }
                let what = format!("{name} t={} n={n} k={k}", f.t);
                let round = |x: &[f64]| to32(x).iter().map(|&y| y as f64).collect::<Vec<_>>();
                assert_eq!(bits(&r64), bits(&columns(&regret, k)), "regret {what}");
                assert_eq!(bits(&s64), bits(&columns(&sum, k)), "sum {what}");
                assert_eq!(bits(&r32), bits(&round(&columns(&regret, k))), "{what}");
                assert_eq!(bits(&s32), bits(&round(&columns(&sum, k))), "{what}");
                if keeps {
                    assert_eq!(bits(&l64), bits(&columns(&last, k)), "last {what}");
                    assert_eq!(bits(&l32), bits(&round(&columns(&last, k))), "{what}");
                }
                if kind == VAD {
                    assert_eq!(bits(&g64), bits(&columns(&sigma, k)), "sigma {what}");
                } else {
                    // Regret matching on the new state: apply_rule's next strategy.
                    let mut out = vec![0.0; n * k];
                    let mut tot = vec![0.0; n];
                    match_columns(&r64, &l64, &f, k, &mut out, &mut tot, &[]);
                    assert_eq!(bits(&out), bits(&columns(&sigma, k)), "matching {what}");
                }
            }
        }
        assert_eq!(kinds, [true; 4], "every kind of rule is run");
    }

    /// Regret matching of an `f32` state without a prediction: each hand's positive parts,
    /// total and shares in `f32` as a scalar loop over the hand's row computes them, within
    /// a few `f32` roundings of the `f64` matching of the same regrets (and over several
    /// chunks of hands).
    #[test]
    fn the_f32_matching_is_the_row_matching_in_f32() {
        let mut st = 0x0bad_5eed_1234_5678u64;
        let rules = every_rule();
        let f = rules.iter().map(|r| r.1).find(|f| !f.predictive).unwrap();
        for (n, k) in [(1usize, 2usize), (5, 3), (64, 2), (65, 4), (300, 3)] {
            let mut rows: Vec<f32> = vec(&mut st, n * k).iter().map(|&x| x as f32).collect();
            // Some hands with no positive regret at all.
            rows[..k].fill(-1.0);
            if n >= 3 {
                rows[2 * k..3 * k].fill(0.0);
            }
            let mut want = vec![0.0f64; n * k];
            for (r, o) in rows.chunks_exact(k).zip(want.chunks_exact_mut(k)) {
                let total: f32 = r.iter().fold(0.0, |t, &x| t + (x + 0.0).max(0.0));
                for (o, &x) in o.iter_mut().zip(r) {
                    *o = if total > 0.0 {
                        f64::from((x + 0.0).max(0.0) / total)
                    } else {
                        1.0 / k as f64
                    };
                }
            }
            let regret: Vec<f32> = {
                let mut c = vec![0.0f32; n * k];
                to_columns(&rows, k, &mut c);
                c
            };
            let (mut out, mut wide, mut tot) = (vec![0.0; n * k], vec![0.0; n * k], vec![0.0; n]);
            match_columns(&regret, &[] as &[f32], &f, k, &mut out, &mut tot, &[]);
            assert_eq!(bits(&out), bits(&columns(&want, k)), "n={n} k={k}");
            let regret64: Vec<f64> = regret.iter().map(|&x| f64::from(x)).collect();
            match_columns(&regret64, &[] as &[f64], &f, k, &mut wide, &mut tot, &[]);
            for (a, b) in out.iter().zip(&wide) {
                assert!(
                    (a - b).abs() <= 4.0 * f64::from(f32::EPSILON) * b,
                    "{a} {b}"
                );
            }
        }
    }

    /// The average strategy by columns: each hand's sums over their total, as a loop over
    /// the hand's row computes it.
    #[test]
    fn the_column_average_is_the_row_average() {
        let mut st = 0x1234_5678_9abc_def1u64;
        for (n, k) in [(1usize, 2usize), (7, 3), (20, 5)] {
            let mut sum: Vec<f64> = vec(&mut st, n * k).iter().map(|x| x.abs()).collect();
            sum[..k].fill(0.0);
            let mut rows = vec![0.0; n * k];
            for (s, o) in sum.chunks_exact(k).zip(rows.chunks_exact_mut(k)) {
                let total: f64 = s.iter().fold(0.0, |t, x| t + x);
                for (o, x) in o.iter_mut().zip(s) {
                    *o = if total > 0.0 {
                        x / total
                    } else {
                        1.0 / k as f64
                    };
                }
            }
            let mut out = vec![0.0; n * k];
            let mut tot = vec![0.0; n];
            average_columns(&columns(&sum, k), k, &mut out, &mut tot);
            assert_eq!(bits(&out), bits(&columns(&rows, k)));
        }
    }

    /// The f32 shares' row in AVX2 registers gives the portable row's bits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_shares_give_the_portable_bits() {
        if !avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut st = 0x9e37_79b9_7f4a_7c15u64;
        for n in [0usize, 1, 7, 8, 9, 16, 203, 416] {
            // Regrets of both signs, zeros of both signs and a NaN; totals positive, zero,
            // negative and NaN.
            let reg: Vec<f32> = (0..n)
                .map(|h| match h % 7 {
                    0 => 0.0,
                    1 => -0.0,
                    2 => f32::NAN,
                    _ => vec(&mut st, 1)[0] as f32,
                })
                .collect();
            let tot: Vec<f32> = (0..n)
                .map(|h| match h % 5 {
                    0 => 0.0,
                    1 => -1.0,
                    2 if h % 3 == 0 => f32::NAN,
                    _ => (vec(&mut st, 1)[0] as f32).abs() + 1e-3,
                })
                .collect();
            let (mut a, mut b, mut share) = (vec![0.0; n], vec![0.0; n], vec![0.0f32; n]);
            shares_row_portable(&reg, &tot, &mut share, &mut a, 0.25);
            unsafe { shares_row_avx2(&reg, &tot, &mut b, 0.25) };
            assert_eq!(bits(&a), bits(&b), "shares n={n}");
        }
    }

    /// The set update, regret matching and the average, compiled for AVX2, give the portable
    /// bits.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_loops_give_the_portable_bits() {
        if !avx2() {
            eprintln!("no AVX2 here: only the portable path runs");
            return;
        }
        let mut st = 0x2545_f491_4f6c_dd1du64;
        for (name, f) in every_rule() {
            if rule_kind(&f) == VAD {
                continue;
            }
            for (n, k) in [(3usize, 2usize), (17, 3), (64, 2), (203, 4)] {
                let c = case(&mut st, n, k, n);
                let to32 = |x: &[f64]| x.iter().map(|&y| y as f32).collect::<Vec<f32>>();
                let (r1, s1, l1) = (to32(&c.regret), to32(&c.sum), to32(&c.last));
                // The set update, from the same state, both ways.
                let stc = columns(&c.sigma, k);
                let x = Inputs {
                    v: &c.v,
                    stride: n,
                    r: &c.r,
                    own: &c.own,
                    st: &stc,
                    k,
                };
                let (mut ra, mut sa, mut la) = (r1.clone(), s1.clone(), l1.clone());
                let (mut rb, mut sb, mut lb) = (r1.clone(), s1.clone(), l1.clone());
                let (ba, bb) = (
                    Block {
                        regret: &mut ra[..],
                        sum: &mut sa[..],
                        last: &mut la[..],
                        sigma: &mut [],
                    },
                    Block {
                        regret: &mut rb[..],
                        sum: &mut sb[..],
                        last: &mut lb[..],
                        sigma: &mut [],
                    },
                );
                const E: u8 = crate::cfr::tree::EXTENDED;
                match rule_kind(&f) {
                    PLAIN => {
                        update_columns_portable::<f32, f32, PLAIN>(ba, x, f);
                        unsafe { update_columns_avx2::<f32, f32, PLAIN>(bb, x, f) };
                    }
                    STANDARD => {
                        update_columns_portable::<f32, f32, STANDARD>(ba, x, f);
                        unsafe { update_columns_avx2::<f32, f32, STANDARD>(bb, x, f) };
                    }
                    _ => {
                        update_columns_portable::<f32, f32, E>(ba, x, f);
                        unsafe { update_columns_avx2::<f32, f32, E>(bb, x, f) };
                    }
                }
                let what = format!("{name} n={n} k={k}");
                assert_eq!(bits(&ra), bits(&rb), "regret {what}");
                assert_eq!(bits(&sa), bits(&sb), "sum {what}");
                assert_eq!(bits(&la), bits(&lb), "last {what}");
                let (mut o1, mut o2) = (vec![0.0; n * k], vec![0.0; n * k]);
                let (mut t1, mut t2) = (vec![0.0; n], vec![0.0; n]);
                // Only the AVX2 run is given sums to prefetch: no value depends on them.
                match_columns_portable(&r1, &l1, &f, k, &mut o1, &mut t1, &[]);
                unsafe { match_columns_avx2(&r1, &l1, &f, k, &mut o2, &mut t2, &s1) };
                assert_eq!(bits(&o1), bits(&o2), "matching {what}");
                average_columns_portable(&s1, k, &mut o1, &mut t1);
                unsafe { average_columns_avx2(&s1, k, &mut o2, &mut t2) };
                assert_eq!(bits(&o1), bits(&o2), "average {what}");
            }
        }
    }
}
