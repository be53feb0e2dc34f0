//! The values of `bluff solve --algo lp`'s options (`--lp-method`, `--lp-form`,
//! `--lp-primal`); the solve layer's door (`bluff::solve::door`) runs the LP.

use clap::ValueEnum;

/// Simplex method for `bluff solve --algo lp`.
#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum LpMethod {
    /// Sparse float simplex finds the basis; exact LU verifies it, exact pivots repair it.
    Guided,
    /// Dense exact tableau with Bland's rule (slow; for small games and cross-checks).
    Tableau,
}

/// The LP form of `bluff solve --algo lp --lp-form`.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum LpFormArg {
    /// One-action information sets' sequences merged into their parents' (fewer rows).
    #[default]
    Merged,
    /// One variable or row per sequence (Koller, Megiddo and von Stengel).
    Textbook,
}

/// Whose maximin LP `bluff solve --algo lp --lp-primal` solves.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum LpPrimalArg {
    /// P2's from 10 000 rows on (measured faster on the large games), else P1's.
    #[default]
    Auto,
    /// The first player's: its strategy is the LP's variables, P2's the duals.
    P1,
    /// The second player's: its strategy is the LP's variables, P1's the duals.
    P2,
}
