//! Questions an embedder asks of the world between steps: what does a ray
//! hit, what lies under a point.
//!
//! Both scan the shapes' bounding boxes (each worked out from its body's
//! pose) before asking the exact shape, so a query costs one box per shape
//! plus exact tests for the few boxes that match. That suits picking, line
//! of sight and tools; a game issuing thousands of queries per frame would
//! want them batched through the broadphase instead.

use carom_shapes::{Ray, RayHit, Vec2};

use crate::body::ShapeHandle;
use crate::world::World;

/// The first shape a ray meets.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RayCastHit {
    /// The shape hit.
    pub shape: ShapeHandle,
    /// Where, with the outward normal and the fraction of the ray's
    /// translation, in world space.
    pub hit: RayHit,
}

impl World {
    /// The first shape hit by `ray` (world space, fraction in [0, 1]).
    /// A ray that starts inside a solid shape does not hit that shape; ties
    /// go to the shape created first.
    pub fn cast_ray(&self, ray: &Ray) -> Option<RayCastHit> {
        let mut best: Option<RayCastHit> = None;
        for s in self.shapes() {
            let reach = best.map_or(1.0, |b| b.hit.fraction);
            if !s.aabb().ray_entry(ray).is_some_and(|entry| entry <= reach) {
                continue;
            }
            if let Some(hit) = s.shape().ray_cast_at(&s.transform(), ray) {
                if best.map_or(true, |b| hit.fraction < b.hit.fraction) {
                    best = Some(RayCastHit {
                        shape: s.handle(),
                        hit,
                    });
                }
            }
        }
        best
    }

    /// Every shape whose solid area contains the world point `p` (segments
    /// have none), in creation order.
    pub fn shapes_at_point(&self, p: Vec2) -> Vec<ShapeHandle> {
        self.shapes()
            .filter(|s| s.aabb().contains_point(p))
            .filter(|s| s.shape().contains(s.transform().apply_inverse(p)))
            .map(|s| s.handle())
            .collect()
    }
}
