//! Times one CFR kernel for `bench/cfr_kernels.sh`: prints one JSON line with the iterations
//! per second (after a warm-up), the kernel's layout (nodes, terminals, non-zeros, bytes of
//! the matrix, bytes moved per iteration as computed from the layout) and the average
//! strategy's exploitability.
//!
//! Usage: `cfr_kernels <game> <tree|sequence> <threads> <cfr|cfr-alt|cfr+> <iterations>
//! [noeval]` (threads run every iteration on the team: the pacer's timing is left out;
//! `noeval` skips the exploitability, for runs under callgrind).

use bluff::cfr::{CfrSolver, Kernel, Pacing, RegretParams};
use bluff::eval::exploitability;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (args, eval) = match args.split_last() {
        Some((last, rest)) if last == "noeval" => (rest, false),
        _ => (args.as_slice(), true),
    };
    let [game, kernel, threads, algo, iterations] = args else {
        anyhow::bail!("usage: cfr_kernels <game> <tree|sequence> <threads> <algo> <iterations>");
    };
    let g = bluff::games::load(game)?.game;
    let params = match algo.as_str() {
        "cfr" => RegretParams::vanilla(),
        "cfr-alt" => RegretParams::vanilla_alternating(),
        "cfr+" => RegretParams::cfr_plus(),
        other => anyhow::bail!("algo {other:?}: expected cfr, cfr-alt or cfr+"),
    };
    let kernel = Kernel::from_name(kernel).ok_or_else(|| anyhow::anyhow!("kernel {kernel:?}"))?;
    let threads: usize = threads.parse()?;
    let iterations: u64 = iterations.parse()?;
    let build = Instant::now();
    let mut solver = CfrSolver::with_kernel(&g, params, kernel)?
        .with_pacing(Pacing::Team)
        .with_threads(threads)?;
    let build_seconds = build.elapsed().as_secs_f64();
    // Warm-up: a tenth of the run, at least one iteration.
    solver.iterate((iterations / 10).max(1));
    let start = Instant::now();
    solver.iterate(iterations);
    let seconds = start.elapsed().as_secs_f64();
    let e = eval.then(|| exploitability(&g, &solver.average_profile()).exploitability);
    let shape = solver.sequence_shape();
    println!(
        "{}",
        serde_json::json!({
            "game": game, "kernel": kernel.name(), "threads": threads, "algo": algo,
            "iterations": iterations, "seconds": seconds,
            "per_second": iterations as f64 / seconds,
            "build_seconds": build_seconds,
            "nodes": g.nodes.len(), "terminals": g.num_terminal_nodes(),
            "nonzeros": shape.map(|s| s.0), "matrix_bytes": shape.map(|s| s.1),
            "solver_bytes": solver.memory_bytes(),
            "bytes_per_iteration": solver.bytes_per_iteration(),
            "exploitability": e,
        })
    );
    Ok(())
}
