//! `bluff solve`: maps the options into the solve layer's one request
//! (`bluff::solve::door::Request`), runs it through `bluff::solve::door::solve` with a progress
//! bar and the stop signals as its hooks, writes the requested files and presents the result
//! (text or `--json`). Which option applies to which algorithm, the values' ranges and the
//! defaults are the door's; this file only parses and presents.

use crate::files::{is_stdout, write_output, FilePlan};
use crate::signals;
use anyhow::{bail, Result};
use bluff::exact::sequence_form::{LpForm, LpPrimal};
use bluff::exact::ExactStats;
use bluff::format::strategy_json::{labelled_to_json, profile_to_json};
use bluff::game::Game;
use bluff::lp::{LpProgress, ProgressFn};
use bluff::mccfr::Sampling;
use bluff::scalar::{format_rational, rational_to_f64};
use bluff::solve::door::{
    self, Detail, DoorHooks, LcpStats, LpMethodChoice, Request, Solved, Source, Spelling, Strategy,
    Value,
};
use bluff::solve::registry::{self, Updates};
use bluff::solve::run::{CfrRun, CurvePoint, Hooks, Progress};
use bluff::solve::sampling::SamplingOutcome;
use bluff::solve::spot_lp::{SpotExactStats, SpotLp};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;

/// Update order (`--updates`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UpdatesArg {
    /// Both players update from the same frozen strategies.
    Simultaneous,
    /// Player 1 updates, then player 2 against player 1's new strategy.
    Alternating,
}

/// `--algo`'s help, naming the default the registry's rule gives.
fn algo_help() -> String {
    format!(
        "Algorithm [default: {}: the lowest exploitability after 1000 iterations on most games \
         of docs/leaderboard.csv; with --resume, the checkpoint's]",
        registry::default_algorithm().name
    )
}

/// `--algo`'s long help: every algorithm with its summary (a name not listed is refused by
/// the solve layer, with the same message as Python's).
fn algo_long_help() -> String {
    let mut text = algo_help();
    text.push_str("\n\nPossible values:");
    for a in registry::ALGORITHMS {
        text.push_str(&format!("\n- {}: {}", a.name, a.summary));
    }
    text
}

/// Arguments of `bluff solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game spec (see `bluff games`); with --resume, taken from the checkpoint when left out.
    #[arg(required_unless_present = "resume")]
    game: Option<String>,
    #[arg(long, help = algo_help(), long_help = algo_long_help())]
    algo: Option<String>,
    /// Stop after N iterations.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    iterations: Option<i64>,
    /// Stop once the average strategy's exploitability (payoff units) is at most E.
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    target: Option<f64>,
    /// Hold'em spots: stop once the exploitability (chips) is at most P% of the starting pot.
    #[arg(long, value_name = "P", allow_negative_numbers = true)]
    target_pot_pct: Option<f64>,
    /// Hold'em spots: the precision of the stored regrets and average sums, f32 (the default)
    /// or f64.
    #[arg(long, value_name = "P")]
    precision: Option<String>,
    /// Hold'em spots: store the regrets and average sums in 16 bits with one f32 scale per
    /// node (about half the f32 state; the rules' other arrays stay f32). Not with
    /// --precision f64.
    #[arg(long)]
    compress: bool,
    /// Stop once exploitability is at most F times the payoff range (max - min payoff).
    #[arg(long, value_name = "F", allow_negative_numbers = true)]
    target_relative: Option<f64>,
    /// Stop after S seconds of solving.
    #[arg(long, value_name = "S", allow_negative_numbers = true)]
    time: Option<f64>,
    /// Override the algorithm's update order.
    #[arg(long, value_enum)]
    updates: Option<UpdatesArg>,
    /// DCFR positive-regret discount exponent (at least 0).
    #[arg(long, allow_negative_numbers = true)]
    alpha: Option<f64>,
    /// DCFR negative-regret discount exponent (may be negative, as the HS schedules' is).
    #[arg(long, allow_negative_numbers = true)]
    beta: Option<f64>,
    /// DCFR average-strategy weight exponent (the starting gamma of the hs-* schedules).
    #[arg(long, allow_negative_numbers = true)]
    gamma: Option<f64>,
    /// Worker threads (results do not depend on it); default: all cores. The solver times
    /// them against one thread (after 250 ms, then every 2 s of iterating) and runs the
    /// faster (see --always-threads).
    #[arg(long, allow_negative_numbers = true)]
    threads: Option<i64>,
    /// Run every iteration on all --threads, even where one thread is faster (by default
    /// the solver times both now and then and runs the faster; results are the same bits).
    #[arg(long)]
    always_threads: bool,
    /// Largest gap in iterations between exploitability measurements [default: 1000].
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    check_every: Option<i64>,
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
    /// Method of `--algo lp` and `--algo lcp`: float-guided exact (fast) or the dense exact
    /// tableau. [default: guided]
    #[arg(long, value_enum)]
    lp_method: Option<crate::lp::LpMethod>,
    /// Memory budget of `--algo lp` (e.g. 8G, 512M; default 80% of MemAvailable): an LP whose
    /// estimate exceeds it is refused before allocating, with its size in the message.
    #[arg(long, value_name = "SIZE", value_parser = bluff::lp::memory::parse_bytes)]
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
    /// With `--algo lcp`: where Lemke's path starts: `pure:I,J` (player 1's I-th and player
    /// 2's J-th reduced pure strategy, from 1, as `bluff normal-form` lists them), a strategy
    /// file, `first` (the first action at every information set) or `zero-sum` (the basis of
    /// the equilibrium of the game's zero-sum part) [default: `zero-sum` for a general-sum
    /// game, `first` for a constant-sum one].
    #[arg(long, value_name = "START")]
    lcp_start: Option<String>,
    /// Print a JSON summary instead of a table.
    #[arg(long)]
    json: bool,
    /// Fix the strategy at the sets of FILE (a strategy file in the layout -o writes, with
    /// players and sets left out where nothing is locked) and solve every other set; the
    /// values and the exploitability are the locked game's (CFR family, sampling solvers on
    /// the game's arena, exact LP).
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Save the whole solver state to FILE (atomically) every --checkpoint-every seconds, at
    /// the end, and on SIGINT/SIGTERM.
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// Seconds of solving between checkpoints.
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true)]
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
    #[arg(long, value_name = "E", allow_negative_numbers = true)]
    epsilon: Option<f64>,
    /// Sampling solvers: VR-MCCFR baselines per information set and action, learned at rate R.
    #[arg(long, value_name = "R", allow_negative_numbers = true)]
    baseline: Option<f64>,
    /// Sampling solvers: regret matching+ (regrets floored at 0 at every update).
    #[arg(long)]
    rm_plus: bool,
    /// Sampling solvers: iterations per discount epoch (--alpha, --beta and --gamma count epochs).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    epoch: Option<i64>,
    /// Sampling solvers: play the game's rules even when its arena could be built.
    #[arg(long)]
    rules: bool,
    /// Sampling solvers: skip the final exploitability (a full best response) unless a target
    /// or a measurement needs it.
    #[arg(long)]
    no_eval: bool,
}

impl SolveArgs {
    /// The door's request: the options exactly as given.
    fn request(&self) -> Request {
        Request {
            algo: self.algo.clone(),
            iterations: self.iterations,
            target: self.target,
            target_relative: self.target_relative,
            time: self.time,
            updates: self.updates.map(|u| match u {
                UpdatesArg::Simultaneous => Updates::Simultaneous,
                UpdatesArg::Alternating => Updates::Alternating,
            }),
            alpha: self.alpha,
            beta: self.beta,
            gamma: self.gamma,
            threads: self.threads,
            always_threads: self.always_threads,
            check_every: self.check_every,
            kernel: self
                .kernel
                .as_deref()
                .and_then(bluff::cfr::Kernel::from_name),
            exact: self.exact,
            lp_method: self.lp_method.map(|m| match m {
                crate::lp::LpMethod::Guided => LpMethodChoice::Guided,
                crate::lp::LpMethod::Tableau => LpMethodChoice::Tableau,
            }),
            max_memory: self.max_memory,
            write_mps: self.write_mps.clone(),
            lp_form: self.lp_form.map(|f| match f {
                crate::lp::LpFormArg::Merged => LpForm::Merged,
                crate::lp::LpFormArg::Textbook => LpForm::Textbook,
            }),
            lp_primal: self.lp_primal.map(|p| match p {
                crate::lp::LpPrimalArg::Auto => LpPrimal::Auto,
                crate::lp::LpPrimalArg::P1 => LpPrimal::First,
                crate::lp::LpPrimalArg::P2 => LpPrimal::Second,
            }),
            checkpoint: self.checkpoint.clone(),
            checkpoint_every: self.checkpoint_every,
            resume: self.resume.clone(),
            seed: self.seed,
            epsilon: self.epsilon,
            baseline: self.baseline,
            rm_plus: self.rm_plus,
            epoch: self.epoch,
            rules: self.rules,
            no_eval: self.no_eval,
            output: self.output.is_some(),
            curve: self.curve.is_some(),
            plot: self.plot.is_some(),
            report: self.report.is_some(),
            lcp_start: self.lcp_start.clone(),
            target_pot_pct: self.target_pot_pct,
            precision: self.precision.clone(),
            compress: self.compress,
            lock: self.lock.clone().map(door::LockSource::File),
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

    /// Checks what only the command line has: standard output used once, a checkpoint that
    /// is a file, an SVG plot.
    fn check_outputs(&self) -> Result<()> {
        self.check_one_stdout_user()?;
        if self.game.as_deref().is_some_and(crate::spot::is_spot)
            && self.output.as_deref().is_some_and(is_stdout)
        {
            bail!("-o -: a hold'em spot's strategy file is binary; give a file name");
        }
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

    /// The files a run writes: (option, what the summary calls it, path), in the summary's
    /// order.
    fn outputs(&self) -> [(&'static str, &'static str, &Option<PathBuf>); 6] {
        [
            ("-o", "strategy", &self.output),
            ("--curve", "curve", &self.curve),
            ("--plot", "plot", &self.plot),
            ("--checkpoint", "checkpoint", &self.checkpoint),
            ("--report", "report", &self.report),
            ("--write-mps", "MPS", &self.write_mps),
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

    /// Says where each output file of an iterative run went (standard output needs no
    /// saying).
    fn say_written(&self) {
        for (option, what, path) in self.outputs() {
            if option == "--write-mps" {
                continue;
            }
            if let Some(p) = path.as_ref().filter(|p| !is_stdout(p)) {
                self.say(format!("{what} written to {}", p.display()));
            }
        }
    }

    /// Checks every file the run reads or writes before it starts (the game, the checkpoint
    /// to resume, which it may replace: continuing a run into the checkpoint it came from is
    /// the usual way to extend it, and the outputs).
    fn check_files(&self) -> Result<()> {
        let mut plan = FilePlan::new();
        if let Some(g) = &self.game {
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
}

/// Runs `bluff solve`: the door decides, this presents.
pub fn run(args: SolveArgs) -> Result<()> {
    args.check_outputs()?;
    args.check_files()?;
    let request = args.request();
    let mut hooks = CliHooks::new(&args);
    signals::catch_stop_signals();
    let spot = match args.game.as_deref().filter(|g| crate::spot::is_spot(g)) {
        Some(path) => Some(crate::spot::read(path)?),
        None => None,
    };
    hooks.pot = spot.as_deref().and_then(crate::spot::pot_of);
    let source = match (&spot, args.game.as_deref()) {
        (Some(text), Some(name)) => Source::Spot { text, name },
        _ => Source::Spec(args.game.as_deref()),
    };
    let solved = door::solve(source, &request, Spelling::Cli, &mut hooks);
    hooks.finish();
    let solved = solved.map_err(lcp_interrupted)?;
    if !args.json {
        say_locked(&solved);
    }
    match &solved.detail {
        Detail::Cfr(run) => present_cfr(&args, &solved, run),
        Detail::Sampling(outcome) => present_sampling(&args, &solved, outcome),
        Detail::Exact(stats) => present_lp(&args, &solved, stats, None),
        Detail::SpotLp(run) => match &run.stats {
            SpotExactStats::Lp(st) => present_lp(&args, &solved, st, Some(run)),
            SpotExactStats::Lcp(st) => present_lcp(&args, &solved, st, Some(run)),
        },
        Detail::Lcp(stats) => present_lcp(&args, &solved, stats, None),
        Detail::Spot(run) => crate::spot::present(args.json, args.output.as_deref(), &solved, run),
    }
}

/// A bar to `iterations` when the run has that limit, else a spinner.
fn progress_bar(iterations: Option<i64>) -> ProgressBar {
    match iterations {
        Some(n) => ProgressBar::new(n.max(0) as u64).with_style(
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

/// What reports the exact LP's progress (a spinner on a terminal).
type LpReport = dyn Fn(&LpProgress<'_>) + Sync;

/// The command line's hooks of a solve: a progress bar on a terminal (loading a big file,
/// iterating, or the exact LP's simplex), the reader's warnings, and the stop signals.
struct CliHooks {
    bar: ProgressBar,
    spec: String,
    loading: Option<ProgressBar>,
    lp: Option<Box<LpReport>>,
    /// A hold'em spot's starting pot: the progress shows the exploitability in % of it.
    pot: Option<f64>,
}

impl CliHooks {
    fn new(args: &SolveArgs) -> Self {
        let lp = (args.algo.as_deref() == Some("lp")).then(|| {
            let spinner = crate::LpSpinner::new();
            Box::new(move |p: &LpProgress<'_>| spinner.report(p)) as Box<_>
        });
        CliHooks {
            bar: progress_bar(args.iterations),
            spec: args.game.clone().unwrap_or_default(),
            loading: None,
            lp,
            pot: None,
        }
    }

    /// Clears every bar.
    fn finish(&mut self) {
        self.bar.finish_and_clear();
        if let Some(b) = self.loading.take() {
            b.finish_and_clear();
        }
        self.lp = None;
    }
}

impl Hooks for CliHooks {
    fn progress(&mut self, progress: Progress<'_>) {
        self.bar.set_position(progress.iteration);
        if let (Some(point), Some(pot)) = (progress.point, self.pot) {
            self.bar.set_message(format!(
                "exploitability {:.4}% of the pot ({:.4} chips)",
                point.exploitability / pot * 100.0,
                point.exploitability
            ));
        } else if let Some(point) = progress.point {
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
}

impl DoorHooks for CliHooks {
    fn loading(&mut self, read: u64, total: u64) {
        use std::io::IsTerminal;
        if total < 1 << 24 || !std::io::stderr().is_terminal() {
            return;
        }
        let spec = self.spec.trim_end().to_string();
        self.loading
            .get_or_insert_with(|| {
                ProgressBar::new(total)
                    .with_style(
                        ProgressStyle::with_template(
                            "loading {msg} {bar:30} {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
                        )
                        .expect("valid template"),
                    )
                    .with_message(spec)
            })
            .set_position(read);
    }

    fn warning(&mut self, text: &str) {
        if let Some(b) = self.loading.take() {
            b.finish_and_clear();
        }
        eprintln!("warning: {}: {text}", self.spec.trim_end());
    }

    fn lp_progress(&self) -> Option<ProgressFn<'_>> {
        self.lp.as_deref().map(|f| f as ProgressFn<'_>)
    }
}

/// The game the door played (it loads every game an iterative run or the LP needs).
fn game_of(solved: &Solved) -> Result<&Game> {
    solved
        .game
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("this run played no arena"))
}

/// Writes `-o`, `--curve` and `--plot`.
fn write_outputs(args: &SolveArgs, solved: &Solved) -> Result<()> {
    if let Some(path) = &args.output {
        let value = match (&solved.strategy, &solved.game) {
            (Strategy::Float { average, .. }, Some(game)) => {
                profile_to_json(game, &solved.spec, average)
            }
            (Strategy::Exact(profile), Some(game)) => profile_to_json(game, &solved.spec, profile),
            (Strategy::Labelled(labelled), _) => labelled_to_json(&solved.spec, labelled),
            _ => bail!("this run has no strategy to write"),
        };
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
        write_output(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.curve {
        let mut csv = String::from("iteration,exploitability,seconds\n");
        for p in &solved.curve {
            csv.push_str(&format!(
                "{},{:e},{:.6}\n",
                p.iteration, p.exploitability, p.seconds
            ));
        }
        write_output(path, csv.as_bytes())?;
    }
    if let Some(path) = &args.plot {
        let title = format!("{} on {}", solved.algorithm.name, solved.spec);
        write_output(path, plot_svg(&title, &solved.curve)?.as_bytes())?;
    }
    Ok(())
}

/// An LCP run stopped by SIGINT/SIGTERM as [`crate::Interrupted`] (exit 130/143, nothing
/// written); any other error as it is.
fn lcp_interrupted(e: bluff::solve::door::SolveError) -> anyhow::Error {
    use bluff::lcp::LcpError;
    match (&e, signals::stop_signal()) {
        (
            bluff::solve::door::SolveError::Game(bluff::Error::Lcp(LcpError::Interrupted {
                pivots,
            })),
            Some(signal),
        ) => crate::Interrupted {
            signal,
            message: format!(
                "interrupted by {} after {pivots} Lemke pivots, with no equilibrium; nothing \
                     was written",
                signal_name(signal)
            ),
        }
        .into(),
        _ => e.into(),
    }
}

/// The signal that stopped a run, by name.
pub fn signal_name(signal: i32) -> &'static str {
    if signal == signals::SIGTERM {
        "SIGTERM"
    } else {
        "SIGINT"
    }
}

/// A CFR-family run: the files, the report, the summary.
fn present_cfr(args: &SolveArgs, solved: &Solved, run: &CfrRun) -> Result<()> {
    let game = game_of(solved)?;
    write_outputs(args, solved)?;
    let exploitability = solved
        .exploitability
        .as_ref()
        .map_or(f64::NAN, Value::to_f64);
    if solved.interrupted() {
        let signal = signals::stop_signal().unwrap_or(signals::SIGINT);
        // Every output but the report, which an interrupted run does not write.
        let saved: Vec<String> = args
            .outputs()
            .into_iter()
            .filter(|&(option, _, _)| option != "--report")
            .filter_map(|(_, what, path)| path.as_ref().map(|p| format!("{what} {}", p.display())))
            .collect();
        return Err(crate::Interrupted {
            signal,
            message: format!(
                "interrupted by {} after {} iterations (exploitability {:.6e}); {}",
                signal_name(signal),
                run.iterations(),
                exploitability,
                if saved.is_empty() {
                    "nothing was asked to be saved (use --checkpoint FILE and -o FILE)".to_string()
                } else {
                    format!("saved {}", saved.join(", "))
                }
            ),
        }
        .into());
    }
    let Some(&last) = solved.curve.last() else {
        bail!("the run did no iterations");
    };
    if let (Some(path), Strategy::Float { average, .. }) = (&args.report, &solved.strategy) {
        let provenance = format!(
            "bluff solve --algo {}: average strategy after {} iterations ({:.2} s).",
            run.algorithm().name,
            last.iteration,
            last.seconds
        );
        crate::report::from_solve_cfr(
            game,
            &solved.spec,
            average,
            provenance,
            &solved.curve,
            path,
            solved.lock.as_ref().map(|l| l.labels(game)),
        )?;
    }
    let summary = Summary {
        args,
        game,
        solved,
        run,
        last,
        ran: run.iterations() - run.resumed_at().unwrap_or(0),
    };
    if args.json {
        summary.print_json();
    } else {
        summary.print_text();
    }
    Ok(())
}

/// What `bluff solve` reports at the end of a CFR-family run.
struct Summary<'a> {
    args: &'a SolveArgs,
    game: &'a Game,
    solved: &'a Solved,
    run: &'a CfrRun,
    last: CurvePoint,
    /// Iterations run in this call.
    ran: u64,
}

impl Summary<'_> {
    fn rate(&self) -> f64 {
        self.last.iteration as f64 / self.last.seconds.max(1e-9)
    }

    fn value(&self, player: usize) -> f64 {
        self.solved
            .values
            .as_ref()
            .map_or(f64::NAN, |v| v[player].to_f64())
    }

    fn exploitability(&self) -> f64 {
        self.solved
            .exploitability
            .as_ref()
            .map_or(f64::NAN, Value::to_f64)
    }

    fn print_json(&self) {
        let (game, run, params) = (self.game, self.run, self.run.params());
        let solver_bytes = run.solver_bytes();
        let (lo, hi) = game.payoff_range();
        let mut summary = json!({
            "game": self.solved.spec,
            "algo": run.algorithm().name,
            "params": params_json(&params),
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
            "exploitability": self.exploitability(),
            "exploitability_fraction_of_range": self.exploitability() / (hi - lo),
            "nash_conv": self.solved.nash_conv.as_ref().map_or(f64::NAN, Value::to_f64),
            "value_p1": self.value(0),
            "value_p2": self.value(1),
            "payoff_range": [lo, hi],
            "peak_rss_bytes": bluff::solve::sampling::peak_rss(),
        });
        if !game.is_constant_sum() {
            add_gains(&mut summary, self.solved);
        }
        add_locked(&mut summary, self.solved);
        if let Some(x) = &self.solved.exact_eval {
            summary["exact"] = json!({
                "exploitability": format_rational(&x.exploitability),
                "nash_conv": format_rational(&x.nash_conv),
                "value_p1": format_rational(&x.value[0]),
                "value_p2": format_rational(&x.value[1]),
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
            self.solved.spec,
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
        say(format!("  exploitability  {:.6e}", self.exploitability()));
        say(format!(
            "  as a fraction of the payoff range {}..{}: {:.6e}",
            lo,
            hi,
            self.exploitability() / (hi - lo)
        ));
        say(format!(
            "  {} value     {:.12}",
            game.player_names[0],
            self.value(0)
        ));
        if !game.is_constant_sum() {
            say_gains(args, self.solved, &game.player_names);
        }
        if let Some(x) = &self.solved.exact_eval {
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

/// A sampling run: the files, the summary.
fn present_sampling(args: &SolveArgs, solved: &Solved, o: &SamplingOutcome) -> Result<()> {
    let names = solved.game.as_ref().map(|g| g.player_names.clone());
    if solved.interrupted() {
        let signal = signals::stop_signal().unwrap_or(signals::SIGINT);
        return Err(crate::Interrupted {
            signal,
            message: format!(
                "interrupted after {} iterations; {}",
                o.iterations,
                match &args.checkpoint {
                    Some(p) => format!("saved checkpoint {}", p.display()),
                    None => "nothing was saved (use --checkpoint FILE)".into(),
                }
            ),
        }
        .into());
    }
    write_outputs(args, solved)?;
    if args.json {
        print_sampling_json(solved, o);
    } else {
        print_sampling_text(args, o);
        if let Some(names) = names.filter(|_| solved.gains.is_some()) {
            say_gains(args, solved, &names);
        }
    }
    Ok(())
}

/// The `--json` summary of a sampling run.
fn print_sampling_json(solved: &Solved, o: &SamplingOutcome) {
    let p = o.params;
    let (sampling, epsilon) = match p.sampling {
        Sampling::External => ("external", None),
        Sampling::Outcome { epsilon } => ("outcome", Some(epsilon)),
    };
    let rate = o.rate();
    let value = |player: usize| solved.values.as_ref().map(|v| v[player].to_f64());
    let mut summary = json!({
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
        "value_p1": value(0),
        "value_p2": value(1),
        "best_response_seconds": o.best_response_seconds,
        "infosets": o.infosets,
        "solver_bytes": o.solver_bytes,
        "bytes_per_infoset": o.bytes_per_infoset,
        "peak_rss_bytes": o.peak_rss_bytes,
        "curve": o.curve.iter().map(|(i, e, t)| json!([i, e, t])).collect::<Vec<_>>(),
    });
    if solved.gains.is_some() {
        add_gains(&mut summary, solved);
    }
    add_locked(&mut summary, solved);
    crate::print_json(&summary);
}

/// A general-sum run's `--json` fields: each player's gain, NashConv as their sum.
fn add_gains(summary: &mut serde_json::Value, solved: &Solved) {
    let gain = |p: usize| solved.gains.as_ref().map(|g| g[p].to_f64());
    summary["general_sum"] = json!(true);
    summary["gain_p1"] = json!(gain(0));
    summary["gain_p2"] = json!(gain(1));
    summary["nash_conv"] = json!(solved.nash_conv.as_ref().map(Value::to_f64));
}

/// A general-sum run's gains in words, and what they do not promise.
fn say_gains(args: &SolveArgs, solved: &Solved, names: &[String; 2]) {
    if let (Some([g1, g2]), Some(nc)) = (&solved.gains, &solved.nash_conv) {
        args.say(format!(
            "  general-sum game: no equilibrium is guaranteed (`--algo lcp` finds one exactly); \
             gain by best-responding: {} {:.6e}, {} {:.6e}; NashConv {:.6e} (their sum)",
            names[0],
            g1.to_f64(),
            names[1],
            g2.to_f64(),
            nc.to_f64()
        ));
    }
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

/// The exact LP: the strategy, the report, the summary (table or JSON).
fn present_lp(
    args: &SolveArgs,
    solved: &Solved,
    st: &ExactStats,
    spot: Option<&SpotLp>,
) -> Result<()> {
    let game = game_of(solved)?;
    let spot_file = write_exact_outputs(args, solved, spot)?;
    let (Some([Value::Exact(v1), Value::Exact(v2)]), Strategy::Exact(profile)) =
        (&solved.values, &solved.strategy)
    else {
        bail!("the exact LP returned no exact values");
    };
    let spec = &solved.spec;
    let form_name = match args.lp_form.unwrap_or_default() {
        crate::lp::LpFormArg::Merged => "merged",
        crate::lp::LpFormArg::Textbook => "textbook",
    };
    let method = match args.lp_method.unwrap_or(crate::lp::LpMethod::Guided) {
        crate::lp::LpMethod::Guided => "guided",
        crate::lp::LpMethod::Tableau => "tableau",
    };
    if args.json {
        let mut summary = json!({
            "game": spec,
            "algo": solved.algorithm.name,
            "method": method,
            "value_p1": {"exact": format_rational(v1), "float": rational_to_f64(v1)},
            "value_p2": {"exact": format_rational(v2), "float": rational_to_f64(v2)},
            "nash_conv": "0",
            "certified": if solved.lock.is_some() {
                "exact best responses of the unlocked sets: the locked game's NashConv exactly 0"
            } else {
                "exact best responses: NashConv exactly 0"
            },
            "sequences": st.sequences,
            "lp_form": form_name,
            "lp_primal": format!("p{}", st.lp_primal + 1),
            "lp_vars": st.lp_vars,
            "lp_rows": st.lp_rows,
            "float_pivots": st.lp.float_pivots,
            "exact_pivots": st.lp.exact_pivots,
            "exact_factorizations": st.lp.exact_factorizations,
            "tableau_fallback": st.lp.tableau_fallback,
            "exact_route": st.lp.route.name(),
            "refinement_rounds": st.lp.refinement_rounds,
            "presolve_removed": {"rows": st.lp.presolve_rows, "cols": st.lp.presolve_cols},
            "seconds": {
                "build": st.build_time.as_secs_f64(),
                "presolve": st.lp.presolve_time.as_secs_f64(),
                "float_simplex": st.lp.float_time.as_secs_f64(),
                "exact": st.lp.exact_time.as_secs_f64(),
                "solve_total": st.solve_time.as_secs_f64(),
                "certify": st.certify_time.as_secs_f64(),
            },
            "output": args.output.as_ref().map(|p| p.display().to_string()),
            "peak_rss_bytes": bluff::solve::sampling::peak_rss(),
        });
        add_locked(&mut summary, solved);
        crate::spot::add_exact_fields(&mut summary, spot, args.output.as_deref(), spot_file);
        crate::print_json(&summary);
    } else if args.output.as_deref().is_some_and(is_stdout) {
        // Standard output carries the strategy; keep it clean.
        eprintln!(
            "exact value for {}: {} (certified: NashConv exactly 0)",
            game.player_names[0],
            format_rational(v1)
        );
    } else {
        print_lp_text(args, game, spec, v1, v2, st, form_name);
        crate::spot::print_exact_lines(spot, args.output.as_deref(), spot_file);
    }
    if let Some(path) = &args.report {
        let locked = solved.lock.as_ref().map(|l| l.labels(game));
        crate::report::from_solve_lp(game, spec, v1.clone(), profile.clone(), st, path, locked)?;
    }
    Ok(())
}

/// Writes `-o` of an exact run: a spot's in the spot's strategy format (its bytes and
/// seconds), any other game's as JSON.
fn write_exact_outputs(
    args: &SolveArgs,
    solved: &Solved,
    spot: Option<&SpotLp>,
) -> Result<Option<(u64, f64)>> {
    match (spot, &args.output) {
        (Some(run), Some(path)) => Ok(Some(crate::spot::write_strategy(
            path,
            solved,
            run.returned.as_ref(),
        )?)),
        _ => write_outputs(args, solved).map(|()| None),
    }
}
/// The LCP: the strategy and the summary (table or JSON).
fn present_lcp(
    args: &SolveArgs,
    solved: &Solved,
    st: &LcpStats,
    spot: Option<&SpotLp>,
) -> Result<()> {
    let game = game_of(solved)?;
    if let (Some(path), Some(_)) = (&st.path_stats, std::env::var_os("BLUFF_LCP_STATS")) {
        eprintln!("lcp float path: {path}");
    }
    let spot_file = write_exact_outputs(args, solved, spot)?;
    let (Some([Value::Exact(v1), Value::Exact(v2)]), Some(Value::Exact(nash_conv))) =
        (&solved.values, &solved.nash_conv)
    else {
        bail!("the LCP returned no exact values");
    };
    let exact = |r: &bluff::scalar::Rational| json!({"exact": format_rational(r), "float": rational_to_f64(r)});
    if args.json {
        let mut summary = json!({
            "game": solved.spec,
            "algo": solved.algorithm.name,
            "value_p1": exact(v1),
            "value_p2": exact(v2),
            "nash_conv": format_rational(nash_conv),
            "certified": "exact best responses: NashConv exactly 0",
            "general_sum": !game.is_constant_sum(),
            "start": st.start,
            "pivots": st.pivots,
            "route": st.route,
            "lcp_rows": st.rows,
            "seconds": st.seconds,
            "output": args.output.as_ref().map(|p| p.display().to_string()),
            "peak_rss_bytes": bluff::solve::sampling::peak_rss(),
        });
        crate::spot::add_exact_fields(&mut summary, spot, args.output.as_deref(), spot_file);
        crate::print_json(&summary);
        return Ok(());
    }
    let names = &game.player_names;
    args.say(format!("game {} ({})", solved.spec, crate::game_size(game)));
    for (name, v) in names.iter().zip([v1, v2]) {
        args.say(format!(
            "value for {name}: {} (~ {:.15})",
            format_rational(v),
            rational_to_f64(v)
        ));
    }
    args.say(format!(
        "certificate: exact best responses give NashConv = {} exactly",
        format_rational(nash_conv)
    ));
    args.say(format!(
        "LCP {} rows; {} Lemke pivots from {}; {:.3} s",
        st.rows, st.pivots, st.start, st.seconds
    ));
    args.say(format!("route: {}", st.route));
    if crate::spot::print_exact_lines(spot, args.output.as_deref(), spot_file) {
        return Ok(());
    }
    if let Some(path) = args.output.as_ref().filter(|p| !is_stdout(p)) {
        args.say(format!("wrote {}", path.display()));
    }
    Ok(())
}

/// The exact LP's text summary.
fn print_lp_text(
    args: &SolveArgs,
    game: &Game,
    spec: &str,
    v1: &bluff::scalar::Rational,
    v2: &bluff::scalar::Rational,
    st: &ExactStats,
    form_name: &str,
) {
    println!(
        "game {} ({}, {} + {} sequences)",
        spec,
        crate::game_size(game),
        st.sequences[0],
        st.sequences[1]
    );
    let names = &game.player_names;
    println!(
        "value for {}: {} (~ {:.15}; the decimal is the exact value rounded to f64)",
        names[0],
        format_rational(v1),
        rational_to_f64(v1)
    );
    println!(
        "value for {}: {} (~ {:.15})",
        names[1],
        format_rational(v2),
        rational_to_f64(v2)
    );
    println!("certificate: exact best responses give NashConv = 0 exactly");
    println!(
        "LP ({}, {}'s maximin) {} vars x {} rows; {} float pivots, exact by {} ({} refinement rounds), {} exact pivots, {} exact factorisations{}",
        form_name,
        names[st.lp_primal],
        st.lp_vars,
        st.lp_rows,
        st.lp.float_pivots,
        st.lp.route.name(),
        st.lp.refinement_rounds,
        st.lp.exact_pivots,
        st.lp.exact_factorizations,
        if st.lp.tableau_fallback {
            " (fell back to the exact tableau)"
        } else {
            ""
        }
    );
    println!(
        "time: build {:.3}s, float simplex {:.3}s, exact {:.3}s, certificate {:.3}s",
        st.build_time.as_secs_f64(),
        st.lp.float_time.as_secs_f64(),
        st.lp.exact_time.as_secs_f64(),
        st.certify_time.as_secs_f64()
    );
    if let Some(path) = &args.output {
        println!("wrote {}", path.display());
    }
}

/// Adds `locked`: each player's locked sets by label, when the run had a lock.
fn add_locked(summary: &mut serde_json::Value, solved: &Solved) {
    if let (Some(lock), Some(game)) = (&solved.lock, &solved.game) {
        let [a, b] = lock.labels(game);
        let mut locked = serde_json::Map::new();
        locked.insert(game.player_names[0].clone(), json!(a));
        locked.insert(game.player_names[1].clone(), json!(b));
        summary["locked"] = serde_json::Value::Object(locked);
    }
}

/// The note on standard error of a locked run: how many sets, and what the values are.
fn say_locked(solved: &Solved) {
    if let (Some(lock), Some(game)) = (&solved.lock, &solved.game) {
        let [a, b] = lock.labels(game);
        eprintln!(
            "locked: {} of {}, {} of {}; values and exploitability are the locked game's",
            crate::plural(a.len(), "set", "sets"),
            game.player_names[0],
            crate::plural(b.len(), "set", "sets"),
            game.player_names[1],
        );
    }
}

/// A CFR-family run's parameters in `--json` (games and spots alike).
pub fn params_json(params: &bluff::cfr::RegretParams) -> serde_json::Value {
    json!({
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
    })
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

/// Renders exploitability against iterations on log-log axes as SVG text: the report's
/// convergence chart (`bluff::report::charts::convergence`), one chart for both.
pub fn plot_svg(title: &str, points: &[CurvePoint]) -> Result<String> {
    let pairs = bluff::report::curve_pairs(points);
    if !pairs.iter().any(|&(_, y)| y > 0.0 && y.is_finite()) {
        bail!("nothing to plot: no positive exploitability was measured");
    }
    let svg = bluff::report::charts::convergence(title, &pairs).to_svg(title);
    Ok(svg + "\n")
}
