//! Big Leduc hold'em exactly as the DDCFR paper solves it: PokerRL's `BigLeduc`
//! (github.com/rpSebastian/DDCFR, `PokerRL/PokerRL/game/games.py` and
//! `PokerRL/PokerRL/game/_/rl_env/game_rules.py`, `BigLeducRules`): Leduc's rules on a deck of
//! 12 ranks in 2 suits, with up to 6 raises per round.
//!
//! Each player antes 1 and gets one private card; a betting round; one public card; a second
//! betting round; showdown. Player 1 acts first in both rounds. A raise puts in 2 more than
//! the opponent in round 1 and 4 more in round 2 (PokerRL's fixed limit: the raiser's total in
//! the round becomes `(raises + 1) * bet`); a player may fold only when facing a raise, and
//! "Call" also means check. A round ends when a call answers a raise or both have checked. At
//! showdown a card pairing the public card wins, else the higher rank, equal ranks split. The
//! stacks (100) never bind: at most 1 + 6 * 2 + 6 * 4 = 37 chips go in.
//!
//! [`leduc_family`] builds any deck size and raise cap: 3 ranks with 2 raises is OpenSpiel's
//! Leduc (same tree and payoffs as [`super::leduc`], which the tests check), so the builder is
//! checked against an independent implementation before it is scaled up. Labels are
//! `card|round-1 history` and `card|round-1 history|public card|round-2 history` over `c`
//! and `r`, cards named as PokerRL does (rank 2, 3, .., suit a, b: `7b`).

use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::int;
use std::cmp::Ordering;

/// Ranks of Big Leduc's deck.
pub const RANKS: usize = 12;
/// Raises allowed per betting round in Big Leduc.
pub const MAX_RAISES: u32 = 6;

const ACTIONS_FACING: [&str; 3] = ["Fold", "Call", "Raise"];
const ACTIONS_FACING_CAPPED: [&str; 2] = ["Fold", "Call"];
const ACTIONS_OPEN: [&str; 2] = ["Call", "Raise"];
const ACTIONS_OPEN_CAPPED: [&str; 1] = ["Call"];

/// Big Leduc: 24 cards, 6 raises per round; 6 178 561 nodes, 50 400 information sets each.
pub fn big_leduc() -> Result<Game, GameError> {
    leduc_family(RANKS, MAX_RAISES)
}

/// Nodes of [`leduc_family`]`(ranks, max_raises)`, in closed form: per round `2 + 2R`
/// decisions, `2R` folds and `1 + 2R` ends (after `cc` or a call), each round-1 end a chance
/// node over the `2 ranks - 2` public cards.
pub fn num_nodes(ranks: usize, max_raises: u32) -> u64 {
    let (deck, r) = (2 * ranks as u64, max_raises as u64);
    let round = (2 + 2 * r) + 2 * r + (1 + 2 * r);
    let first = (2 + 2 * r) + 2 * r + (1 + 2 * r) * (1 + (deck - 2) * round);
    1 + deck + deck * (deck - 1) * first
}

/// A card's name: rank (2, 3, ..) then suit (a, b).
fn card_name(card: usize) -> String {
    format!("{}{}", card / 2 + 2, ['a', 'b'][card % 2])
}

/// A betting node still to be filled in.
struct Betting {
    node: NodeRef,
    cards: [usize; 2],
    public: Option<usize>,
    /// This round's actions so far (`c`, `r`).
    history: String,
    /// Earlier round and public card, e.g. `rc|7b|` (empty in round 1).
    prefix: String,
    /// Chips each player has put in.
    contrib: [i64; 2],
    raises: u32,
}

/// Leduc's rules on `ranks` ranks in 2 suits with at most `max_raises` raises per round.
pub fn leduc_family(ranks: usize, max_raises: u32) -> Result<Game, GameError> {
    let deck = 2 * ranks;
    let mut b = GameBuilder::new(format!("leduc-{ranks}x2-{max_raises}"), "P1", "P2");
    let root = b.root();
    let names: Vec<String> = (0..deck).map(card_name).collect();
    let first = b.chance_uniform(root, names.clone())?;
    let mut stack = Vec::new();
    for (c0, &n0) in first.iter().enumerate() {
        let rest: Vec<usize> = (0..deck).filter(|&c| c != c0).collect();
        let second = b.chance_uniform(n0, rest.iter().map(|&c| names[c].clone()).collect())?;
        for (&c1, &n1) in rest.iter().zip(&second) {
            stack.push(Betting {
                node: n1,
                cards: [c0, c1],
                public: None,
                history: String::new(),
                prefix: String::new(),
                contrib: [1, 1],
                raises: 0,
            });
        }
    }
    // Explicit stack: no recursion on the game's depth.
    while let Some(s) = stack.pop() {
        // Player 1 opens each round; turns alternate.
        let p = s.history.len() % 2;
        let facing = s.contrib[1 - p] > s.contrib[p];
        let can_raise = s.raises < max_raises;
        let actions: &[&str] = match (facing, can_raise) {
            (true, true) => &ACTIONS_FACING,
            (true, false) => &ACTIONS_FACING_CAPPED,
            (false, true) => &ACTIONS_OPEN,
            (false, false) => &ACTIONS_OPEN_CAPPED,
        };
        let label = format!("{}|{}{}", names[s.cards[p]], s.prefix, s.history);
        let children = b.decision(s.node, p, &label, actions)?;
        let bet = if s.public.is_none() { 2 } else { 4 };
        for (&action, &child) in actions.iter().zip(&children) {
            let mut next = Betting {
                node: child,
                cards: s.cards,
                public: s.public,
                history: s.history.clone(),
                prefix: s.prefix.clone(),
                contrib: s.contrib,
                raises: s.raises,
            };
            match action {
                "Fold" => {
                    let loss = s.contrib[p];
                    b.terminal_zero_sum(child, int(if p == 0 { -loss } else { loss }))?;
                }
                "Call" => {
                    next.contrib[p] = next.contrib[1 - p];
                    next.history.push('c');
                    if facing || s.history == "c" {
                        end_round(&mut b, next, &names, &mut stack)?;
                    } else {
                        stack.push(next);
                    }
                }
                _ => {
                    next.contrib[p] = next.contrib[1 - p] + bet;
                    next.history.push('r');
                    next.raises += 1;
                    stack.push(next);
                }
            }
        }
    }
    b.build()
}

/// The end of a betting round at `s.node`: the public card's chance node after round 1, the
/// showdown after round 2.
fn end_round(
    b: &mut GameBuilder,
    s: Betting,
    names: &[String],
    stack: &mut Vec<Betting>,
) -> Result<(), GameError> {
    match s.public {
        None => {
            let rest: Vec<usize> = (0..names.len()).filter(|c| !s.cards.contains(c)).collect();
            let children =
                b.chance_uniform(s.node, rest.iter().map(|&c| names[c].clone()).collect())?;
            for (&public, &child) in rest.iter().zip(&children) {
                stack.push(Betting {
                    node: child,
                    cards: s.cards,
                    public: Some(public),
                    history: String::new(),
                    prefix: format!("{}|{}|", s.history, names[public]),
                    contrib: s.contrib,
                    raises: 0,
                });
            }
            Ok(())
        }
        Some(public) => {
            let stake = s.contrib[0];
            let payoff0 = match showdown(s.cards, public) {
                Ordering::Greater => stake,
                Ordering::Less => -stake,
                Ordering::Equal => 0,
            };
            b.terminal_zero_sum(s.node, int(payoff0))
        }
    }
}

/// Compares player 1's hand with player 2's: a pair with the public card wins, then rank
/// (PokerRL's `get_hand_rank`: 10000 + rank for a pair, else the rank).
fn showdown(cards: [usize; 2], public: usize) -> Ordering {
    let strength = |c: usize| (c / 2 == public / 2, c / 2);
    strength(cards[0]).cmp(&strength(cards[1]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::strategy::Profile;

    /// With Leduc's deck and raise cap the builder gives OpenSpiel's Leduc: the built-in
    /// `leduc` (checked against OpenSpiel) has the same nodes, sets and uniform exploitability.
    #[test]
    fn three_ranks_and_two_raises_are_leduc() {
        let ours = leduc_family(3, 2).unwrap();
        let leduc = crate::games::leduc::leduc_poker().unwrap();
        assert_eq!(ours.nodes.len(), leduc.nodes.len());
        assert_eq!(ours.nodes.len() as u64, num_nodes(3, 2));
        assert_eq!(ours.infosets[0].len(), leduc.infosets[0].len());
        assert_eq!(ours.infosets[1].len(), leduc.infosets[1].len());
        let uniform = |g: &Game| exploitability(g, &Profile::<f64>::uniform(g)).exploitability;
        assert!((uniform(&ours) - 2.373611111111111).abs() < 1e-12);
        assert!((uniform(&ours) - uniform(&leduc)).abs() < 1e-12);
    }

    /// Counts in closed form for other decks and caps: per player, 1 + R sets in each round
    /// (opening, and one per raise count facing) times the cards, times `1 + 2R` round-1
    /// endings and `2 ranks - 1` public cards in round 2.
    #[test]
    fn counts_follow_the_closed_form() {
        for (ranks, raises) in [(2, 1), (4, 3), (5, 6)] {
            let g = leduc_family(ranks, raises).unwrap();
            assert_eq!(g.nodes.len() as u64, num_nodes(ranks, raises));
            let (deck, per_round) = (2 * ranks, 1 + raises as usize);
            let sets = deck * per_round + deck * (1 + 2 * raises as usize) * (deck - 1) * per_round;
            assert_eq!([g.infosets[0].len(), g.infosets[1].len()], [sets, sets]);
        }
        assert_eq!(num_nodes(RANKS, MAX_RAISES), 6_178_561);
    }

    #[test]
    fn showdown_ranks_pairs_above_high_cards() {
        // 2a pairs with 2b on the board and beats a king (rank 13); no pair: higher rank.
        assert_eq!(showdown([0, 22], 1), Ordering::Greater);
        assert_eq!(showdown([22, 2], 0), Ordering::Greater);
        assert_eq!(showdown([2, 3], 0), Ordering::Equal);
    }
}
