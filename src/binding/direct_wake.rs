//! Wakes a session's glue from inside its env's sandbox turn (`node_poll`) without the
//! mailbox's threadsafe function: a letter posted on the Node thread while it serves a
//! sandbox frame reaches JS as soon as the turn ends, with no wake of its own loop. Only
//! mailboxes of this thread's env are woken so; every other post goes the threadsafe way.

use super::mailbox::{EnvWake, Held, Mailbox};
use napi::{check_status, sys, Env, Result};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

/// A session's way in: its mailbox, the slot its glue takes letters from, and a weak
/// reference to the glue's `wake` (its threadsafe function holds it strongly while the
/// mailbox lives).
struct Entry {
    mailbox: Weak<Mailbox>,
    held: Held,
    wake: sys::napi_ref,
}

/// This thread's env: its sessions, and the mailboxes posted to during the current turn.
struct EnvWakes {
    env: sys::napi_env,
    context: sys::napi_async_context,
    /// By the mailbox's address (an entry whose mailbox is gone is stale).
    entries: HashMap<usize, Entry>,
    /// Entries after the last sweep of dropped mailboxes: the next sweep is at twice this.
    swept: usize,
    /// `Some` while the env's sandbox turn runs.
    due: Option<Vec<Arc<Mailbox>>>,
}

thread_local! {
    static WAKES: RefCell<Option<EnvWakes>> = const { RefCell::new(None) };
}

/// Node thread, at session creation: `mailbox` may be woken directly through `wake` (the
/// glue's, a function). Nothing is registered if this thread's env has no state yet and
/// it cannot be made: the session then only uses its threadsafe function.
pub fn register(env: &Env, mailbox: &Arc<Mailbox>, held: Held, wake: sys::napi_value) {
    let raw = env.raw();
    let _ = WAKES.try_with(|wakes| -> Result<()> {
        let mut wakes = wakes.borrow_mut();
        if wakes.as_ref().is_some_and(|state| state.env != raw) {
            return Ok(());
        }
        if wakes.is_none() {
            *wakes = Some(EnvWakes::new(raw)?);
        }
        let Some(state) = wakes.as_mut() else {
            return Ok(());
        };
        state.sweep();
        let mut reference = std::ptr::null_mut();
        // SAFETY: on the env's thread, with a live function value.
        check_status!(unsafe { sys::napi_create_reference(raw, wake, 0, &mut reference) })?;
        mailbox.set_env_wake(Arc::new(TurnEnd));
        let entry = Entry {
            mailbox: Arc::downgrade(mailbox),
            held,
            wake: reference,
        };
        // A stale entry at the same address (its mailbox freed) goes now.
        if let Some(stale) = state.entries.insert(address(mailbox), entry) {
            // SAFETY: a reference this env made, on its thread.
            unsafe { sys::napi_delete_reference(raw, stale.wake) };
        }
        Ok(())
    });
}

/// A registered mailbox's wake-up: a post on the Node thread while it serves a sandbox
/// frame is woken when that turn ends.
struct TurnEnd;

impl EnvWake for TurnEnd {
    fn wake(&self, mailbox: &Arc<Mailbox>) -> bool {
        defer(mailbox)
    }
}

/// From `Mailbox::post`, after it armed the box: true if the wake-up is left to the end
/// of the env's sandbox turn running on this thread now.
fn defer(mailbox: &Arc<Mailbox>) -> bool {
    WAKES
        .try_with(|wakes| {
            let Ok(mut wakes) = wakes.try_borrow_mut() else {
                return false;
            };
            let Some(state) = wakes.as_mut() else {
                return false;
            };
            let known = state.entries.contains_key(&address(mailbox));
            match state.due.as_mut() {
                Some(due) if known => {
                    due.push(mailbox.clone());
                    true
                }
                _ => false,
            }
        })
        .unwrap_or(false)
}

/// `node_poll`: the env's sandbox turn `serve` runs; then the mailboxes it posted to are
/// woken, each once, through its glue's `wake` (or its threadsafe function if that fails).
pub fn around_turn(serve: impl FnOnce()) {
    let began = WAKES
        .try_with(|wakes| match wakes.try_borrow_mut() {
            Ok(mut wakes) => match wakes.as_mut() {
                Some(state) => {
                    state.due = Some(Vec::new());
                    true
                }
                None => false,
            },
            Err(_) => false,
        })
        .unwrap_or(false);
    // A panic must not skip the wake-ups of letters already posted (the caller contains it).
    let served = std::panic::catch_unwind(std::panic::AssertUnwindSafe(serve));
    if began {
        wake_due();
    }
    if let Err(panic) = served {
        std::panic::resume_unwind(panic);
    }
}

fn address(mailbox: &Arc<Mailbox>) -> usize {
    Arc::as_ptr(mailbox) as usize
}

fn wake_due() {
    let due = WAKES
        .try_with(|wakes| {
            wakes
                .try_borrow_mut()
                .ok()
                .and_then(|mut wakes| wakes.as_mut().and_then(|state| state.due.take()))
        })
        .ok()
        .flatten()
        .unwrap_or_default();
    for mailbox in due {
        // Looked up again per mailbox: no borrow is held while JS runs (it may register a
        // session or post again).
        let way = WAKES
            .try_with(|wakes| {
                let wakes = wakes.try_borrow().ok()?;
                let state = wakes.as_ref()?;
                let entry = state.entries.get(&address(&mailbox))?;
                Some((state.env, state.context, entry.wake, entry.held.clone()))
            })
            .ok()
            .flatten();
        let woken = way.is_some_and(|(env, context, wake, held)| {
            *held.lock() = Some(mailbox.clone());
            // SAFETY: on the env's thread, inside its loop (a libuv callback), with the
            // env and references this thread's state made and still holds.
            unsafe { call(env, context, wake) }
        });
        if !woken {
            mailbox.ring();
        }
    }
}

/// Calls the function behind `wake` with no arguments through `napi_make_callback`,
/// which then runs the microtasks it queued (as a threadsafe function's call does).
///
/// # Safety
/// On `env`'s thread, inside its loop; `context` and `wake` made for `env`.
unsafe fn call(env: sys::napi_env, context: sys::napi_async_context, wake: sys::napi_ref) -> bool {
    // SAFETY: the caller's promise; every value lives in the handle scope opened here.
    unsafe {
        let mut scope = std::ptr::null_mut();
        if sys::napi_open_handle_scope(env, &mut scope) != sys::Status::napi_ok {
            return false;
        }
        let mut function = std::ptr::null_mut();
        let mut global = std::ptr::null_mut();
        let mut called = sys::napi_get_reference_value(env, wake, &mut function)
            == sys::Status::napi_ok
            && !function.is_null()
            && sys::napi_get_global(env, &mut global) == sys::Status::napi_ok;
        if called {
            let mut result = std::ptr::null_mut();
            let status = sys::napi_make_callback(
                env,
                context,
                global,
                function,
                0,
                std::ptr::null(),
                &mut result,
            );
            if status == sys::Status::napi_pending_exception {
                // As a threadsafe function's call would: the process's uncaught exception.
                let mut error = std::ptr::null_mut();
                if sys::napi_get_and_clear_last_exception(env, &mut error) == sys::Status::napi_ok {
                    sys::napi_fatal_exception(env, error);
                }
            } else {
                called = status == sys::Status::napi_ok;
            }
        }
        sys::napi_close_handle_scope(env, scope);
        called
    }
}

impl EnvWakes {
    fn new(env: sys::napi_env) -> Result<EnvWakes> {
        // SAFETY: napi calls on the env's thread.
        unsafe {
            let mut name = std::ptr::null_mut();
            check_status!(sys::napi_create_string_utf8(
                env,
                c"codemode-wake".as_ptr(),
                13,
                &mut name
            ))?;
            let mut context = std::ptr::null_mut();
            check_status!(sys::napi_async_init(
                env,
                std::ptr::null_mut(),
                name,
                &mut context
            ))?;
            Ok(EnvWakes {
                env,
                context,
                entries: HashMap::new(),
                swept: 0,
                due: None,
            })
        }
    }

    /// Drops the entries of sessions gone, once the list doubled since the last sweep.
    fn sweep(&mut self) {
        if self.entries.len() < self.swept.max(16) * 2 {
            return;
        }
        let env = self.env;
        self.entries.retain(|_, entry| {
            let live = entry.mailbox.strong_count() > 0;
            if !live {
                // SAFETY: a reference this env made, on its thread.
                unsafe { sys::napi_delete_reference(env, entry.wake) };
            }
            live
        });
        self.swept = self.entries.len();
    }
}

/// Node thread, at the env's cleanup (`node_poll`): its references go with it.
pub fn forget_env() {
    let _ = WAKES.try_with(|wakes| {
        if let Ok(mut wakes) = wakes.try_borrow_mut() {
            if let Some(state) = wakes.take() {
                // SAFETY: made for this env, on its thread, which is still alive in its
                // cleanup hooks.
                unsafe {
                    for entry in state.entries.values() {
                        sys::napi_delete_reference(state.env, entry.wake);
                    }
                    sys::napi_async_destroy(state.env, state.context);
                }
            }
        }
    });
}
