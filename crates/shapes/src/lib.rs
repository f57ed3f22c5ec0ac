#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

mod aabb;
mod circle;
mod crossing;
mod error;
mod mass;
mod ray;
mod sector;
mod segment;
mod shape;
mod stadium;
mod transform;

pub use aabb::Aabb;
pub use circle::Circle;
pub use error::ShapeError;
pub use glam::Vec2;
pub use mass::MassProperties;
pub use ray::{Ray, RayHit};
pub use sector::Sector;
pub use segment::{closest_point_on_segment, ClosestPoint, Segment};
pub use shape::{Shape, ShapeKind};
pub use stadium::Stadium;
pub use transform::{Rot, Transform};
