//! Contacts between two posed carom shapes.
//!
//! The heart of this crate is the segment–circle offset in
//! [`segment_circle`]: project the circle's centre onto the segment, clamp to
//! the ends, and push out along `centre − closest` by `radius − distance`.
//! Every other routine is built from it where the geometry allows.
//!
//! Conventions: the manifold normal points from shape A to shape B; a point's
//! separation is negative when the shapes overlap; points apart by less than
//! the speculative `margin` are still reported, with positive separation.

mod manifold;

pub use carom_shapes as shapes;
pub use manifold::{ContactManifold, FeatureId, ManifoldPoint};
