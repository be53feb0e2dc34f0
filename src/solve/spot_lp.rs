//! The door's exact route for hold'em spots: `--algo lp` (and `lcp`) on a river spot. The
//! spot is sized from its tree and ranges against the memory budget, built as an ordinary
//! game ([`crate::holdem::river_lp`]) and solved there as any game is, through the door's
//! own checks, so the LP's options (`--lp-method`, `--lp-form`, `--lp-primal`,
//! `--write-mps`, `--max-memory`, `--threads`) behave as on any game.

use super::door::Strategy;
use super::door::{
    self, Detail, DoorHooks, LcpStats, Opt, Request, SolveError, Solved, Source, Spelling,
};
use super::registry::{Algorithm, Family};
use super::spot::Returned;
use crate::exact::ExactStats;
use crate::holdem::reference::{Reference, SetPlace};
use crate::holdem::river_lp::{self, RiverLpError, RiverSize};
use crate::holdem::spot::Spot;
use crate::holdem::tree::Tree;
use crate::lp::Method;
use crate::scalar::Rational;

/// Which exact solver ran on a spot, with its own statistics.
#[derive(Clone, Debug)]
pub enum SpotExactStats {
    /// The exact LP (a constant-sum spot): sizes, pivots and timings.
    Lp(ExactStats),
    /// The LCP (a raked spot, or any with `--algo lcp`): start, route, pivots.
    Lcp(LcpStats),
}

/// What a spot's exact run (LP or LCP) reports besides the solver's own statistics.
#[derive(Clone, Debug)]
pub struct SpotLp {
    /// The solver's statistics.
    pub stats: SpotExactStats,
    /// The starting pot, chips.
    pub pot: i64,
    /// Each player's EV in chips under the equilibrium (OOP, IP), exactly.
    pub root_ev: [Rational; 2],
    /// Each player's share of the pot if both checked down, exactly.
    pub root_equity: [Rational; 2],
    /// Combos, pairs, game nodes, sequences and the LP's size, counted before building.
    pub size: RiverSize,
    /// The equilibrium as the spot's evaluator plays it (probabilities rounded to `f64`),
    /// kept when the front end writes the strategy (`-o`).
    pub returned: Option<Returned>,
    /// The spot's public tree, as the game ([`Solved::game`]) was built from it.
    pub tree: Tree,
    /// Where each information set of the game sits in the spot (per player, by set id), so
    /// a front end finds the equilibrium's nodes by path without building the game again.
    pub places: [Vec<SetPlace>; 2],
}

impl SpotLp {
    /// The spot built as a game again from `game` (the [`Solved::game`] of this run), with
    /// the tree and set places this run kept.
    pub fn reference(&self, game: crate::game::Game) -> Reference {
        Reference {
            game,
            tree: self.tree.clone(),
            places: self.places.clone(),
            pot: self.pot,
        }
    }
}

/// Solves the river spot `spot` (named `name`) by the exact LP or the LCP (`algorithm`).
pub(crate) fn solve_spot_exact(
    spot: &Spot,
    name: &str,
    algorithm: &'static Algorithm,
    request: &Request,
    sp: Spelling,
    hooks: &mut dyn DoorHooks,
) -> Result<Solved, SolveError> {
    let named = |e: RiverLpError| SolveError::Request(format!("{name}: {e}"));
    if spot.board.len() != 5 {
        return Err(named(RiverLpError::NotRiver(spot.board.len())));
    }
    for opt in [Opt::Report, Opt::Lock, Opt::Curve, Opt::Plot] {
        if request.given(opt) {
            return Err(SolveError::Request(format!(
                "{} does not apply to hold'em spots: not built for spots yet",
                opt.spelled(sp)
            )));
        }
    }
    // Every option checked as for any game before the spot is built.
    let checked = door::check(request, sp)?;
    let method = match checked.lp.method {
        door::LpMethodChoice::Guided => Method::FloatThenExact,
        door::LpMethodChoice::Tableau => Method::ExactTableau,
    };
    let (reference, size) = river_lp::build(spot, checked.lp.max_memory, method).map_err(named)?;
    if algorithm.family == Family::ExactLp && !reference.game.is_constant_sum() {
        return Err(named(RiverLpError::Raked));
    }
    let mut solved = door::solve(
        Source::Game {
            game: &reference.game,
            name,
        },
        request,
        sp,
        hooks,
    )?;
    let stats = match &solved.detail {
        Detail::Exact(stats) => SpotExactStats::Lp((**stats).clone()),
        Detail::Lcp(stats) => SpotExactStats::Lcp((**stats).clone()),
        _ => {
            return Err(SolveError::Run(format!(
                "{} returned no exact statistics",
                algorithm.name
            )))
        }
    };
    let Some([door::Value::Exact(a), door::Value::Exact(b)]) = &solved.values else {
        return Err(SolveError::Run(format!(
            "{} returned no exact values",
            algorithm.name
        )));
    };
    let root_ev = [a.clone(), b.clone()];
    let returned = match (&solved.strategy, request.given(Opt::Output)) {
        (Strategy::Exact(profile), true) => {
            let solver = river_lp::profile_solver(
                spot,
                &reference,
                profile,
                super::spot::spot_threads(request, sp)?,
            )
            .map_err(named)?;
            Some(Returned {
                spot: spot.clone(),
                solver: std::sync::Arc::new(solver),
            })
        }
        _ => None,
    };
    let run = SpotLp {
        stats,
        pot: reference.pot,
        root_ev,
        root_equity: river_lp::check_down_equity(&reference),
        size,
        returned,
        tree: reference.tree,
        places: reference.places,
    };
    solved.detail = Detail::SpotLp(Box::new(run));
    solved.game = Some(reference.game);
    Ok(solved)
}
