//! Floating-point times on the wire as their bits: serde_json's default parsing may round a
//! 17-digit number one unit off, and both sides of a deterministic VM must read the same
//! clock. A bit pattern that is not a finite number comes through as it was sent.

use crate::guest::vm::Determinism;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An `f64` as its bits.
pub mod ms {
    use super::*;

    pub fn serialize<S: Serializer>(ms: &f64, out: S) -> Result<S::Ok, S::Error> {
        ms.to_bits().serialize(out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<f64, D::Error> {
        u64::deserialize(input).map(f64::from_bits)
    }
}

/// An `Option<Determinism>` as `null` or `[seed, origin bits]`.
pub mod determinism {
    use super::*;

    pub fn serialize<S: Serializer>(
        determinism: &Option<Determinism>,
        out: S,
    ) -> Result<S::Ok, S::Error> {
        determinism
            .map(|d| (d.seed, d.origin_ms.to_bits()))
            .serialize(out)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        input: D,
    ) -> Result<Option<Determinism>, D::Error> {
        let pair = Option::<(u64, u64)>::deserialize(input)?;
        Ok(pair.map(|(seed, origin)| Determinism {
            seed,
            origin_ms: f64::from_bits(origin),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Step;
    use super::*;

    fn round_trip(step: &Step) -> Step {
        let text = serde_json::to_string(step).expect("serialises");
        serde_json::from_str(&text).expect("parses")
    }

    #[test]
    fn times_come_through_bit_for_bit() {
        // 17 significant digits: the kind of number a decimal round trip may round.
        for ms in [1_733_600_000_000.123_4_f64, 0.1 + 0.2, -0.0, f64::NAN] {
            let Step::SetClock { ms: back } = round_trip(&Step::SetClock { ms }) else {
                panic!("not a clock step");
            };
            assert_eq!(back.to_bits(), ms.to_bits());
        }
    }

    #[test]
    fn a_bind_carries_its_determinism_and_one_without_it_parses_as_none() {
        let bind = |determinism| Step::Bind {
            memory_bytes: 1,
            max_stack_bytes: 2,
            config_json: "{}".into(),
            max_frame_bytes: 3,
            determinism,
        };
        let seeded = Determinism {
            seed: u64::MAX,
            origin_ms: 1_733_600_000_000.123_4,
        };
        let Step::Bind { determinism, .. } = round_trip(&bind(Some(seeded))) else {
            panic!("not a bind");
        };
        assert_eq!(determinism, Some(seeded));
        // A frame from an addon that predates the field.
        let old = r#"{"Bind":{"memory_bytes":1,"max_stack_bytes":2,"config_json":"{}","max_frame_bytes":3}}"#;
        let Ok(Step::Bind { determinism, .. }) = serde_json::from_str::<Step>(old) else {
            panic!("an old bind does not parse");
        };
        assert_eq!(determinism, None);
    }
}
