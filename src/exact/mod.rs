//! Exact equilibria: the one door to the exact solver, as microlp has two entry points —
//! [`solve_exact`] with the defaults and [`solve_exact_with`] with [`ExactOptions`].
//!
//! A game's sequence-form LP ([`crate::exact::sequence_form`]) is built, checked against the
//! memory budget before anything large is allocated, solved exactly ([`crate::lp`]:
//! a float simplex proposes a basis, rational arithmetic certifies it), turned into
//! behavioural strategies, and certified once more, independently of the LP, by exact best
//! responses on the game tree ([`crate::exact::plan_certificate`]): NashConv must be exactly
//! 0 and both values must equal the LP's objective, or the call fails. Nothing uncertified is
//! returned.

pub mod plan_certificate;
pub mod sequence_form;
pub(crate) mod terminal_weights;

use crate::exact::sequence_form::{behavioural_from_plan, build, check_memory, LpForm, LpPrimal};
use crate::game::Game;
use crate::lp::{LinearProgram, LpError, LpStats, Method, SolveOptions};
use crate::scalar::Rational;
use crate::strategy::{ExactProfile, Profile};
use std::time::{Duration, Instant};

/// An exact equilibrium with its certificate.
#[derive(Clone, Debug)]
pub struct ExactSolution {
    /// The game value for player 0 (player 1 gets `constant_sum - value`).
    pub value: Rational,
    /// Equilibrium behavioural strategies of both players (uniform at sets the player's own
    /// earlier choices never reach).
    pub profile: ExactProfile,
    /// Sizes, pivots and timings.
    pub stats: ExactStats,
}

/// Counts and timings of an exact solve.
#[derive(Clone, Debug, Default)]
pub struct ExactStats {
    /// Sequences per player (empty sequence included).
    pub sequences: [usize; 2],
    /// LP variables.
    pub lp_vars: usize,
    /// LP constraint rows.
    pub lp_rows: usize,
    /// The player whose maximin program was solved (0 or 1).
    pub lp_primal: usize,
    /// Non-zero entries of the payoff matrix `A`.
    pub payoff_nonzeros: usize,
    /// Simplex counts.
    pub lp: LpStats,
    /// Time to build the LP.
    pub build_time: Duration,
    /// Time to solve it exactly.
    pub solve_time: Duration,
    /// Time of the exact best-response certificate.
    pub certify_time: Duration,
}

/// A callback handed the built program before it is solved (untimed): `bluff solve
/// --write-mps` writes it there rather than build it a second time.
pub type InspectFn<'a> =
    &'a (dyn Fn(&LinearProgram) -> Result<(), Box<dyn std::error::Error + Send + Sync>> + Sync);

/// How [`solve_exact_with`] solves.
#[derive(Clone, Copy)]
pub struct ExactOptions<'a> {
    /// The LP solver's options: method, memory budget, progress.
    pub lp: SolveOptions<'a>,
    /// Which form of the sequence-form LP to build.
    pub form: LpForm,
    /// Whose maximin program to build (the other player's plan is its duals).
    pub primal: LpPrimal,
    /// Worker threads of the float simplex's large pivots and of the certificate (their
    /// results never depend on it); `None`: the calling thread's pool (rayon's global pool
    /// outside one).
    pub threads: Option<usize>,
    /// Sees the built program before it is solved.
    pub inspect: Option<InspectFn<'a>>,
}

impl std::fmt::Debug for ExactOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExactOptions")
            .field("lp", &self.lp)
            .field("form", &self.form)
            .field("primal", &self.primal)
            .field("threads", &self.threads)
            .field("inspect", &self.inspect.is_some())
            .finish()
    }
}

impl Default for ExactOptions<'_> {
    fn default() -> Self {
        ExactOptions {
            lp: SolveOptions::new(Method::FloatThenExact),
            form: LpForm::Merged,
            primal: LpPrimal::Auto,
            threads: None,
            inspect: None,
        }
    }
}

/// Why an exact solve failed.
#[derive(Debug, thiserror::Error)]
pub enum ExactError {
    /// The LP's estimated memory is over the budget (checked before building it).
    #[error("planning the sequence-form LP: {0}")]
    TooBig(LpError),
    /// The exact LP solver failed (a budget met later, an invalid program).
    #[error("solving the sequence-form LP: {0}")]
    Lp(LpError),
    /// The inspect callback failed.
    #[error("{0}")]
    Inspect(Box<dyn std::error::Error + Send + Sync>),
    /// The worker threads could not be started.
    #[error("starting {threads} worker threads: {message}")]
    Threads {
        /// Threads asked for.
        threads: usize,
        /// The system's reason.
        message: String,
    },
    /// A result that fails its own exact certificate: a bug, reported rather than returned.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Solves a game exactly with the default options (the float-guided exact simplex on the
/// merged LP, the default memory budget, no progress).
pub fn solve_exact(game: &Game) -> Result<ExactSolution, ExactError> {
    solve_exact_with(game, &ExactOptions::default())
}

/// Solves a game exactly with `options`, then certifies the result with exact best
/// responses; see the module documentation.
pub fn solve_exact_with(game: &Game, options: &ExactOptions) -> Result<ExactSolution, ExactError> {
    match options.threads {
        None => solve_here(game, options),
        Some(threads) => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| ExactError::Threads {
                threads,
                message: e.to_string(),
            })?
            .install(|| solve_here(game, options)),
    }
}

fn solve_here(game: &Game, options: &ExactOptions) -> Result<ExactSolution, ExactError> {
    let primal = options.primal.player(game);
    check_memory(game, &options.lp, primal).map_err(ExactError::TooBig)?;
    let start = Instant::now();
    let sf = build(
        game,
        options.form,
        options.lp.method == Method::FloatThenExact,
        primal,
    );
    let build_time = start.elapsed();
    if let Some(inspect) = options.inspect {
        inspect(&sf.lp).map_err(ExactError::Inspect)?;
    }
    let start = Instant::now();
    let (solution, lp_stats) = sf.lp.solve_with(&options.lp).map_err(|e| match e {
        LpError::Infeasible | LpError::Unbounded => ExactError::Internal(format!(
            "the sequence-form LP is reported {e}; a finite game always has a solution"
        )),
        other => ExactError::Lp(other),
    })?;
    let solve_time = start.elapsed();
    let [plan0, plan1] = sf.plans(&solution);
    let profile = Profile {
        probs: [
            behavioural_from_plan(game, 0, &plan0),
            behavioural_from_plan(game, 1, &plan1),
        ],
    };
    let value = sf.value_for_player_0(&solution.objective);
    let start = Instant::now();
    // Exact best responses, walked on the game tree in integers (the profile is first checked
    // to play the LP's plans exactly).
    let plans = [plan0.as_slice(), plan1.as_slice()];
    let check = plan_certificate::evaluate(game, &profile, plans)
        .map_err(|e| ExactError::Internal(format!("the LP equilibrium: {e}")))?;
    let certify_time = start.elapsed();
    if check.value != value || check.best_response_0 != value || check.best_response_1 != value {
        return Err(ExactError::Internal(format!(
            "the LP equilibrium failed its exact best-response check (NashConv {})",
            check.nash_conv()
        )));
    }
    Ok(ExactSolution {
        value,
        profile,
        stats: ExactStats {
            sequences: sf.sequences,
            lp_vars: sf.lp.num_vars(),
            lp_rows: sf.lp.num_constraints(),
            lp_primal: sf.primal(),
            payoff_nonzeros: sf.payoff_nonzeros,
            lp: lp_stats,
            build_time,
            solve_time,
            certify_time,
        },
    })
}
