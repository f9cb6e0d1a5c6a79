package opsmetrics

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/catalog-enrichment/enrichment/clock"
	"github.com/pocketbase/pocketbase/core"
	"github.com/pocketbase/pocketbase/tools/hook"
	"github.com/pocketbase/pocketbase/tools/router"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the metrics are served, on both listeners.
const Path = "/metrics"

// Environment variables of the metrics.
const (
	TokenEnv = "ENRICHMENT_METRICS_TOKEN" // a bearer token for GET /metrics on the main listener
	AddrEnv  = "ENRICHMENT_METRICS_ADDR"  // a second listener serving GET /metrics without authentication
)

// Config says who may scrape.
type Config struct {
	// Token, when set, lets `Authorization: Bearer <Token>` scrape the main
	// listener (superusers always may).
	Token string
	// Addr, when set, is the second listener's address (host:port).
	Addr string
}

// ConfigFromEnv reads the Config from the environment.
func ConfigFromEnv() Config {
	return Config{Token: os.Getenv(TokenEnv), Addr: os.Getenv(AddrEnv)}
}

// apiPrefix is the path of the routes whose requests are counted.
const apiPrefix = "/api/enrichment/"

// Register serves app's metrics as c says and counts the API's requests;
// registering again replaces the config (tests do).
func Register(app core.App, c Config) {
	m := Of(app)
	m.mu.Lock()
	m.config = c
	m.mu.Unlock()
	var second *http.Server
	app.OnServe().Bind(&hook.Handler[*core.ServeEvent]{
		Id: "enrichmentMetrics",
		Func: func(se *core.ServeEvent) error {
			se.Router.Bind(countRequests(m))
			se.Router.GET(Path, func(e *core.RequestEvent) error { return m.serveMain(e) })
			if c.Addr != "" {
				srv, err := m.listen(c.Addr)
				if err != nil {
					return err
				}
				second = srv
			}
			return se.Next()
		},
	})
	app.OnTerminate().Bind(&hook.Handler[*core.TerminateEvent]{
		Id: "enrichmentMetricsStop",
		Func: func(te *core.TerminateEvent) error {
			if second != nil {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				_ = second.Shutdown(ctx)
				second = nil
			}
			return te.Next()
		},
	})
}

// handler writes one scrape in the exposition format.
func (m *Metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// serveMain answers GET /metrics on the main listener: to a superuser or
// the metrics token; 401 to anyone else while a token is set, 404 while
// none is (the endpoint is not there for them).
func (m *Metrics) serveMain(e *core.RequestEvent) error {
	m.mu.Lock()
	token := m.config.Token
	m.mu.Unlock()
	// note: the scheme in any letter case (RFC 9110), and required: a bare
	// token is a superuser's PocketBase token or nothing
	scheme, bearer, ok := strings.Cut(e.Request.Header.Get("Authorization"), " ")
	switch {
	case e.HasSuperuserAuth():
	case token != "" && ok && strings.EqualFold(scheme, "Bearer") && subtle.ConstantTimeCompare([]byte(bearer), []byte(token)) == 1:
	case token != "":
		return e.UnauthorizedError("A superuser's token or the metrics token is required.", nil)
	default:
		return e.NotFoundError("", nil)
	}
	m.handler().ServeHTTP(e.Response, e.Request)
	return nil
}

// listen starts the second listener on addr: GET /metrics, nothing else.
func (m *Metrics) listen(addr string) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics listener on %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+Path, m.handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	m.mu.Lock()
	m.addr = ln.Addr().String()
	m.mu.Unlock()
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "enrichment: metrics listener:", err)
		}
	}()
	return srv, nil
}

// countRequests counts and times the API's requests by route pattern (the
// router's, never the raw path) and status class. It runs before the API
// key's check, so refusals count too.
func countRequests(m *Metrics) *hook.Handler[*core.RequestEvent] {
	return &hook.Handler[*core.RequestEvent]{
		Id:       "enrichmentCountRequests",
		Priority: -2000, // note: before PocketBase's own middlewares (the rate limiter's is -1000)
		Func: func(e *core.RequestEvent) error {
			if !strings.HasPrefix(e.Request.URL.Path, apiPrefix) {
				return e.Next()
			}
			start := clock.Wall()
			err := e.Next()
			status := e.Status()
			if err != nil {
				status = router.ToApiError(err).Status
			} else if status == 0 {
				status = http.StatusOK // nothing written: net/http answers 200
			}
			route := e.Request.Pattern
			if route == "" {
				route = "unmatched"
			}
			m.Requests.WithLabelValues(route, strconv.Itoa(status/100)+"xx").Inc()
			m.Duration.WithLabelValues(route).Observe(clock.Wall().Sub(start).Seconds())
			return err
		},
	}
}
