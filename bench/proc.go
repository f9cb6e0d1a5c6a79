package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Bounds on every wait of the harness.
const (
	buildTimeout  = 10 * time.Minute // the first build may fetch the Go 1.27 toolchain
	cliTimeout    = 2 * time.Minute  // org, apikey, superuser
	importTimeout = 15 * time.Minute // 100k products take about 10 s; 1M would take minutes
	startTimeout  = 30 * time.Second // serve answers /api/health
	stopTimeout   = 15 * time.Second // SIGTERM, then SIGKILL
	sampleEvery   = 250 * time.Millisecond
)

// findRoot walks up from the working directory to the module's go.mod.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/catalog-enrichment/enrichment")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the harness inside the repository (go run ./bench from its root)")
		}
		dir = parent
	}
}

// buildBinary compiles the service (pkg ".", or the profiling build) into
// bin, as the e2e tests do.
func buildBinary(ctx context.Context, root, pkg, bin string) error {
	ctx, cancel := context.WithTimeout(ctx, buildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, pkg)
	cmd.Dir = root
	// note: the last value of a variable wins; Go 1.27 is needed (README)
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=auto")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build in %s: %v\n%s", root, err, out)
	}
	return nil
}

// runCLI runs a subcommand of the binary on the data folder and returns its
// stdout, with rusage (peak RSS) and wall time.
type cliRun struct {
	Stdout  []byte
	Wall    time.Duration
	MaxRSS  int64 // bytes, from the kernel's rusage
	HWMSeen int64 // bytes, the largest VmHWM read while it ran
	CPU     time.Duration
}

func runCLI(ctx context.Context, bin, dir string, timeout time.Duration, args ...string) (cliRun, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(args, "--dir", dir)...)
	cmd.SysProcAttr = childAttr()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return cliRun{}, fmt.Errorf("start %s: %w", strings.Join(args, " "), err)
	}
	var hwm int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if m, ok := readMem(cmd.Process.Pid); ok && m.HWM > hwm {
				hwm = m.HWM
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	})
	err := cmd.Wait()
	close(stop)
	wg.Wait()
	res := cliRun{Stdout: out.Bytes(), Wall: time.Since(start), HWMSeen: hwm,
		CPU: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		res.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	if err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, ctx.Err())
		}
		return res, fmt.Errorf("enrichment %s: %v\n%s", strings.Join(args, " "), err, tail(errOut.String()))
	}
	return res, nil
}

// mem is a reading of /proc/PID/status, in bytes. RSS (VmRSS) is Anon +
// File + Shmem: File counts the pages of memory-mapped files the process
// touched, such as SQLite's database pages with PRAGMA mmap_size, which are
// the OS's shared, reclaimable file cache and grow with the file. Anon
// (RssAnon) is the process's own memory: heap, stacks, Go runtime.
type mem struct {
	RSS, HWM   int64
	Anon, File int64
}

func readMem(pid int) (mem, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return mem{}, false
	}
	defer f.Close()
	var m mem
	s := bufio.NewScanner(f)
	for s.Scan() {
		name, value, ok := strings.Cut(s.Text(), ":")
		if !ok {
			continue
		}
		var field *int64
		switch name {
		case "VmRSS":
			field = &m.RSS
		case "VmHWM":
			field = &m.HWM
		case "RssAnon":
			field = &m.Anon
		case "RssFile":
			field = &m.File
		default:
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		if err != nil {
			continue
		}
		*field = kb * 1024
	}
	return m, m.RSS > 0
}

// cpuSeconds is the user+system CPU time of a process from /proc/PID/stat.
func cpuSeconds(pid int) float64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// the command name may hold spaces: fields start after the last ')'
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100 // USER_HZ is 100 on Linux
}

// machineBusy is the CPU time all processes of the machine used so far
// (user, nice, system, irq, softirq, steal from /proc/stat), in seconds.
func machineBusy() float64 {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0
	}
	busy := 0.0
	for _, i := range []int{1, 2, 3, 6, 7, 8} {
		v, _ := strconv.ParseFloat(f[i], 64)
		busy += v
	}
	return busy / 100
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// sample is one reading of the server's memory (bytes, see mem).
type sample struct {
	At   time.Time
	RSS  int64
	HWM  int64
	Anon int64
	File int64
}

// server is a running `serve`, with its memory sampled every 250 ms.
type server struct {
	cmd     *exec.Cmd
	base    string // http://127.0.0.1:PORT
	logPath string
	done    chan struct{}
	err     error

	mu      sync.Mutex
	samples []sample
}

// startServer runs serve on a free loopback port, with env added to the
// environment, and waits for /api/health.
func startServer(ctx context.Context, bin, dir, logPath string, env []string) (*server, error) {
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		s, err := tryStart(ctx, bin, dir, logPath, env)
		if err == nil {
			return s, nil
		}
		lastErr = err
		if ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	return nil, lastErr
}

func tryStart(ctx context.Context, bin, dir, logPath string, env []string) (*server, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	s := &server{base: "http://" + addr, logPath: logPath, done: make(chan struct{})}
	s.cmd = exec.Command(bin, "serve", "--http", addr, "--dir", dir)
	s.cmd.SysProcAttr = childAttr()
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	// note: the webhook receivers of the harness listen on 127.0.0.1
	s.cmd.Env = append(append(os.Environ(), "ENRICHMENT_WEBHOOK_ALLOW_PRIVATE=1"), env...)
	if err := s.cmd.Start(); err != nil {
		logFile.Close()
		return nil, fmt.Errorf("start serve: %w", err)
	}
	go func() {
		s.err = s.cmd.Wait()
		logFile.Close()
		close(s.done)
	}()
	go s.sampleLoop()

	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			out, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("serve exited before answering (%v):\n%s", s.err, tail(string(out)))
		case <-ctx.Done():
			s.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if resp, err := client.Get(s.base + "/api/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
	}
	s.stop()
	out, _ := os.ReadFile(logPath)
	return nil, fmt.Errorf("serve not healthy within %s:\n%s", startTimeout, tail(string(out)))
}

func (s *server) pid() int { return s.cmd.Process.Pid }

func (s *server) sampleLoop() {
	t := time.NewTicker(sampleEvery)
	defer t.Stop()
	for {
		if m, ok := readMem(s.pid()); ok {
			s.mu.Lock()
			s.samples = append(s.samples, sample{At: time.Now(), RSS: m.RSS, HWM: m.HWM, Anon: m.Anon, File: m.File})
			s.mu.Unlock()
		}
		select {
		case <-s.done:
			return
		case <-t.C:
		}
	}
}

// window returns the samples taken between from and to.
func (s *server) window(from, to time.Time) []sample {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []sample
	for _, x := range s.samples {
		if !x.At.Before(from) && !x.At.After(to) {
			out = append(out, x)
		}
	}
	return out
}

// peakHWM is the server's high-water mark so far.
func (s *server) peakHWM() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return 0
	}
	return s.samples[len(s.samples)-1].HWM
}

// stop sends SIGTERM (PocketBase then flushes its logs and closes its
// databases) and kills the server if it has not exited in time.
func (s *server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		fmt.Fprintf(os.Stderr, "bench: serve ignored SIGTERM for %s; killing it\n", stopTimeout)
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// tail keeps error messages readable when a process printed a lot.
func tail(s string) string {
	const max = 3000
	if len(s) <= max {
		return s
	}
	return "[…]" + s[len(s)-max:]
}
