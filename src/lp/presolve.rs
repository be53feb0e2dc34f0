//! Presolve in exact arithmetic, with the exact way back.
//!
//! Game LPs carry structure a simplex pays for on every pivot: actions with the same
//! consequences give identical columns (player 1) or rows (player 2), a realization-plan
//! equation left with one child after those merge says `x_child = x_parent`, and a player-2
//! value variable left in two rows links them and nothing else. On goofspiel 5 with descending
//! points (the game is decided before the last tricks) that is three quarters of the LP, and
//! HiGHS's presolve finds it too. Every reduction here is made in rationals on the
//! [`LinearProgram`] and recorded; the reduced program is solved exactly, and postsolve
//! rebuilds an exact optimal primal point and exact duals of the original program, which is
//! then certified as any other solution ([`super::certify`]): a presolve bug can fail a
//! solve, never change an answer.
//!
//! The reductions (each kept only where it is exactly valid):
//! - parallel columns: `a_j = s a_k` and `c_j = s c_k` with `s > 0` (both non-negative or
//!   both free): `x_k` stands for `x_k + s x_j`, and `x_j = 0`;
//! - parallel rows: `a_r = s a_q` with `s > 0` and the same sense: the looser is dropped
//!   (its dual is 0);
//! - empty rows (satisfied: dropped) and empty columns (objective `<= 0`: fixed at 0);
//! - singleton inequality rows on a non-negative variable that force it to 0 (the column
//!   and the row go; the row's dual is set to make the column dual feasible) or that its
//!   bound already implies (dropped);
//! - substitution by an equation with one or two entries, `x_u = (b - a_v x_v) / a_u`, where
//!   the bounds of `x_u` follow from those of `x_v` (the equation's dual makes `x_u`'s
//!   reduced cost 0);
//! - Fourier–Motzkin elimination of a free column with zero cost in exactly two inequality
//!   rows, with opposite signs (the two rows become their positive combination; their duals
//!   are that combination's dual times the two factors);
//! - the aggregator (HiGHS's name): substitution by an equation of three or more entries of
//!   a variable whose bounds it implies, as a realization-plan equation
//!   `x_parent = sum x_child` implies `x_parent >= 0`, where the fill is small (Markowitz's
//!   count at most [`AGGREGATE_FILL`], the program's non-zeros at most a quarter above the
//!   original's). On Leduc it removes 253 of 1562 rows and saves a fifth of the float
//!   simplex; the same substitution on liars dice, whose parent sequences' columns are long,
//!   doubled the matrix and cost more than it saved, so [`worth_presolving`] lets it run only
//!   where one in ten rows qualifies.
//!
//! A crash basis given for the program ([`LinearProgram::set_start_basis`]) is carried
//! through every reduction where the determinant expansion along the removed row or column
//! says which basic entry goes with it; where it cannot be carried, the reduced program has
//! none.

use super::{BasisEntry, LinearProgram, LpError, Relation};
use crate::scalar::Rational;
use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use std::collections::HashMap;

/// A row of the working program.
#[derive(Clone, Debug)]
struct WRow {
    /// `(variable, coefficient)`, sorted by variable, no zeros.
    coeffs: Vec<(usize, Rational)>,
    rel: Relation,
    rhs: Rational,
    alive: bool,
}

impl WRow {
    fn coeff(&self, var: usize) -> Option<&Rational> {
        self.coeffs
            .binary_search_by_key(&var, |e| e.0)
            .ok()
            .map(|k| &self.coeffs[k].1)
    }
}

/// One reduction, with what postsolve needs to undo it.
#[derive(Clone, Debug)]
enum Reduction {
    /// Column `var` merged into a parallel column: `x_var = 0`.
    MergedColumn { var: usize },
    /// Row `row` dropped as implied; its dual is 0.
    DroppedRow { row: usize },
    /// Variable `var` fixed at 0, with the singleton row `row` that forced it (its
    /// coefficient and sense), if any; `col` is `var`'s column in the other rows and `cost`
    /// its objective at the time.
    FixedZero {
        var: usize,
        row: Option<(usize, Rational, Relation)>,
        col: Vec<(usize, Rational)>,
        cost: Rational,
    },
    /// `x_var = (rhs - sum others) / coeff` from equation `row`, substituted everywhere;
    /// `col` is `var`'s column in the other rows and `cost` its objective at the time.
    Substituted {
        var: usize,
        row: usize,
        coeff: Rational,
        rhs: Rational,
        others: Vec<(usize, Rational)>,
        col: Vec<(usize, Rational)>,
        cost: Rational,
    },
    /// Row `row` (as it was) dropped with the zero-cost column `var` that only loosens it:
    /// `x_var` is set to satisfy the row, whose dual is 0.
    Slack { var: usize, row: (usize, WRow) },
    /// Free `var` (cost 0) eliminated from rows `rows` (as they were), replaced by row
    /// `combined = factors[0] * rows[0] + factors[1] * rows[1]` (each row first written as
    /// `<=`: `sense` is -1 for a `>=` row).
    Eliminated {
        var: usize,
        rows: [(usize, WRow); 2],
        factors: [Rational; 2],
        combined: usize,
    },
}

/// Where a dropped row's basic slack can go when the row's own is not basic (carrying a
/// crash basis): to the parallel row kept, or to the one variable of a singleton row.
#[derive(Clone, Copy, Debug)]
enum Partner {
    None,
    Row(usize),
    Var(usize),
}

/// A program reduced by presolve, with the way back.
pub(crate) struct Presolved {
    /// The reduced program (with the crash basis carried over, if any).
    pub lp: LinearProgram,
    stack: Vec<Reduction>,
    /// Reduced variable -> original variable; reduced row -> working row.
    var_map: Vec<usize>,
    row_map: Vec<usize>,
    /// Working rows (original rows, then rows made by eliminations).
    working_rows: usize,
    num_vars: usize,
    num_rows: usize,
}

impl Presolved {
    /// Rows and columns the reductions removed.
    pub fn removed(&self) -> (usize, usize) {
        (
            self.num_rows - self.lp.num_constraints(),
            self.num_vars - self.lp.num_vars(),
        )
    }

    /// An optimal primal point and duals of the original program from those of the reduced
    /// one (exactly; the caller certifies them).
    pub fn postsolve(
        &self,
        values: &[Rational],
        duals: &[Rational],
    ) -> Result<(Vec<Rational>, Vec<Rational>), LpError> {
        let mut x = vec![Rational::zero(); self.num_vars];
        let mut y = vec![Rational::zero(); self.working_rows];
        for (k, &v) in self.var_map.iter().enumerate() {
            x[v] = values[k].clone();
        }
        for (k, &r) in self.row_map.iter().enumerate() {
            y[r] = duals[k].clone();
        }
        let dot = |col: &[(usize, Rational)], y: &[Rational]| -> Rational {
            let mut sum = LazySum::default();
            for (r, a) in col {
                sum.add_product(a, &y[*r]);
            }
            sum.value()
        };
        for red in self.stack.iter().rev() {
            match red {
                Reduction::MergedColumn { var, .. } => x[*var] = Rational::zero(),
                Reduction::DroppedRow { row, .. } => y[*row] = Rational::zero(),
                Reduction::FixedZero {
                    var,
                    row,
                    col,
                    cost,
                } => {
                    x[*var] = Rational::zero();
                    if let Some((r, a, rel)) = row {
                        // The reduced cost `t - a y_r` must be `<= 0`, with `y_r`'s sign
                        // set by the row's sense.
                        let t = cost - dot(col, &y);
                        y[*r] = singleton_dual(&t, a, *rel)?;
                    }
                }
                Reduction::Substituted {
                    var,
                    row,
                    coeff,
                    rhs,
                    others,
                    col,
                    cost,
                } => {
                    // `x_var = (rhs - others . x) / coeff`, `y_row = (cost - col . y) / coeff`,
                    // each reduced once.
                    let mut sum = LazySum::default();
                    sum.add_product(rhs, &Rational::one());
                    for (v, a) in others {
                        sum.add_product(a, &-&x[*v]);
                    }
                    x[*var] = sum.value_over(coeff);
                    let mut sum = LazySum::default();
                    sum.add_product(cost, &Rational::one());
                    for (r, a) in col {
                        if !y[*r].is_zero() {
                            sum.add_product(a, &-&y[*r]);
                        }
                    }
                    y[*row] = sum.value_over(coeff);
                }
                Reduction::Slack { var, row: (r, row) } => {
                    y[*r] = Rational::zero();
                    // `a x_var + rest rel rhs` with `a` loosening: the smallest `x_var >= 0`.
                    let (a, rest) = split_row(row, *var, &x);
                    // `<=` with `a < 0` and `>=` with `a > 0` both ask `x_var >= need`.
                    let need = div(&(&row.rhs - rest), &a);
                    x[*var] = need.max(Rational::zero());
                }
                Reduction::Eliminated {
                    var,
                    rows,
                    factors,
                    combined,
                } => {
                    let yc = y[*combined].clone();
                    let mut lo: Option<Rational> = None;
                    let mut hi: Option<Rational> = None;
                    for ((r, row), f) in rows.iter().zip(factors) {
                        let sense = if row.rel == Relation::Ge { -1 } else { 1 };
                        y[*r] = signed(&mul(&yc, f), sense);
                        // `a q <= b - rest` (as a `<=` row): a bound on `q`.
                        let (a, rest) = split_row(row, *var, &x);
                        let bound = div(&(&row.rhs - rest), &a);
                        let upper = (a.is_positive()) == (sense > 0);
                        if upper {
                            hi = Some(bound);
                        } else {
                            lo = Some(bound);
                        }
                    }
                    x[*var] = hi.or(lo).unwrap_or_else(Rational::zero);
                }
            }
        }
        y.truncate(self.num_rows);
        Ok((x, y))
    }
}

/// Row `row` split at `x`: the coefficient of `var`, and the rest of the row's left side.
fn split_row(row: &WRow, var: usize, x: &[Rational]) -> (Rational, Rational) {
    let mut a = Rational::zero();
    let mut rest = Rational::zero();
    for (v, c) in &row.coeffs {
        if *v == var {
            a = c.clone();
        } else if !x[*v].is_zero() {
            rest += mul(c, &x[*v]);
        }
    }
    (a, rest)
}

/// An exact sum of products of rationals that reduces once, at the end: the terms are
/// added over the running denominator (postsolve's values share one common denominator
/// from the reconstruction, so most terms need no cross-multiplication and no gcd).
#[derive(Default)]
struct LazySum {
    /// `numer / denom`, not in lowest terms; `denom` is `None` (1) until a fraction comes.
    numer: BigInt,
    denom: Option<BigInt>,
}

impl LazySum {
    /// Adds `a * b`.
    fn add_product(&mut self, a: &Rational, b: &Rational) {
        if a.is_zero() || b.is_zero() {
            return;
        }
        let p = a.numer() * b.numer();
        let q = match (a.denom().is_one(), b.denom().is_one()) {
            (true, true) => None,
            (true, false) => Some(b.denom().clone()),
            (false, true) => Some(a.denom().clone()),
            (false, false) => Some(a.denom() * b.denom()),
        };
        self.add(p, q);
    }

    /// Adds `p / q` (`q` `None`: 1).
    fn add(&mut self, p: BigInt, q: Option<BigInt>) {
        let Some(q) = q else {
            match &self.denom {
                None => self.numer += p,
                Some(d) => self.numer += p * d,
            }
            return;
        };
        match self.denom.take() {
            None => {
                self.numer = &self.numer * &q + p;
                self.denom = Some(q);
            }
            Some(d) if d == q => {
                self.numer += p;
                self.denom = Some(d);
            }
            Some(d) => {
                let (k, rem) = d.div_rem(&q);
                if rem.is_zero() {
                    self.numer += p * k;
                    self.denom = Some(d);
                } else {
                    let (k, rem) = q.div_rem(&d);
                    if rem.is_zero() {
                        self.numer = &self.numer * k + p;
                        self.denom = Some(q);
                    } else {
                        self.numer = &self.numer * &q + p * &d;
                        self.denom = Some(d * q);
                    }
                }
            }
        }
    }

    /// The sum, in lowest terms.
    fn value(self) -> Rational {
        match self.denom {
            None => Rational::from_integer(self.numer),
            Some(d) => crate::scalar::ratio(self.numer, d),
        }
    }

    /// The sum divided by `c` (non-zero), in lowest terms.
    fn value_over(self, c: &Rational) -> Rational {
        let numer = self.numer * c.denom();
        let denom = match self.denom {
            None => c.numer().clone(),
            Some(d) => d * c.numer(),
        };
        crate::scalar::ratio(numer, denom)
    }
}

/// The dual `y` of a singleton row with coefficient `a` and the given sense such that
/// `t - a y <= 0`.
fn singleton_dual(t: &Rational, a: &Rational, rel: Relation) -> Result<Rational, LpError> {
    // `a y >= t`: `y >= t / a` for `a > 0`, `y <= t / a` for `a < 0`.
    let q = t / a;
    let y = match (rel, a.is_positive()) {
        (Relation::Eq, _) => q,
        (Relation::Le, true) => q.max(Rational::zero()),
        (Relation::Ge, false) => q.min(Rational::zero()),
        _ => {
            return Err(LpError::Internal(
                "postsolve: no dual makes a fixed column dual feasible".to_string(),
            ))
        }
    };
    Ok(y)
}

/// `a * b`, without the gcds of a rational product when either is `1` or `-1` (most
/// coefficients of game LPs: the realization-plan and value-variable entries).
fn mul(a: &Rational, b: &Rational) -> Rational {
    match (unit(a), unit(b)) {
        (Some(sa), _) => signed(b, sa),
        (_, Some(sb)) => signed(a, sb),
        _ => a * b,
    }
}

/// `a / b`, as [`mul`].
fn div(a: &Rational, b: &Rational) -> Rational {
    match unit(b) {
        Some(sb) => signed(a, sb),
        None => a / b,
    }
}

/// `Some(1)` or `Some(-1)` for the rationals `1` and `-1`.
fn unit(a: &Rational) -> Option<i32> {
    if !a.is_integer() {
        return None;
    }
    let n = a.numer();
    if n.is_one() {
        Some(1)
    } else if (-n).is_one() {
        Some(-1)
    } else {
        None
    }
}

/// A crash basis carried through the reductions: per variable not basic (0), basic (1) or
/// its negative half basic (2); per working row whether its slack is basic.
struct Crash {
    var: Vec<u8>,
    slack: Vec<bool>,
    broken: bool,
}

/// Dirty marks of the rows and columns a reduction changed: `simple` for the cheap rules,
/// `parallel` for the comparison of rows and columns.
#[derive(Default)]
struct Dirty {
    simple: Vec<bool>,
    parallel: Vec<bool>,
}

impl Dirty {
    fn new(n: usize) -> Self {
        Dirty {
            simple: vec![true; n],
            parallel: vec![true; n],
        }
    }

    fn mark(&mut self, i: usize) {
        self.simple[i] = true;
        self.parallel[i] = true;
    }

    /// The marked indices of one kind, clearing the marks.
    fn take(marks: &mut [bool]) -> Vec<usize> {
        let out: Vec<usize> = (0..marks.len()).filter(|&i| marks[i]).collect();
        for &i in &out {
            marks[i] = false;
        }
        out
    }
}

/// The program being reduced.
struct Work {
    rows: Vec<WRow>,
    /// Per variable, the rows that may hold it (stale entries are dropped by `clean_col`).
    col_rows: Vec<Vec<usize>>,
    cost: Vec<Rational>,
    free: Vec<bool>,
    var_alive: Vec<bool>,
    stack: Vec<Reduction>,
    crash: Option<Crash>,
    dirty_rows: Dirty,
    dirty_cols: Dirty,
    /// Fingerprints of rows and columns seen by the parallel passes (entries may be stale:
    /// every match is checked exactly).
    row_groups: Groups,
    col_groups: Groups,
    /// Entries the substitutions by equations of three or more entries may still add (a
    /// quarter of the program's non-zeros at the start: the memory estimate allows for it).
    fill_room: i64,
}

/// The sign that writes a row as `<=` (`-1` for `>=`; equations have none).
fn sense(rel: Relation) -> Option<i32> {
    match rel {
        Relation::Le => Some(1),
        Relation::Ge => Some(-1),
        Relation::Eq => None,
    }
}

fn signed(v: &Rational, sign: i32) -> Rational {
    if sign < 0 {
        -v
    } else {
        v.clone()
    }
}

impl Work {
    /// Drops the stale entries of `var`'s row list and sorts it; returns its length.
    fn clean_col(&mut self, var: usize) -> usize {
        let rows = &self.rows;
        let list = &mut self.col_rows[var];
        list.retain(|&r| rows[r].alive && rows[r].coeff(var).is_some());
        list.sort_unstable();
        list.dedup();
        list.len()
    }

    /// `var`'s column: `(row, coefficient)` over live rows, sorted by row.
    fn col(&mut self, var: usize) -> Vec<(usize, Rational)> {
        self.clean_col(var);
        let rows = &self.rows;
        self.col_rows[var]
            .iter()
            .map(|&r| (r, rows[r].coeff(var).cloned().expect("cleaned")))
            .collect()
    }

    /// Adds `delta` to the coefficient of `var` in row `r`.
    fn add_to_row(&mut self, r: usize, var: usize, delta: &Rational) {
        let row = &mut self.rows[r];
        match row.coeffs.binary_search_by_key(&var, |e| e.0) {
            Ok(k) => {
                row.coeffs[k].1 += delta;
                if row.coeffs[k].1.is_zero() {
                    row.coeffs.remove(k);
                }
            }
            Err(k) => {
                if delta.is_zero() {
                    return;
                }
                row.coeffs.insert(k, (var, delta.clone()));
                self.col_rows[var].push(r);
            }
        }
        self.dirty_rows.mark(r);
        self.dirty_cols.mark(var);
    }

    fn remove_from_row(&mut self, r: usize, var: usize) {
        let row = &mut self.rows[r];
        if let Ok(k) = row.coeffs.binary_search_by_key(&var, |e| e.0) {
            row.coeffs.remove(k);
            self.dirty_rows.mark(r);
            self.dirty_cols.mark(var);
        }
    }

    /// Row `r` leaves the program: its variables' columns change.
    fn kill_row(&mut self, r: usize) {
        self.rows[r].alive = false;
        for k in 0..self.rows[r].coeffs.len() {
            let v = self.rows[r].coeffs[k].0;
            self.dirty_cols.mark(v);
        }
    }

    fn crash_mut(&mut self) -> Option<&mut Crash> {
        self.crash.as_mut().filter(|c| !c.broken)
    }

    /// Drops row `r` as implied (its dual will be 0).
    fn drop_row(&mut self, r: usize, partner: Partner) {
        self.kill_row(r);
        if let Some(c) = self.crash_mut() {
            if c.slack[r] {
                c.slack[r] = false;
            } else {
                match partner {
                    Partner::Row(q) if c.slack[q] => c.slack[q] = false,
                    Partner::Var(v) if c.var[v] != 0 => c.var[v] = 0,
                    _ => c.broken = true,
                }
            }
        }
        self.stack.push(Reduction::DroppedRow { row: r });
    }

    /// Fixes `var` at 0 (with the singleton row that forced it, if any).
    fn fix_zero(&mut self, var: usize, row: Option<usize>) {
        let col: Vec<(usize, Rational)> = self
            .col(var)
            .into_iter()
            .filter(|e| Some(e.0) != row)
            .collect();
        let row = row.map(|r| {
            let a = self.rows[r].coeff(var).cloned().expect("singleton row");
            (r, a, self.rows[r].rel)
        });
        for &(r, _) in &col {
            self.remove_from_row(r, var);
        }
        self.var_alive[var] = false;
        if let Some(c) = self.crash_mut() {
            let basic = c.var[var] != 0;
            match row {
                Some((r, ..)) => match (basic, c.slack[r]) {
                    (true, false) => c.var[var] = 0,
                    (false, true) => c.slack[r] = false,
                    _ => c.broken = true,
                },
                None if basic => c.broken = true,
                None => {}
            }
        }
        if let Some((r, ..)) = &row {
            self.kill_row(*r);
        }
        let cost = std::mem::take(&mut self.cost[var]);
        self.stack.push(Reduction::FixedZero {
            var,
            row,
            col,
            cost,
        });
    }

    /// Substitutes `var` out by equation `r` (`var = (rhs - others) / coeff`).
    fn substitute(&mut self, var: usize, r: usize) {
        let coeff = self.rows[r].coeff(var).cloned().expect("in the equation");
        let rhs = self.rows[r].rhs.clone();
        let others: Vec<(usize, Rational)> = self.rows[r]
            .coeffs
            .iter()
            .filter(|e| e.0 != var)
            .cloned()
            .collect();
        let col: Vec<(usize, Rational)> = self.col(var).into_iter().filter(|e| e.0 != r).collect();
        for (q, k) in &col {
            let f = div(k, &coeff);
            for (v, b) in &others {
                self.add_to_row(*q, *v, &-mul(&f, b));
            }
            if !rhs.is_zero() {
                let shift = mul(&f, &rhs);
                self.rows[*q].rhs -= shift;
            }
            self.remove_from_row(*q, var);
        }
        let cost = std::mem::take(&mut self.cost[var]);
        if !cost.is_zero() {
            for (v, b) in &others {
                let delta = div(&mul(&cost, b), &coeff);
                self.cost[*v] -= delta;
                self.dirty_cols.mark(*v);
            }
        }
        self.kill_row(r);
        self.var_alive[var] = false;
        if let Some(c) = self.crash_mut() {
            let basic_others: Vec<usize> = others
                .iter()
                .map(|e| e.0)
                .filter(|&v| c.var[v] != 0)
                .collect();
            if c.var[var] != 0 {
                c.var[var] = 0;
            } else if let [v] = basic_others[..] {
                c.var[v] = 0;
            } else {
                c.broken = true;
            }
        }
        self.stack.push(Reduction::Substituted {
            var,
            row: r,
            coeff,
            rhs,
            others,
            col,
            cost,
        });
    }

    /// Eliminates free `var` (cost 0) from its two inequality rows by their positive
    /// combination; `false` if the signs do not allow it.
    fn eliminate(&mut self, var: usize) -> bool {
        let (r0, r1) = (self.col_rows[var][0], self.col_rows[var][1]);
        let (Some(s0), Some(s1)) = (sense(self.rows[r0].rel), sense(self.rows[r1].rel)) else {
            return false;
        };
        let a0 = self.rows[r0].coeff(var).expect("cleaned");
        let a1 = self.rows[r1].coeff(var).expect("cleaned");
        let (e0, e1) = (signed(a0, s0), signed(a1, s1));
        if e0.is_positive() == e1.is_positive() {
            return false;
        }
        // Weights that cancel `var`: `|e1| * row0 + |e0| * row1` (each row as `<=`).
        let (f0, f1) = (e1.abs(), e0.abs());
        let (w0, w1) = (signed(&f0, s0), signed(&f1, s1));
        let (row0, row1) = (&self.rows[r0], &self.rows[r1]);
        let mut coeffs: Vec<(usize, Rational)> =
            Vec::with_capacity(row0.coeffs.len() + row1.coeffs.len());
        let (mut i, mut j) = (0, 0);
        while i < row0.coeffs.len() || j < row1.coeffs.len() {
            let v0 = row0.coeffs.get(i).map_or(usize::MAX, |e| e.0);
            let v1 = row1.coeffs.get(j).map_or(usize::MAX, |e| e.0);
            let v = v0.min(v1);
            let mut c = Rational::zero();
            if v0 == v {
                c += mul(&w0, &row0.coeffs[i].1);
                i += 1;
            }
            if v1 == v {
                c += mul(&w1, &row1.coeffs[j].1);
                j += 1;
            }
            if v != var && !c.is_zero() {
                coeffs.push((v, c));
            }
        }
        let rhs = mul(&w0, &row0.rhs) + mul(&w1, &row1.rhs);
        let (row0, row1) = (row0.clone(), row1.clone());
        let combined = self.rows.len();
        for (v, _) in &coeffs {
            self.col_rows[*v].push(combined);
        }
        self.rows.push(WRow {
            coeffs,
            rel: Relation::Le,
            rhs,
            alive: true,
        });
        self.dirty_rows.simple.push(true);
        self.dirty_rows.parallel.push(true);
        self.kill_row(r0);
        self.kill_row(r1);
        self.var_alive[var] = false;
        if let Some(c) = self.crash.as_mut() {
            c.slack.push(false);
            if !c.broken {
                let (b0, b1) = (c.slack[r0], c.slack[r1]);
                if c.var[var] == 0 || (b0 && b1) {
                    c.broken = true;
                } else {
                    c.var[var] = 0;
                    c.slack[r0] = false;
                    c.slack[r1] = false;
                    c.slack[combined] = b0 || b1;
                }
            }
        }
        self.stack.push(Reduction::Eliminated {
            var,
            rows: [(r0, row0), (r1, row1)],
            factors: [f0, f1],
            combined,
        });
        true
    }

    /// Whether equation `r` gives the bounds of `u` from those of the other variables:
    /// `x_u = rhs / a_u - sum (a_k / a_u) x_k >= 0` for all `x_k >= 0` (or `u` is free).
    fn implied_by(&self, u: usize, r: usize) -> bool {
        if self.free[u] {
            return true;
        }
        let row = &self.rows[r];
        let a = row.coeff(u).expect("in the row");
        // `rhs / a >= 0` by signs (no division).
        (row.rhs.is_zero() || row.rhs.is_positive() == a.is_positive())
            && row
                .coeffs
                .iter()
                .all(|(k, c)| *k == u || (!self.free[*k] && (c.is_positive() != a.is_positive())))
    }

    /// Substitutes out, by equation `r` of `len >= 3` entries, the variable of the shortest
    /// column among those whose bounds the equation implies (as a realization-plan equation
    /// `x_parent = sum x_child` implies `x_parent >= 0`; HiGHS's aggregator), when the fill
    /// it may add, `(column length - 1) * (len - 1)`, is at most [`AGGREGATE_FILL`] and
    /// within the room left. Returns whether it acted.
    fn aggregate(&mut self, r: usize, len: usize) -> bool {
        let mut pick: Option<(usize, usize)> = None;
        for k in 0..len {
            let x = self.rows[r].coeffs[k].0;
            if self.implied_by(x, r) {
                let c = self.clean_col(x);
                if pick.is_none_or(|(_, shortest)| c < shortest) {
                    pick = Some((x, c));
                }
            }
        }
        let Some((x, c)) = pick else {
            return false;
        };
        if (c - 1) * (len - 1) > AGGREGATE_FILL {
            return false;
        }
        // The entries it adds (an upper bound: cancellations are not counted) less those it
        // removes (`x`'s column and row `r`).
        let mut added = 0;
        for &q in &self.col_rows[x] {
            if q != r {
                let row = &self.rows[q];
                added += self.rows[r]
                    .coeffs
                    .iter()
                    .filter(|e| e.0 != x && row.coeff(e.0).is_none())
                    .count();
            }
        }
        let net = added as i64 - (c + len - 1) as i64;
        if net > self.fill_room {
            return false;
        }
        self.fill_room -= net;
        self.substitute(x, r);
        true
    }

    /// The rules on single rows and columns, over the rows and columns changed since the
    /// last call. Returns whether anything changed.
    fn simple_pass(&mut self) -> bool {
        let mut changed = false;
        for r in Dirty::take(&mut self.dirty_rows.simple) {
            if !self.rows[r].alive {
                continue;
            }
            let row = &self.rows[r];
            match row.coeffs.len() {
                0 => {
                    let ok = match row.rel {
                        Relation::Le => !row.rhs.is_negative(),
                        Relation::Ge => !row.rhs.is_positive(),
                        Relation::Eq => row.rhs.is_zero(),
                    };
                    if ok {
                        self.drop_row(r, Partner::None);
                        changed = true;
                    }
                }
                1 => {
                    let (v, a) = row.coeffs[0].clone();
                    let bound = &row.rhs / &a;
                    match sense(row.rel) {
                        None => {
                            if self.free[v] || !bound.is_negative() {
                                self.substitute(v, r);
                                changed = true;
                            }
                        }
                        Some(s) if !self.free[v] => {
                            if signed(&a, s).is_positive() {
                                // `x_v <= bound`: forces 0 at bound 0.
                                if bound.is_zero() {
                                    self.fix_zero(v, Some(r));
                                    changed = true;
                                }
                            } else if !bound.is_positive() {
                                // `x_v >= bound <= 0`: implied.
                                self.drop_row(r, Partner::Var(v));
                                changed = true;
                            }
                        }
                        Some(_) => {}
                    }
                }
                2 if row.rel == Relation::Eq => {
                    // Substitute an implied variable, the one of the shorter column. (Longer
                    // equations are left alone: substituting the parent sequence of liars
                    // dice's realization-plan equations removed a tenth of the rows but
                    // cost more than it saved, with its fill.)
                    let (u, v) = (row.coeffs[0].0, row.coeffs[1].0);
                    let mut pick = None;
                    for x in [u, v] {
                        if self.implied_by(x, r)
                            && pick.is_none_or(|p: usize| self.clean_col(x) < self.clean_col(p))
                        {
                            pick = Some(x);
                        }
                    }
                    if let Some(x) = pick {
                        self.substitute(x, r);
                        changed = true;
                    }
                }
                len if row.rel == Relation::Eq => changed |= self.aggregate(r, len),
                _ => {}
            }
        }
        for v in Dirty::take(&mut self.dirty_cols.simple) {
            if !self.var_alive[v] {
                continue;
            }
            match self.clean_col(v) {
                0 => {
                    let c = &self.cost[v];
                    if (self.free[v] && c.is_zero()) || (!self.free[v] && !c.is_positive()) {
                        self.fix_zero(v, None);
                        changed = true;
                    }
                }
                2 if self.free[v] && self.cost[v].is_zero() => {
                    changed |= self.eliminate(v);
                }
                len if !self.free[v] => changed |= self.dominated(v, len),
                _ => {}
            }
        }
        changed
    }

    /// A non-negative column whose every entry only tightens its rows (`<=` rows with
    /// coefficients `>= 0`, `>=` rows `<= 0`) and whose objective is `<= 0` is 0 at some
    /// optimum: fixed. One with zero cost that only loosens its one row makes that row
    /// redundant: both go. Returns whether it acted.
    fn dominated(&mut self, v: usize, len: usize) -> bool {
        let (mut tightens, mut loosens) = (true, true);
        for &r in &self.col_rows[v] {
            let row = &self.rows[r];
            let Some(s) = sense(row.rel) else {
                return false;
            };
            let a = signed(row.coeff(v).expect("cleaned"), s);
            tightens &= a.is_positive();
            loosens &= a.is_negative();
        }
        if tightens && !self.cost[v].is_positive() {
            self.fix_zero(v, None);
            return true;
        }
        if loosens && len == 1 && self.cost[v].is_zero() {
            let r = self.col_rows[v][0];
            self.drop_singleton_slack(v, r);
            return true;
        }
        false
    }

    /// Row `r` and the zero-cost column `v` that only loosens it (its only row) go: `x_v`
    /// takes up whatever slack the row needs.
    fn drop_singleton_slack(&mut self, v: usize, r: usize) {
        let row = self.rows[r].clone();
        self.kill_row(r);
        self.var_alive[v] = false;
        if let Some(c) = self.crash_mut() {
            match (c.var[v] != 0, c.slack[r]) {
                (true, false) => c.var[v] = 0,
                (false, true) => c.slack[r] = false,
                _ => c.broken = true,
            }
        }
        self.stack.push(Reduction::Slack {
            var: v,
            row: (r, row),
        });
    }
}

/// A fingerprint of a vector up to a positive factor: a hash of each entry's index and its
/// ratio to the first entry's magnitude in floats (rounded to 40 bits). Equal vectors up to
/// a positive factor have equal fingerprints; candidates are then compared exactly.
fn fingerprint<'a>(entries: impl Iterator<Item = (usize, &'a Rational)> + Clone) -> u64 {
    let f = crate::scalar::rational_to_f64;
    let first = entries.clone().next().map_or(1.0, |(_, v)| f(v).abs());
    entries.fold(0, |h, (i, v)| mix(h, i, f(v) / first))
}

/// Passes a fingerprint (already mixed) through as its own hash.
#[derive(Default)]
struct Fingerprints(u64);

impl std::hash::Hasher for Fingerprints {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

/// Rows or columns by fingerprint.
type Groups = HashMap<u64, Vec<usize>, std::hash::BuildHasherDefault<Fingerprints>>;

/// Whether `b = s a` for one `s > 0` (same indices), and that `s`.
fn positive_multiple<'a>(
    a: impl ExactSizeIterator<Item = (usize, &'a Rational)>,
    b: impl ExactSizeIterator<Item = (usize, &'a Rational)>,
) -> Option<Rational> {
    if a.len() != b.len() || a.len() == 0 {
        return None;
    }
    let mut s: Option<Rational> = None;
    for ((i, x), (j, y)) in a.zip(b) {
        if i != j {
            return None;
        }
        match &s {
            None => {
                let r = div(y, x);
                if !r.is_positive() {
                    return None;
                }
                s = Some(r);
            }
            Some(r) => {
                if &mul(x, r) != y {
                    return None;
                }
            }
        }
    }
    s
}

impl Work {
    /// Column `v` with its objective as one more entry (index `usize::MAX`), by reference.
    fn col_with_cost(&self, v: usize) -> impl ExactSizeIterator<Item = (usize, &Rational)> + Clone {
        let rows = &self.rows;
        self.col_rows[v]
            .iter()
            .map(move |&r| (r, rows[r].coeff(v).expect("cleaned")))
            .chain(std::iter::once((usize::MAX, &self.cost[v])))
            .collect::<Vec<_>>()
            .into_iter()
    }

    /// Merges parallel columns among those changed since the last call; returns whether
    /// anything changed.
    fn parallel_columns(&mut self) -> bool {
        let mut changed = false;
        for v in Dirty::take(&mut self.dirty_cols.parallel) {
            if !self.var_alive[v] || self.clean_col(v) == 0 {
                continue;
            }
            let key = fingerprint(self.col_with_cost(v)) ^ u64::from(self.free[v]);
            let candidates = self.col_groups.get(&key).cloned().unwrap_or_default();
            let mut like = None;
            for k in candidates {
                if k == v || !self.var_alive[k] || self.clean_col(k) == 0 {
                    continue;
                }
                if positive_multiple(self.col_with_cost(k), self.col_with_cost(v)).is_some() {
                    like = Some(k);
                    break;
                }
            }
            match like {
                Some(k) => {
                    self.merge_column(v, k);
                    changed = true;
                }
                None => self.col_groups.entry(key).or_default().push(v),
            }
        }
        changed
    }

    /// Column `var` is a positive multiple of column `keep`: `keep` stands for both.
    fn merge_column(&mut self, var: usize, keep: usize) {
        self.clean_col(var);
        for k in 0..self.col_rows[var].len() {
            let r = self.col_rows[var][k];
            self.remove_from_row(r, var);
        }
        self.var_alive[var] = false;
        self.cost[var] = Rational::zero();
        if let Some(c) = self.crash_mut() {
            if c.var[var] != 0 {
                if c.var[keep] != 0 {
                    c.broken = true;
                } else {
                    c.var[keep] = c.var[var];
                    c.var[var] = 0;
                }
            }
        }
        self.stack.push(Reduction::MergedColumn { var });
    }

    /// Drops rows implied by a parallel row, among the rows changed since the last call;
    /// returns whether anything changed.
    fn parallel_rows(&mut self) -> bool {
        let mut changed = false;
        for r in Dirty::take(&mut self.dirty_rows.parallel) {
            if !self.rows[r].alive || self.rows[r].coeffs.is_empty() {
                continue;
            }
            let key = fingerprint(self.rows[r].coeffs.iter().map(|(v, c)| (*v, c)));
            let candidates = self.row_groups.get(&key).cloned().unwrap_or_default();
            let mut done = false;
            for k in candidates {
                if k == r || !self.rows[k].alive || self.rows[k].rel != self.rows[r].rel {
                    continue;
                }
                let (rk, rr) = (&self.rows[k], &self.rows[r]);
                let Some(s) = positive_multiple(
                    rk.coeffs.iter().map(|(v, c)| (*v, c)),
                    rr.coeffs.iter().map(|(v, c)| (*v, c)),
                ) else {
                    continue;
                };
                // Row r is `s a x rel b_r`, i.e. `a x rel b_r / s`, against `a x rel b_k`.
                let br = div(&rr.rhs, &s);
                let bk = &rk.rhs;
                let (drop, keep) = match rr.rel {
                    Relation::Le if &br >= bk => (r, k),
                    Relation::Le => (k, r),
                    Relation::Ge if &br <= bk => (r, k),
                    Relation::Ge => (k, r),
                    Relation::Eq if &br == bk => (r, k),
                    // Inconsistent equations: the solver reports the program infeasible.
                    Relation::Eq => continue,
                };
                // A crash basis carries over to the kept row only between equal rows.
                let partner = if &br == bk {
                    Partner::Row(keep)
                } else {
                    Partner::None
                };
                self.drop_row(drop, partner);
                changed = true;
                done = drop == r;
                if !done {
                    // Row k went: r takes its place in the group.
                    self.row_groups
                        .get_mut(&key)
                        .expect("candidates came from it")
                        .push(r);
                    done = true;
                }
                break;
            }
            if !done {
                self.row_groups.entry(key).or_default().push(r);
            }
        }
        changed
    }
}

/// Largest `(column length - 1) * (row length - 1)` of a substitution by an equation of three
/// or more entries: the fill it may add (Markowitz's count).
const AGGREGATE_FILL: usize = 16;

/// One step of the fingerprint hash of [`worth_presolving`]: index `i`, value ratio `x`.
fn mix(h: u64, i: usize, x: f64) -> u64 {
    // Multiplying only carries bits upwards: each shift brings the high bits (the sign of
    // `x` among them) back down.
    let mut h = (h ^ i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 31;
    h = (h ^ (x.to_bits() & !0xFFF)).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    h ^ (h >> 29)
}

/// Whether at least one in a hundred rows and columns of `lp` look parallel to another (by
/// float fingerprints, one pass over the matrix), or one in ten rows is an equation the
/// aggregator would substitute ([`substitutable_rows`]): presolve runs only then. Without
/// either its other rules find little and cost more than they save (measured on liars dice
/// and one-card poker: a few rows removed for a tenth of the solve's work), while
/// goofspiel's merged actions cascade into most of its LP and Leduc's plan equations into a
/// sixth.
fn worth_presolving(lp: &LinearProgram) -> bool {
    let n = lp.num_vars;
    let f = crate::scalar::rational_to_f64;
    let mut col_hash = vec![0u64; n];
    let mut col_first = vec![0f64; n];
    let mut row_keys: Vec<u64> = Vec::with_capacity(lp.rows.len());
    for (r, row) in lp.rows.iter().enumerate() {
        let mut h = row.rel as u64 + 1;
        let first = row.coeffs.first().map_or(1.0, |e| f(&e.1).abs());
        for (v, c) in &row.coeffs {
            let x = f(c);
            h = mix(h, *v, x / first);
            if col_first[*v] == 0.0 {
                col_first[*v] = x.abs();
            }
            col_hash[*v] = mix(col_hash[*v], r, x / col_first[*v]);
        }
        if !row.coeffs.is_empty() {
            row_keys.push(h);
        }
    }
    let mut col_keys: Vec<u64> = (0..n)
        .filter(|&v| col_first[v] != 0.0)
        .map(|v| {
            let h = mix(col_hash[v], usize::MAX, f(&lp.objective[v]) / col_first[v]);
            h ^ u64::from(lp.free[v])
        })
        .collect();
    let repeats = |keys: &mut Vec<u64>| {
        keys.sort_unstable();
        keys.windows(2).filter(|w| w[0] == w[1]).count()
    };
    let found = repeats(&mut row_keys) + repeats(&mut col_keys);
    found * 100 >= lp.rows.len() + n || substitutable_rows(lp) * 10 >= lp.rows.len()
}

/// The equations of three or more entries with a variable [`Work::aggregate`] would
/// substitute (bounds implied, fill within [`AGGREGATE_FILL`]), counted on the program as
/// given (one pass over the matrix). Leduc has 366 in 1562 rows and goofspiel 5 1062 in
/// 3347; liars dice none (its parent sequences' columns are long) and one-card poker 8 in
/// 602.
fn substitutable_rows(lp: &LinearProgram) -> usize {
    let mut col_len = vec![0usize; lp.num_vars];
    for row in &lp.rows {
        for (v, _) in &row.coeffs {
            col_len[*v] += 1;
        }
    }
    lp.rows
        .iter()
        .filter(|row| row.rel == Relation::Eq && row.coeffs.len() >= 3)
        .filter(|row| {
            let len = row.coeffs.len();
            let pos = row.coeffs.iter().filter(|e| e.1.is_positive()).count();
            let any_free = row.coeffs.iter().any(|e| lp.free[e.0]);
            row.coeffs.iter().any(|(u, a)| {
                let implied = lp.free[*u]
                    || (!any_free
                        && !(&row.rhs / a).is_negative()
                        && if a.is_positive() {
                            pos == 1
                        } else {
                            pos == len - 1
                        });
                implied && (col_len[*u] - 1) * (len - 1) <= AGGREGATE_FILL
            })
        })
        .count()
}

/// Presolves `lp` (whose input has been validated). `None` when nothing reduces or, unless
/// `always`, when it is not worth it ([`worth_presolving`]).
pub(crate) fn presolve(lp: &LinearProgram, always: bool) -> Option<Presolved> {
    if !always && !worth_presolving(lp) {
        return None;
    }
    let n = lp.num_vars;
    let m = lp.rows.len();
    let mut work = Work {
        rows: lp
            .rows
            .iter()
            .map(|r| WRow {
                coeffs: r.coeffs.clone(),
                rel: r.rel,
                rhs: r.rhs.clone(),
                alive: true,
            })
            .collect(),
        col_rows: vec![Vec::new(); n],
        cost: lp.objective.clone(),
        free: lp.free.clone(),
        var_alive: vec![true; n],
        stack: Vec::new(),
        dirty_rows: Dirty::new(m),
        dirty_cols: Dirty::new(n),
        row_groups: Groups::default(),
        col_groups: Groups::default(),
        fill_room: (lp.rows.iter().map(|r| r.coeffs.len()).sum::<usize>() / 4) as i64,
        crash: lp
            .fallback_start
            .as_ref()
            .or(lp.start.as_ref())
            .map(|entries| {
                let mut c = Crash {
                    var: vec![0; n],
                    slack: vec![false; m],
                    broken: entries.len() != m,
                };
                for e in entries {
                    match *e {
                        BasisEntry::Var(v) if v < n => c.var[v] = 1,
                        BasisEntry::NegVar(v) if v < n && lp.free[v] => c.var[v] = 2,
                        BasisEntry::Slack(i) if i < m && lp.rows[i].rel != Relation::Eq => {
                            c.slack[i] = true
                        }
                        _ => c.broken = true,
                    }
                }
                c
            }),
    };
    for (r, row) in work.rows.iter().enumerate() {
        for (v, _) in &row.coeffs {
            work.col_rows[*v].push(r);
        }
    }
    for _ in 0..50 {
        let mut changed = work.simple_pass();
        changed |= work.parallel_columns();
        changed |= work.parallel_rows();
        if !changed {
            break;
        }
    }
    if work.stack.is_empty() {
        return None;
    }
    // The reduced program over the live variables and rows.
    let var_map: Vec<usize> = (0..n).filter(|&v| work.var_alive[v]).collect();
    let mut new_var = vec![usize::MAX; n];
    for (k, &v) in var_map.iter().enumerate() {
        new_var[v] = k;
    }
    let row_map: Vec<usize> = (0..work.rows.len())
        .filter(|&r| work.rows[r].alive)
        .collect();
    let mut reduced = LinearProgram::new(var_map.len());
    for (k, &v) in var_map.iter().enumerate() {
        reduced.set_objective(k, work.cost[v].clone());
        if work.free[v] {
            reduced.set_free(k);
        }
    }
    for &r in &row_map {
        let row = &work.rows[r];
        let coeffs = row
            .coeffs
            .iter()
            .map(|(v, c)| (new_var[*v], c.clone()))
            .collect();
        reduced.add_constraint(coeffs, row.rel, row.rhs.clone());
    }
    if let Some(c) = work.crash.as_ref().filter(|c| !c.broken) {
        let mut entries: Vec<BasisEntry> = Vec::with_capacity(row_map.len());
        for (k, &v) in var_map.iter().enumerate() {
            match c.var[v] {
                1 => entries.push(BasisEntry::Var(k)),
                2 => entries.push(BasisEntry::NegVar(k)),
                _ => {}
            }
        }
        for (k, &r) in row_map.iter().enumerate() {
            if c.slack[r] {
                entries.push(BasisEntry::Slack(k));
            }
        }
        if entries.len() == row_map.len() {
            reduced.set_start_basis(entries);
        }
    }
    Some(Presolved {
        lp: reduced,
        stack: work.stack,
        var_map,
        row_map,
        working_rows: work.rows.len(),
        num_vars: n,
        num_rows: m,
    })
}

#[cfg(test)]
mod lazy_sum_tests {
    use super::LazySum;
    use crate::scalar::rat;

    /// The lazy sum equals the rational sum, with equal, dividing, multiple and coprime
    /// denominators, integers, zeros and cancellation.
    #[test]
    fn lazy_sum_is_the_rational_sum() {
        let terms = [
            (rat(1, 3), rat(2, 5)),
            (rat(4, 1), rat(1, 15)),
            (rat(-7, 2), rat(3, 1)),
            (rat(0, 1), rat(9, 7)),
            (rat(5, 1), rat(-2, 1)),
            (rat(1, 7), rat(1, 11)),
            (rat(-1, 3), rat(2, 5)),
        ];
        let mut lazy = LazySum::default();
        let mut exact = rat(0, 1);
        for (a, b) in &terms {
            lazy.add_product(a, b);
            exact += a * b;
        }
        let mut again = LazySum::default();
        for (a, b) in &terms {
            again.add_product(a, b);
        }
        assert_eq!(again.value_over(&rat(-3, 4)), &exact / rat(-3, 4));
        assert_eq!(lazy.value(), exact);
        assert_eq!(LazySum::default().value(), rat(0, 1));
    }
}
