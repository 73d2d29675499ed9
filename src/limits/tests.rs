//! Unit tests of `limits`.

use super::*;
use serde_json::json;

fn resolve(v: Value) -> Limits {
    Limits::from_json(Some(&v))
}

#[test]
fn absent_config_gives_documented_defaults() {
    let l = Limits::from_json(None);
    assert_eq!(l, Limits::default());
    assert_eq!(
        l.to_json(),
        json!({
            "timeoutMs": 10000, "memoryLimitBytes": 67108864, "maxOutputBytes": 65536,
            "maxSnapshotBytes": 10485760, "maxPendingToolCalls": 16,
            "maxToolInputBytes": 1048576, "snapshotTtlSeconds": 900, "searchDefaultLimit": 8, "maxSearchLimit": 50,
            "languages": ["javascript", "typescript"]
        })
    );
}

#[test]
fn non_object_config_gives_defaults() {
    assert_eq!(resolve(json!(true)), Limits::default());
    assert_eq!(resolve(json!([1, 2])), Limits::default());
}

#[test]
fn integers_in_range_are_kept() {
    let l = resolve(json!({
        "timeoutMs": 100, "memoryLimitBytes": 1073741824, "maxOutputBytes": 2048,
        "maxSnapshotBytes": 1024, "maxPendingToolCalls": 128, "snapshotTtlSeconds": 1,
        "searchDefaultLimit": 3, "maxSearchLimit": 20
    }));
    assert_eq!(
        (
            l.timeout_ms,
            l.memory_limit_bytes,
            l.max_output_bytes,
            l.max_snapshot_bytes
        ),
        (100, 1_073_741_824, 2048, 1024)
    );
    assert_eq!(
        (
            l.max_pending_tool_calls,
            l.snapshot_ttl_seconds,
            l.search_default_limit
        ),
        (128, 1, 3)
    );
    assert_eq!(l.max_search_limit, 20);
}

#[test]
fn out_of_range_integers_are_clamped() {
    let low = resolve(json!({
        "timeoutMs": 99, "memoryLimitBytes": 1, "maxOutputBytes": 1023,
        "maxSnapshotBytes": 5, "snapshotTtlSeconds": 1
    }));
    assert_eq!(
        (
            low.timeout_ms,
            low.memory_limit_bytes,
            low.max_output_bytes,
            low.max_snapshot_bytes
        ),
        (100, MIB, 1024, 1024)
    );
    let high = resolve(json!({
        "timeoutMs": 60001, "memoryLimitBytes": 5_000_000_000u64,
        "maxOutputBytes": 11 * MIB, "maxSnapshotBytes": 300 * MIB,
        "maxPendingToolCalls": 129, "snapshotTtlSeconds": 86401, "maxSearchLimit": 51
    }));
    assert_eq!(
        (high.timeout_ms, high.memory_limit_bytes),
        (60_000, 1024 * MIB)
    );
    assert_eq!(
        (high.max_output_bytes, high.max_snapshot_bytes),
        (10 * MIB, 256 * MIB)
    );
    assert_eq!(
        (high.max_pending_tool_calls, high.snapshot_ttl_seconds),
        (128, 86_400)
    );
    assert_eq!(high.max_search_limit, 50);
}

#[test]
fn huge_integral_numbers_clamp_to_the_maximum() {
    let l = resolve(json!({ "timeoutMs": 1e300, "maxPendingToolCalls": u64::MAX }));
    assert_eq!((l.timeout_ms, l.max_pending_tool_calls), (60_000, 128));
}

#[test]
fn integral_floats_count_as_integers() {
    assert_eq!(resolve(json!({ "timeoutMs": 2500.0 })).timeout_ms, 2500);
}

#[test]
fn non_integers_fall_back_to_default() {
    let l = resolve(json!({ "timeoutMs": 150.5, "maxOutputBytes": 0.1 }));
    assert_eq!((l.timeout_ms, l.max_output_bytes), (10_000, 65_536));
}

#[test]
fn non_positive_numbers_fall_back_to_default() {
    let l = resolve(json!({ "timeoutMs": 0, "maxOutputBytes": -5, "snapshotTtlSeconds": -1.0 }));
    assert_eq!(
        (l.timeout_ms, l.max_output_bytes, l.snapshot_ttl_seconds),
        (10_000, 65_536, 900)
    );
}

#[test]
fn non_numbers_fall_back_to_default() {
    let l = resolve(json!({ "timeoutMs": "5000", "maxOutputBytes": true, "maxSearchLimit": [3] }));
    assert_eq!(
        (l.timeout_ms, l.max_output_bytes, l.max_search_limit),
        (10_000, 65_536, 50)
    );
}

#[test]
fn unknown_keys_are_ignored() {
    assert_eq!(
        resolve(json!({ "enabled": true, "runtime": "x" })),
        Limits::default()
    );
}

#[test]
fn search_default_limit_is_clamped_to_max_search_limit() {
    let l = resolve(json!({ "searchDefaultLimit": 30, "maxSearchLimit": 10 }));
    assert_eq!((l.search_default_limit, l.max_search_limit), (10, 10));
    // The default (8) is clamped too, and an invalid value means that clamped default.
    assert_eq!(
        resolve(json!({ "maxSearchLimit": 5 })).search_default_limit,
        5
    );
    let bad = resolve(json!({ "searchDefaultLimit": -1, "maxSearchLimit": 4 }));
    assert_eq!(bad.search_default_limit, 4);
    assert_eq!(
        resolve(json!({ "searchDefaultLimit": 99 })).search_default_limit,
        50
    );
}

#[test]
fn languages_subset_is_kept() {
    let l = resolve(json!({ "languages": ["typescript"] }));
    assert_eq!(
        l.languages,
        Languages {
            javascript: false,
            typescript: true
        }
    );
    assert!(!l.languages.allows("javascript") && l.languages.allows("typescript"));
    assert_eq!(l.to_json()["languages"], json!(["typescript"]));
}

#[test]
fn invalid_languages_fall_back_to_both() {
    for bad in [
        json!([]),
        json!(["javascript", "python"]),
        json!("javascript"),
        json!([1]),
    ] {
        assert_eq!(
            resolve(json!({ "languages": bad })).languages,
            Languages::default()
        );
    }
}

#[test]
fn merge_keeps_values_for_absent_keys() {
    let base = resolve(json!({ "timeoutMs": 2000, "languages": ["javascript"] }));
    let merged = base.merge(&json!({ "maxOutputBytes": 4096, "timeoutMs": null }));
    assert_eq!((merged.timeout_ms, merged.max_output_bytes), (2000, 4096));
    assert_eq!(
        merged.languages,
        Languages {
            javascript: true,
            typescript: false
        }
    );
}

#[test]
fn merge_applies_the_same_rules_to_overrides() {
    let base = resolve(json!({ "timeoutMs": 2000, "maxPendingToolCalls": 4 }));
    let merged = base.merge(&json!({ "timeoutMs": -1, "maxPendingToolCalls": 1000 }));
    assert_eq!(
        (merged.timeout_ms, merged.max_pending_tool_calls),
        (10_000, 128)
    );
    let narrowed = base.merge(&json!({ "maxSearchLimit": 3 }));
    assert_eq!(
        (narrowed.search_default_limit, narrowed.max_search_limit),
        (3, 3)
    );
    assert_eq!(base.merge(&json!("nope")), base);
}

#[test]
fn layers_resolve_raw_values_so_later_layers_can_widen() {
    let global = json!({ "searchDefaultLimit": 20, "maxSearchLimit": 10, "timeoutMs": 500 });
    let agent = json!({ "maxSearchLimit": 40 });
    let l = Limits::from_layers(&[Some(&global), None, Some(&agent)]);
    assert_eq!(
        (l.search_default_limit, l.max_search_limit, l.timeout_ms),
        (20, 40, 500)
    );
}

#[test]
fn session_limits_refuse_unknown_keys_and_values_that_are_not_limits() {
    assert_eq!(
        check_session_limits(&json!({ "timeout": 1 })),
        Err("limits.timeout is not an option; did you mean limits.timeoutMs?".into())
    );
    assert_eq!(
        check_session_limits(&json!({ "timeoutMs": "5000" })),
        Err("limits.timeoutMs must be a positive integer (got \"5000\").".into())
    );
    assert_eq!(
        check_session_limits(&json!({ "memoryLimitBytes": -5 })),
        Err("limits.memoryLimitBytes must be a positive integer (got -5).".into())
    );
    assert!(check_session_limits(&json!({ "languages": ["python"] })).is_err());
}

#[test]
fn session_limits_accept_values_that_clamp() {
    let clamped = json!({ "timeoutMs": 1, "memoryLimitBytes": 1e12, "maxSearchLimit": null });
    assert_eq!(check_session_limits(&clamped), Ok(()));
    assert_eq!(check_session_limits(&json!({})), Ok(()));
}
