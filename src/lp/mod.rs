//! Exact linear programming over rationals.
//!
//! A [`LinearProgram`] is `maximize c^T x` subject to `<=`, `>=` and `=` rows, with variables
//! `>= 0` unless declared free. [`LinearProgram::solve`] returns an exactly optimal primal
//! solution and exactly optimal duals (one per row), or says exactly why there is none.
//!
//! Two methods are available ([`Method`]):
//! - [`Method::ExactTableau`]: a dense two-phase tableau simplex in `BigRational` with Bland's
//!   rule (never cycles). Simple and the reference, but its cost grows with rows x columns per
//!   pivot in big-number arithmetic, so it is for small programs.
//! - [`Method::FloatThenExact`]: a sparse revised float simplex ([`revised`], on the sparse LU
//!   of [`sparse_lu`]) finds a basis. Its basic solution and duals are first refined with the
//!   float LU and reconstructed as rationals ([`refine`], [`reconstruct`]), and accepted if
//!   they solve the basis exactly and are primal and dual feasible; otherwise they are
//!   recomputed exactly with a sparse rational LU ([`lu`]) and exact revised-simplex pivots
//!   continue from that basis until it is provably optimal ([`guided`]). The answer is exact;
//!   floats only choose the basis and guess the numbers.
//!
//! Every solution is finally certified against the original program (primal and dual
//! feasibility, equal objectives) exactly before it is returned ([`certify`]).

mod certify;
pub(crate) mod guided;
pub mod lu;
pub mod memory;
mod mps;
mod presolve;
mod reconstruct;
pub(crate) mod refine;
pub(crate) mod revised;
pub(crate) mod sparse_lu;
mod tableau;

use crate::scalar::Rational;
use num_traits::{Signed, Zero};
use std::time::Instant;
use thiserror::Error;

/// The sense of a constraint row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `a^T x <= b`.
    Le,
    /// `a^T x >= b`.
    Ge,
    /// `a^T x = b`.
    Eq,
}

/// One column of a suggested starting basis ([`LinearProgram::set_start_basis`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BasisEntry {
    /// The variable (for a free variable: its positive part).
    Var(usize),
    /// The negative part of a free variable.
    NegVar(usize),
    /// The slack of the inequality row with this id.
    Slack(usize),
}

/// Why a linear program has no optimal solution, or could not be set up.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LpError {
    /// No point satisfies every constraint.
    #[error("the linear program is infeasible: no point satisfies all constraints")]
    Infeasible,
    /// The objective grows without bound over the feasible set.
    #[error("the linear program is unbounded: the objective can grow without limit")]
    Unbounded,
    /// A constraint or objective names a variable that does not exist.
    #[error("{context} names variable {var}, but the program has only {num_vars} variables (0..{num_vars})")]
    BadVariable {
        /// Where the bad index appeared.
        context: String,
        /// The index given.
        var: usize,
        /// Number of variables.
        num_vars: usize,
    },
    /// The estimated memory of the solve exceeds the budget (checked before allocating).
    #[error(
        "the linear program ({size}) needs an estimated {} with the {method}, over the memory budget of {} (raise it with --max-memory, or use a CFR algorithm for an approximate solution)",
        memory::format_bytes(*needed),
        memory::format_bytes(u128::from(*budget))
    )]
    TooBig {
        /// The program's size.
        size: memory::LpSize,
        /// Which method's estimate.
        method: &'static str,
        /// Estimated bytes.
        needed: u128,
        /// The budget in bytes.
        budget: u64,
    },
    /// An internal consistency check failed (a bug; reported rather than returning a wrong answer).
    #[error("internal LP error: {0}")]
    Internal(String),
}

/// How [`LinearProgram::solve_with`] solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// Dense exact tableau simplex with Bland's rule: the reference, for small programs.
    ExactTableau,
    /// Float simplex for the basis, then exact verification and exact pivots to optimality.
    FloatThenExact,
}

/// When the float-guided method presolves (the public entry uses `Auto`; tests force the
/// others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(test), allow(dead_code))]
enum Presolve {
    /// Never.
    Off,
    /// When float fingerprints find parallel rows or columns (see `presolve::presolve`).
    Auto,
    /// Whenever anything reduces.
    Always,
}

/// Where the float simplex stands, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct LpProgress<'a> {
    /// The phase (`"phase 1"`, `"phase 2"`, `"clean-up"`).
    pub phase: &'a str,
    /// Float pivots so far.
    pub pivots: usize,
    /// The current objective value (float).
    pub objective: f64,
}

/// A progress callback: called every 256 float pivots (from the solving thread).
pub type ProgressFn<'a> = &'a (dyn Fn(&LpProgress<'_>) + Sync);

/// Options of [`LinearProgram::solve_with`].
#[derive(Clone, Copy)]
pub struct SolveOptions<'a> {
    /// The simplex method.
    pub method: Method,
    /// Called as the float simplex goes (none: silent).
    pub progress: Option<ProgressFn<'a>>,
    /// Memory budget in bytes: a solve whose estimate exceeds it fails with
    /// [`LpError::TooBig`] before allocating.
    pub max_memory: u64,
    /// Try refinement and rational reconstruction of the float basis before the exact LU
    /// ([`Method::FloatThenExact`] only; off = today's exact LU route, for comparisons).
    pub reconstruct: bool,
}

impl std::fmt::Debug for SolveOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SolveOptions")
            .field("method", &self.method)
            .field("progress", &self.progress.is_some())
            .field("max_memory", &self.max_memory)
            .field("reconstruct", &self.reconstruct)
            .finish()
    }
}

impl SolveOptions<'_> {
    /// `method` without progress, with the default budget ([`memory::default_budget`]).
    pub fn new(method: Method) -> Self {
        SolveOptions {
            method,
            progress: None,
            max_memory: memory::default_budget(),
            reconstruct: true,
        }
    }

    /// Checks `bytes` against the budget for `method` on a program of `size`.
    pub fn check(
        &self,
        size: memory::LpSize,
        method: &'static str,
        bytes: u128,
    ) -> Result<(), LpError> {
        if bytes > u128::from(self.max_memory) {
            return Err(LpError::TooBig {
                size,
                method,
                needed: bytes,
                budget: self.max_memory,
            });
        }
        Ok(())
    }
}

/// An exactly optimal solution.
#[derive(Clone, Debug, PartialEq)]
pub struct LpSolution {
    /// The optimal objective value `c^T x`.
    pub objective: Rational,
    /// An optimal point, one value per variable.
    pub values: Vec<Rational>,
    /// Optimal duals, one per constraint row in the order added: `>= 0` for `<=` rows, `<= 0`
    /// for `>=` rows, any sign for `=` rows; `b^T duals = objective` and
    /// `A^T duals = c` on free variables, `>= c` on the others (complementary slackness holds).
    pub duals: Vec<Rational>,
}

/// Which exact computation produced (and certified) the solution.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExactRoute {
    /// The dense exact tableau (by choice, or as the last fallback).
    #[default]
    Tableau,
    /// The float basis, refined in floats and reconstructed as rationals, verified exactly.
    Reconstruction,
    /// The float basis refactored by the exact LU, with exact pivots if it was not optimal.
    ExactLu,
}

impl ExactRoute {
    /// A short name for reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            ExactRoute::Tableau => "tableau",
            ExactRoute::Reconstruction => "reconstruction",
            ExactRoute::ExactLu => "exact-lu",
        }
    }
}

/// Counts from a solve, for benchmarks and reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LpStats {
    /// Pivots made in floating point.
    pub float_pivots: usize,
    /// Pivots made in exact arithmetic.
    pub exact_pivots: usize,
    /// Exact basis factorisations.
    pub exact_factorizations: usize,
    /// Rows and columns of the standard form (slacks included).
    pub standard_rows: usize,
    /// Columns of the standard form.
    pub standard_cols: usize,
    /// The float-guided method fell back to the exact tableau from scratch.
    pub tableau_fallback: bool,
    /// The route that gave the exact solution.
    pub route: ExactRoute,
    /// Float refinement rounds (primal and dual) before reconstruction succeeded or gave up.
    pub refinement_rounds: usize,
    /// Wall time of the float simplex.
    pub float_time: std::time::Duration,
    /// Wall time of the exact part (factorisations, checks, exact pivots).
    pub exact_time: std::time::Duration,
    /// Rows the exact presolve removed (the float-guided method; net of rows it combined).
    pub presolve_rows: usize,
    /// Columns the exact presolve removed.
    pub presolve_cols: usize,
    /// Wall time of the presolve and the postsolve.
    pub presolve_time: std::time::Duration,
}

#[derive(Clone, Debug)]
struct Row {
    coeffs: Vec<(usize, Rational)>,
    rel: Relation,
    rhs: Rational,
}

/// `maximize c^T x` subject to linear rows; variables are `>= 0` unless set free.
#[derive(Clone, Debug)]
pub struct LinearProgram {
    num_vars: usize,
    objective: Vec<Rational>,
    free: Vec<bool>,
    rows: Vec<Row>,
    /// The first bad input seen; reported by `solve` (the builder methods stay infallible).
    invalid: Option<LpError>,
    /// A suggested starting basis for the float simplex (a hint: never trusted).
    start: Option<Vec<BasisEntry>>,
    /// A second hint, tried when the first gives no answer ([`Self::set_fallback_start_basis`]).
    fallback_start: Option<Vec<BasisEntry>>,
}

impl LinearProgram {
    /// A program with `num_vars` non-negative variables, objective 0 and no rows.
    pub fn new(num_vars: usize) -> Self {
        LinearProgram {
            num_vars,
            objective: vec![Rational::zero(); num_vars],
            free: vec![false; num_vars],
            rows: Vec::new(),
            invalid: None,
            start: None,
            fallback_start: None,
        }
    }

    /// Suggests a starting basis for [`Method::FloatThenExact`], one entry per row. A
    /// singular hint is repaired (its dependent columns give way to logicals) and an
    /// infeasible one shifted into its bounds (the simplex repairs the shift); a hint that
    /// still fails leaves the float simplex to start from slacks as usual, so a bad hint
    /// costs time, never correctness.
    pub fn set_start_basis(&mut self, entries: Vec<BasisEntry>) {
        self.start = Some(entries);
    }

    /// Suggests a second starting basis, for a first one that is a bolder guess: the float
    /// simplex starts from it when the first stays singular after its repair, or when the
    /// basis reached from the first cannot be made exact (then it runs again from this one
    /// before any slower exact route). The exact presolve carries this one, not the first
    /// (its reductions keep a primal feasible start's shape, not a guess's).
    pub fn set_fallback_start_basis(&mut self, entries: Vec<BasisEntry>) {
        self.fallback_start = Some(entries);
    }

    /// Number of variables.
    pub fn num_vars(&self) -> usize {
        self.num_vars
    }

    /// Number of constraint rows.
    pub fn num_constraints(&self) -> usize {
        self.rows.len()
    }

    fn check_var(&mut self, var: usize, context: impl FnOnce() -> String) -> bool {
        if var < self.num_vars {
            return true;
        }
        if self.invalid.is_none() {
            self.invalid = Some(LpError::BadVariable {
                context: context(),
                var,
                num_vars: self.num_vars,
            });
        }
        false
    }

    /// Sets the objective coefficient of `var` (the objective is maximised).
    pub fn set_objective(&mut self, var: usize, coeff: Rational) {
        if self.check_var(var, || "set_objective".to_string()) {
            self.objective[var] = coeff;
        }
    }

    /// Lets `var` take any sign.
    pub fn set_free(&mut self, var: usize) {
        if self.check_var(var, || "set_free".to_string()) {
            self.free[var] = true;
        }
    }

    /// Adds the row `sum coeff * x[var]  rel  rhs` and returns its id (rows count from 0).
    /// Repeated variables are summed.
    pub fn add_constraint(
        &mut self,
        coeffs: Vec<(usize, Rational)>,
        rel: Relation,
        rhs: Rational,
    ) -> usize {
        let id = self.rows.len();
        let mut coeffs = coeffs;
        if let Some(&(var, _)) = coeffs.iter().find(|(v, _)| *v >= self.num_vars) {
            self.check_var(var, || format!("constraint row {id}"));
            coeffs.retain(|(v, _)| *v < self.num_vars);
        }
        // Sorted by variable with repeats summed (a stable sort keeps their order); a rational
        // sum only where a variable repeats.
        coeffs.sort_by_key(|&(v, _)| v);
        let mut merged: Vec<(usize, Rational)> = Vec::with_capacity(coeffs.len());
        for (var, c) in coeffs {
            match merged.last_mut() {
                Some((last, sum)) if *last == var => *sum += c,
                _ => merged.push((var, c)),
            }
        }
        merged.retain(|(_, c)| !c.is_zero());
        self.rows.push(Row {
            coeffs: merged,
            rel,
            rhs,
        });
        id
    }

    /// Solves exactly, choosing the method by size (dense tableau for small programs).
    pub fn solve(&self) -> Result<LpSolution, LpError> {
        let size = self.rows.len() * (self.num_vars + self.rows.len());
        let method = if size <= 10_000 {
            Method::ExactTableau
        } else {
            Method::FloatThenExact
        };
        self.solve_with(&SolveOptions::new(method)).map(|(s, _)| s)
    }

    /// The size of the standard form this program becomes (computed without building it).
    pub fn standard_size(&self) -> memory::LpSize {
        let free = self.free.iter().filter(|&&f| f).count();
        let slacks = self.rows.iter().filter(|r| r.rel != Relation::Eq).count();
        let mut nonzeros = slacks;
        let mut per_var = vec![0usize; self.num_vars];
        for row in &self.rows {
            for (v, _) in &row.coeffs {
                per_var[*v] += 1;
            }
        }
        for (v, count) in per_var.iter().enumerate() {
            nonzeros += if self.free[v] { 2 * count } else { *count };
        }
        memory::LpSize {
            rows: self.rows.len(),
            cols: self.num_vars + free + slacks,
            nonzeros,
        }
    }

    /// Solves exactly with the given options, also returning counts. The memory estimate of
    /// the method is checked against `options.max_memory` before anything large is allocated.
    // Not inlined: `bench/lp_vs_highs.py` counts its instructions by name.
    #[inline(never)]
    pub fn solve_with(&self, options: &SolveOptions) -> Result<(LpSolution, LpStats), LpError> {
        self.solve_presolving(options, Presolve::Auto)
    }

    /// [`LinearProgram::solve_with`], with the presolve of the float-guided method as asked
    /// (tests compare the three).
    fn solve_presolving(
        &self,
        options: &SolveOptions,
        presolve: Presolve,
    ) -> Result<(LpSolution, LpStats), LpError> {
        if let Some(err) = &self.invalid {
            return Err(err.clone());
        }
        let size = self.standard_size();
        let base = memory::standard_form_bytes(size);
        match options.method {
            Method::ExactTableau => options.check(
                size,
                "dense exact tableau",
                base + memory::tableau_bytes(size),
            )?,
            Method::FloatThenExact => options.check(
                size,
                "sparse float-guided exact simplex",
                base + memory::guided_bytes(size),
            )?,
        }
        let mut stats = LpStats::default();
        let solution = match options.method {
            Method::ExactTableau => {
                let sf = StandardForm::new(self);
                stats.standard_rows = sf.rows;
                stats.standard_cols = sf.cols.len();
                let (x, y, pivots) = tableau::solve(&sf)?;
                stats.exact_pivots = pivots;
                sf.recover(self, &x, &y)
            }
            Method::FloatThenExact => {
                let start = Instant::now();
                let reduced = match presolve {
                    Presolve::Off => None,
                    Presolve::Auto => presolve::presolve(self, false),
                    Presolve::Always => presolve::presolve(self, true),
                };
                stats.presolve_time = start.elapsed();
                match reduced {
                    Some(pre) => {
                        (stats.presolve_rows, stats.presolve_cols) = pre.removed();
                        let reduced = pre.lp.guided(&mut stats, options)?;
                        let start = Instant::now();
                        let (values, duals) = pre.postsolve(&reduced.values, &reduced.duals)?;
                        stats.presolve_time += start.elapsed();
                        let objective = self.objective_at(&values);
                        LpSolution {
                            objective,
                            values,
                            duals,
                        }
                    }
                    None => self.guided(&mut stats, options)?,
                }
            }
        };
        certify::certify(self, &solution)?;
        Ok((solution, stats))
    }

    /// The float-guided exact solve of this program (no presolve, no certificate).
    fn guided(&self, stats: &mut LpStats, options: &SolveOptions) -> Result<LpSolution, LpError> {
        let sf = StandardForm::new(self);
        stats.standard_rows = sf.rows;
        stats.standard_cols = sf.cols.len();
        let (x, y) = guided::solve(&sf, stats, options)?;
        Ok(sf.recover(self, &x, &y))
    }

    /// `c^T x`.
    fn objective_at(&self, values: &[Rational]) -> Rational {
        self.objective
            .iter()
            .zip(values)
            .filter(|(c, _)| !c.is_zero())
            .map(|(c, x)| c * x)
            .sum()
    }
}

/// `maximize cost^T x` subject to `A x = b`, `x >= 0`, `b >= 0`, as sparse columns.
#[derive(Clone, Debug)]
pub(crate) struct StandardForm {
    /// Number of rows.
    pub rows: usize,
    /// Sparse columns `(row, value)`, rows ascending.
    pub cols: Vec<Vec<(usize, Rational)>>,
    /// Objective per column.
    pub cost: Vec<Rational>,
    /// Right-hand sides, all `>= 0`.
    pub b: Vec<Rational>,
    /// Rows multiplied by -1 to make `b >= 0`.
    negated: Vec<bool>,
    /// For each original variable, its positive column and (free variables) negative column.
    pub var_cols: Vec<(usize, Option<usize>)>,
    /// For each inequality row, its slack column (`+1` or `-1` in that row only).
    pub slack_col: Vec<Option<usize>>,
    /// The suggested starting basis as columns, when every entry named a column.
    pub start: Option<Vec<usize>>,
    /// The second suggested starting basis as columns, likewise.
    pub fallback_start: Option<Vec<usize>>,
}

impl StandardForm {
    fn new(lp: &LinearProgram) -> Self {
        let m = lp.rows.len();
        let mut cols: Vec<Vec<(usize, Rational)>> = Vec::new();
        let mut cost = Vec::new();
        let mut var_cols = Vec::with_capacity(lp.num_vars);
        let negated: Vec<bool> = lp.rows.iter().map(|r| r.rhs.is_negative()).collect();
        let mut by_var: Vec<Vec<(usize, Rational)>> = vec![Vec::new(); lp.num_vars];
        for (i, row) in lp.rows.iter().enumerate() {
            for (v, c) in &row.coeffs {
                let c = if negated[i] { -c } else { c.clone() };
                by_var[*v].push((i, c));
            }
        }
        for (v, col) in by_var.into_iter().enumerate() {
            let pos = cols.len();
            cols.push(col.clone());
            cost.push(lp.objective[v].clone());
            let neg = if lp.free[v] {
                cols.push(col.into_iter().map(|(i, c)| (i, -c)).collect());
                cost.push(-&lp.objective[v]);
                Some(pos + 1)
            } else {
                None
            };
            var_cols.push((pos, neg));
        }
        let mut slack_col = vec![None; m];
        for (i, row) in lp.rows.iter().enumerate() {
            let sign = match row.rel {
                Relation::Le => 1,
                Relation::Ge => -1,
                Relation::Eq => continue,
            };
            let sign = if negated[i] { -sign } else { sign };
            slack_col[i] = Some(cols.len());
            cols.push(vec![(i, Rational::from_integer(sign.into()))]);
            cost.push(Rational::zero());
        }
        let b = lp.rows.iter().map(|r| r.rhs.abs()).collect();
        let columns = |entries: &Vec<BasisEntry>| -> Option<Vec<usize>> {
            if entries.len() != m {
                return None;
            }
            entries
                .iter()
                .map(|e| match *e {
                    BasisEntry::Var(v) => var_cols.get(v).map(|c| c.0),
                    BasisEntry::NegVar(v) => var_cols.get(v).and_then(|c| c.1),
                    BasisEntry::Slack(i) => slack_col.get(i).copied().flatten(),
                })
                .collect()
        };
        let start = lp.start.as_ref().and_then(columns);
        let fallback_start = lp.fallback_start.as_ref().and_then(columns);
        StandardForm {
            rows: m,
            cols,
            cost,
            b,
            negated,
            slack_col,
            var_cols,
            start,
            fallback_start,
        }
    }

    /// Maps a standard-form primal `x` and dual `y` back to the original program.
    fn recover(&self, lp: &LinearProgram, x: &[Rational], y: &[Rational]) -> LpSolution {
        let values: Vec<Rational> = self
            .var_cols
            .iter()
            .map(|&(p, n)| match n {
                // A basic solution has at most one half of a free variable non-zero: no
                // rational subtraction (a gcd of big numbers) for the other.
                Some(n) if x[n].is_zero() => x[p].clone(),
                Some(n) if x[p].is_zero() => -&x[n],
                Some(n) => &x[p] - &x[n],
                None => x[p].clone(),
            })
            .collect();
        let duals = y
            .iter()
            .zip(&self.negated)
            .map(|(y, &neg)| if neg { -y } else { y.clone() })
            .collect();
        let objective = lp.objective_at(&values);
        LpSolution {
            objective,
            values,
            duals,
        }
    }
}

#[cfg(test)]
mod tests;
