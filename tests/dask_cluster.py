"""A real Dask cluster on 127.0.0.1 for tests: one `dask scheduler` and N `dask worker`
processes, started and stopped around a block."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def dask_cluster(cwd: Path, workers: int = 2) -> Iterator[str]:
    """Yields the scheduler's address once `workers` workers have joined."""
    dask = shutil.which("dask", path=str(Path(sys.executable).parent))
    assert dask, "the dask command is not installed"
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {**os.environ, "DASK_DISTRIBUTED__WORKER__DAEMON": "False"}
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port",
                                  str(port), "--no-dashboard"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    worker_procs: list[subprocess.Popen] = []
    try:
        for _ in range(workers):
            worker_procs.append(subprocess.Popen(
                [dask, "worker", address, "--nthreads", "1", "--nworkers", "1",
                 "--no-dashboard"], env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL))
        from distributed import Client

        with Client(address, timeout="60s") as client:
            client.wait_for_workers(workers, timeout=120)
            assert len(client.scheduler_info()["workers"]) == workers
        yield address
    finally:
        # the workers first, the scheduler once they are gone: a worker whose scheduler
        # vanished first waits to reconnect before it exits (8 s of every such test)
        _stop(worker_procs)
        _stop([scheduler])


def _stop(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.terminate()
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
