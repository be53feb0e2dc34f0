//! Strategy profiles as JSON, keyed by readable player, information-set and action labels:
//!
//! ```json
//! { "game": "kuhn",
//!   "strategy": { "P1": { "J": { "Pass": "2/3", "Bet": "1/3" }, ... }, "P2": { ... } } }
//! ```
//! Probabilities are JSON numbers (read exactly from their decimal text) or strings holding a
//! decimal or a fraction `p/q`. Every information set must be present, unless the file says
//! `"unreached": "uniform"` (as a sampling run on a game's rules writes, listing the sets it
//! reached): then a set left out plays uniformly.

use crate::format::text::{quoted, quoted_list};
use crate::game::Game;
use crate::scalar::{
    format_rational, is_probability, parse_rational, too_many_digits, Rational, Scalar,
    MAX_NUMBER_DIGITS,
};
use crate::strategy::{normalize_exact, ExactProfile, LabelledStrategy, Profile};
use num_traits::{One, Signed};
use serde_json::{Map, Value};
use thiserror::Error;

/// Why a strategy file could not be read.
#[derive(Debug, Error)]
pub enum StrategyFileError {
    /// The text is not JSON.
    #[error("not valid JSON: {0}")]
    Syntax(serde_json::Error),
    /// The JSON does not describe a strategy for this game.
    #[error("{field}: {detail}")]
    Field {
        /// Path of the offending field, e.g. `strategy.P1."Jb".Bet`.
        field: String,
        /// What was expected.
        detail: String,
    },
}

// Not `#[from]`: that would make the JSON error the source too, and `{:#}` would print its
// text twice.
impl From<serde_json::Error> for StrategyFileError {
    fn from(e: serde_json::Error) -> Self {
        StrategyFileError::Syntax(e)
    }
}

fn field_err(field: impl Into<String>, detail: impl Into<String>) -> StrategyFileError {
    StrategyFileError::Field {
        field: field.into(),
        detail: detail.into(),
    }
}

/// Largest allowed |sum - 1| of one information set's probabilities; sums within it are
/// renormalised exactly (decimal files rarely sum to exactly 1).
pub const SUM_TOLERANCE: f64 = 1e-6;

/// Writes a profile as JSON. Exact profiles write fractions as strings, `f64` profiles numbers.
pub fn profile_to_json<T: Scalar + JsonProb>(
    game: &Game,
    game_spec: &str,
    profile: &Profile<T>,
) -> Value {
    let mut players = Map::new();
    for p in 0..2 {
        let mut sets = Map::new();
        for set in &game.infosets[p] {
            let mut actions = Map::new();
            for (k, a) in set.action_range().enumerate() {
                actions.insert(set.actions[k].clone(), profile.probs[p][a].to_json());
            }
            sets.insert(set.label.clone(), Value::Object(actions));
        }
        players.insert(game.player_names[p].clone(), Value::Object(sets));
    }
    let mut root = Map::new();
    root.insert("game".into(), Value::String(game_spec.to_string()));
    root.insert("strategy".into(), Value::Object(players));
    Value::Object(root)
}

/// Writes a strategy of a game played from its rules as JSON, in the layout of
/// [`profile_to_json`] with the sets the solver reached and `"unreached": "uniform"`, which
/// tells [`profile_from_json`] that the sets not listed play uniformly.
pub fn labelled_to_json(game_spec: &str, strategy: &LabelledStrategy) -> Value {
    let mut players = Map::new();
    for p in 0..2 {
        let mut sets = Map::new();
        for set in &strategy.sets[p] {
            let actions = set
                .actions
                .iter()
                .zip(&set.probs)
                .map(|(a, x)| (a.clone(), x.to_json()))
                .collect();
            sets.insert(set.label.clone(), Value::Object(actions));
        }
        players.insert(strategy.player_names[p].clone(), Value::Object(sets));
    }
    let mut root = Map::new();
    root.insert("game".into(), Value::String(game_spec.to_string()));
    root.insert("unreached".into(), Value::String(UNREACHED_UNIFORM.into()));
    root.insert("strategy".into(), Value::Object(players));
    Value::Object(root)
}

/// The value of the `unreached` field that lets a file leave out sets: they play uniformly.
pub const UNREACHED_UNIFORM: &str = "uniform";

/// How a probability is written to JSON.
pub trait JsonProb {
    /// The JSON form of this probability.
    fn to_json(&self) -> Value;
}

impl JsonProb for f64 {
    fn to_json(&self) -> Value {
        serde_json::Number::from_f64(*self)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

impl JsonProb for Rational {
    fn to_json(&self) -> Value {
        Value::String(format_rational(self))
    }
}

/// Reads a strategy file exactly. Returns the profile and the game spec it names (if any).
pub fn profile_from_json(
    game: &Game,
    text: &str,
) -> Result<(ExactProfile, Option<String>), StrategyFileError> {
    let root: Value = serde_json::from_str(text)?;
    // serde_json would keep the last of two equal keys without a word.
    if let Some(path) = crate::format::json_keys::first_duplicate_key(text) {
        return Err(field_err(
            path,
            "repeated key: each player, information set and action may appear only once",
        ));
    }
    let obj = root.as_object().ok_or_else(|| {
        field_err(
            "(top level)",
            "expected an object with a \"strategy\" field",
        )
    })?;
    let spec = match obj.get("game") {
        None => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(field_err("game", "expected a string naming the game")),
    };
    let partial = match obj.get("unreached") {
        None => false,
        Some(Value::String(s)) if s == UNREACHED_UNIFORM => true,
        Some(v) => {
            return Err(field_err(
                "unreached",
                format!(
                    "expected \"{UNREACHED_UNIFORM}\" (sets left out play uniformly), found {}",
                    crate::format::text::shortened(&v.to_string())
                ),
            ))
        }
    };
    let strategy = obj.get("strategy").ok_or_else(|| {
        field_err(
            "strategy",
            "missing: expected an object keyed by player name",
        )
    })?;
    let strategy = strategy
        .as_object()
        .ok_or_else(|| field_err("strategy", "expected an object keyed by player name"))?;
    for key in strategy.keys() {
        if !game.player_names.contains(key) {
            return Err(field_err(
                format!("strategy.{}", quoted(key)),
                format!(
                    "unknown player; expected {} or {}",
                    quoted(&game.player_names[0]),
                    quoted(&game.player_names[1])
                ),
            ));
        }
    }
    let mut profile = ExactProfile::uniform(game);
    for p in 0..2 {
        let name = &game.player_names[p];
        let player_field = format!("strategy.{}", quoted(name));
        let sets = strategy
            .get(name)
            .ok_or_else(|| field_err(&player_field, "missing player"))?;
        let sets = sets.as_object().ok_or_else(|| {
            field_err(
                &player_field,
                "expected an object keyed by information-set label",
            )
        })?;
        // One hash set of labels, not a search per key (a game may have millions of sets).
        let labels: std::collections::HashSet<&str> =
            game.infosets[p].iter().map(|s| s.label.as_str()).collect();
        for key in sets.keys() {
            if !labels.contains(key.as_str()) {
                return Err(field_err(
                    format!("{player_field}.{}", quoted(key)),
                    "no such information set in this game",
                ));
            }
        }
        for set in &game.infosets[p] {
            let set_field = format!("{player_field}.{}", quoted(&set.label));
            let actions = match sets.get(&set.label) {
                Some(actions) => actions,
                None if partial => continue,
                None => return Err(field_err(&set_field, "missing information set")),
            };
            let actions = actions
                .as_object()
                .ok_or_else(|| field_err(&set_field, "expected an object keyed by action label"))?;
            for key in actions.keys() {
                if !set.actions.contains(key) {
                    return Err(field_err(
                        format!("{set_field}.{}", quoted(key)),
                        format!(
                            "no such action; expected one of {}",
                            quoted_list(&set.actions)
                        ),
                    ));
                }
            }
            let mut sum = Rational::from_integer(0.into());
            for (k, a) in set.action_range().enumerate() {
                let action_field = format!("{set_field}.{}", quoted(&set.actions[k]));
                let value = actions
                    .get(&set.actions[k])
                    .ok_or_else(|| field_err(&action_field, "missing action probability"))?;
                let text = match value {
                    Value::Number(n) => Some(n.to_string()),
                    Value::String(s) => Some(s.clone()),
                    _ => None,
                };
                if let Some(e) = text
                    .as_deref()
                    .and_then(|t| too_many_digits(t, MAX_NUMBER_DIGITS))
                {
                    return Err(field_err(&action_field, e));
                }
                let prob = text.as_deref().and_then(parse_rational).ok_or_else(|| {
                    field_err(
                        &action_field,
                        format!(
                            "expected a probability (number, decimal string or \"p/q\"), found {}",
                            crate::format::text::shortened(&value.to_string())
                        ),
                    )
                })?;
                if !is_probability(&prob) {
                    return Err(field_err(
                        &action_field,
                        format!("probability {} is outside [0, 1]", format_rational(&prob)),
                    ));
                }
                sum += &prob;
                profile.probs[p][a] = prob;
            }
            if (&sum - Rational::one()).abs().to_f64() > SUM_TOLERANCE {
                return Err(field_err(
                    &set_field,
                    format!("probabilities sum to {}, not 1", sum.to_f64()),
                ));
            }
        }
        normalize_exact(game, p, &mut profile.probs[p]);
    }
    Ok((profile, spec))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::rat;

    #[test]
    fn exact_profiles_round_trip() {
        let game = kuhn_poker().unwrap();
        let mut prof = ExactProfile::uniform(&game);
        prof.probs[0][0] = rat(2, 7);
        prof.probs[0][1] = rat(5, 7);
        let text = profile_to_json(&game, "kuhn", &prof).to_string();
        let (back, spec) = profile_from_json(&game, &text).unwrap();
        assert_eq!(back, prof);
        assert_eq!(spec.as_deref(), Some("kuhn"));
    }

    /// A file that says `"unreached": "uniform"` may leave sets out (they play uniformly);
    /// without it, or with another value, it may not.
    #[test]
    fn only_files_that_say_so_leave_sets_out() {
        let game = kuhn_poker().unwrap();
        let one_set = r#"{"P1": {"K": {"Pass": "1/4", "Bet": "3/4"}}, "P2": {}}"#;
        let text = format!(r#"{{"unreached": "uniform", "strategy": {one_set}}}"#);
        let (back, _) = profile_from_json(&game, &text).unwrap();
        let mut want = ExactProfile::uniform(&game);
        let k = game.infosets[0].iter().find(|s| s.label == "K").unwrap();
        want.probs[0][k.action_offset] = rat(1, 4);
        want.probs[0][k.action_offset + 1] = rat(3, 4);
        assert_eq!(back, want);
        let text = format!(r#"{{"strategy": {one_set}}}"#);
        let e = profile_from_json(&game, &text).unwrap_err().to_string();
        assert!(e.contains("missing information set"), "{e}");
        let text = format!(r#"{{"unreached": "zero", "strategy": {one_set}}}"#);
        let e = profile_from_json(&game, &text).unwrap_err().to_string();
        assert!(e.starts_with("unreached: expected \"uniform\""), "{e}");
    }

    #[test]
    fn float_profiles_round_trip_to_their_exact_decimal_values() {
        let game = kuhn_poker().unwrap();
        let mut prof = Profile::<f64>::uniform(&game);
        prof.probs[1][0] = 0.25;
        prof.probs[1][1] = 0.75;
        let text = profile_to_json(&game, "kuhn", &prof).to_string();
        let (back, _) = profile_from_json(&game, &text).unwrap();
        assert_eq!(back.probs[1][0], rat(1, 4));
        // 0.5 is written as the decimal "0.5" and read back as exactly 1/2.
        assert_eq!(back.probs[0][0], rat(1, 2));
    }

    #[test]
    fn near_one_sums_are_renormalised_exactly() {
        let game = kuhn_poker().unwrap();
        let prof = ExactProfile::uniform(&game);
        let text = profile_to_json(&game, "kuhn", &prof)
            .to_string()
            .replacen("\"1/2\"", "0.3333333", 1)
            .replacen("\"1/2\"", "0.6666666", 1);
        let (back, _) = profile_from_json(&game, &text).unwrap();
        // 0.3333333 + 0.6666666 = 0.9999999 is within tolerance; dividing by it gives exactly 1/3.
        assert_eq!(back.probs[0][0], rat(1, 3));
        assert_eq!(&back.probs[0][0] + &back.probs[0][1], rat(1, 1));
    }
}
