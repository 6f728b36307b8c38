"""Dask workers of a sweep load femdyn's compiled kernels from numba's on-disk cache
(``femdyn.numerics.compiled``) and compile none: more workers than cores, started at once on a warm cache,
each recording numba's "numba:compile" events (``sweep_cluster.worker_startup``)."""
import os
from pathlib import Path

from femdyn.studies import sweep as sweeps
from femdyn.studies import sweep_cluster

CASE = Path(__file__).resolve().parents[2] / "cases" / "3prr_sine.toml"  # FEM links: the beam kernels run
WORKERS = max(4, 2 * len(os.sched_getaffinity(0)))


def compile_fresh_function():
    """A kernel no cache holds, compiled on the worker: a compilation its recorder must see."""
    from numba import njit

    return njit(lambda x: x + 1.0)(1.0)


def test_workers_on_a_warm_cache_compile_nothing():
    """The flexible 3-PRR sampled at b = 0.10 .. 0.20 m: one sample here fills the cache if it is cold; then
    twice as many workers as cores run the samples (and each worker the last once more) and none compiles a kernel (each kernel's first call
    is a cache load), while a function new to every worker is seen compiled once in each (the recorder
    works); every row is complete and its step count is t_end / dt, the same as this process's."""
    plan = sweeps.plan_sweep(CASE, [sweeps.parse_parameter(f"b=0.10:0.20:{WORKERS}")], t_end=0.01)
    here = sweeps.run_sample(plan.task(0))
    assert here["error"] == ""
    rows = []
    with sweep_cluster.connect(workers=WORKERS) as client:
        sweep_cluster.run_on_cluster(client, [plan.task(i) for i in range(WORKERS)], rows.append)
        rows += client.run(sweeps.run_sample, plan.task(WORKERS - 1)).values()  # on every worker, surely
        loaded = sweep_cluster.worker_startup(client)
        assert all(value == 2.0 for value in client.run(compile_fresh_function).values())
        control = sweep_cluster.worker_startup(client)
    assert len(loaded) == WORKERS
    assert all(record["compiled"] == [] for record in loaded), [r["compiled"] for r in loaded]
    assert all(len(record["compiled"]) == 1 and "<lambda>" in record["compiled"][0] for record in control)
    assert all(record["import_s"] > 0.0 and record["kernel_load_s"] > 0.0 for record in loaded)
    assert sorted(r["sample"] for r in rows) == [*range(WORKERS), *[WORKERS - 1] * WORKERS]
    assert all(r["error"] == "" and r["steps"] == here["steps"] for r in rows)
