use std::f32::consts::PI;

use glam::Vec2;

use crate::crossing::{circle_hit, disc_entry};
use crate::error::{check_point, check_radius, ShapeError};
use crate::{Aabb, MassProperties, Ray, RayHit, Transform};

/// A solid disc.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Circle {
    center: Vec2,
    radius: f32,
}

impl Circle {
    /// A disc of `radius > 0` around `center`.
    ///
    /// Fails when an input is not finite, the radius is not positive, or the
    /// radius is so large (above about 1.8e19) that its square overflows.
    pub fn new(center: Vec2, radius: f32) -> Result<Circle, ShapeError> {
        check_point(center, "circle center")?;
        check_radius(radius)?;
        Ok(Circle { center, radius })
    }

    /// The centre.
    #[inline]
    pub fn center(&self) -> Vec2 {
        self.center
    }

    /// The radius.
    #[inline]
    pub fn radius(&self) -> f32 {
        self.radius
    }

    /// The tight bounding box in the circle's frame.
    #[inline]
    pub fn aabb(&self) -> Aabb {
        Aabb::around_circle(self.center, self.radius)
    }

    /// The tight bounding box of the circle placed by `xf`.
    #[inline]
    pub fn aabb_at(&self, xf: &Transform) -> Aabb {
        Aabb::around_circle(xf.apply(self.center), self.radius)
    }

    /// The same circle with its centre mapped by `xf`.
    #[inline]
    pub fn transformed(&self, xf: &Transform) -> Circle {
        Circle {
            center: xf.apply(self.center),
            radius: self.radius,
        }
    }

    /// Whether `p` lies in the disc; the rim counts as inside.
    #[inline]
    pub fn contains(&self, p: Vec2) -> bool {
        (p - self.center).length_squared() <= self.radius * self.radius
    }

    /// Distance from `p` to the rim, negative inside: `|p − c| − r`.
    #[inline]
    pub fn signed_distance(&self, p: Vec2) -> f32 {
        (p - self.center).length() - self.radius
    }

    /// The point of the disc nearest `p`: `p` itself when inside, otherwise
    /// `c + r (p − c)/|p − c|`, the rim point on the line to the centre.
    pub fn closest_point(&self, p: Vec2) -> Vec2 {
        let offset = p - self.center;
        let distance = offset.length();
        if distance <= self.radius {
            p
        } else {
            self.center + offset * (self.radius / distance)
        }
    }

    /// The first point where `ray` enters the disc, if within its length.
    ///
    /// A ray that starts inside or on the rim does not hit.
    pub fn ray_cast(&self, ray: &Ray) -> Option<RayHit> {
        if self.contains(ray.origin) {
            return None;
        }
        let t = disc_entry(ray, self.center, self.radius)?;
        Some(circle_hit(ray, t, self.center))
    }

    /// The area `π r²`.
    #[inline]
    pub fn area(&self) -> f32 {
        PI * self.radius * self.radius
    }

    /// Mass `m = ρ π r²` at the centre, inertia about the centre `½ m r²`.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let mass = density * self.area();
        MassProperties {
            mass,
            center: self.center,
            inertia: 0.5 * mass * self.radius * self.radius,
        }
    }

    /// Half the thinnest width: the radius.
    #[inline]
    pub fn min_extent(&self) -> f32 {
        self.radius
    }

    /// The largest distance from `from` to a point of the disc: `|from − c| + r`.
    #[inline]
    pub fn max_extent(&self, from: Vec2) -> f32 {
        (from - self.center).length() + self.radius
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    fn circle() -> Circle {
        Circle::new(Vec2::new(1.0, 2.0), 2.0).unwrap()
    }

    #[test]
    fn rejects_bad_radii() {
        assert!(Circle::new(Vec2::ZERO, 0.0).is_err());
        assert!(Circle::new(Vec2::ZERO, -1.0).is_err());
        assert!(Circle::new(Vec2::ZERO, f32::NAN).is_err());
        assert!(Circle::new(Vec2::ZERO, 1e20).is_err());
        assert!(Circle::new(Vec2::new(f32::INFINITY, 0.0), 1.0).is_err());
    }

    #[test]
    fn bounds_local_and_placed() {
        let c = circle();
        assert_eq!(
            c.aabb(),
            Aabb::new(Vec2::new(-1.0, 0.0), Vec2::new(3.0, 4.0))
        );
        let xf = Transform::new(Vec2::new(10.0, 0.0), FRAC_PI_2);
        let placed = c.aabb_at(&xf);
        // The centre (1, 2) turns to (−2, 1) and moves to (8, 1).
        assert!(placed.min.abs_diff_eq(Vec2::new(6.0, -1.0), 1e-5));
        assert!(placed.max.abs_diff_eq(Vec2::new(10.0, 3.0), 1e-5));
    }

    #[test]
    fn transformed_moves_the_centre_only() {
        let xf = Transform::new(Vec2::new(10.0, 0.0), FRAC_PI_2);
        let moved = circle().transformed(&xf);
        assert!(moved.center().abs_diff_eq(Vec2::new(8.0, 1.0), 1e-5));
        assert_eq!(moved.radius(), 2.0);
    }

    #[test]
    fn contains_rim_and_centre() {
        let c = circle();
        assert!(c.contains(Vec2::new(1.0, 2.0)));
        assert!(c.contains(Vec2::new(3.0, 2.0)));
        assert!(!c.contains(Vec2::new(3.0, 2.5)));
    }

    #[test]
    fn signed_distance_inside_on_and_outside() {
        let c = circle();
        assert_eq!(c.signed_distance(Vec2::new(1.0, 2.0)), -2.0);
        assert_eq!(c.signed_distance(Vec2::new(1.0, 4.0)), 0.0);
        assert_eq!(c.signed_distance(Vec2::new(4.0, 6.0)), 3.0);
    }

    #[test]
    fn closest_point_projects_outside_points_onto_the_rim() {
        let c = circle();
        let rim = c.closest_point(Vec2::new(4.0, 6.0));
        assert!(rim.abs_diff_eq(Vec2::new(2.2, 3.6), 1e-6));
        assert_eq!(c.closest_point(Vec2::new(1.5, 2.0)), Vec2::new(1.5, 2.0));
        assert_eq!(c.closest_point(c.center()), c.center());
    }

    #[test]
    fn far_queries_stay_finite() {
        let p = Vec2::new(1e6, -1e6);
        let c = circle();
        assert!(c.signed_distance(p).is_finite());
        assert!(c.closest_point(p).is_finite());
        assert!((c.closest_point(p) - c.center()).length() <= 2.0 + 1e-4);
    }

    #[test]
    fn ray_cast_hits_the_near_side() {
        let ray = Ray {
            origin: Vec2::new(-3.0, 2.0),
            translation: Vec2::new(8.0, 0.0),
        };
        let hit = circle().ray_cast(&ray).unwrap();
        assert_eq!(hit.fraction, 0.25);
        assert_eq!(hit.point, Vec2::new(-1.0, 2.0));
        assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
    }

    #[test]
    fn ray_cast_misses_from_inside_short_and_zero_length() {
        let c = circle();
        let inside = Ray {
            origin: Vec2::new(1.0, 2.0),
            translation: Vec2::new(8.0, 0.0),
        };
        let on_rim = Ray {
            origin: Vec2::new(3.0, 2.0),
            translation: Vec2::new(-1.0, 0.0),
        };
        let short = Ray {
            origin: Vec2::new(-3.0, 2.0),
            translation: Vec2::new(1.0, 0.0),
        };
        let zero = Ray {
            origin: Vec2::new(-3.0, 2.0),
            translation: Vec2::ZERO,
        };
        for ray in [inside, on_rim, short, zero] {
            assert_eq!(c.ray_cast(&ray), None, "{ray:?}");
        }
    }

    #[test]
    fn ray_cast_grazing_touches() {
        let ray = Ray {
            origin: Vec2::new(-3.0, 4.0),
            translation: Vec2::new(8.0, 0.0),
        };
        let hit = circle().ray_cast(&ray).unwrap();
        assert_eq!(hit.point, Vec2::new(1.0, 4.0));
        assert_eq!(hit.normal, Vec2::Y);
    }

    #[test]
    fn mass_of_a_unit_density_disc() {
        let m = circle().mass_properties(3.0);
        assert!((m.mass - 12.0 * PI).abs() < 1e-4);
        assert_eq!(m.center, Vec2::new(1.0, 2.0));
        assert!((m.inertia - 0.5 * 12.0 * PI * 4.0).abs() < 1e-3);
        assert!((circle().area() - 4.0 * PI).abs() < 1e-5);
    }

    #[test]
    fn extents() {
        let c = circle();
        assert_eq!(c.min_extent(), 2.0);
        assert_eq!(c.max_extent(Vec2::new(4.0, 6.0)), 7.0);
        assert_eq!(c.max_extent(c.center()), 2.0);
    }
}
