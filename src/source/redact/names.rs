//! Which binding and property names hold credentials: a case-insensitive substring
//! match on the name with `_`, `-`, `.` and spaces removed (`API_KEY`, `apiKey` and
//! `x-api-key` all read `apikey`).

/// Substrings of a normalised name that mark it as holding a credential.
const MARKERS: [&str; 13] = [
    "token",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "apikey",
    "auth",
    "credential",
    "privatekey",
    "accesskey",
    "sessionkey",
    "cookie",
];

/// Whether values assigned to `name` should be masked.
pub fn is_sensitive_name(name: &str) -> bool {
    let normal: String = name
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | '.' | ' '))
        .flat_map(char::to_lowercase)
        .collect();
    MARKERS.iter().any(|marker| match *marker {
        "auth" => mentions_auth(&normal),
        marker => normal.contains(marker),
    })
}

/// `auth` counts unless every occurrence is part of `author` (`author`, `authored`),
/// while `authorization` and `authorize` still count.
fn mentions_auth(normal: &str) -> bool {
    normal.match_indices("auth").any(|(i, _)| {
        let rest = &normal[i + 4..];
        !rest.starts_with("or") || rest.starts_with("oriz") || rest.starts_with("oris")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_names_match_in_any_spelling() {
        for name in [
            "token",
            "API_TOKEN",
            "accessToken",
            "clientSecret",
            "password",
            "db_passwd",
            "apiKey",
            "API_KEY",
            "x-api-key",
            "auth",
            "Authorization",
            "authHeader",
            "credentials",
            "privateKey",
            "AWS_SECRET_ACCESS_KEY",
            "cookie",
            "PWD",
        ] {
            assert!(is_sensitive_name(name), "{name}");
        }
    }

    #[test]
    fn ordinary_names_do_not_match() {
        for name in [
            "author",
            "authoredBy",
            "user",
            "url",
            "count",
            "keyboard",
            "monkey",
            "api",
        ] {
            assert!(!is_sensitive_name(name), "{name}");
        }
    }
}
