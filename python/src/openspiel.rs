//! `bluff.from_openspiel`: a recognised game built natively from bluff's built-in (see
//! `bluff::games::openspiel`), any other by one depth-first traversal into bluff's builder.
//!
//! Two threads share the work: this one (holding the GIL) walks the pyspiel states with as
//! few Python calls per node as the tree allows and sends compact records down a bounded
//! channel; a second thread, which never touches Python, replays them into `GameBuilder`
//! in the same depth-first order and compiles the game. The Python calls set the pace, and
//! only the states on the current path (and their unexpanded siblings) are alive.

use crate::convert::float_to_rational;
use crate::errors::{GameError, UnsupportedGameError};
use crate::game::Game;
use bluff::game::{self as model, GameBuilder, NodeRef};
use bluff::games::openspiel::{NativeGame, ParamValue};
use bluff::scalar::Rational;
use num_traits::{One, Signed, Zero};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use std::collections::{BTreeMap, HashMap};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;

/// How many nodes between progress updates and Ctrl-C checks.
const TICK: usize = 1 << 13;
/// Records per message to the builder thread, and messages in flight: enough to keep both
/// threads busy, small enough to bound the memory in between (a few MB).
const BATCH: usize = 2048;
const IN_FLIGHT: usize = 8;

/// Reads a pybind11 enum's member name (`gt.utility.name` -> `"ZERO_SUM"`).
fn enum_name(obj: &Bound<'_, PyAny>, attr: &str) -> PyResult<String> {
    obj.getattr(attr)?.getattr("name")?.extract()
}

/// What the game says of its payoffs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Declared {
    /// Zero-sum or constant-sum: the builder's exact check confirms it.
    ConstantSum,
    /// General-sum: imported as a constant-sum game when every terminal's returns sum exactly
    /// to one constant (OpenSpiel declares some such games general-sum), else as general-sum.
    GeneralSum,
}

/// Checks the game type; returns the game to traverse (simultaneous-move games through
/// OpenSpiel's own turn-based conversion) and what it declares of its payoffs.
fn checked_game<'py>(game: &Bound<'py, PyAny>) -> PyResult<(Bound<'py, PyAny>, Declared)> {
    let py = game.py();
    let name: String = game.str()?.extract()?;
    let gt = game.call_method0("get_type")?;
    let players: i64 = game.call_method0("num_players")?.extract()?;
    if players != 2 {
        return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} has {players} players; bluff solves two-player games"
        )));
    }
    let declared = match enum_name(&gt, "utility")?.as_str() {
        "ZERO_SUM" | "CONSTANT_SUM" => Declared::ConstantSum,
        "GENERAL_SUM" => Declared::GeneralSum,
        utility => {
            return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} is {} ({utility}); bluff solves zero-sum and constant-sum games",
            utility.to_lowercase().replace('_', "-")
        )))
        }
    };
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
    let game = match enum_name(&gt, "dynamics")?.as_str() {
        "SEQUENTIAL" => game.clone(),
        "SIMULTANEOUS" => py
            .import("pyspiel")?
            .call_method1("convert_to_turn_based", (game,))?,
        other => {
            return Err(UnsupportedGameError::new_err(format!(
            "OpenSpiel game {name} has {other} dynamics; bluff takes sequential and simultaneous-move games"
        )))
        }
    };
    Ok((game, declared))
}

/// A fast non-cryptographic hasher for the information-state strings (FxHash's word-at-a-time
/// multiply-rotate): OpenSpiel's strings are long (130 bytes in goofspiel) and are hashed once
/// per decision node, where SipHash cost more than the pyspiel call that made them.
#[derive(Default, Clone, Copy)]
struct FxHasher(u64);

impl FxHasher {
    const K: u64 = 0xf135_7aea_2e62_a9c5;

    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(Self::K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(last));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// Fast-hashed map (see [`FxHasher`]).
type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// One visited node (or a new information set) as the traversal sends it to the builder
/// thread, which pops the matching node off its own depth-first stack.
enum Record {
    /// A new information set; `Decision` records refer to sets by their order of arrival.
    NewSet {
        player: usize,
        label: String,
        actions: Vec<String>,
    },
    /// A decision node in a set announced by an earlier `NewSet`.
    Decision { set: u32 },
    /// A chance node's outcome labels and OpenSpiel's probabilities.
    Chance {
        labels: Vec<String>,
        probs: Vec<f64>,
    },
    /// A terminal's `returns()`.
    Terminal([f64; 2]),
}

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

/// True when the Python list of ints `list` equals `ids` (compared in place, no copy).
fn same_ids(list: &Bound<'_, PyList>, ids: &[i64]) -> PyResult<bool> {
    if list.len() != ids.len() {
        return Ok(false);
    }
    for (item, &id) in list.iter().zip(ids) {
        if item.extract::<i64>()? != id {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Imports a two-player zero-sum or constant-sum OpenSpiel game with perfect recall.
/// `kuhn_poker`, `leduc_poker`, `liars_dice` and imperfect-information `goofspiel`, when their
/// parameters give a game bluff has built in with OpenSpiel's rules, are built natively from
/// the built-in with OpenSpiel's labels (the same game as the traversal gives); `native=False`
/// always traverses, `native=True` refuses any other game. Otherwise one depth-first traversal:
/// information sets from `information_state_string`, chance from `chance_outcomes()`
/// (probabilities read as the simplest fractions that round to them), payoffs from
/// `returns()`; simultaneous-move games go through `pyspiel.convert_to_turn_based`. Refuses more
/// than `max_nodes` nodes. `progress` shows a counter on stderr (default: when stderr is a
/// terminal). Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (game, max_nodes = 20_000_000, progress = None, native = None))]
pub fn from_openspiel(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    max_nodes: usize,
    progress: Option<bool>,
    native: Option<bool>,
) -> PyResult<Game> {
    for method in ["new_initial_state", "num_players", "get_type"] {
        if !game.hasattr(method)? {
            return Err(PyTypeError::new_err(format!(
                "from_openspiel takes a pyspiel game (or an object with its methods), got {} \
                 without {method}()",
                game.get_type().name()?
            )));
        }
    }
    let name: String = game.str()?.extract()?;
    if native != Some(false) {
        // A pyspiel-like object without OpenSpiel's type information is traversed.
        match recognise(game, &name) {
            Ok(Some(known)) => return build_native(py, known, &name, max_nodes),
            Ok(None) | Err(_) if native.is_none() => {}
            Ok(None) | Err(_) => {
                return Err(UnsupportedGameError::new_err(format!(
                    "OpenSpiel game {name} has no identical built-in game in bluff (native=True \
                     takes kuhn_poker, leduc_poker, liars_dice with bidding_rule=reset-face and \
                     goofspiel with imp_info=True, two players, default other parameters); pass \
                     native=False or leave native unset to traverse it"
                )))
            }
        }
    }
    let (game, declared) = checked_game(game)?;
    let show = progress.unwrap_or_else(|| std::io::stderr().is_terminal());
    let mut bar = ProgressLine::new(show, &name);

    // The walk makes millions of short-lived lists and tuples (legal actions, chance
    // outcomes) but no reference cycles: Python's cyclic collector, which they would keep
    // triggering, is paused meanwhile.
    let gc = py.import("gc")?;
    let collecting: bool = gc.call_method0("isenabled")?.extract()?;
    if collecting {
        gc.call_method0("disable")?;
    }
    let abort = AtomicBool::new(false);
    let (walked, built) = std::thread::scope(|scope| {
        // The builder thread starts with the second batch: small games are replayed here,
        // after the walk, without a thread to start and wait for.
        let mut worker = None;
        let mut send = |batch: Vec<Record>| -> bool {
            let (sender, _) = worker.get_or_insert_with(|| {
                let (sender, receiver) = mpsc::sync_channel::<Vec<Record>>(IN_FLIGHT);
                let replaying = scope.spawn(|| replay(&name, declared, receiver, &abort));
                (sender, replaying)
            });
            // Blocking here (without the GIL) while the builder is behind bounds the memory.
            py.allow_threads(|| sender.send(batch)).is_ok()
        };
        let walked = walk(py, &game, &name, max_nodes, &mut bar, &mut send);
        match (walked, worker) {
            (Ok(last), None) => {
                let (sender, receiver) = mpsc::sync_channel(1);
                sender.send(last).expect("the receiver is alive");
                drop(sender);
                (Ok(()), Ok(replay(&name, declared, receiver, &abort)))
            }
            (walked, Some((sender, replaying))) => {
                let walked = match walked {
                    Ok(last) => {
                        let _ = py.allow_threads(|| sender.send(last));
                        Ok(())
                    }
                    Err(e) => {
                        abort.store(true, Ordering::Relaxed);
                        Err(e)
                    }
                };
                // Closing the channel only now: the builder must not compile a cut tree.
                drop(sender);
                // The builder thread compiles the game after the last record: without the GIL.
                (walked, py.allow_threads(|| replaying.join()))
            }
            (Err(e), None) => (Err(e), Ok(Err(None))),
        }
    });
    bar.finish();
    if collecting {
        gc.call_method0("enable")?;
    }
    let built = built.map_err(|_| GameError::new_err("the builder thread panicked"))?;
    match (walked, built) {
        (Err(e), _) => Err(e),
        // A refused record stops the builder first; the walk then only saw the channel close.
        (_, Err(Some(Refusal::Invalid(message)))) => Err(GameError::new_err(message)),
        (Ok(()), Ok(game)) => {
            if declared == Declared::GeneralSum && game.is_constant_sum() {
                crate::game::warn(
                    py,
                    &format!(
                        "OpenSpiel game {name} is declared general-sum, but every terminal's \
                         returns sum exactly to {}: imported as a constant-sum game (values are \
                         in the game's own payoffs)",
                        bluff::scalar::format_rational(&game.constant_sum)
                    ),
                )?;
            }
            Ok(Game::new(game))
        }
        (Ok(()), Err(None)) => unreachable!("the builder stops early only on error or abort"),
    }
}

/// The built-in game equal to `game`, if any: from its short name and `get_parameters()`
/// (the game inside `turn_based_simultaneous_game` for a converted game). `name` is
/// `str(game)`, which OpenSpiel writes as `short_name(parameters)`: the short name is read
/// from it rather than from `get_type()`, which copies the whole game type into Python.
pub(crate) fn recognise(game: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<NativeGame>> {
    let short = name.split('(').next().unwrap_or_default().to_string();
    let params = game.call_method0("get_parameters")?;
    let mut params = params.downcast::<PyDict>()?.clone();
    let (short, turn_based) = if short == "turn_based_simultaneous_game" {
        let Some(inner) = params.get_item("game")? else {
            return Ok(None);
        };
        params = inner.downcast::<PyDict>()?.copy()?;
        let Some(inner_name) = params.get_item("name")? else {
            return Ok(None);
        };
        let inner_name: String = inner_name.extract()?;
        params.del_item("name")?;
        (inner_name, true)
    } else {
        (short, false)
    };
    let mut map = BTreeMap::new();
    for (key, value) in params.iter() {
        // bool before int: Python's bool is an int.
        let value = if let Ok(b) = value.downcast::<PyBool>() {
            ParamValue::Bool(b.is_true())
        } else if let Ok(i) = value.downcast::<PyInt>() {
            ParamValue::Int(i.extract()?)
        } else if let Ok(f) = value.downcast::<PyFloat>() {
            ParamValue::Double(f.value())
        } else if let Ok(s) = value.downcast::<PyString>() {
            ParamValue::Str(s.to_str()?.to_string())
        } else {
            return Ok(None);
        };
        map.insert(key.extract::<String>()?, value);
    }
    Ok(NativeGame::recognise(&short, map, turn_based))
}

/// Builds a recognised game from bluff's built-in (without the GIL; a Ctrl-C meanwhile is
/// raised when it is done).
fn build_native(py: Python<'_>, known: NativeGame, name: &str, max_nodes: usize) -> PyResult<Game> {
    match known.num_nodes() {
        Some(n) if n <= max_nodes as u64 => {}
        _ => {
            return Err(UnsupportedGameError::new_err(format!(
                "OpenSpiel game {name} has more than max_nodes={max_nodes} nodes; pass a larger max_nodes to import it"
            )))
        }
    }
    let game = py
        .allow_threads(|| known.build(name))
        .map_err(|e| GameError::new_err(format!("OpenSpiel game {name}: {e:#}")))?;
    py.check_signals()?;
    Ok(Game::new(game))
}

/// The Python side: walks the pyspiel states depth-first, making one record per node, and
/// hands full batches to `send`; returns the last, partial batch. Returns early (with an
/// empty batch) when `send` says the builder has hung up after an error of its own.
fn walk(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    name: &str,
    max_nodes: usize,
    bar: &mut ProgressLine,
    send: &mut dyn FnMut(Vec<Record>) -> bool,
) -> PyResult<Vec<Record>> {
    let player_ids = py.import("pyspiel")?.getattr("PlayerId")?;
    let terminal_id: i64 = player_ids.getattr("TERMINAL")?.extract()?;
    let chance_id: i64 = player_ids.getattr("CHANCE")?.extract()?;
    let (current_player, returns, chance_outcomes) = (
        intern!(py, "current_player"),
        intern!(py, "returns"),
        intern!(py, "chance_outcomes"),
    );
    let (legal_actions, info_string, child) = (
        intern!(py, "legal_actions"),
        intern!(py, "information_state_string"),
        intern!(py, "child"),
    );

    // Information-state strings are hashed once per node and copied once per set.
    let mut set_ids: [FxMap<Box<str>, u32>; 2] = [FxMap::default(), FxMap::default()];
    let mut set_legal: Vec<Vec<i64>> = Vec::new();
    let mut batch: Vec<Record> = Vec::with_capacity(BATCH);
    // Depth-first: only the current path's states and their unexpanded siblings are alive.
    let mut stack: Vec<Bound<'_, PyAny>> = vec![game.call_method0("new_initial_state")?];
    let mut nodes = 1usize;
    let mut visited = 0usize;
    let mut actions: Vec<i64> = Vec::new();
    while let Some(state) = stack.pop() {
        visited += 1;
        if visited.is_multiple_of(TICK) {
            bar.show(visited, set_legal.len());
            py.check_signals()?;
        }
        // One call classifies the node: OpenSpiel's current player is TERMINAL (-4) at
        // terminals and CHANCE (-1) at chance nodes.
        let player: i64 = state.call_method0(current_player)?.extract()?;
        actions.clear();
        if player == terminal_id {
            let r = state.call_method0(returns)?;
            let r = r.downcast::<PyList>()?;
            if r.len() != 2 {
                return Err(UnsupportedGameError::new_err(format!(
                    "OpenSpiel game {name}: a terminal's returns have {} entries, expected 2",
                    r.len()
                )));
            }
            batch.push(Record::Terminal([
                r.get_item(0)?.extract()?,
                r.get_item(1)?.extract()?,
            ]));
        } else if player == chance_id {
            let outcomes: Vec<(i64, f64)> = state.call_method0(chance_outcomes)?.extract()?;
            actions.extend(outcomes.iter().map(|o| o.0));
            batch.push(Record::Chance {
                labels: action_labels(&state, chance_id, &actions)?,
                probs: outcomes.iter().map(|o| o.1).collect(),
            });
        } else if player == 0 || player == 1 {
            let p = player as usize;
            let label = state.call_method1(info_string, (player,))?;
            let label = label.downcast::<PyString>()?.to_str()?;
            let legal = state.call_method0(legal_actions)?;
            let legal = legal.downcast::<PyList>()?;
            let set = match set_ids[p].get(label) {
                Some(&set) => {
                    let known = &set_legal[set as usize];
                    if !same_ids(legal, known)? {
                        return Err(GameError::new_err(format!(
                            "OpenSpiel game {name}: information set {label:?} of player {player} has legal actions {:?} at one state and {known:?} at another",
                            legal.extract::<Vec<i64>>()?,
                        )));
                    }
                    set
                }
                None => {
                    let ids: Vec<i64> = legal.extract()?;
                    batch.push(Record::NewSet {
                        player: p,
                        label: label.to_owned(),
                        actions: action_labels(&state, player, &ids)?,
                    });
                    let set = set_legal.len() as u32;
                    set_legal.push(ids);
                    set_ids[p].insert(label.into(), set);
                    set
                }
            };
            actions.extend_from_slice(&set_legal[set as usize]);
            batch.push(Record::Decision { set });
        } else {
            return Err(UnsupportedGameError::new_err(format!(
                "OpenSpiel game {name}: a state's current player is {player}, expected a player (0 or 1), chance ({chance_id}) or terminal ({terminal_id})"
            )));
        }
        nodes += actions.len();
        if nodes > max_nodes {
            return Err(UnsupportedGameError::new_err(format!(
                "OpenSpiel game {name} has more than max_nodes={max_nodes} nodes; pass a larger max_nodes to import it"
            )));
        }
        // Reverse so that the first action's subtree comes first (the builder's order too).
        for &action in actions.iter().rev() {
            stack.push(state.call_method1(child, (action,))?);
        }
        if batch.len() >= BATCH && !send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH))) {
            return Ok(Vec::new()); // the builder stopped on an error, which it reports
        }
    }
    Ok(batch)
}

/// The import's progress, one line on stderr redrawn in place (at most ten times a second):
/// nodes, information sets, nodes per second and the time so far; cleared when done.
struct ProgressLine {
    name: Option<String>,
    start: std::time::Instant,
    last: std::time::Instant,
    drawn: bool,
}

impl ProgressLine {
    /// A line for `name`, drawn only when `show`.
    fn new(show: bool, name: &str) -> Self {
        let now = std::time::Instant::now();
        ProgressLine {
            name: show.then(|| name.to_string()),
            start: now,
            last: now,
            drawn: false,
        }
    }

    /// Redraws the line (if due).
    fn show(&mut self, nodes: usize, sets: usize) {
        use std::io::Write;
        let Some(name) = &self.name else { return };
        if self.drawn && self.last.elapsed() < std::time::Duration::from_millis(100) {
            return;
        }
        self.last = std::time::Instant::now();
        let seconds = self.start.elapsed().as_secs_f64();
        let rate = nodes as f64 / seconds.max(1e-3);
        let mut err = std::io::stderr().lock();
        // `\r` and "erase to the end of the line": the terminal this is drawn on only.
        let _ = write!(
            err,
            "\r\x1b[Kimporting {name}: {nodes} nodes, {sets} information sets, {rate:.0} nodes/s \
             ({seconds:.0} s)"
        );
        let _ = err.flush();
        self.drawn = true;
    }

    /// Clears the line.
    fn finish(&mut self) {
        use std::io::Write;
        if self.drawn {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
        }
    }
}

/// Why the builder side refused a game.
enum Refusal {
    /// An invalid game (bad probabilities, inconsistent sets, imperfect recall...).
    Invalid(String),
}

/// The builder side: replays the records into a `GameBuilder` in the walk's depth-first order
/// and compiles the game. `Err(None)` when told to stop, `Err(Some(refusal))` on a refusal.
fn replay(
    name: &str,
    declared: Declared,
    receiver: mpsc::Receiver<Vec<Record>>,
    abort: &AtomicBool,
) -> Result<model::Game, Option<Refusal>> {
    let refuse =
        |e: model::GameError| Some(Refusal::Invalid(format!("OpenSpiel game {name}: {e}")));
    let mut builder = GameBuilder::new(name, "Player 0", "Player 1");
    let mut numbers: FxMap<u64, Rational> = FxMap::default();
    let mut exact = |x: f64, what: &str| -> Result<Rational, Option<Refusal>> {
        if let Some(r) = numbers.get(&x.to_bits()) {
            return Ok(r.clone());
        }
        let r = float_to_rational(x).ok_or_else(|| {
            Some(Refusal::Invalid(format!(
                "OpenSpiel game {name}: {what} {x} is not finite"
            )))
        })?;
        numbers.insert(x.to_bits(), r.clone());
        Ok(r)
    };
    // Normalised chance distributions, keyed by the doubles' bit patterns.
    let mut distributions: FxMap<Vec<u64>, Vec<Rational>> = FxMap::default();
    let mut sets: Vec<(usize, String, Vec<String>)> = Vec::new();
    let mut stack: Vec<NodeRef> = vec![builder.root()];
    for batch in receiver {
        if abort.load(Ordering::Relaxed) {
            return Err(None);
        }
        for record in batch {
            let kids = match record {
                Record::NewSet {
                    player,
                    label,
                    actions,
                } => {
                    sets.push((player, label, actions));
                    continue;
                }
                Record::Decision { set } => {
                    let node = stack.pop().expect("the walk sends one record per node");
                    let (player, label, actions) = &sets[set as usize];
                    builder
                        .decision(node, *player, label, actions)
                        .map_err(refuse)?
                }
                Record::Chance { labels, probs } => {
                    let node = stack.pop().expect("the walk sends one record per node");
                    let bits: Vec<u64> = probs.iter().map(|p| p.to_bits()).collect();
                    let exact_probs = match distributions.get(&bits) {
                        Some(p) => p.clone(),
                        None => {
                            let p = chance_distribution(name, &probs, &mut exact)?;
                            distributions.insert(bits, p.clone());
                            p
                        }
                    };
                    builder
                        .chance(node, labels.into_iter().zip(exact_probs).collect())
                        .map_err(refuse)?
                }
                Record::Terminal([r0, r1]) => {
                    let node = stack.pop().expect("the walk sends one record per node");
                    let payoffs = [
                        exact(r0, "a terminal's return")?,
                        exact(r1, "a terminal's return")?,
                    ];
                    builder.terminal(node, payoffs).map_err(refuse)?;
                    continue;
                }
            };
            stack.extend(kids.into_iter().rev());
        }
    }
    if abort.load(Ordering::Relaxed) {
        return Err(None);
    }
    let game = builder.build().map_err(refuse)?;
    if declared == Declared::ConstantSum && !game.is_constant_sum() {
        return Err(Some(Refusal::Invalid(format!(
            "OpenSpiel game {name} is declared zero-sum or constant-sum, but its terminals' \
             returns do not sum to one constant"
        ))));
    }
    Ok(game)
}

/// A chance node's probabilities as exact fractions; OpenSpiel's doubles may sum to 1 only
/// within rounding, and are then rescaled exactly.
fn chance_distribution(
    name: &str,
    probs: &[f64],
    exact: &mut impl FnMut(f64, &str) -> Result<Rational, Option<Refusal>>,
) -> Result<Vec<Rational>, Option<Refusal>> {
    let mut exact_probs = Vec::with_capacity(probs.len());
    for &p in probs {
        exact_probs.push(exact(p, "a chance probability")?);
    }
    let sum: Rational = exact_probs.iter().sum();
    if !sum.is_one() {
        let off = (&sum - Rational::one()).abs();
        if off > Rational::new(1.into(), 1_000_000_000.into()) || sum.is_zero() {
            return Err(Some(Refusal::Invalid(format!(
                "OpenSpiel game {name}: chance probabilities {probs:?} sum to {}, not 1",
                bluff::scalar::rational_to_f64(&sum)
            ))));
        }
        for p in exact_probs.iter_mut() {
            *p = &*p / &sum;
        }
    }
    Ok(exact_probs)
}
