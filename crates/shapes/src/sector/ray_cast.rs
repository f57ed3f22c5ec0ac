//! Ray casts against a sector.

use super::Sector;
use crate::crossing::{circle_crossings, circle_hit, earliest, edge_hit, on_ray, segment_crossing};
use crate::{Ray, RayHit};

impl Sector {
    /// The first point where `ray` enters the sector, if within its length.
    ///
    /// Candidates are the two edges and the circle crossings that land on
    /// the arc (their direction from the apex lies in the sweep); the ray's
    /// first boundary crossing from outside is its entry, so the earliest
    /// candidate wins. Both circle crossings are candidates: a ray starting
    /// inside the circle but in the bite of a wide sector crosses an edge
    /// before it can leave through the arc, and the earliest rule picks the
    /// edge. A ray that starts inside or on the boundary does not hit.
    pub fn ray_cast(&self, ray: &Ray) -> Option<RayHit> {
        if self.contains(ray.origin) {
            return None;
        }
        let [near_arc, far_arc] = self.arc_hits(ray);
        if self.is_full_disc() {
            return earliest(ray, [near_arc, far_arc]);
        }
        earliest(
            ray,
            [
                near_arc,
                far_arc,
                self.start_edge_hit(ray),
                self.end_edge_hit(ray),
            ],
        )
    }

    /// The ray's crossings of the circle that lie on the arc.
    fn arc_hits(&self, ray: &Ray) -> [Option<RayHit>; 2] {
        let Some((near, far)) = circle_crossings(ray, self.center, self.radius) else {
            return [None, None];
        };
        [near, far].map(|t| {
            let on_arc = on_ray(t) && self.covers_direction(ray.point_at(t) - self.center);
            on_arc.then(|| circle_hit(ray, t, self.center))
        })
    }

    /// The crossing of the first edge. The sector lies counter-clockwise of
    /// it, so its outward normal is the edge direction turned clockwise.
    fn start_edge_hit(&self, ray: &Ray) -> Option<RayHit> {
        let t = segment_crossing(ray, self.center, self.start_point())?;
        let outward = -self.start_dir.perp();
        Some(edge_hit(ray, t, outward))
    }

    /// The crossing of the second edge. The sector lies clockwise of it, so
    /// its outward normal is the edge direction turned counter-clockwise.
    fn end_edge_hit(&self, ray: &Ray) -> Option<RayHit> {
        let t = segment_crossing(ray, self.center, self.end_point())?;
        let outward = self.end_dir.perp();
        Some(edge_hit(ray, t, outward))
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::TAU;

    use glam::Vec2;

    use super::*;

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    /// Apex at the origin, radius 2.
    fn sector(start_deg: f32, sweep_deg: f32) -> Sector {
        Sector::new(Vec2::ZERO, 2.0, deg(start_deg), deg(sweep_deg)).unwrap()
    }

    fn ray(origin: (f32, f32), translation: (f32, f32)) -> Ray {
        Ray {
            origin: Vec2::new(origin.0, origin.1),
            translation: Vec2::new(translation.0, translation.1),
        }
    }

    fn assert_hit(hit: Option<RayHit>, fraction: f32, point: (f32, f32), normal: (f32, f32)) {
        let hit = hit.expect("expected a hit");
        let (point, normal) = (Vec2::new(point.0, point.1), Vec2::new(normal.0, normal.1));
        assert!((hit.fraction - fraction).abs() < 1e-6, "{hit:?}");
        assert!(hit.point.abs_diff_eq(point, 1e-5), "{hit:?}");
        assert!(hit.normal.abs_diff_eq(normal, 1e-5), "{hit:?}");
    }

    #[test]
    fn hits_the_first_edge_from_below() {
        let hit = sector(0.0, 90.0).ray_cast(&ray((1.0, -2.0), (0.0, 4.0)));
        assert_hit(hit, 0.5, (1.0, 0.0), (0.0, -1.0));
    }

    #[test]
    fn hits_the_second_edge_from_the_left() {
        let hit = sector(0.0, 90.0).ray_cast(&ray((-2.0, 1.0), (4.0, 0.0)));
        assert_hit(hit, 0.5, (0.0, 1.0), (-1.0, 0.0));
    }

    #[test]
    fn hits_the_arc_from_outside() {
        let hit = sector(0.0, 90.0).ray_cast(&ray((3.0, 3.0), (-3.0, -3.0)));
        let rim = 2.0 * Vec2::from_angle(deg(45.0));
        let fraction = 1.0 - 2.0 / 18f32.sqrt();
        let n = Vec2::from_angle(deg(45.0));
        assert_hit(hit, fraction, (rim.x, rim.y), (n.x, n.y));
    }

    #[test]
    fn skips_the_circle_outside_the_sweep() {
        // Passes through the circle only in the second quadrant.
        let s = sector(0.0, 90.0);
        assert_eq!(s.ray_cast(&ray((-1.0, 3.0), (0.0, -6.0))), None);
    }

    #[test]
    fn hits_across_the_wrap() {
        // 350° sweeping 20°: the arc point at 0° is hit head on.
        let hit = sector(350.0, 20.0).ray_cast(&ray((4.0, 0.0), (-4.0, 0.0)));
        assert_hit(hit, 0.5, (2.0, 0.0), (1.0, 0.0));
    }

    #[test]
    fn enters_a_wide_sector_through_an_edge_of_its_bite() {
        // 0° sweeping 270°: from (1, −1) in the bite moving up, the +x edge is
        // crossed at (1, 0) with outward normal −y.
        let hit = sector(0.0, 270.0).ray_cast(&ray((1.0, -1.0), (0.0, 2.0)));
        assert_hit(hit, 0.5, (1.0, 0.0), (0.0, -1.0));
        // Moving left it meets the −y edge at (0, −1), normal +x.
        let hit = sector(0.0, 270.0).ray_cast(&ray((1.0, -1.0), (-2.0, 0.0)));
        assert_hit(hit, 0.5, (0.0, -1.0), (1.0, 0.0));
    }

    #[test]
    fn full_disc_is_hit_on_the_circle_only() {
        let s = Sector::new(Vec2::ZERO, 2.0, 0.0, TAU).unwrap();
        let hit = s.ray_cast(&ray((1.0, -4.0), (0.0, 4.0)));
        let y = -(3f32.sqrt());
        let n = Vec2::new(0.5, y / 2.0);
        assert_hit(hit, (4.0 + y) / 4.0, (1.0, y), (n.x, n.y));
    }

    #[test]
    fn no_hit_from_inside_on_the_apex_short_or_zero_length() {
        let s = sector(0.0, 90.0);
        for r in [
            ray((0.5, 0.5), (5.0, 5.0)),
            ray((0.0, 0.0), (5.0, 5.0)),
            ray((0.0, 0.0), (-5.0, -5.0)),
            ray((1.0, -2.0), (0.0, 1.0)),
            ray((1.0, -2.0), (0.0, 0.0)),
            ray((5.0, 5.0), (1.0, 1.0)),
        ] {
            assert_eq!(s.ray_cast(&r), None, "{r:?}");
        }
    }

    #[test]
    fn ray_touching_only_the_apex_gets_the_edge_facing_it() {
        // From the second quadrant through the apex into the fourth: both
        // edges are met at the apex; only the +y edge's normal (−x) faces
        // the ray.
        let hit = sector(0.0, 90.0).ray_cast(&ray((-1.0, 1.0), (2.0, -2.0)));
        assert_hit(hit, 0.5, (0.0, 0.0), (-1.0, 0.0));
    }

    #[test]
    fn ray_along_an_edge_line_meets_the_arc_end() {
        // Collinear with the +x edge, coming from the far side.
        let hit = sector(0.0, 90.0).ray_cast(&ray((4.0, 0.0), (-8.0, 0.0)));
        assert_hit(hit, 0.25, (2.0, 0.0), (1.0, 0.0));
    }
}
