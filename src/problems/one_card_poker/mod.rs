//! One-card poker, the contest task (`docs/problems.md`): its game ([`game`]: the general
//! per-pair extensive form of the catalog's `one-card-poker(n,a,b)`), the contest's files
//! ([`contest_format`]), and its solvers: the vector form below, vanilla CFR in vector form
//! ([`vector`]) and on the per-pair arena ([`per_pair`]), and the exact solver ([`exact`]).
//!
//! The vector form keeps one public betting tree, each player's hand as a vector over the N
//! cards.
//!
//! A contest strategy covers both seats. When it sits first it uses its `open` and `check-bet`
//! probabilities, when second its `check` and `bet` ones, and the opponent's best response
//! separates by seat; so the game splits into the two-seat game G1 (first player P against
//! second player Q) played once from each side. Everything here works on G1 with P's strategy
//! taken from the `open`/`check-bet` parts and Q's from the `check`/`bet` parts.
//!
//! Showdowns cost O(N) per public node: against an opponent reach vector `r`, holding card `c`
//! wins `sum_{d<c} r[d]` and loses `sum_{d>c} r[d]` (prefix sums); the opponent's own card can
//! never equal ours, which the sign already gives for showdowns and `total - r[c]` gives for
//! folds.

pub mod contest_format;
pub mod exact;
pub mod game;
pub mod per_pair;
pub mod pictures;
pub mod task;
pub mod vector;

use crate::scalar::{rat, Scalar};

/// One-card poker's parameters: cards 1..=n (n >= 2), dealer pot `ante`, bet size `bet`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OcpParams {
    /// Number of cards N.
    pub n: usize,
    /// The pot A the dealer puts in.
    pub ante: i64,
    /// The bet size B.
    pub bet: i64,
}

impl OcpParams {
    /// The game value in chips, A/2, as a scalar.
    pub fn value<T: Scalar>(&self) -> T {
        T::from_rational(&rat(self.ante, 2))
    }
}

/// A strategy covering both seats: for each card index (card - 1), the probability of the
/// aggressive action (bet at `open`/`check`, call at `bet`/`check-bet`).
#[derive(Clone, Debug, PartialEq)]
pub struct OcpStrategy<T> {
    /// First to act: probability of betting.
    pub open: Vec<T>,
    /// Second to act after a check: probability of betting.
    pub check: Vec<T>,
    /// Second to act facing a bet: probability of calling.
    pub bet: Vec<T>,
    /// First to act, facing a bet after checking: probability of calling.
    pub check_bet: Vec<T>,
}

impl<T: Scalar> OcpStrategy<T> {
    /// Every action with probability 1/2.
    pub fn uniform(n: usize) -> Self {
        let half = T::from_rational(&rat(1, 2));
        OcpStrategy {
            open: vec![half.clone(); n],
            check: vec![half.clone(); n],
            bet: vec![half.clone(); n],
            check_bet: vec![half; n],
        }
    }

    /// Number of cards.
    pub fn num_cards(&self) -> usize {
        self.open.len()
    }

    /// The four per-card vectors in file order (open, check, bet, check-bet).
    pub fn parts(&self) -> [&Vec<T>; 4] {
        [&self.open, &self.check, &self.bet, &self.check_bet]
    }

    /// Mutable access to the four per-card vectors in file order.
    pub fn parts_mut(&mut self) -> [&mut Vec<T>; 4] {
        [
            &mut self.open,
            &mut self.check,
            &mut self.bet,
            &mut self.check_bet,
        ]
    }

    /// Converts to `f64`.
    pub fn to_f64(&self) -> OcpStrategy<f64> {
        let conv = |v: &Vec<T>| v.iter().map(|x| x.to_f64()).collect();
        OcpStrategy {
            open: conv(&self.open),
            check: conv(&self.check),
            bet: conv(&self.bet),
            check_bet: conv(&self.check_bet),
        }
    }
}

/// What a strategy guarantees against a best response, in chips.
#[derive(Clone, Debug, PartialEq)]
pub struct OcpScore<T> {
    /// Expected chips when sitting first against a best response.
    pub first_seat: T,
    /// Expected chips when sitting second against a best response.
    pub second_seat: T,
    /// The mean of the two seats: the contest's score.
    pub average: T,
    /// The optimum A/2 minus `average` (0 exactly at an equilibrium).
    pub gap: T,
}

/// `below[c] = sum_{d<c} v[d]` and the total, so `sum_{d>c} v[d] = total - below[c] - v[c]`.
fn prefix<T: Scalar>(v: &[T], below: &mut Vec<T>) -> T {
    below.clear();
    let mut acc = T::zero();
    for x in v {
        below.push(acc.clone());
        acc = acc + x.clone();
    }
    acc
}

/// `sum_{d<c} v[d] - sum_{d>c} v[d]` for every c: what card c wins minus what it loses at a
/// showdown against reach `v`.
fn win_minus_lose<T: Scalar>(v: &[T], out: &mut Vec<T>) {
    let mut below = Vec::with_capacity(v.len());
    let total = prefix(v, &mut below);
    out.clear();
    for (c, b) in below.into_iter().enumerate() {
        let above = total.clone() - b.clone() - v[c].clone();
        out.push(b - above);
    }
}

/// Counterfactual action values of the second player Q against P's strategy, per Q card, in
/// G1's centred payoffs (chips minus A/2) summed over P's cards (chance weight left out).
#[derive(Clone, Debug)]
pub struct SecondValues<T> {
    /// After a check: Q checks.
    pub check_check: Vec<T>,
    /// After a check: Q bets.
    pub check_bet: Vec<T>,
    /// Facing a bet: Q folds.
    pub bet_fold: Vec<T>,
    /// Facing a bet: Q calls.
    pub bet_call: Vec<T>,
}

/// Counterfactual action values of the first player P against Q's strategy, per P card.
#[derive(Clone, Debug)]
pub struct FirstValues<T> {
    /// Check, then Q checks: the showdown part of checking.
    pub check_showdown: Vec<T>,
    /// Bet at the open.
    pub open_bet: Vec<T>,
    /// After check and Q's bet: fold.
    pub cb_fold: Vec<T>,
    /// After check and Q's bet: call.
    pub cb_call: Vec<T>,
}

/// Q's action values given P's `open` (bet) and `check_bet` (call) probabilities.
pub fn second_values<T: Scalar>(
    params: &OcpParams,
    open: &[T],
    check_bet: &[T],
) -> SecondValues<T> {
    let n = open.len();
    let h: T = params.value();
    let hb = h.clone() + T::from_rational(&crate::scalar::int(params.bet));
    let checked: Vec<T> = open.iter().map(|b| T::one() - b.clone()).collect();
    let called: Vec<T> = (0..n)
        .map(|c| checked[c].clone() * check_bet[c].clone())
        .collect();
    let folded: Vec<T> = (0..n)
        .map(|c| checked[c].clone() - called[c].clone())
        .collect();
    let folded_total = folded.iter().fold(T::zero(), |a, x| a + x.clone());
    let bet_total = open.iter().fold(T::zero(), |a, x| a + x.clone());
    let mut wl = Vec::new();
    let mut out = SecondValues {
        check_check: Vec::new(),
        check_bet: Vec::new(),
        bet_fold: Vec::new(),
        bet_call: Vec::new(),
    };
    win_minus_lose(&checked, &mut wl);
    out.check_check = wl.iter().map(|x| h.clone() * x.clone()).collect();
    win_minus_lose(&called, &mut wl);
    out.check_bet = (0..n)
        .map(|d| {
            h.clone() * (folded_total.clone() - folded[d].clone()) + hb.clone() * wl[d].clone()
        })
        .collect();
    out.bet_fold = (0..n)
        .map(|d| -(h.clone() * (bet_total.clone() - open[d].clone())))
        .collect();
    win_minus_lose(open, &mut wl);
    out.bet_call = wl.iter().map(|x| hb.clone() * x.clone()).collect();
    out
}

/// P's action values given Q's `check` (bet) and `bet` (call) probabilities.
pub fn first_values<T: Scalar>(params: &OcpParams, check: &[T], bet: &[T]) -> FirstValues<T> {
    let n = check.len();
    let h: T = params.value();
    let hb = h.clone() + T::from_rational(&crate::scalar::int(params.bet));
    let checked_back: Vec<T> = check.iter().map(|d| T::one() - d.clone()).collect();
    let bet_total = check.iter().fold(T::zero(), |a, x| a + x.clone());
    let call_total = bet.iter().fold(T::zero(), |a, x| a + x.clone());
    let others = T::from_rational(&crate::scalar::int(n as i64 - 1));
    let mut wl = Vec::new();
    let mut out = FirstValues {
        check_showdown: Vec::new(),
        open_bet: Vec::new(),
        cb_fold: Vec::new(),
        cb_call: Vec::new(),
    };
    win_minus_lose(&checked_back, &mut wl);
    out.check_showdown = wl.iter().map(|x| h.clone() * x.clone()).collect();
    win_minus_lose(bet, &mut wl);
    out.open_bet = (0..n)
        .map(|c| {
            h.clone() * (others.clone() - (call_total.clone() - bet[c].clone()))
                + hb.clone() * wl[c].clone()
        })
        .collect();
    out.cb_fold = (0..n)
        .map(|c| -(h.clone() * (bet_total.clone() - check[c].clone())))
        .collect();
    win_minus_lose(check, &mut wl);
    out.cb_call = wl.iter().map(|x| hb.clone() * x.clone()).collect();
    out
}

fn max<T: Scalar>(a: T, b: T) -> T {
    if b > a {
        b
    } else {
        a
    }
}

/// The strategy's guaranteed chips per seat against a best response, exact when `T` is
/// `Rational`. O(N).
pub fn score<T: Scalar>(params: &OcpParams, s: &OcpStrategy<T>) -> OcpScore<T> {
    let n = s.num_cards();
    let pairs = T::from_rational(&crate::scalar::int((n * (n - 1)) as i64));
    let h: T = params.value();
    // Seat 1: Q best-responds to our open/check-bet.
    let q = second_values(params, &s.open, &s.check_bet);
    let mut q_best = T::zero();
    for d in 0..n {
        q_best = q_best
            + max(q.check_check[d].clone(), q.check_bet[d].clone())
            + max(q.bet_fold[d].clone(), q.bet_call[d].clone());
    }
    // Seat 2: P best-responds to our check/bet.
    let p = first_values(params, &s.check, &s.bet);
    let mut p_best = T::zero();
    for c in 0..n {
        let cb = max(p.cb_fold[c].clone(), p.cb_call[c].clone());
        p_best = p_best + max(p.open_bet[c].clone(), p.check_showdown[c].clone() + cb);
    }
    let first_seat = h.clone() - q_best / pairs.clone();
    let second_seat = h.clone() - p_best / pairs;
    let two = T::one() + T::one();
    let average = (first_seat.clone() + second_seat.clone()) / two;
    OcpScore {
        gap: h - average.clone(),
        first_seat,
        second_seat,
        average,
    }
}

/// The general game's behavioural profile in which player `S` plays `s` and `O` plays
/// `opponent`, both looked up by the `"<card> <situation>"` labels of
/// [`crate::problems::one_card_poker::game`].
pub fn to_profile<T: Scalar>(
    game: &crate::game::Game,
    s: &OcpStrategy<T>,
    opponent: &OcpStrategy<T>,
) -> crate::strategy::Profile<T> {
    let mut profile = crate::strategy::Profile::<T>::uniform(game);
    for (player, strat) in [(0, s), (1, opponent)] {
        for (id, set) in game.infosets[player].iter().enumerate() {
            let (card, sit) = split_label(&set.label);
            let p = strat.parts()[sit][card - 1].clone();
            let off = game.infosets[player][id].action_offset;
            profile.probs[player][off] = T::one() - p.clone();
            profile.probs[player][off + 1] = p;
        }
    }
    profile
}

/// Player `player`'s strategy read back from a general-game profile.
pub fn from_profile<T: Scalar>(
    game: &crate::game::Game,
    profile: &crate::strategy::Profile<T>,
    player: usize,
) -> OcpStrategy<T> {
    let n = game.infosets[player].len() / 4;
    let mut out = OcpStrategy::<T>::uniform(n);
    for set in &game.infosets[player] {
        let (card, sit) = split_label(&set.label);
        out.parts_mut()[sit][card - 1] = profile.probs[player][set.action_offset + 1].clone();
    }
    out
}

/// `"12 check-bet"` -> (12, 3).
fn split_label(label: &str) -> (usize, usize) {
    let (card, sit) = label
        .split_once(' ')
        .expect("one-card poker labels are `<card> <situation>`");
    let sit = crate::problems::one_card_poker::game::SITUATIONS
        .iter()
        .position(|&s| s == sit)
        .expect("known situation");
    (card.parse().expect("card number"), sit)
}
