//! Float-guided exact simplex: the sparse float simplex ([`super::revised`]) proposes a basis;
//! its solution is first refined and reconstructed as rationals ([`super::refine`]); if that
//! fails or the basis is not optimal, this module recomputes the
//! basic solution and the duals exactly (sparse rational LU), checks primal and dual
//! feasibility exactly, and pivots exactly from there until the basis is provably optimal.
//!
//! Exact pivots use Dantzig's rule, then Bland's after a run of degenerate pivots (primal
//! simplex, when the basis is primal feasible), or the dual simplex with a smallest-index rule
//! (when it is only dual feasible). Why they stay cheap on large programs: the basis is
//! factorised every [`REFACTOR_EVERY`] pivots and updated by eta columns in between (a
//! factorisation of a basis of 5e5 rows in rationals takes seconds), and the primal entering
//! column is chosen by reduced costs in floats (from the exact duals), confirmed exactly; only
//! when the float choice fails, and at the end to prove optimality, are all columns priced in
//! rationals. If the float
//! simplex fails, or the basis is neither, the dense exact tableau solves from scratch when
//! its memory estimate fits the budget (otherwise the solve fails with a clear error): the
//! result is always exact; floats only save time.

use super::lu::ExactLu;
use super::memory;
use super::refine;
use super::revised::{self, FloatOutcome};
use super::tableau;
use super::{ExactRoute, LpError, LpStats, SolveOptions, StandardForm};
use crate::scalar::{rational_to_f64, Rational};
use num_traits::{One, Signed, Zero};
use std::time::Instant;

/// The exact primal point and duals of a standard form, or why there are none.
type Answer = Result<(Vec<Rational>, Vec<Rational>), LpError>;

/// Solves `sf` exactly; returns the standard-form optimum `x` and duals `y`.
pub(crate) fn solve(sf: &StandardForm, stats: &mut LpStats, options: &SolveOptions) -> Answer {
    // The first start, then (if it gives no exact answer) the fallback start, then the
    // dense tableau. A hint that names no basis (`None` in the standard form) is skipped.
    let starts: Vec<Option<&[usize]>> = match (sf.start.as_deref(), sf.fallback_start.as_deref()) {
        (Some(first), Some(second)) => vec![Some(first), Some(second)],
        (None, None) => vec![None],
        (first, second) => vec![first.or(second)],
    };
    let mut why = String::new();
    for (k, &start) in starts.iter().enumerate() {
        let last = k + 1 == starts.len();
        let attempt = revised::Attempt {
            start,
            fall_back_to_slacks: last,
            budget: (!last).then(|| first_start_budget(sf.rows)),
        };
        let clock = Instant::now();
        let outcome = revised::solve(sf, attempt, options.progress);
        stats.float_time += clock.elapsed();
        let clock = Instant::now();
        let result = from_float(sf, stats, outcome, options);
        stats.exact_time += clock.elapsed();
        match result {
            Ok(answer) => return answer,
            Err(reason) => why = reason,
        }
    }
    let clock = Instant::now();
    let result = tableau_fallback(sf, stats, options, &why);
    stats.exact_time += clock.elapsed();
    result
}

/// Float pivots the first of two starts gets before the fallback start takes over: 15% of
/// the rows (and 1000). The first start is a bolder guess ([`crate::exact::sequence_form`]'s
/// support guess): on liars dice it needed 8% of the rows (1x6: 1971 pivots; 1x7: 5.6%,
/// against 30% and 21% from the pure start), but on big Leduc (6 ranks, 3 raises) it ran past
/// 5 minutes where the pure start takes 8 s, so a guess that does not pay soon is dropped.
fn first_start_budget(rows: usize) -> usize {
    rows * 3 / 20 + 1000
}

/// The exact answer from the float simplex's outcome: `Ok` with the answer (or a final
/// error), `Err` with the reason when the outcome gives none (no basis, or one the exact
/// routes could not repair; empty for the latter).
fn from_float(
    sf: &StandardForm,
    stats: &mut LpStats,
    outcome: FloatOutcome,
    options: &SolveOptions,
) -> Result<Answer, String> {
    let (basis, why) = match outcome {
        FloatOutcome::Optimal { basis, pivots } | FloatOutcome::Unbounded { basis, pivots } => {
            stats.float_pivots += pivots;
            (Some(complete_basis(sf, basis)), String::new())
        }
        FloatOutcome::Infeasible { pivots } => {
            stats.float_pivots += pivots;
            (
                None,
                "the float simplex reports the program infeasible".to_string(),
            )
        }
        FloatOutcome::Stalled { reason, pivots } => {
            stats.float_pivots += pivots;
            (None, reason)
        }
    };
    if let Some(Some(basis)) = basis {
        if options.reconstruct {
            let (solution, rounds) = refine::solve_basis(sf, &basis);
            stats.refinement_rounds = rounds;
            if let Some(s) = solution {
                stats.route = ExactRoute::Reconstruction;
                return Ok(Ok((s.x, s.y)));
            }
        }
        match exact_from_basis(sf, basis, stats) {
            Ok(result) => {
                stats.route = ExactRoute::ExactLu;
                return Ok(Ok(result));
            }
            Err(Fallback::Final(err)) => return Ok(Err(err)),
            Err(Fallback::Restart) => {}
        }
    }
    Err(why)
}

/// The dense exact tableau, when the float routes gave no answer (`why`: the float
/// simplex's reason, empty if it gave a basis the exact routes could not repair) and it fits
/// the budget.
fn tableau_fallback(
    sf: &StandardForm,
    stats: &mut LpStats,
    options: &SolveOptions,
    why: &str,
) -> Answer {
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

/// Exact pivots between two factorisations of the basis (the pivots in between are eta
/// columns: [`ExactBasis`]).
const REFACTOR_EVERY: usize = 64;

enum Fallback {
    /// An exact, final answer (unbounded or infeasible proven by exact pivots).
    Final(LpError),
    /// The basis could not be used; solve from scratch.
    Restart,
}

/// The basis matrix in product form: the exact LU of the basis at the last factorisation and,
/// for each exact pivot since, its eta column (basis position `k` replaced by the entering
/// column `a`, kept as `alpha = B^-1 a` in terms of the basis it replaced). One factorisation
/// costs a sparse rational elimination of the whole basis (seconds at 1e5 rows and more); an
/// eta costs a solve, so a pivot no longer pays a factorisation.
struct ExactBasis {
    lu: ExactLu,
    /// One eta per pivot since the factorisation.
    etas: Vec<Eta>,
}

/// A pivot's eta column: the basis position `k`, the non-zeros of `alpha`, and `alpha_k`.
type Eta = (usize, Vec<(usize, Rational)>, Rational);

impl ExactBasis {
    /// Factorises the basis `basis` (columns of `sf`).
    fn factor(sf: &StandardForm, basis: &[usize]) -> Option<Self> {
        let cols: Vec<&[(usize, Rational)]> =
            basis.iter().map(|&j| sf.cols[j].as_slice()).collect();
        let lu = ExactLu::factor(sf.rows, &cols).ok()?;
        Some(ExactBasis {
            lu,
            etas: Vec::new(),
        })
    }

    /// Solves `B x = b` (`x` by basis position): the LU, then each eta in pivot order.
    fn ftran(&self, b: &[Rational]) -> Vec<Rational> {
        let mut x = self.lu.solve(b);
        for (k, alpha, pivot) in &self.etas {
            let xk = std::mem::take(&mut x[*k]);
            if xk.is_zero() {
                continue;
            }
            let xk = xk / pivot;
            for (i, a) in alpha {
                if i != k {
                    x[*i] -= a * &xk;
                }
            }
            x[*k] = xk;
        }
        x
    }

    /// Solves `y^T B = c^T` (`c` by basis position, `y` by row): each eta in reverse pivot
    /// order, then the LU.
    fn btran(&self, c: &[Rational]) -> Vec<Rational> {
        let mut w = c.to_vec();
        for (k, alpha, pivot) in self.etas.iter().rev() {
            let mut acc = std::mem::take(&mut w[*k]);
            for (i, a) in alpha {
                if i != k && !w[*i].is_zero() {
                    acc -= a * &w[*i];
                }
            }
            if !acc.is_zero() {
                acc /= pivot;
            }
            w[*k] = acc;
        }
        self.lu.solve_transposed(&w)
    }

    /// Records the pivot that puts the column with `alpha = B^-1 a` at basis position `k`.
    fn pivot(&mut self, k: usize, alpha: &[Rational]) {
        let sparse: Vec<(usize, Rational)> = alpha
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.is_zero())
            .map(|(i, a)| (i, a.clone()))
            .collect();
        self.etas.push((k, sparse, alpha[k].clone()));
    }
}

/// The exact simplex from `basis` (see the module docs), factorising every `refactor_every`
/// pivots. Entering columns are chosen by reduced costs computed in floats from the exact
/// duals and confirmed exactly (a float choice that is not exactly improving falls back to
/// exact pricing of every column, which also proves the final basis optimal), so a pivot
/// prices in floats rather than in rationals.
fn exact_from_basis(
    sf: &StandardForm,
    basis: Vec<usize>,
    stats: &mut LpStats,
) -> Result<(Vec<Rational>, Vec<Rational>), Fallback> {
    exact_from_basis_with(sf, basis, stats, REFACTOR_EVERY)
}

fn exact_from_basis_with(
    sf: &StandardForm,
    mut basis: Vec<usize>,
    stats: &mut LpStats,
    refactor_every: usize,
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
    let cost_f: Vec<f64> = sf.cost.iter().map(rational_to_f64).collect();
    let cols_f: Vec<Vec<(usize, f64)>> = sf
        .cols
        .iter()
        .map(|c| c.iter().map(|(i, v)| (*i, rational_to_f64(v))).collect())
        .collect();
    let mut factored: Option<ExactBasis> = None;
    for _ in 0..limit {
        let lu = match factored.as_mut() {
            Some(f) if f.etas.len() < refactor_every.max(1) => f,
            _ => {
                stats.exact_factorizations += 1;
                factored.insert(ExactBasis::factor(sf, &basis).ok_or(Fallback::Restart)?)
            }
        };
        let xb = lu.ftran(&sf.b);
        let cb: Vec<Rational> = basis.iter().map(|&j| sf.cost[j].clone()).collect();
        let y = lu.btran(&cb);
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
                let y_f: Vec<f64> = y.iter().map(rational_to_f64).collect();
                let mut guess: Option<(usize, f64)> = None;
                for j in (0..n).filter(|&j| !is_basic[j]) {
                    let d = cols_f[j]
                        .iter()
                        .fold(cost_f[j], |d, &(i, v)| d - v * y_f[i]);
                    if d > 1e-9 * (1.0 + cost_f[j].abs()) && guess.is_none_or(|(_, b)| d > b) {
                        guess = Some((j, d));
                    }
                }
                match guess.filter(|&(j, _)| reduced(j).is_positive()) {
                    Some((j, _)) => Some(j),
                    None => {
                        let mut best: Option<(usize, Rational)> = None;
                        for j in (0..n).filter(|&j| !is_basic[j]) {
                            let d = reduced(j);
                            if d.is_positive() && best.as_ref().is_none_or(|(_, b)| d > *b) {
                                best = Some((j, d));
                            }
                        }
                        best.map(|(j, _)| j)
                    }
                }
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
            let alpha = lu.ftran(&column_dense(sf, q));
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
            lu.pivot(k, &alpha);
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
            let rho = lu.btran(&e);
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
            let alpha = lu.ftran(&column_dense(sf, q));
            lu.pivot(k, &alpha);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lp::{LinearProgram, Relation};
    use crate::scalar::int;
    use proptest::prelude::*;

    /// A random `max c x, A x <= b (b >= 0), x >= 0`: its slack basis is primal feasible, so
    /// the exact simplex starts there and pivots exactly (often unbounded, which it must
    /// prove too).
    fn slack_feasible_lp() -> impl Strategy<Value = LinearProgram> {
        (2usize..6, 1usize..6).prop_flat_map(|(n, m)| {
            (
                prop::collection::vec(-3i64..6, n),
                prop::collection::vec((prop::collection::vec(-2i64..5, n), 0i64..9), m),
            )
                .prop_map(move |(c, rows)| {
                    let mut lp = LinearProgram::new(n);
                    for (v, &cv) in c.iter().enumerate() {
                        lp.set_objective(v, int(cv));
                    }
                    for (coeffs, b) in rows {
                        let row = coeffs
                            .iter()
                            .enumerate()
                            .filter(|(_, &a)| a != 0)
                            .map(|(v, &a)| (v, int(a)))
                            .collect();
                        lp.add_constraint(row, Relation::Le, int(b));
                    }
                    lp
                })
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// From the slack basis, with a factorisation every 1, 2, 3 or 64 pivots (eta columns
        /// in between), the exact simplex ends at the dense exact tableau's optimum, or proves
        /// the program unbounded when the tableau does; its solution is exactly feasible and
        /// its duals certify it (every reduced cost <= 0), checked here from the program.
        #[test]
        fn eta_updates_and_float_pricing_reach_the_tableau_optimum(lp in slack_feasible_lp()) {
            let sf = StandardForm::new(&lp);
            let slacks: Option<Vec<usize>> = sf.slack_col.iter().copied().collect();
            let slacks = slacks.expect("every row has a slack");
            let want = tableau::solve(&sf);
            let objective = |x: &[Rational]| -> Rational {
                sf.cost.iter().zip(x).map(|(c, v)| c * v).sum()
            };
            for every in [1, 2, 3, 64] {
                let mut stats = LpStats::default();
                match (exact_from_basis_with(&sf, slacks.clone(), &mut stats, every), &want) {
                    (Ok((x, y)), Ok((xt, _, _))) => {
                        prop_assert_eq!(objective(&x), objective(xt));
                        for i in 0..sf.rows {
                            let ax: Rational = sf
                                .cols
                                .iter()
                                .zip(&x)
                                .flat_map(|(c, v)| c.iter().filter(|(r, _)| *r == i).map(move |(_, a)| a * v))
                                .sum();
                            prop_assert_eq!(&ax, &sf.b[i]);
                        }
                        prop_assert!(x.iter().all(|v| !v.is_negative()));
                        for (j, col) in sf.cols.iter().enumerate() {
                            let d: Rational = col.iter().fold(sf.cost[j].clone(), |d, (i, a)| d - a * &y[*i]);
                            prop_assert!(!d.is_positive(), "column {} prices out", j);
                        }
                        if every == 1 {
                            prop_assert_eq!(stats.exact_factorizations, stats.exact_pivots + 1);
                        }
                    }
                    (Err(Fallback::Final(LpError::Unbounded)), Err(LpError::Unbounded)) => {}
                    (got, _) => prop_assert!(false, "every {}: {:?} against {:?}", every, got.map(|_| ()).map_err(|e| match e { Fallback::Final(e) => format!("{e:?}"), Fallback::Restart => "restart".into() }), want.as_ref().map(|_| ())),
                }
            }
        }
    }
}
