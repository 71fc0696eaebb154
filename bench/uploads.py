"""Uploading a 20 MiB attachment: the app's throughput beside a bare aiohttp handler streaming
the same multipart body to a file, and how much the app's resident memory grows meanwhile."""

import json
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from bench.harness import (
    ROUNDS,
    Server,
    environment,
    free_port,
    run_cli,
    scratch_database,
    server,
)

FILE_MIB = 20
UPLOADS_PER_ROUND = 5
BOUNDARY = "----bench-upload-boundary"
TEAM, CHANNEL = "19:demo-team@thread.tacv2", "19:demo-bugs@thread.tacv2"


def title() -> str:
    return (
        f"Upload of a {FILE_MIB} MiB file ({UPLOADS_PER_ROUND} one after another per round, "
        f"{ROUNDS} rounds, curl): MiB/s beside a bare aiohttp handler, and the app's RSS growth"
    )


def measure(kind: str) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as folder, scratch_database(kind, Path(folder)) as url:
        root = Path(folder)
        files_dir = root / "files"
        env = environment(url, DATA_DIR=folder, SEED_DEMO="false", FILES_DIR=str(files_dir))
        cookie = json.loads(run_cli(env, "admin", "demo"))["cookie"]
        headers = {
            "Cookie": f"graphNodeCookie={cookie}",
            "x-svc-teamid": TEAM,
            "x-svc-channelId": CHANNEL,
        }
        body = root / "body.multipart"
        _write_body(body, FILE_MIB * 1024 * 1024)
        small = root / "small.multipart"
        _write_body(small, 1024)
        with ExitStack() as servers:
            port = free_port()
            app = servers.enter_context(
                server([sys.executable, "app.py"], {**env, "PORT": str(port)}, port)
            )
            bug = _create_bug(app.base, headers)
            app_url = f"{app.base}/api/files/{bug}"
            port = free_port()
            bare_folder = root / "bare"
            bare_folder.mkdir()
            command = [
                sys.executable,
                "-m",
                "bench.bare_upload_server",
                str(port),
                str(bare_folder),
            ]
            bare = servers.enter_context(server(command, env, port))
            _upload(app_url, headers, small)  # the upload path's first use, before the baseline
            before = app.rss_mb()
            idle: list[float] = []
            with _health_probe(app.base, idle):
                time.sleep(2)
            app_rates, bare_rates, waits = [], [], []
            with _peak_rss(app) as peak:
                for _ in range(ROUNDS):
                    with _health_probe(app.base, waits):
                        app_rates.append(_rate(lambda: _upload(app_url, headers, body)))
                    bare_rates.append(_rate(lambda: _upload(bare.base + "/upload", {}, body)))
                    _remove_stored(files_dir)
            return {
                "app_mib_s": _median(app_rates),
                "bare_mib_s": _median(bare_rates),
                "ratio": _median([a / b for a, b in zip(app_rates, bare_rates, strict=True)]),
                "rss_before_mb": before,
                "rss_growth_mb": peak() - before,
                "health_p99_ms": sorted(waits)[int(len(waits) * 0.99)],
                "health_max_ms": max(waits),
                "idle_p99_ms": sorted(idle)[int(len(idle) * 0.99)],
            }


def report(kind: str, results: dict[str, float]) -> str:
    return (
        f"{kind:10} app {results['app_mib_s']:6.0f} MiB/s  bare {results['bare_mib_s']:6.0f} MiB/s"
        f"  app/bare {results['ratio']:.0%}  RSS {results['rss_before_mb']:.0f} MiB,"
        f" grew {results['rss_growth_mb']:+.1f} MiB at most;  /healthz meanwhile"
        f" p99 {results['health_p99_ms']:.1f} ms, max {results['health_max_ms']:.1f} ms"
        f" (idle p99 {results['idle_p99_ms']:.1f} ms)"
    )


def _write_body(path: Path, size: int) -> None:
    """A multipart body with one file of `size` bytes (not compressible) and a text field."""
    with path.open("wb") as out:
        out.write(
            f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="groupId"\r\n\r\n'.encode()
        )
        out.write(b"bench\r\n")
        out.write(f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="file"; '.encode())
        out.write(b'filename="trace.bin"\r\nContent-Type: application/octet-stream\r\n\r\n')
        block = bytes(range(256)) * 4096
        for start in range(0, size, len(block)):
            out.write(block[: min(len(block), size - start)])
        out.write(f"\r\n--{BOUNDARY}--\r\n".encode())


def _create_bug(base: str, headers: dict[str, str]) -> str:
    request = urllib.request.Request(
        f"{base}/odata/bugs",
        data=b'{"name": "Upload bench"}',
        headers={**headers, "Content-Type": "application/json"},
    )
    return str(json.loads(urllib.request.urlopen(request).read())["_id"])


def _upload(url: str, headers: dict[str, str], body: Path) -> None:
    options = [f"-H{name}: {value}" for name, value in headers.items()]
    options.append(f"-HContent-Type: multipart/form-data; boundary={BOUNDARY}")
    status = subprocess.run(
        ["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", *options,
         "--data-binary", f"@{body}", url],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    if status != "201":
        raise RuntimeError(f"upload to {url} answered {status}")


def _remove_stored(files_dir: Path) -> None:
    """The stored files (their rows stay), sparing the disk; `tmp/` is the app's own."""
    for folder in files_dir.iterdir():
        if folder.name != "tmp":
            shutil.rmtree(folder)


def _rate(upload: Callable[[], None]) -> float:
    """MiB per second over UPLOADS_PER_ROUND uploads one after another."""
    started = time.perf_counter()
    for _ in range(UPLOADS_PER_ROUND):
        upload()
    return FILE_MIB * UPLOADS_PER_ROUND / (time.perf_counter() - started)


@contextmanager
def _peak_rss(process: Server) -> Iterator[Callable[[], float]]:
    """The process's largest resident memory while the block runs, sampled every 2 ms."""
    peak = [process.rss_mb()]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(0.002):
            peak[0] = max(peak[0], process.rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield lambda: peak[0]
    finally:
        done.set()
        sampler.join()


@contextmanager
def _health_probe(base: str, waits: list[float]) -> Iterator[None]:
    """`/healthz` asked again and again while the block runs, each wait (ms) kept: how long
    the event loop was held from other requests."""
    done = threading.Event()

    def probe() -> None:
        while not done.is_set():
            started = time.perf_counter()
            urllib.request.urlopen(f"{base}/healthz").read()
            waits.append((time.perf_counter() - started) * 1000)
            done.wait(0.005)

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    try:
        yield
    finally:
        done.set()
        prober.join()


def _median(values: list[float]) -> float:
    return sorted(values)[len(values) // 2]
