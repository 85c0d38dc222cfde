// Package policy is the after-sales policy server of the seeds: get_policy
// needs to know the customer's market before it can answer, so it asks the
// user mid-call. The handler is written once, as plain linear Go; mcpgen
// generates the requestedSchema of Market from its Go type, and the runtime
// serves both protocol eras with it:
//
//   - a 2026-07-28 client gets resultType "input_required" with an
//     elicitation/create request under the key "market" and a sealed
//     requestState; it retries the same call with inputResponses, and the
//     handler runs again from the start, this time getting the answer;
//   - a 2025-11-25 client gets an elicitation/create request during the call
//     (on stdio, or on the call's SSE stream over HTTP) and the handler waits.
//
// The rule that keeps one handler correct in both eras: nothing that cannot be
// repeated (writes, messages, charges) happens before the last question.
//
// Serve it:
//
//	go run ./examples/policy/cmd/policy-server -http 127.0.0.1:8080
//
// Replicas behind one endpoint share MCP_STATE_KEY so that any of them can
// finish a round another one started.
package policy

//go:generate go run ../../cmd/mcpgen -server cmd/policy-server .

import (
	"context"
	"errors"
	"fmt"

	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// Region is a market with its own after-sales rules.
type Region string

// The markets the policy covers.
const (
	RegionCN Region = "CN"
	RegionEU Region = "EU"
)

// Market is the form the user fills in.
type Market struct {
	// Region is the market whose after-sales rules apply.
	Region Region `json:"region"`
}

// PolicyIn names a product.
type PolicyIn struct {
	// ProductID is the product's catalogue id, e.g. S-42.
	ProductID string `json:"productId" jsonschema:"minLength=1"`
}

// Policy is the after-sales policy of one product in one market.
type Policy struct {
	ProductID string `json:"productId"`
	Region    Region `json:"region"`
	// Rule is the return rule, e.g. "returns within 7 days of delivery".
	Rule string `json:"rule"`
}

// rules holds the return rule of each product per market.
var rules = map[string]map[Region]string{
	"S-42": {RegionCN: "returns within 7 days of delivery (七日内申请)", RegionEU: "returns within 14 days of delivery"},
}

// errNoMarket is the answer when the user declines or cancels the question.
var errNoMarket = errors.New("the after-sales policy depends on the market, and none was chosen")

// GetPolicy returns a product's after-sales policy. It asks the user for the
// market first; the question is its only step, and it has no side effects.
//
//mcp:tool name=get_policy readonly openworld=false
func GetPolicy(ctx context.Context, in PolicyIn) (Policy, error) {
	byRegion, ok := rules[in.ProductID]
	if !ok {
		return Policy{}, fmt.Errorf("no after-sales policy for product %q", in.ProductID)
	}
	market, action, err := mcpruntime.Elicit[Market](ctx, "market", "Which market's after-sales rules apply?")
	if err != nil {
		return Policy{}, err
	}
	if action != mcpruntime.Accept {
		return Policy{}, errNoMarket
	}
	return Policy{ProductID: in.ProductID, Region: market.Region, Rule: byRegion[market.Region]}, nil
}
