//! Contacts between two rounded segments: segment–stadium and
//! stadium–stadium.
//!
//! A stadium is a core segment with a radius and a segment is one with
//! radius zero, so both pairs are the segment–circle offset one step up:
//! find the closest points of the two cores, and the pair overlaps when they
//! are nearer than the sum of the radii.
//!
//! * **One point.** Cores apart: the normal runs between the closest points
//!   and the separation is their distance minus the radii, exactly. Cores
//!   touching or crossing: the way out is across one core's line, so the
//!   four side normals (±A's, ±B's) are tried and the one needing the least
//!   push wins, in that order on ties; parallel cores lying on each other
//!   thus get A's left normal, as the segment–circle rule does.
//! * **Two points.** When the cores are within [`FLAT_SIN`] of parallel, the
//!   side of one core is the reference face: the one whose line B's (or A's)
//!   ends clear best, with a [`REFERENCE_BIAS`] towards A. The other core's
//!   facing side is clipped to the reference face's span and each clipped
//!   end is a point. The pair is kept when it reproduces the exact one-point
//!   separation (see [`TWO_POINT_TOLERANCE`]); this is what lets a capsule
//!   lie flat on a wall or on another capsule.
//!
//! All the work is done relative to A's first core end to keep round-off
//! small far from the world origin.

use carom_shapes::{Segment, Stadium, Transform};
use glam::Vec2;

use crate::capsule::PosedCapsule;
use crate::face::{two_point_manifold, Owner};
use crate::features::{END_A, END_B, SIDE};
use crate::segment_pair::closest_core_points;
use crate::tolerance::{FLAT_SIN, REFERENCE_BIAS, TWO_POINT_TOLERANCE};
use crate::vector::unit_and_length;
use crate::{ContactManifold, FeatureId};

/// Contact between a segment (A) and a stadium (B).
pub fn collide_segment_stadium(
    a: &Segment,
    xf_a: &Transform,
    b: &Stadium,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    collide_capsules(
        &PosedCapsule::segment(a, xf_a),
        &PosedCapsule::stadium(b, xf_b),
        margin,
    )
}

/// Contact between two stadiums.
pub fn collide_stadium_stadium(
    a: &Stadium,
    xf_a: &Transform,
    b: &Stadium,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    collide_capsules(
        &PosedCapsule::stadium(a, xf_a),
        &PosedCapsule::stadium(b, xf_b),
        margin,
    )
}

/// Contact between two rounded segments in world space.
pub(crate) fn collide_capsules(a: &PosedCapsule, b: &PosedCapsule, margin: f32) -> ContactManifold {
    let origin = a.a;
    let a = a.translated(-origin);
    let b = b.translated(-origin);
    one_or_two_points(&a, &b, margin, origin)
}

/// The manifold of `a` and `b`, given relative to `origin`; its points are
/// moved back by `origin` as they are made (rather than afterwards, which
/// would make copying the manifold out wait on the narrower stores).
fn one_or_two_points(
    a: &PosedCapsule,
    b: &PosedCapsule,
    margin: f32,
    origin: Vec2,
) -> ContactManifold {
    let closest = closest_core_points(a, b);
    let radii = a.radius + b.radius;
    let gap = unit_and_length(closest.point_b - closest.point_a).filter(|_| !closest.crossing);
    let exact = match gap {
        Some((normal, distance)) => {
            let separation = distance - radii;
            let point = closest.point_a + (a.radius + 0.5 * separation) * normal;
            let [feature_a, feature_b] = closest.features;
            let id = FeatureId::new(feature_a, feature_b);
            ContactManifold::single(normal, point + origin, separation, id)
        }
        None => crossing_contact(a, b, origin),
    };
    let exact_separation = exact.points[0].separation;
    if exact_separation > margin {
        return ContactManifold::EMPTY;
    }
    match flat_contact(a, b, exact_separation, origin) {
        Some(two) => two.within_margin(margin),
        None => exact,
    }
}

/// The one-point contact of two rounded segments whose cores touch or cross.
///
/// Pushing B along A's side normal `n` clears A once B's end lowest along
/// `n` is `radii` above A's line, so the separation along `n` is that end's
/// height minus the radii; likewise for A pushed off B's line. The best of
/// the four is the exact penetration, because the cores' Minkowski
/// difference is a parallelogram with exactly those edge normals.
fn crossing_contact(a: &PosedCapsule, b: &PosedCapsule, origin: Vec2) -> ContactManifold {
    let radii = a.radius + b.radius;
    let na = a.left_normal();
    let nb = b.left_normal();
    let mut best = ContactManifold::EMPTY;
    let mut best_separation = f32::NEG_INFINITY;
    for n in [na, -na] {
        let (end, end_id) = lowest_end(b, n);
        let height = (end - a.a).dot(n);
        let separation = height - radii;
        if separation > best_separation {
            best_separation = separation;
            // A's surface is `radius_a` above A's line; B's is `radius_b` below its end.
            let point = end + 0.5 * (a.radius - b.radius - height) * n;
            let id = FeatureId::new(SIDE, end_id);
            best = ContactManifold::single(n, point + origin, separation, id);
        }
    }
    for m in [nb, -nb] {
        // `m` points from B's line towards A; the manifold normal is `−m`.
        let (end, end_id) = lowest_end(a, m);
        let height = (end - b.a).dot(m);
        let separation = height - radii;
        if separation > best_separation {
            best_separation = separation;
            let point = end + 0.5 * (b.radius - a.radius - height) * m;
            let id = FeatureId::new(end_id, SIDE);
            best = ContactManifold::single(-m, point + origin, separation, id);
        }
    }
    best
}

/// The core end of `c` that is lowest along `n` (the first end on ties).
fn lowest_end(c: &PosedCapsule, n: Vec2) -> (Vec2, u8) {
    if c.a.dot(n) <= c.b.dot(n) {
        (c.a, END_A)
    } else {
        (c.b, END_B)
    }
}

/// The two-point contact of nearly parallel cores, or `None` (see the module
/// notes).
fn flat_contact(
    a: &PosedCapsule,
    b: &PosedCapsule,
    exact: f32,
    origin: Vec2,
) -> Option<ContactManifold> {
    let along_a = a.direction()?;
    let along_b = b.direction()?;
    if along_a.perp_dot(along_b).abs() > FLAT_SIN {
        return None;
    }
    let (side_a, clear_a) = facing_side(along_a.perp(), a.a, b);
    let (side_b, clear_b) = facing_side(along_b.perp(), b.a, a);
    let manifold = if clear_a + REFERENCE_BIAS >= clear_b {
        two_point_manifold(&a.side(side_a), &b.side(-side_a), Owner::A, origin)?
    } else {
        two_point_manifold(&b.side(side_b), &a.side(-side_b), Owner::B, origin)?
    };
    let deepest = manifold.deepest()?.separation;
    ((deepest - exact).abs() <= TWO_POINT_TOLERANCE).then_some(manifold)
}

/// Which side (`n` or `−n`) of the line through `origin` the capsule
/// `other`'s core lies on, and how far its lower end clears the line on that
/// side (negative when the core crosses the line). Ties go to `n`.
fn facing_side(n: Vec2, origin: Vec2, other: &PosedCapsule) -> (Vec2, f32) {
    let h0 = (other.a - origin).dot(n);
    let h1 = (other.b - origin).dot(n);
    let above = h0.min(h1);
    let below = (-h0).min(-h1);
    if above >= below {
        (n, above)
    } else {
        (-n, below)
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    fn stadium(ax: f32, ay: f32, bx: f32, by: f32, r: f32) -> Stadium {
        Stadium::new(Vec2::new(ax, ay), Vec2::new(bx, by), r).unwrap()
    }

    const ID: Transform = Transform::IDENTITY;

    #[test]
    fn parallel_overlapping_cores_give_two_points() {
        let a = stadium(-2.0, 0.0, 2.0, 0.0, 0.5);
        let b = stadium(-1.0, 0.0, 1.0, 0.0, 0.25);
        let xf_b = Transform::from_translation(Vec2::new(0.5, 0.7));
        let m = collide_stadium_stadium(&a, &ID, &b, &xf_b, 0.0);
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::Y);
        for p in m.points() {
            assert!((p.separation + 0.05).abs() < 1e-6);
        }
        // B's ends at x = −0.5 and 1.5; surfaces at y = 0.5 and 0.45.
        assert!((m.points[0].point - Vec2::new(-0.5, 0.475)).length() < 1e-6);
        assert!((m.points[1].point - Vec2::new(1.5, 0.475)).length() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(SIDE, END_A));
        assert_eq!(m.points[1].id, FeatureId::new(SIDE, END_B));
    }

    #[test]
    fn longer_incident_is_clipped_to_the_reference() {
        // B is longer than A and lies under it. Both sides clear each other
        // equally, so the bias picks A's side and B's is cut to A's span.
        let a = stadium(-1.0, 0.0, 1.0, 0.0, 0.25);
        let b = stadium(-3.0, -0.4, 3.0, -0.4, 0.25);
        let m = collide_stadium_stadium(&a, &ID, &b, &ID, 0.0);
        assert_eq!(m.count, 2);
        assert!((m.normal - -Vec2::Y).length() < 1e-6);
        for p in m.points() {
            assert!((p.separation + 0.1).abs() < 1e-6);
        }
        assert!((m.points[0].point.x + 1.0).abs() < 1e-6);
        assert!((m.points[1].point.x - 1.0).abs() < 1e-6);
    }

    #[test]
    fn tilted_capsule_keeps_the_exact_deepest_point() {
        // B tilts by 0.05 rad and sinks at its left end.
        let a = stadium(-2.0, 0.0, 2.0, 0.0, 0.5);
        let b = stadium(-1.0, 0.0, 1.0, 0.0, 0.5);
        let xf_b = Transform::new(Vec2::new(0.0, 0.98), 0.05);
        let m = collide_stadium_stadium(&a, &ID, &b, &xf_b, 0.2);
        assert_eq!(m.count, 2);
        let left = xf_b.apply(Vec2::new(-1.0, 0.0));
        assert!((m.points[0].separation - (left.y - 1.0)).abs() < 1e-5);
        assert!(m.points[1].separation > m.points[0].separation);
        // With a small margin the raised end is dropped but keeps its id.
        let m = collide_stadium_stadium(&a, &ID, &b, &xf_b, 0.01);
        assert_eq!(m.count, 1);
        assert_eq!(m.points[0].id, FeatureId::new(SIDE, END_A));
    }

    #[test]
    fn crossing_cores_push_across_the_cheaper_line() {
        // A plus sign: A horizontal [−2, 2], B vertical from y = −0.3 to 1.7.
        let a = stadium(-2.0, 0.0, 2.0, 0.0, 0.1);
        let b = stadium(0.0, -0.3, 0.0, 1.7, 0.1);
        let m = collide_stadium_stadium(&a, &ID, &b, &ID, 0.0);
        assert_eq!(m.count, 1);
        // Lift B until its low end is 0.2 above A's core: 0.5 of push.
        assert_eq!(m.normal, Vec2::Y);
        assert!((m.points[0].separation + 0.5).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(SIDE, END_A));
        // A's surface at y = 0.1, B's at −0.4: halfway at −0.15.
        assert!((m.points[0].point - Vec2::new(0.0, -0.15)).length() < 1e-6);
    }

    #[test]
    fn crossing_near_b_end_pushes_b_off_sideways() {
        // A vertical, B horizontal with its left end just past A's core:
        // moving B 0.3 to the right is the cheapest way out.
        let a = stadium(0.0, -2.0, 0.0, 2.0, 0.1);
        let b = stadium(-0.1, 1.0, 3.0, 1.0, 0.1);
        let m = collide_stadium_stadium(&a, &ID, &b, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points[0].separation + 0.3).abs() < 1e-6);
    }

    #[test]
    fn end_to_end_cores_touch_at_one_point() {
        let a = stadium(0.0, 0.0, 1.0, 0.0, 0.2);
        let b = stadium(1.3, 0.0, 2.3, 0.0, 0.2);
        let m = collide_stadium_stadium(&a, &ID, &b, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(END_B, END_A));
    }

    #[test]
    fn capsule_lying_flat_on_a_wall() {
        let wall = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        let capsule = stadium(-0.5, 0.0, 0.5, 0.0, 0.25);
        let xf = Transform::new(Vec2::new(1.0, 0.24), 0.0);
        let m = collide_segment_stadium(&wall, &ID, &capsule, &xf, 0.0);
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, Vec2::Y);
        assert!((m.points[0].separation + 0.01).abs() < 1e-6);
        assert!((m.points[0].point - Vec2::new(0.5, -0.005)).length() < 1e-6);
        // Standing upright, the same capsule touches with one cap only.
        let up = Transform::new(Vec2::new(1.0, 0.74), FRAC_PI_2);
        let m = collide_segment_stadium(&wall, &ID, &capsule, &up, 0.0);
        assert_eq!(m.count, 1);
        assert!((m.points[0].separation + 0.01).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(SIDE, END_A));
    }

    #[test]
    fn speculative_points_within_the_margin() {
        let a = stadium(-1.0, 0.0, 1.0, 0.0, 0.5);
        let b = stadium(-1.0, 0.0, 1.0, 0.0, 0.5);
        let xf = Transform::from_translation(Vec2::new(0.0, 1.05));
        let near = collide_stadium_stadium(&a, &ID, &b, &xf, 0.1);
        assert_eq!(near.count, 2);
        assert!(near
            .points()
            .iter()
            .all(|p| (p.separation - 0.05).abs() < 1e-6));
        assert!(collide_stadium_stadium(&a, &ID, &b, &xf, 0.04).is_empty());
    }

    #[test]
    fn collinear_overlapping_cores_use_a_left_normal() {
        let a = stadium(0.0, 0.0, 2.0, 0.0, 0.1);
        let b = stadium(1.0, 0.0, 3.0, 0.0, 0.1);
        let m = collide_stadium_stadium(&a, &ID, &b, &ID, 0.0);
        assert_eq!(m.normal, Vec2::Y);
        assert!(m.points().iter().all(|p| (p.separation + 0.2).abs() < 1e-6));
    }
}
