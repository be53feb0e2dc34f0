//! One-card poker benchmark: for N = 50 the time to a certified exact strategy, the contest
//! write-up's per-pair vanilla CFR at 100000 iterations and the vector-form vanilla CFR at the
//! same count, measured side by side in one run with both exploitabilities (gap to A/2 in chips,
//! from an f64 best response), plus vector CFR at N = 100000 and an exact-solver sweep.
//!
//! Run: `cargo bench --bench one_card_poker` (set `OCP_BENCH_ITERATIONS` to shorten the CFR
//! runs; the default is the write-up's 100000).

use bluff::problems::one_card_poker::exact::solve_exact;
use bluff::problems::one_card_poker::game::one_card_poker;
use bluff::problems::one_card_poker::per_pair::ArenaCfr;
use bluff::problems::one_card_poker::vector::{CfrVariant, VectorCfr};
use bluff::problems::one_card_poker::{from_profile, score, OcpParams};
use std::time::Instant;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let iterations: usize = std::env::var("OCP_BENCH_ITERATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    println!("one-card poker, N = 50, CFR iterations = {iterations}");
    println!("| A | B | exact: time (median of 21) | exact gap | per-pair CFR time | per-pair gap | vector CFR time | vector gap | max strategy diff | per-pair it/s | vector it/s | speed-up |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (ante, bet) in [(2, 1), (20, 20)] {
        let p = OcpParams { n: 50, ante, bet };
        let mut exact_times = Vec::new();
        let mut exact_gap = String::new();
        for _ in 0..21 {
            let t = Instant::now();
            let sol = solve_exact(&p).expect("certified");
            exact_times.push(t.elapsed().as_secs_f64());
            exact_gap = bluff::scalar::format_rational(&score(&p, &sol.strategy).gap);
        }
        let game = one_card_poker(p.n, ante, bet).expect("game builds");
        let t = Instant::now();
        let mut reference = ArenaCfr::new(&game);
        reference.run(iterations);
        let per_pair_time = t.elapsed().as_secs_f64();
        let per_pair_avg = from_profile(&game, &reference.average(), 0);
        let per_pair_gap = score(&p, &per_pair_avg).gap;
        let t = Instant::now();
        let mut vector = VectorCfr::new(p, CfrVariant::Vanilla);
        vector.run(iterations);
        let vector_time = t.elapsed().as_secs_f64();
        let vector_avg = vector.average();
        let vector_gap = score(&p, &vector_avg).gap;
        // Largest probability difference between the two runs' average strategies.
        let diff = per_pair_avg
            .parts()
            .iter()
            .zip(vector_avg.parts())
            .flat_map(|(x, y)| x.iter().zip(y.iter()).map(|(a, b)| (a - b).abs()))
            .fold(0.0f64, f64::max);
        let (pp_rate, v_rate) = (
            iterations as f64 / per_pair_time,
            iterations as f64 / vector_time,
        );
        println!(
            "| {ante} | {bet} | {:.2} ms | {exact_gap} (exact) | {:.2} s | {:.3e} | {:.3} s | {:.3e} | {:.1e} | {:.0} | {:.0} | {:.0}x |",
            median(exact_times) * 1e3,
            per_pair_time,
            per_pair_gap,
            vector_time,
            vector_gap,
            diff,
            pp_rate,
            v_rate,
            v_rate / pp_rate
        );
    }

    let big = OcpParams {
        n: 100_000,
        ante: 2,
        bet: 1,
    };
    let mut vector = VectorCfr::new(big, CfrVariant::Vanilla);
    let t = Instant::now();
    vector.run(50);
    let per_iteration = t.elapsed().as_secs_f64() / 50.0;
    println!(
        "\nvector CFR at N = 100000: {:.2} ms per iteration ({:.0} it/s); gap after 50 iterations {:.3e}",
        per_iteration * 1e3,
        1.0 / per_iteration,
        score(&big, &vector.average()).gap
    );

    let mut times = Vec::new();
    let mut worst = (0.0, (0, 0, 0));
    for n in 2..=50 {
        for (a, b) in [(1, 1), (2, 1), (1, 20), (20, 1), (20, 20), (3, 7), (13, 10)] {
            let p = OcpParams { n, ante: a, bet: b };
            let t = Instant::now();
            solve_exact(&p).unwrap_or_else(|e| panic!("N={n} A={a} B={b}: {e}"));
            let e = t.elapsed().as_secs_f64();
            if e > worst.0 {
                worst = (e, (n, a, b));
            }
            times.push(e);
        }
    }
    let count = times.len();
    let mean = times.iter().sum::<f64>() / count as f64;
    println!(
        "exact solver sweep: N = 2..=50 x 7 (A, B) pairs = {count} games, all certified; mean {:.1} ms, median {:.1} ms, worst {:.1} ms at (N, A, B) = {:?}",
        mean * 1e3,
        median(times) * 1e3,
        worst.0 * 1e3,
        worst.1
    );
}
