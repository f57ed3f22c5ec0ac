//! Area, centroid and inertia of a sector.

use glam::Vec2;

use super::Sector;
use crate::{MassProperties, Rot};

impl Sector {
    /// The area `½ r² s` for sweep `s`.
    #[inline]
    pub fn area(&self) -> f32 {
        0.5 * self.radius * self.radius * self.sweep
    }

    /// The centroid's distance from the apex as a fraction of the radius,
    /// `k = 4 sin(s/2) / (3s)`; zero for the full disc, whose centroid is the
    /// apex. (It tends to 2/3 as the slice thins to a triangle.)
    fn centroid_offset_ratio(&self) -> f32 {
        if self.is_full_disc() {
            return 0.0;
        }
        let s = self.sweep;
        4.0 * (0.5 * s).sin() / (3.0 * s)
    }

    /// The centroid: `k r` from the apex along the bisector of the sweep.
    pub fn centroid(&self) -> Vec2 {
        let bisector = Rot::from_angle(0.5 * self.sweep).rotate(self.start_dir);
        self.center + self.centroid_offset_ratio() * self.radius * bisector
    }

    /// Mass `m = ρ ½ r² s`, the centroid, and the inertia about it.
    ///
    /// Every thin wedge of the sector has its mass spread from the apex out
    /// to `r` with density growing like the distance, so about the apex
    /// `I = ½ m r²`, as for a full disc. The parallel-axis theorem moves it to
    /// the centroid at `d = k r`: `I_c = I_apex − m d² = m r² (½ − k²)`,
    /// written as a product so that no two large terms cancel. Since
    /// `k ≤ 2/3`, `½ − k² > 0`.
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let mass = density * self.area();
        let k = self.centroid_offset_ratio();
        MassProperties {
            mass,
            center: self.centroid(),
            inertia: mass * self.radius * self.radius * (0.5 - k * k),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};

    use super::*;

    #[test]
    fn half_disc_by_hand() {
        // Sweep π: area ½πr², centroid 4r/(3π) along +y for start 0.
        let s = Sector::new(Vec2::new(1.0, 1.0), 3.0, 0.0, PI).unwrap();
        assert!((s.area() - 4.5 * PI).abs() < 1e-5);
        let m = s.mass_properties(2.0);
        assert!((m.mass - 9.0 * PI).abs() < 1e-4);
        let d = 4.0 * 3.0 / (3.0 * PI);
        assert!(m.center.abs_diff_eq(Vec2::new(1.0, 1.0 + d), 1e-5), "{m:?}");
        let expected = m.mass * (0.5 * 9.0 - d * d);
        assert!((m.inertia - expected).abs() < 1e-3, "{m:?}");
    }

    #[test]
    fn quarter_disc_centroid() {
        // Quarter disc in the first quadrant: centroid at (4r/(3π), 4r/(3π)).
        let s = Sector::new(Vec2::ZERO, 1.0, 0.0, FRAC_PI_2).unwrap();
        let c = 4.0 / (3.0 * PI);
        assert!(s.centroid().abs_diff_eq(Vec2::new(c, c), 1e-6));
    }

    #[test]
    fn full_disc_matches_a_circle() {
        let s = Sector::new(Vec2::new(2.0, -1.0), 2.0, 1.2, TAU).unwrap();
        let m = s.mass_properties(1.5);
        assert_eq!(m.center, Vec2::new(2.0, -1.0));
        assert!((m.mass - 1.5 * PI * 4.0).abs() < 1e-4);
        assert!((m.inertia - 0.5 * m.mass * 4.0).abs() < 1e-4);
    }

    #[test]
    fn wide_sector_centroid_points_along_its_bisector() {
        // 0° sweeping 270°: bisector at 135°.
        let s = Sector::new(Vec2::ZERO, 1.0, 0.0, 1.5 * PI).unwrap();
        let k = 4.0 * (0.75 * PI).sin() / (3.0 * 1.5 * PI);
        let expected = k * Vec2::from_angle(0.75 * PI);
        assert!(s.centroid().abs_diff_eq(expected, 1e-6));
        assert!(s.mass_properties(1.0).inertia > 0.0);
    }

    #[test]
    fn thin_sliver_stays_finite_and_positive() {
        let s = Sector::new(Vec2::ZERO, 1.0, 0.3, 1e-6).unwrap();
        let m = s.mass_properties(1.0);
        assert!(m.mass > 0.0 && m.inertia > 0.0);
        assert!(((m.center.length()) - 2.0 / 3.0).abs() < 1e-4);
    }
}
