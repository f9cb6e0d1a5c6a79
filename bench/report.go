package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type report struct {
	Machine  machineInfo   `json:"machine"`
	Config   config        `json:"config"`
	Import   importResult  `json:"import"`
	Reimport *importResult `json:"reimport,omitempty"` // the same file again; absent in older results
	// the same catalog as a Shopify product CSV into an empty organization
	// of a data folder of its own; absent in older results
	ImportShopify *importResult      `json:"importShopify,omitempty"`
	Scenarios     []scenarioResult   `json:"scenarios"`
	Ratios        map[string]float64 `json:"ratios"`
	Server        struct {
		PeakRSSMB  float64    `json:"peakRSSMB"`            // VmHWM over the whole run
		PeakAnonMB float64    `json:"peakAnonMB,omitempty"` // the largest RssAnon sampled during the scenarios and the soak; 0 in older results
		Logs       logSummary `json:"logs"`
	} `json:"server"`
	Soak        *soakResult        `json:"soak,omitempty"`
	Webhooks    *webhookResult     `json:"webhooks,omitempty"`
	History     *historyResult     `json:"history,omitempty"`
	Replication *replicationResult `json:"replication,omitempty"` // -replica
	Targets     []targetRow        `json:"targets"`
}

type machineInfo struct {
	CPUs     int     `json:"cpus"`
	CPU      string  `json:"cpu"`
	MemoryGB float64 `json:"memoryGB"`
	Kernel   string  `json:"kernel"`
	Go       string  `json:"go"`
	Date     string  `json:"date"`
	LoadAvg  string  `json:"loadAverageAtStart"`
}

func machine() machineInfo {
	m := machineInfo{CPUs: runtime.NumCPU(), Go: runtime.Version(), Date: time.Now().UTC().Format(time.RFC3339), LoadAvg: loadAverage()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if name, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		var kb float64
		if _, err := fmt.Sscanf(string(b), "MemTotal: %f kB", &kb); err == nil {
			m.MemoryGB = round(kb/(1<<20), 1)
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	return m
}

func (m machineInfo) line() string {
	return fmt.Sprintf("%d × %s, %.1f GB RAM, %s, %s, %s (load average at start %s)", m.CPUs, m.CPU, m.MemoryGB, m.Kernel, m.Go, m.Date[:10], m.LoadAvg)
}

type scenarioResult struct {
	Name            string         `json:"name"`
	About           string         `json:"about,omitempty"`
	Workers         int            `json:"workers"`
	Seconds         float64        `json:"seconds"`
	Requests        int            `json:"requests"`
	Errors          int            `json:"errors"` // unexpected status or no answer
	Status          map[string]int `json:"status"`
	NoAnswer        map[string]int `json:"noAnswer,omitempty"`
	Status5xx       int            `json:"status5xx"`
	Locked          int            `json:"databaseLocked"`
	ReqPerSec       float64        `json:"reqPerSec"`
	Unit            string         `json:"unit,omitempty"`
	ItemsPerSec     float64        `json:"itemsPerSec,omitempty"`
	MBPerSec        float64        `json:"mbPerSec"`
	Latency         latency        `json:"latencyMs"`
	ServerRSSPeakMB float64        `json:"serverRSSPeakMB"` // VmRSS, with the mmap'd database pages
	ServerRSSEndMB  float64        `json:"serverRSSEndMB"`
	// RssAnon, the process's own memory (heap, stacks); 0 in older results
	ServerAnonPeakMB float64          `json:"serverAnonPeakMB,omitempty"`
	ServerAnonEndMB  float64          `json:"serverAnonEndMB,omitempty"`
	ServerCPU        float64          `json:"serverCPUCores"`
	ClientCPU        float64          `json:"clientCPUCores"`
	OtherCPU         float64          `json:"otherProcessesCPUCores"` // the rest of the machine: noise
	Samples          []string         `json:"unexpectedAnswers,omitempty"`
	Notes            []string         `json:"notes,omitempty"`
	Kinds            []scenarioResult `json:"kinds,omitempty"`
	RSSSeries        [][2]float64     `json:"rssSeries,omitempty"`  // VmRSS, [seconds, MB]
	AnonSeries       [][2]float64     `json:"anonSeries,omitempty"` // RssAnon, [seconds, MB], the same times
	Attack           *attackResult    `json:"attack,omitempty"`     // the memory around an attack scenario
	ReplicaLag       *lagSummary      `json:"replicaLag,omitempty"` // -replica
}

func summary(name, about string, workers int, unit string, t *tally, elapsed time.Duration) scenarioResult {
	s := elapsed.Seconds()
	r := scenarioResult{Name: name, About: about, Workers: workers, Seconds: round(s, 2), Requests: t.Requests,
		Status: map[string]int{}, Locked: t.Locked, Unit: unit, Samples: t.Samples,
		ReqPerSec: round(float64(t.Requests)/s, 1), MBPerSec: round(float64(t.Bytes)/s/(1<<20), 1),
		Latency: summarize(t.Latencies)}
	if unit != "" {
		r.ItemsPerSec = round(float64(t.Items)/s, 0)
	}
	r.Errors = t.Unexpect
	for code, n := range t.Status {
		r.Status[strconv.Itoa(code)] = n
		if code >= 500 {
			r.Status5xx += n
		}
	}
	if len(t.Errors) > 0 {
		r.NoAnswer = map[string]int{}
		for e, n := range t.Errors {
			r.NoAnswer[e] = n
			r.Errors += n
		}
	}
	return r
}

// soakResult is the no-growth check. It is on RssAnon, the process's own
// memory: VmRSS also counts the memory-mapped database pages the server
// read (PRAGMA mmap_size), which are file cache and grow with the database
// file, and the soak's submissions make that file grow. VmRSS is kept for
// information. Results written before RssAnon was sampled have no anon
// fields and their GrowthPercent is on VmRSS.
type soakResult struct {
	Minutes       float64        `json:"minutes"`
	EarlyAnonMB   float64        `json:"earlyAnonMB,omitempty"` // RssAnon, mean over the second fifth (after warm-up)
	LateAnonMB    float64        `json:"lateAnonMB,omitempty"`  // RssAnon, mean over the last fifth
	GrowthPercent float64        `json:"growthPercent"`
	EarlyRSSMB    float64        `json:"earlyRSSMB"` // VmRSS, the same fifths
	LateRSSMB     float64        `json:"lateRSSMB"`
	RSSGrowth     float64        `json:"rssGrowthPercent,omitempty"`
	Errors        int            `json:"errors"`
	Status5xx     int            `json:"status5xx"`
	Series        [][2]float64   `json:"rssSeries"`
	AnonSeries    [][2]float64   `json:"anonSeries,omitempty"`
	Load          scenarioResult `json:"load"` // the whole soak as a scenario, per kind
}

// anonMeasured tells results with RssAnon from older ones.
func (s *soakResult) anonMeasured() bool { return s.EarlyAnonMB > 0 }

func soakOf(r scenarioResult) *soakResult {
	s := &soakResult{Minutes: round(r.Seconds/60, 1), Errors: r.Errors, Status5xx: r.Status5xx,
		Series: r.RSSSeries, AnonSeries: r.AnonSeries, Load: r}
	s.Load.RSSSeries, s.Load.AnonSeries = nil, nil // once is enough
	if len(r.RSSSeries) >= 5 {
		s.EarlyRSSMB, s.LateRSSMB = fifths(r.RSSSeries)
		s.RSSGrowth = growth(s.EarlyRSSMB, s.LateRSSMB)
	}
	if len(r.AnonSeries) >= 5 {
		s.EarlyAnonMB, s.LateAnonMB = fifths(r.AnonSeries)
		s.GrowthPercent = growth(s.EarlyAnonMB, s.LateAnonMB)
	}
	return s
}

// fifths are the means of a series over its second fifth (after the
// warm-up) and over its last fifth.
func fifths(series [][2]float64) (early, late float64) {
	n := len(series)
	mean := func(from, to int) float64 {
		sum := 0.0
		for _, x := range series[from:to] {
			sum += x[1]
		}
		return sum / float64(max(1, to-from))
	}
	return round(mean(n/5, 2*n/5), 1), round(mean(4*n/5, n), 1)
}

func growth(early, late float64) float64 {
	if early <= 0 {
		return 0
	}
	return round(100*(late/early-1), 1)
}

// logSummary is what the server logged: its request and error log in
// auxiliary.db, and its stdout/stderr.
type logSummary struct {
	Errors        int      `json:"errorEntries"`   // level ERROR
	Requests5xx   int      `json:"requests5xx"`    // request log entries with status ≥ 500
	Locked        int      `json:"databaseLocked"` // entries mentioning "database is locked"
	OutputLocked  int      `json:"outputLocked"`   // stdout/stderr lines mentioning it
	OutputPanics  int      `json:"outputPanics"`   // stdout/stderr lines with "panic"
	FirstMessages []string `json:"firstErrors,omitempty"`
	// Unexpected4xx are request log entries with a 4xx status (no scenario
	// expects one), with PocketBase's recorded error.
	Unexpected4xx int      `json:"unexpected4xx"`
	First4xx      []string `json:"first4xx,omitempty"`
	ReadError     string   `json:"readError,omitempty"`
}

func scanLogs(auxDB, serverLog string) logSummary {
	var s logSummary
	if out, err := os.ReadFile(serverLog); err == nil {
		for _, line := range bytes.Split(out, []byte("\n")) {
			if bytes.Contains(line, []byte("database is locked")) {
				s.OutputLocked++
			}
			if bytes.Contains(bytes.ToLower(line), []byte("panic")) {
				s.OutputPanics++
			}
		}
	}
	db, err := sql.Open("sqlite", "file:"+auxDB+"?mode=ro")
	if err != nil {
		s.ReadError = err.Error()
		return s
	}
	defer db.Close()
	// note: the attacks' refusals (503 past the body budget, 429 past the
	// key's rate limit) are what they measure, not failures; only the
	// attacks send dry runs
	const notAttack = ` AND COALESCE(data ->> '$.url', '') NOT LIKE '%dryRun=true%'`
	err = db.QueryRow(`SELECT
		(SELECT COUNT(*) FROM _logs WHERE level >= 8 AND COALESCE(CAST(data ->> '$.status' AS INTEGER), 500) >= 500`+notAttack+`),
		(SELECT COUNT(*) FROM _logs WHERE CAST(data ->> '$.status' AS INTEGER) >= 500`+notAttack+`),
		(SELECT COUNT(*) FROM _logs WHERE message LIKE '%database is locked%' OR data LIKE '%database is locked%')`).
		Scan(&s.Errors, &s.Requests5xx, &s.Locked)
	if err != nil {
		s.ReadError = err.Error()
		return s
	}
	const unexpected4xx = `FROM _logs WHERE CAST(data ->> '$.status' AS INTEGER) BETWEEN 400 AND 499` + notAttack
	_ = db.QueryRow(`SELECT COUNT(*) ` + unexpected4xx).Scan(&s.Unexpected4xx)
	if rows, err := db.Query(`SELECT message || ' ' || substr(data, 1, 400) ` + unexpected4xx + ` ORDER BY created LIMIT 5`); err == nil {
		for rows.Next() {
			var m string
			if rows.Scan(&m) == nil {
				s.First4xx = append(s.First4xx, m)
			}
		}
		rows.Close()
	}
	rows, err := db.Query(`SELECT message || ' ' || substr(data, 1, 300) FROM _logs
		WHERE level >= 8 AND COALESCE(CAST(data ->> '$.status' AS INTEGER), 500) >= 500` + notAttack + ` ORDER BY created LIMIT 5`)
	if err == nil {
		defer rows.Close()
		for rows.Next() {
			var m string
			if rows.Scan(&m) == nil {
				s.FirstMessages = append(s.FirstMessages, m)
			}
		}
	}
	return s
}

// kind is the part of a scenario of several kinds that is named name.
func (s *scenarioResult) kind(name string) *scenarioResult {
	for i := range s.Kinds {
		if s.Kinds[i].Name == name {
			return &s.Kinds[i]
		}
	}
	return &scenarioResult{}
}

func (r *report) scenario(name string) *scenarioResult {
	for i := range r.Scenarios {
		if r.Scenarios[i].Name == name {
			return &r.Scenarios[i]
		}
	}
	return &scenarioResult{}
}

func (r *report) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"latest.json": append(b, '\n'),
		"latest.md":   []byte(r.markdown()),
		"latest.svg":  []byte(r.chart()),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
