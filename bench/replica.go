package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/catalog-enrichment/enrichment/replica"
)

// With -replica the server replicates data.db to a folder beside it
// (file://TMP/replica, the cheapest replica: what it costs is Litestream's
// own work). Each scenario then records the lag the server reports, and at
// the end the replica is restored into a new folder with the binary's
// restore, timed.

// lagSummary is the replication lag the server reported during a scenario,
// read from its status route every sampleEvery.
type lagSummary struct {
	Samples       int     `json:"samples"`
	MeanSeconds   float64 `json:"meanSeconds"`
	P95Seconds    float64 `json:"p95Seconds"`
	MaxSeconds    float64 `json:"maxSeconds"`
	BehindPercent float64 `json:"behindPercent"` // of the samples, lag over the promised window
	Errors        int     `json:"errors"`        // samples with Litestream's error changed since the scenario began
}

// replicationResult is the restore of the replica after the run.
type replicationResult struct {
	Replica        string  `json:"replica"`
	RestoreSeconds float64 `json:"restoreSeconds"` // wall time of `restore` into an empty folder
	RestorePeakMB  float64 `json:"restorePeakRSSMB"`
	RestoredMB     float64 `json:"restoredMB"` // the restored data.db
	Products       int     `json:"products"`   // in the restored database
	Revisions      int     `json:"revisions"`
	SameAsServer   bool    `json:"sameAsServer"` // the server's data.db held as many of both at its stop
	ReplicaMB      float64 `json:"replicaMB"`    // the replica folder after the run
	LocalStateMB   float64 `json:"localStateMB"` // Litestream's folder beside data.db
}

// lagSampler reads the server's replication status while a scenario runs.
type lagSampler struct {
	url, token string
	stop       chan struct{}
	done       sync.WaitGroup
	lags       []float64
	lastError  string
	errors     int
	failed     int
}

func startLagSampler(base, token string) *lagSampler {
	s := &lagSampler{url: base + replica.StatusPath, token: token, stop: make(chan struct{})}
	first := true
	s.done.Go(func() {
		client := &http.Client{Timeout: 5 * time.Second}
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			if st, err := s.read(client); err != nil {
				s.failed++
			} else {
				s.lags = append(s.lags, st.LagSeconds)
				if !first && st.LastError != s.lastError {
					s.errors++
				}
				s.lastError, first = st.LastError, false
			}
			select {
			case <-s.stop:
				return
			case <-t.C:
			}
		}
	})
	return s
}

func (s *lagSampler) read(client *http.Client) (replica.Status, error) {
	req, err := http.NewRequest(http.MethodGet, s.url, nil)
	if err != nil {
		return replica.Status{}, err
	}
	req.Header.Set("Authorization", s.token)
	resp, err := client.Do(req)
	if err != nil {
		return replica.Status{}, err
	}
	defer resp.Body.Close()
	var st replica.Status
	if err := json.NewDecoder(resp.Body).Decode(&st); err != nil || resp.StatusCode != http.StatusOK || !st.Enabled {
		return st, fmt.Errorf("replication status: %d %v %+v", resp.StatusCode, err, st)
	}
	return st, nil
}

// finish stops the sampler and summarizes what it read.
func (s *lagSampler) finish() *lagSummary {
	close(s.stop)
	s.done.Wait()
	l := &lagSummary{Samples: len(s.lags), Errors: s.errors + s.failed}
	if len(s.lags) == 0 {
		return l
	}
	sorted := slices.Sorted(slices.Values(s.lags))
	sum, behind := 0.0, 0
	for _, v := range sorted {
		sum += v
		if v > replica.Window.Seconds() {
			behind++
		}
	}
	l.MeanSeconds = round(sum/float64(len(sorted)), 3)
	l.P95Seconds = round(sorted[(len(sorted)*95+99)/100-1], 3)
	l.MaxSeconds = round(sorted[len(sorted)-1], 3)
	l.BehindPercent = round(100*float64(behind)/float64(len(sorted)), 1)
	return l
}

// restoreReplica restores the replica at url into a new folder beside the
// data folder with the binary, timed, and compares it with the server's
// data.db (stopped, so its last changes were uploaded).
func restoreReplica(ctx context.Context, bin, url, data, tmp string) (*replicationResult, error) {
	dir := filepath.Join(tmp, "restored")
	res, err := runCLI(ctx, bin, dir, importTimeout, "restore", "--from", url)
	if err != nil {
		return nil, err
	}
	r := &replicationResult{Replica: url, RestoreSeconds: round(res.Wall.Seconds(), 2),
		RestorePeakMB: mb(max(res.MaxRSS, res.HWMSeen)),
		RestoredMB:    mb(sizeOf(filepath.Join(dir, "data.db"))),
		ReplicaMB:     mb(sizeOf(strings.TrimPrefix(url, "file://"))),
		LocalStateMB:  mb(sizeOf(filepath.Join(data, ".data.db-litestream")))}
	if r.Products, r.Revisions, err = countRows(filepath.Join(dir, "data.db")); err != nil {
		return nil, err
	}
	products, revisions, err := countRows(filepath.Join(data, "data.db"))
	if err != nil {
		return nil, err
	}
	r.SameAsServer = products == r.Products && revisions == r.Revisions
	return r, nil
}

// countRows counts the products and revisions of a data.db.
func countRows(path string) (products, revisions int, err error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	err = db.QueryRow(`SELECT (SELECT COUNT(*) FROM products), (SELECT COUNT(*) FROM revisions)`).Scan(&products, &revisions)
	return products, revisions, err
}

// sizeOf is the size of a file or of the files under a folder.
func sizeOf(path string) int64 {
	var n int64
	_ = filepath.WalkDir(path, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
