//! The counterfactual-regret-minimisation family on the flat game tree: vanilla CFR
//! (simultaneous or alternating updates), CFR+, linear CFR, discounted CFR, predictive CFR+,
//! DCFR+, PDCFR+ and SAPCFR+, the hyperparameter schedules HS-DCFR, HS-PCFR+ and HS-PDCFR+
//! (first and revised readings), and VAD-CFR, all driven by one [`RegretParams`]
//! (`docs/cfr-variants.md` gives each rule with its source).
//!
//! The game is compiled once into flat arrays ([`tree`]): one forward pass computes
//! counterfactual reach probabilities, one backward pass expected values, and one pass over
//! the information sets turns them into regrets, average-strategy sums and the next strategy.
//! With threads, the tree is cut once into groups of whole subtrees that each thread passes
//! without a barrier per level, and the information sets into fixed chunks; every value is
//! still the same floating-point operations in the same order, so results are bit-identical
//! for every thread count.

pub mod checkpoint;
mod pacer;
mod sequence;
mod shard;
mod team;
pub(crate) mod tree;

use crate::error::{fail, Result};
use crate::game::Game;
use crate::strategy::Profile;
use pacer::Pacer;
pub use pacer::Pacing;
pub use shard::{rules_result, CfrShard, RulesResult};
use std::ops::Range;
use std::time::Instant;
use team::Team;
use tree::{Factors, Pass, Sets, Tree};

/// A linear schedule of the discount exponents over a fixed horizon (Zhang, McAleer and
/// Sandholm, "Faster Game Solving via Hyperparameter Schedules"): at iteration `t`, with
/// progress `p = t / horizon`, the exponents are `alpha + alpha_slope * p`,
/// `beta + beta_slope * p` and `gamma + gamma_slope * p`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Iterations over which the exponents move (the run's planned length).
    pub horizon: u64,
    /// Change of `alpha` over the horizon.
    pub alpha_slope: f64,
    /// Change of `beta` over the horizon.
    pub beta_slope: f64,
    /// Change of `gamma` over the horizon.
    pub gamma_slope: f64,
}

/// How regrets and the average strategy are accumulated; every CFR variant is one setting.
///
/// At iteration `t` (1-based), for the updating player, with instantaneous counterfactual
/// regrets `r_t`:
/// 1. `R <- R + r_t`, then `R <- R * t^a / (t^a + c)` with `a = alpha` where `R > 0` and
///    `a = beta` elsewhere (an infinite exponent means no discount; `c` is
///    `discount_offset`), then, with `floor`, `R <- max(R, 0)`;
/// 2. `S <- S * ((t - 1) / t)^gamma + pi_own * sigma_t` (the average strategy is `S`
///    normalised per information set: iteration `t` weighs `t^gamma`);
/// 3. `sigma_{t+1}` = regret matching on `R` (plus `r_t` when `predictive`), uniform where no
///    entry is positive.
///
/// With a [`Schedule`], the exponents of step 1 are taken at progress `t / horizon` and the
/// `gamma` of step 2 at `(t - 1) / horizon`. Discounting after adding is the same sequence as
/// the papers' "discount the previous sum, then add" (`R_t = R_{t-1} d(t-1) + r_t`), up to a
/// positive factor per sign that regret matching ignores (in exact arithmetic: the rounding
/// differs, and on Leduc that alone moves the 1000-iteration exploitability by some 10%).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegretParams {
    /// Update player 0, then player 1 against player 0's new strategy (instead of both at once).
    pub alternating: bool,
    /// Discount exponent for positive cumulative regrets (`f64::INFINITY` = none).
    pub alpha: f64,
    /// Discount exponent for negative cumulative regrets (`f64::INFINITY` = none).
    pub beta: f64,
    /// The constant `c` of the regret discount `t^a / (t^a + c)`: 1 in DCFR and PDCFR+, 1.5
    /// in DCFR+ as its authors run it.
    pub discount_offset: f64,
    /// Clamp cumulative regrets at 0 after each iteration (regret matching+).
    pub floor: bool,
    /// Average-strategy weight exponent: iteration `t` counts `t^gamma`.
    pub gamma: f64,
    /// Play regret matching on cumulative regret plus the last instantaneous regret
    /// (the prediction of predictive CFR+).
    pub predictive: bool,
    /// Exponents that move with the iteration count (`None` = constant).
    pub schedule: Option<Schedule>,
    /// Discount the old cumulative regret by its own sign, then add the new one, as the papers
    /// write it (`R_t = R_{t-1} d_{t-1}(sign R_{t-1}) + r_t`; a PDCFR+-style prediction is then
    /// `R_t d_t(sign R_t) + r_t`), instead of step 1's add-then-discount (same sequence in exact
    /// arithmetic, other rounding).
    pub discount_first: bool,
    /// Weight of the last instantaneous regret in the prediction: 1 in PCFR+, 1/3 in SAPCFR+.
    pub prediction_weight: f64,
    /// VAD-CFR's volatility-adaptive rules, which replace steps 1-3 (`None` = the steps above).
    pub volatility: Option<Volatility>,
}

/// The constants of VAD-CFR (Li, Schultz, Hennes & Lanctot 2026, arXiv 2602.16928, Listing 5),
/// named as there. At iteration `t` (1-based) and an information set with instantaneous
/// regrets `r` (`m = max |r_a|`):
/// - volatility: `e <- m` at `t = 1`, else `e <- ewma_decay m + (1 - ewma_decay) e` (one `e` per
///   information set); `v = min(1, e / max_regret)`;
/// - regrets: `alpha = max(0.1, base_alpha - sensitivity v)`, `beta = min(alpha, base_beta -
///   sensitivity v)`, `d(x) = t^x / (t^x + 1)`; `R <- max(regret_cap, R d(alpha or beta, by the
///   sign of R, >= 0 taking alpha) + b)` with `b = boost r` where `r > 0`, else `r`;
/// - policy: optimism `o = optimism / (1 + (t - 1) / optimism_decay) * max(0, 1 - sensitivity v)`;
///   `sigma ~ max(0, R d(sign R) + o b)^policy_exponent` with the new `R`, uniform if none;
/// - average: nothing while `t <= warmup`; then `S <- S + w pi_own sigma_t` with `w = t^g /
///   (1 + m^stability_exponent) * max(0.1, (1 + m / max_regret)^magnitude_exponent)`, `g =
///   min(gamma_max, gamma_base + gamma_sensitivity min(1, m / max_regret))`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Volatility {
    /// Positive-regret discount exponent at zero volatility (1.5).
    pub base_alpha: f64,
    /// Negative-regret discount exponent at zero volatility (-0.1).
    pub base_beta: f64,
    /// How much volatility lowers the exponents and damps the optimism (0.5).
    pub sensitivity: f64,
    /// Regret magnitude that counts as full volatility (2).
    pub max_regret: f64,
    /// Factor on positive instantaneous regrets (1.1).
    pub boost: f64,
    /// Weight of the newest magnitude in the moving average (0.1).
    pub ewma_decay: f64,
    /// Floor of cumulative regrets (-20).
    pub regret_cap: f64,
    /// Optimism at the first iteration (1).
    pub optimism: f64,
    /// Iterations over which the optimism halves (100).
    pub optimism_decay: f64,
    /// Exponent of regret matching on the projected regrets (1.5).
    pub policy_exponent: f64,
    /// Iterations before the average starts (500: iterations 501 on are averaged).
    pub warmup: f64,
    /// Average weight exponent at zero magnitude (2).
    pub gamma_base: f64,
    /// Largest average weight exponent (4).
    pub gamma_max: f64,
    /// How much the magnitude raises the average weight exponent (1.5).
    pub gamma_sensitivity: f64,
    /// Exponent of the magnitude in the stability factor (1.5).
    pub stability_exponent: f64,
    /// Exponent of the regret-magnitude factor (0.5).
    pub magnitude_exponent: f64,
}

impl Volatility {
    /// The constants of the paper's Listing 5.
    pub fn paper() -> Self {
        Volatility {
            base_alpha: 1.5,
            base_beta: -0.1,
            sensitivity: 0.5,
            max_regret: 2.0,
            boost: 1.1,
            ewma_decay: 0.1,
            regret_cap: -20.0,
            optimism: 1.0,
            optimism_decay: 100.0,
            policy_exponent: 1.5,
            warmup: 500.0,
            gamma_base: 2.0,
            gamma_max: 4.0,
            gamma_sensitivity: 1.5,
            stability_exponent: 1.5,
            magnitude_exponent: 0.5,
        }
    }

    /// The constants in a fixed order (checkpoints store them so).
    pub fn to_array(&self) -> [f64; 16] {
        [
            self.base_alpha,
            self.base_beta,
            self.sensitivity,
            self.max_regret,
            self.boost,
            self.ewma_decay,
            self.regret_cap,
            self.optimism,
            self.optimism_decay,
            self.policy_exponent,
            self.warmup,
            self.gamma_base,
            self.gamma_max,
            self.gamma_sensitivity,
            self.stability_exponent,
            self.magnitude_exponent,
        ]
    }

    /// The inverse of [`Volatility::to_array`].
    pub fn from_array(a: [f64; 16]) -> Self {
        Volatility {
            base_alpha: a[0],
            base_beta: a[1],
            sensitivity: a[2],
            max_regret: a[3],
            boost: a[4],
            ewma_decay: a[5],
            regret_cap: a[6],
            optimism: a[7],
            optimism_decay: a[8],
            policy_exponent: a[9],
            warmup: a[10],
            gamma_base: a[11],
            gamma_max: a[12],
            gamma_sensitivity: a[13],
            stability_exponent: a[14],
            magnitude_exponent: a[15],
        }
    }
}

impl RegretParams {
    /// Vanilla CFR as in the one-card-poker write-up: simultaneous updates, strategies frozen
    /// for the iteration, opponent-reach-weighted regrets, own-reach-weighted uniform average,
    /// uniform where no regret is positive.
    pub fn vanilla() -> Self {
        RegretParams {
            alternating: false,
            alpha: f64::INFINITY,
            beta: f64::INFINITY,
            discount_offset: 1.0,
            floor: false,
            gamma: 0.0,
            predictive: false,
            schedule: None,
            discount_first: false,
            prediction_weight: 1.0,
            volatility: None,
        }
    }

    /// Vanilla CFR with alternating updates (what OpenSpiel's `CFRSolver` does).
    pub fn vanilla_alternating() -> Self {
        RegretParams {
            alternating: true,
            ..Self::vanilla()
        }
    }

    /// CFR+ (Tammelin 2014): alternating updates, regrets floored at 0, linearly weighted
    /// average (as OpenSpiel's `CFRPlusSolver`, which applies no averaging delay).
    pub fn cfr_plus() -> Self {
        RegretParams {
            alternating: true,
            floor: true,
            gamma: 1.0,
            ..Self::vanilla()
        }
    }

    /// Linear CFR (Brown & Sandholm 2019): iteration `t`'s regrets and strategy weighted by `t`,
    /// which is discounted CFR with alpha = beta = gamma = 1. Alternating updates.
    pub fn linear() -> Self {
        Self::discounted(1.0, 1.0, 1.0)
    }

    /// Discounted CFR (Brown & Sandholm 2019) with the given exponents; alternating updates.
    pub fn discounted(alpha: f64, beta: f64, gamma: f64) -> Self {
        RegretParams {
            alternating: true,
            alpha,
            beta,
            discount_offset: 1.0,
            floor: false,
            gamma,
            predictive: false,
            schedule: None,
            discount_first: false,
            prediction_weight: 1.0,
            volatility: None,
        }
    }

    /// Discounted CFR with the paper's recommended alpha = 1.5, beta = 0, gamma = 2.
    pub fn discounted_default() -> Self {
        Self::discounted(1.5, 0.0, 2.0)
    }

    /// Predictive CFR+ (Farina, Kroer & Sandholm 2021): CFR+ regrets, strategies from regret
    /// matching+ on cumulative plus last instantaneous regret, quadratic averaging.
    pub fn predictive_plus() -> Self {
        RegretParams {
            alternating: true,
            floor: true,
            gamma: 2.0,
            predictive: true,
            ..Self::vanilla()
        }
    }

    /// DCFR+ (Xu et al., IJCAI 2024) as its authors run it: `R_t = max(R_{t-1} (t-1)^alpha /
    /// ((t-1)^alpha + 1.5) + r_t, 0)`, average discounted by `((t-1)/t)^gamma`, alpha = 1.5,
    /// gamma = 4 (github.com/rpSebastian/PDCFRPlus, `pdcfrplus/cfr/dcfr_plus.py` and
    /// `third_party/PokerRL/PokerRL/cfr/DCFRPlus.py` both add 1.5, not 1, in the denominator).
    pub fn dcfr_plus() -> Self {
        RegretParams {
            alternating: true,
            alpha: 1.5,
            discount_offset: 1.5,
            floor: true,
            gamma: 4.0,
            ..Self::vanilla()
        }
    }

    /// PDCFR+ (Xu et al., IJCAI 2024): DCFR+ regrets with the prediction of PCFR+
    /// (`sigma_{t+1}` from `max(R_t t^alpha / (t^alpha + 1) + r_t, 0)`); alpha = 2.3, gamma = 5.
    pub fn pdcfr_plus() -> Self {
        RegretParams {
            alternating: true,
            alpha: 2.3,
            floor: true,
            gamma: 5.0,
            predictive: true,
            ..Self::vanilla()
        }
    }

    /// HS-DCFR(`gamma0`) over `horizon` iterations (Zhang, McAleer & Sandholm): DCFR with
    /// `alpha` from 1 to 4, `beta` from -1 to -3 and `gamma` from `gamma0` to `gamma0 - 5`.
    pub fn hs_dcfr(gamma0: f64, horizon: u64) -> Self {
        RegretParams {
            schedule: Some(Schedule {
                horizon,
                alpha_slope: 3.0,
                beta_slope: -2.0,
                gamma_slope: -5.0,
            }),
            ..Self::discounted(1.0, -1.0, gamma0)
        }
    }

    /// HS-PCFR+(`gamma0`) over `horizon` iterations: PCFR+ with `gamma` from `gamma0` to
    /// `gamma0 - 5` (the paper's HS-PCFR+(30) has `gamma0 = 30`).
    pub fn hs_pcfr_plus(gamma0: f64, horizon: u64) -> Self {
        RegretParams {
            gamma: gamma0,
            schedule: Some(Schedule {
                horizon,
                alpha_slope: 0.0,
                beta_slope: 0.0,
                gamma_slope: -5.0,
            }),
            ..Self::predictive_plus()
        }
    }

    /// SAPCFR+ (Meng et al., arXiv 2503.12770): PCFR+ whose prediction is damped by
    /// `1 / (1 + 2)`: `sigma_{t+1} ~ max(R_t + r_t / 3, 0)` (as a public C++ implementation reads
    /// the paper, which could not be read here); gamma 2, alternating updates.
    pub fn sapcfr_plus() -> Self {
        RegretParams {
            prediction_weight: 1.0 / 3.0,
            ..Self::predictive_plus()
        }
    }

    /// HS-DCFR(`gamma0`) as revised (arXiv 2404.09097v2): the schedule of [`Self::hs_dcfr`],
    /// regrets discounted by their old sign before the new regret is added.
    pub fn hs_dcfr_revised(gamma0: f64, horizon: u64) -> Self {
        RegretParams {
            discount_first: true,
            ..Self::hs_dcfr(gamma0, horizon)
        }
    }

    /// HS-PCFR+(`gamma0`) as revised: PCFR+ with gamma from `gamma0` to `gamma0 - 5`, in the
    /// papers' order (PCFR+ discounts nothing, so these are [`Self::hs_pcfr_plus`]'s bits).
    pub fn hs_pcfr_plus_revised(gamma0: f64, horizon: u64) -> Self {
        RegretParams {
            discount_first: true,
            ..Self::hs_pcfr_plus(gamma0, horizon)
        }
    }

    /// HS-PDCFR+(`gamma0`) (arXiv 2404.09097v2): PDCFR+ (alpha 2.3) with gamma from `gamma0` to
    /// `gamma0 - 5` over `horizon`, regrets discounted before adding.
    pub fn hs_pdcfr_plus(gamma0: f64, horizon: u64) -> Self {
        RegretParams {
            gamma: gamma0,
            discount_first: true,
            schedule: Some(Schedule {
                horizon,
                alpha_slope: 0.0,
                beta_slope: 0.0,
                gamma_slope: -5.0,
            }),
            ..Self::pdcfr_plus()
        }
    }

    /// VAD-CFR (arXiv 2602.16928, Listing 5) with the paper's constants: alternating updates,
    /// volatility-adaptive discounting, boosted positive regrets, optimistic policy, averaging
    /// from iteration 501 (see [`Volatility`]).
    pub fn vad_cfr() -> Self {
        RegretParams {
            alternating: true,
            volatility: Some(Volatility::paper()),
            ..Self::vanilla()
        }
    }

    /// `s^e / (s^e + c)` for the papers' discount-first order: 0 at `s = 0` (nothing is
    /// accumulated yet; `0^e` is infinite for a negative `e`), 1 for an infinite exponent.
    fn discount_at(exponent: f64, s: f64, c: f64) -> f64 {
        if exponent.is_infinite() {
            1.0
        } else if s == 0.0 {
            0.0
        } else {
            let x = s.powf(exponent);
            x / (x + c)
        }
    }

    /// The first iteration whose strategy enters the average (1, but after VAD-CFR's warm-up):
    /// before it the average strategy is not defined and reads as uniform.
    pub fn first_averaged_iteration(&self) -> u64 {
        self.volatility
            .map_or(1, |v| v.warmup.max(0.0).floor() as u64 + 1)
    }

    /// `t^e / (t^e + c)`, 1 for an infinite exponent.
    pub(crate) fn discount(exponent: f64, t: f64, c: f64) -> f64 {
        if exponent.is_infinite() {
            1.0
        } else {
            let x = t.powf(exponent);
            x / (x + c)
        }
    }

    /// The exponents `(alpha, beta, gamma)` at progress `t / horizon`.
    fn exponents_at(&self, t: f64) -> (f64, f64, f64) {
        match self.schedule {
            None => (self.alpha, self.beta, self.gamma),
            Some(s) => {
                let p = t / s.horizon.max(1) as f64;
                (
                    self.alpha + s.alpha_slope * p,
                    self.beta + s.beta_slope * p,
                    self.gamma + s.gamma_slope * p,
                )
            }
        }
    }

    /// The update factors of iteration `t` for player `p`.
    pub(crate) fn factors(&self, t: u64, p: usize) -> Factors {
        let tf = t as f64;
        let (alpha, beta, _) = self.exponents_at(tf);
        let (_, _, gamma) = self.exponents_at(tf - 1.0);
        let average = if gamma == 0.0 {
            1.0
        } else {
            ((tf - 1.0) / tf).powf(gamma)
        };
        let c = self.discount_offset;
        let (positive, negative) = if self.discount_first {
            // `R_t = R_{t-1} d_{t-1} + r_t`, with the exponents of `t - 1`.
            let (a, b, _) = self.exponents_at(tf - 1.0);
            (
                Self::discount_at(a, tf - 1.0, c),
                Self::discount_at(b, tf - 1.0, c),
            )
        } else {
            (Self::discount(alpha, tf, c), Self::discount(beta, tf, c))
        };
        Factors {
            positive,
            negative,
            floor: self.floor,
            average,
            predictive: self.predictive,
            sign: if p == 0 { 1.0 } else { -1.0 },
            reach2: false,
            discount_first: self.discount_first,
            predict_positive: Self::discount(alpha, tf, c),
            predict_negative: Self::discount(beta, tf, c),
            prediction_weight: self.prediction_weight,
            volatility: self.volatility,
            t: tf,
        }
    }
}

/// Everything a [`CfrSolver`] accumulates, for checkpoints: restoring it continues the run
/// bit for bit. Arrays are named so a checkpoint can say what it holds; each is in the
/// player's flat action order of the game.
#[derive(Clone, Debug, PartialEq)]
pub struct SolverState {
    /// Iterations done.
    pub iterations: u64,
    /// The solver's arrays by name (`regret0`, `regret1`, ...), in a fixed order.
    pub arrays: Vec<(String, Vec<f64>)>,
}

/// Names of the state arrays, per player: cumulative regret, last instantaneous regret
/// (zeros unless predictive), strategy sum, current strategy.
const STATE_ARRAYS: [&str; 4] = ["regret", "last_regret", "strategy_sum", "current"];

/// Which kernel runs a solver's iterations. Both run every variant of [`RegretParams`] with
/// the same rules; each gives the same bits for every thread count, and the two agree to
/// rounding (the sums run in another order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Kernel {
    /// Passes over the flat game tree (`cfr/tree.rs`): every node, every iteration.
    #[default]
    Tree,
    /// Sparse products with the sequence-form payoff matrix (`cfr/sequence.rs`): every
    /// terminal once, no internal or chance node.
    Sequence,
}

/// The last-level cache the kernel choice assumes (a constant, never measured: the choice
/// must not depend on the machine).
pub const ASSUMED_CACHE_BYTES: usize = 8 << 20;

impl Kernel {
    /// Both kernels, by name.
    pub const ALL: [Kernel; 2] = [Kernel::Tree, Kernel::Sequence];

    /// The name users type (`tree`, `sequence`).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Tree => "tree",
            Kernel::Sequence => "sequence",
        }
    }

    /// The kernel named `name`, if any.
    pub fn from_name(name: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The kernel for `game` by its shape alone (never by timing): the sequence form where the
    /// tree kernel's per-node arrays (about 40 bytes a node) exceed [`ASSUMED_CACHE_BYTES`]
    /// and the game has at most 0.6 terminals per node (the products then stream fewer bytes
    /// than the tree passes), else the tree.
    pub fn for_game(game: &Game) -> Kernel {
        if !game.is_constant_sum() {
            // The sequence kernel's one payoff matrix is player 1's.
            return Kernel::Tree;
        }
        let nodes = game.nodes.len();
        let terminals = game.num_terminal_nodes();
        if nodes.saturating_mul(40) > ASSUMED_CACHE_BYTES && terminals * 5 <= nodes * 3 {
            Kernel::Sequence
        } else {
            Kernel::Tree
        }
    }
}

/// The compiled game as the solver's kernel holds it.
enum Engine {
    /// The tree and both players' sets.
    Tree(Box<(Tree, [Sets; 2])>),
    /// The sequence form.
    Sequence(Box<sequence::Kernel>),
}

/// A CFR-family solver over one game.
pub struct CfrSolver {
    params: RegretParams,
    engine: Engine,
    regret: [Vec<f64>; 2],
    last_regret: [Vec<f64>; 2],
    strategy_sum: [Vec<f64>; 2],
    iterations: u64,
    /// The threads of the parallel passes (none: serial).
    team: Option<Team>,
    /// Whether the team or the calling thread alone runs the next iteration.
    pacer: Pacer,
    /// With alternating updates, the player who learns first in each iteration.
    first_learner: usize,
    /// Locked sets: they play their lock and learn no regret (`None`: nothing locked).
    pins: Option<Pins>,
}

/// A run's locked sets as flat action ranges of each player with their probabilities: the
/// one place where a lock enters the CFR kernels. After each player's update, [`Pins::pin`]
/// sets a locked set's next strategy to its lock and its regrets to 0, so both kernels (and
/// every variant's update) run their own maths unchanged on the other sets.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pins {
    sets: [Vec<(usize, Vec<f64>)>; 2],
}

impl Pins {
    /// The pins of `lock` on `game`.
    pub fn new(game: &Game, lock: &crate::lock::Lock) -> Pins {
        let sets = [0, 1].map(|p| {
            lock.sets[p]
                .iter()
                .map(|s| {
                    let start = game.infosets[p][s.infoset].action_offset;
                    let probs = s.probs.iter().map(crate::scalar::rational_to_f64).collect();
                    (start, probs)
                })
                .collect()
        });
        Pins { sets }
    }

    /// Player `p`'s locked sets play their lock in `sigma`; their `regret` and `last` (if
    /// kept) are 0.
    pub(crate) fn pin(&self, p: usize, regret: &mut [f64], last: &mut [f64], sigma: &mut [f64]) {
        for (start, probs) in &self.sets[p] {
            let range = *start..start + probs.len();
            sigma[range.clone()].copy_from_slice(probs);
            regret[range.clone()].fill(0.0);
            if !last.is_empty() {
                last[range].fill(0.0);
            }
        }
    }

    /// `profile` with every locked set playing its lock.
    fn apply(&self, profile: &mut Profile<f64>) {
        for p in 0..2 {
            for (start, probs) in &self.sets[p] {
                profile.probs[p][*start..start + probs.len()].copy_from_slice(probs);
            }
        }
    }
}

impl CfrSolver {
    /// Compiles `game` for the solver with the tree kernel; runs single-threaded until
    /// [`CfrSolver::with_threads`].
    pub fn new(game: &Game, params: RegretParams) -> Self {
        let (tree, sets) = tree::compile(game, !params.alternating);
        Self::with_engine(game, params, Engine::Tree(Box::new((tree, sets))))
    }

    /// Compiles `game` for the solver with `kernel`. A general-sum game runs on the tree
    /// kernel only (each player learns from their own payoffs; no equilibrium is guaranteed);
    /// fails where the sequence form does not fit its 32-bit indices.
    pub fn with_kernel(game: &Game, params: RegretParams, kernel: Kernel) -> Result<Self> {
        Ok(match kernel {
            Kernel::Tree => Self::new(game, params),
            Kernel::Sequence => {
                game.require_constant_sum("the sequence kernel (--kernel sequence)")?;
                let k = sequence::build(game)?;
                Self::with_engine(game, params, Engine::Sequence(Box::new(k)))
            }
        })
    }

    /// The kernel this solver runs.
    pub fn kernel(&self) -> Kernel {
        match self.engine {
            Engine::Tree(_) => Kernel::Tree,
            Engine::Sequence(_) => Kernel::Sequence,
        }
    }

    fn with_engine(game: &Game, params: RegretParams, engine: Engine) -> Self {
        Self::with_actions(game.num_actions, params, engine)
    }

    /// A solver on a tree compiled without a [`Game`] (a shard's part, `tree::partial`),
    /// whose sets hold every information set of the game.
    fn from_tree(tree: Tree, sets: [Sets; 2], params: RegretParams) -> Self {
        let num_actions = sets
            .each_ref()
            .map(|s| *s.action_start.last().expect("sentinel") as usize);
        Self::with_actions(num_actions, params, Engine::Tree(Box::new((tree, sets))))
    }

    fn with_actions(num_actions: [usize; 2], params: RegretParams, engine: Engine) -> Self {
        let zeros = |p: usize| vec![0.0; num_actions[p]];
        let mut solver = CfrSolver {
            params,
            engine,
            regret: [zeros(0), zeros(1)],
            last_regret: if params.predictive || params.volatility.is_some() {
                [zeros(0), zeros(1)]
            } else {
                [Vec::new(), Vec::new()]
            },
            strategy_sum: [zeros(0), zeros(1)],
            iterations: 0,
            team: None,
            pacer: Pacer::new(Pacing::Measured),
            first_learner: 0,
            pins: None,
        };
        for p in 0..2 {
            solver.refresh_strategy(p);
        }
        solver
    }

    /// A solver for `game` with `params` that continues from `state` (single-threaded until
    /// [`CfrSolver::with_threads`]). Fails when the arrays do not fit the game.
    pub fn restore(game: &Game, params: RegretParams, state: &SolverState) -> Result<Self> {
        Self::restore_with(game, params, state, Kernel::Tree)
    }

    /// [`CfrSolver::restore`] with `kernel` (the state's arrays are the same for both).
    pub fn restore_with(
        game: &Game,
        params: RegretParams,
        state: &SolverState,
        kernel: Kernel,
    ) -> Result<Self> {
        let mut solver = CfrSolver::with_kernel(game, params, kernel)?;
        solver.load(state, |p, a| {
            let set = &game.infosets[p][game.action_infoset[p][a] as usize];
            crate::format::text::quoted(&set.label)
        })?;
        Ok(solver)
    }

    /// Continues from `state` (checked against this solver's sets; `name(player, first
    /// action)` names a set in messages).
    fn load(&mut self, state: &SolverState, name: impl Fn(usize, usize) -> String) -> Result<()> {
        let num_actions = [0, 1].map(|p| self.regret[p].len());
        let mut expected = Vec::new();
        for name in STATE_ARRAYS {
            for p in 0..2 {
                expected.push((format!("{name}{p}"), num_actions[p]));
            }
        }
        if state.arrays.len() != expected.len() {
            fail!(
                Invalid,
                "solver state has {} arrays, expected {}",
                state.arrays.len(),
                expected.len()
            );
        }
        for ((name, values), (want, len)) in state.arrays.iter().zip(&expected) {
            if name != want || values.len() != *len {
                fail!(
                    Invalid,
                    "solver state array {name:?} has {} values; expected {want:?} with {len}",
                    values.len()
                );
            }
            if let Some(x) = values.iter().find(|x| !x.is_finite()) {
                fail!(
                    Invalid,
                    "solver state array {name:?} holds a non-finite value {x}"
                );
            }
            if name.starts_with("strategy_sum") || name.starts_with("current") {
                if let Some(x) = values.iter().find(|x| **x < 0.0) {
                    fail!(
                        Invalid,
                        "solver state array {name:?} holds a negative value {x}"
                    );
                }
            }
        }
        // Each current strategy is a distribution: the next iteration plays it.
        for p in 0..2 {
            let current = &state.arrays[expected
                .iter()
                .position(|e| e.0 == format!("current{p}"))
                .expect("listed")]
            .1;
            for w in self.action_start(p).windows(2) {
                let (a0, a1) = (w[0] as usize, w[1] as usize);
                let sum: f64 = current[a0..a1].iter().sum();
                if (sum - 1.0).abs() > 1e-9 {
                    fail!(
                        Invalid,
                        "solver state: player {}'s current strategy at information set {} sums \
                         to {sum}, not 1",
                        p + 1,
                        name(p, a0)
                    );
                }
            }
        }
        let find = |name: &str| {
            &state.arrays[expected.iter().position(|e| e.0 == name).expect("listed")].1
        };
        for p in 0..2 {
            self.regret[p] = find(&format!("regret{p}")).clone();
            self.strategy_sum[p] = find(&format!("strategy_sum{p}")).clone();
            if self.keeps_last() {
                self.last_regret[p] = find(&format!("last_regret{p}")).clone();
            }
            let current = find(&format!("current{p}"));
            self.sigma_mut(p).copy_from_slice(current);
        }
        self.iterations = state.iterations;
        Ok(())
    }

    /// Whether `last_regret` holds state: the last instantaneous regrets of the predictive
    /// variants, VAD-CFR's moving average of regret magnitudes (each set's, at each of its
    /// actions).
    fn keeps_last(&self) -> bool {
        self.params.predictive || self.params.volatility.is_some()
    }

    /// The solver's whole state (see [`SolverState`]).
    pub fn state(&self) -> SolverState {
        let current = self.current_profile().probs;
        let mut arrays = Vec::new();
        for name in STATE_ARRAYS {
            for p in 0..2 {
                let v = match name {
                    "regret" => self.regret[p].clone(),
                    "last_regret" if self.keeps_last() => self.last_regret[p].clone(),
                    "last_regret" => vec![0.0; self.regret[p].len()],
                    "strategy_sum" => self.strategy_sum[p].clone(),
                    _ => current[p].clone(),
                };
                arrays.push((format!("{name}{p}"), v));
            }
        }
        SolverState {
            iterations: self.iterations,
            arrays,
        }
    }

    /// Locks the sets of `lock` (an empty lock: none): from now on they play their lock and
    /// learn no regret. Applied at once to the current strategy, so a run restored with the
    /// lock its checkpoint was saved with continues to the same bits.
    pub fn with_lock(mut self, game: &Game, lock: &crate::lock::Lock) -> Self {
        if lock.is_empty() {
            self.pins = None;
            return self;
        }
        self.pins = Some(Pins::new(game, lock));
        self.pin_players(0..2);
        self
    }

    /// Pins the locked sets of `players` (see [`Pins::pin`]).
    fn pin_players(&mut self, players: Range<usize>) {
        let Some(pins) = self.pins.take() else {
            return;
        };
        for p in players {
            let mut regret = std::mem::take(&mut self.regret[p]);
            let mut last = std::mem::take(&mut self.last_regret[p]);
            pins.pin(p, &mut regret, &mut last, self.sigma_mut(p));
            self.regret[p] = regret;
            self.last_regret[p] = last;
        }
        self.pins = Some(pins);
    }

    /// Runs the big passes on a team of `threads` threads, the caller's included (1 = no
    /// team; neither for a game too small to split). Results are identical for every thread
    /// count. The team runs an iteration only where it is faster than the calling thread
    /// alone, as timed while it runs (see [`CfrSolver::with_pacing`]).
    pub fn with_threads(self, threads: usize) -> Result<Self, crate::threads::ThreadsError> {
        self.with_split(threads, tree::GROUPS)
    }

    /// [`CfrSolver::with_threads`], cutting the tree into about `groups` groups of subtrees
    /// (see `tree::split`); for checking that the split changes nothing.
    #[doc(hidden)]
    pub fn with_split(
        mut self,
        threads: usize,
        groups: usize,
    ) -> Result<Self, crate::threads::ThreadsError> {
        let threads = crate::threads::Threads::Exactly(threads).count()?;
        self.team = None;
        let wants = match &mut self.engine {
            Engine::Tree(t) => {
                let (tree, sets) = &mut **t;
                threads > 1 && tree.prepare_split(sets, groups)
            }
            Engine::Sequence(k) => threads > 1 && k.wants_team(),
        };
        if wants {
            let team = Team::new(threads)
                .map_err(|e| crate::threads::ThreadsError::Spawn(e.to_string()))?;
            self.team = Some(team);
        }
        Ok(self)
    }

    /// How the solver chooses between its team and the calling thread alone (by default it
    /// times both now and then and runs the faster; results are bit-identical either way).
    pub fn with_pacing(mut self, pacing: Pacing) -> Self {
        self.pacer = Pacer::new(pacing);
        self
    }

    /// Whether the solver has a team of threads (not with one thread, nor for a game too
    /// small to split).
    pub fn has_team(&self) -> bool {
        self.team.is_some()
    }

    /// Iterations this solver ran on its team of threads (the others ran on the calling
    /// thread alone).
    pub fn team_iterations(&self) -> u64 {
        self.pacer.team_iterations()
    }

    /// Turns the pruning of subtrees no update can see on (the default) or off. Pruning
    /// never changes results (tested bit for bit); off is for checking that.
    pub fn with_pruning(mut self, prune: bool) -> Self {
        if let Engine::Tree(t) = &mut self.engine {
            t.0.prune = prune;
        }
        self
    }

    /// Forces the lean serial passes on or off (by default on for small games). They never
    /// change results (tested bit for bit); forcing is for checking that.
    #[doc(hidden)]
    pub fn with_lean_passes(mut self, lean: bool) -> Self {
        if let Engine::Tree(t) = &mut self.engine {
            t.0.lean = lean;
        }
        self
    }

    /// The parameters in use.
    pub fn params(&self) -> RegretParams {
        self.params
    }

    /// Iterations done so far.
    pub fn iterations(&self) -> u64 {
        self.iterations
    }

    /// Heap bytes the solver holds (tree, scratch and per-action state), excluding the game.
    pub fn memory_bytes(&self) -> usize {
        fn b<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let mut total = 0;
        for p in 0..2 {
            total += b(&self.regret[p]) + b(&self.last_regret[p]) + b(&self.strategy_sum[p]);
        }
        let (t, sets) = match &self.engine {
            Engine::Tree(t) => (&t.0, &t.1),
            Engine::Sequence(k) => return total + k.bytes(),
        };
        total += b(&t.child_start)
            + b(&t.inner)
            + b(&t.inner_levels)
            + b(&t.levels)
            + b(&t.probs)
            + b(&t.value)
            + b(&t.reach)
            + b(&t.reach2)
            + b(&t.inst)
            + b(&t.computed)
            + b(&t.cands)
            + b(&t.cand_levels)
            + b(&t.next)
            + b(&t.computed_levels)
            + t.split.as_ref().map_or(0, |s| s.bytes());
        for s in sets {
            total += b(&s.action_start)
                + b(&s.node_start)
                + b(&s.nodes)
                + b(&s.parent_set)
                + b(&s.parent_action)
                + b(&s.topo)
                + b(&s.own);
        }
        total
    }

    /// The sequence-form kernel's shape: non-zeros of the payoff matrix, bytes of its two
    /// orientations, terminals of the game (`None` for the tree kernel).
    pub fn sequence_shape(&self) -> Option<(usize, usize, usize)> {
        match &self.engine {
            Engine::Tree(_) => None,
            Engine::Sequence(k) => Some((k.nonzeros(), k.matrix_bytes(), k.terminals)),
        }
    }

    /// Bytes an iteration moves between memory and the cores, computed from the layout: every
    /// array a pass reads or writes, once per pass, with the vectors a product gathers from
    /// counted once (an estimate of the compulsory traffic, for setting against the
    /// machine's bandwidth; the tree kernel's pruning scratch and skipped subtrees are left
    /// out, so its figure is an upper bound without pruning).
    pub fn bytes_per_iteration(&self) -> usize {
        let alternating = self.params.alternating;
        let last = if self.keeps_last() { 16 } else { 0 };
        match &self.engine {
            Engine::Sequence(k) => {
                let mut total = 0;
                for p in 0..2 {
                    let a = &k.a[p];
                    let (rows, nnz, cols) = (a.rows(), a.nonzeros(), k.a[1 - p].rows());
                    let (entry, dict) = a.entry_bytes();
                    // Row starts, columns and values (and their dictionary); the result
                    // written; the plan gathered.
                    total += 4 * (rows + 1) + entry * nnz + dict + 8 * rows + 8 * cols;
                    let (sets, actions) = (k.sets[p].parent.len(), k.sigma[p].len());
                    // The plan pass: over the actions in order, each action's parent
                    // sequence and strategy read, its plan written (by sets in `topo`
                    // order otherwise: set arrays, strategy read, plan written).
                    let plan = match k.sets[p].in_order {
                        true => 20 * actions,
                        false => 12 * sets + 16 * actions,
                    };
                    // The update pass: set arrays and own reach (the plan at the parent
                    // sequence); values read; strategy, regrets and sums read and written
                    // (and the last regrets where kept).
                    let update = 16 * sets + (56 + last) * actions;
                    total += plan + update;
                    if alternating && p == 0 {
                        total += plan;
                    }
                }
                total
            }
            Engine::Tree(t) => {
                let (tree, sets) = (&t.0, &t.1);
                let n = tree.len();
                let inner = tree.inner.len();
                let passes = if alternating { 2 } else { 1 };
                let reaches = if alternating { 1 } else { 2 };
                // Forward: interior entries, probabilities, reaches written; backward:
                // interior entries, values read and written.
                let evaluate = inner * 16 * 2 + n * (8 * reaches + 8 + 8 + 8) + 8 * inner;
                let mut update = 0;
                for s in sets {
                    let actions = *s.action_start.last().expect("sentinel") as usize;
                    // Node lists, their reach and value and children's values; the set arrays.
                    update += s.nodes.len() * (4 + 8 + 8 + 4) + 20 * s.own.len();
                    update += (48 + last) * actions;
                }
                passes * evaluate + update + n * 8
            }
        }
    }

    /// Nodes the last pass computed (all of them without pruning); for the sequence kernel,
    /// the game's nodes.
    pub fn live_nodes(&self) -> usize {
        match &self.engine {
            Engine::Tree(t) => t.0.live_nodes(),
            Engine::Sequence(k) => k.nodes,
        }
    }

    /// Nodes of the compiled game.
    pub fn num_nodes(&self) -> usize {
        match &self.engine {
            Engine::Tree(t) => t.0.len(),
            Engine::Sequence(k) => k.nodes,
        }
    }

    /// With alternating updates, lets `player` learn first in each iteration from now on
    /// (player 0 does unless set; simultaneous updates do not depend on it). The exact LP's
    /// crash basis takes the first learner's average: its pure strategy starts the simplex
    /// nearer the optimum ([`crate::exact::sequence_form`]).
    pub fn set_first_learner(&mut self, player: usize) {
        assert!(player < 2, "a two-player game's player is 0 or 1");
        self.first_learner = player;
    }

    /// Runs `n` iterations.
    pub fn iterate(&mut self, n: u64) {
        for _ in 0..n {
            self.iteration();
        }
    }

    fn iteration(&mut self) {
        if self.team.is_none() {
            self.iteration_on(false);
            return;
        }
        let on_team = self.pacer.team_next();
        let start = Instant::now();
        let work = self.iteration_on(on_team);
        self.pacer.record(on_team, start.elapsed(), work);
    }

    /// One iteration, on the team or on the calling thread alone (the same bits either way).
    /// With a team, returns the nodes its passes computed, for the pacer (pruning makes that
    /// vary between iterations); without one, 0: counting costs a pass over the nodes after
    /// a lean pass, and nobody asks.
    fn iteration_on(&mut self, on_team: bool) -> usize {
        self.iterations += 1;
        let t = self.iterations;
        let count = self.team.is_some();
        if let Engine::Sequence(k) = &mut self.engine {
            let f0 = self.params.factors(t, 0);
            let f = [f0, Factors { sign: -1.0, ..f0 }];
            let [r0, r1] = &mut self.regret;
            let [s0, s1] = &mut self.strategy_sum;
            let [l0, l1] = &mut self.last_regret;
            let state = [
                sequence::State {
                    regret: r0,
                    sum: s0,
                    last: l0,
                },
                sequence::State {
                    regret: r1,
                    sum: s1,
                    last: l1,
                },
            ];
            let team = self.team.as_mut().filter(|_| on_team);
            let pins = self.pins.as_ref();
            k.iterate(
                self.params.alternating,
                self.first_learner,
                f,
                state,
                team,
                pins,
            );
            // The products' non-zeros: the same work every iteration.
            let work = k.nonzeros() + 1;
            self.pin_players(0..2);
            return work;
        }
        let mut work = 0;
        let first = self.first_learner;
        let alternating = [Some(first), Some(1 - first)];
        let passes: &[Option<usize>] = if self.params.alternating {
            &alternating
        } else {
            &[None]
        };
        if !self.params.alternating && self.general_sum() {
            return self.simultaneous_general(t, on_team);
        }
        for &learner in passes {
            if let Engine::Tree(ts) = &mut self.engine {
                let (tree, sets) = &mut **ts;
                tree.use_payoffs(learner.unwrap_or(0));
                let team = self.team.as_mut().filter(|_| on_team);
                // Simultaneous: both players' own reaches come from the strategies this
                // iteration played.
                let pass = learner.map_or(Pass::Both, Pass::Learner);
                tree.evaluate(pass, team, sets);
                if count {
                    work += tree.live_nodes();
                }
            }
            let players = match learner {
                Some(p) => p..p + 1,
                None => 0..2,
            };
            self.update(players.clone(), t, learner.is_none(), on_team);
            self.pin_players(players);
        }
        work
    }

    /// Whether the tree holds a general-sum game's two payoffs.
    fn general_sum(&self) -> bool {
        matches!(&self.engine, Engine::Tree(ts) if ts.0.general.is_some())
    }

    /// One simultaneous iteration of a general-sum game: player 1 updates from a pass over
    /// their payoffs, then player 2 from a pass over theirs with player 1's strategy of this
    /// iteration put back (both learn from the same profile, as in the constant-sum case).
    fn simultaneous_general(&mut self, t: u64, on_team: bool) -> usize {
        let mut work = 0;
        let Engine::Tree(ts) = &mut self.engine else {
            unreachable!("general-sum runs on the tree kernel")
        };
        let end = ts.0.bounds[0] as usize;
        let played = ts.0.probs[..end].to_vec();
        let mut learned = Vec::new();
        for p in 0..2 {
            let Engine::Tree(ts) = &mut self.engine else {
                unreachable!("general-sum runs on the tree kernel")
            };
            let (tree, sets) = &mut **ts;
            tree.use_payoffs(p);
            let team = self.team.as_mut().filter(|_| on_team);
            tree.evaluate(Pass::Both, team, sets);
            if self.team.is_some() {
                work += tree.live_nodes();
            }
            self.update(p..p + 1, t, true, on_team);
            if p == 0 {
                let Engine::Tree(ts) = &mut self.engine else {
                    unreachable!("general-sum runs on the tree kernel")
                };
                let probs = &mut ts.0.probs[..end];
                learned = probs.to_vec();
                probs.copy_from_slice(&played);
            }
        }
        if let Engine::Tree(ts) = &mut self.engine {
            ts.0.probs[..end].copy_from_slice(&learned);
        }
        work
    }

    /// The set update of `players` (in one phase of the team when it runs the iteration).
    fn update(&mut self, players: Range<usize>, t: u64, simultaneous: bool, on_team: bool) {
        // The players' factors differ only in sign (computed once: this runs every iteration).
        let f0 = self.params.factors(t, 0);
        let f = [
            f0,
            Factors {
                sign: -1.0,
                reach2: simultaneous,
                ..f0
            },
        ];
        let Engine::Tree(ts) = &mut self.engine else {
            return;
        };
        let (tree, sets) = &mut **ts;
        if let Some(team) = self.team.as_mut().filter(|_| on_team) {
            let state = [
                &mut self.regret,
                &mut self.strategy_sum,
                &mut self.last_regret,
            ];
            tree.update_split(sets, players, state, f, team);
            return;
        }
        for p in players {
            tree::update_player(
                tree,
                &sets[p],
                &mut self.regret[p],
                &mut self.strategy_sum[p],
                &mut self.last_regret[p],
                f[p],
            );
        }
    }

    /// Player `p`'s sets as flat action ranges (set `s` owns `starts[s]..starts[s + 1]`).
    fn action_start(&self, p: usize) -> &[u32] {
        match &self.engine {
            Engine::Tree(t) => &t.1[p].action_start,
            Engine::Sequence(k) => &k.sets[p].action_start,
        }
    }

    /// Player `p`'s current strategy (flat action order).
    fn sigma(&self, p: usize) -> &[f64] {
        match &self.engine {
            Engine::Tree(t) => {
                let b = t.0.bounds;
                let r = [0..b[0] as usize, b[0] as usize..b[1] as usize];
                &t.0.probs[r[p].clone()]
            }
            Engine::Sequence(k) => &k.sigma[p],
        }
    }

    /// Player `p`'s current strategy, mutable.
    fn sigma_mut(&mut self, p: usize) -> &mut [f64] {
        match &mut self.engine {
            Engine::Tree(t) => {
                let b = t.0.bounds;
                let r = [0..b[0] as usize, b[0] as usize..b[1] as usize];
                &mut t.0.probs[r[p].clone()]
            }
            Engine::Sequence(k) => &mut k.sigma[p],
        }
    }

    /// Regret matching (+ prediction) for player `p`; uniform where no regret is positive.
    fn refresh_strategy(&mut self, p: usize) {
        let starts = self.action_start(p).to_vec();
        let predictive = self.params.predictive;
        let regret = std::mem::take(&mut self.regret[p]);
        let last = std::mem::take(&mut self.last_regret[p]);
        let sigma = self.sigma_mut(p);
        for w in starts.windows(2) {
            let (a0, a1) = (w[0] as usize, w[1] as usize);
            let l: &[f64] = if predictive { &last[a0..a1] } else { &[] };
            tree::regret_matching(&regret[a0..a1], l, &mut sigma[a0..a1]);
        }
        self.regret[p] = regret;
        self.last_regret[p] = last;
    }

    /// The strategy the next iteration plays.
    pub fn current_profile(&self) -> Profile<f64> {
        Profile {
            probs: [self.sigma(0).to_vec(), self.sigma(1).to_vec()],
        }
    }

    /// The weighted average strategy (uniform at sets never reached).
    pub fn average_profile(&self) -> Profile<f64> {
        let mut probs = self.strategy_sum.clone();
        for p in 0..2 {
            let starts = self.action_start(p);
            for s in 0..starts.len() - 1 {
                let slice = &mut probs[p][starts[s] as usize..starts[s + 1] as usize];
                let total: f64 = slice.iter().sum();
                let len = slice.len();
                for x in slice.iter_mut() {
                    *x = if total > 0.0 {
                        *x / total
                    } else {
                        1.0 / len as f64
                    };
                }
            }
        }
        let mut profile = Profile { probs };
        if let Some(pins) = &self.pins {
            pins.apply(&mut profile);
        }
        profile
    }
}

#[cfg(test)]
impl CfrSolver {
    /// The tree (tests of the tree kernel's split).
    fn tree(&self) -> &Tree {
        match &self.engine {
            Engine::Tree(t) => &t.0,
            Engine::Sequence(_) => panic!("a sequence-form solver has no tree"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::rational_to_f64;

    /// After one iteration from uniform, each set's regrets are q(a) - sum_b sigma(b) q(b)
    /// (reach-weighted), so their uniform-weighted sum is 0 at every information set.
    #[test]
    fn first_iteration_regrets_are_centred_on_the_played_strategy() {
        let g = kuhn_poker().unwrap();
        let mut s = CfrSolver::new(&g, RegretParams::vanilla());
        s.iterate(1);
        for p in 0..2 {
            for set in &g.infosets[p] {
                let len = set.actions.len();
                let weighted: f64 = set
                    .action_range()
                    .map(|a| s.regret[p][a] / len as f64)
                    .sum();
                assert!(weighted.abs() < 1e-12);
            }
        }
    }

    /// VAD-CFR averaging from iteration 6 on, so that short runs exercise every rule.
    fn vad_early() -> RegretParams {
        let mut params = RegretParams::vad_cfr();
        if let Some(v) = params.volatility.as_mut() {
            v.warmup = 5.0;
        }
        params
    }

    #[test]
    fn every_variant_converges_on_kuhn_to_minus_one_eighteenth() {
        let g = kuhn_poker().unwrap();
        // Bounds sit a few times above the measured values (5.3e-3, 5.4e-4, 4.4e-5, 4.5e-5,
        // 9.2e-5, 2.9e-9): the faster variants must stay clearly ahead of vanilla CFR.
        for (name, params, bound) in [
            ("cfr", RegretParams::vanilla(), 1e-2),
            ("cfr-alt", RegretParams::vanilla_alternating(), 2e-3),
            ("cfr+", RegretParams::cfr_plus(), 2e-4),
            ("lcfr", RegretParams::linear(), 2e-4),
            ("dcfr", RegretParams::discounted_default(), 3e-4),
            ("pcfr+", RegretParams::predictive_plus(), 1e-6),
        ] {
            let mut s = CfrSolver::new(&g, params);
            s.iterate(2000);
            let e = exploitability(&g, &s.average_profile());
            assert!(e.exploitability < bound, "{name}: {}", e.exploitability);
            assert!(
                (e.value[0] + 1.0 / 18.0).abs() < 1e-2,
                "{name}: {}",
                e.value[0]
            );
        }
    }

    #[test]
    fn thread_count_does_not_change_results() {
        let g = kuhn_poker().unwrap();
        let mut one = CfrSolver::new(&g, RegretParams::vanilla());
        let mut two = CfrSolver::new(&g, RegretParams::vanilla())
            .with_threads(2)
            .unwrap();
        one.iterate(50);
        two.iterate(50);
        assert_eq!(one.average_profile(), two.average_profile());
    }

    #[test]
    fn too_many_threads_are_refused_before_any_is_started() {
        let g = kuhn_poker().unwrap();
        let max = crate::threads::max_threads();
        assert!(CfrSolver::new(&g, RegretParams::vanilla())
            .with_threads(max)
            .is_ok());
        let err = CfrSolver::new(&g, RegretParams::vanilla())
            .with_threads(max + 1)
            .err()
            .unwrap();
        assert!(err.to_string().contains("at most"), "{err}");
    }

    /// A game with levels and players big enough for the parallel kernels (51 181 nodes,
    /// 2560 information sets per player): every variant gives bit-identical states on 1 and
    /// 2 threads.
    #[test]
    fn parallel_kernels_are_bit_identical_to_serial() {
        let g = crate::games::liars_dice::liars_dice(1, 5, u64::MAX).unwrap();
        for params in [
            RegretParams::vanilla(),
            RegretParams::cfr_plus(),
            RegretParams::pdcfr_plus(),
            RegretParams::hs_dcfr(30.0, 20),
            RegretParams::hs_dcfr_revised(15.0, 20),
            RegretParams::hs_pdcfr_plus(30.0, 20),
            RegretParams::sapcfr_plus(),
            vad_early(),
        ] {
            let mut one = CfrSolver::new(&g, params);
            let mut two = CfrSolver::new(&g, params)
                .with_pacing(Pacing::Team)
                .with_threads(2)
                .unwrap();
            one.iterate(12);
            two.iterate(12);
            assert_eq!(one.state(), two.state(), "{params:?}");
        }
    }

    /// The split of the parallel passes changes nothing: liars_dice with 5 sides (51 181
    /// nodes) cut into 1, 3, 64 and 5000 groups gives the serial states bit for bit at 2 and
    /// 3 threads, for simultaneous and alternating updates.
    #[test]
    fn every_split_gives_the_serial_bits() {
        let g = crate::games::liars_dice::liars_dice(1, 5, u64::MAX).unwrap();
        for params in [
            RegretParams::vanilla(),
            RegretParams::cfr_plus(),
            RegretParams::pdcfr_plus(),
        ] {
            let mut one = CfrSolver::new(&g, params);
            one.iterate(9);
            for (groups, threads) in [(1, 2), (3, 3), (64, 2), (5000, 2)] {
                let mut split = CfrSolver::new(&g, params)
                    .with_pacing(Pacing::Team)
                    .with_split(threads, groups)
                    .unwrap();
                let (cut, made, max, _, _) = split.tree().split.as_ref().unwrap().shape();
                assert!(cut >= 1 && made >= 1, "{groups}");
                if groups >= 64 {
                    assert!(made >= 32, "{groups} groups asked, {made} made");
                    assert!(
                        max < g.nodes.len() / 16,
                        "{groups} groups: {max} nodes in one"
                    );
                }
                split.iterate(9);
                assert_eq!(one.state(), split.state(), "{params:?} {groups} groups");
                assert_eq!(one.live_nodes(), split.live_nodes(), "{groups} groups");
            }
        }
    }

    /// Switching between the team and the calling thread alone from one iteration to the
    /// next (as the measured pacing may) keeps the serial bits, for simultaneous,
    /// alternating and predictive updates.
    #[test]
    fn switching_between_team_and_alone_keeps_the_serial_bits() {
        let g = crate::games::liars_dice::liars_dice(1, 5, u64::MAX).unwrap();
        for params in [
            RegretParams::vanilla(),
            RegretParams::discounted_default(),
            RegretParams::predictive_plus(),
        ] {
            let mut one = CfrSolver::new(&g, params);
            let mut mixed = CfrSolver::new(&g, params)
                .with_pacing(Pacing::Alternate)
                .with_threads(2)
                .unwrap();
            one.iterate(9);
            mixed.iterate(9);
            assert_eq!(mixed.team_iterations(), 4, "{params:?}");
            assert_eq!(one.state(), mixed.state(), "{params:?}");
            assert_eq!(one.live_nodes(), mixed.live_nodes(), "{params:?}");
        }
    }

    /// Prints the split of the benchmark games (`--ignored --nocapture`).
    #[test]
    #[ignore]
    fn print_splits() {
        for spec in [
            "liars-dice(sides=5)",
            "liars-dice(sides=6)",
            "goofspiel(cards=5)",
            "leduc",
        ] {
            let g = crate::games::builtin(spec).unwrap();
            let s = CfrSolver::new(&g, RegretParams::vanilla())
                .with_threads(2)
                .unwrap();
            let shape = s.tree().split.as_ref().map(|s| s.shape());
            println!("{spec}: {} nodes, split {shape:?}", g.nodes.len());
        }
    }

    /// Stopping, saving the state and restoring it continues the very same run.
    #[test]
    fn restored_state_continues_bit_identically() {
        let g = crate::games::leduc::leduc_poker().unwrap();
        for params in [
            RegretParams::vanilla(),
            RegretParams::predictive_plus(),
            RegretParams::hs_pcfr_plus(30.0, 40),
            RegretParams::hs_pdcfr_plus(15.0, 40),
            vad_early(),
        ] {
            let mut straight = CfrSolver::new(&g, params);
            straight.iterate(40);
            let mut first = CfrSolver::new(&g, params);
            first.iterate(17);
            let mut resumed = CfrSolver::restore(&g, params, &first.state()).unwrap();
            resumed.iterate(23);
            assert_eq!(straight.state(), resumed.state(), "{params:?}");
            assert_eq!(straight.average_profile(), resumed.average_profile());
        }
        let mut bad = CfrSolver::new(&g, RegretParams::vanilla()).state();
        bad.arrays[1].1.pop();
        let err = CfrSolver::restore(&g, RegretParams::vanilla(), &bad)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("regret1"), "{err}");
    }

    /// Every variant of the tests' list, VAD-CFR averaging early.
    fn all_variants() -> Vec<RegretParams> {
        vec![
            RegretParams::vanilla(),
            RegretParams::vanilla_alternating(),
            RegretParams::cfr_plus(),
            RegretParams::linear(),
            RegretParams::discounted_default(),
            RegretParams::predictive_plus(),
            RegretParams::dcfr_plus(),
            RegretParams::pdcfr_plus(),
            RegretParams::hs_dcfr(30.0, 20),
            RegretParams::hs_dcfr_revised(15.0, 20),
            RegretParams::hs_pcfr_plus(30.0, 20),
            RegretParams::hs_pdcfr_plus(30.0, 20),
            RegretParams::sapcfr_plus(),
            vad_early(),
        ]
    }

    /// The sequence-form kernel runs the tree kernel's rules: on Leduc every variant's
    /// regrets, sums and strategies after 20 iterations agree to rounding.
    #[test]
    fn sequence_kernel_agrees_with_the_tree_kernel() {
        let g = crate::games::leduc::leduc_poker().unwrap();
        for params in all_variants() {
            let mut tree = CfrSolver::new(&g, params);
            let mut seq = CfrSolver::with_kernel(&g, params, Kernel::Sequence).unwrap();
            assert_eq!(seq.kernel(), Kernel::Sequence);
            tree.iterate(20);
            seq.iterate(20);
            for ((name, a), (_, b)) in tree.state().arrays.iter().zip(&seq.state().arrays) {
                let scale = a.iter().fold(1.0f64, |m, x| m.max(x.abs()));
                for (x, y) in a.iter().zip(b) {
                    assert!((x - y).abs() <= 1e-9 * scale, "{params:?} {name}: {x} {y}");
                }
            }
        }
    }

    /// The sequence kernel's states are the same bits on 1, 2 and 3 threads, on the team or
    /// switching, for simultaneous, alternating, predictive and VAD updates.
    #[test]
    fn sequence_kernel_is_bit_identical_for_every_thread_count() {
        let g = crate::games::liars_dice::liars_dice(1, 5, u64::MAX).unwrap();
        for params in [
            RegretParams::vanilla(),
            RegretParams::cfr_plus(),
            RegretParams::pdcfr_plus(),
            RegretParams::hs_dcfr_revised(15.0, 20),
            vad_early(),
        ] {
            let mut one = CfrSolver::with_kernel(&g, params, Kernel::Sequence).unwrap();
            one.iterate(9);
            for (threads, pacing) in [(2, Pacing::Team), (3, Pacing::Team), (2, Pacing::Alternate)]
            {
                let mut many = CfrSolver::with_kernel(&g, params, Kernel::Sequence)
                    .unwrap()
                    .with_pacing(pacing)
                    .with_threads(threads)
                    .unwrap();
                assert!(many.has_team());
                many.iterate(9);
                assert_eq!(one.state(), many.state(), "{params:?} {threads} {pacing:?}");
            }
        }
    }

    /// A restored sequence-kernel state continues the very same run.
    #[test]
    fn sequence_kernel_restores_bit_identically() {
        let g = crate::games::leduc::leduc_poker().unwrap();
        for params in [RegretParams::vanilla(), RegretParams::pdcfr_plus()] {
            let k = Kernel::Sequence;
            let mut straight = CfrSolver::with_kernel(&g, params, k).unwrap();
            straight.iterate(30);
            let mut first = CfrSolver::with_kernel(&g, params, k).unwrap();
            first.iterate(11);
            let mut resumed = CfrSolver::restore_with(&g, params, &first.state(), k).unwrap();
            resumed.iterate(19);
            assert_eq!(straight.state(), resumed.state(), "{params:?}");
        }
    }

    /// Textbook sequence-form CFR (Zinkevich et al. 2007 in the sequence form of von
    /// Stengel 1996), written literally and independently of both kernels: `A` dense from
    /// walks up from every terminal; `g = A y`; the counterfactual value of `(I, a)` is
    /// `sum over sequences t extending Ia of g[t] x[t] / x[Ia]`, with `x[t] / x[Ia]` the
    /// product of the strategy along the way (no division); regrets `cfv(I, a) - sum_b
    /// sigma(b) cfv(I, b)`; regret matching. Vanilla CFR on Kuhn, simultaneous and
    /// alternating: the sequence kernel's regrets match to 1e-12 after 5 iterations, and so
    /// do both kernels' with player 1 learning first in each alternating iteration.
    #[test]
    fn sequence_kernel_matches_textbook_sequence_form_cfr_on_kuhn() {
        let g = kuhn_poker().unwrap();
        for (alternating, first, kernel) in [
            (false, 0, Kernel::Sequence),
            (true, 0, Kernel::Sequence),
            (true, 1, Kernel::Sequence),
            (true, 1, Kernel::Tree),
        ] {
            let params = RegretParams {
                alternating,
                ..RegretParams::vanilla()
            };
            let mut solver = CfrSolver::with_kernel(&g, params, kernel).unwrap();
            solver.set_first_learner(first);
            for it in 1..=5 {
                solver.iterate(1);
                let regret = textbook_regrets(&g, alternating, first, it);
                for p in 0..2 {
                    for (x, y) in regret[p].iter().zip(&solver.regret[p]) {
                        assert!(
                            (x - y).abs() < 1e-12,
                            "{alternating} {first} {kernel:?} {p}: {x} {y}"
                        );
                    }
                }
            }
        }
    }

    /// The regrets of `iterations` of textbook sequence-form vanilla CFR (see above); player
    /// `first` learns first when `alternating`.
    fn textbook_regrets(
        g: &Game,
        alternating: bool,
        first: usize,
        iterations: usize,
    ) -> [Vec<f64>; 2] {
        let ns = [g.num_actions[0] + 1, g.num_actions[1] + 1];
        let mut a = vec![vec![0.0; ns[1]]; ns[0]];
        for (z, node) in g.nodes.iter().enumerate() {
            let crate::game::NodeKind::Terminal { terminal } = node.kind else {
                continue;
            };
            let (mut last, mut prob, mut h) = ([None, None], 1.0, z);
            while h != 0 {
                let parent = g.nodes[h].parent as usize;
                let k = g.nodes[h].action as usize;
                match g.nodes[parent].kind {
                    crate::game::NodeKind::Chance => prob *= g.chance_prob_f64[h],
                    crate::game::NodeKind::Decision { player, infoset } => {
                        let p = player as usize;
                        let set = &g.infosets[p][infoset as usize];
                        last[p].get_or_insert(1 + set.action_offset + k);
                    }
                    crate::game::NodeKind::Terminal { .. } => unreachable!(),
                }
                h = parent;
            }
            let (s, t) = (last[0].unwrap_or(0), last[1].unwrap_or(0));
            a[s][t] += prob * g.terminals[terminal as usize].payoff0_f64;
        }
        // The set owning each sequence, and each sequence's parent sequence.
        let owner = |p: usize, seq: usize| g.action_infoset[p][seq - 1] as usize;
        let parent_of = |p: usize, seq: usize| g.infosets[p][owner(p, seq)].parent_sequence();
        let plan = |p: usize, sigma: &[f64]| -> Vec<f64> {
            (0..ns[p])
                .map(|seq| {
                    let (mut x, mut s) = (1.0, seq);
                    while s != 0 {
                        x *= sigma[s - 1];
                        s = parent_of(p, s);
                    }
                    x
                })
                .collect()
        };
        // The counterfactual value of every sequence of player p from the values `gv` of
        // its sequences' own terminals: each credits its ancestors times the strategy between.
        let cfv = |p: usize, gv: &[f64], sigma: &[f64]| -> Vec<f64> {
            let mut v = vec![0.0; ns[p]];
            for (t, &gt) in gv.iter().enumerate().skip(1) {
                let (mut ratio, mut s) = (1.0, t);
                while s != 0 {
                    v[s] += gt * ratio;
                    ratio *= sigma[s - 1];
                    s = parent_of(p, s);
                }
            }
            v
        };
        let rm = |regret: &[f64], sigma: &mut [f64], p: usize| {
            for set in &g.infosets[p] {
                let r = set.action_range();
                let pos: Vec<f64> = regret[r.clone()].iter().map(|x| x.max(0.0)).collect();
                let total: f64 = pos.iter().sum();
                for (k, a) in r.clone().enumerate() {
                    sigma[a] = if total > 0.0 {
                        pos[k] / total
                    } else {
                        1.0 / r.len() as f64
                    };
                }
            }
        };
        let mut sigma = [vec![0.0; g.num_actions[0]], vec![0.0; g.num_actions[1]]];
        let mut regret = sigma.clone();
        for p in 0..2 {
            rm(&regret[p], &mut sigma[p], p);
        }
        let update = |p: usize, sigma: &mut [Vec<f64>; 2], regret: &mut [Vec<f64>; 2]| {
            let other = plan(1 - p, &sigma[1 - p]);
            let gv: Vec<f64> = (0..ns[p])
                .map(|s| {
                    (0..ns[1 - p])
                        .map(|t| if p == 0 { a[s][t] } else { a[t][s] } * other[t])
                        .sum()
                })
                .collect();
            let v = cfv(p, &gv, &sigma[p]);
            let sign = if p == 0 { 1.0 } else { -1.0 };
            for set in &g.infosets[p] {
                let r = set.action_range();
                let mean: f64 = r.clone().map(|b| sigma[p][b] * v[1 + b]).sum();
                for b in r {
                    regret[p][b] += sign * (v[1 + b] - mean);
                }
            }
        };
        for _ in 0..iterations {
            if alternating {
                for p in [first, 1 - first] {
                    update(p, &mut sigma, &mut regret);
                    rm(&regret[p].clone(), &mut sigma[p], p);
                }
            } else {
                update(0, &mut sigma, &mut regret);
                update(1, &mut sigma, &mut regret);
                for p in 0..2 {
                    rm(&regret[p].clone(), &mut sigma[p], p);
                }
            }
        }
        regret
    }

    /// The kernel choice by shape: the tree for games within the assumed cache, the
    /// sequence form for liars dice with 6 sides (294 883 nodes, 147 420 terminals).
    #[test]
    fn kernel_choice_follows_the_games_shape() {
        assert_eq!(Kernel::for_game(&kuhn_poker().unwrap()), Kernel::Tree);
        let leduc = crate::games::leduc::leduc_poker().unwrap();
        assert_eq!(Kernel::for_game(&leduc), Kernel::Tree);
        let ld = crate::games::liars_dice::liars_dice(1, 6, u64::MAX).unwrap();
        assert_eq!(Kernel::for_game(&ld), Kernel::Sequence);
        for k in Kernel::ALL {
            assert_eq!(Kernel::from_name(k.name()), Some(k));
        }
    }

    #[test]
    fn exact_evaluation_agrees_with_float_for_the_average() {
        let g = kuhn_poker().unwrap();
        let mut s = CfrSolver::new(&g, RegretParams::cfr_plus());
        s.iterate(100);
        let avg = s.average_profile();
        let float = exploitability(&g, &avg).exploitability;
        let exact = exploitability(&g, &avg.to_exact(&g)).exploitability;
        assert!((rational_to_f64(&exact) - float).abs() < 1e-12);
    }
}
