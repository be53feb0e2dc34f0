//! Ranges in the syntax solvers share: `AA`, `KQs`, `AJo`, `AK`, `ATs+`, `88+`, `22-55`,
//! `A5s-A2s`, `K9o+`, single combos `AhKh`, each with an optional weight `:0.5`, separated by
//! commas. A range is a weight for each of the 1326 two-card combos.

use super::cards::{rank_of_char, Card, CardSet, RANK_CHARS};
use super::HoldemError;

/// The number of two-card combos.
pub const NUM_COMBOS: usize = 1326;
/// The longest range text accepted, in bytes.
pub const MAX_RANGE_LEN: usize = 65_536;

/// The index in `0..1326` of the combo of two distinct cards.
pub fn combo_index(a: Card, b: Card) -> usize {
    let (lo, hi) = if a < b { (a.0, b.0) } else { (b.0, a.0) };
    hi as usize * (hi as usize - 1) / 2 + lo as usize
}

/// The two cards of a combo index, lower card first.
pub fn combo_cards(index: usize) -> (Card, Card) {
    let mut hi = 1usize;
    while (hi + 1) * hi / 2 <= index {
        hi += 1;
    }
    let lo = index - hi * (hi - 1) / 2;
    (Card(lo as u8), Card(hi as u8))
}

/// A combo of a range: two cards and a weight in `(0, 1]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Combo {
    /// The lower card.
    pub lo: Card,
    /// The higher card.
    pub hi: Card,
    /// The weight.
    pub weight: f64,
}

impl Combo {
    /// The two cards as a set.
    pub fn set(&self) -> CardSet {
        self.lo.bit() | self.hi.bit()
    }
}

/// A weight for each of the 1326 combos (0 for the combos not listed).
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    weights: Vec<f64>,
}

impl Range {
    /// Parses a range such as `"88+,A8s+,A5s-A2s:0.5,AJo+,AhKh"`. Refuses, naming the token: a
    /// token that does not parse, a weight that is not a number in `[0, 1]`, a combo listed
    /// twice (by one token or two).
    pub fn parse(text: &str) -> Result<Range, HoldemError> {
        if text.len() > MAX_RANGE_LEN {
            return Err(HoldemError::Range {
                token: text.chars().take(20).collect::<String>() + "...",
                reason: format!("the range has {} bytes, above {MAX_RANGE_LEN}", text.len()),
            });
        }
        let mut weights = vec![0.0; NUM_COMBOS];
        let mut listed = vec![false; NUM_COMBOS];
        for raw in text.split(',') {
            let token = raw.trim();
            let err = |reason: String| HoldemError::Range {
                token: token.to_string(),
                reason,
            };
            if token.is_empty() {
                if text.trim().is_empty() {
                    break;
                }
                return Err(err("an empty entry (two commas in a row?)".into()));
            }
            let (hand, weight) = match token.split_once(':') {
                Some((h, w)) => {
                    let w: f64 = w
                        .trim()
                        .parse()
                        .map_err(|_| err(format!("weight `{}` is not a number", w.trim())))?;
                    if !(0.0..=1.0).contains(&w) {
                        return Err(err(format!("weight {w} is outside [0, 1]")));
                    }
                    (h.trim(), w)
                }
                None => (token, 1.0),
            };
            let combos = combos_of_token(hand).map_err(err)?;
            for i in combos {
                if listed[i] {
                    let (a, b) = combo_cards(i);
                    return Err(err(format!("combo {b}{a} is listed twice")));
                }
                listed[i] = true;
                weights[i] = weight;
            }
        }
        Ok(Range { weights })
    }

    /// The weight of each combo, by [`combo_index`].
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The combos of positive weight whose cards are all in `deck` and none in `dead`, lowest
    /// index first.
    pub fn combos(&self, dead: CardSet, deck: CardSet) -> Vec<Combo> {
        (0..NUM_COMBOS)
            .filter(|&i| self.weights[i] > 0.0)
            .map(|i| {
                let (lo, hi) = combo_cards(i);
                Combo {
                    lo,
                    hi,
                    weight: self.weights[i],
                }
            })
            .filter(|c| c.set() & dead == 0 && c.set() & !deck == 0)
            .collect()
    }
}

/// Every combo of two ranks, suited (`Some(true)`), offsuit (`Some(false)`) or both.
fn rank_pair(r1: u8, r2: u8, suited: Option<bool>, out: &mut Vec<usize>) {
    for s1 in 0..4 {
        for s2 in 0..4 {
            let (a, b) = (Card::new(r1, s1), Card::new(r2, s2));
            if a == b || (r1 == r2 && s1 > s2) {
                continue;
            }
            if r1 != r2 && suited.is_some_and(|s| s != (s1 == s2)) {
                continue;
            }
            out.push(combo_index(a, b));
        }
    }
}

/// A hand class such as `AKs`, `AKo`, `AK`, `77`: (high rank, low rank, suitedness).
fn class(s: &str) -> Option<(u8, u8, Option<bool>)> {
    let b = s.as_bytes();
    if b.len() < 2 || b.len() > 3 {
        return None;
    }
    let (r1, r2) = (rank_of_char(b[0])?, rank_of_char(b[1])?);
    let suited = match b.get(2).map(|c| c.to_ascii_lowercase()) {
        None => None,
        Some(b's') => Some(true),
        Some(b'o') => Some(false),
        _ => return None,
    };
    if r1 == r2 && suited.is_some() {
        return None;
    }
    Some((r1.max(r2), r1.min(r2), suited))
}

/// The combos a token (without weight) names, or why it names none.
fn combos_of_token(hand: &str) -> Result<Vec<usize>, String> {
    let mut out = Vec::new();
    let b = hand.as_bytes();
    // A single combo: four characters, two cards.
    // `split_at_checked` so that a multi-byte character across the middle is not a panic.
    if let (4, Some((x, y))) = (b.len(), hand.split_at_checked(2)) {
        if let (false, Ok(a), Ok(c)) = (hand.contains(['+', '-']), Card::parse(x), Card::parse(y)) {
            if a == c {
                return Err(format!("{a} twice in one combo"));
            }
            return Ok(vec![combo_index(a, c)]);
        }
    }
    let name = |r: u8| RANK_CHARS[r as usize] as char;
    if let Some(base) = hand.strip_suffix('+') {
        let (hi, lo, suited) = class(base)
            .ok_or_else(|| format!("`{base}` is not a hand class such as AKs, AJo or 88"))?;
        if hi == lo {
            for r in lo..13 {
                rank_pair(r, r, None, &mut out);
            }
        } else {
            for k in lo..hi {
                rank_pair(hi, k, suited, &mut out);
            }
        }
        return Ok(out);
    }
    if let Some((x, y)) = hand.split_once('-') {
        let bad = || format!("`{hand}` is not a span such as 22-55 or A5s-A2s");
        let (h1, l1, s1) = class(x.trim()).ok_or_else(bad)?;
        let (h2, l2, s2) = class(y.trim()).ok_or_else(bad)?;
        if h1 == l1 && h2 == l2 {
            for r in l1.min(l2)..=l1.max(l2) {
                rank_pair(r, r, None, &mut out);
            }
            return Ok(out);
        }
        if h1 != h2 || s1 != s2 || h1 == l1 || h2 == l2 {
            return Err(format!(
                "a span joins two pairs or two hands with the same top card and suitedness, as {}5s-{}2s",
                name(h1),
                name(h1)
            ));
        }
        for k in l1.min(l2)..=l1.max(l2) {
            rank_pair(h1, k, s1, &mut out);
        }
        return Ok(out);
    }
    let (hi, lo, suited) = class(hand)
        .ok_or_else(|| "not a hand (AA, KQs, AJo, ATs+, 22-55, A5s-A2s, AhKh)".to_string())?;
    rank_pair(hi, lo, suited, &mut out);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::holdem::cards::{parse_cards, FULL_DECK};

    fn count(text: &str) -> usize {
        Range::parse(text).unwrap().combos(0, FULL_DECK).len()
    }

    #[test]
    fn combo_indices_round_trip() {
        let mut seen = vec![false; NUM_COMBOS];
        for a in 0..52u8 {
            for b in a + 1..52 {
                let i = combo_index(Card(b), Card(a));
                assert_eq!(combo_cards(i), (Card(a), Card(b)));
                assert!(!seen[i]);
                seen[i] = true;
            }
        }
    }

    #[test]
    fn combo_counts() {
        assert_eq!(count("AA"), 6);
        assert_eq!(count("KQs"), 4);
        assert_eq!(count("AJo"), 12);
        assert_eq!(count("AK"), 16);
        assert_eq!(count("ATs+"), 16); // ATs AJs AQs AKs
        assert_eq!(count("22-55"), 24);
        assert_eq!(count("55-22"), 24);
        assert_eq!(count("88+"), 42);
        assert_eq!(count("A5s-A2s"), 16);
        assert_eq!(count("K9o+"), 48); // K9o KTo KJo KQo
        assert_eq!(count("AhKh"), 1);
        assert_eq!(count("AA,KK:0.5, AhKh"), 13);
        assert_eq!(count("AA:0"), 0);
        assert_eq!(count(""), 0);
        // All hands: 1326 combos.
        assert_eq!(
            count("22+,A2+,K2+,Q2+,J2+,T2+,92+,82+,72+,62+,52+,42+,32"),
            1326
        );
        let r = Range::parse("KQs:0.25").unwrap();
        let kh_qh = combo_index(Card::parse("Kh").unwrap(), Card::parse("Qh").unwrap());
        assert_eq!(r.weights()[kh_qh], 0.25);
    }

    #[test]
    fn board_cards_are_removed() {
        let board = parse_cards("QsJh2h")
            .unwrap()
            .iter()
            .fold(0, |m, c| m | c.bit());
        let r = Range::parse("QQ,AhKh,JTs").unwrap();
        // QQ keeps 3 combos, AhKh survives, JTs loses JhTh.
        assert_eq!(r.combos(board, FULL_DECK).len(), 3 + 1 + 3);
    }

    #[test]
    fn bad_tokens_are_named() {
        for (text, token) in [
            ("AA,KX", "KX"),
            ("AA,KK:1.5", "KK:1.5"),
            ("AA,KK:-0.1", "KK:-0.1"),
            ("AA,KK:x", "KK:x"),
            ("AA,AhAd", "AhAd"),
            ("88+,AA", "AA"),
            ("AKs,AhKh", "AhKh"),
            ("AA,,KK", ""),
            ("AKs-KQs", "AKs-KQs"),
            ("AAs", "AAs"),
            ("AhAh", "AhAh"),
            // Multi-byte characters where a card or class boundary would fall (found by fuzzing).
            ("AA,K\u{1d6}*", "K\u{1d6}*"),
            ("\u{1d6}Kh", "\u{1d6}Kh"),
            ("Ah\u{1d6}", "Ah\u{1d6}"),
            ("A\u{e9}+", "A\u{e9}+"),
            ("A\u{e9}-A2s", "A\u{e9}-A2s"),
        ] {
            match Range::parse(text) {
                Err(HoldemError::Range { token: t, .. }) => assert_eq!(t, token, "{text}"),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
