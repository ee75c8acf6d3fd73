package e2e_test

import (
	"encoding/json"
	"testing"
)

// fullWhoami is step 14: kubectl auth whoami names the admin token's
// user, as a table and as a SelfSubjectReview.
func fullWhoami(t *testing.T, e *fullEnv) {
	tb := parseTable(t, e.k.ok(t, "auth", "whoami"))
	row, ok := tb.row(map[string]string{"ATTRIBUTE": "Username"})
	if !ok || row["VALUE"] == "" {
		t.Fatalf("kubectl auth whoami: rows %v, want a Username row with a value", tb.rows)
	}

	out := e.k.ok(t, "auth", "whoami", "-o", "json")
	var review map[string]any
	if err := json.Unmarshal([]byte(out), &review); err != nil {
		t.Fatalf("kubectl auth whoami -o json: %v\n%s", err, out)
	}
	if got := str(review, "kind"); got != "SelfSubjectReview" {
		t.Errorf("kind %q, want SelfSubjectReview", got)
	}
	if got := str(review, "status.userInfo.username"); got != row["VALUE"] {
		t.Errorf("status.userInfo.username %q, want %q as in the table", got, row["VALUE"])
	}
}
