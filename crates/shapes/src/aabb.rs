use glam::Vec2;

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

    /// Whether the two boxes overlap (touching counts).
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.x <= other.max.x
            && other.min.x <= self.max.x
            && self.min.y <= other.max.y
            && other.min.y <= self.max.y
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
}
