//! The one door of every solve: one [`Request`], one [`check`], one [`solve`], one [`Solved`].
//!
//! Why a door: the command line and the Python package used to route `algo` to a family
//! themselves, each with its own tables of which option applies where and its own range
//! checks, and they drifted (a target of 0 refused by one and run by the other, an LP option
//! accepted silently by one and refused by the other). Now a front end only maps its arguments
//! into a [`Request`] and presents the [`Solved`] that comes back; every decision is taken here
//! once, from one table ([`RULES`]): which family runs, which options apply to it, the ranges
//! of the values, the defaults. Messages name each option as the caller's front end spells it
//! ([`Spelling`]: `--max-memory` on the command line, `max_memory=` in Python), so the same
//! request is refused with the same words in both (`tests/data/conformance.json` holds such
//! requests; the CLI and the Python suites both run it).
//!
//! The order of the checks is fixed: the game's support first (a three-player game is refused
//! for its players whatever else is given or missing), then the algorithm, then the options
//! that do not apply to its family, then the values, then what the family needs (a stop rule,
//! a horizon). Nothing is computed before every check has passed.

use crate::cfr::checkpoint::{self, Checkpoint};
use crate::cfr::Kernel;
use crate::error::Error;
use crate::eval::{exploitability, exploitability_locked, Exploitability};
use crate::exact::sequence_form::{LpForm, LpPrimal};
use crate::exact::{solve_exact_with, ExactError, ExactOptions, ExactStats};
use crate::format::lock_json::lock_from_json;
use crate::game::Game;
use crate::lcp::{solve_lcp_with, LcpOptions, LcpStart};
use crate::lock::Lock;
use crate::lp::{memory, LinearProgram, Method, ProgressFn, SolveOptions};
use crate::scalar::{rational_to_f64, Rational};
use crate::solve::registry::{
    self, Algorithm, AlgorithmError, CfrOptions, Family, SamplingOptions, Tunable, Updates,
};
use crate::solve::run::{
    CfrRequest, CfrRun, CurvePoint, Hooks, Progress, RunError, SaveError, StopReason, StopRule,
    Target,
};
use crate::solve::sampling::{self, Engine, SamplingHooks, SamplingOutcome, SamplingRequest};
use crate::solve::Threads;
use crate::strategy::{ExactProfile, LabelledStrategy, Profile};
use std::fmt::Display;
use std::path::PathBuf;
use std::time::Duration;

/// How a front end spells its options, so that the door's messages use the caller's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// The command line: `--max-memory 8G`.
    Cli,
    /// Python keyword arguments: `max_memory=...`.
    Python,
}

/// Every option a [`Request`] can carry, by the name users know it by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    /// The algorithm.
    Algo,
    /// Stop after this many iterations in all.
    Iterations,
    /// Stop at this exploitability.
    Target,
    /// Stop at this fraction of the payoff range.
    TargetRelative,
    /// Stop after this many seconds.
    Time,
    /// The CFR update order.
    Updates,
    /// DCFR's positive-regret exponent.
    Alpha,
    /// DCFR's negative-regret exponent.
    Beta,
    /// DCFR's average-strategy exponent.
    Gamma,
    /// Worker threads.
    Threads,
    /// Every iteration on all threads.
    AlwaysThreads,
    /// Largest gap between measurements.
    CheckEvery,
    /// The CFR kernel.
    Kernel,
    /// Evaluate the final strategy exactly too.
    Exact,
    /// The exact LP's simplex method.
    LpMethod,
    /// The exact LP's memory budget.
    MaxMemory,
    /// Write the LP as MPS.
    WriteMps,
    /// The LP's form.
    LpForm,
    /// Whose maximin LP.
    LpPrimal,
    /// Save checkpoints here.
    Checkpoint,
    /// Seconds between checkpoints.
    CheckpointEvery,
    /// Continue a checkpoint.
    Resume,
    /// The sampling seed.
    Seed,
    /// Outcome sampling's exploration.
    Epsilon,
    /// VR-MCCFR baselines' rate.
    Baseline,
    /// Regret matching+ in the sampling solvers.
    RmPlus,
    /// Iterations per discount epoch.
    Epoch,
    /// Play the game's rules.
    Rules,
    /// Skip the final best response.
    NoEval,
    /// Write the strategy.
    Output,
    /// Write the convergence curve.
    Curve,
    /// Plot the convergence curve.
    Plot,
    /// Write an HTML report.
    Report,
    /// The LCP's start.
    LcpStart,
    /// Stop at this exploitability, in percent of a hold'em spot's starting pot.
    TargetPotPct,
    /// Fix some sets' strategy and solve the rest.
    Lock,
    /// The precision of a hold'em spot's stored state (`f32`, `f64`).
    Precision,
    /// A hold'em spot's state in 16 bits with per-node scales.
    Compress,
}

impl Opt {
    /// The option's name in kebab case, as the command line writes it after `--`.
    fn kebab(self) -> &'static str {
        match self {
            Opt::Algo => "algo",
            Opt::Iterations => "iterations",
            Opt::Target => "target",
            Opt::TargetRelative => "target-relative",
            Opt::Time => "time",
            Opt::Updates => "updates",
            Opt::Alpha => "alpha",
            Opt::Beta => "beta",
            Opt::Gamma => "gamma",
            Opt::Threads => "threads",
            Opt::AlwaysThreads => "always-threads",
            Opt::CheckEvery => "check-every",
            Opt::Kernel => "kernel",
            Opt::Exact => "exact",
            Opt::LpMethod => "lp-method",
            Opt::MaxMemory => "max-memory",
            Opt::WriteMps => "write-mps",
            Opt::LpForm => "lp-form",
            Opt::LpPrimal => "lp-primal",
            Opt::Checkpoint => "checkpoint",
            Opt::CheckpointEvery => "checkpoint-every",
            Opt::Resume => "resume",
            Opt::Seed => "seed",
            Opt::Epsilon => "epsilon",
            Opt::Baseline => "baseline",
            Opt::RmPlus => "rm-plus",
            Opt::Epoch => "epoch",
            Opt::Rules => "rules",
            Opt::NoEval => "no-eval",
            Opt::Output => "output",
            Opt::Curve => "curve",
            Opt::Plot => "plot",
            Opt::Report => "report",
            Opt::LcpStart => "lcp-start",
            Opt::TargetPotPct => "target-pot-pct",
            Opt::Lock => "lock",
            Opt::Precision => "precision",
            Opt::Compress => "compress",
        }
    }

    /// The option as `spelling` writes it: `--max-memory` or `max_memory=` (`-o` for the
    /// command line's output).
    pub fn spelled(self, spelling: Spelling) -> String {
        match (spelling, self) {
            (Spelling::Cli, Opt::Output) => "-o".to_string(),
            (Spelling::Cli, o) => format!("--{}", o.kebab()),
            (Spelling::Python, o) => format!("{}=", o.kebab().replace('-', "_")),
        }
    }

    /// The option with a value, as `spelling` writes it: `--target 0` or `target=0`.
    pub(crate) fn with(self, value: impl Display, spelling: Spelling) -> String {
        match spelling {
            Spelling::Cli => format!("{} {value}", self.spelled(spelling)),
            Spelling::Python => format!("{}{value}", self.spelled(spelling)),
        }
    }
}

/// The kinds of solver a request can reach (a [`Family`] without the sampling kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The CFR family on the arena.
    Cfr,
    /// Monte Carlo CFR.
    Sampling,
    /// The exact sequence-form LP.
    ExactLp,
    /// The sequence-form LCP (general-sum games).
    Lcp,
}

impl Kind {
    /// The kind of an algorithm.
    pub fn of(algorithm: &Algorithm) -> Kind {
        match algorithm.family {
            Family::Cfr => Kind::Cfr,
            Family::Sampling(_) => Kind::Sampling,
            Family::ExactLp => Kind::ExactLp,
            Family::Lcp => Kind::Lcp,
        }
    }
}

/// Where an option applies: one row of [`RULES`].
#[derive(Clone, Copy, Debug)]
pub struct Rule {
    /// The option.
    pub opt: Opt,
    /// The kinds it applies to.
    pub kinds: &'static [Kind],
    /// Only these algorithms of those kinds (empty: all of them).
    pub only: &'static [&'static str],
}

const CFR: &[Kind] = &[Kind::Cfr];
const SAMPLING: &[Kind] = &[Kind::Sampling];
const LP: &[Kind] = &[Kind::ExactLp];
const ITERATIVE: &[Kind] = &[Kind::Cfr, Kind::Sampling];
const CFR_OR_LP: &[Kind] = &[Kind::Cfr, Kind::ExactLp];
const EXACT: &[Kind] = &[Kind::ExactLp, Kind::Lcp];
const LCP: &[Kind] = &[Kind::Lcp];
const THREADED: &[Kind] = &[Kind::Cfr, Kind::Sampling, Kind::ExactLp];
const ALL: &[Kind] = &[Kind::Cfr, Kind::Sampling, Kind::ExactLp, Kind::Lcp];

const fn rule(opt: Opt, kinds: &'static [Kind]) -> Rule {
    Rule {
        opt,
        kinds,
        only: &[],
    }
}

/// Which option applies to which solvers: the one table every front end goes through.
pub const RULES: &[Rule] = &[
    rule(Opt::Algo, ALL),
    rule(Opt::Threads, THREADED),
    rule(Opt::Output, ALL),
    rule(Opt::Iterations, ITERATIVE),
    rule(Opt::Target, ITERATIVE),
    rule(Opt::Time, ITERATIVE),
    rule(Opt::Alpha, ITERATIVE),
    rule(Opt::Beta, ITERATIVE),
    rule(Opt::Gamma, ITERATIVE),
    rule(Opt::Checkpoint, ITERATIVE),
    rule(Opt::CheckpointEvery, ITERATIVE),
    rule(Opt::Resume, ITERATIVE),
    rule(Opt::Curve, ITERATIVE),
    rule(Opt::TargetRelative, CFR),
    rule(Opt::Updates, CFR),
    rule(Opt::AlwaysThreads, CFR),
    rule(Opt::CheckEvery, CFR),
    rule(Opt::Kernel, CFR),
    rule(Opt::Exact, CFR),
    rule(Opt::Plot, CFR),
    rule(Opt::Report, CFR_OR_LP),
    rule(Opt::Seed, SAMPLING),
    Rule {
        opt: Opt::Epsilon,
        kinds: SAMPLING,
        only: &["os-mccfr"],
    },
    rule(Opt::Baseline, SAMPLING),
    rule(Opt::RmPlus, SAMPLING),
    rule(Opt::Epoch, SAMPLING),
    rule(Opt::Rules, SAMPLING),
    rule(Opt::NoEval, SAMPLING),
    rule(Opt::LpMethod, EXACT),
    rule(Opt::MaxMemory, EXACT),
    rule(Opt::LcpStart, LCP),
    rule(Opt::WriteMps, LP),
    rule(Opt::LpForm, LP),
    rule(Opt::LpPrimal, LP),
    rule(Opt::Lock, THREADED),
];

impl Rule {
    /// Whether the option applies to `algorithm`.
    fn applies(&self, algorithm: &Algorithm) -> bool {
        self.kinds.contains(&Kind::of(algorithm))
            && (self.only.is_empty() || self.only.contains(&algorithm.name))
    }

    /// Where it applies, in words.
    fn where_(&self) -> String {
        if !self.only.is_empty() {
            return self.only.join(", ");
        }
        let words: Vec<&str> = self
            .kinds
            .iter()
            .map(|k| match k {
                Kind::Cfr => "the CFR family",
                Kind::Sampling => "the sampling solvers (es-mccfr, os-mccfr)",
                Kind::ExactLp => "the exact LP (lp)",
                Kind::Lcp => "the LCP (lcp)",
            })
            .collect();
        words.join(" and ")
    }
}

/// The exact LP's simplex method.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LpMethodChoice {
    /// Float-guided exact simplex (fast).
    #[default]
    Guided,
    /// The dense exact tableau.
    Tableau,
}

/// A solve, as a front end asks for it: every field is what the user gave (`None`/`false`:
/// not given); [`check`] decides the rest.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// The algorithm by name (`None`: the registry's default, or the checkpoint's).
    pub algo: Option<String>,
    /// Stop after this many iterations in all.
    pub iterations: Option<i64>,
    /// Stop at this exploitability (payoff units).
    pub target: Option<f64>,
    /// Stop at this fraction of the payoff range.
    pub target_relative: Option<f64>,
    /// Stop after this many seconds of solving.
    pub time: Option<f64>,
    /// The CFR update order.
    pub updates: Option<Updates>,
    /// DCFR's alpha (the sampling solvers' per-epoch discount).
    pub alpha: Option<f64>,
    /// DCFR's beta.
    pub beta: Option<f64>,
    /// DCFR's gamma (the starting gamma of a schedule).
    pub gamma: Option<f64>,
    /// Worker threads.
    pub threads: Option<i64>,
    /// Every CFR iteration on all threads.
    pub always_threads: bool,
    /// Largest gap between the CFR family's measurements.
    pub check_every: Option<i64>,
    /// The CFR kernel.
    pub kernel: Option<Kernel>,
    /// Evaluate the final CFR strategy exactly too.
    pub exact: bool,
    /// The exact LP's method.
    pub lp_method: Option<LpMethodChoice>,
    /// The exact LP's memory budget, bytes.
    pub max_memory: Option<u64>,
    /// Write the exact LP as MPS here.
    pub write_mps: Option<PathBuf>,
    /// The exact LP's form.
    pub lp_form: Option<LpForm>,
    /// Whose maximin program the exact LP solves.
    pub lp_primal: Option<LpPrimal>,
    /// Save checkpoints here.
    pub checkpoint: Option<PathBuf>,
    /// Seconds of solving between checkpoints.
    pub checkpoint_every: Option<f64>,
    /// Continue the run saved here.
    pub resume: Option<PathBuf>,
    /// The sampling seed.
    pub seed: Option<u64>,
    /// Outcome sampling's exploration.
    pub epsilon: Option<f64>,
    /// VR-MCCFR baselines' learning rate.
    pub baseline: Option<f64>,
    /// Regret matching+ in the sampling solvers.
    pub rm_plus: bool,
    /// Iterations per discount epoch of the sampling solvers.
    pub epoch: Option<i64>,
    /// Play the game's rules even where its arena could be built.
    pub rules: bool,
    /// Skip the sampling run's final best response.
    pub no_eval: bool,
    /// The front end writes the strategy.
    pub output: bool,
    /// The front end writes the curve.
    pub curve: bool,
    /// The front end plots the curve.
    pub plot: bool,
    /// The front end writes a report.
    pub report: bool,
    /// The LCP's start: `pure:I,J` (reduced pure strategies, 1-based) or a strategy file.
    pub lcp_start: Option<String>,
    /// Stop at this exploitability in percent of a hold'em spot's starting pot.
    pub target_pot_pct: Option<f64>,
    /// Sets whose strategy is fixed (a lock file or its text); every other set is solved.
    pub lock: Option<LockSource>,
    /// The precision of a hold'em spot's stored state: `f32` (the default) or `f64`.
    pub precision: Option<String>,
    /// A hold'em spot's regrets and average sums stored in 16 bits with per-node scales.
    pub compress: bool,
}

/// Where a request's lock comes from; read and checked once, by the door, against the game.
#[derive(Clone, Debug, PartialEq)]
pub enum LockSource {
    /// A lock file (the layout of a strategy file, sets left out are not locked).
    File(PathBuf),
    /// The same JSON as text (what a front end made of a dict or a policy).
    Json(String),
}

impl Request {
    /// Whether the option was given.
    pub(crate) fn given(&self, opt: Opt) -> bool {
        match opt {
            Opt::Algo => self.algo.is_some(),
            Opt::Iterations => self.iterations.is_some(),
            Opt::Target => self.target.is_some(),
            Opt::TargetRelative => self.target_relative.is_some(),
            Opt::Time => self.time.is_some(),
            Opt::Updates => self.updates.is_some(),
            Opt::Alpha => self.alpha.is_some(),
            Opt::Beta => self.beta.is_some(),
            Opt::Gamma => self.gamma.is_some(),
            Opt::Threads => self.threads.is_some(),
            Opt::AlwaysThreads => self.always_threads,
            Opt::CheckEvery => self.check_every.is_some(),
            Opt::Kernel => self.kernel.is_some(),
            Opt::Exact => self.exact,
            Opt::LpMethod => self.lp_method.is_some(),
            Opt::MaxMemory => self.max_memory.is_some(),
            Opt::WriteMps => self.write_mps.is_some(),
            Opt::LpForm => self.lp_form.is_some(),
            Opt::LpPrimal => self.lp_primal.is_some(),
            Opt::Checkpoint => self.checkpoint.is_some(),
            Opt::CheckpointEvery => self.checkpoint_every.is_some(),
            Opt::Resume => self.resume.is_some(),
            Opt::Seed => self.seed.is_some(),
            Opt::Epsilon => self.epsilon.is_some(),
            Opt::Baseline => self.baseline.is_some(),
            Opt::RmPlus => self.rm_plus,
            Opt::Epoch => self.epoch.is_some(),
            Opt::Rules => self.rules,
            Opt::NoEval => self.no_eval,
            Opt::Output => self.output,
            Opt::Curve => self.curve,
            Opt::Plot => self.plot,
            Opt::Report => self.report,
            Opt::LcpStart => self.lcp_start.is_some(),
            Opt::TargetPotPct => self.target_pot_pct.is_some(),
            Opt::Lock => self.lock.is_some(),
            Opt::Precision => self.precision.is_some(),
            Opt::Compress => self.compress,
        }
    }
}

/// Longest time limit and checkpoint interval accepted, seconds (about 31 years).
pub const MAX_SECONDS: f64 = 1e9;
/// Seconds of solving between checkpoints when the request names a checkpoint file only.
pub const DEFAULT_CHECKPOINT_SECONDS: f64 = 60.0;
/// The CFR family's largest gap between measurements when the request gives none.
pub const DEFAULT_CHECK_EVERY: u64 = 1000;

/// Why a request was refused or a solve failed.
#[derive(Debug, thiserror::Error)]
pub enum SolveError {
    /// The request itself (an option, a value, a missing stop rule): the caller's mistake,
    /// in the caller's spelling.
    #[error("{0}")]
    Request(String),
    /// The game (loading it, or a game the solver does not take).
    #[error(transparent)]
    Game(#[from] Error),
    /// A CFR run: starting, resuming or saving it.
    #[error("{0}")]
    Run(String),
    /// The exact LP.
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// A checkpoint file that could not be read.
    #[error("checkpoint {path}: {message}")]
    Checkpoint {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
}

/// The checked request: the family, its typed request and the door's decisions.
#[derive(Clone, Debug)]
pub struct Checked {
    /// The algorithm (the checkpoint's when resuming without one).
    pub algorithm: &'static Algorithm,
    /// Its kind.
    pub kind: Kind,
    /// The stop rule of an iterative run.
    pub stop: StopRule,
    /// The CFR family's request.
    pub cfr: CfrRequest,
    /// The sampling solvers' request.
    pub sampling: SamplingRequest,
    /// The exact LP's settings.
    pub lp: LpSettings,
    /// Worker threads.
    pub threads: usize,
    /// Save checkpoints here (CFR family).
    pub checkpoint: Option<PathBuf>,
    /// Solving time between checkpoints.
    pub checkpoint_every: Duration,
    /// The CFR checkpoint to continue, read whole.
    pub resume: Option<Box<Checkpoint>>,
    /// Evaluate the final CFR strategy exactly too.
    pub exact_eval: bool,
    /// How the caller spells options (for the run's own messages).
    pub spelling: Spelling,
}

/// The exact LP's settings after [`check`].
#[derive(Clone, Debug, Default)]
pub struct LpSettings {
    /// The method.
    pub method: LpMethodChoice,
    /// The memory budget, bytes.
    pub max_memory: u64,
    /// The form.
    pub form: LpForm,
    /// Whose maximin program.
    pub primal: LpPrimal,
    /// Write the program as MPS here.
    pub write_mps: Option<PathBuf>,
}

/// A value in the caller's words: refuses `bad` values of `opt` with `expected`.
pub(crate) fn refuse(opt: Opt, value: impl Display, expected: &str, sp: Spelling) -> SolveError {
    SolveError::Request(format!("{}: expected {expected}", opt.with(value, sp)))
}

/// Which algorithm runs: the one named, else the checkpoint's, else the default.
fn algorithm_of(request: &Request) -> Result<Option<&'static Algorithm>, SolveError> {
    request
        .algo
        .as_deref()
        .map(registry::algorithm)
        .transpose()
        .map_err(|e| SolveError::Request(e.to_string()))
}

/// The checkpoint to resume, read: a sampling checkpoint names its algorithm in its header
/// (read by the sampling door), a CFR checkpoint is read whole here.
enum Resumed {
    None,
    /// A sampling checkpoint, with its game spec and algorithm.
    Sampling {
        spec: String,
        algo: String,
    },
    Cfr(Box<Checkpoint>),
}

fn read_resume(request: &Request) -> Result<Resumed, SolveError> {
    let Some(path) = &request.resume else {
        return Ok(Resumed::None);
    };
    let unreadable = |message: String| SolveError::Checkpoint {
        path: path.display().to_string(),
        message,
    };
    if crate::holdem::checkpoint::is_spot_checkpoint(path) {
        return Err(unreadable(
            "a hold'em spot's checkpoint: give the spot file too (bluff solve SPOT.toml \
             --resume FILE)"
                .into(),
        ));
    }
    if sampling::is_sampling_checkpoint(path) {
        let header = crate::mccfr::checkpoint::read_header_of(path)
            .map_err(|e| unreadable(e.to_string()))?;
        return Ok(Resumed::Sampling {
            spec: header.info.game_spec,
            algo: header.info.algo,
        });
    }
    checkpoint::read_file(path)
        .map(|c| Resumed::Cfr(Box::new(c)))
        .map_err(|e| unreadable(e.to_string()))
}

/// Refuses the first option of `request` (in the table's order) that does not apply to
/// `algorithm`, saying where it applies; the options in `taken` are taken whatever the table
/// says (a route of its own, such as spots, decides them).
pub(crate) fn refuse_inapplicable(
    request: &Request,
    algorithm: &Algorithm,
    taken: &[Opt],
    sp: Spelling,
) -> Result<(), SolveError> {
    for r in RULES {
        if request.given(r.opt) && !r.applies(algorithm) && !taken.contains(&r.opt) {
            return Err(SolveError::Request(format!(
                "{} does not apply to {}; it applies to {}",
                r.opt.spelled(sp),
                algorithm.name,
                r.where_()
            )));
        }
    }
    Ok(())
}

/// Checks `request` (after the game's support) and decides everything the run needs: the
/// family, the options that apply to it, their values, the stop rule, the defaults. Messages
/// spell options as `spelling` does.
pub fn check(request: &Request, spelling: Spelling) -> Result<Checked, SolveError> {
    let resumed = read_resume(request)?;
    check_resumed(request, spelling, resumed)
}

fn check_resumed(request: &Request, sp: Spelling, resumed: Resumed) -> Result<Checked, SolveError> {
    let named = algorithm_of(request)?;
    let algorithm = match (&resumed, named) {
        (_, Some(a)) => a,
        (Resumed::Sampling { algo, .. }, None) => {
            registry::algorithm(algo).map_err(|e| SolveError::Request(e.to_string()))?
        }
        (Resumed::Cfr(c), None) => {
            registry::algorithm(&c.algo).map_err(|e| SolveError::Request(e.to_string()))?
        }
        (Resumed::None, None) => registry::default_algorithm(),
    };
    let kind = Kind::of(algorithm);
    match (&resumed, kind) {
        (Resumed::Sampling { .. }, Kind::Sampling)
        | (Resumed::Cfr(_), Kind::Cfr)
        | (Resumed::None, _) => {}
        (Resumed::Sampling { algo, .. }, _) => {
            return Err(SolveError::Request(format!(
                "the checkpoint is a {algo} run; it cannot continue as {}",
                algorithm.name
            )))
        }
        (Resumed::Cfr(c), _) => {
            return Err(SolveError::Request(format!(
                "the checkpoint is a {} run; it cannot continue as {}",
                c.algo, algorithm.name
            )))
        }
    }
    refuse_inapplicable(request, algorithm, &[], sp)?;
    for opt in [Opt::TargetPotPct, Opt::Precision, Opt::Compress] {
        if request.given(opt) {
            return Err(SolveError::Request(format!(
                "{} applies to hold'em spots (a SPOT.toml file) only",
                opt.spelled(sp)
            )));
        }
    }
    check_values(request, sp)?;
    let threads = match request.threads {
        Some(n) if n < 1 => return Err(refuse(Opt::Threads, n, "at least 1", sp)),
        Some(n) => Threads::Exactly(usize::try_from(n).unwrap_or(usize::MAX)),
        None => Threads::Available,
    };
    let thread_count = threads.count().map_err(|e| match e {
        crate::solve::ThreadsError::TooMany { asked, max } => refuse(
            Opt::Threads,
            asked,
            &format!(
                "at most {max} (4 per available core, between 4 and 256); results do not \
                 depend on the thread count"
            ),
            sp,
        ),
        e => SolveError::Request(e.to_string()),
    })?;
    let stop = StopRule {
        max_iterations: request.iterations.map(|n| n as u64),
        target: request
            .target
            .map(Target::Absolute)
            .or(request.target_relative.map(Target::FractionOfRange)),
        time: request.time.map(Duration::from_secs_f64),
    };
    if matches!(kind, Kind::Cfr | Kind::Sampling) && !stop.is_set() {
        let words = [
            (Opt::Iterations, "N"),
            (Opt::Target, "E"),
            (Opt::TargetRelative, "F"),
            (Opt::Time, "S"),
        ]
        .into_iter()
        .filter(|(o, _)| kind == Kind::Cfr || *o != Opt::TargetRelative)
        .map(|(o, v)| match sp {
            Spelling::Cli => format!("{} {v}", o.spelled(sp)),
            Spelling::Python => format!("{}{v}", o.spelled(sp)),
        })
        .collect::<Vec<_>>();
        let (last, rest) = words.split_last().expect("four words");
        return Err(SolveError::Request(format!(
            "give a stop rule: {} or {last}",
            rest.join(", ")
        )));
    }
    let cfr_options = CfrOptions {
        updates: request.updates,
        alpha: request.alpha,
        beta: request.beta,
        gamma: request.gamma,
    };
    if kind == Kind::Cfr {
        check_tunable(request, sp, algorithm)?;
        if algorithm.needs_horizon && request.iterations.is_none() && request.resume.is_none() {
            return Err(SolveError::Request(format!(
                "{} schedules its exponents over the run's length: give {}",
                algorithm.name,
                match sp {
                    Spelling::Cli => format!("{} N", Opt::Iterations.spelled(sp)),
                    Spelling::Python => format!("{}N", Opt::Iterations.spelled(sp)),
                }
            )));
        }
    }
    // A resumed run measures on its checkpoint's schedule unless told otherwise.
    let check_every = match (request.check_every, &resumed) {
        (Some(n), _) => n as u64,
        (None, Resumed::Cfr(c)) => c.check_every,
        (None, _) => DEFAULT_CHECK_EVERY,
    };
    let checkpoint_every = Duration::from_secs_f64(
        request
            .checkpoint_every
            .unwrap_or(DEFAULT_CHECKPOINT_SECONDS),
    );
    let cfr = CfrRequest {
        algorithm: if matches!(resumed, Resumed::Cfr(_)) {
            named
        } else {
            Some(algorithm)
        },
        options: cfr_options,
        horizon: request.iterations.map(|n| n as u64),
        threads,
        always_threads: request.always_threads,
        check_every,
        kernel: request.kernel,
    };
    let sampling = SamplingRequest {
        algorithm: if matches!(resumed, Resumed::Sampling { .. }) {
            named
        } else {
            Some(algorithm)
        },
        options: SamplingOptions {
            epsilon: request.epsilon,
            baseline: request.baseline,
            rm_plus: request.rm_plus,
            alpha: request.alpha,
            beta: request.beta,
            gamma: request.gamma,
            epoch: request.epoch.map(|n| n as u64),
        },
        seed: request.seed,
        threads: request.threads.map(|n| n as usize),
        iterations: stop.max_iterations,
        time: stop.time,
        target: request.target,
        engine: if request.rules {
            Engine::Rules
        } else {
            Engine::Auto
        },
        evaluate: !request.no_eval,
        checkpoint: request.checkpoint.clone(),
        checkpoint_every: Some(checkpoint_every),
        resume: request.resume.clone(),
        labels: request.output,
    };
    if kind == Kind::Sampling {
        if let Some(a) = named {
            a.sampling_params(&sampling.options).map_err(|e| match e {
                AlgorithmError::NotFinite { option, value } => {
                    refuse(opt_named(option), value, "a finite number", sp)
                }
                e => SolveError::Request(e.to_string()),
            })?;
        }
    }
    let lp = LpSettings {
        method: request.lp_method.unwrap_or_default(),
        max_memory: request.max_memory.unwrap_or_else(memory::default_budget),
        form: request.lp_form.unwrap_or(LpForm::Merged),
        primal: request.lp_primal.unwrap_or(LpPrimal::Auto),
        write_mps: request.write_mps.clone(),
    };
    Ok(Checked {
        algorithm,
        kind,
        stop,
        cfr,
        sampling,
        lp,
        threads: thread_count,
        checkpoint: request.checkpoint.clone(),
        checkpoint_every,
        resume: match resumed {
            Resumed::Cfr(c) => Some(c),
            _ => None,
        },
        exact_eval: request.exact,
        spelling: sp,
    })
}

/// The option of an exponent's name in the registry's messages.
fn opt_named(name: &str) -> Opt {
    match name {
        "alpha" => Opt::Alpha,
        "beta" => Opt::Beta,
        "gamma" => Opt::Gamma,
        "epsilon" => Opt::Epsilon,
        _ => Opt::Baseline,
    }
}

/// The values' ranges, as the methods define them (not the narrower front end's).
pub(crate) fn check_values(request: &Request, sp: Spelling) -> Result<(), SolveError> {
    for (opt, v) in [
        (Opt::Iterations, request.iterations),
        (Opt::CheckEvery, request.check_every),
        (Opt::Epoch, request.epoch),
    ] {
        if let Some(n) = v.filter(|&n| n < 1) {
            return Err(refuse(opt, n, "at least 1", sp));
        }
    }
    for (opt, v) in [
        (Opt::Target, request.target),
        (Opt::TargetRelative, request.target_relative),
    ] {
        match v {
            Some(x) if x == 0.0 => {
                return Err(refuse(
                    opt,
                    x,
                    "a positive number; an exploitability of exactly 0 is not reached by a \
                     floating-point run",
                    sp,
                ))
            }
            Some(x) if !(x.is_finite() && x > 0.0) => {
                return Err(refuse(opt, x, "a finite positive number", sp))
            }
            _ => {}
        }
    }
    if request.target.is_some() && request.target_relative.is_some() {
        return Err(SolveError::Request(format!(
            "give {} or {}, not both",
            Opt::Target.spelled(sp),
            Opt::TargetRelative.spelled(sp)
        )));
    }
    for (opt, v) in [
        (Opt::Time, request.time),
        (Opt::CheckpointEvery, request.checkpoint_every),
    ] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0 && *x <= MAX_SECONDS)) {
            return Err(refuse(
                opt,
                x,
                &format!("seconds in (0, {MAX_SECONDS:e}]"),
                sp,
            ));
        }
    }
    // DCFR's exponents: alpha and gamma are at least 0; beta may be negative (the HS
    // schedules' beta = -1 - 2t/T, DDCFR's learned beta reaches -2).
    for (opt, v) in [(Opt::Alpha, request.alpha), (Opt::Gamma, request.gamma)] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x >= 0.0)) {
            return Err(refuse(opt, x, "a finite non-negative number", sp));
        }
    }
    if let Some(x) = request.beta.filter(|x| !x.is_finite()) {
        return Err(refuse(Opt::Beta, x, "a finite number", sp));
    }
    for (opt, v) in [
        (Opt::Epsilon, request.epsilon),
        (Opt::Baseline, request.baseline),
    ] {
        if let Some(x) = v.filter(|x| !(x.is_finite() && *x > 0.0 && *x <= 1.0)) {
            return Err(refuse(opt, x, "a number in (0, 1]", sp));
        }
    }
    if request.checkpoint_every.is_some() && request.checkpoint.is_none() {
        return Err(SolveError::Request(format!(
            "{} needs {}",
            Opt::CheckpointEvery.spelled(sp),
            Opt::Checkpoint.spelled(sp)
        )));
    }
    Ok(())
}

/// The exponents a CFR-family algorithm takes ([`Tunable`]).
fn check_tunable(request: &Request, sp: Spelling, algorithm: &Algorithm) -> Result<(), SolveError> {
    let (refused, hint): (&[Opt], &str) = match algorithm.tunable {
        Tunable::AlphaBetaGamma => (&[], ""),
        Tunable::StartingGamma => (
            &[Opt::Alpha, Opt::Beta],
            " (a schedule moves them; gamma sets its start)",
        ),
        Tunable::Gamma => (&[Opt::Alpha, Opt::Beta], " (it takes gamma only)"),
        Tunable::Nothing => (
            &[Opt::Alpha, Opt::Beta, Opt::Gamma],
            " (they apply to dcfr, and gamma to dcfr+ and the hs-* schedules)",
        ),
    };
    match refused.iter().find(|o| request.given(**o)) {
        Some(o) => Err(SolveError::Request(format!(
            "{} does not apply to {}{hint}",
            o.spelled(sp),
            algorithm.name
        ))),
        None => Ok(()),
    }
}

/// Where the game comes from.
pub enum Source<'a> {
    /// A game spec (a built-in or a file), loaded by the door; `None`: the checkpoint's.
    Spec(Option<&'a str>),
    /// A game the caller holds, named `name` in checkpoints and summaries.
    Game {
        /// The game.
        game: &'a Game,
        /// Its name.
        name: &'a str,
    },
    /// A hold'em spot: the spot file's text, named `name` (its path) in messages.
    Spot {
        /// The TOML text.
        text: &'a str,
        /// Its name.
        name: &'a str,
    },
}

/// A value of a solve, exact when an exact certificate stands behind it.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A rational, certified.
    Exact(Rational),
    /// A float.
    Float(f64),
}

impl Value {
    /// The value as a float (an exact one rounded).
    pub fn to_f64(&self) -> f64 {
        match self {
            Value::Exact(r) => rational_to_f64(r),
            Value::Float(x) => *x,
        }
    }
}

/// The strategy a solve returns.
#[derive(Clone, Debug)]
pub enum Strategy {
    /// An iterative run's average and current strategies.
    Float {
        /// The average strategy (what the run converges to).
        average: Profile<f64>,
        /// The strategy the next iteration would play.
        current: Profile<f64>,
    },
    /// An exact equilibrium.
    Exact(ExactProfile),
    /// A sampling run on a game's rules: the average strategy by label.
    Labelled(LabelledStrategy),
    /// None (a sampling run on rules that were not asked for labels).
    None,
}

/// What only one family reports.
pub enum Detail {
    /// The CFR run itself (its kernel, threads, parameters, checkpoint, profiles).
    Cfr(Box<CfrRun>),
    /// The sampling run's summary.
    Sampling(Box<SamplingOutcome>),
    /// The exact LP's sizes, pivots and timings.
    Exact(Box<ExactStats>),
    /// The LCP's start, pivots, size and seconds.
    Lcp(Box<LcpStats>),
    /// A hold'em spot's run: equities, expected chips, sizes.
    Spot(Box<crate::solve::spot::SpotRun>),
    /// A river spot solved by the exact LP: the LP's statistics and the spot's fields.
    SpotLp(Box<crate::solve::spot_lp::SpotLp>),
}

/// What the LCP reports.
#[derive(Clone, Debug)]
pub struct LcpStats {
    /// The start it used, in words.
    pub start: String,
    /// The route that found it, in words (float-guided, or the exact tableau and why).
    pub route: String,
    /// Lemke pivots.
    pub pivots: u64,
    /// Rows of the LCP.
    pub rows: usize,
    /// Seconds of the solve, certificate included.
    pub seconds: f64,
    /// The float path's counters in words (`None`: the exact tableau).
    pub path_stats: Option<String>,
}

/// The result of every solve, whatever the family.
pub struct Solved {
    /// The algorithm that ran.
    pub algorithm: &'static Algorithm,
    /// The game's name (its spec, or the name given with it).
    pub spec: String,
    /// The game the door loaded or played (`None` for a sampling run on rules).
    pub game: Option<Game>,
    /// Each player's expected payoff under the strategy (`None` on rules).
    pub values: Option<[Value; 2]>,
    /// The strategy's exploitability (NashConv / 2; exactly 0 for the exact LP).
    pub exploitability: Option<Value>,
    /// The strategy's NashConv.
    pub nash_conv: Option<Value>,
    /// What each player gains by best-responding to the other (NashConv is their sum); for
    /// a general-sum game, whenever the strategy is measured on the arena.
    pub gains: Option<[Value; 2]>,
    /// Iterations in all (0 for the exact LP).
    pub iterations: u64,
    /// Solving time, seconds (measurements excluded; all sessions of a resumed run).
    pub seconds: f64,
    /// Time to set the solver up before its first iteration, seconds (not in `seconds`).
    pub setup_seconds: f64,
    /// Every measurement.
    pub curve: Vec<CurvePoint>,
    /// Why an iterative run stopped.
    pub reason: Option<StopReason>,
    /// The strategy.
    pub strategy: Strategy,
    /// The final CFR strategy evaluated exactly (its floats read as rationals), if asked.
    pub exact_eval: Option<Exploitability<Rational>>,
    /// What only the family reports.
    pub detail: Detail,
    /// The locked sets of the request (`None`: nothing locked); the values and the
    /// exploitability are the locked game's.
    pub lock: Option<Lock>,
}

impl Solved {
    /// Whether the run was stopped by its hooks (a signal, Ctrl-C).
    pub fn interrupted(&self) -> bool {
        self.reason == Some(StopReason::Interrupted)
    }
}

/// What a solve asks of its caller besides [`Hooks`]' progress and interrupts.
pub trait DoorHooks: Hooks {
    /// Loading a game file: `read` of `total` bytes.
    fn loading(&mut self, _read: u64, _total: u64) {}
    /// A warning about the game file.
    fn warning(&mut self, _text: &str) {}
    /// The exact LP's float simplex progress (called from its threads).
    fn lp_progress(&self) -> Option<ProgressFn<'_>> {
        None
    }
}

/// Hooks that do nothing.
pub struct Quiet;

impl Hooks for Quiet {}
impl DoorHooks for Quiet {}

/// Solves `source` as `request` asks: the game's support, then [`check`], then the family's
/// run; see the module documentation.
pub fn solve(
    source: Source<'_>,
    request: &Request,
    spelling: Spelling,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    if let Source::Spot { text, name } = source {
        return crate::solve::spot::solve_spot(text, name, request, spelling, hooks);
    }
    let resumed = read_resume(request)?;
    // The game first: its support is checked before any option.
    let spec: Option<String> = match (&source, &resumed) {
        (Source::Spec(Some(s)), _) => Some(s.to_string()),
        (Source::Spec(None), Resumed::Cfr(c)) => Some(c.game_spec.clone()),
        (Source::Spec(None), Resumed::Sampling { spec, .. }) => Some(spec.clone()),
        (Source::Spec(None), Resumed::None) => {
            return Err(SolveError::Request("give a game".into()))
        }
        (Source::Game { name, .. }, _) | (Source::Spot { name, .. }, _) => Some(name.to_string()),
    };
    // A built-in game stated by rules need not be built (the sampling solvers may play its
    // rules); anything else is loaded now, which checks its support.
    let has_rules = match (&source, &spec) {
        (Source::Spec(_), Some(s)) => crate::games::rules(s)?.is_some(),
        _ => false,
    };
    let sampling_named = algorithm_of(request)
        .ok()
        .flatten()
        .is_some_and(|a| Kind::of(a) == Kind::Sampling);
    // A lock is read against the game's sets, and a checkpoint saved under one resumes on
    // the locked game: the game is built.
    let resumes_locked = matches!(resumed, Resumed::Sampling { .. })
        && request.resume.as_ref().is_some_and(|path| {
            sampling::read_checkpoint_lock(path).is_some_and(|text| !text.is_empty())
        });
    let wants_rules_only = request.lock.is_none()
        && !resumes_locked
        && (sampling_named
            || (request.algo.is_none() && matches!(resumed, Resumed::Sampling { .. })));
    let loaded: Option<Game> = match (&source, &spec) {
        (Source::Spec(_), Some(s)) if !(has_rules && wants_rules_only) => {
            let loaded =
                crate::games::load_with_progress(s, &mut |read, total| hooks.loading(read, total))?;
            for w in &loaded.warnings {
                hooks.warning(w);
            }
            Some(loaded.game)
        }
        _ => None,
    };
    let game: Option<&Game> = match &source {
        Source::Game { game, .. } => Some(game),
        Source::Spec(_) | Source::Spot { .. } => loaded.as_ref(),
    };
    // A general-sum game is solved by the LCP by default; the CFR family and the sampling
    // solvers run on it (each player learns from their own payoffs, no equilibrium
    // guaranteed, each player's gain reported); the exact LP needs a constant-sum game and
    // refuses it for its payoffs, naming lcp, before any option is looked at.
    let defaulted;
    let mut request = request;
    if let Some(g) = game {
        let named = algorithm_of(request).ok().flatten();
        if !g.is_constant_sum() && named.is_none() && request.resume.is_none() {
            defaulted = Request {
                algo: Some("lcp".into()),
                ..request.clone()
            };
            request = &defaulted;
        } else if let Some(a) = named.filter(|a| Kind::of(a) == Kind::ExactLp) {
            g.require_constant_sum(a.name).map_err(Error::from)?;
        }
    }
    let checked = check_resumed(request, spelling, resumed)?;
    let lock = match (&request.lock, game) {
        // A game the caller holds is checked by its sets and actions, and by its name when
        // that is a built-in game's spec (a game read from a file carries its own title, which
        // a lock written by the command line, naming the file, would not match).
        (Some(from), Some(g)) => {
            let named = match &source {
                Source::Spec(_) => spec.as_deref(),
                Source::Game { name, .. } => {
                    crate::games::parse_spec(name).is_ok().then_some(*name)
                }
                Source::Spot { .. } => None,
            };
            Some(read_lock(g, named, from, &checked)?)
        }
        _ => None,
    };
    let mut solved = match checked.kind {
        Kind::Cfr => {
            let game = game.expect("loaded for the CFR family");
            let spec = spec.expect("named");
            let mut solved = run_cfr(game, &spec, checked, lock.as_ref(), hooks)?;
            solved.game = loaded;
            solved
        }
        Kind::ExactLp => {
            let game = game.expect("loaded for the exact LP");
            let spec = spec.expect("named");
            let mut solved = run_exact(game, &spec, &checked, lock.as_ref(), hooks)?;
            solved.game = loaded;
            solved
        }
        Kind::Sampling => run_sampling(
            &source,
            spec.as_deref(),
            loaded,
            &checked,
            lock.as_ref(),
            hooks,
        )?,
        Kind::Lcp => {
            let game = game.expect("loaded for the LCP");
            let spec = spec.expect("named");
            let mut solved = run_lcp(game, &spec, &checked, request.lcp_start.as_deref(), hooks)?;
            solved.game = loaded;
            solved
        }
    };
    solved.lock = lock;
    Ok(solved)
}

/// Reads the request's lock against `game` (named `spec`): every set, action and probability
/// checked, in the caller's spelling. The sampling solvers take a lock on the game's arena
/// without checkpoints.
fn read_lock(
    game: &Game,
    spec: Option<&str>,
    source: &LockSource,
    checked: &Checked,
) -> Result<Lock, SolveError> {
    let sp = checked.spelling;
    let lock = match source {
        LockSource::File(path) => {
            let at = Opt::Lock.with(path.display(), sp);
            let text = std::fs::read_to_string(path)
                .map_err(|e| SolveError::Request(format!("{at}: {e}")))?;
            lock_from_json(game, spec, &text)
                .map_err(|e| SolveError::Request(format!("{at}: {}", e.0)))?
        }
        LockSource::Json(text) => {
            lock_from_json(game, spec, text).map_err(|e| SolveError::Request(e.to_string()))?
        }
    };
    if checked.kind == Kind::Sampling && checked.sampling.engine == Engine::Rules {
        return Err(SolveError::Request(format!(
            "{} with {} is not supported: a locked sampling run plays the game's arena, its \
             locked sets as chance nodes",
            Opt::Lock.spelled(sp),
            Opt::Rules.spelled(sp)
        )));
    }
    Ok(lock)
}

/// The hooks of a CFR run: the caller's, and the door's checkpoint file.
struct CfrHooks<'h> {
    inner: &'h mut dyn DoorHooks,
    checkpoint: Option<PathBuf>,
    every: Duration,
}

impl Hooks for CfrHooks<'_> {
    fn progress(&mut self, progress: Progress<'_>) {
        self.inner.progress(progress)
    }
    fn interrupted(&mut self) -> bool {
        self.inner.interrupted()
    }
    fn checkpoint_every(&self) -> Option<Duration> {
        self.checkpoint.as_ref().map(|_| self.every)
    }
    fn save(&mut self, checkpoint: &Checkpoint) -> Result<(), SaveError> {
        match &self.checkpoint {
            Some(path) => Ok(crate::format::output::write_file(
                path,
                &checkpoint::encode(checkpoint),
            )?),
            None => Ok(()),
        }
    }
}

/// A CFR run's error in the caller's words, naming the checkpoint it resumed.
fn run_error(e: RunError, sp: Spelling, resume: Option<&PathBuf>) -> SolveError {
    let text = match e {
        RunError::OtherSchedule { checkpoint, asked } => format!(
            "the checkpoint measured with {}; give the same (got {asked})",
            Opt::CheckEvery.with(checkpoint, sp)
        ),
        RunError::AlreadyDone { done, goal } => format!(
            "{}: the checkpoint already has {done} iterations ({} is the run's total)",
            Opt::Iterations.with(goal, sp),
            Opt::Iterations.spelled(sp)
        ),
        other => other.to_string(),
    };
    SolveError::Run(match resume {
        Some(path) => format!("checkpoint {}: {text}", path.display()),
        None => text,
    })
}

/// What a run resumed under another lock than its checkpoint's says (`from_none`: the
/// checkpoint had no lock; `locked`: this run has one).
fn warm_start_warning(from_none: bool, locked: bool, sp: Spelling) -> String {
    format!(
        "the checkpoint was saved under {}: resuming {} is a warm start, not the same bits as \
         a fresh run",
        if from_none { "no lock" } else { "another lock" },
        if locked {
            format!("with this {}", Opt::Lock.spelled(sp))
        } else {
            format!("without {}", Opt::Lock.spelled(sp))
        }
    )
}

fn run_cfr(
    game: &Game,
    spec: &str,
    checked: Checked,
    lock: Option<&Lock>,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let resume_path = checked.sampling.resume.clone();
    let setup = std::time::Instant::now();
    let mut run = match checked.resume {
        Some(c) => CfrRun::resume_locked(game, spec, *c, &checked.cfr, lock)
            .map_err(|e| run_error(e, checked.spelling, resume_path.as_ref()))?,
        None => CfrRun::start_locked(game, spec, &checked.cfr, lock)
            .map_err(|e| run_error(e, checked.spelling, None))?,
    };
    if run.warm_start() {
        hooks.warning(&warm_start_warning(
            run.lock_changed_from_none(),
            lock.is_some_and(|l| !l.is_empty()),
            checked.spelling,
        ));
    }
    let setup_seconds = setup.elapsed().as_secs_f64();
    let mut cfr_hooks = CfrHooks {
        inner: hooks,
        checkpoint: checked.checkpoint.clone(),
        every: checked.checkpoint_every,
    };
    let outcome = run
        .run(game, &checked.stop, &mut cfr_hooks)
        .map_err(|e| run_error(e, checked.spelling, resume_path.as_ref()))?;
    if let Some(path) = &checked.checkpoint {
        crate::format::output::write_file(path, &checkpoint::encode(&run.checkpoint()))
            .map_err(|e| SolveError::Run(format!("saving the checkpoint: {e}")))?;
    }
    let average = run.average_profile();
    let current = run.current_profile();
    let eval = exploitability_locked(game, &average, lock);
    let exact_eval = (checked.exact_eval && outcome.reason != StopReason::Interrupted).then(|| {
        let mut exact = average.to_exact(game);
        if let Some(l) = lock {
            l.apply(game, &mut exact);
        }
        exploitability_locked(game, &exact, lock)
    });
    let last = outcome.last().copied();
    Ok(Solved {
        algorithm: run.algorithm(),
        spec: spec.to_string(),
        game: None,
        values: Some([Value::Float(eval.value[0]), Value::Float(eval.value[1])]),
        exploitability: Some(Value::Float(eval.exploitability)),
        nash_conv: Some(Value::Float(eval.nash_conv)),
        gains: Some(eval.gain.map(Value::Float)),
        iterations: run.iterations(),
        seconds: last.map_or(0.0, |p| p.seconds),
        setup_seconds,
        curve: outcome.points,
        reason: Some(outcome.reason),
        strategy: Strategy::Float { average, current },
        exact_eval,
        lock: None,
        detail: Detail::Cfr(Box::new(run)),
    })
}

fn run_exact(
    game: &Game,
    spec: &str,
    checked: &Checked,
    lock: Option<&Lock>,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let lp = &checked.lp;
    let write = |program: &LinearProgram| -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
        if let Some(path) = &lp.write_mps {
            let mut text = Vec::new();
            program.write_mps(&mut text)?;
            crate::format::output::write_file(path, &text)?;
        }
        Ok(())
    };
    let options = ExactOptions {
        lp: SolveOptions {
            method: match lp.method {
                LpMethodChoice::Guided => Method::FloatThenExact,
                LpMethodChoice::Tableau => Method::ExactTableau,
            },
            progress: hooks.lp_progress(),
            max_memory: lp.max_memory,
            reconstruct: true,
        },
        form: lp.form,
        primal: lp.primal,
        threads: Some(checked.threads),
        inspect: Some(&write),
    };
    let s = match lock.filter(|l| !l.is_empty()) {
        None => solve_exact_with(game, &options)?,
        Some(l) => {
            // The locked sets become chance nodes; the answer is read back on the game and
            // certified there by exact best responses of the unlocked sets.
            let chance = l.to_chance(game);
            let mut s = if chance.num_infosets() == 0 {
                // Every set locked: nothing to solve, the value is the lock's.
                let profile = l.to_profile(game);
                crate::exact::ExactSolution {
                    value: crate::eval::expected_value(game, &profile),
                    profile,
                    stats: ExactStats::default(),
                }
            } else {
                solve_exact_with(&chance, &options)?
            };
            s.profile = l.from_chance(game, &s.profile);
            let e = exploitability_locked(game, &s.profile, Some(l));
            if !(num_traits::Zero::is_zero(&e.gain[0])
                && num_traits::Zero::is_zero(&e.gain[1])
                && e.value[0] == s.value)
            {
                return Err(SolveError::Run(format!(
                    "the locked game's exact certificate failed: best responses gain {} and {}",
                    crate::scalar::format_rational(&e.gain[0]),
                    crate::scalar::format_rational(&e.gain[1])
                )));
            }
            s
        }
    };
    let value_p2 = &game.constant_sum - &s.value;
    let zero = Value::Exact(crate::scalar::int(0));
    Ok(Solved {
        algorithm: checked.algorithm,
        spec: spec.to_string(),
        game: None,
        values: Some([Value::Exact(s.value), Value::Exact(value_p2)]),
        exploitability: Some(zero.clone()),
        nash_conv: Some(zero.clone()),
        gains: Some([zero.clone(), zero]),
        iterations: 0,
        seconds: (s.stats.build_time + s.stats.solve_time).as_secs_f64(),
        setup_seconds: 0.0,
        curve: Vec::new(),
        reason: None,
        strategy: Strategy::Exact(s.profile),
        exact_eval: None,
        lock: None,
        detail: Detail::Exact(Box::new(s.stats)),
    })
}

/// The LCP's start from the request's text: `pure:I,J` (reduced pure strategies, 1-based) or
/// a strategy file of the game.
fn lcp_start(game: &Game, text: Option<&str>, sp: Spelling) -> Result<LcpStart, SolveError> {
    let Some(text) = text else {
        // A general-sum game starts from its zero-sum part's equilibrium (raked games are
        // near zero-sum, and the path from there is short); a constant-sum one from the first
        // actions.
        return Ok(if game.is_constant_sum() {
            LcpStart::FirstActions
        } else {
            LcpStart::ZeroSumPart
        });
    };
    let bad = |why: String| SolveError::Request(format!("{}: {why}", Opt::LcpStart.with(text, sp)));
    match text {
        "zero-sum" => return Ok(LcpStart::ZeroSumPart),
        "first" => return Ok(LcpStart::FirstActions),
        _ => {}
    }
    if let Some(pair) = text.strip_prefix("pure:") {
        let parsed: Option<Vec<usize>> = pair.split(',').map(|t| t.trim().parse().ok()).collect();
        let Some(&[i, j]) = parsed.as_deref() else {
            return Err(bad("expected pure:I,J with two numbers from 1".into()));
        };
        if i == 0 || j == 0 {
            return Err(bad("pure strategies are numbered from 1".into()));
        }
        return LcpStart::from_reduced(game, [i - 1, j - 1], LCP_START_STRATEGIES)
            .map_err(|e| bad(e.to_string()));
    }
    let path = std::path::Path::new(text);
    let data = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    let (profile, _) = crate::format::strategy_json::profile_from_json(game, &data)
        .map_err(|e| bad(e.to_string()))?;
    Ok(LcpStart::Profile(profile))
}

/// Most reduced pure strategies per player that `pure:I,J` enumerates to find its pair.
pub const LCP_START_STRATEGIES: usize = 100_000;

fn run_lcp(
    game: &Game,
    spec: &str,
    checked: &Checked,
    start: Option<&str>,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let started = std::time::Instant::now();
    let options = LcpOptions {
        start: lcp_start(game, start, checked.spelling)?,
        max_pivots: None,
        max_memory: checked.lp.max_memory,
        method: match checked.lp.method {
            LpMethodChoice::Guided => crate::lcp::LcpMethod::Guided,
            LpMethodChoice::Tableau => crate::lcp::LcpMethod::Tableau,
        },
    };
    // Both routes poll the caller's interrupt between pivots; an interrupted path is
    // `LcpError::Interrupted`, with nothing to write.
    let s = solve_lcp_with(game, &options, &mut || hooks.interrupted()).map_err(Error::from)?;
    let [v1, v2] = s.value.clone();
    let nash_conv = s.certificate.nash_conv.clone();
    Ok(Solved {
        algorithm: checked.algorithm,
        spec: spec.to_string(),
        game: None,
        values: Some([Value::Exact(v1), Value::Exact(v2)]),
        exploitability: Some(Value::Exact(&nash_conv / crate::scalar::int(2))),
        nash_conv: Some(Value::Exact(nash_conv)),
        gains: Some(s.certificate.gain.clone().map(Value::Exact)),
        iterations: 0,
        seconds: started.elapsed().as_secs_f64(),
        setup_seconds: 0.0,
        curve: Vec::new(),
        reason: None,
        strategy: Strategy::Exact(s.profile),
        exact_eval: None,
        lock: None,
        detail: Detail::Lcp(Box::new(LcpStats {
            start: s.start.describe(),
            route: s.route.describe(),
            pivots: s.pivots,
            rows: s.rows,
            seconds: started.elapsed().as_secs_f64(),
            path_stats: s.path_stats.as_ref().map(crate::lcp::PathStats::describe),
        })),
    })
}

/// The caller's hooks as a sampling run's.
struct SamplingAdapter<'h>(&'h mut dyn DoorHooks);

impl SamplingHooks for SamplingAdapter<'_> {
    fn progress(&mut self, iterations: u64, seconds: f64, exploitability: Option<f64>) {
        let point = exploitability.map(|e| CurvePoint {
            iteration: iterations,
            exploitability: e,
            seconds,
        });
        self.0.progress(Progress {
            iteration: iterations,
            point: point.as_ref(),
        });
    }
    fn interrupted(&mut self) -> bool {
        self.0.interrupted()
    }
}

fn run_sampling(
    source: &Source<'_>,
    spec: Option<&str>,
    loaded: Option<Game>,
    checked: &Checked,
    lock: Option<&Lock>,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let mut adapter = SamplingAdapter(hooks);
    let request = &checked.sampling;
    let played: Option<&Game> = match source {
        Source::Game { game, .. } => Some(game),
        Source::Spec(_) | Source::Spot { .. } => loaded.as_ref(),
    };
    // A locked run, or a resumed one whose checkpoint was locked, plays the locked game.
    let unlocked = Lock::default();
    let lock = lock.filter(|l| !l.is_empty());
    let saved = request
        .resume
        .as_ref()
        .and_then(|path| sampling::read_checkpoint_lock(path));
    if let (Some(g), true) = (
        played,
        lock.is_some() || saved.as_ref().is_some_and(|t| !t.is_empty()),
    ) {
        let l = lock.unwrap_or(&unlocked);
        if let Some(saved) = saved.filter(|t| *t != l.canonical(g)) {
            let warning = warm_start_warning(saved.is_empty(), lock.is_some(), checked.spelling);
            adapter.0.warning(&warning);
        }
        let name = spec.expect("a played game has a name");
        let outcome = sampling::solve_locked(g, l, name, request, &mut adapter)?;
        return Ok(sampled(outcome, loaded, source));
    }
    let outcome = match (source, &loaded) {
        (Source::Game { game, name }, _) => {
            sampling::solve_game(game, name, request, &mut adapter)?
        }
        (Source::Spec(_), Some(game)) => {
            let name = spec.expect("a loaded game has a spec");
            if request.engine == Engine::Rules {
                return Err(SolveError::Request(format!(
                    "{name} has no rules stated in bluff; play its arena (the default engine)"
                )));
            }
            sampling::solve_game(game, name, request, &mut adapter)?
        }
        (Source::Spec(_), None) => sampling::solve_spec(spec, request, &mut adapter)?,
        (Source::Spot { .. }, _) => unreachable!("spots are solved by solve_spot"),
    };
    Ok(sampled(outcome, loaded, source))
}

/// A sampling run's outcome as a [`Solved`] (`loaded`: the game the door built).
fn sampled(mut outcome: SamplingOutcome, loaded: Option<Game>, source: &Source<'_>) -> Solved {
    let game = loaded.or_else(|| outcome.game.take());
    let played: Option<&Game> = match source {
        Source::Game { game, .. } => Some(game),
        Source::Spec(_) | Source::Spot { .. } => game.as_ref(),
    };
    // A general-sum game's gains come from one evaluation of the final average.
    let general = match (&outcome.profiles, played) {
        (Some((average, _)), Some(g)) if !g.is_constant_sum() => Some(exploitability(g, average)),
        _ => None,
    };
    let (strategy, values) = match (&outcome.profiles, played, &outcome.labelled) {
        (Some((average, current)), Some(g), _) => {
            let [v, v2] = match &general {
                Some(e) => e.value,
                None => {
                    let v = crate::eval::expected_value(g, average);
                    [v, rational_to_f64(&g.constant_sum) - v]
                }
            };
            (
                Strategy::Float {
                    average: average.clone(),
                    current: current.clone(),
                },
                Some([Value::Float(v), Value::Float(v2)]),
            )
        }
        (_, _, Some(labelled)) => (Strategy::Labelled(labelled.clone()), None),
        _ => (Strategy::None, None),
    };
    let curve = outcome
        .curve
        .iter()
        .map(|&(iteration, exploitability, seconds)| CurvePoint {
            iteration,
            exploitability,
            seconds,
        })
        .collect();
    Solved {
        algorithm: outcome.algorithm,
        spec: outcome.spec.clone(),
        game,
        values,
        exploitability: match &general {
            Some(e) => Some(Value::Float(e.exploitability)),
            None => outcome.exploitability.map(Value::Float),
        },
        nash_conv: match &general {
            Some(e) => Some(Value::Float(e.nash_conv)),
            None => outcome.exploitability.map(|e| Value::Float(2.0 * e)),
        },
        gains: general.as_ref().map(|e| e.gain.map(Value::Float)),
        iterations: outcome.iterations,
        seconds: outcome.solve_seconds,
        setup_seconds: 0.0,
        curve,
        reason: Some(if outcome.interrupted {
            StopReason::Interrupted
        } else {
            StopReason::Iterations
        }),
        strategy,
        exact_eval: None,
        lock: None,
        detail: Detail::Sampling(Box::new(outcome)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kuhn(request: &Request, sp: Spelling) -> Result<Solved, SolveError> {
        solve(Source::Spec(Some("kuhn")), request, sp, &mut Quiet)
    }

    fn refused(request: &Request, sp: Spelling) -> String {
        match kuhn(request, sp) {
            Ok(_) => panic!("{request:?} was accepted"),
            Err(e) => e.to_string(),
        }
    }

    /// Every option of the table has a distinct spelling in each front end.
    #[test]
    fn spellings_are_distinct() {
        for sp in [Spelling::Cli, Spelling::Python] {
            let mut names: Vec<String> = RULES.iter().map(|r| r.opt.spelled(sp)).collect();
            let n = names.len();
            names.sort();
            names.dedup();
            assert_eq!(names.len(), n, "{sp:?}");
        }
        assert_eq!(Opt::MaxMemory.spelled(Spelling::Cli), "--max-memory");
        assert_eq!(Opt::MaxMemory.spelled(Spelling::Python), "max_memory=");
    }

    /// An option that does not apply is refused naming it in the caller's words.
    #[test]
    fn an_option_that_does_not_apply_is_refused_in_each_spelling() {
        let r = Request {
            algo: Some("lp".into()),
            kernel: Some(Kernel::Sequence),
            ..Default::default()
        };
        assert_eq!(
            refused(&r, Spelling::Cli),
            "--kernel does not apply to lp; it applies to the CFR family"
        );
        assert_eq!(
            refused(&r, Spelling::Python),
            "kernel= does not apply to lp; it applies to the CFR family"
        );
    }

    /// A target of 0 and a time of 0 are refused before any work; beta may be negative.
    #[test]
    fn ranges_follow_the_methods() {
        let zero = Request {
            target: Some(0.0),
            iterations: Some(10),
            ..Default::default()
        };
        assert!(refused(&zero, Spelling::Python).starts_with("target=0: expected a positive"));
        let time = Request {
            time: Some(0.0),
            ..Default::default()
        };
        assert!(refused(&time, Spelling::Cli).starts_with("--time 0: expected seconds"));
        let beta = Request {
            algo: Some("dcfr".into()),
            beta: Some(-1.0),
            iterations: Some(20),
            threads: Some(1),
            ..Default::default()
        };
        let solved = kuhn(&beta, Spelling::Cli).unwrap();
        let Detail::Cfr(run) = &solved.detail else {
            panic!("a CFR run")
        };
        assert_eq!(run.params().beta, -1.0);
        assert_eq!(solved.iterations, 20);
    }

    /// The result carries one value per player; the exact LP's are Kuhn's -1/18 and 1/18.
    #[test]
    fn one_value_per_player() {
        let r = Request {
            algo: Some("lp".into()),
            ..Default::default()
        };
        let solved = kuhn(&r, Spelling::Cli).unwrap();
        let v = solved.values.unwrap();
        assert_eq!(
            v[0],
            Value::Exact(crate::scalar::parse_rational("-1/18").unwrap())
        );
        assert_eq!(
            v[1],
            Value::Exact(crate::scalar::parse_rational("1/18").unwrap())
        );
        assert_eq!(
            solved.exploitability,
            Some(Value::Exact(crate::scalar::int(0)))
        );
    }
}
