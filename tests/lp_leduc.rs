//! Leduc poker solved exactly by the sequence-form LP (release builds only: the debug profile
//! is far too slow for exact arithmetic at this size).

mod common;

use bluff::eval::exploitability;
use bluff::scalar::{format_rational, rational_to_f64};
use bluff::solve::sequence_form::solve_exact;
use num_traits::Zero;

#[test]
fn leduc_exact_value_matches_openspiel_float() {
    let game = common::leduc::leduc();
    let infosets = game.num_infosets();
    assert_eq!(
        infosets, 936,
        "OpenSpiel's Leduc has 936 information states"
    );
    let t = std::time::Instant::now();
    let s = solve_exact(&game).unwrap();
    eprintln!(
        "leduc: value {} = {:.15}, {:?}, {:?}",
        format_rational(&s.value),
        rational_to_f64(&s.value),
        s.stats,
        t.elapsed()
    );
    assert!((rational_to_f64(&s.value) - -0.085606424078).abs() < 1e-12);
    assert!(exploitability(&game, &s.profile).nash_conv.is_zero());
}
