//! The compressed storage of `--compress` ([`Precision::Compressed16`]): cumulative regrets
//! and average-strategy sums in 16 bits, with one `f32` scale per decision node and array.
//!
//! A decision node's regrets are stored as `i16` steps of `scale / 32767`, `scale` the largest
//! magnitude among the node's regrets (all its hands and actions); its average sums, which
//! are never negative, as `u16` steps of `scale / 65535`, `scale` the node's largest sum. At
//! the traverser's node the set update decodes each hand's entries into `f64`, runs the same
//! [`apply_rule`] as the other storages, and the node's whole block is encoded again with the
//! new scales, each entry rounded to the nearest step (ties away from zero). The rounding is
//! a function of the node's values only and a node is updated by one walk, so the results
//! are the same bits for any thread count. The current strategy (regret matching) runs on the
//! steps themselves in `f32`, where the scale cancels (the predictive rules, which add an
//! `f32` prediction to each regret, decode first); the average strategy divides each hand's
//! sums by their total, where the scale cancels too. Reaches, values and best responses stay `f64`, as with every storage.
//!
//! Why the error is acceptable: an entry is off by at most half a step, 1/65534 of the node's
//! largest regret and 1/131070 of its largest sum. Regrets are counterfactual, scaled by the
//! opponent's reach, which is of one size for every hand at a node, so the regret matching of
//! the hands that matter sees them to about four and a half digits. A hand's sums are its own
//! reach times its strategy, summed: the hands whose sums are small beside the node's largest
//! (and so stored in few steps) are the hands that rarely reach the node, and each hand's
//! contribution to every value is weighted by that same reach. What this costs in iterations
//! and in the exploitability reached is measured in `docs/holdem.md` (the turn spot to 0.1%
//! of the pot with and without compression) and held by the tests (`tests/holdem_compress.rs`).
//!
//! Where it is not used: the rules' other arrays — the predictive rules' last instantaneous
//! regrets, VAD-CFR's moving averages and its stored strategy, the simultaneous updates' copy
//! of the strategy played — stay `f32`, as the `f32` storage keeps them. They hold one
//! iteration's values, rewritten rather than summed, and enter the strategy played directly
//! (a prediction is added to the regret before matching; VAD-CFR's stored strategy is the one
//! played), so a node-wide scale would move the played strategy itself by up to a step; at
//! 4 bytes they keep every rule runnable compressed, and the memory estimate counts them.

use super::access::Access;
use super::columns::{average_columns, match_columns, update_block, Block, Inputs};
#[cfg(target_arch = "x86_64")]
use super::kernels::avx2;
use super::snapshot::{ArrayMut, ArrayRef};
use super::{
    average_rows, slice, slice_mut, strategy_of, Current, Game, GameKind, NodeAt, Shared, State,
};
use crate::cfr::tree::Factors;
use crate::cfr::RegretParams;
use std::cell::RefCell;

/// A node's largest regret magnitude is stored as this many steps.
const SIGNED_STEPS: f64 = 32767.0;
/// A node's largest average sum is stored as this many steps.
const UNSIGNED_STEPS: f64 = 65535.0;

/// Bytes of the compressed state for `params` on `game`: 2 per regret and per sum, 4 per
/// entry of the rules' other arrays (kept `f32`), and two `f32` scales per game node (a
/// node's index is its scales' index; only decision nodes' are used).
pub(super) fn state_bytes(game: &Game, params: &RegretParams) -> u64 {
    let entries = (game.state_len[0] + game.state_len[1]) as u64;
    let f = params.factors(1, 0);
    let extra = u64::from(f.keeps_last())
        + u64::from(f.volatility.is_some())
        + u64::from(!params.alternating);
    entries * (2 + 2 + 4 * extra) + game.nodes.len() as u64 * 8
}

/// The dither of a block's entries, one after another: numbers in `[0, 1)` from a 64-bit
/// linear congruential generator (Knuth's MMIX constants; its top 53 bits).
struct Dither(u64);

impl Dither {
    /// The next number.
    #[inline(always)]
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// The seed of the dither of game node `g`'s block of array `array` (0: regrets, 1: sums) at
/// iteration `t` (SplitMix64's finaliser of the three): the same in every run, whatever the
/// thread count.
fn seed_of(t: f64, g: usize, array: u64) -> u64 {
    let mut z = (t as u64).wrapping_mul(0xD6E8_FEB8_6659_FD93)
        ^ (g as u64).wrapping_mul(0xA076_1D64_78BD_642F)
        ^ array;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Encodes the action-major block `x` (`k` rows) as `i16` steps of its largest magnitude into
/// `out`, each entry rounded down or up with the probability that makes its expected step its
/// value (the dither of `seed`, [`with_dither`]); returns that scale (0 when every
/// entry is 0, or the largest is not a finite `f32`: then every step is 0).
fn encode_signed(x: &[f64], out: &mut [i16], seed: u64, k: usize) -> f32 {
    let m = largest(x, f64::abs);
    let scale = m as f32;
    if !(scale > 0.0 && scale.is_finite()) {
        out.fill(0);
        return 0.0;
    }
    let mul = SIGNED_STEPS / f64::from(scale);
    with_dither(seed, k, x.len(), |d| signed_steps(x, d, mul, out));
    scale
}

/// Encodes the non-negative `x` as `u16` steps of its largest entry into `out` (a negative
/// entry as 0), rounded as [`encode_signed`] rounds; returns that scale, as it does.
fn encode_unsigned(x: &[f64], out: &mut [u16], seed: u64, k: usize) -> f32 {
    let m = largest(x, |v| v);
    let scale = m as f32;
    if !(scale > 0.0 && scale.is_finite()) {
        out.fill(0);
        return 0.0;
    }
    let mul = UNSIGNED_STEPS / f64::from(scale);
    with_dither(seed, k, x.len(), |d| unsigned_steps(x, d, mul, out));
    scale
}

thread_local! {
    /// A block's dither, action-major, during its encoding.
    static DITHER: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on the dither of `seed` for an action-major block of `len` entries in `k` rows:
/// drawn one after another hand by hand, each hand's actions in order (the order of a
/// hand-major block), each stored at its entry's place, so the
/// encoding itself is a loop over contiguous entries (which vectorises; the generator's
/// sequence cannot).
fn with_dither<R>(seed: u64, k: usize, len: usize, f: impl FnOnce(&[f64]) -> R) -> R {
    DITHER.with(|b| {
        let mut d = b.borrow_mut();
        if d.len() < len {
            d.resize(len, 0.0);
        }
        let d = &mut d[..len];
        let mut g = Dither(seed);
        match k {
            2 => draw_rows::<2>(d, &mut g),
            3 => draw_rows::<3>(d, &mut g),
            4 => draw_rows::<4>(d, &mut g),
            _ => {
                let n = len / k;
                for h in 0..n {
                    for c in 0..k {
                        d[c * n + h] = g.next();
                    }
                }
            }
        }
        f(d)
    })
}

/// [`with_dither`]'s drawing for `K` rows: the rows as `K` slices of one length, so the
/// loop stores without an index product or a bounds check.
#[inline(always)]
fn draw_rows<const K: usize>(d: &mut [f64], g: &mut Dither) {
    let n = d.len() / K;
    let mut rows = d.chunks_exact_mut(n.max(1));
    let mut rows: [&mut [f64]; K] = std::array::from_fn(|_| rows.next().unwrap_or_default());
    for row in rows.iter_mut() {
        if row.len() != n {
            return;
        }
    }
    for h in 0..n {
        for row in rows.iter_mut() {
            row[h] = g.next();
        }
    }
}

/// The largest of `m` and the entries of `x` mapped by `f`, in four running maxima (the
/// same number as one: the maximum of non-negative numbers, a NaN skipped, in any order).
#[inline(always)]
fn largest(x: &[f64], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; 4];
    let mut chunks = x.chunks_exact(4);
    for c in &mut chunks {
        for i in 0..4 {
            acc[i] = acc[i].max(f(c[i]));
        }
    }
    let m = chunks.remainder().iter().fold(0.0f64, |m, &v| m.max(f(v)));
    acc.iter().fold(m, |m, &a| m.max(a))
}

/// Each `x * mul` rounded down or up by its dither `d` to an `i16` step (floor of
/// `x * mul + d`, taken by the truncating cast of a positive number), clamped to the steps.
#[inline(always)]
fn signed_steps_portable(x: &[f64], d: &[f64], mul: f64, out: &mut [i16]) {
    for ((o, &v), &e) in out.iter_mut().zip(x).zip(d) {
        let y = (v * mul + e + 32768.0) as i32 - 32768;
        *o = y.clamp(-(SIGNED_STEPS as i32), SIGNED_STEPS as i32) as i16;
    }
}

/// Each `x * mul` rounded down or up by its dither `d` to a `u16` step, as
/// [`signed_steps_portable`] (a negative value as 0).
#[inline(always)]
fn unsigned_steps_portable(x: &[f64], d: &[f64], mul: f64, out: &mut [u16]) {
    for ((o, &v), &e) in out.iter_mut().zip(x).zip(d) {
        *o = (v * mul + e).clamp(0.0, UNSIGNED_STEPS) as u16;
    }
}

/// Defines `$name`, running the portable body `$portable` compiled for AVX2 when the
/// processor has it (the same IEEE operations and saturating casts, so the same steps).
macro_rules! steps {
    ($name:ident, $portable:ident, $fast:ident, $t:ty) => {
        #[doc = concat!("[`", stringify!($portable), "`], compiled for AVX2 where it runs.")]
        fn $name(x: &[f64], d: &[f64], mul: f64, out: &mut [$t]) {
            #[cfg(target_arch = "x86_64")]
            if avx2() {
                // SAFETY: the processor has AVX2.
                return unsafe { $fast(x, d, mul, out) };
            }
            $portable(x, d, mul, out)
        }

        /// The AVX2 compilation of the loop of the same name.
        ///
        /// # Safety
        /// The processor has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $fast(x: &[f64], d: &[f64], mul: f64, out: &mut [$t]) {
            $portable(x, d, mul, out)
        }
    };
}

steps!(signed_steps, signed_steps_portable, signed_steps_avx2, i16);
steps!(
    unsigned_steps,
    unsigned_steps_portable,
    unsigned_steps_avx2,
    u16
);

/// The value of one regret step at a node of regret scale `scale`.
#[inline(always)]
fn signed_unit(scale: f32) -> f64 {
    f64::from(scale) / SIGNED_STEPS
}

/// The value of one sum step at a node of sum scale `scale`.
#[inline(always)]
fn unsigned_unit(scale: f32) -> f64 {
    f64::from(scale) / UNSIGNED_STEPS
}

/// The compressed state of both players.
pub(super) struct Compressed {
    /// Cumulative regrets, in steps of their node's regret scale / 32767.
    regret: [Vec<i16>; 2],
    /// Average-strategy sums, in steps of their node's sum scale / 65535.
    sum: [Vec<u16>; 2],
    /// Each game node's regret scale (its largest regret magnitude; decision nodes only).
    regret_scale: Vec<f32>,
    /// Each game node's sum scale (its largest sum; decision nodes only).
    sum_scale: Vec<f32>,
    /// The rules' other arrays in `f32` (`last`, `sigma`, `play`; its regrets and sums are
    /// empty).
    rest: State<f32>,
}

/// The compressed state's pointers, shared by the walks of different cards (which write
/// disjoint nodes' entries and scales).
#[derive(Clone, Copy)]
pub(super) struct CShared {
    regret: [*mut i16; 2],
    sum: [*mut u16; 2],
    regret_scale: *mut f32,
    sum_scale: *mut f32,
    /// The `f32` arrays of [`Compressed::rest`], with the strategy's source and factors.
    rest: Shared<f32>,
}

// SAFETY: as for `Shared`: the walks of a chance node's cards touch the entries and scales
// of disjoint subtrees only; nothing else runs while they do.
unsafe impl Send for CShared {}
unsafe impl Sync for CShared {}

thread_local! {
    /// A node's decoded block during its update: the new regrets, then the new sums.
    static BLOCK: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

impl Compressed {
    /// The zero state of `game` for `params` (VAD-CFR's stored strategy uniform).
    pub(super) fn new(game: &Game, params: &RegretParams) -> Compressed {
        Compressed {
            regret: [0, 1].map(|p| super::pages::zeroed(0i16, game.state_len[p])),
            sum: [0, 1].map(|p| super::pages::zeroed(0u16, game.state_len[p])),
            regret_scale: vec![0.0; game.nodes.len()],
            sum_scale: vec![0.0; game.nodes.len()],
            rest: State::with(game, params, false),
        }
    }

    /// The pointers the walks use.
    pub(super) fn shared(&mut self, params: &RegretParams, factors: [Factors; 2]) -> CShared {
        CShared {
            regret: [self.regret[0].as_mut_ptr(), self.regret[1].as_mut_ptr()],
            sum: [self.sum[0].as_mut_ptr(), self.sum[1].as_mut_ptr()],
            regret_scale: self.regret_scale.as_mut_ptr(),
            sum_scale: self.sum_scale.as_mut_ptr(),
            rest: self.rest.shared(params, factors),
        }
    }

    /// Simultaneous updates: the current strategies copied into `play` (`f32`) before an
    /// iteration, from the decoded regrets.
    pub(super) fn fill_play(&mut self, game: &Game, factors: [Factors; 2]) {
        if factors[0].volatility.is_some() {
            for a in 0..2 {
                let (src, dst) = (&self.rest.sigma[a], &mut self.rest.play[a]);
                dst.copy_from_slice(src);
            }
            return;
        }
        let (mut reg, mut row, mut tot) = (Vec::new(), Vec::new(), Vec::new());
        for (gi, g) in game.nodes.iter().enumerate() {
            let GameKind::Decision(a) = g.kind else {
                continue;
            };
            let a = a as usize;
            let k = g.num_children as usize;
            let off = g.aux as usize;
            let len = k * game.hands[a].len();
            let steps = &self.regret[a][off..off + len];
            row.resize(len, 0.0);
            tot.resize(len / k, 0.0);
            if !factors[a].predictive {
                // The scale cancels, as in `CShared::current`.
                match_columns(
                    steps,
                    &[] as &[f32],
                    &factors[a],
                    k,
                    &mut row,
                    &mut tot,
                    &[],
                );
            } else {
                let unit = signed_unit(self.regret_scale[gi]);
                reg.clear();
                reg.extend(steps.iter().map(|&q| f64::from(q) * unit));
                let last: &[f32] = if self.rest.last[a].is_empty() {
                    &[]
                } else {
                    &self.rest.last[a][off..off + len]
                };
                match_columns(&reg, last, &factors[a], k, &mut row, &mut tot, &[]);
            }
            for (d, &x) in self.rest.play[a][off..off + len].iter_mut().zip(&row) {
                *d = x as f32;
            }
        }
    }

    /// The average strategy of player `a`'s node at `off` (`k` actions, `n` hands),
    /// hand-major.
    pub(super) fn average_at(&self, a: usize, off: usize, k: usize, n: usize) -> Vec<f64> {
        // The scale cancels: each hand's sums over their total.
        average_rows(&self.sum[a][off..off + k * n], k)
    }

    /// Sets the average sums of game node `g` (player `a`'s entries from `off`, `k` actions)
    /// to `probs` (action-major).
    pub(super) fn set_average(&mut self, g: usize, a: usize, off: usize, k: usize, probs: &[f64]) {
        let out = &mut self.sum[a][off..off + probs.len()];
        self.sum_scale[g] = encode_unsigned(probs, out, seed_of(0.0, g, 1), k);
    }

    /// The arrays a checkpoint keeps, by name, in file order: the regrets and sums of each
    /// player, the rules' other kept arrays (as the `f32` storage names them), then the
    /// scales of every game node.
    pub(super) fn arrays(&self) -> Vec<(String, ArrayRef<'_>)> {
        let mut out = Vec::new();
        for (p, a) in self.regret.iter().enumerate() {
            out.push((format!("regret{p}"), ArrayRef::I16(a)));
        }
        for (p, a) in self.sum.iter().enumerate() {
            out.push((format!("sum{p}"), ArrayRef::U16(a)));
        }
        for (name, arrays) in [("last", &self.rest.last), ("sigma", &self.rest.sigma)] {
            for (p, a) in arrays.iter().enumerate() {
                if !a.is_empty() {
                    out.push((format!("{name}{p}"), ArrayRef::F32(a)));
                }
            }
        }
        out.push(("regret_scale".into(), ArrayRef::F32(&self.regret_scale)));
        out.push(("sum_scale".into(), ArrayRef::F32(&self.sum_scale)));
        out
    }

    /// [`Compressed::arrays`], to be overwritten.
    pub(super) fn arrays_mut(&mut self) -> Vec<(String, ArrayMut<'_>)> {
        let mut out = Vec::new();
        for (p, a) in self.regret.iter_mut().enumerate() {
            out.push((format!("regret{p}"), ArrayMut::I16(a)));
        }
        for (p, a) in self.sum.iter_mut().enumerate() {
            out.push((format!("sum{p}"), ArrayMut::U16(a)));
        }
        let rest = &mut self.rest;
        for (name, arrays) in [("last", &mut rest.last), ("sigma", &mut rest.sigma)] {
            for (p, a) in arrays.iter_mut().enumerate() {
                if !a.is_empty() {
                    out.push((format!("{name}{p}"), ArrayMut::F32(a)));
                }
            }
        }
        out.push(("regret_scale".into(), ArrayMut::F32(&mut self.regret_scale)));
        out.push(("sum_scale".into(), ArrayMut::F32(&mut self.sum_scale)));
        out
    }
}

impl CShared {
    /// [`Access::current`] of a predictive rule from the decoded regrets: the node's block
    /// decoded into `block`, then regret matching by columns.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn current_columns(
        self,
        g: usize,
        a: usize,
        off: usize,
        k: usize,
        out: &mut [f64],
        tot: &mut [f64],
        block: &mut [f64],
    ) {
        let len = out.len();
        // SAFETY: the node's entries and scale; no walk writes them while this one reads.
        let (q, unit) = unsafe {
            (
                slice(self.regret[a], off, len),
                signed_unit(*self.regret_scale.add(g)),
            )
        };
        let sh = self.rest;
        let reg = &mut block[..len];
        for (r, &x) in reg.iter_mut().zip(q) {
            *r = f64::from(x) * unit;
        }
        let last: &[f32] = if sh.keeps_last {
            unsafe { slice(sh.last[a], off, len) }
        } else {
            &[]
        };
        match_columns(reg, last, &sh.factors[a], k, out, tot, &[]);
    }

    /// [`Access::update`]: the node's block decoded into `block` (regrets, then sums),
    /// updated as the other storages update theirs ([`update_block`]), and encoded with its
    /// new scales.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn update_columns<const KIND: u8>(
        self,
        g: usize,
        a: usize,
        at: NodeAt,
        v: &[f64],
        r: &[f64],
        own: &[f64],
        st: &[f64],
        f: Factors,
        block: &mut [f64],
    ) {
        let NodeAt { off, k, n } = at;
        let len = k * r.len();
        let (new_regret, new_sum) = block[..2 * len].split_at_mut(len);
        let sh = self.rest;
        // SAFETY: this node's entries and scales; no other walk touches them.
        let (rq, sq, rs, ss) = unsafe {
            (
                slice_mut(self.regret[a], off, len),
                slice_mut(self.sum[a], off, len),
                &mut *self.regret_scale.add(g),
                &mut *self.sum_scale.add(g),
            )
        };
        let (ru, su) = (signed_unit(*rs), unsigned_unit(*ss));
        for (x, &q) in new_regret.iter_mut().zip(rq.iter()) {
            *x = f64::from(q) * ru;
        }
        for (x, &q) in new_sum.iter_mut().zip(sq.iter()) {
            *x = f64::from(q) * su;
        }
        // SAFETY: as above.
        let (last, sigma) = unsafe { sh.rule_arrays(a, off, len) };
        let b = Block {
            regret: &mut *new_regret,
            sum: &mut *new_sum,
            last,
            sigma,
        };
        let x = Inputs {
            v,
            stride: n,
            r,
            own,
            st,
            k,
        };
        update_block::<f64, f32, KIND>(b, x, f);
        *rs = encode_signed(new_regret, rq, seed_of(f.t, g, 0), k);
        *ss = encode_unsigned(new_sum, sq, seed_of(f.t, g, 1), k);
    }
}

/// A node's block decoded from 16 bits (`len` entries, or twice that for an update).
fn with_block<R>(len: usize, f: impl FnOnce(&mut [f64]) -> R) -> R {
    BLOCK.with(|b| {
        let mut block = b.borrow_mut();
        if block.len() < len {
            block.resize(len, 0.0);
        }
        f(&mut block[..len])
    })
}

impl Access for CShared {
    #[inline(always)]
    fn current(
        self,
        g: usize,
        a: usize,
        off: usize,
        k: usize,
        _own: bool,
        out: &mut [f64],
        tot: &mut [f64],
    ) {
        if self.rest.current != Current::Regrets {
            // VAD-CFR's stored strategy or the simultaneous updates' copy: f32 arrays.
            return strategy_of(self.rest, a, off, k, false, out, tot);
        }
        let f = &self.rest.factors[a];
        if !f.predictive {
            // The scale (positive, or 0 with every step 0) cancels: regret matching on the
            // steps themselves (in f32, exactly summed: `k * 32767 < 2^24`).
            // SAFETY: the node's entries; no walk writes them while this one reads.
            let q = unsafe { slice(self.regret[a], off, out.len()) };
            return match_columns(q, &[] as &[f32], f, k, out, tot, &[]);
        }
        with_block(out.len(), |block| {
            self.current_columns(g, a, off, k, out, tot, block)
        })
    }

    #[inline(always)]
    fn average(self, _g: usize, a: usize, off: usize, k: usize, out: &mut [f64], tot: &mut [f64]) {
        // The scale cancels: each hand's sums over their total.
        // SAFETY: the node's entries; no walk writes them while this one reads.
        let q = unsafe { slice(self.sum[a], off, out.len()) };
        average_columns(q, k, out, tot)
    }

    #[inline(always)]
    fn update<const KIND: u8>(
        self,
        g: usize,
        a: usize,
        at: NodeAt,
        v: &[f64],
        r: &[f64],
        own: &[f64],
        st: &[f64],
        f: Factors,
    ) {
        with_block(2 * at.k * r.len(), |block| {
            self.update_columns::<KIND>(g, a, at, v, r, own, st, f, block)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_entries_are_within_a_step_and_unbiased() {
        let x = [-3.0, 1.5, 0.0, 1e-9, 2.9999];
        let mut q = [0i16; 5];
        let scale = encode_signed(&x, &mut q, 7, 1);
        assert_eq!(scale, 3.0);
        assert_eq!((q[0], q[2]), (-32767, 0));
        let unit = signed_unit(scale);
        for (&v, &s) in x.iter().zip(&q) {
            assert!((f64::from(s) * unit - v).abs() < unit);
        }
        // 1.5 / 3 * 32767 = 16383.5: up or down, half the time each over many seeds.
        let ups = (0..10_000u64)
            .filter(|&seed| {
                encode_signed(&x, &mut q, seed, 1);
                q[1] == 16384
            })
            .count();
        assert!((4_800..5_200).contains(&ups), "{ups}");
    }

    #[test]
    fn unsigned_entries_use_every_step_up_to_the_largest() {
        let x = [0.0, 7.0, 3.5, -1e-12];
        let mut q = [1u16; 4];
        let scale = encode_unsigned(&x, &mut q, 3, 1);
        assert_eq!(scale, 7.0);
        assert_eq!((q[0], q[1], q[3]), (0, 65535, 0));
        assert!(q[2] == 32767 || q[2] == 32768);
        assert_eq!(encode_unsigned(&[0.0, 0.0], &mut q[..2], 3, 1), 0.0);
        assert_eq!(q[..2], [0, 0]);
    }
}
