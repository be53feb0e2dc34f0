//! Liar's dice with OpenSpiel's rules (`liars_dice`, bidding rule `reset-face`, two players).
//!
//! Each player rolls `dice` dice of `sides` faces (player 1's dice first, one chance node per
//! die, outcomes `Roll 1` .. `Roll <sides>`). Players then bid in turn, player 1 first: a bid
//! `q-f` claims that at least `q` of all `2 * dice` dice show face `f`. Bids are ranked by
//! quantity, then face (`1-1 < 1-2 < ... < 1-<sides> < 2-1 < ...`), each bid must rank above
//! the last, and after the first bid a player may call `Liar` instead. The highest face is
//! wild: it matches every bid. On a call the bid is checked; if it holds the bidder wins 1 and
//! the caller loses 1, otherwise the other way round.
//!
//! Information-set labels are OpenSpiel's information-state strings: the player's own dice,
//! sorted, then the bids so far (`25 1-3 2-1`), so a player does not tell apart two rolls of
//! the same dice in a different order, exactly as in OpenSpiel.

use crate::error::{fail, Error, Result};
use crate::game::{Game, GameBuilder, GameError, NodeRef};
use crate::scalar::int;

/// Number of nodes of `liars-dice(dice, sides)`, or `None` if it overflows `u64`.
pub fn num_nodes(dice: u32, sides: u32) -> Option<u64> {
    let rolls = 2 * dice;
    let sides = sides as u64;
    // Chance nodes: one per prefix of the roll sequence.
    let mut chance: u64 = 0;
    let mut prefixes: u64 = 1;
    for _ in 0..rolls {
        chance = chance.checked_add(prefixes)?;
        prefixes = prefixes.checked_mul(sides)?;
    }
    // After each full roll: every increasing bid sequence is a decision node (2^bids) and every
    // non-empty one also ends in a `Liar` terminal.
    let bids = rolls as u64 * sides;
    let per_deal = 1u64
        .checked_shl(u32::try_from(bids + 1).ok()?)?
        .checked_sub(1)?;
    chance.checked_add(prefixes.checked_mul(per_deal)?)
}

/// Builds `liars-dice(dice, sides)`; refuses trees above `max_nodes` before allocating.
pub fn liars_dice(dice: u32, sides: u32, max_nodes: u64) -> Result<Game> {
    if dice == 0 || sides < 2 {
        fail!(
            Invalid,
            "liars-dice needs dice >= 1 and sides >= 2 (got dice={dice}, sides={sides})"
        );
    }
    match num_nodes(dice, sides) {
        Some(n) if n <= max_nodes => {}
        n => {
            return Err(Error::TooBig {
                what: format!("liars-dice(dice={dice},sides={sides})"),
                size: n.map_or("more than 1.8e19 nodes".to_string(), |n| {
                    format!("{n} nodes")
                }),
                limit: max_nodes.to_string(),
            })
        }
    }
    Ok(build(dice as usize, sides as usize)?)
}

/// A node still to be filled in, with what it needs to know.
enum Pending {
    /// Die number `rolled.len()` is about to be rolled (player 1's dice first).
    Roll { node: NodeRef, rolled: Vec<u8> },
    /// `player` bids or calls; `last` is the last bid's rank.
    Bid {
        node: NodeRef,
        deal: usize,
        player: usize,
        last: Option<usize>,
        history: String,
    },
}

/// A full roll: each player's sorted dice label and, per face, how many dice match it.
struct Deal {
    labels: [String; 2],
    matches: Vec<usize>,
}

fn build(dice: usize, sides: usize) -> Result<Game, GameError> {
    let num_bids = 2 * dice * sides;
    let bid_names: Vec<String> = (0..num_bids)
        .map(|b| format!("{}-{}", b / sides + 1, b % sides + 1))
        .collect();
    let roll_names: Vec<String> = (1..=sides).map(|f| format!("Roll {f}")).collect();
    let mut b = GameBuilder::new(format!("liars-dice(dice={dice},sides={sides})"), "P1", "P2");
    let mut deals: Vec<Deal> = Vec::new();
    // Reused between nodes: the set label and the action list.
    let mut label = String::new();
    let mut actions: Vec<&str> = Vec::with_capacity(num_bids + 1);
    // Explicit stack: no recursion on the game's depth.
    let mut stack = vec![Pending::Roll {
        node: b.root(),
        rolled: Vec::new(),
    }];
    while let Some(item) = stack.pop() {
        match item {
            Pending::Roll { node, rolled } if rolled.len() < 2 * dice => {
                let children = b.chance_uniform(node, roll_names.clone())?;
                for (face, child) in children.into_iter().enumerate() {
                    let mut rolled = rolled.clone();
                    rolled.push(face as u8 + 1);
                    stack.push(Pending::Roll {
                        node: child,
                        rolled,
                    });
                }
            }
            Pending::Roll { node, rolled } => {
                let labels = [0, 1].map(|p| {
                    let mut own = rolled[p * dice..(p + 1) * dice].to_vec();
                    own.sort_unstable();
                    own.iter().map(|f| f.to_string()).collect::<String>()
                });
                let matches = (1..=sides)
                    .map(|face| {
                        rolled
                            .iter()
                            .filter(|&&r| r as usize == face || r as usize == sides)
                            .count()
                    })
                    .collect();
                deals.push(Deal { labels, matches });
                stack.push(Pending::Bid {
                    node,
                    deal: deals.len() - 1,
                    player: 0,
                    last: None,
                    history: String::new(),
                });
            }
            Pending::Bid {
                node,
                deal,
                player,
                last,
                history,
            } => {
                let first = last.map_or(0, |l| l + 1);
                actions.clear();
                actions.extend(bid_names[first..].iter().map(|s| s.as_str()));
                if last.is_some() {
                    actions.push("Liar");
                }
                label.clear();
                label.push_str(&deals[deal].labels[player]);
                label.push_str(&history);
                let children = b.decision(node, player, &label, &actions)?;
                for (k, child) in children.into_iter().enumerate() {
                    match last {
                        Some(bid) if first + k == num_bids => {
                            // `player` calls the opponent's bid.
                            let (quantity, face) = (bid / sides + 1, bid % sides + 1);
                            let bid_holds = deals[deal].matches[face - 1] >= quantity;
                            let caller_wins = if bid_holds { -1 } else { 1 };
                            let payoff0 = if player == 0 {
                                caller_wins
                            } else {
                                -caller_wins
                            };
                            b.terminal_zero_sum(child, int(payoff0))?;
                        }
                        _ => {
                            let bid = first + k;
                            let name = &bid_names[bid];
                            let mut next = String::with_capacity(history.len() + 1 + name.len());
                            next.push_str(&history);
                            next.push(' ');
                            next.push_str(name);
                            stack.push(Pending::Bid {
                                node: child,
                                deal,
                                player: 1 - player,
                                last: Some(bid),
                                history: next,
                            });
                        }
                    }
                }
            }
        }
    }
    b.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// OpenSpiel 2.0.2 counts (every history incl. chance and terminal nodes; information sets
    /// per player), printed by `scripts/openspiel_game_counts.py`.
    #[test]
    fn counts_match_openspiel() {
        for (dice, sides, nodes, infosets) in [
            (1, 2, 127, 16),
            (1, 3, 1147, 96),
            (1, 4, 8181, 512),
            (2, 2, 8191, 384),
            (1, 6, 294_883, 12_288),
        ] {
            assert_eq!(num_nodes(dice, sides), Some(nodes));
            let g = liars_dice(dice, sides, u64::MAX).unwrap();
            assert_eq!(g.nodes.len() as u64, nodes, "dice={dice} sides={sides}");
            assert_eq!(g.infosets[0].len(), infosets);
            assert_eq!(g.infosets[1].len(), infosets);
        }
    }

    #[test]
    fn highest_face_is_wild_and_labels_are_openspiel_strings() {
        let g = liars_dice(1, 3, u64::MAX).unwrap();
        // Player 2 holds a 3 (wild): after P1 bids 2-1 holding a 1, the bid holds, so P2
        // calling loses 1 and P1 (index 0) wins 1.
        let set = g.find_infoset(1, "3 2-1").expect("label");
        let node = g.infosets[1][set].nodes.iter().copied().find(|&n| {
            g.path_labels(n as usize)[..2] == ["Roll 1".to_string(), "Roll 3".to_string()]
        });
        let node = &g.nodes[node.unwrap() as usize];
        let liar = node.children().last().unwrap();
        match g.nodes[liar].kind {
            crate::game::NodeKind::Terminal { terminal } => {
                assert_eq!(g.terminals[terminal as usize].payoff0_f64, 1.0)
            }
            _ => panic!("Liar must end the game"),
        }
        assert!(g.find_infoset(0, "1").is_some());
        assert_eq!(
            g.infosets[0][g.find_infoset(0, "1").unwrap()].actions.len(),
            6
        );
    }

    /// Uniform-policy exploitability from `scripts/openspiel_game_counts.py` (OpenSpiel 2.0.2):
    /// pins payoffs and information structure beyond the counts.
    #[test]
    fn uniform_policy_exploitability_matches_openspiel() {
        use crate::eval::exploitability;
        use crate::strategy::Profile;
        for (dice, sides, expected) in [
            (1, 2, 0.5625),
            (1, 3, 0.5555555555555555),
            (1, 4, 0.6550595238095238),
            (2, 2, 0.8203125),
        ] {
            let g = liars_dice(dice, sides, u64::MAX).unwrap();
            let e = exploitability(&g, &Profile::<f64>::uniform(&g)).exploitability;
            assert!((e - expected).abs() < 1e-12, "{dice}x{sides}: {e}");
        }
    }

    #[test]
    fn refuses_huge_trees_before_building() {
        let err = liars_dice(3, 6, 20_000_000).unwrap_err().to_string();
        assert!(err.contains("above the limit"), "{err}");
        assert_eq!(num_nodes(5, 10), None);
    }
}
