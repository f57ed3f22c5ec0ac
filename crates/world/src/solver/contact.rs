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

#[cfg(test)]
use glam::Vec2;

#[cfg(test)]
use super::integrate::BodyState;
use super::lanes::PassL;

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
#[cfg(test)]
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ConstraintPoint {
    /// `r_A × n`, with `r_A` the anchor from A's centre of mass, world
    /// frame, fixed for the step (see [`super::lanes::PointL`]).
    pub arm_a_normal: f32,
    /// `r_B × n`.
    pub arm_b_normal: f32,
    /// `r_A × t`.
    pub arm_a_tangent: f32,
    /// `r_B × t`.
    pub arm_b_tangent: f32,
    /// `s₀ − n·(r_B − r_A)`: add `n·(world anchor B − world anchor A)` to get `s`.
    pub base_separation: f32,
    pub normal_mass: f32,
    pub tangent_mass: f32,
    pub normal_impulse: f32,
    pub tangent_impulse: f32,
    /// Normal velocity at impact, for restitution: measured when the point
    /// first pushes during the step (or at the start of the step if it was
    /// already pushing), so that gravity gained before impact is counted.
    pub approach_speed: f32,
}

/// Per-point flags of a constraint.
#[cfg(test)]
pub(crate) const APPROACH_RECORDED: u8 = 1;
#[cfg(test)]
pub(crate) const PUSHED: u8 = 2;

/// A contact constraint with `N` points (1 or 2) between bodies `a` and `b`
/// (dense body indices), one at a time.
///
/// The solver prepares and solves constraints eight at a time
/// ([`super::wide`]); this one-at-a-time form, with its scalar passes in
/// [`reference`], is what the tests check the SIMD batches against, bit for
/// bit.
#[cfg(test)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct ContactConstraint<const N: usize> {
    pub a: u32,
    pub b: u32,
    pub inv_mass_a: f32,
    pub inv_inertia_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_b: f32,
    pub normal: Vec2,
    pub friction: f32,
    pub restitution: f32,
    /// [`APPROACH_RECORDED`] and [`PUSHED`] per point.
    pub flags: [u8; N],
    pub points: [ConstraintPoint; N],
}

#[cfg(test)]
impl<const N: usize> Default for ContactConstraint<N> {
    fn default() -> Self {
        ContactConstraint {
            a: 0,
            b: 0,
            inv_mass_a: 0.0,
            inv_inertia_a: 0.0,
            inv_mass_b: 0.0,
            inv_inertia_b: 0.0,
            normal: Vec2::ZERO,
            friction: 0.0,
            restitution: 0.0,
            flags: [0; N],
            points: [ConstraintPoint::default(); N],
        }
    }
}

#[cfg(test)]
impl ConstraintPoint {
    /// A point of `c` at anchors `ra`, `rb`: its lever arms and effective
    /// masses, with no separation or impulses yet.
    pub fn at<const N: usize>(c: &ContactConstraint<N>, ra: Vec2, rb: Vec2) -> ConstraintPoint {
        let t = tangent(c.normal);
        let (arm_a_normal, arm_b_normal) = (ra.perp_dot(c.normal), rb.perp_dot(c.normal));
        let (arm_a_tangent, arm_b_tangent) = (ra.perp_dot(t), rb.perp_dot(t));
        ConstraintPoint {
            arm_a_normal,
            arm_b_normal,
            arm_a_tangent,
            arm_b_tangent,
            normal_mass: c.effective_mass(arm_a_normal, arm_b_normal),
            tangent_mass: c.effective_mass(arm_a_tangent, arm_b_tangent),
            ..ConstraintPoint::default()
        }
    }
}

#[cfg(test)]
impl<const N: usize> ContactConstraint<N> {
    /// Effective mass `1 / (m_A⁻¹ + m_B⁻¹ + I_A⁻¹ (r_A×d)² + I_B⁻¹ (r_B×d)²)`
    /// of an impulse along `d`, from the lever arms `r_A×d`, `r_B×d`.
    #[inline]
    pub fn effective_mass(&self, arm_a: f32, arm_b: f32) -> f32 {
        let k = self.inv_mass_a
            + self.inv_mass_b
            + self.inv_inertia_a * arm_a * arm_a
            + self.inv_inertia_b * arm_b * arm_b;
        if k > 0.0 {
            1.0 / k
        } else {
            0.0
        }
    }

    /// What fills a batch's unused lanes: no masses, no normal, its points
    /// at the bodies' centres, both bodies `null_body`. Prepared in lanes
    /// from zeros, it comes out as this, bit for bit.
    pub fn padding(null_body: u32) -> ContactConstraint<N> {
        let mut c = ContactConstraint {
            a: null_body,
            b: null_body,
            ..ContactConstraint::default()
        };
        c.points = [ConstraintPoint::at(&c, Vec2::ZERO, Vec2::ZERO); N];
        c
    }

    /// Whether the pair has an immovable body (no inverse mass), which
    /// gets the stiffer softness; the batched passes test the same.
    pub fn is_stiff(&self) -> bool {
        self.inv_mass_a == 0.0 || self.inv_mass_b == 0.0
    }

    /// Marks that point `k` was already pushing when the step began, so
    /// its start-of-step normal velocity stands as its approach speed.
    pub fn mark_approach_recorded(&mut self, k: usize) {
        self.flags[k] |= APPROACH_RECORDED;
    }
}

/// What the solve loop needs besides the constraint.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SolveContext {
    pub inv_h: f32,
    pub push_speed: f32,
    pub restitution_threshold: f32,
    /// Softness of contacts between two dynamic bodies.
    pub soft: Softness,
    /// Softness of contacts with an immovable body.
    pub stiff: Softness,
}

/// Velocity of B's anchor relative to A's: `(v_B + ω_B × r_B) − (v_A + ω_A × r_A)`.
#[cfg(test)]
#[inline]
pub(crate) fn relative_velocity(a: &BodyState, b: &BodyState, ra: Vec2, rb: Vec2) -> Vec2 {
    (b.v + b.w * rb.perp()) - (a.v + a.w * ra.perp())
}

/// The friction direction: the normal turned 90° clockwise.
#[cfg(test)]
#[inline]
pub(crate) fn tangent(n: Vec2) -> Vec2 {
    Vec2::new(n.y, -n.x)
}

/// Applies the impulses kept from the last step.
pub(crate) struct WarmStart;

/// The solve pass (soft push-out, `use_bias`) or the relax pass.
pub(crate) struct Solve {
    pub ctx: SolveContext,
    pub use_bias: bool,
}

impl Solve {
    /// The pass parameters for a constraint of the given stiffness.
    #[inline]
    pub fn lane(&self, stiff: bool) -> PassL<f32> {
        let soft = if stiff { self.ctx.stiff } else { self.ctx.soft };
        PassL {
            inv_h: self.ctx.inv_h,
            push_speed: self.ctx.push_speed,
            bias_rate: soft.bias_rate,
            mass_scale: soft.mass_scale,
            impulse_scale: soft.impulse_scale,
            use_bias: self.use_bias,
        }
    }
}

/// After the substeps: make points that struck faster than the threshold
/// leave at `e` times their approach speed, `v_n' = −e·v_n,impact`.
pub(crate) struct Restitution {
    pub ctx: SolveContext,
}

/// The one-constraint-at-a-time path: the plain statement of each pass,
/// kept as the reference the SIMD batches are checked against bit for bit.
#[cfg(test)]
pub(crate) mod reference {
    use glam::Vec2;

    use super::super::lanes::{self, PairL, PointL, StateL, V2};
    use super::*;

    #[inline]
    fn v2(v: Vec2) -> V2<f32> {
        V2 { x: v.x, y: v.y }
    }

    /// A body state as one lane.
    #[inline]
    pub(crate) fn state_lane(s: &BodyState) -> StateL<f32> {
        StateL {
            v: v2(s.v),
            w: s.w,
            dp: v2(s.dp),
            dq_c: s.dq.c,
            dq_s: s.dq.s,
        }
    }

    /// Writes the velocities of a lane state back (positions do not change
    /// while solving).
    #[inline]
    fn store_velocity(s: &mut BodyState, l: &StateL<f32>) {
        s.v = Vec2::new(l.v.x, l.v.y);
        s.w = l.w;
    }

    impl<const N: usize> ContactConstraint<N> {
        #[inline]
        fn pair_lane(&self) -> PairL<f32> {
            PairL {
                inv_mass_a: self.inv_mass_a,
                inv_inertia_a: self.inv_inertia_a,
                inv_mass_b: self.inv_mass_b,
                inv_inertia_b: self.inv_inertia_b,
                normal: v2(self.normal),
            }
        }
    }

    impl ConstraintPoint {
        #[inline]
        fn lane(&self) -> PointL<f32> {
            PointL {
                arm_a_normal: self.arm_a_normal,
                arm_b_normal: self.arm_b_normal,
                arm_a_tangent: self.arm_a_tangent,
                arm_b_tangent: self.arm_b_tangent,
                base_separation: self.base_separation,
                normal_mass: self.normal_mass,
                tangent_mass: self.tangent_mass,
                normal_impulse: self.normal_impulse,
                tangent_impulse: self.tangent_impulse,
            }
        }

        #[inline]
        fn keep_impulses(&mut self, l: &PointL<f32>) {
            self.normal_impulse = l.normal_impulse;
            self.tangent_impulse = l.tangent_impulse;
        }
    }

    /// One pass of the solver over a constraint and its two bodies.
    pub(crate) trait ConstraintPass: Sync {
        fn run<const N: usize>(
            &self,
            c: &mut ContactConstraint<N>,
            a: &mut BodyState,
            b: &mut BodyState,
        );
    }
    impl ConstraintPass for WarmStart {
        #[inline]
        fn run<const N: usize>(
            &self,
            c: &mut ContactConstraint<N>,
            a: &mut BodyState,
            b: &mut BodyState,
        ) {
            let m = c.pair_lane();
            let (mut la, mut lb) = (state_lane(a), state_lane(b));
            for p in &c.points {
                lanes::warm_start(&m, &p.lane(), &mut la, &mut lb);
            }
            store_velocity(a, &la);
            store_velocity(b, &lb);
        }
    }
    impl ConstraintPass for Solve {
        /// Normal impulses, then (in the relax pass) friction.
        ///
        /// Friction runs in the relax pass only: there the normal impulses are
        /// free of push-out, so the Coulomb bound `μ λn` is the one the contact
        /// really carries, and each substep still meets it once.
        #[inline]
        fn run<const N: usize>(
            &self,
            c: &mut ContactConstraint<N>,
            a: &mut BodyState,
            b: &mut BodyState,
        ) {
            let m = c.pair_lane();
            let pass = self.lane(c.is_stiff());
            let (mut la, mut lb) = (state_lane(a), state_lane(b));
            for k in 0..N {
                let mut p = c.points[k].lane();
                let (applied, vn) = lanes::solve_normal(&m, &mut p, &mut la, &mut lb, &pass);
                if applied > 0.0 {
                    if c.flags[k] & APPROACH_RECORDED == 0 {
                        c.points[k].approach_speed = vn;
                    }
                    c.flags[k] |= APPROACH_RECORDED | PUSHED;
                }
                c.points[k].keep_impulses(&p);
            }
            if !self.use_bias {
                for point in &mut c.points {
                    let mut p = point.lane();
                    lanes::solve_friction(&m, c.friction, &mut p, &mut la, &mut lb);
                    point.keep_impulses(&p);
                }
            }
            store_velocity(a, &la);
            store_velocity(b, &lb);
        }
    }
    impl Restitution {
        /// Whether a point bounces: it struck faster than the threshold and pushed.
        #[inline]
        pub fn bounces(&self, approach_speed: f32, pushed: bool) -> bool {
            approach_speed < -self.ctx.restitution_threshold && pushed
        }
    }
    impl ConstraintPass for Restitution {
        fn run<const N: usize>(
            &self,
            c: &mut ContactConstraint<N>,
            a: &mut BodyState,
            b: &mut BodyState,
        ) {
            if c.restitution == 0.0 {
                return;
            }
            let m = c.pair_lane();
            let (mut la, mut lb) = (state_lane(a), state_lane(b));
            for k in 0..N {
                let point = c.points[k];
                if !self.bounces(point.approach_speed, c.flags[k] & PUSHED != 0) {
                    continue;
                }
                let mut p = point.lane();
                lanes::restitute(
                    &m,
                    c.restitution,
                    point.approach_speed,
                    1.0,
                    &mut p,
                    &mut la,
                    &mut lb,
                );
                c.points[k].keep_impulses(&p);
            }
            store_velocity(a, &la);
            store_velocity(b, &lb);
        }
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
