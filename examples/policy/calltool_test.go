package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/examples/policy"
	"github.com/mcpgen/mcpgen/mcpgentest"
	mcpruntime "github.com/mcpgen/mcpgen/runtime"
)

// TestPolicyBothEras: get_policy, called in process in each era, asks the
// market through the form and answers with that market's rule; declining it
// is an error result, and a client that cannot show forms gets -32021.
func TestPolicyBothEras(t *testing.T) {
	s := mcpruntime.NewServer(mcpruntime.Implementation{Name: "policy", Version: "test"}, nil)
	policy.RegisterMCP(s)
	in := policy.PolicyIn{ProductID: "S-42"}
	for _, era := range []string{mcpgentest.Modern, mcpgentest.Legacy} {
		v := mcpgentest.Version(era)
		for region, want := range map[policy.Region]string{policy.RegionCN: "7 days", policy.RegionEU: "14 days"} {
			out, te := mcpgentest.CallTool[policy.Policy](t, s, "get_policy", in, v,
				mcpgentest.Accept("market", policy.Market{Region: region}))
			if te != nil || out.Region != region || !strings.Contains(out.Rule, want) {
				t.Errorf("%s, %s: got %+v, %v; want the %s rule", era, region, out, te, want)
			}
		}
		if _, te := mcpgentest.CallTool[policy.Policy](t, s, "get_policy", in, v, mcpgentest.Decline("market")); te == nil {
			t.Errorf("%s: declined: got no error", era)
		}
		var r recorder
		mcpgentest.CallTool[policy.Policy](&r, s, "get_policy", in, v, mcpgentest.Capabilities(`{}`),
			mcpgentest.Accept("market", policy.Market{Region: policy.RegionCN}))
		if !strings.Contains(r.failures, "-32021") {
			t.Errorf("%s: without the elicitation capability: failures %q, want -32021", era, r.failures)
		}
	}
}

// recorder is a mcpgentest.TB that keeps the failures it is given.
type recorder struct{ failures string }

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failures += fmt.Sprintf(format, args...) + "\n"
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
