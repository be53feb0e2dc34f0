//! `bluff solve`: parses the options into the solve layer's request
//! (`bluff::solve::run::CfrRequest`, `bluff::solve::sampling::SamplingRequest` for `es-mccfr`
//! and `os-mccfr`, or `bluff::solve::exact` for `--algo lp`), runs it with a
//! progress bar, signal handling and checkpoint files as its hooks, writes the requested files
//! and presents the result (text or `--json`).

use crate::files::{is_stdout, write_output, FilePlan};
use crate::signals;
use anyhow::{bail, Context, Result};
use bluff::eval::{exploitability, Exploitability};
use bluff::format::checkpoint::{self, Checkpoint};
use bluff::format::strategy_json::{labelled_to_json, profile_to_json};
use bluff::game::Game;
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use bluff::solve::cfr::Kernel;
use bluff::solve::mccfr::Sampling;
use bluff::solve::registry::{
    self, Algorithm, AlgorithmError, CfrOptions, Family, SamplingOptions, Updates,
};
use bluff::solve::run::{
    CfrRequest, CfrRun, CurvePoint, Hooks, Progress, RunError, SaveError, StopReason, StopRule,
    Target,
};
use bluff::solve::sampling::{
    is_sampling_checkpoint, solve_spec, Engine, SamplingHooks, SamplingOutcome, SamplingRequest,
};
use bluff::strategy::Profile;
use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Update order (`--updates`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UpdatesArg {
    /// Both players update from the same frozen strategies.
    Simultaneous,
    /// Player 1 updates, then player 2 against player 1's new strategy.
    Alternating,
}

/// The registry's algorithms as clap's possible values, with their summaries.
fn algorithms() -> PossibleValuesParser {
    PossibleValuesParser::new(
        registry::ALGORITHMS
            .iter()
            .map(|a| PossibleValue::new(a.name).help(a.summary)),
    )
}

/// `--algo`'s help, naming the default the registry's rule gives.
fn algo_help() -> String {
    format!(
        "Algorithm [default: {}: the lowest exploitability after 1000 iterations on most games \
         of docs/leaderboard.csv; with --resume, the checkpoint's]",
        registry::default_algorithm().name
    )
}

/// Arguments of `bluff solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game spec (see `bluff games`); with --resume, taken from the checkpoint when left out.
    #[arg(required_unless_present = "resume")]
    game: Option<String>,
    #[arg(long, value_parser = algorithms(), help = algo_help())]
    algo: Option<String>,
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
    updates: Option<UpdatesArg>,
    /// DCFR positive-regret discount exponent.
    #[arg(long)]
    alpha: Option<f64>,
    /// DCFR negative-regret discount exponent.
    #[arg(long)]
    beta: Option<f64>,
    /// DCFR average-strategy weight exponent (the starting gamma of the hs-* schedules).
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
    /// The CFR kernel: tree (passes over the game tree) or sequence (sparse products with
    /// the sequence-form payoff matrix). Default: by the game's shape (sequence beyond the
    /// cache when terminals are at most 0.6 of the nodes), or the checkpoint's on --resume.
    #[arg(long, value_parser = ["tree", "sequence"])]
    kernel: Option<String>,
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
    lp_method: crate::lp::LpMethod,
    /// Memory budget of `--algo lp` (e.g. 8G, 512M; default 80% of MemAvailable): an LP whose
    /// estimate exceeds it is refused before allocating, with its size in the message.
    #[arg(long, value_name = "SIZE", value_parser = bluff::solve::lp::memory::parse_bytes)]
    max_memory: Option<u64>,
    /// With `--algo lp`: also write the sequence-form LP as free MPS (for other LP solvers).
    #[arg(long, value_name = "FILE")]
    write_mps: Option<PathBuf>,
    /// With `--algo lp`: the LP to build, solve and write: `merged` (one-action information
    /// sets' sequences merged into their parents'; fewer rows, same plans) or `textbook` (one
    /// variable or row per sequence) [default: merged].
    #[arg(long, value_enum)]
    lp_form: Option<crate::lp::LpFormArg>,
    /// With `--algo lp`: whose maximin LP to solve (the other player's strategy is its
    /// duals; same value and certificate, a different simplex path): `auto` (P2's from 10 000
    /// rows on, where it was measured faster), `p1` or `p2` [default: auto].
    #[arg(long, value_enum)]
    lp_primal: Option<crate::lp::LpPrimalArg>,
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
    /// Sampling solvers: VR-MCCFR baselines per information set and action, learned at rate R.
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

impl SolveArgs {
    /// The CFR options given on the command line.
    fn cfr_options(&self) -> CfrOptions {
        CfrOptions {
            updates: self.updates.map(|u| match u {
                UpdatesArg::Simultaneous => Updates::Simultaneous,
                UpdatesArg::Alternating => Updates::Alternating,
            }),
            alpha: self.alpha,
            beta: self.beta,
            gamma: self.gamma,
        }
    }

    /// The stop rule (iterations, target, time).
    fn stop_rule(&self) -> StopRule {
        StopRule {
            max_iterations: self.iterations,
            target: self
                .target
                .map(Target::Absolute)
                .or(self.target_relative.map(Target::FractionOfRange)),
            time: self.time.map(Duration::from_secs_f64),
        }
    }

    /// Refuses two outputs (or one and `--json`) that both want standard output.
    fn check_one_stdout_user(&self) -> Result<()> {
        let stdout_users = self.stdout_users();
        if stdout_users.len() > 1 || (stdout_users.len() == 1 && self.json) {
            bail!(
                "{} and {} both want standard output",
                stdout_users[0],
                stdout_users.get(1).copied().unwrap_or("--json")
            );
        }
        Ok(())
    }

    /// The files a run writes: (option, what the summary calls it, path), in the summary's
    /// order.
    fn outputs(&self) -> [(&'static str, &'static str, &Option<PathBuf>); 5] {
        [
            ("-o", "strategy", &self.output),
            ("--curve", "curve", &self.curve),
            ("--plot", "plot", &self.plot),
            ("--checkpoint", "checkpoint", &self.checkpoint),
            ("--report", "report", &self.report),
        ]
    }

    /// The outputs that are standard output (`-`); a report never is (it is a folder).
    fn stdout_users(&self) -> Vec<&'static str> {
        self.outputs()
            .into_iter()
            .filter(|&(n, _, p)| n != "--report" && p.as_deref().is_some_and(is_stdout))
            .map(|(n, _, _)| n)
            .collect()
    }

    /// Prints a line of the text summary: to standard error when an output is standard
    /// output (which then carries that file), else to standard output.
    fn say(&self, line: String) {
        if self.stdout_users().is_empty() {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    }

    /// Says where each output file went (standard output needs no saying).
    fn say_written(&self) {
        for (_, what, path) in self.outputs() {
            if let Some(p) = path.as_ref().filter(|p| !is_stdout(p)) {
                self.say(format!("{what} written to {}", p.display()));
            }
        }
    }

    /// Checks every file the run reads or writes before it starts (the game, the checkpoint
    /// to resume, which it may replace: continuing a run into the checkpoint it came from is
    /// the usual way to extend it, and the outputs).
    fn check_files(&self, game: Option<&str>) -> Result<()> {
        let mut plan = FilePlan::new();
        if let Some(g) = game {
            plan.game(g);
        }
        if let Some(r) = &self.resume {
            plan.input(r);
            plan.replaceable(r);
        }
        for (what, _, path) in self.outputs() {
            if let Some(p) = path {
                plan.output(what, p);
            }
        }
        plan.check()
    }

    /// Checks the CFR-family options that need no game: numbers in range, a stop rule, one
    /// user of standard output, an SVG plot.
    fn check_cfr_options(&self) -> Result<()> {
        if self.max_memory.is_some()
            || self.write_mps.is_some()
            || self.lp_form.is_some()
            || self.lp_primal.is_some()
        {
            bail!("--max-memory, --write-mps, --lp-form and --lp-primal apply to --algo lp only");
        }
        for (name, v) in [
            ("target", self.target),
            ("target-relative", self.target_relative),
            ("alpha", self.alpha),
            ("beta", self.beta),
            ("gamma", self.gamma),
        ] {
            if let Some(x) = v.filter(|x| !(x.is_finite() && *x >= 0.0)) {
                bail!("--{name} {x:?}: expected a finite non-negative number");
            }
        }
        for (name, v) in [
            ("target", self.target),
            ("target-relative", self.target_relative),
        ] {
            if v == Some(0.0) {
                bail!(
                    "--{name} 0: expected a positive number; an exploitability of exactly 0 is \
                     not reached by a floating-point run"
                );
            }
        }
        for (name, v) in [
            ("time", self.time),
            ("checkpoint-every", self.checkpoint_every),
        ] {
            if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0 && *x <= MAX_SECONDS)) {
                bail!("--{name} {x:?}: expected seconds in (0, {MAX_SECONDS:e}]");
            }
        }
        if !self.stop_rule().is_set() {
            bail!("give a stop rule: --iterations N, --target E, --target-relative F or --time S");
        }
        if self.target.is_some() && self.target_relative.is_some() {
            bail!("give --target or --target-relative, not both");
        }
        if self.iterations == Some(0) {
            bail!("--iterations 0: expected at least 1");
        }
        if self.check_every == 0 {
            bail!("--check-every 0: expected at least 1");
        }
        self.check_one_stdout_user()?;
        if self.checkpoint.as_deref().is_some_and(is_stdout) {
            bail!("--checkpoint -: a checkpoint is a binary file; give a file name");
        }
        if let Some(plot) = &self.plot {
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
        Ok(())
    }
}

/// Runs `bluff solve`.
pub fn run(args: SolveArgs) -> Result<()> {
    let algorithm = args.algo.as_deref().map(registry::algorithm).transpose()?;
    let sampling_checkpoint = args.resume.as_deref().is_some_and(is_sampling_checkpoint);
    if algorithm.is_some_and(|a| matches!(a.family, Family::Sampling(_))) || sampling_checkpoint {
        return run_sampling(&args, algorithm);
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
    let threads = crate::threads_arg(args.threads)?;
    let thread_count = threads.count()?;
    if algorithm.is_some_and(|a| a.family == Family::ExactLp) {
        return run_lp(&args, thread_count);
    }
    args.check_cfr_options()?;

    // Read the checkpoint (if any) whole before anything else, then check every output.
    let resumed = match &args.resume {
        Some(path) => Some(
            checkpoint::read_file(path)
                .with_context(|| format!("checkpoint {}", path.display()))?,
        ),
        None => None,
    };
    let spec = match (&args.game, &resumed) {
        (Some(g), _) => g.clone(),
        (None, Some(c)) => c.game_spec.clone(),
        (None, None) => bail!("give a game"),
    };
    args.check_files(Some(&spec))?;

    let game = crate::load_game(&spec)?;
    let request = CfrRequest {
        algorithm,
        options: args.cfr_options(),
        horizon: args.iterations,
        threads,
        always_threads: args.always_threads,
        check_every: args.check_every,
        kernel: args.kernel.as_deref().and_then(Kernel::from_name),
    };
    let mut run = match (resumed, &args.resume) {
        (Some(c), Some(path)) => CfrRun::resume(&game, &spec, c, &request)
            .map_err(in_options)
            .with_context(|| format!("checkpoint {}", path.display()))?,
        _ => CfrRun::start(&game, &spec, &request).map_err(in_options)?,
    };
    let first_iteration = run.iterations();
    let mut hooks = CliHooks::new(&args, run.iterations());
    signals::catch_stop_signals();
    let outcome = run.run(&game, &args.stop_rule(), &mut hooks);
    hooks.bar.finish_and_clear();
    let outcome = outcome
        .map_err(in_options)
        .with_context(|| match &args.resume {
            Some(path) => format!("checkpoint {}", path.display()),
            None => "solving".to_string(),
        })?;
    if let Some(path) = &args.checkpoint {
        write_output(path, &checkpoint::encode(&run.checkpoint()))?;
    }

    // The final figures come from bluff::eval on the average strategy.
    let average = run.average_profile();
    let eval = exploitability(&game, &average);
    write_files(
        &args,
        &game,
        run.algorithm(),
        &spec,
        &average,
        &outcome.points,
    )?;
    if outcome.reason == StopReason::Interrupted {
        return Err(interrupted(&args, &run, &eval).into());
    }
    let last = *outcome.last().context("the run did no iterations")?;
    let exact = args
        .exact
        .then(|| exploitability(&game, &average.to_exact(&game)));
    if let Some(path) = &args.report {
        let provenance = format!(
            "bluff solve --algo {}: average strategy after {} iterations ({:.2} s).",
            run.algorithm().name,
            last.iteration,
            last.seconds
        );
        crate::report::from_solve_cfr(&game, &spec, &average, provenance, &outcome.points, path)?;
    }
    let summary = Summary {
        args: &args,
        game: &game,
        spec: &spec,
        run: &run,
        last,
        eval: &eval,
        exact: exact.as_ref(),
        ran: run.iterations() - first_iteration,
    };
    if args.json {
        summary.print_json();
    } else {
        summary.print_text();
    }
    Ok(())
}

/// A run's error in the words of the command line's options.
fn in_options(e: RunError) -> anyhow::Error {
    match e {
        RunError::OtherAlgorithm { checkpoint, asked } => {
            anyhow::anyhow!(
                "the checkpoint is a {checkpoint} run; it cannot continue as --algo {asked}"
            )
        }
        RunError::OtherSchedule { checkpoint, asked } => anyhow::anyhow!(
            "the checkpoint measured with --check-every {checkpoint}; give the same (got {asked})"
        ),
        RunError::AlreadyDone { done, goal } => anyhow::anyhow!(
            "--iterations {goal}: the checkpoint already has {done} iterations (--iterations is \
             the run's total)"
        ),
        RunError::Algorithm(AlgorithmError::NeedsHorizon(name)) => anyhow::anyhow!(
            "--algo {name} schedules its exponents over the run's length: give --iterations N"
        ),
        RunError::Algorithm(AlgorithmError::Untunable {
            algorithm,
            option,
            hint,
        }) => anyhow::anyhow!(
            "--{} does not apply to --algo {algorithm}{hint}",
            option.replace('/', "/--")
        ),
        other => other.into(),
    }
}

/// A bar to `iterations` when the run has that limit, else a spinner.
fn progress_bar(iterations: Option<u64>) -> ProgressBar {
    match iterations {
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
    }
}

/// The command line's hooks of a run: a progress bar on a terminal, the stop signals, and the
/// `--checkpoint` file every `--checkpoint-every` seconds.
struct CliHooks {
    bar: ProgressBar,
    checkpoint: Option<PathBuf>,
    every: Duration,
}

impl CliHooks {
    fn new(args: &SolveArgs, done: u64) -> Self {
        let bar = progress_bar(args.iterations);
        bar.set_position(done);
        CliHooks {
            bar,
            checkpoint: args.checkpoint.clone(),
            every: Duration::from_secs_f64(
                args.checkpoint_every.unwrap_or(DEFAULT_CHECKPOINT_SECONDS),
            ),
        }
    }
}

impl Hooks for CliHooks {
    fn progress(&mut self, progress: Progress<'_>) {
        self.bar.set_position(progress.iteration);
        if let Some(point) = progress.point {
            self.bar.set_message(format!(
                "exploitability {:.3e}  {:.0} it/s",
                point.exploitability,
                point.iteration as f64 / point.seconds.max(1e-9)
            ));
        }
    }

    fn interrupted(&mut self) -> bool {
        signals::stop_signal().is_some()
    }

    fn checkpoint_every(&self) -> Option<Duration> {
        self.checkpoint.as_ref().map(|_| self.every)
    }

    fn save(&mut self, checkpoint: &Checkpoint) -> Result<(), SaveError> {
        match &self.checkpoint {
            Some(path) => Ok(bluff::format::output::write_file(
                path,
                &checkpoint::encode(checkpoint),
            )?),
            None => Ok(()),
        }
    }
}

/// Writes `-o`, `--curve` and `--plot`.
fn write_files(
    args: &SolveArgs,
    game: &Game,
    algorithm: &Algorithm,
    spec: &str,
    average: &Profile<f64>,
    points: &[CurvePoint],
) -> Result<()> {
    if let Some(path) = &args.output {
        let value = profile_to_json(game, spec, average);
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
        let title = format!("{} on {}", algorithm.name, spec);
        write_output(path, plot_svg(&title, points)?.as_bytes())?;
    }
    Ok(())
}

/// The error that ends a run stopped by a signal (exit status 128 + the signal).
fn interrupted(args: &SolveArgs, run: &CfrRun, eval: &Exploitability<f64>) -> crate::Interrupted {
    let signal = signals::stop_signal().unwrap_or(signals::SIGINT);
    // Every output but the report, which an interrupted run does not write.
    let saved: Vec<String> = args
        .outputs()
        .into_iter()
        .filter(|&(option, _, _)| option != "--report")
        .filter_map(|(_, what, path)| path.as_ref().map(|p| format!("{what} {}", p.display())))
        .collect();
    crate::Interrupted {
        signal,
        message: format!(
            "interrupted by {} after {} iterations (exploitability {:.6e}); {}",
            if signal == signals::SIGTERM {
                "SIGTERM"
            } else {
                "SIGINT"
            },
            run.iterations(),
            eval.exploitability,
            if saved.is_empty() {
                "nothing was asked to be saved (use --checkpoint FILE and -o FILE)".to_string()
            } else {
                format!("saved {}", saved.join(", "))
            }
        ),
    }
}

/// What `bluff solve` reports at the end of a CFR-family run.
struct Summary<'a> {
    args: &'a SolveArgs,
    game: &'a Game,
    spec: &'a str,
    run: &'a CfrRun,
    last: CurvePoint,
    eval: &'a Exploitability<f64>,
    exact: Option<&'a Exploitability<Rational>>,
    /// Iterations run in this call.
    ran: u64,
}

impl Summary<'_> {
    fn rate(&self) -> f64 {
        self.last.iteration as f64 / self.last.seconds.max(1e-9)
    }

    fn print_json(&self) {
        let (game, run, params) = (self.game, self.run, self.run.params());
        let solver_bytes = run.solver_bytes();
        let (lo, hi) = game.payoff_range();
        let mut summary = json!({
            "game": self.spec,
            "algo": run.algorithm().name,
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
            "threads": run.threads(),
            "kernel": run.kernel().name(),
            "team_iterations": run.team_iterations(),
            "nodes": game.nodes.len(),
            "solver_bytes": solver_bytes,
            "solver_bytes_per_node": solver_bytes as f64 / game.nodes.len() as f64,
            "game_bytes": game.heap_bytes(),
            "game_bytes_per_node": game.bytes_per_node(),
            "infosets": [game.infosets[0].len(), game.infosets[1].len()],
            "iterations": self.last.iteration,
            "seconds": self.last.seconds,
            "iterations_per_second": self.rate(),
            "exploitability": self.eval.exploitability,
            "exploitability_fraction_of_range": self.eval.exploitability / (hi - lo),
            "nash_conv": self.eval.nash_conv,
            "value_p1": self.eval.value[0],
            "payoff_range": [lo, hi],
        });
        if let Some(x) = self.exact {
            summary["exact"] = json!({
                "exploitability": format_rational(&x.exploitability),
                "nash_conv": format_rational(&x.nash_conv),
                "value_p1": format_rational(&x.value[0]),
            });
        }
        crate::print_json(&summary);
    }

    fn print_text(&self) {
        let (game, run, args) = (self.game, self.run, self.args);
        let say = |line: String| args.say(line);
        say(format!(
            "{} on {} ({}), {}, {} kernel",
            run.algorithm().name,
            self.spec,
            crate::game_size(game),
            crate::plural(run.threads(), "thread", "threads"),
            run.kernel().name()
        ));
        say(format!(
            "{} iterations in {:.3} s ({:.0} it/s){}",
            self.last.iteration,
            self.last.seconds,
            self.rate(),
            if run.resumed_at().is_some() {
                ", resumed from a checkpoint"
            } else {
                ""
            }
        ));
        if run.has_team() && run.team_iterations() < self.ran {
            say(format!(
                "  {} of the {} iterations ran on the {} threads; for the others one thread \
                 was faster (timed as it ran; --always-threads to use them all)",
                run.team_iterations(),
                self.ran,
                run.threads()
            ));
        }
        let (lo, hi) = game.payoff_range();
        say("average strategy, evaluated in f64 (rounding error far below 1e-9):".into());
        say(format!(
            "  exploitability  {:.6e}",
            self.eval.exploitability
        ));
        say(format!(
            "  as a fraction of the payoff range {}..{}: {:.6e}",
            lo,
            hi,
            self.eval.exploitability / (hi - lo)
        ));
        say(format!(
            "  {} value     {:.12}",
            game.player_names[0], self.eval.value[0]
        ));
        if let Some(x) = self.exact {
            say(
                "exact evaluation of the same strategy (its f64 probabilities read exactly):"
                    .into(),
            );
            say(format!(
                "  exploitability  {} = {:.15e}",
                short(&x.exploitability),
                rational_to_f64(&x.exploitability)
            ));
            say(format!(
                "  {} value     {:.15}",
                game.player_names[0],
                rational_to_f64(&x.value[0])
            ));
        }
        args.say_written();
    }
}

/// `--algo es-mccfr|os-mccfr`, or `--resume` of a sampling checkpoint: the options that do not
/// apply are refused, the rest go into the solve layer's [`SamplingRequest`].
fn run_sampling(args: &SolveArgs, algorithm: Option<&'static Algorithm>) -> Result<()> {
    let refused = [
        ("--updates", args.updates.is_some()),
        ("--target-relative", args.target_relative.is_some()),
        ("--always-threads", args.always_threads),
        ("--exact", args.exact),
        ("--report", args.report.is_some()),
        ("--plot", args.plot.is_some()),
        (
            "--lp-form/--lp-primal/--max-memory/--write-mps",
            args.lp_form.is_some()
                || args.lp_primal.is_some()
                || args.max_memory.is_some()
                || args.write_mps.is_some(),
        ),
    ];
    if let Some((name, _)) = refused.iter().find(|(_, given)| *given) {
        bail!("{name} does not apply to the sampling solvers (es-mccfr, os-mccfr)");
    }
    for (name, v) in [
        ("time", args.time),
        ("checkpoint-every", args.checkpoint_every),
    ] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0 && *x <= MAX_SECONDS)) {
            bail!("--{name} {x:?}: expected seconds in (0, {MAX_SECONDS:e}]");
        }
    }
    if args.checkpoint.as_deref().is_some_and(is_stdout) {
        bail!("--checkpoint -: a checkpoint is a binary file; give a file name");
    }
    args.check_one_stdout_user()?;
    args.check_files(args.game.as_deref())?;
    let request = SamplingRequest {
        algorithm,
        options: SamplingOptions {
            epsilon: args.epsilon,
            baseline: args.baseline,
            rm_plus: args.rm_plus,
            alpha: args.alpha,
            beta: args.beta,
            gamma: args.gamma,
            epoch: args.epoch,
        },
        seed: args.seed,
        threads: args.threads,
        iterations: args.iterations,
        time: args.time.map(Duration::from_secs_f64),
        target: args.target,
        engine: if args.rules {
            Engine::Rules
        } else {
            Engine::Auto
        },
        evaluate: !args.no_eval,
        checkpoint: args.checkpoint.clone(),
        checkpoint_every: args.checkpoint_every.map(Duration::from_secs_f64),
        resume: args.resume.clone(),
        labels: args.output.is_some(),
    };
    let mut hooks = SamplingBar::new(args);
    signals::catch_stop_signals();
    let outcome = solve_spec(args.game.as_deref(), &request, &mut hooks);
    hooks.bar.finish_and_clear();
    let outcome = outcome?;
    if outcome.interrupted {
        let signal = signals::stop_signal().unwrap_or(signals::SIGINT);
        return Err(crate::Interrupted {
            signal,
            message: format!(
                "interrupted after {} iterations; {}",
                outcome.iterations,
                match &args.checkpoint {
                    Some(p) => format!("saved checkpoint {}", p.display()),
                    None => "nothing was saved (use --checkpoint FILE)".into(),
                }
            ),
        }
        .into());
    }
    if let Some(path) = &args.output {
        let value = match (&outcome.profiles, &outcome.game, &outcome.labelled) {
            (Some((average, _)), Some(game), _) => profile_to_json(game, &outcome.spec, average),
            (_, _, Some(labelled)) => labelled_to_json(&outcome.spec, labelled),
            _ => bail!("this run has no strategy to write"),
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
        write_output(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.curve {
        let mut csv = String::from("iteration,exploitability,seconds\n");
        for (i, e, s) in &outcome.curve {
            csv.push_str(&format!("{i},{e:e},{s:.6}\n"));
        }
        write_output(path, csv.as_bytes())?;
    }
    if args.json {
        print_sampling_json(&outcome);
    } else {
        print_sampling_text(args, &outcome);
    }
    Ok(())
}

/// A sampling run's progress bar and stop signals.
struct SamplingBar {
    bar: ProgressBar,
    started: Option<u64>,
}

impl SamplingBar {
    fn new(args: &SolveArgs) -> Self {
        let bar = progress_bar(args.iterations);
        SamplingBar { bar, started: None }
    }
}

impl SamplingHooks for SamplingBar {
    fn progress(&mut self, iterations: u64, seconds: f64, exploitability: Option<f64>) {
        let first = *self.started.get_or_insert(iterations);
        self.bar.set_position(iterations);
        let rate = iterations.saturating_sub(first) as f64 / seconds.max(1e-9);
        match exploitability {
            Some(e) => self
                .bar
                .set_message(format!("exploitability {e:.3e}  {rate:.0} it/s")),
            None => self.bar.set_message(format!("{rate:.0} it/s")),
        }
    }

    fn interrupted(&mut self) -> bool {
        signals::stop_signal().is_some()
    }
}

/// The `--json` summary of a sampling run.
fn print_sampling_json(o: &SamplingOutcome) {
    let p = o.params;
    let (sampling, epsilon) = match p.sampling {
        Sampling::External => ("external", None),
        Sampling::Outcome { epsilon } => ("outcome", Some(epsilon)),
    };
    let rate = o.rate();
    let summary = json!({
        "game": o.spec,
        "algo": o.algorithm.name,
        "engine": if o.on_arena { "arena" } else { "rules" },
        "params": {
            "sampling": sampling,
            "epsilon": epsilon,
            "baseline": p.baseline,
            "rm_plus": p.regret.floor,
            "alpha": finite_or_null(p.regret.alpha),
            "beta": finite_or_null(p.regret.beta),
            "gamma": p.regret.gamma,
            "epoch": p.epoch,
        },
        "seed": o.seed,
        "threads": o.threads,
        "iterations": o.iterations,
        "traversals": 2 * o.iterations,
        "seconds": o.solve_seconds,
        "session_seconds": o.session_seconds,
        "iterations_per_second": rate,
        "traversals_per_second": 2.0 * rate,
        "exploitability": o.exploitability,
        "nash_conv": o.exploitability.map(|e| 2.0 * e),
        "best_response_seconds": o.best_response_seconds,
        "infosets": o.infosets,
        "solver_bytes": o.solver_bytes,
        "bytes_per_infoset": o.bytes_per_infoset,
        "peak_rss_bytes": o.peak_rss_bytes,
        "curve": o.curve.iter().map(|(i, e, t)| json!([i, e, t])).collect::<Vec<_>>(),
    });
    crate::print_json(&summary);
}

/// The text summary of a sampling run.
fn print_sampling_text(args: &SolveArgs, o: &SamplingOutcome) {
    let say = |line: String| args.say(line);
    let engine = if o.on_arena { "arena" } else { "rules" };
    say(format!(
        "{} on {} ({engine} engine), seed {}, {}",
        o.algorithm.name,
        o.spec,
        o.seed,
        crate::plural(o.threads, "thread", "threads")
    ));
    say(format!(
        "{} iterations ({} traversals) in {:.3} s this session ({:.0} it/s); {:.3} s in all",
        o.iterations,
        2 * o.iterations,
        o.session_seconds,
        o.rate(),
        o.solve_seconds
    ));
    let [a, b] = o.infosets;
    say(format!(
        "information sets reached {a} + {b}; tables {} bytes ({:.1} per information set)",
        o.solver_bytes, o.bytes_per_infoset
    ));
    match (o.exploitability, o.best_response_seconds) {
        (Some(e), Some(t)) => say(format!(
            "average strategy: exploitability {e:.6e} ({} best response, {t:.3} s)",
            if o.on_arena {
                "the arena's"
            } else {
                "streaming"
            }
        )),
        _ => say("average strategy: exploitability not computed".into()),
    }
    // A sampling run writes no plot or report (refused before it starts).
    args.say_written();
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
    let (solved, solution) = crate::lp::run(
        game,
        args.lp_method,
        args.lp_form.unwrap_or_default(),
        args.lp_primal.unwrap_or_default(),
        args.max_memory,
        args.write_mps.as_deref(),
        args.output.as_deref(),
        args.json,
        threads,
    )?;
    if let Some(path) = &args.report {
        crate::report::from_solve_lp(&solved, game, solution, path)?;
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
fn short(r: &bluff::scalar::Rational) -> String {
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
