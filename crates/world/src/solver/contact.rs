//! Soft contact constraints: prepare, warm start, solve, relax, restitution.
//!
//! Each contact point keeps the two bodies from approaching along the
//! manifold normal `n` (a non-negative normal impulse `λn`) and resists
//! sliding along the tangent `t = (n.y, −n.x)` with Coulomb friction
//! (`|λt| ≤ μ λn`).
//!
//! **Current separation without new geometry.** Manifolds are computed once
//! per step. Within the step the solver tracks how far each body has moved,
//! `Δp` and `Δq`, and measures the point's separation as
//!
//! `s = s₀ + n·[(Δp_B + Δq_B r_B) − (Δp_A + Δq_A r_A)] − n·(r_B − r_A)`,
//!
//! where `r_A`, `r_B` are the anchors from each centre of mass at the start
//! of the step. The normal stays fixed; impulses are applied at the fixed
//! anchors, which keeps rolling shapes rolling.
//!
//! **Softness.** Overlap is removed by a spring-damper of frequency `f`
//! and damping ratio `ζ` rather than by a rigid position projection. With
//! `ω = 2πf` and substep `h`, the implicit-Euler soft constraint gives
//!
//! `a₁ = 2ζ + hω`, `a₂ = hω·a₁`, `a₃ = 1/(1 + a₂)`,
//! `bias_rate = ω/a₁`, `mass_scale = a₂a₃`, `impulse_scale = a₃`,
//!
//! and the impulse update `Δλ = −m_n(mass_scale·v_n + bias) − impulse_scale·λ`
//! with `bias = max(bias_rate·s, −push_speed)` for overlapping points. A
//! speculative point (`s > 0`) instead uses `bias = s/h` with full stiffness:
//! it lets the bodies close the gap exactly, and no further, this substep.
//! The relax pass runs the same update with no bias and full stiffness, so the
//! velocity that pushed bodies apart does not survive as bounce.

use glam::Vec2;

use super::integrate::BodyState;

/// Spring coefficients of a soft constraint (see the module docs).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct Softness {
    pub bias_rate: f32,
    pub mass_scale: f32,
    pub impulse_scale: f32,
}

impl Softness {
    /// The coefficients for frequency `hertz`, damping ratio `zeta` and substep `h`.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
            impulse_scale: a3,
        }
    }
}

/// One point of a [`ContactConstraint`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConstraintPoint {
    /// Anchor from A's centre of mass, world frame, fixed for the step.
    pub anchor_a: Vec2,
    /// Anchor from B's centre of mass.
    pub anchor_b: Vec2,
    /// `s₀ − n·(r_B − r_A)`: add `n·(world anchor B − world anchor A)` to get `s`.
    pub base_separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: f32,
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    /// Largest normal impulse applied in one pass; zero means the point never pushed.
    pub max_normal_impulse: f32,
    /// Normal velocity at impact, for restitution: measured when the point
    /// first pushes during the step (or at the start of the step if it was
    /// already pushing), so that gravity gained before impact is counted.
    pub approach_speed: f32,
    pub approach_recorded: bool,
}

/// A contact constraint between bodies `a` and `b` (dense body indices).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ContactConstraint {
    /// Index of the contact in the contact set, to store impulses back.
    pub contact: u32,
    pub a: u32,
    pub b: u32,
    pub inv_mass_a: f32,
    pub inv_inertia_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_b: f32,
    pub normal: Vec2,
    pub friction: f32,
    pub restitution: f32,
    pub softness: Softness,
    pub count: usize,
    pub points: [ConstraintPoint; 2],
}

/// What the solve loop needs besides the constraint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolveContext {
    pub inv_h: f32,
    pub push_speed: f32,
    pub restitution_threshold: f32,
}

/// Effective mass `1 / (m_A⁻¹ + m_B⁻¹ + I_A⁻¹ (r_A×d)² + I_B⁻¹ (r_B×d)²)` of
/// an impulse along `d` at anchors `r_A`, `r_B`.
#[inline]
pub(crate) fn effective_mass(c: &ContactConstraint, ra: Vec2, rb: Vec2, d: Vec2) -> f32 {
    let rna = ra.perp_dot(d);
    let rnb = rb.perp_dot(d);
    let k = c.inv_mass_a + c.inv_mass_b + c.inv_inertia_a * rna * rna + c.inv_inertia_b * rnb * rnb;
    if k > 0.0 {
        1.0 / k
    } else {
        0.0
    }
}

/// Velocity of B's anchor relative to A's: `(v_B + ω_B × r_B) − (v_A + ω_A × r_A)`.
#[inline]
pub(crate) fn relative_velocity(a: &BodyState, b: &BodyState, ra: Vec2, rb: Vec2) -> Vec2 {
    (b.v + b.w * rb.perp()) - (a.v + a.w * ra.perp())
}

/// Applies impulse `p` at the anchors: `−p` to A and `+p` to B.
#[inline]
fn apply(c: &ContactConstraint, a: &mut BodyState, b: &mut BodyState, ra: Vec2, rb: Vec2, p: Vec2) {
    a.v -= c.inv_mass_a * p;
    a.w -= c.inv_inertia_a * ra.perp_dot(p);
    b.v += c.inv_mass_b * p;
    b.w += c.inv_inertia_b * rb.perp_dot(p);
}

/// The friction direction: the normal turned 90° clockwise.
#[inline]
fn tangent(n: Vec2) -> Vec2 {
    Vec2::new(n.y, -n.x)
}

/// Applies the impulses kept from the last step.
pub(crate) fn warm_start(c: &ContactConstraint, a: &mut BodyState, b: &mut BodyState) {
    let t = tangent(c.normal);
    for p in &c.points[..c.count] {
        let impulse = p.normal_impulse * c.normal + p.tangent_impulse * t;
        apply(c, a, b, p.anchor_a, p.anchor_b, impulse);
    }
}

/// One pass over the constraint: normal impulses, then friction.
/// `use_bias` selects the solve pass (soft push-out) or the relax pass.
pub(crate) fn solve(
    c: &mut ContactConstraint,
    a: &mut BodyState,
    b: &mut BodyState,
    ctx: &SolveContext,
    use_bias: bool,
) {
    let n = c.normal;
    let moved = (b.dp - a.dp).dot(n);
    for k in 0..c.count {
        let p = c.points[k];
        // Current separation from the substep motion, anchors rotated by Δq.
        let prb = b.dq.rotate(p.anchor_b);
        let pra = a.dq.rotate(p.anchor_a);
        let s = p.base_separation + moved + (prb - pra).dot(n);
        let (bias, mass_scale, impulse_scale) = if s > 0.0 {
            (s * ctx.inv_h, 1.0, 0.0)
        } else if use_bias {
            let soft = c.softness;
            (
                (soft.bias_rate * s).max(-ctx.push_speed),
                soft.mass_scale,
                soft.impulse_scale,
            )
        } else {
            (0.0, 1.0, 0.0)
        };
        let vn = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(n);
        let impulse = -p.normal_mass * (mass_scale * vn + bias) - impulse_scale * p.normal_impulse;
        let new_total = (p.normal_impulse + impulse).max(0.0);
        let applied = new_total - p.normal_impulse;
        let point = &mut c.points[k];
        if !point.approach_recorded && applied > 0.0 {
            point.approach_speed = vn;
            point.approach_recorded = true;
        }
        point.normal_impulse = new_total;
        point.max_normal_impulse = point.max_normal_impulse.max(applied);
        apply(c, a, b, p.anchor_a, p.anchor_b, applied * n);
    }
    solve_friction(c, a, b);
}

/// Coulomb friction: drive the tangential velocity to zero with
/// `|λt| ≤ μ λn` per point.
fn solve_friction(c: &mut ContactConstraint, a: &mut BodyState, b: &mut BodyState) {
    let t = tangent(c.normal);
    for k in 0..c.count {
        let p = c.points[k];
        let vt = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(t);
        let limit = c.friction * p.normal_impulse;
        let new_total = (p.tangent_impulse - p.tangent_mass * vt).clamp(-limit, limit);
        let applied = new_total - p.tangent_impulse;
        c.points[k].tangent_impulse = new_total;
        apply(c, a, b, p.anchor_a, p.anchor_b, applied * t);
    }
}

/// After the substeps: make points that struck faster than the threshold
/// leave at `e` times their approach speed, `v_n' = −e·v_n,impact`.
pub(crate) fn apply_restitution(
    c: &mut ContactConstraint,
    a: &mut BodyState,
    b: &mut BodyState,
    ctx: &SolveContext,
) {
    if c.restitution == 0.0 {
        return;
    }
    let n = c.normal;
    for k in 0..c.count {
        let p = c.points[k];
        if p.approach_speed > -ctx.restitution_threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let vn = relative_velocity(a, b, p.anchor_a, p.anchor_b).dot(n);
        let impulse = -p.normal_mass * (vn + c.restitution * p.approach_speed);
        let new_total = (p.normal_impulse + impulse).max(0.0);
        let applied = new_total - p.normal_impulse;
        c.points[k].normal_impulse = new_total;
        c.points[k].max_normal_impulse = p.max_normal_impulse.max(applied);
        apply(c, a, b, p.anchor_a, p.anchor_b, applied * n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn softness_matches_the_closed_form() {
        // f = 30 Hz, ζ = 10, h = 1/240.
        let s = Softness::new(30.0, 10.0, 1.0 / 240.0);
        let omega = 2.0 * std::f32::consts::PI * 30.0;
        let a1 = 20.0 + omega / 240.0;
        assert!((s.bias_rate - omega / a1).abs() < 1e-4);
        let a2 = omega / 240.0 * a1;
        assert!((s.mass_scale - a2 / (1.0 + a2)).abs() < 1e-6);
        assert!((s.impulse_scale - 1.0 / (1.0 + a2)).abs() < 1e-6);
        // mass_scale + impulse_scale = 1 for any input.
        assert!((s.mass_scale + s.impulse_scale - 1.0).abs() < 1e-6);
    }
}
