//! A sector placed in the world, and the geometry the contact routines ask
//! of it.
//!
//! The sector is the set of points within `radius` of the apex whose
//! direction from the apex lies counter-clockwise between `start_dir` and
//! `end_dir`. Its boundary is three features: the start edge (apex to
//! `apex + radius · start_dir`), the end edge and the arc. The sector lies to
//! the left of `start_dir` and to the right of `end_dir`, so the edges'
//! outward normals are `−perp(start_dir)` and `perp(end_dir)`.

use std::f32::consts::{PI, TAU};

use carom_shapes::{closest_point_on_segment, Sector, Transform};
use glam::Vec2;

use crate::convex::Feature;
use crate::face::Face;
use crate::features::{APEX, ARC, END_CORNER, END_EDGE, START_CORNER, START_EDGE};
use crate::tolerance::{COLLINEAR_SIN, FLAT_SIN};
use crate::vector::unit_and_length;

/// A sector in world space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct PosedSector {
    /// The apex (centre of the full circle).
    pub(crate) apex: Vec2,
    /// The radius.
    pub(crate) radius: f32,
    /// Unit direction of the start edge.
    pub(crate) start_dir: Vec2,
    /// Unit direction of the end edge.
    pub(crate) end_dir: Vec2,
    /// Counter-clockwise angle from the start edge to the end edge, in (0, 2π].
    pub(crate) sweep: f32,
}

/// The point of a sector's boundary nearest to a query point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct BoundaryPoint {
    /// The nearest boundary point.
    pub(crate) point: Vec2,
    /// Its distance from the query point.
    pub(crate) distance: f32,
    /// Which feature it lies on (a corner or the apex when clamped there).
    pub(crate) feature: u8,
    /// The outward normal of that feature at the point (for the apex and the
    /// corners: the normal of the edge the point was found on).
    pub(crate) outward: Vec2,
}

impl PosedSector {
    /// A sector placed by `xf`.
    pub(crate) fn new(sector: &Sector, xf: &Transform) -> PosedSector {
        PosedSector {
            apex: xf.apply(sector.center()),
            radius: sector.radius(),
            start_dir: xf.rotation.rotate(sector.start_dir()),
            end_dir: xf.rotation.rotate(sector.end_dir()),
            sweep: sector.sweep(),
        }
    }

    /// The same sector moved by `offset`.
    pub(crate) fn translated(self, offset: Vec2) -> PosedSector {
        PosedSector {
            apex: self.apex + offset,
            ..self
        }
    }

    /// Whether the sector is a whole disc (sweep 2π): its edges are then
    /// inside it, not part of its boundary.
    pub(crate) fn is_full_disc(&self) -> bool {
        self.sweep >= TAU
    }

    /// The outer end of the start edge.
    pub(crate) fn start_corner(&self) -> Vec2 {
        self.apex + self.radius * self.start_dir
    }

    /// The outer end of the end edge.
    pub(crate) fn end_corner(&self) -> Vec2 {
        self.apex + self.radius * self.end_dir
    }

    /// The start edge's outward unit normal.
    pub(crate) fn start_edge_normal(&self) -> Vec2 {
        -self.start_dir.perp()
    }

    /// The end edge's outward unit normal.
    pub(crate) fn end_edge_normal(&self) -> Vec2 {
        self.end_dir.perp()
    }

    /// Whether the direction of `v` (any length) lies in the sector's angular
    /// range. Zero counts as inside.
    ///
    /// Up to a sweep of π the range is the directions left of `start_dir`
    /// and right of `end_dir`; beyond π it is everything except the directions
    /// strictly right of `start_dir` and left of `end_dir` (the notch).
    pub(crate) fn contains_direction(&self, v: Vec2) -> bool {
        if self.is_full_disc() {
            return true;
        }
        let after_start = self.start_dir.perp_dot(v) >= 0.0;
        let before_end = v.perp_dot(self.end_dir) >= 0.0;
        if self.sweep <= PI {
            after_start && before_end
        } else {
            after_start || before_end
        }
    }

    /// Whether `p` lies in the sector (boundary included).
    pub(crate) fn contains(&self, p: Vec2) -> bool {
        let v = p - self.apex;
        v.length_squared() <= self.radius * self.radius && self.contains_direction(v)
    }

    /// The boundary point nearest to `p`, over the two edges and the arc
    /// (ties go to the start edge, then the end edge).
    pub(crate) fn nearest_boundary_point(&self, p: Vec2) -> BoundaryPoint {
        let on_start = closest_point_on_segment(self.apex, self.start_corner(), p);
        let mut best = BoundaryPoint {
            point: on_start.point,
            distance: (p - on_start.point).length(),
            feature: edge_feature(on_start.t, START_CORNER, START_EDGE),
            outward: self.start_edge_normal(),
        };
        let on_end = closest_point_on_segment(self.apex, self.end_corner(), p);
        let distance = (p - on_end.point).length();
        if distance < best.distance {
            best = BoundaryPoint {
                point: on_end.point,
                distance,
                feature: edge_feature(on_end.t, END_CORNER, END_EDGE),
                outward: self.end_edge_normal(),
            };
        }
        if let Some((dir, length)) = unit_and_length(p - self.apex) {
            let distance = (length - self.radius).abs();
            if distance < best.distance && self.contains_direction(dir) {
                best = BoundaryPoint {
                    point: self.apex + self.radius * dir,
                    distance,
                    feature: ARC,
                    outward: dir,
                };
            }
        }
        best
    }

    /// `max x·d` over a convex sector (sweep ≤ π): the arc point along `d`
    /// when `d` is in the angular range, else the best of apex and corners.
    pub(crate) fn support(&self, d: Vec2) -> f32 {
        let reach = if self.contains_direction(d) {
            1.0
        } else {
            self.start_dir.dot(d).max(self.end_dir.dot(d)).max(0.0)
        };
        self.apex.dot(d) + self.radius * reach
    }

    /// The part of a convex sector's surface furthest along the unit
    /// direction `d`: an edge when `d` is within [`FLAT_SIN`] of its outward
    /// normal (the whole diameter for a half disc), else the arc point or a
    /// vertex.
    pub(crate) fn support_feature(&self, d: Vec2) -> Feature {
        let start_normal = self.start_edge_normal();
        let end_normal = self.end_edge_normal();
        let start_flat = d.dot(start_normal) > 0.0 && d.dot(self.start_dir).abs() <= FLAT_SIN;
        let end_flat = d.dot(end_normal) > 0.0 && d.dot(self.end_dir).abs() <= FLAT_SIN;
        if start_flat && end_flat && self.start_dir.perp_dot(self.end_dir).abs() <= COLLINEAR_SIN {
            return Feature::Face(Face::new(
                self.end_corner(),
                self.start_corner(),
                start_normal,
                START_EDGE,
                [END_CORNER, START_CORNER],
            ));
        }
        if start_flat && !(end_flat && d.dot(end_normal) > d.dot(start_normal)) {
            return Feature::Face(Face::new(
                self.apex,
                self.start_corner(),
                start_normal,
                START_EDGE,
                [APEX, START_CORNER],
            ));
        }
        if end_flat {
            return Feature::Face(Face::new(
                self.apex,
                self.end_corner(),
                end_normal,
                END_EDGE,
                [APEX, END_CORNER],
            ));
        }
        if self.contains_direction(d) {
            return Feature::Point {
                point: self.apex + self.radius * d,
                id: ARC,
            };
        }
        let mut best = (self.apex, APEX);
        for candidate in [
            (self.start_corner(), START_CORNER),
            (self.end_corner(), END_CORNER),
        ] {
            if candidate.0.dot(d) > best.0.dot(d) {
                best = candidate;
            }
        }
        Feature::Point {
            point: best.0,
            id: best.1,
        }
    }

    /// The vertices and the arc's centre, from which the separating-axis
    /// routine draws candidate directions.
    pub(crate) fn anchors(&self) -> [Vec2; 3] {
        [self.apex, self.start_corner(), self.end_corner()]
    }
}

/// The feature of an edge point at `fraction` from the apex to `corner`.
fn edge_feature(fraction: f32, corner: u8, edge: u8) -> u8 {
    if fraction <= 0.0 {
        APEX
    } else if fraction >= 1.0 {
        corner
    } else {
        edge
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::FRAC_PI_2;

    use super::*;

    fn quarter() -> PosedSector {
        // The quarter disc in the first quadrant, radius 2.
        PosedSector::new(
            &Sector::new(Vec2::ZERO, 2.0, 0.0, FRAC_PI_2).unwrap(),
            &Transform::IDENTITY,
        )
    }

    fn pacman() -> PosedSector {
        // Three quarters of a disc with the notch in the fourth quadrant.
        PosedSector::new(
            &Sector::new(Vec2::ZERO, 1.0, 0.0, 1.5 * PI).unwrap(),
            &Transform::IDENTITY,
        )
    }

    #[test]
    fn directions_of_a_convex_sector() {
        let s = quarter();
        assert!(s.contains_direction(Vec2::new(1.0, 1.0)));
        assert!(s.contains_direction(Vec2::X));
        assert!(!s.contains_direction(Vec2::new(-1.0, -1.0)));
        assert!(!s.contains_direction(Vec2::new(1.0, -0.01)));
    }

    #[test]
    fn directions_of_a_reflex_sector() {
        let s = pacman();
        assert!(s.contains_direction(Vec2::new(-1.0, -1.0)));
        assert!(s.contains_direction(Vec2::new(-1.0, 1.0)));
        assert!(!s.contains_direction(Vec2::new(1.0, -1.0)));
        assert!(s.contains(Vec2::new(-0.5, -0.5)));
        assert!(!s.contains(Vec2::new(0.5, -0.5)));
    }

    #[test]
    fn nearest_boundary_inside_and_out() {
        let s = quarter();
        let b = s.nearest_boundary_point(Vec2::new(1.0, 0.25));
        assert_eq!(b.feature, START_EDGE);
        assert_eq!(b.point, Vec2::new(1.0, 0.0));
        assert_eq!(b.outward, -Vec2::Y);
        let b = s.nearest_boundary_point(Vec2::new(3.0, 4.0));
        assert_eq!(b.feature, ARC);
        assert!((b.distance - 3.0).abs() < 1e-6);
        let b = s.nearest_boundary_point(Vec2::new(-1.0, -1.0));
        assert_eq!(b.feature, APEX);
    }

    #[test]
    fn support_of_a_quarter_disc() {
        let s = quarter();
        assert_eq!(s.support(Vec2::X), 2.0);
        assert!((s.support(Vec2::new(1.0, 1.0).normalize()) - 2.0).abs() < 1e-6);
        assert!(s.support(-Vec2::X).abs() < 1e-6);
        assert!((s.support(Vec2::new(1.0, -1.0).normalize()) - 2f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn support_features() {
        let s = quarter();
        match s.support_feature(-Vec2::Y) {
            Feature::Face(f) => assert_eq!((f.id, f.end_ids), (START_EDGE, [APEX, START_CORNER])),
            Feature::Point { .. } => panic!("expected the start edge"),
        }
        match s.support_feature(-Vec2::X) {
            Feature::Face(f) => assert_eq!(f.id, END_EDGE),
            Feature::Point { .. } => panic!("expected the end edge"),
        }
        assert!(matches!(
            s.support_feature(Vec2::new(1.0, 1.0).normalize()),
            Feature::Point { id: ARC, .. }
        ));
        assert!(matches!(
            s.support_feature(Vec2::new(-1.0, -1.0).normalize()),
            Feature::Point { id: APEX, .. }
        ));
        assert!(matches!(
            s.support_feature(Vec2::new(1.0, -1.0).normalize()),
            Feature::Point {
                id: START_CORNER,
                ..
            }
        ));
    }

    #[test]
    fn a_half_disc_rests_on_its_whole_diameter() {
        let half = PosedSector::new(
            &Sector::new(Vec2::ZERO, 1.0, 0.0, PI).unwrap(),
            &Transform::IDENTITY,
        );
        match half.support_feature(-Vec2::Y) {
            Feature::Face(f) => {
                assert!((f.start - Vec2::new(-1.0, 0.0)).length() < 1e-6);
                assert_eq!(f.end, Vec2::new(1.0, 0.0));
                assert_eq!(f.end_ids, [END_CORNER, START_CORNER]);
            }
            Feature::Point { .. } => panic!("expected the diameter"),
        }
    }
}
