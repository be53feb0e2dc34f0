//! Lock files: a strategy file in the layout `-o` writes in which a player or a set may be
//! left out (left out is not locked):
//!
//! ```json
//! { "game": "kuhn", "strategy": { "P1": { "J": { "Pass": "5/6", "Bet": "1/6" } } } }
//! ```
//! A set's value is an object keyed by action label; an action left out has probability 0.
//! Probabilities given as strings (`"1/6"`, `"0.25"`) are exact and must sum to exactly 1;
//! JSON numbers must sum to within [`LOCK_SUM_TOLERANCE`] of 1 and are then divided by their
//! sum. Keys name information sets today; a later reader may also take a node path keyed by
//! hand (an object whose values are objects of actions), which this one refuses by name.

use crate::format::text::{quoted, quoted_list};
use crate::game::Game;
use crate::lock::{Lock, LockedSet};
use crate::scalar::{
    format_rational, parse_rational, too_many_digits, Rational, MAX_NUMBER_DIGITS,
};
use num_traits::{One, Zero};
use serde_json::Value;
use std::collections::HashMap;
use thiserror::Error;

/// Largest |sum - 1| of a locked set's probabilities when any is a JSON number.
pub const LOCK_SUM_TOLERANCE: f64 = 1e-9;

/// Why a lock could not be read: the message names the player, set and action.
#[derive(Debug, Error)]
#[error("lock: {0}")]
pub struct LockError(pub String);

fn err(text: impl Into<String>) -> LockError {
    LockError(text.into())
}

/// Spellings of one game spec compared loosely (spaces ignored).
fn same_spec(a: &str, b: &str) -> bool {
    let squeeze = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    squeeze(a) == squeeze(b)
}

/// Reads a lock for `game` (named `spec`, checked against the file's `game` field when both
/// are given) from JSON text.
pub fn lock_from_json(game: &Game, spec: Option<&str>, text: &str) -> Result<Lock, LockError> {
    let root: Value =
        serde_json::from_str(text).map_err(|e| err(format!("not valid JSON: {e}")))?;
    if let Some(path) = crate::format::json_keys::first_duplicate_key(text) {
        return Err(err(format!(
            "repeated key {path}: each player, information set and action may appear only once"
        )));
    }
    let obj = root
        .as_object()
        .ok_or_else(|| err("expected an object with a \"strategy\" field"))?;
    for key in obj.keys() {
        if !["game", "strategy", "unreached"].contains(&key.as_str()) {
            return Err(err(format!(
                "unknown field {}; a lock has \"game\" and \"strategy\"",
                quoted(key)
            )));
        }
    }
    match (obj.get("game"), spec) {
        (Some(Value::String(g)), Some(s)) if !same_spec(g, s) => {
            return Err(err(format!(
                "the file is for game {}, not {}",
                quoted(g),
                quoted(s)
            )))
        }
        (Some(Value::String(_)) | None, _) => {}
        (Some(_), _) => return Err(err("\"game\": expected a string naming the game")),
    }
    let strategy = obj
        .get("strategy")
        .ok_or_else(|| err("missing \"strategy\": expected an object keyed by player name"))?
        .as_object()
        .ok_or_else(|| err("\"strategy\": expected an object keyed by player name"))?;
    let mut lock = Lock::default();
    let index: [HashMap<&str, usize>; 2] = [0, 1].map(|p| {
        game.infosets[p]
            .iter()
            .enumerate()
            .map(|(i, s)| (s.label.as_str(), i))
            .collect()
    });
    for (name, sets) in strategy {
        let p = game
            .player_names
            .iter()
            .position(|n| n == name)
            .ok_or_else(|| {
                err(format!(
                    "unknown player {}; expected {} or {}",
                    quoted(name),
                    quoted(&game.player_names[0]),
                    quoted(&game.player_names[1])
                ))
            })?;
        let sets = sets.as_object().ok_or_else(|| {
            err(format!(
                "{name}: expected an object keyed by information-set label"
            ))
        })?;
        for (label, actions) in sets {
            let id = *index[p].get(label.as_str()).ok_or_else(|| {
                match index[1 - p].get(label.as_str()) {
                    Some(_) => err(format!(
                        "{name} {}: that information set is {}'s, not {name}'s",
                        quoted(label),
                        game.player_names[1 - p]
                    )),
                    None => err(format!(
                        "{name} has no information set {} in this game",
                        quoted(label)
                    )),
                }
            })?;
            lock.sets[p].push(read_set(game, p, id, actions)?);
        }
        lock.sets[p].sort_by_key(|s| s.infoset);
    }
    Ok(lock)
}

/// One locked set's probabilities from its object of actions.
fn read_set(game: &Game, p: usize, id: usize, actions: &Value) -> Result<LockedSet, LockError> {
    let set = &game.infosets[p][id];
    let at = format!("{} {}", game.player_names[p], quoted(&set.label));
    let actions = actions
        .as_object()
        .ok_or_else(|| err(format!("{at}: expected an object keyed by action label")))?;
    let mut probs = vec![Rational::zero(); set.actions.len()];
    let mut any_number = false;
    for (action, value) in actions {
        let k = set
            .actions
            .iter()
            .position(|a| a == action)
            .ok_or_else(|| {
                err(format!(
                    "{at}: no action {}; the set's actions are {}",
                    quoted(action),
                    quoted_list(&set.actions)
                ))
            })?;
        let here = format!("{at} {}", quoted(action));
        let text = match value {
            Value::Number(n) => {
                any_number = true;
                n.to_string()
            }
            Value::String(s) => s.clone(),
            Value::Object(_) => {
                return Err(err(format!(
                    "{here}: expected a probability; per-hand entries are not read yet"
                )))
            }
            other => {
                return Err(err(format!(
                    "{here}: expected a probability (a number or a string \"p/q\"), found {}",
                    crate::format::text::shortened(&other.to_string())
                )))
            }
        };
        if let Some(e) = too_many_digits(&text, MAX_NUMBER_DIGITS) {
            return Err(err(format!("{here}: {e}")));
        }
        let x = parse_rational(&text).ok_or_else(|| {
            err(format!(
                "{here}: {} is not a probability (a number or a string \"p/q\")",
                quoted(&text)
            ))
        })?;
        if x < Rational::zero() {
            return Err(err(format!(
                "{here}: probability {} is negative",
                format_rational(&x)
            )));
        }
        if x > Rational::one() {
            return Err(err(format!(
                "{here}: probability {} is above 1",
                format_rational(&x)
            )));
        }
        probs[k] = x;
    }
    let sum: Rational = probs.iter().sum();
    let off = crate::scalar::rational_to_f64(&(&sum - Rational::one())).abs();
    if any_number {
        if off > LOCK_SUM_TOLERANCE || sum.is_zero() {
            return Err(err(format!(
                "{at}: probabilities sum to {}, not 1 (numbers may be off by at most \
                 {LOCK_SUM_TOLERANCE:e})",
                crate::scalar::rational_to_f64(&sum)
            )));
        }
        for x in probs.iter_mut() {
            *x = &*x / &sum;
        }
    } else if !sum.is_one() {
        return Err(err(format!(
            "{at}: probabilities sum to {}, not exactly 1",
            format_rational(&sum)
        )));
    }
    Ok(LockedSet { infoset: id, probs })
}

/// A lock as JSON in the layout of a strategy file: only the locked sets, exact strings.
pub fn lock_to_json(game: &Game, spec: &str, lock: &Lock) -> Value {
    let mut players = serde_json::Map::new();
    for p in 0..2 {
        if lock.sets[p].is_empty() {
            continue;
        }
        let mut sets = serde_json::Map::new();
        for s in &lock.sets[p] {
            let set = &game.infosets[p][s.infoset];
            let actions = set
                .actions
                .iter()
                .zip(&s.probs)
                .map(|(a, x)| (a.clone(), Value::String(format_rational(x))))
                .collect();
            sets.insert(set.label.clone(), Value::Object(actions));
        }
        players.insert(game.player_names[p].clone(), Value::Object(sets));
    }
    serde_json::json!({ "game": spec, "strategy": players })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::rat;

    fn refused(text: &str) -> String {
        let game = kuhn_poker().unwrap();
        lock_from_json(&game, Some("kuhn"), text)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_lock_reads_exact_strings_and_normalises_numbers() {
        let game = kuhn_poker().unwrap();
        let text = r#"{"game": "kuhn", "strategy": {"P1": {"J": {"Pass": "5/6", "Bet": "1/6"}},
            "P2": {"Qb": {"Bet": 0.2500000000001, "Pass": 0.75}}}}"#;
        let lock = lock_from_json(&game, Some("kuhn"), text).unwrap();
        assert_eq!(lock.sets[0].len(), 1);
        assert_eq!(lock.sets[0][0].probs, vec![rat(5, 6), rat(1, 6)]);
        let s = &lock.sets[1][0];
        let set = &game.infosets[1][s.infoset];
        assert_eq!(set.label, "Qb");
        assert_eq!(s.probs.iter().sum::<Rational>(), Rational::one());
        // An action left out plays 0.
        let one = r#"{"strategy": {"P1": {"J": {"Bet": "1"}}}}"#;
        let lock = lock_from_json(&game, None, one).unwrap();
        assert_eq!(lock.sets[0][0].probs, vec![rat(0, 1), rat(1, 1)]);
    }

    #[test]
    fn bad_locks_are_refused_naming_the_set_and_action() {
        let e = refused(r#"{"strategy": {"P1": {"Jx": {"Bet": 1}}}}"#);
        assert_eq!(e, "lock: P1 has no information set \"Jx\" in this game");
        let e = refused(r#"{"strategy": {"P1": {"Qb": {"Bet": 1}}}}"#);
        assert_eq!(e, "lock: P1 \"Qb\": that information set is P2's, not P1's");
        let e = refused(r#"{"strategy": {"P1": {"J": {"Raise": 1}}}}"#);
        assert!(e.starts_with("lock: P1 \"J\": no action \"Raise\""), "{e}");
        let e = refused(r#"{"strategy": {"P1": {"J": {"Bet": "-1/2", "Pass": "3/2"}}}}"#);
        assert!(
            e.contains("P1 \"J\" \"Bet\": probability -1/2 is negative"),
            "{e}"
        );
        let e = refused(r#"{"strategy": {"P1": {"J": {"Bet": "NaN", "Pass": 0}}}}"#);
        assert!(
            e.contains("P1 \"J\" \"Bet\": \"NaN\" is not a probability"),
            "{e}"
        );
        let e = refused(r#"{"strategy": {"P1": {"J": {"Bet": "1/3", "Pass": "1/3"}}}}"#);
        assert_eq!(e, "lock: P1 \"J\": probabilities sum to 2/3, not exactly 1");
        let e = refused(r#"{"strategy": {"P1": {"J": {"Bet": 0.5, "Pass": 0.4999}}}}"#);
        assert!(
            e.starts_with("lock: P1 \"J\": probabilities sum to 0.9999"),
            "{e}"
        );
        let e = refused(r#"{"strategy": {"P1": {"J": {"Bet": 1, "Bet": 0}}}}"#);
        assert!(e.starts_with("lock: repeated key"), "{e}");
        let e = refused(r#"{"game": "leduc", "strategy": {}}"#);
        assert_eq!(e, "lock: the file is for game \"leduc\", not \"kuhn\"");
        let e = refused(r#"{"strategy": {"P3": {}}}"#);
        assert!(e.starts_with("lock: unknown player \"P3\""), "{e}");
    }

    #[test]
    fn a_lock_round_trips_through_its_json() {
        let game = kuhn_poker().unwrap();
        let text = r#"{"strategy": {"P2": {"Kp": {"Pass": "1/3", "Bet": "2/3"}}}}"#;
        let lock = lock_from_json(&game, None, text).unwrap();
        let back = lock_to_json(&game, "kuhn", &lock).to_string();
        assert_eq!(lock_from_json(&game, Some("kuhn"), &back).unwrap(), lock);
    }
}
