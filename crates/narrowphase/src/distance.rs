//! Signed distance between two shapes.
//!
//! The contact routines are exact, so with an infinite margin the deepest
//! point of a manifold is the pair's signed separation, and the witness
//! points lie half that separation either side of it along the normal. Two
//! segments, which have no contact, get their plain (never negative)
//! distance from their closest points.

use carom_shapes::{Segment, Shape, Transform};
use glam::Vec2;

use crate::collide::collide;
use crate::segment_circle::COINCIDENT_NORMAL;
use crate::segment_pair::closest_points_between_segments;
use crate::vector::{left_normal_or, unit_and_length};

/// How far apart two shapes are: see [`shape_distance`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShapeDistance {
    /// Signed distance between the surfaces: positive when apart, minus the
    /// penetration depth when overlapping.
    pub separation: f32,
    /// Unit normal from A to B along which `separation` is measured.
    pub normal: Vec2,
    /// The point of A's surface (its deepest point into B when overlapping).
    pub point_a: Vec2,
    /// The point of B's surface: `point_a + separation · normal`.
    pub point_b: Vec2,
}

/// The signed separation of shapes `a` and `b` placed by their transforms,
/// with the normal from A to B and a witness point on each surface.
///
/// For a sector wider than π the overlap depth is that of its deeper convex
/// half, as in [`collide`]; the distance between shapes that are apart is
/// exact for every pair.
pub fn shape_distance(a: &Shape, xf_a: &Transform, b: &Shape, xf_b: &Transform) -> ShapeDistance {
    if let (Shape::Segment(a), Shape::Segment(b)) = (a, b) {
        return segment_segment_distance(a, xf_a, b, xf_b);
    }
    let manifold = collide(a, xf_a, b, xf_b, f32::INFINITY);
    let normal = manifold.normal;
    // Every pair but segment–segment yields a point when the margin is infinite.
    manifold.deepest().map_or(
        ShapeDistance {
            separation: f32::INFINITY,
            normal: COINCIDENT_NORMAL,
            point_a: xf_a.translation,
            point_b: xf_b.translation,
        },
        |p| ShapeDistance {
            separation: p.separation,
            normal,
            point_a: p.point - 0.5 * p.separation * normal,
            point_b: p.point + 0.5 * p.separation * normal,
        },
    )
}

/// The distance between two segments: zero when they cross or touch, the
/// normal then being A's left normal.
fn segment_segment_distance(
    a: &Segment,
    xf_a: &Transform,
    b: &Segment,
    xf_b: &Transform,
) -> ShapeDistance {
    let (a0, a1) = (xf_a.apply(a.a()), xf_a.apply(a.b()));
    let closest = closest_points_between_segments(a0, a1, xf_b.apply(b.a()), xf_b.apply(b.b()));
    let gap = unit_and_length(closest.point_b - closest.point_a).filter(|_| !closest.crossing);
    let (normal, separation) = gap.unwrap_or((left_normal_or(a0, a1, COINCIDENT_NORMAL), 0.0));
    ShapeDistance {
        separation,
        normal,
        point_a: closest.point_a,
        point_b: closest.point_b,
    }
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Circle, Stadium};

    use super::*;

    #[test]
    fn circles_apart_and_overlapping() {
        let a: Shape = Circle::new(Vec2::ZERO, 1.0).unwrap().into();
        let b: Shape = Circle::new(Vec2::ZERO, 0.5).unwrap().into();
        let far = Transform::from_translation(Vec2::new(0.0, 4.0));
        let d = shape_distance(&a, &Transform::IDENTITY, &b, &far);
        assert_eq!(d.separation, 2.5);
        assert_eq!(d.normal, Vec2::Y);
        assert!((d.point_a - Vec2::new(0.0, 1.0)).length() < 1e-6);
        assert!((d.point_b - Vec2::new(0.0, 3.5)).length() < 1e-6);
        let near = Transform::from_translation(Vec2::new(1.2, 0.0));
        let d = shape_distance(&a, &Transform::IDENTITY, &b, &near);
        assert!((d.separation + 0.3).abs() < 1e-6);
        assert!((d.point_a - Vec2::new(1.0, 0.0)).length() < 1e-6);
    }

    #[test]
    fn far_stadiums_are_measured_at_any_range() {
        let s: Shape = Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)
            .unwrap()
            .into();
        let xf = Transform::new(Vec2::new(100.0, 0.0), 0.5);
        let d = shape_distance(&s, &Transform::IDENTITY, &s, &xf);
        let b_left = xf.apply(Vec2::new(-1.0, 0.0));
        assert!((d.separation - ((b_left - Vec2::new(1.0, 0.0)).length() - 1.0)).abs() < 1e-4);
    }

    #[test]
    fn segments_get_plain_distance() {
        let a: Shape = Segment::new(Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0))
            .unwrap()
            .into();
        let b: Shape = Segment::new(Vec2::new(1.0, 0.5), Vec2::new(1.0, 3.0))
            .unwrap()
            .into();
        let d = shape_distance(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY);
        assert_eq!(d.separation, 0.5);
        assert_eq!(d.normal, Vec2::Y);
        assert_eq!(d.point_a, Vec2::new(1.0, 0.0));
        let down = Transform::from_translation(Vec2::new(0.0, -1.0));
        let d = shape_distance(&a, &Transform::IDENTITY, &b, &down);
        assert_eq!(d.separation, 0.0);
        assert_eq!(d.normal, Vec2::Y);
    }
}
