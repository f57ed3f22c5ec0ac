//! The settling circle pile the timing examples step: the same depth at
//! every size (`Scene::circle_pile`), sleeping off so that every step does
//! the full work, timed after it has landed.

use carom::scene::Scene;
use carom::World;

/// Steps run before timing: the pile has landed and is settling.
pub const WARMUP: usize = 150;
/// Steps timed.
pub const MEASURED: usize = 60;

/// A pile of `count` circles, built afresh and stepped through the warm-up.
pub fn settling_pile(count: u32) -> World {
    let mut world = Scene::circle_pile(count)
        .build_world()
        .expect("the pile is a valid scene");
    let awake = carom::WorldSettings {
        sleep: false,
        ..*world.settings()
    };
    world.set_settings(awake).expect("valid settings");
    for _ in 0..WARMUP {
        world.step();
    }
    world
}

/// The median over [`MEASURED`] steps of what `timed_step` returns, each
/// call stepping `world` once.
pub fn median_of_steps(world: &mut World, mut timed_step: impl FnMut(&mut World) -> f64) -> f64 {
    let mut times: Vec<f64> = (0..MEASURED).map(|_| timed_step(world)).collect();
    times.sort_by(f64::total_cmp);
    times[MEASURED / 2]
}
