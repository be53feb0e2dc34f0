//! `bluff solve SPOT.toml`: reading a hold'em spot file and presenting its run.

use anyhow::{bail, Context, Result};
use bluff::holdem::spot::MAX_SPOT_BYTES;
use bluff::scalar::{format_rational, rational_to_f64, Rational};
use bluff::solve::door::Solved;
use bluff::solve::spot::SpotRun;
use bluff::solve::spot_lp::SpotLp;
use serde_json::json;

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

/// Prints a spot's run as JSON or as a table.
pub fn present(json: bool, solved: &Solved, run: &SpotRun) -> Result<()> {
    let expl = solved
        .exploitability
        .as_ref()
        .map_or(f64::NAN, |v| v.to_f64());
    if json {
        let v = json!({
            "game": solved.spec,
            "algo": solved.algorithm.name,
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
            "peak_rss_bytes": run.peak_rss_bytes,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(());
    }
    println!("spot          {}", solved.spec);
    println!(
        "algorithm     {} ({} threads)",
        solved.algorithm.name, run.threads
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
        "payoff_nonzeros": run.stats.payoff_nonzeros,
        "memory_estimate_bytes": u64::try_from(run.size.bytes).unwrap_or(u64::MAX),
    });
    if let Some(f) = fields.as_object() {
        for (k, v) in f {
            map.insert(k.clone(), v.clone());
        }
    }
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
