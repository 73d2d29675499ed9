//! "Did you mean …?" for misspelled option keys: the known name closest to an unknown one
//! by edit distance, offered only when it is close enough to be a likely typo.

/// The known name nearest to `unknown`, if at most a third of its length away (at least
/// two edits allowed), if one name contains the other (`tool` for `tools`), or if they
/// share their first five letters (`workers` for `workerThreads`); the earlier of two
/// equally near names wins.
pub fn nearest<'a>(unknown: &str, known: &[&'a str]) -> Option<&'a str> {
    let lower = unknown.to_ascii_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for name in known {
        let candidate = name.to_ascii_lowercase();
        let shared = lower
            .chars()
            .zip(candidate.chars())
            .take_while(|(a, b)| a == b)
            .count();
        let distance = if candidate.contains(&lower) || lower.contains(&candidate) {
            candidate.len().abs_diff(lower.len()).min(1)
        } else if shared >= 5 {
            1
        } else {
            edit_distance(&lower, &candidate)
        };
        if best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, name));
        }
    }
    let allowed = (unknown.chars().count() / 3).max(2);
    best.filter(|(d, _)| *d <= allowed).map(|(_, name)| name)
}

/// The message for an unknown key at `path`: `limits.timeout is not an option; did you
/// mean limits.timeoutMs?`, or the list of valid names when none is close.
pub fn unknown_key_message(parent: &str, key: &str, known: &[&str]) -> String {
    let at = |name: &str| match parent {
        "" => name.to_string(),
        _ => format!("{parent}.{name}"),
    };
    match nearest(key, known) {
        Some(name) => format!("{} is not an option; did you mean {}?", at(key), at(name)),
        None => format!(
            "{} is not an option; valid options: {}.",
            at(key),
            known.join(", ")
        ),
    }
}

/// Edit distance between two names, ignoring ASCII case.
pub fn distance(a: &str, b: &str) -> usize {
    edit_distance(&a.to_ascii_lowercase(), &b.to_ascii_lowercase())
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: [&str; 3] = ["timeoutMs", "memoryLimitBytes", "maxOutputBytes"];

    #[test]
    fn a_prefix_or_a_typo_finds_its_name() {
        assert_eq!(nearest("timeout", &LIMITS), Some("timeoutMs"));
        assert_eq!(
            nearest("memoryLimitByte", &LIMITS),
            Some("memoryLimitBytes")
        );
        assert_eq!(nearest("maxOutptuBytes", &LIMITS), Some("maxOutputBytes"));
    }

    #[test]
    fn a_far_name_gets_the_list_instead() {
        assert_eq!(nearest("colour", &LIMITS), None);
        assert_eq!(
            unknown_key_message("limits", "colour", &LIMITS),
            "limits.colour is not an option; valid options: timeoutMs, memoryLimitBytes, maxOutputBytes."
        );
    }

    #[test]
    fn the_message_names_both_paths() {
        assert_eq!(
            unknown_key_message("limits", "timeout", &LIMITS),
            "limits.timeout is not an option; did you mean limits.timeoutMs?"
        );
        assert_eq!(
            unknown_key_message("", "workers", &["workerThreads"]),
            "workers is not an option; did you mean workerThreads?"
        );
    }
}
