//! One-card poker as a contest task states it (`docs/problems.md`), as a general [`Game`].
//!
//! Chance first picks which player acts first (1/2 each), then the ordered pair of distinct cards
//! (each of the N(N-1) pairs equally likely). Player index 0 (`S`) is the player whose strategy a
//! contest file describes: its 4N information sets are labelled `"<card> <situation>"` exactly as
//! in the file (`"3 open"`, `"3 check"`, `"3 bet"`, `"3 check-bet"`). The opponent (`O`) has the
//! same labels. Payoffs are chips: the dealer's pot A goes to the winner, a losing caller loses B,
//! so the payoffs sum to A at every terminal and the game value is A/2 for each player.
//!
//! This per-pair tree is the reference the vector-form solver in [`crate::problems::one_card_poker`] is
//! checked against; it has about 18 N(N-1) nodes, so it is meant for N up to a few dozen.

use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::{int, Rational};

/// The four situations of one card, in the order a contest file lists them.
pub const SITUATIONS: [&str; 4] = ["open", "check", "bet", "check-bet"];

/// Builds one-card poker with cards 1..=n, dealer pot `ante` and bet size `bet`.
pub fn one_card_poker(n: usize, ante: i64, bet: i64) -> Result<Game, GameError> {
    one_card_poker_raked(n, ante, bet, &crate::games::rake::Rake::default())
}

/// One-card poker whose winner pays `rake` on the final pot (the dealer's pot and both
/// stakes): general-sum unless the rake is zero.
pub fn one_card_poker_raked(
    n: usize,
    ante: i64,
    bet: i64,
    rake: &crate::games::rake::Rake,
) -> Result<Game, GameError> {
    let mut name = format!("one-card-poker(n={n},a={ante},b={bet}");
    if !rake.is_zero() {
        name.push(',');
        name.push_str(&rake.spec_params());
    }
    name.push(')');
    let mut b = GameBuilder::new(name, "S", "O");
    let root = b.root();
    let seats = b.chance_uniform(root, vec!["S first", "O first"])?;
    // Each card's four set labels, made once (not once per deal).
    let labels: Vec<[String; 4]> = (0..=n)
        .map(|card| SITUATIONS.map(|situation| format!("{card} {situation}")))
        .collect();
    for (seat, &seat_node) in seats.iter().enumerate() {
        let mut deal_labels = Vec::with_capacity(n * (n - 1));
        let mut pairs = Vec::with_capacity(n * (n - 1));
        for s_card in 1..=n {
            for o_card in (1..=n).filter(|&c| c != s_card) {
                deal_labels.push(format!("S{s_card} O{o_card}"));
                pairs.push((s_card, o_card));
            }
        }
        let deals = b.chance_uniform(seat_node, deal_labels)?;
        for (&deal, &(s_card, o_card)) in deals.iter().zip(&pairs) {
            // First player P, second Q, as player indices with their cards.
            let (p, pc, q, qc) = if seat == 0 {
                (0, s_card, 1, o_card)
            } else {
                (1, o_card, 0, s_card)
            };
            betting(&mut b, deal, [p, q], [pc, qc], &labels, [ante, bet], rake)?;
        }
    }
    b.build()
}

/// The betting tree below one deal: `players[0]` acts first holding `cards[0]`; `labels[c]`
/// are card `c`'s set labels in [`SITUATIONS`] order.
fn betting(
    b: &mut GameBuilder,
    node: NodeRef,
    players: [usize; 2],
    cards: [usize; 2],
    labels: &[[String; 4]],
    [ante, bet]: [i64; 2],
    rake: &crate::games::rake::Rake,
) -> Result<(), GameError> {
    let [p, q] = players;
    // Chips of player 0 (S) when `winner` (0 = first player, 1 = second) takes a pot in which
    // each player put `stake`, less the rake on the whole pot.
    let chips_s = |winner: usize, stake: i64| -> [Rational; 2] {
        let mut chips = [int(-stake), int(-stake)];
        chips[winner] = int(ante + stake) - rake.of(ante + 2 * stake);
        let s = if p == 0 { 0 } else { 1 };
        [chips[s].clone(), chips[1 - s].clone()]
    };
    let showdown = if cards[0] > cards[1] { 0 } else { 1 };
    let [pc, qc] = cards;
    let open = b.decision(node, p, &labels[pc][0], &["check", "bet"])?;
    let after_check = b.decision(open[0], q, &labels[qc][1], &["check", "bet"])?;
    b.terminal_labelled(after_check[0], chips_s(showdown, 0), "showdown")?;
    let check_bet = b.decision(after_check[1], p, &labels[pc][3], &["fold", "call"])?;
    b.terminal_labelled(check_bet[0], chips_s(1, 0), "first player folds")?;
    b.terminal_labelled(check_bet[1], chips_s(showdown, bet), "showdown after call")?;
    let facing_bet = b.decision(open[1], q, &labels[qc][2], &["fold", "call"])?;
    b.terminal_labelled(facing_bet[0], chips_s(0, 0), "second player folds")?;
    b.terminal_labelled(facing_bet[1], chips_s(showdown, bet), "showdown after call")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::scalar::rat;
    use crate::strategy::ExactProfile;

    #[test]
    fn shape_and_constant_sum() {
        let g = one_card_poker(3, 2, 1).unwrap();
        assert_eq!(g.infosets[0].len(), 12);
        assert_eq!(g.infosets[1].len(), 12);
        assert_eq!(g.constant_sum, int(2));
        // root + 2 seat nodes + 2*6 deals, each with a 9-node betting tree below the deal node
        assert_eq!(g.nodes.len(), 1 + 2 + 12 * 9);
        for label in ["1 open", "2 check", "3 bet", "1 check-bet"] {
            assert!(g.find_infoset(0, label).is_some(), "{label}");
        }
    }

    #[test]
    fn uniform_play_is_fair_by_symmetry() {
        // Both players uniform: the random seat makes the game symmetric, so each expects A/2.
        let g = one_card_poker(4, 3, 2).unwrap();
        let e = exploitability(&g, &ExactProfile::uniform(&g));
        assert_eq!(e.value[0], rat(3, 2));
        assert_eq!(e.value[1], rat(3, 2));
    }
}
