//! Contacts of a sector with a segment, a stadium or another sector.
//!
//! A sector of sweep at most π is convex: the intersection of a disc and a
//! wedge. Against another convex piece its contact is computed exactly by
//! the separating-axis routine (see `separating_axis.rs`): the separation is
//! the largest of `min B·d − max A·d` over the candidate normals, which are
//! the straight faces' normals (the sector's two radial edges, the segment's
//! or stadium's sides, the other sector's edges) and the directions from
//! each vertex or arc centre of one shape to each of the other (apex and
//! corners of a sector, core ends of a segment or stadium). For these shapes
//! the true normal is always one of them, so the answer is exact both when
//! the shapes are apart and when they overlap. When a sector edge lies flat
//! against a segment, a stadium side or another sector's edge, the incident
//! face is clipped against the reference face for two points.
//!
//! A sector wider than π is not convex. It is cut along its bisector into
//! its two convex halves ([`Sector::convex_parts`]); each half is collided
//! on its own and the manifold of the half with the smallest separation is
//! kept (the first half on ties), so the pair's distance is exact whenever
//! the shapes are apart. The half is recorded in the feature ids with
//! [`SECOND_HALF`]. A shape that sinks across the bisector can be pushed
//! back across it, because each half sees the bisector as one of its edges;
//! speculative contacts and continuous collision keep overlaps far too
//! shallow for that in practice.
//!
//! A full disc (sweep 2π) is collided as a circle.

use carom_shapes::{Sector, Segment, Stadium, Transform};

use crate::capsule::PosedCapsule;
use crate::circle::{capsule_circle, circle_circle};
use crate::convex::ConvexPiece;
use crate::features::SECOND_HALF;
use crate::posed_sector::PosedSector;
use crate::sector_circle::sector_circle;
use crate::separating_axis::collide_convex;
use crate::{ContactManifold, FeatureId};

/// Contact between a sector (A) and a segment (B).
pub fn collide_sector_segment(
    a: &Sector,
    xf_a: &Transform,
    b: &Segment,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    sector_capsule(a, xf_a, &PosedCapsule::segment(b, xf_b), margin)
}

/// Contact between a sector (A) and a stadium (B).
pub fn collide_sector_stadium(
    a: &Sector,
    xf_a: &Transform,
    b: &Stadium,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    sector_capsule(a, xf_a, &PosedCapsule::stadium(b, xf_b), margin)
}

/// Contact between two sectors. When both are wider than π, each half of
/// one meets each half of the other, and the deepest of the four is kept.
pub fn collide_sector_sector(
    a: &Sector,
    xf_a: &Transform,
    b: &Sector,
    xf_b: &Transform,
    margin: f32,
) -> ContactManifold {
    let disc_a = PosedSector::new(a, xf_a);
    let disc_b = PosedSector::new(b, xf_b);
    match (disc_a.is_full_disc(), disc_b.is_full_disc()) {
        (true, true) => circle_circle(
            disc_a.apex,
            disc_a.radius,
            disc_b.apex,
            disc_b.radius,
            margin,
        ),
        (true, false) => sector_circle(&disc_b, disc_a.apex, disc_a.radius, margin).swapped(),
        (false, true) => sector_circle(&disc_a, disc_b.apex, disc_b.radius, margin),
        (false, false) => {
            let (halves_a, count_a) = convex_halves(a, xf_a);
            let (halves_b, count_b) = convex_halves(b, xf_b);
            let mut best = ContactManifold::EMPTY;
            for (i, half_a) in halves_a[..count_a].iter().enumerate() {
                for (j, half_b) in halves_b[..count_b].iter().enumerate() {
                    let manifold = collide_convex(
                        &ConvexPiece::Sector(*half_a),
                        &ConvexPiece::Sector(*half_b),
                        margin,
                    );
                    best = deeper(best, tag_halves(manifold, i, j));
                }
            }
            best
        }
    }
}

/// A sector (A) against a segment or stadium (B) in world space.
fn sector_capsule(a: &Sector, xf_a: &Transform, b: &PosedCapsule, margin: f32) -> ContactManifold {
    let whole = PosedSector::new(a, xf_a);
    if whole.is_full_disc() {
        return capsule_circle([b.a, b.b], b.radius, whole.apex, whole.radius, margin).swapped();
    }
    let piece_b = ConvexPiece::Capsule(*b);
    let (halves, count) = convex_halves(a, xf_a);
    let mut best = ContactManifold::EMPTY;
    for (i, half) in halves[..count].iter().enumerate() {
        let manifold = collide_convex(&ConvexPiece::Sector(*half), &piece_b, margin);
        best = deeper(best, tag_halves(manifold, i, 0));
    }
    best
}

/// The sector's convex parts placed by `xf`: itself when its sweep is at
/// most π, else its two halves.
fn convex_halves(sector: &Sector, xf: &Transform) -> ([PosedSector; 2], usize) {
    let (first, second) = sector.convex_parts();
    let first = PosedSector::new(&first, xf);
    match second {
        Some(second) => ([first, PosedSector::new(&second, xf)], 2),
        None => ([first, first], 1),
    }
}

/// Marks the features of second halves (index 1) with [`SECOND_HALF`].
fn tag_halves(mut manifold: ContactManifold, half_a: usize, half_b: usize) -> ContactManifold {
    let bit = |half: usize| if half == 0 { 0 } else { u16::from(SECOND_HALF) };
    let bits = (bit(half_a) << 8) | bit(half_b);
    for p in &mut manifold.points[..manifold.count] {
        p.id = FeatureId(p.id.0 | bits);
    }
    manifold
}

/// The manifold with the smaller minimum separation; `current` on ties.
fn deeper(current: ContactManifold, candidate: ContactManifold) -> ContactManifold {
    let now = current.deepest().map(|p| p.separation);
    let new = candidate.deepest().map(|p| p.separation);
    match (now, new) {
        (None, Some(_)) => candidate,
        (Some(now), Some(new)) if new < now => candidate,
        _ => current,
    }
}

#[cfg(test)]
mod tests {
    use std::f32::consts::{FRAC_PI_2, PI, TAU};

    use glam::Vec2;

    use super::*;
    use crate::features::{
        APEX, ARC, CIRCLE, END_A, END_B, END_EDGE, SIDE, START_CORNER, START_EDGE,
    };

    const ID: Transform = Transform::IDENTITY;

    fn sector(radius: f32, start: f32, sweep: f32) -> Sector {
        Sector::new(Vec2::ZERO, radius, start, sweep).unwrap()
    }

    fn close(a: Vec2, b: Vec2) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn edge_lying_flat_on_a_wall_gives_two_points() {
        // Quarter disc in the first quadrant, its start edge on the floor.
        let wall = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        let xf = Transform::from_translation(Vec2::new(0.0, -0.01));
        let m = collide_sector_segment(&sector(2.0, 0.0, FRAC_PI_2), &xf, &wall, &ID, 0.0);
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, -Vec2::Y);
        for p in m.points() {
            assert!((p.separation + 0.01).abs() < 1e-6);
        }
        assert!(close(m.points[0].point, Vec2::new(0.0, -0.005)));
        assert!(close(m.points[1].point, Vec2::new(2.0, -0.005)));
        assert_eq!(m.points[0].id, FeatureId::new(START_EDGE, END_A));
        assert_eq!(m.points[1].id, FeatureId::new(START_EDGE, END_B));
    }

    #[test]
    fn arc_rolling_on_a_wall_gives_one_point() {
        let wall = Segment::new(Vec2::new(-5.0, 0.0), Vec2::new(5.0, 0.0)).unwrap();
        // Quarter disc pointing down: arc from −135° to −45°.
        let s = sector(1.0, -0.75 * PI, FRAC_PI_2);
        let xf = Transform::from_translation(Vec2::new(0.5, 0.98));
        let m = collide_sector_segment(&s, &xf, &wall, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert!(close(m.normal, -Vec2::Y));
        assert!((m.points[0].separation + 0.02).abs() < 1e-5);
        assert!(close(m.points[0].point, Vec2::new(0.5, -0.01)));
        assert_eq!(m.points[0].id, FeatureId::new(ARC, SIDE));
    }

    #[test]
    fn corner_into_a_stadium_side() {
        // Quarter disc with its start corner dipping into a stadium below.
        let s = sector(1.0, -0.25 * PI, FRAC_PI_2);
        let stadium = Stadium::new(Vec2::new(-2.0, -1.0), Vec2::new(2.0, -1.0), 0.5).unwrap();
        let m = collide_sector_stadium(&s, &ID, &stadium, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, -Vec2::Y);
        let corner_y = -(0.5f32).sqrt();
        assert!((m.points[0].separation - (corner_y + 0.5)).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(START_CORNER, SIDE));
    }

    #[test]
    fn stadium_lying_on_a_sector_edge() {
        // Quarter disc in the first quadrant; a stadium lies along its end edge (x = 0).
        let stadium = Stadium::new(Vec2::new(-0.2, 0.3), Vec2::new(-0.2, 1.7), 0.25).unwrap();
        let m = collide_sector_stadium(&sector(2.0, 0.0, FRAC_PI_2), &ID, &stadium, &ID, 0.0);
        assert_eq!(m.count, 2);
        assert!(close(m.normal, -Vec2::X));
        for p in m.points() {
            assert!((p.separation + 0.05).abs() < 1e-6);
        }
        assert_eq!(m.points[0].id, FeatureId::new(END_EDGE, END_A));
    }

    #[test]
    fn sector_edges_face_to_face() {
        // Two quarter discs: A in the first quadrant, B mirrored into the
        // fourth and lifted so that B's end edge overlaps A's start edge by 0.1.
        let a = sector(1.0, 0.0, FRAC_PI_2);
        let b = sector(1.0, -FRAC_PI_2, FRAC_PI_2);
        let xf_b = Transform::from_translation(Vec2::new(0.5, 0.1));
        let m = collide_sector_sector(&a, &ID, &b, &xf_b, 0.0);
        assert_eq!(m.count, 2);
        assert_eq!(m.normal, -Vec2::Y);
        for p in m.points() {
            assert!((p.separation + 0.1).abs() < 1e-6);
        }
        let xs = [m.points[0].point.x, m.points[1].point.x];
        assert!(xs.contains(&0.5) && xs.contains(&1.0));
    }

    #[test]
    fn arcs_meet_along_the_line_of_apexes() {
        let a = sector(1.0, -0.25 * PI, FRAC_PI_2);
        let b = sector(1.0, 0.75 * PI, FRAC_PI_2);
        let xf_b = Transform::from_translation(Vec2::new(1.9, 0.0));
        let m = collide_sector_sector(&a, &ID, &b, &xf_b, 0.0);
        assert_eq!(m.count, 1);
        assert!(close(m.normal, Vec2::X));
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert!(close(m.points[0].point, Vec2::new(0.95, 0.0)));
        assert_eq!(m.points[0].id, FeatureId::new(ARC, ARC));
    }

    #[test]
    fn apart_by_more_than_the_margin() {
        let a = sector(1.0, 0.0, FRAC_PI_2);
        let b = sector(1.0, PI, FRAC_PI_2);
        let xf_b = Transform::from_translation(Vec2::new(-0.3, 0.0));
        // B fills the third quadrant from (−0.3, 0): the apexes are 0.3 apart.
        assert!(collide_sector_sector(&a, &ID, &b, &xf_b, 0.2).is_empty());
        let m = collide_sector_sector(&a, &ID, &b, &xf_b, 0.5);
        assert_eq!(m.count, 1);
        assert!((m.points[0].separation - 0.3).abs() < 1e-6);
        assert!(close(m.normal, -Vec2::X));
        assert!(close(m.points[0].point, Vec2::new(-0.15, 0.0)));
        // A's end edge is the first candidate to reach 0.3; B's end edge
        // faces it but they do not overlap, so the point is B's apex.
        assert_eq!(m.points[0].id, FeatureId::new(END_EDGE, APEX));
    }

    #[test]
    fn wide_sector_keeps_the_deeper_half_and_tags_it() {
        // Pac-man: 270° from 45°, the mouth facing +x. A wall below it
        // touches only the arc of the second half (angles 180°..315°).
        let pacman = sector(1.0, 0.25 * PI, 1.5 * PI);
        let wall = Segment::new(Vec2::new(-3.0, -0.95), Vec2::new(3.0, -0.95)).unwrap();
        let m = collide_sector_segment(&pacman, &ID, &wall, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert!(close(m.normal, -Vec2::Y));
        assert!((m.points[0].separation + 0.05).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(ARC | SECOND_HALF, SIDE));
        // A wall above touches the first half's arc: no tag.
        let above = Segment::new(Vec2::new(-3.0, 0.95), Vec2::new(3.0, 0.95)).unwrap();
        let m = collide_sector_segment(&pacman, &ID, &above, &ID, 0.0);
        assert_eq!(m.points[0].id, FeatureId::new(ARC, SIDE));
    }

    #[test]
    fn wide_sector_mouth_closing_on_a_stadium() {
        // A small stadium in the pac-man's mouth, touching the upper jaw (the
        // start edge at 45°) from below.
        let pacman = sector(1.0, 0.25 * PI, 1.5 * PI);
        let jaw_normal = Vec2::new(1.0, -1.0).normalize();
        let center = 0.5 * Vec2::new(1.0, 1.0).normalize() + 0.08 * jaw_normal;
        let dir = Vec2::new(1.0, 1.0).normalize();
        let stadium = Stadium::new(center - 0.1 * dir, center + 0.1 * dir, 0.1).unwrap();
        let m = collide_sector_stadium(&pacman, &ID, &stadium, &ID, 0.0);
        assert_eq!(m.count, 2);
        assert!(close(m.normal, jaw_normal));
        for p in m.points() {
            assert!((p.separation + 0.02).abs() < 1e-5);
            assert_eq!(p.id.0 >> 8, u16::from(START_EDGE));
        }
    }

    #[test]
    fn two_wide_sectors_tag_both_halves() {
        let a = sector(1.0, 0.25 * PI, 1.5 * PI);
        let b = sector(1.0, 0.25 * PI, 1.5 * PI);
        // B directly below A, overlapping by 0.1: A's second half meets B's first.
        let xf_b = Transform::from_translation(Vec2::new(0.0, -1.9));
        let m = collide_sector_sector(&a, &ID, &b, &xf_b, 0.0);
        assert_eq!(m.count, 1);
        assert!(close(m.normal, -Vec2::Y));
        assert!((m.points[0].separation + 0.1).abs() < 1e-5);
        assert_eq!(m.points[0].id, FeatureId::new(ARC | SECOND_HALF, ARC));
    }

    #[test]
    fn full_discs_collide_as_circles() {
        let disc = sector(1.0, 0.0, TAU);
        let wall = Segment::new(Vec2::new(-3.0, -0.9), Vec2::new(3.0, -0.9)).unwrap();
        let m = collide_sector_segment(&disc, &ID, &wall, &ID, 0.0);
        assert_eq!(m.count, 1);
        assert_eq!(m.normal, -Vec2::Y);
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(CIRCLE, SIDE));
        let quarter = sector(1.0, 0.0, FRAC_PI_2);
        let m = collide_sector_sector(
            &disc,
            &Transform::from_translation(Vec2::new(-0.5, 0.5)),
            &quarter,
            &ID,
            0.0,
        );
        assert!(close(m.normal, Vec2::X));
        assert!((m.points[0].separation + 0.5).abs() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(CIRCLE, END_EDGE));
    }
}
