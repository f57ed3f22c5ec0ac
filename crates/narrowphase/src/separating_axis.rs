//! Exact contact between two convex pieces by the separating-axis theorem.
//!
//! For convex A and B and a unit direction `d`, let
//!
//! ```text
//! g(d) = min over b in B of b·d  −  max over a in A of a·d
//! ```
//!
//! (how far B's lowest point along `d` lies beyond A's highest). Every `g(d)`
//! is a lower bound on the signed separation, and the maximum over all `d`
//! *is* the signed separation: the distance when the shapes are apart, minus
//! the penetration depth when they overlap, with the maximising `d` as the
//! normal. The maximum is a point of the boundary of the Minkowski
//! difference `B − A` nearest the origin, and for shapes made of straight
//! edges and circular arcs that boundary consists of
//!
//! * an edge of A or B swept along the other shape: its normal is the edge's
//!   outward normal (A's) or its reverse (B's);
//! * an arc or vertex of A against an arc or vertex of B: a circle (or point)
//!   centred on the difference of the two centres, reached along the line
//!   from one centre to the other.
//!
//! So the maximum is found exactly by evaluating `g` on a short candidate
//! list: the face normals of both pieces, and the directions from each
//! vertex or arc centre of A to each of B (for a sector: apex and corners;
//! for a segment or stadium: the two core ends). That is at most 4 + 9
//! candidates, each costing two support evaluations; any candidate whose
//! `g` exceeds the margin ends the search early, since the pair is then at
//! least that far apart.
//!
//! The contact is then read off the features furthest along the normal:
//! two points by clipping when both are straight faces lying flat on each
//! other (kept only if the deeper one reproduces the exact separation), one
//! point midway between the surfaces otherwise.

use glam::Vec2;

use crate::convex::{ConvexPiece, Feature};
use crate::face::{two_point_manifold, Face, Owner};
use crate::tolerance::{REFERENCE_BIAS, TWO_POINT_TOLERANCE};
use crate::vector::unit_and_length;
use crate::{ContactManifold, FeatureId};

/// A candidate normal and the separation of the pair along it.
#[derive(Debug, Clone, Copy)]
struct Axis {
    direction: Vec2,
    separation: f32,
}

/// The contact manifold between two convex pieces, normal from A to B;
/// points separated by more than `margin` are dropped.
pub(crate) fn collide_convex(a: &ConvexPiece, b: &ConvexPiece, margin: f32) -> ContactManifold {
    let (center_a, reach_a) = a.bounding_circle();
    let (center_b, reach_b) = b.bounding_circle();
    if (center_b - center_a).length() - reach_a - reach_b > margin {
        return ContactManifold::EMPTY;
    }
    // Work relative to a point of A so the dot products stay small.
    let origin = a.anchors().as_slice()[0];
    let a = a.translated(-origin);
    let b = b.translated(-origin);
    let Some(axis) = best_axis(&a, &b, margin) else {
        return ContactManifold::EMPTY;
    };
    let mut manifold = contact_on_axis(&a, &b, axis).within_margin(margin);
    for p in &mut manifold.points[..manifold.count] {
        p.point += origin;
    }
    manifold
}

/// `g(d)`: B's lowest extent along `d` minus A's highest.
fn separation_along(a: &ConvexPiece, b: &ConvexPiece, d: Vec2) -> f32 {
    -b.support(-d) - a.support(d)
}

/// The candidate direction with the largest separation (the first on ties),
/// or `None` as soon as some direction separates the pair by more than
/// `margin`.
fn best_axis(a: &ConvexPiece, b: &ConvexPiece, margin: f32) -> Option<Axis> {
    let [a0, a1] = a.face_normals();
    let [b0, b1] = b.face_normals();
    let mut best = Axis {
        direction: a0,
        separation: separation_along(a, b, a0),
    };
    // Returns whether the pair is apart by more than the margin along `d`.
    let mut consider = |d: Vec2| {
        let separation = separation_along(a, b, d);
        if separation > best.separation {
            best = Axis {
                direction: d,
                separation,
            };
        }
        separation > margin
    };
    if consider(a0) || consider(a1) || consider(-b0) || consider(-b1) {
        return None;
    }
    for &p in a.anchors().as_slice() {
        for &q in b.anchors().as_slice() {
            if let Some((d, _)) = unit_and_length(q - p) {
                if consider(d) {
                    return None;
                }
            }
        }
    }
    Some(best)
}

/// The manifold on the best axis, before the margin is applied.
fn contact_on_axis(a: &ConvexPiece, b: &ConvexPiece, axis: Axis) -> ContactManifold {
    let d = axis.direction;
    let feature_a = a.support_feature(d);
    let feature_b = b.support_feature(-d);
    if let (Feature::Face(face_a), Feature::Face(face_b)) = (&feature_a, &feature_b) {
        if let Some(manifold) = flat_contact(a, b, face_a, face_b, axis.separation) {
            return manifold;
        }
    }
    single_point(axis, &feature_a, &feature_b)
}

/// Two points for two faces lying flat on each other: the reference face is
/// A's unless B's separates the pair better by more than [`REFERENCE_BIAS`].
/// `None` when clipping leaves too little, or when the deeper point does not
/// reproduce the exact separation (a tilted face hanging over the end of the
/// other, where the true closest points lie outside the clipped range).
fn flat_contact(
    a: &ConvexPiece,
    b: &ConvexPiece,
    face_a: &Face,
    face_b: &Face,
    exact: f32,
) -> Option<ContactManifold> {
    let along_a = separation_along(a, b, face_a.normal);
    let along_b = separation_along(a, b, -face_b.normal);
    let manifold = if along_a + REFERENCE_BIAS >= along_b {
        two_point_manifold(face_a, face_b, Owner::A, Vec2::ZERO)?
    } else {
        two_point_manifold(face_b, face_a, Owner::B, Vec2::ZERO)?
    };
    let deepest = manifold.deepest()?.separation;
    ((deepest - exact).abs() <= TWO_POINT_TOLERANCE).then_some(manifold)
}

/// One point midway between the surfaces, placed from whichever side's
/// feature is a single point (B's lowest face end when both are faces).
fn single_point(axis: Axis, feature_a: &Feature, feature_b: &Feature) -> ContactManifold {
    let Axis {
        direction: d,
        separation,
    } = axis;
    let (point, id) = match (feature_a, feature_b) {
        (_, Feature::Point { point, id }) => (
            *point - 0.5 * separation * d,
            FeatureId::new(feature_a.id(), *id),
        ),
        (Feature::Point { point, id }, Feature::Face(face_b)) => (
            *point + 0.5 * separation * d,
            FeatureId::new(*id, face_b.id),
        ),
        (Feature::Face(face_a), Feature::Face(face_b)) => {
            let (end, end_id) = if face_b.start.dot(d) <= face_b.end.dot(d) {
                (face_b.start, face_b.end_ids[0])
            } else {
                (face_b.end, face_b.end_ids[1])
            };
            (
                end - 0.5 * separation * d,
                FeatureId::new(face_a.id, end_id),
            )
        }
    };
    ContactManifold::single(d, point, separation, id)
}
