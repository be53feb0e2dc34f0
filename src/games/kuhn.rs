//! Kuhn poker with OpenSpiel's rules: three cards (J, Q, K), ante 1, one bet of 1.
//!
//! Information-set labels are the player's card followed by the public history, e.g. `Qpb` for
//! player 1 holding the queen after pass then bet; actions are `Pass` and `Bet`.

use crate::game::{Game, GameBuilder, GameError};
use crate::scalar::{int, Rational};

const CARDS: [&str; 3] = ["J", "Q", "K"];

/// Builds two-player Kuhn poker. Player 1 (index 0) has value -1/18.
pub fn kuhn_poker() -> Result<Game, GameError> {
    let mut b = GameBuilder::new("kuhn", "P1", "P2");
    let root = b.root();
    let first = b.chance_uniform(root, CARDS.to_vec())?;
    for (c0, &n0) in first.iter().enumerate() {
        let rest: Vec<usize> = (0..3).filter(|&c| c != c0).collect();
        let second = b.chance_uniform(n0, rest.iter().map(|&c| CARDS[c]).collect())?;
        for (k, &n1) in second.iter().enumerate() {
            let c1 = rest[k];
            // Showdown payoff for player 0 when the pot holds `stake` from each player.
            let showdown = |stake: i64| -> Rational { int(if c0 > c1 { stake } else { -stake }) };
            let actions = ["Pass", "Bet"];
            let open = b.decision(n1, 0, CARDS[c0], &actions)?;
            // Pass
            let after_p = b.decision(open[0], 1, &format!("{}p", CARDS[c1]), &actions)?;
            b.terminal_zero_sum(after_p[0], showdown(1))?;
            let after_pb = b.decision(after_p[1], 0, &format!("{}pb", CARDS[c0]), &actions)?;
            b.terminal_zero_sum(after_pb[0], int(-1))?;
            b.terminal_zero_sum(after_pb[1], showdown(2))?;
            // Bet
            let after_b = b.decision(open[1], 1, &format!("{}b", CARDS[c1]), &actions)?;
            b.terminal_zero_sum(after_b[0], int(1))?;
            b.terminal_zero_sum(after_b[1], showdown(2))?;
        }
    }
    b.build()
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
