//! Times bluff's CFR solvers for `bench/cfr_vs_openspiel.sh`: prints one JSON line per
//! (algorithm, iteration count) with the solve time and the average strategy's exploitability
//! (from `bluff::eval`, f64), so the script can set it beside OpenSpiel's numbers.
//!
//! Usage: `cfr_throughput <game> <algo: cfr|cfr+> <threads> <N1,N2,...>`; iteration counts
//! are cumulative checkpoints of one run, and evaluation time is not counted as solve time.

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::eval::exploitability;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [game, algo, threads, counts] = args.as_slice() else {
        anyhow::bail!("usage: cfr_throughput <game> <cfr|cfr+> <threads> <N1,N2,...>");
    };
    let g = bluff::games::load(game)?.game;
    // OpenSpiel's CFRSolver and CFRPlusSolver both use alternating updates.
    let params = match algo.as_str() {
        "cfr" => RegretParams::vanilla_alternating(),
        "cfr+" => RegretParams::cfr_plus(),
        other => anyhow::bail!("algo {other:?}: expected cfr or cfr+"),
    };
    let threads: usize = threads.parse()?;
    let mut solver = CfrSolver::new(&g, params).with_threads(threads)?;
    let mut solve_seconds = 0.0;
    for count in counts.split(',') {
        let target: u64 = count.trim().parse()?;
        let start = Instant::now();
        solver.iterate(target.saturating_sub(solver.iterations()));
        solve_seconds += start.elapsed().as_secs_f64();
        let e = exploitability(&g, &solver.average_profile()).exploitability;
        println!(
            "{}",
            serde_json::json!({
                "game": game, "algo": algo, "threads": threads,
                "iterations": solver.iterations(), "seconds": solve_seconds,
                "exploitability": e,
            })
        );
    }
    Ok(())
}
