//! Geometry of a single 2D shape, the bottom layer of carom.
//!
//! This crate knows nothing of bodies or contacts. It answers questions about
//! one shape in its own frame (or placed by a [`Transform`]): bounds, closest
//! points, signed distance, containment, ray casts and mass properties.
//!
//! Conventions, shared by every carom crate:
//! - units are metres, kilograms, seconds and radians;
//! - angles grow counter-clockwise, and a rotation is stored as its cosine and
//!   sine ([`Rot`]) so that composing and applying rotations needs no trig;
//! - every constructor validates its input and returns a [`ShapeError`] rather
//!   than building a shape that would later produce NaN.
//!
//! See the crate README for the conventions of each query (normals, rays
//! that start inside, segments, sectors).

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
