//! Event-id arrays (`pto.declare_eventid_array`, `pto.eventid_array_get`,
//! `pto.eventid_array_set`): PTOAS's manual-sync helper, a local array of `N` int32 event ids
//! (`!pto.eventid_array<N>`, zero-initialised: PTOAS emits `PTOAS_EventIdArray<N>` with
//! `int32_t data[N] = {}`). `get` reads element `index`, `set` writes it; an index outside
//! `0..N` is undefined in the emitted C++ and a trap here. The values read feed
//! `set_flag_dyn`/`wait_flag_dyn` like any other dynamic event id, so the sync checker sees
//! them.

use pto_ir::Opcode;

/// The arrays of one run; a `Val::EventIds(h)` names array `h`.
#[derive(Clone, Debug, Default, Hash)]
pub struct EventIdArrays {
    arrays: Vec<Vec<i64>>,
}

/// Whether `op` is one of the event-id array ops.
pub fn is_array_op(op: Opcode) -> bool {
    matches!(op, Opcode::DeclareEventIdArray | Opcode::EventIdArrayGet | Opcode::EventIdArraySet)
}

/// `N` of a `!pto.eventid_array<N>` type as printed.
pub fn size_of(ty: &str) -> Option<usize> {
    let inner = ty.trim().strip_prefix("!pto.eventid_array<")?.strip_suffix('>')?;
    inner.trim().parse().ok().filter(|&n| n > 0)
}

impl EventIdArrays {
    /// Runs one array op: `array` is the handle operand (for `get`/`set`), `ints` the index
    /// (and value) operands, `ty` the declared type's text (for `declare`). Returns the new
    /// handle (`declare`), the element read (`get`) or nothing (`set`).
    pub fn exec(&mut self, op: Opcode, array: Option<u32>, ints: &[i64], ty: &str) -> Result<Option<i64>, String> {
        if op == Opcode::DeclareEventIdArray {
            let n = size_of(ty).ok_or_else(|| format!("`{ty}` is not an event-id array type (`!pto.eventid_array<N>`, N > 0)"))?;
            self.arrays.push(vec![0; n]);
            return Ok(Some(self.arrays.len() as i64 - 1));
        }
        let arr = array.and_then(|h| self.arrays.get_mut(h as usize)).ok_or("the array operand is not a declared event-id array")?;
        let &index = ints.first().ok_or("missing index operand")?;
        let n = arr.len();
        let slot = usize::try_from(index)
            .ok()
            .and_then(|i| arr.get_mut(i))
            .ok_or_else(|| format!("index {index} is out of range for an event-id array of {n}"))?;
        if op == Opcode::EventIdArraySet {
            *slot = *ints.get(1).ok_or("missing value operand")?;
            Ok(None)
        } else {
            Ok(Some(*slot))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arrays_start_at_zero_and_keep_what_is_set() {
        let mut a = EventIdArrays::default();
        assert_eq!(size_of("!pto.eventid_array<4>"), Some(4));
        assert_eq!(size_of("!pto.eventid_array<0>"), None);
        let h = a.exec(Opcode::DeclareEventIdArray, None, &[], "!pto.eventid_array<4>").unwrap().unwrap() as u32;
        assert_eq!(a.exec(Opcode::EventIdArrayGet, Some(h), &[3], "").unwrap(), Some(0));
        assert_eq!(a.exec(Opcode::EventIdArraySet, Some(h), &[3, 5], "").unwrap(), None);
        assert_eq!(a.exec(Opcode::EventIdArrayGet, Some(h), &[3], "").unwrap(), Some(5));
        assert_eq!(a.exec(Opcode::EventIdArrayGet, Some(h), &[4], "").unwrap_err(), "index 4 is out of range for an event-id array of 4");
        assert!(a.exec(Opcode::EventIdArrayGet, None, &[0], "").is_err());
    }
}
