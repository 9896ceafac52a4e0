//! Exact byte sets: sorted, disjoint, non-touching `[start, end)` ranges of one buffer.
//!
//! What an access touches is a set of bytes, not the hull from its first to its last byte: a
//! strided window (an AIV's column half of every row, a block's column block) is one range per
//! row. The hazard checkers compare these sets, so two windows conflict only where they share a
//! byte.

/// Sorts `ranges` and merges those that overlap or touch; empty ranges are dropped.
pub fn normalize(mut ranges: Vec<(u64, u64)>) -> Vec<(u64, u64)> {
    ranges.retain(|r| r.0 < r.1);
    if ranges.windows(2).any(|w| w[1].0 < w[0].0) {
        ranges.sort_unstable();
    }
    let mut out: Vec<(u64, u64)> = Vec::with_capacity(ranges.len());
    for (s, e) in ranges {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Adds `add` (normalized) to `set` (normalized), keeping it normalized.
pub fn union_into(set: &mut Vec<(u64, u64)>, add: &[(u64, u64)]) {
    if add.is_empty() {
        return;
    }
    // The common case: appending past the end (a loop writing consecutive windows).
    if set.last().is_none_or(|l| l.1 < add[0].0) {
        set.extend_from_slice(add);
        return;
    }
    let mut all = std::mem::take(set);
    all.extend_from_slice(add);
    *set = normalize(all);
}

/// `[start, end)` as text, or `[a, b) ∪ [c, d)` for several ranges (at most three shown).
pub fn describe(ranges: &[(u64, u64)]) -> String {
    let shown: Vec<String> = ranges.iter().take(3).map(|(s, e)| format!("[{s}, {e})")).collect();
    let more = if ranges.len() > 3 { format!(" and {} more ranges", ranges.len() - 3) } else { String::new() };
    shown.join(" ∪ ") + &more
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_sort_and_merge_when_they_touch() {
        assert_eq!(normalize(vec![(8, 12), (0, 4), (4, 6), (20, 20)]), vec![(0, 6), (8, 12)]);
        assert_eq!(normalize(vec![(0, 10), (2, 3)]), vec![(0, 10)]);
    }

    #[test]
    fn interleaved_halves_unite_into_whole_rows() {
        // Two AIVs' column halves of a 4-row, 64-byte-row tensor.
        let left: Vec<(u64, u64)> = (0..4).map(|r| (r * 64, r * 64 + 32)).collect();
        let right: Vec<(u64, u64)> = (0..4).map(|r| (r * 64 + 32, r * 64 + 64)).collect();
        let mut u = left.clone();
        union_into(&mut u, &right);
        assert_eq!(u, vec![(0, 256)]);
        assert_eq!(describe(&left), "[0, 32) ∪ [64, 96) ∪ [128, 160) and 1 more ranges");
    }
}
