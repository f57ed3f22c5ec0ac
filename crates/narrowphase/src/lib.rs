//! Contacts between two posed carom shapes.
//!
//! # The segment–circle offset
//!
//! Everything here grows from one computation, [`segment_circle_offset`]:
//! project a circle's centre onto a segment, clamp to the end points to get
//! the closest point, and if that point is nearer than the radius, push the
//! circle out along `centre − closest` by `radius − distance`.
//!
//! * segment–circle is the offset itself; stadium–circle is the same with
//!   the stadium's radius added; circle–circle has a zero-length core;
//! * segment–stadium and stadium–stadium use the closest points between the
//!   two cores, with two clipped points when the cores lie parallel;
//! * sector–circle takes the offset over the sector's two edges and its arc;
//! * the other sector pairs are solved exactly by separating axes, whose
//!   candidate normals are the faces' normals and the directions between the
//!   shapes' vertices and arc centres;
//! * the exact time of impact of a translating circle is the offset swept
//!   along the circle's path.
//!
//! # Example
//!
//! ```
//! use carom_narrowphase::collide;
//! use carom_narrowphase::shapes::{Circle, Segment, Shape, Transform, Vec2};
//!
//! let floor: Shape = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap().into();
//! let ball: Shape = Circle::new(Vec2::ZERO, 0.5).unwrap().into();
//! let resting = Transform::from_translation(Vec2::new(0.0, 0.45));
//! let m = collide(&floor, &Transform::IDENTITY, &ball, &resting, 0.02);
//! assert_eq!(m.count, 1);
//! assert_eq!(m.normal, Vec2::Y); // from A (the floor) to B (the ball)
//! assert!((m.points[0].separation + 0.05).abs() < 1e-6); // 5 cm of overlap
//! ```
//!
//! # Placing shapes once per step
//!
//! A world collides each shape with several others per step. [`PlacedShape`]
//! holds a circle, segment or stadium already moved into world coordinates,
//! and [`collide_placed`] collides two of them; [`collide()`] goes through the
//! same routine, so both give the same bits.
//!
//! [`ManifoldBatch`] computes many pairs of placed shapes, the pairs of two
//! rounded segments eight at a time in SIMD lanes (on 256-bit AVX registers
//! where the processor has AVX2), with the same bits as [`collide_placed`].
//!
//! # Conventions
//!
//! * The manifold [`normal`](ContactManifold::normal) is a unit vector in
//!   world space pointing **from shape A to shape B**; moving B along it
//!   separates the pair.
//! * A point's `separation` is the signed distance between the surfaces
//!   along the normal: **negative when they overlap**. For convex shapes the
//!   smallest separation of a manifold is the exact signed distance of the
//!   pair (minus the penetration depth when overlapping); a two-point
//!   manifold is used only when it agrees with that to within 0.5 mm.
//! * `margin` (≥ 0) is the speculative distance: points apart by more than
//!   `margin` are dropped, points apart by less are kept with a positive
//!   separation so the solver can stop the shapes before they touch.
//! * Each point's [`point`](ManifoldPoint::point) lies midway between the two
//!   surfaces.
//! * Each point's [`FeatureId`] is built from the feature numbers in
//!   [`features`] and depends only on which parts of the shapes touch, so it
//!   is stable across steps for warm starting.
//!
//! # Degenerate input
//!
//! No routine panics or returns NaN for valid shapes and finite transforms
//! whose points lie less than `f32::MAX` apart (within about ±1.7e38 of each
//! other, so that every difference is finite; the world pairs only shapes
//! whose boxes overlap). [`collide()`] takes a pair farther apart than that
//! as touching nowhere. Where the geometry has no preferred direction, a
//! fixed rule decides:
//!
//! * a circle centred exactly on a segment or stadium core (ends included)
//!   is pushed along the core's left normal `perp(b − a) / |b − a|`;
//! * circles with coincident centres get +y ([`COINCIDENT_NORMAL`]) when A's
//!   radius is at most B's, −y otherwise;
//! * stadium cores that touch or cross are separated across whichever core
//!   line needs the least push, A's left normal first on ties;
//! * a circle centred exactly on a sector's apex is pushed out through the
//!   start edge.
//!
//! Two segments never collide: [`collide()`] returns an empty manifold for
//! them (walls do not touch walls), and [`shape_distance`] their plain
//! distance.
//!
//! # Sectors wider than π
//!
//! Such a sector is not convex. Against a circle it is handled whole, since
//! the nearest boundary point is exact for any sweep. Against other shapes
//! it is split into its two convex halves ([`Sector::convex_parts`]); each
//! half is collided and the manifold of the half with the smaller separation
//! is kept, with [`features::SECOND_HALF`] marking features of the second
//! half. A full disc (sweep 2π) is collided as a circle.
//!
//! [`Sector::convex_parts`]: carom_shapes::Sector::convex_parts
//!
//! # Continuous collision
//!
//! [`time_of_impact`] finds when two moving shapes first come within a
//! target distance, by conservative advancement on [`shape_distance`], with
//! a closed form for translating circles.

#![warn(missing_docs)]

mod batch;
mod capsule;
mod circle;
mod collide;
mod convex;
mod distance;
mod face;
pub mod features;
pub mod lanes;
mod manifold;
mod placed;
mod posed_sector;
mod ray_capsule;
mod sector;
mod sector_circle;
mod segment_circle;
mod segment_pair;
mod separating_axis;
mod stadium;
mod toi;
mod tolerance;
mod vector;

pub use batch::ManifoldBatch;
pub use carom_shapes as shapes;
pub use circle::{collide_circle_circle, collide_segment_circle, collide_stadium_circle};
pub use collide::{collide, collide_near};
pub use distance::{shape_distance, ShapeDistance};
pub use manifold::{ContactManifold, FeatureId, ManifoldPoint};
pub use placed::{collide_placed, PlacedShape};
pub use sector::{collide_sector_sector, collide_sector_segment, collide_sector_stadium};
pub use sector_circle::collide_sector_circle;
pub use segment_circle::{segment_circle_offset, SegmentCircleOffset, COINCIDENT_NORMAL};
pub use segment_pair::{closest_points_between_segments, SegmentPairClosest};
pub use stadium::{collide_segment_stadium, collide_stadium_stadium};
pub use toi::{time_of_impact, Sweep, TimeOfImpact, ToiState};
