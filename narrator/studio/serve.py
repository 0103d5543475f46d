"""Start the studio: the book's results folder, a random token, a socket bound before the URL is printed."""

from __future__ import annotations

import secrets
import socket
from pathlib import Path

import uvicorn

from narrator.core.errors import UserError
from narrator.studio.app import build_app
from narrator.studio.book import Studio


def find_results(given: str | None, root: Path) -> Path:
    """The named results folder, or the only one under ``root`` with a catalog."""
    if given:
        folder = Path(given)
        if not (folder / "catalog.tsv").is_file():
            raise UserError(f"{folder} has no catalog.tsv; name a results/<book_id> folder snakemake planned")
        return folder
    found = sorted(path.parent for path in root.glob("*/catalog.tsv"))
    if len(found) != 1:
        names = ", ".join(str(path) for path in found) or "none"
        raise UserError(f"name the book's results folder (found under {root}/: {names})")
    return found[0]


def serve(results: Path, workdir: Path, snakemake_args: list[str], cores: int, host: str, port: int) -> None:
    studio = Studio(results.resolve(), workdir.resolve(), snakemake_args, cores)
    token = secrets.token_urlsafe(24)
    # Listening here, so that --port 0 has its port before the URL is printed, and a browser opened
    # on it at once waits in the backlog rather than being refused while uvicorn starts.
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    shown = f"[{host}]" if ":" in host else host
    print(f"narrator studio: http://{shown}:{sock.getsockname()[1]}/?token={token}", flush=True)
    server = uvicorn.Server(uvicorn.Config(build_app(studio, token), log_level="warning"))
    server.run(sockets=[sock])
