"""What each mode measures: sizes, selectivities and timing budgets."""

SELECTIVITIES = [0.0, 0.001, 0.01, 0.1, 0.5, 0.9, 0.99, 1.0]
Ki, Mi = 1 << 10, 1 << 20

FEW = [0.0, 0.01, 0.5, 1.0]
MODES = {
    # sizes: main grid, random data, selectivities `sels` (`small_sels` below 64 Ki);
    # clustered: sizes that also get sorted and long-run data, at `clustered_sels`;
    # big: size of the memory section; threads_sizes, threads_repeats: the threads section's sizes and batches
    # per method (its ratios compare identical code in the '=' cells: more batches, less noise); target: seconds per timed batch;
    # columns_sizes: throughput sizes of the columns section, columns_mem_n: its peak-memory column;
    # dask_quick: the dask_cluster section at 8 Mi elements (else 256 Mi in 64 MiB chunks).
    # selectivity_sizes/_sels: the selectivity section (filter vs count, sparse loop vs dense);
    # store_form_sizes/_sels: the store_form section (the two AVX-512 store forms and avx2).
    # skip_sorted_n, skip_zone_n: the skipping section (assume_sorted, ZoneMap) sizes.
    # fresh_sizes/_sels/_calls: the fresh_process section (each cell a new process: its first
    # calls with fresh results, out= and NumPy); its THP modes come from --thp.
    # fresh_ratio_sizes/_sels/_repeats: the fresh_ratio section (fresh / out=, timed, per cell).
    # dtype_bw_sizes/_repeats: the dtype_bandwidth section (count_in_range, dtype x kernel).
    # isin_n, isin_set_sizes: the isin section (np.isin, pandas isin, Polars is_in).
    # packed_n: the packed section's column length (simdfilter.Packed against the raw array).
    # mixed_calls: the mixed_memory section's fresh results per process (benchmarks/mixed_rss.py).
    # A new section that needs its own sizes adds its keys to all three modes here.
    "quick": dict(
        sizes=[1000, 64 * Ki, Mi],
        sels=FEW,
        small_sels=FEW,
        clustered=[Mi],
        clustered_sels=[0.01, 0.5],
        big=4 * Mi,
        threads_sizes=[4 * Mi],
        threads_repeats=2,
        dtype_n=64 * Ki,
        target=0.002,
        repeats=2,
        overhead_target=0.005,
        overhead_repeats=3,
        columns_sizes=[64 * Ki],
        columns_mem_n=10_000_000,
        dask_quick=True,
        queries_n=200_000,
        series_sizes=[16, 4096, 200_000],
        selectivity_sizes=[64 * Ki],
        selectivity_sels=[0.001, 0.5],
        store_form_sizes=[64 * Ki],
        store_form_sels=[0.01, 0.5],
        skip_sorted_n=Mi,
        skip_zone_n=Mi,
        fresh_sizes=[64 * Ki],
        fresh_sels=[0.5],
        fresh_calls=5,
        fresh_ratio_sizes=[4 * Ki, 64 * Ki, Mi],
        fresh_ratio_sels=[0.01, 0.5, 0.9],
        fresh_ratio_repeats=2,
        dtype_bw_sizes=[Mi],
        dtype_bw_repeats=2,
        isin_n=20_000,
        isin_set_sizes=[1, 10, 100, 10**4],
        packed_n=Mi,
        mixed_calls=300,
    ),
    "default": dict(
        sizes=[1000, 10_000, 64 * Ki, Mi, 16 * Mi],
        sels=SELECTIVITIES,
        small_sels=FEW,
        clustered=[Mi, 16 * Mi],
        clustered_sels=[0.001, 0.01, 0.1, 0.5, 0.99],
        big=64 * Mi,
        threads_sizes=[Mi, 2 * Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        threads_repeats=7,
        dtype_n=Mi,
        target=0.02,
        repeats=3,
        overhead_target=0.05,
        overhead_repeats=5,
        columns_sizes=[Mi, 16 * Mi],
        columns_mem_n=100_000_000,
        dask_quick=False,
        queries_n=10_000_000,
        series_sizes=[16, 256, 4096, 65536, Mi, 10_000_000],
        selectivity_sizes=[64 * Ki, Mi, 16 * Mi],
        selectivity_sels=[0.001, 0.01, 0.1, 0.5, 0.9],
        store_form_sizes=[64 * Ki, Mi, 16 * Mi],
        store_form_sels=[0.001, 0.01, 0.1, 0.5, 0.9],
        skip_sorted_n=50_000_000,
        skip_zone_n=20_000_000,
        fresh_sizes=[64 * Ki, 256 * Ki, Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        fresh_sels=[0.01, 0.1, 0.5, 0.9, 0.99],
        fresh_calls=30,
        fresh_ratio_sizes=[4 * Ki, 64 * Ki, Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        fresh_ratio_sels=[0.001, 0.01, 0.1, 0.5, 0.9, 0.99],
        fresh_ratio_repeats=5,
        dtype_bw_sizes=[Mi, 64 * Mi],
        dtype_bw_repeats=5,
        isin_n=10_000_000,
        isin_set_sizes=[1, 10, 100, 10**4, 10**6],
        packed_n=64 * Mi,
        mixed_calls=3000,
    ),
    "full": dict(
        sizes=[1000, 10_000, 64 * Ki, 100_000, Mi, 10_000_000, 16 * Mi, 100_000_000],
        sels=SELECTIVITIES,
        small_sels=SELECTIVITIES,
        clustered=[64 * Ki, Mi, 16 * Mi, 100_000_000],
        clustered_sels=SELECTIVITIES,
        big=64 * Mi,
        threads_sizes=[Mi, 2 * Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        threads_repeats=7,
        dtype_n=16 * Mi,
        target=0.02,
        repeats=3,
        overhead_target=0.05,
        overhead_repeats=5,
        columns_sizes=[Mi, 16 * Mi],
        columns_mem_n=100_000_000,
        dask_quick=False,
        queries_n=10_000_000,
        series_sizes=[16, 256, 4096, 65536, Mi, 10_000_000],
        selectivity_sizes=[64 * Ki, Mi, 16 * Mi],
        selectivity_sels=[0.001, 0.01, 0.1, 0.5, 0.9],
        store_form_sizes=[64 * Ki, Mi, 16 * Mi],
        store_form_sels=[0.001, 0.01, 0.1, 0.5, 0.9],
        skip_sorted_n=50_000_000,
        skip_zone_n=20_000_000,
        fresh_sizes=[64 * Ki, 256 * Ki, Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        fresh_sels=[0.01, 0.1, 0.5, 0.9, 0.99],
        fresh_calls=30,
        fresh_ratio_sizes=[4 * Ki, 64 * Ki, Mi, 4 * Mi, 16 * Mi, 64 * Mi],
        fresh_ratio_sels=[0.001, 0.01, 0.1, 0.5, 0.9, 0.99],
        fresh_ratio_repeats=5,
        dtype_bw_sizes=[Mi, 64 * Mi],
        dtype_bw_repeats=7,
        isin_n=10_000_000,
        isin_set_sizes=[1, 10, 100, 10**4, 10**6],
        packed_n=64 * Mi,
        mixed_calls=3000,
    ),
}
THREADED_FROM = (
    Mi  # threads=auto rows only from here: the library keeps smaller inputs on one thread
)
