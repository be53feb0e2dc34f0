//! The spot file: a heads-up no-limit hold'em spot in TOML.
//!
//! ```toml
//! board = "QsJh2h"
//! oop_range = "88+,A8s+,AJo+"
//! ip_range = "99-22,AJs-A2s"
//! pot = 180
//! stack = 910
//! flop_bet = "52%"
//! flop_raise = "45%"
//! turn_bet = "55%"
//! turn_raise = "45%"
//! river_bet = "70%"
//! river_raise = "45%"
//! ```
//!
//! Keys: `board`, `oop_range`, `ip_range`, `pot`, `stack` (required); the size lists of each
//! street the spot plays, `STREET_bet` and `STREET_raise` (required unless both players'
//! overrides `oop_STREET_bet` and `ip_STREET_bet` are given; refused for streets the spot does
//! not play); `turn_donk`, `river_donk` (OOP's lead sizes after calling the street before);
//! `rake`, `rake_cap`, `add_allin`, `force_allin`, `merge` (thresholds as postflop-solver's
//! `TreeConfig` documents them) and `deck`. Unknown keys are refused.
//!
//! A size list is comma-separated: `N%` (of the pot; for a raise, of the pot after calling),
//! `Nx` (raise lists only: a raise to N times the previous bet), `e` (the geometric size that
//! puts the stacks in over the remaining streets), `a` (all-in). An empty list offers no size.

use super::cards::{Board, CardSet, Deck};
use super::range::{Combo, Range};
use super::HoldemError;

/// The largest spot file accepted, in bytes.
pub const MAX_SPOT_BYTES: usize = 1 << 20;
/// The most sizes one list may hold.
pub const MAX_SIZES: usize = 16;
/// The largest pot or stack, in chips.
pub const MAX_CHIPS: i64 = 1 << 31;

/// A street.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Street {
    /// Three board cards.
    Flop = 0,
    /// Four board cards.
    Turn = 1,
    /// Five board cards.
    River = 2,
}

impl Street {
    /// The three streets in order.
    pub const ALL: [Street; 3] = [Street::Flop, Street::Turn, Street::River];
    /// Its name as used in keys and node paths.
    pub fn name(self) -> &'static str {
        ["flop", "turn", "river"][self as usize]
    }
    /// The street after this one.
    pub fn next(self) -> Option<Street> {
        match self {
            Street::Flop => Some(Street::Turn),
            Street::Turn => Some(Street::River),
            Street::River => None,
        }
    }
}

/// One entry of a size list.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Size {
    /// A fraction of the pot (`52%` is 0.52): a bet of round(f x pot); a raise by round(f x the
    /// pot after calling).
    Pot(f64),
    /// A raise to this many times the previous bet (`2.5x`).
    Times(f64),
    /// The geometric size to all-in over the remaining streets (`e`).
    Geometric,
    /// All-in (`a`).
    AllIn,
}

/// A player's bet and raise sizes on one street.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StreetSizes {
    /// Sizes of a first bet on the street.
    pub bet: Vec<Size>,
    /// Sizes of a raise.
    pub raise: Vec<Size>,
}

/// A spot: board, ranges, pot, stacks, bet sizes and rake.
#[derive(Clone, Debug, PartialEq)]
pub struct Spot {
    /// The board (3 to 5 cards).
    pub board: Board,
    /// The deck the board and hands come from.
    pub deck: Deck,
    /// The players' ranges as written, OOP first.
    pub ranges: [Range; 2],
    /// Each player's combos once the board and the cards outside the deck are removed.
    pub combos: [Vec<Combo>; 2],
    /// Chips in the pot at the start.
    pub pot: i64,
    /// Chips behind each player at the start.
    pub stack: i64,
    /// Sizes by street and player (`sizes[street][player]`, OOP = 0); empty for streets the
    /// spot does not play.
    pub sizes: [[StreetSizes; 2]; 3],
    /// OOP's lead sizes on the turn and river after calling the street before (`None`: the
    /// ordinary bet sizes).
    pub donk: [Option<Vec<Size>>; 3],
    /// The rake as a fraction of the final pot.
    pub rake: f64,
    /// The most rake taken, in chips.
    pub rake_cap: f64,
    /// Add an all-in when the stack is at most this fraction of the pot (0: never).
    pub add_allin: f64,
    /// Turn a size into all-in when the stack-to-pot ratio after the call would be at most
    /// this (0: never).
    pub force_allin: f64,
    /// Merge sizes closer than this, as PioSOLVER does (0: never).
    pub merge: f64,
}

const KEYS: [&str; 5] = ["board", "oop_range", "ip_range", "pot", "stack"];
const OPTIONAL: [&str; 8] = [
    "turn_donk",
    "river_donk",
    "rake",
    "rake_cap",
    "add_allin",
    "force_allin",
    "merge",
    "deck",
];

fn spot_err(key: &str, reason: impl Into<String>) -> HoldemError {
    HoldemError::Spot {
        key: key.to_string(),
        reason: reason.into(),
    }
}

/// The size keys: (key, street, player or none for both, raise).
fn size_keys() -> Vec<(String, Street, Option<usize>, bool)> {
    let mut out = Vec::new();
    for st in Street::ALL {
        for raise in [false, true] {
            let kind = if raise { "raise" } else { "bet" };
            out.push((format!("{}_{kind}", st.name()), st, None, raise));
            for (p, who) in ["oop", "ip"].iter().enumerate() {
                out.push((format!("{who}_{}_{kind}", st.name()), st, Some(p), raise));
            }
        }
    }
    out
}

/// Shortens a token for a message.
fn shown(s: &str) -> String {
    if s.chars().count() > 40 {
        s.chars().take(40).collect::<String>() + "..."
    } else {
        s.to_string()
    }
}

/// A TOML value in a message: its type, and the value itself when short.
fn describe(v: &toml::Value) -> String {
    match v {
        toml::Value::Integer(i) => format!("the integer {i}"),
        toml::Value::Float(x) => format!("the float {x}"),
        toml::Value::Boolean(b) => format!("the boolean {b}"),
        toml::Value::String(s) => format!("the string \"{}\"", shown(s)),
        other => format!("a {}", other.type_str()),
    }
}

/// Parses a size list such as `"33%, 75%, a"`; `raise` allows `Nx`. `key` names it in errors.
pub fn parse_sizes(key: &str, text: &str, raise: bool) -> Result<Vec<Size>, HoldemError> {
    let mut out = Vec::new();
    if text.trim().is_empty() {
        return Ok(out);
    }
    for (k, raw) in text.split(',').enumerate() {
        if k == MAX_SIZES {
            return Err(spot_err(key, format!("more than {MAX_SIZES} sizes")));
        }
        let tok = raw.trim();
        let bad = |why: &str| spot_err(key, format!("size `{}`: {why}", shown(tok)));
        let number = |s: &str| -> Result<f64, HoldemError> {
            let v: f64 = s.trim().parse().map_err(|_| bad("not a number"))?;
            if !v.is_finite() || v <= 0.0 {
                return Err(bad("must be a positive number"));
            }
            Ok(v)
        };
        let size = match tok.to_ascii_lowercase().as_str() {
            "" => return Err(bad("an empty size (two commas in a row?)")),
            "a" => Size::AllIn,
            "e" => Size::Geometric,
            t if t.ends_with('%') => Size::Pot(number(&t[..t.len() - 1])? / 100.0),
            t if t.ends_with('x') => {
                if !raise {
                    return Err(bad("`Nx` sizes a raise; a bet list takes N%, e or a"));
                }
                let v = number(&t[..t.len() - 1])?;
                if v <= 1.0 {
                    return Err(bad("a raise to N times the bet needs N above 1"));
                }
                Size::Times(v)
            }
            _ => return Err(bad("expected N%, Nx (raises), e or a")),
        };
        if !out.contains(&size) {
            out.push(size);
        }
    }
    Ok(out)
}

impl Spot {
    /// Reads a spot from the text of a TOML file. Every refusal names the key and the token.
    pub fn parse(text: &str) -> Result<Spot, HoldemError> {
        if text.len() > MAX_SPOT_BYTES {
            return Err(HoldemError::Toml(format!(
                "{} bytes, above the limit of {MAX_SPOT_BYTES}",
                text.len()
            )));
        }
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| HoldemError::Toml(e.message().to_string()))?;
        let size_keys = size_keys();
        for key in table.keys() {
            let known = KEYS.contains(&key.as_str())
                || OPTIONAL.contains(&key.as_str())
                || size_keys.iter().any(|(k, ..)| k == key);
            if !known {
                return Err(spot_err(key, "unknown key"));
            }
        }
        let string = |key: &str| -> Result<Option<&str>, HoldemError> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::String(s)) => Ok(Some(s.as_str())),
                Some(v) => Err(spot_err(
                    key,
                    format!("expected a string, found {}", describe(v)),
                )),
            }
        };
        let required = |key: &str| -> Result<&str, HoldemError> {
            string(key)?.ok_or_else(|| spot_err(key, "missing"))
        };
        let number = |key: &str| -> Result<Option<f64>, HoldemError> {
            match table.get(key) {
                None => Ok(None),
                Some(toml::Value::Float(x)) if x.is_finite() => Ok(Some(*x)),
                Some(toml::Value::Integer(i)) => Ok(Some(*i as f64)),
                Some(v) => Err(spot_err(
                    key,
                    format!("expected a number, found {}", describe(v)),
                )),
            }
        };
        let chips = |key: &str| -> Result<i64, HoldemError> {
            match table.get(key) {
                None => Err(spot_err(key, "missing")),
                Some(toml::Value::Integer(i)) if *i > 0 && *i <= MAX_CHIPS => Ok(*i),
                Some(toml::Value::Integer(i)) => Err(spot_err(
                    key,
                    format!("{i} chips: must be positive and at most 2^31"),
                )),
                Some(v) => Err(spot_err(
                    key,
                    format!("expected a whole number of chips, found {}", describe(v)),
                )),
            }
        };
        let deck = match string("deck")? {
            Some(d) => Deck::parse(d).map_err(|e| spot_err("deck", e.to_string()))?,
            None => Deck::full(),
        };
        let board = Board::parse(required("board")?, &deck)
            .map_err(|e| spot_err("board", e.to_string()))?;
        let first = Street::ALL[board.len() - 3];
        let pot = chips("pot")?;
        let stack = chips("stack")?;

        let mut sizes: [[StreetSizes; 2]; 3] = Default::default();
        for st in Street::ALL {
            let played = st >= first;
            for raise in [false, true] {
                let kind = if raise { "raise" } else { "bet" };
                let general_key = format!("{}_{kind}", st.name());
                let general = string(&general_key)?;
                for (p, who) in ["oop", "ip"].iter().enumerate() {
                    let key = format!("{who}_{}_{kind}", st.name());
                    let own = string(&key)?;
                    if !played {
                        for (k, v) in [(&general_key, general), (&key, own)] {
                            if v.is_some() {
                                return Err(spot_err(
                                    k,
                                    format!(
                                        "the spot starts on the {} and plays no {}",
                                        first.name(),
                                        st.name()
                                    ),
                                ));
                            }
                        }
                        continue;
                    }
                    let (k, text) = match (own, general) {
                        (Some(t), _) => (&key, t),
                        (None, Some(t)) => (&general_key, t),
                        (None, None) => {
                            return Err(spot_err(
                                &general_key,
                                "missing (the spot plays this street)",
                            ))
                        }
                    };
                    let list = parse_sizes(k, text, raise)?;
                    if raise {
                        sizes[st as usize][p].raise = list;
                    } else {
                        sizes[st as usize][p].bet = list;
                    }
                }
            }
        }
        let mut donk: [Option<Vec<Size>>; 3] = Default::default();
        for st in [Street::Turn, Street::River] {
            let key = format!("{}_donk", st.name());
            if let Some(text) = string(&key)? {
                if st <= first {
                    return Err(spot_err(
                        &key,
                        format!("the spot starts on the {}: OOP leads there only after calling the street before", first.name()),
                    ));
                }
                donk[st as usize] = Some(parse_sizes(&key, text, false)?);
            }
        }
        let fraction = |key: &str, upper: Option<f64>| -> Result<f64, HoldemError> {
            let v = number(key)?.unwrap_or(0.0);
            if v < 0.0 || upper.is_some_and(|u| v > u) {
                let range = if upper.is_some() {
                    "in [0, 1]"
                } else {
                    "non-negative"
                };
                return Err(spot_err(key, format!("{v}: must be {range}")));
            }
            Ok(v)
        };
        let rake = fraction("rake", Some(1.0))?;
        let rake_cap = fraction("rake_cap", None)?;
        let add_allin = fraction("add_allin", None)?;
        let force_allin = fraction("force_allin", None)?;
        let merge = fraction("merge", None)?;

        let dead: CardSet = board.set();
        let mut ranges = Vec::with_capacity(2);
        let mut combos = Vec::with_capacity(2);
        for key in ["oop_range", "ip_range"] {
            let text = required(key)?;
            let range = Range::parse(text).map_err(|e| spot_err(key, e.to_string()))?;
            let list = range.combos(dead, deck.cards());
            if list.is_empty() {
                return Err(spot_err(
                    key,
                    HoldemError::EmptyRange(shown(text)).to_string(),
                ));
            }
            ranges.push(range);
            combos.push(list);
        }
        let ip_combos = combos.pop().unwrap_or_default();
        let oop_combos = combos.pop().unwrap_or_default();
        let ip_range = ranges.pop().unwrap_or_else(|| unreachable!());
        let oop_range = ranges.pop().unwrap_or_else(|| unreachable!());
        Ok(Spot {
            board,
            deck,
            ranges: [oop_range, ip_range],
            combos: [oop_combos, ip_combos],
            pot,
            stack,
            sizes,
            donk,
            rake,
            rake_cap,
            add_allin,
            force_allin,
            merge,
        })
    }

    /// The street the spot starts on.
    pub fn first_street(&self) -> Street {
        Street::ALL[self.board.len() - 3]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FLOP: &str = r#"
board = "QsJh2h"
oop_range = "88+,A8s+"
ip_range = "99-22,AJs-A2s"
pot = 180
stack = 910
flop_bet = "52%"
flop_raise = "45%"
turn_bet = "55%"
turn_raise = "45%"
river_bet = "70%"
river_raise = "45%, 2.5x, e, a"
"#;

    fn key_of(text: &str) -> String {
        match Spot::parse(text) {
            Err(HoldemError::Spot { key, .. }) => key,
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn reads_a_flop_spot() {
        let s = Spot::parse(FLOP).unwrap();
        assert_eq!(s.first_street(), Street::Flop);
        assert_eq!(s.pot, 180);
        assert_eq!(s.sizes[0][0].bet, vec![Size::Pot(0.52)]);
        assert_eq!(
            s.sizes[2][1].raise,
            vec![
                Size::Pot(0.45),
                Size::Times(2.5),
                Size::Geometric,
                Size::AllIn
            ]
        );
        // 88+ is 42 combos, QQ and JJ lose 3 each to the Qs and the Jh: 36; A8s+ is 24
        // combos, AQs loses AsQs and AJs loses AhJh: 22.
        assert_eq!(s.combos[0].len(), 36 + 22);
    }

    #[test]
    fn overrides_and_refusals() {
        let t = FLOP.replace(
            "flop_bet = \"52%\"",
            "oop_flop_bet = \"33%\"\nip_flop_bet = \"a\"",
        );
        let s = Spot::parse(&t).unwrap();
        assert_eq!(s.sizes[0][1].bet, vec![Size::AllIn]);
        // Only one override: the general key is missing.
        let t = FLOP.replace("flop_bet = \"52%\"", "oop_flop_bet = \"33%\"");
        assert_eq!(key_of(&t), "flop_bet");
        assert_eq!(
            key_of(&FLOP.replace("flop_bet = \"52%\"", "flop_bet = \"2x\"")),
            "flop_bet"
        );
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "\"0%\"")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "\"-5%\"")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "\"abc\"")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "52")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("pot = 180", "pot = 0")), "pot");
        assert_eq!(
            key_of(&FLOP.replace("pot = 180", "pot = 2147483649")),
            "pot"
        );
        assert_eq!(key_of(&FLOP.replace("pot = 180", "pot = 180.5")), "pot");
        assert_eq!(key_of(&FLOP.replace("stack = 910", "")), "stack");
        assert_eq!(key_of(&format!("{FLOP}\nrake = 1.5")), "rake");
        assert_eq!(key_of(&format!("{FLOP}\nrake_cap = -1")), "rake_cap");
        assert_eq!(key_of(&format!("{FLOP}\nmerge = -0.1")), "merge");
        assert_eq!(
            key_of(&format!("{FLOP}\nforce_allin = \"x\"")),
            "force_allin"
        );
        assert_eq!(key_of(&format!("{FLOP}\nbet_size = \"1\"")), "bet_size");
        assert_eq!(key_of(&FLOP.replace("QsJh2h", "QsJh2h8d")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("QsJh2h", "QsQs2h")), "board");
        assert_eq!(key_of(&FLOP.replace("88+,A8s+", "QsQh")), "oop_range");
        assert_eq!(key_of(&FLOP.replace("88+,A8s+", "88+,AA")), "oop_range");
        assert_eq!(key_of(&FLOP.replace("88+,A8s+", "88+:2")), "oop_range");
        // 10^6 sizes: the file is over the size limit; 2 x 10^5: the list is over its limit.
        let huge = vec!["1%"; 1_000_000].join(",");
        let e = Spot::parse(&FLOP.replace("\"52%\"", &format!("\"{huge}\""))).unwrap_err();
        assert!(matches!(e, HoldemError::Toml(_)), "{e}");
        let long = vec!["1%"; 200_000].join(",");
        assert_eq!(
            key_of(&FLOP.replace("\"52%\"", &format!("\"{long}\""))),
            "flop_bet"
        );
        assert!(Spot::parse(&format!("{FLOP}\nturn_donk = \"33%\"\nriver_donk = \"e\"")).is_ok());
        let turn = FLOP
            .replace("QsJh2h", "QsJh2h8d")
            .replace("flop_bet = \"52%\"", "")
            .replace("flop_raise = \"45%\"", "");
        assert!(Spot::parse(&turn).is_ok());
        assert_eq!(key_of(&format!("{turn}\nturn_donk = \"33%\"")), "turn_donk");
        assert!(matches!(Spot::parse("board = "), Err(HoldemError::Toml(_))));
    }

    #[test]
    fn hostile_files_are_refused() {
        let deep = format!("a = {}1{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(Spot::parse(&deep).is_err());
        let deep_table = format!(
            "{}\nx = 1",
            (0..5_000).map(|i| format!("[t{i}]")).collect::<String>()
        );
        assert!(Spot::parse(&deep_table).is_err());
        assert_eq!(key_of(&format!("{FLOP}\n[flop]\nbet = 1")), "flop");
        assert_eq!(key_of(&FLOP.replace("pot = 180", "pot = [180]")), "pot");
        assert_eq!(
            key_of(&FLOP.replace("stack = 910", "stack = true")),
            "stack"
        );
        assert_eq!(key_of(&FLOP.replace("\"QsJh2h\"", "3")), "board");
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "\"1e309%\"")), "flop_bet");
        assert_eq!(key_of(&FLOP.replace("\"52%\"", "\"nan%\"")), "flop_bet");
        assert_eq!(key_of(&format!("{FLOP}\nrake = nan")), "rake");
        // A size of 10^300 % is all-in, not an overflow.
        let big = Spot::parse(&FLOP.replace("\"52%\"", "\"1e300%\"")).unwrap();
        let tree = crate::holdem::tree::Tree::build(&big, 1_000_000).unwrap();
        assert!(tree.find("flop:allin").is_ok());
    }

    #[test]
    fn river_spot_on_a_reduced_deck() {
        let t = r#"
deck = "9TJQKA/sh"
board = "AsKhTs9h9s"
oop_range = "AA,KK,QQ"
ip_range = "JJ,QJs"
pot = 10
stack = 20
river_bet = "50%"
river_raise = "a"
"#;
        let s = Spot::parse(t).unwrap();
        assert_eq!(s.first_street(), Street::River);
        // AA: AhAs minus As: none; KK: KsKh minus Kh: none; QQ: QsQh: 1.
        assert_eq!(s.combos[0].len(), 1);
        assert_eq!(key_of(&t.replace("AsKhTs9h9s", "AcKhTs9h9s")), "board");
        assert_eq!(key_of(&format!("{t}\nturn_bet = \"50%\"")), "turn_bet");
    }
}
