// Command profserver is the service as main.go runs it (service.New), plus
// CPU profiles on demand, for `go run ./bench -cpuprofile DIR` only: the
// service itself has no profiling endpoint.
//
// With ENRICHMENT_PROFILE_DIR set, SIGUSR1 starts a CPU profile into the
// file named in DIR/next, and SIGUSR2 stops it. The pages are not embedded:
// they are not measured.
package main

import (
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"testing/fstest"

	_ "github.com/catalog-enrichment/enrichment/migrations"
	"github.com/catalog-enrichment/enrichment/service"
)

func main() {
	if dir := os.Getenv("ENRICHMENT_PROFILE_DIR"); dir != "" {
		go profiles(dir)
	}
	pages := fstest.MapFS{"index.html": {Data: []byte("<h1>Catalog Enrichment (profiling build)</h1>")}}
	app := service.New(os.Args[1:], pages)
	if err := app.Start(); err != nil {
		log.Fatal(err)
	}
	pprof.StopCPUProfile()
}

// profiles starts and stops CPU profiles on SIGUSR1 and SIGUSR2.
func profiles(dir string) {
	signals := make(chan os.Signal, 4)
	signal.Notify(signals, syscall.SIGUSR1, syscall.SIGUSR2)
	var current *os.File
	stop := func() {
		if current != nil {
			pprof.StopCPUProfile()
			current.Close()
			current = nil
		}
	}
	for sig := range signals {
		stop()
		if sig != syscall.SIGUSR1 {
			continue
		}
		name, err := os.ReadFile(filepath.Join(dir, "next"))
		if err != nil {
			log.Printf("profserver: %v", err)
			continue
		}
		f, err := os.Create(filepath.Join(dir, filepath.Base(strings.TrimSpace(string(name)))))
		if err != nil {
			log.Printf("profserver: %v", err)
			continue
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Printf("profserver: %v", err)
			f.Close()
			continue
		}
		current = f
	}
}
