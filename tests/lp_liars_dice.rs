//! Liar's dice with one six-sided die each (OpenSpiel's `liars_dice`, 24 576 information sets)
//! solved exactly by the sequence-form LP (24 572 rows x 24 572 variables once the one-action sets
//! are merged). Release builds only; a few seconds here (about 7700 float pivots).

use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::scalar::{format_rational, rat, rational_to_f64};
use num_traits::Zero;

#[test]
fn liars_dice_six_sides_exact_value() {
    let game = bluff::games::load("liars-dice(dice=1,sides=6)")
        .unwrap()
        .game;
    assert_eq!(game.num_infosets(), 24_576, "OpenSpiel's count");
    let s = solve_exact(&game).unwrap();
    eprintln!(
        "liars-dice(dice=1,sides=6): value {} = {:.15}, {:?}",
        format_rational(&s.value),
        rational_to_f64(&s.value),
        s.stats
    );
    // Independent checks: OpenSpiel's test pins -0.027131782945736 for the first player, and
    // exact best responses against the LP's strategies (no LP involved) give NashConv exactly 0
    // and the same value.
    assert!((rational_to_f64(&s.value) - -0.027131782945736).abs() < 1e-14);
    let e = exploitability(&game, &s.profile);
    assert!(e.nash_conv.is_zero());
    assert_eq!(e.value[0], s.value);
    // The exact value this computes (no closed form was published before).
    assert_eq!(s.value, rat(-7, 258));
}
