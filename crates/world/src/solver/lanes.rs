//! The contact maths of one point, written once over a "lane" type: `f32`
//! for one constraint at a time, or eight constraints side by side (SIMD:
//! `f32x8`, or `Avx8` on processors with AVX2). Every path runs the same
//! operations in the same order, lane by lane (`max` and `min` included,
//! down to the sign of a zero), so a constraint gets the same bits
//! whichever path solves it.

use std::ops::{Add, Div, Mul, Neg, Sub};

use wide::f32x8;

/// A number type the point maths can run on.
pub(crate) trait Lane:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    fn splat(v: f32) -> Self;
    fn max(self, other: Self) -> Self;
    fn min(self, other: Self) -> Self;
    /// Per lane: `if self > 0 { yes } else { no }`.
    fn if_positive(self, yes: Self, no: Self) -> Self;
}

impl Lane for f32 {
    #[inline(always)]
    fn splat(v: f32) -> f32 {
        v
    }
    /// `self > other ? self : other`, the SSE/AVX `max` rule, so that equal
    /// zeros of opposite sign resolve the same way in both paths.
    #[inline(always)]
    fn max(self, other: f32) -> f32 {
        if self > other {
            self
        } else {
            other
        }
    }
    /// `self < other ? self : other`, the SSE/AVX `min` rule.
    #[inline(always)]
    fn min(self, other: f32) -> f32 {
        if self < other {
            self
        } else {
            other
        }
    }
    #[inline(always)]
    fn if_positive(self, yes: f32, no: f32) -> f32 {
        if self > 0.0 {
            yes
        } else {
            no
        }
    }
}

impl Lane for f32x8 {
    #[inline(always)]
    fn splat(v: f32) -> f32x8 {
        f32x8::splat(v)
    }
    /// `maxps`, which is `self > other ? self : other` per lane. (`wide`'s
    /// `max` adds a NaN check that costs a blend; no NaN reaches the solver.)
    #[inline(always)]
    fn max(self, other: f32x8) -> f32x8 {
        f32x8::fast_max(self, other)
    }
    /// `minps`, `self < other ? self : other` per lane.
    #[inline(always)]
    fn min(self, other: f32x8) -> f32x8 {
        f32x8::fast_min(self, other)
    }
    #[inline(always)]
    fn if_positive(self, yes: f32x8, no: f32x8) -> f32x8 {
        self.simd_gt(f32x8::ZERO).select(yes, no)
    }
}

/// A 2-vector of lanes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct V2<L> {
    pub x: L,
    pub y: L,
}

impl<L: Lane> V2<L> {
    #[inline(always)]
    pub fn dot(self, o: V2<L>) -> L {
        self.x * o.x + self.y * o.y
    }
    /// The 2D cross product `self × o`.
    #[inline(always)]
    pub fn perp_dot(self, o: V2<L>) -> L {
        self.x * o.y - self.y * o.x
    }
    #[inline(always)]
    pub fn scale(self, k: L) -> V2<L> {
        V2 {
            x: self.x * k,
            y: self.y * k,
        }
    }
    #[inline(always)]
    pub fn add(self, o: V2<L>) -> V2<L> {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
    #[inline(always)]
    pub fn sub(self, o: V2<L>) -> V2<L> {
        V2 {
            x: self.x - o.x,
            y: self.y - o.y,
        }
    }
    /// `w × r` for a scalar angular velocity `w`: `w · perp(r)`.
    #[inline(always)]
    pub fn cross_scalar(w: L, r: V2<L>) -> V2<L> {
        V2 {
            x: -(w * r.y),
            y: w * r.x,
        }
    }
    /// The vector rotated by the unit complex number `(c, s)`.
    #[inline(always)]
    pub fn rotated(self, c: L, s: L) -> V2<L> {
        V2 {
            x: c * self.x - s * self.y,
            y: s * self.x + c * self.y,
        }
    }
}

/// A body's solver state, as lanes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct StateL<L> {
    pub v: V2<L>,
    pub w: L,
    pub dp: V2<L>,
    pub dq_c: L,
    pub dq_s: L,
}

/// The masses and direction shared by a constraint's points, as lanes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct PairL<L> {
    pub inv_mass_a: L,
    pub inv_inertia_a: L,
    pub inv_mass_b: L,
    pub inv_inertia_b: L,
    pub normal: V2<L>,
}

/// One contact point, as lanes.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct PointL<L> {
    pub anchor_a: V2<L>,
    pub anchor_b: V2<L>,
    pub base_separation: L,
    pub normal_mass: L,
    pub tangent_mass: L,
    pub normal_impulse: L,
    pub tangent_impulse: L,
}

/// The soft-constraint scales in force for a point this pass.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PassL<L> {
    pub inv_h: L,
    pub push_speed: L,
    pub bias_rate: L,
    pub mass_scale: L,
    pub impulse_scale: L,
    pub use_bias: bool,
}

/// Relative velocity of B's anchor to A's, `(v_B + ω_B × r_B) − (v_A + ω_A × r_A)`.
#[inline(always)]
pub(crate) fn relative_velocity<L: Lane>(
    a: &StateL<L>,
    b: &StateL<L>,
    ra: V2<L>,
    rb: V2<L>,
) -> V2<L> {
    b.v.add(V2::cross_scalar(b.w, rb))
        .sub(a.v.add(V2::cross_scalar(a.w, ra)))
}

/// Applies impulse `p` at the anchors: `−p` to A, `+p` to B.
#[inline(always)]
pub(crate) fn apply<L: Lane>(
    m: &PairL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
    ra: V2<L>,
    rb: V2<L>,
    p: V2<L>,
) {
    a.v = a.v.sub(p.scale(m.inv_mass_a));
    a.w = a.w - m.inv_inertia_a * ra.perp_dot(p);
    b.v = b.v.add(p.scale(m.inv_mass_b));
    b.w = b.w + m.inv_inertia_b * rb.perp_dot(p);
}

/// The friction direction: the normal turned 90° clockwise.
#[inline(always)]
pub(crate) fn tangent<L: Lane>(n: V2<L>) -> V2<L> {
    V2 { x: n.y, y: -n.x }
}

/// The normal impulse of one point for one pass (see the module docs of
/// `contact`): updates `p.normal_impulse`, moves the bodies, and returns
/// the impulse applied and the normal velocity before it.
#[inline(always)]
pub(crate) fn solve_normal<L: Lane>(
    m: &PairL<L>,
    p: &mut PointL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
    pass: &PassL<L>,
) -> (L, L) {
    let n = m.normal;
    let zero = L::splat(0.0);
    let one = L::splat(1.0);
    // Current separation from the substep motion, anchors rotated by Δq.
    let prb = p.anchor_b.rotated(b.dq_c, b.dq_s);
    let pra = p.anchor_a.rotated(a.dq_c, a.dq_s);
    let moved = b.dp.sub(a.dp).dot(n);
    let s = p.base_separation + moved + prb.sub(pra).dot(n);
    let (soft_bias, soft_mass, soft_impulse) = if pass.use_bias {
        (
            (pass.bias_rate * s).max(-pass.push_speed),
            pass.mass_scale,
            pass.impulse_scale,
        )
    } else {
        (zero, one, zero)
    };
    // A speculative point (s > 0) closes the gap exactly, at full stiffness.
    let bias = s.if_positive(s * pass.inv_h, soft_bias);
    let mass_scale = s.if_positive(one, soft_mass);
    let impulse_scale = s.if_positive(zero, soft_impulse);
    let vn = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(n);
    let impulse = -(p.normal_mass * (mass_scale * vn + bias)) - impulse_scale * p.normal_impulse;
    let new_total = (p.normal_impulse + impulse).max(zero);
    let applied = new_total - p.normal_impulse;
    p.normal_impulse = new_total;
    apply(m, a, b, p.anchor_a, p.anchor_b, n.scale(applied));
    (applied, vn)
}

/// Coulomb friction of one point: drive the tangential velocity to zero
/// with `|λt| ≤ μ λn`.
#[inline(always)]
pub(crate) fn solve_friction<L: Lane>(
    m: &PairL<L>,
    friction: L,
    p: &mut PointL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
) {
    let t = tangent(m.normal);
    let vt = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(t);
    let limit = friction * p.normal_impulse;
    let new_total = (p.tangent_impulse - p.tangent_mass * vt)
        .max(-limit)
        .min(limit);
    let applied = new_total - p.tangent_impulse;
    p.tangent_impulse = new_total;
    apply(m, a, b, p.anchor_a, p.anchor_b, t.scale(applied));
}

/// Restitution of one point: the impulse that makes it leave at
/// `−e·v_impact`, where `apply_mask > 0` marks the lanes that bounce.
#[inline(always)]
pub(crate) fn restitute<L: Lane>(
    m: &PairL<L>,
    restitution: L,
    approach_speed: L,
    apply_mask: L,
    p: &mut PointL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
) {
    let zero = L::splat(0.0);
    let vn = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(m.normal);
    let impulse = -(p.normal_mass * (vn + restitution * approach_speed));
    let new_total =
        apply_mask.if_positive((p.normal_impulse + impulse).max(zero), p.normal_impulse);
    let applied = new_total - p.normal_impulse;
    p.normal_impulse = new_total;
    apply(m, a, b, p.anchor_a, p.anchor_b, m.normal.scale(applied));
}

/// Applies a point's kept impulses (warm start).
#[inline(always)]
pub(crate) fn warm_start<L: Lane>(
    m: &PairL<L>,
    p: &PointL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
) {
    let t = tangent(m.normal);
    let impulse = m
        .normal
        .scale(p.normal_impulse)
        .add(t.scale(p.tangent_impulse));
    apply(m, a, b, p.anchor_a, p.anchor_b, impulse);
}
