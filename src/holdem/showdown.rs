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
    /// The same combos' reaches (in lanes), in strength order.
    same: Vec<Lanes>,
    /// Zeros, the reach of a missing lane.
    zero: Vec<f64>,
    /// The results of the missing lanes (a sweep's, then its folds').
    spare: Vec<f64>,
}

impl Batch {
    /// The opponent's lists at least `m` long, the player's `n`.
    fn sized(&mut self, m: usize, n: usize) -> &mut Batch {
        if self.w.len() < n {
            self.w.resize(n, [0.0; LANES]);
            self.same.resize(n, [0.0; LANES]);
        }
        if self.zero.len() < m {
            self.zero.resize(m, 0.0);
        }
        if self.spare.len() < 2 * LANES * n {
            self.spare.resize(2 * LANES * n, 0.0);
        }
        self
    }
}

thread_local! {
    /// The buffers of the batched evaluations.
    static BATCH: std::cell::RefCell<Batch> = std::cell::RefCell::new(Batch::default());
}

/// A river showdown between two lists of hands on one board, sorted once by strength: the
/// sweeps' bounds are found when it is built, so an evaluation compares no strengths.
///
/// Its vectors are in *rank order* (each player's own on this board): position `y` holds
/// hand `perm[y]`, the hands not blocked by the board first, weakest first, then those
/// holding a board card. A river walk keeps its reaches, values and state in rank order, so a
/// sweep reads and writes its lanes contiguously; [`Showdown::to_rank`] and
/// [`Showdown::to_hands`] convert, and the `*_hands` methods take hand order.
pub struct Showdown {
    /// The player's number of hands.
    n: usize,
    /// The opponent's number of hands.
    opp_n: usize,
    /// The player's hands in rank order: `perm[y]` is at position `y`.
    perm: Vec<u16>,
    /// The opponent's hands in its rank order.
    opp_perm: Vec<u16>,
    /// The first cards of the player's hands not blocked by the board, in rank order.
    c0: Vec<u8>,
    /// Their second cards.
    c1: Vec<u8>,
    /// The cards of the opponent's hands not blocked by the board, in rank order.
    opp_cards: Vec<[u8; 2]>,
    /// For each of the player's unblocked positions, the opponent's position of the same combo
    /// (`u16::MAX`: none).
    same: Vec<u16>,
    /// The runs of positions with the same bounds in the opponent's sorted positions, the
    /// groups a sweep takes together: `[end, below, not_above]`, the run ending at `end`, its
    /// hands beating the opponent's first `below` hands and not losing to the first
    /// `not_above`.
    groups: Vec<[u16; 3]>,
}

/// `hands` in the order of `perm`, the positions from `sorted` on (the hands holding a board
/// card) set to 0.
fn rank_of(perm: &[u16], sorted: usize, hands: &[f64], rank: &mut [f64]) {
    let rank = &mut rank[..perm.len()];
    let (head, tail) = rank.split_at_mut(sorted);
    for (r, &i) in head.iter_mut().zip(perm) {
        *r = hands[i as usize];
    }
    tail.fill(0.0);
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
        // Rank order: the sorted hands, then those holding a board card.
        let ranked = |list: &[Hand], sorted: &[(Strength, usize)]| -> Vec<u16> {
            let off = (0..list.len()).filter(|&i| (list[i].0.bit() | list[i].1.bit()) & board != 0);
            sorted
                .iter()
                .map(|&(_, i)| i)
                .chain(off)
                .map(|i| i as u16)
                .collect()
        };
        let mut opp_pos = vec![u16::MAX; opp.len()];
        for (k, &(_, j)) in opp_order.iter().enumerate() {
            opp_pos[j] = k as u16;
        }
        let sd = Showdown {
            n: hands.len(),
            opp_n: opp.len(),
            groups,
            c0: order.iter().map(|&(_, i)| hands[i].0 .0).collect(),
            c1: order.iter().map(|&(_, i)| hands[i].1 .0).collect(),
            // The same combo holds no board card either: it has a sorted position.
            same: order
                .iter()
                .map(|&(_, i)| same[i].map_or(u16::MAX, |j| opp_pos[j as usize]))
                .collect(),
            perm: ranked(hands, &order),
            opp_perm: ranked(opp, &opp_order),
            opp_cards: opp_order.iter().map(|&(_, j)| cards(opp[j])).collect(),
        };
        // The AVX2 sweep reads the opponent's reach at the same combos' positions unchecked.
        let real = |j: &&u16| **j != u16::MAX;
        assert!(
            hands.len() < u16::MAX as usize
                && opp.len() < u16::MAX as usize
                && sd
                    .same
                    .iter()
                    .filter(real)
                    .all(|&j| (j as usize) < sd.opp_cards.len())
                && sd.perm.iter().all(|&i| (i as usize) < sd.n)
                && sd.opp_perm.iter().all(|&j| (j as usize) < sd.opp_n)
        );
        sd
    }

    /// The player's hands in rank order (`perm[y]`: the hand at position `y`).
    pub fn perm(&self) -> &[u16] {
        &self.perm
    }

    /// The player's vector `hands` (hand order) in rank order, the hands holding a board card
    /// set to 0.
    pub fn to_rank(&self, hands: &[f64], rank: &mut [f64]) {
        rank_of(&self.perm, self.c0.len(), hands, rank);
    }

    /// The opponent's vector `hands` (hand order) in its rank order, the hands holding a board
    /// card set to 0.
    pub fn opp_to_rank(&self, hands: &[f64], rank: &mut [f64]) {
        rank_of(&self.opp_perm, self.opp_cards.len(), hands, rank);
    }

    /// The player's vector `rank` (rank order) in hand order.
    pub fn to_hands(&self, rank: &[f64], hands: &mut [f64]) {
        let rank = &rank[..self.n];
        for (&i, &x) in self.perm.iter().zip(rank) {
            hands[i as usize] = x;
        }
    }

    /// `eval(opp, out)` in rank order on the opponent's vector `opp` and the player's `out`,
    /// both in hand order.
    fn in_hands(&self, opp: &[f64], out: &mut [f64], eval: impl FnOnce(&[f64], &mut [f64])) {
        let (mut r, mut o) = (vec![0.0; self.opp_n], vec![0.0; self.n]);
        self.opp_to_rank(opp, &mut r);
        eval(&r, &mut o);
        self.to_hands(&o, out);
    }

    /// [`Showdown::values`] in hand order.
    pub fn values_hands(&self, opp_reach: &[f64], a: f64, s: f64, out: &mut [f64]) {
        self.in_hands(opp_reach, out, |r, o| self.values(r, a, s, o));
    }

    /// [`Showdown::sums`] in hand order.
    pub fn sums_hands(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.in_hands(opp_reach, out, |r, o| self.sums(r, o));
    }

    /// [`Showdown::totals`] in hand order.
    pub fn totals_hands(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.in_hands(opp_reach, out, |r, o| self.totals(r, o));
    }

    /// [`Showdown::fold_values`] in hand order.
    pub fn fold_values_hands(&self, opp_reach: &[f64], coef: f64, out: &mut [f64]) {
        self.in_hands(opp_reach, out, |r, o| self.fold_values(r, coef, o));
    }

    /// [`Showdown::values_batch`] with every vector in hand order: each position's entries
    /// read and written where its hand lies (the same bits).
    pub fn values_batch_hands(&self, lanes: &mut [Lane]) {
        self.values_batch_at(lanes, false, true);
    }

    /// `out[y]`: the opponent's reach summed over its hands sharing no card with the hand at
    /// position `y`, each counted +1 when that hand wins, -1 when it loses, 0 on a tie (rank
    /// order, as every method below but the `*_hands` ones).
    pub fn sums(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.values(opp_reach, 0.0, 1.0, out);
    }

    /// `out[y] = a x total + s x (win - loss)`: over the opponent's hands sharing no card with
    /// the hand at `y` nor with the board, `total` sums their reach ([`Showdown::totals`]) and
    /// `win - loss` counts it +1 when that hand wins, -1 when it loses ([`Showdown::sums`]);
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
        let l = self.c0.len();
        SWEEP.with(|cell| {
            let mut buf = cell.borrow_mut();
            if buf.len() < 2 * l {
                buf.resize(2 * l, 0.0);
            }
            let (w, same) = buf.split_at_mut(l);
            self.values_in(opp_reach, a, s, out, w, &mut same[..l]);
        });
    }

    /// [`Showdown::values`] with its scratch: `w` and `same` as long as the sorted hands.
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
        let l = self.c0.len();
        out[l..].fill(0.0);
        let m = self.opp_cards.len();
        let opp_cards = &self.opp_cards[..m];
        let (c0, c1) = (&self.c0[..l], &self.c1[..l]);
        let reach = &opp_reach[..self.opp_n];
        // SAFETY: the same combos are indices into the opponent's hands (`same_combo`).
        unsafe { kernels::gather_same(&self.same, reach, same) };
        let mut sums = CardSums::new();
        let mut k = 0;
        let mut x = 0;
        for &[e, b, na] in &self.groups {
            let e = e as usize;
            // Bounds never go down along the sorted positions.
            let b = (b as usize).max(k);
            for (&c, &r) in opp_cards[k..b].iter().zip(&reach[k..b]) {
                sums.add(c, r);
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
                for (&c, &r) in opp_cards[k..na].iter().zip(&reach[k..na]) {
                    sums.add(c, r);
                }
                k = na;
                for (((o, &p), &q), &r) in wg.iter_mut().zip(g0).zip(g1).zip(sg) {
                    *o += sums.disjoint([p, q], r);
                }
            }
            x = e;
        }
        for (&c, &r) in opp_cards[k..].iter().zip(&reach[k..m]) {
            sums.add(c, r);
        }
        kernels::showdown_combine(sums.total, &sums.card, c0, c1, same, a - s, s, w);
        out[..l].copy_from_slice(w);
    }

    /// Up to [`LANES`] evaluations in one pass over the sorted lists, each lane's arithmetic
    /// that of one call (the same bits): a lane's `out` gets [`Showdown::values`] of its
    /// reach with its `a` and `s`, and its `fold` (chips per unit of reach, values) gets
    /// [`Showdown::fold_values`] of the same reach from the same sums. When no lane has an
    /// `out` the pass only sums (no showdown's partial sums): a batch of folds.
    ///
    /// # Panics
    /// When there are more than [`LANES`] lanes or a vector is shorter than its list.
    pub fn values_batch(&self, lanes: &mut [Lane]) {
        self.values_batch_at(lanes, false, false);
    }

    /// [`Showdown::values_batch`] with its vectors in hand order when `hands`, else in rank
    /// order, on the portable path when `portable`.
    fn values_batch_at(&self, lanes: &mut [Lane], portable: bool, hands: bool) {
        assert!(lanes.len() <= LANES);
        let n = self.n;
        let (mut t4, mut s4, mut f4) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
        for (i, lane) in lanes.iter_mut().enumerate() {
            t4[i] = lane.a - lane.s;
            s4[i] = lane.s;
            let fold = lane.fold.as_mut().map(|(c, o)| (*c, &mut **o));
            for out in lane
                .out
                .as_deref_mut()
                .into_iter()
                .chain(fold.map(|(c, o)| {
                    f4[i] = c;
                    o
                }))
            {
                if hands {
                    for &i in &self.perm[self.c0.len()..] {
                        out[i as usize] = 0.0;
                    }
                } else {
                    out[self.c0.len()..n].fill(0.0);
                }
            }
        }
        let showdown = lanes.iter().any(|l| l.out.is_some());
        let any_fold = lanes.iter().any(|l| l.fold.is_some());
        let l = self.c0.len();
        BATCH.with(|cell| {
            let mut b = cell.borrow_mut();
            let Batch {
                zero,
                spare,
                w,
                same,
            } = b.sized(self.opp_n, n);
            let (spare, spare_folds) = spare.split_at_mut(LANES * n);
            let (mut spares, mut fold_spares) = (spare.chunks_mut(n), spare_folds.chunks_mut(n));
            let mut it = lanes.iter_mut();
            let mut r: [&[f64]; LANES] = [&zero[..self.opp_n]; LANES];
            let mut o: [Option<&mut [f64]>; LANES] = [None, None, None, None];
            let mut fo: [Option<&mut [f64]>; LANES] = [None, None, None, None];
            for i in 0..LANES {
                let lane = it.next();
                let (reach, out, fold) = match lane {
                    Some(Lane {
                        reach, out, fold, ..
                    }) => (*reach, out.as_deref_mut(), fold.as_mut().map(|f| &mut *f.1)),
                    None => (&zero[..], None, None),
                };
                r[i] = &reach[..self.opp_n];
                o[i] = Some(match out {
                    Some(y) => &mut y[..n],
                    None => spares.next().expect("spare lanes"),
                });
                fo[i] = Some(match fold {
                    Some(y) => &mut y[..n],
                    None => fold_spares.next().expect("spare lanes"),
                });
            }
            let x = SweepLanes {
                opp_n: self.opp_n,
                groups: if showdown { &self.groups } else { &[] },
                opp_cards: &self.opp_cards,
                c0: &self.c0,
                c1: &self.c1,
                same_of: &self.same,
                hands: hands.then_some((&self.perm[..], &self.opp_perm[..])),
                reach: r,
                t: t4,
                s: s4,
                f: f4,
            };
            let o = o.map(|y| y.expect("every lane"));
            let fo = fo.map(|y| y.expect("every lane"));
            let outs = Outs {
                showdown: showdown.then_some(o),
                fold: any_fold.then_some(fo),
            };
            sweep_lanes(&x, &mut w[..l], &mut same[..l], outs, portable);
        });
    }

    /// `out[y]`: `coef` times the opponent's reach summed over its hands sharing no card with
    /// the hand at `y` nor with the board (0 for a hand holding a board card), the sums taken
    /// in strength order as a sweep takes them: a fold on this board paying `coef` per unit
    /// of reach.
    pub fn fold_values(&self, opp_reach: &[f64], coef: f64, out: &mut [f64]) {
        let mut all = CardSums::new();
        for (&r, &c) in opp_reach.iter().zip(&self.opp_cards) {
            all.add(c, r);
        }
        let l = self.c0.len();
        out[l..self.n].fill(0.0);
        // The same combo, when the opponent holds it, counts in both card sums.
        for (y, (o, &j)) in out[..l].iter_mut().zip(&self.same).enumerate() {
            let same = if j == u16::MAX {
                0.0
            } else {
                opp_reach[j as usize]
            };
            *o = coef * all.disjoint([self.c0[y], self.c1[y]], same);
        }
    }

    /// Sets to 0 the entries of the hands holding a board card.
    pub fn zero_off_board(&self, out: &mut [f64]) {
        out[self.c0.len()..self.n].fill(0.0);
    }

    /// `out[y]`: the opponent's reach summed over its hands sharing no card with the hand at
    /// `y` nor with the board (0 for a hand holding a board card).
    pub fn totals(&self, opp_reach: &[f64], out: &mut [f64]) {
        self.fold_values(opp_reach, 1.0, out);
    }
}

/// One lane of [`Showdown::values_batch`].
pub struct Lane<'a> {
    /// The opponent's reach.
    pub reach: &'a [f64],
    /// The showdown's coefficients ([`Showdown::values`]).
    pub a: f64,
    /// See `a`.
    pub s: f64,
    /// Where the showdown's values go (`None`: not wanted).
    pub out: Option<&'a mut [f64]>,
    /// A fold at the same reach: its chips per unit of reach and where its values go.
    pub fold: Option<(f64, &'a mut [f64])>,
}

/// Where a sweep writes: the showdowns' values and the folds' (each four lanes, spare
/// vectors where a lane has none), either left out when no lane wants it.
struct Outs<'a> {
    showdown: Option<[&'a mut [f64]; LANES]>,
    fold: Option<[&'a mut [f64]; LANES]>,
}

/// The inputs of [`sweep_lanes`]: a [`Showdown`]'s sorted lists, the opponent's reach
/// vectors (one per lane) and the coefficients.
struct SweepLanes<'a> {
    /// The opponent's number of hands: every index into its hands is below it.
    opp_n: usize,
    groups: &'a [[u16; 3]],
    opp_cards: &'a [[u8; 2]],
    c0: &'a [u8],
    c1: &'a [u8],
    same_of: &'a [u16],
    /// Vectors in hand order: each player's hands in rank order (`perm`, `opp_perm`), where a
    /// position's entry lies; `None`: in rank order.
    hands: Option<(&'a [u16], &'a [u16])>,
    reach: [&'a [f64]; LANES],
    t: Lanes,
    s: Lanes,
    /// The chips per unit of reach of each lane's fold (0 where it has none).
    f: Lanes,
}

/// The sweep of [`Showdown::values_batch`]: AVX2 when the processor has it (the same
/// operations in the same order: the same bits; `same`, scratch of `w`'s length, keeps the
/// same combos' reaches between its two loops over the player's hands).
/// `portable` forces the portable path (the tests compare the two).
fn sweep_lanes(x: &SweepLanes, w: &mut [Lanes], same: &mut [Lanes], outs: Outs, portable: bool) {
    #[cfg(target_arch = "x86_64")]
    if !portable && kernels::avx2() {
        // SAFETY: the processor has AVX2.
        return unsafe {
            if x.hands.is_some() {
                sweep_lanes_avx2::<true>(x, w, same, outs)
            } else {
                sweep_lanes_avx2::<false>(x, w, same, outs)
            }
        };
    }
    let _ = same;
    let sums = sweep_sums(x, w);
    sweep_finish(x, &sums, w, outs);
}

/// The AVX2 compilation of [`sweep_lanes`]: [`sweep_sums`], then [`sweep_finish`]'s
/// arithmetic one hand's four lanes to a register. In rank order (`HANDS` false) four
/// positions' reaches are loaded per lane and transposed, four positions' values transposed
/// back and stored per lane; in hand order (`x.hands`) each is read and stored where its hand
/// lies. Each same combo's four reaches are gathered once, kept in `sm` for the last step.
///
/// # Safety
/// The processor has AVX2; `x.hands` is set when `HANDS` is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn sweep_lanes_avx2<const HANDS: bool>(
    x: &SweepLanes,
    w: &mut [Lanes],
    sm: &mut [Lanes],
    outs: Outs,
) {
    let l = w.len();
    let sm = &mut sm[..l];
    let (c0, c1, same_of) = (&x.c0[..l], &x.c1[..l], &x.same_of[..l]);
    let [r0, r1, r2, r3] = x.reach;
    let m = x.opp_n;
    assert!(r0.len() == m && r1.len() == m && r2.len() == m && r3.len() == m);
    assert!(x.opp_cards.len() <= m);
    let (perm, opp_perm): (&[u16], &[u16]) = x.hands.unwrap_or((&[], &[]));
    assert!(!HANDS || (perm.len() >= l && opp_perm.len() >= x.opp_cards.len()));
    // The opponent's position `k` (below `opp_cards.len()`): where its reach lies.
    macro_rules! opp_at {
        ($k:expr) => {{
            let k = $k as usize;
            if HANDS {
                *opp_perm.get_unchecked(k) as usize
            } else {
                k
            }
        }};
    }
    // Four registers of four `f64` transposed: in one register per lane (four hands) out one
    // register per hand (four lanes), and back.
    macro_rules! transpose {
        ($a:expr, $b:expr, $c:expr, $d:expr) => {{
            let (t0, t1) = (_mm256_unpacklo_pd($a, $b), _mm256_unpackhi_pd($a, $b));
            let (t2, t3) = (_mm256_unpacklo_pd($c, $d), _mm256_unpackhi_pd($c, $d));
            [
                _mm256_permute2f128_pd::<0x20>(t0, t2),
                _mm256_permute2f128_pd::<0x20>(t1, t3),
                _mm256_permute2f128_pd::<0x31>(t0, t2),
                _mm256_permute2f128_pd::<0x31>(t1, t3),
            ]
        }};
    }
    // One lane of each reach vector, hand `j`'s four reaches in one register.
    macro_rules! at {
        ($j:expr) => {{
            let j = $j as usize;
            // SAFETY: `j` is an index into the opponent's hands (a position below
            // `opp_cards.len()`, the same combos' checked so when the showdown is built, or a
            // hand of `opp_perm`, each below `opp_n`), and every reach vector is `opp_n` long
            // (asserted above).
            _mm256_set_pd(
                *r3.get_unchecked(j),
                *r2.get_unchecked(j),
                *r1.get_unchecked(j),
                *r0.get_unchecked(j),
            )
        }};
    }
    macro_rules! same {
        ($j:expr) => {{
            let j = $j;
            if j == u16::MAX {
                _mm256_setzero_pd()
            } else {
                at!(opp_at!(j))
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
    // The opponent's positions `from..to` in order, four hands' reaches loaded at once.
    macro_rules! add_range {
        ($from:expr, $to:expr) => {{
            let (mut k, to) = ($from, $to);
            let cards = &x.opp_cards[..to];
            while !HANDS && k + 4 <= to {
                // SAFETY: `k + 4 <= to <= opp_cards.len() <= m`, each reach's length.
                let [h0, h1, h2, h3] = transpose!(
                    _mm256_loadu_pd(r0.as_ptr().add(k)),
                    _mm256_loadu_pd(r1.as_ptr().add(k)),
                    _mm256_loadu_pd(r2.as_ptr().add(k)),
                    _mm256_loadu_pd(r3.as_ptr().add(k))
                );
                add!(cards[k], h0);
                add!(cards[k + 1], h1);
                add!(cards[k + 2], h2);
                add!(cards[k + 3], h3);
                k += 4;
            }
            for (c, j) in cards[k..].iter().zip(k..to) {
                add!(c, at!(opp_at!(j)));
            }
        }};
    }
    macro_rules! minus {
        ($a:expr, $b:expr) => {{
            _mm256_sub_pd(
                _mm256_sub_pd(total, card[($a & 63) as usize]),
                card[($b & 63) as usize],
            )
        }};
    }
    let mo = x.opp_cards.len();
    let mut k = 0;
    let mut from = 0;
    for &[e, b, na] in x.groups {
        let e = e as usize;
        let b = (b as usize).max(k);
        add_range!(k, b);
        k = b;
        let na = (na as usize).max(k);
        let hands = c0[from..e]
            .iter()
            .zip(&c1[from..e])
            .zip(&same_of[from..e])
            .zip(w[from..e].iter_mut().zip(&mut sm[from..e]));
        if na == k {
            for (((&a, &b), &j), (wy, sy)) in hands {
                let d = minus!(a, b);
                let r = same!(j);
                _mm256_storeu_pd(sy.as_mut_ptr(), r);
                let v = _mm256_add_pd(_mm256_add_pd(d, zero), _mm256_add_pd(d, r));
                _mm256_storeu_pd(wy.as_mut_ptr(), v);
            }
        } else {
            for (((&a, &b), _), (wy, _)) in hands {
                _mm256_storeu_pd(wy.as_mut_ptr(), _mm256_add_pd(minus!(a, b), zero));
            }
            add_range!(k, na);
            k = na;
            let hands = c0[from..e]
                .iter()
                .zip(&c1[from..e])
                .zip(&same_of[from..e])
                .zip(w[from..e].iter_mut().zip(&mut sm[from..e]));
            for (((&a, &b), &j), (wy, sy)) in hands {
                let r = same!(j);
                _mm256_storeu_pd(sy.as_mut_ptr(), r);
                let v = _mm256_add_pd(minus!(a, b), r);
                _mm256_storeu_pd(
                    wy.as_mut_ptr(),
                    _mm256_add_pd(_mm256_loadu_pd(wy.as_ptr()), v),
                );
            }
        }
        from = e;
    }
    add_range!(k, mo);
    if x.groups.is_empty() {
        // A pass that only sums: no loop above gathered the same combos.
        for (sy, &j) in sm.iter_mut().zip(same_of) {
            _mm256_storeu_pd(sy.as_mut_ptr(), same!(j));
        }
    }
    // `sweep_finish`: one hand's four lanes to a register; four hands' registers transposed
    // into one per lane and stored at once, the last hands lane by lane.
    let (t, s) = (_mm256_loadu_pd(x.t.as_ptr()), _mm256_loadu_pd(x.s.as_ptr()));
    let f = _mm256_loadu_pd(x.f.as_ptr());
    macro_rules! store_lanes {
        ($v:expr, $o:expr, $i:expr) => {{
            let (v, i) = ($v, $i);
            let [o0, o1, o2, o3] = $o;
            let (lo, hi) = (_mm256_castpd256_pd128(v), _mm256_extractf128_pd::<1>(v));
            _mm_storel_pd(o0.as_mut_ptr().add(i), lo);
            _mm_storeh_pd(o1.as_mut_ptr().add(i), lo);
            _mm_storel_pd(o2.as_mut_ptr().add(i), hi);
            _mm_storeh_pd(o3.as_mut_ptr().add(i), hi);
        }};
    }
    macro_rules! store4 {
        ($v:expr, $o:expr, $y:expr) => {{
            let ([v0, v1, v2, v3], y) = ($v, $y);
            let [s0, s1, s2, s3] = transpose!(v0, v1, v2, v3);
            let [o0, o1, o2, o3] = $o;
            _mm256_storeu_pd(o0.as_mut_ptr().add(y), s0);
            _mm256_storeu_pd(o1.as_mut_ptr().add(y), s1);
            _mm256_storeu_pd(o2.as_mut_ptr().add(y), s2);
            _mm256_storeu_pd(o3.as_mut_ptr().add(y), s3);
        }};
    }
    // Every output holds the `l` sorted positions (in hand order, every hand: `perm`'s are
    // below its length, checked when the showdown is built).
    let need = if HANDS { perm.len() } else { l };
    let fits = |o: &[&mut [f64]; LANES]| o.iter().all(|y| y.len() >= need);
    // Where position `y`'s value goes.
    macro_rules! place {
        ($y:expr) => {{
            let y = $y;
            if HANDS {
                *perm.get_unchecked(y) as usize
            } else {
                y
            }
        }};
    }
    // Sorted position `y`: the sum over the opponent's hands sharing no card, and the
    // showdown's value from it.
    macro_rules! all {
        ($y:expr) => {
            _mm256_add_pd(minus!(c0[$y], c1[$y]), _mm256_loadu_pd(sm[$y].as_ptr()))
        };
    }
    macro_rules! value {
        ($y:expr, $all:expr) => {
            _mm256_add_pd(
                _mm256_mul_pd(t, $all),
                _mm256_mul_pd(s, _mm256_loadu_pd(w[$y].as_ptr())),
            )
        };
    }
    // Four hands' fold values from their sums.
    macro_rules! folds {
        ($a:expr) => {{
            let a = $a;
            [
                _mm256_mul_pd(f, a[0]),
                _mm256_mul_pd(f, a[1]),
                _mm256_mul_pd(f, a[2]),
                _mm256_mul_pd(f, a[3]),
            ]
        }};
    }
    let blocks = if HANDS { 0 } else { l / 4 * 4 };
    // One loop per case, so that no hand tests which outputs it has.
    // SAFETY (the stores): at positions below `l` or at `perm`'s hands, which every
    // output's length covers (asserted).
    match outs {
        Outs {
            showdown: Some(mut o),
            fold: None,
        } => {
            assert!(fits(&o));
            for y in (0..blocks).step_by(4) {
                let v = [
                    value!(y, all!(y)),
                    value!(y + 1, all!(y + 1)),
                    value!(y + 2, all!(y + 2)),
                    value!(y + 3, all!(y + 3)),
                ];
                store4!(v, &mut o, y);
            }
            for y in blocks..l {
                store_lanes!(value!(y, all!(y)), &mut o, place!(y));
            }
        }
        Outs {
            showdown: Some(mut o),
            fold: Some(mut fo),
        } => {
            assert!(fits(&o) && fits(&fo));
            for y in (0..blocks).step_by(4) {
                let a = [all!(y), all!(y + 1), all!(y + 2), all!(y + 3)];
                let v = [
                    value!(y, a[0]),
                    value!(y + 1, a[1]),
                    value!(y + 2, a[2]),
                    value!(y + 3, a[3]),
                ];
                store4!(v, &mut o, y);
                store4!(folds!(a), &mut fo, y);
            }
            for y in blocks..l {
                let (all, i) = (all!(y), place!(y));
                store_lanes!(value!(y, all), &mut o, i);
                store_lanes!(_mm256_mul_pd(f, all), &mut fo, i);
            }
        }
        Outs {
            showdown: None,
            fold: Some(mut fo),
        } => {
            assert!(fits(&fo));
            for y in (0..blocks).step_by(4) {
                let a = [all!(y), all!(y + 1), all!(y + 2), all!(y + 3)];
                store4!(folds!(a), &mut fo, y);
            }
            for y in blocks..l {
                store_lanes!(_mm256_mul_pd(f, all!(y)), &mut fo, place!(y));
            }
        }
        Outs {
            showdown: None,
            fold: None,
        } => {}
    }
}

/// The sweep of [`sweep_lanes`]: [`Showdown::values`]'s, lane by lane, in strength order
/// (`w`: the player's sorted hands' partial sums); returns the sums over every opponent hand.
#[inline(always)]
fn sweep_sums(x: &SweepLanes, w: &mut [Lanes]) -> CardSums4 {
    let [r0, r1, r2, r3] = x.reach;
    // The opponent's position `k`: its four reaches, where they lie.
    let at = |k: usize| {
        let j = x.hands.map_or(k, |(_, opp)| opp[k] as usize);
        [r0[j], r1[j], r2[j], r3[j]]
    };
    let opp_cards = x.opp_cards;
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
            sums.add(opp_cards[kk], at(kk));
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
                sums.add(opp_cards[kk], at(kk));
            }
            k = na;
            for y in from..e {
                w[y] = add4(w[y], sums.disjoint([c0[y], c1[y]], same(y)));
            }
        }
        from = e;
    }
    for kk in k..m {
        sums.add(opp_cards[kk], at(kk));
    }
    sums
}

/// The last step of [`sweep_lanes`]: `t x all + s x w` per hand and lane, `all` the sum
/// over the opponent's hands sharing no card, each result stored at its position.
#[inline(always)]
fn sweep_finish(x: &SweepLanes, sums: &CardSums4, w: &[Lanes], mut outs: Outs) {
    let [r0, r1, r2, r3] = x.reach;
    let l = w.len();
    let (c0, c1, same_of) = (&x.c0[..l], &x.c1[..l], &x.same_of[..l]);
    for y in 0..l {
        let j = same_of[y];
        let same = if j == u16::MAX {
            [0.0; LANES]
        } else {
            let j = x
                .hands
                .map_or(j as usize, |(_, opp)| opp[j as usize] as usize);
            [r0[j], r1[j], r2[j], r3[j]]
        };
        let all = sums.disjoint([c0[y], c1[y]], same);
        let i = x.hands.map_or(y, |(perm, _)| perm[y] as usize);
        if let Some(o) = outs.showdown.as_mut() {
            let v = add4(mul4(x.t, all), mul4(x.s, w[y]));
            for (o, v) in o.iter_mut().zip(v) {
                o[i] = v;
            }
        }
        if let Some(o) = outs.fold.as_mut() {
            for (o, v) in o.iter_mut().zip(mul4(x.f, all)) {
                o[i] = v;
            }
        }
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
            sd.sums_hands(&reach, &mut got);
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
        // Every remainder of either player's hands modulo the four hands an AVX2 step takes
        // (in rank order).
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
                // Every subset of the lanes carries a fold at its reach; with no showdown
                // wanted the pass is a batch of folds.
                for (mask, showdown) in [
                    (0usize, true),
                    (0b0001, true),
                    (0b1010, true),
                    (0b1111, true),
                    (0b0110, false),
                    (0b1111, false),
                ] {
                    // The batches of folds take other reaches than the showdowns before
                    // them: nothing a pass keeps may stand in for its own gathers.
                    let reach = |l: usize| reaches[(l + usize::from(!showdown)) % LANES];
                    // Each lane's reach in the opponent's rank order.
                    let ranked: Vec<Vec<f64>> = (0..LANES)
                        .map(|l| {
                            let mut r = vec![f64::NAN; theirs.len()];
                            sd.opp_to_rank(reach(l), &mut r);
                            r
                        })
                        .collect();
                    // The batch in hand order, or in rank order (its vectors converted in and
                    // out), on the AVX2 or the portable path; the values in hand order.
                    let run = |portable: bool, rank: bool| {
                        let mut got = vec![vec![f64::NAN; mine.len()]; lanes];
                        let mut fgot = vec![vec![f64::NAN; mine.len()]; lanes];
                        let mut batch: Vec<Lane> = got
                            .iter_mut()
                            .zip(fgot.iter_mut())
                            .enumerate()
                            .map(|(l, (o, f))| Lane {
                                reach: if rank { &ranked[l] } else { reach(l) },
                                a: a[l],
                                s: s[l],
                                out: showdown.then_some(&mut o[..]),
                                fold: (mask >> l & 1 == 1).then_some((coefs[l], &mut f[..])),
                            })
                            .collect();
                        sd.values_batch_at(&mut batch, portable, !rank);
                        if rank {
                            for v in got.iter_mut().chain(fgot.iter_mut()) {
                                let r = v.clone();
                                sd.to_hands(&r, v);
                            }
                        }
                        (got, fgot)
                    };
                    let (got, fgot) = run(false, false);
                    for (portable, rank) in [(true, false), (false, true), (true, true)] {
                        let (other, fother) = run(portable, rank);
                        for l in 0..lanes {
                            let how = format!("portable {portable}, rank order {rank}, lane {l}");
                            assert_eq!(bits(&other[l]), bits(&got[l]), "showdown, {how}");
                            assert_eq!(bits(&fother[l]), bits(&fgot[l]), "fold, {how}");
                        }
                    }
                    for l in 0..lanes {
                        let mut want = vec![0.0; mine.len()];
                        if showdown {
                            sd.values_hands(reach(l), a[l], s[l], &mut want);
                            assert_eq!(bits(&got[l]), bits(&want), "showdown lane {l} of {lanes}");
                        } else {
                            assert!(got[l].iter().all(|x| x.is_nan()), "no showdown on lane {l}");
                        }
                        if mask >> l & 1 == 0 {
                            assert!(fgot[l].iter().all(|x| x.is_nan()), "no fold on lane {l}");
                            continue;
                        }
                        sd.fold_values_hands(reach(l), coefs[l], &mut want);
                        assert_eq!(bits(&fgot[l]), bits(&want), "fold on lane {l} of {lanes}");
                        // Within rounding, the fold sums by the hands' order.
                        fold.sums_times(reach(l), coefs[l], &mut want);
                        for (i, (&x, &y)) in fgot[l].iter().zip(&want).enumerate() {
                            let on_board = (mine[i].0.bit() | mine[i].1.bit()) & board_set != 0;
                            let y = if on_board { 0.0 } else { y };
                            assert!((x - y).abs() <= 1e-12 * y.abs().max(1.0), "{x} {y}");
                        }
                    }
                }
            }
        }
    }
}
