//! Integration of body velocities and positions within a substep.
//!
//! Semi-implicit Euler: velocities first (gravity, damping), then positions
//! from the new velocities. Positions are tracked as a change `Δp`, `Δq`
//! since the start of the step, which is what the contact solver needs to
//! measure separations without recomputing manifolds.

use carom_shapes::Rot;
use glam::Vec2;

/// The hot per-body state of the solver: eight `f32`, 32 bytes, aligned so
/// that a state never straddles two cache lines. The AVX2 path loads a
/// state as two halves, `(v.x, v.y, w, dp.x)` and `(dp.y, dq.c, dq.s, da)`,
/// so the layout is fixed (checked below).
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct BodyState {
    /// Linear velocity of the centre of mass.
    pub v: Vec2,
    /// Angular velocity.
    pub w: f32,
    /// Translation of the centre of mass since the start of the step.
    pub dp: Vec2,
    /// Rotation since the start of the step.
    pub dq: Rot,
    /// Angle turned since the start of the step (the angle of `dq`, unwrapped).
    pub da: f32,
}

const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<BodyState>() == 32);
    assert!(offset_of!(BodyState, v) == 0 && offset_of!(BodyState, w) == 8);
    assert!(offset_of!(BodyState, dp) == 12 && offset_of!(BodyState, dq) == 20);
    assert!(offset_of!(BodyState, da) == 28);
    assert!(offset_of!(Rot, c) == 0 && offset_of!(Rot, s) == 4);
};

impl BodyState {
    /// A body at rest that does not move this step.
    pub const AT_REST: BodyState = BodyState {
        v: Vec2::ZERO,
        w: 0.0,
        dp: Vec2::ZERO,
        dq: Rot::IDENTITY,
        da: 0.0,
    };
}

/// What velocity integration needs about a body. The layout is fixed:
/// the AVX2 path loads the first four `f32` (gravity, dampings) as a quad.
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)]
pub(crate) struct BodyMotion {
    /// Gravity times the body's gravity scale; zero for non-dynamic bodies.
    pub gravity: Vec2,
    /// `1 / (1 + h·c)` for linear damping `c`.
    pub linear_damping: f32,
    /// `1 / (1 + h·c)` for angular damping `c`.
    pub angular_damping: f32,
    /// Whether the body moves at all (false for static bodies).
    pub moves: bool,
}

impl BodyMotion {
    /// A body that does not move.
    pub const STILL: BodyMotion = BodyMotion {
        gravity: Vec2::ZERO,
        linear_damping: 1.0,
        angular_damping: 1.0,
        moves: false,
    };
}

/// `v ← h·g + v / (1 + h·c)`: gravity, then implicit damping, which can
/// only slow a body down however large `c·h` is.
#[inline]
pub(crate) fn integrate_velocity(state: &mut BodyState, motion: &BodyMotion, h: f32) {
    state.v = h * motion.gravity + motion.linear_damping * state.v;
    state.w *= motion.angular_damping;
}

/// Limits that keep a wild body from wrecking the step.
#[derive(Debug, Clone, Copy)]
pub(crate) struct MotionLimits {
    pub max_linear_speed: f32,
    /// Most a body may turn in one substep, radians.
    pub max_rotation: f32,
}

/// `Δp += h·v`, `Δq ← R(h·ω)·Δq`, after clamping speed and turn rate.
#[inline]
pub(crate) fn integrate_position(state: &mut BodyState, limits: &MotionLimits, h: f32) {
    let speed_sq = state.v.length_squared();
    if speed_sq > limits.max_linear_speed * limits.max_linear_speed {
        state.v = cut_to_speed(state.v, speed_sq, limits.max_linear_speed);
    }
    if (h * state.w).abs() > limits.max_rotation {
        state.w = state.w.signum() * limits.max_rotation / h;
    }
    state.dp += h * state.v;
    let turn = h * state.w;
    state.dq = small_rotation(turn).mul(state.dq);
    state.da += turn;
}

/// `v` (of squared length `speed_sq`) cut to length `max`, its direction
/// kept. `|v|²` overflows `f32` from about 1.8·10¹⁹ m/s, which a velocity
/// set by hand can reach; such a `v` is first divided by its larger
/// component, after which its length lies in [1, √2].
#[inline]
pub(crate) fn cut_to_speed(v: Vec2, speed_sq: f32, max: f32) -> Vec2 {
    if speed_sq.is_finite() {
        v * (max / speed_sq.sqrt())
    } else {
        let shrunk = v / v.abs().max_element();
        shrunk * (max / shrunk.length())
    }
}

/// The rotation by a small angle `θ` without trigonometry: the Taylor
/// series of cos θ and sin θ to θ⁶ and θ⁷, then renormalised. The angle is
/// off by at most about θ⁸/40320: 2·10⁻⁶ rad at the π/4 a body may turn in
/// one substep, and below f32 resolution for the few hundredths of a radian
/// typical of a substep.
#[inline]
pub(crate) fn small_rotation(theta: f32) -> Rot {
    let t2 = theta * theta;
    let c = 1.0 - t2 * (0.5 - t2 * (1.0 / 24.0 - t2 * (1.0 / 720.0)));
    let s = theta * (1.0 - t2 * (1.0 / 6.0 - t2 * (1.0 / 120.0 - t2 * (1.0 / 5040.0))));
    let inv_len = 1.0 / (c * c + s * s).sqrt();
    Rot {
        c: c * inv_len,
        s: s * inv_len,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn speeds_past_the_limit_are_cut_to_it_along_their_direction() {
        // Up to 3·10³⁸ m/s, where |v|² is infinite in f32.
        for v in [
            Vec2::new(300.0, -400.0),
            Vec2::new(1e19, 1e19),
            Vec2::new(-3e38, 1e30),
            Vec2::new(0.0, f32::MAX),
        ] {
            let state = &mut BodyState {
                v,
                ..BodyState::AT_REST
            };
            let limits = MotionLimits {
                max_linear_speed: 400.0,
                max_rotation: 1.0,
            };
            integrate_position(state, &limits, 0.01);
            let (got, want) = (state.v, 400.0 * v.normalize_or_zero());
            let direction = v / v.abs().max_element();
            assert!((got.length() - 400.0).abs() < 1e-3, "{v} → {got}");
            assert!(got.perp_dot(direction).abs() < 1e-3 && got.dot(direction) > 0.0);
            if v.length_squared().is_finite() {
                assert!((got - want).length() < 1e-3, "{v} → {got}");
            }
            assert_eq!(state.dp, 0.01 * got);
        }
    }

    #[test]
    fn small_rotation_matches_sin_cos() {
        for i in -40..=40 {
            let theta = i as f32 * (std::f32::consts::FRAC_PI_4 / 40.0);
            let r = small_rotation(theta);
            // Series error θ⁸/40320 ≤ 1.7e-6 at π/4, plus f32 rounding.
            assert!((r.c - theta.cos()).abs() < 2.5e-6, "cos at {theta}");
            assert!((r.s - theta.sin()).abs() < 2.5e-6, "sin at {theta}");
            if theta.abs() <= 0.1 {
                assert!((r.c - theta.cos()).abs() < 2e-7, "cos at {theta}");
                assert!((r.s - theta.sin()).abs() < 2e-7, "sin at {theta}");
            }
        }
    }

    #[test]
    fn damping_never_reverses_velocity() {
        let mut s = BodyState {
            v: Vec2::new(3.0, -2.0),
            w: 5.0,
            ..BodyState::AT_REST
        };
        let h = 0.1;
        let c = 1e6;
        let motion = BodyMotion {
            gravity: Vec2::ZERO,
            linear_damping: 1.0 / (1.0 + h * c),
            angular_damping: 1.0 / (1.0 + h * c),
            moves: true,
        };
        integrate_velocity(&mut s, &motion, h);
        assert!(s.v.x > 0.0 && s.v.x < 1e-4 && s.v.y < 0.0 && s.w > 0.0 && s.w < 1e-4);
    }
}
