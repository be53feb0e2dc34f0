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

use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::{int, Rational};

/// Card names; rank is `index / 2`.
const CARDS: [&str; 6] = ["Js", "Jh", "Qs", "Qh", "Ks", "Kh"];
const ACTIONS_FACING: [&str; 3] = ["Fold", "Call", "Raise"];
const ACTIONS_FACING_CAPPED: [&str; 2] = ["Fold", "Call"];
const ACTIONS_OPEN: [&str; 2] = ["Call", "Raise"];
const MAX_RAISES: u32 = 2;

fn rank(card: usize) -> usize {
    card / 2
}

/// Builds two-player Leduc poker. Player 1 (index 0) has value about -0.0856064.
pub fn leduc_poker() -> Result<Game, GameError> {
    let mut b = GameBuilder::new("leduc", "P1", "P2");
    let root = b.root();
    let first = b.chance_uniform(root, CARDS.to_vec())?;
    for (c0, &n0) in first.iter().enumerate() {
        let rest: Vec<usize> = (0..6).filter(|&c| c != c0).collect();
        let second = b.chance_uniform(n0, rest.iter().map(|&c| CARDS[c]).collect())?;
        for (k, &n1) in second.iter().enumerate() {
            let deal = Deal {
                cards: [c0, rest[k]],
                public: None,
            };
            let round = Round {
                history: String::new(),
                prefix: String::new(),
                contrib: [1, 1],
                raises: 0,
                raise_size: 2,
                to_act: 0,
            };
            betting(&mut b, n1, &deal, round)?;
        }
    }
    b.build()
}

struct Deal {
    cards: [usize; 2],
    public: Option<usize>,
}

#[derive(Clone)]
struct Round {
    /// This round's actions so far (`c`, `r`).
    history: String,
    /// Earlier rounds and public card, e.g. `rc|Js|` (empty in round 1).
    prefix: String,
    /// Chips each player has put in the pot.
    contrib: [i64; 2],
    raises: u32,
    raise_size: i64,
    to_act: usize,
}

fn betting(b: &mut GameBuilder, node: NodeRef, deal: &Deal, r: Round) -> Result<(), GameError> {
    let p = r.to_act;
    let facing = r.contrib[1 - p] > r.contrib[p];
    let actions: &[&str] = match (facing, r.raises < MAX_RAISES) {
        (true, true) => &ACTIONS_FACING,
        (true, false) => &ACTIONS_FACING_CAPPED,
        (false, _) => &ACTIONS_OPEN,
    };
    let label = format!("{}|{}{}", CARDS[deal.cards[p]], r.prefix, r.history);
    let children = b.decision(node, p, &label, actions)?;
    for (&action, &child) in actions.iter().zip(&children) {
        match action {
            "Fold" => {
                // The folder loses what they put in.
                let loss = r.contrib[p];
                let payoff0 = if p == 0 { -loss } else { loss };
                b.terminal_zero_sum(child, int(payoff0))?;
            }
            "Call" => {
                let mut next = r.clone();
                next.contrib[p] = next.contrib[1 - p];
                next.history.push('c');
                // The round ends when a call answers a raise or the second player checks back.
                if facing || r.history == "c" {
                    end_round(b, child, deal, next)?;
                } else {
                    next.to_act = 1 - p;
                    betting(b, child, deal, next)?;
                }
            }
            _ => {
                let mut next = r.clone();
                next.contrib[p] = next.contrib[1 - p] + r.raise_size;
                next.history.push('r');
                next.raises += 1;
                next.to_act = 1 - p;
                betting(b, child, deal, next)?;
            }
        }
    }
    Ok(())
}

fn end_round(b: &mut GameBuilder, node: NodeRef, deal: &Deal, r: Round) -> Result<(), GameError> {
    match deal.public {
        None => {
            let remaining: Vec<usize> = (0..6).filter(|c| !deal.cards.contains(c)).collect();
            let children = b.chance_uniform(node, remaining.iter().map(|&c| CARDS[c]).collect())?;
            for (&public, &child) in remaining.iter().zip(&children) {
                let next_deal = Deal {
                    cards: deal.cards,
                    public: Some(public),
                };
                let round = Round {
                    history: String::new(),
                    prefix: format!("{}|{}|", r.history, CARDS[public]),
                    contrib: r.contrib,
                    raises: 0,
                    raise_size: 4,
                    to_act: 0,
                };
                betting(b, child, &next_deal, round)?;
            }
            Ok(())
        }
        Some(public) => {
            let stake = r.contrib[0];
            let payoff0: Rational = match showdown(deal.cards, public) {
                std::cmp::Ordering::Greater => int(stake),
                std::cmp::Ordering::Less => int(-stake),
                std::cmp::Ordering::Equal => int(0),
            };
            b.terminal_zero_sum(node, payoff0)
        }
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
    fn has_openspiel_information_state_count() {
        let g = leduc_poker().unwrap();
        // Per player and private card: 3 round-1 states + 5 round-1 endings x 5 public cards x 3.
        assert_eq!(g.infosets[0].len(), 6 * (3 + 5 * 5 * 3));
        assert_eq!(g.infosets[1].len(), 468);
        assert_eq!(g.num_infosets(), 936);
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
