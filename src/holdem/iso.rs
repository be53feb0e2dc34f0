//! Suit isomorphism of the deals.
//!
//! A permutation of the four suits that maps the deck, the spot's board and both ranges (each
//! combo to a combo of the same weight) onto themselves maps the game onto itself. Below a
//! chance node whose board it also fixes, it maps the subtree of one card's deal onto the
//! subtree of another's, hand `h` onto hand `σ(h)`: the two deals are equivalent, and the
//! engine walks one of them (the lowest card of each class) and gives the other its values
//! with the hands permuted.

use super::cards::{cards_of, Card, CardSet};
use super::showdown::Hand;
use std::collections::HashMap;

/// A permutation of the suits: suit `s` goes to `perm[s]`.
pub type SuitPerm = [u8; 4];

/// The image of a card.
pub fn map_card(perm: &SuitPerm, c: Card) -> Card {
    Card((c.0 & !3) | perm[(c.0 & 3) as usize])
}

/// The image of a set of cards.
pub fn map_set(perm: &SuitPerm, set: CardSet) -> CardSet {
    cards_of(set)
        .into_iter()
        .fold(0, |m, c| m | map_card(perm, c).bit())
}

/// The suit permutations (the identity left out) that map the deck, the board and both
/// players' weighted hands onto themselves, with the permutation of each player's hands each
/// one induces.
#[derive(Clone, Debug, Default)]
pub struct Symmetries {
    /// The permutations.
    pub perms: Vec<SuitPerm>,
    /// `hand_maps[k][p][i]`: the index of the image of player `p`'s hand `i` under
    /// `perms[k]`.
    pub hand_maps: Vec<[Vec<u32>; 2]>,
}

impl Symmetries {
    /// Every symmetry of the deck, the board and the weighted hands.
    pub fn of(
        deck: CardSet,
        board: CardSet,
        hands: &[Vec<Hand>; 2],
        weights: &[Vec<f64>; 2],
    ) -> Symmetries {
        let key = |a: Card, b: Card| if a.0 < b.0 { (a.0, b.0) } else { (b.0, a.0) };
        let index: [HashMap<(u8, u8), u32>; 2] = [0, 1].map(|p| {
            hands[p]
                .iter()
                .enumerate()
                .map(|(i, h)| (key(h.0, h.1), i as u32))
                .collect()
        });
        let mut out = Symmetries::default();
        for perm in all_perms() {
            if perm == [0, 1, 2, 3]
                || map_set(&perm, deck) != deck
                || map_set(&perm, board) != board
            {
                continue;
            }
            let maps = [0, 1].map(|p| {
                let mut map = Vec::with_capacity(hands[p].len());
                for (i, h) in hands[p].iter().enumerate() {
                    let image = key(map_card(&perm, h.0), map_card(&perm, h.1));
                    match index[p].get(&image) {
                        Some(&j) if weights[p][j as usize] == weights[p][i] => map.push(j),
                        _ => return None,
                    }
                }
                Some(map)
            });
            if let [Some(a), Some(b)] = maps {
                out.perms.push(perm);
                out.hand_maps.push([a, b]);
            }
        }
        out
    }

    /// The deals below a chance node on `board`, in card order: for each card of `left`, the
    /// class it belongs to (the index of its lowest card among the classes) and the symmetry
    /// that maps the lowest card's deal onto it (0: the card is the lowest; `k`: `perms[k - 1]`).
    /// Returns the lowest cards of the classes too.
    pub fn classes(&self, board: CardSet, left: &[Card]) -> (Vec<Card>, Vec<(u32, u32)>) {
        let fixing: Vec<usize> = (0..self.perms.len())
            .filter(|&k| map_set(&self.perms[k], board) == board)
            .collect();
        let mut class: [Option<(u32, u32)>; 64] = [None; 64];
        let mut reps = Vec::new();
        for &c in left {
            if class[c.0 as usize].is_some() {
                continue;
            }
            let i = reps.len() as u32;
            reps.push(c);
            class[c.0 as usize] = Some((i, 0));
            for &k in &fixing {
                let d = map_card(&self.perms[k], c);
                if class[d.0 as usize].is_none() {
                    class[d.0 as usize] = Some((i, k as u32 + 1));
                }
            }
        }
        let deals = left
            .iter()
            .map(|c| class[c.0 as usize].expect("every card is in a class"))
            .collect();
        (reps, deals)
    }
}

/// The 24 permutations of four suits.
fn all_perms() -> Vec<SuitPerm> {
    let mut out = Vec::with_capacity(24);
    for a in 0..4u8 {
        for b in 0..4u8 {
            for c in 0..4u8 {
                for d in 0..4u8 {
                    let p = [a, b, c, d];
                    let mut seen = 0u8;
                    for x in p {
                        seen |= 1 << x;
                    }
                    if seen == 0b1111 {
                        out.push(p);
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holdem::cards::{parse_cards, FULL_DECK};

    fn set(s: &str) -> CardSet {
        parse_cards(s).unwrap().iter().fold(0, |m, c| m | c.bit())
    }

    #[test]
    fn the_flop_qs_jh_2h_swaps_clubs_and_diamonds_only() {
        let hands: [Vec<Hand>; 2] = [Vec::new(), Vec::new()];
        let weights: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        let s = Symmetries::of(FULL_DECK, set("QsJh2h"), &hands, &weights);
        assert_eq!(s.perms.len(), 1);
        let left = cards_of(FULL_DECK & !set("QsJh2h"));
        let (reps, deals) = s.classes(set("QsJh2h"), &left);
        // 13 club-diamond pairs, 12 spades, 11 hearts.
        assert_eq!(reps.len(), 13 + 12 + 11);
        assert_eq!(deals.len(), 49);
        // A club turn breaks the symmetry for the river.
        let b = set("QsJh2h8c");
        let (reps, _) = s.classes(b, &cards_of(FULL_DECK & !b));
        assert_eq!(reps.len(), 48);
        // The turn QsJh2h8d of issue 40 has none.
        let t = Symmetries::of(FULL_DECK, set("QsJh2h8d"), &hands, &weights);
        assert!(t.perms.is_empty());
    }
}
