//! Behavioural strategy profiles: one probability per action of every information set.

use crate::game::{Game, Player};
use crate::scalar::{Rational, Scalar};
use num_traits::{One, Zero};

/// A behavioural strategy for both players, as flat per-player action arrays laid out by
/// [`crate::game::Infoset::action_offset`].
#[derive(Clone, Debug, PartialEq)]
pub struct Profile<T> {
    /// `probs[player][action]`: probability of that action at its information set.
    pub probs: [Vec<T>; 2],
}

/// A profile in exact rationals.
pub type ExactProfile = Profile<Rational>;

impl<T: Scalar> Profile<T> {
    /// Every information set plays its actions with equal probability.
    pub fn uniform(game: &Game) -> Self {
        let mut probs: [Vec<T>; 2] = [Vec::new(), Vec::new()];
        for p in 0..2 {
            probs[p] = vec![T::zero(); game.num_actions[p]];
            for set in &game.infosets[p] {
                let share = T::from_rational(&crate::scalar::rat(1, set.actions.len() as i64));
                for a in set.action_range() {
                    probs[p][a] = share.clone();
                }
            }
        }
        Profile { probs }
    }

    /// The probability of local action `action` at `player`'s information set `label`, if the
    /// game has that set and action.
    pub fn prob_at(&self, game: &Game, player: Player, label: &str, action: usize) -> Option<T> {
        let id = game.find_infoset(player, label)?;
        let set = &game.infosets[player][id];
        (action < set.actions.len()).then(|| self.probs[player][set.action_offset + action].clone())
    }

    /// A pure strategy for one player: `choice[infoset]` is the local action index played.
    pub fn set_pure(&mut self, game: &Game, player: Player, choice: &[usize]) {
        for (id, set) in game.infosets[player].iter().enumerate() {
            for (k, a) in set.action_range().enumerate() {
                self.probs[player][a] = if k == choice[id] { T::one() } else { T::zero() };
            }
        }
    }

    /// The probabilities of one information set's actions.
    pub fn infoset_probs(&self, game: &Game, player: Player, infoset: usize) -> &[T] {
        &self.probs[player][game.infosets[player][infoset].action_range()]
    }

    /// Converts to `f64`.
    pub fn to_f64(&self) -> Profile<f64> {
        Profile {
            probs: [0, 1].map(|p| self.probs[p].iter().map(|x| x.to_f64()).collect()),
        }
    }
}

impl Profile<f64> {
    /// The exact rational value of every `f64` probability, renormalised per information set so
    /// each sums to exactly 1 (rounding leaves float sums a few ulps off).
    pub fn to_exact(&self, game: &Game) -> ExactProfile {
        let mut probs: [Vec<Rational>; 2] = [Vec::new(), Vec::new()];
        for p in 0..2 {
            probs[p] = self.probs[p]
                .iter()
                .map(|&x| Rational::from_float(x.max(0.0)).unwrap_or_else(Rational::zero))
                .collect();
            normalize_exact(game, p, &mut probs[p]);
        }
        Profile { probs }
    }
}

/// Divides each information set's probabilities by their sum (uniform where the sum is 0).
pub fn normalize_exact(game: &Game, player: Player, probs: &mut [Rational]) {
    for set in &game.infosets[player] {
        let range = set.action_range();
        let sum: Rational = probs[range.clone()].iter().sum();
        if sum.is_zero() {
            let share = crate::scalar::rat(1, set.actions.len() as i64);
            for a in range {
                probs[a] = share.clone();
            }
        } else if !sum.is_one() {
            for a in range {
                probs[a] = &probs[a] / &sum;
            }
        }
    }
}

/// One information set of a strategy kept by key (a game with no arena), labelled by its rules.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledSet {
    /// The rules' key.
    pub key: u64,
    /// The set's label ([`crate::game::Rules::infoset_label`]).
    pub label: String,
    /// The actions' labels, in action order.
    pub actions: Vec<String>,
    /// The probabilities, in action order.
    pub probs: Vec<f64>,
}

impl LabelledSet {
    /// `player`'s set `key` of `rules`, stated through [`crate::game::Rules::key_state`] and
    /// labelled (its actions' labels too when `action_labels`), with the probabilities
    /// `probs(n)` gives for its `n` actions; an error when the rules cannot state the set.
    pub fn from_key<R: crate::game::Rules + ?Sized>(
        rules: &R,
        player: usize,
        key: u64,
        action_labels: bool,
        probs: impl FnOnce(usize) -> crate::Result<Vec<f64>>,
    ) -> crate::Result<LabelledSet> {
        let Some(state) = rules.key_state(player, key) else {
            crate::error::fail!(
                Invalid,
                "{}: the rules cannot state information set {key} of player {} (they state \
                 no key_state)",
                rules.name(),
                player + 1
            );
        };
        let n = rules.num_actions(&state);
        let mut label = String::new();
        rules.infoset_label(&state, &mut label);
        Ok(LabelledSet {
            key,
            label,
            actions: match action_labels {
                true => (0..n)
                    .map(|a| rules.action_label(&state, a).into_owned())
                    .collect(),
                false => Vec::new(),
            },
            probs: probs(n)?,
        })
    }
}

/// A strategy of a game played from its rules, by labels: the sets a solver reached (the
/// others play uniformly).
#[derive(Clone, Debug, PartialEq)]
pub struct LabelledStrategy {
    /// The players' names.
    pub player_names: [String; 2],
    /// Per player, the sets in key order.
    pub sets: [Vec<LabelledSet>; 2],
}
