//! Embedding carom: build a world in code, step it, read the bodies back.
//!
//! Run with `cargo run --example embed`.

use carom::shapes::{Circle, Segment, Stadium, Vec2};
use carom::{BodyDef, Material, World, WorldError, WorldSettings};

fn main() -> Result<(), WorldError> {
    let mut world = World::new(WorldSettings::default())?;

    let ground = world.create_body(BodyDef::fixed().name("floor"))?;
    let floor = Segment::new(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0))?;
    world.add_shape(ground, floor, Material::default())?;

    let bouncy = Material {
        restitution: 0.5,
        ..Material::default()
    };
    for i in 0..3 {
        let x = -2.0 + 2.0 * i as f32;
        let ball =
            world.create_body(BodyDef::dynamic().position(x, 3.0 + i as f32).name("ball"))?;
        world.add_shape(ball, Circle::new(Vec2::ZERO, 0.4)?, bouncy)?;
    }

    let capsule = world.create_body(
        BodyDef::dynamic()
            .position(0.5, 6.0)
            .angle(0.3)
            .name("capsule"),
    )?;
    let core = Stadium::new(Vec2::new(-0.6, 0.0), Vec2::new(0.6, 0.0), 0.25)?;
    world.add_shape(capsule, core, Material::default())?;

    let two_seconds = (2.0 / world.settings().dt).round() as u32;
    for _ in 0..two_seconds {
        world.step();
    }

    println!("after {:.2} s:", world.time());
    for body in world.bodies() {
        let p = body.position();
        let name = body.name().unwrap_or("-");
        println!(
            "  {name:8} x {:7.3}  y {:7.3}  angle {:6.3}",
            p.x,
            p.y,
            body.angle()
        );
    }
    Ok(())
}
