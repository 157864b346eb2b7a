package main

import (
	"fmt"
	"net"
	"strconv"

	"github.com/goverbs/goverbs/rdma"
)

// clientExchange runs the client's side of the exchange over conn: send
// local, read the server's address, connect to it (connect), send doneMsg.
func clientExchange(conn net.Conn, local rdma.Endpoint, connect func(rdma.Endpoint) error) (rdma.Endpoint, error) {
	msg, err := formatDest(local)
	if err != nil {
		return rdma.Endpoint{}, err
	}
	if _, err := conn.Write(msg); err != nil {
		return rdma.Endpoint{}, fmt.Errorf("couldn't send local address: %w", err)
	}
	remote, err := readDest(conn)
	if err != nil {
		return remote, err
	}
	if err := connect(remote); err != nil {
		return remote, err
	}
	if _, err := conn.Write(doneMsg); err != nil {
		return remote, fmt.Errorf("couldn't send \"done\": %w", err)
	}
	return remote, nil
}

// serverExchange runs the server's side over conn: read the client's
// address, connect to it, send local, read the client's doneMsg.
func serverExchange(conn net.Conn, local rdma.Endpoint, connect func(rdma.Endpoint) error) (rdma.Endpoint, error) {
	msg, err := formatDest(local)
	if err != nil {
		return rdma.Endpoint{}, err
	}
	remote, err := readDest(conn)
	if err != nil {
		return remote, err
	}
	if err := connect(remote); err != nil {
		return remote, err
	}
	if _, err := conn.Write(msg); err != nil {
		return remote, fmt.Errorf("couldn't send local address: %w", err)
	}
	return remote, readDone(conn)
}

// dial connects to the server, as the tool does: once, no retry.
func dial(host string, port int) (net.Conn, error) {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("couldn't connect to %s: %w", addr, err)
	}
	return conn, nil
}

// accept waits for one client on port (every IPv4 address, as the tool
// listens, or every IPv6 one on a host without IPv4) and stops listening.
func accept(port int) (net.Conn, error) {
	ln, err := net.Listen("tcp4", ":"+strconv.Itoa(port))
	if err != nil {
		ln, err = net.Listen("tcp6", ":"+strconv.Itoa(port))
	}
	if err != nil {
		return nil, fmt.Errorf("couldn't listen to port %d: %w", port, err)
	}
	defer ln.Close()
	conn, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("accept on port %d: %w", port, err)
	}
	return conn, nil
}
