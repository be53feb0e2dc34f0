//! Measures the card-guessing routes side by side, in one run:
//! the explicit game's size and build time, certifying the DP's strategies with exact best
//! responses, solving the explicit game by the exact sequence-form LP, and the DP itself (exact
//! and f64).
//!
//! `cargo run --release --example shrek_donkey_scaling -- [max explicit m+n, default 4]
//! [max LP m+n, default 3] [max exact DP m+n, default 24]`

use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::problems::card_guessing::explicit::{build_explicit, dp_profile};
use bluff::problems::card_guessing::CardGuessing;
use bluff::scalar::Rational;
use num_traits::Zero;
use std::time::Instant;

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .nth(i)
        .map_or(default, |a| a.parse().expect("a whole number"))
}

fn main() {
    let (max_explicit, max_lp, max_exact) = (arg(1, 4), arg(2, 3), arg(3, 24));
    println!("(m,n)   nodes   infosets  build_s  certify_s  lp_s     lp/certify  value");
    for s in 0..=max_explicit {
        for m in 0..=s {
            let n = s - m;
            let t = Instant::now();
            let eg = build_explicit(m, n).expect("within the size limit");
            let build = t.elapsed().as_secs_f64();
            let t = Instant::now();
            let table = CardGuessing::<Rational>::solve(m, n);
            let e = exploitability(&eg.game, &dp_profile(&eg, &table));
            let certify = t.elapsed().as_secs_f64();
            assert!(e.nash_conv.is_zero());
            let value = table.win_probabilities().0;
            let (lp, ratio) = if s <= max_lp {
                let t = Instant::now();
                let sol = solve_exact(&eg.game).expect("the LP solves");
                let lp = t.elapsed().as_secs_f64();
                assert_eq!(sol.value, value);
                (format!("{lp:.4}"), format!("{:.1}", lp / certify))
            } else {
                ("-".into(), "-".into())
            };
            println!(
                "({m},{n})  {:>7}  {:>8}  {build:.4}   {certify:.4}     {lp:<8} {ratio:<11} {value}",
                eg.game.nodes.len(),
                eg.game.num_infosets()
            );
        }
    }
    println!("\nm+n  exact_dp_s  f64_dp_s    digits  exact/f64");
    for s in (4..=max_exact).step_by(4) {
        let (m, n) = (s / 2, s - s / 2);
        let t = Instant::now();
        let exact = CardGuessing::<Rational>::solve(m, n);
        let te = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let float = CardGuessing::<f64>::solve(m, n);
        let tf = t.elapsed().as_secs_f64();
        let (v, f) = (exact.win_probabilities().0, float.win_probabilities().0);
        let err = (bluff::scalar::rational_to_f64(&v) - f).abs();
        println!(
            "{s:<4} {te:<11.5} {tf:<11.7} {:<7} {:<9.0} |f64 - exact| = {err:.1e}",
            v.denom().to_string().len(),
            te / tf
        );
    }
    let t = Instant::now();
    let big = CardGuessing::<f64>::solve(1000, 1000);
    println!(
        "\nf64 DP at m = n = 1000: {:.4} s, Shrek wins with {}",
        t.elapsed().as_secs_f64(),
        big.win_probabilities().0
    );
}
