//! Results cross into JS as JSON text parsed by V8's `JSON.parse`: for a large value
//! that is several times faster than building the object property by property through
//! napi, and a result is JSON by construction.

use napi::bindgen_prelude::*;
use napi::sys;

/// Compact JSON text that becomes a JS value on the Node thread.
pub struct JsonText(pub String);

impl ToNapiValue for JsonText {
    unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> Result<sys::napi_value> {
        let env = Env::from_raw(env);
        let json: Object = env.get_global()?.get_named_property("JSON")?;
        let parse: Function<String, Unknown> = json.get_named_property("parse")?;
        let parsed = parse.call(value.0)?;
        // `parsed` is a live value of this env's current scope; napi takes it from here.
        Ok(parsed.raw())
    }
}
