//! The embedding API: handles, validation, mass, the fixed-step accumulator.

mod common;

use carom::shapes::{Circle, Segment, Stadium, Vec2};
use carom::{BodyDef, BodyHandle, BodyKind, Material, World, WorldError, WorldSettings};
use common::*;

#[test]
fn a_removed_body_leaves_stale_handles_behind() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let first = add_body(
        &mut world,
        BodyDef::dynamic().name("first"),
        disc(0.5),
        Material::default(),
    );
    let second = add_body(
        &mut world,
        BodyDef::dynamic().position(3.0, 0.0).name("second"),
        disc(0.5),
        Material::default(),
    );
    let shape = world.body(first).unwrap().shapes().next().unwrap();
    world.remove_body(first).unwrap();

    assert_eq!(world.body(first).err(), Some(WorldError::StaleBody));
    assert_eq!(world.shape(shape).err(), Some(WorldError::StaleShape));
    assert_eq!(world.remove_body(first), Err(WorldError::StaleBody));
    assert_eq!(
        world.add_shape(first, disc(1.0), Material::default()).err(),
        Some(WorldError::StaleBody)
    );
    assert_eq!(
        world.set_linear_velocity(first, Vec2::ONE),
        Err(WorldError::StaleBody)
    );

    // A body created afterwards may reuse the slot, never the handle.
    let third = add_body(
        &mut world,
        BodyDef::dynamic(),
        disc(0.5),
        Material::default(),
    );
    assert_ne!(third, first);
    assert_eq!(world.body(first).err(), Some(WorldError::StaleBody));

    // The survivors keep their relative order and their data.
    let names: Vec<_> = world.bodies().map(|b| b.name()).collect();
    assert_eq!(names, vec![Some("second"), None]);
    assert_eq!(world.body(second).unwrap().index(), 0);
    assert_eq!(world.body(second).unwrap().position(), Vec2::new(3.0, 0.0));
    world.step();
}

#[test]
fn shapes_added_in_turns_stay_with_their_bodies_through_a_removal() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let a = world.create_body(BodyDef::dynamic()).unwrap();
    let b = world
        .create_body(BodyDef::dynamic().position(3.0, 0.0))
        .unwrap();
    let radii = [0.1, 0.2, 0.3, 0.4];
    // a, b, a, b: neither body's shapes are adjacent in the world.
    let mut added = Vec::new();
    for (k, &r) in radii.iter().enumerate() {
        let owner = if k % 2 == 0 { a } else { b };
        added.push(
            world
                .add_shape(owner, disc(r), Material::default())
                .unwrap(),
        );
    }
    let b_shapes = |world: &World| -> Vec<_> { world.body(b).unwrap().shapes().collect() };
    assert_eq!(b_shapes(&world), vec![added[1], added[3]]);

    world.remove_body(a).unwrap();
    assert_eq!(world.shape(added[0]).err(), Some(WorldError::StaleShape));
    assert_eq!(world.shape(added[2]).err(), Some(WorldError::StaleShape));
    assert_eq!(b_shapes(&world), vec![added[1], added[3]]);
    let last = world.add_shape(b, disc(0.5), Material::default()).unwrap();
    assert_eq!(b_shapes(&world), vec![added[1], added[3], last]);
    for (h, r) in [(added[1], 0.2), (added[3], 0.4), (last, 0.5)] {
        let shape = world.shape(h).unwrap();
        assert_eq!(shape.body(), b);
        assert_eq!(*shape.shape(), carom::shapes::Shape::Circle(disc(r)));
    }
    // The mass is that of the three discs left, density 1: π·Σr².
    let expected = std::f32::consts::PI * (0.04 + 0.16 + 0.25);
    let mass = world.body(b).unwrap().mass();
    assert!(
        (mass - expected).abs() < 1e-5 * expected,
        "mass {mass}, expected {expected}"
    );
    world.step();
}

#[test]
fn invalid_settings_and_definitions_are_refused_with_the_field_named() {
    let bad_dt = WorldSettings {
        dt: 0.0,
        ..WorldSettings::default()
    };
    let message = World::new(bad_dt).err().unwrap().to_string();
    assert!(message.contains("dt"), "{message}");

    let bad_substeps = WorldSettings {
        substeps: 65,
        ..WorldSettings::default()
    };
    assert!(World::new(bad_substeps).is_err());
    // A speculative gap wider than any shape may reach (it widens every
    // box by half its size).
    let wide_gap = WorldSettings {
        speculative_distance: 1e38,
        ..WorldSettings::default()
    };
    let message = World::new(wide_gap).err().unwrap().to_string();
    assert!(
        message.starts_with("speculative_distance must be at most 1e15 m"),
        "{message}"
    );

    let mut world = World::new(WorldSettings::default()).unwrap();
    let nan_position = BodyDef::dynamic().position(f32::NAN, 0.0);
    let message = world.create_body(nan_position).err().unwrap().to_string();
    assert!(message.contains("position.x"), "{message}");

    let body = world.create_body(BodyDef::dynamic()).unwrap();
    let bouncy = Material {
        restitution: 1.5,
        ..Material::default()
    };
    let message = world
        .add_shape(body, disc(1.0), bouncy)
        .err()
        .unwrap()
        .to_string();
    assert!(message.contains("restitution"), "{message}");
    assert!(world.advance(-1.0).is_err());
    assert!(world.advance(f32::INFINITY).is_err());

    // A gravity scale and a gravity each finite, whose product is not:
    // refused as the body is made, or as the settings change.
    let heavy = BodyDef::dynamic().gravity_scale(1e38);
    let message = world.create_body(heavy).err().unwrap().to_string();
    assert!(
        message.starts_with("gravity_scale 1e38 times the world's gravity"),
        "{message}"
    );
    let light = world
        .create_body(BodyDef::dynamic().gravity_scale(1e30))
        .unwrap();
    let strong = WorldSettings {
        gravity: Vec2::new(0.0, -1e9),
        ..*world.settings()
    };
    assert!(world.set_settings(strong).is_err());
    assert_eq!(world.settings().gravity, Vec2::new(0.0, -10.0));
    world.remove_body(light).unwrap();
    assert!(world.set_settings(strong).is_ok());
}

#[test]
fn mass_and_inertia_come_from_the_shapes_densities() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let body = world.create_body(BodyDef::dynamic()).unwrap();
    // Two discs of radius 0.5 at x = ±1, density 2.
    let dense = Material {
        density: 2.0,
        ..Material::default()
    };
    for x in [-1.0, 1.0] {
        let c = Circle::new(Vec2::new(x, 0.0), 0.5).unwrap();
        world.add_shape(body, c, dense).unwrap();
    }
    let b = world.body(body).unwrap();
    let disc_mass = 2.0 * std::f32::consts::PI * 0.25;
    assert!(relative_error(b.mass(), 2.0 * disc_mass) < 1e-5);
    // Each disc: ½ m r² about its centre plus m d² (parallel axis), d = 1.
    let expected = 2.0 * (0.5 * disc_mass * 0.25 + disc_mass);
    assert!(relative_error(b.inertia(), expected) < 1e-5);
    assert!(b.center_of_mass().length() < 1e-6);
}

#[test]
fn a_mass_beyond_f32_is_refused_and_the_body_left_as_it_was() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let density = |density| Material {
        density,
        ..Material::default()
    };
    let far = Circle::new(Vec2::new(1e15, 0.0), 0.5).unwrap();
    // A subnormal density and a mass that overflows, as a body's first
    // shape; two dense discs far enough apart that the inertia about their
    // centre of mass overflows.
    for (first, shape, material) in [
        (None, disc(0.5), density(1e-40)),
        (None, Circle::new(Vec2::ZERO, 1e10).unwrap(), density(1e38)),
        (Some(disc(0.5)), far, density(1e10)),
    ] {
        let body = world.create_body(BodyDef::dynamic()).unwrap();
        if let Some(first) = first {
            world.add_shape(body, first, density(1e10)).unwrap();
        }
        let state = |world: &World| {
            let b = world.body(body).unwrap();
            (b.mass(), b.inertia(), world.shape_count())
        };
        let before = state(&world);
        let message = world
            .add_shape(body, shape, material)
            .unwrap_err()
            .to_string();
        assert!(
            message.starts_with("material.density gives this dynamic body a "),
            "{message}"
        );
        assert_eq!(state(&world), before);
    }
    // A shape farther from its body's origin than MAX_SHAPE_REACH, on a
    // body of any kind.
    let beyond = Circle::new(Vec2::new(0.0, -2.0 * carom::MAX_SHAPE_REACH), 1.0).unwrap();
    for def in [BodyDef::dynamic(), BodyDef::fixed()] {
        let body = world.create_body(def).unwrap();
        let message = world
            .add_shape(body, beyond, Material::default())
            .unwrap_err();
        assert!(
            message.to_string().starts_with("shape reaches 2e15 m"),
            "{message}"
        );
    }
    // A tiny density is fine beside a shape that gives the body its mass.
    let body = world.create_body(BodyDef::dynamic()).unwrap();
    world
        .add_shape(body, disc(0.5), Material::default())
        .unwrap();
    world.add_shape(body, disc(0.5), density(1e-40)).unwrap();
    // The same shapes are fine on a static body, which the solver never
    // moves (its inverse mass is zero whatever its mass).
    let wall = world.create_body(BodyDef::fixed()).unwrap();
    assert!(world.add_shape(wall, disc(0.5), density(1e-40)).is_ok());
    // And the world steps without a NaN.
    world.step();
    assert!(world.body(body).unwrap().position().is_finite());
}

#[test]
fn an_off_centre_shape_moves_the_centre_of_mass_and_the_body_spins_about_it() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let body = world
        .create_body(BodyDef::dynamic().angular_velocity(1.0))
        .unwrap();
    let pill = Stadium::new(Vec2::new(1.0, 0.0), Vec2::new(3.0, 0.0), 0.5).unwrap();
    world.add_shape(body, pill, Material::default()).unwrap();
    assert!((world.body(body).unwrap().center_of_mass() - Vec2::new(2.0, 0.0)).length() < 1e-5);
    for _ in 0..60 {
        world.step();
    }
    // Spinning in free space, the centre of mass stays put while the origin
    // circles around it.
    let b = world.body(body).unwrap();
    assert!((b.center_of_mass() - Vec2::new(2.0, 0.0)).length() < 1e-4);
    assert!((b.position() - Vec2::new(2.0, 0.0)).length() > 1.9);
    assert!((b.angle() - 1.0).abs() < 1e-4, "angle {}", b.angle());
}

#[test]
fn advance_runs_whole_steps_and_reports_the_leftover() {
    let mut world = World::new(WorldSettings::default()).unwrap();
    let dt = world.settings().dt;
    let a = world.advance(2.5 * dt).unwrap();
    assert_eq!(a.steps, 2);
    assert!((a.alpha - 0.5).abs() < 1e-3, "alpha {}", a.alpha);
    let b = world.advance(0.6 * dt).unwrap();
    assert_eq!(b.steps, 1, "the leftover half step carries over");
    assert!((b.alpha - 0.1).abs() < 1e-3);
    assert_eq!(world.step_count(), 3);

    // A frame of one second would need 60 steps: capped, the rest dropped.
    let c = world.advance(1.0).unwrap();
    assert_eq!(c.steps, world.settings().max_steps_per_advance);
    assert!(c.dropped_time);
    assert!(c.alpha < 1.0);
}

/// A kinematic wall starting at `x = paddle_x` moving right at 2 m/s toward
/// a ball of radius 0.3 at the origin, after one second under `gravity`.
fn paddle_meets_ball(gravity: Vec2, paddle_x: f32) -> (World, BodyHandle, BodyHandle) {
    let mut world = world_with_gravity(gravity);
    let paddle = world
        .create_body(
            BodyDef::kinematic()
                .position(paddle_x, 0.0)
                .velocity(2.0, 0.0),
        )
        .unwrap();
    let wall = Segment::new(Vec2::new(0.0, -1.0), Vec2::new(0.0, 1.0)).unwrap();
    world.add_shape(paddle, wall, Material::default()).unwrap();
    let ball = add_ball(&mut world, 0.0, 0.0, 0.3, Material::default());
    for _ in 0..60 {
        world.step();
    }
    (world, paddle, ball)
}

#[test]
fn kinematic_bodies_move_by_their_velocity_and_ignore_contacts() {
    let (world, paddle, ball) = paddle_meets_ball(Vec2::new(0.0, -10.0), -5.0);
    let p = world.body(paddle).unwrap();
    assert_eq!(p.kind(), BodyKind::Kinematic);
    assert!((p.position() - Vec2::new(-3.0, 0.0)).length() < 1e-4);
    assert_eq!(p.linear_velocity(), Vec2::new(2.0, 0.0));
    // The ball fell freely: the paddle never reached it.
    assert!(world.body(ball).unwrap().position().y < -4.0);
}

#[test]
fn a_kinematic_paddle_pushes_a_dynamic_ball() {
    let (world, paddle, ball) = paddle_meets_ball(Vec2::ZERO, -1.0);
    let paddle_x = world.body(paddle).unwrap().position().x;
    let ball_x = world.body(ball).unwrap().position().x;
    assert!(
        ball_x - paddle_x > 0.3 - 0.01,
        "the paddle overran the ball"
    );
    let v = world.body(ball).unwrap().linear_velocity();
    assert!(v.x >= 2.0 - 0.01, "ball moves at {v}");
}

#[test]
fn the_state_hash_changes_with_any_bit_of_state() {
    let mut world = world_with_gravity(Vec2::new(0.0, -10.0));
    let ball = add_body(
        &mut world,
        BodyDef::dynamic(),
        disc(0.5),
        Material::default(),
    );
    let before = world.state_hash();
    world.set_angular_velocity(ball, 1e-30).unwrap();
    assert_ne!(world.state_hash(), before);
}

#[test]
fn impulses_change_velocity_by_impulse_over_mass() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let ball = add_body(
        &mut world,
        BodyDef::dynamic(),
        disc(0.5),
        Material::default(),
    );
    let m = world.body(ball).unwrap().mass();
    world
        .apply_impulse(ball, Vec2::new(3.0, 0.0), Vec2::new(0.0, 0.5))
        .unwrap();
    let b = world.body(ball).unwrap();
    assert!((b.linear_velocity() - Vec2::new(3.0 / m, 0.0)).length() < 1e-5);
    // Off-centre: torque r × J = (0, 0.5) × (3, 0) = −1.5.
    let i = b.inertia();
    assert!((b.angular_velocity() + 1.5 / i).abs() < 1e-4);
}

/// A row of resting balls on a floor, with `ball` 3 m to their left.
fn ball_beside_a_row(def: BodyDef) -> (World, BodyHandle) {
    let mut world = world_with_gravity(Vec2::new(0.0, -10.0));
    add_floor(&mut world, 50.0);
    let ball = add_body(
        &mut world,
        def.position(-3.0, 0.5),
        disc(0.5),
        Material::default(),
    );
    for i in 0..5 {
        add_ball(&mut world, i as f32, 0.5, 0.5, Material::default());
    }
    (world, ball)
}

#[test]
fn velocities_past_the_limits_are_cut_to_them_as_they_are_given() {
    let settings = WorldSettings::default();
    let (v_max, w_max) = (settings.max_linear_speed, settings.max_angular_speed());
    // Up to where |v|² overflows f32 (from some 1.8e19 m/s), every way a
    // velocity is given.
    for speed in [1e3, 1e19, 1e30, 3e38] {
        let toward = Vec2::new(3.0, -4.0) / 5.0;
        let v = speed * toward;
        let mut given = Vec::new();
        let def = BodyDef::dynamic()
            .velocity(v.x, v.y)
            .angular_velocity(-speed);
        given.push(ball_beside_a_row(def));
        let (mut world, ball) = ball_beside_a_row(BodyDef::dynamic());
        world.set_linear_velocity(ball, v).unwrap();
        world.set_angular_velocity(ball, -speed).unwrap();
        given.push((world, ball));
        // An impulse whose velocity change overflows f32, at an arm that
        // spins the ball clockwise.
        let (mut world, ball) = ball_beside_a_row(BodyDef::dynamic());
        world
            .apply_impulse(ball, speed * toward, Vec2::new(-3.0, 1.0))
            .unwrap();
        given.push((world, ball));
        for (world, ball) in &given {
            let b = world.body(*ball).unwrap();
            let (v, w) = (b.linear_velocity(), b.angular_velocity());
            assert!((v.length() - v_max).abs() < 1e-3 * v_max, "{speed}: {v}");
            assert!((v.normalize() - toward).length() < 1e-5, "{speed}: {v}");
            assert_eq!(w, -w_max, "{speed}");
        }
        // So the ball moves as one given its cut velocities to begin with:
        // the same bits, step after step, and nothing thrown past the
        // limits.
        let (mut by_def, ball) = given.swap_remove(0);
        let cut = by_def.body(ball).unwrap().linear_velocity();
        let def = BodyDef::dynamic()
            .velocity(cut.x, cut.y)
            .angular_velocity(-w_max);
        let (mut at_limit, _) = ball_beside_a_row(def);
        for _ in 0..30 {
            at_limit.step();
            by_def.step();
            assert_eq!(by_def.state_hash(), at_limit.state_hash(), "{speed}");
            for b in by_def.bodies() {
                assert!(b.linear_velocity().length() <= v_max * 1.0001);
                assert!(b.position().is_finite());
            }
        }
    }
}

#[test]
fn a_static_body_takes_no_velocity() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let floor = add_floor(&mut world, 5.0);
    world
        .set_linear_velocity(floor, Vec2::new(1.0, 2.0))
        .unwrap();
    world.set_angular_velocity(floor, 3.0).unwrap();
    world.apply_impulse(floor, Vec2::X, Vec2::Y).unwrap();
    let b = world.body(floor).unwrap();
    assert_eq!(
        (b.linear_velocity(), b.angular_velocity()),
        (Vec2::ZERO, 0.0)
    );
}

#[test]
fn lower_speed_limits_cut_the_velocities_already_given() {
    let (mut world, ball) = ball_beside_a_row(BodyDef::dynamic().velocity(30.0, 40.0));
    world.set_angular_velocity(ball, 100.0).unwrap();
    let settings = WorldSettings {
        max_linear_speed: 10.0,
        substeps: 1,
        ..*world.settings()
    };
    world.set_settings(settings).unwrap();
    let b = world.body(ball).unwrap();
    assert!((b.linear_velocity() - Vec2::new(6.0, 8.0)).length() < 1e-5);
    // π/4 a substep at one substep of 1/60 s: 15π rad/s.
    assert!((b.angular_velocity() - 15.0 * std::f32::consts::PI).abs() < 1e-4);
}

#[test]
fn a_ray_finds_the_nearest_shape_and_a_point_finds_what_covers_it() {
    use carom::shapes::Ray;
    let mut world = world_with_gravity(Vec2::ZERO);
    let near = add_ball(&mut world, 2.0, 0.0, 0.5, Material::default());
    let far = add_ball(&mut world, 5.0, 0.0, 0.5, Material::default());
    let wall = add_wall(
        &mut world,
        Vec2::new(8.0, -1.0),
        Vec2::new(8.0, 1.0),
        Material::default(),
    );
    let ray = Ray {
        origin: Vec2::ZERO,
        translation: Vec2::new(10.0, 0.0),
    };
    let hit = world.cast_ray(&ray).expect("the ray hits the near ball");
    let near_shape = world.body(near).unwrap().shapes().next().unwrap();
    assert_eq!(hit.shape, near_shape);
    // The near ball's surface is at x = 1.5: fraction 0.15, normal −x.
    assert!((hit.hit.fraction - 0.15).abs() < 1e-5);
    assert!((hit.hit.point - Vec2::new(1.5, 0.0)).length() < 1e-4);
    assert!((hit.hit.normal - Vec2::new(-1.0, 0.0)).length() < 1e-5);

    // Shorter than the gap to the near ball: no hit.
    let short = Ray {
        origin: Vec2::ZERO,
        translation: Vec2::new(1.0, 0.0),
    };
    assert!(world.cast_ray(&short).is_none());

    // A ray meant to be endless, 1e30 m long (its squared length is
    // beyond f32), hits the same point at a fraction 1e29 times smaller.
    let endless = Ray {
        origin: Vec2::ZERO,
        translation: Vec2::new(1e30, 0.0),
    };
    let hit = world.cast_ray(&endless).unwrap();
    assert_eq!(hit.shape, near_shape);
    assert!((hit.hit.fraction / 1.5e-30 - 1.0).abs() < 1e-5);
    assert!((hit.hit.point - Vec2::new(1.5, 0.0)).length() < 1e-4);

    // Remove the near ball: the far one is hit; beyond it, the wall, by the
    // endless ray too.
    world.remove_body(near).unwrap();
    let far_shape = world.body(far).unwrap().shapes().next().unwrap();
    assert_eq!(world.cast_ray(&ray).unwrap().shape, far_shape);
    world.remove_body(far).unwrap();
    let wall_shape = world.body(wall).unwrap().shapes().next().unwrap();
    let hit = world.cast_ray(&ray).unwrap();
    assert_eq!(hit.shape, wall_shape);
    assert!((hit.hit.fraction - 0.8).abs() < 1e-5);
    let hit = world.cast_ray(&endless).unwrap();
    assert_eq!(hit.shape, wall_shape);
    assert!((hit.hit.point - Vec2::new(8.0, 0.0)).length() < 1e-4);

    let ball = add_ball(&mut world, -3.0, 1.0, 0.5, Material::default());
    let ball_shape = world.body(ball).unwrap().shapes().next().unwrap();
    assert_eq!(
        world.shapes_at_point(Vec2::new(-3.2, 1.3)),
        vec![ball_shape]
    );
    assert!(world.shapes_at_point(Vec2::new(-3.0, 2.0)).is_empty());
    // A segment has no area to contain a point.
    assert!(world.shapes_at_point(Vec2::new(8.0, 0.0)).is_empty());
}
