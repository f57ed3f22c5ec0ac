//! Vector helpers that never divide by zero.

use glam::Vec2;

/// The unit vector along `v` and the length of `v`, or `None` when `v` is zero.
///
/// Dividing by the largest component before measuring keeps the squared
/// length away from underflow, so even a vector of length 1e-30 yields an
/// exact unit direction rather than NaN or a vector that is not unit length.
///
/// Scaling costs two divisions, so it is kept for vectors whose squared
/// length leaves `[1e-30, 1e30]`. Inside that range both squares are normal
/// or too small to matter beside the other, and the plain formula is as
/// exact.
#[inline]
pub(crate) fn unit_and_length(v: Vec2) -> Option<(Vec2, f32)> {
    let length_sq = v.length_squared();
    if (1e-30..=1e30).contains(&length_sq) {
        let length = length_sq.sqrt();
        return Some((v / length, length));
    }
    let scale = v.x.abs().max(v.y.abs());
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    let scaled = v / scale;
    let length = scaled.length();
    Some((scaled / length, length * scale))
}

/// The unit left normal `perp(b − a) / |b − a|` of the direction `a → b`, or
/// `fallback` when the two points coincide.
#[inline]
pub(crate) fn left_normal_or(a: Vec2, b: Vec2, fallback: Vec2) -> Vec2 {
    unit_and_length(b - a).map_or(fallback, |(dir, _)| dir.perp())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn zero_has_no_direction() {
        assert_eq!(unit_and_length(Vec2::ZERO), None);
    }

    #[test]
    fn tiny_vectors_normalise_exactly() {
        let (dir, len) = unit_and_length(Vec2::new(3e-30, 4e-30)).unwrap();
        assert!((dir - Vec2::new(0.6, 0.8)).length() < 1e-6);
        assert!((len - 5e-30).abs() < 1e-36);
    }

    #[test]
    fn left_normal_turns_counter_clockwise() {
        let n = left_normal_or(Vec2::ZERO, Vec2::new(2.0, 0.0), Vec2::X);
        assert_eq!(n, Vec2::Y);
        assert_eq!(left_normal_or(Vec2::ONE, Vec2::ONE, Vec2::X), Vec2::X);
    }

    proptest! {
        /// Across 76 orders of magnitude, on both sides of the fast path's
        /// range, the direction is unit and direction × length gives `v`.
        #[test]
        fn direction_times_length_is_the_vector(
            x in -1.0f32..1.0,
            y in -1.0f32..1.0,
            exponent in -38i32..38,
        ) {
            prop_assume!(x != 0.0 || y != 0.0);
            let v = Vec2::new(x, y) * 10f32.powi(exponent);
            prop_assume!(v != Vec2::ZERO && v.is_finite());
            let (dir, length) = unit_and_length(v).unwrap();
            prop_assert!((dir.length() - 1.0).abs() < 1e-6);
            let scale = v.x.abs().max(v.y.abs());
            prop_assert!(((dir * length - v) / scale).length() < 1e-6);
        }
    }
}
