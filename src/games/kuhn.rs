//! Kuhn poker with OpenSpiel's rules: three cards (J, Q, K), ante 1, one bet of 1.
//!
//! Information-set labels are the player's card followed by the public history, e.g. `Qpb` for
//! player 1 holding the queen after pass then bet; actions are `Pass` and `Bet`.

use crate::game::rules::confirm_key_state;
use crate::game::{compile, Game, Rules, Turn};
use crate::scalar::{int, rat, Rational};
use std::borrow::Cow;

const CARDS: [&str; 3] = ["J", "Q", "K"];
const ACTIONS: [&str; 2] = ["Pass", "Bet"];

/// Builds two-player Kuhn poker. Player 1 (index 0) has value -1/18.
pub fn kuhn_poker() -> crate::Result<Game> {
    compile(&Kuhn, u64::MAX)
}

/// The rules of Kuhn poker.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kuhn;

/// A Kuhn history: the cards dealt and the bets (`p` = 0, `b` = 1) in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KuhnState {
    cards: [u8; 2],
    dealt: u8,
    /// Action `i` is bit `i`.
    history: u8,
    moves: u8,
}

impl KuhnState {
    fn bet(&self, i: u8) -> bool {
        self.history >> i & 1 == 1
    }
    /// Player 0's payoff when the game is over, `None` while it goes on.
    fn outcome(&self) -> Option<i64> {
        let showdown = |stake: i64| {
            if self.cards[0] > self.cards[1] {
                stake
            } else {
                -stake
            }
        };
        match (self.moves, self.bet(0), self.bet(1), self.bet(2)) {
            (2, false, false, _) => Some(showdown(1)),
            (2, true, false, _) => Some(1),
            (2, true, true, _) => Some(showdown(2)),
            (3, _, _, false) => Some(-1),
            (3, _, _, true) => Some(showdown(2)),
            _ => None,
        }
    }
}

impl Rules for Kuhn {
    type State = KuhnState;

    fn name(&self) -> String {
        "kuhn".into()
    }
    fn root(&self) -> KuhnState {
        KuhnState {
            cards: [0; 2],
            dealt: 0,
            history: 0,
            moves: 0,
        }
    }
    fn turn(&self, s: &KuhnState) -> Turn {
        if s.dealt < 2 {
            Turn::Chance
        } else if s.outcome().is_some() {
            Turn::Terminal
        } else {
            Turn::Player(s.moves as usize % 2)
        }
    }
    fn num_actions(&self, s: &KuhnState) -> usize {
        if s.dealt < 2 {
            3 - s.dealt as usize
        } else {
            2
        }
    }
    fn apply(&self, s: &mut KuhnState, action: usize) {
        if s.dealt < 2 {
            // The second card is one of the two the first deal left, in card order.
            let card = if s.dealt == 1 && action as u8 >= s.cards[0] {
                action as u8 + 1
            } else {
                action as u8
            };
            s.cards[s.dealt as usize] = card;
            s.dealt += 1;
        } else {
            s.history |= (action as u8) << s.moves;
            s.moves += 1;
        }
    }
    fn chance_prob(&self, s: &KuhnState, _: usize) -> f64 {
        1.0 / (3 - s.dealt) as f64
    }
    fn chance_prob_exact(&self, s: &KuhnState, _: usize) -> Rational {
        rat(1, 3 - s.dealt as i64)
    }
    fn chance_is_uniform(&self, _: &KuhnState) -> bool {
        true
    }
    fn infoset_key(&self, s: &KuhnState) -> u64 {
        let own = s.cards[s.moves as usize % 2] as u64;
        own | (s.moves as u64) << 2 | (s.history as u64) << 4
    }
    fn payoff0(&self, s: &KuhnState) -> f64 {
        s.outcome().unwrap_or(0) as f64
    }
    fn payoff0_exact(&self, s: &KuhnState) -> Rational {
        int(s.outcome().unwrap_or(0))
    }
    /// Replays the key: the player's card (the opponent's the next card up), then the bets.
    fn key_state(&self, player: usize, key: u64) -> Option<KuhnState> {
        let own = (key & 3) as u8;
        let moves = (key >> 2 & 3) as u8;
        let history = key >> 4;
        if own > 2 || moves as usize % 2 != player || history >> moves != 0 {
            return None;
        }
        let mut cards = [0; 2];
        cards[player] = own;
        cards[1 - player] = (own + 1) % 3;
        let mut s = self.root();
        self.apply(&mut s, cards[0] as usize);
        // The second deal counts among the two cards the first left.
        self.apply(&mut s, (cards[1] - u8::from(cards[1] > cards[0])) as usize);
        for i in 0..moves {
            if self.turn(&s) == Turn::Terminal {
                return None;
            }
            self.apply(&mut s, (history >> i & 1) as usize);
        }
        confirm_key_state(self, player, key, s)
    }
    /// The player's card and the bets so far: `Qpb`.
    fn infoset_label(&self, s: &KuhnState, out: &mut String) {
        out.clear();
        out.push_str(CARDS[s.cards[s.moves as usize % 2] as usize]);
        for i in 0..s.moves {
            out.push(if s.bet(i) { 'b' } else { 'p' });
        }
    }
    fn action_label(&self, _: &KuhnState, action: usize) -> Cow<'_, str> {
        Cow::Borrowed(ACTIONS[action])
    }
    fn chance_label(&self, s: &KuhnState, outcome: usize) -> Cow<'_, str> {
        let mut t = *s;
        self.apply(&mut t, outcome);
        Cow::Borrowed(CARDS[t.cards[s.dealt as usize] as usize])
    }
    fn num_nodes(&self) -> Option<u64> {
        Some(58)
    }
}

/// Each player antes 1 and every bet adds 1.
impl super::rake::Pot for Kuhn {
    fn pot(&self, s: &KuhnState) -> i64 {
        2 + (s.history & ((1 << s.moves) - 1)).count_ones() as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{expected_value, exploitability};
    use crate::scalar::{rat, Rational};
    use crate::strategy::ExactProfile;
    use num_traits::Zero;

    /// The known equilibrium family: P1 bets J with alpha in [0, 1/3], K with 3 alpha, calls with
    /// Q at alpha + 1/3; P2 bets J after a pass with 1/3, calls a bet with Q at 1/3.
    fn equilibrium(game: &Game, alpha: &Rational) -> ExactProfile {
        let mut prof = ExactProfile::uniform(game);
        let mut set = |player: usize, label: &str, bet: Rational| {
            let id = game.find_infoset(player, label).unwrap();
            let r = game.infosets[player][id].action_range();
            prof.probs[player][r.start] = rat(1, 1) - bet.clone();
            prof.probs[player][r.start + 1] = bet;
        };
        set(0, "J", alpha.clone());
        set(0, "Q", rat(0, 1));
        set(0, "K", alpha * rat(3, 1));
        set(0, "Jpb", rat(0, 1));
        set(0, "Qpb", alpha + rat(1, 3));
        set(0, "Kpb", rat(1, 1));
        set(1, "Jp", rat(1, 3));
        set(1, "Qp", rat(0, 1));
        set(1, "Kp", rat(1, 1));
        set(1, "Jb", rat(0, 1));
        set(1, "Qb", rat(1, 3));
        set(1, "Kb", rat(1, 1));
        prof
    }

    #[test]
    fn rules_keep_their_contract() {
        assert_eq!(
            crate::game::rules::check_rules(&Kuhn).unwrap(),
            (58, [6, 6])
        );
    }

    #[test]
    fn shape_matches_openspiel() {
        let g = kuhn_poker().unwrap();
        assert_eq!(g.infosets[0].len(), 6);
        assert_eq!(g.infosets[1].len(), 6);
        assert_eq!(g.num_terminal_nodes(), 30);
        assert_eq!(g.nodes.len(), 1 + 3 + 6 * 9); // root, first deals, six 9-node betting trees
    }

    #[test]
    fn equilibrium_family_has_value_minus_one_eighteenth_and_zero_exploitability() {
        let g = kuhn_poker().unwrap();
        for alpha in [rat(0, 1), rat(1, 6), rat(1, 3)] {
            let prof = equilibrium(&g, &alpha);
            assert_eq!(expected_value(&g, &prof), rat(-1, 18));
            let e = exploitability(&g, &prof);
            assert!(
                e.nash_conv.is_zero(),
                "alpha {alpha}: nash conv {}",
                e.nash_conv
            );
            assert_eq!(e.best_response_value[0], rat(-1, 18));
            assert_eq!(e.best_response_value[1], rat(1, 18));
        }
    }

    #[test]
    fn off_family_strategy_is_exploitable() {
        let g = kuhn_poker().unwrap();
        let prof = equilibrium(&g, &rat(1, 2)); // alpha outside [0, 1/3]
        let e = exploitability(&g, &prof);
        assert!(e.exploitability > Rational::zero());
    }

    #[test]
    fn uniform_strategy_values_agree_in_f64_and_exact() {
        let g = kuhn_poker().unwrap();
        let exact = exploitability(&g, &ExactProfile::uniform(&g));
        let float = exploitability(&g, &crate::strategy::Profile::<f64>::uniform(&g));
        assert!(
            (crate::scalar::rational_to_f64(&exact.exploitability) - float.exploitability).abs()
                < 1e-12
        );
        // OpenSpiel reports NashConv 0.916666... (11/12) for the uniform Kuhn policy.
        assert_eq!(exact.nash_conv, rat(11, 12));
    }
}
