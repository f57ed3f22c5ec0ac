//! Which directions from the apex a sector's sweep covers.
//!
//! This is where angle wrap-around bugs usually live. The test below compares
//! no angles at all, only signs of cross and dot products with the two edge
//! directions, so a sector from 350° sweeping 20° is no different from one
//! from 0° sweeping 20°.

use std::f32::consts::{FRAC_PI_2, PI, TAU};

use glam::Vec2;

/// Whether direction `d` (of any length) lies in the counter-clockwise sweep
/// from `start_dir` to `end_dir`, edges included. The zero vector, the apex,
/// counts as covered.
///
/// With `×` the 2D cross product:
/// - `start_dir × d ≥ 0` says `d` is counter-clockwise of the first edge
///   (within half a turn), `d × end_dir ≥ 0` that it is clockwise of the
///   second;
/// - a sweep ≤ π is the intersection of those two half-planes. When the
///   sweep is so thin that both edges round to the same vector, the
///   direction opposite them has both cross products zero and would pass;
///   so a sweep ≤ π/2 also asks `d · (start_dir + end_dir) ≥ 0`, which
///   every direction of the sweep meets with room to spare (it is within
///   π/4 of the bisector). Wider sweeps have edges far enough apart not to
///   need it;
/// - a sweep > π is the union of the half-planes: what it misses is the
///   wedge from `end_dir` on to `start_dir`, narrower than π, which is the
///   intersection of the opposite strict half-planes;
/// - a full turn covers everything.
pub(super) fn covers(start_dir: Vec2, end_dir: Vec2, sweep: f32, d: Vec2) -> bool {
    if sweep >= TAU {
        return true;
    }
    let after_start = start_dir.perp_dot(d) >= 0.0;
    let before_end = d.perp_dot(end_dir) >= 0.0;
    if sweep <= PI {
        let toward_bisector = sweep > FRAC_PI_2 || d.dot(start_dir + end_dir) >= 0.0;
        after_start && before_end && toward_bisector
    } else {
        after_start || before_end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covers_angle(start: f32, sweep: f32, angle: f32) -> bool {
        let start_dir = Vec2::from_angle(start);
        let end_dir = Vec2::from_angle(start + sweep);
        covers(start_dir, end_dir, sweep, 3.0 * Vec2::from_angle(angle))
    }

    fn deg(d: f32) -> f32 {
        d.to_radians()
    }

    #[test]
    fn quarter_turn() {
        assert!(covers_angle(0.0, deg(90.0), deg(45.0)));
        assert!(covers_angle(0.0, deg(90.0), deg(1.0)));
        assert!(!covers_angle(0.0, deg(90.0), deg(100.0)));
        assert!(!covers_angle(0.0, deg(90.0), deg(-10.0)));
        assert!(!covers_angle(0.0, deg(90.0), deg(225.0)));
    }

    #[test]
    fn wraps_past_a_full_turn() {
        // From 350° sweeping 20°: covers 355°, 0° and 5°, not 15° or 340°.
        for inside in [355.0, 0.0, 5.0, 365.0, -5.0] {
            assert!(covers_angle(deg(350.0), deg(20.0), deg(inside)), "{inside}");
        }
        for outside in [15.0, 340.0, 170.0, 180.0] {
            assert!(
                !covers_angle(deg(350.0), deg(20.0), deg(outside)),
                "{outside}"
            );
        }
    }

    #[test]
    fn negative_start_is_the_same_sector() {
        assert!(covers_angle(deg(-10.0), deg(20.0), deg(5.0)));
        assert!(!covers_angle(deg(-10.0), deg(20.0), deg(15.0)));
    }

    #[test]
    fn half_turn_is_a_half_plane() {
        assert!(covers_angle(0.0, PI, deg(90.0)));
        assert!(covers_angle(0.0, PI, deg(179.0)));
        assert!(!covers_angle(0.0, PI, deg(-90.0)));
        assert!(!covers_angle(0.0, PI, deg(-1.0)));
    }

    #[test]
    fn sweep_above_half_a_turn_is_a_pie_with_a_bite() {
        // 0° sweeping 270°: only the fourth quadrant is missing.
        for inside in [45.0, 135.0, 180.0, 225.0, 265.0] {
            assert!(covers_angle(0.0, deg(270.0), deg(inside)), "{inside}");
        }
        for outside in [275.0, 315.0, 355.0] {
            assert!(!covers_angle(0.0, deg(270.0), deg(outside)), "{outside}");
        }
    }

    #[test]
    fn sweep_above_half_a_turn_across_zero() {
        // 300° sweeping 240° ends at 180°: the bite is (180°, 300°).
        for inside in [310.0, 0.0, 90.0, 170.0] {
            assert!(
                covers_angle(deg(300.0), deg(240.0), deg(inside)),
                "{inside}"
            );
        }
        for outside in [200.0, 250.0, 290.0] {
            assert!(
                !covers_angle(deg(300.0), deg(240.0), deg(outside)),
                "{outside}"
            );
        }
    }

    #[test]
    fn quarter_turn_keeps_both_edges() {
        assert!(covers(Vec2::X, Vec2::Y, FRAC_PI_2, Vec2::new(0.0, 1.0)));
        assert!(covers(Vec2::X, Vec2::Y, FRAC_PI_2, Vec2::new(1.0, 0.0)));
        assert!(!covers(Vec2::X, Vec2::Y, FRAC_PI_2, Vec2::new(-1.0, 1e-3)));
    }

    #[test]
    fn full_turn_covers_everything() {
        for angle in [0.0, 90.0, 180.0, 270.0, 359.9] {
            assert!(covers_angle(deg(30.0), TAU, deg(angle)));
        }
    }

    #[test]
    fn apex_is_covered() {
        let (a, b) = (Vec2::X, Vec2::Y);
        assert!(covers(a, b, deg(90.0), Vec2::ZERO));
        assert!(covers(a, -b, deg(270.0), Vec2::ZERO));
    }

    #[test]
    fn thin_sweep_whose_edges_coincide_excludes_the_opposite_direction() {
        let start_dir = Vec2::X;
        assert!(covers(start_dir, start_dir, 1e-9, Vec2::X));
        assert!(!covers(start_dir, start_dir, 1e-9, -Vec2::X));
        assert!(!covers(start_dir, start_dir, 1e-9, Vec2::Y));
    }
}
