//! A moving point against a rounded segment: the swept form of the
//! segment–circle offset.
//!
//! A circle of radius `r` moving without turning first touches a segment
//! (or stadium of radius `s`) when its centre reaches distance `r + s` from
//! the core, that is, when the centre's path enters the stadium of radius
//! `r + s` around the core. That stadium is the union of a rectangle along
//! the core and two discs at its ends, so the entry is the earliest of: the
//! path crossing the side line facing it within the core's span, and the
//! path entering either end disc.

use glam::Vec2;

use crate::vector::unit_and_length;

/// The first fraction `f` in [0, 1] at which `origin + f · translation` is
/// `radius` from segment `ab`, for an origin further away than that; `None`
/// when the path stays clear.
pub(crate) fn ray_cast_capsule(
    origin: Vec2,
    translation: Vec2,
    a: Vec2,
    b: Vec2,
    radius: f32,
) -> Option<f32> {
    let side = unit_and_length(b - a).and_then(|(along, length)| {
        let n = along.perp();
        // Height above the core's line on the origin's side, and its rate.
        let h0 = (origin - a).dot(n);
        let (height, rate) = if h0 >= 0.0 {
            (h0, translation.dot(n))
        } else {
            (-h0, -translation.dot(n))
        };
        if !(height > radius && rate < 0.0) {
            return None;
        }
        let f = (height - radius) / -rate;
        let along_core = (origin + f * translation - a).dot(along);
        (f <= 1.0 && (0.0..=length).contains(&along_core)).then_some(f)
    });
    [
        side,
        ray_cast_disc(origin, translation, a, radius),
        ray_cast_disc(origin, translation, b, radius),
    ]
    .into_iter()
    .flatten()
    .reduce(f32::min)
}

/// The first fraction in [0, 1] at which the path enters the disc of
/// `radius` around `center`, for an origin outside it.
///
/// Solves `|w + f v|² = radius²` with `w = origin − center`; the smaller
/// root `(−w·v − √disc) / v·v` is evaluated as `c / (−w·v + √disc)` with
/// `c = |w|² − radius²`, which does not cancel when the root is small.
fn ray_cast_disc(origin: Vec2, translation: Vec2, center: Vec2, radius: f32) -> Option<f32> {
    let w = origin - center;
    let approach = w.dot(translation);
    if approach >= 0.0 {
        return None;
    }
    let c = w.length_squared() - radius * radius;
    let disc = approach * approach - translation.length_squared() * c;
    if disc < 0.0 {
        return None;
    }
    let f = c / (-approach + disc.sqrt());
    (f <= 1.0).then_some(f.max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    #[test]
    fn straight_down_onto_the_side() {
        let f =
            ray_cast_capsule(v(1.0, 5.0), v(0.0, -10.0), v(0.0, 0.0), v(4.0, 0.0), 1.0).unwrap();
        assert!((f - 0.4).abs() < 1e-6);
    }

    #[test]
    fn onto_an_end_cap() {
        let f =
            ray_cast_capsule(v(-5.0, 0.0), v(10.0, 0.0), v(0.0, 0.0), v(4.0, 0.0), 1.0).unwrap();
        assert!((f - 0.4).abs() < 1e-6);
        // Grazing past the cap's top.
        assert!(
            ray_cast_capsule(v(-5.0, 1.01), v(10.0, 0.0), v(0.0, 0.0), v(4.0, 0.0), 1.0).is_none()
        );
    }

    #[test]
    fn too_short_or_moving_away() {
        assert!(
            ray_cast_capsule(v(1.0, 5.0), v(0.0, -3.0), v(0.0, 0.0), v(4.0, 0.0), 1.0).is_none()
        );
        assert!(
            ray_cast_capsule(v(1.0, 5.0), v(0.0, 3.0), v(0.0, 0.0), v(4.0, 0.0), 1.0).is_none()
        );
        assert!(ray_cast_capsule(v(1.0, 5.0), Vec2::ZERO, v(0.0, 0.0), v(4.0, 0.0), 1.0).is_none());
    }

    #[test]
    fn point_core_is_a_disc() {
        let f =
            ray_cast_capsule(v(3.0, 4.0), v(-6.0, -8.0), v(0.0, 0.0), v(0.0, 0.0), 1.0).unwrap();
        assert!((f - 0.4).abs() < 1e-6);
    }
}
