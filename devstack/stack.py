#!/usr/bin/env python3
"""Dev-stack helper: runs the Firebase Local Emulator Suite for `make serve`, `make test` and `make bench`.

Standard library only: it runs before functions/venv exists. Called by the devstack/*.sh scripts, which
source devstack/env.sh first (PATH with the chosen java and node_modules/.bin, the .devstack/ folders).

  stack.py serve                   start the emulators, wait for /api/health, seed, run until interrupted
  stack.py exec [--] CMD...        run CMD inside `firebase emulators:exec`, after /api/health answers
  stack.py inner ...               (internal) the script emulators:exec runs: wait, run CMD, record its code
  stack.py cleanup                 stop what a crashed run of this checkout left behind
  stack.py hash FILE...            sha256 over files (stamps of devstack/install.sh)
  stack.py mkjar ...               build a jar (manifest, optional classes) without the JDK's jar tool
  stack.py probe HOST PORT         exit 0 when a TCP connection opens within 3 s
  stack.py secret FILE             create functions/.secret.local (a random CLIENT_JWT_SECRET, media placeholders)

Every process of a run carries DEVSTACK_MARK (this checkout and port offset) and DEVSTACK_RUN (run id:supervisor pid) in
its environment. The emulators start in their own session (setsid); the Java emulators and the Python
workers that firebase-tools starts detach from it, so at the end the run is stopped by process group and
then by that marker, and the ports of firebase.json are checked to be free.
"""

import argparse
import contextlib
import hashlib
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid
import zipfile
from pathlib import Path

ROOT = Path(os.environ.get("DEVSTACK_ROOT") or Path(__file__).resolve().parent.parent)
STATE = ROOT / ".devstack"
# DEVSTACK_PORT_OFFSET=N runs a second, independent stack from the same checkout: every emulator port
# moves by N (through a generated firebase config), and its logs, run files and process markers are
# its own, so starting or cleaning one stack never touches another.
PORT_OFFSET = int(os.environ.get("DEVSTACK_PORT_OFFSET") or 0)
SUFFIX = f"-offset{PORT_OFFSET}" if PORT_OFFSET else ""
LOGS = STATE / f"logs{SUFFIX}"
RUN = STATE / f"run{SUFFIX}"
MARK = f"{ROOT}{'@' + str(PORT_OFFSET) if PORT_OFFSET else ''}"
PROJECT = "demo-wellness"
EMULATORS = "auth,firestore,functions,storage,tasks,hosting"
HEALTH_TIMEOUT_S = int(os.environ.get("DEVSTACK_HEALTH_TIMEOUT", "120"))
STOP_TIMEOUT_S = 20
STORAGE_WARNING = (
    "WARNING: Storage security rules are NOT evaluated: the Storage emulator runs with the offline "
    "rules-runtime stand-in, which permits every request (storage.rules is not enforced)."
)


def say(msg):
    print("[devstack] " + msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------- config


# Pages that sign in with the Firebase JS SDK reach the Auth emulator on this machine; only the emulators' copy
# of their Content-Security-Policy allows that origin (firebase.json, what production serves, does not).
EMULATOR_CONNECT_SRC = "http://127.0.0.1:* http://localhost:*"
EMULATOR_CSP_SOURCES = ("/admin/**",)


def firebase_json():
    config = json.loads((ROOT / "firebase.json").read_text())
    if PORT_OFFSET:
        for conf in config.get("emulators", {}).values():
            for key in ("port", "websocketPort"):
                if isinstance(conf, dict) and isinstance(conf.get(key), int):
                    conf[key] += PORT_OFFSET
    for rule in config.get("hosting", {}).get("headers", []):
        if rule.get("source") not in EMULATOR_CSP_SOURCES:
            continue
        for header in rule["headers"]:
            if header["key"] == "Content-Security-Policy":
                header["value"] = header["value"].replace("connect-src 'self'",
                                                          f"connect-src 'self' {EMULATOR_CONNECT_SRC}", 1)
    return config


def config_args():
    """`--config FILE`: the emulators' copy of firebase.json (its ports moved by the offset, the emulator origins
    added to the sign-in pages' CSP), written beside it."""
    path = ROOT / f".firebase.{'offset' + str(PORT_OFFSET) if PORT_OFFSET else 'emulators'}.json"
    path.write_text(json.dumps(firebase_json(), indent=2))
    return ["--config", str(path)]


def emulator_ports():
    """{name: port} of every emulator in firebase.json (the hub and logging ports included)."""
    ports = {}
    for name, conf in firebase_json().get("emulators", {}).items():
        if isinstance(conf, dict) and isinstance(conf.get("port"), int):
            ports[name] = conf["port"]
    return ports


def base_url():
    hosting = firebase_json()["emulators"]["hosting"]
    return f"http://{hosting.get('host', '127.0.0.1')}:{hosting['port']}"


def emulator_env():
    """What a client of the emulators (bin/platformctl seed) needs, as emulators:exec sets it."""
    em = firebase_json()["emulators"]

    def hp(name):
        return f"{em[name].get('host', '127.0.0.1')}:{em[name]['port']}"

    return {
        "GCLOUD_PROJECT": PROJECT,
        "GOOGLE_CLOUD_PROJECT": PROJECT,
        "FIRESTORE_EMULATOR_HOST": hp("firestore"),
        "FIREBASE_AUTH_EMULATOR_HOST": hp("auth"),
        "FIREBASE_STORAGE_EMULATOR_HOST": hp("storage"),
        "STORAGE_EMULATOR_HOST": "http://" + hp("storage"),
        "CLOUD_TASKS_EMULATOR_HOST": hp("tasks"),
        "FIREBASE_EMULATOR_HUB": hp("hub"),
        "PUBLIC_BASE_URL": base_url(),
    }


def storage_standin():
    return bool(os.environ.get("STORAGE_EMULATOR_BINARY_PATH")) and os.environ.get("DEVSTACK_STORAGE_RULES") == "standin"


# ------------------------------------------------------------------------------------------- processes


def _read(path, binary=False):
    try:
        with open(path, "rb") as f:
            data = f.read()
        return data if binary else data.decode("utf-8", "replace")
    except OSError:
        return None


def proc_marker(pid):
    """(DEVSTACK_MARK, DEVSTACK_RUN) from a process's environment, or (None, None)."""
    data = _read(f"/proc/{pid}/environ", binary=True)
    if not data:
        return None, None
    root = run = None
    for item in data.split(b"\0"):
        if item.startswith(b"DEVSTACK_MARK="):
            root = item[len(b"DEVSTACK_MARK=") :].decode("utf-8", "replace")
        elif item.startswith(b"DEVSTACK_RUN="):
            run = item[len(b"DEVSTACK_RUN=") :].decode("utf-8", "replace")
    return root, run


def proc_cmdline(pid):
    data = _read(f"/proc/{pid}/cmdline", binary=True)
    if data:
        return " ".join(a.decode("utf-8", "replace") for a in data.split(b"\0") if a)
    try:
        ps = ["ps", "-o", "command=", "-p", str(pid)]
        return subprocess.run(ps, capture_output=True, text=True).stdout.strip()  # noqa: S603
    except OSError:
        return "?"


def all_pids():
    try:
        return [int(p) for p in os.listdir("/proc") if p.isdigit()]
    except OSError:
        return []


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = _read(f"/proc/{pid}/stat")
    return not (stat and stat.rsplit(")", 1)[-1].split()[0] == "Z")


def supervisor_alive(run):
    """A run id is `<uuid>:<supervisor pid>`; the run is live while that supervisor still runs."""
    try:
        pid = int(run.rsplit(":", 1)[1])
    except (ValueError, IndexError, AttributeError):
        return False
    return pid != os.getpid() and alive(pid) and "stack.py" in proc_cmdline(pid)


def marked_pids(run=None, root=None):
    """Processes carrying this checkout's marker (and this run id, when given). Linux /proc only."""
    me = os.getpid()
    out = []
    for pid in all_pids():
        if pid == me:
            continue
        r, rid = proc_marker(pid)
        if r is None or rid is None or (root is not None and r != root) or (run is not None and rid != run):
            continue
        out.append((pid, rid))
    return out


def kill_pids(pids, grace=3.0):
    """SIGTERM the given pids, then SIGKILL whatever is left after `grace` seconds."""
    pids = [p for p in pids if alive(p)]
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, sig)
        deadline = time.time() + grace
        while time.time() < deadline:
            pids = [p for p in pids if alive(p)]
            if not pids:
                return
            time.sleep(0.1)


def listening_pid(port):
    """The pid listening on a local TCP port, best effort (Linux /proc, else lsof), or None."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        text = _read(table)
        for line in (text or "").splitlines()[1:]:
            cols = line.split()
            if len(cols) > 9 and cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(f"socket:[{cols[9]}]")
    if inodes:
        for pid in all_pids():
            try:
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    try:
                        if os.readlink(f"/proc/{pid}/fd/{fd}") in inodes:
                            return pid
                    except OSError:
                        continue
            except OSError:
                continue
    try:
        lsof = ["lsof", "-nP", "-t", f"-iTCP:{port}", "-sTCP:LISTEN"]
        out = subprocess.run(lsof, capture_output=True, text=True).stdout.split()  # noqa: S603
        return int(out[0]) if out else None
    except (OSError, ValueError):
        return None


def port_busy(port):
    for family, addr in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            with socket.socket(family, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                if s.connect_ex((addr, port)) == 0:
                    return True
        except OSError:
            continue
    return False


def busy_ports():
    return {name: port for name, port in emulator_ports().items() if port_busy(port)}


def describe_ports(ports):
    return ", ".join(f"{port} ({name})" for name, port in sorted(ports.items(), key=lambda kv: kv[1]))


def cleanup_leftovers(quiet=False):
    """Stop processes of this checkout whose run's supervisor is gone (a crashed or killed run)."""
    root = MARK
    stale = [(pid, run) for pid, run in marked_pids(root=root) if not supervisor_alive(run)]
    if stale:
        pids = ", ".join(str(p) for p, _ in stale)
        say(f"stopping {len(stale)} process(es) left by an earlier run of this checkout: {pids}")
        kill_pids([p for p, _ in stale])
    elif not quiet:
        say("nothing left over from earlier runs")


# The Fetch standard's bad ports (https://fetch.spec.whatwg.org/#port-blocking): Chromium refuses them
# (net::ERR_UNSAFE_PORT) and so does Node's fetch ("fetch failed"), so a stack with an emulator on one fails
# every browser or rules test for a reason that is not the platform's.
BAD_PORTS = frozenset({
    1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
    109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
    526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
    3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
})


def unsafe_ports(offset):
    """{name: port} of the emulators that `offset` would put on a bad port (or outside 1-65535)."""
    base = json.loads((ROOT / "firebase.json").read_text()).get("emulators", {})
    found = {}
    for name, conf in base.items():
        for key in ("port", "websocketPort"):
            if isinstance(conf, dict) and isinstance(conf.get(key), int):
                port = conf[key] + offset
                if port in BAD_PORTS or not 0 < port < 65536:
                    found[f"{name} {key}" if key != "port" else name] = port
    return found


def safe_offset_near(offset):
    """The nearest multiple of 1000 at or above `offset` that puts no emulator on a bad port."""
    candidate = max(1000, (offset + 999) // 1000 * 1000)
    while unsafe_ports(candidate):
        candidate += 1000
    return candidate


def check_offset():
    bad = unsafe_ports(PORT_OFFSET)
    if bad:
        say(
            f"DEVSTACK_PORT_OFFSET={PORT_OFFSET} puts {describe_ports(bad)} on a port that browsers and Node's fetch "
            f"refuse (the Fetch standard's bad ports); use DEVSTACK_PORT_OFFSET={safe_offset_near(PORT_OFFSET)}"
        )
        sys.exit(2)


def preflight():
    """Clean our own leftovers, then fail with a clear message if an emulator port is still taken."""
    check_offset()
    cleanup_leftovers(quiet=True)
    busy = busy_ports()
    if not busy:
        return
    time.sleep(1.0)  # sockets of processes just killed may take a moment to close
    busy = busy_ports()
    if not busy:
        return
    owners = {}
    for name, port in sorted(busy.items(), key=lambda kv: kv[1]):
        owners.setdefault(listening_pid(port), []).append(f"{port} ({name})")
    lines = []
    for pid, ports in owners.items():
        who = f"pid {pid}: {proc_cmdline(pid)[:100]}" if pid else "a process this user cannot see"
        r, run = proc_marker(pid) if pid else (None, None)
        if r == MARK and supervisor_alive(run):
            supervisor = run.rsplit(":", 1)[1]
            who += f"\n    <- a `make serve`/`make test` of this checkout is running (devstack/stack.py pid {supervisor})"
        elif r:
            who += "\n    <- started by the dev stack of another checkout: " + r
        lines.append(f"  port {', '.join(ports)} in use by {who}")
    say(
        "cannot start the emulators, their ports are taken:\n"
        + "\n".join(lines)
        + "\nStop that process (or the other `make serve`), or change the ports in firebase.json."
    )
    sys.exit(3)


class Run:
    """One firebase process in its own session, its log, and everything it leaves behind."""

    def __init__(self, args, log_path):
        self.id = f"{uuid.uuid4().hex[:12]}:{os.getpid()}"
        LOGS.mkdir(parents=True, exist_ok=True)
        RUN.mkdir(parents=True, exist_ok=True)
        self.log_path = log_path
        self.log = open(log_path, "wb")  # noqa: SIM115 (closed in stop())
        env = dict(os.environ)
        env["DEVSTACK_ROOT"] = str(ROOT)
        env["DEVSTACK_MARK"] = MARK
        # No kept-alive connections from the emulators to the Python workers (the file says why).
        preload = f'--require "{ROOT / "devstack" / "node_no_keepalive.cjs"}"'
        env["NODE_OPTIONS"] = f"{env.get('NODE_OPTIONS', '')} {preload}".strip()
        # The test and bench processes (and the seed) reach Hosting at this stack's own port.
        env["E2E_BASE_URL"] = env["PUBLIC_BASE_URL"] = base_url()
        env["XDG_RUNTIME_DIR"] = str(RUN / "xdg")
        (RUN / "xdg").mkdir(mode=0o700, parents=True, exist_ok=True)
        # The hub's locator file (hub-<project>.json) and the Storage emulator's blobs live in TMPDIR;
        # a stack sharing it with another would lose them when the other one starts or stops.
        env["TMPDIR"] = str(STATE / f"tmp{SUFFIX}")
        Path(env["TMPDIR"]).mkdir(parents=True, exist_ok=True)
        env["DEVSTACK_RUN"] = self.id
        # tests/test_logs.py reads what this run's emulators logged (function output, Hosting, Auth, Tasks).
        env["DEVSTACK_EMULATOR_LOG"] = str(log_path)
        # tests/test_indexes.py checks the shape of every Firestore query this run's code makes (core/query_record.py);
        # a fresh folder per run, so that a query the code no longer makes is not checked.
        queries = RUN / "firestore-queries"
        shutil.rmtree(queries, ignore_errors=True)
        queries.mkdir(parents=True)
        env["WELLNESS_FIRESTORE_QUERY_LOG"] = str(queries)
        firebase = ROOT / "node_modules" / ".bin" / "firebase"
        cmd = [str(firebase), *config_args(), *args]
        self.log.write(("$ " + shlex.join(cmd) + "\n").encode())
        self.log.flush()
        self.started = time.time()
        self.proc = subprocess.Popen(  # noqa: S603
            cmd,
            cwd=str(ROOT),
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.pgid = self.proc.pid

    def tail(self, n=40):
        text = _read(self.log_path) or ""
        return "\n".join(text.splitlines()[-n:])

    def stop(self):
        """SIGINT firebase for its clean shutdown, then end its group and every marked process."""
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGINT)
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                say(f"firebase did not stop within {STOP_TIMEOUT_S} s; killing it")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.pgid, sig)
            except (ProcessLookupError, PermissionError):
                break
            deadline = time.time() + 3
            while time.time() < deadline and self.proc.poll() is None:
                time.sleep(0.1)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        kill_pids([pid for pid, _ in marked_pids(run=self.id)])
        self.log.close()
        deadline = time.time() + 10
        busy = busy_ports()
        while busy and time.time() < deadline:
            time.sleep(0.3)
            busy = busy_ports()
        if busy:
            say(f"WARNING: ports still in use after stopping: {describe_ports(busy)}")
            return False
        return True


def wait_http_ok(url, timeout, give_up=None):
    """Poll url until it answers 200; False on timeout or when give_up() turns true."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if give_up is not None and give_up():
            return False
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:  # noqa: S310 (http URL from firebase.json)
                if resp.status == 200:
                    return True
        except (urllib.error.URLError, OSError, ValueError):
            pass
        time.sleep(0.5)
    return False


def install_stop_signals():
    """Turn SIGINT/SIGTERM/SIGHUP into KeyboardInterrupt, so every path runs its cleanup."""

    def handler(signum, frame):
        raise KeyboardInterrupt(signum)

    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, handler)


def warn_storage():
    if storage_standin():
        say(STORAGE_WARNING)


# ----------------------------------------------------------------------------------------------- serve


def cmd_serve(_args):
    warn_storage()
    preflight()
    install_stop_signals()
    run = None
    try:
        run = Run(["emulators:start", "--project", PROJECT, "--only", EMULATORS], LOGS / "emulators.log")
        say(f"starting the emulators (log: {run.log_path.relative_to(ROOT)})")
        url = base_url() + "/api/health"
        if not wait_http_ok(url, HEALTH_TIMEOUT_S, give_up=lambda: run.proc.poll() is not None):
            why = (
                f"firebase exited with code {run.proc.returncode}"
                if run.proc.poll() is not None
                else f"no 200 from {url} within {HEALTH_TIMEOUT_S} s"
            )
            say(f"the emulators did not become ready: {why}. Last lines of {run.log_path.relative_to(ROOT)}:\n{run.tail()}")
            return 1
        say(f"ready in {time.time() - run.started:.1f} s: GET {url} answered 200")
        seed()
        banner()
        while run.proc.poll() is None:
            time.sleep(1)
        say(f"firebase exited unexpectedly (code {run.proc.returncode}). Last lines of the log:\n{run.tail()}")
        return 1
    except KeyboardInterrupt:
        say("stopping the emulators ...")
        return 0
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if run is not None and run.stop():
            say("stopped; no emulator port is in use")


def seed():
    ctl = ROOT / "bin" / "platformctl"
    if not ctl.exists():
        say("bin/platformctl does not exist yet: skipping the demo seed")
        return
    env = dict(os.environ)
    env.update(emulator_env())
    env["PATH"] = str(ROOT / "functions" / "venv" / "bin") + os.pathsep + env.get("PATH", "")
    say("seeding the demo world: bin/platformctl seed")
    res = subprocess.run(  # noqa: S603
        [str(ctl), "seed"], cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True
    )
    if res.returncode != 0:
        detail = (res.stderr or res.stdout).strip()[-2000:]
        say(f"WARNING: bin/platformctl seed failed (exit {res.returncode}): {detail}")
        return
    print(res.stdout.strip(), flush=True)


def banner():
    ports = emulator_ports()
    lines = [
        "",
        f"  Wellness platform API: {base_url()}   (health: {base_url()}/api/health)",
        f"  project {PROJECT}; emulators: "
        + "  ".join(f"{name} :{ports[name]}" for name in ("auth", "firestore", "functions", "storage", "tasks", "hub")),
        "  demo credentials: the seed JSON above; emulator log: .devstack/logs/emulators.log",
        "  Ctrl-C stops every process of the stack.",
        "",
    ]
    print("\n".join(lines), flush=True)
    warn_storage()


# ------------------------------------------------------------------------------------------------ exec


def cmd_exec(args):
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        say("exec: no command given")
        return 2
    warn_storage()
    preflight()
    install_stop_signals()
    rc_file = RUN / "exec.rc"
    out_file = LOGS / "exec-output.log"
    RUN.mkdir(parents=True, exist_ok=True)
    LOGS.mkdir(parents=True, exist_ok=True)
    for f in (rc_file, out_file):
        with contextlib.suppress(OSError):
            f.unlink()
    out_file.touch()
    inner = [sys.executable, str(Path(__file__).resolve()), "inner", "--rc-file", str(rc_file), "--out-file", str(out_file)]
    inner += ["--url", base_url() + "/api/health", "--", *command]
    run = None
    stop_tail = threading.Event()
    tailer = threading.Thread(target=tail_file, args=(out_file, stop_tail), daemon=True)
    try:
        run = Run(["emulators:exec", "--project", PROJECT, "--only", EMULATORS, shlex.join(inner)], LOGS / "emulators.log")
        say(f"starting the emulators for: {shlex.join(command)} (log: {run.log_path.relative_to(ROOT)})")
        tailer.start()
        code = run.proc.wait()
    except KeyboardInterrupt:
        say("interrupted; stopping the emulators ...")
        code = 130
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        stop_tail.set()
        if tailer.is_alive():
            tailer.join(5)
        if run is not None:
            run.stop()
    rc_text = _read(rc_file)
    if code == 130:
        return code
    if rc_text is None or not rc_text.strip().lstrip("-").isdigit():
        log = run.log_path.relative_to(ROOT)
        say(f"the command did not run: firebase emulators:exec exited with code {code}. Last lines of {log}:\n{run.tail()}")
        return code or 1
    rc = int(rc_text)
    hint = " (pytest: no tests were collected)" if rc == 5 else ""
    say(f"`{shlex.join(command)}` exited with code {rc}{hint}")
    return rc


def tail_file(path, stop):
    """Copy what the command inside emulators:exec writes to its output file onto our stdout."""
    with open(path, "rb") as f:
        while True:
            chunk = f.read(65536)
            if chunk:
                sys.stdout.buffer.write(chunk)
                sys.stdout.buffer.flush()
                continue
            if stop.is_set():
                return
            time.sleep(0.1)


def cmd_inner(args):
    """Runs inside emulators:exec: wait for /api/health, run the command, record its exit code."""
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    with open(args.out_file, "ab", buffering=0) as out:

        def note(msg):
            out.write(("[devstack] " + msg + "\n").encode())

        started = time.time()
        if not wait_http_ok(args.url, HEALTH_TIMEOUT_S):
            note(f"no 200 from {args.url} within {HEALTH_TIMEOUT_S} s; not running the command")
            Path(args.rc_file).write_text("1\n")
            return 1
        note(f"emulators ready: {args.url} answered 200 after {time.time() - started:.1f} s")
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        try:
            rc = subprocess.call(  # noqa: S603
                command, cwd=str(ROOT), env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT
            )
        except OSError as e:
            note(f"cannot run {command[0]}: {e}")
            rc = 127
        Path(args.rc_file).write_text(f"{rc}\n")
        return rc


# ------------------------------------------------------------------------------------------ small tools


def cmd_cleanup(_args):
    cleanup_leftovers()
    busy = busy_ports()
    if busy:
        say(f"ports still in use: {describe_ports(busy)}")
        return 1
    return 0


def cmd_hash(args):
    h = hashlib.sha256()
    for name in args.files:
        h.update(name.encode() + b"\0")
        data = _read(name, binary=True)
        h.update(data if data is not None else b"<missing>")
        h.update(b"\0")
    for extra in args.extra:
        h.update(extra.encode() + b"\0")
    print(h.hexdigest())
    return 0


def manifest(main_class, class_path):
    def wrap(line):
        raw = line.encode("utf-8")
        parts = [raw[:72]]
        raw = raw[72:]
        while raw:
            parts.append(b" " + raw[:71])
            raw = raw[71:]
        return b"\r\n".join(parts) + b"\r\n"

    text = wrap("Manifest-Version: 1.0") + wrap("Created-By: devstack")
    text += wrap("Main-Class: " + main_class)
    if class_path:
        text += wrap("Class-Path: " + " ".join(class_path))
    return text + b"\r\n"


def cmd_mkjar(args):
    class_path = [Path(p).resolve().as_uri() for p in args.class_path]
    tmp = args.out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("META-INF/", b"")
        z.writestr("META-INF/MANIFEST.MF", manifest(args.main_class, class_path))
        if args.classes:
            base = Path(args.classes)
            for f in sorted(base.rglob("*.class")):
                z.write(str(f), f.relative_to(base).as_posix())
    os.replace(tmp, args.out)
    return 0


def cmd_probe(args):
    try:
        with socket.create_connection((args.host, args.port), timeout=3):
            return 0
    except OSError:
        return 1


# Secrets the functions declare. Without a value here the Functions emulator asks Secret Manager for them, which
# is unreachable offline. The media vendors' keys and the LLM's get a placeholder: their providers stay local unless
# the MEDIA_*_PROVIDER parameters choose a vendor or LLM_BASE_URL and LLM_MODEL name a server, and then the real key
# goes here (README, Media generation and AI assistant).
LOCAL_SECRETS = {
    "CLIENT_JWT_SECRET": lambda: os.urandom(32).hex(),
    "MEDIA_IMAGE_API_KEY": lambda: "not-configured",
    "MEDIA_VIDEO_API_KEY": lambda: "not-configured",
    "LLM_API_KEY": lambda: "not-configured",
}


def cmd_secret(args):
    """Create the file, or add the secrets it lacks; values already there are kept."""
    path = Path(args.file)
    text = path.read_text() if path.exists() else ""
    present = {line.split("=", 1)[0].strip() for line in text.splitlines() if "=" in line}
    missing = [name for name in LOCAL_SECRETS if name not in present]
    if not missing:
        return 0
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + "".join(f"{name}={LOCAL_SECRETS[name]()}\n" for name in missing))
    os.chmod(path, 0o600)
    say(f"{path}: added {', '.join(missing)}")
    return 0


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("serve").set_defaults(fn=cmd_serve)
    e = sub.add_parser("exec")
    e.add_argument("command", nargs=argparse.REMAINDER)
    e.set_defaults(fn=cmd_exec)
    i = sub.add_parser("inner")
    i.add_argument("--rc-file", required=True)
    i.add_argument("--out-file", required=True)
    i.add_argument("--url", required=True)
    i.add_argument("command", nargs=argparse.REMAINDER)
    i.set_defaults(fn=cmd_inner)
    sub.add_parser("cleanup").set_defaults(fn=cmd_cleanup)
    h = sub.add_parser("hash")
    h.add_argument("files", nargs="*")
    h.add_argument("--extra", action="append", default=[])
    h.set_defaults(fn=cmd_hash)
    j = sub.add_parser("mkjar")
    j.add_argument("--out", required=True)
    j.add_argument("--main-class", required=True)
    j.add_argument("--class-path", action="append", default=[])
    j.add_argument("--classes")
    j.set_defaults(fn=cmd_mkjar)
    pr = sub.add_parser("probe")
    pr.add_argument("host")
    pr.add_argument("port", type=int)
    pr.set_defaults(fn=cmd_probe)
    s = sub.add_parser("secret")
    s.add_argument("file")
    s.set_defaults(fn=cmd_secret)
    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
