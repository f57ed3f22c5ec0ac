//! Containment, signed distance and closest points of a sector.

use glam::Vec2;

use super::Sector;
use crate::closest_point_on_segment;

impl Sector {
    /// Whether `p` lies in the sector; the boundary and the apex count.
    ///
    /// `p` must be within the radius, compared as squares (`|p − c|² ≤ r²`, no
    /// square root), and its direction from the apex must lie in the sweep.
    /// The direction test uses cross and dot products with the edge
    /// directions, never angles, so it has no wrap-around; it handles sweeps
    /// above π (a union of half-planes rather than an intersection) and a
    /// full turn (every direction).
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        let d = p - self.center;
        d.length_squared() <= self.radius * self.radius && self.covers_direction(d)
    }

    /// Distance from `p` to the boundary, negative inside.
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        let distance = self.distance_to_boundary(p);
        if self.contains(p) {
            -distance
        } else {
            distance
        }
    }

    /// The point of the sector nearest `p`: `p` itself when inside.
    ///
    /// From outside, the nearest point is on the arc when `p`'s direction
    /// lies in the sweep (it is then beyond the radius, and the arc point
    /// `c + r (p − c)/|p − c|` is nearer than anything else by the triangle
    /// inequality); otherwise it is on one of the edges, since the arc points
    /// nearest such a `p` are the arc ends.
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        if self.contains(p) {
            return p;
        }
        let d = p - self.center;
        if self.covers_direction(d) {
            return self.center + d * (self.radius / d.length());
        }
        let on_start = closest_point_on_segment(self.center, self.start_point(), p).point;
        let on_end = closest_point_on_segment(self.center, self.end_point(), p).point;
        if (p - on_start).length_squared() <= (p - on_end).length_squared() {
            on_start
        } else {
            on_end
        }
    }

    /// The unsigned distance from `p` to the boundary: the nearer of the two
    /// edges and, when `p`'s direction is in the sweep, the arc at
    /// `| |p − c| − r |`. A full disc has only the circle as its boundary.
    fn distance_to_boundary(&self, p: Vec2) -> f32 {
        let d = p - self.center;
        let to_circle = (d.length() - self.radius).abs();
        if self.is_full_disc() {
            return to_circle;
        }
        let to_edges = self
            .distance_to_edge(self.start_point(), p)
            .min(self.distance_to_edge(self.end_point(), p));
        if self.covers_direction(d) {
            to_edges.min(to_circle)
        } else {
            to_edges
        }
    }

    /// The distance from `p` to the edge from the apex to `tip`.
    fn distance_to_edge(&self, tip: Vec2, p: Vec2) -> f32 {
        (p - closest_point_on_segment(self.center, tip, p).point).length()
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::TAU;

    use super::*;

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    /// Apex at the origin, radius 2.
    fn sector(start_deg: f32, sweep_deg: f32) -> Sector {
        Sector::new(Vec2::ZERO, 2.0, deg(start_deg), deg(sweep_deg)).unwrap()
    }

    fn at(radius: f32, angle_deg: f32) -> Vec2 {
        radius * Vec2::from_angle(deg(angle_deg))
    }

    #[test]
    fn contains_inside_outside_and_beyond_the_radius() {
        let s = sector(0.0, 90.0);
        assert!(s.contains(at(1.0, 45.0)));
        assert!(s.contains(at(2.0, 45.0)));
        assert!(!s.contains(at(2.01, 45.0)));
        assert!(!s.contains(at(1.0, 135.0)));
        assert!(!s.contains(at(1.0, -45.0)));
    }

    #[test]
    fn contains_the_apex_for_every_kind_of_sweep() {
        for sweep in [1.0, 90.0, 180.0, 270.0, 360.0] {
            assert!(sector(33.0, sweep).contains(Vec2::ZERO), "{sweep}");
        }
    }

    #[test]
    fn contains_across_the_wrap() {
        let s = sector(350.0, 20.0);
        assert!(s.contains(at(1.0, 5.0)));
        assert!(s.contains(at(1.0, 355.0)));
        assert!(!s.contains(at(1.0, 15.0)));
        assert!(!s.contains(at(1.0, 340.0)));
    }

    #[test]
    fn contains_with_sweep_above_half_a_turn() {
        let s = sector(0.0, 270.0);
        assert!(s.contains(at(1.0, 200.0)));
        assert!(s.contains(at(1.0, 260.0)));
        assert!(!s.contains(at(1.0, 300.0)));
        assert!(!s.contains(at(2.5, 100.0)));
    }

    #[test]
    fn full_disc_contains_every_direction() {
        let s = Sector::new(Vec2::ZERO, 2.0, 1.0, TAU).unwrap();
        for angle in [0.0, 57.0, 180.0, 250.0, 359.0] {
            assert!(s.contains(at(1.9, angle)), "{angle}");
        }
        assert!(!s.contains(at(2.1, 10.0)));
    }

    #[test]
    fn contains_uses_squares_at_the_rim() {
        let s = sector(0.0, 90.0);
        assert!(s.contains(Vec2::new(2.0, 0.0)));
        assert!(s.contains(Vec2::new(0.0, 0.0)));
        assert!(!s.contains(Vec2::new(2.0, 0.001)));
    }

    #[test]
    fn signed_distance_by_hand() {
        let s = sector(0.0, 90.0);
        // Inside, nearer the bottom edge than the arc.
        assert!((s.signed_distance(Vec2::new(1.0, 0.25)) + 0.25).abs() < 1e-6);
        // Inside, nearest the arc.
        assert!((s.signed_distance(at(1.8, 45.0)) + 0.2).abs() < 1e-6);
        // Outside beyond the arc.
        assert!((s.signed_distance(at(3.0, 45.0)) - 1.0).abs() < 1e-6);
        // Outside below the bottom edge.
        assert!((s.signed_distance(Vec2::new(1.0, -0.5)) - 0.5).abs() < 1e-6);
        // Outside, nearest the apex.
        assert!((s.signed_distance(Vec2::new(-3.0, -4.0)) - 5.0).abs() < 1e-6);
        // The apex is on the boundary.
        assert_eq!(s.signed_distance(Vec2::ZERO), 0.0);
    }

    #[test]
    fn signed_distance_in_the_bite_of_a_wide_sector() {
        // 0° sweeping 270°: the fourth quadrant is outside.
        let s = sector(0.0, 270.0);
        assert!((s.signed_distance(Vec2::new(1.0, -0.25)) - 0.25).abs() < 1e-6);
        // Third quadrant, inside, nearest the −y edge.
        assert!((s.signed_distance(Vec2::new(-0.5, -0.5)) + 0.5).abs() < 1e-6);
    }

    #[test]
    fn full_disc_signed_distance_ignores_the_edges() {
        let s = Sector::new(Vec2::ZERO, 2.0, 0.0, TAU).unwrap();
        assert_eq!(s.signed_distance(Vec2::new(1.0, 0.0)), -1.0);
        assert_eq!(s.signed_distance(Vec2::ZERO), -2.0);
        assert_eq!(s.signed_distance(Vec2::new(0.0, 5.0)), 3.0);
    }

    #[test]
    fn closest_point_inside_is_the_point() {
        let s = sector(0.0, 90.0);
        assert_eq!(s.closest_point(Vec2::new(0.5, 0.5)), Vec2::new(0.5, 0.5));
        assert_eq!(s.closest_point(Vec2::ZERO), Vec2::ZERO);
    }

    #[test]
    fn closest_point_on_the_arc_the_edges_and_the_apex() {
        let s = sector(0.0, 90.0);
        let on_arc = s.closest_point(at(3.0, 30.0));
        assert!(on_arc.abs_diff_eq(at(2.0, 30.0), 1e-6));
        let on_edge = s.closest_point(Vec2::new(1.5, -1.0));
        assert!(on_edge.abs_diff_eq(Vec2::new(1.5, 0.0), 1e-6));
        let on_other_edge = s.closest_point(Vec2::new(-1.0, 1.0));
        assert!(on_other_edge.abs_diff_eq(Vec2::new(0.0, 1.0), 1e-6));
        assert_eq!(s.closest_point(Vec2::new(-1.0, -1.0)), Vec2::ZERO);
        let arc_end = s.closest_point(Vec2::new(3.0, -1.0));
        assert!(arc_end.abs_diff_eq(Vec2::new(2.0, 0.0), 1e-6));
    }

    #[test]
    fn closest_point_from_the_bite_of_a_wide_sector() {
        let s = sector(0.0, 270.0);
        // In the bite, nearer the +x edge than the −y edge.
        let p = Vec2::new(1.0, -0.25);
        assert!(s.closest_point(p).abs_diff_eq(Vec2::new(1.0, 0.0), 1e-6));
        // Just outside the arc inside the sweep.
        assert!(s
            .closest_point(at(2.5, 180.0))
            .abs_diff_eq(at(2.0, 180.0), 1e-6));
    }

    #[test]
    fn far_queries_stay_finite() {
        let s = sector(350.0, 20.0);
        let p = Vec2::new(-1e6, 3e5);
        assert!(s.signed_distance(p).is_finite());
        assert!(s.closest_point(p).is_finite());
        let on_arc = s.closest_point(at(1e6, 0.0));
        assert!(on_arc.abs_diff_eq(Vec2::new(2.0, 0.0), 1e-5));
    }
}
