package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// subscribeLive opens PocketBase's realtime stream as a superuser and
// subscribes it to every revision (-live), as the reviewers' page does for
// its queue, so that the submissions pay for the live updates they cause.
// It counts the revision messages it reads until ctx ends.
func subscribeLive(ctx context.Context, base, token string) (*atomic.Int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/realtime", nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("open the realtime stream: %w", err)
	}
	connected, messages := make(chan string, 1), new(atomic.Int64)
	go func() {
		defer res.Body.Close()
		r := bufio.NewReaderSize(res.Body, 1<<20)
		var event string
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case strings.HasPrefix(line, "event:"):
				event = strings.TrimSpace(strings.TrimPrefix(line, "event:"))
			case strings.HasPrefix(line, "data:") && event == "PB_CONNECT":
				var c struct {
					ClientID string `json:"clientId"`
				}
				_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data:")), &c)
				connected <- c.ClientID
			case strings.HasPrefix(line, "data:") && strings.HasPrefix(event, "revisions"):
				messages.Add(1)
			}
		}
	}()
	var client string
	select {
	case client = <-connected:
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("no PB_CONNECT from the realtime stream")
	}
	body := fmt.Sprintf(`{"clientId":%q,"subscriptions":["revisions/*"]}`, client)
	sub, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/api/realtime", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	sub.Header.Set("Content-Type", "application/json")
	sub.Header.Set("Authorization", token)
	answer, err := http.DefaultClient.Do(sub)
	if err != nil {
		return nil, fmt.Errorf("subscribe to revisions: %w", err)
	}
	defer answer.Body.Close()
	if answer.StatusCode != http.StatusNoContent {
		b, _ := io.ReadAll(io.LimitReader(answer.Body, 500))
		return nil, fmt.Errorf("subscribe to revisions: %d %s", answer.StatusCode, b)
	}
	return messages, nil
}
