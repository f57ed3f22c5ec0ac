//! Strategies, boundary sampling and independent reference answers for the
//! property tests. The references are written differently from the crate
//! (angles in f64 instead of cross products, dense sampling instead of
//! projection) so that agreeing with them means something.

use std::f32::consts::{PI, TAU};
use std::f64::consts::TAU as TAU64;

use carom_shapes::{Circle, Ray, Sector, Segment, Shape, Stadium, Transform, Vec2};
use proptest::prelude::*;

/// Spacing of boundary samples, in metres.
pub const SPACING: f32 = 0.004;

pub fn vec2(range: f32) -> impl Strategy<Value = Vec2> {
    (-range..range, -range..range).prop_map(|(x, y)| Vec2::new(x, y))
}

pub fn radius() -> impl Strategy<Value = f32> {
    0.2f32..3.0
}

pub fn circle() -> impl Strategy<Value = Shape> {
    (vec2(5.0), radius()).prop_map(|(c, r)| Circle::new(c, r).unwrap().into())
}

fn core() -> impl Strategy<Value = (Vec2, Vec2)> {
    (vec2(5.0), vec2(5.0)).prop_filter("core too short", |(a, b)| a.distance(*b) > 0.1)
}

pub fn segment() -> impl Strategy<Value = Shape> {
    core().prop_map(|(a, b)| Segment::new(a, b).unwrap().into())
}

pub fn stadium() -> impl Strategy<Value = Shape> {
    (core(), radius()).prop_map(|((a, b), r)| Stadium::new(a, b, r).unwrap().into())
}

/// Sectors with sweeps from `min_sweep` to a full turn, with extra weight on
/// the exact half and full turns.
pub fn sector(min_sweep: f32) -> impl Strategy<Value = Shape> {
    let sweep = prop_oneof![
        6 => min_sweep..TAU,
        1 => Just(PI),
        1 => Just(TAU),
    ];
    (vec2(5.0), radius(), -10.0f32..10.0, sweep)
        .prop_map(|(c, r, start, sweep)| Sector::new(c, r, start, sweep).unwrap().into())
}

pub fn solid_shape(min_sector_sweep: f32) -> impl Strategy<Value = Shape> {
    prop_oneof![circle(), stadium(), sector(min_sector_sweep)]
}

pub fn any_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![circle(), segment(), stadium(), sector(0.02)]
}

pub fn transform() -> impl Strategy<Value = Transform> {
    (vec2(10.0), -PI..PI).prop_map(|(t, angle)| Transform::new(t, angle))
}

/// A point in the shape's box grown by 1.5 on each side, chosen by the
/// unit-square coordinates `(u, v)`, so that many points land inside.
pub fn point_near(shape: &Shape, (u, v): (f32, f32)) -> Vec2 {
    let aabb = shape.aabb().expanded(1.5);
    aabb.min + Vec2::new(u, v) * (aabb.max - aabb.min)
}

fn lerp_samples(a: Vec2, b: Vec2) -> Vec<Vec2> {
    let n = (a.distance(b) / SPACING).ceil() as usize + 1;
    (0..=n).map(|i| a.lerp(b, i as f32 / n as f32)).collect()
}

fn arc_samples(center: Vec2, radius: f32, start: f64, sweep: f64) -> Vec<Vec2> {
    let n = (radius as f64 * sweep / SPACING as f64).ceil() as usize + 1;
    (0..=n)
        .map(|i| {
            let angle = start + sweep * i as f64 / n as f64;
            let dir = Vec2::new(angle.cos() as f32, angle.sin() as f32);
            center + radius * dir
        })
        .collect()
}

/// Dense samples of the shape's boundary, built from the shape's defining
/// numbers only.
pub fn boundary(shape: &Shape) -> Vec<Vec2> {
    match shape {
        Shape::Circle(c) => arc_samples(c.center(), c.radius(), 0.0, TAU64),
        Shape::Segment(s) => lerp_samples(s.a(), s.b()),
        Shape::Stadium(s) => {
            let (a, b, r) = (s.a(), s.b(), s.radius());
            let axis = (b - a).as_dvec2();
            let axis_angle = axis.y.atan2(axis.x);
            let side = (b - a).normalize().perp() * r;
            let half = TAU64 / 2.0;
            let mut points = lerp_samples(a + side, b + side);
            points.extend(lerp_samples(a - side, b - side));
            points.extend(arc_samples(b, r, axis_angle - half / 2.0, half));
            points.extend(arc_samples(a, r, axis_angle + half / 2.0, half));
            points
        }
        Shape::Sector(s) => {
            let (c, r) = (s.center(), s.radius());
            let (start, sweep) = (s.start() as f64, s.sweep() as f64);
            let mut points = arc_samples(c, r, start, sweep);
            if s.sweep() < TAU {
                for angle in [start, start + sweep] {
                    let tip = c + r * Vec2::new(angle.cos() as f32, angle.sin() as f32);
                    points.extend(lerp_samples(c, tip));
                }
            }
            points
        }
    }
}

/// The distance from `p` to the nearest sample.
pub fn nearest_sample_distance(samples: &[Vec2], p: Vec2) -> f32 {
    samples
        .iter()
        .map(|q| q.distance_squared(p))
        .fold(f32::INFINITY, f32::min)
        .sqrt()
}

/// Whether `p` lies in the shape, worked out in f64 with angles.
pub fn reference_contains(shape: &Shape, p: Vec2) -> bool {
    let p = p.as_dvec2();
    match shape {
        Shape::Circle(c) => p.distance(c.center().as_dvec2()) <= c.radius() as f64,
        Shape::Segment(_) => false,
        Shape::Stadium(s) => {
            let (a, b) = (s.a().as_dvec2(), s.b().as_dvec2());
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + t * (b - a)) <= s.radius() as f64
        }
        Shape::Sector(s) => {
            let d = p - s.center().as_dvec2();
            if d.length() > s.radius() as f64 {
                return false;
            }
            if s.sweep() >= TAU || d == glam::DVec2::ZERO {
                return true;
            }
            let relative = (d.y.atan2(d.x) - s.start() as f64).rem_euclid(TAU64);
            relative <= s.sweep() as f64
        }
    }
}

/// Where a ray crosses a segment, in f64, when it clearly does: both ends of
/// the ray strictly on opposite sides of the segment's line and the crossing
/// strictly inside the segment.
pub fn reference_segment_crossing(segment: &Segment, ray: &Ray) -> Option<f64> {
    let (a, b) = (segment.a().as_dvec2(), segment.b().as_dvec2());
    let (o, d) = (ray.origin.as_dvec2(), ray.translation.as_dvec2());
    let e = b - a;
    let side_start = e.perp_dot(o - a) / e.length();
    let side_end = e.perp_dot(o + d - a) / e.length();
    let margin = 1e-3;
    let clearly_crosses =
        (side_start > margin && side_end < -margin) || (side_start < -margin && side_end > margin);
    if !clearly_crosses {
        return None;
    }
    let t = side_start / (side_start - side_end);
    let along = (o + t * d - a).dot(e) / e.length_squared();
    let edge_margin = margin / e.length();
    (along > edge_margin && along < 1.0 - edge_margin).then_some(t)
}
