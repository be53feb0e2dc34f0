//! Fold and showdown sums over the opponent's hands in linear time, with card removal.
//!
//! For each of a player's hands `i`, the engine needs sums over the opponent's hands `j` that
//! share no card with `i`: the opponent's reach at a fold, and the reach weighted by
//! win (+1) / tie (0) / loss (-1) at a river showdown. A hand-against-hand product costs
//! `n x m`; here the opponent's reach is summed once in total and once per card, and the sums
//! over the hands that block `i` are taken off by inclusion-exclusion: minus the hands holding
//! `i`'s first card, minus those holding its second, plus the one hand holding both (the same
//! combo). At a showdown the two lists are sorted by strength once ([`Showdown::new`]) and
//! each evaluation sweeps them in order, so the sums cover the weaker (or the stronger) hands.

use super::cards::{Card, CardSet};
use super::eval::{evaluate, Strength};
use super::solver::kernels;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// A two-card hand.
pub type Hand = (Card, Card);

/// Per-card sums of a reach vector, and its total.
struct CardSums {
    total: f64,
    /// Indexed by card (below 52), padded to 64 entries: indices are taken modulo 64.
    card: [f64; 64],
}

impl CardSums {
    fn new() -> CardSums {
        CardSums {
            total: 0.0,
            card: [0.0; 64],
        }
    }
    #[inline(always)]
    fn add(&mut self, h: [u8; 2], r: f64) {
        self.total += r;
        self.card[(h[0] & 63) as usize] += r;
        self.card[(h[1] & 63) as usize] += r;
    }
    /// The sum over the hands sharing no card with `h`, less `same` (the reach of `h` itself,
    /// counted in both card sums).
    #[inline(always)]
    fn disjoint(&self, h: [u8; 2], same: f64) -> f64 {
        self.minus(h) + same
    }
    /// The total less the sums of `h`'s two cards.
    #[inline(always)]
    fn minus(&self, h: [u8; 2]) -> f64 {
        self.total - self.card[(h[0] & 63) as usize] - self.card[(h[1] & 63) as usize]
    }
}

/// A hand's two cards as card indices.
fn cards(h: Hand) -> [u8; 2] {
    [h.0 .0, h.1 .0]
}

/// For each hand `i` of `hands`, the opponent's index of the same combo, if any.
fn same_combo(hands: &[Hand], opp: &[Hand]) -> Vec<Option<u32>> {
    let key = |h: Hand| if h.0 < h.1 { (h.0, h.1) } else { (h.1, h.0) };
    let mut index = std::collections::HashMap::with_capacity(opp.len());
    for (j, &h) in opp.iter().enumerate() {
        index.insert(key(h), j as u32);
    }
    hands.iter().map(|&h| index.get(&key(h)).copied()).collect()
}

/// The fold sums: `out[i]` is the opponent's reach summed over its hands that share no card
/// with `hands[i]`.
pub fn fold_sums(hands: &[Hand], opp: &[Hand], opp_reach: &[f64], out: &mut [f64]) {
    Fold::new(hands, opp).sums(opp_reach, out);
}

/// The fold sums of two fixed lists of hands, the same-combo pairs found once.
#[derive(Clone, Debug)]
pub struct Fold {
    /// The hands' first cards.
    c0: Vec<u8>,
    /// Their second cards.
    c1: Vec<u8>,
    /// For each hand, the opponent's index of the same combo (`u32::MAX`: none).
    same: Vec<u32>,
    /// The opponent's hands holding each card: card `c`'s are
    /// `by_card[card_start[c]..card_start[c + 1]]`.
    by_card: Vec<u32>,
    card_start: Vec<u32>,
    /// The opponent's number of hands.
    opp_len: usize,
    /// The opponent's hands' cards.
    opp_cards: Vec<[u8; 2]>,
}

impl Fold {
    /// Pairs `hands` with `opp`.
    pub fn new(hands: &[Hand], opp: &[Hand]) -> Fold {
        let mut lists = vec![Vec::new(); 52];
        for (j, &h) in opp.iter().enumerate() {
            for c in cards(h) {
                lists[c as usize].push(j as u32);
            }
        }
        let mut card_start = Vec::with_capacity(53);
        let mut by_card = Vec::with_capacity(2 * opp.len());
        for list in &lists {
            card_start.push(by_card.len() as u32);
            by_card.extend_from_slice(list);
        }
        card_start.push(by_card.len() as u32);
        Fold {
            same: same_combo(hands, opp)
                .into_iter()
                .map(|j| j.unwrap_or(u32::MAX))
                .collect(),
            c0: hands.iter().map(|h| h.0 .0).collect(),
            c1: hands.iter().map(|h| h.1 .0).collect(),
            by_card,
            card_start,
            opp_len: opp.len(),
            opp_cards: opp.iter().map(|&h| cards(h)).collect(),
        }
    }

    /// `out[i]`: the opponent's reach summed over its hands sharing no card with `hands[i]`.
    ///
    /// Each card's sum is gathered from the list of the hands holding it (independent sums,
    /// no chain of stores through one array), in the hands' order like the total, so that a
    /// reach held only by hands sharing a card with `hands[i]` leaves exactly 0.
    pub fn sums(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.sums_times(opp_reach, 1.0, out);
    }

    /// [`Fold::sums`] each multiplied by `coef` (a fold's chips), in the same pass.
    pub fn sums_times(&self, opp_reach: &[f64], coef: f64, out: &mut [f64]) {
        let mut card = [0.0f64; 64];
        for (c, s) in card.iter_mut().take(52).enumerate() {
            let list = &self.by_card[self.card_start[c] as usize..self.card_start[c + 1] as usize];
            let mut acc = 0.0;
            for &j in list {
                acc += opp_reach[j as usize];
            }
            *s = acc;
        }
        let mut total = 0.0;
        for &r in &opp_reach[..self.opp_len] {
            total += r;
        }
        let out = &mut out[..self.c0.len()];
        let reach = &opp_reach[..self.opp_len];
        // SAFETY: the same combos are indices into the opponent's hands (`same_combo`).
        unsafe {
            kernels::fold_combine(
                total, &card, &self.c0, &self.c1, &self.same, reach, coef, out,
            )
        };
    }

    /// [`Fold::sums_times`] of up to [`LANES`] reach vectors at once, `outs[l]` from
    /// `reaches[l]` and `coefs[l]`, each lane's arithmetic that of one call: the total and
    /// each card's sum add the reaches in the opponent's hands' order, then
    /// `coef x (total - card[c0] - card[c1] + same)` per hand.
    ///
    /// # Panics
    /// When the three lists' lengths differ or exceed [`LANES`].
    pub fn sums_times_batch(&self, reaches: &[&[f64]], coefs: &[f64], outs: &mut [&mut [f64]]) {
        self.sums_times_batch_in(reaches, coefs, outs, false);
    }

    /// [`Fold::sums_times_batch`], on the portable path when `portable`.
    fn sums_times_batch_in(
        &self,
        reaches: &[&[f64]],
        coefs: &[f64],
        outs: &mut [&mut [f64]],
        portable: bool,
    ) {
        let lanes = reaches.len();
        assert!(lanes <= LANES && coefs.len() == lanes && outs.len() == lanes);
        let (m, n) = (self.opp_len, self.c0.len());
        BATCH.with(|cell| {
            let mut b = cell.borrow_mut();
            let Batch { zero, spare, .. } = b.sized(m, n);
            let (r, o) = lanes_of(reaches, outs, zero, spare, m, n);
            let mut coef = [0.0; LANES];
            coef[..lanes].copy_from_slice(coefs);
            fold_lanes(self, r, &coef, o, portable);
        });
    }
}

/// Exactly [`LANES`] reach vectors (`m` long) and outputs (`n` long): the given ones, then
/// zeros to read and spare vectors to write.
fn lanes_of<'a>(
    reaches: &[&'a [f64]],
    outs: &'a mut [&mut [f64]],
    zero: &'a [f64],
    spare: &'a mut [f64],
    m: usize,
    n: usize,
) -> ([&'a [f64]; LANES], [&'a mut [f64]; LANES]) {
    let mut r: [&[f64]; LANES] = [&zero[..m]; LANES];
    for (x, y) in r.iter_mut().zip(reaches) {
        *x = &y[..m];
    }
    let mut given = outs.iter_mut();
    let mut spares = spare.chunks_mut(n);
    let o: [&mut [f64]; LANES] = std::array::from_fn(|_| match given.next() {
        Some(y) => &mut y[..n],
        None => spares.next().expect("spare lanes"),
    });
    (r, o)
}

/// How many reach vectors a batched evaluation takes at once (four `f64` lanes: one AVX2
/// register).
pub const LANES: usize = 4;

/// Four lanes of `f64`.
type Lanes = [f64; LANES];

/// Lane-wise `a + b`.
#[inline(always)]
fn add4(a: Lanes, b: Lanes) -> Lanes {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3]]
}

/// Lane-wise `a - b`.
#[inline(always)]
fn sub4(a: Lanes, b: Lanes) -> Lanes {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3]]
}

/// Lane-wise `a x b`.
#[inline(always)]
fn mul4(a: Lanes, b: Lanes) -> Lanes {
    [a[0] * b[0], a[1] * b[1], a[2] * b[2], a[3] * b[3]]
}

/// Per-card sums of four reach vectors, and their totals ([`CardSums`] lane by lane).
struct CardSums4 {
    total: Lanes,
    card: [Lanes; 64],
}

impl CardSums4 {
    #[inline(always)]
    fn new() -> CardSums4 {
        CardSums4 {
            total: [0.0; LANES],
            card: [[0.0; LANES]; 64],
        }
    }
    #[inline(always)]
    fn add(&mut self, h: [u8; 2], r: Lanes) {
        self.total = add4(self.total, r);
        let (a, b) = ((h[0] & 63) as usize, (h[1] & 63) as usize);
        self.card[a] = add4(self.card[a], r);
        self.card[b] = add4(self.card[b], r);
    }
    /// [`CardSums::minus`] lane by lane.
    #[inline(always)]
    fn minus(&self, h: [u8; 2]) -> Lanes {
        sub4(
            sub4(self.total, self.card[(h[0] & 63) as usize]),
            self.card[(h[1] & 63) as usize],
        )
    }
    /// [`CardSums::disjoint`] lane by lane.
    #[inline(always)]
    fn disjoint(&self, h: [u8; 2], same: Lanes) -> Lanes {
        add4(self.minus(h), same)
    }
}

/// A batched evaluation's buffers: a showdown sweep's partial sums (in lanes).
#[derive(Default)]
struct Batch {
    w: Vec<Lanes>,
    /// Zeros, the reach of a missing lane.
    zero: Vec<f64>,
    /// The results of the missing lanes.
    spare: Vec<f64>,
}

impl Batch {
    /// The opponent's lists at least `m` long, the player's `n`.
    fn sized(&mut self, m: usize, n: usize) -> &mut Batch {
        if self.w.len() < n {
            self.w.resize(n, [0.0; LANES]);
        }
        if self.zero.len() < m {
            self.zero.resize(m, 0.0);
        }
        if self.spare.len() < LANES * n {
            self.spare.resize(LANES * n, 0.0);
        }
        self
    }
}

thread_local! {
    /// The buffers of the batched evaluations.
    static BATCH: std::cell::RefCell<Batch> = std::cell::RefCell::new(Batch::default());
}

/// The lanes of [`Fold::sums_times_batch`]: AVX2 when the processor has it (the same
/// operations in the same order: the same bits).
/// `portable` forces the portable path (the tests compare the two).
fn fold_lanes(
    f: &Fold,
    reach: [&[f64]; LANES],
    coef: &Lanes,
    out: [&mut [f64]; LANES],
    portable: bool,
) {
    #[cfg(target_arch = "x86_64")]
    if !portable && kernels::avx2() {
        // SAFETY: the processor has AVX2.
        return unsafe { fold_lanes_avx2(f, reach, coef, out) };
    }
    let (total, card) = fold_card_sums(f, reach);
    fold_finish(f, &total, &card, reach, coef, out, 0);
}

/// The AVX2 compilation of [`fold_lanes`]: the sums as [`fold_card_sums`], then four hands
/// at a time, their four lanes transposed into one store per output.
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_lanes_avx2(
    f: &Fold,
    reach: [&[f64]; LANES],
    coef: &Lanes,
    out: [&mut [f64]; LANES],
) {
    // `fold_card_sums` in registers: the total in one, each card's sum an aligned slot,
    // four hands' reaches loaded at once per vector and transposed, then added in order.
    let [r0, r1, r2, r3] = reach;
    let m = f.opp_len;
    let (r0, r1, r2, r3) = (&r0[..m], &r1[..m], &r2[..m], &r3[..m]);
    let opp_cards = &f.opp_cards[..m];
    let zero = _mm256_setzero_pd();
    let mut vt = zero;
    let mut cards = [zero; 64];
    let mut j = 0;
    while j + 4 <= m {
        let hands = transpose4([
            _mm256_loadu_pd(r0[j..].as_ptr()),
            _mm256_loadu_pd(r1[j..].as_ptr()),
            _mm256_loadu_pd(r2[j..].as_ptr()),
            _mm256_loadu_pd(r3[j..].as_ptr()),
        ]);
        for (q, &r) in hands.iter().enumerate() {
            let cs = opp_cards[j + q];
            let (x, y) = ((cs[0] & 63) as usize, (cs[1] & 63) as usize);
            vt = _mm256_add_pd(vt, r);
            cards[x] = _mm256_add_pd(cards[x], r);
            cards[y] = _mm256_add_pd(cards[y], r);
        }
        j += 4;
    }
    while j < m {
        let r = _mm256_set_pd(r3[j], r2[j], r1[j], r0[j]);
        let cs = opp_cards[j];
        let (x, y) = ((cs[0] & 63) as usize, (cs[1] & 63) as usize);
        vt = _mm256_add_pd(vt, r);
        cards[x] = _mm256_add_pd(cards[x], r);
        cards[y] = _mm256_add_pd(cards[y], r);
        j += 1;
    }
    let mut total = [0.0; LANES];
    _mm256_storeu_pd(total.as_mut_ptr(), vt);
    let mut card = [[0.0; LANES]; 64];
    for (c, v) in card.iter_mut().zip(&cards) {
        _mm256_storeu_pd(c.as_mut_ptr(), *v);
    }
    let n = f.c0.len();
    let full = n - n % 4;
    let [o0, o1, o2, o3] = out;
    let (o0, o1, o2, o3) = (&mut o0[..n], &mut o1[..n], &mut o2[..n], &mut o3[..n]);
    let vc = _mm256_loadu_pd(coef.as_ptr());
    let mut y = 0;
    while y < full {
        // (A loop, not a closure: a closure would not be compiled for AVX2.)
        let mut v = [_mm256_setzero_pd(); 4];
        for (q, vq) in v.iter_mut().enumerate() {
            let h = y + q;
            let a = cards[(f.c0[h] & 63) as usize];
            let b = cards[(f.c1[h] & 63) as usize];
            let j = f.same[h];
            let same = if j == u32::MAX {
                _mm256_setzero_pd()
            } else {
                let j = j as usize;
                _mm256_set_pd(r3[j], r2[j], r1[j], r0[j])
            };
            *vq = _mm256_mul_pd(
                vc,
                _mm256_add_pd(_mm256_sub_pd(_mm256_sub_pd(vt, a), b), same),
            );
        }
        // Hand q's lane l to output l's entry y + q.
        let rows = transpose4(v);
        _mm256_storeu_pd(o0.as_mut_ptr().add(y), rows[0]);
        _mm256_storeu_pd(o1.as_mut_ptr().add(y), rows[1]);
        _mm256_storeu_pd(o2.as_mut_ptr().add(y), rows[2]);
        _mm256_storeu_pd(o3.as_mut_ptr().add(y), rows[3]);
        y += 4;
    }
    fold_finish(f, &total, &card, reach, coef, [o0, o1, o2, o3], full);
}

/// A 4 x 4 transpose: element `q` of row `l` becomes element `l` of row `q` (four vectors'
/// entries as lanes, or four hands' lanes as vectors).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn transpose4(v: [__m256d; 4]) -> [__m256d; 4] {
    let (t0, t1) = (
        _mm256_unpacklo_pd(v[0], v[1]),
        _mm256_unpackhi_pd(v[0], v[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_pd(v[2], v[3]),
        _mm256_unpackhi_pd(v[2], v[3]),
    );
    [
        _mm256_permute2f128_pd::<0x20>(t0, t2),
        _mm256_permute2f128_pd::<0x20>(t1, t3),
        _mm256_permute2f128_pd::<0x31>(t0, t2),
        _mm256_permute2f128_pd::<0x31>(t1, t3),
    ]
}

/// The total and each card's sum of four reach vectors, lane by lane, adding the reaches in
/// the opponent's hands' order as [`Fold::sums_times`] does.
#[inline(always)]
fn fold_card_sums(f: &Fold, reach: [&[f64]; LANES]) -> (Lanes, [Lanes; 64]) {
    let [r0, r1, r2, r3] = reach;
    let m = f.opp_len;
    let (r0, r1, r2, r3) = (&r0[..m], &r1[..m], &r2[..m], &r3[..m]);
    let mut sums = CardSums4::new();
    for (j, &c) in f.opp_cards[..m].iter().enumerate() {
        sums.add(c, [r0[j], r1[j], r2[j], r3[j]]);
    }
    (sums.total, sums.card)
}

/// The last step of [`fold_lanes`] from the player's hand `from`: `coef x (total -
/// card[c0] - card[c1] + same)` per hand and lane.
#[inline(always)]
fn fold_finish(
    f: &Fold,
    total: &Lanes,
    card: &[Lanes; 64],
    reach: [&[f64]; LANES],
    coef: &Lanes,
    out: [&mut [f64]; LANES],
    from: usize,
) {
    let [r0, r1, r2, r3] = reach;
    let [o0, o1, o2, o3] = out;
    for y in from..f.c0.len() {
        let j = f.same[y];
        let same = if j == u32::MAX {
            [0.0; LANES]
        } else {
            let j = j as usize;
            [r0[j], r1[j], r2[j], r3[j]]
        };
        let (a, b) = ((f.c0[y] & 63) as usize, (f.c1[y] & 63) as usize);
        let minus = sub4(sub4(*total, card[a]), card[b]);
        let v = mul4(*coef, add4(minus, same));
        o0[y] = v[0];
        o1[y] = v[1];
        o2[y] = v[2];
        o3[y] = v[3];
    }
}

/// A river showdown between two lists of hands on one board, sorted once by strength: the
/// sweeps' bounds are found when it is built, so an evaluation compares no strengths.
pub struct Showdown {
    /// The player's number of hands.
    n: usize,
    /// The opponent's number of hands.
    opp_n: usize,
    /// The player's hands not blocked by the board, weakest first.
    order: Vec<u16>,
    /// Their first cards.
    c0: Vec<u8>,
    /// Their second cards.
    c1: Vec<u8>,
    /// The opponent's hands not blocked by the board, weakest first.
    opp_order: Vec<u16>,
    /// Their cards.
    opp_cards: Vec<[u8; 2]>,
    /// For each entry of `order`, the opponent's index of the same combo (`u16::MAX`: none).
    same: Vec<u16>,
    /// The runs of `order` with the same bounds in the opponent's sorted list, the groups a
    /// sweep takes together: `[end, below, not_above]`, the run ending (in `order`) at `end`,
    /// its hands beating the opponent's first `below` hands and not losing to the first
    /// `not_above`.
    groups: Vec<[u16; 3]>,
    /// The player's hands holding a board card (0 in every evaluation).
    off_board: Vec<u16>,
}

thread_local! {
    /// A sweep's scratch: its partial sums and the same combos' reaches, in strength order.
    static SWEEP: std::cell::RefCell<Vec<f64>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Showdown {
    /// Sorts both lists on a 5-card board. Hands holding a board card are left out: their
    /// sums are 0 and they count for no opponent hand.
    pub fn new(board: CardSet, hands: &[Hand], opp: &[Hand]) -> Showdown {
        debug_assert_eq!(board.count_ones(), 5);
        let sorted = |list: &[Hand]| {
            let mut v: Vec<(Strength, usize)> = list
                .iter()
                .enumerate()
                .filter(|(_, h)| (h.0.bit() | h.1.bit()) & board == 0)
                .map(|(i, h)| (evaluate(board | h.0.bit() | h.1.bit()), i))
                .collect();
            v.sort_unstable();
            v
        };
        let (order, opp_order) = (sorted(hands), sorted(opp));
        let same = same_combo(hands, opp);
        let bounds = |s: Strength| {
            [
                opp_order.partition_point(|o| o.0 < s) as u16,
                opp_order.partition_point(|o| o.0 <= s) as u16,
            ]
        };
        let mut groups: Vec<[u16; 3]> = Vec::new();
        for (e, &(s, _)) in order.iter().enumerate() {
            let [b, na] = bounds(s);
            match groups.last_mut() {
                Some(g) if g[1] == b && g[2] == na => g[0] = e as u16 + 1,
                _ => groups.push([e as u16 + 1, b, na]),
            }
        }
        let off_board = (0..hands.len())
            .filter(|&i| (hands[i].0.bit() | hands[i].1.bit()) & board != 0)
            .map(|i| i as u16)
            .collect();
        Showdown {
            n: hands.len(),
            opp_n: opp.len(),
            groups,
            off_board,
            c0: order.iter().map(|&(_, i)| hands[i].0 .0).collect(),
            c1: order.iter().map(|&(_, i)| hands[i].1 .0).collect(),
            same: order
                .iter()
                .map(|&(_, i)| same[i].map_or(u16::MAX, |j| j as u16))
                .collect(),
            order: order.iter().map(|&(_, i)| i as u16).collect(),
            opp_cards: opp_order.iter().map(|&(_, j)| cards(opp[j])).collect(),
            opp_order: opp_order.iter().map(|&(_, j)| j as u16).collect(),
        }
    }

    /// `out[i]`: the opponent's reach summed over its hands sharing no card with `hands[i]`,
    /// each counted +1 when `hands[i]` wins, -1 when it loses, 0 on a tie.
    pub fn sums(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.values(opp_reach, 0.0, 1.0, out);
    }

    /// `out[i] = a x total + s x (win - loss)`: over the opponent's hands sharing no card with
    /// `hands[i]` nor with the board, `total` sums their reach ([`Showdown::totals`]) and
    /// `win - loss` counts it +1 when `hands[i]` wins, -1 when it loses ([`Showdown::sums`]);
    /// 0 for a hand holding a board card.
    ///
    /// One sweep upwards through the opponent's sorted hands: with `win` the sum over the
    /// weaker hands and `not_above` the sum over the hands not stronger (both without the
    /// hands sharing a card), `loss = total - not_above`, so the result is
    /// `(a - s) x total + s x (win + not_above)`. The player's hands of one strength (the same
    /// bounds in the opponent's list) are taken together, their partial sums kept in strength
    /// order; the last step ([`kernels::showdown_combine`]) and the same combos' reaches
    /// ([`kernels::gather_same`]) are vector loops.
    pub fn values(&self, opp_reach: &[f64], a: f64, s: f64, out: &mut [f64]) {
        let l = self.order.len();
        SWEEP.with(|cell| {
            let mut buf = cell.borrow_mut();
            if buf.len() < 2 * l {
                buf.resize(2 * l, 0.0);
            }
            let (w, same) = buf.split_at_mut(l);
            self.values_in(opp_reach, a, s, out, w, &mut same[..l]);
        });
    }

    /// [`Showdown::values`] with its scratch: `w` and `same` of `order`'s length.
    fn values_in(
        &self,
        opp_reach: &[f64],
        a: f64,
        s: f64,
        out: &mut [f64],
        w: &mut [f64],
        same: &mut [f64],
    ) {
        let out = &mut out[..self.n];
        for &i in &self.off_board {
            out[i as usize] = 0.0;
        }
        let m = self.opp_order.len();
        let (opp_order, opp_cards) = (&self.opp_order[..m], &self.opp_cards[..m]);
        let l = self.order.len();
        let (c0, c1) = (&self.c0[..l], &self.c1[..l]);
        let reach = &opp_reach[..self.opp_n];
        // SAFETY: the same combos are indices into the opponent's hands (`same_combo`).
        unsafe { kernels::gather_same(&self.same, reach, same) };
        let mut sums = CardSums::new();
        let mut k = 0;
        let mut x = 0;
        for &[e, b, na] in &self.groups {
            let e = e as usize;
            // Bounds never go down along `order`.
            let b = (b as usize).max(k);
            for (&c, &j) in opp_cards[k..b].iter().zip(&opp_order[k..b]) {
                sums.add(c, opp_reach[j as usize]);
            }
            k = b;
            let (wg, sg) = (&mut w[x..e], &same[x..e]);
            let (g0, g1) = (&c0[x..e], &c1[x..e]);
            // The same combo has the same strength: never below, always not above.
            let na = (na as usize).max(k);
            if na == k {
                // No opponent hand ties: both partial sums from the same card sums.
                for (((o, &p), &q), &r) in wg.iter_mut().zip(g0).zip(g1).zip(sg) {
                    let d = sums.minus([p, q]);
                    *o = (d + 0.0) + (d + r);
                }
            } else {
                for ((o, &p), &q) in wg.iter_mut().zip(g0).zip(g1) {
                    *o = sums.disjoint([p, q], 0.0);
                }
                for (&c, &j) in opp_cards[k..na].iter().zip(&opp_order[k..na]) {
                    sums.add(c, opp_reach[j as usize]);
                }
                k = na;
                for (((o, &p), &q), &r) in wg.iter_mut().zip(g0).zip(g1).zip(sg) {
                    *o += sums.disjoint([p, q], r);
                }
            }
            x = e;
        }
        for (&c, &j) in opp_cards[k..].iter().zip(&opp_order[k..]) {
            sums.add(c, opp_reach[j as usize]);
        }
        kernels::showdown_combine(sums.total, &sums.card, c0, c1, same, a - s, s, w);
        for (&i, &v) in self.order.iter().zip(w.iter()) {
            out[i as usize] = v;
        }
    }

    /// [`Showdown::values`] of up to [`LANES`] reach vectors at once, `outs[l]` from
    /// `reaches[l]` with `a[l]` and `s[l]`: one sweep for all, each lane's arithmetic that of
    /// one call (the same bits).
    ///
    /// # Panics
    /// When the lists' lengths differ or exceed [`LANES`].
    pub fn values_batch(&self, reaches: &[&[f64]], a: &[f64], s: &[f64], outs: &mut [&mut [f64]]) {
        self.values_batch_in(reaches, a, s, outs, false);
    }

    /// [`Showdown::values_batch`], on the portable path when `portable`.
    fn values_batch_in(
        &self,
        reaches: &[&[f64]],
        a: &[f64],
        s: &[f64],
        outs: &mut [&mut [f64]],
        portable: bool,
    ) {
        let lanes = reaches.len();
        assert!(lanes <= LANES && a.len() == lanes && s.len() == lanes && outs.len() == lanes);
        for out in outs.iter_mut() {
            for &i in &self.off_board {
                out[i as usize] = 0.0;
            }
        }
        let l = self.order.len();
        let (mut t4, mut s4) = ([0.0; LANES], [0.0; LANES]);
        for i in 0..lanes {
            t4[i] = a[i] - s[i];
            s4[i] = s[i];
        }
        BATCH.with(|cell| {
            let mut b = cell.borrow_mut();
            let Batch { zero, spare, w, .. } = b.sized(self.opp_n, self.n);
            let (r, o) = lanes_of(reaches, outs, zero, spare, self.opp_n, self.n);
            let x = SweepLanes {
                groups: &self.groups,
                opp_cards: &self.opp_cards,
                opp_order: &self.opp_order,
                order: &self.order,
                c0: &self.c0,
                c1: &self.c1,
                same_of: &self.same,
                reach: r,
                t: t4,
                s: s4,
            };
            sweep_lanes(&x, &mut w[..l], o, portable);
        });
    }

    /// `out[i]`: the opponent's reach summed over its hands sharing no card with `hands[i]`
    /// nor with the board (0 for a hand holding a board card).
    pub fn totals(&self, opp_reach: &[f64], out: &mut [f64]) {
        let mut all = CardSums::new();
        for (&j, &c) in self.opp_order.iter().zip(&self.opp_cards) {
            all.add(c, opp_reach[j as usize]);
        }
        for &i in &self.off_board {
            out[i as usize] = 0.0;
        }
        // The same combo, when the opponent holds it, counts in both card sums.
        for (y, (&i, &j)) in self.order.iter().zip(&self.same).enumerate() {
            let same = if j == u16::MAX {
                0.0
            } else {
                opp_reach[j as usize]
            };
            out[i as usize] = all.disjoint([self.c0[y], self.c1[y]], same);
        }
    }
}

/// The inputs of [`sweep_lanes`]: a [`Showdown`]'s sorted lists, the opponent's reach
/// vectors (one per lane) and the coefficients.
struct SweepLanes<'a> {
    groups: &'a [[u16; 3]],
    opp_cards: &'a [[u8; 2]],
    opp_order: &'a [u16],
    order: &'a [u16],
    c0: &'a [u8],
    c1: &'a [u8],
    same_of: &'a [u16],
    reach: [&'a [f64]; LANES],
    t: Lanes,
    s: Lanes,
}

/// The sweep of [`Showdown::values_batch`]: AVX2 when the processor has it (the same
/// operations in the same order: the same bits).
/// `portable` forces the portable path (the tests compare the two).
fn sweep_lanes(x: &SweepLanes, w: &mut [Lanes], out: [&mut [f64]; LANES], portable: bool) {
    #[cfg(target_arch = "x86_64")]
    if !portable && kernels::avx2() {
        // SAFETY: the processor has AVX2.
        return unsafe { sweep_lanes_avx2(x, w, out) };
    }
    let sums = sweep_sums(x, w);
    sweep_finish(x, &sums, w, out);
}

/// The AVX2 compilation of [`sweep_lanes`]: [`sweep_sums`], then [`sweep_finish`]'s
/// arithmetic one hand's four lanes to a register, stored lane by lane at the hand.
///
/// # Safety
/// The processor has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sweep_lanes_avx2(x: &SweepLanes, w: &mut [Lanes], out: [&mut [f64]; LANES]) {
    let l = w.len();
    let (c0, c1, same_of, order) = (&x.c0[..l], &x.c1[..l], &x.same_of[..l], &x.order[..l]);
    let [r0, r1, r2, r3] = x.reach;
    let m = r0.len();
    assert!(r1.len() == m && r2.len() == m && r3.len() == m);
    // One lane of each reach vector, hand `j`'s four reaches in one register.
    macro_rules! at {
        ($j:expr) => {{
            let j = $j;
            _mm256_set_pd(r3[j], r2[j], r1[j], r0[j])
        }};
    }
    macro_rules! same {
        ($y:expr) => {{
            let j = same_of[$y];
            if j == u16::MAX {
                _mm256_setzero_pd()
            } else {
                at!(j as usize)
            }
        }};
    }
    // `sweep_sums`, its sums in registers and a register array: the total never leaves its
    // register, each card's entry is one aligned load and store.
    let zero = _mm256_setzero_pd();
    let mut total = zero;
    let mut card = [zero; 64];
    macro_rules! add {
        ($c:expr, $r:expr) => {{
            let (c, r) = ($c, $r);
            total = _mm256_add_pd(total, r);
            let (a, b) = ((c[0] & 63) as usize, (c[1] & 63) as usize);
            card[a] = _mm256_add_pd(card[a], r);
            card[b] = _mm256_add_pd(card[b], r);
        }};
    }
    macro_rules! minus {
        ($y:expr) => {{
            let y = $y;
            _mm256_sub_pd(
                _mm256_sub_pd(total, card[(c0[y] & 63) as usize]),
                card[(c1[y] & 63) as usize],
            )
        }};
    }
    macro_rules! store {
        ($y:expr, $v:expr) => {{
            let v = $v;
            _mm256_storeu_pd(w[$y].as_mut_ptr(), v)
        }};
    }
    let (opp_cards, opp_order) = (x.opp_cards, &x.opp_order[..x.opp_cards.len()]);
    let mo = opp_cards.len();
    let mut k = 0;
    let mut from = 0;
    for &[e, b, na] in x.groups {
        let e = e as usize;
        let b = (b as usize).max(k);
        for kk in k..b {
            add!(opp_cards[kk], at!(opp_order[kk] as usize));
        }
        k = b;
        let na = (na as usize).max(k);
        if na == k {
            for y in from..e {
                let d = minus!(y);
                store!(
                    y,
                    _mm256_add_pd(_mm256_add_pd(d, zero), _mm256_add_pd(d, same!(y)))
                );
            }
        } else {
            for y in from..e {
                store!(y, _mm256_add_pd(minus!(y), zero));
            }
            for kk in k..na {
                add!(opp_cards[kk], at!(opp_order[kk] as usize));
            }
            k = na;
            for y in from..e {
                let v = _mm256_add_pd(minus!(y), same!(y));
                store!(y, _mm256_add_pd(_mm256_loadu_pd(w[y].as_ptr()), v));
            }
        }
        from = e;
    }
    for kk in k..mo {
        add!(opp_cards[kk], at!(opp_order[kk] as usize));
    }
    // `sweep_finish`: one hand's four lanes to a register, stored lane by lane at the hand.
    let [o0, o1, o2, o3] = out;
    let n = o0.len();
    assert!(o1.len() == n && o2.len() == n && o3.len() == n);
    let (t, s) = (_mm256_loadu_pd(x.t.as_ptr()), _mm256_loadu_pd(x.s.as_ptr()));
    for y in 0..l {
        let all = _mm256_add_pd(minus!(y), same!(y));
        let v = _mm256_add_pd(
            _mm256_mul_pd(t, all),
            _mm256_mul_pd(s, _mm256_loadu_pd(w[y].as_ptr())),
        );
        let i = order[y] as usize;
        assert!(i < n);
        let (lo, hi) = (_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
        _mm_storel_pd(o0.as_mut_ptr().add(i), lo);
        _mm_storeh_pd(o1.as_mut_ptr().add(i), lo);
        _mm_storel_pd(o2.as_mut_ptr().add(i), hi);
        _mm_storeh_pd(o3.as_mut_ptr().add(i), hi);
    }
}

/// The sweep of [`sweep_lanes`]: [`Showdown::values`]'s, lane by lane, in strength order
/// (`w`: the player's sorted hands' partial sums), each lane's reach read where it lies;
/// returns the sums over every opponent hand.
#[inline(always)]
fn sweep_sums(x: &SweepLanes, w: &mut [Lanes]) -> CardSums4 {
    let [r0, r1, r2, r3] = x.reach;
    let at = |j: usize| [r0[j], r1[j], r2[j], r3[j]];
    let (opp_cards, opp_order) = (x.opp_cards, &x.opp_order[..x.opp_cards.len()]);
    let m = opp_cards.len();
    let l = w.len();
    let (c0, c1, same_of) = (&x.c0[..l], &x.c1[..l], &x.same_of[..l]);
    let same = |y: usize| {
        let j = same_of[y];
        if j == u16::MAX {
            [0.0; LANES]
        } else {
            at(j as usize)
        }
    };
    const ZERO: Lanes = [0.0; LANES];
    let mut sums = CardSums4::new();
    let mut k = 0;
    let mut from = 0;
    for &[e, b, na] in x.groups {
        let e = e as usize;
        // Bounds never go down along the sorted hands.
        let b = (b as usize).max(k);
        for kk in k..b {
            sums.add(opp_cards[kk], at(opp_order[kk] as usize));
        }
        k = b;
        // The same combo has the same strength: never below, always not above.
        let na = (na as usize).max(k);
        if na == k {
            for y in from..e {
                let d = sums.minus([c0[y], c1[y]]);
                w[y] = add4(add4(d, ZERO), add4(d, same(y)));
            }
        } else {
            for y in from..e {
                w[y] = sums.disjoint([c0[y], c1[y]], ZERO);
            }
            for kk in k..na {
                sums.add(opp_cards[kk], at(opp_order[kk] as usize));
            }
            k = na;
            for y in from..e {
                w[y] = add4(w[y], sums.disjoint([c0[y], c1[y]], same(y)));
            }
        }
        from = e;
    }
    for kk in k..m {
        sums.add(opp_cards[kk], at(opp_order[kk] as usize));
    }
    sums
}

/// The last step of [`sweep_lanes`]: `t x all + s x w` per hand and lane, `all` the sum
/// over the opponent's hands sharing no card, each result stored at its hand.
#[inline(always)]
fn sweep_finish(x: &SweepLanes, sums: &CardSums4, w: &[Lanes], out: [&mut [f64]; LANES]) {
    let [r0, r1, r2, r3] = x.reach;
    let l = w.len();
    let (c0, c1, same_of, order) = (&x.c0[..l], &x.c1[..l], &x.same_of[..l], &x.order[..l]);
    let [o0, o1, o2, o3] = out;
    for y in 0..l {
        let j = same_of[y];
        let same = if j == u16::MAX {
            [0.0; LANES]
        } else {
            let j = j as usize;
            [r0[j], r1[j], r2[j], r3[j]]
        };
        let all = sums.disjoint([c0[y], c1[y]], same);
        let v = add4(mul4(x.t, all), mul4(x.s, w[y]));
        let i = order[y] as usize;
        o0[i] = v[0];
        o1[i] = v[1];
        o2[i] = v[2];
        o3[i] = v[3];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holdem::cards::{parse_cards, FULL_DECK};
    use crate::holdem::range::Range;

    /// A small deterministic generator (xorshift) for the reach vectors.
    fn next(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    #[test]
    fn linear_sums_equal_the_hand_against_hand_product() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for (board, a, b) in [
            (
                "QsJh2h8d7c",
                "88+,A8s+,A5s-A2s,AJo+,K9s+,KQo,T8s+,97s+,65s",
                "99-22,AJs-A2s,AQo-A8o,K2s+,Q9o+,J6s+",
            ),
            ("AsKsQsJs2d", "22+,A2s+,K2o+", "22+,A2s+,K2o+"),
            (
                "2c2d2h3c3d",
                "22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32",
                "AA,KK,43s,Ah5h",
            ),
        ] {
            let board_set = parse_cards(board)
                .unwrap()
                .iter()
                .fold(0, |m, c| m | c.bit());
            let hands = |r: &str| -> Vec<Hand> {
                Range::parse(r)
                    .unwrap()
                    .combos(board_set, FULL_DECK)
                    .iter()
                    .map(|c| (c.hi, c.lo))
                    .collect()
            };
            let (mine, theirs) = (hands(a), hands(b));
            let reach: Vec<f64> = theirs.iter().map(|_| next(&mut seed)).collect();
            let sd = Showdown::new(board_set, &mine, &theirs);
            let (mut got, mut folds) = (vec![0.0; mine.len()], vec![0.0; mine.len()]);
            sd.sums(&reach, &mut got);
            fold_sums(&mine, &theirs, &reach, &mut folds);
            for (i, &h) in mine.iter().enumerate() {
                let hs = evaluate(board_set | h.0.bit() | h.1.bit());
                let (mut want, mut fold) = (0.0, 0.0);
                for (j, &o) in theirs.iter().enumerate() {
                    if (h.0.bit() | h.1.bit()) & (o.0.bit() | o.1.bit()) != 0 {
                        continue;
                    }
                    fold += reach[j];
                    let os = evaluate(board_set | o.0.bit() | o.1.bit());
                    want += reach[j] * (hs.cmp(&os) as i32) as f64;
                }
                assert!(
                    (got[i] - want).abs() < 1e-9,
                    "{board} {}{}: {} against {want}",
                    h.0,
                    h.1,
                    got[i]
                );
                assert!(
                    (folds[i] - fold).abs() < 1e-9,
                    "{board} fold {}{}",
                    h.0,
                    h.1
                );
            }
        }
    }

    #[test]
    fn batched_evaluations_give_each_lane_the_bits_of_one_call() {
        let board = "QsJh2h8d7c";
        let board_set = parse_cards(board)
            .unwrap()
            .iter()
            .fold(0, |m, c| m | c.bit());
        let hands = |r: &str| -> Vec<Hand> {
            Range::parse(r)
                .unwrap()
                .combos(board_set & !parse_cards("7c").unwrap()[0].bit(), FULL_DECK)
                .iter()
                .map(|c| (c.hi, c.lo))
                .collect()
        };
        // Hands holding the river card stay in the lists (as in the walks), with no reach.
        let (mine_all, theirs_all) = (
            hands("88+,A8s+,A5s-A2s,AJo+,K9s+,KQo,T8s+,97s+,65s,77"),
            hands("99-22,AJs-A2s,AQo-A8o,K2s+,Q9o+,J6s+,76s"),
        );
        let mut seed = 0x5851_f42d_4c95_7f2du64;
        let blocked = |h: &Hand| (h.0.bit() | h.1.bit()) & board_set != 0;
        let reaches: Vec<Vec<f64>> = (0..LANES)
            .map(|l| {
                theirs_all
                    .iter()
                    .map(|h| {
                        let r = next(&mut seed);
                        if blocked(h) || (l % 2 == 1 && next(&mut seed) < 0.7) {
                            0.0
                        } else {
                            r
                        }
                    })
                    .collect()
            })
            .collect();
        // Every remainder of either player's hands modulo the four hands an AVX2 step takes.
        for cut in 0..16 {
            let mine = &mine_all[..mine_all.len() - cut % 4];
            let theirs = &theirs_all[..theirs_all.len() - cut / 4];
            let reaches: Vec<&[f64]> = reaches.iter().map(|r| &r[..theirs.len()]).collect();
            let sd = Showdown::new(board_set, mine, theirs);
            let fold = Fold::new(mine, theirs);
            let coefs = [-35.0, 180.5, 0.25, -1e-3];
            let (a, s) = ([90.0, 45.5, 0.0, 12.0], [126.0, 90.0, 1.0, -3.5]);
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            for lanes in 1..=LANES {
                let rs: Vec<&[f64]> = reaches[..lanes].to_vec();
                let mut got = vec![vec![f64::NAN; mine.len()]; lanes];
                let mut outs: Vec<&mut [f64]> = got.iter_mut().map(|o| &mut o[..]).collect();
                sd.values_batch(&rs, &a[..lanes], &s[..lanes], &mut outs);
                let mut port = vec![vec![f64::NAN; mine.len()]; lanes];
                let mut pouts: Vec<&mut [f64]> = port.iter_mut().map(|o| &mut o[..]).collect();
                sd.values_batch_in(&rs, &a[..lanes], &s[..lanes], &mut pouts, true);
                for l in 0..lanes {
                    assert_eq!(bits(&port[l]), bits(&got[l]), "portable showdown lane {l}");
                    let mut want = vec![0.0; mine.len()];
                    sd.values(reaches[l], a[l], s[l], &mut want);
                    assert_eq!(bits(&got[l]), bits(&want), "showdown lane {l} of {lanes}");
                }
                let mut got = vec![vec![f64::NAN; mine.len()]; lanes];
                let mut outs: Vec<&mut [f64]> = got.iter_mut().map(|o| &mut o[..]).collect();
                fold.sums_times_batch(&rs, &coefs[..lanes], &mut outs);
                let mut port = vec![vec![f64::NAN; mine.len()]; lanes];
                let mut pouts: Vec<&mut [f64]> = port.iter_mut().map(|o| &mut o[..]).collect();
                fold.sums_times_batch_in(&rs, &coefs[..lanes], &mut pouts, true);
                for l in 0..lanes {
                    assert_eq!(bits(&port[l]), bits(&got[l]), "portable fold lane {l}");
                    let mut want = vec![0.0; mine.len()];
                    fold.sums_times(reaches[l], coefs[l], &mut want);
                    assert_eq!(bits(&got[l]), bits(&want), "fold lane {l} of {lanes}");
                }
            }
        }
    }
}
