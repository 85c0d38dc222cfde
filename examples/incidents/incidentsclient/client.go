// Package incidentsclient calls the incidents server's create_incident_ticket
// over Streamable HTTP as a 2026-07-28 client that answers the tool's consent
// question: a first round gets input_required with the question and a sealed
// requestState, the second carries the user's answer and that state. The
// replica tests and scripts/chaos use it; it is also a small worked example of
// a multi-round call without an SDK.
package incidentsclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// ConfirmKey is the input request key of the runtime's consent question.
const ConfirmKey = "mcpgen.confirm"

// CreateTicket calls create_incident_ticket with args at url, confirming the
// question it asks, and returns the final result object. An error is a
// transport failure or a response without a result (e.g. the process died).
func CreateTicket(c *http.Client, url string, args map[string]any) (json.RawMessage, error) {
	params := map[string]any{"name": "create_incident_ticket", "arguments": args,
		"_meta": map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{}}}}
	for range 3 {
		res, err := post(c, url, params)
		if err != nil {
			return nil, err
		}
		var ir struct {
			ResultType   string `json:"resultType"`
			RequestState string `json:"requestState"`
		}
		if err := json.Unmarshal(res, &ir); err != nil {
			return nil, err
		}
		if ir.ResultType != "input_required" {
			return res, nil
		}
		params["inputResponses"] = map[string]any{ConfirmKey: map[string]any{
			"action": "accept", "content": map[string]any{"confirm": true}}}
		params["requestState"] = ir.RequestState
	}
	return nil, fmt.Errorf("create_incident_ticket: still input_required after 3 rounds")
}

// post sends one tools/call round and returns its result object.
func post(c *http.Client, url string, params map[string]any) (json.RawMessage, error) {
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "create_incident_ticket")
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(b, &msg) != nil || msg.Result == nil {
		return nil, fmt.Errorf("status %d, body %.200s", resp.StatusCode, b)
	}
	return msg.Result, nil
}
