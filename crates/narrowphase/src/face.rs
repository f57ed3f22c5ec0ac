//! Two-point contacts between two straight faces lying flat on each other.
//!
//! One face is the reference, the other the incident face. The incident face
//! is cut to the slab of points that project onto the reference face, and
//! each cut end becomes a contact point, its separation measured from the
//! reference face along the reference face's outward normal. This is the
//! clipping step of the classic polygon manifold, for a single edge.

use glam::Vec2;

use crate::tolerance::MIN_CLIP_LENGTH;
use crate::vector::unit_and_length;
use crate::{ContactManifold, FeatureId, ManifoldPoint};

/// A straight piece of a shape's surface.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Face {
    /// One end, on the surface.
    pub(crate) start: Vec2,
    /// The other end, on the surface.
    pub(crate) end: Vec2,
    /// The unit outward normal.
    pub(crate) normal: Vec2,
    /// The unit direction from `start` to `end`, and the face's length
    /// (zero for a face of no length).
    pub(crate) along: Vec2,
    pub(crate) length: f32,
    /// The feature number of the face itself.
    pub(crate) id: u8,
    /// The feature numbers of `start` and `end`.
    pub(crate) end_ids: [u8; 2],
}

impl Face {
    /// The face from `start` to `end` with outward normal `normal`, its
    /// direction worked out here.
    pub(crate) fn new(start: Vec2, end: Vec2, normal: Vec2, id: u8, end_ids: [u8; 2]) -> Face {
        let (along, length) = unit_and_length(end - start).unwrap_or((Vec2::ZERO, 0.0));
        Face {
            start,
            end,
            normal,
            along,
            length,
            id,
            end_ids,
        }
    }
}

/// Which shape owns the reference face.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Owner {
    /// Shape A: the manifold normal is the reference face's normal.
    A,
    /// Shape B: the manifold normal is the reverse of the reference face's normal.
    B,
}

/// The two-point manifold of `incident` resting on `reference`, its points
/// moved by `offset` (the faces may be given relative to a nearby origin),
/// or `None` when the faces overlap along the reference face by less than
/// [`MIN_CLIP_LENGTH`]. No margin is applied.
pub(crate) fn two_point_manifold(
    reference: &Face,
    incident: &Face,
    owner: Owner,
    offset: Vec2,
) -> Option<ContactManifold> {
    let clipped = clip_to_slab(reference, incident.start, incident.end)?;
    let n = reference.normal;
    let mut manifold = ContactManifold {
        normal: match owner {
            Owner::A => n,
            Owner::B => -n,
        },
        points: [ManifoldPoint::default(); 2],
        count: 2,
    };
    for (slot, (x, end_id)) in manifold
        .points
        .iter_mut()
        .zip(clipped.into_iter().zip(incident.end_ids))
    {
        // Height of the incident surface point above the reference face; the
        // contact point lies halfway between it and its foot on the face.
        let separation = (x - reference.start).dot(n);
        *slot = ManifoldPoint {
            point: x - 0.5 * separation * n + offset,
            separation,
            id: match owner {
                Owner::A => FeatureId::new(reference.id, end_id),
                Owner::B => FeatureId::new(end_id, reference.id),
            },
        };
    }
    Some(manifold)
}

/// The part of segment `x0 x1` whose projection on the reference face's
/// line falls within the face, as its two ends (the first derived from
/// `x0`), or `None` when that part is shorter than [`MIN_CLIP_LENGTH`] along
/// the line.
fn clip_to_slab(reference: &Face, x0: Vec2, x1: Vec2) -> Option<[Vec2; 2]> {
    let (r0, along, length) = (reference.start, reference.along, reference.length);
    let s0 = (x0 - r0).dot(along);
    let s1 = (x1 - r0).dot(along);
    let overlap = s0.max(s1).min(length) - s0.min(s1).max(0.0);
    if overlap < MIN_CLIP_LENGTH {
        return None;
    }
    // Moving an end that lies outside [0, length] to the slab boundary: the
    // other end is then inside or beyond the opposite boundary, so the two
    // projections differ and the interpolation fraction is well defined.
    let pull_in = |from: Vec2, s_from: f32, to: Vec2, s_to: f32| {
        if s_from < 0.0 {
            from.lerp(to, -s_from / (s_to - s_from))
        } else if s_from > length {
            from.lerp(to, (s_from - length) / (s_from - s_to))
        } else {
            from
        }
    };
    Some([pull_in(x0, s0, x1, s1), pull_in(x1, s1, x0, s0)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(x: f32, y: f32) -> Vec2 {
        Vec2::new(x, y)
    }

    fn face(start: Vec2, end: Vec2, normal: Vec2) -> Face {
        Face::new(start, end, normal, 7, [1, 2])
    }

    /// Clips `x0 x1` to a reference face from `r0` to `r1`.
    fn clip(r0: Vec2, r1: Vec2, x0: Vec2, x1: Vec2) -> Option<[Vec2; 2]> {
        clip_to_slab(&face(r0, r1, (r1 - r0).perp()), x0, x1)
    }

    #[test]
    fn incident_inside_the_slab_is_kept_whole() {
        let c = clip(v(0.0, 0.0), v(4.0, 0.0), v(1.0, 1.0), v(3.0, 2.0)).unwrap();
        assert_eq!(c, [v(1.0, 1.0), v(3.0, 2.0)]);
    }

    #[test]
    fn incident_is_cut_at_both_slab_ends() {
        let c = clip(v(0.0, 0.0), v(2.0, 0.0), v(3.0, 1.0), v(-1.0, 3.0)).unwrap();
        assert!((c[0] - v(2.0, 1.5)).length() < 1e-6);
        assert!((c[1] - v(0.0, 2.5)).length() < 1e-6);
    }

    #[test]
    fn disjoint_or_barely_touching_projections_give_nothing() {
        assert!(clip(v(0.0, 0.0), v(2.0, 0.0), v(3.0, 1.0), v(5.0, 1.0)).is_none());
        assert!(clip(v(0.0, 0.0), v(2.0, 0.0), v(1.999, 1.0), v(5.0, 1.0)).is_none());
    }

    #[test]
    fn two_points_measure_from_the_reference_face() {
        let reference = face(v(0.0, 0.0), v(4.0, 0.0), v(0.0, 1.0));
        let incident = face(v(1.0, -0.1), v(3.0, 0.3), v(0.0, -1.0));
        let m = two_point_manifold(&reference, &incident, Owner::A, Vec2::ZERO).unwrap();
        assert_eq!(m.normal, v(0.0, 1.0));
        assert!((m.points[0].separation + 0.1).abs() < 1e-6);
        assert!((m.points[1].separation - 0.3).abs() < 1e-6);
        assert!((m.points[0].point - v(1.0, -0.05)).length() < 1e-6);
        assert_eq!(m.points[0].id, FeatureId::new(7, 1));
        assert_eq!(m.points[1].id, FeatureId::new(7, 2));
        let m = two_point_manifold(&reference, &incident, Owner::B, Vec2::ZERO).unwrap();
        assert_eq!(m.normal, v(0.0, -1.0));
        assert_eq!(m.points[1].id, FeatureId::new(2, 7));
    }
}
