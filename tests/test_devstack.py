"""devstack/stack.py's refusal of a port offset that puts an emulator on a port browsers and Node refuse."""

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _stack_module():
    spec = importlib.util.spec_from_file_location("devstack_stack", ROOT / "devstack" / "stack.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_offsets_on_bad_ports_are_refused_with_one_that_works():
    stack = _stack_module()
    # +1000 puts Hosting on 6000 (Chromium: ERR_UNSAFE_PORT); +2000 puts Firestore on 10080 (Node's fetch fails).
    assert stack.unsafe_ports(1000) == {"hosting": 6000}
    assert stack.unsafe_ports(2000) == {"firestore": 10080}
    assert stack.unsafe_ports(0) == {} and stack.unsafe_ports(3000) == {}
    assert stack.safe_offset_near(1000) == stack.safe_offset_near(2000) == 3000
    for offset, port in ((1000, "6000 (hosting)"), (2000, "10080 (firestore)")):
        env = {**os.environ, "DEVSTACK_PORT_OFFSET": str(offset)}
        refused = subprocess.run([sys.executable, str(ROOT / "devstack" / "stack.py"), "exec", "--", "true"],
                                 env=env, capture_output=True, text=True, timeout=60, check=False)
        assert refused.returncode == 2, refused.stderr
        assert port in refused.stderr and "use DEVSTACK_PORT_OFFSET=3000" in refused.stderr
