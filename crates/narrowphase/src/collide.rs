//! Contact between any two shapes: dispatch on the pair of kinds.
//!
//! Each unordered pair of kinds has one routine, written with the kinds in
//! a fixed order (circle last, sector first); the reversed order calls it
//! with the shapes swapped and swaps the result back with
//! [`ContactManifold::swapped`]. Circles, segments and stadiums are placed
//! in the world first and collided by [`collide_placed`]; sectors keep
//! their own frame. Matching on the enums costs a jump, no allocation and
//! no trait objects, so this is fit for the world's hot loop.

use carom_shapes::{Shape, Transform};

use crate::placed::{collide_placed, PlacedShape};
use crate::sector::{collide_sector_sector, collide_sector_segment, collide_sector_stadium};
use crate::sector_circle::collide_sector_circle;
use crate::ContactManifold;

/// The contact manifold between shape `a` placed by `xf_a` and shape `b`
/// placed by `xf_b`, normal from A to B; points separated by more than
/// `margin` are left out.
///
/// Two segments never collide (walls do not touch walls): that pair always
/// gives an empty manifold, and so do shapes farther apart than `f32` can
/// measure (a point near +3e38 and one near −3e38).
pub fn collide(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    if too_far_to_measure(a, xf_a, b, xf_b) {
        return ContactManifold::EMPTY;
    }
    collide_near(a, xf_a, b, xf_b, margin)
}

/// [`collide()`] for shapes known to lie less than `f32::MAX` apart, as a
/// broadphase's pairs of overlapping boxes do: the same manifold without
/// first working out both shapes' boxes to check that.
pub fn collide_near(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    if let (Some(a), Some(b)) = (PlacedShape::new(a, xf_a), PlacedShape::new(b, xf_b)) {
        return collide_placed(&a, &b, margin);
    }
    use Shape::{Circle, Sector, Segment, Stadium};
    match (a, b) {
        (Sector(a), Circle(b)) => collide_sector_circle(a, xf_a, b, xf_b, margin),
        (Circle(a), Sector(b)) => collide_sector_circle(b, xf_b, a, xf_a, margin).swapped(),
        (Sector(a), Segment(b)) => collide_sector_segment(a, xf_a, b, xf_b, margin),
        (Segment(a), Sector(b)) => collide_sector_segment(b, xf_b, a, xf_a, margin).swapped(),
        (Sector(a), Stadium(b)) => collide_sector_stadium(a, xf_a, b, xf_b, margin),
        (Stadium(a), Sector(b)) => collide_sector_stadium(b, xf_b, a, xf_a, margin).swapped(),
        (Sector(a), Sector(b)) => collide_sector_sector(a, xf_a, b, xf_b, margin),
        // Pairs without a sector were placed and collided above.
        (Circle(_) | Segment(_) | Stadium(_), Circle(_) | Segment(_) | Stadium(_)) => {
            ContactManifold::EMPTY
        }
    }
}

/// Whether a difference between some point of `a` and some point of `b`
/// overflows `f32` (their boxes span more than `f32::MAX`, as shapes placed
/// near +3e38 and −3e38 do). Every routine works with such differences, so
/// the pair is taken as far apart, which it is, rather than measured.
fn too_far_to_measure(a: &Shape, xf_a: &Transform, b: &Shape, xf_b: &Transform) -> bool {
    let (box_a, box_b) = (a.aabb_at(xf_a), b.aabb_at(xf_b));
    !((box_b.max - box_a.min).is_finite() && (box_a.max - box_b.min).is_finite())
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Circle, Sector, Segment, Stadium};
    use glam::Vec2;

    use super::*;
    use crate::features::{CIRCLE, END_A};
    use crate::FeatureId;

    fn shapes() -> [Shape; 4] {
        [
            Circle::new(Vec2::ZERO, 0.5).unwrap().into(),
            Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0))
                .unwrap()
                .into(),
            Stadium::new(Vec2::new(-0.5, 0.0), Vec2::new(0.5, 0.0), 0.3)
                .unwrap()
                .into(),
            Sector::new(Vec2::ZERO, 1.0, 0.2, 2.0).unwrap().into(),
        ]
    }

    #[test]
    fn every_reversed_pair_is_the_swapped_manifold() {
        let xf_a = Transform::new(Vec2::new(0.1, -0.2), 0.3);
        let xf_b = Transform::new(Vec2::new(0.4, 0.5), -1.1);
        for a in shapes() {
            for b in shapes() {
                let ab = collide(&a, &xf_a, &b, &xf_b, 0.1);
                let ba = collide(&b, &xf_b, &a, &xf_a, 0.1);
                if a.kind() == b.kind() {
                    continue;
                }
                assert_eq!(ab, ba.swapped(), "{:?} vs {:?}", a.kind(), b.kind());
            }
        }
    }

    #[test]
    fn shapes_too_far_apart_to_measure_touch_nowhere() {
        // Placed at ±3e38, every difference of their points overflows; each
        // pair had come out overlapping, with NaN points, before.
        let (left, right) = (
            Transform::new(Vec2::new(-3e38, 0.0), 0.3),
            Transform::new(Vec2::new(3e38, 0.5), -1.1),
        );
        for a in shapes() {
            for b in shapes() {
                for margin in [0.0, 0.02, 1e30] {
                    assert!(collide(&a, &left, &b, &right, margin).is_empty());
                    assert!(collide(&a, &right, &b, &left, margin).is_empty());
                }
            }
        }
        // 1e20 apart, they are measured: far, and touching only within a
        // margin that reaches.
        let near = Transform::new(Vec2::new(1e20, 0.0), 0.0);
        let [ball, ..] = shapes();
        assert!(collide(&ball, &Transform::IDENTITY, &ball, &near, 0.02).is_empty());
        let m = collide(&ball, &Transform::IDENTITY, &ball, &near, 1e30);
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points()[0].separation / 1e20 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn walls_never_touch_walls() {
        let wall: Shape = Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0))
            .unwrap()
            .into();
        let xf = Transform::new(Vec2::ZERO, 1.0);
        assert!(collide(&wall, &Transform::IDENTITY, &wall, &xf, 1.0).is_empty());
    }

    #[test]
    fn reversed_order_flips_normal_and_ids() {
        let ball: Shape = Circle::new(Vec2::ZERO, 0.5).unwrap().into();
        let wall: Shape = Segment::new(Vec2::new(0.0, 0.0), Vec2::new(2.0, 0.0))
            .unwrap()
            .into();
        let xf = Transform::from_translation(Vec2::new(-0.3, 0.0));
        let m = collide(&ball, &xf, &wall, &Transform::IDENTITY, 0.0);
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points[0].separation + 0.2).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(CIRCLE, END_A));
        let m = collide(&wall, &Transform::IDENTITY, &ball, &xf, 0.0);
        assert_eq!(m.normal, -Vec2::X);
        assert_eq!(m.points[0].id, FeatureId::new(END_A, CIRCLE));
    }
}
