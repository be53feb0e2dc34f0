//! The contest task end to end, as a library call: solve one (N, A, B) by a chosen method,
//! print the 4N lines, read them back and score what was printed (not what is in memory), so
//! that a front end only presents the result.

use crate::error::{Error, Result};
use crate::problems::one_card_poker::contest_format::{parse_strategy, write_strategy, Precision};
use crate::problems::one_card_poker::vector::{CfrVariant, VectorCfr};
use crate::problems::one_card_poker::{score, OcpParams, OcpScore, OcpStrategy};
use crate::scalar::{rational_to_f64, Rational};
use num_traits::Zero;
use std::time::Instant;

/// How the task's strategy is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The certified exact equilibrium of the vector form.
    Exact,
    /// The general sequence-form LP on the game tree, checked by an exact best response.
    Lp,
    /// Vanilla CFR for a number of iterations (the write-up's method; not exact).
    Cfr,
}

impl Method {
    /// The name users type.
    pub fn name(self) -> &'static str {
        match self {
            Method::Exact => "exact",
            Method::Lp => "lp",
            Method::Cfr => "cfr",
        }
    }
}

/// What was printed and how it scores.
#[derive(Clone, Debug)]
pub struct Produced {
    /// The 4N lines.
    pub text: String,
    /// Score of the printed text (parsed back), exact.
    pub printed: OcpScore<Rational>,
    /// Gap of the strategy before printing (0 for the exact methods).
    pub computed_gap: f64,
    /// CFR iterations run (the exact method's support-guessing CFR+ included).
    pub iterations: usize,
    /// Seconds from start to the scored text.
    pub seconds: f64,
}

/// Largest gap of the printed text the exact methods accept: the task's tolerance.
pub const PRINTED_GAP_LIMIT: f64 = 1e-9;

/// Solves `params` by `method` (`iterations` for CFR, told to `progress` as they run), prints
/// the strategy at `precision`, reads the text back and scores it. The exact methods fail
/// rather than print a text whose gap is over [`PRINTED_GAP_LIMIT`].
pub fn produce(
    params: &OcpParams,
    method: Method,
    iterations: usize,
    precision: Precision,
    mut progress: impl FnMut(usize),
) -> Result<Produced> {
    let start = Instant::now();
    let (strategy, computed_gap, iters): (OcpStrategy<Rational>, f64, usize) = match method {
        Method::Exact => {
            let sol = crate::problems::one_card_poker::exact::solve_exact(params)
                .map_err(|e| Error::Invalid(e.to_string()))?;
            (sol.strategy, 0.0, sol.cfr_iterations)
        }
        Method::Lp => {
            let game = crate::problems::one_card_poker::game::one_card_poker(
                params.n,
                params.ante,
                params.bet,
            )?;
            let sol =
                crate::exact::solve_exact(&game).map_err(|e| Error::Invalid(e.to_string()))?;
            let strategy = crate::problems::one_card_poker::from_profile(&game, &sol.profile, 0);
            let gap = score(params, &strategy).gap;
            if !gap.is_zero() {
                return Err(Error::Invalid(format!(
                    "the LP's strategy has gap {gap} against an exact best response (expected 0)"
                )));
            }
            (strategy, 0.0, 0)
        }
        Method::Cfr => {
            let mut cfr = VectorCfr::new(*params, CfrVariant::Vanilla);
            let chunk = 1000;
            while cfr.iterations() < iterations {
                let k = chunk.min(iterations - cfr.iterations());
                cfr.run(k);
                progress(cfr.iterations());
            }
            let avg = cfr.average();
            let gap = score(params, &avg).gap;
            // The exact rational value of every f64 probability.
            let conv = |v: &Vec<f64>| -> Vec<Rational> {
                v.iter()
                    .map(|&x| Rational::from_float(x.clamp(0.0, 1.0)).expect("finite"))
                    .collect()
            };
            let s = OcpStrategy {
                open: conv(&avg.open),
                check: conv(&avg.check),
                bet: conv(&avg.bet),
                check_bet: conv(&avg.check_bet),
            };
            (s, gap, iterations)
        }
    };
    let text = write_strategy(&strategy, precision);
    // Score what was printed, not what is in memory.
    let reread = parse_strategy(&text, params.n)
        .map_err(|e| Error::Invalid(format!("re-reading the printed strategy: {e}")))?;
    let printed = score(params, &reread);
    if method != Method::Cfr && rational_to_f64(&printed.gap) > PRINTED_GAP_LIMIT {
        let places = match precision {
            Precision::Decimal(d) => format!(" at {d} decimal places"),
            Precision::Exact => String::new(),
        };
        return Err(Error::Invalid(format!(
            "the printed strategy's gap is {:e} > 1e-9{places}; use more --digits or --exact",
            rational_to_f64(&printed.gap)
        )));
    }
    Ok(Produced {
        text,
        printed,
        computed_gap,
        iterations: iters,
        seconds: start.elapsed().as_secs_f64(),
    })
}
