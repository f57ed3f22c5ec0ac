//! Bounding boxes and placement of a sector.

use glam::Vec2;

use super::{wedge, Sector};
use crate::{Aabb, Transform};

/// The tight box of a sector given by its apex, radius and edge directions.
///
/// Along any axis a sector reaches furthest at its apex, at an arc end, or at
/// the arc point facing straight along that axis, which exists only when that
/// direction lies within the sweep. The box of those points is therefore
/// tight.
fn sector_box(center: Vec2, radius: f32, start_dir: Vec2, end_dir: Vec2, sweep: f32) -> Aabb {
    let ends = Aabb::new(center, center)
        .including(center + radius * start_dir)
        .including(center + radius * end_dir);
    [Vec2::X, Vec2::Y, -Vec2::X, -Vec2::Y]
        .into_iter()
        .filter(|&axis| wedge::covers(start_dir, end_dir, sweep, axis))
        .fold(ends, |aabb, axis| aabb.including(center + radius * axis))
}

impl Sector {
    /// The tight bounding box in the sector's frame.
    pub fn aabb(&self) -> Aabb {
        sector_box(
            self.center,
            self.radius,
            self.start_dir,
            self.end_dir,
            self.sweep,
        )
    }

    /// The tight bounding box of the sector placed by `xf`.
    ///
    /// The edge directions are rotated as vectors, so this needs no trig: the
    /// world axes are tested against the rotated sweep.
    pub fn aabb_at(&self, xf: &Transform) -> Aabb {
        sector_box(
            xf.apply(self.center),
            self.radius,
            xf.rotation.rotate(self.start_dir),
            xf.rotation.rotate(self.end_dir),
            self.sweep,
        )
    }

    /// The same sector placed by `xf`: the apex is mapped, and the start
    /// angle advances by the rotation's angle, `xf.rotation.angle()`, with
    /// both edge directions recomputed from it exactly as [`Sector::new`]
    /// would.
    pub fn transformed(&self, xf: &Transform) -> Sector {
        Sector::from_valid(
            xf.apply(self.center),
            self.radius,
            self.start + xf.rotation.angle(),
            self.sweep,
        )
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};

    use super::*;

    fn sector(start_deg: f32, sweep_deg: f32) -> Sector {
        Sector::new(
            Vec2::new(1.0, 2.0),
            2.0,
            start_deg.to_radians(),
            sweep_deg.to_radians(),
        )
        .unwrap()
    }

    fn assert_box(actual: Aabb, min: (f32, f32), max: (f32, f32)) {
        let (min, max) = (Vec2::new(min.0, min.1), Vec2::new(max.0, max.1));
        assert!(
            actual.min.abs_diff_eq(min, 1e-5) && actual.max.abs_diff_eq(max, 1e-5),
            "{actual:?} != {min:?}..{max:?}"
        );
    }

    #[test]
    fn first_quadrant() {
        assert_box(sector(0.0, 90.0).aabb(), (1.0, 2.0), (3.0, 4.0));
    }

    #[test]
    fn thin_slice_touches_no_axis_extreme() {
        // 30°..60°: the box spans apex to (2 cos 30°, 2 sin 60°) from it.
        let s = sector(30.0, 30.0);
        let w = 2.0 * 30f32.to_radians().cos();
        assert_box(s.aabb(), (1.0, 2.0), (1.0 + w, 2.0 + w));
    }

    #[test]
    fn slice_across_zero_reaches_plus_x() {
        // 350° sweeping 20° contains direction +x.
        let s = sector(350.0, 20.0);
        let h = 2.0 * 10f32.to_radians().sin();
        assert_box(s.aabb(), (1.0, 2.0 - h), (3.0, 2.0 + h));
    }

    #[test]
    fn sweep_above_half_a_turn() {
        // 0° sweeping 270°: reaches +x, +y, −x and −y.
        assert_box(sector(0.0, 270.0).aabb(), (-1.0, 0.0), (3.0, 4.0));
        // 45° sweeping 225° (to 270°): +y, −x, −y but not +x.
        let s = sector(45.0, 225.0);
        let x_end = 1.0 + 2.0 * 45f32.to_radians().cos();
        assert_box(s.aabb(), (-1.0, 0.0), (x_end, 4.0));
    }

    #[test]
    fn full_disc_is_the_circle_box() {
        let s = Sector::new(Vec2::new(1.0, 2.0), 2.0, 0.7, TAU).unwrap();
        assert_box(s.aabb(), (-1.0, 0.0), (3.0, 4.0));
    }

    #[test]
    fn placed_box_uses_the_rotated_sweep() {
        // First quadrant turned by 90° is the second quadrant, then moved.
        let xf = Transform::new(Vec2::new(10.0, 0.0), FRAC_PI_2);
        let placed = sector(0.0, 90.0).aabb_at(&xf);
        // Apex (1, 2) → (−2, 1) → (8, 1).
        assert_box(placed, (6.0, 1.0), (8.0, 3.0));
        assert_box(
            sector(0.0, 90.0).transformed(&xf).aabb(),
            (6.0, 1.0),
            (8.0, 3.0),
        );
    }

    #[test]
    fn transformed_advances_the_start_angle() {
        let xf = Transform::new(Vec2::ZERO, PI / 3.0);
        let turned = sector(10.0, 50.0).transformed(&xf);
        assert!((turned.start() - 70f32.to_radians()).abs() < 1e-5);
        assert_eq!(turned.sweep(), 50f32.to_radians());
        let expected = xf.rotation.rotate(sector(10.0, 50.0).end_dir());
        assert!(turned.end_dir().abs_diff_eq(expected, 1e-6));
        assert!(turned
            .center()
            .abs_diff_eq(xf.apply(Vec2::new(1.0, 2.0)), 1e-6));
    }
}
