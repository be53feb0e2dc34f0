//! Lemke's path in floats on a sparse LU, then the final basis solved exactly and certified.
//!
//! The exact dense tableau ([`super::lemke`]) costs `O(rows^2)` big integers per pivot. Here the
//! path is followed as a revised method: the basis matrix `B` (columns of `[I | -M | -d]` in
//! `w - M z - d z0 = q`) is kept as the float sparse LU of the exact LP
//! ([`crate::lp::sparse_lu`], Forrest-Tomlin updates, refactorised every [`REFACTOR_EVERY`]
//! updates or when an update loses accuracy), the entering column is one FTRAN, and the basic
//! values are updated along it. Ties in the ratio test (within a tolerance: the sequence-form
//! LCP is degenerate, `q` is zero on every sequence row) are broken by the lexicographic rule
//! on the rows of `B^{-1}` (one BTRAN per tied row, entries compared to the rows' norms), as in
//! the exact tableau. The float path has a pivot budget, so it always ends, and it ends at once
//! when it comes back to a basis it has visited ([`BasisHistory`]), which proves a tie broken
//! wrongly in floats.
//!
//! Where the path ends (`z0` leaves), the basis is solved exactly, `B x_B = q`, by iterative
//! refinement with the float LU and rational reconstruction ([`crate::lp::refine`]; an exact
//! sparse LU when that does not converge), and the realization plans it gives are certified
//! by exact best responses ([`super::certified`]). Nothing from the floats is trusted: a path
//! that stalls, a singular basis, or a basis whose exact solution does not certify is a
//! [`GuidedFailure::Fallback`], and [`super::solve_lcp`] follows the path again in the exact
//! tableau, saying why.

use super::{
    certified, lcp_rows, LcpError, LcpOptions, LcpRoute, LcpSolution, RationalLcp, POLL_EVERY,
};
use crate::game::Game;
use crate::lp::lu::ExactLu;
use crate::lp::refine::{int_system, refine};
use crate::lp::sparse_lu::{max_updates, SparseLu};
use crate::scalar::{ratio, rational_to_f64, Rational};
use num_traits::{One, Zero};
use std::cmp::Ordering;
use std::collections::hash_map::{Entry, HashMap};

/// Rounds of replacing a guessed starting basis's dependent columns by their complements.
const ATTEMPTS_TO_REPAIR: usize = 8;
/// Updates between refactorisations (the basic values are recomputed from scratch then).
const REFACTOR_EVERY: usize = 100;
/// Entries of the entering column at most this (relative to its largest) are not pivots.
const PIVOT_TOL: f64 = 1e-9;
/// Ratios within this (relative) of the minimum tie.
const TIE_TOL: f64 = 1e-9;
/// The size of the perturbation of `q` on the second float path (the first follows the
/// lexicographic rule on the true `q`).
const PERTURBATION: f64 = 1e-9;
/// Entries of two scaled rows of `B^{-1}` closer than this times the larger row's largest entry
/// are equal in the lexicographic comparison (the rows' float error grows with their norm: an
/// entry that is zero in rationals comes out as a small multiple of it).
const LEX_TOL: f64 = 1e-6;

/// Why the float route gave no certified equilibrium.
pub(crate) enum GuidedFailure {
    /// An error the exact route would give too (a bad start).
    Fatal(LcpError),
    /// The float route failed; the exact tableau may still succeed.
    Fallback(String),
}

/// Estimated peak bytes of the float route on `game`: the rational LCP, its float columns, the
/// LU (at most twelve times the basis entries, as the LP's estimate allows) and the exact solve.
pub fn memory_estimate(game: &Game) -> u128 {
    let rows = lcp_rows(game) as u128;
    let seqs = (game.num_sequences(0) + game.num_sequences(1)) as u128;
    let sets = (game.infosets[0].len() + game.infosets[1].len() + 2) as u128;
    // M: two entries per terminal (one per player's matrix), four per E entry.
    let nonzeros = 2 * game.terminals.len() as u128 + 4 * (seqs + sets) + rows;
    let rational = nonzeros * 96 + rows * 3 * 96;
    let float = (nonzeros + rows) * 24 + 12 * (nonzeros + rows) * 40;
    // The basis history: a hash and a pivot count per pivot of the budget, with the map's slack.
    let work = rows * 8 * 24 + u128::from(default_budget(lcp_rows(game))) * 32;
    rational * 2 + float + work
}

/// The float state of Lemke's path.
struct FloatLemke {
    n: usize,
    /// Columns of the variables: `w` (`0..n`), `z` (`n..2n`), `z0` (`2n`).
    cols: Vec<Vec<(usize, f64)>>,
    q: Vec<f64>,
    /// The basic variable of each basis position.
    basis: Vec<usize>,
    /// Basic values by position.
    xb: Vec<f64>,
    lu: SparseLu,
    pivots: u64,
    /// The lexicographic comparison's tolerance ([`LEX_TOL`]).
    lex_tol: f64,
    /// The basis position of each variable (`usize::MAX`: non-basic).
    position: Vec<usize>,
    /// Two work rows of `n` zeros (left zero between uses).
    scratch: Vec<f64>,
    /// The second work row.
    lex_best: Vec<f64>,
    /// The columns of `B^{-1}` (rows of the LCP) in the lexicographic comparison's order.
    lex_order: Vec<usize>,
    /// The rank of each row in `lex_order`.
    lex_rank: Vec<usize>,
    /// Counters of the path (`BLUFF_LCP_STATS`).
    stats: PathStats,
    /// Whether `z0` leaves whenever it ties in the ratio test (the path from a guessed basis).
    prefer_z0: bool,
}

/// Counters of one float path, for measurement (`bluff solve --algo lcp` prints them on
/// standard error when `BLUFF_LCP_STATS` is set).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PathStats {
    /// Pivots taken.
    pub pivots: u64,
    /// Pivots whose step was zero.
    pub degenerate: u64,
    /// Pivots whose ratio test tied.
    pub tied_pivots: u64,
    /// Tied rows over all pivots.
    pub tied_rows: u64,
    /// Solves (BTRAN or FTRAN) made to break ties.
    pub tie_solves: u64,
    /// Non-zeros of the entering columns after FTRAN.
    pub ftran_nonzeros: u64,
    /// Refactorisations.
    pub refactors: u64,
    /// Seconds in the entering FTRAN, the ratio test and tie-breaking, refactorisations.
    pub seconds: [f64; 3],
    /// Variables of a guessed starting basis replaced by their complements to make it
    /// non-singular.
    pub start_flips: u64,
}

impl PathStats {
    /// The counters in one line.
    pub fn describe(&self) -> String {
        let [ftran, ratio, refactor] = self.seconds;
        format!(
            "{} pivots ({} degenerate, {} tied: {} tied rows, {} solves to break ties), \
             {:.0} non-zeros per entering column, {} refactorisations; seconds: FTRAN {ftran:.3}, \
             ratio test and ties {ratio:.3}, refactorisation {refactor:.3}; {} variables of \
             the starting basis replaced by their complements",
            self.pivots,
            self.degenerate,
            self.tied_pivots,
            self.tied_rows,
            self.tie_solves,
            self.ftran_nonzeros as f64 / self.pivots.max(1) as f64,
            self.refactors,
            self.start_flips,
        )
    }
}

impl FloatLemke {
    /// The path's state at the slack basis; `perturb`: `q` raised by [`PERTURBATION`] times a
    /// pseudo-random factor in `[1, 2)` on every row (seeded), so that no two ratios tie.
    ///
    /// `start`: a complementary basis to start from instead of the slack basis; `z0`'s column
    /// is then `-(B 1)` (the sum of the basis's columns, negated), so that the basic values are
    /// `B^{-1} q + z0 1` and the basis is feasible once `z0` is the largest deficit.
    fn new(
        lcp: &RationalLcp,
        perturb: Option<u64>,
        lex_tol: f64,
        start: Option<&[usize]>,
    ) -> Result<Self, String> {
        let n = lcp.rows();
        let mut cols: Vec<Vec<(usize, f64)>> = (0..n).map(|i| vec![(i, 1.0)]).collect();
        cols.extend((0..n).map(|_| Vec::new()));
        for (i, row) in lcp.m.iter().enumerate() {
            for (j, v) in row {
                cols[n + j].push((i, -rational_to_f64(v)));
            }
        }
        cols.push(
            lcp.d
                .iter()
                .enumerate()
                .filter(|(_, v)| !v.is_zero())
                .map(|(i, v)| (i, -rational_to_f64(v)))
                .collect(),
        );
        let mut q: Vec<f64> = lcp.q.iter().map(rational_to_f64).collect();
        if let Some(seed) = perturb {
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for qi in &mut q {
                // xorshift64*: a reproducible factor in [1, 2).
                state ^= state >> 12;
                state ^= state << 25;
                state ^= state >> 27;
                let u =
                    (state.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64;
                *qi += PERTURBATION * (1.0 + u);
            }
        }
        let mut basis: Vec<usize> = start.map_or_else(|| (0..n).collect(), <[usize]>::to_vec);
        if basis.len() != n {
            return Err("the starting basis has the wrong size".into());
        }
        let mut flips = 0;
        if start.is_some() {
            // A guessed basis may be singular: each column the factorisation cannot pivot on
            // is replaced by its complement (the basis stays complementary), until it factors.
            for _ in 0..ATTEMPTS_TO_REPAIR {
                let refs: Vec<&[(usize, f64)]> =
                    basis.iter().map(|&v| cols[v].as_slice()).collect();
                let (dropped, _) = SparseLu::dependent_columns(n, &refs);
                if dropped.is_empty() {
                    break;
                }
                flips += dropped.len() as u64;
                for k in dropped {
                    basis[k] = if basis[k] < n {
                        basis[k] + n
                    } else {
                        basis[k] - n
                    };
                }
            }
            let mut sum = vec![0.0; n];
            for &v in &basis {
                for &(i, c) in &cols[v] {
                    sum[i] -= c;
                }
            }
            cols[2 * n] = sum.into_iter().enumerate().filter(|e| e.1 != 0.0).collect();
        }
        let refs: Vec<&[(usize, f64)]> = basis.iter().map(|&v| cols[v].as_slice()).collect();
        let mut lu = SparseLu::factor(n, &refs).map_err(|_| "the starting basis is singular")?;
        let mut xb = q.clone();
        if start.is_some() {
            lu.ftran(&mut xb);
        }
        // The lexicographic rule's column order: from a guessed basis, its basic slacks'
        // columns first, so that ties among their rows are broken without a solve (see
        // `leaving`); from the slack basis, the rows in order.
        let order: Vec<usize> = if start.is_some() {
            let mut basic = vec![false; n];
            for &v in basis.iter().filter(|&&v| v < n) {
                basic[v] = true;
            }
            let (early, late): (Vec<usize>, Vec<usize>) = (0..n).partition(|&j| basic[j]);
            early.into_iter().chain(late).collect()
        } else {
            (0..n).collect()
        };
        let mut position = vec![usize::MAX; 2 * n + 1];
        for (k, &v) in basis.iter().enumerate() {
            position[v] = k;
        }
        Ok(FloatLemke {
            position,
            scratch: vec![0.0; n],
            lex_best: vec![0.0; n],
            lex_rank: {
                let mut rank = vec![0; n];
                for (k, &j) in order.iter().enumerate() {
                    rank[j] = k;
                }
                rank
            },
            lex_order: order,
            stats: PathStats {
                start_flips: flips,
                ..PathStats::default()
            },
            n,
            xb,
            prefer_z0: start.is_some(),
            cols,
            q,
            basis,
            lu,
            pivots: 0,
            lex_tol,
        })
    }

    /// The complement of variable `v`.
    fn complement(&self, v: usize) -> usize {
        if v < self.n {
            v + self.n
        } else {
            v - self.n
        }
    }

    /// Factorises the current basis afresh and recomputes the basic values.
    fn refactor(&mut self) -> Result<(), String> {
        let t0 = std::time::Instant::now();
        self.stats.refactors += 1;
        let refs: Vec<&[(usize, f64)]> = self
            .basis
            .iter()
            .map(|&v| self.cols[v].as_slice())
            .collect();
        self.lu.refactor(&refs).map_err(|_| {
            format!(
                "the float basis became singular after {} pivots",
                self.pivots
            )
        })?;
        let mut x = self.q.clone();
        self.lu.ftran(&mut x);
        self.xb = x;
        self.stats.seconds[2] += t0.elapsed().as_secs_f64();
        Ok(())
    }

    /// Row `p` of `B^{-1}` divided by `alpha` into `row` (dense, zero outside `idx` on entry;
    /// on return `idx` lists its non-zeros).
    fn scaled_row(&mut self, p: usize, alpha: f64, row: &mut [f64], idx: &mut Vec<usize>) {
        self.stats.tie_solves += 1;
        idx.clear();
        idx.push(p);
        row[p] = 1.0;
        self.lu.btran_sparse(row, idx);
        for &i in idx.iter() {
            row[i] /= alpha;
        }
    }

    /// The leaving position for the entering column `alpha` (by position, non-zeros `idx`):
    /// the minimum ratio over positive entries (`first`: the maximum over negative entries,
    /// `z0`'s entrance), ties broken by the lexicographic rule. `None`: a ray.
    fn leaving(&mut self, alpha: &[f64], idx: &[usize], first: bool) -> Option<usize> {
        let big = idx.iter().fold(0.0f64, |m, &p| m.max(alpha[p].abs()));
        let tol = PIVOT_TOL * big.max(1.0);
        let sign = if first { -1.0 } else { 1.0 };
        // Minimise sign * ratio over sign * alpha > tol.
        let mut cands: Vec<(usize, f64)> = Vec::new();
        let mut best = f64::INFINITY;
        for &p in idx {
            let a = alpha[p];
            if sign * a > tol {
                let x = if first {
                    self.xb[p]
                } else {
                    self.xb[p].max(0.0)
                };
                let r = sign * x / a;
                best = best.min(r);
                cands.push((p, r));
            }
        }
        if cands.is_empty() {
            return None;
        }
        let slack = TIE_TOL * (1.0 + best.abs());
        let ties: Vec<usize> = cands
            .iter()
            .filter(|c| c.1 <= best + slack)
            .map(|c| c.0)
            .collect();
        if ties.len() == 1 {
            return Some(ties[0]);
        }
        // From a guessed basis, `z0` leaves when it ties: the basis is then a solution. (Every
        // basic value there moves with `z0` at the same rate at first, so `p+`'s slack, zero at
        // the guessed basis, ties with `z0`; were it to leave instead, `p+` would enter on a
        // ray, `p+` and `p-` growing together.)
        if self.prefer_z0 {
            if let Some(&p) = ties.iter().find(|&&p| self.basis[p] == 2 * self.n) {
                return Some(p);
            }
        }
        self.stats.tied_pivots += 1;
        self.stats.tied_rows += ties.len() as u64;
        // The columns of `B^{-1}` of basic slacks are unit columns: the row of a slack `w_j`'s
        // position has 1 / alpha at column `j` and 0 at every other basic slack's column, any
        // other row 0 at all of them. So a tied slack whose column comes before the first
        // non-basic slack's loses to every other tie, exactly, without a solve (the last such
        // slack wins if only they tie).
        let first_open = self
            .lex_order
            .iter()
            .position(|&j| self.position[j] == usize::MAX)
            .unwrap_or(self.n);
        let early = |s: &Self, p: usize| {
            let v = s.basis[p];
            v < s.n && s.lex_rank[v] < first_open
        };
        let mut ties = ties;
        if ties.iter().all(|&p| early(self, p)) {
            return ties
                .into_iter()
                .max_by_key(|&p| self.lex_rank[self.basis[p]]);
        }
        ties.retain(|&p| !early(self, p));
        if ties.len() == 1 {
            return Some(ties[0]);
        }
        // Lexicographic minimum of sign * row / alpha, rows compared in `lex_order`.
        let mut best = std::mem::take(&mut self.lex_best);
        let mut row = std::mem::take(&mut self.scratch);
        let (mut best_idx, mut row_idx) = (Vec::new(), Vec::new());
        let mut winner = ties[0];
        self.scaled_row(winner, sign * alpha[winner], &mut best, &mut best_idx);
        for &p in &ties[1..] {
            self.scaled_row(p, sign * alpha[p], &mut row, &mut row_idx);
            let order = lex_cmp_dense(
                (&row, &row_idx),
                (&best, &best_idx),
                &self.lex_rank,
                self.lex_tol,
            );
            let better = match order {
                Ordering::Less => true,
                Ordering::Greater => false,
                Ordering::Equal => alpha[p].abs() > alpha[winner].abs(),
            };
            if better {
                winner = p;
                std::mem::swap(&mut best, &mut row);
                std::mem::swap(&mut best_idx, &mut row_idx);
            }
            for &i in &row_idx {
                row[i] = 0.0;
            }
        }
        for &i in &best_idx {
            best[i] = 0.0;
        }
        self.lex_best = best;
        self.scratch = row;
        Some(winner)
    }

    /// Follows the path to its end: `Ok(())` when `z0` left the basis; polls `interrupted`
    /// every [`POLL_EVERY`] pivots.
    fn run(
        &mut self,
        budget: u64,
        interrupted: &mut dyn FnMut() -> bool,
    ) -> Result<(), GuidedFailure> {
        let n = self.n;
        let z0 = 2 * n;
        if self.xb.iter().all(|&x| x >= 0.0) {
            return Ok(());
        }
        let mut entering = z0;
        let mut alpha = vec![0.0; n];
        let mut idx: Vec<usize> = Vec::new();
        let mut history = BasisHistory::new(2 * n + 1, &self.basis);
        loop {
            if self.pivots >= budget {
                return Err(GuidedFailure::Fallback(format!(
                    "no end within {budget} float pivots"
                )));
            }
            if self.pivots.is_multiple_of(POLL_EVERY) && interrupted() {
                return Err(GuidedFailure::Fatal(LcpError::Interrupted {
                    pivots: self.pivots,
                }));
            }
            idx.clear();
            for &(i, v) in &self.cols[entering] {
                alpha[i] = v;
                idx.push(i);
            }
            let t0 = std::time::Instant::now();
            self.lu.ftran_sparse(&mut alpha, &mut idx);
            self.stats.ftran_nonzeros += idx.len() as u64;
            let t1 = std::time::Instant::now();
            self.stats.seconds[0] += (t1 - t0).as_secs_f64();
            let first = entering == z0;
            let leave = self.leaving(&alpha, &idx, first);
            self.stats.seconds[1] += t1.elapsed().as_secs_f64();
            let Some(r) = leave else {
                for &p in &idx {
                    alpha[p] = 0.0;
                }
                return Err(GuidedFailure::Fallback(format!(
                    "the float path reached a ray after {} pivots",
                    self.pivots
                )));
            };
            let t = if first {
                self.xb[r] / alpha[r]
            } else {
                self.xb[r].max(0.0) / alpha[r]
            };
            for &p in &idx {
                self.xb[p] -= t * alpha[p];
            }
            self.xb[r] = t;
            let leaving = self.basis[r];
            self.basis[r] = entering;
            self.position[leaving] = usize::MAX;
            self.position[entering] = r;
            self.pivots += 1;
            self.stats.pivots += 1;
            if t == 0.0 {
                self.stats.degenerate += 1;
            }
            let accurate = self.lu.update(r, alpha[r]);
            for &p in &idx {
                alpha[p] = 0.0;
            }
            if !accurate || self.lu.updates() >= REFACTOR_EVERY.min(max_updates(n)) || first {
                self.refactor().map_err(GuidedFailure::Fallback)?;
            }
            if leaving == z0 {
                return Ok(());
            }
            if let Some(before) = history.pivot(leaving, entering, self.pivots) {
                return Err(GuidedFailure::Fallback(format!(
                    "the float path came back after {} pivots to the basis of pivot {before} \
                     (ties broken wrongly in floats)",
                    self.pivots
                )));
            }
            entering = self.complement(leaving);
        }
    }
}

/// The bases a float path has visited, each kept as a 64-bit hash of its set of basic
/// variables (the XOR of one pseudo-random key per variable, updated in `O(1)` per pivot).
/// Neither the lexicographic path nor a path on a perturbed `q` without ties can visit a basis
/// twice, so a repeat proves that float ties were broken wrongly and the path is lost: it is
/// ended at once rather than left to cycle to its pivot budget.
struct BasisHistory {
    keys: Vec<u64>,
    hash: u64,
    /// The pivot count at which each basis was first seen, by hash.
    seen: HashMap<u64, u64>,
}

impl BasisHistory {
    /// The history of a path over `vars` variables starting at `basis`.
    fn new(vars: usize, basis: &[usize]) -> Self {
        let keys: Vec<u64> = (0..vars as u64).map(splitmix64).collect();
        let hash = basis.iter().fold(0, |h, &v| h ^ keys[v]);
        let mut seen = HashMap::new();
        seen.insert(hash, 0);
        BasisHistory { keys, hash, seen }
    }

    /// Records the pivot `pivots` (`leaving` out of the basis, `entering` in); `Some(p)`: the
    /// new basis was first seen after `p` pivots.
    fn pivot(&mut self, leaving: usize, entering: usize, pivots: u64) -> Option<u64> {
        self.hash ^= self.keys[leaving] ^ self.keys[entering];
        match self.seen.entry(self.hash) {
            Entry::Occupied(e) => Some(*e.get()),
            Entry::Vacant(e) => {
                e.insert(pivots);
                None
            }
        }
    }
}

/// SplitMix64's output function: a well-mixed 64-bit key of `x`.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Compares two dense rows (with their non-zeros listed) lexicographically in the order of
/// `rank`, entries closer than `tol` times the largest entry of either equal: the order at
/// the first index (by rank) where they differ by more.
fn lex_cmp_dense(
    a: (&[f64], &[usize]),
    b: (&[f64], &[usize]),
    rank: &[usize],
    tol: f64,
) -> Ordering {
    let norm =
        a.1.iter()
            .map(|&i| a.0[i].abs())
            .chain(b.1.iter().map(|&i| b.0[i].abs()));
    let tol = tol * norm.fold(0.0f64, f64::max);
    let mut first: Option<usize> = None;
    for &i in a.1.iter().chain(b.1) {
        if (a.0[i] - b.0[i]).abs() > tol && first.is_none_or(|f| rank[i] < rank[f]) {
            first = Some(i);
        }
    }
    match first {
        Some(i) => a.0[i].partial_cmp(&b.0[i]).unwrap_or(Ordering::Equal),
        None => Ordering::Equal,
    }
}

/// The default float pivot budget of an `n`-row LCP.
fn default_budget(n: usize) -> u64 {
    100 * n as u64 + 10_000
}

/// The float-guided route: Lemke's path in floats, the final basis solved exactly, the plans
/// certified.
pub(crate) fn solve(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, GuidedFailure> {
    solve_tuned(game, lcp, options, LEX_TOL, None, interrupted)
}

/// [`solve`] (from `start`: [`solve_from`]) with the first path's lexicographic tolerance
/// `lex_tol` (the perturbed path keeps [`LEX_TOL`]); the tests give a tolerance that sends the
/// first path astray.
fn solve_tuned(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    lex_tol: f64,
    start: Option<&[usize]>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, GuidedFailure> {
    let first = match attempt(game, lcp, options, None, lex_tol, start, interrupted) {
        Err(GuidedFailure::Fallback(why)) => why,
        other => return other,
    };
    let mut s =
        attempt(game, lcp, options, Some(1), LEX_TOL, start, interrupted).map_err(|e| match e {
            GuidedFailure::Fallback(why) => {
                GuidedFailure::Fallback(format!("{first}; on a perturbed q: {why}"))
            }
            fatal => fatal,
        })?;
    if let LcpRoute::Guided { perturbed, .. } = &mut s.route {
        *perturbed = Some(first);
    }
    Ok(s)
}

/// The float route from the complementary basis `basis` (variables as in [`FloatLemke`]) with
/// the covering vector `B 1`: first by the lexicographic rule on the true `q`, then on a
/// perturbed `q`; the final basis solved exactly and certified. A path from a basis other than
/// the slack basis may end on a ray: that is a [`GuidedFailure::Fallback`] like any other.
pub(crate) fn solve_from(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    basis: &[usize],
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, GuidedFailure> {
    solve_tuned(game, lcp, options, LEX_TOL, Some(basis), interrupted)
}

/// One float path (on the true `q` by the lexicographic rule, or on `q` perturbed with
/// `perturb`'s seed), its final basis solved exactly on the true `q` and certified.
fn attempt(
    game: &Game,
    lcp: &RationalLcp,
    options: &LcpOptions,
    perturb: Option<u64>,
    lex_tol: f64,
    start: Option<&[usize]>,
    interrupted: &mut dyn FnMut() -> bool,
) -> Result<LcpSolution, GuidedFailure> {
    let n = lcp.rows();
    let mut path =
        FloatLemke::new(lcp, perturb, lex_tol, start).map_err(GuidedFailure::Fallback)?;
    let budget = options
        .max_pivots
        .unwrap_or(u64::MAX)
        .min(default_budget(n));
    path.run(budget, interrupted)?;
    path.refactor().map_err(GuidedFailure::Fallback)?;
    // The basis equations `sum_k B[i][k] x_k = q_i` in rationals.
    let one = Rational::one();
    let mut mcols: Vec<Vec<(usize, Rational)>> = vec![Vec::new(); n];
    for (i, row) in lcp.m.iter().enumerate() {
        for (j, v) in row {
            mcols[*j].push((i, -v));
        }
    }
    let dneg: Vec<(usize, Rational)> = lcp
        .d
        .iter()
        .enumerate()
        .filter(|(_, v)| !v.is_zero())
        .map(|(i, v)| (i, -v))
        .collect();
    let column = |v: usize| -> Vec<(usize, &Rational)> {
        if v < n {
            vec![(v, &one)]
        } else if v < 2 * n {
            mcols[v - n].iter().map(|(i, c)| (*i, c)).collect()
        } else {
            dneg.iter().map(|(i, c)| (*i, c)).collect()
        }
    };
    let mut eqs: Vec<Vec<(usize, &Rational)>> = vec![Vec::new(); n];
    for (k, &v) in path.basis.iter().enumerate() {
        for (i, c) in column(v) {
            eqs[i].push((k, c));
        }
    }
    let mut rounds = 0;
    let mut exact_lu = false;
    let mut values: Option<Vec<Rational>> = None;
    if let Some(sys) = int_system(eqs, lcp.q.iter().collect()) {
        let (sol, r) = refine(&sys, &mut |r| path.lu.ftran(r));
        rounds = r;
        if let Some((den, nums)) = sol {
            values = Some(
                nums.into_iter()
                    .map(|v| {
                        if v.is_zero() {
                            Rational::zero()
                        } else {
                            ratio(v, den.clone())
                        }
                    })
                    .collect(),
            );
        }
    }
    if values.is_none() {
        exact_lu = true;
        let owned: Vec<Vec<(usize, Rational)>> = path
            .basis
            .iter()
            .map(|&v| column(v).into_iter().map(|(i, c)| (i, c.clone())).collect())
            .collect();
        let refs: Vec<&[(usize, Rational)]> = owned.iter().map(Vec::as_slice).collect();
        let lu = ExactLu::factor(n, &refs).map_err(|_| {
            GuidedFailure::Fallback("the float path's final basis is singular".into())
        })?;
        values = Some(lu.solve(&lcp.q));
    }
    let values = values.unwrap_or_default();
    let mut z = vec![Rational::zero(); n];
    for (k, &v) in path.basis.iter().enumerate() {
        if (n..2 * n).contains(&v) {
            z[v - n] = values[k].clone();
        }
    }
    let mut s = certified(game, lcp.plans(&z), path.pivots, n).map_err(|e| match e {
        LcpError::NotCertified(why) => GuidedFailure::Fallback(format!(
            "the float path's final basis is not an equilibrium: {why}"
        )),
        other => GuidedFailure::Fatal(other),
    })?;
    s.route = LcpRoute::Guided {
        rounds,
        exact_lu,
        perturbed: None,
    };
    s.path_stats = Some(path.stats.clone());
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::games::builtin;

    #[test]
    fn the_history_sees_a_basis_again_and_nothing_else() {
        let mut h = BasisHistory::new(7, &[0, 1, 2]);
        // {0,1,2} -> {3,1,2} -> {3,4,2} -> {3,4,5}: all new.
        assert_eq!(h.pivot(0, 3, 1), None);
        assert_eq!(h.pivot(1, 4, 2), None);
        assert_eq!(h.pivot(2, 5, 3), None);
        // {3,4,5} -> {3,1,5}: new; -> {3,1,2}: the basis of pivot 1.
        assert_eq!(h.pivot(4, 1, 4), None);
        assert_eq!(h.pivot(5, 2, 5), Some(1));
        // Back to the start, in another order of positions.
        assert_eq!(h.pivot(3, 0, 6), Some(0));
    }

    /// With no tolerance in the lexicographic comparison (float noise decides ties), the first
    /// path on raked one-card poker with 30 cards (966 rows) comes back to a basis within
    /// about 640 pivots: it is ended there, and the path on a perturbed `q` gives a basis whose
    /// exact solution certifies, checked again by the exact evaluator.
    #[test]
    fn a_first_path_that_revisits_a_basis_is_ended_and_the_perturbed_one_certifies() {
        let game = builtin("one-card-poker(n=30,a=2,b=1,rake=0.05)").unwrap();
        let options = LcpOptions::default();
        let start = super::super::start_profile(&game, &options.start).unwrap();
        let lcp = super::super::build_lcp(&game, &start);
        let rows = lcp.rows();
        let Ok(s) = solve_tuned(&game, &lcp, &options, 0.0, None, &mut || false) else {
            panic!("no certified equilibrium");
        };
        let LcpRoute::Guided {
            perturbed: Some(why),
            ..
        } = &s.route
        else {
            panic!("{}", s.route.describe());
        };
        let after: u64 = why
            .strip_prefix("the float path came back after ")
            .and_then(|w| w.split(' ').next())
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{why}"));
        assert!(after < rows as u64, "{why}");
        let e = exploitability(&game, &s.profile);
        assert!(e.gain.iter().all(Zero::is_zero));
        assert_eq!(e.value, s.value);
        // The counters are the path's: its pivots, each tie solve for a tied row.
        let stats = s.path_stats.as_ref().expect("the float path's counters");
        assert_eq!(stats.pivots, s.pivots);
        assert!(stats.tied_pivots > 0 && stats.tie_solves <= stats.tied_rows);
        assert!(stats.degenerate <= stats.pivots && stats.refactors > 0);
    }
}
