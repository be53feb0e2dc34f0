//! The card-guessing game of Codeforces 98E ("Help Shrek and Donkey"), solved by dynamic
//! programming over states, each state a small zero-sum matrix game.
//!
//! A state is `(own, opp)`: the mover holds `own` live cards, the responder `opp`, and one card
//! lies on the table. "Live" excludes cards shown and put aside and cards already named (a named
//! card that was not refuted is, as far as the play below is concerned, either the table card —
//! then its namer wins next turn — or a bluff the responder saw through). `f(own, opp)` is the
//! mover's probability of winning with optimal play by both:
//!
//! - `f(0, opp) = 1 / (opp + 1)`: with no card to bluff with, any name the responder cannot refute
//!   is the table card, so naming only helps the responder; the mover guesses.
//! - `f(own, 0) = 1`: the only card the mover does not see is the table card.
//! - otherwise the mover picks *honest* (name one of the `opp + 1` unseen cards, uniformly) or
//!   *bluff* (name one of its own cards, uniformly), and a responder who cannot refute the name
//!   picks *believe* (guess the named card) or *disbelieve* (play on, treating it as the mover's
//!   card). With `g = 1 / (opp + 1)` the payoffs to the mover are
//!
//! ```text
//!              believe                            disbelieve
//!   honest     x = opp g (1 - f(opp - 1, own))    x + g
//!   bluff      1                                  y = 1 - f(opp, own - 1)
//! ```
//!
//!   (honest: with probability `opp g` the responder holds the card, shows it, and moves in state
//!   `(opp - 1, own)`; with probability `g` it is the table card and the responder wins by
//!   believing, loses by not. Bluff: a believer guesses wrong; a disbeliever moves in
//!   `(opp, own - 1)`.) Guessing at once is a third row worth `g` against both columns, so
//!   `f = max(g, value of the 2x2 game)`; the section below shows why the maximum is always the
//!   2x2 value.
//!
//! Each state reads two states with one card fewer, so the table is filled layer by layer in
//! increasing `own + opp`: iterative, `O(m n)` time and memory, no recursion.
//!
//! # Why the mover never gains by guessing early
//!
//! Let `own, opp >= 1`, `g = 1 / (opp + 1)` (the guess's value) and `x, y` the matrix entries
//! above. First, `1 - f(k, a) >= 1 / (2 (k + 1))` for every `a >= 1`: a responder holding `a`
//! cards who always disbelieves and then guesses uniformly wins with probability `a/(a+1) >= 1/2`
//! if the mover guesses, `a/(a+1) * 1/(k+1)` if the mover names honestly (the name hits one of
//! its cards, which is shown), and `1/k` after a bluff. Hence `x = opp g (1 - f(opp-1, own)) >=
//! opp g / (2 opp) = g / 2 >= g^2`, since `g <= 1/2`. Now if `x >= g`, pure honest naming already
//! guarantees `x >= g`. Otherwise mix honest with probability `p = (1 - g) / (1 - x)`: against
//! *believe* it earns exactly `p x + 1 - p = g`, against *disbelieve* at least `p (x + g) >= g`
//! because `(1 - g)(x + g) >= g (1 - x)` reduces to `x >= g^2`. So the 2x2 value is at least the
//! guess, and guessing is optimal only at the boundary: `own = 0` (no bluff possible, any
//! unrefuted name is the truth) and `opp = 0` (the guess is certain). Equality holds only at
//! `(1, 1)`, where both are worth 1/2 (checked over all states up to 200 cards in the tests).

pub mod explicit;
pub mod pictures;

use crate::scalar::Scalar;

/// Largest hand size the command accepts (the problem's bound).
pub const MAX_HAND: usize = 1000;

/// Optimal mixed strategies of a 2x2 zero-sum matrix game; the row player maximises.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix2Solution<T> {
    /// Probability the row player plays row 0.
    pub row0: T,
    /// Probability the column player plays column 0.
    pub col0: T,
    /// The value to the row player.
    pub value: T,
    /// `true` when the game has a pure saddle point (the strategies above are then pure).
    pub saddle: bool,
}

/// Solves the 2x2 zero-sum game `a` (payoffs to the row player, who maximises).
///
/// A pure saddle point (an entry that is the minimum of its row and the maximum of its column) is
/// taken first, which covers every degenerate case. Without one the two rows cross strictly, the
/// denominator below is a sum of two non-zero terms of equal sign, and the indifference mixes are
/// well conditioned; the value is taken as a convex combination so that `f64` rounding stays at a
/// few ulps.
pub fn solve_2x2<T: Scalar>(a: &[[T; 2]; 2]) -> Matrix2Solution<T> {
    for i in 0..2 {
        for j in 0..2 {
            if a[i][j] <= a[i][1 - j] && a[i][j] >= a[1 - i][j] {
                let pick = |k: usize| if k == 0 { T::one() } else { T::zero() };
                return Matrix2Solution {
                    row0: pick(i),
                    col0: pick(j),
                    value: a[i][j].clone(),
                    saddle: true,
                };
            }
        }
    }
    let d_row0 = a[0][0].clone() - a[0][1].clone();
    let d_row1 = a[1][1].clone() - a[1][0].clone();
    let denominator = d_row0 + d_row1.clone();
    let row0 = d_row1 / denominator.clone();
    let col0 = (a[1][1].clone() - a[0][1].clone()) / denominator;
    let value = a[1][0].clone() + row0.clone() * (a[0][0].clone() - a[1][0].clone());
    Matrix2Solution {
        row0,
        col0,
        value,
        saddle: false,
    }
}

/// How a state is played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StateKind {
    /// The responder has no live card: the mover knows the table card and guesses it.
    Certain,
    /// The mover has no live card to bluff with: it guesses among the `opp + 1` unseen cards.
    NoBluff,
    /// The 2x2 game has a pure saddle point.
    Saddle,
    /// The 2x2 game is solved by a proper mix.
    Mixed,
    /// Guessing is strictly better than naming (never happens; see the module documentation).
    GuessBest,
}

impl StateKind {
    /// A short lower-case name for tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            StateKind::Certain => "certain",
            StateKind::NoBluff => "no-bluff",
            StateKind::Saddle => "saddle",
            StateKind::Mixed => "mixed",
            StateKind::GuessBest => "guess",
        }
    }
}

/// The equilibrium play of one state `(own, opp)`.
#[derive(Clone, Debug, PartialEq)]
pub struct StateStrategy<T> {
    /// Live cards of the mover.
    pub own: usize,
    /// Live cards of the responder.
    pub opp: usize,
    /// The mover's win probability `f(own, opp)`.
    pub value: T,
    /// Probability the mover guesses now (uniformly among the `opp + 1` unseen cards).
    pub guess: T,
    /// Probability the mover names one of the `opp + 1` unseen cards, uniformly.
    pub honest: T,
    /// Probability the mover names one of its own live cards, uniformly.
    pub bluff: T,
    /// Probability a responder who cannot refute the name believes it (guesses the named card).
    /// Where the mover never names (`Certain`, `NoBluff`) this is 1: an unrefuted name from a mover
    /// without live cards must be the table card, and against a mover who knows the table card
    /// no reply makes naming better than guessing.
    pub believe: T,
    /// How the state is played.
    pub kind: StateKind,
    /// The 2x2 matrix (rows honest, bluff; columns believe, disbelieve) where both hold cards.
    pub matrix: Option<[[T; 2]; 2]>,
}

/// The value table `f(own, opp)` for every state a game with hands `(m, n)` can reach.
#[derive(Clone, Debug)]
pub struct CardGuessing<T> {
    m: usize,
    n: usize,
    side: usize,
    values: Vec<T>,
    consts: Consts<T>,
}

/// Per-`opp` constants, made once so the inner loop does no conversions:
/// `guess[k] = 1/(k+1)` and `shown[k] = k/(k+1)`.
#[derive(Clone, Debug)]
struct Consts<T> {
    guess: Vec<T>,
    shown: Vec<T>,
}

impl<T: Scalar> Consts<T> {
    fn new(side: usize) -> Self {
        let guess: Vec<T> = (0..side)
            .map(|k| T::from_rational(&crate::scalar::rat(1, k as i64 + 1)))
            .collect();
        let shown = guess.iter().map(|g| T::one() - g.clone()).collect();
        Consts { guess, shown }
    }
}

impl<T: Scalar> CardGuessing<T> {
    /// Solves the game where Shrek (moving first) holds `m` cards and Donkey `n`.
    pub fn solve(m: usize, n: usize) -> Self {
        Self::solve_with_progress(m, n, |_, _| {})
    }

    /// As [`CardGuessing::solve`], calling `progress(done, total)` after each layer of states.
    pub fn solve_with_progress(m: usize, n: usize, mut progress: impl FnMut(usize, usize)) -> Self {
        let side = m.max(n) + 1;
        let total = m + n;
        let mut values = vec![T::zero(); side * side];
        let consts = Consts::new(side);
        // Layer s holds the states with own + opp = s; each reads layer s - 1 only.
        for s in 0..=total {
            let lo = s.saturating_sub(side - 1);
            let hi = s.min(side - 1);
            for own in lo..=hi {
                let opp = s - own;
                let v = state_value(&values, side, &consts, own, opp);
                values[own * side + opp] = v;
            }
            progress(s + 1, total + 1);
        }
        CardGuessing {
            m,
            n,
            side,
            values,
            consts,
        }
    }

    /// Shrek's and Donkey's win probabilities.
    pub fn win_probabilities(&self) -> (T, T) {
        let shrek = self.values[self.m * self.side + self.n].clone();
        (shrek.clone(), T::one() - shrek)
    }

    /// `f(own, opp)`, or `None` outside the solved table.
    pub fn value(&self, own: usize, opp: usize) -> Option<&T> {
        self.contains(own, opp)
            .then(|| &self.values[own * self.side + opp])
    }

    fn contains(&self, own: usize, opp: usize) -> bool {
        own < self.side && opp < self.side && own + opp <= self.m + self.n
    }

    /// The equilibrium play of state `(own, opp)`, or `None` outside the solved table.
    pub fn strategy(&self, own: usize, opp: usize) -> Option<StateStrategy<T>> {
        self.contains(own, opp)
            .then(|| state_strategy(&self.values, self.side, &self.consts, own, opp))
    }

    /// The states reachable from the start `(m, n)` by naming (a shown card or a disbelieved
    /// bluff removes one card), by decreasing number of cards, then by the mover's cards. The
    /// flag is `true` where Shrek moves.
    pub fn reachable_states(&self) -> Vec<(usize, usize, bool)> {
        let mut out = Vec::new();
        let mut layer = vec![(self.m, self.n)];
        let mut shrek = true;
        while !layer.is_empty() {
            layer.sort_unstable();
            layer.dedup();
            out.extend(layer.iter().map(|&(a, b)| (a, b, shrek)));
            let mut next = Vec::with_capacity(layer.len() + 1);
            for &(own, opp) in &layer {
                if own > 0 && opp > 0 {
                    next.push((opp - 1, own));
                    next.push((opp, own - 1));
                }
            }
            layer = next;
            shrek = !shrek;
        }
        out
    }
}

fn state_value<T: Scalar>(values: &[T], side: usize, c: &Consts<T>, own: usize, opp: usize) -> T {
    if opp == 0 {
        return T::one();
    }
    let g = c.guess[opp].clone();
    if own == 0 {
        return g;
    }
    let v = solve_2x2(&matrix(values, side, c, own, opp)).value;
    if g > v {
        g
    } else {
        v
    }
}

fn matrix<T: Scalar>(
    values: &[T],
    side: usize,
    c: &Consts<T>,
    own: usize,
    opp: usize,
) -> [[T; 2]; 2] {
    let g = c.guess[opp].clone();
    let x = c.shown[opp].clone() * (T::one() - values[(opp - 1) * side + own].clone());
    let y = T::one() - values[opp * side + own - 1].clone();
    [[x.clone(), x + g], [T::one(), y]]
}

fn state_strategy<T: Scalar>(
    values: &[T],
    side: usize,
    c: &Consts<T>,
    own: usize,
    opp: usize,
) -> StateStrategy<T> {
    let pure = |kind, value: T| StateStrategy {
        own,
        opp,
        value,
        guess: T::one(),
        honest: T::zero(),
        bluff: T::zero(),
        believe: T::one(),
        kind,
        matrix: None,
    };
    if opp == 0 {
        return pure(StateKind::Certain, T::one());
    }
    let g = c.guess[opp].clone();
    if own == 0 {
        return pure(StateKind::NoBluff, g);
    }
    let a = matrix(values, side, c, own, opp);
    let sol = solve_2x2(&a);
    let believe = sol.col0.clone();
    if g > sol.value {
        return StateStrategy {
            believe,
            kind: StateKind::GuessBest,
            matrix: Some(a),
            ..pure(StateKind::GuessBest, g)
        };
    }
    StateStrategy {
        own,
        opp,
        value: sol.value,
        guess: T::zero(),
        bluff: T::one() - sol.row0.clone(),
        honest: sol.row0,
        believe,
        kind: if sol.saddle {
            StateKind::Saddle
        } else {
            StateKind::Mixed
        },
        matrix: Some(a),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{rat, Rational};

    #[test]
    fn samples_and_reference_values() {
        let cases = [
            (0, 3, rat(1, 4)),
            (1, 0, rat(1, 1)),
            (1, 1, rat(1, 2)),
            (0, 1, rat(1, 2)),
            (0, 2, rat(1, 3)),
            (2, 0, rat(1, 1)),
            (2, 1, rat(2, 3)),
        ];
        for (m, n, want) in cases {
            let t = CardGuessing::<Rational>::solve(m, n);
            assert_eq!(t.win_probabilities().0, want, "({m}, {n})");
        }
    }

    #[test]
    fn two_by_two_solver_matches_known_games() {
        // Matching pennies: value 0, both mix 1/2.
        let s = solve_2x2(&[[rat(1, 1), rat(-1, 1)], [rat(-1, 1), rat(1, 1)]]);
        assert_eq!((s.row0, s.col0, s.value), (rat(1, 2), rat(1, 2), rat(0, 1)));
        // Saddle at (row 1, column 0): 2 is the least of its row and the largest in its column.
        let s = solve_2x2(&[[rat(1, 1), rat(5, 1)], [rat(2, 1), rat(3, 1)]]);
        assert!(s.saddle);
        assert_eq!((s.row0, s.col0, s.value), (rat(0, 1), rat(1, 1), rat(2, 1)));
        // Degenerate: all entries equal.
        let s = solve_2x2(&[[rat(1, 3), rat(1, 3)], [rat(1, 3), rat(1, 3)]]);
        assert_eq!(s.value, rat(1, 3));
        // (1, 1) of the card game: honest with 2/3, believe with 1/2, value 1/2 (by hand).
        let s = solve_2x2(&[[rat(1, 4), rat(3, 4)], [rat(1, 1), rat(0, 1)]]);
        assert_eq!((s.row0, s.col0, s.value), (rat(2, 3), rat(1, 2), rat(1, 2)));
    }

    proptest::proptest! {
        /// Any 2x2 game, saddle or not, degenerate or not: the returned strategies are a
        /// certificate (the row mix earns at least the value against both columns, the column
        /// mix concedes at most the value against both rows), which proves both optimal.
        #[test]
        fn two_by_two_solutions_certify_themselves(e in proptest::collection::vec(-4i64..=4, 4)) {
            let a = [[rat(e[0], 1), rat(e[1], 2)], [rat(e[2], 3), rat(e[3], 1)]];
            let s = solve_2x2(&a);
            let one = rat(1, 1);
            proptest::prop_assert!(s.row0 >= rat(0, 1) && s.row0 <= one);
            proptest::prop_assert!(s.col0 >= rat(0, 1) && s.col0 <= one);
            for j in 0..2 {
                let earned = &s.row0 * &a[0][j] + (&one - &s.row0) * &a[1][j];
                proptest::prop_assert!(earned >= s.value);
            }
            for i in 0..2 {
                let conceded = &s.col0 * &a[i][0] + (&one - &s.col0) * &a[i][1];
                proptest::prop_assert!(conceded <= s.value);
            }
        }
    }

    #[test]
    fn mixes_make_the_opponent_indifferent() {
        // Each state's mix, checked against the matrix directly in exact arithmetic.
        let t = CardGuessing::<Rational>::solve(8, 8);
        for own in 1..=8 {
            for opp in 1..=8 {
                let s = t.strategy(own, opp).unwrap();
                let a = s.matrix.clone().unwrap();
                let row = |j: usize| &s.honest * &a[0][j] + &s.bluff * &a[1][j];
                let col = |i: usize| &s.believe * &a[i][0] + (rat(1, 1) - &s.believe) * &a[i][1];
                assert!(row(0) >= s.value && row(1) >= s.value, "({own},{opp})");
                assert!(col(0) <= s.value && col(1) <= s.value, "({own},{opp})");
            }
        }
    }

    #[test]
    fn guessing_is_never_strictly_better_and_ties_only_at_one_one() {
        let t = CardGuessing::<f64>::solve(200, 200);
        for own in 1..=200 {
            for opp in 1..=200 {
                let s = t.strategy(own, opp).unwrap();
                let g = 1.0 / (opp as f64 + 1.0);
                assert_ne!(s.kind, StateKind::GuessBest);
                if (own, opp) == (1, 1) {
                    assert_eq!(s.value, g);
                } else {
                    assert!(s.value > g + 1e-6, "({own},{opp}): {} vs {g}", s.value);
                }
            }
        }
    }

    #[test]
    fn float_table_agrees_with_exact_table() {
        let exact = CardGuessing::<Rational>::solve(12, 12);
        let float = CardGuessing::<f64>::solve(12, 12);
        for own in 0..=12 {
            for opp in 0..=12 {
                let e = exact.value(own, opp).unwrap().to_f64();
                let f = *float.value(own, opp).unwrap();
                assert!((e - f).abs() < 1e-14, "({own},{opp}): {e} vs {f}");
            }
        }
    }

    #[test]
    fn reachable_states_alternate_movers() {
        let t = CardGuessing::<f64>::solve(2, 1);
        let states = t.reachable_states();
        assert_eq!(states[0], (2, 1, true));
        assert_eq!(
            &states[1..],
            &[(0, 2, false), (1, 1, false), (0, 1, true), (1, 0, true)]
        );
    }
}
