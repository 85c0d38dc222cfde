// host.js: a minimal MCP Apps host, for mcpgen's browser test and preview.
// It connects to the server (through serve.mjs's /mcp proxy) with the
// official TypeScript client, declaring the io.modelcontextprotocol/ui
// extension; lists the tools the model would see (visibility includes
// "model"); calls the one named by ?tool= (default: the first with a view);
// reads its ui:// view; and renders it through a sandbox proxy on another
// origin, with the official AppBridge speaking to the view. Calls from the
// view reach the server only for tools whose visibility includes "app".
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri, isToolVisibilityAppOnly,
} from "@modelcontextprotocol/ext-apps/app-bridge";

const params = new URLSearchParams(location.search);
const state = (window.mcpHost = { log: [], appCalls: [], modelTools: [], error: null, ready: false });
function log(line) {
  state.log.push(line);
  document.getElementById("log").textContent = state.log.join("\n");
}

function visibility(tool) {
  return tool._meta?.ui?.visibility ?? ["model", "app"];
}

async function main() {
  const client = new Client({ name: "mcpgen-apps-host", version: "1.0.0" }, {
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: [RESOURCE_MIME_TYPE] } } },
  });
  await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.href)));
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  state.modelTools = tools.filter((t) => !isToolVisibilityAppOnly(t)).map((t) => t.name);
  document.getElementById("tools").textContent = "model sees: " + state.modelTools.join(", ");
  const name = params.get("tool") || tools.find((t) => getToolUiResourceUri(t) && !isToolVisibilityAppOnly(t))?.name;
  const tool = byName.get(name);
  if (!tool) throw new Error(`no tool with a view (wanted ${name || "any"})`);
  const uri = getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${name} has no _meta.ui.resourceUri`);
  const args = JSON.parse(params.get("args") || "{}");
  document.getElementById("call").textContent = `${tool.title || tool.name}(${JSON.stringify(args)}) → ${uri}`;

  const read = await client.readResource({ uri });
  const content = read.contents.find((c) => c.uri === uri) || read.contents[0];
  if (content?.mimeType !== RESOURCE_MIME_TYPE) throw new Error(`${uri} is ${content?.mimeType}, not ${RESOURCE_MIME_TYPE}`);
  const ui = content._meta?.ui ?? {};
  log(`view ${uri}: csp ${JSON.stringify(ui.csp ?? {})}, permissions ${JSON.stringify(ui.permissions ?? {})}`);

  const iframe = document.createElement("iframe");
  iframe.id = "view";
  iframe.setAttribute("sandbox", "allow-scripts allow-same-origin");
  iframe.src = new URL("/sandbox.html", params.get("sandbox")).href;
  if (ui.prefersBorder) iframe.className = "border";

  const bridge = new AppBridge(null, { name: "mcpgen-apps-host", version: "1.0.0" },
    { serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: { theme: "light", displayMode: "inline", platform: "web", toolInfo: { tool } } });
  bridge.oncalltool = async (call) => {
    const target = byName.get(call.name);
    if (!target || !visibility(target).includes("app")) {
      state.appCalls.push({ name: call.name, refused: true });
      throw new Error(`tool ${call.name} is not callable by views`);
    }
    const result = await client.callTool(call);
    state.appCalls.push({ name: call.name, result });
    log(`view called ${call.name}: ${JSON.stringify(result.structuredContent ?? result.content)}`);
    return result;
  };
  bridge.onreadresource = (req) => client.readResource(req);
  bridge.onloggingmessage = (m) => log(`view log: ${JSON.stringify(m.data)}`);
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = `${height}px`; };
  bridge.onsandboxready = () => bridge.sendSandboxResourceReady({ html: content.text, csp: ui.csp, permissions: ui.permissions });
  bridge.oninitialized = async () => {
    log("view initialized");
    await bridge.sendToolInput({ arguments: args });
    const result = await client.callTool({ name: tool.name, arguments: args });
    await bridge.sendToolResult(result);
    log(`tool result sent: ${result.content?.[0]?.text?.slice(0, 80) ?? ""}…`);
    state.ready = true;
  };
  document.getElementById("slot").append(iframe);
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
}

main().catch((err) => {
  state.error = String(err?.stack || err);
  log("error: " + state.error);
});
