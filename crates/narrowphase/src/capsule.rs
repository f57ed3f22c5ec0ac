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
use crate::vector::{left_normal_or, unit_and_length};

/// A rounded segment in world space: every point within `radius` of the core `a b`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PosedCapsule {
    /// First end of the core.
    pub(crate) a: Vec2,
    /// Second end of the core.
    pub(crate) b: Vec2,
    /// Radius around the core, ≥ 0.
    pub(crate) radius: f32,
}

impl PosedCapsule {
    /// A segment placed by `xf`.
    pub(crate) fn segment(segment: &Segment, xf: &Transform) -> PosedCapsule {
        PosedCapsule {
            a: xf.apply(segment.a()),
            b: xf.apply(segment.b()),
            radius: 0.0,
        }
    }

    /// A stadium placed by `xf`.
    pub(crate) fn stadium(stadium: &Stadium, xf: &Transform) -> PosedCapsule {
        PosedCapsule {
            a: xf.apply(stadium.a()),
            b: xf.apply(stadium.b()),
            radius: stadium.radius(),
        }
    }

    /// The same capsule moved by `offset`.
    pub(crate) fn translated(self, offset: Vec2) -> PosedCapsule {
        PosedCapsule {
            a: self.a + offset,
            b: self.b + offset,
            radius: self.radius,
        }
    }

    /// The core's unit left normal (+y for a degenerate core).
    pub(crate) fn left_normal(&self) -> Vec2 {
        left_normal_or(self.a, self.b, COINCIDENT_NORMAL)
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
        (center, 0.5 * (self.b - self.a).length() + self.radius)
    }

    /// The part of the surface furthest along the unit direction `d`: the
    /// side facing `d` when the core is within [`FLAT_SIN`] of perpendicular
    /// to it, otherwise the cap point of the further end.
    pub(crate) fn support_feature(&self, d: Vec2) -> Feature {
        if let Some((along, _)) = unit_and_length(self.b - self.a) {
            if d.dot(along).abs() <= FLAT_SIN {
                let n = along.perp();
                let n = if d.dot(n) >= 0.0 { n } else { -n };
                return Feature::Face(Face {
                    start: self.a + self.radius * n,
                    end: self.b + self.radius * n,
                    normal: n,
                    id: SIDE,
                    end_ids: [END_A, END_B],
                });
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

#[cfg(test)]
mod tests {
    use super::*;

    fn capsule() -> PosedCapsule {
        PosedCapsule {
            a: Vec2::new(-1.0, 0.0),
            b: Vec2::new(1.0, 0.0),
            radius: 0.5,
        }
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
