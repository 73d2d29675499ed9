//! WHATWG URL parsing for the guest's `URL` and `URLSearchParams`, backed by the `url`
//! crate. The guest classes (in the prelude) keep only an href and ask Rust to parse,
//! set components, and encode or decode `application/x-www-form-urlencoded` text.

use rquickjs::{Ctx, Function, Object, Value};
use serde_json::json;
use url::{quirks, Url};

/// Every component the guest's `URL` getters read, as one JSON object.
pub fn components(url: &Url) -> String {
    json!({
        "href": quirks::href(url),
        "origin": quirks::origin(url),
        "protocol": quirks::protocol(url),
        "username": quirks::username(url),
        "password": quirks::password(url),
        "host": quirks::host(url),
        "hostname": quirks::hostname(url),
        "port": quirks::port(url),
        "pathname": quirks::pathname(url),
        "search": quirks::search(url),
        "hash": quirks::hash(url),
    })
    .to_string()
}

/// Parses `input` against an optional `base`; `None` when either is not a valid URL.
pub fn parse(input: &str, base: Option<&str>) -> Option<String> {
    let parsed = match base {
        Some(base) => Url::parse(base).ok()?.join(input).ok()?,
        None => Url::parse(input).ok()?,
    };
    Some(components(&parsed))
}

/// Applies one WHATWG setter; invalid values leave the URL unchanged, as in browsers.
pub fn set(href: &str, component: &str, value: &str) -> Option<String> {
    let mut url = Url::parse(href).ok()?;
    match component {
        "href" => url = Url::parse(value).ok()?,
        "protocol" => {
            let _ = quirks::set_protocol(&mut url, value);
        }
        "username" => {
            let _ = quirks::set_username(&mut url, value);
        }
        "password" => {
            let _ = quirks::set_password(&mut url, value);
        }
        "host" => {
            let _ = quirks::set_host(&mut url, value);
        }
        "hostname" => {
            let _ = quirks::set_hostname(&mut url, value);
        }
        "port" => {
            let _ = quirks::set_port(&mut url, value);
        }
        "pathname" => quirks::set_pathname(&mut url, value),
        "search" => quirks::set_search(&mut url, value),
        "hash" => quirks::set_hash(&mut url, value),
        _ => {}
    }
    Some(components(&url))
}

/// Decodes form-urlencoded text into a JSON array of `[name, value]` pairs.
pub fn form_parse(query: &str) -> String {
    let query = query.strip_prefix('?').unwrap_or(query);
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".to_string())
}

/// Encodes a JSON array of `[name, value]` pairs as form-urlencoded text.
pub fn form_serialize(pairs_json: &str) -> String {
    let pairs: Vec<(String, String)> = serde_json::from_str(pairs_json).unwrap_or_default();
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
}

pub fn install<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "urlParse",
        Function::new(ctx.clone(), |input: String, base: Value<'js>| {
            let base = base.as_string().and_then(|s| s.to_string().ok());
            parse(&input, base.as_deref())
        })?,
    )?;
    native.set(
        "urlSet",
        Function::new(
            ctx.clone(),
            |href: String, component: String, value: String| set(&href, &component, &value),
        )?,
    )?;
    native.set(
        "formParse",
        Function::new(ctx.clone(), |query: String| form_parse(&query))?,
    )?;
    native.set(
        "formSerialize",
        Function::new(ctx.clone(), |pairs: String| form_serialize(&pairs))?,
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_input_resolves_against_the_base() {
        let parsed = parse("../b?x=1#h", Some("https://example.com/a/c")).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&parsed).unwrap_or_default();
        assert_eq!(value["href"], "https://example.com/b?x=1#h");
        assert_eq!(value["search"], "?x=1");
    }

    #[test]
    fn invalid_input_is_none() {
        assert!(parse("not a url", None).is_none());
    }

    #[test]
    fn setters_follow_whatwg() {
        let set_port = set("https://example.com/", "port", "8443").unwrap_or_default();
        assert!(set_port.contains("\"host\":\"example.com:8443\""));
    }

    #[test]
    fn form_round_trip_keeps_order_and_encoding() {
        let pairs = form_parse("?a=1&b=x+y&a=%C3%A9");
        assert_eq!(pairs, r#"[["a","1"],["b","x y"],["a","é"]]"#);
        assert_eq!(form_serialize(&pairs), "a=1&b=x+y&a=%C3%A9");
    }
}
