//! `bluff report` (and `bluff solve --report`): writes the HTML report of `bluff::report`.

use crate::files::write_output;
use anyhow::{bail, Context, Result};
use bluff::curve::CurvePoint;
use bluff::format::strategy_json::profile_from_json;
use bluff::game::Game;
use bluff::lp::ProgressFn;
use bluff::report::{
    curve_pairs, parse_curve_csv, strategy_from_file, KnownValue, Report, ReportInput, Strategy,
    DEFAULT_MAX_ROWS,
};
use bluff::solve::best_effort::{best_effort, BestEffort, Budget, LP_MAX_SEQUENCES};
use bluff::strategy::Profile;
use clap::Args;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Arguments of `bluff report`.
#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Game spec (see `bluff games`), a .efg/.nfg file, or a hold'em spot file (.toml: its
    /// range grids, from the strategy file `bluff solve SPOT.toml -o S` wrote).
    game: String,
    /// Strategy JSON file; without it the game is solved first (exact LP where it fits, else
    /// the default CFR algorithm to --target-relative). A spot needs its strategy file.
    strategy: Option<PathBuf>,
    /// Convergence curve CSV (as written by `bluff solve --curve`), drawn log-log.
    #[arg(long, value_name = "FILE")]
    curve: Option<PathBuf>,
    /// The HTML file to write.
    #[arg(short, long, value_name = "FILE")]
    output: PathBuf,
    /// Also write each picture as a PNG into this (existing) directory.
    #[arg(long, value_name = "DIR")]
    png: Option<PathBuf>,
    /// Largest number of information-set rows (the biggest local regrets are kept).
    #[arg(long, default_value_t = DEFAULT_MAX_ROWS, value_name = "N")]
    max_rows: usize,
    /// Without a strategy, on games too large for the LP: the CFR run's target exploitability
    /// as a fraction of the payoff range.
    #[arg(long, default_value_t = 1e-3, value_name = "F")]
    target_relative: f64,
    /// Evaluate a strategy file in exact rationals even when its probabilities are long
    /// decimals or the game is large (slow).
    #[arg(long)]
    exact: bool,
    /// Without a strategy, on games too large for the LP: the CFR run's time limit in seconds.
    #[arg(long, default_value_t = 300.0, value_name = "S")]
    time: f64,
    /// Mark the sets of this lock file (as `bluff solve --lock` takes it) as locked.
    #[arg(long, value_name = "FILE")]
    lock: Option<PathBuf>,
    /// Play the strategy head to head against this strategy file: where it loses and how much.
    #[arg(long, value_name = "B")]
    against: Option<PathBuf>,
    /// Hold'em spots: the most decision nodes with per-hand data in the page (breadth first
    /// from the root).
    #[arg(long, value_name = "N")]
    max_nodes: Option<usize>,
}

/// Runs `bluff report`.
pub fn run(args: ReportArgs) -> Result<()> {
    if crate::spot::is_spot(&args.game) {
        return crate::spot_report::run(
            &args.game,
            args.strategy.as_deref(),
            &args.output,
            args.max_nodes,
        );
    }
    if args.max_nodes.is_some() {
        bail!("--max-nodes is for hold'em spots (a .toml spot file)");
    }
    if args.max_rows == 0 {
        bail!("--max-rows 0: expected at least 1");
    }
    if !(args.target_relative.is_finite() && args.target_relative > 0.0) {
        bail!(
            "--target-relative {}: expected a finite positive number",
            args.target_relative
        );
    }
    if !(args.time.is_finite() && args.time > 0.0) {
        bail!(
            "--time {}: expected a finite positive number of seconds",
            args.time
        );
    }
    // The report may not replace an input; its folder must take new files.
    let mut plan = crate::files::FilePlan::new();
    plan.game(&args.game);
    for path in [&args.strategy, &args.curve, &args.lock, &args.against]
        .into_iter()
        .flatten()
    {
        plan.input(path);
    }
    plan.output("-o", &args.output);
    plan.check()?;
    if let Some(dir) = &args.png {
        if !dir.is_dir() {
            bail!(
                "--png {}: not an existing directory (create it first)",
                dir.display()
            );
        }
    }
    let curve = match &args.curve {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            Some(parse_curve_csv(&text).with_context(|| format!("curve file {}", path.display()))?)
        }
        None => None,
    };
    let game = crate::load_game(&args.game)?;
    let spinner = crate::LpSpinner::new();
    let report_progress = |p: &bluff::lp::LpProgress| spinner.report(p);
    let progress: Option<ProgressFn> = Some(&report_progress);
    let mut input = match &args.strategy {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let (profile, named) = profile_from_json(&game, &text)
                .with_context(|| format!("strategy file {}", path.display()))?;
            if let Some(named) = named {
                if named != args.game {
                    eprintln!(
                        "warning: {} says it is for game {}, reporting it as {}",
                        path.display(),
                        bluff::format::text::quoted(&named),
                        bluff::format::text::quoted(&args.game)
                    );
                }
            }
            let (strategy, how) = strategy_from_file(&game, profile, args.exact);
            ReportInput {
                spec: args.game.clone(),
                strategy,
                provenance: format!("Strategy read from {}. {how}", path.display()),
                known_value: exact_value(&game, progress)?,
                curve: None,
                curve_source: String::new(),
                max_rows: args.max_rows,
            }
        }
        None => {
            let budget = Budget {
                target_relative: args.target_relative,
                time_limit: Duration::from_secs_f64(args.time),
                progress,
                ..Default::default()
            };
            solved_input(&game, &args.game, &budget)?
        }
    };
    input.max_rows = args.max_rows;
    if let (Some(c), Some(path)) = (curve, &args.curve) {
        input.curve = Some(c);
        input.curve_source = format!("from {}", path.display());
    }
    let locked = match &args.lock {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let lock = bluff::format::lock_json::lock_from_json(&game, Some(&args.game), &text)
                .map_err(|e| anyhow::anyhow!("--lock {}: {}", path.display(), e.0))?;
            Some(lock.labels(&game))
        }
        None => None,
    };
    let against = match &args.against {
        Some(path) => {
            let b = crate::eval::read_strategy(&game, &args.game, path)?;
            let name = path.display().to_string();
            Some(match &input.strategy {
                Strategy::Exact(a) => against(&game, a, &b, name),
                Strategy::Float(a) => against(&game, a, &b.to_f64(), name),
            })
        }
        None => None,
    };
    write_study(
        &game,
        input,
        &args.output,
        args.png.as_deref(),
        locked,
        against,
    )
}

/// A head to head of `a` against `b` for the report.
fn against<T: bluff::scalar::Scalar + bluff::report::analysis::ToNum>(
    game: &Game,
    a: &Profile<T>,
    b: &Profile<T>,
    name: String,
) -> bluff::report::Against {
    use bluff::study::{combine, set_changes};
    let (first, second, both) = (combine(a, b), combine(b, a), combine(b, b));
    let mut changes = set_changes(game, &first, &both, 0);
    changes.extend(set_changes(game, &second, &both, 1));
    changes.sort_by(|x, y| {
        let (ax, ay) = (x.change.to_f64().abs(), y.change.to_f64().abs());
        ay.partial_cmp(&ax).unwrap_or(std::cmp::Ordering::Equal)
    });
    bluff::report::Against {
        name,
        value_first: bluff::eval::values(game, &first)[0].to_num(),
        value_second: bluff::eval::values(game, &second)[1].to_num(),
        sets: changes
            .into_iter()
            .map(|c| {
                let label = game.infosets[c.player][c.infoset].label.clone();
                (c.player, label, c.change.to_num())
            })
            .collect(),
    }
}

/// The exact game value, where the LP fits, with where it comes from.
fn exact_value(game: &Game, progress: Option<ProgressFn>) -> Result<Option<KnownValue>> {
    Ok(
        bluff::solve::best_effort::exact_value(game, progress)?.map(|value| KnownValue {
            value,
            how: "exact sequence-form LP, certified by exact best responses".into(),
        }),
    )
}

/// A game given without a strategy, solved as well as the budget allows, as report input.
fn solved_input(game: &Game, spec: &str, budget: &Budget) -> Result<ReportInput> {
    let input = |strategy, provenance, known_value, curve, curve_source: &str| ReportInput {
        spec: spec.to_string(),
        strategy,
        provenance,
        known_value,
        curve,
        curve_source: curve_source.to_string(),
        max_rows: DEFAULT_MAX_ROWS,
    };
    Ok(match best_effort(game, spec, budget)? {
        BestEffort::Exact { solution, seconds } => input(
            Strategy::Exact(solution.profile),
            format!(
                "No strategy was given: solved exactly by the sequence-form LP ({} + {} \
                 sequences, {seconds:.2} s), certified by exact best responses (NashConv = 0).",
                solution.stats.sequences[0], solution.stats.sequences[1]
            ),
            Some(KnownValue {
                value: solution.value,
                how: "exact sequence-form LP, certified by exact best responses".into(),
            }),
            None,
            "",
        ),
        BestEffort::Approximate {
            algorithm,
            profile,
            outcome,
            target_reached,
        } => {
            let last = outcome.last().context("the CFR run did no iterations")?;
            let (lo, hi) = game.payoff_range();
            input(
                Strategy::Float(profile),
                format!(
                    "No strategy was given and the game is too large for the exact LP ({} + {} \
                     sequences > {LP_MAX_SEQUENCES}): solved by {} with target exploitability \
                     {:e} of the payoff range ({:e}) or {} s; {} after {} iterations in {:.1} s \
                     with exploitability {:.3e}.",
                    game.num_sequences(0),
                    game.num_sequences(1),
                    algorithm.name,
                    budget.target_relative,
                    budget.target_relative * (hi - lo),
                    budget.time_limit.as_secs(),
                    if target_reached {
                        "target reached"
                    } else {
                        "TIME LIMIT reached before the target"
                    },
                    last.iteration,
                    last.seconds,
                    last.exploitability
                ),
                None,
                Some(curve_pairs(&outcome.points)),
                &format!("{} run made for this report", algorithm.name),
            )
        }
    })
}

/// Builds the report, writes the page atomically (and its pictures as PNG files into `png`)
/// and prints what was written, with the locked sets marked and a head-to-head section,
/// where given.
fn write_study(
    game: &Game,
    input: ReportInput,
    output: &Path,
    png: Option<&Path>,
    locked: Option<[Vec<String>; 2]>,
    against: Option<bluff::report::Against>,
) -> Result<()> {
    let pictures = bluff::games::picture_source(&input.spec);
    let mut report = Report::build(game, input, pictures.as_deref())?;
    report.locked = locked;
    report.against = against;
    write_output(output, report.to_html().as_bytes())?;
    let rows = report.analysis.rows.len();
    eprintln!(
        "report written to {} ({} of {rows} information sets, {} pictures; {} evaluation)",
        output.display(),
        rows.min(report.max_rows),
        report.pictures.len(),
        if report.analysis.evaluation.exact {
            "exact"
        } else {
            "f64"
        }
    );
    if let Some(dir) = png {
        for path in report.write_pngs(dir)? {
            eprintln!("picture written to {}", path.display());
        }
    }
    Ok(())
}

/// `bluff solve --algo lp --report`: the report of the exact LP solution just computed, with
/// the sets a `--lock` fixed marked.
pub(crate) fn from_solve_lp(
    game: &Game,
    spec: &str,
    value: bluff::scalar::Rational,
    profile: bluff::strategy::ExactProfile,
    st: &bluff::exact::ExactStats,
    output: &Path,
    locked: Option<[Vec<String>; 2]>,
) -> Result<()> {
    let input = ReportInput {
        spec: spec.to_string(),
        provenance: format!(
            "bluff solve --algo lp: exact sequence-form LP ({} + {} sequences), certified by \
             exact best responses (NashConv = 0).",
            st.sequences[0], st.sequences[1]
        ),
        strategy: Strategy::Exact(profile),
        known_value: Some(KnownValue {
            value,
            how: "exact sequence-form LP, certified by exact best responses".into(),
        }),
        curve: None,
        curve_source: String::new(),
        max_rows: DEFAULT_MAX_ROWS,
    };
    write_study(game, input, output, None, locked, None)
}

/// `bluff solve --algo <cfr family> --report`: the report of the average strategy and the
/// curve of the run just made (the exact value comes from the LP where it fits), with the
/// sets a `--lock` fixed marked.
pub(crate) fn from_solve_cfr(
    game: &Game,
    spec: &str,
    average: &Profile<f64>,
    provenance: String,
    points: &[CurvePoint],
    output: &Path,
    locked: Option<[Vec<String>; 2]>,
) -> Result<()> {
    let input = ReportInput {
        spec: spec.to_string(),
        strategy: Strategy::Float(average.clone()),
        provenance,
        known_value: {
            let spinner = crate::LpSpinner::new();
            let report_progress = |p: &bluff::lp::LpProgress| spinner.report(p);
            exact_value(game, Some(&report_progress))?
        },
        curve: Some(curve_pairs(points)),
        curve_source: "this run".into(),
        max_rows: DEFAULT_MAX_ROWS,
    };
    write_study(game, input, output, None, locked, None)
}
