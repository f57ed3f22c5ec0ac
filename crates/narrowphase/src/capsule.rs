//! Segments and stadiums placed in the world: a core segment and a radius
//! (zero for a segment), with the support queries the separating-axis
//! routine asks of them.

use carom_shapes::{Segment, Stadium, Transform};
use glam::Vec2;

use crate::convex::Feature;
use crate::face::Face;
use crate::features::{END_A, END_B, SIDE};
use crate::segment_circle::COINCIDENT_NORMAL;
use crate::tolerance::FLAT_SIN;
use crate::vector::unit_and_length;

/// A rounded segment in world space: every point within `radius` of the core `a b`.
///
/// The layout is fixed (`repr(C)`: eight `f32`, in the order of
/// [`PosedCapsule::as_floats`]) so that eight capsules can be moved into
/// SIMD lanes with one transpose.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub(crate) struct PosedCapsule {
    /// First end of the core.
    pub(crate) a: Vec2,
    /// Second end of the core.
    pub(crate) b: Vec2,
    /// Radius around the core, ≥ 0.
    pub(crate) radius: f32,
    /// Unit direction from `a` to `b`, zero for a degenerate core; worked
    /// out once when the capsule is placed, not once per pair.
    pub(crate) axis: Vec2,
    /// Length of the core.
    pub(crate) length: f32,
}

impl PosedCapsule {
    /// The core from the origin to `(1, 0)`, of radius zero.
    pub(crate) const UNIT: PosedCapsule = PosedCapsule {
        a: Vec2::ZERO,
        b: Vec2::X,
        radius: 0.0,
        axis: Vec2::X,
        length: 1.0,
    };

    /// The capsule around the core `a b`.
    pub(crate) fn new(a: Vec2, b: Vec2, radius: f32) -> PosedCapsule {
        let (axis, length) = unit_and_length(b - a).unwrap_or((Vec2::ZERO, 0.0));
        PosedCapsule {
            a,
            b,
            radius,
            axis,
            length,
        }
    }

    /// A segment placed by `xf`.
    pub(crate) fn segment(segment: &Segment, xf: &Transform) -> PosedCapsule {
        PosedCapsule::new(xf.apply(segment.a()), xf.apply(segment.b()), 0.0)
    }

    /// A stadium placed by `xf`.
    pub(crate) fn stadium(stadium: &Stadium, xf: &Transform) -> PosedCapsule {
        let (a, b) = (xf.apply(stadium.a()), xf.apply(stadium.b()));
        PosedCapsule::new(a, b, stadium.radius())
    }

    /// The capsule as eight numbers: `a.x, a.y, b.x, b.y, radius, axis.x,
    /// axis.y, length`.
    #[inline]
    pub(crate) fn as_floats(&self) -> &[f32; 8] {
        // SAFETY: `PosedCapsule` is `repr(C)` with exactly these eight `f32`
        // fields in this order and no padding (checked below), and `f32`
        // has no invalid bit patterns.
        unsafe { &*(self as *const PosedCapsule).cast::<[f32; 8]>() }
    }

    /// The same capsule moved by `offset` (its axis is unchanged).
    pub(crate) fn translated(self, offset: Vec2) -> PosedCapsule {
        PosedCapsule {
            a: self.a + offset,
            b: self.b + offset,
            ..self
        }
    }

    /// The unit direction of the core, `None` when it is degenerate.
    pub(crate) fn direction(&self) -> Option<Vec2> {
        (self.length > 0.0).then_some(self.axis)
    }

    /// The core's unit left normal (+y for a degenerate core).
    pub(crate) fn left_normal(&self) -> Vec2 {
        self.direction().map_or(COINCIDENT_NORMAL, Vec2::perp)
    }

    /// The straight side whose outward normal is `n` (a unit normal of the
    /// core).
    pub(crate) fn side(&self, n: Vec2) -> Face {
        Face {
            start: self.a + self.radius * n,
            end: self.b + self.radius * n,
            normal: n,
            along: self.axis,
            length: self.length,
            id: SIDE,
            end_ids: [END_A, END_B],
        }
    }

    /// `max x·d` over the capsule: the core's further end plus the radius.
    pub(crate) fn support(&self, d: Vec2) -> f32 {
        self.a.dot(d).max(self.b.dot(d)) + self.radius
    }

    /// The outward normals of the two straight sides.
    pub(crate) fn face_normals(&self) -> [Vec2; 2] {
        let n = self.left_normal();
        [n, -n]
    }

    /// A disc holding the capsule, as (centre, radius).
    pub(crate) fn bounding_circle(&self) -> (Vec2, f32) {
        let center = 0.5 * (self.a + self.b);
        (center, 0.5 * self.length + self.radius)
    }

    /// The part of the surface furthest along the unit direction `d`: the
    /// side facing `d` when the core is within [`FLAT_SIN`] of perpendicular
    /// to it, otherwise the cap point of the further end.
    pub(crate) fn support_feature(&self, d: Vec2) -> Feature {
        if let Some(along) = self.direction() {
            if d.dot(along).abs() <= FLAT_SIN {
                let n = along.perp();
                let n = if d.dot(n) >= 0.0 { n } else { -n };
                return Feature::Face(self.side(n));
            }
        }
        let (end, id) = if self.a.dot(d) >= self.b.dot(d) {
            (self.a, END_A)
        } else {
            (self.b, END_B)
        };
        Feature::Point {
            point: end + self.radius * d,
            id,
        }
    }
}

const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<PosedCapsule>() == 32 && align_of::<PosedCapsule>() == 4);
    assert!(offset_of!(PosedCapsule, b) == 8 && offset_of!(PosedCapsule, radius) == 16);
    assert!(offset_of!(PosedCapsule, axis) == 20 && offset_of!(PosedCapsule, length) == 28);
};

#[cfg(test)]
mod tests {
    use super::*;

    fn capsule() -> PosedCapsule {
        PosedCapsule::new(Vec2::new(-1.0, 0.0), Vec2::new(1.0, 0.0), 0.5)
    }

    #[test]
    fn support_adds_the_radius_to_the_further_end() {
        assert_eq!(capsule().support(Vec2::X), 1.5);
        assert_eq!(capsule().support(-Vec2::Y), 0.5);
    }

    #[test]
    fn side_is_a_face_and_ends_are_points() {
        match capsule().support_feature(-Vec2::Y) {
            Feature::Face(f) => {
                assert_eq!(f.normal, -Vec2::Y);
                assert_eq!(f.start, Vec2::new(-1.0, -0.5));
                assert_eq!(f.id, SIDE);
            }
            Feature::Point { .. } => panic!("expected the lower side"),
        }
        match capsule().support_feature(Vec2::new(-1.0, 1.0).normalize()) {
            Feature::Point { point, id } => {
                assert_eq!(id, END_A);
                let expected = Vec2::new(-1.0 - 0.5 / 2f32.sqrt(), 0.5 / 2f32.sqrt());
                assert!((point - expected).length() < 1e-6);
            }
            Feature::Face(_) => panic!("expected the left cap"),
        }
    }
}
