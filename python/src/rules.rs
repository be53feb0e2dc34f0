//! `bluff.solve_rules`: the sampling solvers on a game stated by its rules in Python, without
//! enumerating it: any object with pyspiel's state protocol (a pyspiel state, or a small
//! class of one's own), adapted to the library's `Rules` trait.
//!
//! Why an adapter rather than an import: `bluff.from_openspiel` enumerates the whole tree into
//! an arena, which games of 1e9 histories do not fit; the sampling solvers visit a few hundred
//! histories an iteration and keep memory per information set, so they can play the rules
//! directly, one Python call per step (slower per node, but general).
//!
//! The protocol, on a state object (pyspiel's names and codes):
//! - `current_player()`: 0 or 1 to move, -1 at chance, -4 once the game is over;
//! - `legal_actions()`: the mover's actions as integers (in a fixed order per information set);
//! - `chance_outcomes()`: at chance, `[(action, probability), ...]` (floats or `Fraction`s);
//! - `child(action)`: the next state (a new object; the old one is not changed);
//! - `information_state_string(player)`: the mover's information set, as a string;
//! - `returns()`: at the end, the two players' payoffs (constant sum).
//!
//! Each state is asked once, when it is made, and its answers kept beside it; information-set
//! strings are interned per player into dense keys (exact: no hashing of strings into keys),
//! numbered as first met; a checkpoint keeps the strings in that order
//! (`Rules::interned_names`), so a resumed run numbers every set as the first run did.
//! A Python exception inside a step is kept, the walk is cut short (the state turns terminal
//! with payoff 0), and the exception is raised when the run returns.

use crate::convert::to_py_err;
use crate::hooks::PythonHooks;
use bluff::game::{Rules, Turn};
use bluff::games::openspiel::NativeGame;
use bluff::scalar::{f64_to_rational, Rational};
use bluff::solve::registry::{self, Family, SamplingOptions};
use bluff::solve::sampling::{
    solve_rules as solve_on_rules, solve_spec, Engine, SamplingOutcome, SamplingRequest,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::borrow::Cow;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// pyspiel's `PlayerId.CHANCE`.
const CHANCE: i64 = -1;
/// pyspiel's `PlayerId.TERMINAL`.
const TERMINAL: i64 = -4;

/// A state with its answers to the protocol.
pub struct Node {
    /// The Python state (`None` after an error: a terminal of payoff 0).
    state: Option<Py<PyAny>>,
    turn: Turn,
    /// Action ids (legal actions, or chance outcomes).
    actions: Vec<i64>,
    /// Chance probabilities.
    probs: Vec<f64>,
    /// The mover's information-set key.
    key: u64,
    /// Player 0's payoff at a terminal.
    payoff0: f64,
}

impl Node {
    /// A terminal of payoff 0 with no Python state (filled in by [`PyRules::node`], or left
    /// so after an error).
    fn terminal() -> Self {
        Node {
            state: None,
            turn: Turn::Terminal,
            actions: Vec::new(),
            probs: Vec::new(),
            key: 0,
            payoff0: 0.0,
        }
    }
}

/// The information sets met so far: per player, string to key and back, with action counts.
#[derive(Default)]
struct Interner {
    ids: [HashMap<String, u64>; 2],
    names: [Vec<String>; 2],
}

/// A Python game's rules, as the library's [`Rules`].
pub struct PyRules {
    root: Py<PyAny>,
    name: String,
    sets: Mutex<Interner>,
    error: Mutex<Option<PyErr>>,
}

impl PyRules {
    /// Asks `state` everything the solvers need, once.
    fn node(&self, py: Python<'_>, state: Bound<'_, PyAny>) -> PyResult<Node> {
        let player: i64 = state.call_method0("current_player")?.extract()?;
        let mut node = Node::terminal();
        match player {
            TERMINAL => {
                let r: Vec<f64> = state.call_method0("returns")?.extract()?;
                if r.len() != 2 || !r.iter().all(|x| x.is_finite()) {
                    return Err(PyValueError::new_err(format!(
                        "{}: a terminal's returns() is {r:?}; expected two finite payoffs",
                        self.name
                    )));
                }
                node.payoff0 = r[0];
            }
            CHANCE => {
                let outcomes = state.call_method0("chance_outcomes")?;
                for item in outcomes.try_iter()? {
                    let (action, prob): (i64, Bound<'_, PyAny>) = item?.extract()?;
                    let p: f64 = prob.call_method0("__float__")?.extract()?;
                    if !(p.is_finite() && p > 0.0) {
                        return Err(PyValueError::new_err(format!(
                            "{}: chance outcome {action} has probability {p}",
                            self.name
                        )));
                    }
                    node.actions.push(action);
                    node.probs.push(p);
                }
                let total: f64 = node.probs.iter().sum();
                if node.actions.is_empty() || (total - 1.0).abs() > 1e-9 {
                    return Err(PyValueError::new_err(format!(
                        "{}: chance outcomes' probabilities sum to {total}",
                        self.name
                    )));
                }
                node.turn = Turn::Chance;
            }
            0 | 1 => {
                let p = player as usize;
                node.actions = state.call_method0("legal_actions")?.extract()?;
                if node.actions.is_empty() {
                    return Err(PyValueError::new_err(format!(
                        "{}: player {player} to move with no legal action",
                        self.name
                    )));
                }
                let label: String = state
                    .call_method1("information_state_string", (player,))?
                    .extract()?;
                let mut sets = self.sets.lock().expect("not poisoned");
                let next = sets.names[p].len() as u64;
                let key = *sets.ids[p].entry(label.clone()).or_insert(next);
                if key == next {
                    sets.names[p].push(label);
                }
                node.key = key;
                node.turn = Turn::Player(p);
            }
            other => {
                return Err(PyValueError::new_err(format!(
                    "{}: current_player() is {other}; expected 0, 1, -1 (chance) or -4 \
                     (terminal); simultaneous moves go through pyspiel.convert_to_turn_based",
                    self.name
                )))
            }
        }
        node.state = Some(state.unbind());
        let _ = py;
        Ok(node)
    }

    /// Keeps the first error; the state becomes a terminal of payoff 0.
    fn failed(&self, e: PyErr) -> Arc<Node> {
        self.error.lock().expect("not poisoned").get_or_insert(e);
        Arc::new(Node::terminal())
    }

    /// Whether a step raised.
    fn has_failed(&self) -> bool {
        self.error.lock().expect("not poisoned").is_some()
    }
}

impl Rules for PyRules {
    type State = Arc<Node>;

    fn name(&self) -> String {
        self.name.clone()
    }
    fn interned_names(&self) -> Option<[Vec<String>; 2]> {
        Some(self.sets.lock().expect("not poisoned").names.clone())
    }
    fn restore_interned_names(&self, names: &[Vec<String>; 2]) -> bool {
        let mut sets = self.sets.lock().expect("not poisoned");
        // The sets met so far (the root's, when a player moves first) must be the first run's.
        if (0..2).any(|p| !names[p].starts_with(&sets.names[p])) {
            return false;
        }
        for p in 0..2 {
            for name in &names[p][sets.names[p].len()..] {
                let next = sets.names[p].len() as u64;
                if sets.ids[p].insert(name.clone(), next).is_some() {
                    return false;
                }
                sets.names[p].push(name.clone());
            }
        }
        true
    }
    fn root(&self) -> Arc<Node> {
        Python::with_gil(|py| match self.node(py, self.root.bind(py).clone()) {
            Ok(n) => Arc::new(n),
            Err(e) => self.failed(e),
        })
    }
    fn turn(&self, s: &Arc<Node>) -> Turn {
        s.turn
    }
    fn num_actions(&self, s: &Arc<Node>) -> usize {
        s.actions.len()
    }
    fn apply(&self, s: &mut Arc<Node>, action: usize) {
        if self.has_failed() {
            *s = self.failed(PyValueError::new_err("stopped"));
            return;
        }
        let next = Python::with_gil(|py| {
            let state = s.state.as_ref().expect("a live state").bind(py);
            state
                .call_method1("child", (s.actions[action],))
                .and_then(|child| self.node(py, child))
        });
        *s = match next {
            Ok(n) => Arc::new(n),
            Err(e) => self.failed(e),
        };
    }
    fn chance_prob(&self, s: &Arc<Node>, outcome: usize) -> f64 {
        s.probs[outcome]
    }
    fn chance_prob_exact(&self, s: &Arc<Node>, outcome: usize) -> Rational {
        f64_to_rational(s.probs[outcome]).unwrap_or_default()
    }
    fn infoset_key(&self, s: &Arc<Node>) -> u64 {
        s.key
    }
    fn payoff0(&self, s: &Arc<Node>) -> f64 {
        s.payoff0
    }
    fn payoff0_exact(&self, s: &Arc<Node>) -> Rational {
        f64_to_rational(s.payoff0).unwrap_or_default()
    }
    fn infoset_label(&self, s: &Arc<Node>, out: &mut String) {
        out.clear();
        if let Turn::Player(p) = s.turn {
            let sets = self.sets.lock().expect("not poisoned");
            out.push_str(&sets.names[p][s.key as usize]);
        }
    }
    fn action_label(&self, s: &Arc<Node>, action: usize) -> Cow<'_, str> {
        Cow::Owned(s.actions[action].to_string())
    }
    fn chance_label(&self, s: &Arc<Node>, outcome: usize) -> Cow<'_, str> {
        Cow::Owned(s.actions[outcome].to_string())
    }
}

/// What `bluff.solve_rules` returns.
#[pyclass(module = "bluff", frozen, get_all)]
pub struct RulesSolveResult {
    /// The algorithm that ran.
    pub algo: String,
    /// The average strategy: per player, {information-set string: [probability of each legal
    /// action, in `legal_actions()` order]} for every information set the solver reached.
    pub policy: Vec<HashMap<String, Vec<f64>>>,
    /// Exploitability of the average strategy by the streaming exact best response (a walk of
    /// every history through the Python rules), or `None` with `evaluate=False`.
    pub exploitability: Option<f64>,
    /// Iterations run (one traversal per player each).
    pub iterations: u64,
    /// Solving time in seconds (without the best response).
    pub seconds: f64,
    /// Seed, traversals, information sets reached, bytes per information set, best-response
    /// seconds.
    pub stats: Py<PyDict>,
}

#[pymethods]
impl RulesSolveResult {
    /// Pickles field by field (see `bluff._bluff._unpickle_rules_result`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, PyObject)> {
        let f = py
            .import("bluff._bluff")?
            .getattr("_unpickle_rules_result")?;
        let args = (
            self.algo.clone(),
            self.policy.clone(),
            self.exploitability,
            self.iterations,
            self.seconds,
            self.stats.clone_ref(py),
        );
        Ok((f, args.into_pyobject(py)?.into_any().unbind()))
    }

    fn __repr__(&self) -> String {
        format!(
            "<bluff.RulesSolveResult algo={:?} iterations={} exploitability={} seconds={:.3}>",
            self.algo,
            self.iterations,
            self.exploitability
                .map_or("None".into(), |e| format!("{e:?}")),
            self.seconds
        )
    }
}

/// Rebuilds a pickled `RulesSolveResult`.
#[pyfunction]
pub fn _unpickle_rules_result(
    algo: String,
    policy: Vec<HashMap<String, Vec<f64>>>,
    exploitability: Option<f64>,
    iterations: u64,
    seconds: f64,
    stats: Py<PyDict>,
) -> RulesSolveResult {
    RulesSolveResult {
        algo,
        policy,
        exploitability,
        iterations,
        seconds,
        stats,
    }
}

/// Solves a game stated by rules with a sampling solver (`"es-mccfr"` or `"os-mccfr"`),
/// without enumerating it. `root` is a built-in game's spec (`"liars-dice(dice=2,sides=5)"`:
/// its native rules, with `threads`, `checkpoint` (saved every `checkpoint_every` seconds of
/// solving, default 60, and at the end) and `resume`, as `bluff solve --rules`), or the
/// initial state of a game in Python (pyspiel's state protocol; see the module docs: one
/// thread; its checkpoints keep the information-set strings in the order met). The initial
/// state of a pyspiel game that bluff states natively (as `bluff.from_openspiel` recognises
/// it) plays bluff's rules, labelled with OpenSpiel's
/// information-state strings, unless `native=False` (`native=True` refuses any other
/// root). `seed` (default 0); stops at `iterations` (the total, when
/// resuming) or after `time` seconds. With `evaluate` the average strategy's exploitability
/// is measured by the streaming exact best response over the rules (a walk of every history).
/// `epsilon` (outcome sampling's exploration) and `baseline` (VR-MCCFR baselines' rate) as
/// `bluff solve --epsilon --baseline`.
#[pyfunction]
#[pyo3(signature = (root, algo = "es-mccfr", iterations = None, time = None, seed = None, evaluate = true, name = None, threads = None, checkpoint = None, checkpoint_every = None, resume = None, native = None, epsilon = None, baseline = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve_rules(
    py: Python<'_>,
    root: Py<PyAny>,
    algo: &str,
    iterations: Option<u64>,
    time: Option<f64>,
    seed: Option<u64>,
    evaluate: bool,
    name: Option<String>,
    threads: Option<usize>,
    checkpoint: Option<PathBuf>,
    checkpoint_every: Option<f64>,
    resume: Option<PathBuf>,
    native: Option<bool>,
    epsilon: Option<f64>,
    baseline: Option<f64>,
) -> PyResult<RulesSolveResult> {
    let algorithm = registry::algorithm(algo).map_err(|e| PyValueError::new_err(e.to_string()))?;
    if !matches!(algorithm.family, Family::Sampling(_)) {
        return Err(PyValueError::new_err(format!(
            "algo={algo:?}: a game stated by rules is played by the sampling solvers \
             (\"es-mccfr\", \"os-mccfr\")"
        )));
    }
    for (field, value) in [("time", time), ("checkpoint_every", checkpoint_every)] {
        if let Some(t) = value.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Err(PyValueError::new_err(format!(
                "{field}={t}: expected a positive number of seconds"
            )));
        }
    }
    let request = SamplingRequest {
        algorithm: Some(algorithm),
        options: SamplingOptions {
            epsilon,
            baseline,
            ..Default::default()
        },
        seed,
        threads,
        iterations,
        time: time.map(Duration::from_secs_f64),
        evaluate,
        engine: Engine::Rules,
        checkpoint,
        checkpoint_every: checkpoint_every.map(Duration::from_secs_f64),
        resume,
        labels: true,
        ..Default::default()
    };
    if let Ok(spec) = root.bind(py).extract::<String>() {
        return solve_native(py, &spec, algorithm.name, &request, None);
    }
    if native != Some(false) {
        match recognise_initial_state(root.bind(py)) {
            Some(known) => {
                return solve_native(py, &known.spec(), algorithm.name, &request, Some(known))
            }
            None if native == Some(true) => {
                return Err(PyValueError::new_err(
                    "native=True takes the initial state of a pyspiel game that bluff states \
                     natively (kuhn_poker, leduc_poker, liars_dice with bidding_rule=reset-face, \
                     goofspiel with imp_info=True; two players, default other parameters)",
                ))
            }
            None => {}
        }
    }
    if request.threads.is_some_and(|t| t != 1) {
        return Err(PyValueError::new_err(
            "threads= needs a built-in game's rules (a spec string): a game in Python plays \
             on one thread (every step takes the GIL)",
        ));
    }
    let rules = PyRules {
        name: match name {
            Some(n) => n,
            None => root.bind(py).get_type().name()?.to_string(),
        },
        root,
        sets: Mutex::new(Interner::default()),
        error: Mutex::new(None),
    };
    let request = SamplingRequest {
        threads: Some(1),
        labels: false,
        engine: Engine::Auto,
        ..request
    };
    // The GIL is released so the best response's threads can each take it for their steps.
    let outcome = py.allow_threads(|| {
        let mut hooks = PythonHooks::new();
        let outcome = solve_on_rules(&rules, &request, &mut hooks);
        (outcome, hooks.interrupted)
    });
    if let Some(e) = rules.error.lock().expect("not poisoned").take() {
        return Err(e);
    }
    let outcome = match outcome {
        (_, Some(e)) => return Err(e),
        (o, None) => o.map_err(to_py_err)?,
    };
    let sets = rules.sets.lock().expect("not poisoned");
    let by_key = outcome.average_by_key.as_ref().expect("asked for");
    let policy = (0..2)
        .map(|p| {
            by_key[p]
                .iter()
                .map(|(key, probs)| (sets.names[p][*key as usize].clone(), probs.clone()))
                .collect()
        })
        .collect();
    result(py, algorithm.name, &outcome, policy)
}

/// The game bluff states natively whose initial state `root` is, when it is a pyspiel state
/// at the start of a recognised game (`bluff.from_openspiel`'s recognition).
fn recognise_initial_state(root: &Bound<'_, PyAny>) -> Option<NativeGame> {
    let history = root.call_method0("history").ok()?;
    if history.len().ok()? != 0 {
        return None;
    }
    let game = root.call_method0("get_game").ok()?;
    let name: String = game.str().ok()?.extract().ok()?;
    crate::openspiel::recognise(&game, &name).ok()?
}

/// A built-in game's native rules, by `bluff::solve::sampling::solve_spec` on the rules
/// engine: the policy labelled through the rules (with OpenSpiel's information-state strings
/// when the game came from pyspiel as `known`).
fn solve_native(
    py: Python<'_>,
    spec: &str,
    algo: &str,
    request: &SamplingRequest,
    known: Option<NativeGame>,
) -> PyResult<RulesSolveResult> {
    if bluff::games::rules(spec).map_err(to_py_err)?.is_none() {
        return Err(PyValueError::new_err(format!(
            "{}: bluff states no rules for this game (its rules: {}); load it with \
             bluff.game() and solve its tree with bluff.solve()",
            bluff::format::text::quoted(spec),
            NATIVE_RULES
        )));
    }
    let outcome = py.allow_threads(|| {
        let mut hooks = PythonHooks::new();
        let outcome = solve_spec(Some(spec), request, &mut hooks);
        (outcome, hooks.interrupted)
    });
    let outcome = match outcome {
        (_, Some(e)) => return Err(e),
        (o, None) => o.map_err(to_py_err)?,
    };
    let labelled = outcome.labelled.as_ref().expect("asked for");
    let mut policy = Vec::with_capacity(2);
    for (p, sets) in labelled.sets.iter().enumerate() {
        let mut by_label = HashMap::with_capacity(sets.len());
        for set in sets {
            let label = match known {
                Some(k) => k.openspiel_infoset(p, &set.label).map_err(to_py_err)?,
                None => set.label.clone(),
            };
            by_label.insert(label, set.probs.clone());
        }
        policy.push(by_label);
    }
    result(py, algo, &outcome, policy)
}

/// The built-in games stated by rules.
const NATIVE_RULES: &str = "kuhn, leduc, liars-dice, goofspiel";

/// The Python result of a run.
fn result(
    py: Python<'_>,
    algo: &str,
    outcome: &SamplingOutcome,
    policy: Vec<HashMap<String, Vec<f64>>>,
) -> PyResult<RulesSolveResult> {
    let stats = crate::hooks::sampling_stats(py, outcome)?;
    stats.set_item("peak_rss_bytes", outcome.peak_rss_bytes)?;
    Ok(RulesSolveResult {
        algo: algo.to_string(),
        policy,
        exploitability: outcome.exploitability,
        iterations: outcome.iterations,
        seconds: outcome.solve_seconds,
        stats: stats.unbind(),
    })
}
