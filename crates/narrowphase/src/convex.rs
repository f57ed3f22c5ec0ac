//! The convex pieces the separating-axis routine works on: a rounded segment
//! (segment or stadium) or a sector of sweep at most π.

use glam::Vec2;

use crate::capsule::PosedCapsule;
use crate::face::Face;
use crate::posed_sector::PosedSector;

/// A convex shape in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum ConvexPiece {
    /// A segment (radius 0) or a stadium.
    Capsule(PosedCapsule),
    /// A sector whose sweep is at most π.
    Sector(PosedSector),
}

/// The part of a piece's surface furthest along some direction.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Feature {
    /// A single surface point (a vertex, or a point of an arc or cap).
    Point {
        /// The point.
        point: Vec2,
        /// Its feature number.
        id: u8,
    },
    /// A straight face lying (nearly) across the direction.
    Face(Face),
}

impl Feature {
    /// The feature number.
    pub(crate) fn id(&self) -> u8 {
        match self {
            Feature::Point { id, .. } => *id,
            Feature::Face(face) => face.id,
        }
    }
}

/// Up to three points of a piece: its vertices and the centres of its arcs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Anchors {
    points: [Vec2; 3],
    count: usize,
}

impl Anchors {
    /// The meaningful points.
    pub(crate) fn as_slice(&self) -> &[Vec2] {
        &self.points[..self.count]
    }
}

impl ConvexPiece {
    /// The same piece moved by `offset`.
    pub(crate) fn translated(self, offset: Vec2) -> ConvexPiece {
        match self {
            ConvexPiece::Capsule(c) => ConvexPiece::Capsule(c.translated(offset)),
            ConvexPiece::Sector(s) => ConvexPiece::Sector(s.translated(offset)),
        }
    }

    /// `max x·d` over the piece, for a unit direction `d`.
    pub(crate) fn support(&self, d: Vec2) -> f32 {
        match self {
            ConvexPiece::Capsule(c) => c.support(d),
            ConvexPiece::Sector(s) => s.support(d),
        }
    }

    /// The outward normals of the piece's straight faces.
    pub(crate) fn face_normals(&self) -> [Vec2; 2] {
        match self {
            ConvexPiece::Capsule(c) => c.face_normals(),
            ConvexPiece::Sector(s) => [s.start_edge_normal(), s.end_edge_normal()],
        }
    }

    /// The vertices and arc centres: the two core ends of a capsule (the
    /// centres of its caps), the apex and corners of a sector.
    pub(crate) fn anchors(&self) -> Anchors {
        match self {
            ConvexPiece::Capsule(c) => Anchors {
                points: [c.a, c.b, c.b],
                count: 2,
            },
            ConvexPiece::Sector(s) => Anchors {
                points: s.anchors(),
                count: 3,
            },
        }
    }

    /// The part of the surface furthest along the unit direction `d`.
    pub(crate) fn support_feature(&self, d: Vec2) -> Feature {
        match self {
            ConvexPiece::Capsule(c) => c.support_feature(d),
            ConvexPiece::Sector(s) => s.support_feature(d),
        }
    }

    /// A disc holding the piece, as (centre, radius).
    pub(crate) fn bounding_circle(&self) -> (Vec2, f32) {
        match self {
            ConvexPiece::Capsule(c) => c.bounding_circle(),
            ConvexPiece::Sector(s) => (s.apex, s.radius),
        }
    }
}
