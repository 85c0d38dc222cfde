// serve.mjs: the MCP Apps host of mcpgen's browser test and preview.
//
//   node serve.mjs MCP_URL [PORT]
//
// serves, on 127.0.0.1:PORT (0: any), the host page (host.html, host.js), the
// npm packages it imports (from $APPS_NODE_MODULES, as ES modules: no build
// step) and /mcp, a proxy to MCP_URL (so the page's MCP client makes
// same-origin requests); and, on a second port, the sandbox proxy page
// (sandbox.html), whose origin must differ from the host's. It prints
// "host=URL" once both listen.
import { createServer, request } from "node:http";
import { readFile } from "node:fs/promises";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const [mcpURL, portArg] = process.argv.slice(2);
if (!mcpURL) {
  console.error("usage: node serve.mjs MCP_URL [PORT]");
  process.exit(2);
}
const modules = process.env.APPS_NODE_MODULES || join(here, "node_modules");
const types = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".mjs": "text/javascript", ".json": "application/json" };

async function file(res, path) {
  try {
    const body = await readFile(path);
    res.writeHead(200, { "content-type": types[path.slice(path.lastIndexOf("."))] || "application/octet-stream", "cache-control": "no-store" });
    res.end(body);
  } catch {
    res.writeHead(404).end("not found");
  }
}

// proxy forwards the request to the MCP server, streaming both ways (SSE too).
function proxy(req, res) {
  const target = new URL(mcpURL);
  const headers = { ...req.headers, host: target.host };
  const up = request(target, { method: req.method, headers }, (r) => {
    res.writeHead(r.statusCode, r.headers);
    r.pipe(res);
  });
  up.on("error", (err) => res.writeHead(502).end(String(err)));
  req.pipe(up);
}

const host = createServer((req, res) => {
  const path = new URL(req.url, "http://x").pathname;
  if (path === "/mcp") return proxy(req, res);
  if (path === "/" || path === "/host.html") return file(res, join(here, "host.html"));
  if (path === "/host.js") return file(res, join(here, "host.js"));
  if (path.startsWith("/npm/")) {
    const rel = normalize(decodeURIComponent(path.slice(5)));
    if (rel.startsWith("..")) return res.writeHead(404).end();
    return file(res, join(modules, rel));
  }
  res.writeHead(404).end("not found");
});
const sandbox = createServer((req, res) => {
  if (new URL(req.url, "http://x").pathname === "/sandbox.html") return file(res, join(here, "sandbox.html"));
  res.writeHead(404).end("not found");
});

function listen(srv, port) {
  return new Promise((resolve) => srv.listen(port, "127.0.0.1", () => resolve(srv.address().port)));
}
const hostPort = await listen(host, Number(portArg || 0));
const sandboxPort = await listen(sandbox, 0);
console.log(`host=http://127.0.0.1:${hostPort}/?sandbox=${encodeURIComponent(`http://127.0.0.1:${sandboxPort}`)}`);
