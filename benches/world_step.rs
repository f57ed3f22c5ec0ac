//! World-step benchmarks: the bundled scenes, and circle piles of growing size.
//!
//! Each measurement is one `World::step` of a world that has already run
//! for a while, so the figures describe a settling pile rather than free fall.
//! Sleeping is off: criterion steps the same world thousands of times, and a
//! pile that fell asleep part-way would make later samples nearly free. The
//! steps are called from criterion's thread, outside any rayon pool, as a
//! program embedding carom would call them.

use std::path::Path;

use carom::scene::Scene;
use carom::shapes::{Circle, Segment};
use carom::{BodyDef, BodyKind, Material, World, WorldSettings};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use glam::Vec2;

/// Keeps every body awake, so each sample does the full step's work.
fn awake(mut world: World) -> World {
    let settings = WorldSettings {
        sleep: false,
        ..*world.settings()
    };
    world.set_settings(settings).expect("valid settings");
    world
}

/// `world` after `steps` steps, so that samples start from a moving pile.
fn warmed_up(mut world: World, steps: usize) -> World {
    for _ in 0..steps {
        world.step();
    }
    world
}

/// Loads a bundled scene and runs it `warmup` steps.
fn scene_world(name: &str, warmup: usize) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(format!("{name}.ron"));
    let scene = Scene::load(&path).expect("bundled scene loads");
    warmed_up(
        awake(scene.build_world().expect("bundled scene builds")),
        warmup,
    )
}

/// A circle pile of `n` bodies (see `Scene::circle_pile`), run `warmup` steps.
fn circle_pile(n: u32, warmup: usize) -> World {
    warmed_up(
        awake(Scene::circle_pile(n).build_world().expect("pile builds")),
        warmup,
    )
}

fn bench_scenes(c: &mut Criterion) {
    let mut group = c.benchmark_group("scene_step");
    group.sample_size(10);
    for name in ["hopper", "capsules", "tumbler"] {
        let mut world = scene_world(name, 120);
        group.bench_function(name, |b| b.iter(|| world.step()));
    }
    group.finish();
}

fn bench_pile_sizes(c: &mut Criterion) {
    let mut group = c.benchmark_group("circle_pile_step");
    group.sample_size(10);
    for n in [1_000u32, 10_000, 100_000] {
        let mut world = circle_pile(n, 120);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| world.step())
        });
    }
    group.finish();
}

/// The circles of a pile of `n` (see `Scene::circle_pile`) created in a
/// shuffled order, in a box of their own, run `warmup` steps: a world whose
/// body order says nothing of where the bodies lie, which the solver
/// answers by ordering them itself.
fn scrambled_pile(n: u32, warmup: usize) -> World {
    let pile = Scene::circle_pile(n).build_world().expect("pile builds");
    let mut circles: Vec<Vec2> = pile
        .bodies()
        .filter(|b| b.kind() == BodyKind::Dynamic)
        .map(|b| b.position())
        .collect();
    // Fisher–Yates, drawing from a fixed linear congruential sequence.
    let mut draw = 12_345_u64;
    for i in (1..circles.len()).rev() {
        draw = draw.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        circles.swap(i, (draw >> 33) as usize % (i + 1));
    }
    let mut world = awake(World::new(*pile.settings()).expect("valid settings"));
    let material = Material::default();
    let half = 1.0 + circles.iter().map(|c| c.x.abs()).fold(0.0, f32::max);
    let corners = [(-half, 40.0), (-half, 0.0), (half, 0.0), (half, 40.0)];
    let corners = corners.map(|(x, y)| Vec2::new(x, y));
    let walls = world.create_body(BodyDef::fixed()).expect("a body");
    for side in corners.windows(2) {
        let wall = Segment::new(side[0], side[1]).expect("a wall");
        world.add_shape(walls, wall, material).expect("a shape");
    }
    for c in circles {
        let body = world
            .create_body(BodyDef::dynamic().position(c.x, c.y))
            .expect("a body");
        let circle = Circle::new(Vec2::ZERO, 0.25).expect("a circle");
        world.add_shape(body, circle, material).expect("a shape");
    }
    warmed_up(world, warmup)
}

fn bench_scrambled_pile(c: &mut Criterion) {
    let mut group = c.benchmark_group("scrambled_pile_step");
    group.sample_size(10);
    let mut world = scrambled_pile(10_000, 120);
    group.bench_function("10000", |b| b.iter(|| world.step()));
    group.finish();
}

criterion_group!(
    benches,
    bench_scenes,
    bench_pile_sizes,
    bench_scrambled_pile
);
criterion_main!(benches);
