// Package reports is a realistic long-running tool: a sales report that
// takes seconds to build (one step per day it covers) and says how far it
// got. It is a task for clients that support tasks (docs/tasks.md): they get
// a task handle at once, poll it (its status message follows the progress),
// may cancel it, and read the report from any replica; other clients wait for
// the answer as usual.
package reports

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen -server ./cmd/reports-server

import (
	"context"
	"fmt"
	"hash/fnv"
	"time"
)

// StepDelay is how long one day of a report takes to compute; tests shorten it.
var StepDelay = 200 * time.Millisecond

// ReportInput selects a report.
type ReportInput struct {
	// Region is the sales region, e.g. emea.
	Region string `json:"region" jsonschema:"enum=emea,enum=amer,enum=apac"`
	// Days is how many days back the report covers.
	Days int `json:"days" jsonschema:"minimum=1,maximum=366"`
}

// DayTotal is one day's sales.
type DayTotal struct {
	// Day is the date, YYYY-MM-DD.
	Day string `json:"day"`
	// Cents is the day's revenue in cents.
	Cents int64 `json:"cents"`
}

// Report is a sales report.
type Report struct {
	// Region is the report's region.
	Region string `json:"region"`
	// TotalCents is the revenue over the period, in cents.
	TotalCents int64 `json:"total_cents"`
	// Days are the per-day totals, oldest first.
	Days []DayTotal `json:"days"`
}

// BuildSalesReport adds up the sales of a region day by day; a long period
// takes seconds. Progress reports each day; cancelling stops it.
//
//mcp:tool build_sales_report title="Build a sales report" readonly task=optional openworld=false
func BuildSalesReport(ctx context.Context, in ReportInput) (Report, error) {
	r := Report{Region: in.Region}
	end := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	for i := range in.Days {
		select {
		case <-ctx.Done():
			return Report{}, ctx.Err()
		case <-time.After(StepDelay):
		}
		day := end.AddDate(0, 0, i-in.Days+1).Format(time.DateOnly)
		cents := dailySales(in.Region, day)
		r.Days = append(r.Days, DayTotal{Day: day, Cents: cents})
		r.TotalCents += cents
		if err := mcpProgress(ctx, i+1, in.Days, fmt.Sprintf("added up %s (%d of %d days)", day, i+1, in.Days)); err != nil {
			return Report{}, err
		}
	}
	return r, nil
}

// dailySales stands in for a query to the sales database: a deterministic
// figure per region and day.
func dailySales(region, day string) int64 {
	h := fnv.New64a()
	h.Write([]byte(region + "/" + day))
	return int64(h.Sum64()%5_000_000) + 1_000_000
}
