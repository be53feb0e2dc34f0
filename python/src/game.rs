//! `bluff.Game`, `bluff.GameBuilder` and the game loaders.

use crate::convert::{rational_from_py, to_fraction, to_py_err};
use crate::errors::{BluffWarning, GameError, PolicyError};
use bluff::format::text::quoted;
use bluff::game::{self as model, GameBuilder as RustBuilder, NodeRef};
use bluff::scalar::Rational;
use pyo3::exceptions::{PyIndexError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// A compiled two-player constant-sum game (immutable; shared by policies and results).
#[pyclass(module = "bluff", frozen)]
pub struct Game {
    pub inner: Arc<model::Game>,
    /// Per player: information-set label -> dense id.
    index: [HashMap<String, usize>; 2],
    /// The built-in spec it was made from (pickles as the spec; other games as `.efg` text).
    pub spec: Option<String>,
}

impl Game {
    /// Wraps a compiled game.
    pub fn new(inner: model::Game) -> Self {
        let index = [0, 1].map(|p| {
            inner.infosets[p]
                .iter()
                .enumerate()
                .map(|(i, s)| (s.label.clone(), i))
                .collect()
        });
        Game {
            inner: Arc::new(inner),
            index,
            spec: None,
        }
    }

    /// The same game, remembered as made from the built-in `spec`.
    pub fn with_spec(mut self, spec: &str) -> Self {
        self.spec = Some(spec.to_string());
        self
    }

    /// The dense id of `player`'s information set `label`.
    pub fn infoset_id(&self, player: usize, label: &str) -> Option<usize> {
        self.index.get(player)?.get(label).copied()
    }

    /// Resolves an information set given as a label or an index.
    pub fn resolve(&self, player: usize, infoset: &Bound<'_, PyAny>) -> PyResult<usize> {
        check_player(player as i64)?;
        if let Ok(label) = infoset.extract::<String>() {
            return self.infoset_id(player, &label).ok_or_else(|| {
                PolicyError::new_err(format!(
                    "player {player} has no information set {}",
                    quoted(&label)
                ))
            });
        }
        let id: usize = infoset.extract()?;
        if id >= self.inner.infosets[player].len() {
            return Err(PyIndexError::new_err(format!(
                "player {player} has {} information sets; index {id} is out of range",
                self.inner.infosets[player].len()
            )));
        }
        Ok(id)
    }
}

/// Rejects player indices other than 0 and 1 (a negative one included, with the same
/// `ValueError` rather than Python's `OverflowError` for a negative unsigned).
pub fn check_player(player: i64) -> PyResult<usize> {
    if !(0..=1).contains(&player) {
        return Err(PyValueError::new_err(format!(
            "player {player}: expected 0 or 1"
        )));
    }
    Ok(player as usize)
}

#[pymethods]
impl Game {
    /// The built-in spec this game was made from (`None` for a game read from a file or built).
    #[getter]
    fn spec(&self) -> Option<String> {
        self.spec.clone()
    }

    /// The game's name.
    #[getter]
    fn name(&self) -> String {
        self.inner.name.clone()
    }

    /// The two players' names.
    #[getter]
    fn players(&self) -> (String, String) {
        let [a, b] = &self.inner.player_names;
        (a.clone(), b.clone())
    }

    /// Number of nodes (chance, decision and terminal).
    #[getter]
    fn num_nodes(&self) -> usize {
        self.inner.nodes.len()
    }

    /// Number of terminal nodes.
    #[getter]
    fn num_terminals(&self) -> usize {
        self.inner.num_terminal_nodes()
    }

    /// Number of information sets of each player.
    #[getter]
    fn num_infosets(&self) -> (usize, usize) {
        (self.inner.infosets[0].len(), self.inner.infosets[1].len())
    }

    /// Number of actions summed over each player's information sets (the policy array sizes).
    #[getter]
    fn num_actions(&self) -> (usize, usize) {
        (self.inner.num_actions[0], self.inner.num_actions[1])
    }

    /// Number of sequences of each player (the empty sequence included).
    #[getter]
    fn num_sequences(&self) -> (usize, usize) {
        (self.inner.num_sequences(0), self.inner.num_sequences(1))
    }

    /// The players' payoffs add to this at every terminal (0 for zero-sum games), exactly;
    /// `None` for a general-sum game.
    #[getter]
    fn constant_sum<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !self.inner.is_constant_sum() {
            return Ok(None);
        }
        to_fraction(py, &self.inner.constant_sum).map(Some)
    }

    /// Whether the payoffs do not add to one constant at every terminal (two-player
    /// general-sum: the zero-sum solvers refuse it).
    #[getter]
    fn general_sum(&self) -> bool {
        !self.inner.is_constant_sum()
    }

    /// Smallest and largest payoff of player 0.
    #[getter]
    fn payoff_range(&self) -> (f64, f64) {
        self.inner.payoff_range()
    }

    /// The labels of `player`'s information sets, in id order.
    fn infosets(&self, player: i64) -> PyResult<Vec<String>> {
        let player = check_player(player)?;
        Ok(self.inner.infosets[player]
            .iter()
            .map(|s| s.label.clone())
            .collect())
    }

    /// The action labels of one information set, given by label or index.
    fn actions(&self, player: i64, infoset: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let player = check_player(player)?;
        let id = self.resolve(player, infoset)?;
        Ok(self.inner.infosets[player][id].actions.to_vec())
    }

    /// `(information set, action)` label pairs of `player` in the flat layout of
    /// `Policy.to_numpy()`.
    fn action_labels(&self, player: i64) -> PyResult<Vec<(String, String)>> {
        let player = check_player(player)?;
        let mut out = Vec::with_capacity(self.inner.num_actions[player]);
        for set in &self.inner.infosets[player] {
            for a in set.actions.iter() {
                out.push((set.label.clone(), a.clone()));
            }
        }
        Ok(out)
    }

    /// Writes the game as a Gambit `.efg` file that Gambit and OpenSpiel's `efg_game` both read
    /// (by bluff's safe-write rules: a regular file is replaced atomically and keeps its mode).
    fn write_efg(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let game = self.inner.clone();
        py.allow_threads(move || -> bluff::Result<()> {
            let text = bluff::format::efg::write_efg(&bluff::format::efg::game_to_efg(&game))?;
            Ok(bluff::format::output::write_file(&path, text.as_bytes())?)
        })
        .map_err(to_py_err)
    }

    /// Pickles as the built-in spec, else as `.efg` text (see `_unpickle_game`).
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, (&'static str, String))> {
        let f = py.import("bluff._bluff")?.getattr("_unpickle_game")?;
        let state = match &self.spec {
            Some(spec) => ("spec", spec.clone()),
            None => {
                let game = self.inner.clone();
                let text = py
                    .allow_threads(move || {
                        bluff::format::efg::write_efg(&bluff::format::efg::game_to_efg(&game))
                    })
                    .map_err(to_py_err)?;
                ("efg", text)
            }
        };
        Ok((f, state))
    }

    fn __repr__(&self) -> String {
        let g = &self.inner;
        format!(
            "<bluff.Game {:?}: {} nodes, {} + {} information sets>",
            g.name,
            g.nodes.len(),
            g.infosets[0].len(),
            g.infosets[1].len()
        )
    }
}

/// Loads a built-in game: `"kuhn"`, `"leduc"`, `"one-card-poker(n=5,a=2,b=1)"` (see the CLI's
/// `bluff games`).
#[pyfunction]
pub fn game(spec: &str) -> PyResult<Game> {
    if bluff::games::is_file_spec(spec) {
        return Err(PyValueError::new_err(format!(
            "{} is a file name: use bluff.read_efg or bluff.read_nfg",
            quoted(spec)
        )));
    }
    bluff::games::builtin(spec)
        .map(|g| Game::new(g).with_spec(spec))
        .map_err(to_py_err)
}

/// The built-in games as `(name, description)` pairs; parameters go in parentheses, as in
/// `bluff.game("one-card-poker(n=5,a=2,b=1)")`.
#[pyfunction]
pub fn builtin_games() -> Vec<(String, String)> {
    bluff::games::registry()
        .iter()
        .map(|g| (g.name.to_string(), g.description.to_string()))
        .collect()
}

/// Issues `message` as a `bluff.BluffWarning`.
pub fn warn(py: Python<'_>, message: &str) -> PyResult<()> {
    let category = py.get_type::<BluffWarning>();
    PyErr::warn(py, &category, &std::ffi::CString::new(message)?, 1)
}

/// Reads a Gambit `.efg` file (warnings are issued as `bluff.BluffWarning`).
#[pyfunction]
pub fn read_efg(py: Python<'_>, path: PathBuf) -> PyResult<Game> {
    let (game, warnings) = py
        .allow_threads(|| bluff::format::efg::load_efg_file(&path))
        .map_err(to_py_err)?;
    for w in warnings {
        warn(py, &format!("{}: {w}", path.display()))?;
    }
    Ok(Game::new(game))
}

/// Reads a Gambit `.nfg` file as a two-stage game (player 2 does not see player 1's choice).
#[pyfunction]
pub fn read_nfg(py: Python<'_>, path: PathBuf) -> PyResult<Game> {
    py.allow_threads(|| bluff::format::nfg::load_nfg_file(&path))
        .map(Game::new)
        .map_err(to_py_err)
}

/// Builds a game node by node; `build()` validates it and returns a `Game`.
#[pyclass(module = "bluff")]
pub struct GameBuilder {
    inner: Option<RustBuilder>,
    /// Python node handles (list positions) -> builder nodes.
    refs: Vec<NodeRef>,
}

impl GameBuilder {
    fn builder(&mut self) -> PyResult<&mut RustBuilder> {
        self.inner
            .as_mut()
            .ok_or_else(|| PyValueError::new_err("this GameBuilder has already been built"))
    }

    fn node(&self, node: i64) -> PyResult<NodeRef> {
        let found = usize::try_from(node).ok().and_then(|n| self.refs.get(n));
        found.copied().ok_or_else(|| {
            PyIndexError::new_err(format!(
                "node {node} does not exist (the builder has {} nodes)",
                self.refs.len()
            ))
        })
    }

    fn push(&mut self, children: Vec<NodeRef>) -> Vec<usize> {
        let start = self.refs.len();
        self.refs.extend(children);
        (start..self.refs.len()).collect()
    }

    /// The Rust builder and handle table, for `from_openspiel`.
    pub fn from_parts(builder: RustBuilder) -> Self {
        let root = builder.root();
        GameBuilder {
            inner: Some(builder),
            refs: vec![root],
        }
    }
}

fn game_err(e: model::GameError) -> PyErr {
    GameError::new_err(e.to_string())
}

#[pymethods]
impl GameBuilder {
    /// Starts a game whose root (node 0) is still empty.
    #[new]
    #[pyo3(signature = (name = "game", players = ("Player 1".to_string(), "Player 2".to_string())))]
    fn py_new(name: &str, players: (String, String)) -> Self {
        Self::from_parts(RustBuilder::new(name, players.0, players.1))
    }

    /// The root node's handle (always 0).
    #[getter]
    fn root(&self) -> usize {
        0
    }

    /// Number of nodes created so far.
    #[getter]
    fn num_nodes(&self) -> usize {
        self.refs.len()
    }

    /// Makes `node` a chance node. `outcomes` is a dict `{label: probability}` or a sequence of
    /// `(label, probability)` pairs; probabilities are `Fraction`, `int`, `"p/q"` strings or
    /// floats (a float means the simplest fraction that rounds to it: 0.1 is 1/10) and must sum
    /// to exactly 1. Returns the children's handles.
    fn chance(&mut self, node: i64, outcomes: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
        let at = self.node(node)?;
        let pairs: Vec<(String, Bound<'_, PyAny>)> = match outcomes.downcast::<PyDict>() {
            Ok(d) => d
                .iter()
                .map(|(k, v)| Ok((k.extract::<String>()?, v)))
                .collect::<PyResult<_>>()?,
            Err(_) => outcomes
                .try_iter()?
                .map(|item| item?.extract::<(String, Bound<'_, PyAny>)>())
                .collect::<PyResult<_>>()?,
        };
        let mut parsed: Vec<(String, Rational)> = Vec::with_capacity(pairs.len());
        for (label, p) in pairs {
            let what = format!("chance node {node}, outcome {}", quoted(&label));
            let r = rational_from_py(&p, &what)?;
            parsed.push((label, r));
        }
        let children = self.builder()?.chance(at, parsed).map_err(game_err)?;
        Ok(self.push(children))
    }

    /// Makes `node` a decision of `player` (0 or 1) in the information set labelled `infoset`
    /// with the given action labels; nodes sharing a label form one information set and must
    /// have the same actions. Returns the children's handles.
    fn decision(
        &mut self,
        node: i64,
        player: i64,
        infoset: &str,
        actions: Vec<String>,
    ) -> PyResult<Vec<usize>> {
        let at = self.node(node)?;
        let player = check_player(player)?;
        let children = self
            .builder()?
            .decision(at, player, infoset, &actions)
            .map_err(game_err)?;
        Ok(self.push(children))
    }

    /// Makes `node` terminal. `payoffs` is a pair `(player 0, player 1)` or one number (player
    /// 0's payoff in a zero-sum game); numbers are read exactly as in `chance`.
    #[pyo3(signature = (node, payoffs, label = ""))]
    fn terminal(&mut self, node: i64, payoffs: &Bound<'_, PyAny>, label: &str) -> PyResult<()> {
        let at = self.node(node)?;
        let what = format!("terminal node {node}, payoff");
        let pair = if let Ok(t) = payoffs.downcast::<PyTuple>() {
            pair_of(t.iter().collect(), &what)?
        } else if let Ok(list) = payoffs.extract::<Vec<Bound<'_, PyAny>>>() {
            if payoffs.extract::<String>().is_ok() {
                let u = rational_from_py(payoffs, &what)?;
                [u.clone(), -u]
            } else {
                pair_of(list, &what)?
            }
        } else {
            let u = rational_from_py(payoffs, &what)?;
            [u.clone(), -u]
        };
        self.builder()?
            .terminal_labelled(at, pair, label)
            .map_err(game_err)
    }

    /// Validates the game (every node set, probabilities, constant-sum payoffs, perfect
    /// recall) and compiles it; the builder cannot be used afterwards.
    fn build(&mut self, py: Python<'_>) -> PyResult<Game> {
        let b = self
            .inner
            .take()
            .ok_or_else(|| PyValueError::new_err("this GameBuilder has already been built"))?;
        py.allow_threads(|| b.build())
            .map(Game::new)
            .map_err(game_err)
    }
}

fn pair_of(items: Vec<Bound<'_, PyAny>>, what: &str) -> PyResult<[Rational; 2]> {
    if items.len() != 2 {
        return Err(GameError::new_err(format!(
            "{what}s: expected 2 numbers (one per player), got {}",
            items.len()
        )));
    }
    Ok([
        rational_from_py(&items[0], &format!("{what} of player 0"))?,
        rational_from_py(&items[1], &format!("{what} of player 1"))?,
    ])
}

/// Rebuilds a pickled `Game`: `("spec", spec)` or `("efg", text)`.
#[pyfunction]
pub fn _unpickle_game(py: Python<'_>, kind: &str, data: String) -> PyResult<Game> {
    match kind {
        "spec" => game(&data),
        "efg" => {
            let (game, _) = py
                .allow_threads(|| bluff::format::efg::load_efg(data.as_bytes(), |_| {}))
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            Ok(Game::new(game))
        }
        other => Err(PyValueError::new_err(format!(
            "unknown pickled game kind {other:?}"
        ))),
    }
}
