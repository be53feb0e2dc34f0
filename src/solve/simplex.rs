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
//! - [`Method::FloatThenExact`]: a float simplex finds a basis, the basic solution and duals of
//!   that basis are recomputed exactly with a sparse rational LU, primal and dual feasibility
//!   are checked exactly, and exact revised-simplex pivots (Bland's rule) continue from that
//!   basis until it is provably optimal. The answer is exact; floats only choose the basis.

use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};
use std::collections::BTreeMap;
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
        }
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
        let mut merged: BTreeMap<usize, Rational> = BTreeMap::new();
        for (var, c) in coeffs {
            if self.check_var(var, || format!("constraint row {id}")) {
                *merged.entry(var).or_insert_with(Rational::zero) += c;
            }
        }
        let coeffs = merged.into_iter().filter(|(_, c)| !c.is_zero()).collect();
        self.rows.push(Row { coeffs, rel, rhs });
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
        self.solve_with(method).map(|(s, _)| s)
    }

    /// Solves exactly with the given method, also returning counts.
    pub fn solve_with(&self, method: Method) -> Result<(LpSolution, LpStats), LpError> {
        self.solve_with_progress(method, false)
    }

    /// As [`LinearProgram::solve_with`]; `show_progress` draws a progress spinner on a terminal.
    pub fn solve_with_progress(
        &self,
        method: Method,
        show_progress: bool,
    ) -> Result<(LpSolution, LpStats), LpError> {
        if let Some(err) = &self.invalid {
            return Err(err.clone());
        }
        let sf = StandardForm::new(self);
        let mut stats = LpStats {
            standard_rows: sf.rows,
            standard_cols: sf.cols.len(),
            ..LpStats::default()
        };
        let (x, y) = match method {
            Method::ExactTableau => {
                let (x, y, pivots) = tableau::solve(&sf)?;
                stats.exact_pivots = pivots;
                (x, y)
            }
            Method::FloatThenExact => {
                crate::solve::lp::guided::solve(&sf, &mut stats, show_progress)?
            }
        };
        let solution = sf.recover(self, &x, &y);
        self.certify(&solution)?;
        Ok((solution, stats))
    }

    /// Checks feasibility, dual feasibility and equal objectives exactly; a failure is a bug.
    fn certify(&self, s: &LpSolution) -> Result<(), LpError> {
        let fail = |what: String| Err(LpError::Internal(format!("certificate failed: {what}")));
        for (v, x) in s.values.iter().enumerate() {
            if !self.free[v] && x.is_negative() {
                return fail(format!("variable {v} is negative"));
            }
        }
        let mut reduced = self.objective.clone();
        let mut dual_objective = Rational::zero();
        for (i, row) in self.rows.iter().enumerate() {
            let lhs: Rational = row.coeffs.iter().map(|(v, c)| c * &s.values[*v]).sum();
            let y = &s.duals[i];
            let ok = match row.rel {
                Relation::Le => lhs <= row.rhs && !y.is_negative(),
                Relation::Ge => lhs >= row.rhs && !y.is_positive(),
                Relation::Eq => lhs == row.rhs,
            };
            if !ok {
                return fail(format!("row {i} (primal or dual sign)"));
            }
            dual_objective += y * &row.rhs;
            for (v, c) in &row.coeffs {
                reduced[*v] -= c * y;
            }
        }
        for (v, r) in reduced.iter().enumerate() {
            let ok = if self.free[v] {
                r.is_zero()
            } else {
                !r.is_positive()
            };
            if !ok {
                return fail(format!("dual constraint of variable {v}"));
            }
        }
        if dual_objective != s.objective {
            return fail("primal and dual objectives differ".to_string());
        }
        Ok(())
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
    /// For each row, a column that is `+1` in that row and zero elsewhere (a slack usable as an
    /// initial basic variable), if any.
    pub unit_col: Vec<Option<usize>>,
    /// Rows multiplied by -1 to make `b >= 0`.
    negated: Vec<bool>,
    /// For each original variable, its positive column and (free variables) negative column.
    var_cols: Vec<(usize, Option<usize>)>,
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
        let mut unit_col = vec![None; m];
        for (i, row) in lp.rows.iter().enumerate() {
            let sign = match row.rel {
                Relation::Le => 1,
                Relation::Ge => -1,
                Relation::Eq => continue,
            };
            let sign = if negated[i] { -sign } else { sign };
            if sign > 0 {
                unit_col[i] = Some(cols.len());
            }
            cols.push(vec![(i, Rational::from_integer(sign.into()))]);
            cost.push(Rational::zero());
        }
        let b = lp.rows.iter().map(|r| r.rhs.abs()).collect();
        StandardForm {
            rows: m,
            cols,
            cost,
            b,
            unit_col,
            negated,
            var_cols,
        }
    }

    /// Maps a standard-form primal `x` and dual `y` back to the original program.
    fn recover(&self, lp: &LinearProgram, x: &[Rational], y: &[Rational]) -> LpSolution {
        let values: Vec<Rational> = self
            .var_cols
            .iter()
            .map(|&(p, n)| match n {
                Some(n) => &x[p] - &x[n],
                None => x[p].clone(),
            })
            .collect();
        let duals = y
            .iter()
            .zip(&self.negated)
            .map(|(y, &neg)| if neg { -y } else { y.clone() })
            .collect();
        let objective = lp
            .objective
            .iter()
            .zip(&values)
            .filter(|(c, _)| !c.is_zero())
            .map(|(c, x)| c * x)
            .sum();
        LpSolution {
            objective,
            values,
            duals,
        }
    }
}

pub(crate) use tableau::solve as tableau_solve;

/// The dense exact two-phase tableau simplex with Bland's rule.
mod tableau {
    use super::*;

    struct Tableau {
        /// `m` rows of `width` entries: structural columns, one artificial per row, then rhs.
        t: Vec<Vec<Rational>>,
        basis: Vec<usize>,
        n: usize,
        pivots: usize,
    }

    impl Tableau {
        fn rhs(&self) -> usize {
            self.n + self.t.len()
        }

        fn pivot(&mut self, r: usize, j: usize) {
            let inv = Rational::one() / &self.t[r][j];
            for v in self.t[r].iter_mut() {
                if !v.is_zero() {
                    *v *= &inv;
                }
            }
            let (before, rest) = self.t.split_at_mut(r);
            let (prow, after) = rest.split_first_mut().expect("pivot row exists");
            for row in before.iter_mut().chain(after.iter_mut()) {
                if row[j].is_zero() {
                    continue;
                }
                let f = row[j].clone();
                for (v, p) in row.iter_mut().zip(prow.iter()) {
                    if !p.is_zero() {
                        *v -= &f * p;
                    }
                }
            }
            self.basis[r] = j;
            self.pivots += 1;
        }

        /// Maximises `cost` (indexed over all columns, artificials included) with Bland's rule,
        /// letting only columns with `allowed(j)` enter.
        fn optimize(&mut self, cost: &[Rational], allowed: impl Fn(usize) -> bool) -> bool {
            let width = self.rhs();
            loop {
                // Reduced costs d_j = c_j - c_B^T column_j; recomputed per pivot for simplicity
                // (this method is the small-program reference).
                let mut entering = None;
                for j in 0..width {
                    if !allowed(j) || self.basis.contains(&j) {
                        continue;
                    }
                    let mut d = cost[j].clone();
                    for (i, row) in self.t.iter().enumerate() {
                        if !row[j].is_zero() {
                            d -= &cost[self.basis[i]] * &row[j];
                        }
                    }
                    if d.is_positive() {
                        entering = Some(j);
                        break;
                    }
                }
                let Some(j) = entering else { return true };
                let rhs = self.rhs();
                let mut leave: Option<(usize, Rational)> = None;
                for (i, row) in self.t.iter().enumerate() {
                    if row[j].is_positive() {
                        let ratio = &row[rhs] / &row[j];
                        let better = match &leave {
                            None => true,
                            Some((li, lr)) => {
                                ratio < *lr || (ratio == *lr && self.basis[i] < self.basis[*li])
                            }
                        };
                        if better {
                            leave = Some((i, ratio));
                        }
                    }
                }
                let Some((r, _)) = leave else { return false };
                self.pivot(r, j);
            }
        }
    }

    /// Returns the standard-form optimum `x`, duals `y` and the pivot count.
    pub(crate) fn solve(
        sf: &StandardForm,
    ) -> Result<(Vec<Rational>, Vec<Rational>, usize), LpError> {
        let m = sf.rows;
        let n = sf.cols.len();
        let width = n + m + 1;
        let mut t = vec![vec![Rational::zero(); width]; m];
        for (j, col) in sf.cols.iter().enumerate() {
            for (i, v) in col {
                t[*i][j] = v.clone();
            }
        }
        for i in 0..m {
            t[i][n + i] = Rational::one();
            t[i][n + m] = sf.b[i].clone();
        }
        let mut tab = Tableau {
            t,
            basis: (n..n + m).collect(),
            n,
            pivots: 0,
        };
        // Phase 1: maximise minus the sum of artificials.
        let mut cost1 = vec![Rational::zero(); n + m];
        for c in cost1.iter_mut().skip(n) {
            *c = -Rational::one();
        }
        tab.optimize(&cost1, |j| j < n + m);
        for i in 0..m {
            if tab.basis[i] >= n && !tab.t[i][n + m].is_zero() {
                return Err(LpError::Infeasible);
            }
        }
        // Drive artificials out of the basis where a structural column can replace them;
        // rows where none can are redundant and keep a zero artificial.
        for i in 0..m {
            if tab.basis[i] >= n {
                if let Some(j) = (0..n).find(|&j| !tab.t[i][j].is_zero()) {
                    tab.pivot(i, j);
                }
            }
        }
        let mut cost2 = sf.cost.clone();
        cost2.extend(std::iter::repeat_n(Rational::zero(), m));
        if !tab.optimize(&cost2, |j| j < n) {
            return Err(LpError::Unbounded);
        }
        let mut x = vec![Rational::zero(); n];
        for i in 0..m {
            if tab.basis[i] < n {
                x[tab.basis[i]] = tab.t[i][n + m].clone();
            }
        }
        // The artificial columns hold B^{-1}, so y^T = c_B^T B^{-1}.
        let mut y = vec![Rational::zero(); m];
        for (k, row) in tab.t.iter().enumerate() {
            let cb = &cost2[tab.basis[k]];
            if cb.is_zero() {
                continue;
            }
            for i in 0..m {
                if !row[n + i].is_zero() {
                    y[i] += cb * &row[n + i];
                }
            }
        }
        Ok((x, y, tab.pivots))
    }
}

#[cfg(test)]
mod tests;
