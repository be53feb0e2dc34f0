//! `bluff.from_openspiel`: one iterative traversal of a pyspiel game into bluff's builder.
//!
//! The traversal runs in Rust and calls the pyspiel objects through the Python API, which
//! measured faster than a Python loop feeding `bluff.GameBuilder` (bench/python_convert.py).

use crate::convert::float_to_rational;
use crate::errors::{GameError, UnsupportedGameError};
use crate::game::Game;
use bluff::game::{GameBuilder, NodeRef};
use bluff::scalar::Rational;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use num_traits::{One, Signed, Zero};
use pyo3::intern;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::io::IsTerminal;

/// How many nodes between progress updates and Ctrl-C checks.
const TICK: usize = 1 << 13;

/// Reads a pybind11 enum's member name (`gt.utility.name` -> `"ZERO_SUM"`).
fn enum_name(obj: &Bound<'_, PyAny>, attr: &str) -> PyResult<String> {
    obj.getattr(attr)?.getattr("name")?.extract()
}

/// Exact payoffs and probabilities from OpenSpiel's doubles, cached by bit pattern.
struct Rationals(HashMap<u64, Rational>);

impl Rationals {
    fn get(&mut self, x: f64, what: &dyn Fn() -> String) -> PyResult<Rational> {
        if let Some(r) = self.0.get(&x.to_bits()) {
            return Ok(r.clone());
        }
        let r = float_to_rational(x)
            .ok_or_else(|| GameError::new_err(format!("{}: {x} is not finite", what())))?;
        self.0.insert(x.to_bits(), r.clone());
        Ok(r)
    }
}

/// Checks the game type; returns the game to traverse (simultaneous-move games through
/// OpenSpiel's own turn-based conversion).
fn checked_game<'py>(game: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let py = game.py();
    let name: String = game.str()?.extract()?;
    let gt = game.call_method0("get_type")?;
    let players: i64 = game.call_method0("num_players")?.extract()?;
    if players != 2 {
        return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} has {players} players; bluff solves two-player games"
        )));
    }
    let utility = enum_name(&gt, "utility")?;
    if utility != "ZERO_SUM" && utility != "CONSTANT_SUM" {
        return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} is {} ({utility}); bluff solves zero-sum and constant-sum games",
            utility.to_lowercase().replace('_', "-")
        )));
    }
    let chance = enum_name(&gt, "chance_mode")?;
    if chance == "SAMPLED_STOCHASTIC" {
        return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} samples chance outcomes instead of listing them (SAMPLED_STOCHASTIC); bluff needs explicit chance probabilities"
        )));
    }
    let provides: bool = gt.getattr("provides_information_state_string")?.extract()?;
    if !provides {
        return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} provides no information_state_string, so its information sets are unknown"
        )));
    }
    match enum_name(&gt, "dynamics")?.as_str() {
        "SEQUENTIAL" => Ok(game.clone()),
        "SIMULTANEOUS" => py
            .import("pyspiel")?
            .call_method1("convert_to_turn_based", (game,)),
        other => Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} has {other} dynamics; bluff takes sequential and simultaneous-move games"
        ))),
    }
}

/// Cached per information set: OpenSpiel's legal action ids and bluff's action labels.
type InfosetCache = HashMap<(usize, String), (Vec<i64>, Vec<String>)>;

/// Unique labels for actions: `action_to_string`, with the action id added to repeats.
fn action_labels(state: &Bound<'_, PyAny>, player: i64, legal: &[i64]) -> PyResult<Vec<String>> {
    let py = state.py();
    let mut labels: Vec<String> = Vec::with_capacity(legal.len());
    for &a in legal {
        labels.push(
            state
                .call_method1(intern!(py, "action_to_string"), (player, a))?
                .extract()?,
        );
    }
    let mut seen = std::collections::HashSet::new();
    let duplicated = labels.iter().any(|l| !seen.insert(l.clone()));
    if duplicated {
        for (l, a) in labels.iter_mut().zip(legal) {
            *l = format!("{l} #{a}");
        }
    }
    Ok(labels)
}

/// Imports a two-player zero-sum or constant-sum OpenSpiel game with perfect recall by one
/// iterative traversal: information sets from `information_state_string`, chance from
/// `chance_outcomes()` (probabilities read as the simplest fractions that round to them),
/// payoffs from `returns()`. Simultaneous-move games go through `pyspiel.convert_to_turn_based`.
/// Refuses more than `max_nodes` nodes. `progress` shows a counter on stderr (default: when
/// stderr is a terminal). Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (game, max_nodes = 20_000_000, progress = None))]
pub fn from_openspiel(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    max_nodes: usize,
    progress: Option<bool>,
) -> PyResult<Game> {
    let name: String = game.str()?.extract()?;
    let game = checked_game(game)?;
    let show = progress.unwrap_or_else(|| std::io::stderr().is_terminal());
    let bar = if show {
        ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(
            ProgressStyle::with_template(
                "{spinner} importing {msg}: {pos} nodes ({per_sec}, {elapsed})",
            )
            .expect("valid template"),
        )
    } else {
        ProgressBar::hidden()
    };
    bar.set_message(name.clone());

    let mut builder = GameBuilder::new(name.clone(), "Player 0", "Player 1");
    let mut numbers = Rationals(HashMap::new());
    let mut infosets: InfosetCache = HashMap::new();
    let mut stack: Vec<(Bound<'_, PyAny>, NodeRef)> =
        vec![(game.call_method0("new_initial_state")?, builder.root())];
    let (is_terminal, is_chance, current_player, returns, chance_outcomes) = (
        intern!(py, "is_terminal"),
        intern!(py, "is_chance_node"),
        intern!(py, "current_player"),
        intern!(py, "returns"),
        intern!(py, "chance_outcomes"),
    );
    let (legal_actions, info_string, child) = (
        intern!(py, "legal_actions"),
        intern!(py, "information_state_string"),
        intern!(py, "child"),
    );
    let mut visited = 0usize;
    let gerr =
        |e: bluff::game::GameError| GameError::new_err(format!("OpenSpiel game {name}: {e}"));
    while let Some((state, node)) = stack.pop() {
        visited += 1;
        if visited.is_multiple_of(TICK) {
            bar.set_position(visited as u64);
            py.check_signals()?;
        }
        if state.call_method0(is_terminal)?.extract::<bool>()? {
            let r: Vec<f64> = state.call_method0(returns)?.extract()?;
            let what = || format!("OpenSpiel game {name}: a terminal's return");
            let payoffs = [numbers.get(r[0], &what)?, numbers.get(r[1], &what)?];
            builder.terminal(node, payoffs).map_err(gerr)?;
            continue;
        }
        let children: Vec<(i64, NodeRef)> = if state.call_method0(is_chance)?.extract::<bool>()? {
            let outcomes: Vec<(i64, f64)> = state.call_method0(chance_outcomes)?.extract()?;
            let ids: Vec<i64> = outcomes.iter().map(|o| o.0).collect();
            let labels = action_labels(&state, -1, &ids)?;
            let what = || format!("OpenSpiel game {name}: a chance probability");
            let mut probs = Vec::with_capacity(outcomes.len());
            for &(_, p) in &outcomes {
                probs.push(numbers.get(p, &what)?);
            }
            // OpenSpiel's doubles may sum to 1 only within rounding: rescale exactly then.
            let sum: Rational = probs.iter().sum();
            if !sum.is_one() {
                let off = (&sum - Rational::one()).abs();
                if off > Rational::new(1.into(), 1_000_000_000.into()) || sum.is_zero() {
                    return Err(GameError::new_err(format!(
                        "OpenSpiel game {name}: chance probabilities {:?} sum to {}, not 1",
                        outcomes.iter().map(|o| o.1).collect::<Vec<_>>(),
                        bluff::scalar::rational_to_f64(&sum)
                    )));
                }
                for p in probs.iter_mut() {
                    *p = &*p / &sum;
                }
            }
            let kids = builder
                .chance(node, labels.into_iter().zip(probs).collect())
                .map_err(gerr)?;
            ids.into_iter().zip(kids).collect()
        } else {
            let player: i64 = state.call_method0(current_player)?.extract()?;
            if !(0..=1).contains(&player) {
                return Err(UnsupportedGameError::new_err(format!(
                    "OpenSpiel game {name}: a state's current player is {player}, expected 0 or 1"
                )));
            }
            let label: String = state.call_method1(info_string, (player,))?.extract()?;
            let legal: Vec<i64> = state.call_method0(legal_actions)?.extract()?;
            let key = (player as usize, label);
            let labels = match infosets.get(&key) {
                Some((ids, labels)) if *ids == legal => labels.clone(),
                Some((ids, _)) => {
                    return Err(GameError::new_err(format!(
                        "OpenSpiel game {name}: information set {:?} of player {player} has legal actions {legal:?} at one state and {ids:?} at another",
                        key.1
                    )))
                }
                None => {
                    let labels = action_labels(&state, player, &legal)?;
                    infosets.insert(key.clone(), (legal.clone(), labels.clone()));
                    labels
                }
            };
            let kids = builder
                .decision(node, key.0, &key.1, &labels)
                .map_err(gerr)?;
            legal.into_iter().zip(kids).collect()
        };
        if builder.num_nodes() > max_nodes {
            return Err(UnsupportedGameError::new_err(format!(
                "OpenSpiel game {name} has more than max_nodes={max_nodes} nodes; pass a larger max_nodes to import it"
            )));
        }
        // Reverse so that the first action's subtree is built first (depth-first order).
        for (action, kid) in children.into_iter().rev() {
            stack.push((state.call_method1(child, (action,))?, kid));
        }
    }
    bar.set_position(visited as u64);
    bar.finish_and_clear();
    let game = py.allow_threads(|| builder.build()).map_err(gerr)?;
    Ok(Game::new(game))
}
