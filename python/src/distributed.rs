//! What `bluff.ray` needs of the native module (games, policies and results pickle themselves,
//! in their own files): a CFR run that resumes from its checkpoint (a retried Ray
//! task ends with an unbroken run's bits), and one shard of a sharded run
//! (`bluff::cfr::CfrShard`, with its checkpoints). The decisions live in the library;
//! this file converts.

use crate::convert::{bytes_f64, bytes_words, f64_bytes, words_bytes};
use crate::game::Game;
use crate::policy::{Policy, Probs};
use crate::rules::RulesSolveResult;
use crate::solve::SolveResult;
use bluff::cfr::checkpoint::{self, Checkpoint};
use bluff::cfr::{CfrShard, Kernel, RegretParams};
use bluff::solve::registry::{self, CfrOptions, Updates};
use bluff::solve::run::{CfrRequest, CfrRun, Hooks, SaveError, StopRule, Target};
use bluff::solve::Threads;
use bluff::strategy::Profile;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// Registers this file's functions and classes in `bluff._bluff`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Shard>()?;
    m.add_function(wrap_pyfunction!(_solve_checkpointed, m)?)?;
    m.add_function(wrap_pyfunction!(_has_rules, m)?)?;
    m.add_function(wrap_pyfunction!(_shard_result, m)?)?;
    m.add_function(wrap_pyfunction!(_shard_rules_result, m)?)?;
    m.add("_MAX_BUILT_IN_NODES", bluff::games::MAX_BUILT_IN_NODES)?;
    Ok(())
}

fn value_err(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The CFR options of `bluff.solve`'s keywords.
fn cfr_options(
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    updates: Option<&str>,
) -> PyResult<CfrOptions> {
    Ok(CfrOptions {
        updates: match updates {
            None => None,
            Some("simultaneous") => Some(Updates::Simultaneous),
            Some("alternating") => Some(Updates::Alternating),
            Some(other) => {
                return Err(PyValueError::new_err(format!(
                    "updates={other:?}: expected \"simultaneous\" or \"alternating\""
                )))
            }
        },
        alpha,
        beta,
        gamma,
    })
}

/// A `SolveResult` of a CFR-family run of `game` from its profiles and curve.
#[allow(clippy::too_many_arguments)]
fn cfr_result(
    py: Python<'_>,
    game: Py<Game>,
    algo: &str,
    avg: Profile<f64>,
    current: Profile<f64>,
    (iterations, team_iterations): (u64, u64),
    curve: Vec<(u64, f64, f64)>,
    (setup, wall): (f64, Instant),
    kernel: Kernel,
) -> PyResult<SolveResult> {
    let g = game.get().inner.clone();
    let last = curve
        .last()
        .copied()
        .ok_or_else(|| PyValueError::new_err("the solver stopped before its first iteration"))?;
    let value = py.allow_threads(|| bluff::eval::expected_value(&g, &avg));
    let value_p2 = bluff::scalar::rational_to_f64(&g.constant_sum) - value;
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
        exploitability: f(last.1)?,
        nash_conv: f(2.0 * last.1)?,
        value: f(value)?,
        value_p2: f(value_p2)?,
        iterations,
        team_iterations,
        curve,
        seconds: last.2,
        setup_seconds: setup,
        wall_seconds: wall.elapsed().as_secs_f64(),
        stats: None,
        kernel: Some(kernel.name().to_string()),
    })
}

/// Hooks that save the run's checkpoint to `path` every `every` of solving time.
struct SaveTo<'a> {
    path: &'a std::path::Path,
    every: Option<Duration>,
}

impl Hooks for SaveTo<'_> {
    fn checkpoint_every(&self) -> Option<Duration> {
        self.every
    }

    fn save(&mut self, c: &Checkpoint) -> Result<(), SaveError> {
        let bytes = checkpoint::encode(c);
        bluff::format::output::write_file(self.path, &bytes)?;
        Ok(())
    }
}

/// One segment of a resumable CFR run for `bluff.ray.sweep`: resumes from `checkpoint` when
/// the file exists (else starts), runs to `upto` iterations of the run's `iterations`, and
/// either returns the result (the run is done: its iterations, or its `target`) or saves the
/// checkpoint and returns `None`; with `checkpoint_seconds`, it also saves every that many
/// seconds of solving. A run cut into segments, or resumed after its process
/// died, ends with the bits of `bluff.solve` with the same arguments.
#[pyfunction]
#[pyo3(signature = (game, checkpoint, upto, algo = None, iterations = 1, target = None, threads = None, check_every = 1000, alpha = None, beta = None, gamma = None, updates = None, checkpoint_seconds = None))]
#[allow(clippy::too_many_arguments)]
fn _solve_checkpointed(
    py: Python<'_>,
    game: Py<Game>,
    checkpoint: PathBuf,
    upto: u64,
    algo: Option<&str>,
    iterations: u64,
    target: Option<f64>,
    threads: Option<usize>,
    check_every: u64,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    updates: Option<&str>,
    checkpoint_seconds: Option<f64>,
) -> PyResult<Option<SolveResult>> {
    let algorithm = match algo {
        Some(name) => registry::algorithm(name).map_err(value_err)?,
        None => registry::default_algorithm(),
    };
    let request = CfrRequest {
        algorithm: Some(algorithm),
        options: cfr_options(alpha, beta, gamma, updates)?,
        horizon: Some(iterations),
        threads: threads.map_or(Threads::Exactly(1), Threads::Exactly),
        always_threads: false,
        check_every,
        // As `bluff.solve` chooses: the result equals a one-by-one solve.
        kernel: None,
    };
    let stop = StopRule {
        max_iterations: Some(upto.min(iterations)),
        target: target.map(Target::Absolute),
        time: None,
    };
    let g = game.get().inner.clone();
    let spec = game.get().spec.clone().unwrap_or_else(|| g.name.clone());
    let wall = Instant::now();
    let (done, outcome, run) = py.allow_threads(|| -> PyResult<_> {
        let setup = Instant::now();
        let mut run = if checkpoint.exists() {
            let saved = checkpoint::read_file(&checkpoint).map_err(value_err)?;
            CfrRun::resume(&g, &spec, saved, &request).map_err(value_err)?
        } else {
            CfrRun::start(&g, &spec, &request).map_err(value_err)?
        };
        let setup = setup.elapsed().as_secs_f64();
        let outcome = if run.iterations() >= upto.min(iterations) {
            None
        } else {
            let mut hooks = SaveTo {
                path: &checkpoint,
                every: checkpoint_seconds.map(Duration::from_secs_f64),
            };
            Some(run.run(&g, &stop, &mut hooks).map_err(value_err)?)
        };
        let finished = run.iterations() >= iterations
            || outcome
                .as_ref()
                .is_some_and(|o| o.reason == bluff::solve::run::StopReason::Target);
        if !finished {
            let bytes = checkpoint::encode(&run.checkpoint());
            bluff::format::output::write_file(&checkpoint, &bytes).map_err(value_err)?;
        }
        Ok((finished, outcome.map(|o| (o, setup)), run))
    })?;
    if !done {
        return Ok(None);
    }
    let (points, setup) = match outcome {
        Some((o, setup)) => (o.points, setup),
        // Resumed at the end: the closing point is the schedule's last.
        None => (run.checkpoint().points, 0.0),
    };
    let curve = points
        .iter()
        .map(|p| (p.iteration, p.exploitability, p.seconds))
        .collect();
    cfr_result(
        py,
        game,
        algorithm.name,
        run.average_profile(),
        run.current_profile(),
        (run.iterations(), run.team_iterations()),
        curve,
        (setup, wall),
        run.kernel(),
    )
    .map(Some)
}

/// The game a shard was made from: the whole game, or a built-in spec whose rules the shard
/// compiled only its part of (its checkpoints then name the game by
/// `CfrShard::rules_fingerprint`).
enum Source {
    Whole(Py<Game>),
    Spec(String),
}

/// One shard of a sharded CFR run (`bluff.ray.solve_sharded`): see
/// `bluff::cfr::CfrShard`. Values travel as little-endian `f64` bytes.
#[pyclass(module = "bluff", name = "_Shard")]
pub struct Shard {
    inner: CfrShard,
    source: Source,
    algo: &'static str,
    params: RegretParams,
}

/// Whether the built-in game `spec` states rules a shard compiles its part from (else the
/// shards build the whole game).
#[pyfunction]
fn _has_rules(spec: &str) -> PyResult<bool> {
    Ok(bluff::games::rules(spec).map_err(value_err)?.is_some())
}

/// A sharded run's result on the built-in game `spec` without its whole tree (a
/// `RulesSolveResult`, as `bluff.solve_rules` gives): shard 0's average `profiles` (its
/// `profiles()`' first two) and set `keys` (its `keys()`), every set labelled through the
/// rules; with `evaluate`, the exploitability by the streaming exact best response on
/// `threads` threads (default: every core).
#[pyfunction]
#[pyo3(signature = (spec, algo, iterations, profiles, keys, seconds, evaluate = true, threads = None))]
#[allow(clippy::too_many_arguments)]
fn _shard_rules_result(
    py: Python<'_>,
    spec: &str,
    algo: &str,
    iterations: u64,
    profiles: [Vec<u8>; 2],
    keys: [Vec<u8>; 2],
    seconds: f64,
    evaluate: bool,
    threads: Option<usize>,
) -> PyResult<RulesSolveResult> {
    let algo = registry::algorithm(algo).map_err(value_err)?.name;
    let [a0, a1] = profiles.each_ref().map(|b| bytes_f64(b));
    let avg = Profile { probs: [a0?, a1?] };
    let [k0, k1] = keys.each_ref().map(|b| bytes_words::<u64>(b));
    let keys = [k0?, k1?];
    let threads = threads.unwrap_or_else(bluff::solve::available_cores);
    let r = py
        .allow_threads(|| {
            bluff::solve::shards::rules_result_for_spec(spec, &keys, &avg, false, evaluate, threads)
        })
        .map_err(value_err)?
        .ok_or_else(|| PyValueError::new_err(format!("{spec:?}: bluff states no rules for it")))?;
    let policy = r
        .labelled
        .sets
        .into_iter()
        .map(|sets| sets.into_iter().map(|s| (s.label, s.probs)).collect())
        .collect();
    let stats = PyDict::new(py);
    stats.set_item("infosets", [keys[0].len(), keys[1].len()])?;
    stats.set_item("best_response_seconds", r.best_response_seconds)?;
    Ok(RulesSolveResult {
        algo: algo.to_string(),
        policy,
        exploitability: r.exploitability,
        iterations,
        seconds,
        stats: stats.unbind(),
    })
}

/// A sharded run's `SolveResult` from shard 0's profiles (`Shard.profiles`), on the driver's
/// whole `game` (the exploitability of the average measured now; `seconds` is `seconds`).
#[pyfunction]
fn _shard_result(
    py: Python<'_>,
    game: Py<Game>,
    algo: &str,
    iterations: u64,
    profiles: [Vec<u8>; 4],
    seconds: f64,
) -> PyResult<SolveResult> {
    let algo = registry::algorithm(algo).map_err(value_err)?.name;
    let [a0, a1, c0, c1] = profiles.each_ref().map(|b| bytes_f64(b));
    let avg = Profile { probs: [a0?, a1?] };
    let current = Profile { probs: [c0?, c1?] };
    let g = game.get().inner.clone();
    if [avg.probs[0].len(), avg.probs[1].len()] != g.num_actions
        || [current.probs[0].len(), current.probs[1].len()] != g.num_actions
    {
        return Err(PyValueError::new_err(
            "the shard's profiles do not fit the game's actions",
        ));
    }
    let e = py.allow_threads(|| bluff::eval::exploitability(&g, &avg).exploitability);
    cfr_result(
        py,
        game,
        algo,
        avg,
        current,
        (iterations, 0),
        vec![(iterations, e, seconds)],
        (0.0, Instant::now()),
        Kernel::Tree,
    )
}

#[pymethods]
impl Shard {
    /// Shard `index` of `shards` of `algo` on `game` (options as `bluff.solve`'s; `iterations`
    /// is the planned horizon of the scheduled algorithms), from the start or from the
    /// checkpoint file `resume`. `game` is a `Game` (the shard builds the whole game) or a
    /// built-in spec with rules: the shard then compiles only its part from the game's rules
    /// (its checkpoints name the game by `rules_fingerprint`, which needs no whole tree).
    #[new]
    #[pyo3(signature = (game, algo, shards, index, iterations = None, alpha = None, beta = None, gamma = None, updates = None, resume = None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        game: &Bound<'_, PyAny>,
        algo: &str,
        shards: usize,
        index: usize,
        iterations: Option<u64>,
        alpha: Option<f64>,
        beta: Option<f64>,
        gamma: Option<f64>,
        updates: Option<&str>,
        resume: Option<PathBuf>,
    ) -> PyResult<Self> {
        let algorithm = registry::algorithm(algo).map_err(value_err)?;
        let params = algorithm
            .regret_params(&cfr_options(alpha, beta, gamma, updates)?, iterations)
            .map_err(value_err)?;
        let source = if let Ok(spec) = game.extract::<String>() {
            Source::Spec(spec)
        } else {
            Source::Whole(game.extract::<Py<Game>>()?)
        };
        let inner = py.allow_threads(|| -> PyResult<CfrShard> {
            let saved = match &resume {
                None => None,
                Some(path) => Some((path, checkpoint::read_file(path).map_err(value_err)?)),
            };
            // The checkpoint must be of this game and algorithm.
            let check = |(path, c): &(&PathBuf, Checkpoint), fingerprint: u64| {
                if c.fingerprint == fingerprint && c.params == params {
                    Ok(())
                } else {
                    Err(PyValueError::new_err(format!(
                        "{}: a checkpoint of another game or algorithm",
                        path.display()
                    )))
                }
            };
            let spec = match &source {
                Source::Whole(g) => {
                    let g = &g.get().inner;
                    return match &saved {
                        None => CfrShard::new(g, params, shards, index).map_err(value_err),
                        Some(saved) => {
                            check(saved, checkpoint::game_fingerprint(g))?;
                            CfrShard::restore(g, params, &saved.1.state, shards, index)
                                .map_err(value_err)
                        }
                    };
                }
                Source::Spec(spec) => spec.as_str(),
            };
            let mut shard =
                bluff::solve::shards::shard_from_spec(spec, params, shards, index, None)
                    .map_err(value_err)?
                    .ok_or_else(|| {
                        PyValueError::new_err(format!(
                            "{spec:?} has no rules to compile a shard from: pass the Game"
                        ))
                    })?;
            if let Some(saved) = &saved {
                check(
                    saved,
                    shard.rules_fingerprint().expect("compiled from rules"),
                )?;
                shard.load(&saved.1.state).map_err(value_err)?;
            }
            Ok(shard)
        })?;
        Ok(Shard {
            inner,
            source,
            algo: algorithm.name,
            params,
        })
    }

    /// Phases per iteration (2 with alternating updates, 1 with simultaneous ones).
    fn phases(&self) -> usize {
        self.inner.phases()
    }

    /// Iterations done (counting one under way).
    fn iterations(&self) -> u64 {
        self.inner.iterations()
    }

    /// Length of `phase`'s running sums (floats).
    fn sums_len(&self, phase: usize) -> PyResult<usize> {
        self.inner.sums_len(phase).map_err(value_err)
    }

    /// `(nodes below the cut this shard computes, nodes of the cut level, nodes of the tree
    /// this shard holds, nodes of the whole game)`.
    fn work(&self) -> (usize, usize, usize, u64) {
        (
            self.inner.own_nodes(),
            self.inner.cut_len(),
            self.inner.held_nodes(),
            self.inner.game_nodes(),
        )
    }

    /// Step 1 of `phase`: this shard's cut-level values.
    fn evaluate<'py>(&mut self, py: Python<'py>, phase: usize) -> PyResult<Bound<'py, PyBytes>> {
        let v = self.inner.evaluate(phase).map_err(value_err)?;
        Ok(f64_bytes(py, &v))
    }

    /// Step 2 of `phase`: the running sums `sums` (bytes; empty = zeros, on shard 0) with this
    /// shard's terms added; shard 0 takes every shard's cut values `cut`.
    fn fold<'py>(
        &mut self,
        py: Python<'py>,
        phase: usize,
        cut: &[u8],
        sums: &[u8],
    ) -> PyResult<Bound<'py, PyBytes>> {
        let cut = bytes_f64(cut)?;
        let mut sums = if sums.is_empty() {
            vec![0.0; self.inner.sums_len(phase).map_err(value_err)?]
        } else {
            bytes_f64(sums)?
        };
        self.inner.fold(phase, &cut, &mut sums).map_err(value_err)?;
        Ok(f64_bytes(py, &sums))
    }

    /// Step 3 of `phase`: the update from the finished sums.
    fn apply(&mut self, phase: usize, sums: &[u8]) -> PyResult<()> {
        let sums = bytes_f64(sums)?;
        self.inner.apply(phase, &sums).map_err(value_err)
    }

    /// Saves the shard's state as a bluff checkpoint (safe write).
    fn save(&self, py: Python<'_>, path: PathBuf) -> PyResult<()> {
        let (fingerprint, game_spec) = match &self.source {
            Source::Whole(g) => {
                let g = g.get();
                (
                    checkpoint::game_fingerprint(&g.inner),
                    g.spec.clone().unwrap_or_else(|| g.inner.name.clone()),
                )
            }
            Source::Spec(spec) => (
                self.inner
                    .rules_fingerprint()
                    .expect("a shard from a spec is compiled from rules"),
                spec.clone(),
            ),
        };
        let c = Checkpoint {
            fingerprint,
            game_spec,
            algo: self.algo.to_string(),
            params: self.params,
            check_every: 1,
            next_check: 0,
            solve_seconds: 0.0,
            points: Vec::new(),
            state: self.inner.state(),
            kernel: Kernel::Tree,
            lock: String::new(),
        };
        py.allow_threads(|| {
            let bytes = checkpoint::encode(&c);
            bluff::format::output::write_file(&path, &bytes)
        })
        .map_err(value_err)
    }

    /// `(iterations, [average policy of player 1, of player 2, current policy of player 1, of
    /// player 2])`, the policies as bytes: what `_shard_result` makes the result of.
    fn profiles<'py>(&self, py: Python<'py>) -> (u64, [Bound<'py, PyBytes>; 4]) {
        let [a0, a1] = self.inner.average_profile().probs;
        let [c0, c1] = self.inner.current_profile().probs;
        (
            self.inner.iterations(),
            [a0, a1, c0, c1].map(|v| f64_bytes(py, &v)),
        )
    }

    /// Each set's key in the game's rules, per player, as `u64` bytes in the order of
    /// `profiles()`' sets, for `_shard_rules_result`; `None` for a shard of a whole game.
    fn keys<'py>(&self, py: Python<'py>) -> Option<[Bound<'py, PyBytes>; 2]> {
        self.inner
            .set_keys()
            .map(|[k0, k1]| [words_bytes(py, k0), words_bytes(py, k1)])
    }

    /// The run's result as `bluff.solve` gives it (the exploitability of the average policy
    /// measured now; `seconds` is `seconds`); a shard built from a spec holds no whole game:
    /// `_shard_result` on the driver then.
    fn result(&self, py: Python<'_>, seconds: f64) -> PyResult<SolveResult> {
        let Source::Whole(game) = &self.source else {
            return Err(PyValueError::new_err(
                "a shard built from a spec holds no whole game: use _shard_result",
            ));
        };
        let g = game.get().inner.clone();
        let avg = self.inner.average_profile();
        let e = py.allow_threads(|| bluff::eval::exploitability(&g, &avg).exploitability);
        let n = self.inner.iterations();
        cfr_result(
            py,
            game.clone_ref(py),
            self.algo,
            avg,
            self.inner.current_profile(),
            (n, 0),
            vec![(n, e, seconds)],
            (0.0, Instant::now()),
            Kernel::Tree,
        )
    }
}
