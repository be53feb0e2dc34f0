//! Exact sequence-form LCP (Lemke, dense fraction-free tableau) on growing zero-sum and
//! general-sum games: rows, pivots and wall time per solve, certificate included.
//! Run: `cargo bench --bench lcp` (a few seconds; prints a Markdown table).

use bluff::lcp::{lcp_rows, solve_lcp, LcpOptions};
use std::time::Instant;

fn main() {
    println!("| game | LCP rows | pivots | time (s) | value P1 |");
    println!("|---|---:|---:|---:|---|");
    let mut games = vec![(
        "kuhn".to_string(),
        bluff::games::kuhn::kuhn_poker().unwrap(),
    )];
    for n in [4, 6, 8, 10, 13] {
        games.push((
            format!("one-card-poker(n={n},a=2,b=1)"),
            bluff::problems::one_card_poker::game::one_card_poker(n, 2, 1).unwrap(),
        ));
    }
    for (name, game) in games {
        let start = Instant::now();
        let s = solve_lcp(&game, &LcpOptions::default()).unwrap();
        let secs = start.elapsed().as_secs_f64();
        println!(
            "| {name} | {} | {} | {secs:.3} | {} |",
            lcp_rows(&game),
            s.pivots,
            s.value[0]
        );
    }
}
