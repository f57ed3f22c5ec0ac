//! The segment–circle offset, the computation every carom contact is built on.
//!
//! Project the circle's centre `c` onto the segment `ab` and clamp to the end
//! points: that gives the closest point `q`. The circle overlaps the segment
//! when `|c − q| < radius`, and moving it by `radius − |c − q|` along
//! `(c − q) / |c − q|` pushes it out.
//!
//! The textbook version divides by `|c − q|` and by `|b − a|`, so it breaks
//! when the centre lies on the segment or the segment has zero length. Here
//! those cases have fixed answers instead:
//!
//! * centre on a segment of positive length (end points included): the
//!   normal is the segment's left normal `perp(b − a) / |b − a|`, where
//!   `perp` turns a vector 90° counter-clockwise;
//! * centre on a zero-length segment (two coincident circles): the normal is
//!   [`COINCIDENT_NORMAL`], +y.
//!
//! Inside the segment's span the normal is taken straight from the segment's
//! direction (plus or minus its left normal), so it does not wobble with the
//! round-off of `c − q` when the centre is close to the segment.

use carom_shapes::closest_point_on_segment;
use glam::Vec2;

use crate::features::{END_A, END_B, SIDE};
use crate::vector::{left_normal_or, unit_and_length};

/// The normal used when a circle's centre coincides with a zero-length
/// segment (the core of another circle): +y.
pub const COINCIDENT_NORMAL: Vec2 = Vec2::Y;

/// Where a circle stands relative to a segment: see [`segment_circle_offset`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentCircleOffset {
    /// The point of the segment closest to the circle's centre.
    pub closest: Vec2,
    /// Where `closest` lies along the segment: 0 at `a`, 1 at `b`.
    pub fraction: f32,
    /// Unit vector from the segment towards the centre (see the module notes
    /// for the cases where the centre lies on the segment).
    pub normal: Vec2,
    /// Distance from `closest` to the centre, ≥ 0.
    pub distance: f32,
    /// `distance − radius`: negative when the circle overlaps the segment.
    pub separation: f32,
}

impl SegmentCircleOffset {
    /// The smallest move of the circle that ends the overlap:
    /// `−separation · normal` when overlapping, zero otherwise.
    pub fn push_out(&self) -> Vec2 {
        if self.separation < 0.0 {
            -self.separation * self.normal
        } else {
            Vec2::ZERO
        }
    }
}

/// The offset of the circle (`center`, `radius`) from the segment `ab`.
///
/// `a == b` is allowed and makes the segment a point, which is how
/// circle–circle contact reuses this routine. The result never holds NaN for
/// finite input whose points lie less than `f32::MAX` apart.
pub fn segment_circle_offset(a: Vec2, b: Vec2, center: Vec2, radius: f32) -> SegmentCircleOffset {
    let foot = closest_point_on_segment(a, b, center);
    let (normal, distance) = if foot.t > 0.0 && foot.t < 1.0 {
        // Within the span: the distance to the line, signed by the side.
        let left = left_normal_or(a, b, COINCIDENT_NORMAL);
        let height = left.dot(center - a);
        if height >= 0.0 {
            (left, height)
        } else {
            (-left, -height)
        }
    } else {
        unit_and_length(center - foot.point)
            .unwrap_or((left_normal_or(a, b, COINCIDENT_NORMAL), 0.0))
    };
    SegmentCircleOffset {
        closest: foot.point,
        fraction: foot.t,
        normal,
        distance,
        separation: distance - radius,
    }
}

/// The feature number of a segment or stadium core for a point at `fraction`
/// along it: an end when clamped there, the side otherwise.
pub(crate) fn core_feature(fraction: f32) -> u8 {
    if fraction <= 0.0 {
        END_A
    } else if fraction >= 1.0 {
        END_B
    } else {
        SIDE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-6
    }

    #[test]
    fn overlapping_circle_is_pushed_along_the_perpendicular() {
        let o = segment_circle_offset(Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(1.0, 0.5), 1.0);
        assert!(close(o.closest, Vec2::new(1.0, 0.0)));
        assert_eq!(o.fraction, 0.25);
        assert_eq!(o.normal, Vec2::Y);
        assert_eq!(o.distance, 0.5);
        assert_eq!(o.separation, -0.5);
        assert!(close(o.push_out(), Vec2::new(0.0, 0.5)));
    }

    #[test]
    fn circle_below_gets_the_downward_normal() {
        let o = segment_circle_offset(Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(3.0, -0.25), 1.0);
        assert_eq!(o.normal, -Vec2::Y);
        assert_eq!(o.distance, 0.25);
    }

    #[test]
    fn beyond_an_end_the_normal_points_from_the_end_point() {
        let o = segment_circle_offset(Vec2::ZERO, Vec2::new(4.0, 0.0), Vec2::new(5.0, 1.0), 1.0);
        assert_eq!(o.closest, Vec2::new(4.0, 0.0));
        assert_eq!(o.fraction, 1.0);
        assert!(close(o.normal, Vec2::new(1.0, 1.0).normalize()));
        assert!((o.distance - 2f32.sqrt()).abs() < 1e-6);
        assert!((o.separation - (2f32.sqrt() - 1.0)).abs() < 1e-6);
        assert_eq!(o.push_out(), Vec2::ZERO);
    }

    #[test]
    fn centre_on_the_segment_uses_the_left_normal() {
        let a = Vec2::new(1.0, 1.0);
        let b = Vec2::new(3.0, 3.0);
        let o = segment_circle_offset(a, b, Vec2::new(2.0, 2.0), 0.5);
        assert!(close(o.normal, Vec2::new(-1.0, 1.0).normalize()));
        assert_eq!(o.distance, 0.0);
        assert_eq!(o.separation, -0.5);
        // The reversed segment has the opposite left normal.
        let r = segment_circle_offset(b, a, Vec2::new(2.0, 2.0), 0.5);
        assert!(close(r.normal, Vec2::new(1.0, -1.0).normalize()));
    }

    #[test]
    fn centre_on_an_end_point_uses_the_left_normal() {
        let o = segment_circle_offset(Vec2::ZERO, Vec2::new(0.0, 2.0), Vec2::ZERO, 0.3);
        assert_eq!(o.normal, -Vec2::X);
        assert_eq!(o.fraction, 0.0);
        assert_eq!(o.separation, -0.3);
    }

    #[test]
    fn coincident_point_and_centre_use_plus_y() {
        let p = Vec2::new(-2.0, 7.0);
        let o = segment_circle_offset(p, p, p, 1.5);
        assert_eq!(o.normal, COINCIDENT_NORMAL);
        assert_eq!(o.distance, 0.0);
        assert_eq!(o.separation, -1.5);
        assert_eq!(o.push_out(), Vec2::new(0.0, 1.5));
    }

    #[test]
    fn zero_length_core_is_a_point() {
        let p = Vec2::new(1.0, 1.0);
        let o = segment_circle_offset(p, p, Vec2::new(4.0, 5.0), 2.0);
        assert!(close(o.normal, Vec2::new(0.6, 0.8)));
        assert_eq!(o.distance, 5.0);
        assert_eq!(o.separation, 3.0);
    }

    #[test]
    fn microscopic_offsets_still_give_unit_normals() {
        let o = segment_circle_offset(Vec2::ZERO, Vec2::ZERO, Vec2::new(1e-30, 0.0), 1.0);
        assert_eq!(o.normal, Vec2::X);
        let o = segment_circle_offset(
            Vec2::ZERO,
            Vec2::new(1e-20, 0.0),
            Vec2::new(5e-21, 0.0),
            1.0,
        );
        assert!(o.normal.is_finite());
        assert!((o.normal.length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn core_features_follow_the_clamp() {
        assert_eq!(core_feature(0.0), END_A);
        assert_eq!(core_feature(1.0), END_B);
        assert_eq!(core_feature(0.5), SIDE);
    }
}
