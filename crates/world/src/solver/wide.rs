//! Constraints solved eight at a time in SIMD lanes.
//!
//! Within a graph colour no two constraints share a dynamic body, so eight
//! constraints with the same number of points can be solved at once: their
//! bodies' states are gathered into eight lanes, the point maths of
//! [`super::lanes`] runs on all eight, and the new velocities are scattered
//! back. A batch that is not full is padded with lanes that point at an
//! immovable null body and have zero masses, so they apply nothing.
//!
//! Batches are stored as `wide::f32x8` (SSE2 on x86-64). The passes are
//! generic over the lane type ([`WideLane`]), so on processors with AVX2
//! the same batches are solved through 256-bit registers
//! ([`super::avx::Avx8`]), with the same operations and so the same bits.

use glam::Vec2;
use wide::f32x8;

#[cfg(test)]
use super::contact::ContactConstraint;
use super::contact::{Restitution, Solve, WarmStart};
use super::integrate::BodyState;
use super::lanes::{self, Lane, PairL, PassL, PointL, StateL, V2};
use super::StatesPtr;

/// Constraints per batch.
pub(crate) const LANES: usize = 8;

/// Eight constraints of `N` points each, lane by lane, in lane type `L`.
/// `repr(C)`, so that batches stored as `f32x8` can be viewed with any lane
/// type of the same size and alignment (see [`super::avx`]).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct WideConstraint<const N: usize, L = f32x8> {
    pub a: [u32; LANES],
    pub b: [u32; LANES],
    pair: PairL<L>,
    points: [PointL<L>; N],
    friction: L,
}

/// What only bouncing reads of a batch of [`WideConstraint`]: the
/// restitution of each lane and, per point, its approach speed and
/// progress. Kept apart from the batches, which every constraint pass
/// streams: for a large step that streaming is bound by memory bandwidth,
/// and most batches never bounce (a batch 96 bytes larger made the passes
/// 11 % slower at 100,000 bodies).
#[derive(Debug, Clone, Copy)]
#[repr(C)]
pub(crate) struct WideBounce<const N: usize, L = f32x8> {
    restitution: L,
    approach_speed: [L; N],
    /// Per point: 0, then 1 once the approach speed is final for the step,
    /// 2 once the point has pushed this step (which also makes it final).
    /// One lane for both flags keeps a batch smaller.
    progress: [L; N],
}

impl<const N: usize, L: WideLane> WideBounce<N, L> {
    /// Whether any lane can bounce (restitution above 0).
    #[inline(always)]
    pub fn is_bouncy(&self) -> bool {
        self.restitution.any_positive()
    }
}

/// [`WideBounce::progress`] values.
const APPROACH_FINAL: f32 = 1.0;
const PUSHED_THIS_STEP: f32 = 2.0;

/// A lane type the batched passes run on, with its own way of moving body
/// states in and out of lanes.
pub(crate) trait WideLane: Lane {
    /// Whether any lane is greater than zero.
    fn any_positive(self) -> bool;

    /// The states of bodies `indices`, lane by lane.
    ///
    /// # Safety
    /// Every index must be a state of the buffer `states` points into.
    unsafe fn gather(states: StatesPtr, indices: &[u32; LANES]) -> StateL<Self>;

    /// Writes the velocities of `lanes` back into the states of the bodies
    /// among `indices` that are dynamic; the other fields are left as they
    /// were gathered.
    ///
    /// # Safety
    /// As for [`WideLane::gather`], and no other thread may access the
    /// dynamic bodies' states meanwhile.
    unsafe fn scatter(
        states: StatesPtr,
        indices: &[u32; LANES],
        dynamic: &[bool],
        lanes: &StateL<Self>,
    );
}

impl WideLane for f32x8 {
    #[inline(always)]
    fn any_positive(self) -> bool {
        self.simd_gt(f32x8::ZERO).any()
    }

    #[inline(always)]
    unsafe fn gather(states: StatesPtr, indices: &[u32; LANES]) -> StateL<f32x8> {
        // SAFETY: the caller passes indices of the buffer.
        let states = indices.map(|i| unsafe { *states.at(i) });
        let lane = |get: fn(&BodyState) -> f32| f32x8::new(states.each_ref().map(get));
        StateL {
            v: V2 {
                x: lane(|s| s.v.x),
                y: lane(|s| s.v.y),
            },
            w: lane(|s| s.w),
            dp: V2 {
                x: lane(|s| s.dp.x),
                y: lane(|s| s.dp.y),
            },
            dq_c: lane(|s| s.dq.c),
            dq_s: lane(|s| s.dq.s),
        }
    }

    #[inline(always)]
    unsafe fn scatter(
        states: StatesPtr,
        indices: &[u32; LANES],
        dynamic: &[bool],
        lanes: &StateL<f32x8>,
    ) {
        let (vx, vy, w) = (
            lanes.v.x.to_array(),
            lanes.v.y.to_array(),
            lanes.w.to_array(),
        );
        for (k, &i) in indices.iter().enumerate() {
            if dynamic[i as usize] {
                // SAFETY: the caller owns the dynamic bodies' states.
                let state = unsafe { &mut *states.at(i) };
                state.v = Vec2::new(vx[k], vy[k]);
                state.w = w[k];
            }
        }
    }
}

/// Lanes of `f32` read from each of eight constraints by `get`.
#[cfg(test)]
fn lanes_of<const N: usize>(
    cs: &[ContactConstraint<N>],
    get: impl Fn(&ContactConstraint<N>) -> f32,
) -> f32x8 {
    f32x8::new(std::array::from_fn(|k| get(&cs[k])))
}

/// What preparing a batch reads, lane by lane: the contacts, their bodies
/// and the bodies' start-of-step velocities. Unused lanes keep zeros and
/// point at the null body, so they prepare to constraints that apply
/// nothing.
#[derive(Debug, Clone, Copy)]
pub(crate) struct BatchInput<const N: usize> {
    pub a: [u32; LANES],
    pub b: [u32; LANES],
    pub inv_mass_a: [f32; LANES],
    pub inv_inertia_a: [f32; LANES],
    pub inv_mass_b: [f32; LANES],
    pub inv_inertia_b: [f32; LANES],
    pub center_a: [[f32; LANES]; 2],
    pub center_b: [[f32; LANES]; 2],
    /// Linear (x, y) and angular velocity of A and of B.
    pub velocity_a: [[f32; LANES]; 3],
    pub velocity_b: [[f32; LANES]; 3],
    pub normal: [[f32; LANES]; 2],
    pub friction: [f32; LANES],
    pub restitution: [f32; LANES],
    pub points: [PointInput; N],
}

/// One manifold point of each lane of a [`BatchInput`].
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PointInput {
    pub position: [[f32; LANES]; 2],
    pub separation: [f32; LANES],
    pub normal_impulse: [f32; LANES],
    pub tangent_impulse: [f32; LANES],
}

impl<const N: usize> BatchInput<N> {
    /// A batch of eight unused lanes.
    pub fn empty(null_body: u32) -> BatchInput<N> {
        let zero = [0.0; LANES];
        BatchInput {
            a: [null_body; LANES],
            b: [null_body; LANES],
            inv_mass_a: zero,
            inv_inertia_a: zero,
            inv_mass_b: zero,
            inv_inertia_b: zero,
            center_a: [zero; 2],
            center_b: [zero; 2],
            velocity_a: [zero; 3],
            velocity_b: [zero; 3],
            normal: [zero; 2],
            friction: zero,
            restitution: zero,
            points: [PointInput::default(); N],
        }
    }
}

impl<const N: usize> BatchInput<N> {
    /// The batch as `f32x8` lanes.
    #[inline(always)]
    pub fn lanes(&self) -> PrepareLanes<N, f32x8> {
        let v2 = |xy: &[[f32; LANES]; 2]| V2 {
            x: f32x8::new(xy[0]),
            y: f32x8::new(xy[1]),
        };
        let [vax, vay, wa] = self.velocity_a.map(f32x8::new);
        let [vbx, vby, wb] = self.velocity_b.map(f32x8::new);
        PrepareLanes {
            a: self.a,
            b: self.b,
            pair: PairL {
                inv_mass_a: f32x8::new(self.inv_mass_a),
                inv_inertia_a: f32x8::new(self.inv_inertia_a),
                inv_mass_b: f32x8::new(self.inv_mass_b),
                inv_inertia_b: f32x8::new(self.inv_inertia_b),
                normal: v2(&self.normal),
            },
            center_a: v2(&self.center_a),
            center_b: v2(&self.center_b),
            velocity_a: V2 { x: vax, y: vay },
            spin_a: wa,
            velocity_b: V2 { x: vbx, y: vby },
            spin_b: wb,
            friction: f32x8::new(self.friction),
            restitution: f32x8::new(self.restitution),
            points: self.points.map(|p| PointLanes {
                position: v2(&p.position),
                separation: f32x8::new(p.separation),
                normal_impulse: f32x8::new(p.normal_impulse),
                tangent_impulse: f32x8::new(p.tangent_impulse),
            }),
        }
    }
}

/// What preparing a batch reads, as lanes of type `L`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PrepareLanes<const N: usize, L> {
    pub a: [u32; LANES],
    pub b: [u32; LANES],
    /// Inverse masses and inertias, and the normal.
    pub pair: PairL<L>,
    pub center_a: V2<L>,
    pub center_b: V2<L>,
    /// Start-of-step velocities.
    pub velocity_a: V2<L>,
    pub spin_a: L,
    pub velocity_b: V2<L>,
    pub spin_b: L,
    pub friction: L,
    pub restitution: L,
    pub points: [PointLanes<L>; N],
}

/// One manifold point of each lane of a [`PrepareLanes`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct PointLanes<L> {
    pub position: V2<L>,
    pub separation: L,
    pub normal_impulse: L,
    pub tangent_impulse: L,
}

/// Effective mass `1 / (m_A⁻¹ + m_B⁻¹ + I_A⁻¹ (r_A×d)² + I_B⁻¹ (r_B×d)²)`
/// along `d` from the lever arms `r_A×d`, `r_B×d`, lane by lane (0 where
/// nothing can move), with the operations of the one-constraint version in
/// the same order.
#[inline(always)]
fn effective_mass<L: Lane>(pair: &PairL<L>, arm_a: L, arm_b: L) -> L {
    let k = pair.inv_mass_a
        + pair.inv_mass_b
        + pair.inv_inertia_a * arm_a * arm_a
        + pair.inv_inertia_b * arm_b * arm_b;
    k.if_positive(L::splat(1.0) / k, L::splat(0.0))
}

impl<const N: usize, L: WideLane> WideConstraint<N, L> {
    /// Prepares eight constraints at once: the anchors' lever arms (see
    /// [`PointL`]), effective masses, warm-start impulses and, for the lanes
    /// that can bounce, start-of-step normal velocities (see `contact` for
    /// the maths). A batch with no such lane reads no velocity: only
    /// restitution needs them, and it leaves that batch alone.
    #[inline(always)]
    pub fn prepare(input: &PrepareLanes<N, L>) -> (WideConstraint<N, L>, WideBounce<N, L>) {
        let zero = L::splat(0.0);
        let bouncy = input.restitution.any_positive();
        let pair = input.pair;
        let n = pair.normal;
        let t = V2 { x: n.y, y: -n.x };
        let (ca, cb) = (input.center_a, input.center_b);
        let (va, wa) = (input.velocity_a, input.spin_a);
        let (vb, wb) = (input.velocity_b, input.spin_b);
        let mut approach_speed = [zero; N];
        let mut progress = [zero; N];
        let points = std::array::from_fn(|k| {
            let p = &input.points[k];
            let ra = p.position.sub(ca);
            let rb = p.position.sub(cb);
            if bouncy {
                // (v_B + ω_B × r_B) − (v_A + ω_A × r_A), along n.
                let relative = V2 {
                    x: (vb.x + wb * -rb.y) - (va.x + wa * -ra.y),
                    y: (vb.y + wb * rb.x) - (va.y + wa * ra.x),
                };
                approach_speed[k] = input.restitution.if_positive(relative.dot(n), zero);
            }
            progress[k] = p.normal_impulse.if_positive(L::splat(APPROACH_FINAL), zero);
            let (arm_a_normal, arm_b_normal) = (ra.perp_dot(n), rb.perp_dot(n));
            let (arm_a_tangent, arm_b_tangent) = (ra.perp_dot(t), rb.perp_dot(t));
            PointL {
                arm_a_normal,
                arm_b_normal,
                arm_a_tangent,
                arm_b_tangent,
                base_separation: p.separation - rb.sub(ra).dot(n),
                normal_mass: effective_mass(&pair, arm_a_normal, arm_b_normal),
                tangent_mass: effective_mass(&pair, arm_a_tangent, arm_b_tangent),
                normal_impulse: p.normal_impulse,
                tangent_impulse: p.tangent_impulse,
            }
        });
        let batch = WideConstraint {
            a: input.a,
            b: input.b,
            pair,
            points,
            friction: input.friction,
        };
        let bounce = WideBounce {
            restitution: input.restitution,
            approach_speed,
            progress,
        };
        (batch, bounce)
    }
}

impl<const N: usize> WideConstraint<N> {
    /// Packs up to eight constraints; missing lanes are padding (see
    /// [`ContactConstraint::padding`]) and point at `null_body`.
    #[cfg(test)]
    pub fn pack(cs: &[ContactConstraint<N>], null_body: u32) -> (WideConstraint<N>, WideBounce<N>) {
        let padding = ContactConstraint::padding(null_body);
        let cs: [ContactConstraint<N>; LANES] =
            std::array::from_fn(|k| cs.get(k).copied().unwrap_or(padding));
        let cs = &cs[..];
        let a = std::array::from_fn(|k| cs[k].a);
        let b = std::array::from_fn(|k| cs[k].b);
        let point = |k: usize| PointL {
            arm_a_normal: lanes_of(cs, |c| c.points[k].arm_a_normal),
            arm_b_normal: lanes_of(cs, |c| c.points[k].arm_b_normal),
            arm_a_tangent: lanes_of(cs, |c| c.points[k].arm_a_tangent),
            arm_b_tangent: lanes_of(cs, |c| c.points[k].arm_b_tangent),
            base_separation: lanes_of(cs, |c| c.points[k].base_separation),
            normal_mass: lanes_of(cs, |c| c.points[k].normal_mass),
            tangent_mass: lanes_of(cs, |c| c.points[k].tangent_mass),
            normal_impulse: lanes_of(cs, |c| c.points[k].normal_impulse),
            tangent_impulse: lanes_of(cs, |c| c.points[k].tangent_impulse),
        };
        let progress = |k: usize| {
            lanes_of(cs, |c| {
                if c.flags[k] & super::contact::PUSHED != 0 {
                    PUSHED_THIS_STEP
                } else if c.flags[k] & super::contact::APPROACH_RECORDED != 0 {
                    APPROACH_FINAL
                } else {
                    0.0
                }
            })
        };
        let batch = WideConstraint {
            a,
            b,
            pair: PairL {
                inv_mass_a: lanes_of(cs, |c| c.inv_mass_a),
                inv_inertia_a: lanes_of(cs, |c| c.inv_inertia_a),
                inv_mass_b: lanes_of(cs, |c| c.inv_mass_b),
                inv_inertia_b: lanes_of(cs, |c| c.inv_inertia_b),
                normal: V2 {
                    x: lanes_of(cs, |c| c.normal.x),
                    y: lanes_of(cs, |c| c.normal.y),
                },
            },
            points: std::array::from_fn(point),
            friction: lanes_of(cs, |c| c.friction),
        };
        let bounce = WideBounce {
            restitution: lanes_of(cs, |c| c.restitution),
            approach_speed: std::array::from_fn(|k| lanes_of(cs, |c| c.points[k].approach_speed)),
            progress: std::array::from_fn(progress),
        };
        (batch, bounce)
    }

    /// Every lane of every field of the batch and its `bounce`, as bit
    /// patterns, for exact comparisons.
    #[cfg(test)]
    pub fn bits(&self, bounce: &WideBounce<N>) -> Vec<u32> {
        let mut lanes = vec![self.pair.inv_mass_a, self.pair.inv_inertia_a];
        lanes.extend([self.pair.inv_mass_b, self.pair.inv_inertia_b]);
        lanes.extend([self.pair.normal.x, self.pair.normal.y]);
        lanes.extend([self.friction, bounce.restitution]);
        for (k, p) in self.points.iter().enumerate() {
            lanes.extend([p.arm_a_normal, p.arm_b_normal]);
            lanes.extend([p.arm_a_tangent, p.arm_b_tangent]);
            lanes.extend([p.base_separation, p.normal_mass, p.tangent_mass]);
            lanes.extend([p.normal_impulse, p.tangent_impulse]);
            lanes.extend([bounce.approach_speed[k], bounce.progress[k]]);
        }
        let mut bits: Vec<u32> = self.a.iter().chain(&self.b).copied().collect();
        bits.extend(lanes.iter().flat_map(|l| l.to_array().map(f32::to_bits)));
        bits
    }

    /// The accumulated normal and tangent impulses of point `k` in each lane.
    pub fn impulses(&self, k: usize) -> ([f32; LANES], [f32; LANES]) {
        (
            self.points[k].normal_impulse.to_array(),
            self.points[k].tangent_impulse.to_array(),
        )
    }
}

/// A solver pass over a batch of eight.
pub(crate) trait WidePass: Sync {
    /// Runs the pass on batch `c` with its `bounce` lanes, which it reads
    /// only when `bouncy` ([`WideBounce::is_bouncy`]).
    fn run_wide<const N: usize, L: WideLane>(
        &self,
        c: &mut WideConstraint<N, L>,
        bounce: &mut WideBounce<N, L>,
        bouncy: bool,
        a: &mut StateL<L>,
        b: &mut StateL<L>,
    );

    /// Whether the pass would leave a batch (`bouncy` or not) and its
    /// bodies as they are, so that the bodies need not even be gathered.
    #[inline(always)]
    fn leaves_alone(&self, _bouncy: bool) -> bool {
        false
    }
}

impl WidePass for WarmStart {
    #[inline(always)]
    fn run_wide<const N: usize, L: WideLane>(
        &self,
        c: &mut WideConstraint<N, L>,
        _bounce: &mut WideBounce<N, L>,
        _bouncy: bool,
        a: &mut StateL<L>,
        b: &mut StateL<L>,
    ) {
        for p in &c.points {
            lanes::warm_start(&c.pair, p, a, b);
        }
    }
}

impl WidePass for Solve {
    #[inline(always)]
    fn run_wide<const N: usize, L: WideLane>(
        &self,
        c: &mut WideConstraint<N, L>,
        bounce: &mut WideBounce<N, L>,
        bouncy: bool,
        a: &mut StateL<L>,
        b: &mut StateL<L>,
    ) {
        // A pair with an immovable body (no inverse mass) is stiffer.
        let (soft, stiff) = (self.lane(false), self.lane(true));
        let both_move = c.pair.inv_mass_a.min(c.pair.inv_mass_b);
        let pick = |s: f32, t: f32| both_move.if_positive(L::splat(s), L::splat(t));
        let pass = PassL {
            inv_h: L::splat(soft.inv_h),
            push_speed: L::splat(soft.push_speed),
            bias_rate: pick(soft.bias_rate, stiff.bias_rate),
            mass_scale: pick(soft.mass_scale, stiff.mass_scale),
            impulse_scale: pick(soft.impulse_scale, stiff.impulse_scale),
            use_bias: self.use_bias,
        };
        let pushed = L::splat(PUSHED_THIS_STEP);
        // Only restitution reads the approach speeds, and it leaves a batch
        // with no bouncy lane alone, so such a batch need not keep them.
        for k in 0..N {
            let (applied, vn) = lanes::solve_normal(&c.pair, &mut c.points[k], a, b, &pass);
            if bouncy {
                // Where the point pushed for the first time, its normal
                // velocity is the approach speed that restitution reverses.
                let first = bounce.progress[k].if_positive(bounce.approach_speed[k], vn);
                bounce.approach_speed[k] = applied.if_positive(first, bounce.approach_speed[k]);
                bounce.progress[k] = applied.if_positive(pushed, bounce.progress[k]);
            }
        }
        if !self.use_bias {
            for p in &mut c.points {
                lanes::solve_friction(&c.pair, c.friction, p, a, b);
            }
        }
    }
}

impl WidePass for Restitution {
    /// A batch with no bouncy lane (restitution 0 in every lane, the common
    /// case) cannot bounce.
    #[inline(always)]
    fn leaves_alone(&self, bouncy: bool) -> bool {
        !bouncy
    }

    #[inline(always)]
    fn run_wide<const N: usize, L: WideLane>(
        &self,
        c: &mut WideConstraint<N, L>,
        bounce: &mut WideBounce<N, L>,
        _bouncy: bool,
        a: &mut StateL<L>,
        b: &mut StateL<L>,
    ) {
        let zero = L::splat(0.0);
        let one = L::splat(1.0);
        for k in 0..N {
            // Bounce where e > 0, the point pushed, and it struck faster
            // than the threshold: −threshold − v_approach > 0.
            let fast = -L::splat(self.ctx.restitution_threshold) - bounce.approach_speed[k];
            let pushed = bounce.progress[k] - L::splat(APPROACH_FINAL);
            let mask = bounce
                .restitution
                .if_positive(pushed.if_positive(fast.if_positive(one, zero), zero), zero);
            if !mask.any_positive() {
                continue;
            }
            let (old_a, old_b) = (*a, *b);
            lanes::restitute(
                &c.pair,
                bounce.restitution,
                bounce.approach_speed[k],
                mask,
                &mut c.points[k],
                a,
                b,
            );
            // Lanes that do not bounce keep their velocities bit for bit, as
            // the one-constraint path, which skips them, does.
            for (new, old) in [(&mut *a, &old_a), (&mut *b, &old_b)] {
                new.v.x = mask.if_positive(new.v.x, old.v.x);
                new.v.y = mask.if_positive(new.v.y, old.v.y);
                new.w = mask.if_positive(new.w, old.w);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use super::*;
    use crate::solver::contact::reference::ConstraintPass;
    use crate::solver::contact::Softness;
    use crate::solver::contact::{ConstraintPoint, SolveContext, APPROACH_RECORDED, PUSHED};
    use carom_shapes::Rot;

    /// A small deterministic generator, so the test needs no dependency.
    struct Numbers(u32);

    impl Numbers {
        fn next(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (self.0 >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        }
    }

    fn state(n: &mut Numbers) -> BodyState {
        BodyState {
            v: Vec2::new(n.next() * 3.0, n.next() * 3.0),
            w: n.next() * 5.0,
            dp: Vec2::new(n.next() * 0.01, n.next() * 0.01),
            dq: Rot::from_angle(n.next() * 0.05),
            da: 0.0,
        }
    }

    fn constraint(n: &mut Numbers, index: u32) -> ContactConstraint<1> {
        let normal = Vec2::new(n.next(), n.next()).normalize_or(Vec2::Y);
        let mut c = ContactConstraint::<1> {
            a: 2 * index,
            b: 2 * index + 1,
            inv_mass_a: 1.0 + n.next().abs(),
            inv_inertia_a: 2.0 + n.next().abs(),
            // Every third B is immovable, so that pair is stiffer.
            inv_mass_b: if index % 3 == 0 { 0.0 } else { 1.5 },
            inv_inertia_b: if index % 3 == 0 { 0.0 } else { 4.0 },
            normal,
            friction: 0.6,
            restitution: if index % 2 == 0 { 0.5 } else { 0.0 },
            ..ContactConstraint::default()
        };
        let ra = Vec2::new(n.next(), n.next()) * 0.3;
        let rb = Vec2::new(n.next(), n.next()) * 0.3;
        c.points[0] = ConstraintPoint {
            base_separation: n.next() * 0.02,
            normal_impulse: n.next().abs() * 0.1,
            tangent_impulse: n.next() * 0.05,
            approach_speed: n.next() * 3.0,
            ..ConstraintPoint::at(&c, ra, rb)
        };
        if index % 4 == 0 {
            c.mark_approach_recorded(0);
        }
        c
    }

    /// A 240 Hz substep's solve context, and sixteen body states with eight
    /// one-point constraints between them, drawn from `seed`.
    fn batch_setup(seed: u32) -> (SolveContext, Vec<BodyState>, Vec<ContactConstraint<1>>) {
        let mut n = Numbers(seed);
        let ctx = SolveContext {
            inv_h: 240.0,
            push_speed: 3.0,
            restitution_threshold: 1.0,
            soft: Softness::new(60.0, 10.0, 1.0 / 240.0),
            stiff: Softness::new(120.0, 10.0, 1.0 / 240.0),
        };
        let states = (0..16).map(|_| state(&mut n)).collect();
        let constraints = (0..8).map(|i| constraint(&mut n, i)).collect();
        (ctx, states, constraints)
    }

    #[test]
    fn eight_lanes_give_the_same_bits_as_eight_single_constraints() {
        let (ctx, states, constraints) = batch_setup(7);

        // One at a time.
        let mut scalar_states = states.clone();
        let mut scalar = constraints.clone();
        for c in &mut scalar {
            let (ia, ib) = (c.a as usize, c.b as usize);
            let (mut a, mut b) = (scalar_states[ia], scalar_states[ib]);
            WarmStart.run(c, &mut a, &mut b);
            Solve {
                ctx,
                use_bias: true,
            }
            .run(c, &mut a, &mut b);
            Solve {
                ctx,
                use_bias: false,
            }
            .run(c, &mut a, &mut b);
            Restitution { ctx }.run(c, &mut a, &mut b);
            scalar_states[ia] = a;
            scalar_states[ib] = b;
        }

        // Eight at once, on each lane type this processor can run.
        let (mut batch, mut bounce) = WideConstraint::pack(&constraints, 0);
        let mut wide_states = states.clone();
        run_all_passes(&mut batch, &mut bounce, &mut wide_states, ctx);
        assert_same_bits(&batch, &wide_states, &scalar, &scalar_states);

        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            #[target_feature(enable = "avx2")]
            unsafe fn on_avx(
                batch: &mut WideConstraint<1>,
                bounce: &mut WideBounce<1>,
                states: &mut [BodyState],
                ctx: SolveContext,
            ) {
                let batches = crate::solver::avx::as_avx(std::slice::from_mut(batch));
                let bounces = crate::solver::avx::as_avx(std::slice::from_mut(bounce));
                run_all_passes(&mut batches[0], &mut bounces[0], states, ctx);
            }
            let (mut batch, mut bounce) = WideConstraint::pack(&constraints, 0);
            let mut avx_states = states.clone();
            // SAFETY: the processor has AVX2.
            unsafe { on_avx(&mut batch, &mut bounce, &mut avx_states, ctx) };
            assert_same_bits(&batch, &avx_states, &scalar, &scalar_states);
        }
    }

    #[test]
    fn the_restitution_pass_skips_only_batches_it_would_leave_unchanged() {
        let (ctx, states, mut constraints) = batch_setup(11);
        for c in &mut constraints {
            // Each point pushed, striking fast: it would bounce if it could.
            c.restitution = 0.0;
            c.points[0].approach_speed = -5.0;
            c.flags[0] |= PUSHED | APPROACH_RECORDED;
        }
        let pass = Restitution { ctx };
        let run = |constraints: &[ContactConstraint<1>]| {
            let (mut batch, mut bounce) = WideConstraint::pack(constraints, 0);
            let bouncy = bounce.is_bouncy();
            let mut after = states.clone();
            let ptr = StatesPtr(after.as_mut_ptr());
            let dynamic = vec![true; after.len()];
            // SAFETY: the batch indexes `after`, and nothing else touches it.
            unsafe {
                let (mut a, mut b) = (f32x8::gather(ptr, &batch.a), f32x8::gather(ptr, &batch.b));
                pass.run_wide(&mut batch, &mut bounce, bouncy, &mut a, &mut b);
                f32x8::scatter(ptr, &batch.a, &dynamic, &a);
                f32x8::scatter(ptr, &batch.b, &dynamic, &b);
            }
            after
                .iter()
                .zip(&states)
                .filter(|(got, before)| {
                    (got.v.x.to_bits(), got.v.y.to_bits(), got.w.to_bits())
                        != (
                            before.v.x.to_bits(),
                            before.v.y.to_bits(),
                            before.w.to_bits(),
                        )
                })
                .count()
        };
        let bouncy = |cs: &[ContactConstraint<1>]| WideConstraint::pack(cs, 0).1.is_bouncy();
        assert!(pass.leaves_alone(bouncy(&constraints)));
        assert_eq!(run(&constraints), 0, "a skipped batch would have changed");
        // One bouncy lane is enough to run the batch, and it bounces.
        constraints[5].restitution = 0.5;
        assert!(!pass.leaves_alone(bouncy(&constraints)));
        assert!(run(&constraints) > 0, "the bouncy lane moved its bodies");
    }

    /// Warm start, solve, relax and restitution on one batch, every body
    /// dynamic.
    #[inline(always)]
    fn run_all_passes<L: WideLane>(
        batch: &mut WideConstraint<1, L>,
        bounce: &mut WideBounce<1, L>,
        states: &mut [BodyState],
        ctx: SolveContext,
    ) {
        let ptr = StatesPtr(states.as_mut_ptr());
        let dynamic = vec![true; states.len()];
        let bouncy = bounce.is_bouncy();
        // SAFETY: the batch indexes `states`, and nothing else touches it.
        unsafe {
            let (mut a, mut b) = (L::gather(ptr, &batch.a), L::gather(ptr, &batch.b));
            WarmStart.run_wide(batch, bounce, bouncy, &mut a, &mut b);
            Solve {
                ctx,
                use_bias: true,
            }
            .run_wide(batch, bounce, bouncy, &mut a, &mut b);
            Solve {
                ctx,
                use_bias: false,
            }
            .run_wide(batch, bounce, bouncy, &mut a, &mut b);
            Restitution { ctx }.run_wide(batch, bounce, bouncy, &mut a, &mut b);
            L::scatter(ptr, &batch.a, &dynamic, &a);
            L::scatter(ptr, &batch.b, &dynamic, &b);
        }
    }

    fn assert_same_bits(
        batch: &WideConstraint<1>,
        states: &[BodyState],
        scalar: &[ContactConstraint<1>],
        scalar_states: &[BodyState],
    ) {
        let (normal, tangent) = batch.impulses(0);
        for k in 0..LANES {
            let p = &scalar[k].points[0];
            assert_eq!(
                normal[k].to_bits(),
                p.normal_impulse.to_bits(),
                "normal impulse, lane {k}"
            );
            assert_eq!(
                tangent[k].to_bits(),
                p.tangent_impulse.to_bits(),
                "tangent impulse, lane {k}"
            );
        }
        for (i, (got, expected)) in states.iter().zip(scalar_states).enumerate() {
            assert_eq!(got.v.x.to_bits(), expected.v.x.to_bits(), "vx, body {i}");
            assert_eq!(got.v.y.to_bits(), expected.v.y.to_bits(), "vy, body {i}");
            assert_eq!(got.w.to_bits(), expected.w.to_bits(), "w, body {i}");
            assert_eq!(got.dp, expected.dp, "dp, body {i}");
            assert_eq!(got.dq, expected.dq, "dq, body {i}");
            assert_eq!(got.da.to_bits(), expected.da.to_bits(), "da, body {i}");
        }
    }
}
