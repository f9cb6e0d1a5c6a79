package replica

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/pocketbase/pocketbase/core"
)

// errorMemory is a slog.Handler in front of Litestream's logger that
// remembers its last error (a failed upload, a full disk), so the status can
// say why the replica is behind. Litestream logs a persisting error at most
// every 30 seconds.
type errorMemory struct {
	slog.Handler
	last *lastError
}

type lastError struct {
	mu  sync.Mutex
	msg string
	at  time.Time
	n   uint64 // errors since the start
}

func (h errorMemory) Handle(ctx context.Context, r slog.Record) error {
	if r.Level >= slog.LevelError {
		msg := r.Message
		r.Attrs(func(a slog.Attr) bool {
			if a.Key == "error" {
				msg += ": " + a.Value.String()
				return false
			}
			return true
		})
		h.last.set(msg, r.Time)
	}
	return h.Handler.Handle(ctx, r)
}

func (h errorMemory) WithAttrs(attrs []slog.Attr) slog.Handler {
	return errorMemory{Handler: h.Handler.WithAttrs(attrs), last: h.last}
}

func (h errorMemory) WithGroup(name string) slog.Handler {
	return errorMemory{Handler: h.Handler.WithGroup(name), last: h.last}
}

func (l *lastError) set(msg string, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msg, l.at = msg, at
	l.n++
}

func (l *lastError) count() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}

func (l *lastError) get() (string, time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msg, l.at
}

// appLogs is app's log (the dashboard's) for the replication's records.
// note: PocketBase stores a record's attributes as JSON (encoding/json/v2),
// which has no form for a time.Duration, and drops the whole record
// ("Failed to write log … no default representation"): Litestream's failed
// syncs, which carry a "backoff", never reached the dashboard. The handler
// writes durations as text ("250ms").
func appLogs(app core.App) slog.Handler {
	return durationsAsText{app.Logger().Handler()}
}

type durationsAsText struct{ slog.Handler }

func (h durationsAsText) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(durationAsText(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h durationsAsText) WithAttrs(attrs []slog.Attr) slog.Handler {
	texts := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		texts[i] = durationAsText(a)
	}
	return durationsAsText{h.Handler.WithAttrs(texts)}
}

func (h durationsAsText) WithGroup(name string) slog.Handler {
	return durationsAsText{h.Handler.WithGroup(name)}
}

func durationAsText(a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		a.Value = slog.StringValue(a.Value.Duration().String())
	}
	return a
}
