//! The door's route for hold'em spots ([`super::door::Source::Spot`]): the spot file read,
//! the options checked (the CFR family only; which options apply to spots), the game
//! expanded and sized before its state is allocated, then iterations with a full best
//! response every `--check-every` iterations until the stop rule holds. A check of an unraked
//! spot walks the best responses only ([`crate::holdem::solver::Solver::check`]); the final
//! report adds the expected values' walks once.

use super::door::{check_values, refuse, DoorHooks, Opt, SolveError, Solved, Spelling, Strategy};
use super::door::{Detail, Request, Value};
use super::registry::{self, AlgorithmError, CfrOptions};
use super::run::{CurvePoint, Progress, StopReason};
use super::Threads;
use crate::holdem::checkpoint;
use crate::holdem::solver::{Deals, Game, Precision, Solver, DEFAULT_MAX_GAME_NODES};
use crate::holdem::spot::Spot;
use crate::holdem::strategy_file::{spot_key, SpotKey};
use crate::holdem::tree::Counts;
use crate::lp::memory;
use std::time::{Duration, Instant};

/// The algorithm a spot is solved with when none is named (chosen by measurement on the
/// spots of `docs/holdem.md`).
pub const DEFAULT_SPOT_ALGORITHM: &str = "dcfr+";
/// dcfr+'s average-strategy weight exponent on spots when `--gamma` is not given (its authors
/// run 4; on the spots of `docs/holdem.md`, measured every 10 iterations, 5 is as low or lower
/// at every measurement from the 50th to the 180th).
pub const SPOT_DCFR_PLUS_GAMMA: f64 = 5.0;
/// Iterations between measurements on spots when `--check-every` is not given.
pub const DEFAULT_SPOT_CHECK_EVERY: u64 = 10;

/// The options a spot solve takes; every other is refused.
const SPOT_OPTIONS: &[Opt] = &[
    Opt::Algo,
    Opt::Iterations,
    Opt::Target,
    Opt::TargetPotPct,
    Opt::Time,
    Opt::Updates,
    Opt::Alpha,
    Opt::Beta,
    Opt::Gamma,
    Opt::Threads,
    Opt::CheckEvery,
    Opt::MaxMemory,
    Opt::Precision,
    Opt::Compress,
    Opt::Output,
    Opt::Checkpoint,
    Opt::CheckpointEvery,
    Opt::Resume,
];

/// What only a spot's run reports.
#[derive(Clone, Debug)]
pub struct SpotRun {
    /// The starting pot, chips.
    pub pot: f64,
    /// The exploitability in percent of the starting pot.
    pub exploitability_pot_pct: f64,
    /// Each player's share of the pot if both checked down (OOP, IP).
    pub root_equity: [f64; 2],
    /// Each player's expected chips under the returned strategy (OOP, IP).
    pub root_ev: [f64; 2],
    /// Each player's best-response value against the other's strategy.
    pub best_response: [f64; 2],
    /// Seconds spent reading the spot, building the tree and allocating.
    pub build_seconds: f64,
    /// Peak resident memory of the process, bytes (Linux).
    pub peak_rss_bytes: Option<u64>,
    /// Worker threads.
    pub threads: usize,
    /// The public tree's node counts per street.
    pub counts: Counts,
    /// Nodes of the tree expanded with its deals.
    pub game_nodes: usize,
    /// Bytes of the solver's state arrays.
    pub state_bytes: u64,
    /// The precision of the stored state.
    pub precision: Precision,
    /// The algorithm's parameters as run.
    pub params: crate::cfr::RegretParams,
    /// The spot and its solver, kept when the front end writes the strategy (`-o`).
    pub returned: Option<Returned>,
    /// The iterations of the checkpoint the run resumed from.
    pub resumed_at: Option<u64>,
    /// The checkpoint saved at the end: its path and bytes.
    pub checkpoint: Option<(std::path::PathBuf, u64)>,
}

/// The spot and the solver whose average strategy a run returns, for
/// [`crate::holdem::strategy_file::write`].
#[derive(Clone)]
pub struct Returned {
    /// The spot.
    pub spot: Spot,
    /// The solver after its last iteration.
    pub solver: std::sync::Arc<Solver>,
}

impl std::fmt::Debug for Returned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Returned {{ {} iterations }}", self.solver.iterations())
    }
}

/// Refuses the first option of `request` that spots do not take: one of another family by
/// the door's words, one of the CFR family's tree engines with the reason spots differ.
fn refuse_other_options(
    request: &Request,
    algorithm: &registry::Algorithm,
    sp: Spelling,
) -> Result<(), SolveError> {
    super::door::refuse_inapplicable(request, algorithm, SPOT_OPTIONS, sp)?;
    let exact = match sp {
        Spelling::Cli => "`bluff eval SPOT.toml STRATEGY --exact`",
        Spelling::Python => "`bluff.evaluate(spot, strategy, exact=True)`",
    };
    for opt in [
        Opt::TargetRelative,
        Opt::AlwaysThreads,
        Opt::Kernel,
        Opt::Exact,
        Opt::Curve,
        Opt::Plot,
        Opt::Report,
        Opt::Lock,
    ] {
        debug_assert!(!SPOT_OPTIONS.contains(&opt));
        if !request.given(opt) {
            continue;
        }
        let why = match opt {
            Opt::TargetRelative => format!(
                "a spot's target is in chips ({}) or in percent of the pot ({})",
                Opt::Target.spelled(sp),
                Opt::TargetPotPct.spelled(sp)
            ),
            Opt::AlwaysThreads => format!(
                "the spot engine splits the cards of every chance node over {} threads at any size",
                Opt::Threads.spelled(sp)
            ),
            Opt::Kernel => "spots have one engine, the vector-form CFR over the public tree".into(),
            Opt::Exact => format!(
                "a spot is measured in f64; a strategy file of a spot small enough is evaluated exactly by {exact}"
            ),
            Opt::Report if sp == Spelling::Cli => {
                "a spot's report is written by `bluff report SPOT.toml STRATEGY`".into()
            }
            _ => "not built for spots yet".into(),
        };
        return Err(SolveError::Request(format!(
            "{} does not apply to hold'em spots: {why}",
            opt.spelled(sp)
        )));
    }
    Ok(())
}

/// Solves the spot in `text` (named `name`) as `request` asks.
pub(crate) fn solve_spot(
    text: &str,
    name: &str,
    request: &Request,
    sp: Spelling,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let build_start = Instant::now();
    let spot = Spot::parse(text).map_err(|e| SolveError::Request(format!("{name}: {e}")))?;
    // A resumed run reads its checkpoint's header first: the algorithm and the precision
    // default to the checkpoint's.
    let opened = match &request.resume {
        Some(path) => Some(checkpoint::open(path).map_err(|e| {
            SolveError::Request(format!(
                "{} {}: {e}",
                Opt::Resume.spelled(sp),
                path.display()
            ))
        })?),
        None => None,
    };
    let algo = match (&request.algo, &opened) {
        (Some(a), _) => a.as_str(),
        (None, Some(o)) => o.header.algo.as_str(),
        (None, None) => DEFAULT_SPOT_ALGORITHM,
    };
    let algorithm = registry::algorithm(algo).map_err(|e| SolveError::Request(e.to_string()))?;
    match algorithm.family {
        registry::Family::Cfr => {}
        registry::Family::Sampling(_) => {
            return Err(SolveError::Request(format!(
                "{} samples the game tree; hold'em spots are solved by the CFR family's \
                 vector-form engine, which passes every hand at once (give a CFR-family \
                 algorithm such as dcfr, cfr+ or pcfr+)",
                algorithm.name
            )))
        }
        registry::Family::ExactLp | registry::Family::Lcp => {
            return super::spot_lp::solve_spot_exact(&spot, name, algorithm, request, sp, hooks);
        }
    }
    refuse_other_options(request, algorithm, sp)?;
    check_values(request, sp)?;
    if let Some(x) = request
        .target_pot_pct
        .filter(|x| !(x.is_finite() && *x > 0.0))
    {
        return Err(refuse(Opt::TargetPotPct, x, "a finite positive number", sp));
    }
    if request.target.is_some() && request.target_pot_pct.is_some() {
        return Err(SolveError::Request(format!(
            "give {} or {}, not both",
            Opt::Target.spelled(sp),
            Opt::TargetPotPct.spelled(sp)
        )));
    }
    let stop_given = request.iterations.is_some()
        || request.target.is_some()
        || request.target_pot_pct.is_some()
        || request.time.is_some();
    if !stop_given {
        let w = |o: Opt, v: &str| match sp {
            Spelling::Cli => format!("{} {v}", o.spelled(sp)),
            Spelling::Python => format!("{}{v}", o.spelled(sp)),
        };
        return Err(SolveError::Request(format!(
            "give a stop rule: {}, {}, {} or {}",
            w(Opt::Iterations, "N"),
            w(Opt::TargetPotPct, "P"),
            w(Opt::Target, "E"),
            w(Opt::Time, "S")
        )));
    }
    let options = CfrOptions {
        updates: request.updates,
        alpha: request.alpha,
        beta: request.beta,
        gamma: match (request.gamma, algorithm.name) {
            (None, "dcfr+") => Some(SPOT_DCFR_PLUS_GAMMA),
            (g, _) => g,
        },
    };
    let horizon = request.iterations.map(|n| n as u64);
    let params = algorithm
        .regret_params(&options, horizon)
        .map_err(|e| match e {
            AlgorithmError::NeedsHorizon(a) => SolveError::Request(format!(
                "{a} schedules its exponents over the run's length: give {}",
                match sp {
                    Spelling::Cli => format!("{} N", Opt::Iterations.spelled(sp)),
                    Spelling::Python => format!("{}N", Opt::Iterations.spelled(sp)),
                }
            )),
            e => SolveError::Request(e.to_string()),
        })?;
    let threads = spot_threads(request, sp)?;
    let check_every = request
        .check_every
        .map_or(DEFAULT_SPOT_CHECK_EVERY, |n| n as u64);
    let precision = spot_precision(request, opened.as_ref().map(|o| &o.header), sp)?;
    let game = Game::build_with(&spot, DEFAULT_MAX_GAME_NODES, Deals::Isomorphic)
        .map_err(|e| SolveError::Request(format!("{name}: {e}")))?;
    let state_bytes = game.state_bytes_in(&params, precision);
    let budget = request.max_memory.unwrap_or_else(memory::default_budget);
    if state_bytes > budget {
        return Err(SolveError::Request(format!(
            "{name}: the solver's state needs {} ({} state entries), more than the {} of {}",
            memory::format_bytes(state_bytes as u128),
            game.state_len[0] + game.state_len[1],
            if request.max_memory.is_some() {
                "limit"
            } else {
                "80% of the available memory, the default limit"
            },
            memory::format_bytes(budget as u128),
        )));
    }
    if let Some(o) = &opened {
        check_resumed(
            &o.header,
            &spot_key(&spot, &game),
            algorithm.name,
            &params,
            request,
            sp,
        )?;
    }
    let counts = game.tree.counts();
    let game_nodes = game.nodes.len();
    let pot = game.pot;
    let root_equity = game.root_equity();
    let mut solver = Solver::with_precision(game, params, threads, precision);
    let mut earlier = (0.0, Vec::new());
    let resumed_at = match opened {
        Some(o) => {
            earlier = (o.header.solve_seconds, o.header.points.clone());
            let path = request
                .resume
                .as_ref()
                .map_or(String::new(), |p| p.display().to_string());
            o.restore(&mut solver).map_err(|e| {
                SolveError::Request(format!("{} {path}: {e}", Opt::Resume.spelled(sp)))
            })?;
            Some(solver.iterations())
        }
        None => None,
    };
    let kept_spot = request.output.then(|| spot.clone());
    let key = spot_key(&spot, &solver.game);
    let build_seconds = build_start.elapsed().as_secs_f64();
    let checkpoint_every = Duration::from_secs_f64(
        request
            .checkpoint_every
            .unwrap_or(super::door::DEFAULT_CHECKPOINT_SECONDS),
    );
    let save = |solver: &Solver, curve: &[CurvePoint], seconds: f64| {
        let Some(path) = &request.checkpoint else {
            return Ok(None);
        };
        let header = checkpoint::Header {
            spot: key.clone(),
            algo: algorithm.name.to_string(),
            params: format!("{params:?}"),
            precision: String::new(),
            iterations: 0,
            solve_seconds: seconds,
            points: curve
                .iter()
                .map(|p| (p.iteration, p.exploitability, p.seconds))
                .collect(),
            arrays: Vec::new(),
        };
        checkpoint::save(path, solver, &header)
            .map(|bytes| Some((path.clone(), bytes)))
            .map_err(|e| {
                SolveError::Run(format!(
                    "{} {}: {e}",
                    Opt::Checkpoint.spelled(sp),
                    path.display()
                ))
            })
    };

    // Iterate, measuring every `check_every` iterations (the time includes measurements).
    let target = request
        .target
        .or(request.target_pot_pct.map(|p| p / 100.0 * pot));
    let time = request.time.map(Duration::from_secs_f64);
    let start = Instant::now();
    let mut curve: Vec<CurvePoint> = earlier
        .1
        .iter()
        .map(|&(iteration, exploitability, seconds)| CurvePoint {
            iteration,
            exploitability,
            seconds,
        })
        .collect();
    let solving = |start: Instant| earlier.0 + start.elapsed().as_secs_f64();
    let mut values = None;
    let mut saved_at = Instant::now();
    let reason = loop {
        let done = solver.iterations();
        if let Some(max) = horizon {
            if done >= max {
                break StopReason::Iterations;
            }
        }
        if time.is_some_and(|t| start.elapsed() >= t) {
            break StopReason::Time;
        }
        if hooks.interrupted() {
            break StopReason::Interrupted;
        }
        let step = horizon.map_or(check_every, |m| check_every.min(m - done));
        solver.iterate(step);
        let v = solver.check();
        let point = CurvePoint {
            iteration: solver.iterations(),
            exploitability: v.exploitability,
            seconds: solving(start),
        };
        curve.push(point);
        hooks.progress(Progress {
            iteration: solver.iterations(),
            point: curve.last(),
        });
        values = Some(v);
        if target.is_some_and(|t| v.exploitability <= t) {
            break StopReason::Target;
        }
        if request.checkpoint.is_some() && saved_at.elapsed() >= checkpoint_every {
            save(&solver, &curve, solving(start))?;
            saved_at = Instant::now();
        }
    };
    // The last check's best responses, with the expected values' walks if it skipped them.
    let v = match values {
        Some(c) => solver.values_after(&c),
        None => solver.values(),
    };
    let seconds = solving(start);
    let iterations = solver.iterations();
    let checkpoint = save(&solver, &curve, seconds)?;
    let run = SpotRun {
        pot,
        exploitability_pot_pct: v.exploitability / pot * 100.0,
        root_equity,
        root_ev: v.ev,
        best_response: v.best_response,
        build_seconds,
        peak_rss_bytes: super::sampling::peak_rss(),
        threads,
        counts,
        game_nodes,
        state_bytes,
        precision,
        params,
        returned: kept_spot.map(|spot| Returned {
            spot,
            solver: std::sync::Arc::new(solver),
        }),
        resumed_at,
        checkpoint,
    };
    Ok(Solved {
        algorithm,
        spec: name.to_string(),
        game: None,
        values: Some([Value::Float(v.ev[0]), Value::Float(v.ev[1])]),
        exploitability: Some(Value::Float(v.exploitability)),
        nash_conv: Some(Value::Float(2.0 * v.exploitability)),
        iterations,
        seconds,
        setup_seconds: build_seconds,
        curve,
        reason: Some(reason),
        strategy: Strategy::None,
        exact_eval: None,
        detail: Detail::Spot(Box::new(run)),
        lock: None,
        // Each player's gain is in the spot's own fields (`best_response` less `root_ev`).
        gains: None,
    })
}

/// Refuses to resume a checkpoint written for another spot, algorithm, parameters or
/// precision, or with more iterations than the run's total.
fn check_resumed(
    header: &checkpoint::Header,
    key: &SpotKey,
    algo: &str,
    params: &crate::cfr::RegretParams,
    request: &Request,
    sp: Spelling,
) -> Result<(), SolveError> {
    let resume = Opt::Resume.spelled(sp);
    if &header.spot != key {
        return Err(SolveError::Request(format!(
            "{resume}: the checkpoint was written for another spot (board {}, pot {}, stack {}, \
             {} + {} hands, tree of {} nodes); this one has board {}, pot {}, stack {}, {} + {} \
             hands, tree of {} nodes",
            header.spot.board,
            header.spot.pot,
            header.spot.stack,
            header.spot.hands[0].len(),
            header.spot.hands[1].len(),
            header.spot.tree_nodes,
            key.board,
            key.pot,
            key.stack,
            key.hands[0].len(),
            key.hands[1].len(),
            key.tree_nodes,
        )));
    }
    if header.algo != algo {
        return Err(SolveError::Request(format!(
            "{resume}: the checkpoint is a {} run; it cannot continue as {algo}",
            header.algo
        )));
    }
    let asked = format!("{params:?}");
    if header.params != asked {
        return Err(SolveError::Request(format!(
            "{resume}: the checkpoint was run with {}; the options given ask for {asked}",
            header.params
        )));
    }
    if let Some(p) = asked_precision(request).filter(|p| *p != header.precision) {
        return Err(SolveError::Request(format!(
            "{resume}: the checkpoint's state is stored in {}; it cannot continue in {p}{}",
            header.precision,
            if header.precision == Precision::Compressed16.name() {
                format!(
                    " (give {} or leave the storage out)",
                    Opt::Compress.spelled(sp)
                )
            } else {
                String::new()
            }
        )));
    }
    if let Some(n) = request
        .iterations
        .filter(|&n| (n as u64) < header.iterations)
    {
        return Err(SolveError::Request(format!(
            "{}: the checkpoint already has {} iterations ({} is the run's total)",
            Opt::Iterations.with(n, sp),
            header.iterations,
            Opt::Iterations.spelled(sp)
        )));
    }
    Ok(())
}

/// The storage the request names, if any: `compressed16` for the compress option, else the
/// precision given (checked by [`spot_precision`]).
fn asked_precision(request: &Request) -> Option<&str> {
    if request.compress {
        Some(Precision::Compressed16.name())
    } else {
        request.precision.as_deref()
    }
}

/// The storage of a spot's state: the compress option's, the precision given, the resumed
/// checkpoint's, or `f32`. The compress option keeps the rules' other arrays in f32, so it is
/// refused beside the f64 precision.
fn spot_precision(
    request: &Request,
    resumed: Option<&checkpoint::Header>,
    sp: Spelling,
) -> Result<Precision, SolveError> {
    if let Some(name) = &request.precision {
        let p = Precision::from_name(name)
            .ok_or_else(|| refuse(Opt::Precision, name, "f32 or f64", sp))?;
        if request.compress && p == Precision::F64 {
            return Err(SolveError::Request(format!(
                "give {} or {}, not both: the compressed state stores regrets and average \
                 sums in 16 bits and the rules' other arrays in f32",
                Opt::Compress.spelled(sp),
                Opt::Precision.with("f64", sp)
            )));
        }
    }
    match asked_precision(request).or(resumed.map(|h| h.precision.as_str())) {
        None => Ok(Precision::default()),
        Some(name) => Precision::from_stored_name(name).ok_or_else(|| {
            SolveError::Request(format!(
                "{}: the checkpoint's state is stored in {name}, which this bluff does not read",
                Opt::Resume.spelled(sp)
            ))
        }),
    }
}

/// The worker threads a spot's run asks for (`--threads`, else every core available).
pub(crate) fn spot_threads(request: &Request, sp: Spelling) -> Result<usize, SolveError> {
    match request.threads {
        Some(n) if n < 1 => Err(refuse(Opt::Threads, n, "at least 1", sp)),
        Some(n) => Threads::Exactly(usize::try_from(n).unwrap_or(usize::MAX))
            .count()
            .map_err(|e| SolveError::Request(e.to_string())),
        None => Threads::Available
            .count()
            .map_err(|e| SolveError::Request(e.to_string())),
    }
}
