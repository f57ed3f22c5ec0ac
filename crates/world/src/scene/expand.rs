//! Body order and grid expansion: the one place that decides which body
//! gets which index.

use std::fmt;

use glam::Vec2;

use super::spec::{BodySpec, GridSpec, Scene};

/// Where an expanded body comes from in the scene file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `bodies[index]`.
    Listed {
        /// Position in the `bodies` list.
        index: usize,
    },
    /// A copy made by `grids[grid]`.
    Grid {
        /// Position in the `grids` list.
        grid: usize,
        /// Row of the copy, from 0.
        row: u32,
        /// Column of the copy, from 0.
        column: u32,
    },
}

impl fmt::Display for Source {
    /// The path of the body's description in the file, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Source::Listed { index } => write!(f, "bodies[{index}]"),
            Source::Grid { grid, row, column } => {
                write!(f, "grids[{grid}].body (row {row}, column {column})")
            }
        }
    }
}

/// One body of the expanded scene: its description and where it starts.
#[derive(Debug, Clone, Copy)]
pub struct Placed<'s> {
    /// The description (for a grid copy, the template).
    pub spec: &'s BodySpec,
    /// World position of the body origin.
    pub position: Vec2,
    /// Where in the file the body comes from.
    pub source: Source,
}

/// Every body of `scene` in body order: `bodies` in file order, then each
/// grid in file order, row-major.
pub(super) fn placements(scene: &Scene) -> impl Iterator<Item = Placed<'_>> + '_ {
    let listed = scene.bodies.iter().enumerate().map(|(index, spec)| Placed {
        spec,
        position: spec.position,
        source: Source::Listed { index },
    });
    let copies = scene
        .grids
        .iter()
        .enumerate()
        .flat_map(|(grid, spec)| grid_copies(grid, spec));
    listed.chain(copies)
}

fn grid_copies(grid: usize, spec: &GridSpec) -> impl Iterator<Item = Placed<'_>> + '_ {
    (0..spec.rows).flat_map(move |row| {
        (0..spec.columns).map(move |column| Placed {
            spec: &spec.body,
            position: spec.copy_position(row, column),
            source: Source::Grid { grid, row, column },
        })
    })
}

/// Number of bodies the scene expands to, exact even for absurd grids: each
/// grid holds fewer than 2⁶⁴ copies, so no sum of them can reach 2¹²⁸.
pub(super) fn expanded_count(scene: &Scene) -> u128 {
    let copies: u128 = scene.grids.iter().map(|g| u128::from(g.copies())).sum();
    scene.bodies.len() as u128 + copies
}

/// Number of shapes the scene expands to (saturating, though no scene that
/// fits in memory comes near).
pub(super) fn expanded_shape_count(scene: &Scene) -> u128 {
    let listed = scene.bodies.iter().map(|b| b.shapes.len() as u128);
    let copies = scene
        .grids
        .iter()
        .map(|g| u128::from(g.copies()) * g.body.shapes.len() as u128);
    listed.chain(copies).fold(0, u128::saturating_add)
}
