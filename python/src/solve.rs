//! `bluff.solve`: the CFR family and the exact LP, with the GIL released.

use crate::convert::{to_fraction, to_py_err};
use crate::game::Game;
use crate::policy::{Policy, Probs};
use bluff::solve::cfr::Kernel;
use bluff::solve::exact::{solve_exact_with, ExactOptions};
use bluff::solve::registry::{self, CfrOptions, Family, SamplingOptions, Updates};
use bluff::solve::run::{CfrRequest, CfrRun, Hooks, StopRule, Target};
use bluff::solve::sampling::{solve_game, SamplingHooks, SamplingRequest};
use bluff::solve::{Threads, ThreadsError};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::time::{Duration, Instant};

/// How often a running solve takes the GIL back to look for Ctrl-C.
const SIGNAL_CHECK: Duration = Duration::from_millis(50);

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
        crate::distributed::reduce_result(py, self)
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

fn non_negative(name: &str, v: Option<f64>) -> PyResult<()> {
    match v {
        Some(x) if !(x.is_finite() && x >= 0.0) => Err(PyValueError::new_err(format!(
            "{name}={x}: expected a finite non-negative number"
        ))),
        _ => Ok(()),
    }
}

/// A count given from Python: `None`, or at least 1 (a clear `ValueError` for 0 and negative
/// numbers, where an unsigned argument would raise `OverflowError`).
fn count(name: &str, v: Option<i64>) -> PyResult<Option<u64>> {
    match v {
        Some(x) if x < 1 => Err(PyValueError::new_err(format!(
            "{name}={x}: expected at least 1"
        ))),
        Some(x) => Ok(Some(x as u64)),
        None => Ok(None),
    }
}

/// Maps a solve-layer error to `ValueError` (the caller's request) with its message.
fn request_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Solves `game` with `algo`, by name (`bluff.algorithms()` lists them; `None`: the default of
/// every front end, the algorithm with the lowest exploitability after 1000 iterations on most
/// games of bluff's convergence leaderboard). The CFR family stops at `iterations`, at
/// exploitability `target` (payoff units) or after `time` seconds, whichever comes first,
/// measuring exploitability at roughly geometrically spaced iterations at most `check_every`
/// apart; `alpha`, `beta`, `gamma` and `updates` (`"simultaneous"` or `"alternating"`) override
/// the algorithm's own where it takes them (as the CLI's options). `"lp"`: the exact
/// sequence-form LP, certified by exact best responses. `threads` defaults to all cores; results
/// do not depend on it, and the CFR family runs an iteration on one thread where that was timed
/// faster, unless `always_threads`. The sampling solvers (`"es-mccfr"`, `"os-mccfr"`: Monte
/// Carlo CFR, OpenSpiel's parameters unless `alpha`, `beta`, `gamma`, `epsilon` (outcome
/// sampling's exploration) or `baseline` (VR-MCCFR baselines' rate) are set) run with `seed`
/// (default 0) on `threads` threads (default 1: their results depend on the seed and the
/// thread count), exploitability by the exact best response. `kernel` (`"tree"` or `"sequence"`)
/// picks the CFR kernel; by default the game's shape does (`SolveResult.kernel` says which
/// ran). Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (game, algo = None, iterations = None, target = None, time = None, threads = None, check_every = 1000, always_threads = false, alpha = None, beta = None, gamma = None, updates = None, seed = None, kernel = None, epsilon = None, baseline = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    game: Py<Game>,
    algo: Option<&str>,
    iterations: Option<i64>,
    target: Option<f64>,
    time: Option<f64>,
    threads: Option<i64>,
    check_every: i64,
    always_threads: bool,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    updates: Option<&str>,
    seed: Option<u64>,
    kernel: Option<&str>,
    epsilon: Option<f64>,
    baseline: Option<f64>,
) -> PyResult<SolveResult> {
    let kernel = match kernel {
        None => None,
        Some(name) => Some(Kernel::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "kernel={}: expected \"tree\" or \"sequence\"",
                bluff::format::text::quoted(name)
            ))
        })?),
    };
    let algorithm = match algo {
        Some(name) => registry::algorithm(name).map_err(request_err)?,
        None => registry::default_algorithm(),
    };
    if matches!(algorithm.family, Family::Sampling(_)) {
        if updates.is_some() || always_threads || kernel.is_some() {
            return Err(PyValueError::new_err(
                "updates=, always_threads= and kernel= do not apply to the sampling solvers",
            ));
        }
        let request = SamplingRequest {
            algorithm: Some(algorithm),
            options: SamplingOptions {
                alpha,
                beta,
                gamma,
                epsilon,
                baseline,
                ..Default::default()
            },
            seed,
            threads: count("threads", threads)?.map(|t| usize::try_from(t).unwrap_or(usize::MAX)),
            iterations: count("iterations", iterations)?,
            time: {
                non_negative("time", time)?;
                time.map(Duration::from_secs_f64)
            },
            target: {
                non_negative("target", target)?;
                target
            },
            evaluate: true,
            ..Default::default()
        };
        return solve_sampling(py, game, &request);
    }
    if epsilon.is_some() || baseline.is_some() {
        return Err(PyValueError::new_err(
            "epsilon= and baseline= apply to the sampling solvers (\"es-mccfr\", \"os-mccfr\")",
        ));
    }
    if seed.is_some() {
        return Err(PyValueError::new_err(
            "seed= applies to the sampling solvers (\"es-mccfr\", \"os-mccfr\")",
        ));
    }
    let threads = match count("threads", threads)? {
        None => Threads::Available,
        Some(n) => Threads::Exactly(usize::try_from(n).unwrap_or(usize::MAX)),
    };
    let thread_count = threads.count().map_err(|e| match e {
        ThreadsError::TooMany { asked, max } => PyValueError::new_err(format!(
            "threads={asked}: at most {max} (4 per available core, between 4 and 256); results \
             do not depend on the thread count"
        )),
        e => PyValueError::new_err(e.to_string()),
    })?;
    let iterations = count("iterations", iterations)?;
    if algorithm.family == Family::ExactLp {
        let cfr_only = iterations.is_some()
            || target.is_some()
            || time.is_some()
            || alpha.is_some()
            || beta.is_some()
            || gamma.is_some()
            || updates.is_some()
            || kernel.is_some();
        if cfr_only {
            return Err(PyValueError::new_err(
                "iterations=, target=, time=, alpha=, beta=, gamma=, updates= and kernel= apply to the CFR family; algo=\"lp\" solves exactly in one run",
            ));
        }
        return solve_lp(py, game, thread_count);
    }
    non_negative("target", target)?;
    non_negative("time", time)?;
    let check_every = count("check_every", Some(check_every))?.expect("given");
    let options = CfrOptions {
        updates: match updates {
            None => None,
            Some("simultaneous") => Some(Updates::Simultaneous),
            Some("alternating") => Some(Updates::Alternating),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "updates={}: expected \"simultaneous\" or \"alternating\"",
                    bluff::format::text::quoted(other)
                )))
            }
        },
        alpha,
        beta,
        gamma,
    };
    let stop = StopRule {
        max_iterations: iterations,
        target: target.map(Target::Absolute),
        time: time.map(Duration::from_secs_f64),
    };
    if !stop.is_set() {
        return Err(PyValueError::new_err(
            "give a stop rule: iterations=N, target=E or time=S",
        ));
    }
    let request = CfrRequest {
        algorithm: Some(algorithm),
        options,
        horizon: iterations,
        threads,
        always_threads,
        check_every,
        kernel,
    };
    let g = game.get().inner.clone();
    let wall = Instant::now();
    let (outcome, avg, current, (iters, team_iters), setup, kernel_name) =
        py.allow_threads(|| -> PyResult<_> {
            let setup = Instant::now();
            let mut run = CfrRun::start(&g, &g.name, &request).map_err(request_err)?;
            let setup = setup.elapsed().as_secs_f64();
            let mut hooks = PythonHooks::new();
            let outcome = run.run(&g, &stop, &mut hooks).map_err(request_err)?;
            if let Some(e) = hooks.interrupted {
                return Err(e);
            }
            Ok((
                outcome,
                run.average_profile(),
                run.current_profile(),
                (run.iterations(), run.team_iterations()),
                setup,
                run.kernel().name().to_string(),
            ))
        })?;
    let points = outcome.points;
    let last = points
        .last()
        .copied()
        .ok_or_else(|| PyValueError::new_err("the solver stopped before its first iteration"))?;
    let value = py.allow_threads(|| bluff::eval::expected_value(&g, &avg));
    let (policy, current_policy) = float_policies(py, game, avg, current)?;
    let f = |x: f64| -> PyResult<PyObject> { Ok(x.into_pyobject(py)?.into_any().unbind()) };
    Ok(SolveResult {
        algo: algorithm.name.to_string(),
        policy,
        current_policy: Some(current_policy),
        exploitability: f(last.exploitability)?,
        nash_conv: f(2.0 * last.exploitability)?,
        value: f(value)?,
        iterations: iters,
        team_iterations: team_iters,
        curve: points
            .iter()
            .map(|p| (p.iteration, p.exploitability, p.seconds))
            .collect(),
        seconds: last.seconds,
        setup_seconds: setup,
        wall_seconds: wall.elapsed().as_secs_f64(),
        stats: None,
        kernel: Some(kernel_name),
    })
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

/// A running solve's hooks (CFR family and sampling solvers): every 50 ms it takes the GIL back
/// to look for Ctrl-C.
pub(crate) struct PythonHooks {
    last_check: Instant,
    /// The `KeyboardInterrupt` (or other signal error) that stopped the run.
    pub(crate) interrupted: Option<PyErr>,
}

impl PythonHooks {
    /// Hooks that have seen no signal yet.
    pub(crate) fn new() -> Self {
        PythonHooks {
            last_check: Instant::now(),
            interrupted: None,
        }
    }
}

impl Hooks for PythonHooks {
    fn interrupted(&mut self) -> bool {
        if self.interrupted.is_none() && self.last_check.elapsed() >= SIGNAL_CHECK {
            self.last_check = Instant::now();
            self.interrupted = Python::with_gil(|py| py.check_signals()).err();
        }
        self.interrupted.is_some()
    }
}

impl SamplingHooks for PythonHooks {
    fn interrupted(&mut self) -> bool {
        Hooks::interrupted(self)
    }
}

/// `es-mccfr` / `os-mccfr` on the game's arena through the solve layer's sampling door; the
/// same result type as the CFR family, exploitability by the arena's exact best response.
fn solve_sampling(
    py: Python<'_>,
    game: Py<Game>,
    request: &SamplingRequest,
) -> PyResult<SolveResult> {
    let g = game.get().inner.clone();
    let wall = Instant::now();
    let outcome = py.allow_threads(|| -> PyResult<_> {
        let mut hooks = PythonHooks::new();
        let outcome = solve_game(&g, &g.name, request, &mut hooks).map_err(to_py_err)?;
        if let Some(e) = hooks.interrupted {
            return Err(e);
        }
        Ok(outcome)
    })?;
    let (avg, current) = outcome
        .profiles
        .clone()
        .ok_or_else(|| PyValueError::new_err("the sampling run played no arena"))?;
    let exploitability = outcome
        .exploitability
        .ok_or_else(|| PyValueError::new_err("the sampling run measured no exploitability"))?;
    let value = py.allow_threads(|| bluff::eval::expected_value(&g, &avg));
    let stats = sampling_stats(py, &outcome)?;
    let f = |x: f64| -> PyResult<PyObject> { Ok(x.into_pyobject(py)?.into_any().unbind()) };
    let (policy, current_policy) = float_policies(py, game, avg, current)?;
    Ok(SolveResult {
        algo: outcome.algorithm.name.to_string(),
        policy,
        current_policy: Some(current_policy),
        exploitability: f(exploitability)?,
        nash_conv: f(2.0 * exploitability)?,
        value: f(value)?,
        iterations: outcome.iterations,
        team_iterations: 0,
        curve: outcome.curve.clone(),
        seconds: outcome.solve_seconds,
        setup_seconds: 0.0,
        wall_seconds: wall.elapsed().as_secs_f64(),
        stats: Some(stats.unbind()),
        kernel: None,
    })
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

fn solve_lp(py: Python<'_>, game: Py<Game>, threads: usize) -> PyResult<SolveResult> {
    let g = game.get().inner.clone();
    let wall = Instant::now();
    // The float simplex splits large pivots over rayon's threads (bit-identical results).
    let options = ExactOptions {
        threads: Some(threads),
        ..Default::default()
    };
    let solution = py
        .allow_threads(|| solve_exact_with(&g, &options))
        .map_err(|e| to_py_err(e.into()))?;
    let st = &solution.stats;
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
    let zero = to_fraction(py, &bluff::scalar::int(0))?.unbind();
    let value = to_fraction(py, &solution.value)?.unbind();
    let seconds = (st.build_time + st.solve_time).as_secs_f64();
    let policy = Py::new(
        py,
        Policy {
            game,
            probs: Probs::Exact(solution.profile),
        },
    )?;
    Ok(SolveResult {
        algo: "lp".to_string(),
        policy,
        current_policy: None,
        exploitability: zero.clone_ref(py),
        nash_conv: zero,
        value,
        iterations: 0,
        team_iterations: 0,
        curve: Vec::new(),
        seconds,
        setup_seconds: 0.0,
        wall_seconds: wall.elapsed().as_secs_f64(),
        stats: Some(stats.unbind()),
        kernel: None,
    })
}

/// A sampling run's `.stats`: seed, threads, traversals, information sets reached, bytes per
/// set, best-response seconds (shared with `bluff.solve_rules`).
pub(crate) fn sampling_stats<'py>(
    py: Python<'py>,
    outcome: &bluff::solve::sampling::SamplingOutcome,
) -> PyResult<Bound<'py, PyDict>> {
    let stats = PyDict::new(py);
    stats.set_item("seed", outcome.seed)?;
    stats.set_item("threads", outcome.threads)?;
    stats.set_item("traversals", 2 * outcome.iterations)?;
    stats.set_item("infosets", (outcome.infosets[0], outcome.infosets[1]))?;
    stats.set_item("bytes_per_infoset", outcome.bytes_per_infoset)?;
    stats.set_item("best_response_seconds", outcome.best_response_seconds)?;
    Ok(stats)
}
