//! The feature numbers carried in a [`FeatureId`](crate::FeatureId).
//!
//! A contact point's id is `FeatureId::new(feature of A, feature of B)`. The
//! numbers name which part of each shape touches; they depend only on that,
//! so a contact keeps its id from one step to the next while the same parts
//! stay in touch, and the world can warm-start it.
//!
//! Numbers are meaningful only together with the shape kind: a circle's `0`
//! and a segment's `0` name different things.

/// A circle has one feature: its whole boundary.
pub const CIRCLE: u8 = 0;

/// The first end of a segment or of a stadium's core, with the cap around it.
pub const END_A: u8 = 0;
/// The second end of a segment or of a stadium's core, with the cap around it.
pub const END_B: u8 = 1;
/// The straight side of a segment or stadium (the manifold normal tells which
/// side).
pub const SIDE: u8 = 2;

/// A sector's apex.
pub const APEX: u8 = 0;
/// The corner at the outer end of the start edge, `center + radius · start_dir`.
pub const START_CORNER: u8 = 1;
/// The corner at the outer end of the end edge, `center + radius · end_dir`.
pub const END_CORNER: u8 = 2;
/// The straight edge from the apex along `start_dir`. For a half disc
/// (sweep exactly π) it also names the whole diameter.
pub const START_EDGE: u8 = 3;
/// The straight edge from the apex along `end_dir`.
pub const END_EDGE: u8 = 4;
/// The arc.
pub const ARC: u8 = 5;
/// Set (bitwise or) on a sector feature that belongs to the second convex
/// half of a sector whose sweep exceeds π. Each half is a sector of half the
/// sweep, so the first half's [`END_EDGE`] and the second half's
/// `START_EDGE | SECOND_HALF` are both the bisector.
pub const SECOND_HALF: u8 = 8;
