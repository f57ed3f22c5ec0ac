//! carom: a fast, deterministic 2D physics step engine for worlds made of
//! circles, walls (segments), capsules (stadiums) and pie slices (sectors).
//!
//! ```
//! use carom::{BodyDef, Material, World, WorldSettings};
//! use carom::shapes::{Circle, Segment, Vec2};
//!
//! let mut world = World::new(WorldSettings::default()).unwrap();
//! let ground = world.create_body(BodyDef::fixed()).unwrap();
//! let floor = Segment::new(Vec2::new(-10.0, 0.0), Vec2::new(10.0, 0.0)).unwrap();
//! world.add_shape(ground, floor, Material::default()).unwrap();
//!
//! let ball = world.create_body(BodyDef::dynamic().position(0.0, 2.0)).unwrap();
//! world.add_shape(ball, Circle::new(Vec2::ZERO, 0.25).unwrap(), Material::default()).unwrap();
//!
//! for _ in 0..120 {
//!     world.step();
//! }
//! let y = world.body(ball).unwrap().position().y;
//! assert!((y - 0.25).abs() < 0.01, "the ball rests on the floor, y = {y}");
//! ```
//!
//! The layers: [`shapes`] (geometry of one shape) → [`narrowphase`]
//! (contacts between two shapes) → this crate (bodies, broadphase, solver,
//! continuous collision, scenes).

mod body;
mod broadphase;
mod buffer;
mod ccd;
mod collider;
mod contacts;
mod error;
mod graph;
mod hash;
mod mass;
mod query;
mod settings;
mod sleep;
mod solver;
mod threading;
mod tree;
mod world;

#[cfg(feature = "render")]
pub mod render;
pub mod scene;

pub use body::{BodyDef, BodyHandle, BodyKind, Material, ShapeHandle};
pub use carom_narrowphase as narrowphase;
pub use carom_shapes as shapes;
pub use collider::MAX_SHAPE_REACH;
pub use error::WorldError;
pub use query::RayCastHit;
pub use settings::WorldSettings;
pub use world::{
    Advance, BodyRef, ContactView, ShapeRef, StepStats, StepTimings, World, MAX_BODIES,
};

/// The README's Rust examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
