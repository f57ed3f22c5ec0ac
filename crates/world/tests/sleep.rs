//! Sleeping: bodies at rest leave the step, and wake when disturbed.
//!
//! Every test checks a physical outcome (the body stays exactly where it
//! rested, an impulse gives `J/m`, a woken body falls `½gt²`) as well as
//! the sleep state itself.

mod common;

use carom::scene::Scene;
use carom::shapes::{Segment, Vec2};
use carom::{BodyDef, BodyHandle, Material, World, WorldSettings};
use common::{add_ball, add_body, add_floor, add_wall, disc};

const G: f32 = 10.0;
const DT: f32 = 1.0 / 60.0;

fn world(sleep: bool) -> World {
    World::new(WorldSettings {
        gravity: Vec2::new(0.0, -G),
        sleep,
        ..WorldSettings::default()
    })
    .unwrap()
}

/// A ball of radius 0.5 resting on a floor, and how many steps it took to
/// fall asleep (at most `max_steps`).
fn resting_ball(world: &mut World, material: Material, max_steps: usize) -> (BodyHandle, usize) {
    let floor = world.create_body(BodyDef::fixed()).unwrap();
    let segment = Segment::new(Vec2::new(-20.0, 0.0), Vec2::new(20.0, 0.0)).unwrap();
    world.add_shape(floor, segment, material).unwrap();
    let ball = add_ball(world, 0.0, 0.5, 0.5, material);
    let mut steps = 0;
    while steps < max_steps && !world.body(ball).unwrap().is_sleeping() {
        world.step();
        steps += 1;
    }
    (ball, steps)
}

#[test]
fn a_ball_at_rest_falls_asleep_after_the_sleep_time_and_stays_exactly_put() {
    let mut world = world(true);
    let (ball, steps) = resting_ball(&mut world, Material::default(), 300);
    let body = world.body(ball).unwrap();
    assert!(body.is_sleeping(), "still awake after {steps} steps");
    // It must have rested for time_to_sleep first, and not much longer.
    let time_to_sleep = world.settings().time_to_sleep;
    let slept_at = steps as f32 * DT;
    assert!(
        slept_at >= time_to_sleep && slept_at < time_to_sleep + 0.5,
        "slept after {slept_at} s"
    );
    assert_eq!(body.linear_velocity(), Vec2::ZERO);
    assert_eq!(body.angular_velocity(), 0.0);
    assert!((body.position().y - 0.5).abs() < 0.01);
    assert_eq!(world.stats().sleeping_bodies, 1);

    let before = world.state_hash();
    for _ in 0..120 {
        world.step();
    }
    assert_eq!(world.state_hash(), before, "a sleeping body moved");
    assert_eq!(
        world.stats().pairs,
        0,
        "a sleeping world searched for pairs"
    );
    assert_eq!(world.contacts().count(), 1, "the resting contact is kept");
}

#[test]
fn with_sleeping_off_a_resting_ball_never_sleeps() {
    let mut world = world(false);
    let (ball, steps) = resting_ball(&mut world, Material::default(), 300);
    assert_eq!(steps, 300);
    assert!(!world.body(ball).unwrap().is_sleeping());
    assert_eq!(world.stats().sleeping_bodies, 0);
}

#[test]
fn an_impulse_wakes_a_sleeping_ball_and_gives_it_j_over_m() {
    let frictionless = Material {
        friction: 0.0,
        ..Material::default()
    };
    let mut world = world(true);
    let (ball, _) = resting_ball(&mut world, frictionless, 300);
    assert!(world.body(ball).unwrap().is_sleeping());
    let mass = world.body(ball).unwrap().mass();
    let impulse = 2.0;
    let centre = world.body(ball).unwrap().center_of_mass();
    world
        .apply_impulse(ball, Vec2::new(impulse, 0.0), centre)
        .unwrap();
    assert!(!world.body(ball).unwrap().is_sleeping());
    let x0 = world.body(ball).unwrap().position().x;
    let steps = 30;
    for _ in 0..steps {
        world.step();
    }
    // No friction: the ball slides at J/m.
    let body = world.body(ball).unwrap();
    let speed = impulse / mass;
    assert!((body.linear_velocity().x - speed).abs() < 1e-4 * speed);
    let travelled = body.position().x - x0;
    let expected = speed * steps as f32 * DT;
    assert!(
        (travelled - expected).abs() < 1e-3 * expected,
        "{travelled} vs {expected}"
    );
}

/// How far a body starting at rest moves under gravity `G` in `steps`
/// steps: symplectic Euler over `N = steps · substeps` substeps of
/// `h = dt / substeps` gives `g·h²·N(N+1)/2`.
fn free_fall_distance(world: &World, steps: usize) -> f32 {
    let substeps = world.settings().substeps as f32;
    let h = DT / substeps;
    let n = steps as f32 * substeps;
    G * h * h * n * (n + 1.0) / 2.0
}

#[test]
fn removing_the_floor_under_a_sleeping_ball_lets_it_fall_freely() {
    let mut world = world(true);
    let (ball, _) = resting_ball(&mut world, Material::default(), 300);
    assert!(world.body(ball).unwrap().is_sleeping());
    let floor = world.bodies().next().unwrap().handle();
    world.remove_body(floor).unwrap();
    assert!(!world.body(ball).unwrap().is_sleeping());
    let y0 = world.body(ball).unwrap().position().y;
    let steps = 60;
    for _ in 0..steps {
        world.step();
    }
    let expected = free_fall_distance(&world, steps);
    let fallen = y0 - world.body(ball).unwrap().position().y;
    assert!(
        (fallen - expected).abs() < 1e-3 * expected,
        "{fallen} vs {expected}"
    );
}

#[test]
fn turning_gravity_upside_down_wakes_a_sleeping_ball_and_it_rises_freely() {
    let mut world = world(true);
    let (ball, _) = resting_ball(&mut world, Material::default(), 300);
    assert!(world.body(ball).unwrap().is_sleeping());
    let flipped = WorldSettings {
        gravity: Vec2::new(0.0, G),
        ..*world.settings()
    };
    world.set_settings(flipped).unwrap();
    assert!(!world.body(ball).unwrap().is_sleeping());
    let y0 = world.body(ball).unwrap().position().y;
    let steps = 30;
    for _ in 0..steps {
        world.step();
    }
    let expected = free_fall_distance(&world, steps);
    let risen = world.body(ball).unwrap().position().y - y0;
    assert!(
        (risen - expected).abs() < 1e-3 * expected,
        "{risen} vs {expected}"
    );
}

#[test]
fn a_dropped_ball_wakes_a_sleeping_pair_and_settles_in_their_groove() {
    let r = 0.5;
    let mut world = world(true);
    add_floor(&mut world, 20.0);
    // Walls hold the pair together: on an open floor the pair would roll apart.
    for x in [-2.0 * r, 2.0 * r] {
        add_wall(
            &mut world,
            Vec2::new(x, 0.0),
            Vec2::new(x, 3.0),
            Material::default(),
        );
    }
    let left = add_ball(&mut world, -r, r, r, Material::default());
    let right = add_ball(&mut world, r, r, r, Material::default());
    for _ in 0..120 {
        world.step();
    }
    assert!(world.body(left).unwrap().is_sleeping());
    assert!(world.body(right).unwrap().is_sleeping());

    let top = add_ball(&mut world, 0.0, 4.0, r, Material::default());
    let mut woke = false;
    for _ in 0..60 {
        world.step();
        woke |= !world.body(left).unwrap().is_sleeping();
    }
    assert!(woke, "the struck pair never woke");
    for _ in 0..600 {
        world.step();
    }
    // Resting on two touching balls of the same radius, the top centre sits
    // at r + √3·r (an equilateral triangle of side 2r), less the small
    // overlaps a soft contact keeps under load.
    let y = world.body(top).unwrap().position().y;
    let expected = r + 3f32.sqrt() * r;
    assert!(
        (y - expected).abs() < 0.02,
        "top at {y}, expected {expected}"
    );
    for ball in [left, right, top] {
        assert!(
            world.body(ball).unwrap().is_sleeping(),
            "the pile sleeps again"
        );
    }
}

#[test]
fn a_moving_kinematic_paddle_wakes_a_sleeping_ball_and_pushes_it() {
    let mut world = world(true);
    let (ball, _) = resting_ball(&mut world, Material::default(), 300);
    assert!(world.body(ball).unwrap().is_sleeping());
    let speed = 2.0;
    let paddle = add_body(
        &mut world,
        BodyDef::kinematic()
            .position(-3.0, 0.6)
            .velocity(speed, 0.0),
        disc(0.5),
        Material::default(),
    );
    for _ in 0..120 {
        world.step();
    }
    let ball = world.body(ball).unwrap();
    let paddle = world.body(paddle).unwrap();
    assert!(!ball.is_sleeping());
    assert!(
        ball.position().x - paddle.position().x > 0.9,
        "the paddle passed through the ball"
    );
    assert!(ball.position().x > 0.5, "the ball was not pushed");
}

#[test]
fn a_ball_on_a_slow_kinematic_platform_is_carried_and_never_sleeps() {
    let speed = 0.02; // below the sleep speed
    let mut world = world(true);
    let platform = world
        .create_body(BodyDef::kinematic().velocity(speed, 0.0))
        .unwrap();
    let deck = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
    world
        .add_shape(platform, deck, Material::default())
        .unwrap();
    let ball = add_ball(&mut world, 0.0, 0.5, 0.5, Material::default());
    let steps = 180;
    for _ in 0..steps {
        world.step();
        assert!(!world.body(ball).unwrap().is_sleeping());
    }
    // A disc set on a belt moving at u rolls without slipping once friction
    // has acted: the impulse J gives v = J/m and spin ω = J·r/I, and the
    // contact point moves with the belt, v + ω·r = u. With I = m·r²/2 that
    // makes v = u/3.
    let body = world.body(ball).unwrap();
    let v = body.linear_velocity().x;
    assert!(
        (v - speed / 3.0).abs() < 0.02 * speed,
        "v = {v}, expected u/3"
    );
    let x = body.position().x;
    let expected = speed / 3.0 * steps as f32 * DT;
    assert!(
        (x - expected).abs() < 0.05 * expected,
        "carried {x}, expected {expected}"
    );
}

#[test]
fn a_platform_that_starts_moving_as_its_load_would_fall_asleep_keeps_it_awake() {
    // A ball resting on a kinematic platform at rest falls asleep after
    // the sleep time, like one on the ground; find that step.
    let scene = |world: &mut World| {
        let platform = world.create_body(BodyDef::kinematic()).unwrap();
        let deck = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        world
            .add_shape(platform, deck, Material::default())
            .unwrap();
        let ball = add_ball(world, 0.0, 0.5, 0.5, Material::default());
        (platform, ball)
    };
    let mut still = world(true);
    let (_, ball) = scene(&mut still);
    let mut asleep_at = 0;
    while !still.body(ball).unwrap().is_sleeping() {
        assert!(asleep_at < 300, "the ball on a still platform never slept");
        still.step();
        asleep_at += 1;
    }
    // The platform starts to move just before that step: the ball, still
    // slow enough to count as at rest, is now carried and must stay awake.
    let mut world = world(true);
    let (platform, ball) = scene(&mut world);
    for _ in 1..asleep_at {
        world.step();
    }
    world
        .set_linear_velocity(platform, Vec2::new(0.02, 0.0))
        .unwrap();
    for _ in 0..60 {
        world.step();
        assert!(!world.body(ball).unwrap().is_sleeping());
    }
}

#[test]
fn wake_body_wakes_the_whole_island() {
    let r = 0.5;
    let mut world = world(true);
    add_floor(&mut world, 20.0);
    let left = add_ball(&mut world, -r, r, r, Material::default());
    let right = add_ball(&mut world, r, r, r, Material::default());
    for _ in 0..120 {
        world.step();
    }
    assert!(world.body(left).unwrap().is_sleeping() && world.body(right).unwrap().is_sleeping());
    world.wake_body(left).unwrap();
    assert!(!world.body(left).unwrap().is_sleeping());
    assert!(
        !world.body(right).unwrap().is_sleeping(),
        "touching balls share an island"
    );
}

/// An island sleeps only as a whole. Two balls at rest in a row beside a
/// spinning one (all frictionless, so the spin lasts, ω staying constant
/// with no torque, and pushes nothing) share its island through each other
/// and stay awake however long they rest; once the spin stops, all three
/// fall asleep together.
#[test]
fn balls_at_rest_touching_a_spinning_one_through_each_other_stay_awake() {
    let r = 0.5;
    let mut world = world(true);
    let ice = Material {
        friction: 0.0,
        ..Material::default()
    };
    add_wall(&mut world, Vec2::new(-20.0, 0.0), Vec2::new(20.0, 0.0), ice);
    // The ball far from the spinning one comes first, so it is the one
    // the resting pair's island is found through.
    let far = add_ball(&mut world, -2.0 * r, r, r, ice);
    let near = add_ball(&mut world, 0.0, r, r, ice);
    let spin = BodyDef::dynamic()
        .position(2.0 * r, r)
        .angular_velocity(5.0);
    let spinning = add_body(&mut world, spin, disc(r), ice);
    let sleep_speed = world.settings().sleep_linear_speed;
    for _ in 0..180 {
        world.step();
    }
    let body = |h| world.body(h).unwrap();
    assert!((body(spinning).angular_velocity() - 5.0).abs() < 1e-4);
    for resting in [far, near] {
        assert!(body(resting).linear_velocity().length() < sleep_speed);
        assert!(!body(resting).is_sleeping(), "slept beside a spinning ball");
    }
    world.set_angular_velocity(spinning, 0.0).unwrap();
    for _ in 0..60 {
        world.step();
    }
    for h in [far, near, spinning] {
        assert!(world.body(h).unwrap().is_sleeping());
    }
}

#[test]
fn a_partly_sleeping_pile_is_bit_identical_on_one_and_two_threads() {
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let mut world = Scene::circle_pile(1500).build_world().unwrap();
            let mut most_asleep = 0;
            for _ in 0..400 {
                world.step();
                most_asleep = most_asleep.max(world.stats().sleeping_bodies);
            }
            (world.state_hash(), most_asleep)
        })
    };
    let (one, asleep) = run(1);
    let (two, _) = run(2);
    assert!(asleep > 0, "nothing slept, so nothing was tested");
    assert_eq!(one, two, "hashes differ: {one:x} vs {two:x}");
}

#[test]
fn step_stats_count_every_contact_point_of_sleeping_and_moving_bodies() {
    let r = 0.5;
    let mut world = world(true);
    add_floor(&mut world, 20.0);
    let left = add_ball(&mut world, -r, r, r, Material::default());
    add_ball(&mut world, r, r, r, Material::default());
    for _ in 0..120 {
        world.step();
    }
    assert!(world.body(left).unwrap().is_sleeping());
    // A ball falls beside the sleeping pair: for a while the pair's contacts
    // are carried over unchanged while the ball's are made afresh.
    add_ball(&mut world, 3.0, 2.0, r, Material::default());
    let mut counted_frozen = false;
    for _ in 0..90 {
        world.step();
        let stats = world.stats();
        let points: usize = world.contacts().map(|c| c.manifold.count).sum();
        assert_eq!(stats.contact_points, points);
        assert_eq!(stats.manifolds, world.contacts().count());
        counted_frozen |= world.body(left).unwrap().is_sleeping() && stats.contact_points >= 3;
    }
    assert!(
        counted_frozen,
        "no step had both sleeping and moving contacts"
    );
}
