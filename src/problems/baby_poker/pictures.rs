//! Baby poker's pictures in its report: raises and folds by die, and B's optimal set.

use crate::error::Result;
use crate::game::Game;
use crate::problems::baby_poker::{a_infoset_label, b_infoset_label, b_optimal_polytope};
use crate::report::charts::*;
use crate::report::scene::{Anchor, Scene, Shape};
use crate::report::Picture;
use crate::scalar::{format_rational, rational_to_f64, Rational};
use crate::strategy::Profile;

/// Largest die for which B's optimal set is described (2^sides exact constraints).
const SLICE_MAX_SIDES: usize = 7;

/// Baby poker's pictures for a game of `sides`-faced dice and raise `raise` in `profile`; B's
/// optimal set needs the exact game value. Notes say what was left out and why.
pub fn pictures(
    game: &Game,
    sides: usize,
    raise: i64,
    profile: &Profile<f64>,
    known_value: Option<&Rational>,
    notes: &mut Vec<String>,
) -> Result<Vec<Picture>> {
    let mut out = Vec::new();
    let p: Option<Vec<f64>> = (1..=sides)
        .map(|i| profile.prob_at(game, 0, &a_infoset_label(i), 1))
        .collect();
    let q: Option<Vec<f64>> = (1..=sides)
        .map(|j| profile.prob_at(game, 1, &b_infoset_label(j), 1))
        .collect();
    let (Some(p), Some(q)) = (p, q) else {
        notes.push("baby poker pictures left out: the game lacks the die-labelled sets".into());
        return Ok(out);
    };
    out.push(Picture {
        id: "baby-poker-strategies".into(),
        title: "Baby poker: raises and folds by die".into(),
        caption: "A's probability of raising holding die i and B's probability of folding to a \
                  raise holding die j, in the report's strategy."
            .into(),
        scene: bars_chart(&p, &q),
    });
    let Some(value) = known_value else {
        notes.push("B's optimal set is not drawn: the exact game value is unknown".into());
        return Ok(out);
    };
    if !(4..=SLICE_MAX_SIDES).contains(&sides) {
        notes.push(format!(
            "B's optimal set is drawn for 4..={SLICE_MAX_SIDES} sides only (it has 2^sides constraints)"
        ));
        return Ok(out);
    }
    let d = b_optimal_polytope(sides, raise, value).describe()?;
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
             for A, computed exactly (matrix::polytope; {} vertices, dimension {}), projected on \
             (q2, q3, q4) inside the unit cube; {fixed}. The blue dot is the report's own \
             strategy.",
            format_rational(value),
            d.vertices.len(),
            d.dimension
        ),
        scene: optimal_set_chart(&vertices, &fixed, Some([q[1], q[2], q[3]])),
    });
    Ok(out)
}

/// Baby poker: A's raise probability and B's fold probability by die, as bars.
pub fn bars_chart(p: &[f64], q: &[f64]) -> Scene {
    let mut scene = Scene::new(820, 330);
    scene.text(
        (410.0, 24.0),
        "Baby poker: A's raise and B's fold probabilities by die",
        15.0,
        Anchor::Middle,
    );
    for (k, (title, v, color)) in [
        ("A raises holding die i", p, action_color("Raise")),
        ("B folds to a raise holding die j", q, action_color("Fold")),
    ]
    .into_iter()
    .enumerate()
    {
        let left = 70.0 + k as f64 * 400.0;
        let n = v.len();
        let frame = Frame {
            px: (left, 60.0, 330.0, 200.0),
            x: (0.5, n as f64 + 0.5),
            y: (0.0, 1.05),
            log_x: false,
            log_y: false,
        };
        scene.text((left + 165.0, 52.0), title, 13.0, Anchor::Middle);
        draw_axes(
            &mut scene,
            &frame,
            &integer_ticks(n, 12),
            &prob_ticks(),
            "die",
            "probability",
        );
        let width = 330.0 / n as f64 * 0.6;
        for (i, &x) in v.iter().enumerate() {
            let (cx, top) = frame.map(i as f64 + 1.0, x);
            let (_, base) = frame.map(i as f64 + 1.0, 0.0);
            scene.push(Shape::Rect {
                x: cx - width / 2.0,
                y: top,
                w: width,
                h: (base - top).max(0.0),
                fill: Some(color),
                stroke: None,
                title: Some(format!("die {}: {x:.4}", i + 1)),
            });
            scene.text((cx, top - 4.0), short(x), 10.0, Anchor::Middle);
        }
    }
    scene
}

/// B's optimal set of baby poker projected on (q2, q3, q4), drawn in the unit cube.
/// `vertices` are the set's vertices in those coordinates with their exact labels; `point` the
/// report's own strategy there.
pub fn optimal_set_chart(
    vertices: &[([f64; 3], String)],
    fixed: &str,
    point: Option<[f64; 3]>,
) -> Scene {
    let mut scene = Scene::new(620, 580);
    scene.text(
        (310.0, 24.0),
        "B's optimal set in the (q2, q3, q4) slice (q = fold probability)",
        15.0,
        Anchor::Middle,
    );
    scene.text((310.0, 44.0), fixed, 12.0, Anchor::Middle);
    // The cube spans origin.1 - size .. origin.1 + size vertically.
    let origin = (310.0, 305.0);
    let size = 205.0;
    let at = |v: [f64; 3]| iso(origin, size, v);
    // The cube's edges: corners differing in one coordinate.
    for a in 0..8u8 {
        for bit in 0..3 {
            let b = a | (1 << bit);
            if b == a {
                continue;
            }
            let corner = |m: u8| [(m & 1) as f64, ((m >> 1) & 1) as f64, ((m >> 2) & 1) as f64];
            // Dashed-looking light edges at the back, darker at the front.
            let hidden = a == 0;
            scene.line(
                at(corner(a)),
                at(corner(b)),
                if hidden {
                    (200, 200, 200)
                } else {
                    (150, 150, 150)
                },
                1.0,
            );
        }
    }
    for (k, name) in ["q2", "q3", "q4"].iter().enumerate() {
        let mut e = [0.0; 3];
        e[k] = 1.12;
        let p = at(e);
        scene.text((p.0, p.1 + 4.0), *name, 13.0, Anchor::Middle);
        scene.line(at([0.0; 3]), at(e), AXIS, 1.5);
    }
    let projected: Vec<(f64, f64)> = vertices.iter().map(|(v, _)| at(*v)).collect();
    let hull = convex_hull(projected.clone());
    if hull.len() >= 3 {
        scene.push(Shape::Polygon {
            points: hull,
            fill: ORANGE,
            opacity: 0.35,
            stroke: Some(ORANGE),
        });
    }
    for ((v, label), p) in vertices.iter().zip(&projected) {
        scene.push(Shape::Circle {
            center: *p,
            r: 4.0,
            fill: (160, 70, 0),
            title: Some(format!("{label} = ({:.4}, {:.4}, {:.4})", v[0], v[1], v[2])),
        });
        scene.text((p.0 + 7.0, p.1 - 6.0), label.clone(), 11.0, Anchor::Start);
    }
    if let Some(v) = point {
        let p = at(v);
        scene.push(Shape::Circle {
            center: p,
            r: 5.0,
            fill: BLUE,
            title: Some(format!(
                "this strategy: ({:.4}, {:.4}, {:.4})",
                v[0], v[1], v[2]
            )),
        });
        scene.push(Shape::Circle {
            center: (40.0, 560.0),
            r: 5.0,
            fill: BLUE,
            title: None,
        });
        scene.text((52.0, 564.0), "the report's strategy", 12.0, Anchor::Start);
    }
    scene.push(Shape::Circle {
        center: (260.0, 560.0),
        r: 4.0,
        fill: (160, 70, 0),
        title: None,
    });
    scene.text(
        (272.0, 564.0),
        "vertices of B's optimal set (exact)",
        12.0,
        Anchor::Start,
    );
    scene
}
