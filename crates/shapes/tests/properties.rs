//! Property tests: every shape query checked against dense boundary samples,
//! f64 reference answers or numerical integration, for random shapes,
//! transforms, points and rays.

mod support;

use carom_shapes::{Ray, Shape, Vec2};
use proptest::prelude::*;
use support::*;

/// Points within this distance of the boundary are too close to call.
const NEAR_BOUNDARY: f32 = 1e-3;

fn unit_square() -> impl Strategy<Value = (f32, f32)> {
    (0.0f32..1.0, 0.0f32..1.0)
}

/// A ray starting near the shape, aimed at a point near it and reaching
/// somewhere between half way and twice as far.
fn ray_near(shape: &Shape, from: (f32, f32), to: (f32, f32), reach: f32) -> Ray {
    let origin = point_near(shape, from);
    let target = point_near(shape, to);
    Ray {
        origin,
        translation: reach * (target - origin),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn contains_agrees_with_the_reference_and_the_sign(
        shape in any_shape(),
        uv in unit_square(),
    ) {
        let p = point_near(&shape, uv);
        let samples = boundary(&shape);
        prop_assume!(nearest_sample_distance(&samples, p) > NEAR_BOUNDARY);
        let inside = shape.contains(p);
        prop_assert_eq!(inside, reference_contains(&shape, p));
        prop_assert_eq!(inside, shape.signed_distance(p) <= 0.0);
    }

    #[test]
    fn signed_distance_matches_the_sampled_boundary(
        shape in any_shape(),
        uv in unit_square(),
    ) {
        let p = point_near(&shape, uv);
        let sampled = nearest_sample_distance(&boundary(&shape), p);
        let distance = shape.signed_distance(p).abs();
        // Samples lie on the boundary, so they are never nearer than the
        // truth, and at most about half a spacing further.
        prop_assert!(distance <= sampled + 1e-4, "{} > {}", distance, sampled);
        prop_assert!(sampled <= distance + SPACING, "{} > {}", sampled, distance);
        if let Shape::Segment(_) = shape {
            prop_assert!(shape.signed_distance(p) >= 0.0);
        }
    }

    #[test]
    fn closest_point_is_on_the_shape_and_nothing_sampled_is_nearer(
        shape in any_shape(),
        uv in unit_square(),
    ) {
        let p = point_near(&shape, uv);
        let q = shape.closest_point(p);
        prop_assert!(shape.signed_distance(q) <= 1e-4, "{:?} is off the shape", q);
        if shape.contains(p) {
            prop_assert_eq!(q, p);
        } else {
            let sampled = nearest_sample_distance(&boundary(&shape), p);
            prop_assert!(p.distance(q) <= sampled + 1e-4);
            prop_assert!((p.distance(q) - shape.signed_distance(p)).abs() <= 1e-4);
        }
    }

    #[test]
    fn placed_box_holds_the_boundary_and_touches_it_on_every_side(
        shape in any_shape(),
        xf in transform(),
    ) {
        let aabb = shape.aabb_at(&xf);
        let placed: Vec<Vec2> = boundary(&shape).iter().map(|&q| xf.apply(q)).collect();
        for q in &placed {
            prop_assert!(aabb.expanded(1e-4).contains_point(*q), "{:?} outside {:?}", q, aabb);
        }
        let low = placed.iter().fold(Vec2::INFINITY, |m, q| m.min(*q));
        let high = placed.iter().fold(Vec2::NEG_INFINITY, |m, q| m.max(*q));
        prop_assert!(low.abs_diff_eq(aabb.min, 1e-3), "{:?} vs {:?}", low, aabb.min);
        prop_assert!(high.abs_diff_eq(aabb.max, 1e-3), "{:?} vs {:?}", high, aabb.max);
    }

    #[test]
    fn ray_hits_lie_on_the_boundary_and_come_first(
        shape in any_shape(),
        xf in transform(),
        from in unit_square(),
        to in unit_square(),
        reach in 0.5f32..2.0,
    ) {
        let local_ray = ray_near(&shape, from, to, reach);
        let ray = Ray {
            origin: xf.apply(local_ray.origin),
            translation: xf.rotation.rotate(local_ray.translation),
        };
        let hit = shape.ray_cast_at(&xf, &ray);
        let length = ray.translation.length();
        prop_assume!(length > 1e-3);
        if let Some(hit) = hit {
            prop_assert!((0.0..=1.0).contains(&hit.fraction));
            prop_assert!((hit.normal.length() - 1.0).abs() < 1e-4);
            prop_assert!(hit.point.distance(ray.point_at(hit.fraction)) < 1e-4);
            let local_point = xf.apply_inverse(hit.point);
            prop_assert!(shape.signed_distance(local_point).abs() < 1e-3);
            // The normal opposes the ray: it faces the origin.
            prop_assert!(hit.normal.dot(ray.translation) <= 1e-4 * length);
        }
        if shape.contains(local_ray.origin) {
            prop_assert_eq!(hit, None);
            return Ok(());
        }
        let first_hit = hit.map_or(f32::INFINITY, |h| h.fraction);
        if let Shape::Segment(segment) = shape {
            if let Some(t) = reference_segment_crossing(&segment, &local_ray) {
                prop_assert!((first_hit as f64 - t).abs() * (length as f64) < 1e-3);
            }
            return Ok(());
        }
        // March along the ray: no point before the hit is inside, and the
        // first point clearly inside is not before the hit.
        let steps = 2000;
        for i in 0..=steps {
            let t = i as f32 / steps as f32;
            let q = local_ray.point_at(t);
            if (t - first_hit) * length < -1e-3 {
                prop_assert!(shape.signed_distance(q) > -1e-4, "inside at {} before hit {}", t, first_hit);
            }
            if reference_contains(&shape, q) && shape.signed_distance(q) < -1e-4 {
                prop_assert!(
                    (first_hit - t) * length <= 1e-3,
                    "inside at {} but hit at {}", t, first_hit
                );
                break;
            }
        }
    }

    #[test]
    fn a_ray_stretched_past_f32s_squares_keeps_its_hit(
        shape in any_shape(),
        from in unit_square(),
        to in unit_square(),
        reach in 0.5f32..2.0,
        power in 64i32..120,
    ) {
        // Stretched by 2^power (its squared length then beyond f32, as an
        // endless ray's is), a ray hits the same point at a fraction
        // 2^power times smaller: the scaling is exact, so only rounding
        // inside the cast differs.
        let ray = ray_near(&shape, from, to, reach);
        let length = ray.translation.length();
        prop_assume!(length > 1e-3);
        let stretch = 2f32.powi(power);
        let long = Ray { origin: ray.origin, translation: stretch * ray.translation };
        prop_assume!(long.translation.is_finite());
        let (short_hit, long_hit) = (shape.ray_cast(&ray), shape.ray_cast(&long));
        match (short_hit, long_hit) {
            (Some(a), Some(b)) => {
                prop_assert!(a.point.distance(b.point) < 1e-3, "{:?} vs {:?}", a, b);
                prop_assert!((a.fraction - b.fraction * stretch).abs() * length < 1e-3);
                prop_assert!(a.normal.distance(b.normal) < 1e-3);
            }
            (None, None) => {}
            // A graze can go either way; it lies on the boundary.
            (Some(hit), None) | (None, Some(hit)) => {
                prop_assert!(shape.signed_distance(hit.point).abs() < 1e-3);
                prop_assert!(
                    hit.normal.dot(ray.translation).abs() < 1e-2 * length
                        || hit.fraction * length < 1e-3,
                    "{:?}", hit
                );
            }
        }
    }

    #[test]
    fn transformed_shapes_agree_with_transformed_queries(
        shape in any_shape(),
        xf in transform(),
        uv in unit_square(),
        to in unit_square(),
    ) {
        let moved = shape.transformed(&xf);
        let p = point_near(&shape, uv);
        let world = xf.apply(p);
        let sd = shape.signed_distance(p);
        prop_assert!((moved.signed_distance(world) - sd).abs() < 1e-4);
        if sd.abs() > NEAR_BOUNDARY {
            prop_assert_eq!(moved.contains(world), shape.contains(p));
        }
        prop_assert!(moved.closest_point(world).distance(xf.apply(shape.closest_point(p))) < 1e-3);
        let (boxed, placed) = (moved.aabb(), shape.aabb_at(&xf));
        prop_assert!(boxed.min.abs_diff_eq(placed.min, 1e-4) && boxed.max.abs_diff_eq(placed.max, 1e-4));
        prop_assert!((moved.area() - shape.area()).abs() <= 1e-5 * shape.area().max(1.0));
        let (m0, m1) = (shape.mass_properties(2.0), moved.mass_properties(2.0));
        prop_assert!(m1.center.distance(xf.apply(m0.center)) < 1e-4);
        prop_assert!((m1.inertia - m0.inertia).abs() <= 1e-4 * m0.inertia.max(1.0));
        let ray = Ray { origin: world, translation: xf.apply(point_near(&shape, to)) - world };
        let (direct, placed_hit) = (moved.ray_cast(&ray), shape.ray_cast_at(&xf, &ray));
        prop_assert_eq!(direct.is_some(), placed_hit.is_some(), "{:?} vs {:?}", direct, placed_hit);
        if let (Some(a), Some(b)) = (direct, placed_hit) {
            prop_assert!((a.fraction - b.fraction).abs() * ray.translation.length() < 1e-3);
        }
    }

    #[test]
    fn max_extent_bounds_every_boundary_point_tightly(
        shape in any_shape(),
        uv in unit_square(),
    ) {
        let from = point_near(&shape, uv);
        let far = shape.max_extent(from);
        let sampled = boundary(&shape)
            .iter()
            .map(|q| q.distance(from))
            .fold(0.0f32, f32::max);
        prop_assert!(sampled <= far + 1e-4, "{} > {}", sampled, far);
        prop_assert!(far <= sampled + 1e-3, "{} not reached ({})", far, sampled);
    }

    #[test]
    fn a_disc_of_the_min_extent_fits_inside(shape in solid_shape(0.02)) {
        let rho = shape.min_extent();
        prop_assert!(rho > 0.0);
        let center = inscribed_center(&shape);
        prop_assert!(shape.contains(center));
        let clearance = nearest_sample_distance(&boundary(&shape), center);
        prop_assert!(clearance >= rho * (1.0 - 1e-3) - 1e-5, "{} < {}", clearance, rho);
    }

    #[test]
    fn nothing_is_nan(
        shape in any_shape(),
        xf in transform(),
        far in prop_oneof![Just(1e6f32), Just(-1e6f32), -1e4f32..1e4],
        density in 0.0f32..100.0,
    ) {
        let special = special_points(&shape);
        for p in special.iter().copied().chain([Vec2::new(far, -far), Vec2::splat(far)]) {
            prop_assert!(!shape.signed_distance(p).is_nan());
            prop_assert!(shape.closest_point(p).is_finite());
            prop_assert!(shape.max_extent(p).is_finite());
            for translation in [Vec2::ZERO, Vec2::new(1e-30, 0.0), special[0] - p, Vec2::new(far, 1.0)] {
                let ray = Ray { origin: p, translation };
                if let Some(hit) = shape.ray_cast_at(&xf, &ray) {
                    prop_assert!(hit.point.is_finite() && hit.normal.is_finite());
                    prop_assert!(hit.fraction.is_finite());
                }
            }
            let still = Ray { origin: p, translation: Vec2::ZERO };
            prop_assert_eq!(shape.ray_cast_at(&xf, &still), None);
        }
        let m = shape.mass_properties(density);
        prop_assert!(m.mass.is_finite() && m.center.is_finite() && m.inertia.is_finite());
        prop_assert!(!shape.min_extent().is_nan());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn mass_properties_match_grid_integration(
        shape in solid_shape(0.3),
        density in 0.5f32..5.0,
    ) {
        let estimate = integrate_over_grid(&shape, 400);
        let m = shape.mass_properties(density);
        let area = shape.area();
        prop_assert!((area - estimate.area).abs() <= 0.02 * area, "area {} vs {}", area, estimate.area);
        prop_assert!((m.mass - density * area).abs() <= 1e-5 * m.mass.max(1.0));
        let size = shape.aabb().half_extents().length();
        prop_assert!(m.center.distance(estimate.centroid) <= 0.01 * size,
            "centre {:?} vs {:?}", m.center, estimate.centroid);
        let inertia = estimate.polar_moment * density;
        prop_assert!((m.inertia - inertia).abs() <= 0.03 * m.inertia,
            "inertia {} vs {}", m.inertia, inertia);
    }
}

/// Points where a careless implementation divides by zero: centres, apexes,
/// core ends, and the middle of a segment.
fn special_points(shape: &Shape) -> Vec<Vec2> {
    match shape {
        Shape::Circle(c) => vec![c.center()],
        Shape::Segment(s) => vec![s.a(), s.b(), 0.5 * (s.a() + s.b())],
        Shape::Stadium(s) => vec![s.a(), s.b(), 0.5 * (s.a() + s.b())],
        Shape::Sector(s) => vec![s.center(), s.start_point(), s.end_point()],
    }
}

/// The centre of the disc that `min_extent` promises: on the sector's
/// bisector at `ρ / sin(s/2)` from the apex for sweeps up to π, `r/2` for
/// wider ones, and the middle of everything else.
fn inscribed_center(shape: &Shape) -> Vec2 {
    match shape {
        Shape::Sector(s) if s.sweep() < std::f32::consts::TAU => {
            let half = 0.5 * s.sweep();
            let bisector = Vec2::from_angle(s.start() + half);
            let distance = if half <= std::f32::consts::FRAC_PI_2 {
                s.min_extent() / half.sin()
            } else {
                0.5 * s.radius()
            };
            s.center() + distance * bisector
        }
        _ => shape.aabb().center(),
    }
}

struct GridEstimate {
    area: f32,
    centroid: Vec2,
    /// `∫ |p − centroid|² dA`.
    polar_moment: f32,
}

/// Area, centroid and polar moment of the shape by midpoint sampling of
/// `contains` on an `n × n` grid over its box.
fn integrate_over_grid(shape: &Shape, n: usize) -> GridEstimate {
    let aabb = shape.aabb();
    let cell = (aabb.max - aabb.min) / n as f32;
    let cell_area = (cell.x * cell.y) as f64;
    let inside: Vec<Vec2> = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| aabb.min + cell * Vec2::new(i as f32 + 0.5, j as f32 + 0.5))
        .filter(|&p| shape.contains(p))
        .collect();
    let area = inside.len() as f64 * cell_area;
    let sum = inside
        .iter()
        .fold(glam::DVec2::ZERO, |s, p| s + p.as_dvec2());
    let centroid = sum / inside.len() as f64;
    let polar: f64 = inside
        .iter()
        .map(|p| (p.as_dvec2() - centroid).length_squared())
        .sum();
    GridEstimate {
        area: area as f32,
        centroid: centroid.as_vec2(),
        polar_moment: (polar * cell_area) as f32,
    }
}
