// Preloaded into the emulators' Node process (NODE_OPTIONS, devstack/stack.py).
// The Functions emulator proxies each request to a Python worker through Node's global agent, which keeps
// connections alive for 5 s, while the worker's gunicorn closes an idle one after 2 s. When the emulator's
// event loop is busy it writes a request onto a connection the worker has just closed: "socket hang up", a
// 500 {"code":"ECONNRESET"} to the caller, and the emulator kills that worker. A fresh loopback connection per
// request costs nothing measurable and removes the race.
const http = require("http");
http.globalAgent = new http.Agent({ keepAlive: false });
