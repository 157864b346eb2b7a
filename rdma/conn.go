package rdma

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/goverbs/goverbs/ibv"
	"github.com/goverbs/goverbs/rdmacm"
	"golang.org/x/sys/unix"
)

// ConnConfig sizes a connection's resources. Zero values take defaults.
type ConnConfig struct {
	MaxSend, MaxRecv       int // queue depths (default 64)
	MaxSendSGE, MaxRecvSGE int // default 1
	MaxInline              int
	CQSize                 int // one CQ for sends and receives (default MaxSend+MaxRecv)
	// ResolveTimeout bounds address and route resolution (default 2 s).
	ResolveTimeout time.Duration
	// RetryCount and RNRRetryCount go into the connection parameters
	// (default 7 each): how often the QP retries before failing its work
	// requests when the peer stops answering.
	RetryCount, RNRRetryCount uint8
	// PrivateData is sent with the connection request (Dial, through
	// rdma_connect) or with its acceptance (Listener.Accept, through
	// rdma_accept), and read by the peer with Conn.PeerPrivateData or
	// ConnRequest.PrivateData. On InfiniBand and RoCE it holds at most
	// MaxConnectPrivateData or MaxAcceptPrivateData bytes (more is an error
	// before any C call); the transport may deliver it padded with zeros.
	PrivateData []byte
}

// The most private data the InfiniBand connection manager (on InfiniBand
// and RoCE devices, rxe among them) carries: a REQ's 92 bytes less the 36
// of rdmacm's header, a REP's and a REJ's. Other transports (iWARP) have
// their own limits, which the kernel enforces.
const (
	MaxConnectPrivateData = 56
	MaxAcceptPrivateData  = 196
	MaxRejectPrivateData  = 148
)

// checkPrivateData refuses data longer than max on an InfiniBand
// transport (InfiniBand or RoCE), where max is the IB CM's limit.
func checkPrivateData(op string, ctx *ibv.Context, data []byte, max int) error {
	if len(data) > 255 {
		return invalid(op, "%d bytes of private data: rdmacm carries at most 255", len(data))
	}
	if ctx != nil && ctx.Device != nil && ctx.Device.TransportType == ibv.TransportTypeIB && len(data) > max {
		return invalid(op, "%d bytes of private data: the InfiniBand connection manager carries at most %d here", len(data), max)
	}
	return nil
}

// cBytes copies b into C memory for a call (nil for an empty b); free it
// with cFree after the call.
func cBytes(b []byte) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	p := cAlloc(uintptr(len(b)))
	copy(unsafe.Slice((*byte)(p), len(b)), b)
	return p
}

func (c ConnConfig) withDefaults() ConnConfig {
	if c.MaxSend == 0 {
		c.MaxSend = 64
	}
	if c.MaxRecv == 0 {
		c.MaxRecv = 64
	}
	if c.CQSize == 0 {
		c.CQSize = c.MaxSend + c.MaxRecv
	}
	if c.ResolveTimeout == 0 {
		c.ResolveTimeout = 2 * time.Second
	}
	if c.RetryCount == 0 {
		c.RetryCount = 7
	}
	if c.RNRRetryCount == 0 {
		c.RNRRetryCount = 7
	}
	return c
}

// connParam is what rdma_connect and rdma_accept get from cfg.
func (c ConnConfig) connParam() rdmacm.ConnParam {
	return rdmacm.ConnParam{ResponderResources: 1, InitiatorDepth: 1, RetryCount: c.RetryCount, RNRRetryCount: c.RNRRetryCount}
}

// Conn is a connected RC queue pair made through rdmacm, with its own
// device handle, PD, completion channel and CQ (shared by sends and
// receives), all closed by Close. The device handles of a process's
// connections on one RDMA device share librdmacm's verbs context and one
// waiter on its async-event fd (see Device.AsyncEvent): a Conn holds four
// file descriptors, its rdmacm event channel and its completion channel,
// each with the duplicate the netpoller waits on.
type Conn struct {
	ch  *cmChannel
	id  *rdmacm.CMID
	Dev *Device
	PD  *PD
	CC  *CompChannel
	CQ  *CQ
	QP  *QP

	closeOnce sync.Once
	closeErr  error
	ended     atomic.Bool // WaitDisconnect saw the connection end
	peerData  []byte
}

// PeerPrivateData is the private data the peer sent: a dialer's
// connection gets the listener's acceptance data, an accepted one the
// dialer's request data, as the transport delivered it (the IB CM pads it
// to MaxAcceptPrivateData or MaxConnectPrivateData bytes). nil when the
// peer sent none.
func (c *Conn) PeerPrivateData() []byte { return c.peerData }

func sockaddr(ap netip.AddrPort) (*rdmacm.Sockaddr, error) {
	if !ap.Addr().Is4() {
		return nil, invalid("rdma", "address %s: only IPv4 is supported", ap)
	}
	sa := &unix.RawSockaddrInet4{Family: unix.AF_INET, Addr: ap.Addr().As4()}
	p := (*[2]byte)(unsafe.Pointer(&sa.Port))
	p[0], p[1] = byte(ap.Port()>>8), byte(ap.Port())
	return (*rdmacm.Sockaddr)(unsafe.Pointer(sa)), nil
}

// Dial connects to the rdmacm listener at addr ("192.0.2.2:7471") and
// returns the connection once established (rdma_resolve_addr,
// rdma_resolve_route, rdma_create_qp, rdma_connect, each step waited for
// on the netpoller). laddr, if valid, is the local address to bind.
// A refused connection wraps unix.ECONNREFUSED, an unreachable one
// unix.EHOSTUNREACH (see CMEventError); ctx bounds the whole dial.
func Dial(ctx context.Context, laddr, addr netip.AddrPort, cfg ConnConfig) (*Conn, error) {
	const op = "rdma.Dial"
	cfg = cfg.withDefaults()
	dst, err := sockaddr(addr)
	if err != nil {
		return nil, err
	}
	var src *rdmacm.Sockaddr
	if laddr.IsValid() {
		if src, err = sockaddr(laddr); err != nil {
			return nil, err
		}
	}
	ch, err := newCMChannel()
	if err != nil {
		return nil, err
	}
	c := &Conn{ch: ch}
	fail := func(err error) (*Conn, error) {
		c.teardown()
		return nil, err
	}
	// (cgo refuses &c.id: c holds Go pointers.)
	id, err := ch.ch.CreateID(nil, rdmacm.PortSpaceTCP)
	if err != nil {
		return fail(err)
	}
	c.id = id
	if err := c.id.ResolveAddr(src, dst, cfg.ResolveTimeout); err != nil {
		return fail(err)
	}
	if _, err := ch.expect(ctx, op, rdmacm.CMEventTypeAddrResolved); err != nil {
		return fail(err)
	}
	if err := c.id.ResolveRoute(cfg.ResolveTimeout); err != nil {
		return fail(err)
	}
	if _, err := ch.expect(ctx, op, rdmacm.CMEventTypeRouteResolved); err != nil {
		return fail(err)
	}
	if err := c.setup(cfg); err != nil {
		return fail(err)
	}
	if err := checkPrivateData(op, c.id.Verbs, cfg.PrivateData, MaxConnectPrivateData); err != nil {
		return fail(err)
	}
	param := cfg.connParam()
	if pd := cBytes(cfg.PrivateData); pd != nil {
		defer cFree(pd)
		param.PrivateData, param.PrivateDataLen = pd, uint8(len(cfg.PrivateData))
	}
	if err := c.id.Connect(&param); err != nil {
		return fail(err)
	}
	ev, err := ch.expect(ctx, op, rdmacm.CMEventTypeEstablished)
	if err != nil {
		return fail(err)
	}
	c.peerData = ev.data
	c.QP.state.Store(int32(ibv.QPStateRTS))
	return c, nil
}

// setup creates the connection's verbs resources on the id's device and its
// QP (rdma_create_qp).
func (c *Conn) setup(cfg ConnConfig) error {
	dev, err := borrowDevice(c.id.Verbs)
	if err != nil {
		return err
	}
	c.Dev = dev
	if c.PD, err = dev.AllocPD(); err != nil {
		return err
	}
	if c.CC, err = dev.NewCompChannel(); err != nil {
		return err
	}
	if c.CQ, err = dev.NewCQ(cfg.CQSize, c.CC); err != nil {
		return err
	}
	qcfg := QPConfig{Type: ibv.QPTypeRC, SendCQ: c.CQ, RecvCQ: c.CQ, MaxSend: cfg.MaxSend, MaxRecv: cfg.MaxRecv,
		MaxSendSGE: cfg.MaxSendSGE, MaxRecvSGE: cfg.MaxRecvSGE, MaxInline: cfg.MaxInline}
	_, err = c.PD.adoptQP(qcfg, func(init *ibv.QPInitAttr) (*ibv.QP, error) {
		if err := c.id.CreateQP(c.PD.pd, init); err != nil {
			return nil, err
		}
		return c.id.QP, nil
	}, func() error {
		c.id.DestroyQP()
		return nil
	}, &c.QP)
	if err != nil {
		c.QP = nil
	}
	return err
}

// Disconnect starts an orderly disconnect (rdma_disconnect): the QP moves
// to the error state, outstanding work requests complete with
// IBV_WC_WR_FLUSH_ERR, and the peer sees its connection end.
func (c *Conn) Disconnect() error { return c.id.Disconnect() }

// WaitDisconnect waits until the connection ends (the peer disconnected or
// went away: RDMA_CM_EVENT_DISCONNECTED). Once it has seen the end it
// returns nil at once, and Close no longer waits for it.
func (c *Conn) WaitDisconnect(ctx context.Context) error {
	for !c.ended.Load() {
		ev, err := c.ch.next(ctx)
		if err != nil {
			return opErr("rdma.Conn.WaitDisconnect", err)
		}
		if ev.typ == rdmacm.CMEventTypeDisconnected || ev.typ == rdmacm.CMEventTypeDeviceRemoval {
			c.ended.Store(true)
		}
	}
	return nil
}

// Close disconnects (rdma_disconnect, which also answers a peer's
// disconnect; unless WaitDisconnect has already seen the connection end,
// it then waits up to a second for the disconnect to complete) and frees
// every resource of the connection: QP, CQ, completion channel, PD, the
// rdmacm id and its event channel. Idempotent.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		if c.id != nil && c.QP != nil && c.id.Disconnect() == nil && !c.ended.Load() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c.WaitDisconnect(ctx)
			cancel()
		}
		c.closeErr = c.teardown()
	})
	return c.closeErr
}

// teardown closes what exists, children first.
func (c *Conn) teardown() error {
	var errs []error
	add := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if c.QP != nil {
		add(c.QP.Close())
	}
	if c.CQ != nil {
		add(c.CQ.Close())
	}
	if c.CC != nil {
		add(c.CC.Close())
	}
	if c.PD != nil {
		add(c.PD.Close())
	}
	if c.Dev != nil {
		add(c.Dev.Close())
	}
	if c.id != nil {
		add(c.id.DestroyID())
	}
	if c.ch != nil {
		c.ch.close()
	}
	return errors.Join(errs...)
}

// Listener accepts rdmacm connections (rdma_listen).
type Listener struct {
	ch  *cmChannel
	id  *rdmacm.CMID
	cfg ConnConfig
	mu  sync.Mutex
}

// Listen binds addr (rdma_bind_addr) and listens on it (rdma_listen).
func Listen(addr netip.AddrPort, cfg ConnConfig) (*Listener, error) {
	sa, err := sockaddr(addr)
	if err != nil {
		return nil, err
	}
	ch, err := newCMChannel()
	if err != nil {
		return nil, err
	}
	l := &Listener{ch: ch, cfg: cfg.withDefaults()}
	id, err := ch.ch.CreateID(nil, rdmacm.PortSpaceTCP)
	if err != nil {
		ch.close()
		return nil, err
	}
	l.id = id
	if err := l.id.BindAddr(sa); err != nil {
		l.Close()
		return nil, err
	}
	if err := l.id.Listen(16); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Port is the port the listener is bound to (useful after binding port 0).
// (rdma_get_src_port returns it in network byte order.)
func (l *Listener) Port() uint16 {
	p := l.id.GetSrcPort()
	b := (*[2]byte)(unsafe.Pointer(&p))
	return uint16(b[0])<<8 | uint16(b[1])
}

// Accept waits for the next connection request, accepts it with the
// listener's ConnConfig.PrivateData and returns the connection once
// established (Request, then ConnRequest.Accept).
func (l *Listener) Accept(ctx context.Context) (*Conn, error) {
	r, err := l.Request(ctx)
	if err != nil {
		return nil, err
	}
	return r.Accept(ctx, l.cfg.PrivateData)
}

// ConnRequest is an incoming connection request, to inspect (PrivateData)
// and then accept or reject, once. A request neither accepted nor
// rejected leaves the dialer waiting until its own timeout.
type ConnRequest struct {
	l    *Listener
	id   *rdmacm.CMID
	data []byte
	once atomic.Bool
}

// Request waits for the next connection request (RDMA_CM_EVENT_CONNECT_REQUEST)
// and returns it, not yet accepted.
func (l *Listener) Request(ctx context.Context) (*ConnRequest, error) {
	ev, err := l.ch.expect(ctx, "rdma.Listener.Request", rdmacm.CMEventTypeConnectRequest)
	if err != nil {
		return nil, err
	}
	return &ConnRequest{l: l, id: ev.id, data: ev.data}, nil
}

// PrivateData is the dialer's ConnConfig.PrivateData, as the transport
// delivered it (the IB CM pads it to MaxConnectPrivateData bytes); nil
// when it sent none.
func (r *ConnRequest) PrivateData() []byte { return r.data }

// take marks the request answered; a second answer is an error.
func (r *ConnRequest) take(op string) error {
	if r == nil {
		return nilErr(op)
	}
	if !r.once.CompareAndSwap(false, true) {
		return invalid(op, "the connection request was already accepted or rejected")
	}
	return nil
}

// Accept accepts the request with privateData for the dialer (rdma_accept;
// at most MaxAcceptPrivateData bytes on InfiniBand and RoCE) and returns
// the connection once established. Each accepted connection gets its own
// event channel (rdma_migrate_id), so it can be waited on independently.
// On failure the request is rejected.
func (r *ConnRequest) Accept(ctx context.Context, privateData []byte) (*Conn, error) {
	const op = "rdma.ConnRequest.Accept"
	if err := r.take(op); err != nil {
		return nil, err
	}
	if err := checkPrivateData(op, r.id.Verbs, privateData, MaxAcceptPrivateData); err != nil {
		r.id.Reject(nil)
		r.id.DestroyID()
		return nil, err
	}
	ch, err := newCMChannel()
	if err != nil {
		r.id.Reject(nil)
		r.id.DestroyID()
		return nil, err
	}
	c := &Conn{ch: ch, id: r.id, peerData: r.data}
	fail := func(err error) (*Conn, error) {
		c.teardown()
		return nil, err
	}
	if err := c.id.MigrateID(ch.ch); err != nil {
		c.id.Reject(nil)
		return fail(err)
	}
	if err := c.setup(r.l.cfg); err != nil {
		c.id.Reject(nil)
		return fail(err)
	}
	param := r.l.cfg.connParam()
	if pd := cBytes(privateData); pd != nil {
		defer cFree(pd)
		param.PrivateData, param.PrivateDataLen = pd, uint8(len(privateData))
	}
	if err := c.id.Accept(&param); err != nil {
		return fail(err)
	}
	if _, err := ch.expect(ctx, op, rdmacm.CMEventTypeEstablished); err != nil {
		return fail(err)
	}
	c.QP.state.Store(int32(ibv.QPStateRTS))
	return c, nil
}

// Reject refuses the request (rdma_reject) with privateData for the
// dialer (at most MaxRejectPrivateData bytes on InfiniBand and RoCE),
// whose Dial fails with a *CMEventError carrying it and the reject reason,
// wrapping unix.ECONNREFUSED. Data too long is an error before any C call,
// and the request is then rejected without it.
func (r *ConnRequest) Reject(privateData []byte) error {
	const op = "rdma.ConnRequest.Reject"
	if err := r.take(op); err != nil {
		return err
	}
	defer r.id.DestroyID()
	if err := checkPrivateData(op, r.id.Verbs, privateData, MaxRejectPrivateData); err != nil {
		r.id.Reject(nil)
		return err
	}
	return r.id.Reject(privateData)
}

// Close stops listening (rdma_destroy_id) and frees the event channel;
// goroutines in Accept return ErrClosed. Idempotent.
func (l *Listener) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.id == nil {
		return nil
	}
	l.ch.w.close()
	err := l.id.DestroyID()
	l.ch.ch.Destroy()
	l.id = nil
	return err
}
