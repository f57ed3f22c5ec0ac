//! Contact between a sector (A) and a circle (B).
//!
//! This is the segment–circle offset taken over the sector's boundary: find
//! the boundary point `q` nearest the circle's centre `c` among the two
//! straight edges (segment–circle offsets with the apex as one end) and the
//! arc (the point at `radius` from the apex towards `c`, when `c`'s
//! direction is within the sweep). The separation is the signed distance of
//! `c` from the sector, minus the circle's radius:
//!
//! * nearest point inside an edge: `(c − q)·n` with `n` the edge's outward
//!   normal, which is also the contact normal on either side of the edge;
//! * nearest point on the arc: `|c − apex| − radius`, normal radial;
//! * nearest point a corner or the apex: `±|c − q|` along `c − q`. Only
//!   the apex can be nearest to a centre inside the sector, and only when
//!   the sweep is at least π (the sector then wraps around its apex, or is
//!   flat there): inside a narrower sector one edge is always nearer.
//!
//! Because this reads the real boundary, it is exact for every sweep: a
//! sector wider than π needs no splitting here. A centre exactly on the
//! boundary takes the outward normal of the feature it lies on, and a
//! centre exactly on the apex takes the start edge's. A full disc (sweep 2π)
//! has no edges and is collided as a circle.

use carom_shapes::{Circle, Sector, Transform};
use glam::Vec2;

use crate::circle::circle_circle;
use crate::features::{APEX, ARC, CIRCLE, END_EDGE, START_EDGE};
use crate::posed_sector::PosedSector;
use crate::vector::unit_and_length;
use crate::{ContactManifold, FeatureId};

/// Contact between a sector (A) and a circle (B).
pub fn collide_sector_circle(
    a: &Sector,
    xf_a: &Transform,
    b: &Circle,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    sector_circle(
        &PosedSector::new(a, xf_a),
        xf_b.apply(b.center()),
        b.radius(),
        margin,
    )
}

/// Sector–circle contact from a posed sector and the circle's world centre.
pub(crate) fn sector_circle(
    sector: &PosedSector,
    center: Vec2,
    radius: f32,
    margin: f32,
) -> ContactManifold {
    if sector.is_full_disc() {
        return circle_circle(sector.apex, sector.radius, center, radius, margin);
    }
    if (center - sector.apex).length() - sector.radius - radius > margin {
        return ContactManifold::EMPTY;
    }
    let offset = sector_offset(sector, center);
    let separation = offset.signed_distance - radius;
    if separation > margin {
        return ContactManifold::EMPTY;
    }
    let point = offset.boundary + 0.5 * separation * offset.normal;
    ContactManifold::single(
        offset.normal,
        point,
        separation,
        FeatureId::new(offset.feature, CIRCLE),
    )
}

/// Where a point stands relative to a sector.
struct SectorOffset {
    /// The nearest boundary point.
    boundary: Vec2,
    /// The feature it lies on.
    feature: u8,
    /// The direction in which the point must move to leave the sector
    /// (inside) or to move away from it (outside).
    normal: Vec2,
    /// Distance to the boundary, negative inside.
    signed_distance: f32,
}

fn sector_offset(sector: &PosedSector, p: Vec2) -> SectorOffset {
    let nearest = sector.nearest_boundary_point(p);
    let (normal, signed_distance) = match nearest.feature {
        START_EDGE | END_EDGE => (nearest.outward, (p - nearest.point).dot(nearest.outward)),
        ARC => (nearest.outward, (p - sector.apex).length() - sector.radius),
        APEX if sector.contains(p) => (
            unit_and_length(nearest.point - p).map_or(nearest.outward, |(dir, _)| dir),
            -nearest.distance,
        ),
        _ => (
            unit_and_length(p - nearest.point).map_or(nearest.outward, |(dir, _)| dir),
            nearest.distance,
        ),
    };
    SectorOffset {
        boundary: nearest.point,
        feature: nearest.feature,
        normal,
        signed_distance,
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, PI};

    use super::*;
    use crate::features::{END_CORNER, START_CORNER};

    const ID: Transform = Transform::IDENTITY;

    fn quarter() -> Sector {
        // The quarter disc in the first quadrant, radius 2.
        Sector::new(Vec2::ZERO, 2.0, 0.0, FRAC_PI_2).unwrap()
    }

    fn ball(x: f32, y: f32, r: f32) -> Circle {
        Circle::new(Vec2::new(x, y), r).unwrap()
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn circle_near_the_arc_outside() {
        let m = collide_sector_circle(&quarter(), &ID, &ball(1.5, 1.5, 0.2), &ID, 0.0);
        assert_eq!(m.count, 1);
        let r = 1.5 * 2f32.sqrt();
        assert!(close(m.normal, Vec2::new(1.0, 1.0).normalize()));
        assert!((m.points[0].separation - (r - 2.0 - 0.2)).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(ARC, CIRCLE));
    }

    #[test]
    fn circle_near_the_arc_inside() {
        // Centre at distance 1.9 from the apex: 0.1 inside the arc.
        // On the start edge, 0.1 short of the corner: the edge (0 away) is
        // nearer than the arc (0.1 away).
        let m = collide_sector_circle(&quarter(), &ID, &ball(1.9, 0.0, 0.25), &ID, 0.0);
        assert_eq!(m.normal, -Vec2::Y);
        assert_eq!(m.points[0].separation, -0.25);
        let m = collide_sector_circle(&quarter(), &ID, &ball(1.9 * 0.6, 1.9 * 0.8, 0.25), &ID, 0.0);
        assert!(close(m.normal, Vec2::new(0.6, 0.8)));
        assert!((m.points[0].separation + 0.35).abs() < 1e-5);
        // A's surface on the arc at 2.0, B's innermost point at 1.65: halfway 1.825.
        assert!(close(m.points[0].point, 1.825 * Vec2::new(0.6, 0.8)));
    }

    #[test]
    fn circle_near_the_apex() {
        // Inside, 0.1 from each edge: pushed out through the start edge (tie).
        let m = collide_sector_circle(&quarter(), &ID, &ball(0.1, 0.1, 0.05), &ID, 0.0);
        assert_eq!(m.normal, -Vec2::Y);
        assert!((m.points[0].separation + 0.15).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(START_EDGE, CIRCLE));
        // Outside, behind the apex.
        let m = collide_sector_circle(&quarter(), &ID, &ball(-0.3, -0.4, 0.6), &ID, 0.0);
        assert!(close(m.normal, Vec2::new(-0.6, -0.8)));
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(APEX, CIRCLE));
    }

    #[test]
    fn centre_exactly_on_the_apex_uses_the_start_edge_normal() {
        let m = collide_sector_circle(&quarter(), &ID, &ball(0.0, 0.0, 0.5), &ID, 0.0);
        assert_eq!(m.normal, -Vec2::Y);
        assert_eq!(m.points[0].separation, -0.5);
    }

    #[test]
    fn corners() {
        let m = collide_sector_circle(&quarter(), &ID, &ball(2.3, -0.4, 0.6), &ID, 0.0);
        assert!(close(m.normal, Vec2::new(0.6, -0.8)));
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(START_CORNER, CIRCLE));
        let m = collide_sector_circle(&quarter(), &ID, &ball(-0.1, 2.1, 0.2), &ID, 0.0);
        assert_eq!(m.points[0].id, FeatureId::new(END_CORNER, CIRCLE));
    }

    #[test]
    fn sweep_above_pi_is_handled_whole() {
        // Three quarters of a unit disc, notch in the fourth quadrant.
        let pacman = Sector::new(Vec2::ZERO, 1.0, 0.0, 1.5 * PI).unwrap();
        // Inside, behind the apex: the apex is the nearest boundary point and
        // the way out is through it into the notch.
        let m = collide_sector_circle(&pacman, &ID, &ball(-0.06, 0.08, 0.05), &ID, 0.0);
        assert!(close(m.normal, Vec2::new(0.6, -0.8)));
        assert!((m.points[0].separation + 0.15).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(APEX, CIRCLE));
        // In the notch, touching the end edge (the negative y axis).
        let m = collide_sector_circle(&pacman, &ID, &ball(0.1, -0.5, 0.15), &ID, 0.0);
        assert!(close(m.normal, Vec2::X));
        assert!((m.points[0].separation + 0.05).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(END_EDGE, CIRCLE));
        // Beyond the arc in the back.
        let m = collide_sector_circle(&pacman, &ID, &ball(-1.1, 0.0, 0.15), &ID, 0.0);
        assert_eq!(m.normal, -Vec2::X);
        assert!((m.points[0].separation + 0.05).abs() < 1e-6);
    }

    #[test]
    fn half_disc_centre_above_the_apex_is_inside() {
        // Every boundary point is 0.5 away; the apex is found first.
        let half = Sector::new(Vec2::ZERO, 1.0, 0.0, PI).unwrap();
        let m = collide_sector_circle(&half, &ID, &ball(0.0, 0.5, 0.25), &ID, 0.0);
        assert_eq!(m.count, 1);
        assert!((m.points[0].separation + 0.75).abs() < 1e-6);
        assert!(close(m.normal, -Vec2::Y));
    }

    #[test]
    fn rotated_sector() {
        // The quarter disc turned to the second quadrant and moved to (1, 1).
        let xf = Transform::new(Vec2::new(1.0, 1.0), FRAC_PI_2);
        let m = collide_sector_circle(&quarter(), &xf, &ball(0.5, 0.5, 0.6), &ID, 0.0);
        // The end edge now runs left from (1, 1); the ball hangs 0.5 below it.
        assert!(close(m.normal, -Vec2::Y));
        assert!((m.points[0].separation + 0.1).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(END_EDGE, CIRCLE));
    }

    #[test]
    fn speculative_and_far() {
        let near = collide_sector_circle(&quarter(), &ID, &ball(1.0, -0.3, 0.25), &ID, 0.1);
        assert_eq!(near.count, 1);
        assert!((near.points[0].separation - 0.05).abs() < 1e-6);
        assert!(
            collide_sector_circle(&quarter(), &ID, &ball(1.0, -0.3, 0.25), &ID, 0.04).is_empty()
        );
    }

    #[test]
    fn full_disc_is_a_circle() {
        let disc = Sector::new(Vec2::ZERO, 1.0, 0.3, std::f32::consts::TAU).unwrap();
        let m = collide_sector_circle(&disc, &ID, &ball(0.5, 0.0, 0.25), &ID, 0.0);
        assert_eq!(m.normal, Vec2::X);
        assert!((m.points[0].separation + 0.75).abs() < 1e-6);
    }
}
