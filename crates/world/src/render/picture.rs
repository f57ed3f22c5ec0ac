//! What to draw, independent of the output format: the world turned into a
//! list of styled paths in picture coordinates. The SVG and raster
//! backends only translate these marks.

use carom_shapes::{Circle, Sector, Segment, Shape, Stadium, Transform};
use glam::Vec2;

use super::outline::{PathBuilder, PathStep};
use super::{BodyStyle, Rgb, View};
use crate::{BodyKind, ShapeRef, World};

/// Width of a segment, pixels: walls must stay visible at any zoom.
const SEGMENT_WIDTH: f32 = 2.0;
/// Widest outline of a solid shape, pixels.
const MAX_OUTLINE: f32 = 1.25;
/// Outlines thinner than this, pixels, are left out: on shapes a few
/// pixels across they would hide the fill and with it the body's kind.
const MIN_OUTLINE: f32 = 0.3;
/// Circles smaller than this radius, pixels, get no rotation mark.
const MIN_MARKED_RADIUS: f32 = 3.0;
/// The rotation mark of a circle runs from this fraction of the radius to
/// the rim, leaving the centre in the fill colour.
const MARK_START: f32 = 0.3;
/// Radius of a contact point's dot, pixels.
const CONTACT_DOT: f32 = 2.5;
/// Length of a drawn contact normal, pixels.
const NORMAL_LENGTH: f32 = 12.0;
/// Width of a drawn contact normal, pixels.
const NORMAL_WIDTH: f32 = 1.25;

/// A styled path.
pub(crate) struct Mark {
    /// Whose mark it is, for SVG's `class`: the body kind (`"dynamic"`…)
    /// or `"contact"`.
    pub role: &'static str,
    /// What it shows, for SVG's `class`: `"circle"`, `"segment"`,
    /// `"stadium"`, `"sector"` or `"point"`.
    pub what: &'static str,
    pub path: Vec<PathStep>,
    pub fill: Option<Rgb>,
    /// Colour and width in pixels; `None` for no outline.
    pub stroke: Option<(Rgb, f32)>,
}

/// One mark per shape, in the world's shape order.
pub(crate) fn shape_marks<'a>(
    world: &'a World,
    view: &'a View,
    style_of: impl Fn(BodyKind, bool) -> BodyStyle + 'a,
) -> impl Iterator<Item = Mark> + 'a {
    world.shapes().map(move |shape| {
        let (kind, sleeping) = body_state(world, &shape);
        shape_mark(
            shape.shape(),
            &shape.transform(),
            kind,
            style_of(kind, sleeping),
            view,
        )
    })
}

/// One mark per contact point: a dot with its normal.
pub(crate) fn contact_marks<'a>(
    world: &'a World,
    view: &'a View,
    color: Rgb,
) -> impl Iterator<Item = Mark> + 'a {
    world.contacts().flat_map(move |contact| {
        let normal = contact.manifold.normal;
        let points = contact.manifold.points;
        let count = contact.manifold.count.min(points.len());
        points
            .into_iter()
            .take(count)
            .map(move |p| contact_mark(p.point, normal, color, view))
    })
}

/// The kind of a shape's body and whether it sleeps.
fn body_state(world: &World, shape: &ShapeRef<'_>) -> (BodyKind, bool) {
    // A shape's body is always alive while the shape is; the fallback only
    // keeps a stale view from aborting a picture.
    world
        .body(shape.body())
        .map(|b| (b.kind(), b.is_sleeping()))
        .unwrap_or((BodyKind::Static, false))
}

fn shape_mark(
    shape: &Shape,
    xf: &Transform,
    kind: BodyKind,
    style: BodyStyle,
    view: &View,
) -> Mark {
    let mut path = PathBuilder::new(view);
    let (what, size) = match shape {
        Shape::Circle(c) => ("circle", circle_path(&mut path, c, xf, view)),
        Shape::Segment(s) => {
            segment_path(&mut path, s, xf);
            return Mark {
                role: kind.as_str(),
                what: "segment",
                path: path.finish(),
                fill: None,
                stroke: Some((style.stroke, SEGMENT_WIDTH)),
            };
        }
        Shape::Stadium(s) => ("stadium", stadium_path(&mut path, s, xf, view)),
        Shape::Sector(s) => ("sector", sector_path(&mut path, s, xf, view)),
    };
    let outline = (size * 0.2).min(MAX_OUTLINE);
    Mark {
        role: kind.as_str(),
        what,
        path: path.finish(),
        fill: Some(style.fill),
        stroke: (outline >= MIN_OUTLINE).then_some((style.stroke, outline)),
    }
}

/// A disc with a mark from near the centre to the rim along the body's x
/// axis, so that rolling shows. Returns the radius in pixels.
fn circle_path(path: &mut PathBuilder<'_>, circle: &Circle, xf: &Transform, view: &View) -> f32 {
    let center = xf.apply(circle.center());
    let radius = circle.radius();
    path.move_to(center + Vec2::X * radius)
        .arc(center, radius, 0.0, std::f32::consts::TAU)
        .close();
    let radius_px = radius * view.scale();
    if radius_px >= MIN_MARKED_RADIUS {
        let axis = xf.rotation.x_axis();
        path.move_to(center + axis * (radius * MARK_START))
            .line_to(center + axis * radius);
    }
    radius_px
}

fn segment_path(path: &mut PathBuilder<'_>, segment: &Segment, xf: &Transform) {
    path.move_to(xf.apply(segment.a()))
        .line_to(xf.apply(segment.b()));
}

/// Two straight sides joined by a half circle at each end, counter-clockwise.
/// Returns the radius in pixels.
fn stadium_path(path: &mut PathBuilder<'_>, stadium: &Stadium, xf: &Transform, view: &View) -> f32 {
    let (a, b) = (xf.apply(stadium.a()), xf.apply(stadium.b()));
    let radius = stadium.radius();
    let side = (b - a).normalize_or(Vec2::X).perp() * radius;
    let side_angle = side.y.atan2(side.x);
    let half_turn = std::f32::consts::PI;
    path.move_to(a - side)
        .line_to(b - side)
        .arc(b, radius, side_angle - half_turn, half_turn)
        .line_to(a + side)
        .arc(a, radius, side_angle, half_turn)
        .close();
    radius * view.scale()
}

/// A pie slice: apex, first edge, arc, back along the second edge. A whole
/// turn is a disc with its first edge drawn, so that rotation shows.
/// Returns the radius in pixels.
fn sector_path(path: &mut PathBuilder<'_>, sector: &Sector, xf: &Transform, view: &View) -> f32 {
    let apex = xf.apply(sector.center());
    let radius = sector.radius();
    let start = xf.rotation.angle() + sector.start();
    let first_edge = apex + Vec2::from_angle(start) * radius;
    if sector.sweep() >= std::f32::consts::TAU {
        path.move_to(first_edge)
            .arc(apex, radius, start, sector.sweep())
            .close()
            .move_to(apex)
            .line_to(first_edge);
    } else {
        path.move_to(apex)
            .line_to(first_edge)
            .arc(apex, radius, start, sector.sweep())
            .close();
    }
    radius * view.scale()
}

fn contact_mark(point: Vec2, normal: Vec2, color: Rgb, view: &View) -> Mark {
    let dot_radius = CONTACT_DOT / view.scale();
    let tip = point + normal * (NORMAL_LENGTH / view.scale());
    let mut path = PathBuilder::new(view);
    path.move_to(point + Vec2::X * dot_radius)
        .arc(point, dot_radius, 0.0, std::f32::consts::TAU)
        .close()
        .move_to(point)
        .line_to(tip);
    Mark {
        role: "contact",
        what: "point",
        path: path.finish(),
        fill: Some(color),
        stroke: Some((color, NORMAL_WIDTH)),
    }
}
