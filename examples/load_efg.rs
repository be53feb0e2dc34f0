//! Loads a `.efg` file and prints its size, load time, MB/s and the game's heap estimate, for
//! measuring peak RSS with `/usr/bin/time -v cargo run --release --example load_efg FILE`.

use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let path = std::env::args()
        .nth(1)
        .ok_or_else(|| anyhow::anyhow!("usage: load_efg FILE.efg"))?;
    let bytes = std::fs::metadata(&path)?.len() as f64;
    let start = Instant::now();
    let (game, _warnings) = bluff::format::efg::load_efg_file(std::path::Path::new(&path))?;
    let secs = start.elapsed().as_secs_f64();
    let n = game.nodes.len();
    println!(
        "{n} nodes, {} information sets, {:.1} MB in {secs:.2} s = {:.1} MB/s; game heap {:.0} bytes/node",
        game.num_infosets(),
        bytes / 1e6,
        bytes / 1e6 / secs,
        game.heap_bytes() as f64 / n as f64
    );
    Ok(())
}
