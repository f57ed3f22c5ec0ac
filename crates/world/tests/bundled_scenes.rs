//! The bundled benchmark scenes run to completion with every body kept in
//! its container, and the world is bit-identical across runs and thread
//! counts.

use std::path::PathBuf;

use carom::scene::Scene;
use carom::{BodyKind, World};

fn scene_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(format!("{name}.ron"))
}

fn load(name: &str) -> (Scene, World) {
    let scene = Scene::load(scene_path(name)).expect("bundled scene loads");
    let world = scene.build_world().expect("bundled scene builds");
    (scene, world)
}

/// Runs `steps` steps of a world on a pool of `threads` threads and returns
/// the final state hash.
fn hash_after(world: &mut World, steps: usize, threads: usize) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("thread pool");
    pool.install(|| {
        for _ in 0..steps {
            world.step();
        }
    });
    world.state_hash()
}

/// Asserts every dynamic body lies within the open box of the hopper and
/// capsules scenes: floor at y = 0, walls at x = ±40.
fn assert_inside_open_box(world: &World, scene: &str) {
    for b in world.bodies().filter(|b| b.kind() == BodyKind::Dynamic) {
        let p = b.position();
        assert!(
            p.x > -40.0 && p.x < 40.0 && p.y > 0.0 && p.y.is_finite(),
            "{scene}: body {} escaped to {p}",
            b.index()
        );
    }
}

#[test]
fn hopper_runs_to_completion_with_every_circle_in_the_box() {
    let (scene, mut world) = load("hopper");
    for _ in 0..scene.steps {
        world.step();
    }
    assert_inside_open_box(&world, "hopper");
}

#[test]
fn capsules_runs_to_completion_with_every_capsule_in_the_box() {
    let (scene, mut world) = load("capsules");
    for _ in 0..scene.steps {
        world.step();
    }
    assert_inside_open_box(&world, "capsules");
}

#[test]
fn tumbler_keeps_all_circles_inside_the_drum_for_600_steps() {
    let (scene, mut world) = load("tumbler");
    let drum = world.bodies().next().expect("the drum").handle();
    let half = 15.0;
    for step in 0..scene.steps {
        world.step();
        let frame = world.body(drum).unwrap().transform();
        let escaped = world
            .bodies()
            .filter(|b| b.kind() == BodyKind::Dynamic)
            .map(|b| frame.apply_inverse(b.position()))
            .filter(|p| p.x.abs() > half || p.y.abs() > half)
            .count();
        assert_eq!(escaped, 0, "step {step}: {escaped} circles left the drum");
    }
}

#[test]
fn the_same_scene_is_bit_identical_across_runs_and_thread_counts() {
    let steps = 120;
    let hashes: Vec<u64> = [1, 2, 1, 2]
        .into_iter()
        .map(|threads| {
            let (_, mut world) = load("tumbler");
            hash_after(&mut world, steps, threads)
        })
        .collect();
    assert!(
        hashes.windows(2).all(|w| w[0] == w[1]),
        "hashes differ: {hashes:x?}"
    );
    // The state really changed: the hash is not that of the initial world.
    let (_, initial) = load("tumbler");
    assert_ne!(hashes[0], initial.state_hash());
}

#[test]
fn a_settling_pile_is_bit_identical_on_one_and_two_threads() {
    // 240 steps: the hopper's circles have landed and pile up, so every
    // graph colour is full and every solver path (SIMD batches, padded
    // batches, two-point constraints) runs on both threads at once.
    let hashes: Vec<u64> = [1, 2]
        .into_iter()
        .map(|threads| {
            let (_, mut world) = load("hopper");
            hash_after(&mut world, 240, threads)
        })
        .collect();
    assert_eq!(hashes[0], hashes[1], "hashes differ: {hashes:x?}");
}

#[test]
fn a_step_called_from_outside_rayon_gives_the_same_bits_as_one_in_a_pool() {
    // The hopper is large enough to share its steps with rayon's global
    // pool, which it enters once per step from this (non-rayon) thread; the
    // tumbler is small enough to step on this thread alone.
    for (scene, steps) in [("hopper", 120), ("tumbler", 120)] {
        let (_, mut outside) = load(scene);
        for _ in 0..steps {
            outside.step();
        }
        let (_, mut pooled) = load(scene);
        assert_eq!(
            outside.state_hash(),
            hash_after(&mut pooled, steps, 2),
            "{scene}: stepping from outside a pool changed the result"
        );
    }
}

/// A body touching more constraints than there are graph colours sends the
/// extra ones to the overflow set, solved in order after the colours: a big
/// disc buried under a heap of small balls exercises it.
#[test]
fn a_body_with_more_contacts_than_colours_is_solved_deterministically() {
    use carom::shapes::{Circle, Segment, Vec2};
    use carom::{BodyDef, Material, WorldSettings};

    let build = || {
        let mut world = World::new(WorldSettings::default()).unwrap();
        let ground = world.create_body(BodyDef::fixed()).unwrap();
        let floor = Segment::new(Vec2::new(-20.0, 0.0), Vec2::new(20.0, 0.0)).unwrap();
        world.add_shape(ground, floor, Material::default()).unwrap();
        let big = world
            .create_body(BodyDef::dynamic().position(0.0, 3.0))
            .unwrap();
        let disc = Circle::new(Vec2::ZERO, 3.0).unwrap();
        world.add_shape(big, disc, Material::default()).unwrap();
        // A ring of small balls around the disc, several layers deep.
        for layer in 0..4 {
            let radius = 3.2 + 0.4 * layer as f32;
            for k in 0..40 {
                let a = std::f32::consts::PI * (0.05 + 0.9 * k as f32 / 39.0);
                let p = Vec2::new(0.0, 3.0) + radius * Vec2::new(a.cos(), a.sin());
                let ball = world
                    .create_body(BodyDef::dynamic().position(p.x, p.y))
                    .unwrap();
                let shape = Circle::new(Vec2::ZERO, 0.18).unwrap();
                world.add_shape(ball, shape, Material::default()).unwrap();
            }
        }
        (world, big)
    };
    let mut hashes = Vec::new();
    let mut most_contacts_of_big = 0;
    for threads in [1, 2] {
        let (mut world, big) = build();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            for _ in 0..60 {
                world.step();
                let contacts_of_big = world
                    .contacts()
                    .filter(|c| c.body_a == big || c.body_b == big)
                    .count();
                most_contacts_of_big = most_contacts_of_big.max(contacts_of_big);
            }
        });
        for b in world.bodies() {
            assert!(b.position().is_finite() && b.linear_velocity().is_finite());
        }
        hashes.push(world.state_hash());
    }
    assert_eq!(hashes[0], hashes[1]);
    // The constraints of one body need distinct colours: beyond 32 of them,
    // some went to the overflow set.
    assert!(
        most_contacts_of_big > 32,
        "the disc had only {most_contacts_of_big} contacts"
    );
}
