//! The hand evaluator: the strength of the best five-card hand among 5, 6 or 7 cards, as an
//! integer where higher wins, and the hand class.
//!
//! A [`Strength`] is `class << 26 | major << 13 | minor`: the class (0 = high card ... 8 =
//! straight flush), then the ranks that decide within the class. Ranks enter as 13-bit masks
//! (bit `r` for rank `r`), so that two masks with as many bits compare like the sorted rank
//! lists they stand for; a straight enters as the index of its top card (the wheel lowest).
//!
//! The evaluator works on per-suit rank masks ([`SuitMasks`], 16 bits a suit), which an
//! enumeration can keep up to date card by card; [`evaluate`] takes a [`CardSet`].

use super::cards::{Card, CardSet};

/// The class of a hand, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HandClass {
    /// No pair.
    HighCard = 0,
    /// One pair.
    Pair = 1,
    /// Two pair.
    TwoPair = 2,
    /// Three of a kind.
    Trips = 3,
    /// Five consecutive ranks.
    Straight = 4,
    /// Five cards of a suit.
    Flush = 5,
    /// Three of a kind and a pair.
    FullHouse = 6,
    /// Four of a kind.
    Quads = 7,
    /// A straight in one suit.
    StraightFlush = 8,
}

impl HandClass {
    /// All classes, weakest first.
    pub const ALL: [HandClass; 9] = [
        HandClass::HighCard,
        HandClass::Pair,
        HandClass::TwoPair,
        HandClass::Trips,
        HandClass::Straight,
        HandClass::Flush,
        HandClass::FullHouse,
        HandClass::Quads,
        HandClass::StraightFlush,
    ];
}

/// A hand's strength: higher wins, equal ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Strength(pub u32);

impl Strength {
    /// The hand's class.
    pub fn class(self) -> HandClass {
        HandClass::ALL[(self.0 >> 26) as usize]
    }
}

/// Per-suit rank masks: bits `16 * suit + rank`.
pub type SuitMasks = u64;

/// The suit masks of a card.
#[inline]
pub fn suit_bit(c: Card) -> SuitMasks {
    1u64 << (16 * c.suit() as u32 + c.rank() as u32)
}

/// The suit masks of a set of cards.
pub fn suit_masks(set: CardSet) -> SuitMasks {
    let mut m = set;
    let mut out = 0;
    while m != 0 {
        out |= suit_bit(Card(m.trailing_zeros() as u8));
        m &= m - 1;
    }
    out
}

/// The strength of the best five cards among the 5 to 7 cards of `set`.
pub fn evaluate(set: CardSet) -> Strength {
    debug_assert!((5..=7).contains(&set.count_ones()));
    evaluate_masks(suit_masks(set))
}

/// The strength of the best five cards among 5 to 7 cards given as cards.
pub fn evaluate_cards(cards: &[Card]) -> Strength {
    evaluate(cards.iter().fold(0, |m, c| m | c.bit()))
}

/// The index of the top card of the best straight in a rank mask (0 = the wheel, 9 = broadway).
#[inline]
fn straight(ranks: u32) -> Option<u32> {
    // Shift up by one so that the ace can also sit below the deuce.
    let m = (ranks << 1) | ((ranks >> 12) & 1);
    let s = m & (m >> 1) & (m >> 2) & (m >> 3) & (m >> 4);
    if s == 0 {
        None
    } else {
        Some(31 - s.leading_zeros())
    }
}

/// The `n` highest bits of a mask.
#[inline]
fn top(mut m: u32, n: u32) -> u32 {
    while m.count_ones() > n {
        m &= m - 1;
    }
    m
}

#[inline]
fn make(class: HandClass, major: u32, minor: u32) -> Strength {
    Strength((class as u32) << 26 | major << 13 | minor)
}

/// The strength of the best five cards among 5 to 7 cards given as suit masks.
#[inline]
pub fn evaluate_masks(m: SuitMasks) -> Strength {
    let s = [
        (m & 0x1fff) as u32,
        ((m >> 16) & 0x1fff) as u32,
        ((m >> 32) & 0x1fff) as u32,
        ((m >> 48) & 0x1fff) as u32,
    ];
    // With at most 7 cards a flush rules out quads and full houses, so it decides at once.
    for &su in &s {
        if su.count_ones() >= 5 {
            return match straight(su) {
                Some(h) => make(HandClass::StraightFlush, h, 0),
                None => make(HandClass::Flush, top(su, 5), 0),
            };
        }
    }
    let all = s[0] | s[1] | s[2] | s[3];
    let quads = s[0] & s[1] & s[2] & s[3];
    if quads != 0 {
        return make(HandClass::Quads, quads, top(all & !quads, 1));
    }
    let trips =
        (s[0] & s[1] & s[2]) | (s[0] & s[1] & s[3]) | (s[0] & s[2] & s[3]) | (s[1] & s[2] & s[3]);
    let pairs = (s[0] & s[1])
        | (s[0] & s[2])
        | (s[0] & s[3])
        | (s[1] & s[2])
        | (s[1] & s[3])
        | (s[2] & s[3]);
    if trips != 0 {
        let t = top(trips, 1);
        let rest = pairs & !t;
        if rest != 0 {
            return make(HandClass::FullHouse, t, top(rest, 1));
        }
    }
    if let Some(h) = straight(all) {
        return make(HandClass::Straight, h, 0);
    }
    if trips != 0 {
        return make(HandClass::Trips, trips, top(all & !trips, 2));
    }
    match pairs.count_ones() {
        0 => make(HandClass::HighCard, top(all, 5), 0),
        1 => make(HandClass::Pair, pairs, top(all & !pairs, 3)),
        _ => {
            let two = top(pairs, 2);
            make(HandClass::TwoPair, two, top(all & !two, 1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holdem::cards::parse_cards;

    fn ev(s: &str) -> Strength {
        evaluate_cards(&parse_cards(s).unwrap())
    }

    #[test]
    fn classes_and_order() {
        assert_eq!(ev("AsKsQsJsTs2c3d").class(), HandClass::StraightFlush);
        assert_eq!(ev("As2s3s4s5s").class(), HandClass::StraightFlush);
        assert!(ev("As2s3s4s5s") < ev("2s3s4s5s6s"));
        assert_eq!(ev("Ad2c3h4s5s").class(), HandClass::Straight);
        assert!(ev("Ad2c3h4s5s") < ev("6d2c3h4s5s"));
        assert_eq!(ev("KdAcQhJsTs").class(), HandClass::Straight);
        assert_eq!(ev("KdAc2h3s4s").class(), HandClass::HighCard);
        assert_eq!(ev("AhAdAcKsKh2c2d").class(), HandClass::FullHouse);
        assert!(ev("AhAdAcKsKh") > ev("KhKdKcAsAh"));
        assert!(ev("2h2d2c3s3h") > ev("AsKsQsJs9s"));
        assert_eq!(ev("7h7d7c7s2h3h4h").class(), HandClass::Quads);
        assert!(ev("9h9d8c8s7h7d2c") < ev("9h9d8c8s7h7dTc"));
        assert_eq!(ev("9h9d8c8s7h7d2c").class(), HandClass::TwoPair);
        // Kickers: AAKQJ beats AAKQT; a board that plays ties.
        assert!(ev("AhAdKcQsJh") > ev("AhAdKcQsTh"));
        assert_eq!(ev("AhKd9c7s5h2c3d"), ev("AhKd9c7s5h2d3c"));
    }
}
