use std::f32::consts::PI;

use glam::Vec2;

use crate::crossing::{circle_hit, disc_entry, earliest, edge_hit, segment_crossing};
use crate::error::{check_core, check_point, check_radius, ShapeError};
use crate::{closest_point_on_segment, Aabb, MassProperties, Ray, RayHit, Transform};

/// A stadium (capsule): every point within `radius` of the core segment `ab`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stadium {
    a: Vec2,
    b: Vec2,
    radius: f32,
}

impl Stadium {
    /// A stadium around the core `ab` (distinct, finite points) with `radius > 0`.
    ///
    /// Fails with [`ShapeError::ZeroLengthStadium`] when `|b − a|²` rounds to
    /// zero, and with [`ShapeError::NonFinite`] when it or `radius²` overflows.
    pub fn new(a: Vec2, b: Vec2, radius: f32) -> Result<Stadium, ShapeError> {
        check_point(a, "stadium end a")?;
        check_point(b, "stadium end b")?;
        check_radius(radius)?;
        check_core(a, b, ShapeError::ZeroLengthStadium)?;
        Ok(Stadium { a, b, radius })
    }

    /// The first end of the core.
    #[inline]
    pub fn a(&self) -> Vec2 {
        self.a
    }

    /// The second end of the core.
    #[inline]
    pub fn b(&self) -> Vec2 {
        self.b
    }

    /// The radius around the core.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The tight bounding box in the stadium's frame.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::around_segment(self.a, self.b, self.radius)
    }

    /// The tight bounding box of the stadium placed by `xf`.
    #[inline]
    pub fn aabb_at(&self, xf: &Transform) -> Aabb {
        Aabb::around_segment(xf.apply(self.a), xf.apply(self.b), self.radius)
    }

    /// The same stadium with its core mapped by `xf`.
    #[inline]
    pub fn transformed(&self, xf: &Transform) -> Stadium {
        Stadium {
            a: xf.apply(self.a),
            b: xf.apply(self.b),
            radius: self.radius,
        }
    }

    /// The point of the core nearest `p`.
    #[inline]
    fn nearest_on_core(&self, p: Vec2) -> Vec2 {
        closest_point_on_segment(self.a, self.b, p).point
    }

    /// Whether `p` is within `radius` of the core; the boundary counts.
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        (p - self.nearest_on_core(p)).length_squared() <= self.radius * self.radius
    }

    /// Distance from `p` to the boundary, negative inside: the distance to
    /// the core minus the radius.
    #[inline]
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        (p - self.nearest_on_core(p)).length() - self.radius
    }

    /// The point of the stadium nearest `p`: `p` itself when inside,
    /// otherwise `q + r (p − q)/|p − q|` with `q` the nearest core point.
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        let core = self.nearest_on_core(p);
        let offset = p - core;
        let distance = offset.length();
        if distance <= self.radius {
            p
        } else {
            core + offset * (self.radius / distance)
        }
    }

    /// The first point where `ray` enters the stadium, if within its length.
    ///
    /// The stadium is a rectangle along the core plus a disc at each end. A
    /// ray from outside enters it first either through one of the two long
    /// sides or through one of the discs (the rectangle's short ends lie
    /// inside the discs), so the hit is the earliest of those four. A ray
    /// that starts inside or on the boundary does not hit.
    pub fn ray_cast(&self, ray: &Ray) -> Option<RayHit> {
        if self.contains(ray.origin) {
            return None;
        }
        let normal = (self.b - self.a).perp().normalize_or_zero();
        let offset = self.radius * normal;
        let side = |sign: f32| {
            let t = segment_crossing(ray, self.a + sign * offset, self.b + sign * offset)?;
            Some(edge_hit(ray, t, sign * normal))
        };
        let cap = |center: Vec2| {
            let t = disc_entry(ray, center, self.radius)?;
            Some(circle_hit(ray, t, center))
        };
        earliest(ray, [side(1.0), side(-1.0), cap(self.a), cap(self.b)])
    }

    /// The area: a `2r × L` rectangle plus one disc, `2rL + π r²`.
    #[inline]
    pub fn area(&self) -> f32 {
        let r = self.radius;
        2.0 * r * (self.b - self.a).length() + PI * r * r
    }

    /// Mass, centre (the core's midpoint) and inertia about that centre.
    ///
    /// Split into a `2r × L` rectangle and two half discs, `h = L/2`:
    /// - rectangle, `m_box = ρ 2rL`: `I_box = m_box (L² + 4r²) / 12`;
    /// - half disc, `m_half = ½ ρ π r²`: about the middle of its flat side it
    ///   has half a disc's inertia, `½ m_half r²`; its centroid lies a further
    ///   `k = 4r / (3π)` out. By the parallel-axis theorem (`I = I_c + m d²`)
    ///   applied twice, first in to its centroid and then out to the stadium
    ///   centre at distance `h + k`:
    ///   `I_half = ½ m_half r² − m_half k² + m_half (h + k)²
    ///           = m_half (½ r² + h² + 2hk)`.
    ///
    /// Both halves together, with `m_disc = ρ π r²`:
    /// `I = I_box + m_disc (½ r² + h² + 2hk)`.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let r = self.radius;
        let length = (self.b - self.a).length();
        let h = 0.5 * length;
        let k = 4.0 * r / (3.0 * PI);
        let box_mass = density * 2.0 * r * length;
        let disc_mass = density * PI * r * r;
        let box_inertia = box_mass * (length * length + 4.0 * r * r) / 12.0;
        let caps_inertia = disc_mass * (0.5 * r * r + h * h + 2.0 * h * k);
        MassProperties {
            mass: box_mass + disc_mass,
            center: 0.5 * (self.a + self.b),
            inertia: box_inertia + caps_inertia,
        }
    }

    /// Half the thinnest width: the radius.
    #[inline]
    pub fn min_extent(&self) -> f32 {
        self.radius
    }

    /// The largest distance from `from` to a point of the stadium: the
    /// farther core end plus the radius.
    #[inline]
    pub fn max_extent(&self, from: Vec2) -> f32 {
        (from - self.a).length().max((from - self.b).length()) + self.radius
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    /// Core from (−2, 0) to (2, 0), radius 1.
    fn stadium() -> Stadium {
        Stadium::new(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0), 1.0).unwrap()
    }

    fn ray(origin: (f32, f32), translation: (f32, f32)) -> Ray {
        Ray {
            origin: Vec2::new(origin.0, origin.1),
            translation: Vec2::new(translation.0, translation.1),
        }
    }

    #[test]
    fn rejects_degenerate_cores() {
        let a = Vec2::new(1.0, 1.0);
        assert_eq!(Stadium::new(a, a, 1.0), Err(ShapeError::ZeroLengthStadium));
        assert_eq!(
            Stadium::new(Vec2::ZERO, Vec2::new(0.0, 1e-30), 1.0),
            Err(ShapeError::ZeroLengthStadium)
        );
        assert!(Stadium::new(Vec2::ZERO, Vec2::X, 0.0).is_err());
    }

    #[test]
    fn bounds_local_and_placed() {
        let s = stadium();
        assert_eq!(
            s.aabb(),
            Aabb::new(Vec2::new(-3.0, -1.0), Vec2::new(3.0, 1.0))
        );
        let placed = s.aabb_at(&Transform::new(Vec2::new(0.0, 5.0), FRAC_PI_2));
        assert!(placed.min.abs_diff_eq(Vec2::new(-1.0, 2.0), 1e-6));
        assert!(placed.max.abs_diff_eq(Vec2::new(1.0, 8.0), 1e-6));
    }

    #[test]
    fn transformed_maps_the_core() {
        let moved = stadium().transformed(&Transform::new(Vec2::new(0.0, 5.0), FRAC_PI_2));
        assert!(moved.a().abs_diff_eq(Vec2::new(0.0, 3.0), 1e-6));
        assert!(moved.b().abs_diff_eq(Vec2::new(0.0, 7.0), 1e-6));
        assert_eq!(moved.radius(), 1.0);
    }

    #[test]
    fn contains_and_signed_distance_along_sides_and_caps() {
        let s = stadium();
        assert!(s.contains(Vec2::new(0.0, 1.0)));
        assert!(s.contains(Vec2::new(3.0, 0.0)));
        assert!(!s.contains(Vec2::new(2.8, 0.8)));
        assert_eq!(s.signed_distance(Vec2::ZERO), -1.0);
        assert_eq!(s.signed_distance(Vec2::new(1.0, 4.0)), 3.0);
        assert_eq!(s.signed_distance(Vec2::new(5.0, 4.0)), 4.0);
        assert_eq!(s.signed_distance(Vec2::new(-2.0, 0.5)), -0.5);
    }

    #[test]
    fn closest_point_on_side_and_cap() {
        let s = stadium();
        assert_eq!(s.closest_point(Vec2::new(1.0, 4.0)), Vec2::new(1.0, 1.0));
        let on_cap = s.closest_point(Vec2::new(5.0, 4.0));
        assert!(on_cap.abs_diff_eq(Vec2::new(2.6, 0.8), 1e-6));
        assert_eq!(s.closest_point(Vec2::new(2.0, 0.0)), Vec2::new(2.0, 0.0));
    }

    #[test]
    fn ray_cast_through_a_side() {
        let hit = stadium().ray_cast(&ray((1.0, 3.0), (0.0, -4.0))).unwrap();
        assert_eq!(hit.fraction, 0.5);
        assert_eq!(hit.point, Vec2::new(1.0, 1.0));
        assert_eq!(hit.normal, Vec2::Y);
        let below = stadium().ray_cast(&ray((1.0, -3.0), (0.0, 4.0))).unwrap();
        assert_eq!(below.normal, -Vec2::Y);
    }

    #[test]
    fn ray_cast_through_a_cap() {
        let hit = stadium().ray_cast(&ray((5.0, 0.0), (-4.0, 0.0))).unwrap();
        assert_eq!(hit.fraction, 0.5);
        assert_eq!(hit.point, Vec2::new(3.0, 0.0));
        assert_eq!(hit.normal, Vec2::X);
    }

    #[test]
    fn ray_along_a_side_line_meets_the_cap_edge() {
        // Collinear with the top side: the side is parallel, the cap at a is
        // grazed at its top point.
        let hit = stadium().ray_cast(&ray((-5.0, 1.0), (10.0, 0.0))).unwrap();
        assert!((hit.fraction - 0.3).abs() < 1e-6);
        assert!(hit.normal.abs_diff_eq(Vec2::Y, 1e-6));
    }

    #[test]
    fn ray_cast_misses_from_inside_and_when_short() {
        let s = stadium();
        for r in [
            ray((0.0, 0.0), (0.0, 5.0)),
            ray((0.0, 1.0), (0.0, 5.0)),
            ray((0.0, 3.0), (0.0, -1.0)),
            ray((0.0, 3.0), (0.0, 0.0)),
            ray((0.0, 3.0), (5.0, 0.0)),
        ] {
            assert_eq!(s.ray_cast(&r), None, "{r:?}");
        }
    }

    #[test]
    fn area_and_mass_by_hand() {
        let s = stadium();
        // Rectangle 4 × 2 = 8 plus a unit disc π.
        assert!((s.area() - (8.0 + PI)).abs() < 1e-5);
        let m = s.mass_properties(2.0);
        assert!((m.mass - 2.0 * (8.0 + PI)).abs() < 1e-4);
        assert_eq!(m.center, Vec2::ZERO);
        // Box: 16 (16 + 4)/12 = 80/3. Caps: 2π (1/2 + 4 + 2·2·4/(3π)) = 9π + 32/3.
        let expected = 80.0 / 3.0 + 9.0 * PI + 32.0 / 3.0;
        assert!((m.inertia - expected).abs() < 1e-3, "{}", m.inertia);
    }

    #[test]
    fn extents() {
        let s = stadium();
        assert_eq!(s.min_extent(), 1.0);
        assert_eq!(s.max_extent(Vec2::ZERO), 3.0);
        assert_eq!(s.max_extent(Vec2::new(-2.0, 3.0)), 6.0);
    }
}
