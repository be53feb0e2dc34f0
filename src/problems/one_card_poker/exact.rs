//! An exact equilibrium of one-card poker, certified in rationals.
//!
//! Route: CFR+ in vector form to a small exploitability; read off each information set's
//! support (pure passive, pure aggressive, or mixed); solve the indifference equations the
//! support implies exactly (each side's mixed sets fix the other side's unknowns); certify with
//! an exact best response (gap exactly 0). When a candidate fails (an unknown leaves [0, 1], a
//! pure choice turns out strictly worse than its alternative, or the equations are
//! inconsistent) the support is adjusted and the equations solved again; after that CFR runs
//! longer. Nothing uncertified is ever returned.

use super::vector::{CfrVariant, VectorCfr};
use super::{first_values, score, second_values, OcpParams, OcpStrategy};
use crate::scalar::{int, Rational};
use num_traits::{One, Signed, Zero};
use thiserror::Error;

/// How one information set plays in a support guess.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Play {
    /// Always the passive action (check or fold).
    Passive,
    /// Always the aggressive action (bet or call).
    Aggressive,
    /// Both actions with positive probability.
    Mixed,
}

/// A certified exact equilibrium strategy.
#[derive(Clone, Debug)]
pub struct ExactSolution {
    /// The strategy; its gap to A/2 against a best response is exactly 0.
    pub strategy: OcpStrategy<Rational>,
    /// The first seat's value in chips (the second seat's is A minus it).
    pub first_seat_value: Rational,
    /// CFR+ iterations run to guess the support.
    pub cfr_iterations: usize,
    /// Support guesses tried (equation systems solved).
    pub rounds: usize,
}

/// Why no exact equilibrium was produced.
#[derive(Debug, Error)]
pub enum ExactError {
    /// No support guess certified within the iteration budget.
    #[error("no certified exact equilibrium after {iterations} CFR+ iterations and {rounds} support guesses (smallest candidate gap {gap:e}, infinite if no candidate stayed within [0, 1]); refusing to print an uncertified answer")]
    NotCertified {
        /// CFR+ iterations run.
        iterations: usize,
        /// Support guesses tried.
        rounds: usize,
        /// The smallest gap of a candidate that was a valid strategy, as f64.
        gap: f64,
    },
}

/// An affine expression with at most one unknown: `coef * u[var] + constant`.
#[derive(Clone, Copy, Debug)]
struct Aff {
    var: Option<(usize, i64)>,
    constant: i64,
}

impl Aff {
    fn constant(c: i64) -> Self {
        Aff {
            var: None,
            constant: c,
        }
    }
    fn var(v: usize) -> Self {
        Aff {
            var: Some((v, 1)),
            constant: 0,
        }
    }
}

/// One linear equation `sum row[j] u[j] + row[k] = 0` with integer coefficients.
struct Row(Vec<i128>);

impl Row {
    fn new(k: usize) -> Self {
        Row(vec![0; k + 1])
    }
    fn add(&mut self, coef: i64, x: Aff) {
        let k = self.0.len() - 1;
        if let Some((v, c)) = x.var {
            self.0[v] += (coef * c) as i128;
        }
        self.0[k] += (coef * x.constant) as i128;
    }
}

fn sgn(a: usize, b: usize) -> i64 {
    (a as i64 - b as i64).signum()
}

/// Solves the rows exactly; unknowns left free take `guess`. `None` if inconsistent.
fn solve_linear(rows: &[Row], guess: &[Rational]) -> Option<Vec<Rational>> {
    let k = guess.len();
    // Degenerate games repeat the same indifference many times: scale each integer row to
    // its primitive form and drop repeats before the (costly) rational elimination.
    let mut distinct = std::collections::HashSet::new();
    let mut m: Vec<Vec<Rational>> = Vec::new();
    for r in rows {
        let g = r.0.iter().fold(0i128, |g, &x| num_integer::gcd(g, x));
        if g == 0 {
            continue;
        }
        let lead = r.0.iter().find(|&&x| x != 0).expect("non-zero row");
        let g = if *lead < 0 { -g } else { g };
        let primitive: Vec<i128> = r.0.iter().map(|&x| x / g).collect();
        if distinct.insert(primitive.clone()) {
            m.push(
                primitive
                    .into_iter()
                    .map(|x| Rational::from_integer(x.into()))
                    .collect(),
            );
        }
    }
    let mut pivots = Vec::new();
    let mut top = 0;
    for col in 0..k {
        let Some(p) = (top..m.len()).find(|&r| !m[r][col].is_zero()) else {
            continue;
        };
        m.swap(top, p);
        let inv = Rational::one() / &m[top][col];
        for x in m[top].iter_mut() {
            *x = &*x * &inv;
        }
        for r in 0..m.len() {
            if r != top && !m[r][col].is_zero() {
                let f = m[r][col].clone();
                for j in col..=k {
                    let delta = &f * &m[top][j];
                    m[r][j] -= delta;
                }
            }
        }
        pivots.push(col);
        top += 1;
    }
    if m[top..].iter().any(|r| !r[k].is_zero()) {
        return None;
    }
    let mut u = guess.to_vec();
    for (r, &col) in pivots.iter().enumerate() {
        let mut v = -m[r][k].clone();
        for j in 0..k {
            if j != col && !pivots.contains(&j) {
                v -= &m[r][j] * &guess[j];
            }
        }
        u[col] = v;
    }
    Some(u)
}

/// A probability near `p` with a small denominator, for unknowns the equations leave free.
fn nice(p: f64) -> Rational {
    let scaled = (p.clamp(0.0, 1.0) * 1024.0).round() as i64;
    crate::scalar::rat(scaled, 1024)
}

fn classify(p: f64, tolerance: f64) -> Play {
    if p < tolerance {
        Play::Passive
    } else if p > 1.0 - tolerance {
        Play::Aggressive
    } else {
        Play::Mixed
    }
}

/// The support of a strategy, per situation and card (file order).
type Support = [Vec<Play>; 4];

/// The outcome of solving one support guess.
enum Attempt {
    Certified(OcpStrategy<Rational>),
    /// The support changed; try again (with the candidate's gap if it was a valid strategy).
    Adjusted(Option<Rational>),
    /// The support cannot be improved locally.
    Stuck(Rational),
    /// The indifference equations of this player's mixed sets (0 = first player P, 1 = second
    /// player Q) have no solution: one of its sets is mixed that should not be.
    Inconsistent(usize),
}

/// Finds and certifies an exact equilibrium strategy.
pub fn solve_exact(params: &OcpParams) -> Result<ExactSolution, ExactError> {
    let mut cfr = VectorCfr::new(*params, CfrVariant::Plus);
    let mut budget = 2000;
    let mut rounds = 0;
    let mut last_gap = f64::INFINITY;
    for _ in 0..5 {
        cfr.run(budget - cfr.iterations());
        let avg = cfr.average();
        let regret = value_differences(params, &avg);
        // Different thresholds for "mixed" suit different games; each guess is cheap.
        for tolerance in [1e-3, 1e-2, 1e-4] {
            let mut support: Support = [0, 1, 2, 3].map(|s| {
                avg.parts()[s]
                    .iter()
                    .map(|&p| classify(p, tolerance))
                    .collect()
            });
            let mut seen = std::collections::HashSet::new();
            while seen.insert(support.clone()) && seen.len() <= 16 {
                rounds += 1;
                match attempt(params, &mut support, &avg) {
                    Attempt::Certified(strategy) => {
                        let s = score(params, &strategy);
                        return Ok(ExactSolution {
                            strategy,
                            first_seat_value: s.first_seat,
                            cfr_iterations: cfr.iterations(),
                            rounds,
                        });
                    }
                    Attempt::Adjusted(gap) => {
                        if let Some(g) = gap {
                            last_gap = last_gap.min(crate::scalar::rational_to_f64(&g));
                        }
                    }
                    Attempt::Stuck(gap) => {
                        last_gap = last_gap.min(crate::scalar::rational_to_f64(&gap));
                        break;
                    }
                    Attempt::Inconsistent(side) => {
                        // Make the mixed set of that player whose approximate values differ
                        // most pure, towards its better action.
                        let situations = if side == 0 { [0, 3] } else { [1, 2] };
                        let worst = situations
                            .iter()
                            .flat_map(|&s| (0..params.n).map(move |c| (s, c)))
                            .filter(|&(s, c)| support[s][c] == Play::Mixed)
                            .max_by(|a, b| {
                                regret[a.0][a.1].abs().total_cmp(&regret[b.0][b.1].abs())
                            });
                        let Some((s, c)) = worst else { break };
                        support[s][c] = if regret[s][c] > 0.0 {
                            Play::Aggressive
                        } else {
                            Play::Passive
                        };
                    }
                }
            }
        }
        budget *= 4;
    }
    Err(ExactError::NotCertified {
        iterations: cfr.iterations(),
        rounds,
        gap: last_gap,
    })
}

/// For each situation and card, the aggressive action's value minus the passive one's against
/// the other side's strategy in `s` (at the open, checking counts its best continuation).
fn value_differences(params: &OcpParams, s: &OcpStrategy<f64>) -> [Vec<f64>; 4] {
    let p = first_values(params, &s.check, &s.bet);
    let q = second_values(params, &s.open, &s.check_bet);
    let n = params.n;
    [
        (0..n)
            .map(|c| p.open_bet[c] - p.check_showdown[c] - p.cb_fold[c].max(p.cb_call[c]))
            .collect(),
        (0..n).map(|d| q.check_bet[d] - q.check_check[d]).collect(),
        (0..n).map(|d| q.bet_call[d] - q.bet_fold[d]).collect(),
        (0..n).map(|c| p.cb_call[c] - p.cb_fold[c]).collect(),
    ]
}

/// Solves the equations of one support guess, certifies, or adjusts the support.
fn attempt(params: &OcpParams, support: &mut Support, guess: &OcpStrategy<f64>) -> Attempt {
    let n = params.n;
    let a = params.ante;
    let ab = params.ante + 2 * params.bet;
    let [open_s, check_s, bet_s, cb_s] = support.clone();

    // Q's unknowns: bet probability after a check, call probability facing a bet.
    let mut q_guess = Vec::new();
    let mut q_aff = |play: Play, g: f64| match play {
        Play::Passive => Aff::constant(0),
        Play::Aggressive => Aff::constant(1),
        Play::Mixed => {
            q_guess.push(nice(g));
            Aff::var(q_guess.len() - 1)
        }
    };
    let delta: Vec<Aff> = (0..n).map(|d| q_aff(check_s[d], guess.check[d])).collect();
    let phi: Vec<Aff> = (0..n).map(|d| q_aff(bet_s[d], guess.bet[d])).collect();
    let kq = q_guess.len();
    // P's indifferences (all values doubled so coefficients are integers).
    let mut q_rows = Vec::new();
    for c in 0..n {
        let reached_cb = open_s[c] != Play::Aggressive;
        let add_fold = |row: &mut Row, sign: i64| {
            for d in (0..n).filter(|&d| d != c) {
                row.add(-sign * a, delta[d]);
            }
        };
        let add_call = |row: &mut Row, sign: i64| {
            for d in (0..n).filter(|&d| d != c) {
                row.add(sign * ab * sgn(c, d), delta[d]);
            }
        };
        if reached_cb && cb_s[c] == Play::Mixed {
            let mut row = Row::new(kq);
            add_call(&mut row, 1);
            add_fold(&mut row, -1);
            q_rows.push(row);
        }
        if open_s[c] == Play::Mixed {
            let mut row = Row::new(kq);
            for d in (0..n).filter(|&d| d != c) {
                // bet: (1 - phi) A + phi (A + 2B) sgn
                row.add(a, Aff::constant(1));
                row.add(ab * sgn(c, d) - a, phi[d]);
                // minus the showdown after check-check: (1 - delta) A sgn
                row.add(-a * sgn(c, d), Aff::constant(1));
                row.add(a * sgn(c, d), delta[d]);
            }
            if cb_s[c] == Play::Aggressive {
                add_call(&mut row, -1);
            } else {
                add_fold(&mut row, -1);
            }
            q_rows.push(row);
        }
    }

    // P's unknowns: b = bet probability at the open, r = realization weight of check-then-call.
    let mut p_guess = Vec::new();
    let mut b_aff = Vec::with_capacity(n);
    let mut r_aff = Vec::with_capacity(n);
    for c in 0..n {
        let b = match open_s[c] {
            Play::Passive => Aff::constant(0),
            Play::Aggressive => Aff::constant(1),
            Play::Mixed => {
                p_guess.push(nice(guess.open[c]));
                Aff::var(p_guess.len() - 1)
            }
        };
        let r = if open_s[c] == Play::Aggressive {
            Aff::constant(0)
        } else {
            match cb_s[c] {
                Play::Passive => Aff::constant(0),
                Play::Aggressive => Aff {
                    var: b.var.map(|(v, k)| (v, -k)),
                    constant: 1 - b.constant,
                },
                Play::Mixed => {
                    p_guess.push(nice((1.0 - guess.open[c]) * guess.check_bet[c]));
                    Aff::var(p_guess.len() - 1)
                }
            }
        };
        b_aff.push(b);
        r_aff.push(r);
    }
    let kp = p_guess.len();
    let neg = |x: Aff| Aff {
        var: x.var.map(|(v, k)| (v, -k)),
        constant: -x.constant,
    };
    let mut p_rows = Vec::new();
    for d in 0..n {
        if check_s[d] == Play::Mixed {
            // Q bets after a check minus Q checks back.
            let mut row = Row::new(kp);
            for c in (0..n).filter(|&c| c != d) {
                // bet: P folds (weight 1 - b - r) gives A; P calls (weight r) gives (A+2B) sgn.
                row.add(a, Aff::constant(1));
                row.add(-a, b_aff[c]);
                row.add(-a, r_aff[c]);
                row.add(ab * sgn(d, c), r_aff[c]);
                // check: (1 - b) A sgn
                row.add(-a * sgn(d, c), Aff::constant(1));
                row.add(-a * sgn(d, c), neg(b_aff[c]));
            }
            p_rows.push(row);
        }
        if bet_s[d] == Play::Mixed {
            let mut row = Row::new(kp);
            for c in (0..n).filter(|&c| c != d) {
                row.add(ab * sgn(d, c) + a, b_aff[c]);
            }
            p_rows.push(row);
        }
    }

    let Some(q_sol) = solve_linear(&q_rows, &q_guess) else {
        return Attempt::Inconsistent(0);
    };
    let Some(p_sol) = solve_linear(&p_rows, &p_guess) else {
        return Attempt::Inconsistent(1);
    };
    let eval = |x: Aff, sol: &[Rational]| -> Rational {
        let mut v = int(x.constant);
        if let Some((var, k)) = x.var {
            v += &sol[var] * int(k);
        }
        v
    };

    // Unknowns outside their bounds: make that set pure on the side it overshot.
    let mut adjusted = false;
    let mut clamp = |play: &mut Play, value: &Rational, hi: &Rational| {
        if value.is_negative() {
            *play = Play::Passive;
            adjusted = true;
        } else if value > hi {
            *play = Play::Aggressive;
            adjusted = true;
        }
    };
    let one = Rational::one();
    let mut strategy = OcpStrategy::<Rational>::uniform(n);
    for d in 0..n {
        strategy.check[d] = eval(delta[d], &q_sol);
        strategy.bet[d] = eval(phi[d], &q_sol);
        clamp(&mut support[1][d], &strategy.check[d], &one);
        clamp(&mut support[2][d], &strategy.bet[d], &one);
    }
    for c in 0..n {
        let b = eval(b_aff[c], &p_sol);
        let r = eval(r_aff[c], &p_sol);
        clamp(&mut support[0][c], &b, &one);
        let checked = &one - &b;
        if open_s[c] != Play::Aggressive && checked.is_positive() {
            clamp(&mut support[3][c], &r, &checked);
            strategy.check_bet[c] = &r / &checked;
        }
        strategy.open[c] = b;
    }
    if adjusted {
        return Attempt::Adjusted(None);
    }
    // Sets this strategy never reaches still get the better action (irrelevant to the score).
    let p_values = first_values(params, &strategy.check, &strategy.bet);
    for c in 0..n {
        if open_s[c] == Play::Aggressive || strategy.open[c].is_one() {
            strategy.check_bet[c] = if p_values.cb_call[c] > p_values.cb_fold[c] {
                one.clone()
            } else {
                Rational::zero()
            };
        }
    }
    let s = score(params, &strategy);
    if s.gap.is_zero() {
        return Attempt::Certified(strategy);
    }

    // A pure choice strictly worse than its alternative becomes mixed.
    let q_values = second_values(params, &strategy.open, &strategy.check_bet);
    let mut widen = |play: &mut Play, passive: &Rational, aggressive: &Rational| {
        let wrong = match *play {
            Play::Passive => aggressive > passive,
            Play::Aggressive => passive > aggressive,
            Play::Mixed => false,
        };
        if wrong {
            *play = Play::Mixed;
            adjusted = true;
        }
    };
    for i in 0..n {
        let cb_best = if p_values.cb_call[i] > p_values.cb_fold[i] {
            p_values.cb_call[i].clone()
        } else {
            p_values.cb_fold[i].clone()
        };
        let check_value = &p_values.check_showdown[i] + &cb_best;
        widen(&mut support[0][i], &check_value, &p_values.open_bet[i]);
        if support[0][i] != Play::Aggressive {
            widen(
                &mut support[3][i],
                &p_values.cb_fold[i],
                &p_values.cb_call[i],
            );
        }
        widen(
            &mut support[1][i],
            &q_values.check_check[i],
            &q_values.check_bet[i],
        );
        widen(
            &mut support[2][i],
            &q_values.bet_fold[i],
            &q_values.bet_call[i],
        );
    }
    if adjusted {
        Attempt::Adjusted(Some(s.gap))
    } else {
        Attempt::Stuck(s.gap)
    }
}
