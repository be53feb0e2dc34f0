use bluff::scalar::Rational;
use bluff::solve::card_guessing::CardGuessing;
use std::time::Instant;
fn main() {
    for s in [10usize, 16, 20, 24, 26, 28, 30] {
        let t0 = Instant::now();
        let t = CardGuessing::<Rational>::solve(s / 2, s - s / 2);
        let v = t.win_probabilities().0;
        println!(
            "m+n={s} time {:?} digits {}",
            t0.elapsed(),
            v.denom().to_string().len()
        );
        if t0.elapsed().as_secs() > 20 {
            break;
        }
    }
    let t0 = Instant::now();
    let t = CardGuessing::<f64>::solve(1000, 1000);
    println!(
        "f64 1000x1000 {:?} {}",
        t0.elapsed(),
        t.win_probabilities().0
    );
}
