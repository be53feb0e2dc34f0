//! The effect of pruning zero-reach subtrees, for `bench/cfr_pruning.sh`: runs one game and
//! algorithm with pruning off and on (same thread count, taken in turns, best of `reps`) and
//! prints one JSON line with both rates, the fraction of nodes the pruned passes visited and
//! whether the two end states are bit-identical.
//!
//! Usage: `cfr_pruning <game> <cfr|cfr+|dcfr|pcfr+> <threads> <iterations> <reps>`

use bluff::cfr::{CfrSolver, RegretParams};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, algo, threads, iterations, reps] = args.as_slice() else {
        anyhow::bail!(
            "usage: cfr_pruning <game> <cfr|cfr+|dcfr|pcfr+> <threads> <iterations> <reps>"
        );
    };
    let g = bluff::games::load(game)?.game;
    let params = match algo.as_str() {
        "cfr" => RegretParams::vanilla(),
        "cfr+" => RegretParams::cfr_plus(),
        "dcfr" => RegretParams::discounted_default(),
        "pcfr+" => RegretParams::predictive_plus(),
        other => anyhow::bail!("algo {other:?}: expected cfr, cfr+, dcfr or pcfr+"),
    };
    let threads: usize = threads.parse()?;
    let n: u64 = iterations.parse()?;
    let reps: usize = reps.parse()?;
    let mut best = [0.0f64; 2];
    let mut states = [None, None];
    let mut visited = 0usize;
    for _ in 0..reps {
        for (k, prune) in [false, true].into_iter().enumerate() {
            let mut s = CfrSolver::new(&g, params)
                .with_threads(threads)?
                .with_pruning(prune);
            let start = Instant::now();
            let mut seen = 0usize;
            for _ in 0..n {
                s.iterate(1);
                seen += s.live_nodes();
            }
            let rate = n as f64 / start.elapsed().as_secs_f64();
            best[k] = best[k].max(rate);
            if prune {
                visited = seen;
            }
            states[k] = Some(s.state());
        }
    }
    println!(
        "{}",
        serde_json::json!({
            "game": game, "algo": algo, "threads": threads, "iterations": n,
            "nodes": g.nodes.len(),
            "unpruned_it_per_s": best[0], "pruned_it_per_s": best[1],
            "visited_fraction": visited as f64 / (n as f64 * g.nodes.len() as f64),
            "identical": states[0] == states[1],
        })
    );
    Ok(())
}
