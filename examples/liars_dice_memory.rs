//! Peak memory of liars dice with one die of `sides` faces on either kernel, past the built-in
//! catalog's node limit (`games::MAX_BUILT_IN_NODES`): builds the game, runs `iterations`
//! of vanilla CFR and prints one JSON line (nodes, terminals, solver bytes, seconds); run it
//! under `/usr/bin/time -v` for the peak resident set.
//!
//! Usage: `liars_dice_memory <sides> <tree|sequence> <iterations>`.

use bluff::cfr::{CfrSolver, Kernel, RegretParams};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [sides, kernel, iterations] = args.as_slice() else {
        anyhow::bail!("usage: liars_dice_memory <sides> <tree|sequence> <iterations>");
    };
    let kernel = Kernel::from_name(kernel).ok_or_else(|| anyhow::anyhow!("kernel {kernel:?}"))?;
    let start = Instant::now();
    let g = bluff::games::liars_dice::liars_dice(1, sides.parse()?, u64::MAX)?;
    let build = start.elapsed().as_secs_f64();
    let start = Instant::now();
    let mut solver = CfrSolver::with_kernel(&g, RegretParams::vanilla(), kernel)?;
    let compile = start.elapsed().as_secs_f64();
    let start = Instant::now();
    solver.iterate(iterations.parse()?);
    println!(
        "{}",
        serde_json::json!({
            "nodes": g.nodes.len(), "terminals": g.num_terminal_nodes(),
            "game_bytes": g.heap_bytes(), "solver_bytes": solver.memory_bytes(),
            "kernel": kernel.name(), "build_seconds": build, "compile_seconds": compile,
            "iterate_seconds": start.elapsed().as_secs_f64(),
        })
    );
    Ok(())
}
