//! Solving a game as well as a budget allows, for a caller that wants a good strategy and
//! no decisions: exactly by the sequence-form LP where it fits ([`LP_MAX_SEQUENCES`]), else by
//! the registry's default CFR algorithm until a target exploitability or a time limit. The
//! report uses it for a game given without a strategy, and for the exact value beside a CFR
//! run's strategy.

use crate::exact::{solve_exact_with, ExactError, ExactOptions, ExactSolution};
use crate::game::Game;
use crate::lp::{Method, ProgressFn, SolveOptions};
use crate::scalar::Rational;
use crate::solve::registry::{self, Algorithm};
use crate::solve::run::{CfrRequest, CfrRun, NoHooks, Outcome, RunError, StopRule, Target};
use crate::solve::Threads;
use crate::strategy::Profile;
use std::time::{Duration, Instant};

/// Games with at most this many sequences (both players together) are solved by the exact
/// LP (Leduc has 2186).
pub const LP_MAX_SEQUENCES: usize = 2500;

/// Whether [`best_effort`] uses the exact LP on this game (by its size in sequences).
pub fn lp_fits(game: &Game) -> bool {
    game.num_sequences(0) + game.num_sequences(1) <= LP_MAX_SEQUENCES
}

/// The budget of [`best_effort`].
#[derive(Clone, Copy)]
pub struct Budget<'a> {
    /// The CFR run stops at this exploitability as a fraction of the payoff range...
    pub target_relative: f64,
    /// ... or after this much solving time.
    pub time_limit: Duration,
    /// Worker threads.
    pub threads: Threads,
    /// Follows the exact LP's float simplex.
    pub progress: Option<ProgressFn<'a>>,
}

impl Default for Budget<'_> {
    fn default() -> Self {
        Budget {
            target_relative: 1e-3,
            time_limit: Duration::from_secs(300),
            threads: Threads::Available,
            progress: None,
        }
    }
}

/// What [`best_effort`] found.
#[derive(Debug)]
pub enum BestEffort {
    /// An exact, certified equilibrium.
    Exact {
        /// The solution.
        solution: Box<ExactSolution>,
        /// Wall time of the solve.
        seconds: f64,
    },
    /// The average strategy of a CFR run.
    Approximate {
        /// The algorithm that ran.
        algorithm: &'static Algorithm,
        /// Its average strategy.
        profile: Profile<f64>,
        /// Its measurements; the last is the strategy's exploitability.
        outcome: Outcome,
        /// Whether the target was reached (else the time limit stopped it).
        target_reached: bool,
    },
}

/// Why [`best_effort`] failed.
#[derive(Debug, thiserror::Error)]
pub enum BestEffortError {
    /// The exact LP failed.
    #[error(transparent)]
    Exact(#[from] ExactError),
    /// The CFR run failed.
    #[error(transparent)]
    Run(#[from] RunError),
}

fn exact_options(progress: Option<ProgressFn>, threads: Threads) -> ExactOptions {
    ExactOptions {
        lp: SolveOptions {
            progress,
            ..SolveOptions::new(Method::FloatThenExact)
        },
        threads: match threads {
            Threads::Available => None,
            Threads::Exactly(n) => Some(n),
        },
        ..Default::default()
    }
}

/// Solves `game` (named `spec`) within `budget`; see the module documentation.
pub fn best_effort(
    game: &Game,
    spec: &str,
    budget: &Budget,
) -> Result<BestEffort, BestEffortError> {
    if lp_fits(game) {
        let start = Instant::now();
        let solution = solve_exact_with(game, &exact_options(budget.progress, budget.threads))?;
        return Ok(BestEffort::Exact {
            solution: Box::new(solution),
            seconds: start.elapsed().as_secs_f64(),
        });
    }
    let algorithm = registry::default_algorithm();
    let request = CfrRequest {
        algorithm: Some(algorithm),
        threads: budget.threads,
        ..Default::default()
    };
    let mut run = CfrRun::start(game, spec, &request)?;
    let stop = StopRule {
        max_iterations: None,
        target: Some(Target::FractionOfRange(budget.target_relative)),
        time: Some(budget.time_limit),
    };
    let outcome = run.run(game, &stop, &mut NoHooks)?;
    let (lo, hi) = game.payoff_range();
    let target_reached = outcome
        .last()
        .is_some_and(|p| p.exploitability <= budget.target_relative * (hi - lo));
    Ok(BestEffort::Approximate {
        algorithm,
        profile: run.average_profile(),
        outcome,
        target_reached,
    })
}

/// The game value by the exact LP where it fits ([`lp_fits`]), else `None`.
pub fn exact_value(
    game: &Game,
    progress: Option<ProgressFn>,
) -> Result<Option<Rational>, ExactError> {
    if !lp_fits(game) {
        return Ok(None);
    }
    Ok(Some(
        solve_exact_with(game, &exact_options(progress, Threads::Available))?.value,
    ))
}
