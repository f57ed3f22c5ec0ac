use glam::Vec2;

use crate::error::{check_point, ShapeError};

/// The closest point on a segment to a query point, with its parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClosestPoint {
    /// The closest point itself.
    pub point: Vec2,
    /// Where it lies along the segment: 0 at `a`, 1 at `b`.
    pub t: f32,
}

/// The closest point on segment `ab` to `p`.
///
/// Project `p` onto the line through `a` and `b` and clamp to the end points:
/// `t = clamp((p − a)·(b − a) / |b − a|², 0, 1)`, closest = `a + t (b − a)`.
/// The clamp is done on the numerators before dividing, so a segment whose
/// end points coincide (a circle's core) answers `a` with `t = 0` instead of
/// dividing zero by zero.
#[inline]
pub fn closest_point_on_segment(a: Vec2, b: Vec2, p: Vec2) -> ClosestPoint {
    let e = b - a;
    let along = (p - a).dot(e);
    if along <= 0.0 {
        return ClosestPoint { point: a, t: 0.0 };
    }
    let len_sq = e.length_squared();
    if along >= len_sq {
        return ClosestPoint { point: b, t: 1.0 };
    }
    let t = along / len_sq;
    ClosestPoint {
        point: a + t * e,
        t,
    }
}

/// A line segment from `a` to `b`: no thickness, no area, no mass.
///
/// Segments are walls. Which side of a segment is "outside" matters only when
/// a point lies exactly on it; carom then uses the left normal
/// `perp(b − a) / |b − a|` (see [`Segment::normal`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    a: Vec2,
    b: Vec2,
}

impl Segment {
    /// A segment between two distinct, finite points.
    pub fn new(a: Vec2, b: Vec2) -> Result<Segment, ShapeError> {
        check_point(a, "segment end a")?;
        check_point(b, "segment end b")?;
        if a == b {
            return Err(ShapeError::ZeroLengthSegment);
        }
        Ok(Segment { a, b })
    }

    /// The first end point.
    #[inline]
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// The second end point.
    #[inline]
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The length `|b − a|`.
    #[inline]
    pub fn length(&self) -> f32 {
        (self.b - self.a).length()
    }

    /// The unit left normal `perp(b − a) / |b − a|`, rotated 90° counter-clockwise
    /// from the direction a → b.
    #[inline]
    pub fn normal(&self) -> Vec2 {
        (self.b - self.a).perp().normalize()
    }
}
