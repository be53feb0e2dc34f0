//! The flat, segmented, parallel CFR solver against a textbook recursive implementation that
//! follows the papers' formulas literally: linear CFR weights iteration t's regrets by t (no
//! discounting), DCFR discounts the cumulative strategy by (t/(t+1))^gamma each iteration (not
//! t^gamma weights), CFR+ floors after adding. The two must play the same strategies.

// Index loops mirror the papers' formulas.
#![allow(clippy::needless_range_loop)]

use bluff::game::{Game, NodeKind};
use bluff::games::{kuhn::kuhn_poker, leduc::leduc_poker};
use bluff::solve::cfr::{CfrSolver, RegretParams};

#[derive(Clone, Copy)]
enum Variant {
    Vanilla {
        alternating: bool,
    },
    Plus,
    Linear,
    Discounted {
        alpha: f64,
        beta: f64,
        gamma: f64,
    },
    PredictivePlus,
    /// Xu et al. 2024 as the authors' code runs it (github.com/rpSebastian/PDCFRPlus,
    /// `pdcfrplus/cfr/dcfr_plus.py`): `R_t = max(R_{t-1} d(t-1) + r_t, 0)` with
    /// `d(s) = s^a / (s^a + offset)`, offset 1.5 there; `S_t = S_{t-1} ((t-1)/t)^gamma + x_t`.
    DcfrPlus {
        alpha: f64,
        offset: f64,
        gamma: f64,
    },
    /// Xu et al. 2024: DCFR+ regrets, strategy from `max(R_t d(t) + r_t, 0)`.
    PdcfrPlus {
        alpha: f64,
        gamma: f64,
    },
    /// Zhang, McAleer and Sandholm: DCFR whose exponents at iteration `t` are taken at
    /// progress `(t - 1) / horizon`: alpha 1 + 3p, beta -1 - 2p, gamma gamma0 - 5p.
    HsDcfr {
        gamma0: f64,
        horizon: f64,
    },
    /// PCFR+ with gamma = gamma0 - 5 (t - 1) / horizon.
    HsPcfrPlus {
        gamma0: f64,
        horizon: f64,
    },
}

/// `s^e / (s^e + 1)`, written out; 0 at s = 0 (nothing accumulated yet).
fn d(s: f64, e: f64) -> f64 {
    d_offset(s, e, 1.0)
}

/// `s^e / (s^e + c)`; 0 at s = 0.
fn d_offset(s: f64, e: f64, c: f64) -> f64 {
    if s == 0.0 {
        0.0
    } else {
        s.powf(e) / (s.powf(e) + c)
    }
}

struct Reference<'g> {
    game: &'g Game,
    variant: Variant,
    regret: [Vec<f64>; 2],
    last: [Vec<f64>; 2],
    avg: [Vec<f64>; 2],
    sigma: [Vec<f64>; 2],
    /// What regret matching reads (the prediction of PDCFR+).
    pred: [Vec<f64>; 2],
    t: usize,
}

impl<'g> Reference<'g> {
    fn new(game: &'g Game, variant: Variant) -> Self {
        let z = || {
            [
                vec![0.0; game.num_actions[0]],
                vec![0.0; game.num_actions[1]],
            ]
        };
        let mut r = Reference {
            game,
            variant,
            regret: z(),
            last: z(),
            avg: z(),
            sigma: z(),
            pred: z(),
            t: 0,
        };
        for p in 0..2 {
            r.matching(p);
        }
        r
    }

    fn alternating(&self) -> bool {
        !matches!(self.variant, Variant::Vanilla { alternating: false })
    }

    /// Returns player 0's expected payoff below `node`; adds counterfactual regrets and
    /// reach-weighted strategies of the `learner` (both players when `None`) into `inst`/`strat`.
    fn walk(
        &self,
        node: usize,
        reach: [f64; 2],
        chance: f64,
        learner: Option<usize>,
        inst: &mut [Vec<f64>; 2],
        strat: &mut [Vec<f64>; 2],
    ) -> f64 {
        let nd = &self.game.nodes[node];
        match nd.kind {
            NodeKind::Terminal { terminal } => self.game.terminals[terminal as usize].payoff0_f64,
            NodeKind::Chance => nd
                .children()
                .map(|c| {
                    let q = self.game.chance_prob_f64[c];
                    q * self.walk(c, reach, chance * q, learner, inst, strat)
                })
                .sum(),
            NodeKind::Decision { player, infoset } => {
                let p = player as usize;
                let set = &self.game.infosets[p][infoset as usize];
                let mut child_u = Vec::new();
                for (k, c) in nd.children().enumerate() {
                    let mut r = reach;
                    r[p] *= self.sigma[p][set.action_offset + k];
                    child_u.push(self.walk(c, r, chance, learner, inst, strat));
                }
                let u: f64 = (0..child_u.len())
                    .map(|k| self.sigma[p][set.action_offset + k] * child_u[k])
                    .sum();
                if learner.is_none() || learner == Some(p) {
                    let sign = if p == 0 { 1.0 } else { -1.0 };
                    for k in 0..child_u.len() {
                        let a = set.action_offset + k;
                        inst[p][a] += reach[1 - p] * chance * sign * (child_u[k] - u);
                        strat[p][a] += reach[p] * self.sigma[p][a];
                    }
                }
                u
            }
        }
    }

    fn matching(&mut self, p: usize) {
        let predictive = matches!(
            self.variant,
            Variant::PredictivePlus | Variant::HsPcfrPlus { .. }
        );
        let pdcfr = matches!(self.variant, Variant::PdcfrPlus { .. });
        for set in &self.game.infosets[p] {
            let r = set.action_range();
            let pos: Vec<f64> = r
                .clone()
                .map(|a| {
                    if pdcfr {
                        return self.pred[p][a].max(0.0);
                    }
                    (self.regret[p][a] + if predictive { self.last[p][a] } else { 0.0 }).max(0.0)
                })
                .collect();
            let total: f64 = pos.iter().sum();
            for (k, a) in r.enumerate() {
                self.sigma[p][a] = if total > 0.0 {
                    pos[k] / total
                } else {
                    1.0 / set.actions.len() as f64
                };
            }
        }
    }

    fn learn(&mut self, p: usize, inst: &[f64], strat: &[f64]) {
        let t = self.t as f64;
        for a in 0..inst.len() {
            match self.variant {
                Variant::Vanilla { .. } => {
                    self.regret[p][a] += inst[a];
                    self.avg[p][a] += strat[a];
                }
                Variant::Plus => {
                    self.regret[p][a] = (self.regret[p][a] + inst[a]).max(0.0);
                    self.avg[p][a] += t * strat[a];
                }
                Variant::PredictivePlus => {
                    self.regret[p][a] = (self.regret[p][a] + inst[a]).max(0.0);
                    self.last[p][a] = inst[a];
                    self.avg[p][a] += t * t * strat[a];
                }
                Variant::Linear => {
                    self.regret[p][a] += t * inst[a];
                    self.avg[p][a] += t * strat[a];
                }
                Variant::Discounted { alpha, beta, gamma } => {
                    let r = self.regret[p][a] + inst[a];
                    let e = if r > 0.0 { alpha } else { beta };
                    self.regret[p][a] = r * t.powf(e) / (t.powf(e) + 1.0);
                    self.avg[p][a] = (self.avg[p][a] + strat[a]) * (t / (t + 1.0)).powf(gamma);
                }
                Variant::DcfrPlus {
                    alpha,
                    offset,
                    gamma,
                } => {
                    let w = d_offset(t - 1.0, alpha, offset);
                    self.regret[p][a] = (self.regret[p][a] * w + inst[a]).max(0.0);
                    self.avg[p][a] = self.avg[p][a] * ((t - 1.0) / t).powf(gamma) + strat[a];
                }
                Variant::PdcfrPlus { alpha, gamma } => {
                    let r = (self.regret[p][a] * d(t - 1.0, alpha) + inst[a]).max(0.0);
                    self.regret[p][a] = r;
                    self.pred[p][a] = (r * d(t, alpha) + inst[a]).max(0.0);
                    self.avg[p][a] = self.avg[p][a] * ((t - 1.0) / t).powf(gamma) + strat[a];
                }
                Variant::HsDcfr { gamma0, horizon } => {
                    let progress = (t - 1.0) / horizon;
                    let (alpha, beta) = (1.0 + 3.0 * progress, -1.0 - 2.0 * progress);
                    let gamma = gamma0 - 5.0 * progress;
                    let old = self.regret[p][a];
                    let e = if old > 0.0 { alpha } else { beta };
                    self.regret[p][a] = old * d(t - 1.0, e) + inst[a];
                    self.avg[p][a] = self.avg[p][a] * ((t - 1.0) / t).powf(gamma) + strat[a];
                }
                Variant::HsPcfrPlus { gamma0, horizon } => {
                    let gamma = gamma0 - 5.0 * (t - 1.0) / horizon;
                    self.regret[p][a] = (self.regret[p][a] + inst[a]).max(0.0);
                    self.last[p][a] = inst[a];
                    self.avg[p][a] = self.avg[p][a] * ((t - 1.0) / t).powf(gamma) + strat[a];
                }
            }
        }
    }

    fn iterate(&mut self) {
        self.t += 1;
        let z = || {
            [
                vec![0.0; self.game.num_actions[0]],
                vec![0.0; self.game.num_actions[1]],
            ]
        };
        if self.alternating() {
            for p in 0..2 {
                let (mut inst, mut strat) = (z(), z());
                self.walk(0, [1.0, 1.0], 1.0, Some(p), &mut inst, &mut strat);
                self.learn(p, &inst[p], &strat[p]);
                self.matching(p);
            }
        } else {
            let (mut inst, mut strat) = (z(), z());
            self.walk(0, [1.0, 1.0], 1.0, None, &mut inst, &mut strat);
            for p in 0..2 {
                self.learn(p, &inst[p], &strat[p]);
            }
            for p in 0..2 {
                self.matching(p);
            }
        }
    }

    fn average(&self, p: usize) -> Vec<f64> {
        let mut out = self.avg[p].clone();
        for set in &self.game.infosets[p] {
            let total: f64 = set.action_range().map(|a| self.avg[p][a]).sum();
            for a in set.action_range() {
                out[a] = if total > 0.0 {
                    self.avg[p][a] / total
                } else {
                    1.0 / set.actions.len() as f64
                };
            }
        }
        out
    }
}

fn compare(game: &Game, variant: Variant, params: RegretParams, iterations: usize) {
    let mut reference = Reference::new(game, variant);
    let mut solver = CfrSolver::new(game, params).with_threads(2).unwrap();
    for _ in 0..iterations {
        reference.iterate();
    }
    solver.iterate(iterations as u64);
    let avg = solver.average_profile();
    let cur = solver.current_profile();
    for p in 0..2 {
        let ref_avg = reference.average(p);
        for a in 0..game.num_actions[p] {
            assert!(
                (avg.probs[p][a] - ref_avg[a]).abs() < 1e-9,
                "{params:?} player {p} action {a}: average {} vs reference {}",
                avg.probs[p][a],
                ref_avg[a]
            );
            assert!(
                (cur.probs[p][a] - reference.sigma[p][a]).abs() < 1e-9,
                "{params:?} player {p} action {a}: current {} vs reference {}",
                cur.probs[p][a],
                reference.sigma[p][a]
            );
        }
    }
}

fn all_variants() -> Vec<(Variant, RegretParams)> {
    vec![
        (
            Variant::Vanilla { alternating: false },
            RegretParams::vanilla(),
        ),
        (
            Variant::Vanilla { alternating: true },
            RegretParams::vanilla_alternating(),
        ),
        (Variant::Plus, RegretParams::cfr_plus()),
        (Variant::Linear, RegretParams::linear()),
        (
            Variant::Discounted {
                alpha: 1.5,
                beta: 0.0,
                gamma: 2.0,
            },
            RegretParams::discounted_default(),
        ),
        (
            Variant::Discounted {
                alpha: 3.0,
                beta: 0.5,
                gamma: 1.0,
            },
            RegretParams::discounted(3.0, 0.5, 1.0),
        ),
        (Variant::PredictivePlus, RegretParams::predictive_plus()),
        (
            Variant::DcfrPlus {
                alpha: 1.5,
                offset: 1.5,
                gamma: 4.0,
            },
            RegretParams::dcfr_plus(),
        ),
        (
            Variant::DcfrPlus {
                alpha: 1.5,
                offset: 1.0,
                gamma: 4.0,
            },
            RegretParams {
                discount_offset: 1.0,
                ..RegretParams::dcfr_plus()
            },
        ),
        (
            Variant::PdcfrPlus {
                alpha: 2.3,
                gamma: 5.0,
            },
            RegretParams::pdcfr_plus(),
        ),
        (
            Variant::HsDcfr {
                gamma0: 30.0,
                horizon: 40.0,
            },
            RegretParams::hs_dcfr(30.0, 40),
        ),
        (
            Variant::HsPcfrPlus {
                gamma0: 30.0,
                horizon: 40.0,
            },
            RegretParams::hs_pcfr_plus(30.0, 40),
        ),
    ]
}

#[test]
fn every_variant_plays_like_the_textbook_recursion_on_kuhn() {
    let game = kuhn_poker().unwrap();
    for (variant, params) in all_variants() {
        compare(&game, variant, params, 40);
    }
}

#[test]
fn every_variant_plays_like_the_textbook_recursion_on_leduc() {
    let game = leduc_poker().unwrap();
    for (variant, params) in all_variants() {
        compare(&game, variant, params, 8);
    }
}
