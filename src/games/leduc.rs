//! Leduc poker with OpenSpiel's rules: six cards (J, Q, K in two suits), ante 1 each, one
//! private card each, a betting round, one public card, a second betting round. Raises are 2 in
//! round 1 and 4 in round 2, at most 2 raises per round; a pair with the public card beats any
//! high card, otherwise the higher rank wins and equal ranks split the pot.
//!
//! As in OpenSpiel, fold is only offered when facing a raise and "Call" also means check.
//! Information-set labels are `card|round-1 history` and, in round 2,
//! `card|round-1 history|public card|round-2 history`, with histories over `c` (call/check) and
//! `r` (raise): e.g. `Qs|cr` or `Kh|rc|Js|r`. Cards keep their suit (`s`, `h`), so each player
//! has 468 information sets, 936 in total, as in OpenSpiel.

use crate::game::rules::confirm_key_state;
use crate::game::{compile, Game, Rules, Turn};
use crate::scalar::{int, rat, Rational};
use std::borrow::Cow;

/// Card names; rank is `index / 2`.
const CARDS: [&str; 6] = ["Js", "Jh", "Qs", "Qh", "Ks", "Kh"];
const FOLD: u8 = 0;
const CALL: u8 = 1;
const RAISE: u8 = 2;
const ACTION_NAMES: [&str; 3] = ["Fold", "Call", "Raise"];
const MAX_RAISES: u8 = 2;
const NONE: u8 = u8::MAX;

fn rank(card: usize) -> usize {
    card / 2
}

/// Builds two-player Leduc poker. Player 1 (index 0) has value about -0.0856064.
pub fn leduc_poker() -> crate::Result<Game> {
    compile(&Leduc, u64::MAX)
}

/// The rules of Leduc poker.
#[derive(Clone, Copy, Debug, Default)]
pub struct Leduc;

/// A Leduc history: the deal, each round's actions (`c` = 0, `r` = 1 bits) and the pot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeducState {
    /// Private cards (`NONE` until dealt) and the public card.
    cards: [u8; 2],
    public: u8,
    /// Per round: action `i` (call/check or raise) is bit `i`; `len` actions so far.
    history: [u8; 2],
    len: [u8; 2],
    /// Chips each player has put in the pot.
    contrib: [u8; 2],
    raises: u8,
    to_act: u8,
    /// 0 or 1 (the betting round); 2 once the second round is over.
    round: u8,
    /// The player who folded, or `NONE`.
    folded: u8,
}

impl LeducState {
    fn facing(&self) -> bool {
        let p = self.to_act as usize;
        self.contrib[1 - p] > self.contrib[p]
    }
    /// The actions at a decision: Fold only when facing a raise, Raise below the cap.
    fn actions(&self) -> &'static [u8] {
        match (self.facing(), self.raises < MAX_RAISES) {
            (true, true) => &[FOLD, CALL, RAISE],
            (true, false) => &[FOLD, CALL],
            (false, _) => &[CALL, RAISE],
        }
    }
    /// Whether the public card is to be dealt.
    fn dealing_public(&self) -> bool {
        self.round == 1 && self.public == NONE
    }
    fn push_history(&self, round: usize, out: &mut String) {
        for i in 0..self.len[round] {
            out.push(if self.history[round] >> i & 1 == 1 {
                'r'
            } else {
                'c'
            });
        }
    }
    /// The cards not dealt yet, in card order.
    fn undealt(&self) -> impl Iterator<Item = u8> + '_ {
        (0..6u8).filter(move |c| !self.cards.contains(c) && *c != self.public)
    }
}

impl Rules for Leduc {
    type State = LeducState;

    fn name(&self) -> String {
        "leduc".into()
    }
    fn root(&self) -> LeducState {
        LeducState {
            cards: [NONE; 2],
            public: NONE,
            history: [0; 2],
            len: [0; 2],
            contrib: [1, 1],
            raises: 0,
            to_act: 0,
            round: 0,
            folded: NONE,
        }
    }
    fn turn(&self, s: &LeducState) -> Turn {
        if s.cards[1] == NONE || s.dealing_public() {
            Turn::Chance
        } else if s.folded != NONE || s.round == 2 {
            Turn::Terminal
        } else {
            Turn::Player(s.to_act as usize)
        }
    }
    fn num_actions(&self, s: &LeducState) -> usize {
        match self.turn(s) {
            Turn::Chance => s.undealt().count(),
            _ => s.actions().len(),
        }
    }
    fn apply(&self, s: &mut LeducState, action: usize) {
        if s.cards[1] == NONE || s.dealing_public() {
            let card = s.undealt().nth(action).expect("an undealt card");
            match s.cards.iter().position(|&c| c == NONE) {
                Some(i) => s.cards[i] = card,
                None => s.public = card,
            }
            return;
        }
        let p = s.to_act as usize;
        let r = s.round as usize;
        match s.actions()[action] {
            FOLD => s.folded = p as u8,
            CALL => {
                // The round ends when a call answers a raise or the second player checks back.
                let ends = s.facing() || s.len[r] == 1;
                s.contrib[p] = s.contrib[1 - p];
                s.len[r] += 1;
                if ends {
                    s.round += 1;
                    s.raises = 0;
                    s.to_act = 0;
                } else {
                    s.to_act = 1 - p as u8;
                }
            }
            _ => {
                let size = if r == 0 { 2 } else { 4 };
                s.contrib[p] = s.contrib[1 - p] + size;
                s.history[r] |= 1 << s.len[r];
                s.len[r] += 1;
                s.raises += 1;
                s.to_act = 1 - p as u8;
            }
        }
    }
    fn chance_prob(&self, s: &LeducState, _: usize) -> f64 {
        1.0 / s.undealt().count() as f64
    }
    fn chance_prob_exact(&self, s: &LeducState, _: usize) -> Rational {
        rat(1, s.undealt().count() as i64)
    }
    fn chance_is_uniform(&self, _: &LeducState) -> bool {
        true
    }
    /// Replays the key: the player's card (the opponent's the first other card the public
    /// card leaves), the first round's bets, then the public card and the second round's.
    fn key_state(&self, player: usize, key: u64) -> Option<LeducState> {
        let own = (key & 7) as u8;
        let round2 = key >> 12;
        let public = match round2 {
            0 => None,
            r => Some(u8::try_from((r & 7) - 1).ok()?),
        };
        if own >= 6 || public.is_some_and(|c| c >= 6 || c == own) {
            return None;
        }
        let other = (0..6u8).find(|&c| c != own && Some(c) != public)?;
        let mut cards = [other; 2];
        cards[player] = own;
        let mut s = self.root();
        let deal = |s: &mut LeducState, card: u8| -> Option<()> {
            let i = s.undealt().position(|c| c == card)?;
            self.apply(s, i);
            Some(())
        };
        deal(&mut s, cards[0])?;
        deal(&mut s, cards[1])?;
        let bets = |s: &mut LeducState, len: u64, history: u64| -> Option<()> {
            for i in 0..len {
                if self.turn(s) == Turn::Terminal || s.dealing_public() {
                    return None;
                }
                let want = if history >> i & 1 == 1 { RAISE } else { CALL };
                let a = s.actions().iter().position(|&x| x == want)?;
                self.apply(s, a);
            }
            Some(())
        };
        bets(&mut s, key >> 3 & 7, key >> 6 & 63)?;
        if let Some(card) = public {
            if !s.dealing_public() {
                return None;
            }
            deal(&mut s, card)?;
            bets(&mut s, round2 >> 3 & 7, round2 >> 6 & 63)?;
        }
        confirm_key_state(self, player, key, s)
    }
    fn infoset_key(&self, s: &LeducState) -> u64 {
        let own = s.cards[s.to_act as usize] as u64;
        let round2 = if s.round == 1 {
            (1 + s.public as u64) | (s.len[1] as u64) << 3 | (s.history[1] as u64) << 6
        } else {
            0
        };
        own | (s.len[0] as u64) << 3 | (s.history[0] as u64) << 6 | round2 << 12
    }
    fn payoff0(&self, s: &LeducState) -> f64 {
        payoff0(s) as f64
    }
    fn payoff0_exact(&self, s: &LeducState) -> Rational {
        int(payoff0(s))
    }
    /// `card|round-1 history` and, in round 2, `card|round-1 history|public card|round-2
    /// history`: `Qs|cr`, `Kh|rc|Js|r`.
    fn infoset_label(&self, s: &LeducState, out: &mut String) {
        out.clear();
        out.push_str(CARDS[s.cards[s.to_act as usize] as usize]);
        out.push('|');
        s.push_history(0, out);
        if s.round == 1 {
            out.push('|');
            out.push_str(CARDS[s.public as usize]);
            out.push('|');
            s.push_history(1, out);
        }
    }
    fn action_label(&self, s: &LeducState, action: usize) -> Cow<'_, str> {
        Cow::Borrowed(ACTION_NAMES[s.actions()[action] as usize])
    }
    fn chance_label(&self, s: &LeducState, outcome: usize) -> Cow<'_, str> {
        Cow::Borrowed(CARDS[s.undealt().nth(outcome).expect("an undealt card") as usize])
    }
    fn num_nodes(&self) -> Option<u64> {
        Some(9457)
    }
}

/// Both players' chips in the pot.
impl super::rake::Pot for Leduc {
    fn pot(&self, s: &LeducState) -> i64 {
        s.contrib[0] as i64 + s.contrib[1] as i64
    }
}

/// Player 0's payoff at a terminal state: the folder loses what they put in; at a showdown
/// the better hand wins the other's stake.
fn payoff0(s: &LeducState) -> i64 {
    if s.folded != NONE {
        let loss = s.contrib[s.folded as usize] as i64;
        return if s.folded == 0 { -loss } else { loss };
    }
    if s.round < 2 {
        return 0;
    }
    let stake = s.contrib[0] as i64;
    match showdown(
        [s.cards[0] as usize, s.cards[1] as usize],
        s.public as usize,
    ) {
        std::cmp::Ordering::Greater => stake,
        std::cmp::Ordering::Less => -stake,
        std::cmp::Ordering::Equal => 0,
    }
}

/// Compares player 0's hand with player 1's: a pair with the public card wins, then rank.
fn showdown(cards: [usize; 2], public: usize) -> std::cmp::Ordering {
    let strength = |c: usize| (rank(c) == rank(public), rank(c));
    strength(cards[0]).cmp(&strength(cards[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::strategy::Profile;

    #[test]
    fn rules_keep_their_contract() {
        assert_eq!(
            crate::game::rules::check_rules(&Leduc).unwrap(),
            (9457, [468, 468])
        );
    }

    #[test]
    fn has_openspiel_information_state_count() {
        let g = leduc_poker().unwrap();
        // Per player and private card: 3 round-1 states + 5 round-1 endings x 5 public cards x 3.
        assert_eq!(g.infosets[0].len(), 6 * (3 + 5 * 5 * 3));
        assert_eq!(g.infosets[1].len(), 468);
        assert_eq!(g.num_infosets(), 936);
        // OpenSpiel 2.0.2: 9457 histories (scripts/openspiel_game_counts.py).
        assert_eq!(g.nodes.len(), 9457);
    }

    #[test]
    fn showdown_ranks_pairs_above_high_cards() {
        use std::cmp::Ordering::*;
        // Js pairs with Jh on the board and beats a king.
        assert_eq!(showdown([0, 4], 1), Greater);
        assert_eq!(showdown([4, 0], 1), Less);
        // No pair: king beats queen; same rank splits.
        assert_eq!(showdown([4, 2], 0), Greater);
        assert_eq!(showdown([2, 3], 0), Equal);
    }

    #[test]
    fn uniform_policy_matches_openspiel_nash_conv() {
        // OpenSpiel 2.0.2 (pyspiel) gives 2.373611111111111 for
        // `exploitability.exploitability(leduc_poker, policy.UniformRandomPolicy(game))`.
        let g = leduc_poker().unwrap();
        let e = exploitability(&g, &Profile::<f64>::uniform(&g));
        assert!(
            (e.exploitability - 2.373611111111111).abs() < 1e-9,
            "{}",
            e.exploitability
        );
    }
}
