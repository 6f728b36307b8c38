"""A dask worker preload for tests/cli/test_sweep.py: the worker dies (``os._exit``) when it starts the
sample numbered 1, as long as the file named by ``FEMDYN_TEST_DEATHS`` has fewer lines than
``FEMDYN_TEST_DEATH_COUNT`` (one line is added per death)."""
import os

import femdyn.studies.sweep as sweep

run = sweep.__dict__.setdefault("original_run_sample", sweep.run_sample)  # once, however often preloaded


def dying(task):
    deaths = os.environ["FEMDYN_TEST_DEATHS"]
    if task.sample == 1:
        with open(deaths, "a+") as f:
            f.seek(0)
            if len(f.readlines()) < int(os.environ["FEMDYN_TEST_DEATH_COUNT"]):
                f.write("died\n")
                f.flush()
                os._exit(1)
    return run(task)


sweep.run_sample = dying
