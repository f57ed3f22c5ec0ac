//! World-step benchmarks: the bundled scenes, and circle piles of growing size.
//!
//! Each measurement is one `World::step` of a world that has already run
//! for a while, so the figures describe a settling pile rather than free fall.

use std::path::Path;

use carom::scene::Scene;
use carom::shapes::{Circle, Segment, Vec2};
use carom::{BodyDef, Material, World, WorldSettings};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// Loads a bundled scene and runs it `warmup` steps.
fn scene_world(name: &str, warmup: usize) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(format!("{name}.ron"));
    let scene = Scene::load(&path).expect("bundled scene loads");
    let mut world = scene.build_world().expect("bundled scene builds");
    for _ in 0..warmup {
        world.step();
    }
    world
}

/// `n` circles of radius 0.25 dropped in a square grid into an open box
/// sized so the pile ends about 30 rows deep, run `warmup` steps.
fn circle_pile(n: usize, warmup: usize) -> World {
    let mut world = World::new(WorldSettings::default()).expect("default settings");
    let columns = (n as f32 / 30.0).ceil().max(1.0) as usize;
    let half_width = 0.3 * columns as f32 + 1.0;
    let walls = world.create_body(BodyDef::fixed()).expect("body");
    let m = Material::default();
    for (a, b) in [
        ((-half_width, 0.0), (half_width, 0.0)),
        ((-half_width, 0.0), (-half_width, 1000.0)),
        ((half_width, 0.0), (half_width, 1000.0)),
    ] {
        let wall = Segment::new(Vec2::new(a.0, a.1), Vec2::new(b.0, b.1)).expect("wall");
        world.add_shape(walls, wall, m).expect("shape");
    }
    let circle = Circle::new(Vec2::ZERO, 0.25).expect("circle");
    for i in 0..n {
        let (row, column) = (i / columns, i % columns);
        let x = -half_width + 0.7 + 0.6 * column as f32;
        let def = BodyDef::dynamic().position(x, 1.0 + 0.6 * row as f32);
        let body = world.create_body(def).expect("body");
        world.add_shape(body, circle, m).expect("shape");
    }
    for _ in 0..warmup {
        world.step();
    }
    world
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
    for n in [1_000usize, 10_000] {
        let mut world = circle_pile(n, 60);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| world.step())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_scenes, bench_pile_sizes);
criterion_main!(benches);
