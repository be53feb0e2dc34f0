//! One-card poker's picture in its report: where the strategy bets and calls, by card.

use crate::game::Game;
use crate::problems::one_card_poker::game::SITUATIONS;
use crate::report::charts::*;
use crate::report::scene::{Anchor, Scene, Shape};
use crate::report::Picture;
use crate::strategy::Profile;

/// The picture of a one-card poker game of `n` cards in `profile`; a note instead where the
/// game lacks the contest's information sets.
pub fn pictures(
    game: &Game,
    n: usize,
    profile: &Profile<f64>,
    notes: &mut Vec<String>,
) -> Vec<Picture> {
    let mut series: [[Vec<f64>; 2]; 4] = Default::default();
    for (s, situation) in SITUATIONS.iter().enumerate() {
        for p in 0..2 {
            for card in 1..=n {
                // Action 1 is "bet" (open, check) or "call" (bet, check-bet).
                match profile.prob_at(game, p, &format!("{card} {situation}"), 1) {
                    Some(x) => series[s][p].push(x),
                    None => {
                        notes.push(format!(
                            "one-card poker picture left out: no information set \"{card} {situation}\""
                        ));
                        return Vec::new();
                    }
                }
            }
        }
    }
    vec![Picture {
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
        scene: chart(n, &series, &game.player_names),
    }]
}

/// One-card poker: for each of the four situations, the probability of the aggressive action
/// (bet, or call when facing a bet) against the card, one line per player.
/// `series[s][player][card - 1]`, situations in the order open, check, bet, check-bet.
pub fn chart(n: usize, series: &[[Vec<f64>; 2]; 4], names: &[String; 2]) -> Scene {
    let mut scene = Scene::new(900, 640);
    scene.text(
        (450.0, 24.0),
        format!("One-card poker, N = {n}: probability of betting / calling by card"),
        15.0,
        Anchor::Middle,
    );
    let titles = [
        "first to act: bet",
        "after a check: bet",
        "facing a bet: call",
        "check, then bet: call",
    ];
    for (s, title) in titles.iter().enumerate() {
        let (col, row) = (s % 2, s / 2);
        let left = 80.0 + col as f64 * 430.0;
        let top = 70.0 + row as f64 * 280.0;
        let frame = Frame {
            px: (left, top, 360.0, 190.0),
            x: (0.5, n as f64 + 0.5),
            y: (-0.03, 1.03),
            log_x: false,
            log_y: false,
        };
        scene.text((left + 180.0, top - 8.0), *title, 13.0, Anchor::Middle);
        draw_axes(
            &mut scene,
            &frame,
            &integer_ticks(n, 10),
            &prob_ticks(),
            "card",
            "probability",
        );
        for (p, color) in [(0usize, BLUE), (1, ORANGE)] {
            let pts: Vec<(f64, f64)> = series[s][p]
                .iter()
                .enumerate()
                .map(|(c, &v)| frame.map(c as f64 + 1.0, v))
                .collect();
            for &pt in &pts {
                scene.push(Shape::Circle {
                    center: pt,
                    r: if n <= 20 { 3.0 } else { 1.8 },
                    fill: color,
                    title: None,
                });
            }
            scene.push(Shape::Polyline {
                points: pts,
                color,
                width: if p == 0 { 2.0 } else { 1.2 },
            });
        }
    }
    legend(&mut scene, (300.0, 628.0), names);
    scene
}
