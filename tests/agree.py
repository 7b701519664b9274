"""Assertions every test family shares: simdfilter against simdfilter.reference."""

import numpy as np

import simdfilter
from simdfilter import reference


def assert_all_agree(a, lo, hi, inclusive="both"):
    """filter_indexes (32- and 64-bit positions), filter_values and count_in_range
    all equal the reference on `a`."""
    want_idx = reference.filter_indexes(a, lo, hi, inclusive=inclusive)
    want_val = reference.filter_values(a, lo, hi, inclusive=inclusive)
    got_idx = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive)
    got_val = simdfilter.filter_values(a, lo, hi, inclusive=inclusive)
    assert got_idx.dtype == want_idx.dtype
    np.testing.assert_array_equal(got_idx, want_idx)
    # 64-bit positions take their own kernel path (index64).
    got64 = simdfilter.filter_indexes(a, lo, hi, inclusive=inclusive, index_dtype=np.int64)
    assert got64.dtype == np.int64
    np.testing.assert_array_equal(got64, want_idx)
    assert got_val.dtype == want_val.dtype
    # Compare bits: NaN never matches, and -0.0 must stay -0.0.
    assert got_val.tobytes() == want_val.tobytes()
    assert simdfilter.count_in_range(a, lo, hi, inclusive=inclusive) == want_idx.size

