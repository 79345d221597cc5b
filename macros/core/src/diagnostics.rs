//! Helpers for compile-error hints: the closest known name to a misspelt one.

/// Levenshtein edit distance between two strings (by `char`).
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// The candidate closest to `name`, if it is close enough to be a plausible typo: edit distance at
/// most a third of the longer name (at least 1), or one name a prefix of the other (`cosine` →
/// `cos`, at least 2 shared characters). Ties go to the first candidate.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        let d = edit_distance(name, c);
        let limit = (name.chars().count().max(c.chars().count()) / 3).max(1);
        let prefix = c.len().min(name.len()) >= 2 && (name.starts_with(c) || c.starts_with(name));
        if (d <= limit || prefix) && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("th1", "th1"), 0);
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("th3", ["th1", "th2", "m1"]), Some("th1"));
        assert_eq!(closest("lenght", ["length", "mass"]), Some("length"));
        assert_eq!(closest("zzzzzz", ["length", "mass"]), None);
        assert_eq!(closest("cosine", ["sin", "cos", "cosh"]), Some("cos"));
        assert_eq!(closest("lagrangain", ["coordinates", "lagrangian"]), Some("lagrangian"));
    }
}
