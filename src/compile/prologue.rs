//! The text before the kernels: the pto-isa include, `using namespace pto;`, and the small
//! helpers some instructions need (named `PTOAS__*` as `ptoas` names them, so code written
//! against `ptoas` output keeps working).

use std::collections::BTreeSet;

/// `PTOAS__TRANDOM<Rounds>(dst, key0, key1, c0, c1, c2, c3)`: pto-isa's `TRANDOM` takes its key
/// and counter as structs; PTO passes six integers.
pub const TRANDOM: &str = "PTOAS__TRANDOM";

const TRANDOM_HELPER: &str = r#"
template <uint16_t Rounds, typename DstTile>
static AICORE inline void PTOAS__TRANDOM(DstTile &dst, uint32_t key0, uint32_t key1, uint32_t counter0,
                                         uint32_t counter1, uint32_t counter2, uint32_t counter3) {
  TRandomKey key = {key0, key1};
  TRandomCounter counter = {counter0, counter1, counter2, counter3};
  TRANDOM<Rounds>(dst, key, counter);
}
"#;

/// The helper defining a callee, if the callee is one.
pub fn helper_for(callee: &str) -> Option<&'static str> {
    (callee == TRANDOM).then_some(TRANDOM)
}

/// The prologue for a program that calls `helpers`.
pub fn text(helpers: &BTreeSet<&'static str>) -> String {
    let mut out = String::from("#include \"pto/pto-inst.hpp\"\nusing namespace pto;\n");
    for h in helpers {
        if *h == TRANDOM {
            out.push_str(TRANDOM_HELPER);
        }
    }
    out
}
