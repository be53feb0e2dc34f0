//! Pictures as lists of shapes, written either as inline SVG (for the HTML page) or as PNG
//! (through plotters' bitmap backend, with text drawn by ab_glyph in the embedded DejaVu Sans).

#[cfg(feature = "png")]
#[cfg(feature = "png")]
use crate::error::{err, Result};
use std::fmt::Write as _;

/// An RGB colour.
pub type Rgb = (u8, u8, u8);

/// Horizontal alignment of text relative to its anchor point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The text starts at the point.
    Start,
    /// The text is centred on the point.
    Middle,
    /// The text ends at the point.
    End,
}

/// One drawing primitive; coordinates are pixels from the top-left corner.
#[derive(Clone, Debug)]
pub enum Shape {
    /// A rectangle, optionally filled and outlined, with an optional hover title.
    Rect {
        /// Left edge.
        x: f64,
        /// Top edge.
        y: f64,
        /// Width.
        w: f64,
        /// Height.
        h: f64,
        /// Fill colour.
        fill: Option<Rgb>,
        /// Outline colour.
        stroke: Option<Rgb>,
        /// Tooltip text (SVG only).
        title: Option<String>,
    },
    /// A straight line.
    Line {
        /// Start and end points.
        from: (f64, f64),
        /// End point.
        to: (f64, f64),
        /// Colour.
        color: Rgb,
        /// Width in pixels.
        width: f64,
    },
    /// An open polyline.
    Polyline {
        /// The points in order.
        points: Vec<(f64, f64)>,
        /// Colour.
        color: Rgb,
        /// Width in pixels.
        width: f64,
    },
    /// A filled, closed polygon with opacity and an optional outline.
    Polygon {
        /// The corners in order.
        points: Vec<(f64, f64)>,
        /// Fill colour.
        fill: Rgb,
        /// Fill opacity in [0, 1].
        opacity: f64,
        /// Outline colour.
        stroke: Option<Rgb>,
    },
    /// A filled disc with an optional tooltip.
    Circle {
        /// Centre.
        center: (f64, f64),
        /// Radius.
        r: f64,
        /// Fill colour.
        fill: Rgb,
        /// Tooltip text (SVG only).
        title: Option<String>,
    },
    /// A line of text.
    Text {
        /// Anchor point (baseline).
        at: (f64, f64),
        /// The text.
        text: String,
        /// Font size in pixels.
        size: f64,
        /// Alignment.
        anchor: Anchor,
        /// Colour.
        color: Rgb,
        /// Rotated 90 degrees counter-clockwise (for vertical axis titles).
        vertical: bool,
    },
}

/// A picture: a size and its shapes, drawn in order.
#[derive(Clone, Debug)]
pub struct Scene {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// The shapes, back to front.
    pub shapes: Vec<Shape>,
}

/// Escapes text for HTML and SVG.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

pub(crate) fn hex(c: Rgb) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0, c.1, c.2)
}

fn points_attr(points: &[(f64, f64)]) -> String {
    let parts: Vec<String> = points
        .iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect();
    parts.join(" ")
}

impl Scene {
    /// An empty white picture.
    pub fn new(width: u32, height: u32) -> Self {
        Scene {
            width,
            height,
            shapes: Vec::new(),
        }
    }

    /// Adds a shape.
    pub fn push(&mut self, shape: Shape) {
        self.shapes.push(shape);
    }

    /// Adds text (horizontal).
    pub fn text(&mut self, at: (f64, f64), text: impl Into<String>, size: f64, anchor: Anchor) {
        self.push(Shape::Text {
            at,
            text: text.into(),
            size,
            anchor,
            color: (30, 30, 30),
            vertical: false,
        });
    }

    /// Adds a line.
    pub fn line(&mut self, from: (f64, f64), to: (f64, f64), color: Rgb, width: f64) {
        self.push(Shape::Line {
            from,
            to,
            color,
            width,
        });
    }

    /// The picture as an inline `<svg>` element; `label` becomes its accessible name.
    pub fn to_svg(&self, label: &str) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" \
             height=\"{h}\" role=\"img\" aria-label=\"{label}\" \
             font-family=\"Helvetica, Arial, sans-serif\">",
            w = self.width,
            h = self.height,
            label = escape(label)
        );
        let _ = write!(
            s,
            "<rect width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>",
            self.width, self.height
        );
        for shape in &self.shapes {
            match shape {
                Shape::Rect {
                    x,
                    y,
                    w,
                    h,
                    fill,
                    stroke,
                    title,
                } => {
                    let _ = write!(
                        s,
                        "<rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{h:.1}\" \
                         fill=\"{}\" stroke=\"{}\"",
                        fill.map_or("none".into(), hex),
                        stroke.map_or("none".into(), hex)
                    );
                    match title {
                        Some(t) => {
                            let _ = write!(s, "><title>{}</title></rect>", escape(t));
                        }
                        None => s.push_str("/>"),
                    }
                }
                Shape::Line {
                    from,
                    to,
                    color,
                    width,
                } => {
                    let _ = write!(
                        s,
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" \
                         stroke=\"{}\" stroke-width=\"{width}\"/>",
                        from.0,
                        from.1,
                        to.0,
                        to.1,
                        hex(*color)
                    );
                }
                Shape::Polyline {
                    points,
                    color,
                    width,
                } => {
                    let _ = write!(
                        s,
                        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" \
                         stroke-width=\"{width}\" stroke-linejoin=\"round\"/>",
                        points_attr(points),
                        hex(*color)
                    );
                }
                Shape::Polygon {
                    points,
                    fill,
                    opacity,
                    stroke,
                } => {
                    let _ = write!(
                        s,
                        "<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{opacity}\" \
                         stroke=\"{}\"/>",
                        points_attr(points),
                        hex(*fill),
                        stroke.map_or("none".into(), hex)
                    );
                }
                Shape::Circle {
                    center,
                    r,
                    fill,
                    title,
                } => {
                    let _ = write!(
                        s,
                        "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{r}\" fill=\"{}\"",
                        center.0,
                        center.1,
                        hex(*fill)
                    );
                    match title {
                        Some(t) => {
                            let _ = write!(s, "><title>{}</title></circle>", escape(t));
                        }
                        None => s.push_str("/>"),
                    }
                }
                Shape::Text {
                    at,
                    text,
                    size,
                    anchor,
                    color,
                    vertical,
                } => {
                    let anchor = match anchor {
                        Anchor::Start => "start",
                        Anchor::Middle => "middle",
                        Anchor::End => "end",
                    };
                    let transform = if *vertical {
                        format!(" transform=\"rotate(-90 {:.1} {:.1})\"", at.0, at.1)
                    } else {
                        String::new()
                    };
                    let _ = write!(
                        s,
                        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"{size}\" \
                         text-anchor=\"{anchor}\" fill=\"{}\"{transform}>{}</text>",
                        at.0,
                        at.1,
                        hex(*color),
                        escape(text)
                    );
                }
            }
        }
        s.push_str("</svg>");
        s
    }

    /// The picture as PNG bytes at `scale` times its size (feature `png`) (drawn in memory; written by the
    /// caller through the one safe-write path, `format::output`).
    #[cfg(feature = "png")]
    pub fn to_png(&self, scale: u32) -> Result<Vec<u8>> {
        use plotters::prelude::*;
        let (w, h) = (self.width * scale, self.height * scale);
        let mut rgb = vec![0u8; w as usize * h as usize * 3];
        {
            let mut backend = BitMapBackend::with_buffer(&mut rgb, (w, h));
            let err = |e: &dyn std::fmt::Display| err!(Invalid, "drawing a picture: {e}");
            let k = scale as f64;
            let pt = |p: (f64, f64)| ((p.0 * k).round() as i32, (p.1 * k).round() as i32);
            let style = |c: Rgb, alpha: f64, filled: bool, width: f64| ShapeStyle {
                color: RGBAColor(c.0, c.1, c.2, alpha),
                filled,
                stroke_width: ((width * k).round() as u32).max(1),
            };
            backend
                .draw_rect(
                    (0, 0),
                    (w as i32, h as i32),
                    &style((255, 255, 255), 1.0, true, 1.0),
                    true,
                )
                .map_err(|e| err(&e))?;
            for shape in &self.shapes {
                match shape {
                    Shape::Rect {
                        x,
                        y,
                        w,
                        h,
                        fill,
                        stroke,
                        ..
                    } => {
                        let (a, b) = (pt((*x, *y)), pt((x + w, y + h)));
                        if let Some(c) = fill {
                            backend
                                .draw_rect(a, b, &style(*c, 1.0, true, 1.0), true)
                                .map_err(|e| err(&e))?;
                        }
                        if let Some(c) = stroke {
                            backend
                                .draw_rect(a, b, &style(*c, 1.0, false, 1.0), false)
                                .map_err(|e| err(&e))?;
                        }
                    }
                    Shape::Line {
                        from,
                        to,
                        color,
                        width,
                    } => {
                        backend
                            .draw_path([pt(*from), pt(*to)], &style(*color, 1.0, false, *width))
                            .map_err(|e| err(&e))?;
                    }
                    Shape::Polyline {
                        points,
                        color,
                        width,
                    } => {
                        backend
                            .draw_path(
                                points.iter().map(|p| pt(*p)),
                                &style(*color, 1.0, false, *width),
                            )
                            .map_err(|e| err(&e))?;
                    }
                    Shape::Polygon {
                        points,
                        fill,
                        opacity,
                        stroke,
                    } => {
                        backend
                            .fill_polygon(
                                points.iter().map(|p| pt(*p)),
                                &style(*fill, *opacity, true, 1.0),
                            )
                            .map_err(|e| err(&e))?;
                        if let Some(c) = stroke {
                            let mut closed: Vec<(i32, i32)> =
                                points.iter().map(|p| pt(*p)).collect();
                            if let Some(&first) = closed.first() {
                                closed.push(first);
                            }
                            backend
                                .draw_path(closed, &style(*c, 1.0, false, 1.0))
                                .map_err(|e| err(&e))?;
                        }
                    }
                    Shape::Circle {
                        center, r, fill, ..
                    } => {
                        backend
                            .draw_circle(
                                pt(*center),
                                (r * k).round().max(1.0) as u32,
                                &style(*fill, 1.0, true, 1.0),
                                true,
                            )
                            .map_err(|e| err(&e))?;
                    }
                    Shape::Text {
                        at,
                        text,
                        size,
                        anchor,
                        color,
                        vertical,
                    } => {
                        draw_text(
                            &mut backend,
                            *at,
                            text,
                            *size,
                            *anchor,
                            *color,
                            *vertical,
                            k,
                        )?;
                    }
                }
            }
            backend.present().map_err(|e| err(&e))?;
        }
        let mut png = Vec::new();
        let mut encoder = png::Encoder::new(&mut png, w, h);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder
            .write_header()
            .and_then(|mut writer| writer.write_image_data(&rgb))
            .map_err(|e| err!(Invalid, "encoding a picture as PNG: {e}"))?;
        Ok(png)
    }
}

/// DejaVu Sans (its licence is `fonts/DejaVuSans-LICENSE.txt` beside it), embedded so that the
/// pictures do not depend on the fonts installed on the machine.
#[cfg(feature = "png")]
const FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");

/// Draws text in DejaVu Sans at `size` pixels per em (as the SVG's `font-size`), anti-aliased,
/// on the baseline through `at`; vertical text reads upwards.
#[cfg(feature = "png")]
#[allow(clippy::too_many_arguments)]
fn draw_text(
    backend: &mut plotters::prelude::BitMapBackend,
    at: (f64, f64),
    text: &str,
    size: f64,
    anchor: Anchor,
    color: Rgb,
    vertical: bool,
    scale: f64,
) -> Result<()> {
    use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
    use plotters::prelude::{Color, DrawingBackend, RGBAColor};
    let font =
        FontRef::try_from_slice(FONT).map_err(|e| err!(Invalid, "the embedded font: {e}"))?;
    // ab_glyph scales by the font's height (ascent - descent); CSS sizes by the em.
    let em = (size * scale) as f32;
    let units_per_em = font.units_per_em().unwrap_or(2048.0);
    let px = PxScale::from(em * font.height_unscaled() / units_per_em);
    let scaled = font.as_scaled(px);
    // Lay the glyphs out along the baseline (u along the text, v across it, ink above v = 0).
    let mut glyphs = Vec::new();
    let mut caret = 0.0f32;
    let mut previous = None;
    for c in text.chars() {
        let id = scaled.glyph_id(c);
        if let Some(p) = previous {
            caret += scaled.kern(p, id);
        }
        glyphs.push(id.with_scale_and_position(px, point(caret, 0.0)));
        caret += scaled.h_advance(id);
        previous = Some(id);
    }
    let start = match anchor {
        Anchor::Start => 0.0,
        Anchor::Middle => -caret / 2.0,
        Anchor::End => -caret,
    };
    let (ax, ay) = ((at.0 * scale).round() as i32, (at.1 * scale).round() as i32);
    let offset = start.round() as i32;
    let mut failure = None;
    for glyph in glyphs {
        let Some(outline) = font.outline_glyph(glyph) else {
            continue; // a space
        };
        let bounds = outline.px_bounds();
        let (u0, v0) = (bounds.min.x as i32 + offset, bounds.min.y as i32);
        outline.draw(|gx, gy, coverage| {
            if coverage <= 0.0 || failure.is_some() {
                return;
            }
            let (u, v) = (u0 + gx as i32, v0 + gy as i32);
            let (x, y) = if vertical {
                (ax + v, ay - u)
            } else {
                (ax + u, ay + v)
            };
            let alpha = f64::from(coverage.min(1.0));
            let c = RGBAColor(color.0, color.1, color.2, alpha).to_backend_color();
            if let Err(e) = backend.draw_pixel((x, y), c) {
                failure = Some(e.to_string());
            }
        });
    }
    match failure {
        Some(e) => Err(err!(Invalid, "{e}")),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Scene {
        let mut s = Scene::new(120, 60);
        s.text((10.0, 30.0), "a<b & \"c\"", 12.0, Anchor::Start);
        s.line((0.0, 0.0), (120.0, 60.0), (255, 0, 0), 2.0);
        s.push(Shape::Polygon {
            points: vec![(10.0, 10.0), (50.0, 10.0), (30.0, 50.0)],
            fill: (0, 0, 255),
            opacity: 0.5,
            stroke: Some((0, 0, 0)),
        });
        s
    }

    #[test]
    fn svg_escapes_text() {
        let svg = sample().to_svg("t");
        assert!(svg.contains("a&lt;b &amp; &quot;c&quot;"));
        assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
    }

    /// The bounding box (width, height) of the dark pixels of a picture drawn at scale 2.
    #[cfg(feature = "png")]
    fn ink_box(scene: &Scene) -> (usize, usize) {
        let bytes = scene.to_png(2).unwrap();
        let mut reader = png::Decoder::new(&bytes[..]).read_info().unwrap();
        let width = reader.info().width as usize;
        let mut pixels = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut pixels).unwrap();
        let (mut x0, mut x1, mut y0, mut y1) = (usize::MAX, 0, usize::MAX, 0);
        for (i, p) in pixels.chunks(3).enumerate() {
            if p.iter().all(|&c| c < 128) {
                let (x, y) = (i % width, i / width);
                (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            }
        }
        assert!(x0 <= x1, "no ink");
        (x1 - x0 + 1, y1 - y0 + 1)
    }

    #[cfg(feature = "png")]
    #[test]
    fn png_text_is_drawn_at_the_em_size_and_turns_when_vertical() {
        // "Fold" in DejaVu Sans is 2.1 em wide (advances 0.575 + 0.612 + 0.278 + 0.635) and its
        // ink 0.76 em tall (the ascender of F, l and d): at 12 px per em, scale 2, 50 x 18 px.
        let mut s = Scene::new(100, 60);
        s.text((10.0, 40.0), "Fold", 12.0, Anchor::Start);
        let (w, h) = ink_box(&s);
        assert!(
            (44..=52).contains(&w) && (16..=20).contains(&h),
            "{w} x {h}"
        );
        let mut s = Scene::new(60, 100);
        s.push(Shape::Text {
            at: (40.0, 80.0),
            text: "Fold".into(),
            size: 12.0,
            anchor: Anchor::Start,
            color: (30, 30, 30),
            vertical: true,
        });
        assert_eq!(ink_box(&s), (h, w));
    }

    #[cfg(feature = "png")]
    #[test]
    fn png_has_the_scaled_size_and_ink_where_text_is() {
        let bytes = sample().to_png(2).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        // Width and height in the IHDR chunk: twice the scene's size.
        assert_eq!(&bytes[16..24], &[0, 0, 0, 240, 0, 0, 0, 120]);
        // Decoded, the picture is not blank: the text and shapes left dark pixels.
        let decoder = png::Decoder::new(&bytes[..]);
        let mut reader = decoder.read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size()];
        reader.next_frame(&mut pixels).unwrap();
        assert!(pixels.chunks(3).any(|p| p.iter().all(|&c| c < 128)));
    }
}
