//! `bluff solve`: run a CFR-family solver, write the average strategy, the convergence curve
//! and its plot.

// Monte Carlo CFR (issue 28): a self-contained front end, entered from `run` below.
mod mccfr;

use crate::cli::files::{is_stdout, write_output, FilePlan};
use crate::eval::exploitability;
use crate::format::atomic::write_atomic;
use crate::format::checkpoint::{self, Checkpoint};
use crate::format::strategy_json::profile_to_json;
use crate::games;
use crate::scalar::{format_rational, rational_to_f64};
use crate::solve::cfr::{
    CfrSolver, CurvePoint, Pacing, RegretParams, Schedule as Schedule_, StopRule, Target,
};
use crate::solve::resumable::{drive, Saver, Schedule, StopReason};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Solver choice: the CFR family, or the exact sequence-form LP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Vanilla CFR (simultaneous updates unless `--updates alternating`).
    #[value(name = "cfr")]
    Cfr,
    /// CFR+: regret matching+, alternating updates, linear averaging.
    #[value(name = "cfr+")]
    CfrPlus,
    /// Linear CFR.
    #[value(name = "lcfr")]
    Lcfr,
    /// Discounted CFR (`--alpha`, `--beta`, `--gamma`; default 1.5, 0, 2).
    #[value(name = "dcfr")]
    Dcfr,
    /// Predictive CFR+.
    #[value(name = "pcfr+")]
    PcfrPlus,
    /// DCFR+ (Xu et al. 2024): regrets floored, discounted by t^1.5/(t^1.5+1.5) as the authors run it, gamma 4.
    #[value(name = "dcfr+")]
    DcfrPlus,
    /// PDCFR+ (Xu et al. 2024): DCFR+ with PCFR+'s prediction, alpha 2.3, gamma 5.
    #[value(name = "pdcfr+")]
    PdcfrPlus,
    /// HS-DCFR(30): DCFR with a hyperparameter schedule over `--iterations` (`--gamma` = start).
    #[value(name = "hs-dcfr")]
    HsDcfr,
    /// HS-PCFR+(30): PCFR+ with gamma scheduled over `--iterations` (`--gamma` = start).
    #[value(name = "hs-pcfr+")]
    HsPcfrPlus,
    /// Exact sequence-form LP: exact value and strategies, certified by exact best responses.
    #[value(name = "lp")]
    Lp,
    /// External-sampling Monte Carlo CFR (`--seed`; on the game's rules when too big to build).
    #[value(name = "es-mccfr")]
    EsMccfr,
    /// Outcome-sampling Monte Carlo CFR (`--epsilon`, `--baseline`, `--seed`).
    #[value(name = "os-mccfr")]
    OsMccfr,
}

impl Algo {
    /// The name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Cfr => "cfr",
            Algo::CfrPlus => "cfr+",
            Algo::Lcfr => "lcfr",
            Algo::Dcfr => "dcfr",
            Algo::PcfrPlus => "pcfr+",
            Algo::DcfrPlus => "dcfr+",
            Algo::PdcfrPlus => "pdcfr+",
            Algo::HsDcfr => "hs-dcfr",
            Algo::HsPcfrPlus => "hs-pcfr+",
            Algo::Lp => "lp",
            Algo::EsMccfr => "es-mccfr",
            Algo::OsMccfr => "os-mccfr",
        }
    }
}

/// Update order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Updates {
    /// Both players update from the same frozen strategies.
    Simultaneous,
    /// Player 1 updates, then player 2 against player 1's new strategy.
    Alternating,
}

/// Arguments of `bluff solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game spec (see `bluff games`); with --resume, taken from the checkpoint when left out.
    #[arg(required_unless_present = "resume")]
    game: Option<String>,
    /// Algorithm (default cfr; with --resume, the checkpoint's).
    #[arg(long, value_enum)]
    algo: Option<Algo>,
    /// Stop after N iterations.
    #[arg(long, value_name = "N")]
    iterations: Option<u64>,
    /// Stop once the average strategy's exploitability (payoff units) is at most E.
    #[arg(long, value_name = "E")]
    target: Option<f64>,
    /// Stop once exploitability is at most F times the payoff range (max - min payoff).
    #[arg(long, value_name = "F")]
    target_relative: Option<f64>,
    /// Stop after S seconds of solving.
    #[arg(long, value_name = "S")]
    time: Option<f64>,
    /// Override the algorithm's update order.
    #[arg(long, value_enum)]
    updates: Option<Updates>,
    /// DCFR positive-regret discount exponent.
    #[arg(long)]
    alpha: Option<f64>,
    /// DCFR negative-regret discount exponent.
    #[arg(long)]
    beta: Option<f64>,
    /// DCFR average-strategy weight exponent.
    #[arg(long)]
    gamma: Option<f64>,
    /// Worker threads (results do not depend on it); default: all cores. The solver times
    /// them against one thread (after 250 ms, then every 2 s of iterating) and runs the
    /// faster (see --always-threads).
    #[arg(long)]
    threads: Option<usize>,
    /// Run every iteration on all --threads, even where one thread is faster (by default
    /// the solver times both now and then and runs the faster; results are the same bits).
    #[arg(long)]
    always_threads: bool,
    /// Largest gap in iterations between exploitability measurements.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    check_every: u64,
    /// Write the average strategy as strategy JSON.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write exploitability against iterations as CSV.
    #[arg(long, value_name = "FILE")]
    curve: Option<PathBuf>,
    /// Plot exploitability against iterations (log-log SVG).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Also evaluate the final average strategy exactly in rationals.
    #[arg(long)]
    exact: bool,
    /// Simplex method of `--algo lp`: float-guided exact (fast) or the dense exact tableau.
    #[arg(long, value_enum, default_value = "guided")]
    lp_method: crate::cli::lp::LpMethod,
    /// Memory budget of `--algo lp` (e.g. 8G, 512M; default 80% of MemAvailable): an LP whose
    /// estimate exceeds it is refused before allocating, with its size in the message.
    #[arg(long, value_name = "SIZE", value_parser = crate::solve::lp::memory::parse_bytes)]
    max_memory: Option<u64>,
    /// With `--algo lp`: also write the sequence-form LP as free MPS (for other LP solvers).
    #[arg(long, value_name = "FILE")]
    write_mps: Option<PathBuf>,
    /// With `--algo lp`: the LP to build, solve and write: `merged` (one-action information
    /// sets' sequences merged into their parents'; fewer rows, same plans) or `textbook` (one
    /// variable or row per sequence) [default: merged].
    #[arg(long, value_enum)]
    lp_form: Option<crate::cli::lp::LpFormArg>,
    /// Print a JSON summary instead of a table.
    #[arg(long)]
    json: bool,
    /// Save the whole solver state to FILE (atomically) every --checkpoint-every seconds, at
    /// the end, and on SIGINT/SIGTERM.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds of solving between checkpoints.
    #[arg(long, value_name = "SECONDS", requires = "checkpoint")]
    checkpoint_every: Option<f64>,
    /// Continue the run saved in FILE; --iterations N is the total, as if never interrupted.
    #[arg(long, value_name = "FILE")]
    resume: Option<PathBuf>,
    /// Also write an HTML report of the result (see `bluff report`).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// Sampling solvers: the random seed (default 0; results depend on it and on --threads,
    /// whose default is 1 for them).
    #[arg(long, value_name = "S")]
    seed: Option<u64>,
    /// os-mccfr: exploration epsilon in (0, 1] (default 0.6, as OpenSpiel).
    #[arg(long, value_name = "E")]
    epsilon: Option<f64>,
    /// os-mccfr: VR-MCCFR baselines per information set and action, learned at rate R.
    #[arg(long, value_name = "R")]
    baseline: Option<f64>,
    /// Sampling solvers: regret matching+ (regrets floored at 0 at every update).
    #[arg(long)]
    rm_plus: bool,
    /// Sampling solvers: iterations per discount epoch (--alpha, --beta and --gamma count epochs).
    #[arg(long, value_name = "N")]
    epoch: Option<u64>,
    /// Sampling solvers: play the game's rules even when its arena could be built.
    #[arg(long)]
    rules: bool,
    /// Sampling solvers: skip the final exploitability (a full best response) unless a target
    /// or a measurement needs it.
    #[arg(long)]
    no_eval: bool,
}

/// Longest `--time` and `--checkpoint-every` accepted: about 31 years.
pub const MAX_SECONDS: f64 = 1e9;
/// Default `--checkpoint-every`.
pub const DEFAULT_CHECKPOINT_SECONDS: f64 = 60.0;

fn finite_positive(name: &str, v: Option<f64>) -> Result<()> {
    if let Some(x) = v {
        if !(x.is_finite() && x >= 0.0) {
            bail!("--{name} {x:?}: expected a finite non-negative number");
        }
    }
    Ok(())
}

/// The regret parameters for an algorithm and the command-line overrides.
pub fn regret_params(
    algo: Algo,
    updates: Option<Updates>,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    iterations: Option<u64>,
) -> Result<RegretParams> {
    let scheduled = matches!(algo, Algo::HsDcfr | Algo::HsPcfrPlus);
    if scheduled && (alpha.is_some() || beta.is_some()) {
        bail!("--alpha and --beta do not apply to the schedules; --gamma sets the starting gamma");
    }
    if algo != Algo::Dcfr && !scheduled && (alpha.is_some() || beta.is_some() || gamma.is_some()) {
        bail!("--alpha, --beta and --gamma only apply to --algo dcfr (and --gamma to hs-*)");
    }
    let horizon = || -> Result<u64> {
        iterations.ok_or_else(|| {
            anyhow::anyhow!(
                "--algo {} schedules its exponents over the run's length: give --iterations N",
                algo.name()
            )
        })
    };
    let mut params = match algo {
        Algo::Cfr => RegretParams::vanilla(),
        Algo::CfrPlus => RegretParams::cfr_plus(),
        Algo::Lcfr => RegretParams::linear(),
        Algo::Dcfr => {
            let d = RegretParams::discounted_default();
            RegretParams::discounted(
                alpha.unwrap_or(d.alpha),
                beta.unwrap_or(d.beta),
                gamma.unwrap_or(d.gamma),
            )
        }
        Algo::PcfrPlus => RegretParams::predictive_plus(),
        Algo::DcfrPlus => RegretParams::dcfr_plus(),
        Algo::PdcfrPlus => RegretParams::pdcfr_plus(),
        Algo::HsDcfr => RegretParams::hs_dcfr(gamma.unwrap_or(30.0), horizon()?),
        Algo::HsPcfrPlus => RegretParams::hs_pcfr_plus(gamma.unwrap_or(30.0), horizon()?),
        Algo::Lp => bail!("--algo lp is not a CFR variant"),
        Algo::EsMccfr | Algo::OsMccfr => bail!("--algo {} is a sampling solver", algo.name()),
    };
    if let Some(u) = updates {
        params.alternating = u == Updates::Alternating;
    }
    Ok(params)
}

/// Runs `bluff solve`: validates the options, checks every output location, solves, writes
/// the requested files, reports.
pub fn run(args: SolveArgs) -> Result<()> {
    if mccfr::applies(&args) {
        return mccfr::run(&args);
    }
    let sampling_only = [
        ("--seed", args.seed.is_some()),
        ("--epsilon", args.epsilon.is_some()),
        ("--baseline", args.baseline.is_some()),
        ("--rm-plus", args.rm_plus),
        ("--epoch", args.epoch.is_some()),
        ("--rules", args.rules),
        ("--no-eval", args.no_eval),
    ];
    if let Some((name, _)) = sampling_only.iter().find(|(_, given)| *given) {
        bail!("{name} applies to the sampling solvers (--algo es-mccfr or os-mccfr)");
    }
    let threads = crate::cli::threads_arg(args.threads)?;
    if args.algo == Some(Algo::Lp) {
        return run_lp(&args, threads);
    }
    if args.max_memory.is_some() || args.write_mps.is_some() || args.lp_form.is_some() {
        bail!("--max-memory, --write-mps and --lp-form apply to --algo lp only");
    }
    for (name, v) in [
        ("target", args.target),
        ("target-relative", args.target_relative),
        ("alpha", args.alpha),
        ("beta", args.beta),
        ("gamma", args.gamma),
    ] {
        finite_positive(name, v)?;
    }
    for (name, v) in [
        ("target", args.target),
        ("target-relative", args.target_relative),
    ] {
        if v == Some(0.0) {
            bail!(
                "--{name} 0: expected a positive number; an exploitability of exactly 0 is \
                 not reached by a floating-point run"
            );
        }
    }
    for (name, v) in [
        ("time", args.time),
        ("checkpoint-every", args.checkpoint_every),
    ] {
        if let Some(x) = v {
            if !(x.is_finite() && x > 0.0 && x <= MAX_SECONDS) {
                bail!("--{name} {x:?}: expected seconds in (0, {MAX_SECONDS:e}]");
            }
        }
    }
    if args.iterations.is_none()
        && args.target.is_none()
        && args.target_relative.is_none()
        && args.time.is_none()
    {
        bail!("give a stop rule: --iterations N, --target E, --target-relative F or --time S");
    }
    if args.target.is_some() && args.target_relative.is_some() {
        bail!("give --target or --target-relative, not both");
    }
    if args.iterations == Some(0) {
        bail!("--iterations 0: expected at least 1");
    }
    if args.check_every == 0 {
        bail!("--check-every 0: expected at least 1");
    }
    let stdout_users: Vec<&str> = [
        ("-o", &args.output),
        ("--curve", &args.curve),
        ("--plot", &args.plot),
        ("--checkpoint", &args.checkpoint),
    ]
    .iter()
    .filter(|(_, p)| p.as_deref().is_some_and(is_stdout))
    .map(|(n, _)| *n)
    .collect();
    if stdout_users.len() > 1 || (stdout_users.len() == 1 && args.json) {
        bail!(
            "{} and {} both want standard output",
            stdout_users[0],
            stdout_users.get(1).copied().unwrap_or("--json")
        );
    }
    if args.checkpoint.as_deref().is_some_and(is_stdout) {
        bail!("--checkpoint -: a checkpoint is a binary file; give a file name");
    }
    if let Some(plot) = &args.plot {
        let svg = plot
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        if !svg && !is_stdout(plot) {
            bail!(
                "--plot {}: the plot is SVG; give a file name ending in .svg",
                plot.display()
            );
        }
    }

    // Read the checkpoint (if any) whole before anything else, then check every output.
    let resumed = match &args.resume {
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            Some(
                checkpoint::decode(&bytes)
                    .with_context(|| format!("checkpoint {}", path.display()))?,
            )
        }
        None => None,
    };
    let spec = match (&args.game, &resumed) {
        (Some(g), _) => g.clone(),
        (None, Some(c)) => c.game_spec.clone(),
        (None, None) => bail!("give a game"),
    };
    let algo = match (args.algo, &resumed) {
        (Some(a), _) => a,
        (None, Some(c)) => algo_by_name(&c.algo)?,
        (None, None) => Algo::Cfr,
    };
    let mut plan = FilePlan::new();
    plan.game(&spec);
    if let Some(r) = &args.resume {
        plan.input(r);
        // Continuing a run into the checkpoint it came from is the usual way to extend it.
        plan.replaceable(r);
    }
    for (what, path) in [
        ("-o", &args.output),
        ("--curve", &args.curve),
        ("--plot", &args.plot),
        ("--checkpoint", &args.checkpoint),
        ("--report", &args.report),
    ] {
        if let Some(p) = path {
            plan.output(what, p);
        }
    }
    plan.check()?;

    let game = games::load(&spec)?;
    let fingerprint = checkpoint::game_fingerprint(&game);
    let (mut solver, mut schedule, params) = match &resumed {
        None => {
            let params = regret_params(
                algo,
                args.updates,
                args.alpha,
                args.beta,
                args.gamma,
                args.iterations,
            )?;
            (CfrSolver::new(&game, params), Schedule::start(0), params)
        }
        Some(c) => {
            let resume = args.resume.as_deref().expect("resumed").display();
            if c.fingerprint != fingerprint {
                bail!(
                    "checkpoint {resume} was written for another game (spec {:?}, fingerprint \
                     {:016x}); {spec:?} has fingerprint {fingerprint:016x}",
                    c.game_spec,
                    c.fingerprint
                );
            }
            if c.algo != algo.name() {
                bail!(
                    "checkpoint {resume} is a {} run; it cannot continue as --algo {}",
                    c.algo,
                    algo.name()
                );
            }
            let given = args.updates.is_some()
                || args.alpha.is_some()
                || args.beta.is_some()
                || args.gamma.is_some();
            if given {
                let mut wanted = regret_params(
                    algo,
                    args.updates,
                    args.alpha,
                    args.beta,
                    args.gamma,
                    Some(c.params.schedule.map_or(1, |s| s.horizon)),
                )?;
                // A schedule keeps the horizon it started with.
                wanted.schedule = wanted.schedule.map(|s| Schedule_ {
                    horizon: c.params.schedule.map_or(s.horizon, |c| c.horizon),
                    ..s
                });
                let mut expected = c.params;
                // Only the options given are compared; the rest come from the checkpoint.
                if args.updates.is_none() {
                    expected.alternating = wanted.alternating;
                }
                if args.alpha.is_none() {
                    expected.alpha = wanted.alpha;
                }
                if args.beta.is_none() {
                    expected.beta = wanted.beta;
                }
                if args.gamma.is_none() {
                    expected.gamma = wanted.gamma;
                }
                if expected != wanted {
                    bail!(
                        "checkpoint {resume} was run with {:?}; the options given ask for {:?}",
                        c.params,
                        wanted
                    );
                }
            }
            if c.check_every != args.check_every {
                bail!(
                    "checkpoint {resume} measured with --check-every {}; give the same (got {})",
                    c.check_every,
                    args.check_every
                );
            }
            let solver = CfrSolver::restore(&game, c.params, &c.state)
                .with_context(|| format!("checkpoint {resume}"))?;
            let schedule = Schedule {
                next_check: c.next_check,
                points: c.points.clone(),
                solve_seconds: c.solve_seconds,
            };
            (solver, schedule, c.params)
        }
    };
    if let (Some(n), Some(_)) = (args.iterations, &resumed) {
        if n < solver.iterations() {
            bail!(
                "--iterations {n}: the checkpoint already has {} iterations (--iterations is \
                 the run's total)",
                solver.iterations()
            );
        }
    }
    if args.always_threads {
        solver = solver.with_pacing(Pacing::Team);
    }
    solver = solver.with_threads(threads)?;
    let first_iteration = solver.iterations();
    let stop = StopRule {
        max_iterations: args.iterations,
        target: args
            .target
            .map(Target::Absolute)
            .or(args.target_relative.map(Target::FractionOfRange)),
        time: args.time.map(Duration::from_secs_f64),
    };
    let make_checkpoint = |solver: &CfrSolver, schedule: &Schedule| Checkpoint {
        fingerprint,
        game_spec: spec.clone(),
        algo: algo.name().to_string(),
        params,
        check_every: args.check_every,
        next_check: schedule.next_check,
        solve_seconds: schedule.solve_seconds,
        points: schedule.points.clone(),
        state: solver.state(),
    };
    let mut save = |solver: &CfrSolver, schedule: &Schedule| -> Result<()> {
        if let Some(path) = &args.checkpoint {
            write_atomic(
                path,
                &checkpoint::encode(&make_checkpoint(solver, schedule)),
            )?;
        }
        Ok(())
    };

    let bar = match args.iterations {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} iterations  {msg}  ({elapsed}, eta {eta})",
            )
            .expect("valid template"),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {pos} iterations  {msg}  ({elapsed})")
                .expect("valid template"),
        ),
    };
    bar.set_position(solver.iterations());
    crate::cli::signals::catch_stop_signals();
    let interrupted = || crate::cli::signals::stop_signal().is_some();
    let every =
        Duration::from_secs_f64(args.checkpoint_every.unwrap_or(DEFAULT_CHECKPOINT_SECONDS));
    let saver = args.checkpoint.is_some().then_some(Saver {
        every,
        save: &mut save,
    });
    let outcome = drive(
        &mut solver,
        &game,
        &stop,
        args.check_every,
        &mut schedule,
        &interrupted,
        saver,
        |progress| {
            bar.set_position(progress.iteration);
            if let Some(point) = progress.point {
                bar.set_message(format!(
                    "exploitability {:.3e}  {:.0} it/s",
                    point.exploitability,
                    point.iteration as f64 / point.seconds.max(1e-9)
                ));
            }
        },
    )?;
    bar.finish_and_clear();
    save(&solver, &schedule)?;
    let points = outcome.points;

    // The final figures come from crate::eval on the average strategy.
    let average = solver.average_profile();
    let eval = exploitability(&game, &average);
    let write_files = |points: &[CurvePoint]| -> Result<()> {
        if let Some(path) = &args.output {
            let value = profile_to_json(&game, &spec, &average);
            let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
            write_output(path, (text + "\n").as_bytes())?;
        }
        if let Some(path) = &args.curve {
            let mut csv = String::from("iteration,exploitability,seconds\n");
            for p in points {
                csv.push_str(&format!(
                    "{},{:e},{:.6}\n",
                    p.iteration, p.exploitability, p.seconds
                ));
            }
            write_output(path, csv.as_bytes())?;
        }
        if let Some(path) = &args.plot {
            let title = format!("{} on {}", algo.name(), spec);
            write_output(path, plot_svg(&title, points)?.as_bytes())?;
        }
        Ok(())
    };
    if outcome.reason == StopReason::Interrupted {
        write_files(&points)?;
        let signal = crate::cli::signals::stop_signal().unwrap_or(crate::cli::signals::SIGINT);
        let mut saved: Vec<String> = Vec::new();
        for (what, path) in [
            ("checkpoint", &args.checkpoint),
            ("strategy", &args.output),
            ("curve", &args.curve),
            ("plot", &args.plot),
        ] {
            if let Some(p) = path {
                saved.push(format!("{what} {}", p.display()));
            }
        }
        return Err(crate::cli::Interrupted {
            signal,
            message: format!(
                "interrupted by {} after {} iterations (exploitability {:.6e}); {}",
                if signal == crate::cli::signals::SIGTERM {
                    "SIGTERM"
                } else {
                    "SIGINT"
                },
                solver.iterations(),
                eval.exploitability,
                if saved.is_empty() {
                    "nothing was asked to be saved (use --checkpoint FILE and -o FILE)".to_string()
                } else {
                    format!("saved {}", saved.join(", "))
                }
            ),
        }
        .into());
    }
    let last = *points.last().context("the run did no iterations")?;
    let exact = args
        .exact
        .then(|| exploitability(&game, &average.to_exact(&game)));
    write_files(&points)?;

    if let Some(path) = &args.report {
        let provenance = format!(
            "bluff solve --algo {}: average strategy after {} iterations ({:.2} s).",
            algo.name(),
            last.iteration,
            last.seconds
        );
        crate::cli::report::from_solve_cfr(&game, &spec, &average, provenance, &points, path)?;
    }
    let solver_bytes = solver.memory_bytes();
    let (lo, hi) = game.payoff_range();
    let rate = last.iteration as f64 / last.seconds.max(1e-9);
    if args.json {
        let mut summary = json!({
            "game": spec,
            "algo": algo.name(),
            "params": {
                "alternating": params.alternating,
                "alpha": finite_or_null(params.alpha),
                "beta": finite_or_null(params.beta),
                "discount_offset": params.discount_offset,
                "floor": params.floor,
                "gamma": params.gamma,
                "predictive": params.predictive,
                "schedule": params.schedule.map(|s| json!({
                    "horizon": s.horizon,
                    "alpha_slope": s.alpha_slope,
                    "beta_slope": s.beta_slope,
                    "gamma_slope": s.gamma_slope,
                })),
            },
            "threads": threads,
            "team_iterations": solver.team_iterations(),
            "nodes": game.nodes.len(),
            "solver_bytes": solver_bytes,
            "solver_bytes_per_node": solver_bytes as f64 / game.nodes.len() as f64,
            "game_bytes": game.heap_bytes(),
            "game_bytes_per_node": game.bytes_per_node(),
            "infosets": [game.infosets[0].len(), game.infosets[1].len()],
            "iterations": last.iteration,
            "seconds": last.seconds,
            "iterations_per_second": rate,
            "exploitability": eval.exploitability,
            "exploitability_fraction_of_range": eval.exploitability / (hi - lo),
            "nash_conv": eval.nash_conv,
            "value_p1": eval.value[0],
            "payoff_range": [lo, hi],
        });
        if let Some(x) = &exact {
            summary["exact"] = json!({
                "exploitability": format_rational(&x.exploitability),
                "nash_conv": format_rational(&x.nash_conv),
                "value_p1": format_rational(&x.value[0]),
            });
        }
        crate::cli::print_json(&summary);
        return Ok(());
    }
    // With `-` as an output, stdout carries that file; the report goes to stderr.
    let report = |line: String| {
        if stdout_users.is_empty() {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    };
    report(format!(
        "{} on {} ({}), {}",
        algo.name(),
        spec,
        crate::cli::game_size(&game),
        crate::cli::plural(threads, "thread", "threads")
    ));
    report(format!(
        "{} iterations in {:.3} s ({:.0} it/s){}",
        last.iteration,
        last.seconds,
        rate,
        if resumed.is_some() {
            ", resumed from a checkpoint"
        } else {
            ""
        }
    ));
    let ran = solver.iterations() - first_iteration;
    if solver.has_team() && solver.team_iterations() < ran {
        report(format!(
            "  {} of the {} iterations ran on the {} threads; for the others one thread was \
             faster (timed as it ran; --always-threads to use them all)",
            solver.team_iterations(),
            ran,
            threads
        ));
    }
    report("average strategy, evaluated in f64 (rounding error far below 1e-9):".into());
    report(format!("  exploitability  {:.6e}", eval.exploitability));
    report(format!(
        "  as a fraction of the payoff range {}..{}: {:.6e}",
        lo,
        hi,
        eval.exploitability / (hi - lo)
    ));
    report(format!(
        "  {} value     {:.12}",
        game.player_names[0], eval.value[0]
    ));
    if let Some(x) = &exact {
        report(
            "exact evaluation of the same strategy (its f64 probabilities read exactly):".into(),
        );
        report(format!(
            "  exploitability  {} = {:.15e}",
            short(&x.exploitability),
            rational_to_f64(&x.exploitability)
        ));
        report(format!(
            "  {} value     {:.15}",
            game.player_names[0],
            rational_to_f64(&x.value[0])
        ));
    }
    for (what, path) in [
        ("strategy", &args.output),
        ("curve", &args.curve),
        ("plot", &args.plot),
        ("checkpoint", &args.checkpoint),
        ("report", &args.report),
    ] {
        if let Some(p) = path {
            if !is_stdout(p) {
                report(format!("{what} written to {}", p.display()));
            }
        }
    }
    Ok(())
}

fn algo_by_name(name: &str) -> Result<Algo> {
    Algo::value_variants()
        .iter()
        .copied()
        .find(|a| a.name() == name)
        .with_context(|| format!("unknown algorithm {name:?} in the checkpoint"))
}

/// `--algo lp`: one exact run; the CFR-only options are refused.
fn run_lp(args: &SolveArgs, threads: usize) -> Result<()> {
    let cfr_only = [
        ("--iterations", args.iterations.is_some()),
        ("--target", args.target.is_some()),
        ("--target-relative", args.target_relative.is_some()),
        ("--time", args.time.is_some()),
        ("--updates", args.updates.is_some()),
        (
            "--alpha/--beta/--gamma",
            args.alpha.is_some() || args.beta.is_some() || args.gamma.is_some(),
        ),
        ("--curve", args.curve.is_some()),
        ("--plot", args.plot.is_some()),
        ("--checkpoint", args.checkpoint.is_some()),
        ("--resume", args.resume.is_some()),
    ];
    if let Some((name, _)) = cfr_only.iter().find(|(_, set)| *set) {
        bail!("{name} applies to the CFR family only; --algo lp solves exactly in one run");
    }
    let game = args.game.as_deref().context("give a game")?;
    if args.json && args.output.as_deref().is_some_and(is_stdout) {
        bail!("-o - and --json both want standard output");
    }
    let mut plan = FilePlan::new();
    plan.game(game);
    if let Some(o) = &args.output {
        plan.output("-o", o);
    }
    if let Some(r) = &args.report {
        plan.output("--report", r);
    }
    if let Some(m) = &args.write_mps {
        plan.output("--write-mps", m);
    }
    plan.check()?;
    let run = || {
        crate::cli::lp::run(
            game,
            args.lp_method,
            args.lp_form.unwrap_or_default(),
            args.max_memory,
            args.write_mps.as_deref(),
            args.output.as_deref(),
            args.json,
        )
    };
    // The thread pool bounds the threads of the exact best-response certificate.
    let (solved, solution) = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .context("starting the worker threads")?
        .install(run)?;
    if let Some(path) = &args.report {
        crate::cli::report::from_solve_lp(&solved, game, solution, path)?;
    }
    Ok(())
}

fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        json!(x)
    } else {
        serde_json::Value::Null
    }
}

/// Exact rationals from float strategies have huge denominators; show them only when short.
fn short(r: &crate::scalar::Rational) -> String {
    let text = format_rational(r);
    if text.len() <= 40 {
        text
    } else {
        format!("(exact rational, {} digits)", text.len())
    }
}

/// Renders exploitability against iterations on log-log axes as SVG text.
pub fn plot_svg(title: &str, points: &[CurvePoint]) -> Result<String> {
    use plotters::prelude::*;
    let positive: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.exploitability > 0.0)
        .map(|p| (p.iteration as f64, p.exploitability))
        .collect();
    if positive.is_empty() {
        bail!("nothing to plot: no positive exploitability was measured");
    }
    let x_max = positive.iter().map(|p| p.0).fold(1.0, f64::max).max(2.0);
    let y_min = positive.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_max = positive.iter().map(|p| p.1).fold(0.0, f64::max);
    let (y_lo, y_hi) = if y_max / y_min < 10.0 {
        (y_min / 3.0, y_max * 3.0)
    } else {
        (y_min / 1.5, y_max * 1.5)
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 560)).into_drawing_area();
        let draw = |e: &dyn std::fmt::Display| anyhow::anyhow!("drawing the plot: {e}");
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d((1f64..x_max).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .x_desc("iterations")
            .y_desc("exploitability (NashConv / 2)")
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(|e| draw(&e))?;
        chart
            .draw_series(LineSeries::new(
                positive.iter().copied(),
                BLUE.stroke_width(2),
            ))
            .map_err(|e| draw(&e))?;
        root.present().map_err(|e| draw(&e))?;
    }
    Ok(svg)
}
