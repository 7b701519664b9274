"""Arrow producers that misbehave, and bounds and shapes whose cost or errors
come from someone else (issue 29): each must give a clear error of
simdfilter's, or the answer, and never crash, hang or answer nothing.

Hand-made producers are built with ctypes, so their release callbacks are
Python code: the case where a callback run with an exception pending turned
into "SystemError: error return without exception set"."""

import ctypes
import signal
import subprocess
import textwrap
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

import simdfilter as sf
from simdfilter import _core, _masks, reference

pa = pytest.importorskip("pyarrow")


def run_python(python, code, timeout=120):
    """Run code in a fresh interpreter (a crash must not take the test run down):
    `python` is the fresh_python fixture, this Python's own command (under qemu,
    a launcher through the emulator)."""
    return subprocess.run(
        [python, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )


# ---- the C data interface in ctypes ---------------------------------------------------


class ArrowSchema(ctypes.Structure):
    pass


class ArrowArray(ctypes.Structure):
    pass


class ArrowArrayStream(ctypes.Structure):
    pass


SchemaRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))
ArrayRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))
StreamRelease = ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))
GetSchema = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema)
)
GetNext = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray)
)
GetLastError = ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))

ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", SchemaRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.c_void_p),
    ("dictionary", ctypes.c_void_p),
    ("release", ArrayRelease),
    ("private_data", ctypes.c_void_p),
]
ArrowArrayStream._fields_ = [
    ("get_schema", GetSchema),
    ("get_next", GetNext),
    ("get_last_error", GetLastError),
    ("release", StreamRelease),
    ("private_data", ctypes.c_void_p),
]

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_capsule_new.restype = ctypes.py_object
SCHEMA_NAME, ARRAY_NAME, STREAM_NAME = b"arrow_schema", b"arrow_array", b"arrow_array_stream"


class Producer:
    """One int64 column [1, 2, 3] (or what the keywords make of it) whose
    structs and callbacks live here, and which counts its releases."""

    def __init__(self, fmt=b"l", length=3, offset=0, n_buffers=2, n_children=0):
        self.released = []
        self.data = np.array([1, 2, 3], dtype=np.int64)
        self.buffer_ptrs = (ctypes.c_void_p * 2)(None, self.data.ctypes.data)
        self.format = fmt
        self.schema_release = SchemaRelease(self._release("schema", SchemaRelease))
        self.array_release = ArrayRelease(self._release("array", ArrayRelease))
        self.stream_release = StreamRelease(self._release("stream", StreamRelease))
        self.schema = self.make_schema()
        self.array = ArrowArray(
            length=length,
            null_count=0,
            offset=offset,
            n_buffers=n_buffers,
            n_children=n_children,
            buffers=self.buffer_ptrs,
            release=self.array_release,
        )
        self.chunks_left = 1
        self.callbacks = (
            GetSchema(self._get_schema),
            GetNext(self._get_next),
            GetLastError(lambda stream: b"no error"),
        )

    def make_schema(self):
        return ArrowSchema(format=self.format, release=self.schema_release)

    def _release(self, what, null_type):
        def release(ptr):
            self.released.append(what)
            ptr.contents.release = null_type()

        return release

    def _get_schema(self, stream, out):
        out[0] = self.make_schema()
        return 0

    def _get_next(self, stream, out):
        if self.chunks_left:
            self.chunks_left -= 1
            out[0] = self.array
        else:
            out[0] = ArrowArray()  # release NULL: the end
        return 0

    def array_capsules(self):
        return (
            _capsule_new(ctypes.addressof(self.schema), SCHEMA_NAME, None),
            _capsule_new(ctypes.addressof(self.array), ARRAY_NAME, None),
        )

    def stream_capsule(self, get_next=True):
        get_schema, get_next_cb, last_error = self.callbacks
        self.stream = ArrowArrayStream(
            get_schema=get_schema,
            get_next=get_next_cb if get_next else GetNext(),
            get_last_error=last_error,
            release=self.stream_release,
        )
        return _capsule_new(ctypes.addressof(self.stream), STREAM_NAME, None)


class ArrayOf:
    def __init__(self, capsules):
        self.capsules = capsules

    def __arrow_c_array__(self, requested_schema=None):
        return self.capsules


class StreamOf:
    def __init__(self, capsule):
        self.capsule = capsule

    def __arrow_c_stream__(self, requested_schema=None):
        return self.capsule


# ---- 1 and 2: capsules handed out twice ------------------------------------------------


def test_reused_array_capsules_raise_instead_of_crashing(fresh_python):
    r = run_python(
        fresh_python,
        """
        import pyarrow as pa, simdfilter as sf
        caps = pa.array([1, 2, 3]).__arrow_c_array__()
        class P:
            def __arrow_c_array__(self, requested_schema=None):
                return caps
        print(sf.filter_indexes(P(), 0, 10).tolist())
        try:
            sf.filter_indexes(P(), 0, 10)
        except ValueError as e:
            print("ValueError:", e)
        """,
    )
    assert r.returncode == 0, (r.returncode, r.stdout, r.stderr)
    first, second = r.stdout.splitlines()
    assert first == "[0, 1, 2]"
    assert second.startswith("ValueError: the Arrow array was already released")


def test_reused_stream_capsule_raises_instead_of_answering_nothing():
    caps = pa.chunked_array([[1, 2, 3], [4, 5]]).__arrow_c_stream__()
    assert sf.filter_indexes(StreamOf(caps), 0, 10).tolist() == [0, 1, 2, 3, 4]
    for fn in (sf.filter_indexes, sf.filter_values, sf.count_in_range):
        with pytest.raises(ValueError, match="Arrow stream was already consumed"):
            fn(StreamOf(caps), 0, 10)


def test_stream_is_released_once_consumed():
    p = Producer()
    assert sf.count_in_range(StreamOf(p.stream_capsule()), 0, 10) == 3
    assert sorted(p.released) == ["array", "schema", "stream"]
    assert not p.stream.release  # marked consumed in the capsule, as pyarrow does


def test_capsules_with_the_wrong_names_are_a_type_error_of_ours():
    schema, array = pa.array([1, 2]).__arrow_c_array__()
    with pytest.raises(TypeError, match="capsule named 'arrow_schema'"):
        sf.count_in_range(ArrayOf((array, schema)), 0, 10)
    with pytest.raises(TypeError, match="capsule named 'arrow_array_stream'"):
        sf.count_in_range(StreamOf(schema), 0, 10)


# ---- 4: release callbacks in Python, with the call's exception pending -------------------


def test_python_release_callbacks_keep_the_calls_own_error():
    p = Producer()
    with pytest.raises(TypeError, match="bounds must be real numbers"):
        sf.count_in_range(ArrayOf(p.array_capsules()), object(), 10)
    assert p.released == ["array"]  # the schema stays with its capsule

    p = Producer()
    with pytest.raises(TypeError, match="bounds must be real numbers"):
        sf.count_in_range(StreamOf(p.stream_capsule()), object(), 10)
    assert sorted(p.released) == ["array", "schema", "stream"]


def test_python_release_callbacks_on_an_unsupported_schema():
    p = Producer(fmt=b"u")
    with pytest.raises(TypeError, match="not string"):
        sf.count_in_range(StreamOf(p.stream_capsule()), 0, 10)
    assert sorted(p.released) == ["schema", "stream"]


def test_python_release_callbacks_on_a_malformed_array():
    p = Producer(n_buffers=3)
    with pytest.raises(ValueError, match="buffers do not fit"):
        sf.count_in_range(StreamOf(p.stream_capsule()), 0, 10)
    assert sorted(p.released) == ["array", "schema", "stream"]


# ---- what a consumer can check ------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(length=-1), "negative length"),
        (dict(offset=-1), "negative length or offset"),
        (dict(offset=2**62, length=2**62), "beyond any buffer"),
        (dict(offset=2**61, length=2), "beyond any buffer"),  # 8-byte elements: past 2**63 bytes
        (dict(n_buffers=1), "buffers do not fit"),
        (dict(n_children=1), "children do not fit"),
    ],
)
def test_malformed_arrays_are_refused(kw, message):
    p = Producer(**kw)
    with pytest.raises(ValueError, match=message):
        sf.filter_indexes(ArrayOf(p.array_capsules()), 0, 10)
    assert p.released == ["array"]


@pytest.mark.parametrize("fmt", [b"t", b"td", b"ts", b"tD", b"tt", b"tdx", b"tss"])
def test_truncated_temporal_formats_are_refused(fmt):
    # "t" was read one byte past its end (ASan sees it: tests/c/fuzz_arrow.c).
    with pytest.raises(TypeError, match="simdfilter reads Arrow arrays of"):
        sf.count_in_range(ArrayOf(Producer(fmt=fmt).array_capsules()), 0, 10)


def test_released_schema_is_refused():
    p = Producer()
    p.schema.release = SchemaRelease()
    with pytest.raises(ValueError, match="schema was already released"):
        sf.count_in_range(ArrayOf(p.array_capsules()), 0, 10)


def test_stream_without_get_next_is_refused():
    p = Producer()
    with pytest.raises(ValueError, match="no get_schema or get_next"):
        sf.count_in_range(StreamOf(p.stream_capsule(get_next=False)), 0, 10)
    assert p.released == ["stream"]


def test_chunk_lengths_adding_up_past_int64_are_refused():
    p = Producer(fmt=b"C", length=2**62)  # uint8: each chunk alone is addressable
    p.chunks_left = 3
    with pytest.raises(ValueError, match="lengths add up past"):
        sf.count_in_range(StreamOf(p.stream_capsule()), 0, 10)


# ---- 3: bounds whose exact value is costly --------------------------------------------------

# Each runs in a subprocess with a timeout: before the fix, Decimal("1e999999999")
# never returned, and Ctrl-C could not stop it.
HUGE_BOUNDS = [
    'Decimal("1e999999999")',
    'Decimal("-1e999999999")',
    'Decimal("1e-999999999")',
    'Decimal("-1e-999999999")',
    'Decimal("0e-999999999")',
    'Decimal("1e10000000")',
    'Decimal("1." + "0" * 300000 + "1")',
    "Fraction(1, 10**300000)",
    "Fraction(10**300000 + 1, 10**300000)",
    "10**300000",
]


def test_costly_bounds_answer_promptly(fresh_python):
    code = """
        import numpy as np, simdfilter as sf
        from decimal import Decimal
        from fractions import Fraction
        f = np.array([-np.inf, -5e-324, 0.0, 5e-324, 1.0, 1.0000000000000002,
                      1.7976931348623157e308, np.inf])
        f32 = np.array([-np.inf, -0.0, 0.0, 0.0, 1.0, 1.0, np.inf, np.inf], np.float32)
        for b in [%s]:
            print(sf.count_in_range(f, b, None), sf.count_in_range(f, None, b),
                  sf.count_in_range(f, b, None, inclusive="neither"),
                  sf.count_in_range(f32, b, None),
                  sf.count_in_range(np.arange(-3, 4), b, None),
                  sf.count_in_range(np.arange(-3, 4), None, b, inclusive="neither"))
        """ % ", ".join(HUGE_BOUNDS)
    r = run_python(fresh_python, code, timeout=60)
    assert r.returncode == 0, r.stderr
    got = [tuple(map(int, line.split())) for line in r.stdout.splitlines()]
    assert got == [
        (1, 7, 1, 2, 0, 7),  # 1e999999999: only +inf is above it
        (7, 1, 7, 7, 7, 0),
        (5, 3, 5, 4, 3, 4),  # a positive number below the smallest subnormal
        (6, 2, 6, 7, 4, 3),
        (6, 3, 5, 7, 4, 3),  # zero
        (1, 7, 1, 2, 0, 7),
        (3, 5, 3, 2, 2, 5),  # just above 1: 1.0000000000000002 and up
        (5, 3, 5, 4, 3, 4),
        (3, 5, 3, 2, 2, 5),
        (1, 7, 1, 2, 0, 7),
    ]


def _near_edges():
    import decimal

    q = []
    for edge in (
        Fraction(2) ** 1024 - Fraction(2) ** 970,
        Fraction(2) ** -1074,
        Fraction(2**63),
        Fraction(-(2**63)),
        Fraction(255),
        Fraction(1, 3),
        Fraction(3, 2),
        Fraction(0),
    ):
        for tiny in (Fraction(1, 10**3000), -Fraction(1, 10**3000), Fraction(0)):
            q.append(edge + tiny)
    q += [
        Fraction(2**1101 + 1),
        Fraction(-(2**1200)),
        Fraction(1, 2**1101 + 1),
        Fraction(-1, 2**1100),
    ]
    with decimal.localcontext() as ctx:
        ctx.prec = 5000
        for x in (Decimal(5e-324), Decimal(1.7976931348623157e308), Decimal(2**63), Decimal(1)):
            for tiny in (Decimal("1e-1200"), Decimal("-1e-1200"), Decimal(0)):
                q.append(x + tiny)
        q += [
            Decimal("1e401"),
            Decimal("-1e401"),
            Decimal("1e-401"),
            Decimal("-1e-401"),
            Decimal("1e308"),
            Decimal("2e-324"),
            Decimal("3e-324"),
        ]
    return q


def _data(dtype):
    """Values of `dtype` at and beside every edge the bounds above sit near."""
    if dtype.startswith("float"):
        f = np.finfo(dtype)
        v = [0.0, -0.0, float(f.smallest_subnormal), -float(f.smallest_subnormal), 1 / 3, 1.5]
        v += [float(f.max), -float(f.max), np.inf, -np.inf, 255.0, 2.0**63, -(2.0**63), 1.0]
        a = np.array(v, dtype)
        with np.errstate(over="ignore"):  # the largest float's neighbour is inf
            return np.concatenate([a, np.nextafter(a, np.inf), np.nextafter(a, -np.inf)])
    i = np.iinfo(dtype)
    v = {int(i.min), int(i.min) + 1, int(i.max) - 1, int(i.max), 0, 1, 2, 255, 254, 256}
    return np.array(sorted(x for x in v if i.min <= x <= i.max), dtype)


def test_stand_ins_answer_as_the_exact_bounds():
    # Bounds near every edge of float64, float32 and the ints, off by far less
    # than a subnormal, and bounds just past the far limits: the C binding's
    # stand-ins (bounds_exact.c) answer as the reference's exact arithmetic on
    # the whole number does.
    for b in _near_edges():
        for dtype in ("float64", "float32", "int64", "uint64", "uint8"):
            a = _data(dtype)
            for inclusive in ("both", "neither", "left"):
                for lo, hi in ((b, None), (None, b), (b, b)):
                    want = reference.filter_indexes(a, lo, hi, inclusive=inclusive)
                    got = sf.filter_indexes(a, lo, hi, inclusive=inclusive)
                    np.testing.assert_array_equal(got, want, err_msg=f"{dtype} {lo} {hi}")


def test_long_fraction_of_a_second_on_time_data():
    t = np.array(["2020-01-01T00:00:00", "2020-01-01T00:00:01"], dtype="M8[ns]")
    lo = "2020-01-01T00:00:00." + "0" * 5000 + "1"
    assert sf.count_in_range(t, lo, None) == 1
    assert sf.count_in_range(t, "2020-01-01T00:00:00." + "0" * 5000, None) == 2


# ---- 5: a huge logical array ----------------------------------------------------------------


def test_huge_broadcast_counts_first_as_filter_values_does(fresh_python):
    # 2**62 elements: the int64 positions' worst case (2**65 bytes) cannot be
    # addressed, so the call counts first, as it does when the worst case
    # cannot be allocated; NumPy's "array is too big" used to come out. Counting
    # 2**62 elements takes years: Ctrl-C stops it.
    code = """
        import numpy as np, simdfilter as sf, sys
        a = np.broadcast_to(np.uint8(0), (2**31, 2**31))
        print("started", flush=True)
        try:
            sf.filter_indexes(a, 0, 10)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        except Exception as e:
            print(type(e).__name__, e)
        """
    proc = subprocess.Popen(
        [fresh_python, "-c", textwrap.dedent(code)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout.readline() == "started\n"
        try:
            out, err = proc.communicate(timeout=1.0)
        except subprocess.TimeoutExpired:  # still counting, as it should be
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert out.strip() == "KeyboardInterrupt", (out, err)


def test_empty_range_on_a_huge_broadcast_answers_at_once():
    a = np.broadcast_to(np.uint8(0), (2**31, 2**31))
    assert sf.filter_indexes(a, 1, 0).tolist() == []
    assert sf.filter_values(a, 300, 400).tolist() == []


# ---- a chunk whose values buffer goes after it was checked -----------------------------------

CHANGED = "values buffer became NULL after simdfilter checked it"
N_CHANGED = 50_000


class ChangingStream:
    """A stream of two int64 chunks, all 10**6 (the first chunk's element 0
    null), which, asked for the end of the stream, sets its last chunk's values
    buffer to NULL (`change`): that chunk was checked when it was taken, so only
    the read during the call refuses it."""

    def __init__(self, n=N_CHANGED, change=True):
        half = n // 2
        self.change = change
        self.datas = [np.full(half, 10**6, np.int64), np.full(n - half, 10**6, np.int64)]
        self.validity = np.full((half + 7) // 8, 0xFF, np.uint8)
        self.validity[0] = 0xFE
        self.buffer_lists = [
            (ctypes.c_void_p * 2)(self.validity.ctypes.data, self.datas[0].ctypes.data),
            (ctypes.c_void_p * 2)(None, self.datas[1].ctypes.data),
        ]
        self.release = ArrayRelease(self._release)
        self.taken = 0
        self.producer = Producer()  # the int64 schema and the stream's other callbacks
        get_schema, _, last_error = self.producer.callbacks
        self.producer.callbacks = (get_schema, GetNext(self._get_next), last_error)

    @staticmethod
    def _release(ptr):
        ptr.contents.release = ArrayRelease()

    def _get_next(self, stream, out):
        if self.taken < 2:
            out[0] = ArrowArray(
                length=len(self.datas[self.taken]),
                null_count=1 - self.taken,
                n_buffers=2,
                buffers=self.buffer_lists[self.taken],
                release=self.release,
            )
            self.taken += 1
        else:
            if self.change:
                self.buffer_lists[1][1] = None  # after the consumer checked the chunk
            out[0] = ArrowArray()  # the end
        return 0

    def __arrow_c_stream__(self, requested_schema=None):
        return self.producer.stream_capsule()


# Each call over a ChangingStream, and what it answers when the stream does not
# change: nothing is in [0, 10]; 10**6 is every element but the null one.
CHANGING_CALLS = {
    "in_range": (lambda s: sf.in_range(s, 0, 10), np.zeros(N_CHANGED, bool)),
    "in_range-threads": (lambda s: sf.in_range(s, 0, 10, threads=2), np.zeros(N_CHANGED, bool)),
    "in_range-out": (
        lambda s: sf.in_range(s, 0, 10, out=np.ones(N_CHANGED, bool)),
        np.zeros(N_CHANGED, bool),
    ),
    "in_range_bits": (
        lambda s: _core._in_range_bits(s, 0, 10),
        np.zeros(N_CHANGED // 8, np.uint8),
    ),
    "in_range_arrow": (
        lambda s: pa.array(_masks.arrow_in_range(s, 0, 10)).to_pylist(),
        [None] + [False] * (N_CHANGED - 1),
    ),
    "filter_indexes": (lambda s: sf.filter_indexes(s, 10**6, 10**6), np.arange(1, N_CHANGED)),
    "filter_indexes-sorted": (
        lambda s: sf.filter_indexes(s, 10**6, 10**6, assume_sorted=True),
        np.arange(1, N_CHANGED),
    ),
    "filter_values": (
        lambda s: sf.filter_values(s, 10**6, 10**6),
        np.full(N_CHANGED - 1, 10**6, np.int64),
    ),
    "count_in_range": (lambda s: sf.count_in_range(s, 10**6, 10**6), N_CHANGED - 1),
    "filter_indexes_where": (
        lambda s: _core._filter_indexes_where(
            np.full(N_CHANGED // 8, 0xFF, np.uint8), s, 10**6, 10**6
        ),
        np.arange(1, N_CHANGED),
    ),
}


@pytest.mark.parametrize("call", sorted(CHANGING_CALLS))
def test_a_chunk_changed_after_its_check_raises(call):
    # A fresh mask comes from the result arena, whose memory is reused without
    # zeroing: an all-True mask of the same size dies first, so the refused
    # chunk's bytes, never written, read True. That was in_range's answer
    # (every index and value call silently missed the chunk instead).
    junk = sf.in_range(np.zeros(N_CHANGED, np.int64), -1, 1)
    assert junk.all()
    del junk
    with pytest.raises(ValueError, match=CHANGED):
        CHANGING_CALLS[call][0](ChangingStream())


@pytest.mark.parametrize("call", sorted(CHANGING_CALLS))
def test_the_changing_stream_left_alone_answers(call):
    # The same producer without its change: the call above fails for the
    # refusal alone.
    f, want = CHANGING_CALLS[call]
    got = f(ChangingStream(change=False))
    if isinstance(want, np.ndarray):
        np.testing.assert_array_equal(got, want)
    else:
        assert got == want
