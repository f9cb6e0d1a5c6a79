package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"
)

// The MCP endpoint's kinds: the propose tool against the submissions
// route's own batches, and many sessions at once for their memory.

const (
	mcpPropose  = "propose1000-mcp-c1" // the batches of submit1000-c1, through MCP
	mcpSessions = "mcp-sessions50"     // 50 agents, a session each
	mcpPath     = "/api/enrichment/mcp"
	// mcpProtocol is the protocol version the raw sessions ask for.
	mcpProtocol = "2025-11-25"
)

// mcpKinds have an API client each, like the submission kinds.
var mcpKinds = []string{mcpPropose, mcpSessions}

// proposeMCP sends the batches submit would send (same n and seed, so the
// same products in the same order) as the propose tool's arguments, from
// one session.
func (t *target) proposeMCP(name string, n int, seed uint64) *kind {
	g := newBatches(t, n, 0, seed)
	sessions := &mcpSessionsOf{t: t, key: t.SubmitKeys[name]}
	return &kind{Name: name, Unit: "proposals", Header: sessions.header(),
		Count: func(b []byte) int { return bytes.Count(b, createdMarker) },
		Next: func(rng *rand.Rand, seq int) request {
			return sessions.call(rng, "propose", g.body(name, rng, seq))
		}}
}

// agentsAtOnce is an agent per worker, each with a session of its own,
// reading a page of gaps and looking up the SKUs on it in turn.
func (t *target) agentsAtOnce(name string) *kind {
	sessions := &mcpSessionsOf{t: t, key: t.SubmitKeys[name]}
	return &kind{Name: name, Header: sessions.header(),
		Next: func(rng *rand.Rand, seq int) request {
			if seq%2 == 0 {
				return sessions.call(rng, "list_gaps", fmt.Appendf(nil, `{"page":%d,"pageSize":20}`, rng.IntN(pages(t.GapsTotal, 20))))
			}
			skus := make([]string, 20)
			for i := range skus {
				skus[i] = t.Products[rng.IntN(len(t.Products))].SKU
			}
			args, _ := json.Marshal(map[string]any{"skus": skus})
			return sessions.call(rng, "find_products", args)
		}}
}

// mcpSessionsOf opens one session per worker (a worker is known by its
// random source) with a raw initialize, as an MCP client does.
type mcpSessionsOf struct {
	t   *target
	key string

	mu    sync.Mutex
	byRNG map[*rand.Rand]string
}

func (s *mcpSessionsOf) header() http.Header {
	h := header(s.key)
	h.Set("Accept", "application/json, text/event-stream")
	return h
}

// call is a tools/call request in the worker's session.
func (s *mcpSessionsOf) call(rng *rand.Rand, tool string, args []byte) request {
	body := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, rng.Uint32(), tool, args)
	return request{Method: http.MethodPost, URL: mcpPath, Body: body,
		Header: http.Header{"Mcp-Session-Id": {s.session(rng)}, "Mcp-Protocol-Version": {mcpProtocol}}}
}

// session is the worker's session id, opened at its first call; "" when
// opening failed, which the endpoint then refuses (an unexpected answer).
func (s *mcpSessionsOf) session(rng *rand.Rand) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.byRNG[rng]; ok {
		return id
	}
	if s.byRNG == nil {
		s.byRNG = map[*rand.Rand]string{}
	}
	id, err := s.open()
	if err != nil {
		logf("%s: open a session: %v", s.key[:8], err)
	}
	s.byRNG[rng] = id
	return id
}

// open initializes a session and says it is initialized.
func (s *mcpSessionsOf) open() (string, error) {
	client := &http.Client{Timeout: 30 * time.Second}
	send := func(id, body string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodPost, s.t.Base+mcpPath, bytes.NewReader([]byte(body)))
		if err != nil {
			return nil, err
		}
		req.Header = s.header()
		if id != "" {
			req.Header.Set("Mcp-Session-Id", id)
			req.Header.Set("Mcp-Protocol-Version", mcpProtocol)
		}
		res, err := client.Do(req)
		if err == nil {
			_ = res.Body.Close()
		}
		return res, err
	}
	res, err := send("", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+mcpProtocol+
		`","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`)
	if err != nil {
		return "", err
	}
	id := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != http.StatusOK || id == "" {
		return "", fmt.Errorf("initialize: %s, session %q", res.Status, id)
	}
	if res, err = send(id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusAccepted {
		return "", fmt.Errorf("initialized: %s", res.Status)
	}
	return id, nil
}
