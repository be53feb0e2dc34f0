//! The seed games' pictures, recognised from the game spec.

use super::charts;
use super::{KnownValue, Picture};
use crate::game::Game;
use crate::games::baby_poker::{a_infoset_label, b_infoset_label, b_optimal_polytope};
use crate::games::one_card_poker::SITUATIONS;
use crate::scalar::{format_rational, rational_to_f64};
use crate::solve::card_guessing::CardGuessing;
use crate::strategy::Profile;
use anyhow::Result;

/// Largest die for which B's optimal set is described (2^sides exact constraints).
const SLICE_MAX_SIDES: usize = 7;
/// The card-guessing heat maps cover (m, n) in 0..=this.
const HEAT_SIZE: usize = 12;

/// Probability of local action `action` at `player`'s set `label`, if the set exists.
fn prob(
    game: &Game,
    profile: &Profile<f64>,
    player: usize,
    label: &str,
    action: usize,
) -> Option<f64> {
    let id = game.find_infoset(player, label)?;
    let set = &game.infosets[player][id];
    (action < set.actions.len()).then(|| profile.probs[player][set.action_offset + action])
}

/// Appends the pictures of the seed game `spec` names, if it is one.
pub fn seed_pictures(
    game: &Game,
    spec: &str,
    profile: &Profile<f64>,
    known: Option<&KnownValue>,
    out: &mut Vec<Picture>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let Ok((info, params)) = crate::games::parse_spec(spec) else {
        return Ok(());
    };
    match info.name {
        "one-card-poker" => one_card_poker(game, params.get("n") as usize, profile, out, notes),
        "baby-poker" => baby_poker(
            game,
            params.get("sides") as usize,
            params.get("raise"),
            profile,
            known,
            out,
            notes,
        )?,
        "shrek-donkey" => card_guessing(params.get("m") as usize, params.get("n") as usize, out),
        _ => {}
    }
    Ok(())
}

fn one_card_poker(
    game: &Game,
    n: usize,
    profile: &Profile<f64>,
    out: &mut Vec<Picture>,
    notes: &mut Vec<String>,
) {
    let mut series: [[Vec<f64>; 2]; 4] = Default::default();
    for (s, situation) in SITUATIONS.iter().enumerate() {
        for p in 0..2 {
            for card in 1..=n {
                // Action 1 is "bet" (open, check) or "call" (bet, check-bet).
                match prob(game, profile, p, &format!("{card} {situation}"), 1) {
                    Some(x) => series[s][p].push(x),
                    None => {
                        notes.push(format!(
                            "one-card poker picture left out: no information set \"{card} {situation}\""
                        ));
                        return;
                    }
                }
            }
        }
    }
    out.push(Picture {
        id: "one-card-poker".into(),
        title: "One-card poker: where the strategy bluffs".into(),
        caption: format!(
            "For each of the four situations of a card, the probability of the aggressive action \
             (bet when first to act or after a check; call when facing a bet) against the card \
             1..{n}, for {} (blue) and {} (orange). In equilibrium a player bets its best cards \
             for value and some of its worst as bluffs, and checks the middle. Where a card is \
             indifferent between two actions (a card that wins or loses the same either way) \
             an equilibrium may pick either, so an exact LP vertex can jump between 0 and 1 \
             there; the table below shows such sets with local regret 0.",
            game.player_names[0], game.player_names[1]
        ),
        scene: charts::one_card_poker(n, &series, &game.player_names),
    });
}

fn baby_poker(
    game: &Game,
    sides: usize,
    raise: i64,
    profile: &Profile<f64>,
    known: Option<&KnownValue>,
    out: &mut Vec<Picture>,
    notes: &mut Vec<String>,
) -> Result<()> {
    let p: Option<Vec<f64>> = (1..=sides)
        .map(|i| prob(game, profile, 0, &a_infoset_label(i), 1))
        .collect();
    let q: Option<Vec<f64>> = (1..=sides)
        .map(|j| prob(game, profile, 1, &b_infoset_label(j), 1))
        .collect();
    let (Some(p), Some(q)) = (p, q) else {
        notes.push("baby poker pictures left out: the game lacks the die-labelled sets".into());
        return Ok(());
    };
    out.push(Picture {
        id: "baby-poker-strategies".into(),
        title: "Baby poker: raises and folds by die".into(),
        caption: "A's probability of raising holding die i and B's probability of folding to a \
                  raise holding die j, in the report's strategy."
            .into(),
        scene: charts::baby_poker_bars(&p, &q),
    });
    let Some(known) = known else {
        notes.push("B's optimal set is not drawn: the exact game value is unknown".into());
        return Ok(());
    };
    if !(4..=SLICE_MAX_SIDES).contains(&sides) {
        notes.push(format!(
            "B's optimal set is drawn for 4..={SLICE_MAX_SIDES} sides only (it has 2^sides constraints)"
        ));
        return Ok(());
    }
    let d = b_optimal_polytope(sides, raise, &known.value).describe()?;
    // The slice shows q2, q3, q4; the other coordinates are described in the caption.
    let vertices: Vec<([f64; 3], String)> = d
        .vertices
        .iter()
        .map(|v| {
            let pick = [&v[1], &v[2], &v[3]];
            (
                pick.map(rational_to_f64),
                format!(
                    "({})",
                    pick.iter()
                        .map(|x| format_rational(x))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        })
        .collect();
    let mut fixed = Vec::new();
    for (k, (lo, hi)) in d.bounds.iter().enumerate() {
        if (1..=3).contains(&k) {
            continue;
        }
        fixed.push(if lo == hi {
            format!("q{} = {}", k + 1, format_rational(lo))
        } else {
            format!(
                "q{} in [{}, {}]",
                k + 1,
                format_rational(lo),
                format_rational(hi)
            )
        });
    }
    let fixed = format!("on the whole set: {}", fixed.join(", "));
    out.push(Picture {
        id: "baby-poker-b-set".into(),
        title: "Baby poker: B's optimal set".into(),
        caption: format!(
            "Every optimal strategy of B (fold probabilities q1..q{sides}) against value {} \
             for A, computed exactly (solve::polytope; {} vertices, dimension {}), projected on \
             (q2, q3, q4) inside the unit cube; {fixed}. The blue dot is the report's own \
             strategy.",
            format_rational(&known.value),
            d.vertices.len(),
            d.dimension
        ),
        scene: charts::baby_poker_slice(&vertices, &fixed, Some([q[1], q[2], q[3]])),
    });
    Ok(())
}

fn card_guessing(m: usize, n: usize, out: &mut Vec<Picture>) {
    let size = HEAT_SIZE.max(m).max(n);
    let table = CardGuessing::<f64>::solve(size, size);
    let win = |a: usize, b: usize| table.value(a, b).copied();
    let bluff = |a: usize, b: usize| {
        (a > 0 && b > 0)
            .then(|| table.strategy(a, b).map(|s| s.bluff))
            .flatten()
    };
    let believe = |a: usize, b: usize| {
        (a > 0 && b > 0)
            .then(|| table.strategy(a, b).map(|s| s.believe))
            .flatten()
    };
    out.push(Picture {
        id: "card-guessing".into(),
        title: "Card-guessing game over (m, n)".into(),
        caption: format!(
            "At the start state (m, n) — the first mover holds m cards, the responder n — the \
             first mover's win probability, its probability of bluffing (naming one of its own \
             cards), and the responder's probability of believing an unrefuted name, from the \
             f64 dynamic programme of solve::card_guessing over 0..={size}. Hover a cell for its \
             value; the red square is this game (m = {m}, n = {n})."
        ),
        scene: charts::card_guessing(size, &win, &bluff, &believe, Some((m, n))),
    });
}
