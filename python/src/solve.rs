//! `bluff.solve`: every algorithm through the solve layer's one door, with the GIL released.

use crate::convert::{to_fraction, to_py_err};
use crate::game::Game;
use crate::hooks::{sampling_stats, PythonHooks};
use crate::policy::{Policy, Probs};
use bluff::cfr::Kernel;
use bluff::exact::sequence_form::{LpForm, LpPrimal};
use bluff::exact::ExactStats;
use bluff::solve::door::{
    self, Detail, LpMethodChoice, Request, SolveError, Solved, Source, Spelling, Strategy, Value,
};
use bluff::solve::registry::{self, Updates};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::Instant;

/// What `bluff.solve` returns.
#[pyclass(module = "bluff", frozen, get_all)]
pub struct SolveResult {
    /// The algorithm that ran.
    pub algo: String,
    /// The average policy (CFR family) or the exact equilibrium (`"lp"`).
    pub policy: Py<Policy>,
    /// The strategy the next iteration would play (CFR family; `None` for `"lp"`).
    pub current_policy: Option<Py<Policy>>,
    /// Exploitability of `policy` (float; `Fraction(0)` for `"lp"`, certified exactly).
    pub exploitability: PyObject,
    /// NashConv of `policy` (2 x exploitability).
    pub nash_conv: PyObject,
    /// Player 0's expected payoff under `policy` (`Fraction` for `"lp"`: the exact game value).
    pub value: PyObject,
    /// Player 1's expected payoff under `policy` (`Fraction` for `"lp"`).
    pub value_p2: PyObject,
    /// Iterations run (0 for `"lp"`).
    pub iterations: u64,
    /// Iterations the team of `threads` threads ran; one thread ran the others, where it was
    /// measured faster (timed as it ran; the results are the same bits either way).
    pub team_iterations: u64,
    /// `(iteration, exploitability, seconds)` at each measurement; seconds exclude measuring.
    pub curve: Vec<(u64, f64, f64)>,
    /// Solving time in seconds (without exploitability measurements).
    pub seconds: f64,
    /// Seconds spent setting the solver up before its first iteration (not in `seconds`).
    pub setup_seconds: f64,
    /// Total wall time of the call in seconds, measurements included.
    pub wall_seconds: f64,
    /// LP statistics (`"lp"` only): sizes, pivots and phase times.
    pub stats: Option<Py<PyDict>>,
    /// The CFR kernel that ran (`"tree"` or `"sequence"`; `None` for `"lp"`).
    pub kernel: Option<String>,
}

#[pymethods]
impl SolveResult {
    /// Pickles field by field (see `bluff._bluff._unpickle_result`).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, PyObject)> {
        reduce_result(py, self)
    }

    /// Both players' expected payoffs under `policy`: `(value, value_p2)`.
    #[getter]
    fn values(&self, py: Python<'_>) -> (PyObject, PyObject) {
        (self.value.clone_ref(py), self.value_p2.clone_ref(py))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<bluff.SolveResult algo={:?} iterations={} exploitability={} value={} seconds={:.3}>",
            self.algo,
            self.iterations,
            self.exploitability.bind(py).repr()?,
            self.value.bind(py).repr()?,
            self.seconds
        ))
    }
}

/// Maps a solve-layer error to the matching Python exception: `ValueError` for the caller's
/// request, the library's typed errors as `bluff`'s exceptions.
fn door_err(e: SolveError) -> PyErr {
    match e {
        SolveError::Game(e) => to_py_err(e),
        SolveError::Exact(e) => to_py_err(e.into()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// A string keyword among `choices`, or a `ValueError` naming it.
fn choice<T: Copy>(name: &str, given: Option<&str>, choices: &[(&str, T)]) -> PyResult<Option<T>> {
    let Some(text) = given else {
        return Ok(None);
    };
    match choices.iter().find(|(n, _)| *n == text) {
        Some((_, v)) => Ok(Some(*v)),
        None => Err(PyValueError::new_err(format!(
            "{name}={}: expected {}",
            bluff::format::text::quoted(text),
            choices
                .iter()
                .map(|(n, _)| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(" or ")
        ))),
    }
}

/// Solves `game` with `algo`, by name (`bluff.algorithms()` lists them; `None`: the default of
/// every front end, the algorithm with the lowest exploitability after 1000 iterations on most
/// games of bluff's convergence leaderboard). Every keyword goes into the solve layer's one
/// request (`bluff::solve::door`), which decides which options apply to which algorithm, their
/// ranges and defaults, exactly as for the command line (a keyword that does not apply is
/// refused with the command line's message, spelled `name=`). The CFR family stops at
/// `iterations`, at exploitability `target` (payoff units) or `target_relative` (a fraction of
/// the payoff range) or after `time` seconds, whichever comes first, measuring exploitability
/// at roughly geometrically spaced iterations at most `check_every` apart (default 1000);
/// `alpha`, `beta`, `gamma` and `updates` (`"simultaneous"` or `"alternating"`) override the
/// algorithm's own where it takes them. `"lp"`: the exact sequence-form LP, certified by exact
/// best responses (`max_memory` in bytes, `lp_form` `"merged"`/`"textbook"`, `lp_primal`
/// `"auto"`/`"p1"`/`"p2"`, `lp_method` `"guided"`/`"tableau"`). `threads` defaults to all cores;
/// results do not depend on it, and the CFR family runs an iteration on one thread where that
/// was timed faster, unless `always_threads`. The sampling solvers (`"es-mccfr"`,
/// `"os-mccfr"`: Monte Carlo CFR, OpenSpiel's parameters unless `alpha`, `beta`, `gamma`,
/// `epsilon` (outcome sampling's exploration), `baseline` (VR-MCCFR baselines' rate),
/// `rm_plus` or `epoch` are set) run with `seed` (default 0) on `threads` threads (default 1:
/// their results depend on the seed and the thread count). `kernel` (`"tree"` or
/// `"sequence"`) picks the CFR kernel; by default the game's shape does (`SolveResult.kernel`
/// says which ran). Ctrl-C raises `KeyboardInterrupt`. A hold'em spot (`bluff.holdem.Spot`)
/// is solved by the door's spot route with the CLI's spot options (`target_pot_pct`, in
/// percent of the starting pot, `precision`, `"f32"` or `"f64"`, and `compress`, 16-bit
/// regrets and sums, apply to spots only) and gives a `bluff.holdem.SpotResult`.
#[pyfunction]
#[pyo3(signature = (game, algo = None, iterations = None, target = None, time = None, threads = None, check_every = None, always_threads = false, alpha = None, beta = None, gamma = None, updates = None, seed = None, kernel = None, epsilon = None, baseline = None, target_relative = None, rm_plus = false, epoch = None, max_memory = None, lp_form = None, lp_primal = None, lp_method = None, lcp_start = None, lock = None, target_pot_pct = None, precision = None, compress = false))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    game: &Bound<'_, PyAny>,
    algo: Option<&str>,
    iterations: Option<i64>,
    target: Option<f64>,
    time: Option<f64>,
    threads: Option<i64>,
    check_every: Option<i64>,
    always_threads: bool,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    updates: Option<&str>,
    seed: Option<u64>,
    kernel: Option<&str>,
    epsilon: Option<f64>,
    baseline: Option<f64>,
    target_relative: Option<f64>,
    rm_plus: bool,
    epoch: Option<i64>,
    max_memory: Option<u64>,
    lp_form: Option<&str>,
    lp_primal: Option<&str>,
    lp_method: Option<&str>,
    lcp_start: Option<String>,
    lock: Option<Bound<'_, PyAny>>,
    target_pot_pct: Option<f64>,
    precision: Option<String>,
    compress: bool,
) -> PyResult<PyObject> {
    let lock = lock.map(|l| lock_source(py, &l)).transpose()?;
    let request = Request {
        algo: algo.map(str::to_string),
        iterations,
        target,
        target_relative,
        time,
        updates: choice(
            "updates",
            updates,
            &[
                ("simultaneous", Updates::Simultaneous),
                ("alternating", Updates::Alternating),
            ],
        )?,
        alpha,
        beta,
        gamma,
        threads,
        always_threads,
        check_every,
        kernel: choice(
            "kernel",
            kernel,
            &[("tree", Kernel::Tree), ("sequence", Kernel::Sequence)],
        )?,
        seed,
        epsilon,
        baseline,
        rm_plus,
        epoch,
        max_memory,
        lp_form: choice(
            "lp_form",
            lp_form,
            &[("merged", LpForm::Merged), ("textbook", LpForm::Textbook)],
        )?,
        lp_primal: choice(
            "lp_primal",
            lp_primal,
            &[
                ("auto", LpPrimal::Auto),
                ("p1", LpPrimal::First),
                ("p2", LpPrimal::Second),
            ],
        )?,
        lp_method: choice(
            "lp_method",
            lp_method,
            &[
                ("guided", LpMethodChoice::Guided),
                ("tableau", LpMethodChoice::Tableau),
            ],
        )?,
        output: true,
        lcp_start,
        target_pot_pct,
        precision,
        compress,
        lock,
        ..Default::default()
    };
    // A hold'em spot takes the door's spot route (`bluff.holdem`).
    if let Ok(spot) = game.downcast::<crate::spot::Spot>() {
        let result = crate::spot::solve(py, spot.clone().unbind(), request)?;
        return Ok(Py::new(py, result)?.into_any());
    }
    let game: Py<Game> = game.extract()?;
    let g = game.get().inner.clone();
    let wall = Instant::now();
    let solved = py.allow_threads(|| -> PyResult<Solved> {
        let mut hooks = PythonHooks::new();
        let source = Source::Game {
            game: &g,
            name: &g.name,
        };
        let solved = door::solve(source, &request, Spelling::Python, &mut hooks);
        if let Some(e) = hooks.interrupted {
            return Err(e);
        }
        solved.map_err(door_err)
    })?;
    Ok(Py::new(py, result(py, game, solved, wall)?)?.into_any())
}

/// A [`Solved`] as Python's `SolveResult`.
fn result(py: Python<'_>, game: Py<Game>, solved: Solved, wall: Instant) -> PyResult<SolveResult> {
    let value = |v: &Value| -> PyResult<PyObject> {
        Ok(match v {
            Value::Exact(r) => to_fraction(py, r)?.unbind(),
            Value::Float(x) => x.into_pyobject(py)?.into_any().unbind(),
        })
    };
    let missing = |what: &str| PyValueError::new_err(format!("the solve gave no {what}"));
    let values = solved.values.as_ref().ok_or_else(|| missing("values"))?;
    let exploitability = solved
        .exploitability
        .as_ref()
        .ok_or_else(|| missing("exploitability"))?;
    let nash_conv = solved
        .nash_conv
        .as_ref()
        .ok_or_else(|| missing("NashConv"))?;
    let curve = solved
        .curve
        .iter()
        .map(|p| (p.iteration, p.exploitability, p.seconds))
        .collect();
    let (policy, current_policy) = match solved.strategy {
        Strategy::Float { average, current } => {
            let (a, c) = float_policies(py, game, average, current)?;
            (a, Some(c))
        }
        Strategy::Exact(profile) => (
            Py::new(
                py,
                Policy {
                    game,
                    probs: Probs::Exact(profile),
                },
            )?,
            None,
        ),
        _ => return Err(missing("strategy on the arena")),
    };
    let (stats, kernel, team_iterations) = match &solved.detail {
        Detail::Cfr(run) => (
            None,
            Some(run.kernel().name().to_string()),
            run.team_iterations(),
        ),
        Detail::Sampling(outcome) => (Some(sampling_stats(py, outcome)?.unbind()), None, 0),
        Detail::Exact(st) => (Some(lp_stats(py, st)?.unbind()), None, 0),
        Detail::Lcp(st) => {
            let stats = PyDict::new(py);
            stats.set_item("start", &st.start)?;
            stats.set_item("pivots", st.pivots)?;
            stats.set_item("lcp_rows", st.rows)?;
            stats.set_item("lcp_route", &st.route)?;
            (Some(stats.unbind()), None, 0)
        }
        Detail::Spot(_) | Detail::SpotLp(_) => {
            return Err(missing("a game (spots are solved by the command line)"))
        }
    };
    Ok(SolveResult {
        algo: solved.algorithm.name.to_string(),
        policy,
        current_policy,
        exploitability: value(exploitability)?,
        nash_conv: value(nash_conv)?,
        value: value(&values[0])?,
        value_p2: value(&values[1])?,
        iterations: solved.iterations,
        team_iterations,
        curve,
        seconds: solved.seconds,
        setup_seconds: solved.setup_seconds,
        wall_seconds: wall.elapsed().as_secs_f64(),
        stats,
        kernel,
    })
}

/// The exact LP's `.stats`: sizes, pivots and phase times.
fn lp_stats<'py>(py: Python<'py>, st: &ExactStats) -> PyResult<Bound<'py, PyDict>> {
    let stats = PyDict::new(py);
    stats.set_item("sequences", (st.sequences[0], st.sequences[1]))?;
    stats.set_item("lp_vars", st.lp_vars)?;
    stats.set_item("lp_rows", st.lp_rows)?;
    stats.set_item("lp_primal", st.lp_primal)?;
    stats.set_item("float_pivots", st.lp.float_pivots)?;
    stats.set_item("exact_pivots", st.lp.exact_pivots)?;
    stats.set_item("exact_route", st.lp.route.name())?;
    stats.set_item("refinement_rounds", st.lp.refinement_rounds)?;
    stats.set_item("build_seconds", st.build_time.as_secs_f64())?;
    stats.set_item("solve_seconds", st.solve_time.as_secs_f64())?;
    stats.set_item("certify_seconds", st.certify_time.as_secs_f64())?;
    Ok(stats)
}

/// The average and current float profiles of `game` as policies.
fn float_policies(
    py: Python<'_>,
    game: Py<Game>,
    average: bluff::strategy::Profile<f64>,
    current: bluff::strategy::Profile<f64>,
) -> PyResult<(Py<Policy>, Py<Policy>)> {
    let current = Py::new(
        py,
        Policy {
            game: game.clone_ref(py),
            probs: Probs::Float(current),
        },
    )?;
    let average = Py::new(
        py,
        Policy {
            game,
            probs: Probs::Float(average),
        },
    )?;
    Ok((average, current))
}

/// The registered algorithms as `(name, summary)` pairs, and which one `bluff.solve` runs by
/// default: `(algorithms, default)`.
#[pyfunction]
pub fn algorithms() -> (Vec<(String, String)>, String) {
    (
        registry::ALGORITHMS
            .iter()
            .map(|a| (a.name.to_string(), a.summary.to_string()))
            .collect(),
        registry::default_algorithm().name.to_string(),
    )
}

/// `SolveResult.__reduce__`: its fields in order.
pub fn reduce_result<'py>(
    py: Python<'py>,
    r: &SolveResult,
) -> PyResult<(Bound<'py, PyAny>, PyObject)> {
    let f = py.import("bluff._bluff")?.getattr("_unpickle_result")?;
    let args = (
        r.algo.clone(),
        r.policy.clone_ref(py),
        r.current_policy.as_ref().map(|p| p.clone_ref(py)),
        r.exploitability.clone_ref(py),
        r.nash_conv.clone_ref(py),
        (r.value.clone_ref(py), r.value_p2.clone_ref(py)),
        r.iterations,
        r.team_iterations,
        r.curve.clone(),
        (r.seconds, r.setup_seconds, r.wall_seconds),
        r.stats.as_ref().map(|s| s.clone_ref(py)),
        r.kernel.clone(),
    );
    Ok((f, args.into_pyobject(py)?.into_any().unbind()))
}

/// Rebuilds a pickled `SolveResult`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn _unpickle_result(
    algo: String,
    policy: Py<Policy>,
    current_policy: Option<Py<Policy>>,
    exploitability: PyObject,
    nash_conv: PyObject,
    values: (PyObject, PyObject),
    iterations: u64,
    team_iterations: u64,
    curve: Vec<(u64, f64, f64)>,
    times: (f64, f64, f64),
    stats: Option<Py<PyDict>>,
    kernel: Option<String>,
) -> SolveResult {
    SolveResult {
        algo,
        policy,
        current_policy,
        exploitability,
        nash_conv,
        value: values.0,
        value_p2: values.1,
        iterations,
        team_iterations,
        curve,
        seconds: times.0,
        setup_seconds: times.1,
        wall_seconds: times.2,
        stats,
        kernel,
    }
}

/// `lock=`: a path (`str` or `os.PathLike`), a `Policy` (every set of both players locked)
/// or a dict in a lock file's shape (`Fraction`s are exact, floats numbers).
fn lock_source(py: Python<'_>, lock: &Bound<'_, PyAny>) -> PyResult<door::LockSource> {
    if let Ok(policy) = lock.downcast::<Policy>() {
        let policy = policy.get();
        let game = policy.game.get();
        let profile = policy.exact_profile();
        let value =
            bluff::format::strategy_json::profile_to_json(&game.inner, &game.inner.name, &profile);
        return Ok(door::LockSource::Json(value.to_string()));
    }
    if lock.is_instance_of::<PyDict>() {
        return Ok(door::LockSource::Json(
            py_to_json(py, lock, "lock")?.to_string(),
        ));
    }
    let os = py.import("os")?;
    let path: std::path::PathBuf = os.call_method1("fspath", (lock,))?.extract().map_err(|_| {
        PyValueError::new_err("lock=: expected a path, a Policy or a dict in a lock file's shape")
    })?;
    Ok(door::LockSource::File(path))
}

/// A dict of a lock's shape as JSON: strings and dicts as they are, `Fraction`s as exact
/// strings `"p/q"`, ints and finite floats as numbers; `at` names the place in messages.
fn py_to_json(py: Python<'_>, obj: &Bound<'_, PyAny>, at: &str) -> PyResult<serde_json::Value> {
    use serde_json::Value as J;
    if let Ok(d) = obj.downcast::<PyDict>() {
        let mut map = serde_json::Map::new();
        for (k, v) in d.iter() {
            let key: String = k
                .extract()
                .map_err(|_| PyValueError::new_err(format!("{at}: keys must be strings")))?;
            let here = format!("{at} {key:?}");
            map.insert(key, py_to_json(py, &v, &here)?);
        }
        return Ok(J::Object(map));
    }
    if let Ok(s) = obj.extract::<String>() {
        return Ok(J::String(s));
    }
    if obj.is_instance_of::<pyo3::types::PyBool>() {
        return Err(PyValueError::new_err(format!(
            "{at}: expected a probability, found a bool"
        )));
    }
    if let Ok(i) = obj.extract::<i64>() {
        return Ok(J::from(i));
    }
    let fraction = py.import("fractions")?.getattr("Fraction")?;
    if obj.is_instance(&fraction)? {
        let n: String = obj.getattr("numerator")?.str()?.extract()?;
        let d: String = obj.getattr("denominator")?.str()?.extract()?;
        return Ok(J::String(format!("{n}/{d}")));
    }
    if let Ok(x) = obj.extract::<f64>() {
        return serde_json::Number::from_f64(x)
            .map(J::Number)
            .ok_or_else(|| PyValueError::new_err(format!("{at}: {x} is not a probability")));
    }
    Err(PyValueError::new_err(format!(
        "{at}: expected a dict, a string or a number, found {}",
        obj.get_type().name()?
    )))
}
