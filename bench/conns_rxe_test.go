//go:build rxe

package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/internal/rxetest"
	"github.com/goverbs/goverbs/rdma"
)

// BenchmarkConns is many RC connections from node A to node B, n of them
// (connsFlag): for each n, impl=go sets them up with rdma.Dial against a
// listener in a peer process on node B (rdma.Listen, each request accepted
// on a goroutine of its own), and impl=cmtime times the same set-up with
// rdmacm-utils' cmtime, client on node A, server on node B.
//
// impl=go dials one warm-up connection first (warmup_us; cmtime makes one
// too) and closes it, then reports the set-up time per connection (the wall
// time of all n dials over n, at most connsDialers in flight), the file
// descriptors each holds and the OS threads once dialed, then, with a
// goroutine per connection parked in CQ.Await (the netpoller), the OS
// threads of the process, GOMAXPROCS, and the memory per connection (RSS
// and the Go heap and stacks, each the growth from before the timed dials,
// over n); then the aggregate 64-byte RDMA-write rate over all n, in rounds
// of three, each driving the same QPs: a goroutine per connection woken by
// its completions (Mpps), one goroutine polling every CQ in turn
// (goPollRound, poll_Mpps) and their C twin, that loop in C (cwrites.go, as
// ib_write_bw -q n drives its QPs from one thread, c_Mpps). rate_ratio and
// poll_ratio are the medians of each Go round's rate over the C round's
// after it; cpu_ns/write, poll_cpu_ns/write and c_cpu_ns/write the process's
// CPU time (getrusage) per write of each. impl=cmtime reports cmtime's
// "full connect" time per connection (avg/conn: the wall time from the
// first rdma_create_id to the last connection established, over n).
func BenchmarkConns(b *testing.B) {
	env := rxetest.Guest(b)
	na, nb := env.Pair(b)
	ns, err := parseConnCounts(*connsFlag)
	if err != nil {
		b.Fatal(err)
	}
	// Each rdma.Conn holds four file descriptors (see connsFDLimit); the
	// guest's limit of 4096 stops a process a little over 1000 connections.
	if err := raiseFDLimit(connsFDLimit); err != nil {
		b.Fatal(err)
	}
	for _, n := range ns {
		b.Run(fmt.Sprintf("n=%d/impl=go", n), func(b *testing.B) {
			for range b.N {
				if err := benchConnsGo(b, na, nb, n); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("n=%d/impl=cmtime", n), func(b *testing.B) {
			var us []float64
			for range b.N {
				v, err := cmtime(na, nb, n)
				if err != nil {
					b.Fatal(err)
				}
				us = append(us, v)
			}
			b.ReportMetric(median(us), "setup_us/conn")
		})
	}
}

var connsFlag = flag.String("conns", "1,10,100,1000", "BenchmarkConns: the numbers of connections, comma-separated")

func parseConnCounts(s string) ([]int, error) {
	var ns []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-conns %q: %q is not a count of connections", s, f)
		}
		ns = append(ns, n)
	}
	return ns, nil
}

const (
	// connsDialers bounds the dials in flight: rdma.Listen listens with a
	// backlog of 16 requests.
	connsDialers = 16
	// Each connection's writes: batches of connsBatch 64-byte writes, the
	// last signaled, at most connsInflight batches outstanding.
	connsBatch, connsInflight, connsSize = 16, 2, 64
	// A write-rate round is about connsWrites writes over all connections,
	// at least one batch on each.
	connsWrites = 4096
	connsRounds = 3 // Go rounds, each followed by a C round
	// The index a warm-up connection sends.
	connsWarmup = 1<<32 - 1
)

// connsConfig is both ends' ConnConfig: room for the writes' batches; no
// receives are posted.
var connsConfig = rdma.ConnConfig{MaxSend: connsBatch * connsInflight, MaxRecv: 1, ResolveTimeout: 10 * time.Second}

// connSet is the dialing side's n connections, each with its write source
// (one buffer registered in every connection's PD) and the peer's target.
type connSet struct {
	conns  []*rdma.Conn
	mrs    []*rdma.MR
	remote []remoteMR
	buf    *rdma.Buffer
}

type remoteMR struct {
	addr uint64
	rkey uint32
	ok   bool
}

func benchConnsGo(b *testing.B, na, nb rxetest.Node, n int) error {
	p, port, err := startConnsPeer(nb.IP)
	if err != nil {
		return err
	}
	cs := &connSet{conns: make([]*rdma.Conn, n), mrs: make([]*rdma.MR, n), remote: make([]remoteMR, n)}
	defer func() {
		p.send("quit")
		cs.close()
		p.stop()
	}()
	// The peer's MR lines, read as they come.
	mrDone := make(chan error, 1)
	var mrMu sync.Mutex
	go func() {
		for got := 0; got < n; got++ {
			line, err := p.line()
			if err != nil {
				mrDone <- err
				return
			}
			var i int
			var r remoteMR
			if _, err := fmt.Sscanf(line, "mr %d %d %d", &i, &r.addr, &r.rkey); err != nil || i < 0 || i >= n && i != connsWarmup {
				mrDone <- fmt.Errorf("peer: %q: not an mr line", line)
				return
			}
			if i == connsWarmup {
				got--
				continue
			}
			r.ok = true
			mrMu.Lock()
			cs.remote[i] = r
			mrMu.Unlock()
		}
		mrDone <- nil
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	laddr := netip.AddrPortFrom(netip.MustParseAddr(na.IP), 0)
	raddr := netip.AddrPortFrom(netip.MustParseAddr(nb.IP), port)
	// A warm-up connection first, as cmtime makes one: the first of a
	// guest's boot can take tens of seconds (see docs/benchmarks.md).
	cfg := connsConfig
	cfg.PrivateData = binary.LittleEndian.AppendUint32(nil, connsWarmup)
	t0 := time.Now()
	wc, err := rdma.Dial(ctx, laddr, raddr, cfg)
	if err != nil {
		return fmt.Errorf("warm-up dial: %w", err)
	}
	b.ReportMetric(float64(time.Since(t0).Microseconds()), "warmup_us")
	closeConns([]*rdma.Conn{wc})

	threads0, fds0 := procThreads(), procFDs()
	rss0, heap0, stack0 := memNow()
	sem := make(chan struct{}, connsDialers)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			cfg := connsConfig
			cfg.PrivateData = binary.LittleEndian.AppendUint32(nil, uint32(i))
			cs.conns[i], errs[i] = rdma.Dial(ctx, laddr, raddr, cfg)
		})
	}
	wg.Wait()
	setup := time.Since(start)
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("dial %d of %d: %w", i, n, err)
		}
	}
	b.ReportMetric(float64(setup.Microseconds())/float64(n), "setup_us/conn")
	b.ReportMetric(float64(procFDs()-fds0)/float64(n), "fds/conn")
	b.ReportMetric(float64(procThreads()), "threads_dialed")

	if err := <-mrDone; err != nil {
		return err
	}
	if cs.buf, err = rdma.AllocBuffer(4096); err != nil {
		return err
	}
	for i, c := range cs.conns {
		if cs.mrs[i], err = c.PD.Register(cs.buf.Bytes(), ibv.AccessFlagsLocalWrite); err != nil {
			return fmt.Errorf("connection %d: %w", i, err)
		}
	}
	w, err := newCWrites(n, connsBatch)
	if err != nil {
		return err
	}
	defer w.free()
	for i, c := range cs.conns {
		sg, _ := cs.mrs[i].SGE(0, connsSize)
		w.conn(i, c.QP.Raw(), c.CQ.Raw(), sg, cs.remote[i].addr, cs.remote[i].rkey)
	}

	batches := max(1, (connsWrites+n*connsBatch-1)/(n*connsBatch))
	writes := float64(n * batches * connsBatch)
	works := cs.writeWorks()
	var goRates, pollRates, cRates, ratios, pollRatios, goCPU, pollCPU, cCPU []float64
	for round := range connsRounds {
		var measure func()
		if round == 0 {
			// While all n goroutines wait: threads and memory.
			measure = func() {
				rss, heap, stack := memNow()
				b.ReportMetric(float64(procThreads()), "threads")
				b.ReportMetric(float64(threads0), "threads_before")
				b.ReportMetric(float64(runtime.GOMAXPROCS(0)), "gomaxprocs")
				// (Differences as floats: a figure may have shrunk.)
				b.ReportMetric((float64(rss)-float64(rss0))/float64(n)/1024, "rss_KiB/conn")
				b.ReportMetric((float64(heap)-float64(heap0))/float64(n), "heap_B/conn")
				b.ReportMetric((float64(stack)-float64(stack0))/float64(n), "stack_B/conn")
			}
		}
		cpu0 := cpuTime()
		el, err := cs.goWriteRound(works, batches, measure)
		if err != nil {
			return err
		}
		cpu1 := cpuTime()
		pel, err := cs.goPollRound(works, batches)
		if err != nil {
			return err
		}
		cpu2 := cpuTime()
		cel, err := w.run(batches, connsInflight)
		if err != nil {
			return err
		}
		cpu3 := cpuTime()
		gr, pr, cr := writes/el.Seconds()/1e6, writes/pel.Seconds()/1e6, writes/cel.Seconds()/1e6
		goRates, pollRates, cRates = append(goRates, gr), append(pollRates, pr), append(cRates, cr)
		ratios, pollRatios = append(ratios, gr/cr), append(pollRatios, pr/cr)
		goCPU = append(goCPU, float64(cpu1-cpu0)/writes)
		pollCPU = append(pollCPU, float64(cpu2-cpu1)/writes)
		cCPU = append(cCPU, float64(cpu3-cpu2)/writes)
	}
	b.ReportMetric(median(goRates), "Mpps")
	b.ReportMetric(median(pollRates), "poll_Mpps")
	b.ReportMetric(median(cRates), "c_Mpps")
	b.ReportMetric(median(ratios), "rate_ratio")
	b.ReportMetric(median(pollRatios), "poll_ratio")
	b.ReportMetric(median(goCPU), "cpu_ns/write")
	b.ReportMetric(median(pollCPU), "poll_cpu_ns/write")
	b.ReportMetric(median(cCPU), "c_cpu_ns/write")
	return nil
}

// cpuTime is the CPU time the process has used, user and system, in ns
// (getrusage).
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// writeWorks is each connection's batch of writes: connsBatch RDMA writes
// of connsSize bytes into the peer's memory, the last signaled.
func (cs *connSet) writeWorks() [][]rdma.SendWork {
	works := make([][]rdma.SendWork, len(cs.conns))
	for i := range works {
		sg, _ := cs.mrs[i].SGE(0, connsSize)
		ws := make([]rdma.SendWork, connsBatch)
		for k := range ws {
			ws[k] = rdma.SendWork{ID: uint64(i), Op: ibv.WROpcodeRDMAWrite, SGEs: []ibv.SGE{sg},
				RemoteAddr: cs.remote[i].addr, RKey: cs.remote[i].rkey}
		}
		ws[connsBatch-1].Flags = ibv.SendFlagsSignaled
		works[i] = ws
	}
	return works
}

// goPollRound is the C twin's loop in Go (cwrites.go): one goroutine
// posts connsInflight batches on every connection, then polls each
// connection's CQ in turn (CQ.Poll), posting the next batch as one
// completes, until batches have completed on every connection. Against
// the twin it is the cost of rdma's calls per write on the same loop,
// without the goroutine per connection and its events. Returns the time
// from the first post to the last completion.
func (cs *connSet) goPollRound(works [][]rdma.SendWork, batches int) (time.Duration, error) {
	n := len(cs.conns)
	posted, done := make([]int, n), make([]int, n)
	var wcs [4]ibv.WC
	start := time.Now()
	post := func(i int) error {
		for posted[i] < batches && posted[i]-done[i] < connsInflight {
			if err := cs.conns[i].QP.PostSend(works[i]...); err != nil {
				return fmt.Errorf("connection %d: %w", i, err)
			}
			posted[i]++
		}
		return nil
	}
	for i := range n {
		if err := post(i); err != nil {
			return 0, err
		}
	}
	for left := n * batches; left > 0; {
		for i, c := range cs.conns {
			if done[i] == posted[i] {
				continue
			}
			k, err := c.CQ.Poll(wcs[:])
			if err != nil {
				return 0, fmt.Errorf("connection %d: %w", i, err)
			}
			for _, wc := range wcs[:k] {
				if wc.Status != ibv.WCStatusSuccess {
					return 0, fmt.Errorf("connection %d: write: %s", i, ibv.WCStatusStr(wc.Status))
				}
			}
			done[i] += k
			left -= k
			if err := post(i); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start), nil
}

// goWriteRound is one round of the Go write rate: a goroutine per
// connection parks in CQ.Await; once all are parked, measure (if not nil)
// runs, then one batch of works is posted on every connection, and each goroutine,
// woken by its completions, keeps at most connsInflight batches
// outstanding until batches have completed. Returns the time from the
// first post to the last completion.
func (cs *connSet) goWriteRound(works [][]rdma.SendWork, batches int, measure func()) (time.Duration, error) {
	n := len(cs.conns)
	var parked atomic.Int64
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i, c := range cs.conns {
		wg.Go(func() {
			wcs := make([]ibv.WC, 4)
			posted, done := 1, 0 // the first batch is posted for us
			parked.Add(1)
			for done < batches {
				k, err := c.CQ.Await(context.Background(), wcs)
				if err != nil {
					errs[i] = err
					return
				}
				for _, wc := range wcs[:k] {
					if wc.Status != ibv.WCStatusSuccess {
						errs[i] = fmt.Errorf("connection %d: write: %s", i, ibv.WCStatusStr(wc.Status))
						return
					}
					done++
				}
				for posted < batches && posted-done < connsInflight {
					if err := c.QP.PostSend(works[i]...); err != nil {
						errs[i] = err
						return
					}
					posted++
				}
			}
		})
	}
	for parked.Load() < int64(n) {
		time.Sleep(10 * time.Millisecond)
	}
	// Parked: each has counted itself and called Await, which finds the CQ
	// empty and waits on the netpoller; give the last ones time to get there.
	time.Sleep(300 * time.Millisecond)
	if measure != nil {
		measure()
	}
	start := time.Now()
	for i, c := range cs.conns {
		if err := c.QP.PostSend(works[i]...); err != nil {
			return 0, fmt.Errorf("connection %d: %w", i, err)
		}
	}
	wg.Wait()
	el := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	return el, nil
}

// close deregisters the sources and closes the connections, connsDialers
// at a time (each Close waits for its disconnect to complete).
func (cs *connSet) close() {
	for _, m := range cs.mrs {
		if m != nil {
			m.Close()
		}
	}
	closeConns(cs.conns)
	if cs.buf != nil {
		cs.buf.Free()
	}
}

func closeConns(conns []*rdma.Conn) {
	// No more at once than the dials: each Close's C calls block a thread,
	// which the runtime keeps (see docs/benchmarks.md, OS threads).
	sem := make(chan struct{}, connsDialers)
	var wg sync.WaitGroup
	for _, c := range conns {
		if c == nil {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c.Close()
		})
	}
	wg.Wait()
}

// connsFDLimit is the limit on open files BenchmarkConns sets for itself
// and its peer: an rdma.Conn holds four (its rdmacm event channel and
// completion channel, each with the duplicate the netpoller waits on; the
// device's async-event fd is duplicated once for all connections), and
// the guest's default hard limit, 4096, stops a process a little over 1000
// connections (five each, before the device was shared: about 810).
const connsFDLimit = 1 << 16

// raiseFDLimit raises this process's limit on open files (soft and hard:
// it runs as root in the guest) to at least n; child processes inherit it.
func raiseFDLimit(n uint64) error {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("getrlimit: %w", err)
	}
	if l.Cur >= n && l.Max >= n {
		return nil
	}
	l.Cur, l.Max = max(l.Cur, n), max(l.Max, n)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return fmt.Errorf("setrlimit RLIMIT_NOFILE %d: %w", n, err)
	}
	return nil
}

// procFDs is the number of open file descriptors of this process.
func procFDs() int {
	es, _ := os.ReadDir("/proc/self/fd")
	return len(es)
}

// procThreads is the number of OS threads of this process (the Threads
// line of /proc/self/status), -1 if unknown.
func procThreads() int {
	v, _ := procStatus("Threads:")
	return int(v)
}

// memNow is the process's resident set (VmRSS, bytes) and, after a
// garbage collection, the Go heap in use and the goroutine stacks.
func memNow() (rss, heap, stack uint64) {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	kb, _ := procStatus("VmRSS:")
	return uint64(kb) * 1024, ms.HeapAlloc, ms.StackInuse
}

// procStatus reads the number after key in /proc/self/status.
func procStatus(key string) (int64, error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1, err
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, key); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				return strconv.ParseInt(f[0], 10, 64)
			}
		}
	}
	return -1, fmt.Errorf("/proc/self/status: no %s", key)
}

// The conns peer is this test binary re-executed with connsPeerEnv set to
// node B's address, driven over its stdin/stdout:
//
//	peer -> "listen <port>"             listening (rdma.Listen, port 0)
//	peer -> "mr <i> <addr> <rkey>"      connection i accepted (i: the
//	                                    dialer's private data), its write
//	                                    target registered
//	bench -> "quit"                     close everything and exit 0
const connsPeerEnv = "GOVERBS_BENCH_CONNS_PEER"

func runConnsPeer(ip string, in io.Reader, out io.Writer) error {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return err
	}
	l, err := rdma.Listen(netip.AddrPortFrom(addr, 0), connsConfig)
	if err != nil {
		return err
	}
	buf, err := rdma.AllocBuffer(4096)
	if err != nil {
		l.Close()
		return err
	}
	fmt.Fprintf(out, "listen %d\n", l.Port())
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu    sync.Mutex
		conns []*rdma.Conn
		mrs   []*rdma.MR
		wg    sync.WaitGroup
		fail  = make(chan error, 1)
	)
	failed := func(err error) {
		select {
		case fail <- err:
		default:
		}
	}
	go func() {
		for {
			r, err := l.Request(ctx)
			if err != nil {
				if ctx.Err() == nil {
					failed(err)
				}
				return
			}
			wg.Go(func() {
				d := r.PrivateData()
				if len(d) < 4 {
					r.Reject(nil)
					failed(fmt.Errorf("a request without the dialer's index"))
					return
				}
				i := binary.LittleEndian.Uint32(d)
				c, err := r.Accept(ctx, nil)
				if err != nil {
					failed(fmt.Errorf("accept %d: %w", i, err))
					return
				}
				mr, err := c.PD.Register(buf.Bytes(), ibv.AccessFlagsLocalWrite|ibv.AccessFlagsRemoteWrite)
				mu.Lock()
				defer mu.Unlock()
				conns = append(conns, c)
				if err != nil {
					failed(fmt.Errorf("connection %d: %w", i, err))
					return
				}
				mrs = append(mrs, mr)
				fmt.Fprintf(out, "mr %d %d %d\n", i, mr.Addr(), mr.RKey())
			})
		}
	}()
	quit := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(in)
		switch {
		case !sc.Scan():
			quit <- fmt.Errorf("stdin closed: %v", sc.Err())
		case sc.Text() != "quit":
			quit <- fmt.Errorf("unknown command %q", sc.Text())
		default:
			quit <- nil
		}
	}()
	select {
	case err = <-quit:
	case err = <-fail:
	}
	cancel()
	l.Close()
	wg.Wait()
	for _, m := range mrs {
		m.Close()
	}
	closeConns(conns)
	buf.Free()
	return err
}

// startConnsPeer starts the conns peer listening on ip and returns it with
// its port.
func startConnsPeer(ip string) (*peer, uint16, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), connsPeerEnv+"="+ip)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, 0, err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, 0, err
	}
	if err := cmd.Start(); err != nil {
		return nil, 0, err
	}
	p := &peer{cmd: cmd, in: in, out: bufio.NewScanner(outp)}
	line, err := p.line()
	var port uint16
	if err == nil {
		_, err = fmt.Sscanf(line, "listen %d", &port)
	}
	if err != nil {
		p.stop()
		return nil, 0, fmt.Errorf("conns peer: %q: %w", line, err)
	}
	return p, port, nil
}

// cmtime runs rdmacm-utils' cmtime for n connections, its server (-L) on
// node B and its client on node A, each bound to its node's address, B's
// the controller's, and returns the client's "full connect" time per
// connection (µs), of its test with QPs. Whichever starts first binds the
// controller's port and leads; the other follows.
func cmtime(na, nb rxetest.Node, n int) (float64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	c := strconv.Itoa(n)
	srv := exec.CommandContext(ctx, "cmtime", "-b", nb.IP, "-C", nb.IP, "-L", "-c", c)
	var srvOut strings.Builder
	srv.Stdout, srv.Stderr = &srvOut, &srvOut
	if err := srv.Start(); err != nil {
		return 0, err
	}
	out, err := exec.CommandContext(ctx, "cmtime", "-b", na.IP, "-C", nb.IP, "-c", c).CombinedOutput()
	serr := srv.Wait()
	if err != nil || serr != nil {
		return 0, fmt.Errorf("cmtime -c %d: client: %v, server: %v\n%s\nserver:\n%s", n, err, serr, out, srvOut.String())
	}
	return cmtimeFullConnect(string(out), n)
}
