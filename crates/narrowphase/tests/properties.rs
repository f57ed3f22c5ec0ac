//! Property tests of the contact routines against brute-force geometry.
//!
//! The reference geometry here shares no code with the crate: sectors are
//! described by angles (not edge directions), the signed separation of two
//! convex pieces is the maximum over densely sampled directions `d` of
//! `min B·d − max A·d` (refined by ternary search around the best samples),
//! and the distance of shapes that are apart is also measured by sampling
//! both boundaries densely against exact point-to-shape distances.
//!
//! What is compared with what:
//! * a circle against any shape: the signed distance of the centre to the
//!   other shape minus the radius (sectors wider than π included);
//! * other pairs: the smallest separation over the convex pieces (a sector
//!   wider than π is two halves), which for shapes that are apart is their
//!   distance, checked again by boundary sampling;
//! * segment against segment: no contact, and `shape_distance` is the plain
//!   distance.

use std::f32::consts::{FRAC_PI_4, PI, TAU};

use carom_narrowphase::shapes::{Circle, Sector, Segment, Shape, Stadium, Transform, Vec2};
use std::mem::MaybeUninit;

use carom_narrowphase::{
    collide, collide_placed, shape_distance, time_of_impact, ContactManifold, ManifoldBatch,
    PlacedShape, Sweep, ToiState,
};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// How closely the manifold's smallest separation must match the brute force.
const TOLERANCE: f32 = 1e-3;

// ---------------------------------------------------------------------------
// Reference geometry
// ---------------------------------------------------------------------------

/// A shape in world space, described independently of the crate.
#[derive(Debug, Clone, Copy)]
enum Posed {
    Disc {
        c: Vec2,
        r: f32,
    },
    /// Every point within `r` of segment `ab` (`r = 0` for a segment).
    Rounded {
        a: Vec2,
        b: Vec2,
        r: f32,
    },
    /// Points within `r` of `c` at angles `start ..= start + sweep`.
    Wedge {
        c: Vec2,
        r: f32,
        start: f32,
        sweep: f32,
    },
}

fn dir(angle: f32) -> Vec2 {
    Vec2::new(angle.cos(), angle.sin())
}

fn pose(shape: &Shape, xf: &Transform) -> Posed {
    match shape {
        Shape::Circle(s) => Posed::Disc {
            c: xf.apply(s.center()),
            r: s.radius(),
        },
        Shape::Segment(s) => Posed::Rounded {
            a: xf.apply(s.a()),
            b: xf.apply(s.b()),
            r: 0.0,
        },
        Shape::Stadium(s) => Posed::Rounded {
            a: xf.apply(s.a()),
            b: xf.apply(s.b()),
            r: s.radius(),
        },
        Shape::Sector(s) if s.sweep() >= TAU => Posed::Disc {
            c: xf.apply(s.center()),
            r: s.radius(),
        },
        Shape::Sector(s) => Posed::Wedge {
            c: xf.apply(s.center()),
            r: s.radius(),
            start: s.start() + xf.rotation.angle(),
            sweep: s.sweep(),
        },
    }
}

/// Whether `angle` lies within `start ..= start + sweep` (mod 2π).
fn angle_in(angle: f32, start: f32, sweep: f32) -> bool {
    let rel = (angle - start).rem_euclid(TAU);
    rel <= sweep + 1e-6 || rel >= TAU - 1e-6
}

fn distance_to_segment(p: Vec2, a: Vec2, b: Vec2) -> f32 {
    let e = b - a;
    let len_sq = e.length_squared();
    let t = if len_sq > 0.0 {
        ((p - a).dot(e) / len_sq).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p - (a + t * e)).length()
}

/// Signed distance from `p` to the shape: negative inside.
fn signed_distance(p: Vec2, shape: &Posed) -> f32 {
    match *shape {
        Posed::Disc { c, r } => (p - c).length() - r,
        Posed::Rounded { a, b, r } => distance_to_segment(p, a, b) - r,
        Posed::Wedge { c, r, start, sweep } => {
            let v = p - c;
            let len = v.length();
            let in_range = len == 0.0 || angle_in(v.y.atan2(v.x), start, sweep);
            let edges = distance_to_segment(p, c, c + r * dir(start)).min(distance_to_segment(
                p,
                c,
                c + r * dir(start + sweep),
            ));
            let arc = if in_range && len > 0.0 {
                (len - r).abs()
            } else {
                f32::INFINITY
            };
            let boundary = edges.min(arc);
            if in_range && len <= r {
                -boundary
            } else {
                boundary
            }
        }
    }
}

/// Points along the boundary, vertices included.
fn boundary_samples(shape: &Posed, n: usize) -> Vec<Vec2> {
    let along = |a: Vec2, b: Vec2, k: usize| (0..=k).map(move |i| a.lerp(b, i as f32 / k as f32));
    match *shape {
        Posed::Disc { c, r } => (0..n)
            .map(|i| c + r * dir(TAU * i as f32 / n as f32))
            .collect(),
        Posed::Rounded { a, b, r: 0.0 } => along(a, b, n).collect(),
        Posed::Rounded { a, b, r } => {
            let axis = (b - a).normalize();
            let normal = axis.perp();
            let base = axis.y.atan2(axis.x);
            let mut points: Vec<Vec2> = along(a + r * normal, b + r * normal, n / 4).collect();
            points.extend(along(a - r * normal, b - r * normal, n / 4));
            for i in 0..=n / 4 {
                let t = PI * i as f32 / (n / 4) as f32;
                points.push(b + r * dir(base - 0.5 * PI + t));
                points.push(a + r * dir(base + 0.5 * PI + t));
            }
            points
        }
        Posed::Wedge { c, r, start, sweep } => {
            let mut points: Vec<Vec2> = along(c, c + r * dir(start), n / 4).collect();
            points.extend(along(c, c + r * dir(start + sweep), n / 4));
            points.extend(
                (0..=n / 2).map(|i| c + r * dir(start + sweep * i as f32 / (n / 2) as f32)),
            );
            points
        }
    }
}

/// Distance between two shapes that do not overlap, from boundary samples.
fn sampled_distance(a: &Posed, b: &Posed) -> f32 {
    let one_way = |from: &Posed, to: &Posed| {
        boundary_samples(from, 2000)
            .into_iter()
            .map(|p| signed_distance(p, to).max(0.0))
            .fold(f32::INFINITY, f32::min)
    };
    one_way(a, b).min(one_way(b, a))
}

/// The convex pieces: a wedge wider than π is two halves.
fn pieces(shape: &Posed) -> Vec<Posed> {
    match *shape {
        Posed::Wedge { c, r, start, sweep } if sweep > PI => vec![
            Posed::Wedge {
                c,
                r,
                start,
                sweep: 0.5 * sweep,
            },
            Posed::Wedge {
                c,
                r,
                start: start + 0.5 * sweep,
                sweep: 0.5 * sweep,
            },
        ],
        other => vec![other],
    }
}

/// `max x·d` over a convex piece.
fn support(shape: &Posed, d: Vec2) -> f32 {
    match *shape {
        Posed::Disc { c, r } => c.dot(d) + r,
        Posed::Rounded { a, b, r } => a.dot(d).max(b.dot(d)) + r,
        Posed::Wedge { c, r, start, sweep } => {
            let corners = (c + r * dir(start))
                .dot(d)
                .max((c + r * dir(start + sweep)).dot(d));
            let arc = if angle_in(d.y.atan2(d.x), start, sweep) {
                c.dot(d) + r
            } else {
                f32::NEG_INFINITY
            };
            c.dot(d).max(corners).max(arc)
        }
    }
}

/// `min B·d − max A·d` for `d` at `angle`.
fn gap_along(a: &Posed, b: &Posed, angle: f32) -> f32 {
    let d = dir(angle);
    -support(b, -d) - support(a, d)
}

/// The signed separation of two convex pieces: the largest gap over all
/// directions, from 4096 samples refined by ternary search around the best
/// local maxima.
fn convex_separation(a: &Posed, b: &Posed) -> f32 {
    const N: usize = 4096;
    let step = TAU / N as f32;
    let values: Vec<f32> = (0..N).map(|i| gap_along(a, b, i as f32 * step)).collect();
    let mut peaks: Vec<usize> = (0..N)
        .filter(|&i| values[i] >= values[(i + N - 1) % N] && values[i] >= values[(i + 1) % N])
        .collect();
    peaks.sort_by(|&i, &j| values[j].total_cmp(&values[i]));
    peaks.truncate(8);
    peaks
        .into_iter()
        .map(|i| {
            let (mut lo, mut hi) = ((i as f32 - 1.5) * step, (i as f32 + 1.5) * step);
            for _ in 0..40 {
                let m1 = lo + (hi - lo) / 3.0;
                let m2 = hi - (hi - lo) / 3.0;
                if gap_along(a, b, m1) < gap_along(a, b, m2) {
                    lo = m1;
                } else {
                    hi = m2;
                }
            }
            gap_along(a, b, 0.5 * (lo + hi)).max(values[i])
        })
        .fold(f32::NEG_INFINITY, f32::max)
}

/// What the smallest separation of `collide(a, b)` must be; `None` for two
/// segments, which never collide.
fn expected_separation(a: &Posed, b: &Posed) -> Option<f32> {
    match (a, b) {
        (Posed::Rounded { r: ra, .. }, Posed::Rounded { r: rb, .. })
            if *ra == 0.0 && *rb == 0.0 =>
        {
            None
        }
        (Posed::Disc { c, r }, other) | (other, Posed::Disc { c, r }) => {
            Some(signed_distance(*c, other) - r)
        }
        _ => Some(
            pieces(a)
                .iter()
                .flat_map(|pa| {
                    pieces(b)
                        .into_iter()
                        .map(move |pb| convex_separation(pa, &pb))
                })
                .fold(f32::INFINITY, f32::min),
        ),
    }
}

fn is_wide_sector(shape: &Posed) -> bool {
    matches!(shape, Posed::Wedge { sweep, .. } if *sweep > PI)
}

// ---------------------------------------------------------------------------
// Strategies
// ---------------------------------------------------------------------------

fn point(extent: f32) -> impl Strategy<Value = Vec2> {
    (-extent..extent, -extent..extent).prop_map(|(x, y)| Vec2::new(x, y))
}

fn core() -> impl Strategy<Value = (Vec2, Vec2)> {
    (point(1.0), 0.05f32..2.5, -PI..PI).prop_map(|(a, len, angle)| (a, a + len * dir(angle)))
}

fn sweep_angle() -> impl Strategy<Value = f32> {
    prop_oneof![6 => 0.1f32..TAU, 1 => Just(PI), 1 => Just(TAU), 1 => Just(FRAC_PI_4)]
}

fn shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (point(0.5), 0.05f32..1.0).prop_map(|(c, r)| Circle::new(c, r).unwrap().into()),
        core().prop_map(|(a, b)| Segment::new(a, b).unwrap().into()),
        (core(), 0.05f32..0.6).prop_map(|((a, b), r)| Stadium::new(a, b, r).unwrap().into()),
        (point(0.5), 0.1f32..1.5, -PI..PI, sweep_angle())
            .prop_map(|(c, r, start, sweep)| Sector::new(c, r, start, sweep).unwrap().into()),
    ]
}

fn transform() -> impl Strategy<Value = Transform> {
    (point(2.0), -PI..PI).prop_map(|(t, angle)| Transform::new(t, angle))
}

/// Shapes and poses on a coarse lattice, so that centres coincide, centres
/// land exactly on segments, cores are exactly parallel, and so on.
fn lattice_shape() -> impl Strategy<Value = Shape> {
    let coord = || prop::sample::select(vec![-1.0f32, -0.5, 0.0, 0.5, 1.0]);
    let lattice_point = move || (coord(), coord()).prop_map(|(x, y)| Vec2::new(x, y));
    let radius = || prop::sample::select(vec![0.25f32, 0.5, 1.0]);
    let angle = || (-4i32..4).prop_map(|k| k as f32 * FRAC_PI_4);
    let sweep = prop::sample::select(vec![FRAC_PI_4, 0.5 * PI, PI, 1.5 * PI, TAU]);
    prop_oneof![
        (lattice_point(), radius()).prop_map(|(c, r)| Circle::new(c, r).unwrap().into()),
        (lattice_point(), lattice_point())
            .prop_filter("distinct ends", |(a, b)| a != b)
            .prop_map(|(a, b)| Segment::new(a, b).unwrap().into()),
        (lattice_point(), lattice_point(), radius())
            .prop_filter("distinct ends", |(a, b, _)| a != b)
            .prop_map(|(a, b, r)| Stadium::new(a, b, r).unwrap().into()),
        (lattice_point(), radius(), angle(), sweep).prop_map(|(c, r, start, sweep)| Sector::new(
            c, r, start, sweep
        )
        .unwrap()
        .into()),
    ]
}

fn lattice_transform() -> impl Strategy<Value = Transform> {
    let coord = prop::sample::select(vec![-1.0f32, -0.5, 0.0, 0.5, 1.0]);
    (coord.clone(), coord, -4i32..4)
        .prop_map(|(x, y, k)| Transform::new(Vec2::new(x, y), k as f32 * FRAC_PI_4))
}

/// A lattice pose nudged by up to 0.04 rad and 5 cm: straight features that
/// were parallel are now nearly so, which is where two-point manifolds live.
fn nudged_lattice_transform() -> impl Strategy<Value = Transform> {
    (lattice_transform(), point(0.05), -0.04f32..0.04).prop_map(|(xf, shift, turn)| {
        Transform::new(xf.translation + shift, xf.rotation.angle() + turn)
    })
}

/// A shape with a straight face: a segment, a stadium or a sector (whose
/// start edge is the face).
fn flat_shape() -> impl Strategy<Value = Shape> {
    prop_oneof![
        core().prop_map(|(a, b)| Segment::new(a, b).unwrap().into()),
        (core(), 0.05f32..0.6).prop_map(|((a, b), r)| Stadium::new(a, b, r).unwrap().into()),
        (point(0.5), 0.3f32..1.5, -PI..PI, sweep_angle())
            .prop_map(|(c, r, start, sweep)| Sector::new(c, r, start, sweep).unwrap().into()),
    ]
}

/// The middle of a shape's straight face and the face's outward normal, in
/// the shape's frame (for a segment, its left side).
fn face_of(shape: &Shape) -> (Vec2, Vec2) {
    match shape {
        Shape::Segment(s) => (0.5 * (s.a() + s.b()), (s.b() - s.a()).perp().normalize()),
        Shape::Stadium(s) => {
            let n = (s.b() - s.a()).perp().normalize();
            (0.5 * (s.a() + s.b()) + s.radius() * n, n)
        }
        Shape::Sector(s) => (
            s.center() + 0.5 * s.radius() * dir(s.start()),
            -dir(s.start()).perp(),
        ),
        Shape::Circle(c) => (c.center(), Vec2::Y),
    }
}

/// B turned so that its face lies against A's face, tilted by `tilt`, `gap`
/// off it and slid along it by `slide`.
fn resting_pose(
    a: &Shape,
    xf_a: &Transform,
    b: &Shape,
    gap: f32,
    slide: f32,
    tilt: f32,
) -> Transform {
    let (mid_a, normal_a) = face_of(a);
    let (mid_b, normal_b) = face_of(b);
    let world_normal = xf_a.rotation.rotate(normal_a);
    let facing = -world_normal;
    let angle = facing.y.atan2(facing.x) - normal_b.y.atan2(normal_b.x) + tilt;
    let rotation = Transform::new(Vec2::ZERO, angle).rotation;
    let target = xf_a.apply(mid_a) + gap * world_normal + slide * world_normal.perp();
    Transform {
        translation: target - rotation.rotate(mid_b),
        rotation,
    }
}

// ---------------------------------------------------------------------------
// Checks
// ---------------------------------------------------------------------------

fn deepest(m: &ContactManifold) -> f32 {
    m.points()
        .iter()
        .map(|p| p.separation)
        .fold(f32::INFINITY, f32::min)
}

/// Well-formed: at most two finite points within the margin, a unit normal.
fn check_well_formed(m: &ContactManifold, margin: f32) -> Result<(), TestCaseError> {
    prop_assert!(m.count <= 2);
    if m.count == 0 {
        return Ok(());
    }
    prop_assert!(m.normal.is_finite(), "normal {:?}", m.normal);
    prop_assert!(
        (m.normal.length() - 1.0).abs() < 1e-4,
        "normal {:?}",
        m.normal
    );
    for p in m.points() {
        prop_assert!(p.point.is_finite() && p.separation.is_finite(), "{p:?}");
        prop_assert!(p.separation <= margin, "{p:?} beyond margin {margin}");
    }
    Ok(())
}

/// The manifold's smallest separation agrees with the brute force, and the
/// manifold is empty exactly when the pair is beyond the margin.
fn check_against_brute_force(
    m: &ContactManifold,
    a: &Posed,
    b: &Posed,
    margin: f32,
    tolerance: f32,
) -> Result<(), TestCaseError> {
    let Some(expected) = expected_separation(a, b) else {
        prop_assert!(m.is_empty(), "two segments collided");
        return Ok(());
    };
    if m.is_empty() {
        prop_assert!(
            expected > margin - tolerance,
            "missed contact: expected {expected}, margin {margin}"
        );
    } else {
        let got = deepest(m);
        prop_assert!(
            (got - expected).abs() < tolerance,
            "separation {got}, brute force {expected}"
        );
    }
    Ok(())
}

/// Both orders of a pair report a contact, or neither does; they may differ
/// only when the separation is the margin itself, up to round-off.
fn check_same_contact(
    ab: &ContactManifold,
    ba: &ContactManifold,
    margin: f32,
) -> Result<(), TestCaseError> {
    if ab.is_empty() != ba.is_empty() {
        let found = if ab.is_empty() { ba } else { ab };
        prop_assert!(
            (deepest(found) - margin).abs() < 1e-5,
            "one order only: {found:?}"
        );
    }
    Ok(())
}

/// Moving B by `−separation` along the normal leaves the pair just touching.
///
/// Skipped for an overlap involving a sector wider than π: it is not convex,
/// and leaving one half may enter the other.
fn check_push_out(
    m: &ContactManifold,
    (a, xf_a): (&Shape, &Transform),
    (b, xf_b): (&Shape, &Transform),
) -> Result<(), TestCaseError> {
    let separation = deepest(m);
    let wide = is_wide_sector(&pose(a, xf_a)) || is_wide_sector(&pose(b, xf_b));
    if m.is_empty() || (separation < 0.0 && wide) {
        return Ok(());
    }
    let moved = Transform {
        translation: xf_b.translation - separation * m.normal,
        ..*xf_b
    };
    let after = collide(a, xf_a, b, &moved, f32::INFINITY);
    // A two-point normal is a face normal, within the flat angle of the exact one.
    let slack = if m.count == 2 {
        0.01 * separation.abs()
    } else {
        0.0
    };
    prop_assert!(
        deepest(&after).abs() < TOLERANCE + slack,
        "after push: {}",
        deepest(&after)
    );
    Ok(())
}

/// `cases` cases, or as many as the `PROPTEST_CASES` environment variable asks.
fn config(cases: u32) -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(cases),
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config(256))]

    #[test]
    fn manifolds_match_brute_force(
        a in shape(), xf_a in transform(), b in shape(), xf_b in transform(), margin in 0.0f32..0.5,
    ) {
        let m = collide(&a, &xf_a, &b, &xf_b, margin);
        check_well_formed(&m, margin)?;
        check_against_brute_force(&m, &pose(&a, &xf_a), &pose(&b, &xf_b), margin, TOLERANCE)?;
    }

    #[test]
    fn distance_of_shapes_apart_matches_boundary_sampling(
        a in shape(), xf_a in transform(), b in shape(), xf_b in transform(),
    ) {
        let (pa, pb) = (pose(&a, &xf_a), pose(&b, &xf_b));
        let d = shape_distance(&a, &xf_a, &b, &xf_b);
        prop_assert!(d.separation.is_finite() && d.normal.is_finite());
        prop_assert!((d.normal.length() - 1.0).abs() < 1e-4);
        prop_assert!((d.point_b - d.point_a - d.separation * d.normal).length() < 1e-4);
        if d.separation > 0.01 {
            let sampled = sampled_distance(&pa, &pb);
            prop_assert!((d.separation - sampled).abs() < TOLERANCE, "{} vs sampled {}", d.separation, sampled);
        }
    }

    #[test]
    fn swapping_the_shapes_flips_the_normal(
        a in shape(), xf_a in transform(), b in shape(), xf_b in transform(), margin in 0.0f32..0.5,
    ) {
        let ab = collide(&a, &xf_a, &b, &xf_b, margin);
        let ba = collide(&b, &xf_b, &a, &xf_a, margin);
        check_same_contact(&ab, &ba, margin)?;
        if !ab.is_empty() && !ba.is_empty() {
            prop_assert!((deepest(&ab) - deepest(&ba)).abs() < TOLERANCE);
            // Two-point manifolds may pick the other shape's face as the
            // reference, whose normal is within the flat angle (about 5.7°).
            prop_assert!(ab.normal.dot(-ba.normal) > 0.99, "{:?} vs {:?}", ab.normal, ba.normal);
            if ab.count == 1 && ba.count == 1 {
                prop_assert!((ab.normal + ba.normal).length() < TOLERANCE, "{:?} vs {:?}", ab.normal, ba.normal);
            }
        }
    }

    #[test]
    fn pushing_out_along_the_normal_makes_the_shapes_touch(
        a in shape(), xf_a in transform(), b in shape(), offset in point(1.2), angle in -PI..PI,
        margin in 0.0f32..0.5,
    ) {
        // B near A, so that most cases touch or overlap.
        let xf_b = Transform::new(xf_a.translation + offset, angle);
        let m = collide(&a, &xf_a, &b, &xf_b, margin);
        check_push_out(&m, (&a, &xf_a), (&b, &xf_b))?;
    }

    #[test]
    fn nearly_parallel_features_match_brute_force(
        a in lattice_shape(), xf_a in nudged_lattice_transform(),
        b in lattice_shape(), xf_b in nudged_lattice_transform(), margin in 0.0f32..0.3,
    ) {
        let m = collide(&a, &xf_a, &b, &xf_b, margin);
        check_well_formed(&m, margin)?;
        check_against_brute_force(&m, &pose(&a, &xf_a), &pose(&b, &xf_b), margin, TOLERANCE)?;
        let ba = collide(&b, &xf_b, &a, &xf_a, margin);
        check_same_contact(&m, &ba, margin)?;
        if !m.is_empty() && !ba.is_empty() {
            prop_assert!((deepest(&m) - deepest(&ba)).abs() < TOLERANCE);
            prop_assert!(m.normal.dot(-ba.normal) > 0.99, "{:?} vs {:?}", m.normal, ba.normal);
        }
        check_push_out(&m, (&a, &xf_a), (&b, &xf_b))?;
    }

    #[test]
    fn shapes_resting_face_to_face_match_brute_force(
        a in flat_shape(), xf_a in transform(), b in flat_shape(),
        gap in -0.1f32..0.1, slide in -0.8f32..0.8, tilt in prop_oneof![Just(0.0f32), -0.05f32..0.05],
        margin in 0.0f32..0.2,
    ) {
        let xf_b = resting_pose(&a, &xf_a, &b, gap, slide, tilt);
        let m = collide(&a, &xf_a, &b, &xf_b, margin);
        check_well_formed(&m, margin)?;
        check_against_brute_force(&m, &pose(&a, &xf_a), &pose(&b, &xf_b), margin, TOLERANCE)?;
        let ba = collide(&b, &xf_b, &a, &xf_a, margin);
        check_same_contact(&m, &ba, margin)?;
        if !m.is_empty() && !ba.is_empty() {
            prop_assert!((deepest(&m) - deepest(&ba)).abs() < TOLERANCE);
            prop_assert!(m.normal.dot(-ba.normal) > 0.99, "{:?} vs {:?}", m.normal, ba.normal);
        }
        check_push_out(&m, (&a, &xf_a), (&b, &xf_b))?;
    }

    #[test]
    fn degenerate_lattice_poses_stay_sound(
        a in lattice_shape(), xf_a in lattice_transform(), b in lattice_shape(), xf_b in lattice_transform(),
        margin in prop::sample::select(vec![0.0f32, 0.25, f32::INFINITY]),
    ) {
        let m = collide(&a, &xf_a, &b, &xf_b, margin);
        check_well_formed(&m, margin)?;
        check_against_brute_force(&m, &pose(&a, &xf_a), &pose(&b, &xf_b), margin, TOLERANCE)?;
        let ba = collide(&b, &xf_b, &a, &xf_a, margin);
        check_well_formed(&ba, margin)?;
        check_same_contact(&m, &ba, margin)?;
        if !m.is_empty() && !ba.is_empty() {
            prop_assert!((deepest(&m) - deepest(&ba)).abs() < TOLERANCE);
        }
        let d = shape_distance(&a, &xf_a, &b, &xf_b);
        prop_assert!(d.separation.is_finite() && d.normal.is_finite() && d.point_a.is_finite());
    }
}

// ---------------------------------------------------------------------------
// Time of impact
// ---------------------------------------------------------------------------

fn motion() -> impl Strategy<Value = Sweep> {
    (
        point(0.3),
        point(2.5),
        point(2.5),
        -PI..PI,
        prop_oneof![Just(0.0f32), -3.0f32..3.0],
    )
        .prop_map(|(local_center, c1, c2, a1, turn)| Sweep {
            local_center,
            c1,
            c2,
            a1,
            a2: a1 + turn,
        })
}

fn separation_at(a: &Shape, sweep_a: &Sweep, b: &Shape, sweep_b: &Sweep, t: f32) -> f32 {
    shape_distance(a, &sweep_a.transform_at(t), b, &sweep_b.transform_at(t)).separation
}

proptest! {
    #![proptest_config(config(128))]

    #[test]
    fn time_of_impact_never_tunnels(
        a in shape(), sweep_a in motion(), b in shape(), sweep_b in motion(), target in 0.0f32..0.02,
    ) {
        let toi = time_of_impact(&a, &sweep_a, &b, &sweep_b, target);
        prop_assert!((0.0..=1.0).contains(&toi.fraction), "{toi:?}");
        if let (Shape::Segment(_), Shape::Segment(_)) = (&a, &b) {
            // Walls never collide with walls.
            prop_assert_eq!(toi.state, ToiState::Separated);
            return Ok(());
        }
        let at = |t: f32| separation_at(&a, &sweep_a, &b, &sweep_b, t);
        // A little below the target is round-off; the hit tolerance is 1.25 mm above it.
        let floor = target - 1e-3;
        match toi.state {
            ToiState::Overlapped => {
                prop_assert_eq!(toi.fraction, 0.0);
                prop_assert!(at(0.0) < 0.0);
            }
            ToiState::Hit if toi.fraction == 0.0 => {
                // Already within the target at the start, but not overlapping.
                let s = at(0.0);
                prop_assert!((0.0..=target + 2e-3).contains(&s), "separation {s} at {toi:?}");
            }
            ToiState::Hit => {
                let s = at(toi.fraction);
                prop_assert!(s >= floor && s <= target + 2e-3, "separation {s} at {toi:?}");
            }
            ToiState::Separated => prop_assert_eq!(toi.fraction, 1.0),
            ToiState::Failed => prop_assert!(at(toi.fraction) >= floor),
        }
        // No earlier moment (sampled) comes closer than the target.
        if toi.fraction > 0.0 {
            for i in 0..100 {
                let t = toi.fraction * i as f32 / 100.0;
                prop_assert!(at(t) >= floor, "separation {} at t = {t}, before {toi:?}", at(t));
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Batched manifolds
// ---------------------------------------------------------------------------

/// Every bit of a manifold, the points beyond `count` included.
fn manifold_bits(m: &ContactManifold) -> Vec<u32> {
    let mut bits = vec![m.normal.x.to_bits(), m.normal.y.to_bits(), m.count as u32];
    for p in &m.points {
        let (x, y, s) = (p.point.x, p.point.y, p.separation);
        bits.extend([x.to_bits(), y.to_bits(), s.to_bits(), u32::from(p.id.0)]);
    }
    bits
}

/// A placed circle, segment or stadium: at random, on the lattice (cores
/// crossing, touching at their ends, exactly parallel), or on the nudged
/// lattice (nearly parallel, where two-point manifolds come from).
fn placed_shape() -> impl Strategy<Value = PlacedShape> {
    let any = (shape(), transform());
    let lattice = (lattice_shape(), lattice_transform());
    let nudged = (flat_shape(), nudged_lattice_transform());
    prop_oneof![any, lattice, nudged].prop_map(|(shape, xf)| {
        // Sectors are not placed: a stadium along the start edge instead.
        let shape = match shape {
            Shape::Sector(s) => {
                let end = s.center() + s.radius() * dir(s.start());
                Stadium::new(s.center(), end, 0.5 * s.radius())
                    .unwrap()
                    .into()
            }
            other => other,
        };
        PlacedShape::new(&shape, &xf).unwrap()
    })
}

proptest! {
    #![proptest_config(config(256))]

    /// Batched, each pair gets the same bits as alone, whatever the mix of
    /// kinds, the margins, and where the groups of four break.
    #[test]
    fn a_batch_gives_each_pair_the_bits_it_gets_alone(
        pairs in prop::collection::vec((placed_shape(), placed_shape(), 0.0f32..0.5), 1..12)
    ) {
        let mut out = vec![MaybeUninit::<ContactManifold>::uninit(); pairs.len()];
        let mut batch = ManifoldBatch::new();
        for (slot, (a, b, margin)) in pairs.iter().enumerate() {
            batch.collide(a, b, *margin, slot, &mut out);
        }
        batch.flush(&mut out);
        for ((a, b, margin), m) in pairs.iter().zip(&out) {
            // SAFETY: `flush` has written every slot named above.
            let batched = unsafe { m.assume_init() };
            let alone = collide_placed(a, b, *margin);
            prop_assert_eq!(manifold_bits(&batched), manifold_bits(&alone), "{:?} and {:?}", a, b);
        }
    }
}
