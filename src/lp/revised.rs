//! A sparse revised simplex in floating point that only has to find a good basis: the exact
//! layer ([`super::guided`]) recomputes and certifies everything it returns.
//!
//! The program is taken as `A x + z = b` with bounds on every variable: a structural column
//! per variable (a free variable is one column with no bounds, not the standard form's two
//! halves) and an implicit logical `z_i` per row (`[0, inf)` for a `<=` row, `(-inf, 0]` for
//! `>=`, `[0, 0]` for `=`). Logicals are unit columns, so the pivot row's logical part is the
//! row of `B^{-1}` itself and never goes through the matrix: on the sequence-form LP that and
//! the undivided free columns take about a third off the work of each pivot row.
//!
//! The basis is kept as a sparse LU ([`super::sparse_lu`]) whose solves touch only the
//! non-zeros they meet, with Forrest–Tomlin updates; it is refactorised when the work the
//! updated solves measure exceeds the average since the factorisation (factorisation
//! included): the classic rule for the cheapest work per pivot, on this machine's own counts
//! rather than a fixed number of updates. The matrix is kept by columns and by rows, each
//! row's nonbasic columns first (as HiGHS keeps it), so the pivot row never visits a basic
//! column. Everything a pivot row touches for one column (its entry of the row, reduced
//! cost, pricing weight, status) sits in one record: the row's columns lie scattered over
//! arrays larger than the cache, and one miss per column instead of four is most of the
//! speed of the pivot on large programs.
//!
//! Two simplex methods share all of this:
//! - the primal simplex with Devex pricing (Forrest and Goldfarb's approximate steepest
//!   edge) over a list of the columns whose reduced costs qualify, Harris's two-pass ratio
//!   test with bound flips of boxed entering columns, and a small deterministic perturbation
//!   of the right-hand sides against the heavy degeneracy of game LPs; it runs from a
//!   primal feasible crash basis (the sequence-form LP supplies one) or after a phase 1 on
//!   artificial columns;
//! - the dual simplex with dual steepest-edge pricing (Forrest and Goldfarb 1992, the
//!   weights updated with one more FTRAN per pivot) over a list of the primal
//!   infeasibilities, and the bound-flipping ratio test (Fourer 1994; Maros 2003): boxed
//!   columns whose breakpoints the dual step passes flip to their other bound instead of
//!   entering, one FTRAN for all of them. It repairs the primal infeasibility that removing
//!   the perturbation leaves, and can solve from a dual feasible basis ([`Method`]).
//!
//! [`Method`]: super::Method

use super::sparse_lu::SparseLu;
use super::StandardForm;
use super::{LpProgress, ProgressFn};
use crate::prefetch::prefetch;
use crate::scalar::rational_to_f64;

/// What the float simplex found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FloatOutcome {
    /// An (approximately) optimal basis: `basis[row]` is a standard-form column, or `None`
    /// where the basis holds an equality row's logical or an artificial variable.
    Optimal {
        /// Basic column per row.
        basis: Vec<Option<usize>>,
        /// Pivots made.
        pivots: usize,
    },
    /// The phase-1 optimum left artificial variables positive.
    Infeasible {
        /// Pivots made.
        pivots: usize,
    },
    /// A column with positive reduced cost had no positive entry.
    Unbounded {
        /// The primal feasible basis at which the ray was found.
        basis: Vec<Option<usize>>,
        /// Pivots made.
        pivots: usize,
    },
    /// The iteration limit was reached or the basis became numerically singular.
    Stalled {
        /// Why.
        reason: String,
        /// Pivots made.
        pivots: usize,
    },
}

const PIVOT_TOL: f64 = 1e-9;
const COST_TOL: f64 = 1e-9;
/// Primal feasibility tolerance (bounds of basic variables).
const FEAS_TOL: f64 = 1e-9;
/// The pricing tolerance of the clean-up after the perturbation is removed.
const FINAL_COST_TOL: f64 = 1e-12;
/// The next factor of a perturbation, in [0.5, 1.5), from the xorshift state `seed`.
fn jitter(seed: &mut u64) -> f64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    0.5 + (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// Degenerate pivots in a row after which the clean-up perturbs (see [`Simplex::perturb`]):
/// far more than a sound degenerate stretch takes on the benchmark programs (none reaches
/// it up to liars dice 1x7), far fewer than the 114 000 of liars dice 1x8's stall.
fn stall_limit(m: usize) -> usize {
    #[cfg(test)]
    if let Some(limit) = test_hooks::STALL_LIMIT.with(|c| c.get()) {
        return limit;
    }
    2000 + m / 50
}

/// Test hooks: a stall limit forced on this thread, and a count of the perturbations.
#[cfg(test)]
pub(crate) mod test_hooks {
    use std::cell::Cell;
    thread_local! {
        /// Overrides [`super::stall_limit`] on this thread (0: every clean-up stalls).
        pub(crate) static STALL_LIMIT: Cell<Option<usize>> = const { Cell::new(None) };
        /// Clean-up perturbations made on this thread.
        pub(crate) static PERTURBATIONS: Cell<usize> = const { Cell::new(0) };
    }
}

/// Smallest dual steepest-edge weight kept after an update (HiGHS uses the same floor).
const MIN_DSE_WEIGHT: f64 = 1e-4;

/// A variable's place: basic, or nonbasic free to move up, down, both, or neither.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Basic,
    /// Nonbasic at its lower bound (it can only increase).
    AtLower,
    /// Nonbasic at its upper bound (it can only decrease).
    AtUpper,
    /// Nonbasic free variable (at zero, either direction).
    Free,
    /// Nonbasic with equal bounds (never enters).
    Fixed,
}

/// What a pivot row needs of one variable, together: its entry of the pivot row being built
/// (`0` = not touched yet), reduced cost, pricing weight, status and whether it is listed as
/// a pricing candidate.
#[derive(Clone, Copy)]
struct Hot {
    row: f64,
    d: f64,
    weight: f64,
    status: Status,
    candidate: bool,
}

/// The structural (and artificial) columns by columns: column `j` is
/// `index[start[j]..start[j + 1]]` with `value` alongside.
struct Columns {
    start: Vec<usize>,
    index: Vec<u32>,
    value: Vec<f64>,
}

impl Columns {
    fn col(&self, j: usize) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (a, b) = (self.start[j], self.start[j + 1]);
        self.index[a..b]
            .iter()
            .zip(&self.value[a..b])
            .map(|(&i, &v)| (i as usize, v))
    }

    fn len(&self, j: usize) -> usize {
        self.start[j + 1] - self.start[j]
    }
}

/// One entry of [`RowParts`]: its column, its index in that column's list, its value.
#[derive(Clone, Copy)]
struct RowEntry {
    col: u32,
    k: u32,
    value: f64,
}

/// The column-stored matrix by rows, each row's nonbasic columns first (as HiGHS keeps it),
/// so that the row-wise PRICE of the pivot row never visits a basic column (on liars dice 5
/// sides that cut PRICE's instructions by a quarter). A basis change moves each entry of the
/// two columns across its row's boundary by one swap.
struct RowParts {
    entries: Vec<RowEntry>,
    /// Row `i`'s entries are `entries[start[i]..start[i + 1]]`, nonbasic ones first.
    start: Vec<usize>,
    /// Nonbasic entries per row.
    nonbasic: Vec<usize>,
    /// `slot[a.start[j] + k]`: where column `j`'s `k`-th entry sits in `entries`.
    slot: Vec<usize>,
}

impl RowParts {
    fn new(a: &Columns, m: usize, is_basic: impl Fn(usize) -> bool) -> Self {
        let cols = a.start.len() - 1;
        let mut start = vec![0usize; m + 1];
        for &i in &a.index {
            start[i as usize + 1] += 1;
        }
        for i in 0..m {
            start[i + 1] += start[i];
        }
        let mut parts = Self {
            entries: vec![
                RowEntry {
                    col: 0,
                    k: 0,
                    value: 0.0
                };
                start[m]
            ],
            nonbasic: vec![0; m],
            slot: vec![0; a.index.len()],
            start,
        };
        // Nonbasic columns fill each row from its front, basic ones from its back.
        let mut back: Vec<usize> = parts.start[1..].to_vec();
        for j in 0..cols {
            let basic = is_basic(j);
            for (k, (i, value)) in a.col(j).enumerate() {
                let at = if basic {
                    back[i] -= 1;
                    back[i]
                } else {
                    parts.nonbasic[i] += 1;
                    parts.start[i] + parts.nonbasic[i] - 1
                };
                // The memory budget, checked before the LP is built, keeps the columns and
                // a column's entries far below 2^32.
                parts.entries[at] = RowEntry {
                    col: u32::try_from(j).expect("LP columns fit in u32"),
                    k: u32::try_from(k).expect("column entries fit in u32"),
                    value,
                };
                parts.slot[a.start[j] + k] = at;
            }
        }
        parts
    }

    /// Row `i`'s nonbasic entries.
    fn nonbasic_row(&self, i: usize) -> &[RowEntry] {
        &self.entries[self.start[i]..self.start[i] + self.nonbasic[i]]
    }

    fn swap(&mut self, a: &Columns, x: usize, y: usize) {
        self.entries.swap(x, y);
        for at in [x, y] {
            let e = self.entries[at];
            self.slot[a.start[e.col as usize] + e.k as usize] = at;
        }
    }

    /// Column `j` becomes basic.
    fn enter(&mut self, a: &Columns, j: usize) {
        for k in 0..a.len(j) {
            let i = a.index[a.start[j] + k] as usize;
            let at = self.slot[a.start[j] + k];
            self.nonbasic[i] -= 1;
            self.swap(a, at, self.start[i] + self.nonbasic[i]);
        }
    }

    /// Column `j` becomes nonbasic.
    fn leave(&mut self, a: &Columns, j: usize) {
        for k in 0..a.len(j) {
            let i = a.index[a.start[j] + k] as usize;
            let at = self.slot[a.start[j] + k];
            self.swap(a, at, self.start[i] + self.nonbasic[i]);
            self.nonbasic[i] += 1;
        }
    }
}

/// The program as the simplex sees it: `maximize cost^T x` over `A x + z = b`, bounds on
/// `x` (structural and artificial columns, `0..cols`) and on the logicals `z` (variables
/// `cols..cols + m`), with the way back to the standard form's columns.
struct Bounded {
    m: usize,
    /// Structural columns (one per program variable), then artificial columns.
    a: Columns,
    /// Structural columns (artificials follow them).
    structurals: usize,
    cost: Vec<f64>,
    lower: Vec<f64>,
    upper: Vec<f64>,
    b: Vec<f64>,
    /// Per variable, the standard-form column it is when basic with a non-negative value,
    /// and (free variables) with a negative one; `None` for artificials and equality rows'
    /// logicals.
    sf_col: Vec<(Option<usize>, Option<usize>)>,
    /// The crash basis as variables, if the standard form had one.
    start: Option<Vec<usize>>,
}

impl Bounded {
    /// The bounded form of `sf`, with an artificial column for every row whose logical cannot
    /// hold `b_i` (equality rows with `b_i != 0` and `>=` rows with `b_i > 0`); they start
    /// fixed at zero when a crash basis is given.
    fn new(sf: &StandardForm, start: Option<&[usize]>) -> Self {
        let m = sf.rows;
        let nv = sf.var_cols.len();
        let mut a = Columns {
            start: vec![0],
            index: Vec::new(),
            value: Vec::new(),
        };
        let (mut cost, mut lower, mut upper, mut sf_col) = (vec![], vec![], vec![], vec![]);
        for &(pos, neg) in &sf.var_cols {
            for (i, v) in &sf.cols[pos] {
                a.index.push(u32::try_from(*i).expect("LP rows fit in u32"));
                a.value.push(rational_to_f64(v));
            }
            a.start.push(a.index.len());
            cost.push(rational_to_f64(&sf.cost[pos]));
            lower.push(if neg.is_some() {
                f64::NEG_INFINITY
            } else {
                0.0
            });
            upper.push(f64::INFINITY);
            sf_col.push((Some(pos), neg));
        }
        // Logicals: a `+1` slack is `z` in `[0, inf)`; a `-1` slack `s = -z`: `z` in
        // `(-inf, 0]`; no slack: `z = 0`.
        let mut log_lower = vec![0.0; m];
        let mut log_upper = vec![0.0; m];
        let mut log_col = vec![(None, None); m];
        for i in 0..m {
            if let Some(c) = sf.slack_col[i] {
                if rational_to_f64(&sf.cols[c][0].1) > 0.0 {
                    log_upper[i] = f64::INFINITY;
                } else {
                    log_lower[i] = f64::NEG_INFINITY;
                }
                log_col[i] = (Some(c), Some(c));
            }
        }
        let b: Vec<f64> = sf.b.iter().map(rational_to_f64).collect();
        for i in 0..m {
            if b[i] > log_upper[i] || b[i] < log_lower[i] {
                a.index.push(u32::try_from(i).expect("LP rows fit in u32"));
                a.value.push(1.0);
                a.start.push(a.index.len());
                cost.push(0.0);
                lower.push(0.0);
                upper.push(if start.is_some() { 0.0 } else { f64::INFINITY });
                sf_col.push((None, None));
            }
        }
        let cols = a.start.len() - 1;
        // The crash basis as variables: a free variable's either half is the variable, a
        // slack its row's logical.
        let start = start.and_then(|start| {
            let mut var_of = vec![usize::MAX; sf.cols.len()];
            for (v, &(p, n)) in sf.var_cols.iter().enumerate() {
                var_of[p] = v;
                if let Some(n) = n {
                    var_of[n] = v;
                }
            }
            for (i, c) in sf.slack_col.iter().enumerate() {
                if let Some(c) = c {
                    var_of[*c] = cols + i;
                }
            }
            start
                .iter()
                .map(|&c| Some(var_of[c]).filter(|&v| v != usize::MAX))
                .collect()
        });
        cost.extend(std::iter::repeat_n(0.0, m));
        lower.extend(log_lower);
        upper.extend(log_upper);
        sf_col.extend(log_col);
        Bounded {
            m,
            a,
            structurals: nv,
            cost,
            lower,
            upper,
            b,
            sf_col,
            start,
        }
    }

    /// Columns stored in `a` (structural and artificial); logicals are the variables after.
    fn cols(&self) -> usize {
        self.a.start.len() - 1
    }
}

/// What one phase of pivoting ended with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    Optimal,
    Unbounded,
    Limit,
    Singular,
    /// The primal simplex made [`Simplex::stall_limit`] degenerate pivots in a row.
    Stalled,
}

struct Simplex<'a> {
    lp: &'a Bounded,
    /// Bounds in use (artificials are fixed at zero after phase 1).
    lower: Vec<f64>,
    upper: Vec<f64>,
    cost: Vec<f64>,
    /// Right-hand side in use (perturbed while the main phases run).
    b: Vec<f64>,
    rows: RowParts,
    basis: Vec<usize>,
    /// Basis position of a basic variable, `usize::MAX` otherwise.
    pos: Vec<usize>,
    lu: SparseLu,
    /// Unit columns for the logicals' basis columns.
    units: Vec<(usize, f64)>,
    xb: Vec<f64>,
    /// Value of every nonbasic variable (its bound, zero for a free one, or where a ratio
    /// test left it slightly off its bound; the clean-up puts it back).
    xn: Vec<f64>,
    hot: Vec<Hot>,
    pivots: usize,
    /// Variables whose pivot-row entry is set in `hot`: the first `n_touched` of `touched`
    /// (which holds `nvars + 1`, so that the pivot row can list without a branch).
    touched: Vec<usize>,
    n_touched: usize,
    /// Row of `B^{-1}` and entering column `B^{-1} a_q`, each with the list of its non-zeros.
    rho: Vec<f64>,
    rho_idx: Vec<usize>,
    alpha: Vec<f64>,
    alpha_idx: Vec<usize>,
    /// Scratch for the dual simplex's extra FTRANs (steepest-edge `tau`, bound flips).
    tau: Vec<f64>,
    tau_idx: Vec<usize>,
    /// Dual steepest-edge weights per basis position.
    dse: Vec<f64>,
    /// Primal infeasible basis positions (possibly stale: checked when met), and flags.
    infeasible: Vec<usize>,
    is_infeasible: Vec<bool>,
    /// Whether pivots keep `infeasible` current: only the dual simplex reads it (the primal
    /// keeps the basis feasible), so the primal's pivots skip a pass over the column.
    listing: bool,
    /// Bounds of the basic variables by basis position, for the primal ratio test (set when
    /// [`Simplex::primal`] starts and kept by its pivots; one read per row instead of two
    /// behind `basis`).
    basic_lower: Vec<f64>,
    basic_upper: Vec<f64>,
    /// The primal ratio test's blocking rows: basis position, ratio, `|alpha|`.
    blocking: Vec<(usize, f64, f64)>,
    /// Every nonbasic variable whose reduced cost makes it attractive (pricing candidates),
    /// and possibly some that no longer are (dropped when pricing meets them).
    candidates: Vec<usize>,
    /// Reduced costs beyond this price a column in (tightened for the final clean-up).
    cost_tol: f64,
    /// Columns set aside as numerically unbounded until the next refactorisation.
    rejected: Vec<usize>,
    is_rejected: Vec<bool>,
    rejections: usize,
    /// LU work since the factorisation, the factorisation's own, and per recent pivot.
    factor_work: u64,
    recent_work: [u64; 8],
    last_work: u64,
    /// The factors' entries the memory estimate allows ([`super::memory::lu_entry_limit`]).
    lu_entry_limit: usize,
    /// Degenerate primal pivots in a row after which [`Simplex::primal`] returns
    /// [`Step::Stalled`] (`usize::MAX`: never).
    stall_limit: usize,
    /// Degenerate primal pivots since the last one that moved.
    degenerate_run: usize,
    /// State of the perturbations' jitter (xorshift).
    seed: u64,
}

impl<'a> Simplex<'a> {
    fn nvars(&self) -> usize {
        self.hot.len()
    }

    /// The basis column of variable `j`.
    fn column(&self, j: usize) -> Col<'_> {
        let cols = self.lp.cols();
        if j < cols {
            Col::Stored(&self.lp.a, j)
        } else {
            Col::Unit(j - cols)
        }
    }

    fn status_of(&self, j: usize) -> Status {
        let (l, u) = (self.lower[j], self.upper[j]);
        if l == u {
            Status::Fixed
        } else if l.is_finite() && self.xn[j] <= l {
            Status::AtLower
        } else if u.is_finite() && self.xn[j] >= u {
            Status::AtUpper
        } else if l.is_finite() {
            Status::AtLower
        } else if u.is_finite() {
            Status::AtUpper
        } else {
            Status::Free
        }
    }

    /// The reduced cost of `j` signed so that positive means improving, zero if `j` cannot
    /// move in its improving direction.
    #[inline(always)]
    fn gain(h: &Hot) -> f64 {
        match h.status {
            Status::AtLower => h.d,
            Status::AtUpper => -h.d,
            Status::Free => h.d.abs(),
            Status::Basic | Status::Fixed => 0.0,
        }
    }

    fn refactor(&mut self) -> bool {
        let cols = self.lp.cols();
        let lp = self.lp;
        let units = &self.units;
        // The basis columns gathered into one buffer (one allocation, not one per column).
        let mut flat: Vec<(usize, f64)> = Vec::new();
        let mut ends: Vec<usize> = Vec::with_capacity(self.basis.len());
        for &j in &self.basis {
            if j < cols {
                flat.extend(lp.a.col(j));
            } else {
                flat.push(units[j - cols]);
            }
            ends.push(flat.len());
        }
        let mut refs: Vec<&[(usize, f64)]> = Vec::with_capacity(ends.len());
        let mut from = 0;
        for &to in &ends {
            refs.push(&flat[from..to]);
            from = to;
        }
        if self.lu.refactor(&refs).is_err() {
            return false;
        }
        // Recomputing the values and reduced costs reads the matrix once more.
        self.factor_work =
            self.lu.factor_work() + 3 * self.lp.a.index.len() as u64 + 2 * self.nvars() as u64;
        self.recent_work = [0; 8];
        self.compute_primal();
        self.compute_duals();
        self.last_work = self.lu.solve_work();
        for j in self.rejected.drain(..) {
            self.is_rejected[j] = false;
        }
        true
    }

    /// `xb = B^{-1} (b - N x_N)`, and the list of primal infeasibilities.
    fn compute_primal(&mut self) {
        let cols = self.lp.cols();
        let mut r = self.b.clone();
        for j in 0..self.nvars() {
            let v = self.xn[j];
            if v != 0.0 && self.pos[j] == usize::MAX {
                if j < cols {
                    for (i, a) in self.lp.a.col(j) {
                        r[i] -= a * v;
                    }
                } else {
                    r[j - cols] -= v;
                }
            }
        }
        self.lu.ftran(&mut r);
        self.xb = r;
        if self.listing {
            self.list_infeasible();
        }
    }

    /// Lists every primal infeasible basis position afresh.
    fn list_infeasible(&mut self) {
        for &p in &self.infeasible {
            self.is_infeasible[p] = false;
        }
        self.infeasible.clear();
        for p in 0..self.basis.len() {
            self.note_feasibility(p);
        }
    }

    /// Lists basis position `p` as a primal infeasibility if it is one.
    #[inline(always)]
    fn note_feasibility(&mut self, p: usize) {
        if !self.is_infeasible[p] && self.infeasibility(p) > FEAS_TOL {
            self.is_infeasible[p] = true;
            self.infeasible.push(p);
        }
    }

    /// While the dual simplex lists infeasibilities (`listing`), notes the basis positions
    /// whose values the column in `alpha` moved.
    fn note_column_feasibility(&mut self) {
        if self.listing {
            for k in 0..self.alpha_idx.len() {
                let i = self.alpha_idx[k];
                self.note_feasibility(i);
            }
        }
    }

    /// How far basis position `p`'s value is outside its bounds (`<= 0` inside).
    #[inline(always)]
    fn infeasibility(&self, p: usize) -> f64 {
        let j = self.basis[p];
        let x = self.xb[p];
        (self.lower[j] - x).max(x - self.upper[j])
    }

    /// Duals `y = B^{-T} c_B`, reduced costs of every nonbasic variable, and the candidates.
    fn compute_duals(&mut self) {
        let cols = self.lp.cols();
        let mut y: Vec<f64> = self.basis.iter().map(|&j| self.cost[j]).collect();
        self.lu.btran(&mut y);
        for j in 0..self.nvars() {
            let d = if self.pos[j] != usize::MAX {
                0.0
            } else if j < cols {
                self.cost[j] - self.lp.a.col(j).map(|(i, v)| v * y[i]).sum::<f64>()
            } else {
                self.cost[j] - y[j - cols]
            };
            let status = if self.pos[j] != usize::MAX {
                Status::Basic
            } else {
                self.status_of(j)
            };
            let h = &mut self.hot[j];
            h.d = d;
            h.status = status;
            h.candidate = false;
        }
        self.candidates.clear();
        for j in 0..self.nvars() {
            self.offer(j);
        }
    }

    /// Lists `j` as a pricing candidate if its reduced cost makes it attractive.
    #[inline(always)]
    fn offer(&mut self, j: usize) {
        let h = &mut self.hot[j];
        if !h.candidate && Self::gain(h) > self.cost_tol {
            h.candidate = true;
            self.candidates.push(j);
        }
    }

    /// Reports to `progress` every 256 pivots.
    fn report(&self, progress: Option<ProgressFn>, phase: &str) {
        if let Some(report) = progress.filter(|_| self.pivots.is_multiple_of(256)) {
            report(&LpProgress {
                phase,
                pivots: self.pivots,
                objective: self.objective(),
            });
        }
    }

    fn objective(&self) -> f64 {
        let basic: f64 = self
            .basis
            .iter()
            .zip(&self.xb)
            .map(|(&j, x)| self.cost[j] * x)
            .sum();
        let nonbasic: f64 = (0..self.nvars())
            .filter(|&j| self.pos[j] == usize::MAX && self.xn[j] != 0.0)
            .map(|j| self.cost[j] * self.xn[j])
            .sum();
        basic + nonbasic
    }

    /// Sets `hot[j].row` to row `p` of `B^{-1} [A | I]` on every nonbasic variable it
    /// touches (the first `n_touched` of `touched`), with `rho` = row `p` of `B^{-1}`.
    fn pivot_row(&mut self, p: usize) {
        for &j in &self.touched[..self.n_touched] {
            self.hot[j].row = 0.0;
        }
        for &i in &self.rho_idx {
            self.rho[i] = 0.0;
        }
        self.rho_idx.clear();
        self.rho[p] = 1.0;
        self.rho_idx.push(p);
        self.lu.btran_sparse(&mut self.rho, &mut self.rho_idx);
        let cols = self.lp.cols();
        let hot = &mut self.hot[..];
        let touched = &mut self.touched[..];
        let mut n = 0;
        let rho_idx = &self.rho_idx;
        for (k, &i) in rho_idx.iter().enumerate() {
            // The rows come in no order: ask for the fourth next one's entries, and for the
            // twelfth next one's place and value, ahead of their use.
            if let Some(&ahead) = rho_idx.get(k + 4) {
                prefetch(
                    self.rows
                        .entries
                        .as_ptr()
                        .wrapping_add(self.rows.start[ahead]),
                );
            }
            if let Some(&further) = rho_idx.get(k + 12) {
                prefetch(self.rows.start.as_ptr().wrapping_add(further));
                prefetch(self.rows.nonbasic.as_ptr().wrapping_add(further));
                prefetch(self.rho.as_ptr().wrapping_add(further));
            }
            let r = self.rho[i];
            if r.abs() < 1e-13 {
                continue;
            }
            for e in self.rows.nonbasic_row(i) {
                let j = e.col as usize;
                debug_assert!(j < hot.len() && n < touched.len());
                // SAFETY: `j` is a column of the matrix (`RowParts` stores only those), below
                // `cols <= hot.len()`; `n` counts distinct variables first touched here, so
                // `n <= nvars` and `touched` holds `nvars + 1`.
                unsafe {
                    let h = hot.get_unchecked_mut(j);
                    let old = h.row;
                    // Listed without a branch: the slot is kept only if `j` was untouched.
                    *touched.get_unchecked_mut(n) = j;
                    n += usize::from(old == 0.0);
                    let new = old + r * e.value;
                    // Keep it distinguishable from "untouched".
                    h.row = if new == 0.0 { f64::MIN_POSITIVE } else { new };
                }
            }
            // The logical of row `i` (a unit column): its entry is `rho_i` itself.
            let j = cols + i;
            if hot[j].status != Status::Basic {
                hot[j].row = r;
                touched[n] = j;
                n += 1;
            }
        }
        self.n_touched = n;
    }

    /// Basis position `p` leaves (to `leave_value`, its new nonbasic value), variable `q`
    /// (with FTRAN column `alpha`) enters, moving by `step` (signed). `weights`: update the
    /// Devex weights from the pivot row.
    fn pivot(&mut self, p: usize, q: usize, step: f64, leave_value: f64, weights: bool) -> bool {
        let ap = self.alpha[p];
        let theta_d = self.hot[q].d / ap;
        let wq = self.hot[q].weight;
        let cost_tol = self.cost_tol;
        let touched = &self.touched[..self.n_touched];
        for (k, &j) in touched.iter().enumerate() {
            if let Some(&ahead) = touched.get(k + 8) {
                prefetch(self.hot.as_ptr().wrapping_add(ahead));
            }
            if j == q {
                continue;
            }
            let h = &mut self.hot[j];
            let r = h.row;
            h.d -= theta_d * r;
            if weights {
                let ratio = r / ap;
                h.weight = h.weight.max(ratio * ratio * wq);
            }
            if !h.candidate && Self::gain(h) > cost_tol {
                h.candidate = true;
                self.candidates.push(j);
            }
        }
        // Primal values.
        if step != 0.0 {
            for &i in &self.alpha_idx {
                self.xb[i] -= step * self.alpha[i];
            }
        }
        let leaving = self.basis[p];
        let entering_value = self.xn[q] + step;
        self.xb[p] = entering_value;
        self.xn[q] = 0.0;
        self.xn[leaving] = leave_value;
        self.note_column_feasibility();
        if self.listing {
            self.note_feasibility(p);
        }
        self.basic_lower[p] = self.lower[q];
        self.basic_upper[p] = self.upper[q];
        let accurate = self.lu.update(p, ap);
        let cols = self.lp.cols();
        if q < cols {
            self.rows.enter(&self.lp.a, q);
        }
        if leaving < cols {
            self.rows.leave(&self.lp.a, leaving);
        }
        self.pos[leaving] = usize::MAX;
        self.pos[q] = p;
        self.basis[p] = q;
        let status = self.status_of(leaving);
        let hq = &mut self.hot[q];
        hq.d = 0.0;
        hq.status = Status::Basic;
        let hl = &mut self.hot[leaving];
        hl.d = -theta_d;
        hl.status = status;
        if weights {
            hl.weight = (wq / (ap * ap)).max(1.0);
        }
        self.offer(leaving);
        self.pivots += 1;
        #[cfg(test)]
        if accurate && self.pivots.is_multiple_of(8) {
            self.assert_factors_solve();
        }
        if !accurate || self.should_refactor() {
            return self.refactor();
        }
        true
    }

    /// The measured refactorisation rule: refactorise once the LU work of the recent pivots
    /// exceeds the average work per pivot since the factorisation, the factorisation's own
    /// work included (the average is then at its minimum), or when no update slot is left.
    fn should_refactor(&mut self) -> bool {
        let k = self.lu.updates();
        if k >= super::sparse_lu::max_updates(self.basis.len())
            || self.lu.stored_entries() > self.lu_entry_limit
        {
            return true;
        }
        let total = self.lu.solve_work();
        let this = total.saturating_sub(self.last_work);
        self.last_work = total;
        let recent = &mut self.recent_work;
        recent.rotate_left(1);
        recent[7] = this;
        if k < 16 {
            return false;
        }
        let recent_avg = recent.iter().sum::<u64>() / 8;
        (self.factor_work + total) / k as u64 <= recent_avg
    }

    /// Test builds check every 8th pivot that the updated factors still solve the basis:
    /// FTRAN and BTRAN residuals against the basis columns themselves.
    #[cfg(test)]
    fn assert_factors_solve(&mut self) {
        let m = self.basis.len();
        let b: Vec<f64> = (0..m).map(|i| 1.0 + (i % 7) as f64).collect();
        let mut x = b.clone();
        self.lu.ftran(&mut x);
        let mut y = b.clone();
        self.lu.btran(&mut y);
        let scale = 1.0 + x.iter().chain(&y).fold(0.0f64, |a, v| a.max(v.abs()));
        let mut r = b.clone();
        for (p, &j) in self.basis.iter().enumerate() {
            let col: Vec<(usize, f64)> = self.column(j).entries().collect();
            for &(i, v) in &col {
                r[i] -= v * x[p];
            }
            let t: f64 = col.iter().map(|&(i, v)| v * y[i]).sum();
            assert!(
                (t - b[p]).abs() <= 1e-8 * scale,
                "pivot {}: y^T B at {p}: {t} vs {}",
                self.pivots,
                b[p]
            );
        }
        for (i, v) in r.iter().enumerate() {
            assert!(
                v.abs() <= 1e-8 * scale,
                "pivot {}: (b - B x)[{i}] = {v}",
                self.pivots
            );
        }
    }

    /// B^-1 times variable `q`'s column, into `alpha` and `alpha_idx` (kept as the spike).
    fn ftran_column(&mut self, q: usize) {
        for &i in &self.alpha_idx {
            self.alpha[i] = 0.0;
        }
        self.alpha_idx.clear();
        let cols = self.lp.cols();
        if q < cols {
            for (i, v) in self.lp.a.col(q) {
                self.alpha[i] = v;
                self.alpha_idx.push(i);
            }
        } else {
            self.alpha[q - cols] = 1.0;
            self.alpha_idx.push(q - cols);
        }
        self.lu.ftran_sparse(&mut self.alpha, &mut self.alpha_idx);
    }

    /// Primal simplex until optimal, unbounded or out of pivots.
    fn primal(&mut self, limit: usize, progress: Option<ProgressFn>, phase: &str) -> Step {
        for h in self.hot.iter_mut() {
            h.weight = 1.0;
        }
        for (p, &j) in self.basis.iter().enumerate() {
            self.basic_lower[p] = self.lower[j];
            self.basic_upper[p] = self.upper[j];
        }
        loop {
            if self.pivots >= limit {
                return Step::Limit;
            }
            let mut best = 0.0;
            let mut entering: Option<usize> = None;
            let mut k = 0;
            while k < self.candidates.len() {
                let j = self.candidates[k];
                let h = &self.hot[j];
                let g = Self::gain(h);
                if g <= self.cost_tol {
                    self.hot[j].candidate = false;
                    self.candidates.swap_remove(k);
                    continue;
                }
                k += 1;
                // Ties go to the lowest variable, as a scan in order would pick.
                if !self.is_rejected[j]
                    && (g * g > best * h.weight
                        || (g * g == best * h.weight && entering.is_some_and(|e| j < e)))
                {
                    best = g * g / h.weight;
                    entering = Some(j);
                }
            }
            let Some(q) = entering else {
                return Step::Optimal;
            };
            let dir = match self.hot[q].status {
                Status::AtUpper => -1.0,
                Status::Free if self.hot[q].d < 0.0 => -1.0,
                _ => 1.0,
            };
            self.ftran_column(q);
            // Harris pass 1: the largest step every basic variable allows within tolerance.
            // It also lists the rows that can block, with their exact ratios and pivot sizes,
            // so that pass 2 reads that list in order instead of gathering the rows again.
            let mut theta = f64::INFINITY;
            self.blocking.clear();
            for &i in &self.alpha_idx {
                let a = dir * self.alpha[i];
                if a > PIVOT_TOL {
                    let l = self.basic_lower[i];
                    if l.is_finite() {
                        let x = self.xb[i];
                        theta = theta.min(((x - l).max(0.0) + FEAS_TOL) / a);
                        self.blocking.push((i, (x - l) / a, a.abs()));
                    }
                } else if a < -PIVOT_TOL {
                    let u = self.basic_upper[i];
                    if u.is_finite() {
                        let x = self.xb[i];
                        theta = theta.min(((u - x).max(0.0) + FEAS_TOL) / -a);
                        self.blocking.push((i, (u - x) / -a, a.abs()));
                    }
                }
            }
            let range = self.upper[q] - self.lower[q];
            if range <= theta {
                // A boxed column reaches its other bound first: flip it, no basis change.
                self.flip(q, dir * range);
                self.pivots += 1;
                continue;
            }
            if theta == f64::INFINITY {
                // A ray in floats is often rounding (a stale reduced cost, an entry lost
                // below the tolerance): refactorise, and if the column still looks unbounded
                // with fresh values, set it aside until the next refactorisation. Only a ray
                // that persists after many such rejections is reported (and the exact layer
                // checks it).
                if self.lu.updates() > 0 {
                    if !self.refactor() {
                        return Step::Singular;
                    }
                    continue;
                }
                self.is_rejected[q] = true;
                self.rejected.push(q);
                self.rejections += 1;
                if self.rejections > 1000 {
                    return Step::Unbounded;
                }
                continue;
            }
            // Pass 2: the largest pivot among the rows within the bound; ties to the lowest.
            let mut leave = usize::MAX;
            let mut best_a = 0.0;
            let mut leave_ratio = 0.0;
            for &(i, ratio, aa) in &self.blocking {
                if ratio <= theta && (aa > best_a || (aa == best_a && i < leave)) {
                    best_a = aa;
                    leave = i;
                    leave_ratio = ratio;
                }
            }
            assert!(
                leave != usize::MAX,
                "the Harris pass keeps the minimum-ratio row"
            );
            let p = leave;
            let a = dir * self.alpha[p];
            let j = self.basis[p];
            let bound = if a > 0.0 {
                self.lower[j]
            } else {
                self.upper[j]
            };
            // A row a hair outside its bound steps by 0 and leaves where it is (a shifted
            // bound, so the objective never goes backwards); the clean-up restores it.
            let (step, leave_value) = if leave_ratio < 0.0 {
                (0.0, self.xb[p])
            } else {
                (dir * leave_ratio, bound)
            };
            // A pivot whose objective change is below rounding is degenerate.
            if (step * self.hot[q].d).abs() <= 1e-15 {
                self.degenerate_run += 1;
                if self.degenerate_run >= self.stall_limit {
                    self.degenerate_run = 0;
                    return Step::Stalled;
                }
            } else {
                self.degenerate_run = 0;
            }
            self.pivot_row(p);
            if !self.pivot(p, q, step, leave_value, true) {
                return Step::Singular;
            }
            self.report(progress, phase);
        }
    }

    /// Perturbs the right-hand side around the current basis, `b += B delta` with each
    /// basic variable's `delta` of relative size `eps` pointing away from its nearer finite
    /// bound, so that a primal degenerate vertex becomes a non-degenerate one (the clean-up's
    /// answer to a stall; the caller refactorises, which recomputes the basic values).
    fn perturb(&mut self, eps: f64) {
        #[cfg(test)]
        test_hooks::PERTURBATIONS.with(|c| c.set(c.get() + 1));
        let cols = self.lp.cols();
        for p in 0..self.basis.len() {
            let j = self.basis[p];
            let (l, u, x) = (self.lower[j], self.upper[j], self.xb[p]);
            let sign = match (l.is_finite(), u.is_finite()) {
                (true, true) if u - l <= 0.0 => continue,
                (true, true) if x - l > u - x => -1.0,
                (true, _) => 1.0,
                (false, true) => -1.0,
                (false, false) => continue,
            };
            let mut delta = sign * eps * jitter(&mut self.seed) * (1.0 + x.abs());
            if l.is_finite() && u.is_finite() {
                // Within the box: at most a third of its width.
                delta = delta.clamp(-(u - l) / 3.0, (u - l) / 3.0);
            }
            if j < cols {
                for (i, a) in self.lp.a.col(j) {
                    self.b[i] += a * delta;
                }
            } else {
                self.b[j - cols] += delta;
            }
        }
    }

    /// Moves nonbasic `q` by `delta` (to its other bound) without a basis change.
    fn flip(&mut self, q: usize, delta: f64) {
        // `alpha` holds `B^{-1} a_q` (FTRAN'd by the caller).
        for &i in &self.alpha_idx {
            self.xb[i] -= delta * self.alpha[i];
        }
        self.note_column_feasibility();
        self.xn[q] += delta;
        self.hot[q].status = self.status_of(q);
        self.hot[q].candidate = false;
        self.offer(q);
    }

    /// Dual simplex from a dual feasible basis until the basic values are within their bounds
    /// (tolerance `FEAS_TOL`): dual steepest-edge pricing over the listed infeasibilities,
    /// the bound-flipping ratio test with Harris's tolerance. `Optimal` then means primal
    /// feasible; `Unbounded` that no column can repair a row (the program looks infeasible).
    fn dual(&mut self, limit: usize, progress: Option<ProgressFn>, phase: &str) -> Step {
        self.listing = true;
        self.list_infeasible();
        let step = self.dual_pivots(limit, progress, phase);
        self.listing = false;
        step
    }

    /// The pivots of [`Simplex::dual`], with `infeasible` kept current.
    fn dual_pivots(&mut self, limit: usize, progress: Option<ProgressFn>, phase: &str) -> Step {
        self.dse.iter_mut().for_each(|w| *w = 1.0);
        let mut breakpoints: Vec<(f64, usize)> = Vec::new();
        let mut flips: Vec<(usize, f64)> = Vec::new();
        loop {
            if self.pivots >= limit {
                return Step::Limit;
            }
            // CHUZR: the largest infeasibility squared over its weight.
            let mut best = 0.0;
            let mut leave: Option<usize> = None;
            let mut k = 0;
            while k < self.infeasible.len() {
                let p = self.infeasible[k];
                let v = self.infeasibility(p);
                if v <= FEAS_TOL {
                    self.is_infeasible[p] = false;
                    self.infeasible.swap_remove(k);
                    continue;
                }
                k += 1;
                let score = v * v / self.dse[p];
                if score > best || (score == best && leave.is_some_and(|l| p < l)) {
                    best = score;
                    leave = Some(p);
                }
            }
            let Some(p) = leave else {
                return Step::Optimal;
            };
            let jp = self.basis[p];
            let below = self.xb[p] < self.lower[jp];
            let (s, bound) = if below {
                (1.0, self.lower[jp])
            } else {
                (-1.0, self.upper[jp])
            };
            let mut slope = (self.xb[p] - bound).abs();
            self.pivot_row(p);
            // The exact weight of the leaving row, `||rho||^2`, refreshes the update's guess.
            self.dse[p] = self
                .rho_idx
                .iter()
                .map(|&i| self.rho[i] * self.rho[i])
                .sum::<f64>()
                .max(MIN_DSE_WEIGHT);
            // Ratio test over the eligible columns: `t <= d_j / (s alpha_pj)`.
            breakpoints.clear();
            let mut theta_max = f64::INFINITY;
            for &j in &self.touched[..self.n_touched] {
                let h = &self.hot[j];
                let a = s * h.row;
                let eligible = match h.status {
                    Status::AtLower => a < -PIVOT_TOL,
                    Status::AtUpper => a > PIVOT_TOL,
                    Status::Free => a.abs() > PIVOT_TOL,
                    Status::Basic | Status::Fixed => false,
                };
                if !eligible {
                    continue;
                }
                let d = match h.status {
                    Status::AtLower => h.d.min(0.0),
                    Status::AtUpper => h.d.max(0.0),
                    _ => 0.0,
                };
                let ratio = d / a;
                let harris = if a < 0.0 {
                    (d - self.cost_tol) / a
                } else {
                    (d + self.cost_tol) / a
                };
                if self.upper[j] - self.lower[j] < f64::INFINITY {
                    breakpoints.push((ratio, j));
                } else {
                    theta_max = theta_max.min(harris);
                }
            }
            // Bound flipping: pass the boxed breakpoints below `theta_max` in order while the
            // primal infeasibility left (`slope`) stays positive.
            flips.clear();
            if !breakpoints.is_empty() {
                breakpoints.sort_by(|x, y| x.0.total_cmp(&y.0));
                for &(ratio, j) in breakpoints.iter() {
                    if ratio > theta_max {
                        break;
                    }
                    let a = (s * self.hot[j].row).abs();
                    let next = slope - a * (self.upper[j] - self.lower[j]);
                    if next <= 0.0 {
                        // This breakpoint ends the step: it enters (within Harris's bound).
                        let h = &self.hot[j];
                        let d = if h.status == Status::AtLower {
                            h.d.min(0.0)
                        } else {
                            h.d.max(0.0)
                        };
                        let a = s * h.row;
                        let harris = if a < 0.0 {
                            (d - self.cost_tol) / a
                        } else {
                            (d + self.cost_tol) / a
                        };
                        theta_max = theta_max.min(harris);
                        break;
                    }
                    slope = next;
                    let delta = if self.hot[j].status == Status::AtLower {
                        self.upper[j] - self.lower[j]
                    } else {
                        self.lower[j] - self.upper[j]
                    };
                    flips.push((j, delta));
                }
            }
            // The entering column: the largest `|alpha_pj|` among the unflipped eligible
            // columns whose ratio is within `theta_max`.
            let flipped = |j: usize| flips.iter().any(|&(f, _)| f == j);
            let mut q = None;
            let mut best_a = 0.0;
            for &j in &self.touched[..self.n_touched] {
                let h = &self.hot[j];
                let a = s * h.row;
                let d = match h.status {
                    Status::AtLower if a < -PIVOT_TOL => h.d.min(0.0),
                    Status::AtUpper if a > PIVOT_TOL => h.d.max(0.0),
                    Status::Free if a.abs() > PIVOT_TOL => 0.0,
                    _ => continue,
                };
                if d / a <= theta_max
                    && (a.abs() > best_a || (a.abs() == best_a && q.is_some_and(|e| j < e)))
                    && !flipped(j)
                {
                    best_a = a.abs();
                    q = Some(j);
                }
            }
            let Some(q) = q else {
                if flips.is_empty() {
                    // No column can repair this row: the program looks infeasible.
                    return Step::Unbounded;
                }
                // Every breakpoint was a flip and the row is repaired by them alone.
                self.apply_flips(&flips);
                self.pivots += 1;
                continue;
            };
            // Steepest-edge `tau = B^{-1} rho` before the basis changes (no spike saved).
            for &i in &self.tau_idx {
                self.tau[i] = 0.0;
            }
            self.tau_idx.clear();
            for &i in &self.rho_idx {
                self.tau[i] = self.rho[i];
                self.tau_idx.push(i);
            }
            self.lu.ftran_plain(&mut self.tau, &mut self.tau_idx);
            if !flips.is_empty() {
                self.apply_flips(&flips);
            }
            self.ftran_column(q);
            let ap = self.alpha[p];
            let row_q = self.hot[q].row;
            if ap.abs() <= PIVOT_TOL
                || (ap - row_q).abs() > 1e-7 * ap.abs().max(1.0)
                || ap * row_q <= 0.0
            {
                // The row and the column disagree on the pivot: refactorise and retry, or
                // give up if they disagree on fresh factors too.
                if self.lu.updates() == 0 || !self.refactor() {
                    return Step::Singular;
                }
                continue;
            }
            // Update the weights with the old basis: `w_i -= 2 kappa tau_i - kappa^2 w_p`.
            let wp = self.dse[p];
            for &i in &self.alpha_idx {
                if i == p {
                    continue;
                }
                let kappa = self.alpha[i] / ap;
                let w = self.dse[i] + kappa * (kappa * wp - 2.0 * self.tau[i]);
                self.dse[i] = w.max(MIN_DSE_WEIGHT);
            }
            self.dse[p] = (wp / (ap * ap)).max(MIN_DSE_WEIGHT);
            let step = (self.xb[p] - bound) / ap;
            if !self.pivot(p, q, step, bound, false) {
                return Step::Singular;
            }
            self.report(progress, phase);
        }
    }

    /// Moves the flipped columns to their other bounds: `x_B -= B^{-1} sum a_j delta_j`.
    fn apply_flips(&mut self, flips: &[(usize, f64)]) {
        let mut r = vec![0.0; self.basis.len()];
        let mut idx = Vec::new();
        for &(j, delta) in flips {
            let col: Vec<(usize, f64)> = self.column(j).entries().collect();
            for (i, v) in col {
                if r[i] == 0.0 {
                    idx.push(i);
                }
                r[i] += v * delta;
            }
            self.xn[j] += delta;
            self.hot[j].status = self.status_of(j);
        }
        self.lu.ftran_plain(&mut r, &mut idx);
        for i in idx {
            self.xb[i] -= r[i];
            self.note_feasibility(i);
        }
    }
}

/// A basis column: stored in the matrix, or the unit column of a row's logical.
enum Col<'a> {
    Stored(&'a Columns, usize),
    Unit(usize),
}

impl Col<'_> {
    fn entries(&self) -> Box<dyn Iterator<Item = (usize, f64)> + '_> {
        match self {
            Col::Stored(a, j) => Box::new(a.col(*j)),
            Col::Unit(i) => Box::new(std::iter::once((*i, 1.0))),
        }
    }
}

/// Rounds of [`SparseLu::dependent_columns`] a singular starting basis gets.
const REPAIR_ROUNDS: usize = 4;

/// How [`solve`] starts and how far it goes.
#[derive(Clone, Copy)]
pub(crate) struct Attempt<'a> {
    /// The starting basis (columns of the standard form; `None`: the slack basis).
    pub start: Option<&'a [usize]>,
    /// Whether a start that stays singular after its repair falls back to the slack basis
    /// (else the outcome is `Stalled`: the caller has another start to try).
    pub fall_back_to_slacks: bool,
    /// Pivots after which the attempt gives up (`Stalled`); `None`: the usual limit.
    pub budget: Option<usize>,
}

/// Runs the float simplex on a standard form as `attempt` says, reporting to `progress` as
/// it goes.
// Never inlined: the benchmarks count its instructions (`callgrind --toggle-collect`).
#[inline(never)]
pub(crate) fn solve(
    sf: &StandardForm,
    attempt: Attempt,
    progress: Option<ProgressFn>,
) -> FloatOutcome {
    let Attempt {
        start,
        fall_back_to_slacks,
        budget,
    } = attempt;
    let lp = Bounded::new(sf, start);
    // Deterministic perturbation against degeneracy: `b + B delta` with a small `delta`
    // pointing into each basic variable's bounds, so the starting basis stays feasible with
    // every basic value moved off its bound.
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let crash = lp
        .start
        .as_ref()
        .and_then(|start| crash_basis(&lp, start, &mut seed));
    if crash.is_none() && lp.start.is_some() && !fall_back_to_slacks {
        return FloatOutcome::Stalled {
            reason: "the starting basis is unusable (singular after its repair)".to_string(),
            pivots: 0,
        };
    }
    let crashed = crash.is_some();
    let (basis, b, lu) = crash.unwrap_or_else(|| slack_basis(&lp, &mut seed));
    let mut s = Simplex::new(&lp, basis, b, lu, crashed);
    let limit = budget.unwrap_or(50 * (lp.m + s.nvars()) + 1000);
    s.run(limit, crashed, progress)
}

/// The basis column of variable `j` of `lp` (stored, or the unit column of a logical).
fn column_of(lp: &Bounded, j: usize) -> Vec<(usize, f64)> {
    let cols = lp.cols();
    if j < cols {
        lp.a.col(j).collect()
    } else {
        vec![(j - cols, 1.0)]
    }
}

/// The crash basis `start` (variables of `lp`), repaired where singular, with the right-hand
/// side shifted and perturbed so that it starts primal feasible; `None` where it is unusable
/// (a repeated variable, singular after its repair, or non-finite values).
fn crash_basis(
    lp: &Bounded,
    start: &[usize],
    seed: &mut u64,
) -> Option<(Vec<usize>, Vec<f64>, SparseLu)> {
    let m = lp.m;
    let cols = lp.cols();
    let mut seen = vec![false; cols + m];
    if start.iter().any(|&j| std::mem::replace(&mut seen[j], true)) {
        return None;
    }
    let mut start = start.to_vec();
    let mut gathered: Vec<Vec<(usize, f64)>> = start.iter().map(|&j| column_of(lp, j)).collect();
    let refs: Vec<&[(usize, f64)]> = gathered.iter().map(Vec::as_slice).collect();
    let mut lu = match SparseLu::factor(m, &refs) {
        Ok(lu) => lu,
        Err(_) => {
            // A hint built from guesses (both players' supports) can be singular: its
            // dependent columns give way to the logicals of the rows they leave
            // uncovered. A round can expose new near-dependences; a few rounds suffice
            // (two on liars dice).
            for _ in 0..REPAIR_ROUNDS {
                let refs: Vec<&[(usize, f64)]> = gathered.iter().map(Vec::as_slice).collect();
                let (dropped, rows) = SparseLu::dependent_columns(m, &refs);
                if dropped.is_empty() {
                    break;
                }
                for (&k, &i) in dropped.iter().zip(&rows) {
                    start[k] = cols + i;
                    gathered[k] = column_of(lp, cols + i);
                }
            }
            let refs: Vec<&[(usize, f64)]> = gathered.iter().map(Vec::as_slice).collect();
            SparseLu::factor(m, &refs).ok()?
        }
    };
    let mut x0 = lp.b.clone();
    lu.ftran(&mut x0);
    if x0.iter().any(|v| !v.is_finite()) {
        return None;
    }
    let mut b = lp.b.clone();
    for (k, col) in gathered.iter().enumerate() {
        let j = start[k];
        let sign = if lp.lower[j].is_finite() {
            1.0
        } else if lp.upper[j].is_finite() {
            -1.0
        } else {
            0.0
        };
        // A basic value outside its bounds is shifted into them (`b` moves, as for the
        // perturbation): the simplex then starts primal feasible for the shifted program,
        // and the clean-up's dual simplex repairs the difference once `b` is restored.
        let shift = if x0[k] < lp.lower[j] {
            lp.lower[j] - x0[k]
        } else if x0[k] > lp.upper[j] {
            lp.upper[j] - x0[k]
        } else {
            0.0
        };
        let delta = shift + sign * 1e-7 * jitter(seed) * (1.0 + x0[k].abs());
        for &(i, v) in col {
            b[i] += v * delta;
        }
    }
    Some((start, b, lu))
}

/// The slack basis: logicals where they can hold `b_i`, artificials elsewhere (in row
/// order), with the right-hand side perturbed into the basic variables' bounds.
fn slack_basis(lp: &Bounded, seed: &mut u64) -> (Vec<usize>, Vec<f64>, SparseLu) {
    let m = lp.m;
    let cols = lp.cols();
    let mut basis: Vec<usize> = (0..m).map(|i| cols + i).collect();
    for k in 0..cols - lp.structurals {
        let j = lp.structurals + k;
        let i = lp.a.index[lp.a.start[j]] as usize;
        basis[i] = j;
    }
    let mut b = lp.b.clone();
    for (i, bi) in b.iter_mut().enumerate() {
        let j = basis[i];
        let sign = if lp.lower[j].is_finite() { 1.0 } else { -1.0 };
        *bi += sign * 1e-7 * jitter(seed) * (1.0 + bi.abs());
    }
    let units: Vec<(usize, f64)> = (0..m).map(|i| (i, 1.0)).collect();
    let unit_refs: Vec<&[(usize, f64)]> = (0..m).map(|i| &units[i..i + 1]).collect();
    let lu = SparseLu::factor(m, &unit_refs).expect("the identity is non-singular");
    (basis, b, lu)
}

/// The outcome of a basis that became numerically singular.
fn singular(pivots: usize) -> FloatOutcome {
    FloatOutcome::Stalled {
        reason: "the float basis became numerically singular".to_string(),
        pivots,
    }
}

/// The outcome of a run that reached its pivot limit.
fn stalled(limit: usize, pivots: usize) -> FloatOutcome {
    FloatOutcome::Stalled {
        reason: format!("no optimum after {limit} float pivots"),
        pivots,
    }
}

impl<'a> Simplex<'a> {
    /// The simplex state at the starting `basis` of `lp` (factored as `lu`) with the
    /// right-hand side `b`: the true costs after a crash, phase 1's (minus each
    /// artificial) from the slack basis.
    fn new(lp: &'a Bounded, basis: Vec<usize>, b: Vec<f64>, lu: SparseLu, crashed: bool) -> Self {
        let m = lp.m;
        let cols = lp.cols();
        let nvars = cols + m;
        let xn: Vec<f64> = (0..nvars)
            .map(|j| {
                if lp.lower[j].is_finite() {
                    lp.lower[j]
                } else if lp.upper[j].is_finite() {
                    lp.upper[j]
                } else {
                    0.0
                }
            })
            .collect();
        let mut pos = vec![usize::MAX; nvars];
        for (p, &j) in basis.iter().enumerate() {
            pos[j] = p;
        }
        let mut cost = vec![0.0; nvars];
        if crashed {
            cost.copy_from_slice(&lp.cost);
        } else {
            for c in cost.iter_mut().take(cols).skip(lp.structurals) {
                *c = -1.0;
            }
        }
        let rows = RowParts::new(&lp.a, m, |j| pos[j] != usize::MAX);
        Simplex {
            lp,
            lower: lp.lower.clone(),
            upper: lp.upper.clone(),
            cost,
            b,
            rows,
            basis,
            pos,
            lu,
            units: (0..m).map(|i| (i, 1.0)).collect(),
            xb: Vec::new(),
            xn,
            hot: vec![
                Hot {
                    row: 0.0,
                    d: 0.0,
                    weight: 1.0,
                    status: Status::Fixed,
                    candidate: false,
                };
                nvars
            ],
            pivots: 0,
            touched: vec![0; nvars + 1],
            n_touched: 0,
            rho: vec![0.0; m],
            rho_idx: Vec::new(),
            alpha: vec![0.0; m],
            alpha_idx: Vec::new(),
            tau: vec![0.0; m],
            tau_idx: Vec::new(),
            dse: vec![1.0; m],
            infeasible: Vec::new(),
            is_infeasible: vec![false; m],
            listing: false,
            basic_lower: vec![0.0; m],
            basic_upper: vec![0.0; m],
            blocking: Vec::new(),
            candidates: Vec::new(),
            cost_tol: COST_TOL,
            rejected: Vec::new(),
            is_rejected: vec![false; nvars],
            rejections: 0,
            factor_work: 0,
            recent_work: [0; 8],
            last_work: 0,
            lu_entry_limit: super::memory::lu_entry_limit(lp.a.index.len(), m),
            stall_limit: usize::MAX,
            degenerate_run: 0,
            seed: 0x2545_F491_4F6C_DD1D,
        }
    }

    /// The basis as standard-form columns (a free variable's negative part where its value
    /// is negative).
    fn basis_out(&self) -> Vec<Option<usize>> {
        self.basis
            .iter()
            .enumerate()
            .map(|(p, &j)| {
                let (pos, neg) = self.lp.sf_col[j];
                if self.xb[p] < 0.0 && neg.is_some() {
                    neg
                } else {
                    pos
                }
            })
            .collect()
    }

    /// Phases 1 (from the slack basis, when it has artificials) and 2, then the clean-up.
    fn run(&mut self, limit: usize, crashed: bool, progress: Option<ProgressFn>) -> FloatOutcome {
        if !self.refactor() {
            return singular(self.pivots);
        }
        if !crashed && self.lp.cols() > self.lp.structurals {
            if let Err(outcome) = self.phase_one(limit, progress) {
                return outcome;
            }
        }
        let cols = self.lp.cols();
        self.cost.fill(0.0);
        self.cost[..cols].copy_from_slice(&self.lp.cost[..cols]);
        if !self.refactor() {
            return singular(self.pivots);
        }
        match self.primal(limit, progress, "phase 2") {
            Step::Optimal | Step::Stalled => self.clean_up(limit, progress),
            Step::Unbounded => FloatOutcome::Unbounded {
                basis: self.basis_out(),
                pivots: self.pivots,
            },
            Step::Singular => singular(self.pivots),
            Step::Limit => stalled(limit, self.pivots),
        }
    }

    /// Phase 1: drives the artificials to zero, then fixes them there and pivots the basic
    /// ones out where a real column can replace them (rows where none can are redundant).
    fn phase_one(
        &mut self,
        limit: usize,
        progress: Option<ProgressFn>,
    ) -> Result<(), FloatOutcome> {
        let lp = self.lp;
        let (m, cols) = (lp.m, lp.cols());
        match self.primal(limit, progress, "phase 1") {
            Step::Optimal | Step::Stalled => {}
            Step::Unbounded | Step::Singular => return Err(singular(self.pivots)),
            Step::Limit => return Err(stalled(limit, self.pivots)),
        }
        if self.objective() < -1e-6 {
            return Err(FloatOutcome::Infeasible {
                pivots: self.pivots,
            });
        }
        for j in lp.structurals..cols {
            self.upper[j] = 0.0;
            self.xn[j] = 0.0;
        }
        for p in 0..m {
            if !(lp.structurals..cols).contains(&self.basis[p]) {
                continue;
            }
            self.pivot_row(p);
            let mut best = (1e-7, None);
            for &j in &self.touched[..self.n_touched] {
                let v = self.hot[j].row.abs();
                if !(lp.structurals..cols).contains(&j) && v > best.0 {
                    best = (v, Some(j));
                }
            }
            if let (_, Some(q)) = best {
                self.ftran_column(q);
                // A degenerate exchange: the entering value stays where it was.
                if self.alpha[p].abs() > 1e-9 && !self.pivot(p, q, 0.0, 0.0, false) {
                    return Err(singular(self.pivots));
                }
            }
        }
        Ok(())
    }

    /// After phase 2: drops the perturbation and the shifted bounds, and cleans up. The
    /// perturbed optimum can be slightly primal infeasible for the true right-hand sides
    /// (dual simplex repairs it) and that can leave reduced costs slightly improving (primal
    /// simplex again).
    fn clean_up(&mut self, limit: usize, progress: Option<ProgressFn>) -> FloatOutcome {
        let lp = self.lp;
        let m = lp.m;
        self.b.copy_from_slice(&lp.b);
        for j in 0..self.nvars() {
            if self.pos[j] == usize::MAX {
                self.xn[j] = if self.lower[j].is_finite() && self.hot[j].status != Status::AtUpper {
                    self.lower[j]
                } else if self.upper[j].is_finite() {
                    self.upper[j]
                } else {
                    0.0
                };
            }
        }
        // Reduced costs of sequence-form LPs are products of small chance probabilities: a
        // column the loose tolerance left out can still improve.
        self.cost_tol = FINAL_COST_TOL;
        // The clean-up's primal passes are degenerate where the true right-hand side puts
        // many basic variables on their bounds: after a long run of pivots that do not move,
        // perturb around the current basis (ten times less each time), solve the perturbed
        // program, drop the perturbation and repair again.
        self.stall_limit = stall_limit(m);
        let mut eps = 1e-8;
        for _ in 0..8 {
            if !self.refactor() {
                return singular(self.pivots);
            }
            match self.dual(limit, progress, "clean-up") {
                Step::Optimal => {}
                Step::Unbounded | Step::Singular | Step::Limit | Step::Stalled => break,
            }
            let step = self.primal(limit, progress, "clean-up");
            // A forced limit of 0 makes every clean-up stall (tests of this path).
            #[cfg(test)]
            let step = match test_hooks::STALL_LIMIT.with(|c| c.get()) {
                Some(0) if step == Step::Optimal => Step::Stalled,
                _ => step,
            };
            match step {
                Step::Optimal => {}
                Step::Stalled => {
                    self.perturb(eps);
                    eps *= 0.1;
                    if !self.refactor() {
                        return singular(self.pivots);
                    }
                    self.stall_limit = usize::MAX;
                    match self.primal(limit, progress, "clean-up, perturbed") {
                        Step::Optimal | Step::Stalled => {}
                        Step::Unbounded | Step::Singular => return singular(self.pivots),
                        Step::Limit => return stalled(limit, self.pivots),
                    }
                    self.stall_limit = stall_limit(m);
                    self.b.copy_from_slice(&lp.b);
                    continue;
                }
                Step::Unbounded => {
                    return FloatOutcome::Unbounded {
                        basis: self.basis_out(),
                        pivots: self.pivots,
                    }
                }
                Step::Singular => return singular(self.pivots),
                Step::Limit => return stalled(limit, self.pivots),
            }
            if (0..m).all(|p| self.infeasibility(p) <= 1e-9) {
                break;
            }
        }
        FloatOutcome::Optimal {
            basis: self.basis_out(),
            pivots: self.pivots,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// After any sequence of basis changes, each row of [`RowParts`] lists exactly the row's
    /// nonbasic columns first (with their values), then its basic ones, and every column's
    /// slots point at its own entries.
    #[test]
    fn row_parts_keep_nonbasic_columns_first() {
        let (m, n) = (7, 15);
        let mut seed = 12345u64;
        let mut next = move |k: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % k
        };
        let mut a = Columns {
            start: vec![0],
            index: Vec::new(),
            value: Vec::new(),
        };
        for j in 0..n {
            let mut rows: Vec<usize> = (0..m).filter(|_| next(3) == 0).collect();
            rows.push(j % m);
            rows.sort_unstable();
            rows.dedup();
            for &i in &rows {
                a.index.push(i as u32);
                a.value.push((1 + i + 10 * j) as f64);
            }
            a.start.push(a.index.len());
        }
        let mut basic: Vec<bool> = (0..n).map(|j| j < m).collect();
        let mut parts = RowParts::new(&a, m, |j| basic[j]);
        for step in 0..200 {
            if step > 0 {
                let enter = (0..n).filter(|&j| !basic[j]).nth(next(n - m)).unwrap();
                let leave = (0..n).filter(|&j| basic[j]).nth(next(m)).unwrap();
                parts.enter(&a, enter);
                parts.leave(&a, leave);
                basic[enter] = true;
                basic[leave] = false;
            }
            for i in 0..m {
                let mut expected: Vec<(u32, f64)> = (0..n)
                    .filter(|&j| !basic[j])
                    .flat_map(|j| {
                        a.col(j)
                            .filter(|e| e.0 == i)
                            .map(move |e| (j as u32, e.1))
                            .collect::<Vec<_>>()
                    })
                    .collect();
                let mut got: Vec<(u32, f64)> = parts
                    .nonbasic_row(i)
                    .iter()
                    .map(|e| (e.col, e.value))
                    .collect();
                expected.sort_by_key(|e| e.0);
                got.sort_by_key(|e| e.0);
                assert_eq!(got, expected, "step {step}, row {i}");
            }
            for j in 0..n {
                for (k, (i, v)) in a.col(j).enumerate() {
                    let at = parts.slot[a.start[j] + k];
                    let e = parts.entries[at];
                    assert_eq!((e.col as usize, e.k as usize, e.value), (j, k, v));
                    assert!((parts.start[i]..parts.start[i + 1]).contains(&at));
                }
            }
        }
    }

    /// The float simplex on real game LPs, from their pure crash start (thousands of
    /// Forrest–Tomlin updates; test builds check the FTRAN/BTRAN residuals of the updated
    /// factors every 8th pivot) reaches an optimal basis, which the exact layer then
    /// certifies without exact pivots.
    #[test]
    fn updated_factors_solve_game_bases_to_the_optimum() {
        for (spec, min_pivots) in [("leduc", 500), ("liars-dice(dice=1,sides=4)", 200)] {
            let game = crate::games::builtin(spec).unwrap();
            let lp = crate::exact::sequence_form::build_lp(&game);
            let sf = StandardForm::new(&lp.lp);
            let attempt = Attempt {
                // The pure start: behind the support guess where there is one.
                start: sf.fallback_start.as_deref().or(sf.start.as_deref()),
                fall_back_to_slacks: true,
                budget: None,
            };
            match solve(&sf, attempt, None) {
                FloatOutcome::Optimal { pivots, .. } => {
                    assert!(pivots >= min_pivots, "{spec}: {pivots}")
                }
                other => panic!("{spec}: {other:?}"),
            }
        }
    }
}
