//! OpenSpiel games that bluff has built in with OpenSpiel's rules (`kuhn_poker`,
//! `leduc_poker`, `liars_dice`, imperfect-information `goofspiel` in its turn-based form),
//! recognised by OpenSpiel's short name and parameters.
//!
//! [`NativeGame::build`] builds the built-in game and relabels it with OpenSpiel's strings
//! (`information_state_string`, `action_to_string`, chance outcome names), so that the result
//! is the game a depth-first traversal of the pyspiel game gives: same tree, probabilities,
//! payoffs, information sets, actions in `legal_actions()` order and labels. The Python
//! package's tests compare the two node for node. Parameters that change the game in any way
//! the built-ins do not model are not recognised (the caller then traverses the game).

use super::goofspiel::{self, PointsOrder, Returns};
use super::{kuhn, leduc, liars_dice};
use crate::error::{err, Result};
use crate::fxhash::FxMap;
use crate::game::{Game, Labels};
use std::collections::BTreeMap;
use std::fmt::Write;

/// An OpenSpiel game parameter's value (`game.get_parameters()`).
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// A boolean parameter.
    Bool(bool),
    /// An integer parameter.
    Int(i64),
    /// A floating-point parameter.
    Double(f64),
    /// A string parameter.
    Str(String),
}

/// A recognised OpenSpiel game with the built-in parameters that reproduce it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeGame {
    /// `kuhn_poker(players=2)`.
    Kuhn,
    /// `leduc_poker` with two players and its default rules.
    Leduc,
    /// `liars_dice` with two players and bidding rule `reset-face`.
    LiarsDice {
        /// Dice per player.
        dice: u32,
        /// Faces per die.
        sides: u32,
    },
    /// `goofspiel(imp_info=True)` for two players, all turns, not egocentric, as made
    /// turn-based by `convert_to_turn_based`.
    Goofspiel {
        /// Cards per hand and point cards.
        cards: u32,
        /// `points_order`.
        order: PointsOrder,
        /// `returns_type`.
        returns: Returns,
    },
}

/// Takes parameters out of a map one by one; `None` when one is missing or has another value.
struct Args(BTreeMap<String, ParamValue>);

impl Args {
    fn take(&mut self, key: &str) -> Option<ParamValue> {
        self.0.remove(key)
    }
    fn int(&mut self, key: &str) -> Option<i64> {
        match self.take(key)? {
            ParamValue::Int(v) => Some(v),
            _ => None,
        }
    }
    fn is(&mut self, key: &str, value: ParamValue) -> Option<()> {
        (self.take(key)? == value).then_some(())
    }
    fn text(&mut self, key: &str) -> Option<String> {
        match self.take(key)? {
            ParamValue::Str(s) => Some(s),
            _ => None,
        }
    }
    /// True when every parameter has been accounted for.
    fn done(self) -> Option<()> {
        self.0.is_empty().then_some(())
    }
}

impl NativeGame {
    /// The built-in equal to the OpenSpiel game `short_name` with `params` (all of its
    /// parameters, as `get_parameters()` lists them); `turn_based` when the game is wrapped in
    /// `turn_based_simultaneous_game`. `None` when bluff has no identical built-in.
    pub fn recognise(
        short_name: &str,
        params: BTreeMap<String, ParamValue>,
        turn_based: bool,
    ) -> Option<NativeGame> {
        let mut a = Args(params);
        a.is("players", ParamValue::Int(2))?;
        let game = match (short_name, turn_based) {
            ("kuhn_poker", false) => NativeGame::Kuhn,
            ("leduc_poker", false) => {
                a.is("action_mapping", ParamValue::Bool(false))?;
                a.is("suit_isomorphism", ParamValue::Bool(false))?;
                a.is("starting_player", ParamValue::Int(0))?;
                NativeGame::Leduc
            }
            ("liars_dice", false) => {
                a.is("bidding_rule", ParamValue::Str("reset-face".into()))?;
                let dice = a.int("numdice")?;
                let sides = a.int("dice_sides")?;
                if !(1..=4).contains(&dice) || !(2..=12).contains(&sides) {
                    return None;
                }
                NativeGame::LiarsDice {
                    dice: dice as u32,
                    sides: sides as u32,
                }
            }
            // The simultaneous-move game is imported through its turn-based form: either way
            // the same game.
            ("goofspiel", _) => {
                a.is("imp_info", ParamValue::Bool(true))?;
                a.is("egocentric", ParamValue::Bool(false))?;
                a.is("num_turns", ParamValue::Int(-1))?;
                let cards = a.int("num_cards")?;
                if !(2..=31).contains(&cards) {
                    return None;
                }
                let order = match a.text("points_order")?.as_str() {
                    "random" => PointsOrder::Random,
                    "descending" => PointsOrder::Descending,
                    "ascending" => PointsOrder::Ascending,
                    _ => return None,
                };
                let returns = match a.text("returns_type")?.as_str() {
                    "win_loss" => Returns::WinLoss,
                    "point_difference" => Returns::PointDifference,
                    _ => return None,
                };
                NativeGame::Goofspiel {
                    cards: cards as u32,
                    order,
                    returns,
                }
            }
            _ => return None,
        };
        a.done()?;
        Some(game)
    }

    /// Number of nodes (chance, decision and terminal), `None` above `u64`.
    pub fn num_nodes(&self) -> Option<u64> {
        match *self {
            NativeGame::Kuhn => Some(58),
            NativeGame::Leduc => Some(9457),
            NativeGame::LiarsDice { dice, sides } => liars_dice::num_nodes(dice, sides),
            NativeGame::Goofspiel { cards, order, .. } => goofspiel::num_nodes(cards, order),
        }
    }

    /// The built-in game's spec (its rules: [`crate::games::rules`]).
    pub fn spec(&self) -> String {
        match *self {
            NativeGame::Kuhn => "kuhn".into(),
            NativeGame::Leduc => "leduc".into(),
            NativeGame::LiarsDice { dice, sides } => {
                format!("liars-dice(dice={dice},sides={sides})")
            }
            NativeGame::Goofspiel {
                cards,
                order,
                returns,
            } => format!(
                "goofspiel(cards={cards},order={},returns={})",
                goofspiel::ORDER_NAMES[order as usize],
                goofspiel::RETURNS_NAMES[returns as usize]
            ),
        }
    }

    /// OpenSpiel's information-state string of `player`'s set that the built-in labels
    /// `label`.
    pub fn openspiel_infoset(&self, player: usize, label: &str) -> Result<String> {
        match *self {
            NativeGame::Kuhn => kuhn_infoset(player, label),
            NativeGame::Leduc => leduc_infoset(player, label),
            NativeGame::LiarsDice { .. } => Ok(label.to_string()),
            NativeGame::Goofspiel { cards, .. } => goofspiel_infoset(cards, player, label),
        }
    }

    /// Builds the game named `name` with players `Player 0` and `Player 1` and OpenSpiel's
    /// labels.
    pub fn build(&self, name: &str) -> Result<Game> {
        let mut game = match *self {
            NativeGame::Kuhn => {
                let mut g = kuhn::kuhn_poker()?;
                relabel(
                    &mut g,
                    |p, l| self.openspiel_infoset(p, l),
                    None,
                    |c| Ok(format!("Deal:{}", kuhn_card(c)?)),
                )?;
                g
            }
            NativeGame::Leduc => {
                let mut g = leduc::leduc_poker()?;
                relabel(
                    &mut g,
                    |p, l| self.openspiel_infoset(p, l),
                    None,
                    |c| Ok(format!("Chance outcome:{}", leduc_card(c)?)),
                )?;
                g
            }
            // The built-in already uses OpenSpiel's strings.
            NativeGame::LiarsDice { dice, sides } => liars_dice::liars_dice(dice, sides, u64::MAX)?,
            NativeGame::Goofspiel {
                cards,
                order,
                returns,
            } => {
                let mut g = goofspiel::goofspiel(cards, order, returns, u64::MAX)?;
                let bid = |p: usize, a: &str| -> Result<String> {
                    let card = a
                        .strip_prefix("Bid ")
                        .ok_or_else(|| err!(Invalid, "unexpected goofspiel action {a:?}"))?;
                    Ok(format!("[P{p}]Bid: {card}"))
                };
                relabel(
                    &mut g,
                    |p, l| self.openspiel_infoset(p, l),
                    Some(&bid),
                    |c| Ok(c.to_string()),
                )?;
                g
            }
        };
        game.name = name.to_string();
        game.player_names = ["Player 0".to_string(), "Player 1".to_string()];
        Ok(game)
    }
}

/// A renaming of one player's labels.
type Rename<'a> = &'a dyn Fn(usize, &str) -> Result<String>;

/// Renames every information set, action (when `action` is given) and chance outcome.
fn relabel(
    game: &mut Game,
    infoset: impl Fn(usize, &str) -> Result<String>,
    action: Option<Rename<'_>>,
    chance: impl Fn(&str) -> Result<String>,
) -> Result<()> {
    // Action lists are shared between sets: renamed once per (player, list).
    let mut renamed: FxMap<(usize, Labels), Labels> = FxMap::default();
    for (p, sets) in game.infosets.iter_mut().enumerate() {
        for set in sets.iter_mut() {
            set.label = infoset(p, &set.label)?;
            if let Some(action) = action {
                let key = (p, set.actions.clone());
                set.actions = match renamed.get(&key) {
                    Some(l) => l.clone(),
                    None => {
                        let l: Labels = set
                            .actions
                            .iter()
                            .map(|a| action(p, a))
                            .collect::<Result<Vec<String>>>()?
                            .into();
                        renamed.insert(key, l.clone());
                        l
                    }
                };
            }
        }
    }
    // Id 0 is the empty label of nodes under no chance node.
    let mut failed = None;
    game.chance_label.map_distinct(|c| {
        if c.is_empty() {
            return String::new();
        }
        chance(c).unwrap_or_else(|e| {
            failed = Some(e);
            String::new()
        })
    });
    failed.map_or(Ok(()), Err)
}

/// OpenSpiel's Kuhn card number of bluff's `J`, `Q`, `K`.
fn kuhn_card(card: &str) -> Result<usize> {
    ["J", "Q", "K"]
        .iter()
        .position(|c| *c == card)
        .ok_or_else(|| err!(Invalid, "unexpected Kuhn card {card:?}"))
}

/// `Qpb` (card, then the public history) -> OpenSpiel's `1pb`.
fn kuhn_infoset(_player: usize, label: &str) -> Result<String> {
    let card = label
        .get(..1)
        .ok_or_else(|| err!(Invalid, "empty Kuhn label"))?;
    Ok(format!("{}{}", kuhn_card(card)?, &label[1..]))
}

/// OpenSpiel's Leduc card number of bluff's `Js` .. `Kh` (rank = number / 2).
fn leduc_card(card: &str) -> Result<usize> {
    ["Js", "Jh", "Qs", "Qh", "Ks", "Kh"]
        .iter()
        .position(|c| *c == card)
        .ok_or_else(|| err!(Invalid, "unexpected Leduc card {card:?}"))
}

/// `Kh|rc|Js|cr` -> OpenSpiel's `[Observer: 0][Private: 5][Round 2][Player: 0][Pot: 10]
/// [Money: 97 93][Public: 0][Round1: 2 1][Round2: 1 2]`: pot and stacks (100 chips each)
/// replayed from the histories, actions by OpenSpiel's ids (call 1, raise 2).
fn leduc_infoset(player: usize, label: &str) -> Result<String> {
    let parts: Vec<&str> = label.split('|').collect();
    let (card, rounds, public) = match parts.as_slice() {
        [card, h1] => (*card, vec![*h1], None),
        [card, h1, public, h2] => (*card, vec![*h1, *h2], Some(*public)),
        _ => return Err(err!(Invalid, "unexpected Leduc label {label:?}")),
    };
    let mut contrib = [1i64, 1];
    let mut ids: Vec<String> = Vec::new();
    for (r, history) in rounds.iter().enumerate() {
        let raise = if r == 0 { 2 } else { 4 };
        let mut ids_r: Vec<&str> = Vec::new();
        for (k, c) in history.chars().enumerate() {
            let p = k % 2;
            match c {
                'c' => {
                    contrib[p] = contrib[1 - p];
                    ids_r.push("1");
                }
                'r' => {
                    contrib[p] = contrib[1 - p] + raise;
                    ids_r.push("2");
                }
                _ => return Err(err!(Invalid, "unexpected Leduc action {c:?} in {label:?}")),
            }
        }
        ids.push(ids_r.join(" "));
    }
    let public = match public {
        Some(c) => format!("[Public: {}]", leduc_card(c)?),
        None => String::new(),
    };
    Ok(format!(
        "[Observer: {player}][Private: {}][Round {}][Player: {player}][Pot: {}][Money: {} {}]{public}[Round1: {}][Round2: {}]",
        leduc_card(card)?,
        rounds.len(),
        contrib[0] + contrib[1],
        100 - contrib[0],
        100 - contrib[1],
        ids[0],
        ids.get(1).map_or("", String::as_str),
    ))
}

/// `cards 4 3 2|bids 1 3|won = 1` -> OpenSpiel's `Current player: 0\nP0 hand: 2 4 \nP0 action
/// sequence: 0 2 \nPoint card sequence: 4 3 2 \nWin sequence: -3 0 \nPoints: 3 0 \nTerminal?:
/// 0\n` (actions by id = card - 1; a tie is -3 in the win sequence).
fn goofspiel_infoset<'a>(cards: u32, player: usize, label: &'a str) -> Result<String> {
    let bad = || err!(Invalid, "unexpected goofspiel label {label:?}");
    let fields: Vec<&str> = label.split('|').collect();
    let [c, b, w] = fields.as_slice() else {
        return Err(bad());
    };
    let list = |field: &'a str, prefix: &str| -> Result<Vec<&'a str>> {
        let rest = field.strip_prefix(prefix).ok_or_else(bad)?;
        Ok(if rest == "-" {
            Vec::new()
        } else {
            rest.split(' ').collect()
        })
    };
    let number = |s: &&str| s.parse::<u32>().map_err(|_| bad());
    let points: Vec<u32> = list(c, "cards ")?
        .iter()
        .map(number)
        .collect::<Result<_>>()?;
    let bids: Vec<u32> = list(b, "bids ")?
        .iter()
        .map(number)
        .collect::<Result<_>>()?;
    let won = list(w, "won ")?;
    let mut out = format!("Current player: {player}\nP{player} hand: ");
    // Writing into a String cannot fail.
    for card in (1..=cards).filter(|c| !bids.contains(c)) {
        let _ = write!(out, "{card} ");
    }
    let _ = write!(out, "\nP{player} action sequence: ");
    for bid in &bids {
        let _ = write!(out, "{} ", bid - 1);
    }
    out.push_str("\nPoint card sequence: ");
    for card in &points {
        let _ = write!(out, "{card} ");
    }
    out.push_str("\nWin sequence: ");
    let mut score = [0u32; 2];
    for (round, who) in won.iter().enumerate() {
        let value = *points.get(round).ok_or_else(bad)?;
        let id = match *who {
            "1" => {
                score[0] += value;
                "0"
            }
            "2" => {
                score[1] += value;
                "1"
            }
            "=" => "-3",
            _ => return Err(bad()),
        };
        out.push_str(id);
        out.push(' ');
    }
    let _ = write!(out, "\nPoints: {} {} \nTerminal?: 0\n", score[0], score[1]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(items: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn goofspiel_params(extra: &[(&str, ParamValue)]) -> BTreeMap<String, ParamValue> {
        use ParamValue::*;
        let mut p = params(&[
            ("egocentric", Bool(false)),
            ("imp_info", Bool(true)),
            ("num_cards", Int(4)),
            ("num_turns", Int(-1)),
            ("players", Int(2)),
            ("points_order", Str("random".into())),
            ("returns_type", Str("win_loss".into())),
        ]);
        for (k, v) in extra {
            p.insert(k.to_string(), v.clone());
        }
        p
    }

    #[test]
    fn recognises_only_the_parameters_of_identical_games() {
        use ParamValue::*;
        assert_eq!(
            NativeGame::recognise("kuhn_poker", params(&[("players", Int(2))]), false),
            Some(NativeGame::Kuhn)
        );
        assert_eq!(
            NativeGame::recognise("kuhn_poker", params(&[("players", Int(3))]), false),
            None
        );
        let leduc = |iso: bool| {
            params(&[
                ("action_mapping", Bool(false)),
                ("players", Int(2)),
                ("starting_player", Int(0)),
                ("suit_isomorphism", Bool(iso)),
            ])
        };
        assert_eq!(
            NativeGame::recognise("leduc_poker", leduc(false), false),
            Some(NativeGame::Leduc)
        );
        assert_eq!(
            NativeGame::recognise("leduc_poker", leduc(true), false),
            None
        );
        let liars = |rule: &str| {
            params(&[
                ("bidding_rule", Str(rule.into())),
                ("dice_sides", Int(5)),
                ("numdice", Int(1)),
                ("players", Int(2)),
            ])
        };
        assert_eq!(
            NativeGame::recognise("liars_dice", liars("reset-face"), false),
            Some(NativeGame::LiarsDice { dice: 1, sides: 5 })
        );
        assert_eq!(
            NativeGame::recognise("liars_dice", liars("reset-quantity"), false),
            None
        );
        assert_eq!(
            NativeGame::recognise("goofspiel", goofspiel_params(&[]), true),
            Some(NativeGame::Goofspiel {
                cards: 4,
                order: PointsOrder::Random,
                returns: Returns::WinLoss
            })
        );
        for bad in [
            ("imp_info", Bool(false)),
            ("egocentric", Bool(true)),
            ("num_turns", Int(3)),
            ("returns_type", Str("total_points".into())),
            ("unknown_parameter", Int(0)),
        ] {
            assert_eq!(
                NativeGame::recognise(
                    "goofspiel",
                    goofspiel_params(std::slice::from_ref(&bad)),
                    false
                ),
                None,
                "{bad:?}"
            );
        }
        // A wrapper around a sequential game is not what the built-ins model.
        assert_eq!(
            NativeGame::recognise("kuhn_poker", params(&[("players", Int(2))]), true),
            None
        );
    }

    /// Strings printed by pyspiel 2.0.2 for these states (`information_state_string`).
    #[test]
    fn labels_are_openspiel_information_state_strings() {
        assert_eq!(kuhn_infoset(0, "Qpb").unwrap(), "1pb");
        assert_eq!(
            leduc_infoset(0, "Js|rc|Kh|cr").unwrap(),
            "[Observer: 0][Private: 0][Round 2][Player: 0][Pot: 10][Money: 97 93][Public: 5][Round1: 2 1][Round2: 1 2]"
        );
        assert_eq!(
            leduc_infoset(1, "Jh|c").unwrap(),
            "[Observer: 1][Private: 1][Round 1][Player: 1][Pot: 2][Money: 99 99][Round1: 1][Round2: ]"
        );
        assert_eq!(
            goofspiel_infoset(4, 0, "cards 4 3 2|bids 1 3|won = 1").unwrap(),
            "Current player: 0\nP0 hand: 2 4 \nP0 action sequence: 0 2 \nPoint card sequence: 4 3 2 \nWin sequence: -3 0 \nPoints: 3 0 \nTerminal?: 0\n"
        );
        assert_eq!(
            goofspiel_infoset(3, 1, "cards 1|bids -|won -").unwrap(),
            "Current player: 1\nP1 hand: 1 2 3 \nP1 action sequence: \nPoint card sequence: 1 \nWin sequence: \nPoints: 0 0 \nTerminal?: 0\n"
        );
    }

    /// Each recognised game names built-in rules that state the same game (their name is the
    /// spec back), and labels through them as the built arena does.
    #[test]
    fn specs_name_the_built_in_rules() {
        for n in [
            NativeGame::Kuhn,
            NativeGame::Leduc,
            NativeGame::LiarsDice { dice: 2, sides: 5 },
            NativeGame::Goofspiel {
                cards: 4,
                order: PointsOrder::Descending,
                returns: Returns::PointDifference,
            },
        ] {
            let rules = crate::games::rules(&n.spec()).unwrap().unwrap();
            assert_eq!(rules.with(Name), n.spec());
        }
        let n = NativeGame::Goofspiel {
            cards: 3,
            order: PointsOrder::Random,
            returns: Returns::WinLoss,
        };
        let built = n.build("goofspiel").unwrap();
        let plain = crate::games::builtin(&n.spec()).unwrap();
        for p in 0..2 {
            for (a, b) in plain.infosets[p].iter().zip(&built.infosets[p]) {
                assert_eq!(n.openspiel_infoset(p, &a.label).unwrap(), b.label);
            }
        }
    }

    struct Name;

    impl crate::games::WithRules for Name {
        type Output = String;
        fn run<G: crate::game::Rules>(self, rules: &G) -> String {
            rules.name()
        }
    }

    #[test]
    fn built_games_keep_the_built_in_tree() {
        let g = NativeGame::Kuhn.build("kuhn_poker()").unwrap();
        let builtin = kuhn::kuhn_poker().unwrap();
        assert_eq!(g.nodes.len(), builtin.nodes.len());
        assert_eq!(g.infosets[0][0].label, "0");
        assert_eq!(
            g.chance_label.distinct(),
            ["", "Deal:0", "Deal:1", "Deal:2"]
        );
        let n = NativeGame::Goofspiel {
            cards: 3,
            order: PointsOrder::Random,
            returns: Returns::WinLoss,
        };
        let g = n.build("goofspiel").unwrap();
        assert_eq!(g.nodes.len() as u64, n.num_nodes().unwrap());
        assert_eq!(
            &*g.infosets[1][0].actions,
            ["[P1]Bid: 1", "[P1]Bid: 2", "[P1]Bid: 3"]
        );
        assert_eq!(g.player_names, ["Player 0", "Player 1"]);
    }
}
