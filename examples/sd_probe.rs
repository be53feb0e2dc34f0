use bluff::eval::{expected_value, exploitability};
use bluff::games::shrek_donkey::{build_explicit, dp_profile};
use bluff::scalar::Rational;
use bluff::solve::card_guessing::CardGuessing;
use std::time::Instant;
fn main() {
    let max: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    for s in 0..=max {
        for m in 0..=s {
            let n = s - m;
            let t0 = Instant::now();
            let eg = build_explicit(m, n).unwrap();
            let tb = t0.elapsed();
            let t = CardGuessing::<Rational>::solve(m, n);
            let prof = dp_profile(&eg, &t);
            let e = exploitability(&eg.game, &prof);
            let v = expected_value(&eg.game, &prof);
            println!(
                "({m},{n}) nodes {} infosets {} build {:?} total {:?} nashconv {} value {} dp {}",
                eg.game.nodes.len(),
                eg.game.num_infosets(),
                tb,
                t0.elapsed(),
                e.nash_conv,
                v,
                t.win_probabilities().0
            );
        }
    }
}
