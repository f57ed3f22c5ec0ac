use glam::Vec2;

use crate::crossing::{edge_hit, segment_crossing};
use crate::error::{check_core, check_point, ShapeError};
use crate::{Aabb, MassProperties, Ray, RayHit, Transform};

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
///
/// Having no interior, a segment contains no point, its signed distance is
/// the plain (never negative) distance, and it is hit by rays from either side.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Segment {
    a: Vec2,
    b: Vec2,
}

impl Segment {
    /// A segment between two distinct, finite points.
    ///
    /// Fails with [`ShapeError::ZeroLengthSegment`] when `|b − a|²` rounds
    /// to zero, and with [`ShapeError::NonFinite`] when it overflows.
    pub fn new(a: Vec2, b: Vec2) -> Result<Segment, ShapeError> {
        check_point(a, "segment end a")?;
        check_point(b, "segment end b")?;
        check_core(a, b, ShapeError::ZeroLengthSegment)?;
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
    ///
    /// A constructed segment always has one. Only [`Segment::transformed`]
    /// with a translation so large that it rounds both ends onto the same
    /// point can make them coincide; the normal is then `+y` rather than NaN.
    #[inline]
    pub fn normal(&self) -> Vec2 {
        (self.b - self.a).perp().normalize_or(Vec2::Y)
    }

    /// The tight bounding box in the segment's frame.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::around_segment(self.a, self.b, 0.0)
    }

    /// The tight bounding box of the segment placed by `xf`.
    #[inline]
    pub fn aabb_at(&self, xf: &Transform) -> Aabb {
        Aabb::around_segment(xf.apply(self.a), xf.apply(self.b), 0.0)
    }

    /// The same segment with both end points mapped by `xf`.
    #[inline]
    pub fn transformed(&self, xf: &Transform) -> Segment {
        Segment {
            a: xf.apply(self.a),
            b: xf.apply(self.b),
        }
    }

    /// Always `false`: a segment has no interior, so it contains no point,
    /// not even its own.
    #[inline]
    pub fn contains(&self, _p: Vec2) -> bool {
        false
    }

    /// The point of the segment nearest `p` (see [`closest_point_on_segment`]).
    #[inline]
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        closest_point_on_segment(self.a, self.b, p).point
    }

    /// The distance from `p` to the segment, never negative: a segment has no
    /// inside.
    #[inline]
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        (p - self.closest_point(p)).length()
    }

    /// Where `ray` crosses the segment, from either side.
    ///
    /// The normal is the unit normal facing the ray's origin. A ray parallel
    /// to the segment, even one running along it, does not hit; a ray that
    /// starts on the segment hits at fraction 0.
    pub fn ray_cast(&self, ray: &Ray) -> Option<RayHit> {
        let t = segment_crossing(ray, self.a, self.b)?;
        let left = self.normal();
        let facing_origin = if left.dot(ray.translation) > 0.0 {
            -left
        } else {
            left
        };
        Some(edge_hit(ray, t, facing_origin))
    }

    /// Zero: a segment has no area.
    #[inline]
    pub fn area(&self) -> f32 {
        0.0
    }

    /// No mass and no inertia, with the centre at the midpoint so that a
    /// body made only of segments still has a sensible reference point.
    #[inline]
    pub fn mass_properties(&self, _density: f32) -> MassProperties {
        MassProperties {
            mass: 0.0,
            center: 0.5 * (self.a + self.b),
            inertia: 0.0,
        }
    }

    /// Zero: a segment has no thickness.
    #[inline]
    pub fn min_extent(&self) -> f32 {
        0.0
    }

    /// The largest distance from `from` to the segment, reached at an end.
    #[inline]
    pub fn max_extent(&self, from: Vec2) -> f32 {
        (from - self.a).length().max((from - self.b).length())
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    fn segment() -> Segment {
        Segment::new(Vec2::new(0.0, 0.0), Vec2::new(4.0, 0.0)).unwrap()
    }

    fn ray(origin: (f32, f32), translation: (f32, f32)) -> Ray {
        Ray {
            origin: Vec2::new(origin.0, origin.1),
            translation: Vec2::new(translation.0, translation.1),
        }
    }

    #[test]
    fn rejects_coincident_and_underflowing_ends() {
        let err = Segment::new(Vec2::ONE, Vec2::ONE);
        assert_eq!(err, Err(ShapeError::ZeroLengthSegment));
        let tiny = Segment::new(Vec2::ZERO, Vec2::new(1e-30, 0.0));
        assert_eq!(tiny, Err(ShapeError::ZeroLengthSegment));
        let huge = Segment::new(Vec2::new(-1e20, 0.0), Vec2::new(1e20, 0.0));
        assert!(matches!(huge, Err(ShapeError::NonFinite { .. })));
    }

    #[test]
    fn closest_point_on_segment_clamps_and_handles_a_point_core() {
        let (a, b) = (Vec2::ZERO, Vec2::new(4.0, 0.0));
        let mid = closest_point_on_segment(a, b, Vec2::new(1.0, 3.0));
        assert_eq!((mid.point, mid.t), (Vec2::new(1.0, 0.0), 0.25));
        assert_eq!(closest_point_on_segment(a, b, Vec2::new(-2.0, 1.0)).t, 0.0);
        assert_eq!(closest_point_on_segment(a, b, Vec2::new(9.0, 1.0)).t, 1.0);
        let point_core = closest_point_on_segment(a, a, Vec2::new(3.0, 3.0));
        assert_eq!((point_core.point, point_core.t), (a, 0.0));
    }

    #[test]
    fn normal_is_the_left_normal() {
        assert_eq!(segment().normal(), Vec2::Y);
    }

    #[test]
    fn bounds_local_and_placed() {
        let s = segment();
        assert_eq!(s.aabb(), Aabb::new(Vec2::ZERO, Vec2::new(4.0, 0.0)));
        let xf = Transform::new(Vec2::new(1.0, 1.0), FRAC_PI_2);
        let placed = s.aabb_at(&xf);
        assert!(placed.min.abs_diff_eq(Vec2::new(1.0, 1.0), 1e-6));
        assert!(placed.max.abs_diff_eq(Vec2::new(1.0, 5.0), 1e-6));
    }

    #[test]
    fn transformed_turns_the_normal_with_it() {
        let xf = Transform::new(Vec2::new(1.0, 1.0), FRAC_PI_2);
        let moved = segment().transformed(&xf);
        assert!(moved.b().abs_diff_eq(Vec2::new(1.0, 5.0), 1e-6));
        assert!(moved.normal().abs_diff_eq(Vec2::new(-1.0, 0.0), 1e-6));
    }

    #[test]
    fn distance_is_unsigned_and_nothing_is_contained() {
        let s = segment();
        assert_eq!(s.signed_distance(Vec2::new(2.0, -3.0)), 3.0);
        assert_eq!(s.signed_distance(Vec2::new(2.0, 0.0)), 0.0);
        assert_eq!(s.signed_distance(Vec2::new(7.0, 4.0)), 5.0);
        assert!(!s.contains(Vec2::new(2.0, 0.0)));
        assert_eq!(s.closest_point(Vec2::new(7.0, 4.0)), Vec2::new(4.0, 0.0));
    }

    #[test]
    fn ray_cast_from_either_side_faces_the_origin() {
        let s = segment();
        let from_above = s.ray_cast(&ray((1.0, 2.0), (0.0, -4.0))).unwrap();
        assert_eq!(from_above.fraction, 0.5);
        assert_eq!(from_above.point, Vec2::new(1.0, 0.0));
        assert_eq!(from_above.normal, Vec2::Y);
        let from_below = s.ray_cast(&ray((1.0, -2.0), (0.0, 4.0))).unwrap();
        assert_eq!(from_below.normal, -Vec2::Y);
    }

    #[test]
    fn ray_starting_on_the_segment_hits_at_zero() {
        let hit = segment().ray_cast(&ray((2.0, 0.0), (0.0, 1.0))).unwrap();
        assert_eq!(hit.fraction, 0.0);
        assert_eq!(hit.normal, -Vec2::Y);
    }

    #[test]
    fn parallel_short_and_zero_rays_miss() {
        let s = segment();
        for r in [
            ray((-1.0, 0.0), (6.0, 0.0)),
            ray((-1.0, 1.0), (6.0, 0.0)),
            ray((1.0, 2.0), (0.0, -1.0)),
            ray((1.0, 0.0), (0.0, 0.0)),
        ] {
            assert_eq!(s.ray_cast(&r), None, "{r:?}");
        }
    }

    #[test]
    fn no_mass_centre_at_the_middle() {
        let m = segment().mass_properties(5.0);
        assert_eq!(m.mass, 0.0);
        assert_eq!(m.inertia, 0.0);
        assert_eq!(m.center, Vec2::new(2.0, 0.0));
        assert_eq!(segment().area(), 0.0);
    }

    #[test]
    fn extents() {
        let s = segment();
        assert_eq!(s.min_extent(), 0.0);
        assert_eq!(s.max_extent(Vec2::new(1.0, 0.0)), 3.0);
        assert_eq!(s.max_extent(Vec2::new(4.0, 3.0)), 5.0);
    }

    #[test]
    fn ends_rounded_together_by_a_far_transform_stay_finite() {
        let s = Segment::new(Vec2::ZERO, Vec2::new(1e-6, 0.0)).unwrap();
        let far = s.transformed(&Transform::from_translation(Vec2::new(1e6, 0.0)));
        assert_eq!(far.a(), far.b());
        assert_eq!(far.normal(), Vec2::Y);
        assert!(far.signed_distance(Vec2::new(1e6, 1.0)).is_finite());
        assert_eq!(far.ray_cast(&ray((1e6, 1.0), (0.0, -2.0))), None);
    }
}
