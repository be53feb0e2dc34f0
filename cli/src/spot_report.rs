//! `bluff report SPOT.toml S -o spot.html`: the range-grid page of a hold'em spot's strategy
//! file ([`bluff::holdem::report`] computes, [`bluff::report::spot`] presents).

use crate::files::write_output;
use anyhow::{bail, Context, Result};
use bluff::holdem::report::{build, DEFAULT_MAX_NODES, MAX_MAX_NODES};
use bluff::holdem::strategy_file;
use bluff::report::spot::{render, SpotPage};
use std::path::Path;

/// Writes the page of `strategy` (a file `bluff solve SPOT.toml -o S` wrote) for the spot at
/// `spot_path` to `output`; nothing is written when anything is refused.
pub fn run(
    spot_path: &str,
    strategy: Option<&Path>,
    output: &Path,
    max_nodes: Option<usize>,
) -> Result<()> {
    let Some(strategy) = strategy else {
        bail!(
            "{spot_path}: a spot's report reads a strategy file: write one with \
             `bluff solve {spot_path} -o S`, then `bluff report {spot_path} S -o PAGE.html`"
        );
    };
    let max_nodes = max_nodes.unwrap_or(DEFAULT_MAX_NODES);
    if max_nodes == 0 || max_nodes > MAX_MAX_NODES {
        bail!("--max-nodes {max_nodes}: expected 1 to {MAX_MAX_NODES}");
    }
    let mut plan = crate::files::FilePlan::new();
    plan.input(Path::new(spot_path));
    plan.input(strategy);
    plan.output("-o", output);
    plan.check()?;
    let (spot, game) = crate::spot::spot_and_game(spot_path)?;
    // The evaluator's strategy array, then the page's per-hand data (about 8 numbers of 8
    // bytes per hand and action of each embedded node), before allocating either.
    let state = 8 * (game.state_len[0] + game.state_len[1]) as u64;
    let hands = game.hands[0].len().max(game.hands[1].len()) as u64;
    let page = max_nodes as u64 * hands * 8 * 16;
    let budget = bluff::lp::memory::default_budget();
    if state + page > budget {
        bail!(
            "{spot_path}: the report needs about {} for the strategy and {} for the page's \
             data, more than 80% of the available memory ({})",
            bluff::lp::memory::format_bytes(state as u128),
            bluff::lp::memory::format_bytes(page as u128),
            bluff::lp::memory::format_bytes(budget as u128)
        );
    }
    let threads = bluff::solve::Threads::Available
        .count()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let (mut solver, header) = strategy_file::load(strategy, &spot, game, threads)
        .with_context(|| format!("strategy file {}", strategy.display()))?;
    let data = build(&mut solver, &spot.board.to_string(), max_nodes)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let provenance = format!(
        "Strategy {} ({} after {} iterations{}).",
        strategy.display(),
        header.algo,
        header.iterations,
        header.exploitability.map_or(String::new(), |e| format!(
            ", exploitability {e:.4} chips when written"
        ))
    );
    let page = SpotPage {
        spot: spot_path.to_string(),
        provenance,
    };
    let html = render(&page, &data);
    write_output(output, html.as_bytes())?;
    println!(
        "wrote {} ({}; per-hand data for {} of {} decision nodes)",
        output.display(),
        bluff::lp::memory::format_bytes(html.len() as u128),
        data.embedded,
        data.decision_nodes
    );
    Ok(())
}
