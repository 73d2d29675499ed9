use super::*;
use crate::run::ledger::IssuedCall;

fn ledger() -> Ledger {
    let call = |bridge_id: u32, replay_safe: bool| IssuedCall {
        bridge_id,
        call_id: format!("cm_r:{bridge_id}"),
        callable: "pay".into(),
        input: "{}".into(),
        replay_safe,
        external: None,
        outcome: None,
        held_until_ms: None,
    };
    Ledger {
        calls: vec![call(1, false), call(2, false), call(3, true)],
        timers: Vec::new(),
        deliveries: vec![Delivery::Reply {
            bridge_id: 2,
            outcome: paid(),
            clock_ms: 0.0,
        }],
        ..Ledger::default()
    }
}

fn paid() -> Outcome {
    Outcome {
        ok: true,
        payload: "\"paid\"".into(),
    }
}

fn held_at(until: f64) -> HeldNote {
    HeldNote {
        until_ms: Some(until),
        outcome: None,
    }
}

#[test]
fn only_a_replay_unsafe_undelivered_call_is_held() {
    let mut ledger = ledger();
    ledger.hold(&[1, 2, 3], 5.0);
    assert_eq!(ledger.calls[0].held_until_ms, Some(5.0));
    assert_eq!(
        ledger.calls[2].held_until_ms, None,
        "a replaySafe call runs again instead"
    );
    let journal = Journal::replay(ledger, 0.0);
    assert_eq!(
        journal.held_by_others(),
        vec!["cm_r:1".to_string()],
        "call 2 was delivered"
    );
}

#[test]
fn an_outcome_arriving_here_ends_the_hold() {
    let mut ledger = ledger();
    ledger.hold(&[1], 5.0);
    ledger.answered(1, paid());
    assert_eq!(ledger.calls[0].outcome, Some(paid()));
    assert_eq!(ledger.calls[0].held_until_ms, None);
    assert!(Journal::replay(ledger, 0.0).held_by_others().is_empty());
}

#[test]
fn a_note_renews_a_hold_only_forward_and_delivers_an_outcome_once() {
    let mut ledger = ledger();
    ledger.hold(&[1], 5.0);
    let mut journal = Journal::replay(ledger, 0.0);
    assert_eq!(journal.absorb("cm_r:1", held_at(4.0)), Absorbed::Nothing);
    assert_eq!(journal.absorb("cm_r:1", held_at(9.0)), Absorbed::Renewed);
    assert_eq!(journal.ledger().calls[0].held_until_ms, Some(9.0));
    let done = HeldNote {
        until_ms: None,
        outcome: Some(paid()),
    };
    assert_eq!(
        journal.absorb("cm_r:1", done.clone()),
        Absorbed::Outcome(1, paid())
    );
    assert_eq!(
        journal.absorb("cm_r:1", done.clone()),
        Absorbed::Nothing,
        "it has its outcome"
    );
    assert_eq!(
        journal.absorb("cm_r:2", done),
        Absorbed::Nothing,
        "delivered, and never held"
    );
}

#[test]
fn calls_made_after_the_record_are_this_process_own() {
    let mut journal = Journal::replay(Ledger::default(), 0.0);
    journal
        .issue_call(1, "cm_r:1", "pay", "{}", false)
        .expect("a live call");
    journal.ledger_mut().hold(&[1], 5.0);
    assert!(journal.held_by_others().is_empty());
}

#[test]
fn a_note_key_is_never_a_run_id() {
    assert_eq!(note_key("cm_r:1"), "cm_r:1#held");
}
