package agents_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/catalog-enrichment/enrichment/internal/fixture"
)

// tsClient is the folder of the TypeScript agent (loop.mjs) and its
// package, @modelcontextprotocol/sdk at the version its lockfile pins.
const tsClient = "testdata/ts-client"

// TestTypeScriptAgentLoop: an agent on the official TypeScript SDK's client
// (loop.mjs, run by Node) runs the vendor's loop as TestAgentLoop's Go
// client does, the key sent as Authorization: Bearer. The SDK's client
// holds every result to its tool's output schema (ajv) and fails the call
// otherwise; the reviewer decides while the agent waits, and the agent's
// last line is what it read as feedback.
func TestTypeScriptAgentLoop(t *testing.T) {
	node := nodePath(t)
	f := fixture.Get(t)
	s := serve(t, f)

	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "loop.mjs")
	cmd.Dir = tsClient
	cmd.Env = append(os.Environ(), "MCP_URL="+s.endpoint, "MCP_KEY="+f.A.Keys["both"])
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start node: %v", err)
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	// fail stops the agent and fails the test with what it wrote to stderr
	// (read only once it has exited).
	fail := func(format string, args ...any) {
		t.Helper()
		cancel()
		_ = stdin.Close()
		_, _ = io.Copy(io.Discard, stdout)
		err := cmd.Wait()
		t.Fatalf("%s\nnode: %v\nstderr:\n%s", fmt.Sprintf(format, args...), err, stderr.String())
	}
	next := func(what string, v any) {
		t.Helper()
		if !lines.Scan() {
			fail("no %s line from the agent (%v)", what, lines.Err())
		}
		if err := json.Unmarshal(lines.Bytes(), v); err != nil {
			fail("the agent's %s line %q: %v", what, lines.Bytes(), err)
		}
	}

	var proposed struct {
		RevisionID int64 `json:"revisionId"`
	}
	next("revisionId", &proposed)
	if proposed.RevisionID == 0 {
		fail("no revision id")
	}
	decision := `{"status":"accepted","approvedFields":["description"],"reason":"inaccurate","comment":"Size 44 is not made."}`
	url := fmt.Sprintf("/api/collections/revisions/records/%d", proposed.RevisionID)
	if r := fixture.Send(s.h, http.MethodPatch, url, "Authorization", fixture.ReviewerToken(t, s.app, string(f.A.Org)), decision); r.Code != 200 {
		fail("decide: %d %s", r.Code, r.Body)
	}
	if _, err := io.WriteString(stdin, "decided\n"); err != nil {
		fail("tell the agent: %v", err)
	}

	var seen struct {
		ProtocolVersion string   `json:"protocolVersion"`
		Tools           []string `json:"tools"`
		Gaps            []string `json:"gaps"`
		Product         product  `json:"product"`
		DryRun          result   `json:"dryRun"`
		RevisionID      int64    `json:"revisionId"`
		Feedback        revision `json:"feedback"`
	}
	next("summary", &seen)
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("node: %v\nstderr:\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Logf("node's stderr:\n%s", stderr.String())
	}
	t.Logf("protocol version %s", seen.ProtocolVersion)

	if !slices.Equal(seen.Gaps, []string{"SKU-M", "SKU-1"}) {
		t.Errorf("gaps of Size in Shoes: %v", seen.Gaps)
	}
	if seen.Product.Name != "Runner" || seen.Product.Completeness != 75 {
		t.Errorf("SKU-1: %+v", seen.Product)
	}
	if seen.DryRun.Status != "CREATED" || seen.DryRun.RevisionID != nil {
		t.Errorf("dry run: %+v", seen.DryRun)
	}
	rev := seen.Feedback
	if rev.ID != proposed.RevisionID || rev.Status != "accepted" || rev.Fields["description"] != "applied" ||
		rev.Attrs["Size"] != "not_applied" || rev.Comment == nil || *rev.Comment != "Size 44 is not made." ||
		rev.Reason == nil || *rev.Reason != "inaccurate" || rev.DecidedBy == nil {
		t.Errorf("feedback: %+v", rev)
	}
}

// nodePath is Node, when it and the agent's packages are installed. Without
// them the test is skipped, or failed under CI (CI=true), where .ci/run
// installs both.
func nodePath(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	msg := ""
	switch {
	case err != nil:
		msg = "no node on the PATH (install Node.js, then run: npm ci --prefix agents/testdata/ts-client)"
	default:
		if _, err := os.Stat(filepath.Join(tsClient, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
			msg = "the TypeScript agent's packages are not installed (run: npm ci --prefix agents/testdata/ts-client)"
		}
	}
	if msg == "" {
		return node
	}
	if ci := strings.ToLower(os.Getenv("CI")); ci == "true" || ci == "1" {
		t.Fatal(msg + "; CI must run the TypeScript agent")
	}
	t.Skip(msg)
	return ""
}
