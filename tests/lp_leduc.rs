//! Leduc poker solved exactly by the sequence-form LP (release builds only: the debug profile
//! is far too slow for exact arithmetic at this size).

mod common;

use bluff::eval::{expected_value, exploitability};
use bluff::exact::solve_exact;
use bluff::scalar::{format_rational, rational_to_f64};
use bluff::strategy::ExactProfile;
use num_traits::Zero;

/// The registry's Leduc is the game that an independently written builder (tests/common) makes:
/// same size, and the same exact value and best-response values under uniform play.
#[test]
fn registry_leduc_equals_the_independent_builder() {
    let ours = bluff::games::load("leduc").unwrap().game;
    let other = common::leduc::leduc();
    assert_eq!(ours.nodes.len(), other.nodes.len());
    assert_eq!(ours.num_infosets(), other.num_infosets());
    let (u, v) = (ExactProfile::uniform(&ours), ExactProfile::uniform(&other));
    assert_eq!(expected_value(&ours, &u), expected_value(&other, &v));
    let (a, b) = (exploitability(&ours, &u), exploitability(&other, &v));
    assert_eq!(a.best_response_value, b.best_response_value);
}

#[test]
fn leduc_exact_value_matches_openspiel_float() {
    let game = bluff::games::load("leduc").unwrap().game;
    assert_eq!(
        game.num_infosets(),
        936,
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
    // OpenSpiel's published float value (docs/games.md, reference values).
    assert!((rational_to_f64(&s.value) - -0.085606424078).abs() < 1e-12);
    let e = exploitability(&game, &s.profile);
    assert!(e.nash_conv.is_zero());
    assert_eq!(e.value[0], s.value);
}
