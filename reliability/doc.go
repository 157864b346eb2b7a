// Package reliability holds the reliability tests of package rdma on the rxe bed
// (files *_rxe_test.go, build tag rxe): a load of sends and RDMA writes with every
// message sequenced and checksummed, link faults, a peer process killed mid-transfer,
// and a matrix of bad inputs, each test checked for leaked verbs objects and
// goroutines. They use only rdma's exported API, as a program would. See
// docs/reliability.md for the figures and the commands.
package reliability
