//! `bluff solve --algo es-mccfr|os-mccfr`: Monte Carlo CFR on a built-in game's rules or on
//! an arena, with checkpoints, a progress bar and a JSON summary.
//!
//! Self-contained on purpose (issue 27 moves the solve front end into an algorithm registry):
//! `solve::run` hands over here when the algorithm is a sampling one or the checkpoint to
//! resume is a sampling checkpoint. The engine is the arena when the game fits the builder's
//! node limit (exploitability by the arena's exact best response), the rules otherwise or with
//! `--rules` (exploitability by the streaming best response).

use super::{Algo, SolveArgs};
use crate::cli::files::{is_stdout, write_output, FilePlan};
use crate::game::{Game, Rules};
use crate::games::{self, WithRules};
use crate::solve::cfr::RegretParams;
use crate::solve::mccfr::checkpoint::{self, Header, RunInfo};
use crate::solve::mccfr::{MccfrParams, MccfrSolver, Point, RunLimits, Sampling, Stop};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

/// Whether `bluff solve` should run a sampling solver: a sampling `--algo`, or `--resume` of a
/// sampling checkpoint.
pub(super) fn applies(args: &SolveArgs) -> bool {
    matches!(args.algo, Some(Algo::EsMccfr | Algo::OsMccfr))
        || args.resume.as_deref().is_some_and(|p| {
            let mut magic = [0u8; 8];
            std::fs::File::open(p)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut magic))
                .is_ok()
                && &magic == b"BLUFFMCC"
        })
}

/// Everything the generic run needs besides the game.
struct Plan<'a> {
    args: &'a SolveArgs,
    spec: String,
    algo: Algo,
    params: MccfrParams,
    seed: u64,
    threads: usize,
    header: Option<Header>,
}

/// Runs a sampling solver for `bluff solve`.
pub(super) fn run(args: &SolveArgs) -> Result<()> {
    let refused = [
        ("--updates", args.updates.is_some()),
        ("--target-relative", args.target_relative.is_some()),
        ("--always-threads", args.always_threads),
        ("--exact", args.exact),
        ("--report", args.report.is_some()),
        ("--plot", args.plot.is_some()),
        (
            "--lp-method/--lp-form/--max-memory/--write-mps",
            args.lp_form.is_some() || args.max_memory.is_some() || args.write_mps.is_some(),
        ),
    ];
    if let Some((name, _)) = refused.iter().find(|(_, given)| *given) {
        bail!("{name} does not apply to the sampling solvers (es-mccfr, os-mccfr)");
    }
    if args.iterations.is_none() && args.target.is_none() && args.time.is_none() {
        bail!("give a stop rule: --iterations N, --target E or --time S");
    }
    for (name, v) in [
        ("time", args.time),
        ("checkpoint-every", args.checkpoint_every),
    ] {
        if let Some(x) = v {
            if !(x.is_finite() && x > 0.0 && x <= super::MAX_SECONDS) {
                bail!(
                    "--{name} {x:?}: expected seconds in (0, {:e}]",
                    super::MAX_SECONDS
                );
            }
        }
    }
    if let Some(t) = args.target {
        if !(t.is_finite() && t > 0.0) {
            bail!("--target {t:?}: expected a positive number");
        }
    }
    if args.checkpoint.as_deref().is_some_and(is_stdout) {
        bail!("--checkpoint -: a checkpoint is a binary file; give a file name");
    }
    let header = match &args.resume {
        Some(path) => Some(
            checkpoint::read_header_of(path)
                .with_context(|| format!("checkpoint {}", path.display()))?,
        ),
        None => None,
    };
    let spec = match (&args.game, &header) {
        (Some(g), _) => g.clone(),
        (None, Some(h)) => h.info.game_spec.clone(),
        (None, None) => bail!("give a game"),
    };
    let algo = match (args.algo, &header) {
        (Some(a), _) => a,
        (None, Some(h)) => super::algo_by_name(&h.info.algo)?,
        (None, None) => bail!("give --algo es-mccfr or os-mccfr"),
    };
    if !matches!(algo, Algo::EsMccfr | Algo::OsMccfr) {
        bail!(
            "--algo {} cannot continue a sampling checkpoint",
            algo.name()
        );
    }
    let asked = params_from(args, algo)?;
    let (params, seed, threads) = match &header {
        None => (
            asked,
            args.seed.unwrap_or(0),
            crate::cli::threads_arg(Some(args.threads.unwrap_or(1)))?,
        ),
        Some(h) => {
            if h.info.algo != algo.name() {
                bail!(
                    "the checkpoint is a {} run; it cannot continue as {}",
                    h.info.algo,
                    algo.name()
                );
            }
            let given = args.epsilon.is_some()
                || args.baseline.is_some()
                || args.rm_plus
                || args.alpha.is_some()
                || args.beta.is_some()
                || args.gamma.is_some()
                || args.epoch.is_some();
            if given && asked != h.params {
                bail!(
                    "the checkpoint was run with {:?}; the options ask for {asked:?}",
                    h.params
                );
            }
            if args.seed.is_some_and(|s| s != h.seed) {
                bail!("the checkpoint was run with --seed {}", h.seed);
            }
            if args.threads.is_some_and(|t| t != h.threads) {
                bail!(
                    "the checkpoint was run on {} threads; resume with the same (a sampling \
                     run's rounds, and so its results, depend on the thread count)",
                    h.threads
                );
            }
            if args.iterations.is_some_and(|n| n < h.iterations) {
                bail!(
                    "--iterations {}: the checkpoint already has {} (--iterations is the total)",
                    args.iterations.unwrap_or(0),
                    h.iterations
                );
            }
            (h.params, h.seed, h.threads)
        }
    };
    let mut files = FilePlan::new();
    files.game(&spec);
    if let Some(r) = &args.resume {
        files.input(r);
        files.replaceable(r);
    }
    for (what, path) in [
        ("-o", &args.output),
        ("--curve", &args.curve),
        ("--checkpoint", &args.checkpoint),
    ] {
        if let Some(p) = path {
            files.output(what, p);
        }
    }
    files.check()?;
    let plan = Plan {
        args,
        spec: spec.clone(),
        algo,
        params,
        seed,
        threads,
        header,
    };
    let rules = games::rules(&spec)?;
    let too_big = rules
        .as_ref()
        .is_some_and(|r| r.num_nodes().is_none_or(|n| n > games::MAX_BUILT_IN_NODES));
    match rules {
        Some(r) if args.rules || too_big => r.with(OnRules(&plan)),
        _ if args.rules => {
            bail!("{spec} has no rules stated in bluff; drop --rules to play its arena")
        }
        _ => {
            let game = games::load(&spec)?;
            solve(&plan, &game, Some(&game))
        }
    }
}

/// The sampling parameters `args` ask for.
fn params_from(args: &SolveArgs, algo: Algo) -> Result<MccfrParams> {
    let mut p = match algo {
        Algo::EsMccfr => {
            if args.epsilon.is_some() || args.baseline.is_some() {
                bail!("--epsilon and --baseline apply to os-mccfr");
            }
            MccfrParams::external()
        }
        _ => MccfrParams {
            baseline: args.baseline,
            ..MccfrParams::outcome(args.epsilon.unwrap_or(0.6))
        },
    };
    let d = RegretParams::vanilla_alternating();
    p.regret = RegretParams {
        floor: args.rm_plus,
        alpha: args.alpha.unwrap_or(d.alpha),
        beta: args.beta.unwrap_or(d.beta),
        gamma: args.gamma.unwrap_or(d.gamma),
        ..d
    };
    p.epoch = args.epoch.unwrap_or(1);
    p.check()?;
    Ok(p)
}

/// Runs [`solve`] on built-in rules.
struct OnRules<'a>(&'a Plan<'a>);

impl WithRules for OnRules<'_> {
    type Output = Result<()>;
    fn run<G: Rules>(self, rules: &G) -> Result<()> {
        solve(self.0, rules, None)
    }
}

/// The game's identity in checkpoints: the rules' name, or the arena's fingerprint.
fn game_id<G: Rules>(rules: &G, arena: Option<&Game>) -> String {
    match arena {
        Some(g) => format!(
            "arena:{:016x}",
            crate::format::checkpoint::game_fingerprint(g)
        ),
        None => format!("rules:{}", rules.name()),
    }
}

/// The exploitability of the solver's average strategy: the arena's best response when the
/// rules are that arena, the streaming one otherwise.
fn measure<G: Rules>(
    s: &MccfrSolver<G>,
    rules: &G,
    arena: Option<&Game>,
    threads: usize,
) -> Result<f64> {
    match arena {
        Some(game) => {
            Ok(crate::eval::exploitability(game, &s.average_profile(game)).exploitability)
        }
        None => {
            Ok(crate::streaming::best_responses::<_, f64, _>(rules, s, threads)?.exploitability)
        }
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), bytes.
fn peak_rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// The run itself, on `rules` (which are `arena` when that is given).
fn solve<G: Rules>(plan: &Plan, rules: &G, arena: Option<&Game>) -> Result<()> {
    let args = plan.args;
    let id = game_id(rules, arena);
    let (mut solver, mut info) = match (&args.resume, &plan.header) {
        (Some(path), Some(h)) => {
            if h.info.game_id != id {
                bail!(
                    "checkpoint {} was written for {} and this run plays {id} (the arena and the \
                     rules of a game number information sets differently: resume with or \
                     without --rules as the run started)",
                    path.display(),
                    h.info.game_id
                );
            }
            let (s, h) = checkpoint::load(path, rules)
                .with_context(|| format!("checkpoint {}", path.display()))?;
            (s, h.info)
        }
        _ => (
            MccfrSolver::new(rules, plan.params, plan.seed)?.with_threads(plan.threads)?,
            RunInfo {
                game_spec: plan.spec.clone(),
                game_id: id,
                algo: plan.algo.name().to_string(),
                solve_seconds: 0.0,
                points: Vec::new(),
            },
        ),
    };
    let first_iteration = solver.iterations();
    let earlier_seconds = info.solve_seconds;
    let br_threads = crate::solve::available_cores();
    // Measuring costs a whole best response: on an arena at iterations growing by half; on
    // rules only at the end, unless a target needs it on the way.
    let measuring = arena.is_some() || args.target.is_some();
    let limits = RunLimits {
        max_iterations: args.iterations,
        time: args.time.map(Duration::from_secs_f64),
        target: args.target,
        measure_growth: if measuring { 1.5 } else { 0.0 },
        measure_every: None,
        save_every: args.checkpoint.as_ref().map(|_| {
            Duration::from_secs_f64(
                args.checkpoint_every
                    .unwrap_or(super::DEFAULT_CHECKPOINT_SECONDS),
            )
        }),
    };
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
    bar.set_position(solver.iterations());
    crate::cli::signals::catch_stop_signals();
    let mut measure_error: Option<anyhow::Error> = None;
    let mut measured = |s: &MccfrSolver<G>| match measure(s, rules, arena, br_threads) {
        Ok(e) => e,
        Err(e) => {
            measure_error.get_or_insert(e);
            f64::NAN
        }
    };
    let save_path = args.checkpoint.clone();
    let mut save_error: Option<anyhow::Error> = None;
    let base_info = info.clone();
    let started = Instant::now();
    let mut save = |s: &MccfrSolver<G>| {
        if let Some(path) = &save_path {
            let mut i = base_info.clone();
            i.solve_seconds = earlier_seconds + started.elapsed().as_secs_f64();
            if let Err(e) = checkpoint::save(path, s, &i) {
                save_error.get_or_insert(e);
            }
        }
    };
    let (stop, points) = solver.run(
        &limits,
        if measuring { Some(&mut measured) } else { None },
        Some(&mut save),
        |p| {
            bar.set_position(p.iterations);
            let rate = (p.iterations - first_iteration) as f64 / p.seconds.max(1e-9);
            match p.point {
                Some(pt) => bar.set_message(format!(
                    "exploitability {:.3e}  {rate:.0} it/s",
                    pt.exploitability
                )),
                None => bar.set_message(format!("{rate:.0} it/s")),
            }
            if crate::cli::signals::stop_signal().is_some() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        },
    );
    bar.finish_and_clear();
    if let Some(e) = save_error.take().or(measure_error.take()) {
        return Err(e);
    }
    let session = points.last().map_or(0.0, |p| p.seconds).max(
        // Without measurements the session time is the wall time less nothing excluded.
        if measuring {
            0.0
        } else {
            started.elapsed().as_secs_f64()
        },
    );
    info.solve_seconds = earlier_seconds + session;
    info.points.extend(
        points
            .iter()
            .map(|p: &Point| (p.iteration, p.exploitability, earlier_seconds + p.seconds)),
    );
    // The final figure: the last measurement when it is of the final strategy, else one now.
    let (exploitability, br_seconds) = match points.last() {
        Some(p) if p.iteration == solver.iterations() => {
            (Some(p.exploitability), Some(p.measure_seconds))
        }
        _ if args.no_eval || stop == Stop::Interrupted => (None, None),
        _ => {
            let t0 = Instant::now();
            let e = measure(&solver, rules, arena, br_threads)?;
            info.points
                .push((solver.iterations(), e, info.solve_seconds));
            (Some(e), Some(t0.elapsed().as_secs_f64()))
        }
    };
    if let Some(path) = &args.checkpoint {
        checkpoint::save(path, &solver, &info)?;
    }
    if stop == Stop::Interrupted {
        let signal = crate::cli::signals::stop_signal().unwrap_or(crate::cli::signals::SIGINT);
        return Err(crate::cli::Interrupted {
            signal,
            message: format!(
                "interrupted after {} iterations; {}",
                solver.iterations(),
                match &args.checkpoint {
                    Some(p) => format!("saved checkpoint {}", p.display()),
                    None => "nothing was saved (use --checkpoint FILE)".into(),
                }
            ),
        }
        .into());
    }
    if let Some(path) = &args.output {
        let game = arena
            .context("-o writes an arena strategy; this run plays the rules (drop --rules)")?;
        let value = crate::format::strategy_json::profile_to_json(
            game,
            &plan.spec,
            &solver.average_profile(game),
        );
        let text = serde_json::to_string_pretty(&value).expect("JSON values serialise");
        write_output(path, (text + "\n").as_bytes())?;
    }
    if let Some(path) = &args.curve {
        let mut csv = String::from("iteration,exploitability,seconds\n");
        for (i, e, s) in &info.points {
            csv.push_str(&format!("{i},{e:e},{s:.6}\n"));
        }
        write_output(path, csv.as_bytes())?;
    }
    report(
        plan,
        &solver,
        &info,
        session,
        first_iteration,
        exploitability,
        br_seconds,
        arena.is_some(),
    )
}

/// Prints the summary (JSON or text).
#[allow(clippy::too_many_arguments)]
fn report<G: Rules>(
    plan: &Plan,
    s: &MccfrSolver<G>,
    info: &RunInfo,
    session: f64,
    first_iteration: u64,
    exploitability: Option<f64>,
    br_seconds: Option<f64>,
    on_arena: bool,
) -> Result<()> {
    let p = s.params();
    let rate = (s.iterations() - first_iteration) as f64 / session.max(1e-9);
    let (sampling, epsilon) = match p.sampling {
        Sampling::External => ("external", None),
        Sampling::Outcome { epsilon } => ("outcome", Some(epsilon)),
    };
    let finite = |x: f64| {
        if x.is_finite() {
            json!(x)
        } else {
            serde_json::Value::Null
        }
    };
    if plan.args.json {
        let summary = json!({
            "game": plan.spec,
            "algo": plan.algo.name(),
            "engine": if on_arena { "arena" } else { "rules" },
            "params": {
                "sampling": sampling,
                "epsilon": epsilon,
                "baseline": p.baseline,
                "rm_plus": p.regret.floor,
                "alpha": finite(p.regret.alpha),
                "beta": finite(p.regret.beta),
                "gamma": p.regret.gamma,
                "epoch": p.epoch,
            },
            "seed": s.seed(),
            "threads": s.threads(),
            "iterations": s.iterations(),
            "traversals": 2 * s.iterations(),
            "seconds": info.solve_seconds,
            "session_seconds": session,
            "iterations_per_second": rate,
            "traversals_per_second": 2.0 * rate,
            "exploitability": exploitability,
            "nash_conv": exploitability.map(|e| 2.0 * e),
            "best_response_seconds": br_seconds,
            "infosets": s.num_infosets(),
            "solver_bytes": s.memory_bytes(),
            "bytes_per_infoset": s.bytes_per_infoset(),
            "peak_rss_bytes": peak_rss(),
            "curve": info.points.iter().map(|(i, e, t)| json!([i, e, t])).collect::<Vec<_>>(),
        });
        crate::cli::print_json(&summary);
        return Ok(());
    }
    let to_stderr = plan.args.output.as_deref().is_some_and(is_stdout)
        || plan.args.curve.as_deref().is_some_and(is_stdout);
    let say = |line: String| {
        if to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    say(format!(
        "{} on {} ({} engine), seed {}, {}",
        plan.algo.name(),
        plan.spec,
        if on_arena { "arena" } else { "rules" },
        s.seed(),
        crate::cli::plural(s.threads(), "thread", "threads")
    ));
    say(format!(
        "{} iterations ({} traversals) in {:.3} s this session ({rate:.0} it/s); {:.3} s in all",
        s.iterations(),
        2 * s.iterations(),
        session,
        info.solve_seconds
    ));
    let [a, b] = s.num_infosets();
    say(format!(
        "information sets reached {a} + {b}; tables {} bytes ({:.1} per information set)",
        s.memory_bytes(),
        s.bytes_per_infoset()
    ));
    match (exploitability, br_seconds) {
        (Some(e), Some(t)) => say(format!(
            "average strategy: exploitability {e:.6e} ({} best response, {t:.3} s)",
            if on_arena { "the arena's" } else { "streaming" }
        )),
        _ => say("average strategy: exploitability not computed".into()),
    }
    for (what, path) in [
        ("strategy", &plan.args.output),
        ("curve", &plan.args.curve),
        ("checkpoint", &plan.args.checkpoint),
    ] {
        if let Some(p) = path {
            if !is_stdout(p) {
                say(format!("{what} written to {}", p.display()));
            }
        }
    }
    Ok(())
}
