//! Node locks: a player's strategy fixed at chosen information sets while every other set is
//! solved.
//!
//! A [`Lock`] holds, per player, the locked sets (by their id in [`Game::infosets`]) with an
//! exact probability per action. The CFR kernels play a locked set's lock and learn no regret
//! there, the sampling solvers and the exact LP play the game with the locked sets turned into
//! chance nodes ([`Lock::to_chance`]), and the best responses of [`crate::eval`] keep locked
//! sets as they are. The file format (a strategy file with sets left out) is read by
//! [`crate::format::lock_json`].

use crate::game::{Game, Interned, NodeKind, Player};
use crate::scalar::{format_rational, rational_to_f64, Rational, Scalar};
use crate::strategy::{ExactProfile, Profile};
use num_traits::Zero;
use std::collections::HashMap;

/// One locked information set: its id among its player's sets and its exact probabilities in
/// the set's action order (they sum to exactly 1).
#[derive(Clone, Debug, PartialEq)]
pub struct LockedSet {
    /// The set's id in [`Game::infosets`] of its player.
    pub infoset: usize,
    /// One probability per action, exact.
    pub probs: Vec<Rational>,
}

/// The locked sets of both players, each player's in increasing set id.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lock {
    /// `sets[player]`: that player's locked sets.
    pub sets: [Vec<LockedSet>; 2],
}

impl Lock {
    /// Whether nothing is locked.
    pub fn is_empty(&self) -> bool {
        self.sets.iter().all(|s| s.is_empty())
    }

    /// Per set of `player`, whether it is locked.
    pub fn mask(&self, game: &Game, player: Player) -> Vec<bool> {
        let mut mask = vec![false; game.infosets[player].len()];
        for s in &self.sets[player] {
            mask[s.infoset] = true;
        }
        mask
    }

    /// The locked sets' labels, per player, in the game's order.
    pub fn labels(&self, game: &Game) -> [Vec<String>; 2] {
        [0, 1].map(|p| {
            self.sets[p]
                .iter()
                .map(|s| game.infosets[p][s.infoset].label.clone())
                .collect()
        })
    }

    /// `profile` with every locked set playing its lock.
    pub fn apply<T: Scalar>(&self, game: &Game, profile: &mut Profile<T>) {
        for p in 0..2 {
            for s in &self.sets[p] {
                let start = game.infosets[p][s.infoset].action_offset;
                for (k, x) in s.probs.iter().enumerate() {
                    profile.probs[p][start + k] = T::from_rational(x);
                }
            }
        }
    }

    /// The lock as canonical text (one line per set: player, label, probabilities), which
    /// checkpoints store to tell whether a resumed run has the same lock.
    pub fn canonical(&self, game: &Game) -> String {
        let mut out = String::new();
        for p in 0..2 {
            for s in &self.sets[p] {
                let probs: Vec<String> = s.probs.iter().map(format_rational).collect();
                out.push_str(&format!(
                    "{}\t{}\t{}\n",
                    p,
                    game.infosets[p][s.infoset].label,
                    probs.join(",")
                ));
            }
        }
        out
    }

    /// The lock [`Lock::canonical`] wrote for `game`, read back (the sets by label); `Err`
    /// names the line that does not fit the game.
    pub fn from_canonical(game: &Game, text: &str) -> Result<Lock, String> {
        let mut ids: [HashMap<&str, usize>; 2] = [HashMap::new(), HashMap::new()];
        for p in 0..2 {
            for (id, set) in game.infosets[p].iter().enumerate() {
                ids[p].insert(set.label.as_str(), id);
            }
        }
        let mut lock = Lock::default();
        for (n, line) in text.lines().enumerate() {
            let bad = |why: &str| format!("lock line {}: {why}: {line:?}", n + 1);
            let mut parts = line.split('\t');
            let (Some(p), Some(label), Some(probs), None) =
                (parts.next(), parts.next(), parts.next(), parts.next())
            else {
                return Err(bad("expected player, set and probabilities"));
            };
            let p: usize = match p {
                "0" => 0,
                "1" => 1,
                _ => return Err(bad("the player is not 0 or 1")),
            };
            let Some(&id) = ids[p].get(label) else {
                return Err(bad("the game has no such set"));
            };
            let probs: Option<Vec<Rational>> = probs
                .split(',')
                .map(crate::scalar::parse_rational)
                .collect();
            let Some(probs) = probs else {
                return Err(bad("a probability does not parse"));
            };
            lock.sets[p].push(LockedSet { infoset: id, probs });
        }
        for sets in &mut lock.sets {
            sets.sort_by_key(|s| s.infoset);
            if sets.windows(2).any(|w| w[0].infoset == w[1].infoset) {
                return Err("a set is locked twice".into());
            }
        }
        if !lock.is_valid(game) {
            return Err("the lock does not fit the game's sets and actions".into());
        }
        Ok(lock)
    }

    /// Per player, each set's id in the game [`Lock::to_chance`] makes (`None`: locked).
    pub fn kept_ids(&self, game: &Game) -> [Vec<Option<u64>>; 2] {
        [0, 1].map(|p| {
            let mut next = 0u64;
            self.mask(game, p)
                .into_iter()
                .map(|locked| {
                    (!locked).then(|| {
                        next += 1;
                        next - 1
                    })
                })
                .collect()
        })
    }

    /// The game with every locked set turned into chance nodes playing the lock (the sets
    /// left are renumbered in order; a set whose player's last own action was at a locked set
    /// now follows the action before it). Labels of sets and actions are kept.
    pub fn to_chance(&self, game: &Game) -> Game {
        let mut out = game.clone();
        let masks = [self.mask(game, 0), self.mask(game, 1)];
        let mut lock_of: [HashMap<usize, &LockedSet>; 2] = [HashMap::new(), HashMap::new()];
        for p in 0..2 {
            for s in &self.sets[p] {
                lock_of[p].insert(s.infoset, s);
            }
        }
        // New set ids and action indices of the sets kept.
        let mut new_set: [Vec<Option<u32>>; 2] = [Vec::new(), Vec::new()];
        let mut new_action: [Vec<Option<usize>>; 2] = [Vec::new(), Vec::new()];
        for p in 0..2 {
            let mut next_set = 0u32;
            let mut next_action = 0usize;
            new_action[p] = vec![None; game.num_actions[p]];
            for (id, set) in game.infosets[p].iter().enumerate() {
                if masks[p][id] {
                    new_set[p].push(None);
                    continue;
                }
                new_set[p].push(Some(next_set));
                next_set += 1;
                for a in set.action_range() {
                    new_action[p][a] = Some(next_action);
                    next_action += 1;
                }
            }
        }
        // A kept set's parent action: the nearest own action on its path that is kept.
        let parent_of = |p: usize, mut parent: Option<usize>| -> Option<usize> {
            while let Some(a) = parent {
                if let Some(n) = new_action[p][a] {
                    return Some(n);
                }
                parent = game.infosets[p][game.action_infoset[p][a] as usize].parent_action;
            }
            None
        };
        let mut probs: Vec<Rational> = (0..game.nodes.len())
            .map(|n| game.chance_prob[n].clone())
            .collect();
        let mut labels: Vec<String> = (0..game.nodes.len())
            .map(|n| game.chance_label[n].clone())
            .collect();
        for (n, node) in game.nodes.iter().enumerate() {
            if let NodeKind::Decision { player, infoset } = node.kind {
                let (p, id) = (player as usize, infoset as usize);
                match new_set[p][id] {
                    Some(new) => {
                        out.nodes[n].kind = NodeKind::Decision {
                            player,
                            infoset: new,
                        }
                    }
                    None => {
                        out.nodes[n].kind = NodeKind::Chance;
                        let locked = lock_of[p][&id];
                        let set = &game.infosets[p][id];
                        for (k, child) in node.children().enumerate() {
                            probs[child] = locked.probs[k].clone();
                            labels[child] = set.actions[k].clone();
                        }
                    }
                }
            }
        }
        out.chance_prob_f64 = probs.iter().map(rational_to_f64).collect();
        out.chance_prob = Interned::from_values(probs);
        out.chance_label = Interned::from_values(labels);
        for p in 0..2 {
            let mut sets = Vec::new();
            let mut offset = 0;
            let mut action_infoset = Vec::new();
            for (id, set) in game.infosets[p].iter().enumerate() {
                if masks[p][id] {
                    continue;
                }
                let mut kept = set.clone();
                kept.action_offset = offset;
                kept.parent_action = parent_of(p, set.parent_action);
                offset += set.actions.len();
                action_infoset.extend(std::iter::repeat_n(sets.len() as u32, set.actions.len()));
                sets.push(kept);
            }
            out.infosets[p] = sets;
            out.num_actions[p] = offset;
            out.action_infoset[p] = action_infoset;
        }
        out.mark_uniform_chance();
        out
    }

    /// A profile of the game [`Lock::to_chance`] made, read back on `game`: the kept sets'
    /// probabilities by position, the locked sets' locks.
    pub fn from_chance<T: Scalar>(&self, game: &Game, solved: &Profile<T>) -> Profile<T> {
        let mut out = Profile::<T>::uniform(game);
        for p in 0..2 {
            let mask = self.mask(game, p);
            let mut next = 0usize;
            for (id, set) in game.infosets[p].iter().enumerate() {
                if mask[id] {
                    continue;
                }
                for a in set.action_range() {
                    out.probs[p][a] = solved.probs[p][next].clone();
                    next += 1;
                }
            }
        }
        self.apply(game, &mut out);
        out
    }

    /// The lock as a strategy profile's part: every locked set of both players (exact).
    pub fn to_profile(&self, game: &Game) -> ExactProfile {
        let mut out = ExactProfile::uniform(game);
        self.apply(game, &mut out);
        out
    }

    /// Whether every probability is 0 or positive and each set sums to exactly 1 (a lock
    /// built by hand rather than read).
    pub fn is_valid(&self, game: &Game) -> bool {
        (0..2).all(|p| {
            self.sets[p].iter().all(|s| {
                s.infoset < game.infosets[p].len()
                    && s.probs.len() == game.infosets[p][s.infoset].actions.len()
                    && s.probs.iter().all(|x| *x >= Rational::zero())
                    && s.probs.iter().sum::<Rational>() == Rational::from_integer(1.into())
            })
        })
    }
}
