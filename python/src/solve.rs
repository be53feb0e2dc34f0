//! `bluff.solve`: the CFR family and the exact LP, with the GIL released.

use crate::convert::{to_fraction, to_py_err};
use crate::game::Game;
use crate::policy::{Policy, Probs};
use bluff::solve::cfr::{CfrSolver, Pacing, RegretParams, StopRule, Target};
use bluff::solve::lp::Method;
use bluff::solve::sequence_form::solve_exact_with;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::ops::ControlFlow;
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
}

#[pymethods]
impl SolveResult {
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

fn regret_params(algo: &str, iterations: Option<u64>) -> PyResult<RegretParams> {
    // The hyperparameter schedules plan their exponents over the run's length, as on the CLI.
    let horizon = || {
        iterations.ok_or_else(|| {
            PyValueError::new_err(format!(
                "algo {algo:?} schedules its exponents over the run's length: give iterations=N"
            ))
        })
    };
    Ok(match algo {
        "cfr" => RegretParams::vanilla(),
        "cfr+" => RegretParams::cfr_plus(),
        "lcfr" => RegretParams::linear(),
        "dcfr" => RegretParams::discounted_default(),
        "pcfr+" => RegretParams::predictive_plus(),
        "dcfr+" => RegretParams::dcfr_plus(),
        "pdcfr+" => RegretParams::pdcfr_plus(),
        "hs-dcfr" => RegretParams::hs_dcfr(30.0, horizon()?),
        "hs-pcfr+" => RegretParams::hs_pcfr_plus(30.0, horizon()?),
        other => {
            return Err(PyValueError::new_err(format!(
                "algo {other:?}: expected \"dcfr\", \"cfr\", \"cfr+\", \"lcfr\", \"pcfr+\", \"dcfr+\", \"pdcfr+\", \"hs-dcfr\", \"hs-pcfr+\", \"lp\", \"es-mccfr\" or \"os-mccfr\""
            )))
        }
    })
}

fn thread_count(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(PyValueError::new_err("threads=0: expected at least 1")),
        Some(t) if bluff::solve::too_many_threads(t) => Err(PyValueError::new_err(format!(
            "threads={t}: at most {} (4 per available core, between 4 and 256); results do \
             not depend on the thread count",
            bluff::solve::max_threads()
        ))),
        Some(t) => Ok(t),
        None => Ok(bluff::solve::available_cores()),
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

/// Solves `game`. Sampling solvers (`"es-mccfr"`, `"os-mccfr"`, issue 28): Monte Carlo CFR
/// with `seed` (default 0) on `threads` threads (default 1: results depend on the seed and the
/// thread count), stopping at `iterations`, `target` or `time`; exploitability by the arena's
/// exact best response. CFR family (`"dcfr"`, `"cfr"`, `"cfr+"`, `"lcfr"`, `"pcfr+"`, `"dcfr+"`,
/// `"pdcfr+"`, `"hs-dcfr"`, `"hs-pcfr+"`, the last two needing `iterations`): stops at
/// `iterations`, at exploitability `target` (payoff units) or after `time` seconds, whichever
/// comes first, measuring exploitability at most `check_every` iterations apart. `"lp"`: the
/// exact sequence-form LP, certified by exact best responses. `threads` defaults to all cores;
/// results do not depend on it, and the CFR family runs an iteration on one thread where that
/// was timed faster, unless `always_threads`. Ctrl-C raises `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (game, algo = "dcfr", iterations = None, target = None, time = None, threads = None, check_every = 1000, always_threads = false, seed = None))]
#[allow(clippy::too_many_arguments)]
pub fn solve(
    py: Python<'_>,
    game: Py<Game>,
    algo: &str,
    iterations: Option<u64>,
    target: Option<f64>,
    time: Option<f64>,
    threads: Option<usize>,
    check_every: u64,
    always_threads: bool,
    seed: Option<u64>,
) -> PyResult<SolveResult> {
    if algo == "es-mccfr" || algo == "os-mccfr" {
        let threads = thread_count(Some(threads.unwrap_or(1)))?;
        return mccfr::solve(
            py,
            game,
            algo,
            iterations,
            target,
            time,
            threads,
            seed.unwrap_or(0),
        );
    }
    if seed.is_some() {
        return Err(PyValueError::new_err(
            "seed= applies to the sampling solvers (\"es-mccfr\", \"os-mccfr\")",
        ));
    }
    let threads = thread_count(threads)?;
    if algo == "lp" {
        if iterations.is_some() || target.is_some() || time.is_some() {
            return Err(PyValueError::new_err(
                "iterations=, target= and time= apply to the CFR family; algo=\"lp\" solves exactly in one run",
            ));
        }
        return solve_lp(py, game, threads);
    }
    let params = regret_params(algo, iterations)?;
    non_negative("target", target)?;
    non_negative("time", time)?;
    if iterations.is_none() && target.is_none() && time.is_none() {
        return Err(PyValueError::new_err(
            "give a stop rule: iterations=N, target=E or time=S",
        ));
    }
    if iterations == Some(0) {
        return Err(PyValueError::new_err("iterations=0: expected at least 1"));
    }
    if check_every == 0 {
        return Err(PyValueError::new_err("check_every=0: expected at least 1"));
    }
    let g = game.get().inner.clone();
    let stop = StopRule {
        max_iterations: iterations,
        target: target.map(Target::Absolute),
        time: time.map(Duration::from_secs_f64),
    };
    let wall = Instant::now();
    let (points, avg, current, (iters, team_iters), interrupted, setup) =
        py.allow_threads(|| -> PyResult<_> {
            let setup = Instant::now();
            let pacing = if always_threads {
                Pacing::Team
            } else {
                Pacing::Measured
            };
            let mut solver = CfrSolver::new(&g, params)
                .with_pacing(pacing)
                .with_threads(threads)
                .map_err(|e| to_py_err(e, false))?;
            let setup = setup.elapsed().as_secs_f64();
            let mut last_check = Instant::now();
            let mut interrupted: Option<PyErr> = None;
            let points = solver.run_interruptible(&g, &stop, check_every, |_| {
                if last_check.elapsed() < SIGNAL_CHECK {
                    return ControlFlow::Continue(());
                }
                last_check = Instant::now();
                match Python::with_gil(|py| py.check_signals()) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        interrupted = Some(e);
                        ControlFlow::Break(())
                    }
                }
            });
            Ok((
                points,
                solver.average_profile(),
                solver.current_profile(),
                (solver.iterations(), solver.team_iterations()),
                interrupted,
                setup,
            ))
        })?;
    if let Some(e) = interrupted {
        return Err(e);
    }
    let last = points
        .last()
        .copied()
        .ok_or_else(|| PyValueError::new_err("the solver stopped before its first iteration"))?;
    let value = py.allow_threads(|| bluff::eval::expected_value(&g, &avg));
    let current_policy = Py::new(
        py,
        Policy {
            game: game.clone_ref(py),
            probs: Probs::Float(current),
        },
    )?;
    let policy = Py::new(
        py,
        Policy {
            game,
            probs: Probs::Float(avg),
        },
    )?;
    let f = |x: f64| -> PyResult<PyObject> { Ok(x.into_pyobject(py)?.into_any().unbind()) };
    Ok(SolveResult {
        algo: algo.to_string(),
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
    })
}

fn solve_lp(py: Python<'_>, game: Py<Game>, threads: usize) -> PyResult<SolveResult> {
    let g = game.get().inner.clone();
    let wall = Instant::now();
    // The float simplex splits large pivots over rayon's threads (bit-identical results).
    let solution = py
        .allow_threads(|| -> anyhow::Result<_> {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()?
                .install(|| solve_exact_with(&g, Method::FloatThenExact, false))
        })
        .map_err(|e| to_py_err(e, false))?;
    let st = &solution.stats;
    let stats = PyDict::new(py);
    stats.set_item("sequences", (st.sequences[0], st.sequences[1]))?;
    stats.set_item("lp_vars", st.lp_vars)?;
    stats.set_item("lp_rows", st.lp_rows)?;
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
    })
}

/// Monte Carlo CFR for `bluff.solve` (issue 28): a self-contained block for the solver
/// registry to take over.
mod mccfr {
    use super::{SolveResult, SIGNAL_CHECK};
    use crate::convert::to_py_err;
    use crate::game::Game;
    use crate::policy::{Policy, Probs};
    use bluff::solve::mccfr::{MccfrParams, MccfrSolver, RunLimits};
    use pyo3::exceptions::PyValueError;
    use pyo3::prelude::*;
    use pyo3::types::PyDict;
    use std::ops::ControlFlow;
    use std::time::{Duration, Instant};

    /// Runs es-mccfr or os-mccfr (OpenSpiel's defaults: regret matching, epsilon 0.6) on the
    /// arena of `game`.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        py: Python<'_>,
        game: Py<Game>,
        algo: &str,
        iterations: Option<u64>,
        target: Option<f64>,
        time: Option<f64>,
        threads: usize,
        seed: u64,
    ) -> PyResult<SolveResult> {
        super::non_negative("target", target)?;
        super::non_negative("time", time)?;
        if iterations.is_none() && target.is_none() && time.is_none() {
            return Err(PyValueError::new_err(
                "give a stop rule: iterations=N, target=E or time=S",
            ));
        }
        let params = if algo == "es-mccfr" {
            MccfrParams::external()
        } else {
            MccfrParams::outcome(0.6)
        };
        let g = game.get().inner.clone();
        let wall = Instant::now();
        let limits = RunLimits {
            max_iterations: iterations,
            time: time.map(Duration::from_secs_f64),
            target,
            measure_growth: if target.is_some() { 1.5 } else { 0.0 },
            ..RunLimits::default()
        };
        let out = py.allow_threads(|| -> PyResult<_> {
            let mut s = MccfrSolver::new(&*g, params, seed)
                .and_then(|s| s.with_threads(threads))
                .map_err(|e| to_py_err(e.into(), false))?;
            let mut measure = |s: &MccfrSolver<bluff::game::Game>| {
                bluff::eval::exploitability(&g, &s.average_profile(&g)).exploitability
            };
            let mut last_check = Instant::now();
            let mut interrupted: Option<PyErr> = None;
            let (_, points) = s.run(&limits, Some(&mut measure), None, |_| {
                if last_check.elapsed() < SIGNAL_CHECK {
                    return ControlFlow::Continue(());
                }
                last_check = Instant::now();
                match Python::with_gil(|py| py.check_signals()) {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        interrupted = Some(e);
                        ControlFlow::Break(())
                    }
                }
            });
            if let Some(e) = interrupted {
                return Err(e);
            }
            let seconds = points.last().map_or(0.0, |p| p.seconds);
            let avg = s.average_profile(&g);
            let mut current = avg.clone();
            for p in 0..2 {
                for (id, set) in g.infosets[p].iter().enumerate() {
                    let r = set.action_range();
                    s.current_strategy(p, id as u64, r.len(), &mut current.probs[p][r]);
                }
            }
            let e = bluff::eval::exploitability(&g, &avg);
            Ok((
                s.iterations(),
                s.num_infosets(),
                s.bytes_per_infoset(),
                points,
                seconds,
                avg,
                current,
                e,
            ))
        })?;
        let (iters, sets, bytes, points, seconds, avg, current, e) = out;
        let stats = PyDict::new(py);
        stats.set_item("seed", seed)?;
        stats.set_item("threads", threads)?;
        stats.set_item("traversals", 2 * iters)?;
        stats.set_item("infosets", (sets[0], sets[1]))?;
        stats.set_item("bytes_per_infoset", bytes)?;
        let f = |x: f64| -> PyResult<PyObject> { Ok(x.into_pyobject(py)?.into_any().unbind()) };
        let current_policy = Py::new(
            py,
            Policy {
                game: game.clone_ref(py),
                probs: Probs::Float(current),
            },
        )?;
        let policy = Py::new(
            py,
            Policy {
                game,
                probs: Probs::Float(avg),
            },
        )?;
        Ok(SolveResult {
            algo: algo.to_string(),
            policy,
            current_policy: Some(current_policy),
            exploitability: f(e.exploitability)?,
            nash_conv: f(e.nash_conv)?,
            value: f(e.value[0])?,
            iterations: iters,
            team_iterations: 0,
            curve: points
                .iter()
                .map(|p| (p.iteration, p.exploitability, p.seconds))
                .collect(),
            seconds,
            setup_seconds: 0.0,
            wall_seconds: wall.elapsed().as_secs_f64(),
            stats: Some(stats.unbind()),
        })
    }
}
