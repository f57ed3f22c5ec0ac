use glam::Vec2;

use crate::Ray;

/// An axis-aligned bounding box, `min ≤ max` component-wise.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Aabb {
    /// Lower-left corner.
    pub min: Vec2,
    /// Upper-right corner.
    pub max: Vec2,
}

impl Aabb {
    /// The box with the given corners.
    #[inline]
    pub fn new(min: Vec2, max: Vec2) -> Aabb {
        Aabb { min, max }
    }

    /// The box around a disc.
    #[inline]
    pub fn around_circle(center: Vec2, radius: f32) -> Aabb {
        let r = Vec2::splat(radius);
        Aabb {
            min: center - r,
            max: center + r,
        }
    }

    /// The smallest box holding both end points of a segment, grown by `radius`.
    #[inline]
    pub fn around_segment(a: Vec2, b: Vec2, radius: f32) -> Aabb {
        let r = Vec2::splat(radius);
        Aabb {
            min: a.min(b) - r,
            max: a.max(b) + r,
        }
    }

    /// The smallest box holding this box and the point `p`.
    #[inline]
    pub fn including(&self, p: Vec2) -> Aabb {
        Aabb {
            min: self.min.min(p),
            max: self.max.max(p),
        }
    }

    /// The smallest box holding both boxes.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: self.min.min(other.min),
            max: self.max.max(other.max),
        }
    }

    /// The box grown by `margin` on every side.
    #[inline]
    pub fn expanded(&self, margin: f32) -> Aabb {
        let m = Vec2::splat(margin);
        Aabb {
            min: self.min - m,
            max: self.max + m,
        }
    }

    /// Whether the two boxes overlap (touching counts). The four compares
    /// are combined without short-circuiting, so the test compiles to no
    /// branch: a broadphase scan runs it on candidates that pass or fail
    /// nearly at random.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        (self.min.x <= other.max.x)
            & (other.min.x <= self.max.x)
            & (self.min.y <= other.max.y)
            & (other.min.y <= self.max.y)
    }

    /// Whether the point lies inside or on the box.
    #[inline]
    pub fn contains_point(&self, p: Vec2) -> bool {
        p.x >= self.min.x && p.x <= self.max.x && p.y >= self.min.y && p.y <= self.max.y
    }

    /// Whether `other` lies wholly inside this box.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.x <= other.min.x
            && self.min.y <= other.min.y
            && other.max.x <= self.max.x
            && other.max.y <= self.max.y
    }

    /// The centre of the box.
    #[inline]
    pub fn center(&self) -> Vec2 {
        0.5 * (self.min + self.max)
    }

    /// Half the size of the box along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vec2 {
        0.5 * (self.max - self.min)
    }

    /// The perimeter, the usual cost measure for bounding-volume trees.
    #[inline]
    pub fn perimeter(&self) -> f32 {
        let d = self.max - self.min;
        2.0 * (d.x + d.y)
    }

    /// The fraction at which the ray enters the box: 0 when it starts inside,
    /// `None` when it misses or the box lies beyond the ray's end.
    ///
    /// Slab test: along each axis the ray is inside the slab `[min, max]` for
    /// `t ∈ [(min − o)/d, (max − o)/d]` (swapped when `d < 0`); the ray is in
    /// the box where all slabs and `[0, 1]` overlap. An axis the ray does not
    /// move along is either always or never inside its slab.
    pub fn ray_entry(&self, ray: &Ray) -> Option<f32> {
        let mut enter = 0.0_f32;
        let mut leave = 1.0_f32;
        for axis in 0..2 {
            let (o, d) = (ray.origin[axis], ray.translation[axis]);
            let (lo, hi) = (self.min[axis], self.max[axis]);
            if d == 0.0 {
                if o < lo || o > hi {
                    return None;
                }
                continue;
            }
            let (t_lo, t_hi) = ((lo - o) / d, (hi - o) / d);
            enter = enter.max(t_lo.min(t_hi));
            leave = leave.min(t_lo.max(t_hi));
        }
        (enter <= leave).then_some(enter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit_box() -> Aabb {
        Aabb::new(Vec2::ZERO, Vec2::ONE)
    }

    fn ray(origin: Vec2, translation: Vec2) -> Ray {
        Ray {
            origin,
            translation,
        }
    }

    #[test]
    fn including_grows_only_where_needed() {
        let grown = unit_box().including(Vec2::new(2.0, 0.5));
        assert_eq!(grown, Aabb::new(Vec2::ZERO, Vec2::new(2.0, 1.0)));
        assert_eq!(unit_box().including(Vec2::splat(0.5)), unit_box());
    }

    #[test]
    fn ray_entry_from_the_left() {
        let r = ray(Vec2::new(-1.0, 0.5), Vec2::new(4.0, 0.0));
        assert_eq!(unit_box().ray_entry(&r), Some(0.25));
    }

    #[test]
    fn ray_entry_diagonal_through_a_corner_region() {
        // Enters x at t = 0.5, y at t = 0.25: the later one wins.
        let r = ray(Vec2::new(-1.0, -0.5), Vec2::new(2.0, 2.0));
        assert_eq!(unit_box().ray_entry(&r), Some(0.5));
    }

    #[test]
    fn ray_entry_is_zero_from_inside() {
        let r = ray(Vec2::splat(0.5), Vec2::new(0.0, 3.0));
        assert_eq!(unit_box().ray_entry(&r), Some(0.0));
    }

    #[test]
    fn ray_entry_misses() {
        let short = ray(Vec2::new(-1.0, 0.5), Vec2::new(0.5, 0.0));
        let beside = ray(Vec2::new(-1.0, 2.0), Vec2::new(4.0, 0.0));
        let away = ray(Vec2::new(-1.0, 0.5), Vec2::new(-4.0, 0.0));
        let still_outside = ray(Vec2::new(-1.0, 0.5), Vec2::ZERO);
        for r in [short, beside, away, still_outside] {
            assert_eq!(unit_box().ray_entry(&r), None, "{r:?}");
        }
    }
}
