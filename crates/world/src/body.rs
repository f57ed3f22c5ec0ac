//! Bodies: the handles that name bodies and shapes, how a body takes part
//! (static, kinematic, dynamic), its material and definition, and the dense
//! list of bodies a step works on.

use carom_shapes::{Rot, Transform};
use glam::{DVec2, Vec2};
use serde::{Deserialize, Serialize};

use crate::collider::NO_SHAPE;
use crate::error::{check_finite, check_non_negative, WorldError};
use crate::settings::WorldSettings;

slotmap::new_key_type! {
    /// Names a body of a [`crate::World`]. Handles are generational: once
    /// the body is removed, its handle is reported as stale forever, even if
    /// the slot is reused.
    pub struct BodyHandle;
    /// Names a shape attached to a body of a [`crate::World`]; generational
    /// like [`BodyHandle`].
    pub struct ShapeHandle;
}

/// How a body takes part in the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum BodyKind {
    /// Never moves; infinite mass.
    Static,
    /// Moves by its own velocities; pushes dynamic bodies but is never pushed.
    Kinematic,
    /// Simulated: gravity, contacts and impulses move it.
    #[default]
    Dynamic,
}

impl BodyKind {
    /// The lower-case name used in outputs: `static`, `kinematic`, `dynamic`.
    pub fn as_str(self) -> &'static str {
        match self {
            BodyKind::Static => "static",
            BodyKind::Kinematic => "kinematic",
            BodyKind::Dynamic => "dynamic",
        }
    }
}

/// Surface and bulk properties of a shape.
///
/// When two shapes touch, carom combines their materials as follows:
/// friction is the geometric mean `√(μa·μb)` (so a frictionless surface stays
/// frictionless against anything) and restitution is the larger of the two
/// (so a bouncy ball bounces on any floor).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Material {
    /// Mass per unit area, kg/m². Default 1.
    pub density: f32,
    /// Coulomb friction coefficient, ≥ 0. Default 0.6.
    pub friction: f32,
    /// Coefficient of restitution in [0, 1]. Default 0.
    pub restitution: f32,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            density: 1.0,
            friction: 0.6,
            restitution: 0.0,
        }
    }
}

impl Material {
    /// Checks that every field is finite and in range.
    pub fn validate(&self) -> Result<(), WorldError> {
        check_non_negative("material.density", self.density)?;
        check_non_negative("material.friction", self.friction)?;
        check_non_negative("material.restitution", self.restitution)?;
        if self.restitution > 1.0 {
            return Err(WorldError::invalid(
                "material.restitution",
                format!("must lie in [0, 1], got {}", self.restitution),
            ));
        }
        Ok(())
    }

    /// Friction of a touching pair: the geometric mean.
    #[inline]
    pub fn mix_friction(a: f32, b: f32) -> f32 {
        (a * b).sqrt()
    }

    /// Restitution of a touching pair: the larger.
    #[inline]
    pub fn mix_restitution(a: f32, b: f32) -> f32 {
        a.max(b)
    }
}

/// Everything needed to create a body. Build one with [`BodyDef::dynamic`],
/// [`BodyDef::kinematic`] or [`BodyDef::fixed`] and the chained setters.
#[derive(Debug, Clone, PartialEq)]
pub struct BodyDef {
    /// Static, kinematic or dynamic.
    pub kind: BodyKind,
    /// World position of the body origin.
    pub position: Vec2,
    /// Rotation of the body frame, radians.
    pub angle: f32,
    /// Linear velocity of the centre of mass, m/s.
    pub linear_velocity: Vec2,
    /// Angular velocity, rad/s.
    pub angular_velocity: f32,
    /// A label echoed in outputs.
    pub name: Option<String>,
    /// Multiplies the world's gravity for this body. Default 1.
    pub gravity_scale: f32,
    /// Linear velocity damping, 1/s. Default 0.
    pub linear_damping: f32,
    /// Angular velocity damping, 1/s. Default 0.
    pub angular_damping: f32,
}

impl Default for BodyDef {
    fn default() -> Self {
        BodyDef {
            kind: BodyKind::Dynamic,
            position: Vec2::ZERO,
            angle: 0.0,
            linear_velocity: Vec2::ZERO,
            angular_velocity: 0.0,
            name: None,
            gravity_scale: 1.0,
            linear_damping: 0.0,
            angular_damping: 0.0,
        }
    }
}

impl BodyDef {
    /// A dynamic body at the origin.
    pub fn dynamic() -> BodyDef {
        BodyDef::default()
    }

    /// A kinematic body at the origin.
    pub fn kinematic() -> BodyDef {
        BodyDef {
            kind: BodyKind::Kinematic,
            ..BodyDef::default()
        }
    }

    /// A static body at the origin.
    pub fn fixed() -> BodyDef {
        BodyDef {
            kind: BodyKind::Static,
            ..BodyDef::default()
        }
    }

    /// Sets the position of the body origin.
    pub fn position(mut self, x: f32, y: f32) -> BodyDef {
        self.position = Vec2::new(x, y);
        self
    }

    /// Sets the angle, radians.
    pub fn angle(mut self, angle: f32) -> BodyDef {
        self.angle = angle;
        self
    }

    /// Sets the linear velocity.
    pub fn velocity(mut self, vx: f32, vy: f32) -> BodyDef {
        self.linear_velocity = Vec2::new(vx, vy);
        self
    }

    /// Sets the angular velocity.
    pub fn angular_velocity(mut self, w: f32) -> BodyDef {
        self.angular_velocity = w;
        self
    }

    /// Sets the label.
    pub fn name(mut self, name: impl Into<String>) -> BodyDef {
        self.name = Some(name.into());
        self
    }

    /// Sets the gravity scale.
    pub fn gravity_scale(mut self, scale: f32) -> BodyDef {
        self.gravity_scale = scale;
        self
    }

    /// Checks every number is finite and every damping non-negative.
    pub fn validate(&self) -> Result<(), WorldError> {
        check_finite("position.x", self.position.x)?;
        check_finite("position.y", self.position.y)?;
        check_finite("angle", self.angle)?;
        check_finite("velocity.x", self.linear_velocity.x)?;
        check_finite("velocity.y", self.linear_velocity.y)?;
        check_finite("angular_velocity", self.angular_velocity)?;
        check_finite("gravity_scale", self.gravity_scale)?;
        check_non_negative("linear_damping", self.linear_damping)?;
        check_non_negative("angular_damping", self.angular_damping)?;
        Ok(())
    }
}

/// A body as the world stores it. Positions are kept both as the origin
/// transform (what users and shapes see) and as the centre of mass (what
/// the solver moves).
#[derive(Debug, Clone)]
pub(crate) struct Body {
    pub handle: BodyHandle,
    pub kind: BodyKind,
    /// Pose of the body origin.
    pub transform: Transform,
    /// Angle accumulated over every step, so it does not wrap at ±π.
    pub angle: f32,
    /// Centre of mass in world space.
    pub center: Vec2,
    /// Centre of mass in the body frame.
    pub local_center: Vec2,
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
    pub mass: f32,
    pub inv_mass: f32,
    pub inertia: f32,
    pub inv_inertia: f32,
    pub gravity_scale: f32,
    pub linear_damping: f32,
    pub angular_damping: f32,
    /// Dense indices of this body's first and last shapes (the rest are
    /// linked through `Collider::next_shape`), or `NO_SHAPE` for none. A
    /// list rather than a `Vec` per body keeps bodies small and spares a
    /// heap allocation for each.
    pub first_shape: u32,
    pub last_shape: u32,
    /// Radius of the largest disc the body surely contains around its
    /// thinnest part; a body moving less than a fraction of it per step cannot
    /// tunnel.
    pub min_extent: f32,
    /// Largest distance from the centre of mass to any point of the body.
    pub max_extent: f32,
    /// Seconds the body has moved slower than the sleep thresholds.
    pub sleep_time: f32,
    /// The sleeping island this body belongs to, or [`AWAKE`].
    pub island: u32,
}

/// [`Body::island`] of a body that is not asleep.
pub(crate) const AWAKE: u32 = u32::MAX;

/// The world's bodies, noting whether anything outside a step's own stages
/// changed them. The solver keeps its per-body arrays from one step to the
/// next, refreshed by the step's last stage; any other change (a program's
/// edit, a body added, woken or put to sleep) makes it load them afresh.
/// Every mutable access notes a change, except [`Bodies::in_step`], which
/// the step's stages use and which leaves the noting to them.
#[derive(Debug)]
pub(crate) struct Bodies {
    list: Vec<Body>,
    changed: bool,
}

impl Default for Bodies {
    fn default() -> Bodies {
        Bodies {
            list: Vec::new(),
            changed: true,
        }
    }
}

impl std::ops::Deref for Bodies {
    type Target = Vec<Body>;

    fn deref(&self) -> &Vec<Body> {
        &self.list
    }
}

impl std::ops::DerefMut for Bodies {
    fn deref_mut(&mut self) -> &mut Vec<Body> {
        self.changed = true;
        &mut self.list
    }
}

impl Bodies {
    /// The bodies, for a stage of the step that says itself whether it
    /// changed what the solver keeps ([`Bodies::note_change`]).
    pub fn in_step(&mut self) -> &mut [Body] {
        &mut self.list
    }

    /// Notes a change the solver's arrays do not reflect.
    pub fn note_change(&mut self) {
        self.changed = true;
    }

    /// Whether anything changed since [`Bodies::take_change`] last ran.
    #[cfg(test)]
    pub fn changed(&self) -> bool {
        self.changed
    }

    /// Whether anything changed since the last call, and forgets it.
    pub fn take_change(&mut self) -> bool {
        std::mem::replace(&mut self.changed, false)
    }
}

/// The fastest a body may move and turn: the world's `max_linear_speed`
/// and [`WorldSettings::max_angular_speed`]. The solver clamps to them at
/// every substep; velocities given by hand are cut to them as they are
/// given, so that no step starts with a body faster than that. (A body set
/// going at 1e30 m/s would otherwise meet its neighbours at that speed in
/// the first substep's contacts, before any clamp, and throw them all at
/// the limit; and its squared speed would overflow `f32`.)
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpeedLimits {
    linear: f64,
    angular: f64,
}

impl SpeedLimits {
    pub fn of(settings: &WorldSettings) -> SpeedLimits {
        SpeedLimits {
            linear: f64::from(settings.max_linear_speed),
            angular: f64::from(settings.max_angular_speed()),
        }
    }

    /// `v` and `w`, worked out in `f64` by the caller so that nothing has
    /// overflowed, cut to the limits: the direction of travel and the sense
    /// of turning are kept. Velocities within the limits come back as they
    /// were, bit for bit.
    pub fn cut(&self, v: DVec2, w: f64) -> (Vec2, f32) {
        let speed = v.length();
        let v = if speed > self.linear {
            v * (self.linear / speed)
        } else {
            v
        };
        (v.as_vec2(), w.clamp(-self.angular, self.angular) as f32)
    }

    /// Cuts a body's velocities to the limits (a static body has none).
    pub fn apply(&self, body: &mut Body) {
        if body.kind != BodyKind::Static {
            let v = body.linear_velocity.as_dvec2();
            (body.linear_velocity, body.angular_velocity) =
                self.cut(v, f64::from(body.angular_velocity));
        }
    }
}

impl Body {
    /// A body made from `def`; its name is kept by the world, not here.
    pub fn new(handle: BodyHandle, def: &BodyDef) -> Body {
        let transform = Transform {
            translation: def.position,
            rotation: Rot::from_angle(def.angle),
        };
        Body {
            handle,
            kind: def.kind,
            transform,
            angle: def.angle,
            center: def.position,
            local_center: Vec2::ZERO,
            linear_velocity: def.linear_velocity,
            angular_velocity: def.angular_velocity,
            mass: 0.0,
            inv_mass: 0.0,
            inertia: 0.0,
            inv_inertia: 0.0,
            gravity_scale: def.gravity_scale,
            linear_damping: def.linear_damping,
            angular_damping: def.angular_damping,
            first_shape: NO_SHAPE,
            last_shape: NO_SHAPE,
            min_extent: 0.0,
            max_extent: 0.0,
            sleep_time: 0.0,
            island: AWAKE,
        }
    }

    /// How far any point of the body may travel in `dt` at its current
    /// velocities: `(|v| + |ω|·max_extent)·dt`.
    #[inline]
    pub fn motion_bound(&self, dt: f32) -> f32 {
        (self.linear_velocity.length() + self.angular_velocity.abs() * self.max_extent) * dt
    }

    /// Whether the solver may change this body's velocity.
    #[inline]
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }

    /// Whether the body is part of a sleeping island.
    #[inline]
    pub fn is_sleeping(&self) -> bool {
        self.island != AWAKE
    }

    /// A dynamic body that is awake: the solver moves it this step.
    #[inline]
    pub fn is_awake_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic && self.island == AWAKE
    }

    /// Whether the body can move into others this step: an awake dynamic
    /// body, or a kinematic body with a velocity. Only such a body can wake a
    /// sleeping one.
    #[inline]
    pub fn is_moving(&self) -> bool {
        match self.kind {
            BodyKind::Static => false,
            BodyKind::Kinematic => {
                self.linear_velocity != Vec2::ZERO || self.angular_velocity != 0.0
            }
            BodyKind::Dynamic => self.island == AWAKE,
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A finite `f32` of any size and sign, subnormals and zero included.
    fn any_finite() -> impl Strategy<Value = f32> {
        (any::<bool>(), -149i32..128, 1.0f32..2.0, any::<bool>()).prop_map(
            |(negative, power, mantissa, zero)| {
                let magnitude = if zero {
                    0.0
                } else {
                    (mantissa * 2f32.powi(power)).min(f32::MAX)
                };
                if negative {
                    -magnitude
                } else {
                    magnitude
                }
            },
        )
    }

    proptest! {
        #[test]
        fn cut_velocities_keep_their_way_and_stay_within_the_limits(
            vx in any_finite(),
            vy in any_finite(),
            w in any_finite(),
            linear in 1e-3f32..1e6,
            substeps in 1u32..=64,
        ) {
            let settings = WorldSettings {
                max_linear_speed: linear,
                substeps,
                ..WorldSettings::default()
            };
            let limits = SpeedLimits::of(&settings);
            let v = Vec2::new(vx, vy);
            let (cut, cut_w) = limits.cut(v.as_dvec2(), f64::from(w));
            prop_assert!(cut.is_finite() && cut_w.is_finite());
            let max_w = settings.max_angular_speed();
            prop_assert!(cut_w.abs() <= max_w && cut_w * w >= 0.0);
            let speed = v.as_dvec2().length();
            if speed <= f64::from(linear) {
                // Within the limit: the same bits.
                prop_assert_eq!(cut.to_array().map(f32::to_bits), v.to_array().map(f32::to_bits));
            } else {
                // Cut to the limit along the same direction.
                let cut_speed = cut.as_dvec2().length();
                prop_assert!((cut_speed / f64::from(linear) - 1.0).abs() < 1e-6);
                let way = v.as_dvec2() / speed;
                prop_assert!((cut.as_dvec2() / cut_speed - way).length() < 1e-6);
            }
            if w.abs() <= max_w {
                prop_assert_eq!(cut_w.to_bits(), w.to_bits());
            }
        }
    }
}
