//! CFR on the OpenSpiel benchmark games against OpenSpiel's own figures.

use bluff::cfr::{CfrSolver, RegretParams};
use bluff::eval::exploitability;
use bluff::games::load;

/// OpenSpiel 2.0.2's `CFRPlusSolver` reaches 4.5332e-5 after 1000 iterations on liars_dice
/// (1 die, 4 sides), the figure the DDCFR paper also reports (4.53e-5).
#[test]
fn cfr_plus_on_liars_dice_4_sides_matches_openspiel() {
    let game = load("liars-dice(sides=4)").unwrap().game;
    let mut solver = CfrSolver::new(&game, RegretParams::cfr_plus());
    solver.iterate(1000);
    let e = exploitability(&game, &solver.average_profile()).exploitability;
    assert!((e - 4.5332e-5).abs() < 5e-9, "{e}");
}
