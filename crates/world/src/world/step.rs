//! The step: its phases in order (broadphase, narrowphase, solver,
//! continuous collision and sleep), what it reports, and advancing by
//! frame time.

use carom_shapes::Aabb;

use crate::body::Body;
use crate::buffer::Room;
use crate::collider::StepCollider;
use crate::contacts::{ContactInputs, UpdateOn, WarmStart};
use crate::error::{check_finite, WorldError};
use crate::threading::{with_helper, HelperBoard, Sharing, Threading};

use super::World;

/// Figures from the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepStats {
    /// Candidate shape pairs the broadphase found.
    pub pairs: usize,
    /// Pairs with at least one contact point.
    pub manifolds: usize,
    /// Contact points (speculative ones included).
    pub contact_points: usize,
    /// Colours of the constraint graph (sets of constraints that share no
    /// body, solved eight at a time): the most any region of the graph
    /// used. A large step's graph is coloured in regions of nearby
    /// contacts, one after the other.
    pub colors: usize,
    /// Bodies moved back by continuous collision.
    pub ccd_hits: usize,
    /// Bodies asleep after the step.
    pub sleeping_bodies: usize,
    /// Where the step's time went.
    pub timings: StepTimings,
}

/// Wall-clock seconds spent in each phase of the last step.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct StepTimings {
    /// Finding candidate pairs.
    pub broadphase: f64,
    /// Computing manifolds and matching them for warm starting.
    pub narrowphase: f64,
    /// Colouring, preparing and solving constraints, integrating.
    pub solver: f64,
    /// Continuous collision and refreshing bounds.
    pub finish: f64,
}

impl StepTimings {
    /// The whole step.
    pub fn total(&self) -> f64 {
        self.broadphase + self.narrowphase + self.solver + self.finish
    }
}

/// Measures consecutive phases of a step.
struct PhaseClock(std::time::Instant);

impl PhaseClock {
    fn start() -> PhaseClock {
        PhaseClock(std::time::Instant::now())
    }

    /// Seconds since the last lap (or the start).
    fn lap(&mut self) -> f64 {
        let now = std::time::Instant::now();
        let seconds = now.duration_since(self.0).as_secs_f64();
        self.0 = now;
        seconds
    }
}

/// What [`World::advance`] did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Advance {
    /// Fixed steps run.
    pub steps: u32,
    /// How far the leftover time reaches into the next step, in [0, 1): draw
    /// each body at `lerp(previous pose, current pose, alpha)` for smooth motion.
    pub alpha: f32,
    /// Whether time was dropped because more than
    /// [`max_steps_per_advance`](crate::WorldSettings::max_steps_per_advance)
    /// steps were due.
    pub dropped_time: bool,
}

impl World {
    /// Figures from the last step.
    pub fn stats(&self) -> StepStats {
        self.stats
    }

    /// Advances the world by exactly one fixed step of `settings.dt`.
    ///
    /// A world of fewer than 8,192 shapes steps on the calling thread
    /// alone, as does any world when rayon has one thread. A larger one
    /// shares its step's loops with the threads of the rayon pool it is
    /// called from (`pool.install(|| world.step())`), or of rayon's global
    /// pool when called from any other thread. The result is the same bits
    /// either way and for every pool size.
    pub fn step(&mut self) {
        let threading = Threading::for_step(self.colliders.len(), rayon::current_num_threads());
        if threading == Threading::Pool && rayon::current_thread_index().is_none() {
            // From outside rayon, each parallel loop of the step would hand
            // its work to the pool and block until it came back, a dozen
            // times per step. Entering the pool once costs one hand-off.
            rayon::scope(|_| self.step_with(threading));
        } else {
            self.step_with(threading);
        }
    }

    /// [`World::step`], with its loops run as `threading` says.
    pub(crate) fn step_with(&mut self, threading: Threading) {
        let mut clock = PhaseClock::start();
        if self.islands.any_sleeping() && !self.bodies.iter().any(Body::is_moving) {
            // Everything sleeps or is fixed: nothing can change this step.
            self.stats = StepStats {
                manifolds: self.contacts.len(),
                contact_points: self.contacts.point_count(),
                sleeping_bodies: self.stats.sleeping_bodies,
                timings: StepTimings {
                    finish: clock.lap(),
                    ..StepTimings::default()
                },
                ..StepStats::default()
            };
            self.steps += 1;
            return;
        }
        let margin = self.settings.speculative_distance;
        // The shapes' views and needed boxes, last step's impulses and the
        // broadphase's buffers live until the contacts are made; the solver
        // then takes the same memory.
        let (shapes, contacts) = (self.colliders.len(), self.contacts.len());
        let mut room = self.scratch.room(
            Room::bytes_for::<StepCollider>(shapes)
                + Room::bytes_for::<Aabb>(shapes)
                + Room::bytes_for::<WarmStart>(contacts)
                + self.broadphase.room_hint(shapes),
        );
        let sized = "the room was sized for views, boxes and impulses";
        let view_slots = room.take::<StepCollider>(shapes).expect(sized);
        let needed_slots = room.take::<Aabb>(shapes).expect(sized);
        let warm_slots = room.take::<WarmStart>(contacts).expect(sized);
        let (broadphase, contacts) = (&mut self.broadphase, &self.contacts);
        let find_pairs = |helper: Option<&HelperBoard>| {
            broadphase.find_pairs(
                &self.bodies,
                &self.colliders,
                margin,
                self.settings.dt,
                self.static_version,
                Sharing { threading, helper },
                view_slots,
                needed_slots,
                room,
            )
        };
        // Made on several threads, the contacts need most of last step's
        // impulses copied aside first (all but the first third, which this
        // thread reads in place; see `ContactSet::make_shared`): another
        // thread does it as an errand while the broadphase, which is mostly
        // serial, runs (and its time counts as the broadphase's, which it
        // does not lengthen). The errand is held
        // back until the broadphase releases it, so that thread first takes
        // the work the broadphase shares (the boxes, the grid, the search
        // for pairs); it returns to the pool as the broadphase ends: awake,
        // so it joins in making the contacts at once. Made on this thread
        // alone, they read last step's in place instead, the slots taking
        // the few written over before they are read.
        let ((pairs, views), warm, broadphase) = match threading {
            Threading::Pool => {
                let copy = || {
                    // Moved in, so the copy may hand back slots borrowed
                    // from it.
                    let slots = warm_slots;
                    contacts.keep_warm_starts(slots, threading)
                };
                let lead =
                    |board: &HelperBoard| board.with_held_errand(copy, || find_pairs(Some(board)));
                let ((found, warm), ()) = with_helper(lead, || ());
                (found, Ok(warm), clock.lap())
            }
            Threading::Calling => (find_pairs(None), Err(warm_slots), clock.lap()),
        };
        self.stats.pairs = pairs.len();
        // Whether the solver must load its arrays afresh (see
        // `Solver::load`): taken before anything of this step reads them.
        let changed = self.bodies.take_change();
        let inputs = ContactInputs {
            views,
            batch_rounded: self.stadiums > 0,
            bodies: &self.bodies,
            colliders: &self.colliders,
            margin,
        };
        let any_sleeping = self.islands.any_sleeping();
        let (contacts, solver) = (&mut self.contacts, &mut self.solver);
        let (settings, bodies) = (&self.settings, &self.bodies);
        // With the other thread on a board, the moves of its runs are left
        // to make while the solver colours the contacts (see
        // `Solver::step`).
        let mut make_contacts =
            |on: UpdateOn| contacts.update(pairs, &inputs, any_sleeping, changed, on);
        let load = || solver.load(settings, bodies, threading, changed);
        // Last step's impulses were copied aside exactly when the step is
        // shared with a pool.
        let (narrowphase, loaded) = match warm {
            Ok(warm) if !any_sleeping => {
                // Nothing can wake, so the bodies are loaded into the solver
                // while the contacts are made (when they must be loaded at
                // all; see `Solver::load`): a loop that gains little when
                // shared gets another thread to itself. (Its time then
                // counts as the narrowphase's.) That thread then shares the
                // contacts' chunks on a board, and stays awake there until
                // the contacts are made, ready to colour them.
                let shared = |board: &HelperBoard| make_contacts(UpdateOn::Shared { warm, board });
                let ((), loaded) = with_helper(shared, load);
                (clock.lap(), loaded)
            }
            warm => {
                match warm {
                    // Bodies may wake, so they are loaded afterwards; the
                    // other thread shares the chunks on a board all the
                    // same, and stays awake there for the colouring.
                    Ok(warm) => {
                        with_helper(
                            |board| make_contacts(UpdateOn::Shared { warm, board }),
                            || (),
                        );
                    }
                    Err(spill) => make_contacts(UpdateOn::CallingThread { spill }),
                }
                for &b in self.contacts.to_wake() {
                    self.islands.wake_body(&mut self.bodies, b as usize);
                }
                let narrowphase = clock.lap();
                // Loaded after the wake-ups, which change what it reads.
                let changed = changed | self.bodies.take_change();
                (
                    narrowphase,
                    self.solver
                        .load(&self.settings, &self.bodies, threading, changed),
                )
            }
        };
        let bodies = self.bodies.in_step();
        let readiness = self
            .settings
            .sleep
            .then(|| self.islands.readiness_slots(bodies.len()));
        self.stats.colors = self.solver.step(
            &self.settings,
            bodies,
            &mut self.contacts,
            threading,
            &mut self.scratch,
            readiness,
            loaded,
        );
        self.stats.manifolds = self.contacts.len();
        self.stats.contact_points = self.contacts.point_count();
        let solver = clock.lap();
        self.sweep_and_sleep(threading);
        let finish = clock.lap();
        self.stats.timings = StepTimings {
            broadphase,
            narrowphase,
            solver,
            finish,
        };
        self.steps += 1;
    }

    /// The step's last phase, after the solver: fast bodies are swept back
    /// to their first impact (continuous collision), and islands at rest
    /// fall asleep.
    fn sweep_and_sleep(&mut self, threading: Threading) {
        let (continuous, islands) = (&mut self.continuous, &mut self.islands);
        let (bodies, colliders) = (self.bodies.in_step(), &self.colliders[..]);
        let (pairs_index, contacts, settings) = (&self.broadphase, &self.contacts, &self.settings);
        let start_poses = self.solver.start_poses();
        let mut run = |helper: Option<&HelperBoard>| {
            let hits = match settings.continuous {
                true => continuous.solve(
                    bodies,
                    colliders,
                    start_poses,
                    pairs_index,
                    contacts,
                    helper,
                ),
                false => 0,
            };
            let slept = settings.sleep && {
                let swept = start_poses.fast();
                islands.fall_asleep(bodies, contacts, settings, swept, helper)
            };
            (hits, slept)
        };
        // The other thread shares the sweeps and the search for islands on
        // a board, and waits there meanwhile: left in the pool, it would
        // fall asleep and be woken late for the next step's broadphase.
        let shared = threading == Threading::Pool && (settings.continuous || settings.sleep);
        let (hits, slept) = match shared {
            true => with_helper(|board| run(Some(board)), || ()).0,
            false => run(None),
        };
        self.stats.ccd_hits = hits;
        // Bodies moved back along their sweeps, or put to sleep, are not
        // what the solver's arrays hold for the next step.
        if hits > 0 || slept {
            self.bodies.note_change();
        }
        self.stats.sleeping_bodies = self.islands.sleeping_bodies();
    }

    /// Runs as many fixed steps as `frame_seconds` (plus the time left over
    /// from earlier calls) covers, at most
    /// [`WorldSettings::max_steps_per_advance`](crate::WorldSettings::max_steps_per_advance),
    /// and says how far into the next step the leftover reaches, for
    /// interpolated drawing.
    pub fn advance(&mut self, frame_seconds: f32) -> Result<Advance, WorldError> {
        check_finite("frame_seconds", frame_seconds)?;
        if frame_seconds < 0.0 {
            return Err(WorldError::invalid(
                "frame_seconds",
                format!("must be >= 0, got {frame_seconds}"),
            ));
        }
        let dt = self.settings.dt;
        self.accumulator += frame_seconds;
        let mut steps = 0;
        while self.accumulator >= dt && steps < self.settings.max_steps_per_advance {
            self.step();
            self.accumulator -= dt;
            steps += 1;
        }
        let dropped_time = self.accumulator >= dt;
        if dropped_time {
            self.accumulator %= dt;
        }
        Ok(Advance {
            steps,
            alpha: (self.accumulator / dt).clamp(0.0, 1.0 - f32::EPSILON),
            dropped_time,
        })
    }
}
