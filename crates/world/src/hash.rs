//! The state hash: FNV-1a (64-bit) over the little-endian bytes of the exact
//! `f32` bit patterns of every body's x, y, angle, vx, vy and angular
//! velocity, in index order. Equal hashes mean bit-identical states; the
//! same function is used by the peer engines carom is compared with.

use crate::body::Body;

const FNV_OFFSET: u64 = 0xCBF2_9CE4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01B3;

/// Folds bytes into an FNV-1a state.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &byte in bytes {
        h ^= byte as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

pub(crate) fn state_hash(bodies: &[Body]) -> u64 {
    bodies.iter().fold(FNV_OFFSET, |h, b| {
        let p = b.transform.translation;
        let v = b.linear_velocity;
        [p.x, p.y, b.angle, v.x, v.y, b.angular_velocity]
            .iter()
            .fold(h, |h, x| fnv1a(h, &x.to_le_bytes()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_matches_the_published_test_vectors() {
        // Reference values of 64-bit FNV-1a for "" and "a".
        assert_eq!(fnv1a(FNV_OFFSET, b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a(FNV_OFFSET, b"a"), 0xaf63dc4c8601ec8c);
        assert_eq!(fnv1a(FNV_OFFSET, b"foobar"), 0x85944171f73967e8);
    }
}
