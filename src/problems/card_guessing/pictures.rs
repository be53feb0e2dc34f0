//! The card-guessing game's picture in its report: the dynamic programme over (m, n).

use crate::problems::card_guessing::CardGuessing;
use crate::report::charts::*;
use crate::report::scene::{Anchor, Scene, Shape};
use crate::report::Picture;

/// The card-guessing heat maps cover (m, n) in 0..=this.
const HEAT_SIZE: usize = 12;

/// The card-guessing picture of the game with hands `m` and `n`: heat maps over (m, n).
pub fn pictures(m: usize, n: usize) -> Vec<Picture> {
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
    vec![Picture {
        id: "card-guessing".into(),
        title: "Card-guessing game over (m, n)".into(),
        caption: format!(
            "At the start state (m, n) — the first mover holds m cards, the responder n — the \
             first mover's win probability, its probability of bluffing (naming one of its own \
             cards), and the responder's probability of believing an unrefuted name, from the \
             f64 dynamic programme of solve::card_guessing over 0..={size}. Hover a cell for its \
             value; the red square is this game (m = {m}, n = {n})."
        ),
        scene: chart(size, &win, &bluff, &believe, Some((m, n))),
    }]
}

/// The card-guessing game: heat maps of the first mover's win probability, its bluffing
/// probability and the responder's believing probability at the start state `(m, n)`.
pub fn chart(
    size: usize,
    win: &dyn Fn(usize, usize) -> Option<f64>,
    bluff: &dyn Fn(usize, usize) -> Option<f64>,
    believe: &dyn Fn(usize, usize) -> Option<f64>,
    mark: Option<(usize, usize)>,
) -> Scene {
    let cell_px = (230.0 / (size + 1) as f64).floor().max(4.0);
    let side = cell_px * (size + 1) as f64;
    let width = (3.0 * (side + 70.0) + 60.0) as u32;
    let mut scene = Scene::new(width.max(700), (side + 150.0) as u32);
    scene.text(
        (scene.width as f64 / 2.0, 22.0),
        format!("Card-guessing game over (m, n) in 0..={size} (red square: this game)"),
        15.0,
        Anchor::Middle,
    );
    let maps: [(&str, CellFn); 3] = [
        ("first mover wins", win),
        ("first mover bluffs", bluff),
        ("responder believes", believe),
    ];
    for (k, (title, f)) in maps.into_iter().enumerate() {
        heat_map(
            &mut scene,
            50.0 + k as f64 * (side + 70.0),
            60.0,
            cell_px,
            size,
            title,
            f,
            mark,
        );
    }
    // Colour scale.
    let y = side + 120.0;
    let x0 = 50.0;
    for i in 0..100 {
        scene.push(Shape::Rect {
            x: x0 + i as f64 * 3.0,
            y,
            w: 3.0,
            h: 12.0,
            fill: Some(heat_color(i as f64 / 99.0)),
            stroke: None,
            title: None,
        });
    }
    scene.text((x0, y + 26.0), "0", 10.0, Anchor::Middle);
    scene.text((x0 + 150.0, y + 26.0), "0.5", 10.0, Anchor::Middle);
    scene.text((x0 + 300.0, y + 26.0), "1", 10.0, Anchor::Middle);
    scene.text(
        (x0 + 315.0, y + 11.0),
        "probability (grey: no such choice in that state)",
        11.0,
        Anchor::Start,
    );
    scene
}
