//! Helpers shared by the world tests: small worlds built in code.
#![allow(dead_code)]

#[cfg(feature = "cli")]
pub mod binary;

use carom::shapes::{Circle, Segment, Shape, Stadium, Vec2};
use carom::{BodyDef, BodyHandle, Material, World, WorldSettings};

/// A world with default settings and the given gravity.
pub fn world_with_gravity(gravity: Vec2) -> World {
    World::new(WorldSettings {
        gravity,
        ..WorldSettings::default()
    })
    .expect("default settings are valid")
}

/// Adds a static body holding one segment from `a` to `b`.
pub fn add_wall(world: &mut World, a: Vec2, b: Vec2, material: Material) -> BodyHandle {
    let body = world.create_body(BodyDef::fixed()).unwrap();
    world
        .add_shape(body, Segment::new(a, b).unwrap(), material)
        .unwrap();
    body
}

/// Adds a static floor: a segment along y = 0 from x = −half_width to half_width.
pub fn add_floor(world: &mut World, half_width: f32) -> BodyHandle {
    add_wall(
        world,
        Vec2::new(-half_width, 0.0),
        Vec2::new(half_width, 0.0),
        Material::default(),
    )
}

/// Adds a dynamic disc of radius `r` at `(x, y)`.
pub fn add_ball(world: &mut World, x: f32, y: f32, r: f32, material: Material) -> BodyHandle {
    add_body(world, BodyDef::dynamic().position(x, y), disc(r), material)
}

/// Adds a body with one shape.
pub fn add_body(
    world: &mut World,
    def: BodyDef,
    shape: impl Into<Shape>,
    material: Material,
) -> BodyHandle {
    let body = world.create_body(def).unwrap();
    world.add_shape(body, shape, material).unwrap();
    body
}

/// A disc of radius `r` centred on the body origin.
pub fn disc(r: f32) -> Circle {
    Circle::new(Vec2::ZERO, r).unwrap()
}

/// A horizontal capsule of half-length `half` and radius `r`.
pub fn capsule(half: f32, r: f32) -> Stadium {
    Stadium::new(Vec2::new(-half, 0.0), Vec2::new(half, 0.0), r).unwrap()
}

/// An open box of three walls: floor from −w to w at y = 0, walls up to `height`.
pub fn add_box(world: &mut World, w: f32, height: f32) -> BodyHandle {
    let body = world.create_body(BodyDef::fixed().name("box")).unwrap();
    let m = Material::default();
    for (a, b) in [
        (Vec2::new(-w, 0.0), Vec2::new(w, 0.0)),
        (Vec2::new(-w, 0.0), Vec2::new(-w, height)),
        (Vec2::new(w, 0.0), Vec2::new(w, height)),
    ] {
        world
            .add_shape(body, Segment::new(a, b).unwrap(), m)
            .unwrap();
    }
    body
}

/// Mean speed of the dynamic bodies.
pub fn mean_dynamic_speed(world: &World) -> f32 {
    let speeds: Vec<f32> = world
        .bodies()
        .filter(|b| b.kind() == carom::BodyKind::Dynamic)
        .map(|b| b.linear_velocity().length())
        .collect();
    speeds.iter().sum::<f32>() / speeds.len() as f32
}

/// Relative difference `|x − expected| / |expected|`.
pub fn relative_error(x: f32, expected: f32) -> f32 {
    (x - expected).abs() / expected.abs()
}
