//! Micro-benchmarks of the narrowphase contact routines.
//!
//! Each case collides one fixed, overlapping pair, as the world's contact
//! loop does once per touching pair and step. Run with
//! `cargo bench -p carom-narrowphase`.

use std::f32::consts::{FRAC_PI_2, PI};
use std::hint::black_box;
use std::mem::MaybeUninit;
use std::time::Duration;

use carom_narrowphase::shapes::{Circle, Sector, Segment, Shape, Stadium, Transform, Vec2};
use carom_narrowphase::{
    collide, collide_circle_circle, collide_placed, collide_sector_circle, collide_segment_circle,
    collide_stadium_stadium, ContactManifold, ManifoldBatch, PlacedShape,
};
use criterion::{criterion_group, criterion_main, Criterion};

const MARGIN: f32 = 0.02;

fn circle_circle(c: &mut Criterion) {
    let a = Circle::new(Vec2::ZERO, 0.5).unwrap();
    let b = Circle::new(Vec2::ZERO, 0.4).unwrap();
    let xf_b = Transform::new(Vec2::new(0.6, 0.5), 0.3);
    c.bench_function("circle_circle", |bench| {
        bench.iter(|| {
            collide_circle_circle(
                black_box(&a),
                black_box(&Transform::IDENTITY),
                black_box(&b),
                black_box(&xf_b),
                MARGIN,
            )
        })
    });
}

fn segment_circle(c: &mut Criterion) {
    let wall = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
    let ball = Circle::new(Vec2::ZERO, 0.5).unwrap();
    let xf_b = Transform::from_translation(Vec2::new(1.3, 0.45));
    c.bench_function("segment_circle", |bench| {
        bench.iter(|| {
            collide_segment_circle(
                black_box(&wall),
                black_box(&Transform::IDENTITY),
                black_box(&ball),
                black_box(&xf_b),
                MARGIN,
            )
        })
    });
}

fn stadium_stadium(c: &mut Criterion) {
    let capsule = Stadium::new(Vec2::new(-0.25, 0.0), Vec2::new(0.25, 0.0), 0.15).unwrap();
    let xf_a = Transform::new(Vec2::new(0.0, 0.0), 0.01);
    // Lying on each other: two clipped points.
    let parallel = Transform::new(Vec2::new(0.2, 0.29), 0.0);
    // Crossing at right angles through each other's cores.
    let crossing = Transform::new(Vec2::new(0.05, 0.1), FRAC_PI_2);
    let mut group = c.benchmark_group("stadium_stadium");
    group.bench_function("parallel", |bench| {
        bench.iter(|| {
            collide_stadium_stadium(
                black_box(&capsule),
                black_box(&xf_a),
                black_box(&capsule),
                black_box(&parallel),
                MARGIN,
            )
        })
    });
    group.bench_function("crossing", |bench| {
        bench.iter(|| {
            collide_stadium_stadium(
                black_box(&capsule),
                black_box(&xf_a),
                black_box(&capsule),
                black_box(&crossing),
                MARGIN,
            )
        })
    });
    group.finish();
}

/// The world's path: shapes placed once per step, then collided placed.
fn placed(c: &mut Criterion) {
    let place = |shape: Shape, xf: Transform| PlacedShape::new(&shape, &xf).unwrap();
    let ball_a = place(
        Circle::new(Vec2::ZERO, 0.5).unwrap().into(),
        Transform::IDENTITY,
    );
    let ball_b = place(
        Circle::new(Vec2::ZERO, 0.4).unwrap().into(),
        Transform::new(Vec2::new(0.6, 0.5), 0.3),
    );
    let capsule: Shape = Stadium::new(Vec2::new(-0.25, 0.0), Vec2::new(0.25, 0.0), 0.15)
        .unwrap()
        .into();
    let log_a = place(capsule, Transform::new(Vec2::ZERO, 0.01));
    let log_b = place(capsule, Transform::new(Vec2::new(0.2, 0.29), 0.0));
    let mut group = c.benchmark_group("placed");
    group.bench_function("circle_circle", |bench| {
        bench.iter(|| collide_placed(black_box(&ball_a), black_box(&ball_b), MARGIN))
    });
    group.bench_function("stadium_stadium_parallel", |bench| {
        bench.iter(|| collide_placed(black_box(&log_a), black_box(&log_b), MARGIN))
    });
    group.finish();
}

/// A row of 64 capsule pairs, some flat on each other and some crossed at
/// an angle (so both the one- and two-point cases, in no pattern), one
/// pair at a time against eight at a time with [`ManifoldBatch`].
fn placed_many(c: &mut Criterion) {
    let capsule: Shape = Stadium::new(Vec2::new(-0.25, 0.0), Vec2::new(0.25, 0.0), 0.15)
        .unwrap()
        .into();
    let place = |xf: Transform| PlacedShape::new(&capsule, &xf).unwrap();
    let pairs: Vec<(PlacedShape, PlacedShape)> = (0..64)
        .map(|k| {
            let x = k as f32;
            let turn = if (k * 7) % 5 < 2 { 0.6 } else { 0.02 };
            let b = Transform::new(Vec2::new(x + 0.1 * (k % 3) as f32, 0.29), turn);
            (place(Transform::new(Vec2::new(x, 0.0), 0.0)), place(b))
        })
        .collect();
    let mut out = vec![MaybeUninit::<ContactManifold>::uninit(); pairs.len()];
    let mut group = c.benchmark_group("placed_64_capsule_pairs");
    group.bench_function("one_at_a_time", |bench| {
        bench.iter(|| {
            for (slot, (a, b)) in black_box(&pairs).iter().enumerate() {
                out[slot].write(collide_placed(a, b, MARGIN));
            }
            black_box(&out);
        })
    });
    group.bench_function("batched", |bench| {
        let mut batch = ManifoldBatch::new();
        bench.iter(|| {
            for (slot, (a, b)) in black_box(&pairs).iter().enumerate() {
                batch.collide(a, b, MARGIN, slot, &mut out);
            }
            batch.flush(&mut out);
            black_box(&out);
        })
    });
    group.finish();
}

fn sector_circle(c: &mut Criterion) {
    let convex = Sector::new(Vec2::ZERO, 1.0, 0.0, FRAC_PI_2).unwrap();
    let wide = Sector::new(Vec2::ZERO, 1.0, 0.25 * PI, 1.5 * PI).unwrap();
    let ball = Circle::new(Vec2::ZERO, 0.2).unwrap();
    let xf_b = Transform::from_translation(Vec2::new(0.6, 0.65));
    let mut group = c.benchmark_group("sector_circle");
    group.bench_function("convex", |bench| {
        bench.iter(|| {
            collide_sector_circle(
                black_box(&convex),
                black_box(&Transform::IDENTITY),
                black_box(&ball),
                black_box(&xf_b),
                MARGIN,
            )
        })
    });
    group.bench_function("wide", |bench| {
        bench.iter(|| {
            collide_sector_circle(
                black_box(&wide),
                black_box(&Transform::IDENTITY),
                black_box(&ball),
                black_box(&xf_b),
                MARGIN,
            )
        })
    });
    group.finish();
}

fn dispatch(c: &mut Criterion) {
    let shapes: [Shape; 4] = [
        Circle::new(Vec2::ZERO, 0.3).unwrap().into(),
        Segment::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0))
            .unwrap()
            .into(),
        Stadium::new(Vec2::new(-0.3, 0.0), Vec2::new(0.3, 0.0), 0.2)
            .unwrap()
            .into(),
        Sector::new(Vec2::ZERO, 0.6, 0.2, 2.2).unwrap().into(),
    ];
    let xf_a = Transform::new(Vec2::ZERO, 0.1);
    let xf_b = Transform::new(Vec2::new(0.2, 0.35), -0.7);
    // All 16 ordered pairs per iteration.
    c.bench_function("collide_all_16_pairs", |bench| {
        bench.iter(|| {
            let mut points = 0;
            for a in &shapes {
                for b in &shapes {
                    points += collide(
                        black_box(a),
                        black_box(&xf_a),
                        black_box(b),
                        black_box(&xf_b),
                        MARGIN,
                    )
                    .count;
                }
            }
            points
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
        .sample_size(30);
    targets = circle_circle, segment_circle, stadium_stadium, placed, placed_many, sector_circle, dispatch
}
criterion_main!(benches);
