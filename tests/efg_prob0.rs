//! Regression: a chance branch of probability 0 (sharing an information set with a live branch)
//! must still give a true equilibrium. The live part is the 2x2 game [[3, -1], [-2, 1]], whose
//! value by the indifference conditions is 1/7 (P1 plays H with 3/7, P2 h with 2/7).

use bluff::eval::exploitability;
use bluff::exact::solve_exact;
use bluff::scalar::rat;
use num_traits::Zero;

#[test]
fn probability_zero_branch_gives_a_true_equilibrium() {
    let path = format!("{}/tests/data/prob0_chance.efg", env!("CARGO_MANIFEST_DIR"));
    let game = bluff::games::load(&path).unwrap().game;
    assert!(game.chance_prob.iter().any(|p| p.is_zero()));
    let solution = solve_exact(&game).unwrap();
    assert_eq!(solution.value, rat(1, 7));
    // The exact best responses (which also choose actions at the unreached sets) find no gain.
    let e = exploitability(&game, &solution.profile);
    assert!(e.nash_conv.is_zero(), "NashConv {}", e.nash_conv);
    assert_eq!(e.value[0], rat(1, 7));
    let live = game.find_infoset(0, "P1 live").unwrap();
    let p1 = solution.profile.infoset_probs(&game, 0, live);
    assert_eq!(p1, &[rat(3, 7), rat(4, 7)]);
    let guess = game.find_infoset(1, "P2 guess").unwrap();
    assert_eq!(
        solution.profile.infoset_probs(&game, 1, guess),
        &[rat(2, 7), rat(5, 7)]
    );
}
