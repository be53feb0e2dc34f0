//! Raked poker: the house takes `min(rake x final pot, rake_cap)` from the winner of every
//! pot, at folds and showdowns alike, and each player pays half of it on a tie (as hold'em
//! spots take it). A raked game is general-sum: the payoffs no longer add to one constant.
//!
//! [`Raked`] wraps the rules of a zero-sum poker game that says how many chips are in the pot
//! at each terminal ([`Pot`]); who won is the sign of player 0's zero-sum payoff (a fold
//! always costs the folder their ante, so a payoff of 0 is a tie).

use crate::game::{Rules, Turn};
use crate::scalar::{format_rational, rational_to_f64, Rational};
use num_traits::{Signed, Zero};
use std::borrow::Cow;

/// A zero-sum poker game's rules that know the pot at each terminal.
pub trait Pot: Rules {
    /// The chips both players have put in the pot at terminal `s`.
    fn pot(&self, s: &Self::State) -> i64;
}

/// The house's cut: `min(rate x pot, cap)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Rake {
    /// The share of the final pot taken, in `[0, 1]`.
    pub rate: Rational,
    /// The most the house takes from one pot (`None`: no cap).
    pub cap: Option<Rational>,
}

impl Rake {
    /// The rake taken from a pot of `pot` chips.
    pub fn of(&self, pot: i64) -> Rational {
        let r = &self.rate * Rational::from_integer(pot.into());
        match &self.cap {
            Some(c) if *c < r => c.clone(),
            _ => r,
        }
    }

    /// Whether the house takes nothing from any pot.
    pub fn is_zero(&self) -> bool {
        self.rate.is_zero() || self.cap.as_ref().is_some_and(Zero::is_zero)
    }

    /// The spec's parameters, `rake=..` then `rake_cap=..` when capped (empty for no rake).
    pub fn spec_params(&self) -> String {
        if self.is_zero() {
            return String::new();
        }
        let mut out = format!("rake={}", format_rational(&self.rate));
        if let Some(c) = &self.cap {
            out.push_str(&format!(",rake_cap={}", format_rational(c)));
        }
        out
    }

    /// Both players' payoffs when player 0's zero-sum payoff is `net0` and the pot `pot`:
    /// the winner pays the rake, a tie splits it.
    pub fn payoffs(&self, net0: Rational, pot: i64) -> [Rational; 2] {
        let rake = self.of(pot);
        let net1 = -net0.clone();
        if net0.is_positive() {
            [net0 - rake, net1]
        } else if net0.is_negative() {
            [net0, net1 - rake]
        } else {
            let half = rake / Rational::from_integer(2.into());
            [net0 - &half, net1 - half]
        }
    }
}

/// A poker game's rules with a rake; see the module docs.
#[derive(Clone, Debug)]
pub struct Raked<R> {
    /// The unraked game.
    pub inner: R,
    /// The house's cut.
    pub rake: Rake,
    /// The game's spec, with its rake (`kuhn(rake=1/20)`).
    pub spec: String,
}

impl<R: Pot> Raked<R> {
    /// `inner` with `rake`, named `spec`.
    pub fn new(inner: R, rake: Rake, spec: String) -> Self {
        Raked { inner, rake, spec }
    }

    fn exact(&self, s: &R::State) -> [Rational; 2] {
        self.rake
            .payoffs(self.inner.payoff0_exact(s), self.inner.pot(s))
    }
}

impl<R: Pot> Rules for Raked<R> {
    type State = R::State;

    fn name(&self) -> String {
        self.spec.clone()
    }
    fn player_names(&self) -> [String; 2] {
        self.inner.player_names()
    }
    fn root(&self) -> R::State {
        self.inner.root()
    }
    fn turn(&self, s: &R::State) -> Turn {
        self.inner.turn(s)
    }
    fn num_actions(&self, s: &R::State) -> usize {
        self.inner.num_actions(s)
    }
    fn apply(&self, s: &mut R::State, action: usize) {
        self.inner.apply(s, action)
    }
    fn chance_prob(&self, s: &R::State, outcome: usize) -> f64 {
        self.inner.chance_prob(s, outcome)
    }
    fn chance_prob_exact(&self, s: &R::State, outcome: usize) -> Rational {
        self.inner.chance_prob_exact(s, outcome)
    }
    fn chance_is_uniform(&self, s: &R::State) -> bool {
        self.inner.chance_is_uniform(s)
    }
    fn infoset_key(&self, s: &R::State) -> u64 {
        self.inner.infoset_key(s)
    }
    fn payoff0(&self, s: &R::State) -> f64 {
        rational_to_f64(&self.payoff0_exact(s))
    }
    fn payoff0_exact(&self, s: &R::State) -> Rational {
        let [p0, _] = self.exact(s);
        p0
    }
    fn constant_sum(&self) -> Rational {
        Rational::zero()
    }
    fn general_sum(&self) -> bool {
        !self.rake.is_zero()
    }
    fn payoff1(&self, s: &R::State) -> f64 {
        rational_to_f64(&self.payoff1_exact(s))
    }
    fn payoff1_exact(&self, s: &R::State) -> Rational {
        let [_, p1] = self.exact(s);
        p1
    }
    fn infoset_label(&self, s: &R::State, out: &mut String) {
        self.inner.infoset_label(s, out)
    }
    fn action_label(&self, s: &R::State, action: usize) -> Cow<'_, str> {
        self.inner.action_label(s, action)
    }
    fn chance_label(&self, s: &R::State, outcome: usize) -> Cow<'_, str> {
        self.inner.chance_label(s, outcome)
    }
    fn terminal_label(&self, s: &R::State) -> Cow<'_, str> {
        self.inner.terminal_label(s)
    }
    fn num_nodes(&self) -> Option<u64> {
        self.inner.num_nodes()
    }
    fn key_problem(&self) -> Option<String> {
        self.inner.key_problem()
    }
    fn dense_keys(&self) -> Option<[usize; 2]> {
        self.inner.dense_keys()
    }
    fn key_state(&self, player: usize, key: u64) -> Option<R::State> {
        self.inner.key_state(player, key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scalar::{int, rat};

    #[test]
    fn the_winner_pays_a_capped_rake_and_a_tie_splits_it() {
        let rake = Rake {
            rate: rat(1, 10),
            cap: Some(rat(1, 2)),
        };
        // A pot of 4: 4/10 < 1/2, the winner of 2 keeps 2 - 2/5.
        assert_eq!(rake.payoffs(int(2), 4), [rat(8, 5), int(-2)]);
        // A pot of 10: capped at 1/2, paid by player 1 who won 5.
        assert_eq!(rake.payoffs(int(-5), 10), [int(-5), rat(9, 2)]);
        // A tie on a pot of 4: 2/5 split.
        assert_eq!(rake.payoffs(int(0), 4), [rat(-1, 5), rat(-1, 5)]);
        assert_eq!(rake.spec_params(), "rake=1/10,rake_cap=1/2");
        let none = Rake {
            rate: rat(1, 10),
            cap: Some(int(0)),
        };
        assert!(none.is_zero());
        assert_eq!(none.payoffs(int(3), 6), [int(3), int(-3)]);
    }
}
