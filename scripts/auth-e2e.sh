#!/usr/bin/env bash
# OAuth end to end with real parts: Ory Hydra v2 (in memory) issues client-credentials
# tokens, examples/incidents serves behind -auth-issuer/-auth-audience, and the official
# TypeScript SDK clients (2.x pinned to 2026-07-28, 2.x legacy and 1.x on 2025-11-25)
# go through 401 -> protected resource metadata -> AS metadata -> token -> call, with the
# consent question answered. JWT tokens for one client, opaque (introspected) for another,
# and a client without the P1 scope that must get 403 insufficient_scope. Then a user's
# authorization-code flow (login and consent accepted through Hydra's admin API) gives an
# access token and a refresh token: the access token is served, the refresh token (active
# at introspection, for this audience, token_use refresh_token) is refused 401.
#
# usage: scripts/auth-e2e.sh
# env:   MCPGEN_TOOLS_HOME  cache of the Hydra binary (default ~/.cache/mcpgen-tools)
# Hydra is built once from scripts/hydra/go.mod (a tools module pinning v2.3.0, with
# the sqlite tag its in-memory mode needs; cgo) and reused while that file is unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/usr/local/go/bin:$PATH
prog=auth-e2e
. scripts/lib.sh

# --- Hydra, built once ---
hydra=$(CGO_ENABLED=1 cached_tool hydra scripts/hydra -tags sqlite,sqlite_omit_load_extension github.com/ory/hydra/v2)

# --- the TypeScript clients (interop/run.sh installs and caches them) ---
eval "$(interop/run.sh -env | sed 's/^/export /')"
node=$MCPGEN_INTEROP_NODE

workdir
# The script resolves its imports from the node_modules beside it.
mkdir "$work/ts"
cp interop/ts/auth-client.mjs "$work/ts/"
ln -s "$MCPGEN_INTEROP_NODE_MODULES" "$work/ts/node_modules"

pub=$(freeport) adm=$(freeport) mcp=$(freeport)
issuer=http://127.0.0.1:$pub
audience=http://127.0.0.1:$mcp/mcp

# --- Hydra in memory ---
# URLS_LOGIN/URLS_CONSENT: nothing serves them; the refresh-token case reads the
# challenges from the redirects and accepts them through the admin API.
DSN=memory SECRETS_SYSTEM=mcpgen-auth-e2e-system-secret-000 URLS_SELF_ISSUER=$issuer \
  URLS_LOGIN=http://127.0.0.1:9/login URLS_CONSENT=http://127.0.0.1:9/consent \
  SERVE_PUBLIC_PORT=$pub SERVE_PUBLIC_HOST=127.0.0.1 SERVE_ADMIN_PORT=$adm SERVE_ADMIN_HOST=127.0.0.1 \
  STRATEGIES_ACCESS_TOKEN=opaque LOG_LEVEL=warn \
  "$hydra" serve all --dev --sqa-opt-out >"$work/hydra.log" 2>&1 &
pids+=($!)
waitfor "http://127.0.0.1:$adm/health/ready" 30
# Hydra makes its signing keys on first use, which takes seconds: warm it up so the
# clients' first discovery does not race key generation.
curl -fsS -o /dev/null "$issuer/.well-known/openid-configuration"
curl -fsS -o /dev/null "$issuer/.well-known/jwks.json"

# client NAME STRATEGY SCOPE: creates a client-credentials client, prints "id secret".
client() {
  local body
  body=$(printf '{"client_name":"%s","client_secret":"%s-secret-0123456789","grant_types":["client_credentials"],"token_endpoint_auth_method":"client_secret_basic","scope":"%s","audience":["%s"],"access_token_strategy":"%s"}' \
    "$1" "$1" "$3" "$audience" "$2")
  curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" "http://127.0.0.1:$adm/admin/clients" |
    python3 -c 'import json,sys; c=json.load(sys.stdin); print(c["client_id"], c["client_secret"])'
}
read -r jwt_id jwt_secret < <(client e2e-jwt jwt "incident:create:p1 incident:create:p2 incident:read")
read -r opq_id opq_secret < <(client e2e-opaque opaque "incident:create:p1 incident:create:p2 incident:read")
read -r low_id low_secret < <(client e2e-p2-only jwt "incident:create:p2")
# One token of each kind, so both access-token key sets exist before the clients come.
curl -fsS -o /dev/null -u "$jwt_id:$jwt_secret" -d grant_type=client_credentials -d "audience=$audience" "$issuer/oauth2/token"

# --- the generated incidents server behind the resource server ---
go build -o "$work/incidents-server" ./examples/incidents/cmd/incidents-server
# -auth-jwt-typ JWT: Hydra v2.3 signs JWT access tokens with typ "JWT", not RFC 9068's at+jwt.
"$work/incidents-server" -http "127.0.0.1:$mcp" -auth-issuer "$issuer" -auth-jwt-typ JWT -auth-audience "$audience" \
  -auth-introspection "http://127.0.0.1:$adm/admin/oauth2/introspect" -log-level warn >"$work/server.log" 2>&1 &
pids+=($!)
waitfor "http://127.0.0.1:$mcp/.well-known/oauth-protected-resource/mcp" 30

# Unauthenticated: 401 with the metadata URL.
hdr=$(curl -sS -o /dev/null -D - -X POST -H 'Content-Type: application/json' -d '{}' "$audience" | tr -d '\r' | grep -i '^www-authenticate:' || true)
[ "$hdr" = "WWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1:$mcp/.well-known/oauth-protected-resource/mcp\"" ] ||
  [ "$hdr" = "Www-Authenticate: Bearer resource_metadata=\"http://127.0.0.1:$mcp/.well-known/oauth-protected-resource/mcp\"" ] ||
  die "unauthenticated POST: got '$hdr'"

fails=0
run() { # LABEL PLAN
  local out
  if out=$(cd "$work/ts" && "$node" auth-client.mjs "$2"); then
    echo "auth-e2e: ok   $1: $(echo "$out" | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o.get("protocolVersion"), [h["status"] for h in o["http"]])')"
  else
    echo "auth-e2e: FAIL $1: $out" >&2
    fails=$((fails + 1))
  fi
}
plan() { # SDK MODE ID SECRET SEVERITY EXPECT [SCOPE]
  printf '{"sdk":"%s","mode":"%s","url":"%s","issuer":"%s","clientId":"%s","clientSecret":"%s","audience":"%s","severity":"%s","expect":"%s"%s}' \
    "$1" "$2" "$audience" "$issuer" "$3" "$4" "$audience" "$5" "$6" "${7:+,\"scope\":\"$7\"}"
}
run "2.x client, 2026-07-28, JWT token" "$(plan client 2026-07-28 "$jwt_id" "$jwt_secret" P1 opened)"
run "2.x client, 2026-07-28, opaque token" "$(plan client 2026-07-28 "$opq_id" "$opq_secret" P2 opened)"
run "2.x client, 2025-11-25, JWT token" "$(plan client legacy "$jwt_id" "$jwt_secret" P1 opened)"
# The 1.x SDK's ClientCredentialsProvider asks for no scope by itself (not even the
# challenged one when it steps up): the client asks for the scopes it is configured for.
run "1.x sdk, 2025-11-25, opaque token" "$(plan sdk legacy "$opq_id" "$opq_secret" P1 opened "incident:create:p1 incident:create:p2")"
run "2.x client, 2026-07-28, P2-only client opening a P1" "$(plan client 2026-07-28 "$low_id" "$low_secret" P1 forbidden incident:create:p2)"
run "1.x sdk, 2025-11-25, P2-only client opening a P1" "$(plan sdk legacy "$low_id" "$low_secret" P1 forbidden incident:create:p2)"

# --- a refresh token presented as a bearer token (issue 32) ---
refresh_case() {
  local cb=http://127.0.0.1:9/callback adm_url=http://127.0.0.1:$adm jar=$work/cookies body id secret loc next tokens
  json() { python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"; }
  param() { python3 -c 'import sys,urllib.parse as u; print(u.parse_qs(u.urlparse(sys.argv[1]).query)[sys.argv[2]][0])' "$1" "$2"; }
  body=$(printf '{"client_name":"e2e-user","client_secret":"e2e-user-secret-0123456789","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"redirect_uris":["%s"],"token_endpoint_auth_method":"client_secret_basic","scope":"offline_access incident:create:p1","audience":["%s"],"access_token_strategy":"opaque"}' "$cb" "$audience")
  read -r id secret < <(curl -fsS -X POST -H 'Content-Type: application/json' -d "$body" "$adm_url/admin/clients" |
    python3 -c 'import json,sys; c=json.load(sys.stdin); print(c["client_id"], c["client_secret"])')
  loc=$(curl -fsS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' \
    "$issuer/oauth2/auth?client_id=$id&response_type=code&scope=offline_access+incident:create:p1&redirect_uri=$cb&state=e2e-state-0123456789&audience=$audience")
  next=$(curl -fsS -X PUT -H 'Content-Type: application/json' -d '{"subject":"alice"}' \
    "$adm_url/admin/oauth2/auth/requests/login/accept?login_challenge=$(param "$loc" login_challenge)" | json redirect_to)
  loc=$(curl -fsS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$next")
  next=$(curl -fsS -X PUT -H 'Content-Type: application/json' \
    -d "{\"grant_scope\":[\"offline_access\",\"incident:create:p1\"],\"grant_access_token_audience\":[\"$audience\"]}" \
    "$adm_url/admin/oauth2/auth/requests/consent/accept?consent_challenge=$(param "$loc" consent_challenge)" | json redirect_to)
  loc=$(curl -fsS -c "$jar" -b "$jar" -o /dev/null -w '%{redirect_url}' "$next")
  tokens=$(curl -fsS -u "$id:$secret" -d grant_type=authorization_code -d "code=$(param "$loc" code)" -d "redirect_uri=$cb" "$issuer/oauth2/token")
  local at rt st
  at=$(echo "$tokens" | json access_token) rt=$(echo "$tokens" | json refresh_token)
  mcpcall() { # TOKEN: a 2026-07-28 tools/call of get_service_status; prints status and body
    curl -sS -w '\n%{http_code}' "$audience" -H "Authorization: Bearer $1" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -H 'MCP-Protocol-Version: 2026-07-28' \
      -H 'Mcp-Method: tools/call' -H 'Mcp-Name: get_service_status' \
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_service_status","arguments":{"service":"payments","window_minutes":5},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}'
  }
  st=$(mcpcall "$at")
  [ "${st##*$'\n'}" = 200 ] || { echo "auth-e2e: FAIL the user's access token: $st" >&2; return 1; }
  st=$(mcpcall "$rt")
  [ "${st##*$'\n'}" = 401 ] && [[ $st == *'the token is not an access token'* ]] ||
    { echo "auth-e2e: FAIL the refresh token as a bearer token: $st (want 401, not an access token)" >&2; return 1; }
  echo "auth-e2e: ok   authorization code: access token 200, refresh token 401"
}
refresh_case || fails=$((fails + 1))

if [ "$fails" -ne 0 ]; then
  echo "--- server log" >&2; tail -50 "$work/server.log" >&2
  echo "--- hydra log" >&2; tail -50 "$work/hydra.log" >&2
  die "$fails run(s) failed"
fi
# The server never logs a token.
if grep -Eq 'ory_at_|eyJ[A-Za-z0-9_-]{10,}\.' "$work/server.log"; then die "the server log contains a token"; fi
echo "auth-e2e: all runs passed"
