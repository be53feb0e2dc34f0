//! `bluff.holdem`: hold'em spots from Python. A spot is read by the library's spot reader
//! (the same messages as `bluff solve SPOT.toml`), solved through the solve layer's one door
//! and evaluated, read and written by the library's strategy files; this file only converts.

use crate::convert::to_fraction;
use crate::hooks::PythonHooks;
use bluff::holdem::reference::Reference;
use bluff::holdem::river_lp;
use bluff::holdem::solver::{Deals, Game as SpotGame, Solver, DEFAULT_MAX_GAME_NODES};
use bluff::holdem::spot::{Spot as LibSpot, MAX_SPOT_BYTES};
use bluff::holdem::strategy_file::{
    self, HandStrategy, NodeStrategy, Provenance, StrategyFileError as FileErr,
};
use bluff::scalar::Rational;
use bluff::solve::door::{self, Detail, Request, SolveError, Solved, Source, Spelling, Value};
use bluff::solve::spot_lp::SpotExactStats;
use bluff::strategy::Profile;
use numpy::{PyArray1, PyArray2};
use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

create_exception!(
    bluff,
    SpotError,
    PyValueError,
    "An invalid hold'em spot: a bad or unknown key, a range token that does not parse, a bad board or size. The message names the key and token."
);
create_exception!(
    bluff,
    NodePathError,
    SpotError,
    "A node path that names no decision node of the spot (the message names the path)."
);
create_exception!(
    bluff,
    HandError,
    SpotError,
    "A hand name that is not in the acting player's range at a node (the message names it)."
);
create_exception!(
    bluff,
    StrategyFileError,
    PyValueError,
    "A strategy file that was refused: made for another spot, corrupt, truncated, or not a strategy file."
);

/// A hold'em spot: a board, two weighted ranges, a pot, a stack and a bet-size tree.
#[pyclass(module = "bluff.holdem", frozen)]
pub struct Spot {
    /// The spot file's text (TOML).
    text: String,
    /// The name messages give the spot (its path, or `Spot(...)`).
    name: String,
    /// The parsed spot.
    spot: LibSpot,
}

/// A Python value of a spot key as TOML, `key` naming it in messages.
fn toml_value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<String> {
    if v.is_instance_of::<PyBool>() {
        return Ok(if v.extract::<bool>()? {
            "true"
        } else {
            "false"
        }
        .to_string());
    }
    if v.is_instance_of::<PyInt>() {
        let i: i64 = v.extract().map_err(|_| {
            SpotError::new_err(format!("spot key `{key}`: {} does not fit in 64 bits", v))
        })?;
        return Ok(i.to_string());
    }
    if v.is_instance_of::<PyFloat>() {
        let x: f64 = v.extract()?;
        return Ok(if x.is_nan() {
            "nan".to_string()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.to_string()
        } else {
            format!("{x:?}")
        });
    }
    if let Ok(s) = v.downcast::<PyString>() {
        return Ok(serde_json::to_string(s.to_str()?).expect("a string serialises"));
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        let items: Vec<String> = v
            .try_iter()?
            .map(|x| toml_value(key, &x?))
            .collect::<PyResult<_>>()?;
        return Ok(format!("[{}]", items.join(", ")));
    }
    Err(SpotError::new_err(format!(
        "spot key `{key}`: expected a string, a number, a bool or a list, found {}",
        v.get_type().name()?
    )))
}

impl Spot {
    /// Parses a spot file's `text`, named `name` in messages (no name: the reader's message
    /// alone).
    fn parse(text: String, name: Option<String>) -> PyResult<Spot> {
        let spot = LibSpot::parse(&text).map_err(|e| match &name {
            Some(n) => SpotError::new_err(format!("{n}: {e}")),
            None => SpotError::new_err(e.to_string()),
        })?;
        Ok(Spot {
            text,
            name: name.unwrap_or_else(|| "Spot(...)".to_string()),
            spot,
        })
    }

    /// The spot's game expanded with its deals, as `bluff solve` walks it.
    fn game(&self) -> PyResult<SpotGame> {
        SpotGame::build_with(&self.spot, DEFAULT_MAX_GAME_NODES, Deals::Isomorphic)
            .map_err(|e| SpotError::new_err(format!("{}: {e}", self.name)))
    }
}

#[pymethods]
impl Spot {
    /// A spot from the spot file's keys as keyword arguments (`board="QsJh2h8d7c"`,
    /// `oop_range="AA,KK"`, `pot=100`, `river_bet="50%, a"`, ...), read by the same reader
    /// as a spot file.
    #[new]
    #[pyo3(signature = (**keys))]
    fn new(keys: Option<&Bound<'_, PyDict>>) -> PyResult<Spot> {
        let mut text = String::new();
        if let Some(keys) = keys {
            for (k, v) in keys.iter() {
                let key: String = k.extract()?;
                text.push_str(&serde_json::to_string(&key).expect("a string serialises"));
                text.push_str(" = ");
                text.push_str(&toml_value(&key, &v)?);
                text.push('\n');
            }
        }
        Spot::parse(text, None)
    }

    /// A spot from a spot file's text (TOML).
    #[staticmethod]
    #[pyo3(signature = (text, name = None))]
    fn from_toml(text: String, name: Option<String>) -> PyResult<Spot> {
        if text.len() > MAX_SPOT_BYTES {
            return Err(SpotError::new_err(format!(
                "{}: {} bytes, more than the {MAX_SPOT_BYTES} a spot file may hold",
                name.as_deref().unwrap_or("spot"),
                text.len()
            )));
        }
        Spot::parse(text, name)
    }

    /// The spot file's text (TOML).
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// The name messages give the spot (its path when read from a file).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The board, e.g. `"QsJh2h8d7c"`.
    #[getter]
    fn board(&self) -> String {
        self.spot.board.to_string()
    }

    /// Chips in the pot at the start.
    #[getter]
    fn pot(&self) -> i64 {
        self.spot.pot
    }

    /// Each player's chips behind at the start.
    #[getter]
    fn stack(&self) -> i64 {
        self.spot.stack
    }

    fn __repr__(&self) -> String {
        format!(
            "<bluff.holdem.Spot {} board={} pot={} stack={}>",
            self.name, self.spot.board, self.spot.pot, self.spot.stack
        )
    }
}

/// `bluff.holdem.read(path)`: a spot file, refused over the size limit before reading it.
#[pyfunction]
pub fn read_spot(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Spot> {
    let path = fspath(py, path)?;
    let shown = path.display().to_string();
    let meta = std::fs::metadata(&path).map_err(|e| io_err(&format!("spot file {shown}"), e))?;
    if meta.len() > MAX_SPOT_BYTES as u64 {
        return Err(SpotError::new_err(format!(
            "spot file {shown}: {} bytes, more than the {MAX_SPOT_BYTES} a spot file may hold",
            meta.len()
        )));
    }
    let bytes = std::fs::read(&path).map_err(|e| io_err(&format!("spot file {shown}"), e))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| SpotError::new_err(format!("spot file {shown}: not UTF-8 text")))?;
    Spot::parse(text, Some(shown))
}

/// A path argument (`str` or `os.PathLike`).
fn fspath(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    py.import("os")?
        .call_method1("fspath", (path,))?
        .extract()
        .map_err(|_| PyTypeError::new_err("expected a path (str or os.PathLike)"))
}

/// An I/O error as `FileNotFoundError` or `OSError`, `what` naming the file.
fn io_err(what: &str, e: std::io::Error) -> PyErr {
    let msg = format!("{what}: {e}");
    if e.kind() == std::io::ErrorKind::NotFound {
        PyFileNotFoundError::new_err(msg)
    } else {
        PyOSError::new_err(msg)
    }
}

/// A strategy file's error as the matching Python exception, `what` naming the file.
fn file_err(what: &str, e: FileErr) -> PyErr {
    match e {
        FileErr::Io { action, source } => io_err(&format!("{what} ({action})"), source),
        FileErr::Write(e) => PyOSError::new_err(format!("{what}: {e}")),
        e => StrategyFileError::new_err(format!("{what}: {e}")),
    }
}

/// One decision node of a strategy, per hand of the acting player's range.
#[pyclass(module = "bluff.holdem", frozen)]
pub struct SpotNode {
    /// The node's path, e.g. `"flop:check,bet94,call;turn:8d:check"`.
    #[pyo3(get)]
    path: String,
    /// The player to act: `"oop"` or `"ip"`.
    #[pyo3(get)]
    player: String,
    /// The actions' names (`"check"`, `"bet50"`, `"allin"`, ...).
    #[pyo3(get)]
    actions: Vec<String>,
    /// The hands of the acting player's range (`"AsKs"`, higher card first), in row order.
    #[pyo3(get)]
    hands: Vec<String>,
    /// The probabilities of the actions, `[hands x actions]`.
    #[pyo3(get)]
    strategy: Py<PyArray2<f64>>,
    /// Each hand's weight in the range.
    #[pyo3(get)]
    weights: Py<PyArray1<f64>>,
    /// Each hand's weight times the player's own probabilities of reaching the node (0 for a
    /// hand holding a card dealt on the way).
    #[pyo3(get)]
    reach: Py<PyArray1<f64>>,
    /// The probabilities as `Fraction`s, `[hands][actions]`, for an exact strategy (the LP's;
    /// `None` otherwise).
    #[pyo3(get)]
    exact_strategy: Option<PyObject>,
    /// Row of each hand, by name.
    rows: HashMap<String, usize>,
    /// The rows, for `frequencies`.
    probs: Vec<Vec<f64>>,
    /// The reach, for `frequencies`.
    reach_v: Vec<f64>,
}

impl SpotNode {
    /// A library node as a Python one.
    fn of(py: Python<'_>, node: NodeStrategy) -> PyResult<SpotNode> {
        let probs: Vec<Vec<f64>> = node.hands.iter().map(|h| h.strategy.clone()).collect();
        let k = node.actions.len();
        let strategy = if probs.is_empty() {
            PyArray2::<f64>::zeros(py, [0, k], false)
        } else {
            PyArray2::from_vec2(py, &probs)
                .map_err(|e| PyValueError::new_err(format!("node {}: {e}", node.path)))?
        };
        let weights: Vec<f64> = node.hands.iter().map(|h| h.weight).collect();
        let reach: Vec<f64> = node.hands.iter().map(|h| h.reach).collect();
        let hands: Vec<String> = node.hands.iter().map(|h| h.hand.clone()).collect();
        Ok(SpotNode {
            rows: hands
                .iter()
                .enumerate()
                .map(|(i, h)| (h.clone(), i))
                .collect(),
            path: node.path,
            player: ["oop", "ip"][node.player].to_string(),
            actions: node.actions,
            hands,
            strategy: strategy.unbind(),
            weights: PyArray1::from_vec(py, weights).unbind(),
            reach: PyArray1::from_vec(py, reach.clone()).unbind(),
            exact_strategy: None,
            probs,
            reach_v: reach,
        })
    }

    /// A node of an exact strategy as a Python one: floats in the arrays, the exact rows in
    /// `exact_strategy`.
    fn of_exact(py: Python<'_>, node: river_lp::ExactNode) -> PyResult<SpotNode> {
        let to_f64 = bluff::scalar::rational_to_f64;
        let exact = PyList::empty(py);
        for h in &node.hands {
            let items = h
                .strategy
                .iter()
                .map(|q| fraction(py, q))
                .collect::<PyResult<Vec<_>>>()?;
            exact.append(PyList::new(py, items)?)?;
        }
        let hands = node
            .hands
            .iter()
            .map(|h| HandStrategy {
                hand: h.hand.clone(),
                weight: h.weight,
                reach: to_f64(&h.reach),
                strategy: h.strategy.iter().map(to_f64).collect(),
            })
            .collect();
        let mut out = SpotNode::of(
            py,
            NodeStrategy {
                path: node.path,
                player: node.player,
                actions: node.actions,
                hands,
            },
        )?;
        out.exact_strategy = Some(exact.into_any().unbind());
        Ok(out)
    }
}

#[pymethods]
impl SpotNode {
    /// One hand's probabilities of the actions (`"AsKs"` or `"KsAs"`); `HandError` when the
    /// hand is not in the acting player's range.
    fn hand<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let swapped = if name.len() == 4 && name.is_ascii() {
            format!("{}{}", &name[2..], &name[..2])
        } else {
            String::new()
        };
        let row = self
            .rows
            .get(name)
            .or_else(|| self.rows.get(&swapped))
            .ok_or_else(|| {
                HandError::new_err(format!(
                    "hand `{}` is not in {}'s range at node {} ({} hands, e.g. {})",
                    name.chars().take(40).collect::<String>(),
                    self.player.to_uppercase(),
                    self.path,
                    self.hands.len(),
                    self.hands.first().map_or("none", |s| s.as_str())
                ))
            })?;
        Ok(PyArray1::from_vec(py, self.probs[*row].clone()))
    }

    /// The range's frequency of each action at the node: the hands' probabilities weighted
    /// by their reach (zeros when no hand reaches it).
    #[getter]
    fn frequencies<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        let k = self.actions.len();
        let total: f64 = self.reach_v.iter().sum();
        let mut out = vec![0.0; k];
        if total > 0.0 {
            for (row, r) in self.probs.iter().zip(&self.reach_v) {
                for (o, p) in out.iter_mut().zip(row) {
                    *o += r * p / total;
                }
            }
        }
        PyArray1::from_vec(py, out)
    }

    fn __repr__(&self) -> String {
        format!(
            "<bluff.holdem.SpotNode {} ({} to act: {}; {} hands)>",
            self.path,
            self.player.to_uppercase(),
            self.actions.join(", "),
            self.hands.len()
        )
    }
}

/// A strategy of a spot, held in memory: a solve's average strategy or a strategy file read.
#[pyclass(module = "bluff.holdem", frozen)]
pub struct SpotStrategy {
    /// The spot.
    #[pyo3(get)]
    spot: Py<Spot>,
    /// The algorithm that made it.
    #[pyo3(get)]
    algo: String,
    /// Its iterations.
    #[pyo3(get)]
    iterations: u64,
    /// The exploitability its maker measured, chips (`None` when not recorded).
    #[pyo3(get)]
    exploitability: Option<f64>,
    /// The file it was read from, if any.
    file: Option<PathBuf>,
    /// The solver (or evaluator) holding it.
    solver: Mutex<Solver>,
    /// Each decision path's game node, built at the first `node` call.
    index: OnceLock<HashMap<String, usize>>,
}

impl SpotStrategy {
    fn index(&self, solver: &Solver) -> &HashMap<String, usize> {
        self.index
            .get_or_init(|| strategy_file::path_index(&solver.game))
    }

    fn solver(&self) -> PyResult<std::sync::MutexGuard<'_, Solver>> {
        self.solver
            .lock()
            .map_err(|_| PyValueError::new_err("the strategy's solver was poisoned by a panic"))
    }
}

#[pymethods]
impl SpotStrategy {
    /// The node at `path` (e.g. `"flop:check,bet94,call;turn:8d:check"`; `"flop"` alone:
    /// the root), per hand; `NodePathError` naming the path when it names no decision node.
    fn node(&self, py: Python<'_>, path: &str) -> PyResult<SpotNode> {
        let node = {
            let solver = self.solver()?;
            let index = self.index(&solver);
            strategy_file::solver_node_strategy(&solver, index, path)
                .map_err(|e| NodePathError::new_err(e.to_string()))?
        };
        SpotNode::of(py, node)
    }

    /// Every decision node's path, in the engine's order (deals the solver merged by suit
    /// isomorphism appear once, under the deal it walked).
    fn paths(&self) -> PyResult<Vec<String>> {
        let solver = self.solver()?;
        Ok(strategy_file::decision_paths(&solver.game)
            .into_iter()
            .map(|(_, p)| p)
            .collect())
    }

    /// Writes the strategy to `path` in the compact strategy file `bluff solve SPOT.toml -o`
    /// writes (through a temporary file renamed over it: nothing is written on error);
    /// returns the bytes written.
    fn write(&self, py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<u64> {
        let target = fspath(py, path)?;
        let spot = self.spot.get();
        let provenance = Provenance {
            algo: self.algo.clone(),
            iterations: self.iterations,
            exploitability: self.exploitability,
        };
        let solver = self.solver()?;
        let written =
            py.allow_threads(|| strategy_file::write(&target, &spot.spot, &solver, &provenance));
        written.map_err(|e| file_err(&format!("strategy file {}", target.display()), e))
    }

    fn __repr__(&self) -> String {
        format!(
            "<bluff.holdem.SpotStrategy {} ({} after {} iterations)>",
            self.spot.get().name,
            self.algo,
            self.iterations
        )
    }
}

/// `bluff.holdem.read_strategy(spot, path)`: a strategy file (as `bluff solve SPOT.toml -o`
/// writes it) read for `spot`; `StrategyFileError` when it was made for another spot.
#[pyfunction]
#[pyo3(signature = (spot, path, threads = None))]
pub fn read_strategy(
    py: Python<'_>,
    spot: Py<Spot>,
    path: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<SpotStrategy> {
    let file = fspath(py, path)?;
    let s = spot.get();
    let game = s.game()?;
    let bytes = 8 * (game.state_len[0] + game.state_len[1]) as u64;
    let budget = bluff::lp::memory::default_budget();
    if bytes > budget {
        return Err(SpotError::new_err(format!(
            "{}: reading a strategy needs {}, more than 80% of the available memory ({})",
            s.name,
            bluff::lp::memory::format_bytes(bytes as u128),
            bluff::lp::memory::format_bytes(budget as u128)
        )));
    }
    let threads = match threads {
        Some(0) => return Err(PyValueError::new_err("threads=0: expected at least 1")),
        Some(n) => n,
        None => bluff::solve::Threads::Available
            .count()
            .map_err(|e| PyValueError::new_err(e.to_string()))?,
    };
    let loaded = py.allow_threads(|| strategy_file::load(&file, &s.spot, game, threads));
    let (solver, header) =
        loaded.map_err(|e| file_err(&format!("strategy file {}", file.display()), e))?;
    Ok(SpotStrategy {
        spot,
        algo: header.algo,
        iterations: header.iterations,
        exploitability: header.exploitability,
        file: Some(file),
        solver: Mutex::new(solver),
        index: OnceLock::new(),
    })
}

/// What `bluff.solve(spot, ...)` returns.
#[pyclass(module = "bluff.holdem", frozen)]
pub struct SpotResult {
    /// The algorithm that ran.
    #[pyo3(get)]
    algo: String,
    /// Whether the values are exact (`algo="lp"`: `Fraction`s, certified).
    #[pyo3(get)]
    exact: bool,
    /// Iterations run (0 for the LP).
    #[pyo3(get)]
    iterations: u64,
    /// Exploitability of the returned strategy, chips (`Fraction(0)` for the LP).
    #[pyo3(get)]
    exploitability: PyObject,
    /// The exploitability in percent of the starting pot.
    #[pyo3(get)]
    exploitability_pot_pct: f64,
    /// Each player's share of the pot if both checked down: `(oop, ip)`.
    #[pyo3(get)]
    root_equity: (PyObject, PyObject),
    /// Each player's expected chips under the returned strategy: `(oop, ip)`.
    #[pyo3(get)]
    root_ev: (PyObject, PyObject),
    /// Each player's best-response value against the other's strategy (`None` for the LP,
    /// where it equals `root_ev`).
    #[pyo3(get)]
    best_response: Option<(f64, f64)>,
    /// The starting pot, chips.
    #[pyo3(get)]
    pot: f64,
    /// Wall time of the iterations, measurements included (the LP: its solve), seconds.
    #[pyo3(get)]
    seconds: f64,
    /// Seconds reading the spot, building the tree and allocating.
    #[pyo3(get)]
    build_seconds: f64,
    /// `(iteration, exploitability, seconds)` at each measurement.
    #[pyo3(get)]
    curve: Vec<(u64, f64, f64)>,
    /// Further figures: threads, precision, node counts, state bytes, peak RSS (CFR); the
    /// LP's sizes, pivots and times (LP).
    #[pyo3(get)]
    stats: Py<PyDict>,
    /// The returned strategy (the exact LP's rounded to f64 in the engine; `None` for the LCP).
    #[pyo3(get)]
    strategy: Option<Py<SpotStrategy>>,
    /// The LP's equilibrium on the spot built as a game, for `node`.
    exact_profile: Option<Box<ExactEquilibrium>>,
}

/// The exact LP's equilibrium of a spot on the spot built as a game.
struct ExactEquilibrium {
    spot: Py<Spot>,
    game: Reference,
    profile: Profile<Rational>,
}

impl SpotResult {
    fn strategy(&self) -> PyResult<&Py<SpotStrategy>> {
        self.strategy.as_ref().ok_or_else(|| {
            PyValueError::new_err(
                "this solve kept no strategy in the engine's form (the LCP's equilibrium is \
                 given exactly, by node)",
            )
        })
    }
}

#[pymethods]
impl SpotResult {
    /// The node at `path` of the returned strategy, per hand (see `SpotStrategy.node`).
    /// For the exact LP the node's rows are also given exactly (`SpotNode.exact_strategy`).
    fn node(&self, py: Python<'_>, path: &str) -> PyResult<SpotNode> {
        if let Some(exact) = &self.exact_profile {
            let node =
                river_lp::exact_node(&exact.spot.get().spot, &exact.game, &exact.profile, path)
                    .map_err(|e| NodePathError::new_err(e.to_string()))?;
            return SpotNode::of_exact(py, node);
        }
        self.strategy()?.get().node(py, path)
    }

    /// Writes the returned strategy to `path` as `bluff solve SPOT.toml -o` does; the bytes.
    fn write_strategy(&self, py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<u64> {
        self.strategy()?.get().write(py, path)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<bluff.holdem.SpotResult algo={:?} iterations={} exploitability={} ({:.4}% of the pot) seconds={:.3}>",
            self.algo,
            self.iterations,
            self.exploitability.bind(py).repr()?,
            self.exploitability_pot_pct,
            self.seconds
        ))
    }
}

/// A float as a Python object.
fn float(py: Python<'_>, x: f64) -> PyResult<PyObject> {
    Ok(x.into_pyobject(py)?.into_any().unbind())
}

/// A rational as a `Fraction`.
fn fraction(py: Python<'_>, r: &Rational) -> PyResult<PyObject> {
    Ok(to_fraction(py, r)?.unbind())
}

/// `bluff.solve(spot, ...)`: the spot through the door with `request` (built by
/// `bluff.solve` from its keywords), the GIL released, Ctrl-C honoured.
pub(crate) fn solve(py: Python<'_>, spot: Py<Spot>, mut request: Request) -> PyResult<SpotResult> {
    // The CFR route keeps its solver for the strategy (`-o`), the exact LP and the LCP their
    // equilibrium in the engine's evaluator (rounded, as strategy files store it).
    request.output = true;
    let s = spot.get();
    let mut solved = py.allow_threads(|| -> PyResult<Solved> {
        let mut hooks = PythonHooks::new();
        let source = Source::Spot {
            text: &s.text,
            name: &s.name,
        };
        let solved = door::solve(source, &request, Spelling::Python, &mut hooks);
        if let Some(e) = hooks.interrupted {
            return Err(e);
        }
        solved.map_err(|e| match e {
            SolveError::Request(m) => PyValueError::new_err(m),
            other => PyValueError::new_err(other.to_string()),
        })
    })?;
    let curve = solved
        .curve
        .iter()
        .map(|p| (p.iteration, p.exploitability, p.seconds))
        .collect();
    let stats = PyDict::new(py);
    match solved.detail {
        Detail::Spot(mut run) => {
            let v = |x: Option<&Value>| x.map_or(f64::NAN, Value::to_f64);
            let exploitability = v(solved.exploitability.as_ref());
            stats.set_item("threads", run.threads)?;
            stats.set_item("precision", run.precision.name())?;
            stats.set_item("decision_nodes", run.counts.decision)?;
            stats.set_item("terminal_nodes", run.counts.terminal)?;
            stats.set_item("game_nodes", run.game_nodes)?;
            stats.set_item("state_bytes", run.state_bytes)?;
            stats.set_item("peak_rss_bytes", run.peak_rss_bytes)?;
            let returned = run
                .returned
                .take()
                .ok_or_else(|| PyValueError::new_err("the spot's run kept no strategy"))?;
            let solver = std::sync::Arc::try_unwrap(returned.solver)
                .map_err(|_| PyValueError::new_err("the spot's solver is shared"))?;
            let strategy = SpotStrategy {
                spot: spot.clone_ref(py),
                algo: solved.algorithm.name.to_string(),
                iterations: solved.iterations,
                exploitability: Some(exploitability).filter(|x| x.is_finite()),
                file: None,
                solver: Mutex::new(solver),
                index: OnceLock::new(),
            };
            Ok(SpotResult {
                algo: solved.algorithm.name.to_string(),
                exact: false,
                iterations: solved.iterations,
                exploitability: float(py, exploitability)?,
                exploitability_pot_pct: run.exploitability_pot_pct,
                root_equity: (
                    float(py, run.root_equity[0])?,
                    float(py, run.root_equity[1])?,
                ),
                root_ev: (float(py, run.root_ev[0])?, float(py, run.root_ev[1])?),
                best_response: Some((run.best_response[0], run.best_response[1])),
                pot: run.pot,
                seconds: solved.seconds,
                build_seconds: run.build_seconds,
                curve,
                stats: stats.unbind(),
                strategy: Some(Py::new(py, strategy)?),
                exact_profile: None,
            })
        }
        Detail::SpotLp(mut run) => {
            let returned = run.returned.take();
            match &run.stats {
                SpotExactStats::Lp(st) => {
                    stats.set_item("sequences", (st.sequences[0], st.sequences[1]))?;
                    stats.set_item("lp_vars", st.lp_vars)?;
                    stats.set_item("lp_rows", st.lp_rows)?;
                    stats.set_item("float_pivots", st.lp.float_pivots)?;
                    stats.set_item("exact_pivots", st.lp.exact_pivots)?;
                    stats.set_item("exact_route", st.lp.route.name())?;
                    stats.set_item("build_seconds", st.build_time.as_secs_f64())?;
                    stats.set_item("solve_seconds", st.solve_time.as_secs_f64())?;
                    stats.set_item("certify_seconds", st.certify_time.as_secs_f64())?;
                }
                SpotExactStats::Lcp(st) => {
                    stats.set_item("start", &st.start)?;
                    stats.set_item("route", &st.route)?;
                    stats.set_item("pivots", st.pivots)?;
                    stats.set_item("lcp_rows", st.rows)?;
                    stats.set_item(
                        "general_sum",
                        !solved.game.as_ref().is_some_and(|g| g.is_constant_sum()),
                    )?;
                }
            }
            stats.set_item("combos", run.size.combos)?;
            stats.set_item("compatible_pairs", run.size.pairs)?;
            stats.set_item("game_nodes", run.size.game_nodes)?;
            let zero = fraction(py, &<Rational as num_traits::Zero>::zero())?;
            let door::Strategy::Exact(profile) = solved.strategy else {
                return Err(PyValueError::new_err(
                    "the exact LP returned no exact strategy",
                ));
            };
            // The game the door solved with where its sets sit, for the equilibrium's nodes
            // by path.
            let game = solved
                .game
                .take()
                .ok_or_else(|| PyValueError::new_err("the exact LP returned no game"))?;
            let r = run.reference(game);
            if r.game.num_actions != [profile.probs[0].len(), profile.probs[1].len()] {
                return Err(PyValueError::new_err(
                    "the LP's equilibrium does not fit the spot built as a game",
                ));
            }
            Ok(SpotResult {
                algo: solved.algorithm.name.to_string(),
                exact: true,
                iterations: 0,
                exploitability: zero,
                exploitability_pot_pct: 0.0,
                root_equity: (
                    fraction(py, &run.root_equity[0])?,
                    fraction(py, &run.root_equity[1])?,
                ),
                root_ev: (
                    fraction(py, &run.root_ev[0])?,
                    fraction(py, &run.root_ev[1])?,
                ),
                best_response: None,
                pot: run.pot as f64,
                seconds: solved.seconds,
                build_seconds: solved.setup_seconds,
                curve,
                stats: stats.unbind(),
                strategy: match returned {
                    Some(returned) => {
                        let solver = std::sync::Arc::try_unwrap(returned.solver)
                            .map_err(|_| PyValueError::new_err("the spot's solver is shared"))?;
                        Some(Py::new(
                            py,
                            SpotStrategy {
                                spot: spot.clone_ref(py),
                                algo: solved.algorithm.name.to_string(),
                                iterations: 0,
                                exploitability: Some(0.0),
                                file: None,
                                solver: Mutex::new(solver),
                                index: OnceLock::new(),
                            },
                        )?)
                    }
                    None => None,
                },
                exact_profile: Some(Box::new(ExactEquilibrium {
                    spot: spot.clone_ref(py),
                    game: r,
                    profile,
                })),
            })
        }
        _ => Err(PyValueError::new_err(format!(
            "{} on a spot gave no spot result",
            solved.algorithm.name
        ))),
    }
}

/// What `bluff.evaluate(spot, strategy)` returns.
#[pyclass(module = "bluff.holdem", frozen, get_all)]
pub struct SpotEvaluation {
    /// Whether the values are exact `Fraction`s (`exact=True`).
    pub exact: bool,
    /// The exploitability, chips: the mean of the two players' best-response gains.
    pub exploitability: PyObject,
    /// The exploitability in percent of the starting pot (float).
    pub exploitability_pot_pct: f64,
    /// Each player's expected chips under the strategy: `(oop, ip)`.
    pub root_ev: (PyObject, PyObject),
    /// Each player's best-response gain against the other's strategy: `(oop, ip)`.
    pub best_response_gain: (PyObject, PyObject),
    /// Each player's share of the pot if both checked down (float): `(oop, ip)`.
    pub root_equity: (f64, f64),
    /// The engine's float exploitability (the same as `exploitability` unless exact), chips.
    pub float_exploitability: f64,
    /// The starting pot, chips.
    pub pot: f64,
}

#[pymethods]
impl SpotEvaluation {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<bluff.holdem.SpotEvaluation exploitability={} ({:.4}% of the pot) exact={}>",
            self.exploitability.bind(py).repr()?,
            self.exploitability_pot_pct,
            if self.exact { "True" } else { "False" }
        ))
    }
}

/// `bluff.evaluate(spot, strategy, exact)`: the exploitability, EVs and best-response gains
/// of a `SpotStrategy`, a `SpotResult`'s strategy or a strategy file's path, by the spot
/// engine's walks; `exact`: in rationals on the spot played hand against hand, as
/// `bluff eval SPOT S --exact`.
pub(crate) fn evaluate(
    py: Python<'_>,
    spot: Py<Spot>,
    policy: &Bound<'_, PyAny>,
    exact: bool,
) -> PyResult<SpotEvaluation> {
    let strategy: Py<SpotStrategy> = if let Ok(r) = policy.downcast::<SpotResult>() {
        r.get().strategy()?.clone_ref(py)
    } else if let Ok(s) = policy.downcast::<SpotStrategy>() {
        s.clone().unbind()
    } else {
        Py::new(py, read_strategy(py, spot.clone_ref(py), policy, None)?)?
    };
    let st = strategy.get();
    let (given, own) = (spot.get(), st.spot.get());
    if given.spot != own.spot {
        return Err(StrategyFileError::new_err(format!(
            "the strategy was made for another spot ({}, board {}), not {} (board {})",
            own.name, own.spot.board, given.name, given.spot.board
        )));
    }
    let mut solver = st.solver()?;
    let solver = &mut *solver;
    let (values, equity, pot) = py.allow_threads(|| {
        let v = solver.values();
        (v, solver.game.root_equity(), solver.game.pot)
    });
    let gain = [
        values.best_response[0] - values.ev[0],
        values.best_response[1] - values.ev[1],
    ];
    let mut out = SpotEvaluation {
        exact: false,
        exploitability: float(py, values.exploitability)?,
        exploitability_pot_pct: values.exploitability / pot * 100.0,
        root_ev: (float(py, values.ev[0])?, float(py, values.ev[1])?),
        best_response_gain: (float(py, gain[0])?, float(py, gain[1])?),
        root_equity: (equity[0], equity[1]),
        float_exploitability: values.exploitability,
        pot,
    };
    if exact {
        let max = bluff::holdem::reference::DEFAULT_MAX_NODES;
        let e = match &st.file {
            Some(file) => {
                py.allow_threads(|| river_lp::exact_eval_file(&given.spot, &solver.game, file, max))
            }
            None => {
                let index = st.index(solver);
                py.allow_threads(|| river_lp::exact_eval_solver(&given.spot, solver, index, max))
            }
        }
        .map_err(|e| SpotError::new_err(format!("the exact evaluation of {}: {e}", given.name)))?;
        out.exact = true;
        out.exploitability = fraction(py, &e.exploitability)?;
        out.exploitability_pot_pct =
            bluff::scalar::rational_to_f64(&e.exploitability) / pot * 100.0;
        out.root_ev = (fraction(py, &e.value[0])?, fraction(py, &e.value[1])?);
        out.best_response_gain = (fraction(py, &e.gain[0])?, fraction(py, &e.gain[1])?);
    }
    Ok(out)
}

/// Registers the spot classes, functions and exceptions on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Spot>()?;
    m.add_class::<SpotNode>()?;
    m.add_class::<SpotStrategy>()?;
    m.add_class::<SpotResult>()?;
    m.add_class::<SpotEvaluation>()?;
    m.add_function(wrap_pyfunction!(read_spot, m)?)?;
    m.add_function(wrap_pyfunction!(read_strategy, m)?)?;
    m.add("SpotError", py.get_type::<SpotError>())?;
    m.add("NodePathError", py.get_type::<NodePathError>())?;
    m.add("HandError", py.get_type::<HandError>())?;
    m.add("StrategyFileError", py.get_type::<StrategyFileError>())?;
    Ok(())
}
