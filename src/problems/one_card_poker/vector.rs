//! Vector-form CFR for one-card poker: the four public decision nodes of G1, each holding an
//! N-vector per player, so an iteration costs O(N) (prefix sums for showdowns) instead of the
//! per-pair tree's O(N^2).
//!
//! [`CfrVariant::Vanilla`] is the contest write-up's method: simultaneous updates with
//! strategies frozen at the start of each iteration, counterfactual regrets weighted by the
//! opponent's reach, the average weighted by the actor's own reach, uniform play where no regret
//! is positive. It matches [`super::per_pair::ArenaCfr`] on the general game iteration by
//! iteration. [`CfrVariant::Plus`] (CFR+: regrets floored at 0, iteration-weighted average)
//! with alternating updates) converges much faster and feeds the exact solver.

use super::{OcpParams, OcpStrategy};

/// Which CFR update rule to run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfrVariant {
    /// The write-up's vanilla CFR.
    Vanilla,
    /// CFR+: regrets floored at 0, alternating updates, linear averaging.
    Plus,
}

/// Index of each situation in the per-situation arrays (the file order).
const OPEN: usize = 0;
const CHECK: usize = 1;
const BET: usize = 2;
const CHECK_BET: usize = 3;

/// Vector-form CFR state: per situation and card, the two actions' regrets and average weights
/// (index 0 the passive action, 1 the aggressive one).
#[derive(Clone, Debug)]
pub struct VectorCfr {
    params: OcpParams,
    variant: CfrVariant,
    iterations: usize,
    regrets: [Vec<[f64; 2]>; 4],
    average: [Vec<[f64; 2]>; 4],
    /// Current strategies (probability of the aggressive action), rebuilt each iteration.
    current: [Vec<f64>; 4],
    /// Scratch vectors reused by every iteration (no per-iteration allocation).
    scratch: [Vec<f64>; 4],
}

/// Fills `out[c] = sum_{d<c} v[d] - sum_{d>c} v[d]`, given `total = sum v`.
#[inline]
fn win_minus_lose(v: &[f64], total: f64, out: &mut [f64]) {
    let mut below = 0.0;
    for (o, &x) in out.iter_mut().zip(v) {
        *o = below - (total - below - x);
        below += x;
    }
}

#[inline]
fn regret_matching(r: [f64; 2]) -> f64 {
    let pos0 = r[0].max(0.0);
    let pos1 = r[1].max(0.0);
    let sum = pos0 + pos1;
    if sum > 0.0 {
        pos1 / sum
    } else {
        0.5
    }
}

impl VectorCfr {
    /// Starts with zero regrets (uniform play).
    pub fn new(params: OcpParams, variant: CfrVariant) -> Self {
        let n = params.n;
        VectorCfr {
            params,
            variant,
            iterations: 0,
            regrets: std::array::from_fn(|_| vec![[0.0; 2]; n]),
            average: std::array::from_fn(|_| vec![[0.0; 2]; n]),
            current: std::array::from_fn(|_| vec![0.5; n]),
            scratch: std::array::from_fn(|_| vec![0.0; n]),
        }
    }

    /// Iterations run so far.
    pub fn iterations(&self) -> usize {
        self.iterations
    }

    /// Runs `k` iterations.
    pub fn run(&mut self, k: usize) {
        for _ in 0..k {
            self.iterate();
        }
    }

    /// One simultaneous iteration: both players' regrets from the strategies frozen at its start.
    pub fn iterate(&mut self) {
        let nf = self.params.n as f64;
        let h = self.params.ante as f64 / 2.0;
        let hb = h + self.params.bet as f64;
        // The per-pair game's chance weight of one deal (seat 1/2 times pair 1/(N(N-1))), so the
        // regrets are the same numbers the per-pair reference accumulates.
        let w = 0.5 / (nf * (nf - 1.0));
        self.iterations += 1;
        let weight = match self.variant {
            CfrVariant::Vanilla => 1.0,
            CfrVariant::Plus => self.iterations as f64,
        };
        match self.variant {
            CfrVariant::Vanilla => {
                self.refresh_current(&[OPEN, CHECK, BET, CHECK_BET]);
                self.update_first(w, h, hb, weight);
                self.update_second(w, h, hb, weight);
            }
            CfrVariant::Plus => {
                // Alternating updates: Q answers P's freshly updated strategy.
                self.refresh_current(&[OPEN, CHECK, BET, CHECK_BET]);
                self.update_first(w, h, hb, weight);
                self.floor_regrets(&[OPEN, CHECK_BET]);
                self.refresh_current(&[OPEN, CHECK_BET]);
                self.update_second(w, h, hb, weight);
                self.floor_regrets(&[CHECK, BET]);
            }
        }
    }

    fn refresh_current(&mut self, situations: &[usize]) {
        for &s in situations {
            for (p, r) in self.current[s].iter_mut().zip(&self.regrets[s]) {
                *p = regret_matching(*r);
            }
        }
    }

    fn floor_regrets(&mut self, situations: &[usize]) {
        for &s in situations {
            for r in &mut self.regrets[s] {
                r[0] = r[0].max(0.0);
                r[1] = r[1].max(0.0);
            }
        }
    }

    /// Regrets and average of the first player P (open, check-bet) against Q's current play.
    fn update_first(&mut self, w: f64, h: f64, hb: f64, weight: f64) {
        let n = self.params.n;
        let nf = n as f64;
        let [open, check, bet, check_bet] = &self.current;
        let [wl_a, wl_b, _, _] = &mut self.scratch;
        let delta_total: f64 = check.iter().sum();
        let phi_total: f64 = bet.iter().sum();
        win_minus_lose(check, delta_total, wl_a);
        win_minus_lose(bet, phi_total, wl_b);
        for c in 0..n {
            let v_call = hb * wl_a[c];
            let v_fold = -h * (delta_total - check[c]);
            // Against Q's checks: win_minus_lose(1 - check) = (2c - (N-1)) - wl(check).
            let v_show = h * ((2.0 * c as f64 - (nf - 1.0)) - wl_a[c]);
            let v_bet = h * ((nf - 1.0) - (phi_total - bet[c])) + hb * wl_b[c];
            let g = check_bet[c];
            let v_cb = g * v_call + (1.0 - g) * v_fold;
            let v_check = v_show + v_cb;
            let b = open[c];
            let v_open = b * v_bet + (1.0 - b) * v_check;
            let (r, a) = (&mut self.regrets, &mut self.average);
            let (open_w, call_w) = (weight, weight * (1.0 - b));
            add_binary(
                &mut r[OPEN][c],
                &mut a[OPEN][c],
                w,
                [v_check, v_bet],
                v_open,
                open_w,
                b,
            );
            let (rc, ac) = (&mut r[CHECK_BET][c], &mut a[CHECK_BET][c]);
            add_binary(rc, ac, w, [v_fold, v_call], v_cb, call_w, g);
        }
    }

    /// Regrets and average of the second player Q (check, bet) against P's current play.
    fn update_second(&mut self, w: f64, h: f64, hb: f64, weight: f64) {
        let n = self.params.n;
        let [open, check, bet, check_bet] = &self.current;
        let [wl_a, wl_b, wl_c, wl_d] = &mut self.scratch;
        let mut checked_total = 0.0;
        let mut called_total = 0.0;
        let mut bet_total = 0.0;
        for c in 0..n {
            let checked = 1.0 - open[c];
            let called = checked * check_bet[c];
            wl_c[c] = checked;
            wl_d[c] = called;
            checked_total += checked;
            called_total += called;
            bet_total += open[c];
        }
        let folded_total = checked_total - called_total;
        // wl_a <- win-minus-lose against P's checks, wl_b <- against P's check-calls.
        win_minus_lose(wl_c, checked_total, wl_a);
        win_minus_lose(wl_d, called_total, wl_b);
        // wl_c <- against P's bets (its checked values are no longer needed).
        win_minus_lose(open, bet_total, wl_c);
        for d in 0..n {
            let checked_d = 1.0 - open[d];
            let folded_d = checked_d - checked_d * check_bet[d];
            let q_cc = h * wl_a[d];
            let q_cb = h * (folded_total - folded_d) + hb * wl_b[d];
            let q_bf = -h * (bet_total - open[d]);
            let q_bc = hb * wl_c[d];
            let dl = check[d];
            let node = dl * q_cb + (1.0 - dl) * q_cc;
            let (r, a) = (&mut self.regrets, &mut self.average);
            add_binary(
                &mut r[CHECK][d],
                &mut a[CHECK][d],
                w,
                [q_cc, q_cb],
                node,
                weight,
                dl,
            );
            let ph = bet[d];
            let node = ph * q_bc + (1.0 - ph) * q_bf;
            add_binary(
                &mut r[BET][d],
                &mut a[BET][d],
                w,
                [q_bf, q_bc],
                node,
                weight,
                ph,
            );
        }
    }

    /// The strategy the next iteration will play (regret matching on the current regrets).
    pub fn current(&self) -> OcpStrategy<f64> {
        let part = |s: usize| {
            self.regrets[s]
                .iter()
                .map(|&r| regret_matching(r))
                .collect()
        };
        OcpStrategy {
            open: part(OPEN),
            check: part(CHECK),
            bet: part(BET),
            check_bet: part(CHECK_BET),
        }
    }

    /// The average strategy (uniform where an information set was never reached).
    pub fn average(&self) -> OcpStrategy<f64> {
        let part = |s: usize| {
            self.average[s]
                .iter()
                .map(|a| {
                    let sum = a[0] + a[1];
                    if sum > 0.0 {
                        a[1] / sum
                    } else {
                        0.5
                    }
                })
                .collect()
        };
        OcpStrategy {
            open: part(OPEN),
            check: part(CHECK),
            bet: part(BET),
            check_bet: part(CHECK_BET),
        }
    }
}

/// One two-action decision's update: regrets gain `w` times each action's value less the
/// node's, and the average gains `weight` times the probabilities `1 - p` and `p`.
fn add_binary(
    regret: &mut [f64; 2],
    average: &mut [f64; 2],
    w: f64,
    values: [f64; 2],
    node: f64,
    weight: f64,
    p: f64,
) {
    regret[0] += w * (values[0] - node);
    regret[1] += w * (values[1] - node);
    average[0] += weight * (1.0 - p);
    average[1] += weight * p;
}
