use glam::Vec2;

use crate::Transform;

/// A ray from `origin` along `translation`; a hit reports how far along it
/// lies as a fraction of `translation` (so `origin + fraction · translation`).
///
/// Ray casts in carom report the first point where the ray enters a shape
/// with `0 ≤ fraction ≤ 1`. A ray whose origin is inside a solid shape, or
/// on its boundary, does not hit that shape; a ray with zero translation hits
/// nothing. Any finite translation works, however long or short: a ray meant
/// to be endless can be given one 1e30 m long, its hits then at fractions
/// around 1e-30.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec2,
    /// The ray's direction and length: fraction 1 lies at `origin + translation`.
    pub translation: Vec2,
}

impl Ray {
    /// The point at `fraction` along the ray: `origin + fraction · translation`.
    #[inline]
    pub fn point_at(&self, fraction: f32) -> Vec2 {
        self.origin + fraction * self.translation
    }

    /// The same ray seen from the local frame of `xf` (which maps local
    /// points to this ray's frame): origin through `xf⁻¹`, translation
    /// rotated back. Fractions are unchanged.
    #[inline]
    pub fn to_local(&self, xf: &Transform) -> Ray {
        Ray {
            origin: xf.apply_inverse(self.origin),
            translation: xf.rotation.inv_rotate(self.translation),
        }
    }
}

/// Where a ray first meets a shape's boundary.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayHit {
    /// The hit point.
    pub point: Vec2,
    /// The unit outward normal of the shape at the hit point.
    pub normal: Vec2,
    /// The hit point as a fraction of the ray's translation.
    pub fraction: f32,
}

impl RayHit {
    /// The hit mapped out of a local frame by `xf`: point transformed,
    /// normal rotated, fraction unchanged.
    #[inline]
    pub fn to_world(&self, xf: &Transform) -> RayHit {
        RayHit {
            point: xf.apply(self.point),
            normal: xf.rotation.rotate(self.normal),
            fraction: self.fraction,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    #[test]
    fn point_at_interpolates() {
        let ray = Ray {
            origin: Vec2::new(1.0, 2.0),
            translation: Vec2::new(4.0, -2.0),
        };
        assert_eq!(ray.point_at(0.5), Vec2::new(3.0, 1.0));
    }

    #[test]
    fn to_local_then_to_world_round_trips() {
        let xf = Transform::new(Vec2::new(3.0, 0.0), FRAC_PI_2);
        let ray = Ray {
            origin: Vec2::new(3.0, 2.0),
            translation: Vec2::new(0.0, 1.0),
        };
        let local = ray.to_local(&xf);
        assert!(local.origin.abs_diff_eq(Vec2::new(2.0, 0.0), 1e-6));
        assert!(local.translation.abs_diff_eq(Vec2::new(1.0, 0.0), 1e-6));
        let hit = RayHit {
            point: local.point_at(0.5),
            normal: Vec2::new(-1.0, 0.0),
            fraction: 0.5,
        };
        let world = hit.to_world(&xf);
        assert!(world.point.abs_diff_eq(ray.point_at(0.5), 1e-6));
        assert!(world.normal.abs_diff_eq(Vec2::new(0.0, -1.0), 1e-6));
        assert_eq!(world.fraction, 0.5);
    }
}
