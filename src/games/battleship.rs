//! Battleship with OpenSpiel's rules (`battleship`) in the one-ship configurations the DDCFR
//! paper solves (github.com/rpSebastian/DDCFR, `ddcfr/game/game_config.py`, `BattleShip2` and
//! `BattleShip3`): a board `width` x `height` (2 x 2 or 2 x 3), one ship of length 2 and value
//! 2, 3 shots each, no repeated shots, loss multiplier 1 (zero-sum).
//!
//! Player 1 places the ship, then player 2 (not seeing it); then they shoot in turn, player 1
//! first, at cells they have not shot yet. The game ends once both have shot 3 times or a ship
//! is sunk (both its cells shot); sinking the opponent's ship wins 2, losing one's own loses 2,
//! else 0. There is no chance node. A player sees their own placement, every shot and whether
//! their own shots hit water, hit the ship or sank it. Information-set labels and action names
//! are OpenSpiel's strings (`T=4 /h_0_0/shot_1_0:W/oppshot_0_0`, `Pl0: shoot at (1, 0)`), but
//! for the two placement sets, `T=0` and `T=1`, whose OpenSpiel strings end in a space that
//! Gambit's label rule would strip in an `.efg` export.
//!
//! Only what these configurations need is modelled (one ship, so placements never overlap),
//! which keeps the builder a short loop; why a battleship at all: it is the DDCFR paper's game
//! without chance, whose value is decided by the placement guessing alone.

use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::int;

/// Length of the one ship.
const SHIP_LENGTH: usize = 2;
/// Its value: what sinking it wins.
const SHIP_VALUE: i64 = 2;
/// Shots per player.
const SHOTS: usize = 3;

/// A ship placement: cells covered and OpenSpiel's two strings for it.
struct Placement {
    cells: [usize; SHIP_LENGTH],
    /// `h_0_0` (direction, top-left row and column), as in information states.
    short: String,
    /// The action name without the player prefix.
    long: String,
}

/// The placements in OpenSpiel's `LegalActions` order: horizontal by row then column, then
/// vertical likewise.
fn placements(width: usize, height: usize) -> Vec<Placement> {
    let mut out = Vec::new();
    for row in 0..height {
        for col in 0..width + 1 - SHIP_LENGTH.min(width + 1) {
            out.push(Placement {
                cells: [row * width + col, row * width + col + 1],
                short: format!("h_{row}_{col}"),
                long: format!("place ship horizontally with top-left corner in ({row}, {col})"),
            });
        }
    }
    for row in 0..height + 1 - SHIP_LENGTH.min(height + 1) {
        for col in 0..width {
            out.push(Placement {
                cells: [row * width + col, (row + 1) * width + col],
                short: format!("v_{row}_{col}"),
                long: format!("place ship vertically with top-left corner in ({row}, {col})"),
            });
        }
    }
    out
}

/// A node still to be filled in: both placements known, `shots` so far (alternating, player
/// 1 first) and the information-state suffix each player has seen.
struct Pending {
    node: NodeRef,
    ships: [usize; 2],
    shots: Vec<usize>,
    seen: [String; 2],
}

/// Builds battleship on a `width` x `height` board (cells are numbered row by row).
pub fn battleship(width: usize, height: usize) -> Result<Game, GameError> {
    let places = placements(width, height);
    let cells = width * height;
    let shot_name = |c: usize| format!("{}_{}", c / width, c % width);
    let mut b = GameBuilder::new(format!("battleship-{width}x{height}"), "P1", "P2");
    let root = b.root();
    let names = |p: usize| -> Vec<String> {
        places
            .iter()
            .map(|pl| format!("Pl{p}: {}", pl.long))
            .collect()
    };
    let first = b.decision(root, 0, "T=0", &names(0))?;
    let mut stack = Vec::new();
    for (i0, &n0) in first.iter().enumerate() {
        let second = b.decision(n0, 1, "T=1", &names(1))?;
        for (i1, &n1) in second.iter().enumerate() {
            stack.push(Pending {
                node: n1,
                ships: [i0, i1],
                shots: Vec::new(),
                seen: [
                    format!("/{}", places[i0].short),
                    format!("/{}", places[i1].short),
                ],
            });
        }
    }
    // Explicit stack: no recursion on the game's depth.
    while let Some(Pending {
        node,
        ships,
        shots,
        seen,
    }) = stack.pop()
    {
        let p = shots.len() % 2;
        let mine: Vec<usize> = shots.iter().skip(p).step_by(2).copied().collect();
        let targets: Vec<usize> = (0..cells).filter(|c| !mine.contains(c)).collect();
        let actions: Vec<String> = targets
            .iter()
            .map(|&c| format!("Pl{p}: shoot at ({}, {})", c / width, c % width))
            .collect();
        let label = format!("T={} {}", 2 + shots.len(), seen[p]);
        let children = b.decision(node, p, &label, &actions)?;
        for (&c, &child) in targets.iter().zip(&children) {
            let ship = &places[ships[1 - p]].cells;
            let hits = mine.iter().chain([&c]).filter(|x| ship.contains(x)).count();
            let outcome = match (ship.contains(&c), hits == SHIP_LENGTH) {
                (false, _) => 'W',
                (true, false) => 'H',
                (true, true) => 'S',
            };
            if outcome == 'S' {
                let payoff0 = if p == 0 { SHIP_VALUE } else { -SHIP_VALUE };
                b.terminal_zero_sum(child, int(payoff0))?;
                continue;
            }
            if shots.len() + 1 == 2 * SHOTS {
                b.terminal_zero_sum(child, int(0))?;
                continue;
            }
            let mut next = shots.clone();
            next.push(c);
            let mut seen = seen.clone();
            seen[p].push_str(&format!("/shot_{}:{outcome}", shot_name(c)));
            seen[1 - p].push_str(&format!("/oppshot_{}", shot_name(c)));
            stack.push(Pending {
                node: child,
                ships,
                shots: next,
                seen,
            });
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::exploitability;
    use crate::strategy::Profile;

    /// OpenSpiel 2.0.2 (pyspiel) counts for `battleship(board_width=2, board_height=h,
    /// ship_sizes=[2], ship_values=[2], num_shots=3, allow_repeated_shots=False)`: every
    /// history, terminal histories, information states per player.
    #[test]
    fn counts_match_openspiel() {
        for (height, nodes, terminals, sets) in [
            (2, 10_069, 5_568, [1_413, 1_873]),
            (3, 732_607, 552_132, [18_152, 62_875]),
        ] {
            let g = battleship(2, height).unwrap();
            assert_eq!(g.nodes.len(), nodes, "2x{height}");
            assert_eq!(g.num_terminal_nodes(), terminals, "2x{height}");
            assert_eq!([g.infosets[0].len(), g.infosets[1].len()], sets);
        }
    }

    #[test]
    fn labels_are_openspiel_strings() {
        let g = battleship(2, 3).unwrap();
        // pyspiel: after placements 9, 9 (h_0_0 both) and P1 shooting (0, 0), P2's state.
        assert!(g.find_infoset(1, "T=3 /h_0_0/oppshot_0_0").is_some());
        assert!(g
            .find_infoset(0, "T=4 /h_0_0/shot_0_0:H/oppshot_1_0")
            .is_some());
        assert!(g.find_infoset(0, "T=0").is_some());
    }

    /// OpenSpiel 2.0.2's `exploitability.exploitability` of the uniform policy.
    #[test]
    fn uniform_policy_exploitability_matches_openspiel() {
        for (height, expected) in [(2, 0.5), (3, 0.4571428571428572)] {
            let g = battleship(2, height).unwrap();
            let e = exploitability(&g, &Profile::<f64>::uniform(&g)).exploitability;
            assert!((e - expected).abs() < 1e-12, "2x{height}: {e}");
        }
    }
}
