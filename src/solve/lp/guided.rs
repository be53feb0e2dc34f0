//! Float-guided exact simplex: the sparse float simplex ([`super::revised`]) proposes a basis;
//! its solution is first refined and reconstructed as rationals ([`super::refine`]); if that
//! fails or the basis is not optimal, this module recomputes the
//! basic solution and the duals exactly (sparse rational LU), checks primal and dual
//! feasibility exactly, and pivots exactly from there until the basis is provably optimal.
//!
//! Exact pivots use Bland's rule (primal simplex, when the basis is primal feasible) or the
//! dual simplex with a smallest-index rule (when it is only dual feasible). If the float
//! simplex fails, or the basis is neither, the dense exact tableau solves from scratch when
//! its memory estimate fits the budget (otherwise the solve fails with a clear error): the
//! result is always exact; floats only save time.

use super::lu::ExactLu;
use super::memory;
use super::refine;
use super::revised::{self, FloatOutcome};
use super::tableau;
use super::{ExactRoute, LpError, LpStats, SolveOptions, StandardForm};
use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};
use std::time::Instant;

/// Solves `sf` exactly; returns the standard-form optimum `x` and duals `y`.
pub(crate) fn solve(
    sf: &StandardForm,
    stats: &mut LpStats,
    options: &SolveOptions,
) -> Result<(Vec<Rational>, Vec<Rational>), LpError> {
    let start = Instant::now();
    let outcome = revised::solve(sf, options.progress);
    stats.float_time = start.elapsed();
    let start = Instant::now();
    let result = finish(sf, stats, outcome, options);
    stats.exact_time = start.elapsed();
    result
}

fn finish(
    sf: &StandardForm,
    stats: &mut LpStats,
    outcome: FloatOutcome,
    options: &SolveOptions,
) -> Result<(Vec<Rational>, Vec<Rational>), LpError> {
    let (basis, why) = match outcome {
        FloatOutcome::Optimal { basis, pivots } | FloatOutcome::Unbounded { basis, pivots } => {
            stats.float_pivots = pivots;
            (Some(complete_basis(sf, basis)), String::new())
        }
        FloatOutcome::Infeasible { pivots } => {
            stats.float_pivots = pivots;
            (
                None,
                "the float simplex reports the program infeasible".to_string(),
            )
        }
        FloatOutcome::Stalled { reason } => (None, reason),
    };
    if let Some(Some(basis)) = basis {
        if options.reconstruct {
            let (solution, rounds) = refine::solve_basis(sf, &basis);
            stats.refinement_rounds = rounds;
            if let Some(s) = solution {
                stats.route = ExactRoute::Reconstruction;
                return Ok((s.x, s.y));
            }
        }
        match exact_from_basis(sf, basis, stats) {
            Ok(result) => {
                stats.route = ExactRoute::ExactLu;
                return Ok(result);
            }
            Err(Fallback::Final(err)) => return Err(err),
            Err(Fallback::Restart) => {}
        }
    }
    // The exact answer (or the exact proof of infeasibility) comes from the dense tableau,
    // which is only attempted when it fits the budget.
    let size = memory::LpSize {
        rows: sf.rows,
        cols: sf.cols.len(),
        nonzeros: sf.cols.iter().map(Vec::len).sum(),
    };
    let method = if why.is_empty() {
        "dense exact tableau (the float basis could not be repaired exactly)"
    } else {
        "dense exact tableau (the float simplex gave no optimal basis)"
    };
    options.check(size, method, memory::tableau_bytes(size))?;
    stats.tableau_fallback = true;
    stats.route = ExactRoute::Tableau;
    let (x, y, pivots) = tableau::solve(sf)?;
    stats.exact_pivots += pivots;
    Ok((x, y))
}

/// Fills rows whose float basis holds an artificial variable with a slack of that row or,
/// failing that, any non-basic column (the exact LU then decides whether the basis is usable).
fn complete_basis(sf: &StandardForm, basis: Vec<Option<usize>>) -> Option<Vec<usize>> {
    if basis.iter().all(Option::is_some) {
        return basis.into_iter().collect();
    }
    let mut used = vec![false; sf.cols.len()];
    for j in basis.iter().flatten() {
        used[*j] = true;
    }
    let mut out = Vec::with_capacity(basis.len());
    for (i, b) in basis.into_iter().enumerate() {
        let j = match b {
            Some(j) => j,
            None => {
                (0..sf.cols.len()).find(|&j| !used[j] && sf.cols[j].iter().any(|(r, _)| *r == i))?
            }
        };
        used[j] = true;
        out.push(j);
    }
    Some(out)
}

/// Degenerate exact pivots in a row after which Bland's rule replaces Dantzig's.
const BLAND_AFTER: usize = 50;

enum Fallback {
    /// An exact, final answer (unbounded or infeasible proven by exact pivots).
    Final(LpError),
    /// The basis could not be used; solve from scratch.
    Restart,
}

fn exact_from_basis(
    sf: &StandardForm,
    mut basis: Vec<usize>,
    stats: &mut LpStats,
) -> Result<(Vec<Rational>, Vec<Rational>), Fallback> {
    let m = sf.rows;
    let n = sf.cols.len();
    let limit = 10 * (m + n) + 100;
    let mut degenerate_run = 0usize;
    let mut is_basic = vec![false; n];
    for &j in &basis {
        if is_basic[j] {
            return Err(Fallback::Restart);
        }
        is_basic[j] = true;
    }
    for _ in 0..limit {
        let cols: Vec<&[(usize, Rational)]> =
            basis.iter().map(|&j| sf.cols[j].as_slice()).collect();
        let lu = ExactLu::factor(m, &cols).map_err(|_| Fallback::Restart)?;
        stats.exact_factorizations += 1;
        let xb = lu.solve(&sf.b);
        let cb: Vec<Rational> = basis.iter().map(|&j| sf.cost[j].clone()).collect();
        let y = lu.solve_transposed(&cb);
        let reduced = |j: usize| -> Rational {
            let mut d = sf.cost[j].clone();
            for (i, v) in &sf.cols[j] {
                if !y[*i].is_zero() {
                    d -= v * &y[*i];
                }
            }
            d
        };
        let primal_feasible = xb.iter().all(|v| !v.is_negative());
        if primal_feasible {
            // Dantzig's rule (the largest reduced cost enters) converges in far fewer pivots
            // than Bland's from a nearly optimal float basis; after a run of degenerate pivots
            // Bland's smallest-index rule takes over, which cannot cycle.
            let entering = if degenerate_run < BLAND_AFTER {
                let mut best: Option<(usize, Rational)> = None;
                for j in (0..n).filter(|&j| !is_basic[j]) {
                    let d = reduced(j);
                    if d.is_positive() && best.as_ref().is_none_or(|(_, b)| d > *b) {
                        best = Some((j, d));
                    }
                }
                best.map(|(j, _)| j)
            } else {
                (0..n).find(|&j| !is_basic[j] && reduced(j).is_positive())
            };
            let Some(q) = entering else {
                let mut x = vec![Rational::zero(); n];
                for (k, &j) in basis.iter().enumerate() {
                    x[j] = xb[k].clone();
                }
                return Ok((x, y));
            };
            let alpha = lu.solve(&column_dense(sf, q));
            let mut leave: Option<(usize, Rational)> = None;
            for k in 0..m {
                if alpha[k].is_positive() {
                    let ratio = &xb[k] / &alpha[k];
                    let better = match &leave {
                        None => true,
                        Some((lk, lr)) => ratio < *lr || (ratio == *lr && basis[k] < basis[*lk]),
                    };
                    if better {
                        leave = Some((k, ratio));
                    }
                }
            }
            let Some((k, ratio)) = leave else {
                return Err(Fallback::Final(LpError::Unbounded));
            };
            if ratio.is_zero() {
                degenerate_run += 1;
            } else {
                degenerate_run = 0;
            }
            is_basic[basis[k]] = false;
            is_basic[q] = true;
            basis[k] = q;
        } else {
            let d: Vec<Option<Rational>> =
                (0..n).map(|j| (!is_basic[j]).then(|| reduced(j))).collect();
            if d.iter().flatten().any(|v| v.is_positive()) {
                return Err(Fallback::Restart);
            }
            // Dual simplex: the infeasible basic variable with the smallest index leaves.
            let k = (0..m)
                .filter(|&k| xb[k].is_negative())
                .min_by_key(|&k| basis[k])
                .expect("some basic value is negative");
            let mut e = vec![Rational::zero(); m];
            e[k] = Rational::one();
            let rho = lu.solve_transposed(&e);
            let mut enter: Option<(usize, Rational)> = None;
            for j in 0..n {
                let Some(dj) = &d[j] else { continue };
                let a: Rational = sf.cols[j].iter().map(|(i, v)| v * &rho[*i]).sum();
                if a.is_negative() {
                    let ratio = dj / &a;
                    if enter.as_ref().is_none_or(|(_, r)| ratio < *r) {
                        enter = Some((j, ratio));
                    }
                }
            }
            let Some((q, _)) = enter else {
                return Err(Fallback::Final(LpError::Infeasible));
            };
            is_basic[basis[k]] = false;
            is_basic[q] = true;
            basis[k] = q;
        }
        stats.exact_pivots += 1;
    }
    Err(Fallback::Restart)
}

fn column_dense(sf: &StandardForm, j: usize) -> Vec<Rational> {
    let mut out = vec![Rational::zero(); sf.rows];
    for (i, v) in &sf.cols[j] {
        out[*i] = v.clone();
    }
    out
}
