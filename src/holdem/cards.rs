//! Cards, boards and decks.
//!
//! A card is a number `4 * rank + suit` in `0..52`, rank `0` the deuce and `12` the ace, suits in
//! the order clubs, diamonds, hearts, spades (`c`, `d`, `h`, `s`). Card sets are `u64` masks with
//! bit `card` set ([`CardSet`]).

use super::HoldemError;

/// The rank characters, deuce first.
pub const RANK_CHARS: &[u8; 13] = b"23456789TJQKA";
/// The suit characters, clubs first.
pub const SUIT_CHARS: &[u8; 4] = b"cdhs";

/// A card: `4 * rank + suit`, in `0..52`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card(pub u8);

impl Card {
    /// The card of a rank (`0` = deuce ... `12` = ace) and a suit (`0..4`: c, d, h, s).
    pub fn new(rank: u8, suit: u8) -> Card {
        debug_assert!(rank < 13 && suit < 4);
        Card(4 * rank + suit)
    }
    /// Its rank, `0` (deuce) to `12` (ace).
    pub fn rank(self) -> u8 {
        self.0 / 4
    }
    /// Its suit, `0..4` (c, d, h, s).
    pub fn suit(self) -> u8 {
        self.0 % 4
    }
    /// Its bit in a [`CardSet`].
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }
    /// Parses two characters such as `"Qs"` (rank in `23456789TJQKA`, either case; suit in `cdhs`).
    pub fn parse(s: &str) -> Result<Card, HoldemError> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return Err(HoldemError::Card(s.to_string()));
        }
        match (rank_of_char(b[0]), suit_of_char(b[1])) {
            (Some(r), Some(su)) => Ok(Card::new(r, su)),
            _ => Err(HoldemError::Card(s.to_string())),
        }
    }
}

impl std::fmt::Display for Card {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}{}",
            RANK_CHARS[self.rank() as usize] as char,
            SUIT_CHARS[self.suit() as usize] as char
        )
    }
}

/// The rank (`0..13`) a character names (`2`..`9`, `T`, `J`, `Q`, `K`, `A`, either case).
pub fn rank_of_char(c: u8) -> Option<u8> {
    RANK_CHARS
        .iter()
        .position(|&r| r == c.to_ascii_uppercase())
        .map(|r| r as u8)
}

/// The suit (`0..4`) a character names (`c`, `d`, `h`, `s`, either case).
pub fn suit_of_char(c: u8) -> Option<u8> {
    SUIT_CHARS
        .iter()
        .position(|&s| s == c.to_ascii_lowercase())
        .map(|s| s as u8)
}

/// A set of cards: bit `c` set for card `c`.
pub type CardSet = u64;

/// All 52 cards.
pub const FULL_DECK: CardSet = (1u64 << 52) - 1;

/// Parses a run of cards written back to back, such as `"QsJh2h"` (spaces allowed between
/// cards). Repeated cards are refused.
pub fn parse_cards(s: &str) -> Result<Vec<Card>, HoldemError> {
    let compact: Vec<u8> = s.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    if !compact.len().is_multiple_of(2) || compact.len() > 104 {
        return Err(HoldemError::Card(s.to_string()));
    }
    let mut cards = Vec::with_capacity(compact.len() / 2);
    let mut seen: CardSet = 0;
    for pair in compact.chunks(2) {
        let text = String::from_utf8_lossy(pair).into_owned();
        let card = Card::parse(&text)?;
        if seen & card.bit() != 0 {
            return Err(HoldemError::RepeatedCard(card.to_string()));
        }
        seen |= card.bit();
        cards.push(card);
    }
    Ok(cards)
}

/// The cards of a set, lowest first.
pub fn cards_of(set: CardSet) -> Vec<Card> {
    let mut out = Vec::with_capacity(set.count_ones() as usize);
    let mut m = set;
    while m != 0 {
        out.push(Card(m.trailing_zeros() as u8));
        m &= m - 1;
    }
    out
}

/// A reduced deck: the ranks and suits in play (every rank in every suit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deck {
    /// Bit `r` set for each rank in play.
    pub ranks: u16,
    /// Bit `s` set for each suit in play.
    pub suits: u8,
}

impl Default for Deck {
    fn default() -> Self {
        Deck::full()
    }
}

impl Deck {
    /// The standard 52-card deck.
    pub fn full() -> Deck {
        Deck {
            ranks: (1 << 13) - 1,
            suits: 0b1111,
        }
    }
    /// Parses `"RANKS/SUITS"`, such as `"9TJQKA/sh"`: at least one rank and one suit, none
    /// repeated. The hand ranking stays the standard one: a straight is five consecutive ranks,
    /// the wheel (A-2-3-4-5) only when the deck holds all five of its ranks.
    pub fn parse(s: &str) -> Result<Deck, HoldemError> {
        let bad = || HoldemError::Deck(s.to_string());
        let (r, su) = s.split_once('/').ok_or_else(bad)?;
        let (mut ranks, mut suits) = (0u16, 0u8);
        for c in r.trim().bytes() {
            let k = rank_of_char(c).ok_or_else(bad)?;
            if ranks & (1 << k) != 0 {
                return Err(bad());
            }
            ranks |= 1 << k;
        }
        for c in su.trim().bytes() {
            let k = suit_of_char(c).ok_or_else(bad)?;
            if suits & (1 << k) != 0 {
                return Err(bad());
            }
            suits |= 1 << k;
        }
        if ranks == 0 || suits == 0 {
            return Err(bad());
        }
        Ok(Deck { ranks, suits })
    }
    /// The cards of the deck as a set.
    pub fn cards(&self) -> CardSet {
        let mut set = 0;
        for r in 0..13u8 {
            for s in 0..4u8 {
                if self.ranks & (1 << r) != 0 && self.suits & (1 << s) != 0 {
                    set |= Card::new(r, s).bit();
                }
            }
        }
        set
    }
    /// Whether the deck holds a card.
    pub fn contains(&self, c: Card) -> bool {
        self.ranks & (1 << c.rank()) != 0 && self.suits & (1 << c.suit()) != 0
    }
    /// Whether this is the full 52-card deck.
    pub fn is_full(&self) -> bool {
        *self == Deck::full()
    }
}

impl std::fmt::Display for Deck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for r in (0..13).rev() {
            if self.ranks & (1 << r) != 0 {
                write!(f, "{}", RANK_CHARS[r] as char)?;
            }
        }
        write!(f, "/")?;
        for s in 0..4 {
            if self.suits & (1 << s) != 0 {
                write!(f, "{}", SUIT_CHARS[s] as char)?;
            }
        }
        Ok(())
    }
}

/// A board of 3, 4 or 5 distinct cards.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    cards: Vec<Card>,
}

impl Board {
    /// Parses a board such as `"QsJh2h"`: 3 to 5 distinct valid cards, each in `deck`.
    pub fn parse(s: &str, deck: &Deck) -> Result<Board, HoldemError> {
        let cards = parse_cards(s).map_err(|e| match e {
            HoldemError::Card(_) => HoldemError::Board {
                board: s.to_string(),
                reason: "not a run of cards such as QsJh2h".into(),
            },
            HoldemError::RepeatedCard(c) => HoldemError::Board {
                board: s.to_string(),
                reason: format!("{c} appears twice"),
            },
            other => other,
        })?;
        if !(3..=5).contains(&cards.len()) {
            return Err(HoldemError::Board {
                board: s.to_string(),
                reason: format!("{} cards, a board has 3, 4 or 5", cards.len()),
            });
        }
        if let Some(c) = cards.iter().find(|c| !deck.contains(**c)) {
            return Err(HoldemError::Board {
                board: s.to_string(),
                reason: format!("{c} is not in the deck {deck}"),
            });
        }
        Ok(Board { cards })
    }
    /// The cards, in the order given.
    pub fn cards(&self) -> &[Card] {
        &self.cards
    }
    /// The cards as a set.
    pub fn set(&self) -> CardSet {
        self.cards.iter().fold(0, |m, c| m | c.bit())
    }
    /// How many cards (3, 4 or 5).
    pub fn len(&self) -> usize {
        self.cards.len()
    }
    /// Always false: a board has at least 3 cards.
    pub fn is_empty(&self) -> bool {
        self.cards.is_empty()
    }
}

impl std::fmt::Display for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for c in &self.cards {
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cards_parse_and_print() {
        let c = parse_cards("QsJh2h").unwrap();
        assert_eq!(c, vec![Card::new(10, 3), Card::new(9, 2), Card::new(0, 2)]);
        assert_eq!(c[0].to_string(), "Qs");
        assert_eq!(Card::parse("ac").unwrap(), Card::new(12, 0));
        for bad in ["Q", "Qx", "1s", "Qs Q", "QsQs"] {
            assert!(parse_cards(bad).is_err(), "{bad}");
        }
        assert_eq!(
            cards_of(Card(3).bit() | Card(51).bit()),
            vec![Card(3), Card(51)]
        );
    }

    #[test]
    fn boards() {
        let d = Deck::full();
        assert_eq!(Board::parse("QsJh2h", &d).unwrap().len(), 3);
        assert_eq!(
            Board::parse("QsJh2h8d7c", &d).unwrap().to_string(),
            "QsJh2h8d7c"
        );
        for bad in ["QsJh", "QsJh2h8d7c6c", "QsQs2h", "QsJh2x", ""] {
            let e = Board::parse(bad, &d).unwrap_err().to_string();
            assert!(e.contains("board"), "{bad}: {e}");
        }
    }

    #[test]
    fn decks() {
        let d = Deck::parse("9TJQKA/sh").unwrap();
        assert_eq!(d.cards().count_ones(), 12);
        assert_eq!(d.to_string(), "AKQJT9/hs");
        assert!(d.contains(Card::parse("9s").unwrap()));
        assert!(!d.contains(Card::parse("9c").unwrap()));
        assert_eq!(Deck::parse("23456789TJQKA/cdhs").unwrap(), Deck::full());
        assert_eq!(Deck::full().cards(), FULL_DECK);
        for bad in ["9TJ", "/s", "9T/", "99/s", "9T/ss", "9X/s"] {
            assert!(Deck::parse(bad).is_err(), "{bad}");
        }
        assert!(Board::parse("9s9hTs", &d).is_ok());
        assert!(Board::parse("9s9cTs", &d).is_err());
    }
}
