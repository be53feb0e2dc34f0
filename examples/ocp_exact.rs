use bluff::solve::one_card::{exact::solve_exact, OcpParams};
fn main() {
    let mut worst = (0.0, (0, 0, 0));
    let mut fails = Vec::new();
    let mut total = 0.0;
    let mut count = 0;
    for n in (2..=50).step_by(3).chain([50]) {
        for (a, b) in [(1, 1), (2, 1), (20, 20), (1, 20), (20, 1), (3, 7), (7, 3), (10, 13)] {
            let p = OcpParams { n, ante: a, bet: b };
            let t = std::time::Instant::now();
            match solve_exact(&p) {
                Ok(s) => {
                    let e = t.elapsed().as_secs_f64();
                    total += e; count += 1;
                    if e > worst.0 { worst = (e, (n, a, b)); }
                    if e > 0.05 { println!("slow {n} {a} {b}: {:.1} ms, {} iters {} rounds", e * 1e3, s.cfr_iterations, s.rounds); }
                }
                Err(e) => fails.push(((n, a, b), e.to_string())),
            }
        }
    }
    println!("count {count} mean {:.1} ms worst {:?} fails {:?}", total / count as f64 * 1e3, worst, fails);
}
