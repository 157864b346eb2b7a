// Command benchreport turns the output of `go test -bench` on ./bench (see
// make bench) into the comparison table of goverbs against C and perftest,
// with the targets, and a plot of send latency by message size.
//
//	benchreport -in bench.txt -svg docs/benchmarks.svg -section docs/benchmarks.md
//
// With -section it replaces the text of a markdown file between the lines
// "<!-- bench:begin -->" and "<!-- bench:end -->" with the table (make bench:
// docs/benchmarks.md, whose prose around the table says what is measured);
// -md writes the table alone to a file.
//
// With -conns it reports BenchmarkConns instead (make bench-conns): the
// many-connections tables, written between "<!-- conns:begin -->" and
// "<!-- conns:end -->", and, with -svg, the plot of set-up time and write
// rate against the number of connections.
//
// With -host it reports rdma's BenchmarkHost* instead (make bench-host): the
// binding's cost per verb on the host CPU against C loops on a stub
// provider, written between "<!-- host:begin -->" and "<!-- host:end -->",
// and, with -svg, its plot. -host -check only checks that every way of
// every verb was measured and allocated nothing (make bench-host-smoke).
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	in := flag.String("in", "", "go test -bench output (required)")
	md := flag.String("md", "", "write the markdown report here")
	svg := flag.String("svg", "", "write the latency plot here")
	section := flag.String("section", "", "replace the bench section (between its markers) of this markdown file with the table")
	conns := flag.Bool("conns", false, "report BenchmarkConns (the conns section and plot) instead")
	host := flag.Bool("host", false, "report rdma's BenchmarkHost* (the host section and plot) instead")
	check := flag.Bool("check", false, "with -host: only check that every way was measured, without allocations")
	flag.Parse()
	if *in == "" || flag.NArg() > 0 || *check && !*host {
		fmt.Fprintln(os.Stderr, "usage: benchreport -in FILE [-conns | -host [-check]] [-md FILE] [-svg FILE] [-section FILE]")
		os.Exit(2)
	}
	run := run
	switch {
	case *conns:
		run = runConns
	case *host && *check:
		run = runHostCheck
	case *host:
		run = runHost
	}
	if err := run(*in, *md, *svg, *section); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

func run(in, md, svg, section string) error {
	return runWith(in, md, svg, section, report, plotLatency, beginMark, endMark)
}

// runConns is run for BenchmarkConns.
func runConns(in, md, svg, section string) error {
	return runWith(in, md, svg, section, reportConns, plotConns, connsBegin, connsEnd)
}

// runHost is run for the host group.
func runHost(in, md, svg, section string) error {
	return runWith(in, md, svg, section, reportHost, plotHost, hostBegin, hostEnd)
}

// runHostCheck checks the host group's results (-host -check).
func runHostCheck(in, _, _, _ string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := parse(f, in)
	if err != nil {
		return err
	}
	if err := checkHost(res); err != nil {
		return err
	}
	fmt.Println("benchreport: every way of every host benchmark measured, none allocating")
	return nil
}

func runWith(in, md, svg, section string, report func(*results) (string, error), plot func(*results, string) error, begin, end string) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	res, err := parse(f, in)
	if err != nil {
		return err
	}
	table, err := report(res)
	if err != nil {
		return err
	}
	fmt.Print(table)
	if md != "" {
		if err := os.WriteFile(md, []byte(table), 0o644); err != nil {
			return err
		}
	}
	if svg != "" {
		if err := plot(res, svg); err != nil {
			return err
		}
	}
	if section != "" {
		return updateSectionBetween(section, table, begin, end)
	}
	return nil
}
