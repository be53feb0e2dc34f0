//! The report's figure kinds (axes, ticks, legends, log-log curves, heat maps, convex hulls)
//! as [`Scene`]s; the worked problems draw their own pictures with them.

use super::scene::{Anchor, Rgb, Scene, Shape};

/// First series colour (player 1).
pub const BLUE: Rgb = (31, 119, 180);
/// Second series colour (player 2).
pub const ORANGE: Rgb = (230, 115, 0);
/// Grid lines.
pub const GRID: Rgb = (225, 225, 225);
/// Axes and their labels.
pub const AXIS: Rgb = (90, 90, 90);

/// The colours actions take, keyed by name: the poker actions have their own, any other name
/// takes one of [`ACTION_PALETTE`] by a hash of its name.
const NAMED_ACTIONS: [(&str, Rgb); 7] = [
    ("fold", (214, 39, 40)),
    ("call", (44, 160, 44)),
    ("check", (31, 119, 180)),
    ("bet", (230, 115, 0)),
    ("raise", (148, 103, 189)),
    ("pass", (23, 190, 207)),
    ("guess", (140, 86, 75)),
];

/// The colours of action names not in the named list.
pub const ACTION_PALETTE: [Rgb; 10] = [
    (31, 119, 180),
    (230, 115, 0),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

/// The colour of an action, by its name alone (case and surrounding spaces ignored), so an
/// action has one colour wherever it appears, whatever its position among the set's actions.
pub fn action_color(label: &str) -> Rgb {
    let name = label.trim().to_lowercase();
    if let Some(&(_, c)) = NAMED_ACTIONS.iter().find(|(n, _)| *n == name) {
        return c;
    }
    // FNV-1a: stable across runs and platforms, unlike the standard library's hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    ACTION_PALETTE[(h % ACTION_PALETTE.len() as u64) as usize]
}

/// A plotting rectangle mapping data coordinates to pixels.
#[derive(Clone, Copy, Debug)]
pub struct Frame {
    /// Left, top, width, height in pixels.
    pub px: (f64, f64, f64, f64),
    /// Data range of x (log10 of it when `log_x`).
    pub x: (f64, f64),
    /// Data range of y (log10 of it when `log_y`).
    pub y: (f64, f64),
    /// Logarithmic x axis.
    pub log_x: bool,
    /// Logarithmic y axis.
    pub log_y: bool,
}

impl Frame {
    /// Pixel position of a data point.
    pub fn map(&self, x: f64, y: f64) -> (f64, f64) {
        let tx = if self.log_x { x.log10() } else { x };
        let ty = if self.log_y { y.log10() } else { y };
        let (l, t, w, h) = self.px;
        (
            l + (tx - self.x.0) / (self.x.1 - self.x.0) * w,
            t + h - (ty - self.y.0) / (self.y.1 - self.y.0) * h,
        )
    }
}

/// Draws the frame's box, grid lines at the ticks, tick labels and axis titles.
pub fn draw_axes(
    scene: &mut Scene,
    f: &Frame,
    x_ticks: &[(f64, String)],
    y_ticks: &[(f64, String)],
    x_title: &str,
    y_title: &str,
) {
    let (l, t, w, h) = f.px;
    for (v, label) in x_ticks {
        let (x, _) = f.map(*v, if f.log_y { 10f64.powf(f.y.0) } else { f.y.0 });
        scene.line((x, t), (x, t + h), GRID, 1.0);
        scene.text((x, t + h + 16.0), label.clone(), 11.0, Anchor::Middle);
    }
    for (v, label) in y_ticks {
        let (_, y) = f.map(if f.log_x { 10f64.powf(f.x.0) } else { f.x.0 }, *v);
        scene.line((l, y), (l + w, y), GRID, 1.0);
        scene.text((l - 6.0, y + 4.0), label.clone(), 11.0, Anchor::End);
    }
    scene.push(Shape::Rect {
        x: l,
        y: t,
        w,
        h,
        fill: None,
        stroke: Some(AXIS),
        title: None,
    });
    scene.text((l + w / 2.0, t + h + 36.0), x_title, 12.0, Anchor::Middle);
    scene.push(Shape::Text {
        at: (l - 46.0, t + h / 2.0),
        text: y_title.to_string(),
        size: 12.0,
        anchor: Anchor::Middle,
        color: (30, 30, 30),
        vertical: true,
    });
}

/// Powers of ten covering `[lo, hi]` (log10 bounds), labelled `1e-3` style.
pub fn decade_ticks(lo: f64, hi: f64) -> Vec<(f64, String)> {
    let mut out = Vec::new();
    let mut k = lo.ceil() as i32;
    while (k as f64) <= hi + 1e-9 {
        out.push((10f64.powi(k), format!("1e{k}")));
        k += 1;
    }
    out
}

/// Ticks 0, 0.25, .., 1 for probability axes.
pub fn prob_ticks() -> Vec<(f64, String)> {
    [0.0, 0.25, 0.5, 0.75, 1.0]
        .iter()
        .map(|&v| (v, format!("{v}")))
        .collect()
}

/// About `count` round integer ticks over `1..=n`.
pub fn integer_ticks(n: usize, count: usize) -> Vec<(f64, String)> {
    let step = (n as f64 / count as f64).ceil().max(1.0) as usize;
    let mut v: Vec<usize> = (1..=n).filter(|k| (k - 1) % step == 0).collect();
    if v.last() != Some(&n) && n > 1 {
        v.push(n);
    }
    v.into_iter().map(|k| (k as f64, k.to_string())).collect()
}

/// Log-log plot of exploitability against iterations.
pub fn convergence(title: &str, points: &[(f64, f64)]) -> Scene {
    let mut scene = Scene::new(720, 420);
    scene.text((360.0, 24.0), title, 15.0, Anchor::Middle);
    let pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(x, y)| x >= 1.0 && y > 0.0 && y.is_finite())
        .collect();
    let x_hi = pts.iter().map(|p| p.0).fold(10.0, f64::max).log10().ceil();
    let y_lo = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let y_hi = pts.iter().map(|p| p.1).fold(0.0, f64::max);
    let (y_lo, y_hi) = if pts.is_empty() {
        (-3.0, 0.0)
    } else {
        let (a, b) = (y_lo.log10().floor(), y_hi.log10().ceil());
        (a, if b <= a { a + 1.0 } else { b })
    };
    let frame = Frame {
        px: (90.0, 45.0, 600.0, 310.0),
        x: (0.0, x_hi),
        y: (y_lo, y_hi),
        log_x: true,
        log_y: true,
    };
    let x_ticks: Vec<(f64, String)> = (0..=x_hi as i32)
        .map(|k| (10f64.powi(k), format!("{}", 10u64.pow(k as u32))))
        .collect();
    draw_axes(
        &mut scene,
        &frame,
        &x_ticks,
        &decade_ticks(y_lo, y_hi),
        "iterations (log scale)",
        "exploitability (log scale)",
    );
    let line: Vec<(f64, f64)> = pts.iter().map(|&(x, y)| frame.map(x, y)).collect();
    scene.push(Shape::Polyline {
        points: line,
        color: BLUE,
        width: 2.0,
    });
    scene
}

/// A two-entry legend in the series colours.
pub fn legend(scene: &mut Scene, at: (f64, f64), names: &[String; 2]) {
    for (k, (name, color)) in names.iter().zip([BLUE, ORANGE]).enumerate() {
        let x = at.0 + k as f64 * 170.0;
        scene.line((x, at.1 - 4.0), (x + 26.0, at.1 - 4.0), color, 3.0);
        scene.text((x + 32.0, at.1), name.clone(), 12.0, Anchor::Start);
    }
}

/// A probability with at most 3 decimals, trailing zeros removed.
pub fn short(x: f64) -> String {
    let s = format!("{x:.3}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

/// Isometric projection of the unit cube's point `(a, b, c)`.
pub fn iso(origin: (f64, f64), size: f64, v: [f64; 3]) -> (f64, f64) {
    let (c30, s30) = (30f64.to_radians().cos(), 30f64.to_radians().sin());
    (
        origin.0 + size * (v[1] - v[0]) * c30,
        origin.1 - size * (v[2] - (v[0] + v[1]) * s30),
    )
}

/// Convex hull (Andrew's monotone chain) of 2-D points, counter-clockwise.
pub fn convex_hull(mut pts: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    pts.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    pts.dedup_by(|a, b| (a.0 - b.0).abs() < 1e-9 && (a.1 - b.1).abs() < 1e-9);
    if pts.len() < 3 {
        return pts;
    }
    let cross = |o: (f64, f64), a: (f64, f64), b: (f64, f64)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 1e-12
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// A value per `(m, n)` cell, `None` where it does not apply.
pub type CellFn<'a> = &'a dyn Fn(usize, usize) -> Option<f64>;

/// Colour of `t` in [0, 1] on a perceptually ordered dark-blue to yellow scale.
pub fn heat_color(t: f64) -> Rgb {
    const STOPS: [Rgb; 5] = [
        (68, 1, 84),
        (59, 82, 139),
        (33, 145, 140),
        (94, 201, 98),
        (253, 231, 37),
    ];
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (STOPS.len() - 1) as f64;
    let i = (x.floor() as usize).min(STOPS.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// One heat map over `(m, n)` in `0..=size`: `cell(m, n)` gives the value in [0, 1] or
/// `None` (drawn grey). `mark` outlines one cell.
#[allow(clippy::too_many_arguments)]
pub fn heat_map(
    scene: &mut Scene,
    left: f64,
    top: f64,
    cell_px: f64,
    size: usize,
    title: &str,
    cell: &dyn Fn(usize, usize) -> Option<f64>,
    mark: Option<(usize, usize)>,
) {
    scene.text(
        (left + cell_px * (size + 1) as f64 / 2.0, top - 10.0),
        title,
        13.0,
        Anchor::Middle,
    );
    for m in 0..=size {
        for n in 0..=size {
            let v = cell(m, n);
            // m grows to the right, n upwards.
            let x = left + m as f64 * cell_px;
            let y = top + (size - n) as f64 * cell_px;
            scene.push(Shape::Rect {
                x,
                y,
                w: cell_px,
                h: cell_px,
                fill: Some(v.map_or((215, 215, 215), heat_color)),
                stroke: None,
                title: Some(match v {
                    Some(v) => format!("m = {m}, n = {n}: {v:.4}"),
                    None => format!("m = {m}, n = {n}: not applicable"),
                }),
            });
        }
    }
    let side = cell_px * (size + 1) as f64;
    scene.push(Shape::Rect {
        x: left,
        y: top,
        w: side,
        h: side,
        fill: None,
        stroke: Some(AXIS),
        title: None,
    });
    let step = size.div_ceil(5).max(1);
    for k in (0..=size).step_by(step) {
        let c = k as f64 * cell_px + cell_px / 2.0;
        scene.text(
            (left + c, top + side + 14.0),
            k.to_string(),
            10.0,
            Anchor::Middle,
        );
        scene.text(
            (left - 4.0, top + side - c + 4.0),
            k.to_string(),
            10.0,
            Anchor::End,
        );
    }
    scene.text(
        (left + side / 2.0, top + side + 30.0),
        "m (first mover's cards)",
        11.0,
        Anchor::Middle,
    );
    scene.push(Shape::Text {
        at: (left - 22.0, top + side / 2.0),
        text: "n (second player's cards)".into(),
        size: 11.0,
        anchor: Anchor::Middle,
        color: (30, 30, 30),
        vertical: true,
    });
    if let Some((m, n)) = mark {
        if m <= size && n <= size {
            scene.push(Shape::Rect {
                x: left + m as f64 * cell_px,
                y: top + (size - n) as f64 * cell_px,
                w: cell_px,
                h: cell_px,
                fill: None,
                stroke: Some((230, 30, 30)),
                title: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn action_colours_go_by_name() {
        assert_eq!(action_color("Fold"), action_color("fold"));
        assert_eq!(action_color(" Fold "), action_color("FOLD"));
        let named: std::collections::BTreeSet<Rgb> =
            NAMED_ACTIONS.iter().map(|(n, _)| action_color(n)).collect();
        assert_eq!(
            named.len(),
            NAMED_ACTIONS.len(),
            "two named actions share a colour"
        );
        // Any other name takes a palette colour, the same each time.
        let c = action_color("Name a card");
        assert!(ACTION_PALETTE.contains(&c));
        assert_eq!(c, action_color("Name a card"));
    }
}
