//! STAND-IN for branch `lp`'s exact simplex, with the same API, so branch `baby` builds and
//! tests before `lp` lands. At merge time this file is replaced by `lp`'s version.
//!
//! Dense two-phase tableau simplex over exact rationals with Bland's rule (no cycling).

use crate::scalar::Rational;
use num_traits::{One, Signed, Zero};

/// Constraint sense.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// `<=`
    Le,
    /// `>=`
    Ge,
    /// `=`
    Eq,
}

/// Why an LP has no optimum.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LpError {
    /// No point satisfies the constraints.
    Infeasible,
    /// The objective grows without bound.
    Unbounded,
}

/// An optimal solution.
#[derive(Clone, Debug)]
pub struct LpSolution {
    /// Optimal objective value.
    pub objective: Rational,
    /// Optimal variable values.
    pub values: Vec<Rational>,
    /// Dual values (not computed by this stand-in: empty).
    pub duals: Vec<Rational>,
}

/// A linear program: maximise `objective . x`, variables `>= 0` unless made free.
#[derive(Clone, Debug)]
pub struct LinearProgram {
    num_vars: usize,
    objective: Vec<Rational>,
    free: Vec<bool>,
    constraints: Vec<(Vec<(usize, Rational)>, Relation, Rational)>,
}

impl LinearProgram {
    /// An LP with `num_vars` non-negative variables and objective 0.
    pub fn new(num_vars: usize) -> Self {
        LinearProgram {
            num_vars,
            objective: vec![Rational::zero(); num_vars],
            free: vec![false; num_vars],
            constraints: Vec::new(),
        }
    }
    /// Sets the objective coefficient of `var` (maximised).
    pub fn set_objective(&mut self, var: usize, coeff: Rational) {
        self.objective[var] = coeff;
    }
    /// Lets `var` take any sign.
    pub fn set_free(&mut self, var: usize) {
        self.free[var] = true;
    }
    /// Adds a constraint; returns its index.
    pub fn add_constraint(
        &mut self,
        coeffs: Vec<(usize, Rational)>,
        rel: Relation,
        rhs: Rational,
    ) -> usize {
        self.constraints.push((coeffs, rel, rhs));
        self.constraints.len() - 1
    }

    /// Solves exactly.
    pub fn solve(&self) -> Result<LpSolution, LpError> {
        // Columns: x+ for every var, x- for free vars, one slack per inequality, artificials.
        let n = self.num_vars;
        let mut neg_col = vec![usize::MAX; n];
        let mut cols = n;
        for v in 0..n {
            if self.free[v] {
                neg_col[v] = cols;
                cols += 1;
            }
        }
        let m = self.constraints.len();
        let mut rows: Vec<(Vec<Rational>, Relation, Rational)> = Vec::with_capacity(m);
        for (coeffs, rel, rhs) in &self.constraints {
            let mut r = vec![Rational::zero(); cols];
            for (v, c) in coeffs {
                r[*v] += c;
                if self.free[*v] {
                    r[neg_col[*v]] -= c;
                }
            }
            let (mut r, mut rel, mut rhs) = (r, *rel, rhs.clone());
            if rhs.is_negative() {
                r.iter_mut().for_each(|a| *a = -a.clone());
                rhs = -rhs;
                rel = match rel {
                    Relation::Le => Relation::Ge,
                    Relation::Ge => Relation::Le,
                    Relation::Eq => Relation::Eq,
                };
            }
            rows.push((r, rel, rhs));
        }
        let num_slack = rows.iter().filter(|r| r.1 != Relation::Eq).count();
        let num_art = rows.iter().filter(|r| r.1 != Relation::Le).count();
        let total = cols + num_slack + num_art;
        let art_start = cols + num_slack;
        let mut t: Vec<Vec<Rational>> = Vec::with_capacity(m);
        let mut basis = Vec::with_capacity(m);
        let (mut s, mut a) = (cols, art_start);
        for (r, rel, rhs) in rows {
            let mut row = r;
            row.resize(total + 1, Rational::zero());
            row[total] = rhs;
            match rel {
                Relation::Le => {
                    row[s] = Rational::one();
                    basis.push(s);
                    s += 1;
                }
                Relation::Ge => {
                    row[s] = -Rational::one();
                    s += 1;
                    row[a] = Rational::one();
                    basis.push(a);
                    a += 1;
                }
                Relation::Eq => {
                    row[a] = Rational::one();
                    basis.push(a);
                    a += 1;
                }
            }
            t.push(row);
        }
        // Phase 1: maximise -(sum of artificials).
        let mut cost = vec![Rational::zero(); total];
        for c in cost.iter_mut().skip(art_start) {
            *c = -Rational::one();
        }
        let allowed = total;
        run(&mut t, &mut basis, &cost, allowed).map_err(|_| LpError::Infeasible)?;
        let phase1: Rational = basis
            .iter()
            .zip(&t)
            .filter(|(&b, _)| b >= art_start)
            .map(|(_, r)| r[total].clone())
            .sum();
        if !phase1.is_zero() {
            return Err(LpError::Infeasible);
        }
        // Drive remaining (zero) artificials out of the basis, dropping redundant rows.
        let mut i = 0;
        while i < t.len() {
            if basis[i] >= art_start {
                if let Some(c) = (0..art_start).find(|&c| !t[i][c].is_zero()) {
                    pivot(&mut t, &mut basis, i, c);
                } else {
                    t.remove(i);
                    basis.remove(i);
                    continue;
                }
            }
            i += 1;
        }
        let mut cost = vec![Rational::zero(); total];
        for v in 0..n {
            cost[v] = self.objective[v].clone();
            if self.free[v] {
                cost[neg_col[v]] = -self.objective[v].clone();
            }
        }
        run(&mut t, &mut basis, &cost, art_start)?;
        let mut x = vec![Rational::zero(); total];
        for (r, &b) in t.iter().zip(&basis) {
            x[b] = r[total].clone();
        }
        let values: Vec<Rational> = (0..n)
            .map(|v| {
                if self.free[v] {
                    &x[v] - &x[neg_col[v]]
                } else {
                    x[v].clone()
                }
            })
            .collect();
        let objective = values.iter().zip(&self.objective).map(|(a, b)| a * b).sum();
        Ok(LpSolution {
            objective,
            values,
            duals: Vec::new(),
        })
    }
}

fn pivot(t: &mut [Vec<Rational>], basis: &mut [usize], r: usize, c: usize) {
    let lead = t[r][c].clone();
    for a in t[r].iter_mut() {
        *a /= &lead;
    }
    let prow = t[r].clone();
    for (i, row) in t.iter_mut().enumerate() {
        if i == r || row[c].is_zero() {
            continue;
        }
        let f = row[c].clone();
        for (a, b) in row.iter_mut().zip(&prow) {
            if !b.is_zero() {
                *a -= &f * b;
            }
        }
    }
    basis[r] = c;
}

/// Primal simplex maximising `cost . x` over columns `< allowed`, Bland's rule.
fn run(
    t: &mut [Vec<Rational>],
    basis: &mut [usize],
    cost: &[Rational],
    allowed: usize,
) -> Result<(), LpError> {
    let rhs = cost.len();
    loop {
        // Reduced cost of column c: cost_c - sum_i cost_{basis i} t[i][c].
        let entering = (0..allowed).find(|&c| {
            if basis.contains(&c) {
                return false;
            }
            let mut rc = cost[c].clone();
            for (row, &b) in t.iter().zip(basis.iter()) {
                if !cost[b].is_zero() && !row[c].is_zero() {
                    rc -= &cost[b] * &row[c];
                }
            }
            rc.is_positive()
        });
        let Some(c) = entering else { return Ok(()) };
        let mut best: Option<(usize, Rational)> = None;
        for (i, row) in t.iter().enumerate() {
            if row[c].is_positive() {
                let ratio = &row[rhs] / &row[c];
                let better = match &best {
                    None => true,
                    Some((bi, br)) => ratio < *br || (ratio == *br && basis[i] < basis[*bi]),
                };
                if better {
                    best = Some((i, ratio));
                }
            }
        }
        let Some((r, _)) = best else {
            return Err(LpError::Unbounded);
        };
        pivot(t, basis, r, c);
    }
}
