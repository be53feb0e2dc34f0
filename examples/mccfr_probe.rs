//! Development probe: exploitability and rate of the sampling solvers on a built-in game.
//! usage: cargo run --release --example mccfr_probe -- GAME es|os|es+ ITERATIONS [SEED] [THREADS]
use bluff::eval::exploitability;
use bluff::solve::mccfr::{MccfrParams, MccfrSolver};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let game = bluff::games::load(&args[1]).unwrap();
    let params = match args[2].as_str() {
        "es" => MccfrParams::external(),
        "os" => MccfrParams::outcome(0.6),
        "osb" => MccfrParams {
            baseline: Some(0.5),
            ..MccfrParams::outcome(0.6)
        },
        _ => panic!("algo"),
    };
    let env = |k: &str| std::env::var(k).ok().map(|v| v.parse::<f64>().unwrap());
    let mut params = params;
    if let Some(x) = env("FLOOR") {
        params.regret.floor = x != 0.0;
    }
    if let Some(x) = env("GAMMA") {
        params.regret.gamma = x;
    }
    if let Some(x) = env("ALPHA") {
        params.regret.alpha = x;
    }
    if let Some(x) = env("BETA") {
        params.regret.beta = x;
    }
    if let Some(x) = env("EPOCH") {
        params.epoch = x as u64;
    }
    if let Some(x) = env("BASE") {
        params.baseline = Some(x);
    }
    if let Some(x) = env("EPS") {
        params.sampling = bluff::solve::mccfr::Sampling::Outcome { epsilon: x };
    }
    let total: u64 = args[3].parse().unwrap();
    let seed = args.get(4).map_or(0, |s| s.parse().unwrap());
    let threads = args.get(5).map_or(1, |s| s.parse().unwrap());
    let mut s = MccfrSolver::new(&game, params, seed)
        .unwrap()
        .with_threads(threads)
        .unwrap();
    let mut done = 0;
    let mut step = 1000u64;
    let mut secs = 0.0;
    while done < total {
        let k = step.min(total - done);
        let t = Instant::now();
        s.iterate(k);
        secs += t.elapsed().as_secs_f64();
        done = s.iterations();
        let e = exploitability(&game, &s.average_profile(&game)).exploitability;
        println!(
            "{done:>10} it  {secs:8.3} s  {:>9.0} it/s  expl {e:.6}",
            done as f64 / secs
        );
        step *= 2;
    }
    println!("bytes/infoset {:.1}", s.bytes_per_infoset());
}
