//! Contacts of a circle with a circle, a segment or a stadium.
//!
//! Each is one [`segment_circle_offset`]: a stadium is a segment with a
//! radius, so stadium–circle is segment–circle with the two radii added, and
//! circle–circle is the same again with a zero-length core. The single
//! contact point sits midway between the two surfaces along the normal.

use carom_shapes::{Circle, Segment, Stadium, Transform};
use glam::Vec2;

use crate::features::CIRCLE;
use crate::segment_circle::{
    core_feature, segment_circle_offset, SegmentCircleOffset, COINCIDENT_NORMAL,
};
use crate::vector::unit_and_length;
use crate::{ContactManifold, FeatureId};

/// Contact between two circles.
///
/// Coincident centres have no direction between them. The normal is then
/// +y when A's radius is at most B's and −y when it is larger, so swapping
/// two circles of different radii flips the normal as it should; two equal
/// circles at the same place both get +y.
pub fn collide_circle_circle(
    a: &Circle,
    xf_a: &Transform,
    b: &Circle,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    circle_circle(
        xf_a.apply(a.center()),
        a.radius(),
        xf_b.apply(b.center()),
        b.radius(),
        margin,
    )
}

/// Contact between a segment (A) and a circle (B). A circle centred on the
/// segment is pushed along the segment's left normal.
pub fn collide_segment_circle(
    a: &Segment,
    xf_a: &Transform,
    b: &Circle,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    capsule_circle(
        [xf_a.apply(a.a()), xf_a.apply(a.b())],
        0.0,
        xf_b.apply(b.center()),
        b.radius(),
        margin,
    )
}

/// Contact between a stadium (A) and a circle (B): segment–circle against the
/// stadium's core with the radii added.
pub fn collide_stadium_circle(
    a: &Stadium,
    xf_a: &Transform,
    b: &Circle,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    capsule_circle(
        [xf_a.apply(a.a()), xf_a.apply(a.b())],
        a.radius(),
        xf_b.apply(b.center()),
        b.radius(),
        margin,
    )
}

/// Circle–circle contact from world-space centres and radii.
///
/// This is the segment–circle offset for a core of no length, at A's
/// centre: the foot of B's centre is A's centre itself, so the offset is
/// the unit vector and length of `center_b − center_a` (the coincident
/// normal when the centres coincide). Written out here it skips the
/// projection a real core needs, with the same operations and so the same
/// bits as [`segment_circle_offset`] gives.
pub(crate) fn circle_circle(
    center_a: Vec2,
    radius_a: f32,
    center_b: Vec2,
    radius_b: f32,
    margin: f32,
) -> ContactManifold {
    let (mut normal, distance) =
        unit_and_length(center_b - center_a).unwrap_or((COINCIDENT_NORMAL, 0.0));
    if distance == 0.0 && radius_a > radius_b {
        normal = -normal;
    }
    let offset = SegmentCircleOffset {
        closest: center_a,
        fraction: 0.0,
        normal,
        distance,
        separation: distance - (radius_a + radius_b),
    };
    rounded_contact(&offset, radius_a, FeatureId::new(CIRCLE, CIRCLE), margin)
}

/// Contact between a rounded segment (world core `core`, radius `radius_a`,
/// zero for a plain segment) and a circle.
pub(crate) fn capsule_circle(
    core: [Vec2; 2],
    radius_a: f32,
    center_b: Vec2,
    radius_b: f32,
    margin: f32,
) -> ContactManifold {
    let offset = segment_circle_offset(core[0], core[1], center_b, radius_a + radius_b);
    let id = FeatureId::new(core_feature(offset.fraction), CIRCLE);
    rounded_contact(&offset, radius_a, id, margin)
}

/// The one-point manifold of an offset whose segment is rounded by
/// `radius_a`: A's surface is at `closest + radius_a · normal`, B's is
/// `separation` further along the normal, and the point is halfway.
fn rounded_contact(
    offset: &SegmentCircleOffset,
    radius_a: f32,
    id: FeatureId,
    margin: f32,
) -> ContactManifold {
    if offset.separation > margin {
        return ContactManifold::EMPTY;
    }
    let point = offset.closest + (radius_a + 0.5 * offset.separation) * offset.normal;
    ContactManifold::single(offset.normal, point, offset.separation, id)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::features::{END_A, END_B, SIDE};

    /// Circle–circle through the general offset, with a core of no length.
    fn through_the_offset(ca: Vec2, ra: f32, cb: Vec2, rb: f32, margin: f32) -> ContactManifold {
        let mut offset = segment_circle_offset(ca, ca, cb, ra + rb);
        if offset.distance == 0.0 && ra > rb {
            offset.normal = -offset.normal;
        }
        rounded_contact(&offset, ra, FeatureId::new(CIRCLE, CIRCLE), margin)
    }

    proptest! {
        /// The written-out circle pair gives the general offset's bits, for
        /// centres apart, touching, overlapping and coinciding.
        #[test]
        fn circle_pairs_match_the_offset_with_a_core_of_no_length(
            (ax, ay, bx, by) in (-3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0, -3.0f32..3.0),
            (ra, rb, margin) in (0.05f32..1.0, 0.05f32..1.0, 0.0f32..0.5),
            same_centre in prop::bool::weighted(0.1),
        ) {
            let ca = Vec2::new(ax, ay);
            let cb = if same_centre { ca } else { Vec2::new(bx, by) };
            let direct = circle_circle(ca, ra, cb, rb, margin);
            let general = through_the_offset(ca, ra, cb, rb, margin);
            prop_assert_eq!(direct.count, general.count);
            prop_assert_eq!(direct.normal.to_array().map(f32::to_bits), general.normal.to_array().map(f32::to_bits));
            let bits = |m: &ContactManifold| m.points.map(|p| (p.point.x.to_bits(), p.point.y.to_bits(), p.separation.to_bits(), p.id));
            prop_assert_eq!(bits(&direct), bits(&general));
        }
    }

    fn circle(x: f32, y: f32, r: f32) -> Circle {
        Circle::new(Vec2::new(x, y), r).unwrap()
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn overlapping_circles() {
        let m = collide_circle_circle(
            &circle(0.0, 0.0, 1.0),
            &Transform::IDENTITY,
            &circle(0.0, 0.0, 0.5),
            &Transform::from_translation(Vec2::new(1.25, 0.0)),
            0.0,
        );
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::X);
        assert_eq!(m.points[0].separation, -0.25);
        // A's surface at x = 1, B's at x = 0.75: halfway is 0.875.
        assert!(close(m.points[0].point, Vec2::new(0.875, 0.0)));
        assert_eq!(m.points[0].id, FeatureId::new(CIRCLE, CIRCLE));
    }

    #[test]
    fn local_centres_are_transformed() {
        let xf = Transform::new(Vec2::new(1.0, 0.0), std::f32::consts::FRAC_PI_2);
        // Local (1, 0) turns to (0, 1) and moves to (1, 1).
        let m = collide_circle_circle(
            &circle(1.0, 0.0, 0.5),
            &xf,
            &circle(1.0, 3.0, 0.5),
            &Transform::IDENTITY,
            0.0,
        );
        assert_eq!(m.count, 0);
        let m = collide_circle_circle(
            &circle(1.0, 0.0, 0.5),
            &xf,
            &circle(1.0, 1.75, 0.5),
            &Transform::IDENTITY,
            0.0,
        );
        assert!(close(m.normal, Vec2::Y));
        assert!((m.points[0].separation + 0.25).abs() < 1e-6);
    }

    #[test]
    fn speculative_margin_keeps_near_pairs_only() {
        let a = circle(0.0, 0.0, 1.0);
        let b = circle(2.1, 0.0, 1.0);
        let near = collide_circle_circle(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY, 0.2);
        assert_eq!(near.count, 1);
        assert!((near.points[0].separation - 0.1).abs() < 1e-6);
        let far = collide_circle_circle(&a, &Transform::IDENTITY, &b, &Transform::IDENTITY, 0.05);
        assert!(far.is_empty());
    }

    #[test]
    fn coincident_circles_are_ordered_by_radius() {
        let small = circle(0.0, 0.0, 0.5);
        let big = circle(0.0, 0.0, 1.0);
        let xf = Transform::from_translation(Vec2::new(3.0, -2.0));
        let up = collide_circle_circle(&small, &xf, &big, &xf, 0.0);
        assert_eq!(up.normal, Vec2::Y);
        assert_eq!(up.points[0].separation, -1.5);
        let down = collide_circle_circle(&big, &xf, &small, &xf, 0.0);
        assert_eq!(down.normal, -Vec2::Y);
        let same = collide_circle_circle(&small, &xf, &small, &xf, 0.0);
        assert_eq!(same.normal, Vec2::Y);
        assert!(up.normal.is_finite() && up.points[0].point.is_finite());
    }

    #[test]
    fn circle_resting_on_a_segment() {
        let wall = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        let ball = circle(1.0, 0.49, 0.5);
        let m = collide_segment_circle(
            &wall,
            &Transform::IDENTITY,
            &ball,
            &Transform::IDENTITY,
            0.0,
        );
        assert_eq!(m.normal, Vec2::Y);
        assert!((m.points[0].separation + 0.01).abs() < 1e-6);
        assert!(close(m.points[0].point, Vec2::new(1.0, -0.005)));
        assert_eq!(m.points[0].id, FeatureId::new(SIDE, CIRCLE));
    }

    #[test]
    fn circle_centred_on_a_segment_goes_left() {
        let wall = Segment::new(Vec2::new(0.0, 0.0), Vec2::new(0.0, 4.0)).unwrap();
        let ball = circle(0.0, 2.0, 0.5);
        let m = collide_segment_circle(
            &wall,
            &Transform::IDENTITY,
            &ball,
            &Transform::IDENTITY,
            0.0,
        );
        assert_eq!(m.normal, -Vec2::X);
        assert_eq!(m.points[0].separation, -0.5);
    }

    #[test]
    fn stadium_caps_and_side() {
        let capsule = Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.25).unwrap();
        let id = Transform::IDENTITY;
        let side = collide_stadium_circle(&capsule, &id, &circle(0.5, 0.5, 0.5), &id, 0.0);
        assert_eq!(side.normal, Vec2::Y);
        assert!((side.points[0].separation + 0.25).abs() < 1e-6);
        // A's surface at y = 0.25, B's at y = 0: halfway is 0.125.
        assert!(close(side.points[0].point, Vec2::new(0.5, 0.125)));
        assert_eq!(side.points[0].id, FeatureId::new(SIDE, CIRCLE));
        let cap = collide_stadium_circle(&capsule, &id, &circle(-1.6, 0.0, 0.5), &id, 0.0);
        assert_eq!(cap.normal, -Vec2::X);
        assert!((cap.points[0].separation + 0.15).abs() < 1e-6);
        assert_eq!(cap.points[0].id, FeatureId::new(END_A, CIRCLE));
        let other = collide_stadium_circle(&capsule, &id, &circle(1.5, 0.0, 0.5), &id, 0.0);
        assert_eq!(other.points[0].id, FeatureId::new(END_B, CIRCLE));
    }
}
