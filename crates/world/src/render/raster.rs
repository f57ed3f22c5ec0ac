use tiny_skia::{
    Color, FillRule, LineCap, LineJoin, Paint, Path, PathBuilder, PixmapMut, Stroke, Transform,
};

use super::outline::PathStep;
use super::picture::Mark;
use super::Rgb;

/// Clears the canvas to `background`, then paints the marks in order,
/// anti-aliased.
pub(crate) fn paint(
    canvas: &mut PixmapMut<'_>,
    background: Rgb,
    marks: impl Iterator<Item = Mark>,
) {
    canvas.fill(color(background));
    for mark in marks {
        paint_mark(canvas, &mark);
    }
}

fn paint_mark(canvas: &mut PixmapMut<'_>, mark: &Mark) {
    // A path tiny-skia refuses (empty, or with non-finite points) has
    // nothing to show.
    let Some(path) = skia_path(&mark.path) else {
        return;
    };
    if let Some(fill) = mark.fill {
        canvas.fill_path(
            &path,
            &solid(fill),
            FillRule::Winding,
            Transform::identity(),
            None,
        );
    }
    if let Some((rgb, width)) = mark.stroke {
        let stroke = Stroke {
            width,
            line_cap: LineCap::Round,
            line_join: LineJoin::Round,
            ..Stroke::default()
        };
        canvas.stroke_path(&path, &solid(rgb), &stroke, Transform::identity(), None);
    }
}

fn skia_path(steps: &[PathStep]) -> Option<Path> {
    let mut builder = PathBuilder::new();
    for step in steps {
        match *step {
            PathStep::Move(p) => builder.move_to(p.x, p.y),
            PathStep::Line(p) => builder.line_to(p.x, p.y),
            PathStep::Cubic(c1, c2, p) => builder.cubic_to(c1.x, c1.y, c2.x, c2.y, p.x, p.y),
            PathStep::Close => builder.close(),
        }
    }
    builder.finish()
}

fn solid(rgb: Rgb) -> Paint<'static> {
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    paint.set_color(color(rgb));
    paint
}

fn color(rgb: Rgb) -> Color {
    Color::from_rgba8(rgb.r, rgb.g, rgb.b, 255)
}
