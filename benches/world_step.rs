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
use carom::{World, WorldSettings};

/// Keeps every body awake, so each sample does the full step's work.
fn awake(mut world: World) -> World {
    let settings = WorldSettings {
        sleep: false,
        ..*world.settings()
    };
    world.set_settings(settings).expect("valid settings");
    world
}
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

/// Loads a bundled scene and runs it `warmup` steps.
fn scene_world(name: &str, warmup: usize) -> World {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../scenes")
        .join(format!("{name}.ron"));
    let scene = Scene::load(&path).expect("bundled scene loads");
    let mut world = awake(scene.build_world().expect("bundled scene builds"));
    for _ in 0..warmup {
        world.step();
    }
    world
}

/// A circle pile of `n` bodies (see `Scene::circle_pile`), run `warmup` steps.
fn circle_pile(n: u32, warmup: usize) -> World {
    let mut world = awake(Scene::circle_pile(n).build_world().expect("pile builds"));
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
    for n in [1_000u32, 10_000, 100_000] {
        let mut world = circle_pile(n, 120);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| world.step())
        });
    }
    group.finish();
}

criterion_group!(benches, bench_scenes, bench_pile_sizes);
criterion_main!(benches);
