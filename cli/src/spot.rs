//! `bluff solve SPOT.toml`: reading a hold'em spot file and presenting its run.

use anyhow::{bail, Context, Result};
use bluff::holdem::solver::{Deals, Game, DEFAULT_MAX_GAME_NODES};
use bluff::holdem::spot::{Spot, MAX_SPOT_BYTES};
use bluff::holdem::strategy_file::{self, Provenance};
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use bluff::solve::door::Solved;
use bluff::solve::spot::{Returned, SpotRun};
use bluff::solve::spot_lp::{SpotExactStats, SpotLp};
use serde_json::json;
use std::path::Path;

/// Whether a game argument names a spot file (by its `.toml` extension).
pub fn is_spot(game: &str) -> bool {
    std::path::Path::new(game)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"))
}

/// Reads a spot file, refusing one over the size limit before reading it.
pub fn read(path: &str) -> Result<String> {
    let meta = std::fs::metadata(path).with_context(|| format!("spot file {path}"))?;
    if meta.len() > MAX_SPOT_BYTES as u64 {
        bail!(
            "spot file {path}: {} bytes, more than the {MAX_SPOT_BYTES} a spot file may hold",
            meta.len()
        );
    }
    let bytes = std::fs::read(path).with_context(|| format!("spot file {path}"))?;
    String::from_utf8(bytes).with_context(|| format!("spot file {path}: not UTF-8 text"))
}

/// A spot file's starting pot (for the progress display), `None` when it does not parse (the
/// door says why).
pub fn pot_of(text: &str) -> Option<f64> {
    bluff::holdem::spot::Spot::parse(text)
        .ok()
        .map(|s| s.pot as f64)
}

/// Writes a spot's returned strategy to `path` (`-o`): the bytes and seconds it took.
pub fn write_strategy(
    path: &Path,
    solved: &Solved,
    returned: Option<&Returned>,
) -> Result<(u64, f64)> {
    let Some(returned) = returned else {
        bail!("this run kept no strategy to write");
    };
    let provenance = Provenance {
        algo: solved.algorithm.name.to_string(),
        iterations: solved.iterations,
        exploitability: solved.exploitability.as_ref().map(|v| v.to_f64()),
    };
    let start = std::time::Instant::now();
    let bytes = strategy_file::write(path, &returned.spot, &returned.solver, &provenance)
        .with_context(|| format!("-o {}", path.display()))?;
    Ok((bytes, start.elapsed().as_secs_f64()))
}

/// Prints a spot's run as JSON or as a table, after writing the strategy to `output`.
pub fn present(json: bool, output: Option<&Path>, solved: &Solved, run: &SpotRun) -> Result<()> {
    let written = match output {
        Some(path) => Some((path, write_strategy(path, solved, run.returned.as_ref())?)),
        None => None,
    };
    let expl = solved
        .exploitability
        .as_ref()
        .map_or(f64::NAN, |v| v.to_f64());
    if solved.interrupted() {
        let signal = crate::signals::stop_signal().unwrap_or(crate::signals::SIGINT);
        let mut saved: Vec<String> = Vec::new();
        if let Some((path, _)) = &run.checkpoint {
            saved.push(format!("checkpoint {}", path.display()));
        }
        if let Some((path, _)) = &written {
            saved.push(format!("strategy {}", path.display()));
        }
        return Err(crate::Interrupted {
            signal,
            message: format!(
                "interrupted by {} after {} iterations (exploitability {expl:.6e} chips); {}",
                crate::solve::signal_name(signal),
                solved.iterations,
                if saved.is_empty() {
                    "nothing was asked to be saved (use --checkpoint FILE and -o FILE)".to_string()
                } else {
                    format!("saved {}", saved.join(", "))
                }
            ),
        }
        .into());
    }
    if json {
        let v = json!({
            "game": solved.spec,
            "algo": solved.algorithm.name,
            "params": crate::solve::params_json(&run.params),
            "threads": run.threads,
            "iterations": solved.iterations,
            "seconds": solved.seconds,
            "build_seconds": run.build_seconds,
            "exploitability": expl,
            "exploitability_pot_pct": run.exploitability_pot_pct,
            "root_equity": run.root_equity,
            "root_ev": run.root_ev,
            "best_response": run.best_response,
            "pot": run.pot,
            "decision_nodes": run.counts.decision,
            "terminal_nodes": run.counts.terminal,
            "game_nodes": run.game_nodes,
            "state_bytes": run.state_bytes,
            "precision": run.precision.name(),
            "peak_rss_bytes": run.peak_rss_bytes,
        });
        let mut v = v;
        if let Some((path, bytes)) = &run.checkpoint {
            v["checkpoint"] = json!({"path": path.display().to_string(), "bytes": bytes});
        }
        if let Some(at) = run.resumed_at {
            v["resumed_at"] = json!(at);
        }
        if let Some((path, (bytes, seconds))) = written {
            v["strategy_file"] = json!({
                "path": path.display().to_string(),
                "bytes": bytes,
                "write_seconds": seconds,
            });
        }
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("spot          {}", solved.spec);
    println!(
        "algorithm     {} (gamma {}; {} threads)",
        solved.algorithm.name, run.params.gamma, run.threads
    );
    println!(
        "iterations    {} in {:.3} s (building {:.3} s)",
        solved.iterations, solved.seconds, run.build_seconds
    );
    println!(
        "exploitability {expl:.6} chips ({:.4}% of the pot of {})",
        run.exploitability_pot_pct, run.pot
    );
    println!(
        "root equity   OOP {:.5}  IP {:.5}",
        run.root_equity[0], run.root_equity[1]
    );
    println!(
        "root EV       OOP {:.4}  IP {:.4} (chips)",
        run.root_ev[0], run.root_ev[1]
    );
    println!(
        "tree          {} decision and {} terminal nodes (flop, turn, river: {:?} / {:?}); {} with the deals",
        run.counts.decision.iter().sum::<usize>(),
        run.counts.terminal.iter().sum::<usize>(),
        run.counts.decision,
        run.counts.terminal,
        run.game_nodes
    );
    if let Some(at) = run.resumed_at {
        println!("resumed from a checkpoint at iteration {at}");
    }
    if let Some((path, bytes)) = &run.checkpoint {
        println!(
            "checkpoint saved to {} ({})",
            path.display(),
            bluff::lp::memory::format_bytes(u128::from(*bytes))
        );
    }
    if let Some((path, (bytes, seconds))) = written {
        println!(
            "strategy written to {} ({}, {seconds:.2} s)",
            path.display(),
            bluff::lp::memory::format_bytes(u128::from(bytes))
        );
    }
    Ok(())
}

/// Reads and parses a spot file and expands its game (no solver state) as `bluff solve`
/// does: one subtree per group of deals equivalent under a suit swap, so a strategy file holds
/// the nodes the solver walked.
pub fn spot_and_game(path: &str) -> Result<(Spot, Game)> {
    let text = read(path)?;
    let spot = Spot::parse(&text).with_context(|| format!("spot file {path}"))?;
    let game = Game::build_with(&spot, DEFAULT_MAX_GAME_NODES, Deals::Isomorphic)
        .with_context(|| format!("spot file {path}"))?;
    Ok((spot, game))
}

/// `bluff eval SPOT.toml S`: the strategy file's exploitability, EVs and best responses by
/// the spot engine's walks.
pub fn eval(spot_path: &str, strategy: &Path, json: bool, exact: bool) -> Result<()> {
    let (spot, game) = spot_and_game(spot_path)?;
    let threads = bluff::solve::Threads::Available
        .count()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let root_equity = game.root_equity();
    let pot = game.pot;
    let bytes = 8 * (game.state_len[0] + game.state_len[1]) as u64;
    let budget = bluff::lp::memory::default_budget();
    if bytes > budget {
        bail!(
            "{spot_path}: evaluating needs {} for the strategy, more than 80% of the available \
             memory ({})",
            bluff::lp::memory::format_bytes(bytes as u128),
            bluff::lp::memory::format_bytes(budget as u128)
        );
    }
    let start = std::time::Instant::now();
    let (mut solver, header) = strategy_file::load(strategy, &spot, game, threads)
        .with_context(|| format!("strategy file {}", strategy.display()))?;
    let read_seconds = start.elapsed().as_secs_f64();
    let start = std::time::Instant::now();
    let v = solver.values();
    let eval_seconds = start.elapsed().as_secs_f64();
    let pct = v.exploitability / pot * 100.0;
    let exact = if exact {
        let start = std::time::Instant::now();
        let e = bluff::holdem::river_lp::exact_eval_file(
            &spot,
            &solver.game,
            strategy,
            bluff::holdem::reference::DEFAULT_MAX_NODES,
        )
        .with_context(|| format!("the exact evaluation of {}", strategy.display()))?;
        Some((e, start.elapsed().as_secs_f64()))
    } else {
        None
    };
    let both = |x: &Rational| json!({"exact": format_rational(x), "float": rational_to_f64(x)});
    if json {
        let mut out = json!({
            "game": spot_path,
            "strategy": strategy.display().to_string(),
            "exploitability": v.exploitability,
            "exploitability_pot_pct": pct,
            "root_equity": root_equity,
            "root_ev": v.ev,
            "best_response": v.best_response,
            "best_response_gain": [v.best_response[0] - v.ev[0], v.best_response[1] - v.ev[1]],
            "pot": pot,
            "algo": header.algo,
            "iterations": header.iterations,
            "read_seconds": read_seconds,
            "eval_seconds": eval_seconds,
        });
        if let Some((e, seconds)) = &exact {
            out["exploitability"] = both(&e.exploitability);
            out["exact"] = json!({
                "nash_conv": both(&e.nash_conv),
                "root_ev": [both(&e.value[0]), both(&e.value[1])],
                "best_response_gain": [both(&e.gain[0]), both(&e.gain[1])],
                "seconds": seconds,
            });
        }
        crate::print_json(&out);
        return Ok(());
    }
    println!("spot          {spot_path}");
    println!(
        "strategy      {} ({} after {} iterations)",
        strategy.display(),
        header.algo,
        header.iterations
    );
    println!(
        "exploitability {:.6} chips ({pct:.4}% of the pot of {pot})",
        v.exploitability
    );
    println!(
        "root equity   OOP {:.5}  IP {:.5}",
        root_equity[0], root_equity[1]
    );
    println!(
        "root EV       OOP {:.4}  IP {:.4} (chips)",
        v.ev[0], v.ev[1]
    );
    println!("read in {read_seconds:.2} s, evaluated in {eval_seconds:.2} s");
    if let Some((e, seconds)) = &exact {
        let digits = |x: &Rational| {
            format!(
                "{}/{} digits",
                x.numer().to_string().trim_start_matches('-').len(),
                x.denom().to_string().len()
            )
        };
        println!(
            "exact         exploitability {:.9} chips, gains OOP {:.9} IP {:.9} (computed in \
             rationals in {seconds:.2} s: {} for the exploitability; --json gives them exactly)",
            rational_to_f64(&e.exploitability),
            rational_to_f64(&e.gain[0]),
            rational_to_f64(&e.gain[1]),
            digits(&e.exploitability)
        );
    }
    println!(
        "best response OOP {:.4}  IP {:.4} (chips; gains {:.4} and {:.4})",
        v.best_response[0],
        v.best_response[1],
        v.best_response[0] - v.ev[0],
        v.best_response[1] - v.ev[1]
    );
    Ok(())
}

/// Arguments of `bluff export-strategy`.
#[derive(clap::Args, Debug)]
pub struct ExportStrategyArgs {
    /// The hold'em spot file (.toml).
    spot: String,
    /// The strategy file `bluff solve SPOT.toml -o S` wrote.
    strategy: std::path::PathBuf,
    /// The node: its path, e.g. `flop:check,bet94,call;turn:8d:check` (`flop` alone: the root).
    #[arg(long, value_name = "PATH")]
    node: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    json: bool,
}

/// `bluff export-strategy SPOT.toml S --node PATH`: one node's strategy, per hand.
pub fn export_strategy(args: ExportStrategyArgs) -> Result<()> {
    if !is_spot(&args.spot) {
        bail!(
            "{}: export-strategy reads hold'em spots (a .toml spot file)",
            args.spot
        );
    }
    let (spot, game) = spot_and_game(&args.spot)?;
    let node = strategy_file::node_strategy(&args.strategy, &spot, &game, &args.node).map_err(
        |e| match e {
            strategy_file::NodePathOrFile::Path(e) => anyhow::anyhow!("--node: {e}"),
            strategy_file::NodePathOrFile::File(e) => {
                anyhow::anyhow!("strategy file {}: {e}", args.strategy.display())
            }
        },
    )?;
    let player = ["oop", "ip"][node.player];
    if args.json {
        let hands: Vec<serde_json::Value> = node
            .hands
            .iter()
            .map(|h| {
                json!({
                    "hand": h.hand,
                    "weight": h.weight,
                    "reach": h.reach,
                    "strategy": node.actions.iter().zip(&h.strategy)
                        .map(|(a, p)| (a.clone(), json!(p)))
                        .collect::<serde_json::Map<String, serde_json::Value>>(),
                })
            })
            .collect();
        crate::print_json(&json!({
            "game": args.spot,
            "node": node.path,
            "player": player,
            "actions": node.actions,
            "hands": hands,
        }));
        return Ok(());
    }
    println!("node {} ({} to act)", node.path, player.to_uppercase());
    print!("{:<6} {:>8} {:>10}", "hand", "weight", "reach");
    for a in &node.actions {
        print!(" {a:>9}");
    }
    println!();
    for h in &node.hands {
        print!("{:<6} {:>8.4} {:>10.6}", h.hand, h.weight, h.reach);
        for p in &h.strategy {
            print!(" {p:>9.4}");
        }
        println!();
    }
    Ok(())
}

/// A pair of exact values as `{exact: [a, b], float: [a, b]}`.
fn exact_pair(v: &[Rational; 2]) -> serde_json::Value {
    json!({
        "exact": [format_rational(&v[0]), format_rational(&v[1])],
        "float": [rational_to_f64(&v[0]), rational_to_f64(&v[1])],
    })
}

/// Adds a river spot's fields to the exact LP's JSON summary.
pub fn add_lp_fields(summary: &mut serde_json::Value, run: &SpotLp) {
    let Some(map) = summary.as_object_mut() else {
        return;
    };
    let fields = json!({
        "pot": run.pot,
        "root_ev": exact_pair(&run.root_ev),
        "root_equity": exact_pair(&run.root_equity),
        "exploitability": "0",
        "exploitability_pot_pct": 0.0,
        "combos": run.size.combos,
        "compatible_pairs": run.size.pairs,
        "game_nodes": run.size.game_nodes,
        "payoff_nonzeros": match &run.stats {
            SpotExactStats::Lp(st) => Some(st.payoff_nonzeros),
            SpotExactStats::Lcp(_) => None,
        },
        "memory_estimate_bytes": u64::try_from(run.size.bytes).unwrap_or(u64::MAX),
    });
    if let Some(f) = fields.as_object() {
        for (k, v) in f {
            map.insert(k.clone(), v.clone());
        }
    }
}

/// [`add_lp_fields`] for a spot's exact run (nothing for another game), and the strategy
/// file written to `output` (its bytes and seconds) if any.
pub fn add_exact_fields(
    summary: &mut serde_json::Value,
    run: Option<&SpotLp>,
    output: Option<&Path>,
    file: Option<(u64, f64)>,
) {
    if let Some(run) = run {
        add_lp_fields(summary, run);
    }
    if let (Some(path), Some((bytes, seconds))) = (output, file) {
        summary["strategy_file"] = json!({
            "path": path.display().to_string(),
            "bytes": bytes,
            "write_seconds": seconds,
            "precision": "f32",
        });
    }
}

/// [`print_lp_lines`] for a spot's exact run, and the strategy file's line; whether a
/// strategy file was written.
pub fn print_exact_lines(
    run: Option<&SpotLp>,
    output: Option<&Path>,
    file: Option<(u64, f64)>,
) -> bool {
    if let Some(run) = run {
        print_lp_lines(run);
    }
    let (Some(path), Some((bytes, seconds))) = (output, file) else {
        return false;
    };
    println!(
        "strategy written to {} ({}, {seconds:.2} s; probabilities rounded to f32)",
        path.display(),
        bluff::lp::memory::format_bytes(u128::from(bytes))
    );
    true
}

/// Prints a river spot's lines after the exact LP's table.
pub fn print_lp_lines(run: &SpotLp) {
    println!(
        "spot: {} + {} combos, {} compatible pairs, pot {}",
        run.size.combos[0], run.size.combos[1], run.size.pairs, run.pot
    );
    println!(
        "root EV (chips): OOP {} (~ {:.6}), IP {} (~ {:.6}); exploitability exactly 0",
        format_rational(&run.root_ev[0]),
        rational_to_f64(&run.root_ev[0]),
        format_rational(&run.root_ev[1]),
        rational_to_f64(&run.root_ev[1])
    );
    println!(
        "root equity (checked down): OOP {:.6}, IP {:.6}",
        rational_to_f64(&run.root_equity[0]),
        rational_to_f64(&run.root_equity[1])
    );
}
