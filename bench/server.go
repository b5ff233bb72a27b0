package bench

import (
	"bufio"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ServerOptions describe a `vatic serve` process to start.
type ServerOptions struct {
	// Bin is the path of the vatic binary.
	Bin string
	// DataDir is the server's data directory; it should be empty.
	DataDir string
	// APIKey is the key the server accepts; empty means a random one.
	APIKey string
	// Args are appended to the serve command line.
	Args []string
	// Log receives the server's stdout and stderr; nil discards them.
	Log io.Writer
	// StartTimeout bounds the wait for GET /healthz to answer 200;
	// default 60 s.
	StartTimeout time.Duration
}

// Server is a vatic server started by the harness on a free loopback port.
type Server struct {
	// Client talks to the server's API with its key.
	Client *Client
	// Root is the server's address without the API path (http://127.0.0.1:PORT).
	Root string

	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	waitErr error         // valid after done is closed
}

// StartServer runs `Bin serve -addr 127.0.0.1:PORT -data DataDir -api-key
// KEY -log-format json Args...` and waits until GET /healthz answers 200.
// The caller must call Stop.
func StartServer(ctx context.Context, o ServerOptions) (*Server, error) {
	if o.StartTimeout == 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.APIKey == "" {
		o.APIKey = rand.Text()
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "-addr", addr, "-data", o.DataDir, "-api-key", o.APIKey, "-log-format", "json"}, o.Args...)
	cmd := exec.Command(o.Bin, args...)
	cmd.Stdout, cmd.Stderr = o.Log, o.Log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start %s: %w", o.Bin, err)
	}
	root := "http://" + addr
	s := &Server{
		Client: &Client{BaseURL: root + "/v1", APIKey: o.APIKey},
		Root:   root,
		cmd:    cmd,
		done:   make(chan struct{}),
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitHealthy(ctx, o.StartTimeout); err != nil {
		s.Stop()
		return nil, fmt.Errorf("bench: %s serve: %w", o.Bin, err)
	}
	return s, nil
}

func (s *Server) waitHealthy(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	hc := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Root+"/healthz", nil)
		if err != nil {
			return err
		}
		if resp, err := hc.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("exited before it was healthy: %v", s.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("not healthy at %s/healthz: %w", s.Root, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// PID is the server's process ID.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Memory is a process's resident set size, in bytes.
type Memory struct {
	RSS  int64 // now (VmRSS)
	Peak int64 // high-water mark since the process started (VmHWM)
}

// ResetPeak resets the server's RSS high-water mark (VmHWM) to its current
// RSS, by writing 5 to /proc/PID/clear_refs (Linux 4.0 and later).
func (s *Server) ResetPeak() error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.PID()), []byte("5"), 0)
}

// Memory reads the server's resident set size from /proc (Linux only).
func (s *Server) Memory() (Memory, error) {
	return procMemory(s.PID())
}

func procMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	defer f.Close()
	var m Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("bench: parse %s of process %d: %w", key, pid, err)
		}
		if key == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.Peak = kb << 10
		}
	}
	if err := sc.Err(); err != nil {
		return Memory{}, err
	}
	if m.RSS == 0 || m.Peak == 0 {
		return Memory{}, fmt.Errorf("bench: no VmRSS/VmHWM for process %d", pid)
	}
	return m, nil
}

// stopTimeout is how long Stop waits after SIGTERM (the server checkpoints
// DuckDB on the way out) before it kills the process.
const stopTimeout = 60 * time.Second

// Stop sends SIGTERM, waits for the process to exit and reports an exit
// other than a clean one. It kills the process if it does not exit in time.
func (s *Server) Stop() error {
	select {
	case <-s.done:
		return s.exitErr()
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.done:
		return s.exitErr()
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.done
		return fmt.Errorf("bench: server %d did not stop within %v of SIGTERM; killed", s.PID(), stopTimeout)
	}
}

func (s *Server) exitErr() error {
	if s.waitErr != nil {
		return fmt.Errorf("bench: server %d: %w", s.PID(), s.waitErr)
	}
	return nil
}

// freeAddr returns a loopback address with a port that was free a moment ago.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	return addr, l.Close()
}
