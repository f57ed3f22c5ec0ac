//! Continuous collision: fast dynamic bodies must not pass through static or
//! kinematic geometry, however thin.
//!
//! Speculative contacts, whose reach grows with the approach speed, stop
//! almost every impact within the step. What they cannot foresee is a change
//! of course during the step: a body knocked by another into a wall it had
//! no contact with. So after the solver, a *fast* body (one that moved more
//! than half its thinnest extent) is swept from its start pose to its end
//! pose against the static and kinematic shapes its path overlaps (by box,
//! and by band for a wall, see [`crate::broadphase`]) and that it had no
//! contact with this step (those the solver already handled). At
//! the first time of impact `t` it is moved back to the pose at `t`, its
//! velocity taken at the same instant (`v₀ + t·(v₁ − v₀)`), so position and
//! velocity stay consistent. The next step's contact then resolves the
//! impact, restitution included.
//!
//! For a circle the sweep is a ray against the wall inflated by the radius,
//! the segment–circle computation again; other shapes use conservative
//! advancement (both in the narrowphase crate).

use carom_narrowphase::{time_of_impact, Sweep, ToiState};
use carom_shapes::Rot;

use crate::body::{Body, BodyKind};
use crate::broadphase::BroadPhase;
use crate::collider::{shape_list, Collider};
use crate::contacts::ContactSet;
use crate::solver::{set_pose, StartPose, StartPoses};
use crate::threading::{share_slots, HelperBoard};

/// A body is fast when it moves more than this fraction of its thinnest
/// extent in one step.
const FAST_FRACTION: f32 = 0.5;

/// Gap the sweep stops at, metres: small, and well inside the speculative
/// distance so the next step sees the contact.
const TARGET_SEPARATION: f32 = 0.005;

/// Bodies per task: each task sweeps the fast ones among a run of this
/// many bodies. Fixed, so the split does not depend on the threads; runs
/// rather than a list of the fast bodies, so that finding them is shared
/// too.
const CCD_BLOCK: usize = 512;

/// Buffers of the continuous pass, kept between steps so that a step does
/// not allocate once their sizes settle.
#[derive(Debug, Default)]
pub(crate) struct Continuous {
    blocks: Vec<BlockBuffers>,
}

/// Per block of bodies: a query scratch list and the impacts found, each a
/// body index and the fraction of the step it is moved back to.
type BlockBuffers = (Vec<u32>, Vec<(usize, f32)>);

impl Continuous {
    /// Sweeps every fast dynamic body; returns how many were moved back.
    /// With a `helper` board, the blocks of bodies are shared with the
    /// thread waiting on it.
    pub fn solve(
        &mut self,
        bodies: &mut [Body],
        colliders: &[Collider],
        start: &StartPoses,
        broadphase: &BroadPhase,
        contacts: &ContactSet,
        helper: Option<&HelperBoard>,
    ) -> usize {
        let n = bodies.len();
        let blocks = n.div_ceil(CCD_BLOCK);
        self.blocks.resize_with(blocks, Default::default);
        let world = Obstacles {
            bodies,
            colliders,
            start,
            broadphase,
            contacts,
        };
        let sweep = |k: usize, (scratch, impacts): &mut BlockBuffers| {
            impacts.clear();
            let fast = start.fast_among(k * CCD_BLOCK..n.min((k + 1) * CCD_BLOCK));
            let hits = fast.filter_map(|i| earliest_impact(i, &world, scratch).map(|t| (i, t)));
            impacts.extend(hits);
        };
        share_slots(helper, &mut self.blocks[..blocks], sweep);
        let mut moved = 0;
        for (_, impacts) in &self.blocks[..blocks] {
            for &(i, t) in impacts {
                let from = start.of(i, &bodies[i]);
                rewind(&mut bodies[i], &from, t);
            }
            moved += impacts.len();
        }
        moved
    }
}

/// Whether `body`, which started the step at `start`, moved far enough to
/// be swept.
pub(crate) fn is_fast(body: &Body, start: &StartPose) -> bool {
    if body.kind != BodyKind::Dynamic || body.min_extent <= 0.0 {
        return false;
    }
    let travel =
        (body.center - start.center).length() + (body.angle - start.angle).abs() * body.max_extent;
    travel > FAST_FRACTION * body.min_extent
}

/// The body's motion over the step.
fn sweep_of(body: &Body, start: &StartPose) -> Sweep {
    Sweep {
        local_center: body.local_center,
        c1: start.center,
        c2: body.center,
        a1: start.angle,
        a2: body.angle,
    }
}

/// What a sweep is tested against.
struct Obstacles<'a> {
    bodies: &'a [Body],
    colliders: &'a [Collider],
    start: &'a StartPoses,
    broadphase: &'a BroadPhase,
    contacts: &'a ContactSet,
}

/// The earliest time of impact of body `i` with a static or kinematic
/// shape it had no contact with, if it comes before the end of the step.
fn earliest_impact(i: usize, world: &Obstacles, scratch: &mut Vec<u32>) -> Option<f32> {
    let Obstacles {
        bodies,
        colliders,
        start,
        broadphase,
        contacts,
    } = *world;
    let body = &bodies[i];
    let sweep = sweep_of(body, &start.of(i, body));
    let from = sweep.transform_at(0.0);
    let mut earliest = 1.0f32;
    for s in shape_list(colliders, body.first_shape) {
        let shape = &colliders[s as usize].shape;
        let path = shape.aabb_at(&from).union(&shape.aabb_at(&body.transform));
        broadphase.query_fixed(&path, scratch);
        for &k in scratch.iter() {
            // A path that stays out of a wall's band cannot meet the wall
            // this step; a pair with a contact was handled by the solver.
            if !broadphase.reaches_band(k, &path) || contacts.contains_pair(s, k) {
                continue;
            }
            let other = &colliders[k as usize];
            let owner = other.body as usize;
            let other_sweep = sweep_of(&bodies[owner], &start.of(owner, &bodies[owner]));
            let toi = time_of_impact(shape, &sweep, &other.shape, &other_sweep, TARGET_SEPARATION);
            if toi.state == ToiState::Hit && toi.fraction < earliest {
                earliest = toi.fraction;
            }
        }
    }
    (earliest < 1.0).then_some(earliest)
}

/// Moves a body back to time `t` of its step, pose and velocity alike.
fn rewind(body: &mut Body, start: &StartPose, t: f32) {
    body.center = start.center.lerp(body.center, t);
    body.angle = start.angle + t * (body.angle - start.angle);
    body.linear_velocity = start.linear_velocity.lerp(body.linear_velocity, t);
    body.angular_velocity =
        start.angular_velocity + t * (body.angular_velocity - start.angular_velocity);
    let turn = body.angle - start.angle;
    set_pose(body, Rot::from_angle(turn).mul(start.rotation));
}
