//! Circles, segments and stadiums already placed in the world.
//!
//! A world steps many pairs per shape, so placing each shape once per step
//! and colliding the placed shapes saves transforming both shapes of every
//! pair. [`collide`](crate::collide()) itself goes through here for these
//! kinds, so both ways give the same bits.

use carom_shapes::{Shape, Transform};
use glam::Vec2;

use crate::capsule::PosedCapsule;
use crate::circle::{capsule_circle, circle_circle};
use crate::stadium::collide_capsules;
use crate::ContactManifold;

/// A circle, segment or stadium in world coordinates, made by
/// [`PlacedShape::new`] and read by [`collide_placed`].
///
/// ```
/// use carom_narrowphase::{collide, collide_placed, PlacedShape};
/// use carom_narrowphase::shapes::{Circle, Segment, Shape, Transform, Vec2};
///
/// let ball: Shape = Circle::new(Vec2::ZERO, 0.5).unwrap().into();
/// let floor: Shape = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap().into();
/// let (at, still) = (Transform::from_translation(Vec2::new(0.0, 0.45)), Transform::IDENTITY);
/// let placed = collide_placed(
///     &PlacedShape::new(&floor, &still).unwrap(),
///     &PlacedShape::new(&ball, &at).unwrap(),
///     0.02,
/// );
/// assert_eq!(placed.normal, Vec2::Y);
/// assert_eq!(placed, collide(&floor, &still, &ball, &at, 0.02));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlacedShape(Placed);

/// The kinds a [`PlacedShape`] holds. Segments and stadiums keep the
/// rounded-core form the contact routines take by reference, so colliding
/// them copies nothing.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Placed {
    Circle { center: Vec2, radius: f32 },
    Segment(PosedCapsule),
    Stadium(PosedCapsule),
}

impl PlacedShape {
    /// `shape` placed by `xf`, or `None` for a sector (sectors are collided
    /// from their own frame, see [`collide`](crate::collide())).
    #[inline]
    pub fn new(shape: &Shape, xf: &Transform) -> Option<PlacedShape> {
        Some(PlacedShape(match shape {
            Shape::Circle(c) => Placed::Circle {
                center: xf.apply(c.center()),
                radius: c.radius(),
            },
            Shape::Segment(s) => Placed::Segment(PosedCapsule::segment(s, xf)),
            Shape::Stadium(s) => Placed::Stadium(PosedCapsule::stadium(s, xf)),
            Shape::Sector(_) => return None,
        }))
    }

    /// The rounded core of a segment or stadium, and whether it is a
    /// stadium; `None` for a circle.
    #[inline]
    pub(crate) fn rounded_segment(&self) -> Option<(&PosedCapsule, bool)> {
        match &self.0 {
            Placed::Segment(core) => Some((core, false)),
            Placed::Stadium(core) => Some((core, true)),
            Placed::Circle { .. } => None,
        }
    }
}

/// The contact manifold between two placed shapes, with the conventions of
/// [`collide`](crate::collide()): normal from A to B, points separated by
/// more than `margin` left out, and nothing between two segments.
pub fn collide_placed(a: &PlacedShape, b: &PlacedShape, margin: f32) -> ContactManifold {
    use Placed::{Circle, Segment, Stadium};
    match (&a.0, &b.0) {
        (
            Circle {
                center: ca,
                radius: ra,
            },
            Circle {
                center: cb,
                radius: rb,
            },
        ) => circle_circle(*ca, *ra, *cb, *rb, margin),
        (Segment(core) | Stadium(core), Circle { center, radius }) => {
            capsule_circle([core.a, core.b], core.radius, *center, *radius, margin)
        }
        (Circle { center, radius }, Segment(core) | Stadium(core)) => {
            capsule_circle([core.a, core.b], core.radius, *center, *radius, margin).swapped()
        }
        (Segment(_), Segment(_)) => ContactManifold::EMPTY,
        (Stadium(a), Segment(b)) => collide_capsules(b, a, margin).swapped(),
        (Segment(a) | Stadium(a), Stadium(b)) => collide_capsules(a, b, margin),
    }
}

#[cfg(test)]
mod tests {
    use carom_shapes::{Circle, Sector, Segment, Stadium};

    use super::*;

    #[test]
    fn sectors_are_not_placed() {
        let sector = Sector::new(Vec2::ZERO, 1.0, 0.0, 1.0).unwrap();
        assert_eq!(PlacedShape::new(&sector.into(), &Transform::IDENTITY), None);
        let circle: Shape = Circle::new(Vec2::X, 0.5).unwrap().into();
        let moved: Shape = Circle::new(Vec2::new(1.0, 1.0), 0.5).unwrap().into();
        let xf = Transform::from_translation(Vec2::Y);
        let placed = PlacedShape::new(&circle, &xf);
        assert!(placed.is_some());
        assert_eq!(placed, PlacedShape::new(&moved, &Transform::IDENTITY));
    }

    #[test]
    fn a_segment_lying_on_a_stadium_touches_it_and_walls_never_touch() {
        let wall: Shape = Segment::new(Vec2::new(-2.0, 0.0), Vec2::new(2.0, 0.0))
            .unwrap()
            .into();
        let log: Shape = Stadium::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)
            .unwrap()
            .into();
        let id = Transform::IDENTITY;
        let up = Transform::from_translation(Vec2::new(0.0, 0.45));
        let wall = PlacedShape::new(&wall, &id).unwrap();
        let log = PlacedShape::new(&log, &up).unwrap();
        let m = collide_placed(&wall, &log, 0.0);
        assert_eq!((m.count, m.normal), (2, Vec2::Y));
        let m = collide_placed(&log, &wall, 0.0);
        assert_eq!((m.count, m.normal), (2, -Vec2::Y));
        assert!(collide_placed(&wall, &wall, 1.0).is_empty());
    }
}
