//! Liar's dice with OpenSpiel's rules (`liars_dice`, bidding rule `reset-face`, two players).
//!
//! Each player rolls `dice` dice of `sides` faces (player 1's dice first, one chance node per
//! die, outcomes `Roll 1` .. `Roll <sides>`). Players then bid in turn, player 1 first: a bid
//! `q-f` claims that at least `q` of all `2 * dice` dice show face `f`. Bids are ranked by
//! quantity, then face (`1-1 < 1-2 < ... < 1-<sides> < 2-1 < ...`), each bid must rank above
//! the last, and after the first bid a player may call `Liar` instead. The highest face is
//! wild: it matches every bid. On a call the bid is checked; if it holds the bidder wins 1 and
//! the caller loses 1, otherwise the other way round.
//!
//! Information-set labels are OpenSpiel's information-state strings: the player's own dice,
//! sorted, then the bids so far (`25 1-3 2-1`), so a player does not tell apart two rolls of
//! the same dice in a different order, exactly as in OpenSpiel.

use crate::error::{fail, Error, Result};
use crate::game::rules::confirm_key_state;
use crate::game::{compile, Game, Rules, Turn};
use crate::scalar::{int, rat, Rational};
use std::borrow::Cow;

/// Number of nodes of `liars-dice(dice, sides)`, or `None` if it overflows `u64`.
pub fn num_nodes(dice: u32, sides: u32) -> Option<u64> {
    let rolls = 2 * dice;
    let sides = sides as u64;
    // Chance nodes: one per prefix of the roll sequence.
    let mut chance: u64 = 0;
    let mut prefixes: u64 = 1;
    for _ in 0..rolls {
        chance = chance.checked_add(prefixes)?;
        prefixes = prefixes.checked_mul(sides)?;
    }
    // After each full roll: every increasing bid sequence is a decision node (2^bids) and every
    // non-empty one also ends in a `Liar` terminal.
    let bids = rolls as u64 * sides;
    let per_deal = 1u64
        .checked_shl(u32::try_from(bids + 1).ok()?)?
        .checked_sub(1)?;
    chance.checked_add(prefixes.checked_mul(per_deal)?)
}

/// Builds `liars-dice(dice, sides)`; refuses trees above `max_nodes` before allocating.
pub fn liars_dice(dice: u32, sides: u32, max_nodes: u64) -> Result<Game> {
    let rules = LiarsDice::new(dice, sides)?;
    if num_nodes(dice, sides).is_none() {
        return Err(Error::TooBig {
            what: format!("liars-dice(dice={dice},sides={sides})"),
            size: "more than 1.8e19 nodes".to_string(),
            limit: max_nodes.to_string(),
        });
    }
    compile(&rules, max_nodes)
}

/// Most dice a player rolls.
pub const MAX_DICE: u32 = 4;
/// Most faces of a die.
pub const MAX_SIDES: u32 = 12;

/// The rules of liar's dice (OpenSpiel's `liars_dice`, bidding rule `reset-face`).
#[derive(Clone, Debug)]
pub struct LiarsDice {
    dice: usize,
    sides: usize,
    num_bids: usize,
    /// The class (rank among sorted rolls) of a player's sorted dice packed 4 bits each.
    class_of: Vec<u32>,
    num_classes: usize,
    /// The packed sorted dice of each class (the inverse of `class_of`).
    roll_of_class: Vec<u32>,
    bid_names: Vec<String>,
    roll_names: Vec<String>,
}

impl LiarsDice {
    /// The rules with `dice` dice of `sides` faces per player (1..=4 dice, 2..=12 sides).
    pub fn new(dice: u32, sides: u32) -> Result<Self> {
        if !(1..=MAX_DICE).contains(&dice) || !(2..=MAX_SIDES).contains(&sides) {
            fail!(
                Invalid,
                "liars-dice needs 1..={MAX_DICE} dice and 2..={MAX_SIDES} sides (got \
                 dice={dice}, sides={sides})"
            );
        }
        let (dice, sides) = (dice as usize, sides as usize);
        let num_bids = 2 * dice * sides;
        // Sorted rolls in increasing packed order get classes 0, 1, ..
        let mut class_of = vec![u32::MAX; 1 << (4 * dice)];
        let mut num_classes = 0;
        let mut roll_of_class = Vec::new();
        for packed in 0..class_of.len() {
            let digits: Vec<usize> = (0..dice)
                .map(|i| packed >> (4 * (dice - 1 - i)) & 15)
                .collect();
            let sorted = digits.windows(2).all(|w| w[0] <= w[1]);
            if sorted && digits.iter().all(|&d| (1..=sides).contains(&d)) {
                class_of[packed] = num_classes;
                roll_of_class.push(packed as u32);
                num_classes += 1;
            }
        }
        Ok(LiarsDice {
            dice,
            sides,
            num_bids,
            class_of,
            num_classes: num_classes as usize,
            roll_of_class,
            bid_names: (0..num_bids)
                .map(|b| format!("{}-{}", b / sides + 1, b % sides + 1))
                .collect(),
            roll_names: (1..=sides).map(|f| format!("Roll {f}")).collect(),
        })
    }

    /// Whether information-set keys fit 64 bits: the class of the player's sorted dice above
    /// one bit per bid (true up to 48 bids, e.g. two dice of twelve sides; the larger games
    /// have more than 2^49 histories).
    pub fn keys_fit(&self) -> bool {
        self.num_bids <= 48
    }
}

/// A liar's dice history: the dice rolled so far (player 1's first), the bids made (a set:
/// bids only rise) and whether the last bid was called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LiarsDiceState {
    rolled: [u8; 2 * MAX_DICE as usize],
    num_rolled: u8,
    /// Bid `b` made is bit `b`.
    bids: u128,
    last: u8,
    moves: u8,
    called: bool,
    /// Each player's dice class, once all dice are rolled.
    class: [u32; 2],
}

const NO_BID: u8 = u8::MAX;

impl LiarsDiceState {
    /// The player's dice, sorted.
    fn own(&self, player: usize, dice: usize) -> [u8; MAX_DICE as usize] {
        let mut own = [0u8; MAX_DICE as usize];
        own[..dice].copy_from_slice(&self.rolled[player * dice..(player + 1) * dice]);
        own[..dice].sort_unstable();
        own
    }
}

impl Rules for LiarsDice {
    type State = LiarsDiceState;

    fn name(&self) -> String {
        format!("liars-dice(dice={},sides={})", self.dice, self.sides)
    }
    fn root(&self) -> LiarsDiceState {
        LiarsDiceState {
            rolled: [0; 2 * MAX_DICE as usize],
            num_rolled: 0,
            bids: 0,
            last: NO_BID,
            moves: 0,
            called: false,
            class: [0; 2],
        }
    }
    #[inline]
    fn turn(&self, s: &LiarsDiceState) -> Turn {
        if (s.num_rolled as usize) < 2 * self.dice {
            Turn::Chance
        } else if s.called {
            Turn::Terminal
        } else {
            Turn::Player(s.moves as usize % 2)
        }
    }
    #[inline]
    fn num_actions(&self, s: &LiarsDiceState) -> usize {
        if (s.num_rolled as usize) < 2 * self.dice {
            return self.sides;
        }
        match s.last {
            NO_BID => self.num_bids,
            last => self.num_bids - last as usize,
        }
    }
    #[inline]
    fn apply(&self, s: &mut LiarsDiceState, action: usize) {
        if (s.num_rolled as usize) < 2 * self.dice {
            s.rolled[s.num_rolled as usize] = action as u8 + 1;
            s.num_rolled += 1;
            if s.num_rolled as usize == 2 * self.dice {
                s.class = [0, 1].map(|p| {
                    let own = s.own(p, self.dice);
                    let packed = own[..self.dice].iter().fold(0, |k, &d| k << 4 | d as usize);
                    self.class_of[packed]
                });
            }
            return;
        }
        let first = if s.last == NO_BID {
            0
        } else {
            s.last as usize + 1
        };
        if first + action == self.num_bids {
            s.called = true;
        } else {
            let bid = first + action;
            s.bids |= 1 << bid;
            s.last = bid as u8;
            s.moves += 1;
        }
    }
    fn chance_prob(&self, _: &LiarsDiceState, _: usize) -> f64 {
        1.0 / self.sides as f64
    }
    fn chance_prob_exact(&self, _: &LiarsDiceState, _: usize) -> Rational {
        rat(1, self.sides as i64)
    }
    fn chance_is_uniform(&self, _: &LiarsDiceState) -> bool {
        true
    }
    /// The class of the player's sorted dice above the set of bids made: dense keys.
    #[inline]
    fn infoset_key(&self, s: &LiarsDiceState) -> u64 {
        let class = s.class[s.moves as usize % 2] as u64;
        class.checked_shl(self.num_bids as u32).unwrap_or(0) | s.bids as u64
    }
    /// Replays the key: the player rolls the sorted dice of its class, the opponent all
    /// ones, then the bids of the key's set in rising order.
    fn key_state(&self, player: usize, key: u64) -> Option<LiarsDiceState> {
        if !self.keys_fit() {
            return None;
        }
        let bids = key & ((1u64 << self.num_bids) - 1);
        let class = usize::try_from(key >> self.num_bids).ok()?;
        let &packed = self.roll_of_class.get(class)?;
        if bids.count_ones() as usize % 2 != player {
            return None;
        }
        let mut s = self.root();
        for p in 0..2 {
            for i in 0..self.dice {
                let face = if p == player {
                    packed >> (4 * (self.dice - 1 - i)) & 15
                } else {
                    1
                };
                self.apply(&mut s, face as usize - 1);
            }
        }
        for b in (0..self.num_bids).filter(|b| bids >> b & 1 == 1) {
            let first = if s.last == NO_BID {
                0
            } else {
                s.last as usize + 1
            };
            self.apply(&mut s, b - first);
        }
        confirm_key_state(self, player, key, s)
    }
    /// Dense when the key space is at most 2^28 (two dice of five sides: 15 x 2^20 keys).
    fn dense_keys(&self) -> Option<[usize; 2]> {
        let n = self.num_classes.checked_shl(self.num_bids as u32)?;
        (n <= 1 << 28).then_some([n, n])
    }
    fn payoff0(&self, s: &LiarsDiceState) -> f64 {
        payoff0(self, s) as f64
    }
    fn payoff0_exact(&self, s: &LiarsDiceState) -> Rational {
        int(payoff0(self, s))
    }
    /// OpenSpiel's information-state string: the player's dice sorted, then the bids
    /// (`25 1-3 2-1`).
    fn infoset_label(&self, s: &LiarsDiceState, out: &mut String) {
        use std::fmt::Write;
        out.clear();
        for d in &s.own(s.moves as usize % 2, self.dice)[..self.dice] {
            write!(out, "{d}").expect("writing to a String");
        }
        for b in 0..self.num_bids {
            if s.bids >> b & 1 == 1 {
                out.push(' ');
                out.push_str(&self.bid_names[b]);
            }
        }
    }
    fn action_label(&self, s: &LiarsDiceState, action: usize) -> Cow<'_, str> {
        let first = if s.last == NO_BID {
            0
        } else {
            s.last as usize + 1
        };
        match self.bid_names.get(first + action) {
            Some(name) => Cow::Borrowed(name),
            None => Cow::Borrowed("Liar"),
        }
    }
    fn chance_label(&self, _: &LiarsDiceState, outcome: usize) -> Cow<'_, str> {
        Cow::Borrowed(&self.roll_names[outcome])
    }
    fn num_nodes(&self) -> Option<u64> {
        num_nodes(self.dice as u32, self.sides as u32)
    }
    fn key_problem(&self) -> Option<String> {
        (!self.keys_fit()).then(|| {
            format!(
                "{}: information-set keys fit 64 bits up to 48 bids (4 bits per die plus one \
                 per bid)",
                self.name()
            )
        })
    }
}

/// Player 0's payoff once the last bid is called: the bidder wins 1 if at least `q` dice show
/// face `f` or the highest face (wild), the caller otherwise.
fn payoff0(rules: &LiarsDice, s: &LiarsDiceState) -> i64 {
    if !s.called {
        return 0;
    }
    let bid = s.last as usize;
    let (quantity, face) = (bid / rules.sides + 1, bid % rules.sides + 1);
    let matching = s.rolled[..2 * rules.dice]
        .iter()
        .filter(|&&r| r as usize == face || r as usize == rules.sides)
        .count();
    let caller_wins = if matching >= quantity { -1 } else { 1 };
    // The caller is the player to move when `Liar` was said.
    if s.moves.is_multiple_of(2) {
        caller_wins
    } else {
        -caller_wins
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSpiel 2.0.2 counts (every history incl. chance and terminal nodes; information sets
    /// per player), printed by `scripts/openspiel_game_counts.py`.
    #[test]
    fn counts_match_openspiel() {
        for (dice, sides, nodes, infosets) in [
            (1, 2, 127, 16),
            (1, 3, 1147, 96),
            (1, 4, 8181, 512),
            (2, 2, 8191, 384),
            (1, 6, 294_883, 12_288),
        ] {
            assert_eq!(num_nodes(dice, sides), Some(nodes));
            let g = liars_dice(dice, sides, u64::MAX).unwrap();
            assert_eq!(g.nodes.len() as u64, nodes, "dice={dice} sides={sides}");
            assert_eq!(g.infosets[0].len(), infosets);
            assert_eq!(g.infosets[1].len(), infosets);
        }
        // Counted on the rules, not built: 2 dice of 3 sides, and 1 die of 5 sides.
        for (dice, sides, nodes, infosets) in [(2, 3, 663_511, 12_288), (1, 5, 51_181, 2560)] {
            let rules = LiarsDice::new(dice, sides).unwrap();
            assert_eq!(
                crate::game::rules::count_histories(&rules),
                (nodes, [infosets, infosets])
            );
        }
    }

    /// The builder refuses two dice of five sides and names the solvers that can play it.
    #[test]
    fn refusal_points_to_the_sampling_solvers() {
        let err = liars_dice(2, 5, 20_000_000).unwrap_err().to_string();
        assert!(err.contains("1310719531 nodes"), "{err}");
        assert!(err.contains("--algo es-mccfr"), "{err}");
    }

    #[test]
    fn rules_keep_their_contract() {
        for (dice, sides, nodes, infosets) in [(1, 3, 1147, 96), (2, 2, 8191, 384)] {
            let rules = LiarsDice::new(dice, sides).unwrap();
            assert_eq!(
                crate::game::rules::check_rules(&rules).unwrap(),
                (nodes, [infosets, infosets])
            );
        }
        assert!(LiarsDice::new(2, 5).unwrap().keys_fit());
    }

    #[test]
    fn highest_face_is_wild_and_labels_are_openspiel_strings() {
        let g = liars_dice(1, 3, u64::MAX).unwrap();
        // Player 2 holds a 3 (wild): after P1 bids 2-1 holding a 1, the bid holds, so P2
        // calling loses 1 and P1 (index 0) wins 1.
        let set = g.find_infoset(1, "3 2-1").expect("label");
        let node = g.infosets[1][set].nodes.iter().copied().find(|&n| {
            g.path_labels(n as usize)[..2] == ["Roll 1".to_string(), "Roll 3".to_string()]
        });
        let node = &g.nodes[node.unwrap() as usize];
        let liar = node.children().last().unwrap();
        match g.nodes[liar].kind {
            crate::game::NodeKind::Terminal { terminal } => {
                assert_eq!(g.terminals[terminal as usize].payoff0_f64, 1.0)
            }
            _ => panic!("Liar must end the game"),
        }
        assert!(g.find_infoset(0, "1").is_some());
        assert_eq!(
            g.infosets[0][g.find_infoset(0, "1").unwrap()].actions.len(),
            6
        );
    }

    /// Uniform-policy exploitability from `scripts/openspiel_game_counts.py` (OpenSpiel 2.0.2):
    /// pins payoffs and information structure beyond the counts.
    #[test]
    fn uniform_policy_exploitability_matches_openspiel() {
        use crate::eval::exploitability;
        use crate::strategy::Profile;
        for (dice, sides, expected) in [
            (1, 2, 0.5625),
            (1, 3, 0.5555555555555555),
            (1, 4, 0.6550595238095238),
            (2, 2, 0.8203125),
        ] {
            let g = liars_dice(dice, sides, u64::MAX).unwrap();
            let e = exploitability(&g, &Profile::<f64>::uniform(&g)).exploitability;
            assert!((e - expected).abs() < 1e-12, "{dice}x{sides}: {e}");
        }
    }

    #[test]
    fn refuses_huge_trees_before_building() {
        let err = liars_dice(3, 6, 20_000_000).unwrap_err().to_string();
        assert!(err.contains("above the limit"), "{err}");
        assert_eq!(num_nodes(5, 10), None);
    }
}
