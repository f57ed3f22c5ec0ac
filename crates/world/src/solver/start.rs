//! Where bodies were when the step began, for continuous collision.
//!
//! Continuous collision sweeps each *fast* body from its start pose to its
//! end pose, against the fixed shapes, kinematic ones included, along
//! their own paths. It needs the start poses of those bodies only: in a
//! pile of thousands a step may have no fast body at all. So no pose is
//! copied as the step begins; each is taken as the step's motion is stored
//! into its body (the body still holds its start pose then), and kept only
//! for a fast or kinematic body.

use std::mem::MaybeUninit;
use std::ops::Range;

use carom_shapes::Rot;
use glam::Vec2;

use crate::body::{Body, BodyKind};
use crate::buffer::{refill, resize_to_overwrite};
use crate::ccd;

/// Where a body was at the start of the step.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct StartPose {
    pub center: Vec2,
    pub angle: f32,
    pub rotation: Rot,
    pub linear_velocity: Vec2,
    pub angular_velocity: f32,
}

impl StartPose {
    /// The pose `body` holds now.
    #[inline]
    pub fn of(body: &Body) -> StartPose {
        StartPose {
            center: body.center,
            angle: body.angle,
            rotation: body.transform.rotation,
            linear_velocity: body.linear_velocity,
            angular_velocity: body.angular_velocity,
        }
    }
}

/// Why a body's start pose was kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Kept {
    /// Not kept: the body is fixed, asleep, or dynamic and slow.
    No,
    /// A dynamic body fast enough to be swept.
    Fast,
    /// A kinematic body, which fast bodies are swept against.
    Kinematic,
}

/// The start poses of one step's fast and kinematic bodies.
#[derive(Debug, Default)]
pub(crate) struct StartPoses {
    /// Per body: whether its pose was kept, and why.
    kept: Vec<Kept>,
    /// Per body: its start pose, written only where `kept` says so.
    poses: Vec<MaybeUninit<StartPose>>,
}

impl StartPoses {
    /// Makes room for `bodies` bodies, each recorded by the stage that
    /// stores it (see [`StartPoses::slots`]).
    pub fn resize(&mut self, bodies: usize) {
        resize_to_overwrite(&mut self.kept, bodies, Kept::No);
        // Nothing is written here, so the poses never kept take no memory.
        refill(&mut self.poses, bodies);
        self.poses.resize_with(bodies, MaybeUninit::uninit);
    }

    /// How many bodies there is room for.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Raw access for the stage that stores bodies, where each body is
    /// recorded by the one thread that stores it.
    pub fn slots(&mut self) -> (*mut Kept, *mut MaybeUninit<StartPose>) {
        (self.kept.as_mut_ptr(), self.poses.as_mut_ptr())
    }

    /// The bodies fast enough to be swept, in index order.
    pub fn fast(&self) -> impl Iterator<Item = usize> + '_ {
        self.fast_among(0..self.kept.len())
    }

    /// The bodies of `range` fast enough to be swept, in index order.
    pub fn fast_among(&self, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let first = range.start;
        let kept = self.kept[range].iter().enumerate();
        kept.filter(|(_, k)| **k == Kept::Fast)
            .map(move |(i, _)| first + i)
    }

    /// Where body `i`, now `body`, was at the start of the step. Only for
    /// a fast body or a fixed one: a slow dynamic body's start pose is not
    /// kept.
    pub fn of(&self, i: usize, body: &Body) -> StartPose {
        match self.kept[i] {
            // SAFETY: a pose is written wherever `kept` says it was kept.
            Kept::Fast | Kept::Kinematic => unsafe { self.poses[i].assume_init() },
            // A static or sleeping body did not move.
            Kept::No => {
                debug_assert!(!body.is_awake_dynamic(), "a slow body's start is not kept");
                StartPose::of(body)
            }
        }
    }
}

/// Whether a body stored as `body`, having started at `start`, must keep its
/// start pose.
#[inline]
pub(crate) fn keeps_start(body: &Body, start: &StartPose) -> Kept {
    match body.kind {
        BodyKind::Kinematic => Kept::Kinematic,
        BodyKind::Dynamic if ccd::is_fast(body, start) => Kept::Fast,
        _ => Kept::No,
    }
}

#[cfg(test)]
mod tests {
    use glam::Vec2;

    use crate::{BodyDef, World};

    #[test]
    fn only_fast_and_kinematic_bodies_keep_where_they_started() {
        // Far apart, so that nothing touches: a slow disc, a fast one (a
        // step at 60 m/s covers more than half its radius), a turning
        // kinematic disc and a fixed one.
        let defs = [
            BodyDef::dynamic().velocity(1.0, 0.0),
            BodyDef::dynamic().position(10.0, 0.0).velocity(60.0, 0.0),
            BodyDef::kinematic().position(0.0, 10.0).velocity(0.0, 2.0),
            BodyDef::fixed().position(10.0, 10.0),
        ];
        let starts: Vec<Vec2> = defs.iter().map(|d| d.position).collect();
        let mut world = World::weightless_discs(defs);
        world.step();

        let kept = &world.solver.start_poses;
        assert_eq!(kept.fast().collect::<Vec<_>>(), vec![1]);
        for (i, &start) in starts.iter().enumerate().skip(1) {
            let body = &world.bodies[i];
            assert_eq!(kept.of(i, body).center, start, "body {i}");
        }
        // The moving ones did move: what was kept is not their end pose.
        assert_ne!(world.bodies[1].center, starts[1]);
        assert_ne!(world.bodies[2].center, starts[2]);
    }
}
