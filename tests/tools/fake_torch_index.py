#!/usr/bin/env python3
"""Stand-in torch and torchvision wheels, served as a PEP 503 simple index on loopback.

The setup tests (tests/cli/cli_setup.sh, tests/ui/test_setup_dialog.cpp) install "PyTorch" with no
network: this script builds two tiny pure-Python wheels at the pinned versions (torch pads itself
with incompressible data so that a throttled download lasts long enough to watch and cancel) and
serves them on 127.0.0.1 only. It stops by itself after --lifetime seconds, so a test that dies
never leaves a server behind.

    fake_torch_index.py --dir DIR --torch 2.11.0 --torchvision 0.26.0 [--pad-mb 4] [--rate-kib 512]
    prints the index URL (http://127.0.0.1:PORT/simple) on its first line, then serves
    --wheels-only: builds DIR/wheels (for --find-links) and exits
    --closed-port: prints a loopback URL on which nothing listens (the "offline" test) and exits
"""
import argparse
import base64
import hashlib
import http.server
import os
import socket
import sys
import threading
import time
import zipfile


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def build_wheel(folder, name, version, files):
    """A py3-none-any wheel holding `files` ({path: bytes}) with a valid dist-info."""
    dist_info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        "Summary: Stepscope's stand-in for tests; not the real package\n"
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: stepscope-fake-torch-index\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    record = "".join(f"{path},{record_hash(data)},{len(data)}\n" for path, data in files.items())
    record += f"{dist_info}/RECORD,,\n"
    files[f"{dist_info}/RECORD"] = record.encode()
    path = os.path.join(folder, f"{name}-{version}-py3-none-any.whl")
    # Stored, not deflated: the padding is random anyway and the size on the wire is what tests time.
    with zipfile.ZipFile(path + ".part", "w", zipfile.ZIP_STORED) as wheel:
        for name_in_zip, data in files.items():
            wheel.writestr(name_in_zip, data)
    os.replace(path + ".part", path)
    return path


def build_wheels(folder, torch_version, torchvision_version, pad_mb):
    wheels = os.path.join(folder, "wheels")
    os.makedirs(wheels, exist_ok=True)
    torch_files = {
        "torch/__init__.py": b"from .version import __version__\n",
        "torch/version.py": f"__version__ = '{torch_version}'\n".encode(),
        # A data file, never imported: only its bytes matter (the download lasts a while when throttled).
        "torch/_padding.bin": os.urandom(int(pad_mb * 1024 * 1024)),
    }
    vision_files = {
        "torchvision/__init__.py": b"from .version import __version__\n",
        "torchvision/version.py": f"__version__ = '{torchvision_version}'\n".encode(),
    }
    return [
        build_wheel(wheels, "torch", torch_version, torch_files),
        build_wheel(wheels, "torchvision", torchvision_version, vision_files),
    ]


def make_handler(wheels, rate_bytes):
    by_project = {}
    for path in wheels:
        project = os.path.basename(path).split("-")[0]
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        by_project[project] = (os.path.basename(path), path, digest)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # the test's output is pip's, not ours
            pass

        def send_text(self, text, status=200):
            body = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html" if status == 200 else "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            parts = [p for p in self.path.split("?")[0].split("/") if p]
            if parts == ["simple"]:
                links = "".join(f'<a href="/simple/{p}/">{p}</a>\n' for p in by_project)
                return self.send_text(f"<!DOCTYPE html><html><body>\n{links}</body></html>\n")
            if len(parts) == 2 and parts[0] == "simple" and parts[1] in by_project:
                name, _, digest = by_project[parts[1]]
                return self.send_text(
                    f'<!DOCTYPE html><html><body>\n<a href="/files/{name}#sha256={digest}">{name}</a>\n'
                    "</body></html>\n"
                )
            if len(parts) == 2 and parts[0] == "files":
                for name, path, _ in by_project.values():
                    if parts[1] == name:
                        return self.send_file(path)
            return self.send_text("not found\n", 404)

        def send_file(self, path):
            size = os.path.getsize(path)
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            # pip's HTTP cache must not hold the stand-in: a resumed test downloads again.
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            chunk = 64 * 1024
            start = time.monotonic()
            sent = 0
            try:
                with open(path, "rb") as f:
                    while True:
                        data = f.read(chunk)
                        if not data:
                            break
                        self.wfile.write(data)
                        sent += len(data)
                        if rate_bytes > 0:
                            ahead = sent / rate_bytes - (time.monotonic() - start)
                            if ahead > 0:
                                time.sleep(ahead)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away: a cancelled download

    return Handler


def closed_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed on leaving: nothing listens there now


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", help="where the wheels are built")
    parser.add_argument("--torch", default="2.11.0")
    parser.add_argument("--torchvision", default="0.26.0")
    parser.add_argument("--pad-mb", type=float, default=1.0, help="incompressible bytes in the torch wheel")
    parser.add_argument("--rate-kib", type=float, default=0, help="throttle downloads to this many KiB/s")
    parser.add_argument("--lifetime", type=float, default=120, help="seconds until the server stops by itself")
    parser.add_argument("--wheels-only", action="store_true")
    parser.add_argument("--closed-port", action="store_true")
    args = parser.parse_args()

    if args.closed_port:
        print(f"http://127.0.0.1:{closed_port()}/simple", flush=True)
        return 0
    if not args.dir:
        parser.error("--dir is needed")
    wheels = build_wheels(args.dir, args.torch, args.torchvision, args.pad_mb)
    if args.wheels_only:
        print(os.path.dirname(wheels[0]), flush=True)
        return 0

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), make_handler(wheels, args.rate_kib * 1024))
    server.daemon_threads = True
    threading.Timer(args.lifetime, server.shutdown).start()
    print(f"http://127.0.0.1:{server.server_address[1]}/simple", flush=True)
    server.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
