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
///
/// The anchors `r_A`, `r_B` (from each centre of mass to the point, fixed
/// for the step) enter the passes only through their lever arms about the
/// normal `n` and the tangent `t`, so those four are kept instead:
///
/// - an impulse `λd` along `d` turns A by `−I_A⁻¹ λ (r_A × d)`, and A's
///   spin moves the point along `d` at `ω_A (r_A × d)`;
/// - after A turns by `Δq = (c, s)`, `n·(Δq r_A) = s (r_A × n) − c (r_A × t)`
///   (as `r·n = −r × t` for `t = (n.y, −n.x)`).
///
/// The same four floats as the anchors, and fewer operations in every pass.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct PointL<L> {
    /// `r_A × n`.
    pub arm_a_normal: L,
    /// `r_B × n`.
    pub arm_b_normal: L,
    /// `r_A × t`.
    pub arm_a_tangent: L,
    /// `r_B × t`.
    pub arm_b_tangent: L,
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

/// Speed of B's point relative to A's along `d`, from the lever arms
/// `arm_a = r_A × d`, `arm_b = r_B × d`:
/// `[(v_B + ω_B × r_B) − (v_A + ω_A × r_A)]·d = (v_B − v_A)·d + ω_B arm_b − ω_A arm_a`.
#[inline(always)]
pub(crate) fn speed_along<L: Lane>(
    a: &StateL<L>,
    b: &StateL<L>,
    d: V2<L>,
    arm_a: L,
    arm_b: L,
) -> L {
    b.v.sub(a.v).dot(d) + (b.w * arm_b - a.w * arm_a)
}

/// Applies impulse `λd` at the points with lever arms `arm_a = r_A × d`,
/// `arm_b = r_B × d`: `−λd` to A, `+λd` to B.
#[inline(always)]
pub(crate) fn apply_along<L: Lane>(
    m: &PairL<L>,
    a: &mut StateL<L>,
    b: &mut StateL<L>,
    d: V2<L>,
    arm_a: L,
    arm_b: L,
    lambda: L,
) {
    let p = d.scale(lambda);
    a.v = a.v.sub(p.scale(m.inv_mass_a));
    a.w = a.w - m.inv_inertia_a * (arm_a * lambda);
    b.v = b.v.add(p.scale(m.inv_mass_b));
    b.w = b.w + m.inv_inertia_b * (arm_b * lambda);
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
    // Current separation from the substep motion: n·(Δq r) for each body
    // from its lever arms (see [`PointL`]).
    let turned_b = b.dq_s * p.arm_b_normal - b.dq_c * p.arm_b_tangent;
    let turned_a = a.dq_s * p.arm_a_normal - a.dq_c * p.arm_a_tangent;
    let moved = b.dp.sub(a.dp).dot(n);
    let s = p.base_separation + moved + (turned_b - turned_a);
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
    let vn = speed_along(a, b, n, p.arm_a_normal, p.arm_b_normal);
    let impulse = -(p.normal_mass * (mass_scale * vn + bias)) - impulse_scale * p.normal_impulse;
    let new_total = (p.normal_impulse + impulse).max(zero);
    let applied = new_total - p.normal_impulse;
    p.normal_impulse = new_total;
    apply_along(m, a, b, n, p.arm_a_normal, p.arm_b_normal, applied);
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
    let vt = speed_along(a, b, t, p.arm_a_tangent, p.arm_b_tangent);
    let limit = friction * p.normal_impulse;
    let new_total = (p.tangent_impulse - p.tangent_mass * vt)
        .max(-limit)
        .min(limit);
    let applied = new_total - p.tangent_impulse;
    p.tangent_impulse = new_total;
    apply_along(m, a, b, t, p.arm_a_tangent, p.arm_b_tangent, applied);
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
    let vn = speed_along(a, b, m.normal, p.arm_a_normal, p.arm_b_normal);
    let impulse = -(p.normal_mass * (vn + restitution * approach_speed));
    let new_total =
        apply_mask.if_positive((p.normal_impulse + impulse).max(zero), p.normal_impulse);
    let applied = new_total - p.normal_impulse;
    p.normal_impulse = new_total;
    apply_along(m, a, b, m.normal, p.arm_a_normal, p.arm_b_normal, applied);
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
    // r × (λn n + λt t) = λn (r × n) + λt (r × t).
    let turn_a = p.arm_a_normal * p.normal_impulse + p.arm_a_tangent * p.tangent_impulse;
    let turn_b = p.arm_b_normal * p.normal_impulse + p.arm_b_tangent * p.tangent_impulse;
    a.v = a.v.sub(impulse.scale(m.inv_mass_a));
    a.w = a.w - m.inv_inertia_a * turn_a;
    b.v = b.v.add(impulse.scale(m.inv_mass_b));
    b.w = b.w + m.inv_inertia_b * turn_b;
}
