//! `bluff.Policy` (behavioural strategies of both players), its conversions, and `evaluate`.

use crate::convert::{f64_from_py, rational_from_py, to_fraction};
use crate::errors::PolicyError;
use crate::game::Game;
use bluff::format::strategy_json::{profile_from_json, profile_to_json};
use bluff::format::text::{quoted, quoted_list};
use bluff::scalar::{rational_to_f64, Rational};
use bluff::strategy::{normalize_exact, ExactProfile, Profile};
use num_traits::{One, Signed, Zero};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::path::PathBuf;

/// Probabilities in floating point or exactly.
#[derive(Clone)]
pub enum Probs {
    /// `f64` probabilities (CFR results, numpy arrays).
    Float(Profile<f64>),
    /// Exact rationals (LP results, exact dicts).
    Exact(ExactProfile),
}

/// A behavioural strategy for both players of one game: a probability for every action of
/// every information set.
#[pyclass(module = "bluff", frozen)]
pub struct Policy {
    pub game: Py<Game>,
    pub probs: Probs,
}

impl Policy {
    /// The profile in `f64`.
    pub fn float_profile(&self) -> Profile<f64> {
        match &self.probs {
            Probs::Float(p) => p.clone(),
            Probs::Exact(p) => p.to_f64(),
        }
    }

    /// The profile exactly (floats by their exact binary value, renormalised per information set).
    pub fn exact_profile(&self) -> ExactProfile {
        match &self.probs {
            Probs::Float(p) => p.to_exact(&self.game.get().inner),
            Probs::Exact(p) => p.clone(),
        }
    }
}

fn prob_to_py<'py>(
    py: Python<'py>,
    probs: &Probs,
    player: usize,
    a: usize,
) -> PyResult<Bound<'py, PyAny>> {
    match probs {
        Probs::Float(p) => Ok(p.probs[player][a].into_pyobject(py)?.into_any()),
        Probs::Exact(p) => to_fraction(py, &p.probs[player][a]),
    }
}

/// Checks each information set's probabilities (non-negative, summing to 1 within 1e-6) and
/// renormalises them exactly; `where_` names the source in messages.
fn validate_exact(game: &bluff::game::Game, probs: &mut [Vec<Rational>; 2]) -> PyResult<()> {
    let tolerance = Rational::new(1.into(), 1_000_000.into());
    for p in 0..2 {
        for set in &game.infosets[p] {
            let slice = &probs[p][set.action_range()];
            if let Some(k) = slice.iter().position(|x| x.is_negative()) {
                return Err(PolicyError::new_err(format!(
                    "player {p}, information set {}: action {} has negative probability {}",
                    quoted(&set.label),
                    quoted(&set.actions[k]),
                    rational_to_f64(&slice[k])
                )));
            }
            let sum: Rational = slice.iter().sum();
            if (&sum - Rational::one()).abs() > tolerance {
                return Err(PolicyError::new_err(format!(
                    "player {p}, information set {}: probabilities sum to {}, expected 1 (within 1e-6)",
                    quoted(&set.label),
                    rational_to_f64(&sum)
                )));
            }
        }
        normalize_exact(game, p, &mut probs[p]);
    }
    Ok(())
}

fn validate_float(game: &bluff::game::Game, probs: &mut [Vec<f64>; 2]) -> PyResult<()> {
    for p in 0..2 {
        for set in &game.infosets[p] {
            let slice = &mut probs[p][set.action_range()];
            if let Some(k) = slice.iter().position(|x| !(x.is_finite() && *x >= 0.0)) {
                return Err(PolicyError::new_err(format!(
                    "player {p}, information set {}: action {} has probability {}, expected a finite non-negative number",
                    quoted(&set.label), quoted(&set.actions[k]), slice[k]
                )));
            }
            let sum: f64 = slice.iter().sum();
            if (sum - 1.0).abs() > 1e-6 {
                return Err(PolicyError::new_err(format!(
                    "player {p}, information set {}: probabilities sum to {sum}, expected 1 (within 1e-6)",
                    quoted(&set.label)
                )));
            }
            for x in slice.iter_mut() {
                *x /= sum;
            }
        }
    }
    Ok(())
}

/// Reads the per-player dict `{infoset: {action: prob}}` (every set and action present).
fn read_player_dict<T>(
    game: &Game,
    player: usize,
    data: &Bound<'_, PyAny>,
    out: &mut [T],
    mut read: impl FnMut(&Bound<'_, PyAny>, &str) -> PyResult<T>,
) -> PyResult<()> {
    let g = &game.inner;
    let dict = data.downcast::<PyDict>().map_err(|_| {
        PolicyError::new_err(format!(
            "player {player}: expected a dict {{information set: {{action: probability}}}}"
        ))
    })?;
    for key in dict.keys() {
        let label: String = key.extract().map_err(|_| {
            PolicyError::new_err(format!(
                "player {player}: information-set keys must be strings"
            ))
        })?;
        if game.infoset_id(player, &label).is_none() {
            return Err(PolicyError::new_err(format!(
                "player {player} has no information set {}",
                quoted(&label)
            )));
        }
    }
    for set in &g.infosets[player] {
        let actions = dict.get_item(&set.label)?.ok_or_else(|| {
            PolicyError::new_err(format!(
                "player {player}: information set {} is missing",
                quoted(&set.label)
            ))
        })?;
        let actions = actions.downcast::<PyDict>().map_err(|_| {
            PolicyError::new_err(format!(
                "player {player}, information set {}: expected a dict {{action: probability}}",
                quoted(&set.label)
            ))
        })?;
        if actions.len() != set.actions.len() {
            return Err(PolicyError::new_err(format!(
                "player {player}, information set {}: {} actions given, expected {}",
                quoted(&set.label),
                actions.len(),
                quoted_list(&set.actions)
            )));
        }
        for (k, a) in set.actions.iter().enumerate() {
            let v = actions.get_item(a)?.ok_or_else(|| {
                PolicyError::new_err(format!(
                    "player {player}, information set {}: action {} is missing (expected {})",
                    quoted(&set.label),
                    quoted(a),
                    quoted_list(&set.actions)
                ))
            })?;
            let what = format!(
                "player {player}, information set {}, action {}",
                quoted(&set.label),
                quoted(a)
            );
            out[set.action_offset + k] = read(&v, &what)?;
        }
    }
    Ok(())
}

fn two_items<'py>(data: &Bound<'py, PyAny>, what: &str) -> PyResult<[Bound<'py, PyAny>; 2]> {
    let items: Vec<Bound<'py, PyAny>> = if let Ok(t) = data.downcast::<PyTuple>() {
        t.iter().collect()
    } else if let Ok(l) = data.downcast::<PyList>() {
        l.iter().collect()
    } else {
        return Err(PolicyError::new_err(format!(
            "expected a list or tuple of two {what} (one per player)"
        )));
    };
    let [a, b]: [Bound<'py, PyAny>; 2] = items.try_into().map_err(|v: Vec<_>| {
        PolicyError::new_err(format!(
            "expected two {what} (one per player), got {}",
            v.len()
        ))
    })?;
    Ok([a, b])
}

#[pymethods]
impl Policy {
    /// The game this policy belongs to.
    #[getter]
    fn game(&self, py: Python<'_>) -> Py<Game> {
        self.game.clone_ref(py)
    }

    /// True when the probabilities are exact fractions.
    #[getter]
    fn exact(&self) -> bool {
        matches!(self.probs, Probs::Exact(_))
    }

    /// Every action of every information set equally likely (exact).
    #[staticmethod]
    fn uniform(game: Py<Game>) -> Self {
        let probs = Probs::Exact(ExactProfile::uniform(&game.get().inner));
        Policy { game, probs }
    }

    /// The probabilities of one information set (by label or index) as `{action: prob}`.
    fn probabilities<'py>(
        &self,
        py: Python<'py>,
        player: i64,
        infoset: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let player = crate::game::check_player(player)?;
        let game = self.game.get();
        let id = game.resolve(player, infoset)?;
        let set = &game.inner.infosets[player][id];
        let out = PyDict::new(py);
        for (k, a) in set.actions.iter().enumerate() {
            out.set_item(
                a,
                prob_to_py(py, &self.probs, player, set.action_offset + k)?,
            )?;
        }
        Ok(out)
    }

    /// Both players' strategies as `[{infoset: {action: prob}}, {...}]` (floats, or `Fraction`s
    /// for an exact policy).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let g = &self.game.get().inner;
        let out = PyList::empty(py);
        for p in 0..2 {
            let d = PyDict::new(py);
            for set in &g.infosets[p] {
                let inner = PyDict::new(py);
                for (k, a) in set.actions.iter().enumerate() {
                    inner.set_item(a, prob_to_py(py, &self.probs, p, set.action_offset + k)?)?;
                }
                d.set_item(&set.label, inner)?;
            }
            out.append(d)?;
        }
        Ok(out)
    }

    /// Reads `[{infoset: {action: prob}}, {...}]`: every information set and action must be
    /// present, probabilities non-negative and summing to 1 within 1e-6 (then renormalised).
    /// With `exact=True` numbers are read exactly (floats as the simplest fraction that rounds
    /// to them) and the policy is exact.
    #[staticmethod]
    #[pyo3(signature = (game, data, exact = false))]
    fn from_dict(game: Py<Game>, data: &Bound<'_, PyAny>, exact: bool) -> PyResult<Self> {
        let g = game.get();
        let [d0, d1] = two_items(data, "dicts")?;
        let probs = if exact {
            let mut probs = [0, 1].map(|p| vec![Rational::zero(); g.inner.num_actions[p]]);
            for (p, d) in [d0, d1].iter().enumerate() {
                read_player_dict(g, p, d, &mut probs[p], rational_from_py)?;
            }
            validate_exact(&g.inner, &mut probs)?;
            Probs::Exact(Profile { probs })
        } else {
            let mut probs = [0, 1].map(|p| vec![0.0; g.inner.num_actions[p]]);
            for (p, d) in [d0, d1].iter().enumerate() {
                read_player_dict(g, p, d, &mut probs[p], f64_from_py)?;
            }
            validate_float(&g.inner, &mut probs)?;
            Probs::Float(Profile { probs })
        };
        Ok(Policy { game, probs })
    }

    /// Both players' probabilities as two float64 arrays in the layout of
    /// `Game.action_labels(player)`.
    fn to_numpy<'py>(
        &self,
        py: Python<'py>,
    ) -> (Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>) {
        let [a, b] = self.float_profile().probs;
        (PyArray1::from_vec(py, a), PyArray1::from_vec(py, b))
    }

    /// Reads two float arrays in the layout of `Game.action_labels(player)` (checked as in
    /// `from_dict`).
    #[staticmethod]
    fn from_numpy(game: Py<Game>, arrays: &Bound<'_, PyAny>) -> PyResult<Self> {
        let g = game.get();
        let [a0, a1] = two_items(arrays, "arrays")?;
        let mut probs: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for (p, a) in [a0, a1].iter().enumerate() {
            let np = PyModule::import(a.py(), "numpy")?;
            let arr = np.call_method1("ascontiguousarray", (a, "float64"))?;
            let arr: PyReadonlyArray1<f64> = arr.extract().map_err(|_| {
                PolicyError::new_err(format!("player {p}: expected a one-dimensional array"))
            })?;
            let v = arr.as_slice()?.to_vec();
            if v.len() != g.inner.num_actions[p] {
                return Err(PolicyError::new_err(format!(
                    "player {p}: array has {} entries, expected {} (one per action, see Game.action_labels({p}))",
                    v.len(),
                    g.inner.num_actions[p]
                )));
            }
            probs[p] = v;
        }
        validate_float(&g.inner, &mut probs)?;
        Ok(Policy {
            game,
            probs: Probs::Float(Profile { probs }),
        })
    }

    /// This policy as an OpenSpiel `TabularPolicy` of `pyspiel_game`, the game it was imported
    /// from with `bluff.from_openspiel` (information sets are matched by
    /// `information_state_string`, actions by `legal_actions()` order).
    fn to_openspiel<'py>(
        slf: &Bound<'py, Self>,
        pyspiel_game: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        py.import("bluff._openspiel")?
            .call_method1("to_tabular_policy", (slf, pyspiel_game))
    }

    /// Writes the policy as a strategy JSON file, the format `bluff eval` and
    /// `Policy.read_json` read (exact policies as `"p/q"` strings, float ones as numbers). A
    /// regular file is replaced atomically and keeps its mode; devices and pipes are written in
    /// place.
    fn write_json(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let game = &self.game.get().inner;
        let value = match &self.probs {
            Probs::Float(p) => profile_to_json(game, &game.name, p),
            Probs::Exact(p) => profile_to_json(game, &game.name, p),
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise") + "\n";
        py.allow_threads(|| bluff::format::output::write_file(&path, text.as_bytes()))
            .map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// Reads a strategy JSON file (as `bluff eval` does: every information set and action
    /// present, probabilities read exactly and summing to 1 within 1e-6); the policy is exact.
    #[staticmethod]
    fn read_json(py: Python<'_>, game: Py<Game>, path: PathBuf) -> PyResult<Self> {
        let text = std::fs::read_to_string(&path)
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let (profile, _) = py
            .allow_threads(|| profile_from_json(&game.get().inner, &text))
            .map_err(|e| PolicyError::new_err(format!("{}: {e}", path.display())))?;
        Ok(Policy {
            game,
            probs: Probs::Exact(profile),
        })
    }

    /// Reads an OpenSpiel policy (a `TabularPolicy`, or any `open_spiel` `Policy`) on `game`,
    /// imported with `bluff.from_openspiel`.
    #[staticmethod]
    fn from_openspiel<'py>(
        py: Python<'py>,
        game: Py<Game>,
        policy: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        py.import("bluff._openspiel")?
            .call_method1("from_openspiel_policy", (game, policy))
    }

    /// Equal when the games are the same (by fingerprint) and every probability is the same
    /// (floats bit for bit; a float policy never equals an exact one).
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        let Ok(other) = other.downcast::<Policy>() else {
            return false;
        };
        let other = other.get();
        let (a, b) = (&self.game.get().inner, &other.game.get().inner);
        let fingerprint = bluff::cfr::checkpoint::game_fingerprint;
        let same_game = std::sync::Arc::ptr_eq(a, b) || fingerprint(a) == fingerprint(b);
        same_game
            && match (&self.probs, &other.probs) {
                (Probs::Float(x), Probs::Float(y)) => (0..2).all(|p| {
                    x.probs[p].len() == y.probs[p].len()
                        && x.probs[p]
                            .iter()
                            .zip(&y.probs[p])
                            .all(|(u, v)| u.to_bits() == v.to_bits())
                }),
                (Probs::Exact(x), Probs::Exact(y)) => x.probs == y.probs,
                _ => false,
            }
    }

    /// Pickles as the game and the probabilities (floats bit for bit, rationals as text).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, PyObject)> {
        let f = py.import("bluff._bluff")?.getattr("_unpickle_policy")?;
        let game = self.game.clone_ref(py);
        let args = match &self.probs {
            Probs::Float(p) => {
                let bytes = p.probs.each_ref().map(|v| crate::convert::f64_bytes(py, v));
                (game, "float", bytes[0].clone(), bytes[1].clone())
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
            Probs::Exact(p) => {
                let text = p
                    .probs
                    .each_ref()
                    .map(|v| v.iter().map(|r| r.to_string()).collect::<Vec<_>>());
                (game, "exact", text[0].clone(), text[1].clone())
                    .into_pyobject(py)?
                    .into_any()
                    .unbind()
            }
        };
        Ok((f, args))
    }

    fn __repr__(&self) -> String {
        let g = &self.game.get().inner;
        format!(
            "<bluff.Policy of {:?}: {} + {} actions, {}>",
            g.name,
            g.num_actions[0],
            g.num_actions[1],
            if self.exact() { "exact" } else { "float" }
        )
    }
}

/// Values, best-response values, NashConv and exploitability of a policy.
#[pyclass(module = "bluff", frozen, get_all)]
pub struct Evaluation {
    /// Each player's expected payoff under the policy.
    pub value: (PyObject, PyObject),
    /// Each player's payoff when best-responding to the other's strategy.
    pub best_response_value: (PyObject, PyObject),
    /// Sum over players of what a best response gains (0 exactly at a Nash equilibrium).
    pub nash_conv: PyObject,
    /// NashConv / 2 (OpenSpiel's definition).
    pub exploitability: PyObject,
    /// What player 1 gains by best-responding (`best_response_value[0] - value[0]`).
    pub gain_p1: PyObject,
    /// What player 2 gains by best-responding (`best_response_value[1] - value[1]`).
    pub gain_p2: PyObject,
    /// True for a general-sum game (NashConv is then the sum of the gains, and no equilibrium
    /// value is shared by the players).
    pub general_sum: bool,
    /// True when computed in exact rationals (the numbers are then `Fraction`s).
    pub exact: bool,
}

#[pymethods]
impl Evaluation {
    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<bluff.Evaluation value={} nash_conv={} exploitability={}{}>",
            self.value.0.bind(py).repr()?,
            self.nash_conv.bind(py).repr()?,
            self.exploitability.bind(py).repr()?,
            if self.exact { " (exact)" } else { "" }
        ))
    }
}

/// Turns a `Policy`, a per-player dict list, or an OpenSpiel policy into a `Policy` of `game`.
pub fn as_policy(
    py: Python<'_>,
    game: &Py<Game>,
    policy: &Bound<'_, PyAny>,
) -> PyResult<Py<Policy>> {
    if let Ok(p) = policy.downcast::<Policy>() {
        let pg = p.get().game.get();
        let g = game.get();
        if !same_layout(&pg.inner, &g.inner) {
            return Err(PolicyError::new_err(
                "the policy belongs to a game with different information sets or actions",
            ));
        }
        return Ok(p.clone().unbind());
    }
    if policy.downcast::<PyList>().is_ok() || policy.downcast::<PyTuple>().is_ok() {
        return Py::new(py, Policy::from_dict(game.clone_ref(py), policy, false)?);
    }
    if policy.hasattr("action_probabilities")? {
        let p = Policy::from_openspiel(py, game.clone_ref(py), policy)?;
        return Ok(p.downcast_into::<Policy>()?.unbind());
    }
    Err(PolicyError::new_err(format!(
        "expected a bluff.Policy, a list of two dicts or an OpenSpiel policy, got {}",
        policy.get_type().name()?
    )))
}

/// Same players' information sets with the same actions, in the same order.
fn same_layout(a: &bluff::game::Game, b: &bluff::game::Game) -> bool {
    if std::ptr::eq(a, b) {
        return true;
    }
    (0..2).all(|p| {
        a.infosets[p].len() == b.infosets[p].len()
            && a.infosets[p]
                .iter()
                .zip(&b.infosets[p])
                .all(|(x, y)| x.label == y.label && x.actions == y.actions)
    })
}

/// Values, best responses, NashConv and exploitability of `policy` in `game`; with
/// `exact=True` in exact rationals (float probabilities taken at their exact binary value and
/// renormalised per information set), returned as `Fraction`s. A hold'em spot
/// (`bluff.holdem.Spot`) with a strategy of it gives a `bluff.holdem.SpotEvaluation`.
#[pyfunction]
#[pyo3(signature = (game, policy, exact = false))]
pub fn evaluate(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    policy: &Bound<'_, PyAny>,
    exact: bool,
) -> PyResult<PyObject> {
    if let Ok(spot) = game.downcast::<crate::spot::Spot>() {
        let e = crate::spot::evaluate(py, spot.clone().unbind(), policy, exact)?;
        return Ok(Py::new(py, e)?.into_any());
    }
    let game: Py<Game> = game.extract()?;
    Ok(Py::new(py, evaluate_game(py, game, policy, exact)?)?.into_any())
}

/// [`evaluate`] on a game.
fn evaluate_game(
    py: Python<'_>,
    game: Py<Game>,
    policy: &Bound<'_, PyAny>,
    exact: bool,
) -> PyResult<Evaluation> {
    let policy = as_policy(py, &game, policy)?;
    let g = game.get().inner.clone();
    let general_sum = !g.is_constant_sum();
    let pol = policy.get();
    if exact {
        let profile = pol.exact_profile();
        let e = py.allow_threads(|| bluff::eval::exploitability(&g, &profile));
        let f = |r: &Rational| -> PyResult<PyObject> { Ok(to_fraction(py, r)?.unbind()) };
        Ok(Evaluation {
            value: (f(&e.value[0])?, f(&e.value[1])?),
            best_response_value: (f(&e.best_response_value[0])?, f(&e.best_response_value[1])?),
            nash_conv: f(&e.nash_conv)?,
            exploitability: f(&e.exploitability)?,
            gain_p1: f(&e.gain[0])?,
            gain_p2: f(&e.gain[1])?,
            general_sum,
            exact: true,
        })
    } else {
        let profile = pol.float_profile();
        let e = py.allow_threads(|| bluff::eval::exploitability(&g, &profile));
        let f = |x: f64| -> PyResult<PyObject> { Ok(x.into_pyobject(py)?.into_any().unbind()) };
        Ok(Evaluation {
            value: (f(e.value[0])?, f(e.value[1])?),
            best_response_value: (f(e.best_response_value[0])?, f(e.best_response_value[1])?),
            nash_conv: f(e.nash_conv)?,
            exploitability: f(e.exploitability)?,
            gain_p1: f(e.gain[0])?,
            gain_p2: f(e.gain[1])?,
            general_sum,
            exact: false,
        })
    }
}

/// The exact best response of `player` (0 or 1) to the other player's part of `policy`: a
/// `Policy` (exact) in which `player` plays its best response (the first action where actions
/// tie or the opponent never reaches a set) and the other player keeps `policy`'s strategy.
#[pyfunction]
#[pyo3(signature = (game, policy, player))]
pub fn best_response(
    py: Python<'_>,
    game: Py<Game>,
    policy: &Bound<'_, PyAny>,
    player: i64,
) -> PyResult<Policy> {
    if !(0..=1).contains(&player) {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "player={player}: expected 0 or 1"
        )));
    }
    let p = player as usize;
    let policy = as_policy(py, &game, policy)?;
    let g = game.get().inner.clone();
    let profile = policy.get().exact_profile();
    let out = py.allow_threads(|| {
        let br = bluff::eval::best_response(&g, &profile, p);
        br.apply(&g, &profile)
    });
    Ok(Policy {
        game: game.clone_ref(py),
        probs: Probs::Exact(out),
    })
}

/// Rebuilds a pickled `Policy`.
#[pyfunction]
pub fn _unpickle_policy(
    game: Py<Game>,
    kind: &str,
    first: &Bound<'_, PyAny>,
    second: &Bound<'_, PyAny>,
) -> PyResult<Policy> {
    let probs = match kind {
        "float" => {
            let a = crate::convert::bytes_f64(first.extract::<&[u8]>()?)?;
            let b = crate::convert::bytes_f64(second.extract::<&[u8]>()?)?;
            Probs::Float(Profile { probs: [a, b] })
        }
        "exact" => {
            let parse = |v: Vec<String>| -> PyResult<Vec<bluff::scalar::Rational>> {
                v.iter()
                    .map(|s| {
                        s.parse().map_err(|_| {
                            pyo3::exceptions::PyValueError::new_err(format!("bad fraction {s:?}"))
                        })
                    })
                    .collect()
            };
            let a = parse(first.extract()?)?;
            let b = parse(second.extract()?)?;
            Probs::Exact(ExactProfile { probs: [a, b] })
        }
        other => {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "unknown pickled policy kind {other:?}"
            )))
        }
    };
    let n = game.get().inner.num_actions;
    let lens = match &probs {
        Probs::Float(p) => [p.probs[0].len(), p.probs[1].len()],
        Probs::Exact(p) => [p.probs[0].len(), p.probs[1].len()],
    };
    if lens != n {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "pickled policy has {lens:?} probabilities; the game has {n:?} actions"
        )));
    }
    Ok(Policy { game, probs })
}
