//! How many golden vectors of the pto-isa CPU simulator check each instruction, per target: the
//! vectors of `tests/golden/cases` that `pto-sim/tests/golden.rs` ran and matched, as it records
//! them in `tests/golden/coverage.tsv` (that test fails when the file is stale). `pto ops` shows
//! the counts (docs/isa-coverage.md, `pto ops NAME`).

/// `op<TAB>A2A3<TAB>A5` lines after a `#` header line.
const TABLE: &str = include_str!("../tests/golden/coverage.tsv");

/// The matched golden vectors of instruction `op` (its name without `pto.`, e.g. `tadd`,
/// `tmatmul.mx`) on A2A3 and on A5; zeros when none checks it.
pub fn vectors(op: &str) -> [usize; 2] {
    TABLE
        .lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let mut fields = line.split('\t');
            if fields.next()? != op {
                return None;
            }
            let mut count = || fields.next().and_then(|f| f.parse().ok());
            Some([count()?, count()?])
        })
        .unwrap_or([0, 0])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_table_has_two_counts() {
        for line in TABLE.lines().skip(1) {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            assert!(fields[1..].iter().all(|f| f.parse::<usize>().is_ok()), "{line}");
        }
        assert!(TABLE.lines().count() > 100, "the table covers the golden instructions");
    }

    #[test]
    fn an_instruction_without_vectors_counts_zero() {
        assert_eq!(vectors("no_such_op"), [0, 0]);
    }
}
