//! The flat, segmented, parallel CFR solver against a textbook recursive implementation that
//! follows the papers' formulas literally: linear CFR weights iteration t's regrets by t (no
//! discounting), DCFR discounts the cumulative strategy by (t/(t+1))^gamma each iteration (not
//! t^gamma weights), CFR+ floors after adding. The two must play the same strategies.

// Index loops mirror the papers' formulas.
#![allow(clippy::needless_range_loop)]

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::game::{Game, NodeKind};
use bluff::games::{kuhn::kuhn_poker, leduc::leduc_poker};

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
    /// SAPCFR+ (arXiv 2503.12770, as a public C++ implementation reads it): PCFR+ whose
    /// strategy is regret matching on `R_t + r_t / 3`.
    SapcfrPlus,
    /// HS-PDCFR+ (arXiv 2404.09097v2): `R_t = max(R_{t-1} d(t-1) + r_t, 0)` with alpha 2.3,
    /// strategy from `max(R_t d(t) + r_t, 0)`, average discounted by `((t-1)/t)^gamma` with
    /// gamma = gamma0 - 5 (t - 1) / horizon.
    HsPdcfrPlus {
        gamma0: f64,
        horizon: f64,
    },
    /// VAD-CFR, Listing 5 of arXiv 2602.16928 with its constants, one moving average per
    /// information set; averaging starts after `warmup` iterations (500 in the paper).
    Vad {
        warmup: f64,
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
    /// What regret matching reads (the prediction of PDCFR+, VAD-CFR's scaled projection).
    pred: [Vec<f64>; 2],
    /// VAD-CFR's moving average of regret magnitudes, per information set.
    ewma: [Vec<f64>; 2],
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
            ewma: [
                vec![0.0; game.infosets[0].len()],
                vec![0.0; game.infosets[1].len()],
            ],
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
        let sap = matches!(self.variant, Variant::SapcfrPlus);
        let pdcfr = matches!(
            self.variant,
            Variant::PdcfrPlus { .. } | Variant::HsPdcfrPlus { .. } | Variant::Vad { .. }
        );
        for set in &self.game.infosets[p] {
            let r = set.action_range();
            let pos: Vec<f64> = r
                .clone()
                .map(|a| {
                    if pdcfr {
                        return self.pred[p][a].max(0.0);
                    }
                    if sap {
                        return (self.regret[p][a] + self.last[p][a] / 3.0).max(0.0);
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
        if let Variant::Vad { warmup } = self.variant {
            return self.learn_vad(p, inst, strat, warmup);
        }
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
                Variant::SapcfrPlus => {
                    self.regret[p][a] = (self.regret[p][a] + inst[a]).max(0.0);
                    self.last[p][a] = inst[a];
                    self.avg[p][a] += t * t * strat[a];
                }
                Variant::HsPdcfrPlus { gamma0, horizon } => {
                    let gamma = gamma0 - 5.0 * (t - 1.0) / horizon;
                    let r = (self.regret[p][a] * d(t - 1.0, 2.3) + inst[a]).max(0.0);
                    self.regret[p][a] = r;
                    self.pred[p][a] = (r * d(t, 2.3) + inst[a]).max(0.0);
                    self.avg[p][a] = self.avg[p][a] * ((t - 1.0) / t).powf(gamma) + strat[a];
                }
                Variant::Vad { .. } => unreachable!("learn_vad"),
            }
        }
    }

    /// VAD-CFR's three components (Listing 5: `RegretAccumulator`,
    /// `PolicyFromRegretAccumulator`, `PolicyAccumulator`) at every information set of `p`,
    /// with the listing's 0-based `iteration_number` = `t - 1`.
    fn learn_vad(&mut self, p: usize, inst: &[f64], strat: &[f64], warmup: f64) {
        let iteration_number = (self.t - 1) as f64;
        for (s, set) in self.game.infosets[p].iter().enumerate() {
            let acts = set.action_range();
            let magnitude = acts.clone().map(|a| inst[a].abs()).fold(0.0, f64::max);
            // _calculate_adaptive_params
            let t_plus_one = iteration_number + 1.0;
            let ewma = if iteration_number == 0.0 {
                magnitude
            } else {
                0.1 * magnitude + 0.9 * self.ewma[p][s]
            };
            self.ewma[p][s] = ewma;
            let volatility = (ewma / 2.0).min(1.0);
            let alpha = (1.5 - 0.5 * volatility).max(0.1);
            let beta = (-0.1 - 0.5 * volatility).min(alpha);
            let positive = t_plus_one.powf(alpha) / (t_plus_one.powf(alpha) + 1.0);
            let negative = t_plus_one.powf(beta) / (t_plus_one.powf(beta) + 1.0);
            let boosted = |r: f64| if r > 0.0 { r * 1.1 } else { r };
            // PolicyAccumulator (the strategy this iteration played, before the update)
            if iteration_number >= warmup {
                let v = (magnitude / 2.0).min(1.0);
                let gamma = (2.0 + 1.5 * v).min(4.0);
                let temporal = (iteration_number + 1.0).powf(gamma);
                let stability = 1.0 / (1.0 + magnitude.powf(1.5));
                let factor = ((1.0 + magnitude / 2.0).powf(0.5)).max(0.1);
                for a in acts.clone() {
                    self.avg[p][a] += temporal * stability * factor * strat[a];
                }
            }
            // RegretAccumulator
            for a in acts.clone() {
                let old = self.regret[p][a];
                let discounted = if old >= 0.0 {
                    positive * old
                } else {
                    negative * old
                };
                self.regret[p][a] = (discounted + boosted(inst[a])).max(-20.0);
            }
            // PolicyFromRegretAccumulator, on the regrets just updated
            let optimism = 1.0 / (1.0 + iteration_number / 100.0);
            let strength = optimism * (1.0 - 0.5 * volatility).max(0.0);
            for a in acts {
                let r = self.regret[p][a];
                let discounted = if r >= 0.0 { positive * r } else { negative * r };
                let projected = discounted + strength * boosted(inst[a]);
                self.pred[p][a] = projected.max(0.0).powf(1.5);
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
        (Variant::SapcfrPlus, RegretParams::sapcfr_plus()),
        (
            Variant::HsDcfr {
                gamma0: 15.0,
                horizon: 40.0,
            },
            RegretParams::hs_dcfr_revised(15.0, 40),
        ),
        (
            Variant::HsPcfrPlus {
                gamma0: 15.0,
                horizon: 40.0,
            },
            RegretParams::hs_pcfr_plus_revised(15.0, 40),
        ),
        (
            Variant::HsPdcfrPlus {
                gamma0: 30.0,
                horizon: 40.0,
            },
            RegretParams::hs_pdcfr_plus(30.0, 40),
        ),
        (
            Variant::HsPdcfrPlus {
                gamma0: 15.0,
                horizon: 40.0,
            },
            RegretParams::hs_pdcfr_plus(15.0, 40),
        ),
        (Variant::Vad { warmup: 500.0 }, RegretParams::vad_cfr()),
        (Variant::Vad { warmup: 3.0 }, vad_warmup(3.0)),
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

/// VAD-CFR with its averaging delay shortened, so that short runs average.
fn vad_warmup(warmup: f64) -> RegretParams {
    let mut params = RegretParams::vad_cfr();
    if let Some(v) = params.volatility.as_mut() {
        v.warmup = warmup;
    }
    params
}

/// VAD-CFR through its averaging start at iteration 501, with the paper's constants.
#[test]
fn vad_cfr_plays_like_its_listing_past_the_warm_start_on_kuhn() {
    let game = kuhn_poker().unwrap();
    compare(
        &game,
        Variant::Vad { warmup: 500.0 },
        RegretParams::vad_cfr(),
        560,
    );
}

/// The revised HS-PCFR+ discounts nothing, so the papers' order gives the first reading's bits.
#[test]
fn revised_hs_pcfr_plus_has_the_bits_of_the_first_reading() {
    let game = leduc_poker().unwrap();
    let mut first = CfrSolver::new(&game, RegretParams::hs_pcfr_plus(30.0, 30));
    let mut revised = CfrSolver::new(&game, RegretParams::hs_pcfr_plus_revised(30.0, 30));
    first.iterate(30);
    revised.iterate(30);
    assert_eq!(first.state(), revised.state());
}
