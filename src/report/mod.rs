//! `bluff report`: one self-contained HTML page that explains a strategy profile — summary
//! figures, every information set with its leaks, the convergence curve and the seed games'
//! pictures — plus PNG exports of the pictures.
//!
//! [`Report::build`] computes everything (exactly where the strategy is exact and the game
//! small, in `f64` otherwise); [`Report::to_html`] renders it with inline CSS, SVG and a little
//! optional JavaScript (sorting and filtering; every table is rendered server-side);
//! [`Report::write_pngs`] writes each picture as a PNG (feature `png`).

pub mod analysis;
pub mod charts;
mod html;
pub mod scene;
pub mod spot;

use crate::curve::CurvePoint;
#[cfg(feature = "png")]
use crate::error::ResultExt;
use crate::error::{fail, OptionExt, Result};
use crate::game::Game;
use crate::scalar::{format_rational, Rational};
use crate::strategy::{ExactProfile, Profile};
use analysis::{analyse, Analysis, Num};
use scene::Scene;
#[cfg(feature = "png")]
use std::path::{Path, PathBuf};

/// Strategy files are evaluated in rationals by default on games with at most this many nodes.
pub const EXACT_MAX_NODES: usize = 60_000;
/// A strategy file is evaluated exactly by default when every probability's denominator is
/// below 2^this (simple fractions); long decimals from float solvers make rational arithmetic
/// slow (a Leduc DCFR file takes a minute), so those are evaluated in `f64` unless forced.
pub const EXACT_MAX_DENOMINATOR_BITS: u64 = 32;
/// Default number of information-set rows shown (the biggest local regrets first).
pub const DEFAULT_MAX_ROWS: usize = 3000;

/// The strategy profile a report explains.
#[derive(Clone, Debug)]
pub enum Strategy {
    /// Exact probabilities (from the LP or a strategy file), evaluated in rationals.
    Exact(ExactProfile),
    /// Float probabilities (from a CFR run, or a file see [`strategy_from_file`]), evaluated
    /// in `f64`.
    Float(Profile<f64>),
}

/// The game value when it is known exactly, and how it was found.
#[derive(Clone, Debug)]
pub struct KnownValue {
    /// Player 1's value.
    pub value: Rational,
    /// Where it comes from, e.g. "exact sequence-form LP".
    pub how: String,
}

/// What a report is made from.
#[derive(Clone, Debug)]
pub struct ReportInput {
    /// The game spec as given on the command line.
    pub spec: String,
    /// The strategy.
    pub strategy: Strategy,
    /// One sentence on where the strategy comes from.
    pub provenance: String,
    /// The exact game value, if known.
    pub known_value: Option<KnownValue>,
    /// A convergence curve `(iteration, exploitability)`, if any.
    pub curve: Option<Vec<(f64, f64)>>,
    /// Where the curve comes from.
    pub curve_source: String,
    /// Largest number of information-set rows on the page.
    pub max_rows: usize,
}

/// Where a game's own pictures come from: the worked problems draw theirs (the game catalog
/// hands the report the right one, [`crate::games::picture_source`]), so the report never
/// names a game.
pub trait PictureSource {
    /// The pictures of `game` under `profile` (the report's strategy in `f64`), with its exact
    /// value where known; `notes` say what was left out and why.
    fn pictures(
        &self,
        game: &Game,
        profile: &Profile<f64>,
        known_value: Option<&Rational>,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Picture>>;
}

/// A picture of the report with its caption.
#[derive(Clone, Debug)]
pub struct Picture {
    /// Short id, also the PNG file stem.
    pub id: String,
    /// Heading.
    pub title: String,
    /// What the picture shows and how it was computed.
    pub caption: String,
    /// The drawing.
    pub scene: Scene,
}

/// Sizes of the game for the summary.
#[derive(Clone, Debug)]
pub struct GameFacts {
    /// The game's own name.
    pub name: String,
    /// Player names.
    pub players: [String; 2],
    /// Nodes in the tree.
    pub nodes: usize,
    /// Terminal nodes.
    pub terminals: usize,
    /// Information sets per player.
    pub infosets: [usize; 2],
    /// Sequences per player (empty sequence included).
    pub sequences: [usize; 2],
    /// Smallest and largest payoff of player 1, exactly.
    pub payoff_range: (Rational, Rational),
    /// The payoffs add to this at every terminal.
    pub constant_sum: Rational,
}

/// Everything shown in a report.
#[derive(Clone, Debug)]
pub struct Report {
    /// The game spec.
    pub spec: String,
    /// Game sizes.
    pub facts: GameFacts,
    /// Where the strategy comes from.
    pub provenance: String,
    /// The exact value, if known.
    pub known_value: Option<KnownValue>,
    /// Evaluation and per-set rows (all of them, sorted by local regret).
    pub analysis: Analysis,
    /// Rows shown on the page (a prefix of `analysis.rows`).
    pub max_rows: usize,
    /// The pictures (convergence curve first, when given).
    pub pictures: Vec<Picture>,
    /// Notes on pictures that could not be drawn (e.g. a label missing from the strategy).
    pub notes: Vec<String>,
    /// Each player's locked sets by label (marked in the table; `None`: nothing locked).
    pub locked: Option<[Vec<String>; 2]>,
    /// The strategy head to head against another, where given.
    pub against: Option<Against>,
}

/// The report's strategy (A) head to head against another (B): A's exact values in both
/// seatings, and where A loses by not playing B's strategy, set by set.
#[derive(Clone, Debug)]
pub struct Against {
    /// What B is (its file name).
    pub name: String,
    /// A's value with A first and B second.
    pub value_first: Num,
    /// A's value with B first and A second.
    pub value_second: Num,
    /// Per set where they differ: player, label, the change in A's value if A played B's
    /// strategy there only (largest first).
    pub sets: Vec<(usize, String, Num)>,
}

impl Report {
    /// Evaluates the strategy, analyses every information set and draws the pictures: the
    /// convergence curve, and the game's own pictures when it has a source of them.
    pub fn build(
        game: &Game,
        input: ReportInput,
        own_pictures: Option<&dyn PictureSource>,
    ) -> Result<Report> {
        // The analysis reads player 1's payoffs as `constant_sum - payoff0`.
        game.require_constant_sum("the report")?;
        let facts = facts(game);
        let analysis = match &input.strategy {
            Strategy::Exact(p) => analyse(game, p, true),
            Strategy::Float(p) => analyse(game, p, false),
        };
        let float_profile = match &input.strategy {
            Strategy::Exact(p) => p.to_f64(),
            Strategy::Float(p) => p.clone(),
        };
        let mut pictures = Vec::new();
        if let Some(curve) = &input.curve {
            if !curve.iter().any(|&(x, y)| x >= 1.0 && y > 0.0) {
                fail!(Invalid, "the convergence curve has no point with iteration >= 1 and exploitability > 0 to plot on log axes");
            }
            pictures.push(Picture {
                id: "convergence".into(),
                title: "Convergence".into(),
                caption: format!(
                    "Exploitability of the average strategy against iterations, log-log ({}).",
                    input.curve_source
                ),
                scene: charts::convergence(&format!("exploitability on {}", input.spec), curve),
            });
        }
        let mut notes = Vec::new();
        if let Some(source) = own_pictures {
            pictures.extend(source.pictures(
                game,
                &float_profile,
                input.known_value.as_ref().map(|k| &k.value),
                &mut notes,
            )?);
        }
        Ok(Report {
            spec: input.spec,
            facts,
            provenance: input.provenance,
            known_value: input.known_value,
            analysis,
            max_rows: input.max_rows,
            pictures,
            notes,
            locked: None,
            against: None,
        })
    }

    /// The report as one self-contained HTML page.
    pub fn to_html(&self) -> String {
        html::render(self)
    }

    /// Writes every picture as `DIR/<id>.png` (twice the on-page size); returns the paths.
    #[cfg(feature = "png")]
    pub fn write_pngs(&self, dir: &Path) -> Result<Vec<PathBuf>> {
        if !dir.is_dir() {
            fail!(
                Invalid,
                "--png {}: not an existing directory (create it first)",
                dir.display()
            );
        }
        let mut out = Vec::new();
        for p in &self.pictures {
            let path = dir.join(format!("{}.png", p.id));
            let png = p
                .scene
                .to_png(2)
                .context_with(|| format!("drawing picture {}", p.id))?;
            crate::format::output::write_file(&path, &png)?;
            out.push(path);
        }
        Ok(out)
    }
}

fn facts(game: &Game) -> GameFacts {
    let mut lo: Option<&Rational> = None;
    let mut hi: Option<&Rational> = None;
    for t in &game.terminals {
        if lo.is_none_or(|l| &t.payoff0 < l) {
            lo = Some(&t.payoff0);
        }
        if hi.is_none_or(|h| &t.payoff0 > h) {
            hi = Some(&t.payoff0);
        }
    }
    let zero = Rational::from_integer(0.into());
    GameFacts {
        name: game.name.clone(),
        players: game.player_names.clone(),
        nodes: game.nodes.len(),
        terminals: game.num_terminal_nodes(),
        infosets: [game.infosets[0].len(), game.infosets[1].len()],
        sequences: [game.num_sequences(0), game.num_sequences(1)],
        payoff_range: (
            lo.cloned().unwrap_or_else(|| zero.clone()),
            hi.cloned().unwrap_or(zero),
        ),
        constant_sum: game.constant_sum.clone(),
    }
}

/// How a strategy read from a file is evaluated: exactly when `force_exact`, or when the game
/// has at most [`EXACT_MAX_NODES`] nodes and every denominator is below
/// 2^[`EXACT_MAX_DENOMINATOR_BITS`]; in `f64` otherwise. Returns the strategy and a sentence
/// saying which and why.
pub fn strategy_from_file(
    game: &Game,
    profile: ExactProfile,
    force_exact: bool,
) -> (Strategy, String) {
    let max_bits = profile
        .probs
        .iter()
        .flatten()
        .map(|x| x.denom().bits())
        .max()
        .unwrap_or(0);
    if force_exact {
        return (
            Strategy::Exact(profile),
            "Evaluated exactly (--exact).".into(),
        );
    }
    if game.nodes.len() > EXACT_MAX_NODES {
        return (
            Strategy::Float(profile.to_f64()),
            format!(
                "Evaluated in f64: the game has {} nodes (> {EXACT_MAX_NODES}); --exact forces \
                 rational arithmetic, and `bluff eval` always evaluates exactly.",
                game.nodes.len()
            ),
        );
    }
    if max_bits > EXACT_MAX_DENOMINATOR_BITS {
        return (
            Strategy::Float(profile.to_f64()),
            format!(
                "Evaluated in f64: the file's probabilities have denominators of up to {max_bits} \
                 bits (long decimals or large fractions); --exact forces rational arithmetic, and \
                 `bluff eval` always evaluates exactly."
            ),
        );
    }
    (
        Strategy::Exact(profile),
        "Evaluated exactly: the file's probabilities are simple fractions.".into(),
    )
}

/// `(iteration, exploitability)` pairs of a CFR run.
pub fn curve_pairs(points: &[CurvePoint]) -> Vec<(f64, f64)> {
    points
        .iter()
        .map(|p| (p.iteration as f64, p.exploitability))
        .collect()
}

/// Reads a curve CSV as written by `bluff solve --curve` (header `iteration,exploitability,...`).
pub fn parse_curve_csv(text: &str) -> Result<Vec<(f64, f64)>> {
    let mut lines = text.lines().enumerate();
    let (_, header) = lines
        .next()
        .or_invalid(|| "empty curve file: expected a header line".into())?;
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let find = |name: &str| {
        cols.iter().position(|c| *c == name).or_invalid(|| {
            format!(
                "line 1: the header {} has no column {name:?} (expected \
                 iteration,exploitability,...)",
                crate::format::text::quoted(header)
            )
        })
    };
    let (ci, ce) = (find("iteration")?, find("exploitability")?);
    let mut out = Vec::new();
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let get = |c: usize, name: &str| -> Result<f64> {
            let f = fields
                .get(c)
                .or_invalid(|| format!("line {}: missing field {name}", i + 1))?;
            let v: f64 = f
                .parse()
                .ok()
                .filter(|v: &f64| v.is_finite() && *v >= 0.0)
                .or_invalid(|| {
                    format!(
                        "line {}: {name} {} is not a finite non-negative number",
                        i + 1,
                        crate::format::text::quoted(f)
                    )
                })?;
            Ok(v)
        };
        out.push((get(ci, "iteration")?, get(ce, "exploitability")?));
    }
    if out.is_empty() {
        fail!(Invalid, "the curve file has a header but no data lines");
    }
    Ok(out)
}

/// Formats an exact number for the page: `p/q` when short, else its digit count.
pub fn exact_text(r: &str) -> String {
    if r.len() <= 48 {
        r.to_string()
    } else {
        format!("(exact rational, {} characters)", r.len())
    }
}

/// The exact rational as text (for callers holding a [`Rational`]).
pub fn rational_text(r: &Rational) -> String {
    exact_text(&format_rational(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_csv_is_read_and_errors_name_the_line() {
        let c =
            parse_curve_csv("iteration,exploitability,seconds\n1,0.5,0.1\n10,5e-2,0.2\n").unwrap();
        assert_eq!(c, vec![(1.0, 0.5), (10.0, 0.05)]);
        let e = parse_curve_csv("iteration,exploitability\n1,-2\n").unwrap_err();
        assert!(format!("{e:#}").contains("line 2"), "{e:#}");
        assert!(parse_curve_csv("").is_err());
        assert!(parse_curve_csv("iteration,exploitability\n").is_err());
    }

    #[test]
    fn file_strategies_choose_exact_or_f64_by_their_denominators() {
        let game = crate::games::kuhn::kuhn_poker().unwrap();
        let simple = ExactProfile::uniform(&game);
        assert!(matches!(
            strategy_from_file(&game, simple, false).0,
            Strategy::Exact(_)
        ));
        let mut long = ExactProfile::uniform(&game);
        long.probs[0][0] = crate::scalar::rat(1, 1 << 40);
        long.probs[0][1] = crate::scalar::rat((1 << 40) - 1, 1 << 40);
        assert!(matches!(
            strategy_from_file(&game, long.clone(), false).0,
            Strategy::Float(_)
        ));
        assert!(matches!(
            strategy_from_file(&game, long, true).0,
            Strategy::Exact(_)
        ));
    }
}
