//! Physical laws, checked against closed-form answers.

mod common;

use carom::shapes::{Sector, Vec2};
use carom::{BodyDef, Material, World};
use common::*;

const G: f32 = 10.0;

fn bouncy(restitution: f32) -> Material {
    Material {
        restitution,
        ..Material::default()
    }
}

fn frictionless() -> Material {
    Material {
        friction: 0.0,
        ..Material::default()
    }
}

#[test]
fn free_fall_follows_the_parabola() {
    let g = Vec2::new(0.0, -9.81);
    let mut world = world_with_gravity(g);
    let (x0, v0) = (Vec2::new(1.0, 100.0), Vec2::new(3.0, 5.0));
    let def = BodyDef::dynamic().position(x0.x, x0.y).velocity(v0.x, v0.y);
    let ball = add_body(&mut world, def, disc(0.5), Material::default());
    for _ in 0..120 {
        world.step();
    }
    let t = world.time() as f32;
    let expected = v0 * t + 0.5 * g * t * t;
    let moved = world.body(ball).unwrap().position() - x0;
    assert!(
        (moved - expected).length() <= 0.005 * expected.length(),
        "moved {moved}, expected {expected}"
    );
    let v = world.body(ball).unwrap().linear_velocity();
    assert!((v - (v0 + g * t)).length() < 1e-3 * (v0 + g * t).length());
}

/// Steps `seconds` and returns the largest displacement from the start and
/// the largest speed seen in the second half.
fn watch_rest(world: &mut World, body: carom::BodyHandle, seconds: f32) -> (f32, f32, f32) {
    let start = world.body(body).unwrap().position();
    let start_angle = world.body(body).unwrap().angle();
    let steps = (seconds * 60.0) as usize;
    let (mut drift, mut late_speed, mut turn) = (0.0f32, 0.0f32, 0.0f32);
    for i in 0..steps {
        world.step();
        let b = world.body(body).unwrap();
        drift = drift.max((b.position() - start).length());
        turn = turn.max((b.angle() - start_angle).abs());
        if i > steps / 2 {
            late_speed = late_speed.max(b.linear_velocity().length());
        }
    }
    (drift, late_speed, turn)
}

#[test]
fn a_circle_resting_on_a_segment_stays_put() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_floor(&mut world, 5.0);
    let ball = add_ball(&mut world, 0.3, 0.25, 0.25, Material::default());
    let (drift, late_speed, turn) = watch_rest(&mut world, ball, 10.0);
    assert!(drift < 1e-3, "drifted {drift} m");
    assert!(late_speed < 1e-3, "jitters at {late_speed} m/s");
    assert!(turn < 1e-3, "turned {turn} rad");
}

#[test]
fn a_capsule_resting_on_a_segment_stays_put() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_floor(&mut world, 5.0);
    let pill = add_body(
        &mut world,
        BodyDef::dynamic().position(-0.7, 0.15),
        capsule(0.5, 0.15),
        Material::default(),
    );
    let (drift, late_speed, turn) = watch_rest(&mut world, pill, 10.0);
    assert!(drift < 1e-3, "drifted {drift} m");
    assert!(late_speed < 1e-3, "jitters at {late_speed} m/s");
    assert!(turn < 1e-3, "tilted {turn} rad");
}

/// Drops a ball whose bottom starts `height` above a floor and returns the
/// height of its bottom at the top of the first rebound.
fn rebound_height(restitution: f32, height: f32) -> f32 {
    let r = 0.1;
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_floor(&mut world, 5.0);
    let ball = add_ball(&mut world, 0.0, height + r, r, bouncy(restitution));
    let mut bounced = false;
    let mut apex = f32::NEG_INFINITY;
    for _ in 0..600 {
        world.step();
        let b = world.body(ball).unwrap();
        if !bounced && b.linear_velocity().y > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(b.position().y - r);
            if b.linear_velocity().y < 0.0 {
                break;
            }
        }
    }
    assert!(bounced, "the ball never bounced");
    apex
}

#[test]
fn a_ball_rebounds_to_e_squared_times_the_drop_height() {
    for e in [0.5f32, 0.8] {
        for h in [1.0f32, 3.0] {
            let apex = rebound_height(e, h);
            let expected = e * e * h;
            assert!(
                relative_error(apex, expected) < 0.05,
                "e = {e}, h = {h}: rebound {apex}, expected {expected}"
            );
        }
    }
}

/// A disc released from rest on a 20° incline; returns its acceleration along
/// the slope and the worst mismatch of ω against −v/r, relative to v/r.
fn roll_down_incline(material: Material) -> (f32, f32, f32) {
    let theta = 20f32.to_radians();
    let r = 0.5;
    let down = Vec2::new(theta.cos(), -theta.sin());
    let up_normal = Vec2::new(theta.sin(), theta.cos());
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_wall(&mut world, Vec2::ZERO, 30.0 * down, material);
    let start = 1.0 * down + r * up_normal;
    let disc_body = add_body(
        &mut world,
        BodyDef::dynamic().position(start.x, start.y),
        disc(r),
        material,
    );
    let speed_at = |world: &World| world.body(disc_body).unwrap().linear_velocity().dot(down);
    let mut v1 = 0.0;
    let mut worst_spin = 0.0f32;
    let mut max_spin = 0.0f32;
    for step in 1..=120 {
        world.step();
        let b = world.body(disc_body).unwrap();
        let v = b.linear_velocity().dot(down);
        if step == 30 {
            v1 = speed_at(&world);
        }
        if step >= 30 {
            worst_spin = worst_spin.max((b.angular_velocity() + v / r).abs() / (v / r));
        }
        max_spin = max_spin.max(b.angular_velocity().abs());
    }
    let v2 = speed_at(&world);
    let acceleration = (v2 - v1) / (90.0 / 60.0);
    (acceleration, worst_spin, max_spin)
}

#[test]
fn a_disc_rolls_down_an_incline_at_two_thirds_g_sin_theta() {
    let (a, spin_error, _) = roll_down_incline(Material::default());
    let expected = 2.0 / 3.0 * G * 20f32.to_radians().sin();
    assert!(
        relative_error(a, expected) < 0.03,
        "a = {a}, expected {expected}"
    );
    assert!(spin_error < 0.02, "ω differs from −v/r by {spin_error}");
}

#[test]
fn a_frictionless_disc_slides_at_g_sin_theta_without_spinning() {
    let (a, _, max_spin) = roll_down_incline(frictionless());
    let expected = G * 20f32.to_radians().sin();
    assert!(
        relative_error(a, expected) < 0.03,
        "a = {a}, expected {expected}"
    );
    assert!(max_spin < 1e-3, "spun at {max_spin} rad/s");
}

#[test]
fn equal_elastic_balls_exchange_velocities() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let a = add_body(
        &mut world,
        BodyDef::dynamic().position(-2.0, 0.0).velocity(3.0, 0.0),
        disc(0.5),
        bouncy(1.0),
    );
    let b = add_ball(&mut world, 2.0, 0.0, 0.5, bouncy(1.0));
    let mass = world.body(a).unwrap().mass();
    for _ in 0..120 {
        world.step();
        let p = mass
            * (world.body(a).unwrap().linear_velocity() + world.body(b).unwrap().linear_velocity());
        assert!(
            (p - Vec2::new(3.0 * mass, 0.0)).length() < 1e-4 * 3.0 * mass,
            "momentum {p}"
        );
    }
    let va = world.body(a).unwrap().linear_velocity();
    let vb = world.body(b).unwrap().linear_velocity();
    assert!(va.length() < 0.03, "striker keeps {va}");
    assert!(
        (vb - Vec2::new(3.0, 0.0)).length() < 0.03,
        "target moves at {vb}"
    );
}

#[test]
fn a_perfectly_inelastic_collision_conserves_momentum() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let heavy = add_body(
        &mut world,
        BodyDef::dynamic().position(-2.0, 0.0).velocity(4.0, 0.0),
        disc(0.6),
        frictionless(),
    );
    let light = add_ball(&mut world, 1.0, 0.0, 0.3, frictionless());
    let (m1, m2) = (
        world.body(heavy).unwrap().mass(),
        world.body(light).unwrap().mass(),
    );
    for _ in 0..120 {
        world.step();
    }
    let common = 4.0 * m1 / (m1 + m2);
    for body in [heavy, light] {
        let v = world.body(body).unwrap().linear_velocity();
        assert!(
            (v - Vec2::new(common, 0.0)).length() < 0.01 * common,
            "{v} vs {common}"
        );
    }
}

#[test]
fn a_ball_at_300_m_per_s_does_not_tunnel_through_a_segment() {
    let mut world = world_with_gravity(Vec2::ZERO);
    add_wall(
        &mut world,
        Vec2::new(0.0, -1.0),
        Vec2::new(0.0, 1.0),
        Material::default(),
    );
    let ball = add_body(
        &mut world,
        BodyDef::dynamic().position(-7.0, 0.3).velocity(300.0, 0.0),
        disc(0.1),
        Material::default(),
    );
    for _ in 0..30 {
        world.step();
        let x = world.body(ball).unwrap().position().x;
        assert!(x < -0.1 + 1e-3, "ball passed the wall: x = {x}");
    }
    // It struck the wall and stopped there rather than bouncing off at speed.
    let x = world.body(ball).unwrap().position().x;
    assert!(x > -0.2, "ball stopped short at x = {x}");
}

#[test]
fn a_pooled_step_sweeps_back_every_fast_disc_as_one_thread_does() {
    // 9,000 discs (enough for a step to share its work with a pool) above
    // a long wall, under a gravity so strong that one step carries each
    // through the wall: a contact made at the start of the step cannot
    // foresee it, so only continuous collision stops them, every one.
    let world_of_discs = || {
        let mut world = world_with_gravity(Vec2::new(0.0, -50_000.0));
        let half = 1200.0;
        add_wall(
            &mut world,
            Vec2::new(-half, 0.0),
            Vec2::new(half, 0.0),
            Material::default(),
        );
        for k in 0..9_000 {
            let x = -half + 0.25 * k as f32 + 0.1;
            add_ball(&mut world, x, 1.1, 0.1, Material::default());
        }
        world
    };
    let step_on = |threads: usize| {
        let mut world = world_of_discs();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("thread pool");
        pool.install(|| world.step());
        world
    };
    let (alone, pooled) = (step_on(1), step_on(2));
    assert_eq!(alone.stats().ccd_hits, 9_000);
    assert_eq!(pooled.stats().ccd_hits, 9_000);
    assert_eq!(alone.state_hash(), pooled.state_hash());
    for disc in alone.bodies().skip(1) {
        let y = disc.position().y;
        assert!(y > 0.0 && y < 1.1, "disc {} at y = {y}", disc.index());
    }
}

#[test]
fn circles_never_leave_a_spinning_kinematic_drum() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    let half = 3.0;
    let drum = world
        .create_body(BodyDef::kinematic().angular_velocity(2.0))
        .unwrap();
    let corners = [(-half, -half), (half, -half), (half, half), (-half, half)];
    for i in 0..4 {
        let (a, b) = (corners[i], corners[(i + 1) % 4]);
        let wall = carom::shapes::Segment::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)).unwrap();
        world.add_shape(drum, wall, Material::default()).unwrap();
    }
    let r = 0.2;
    let mut balls = Vec::new();
    for i in 0..10 {
        for j in 0..10 {
            let def = BodyDef::dynamic().position(-2.25 + 0.5 * i as f32, -2.25 + 0.5 * j as f32);
            balls.push(add_body(&mut world, def, disc(r), Material::default()));
        }
    }
    for step in 0..600 {
        world.step();
        let frame = world.body(drum).unwrap().transform();
        for &ball in &balls {
            let p = frame.apply_inverse(world.body(ball).unwrap().position());
            let limit = half - r + 0.02;
            assert!(
                p.x.abs() < limit && p.y.abs() < limit,
                "step {step}: a ball left the drum at {p} (drum frame)"
            );
        }
    }
}

#[test]
fn a_pile_of_circles_comes_to_rest_with_small_overlap() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_box(&mut world, 4.0, 30.0);
    let r = 0.25;
    for row in 0..20 {
        for column in 0..15 {
            let x = -3.5 + 0.52 * column as f32 + if row % 2 == 1 { 0.2 } else { 0.0 };
            let def = BodyDef::dynamic().position(x, 1.0 + 0.6 * row as f32);
            add_body(&mut world, def, disc(r), Material::default());
        }
    }
    for _ in 0..480 {
        world.step();
    }
    let speed = mean_dynamic_speed(&world);
    assert!(speed < 0.05, "mean speed {speed} m/s");
    let overlap = world.max_penetration();
    assert!(overlap < 0.05 * r, "overlap {overlap} m");
}

#[test]
fn capsules_come_to_rest_lying_flat() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_box(&mut world, 16.0, 10.0);
    let mut pills = Vec::new();
    // Spaced well beyond a capsule's length (1.3 m), so that tumbling on
    // landing cannot make one lean on its neighbour: each must lie flat.
    for i in 0..10 {
        let def = BodyDef::dynamic()
            .position(-13.5 + 3.0 * i as f32, 1.0 + 0.2 * i as f32)
            .angle(0.3 * i as f32);
        pills.push(add_body(
            &mut world,
            def,
            capsule(0.5, 0.15),
            Material::default(),
        ));
    }
    for _ in 0..480 {
        world.step();
    }
    assert!(mean_dynamic_speed(&world) < 0.05);
    for pill in pills {
        let b = world.body(pill).unwrap();
        assert!(
            b.angle().sin().abs() < 0.02,
            "capsule at angle {}",
            b.angle()
        );
        assert!(
            (b.position().y - 0.15).abs() < 0.01,
            "capsule at y = {}",
            b.position().y
        );
    }
}

#[test]
fn a_ball_rolls_off_a_half_disc_dome() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_floor(&mut world, 10.0);
    let dome = world.create_body(BodyDef::fixed()).unwrap();
    let half_disc = Sector::new(Vec2::ZERO, 2.0, 0.0, std::f32::consts::PI).unwrap();
    world
        .add_shape(dome, half_disc, Material::default())
        .unwrap();
    let r = 0.25;
    let ball = add_ball(&mut world, 0.05, 2.0 + r, r, Material::default());
    for step in 0..300 {
        world.step();
        let p = world.body(ball).unwrap().position();
        if p.y > 0.0 {
            assert!(
                p.length() > 2.0 + r - 0.02,
                "step {step}: ball sank into the dome at {p}"
            );
        }
    }
    let p = world.body(ball).unwrap().position();
    assert!(
        p.x > 2.0 + r,
        "ball should have rolled off to the right, at {p}"
    );
    assert!(
        (p.y - r).abs() < 0.01,
        "ball should lie on the floor, at {p}"
    );
}

/// A dynamic half disc dropped flat side down with a tilt lands on a corner,
/// rocks, and settles on its flat side; a ball thrown at it never passes
/// into it.
#[test]
fn a_dynamic_half_disc_settles_flat_and_stops_a_ball() {
    let mut world = world_with_gravity(Vec2::new(0.0, -G));
    add_floor(&mut world, 10.0);
    let dome = Sector::new(Vec2::ZERO, 1.0, 0.0, std::f32::consts::PI).unwrap();
    let pie = world
        .create_body(BodyDef::dynamic().position(0.0, 2.0).angle(0.3))
        .unwrap();
    let pie_shape = world.add_shape(pie, dome, Material::default()).unwrap();
    let ball = add_body(
        &mut world,
        BodyDef::dynamic().position(-4.0, 0.3).velocity(5.0, 0.0),
        disc(0.3),
        Material::default(),
    );
    for step in 0..480 {
        world.step();
        let view = world.shape(pie_shape).unwrap();
        let ball_local = view
            .transform()
            .apply_inverse(world.body(ball).unwrap().position());
        let gap = view.shape().signed_distance(ball_local) - 0.3;
        assert!(
            gap > -0.02,
            "step {step}: the ball overlaps the sector by {}",
            -gap
        );
    }
    let b = world.body(pie).unwrap();
    assert!(b.linear_velocity().length() < 0.01 && b.angular_velocity().abs() < 0.01);
    assert!(b.angle().cos() > 0.9999, "rests at angle {}", b.angle());
    let lowest = world.shape(pie_shape).unwrap().aabb().min.y;
    assert!(lowest.abs() < 0.01, "lowest point at {lowest}");
}

/// A ball at rest 1 m above a thin floor, under a gravity so strong that it
/// would cross the floor within one step: no contact exists at the start of
/// that step, so only the time-of-impact sweep can stop it.
fn drop_under_huge_gravity(continuous: bool) -> f32 {
    let mut world = World::new(carom::WorldSettings {
        gravity: Vec2::new(0.0, -50_000.0),
        continuous,
        ..carom::WorldSettings::default()
    })
    .unwrap();
    add_floor(&mut world, 1.0);
    let ball = add_ball(&mut world, 0.0, 1.1, 0.1, Material::default());
    let mut lowest = f32::INFINITY;
    for _ in 0..5 {
        world.step();
        lowest = lowest.min(world.body(ball).unwrap().position().y);
    }
    lowest
}

#[test]
fn time_of_impact_stops_a_ball_that_no_speculative_contact_foresaw() {
    assert!(
        drop_under_huge_gravity(true) > 0.0,
        "the sweep let the ball through"
    );
    // Without the sweep the same ball goes straight through: the test above
    // is exercising the time of impact, not the speculative contact.
    assert!(drop_under_huge_gravity(false) < 0.0);
}

/// More circles than the solver has graph colours strike one body at once,
/// so some of its contacts are solved in the overflow set. With no gravity
/// and no walls, every impulse acts on two bodies in opposite directions,
/// so the total momentum must stay what it was.
#[test]
fn a_body_struck_by_more_circles_than_colours_conserves_momentum() {
    let mut world = world_with_gravity(Vec2::ZERO);
    let mut bodies = vec![add_ball(&mut world, 0.0, 0.0, 4.0, frictionless())];
    let strikers = 60;
    for i in 0..strikers {
        // On the left half of a ring just outside the big disc, moving in.
        let angle =
            std::f32::consts::FRAC_PI_2 + std::f32::consts::PI * (i as f32 + 0.5) / strikers as f32;
        let direction = Vec2::new(angle.cos(), angle.sin());
        let at = 4.15 * direction;
        let v = -2.0 * direction;
        let def = BodyDef::dynamic().position(at.x, at.y).velocity(v.x, v.y);
        bodies.push(add_body(&mut world, def, disc(0.1), frictionless()));
    }
    let momentum = |world: &World| -> Vec2 {
        bodies
            .iter()
            .map(|&b| {
                let body = world.body(b).unwrap();
                body.mass() * body.linear_velocity()
            })
            .sum()
    };
    let before = momentum(&world);
    let mut most_points = 0;
    for _ in 0..30 {
        world.step();
        most_points = most_points.max(world.stats().contact_points);
        let now = momentum(&world);
        assert!(
            (now - before).length() < 1e-4 * before.length(),
            "momentum {now}, was {before}"
        );
    }
    assert!(
        most_points > 40,
        "only {most_points} contact points at once"
    );
}
