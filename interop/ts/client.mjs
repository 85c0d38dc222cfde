// One interop run of an official MCP TypeScript client against an mcpgen server.
//
// usage: node client.mjs PLAN_JSON
//
// PLAN_JSON is an object:
//   sdk        "client" (@modelcontextprotocol/client 2.x) or "sdk" (@modelcontextprotocol/sdk 1.x)
//   pkg        for sdk "sdk": the package to import, default @modelcontextprotocol/sdk (an
//              alias of an older 1.x release from ts-old/package.json, e.g. sdk-2025-03-26)
//   mode       for sdk "client": "legacy" (plain initialize), "auto" (discover, then maybe initialize)
//              or a revision to pin, e.g. "2026-07-28"; ignored for sdk "sdk" (always initialize)
//   transport  "stdio" (spawn command with args), "http" (Streamable HTTP at url) or "sse"
//              (the 2024-11-05 HTTP+SSE transport at url; sdk "sdk" only)
//   command, args, url
//   calls      [{name, arguments, progress, cancelOnProgress, logLevel}]: tools/call requests
//              to send after tools/list, in order; progress: ask for progress notifications
//              and record them; cancelOnProgress: also abort the call on the first one;
//              logLevel: ask for log messages (2026-07-28: in _meta; else logging/setLevel first)
//   ping       true to send a ping after connecting (the 2.x client refuses ping on 2026-07-28)
//   primitives {reads: [uri], gets: [{name, arguments}], completions: [{ref, argument}]}:
//              list resources, templates and prompts, then read, get and complete these
//   listChanged true to hear of a tool-list change (examples/everything only)
//   custom     [{method, params}]: custom requests to send after the calls (client.request with
//              a pass-through result schema), e.g. an extension's method (docs/extensions.md)
//   clientExtensions  for sdk "client": the capabilities.extensions object the client declares
//
// It prints exactly one JSON object on stdout and exits 0 when the script itself ran
// to the end (protocol errors of single calls are data, not failures):
//   {ok, sdk, sdkVersion, protocolVersion, era, serverInfo, capabilities, instructions,
//    ping, tools, calls: [{name, arguments, progress?, result | error}],
//    primitives?: {resources, templates, prompts, reads, gets, completions},
//    listChanged?: {heard, listed, result | error}, trace}
// On a fatal error (connect or tools/list failed, timeout) it prints {ok: false, error, trace}
// and exits 1. trace holds every JSON-RPC message of the main connection, in order.
// The script asserts nothing: the Go test that runs it does.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const plan = JSON.parse(process.argv[2] ?? 'null');
if (!plan || typeof plan !== 'object') {
  console.error('usage: node client.mjs PLAN_JSON');
  process.exit(2);
}

const trace = [];
let out = { ok: false, sdk: plan.sdk, trace };

function emit(code) {
  process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));
}

function errorJSON(e) {
  if (!(e instanceof Error)) return { message: String(e) };
  const o = { name: e.constructor?.name ?? e.name, message: e.message };
  if (e.code !== undefined) o.code = e.code;
  if (e.data !== undefined) o.data = e.data;
  if (e.cause !== undefined) o.cause = errorJSON(e.cause);
  return o;
}

// Record every message the client sends and receives on transport t, without changing
// how the SDK drives it (the SDK assigns t.onmessage itself, possibly chaining an earlier
// handler; the WeakSet keeps a chained handler from recording a message twice).
function traced(t) {
  const send = t.send.bind(t);
  t.send = (msg, opts) => {
    trace.push({ dir: 'send', msg });
    return send(msg, opts);
  };
  const seen = new WeakSet();
  let handler;
  Object.defineProperty(t, 'onmessage', {
    configurable: true,
    get() {
      if (!handler) return undefined;
      const h = handler;
      return (msg, extra) => {
        if (msg && typeof msg === 'object' && !seen.has(msg)) {
          seen.add(msg);
          trace.push({ dir: 'recv', msg });
        }
        return h(msg, extra);
      };
    },
    set(h) {
      handler = h;
    },
  });
  return t;
}

function packageVersion(name) {
  // The package's own package.json is not always exported; find it above the entry point.
  let entry;
  try {
    entry = fileURLToPath(import.meta.resolve(name));
  } catch {
    entry = fileURLToPath(import.meta.resolve(`${name}/client/index.js`)); // 1.x releases without a "." export
  }
  return JSON.parse(readFileSync(entry.replace(/\/dist\/.*$/, '/package.json'), 'utf8')).version;
}

// The answers of the pretend user and model, when the server asks mid-call (2025-11-25:
// a server-to-client request; 2026-07-28: an input_required result the client fulfils
// and retries). The Go tests use the same answers.
const formValues = { name: 'Ada', color: 'teal', username: 'ada', email: 'ada@example.com' };
function elicit(request) {
  const schema = request.params?.requestedSchema ?? {};
  const content = {};
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (prop.enum) content[key] = prop.enum[0];
    else if (prop.type === 'boolean') content[key] = true;
    else if (prop.type === 'integer' || prop.type === 'number') content[key] = 1;
    else content[key] = formValues[key] ?? 'x';
  }
  return { action: 'accept', content };
}
function sample() {
  return { role: 'assistant', model: 'interop-model', content: { type: 'text', text: 'interop model says hi' } };
}
const capabilities = { elicitation: {}, sampling: {} };

async function main() {
  const info = { name: 'mcpgen-interop', version: '1.0.0' };
  let client, transport;
  if (plan.sdk === 'client') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const mode = !plan.mode || plan.mode === 'legacy' || plan.mode === 'auto' ? plan.mode || 'legacy' : { pin: plan.mode };
    const caps = plan.clientExtensions ? { ...capabilities, extensions: plan.clientExtensions } : capabilities;
    client = new Client(info, { capabilities: caps, versionNegotiation: { mode } });
    client.setRequestHandler('elicitation/create', elicit);
    client.setRequestHandler('sampling/createMessage', sample);
    if (plan.transport === 'stdio') {
      const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
      transport = new StdioClientTransport({ command: plan.command, args: plan.args ?? [], stderr: 'inherit' });
    } else {
      transport = new StreamableHTTPClientTransport(new URL(plan.url));
    }
    out.sdkVersion = packageVersion('@modelcontextprotocol/client');
  } else if (plan.sdk === 'sdk') {
    // pkg: an older 1.x release installed under an alias (ts-old/package.json).
    const pkg = plan.pkg ?? '@modelcontextprotocol/sdk';
    const { Client } = await import(`${pkg}/client/index.js`);
    const { ElicitRequestSchema, CreateMessageRequestSchema } = await import(`${pkg}/types.js`);
    client = new Client(info, { capabilities: ElicitRequestSchema ? capabilities : { sampling: {} } });
    if (ElicitRequestSchema) client.setRequestHandler(ElicitRequestSchema, elicit); // from 1.13 (2025-06-18)
    client.setRequestHandler(CreateMessageRequestSchema, sample);
    if (plan.transport === 'stdio') {
      const { StdioClientTransport } = await import(`${pkg}/client/stdio.js`);
      transport = new StdioClientTransport({ command: plan.command, args: plan.args ?? [], stderr: 'inherit' });
    } else if (plan.transport === 'sse') {
      // The 2024-11-05 HTTP+SSE transport.
      const { SSEClientTransport } = await import(`${pkg}/client/sse.js`);
      transport = new SSEClientTransport(new URL(plan.url));
    } else {
      const { StreamableHTTPClientTransport } = await import(`${pkg}/client/streamableHttp.js`);
      transport = new StreamableHTTPClientTransport(new URL(plan.url));
    }
    out.sdkVersion = packageVersion(pkg);
  } else {
    throw new Error(`unknown sdk ${JSON.stringify(plan.sdk)}`);
  }

  await client.connect(traced(transport));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? transport.protocolVersion;
  out.era = client.getProtocolEra?.();
  out.serverInfo = client.getServerVersion();
  out.capabilities = client.getServerCapabilities();
  out.instructions = client.getInstructions?.();
  if (plan.ping) out.ping = await client.ping();

  // Every page, so pagination is exercised if the server uses it.
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  out.tools = tools;

  out.calls = [];
  for (const c of plan.calls ?? []) {
    const entry = { name: c.name, arguments: c.arguments };
    const opts = {};
    if (c.progress || c.cancelOnProgress) {
      // Asking for progress makes the SDK send a progressToken.
      const abort = new AbortController();
      entry.progress = [];
      opts.onprogress = (p) => {
        entry.progress.push(p);
        if (c.cancelOnProgress) abort.abort(new Error('interop: cancelled on first progress'));
      };
      if (c.cancelOnProgress) opts.signal = abort.signal;
    }
    const params = { name: c.name, arguments: c.arguments };
    if (c.logLevel) {
      // 2026-07-28: the level travels in the request's _meta; 2025-11-25: logging/setLevel.
      if (out.era === 'modern') params._meta = { 'io.modelcontextprotocol/logLevel': c.logLevel };
      else await client.setLoggingLevel(c.logLevel);
    }
    try {
      // 2.x: callTool(params, options); 1.x: callTool(params, resultSchema, options).
      entry.result = plan.sdk === 'sdk' ? await client.callTool(params, undefined, opts) : await client.callTool(params, opts);
    } catch (e) {
      entry.error = errorJSON(e);
    }
    out.calls.push(entry);
  }
  if (plan.custom) {
    // A Standard Schema that accepts any result: the test checks it.
    const passthrough = { '~standard': { version: 1, vendor: 'mcpgen-interop', validate: (value) => ({ value }) } };
    out.custom = [];
    for (const r of plan.custom) {
      const entry = { method: r.method };
      try {
        entry.result = await client.request({ method: r.method, params: r.params ?? {} }, passthrough);
      } catch (e) {
        entry.error = errorJSON(e);
      }
      out.custom.push(entry);
    }
  }
  if (plan.primitives) out.primitives = await primitives(client, plan.primitives);
  if (plan.listChanged) out.listChanged = await listChanged(client);
  await client.close();
  out.ok = true;
}

// listChanged listens for tool-list changes (2026-07-28: on a subscriptions/listen
// stream; 2025-11-25: on the session), has the server register test_transient_tool
// with test_trigger_tool_change, waits up to 10s to hear of it, then lists and calls it.
async function listChanged(client) {
  const r = { heard: false };
  let heard;
  const heardP = new Promise((resolve) => (heard = resolve));
  if (plan.sdk === 'sdk') {
    const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => heard(true));
  } else {
    client.setNotificationHandler('notifications/tools/list_changed', () => heard(true));
  }
  const sub = out.era === 'modern' ? await client.listen({ toolsListChanged: true }) : undefined;
  await client.callTool({ name: 'test_trigger_tool_change' });
  r.heard = await Promise.race([heardP, new Promise((resolve) => setTimeout(() => resolve(false), 10000))]);
  r.listed = (await client.listTools()).tools.some((t) => t.name === 'test_transient_tool');
  try {
    r.result = await client.callTool({ name: 'test_transient_tool' });
  } catch (e) {
    r.error = errorJSON(e);
  }
  await sub?.close();
  return r;
}

// primitives lists resources, resource templates and prompts (every page), then reads,
// gets and completes what p asks for. A failed read, get or completion is data.
async function primitives(client, p) {
  const all = async (list, key) => {
    const items = [];
    let cursor;
    do {
      const page = await list(cursor ? { cursor } : undefined);
      items.push(...page[key]);
      cursor = page.nextCursor;
    } while (cursor);
    return items;
  };
  const attempt = async (entry, f) => {
    try {
      entry.result = await f();
    } catch (e) {
      entry.error = errorJSON(e);
    }
    return entry;
  };
  const r = {};
  r.resources = await all((q) => client.listResources(q), 'resources');
  r.templates = await all((q) => client.listResourceTemplates(q), 'resourceTemplates');
  r.prompts = await all((q) => client.listPrompts(q), 'prompts');
  r.reads = [];
  for (const uri of p.reads ?? []) r.reads.push(await attempt({ uri }, () => client.readResource({ uri })));
  r.gets = [];
  for (const g of p.gets ?? []) r.gets.push(await attempt({ name: g.name }, () => client.getPrompt({ name: g.name, arguments: g.arguments })));
  r.completions = [];
  for (const c of p.completions ?? []) r.completions.push(await attempt({ ref: c.ref }, () => client.complete({ ref: c.ref, argument: c.argument })));
  return r;
}

const watchdog = setTimeout(() => {
  out.error = { message: `interop client: no result after ${plan.timeoutMs ?? 30000} ms` };
  emit(1);
}, plan.timeoutMs ?? 30000);

main().then(
  () => {
    clearTimeout(watchdog);
    emit(0);
  },
  (e) => {
    clearTimeout(watchdog);
    out.error = errorJSON(e);
    emit(1);
  },
);
