//! The algorithm registry: every solver bluff offers, under the name users type, with its
//! tunable options, and one default for every front end (the command line, Python and the
//! report).
//!
//! Why a registry: the command line and the Python package used to keep a name -> parameters
//! table each, and they drifted apart (different defaults, different names accepted). Now both
//! parse their arguments into [`CfrOptions`] and ask [`Algorithm::regret_params`].
//!
//! The default is not a matter of taste but a stated rule over the convergence leaderboard
//! (`docs/leaderboard.csv`, written by `bench/leaderboard.py`): **among the algorithms that run
//! under any stop rule (they need no planned horizon, and their average strategy is defined
//! from the first iteration), the one with the lowest exploitability after 1000 iterations on
//! the most games of the table** (figures below [`TIE_BELOW`] count as equal: they are
//! rounding; ties: the lower geometric mean over the games at 1000 iterations, then the
//! registry's order). The table is compiled in, so when it changes the
//! default follows; [`default_algorithm`] applies the rule.

use crate::cfr::RegretParams;
use std::sync::OnceLock;

/// Which kind of solver an algorithm is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// An iterative CFR-family solver (one [`RegretParams`] setting).
    Cfr,
    /// The exact sequence-form LP ([`crate::exact`]).
    ExactLp,
    /// The sequence-form LCP by Lemke's algorithm ([`crate::lcp`]): one exact equilibrium of
    /// a two-player game, general-sum included.
    Lcp,
    /// A Monte Carlo CFR solver ([`crate::mccfr`], run by [`crate::solve::sampling`]):
    /// seeded, on a game's rules or its arena; never the default (its figures depend on the
    /// seed, and it is slower than full traversals on every game that fits the arena).
    Sampling(SamplingKind),
}

/// Which traversal a sampling algorithm runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SamplingKind {
    /// External sampling.
    External,
    /// Outcome sampling (with exploration, and optional baselines).
    Outcome,
}

/// Options a user may set on a sampling algorithm; `None` / `false` keeps OpenSpiel's
/// defaults (regret matching, simple averaging, exploration 0.6).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SamplingOptions {
    /// Outcome sampling's exploration epsilon, in (0, 1].
    pub epsilon: Option<f64>,
    /// VR-MCCFR baselines learned at this rate, in (0, 1] (both samplers).
    pub baseline: Option<f64>,
    /// Regret matching+ (regrets floored at 0 at every update).
    pub rm_plus: bool,
    /// DCFR-style discount of positive regrets, per epoch.
    pub alpha: Option<f64>,
    /// DCFR-style discount of negative regrets, per epoch.
    pub beta: Option<f64>,
    /// Average-strategy weight exponent, per epoch.
    pub gamma: Option<f64>,
    /// Iterations per discount epoch (default 1).
    pub epoch: Option<u64>,
}

impl SamplingOptions {
    /// Whether any option is set (a resumed run then checks them against its checkpoint).
    pub fn any(&self) -> bool {
        *self != SamplingOptions::default()
    }
}

/// Update order of a CFR-family run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Updates {
    /// Both players update from the same frozen strategies.
    Simultaneous,
    /// Player 1 updates, then player 2 against player 1's new strategy.
    Alternating,
}

/// Options a user may set on a CFR-family algorithm; `None` keeps the algorithm's own value.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CfrOptions {
    /// The update order.
    pub updates: Option<Updates>,
    /// Discount exponent of positive regrets (`dcfr`).
    pub alpha: Option<f64>,
    /// Discount exponent of negative regrets (`dcfr`).
    pub beta: Option<f64>,
    /// Average-strategy weight exponent (`dcfr`; the starting gamma of the `hs-*` schedules).
    pub gamma: Option<f64>,
}

/// Which of [`CfrOptions`]' exponents an algorithm takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tunable {
    /// None of alpha, beta and gamma.
    Nothing,
    /// Alpha, beta and gamma (discounted CFR).
    AlphaBetaGamma,
    /// The starting gamma of a schedule.
    StartingGamma,
    /// Gamma only, the average-strategy weight exponent (`dcfr+`).
    Gamma,
}

/// One solver of the registry.
#[derive(Clone, Copy, Debug)]
pub struct Algorithm {
    /// The name users type (`dcfr`, `pcfr+`, `lp`).
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    /// CFR family or exact LP.
    pub family: Family,
    /// Plans its exponents over the run's length: needs the iteration count up front.
    pub needs_horizon: bool,
    /// Which exponents the user may set.
    pub tunable: Tunable,
    /// The parameters at its defaults, given the horizon (`None` for the exact LP).
    params: Option<fn(Option<f64>, u64) -> RegretParams>,
}

/// Why a request for an algorithm cannot be met.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AlgorithmError {
    /// No algorithm has this name.
    #[error("unknown algorithm {}; the algorithms are {}", crate::format::text::quoted(.0), names())]
    Unknown(String),
    /// A schedule was asked for without its horizon.
    #[error("{0} schedules its exponents over the run's length: give the number of iterations")]
    NeedsHorizon(&'static str),
    /// An exponent the algorithm does not take.
    #[error("{option} does not apply to {algorithm}{hint}")]
    Untunable {
        /// The algorithm.
        algorithm: &'static str,
        /// The option given.
        option: &'static str,
        /// Where it does apply.
        hint: &'static str,
    },
    /// A non-finite exponent.
    #[error("{option} = {value}: expected a finite number")]
    NotFinite {
        /// The option given.
        option: &'static str,
        /// Its value.
        value: f64,
    },
    /// CFR options given to the exact LP, or a sampling algorithm asked for CFR parameters.
    #[error("lp is the exact sequence-form LP, not a CFR variant")]
    NotCfr,
    /// Sampling options given to an algorithm that does not sample, or out of range.
    #[error("{0}")]
    Sampling(String),
}

/// Every algorithm, in the order `bluff solve --help` lists them.
pub const ALGORITHMS: &[Algorithm] = &[
    Algorithm {
        name: "cfr",
        summary: "vanilla CFR: simultaneous updates, own-reach-weighted average",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::vanilla()),
    },
    Algorithm {
        name: "cfr+",
        summary: "CFR+: regret matching+, alternating updates, linear average",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::cfr_plus()),
    },
    Algorithm {
        name: "lcfr",
        summary: "linear CFR",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::linear()),
    },
    Algorithm {
        name: "dcfr",
        summary: "discounted CFR (alpha 1.5, beta 0, gamma 2 unless set)",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::AlphaBetaGamma,
        params: Some(|_, _| RegretParams::discounted_default()),
    },
    Algorithm {
        name: "pcfr+",
        summary: "predictive CFR+",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::predictive_plus()),
    },
    Algorithm {
        name: "dcfr+",
        summary: "DCFR+ (Xu et al. 2024), as its authors run it (gamma 4 unless set; 5 on \
                  hold'em spots)",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Gamma,
        params: Some(|_, _| RegretParams::dcfr_plus()),
    },
    Algorithm {
        name: "pdcfr+",
        summary: "PDCFR+ (Xu et al. 2024): DCFR+ with PCFR+'s prediction",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::pdcfr_plus()),
    },
    Algorithm {
        name: "hs-dcfr",
        summary: "HS-DCFR(30): DCFR with exponents scheduled over the run's iterations",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::StartingGamma,
        params: Some(|gamma, horizon| RegretParams::hs_dcfr(gamma.unwrap_or(30.0), horizon)),
    },
    Algorithm {
        name: "hs-pcfr+",
        summary: "HS-PCFR+(30): PCFR+ with gamma scheduled over the run's iterations",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::StartingGamma,
        params: Some(|gamma, horizon| RegretParams::hs_pcfr_plus(gamma.unwrap_or(30.0), horizon)),
    },
    Algorithm {
        name: "hs-dcfr-30",
        summary: "HS-DCFR(30) as revised (arXiv 2404.09097v2): discount by the old sign, then add",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_dcfr_revised(30.0, horizon)),
    },
    Algorithm {
        name: "hs-dcfr-15",
        summary: "HS-DCFR(15) as revised: gamma from 15 to 10 over the run's iterations",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_dcfr_revised(15.0, horizon)),
    },
    Algorithm {
        name: "hs-pcfr+-30",
        summary: "HS-PCFR+(30) as revised: PCFR+ with gamma from 30 to 25",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_pcfr_plus_revised(30.0, horizon)),
    },
    Algorithm {
        name: "hs-pcfr+-15",
        summary: "HS-PCFR+(15) as revised: PCFR+ with gamma from 15 to 10",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_pcfr_plus_revised(15.0, horizon)),
    },
    Algorithm {
        name: "hs-pdcfr+-30",
        summary: "HS-PDCFR+(30): PDCFR+ (alpha 2.3) with gamma from 30 to 25",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_pdcfr_plus(30.0, horizon)),
    },
    Algorithm {
        name: "hs-pdcfr+-15",
        summary: "HS-PDCFR+(15): PDCFR+ (alpha 2.3) with gamma from 15 to 10",
        family: Family::Cfr,
        needs_horizon: true,
        tunable: Tunable::Nothing,
        params: Some(|_, horizon| RegretParams::hs_pdcfr_plus(15.0, horizon)),
    },
    Algorithm {
        name: "sapcfr+",
        summary: "SAPCFR+: PCFR+ with the prediction scaled to a third",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::sapcfr_plus()),
    },
    Algorithm {
        name: "vad-cfr",
        summary: "VAD-CFR (arXiv 2602.16928): volatility-adaptive discounting, averaging from \
                  iteration 501",
        family: Family::Cfr,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: Some(|_, _| RegretParams::vad_cfr()),
    },
    Algorithm {
        name: "es-mccfr",
        summary: "external-sampling Monte Carlo CFR (seeded; plays a game's rules when its \
                  tree is too big to build)",
        family: Family::Sampling(SamplingKind::External),
        needs_horizon: false,
        tunable: Tunable::AlphaBetaGamma,
        params: None,
    },
    Algorithm {
        name: "os-mccfr",
        summary: "outcome-sampling Monte Carlo CFR (exploration epsilon, VR-MCCFR baselines)",
        family: Family::Sampling(SamplingKind::Outcome),
        needs_horizon: false,
        tunable: Tunable::AlphaBetaGamma,
        params: None,
    },
    Algorithm {
        name: "lcp",
        summary: "one exact equilibrium of a two-player game, general-sum included: the \
                  sequence-form LCP by Lemke's algorithm, certified by exact best responses",
        family: Family::Lcp,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: None,
    },
    Algorithm {
        name: "lp",
        summary: "exact sequence-form LP, certified by exact best responses",
        family: Family::ExactLp,
        needs_horizon: false,
        tunable: Tunable::Nothing,
        params: None,
    },
];

/// The registered names, for messages.
fn names() -> String {
    ALGORITHMS
        .iter()
        .map(|a| a.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The algorithm called `name`.
pub fn algorithm(name: &str) -> Result<&'static Algorithm, AlgorithmError> {
    ALGORITHMS
        .iter()
        .find(|a| a.name == name)
        .ok_or_else(|| AlgorithmError::Unknown(name.to_string()))
}

impl Algorithm {
    /// Whether it runs under any stop rule, as a default must: a CFR-family algorithm that needs
    /// no planned horizon and averages from the first iteration (VAD-CFR's average starts after
    /// a warm-up; the schedules need the run's length).
    pub fn runs_under_any_stop_rule(&self) -> bool {
        self.family == Family::Cfr
            && !self.needs_horizon
            && self
                .regret_params(&CfrOptions::default(), None)
                .is_ok_and(|p| p.first_averaged_iteration() == 1)
    }

    /// The parameters of this sampling algorithm with `options` applied (OpenSpiel's solvers
    /// when none is set).
    pub fn sampling_params(
        &self,
        options: &SamplingOptions,
    ) -> Result<crate::mccfr::MccfrParams, AlgorithmError> {
        use crate::mccfr::MccfrParams;
        let Family::Sampling(kind) = self.family else {
            return Err(AlgorithmError::Sampling(format!(
                "{} is not a sampling solver (es-mccfr, os-mccfr take the sampling options)",
                self.name
            )));
        };
        for (option, value) in [
            ("alpha", options.alpha),
            ("beta", options.beta),
            ("gamma", options.gamma),
            ("epsilon", options.epsilon),
            ("baseline", options.baseline),
        ] {
            if let Some(v) = value.filter(|v| !v.is_finite()) {
                return Err(AlgorithmError::NotFinite { option, value: v });
            }
        }
        let mut p = match kind {
            SamplingKind::External => {
                if options.epsilon.is_some() {
                    return Err(AlgorithmError::Sampling(
                        "epsilon applies to os-mccfr".into(),
                    ));
                }
                MccfrParams {
                    baseline: options.baseline,
                    ..MccfrParams::external()
                }
            }
            SamplingKind::Outcome => MccfrParams {
                baseline: options.baseline,
                ..MccfrParams::outcome(options.epsilon.unwrap_or(0.6))
            },
        };
        let d = RegretParams::vanilla_alternating();
        p.regret = RegretParams {
            floor: options.rm_plus,
            alpha: options.alpha.unwrap_or(d.alpha),
            beta: options.beta.unwrap_or(d.beta),
            gamma: options.gamma.unwrap_or(d.gamma),
            ..d
        };
        p.epoch = options.epoch.unwrap_or(1);
        p.check()
            .map_err(|e| AlgorithmError::Sampling(e.to_string()))?;
        Ok(p)
    }

    /// The regret parameters of this CFR-family algorithm with `options` applied; `horizon`
    /// is the planned number of iterations (needed by the schedules).
    pub fn regret_params(
        &self,
        options: &CfrOptions,
        horizon: Option<u64>,
    ) -> Result<RegretParams, AlgorithmError> {
        let build = self.params.ok_or(AlgorithmError::NotCfr)?;
        for (option, value) in [
            ("alpha", options.alpha),
            ("beta", options.beta),
            ("gamma", options.gamma),
        ] {
            if let Some(v) = value.filter(|v| !v.is_finite()) {
                return Err(AlgorithmError::NotFinite { option, value: v });
            }
        }
        let untunable = |option, hint| AlgorithmError::Untunable {
            algorithm: self.name,
            option,
            hint,
        };
        match self.tunable {
            Tunable::AlphaBetaGamma => {}
            Tunable::StartingGamma => {
                if options.alpha.is_some() || options.beta.is_some() {
                    return Err(untunable(
                        "alpha/beta",
                        " (a schedule moves them; gamma sets its start)",
                    ));
                }
            }
            Tunable::Gamma => {
                if options.alpha.is_some() || options.beta.is_some() {
                    return Err(untunable("alpha/beta", " (it takes gamma only)"));
                }
            }
            Tunable::Nothing => {
                if options.alpha.is_some() || options.beta.is_some() || options.gamma.is_some() {
                    return Err(untunable(
                        "alpha/beta/gamma",
                        " (they apply to dcfr, and gamma to dcfr+ and the hs-* schedules)",
                    ));
                }
            }
        }
        let horizon = match (self.needs_horizon, horizon) {
            (true, None) => return Err(AlgorithmError::NeedsHorizon(self.name)),
            (_, h) => h.unwrap_or(1),
        };
        let mut params = build(options.gamma, horizon);
        if self.tunable == Tunable::AlphaBetaGamma {
            params.alpha = options.alpha.unwrap_or(params.alpha);
            params.beta = options.beta.unwrap_or(params.beta);
        }
        if matches!(self.tunable, Tunable::AlphaBetaGamma | Tunable::Gamma) {
            params.gamma = options.gamma.unwrap_or(params.gamma);
        }
        if let Some(u) = options.updates {
            params.alternating = u == Updates::Alternating;
        }
        Ok(params)
    }
}

/// Exploitabilities below this are floating-point rounding, not convergence: the default's
/// rule counts them as equal.
pub const TIE_BELOW: f64 = 1e-14;

/// The convergence leaderboard the default follows (`game,algo,iterations,exploitability`).
const LEADERBOARD: &str = include_str!("../../docs/leaderboard.csv");

/// The default algorithm of every front end, by the rule of the module documentation.
pub fn default_algorithm() -> &'static Algorithm {
    static DEFAULT: OnceLock<&'static Algorithm> = OnceLock::new();
    DEFAULT.get_or_init(|| {
        let name = default_from_table(LEADERBOARD)
            .expect("docs/leaderboard.csv names a registered algorithm at 1000 iterations");
        algorithm(&name).expect("checked by default_from_table")
    })
}

/// The fields of one CSV line; a field in double quotes may hold commas (game specs such as
/// `"goofspiel(cards=4,order=descending)"`).
fn csv_fields(line: &str) -> Vec<&str> {
    let mut fields = Vec::new();
    let mut rest = line;
    loop {
        if let Some(quoted) = rest.strip_prefix('"') {
            let end = quoted.find('"').unwrap_or(quoted.len());
            fields.push(&quoted[..end]);
            rest = quoted.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find(',').unwrap_or(rest.len());
            fields.push(rest[..end].trim());
            rest = &rest[end..];
        }
        match rest.find(',') {
            Some(comma) => rest = &rest[comma + 1..],
            None => return fields,
        }
    }
}

/// Applies the default's rule to a leaderboard in CSV (`game,algo,iterations,exploitability`,
/// a header line first; blank exploitabilities are entries a method does not define). `None`
/// when no horizon-free registered algorithm has a figure at 1000 iterations.
pub fn default_from_table(csv: &str) -> Option<String> {
    // (algorithm index, game) -> exploitability at 1000 iterations.
    let mut rows: Vec<(usize, &str, f64)> = Vec::new();
    for line in csv.lines().skip(1) {
        let fields = csv_fields(line);
        let [game, algo, iterations, value, ..] = fields[..] else {
            continue;
        };
        let Some(index) = ALGORITHMS
            .iter()
            .position(|a| a.name == algo && a.runs_under_any_stop_rule())
        else {
            continue;
        };
        let (Ok(1000), Ok(e)) = (iterations.parse::<u64>(), value.parse::<f64>()) else {
            continue;
        };
        if e.is_finite() && e >= 0.0 {
            rows.push((index, game, e.max(TIE_BELOW)));
        }
    }
    let mut games: Vec<&str> = rows.iter().map(|r| r.1).collect();
    games.sort_unstable();
    games.dedup();
    // Wins per algorithm, and the sum of log10 exploitabilities over the games it ran.
    let mut wins = vec![0usize; ALGORITHMS.len()];
    let mut logs = vec![(0.0f64, 0usize); ALGORITHMS.len()];
    for game in &games {
        let here: Vec<&(usize, &str, f64)> = rows.iter().filter(|r| r.1 == *game).collect();
        let best = here.iter().map(|r| r.2).fold(f64::INFINITY, f64::min);
        for r in &here {
            if r.2 == best {
                wins[r.0] += 1;
            }
            logs[r.0].0 += r.2.log10();
            logs[r.0].1 += 1;
        }
    }
    let candidates = (0..ALGORITHMS.len()).filter(|&i| logs[i].1 > 0);
    let best = candidates.min_by(|&a, &b| {
        let mean = |i: usize| logs[i].0 / logs[i].1 as f64;
        wins[b]
            .cmp(&wins[a])
            .then(mean(a).total_cmp(&mean(b)))
            .then(a.cmp(&b))
    })?;
    Some(ALGORITHMS[best].name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cfr_algorithm_gives_its_named_parameters() {
        let none = CfrOptions::default();
        let p = |name: &str, horizon| algorithm(name).unwrap().regret_params(&none, horizon);
        assert_eq!(p("cfr", None).unwrap(), RegretParams::vanilla());
        assert_eq!(p("cfr+", None).unwrap(), RegretParams::cfr_plus());
        assert_eq!(p("lcfr", None).unwrap(), RegretParams::linear());
        assert_eq!(p("dcfr", None).unwrap(), RegretParams::discounted_default());
        assert_eq!(p("pcfr+", None).unwrap(), RegretParams::predictive_plus());
        assert_eq!(p("dcfr+", None).unwrap(), RegretParams::dcfr_plus());
        assert_eq!(p("pdcfr+", None).unwrap(), RegretParams::pdcfr_plus());
        assert_eq!(
            p("hs-dcfr", Some(500)).unwrap(),
            RegretParams::hs_dcfr(30.0, 500)
        );
        assert_eq!(
            p("hs-pcfr+", Some(500)).unwrap(),
            RegretParams::hs_pcfr_plus(30.0, 500)
        );
        assert_eq!(
            p("hs-dcfr", None).unwrap_err(),
            AlgorithmError::NeedsHorizon("hs-dcfr")
        );
        assert_eq!(p("lp", None).unwrap_err(), AlgorithmError::NotCfr);
        assert!(matches!(
            algorithm("fictitious-play"),
            Err(AlgorithmError::Unknown(_))
        ));
    }

    #[test]
    fn options_apply_where_they_are_tunable_only() {
        let dcfr = algorithm("dcfr").unwrap();
        let set = CfrOptions {
            alpha: Some(2.0),
            beta: Some(-1.0),
            gamma: Some(3.0),
            updates: Some(Updates::Simultaneous),
        };
        let p = dcfr.regret_params(&set, None).unwrap();
        assert_eq!(
            p,
            RegretParams {
                alternating: false,
                ..RegretParams::discounted(2.0, -1.0, 3.0)
            }
        );
        let gamma_only = CfrOptions {
            gamma: Some(5.0),
            ..Default::default()
        };
        assert_eq!(
            algorithm("hs-dcfr")
                .unwrap()
                .regret_params(&gamma_only, Some(100))
                .unwrap(),
            RegretParams::hs_dcfr(5.0, 100)
        );
        for name in ["cfr+", "pdcfr+"] {
            assert!(matches!(
                algorithm(name).unwrap().regret_params(&gamma_only, None),
                Err(AlgorithmError::Untunable { .. })
            ));
        }
        let nan = CfrOptions {
            alpha: Some(f64::NAN),
            ..Default::default()
        };
        assert!(matches!(
            dcfr.regret_params(&nan, None),
            Err(AlgorithmError::NotFinite { .. })
        ));
    }

    #[test]
    fn csv_fields_keep_quoted_commas() {
        assert_eq!(
            csv_fields("\"goofspiel(cards=4,order=descending)\",dcfr,1000,1e-3"),
            [
                "goofspiel(cards=4,order=descending)",
                "dcfr",
                "1000",
                "1e-3"
            ]
        );
        assert_eq!(csv_fields("kuhn,cfr,100,"), ["kuhn", "cfr", "100", ""]);
    }

    /// The rule on tables made to test it: wins first, then the geometric mean, and the
    /// schedules (which need a horizon) and unknown names never chosen.
    #[test]
    fn the_default_rule_counts_wins_then_means() {
        let table = "game,algo,iterations,exploitability\n\
                     a,dcfr,1000,1e-4\na,cfr+,1000,2e-4\na,hs-pcfr+,1000,1e-17\n\
                     b,dcfr,1000,1e-3\nb,cfr+,1000,5e-4\nb,hs-pcfr+,1000,1e-17\n\
                     c,dcfr,1000,1e-5\nc,cfr+,1000,1e-3\nc,magic,1000,0\n\
                     c,cfr+,100,1e-9\n";
        assert_eq!(default_from_table(table).as_deref(), Some("dcfr"));
        // One win each: the lower geometric mean wins (cfr+ 2e-3 and 1e-4 against dcfr's
        // 1e-3 and 1e-3).
        let tie = "game,algo,iterations,exploitability\n\
                   a,dcfr,1000,1e-3\na,cfr+,1000,2e-3\n\
                   b,dcfr,1000,1e-3\nb,cfr+,1000,1e-4\n";
        assert_eq!(default_from_table(tie).as_deref(), Some("cfr+"));
        assert_eq!(
            default_from_table("game,algo,iterations,exploitability\n"),
            None
        );
        // Below 1e-14 is rounding: 1e-16 and 1e-17 tie on a, so both win it, and b decides.
        let rounding = "game,algo,iterations,exploitability,seconds\n\
                        a,pcfr+,1000,1e-16,\na,pdcfr+,1000,1e-17,\n\
                        b,pcfr+,1000,1e-3,\nb,pdcfr+,1000,2e-3,\n";
        assert_eq!(default_from_table(rounding).as_deref(), Some("pcfr+"));
    }

    /// The sampling solvers are registered (so every front end lists them), take OpenSpiel's
    /// parameters by default, refuse what does not apply, and are never the default.
    #[test]
    fn sampling_algorithms_are_listed_but_never_the_default() {
        use crate::mccfr::MccfrParams;
        let none = SamplingOptions::default();
        let es = algorithm("es-mccfr").unwrap();
        let os = algorithm("os-mccfr").unwrap();
        assert_eq!(es.sampling_params(&none).unwrap(), MccfrParams::external());
        assert_eq!(
            os.sampling_params(&none).unwrap(),
            MccfrParams::outcome(0.6)
        );
        let epsilon = SamplingOptions {
            epsilon: Some(0.3),
            ..none
        };
        assert!(es.sampling_params(&epsilon).is_err());
        assert_eq!(
            os.sampling_params(&epsilon).unwrap(),
            MccfrParams::outcome(0.3)
        );
        assert!(os
            .sampling_params(&SamplingOptions {
                epsilon: Some(0.0),
                ..none
            })
            .is_err());
        assert!(algorithm("cfr+").unwrap().sampling_params(&none).is_err());
        assert_eq!(
            es.regret_params(&CfrOptions::default(), None),
            Err(AlgorithmError::NotCfr)
        );
        assert!(!es.runs_under_any_stop_rule() && !os.runs_under_any_stop_rule());
        let table = "game,algo,iterations,exploitability\n\
                     a,es-mccfr,1000,1e-9\na,cfr+,1000,1e-3\n";
        assert_eq!(default_from_table(table).as_deref(), Some("cfr+"));
    }

    #[test]
    fn the_default_follows_the_leaderboard() {
        let d = default_algorithm();
        assert_eq!(Some(d.name.to_string()), default_from_table(LEADERBOARD));
        assert!(d.runs_under_any_stop_rule());
        assert!(!algorithm("vad-cfr").unwrap().runs_under_any_stop_rule());
        assert!(!algorithm("hs-dcfr").unwrap().runs_under_any_stop_rule());
        assert!(algorithm("dcfr").unwrap().runs_under_any_stop_rule());
    }
}
