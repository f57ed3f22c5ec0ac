use glam::Vec2;
use serde::{Deserialize, Serialize};

/// A rotation stored as the cosine and sine of its angle.
///
/// Keeping `(c, s)` rather than the angle makes applying and composing
/// rotations a handful of multiplies, and keeps the rotation exactly unit
/// length after integration (see [`Rot::integrate`]). The layout is fixed,
/// `c` then `s`, so a solver may load a rotation as two packed floats.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[repr(C)]
pub struct Rot {
    /// Cosine of the angle.
    pub c: f32,
    /// Sine of the angle.
    pub s: f32,
}

impl Default for Rot {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Rot {
    /// The rotation by zero radians.
    pub const IDENTITY: Rot = Rot { c: 1.0, s: 0.0 };

    /// The rotation by `angle` radians, counter-clockwise.
    pub fn from_angle(angle: f32) -> Rot {
        let (s, c) = angle.sin_cos();
        Rot { c, s }
    }

    /// The angle in (−π, π].
    pub fn angle(self) -> f32 {
        self.s.atan2(self.c)
    }

    /// Rotates a vector: `R v`.
    #[inline]
    pub fn rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x - self.s * v.y, self.s * v.x + self.c * v.y)
    }

    /// Rotates a vector backwards: `Rᵀ v`.
    #[inline]
    pub fn inv_rotate(self, v: Vec2) -> Vec2 {
        Vec2::new(self.c * v.x + self.s * v.y, -self.s * v.x + self.c * v.y)
    }

    /// The composition `self ∘ other` (apply `other` first).
    // The name is part of the public API other crates use; an operator impl
    // would be a second spelling of the same thing.
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn mul(self, other: Rot) -> Rot {
        Rot {
            c: self.c * other.c - self.s * other.s,
            s: self.s * other.c + self.c * other.s,
        }
    }

    /// The relative rotation `selfᵀ ∘ other`.
    #[inline]
    pub fn inv_mul(self, other: Rot) -> Rot {
        Rot {
            c: self.c * other.c + self.s * other.s,
            s: self.c * other.s - self.s * other.c,
        }
    }

    /// Advances the rotation by a small angle `da` and renormalises.
    ///
    /// `q' = normalize(q + da · perp(q))` is the first-order update of the
    /// unit complex number `q`; renormalising keeps `c² + s² = 1` without
    /// calling sin or cos in the step loop.
    #[inline]
    pub fn integrate(self, da: f32) -> Rot {
        let c = self.c - da * self.s;
        let s = self.s + da * self.c;
        let inv_len = 1.0 / (c * c + s * s).sqrt();
        Rot {
            c: c * inv_len,
            s: s * inv_len,
        }
    }

    /// The unit x-axis of the rotated frame.
    #[inline]
    pub fn x_axis(self) -> Vec2 {
        Vec2::new(self.c, self.s)
    }
}

/// A rigid transform: rotate by `rotation`, then translate by `translation`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Transform {
    /// Where the frame's origin lands.
    pub translation: Vec2,
    /// How the frame is turned.
    pub rotation: Rot,
}

impl Transform {
    /// The transform that changes nothing.
    pub const IDENTITY: Transform = Transform {
        translation: Vec2::ZERO,
        rotation: Rot::IDENTITY,
    };

    /// A transform from a translation and an angle in radians.
    pub fn new(translation: Vec2, angle: f32) -> Transform {
        Transform {
            translation,
            rotation: Rot::from_angle(angle),
        }
    }

    /// A pure translation.
    pub fn from_translation(translation: Vec2) -> Transform {
        Transform {
            translation,
            rotation: Rot::IDENTITY,
        }
    }

    /// Maps a point from the local frame to the parent frame: `R p + t`.
    #[inline]
    pub fn apply(&self, p: Vec2) -> Vec2 {
        self.rotation.rotate(p) + self.translation
    }

    /// Maps a point from the parent frame into the local frame: `Rᵀ (p − t)`.
    #[inline]
    pub fn apply_inverse(&self, p: Vec2) -> Vec2 {
        self.rotation.inv_rotate(p - self.translation)
    }

    /// The composition `self ∘ other`: first `other`, then `self`.
    #[inline]
    pub fn mul(&self, other: &Transform) -> Transform {
        Transform {
            translation: self.apply(other.translation),
            rotation: self.rotation.mul(other.rotation),
        }
    }

    /// The transform of `other` expressed in the frame of `self`: `self⁻¹ ∘ other`.
    #[inline]
    pub fn inv_mul(&self, other: &Transform) -> Transform {
        Transform {
            translation: self.apply_inverse(other.translation),
            rotation: self.rotation.inv_mul(other.rotation),
        }
    }
}
