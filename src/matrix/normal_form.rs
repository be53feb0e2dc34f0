//! The reduced normal form of an extensive game: every reduced pure strategy of each player and
//! the exact payoff matrix between them.
//!
//! A reduced pure strategy chooses one action at each information set the player's own earlier
//! choices leave reachable, and records nothing at sets those choices rule out (pure strategies
//! differing only there are payoff-equivalent, so they are merged). Payoffs come from the
//! sequence form: each terminal adds `chance reach * payoff` to the pair of sequences leading to
//! it, and a strategy pair collects the pairs of sequences both strategies play.

use crate::error::{fail, Result, ResultExt};
use crate::format::nfg::NfgGame;
use crate::game::{Game, NodeKind, Player};
use crate::matrix::MatrixGame;
use crate::scalar::Rational;
use num_traits::Zero;
use std::collections::HashMap;

/// Default cap on the number of reduced pure strategies per player.
pub const DEFAULT_MAX_STRATEGIES: usize = 4096;

/// Most entries the exact payoff matrix may have (each is a rational of at least 64 bytes):
/// checked with the strategy counts before anything is enumerated or allocated.
pub const MAX_MATRIX_ENTRIES: u128 = 20_000_000;

/// The number of reduced pure strategies of `player`, computed without enumerating them (a
/// product over the sets reachable from the root of sums over their actions, bottom up), as a
/// float (it can exceed every integer type: Leduc's is about 10^(10^2)) and saturating to
/// infinity.
pub fn count_reduced_strategies(game: &Game, player: Player) -> f64 {
    let sets = &game.infosets[player];
    let mut after_sequence: Vec<Vec<usize>> = vec![Vec::new(); game.num_sequences(player)];
    for (id, set) in sets.iter().enumerate() {
        after_sequence[set.parent_sequence()].push(id);
    }
    // Sets in an order where each comes after the set owning its parent sequence.
    let mut order: Vec<usize> = after_sequence[0].clone();
    let mut i = 0;
    while i < order.len() {
        let info = &sets[order[i]];
        for a in 0..info.actions.len() {
            order.extend_from_slice(&after_sequence[1 + info.action_offset + a]);
        }
        i += 1;
    }
    let mut count = vec![1.0f64; sets.len()];
    for &set in order.iter().rev() {
        let info = &sets[set];
        count[set] = (0..info.actions.len())
            .map(|a| {
                after_sequence[1 + info.action_offset + a]
                    .iter()
                    .map(|&t| count[t])
                    .product::<f64>()
            })
            .sum();
    }
    after_sequence[0].iter().map(|&t| count[t]).product()
}

/// Fails, naming the sizes, when either player has more than `limit` reduced strategies or the
/// matrix would have more than [`MAX_MATRIX_ENTRIES`] entries.
pub fn check_normal_form_size(game: &Game, limit: usize) -> Result<[usize; 2]> {
    let counts = [0, 1].map(|p| count_reduced_strategies(game, p));
    for p in 0..2 {
        if counts[p] > limit as f64 {
            fail!(
                Invalid,
                "player {} has {} reduced pure strategies, more than the limit {limit} \
                 (--max-strategies); the normal form is too large",
                game.player_names[p],
                show_count(counts[p])
            );
        }
    }
    let entries = counts[0] * counts[1];
    if entries > MAX_MATRIX_ENTRIES as f64 {
        fail!(
            Invalid,
            "the normal form would be {} x {} = {} exact entries, more than {} (at least 64 \
             bytes each)",
            show_count(counts[0]),
            show_count(counts[1]),
            show_count(entries),
            MAX_MATRIX_ENTRIES
        );
    }
    Ok(counts.map(|c| c as usize))
}

fn show_count(x: f64) -> String {
    if x.is_infinite() {
        "more than 10^308".into()
    } else if x < 1e15 {
        format!("{x:.0}")
    } else {
        format!("about {x:.3e}")
    }
}

/// One reduced pure strategy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReducedStrategy {
    /// Local action index chosen at each of the player's information sets (`None` where the
    /// player's own choices make the set unreachable).
    pub choices: Vec<Option<usize>>,
    /// Readable label: `set:action` for every set with a choice, in set order, space separated.
    pub label: String,
}

impl ReducedStrategy {
    /// Whether the strategy plays sequence `seq` (0 = empty sequence, `1 + a` = flat action `a`).
    pub fn plays_sequence(&self, game: &Game, player: Player, seq: usize) -> bool {
        if seq == 0 {
            return true;
        }
        let a = seq - 1;
        let set = game.action_infoset[player][a] as usize;
        self.choices[set] == Some(a - game.infosets[player][set].action_offset)
    }
}

/// The reduced normal form of a game.
#[derive(Clone, Debug)]
pub struct NormalForm {
    /// Reduced pure strategies of each player; rows of `matrix` are player 0's, columns player 1's.
    pub strategies: [Vec<ReducedStrategy>; 2],
    /// Player 0's exact expected payoffs (player 1 gets `constant_sum` minus them).
    pub matrix: MatrixGame,
}

/// Enumerates the reduced pure strategies of `player`, failing once there are more than `limit`.
pub fn reduced_strategies(
    game: &Game,
    player: Player,
    limit: usize,
) -> Result<Vec<ReducedStrategy>> {
    let sets = &game.infosets[player];
    // Sets that become reachable once a sequence is played.
    let mut after_sequence: Vec<Vec<usize>> = vec![Vec::new(); game.num_sequences(player)];
    for (id, set) in sets.iter().enumerate() {
        after_sequence[set.parent_sequence()].push(id);
    }
    let mut out = Vec::new();
    let mut choices: Vec<Option<usize>> = vec![None; sets.len()];
    // Depth-first enumeration with an explicit stack (no recursion on game depth): each frame
    // is a decided set, the sets still pending beside it, and the action being tried.
    struct Frame {
        set: usize,
        rest: Vec<usize>,
        action: usize,
    }
    let opened = |set: usize, action: usize, rest: &[usize]| -> Vec<usize> {
        let mut next = rest.to_vec();
        next.extend_from_slice(&after_sequence[1 + sets[set].action_offset + action]);
        next
    };
    let mut stack: Vec<Frame> = Vec::new();
    let mut pending = after_sequence[0].clone();
    loop {
        // Decide the smallest pending set, trying its first action.
        if let Some(pos) = pending
            .iter()
            .enumerate()
            .min_by_key(|(_, &s)| s)
            .map(|(i, _)| i)
        {
            let set = pending.swap_remove(pos);
            choices[set] = Some(0);
            let next = opened(set, 0, &pending);
            stack.push(Frame {
                set,
                rest: std::mem::take(&mut pending),
                action: 0,
            });
            pending = next;
            continue;
        }
        // Nothing pending: a complete reduced strategy.
        if out.len() == limit {
            fail!(
                Invalid,
                "player {} has more than {limit} reduced pure strategies; the normal form is too \
                 large",
                game.player_names[player]
            );
        }
        let label = choices
            .iter()
            .enumerate()
            .filter_map(|(id, c)| c.map(|a| format!("{}:{}", sets[id].label, sets[id].actions[a])))
            .collect::<Vec<_>>()
            .join(" ");
        out.push(ReducedStrategy {
            choices: choices.clone(),
            label,
        });
        // Back up to the deepest set with an untried action.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(out);
            };
            top.action += 1;
            if top.action < sets[top.set].actions.len() {
                choices[top.set] = Some(top.action);
                pending = opened(top.set, top.action, &top.rest);
                break;
            }
            choices[top.set] = None;
            stack.pop();
        }
    }
}

/// Chance reach times player 0's payoff, summed per pair of sequences leading to a terminal.
fn sequence_payoffs(game: &Game) -> Vec<(usize, usize, Rational)> {
    let n = game.nodes.len();
    let mut seq = [vec![0usize; n], vec![0usize; n]];
    let mut reach = vec![Rational::zero(); n];
    reach[0] = num_traits::One::one();
    let mut acc: HashMap<(usize, usize), Rational> = HashMap::new();
    for node in 0..n {
        let nd = &game.nodes[node];
        match nd.kind {
            NodeKind::Terminal { terminal } => {
                let w = &reach[node] * &game.terminals[terminal as usize].payoff0;
                if !w.is_zero() {
                    *acc.entry((seq[0][node], seq[1][node]))
                        .or_insert_with(Rational::zero) += w;
                }
            }
            NodeKind::Chance => {
                for child in nd.children() {
                    reach[child] = &reach[node] * &game.chance_prob[child];
                    seq[0][child] = seq[0][node];
                    seq[1][child] = seq[1][node];
                }
            }
            NodeKind::Decision { player, infoset } => {
                let p = player as usize;
                let offset = game.infosets[p][infoset as usize].action_offset;
                for (k, child) in nd.children().enumerate() {
                    reach[child] = reach[node].clone();
                    seq[1 - p][child] = seq[1 - p][node];
                    seq[p][child] = 1 + offset + k;
                }
            }
        }
    }
    let mut entries: Vec<(usize, usize, Rational)> =
        acc.into_iter().map(|((a, b), w)| (a, b, w)).collect();
    entries.sort_by_key(|e| (e.0, e.1));
    entries
}

/// The reduced normal form, with at most `limit` reduced strategies per player, of a
/// constant-sum game (a general-sum game is refused: [`crate::lcp::bimatrix::Bimatrix::reduced`]
/// keeps both players' payoffs).
pub fn reduced_normal_form(game: &Game, limit: usize) -> Result<NormalForm> {
    game.require_constant_sum("the matrix game of the reduced normal form")?;
    check_normal_form_size(game, limit)?;
    let strategies = [
        reduced_strategies(game, 0, limit)?,
        reduced_strategies(game, 1, limit)?,
    ];
    let plays = |p: Player| -> Vec<Vec<bool>> {
        strategies[p]
            .iter()
            .map(|s| {
                (0..game.num_sequences(p))
                    .map(|q| s.plays_sequence(game, p, q))
                    .collect()
            })
            .collect()
    };
    let (plays0, plays1) = (plays(0), plays(1));
    let entries = sequence_payoffs(game);
    let num_seq1 = game.num_sequences(1);
    let mut payoff = Vec::with_capacity(plays0.len());
    for row_plays in &plays0 {
        // What this row earns per sequence of player 1.
        let mut per_seq1 = vec![Rational::zero(); num_seq1];
        for (s0, s1, w) in &entries {
            if row_plays[*s0] {
                per_seq1[*s1] += w;
            }
        }
        let row: Vec<Rational> = plays1
            .iter()
            .map(|col_plays| {
                per_seq1
                    .iter()
                    .zip(col_plays)
                    .filter(|(w, &on)| on && !w.is_zero())
                    .map(|(w, _)| w)
                    .sum()
            })
            .collect();
        payoff.push(row);
    }
    let matrix = MatrixGame {
        rows: strategies[0].iter().map(|s| s.label.clone()).collect(),
        cols: strategies[1].iter().map(|s| s.label.clone()).collect(),
        payoff,
    };
    Ok(NormalForm { strategies, matrix })
}

/// The reduced normal form of a game as a strategic-form table (`.nfg`): reduced pure
/// strategies labelled `set:action ...`, exact chance-averaged payoffs, at most
/// [`DEFAULT_MAX_STRATEGIES`] strategies per player.
pub fn to_nfg(game: &Game) -> Result<NfgGame> {
    if !game.is_constant_sum() {
        let bm = crate::lcp::bimatrix::Bimatrix::reduced(game, DEFAULT_MAX_STRATEGIES)
            .context_with(|| "export the extensive form (.efg) instead".into())?;
        let players = [game.player_names[0].clone(), game.player_names[1].clone()];
        let mut nfg = crate::matrix::MatrixGame {
            rows: bm.rows,
            cols: bm.cols,
            payoff: bm.payoff[0].clone(),
        }
        .to_nfg(&game.name, &players);
        nfg.comment = Some("reduced normal form written by bluff".into());
        for (k, u) in nfg.payoffs.iter_mut().enumerate() {
            // Row strategy varies fastest.
            let (i, j) = (k % bm.payoff[1].len(), k / bm.payoff[1].len());
            u[1] = bm.payoff[1][i][j].clone();
        }
        return Ok(nfg);
    }
    let nf = reduced_normal_form(game, DEFAULT_MAX_STRATEGIES)
        .context_with(|| "export the extensive form (.efg) instead".into())?;
    let mut nfg = nf.matrix.to_nfg(&game.name, &game.player_names);
    nfg.comment = Some("reduced normal form written by bluff".into());
    if !game.constant_sum.is_zero() {
        for u in &mut nfg.payoffs {
            u[1] = &game.constant_sum - &u[0];
        }
    }
    Ok(nfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::expected_value;
    use crate::games::kuhn::kuhn_poker;
    use crate::scalar::rat;
    use crate::strategy::ExactProfile;

    #[test]
    fn kuhn_reduced_counts_and_entries_match_tree_evaluation() {
        let g = kuhn_poker().unwrap();
        let nf = reduced_normal_form(&g, DEFAULT_MAX_STRATEGIES).unwrap();
        // P1 per card: pass then (fold|call) or bet = 3 reduced choices; 3^3 = 27.
        // P2 has 6 sets with 2 actions each, none depending on its own earlier play: 64.
        assert_eq!(nf.strategies[0].len(), 27);
        assert_eq!(nf.strategies[1].len(), 64);
        // Each entry equals the tree evaluation of the pure profile (unreached sets arbitrary).
        for (i, s0) in nf.strategies[0].iter().enumerate().step_by(5) {
            for (j, s1) in nf.strategies[1].iter().enumerate().step_by(7) {
                let mut prof = ExactProfile::uniform(&g);
                let c0: Vec<usize> = s0.choices.iter().map(|c| c.unwrap_or(0)).collect();
                let c1: Vec<usize> = s1.choices.iter().map(|c| c.unwrap_or(1)).collect();
                prof.set_pure(&g, 0, &c0);
                prof.set_pure(&g, 1, &c1);
                assert_eq!(nf.matrix.payoff[i][j], expected_value(&g, &prof));
            }
        }
    }

    #[test]
    fn kuhn_normal_form_value_is_minus_one_eighteenth() {
        let g = kuhn_poker().unwrap();
        let nf = reduced_normal_form(&g, DEFAULT_MAX_STRATEGIES).unwrap();
        assert_eq!(nf.matrix.solve().unwrap().value, rat(-1, 18));
    }

    #[test]
    fn counts_match_enumeration_and_huge_limits_are_checked_first() {
        for spec in ["kuhn", "baby-poker(sides=4)", "one-card-poker(n=3,a=2,b=1)"] {
            let g = crate::games::builtin(spec).unwrap();
            for p in 0..2 {
                let listed = reduced_strategies(&g, p, 1 << 20).unwrap().len();
                assert_eq!(count_reduced_strategies(&g, p), listed as f64, "{spec} {p}");
            }
        }
        // Leduc: refused at once, with the count, whatever the limit.
        let leduc = crate::games::builtin("leduc").unwrap();
        let err = reduced_normal_form(&leduc, usize::MAX)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("exact entries") || err.contains("reduced pure"),
            "{err}"
        );
    }

    #[test]
    fn labels_skip_unreachable_sets() {
        let g = kuhn_poker().unwrap();
        let s = reduced_strategies(&g, 0, 100).unwrap();
        // A strategy that bets with J never records the J-pass-bet decision.
        let bet_j = s.iter().find(|s| s.label.starts_with("J:Bet")).unwrap();
        assert!(!bet_j.label.contains("Jpb:"));
        assert!(reduced_strategies(&g, 0, 26).is_err());
    }
}
