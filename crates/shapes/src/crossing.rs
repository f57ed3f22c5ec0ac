//! Where a ray crosses the two curves every carom boundary is made of: line
//! segments and circles. Shapes combine these into their own ray casts.

use glam::Vec2;

use crate::{Ray, RayHit};

/// The ray's unit direction and its length, or `None` for a ray with no
/// direction (zero translation) or no finite length.
///
/// `|d|²` overflows `f32` from `|d| ≈ 1.8e19`, a length a program may well
/// give a ray it means to be endless, and underflows below `1e-19`; such a
/// translation is measured in units of its larger component instead, `|d| =
/// m |d / m|`, where `|d / m|` lies in [1, √2].
pub(crate) fn ray_direction(ray: &Ray) -> Option<(Vec2, f32)> {
    let d = ray.translation;
    let length = d.length();
    if length > 0.0 && length.is_finite() {
        return Some((d / length, length));
    }
    let larger = d.abs().max_element();
    if !(larger > 0.0 && larger.is_finite()) {
        return None;
    }
    let scaled = d / larger;
    let scaled_length = scaled.length();
    let length = larger * scaled_length;
    length.is_finite().then(|| (scaled / scaled_length, length))
}

/// Whether a fraction lies on the ray, `0 ≤ t ≤ 1`. NaN is rejected.
#[inline]
pub(crate) fn on_ray(t: f32) -> bool {
    (0.0..=1.0).contains(&t)
}

/// The fraction at which the ray crosses segment `pq`, if it does.
///
/// Solve `o + t d = p + s e` with `e = q − p`. Crossing both sides with `e`
/// and with `d` gives `t = (p − o) × e / (d × e)` and
/// `s = (p − o) × d / (d × e)`. A ray parallel to the segment (`d × e = 0`),
/// including one running along it, does not cross it.
///
/// When `d × e` overflows `f32` (a ray meant to be endless, some 1e30 m
/// long), the crossing is found for `d / m` instead, `m` the larger
/// component of `d`: `s` is the same, and `t` is `m` times smaller.
pub(crate) fn segment_crossing(ray: &Ray, p: Vec2, q: Vec2) -> Option<f32> {
    let e = q - p;
    let (mut d, mut m) = (ray.translation, 1.0);
    let mut denom = d.perp_dot(e);
    if !denom.is_finite() {
        m = d.abs().max_element();
        d /= m;
        denom = d.perp_dot(e);
    }
    if denom == 0.0 {
        return None;
    }
    let to_p = p - ray.origin;
    let t = to_p.perp_dot(e) / denom / m;
    let s = to_p.perp_dot(d) / denom;
    (on_ray(t) && on_ray(s)).then_some(t)
}

/// The fractions `t₁ ≤ t₂` at which the ray's line meets the circle, unfiltered.
///
/// With unit direction `u` and `f = o − c`, the closest approach to the
/// centre is at distance `a = −f·u` along the line, at offset `h = f + a u`
/// from the centre. The line meets the circle when `|h| ≤ r`, at `a ∓ w` with
/// half chord `w = √(r² − |h|²)`. Working with `h` rather than the textbook
/// discriminant `(f·u)² − (|f|² − r²)` avoids cancelling two large squares
/// when the ray starts far from a small circle.
pub(crate) fn circle_crossings(ray: &Ray, center: Vec2, radius: f32) -> Option<(f32, f32)> {
    let (u, length) = ray_direction(ray)?;
    let f = ray.origin - center;
    let along = -f.dot(u);
    let h = f + along * u;
    let half_chord_sq = radius * radius - h.length_squared();
    // `≥ 0` is false for NaN too, which only overflowing coordinates make.
    if half_chord_sq >= 0.0 {
        let half_chord = half_chord_sq.sqrt();
        Some(((along - half_chord) / length, (along + half_chord) / length))
    } else {
        None
    }
}

/// The fraction at which a ray starting outside the disc enters it.
pub(crate) fn disc_entry(ray: &Ray, center: Vec2, radius: f32) -> Option<f32> {
    let (t, _) = circle_crossings(ray, center, radius)?;
    on_ray(t).then_some(t)
}

/// The hit at fraction `t` on a circle around `center`, its normal pointing
/// away from the centre.
pub(crate) fn circle_hit(ray: &Ray, t: f32, center: Vec2) -> RayHit {
    let point = ray.point_at(t);
    // A radius below the rounding step of the coordinates can put the hit on
    // the centre itself; facing the ray is then the only sensible normal.
    let facing_ray = -ray.translation.normalize_or(Vec2::X);
    RayHit {
        point,
        normal: (point - center).normalize_or(facing_ray),
        fraction: t,
    }
}

/// The hit at fraction `t` on a straight edge with the given outward normal.
pub(crate) fn edge_hit(ray: &Ray, t: f32, normal: Vec2) -> RayHit {
    RayHit {
        point: ray.point_at(t),
        normal,
        fraction: t,
    }
}

/// The candidate hit with the smallest fraction.
///
/// A ray through a corner (a sector's apex or arc end) meets two pieces of
/// the boundary at the same fraction; the tie goes to the normal that faces
/// the ray most directly, the smaller `normal · translation`.
pub(crate) fn earliest(
    ray: &Ray,
    hits: impl IntoIterator<Item = Option<RayHit>>,
) -> Option<RayHit> {
    let facing = |hit: &RayHit| hit.normal.dot(ray.translation);
    hits.into_iter().flatten().min_by(|x, y| {
        x.fraction
            .total_cmp(&y.fraction)
            .then(facing(x).total_cmp(&facing(y)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ray(origin: (f32, f32), translation: (f32, f32)) -> Ray {
        Ray {
            origin: Vec2::new(origin.0, origin.1),
            translation: Vec2::new(translation.0, translation.1),
        }
    }

    #[test]
    fn segment_crossing_hits_the_middle() {
        let r = ray((0.0, -1.0), (0.0, 4.0));
        let t = segment_crossing(&r, Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0));
        assert_eq!(t, Some(0.5));
    }

    #[test]
    fn segment_crossing_misses_past_the_end_and_beyond_the_ray() {
        let past_end = ray((2.0, -1.0), (0.0, 4.0));
        let too_short = ray((0.0, -1.0), (0.0, 1.5));
        let (p, q) = (Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0));
        assert_eq!(segment_crossing(&past_end, p, q), None);
        assert_eq!(segment_crossing(&too_short, p, q), None);
    }

    #[test]
    fn parallel_and_collinear_rays_do_not_cross() {
        let (p, q) = (Vec2::new(-1.0, 1.0), Vec2::new(1.0, 1.0));
        assert_eq!(segment_crossing(&ray((-5.0, 0.0), (10.0, 0.0)), p, q), None);
        assert_eq!(segment_crossing(&ray((-5.0, 1.0), (10.0, 0.0)), p, q), None);
    }

    #[test]
    fn circle_crossings_straight_through_the_centre() {
        let r = ray((-4.0, 0.0), (8.0, 0.0));
        assert_eq!(circle_crossings(&r, Vec2::ZERO, 2.0), Some((0.25, 0.75)));
    }

    #[test]
    fn circle_crossings_miss_and_zero_length() {
        assert_eq!(
            circle_crossings(&ray((-4.0, 3.0), (8.0, 0.0)), Vec2::ZERO, 2.0),
            None
        );
        assert_eq!(
            circle_crossings(&ray((0.0, 0.0), (0.0, 0.0)), Vec2::ZERO, 2.0),
            None
        );
        // A ray 1e-30 m long still has a direction: its line crosses the
        // circle 2 m either side, ±2e30 of its lengths, though the ray
        // itself enters nothing.
        let tiny = ray((0.0, 0.0), (1e-30, 0.0));
        let (t1, t2) = circle_crossings(&tiny, Vec2::ZERO, 2.0).unwrap();
        assert!((t1 / -2e30 - 1.0).abs() < 1e-6 && (t2 / 2e30 - 1.0).abs() < 1e-6);
        assert_eq!(disc_entry(&tiny, Vec2::ZERO, 2.0), None);
    }

    #[test]
    fn far_small_circle_keeps_its_hit() {
        // |f|² = 1e6 would swallow r² = 1e-4 in the textbook discriminant.
        let r = ray((-1000.0, 0.0), (2000.0, 0.0));
        let (t1, t2) = circle_crossings(&r, Vec2::ZERO, 0.01).unwrap();
        assert!((t1 - (1000.0 - 0.01) / 2000.0).abs() < 1e-6);
        assert!((t2 - (1000.0 + 0.01) / 2000.0).abs() < 1e-6);
    }

    #[test]
    fn circle_hit_normal_points_away_from_the_centre() {
        let hit = circle_hit(&ray((-4.0, 0.0), (8.0, 0.0)), 0.25, Vec2::ZERO);
        assert_eq!(hit.point, Vec2::new(-2.0, 0.0));
        assert_eq!(hit.normal, Vec2::new(-1.0, 0.0));
    }

    #[test]
    fn circle_hit_on_the_centre_faces_the_ray() {
        let hit = circle_hit(&ray((0.0, -1.0), (0.0, 2.0)), 0.5, Vec2::ZERO);
        assert_eq!(hit.normal, Vec2::new(0.0, -1.0));
    }

    #[test]
    fn earliest_picks_the_smallest_fraction() {
        let r = ray((0.0, 0.0), (1.0, 0.0));
        let hits = [
            Some(edge_hit(&r, 0.7, Vec2::Y)),
            None,
            Some(edge_hit(&r, 0.2, Vec2::X)),
        ];
        assert_eq!(earliest(&r, hits).map(|h| h.fraction), Some(0.2));
        assert_eq!(earliest(&r, [None, None]), None);
    }

    #[test]
    fn earliest_breaks_ties_towards_the_normal_facing_the_ray() {
        let r = ray((0.0, 0.0), (1.0, 0.0));
        let hits = [
            Some(edge_hit(&r, 0.5, Vec2::Y)),
            Some(edge_hit(&r, 0.5, -Vec2::X)),
        ];
        assert_eq!(earliest(&r, hits).map(|h| h.normal), Some(-Vec2::X));
    }

    #[test]
    fn rays_whose_squared_length_leaves_f32_still_hit() {
        // 1e30 and 1e-30 m long: |d|² overflows or underflows.
        for scale in [1e30, 1e-30] {
            let (u, length) = ray_direction(&ray((0.0, 0.0), (3.0 * scale, -4.0 * scale))).unwrap();
            assert!((u - Vec2::new(0.6, -0.8)).length() < 1e-6, "{u}");
            assert!((length / (5.0 * scale) - 1.0).abs() < 1e-6, "{length}");
        }
        // A disc 10 m ahead of a ray 1e30 m long is entered at 9e-30.
        let t = disc_entry(&ray((-10.0, 0.0), (1e30, 0.0)), Vec2::ZERO, 1.0).unwrap();
        assert!((t / 9e-30 - 1.0).abs() < 1e-6, "{t}");
        // A wall 10 m long 5 m ahead of a ray 3e38 m long: d × e overflows.
        let t = segment_crossing(
            &ray((0.0, 5.0), (0.0, -3e38)),
            Vec2::new(-5.0, 0.0),
            Vec2::new(5.0, 0.0),
        );
        assert!((t.unwrap() / (5.0 / 3e38) - 1.0).abs() < 1e-6, "{t:?}");
        // No direction, or no finite length.
        assert_eq!(ray_direction(&ray((0.0, 0.0), (0.0, 0.0))), None);
        assert_eq!(ray_direction(&ray((0.0, 0.0), (3e38, 3e38))), None);
    }

    #[test]
    fn disc_entry_needs_the_entry_on_the_ray() {
        assert_eq!(
            disc_entry(&ray((-4.0, 0.0), (8.0, 0.0)), Vec2::ZERO, 2.0),
            Some(0.25)
        );
        assert_eq!(
            disc_entry(&ray((-4.0, 0.0), (1.0, 0.0)), Vec2::ZERO, 2.0),
            None
        );
        assert_eq!(
            disc_entry(&ray((4.0, 0.0), (8.0, 0.0)), Vec2::ZERO, 2.0),
            None
        );
    }
}
