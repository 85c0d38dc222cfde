// The OAuth end-to-end run of an official MCP TypeScript client (scripts/auth-e2e.sh):
// the client meets a 401, discovers the protected resource metadata and the
// authorization server's metadata, gets a client-credentials token, and calls
// create_incident_ticket on examples/incidents, answering its consent question.
//
// usage: node auth-client.mjs PLAN_JSON
//   sdk            "client" (@modelcontextprotocol/client 2.x) or "sdk" (@modelcontextprotocol/sdk 1.x)
//   mode           for sdk "client": "2026-07-28" (pinned) or "legacy"
//   url            the MCP endpoint
//   issuer         the authorization server the credentials may be sent to
//   clientId, clientSecret, audience   the OAuth client; audience is sent with the
//                  token request (Ory Hydra sets aud from it, not from RFC 8707 resource)
//   scope          if set, the scope every token request asks for (else the SDK's choice)
//   severity       of the ticket to open
//   expect         "opened" (a ticket) or "forbidden" (the call fails for lack of scope)
//
// It checks the flow itself and exits 0 only when everything held, printing one JSON
// object: {ok, sdk, protocolVersion, http: [{method, url, status}], result | error, problems}.
const plan = JSON.parse(process.argv[2] ?? 'null');
if (!plan) {
  console.error('usage: node auth-client.mjs PLAN_JSON');
  process.exit(2);
}
const out = { ok: false, sdk: plan.sdk, http: [], problems: [] };
const emit = (code) => process.stdout.write(JSON.stringify(out) + '\n', () => process.exit(code));

// Every HTTP exchange the SDK makes, without bodies or tokens.
const seenAuth = new Set();
async function tracedFetch(input, init) {
  const url = typeof input === 'string' ? input : input.url ?? String(input);
  const method = init?.method ?? 'GET';
  const headers = new Headers(init?.headers ?? {});
  if (headers.has('authorization') && headers.get('authorization').startsWith('Bearer ')) seenAuth.add(new URL(url).origin + new URL(url).pathname);
  const resp = await fetch(input, init);
  const entry = { method, url, status: resp.status, bearer: headers.has('authorization') && headers.get('authorization').startsWith('Bearer ') };
  if (resp.headers.has('www-authenticate')) entry.challenge = resp.headers.get('www-authenticate');
  if (url.includes('/oauth2/token')) {
    entry.requested = new URLSearchParams(String(init?.body ?? '')).get('scope');
    if (resp.ok) entry.granted = (await resp.clone().json()).scope;
  }
  out.http.push(entry);
  return resp;
}

function consent(request) {
  const props = request.params?.requestedSchema?.properties ?? {};
  out.consentAsked = request.params?.message;
  const content = {};
  for (const [k, p] of Object.entries(props)) if (p.type === 'boolean') content[k] = true;
  return { action: 'accept', content };
}

async function main() {
  const info = { name: 'mcpgen-auth-e2e', version: '1.0.0' };
  const capabilities = { elicitation: {} };
  let client, transport, Base;
  if (plan.sdk === 'client') {
    const m = await import('@modelcontextprotocol/client');
    Base = m.ClientCredentialsProvider;
    const mode = plan.mode === 'legacy' ? 'legacy' : { pin: plan.mode };
    client = new m.Client(info, { capabilities, versionNegotiation: { mode } });
    client.setRequestHandler('elicitation/create', consent);
    transport = (provider) => new m.StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider, fetch: tracedFetch });
  } else {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    ({ ClientCredentialsProvider: Base } = await import('@modelcontextprotocol/sdk/client/auth-extensions.js'));
    client = new Client(info, { capabilities });
    client.setRequestHandler(ElicitRequestSchema, consent);
    transport = (provider) => new StreamableHTTPClientTransport(new URL(plan.url), { authProvider: provider, fetch: tracedFetch });
  }
  // The SDK's client-credentials provider, plus the audience parameter Hydra reads.
  class Provider extends Base {
    prepareTokenRequest(scope) {
      // plan.scope: ask for exactly these (a client allowed less than the server's
      // scopes_supported); else what the SDK chose.
      const params = super.prepareTokenRequest(plan.scope ?? scope);
      params.set('audience', plan.audience);
      return params;
    }
  }
  // expectedIssuer: the client's credentials go to this authorization server only,
  // whatever the protected resource metadata says.
  const provider = new Provider({ clientId: plan.clientId, clientSecret: plan.clientSecret, expectedIssuer: plan.issuer });
  await client.connect(transport(provider));
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? undefined;
  const tools = await client.listTools();
  out.tools = tools.tools.map((t) => t.name);
  const params = { name: 'create_incident_ticket', arguments: { title: 'Payments timeouts', severity: plan.severity, evidence_ids: ['status-payments-0001'],
    // A write takes an idempotency key (one per run: each run is a new ticket).
    idempotency_key: `auth-e2e-${process.pid}-${Date.now()}` } };
  try {
    out.result = plan.sdk === 'sdk' ? await client.callTool(params, undefined, {}) : await client.callTool(params);
  } catch (e) {
    out.error = { name: e?.constructor?.name, message: String(e?.message ?? e), code: e?.code };
  }
  await client.close().catch(() => {});

  // What must have happened.
  const problems = out.problems;
  const first = out.http[0];
  if (!first || first.bearer || first.status !== 401) problems.push('the first request was not an unauthenticated 401');
  if (!out.http.some((h) => h.url.includes('/.well-known/oauth-protected-resource'))) problems.push('no protected resource metadata fetched');
  if (!out.http.some((h) => /\/\.well-known\/(openid-configuration|oauth-authorization-server)/.test(h.url))) problems.push('no authorization server metadata fetched');
  if (!out.http.some((h) => h.method === 'POST' && h.url.includes('/oauth2/token') && h.status === 200)) problems.push('no token obtained');
  const mcp = new URL(plan.url);
  for (const u of seenAuth) if (u !== mcp.origin + mcp.pathname) problems.push(`a bearer token was sent to ${u}`);
  const text = JSON.stringify(out.result ?? out.error ?? null);
  if (plan.expect === 'opened') {
    if (!out.result || out.result.isError || !/INC-\d{4}/.test(text)) problems.push(`no ticket opened: ${text}`);
    if (!out.consentAsked || !out.consentAsked.includes(`Open a ${plan.severity} incident titled "Payments timeouts"?`)) problems.push(`consent not asked: ${out.consentAsked}`);
  } else {
    if (!out.http.some((h) => h.status === 403)) problems.push('no 403 insufficient_scope answer');
    if (out.result && !out.result.isError) problems.push(`the call succeeded without the scope: ${text}`);
    if (out.consentAsked) problems.push('consent asked without the scope');
  }
  out.ok = problems.length === 0;
}

const watchdog = setTimeout(() => {
  out.problems.push('no result after 60 s');
  emit(1);
}, 60000);
main().then(
  () => {
    clearTimeout(watchdog);
    emit(out.ok ? 0 : 1);
  },
  (e) => {
    clearTimeout(watchdog);
    out.problems.push(`fatal: ${e?.stack ?? e}`);
    emit(1);
  },
);
