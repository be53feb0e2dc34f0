//! `bluff solve`: run a CFR-family solver, write the average strategy, the convergence curve
//! and its plot.

use crate::eval::exploitability;
use crate::format::atomic::write_atomic;
use crate::format::strategy_json::profile_to_json;
use crate::games;
use crate::scalar::{format_rational, rational_to_f64};
use crate::solve::cfr::{CfrSolver, CurvePoint, RegretParams, StopRule, Target};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

/// Solver choice: the CFR family, or the exact sequence-form LP.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Algo {
    /// Vanilla CFR (simultaneous updates unless `--updates alternating`).
    #[value(name = "cfr")]
    Cfr,
    /// CFR+: regret matching+, alternating updates, linear averaging.
    #[value(name = "cfr+")]
    CfrPlus,
    /// Linear CFR.
    #[value(name = "lcfr")]
    Lcfr,
    /// Discounted CFR (`--alpha`, `--beta`, `--gamma`; default 1.5, 0, 2).
    #[value(name = "dcfr")]
    Dcfr,
    /// Predictive CFR+.
    #[value(name = "pcfr+")]
    PcfrPlus,
    /// DCFR+ (Xu et al. 2024): alpha 1.5, regrets floored, gamma 4.
    #[value(name = "dcfr+")]
    DcfrPlus,
    /// PDCFR+ (Xu et al. 2024): DCFR+ with PCFR+'s prediction, alpha 2.3, gamma 5.
    #[value(name = "pdcfr+")]
    PdcfrPlus,
    /// HS-DCFR(30): DCFR with a hyperparameter schedule over `--iterations` (`--gamma` = start).
    #[value(name = "hs-dcfr")]
    HsDcfr,
    /// HS-PCFR+(30): PCFR+ with gamma scheduled over `--iterations` (`--gamma` = start).
    #[value(name = "hs-pcfr+")]
    HsPcfrPlus,
    /// Exact sequence-form LP: exact value and strategies, certified by exact best responses.
    #[value(name = "lp")]
    Lp,
}

impl Algo {
    /// The name as written on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Algo::Cfr => "cfr",
            Algo::CfrPlus => "cfr+",
            Algo::Lcfr => "lcfr",
            Algo::Dcfr => "dcfr",
            Algo::PcfrPlus => "pcfr+",
            Algo::DcfrPlus => "dcfr+",
            Algo::PdcfrPlus => "pdcfr+",
            Algo::HsDcfr => "hs-dcfr",
            Algo::HsPcfrPlus => "hs-pcfr+",
            Algo::Lp => "lp",
        }
    }
}

/// Update order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Updates {
    /// Both players update from the same frozen strategies.
    Simultaneous,
    /// Player 1 updates, then player 2 against player 1's new strategy.
    Alternating,
}

/// Arguments of `bluff solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    /// Game spec (see `bluff games`).
    game: String,
    /// Algorithm.
    #[arg(long, value_enum, default_value = "cfr")]
    algo: Algo,
    /// Stop after N iterations.
    #[arg(long, value_name = "N")]
    iterations: Option<u64>,
    /// Stop once the average strategy's exploitability (payoff units) is at most E.
    #[arg(long, value_name = "E")]
    target: Option<f64>,
    /// Stop once exploitability is at most F times the payoff range (max - min payoff).
    #[arg(long, value_name = "F")]
    target_relative: Option<f64>,
    /// Stop after S seconds of solving.
    #[arg(long, value_name = "S")]
    time: Option<f64>,
    /// Override the algorithm's update order.
    #[arg(long, value_enum)]
    updates: Option<Updates>,
    /// DCFR positive-regret discount exponent.
    #[arg(long)]
    alpha: Option<f64>,
    /// DCFR negative-regret discount exponent.
    #[arg(long)]
    beta: Option<f64>,
    /// DCFR average-strategy weight exponent.
    #[arg(long)]
    gamma: Option<f64>,
    /// Worker threads (results do not depend on it); default: all cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Largest gap in iterations between exploitability measurements.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    check_every: u64,
    /// Write the average strategy as strategy JSON.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Write exploitability against iterations as CSV.
    #[arg(long, value_name = "FILE")]
    curve: Option<PathBuf>,
    /// Plot exploitability against iterations (log-log SVG).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Also evaluate the final average strategy exactly in rationals.
    #[arg(long)]
    exact: bool,
    /// Simplex method of `--algo lp`: float-guided exact (fast) or the dense exact tableau.
    #[arg(long, value_enum, default_value = "guided")]
    lp_method: crate::cli::lp::LpMethod,
    /// Print a JSON summary instead of a table.
    #[arg(long)]
    json: bool,
}

fn finite_positive(name: &str, v: Option<f64>) -> Result<()> {
    if let Some(x) = v {
        if !(x.is_finite() && x >= 0.0) {
            bail!("--{name} {x}: expected a finite non-negative number");
        }
    }
    Ok(())
}

/// The regret parameters for an algorithm and the command-line overrides.
pub fn regret_params(
    algo: Algo,
    updates: Option<Updates>,
    alpha: Option<f64>,
    beta: Option<f64>,
    gamma: Option<f64>,
    iterations: Option<u64>,
) -> Result<RegretParams> {
    let scheduled = matches!(algo, Algo::HsDcfr | Algo::HsPcfrPlus);
    if scheduled && (alpha.is_some() || beta.is_some()) {
        bail!("--alpha and --beta do not apply to the schedules; --gamma sets the starting gamma");
    }
    if algo != Algo::Dcfr && !scheduled && (alpha.is_some() || beta.is_some() || gamma.is_some()) {
        bail!("--alpha, --beta and --gamma only apply to --algo dcfr (and --gamma to hs-*)");
    }
    let horizon = || -> Result<u64> {
        iterations.ok_or_else(|| {
            anyhow::anyhow!(
                "--algo {} schedules its exponents over the run's length: give --iterations N",
                algo.name()
            )
        })
    };
    let mut params = match algo {
        Algo::Cfr => RegretParams::vanilla(),
        Algo::CfrPlus => RegretParams::cfr_plus(),
        Algo::Lcfr => RegretParams::linear(),
        Algo::Dcfr => {
            let d = RegretParams::discounted_default();
            RegretParams::discounted(
                alpha.unwrap_or(d.alpha),
                beta.unwrap_or(d.beta),
                gamma.unwrap_or(d.gamma),
            )
        }
        Algo::PcfrPlus => RegretParams::predictive_plus(),
        Algo::DcfrPlus => RegretParams::dcfr_plus(),
        Algo::PdcfrPlus => RegretParams::pdcfr_plus(),
        Algo::HsDcfr => RegretParams::hs_dcfr(gamma.unwrap_or(30.0), horizon()?),
        Algo::HsPcfrPlus => RegretParams::hs_pcfr_plus(gamma.unwrap_or(30.0), horizon()?),
        Algo::Lp => bail!("--algo lp is not a CFR variant"),
    };
    if let Some(u) = updates {
        params.alternating = u == Updates::Alternating;
    }
    Ok(params)
}

/// Runs `bluff solve`: validates the options, solves, writes the requested files, reports.
pub fn run(args: SolveArgs) -> Result<()> {
    if args.threads == Some(0) {
        bail!("--threads 0: expected at least 1");
    }
    if args.algo == Algo::Lp {
        let cfr_only = [
            ("--iterations", args.iterations.is_some()),
            ("--target", args.target.is_some()),
            ("--target-relative", args.target_relative.is_some()),
            ("--time", args.time.is_some()),
            ("--updates", args.updates.is_some()),
            (
                "--alpha/--beta/--gamma",
                args.alpha.is_some() || args.beta.is_some() || args.gamma.is_some(),
            ),
            ("--curve", args.curve.is_some()),
            ("--plot", args.plot.is_some()),
        ];
        if let Some((name, _)) = cfr_only.iter().find(|(_, set)| *set) {
            bail!("{name} applies to the CFR family only; --algo lp solves exactly in one run");
        }
        let run = || {
            crate::cli::lp::run(
                &args.game,
                args.lp_method,
                args.output.as_deref(),
                args.json,
            )
        };
        // The float simplex splits large pivots over rayon's threads (bit-identical results).
        return match args.threads {
            Some(t) => rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .context("starting the worker threads")?
                .install(run),
            None => run(),
        };
    }
    for (name, v) in [
        ("target", args.target),
        ("target-relative", args.target_relative),
        ("time", args.time),
        ("alpha", args.alpha),
        ("beta", args.beta),
        ("gamma", args.gamma),
    ] {
        finite_positive(name, v)?;
    }
    if args.iterations.is_none()
        && args.target.is_none()
        && args.target_relative.is_none()
        && args.time.is_none()
    {
        bail!("give a stop rule: --iterations N, --target E, --target-relative F or --time S");
    }
    if args.target.is_some() && args.target_relative.is_some() {
        bail!("give --target or --target-relative, not both");
    }
    if args.iterations == Some(0) {
        bail!("--iterations 0: expected at least 1");
    }
    if args.check_every == 0 {
        bail!("--check-every 0: expected at least 1");
    }
    let params = regret_params(
        args.algo,
        args.updates,
        args.alpha,
        args.beta,
        args.gamma,
        args.iterations,
    )?;
    let game = games::load(&args.game)?;
    let threads = args.threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let stop = StopRule {
        max_iterations: args.iterations,
        target: args
            .target
            .map(Target::Absolute)
            .or(args.target_relative.map(Target::FractionOfRange)),
        time: args.time.map(Duration::from_secs_f64),
    };
    let mut solver = CfrSolver::new(&game, params).with_threads(threads)?;

    let bar = match args.iterations {
        Some(n) => ProgressBar::new(n).with_style(
            ProgressStyle::with_template(
                "{bar:30} {pos}/{len} iterations  {msg}  ({elapsed}, eta {eta})",
            )
            .expect("valid template"),
        ),
        None => ProgressBar::new_spinner().with_style(
            ProgressStyle::with_template("{spinner} {pos} iterations  {msg}  ({elapsed})")
                .expect("valid template"),
        ),
    };
    let points = solver.run(&game, &stop, args.check_every, |progress| {
        bar.set_position(progress.iteration);
        if let Some(point) = progress.point {
            bar.set_message(format!(
                "exploitability {:.3e}  {:.0} it/s",
                point.exploitability,
                point.iteration as f64 / point.seconds.max(1e-9)
            ));
        }
    });
    bar.finish_and_clear();
    let last = *points.last().context("the run did no iterations")?;

    // The final figures come from crate::eval on the average strategy.
    let average = solver.average_profile();
    let eval = exploitability(&game, &average);
    let exact = args
        .exact
        .then(|| exploitability(&game, &average.to_exact(&game)));

    if let Some(path) = &args.output {
        let value = profile_to_json(&game, &args.game, &average);
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
        write_atomic(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.curve {
        let mut csv = String::from("iteration,exploitability,seconds\n");
        for p in &points {
            csv.push_str(&format!(
                "{},{:e},{:.6}\n",
                p.iteration, p.exploitability, p.seconds
            ));
        }
        write_atomic(path, csv.as_bytes())?;
    }
    if let Some(path) = &args.plot {
        let title = format!("{} on {}", args.algo.name(), args.game);
        write_atomic(path, plot_svg(&title, &points)?.as_bytes())?;
    }

    let solver_bytes = solver.memory_bytes();
    let (lo, hi) = game.payoff_range();
    let rate = last.iteration as f64 / last.seconds.max(1e-9);
    if args.json {
        let mut summary = json!({
            "game": args.game,
            "algo": args.algo.name(),
            "params": {
                "alternating": params.alternating,
                "alpha": finite_or_null(params.alpha),
                "beta": finite_or_null(params.beta),
                "floor": params.floor,
                "gamma": params.gamma,
                "predictive": params.predictive,
                "schedule": params.schedule.map(|s| json!({
                    "horizon": s.horizon,
                    "alpha_slope": s.alpha_slope,
                    "beta_slope": s.beta_slope,
                    "gamma_slope": s.gamma_slope,
                })),
            },
            "threads": threads,
            "nodes": game.nodes.len(),
            "solver_bytes": solver_bytes,
            "solver_bytes_per_node": solver_bytes as f64 / game.nodes.len() as f64,
            "infosets": [game.infosets[0].len(), game.infosets[1].len()],
            "iterations": last.iteration,
            "seconds": last.seconds,
            "iterations_per_second": rate,
            "exploitability": eval.exploitability,
            "exploitability_fraction_of_range": eval.exploitability / (hi - lo),
            "nash_conv": eval.nash_conv,
            "value_p1": eval.value[0],
            "payoff_range": [lo, hi],
        });
        if let Some(x) = &exact {
            summary["exact"] = json!({
                "exploitability": format_rational(&x.exploitability),
                "nash_conv": format_rational(&x.nash_conv),
                "value_p1": format_rational(&x.value[0]),
            });
        }
        crate::cli::print_json(&summary);
        return Ok(());
    }
    println!(
        "{} on {} ({}), {}",
        args.algo.name(),
        args.game,
        crate::cli::game_size(&game),
        crate::cli::plural(threads, "thread", "threads")
    );
    println!(
        "{} iterations in {:.3} s ({:.0} it/s)",
        last.iteration, last.seconds, rate
    );
    println!("average strategy, evaluated in f64 (rounding error far below 1e-9):");
    println!("  exploitability  {:.6e}", eval.exploitability);
    println!(
        "  as a fraction of the payoff range {}..{}: {:.6e}",
        lo,
        hi,
        eval.exploitability / (hi - lo)
    );
    println!("  {} value     {:.12}", game.player_names[0], eval.value[0]);
    if let Some(x) = &exact {
        println!("exact evaluation of the same strategy (its f64 probabilities read exactly):");
        println!(
            "  exploitability  {} = {:.15e}",
            short(&x.exploitability),
            rational_to_f64(&x.exploitability)
        );
        println!(
            "  {} value     {:.15}",
            game.player_names[0],
            rational_to_f64(&x.value[0])
        );
    }
    for (what, path) in [
        ("strategy", &args.output),
        ("curve", &args.curve),
        ("plot", &args.plot),
    ] {
        if let Some(p) = path {
            println!("{what} written to {}", p.display());
        }
    }
    Ok(())
}

fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        json!(x)
    } else {
        serde_json::Value::Null
    }
}

/// Exact rationals from float strategies have huge denominators; show them only when short.
fn short(r: &crate::scalar::Rational) -> String {
    let text = format_rational(r);
    if text.len() <= 40 {
        text
    } else {
        format!("(exact rational, {} digits)", text.len())
    }
}

/// Renders exploitability against iterations on log-log axes as SVG text.
pub fn plot_svg(title: &str, points: &[CurvePoint]) -> Result<String> {
    use plotters::prelude::*;
    let positive: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.exploitability > 0.0)
        .map(|p| (p.iteration as f64, p.exploitability))
        .collect();
    if positive.is_empty() {
        bail!("nothing to plot: no positive exploitability was measured");
    }
    let x_max = positive.iter().map(|p| p.0).fold(1.0, f64::max).max(2.0);
    let y_min = positive.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_max = positive.iter().map(|p| p.1).fold(0.0, f64::max);
    let (y_lo, y_hi) = if y_max / y_min < 10.0 {
        (y_min / 3.0, y_max * 3.0)
    } else {
        (y_min / 1.5, y_max * 1.5)
    };
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (800, 560)).into_drawing_area();
        let draw = |e: &dyn std::fmt::Display| anyhow::anyhow!("drawing the plot: {e}");
        root.fill(&WHITE).map_err(|e| draw(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(70)
            .build_cartesian_2d((1f64..x_max).log_scale(), (y_lo..y_hi).log_scale())
            .map_err(|e| draw(&e))?;
        chart
            .configure_mesh()
            .x_desc("iterations")
            .y_desc("exploitability (NashConv / 2)")
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .x_label_formatter(&|x| format!("{x:.0}"))
            .draw()
            .map_err(|e| draw(&e))?;
        chart
            .draw_series(LineSeries::new(
                positive.iter().copied(),
                BLUE.stroke_width(2),
            ))
            .map_err(|e| draw(&e))?;
        root.present().map_err(|e| draw(&e))?;
    }
    Ok(svg)
}
