//! The time-slice scheduler of one Node environment (`scheduler.js`), shared by all its
//! sessions: a burst of letters from many sessions still yields to the event loop every
//! few milliseconds, which a per-session budget would not ensure. Made with the env's
//! first session, as is the env's watch on its sandbox hub (`node_poll`).

use napi::bindgen_prelude::*;

const SCHEDULER: &str = include_str!("scheduler.js");

/// The env's scheduler object, kept in the env's instance data (a worker thread has its
/// own env, so its own scheduler).
struct Shared(ObjectRef<false>);

pub fn shared(env: &Env) -> Result<Object<'_>> {
    if let Some(shared) = env.get_instance_data::<Shared>()? {
        return shared.0.get_value(env);
    }
    let scheduler: Object = env.run_script(SCHEDULER)?;
    // Without the watch the gateway's poller thread serves this env's sandboxes.
    #[cfg(unix)]
    let _ = super::node_poll::install(env);
    env.set_instance_data(Shared(scheduler.create_ref()?), (), |context| {
        let _ = context.value.0.unref(&context.env);
    })?;
    Ok(scheduler)
}
