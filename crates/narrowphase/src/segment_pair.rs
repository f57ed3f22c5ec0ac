//! Closest points between two segments.
//!
//! Two segments that do not cross are closest at an end point of one of
//! them: if both closest points were inside their segments, the segments
//! would be parallel there (and then an end point does as well) or the
//! distance could still shrink. So the answer is the best of four
//! end-point-to-segment offsets, each the clamped projection used by the
//! segment–circle offset. Crossing segments are found first, from the signs
//! of the end points' sides, and meet at their intersection.
//!
//! This needs no division by the sine of the angle between the segments, so
//! parallel and nearly parallel segments are as exact as any others.

use carom_shapes::closest_point_on_segment;
use glam::Vec2;

use crate::capsule::PosedCapsule;
use crate::features::{END_A, END_B, SIDE};

/// The closest points of two segments: see [`closest_points_between_segments`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentPairClosest {
    /// The point of the first segment closest to the second.
    pub point_a: Vec2,
    /// The point of the second segment closest to the first.
    pub point_b: Vec2,
    /// Where `point_a` lies along the first segment: 0 at its start, 1 at its end.
    pub fraction_a: f32,
    /// Where `point_b` lies along the second segment.
    pub fraction_b: f32,
    /// Whether the segments properly cross (each one's end points lie strictly
    /// on both sides of the other's line); the points are then their
    /// intersection.
    pub crossing: bool,
}

impl SegmentPairClosest {
    /// The distance between the two points.
    pub fn distance(&self) -> f32 {
        (self.point_b - self.point_a).length()
    }
}

/// The closest points between segment `a0 a1` and segment `b0 b1`.
///
/// Zero-length segments are allowed. Among equally close pairs (parallel
/// overlapping segments) the first found wins, in the order: `a0`, `a1`
/// against the second segment, then `b0`, `b1` against the first.
pub fn closest_points_between_segments(
    a0: Vec2,
    a1: Vec2,
    b0: Vec2,
    b1: Vec2,
) -> SegmentPairClosest {
    if let Some(crossing) = intersection(a0, a1, b0, b1) {
        return crossing;
    }
    let on_b = closest_point_on_segment(b0, b1, a0);
    let mut best = SegmentPairClosest {
        point_a: a0,
        point_b: on_b.point,
        fraction_a: 0.0,
        fraction_b: on_b.t,
        crossing: false,
    };
    let mut best_sq = (on_b.point - a0).length_squared();
    let on_b = closest_point_on_segment(b0, b1, a1);
    let d_sq = (on_b.point - a1).length_squared();
    if d_sq < best_sq {
        best_sq = d_sq;
        best = SegmentPairClosest {
            point_a: a1,
            point_b: on_b.point,
            fraction_a: 1.0,
            fraction_b: on_b.t,
            crossing: false,
        };
    }
    for (end, fraction_b) in [(b0, 0.0), (b1, 1.0)] {
        let on_a = closest_point_on_segment(a0, a1, end);
        let d_sq = (end - on_a.point).length_squared();
        if d_sq < best_sq {
            best_sq = d_sq;
            best = SegmentPairClosest {
                point_a: on_a.point,
                point_b: end,
                fraction_a: on_a.t,
                fraction_b,
                crossing: false,
            };
        }
    }
    best
}

/// The closest points of two placed cores, with the feature of each core
/// they lie on: what [`closest_points_between_segments`] finds, in the same
/// order on ties, but projecting on the cores' unit axes rather than
/// dividing by a squared length for every end point.
pub(crate) fn closest_core_points(a: &PosedCapsule, b: &PosedCapsule) -> CorePoints {
    if let Some(c) = intersection(a.a, a.b, b.a, b.b) {
        return CorePoints {
            point_a: c.point_a,
            point_b: c.point_b,
            features: [SIDE, SIDE],
            crossing: true,
        };
    }
    let mut best = CorePoints {
        point_a: a.a,
        point_b: a.a,
        features: [END_A, END_A],
        crossing: false,
    };
    let mut best_sq = f32::INFINITY;
    for (end, feature) in [(a.a, END_A), (a.b, END_B)] {
        let (on_b, feature_b) = foot_on_core(b, end);
        let d_sq = (on_b - end).length_squared();
        if d_sq < best_sq {
            best_sq = d_sq;
            best = CorePoints {
                point_a: end,
                point_b: on_b,
                features: [feature, feature_b],
                crossing: false,
            };
        }
    }
    for (end, feature) in [(b.a, END_A), (b.b, END_B)] {
        let (on_a, feature_a) = foot_on_core(a, end);
        let d_sq = (end - on_a).length_squared();
        if d_sq < best_sq {
            best_sq = d_sq;
            best = CorePoints {
                point_a: on_a,
                point_b: end,
                features: [feature_a, feature],
                crossing: false,
            };
        }
    }
    best
}

/// The closest points of two cores and the feature each lies on
/// ([`END_A`], [`END_B`] or [`SIDE`] of its core).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CorePoints {
    pub(crate) point_a: Vec2,
    pub(crate) point_b: Vec2,
    pub(crate) features: [u8; 2],
    /// Whether the cores properly cross (the points are then their
    /// intersection).
    pub(crate) crossing: bool,
}

/// The point of `core` closest to `p` and the feature it lies on: the
/// clamped projection `a + clamp((p − a)·u, 0, |b − a|)·u` with the unit
/// axis `u`.
fn foot_on_core(core: &PosedCapsule, p: Vec2) -> (Vec2, u8) {
    let along = (p - core.a).dot(core.axis);
    if along <= 0.0 {
        (core.a, END_A)
    } else if along >= core.length {
        (core.b, END_B)
    } else {
        (core.a + along * core.axis, SIDE)
    }
}

/// The intersection of two segments that properly cross, or `None`.
///
/// `side(p)` = `(a1 − a0) × (p − a0)` is linear along the other segment, so
/// where it changes sign between `b0` and `b1` is the crossing fraction on
/// the second segment, and likewise for the first.
fn intersection(a0: Vec2, a1: Vec2, b0: Vec2, b1: Vec2) -> Option<SegmentPairClosest> {
    let da = a1 - a0;
    let db = b1 - b0;
    let side_b0 = da.perp_dot(b0 - a0);
    let side_b1 = da.perp_dot(b1 - a0);
    let side_a0 = db.perp_dot(a0 - b0);
    let side_a1 = db.perp_dot(a1 - b0);
    if !(strictly_opposite(side_b0, side_b1) && strictly_opposite(side_a0, side_a1)) {
        return None;
    }
    let fraction_a = side_a0 / (side_a0 - side_a1);
    let fraction_b = side_b0 / (side_b0 - side_b1);
    Some(SegmentPairClosest {
        point_a: a0 + fraction_a * da,
        point_b: b0 + fraction_b * db,
        fraction_a,
        fraction_b,
        crossing: true,
    })
}

/// Whether `x` and `y` are both non-zero and of opposite signs.
fn strictly_opposite(x: f32, y: f32) -> bool {
    (x > 0.0 && y < 0.0) || (x < 0.0 && y > 0.0)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn crossing_segments_meet_at_the_intersection() {
        let c =
            closest_points_between_segments(v(-1.0, 0.0), v(1.0, 0.0), v(0.5, -1.0), v(0.5, 3.0));
        assert!(c.crossing);
        assert_eq!(c.point_a, v(0.5, 0.0));
        assert!((c.point_b - v(0.5, 0.0)).length() < 1e-6);
        assert_eq!(c.fraction_a, 0.75);
        assert_eq!(c.fraction_b, 0.25);
        assert_eq!(c.distance(), 0.0);
    }

    #[test]
    fn end_point_to_interior() {
        let c = closest_points_between_segments(v(0.0, 0.0), v(4.0, 0.0), v(1.0, 2.0), v(3.0, 1.0));
        assert!(!c.crossing);
        assert_eq!(c.point_a, v(3.0, 0.0));
        assert_eq!(c.point_b, v(3.0, 1.0));
        assert_eq!(c.fraction_a, 0.75);
        assert_eq!(c.fraction_b, 1.0);
        assert_eq!(c.distance(), 1.0);
    }

    #[test]
    fn nearly_parallel_segments_are_exact() {
        // Converging by 1e-3 over 10 m: closest at the right-hand ends.
        let c =
            closest_points_between_segments(v(0.0, 0.0), v(10.0, 0.0), v(0.0, 1.0), v(10.0, 0.999));
        assert_eq!(c.point_b, v(10.0, 0.999));
        assert_eq!(c.point_a, v(10.0, 0.0));
        assert!((c.distance() - 0.999).abs() < 1e-6);
    }

    #[test]
    fn collinear_overlap_touches() {
        let c = closest_points_between_segments(v(0.0, 0.0), v(2.0, 0.0), v(1.0, 0.0), v(3.0, 0.0));
        assert!(!c.crossing);
        assert_eq!(c.distance(), 0.0);
        // The first end point found on the other segment: a1.
        assert_eq!(c.point_a, v(2.0, 0.0));
        assert_eq!(c.fraction_b, 0.5);
    }

    #[test]
    fn degenerate_segments_are_points() {
        let c = closest_points_between_segments(v(1.0, 1.0), v(1.0, 1.0), v(4.0, 5.0), v(4.0, 5.0));
        assert_eq!(c.distance(), 5.0);
        let c = closest_points_between_segments(v(1.0, 1.0), v(1.0, 1.0), v(0.0, 0.0), v(2.0, 0.0));
        assert_eq!(c.point_b, v(1.0, 0.0));
        assert_eq!(c.fraction_b, 0.5);
    }

    proptest! {
        /// Projecting on unit axes finds the same closest points as the
        /// general routine, up to rounding, and the feature each lies on
        /// agrees with its fraction wherever that is clear of an end.
        #[test]
        fn core_points_match_the_segment_pair_routine(
            (ax, ay, bx, by) in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
            (cx, cy, dx, dy) in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
        ) {
            let (a0, a1, b0, b1) = (v(ax, ay), v(bx, by), v(cx, cy), v(dx, dy));
            let general = closest_points_between_segments(a0, a1, b0, b1);
            let core = closest_core_points(
                &PosedCapsule::new(a0, a1, 0.0),
                &PosedCapsule::new(b0, b1, 0.0),
            );
            prop_assert_eq!(core.crossing, general.crossing);
            let distance = (core.point_b - core.point_a).length();
            prop_assert!((distance - general.distance()).abs() < 1e-4);
            for (feature, fraction) in core.features.into_iter().zip([general.fraction_a, general.fraction_b]) {
                if !core.crossing && fraction > 1e-3 && fraction < 1.0 - 1e-3 {
                    prop_assert_eq!(feature, SIDE);
                }
            }
        }
    }
}
